// @ts-check
// Results of actions that came after the agent was told `outcome_unknown` (call-deadline.js;
// docs/protocol/action-safety.md, "Nothing done twice"). An action cannot be stopped once the page runs it, so
// its result is reported late instead: the agent's next call that succeeds carries
// `lateOutcomes`, oldest first, and each is reported once. Only what the agent needs to decide
// is kept (whether it succeeded, progress, evidence, what the tab did, the error's code), in
// memory: a stopped service worker loses the action with it, and the host has answered
// `outcome_unknown` already.

/** At most this many are kept; older ones are dropped (the side panel's call log has them all). */
const MAX_LATE_OUTCOMES = 10;

/**
 * @typedef {{callId: string, tool: string, finishedAt: string, ok: boolean, progress?: unknown,
 *   evidence?: unknown, retryAllowed?: unknown, observed?: unknown, error?: {code: string, message: string}}} LateOutcome
 */

/** @type {LateOutcome[]} */
let lateOutcomes = [];

/**
 * Remembers the late result of a call that was answered `outcome_unknown`.
 * @param {{id: string, tool: string}} call
 * @param {{ok: boolean, result?: any, error?: any}} outcome
 */
export function rememberLateOutcome(call, outcome) {
  /** @type {LateOutcome} */
  const late = { callId: call.id, tool: call.tool, finishedAt: new Date().toISOString(), ok: outcome.ok };
  if (outcome.ok) {
    const result = outcome.result ?? {};
    for (const field of /** @type {const} */ (["progress", "evidence", "retryAllowed", "observed"])) {
      if (result[field] !== undefined) late[field] = result[field];
    }
  } else {
    const error = outcome.error ?? {};
    late.error = {
      code: typeof error.code === "string" ? error.code : "script_failed",
      message: String(error.message ?? error),
    };
  }
  lateOutcomes = [...lateOutcomes, late].slice(-MAX_LATE_OUTCOMES);
}

/**
 * The late outcomes not yet reported, forgotten once taken.
 * @returns {LateOutcome[]}
 */
export function takeLateOutcomes() {
  const taken = lateOutcomes;
  lateOutcomes = [];
  return taken;
}
