// @ts-check
// The rules of thread-read coverage (docs/protocol/reading.md, "Thread-read coverage"), as pure
// functions over plain records so that node --test checks them (tests/browser/unit/). The
// storage and the wiring are in read-coverage-store.js.
//
// An agent reads a whole conversation by reading pages 1..last of the subtree anchored on the
// tree's `conversationRootRefId`, with filter "all" and maxDepth 15, each page through the exact
// `continuationArgs` of the page before. One record per (tab, frame, anchor, filter, maxDepth)
// remembers the pages read so far:
//
//   (absent) --page 1--> {maxChars, pageCount, fingerprint, pagesRead: [1], next}
//   record --page k, exactly `next`, same pageCount and fingerprint--> pagesRead + [k], next'
//   record --page 1 again, content unchanged--> record (a repeated page)
//   record --page 1, content or maxChars changed--> a new record (the read restarts)
//   record --page k > 1, content changed--> (absent) (a stale page: the read must restart)
//   record --page k <= last read, or k > last + 1, or other maxChars--> record (no progress)
//
// A page is progress only when it is a new exact page of the conversation's own anchored read:
// document-root reads also walk the inbox and the page chrome, and other anchors ("foreign
// refs") hold something else, so neither counts, whatever their pages.

/** The filter and depth a conversation must be read with for the read to be complete. */
export const COMPLETE_READ_FILTER = "all";
export const COMPLETE_READ_MAX_DEPTH = 15;

/**
 * @typedef {{filter: string, maxDepth: number, maxChars: number, ref_id?: string, page: number}} Continuation
 * @typedef {{maxChars: number|null, pageCount: number, fingerprint: string, pagesRead: number[],
 *   next: Continuation|null}} PageRecord
 * @typedef {{anchor: string|null, filter: string, maxDepth: number, maxChars: number|null,
 *   page: number, pageCount: number, fingerprint: string, next: Continuation|null,
 *   conversationRootRefId: string|null}} TreeRead one read: its arguments and what it returned
 * @typedef {"first_page"|"restarted"|"next_page"|"repeated_page"|"skipped_page"|"stale_page"|
 *   "inexact_continuation"} PageOutcome
 * @typedef {{anchor: string|null, conversationRootRefId: string|null, pagesRead: number[],
 *   pageCount: number, progress: boolean, reason: string, complete: boolean}} Coverage
 */

/**
 * The record key of a read: pages are tracked per tab, frame, anchor, filter and maxDepth.
 * @param {number} tabId
 * @param {number} frameId
 * @param {{anchor: string|null, filter: string, maxDepth: number}} read
 */
export function recordKey(tabId, frameId, read) {
  return `${framePrefix(tabId, frameId)}${read.anchor ?? "document"}/${read.filter}/${read.maxDepth}`;
}

/** The key of the conversation root the frame's last document read reported. */
export const rootKey = (/** @type {number} */ tabId, /** @type {number} */ frameId) =>
  `${framePrefix(tabId, frameId)}root`;

/** Every key of a frame starts with this; every key of a tab with `tabPrefix`. */
export const framePrefix = (/** @type {number} */ tabId, /** @type {number} */ frameId) =>
  `${tabPrefix(tabId)}${frameId}/`;
export const tabPrefix = (/** @type {number} */ tabId) => `readCoverage/${tabId}/`;

/**
 * Applies one read to its page record.
 * @param {PageRecord|undefined} record
 * @param {TreeRead} read
 * @returns {{record: PageRecord|undefined, outcome: PageOutcome}}
 */
export function nextPageRecord(record, read) {
  const started = () => ({
    maxChars: read.maxChars,
    pageCount: read.pageCount,
    fingerprint: read.fingerprint,
    pagesRead: [read.page],
    next: read.next,
  });
  const sameContent =
    record !== undefined && record.pageCount === read.pageCount && record.fingerprint === read.fingerprint;
  if (read.page === 1) {
    if (record === undefined) return { record: started(), outcome: "first_page" };
    if (sameContent && record.maxChars === read.maxChars) return { record, outcome: "repeated_page" };
    return { record: started(), outcome: "restarted" };
  }
  if (record === undefined) return { record, outcome: "skipped_page" };
  // Another maxChars pages the same content differently: its page k is not the record's.
  if (record.maxChars !== read.maxChars) return { record, outcome: "inexact_continuation" };
  if (!sameContent) return { record: undefined, outcome: "stale_page" };
  const lastRead = Math.max(...record.pagesRead);
  if (read.page <= lastRead) return { record, outcome: "repeated_page" };
  if (read.page > lastRead + 1) return { record, outcome: "skipped_page" };
  if (!isExpectedContinuation(record, read)) return { record, outcome: "inexact_continuation" };
  return {
    record: { ...record, pagesRead: [...record.pagesRead, read.page], next: read.next },
    outcome: "next_page",
  };
}

/**
 * Whether the read used exactly the continuationArgs of the record's last page.
 * @param {PageRecord} record
 * @param {TreeRead} read
 */
function isExpectedContinuation(record, read) {
  const next = record.next;
  if (next === null) return false;
  return (
    next.filter === read.filter &&
    next.maxDepth === read.maxDepth &&
    next.maxChars === read.maxChars &&
    (next.ref_id ?? null) === read.anchor &&
    next.page === read.page
  );
}

/**
 * The conversation root a frame's reads are measured against: the one the last document read
 * reported, or, before any, the anchor of a read that reports itself as the root.
 * @param {string|null|undefined} storedRoot
 * @param {TreeRead} read
 * @returns {string|null}
 */
export function conversationRootFor(storedRoot, read) {
  if (read.anchor === null) return read.conversationRootRefId;
  if (storedRoot !== undefined && storedRoot !== null) return storedRoot;
  return read.conversationRootRefId !== null && read.conversationRootRefId === read.anchor ? read.anchor : null;
}

/**
 * The `coverage` field of a tree result.
 * @param {PageRecord|undefined} record the record after the read
 * @param {PageOutcome} outcome
 * @param {TreeRead} read
 * @param {string|null} conversationRoot
 * @returns {Coverage}
 */
export function describeCoverage(record, outcome, read, conversationRoot) {
  const reason = (() => {
    if (read.anchor === null) return "document_root";
    if (conversationRoot === null) return "no_conversation";
    if (read.anchor !== conversationRoot) return "foreign_ref";
    if (read.filter !== COMPLETE_READ_FILTER || read.maxDepth !== COMPLETE_READ_MAX_DEPTH)
      return "not_default_arguments";
    return outcome;
  })();
  const counts = reason === outcome;
  const pagesRead = record === undefined ? [] : [...record.pagesRead].sort((a, b) => a - b);
  const everyPage =
    record !== undefined &&
    pagesRead.length === record.pageCount &&
    pagesRead.every((page, index) => page === index + 1);
  return {
    anchor: read.anchor,
    conversationRootRefId: conversationRoot,
    pagesRead,
    pageCount: read.pageCount,
    progress: counts && (outcome === "first_page" || outcome === "restarted" || outcome === "next_page"),
    reason,
    complete: counts && everyPage,
  };
}

/**
 * The read as the tracker sees it, from the validated arguments and the content script's result.
 * @param {{filter?: string, maxDepth?: number, maxChars?: number, ref_id?: string, page?: number}} args
 * @param {{page: number, pageCount: number, contentFingerprint?: string, continuationArgs?: Continuation,
 *   conversationRootRefId?: string}} result
 * @returns {TreeRead}
 */
export function treeReadOf(args, result) {
  return {
    anchor: args.ref_id ?? null,
    filter: args.filter ?? COMPLETE_READ_FILTER,
    maxDepth: args.maxDepth ?? COMPLETE_READ_MAX_DEPTH,
    maxChars: args.maxChars ?? null,
    page: result.page,
    pageCount: result.pageCount,
    fingerprint: result.contentFingerprint ?? "",
    next: result.continuationArgs ?? null,
    conversationRootRefId: result.conversationRootRefId ?? null,
  };
}
