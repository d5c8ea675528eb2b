// @ts-check
// What the agent read: the references the last trees of this frame printed, each with the role,
// name and focusability the core gave it (the `refs` field of the core's tree envelope;
// docs/protocol/tools.md, "Content-side action tools"). Actions name their target, match the options of a list
// and apply role rules from these, so that they say and do what the agent saw rather than compute
// it again. Pure (no DOM), so it is unit-tested in Node.

/**
 * A reference as a tree printed it.
 * @typedef {{number: number, role: string, name: string, focusable: boolean}} PrintedRef
 */

/**
 * How many reads are kept. More than one, because an agent may zoom into a container (an anchored
 * read) and then act on a ref of the full read before.
 */
const READS_KEPT = 3;

/** @type {Map<number, PrintedRef>[]} The last reads, newest first. */
let recentReads = [];

/**
 * Remembers the references of one read, newest first, forgetting the oldest read.
 * @param {PrintedRef[]} refs
 */
export function rememberRead(refs) {
  const read = new Map(refs.map((ref) => [ref.number, ref]));
  recentReads = [read, ...recentReads.slice(0, READS_KEPT - 1)];
}

/**
 * Remembers the references a read since a snapshot printed (only what changed): they update the
 * newest read, which with them describes the page as it is now.
 * @param {PrintedRef[]} refs
 */
export function rememberChanges(refs) {
  if (recentReads.length === 0) {
    rememberRead(refs);
    return;
  }
  // In place: the newest read's map is this module's own, and copying it (thousands of refs)
  // would cost every read since a snapshot more than the read itself.
  for (const ref of refs) recentReads[0].set(ref.number, ref);
}

/**
 * The reference `ref_N` as the newest read that printed it shows it, or undefined.
 * @param {number} number
 * @returns {PrintedRef | undefined}
 */
export function printedRef(number) {
  for (const read of recentReads) {
    const found = read.get(number);
    if (found !== undefined) return found;
  }
  return undefined;
}

/**
 * Replaces a reference's role, name and focusability in every kept read that printed it: what an
 * action's `ref_changed` refusal told the agent (content/accessibility-tree.js).
 * @param {PrintedRef} ref
 */
export function reprintRef(ref) {
  for (const read of recentReads) {
    if (read.has(ref.number)) read.set(ref.number, { ...ref });
  }
}

/** Forgets every read (for tests). */
export function forgetReads() {
  recentReads = [];
}

/**
 * The printed references of a tree output: the envelope's `refs` tuples `[N, role, name,
 * focusable]` (crates/allwright-ax/src/reads.rs). An envelope without them (a read that failed)
 * prints nothing to remember.
 * @param {{refs?: unknown}} envelope
 * @returns {PrintedRef[]}
 */
export function printedRefsOf(envelope) {
  if (!Array.isArray(envelope.refs)) return [];
  /** @type {PrintedRef[]} */
  const refs = [];
  for (const tuple of envelope.refs) {
    if (!Array.isArray(tuple) || !Number.isSafeInteger(tuple[0])) continue;
    const [number, role, name, focusable] = tuple;
    refs.push({ number, role: String(role), name: String(name), focusable: focusable === 1 || focusable === true });
  }
  return refs;
}
