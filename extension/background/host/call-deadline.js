// @ts-check
// The background's side of "Bounds and deadlines" (docs/protocol/host-safety.md): a call answers within the
// budget the host gave it (`budgetMs`, two seconds before the host's own deadline), and no reply
// larger than the host accepts is sent (`result_too_large` instead, naming the paging arguments).

// Only the shared vocabulary, not platform.js (which needs the build's browser facts), so the
// unit tests load this module as it is.
import "../../shared/messages.js";

const messages = globalThis.allwrightMessages;

/**
 * The largest reply, in UTF-8 bytes of its JSON, sent to the host: half of what the host reads
 * from the extension (src/native_messaging.rs, MAX_MESSAGE_FROM_EXTENSION_BYTES, 64 MiB), so a
 * reply always crosses in one message and the host's queue to its client stays small.
 */
export const MAX_REPLY_BYTES = 32 * 1024 * 1024;

/**
 * Runs a call, answering `timeout` once the host's budget for it has passed. The tool's own work
 * is not stopped by this (the browser has no way to cancel it); its late result is dropped here
 * and stays visible in the side panel's call log.
 *
 * A tool that changes the page (`changesPage`: the contract's `readOnly` is false) answers
 * `outcome_unknown` instead, with no retry hint (docs/protocol/action-safety.md, "Nothing done twice"): its
 * action may have run or may still be running. Its result, when it comes, is handed to
 * `onLateOutcome`, which reports it with the agent's next call (late-outcomes.js), so it is
 * reported late rather than silently continued.
 * @template T
 * @param {{id?: string, tool: string, budgetMs?: unknown}} call
 * @param {() => Promise<T>} run
 * `onExpiry` runs when the budget runs out (native.js cancels what is left of the call).
 * @param {{changesPage?: boolean, onExpiry?: () => void,
 *   onLateOutcome?: (outcome: {ok: boolean, result?: T, error?: unknown}) => void}} [options]
 * @returns {Promise<T>}
 */
export async function withinCallBudget(call, run, { changesPage = false, onExpiry, onLateOutcome } = {}) {
  const budgetMs = call.budgetMs;
  if (typeof budgetMs !== "number" || !Number.isInteger(budgetMs) || budgetMs <= 0) return run();
  /** @type {ReturnType<typeof setTimeout>|undefined} */
  let timer;
  let expired = false;
  /** @type {Promise<never>} */
  const expiry = new Promise((_, reject) => {
    timer = setTimeout(() => {
      expired = true;
      onExpiry?.();
      const error = changesPage
        ? messages.toolError(
            "outcome_unknown",
            `${call.tool} did not finish within ${budgetMs / 1000} s: whether it took effect is unknown, and it may still be running`,
            {
              hint: "Do not repeat the call. Read the page (get_accessibility_tree, or list_tabs for the tab tools) to see whether it took effect; if it finishes, its result comes with your next call as lateOutcomes.",
            },
          )
        : messages.toolError("timeout", `${call.tool} did not finish within ${budgetMs / 1000} s`, {
            hint: "The page may be very large or busy; read less at once (a smaller maxChars, a ref_id) or try again.",
          });
      // A structured error is what native.js's asToolError passes through unchanged.
      reject(error);
    }, budgetMs);
  });
  const running = run();
  if (changesPage && onLateOutcome !== undefined) {
    running.then(
      (result) => {
        if (expired) onLateOutcome({ ok: true, result });
      },
      (error) => {
        if (expired) onLateOutcome({ ok: false, error });
      },
    );
  }
  try {
    return await Promise.race([running, expiry]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The reply itself, or a `result_too_large` error in its place when its JSON exceeds
 * MAX_REPLY_BYTES.
 * @param {{id: string, ok: boolean}} reply
 * @param {string} tool
 */
export function boundedReply(reply, tool) {
  if (!reply.ok) return reply;
  // Almost every reply is far below the bound, and proving that from the lengths of its strings
  // spares writing its JSON once more before the port writes it (about a millisecond for a 10k
  // element page's tree: docs/performance/warm-read.md, "The gatherer and the way back").
  if (jsonBytesAtMost(reply, MAX_REPLY_BYTES)) return reply;
  const text = JSON.stringify(reply);
  // A UTF-8 byte is at most three per UTF-16 unit; only a reply that may be too large is encoded.
  if (text.length * 3 <= MAX_REPLY_BYTES || new TextEncoder().encode(text).length <= MAX_REPLY_BYTES) return reply;
  return messages.resultError(
    reply.id,
    messages.toolError(
      "result_too_large",
      `the result of ${tool} is larger than ${MAX_REPLY_BYTES / 1024 / 1024} MiB`,
      {
        hint: "Read less at once: get_accessibility_tree and iframe_read with a smaller maxChars, a ref_id (one subtree) or filter: interactive, then page: 2, 3, …; get_shadow_dom with a smaller maxChars; screenshot without fullPage or of one ref_id.",
      },
    ),
  );
}

/**
 * Whether the UTF-8 JSON of `value` surely takes at most `limit` bytes, from an upper bound that
 * never writes it: a string's UTF-16 unit takes at most six bytes (the `\uXXXX` escape; a
 * character written as itself takes at most three), a number at most 24, `true`, `false` and
 * `null` at most five, and every key, colon, comma and bracket is counted. False when the bound
 * passes the limit or the value holds anything but JSON's own kinds (a `toJSON`, a BigInt):
 * the caller then writes the JSON to know.
 * @param {unknown} value
 * @param {number} limit
 */
export function jsonBytesAtMost(value, limit) {
  let bound = 0;
  /** @type {unknown[]} */
  const pending = [value];
  while (pending.length > 0) {
    const item = pending.pop();
    if (typeof item === "string") {
      bound += 2 + 6 * item.length;
    } else if (typeof item === "number" || typeof item === "boolean" || item === null || item === undefined) {
      bound += 24;
    } else if (Array.isArray(item)) {
      bound += 2 + item.length;
      for (const element of item) pending.push(element);
    } else if (typeof item === "object" && Object.getPrototypeOf(item) === Object.prototype) {
      const record = /** @type {Record<string, unknown>} */ (item);
      bound += 2;
      for (const key of Object.keys(record)) {
        bound += 4 + 6 * key.length;
        pending.push(record[key]);
      }
    } else {
      return false;
    }
    if (bound > limit) return false;
  }
  return true;
}
