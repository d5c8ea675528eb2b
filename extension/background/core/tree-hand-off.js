// @ts-check
// Reads handed to the background (docs/protocol/core.md, "The read handed to the background"): in
// Chromium, a frame whose tree core runs in this service worker answers a whole read with its
// core call (content/tree/core-hand-off.js). The core runs here on it, the agent's result is
// built here from the output and what the frame prepared (shared/tree-result.js), and the output
// goes back to the frame afterwards, for its bookkeeping (new refs, the snapshot, the printed
// refs). Measured in docs/performance/strict-csp.md ("The read handed to the background"): the tree no
// longer crosses to the frame and back before the agent has it.
//
// Until the frame has taken the output, nothing else is sent to it (callFrame waits for
// frameCaughtUp), so no tool sees a registry without the read's refs.

import { api, messages, ToolFailure } from "../platform.js";
import { runWorkerCore } from "./worker-core.js";
import { splitOutput, treeResultOf } from "../../shared/tree-result.js";
import { CALL_TIMING } from "../build-config.js";
import { timingNow } from "../host/call-timing.js";
import { afterTheReply } from "../host/after-reply.js";

/**
 * How long a later call to the frame waits for its bookkeeping at most. It takes a few
 * milliseconds; a frame held by a prompt cannot take it at all, and the call then goes on and
 * meets the prompt as any call would (frames.js).
 */
const CATCH_UP_WAIT_MS = 3_000;

/** `${tabId}/${frameId}` -> the frame taking a read's output, settled when it has. */
const framesCatchingUp = new Map();

/**
 * Finishes a read a frame handed over: runs its core call, answers the agent's result, and sends
 * the output to the frame. A core or envelope error is the frame's to report (it knows the
 * read's refs): the frame gets the output and its answer is awaited.
 * @param {number} tabId
 * @param {number} frameId
 * @param {TreeCoreHandOff} handOff checked by messages.isTreeCoreHandOff
 * @returns {Promise<Record<string, unknown>>}
 */
export async function finishHandedOffRead(tabId, frameId, handOff) {
  const handOffReceived = CALL_TIMING ? timingNow() : 0;
  const reply = await runWorkerCore(handOff.request, /** @type {any} */ ({ tab: { id: tabId }, frameId }));
  /** @type {{envelope: any, body: string} | null} */
  let split = null;
  if (reply.ok) {
    try {
      split = splitOutput(reply.output);
    } catch {
      split = null;
    }
  }
  if (split === null) {
    // The frame's own answer says what went wrong, as it would had it finished the read; it is
    // the agent's reply, so it is sent at once.
    await sendOutput(tabId, frameId, handOff.readId, reply, { afterTheReply: false });
    throw new ToolFailure(messages.toolError("script_failed", "the tree core answered no tree"));
  }
  const taken = sendOutput(tabId, frameId, handOff.readId, reply, { afterTheReply: true });
  const key = `${tabId}/${frameId}`;
  const caughtUp = taken.then(
    () => undefined,
    () => undefined,
  );
  framesCatchingUp.set(key, caughtUp);
  caughtUp.then(() => {
    if (framesCatchingUp.get(key) === caughtUp) framesCatchingUp.delete(key);
  });
  const result = treeResultOf(split.envelope, split.body, handOff.prepared);
  if (CALL_TIMING && handOff.prepared.timing !== undefined) {
    // The frame's stamps up to its hand-off, then the worker's (content/tree/read-timing.js).
    const workerTiming = reply.ok && reply.timing !== undefined ? reply.timing : {};
    result.timing = { ...handOff.prepared.timing, ...workerTiming, handOffReceived };
  }
  return result;
}

/**
 * Resolves once the frame took the output of its last handed-off read (or could not), at most
 * CATCH_UP_WAIT_MS later.
 * @param {number} tabId
 * @param {number} frameId
 * @returns {Promise<void>}
 */
export function frameCaughtUp(tabId, frameId) {
  const caughtUp = framesCatchingUp.get(`${tabId}/${frameId}`);
  if (caughtUp === undefined) return Promise.resolve();
  return Promise.race([caughtUp, new Promise((resolve) => setTimeout(resolve, CATCH_UP_WAIT_MS))]);
}

/**
 * Sends the core's reply to the frame that waits for it, once the agent's result has left
 * (after-reply.js) when the read succeeded, so that neither this message nor the frame's
 * bookkeeping delays that result.
 * Resolves when the frame ended the read; throws its failure.
 * @param {number} tabId
 * @param {number} frameId
 * @param {string} readId
 * @param {CoreCallReply} reply
 * @param {{afterTheReply: boolean}} when whether the agent's reply goes first
 * @returns {Promise<void>}
 */
async function sendOutput(tabId, frameId, readId, reply, { afterTheReply: waitForTheReply }) {
  if (waitForTheReply) await new Promise((resolve) => afterTheReply(() => resolve(undefined)));
  const request = messages.contentToolRequest("tree_core_answer", { readId, reply });
  const answer = await api.tabs.sendMessage(tabId, request, { frameId });
  if (!messages.isContentToolReply(answer)) {
    throw new ToolFailure(messages.toolError("script_failed", "the frame did not take the read's output"));
  }
  if (!answer.ok) throw new ToolFailure(answer.error);
}
