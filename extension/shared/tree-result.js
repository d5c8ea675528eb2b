// @ts-check
// A tree read's result from the core's output (docs/protocol/core.md, "The core in the service
// worker", "The read handed to the background"): one function that both sides run, so that a
// read answers the same fields whether its content script finished it (every read in Firefox,
// and in Chromium wherever the core runs in the page) or the background did (a whole read of a
// strict-CSP page in Chromium, whose core runs in the service worker: the background then
// answers the agent without waiting for the content script's bookkeeping).
//
// Pure: no DOM, no extension API, nothing kept between calls.

/**
 * What a read decided before its core call, which the result reports besides the core's own
 * envelope: every field is known once the page is gathered.
 * @typedef {object} TreeReadPrepared
 * @property {number} counter the highest ref number before this read; its new refs follow it
 * @property {string} document the token of the document read (tree/registry.js documentToken)
 * @property {string} url the document's URL when it was gathered
 * @property {string} title its title then
 * @property {string | null} cutNotice the notice of a page larger than one read, or null
 * @property {{full?: boolean, fullReason?: string}} sinceFields a `since` read's fallback to a
 *   whole tree, and why
 * @property {string | null} snapshotId the id the read's snapshot takes if the core wrote its
 *   line records (tree/snapshots.js reserveSnapshotId), or null when it keeps none
 * @property {number} lineCapacity the most line records the core may write (one per node)
 * @property {{engine: string, engineFallback?: string}} engine where the core ran
 */

/**
 * Splits a core output into its JSON envelope and its raw body (crates/allwright-ax/src/reads.rs);
 * throws the envelope's error when the core refused the call.
 * @param {string} output
 * @returns {{envelope: any, body: string}}
 */
export function splitOutput(output) {
  const end = output.indexOf("\n");
  const envelope = JSON.parse(end < 0 ? output : output.slice(0, end));
  if (envelope.ok !== true) throw envelope.error;
  return { envelope, body: end < 0 ? "" : output.slice(end + 1) };
}

/**
 * Whether the envelope's `lineCount` names records the read can keep: the content script keeps
 * a snapshot (tree/snapshots.js keepSnapshot) exactly when this holds, so the result names its
 * id exactly then.
 * @param {unknown} lineCount
 * @param {number} lineCapacity
 */
export function keepableLineCount(lineCount, lineCapacity) {
  return (
    typeof lineCount === "number" && Number.isSafeInteger(lineCount) && lineCount >= 0 && lineCount <= lineCapacity
  );
}

/**
 * The tool result of one whole or `since` read (docs/protocol/channels.md, section 3): the core's tree
 * and fields, the page-cut notice, the `since` fallback, the snapshot id, the engine, and
 * `refIssue`, the numbers the read handed out, which the background takes out for its ref
 * record before the agent sees the result (background/frames/frame-tools.js).
 * @param {any} envelope the core's envelope (splitOutput)
 * @param {string} body the printed tree
 * @param {TreeReadPrepared} prepared
 * @returns {Record<string, unknown>}
 */
export function treeResultOf(envelope, body, prepared) {
  /** @type {Record<string, unknown>} */
  const fields = { ...envelope.result };
  if (prepared.cutNotice !== null) {
    // The page is larger than one read takes: this read shows its beginning, and says so.
    fields.autoDegraded = true;
    fields.truncated = true;
    fields.notice = fields.notice === undefined ? prepared.cutNotice : `${fields.notice} ${prepared.cutNotice}`;
  }
  const newRefCount = Array.isArray(envelope.newRefs) ? envelope.newRefs.length : 0;
  const snapshotId =
    prepared.snapshotId !== null && keepableLineCount(envelope.lineCount, prepared.lineCapacity)
      ? prepared.snapshotId
      : undefined;
  return {
    url: prepared.url,
    title: prepared.title,
    tree: body,
    ...fields,
    ...prepared.sinceFields,
    ...(snapshotId === undefined ? {} : { snapshotId }),
    ...prepared.engine,
    refIssue: { document: prepared.document, first: prepared.counter + 1, last: prepared.counter + newRefCount },
  };
}
