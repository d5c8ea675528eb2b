// @ts-check
// What storage.session keeps of the call log (call-log.js): each call as logged, with the long
// strings of its result cut. Pure, so that the unit tests import it without a browser.

/**
 * The most characters of one string of a result that the stored copy keeps. storage.session
 * holds at most 10 MB per extension in Chromium (`storage.session.QUOTA_BYTES`), and 200 tree
 * reads of a 10k-element page are over 40 MB: stored whole, every write would fail after
 * serialising it all, on the background's thread, between the agent's calls. 20,000 characters
 * keep a small page's tree whole and the log under 5 MB; the side panel shows the calls whole
 * from memory while the background lives.
 */
export const STORED_STRING_CHARS = 20_000;

/**
 * A call as storage keeps it: the long strings of its result cut, with a note of their length.
 * @param {LoggedCall} call
 * @returns {LoggedCall}
 */
export function storedCopyOf(call) {
  const result = /** @type {Record<string, unknown> | undefined} */ (call.result);
  if (result === undefined || result === null || typeof result !== "object") return call;
  const entries = Object.entries(result);
  if (!entries.some(([, value]) => typeof value === "string" && value.length > STORED_STRING_CHARS)) return call;
  const cut = Object.fromEntries(
    entries.map(([key, value]) =>
      typeof value === "string" && value.length > STORED_STRING_CHARS
        ? [key, `${value.slice(0, STORED_STRING_CHARS)}… [${value.length} characters; the stored log keeps the start]`]
        : [key, value],
    ),
  );
  return { ...call, result: cut };
}
