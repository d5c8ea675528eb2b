// @ts-check
// Which frame printed which ref numbers (docs/protocol/frames.md, "Frames"). Every frame's content
// script numbers its refs, and a number must name one element of the whole tab: the background
// hands each tree read a floor (the highest number the tab gave out so far), the frame numbers its
// new refs above it, and the background records the range it printed with the frame and the
// document. A ref used in another frame is then refused by name (ref_in_other_frame), while a
// ref whose document is gone still answers ref_not_found from the frame asked.
//
// This module is the pure bookkeeping (the record and its updates), which the unit tests run
// without a browser; ref-issue-store.js keeps the record.

/**
 * One range of numbers a frame's document printed.
 * @typedef {{frameId: number, document: string, url: string, first: number, last: number}} RefIssue
 * The tab's record: the floor and the ranges, oldest first.
 * @typedef {{floor: number, issues: RefIssue[]}} RefRecord
 */

/**
 * How many ranges a tab keeps. Each tree read that meets new elements adds one unless it follows
 * the same document's last range; past this, the oldest are forgotten, and a ref of a forgotten
 * range is sent to the frame asked, which answers ref_not_found as before this record existed.
 */
export const MAX_ISSUES = 500;

/** @returns {RefRecord} */
export function emptyRecord() {
  return { floor: 0, issues: [] };
}

/**
 * The record after a read: the floor raised to the read's last number, and its range added (or
 * merged into the same document's range just before it).
 * @param {RefRecord} record
 * @param {RefIssue} issue `last < first` when the read printed no new number
 * @returns {RefRecord}
 */
export function recordIssue(record, issue) {
  const floor = Math.max(record.floor, issue.last);
  if (issue.last < issue.first) return { floor, issues: record.issues };
  const issues = record.issues.slice();
  const previous = issues[issues.length - 1];
  if (
    previous !== undefined &&
    previous.frameId === issue.frameId &&
    previous.document === issue.document &&
    previous.last + 1 === issue.first
  ) {
    issues[issues.length - 1] = { ...previous, last: issue.last, url: issue.url };
  } else {
    issues.push({ ...issue });
  }
  return { floor, issues: issues.slice(-MAX_ISSUES) };
}

/**
 * The range that holds `ref_N`, or null when the record does not know the number.
 * @param {RefRecord} record
 * @param {string} ref
 * @returns {RefIssue|null}
 */
export function issueOf(record, ref) {
  const match = /^ref_(\d+)$/.exec(ref);
  if (match === null) return null;
  const number = Number(match[1]);
  for (let index = record.issues.length - 1; index >= 0; index -= 1) {
    const issue = record.issues[index];
    if (issue.first <= number && number <= issue.last) return issue;
  }
  return null;
}

/**
 * Whether a stored value is a usable record (storage holds what an older build wrote, too).
 * @param {unknown} value
 * @returns {value is RefRecord}
 */
export function isRecord(value) {
  if (typeof value !== "object" || value === null) return false;
  const record = /** @type {Record<string, unknown>} */ (value);
  return (
    Number.isSafeInteger(record.floor) &&
    Array.isArray(record.issues) &&
    record.issues.every(
      (issue) =>
        typeof issue === "object" &&
        issue !== null &&
        Number.isInteger(issue.frameId) &&
        typeof issue.document === "string" &&
        typeof issue.url === "string" &&
        Number.isSafeInteger(issue.first) &&
        Number.isSafeInteger(issue.last),
    )
  );
}
