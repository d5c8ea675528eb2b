// @ts-check
// The call log behind the side panel's verbose mode (docs/agent-tools.md, "Watching the
// agent"): the last 200 agent tool calls, each with its arguments, duration and result or error,
// redacted before they are kept (call-redaction.js). It lives in memory and in storage.session,
// so a Chrome service worker that stops and starts again still shows the calls of the session;
// it never reaches storage.local or the disk.

import { api } from "../platform.js";
import { createRedactor } from "./call-redaction.js";
import { storedCopyOf } from "./call-log-storage.js";

/** How many calls the log keeps (the dump's "last 200 request/response pairs"). */
export const CALL_LOG_SIZE = 200;
const STORAGE_KEY = "callLog";

const redact = createRedactor();
/** @type {LoggedCall[]|null} newest last */
let calls = null;
let nextId = 1;
/** @type {ReturnType<typeof setTimeout>|undefined} */
let persistTimer;
/** @type {Set<(call: LoggedCall) => void>} */
const listeners = new Set();

async function loadCalls() {
  if (calls !== null) return calls;
  /** @type {Record<string, unknown>} */
  const stored = await api.storage.session.get(STORAGE_KEY).catch(() => ({}));
  const storedCalls = stored?.[STORAGE_KEY];
  // Only this module writes the key (persist), so a stored array holds LoggedCall entries.
  const kept = Array.isArray(storedCalls) ? /** @type {LoggedCall[]} */ (storedCalls) : [];
  // Another call may have started while storage answered.
  if (calls === null) {
    calls = kept.slice(-CALL_LOG_SIZE);
    nextId = calls.reduce((highest, call) => Math.max(highest, call.id), 0) + 1;
  }
  return calls;
}

/** The logged calls, oldest first. */
export async function loggedCalls() {
  return [...(await loadCalls())];
}

/**
 * Calls `listener` with each call as it starts and again when it ends.
 * @param {(call: LoggedCall) => void} listener
 */
export function onCallLogged(listener) {
  listeners.add(listener);
}

/**
 * Logs the start of a call; the returned function logs its end with the outcome.
 * @param {string} tool
 * @param {unknown} rawArguments
 * @param {ToolAccess|null} claimedAccess the access the MCP server said it lists tools for
 * @returns {Promise<(outcome: {ok: true, result: object}|{ok: false, error: ToolError}) => void>}
 */
export async function logCallStart(tool, rawArguments, claimedAccess) {
  const log = await loadCalls();
  const startedAt = Date.now();
  /** @type {LoggedCall} */
  const call = {
    id: nextId++,
    tool,
    arguments: redact.arguments(tool, rawArguments, undefined),
    claimedAccess,
    startedAt: new Date(startedAt).toISOString(),
    durationMs: null,
    ok: null,
  };
  log.push(call);
  if (log.length > CALL_LOG_SIZE) log.splice(0, log.length - CALL_LOG_SIZE);
  publish(call);
  return (outcome) => {
    call.durationMs = Date.now() - startedAt;
    call.ok = outcome.ok;
    redact.remember(tool, rawArguments, outcome.ok === true ? outcome.result : undefined);
    if (outcome.ok === true) {
      call.arguments = redact.arguments(tool, rawArguments, outcome.result);
      call.result = redact.result(tool, outcome.result);
    } else if (outcome.ok === false) {
      call.error = redact.error(outcome.error);
    }
    publish(call);
  };
}

/** @param {LoggedCall} call */
function publish(call) {
  const copy = structuredClone(call);
  for (const listener of listeners) listener(copy);
  clearTimeout(persistTimer);
  persistTimer = setTimeout(persist, 250);
}

function persist() {
  if (calls === null) return;
  api.storage.session.set({ [STORAGE_KEY]: calls.map(storedCopyOf) }).catch((error) => {
    console.warn(`allwright: could not keep the call log: ${error.message}`);
  });
}
