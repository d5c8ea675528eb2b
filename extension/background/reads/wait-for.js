// @ts-check
// wait_for (docs/agent-tools.md, "wait_for"): returns as soon as a text is shown in any frame of
// the tab, a text is shown in none, or a ref's element reaches a state. The background looks,
// through the frames' content scripts (content/actions/wait-conditions.js), every LOOK_INTERVAL_MS
// and answers with how long it waited, or, when the time runs out, with what it saw last: not
// reaching the condition is an answer (`met: false`), as for wait_for_stable, not an error.

import { fail, messages, ToolFailure } from "../platform.js";
import { callFrame, resolveTab } from "../frames/frames.js";
import { listFrames } from "../frames/frame-list.js";
import { refuseRefOfOtherFrame } from "../frames/ref-ownership.js";
import { issueOf } from "../frames/ref-issues.js";
import { loadRecord } from "../frames/ref-issue-store.js";
import { FRAME_PING_TIMEOUT_MS } from "../host/budgets.js";
import { stateHolds } from "./element-states.js";

/**
 * How often the condition is looked at: often at first, since most waits end within a second or
 * two, then less, so that a long wait on a large page does not keep a core busy.
 */
const LOOK_INTERVAL_MS = 100;
const LATER_LOOK_INTERVAL_MS = 250;
const FREQUENT_LOOKS_FOR_MS = 2_000;

const sleep = (/** @type {number} */ ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A frame that cannot answer a look (it is navigating, or the extension may not enter it) counts
 * as showing nothing: the next look asks it again. A page blocked by a prompt (page_blocked) is
 * an error, as for every tool: nothing changes behind a prompt until it is answered.
 * @param {unknown} failure
 */
function isPassingFrameFailure(failure) {
  return (
    failure instanceof ToolFailure &&
    ["frame_detached", "script_failed", "timeout", "frame_not_found"].includes(failure.error.code)
  );
}

/**
 * `wait_for({text} | {textGone} | {ref_id, state}, timeoutMs, frameId?, tabId?)`.
 * @param {ToolArguments<"wait_for">} args validated: exactly one of text, textGone and ref_id
 * @param {{signal?: AbortSignal}} [options]
 */
export async function waitFor(args, { signal } = {}) {
  const tab = await resolveTab(args.tabId);
  const started = Date.now();
  const deadline = started + args.timeoutMs;
  const look =
    typeof args.ref_id === "string"
      ? await elementLook(tab.id, args.frameId ?? 0, args.ref_id, args.state ?? "visible")
      : textLook(tab.id, /** @type {string} */ (args.text ?? args.textGone), typeof args.textGone === "string");
  for (;;) {
    const seen = await look(deadline);
    const waitedMs = Date.now() - started;
    if (seen.met) return { met: true, waitedMs, ...seen.found };
    if (Date.now() >= deadline || signal?.aborted) {
      return { met: false, waitedMs, reason: "timeout", lastSeen: seen.lastSeen, hint: seen.hint };
    }
    const interval = waitedMs < FREQUENT_LOOKS_FOR_MS ? LOOK_INTERVAL_MS : LATER_LOOK_INTERVAL_MS;
    await sleep(Math.min(interval, Math.max(0, deadline - Date.now())));
  }
}

/**
 * One look's answer: whether the condition holds, what to add to the result when it does, and
 * what was seen (for the result when time runs out).
 * @typedef {{met: boolean, found?: Record<string, unknown>, lastSeen: unknown, hint?: string}} Look
 */

/**
 * Looks for a text in every frame of the tab, all frames asked at once.
 * @param {number} tabId
 * @param {string} text
 * @param {boolean} untilGone the condition is that no frame shows it
 * @returns {(deadline: number) => Promise<Look>}
 */
function textLook(tabId, text, untilGone) {
  return async (deadline) => {
    const frames = await listFrames(tabId);
    const answers = await Promise.all(
      frames.map((frame) =>
        callFrame(tabId, frame.frameId, messages.contentToolRequest("text_shown", { text }), {
          deadline: Math.min(deadline + FRAME_PING_TIMEOUT_MS, Date.now() + FRAME_PING_TIMEOUT_MS),
          frameLabel: `frame ${frame.frameId}`,
        }).then(
          (answer) => ({ frameId: frame.frameId, shown: answer.shown === true, excerpt: answer.excerpt }),
          (failure) => {
            if (isPassingFrameFailure(failure)) return { frameId: frame.frameId, shown: false, excerpt: undefined };
            throw failure;
          },
        ),
      ),
    );
    const showing = answers.find((answer) => answer.shown);
    if (untilGone) {
      if (showing === undefined) return { met: true, lastSeen: null };
      return {
        met: false,
        lastSeen: {
          shown: true,
          ...(showing.frameId === 0 ? {} : { frameId: showing.frameId }),
          excerpt: showing.excerpt,
        },
        hint: "The text is still on the page: read it to see why (a spinner, an error), or wait longer.",
      };
    }
    if (showing !== undefined)
      return { met: true, found: showing.frameId === 0 ? {} : { frameId: showing.frameId }, lastSeen: null };
    return {
      met: false,
      lastSeen: { shown: false },
      hint: "The text never appeared: read the page (get_accessibility_tree or find) to see what it shows instead.",
    };
  };
}

/**
 * Looks at a ref's element in the frame that printed it. A ref the tab never printed is refused
 * at once (ref_not_found), as an action would refuse it; a printed ref whose element is gone
 * counts as removed (and hidden).
 * @param {number} tabId
 * @param {number} frameId
 * @param {string} ref
 * @param {string} state
 * @returns {Promise<(deadline: number) => Promise<Look>>}
 */
async function elementLook(tabId, frameId, ref, state) {
  await refuseRefOfOtherFrame(tabId, frameId, ref, "element_state");
  if (issueOf(await loadRecord(tabId), ref) === null) {
    fail("ref_not_found", `${ref} was never printed in this tab`, {
      hint: "Read the page with get_accessibility_tree (or find) and wait for one of its refs.",
    });
  }
  return async (deadline) => {
    const seen = await callFrame(tabId, frameId, messages.contentToolRequest("element_state", { ref_id: ref }), {
      deadline: Math.min(deadline + FRAME_PING_TIMEOUT_MS, Date.now() + FRAME_PING_TIMEOUT_MS),
      frameLabel: `frame ${frameId}`,
    }).catch((failure) => {
      // The frame went away or navigated: the element is gone with its document.
      if (isPassingFrameFailure(failure)) return { found: false };
      throw failure;
    });
    const lastSeen =
      seen.found === true ? { visible: seen.visible, enabled: seen.enabled, checked: seen.checked } : "removed";
    return { met: stateHolds(state, seen), lastSeen, hint: `${ref} did not become ${state} in time.` };
  };
}
