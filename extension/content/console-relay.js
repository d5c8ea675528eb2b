// @ts-check
// The content script's half of the console hook (background/records/console-hook.js): the entries the
// hook dispatches in a page of a tab an agent uses, batched and sent to the background
// (background/records/console-records.js), which keeps them. In a page without the hook no event comes,
// and this costs one listener.

/** The event the hook dispatches (background/records/console-hook.js, CONSOLE_HOOK_EVENT). */
const CONSOLE_HOOK_EVENT = "allwright:console-entry";
/** Entries are sent at most this often, at most this many at a time; more are dropped. */
const BATCH_INTERVAL_MS = 200;
const MOST_ENTRIES_PER_BATCH = 200;
/** A longer detail is not an entry the hook wrote. */
const LONGEST_DETAIL_CHARS = 100_000;

/**
 * Starts relaying.
 * @param {{sendMessage: (message: unknown) => Promise<unknown>}} runtime
 * @param {{consoleEntriesNotice: (entries: object[]) => unknown}} messages
 */
export function relayConsoleEntries(runtime, messages) {
  /** @type {object[]} */
  let pending = [];
  /** @type {ReturnType<typeof setTimeout> | null} */
  let timer = null;
  const flush = () => {
    timer = null;
    const entries = pending;
    pending = [];
    runtime.sendMessage(messages.consoleEntriesNotice(entries)).catch(() => {
      // The background is restarting: these entries are lost, as the page's were before.
    });
  };
  window.addEventListener(CONSOLE_HOOK_EVENT, (event) => {
    const detail = /** @type {CustomEvent} */ (event).detail;
    if (typeof detail !== "string" || detail.length > LONGEST_DETAIL_CHARS) return;
    if (pending.length >= MOST_ENTRIES_PER_BATCH) return;
    try {
      const entry = JSON.parse(detail);
      if (typeof entry === "object" && entry !== null && !Array.isArray(entry)) pending.push(entry);
    } catch {
      return;
    }
    timer ??= setTimeout(flush, BATCH_INTERVAL_MS);
  });
}
