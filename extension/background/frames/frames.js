// @ts-check
// Reaching a tab's frames: which tab a call means, and asking one frame's content script to run a
// tool, with the browser's many ways of failing mapped onto the protocol's error codes.

import { api, fail, messages, ToolFailure } from "../platform.js";
import { frameOf, listFrames } from "./frame-list.js";
import { LAST_PROBE_BUDGET_MS, PROBE_AFTER_MS, PROBE_BUDGET_MS } from "../host/budgets.js";
import { readStartedSince } from "../reads/reads-in-progress.js";
import { frameCaughtUp } from "../core/tree-hand-off.js";
import { noteAgentTab } from "../tabs/agent-tabs.js";
import { hookConsoleInTab } from "../records/console-hooks.js";
import { thrownMessage } from "../../shared/thrown.js";

/**
 * The content script every frame gets from the manifest (one bundle, scripts/build-extension.mjs).
 * A frame that lacks it (a tab open before the extension was installed or reloaded) gets it
 * injected.
 */
export const CONTENT_SCRIPT_FILES = Object.freeze(["content/content.js"]);

/**
 * A tab a call targets. The browser leaves `id` out only for tabs that are no tabs of a window
 * (chrome.tabs.Tab: "foreign tabs" of sessions, devtools windows), which resolveTab never returns.
 * @typedef {chrome.tabs.Tab & {id: number}} TargetTab
 */

/**
 * The tab a call targets: the given id, else the active tab of the last focused window.
 * @param {number|undefined} tabId
 * @returns {Promise<TargetTab>}
 */
export async function resolveTab(tabId) {
  const found = await findTab(tabId);
  if (found.id === undefined) fail("no_tab", "the browser names no id for the tab of this call");
  const tab = /** @type {TargetTab} */ (found);
  // The tab is the agent's from now on: its documents' CSP records are kept (agent-tabs.js), and
  // its console is watched (console-hooks.js).
  if (await noteAgentTab(tab.id)) hookConsoleInTab(tab.id);
  return tab;
}

/**
 * @param {number|undefined} tabId
 * @returns {Promise<chrome.tabs.Tab>}
 */
async function findTab(tabId) {
  if (tabId !== undefined) {
    try {
      return await api.tabs.get(tabId);
    } catch {
      fail("no_tab", `there is no tab with id ${tabId}`, {
        hint: "Leave tabId out to use the active tab of the last focused window.",
      });
    }
  }
  const [tab] = await api.tabs.query({ active: true, lastFocusedWindow: true });
  if (tab !== undefined) return tab;
  // A headless browser or a focus change can leave no "last focused" window; any active tab
  // is still better than refusing.
  const [anyActive] = await api.tabs.query({ active: true });
  if (anyActive !== undefined) return anyActive;
  fail("no_tab", "the browser has no open tab", { hint: "Open a tab (e.g. with navigate) and try again." });
}

/**
 * Fails with `frame_not_found`, listing the tab's frames, when a frame id names no frame.
 * @param {number} tabId
 * @param {number} frameId
 */
export async function requireFrame(tabId, frameId) {
  // frameOf, not webNavigation.getFrame alone: Chromium forgets a page's subframes after a
  // back/forward-cache restore (frame-list.js).
  if ((await frameOf(tabId, frameId)) !== null) return;
  const frames = await listFrames(tabId);
  fail("frame_not_found", `tab ${tabId} has no frame ${frameId}`, {
    hint: `Frames in this tab: ${frames.map((f) => `${f.frameId} (${f.url})`).join(", ")}. Leave frameId out for the top document.`,
    suggestions: frames.map((f) => String(f.frameId)),
  });
}

// The probe timings live with the other budgets (budgets.js, docs/protocol/host-safety.md "Bounds and
// deadlines"); they are re-exported for the modules that probe frames themselves.
export { PROBE_AFTER_MS, PROBE_BUDGET_MS, LAST_PROBE_BUDGET_MS };

const sleep = (/** @type {number} */ ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Asks one frame's content script to run a tool and returns its result object. If the frame
 * has no content script, injects them and retries once. Every failure becomes a ToolFailure.
 * A frame that stops answering while its page sits behind a user prompt fails the call with
 * `page_blocked` as soon as the probes show it, instead of running out the deadline.
 * @param {number} tabId
 * @param {number} frameId
 * @param {ContentToolRequest} request
 * @param {{deadline: number, frameLabel?: string, mayRetry?: () => boolean}} options deadline is a
 *   Date.now() value. `mayRetry` says whether a frame that had no content script may be sent the
 *   request again after the scripts are injected: an action's frame that navigated meanwhile may
 *   not (its first document may have received the request before it went away, and the new
 *   document must not act a second time).
 * @returns {Promise<any>} the tool's result: an object, whose shape each caller knows from its
 *   tool (docs/protocol/channels.md, section 3); typed `any` because it crosses from the page's process,
 *   which the extension does not trust, and each caller reads only the fields its tool promises.
 */
export async function callFrame(tabId, frameId, request, { deadline, frameLabel, mayRetry = () => true }) {
  const label = frameLabel ?? `frame ${frameId}`;
  // The frame first takes the output of a read it handed over (tree-hand-off.js): until then
  // its registry lacks that read's refs.
  await frameCaughtUp(tabId, frameId);
  let reply;
  const frame = { tabId, frameId, label };
  try {
    reply = await answerOrBlocked(api.tabs.sendMessage(tabId, request, { frameId }), deadline, frame);
  } catch (error) {
    if (error instanceof ToolFailure || !isNoReceiver(error)) throw asFrameFailure(error, label);
    if (!mayRetry()) {
      fail("frame_detached", `${label} went away while it was asked (${describeError(error)})`, {
        hint: "The page navigated; read the page again.",
      });
    }
    await beforeDeadline(injectContentScripts(tabId, frameId, label), deadline, label);
    try {
      reply = await answerOrBlocked(api.tabs.sendMessage(tabId, request, { frameId }), deadline, frame);
    } catch (retryError) {
      if (retryError instanceof ToolFailure) throw retryError;
      if (isNoReceiver(retryError)) {
        fail("script_failed", `the content script did not start in ${label}`, {
          hint: "The frame may be navigating, or the page blocks the extension; read the page again.",
        });
      }
      throw asFrameFailure(retryError, label);
    }
  }
  if (!messages.isContentToolReply(reply)) {
    fail("script_failed", `the content script of ${label} gave no usable answer`, {
      hint: "The page may have replaced the frame while it was read; read it again.",
    });
  }
  if (!reply.ok) throw new ToolFailure(reply.error);
  return reply.result;
}

/**
 * Injects the content scripts into one frame, for frames that never got them.
 * @param {number} tabId
 * @param {number} frameId
 * @param {string} label
 */
async function injectContentScripts(tabId, frameId, label) {
  try {
    await api.scripting.executeScript({ target: { tabId, frameIds: [frameId] }, files: [...CONTENT_SCRIPT_FILES] });
  } catch (error) {
    throw asFrameFailure(error, label, true);
  }
}

/**
 * A frame's answer, raced against its deadline and against the liveness probes: a probe that goes
 * unanswered (Chromium stops a frame whose script opened a prompt) or that says the frame's last
 * dispatched event is still held by the page's handlers (Firefox answers during a prompt) means
 * the page is blocked. At the deadline, one last probe tells a blocked page from a slow one.
 * @param {Promise<unknown>} answer
 * @param {number} deadline
 * @param {{tabId: number, frameId: number, label: string}} frame
 */
async function answerOrBlocked(answer, deadline, frame) {
  let waiting = true;
  const asked = Date.now();
  const probes = (async () => {
    for (;;) {
      await sleep(Math.min(PROBE_AFTER_MS, Math.max(0, deadline - Date.now())));
      if (!waiting) return;
      const lastChance = Date.now() >= deadline;
      // A probe never runs past the deadline by more than LAST_PROBE_BUDGET_MS, so one frame
      // call ends at most FRAME_CALL_OVERRUN_MS after its deadline (budgets.js).
      const remaining = deadline - Date.now();
      const budget = lastChance
        ? LAST_PROBE_BUDGET_MS
        : Math.min(PROBE_BUDGET_MS, Math.max(LAST_PROBE_BUDGET_MS, remaining));
      const state = await probe(frame, budget);
      if (!waiting) return;
      // Silence while the frame runs the tree read this call asked for is the read's own: a
      // very large page, not a prompt (a prompt cannot open while the read holds the thread).
      const reading = state === "silent" && readStartedSince(frame.tabId, frame.frameId, asked);
      if (reading && lastChance) throw readTooLongFailure(frame.label);
      if (state !== "alive" && !reading) throw pageBlockedFailure(frame.label, state);
      if (lastChance) throw timeoutFailure(frame.label);
    }
  })();
  try {
    return await Promise.race([answer, probes]);
  } finally {
    waiting = false;
  }
}

/**
 * One liveness probe of a frame: "alive", "held" (the page's handlers still hold an event the
 * frame dispatched) or "silent" (no answer within the budget). A frame without content scripts
 * counts as alive: the call itself reports that.
 * @param {{tabId: number, frameId: number}} frame
 * @param {number} budgetMs
 * @returns {Promise<"alive"|"held"|"silent">}
 */
export async function probe({ tabId, frameId }, budgetMs) {
  const request = messages.contentToolRequest("ping", {});
  const answer = api.tabs.sendMessage(tabId, request, { frameId }).then(
    (reply) =>
      messages.isContentToolReply(reply) && reply.ok && reply.result.heldByPage === true
        ? /** @type {const} */ ("held")
        : /** @type {const} */ ("alive"),
    () => /** @type {const} */ ("alive"),
  );
  return Promise.race([answer, sleep(budgetMs).then(() => /** @type {const} */ ("silent"))]);
}

/**
 * The page stopped answering: most likely a user prompt (HTML, "User prompts": alert, confirm,
 * prompt, or the beforeunload confirmation) that an extension can neither see nor answer.
 * @param {string} label
 * @param {"held"|"silent"} state
 */
export function pageBlockedFailure(label, state) {
  const evidence = state === "held" ? "the page's own event handler has not returned" : "it stopped answering";
  return new ToolFailure(
    messages.toolError(
      "page_blocked",
      `the page in ${label} is blocked (${evidence}): most likely an alert, confirm or prompt dialog, or a "leave this page?" (beforeunload) dialog, is waiting for an answer`,
      {
        hint: "Ask the user to answer the dialog in the browser, then read the page again; do not repeat the action. When allwright launched the browser, use handle_dialog.",
      },
    ),
  );
}

/**
 * @template T
 * @param {Promise<T>} promise
 * @param {number} deadline
 * @param {string} label
 * @returns {Promise<T>}
 */
function beforeDeadline(promise, deadline, label) {
  const remaining = deadline - Date.now();
  if (remaining <= 0) return Promise.reject(timeoutFailure(label));
  /** @type {ReturnType<typeof setTimeout>|undefined} */
  let timer;
  /** @type {Promise<never>} */
  const expiry = new Promise((_, reject) => {
    timer = setTimeout(() => reject(timeoutFailure(label)), remaining);
  });
  return Promise.race([promise, expiry]).finally(() => clearTimeout(timer));
}

/**
 * The frame was still reading its tree at the deadline: the page is larger than one read can take.
 * @param {string} label
 */
function readTooLongFailure(label) {
  return new ToolFailure(
    messages.toolError("timeout", `${label} was still reading the page's tree when the time ran out`, {
      hint: "The page is too large to read at once: take a screenshot to find your way, read a part with ref_id, or act with the refs you have.",
    }),
  );
}

/**
 * @param {string} label
 */
function timeoutFailure(label) {
  return new ToolFailure(
    messages.toolError("timeout", `${label} did not answer in time`, {
      hint: "The page may be busy; retry, or pass a larger timeoutMs.",
    }),
  );
}

/** @param {unknown} error */
function describeError(error) {
  return thrownMessage(error);
}

// "Could not establish connection. Receiving end does not exist." in both browsers.
/** @param {unknown} error */
function isNoReceiver(error) {
  return /receiving end does not exist/i.test(thrownMessage(error));
}

/**
 * Maps a browser error about a frame onto the protocol's codes. The texts are the browsers'
 * own (Chrome: "No frame with id", "message channel closed", "Cannot access contents";
 * Firefox: "Message manager disconnected", "Missing host permission").
 * @param {unknown} error
 * @param {string} label
 */
function asFrameFailure(error, label, whileInjecting = false) {
  if (error instanceof ToolFailure) return error;
  const text = thrownMessage(error);
  if (/no tab with id/i.test(text)) {
    return new ToolFailure(messages.toolError("no_tab", `the tab closed while ${label} was read`));
  }
  if (
    /no frame with id|frame not found|invalid frame|message (channel|port) closed|message manager disconnected/i.test(
      text,
    )
  ) {
    return new ToolFailure(
      messages.toolError("frame_detached", `${label} went away while it was read (${text})`, {
        hint: "The page removed or navigated the frame; read the page again.",
      }),
    );
  }
  if (whileInjecting) {
    return new ToolFailure(
      messages.toolError("script_failed", `the extension cannot run in ${label} (${text})`, {
        hint: "Browser pages, the extension gallery and pages of other extensions cannot be read; navigate to an ordinary web page.",
      }),
    );
  }
  return new ToolFailure(messages.toolError("script_failed", `${label} failed: ${text}`));
}
