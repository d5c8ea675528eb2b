// @ts-check
// What the agent read: the references the last trees of this frame printed, each with the role,
// name and focusability the core gave it (the `refs` field of the core's tree envelope;
// docs/protocol.md, "Content-side action tools"). Actions name their target, match the options of a list
// and apply role rules from these, so that they say and do what the agent saw rather than compute
// it again. Pure (no DOM), so it is unit-tested in Node.

/**
 * A reference as a tree printed it. `focusable` is null when the tree did not say (see
 * refsFromTreeText).
 * @typedef {{number: number, role: string, name: string, focusable: boolean | null}} PrintedRef
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

/** Forgets every read (for tests). */
export function forgetReads() {
  recentReads = [];
}

/**
 * The printed references of a tree output: the envelope's `refs` tuples `[N, role, name,
 * focusable]`, or, from a core that does not write them yet, what the printed lines say.
 * @param {{refs?: unknown}} envelope
 * @param {string} tree the printed text tree
 * @returns {PrintedRef[]}
 */
export function printedRefsOf(envelope, tree) {
  if (!Array.isArray(envelope.refs)) return refsFromTreeText(tree);
  /** @type {PrintedRef[]} */
  const refs = [];
  for (const tuple of envelope.refs) {
    if (!Array.isArray(tuple) || !Number.isSafeInteger(tuple[0])) continue;
    const [number, role, name, focusable] = tuple;
    refs.push({ number, role: String(role), name: String(name), focusable: focusable === 1 || focusable === true });
  }
  return refs;
}

/**
 * The references of a printed tree, read back from its lines (`role "name" [ref_N] ...`), for a
 * core whose envelope has no `refs` yet. TRANSITIONAL: remove once the core writes `refs`
 * (Interface B); the lines do not say whether an element is focusable.
 * @param {string} tree
 * @returns {PrintedRef[]}
 */
export function refsFromTreeText(tree) {
  /** @type {PrintedRef[]} */
  const refs = [];
  for (const line of tree.split("\n")) {
    // The reference follows a space; a name or value that contains "[ref_N]" is printed escaped
    // as "\[ref_N]" (crates/allwright-ax/src/text.rs, `push_escaped`).
    const match = / \[ref_(\d+)\]/.exec(line);
    if (match === null) continue;
    const { role, name } = parseTreeLine(line);
    refs.push({ number: Number(match[1]), role, name, focusable: null });
  }
  return refs;
}

/**
 * Reads `role "name" [ref_N] ...` back into its role and unescaped name (text.rs, `push_escaped`:
 * backslash escapes for \\, ", \n, \r, \t, \[ and \u{XXXX}).
 * @param {string} line
 */
export function parseTreeLine(line) {
  const trimmed = line.trimStart();
  const space = trimmed.indexOf(" ");
  const role = space < 0 ? trimmed : trimmed.slice(0, space);
  if (space < 0 || trimmed[space + 1] !== '"') return { role, name: "" };
  let name = "";
  for (let index = space + 2; index < trimmed.length; index += 1) {
    const character = trimmed[index];
    if (character === '"') break;
    if (character !== "\\") {
      name += character;
      continue;
    }
    const escaped = trimmed[index + 1];
    index += 1;
    if (escaped === "n") name += "\n";
    else if (escaped === "r") name += "\r";
    else if (escaped === "t") name += "\t";
    else if (escaped === "u") {
      const close = trimmed.indexOf("}", index);
      name += String.fromCodePoint(Number.parseInt(trimmed.slice(index + 2, close), 16) || 0xfffd);
      index = close;
    } else name += escaped;
  }
  return { role, name };
}
