// @ts-check
// The bounds of one tree read, shared by the content script's reads (accessibility-tree.js) and
// the WebDriver BiDi bundle's (surface/bidi-snapshot.js), so that both read the same nodes of a
// page.

/**
 * The most nodes (elements and texts) one tree read gathers. A page larger than this (a million
 * nodes) is read from its beginning, in tree order, with a notice: gathering and reading it
 * whole would take longer than the call may wait, in both browsers (tests/extension/bounds.rs).
 * At about 10 ms per thousand nodes gathered and read, this is a few seconds.
 */
export const MAX_READ_NODES = 200_000;

/** What a read of a page larger than MAX_READ_NODES says, after the core's own notice. */
export const PAGE_CUT_NOTICE = `The page has more than ${MAX_READ_NODES} nodes: this read covers the first ${MAX_READ_NODES} in document order. Read a part with ref_id, or take a screenshot to find your way.`;

/**
 * The longest string (attribute value, field value, text) one tree read sends to the core whole.
 * The tree prints at most 10,000 characters of a name and 2,000 of a value
 * (LONGEST_PRINTED_NAME and LONGEST_PRINTED_VALUE in crates/allwright-ax/src/text.rs), so a
 * longer string changes nothing the agent reads, while sending it costs in proportion to its
 * length: a 40 MB textarea took the core 1.3 s per read before this cut (tests/extension/bounds.rs).
 * The margin above 10,000 leaves room for whitespace that a name collapses.
 */
export const LONGEST_TEXT_READ = 65_536;
