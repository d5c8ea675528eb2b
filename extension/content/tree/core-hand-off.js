// @ts-check
// A whole read handed to the background (docs/protocol/core.md, "The read handed to the background"):
// in Chromium, a frame whose core runs in the service worker answers the background's
// `get_accessibility_tree` with its core call instead of a tree. The background runs the core,
// answers the agent itself (shared/tree-result.js) and then sends the core's output here
// (`tree_core_answer`), where the read goes on as any read does: its new refs registered, its
// snapshot kept, its printed refs remembered. The facts cross once and the tree does not cross
// at all before the agent has it; the content script's bookkeeping runs after the reply.
//
// The read holds this frame's read queue until the answer comes (accessibility-tree.js
// oneReadAtATime), and the background sends nothing else to the frame meanwhile
// (background/core/tree-hand-off.js): nothing can see the registry between the two halves.

import "../../shared/messages.js";

const messages = globalThis.allwrightMessages;

/**
 * How long a handed-off read waits for the background's answer. It normally comes within the
 * core's run (tens of milliseconds at 10k elements); a service worker stopped meanwhile never
 * sends it, and the read must then end so that the frame's next read can start. Its new refs
 * stay unregistered (they read as gone); the background's ref record already numbers the next
 * read's refs above them (background/frames/frame-tools.js), so no number is handed out twice.
 */
const ANSWER_TIMEOUT_MS = 60_000;

/**
 * Reads waiting for their core's answer, by read id.
 * @type {Map<string, {answer: (reply: unknown) => void, reading: () => Promise<unknown>}>}
 */
const waitingReads = new Map();
let lastReadId = 0;

/**
 * @typedef {{readId: string, request: CoreCallRequest, prepared: import("../../shared/tree-result.js").TreeReadPrepared}}
 *   HandedOffCall
 * @typedef {{carry: (request: CoreCallRequest, prepared: import("../../shared/tree-result.js").TreeReadPrepared) => Promise<unknown>}}
 *   ReadHandOff
 */

/**
 * A hand-off for one read: `carry` takes the read's core call in place of the service worker
 * (tree/worker-core-client.js) and answers what the background sends back; `handedOff`
 * resolves when the read gave its call away.
 * @returns {{handOff: ReadHandOff, handedOff: Promise<HandedOffCall>, track: (reading: Promise<unknown>) => void}}
 */
export function startHandOff() {
  lastReadId += 1;
  const readId = `read-${lastReadId}`;
  /** @type {(call: HandedOffCall) => void} */
  let handOver = () => {};
  /** @type {Promise<HandedOffCall>} */
  const handedOff = new Promise((resolve) => {
    handOver = resolve;
  });
  /** @type {Promise<unknown>} */
  let reading = Promise.resolve();
  return {
    handOff: {
      carry: (request, prepared) =>
        new Promise((resolve, reject) => {
          const timer = setTimeout(() => {
            waitingReads.delete(readId);
            reject(
              messages.toolError("script_failed", "the background did not answer the read's core call", {
                hint: "Read the page again.",
              }),
            );
          }, ANSWER_TIMEOUT_MS);
          waitingReads.set(readId, {
            answer: (reply) => {
              clearTimeout(timer);
              resolve(reply);
            },
            // Asked when the answer comes: the read may be tracked after it gave its call away.
            reading: () => reading,
          });
          handOver({ readId, request, prepared });
        }),
    },
    handedOff,
    track: (read) => {
      reading = read;
    },
  };
}

/**
 * The background's answer to a handed-off read (`tree_core_answer`): the read goes on with it,
 * and this resolves when the read ended, or throws the read's failure.
 * @param {unknown} readId
 * @param {unknown} reply the worker core's reply (CoreCallReply), checked by the read
 */
export async function answerHandedOffRead(readId, reply) {
  const waiting = typeof readId === "string" ? waitingReads.get(readId) : undefined;
  if (waiting === undefined) {
    throw messages.toolError("script_failed", "no read of this frame waits for that core answer", {
      hint: "Read the page again.",
    });
  }
  waitingReads.delete(/** @type {string} */ (readId));
  waiting.answer(reply);
  await waiting.reading();
  return { committed: true };
}
