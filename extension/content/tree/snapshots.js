// @ts-check
// Reads since a snapshot (docs/protocol/reading.md, "Reads since a snapshot"): every tree read of this
// frame gets a `snapshotId`, and the record of its lines is kept here so that a later
// `get_accessibility_tree({since})` can print only what changed. Lines are matched by the
// identity of their DOM node, a number this module gives each node the first time a read
// gathers it and keeps for as long as the node lives (a WeakMap: nothing here keeps a removed
// node alive). The identity is internal: the refs the agent sees stay as the tree prints them,
// and a line that prints no ref still has one.

import { documentToken } from "./registry.js";
import { keepableLineCount } from "../../shared/tree-result.js";
import { LINE_RECORD_WIDTH } from "../../shared/line-records.js";

/** Node -> its identity; identities start at 1 (0 means "unknown" to the core). */
const identities = /** @type {WeakMap<Node, number>} */ (new WeakMap());
let lastIdentity = 0;

/**
 * How many snapshots a frame keeps. An agent reads, acts and reads again with `since`; a few
 * more allow an anchored read in between. Each costs five numbers per line (200 KB for the
 * 10k-element benchmark page), so the oldest are forgotten.
 */
const SNAPSHOTS_KEPT = 4;
/**
 * How many hex digits of the document's token a snapshot id carries (`s-<digits>-<N>`): enough
 * to tell this document's ids from another document's of the frame (`document_changed`), and
 * few, since an agent reads the id on every read and sends it back with `since`. Two documents
 * whose digits agree only make an old id answer `unknown_snapshot`: the whole tree, either way.
 */
const SNAPSHOT_DOCUMENT_DIGITS = 8;

/**
 * snapshotId -> the arguments it was read with and its line records (the core's flat encoding,
 * crates/allwright-ax/src/tree_diff.rs), and, for the newest snapshot only, its printed lines
 * when the read printed them all (tree/changed-parts.js re-reads parts of it).
 * The lines are kept as the read printed them, one string, and split into lines only when a
 * `since` read first compares with them: most reads are never compared with, and splitting the
 * 10,000 lines of a large page on every read cost each read the split and its garbage.
 * @type {Map<string, {readKey: string, lines: Uint32Array, texts: string[] | string | null, lineCount: number}>}
 */
const snapshots = new Map();
let lastSnapshot = 0;
/** @type {string | null} */
let newestSnapshot = null;

/**
 * The identity of every gathered node, by node index, for the core.
 * @param {Node[]} nodeList
 * @returns {Uint32Array}
 */
export function identitiesOf(nodeList) {
  const numbers = new Uint32Array(nodeList.length);
  for (let index = 0; index < nodeList.length; index += 1) {
    const node = nodeList[index];
    let identity = identities.get(node);
    if (identity === undefined) {
      lastIdentity += 1;
      identity = lastIdentity;
      identities.set(node, identity);
    }
    numbers[index] = identity;
  }
  return numbers;
}

/**
 * The arguments that decide which lines a read prints: a snapshot is compared only with a read
 * of the same ones. `maxChars` and `page` only cut the same lines into pages; `since` compares
 * whole trees.
 * @param {{filter?: string, maxDepth?: number, ref_id?: string}} args
 */
export function readKeyOf(args) {
  return JSON.stringify([args.filter ?? "all", args.maxDepth ?? null, args.ref_id ?? null]);
}

export { LINE_RECORD_WIDTH } from "../../shared/line-records.js";

// A record's second number: its line's depth in the low bits (`LINE_DEPTH_MASK`), the top bit
// set when the line is under the open overlays (`LINE_OVERLAY_BIT`), the next one when the line
// leaves its name to its first child, the next when it is a run of text
// (crates/allwright-ax/src/tree_diff.rs, `encode_records`, through the module generated from it).
export { LINE_DEPTH_MASK, LINE_OVERLAY_BIT } from "../../shared/generated/line-record-layout.js";

/**
 * The id of the next snapshot, taken before the read's core call: a read whose core runs in the
 * service worker is answered by the background before this frame keeps the snapshot
 * (shared/tree-result.js), and the id it answers is this one.
 */
export function reserveSnapshotId() {
  lastSnapshot += 1;
  return `s-${documentToken().slice(0, SNAPSHOT_DOCUMENT_DIGITS)}-${lastSnapshot}`;
}

/**
 * A new snapshot: its id, which names this document, and its records kept for later reads.
 * @param {string} readKey
 * @param {Uint32Array} records the buffer the core wrote the records to
 * @param {unknown} lineCount the envelope's `lineCount`: how many records it wrote
 * @param {string[] | string | null} [texts] the printed lines, one per record, when the read
 *   printed them all uncut: as an array, or as the printed text whose lines they are
 * @param {string} [reservedId] the id reserveSnapshotId gave the read, if it took one
 * @returns {string | undefined} undefined when the core wrote none (exactly when
 *   shared/tree-result.js keepableLineCount says so)
 */
export function keepSnapshot(readKey, records, lineCount, texts = null, reservedId = undefined) {
  if (!keepableLineCount(lineCount, Math.floor(records.length / LINE_RECORD_WIDTH))) return undefined;
  const length = /** @type {number} */ (lineCount) * LINE_RECORD_WIDTH;
  const snapshotId = reservedId ?? reserveSnapshotId();
  const previous = newestSnapshot === null ? undefined : snapshots.get(newestSnapshot);
  if (previous !== undefined) previous.texts = null;
  snapshots.set(snapshotId, {
    readKey,
    lines: records.length === length ? records : records.slice(0, length),
    texts: typeof texts === "string" || (texts !== null && texts.length === lineCount) ? texts : null,
    lineCount: /** @type {number} */ (lineCount),
  });
  newestSnapshot = snapshotId;
  while (snapshots.size > SNAPSHOTS_KEPT) {
    const oldest = snapshots.keys().next().value;
    if (oldest === undefined) break;
    snapshots.delete(oldest);
  }
  return snapshotId;
}

/**
 * The records a `since` read compares with, or why it must print the whole tree instead.
 * @param {string} since the agent's snapshotId
 * @param {string} readKey this read's readKeyOf
 * @param {number} page
 * @returns {{lines: Uint32Array, texts: string[] | null} | {fullReason: string}}
 *   `texts` only for the newest snapshot, when it kept them
 */
export function snapshotToCompare(since, readKey, page) {
  const kept = snapshots.get(since);
  if (kept === undefined) {
    const match = /^s-([0-9a-f]+)-[0-9]+$/.exec(since);
    if (match !== null && match[1] !== documentToken().slice(0, SNAPSHOT_DOCUMENT_DIGITS))
      return { fullReason: "document_changed" };
    return { fullReason: "unknown_snapshot" };
  }
  if (kept.readKey !== readKey) return { fullReason: "arguments_changed" };
  if (page > 1) return { fullReason: "paged" };
  return { lines: kept.lines, texts: since === newestSnapshot ? linesOf(kept) : null };
}

/**
 * A kept snapshot's printed lines, split from its printed text the first time they are asked
 * for (see `snapshots`); null when they do not match its records one to one.
 * @param {{texts: string[] | string | null, lineCount: number}} kept
 * @returns {string[] | null}
 */
function linesOf(kept) {
  if (typeof kept.texts === "string") {
    const texts = kept.texts === "" ? [] : kept.texts.split("\n");
    kept.texts = texts.length === kept.lineCount ? texts : null;
  }
  return kept.texts;
}

/**
 * Where each node's line is in a snapshot's records, by the node's identity (never assigning
 * one: a node no read gathered has no line).
 * @param {Uint32Array} lines
 * @returns {(node: Node) => number | undefined}
 */
export function linePositions(lines) {
  /** @type {Map<number, number> | null} Built after the first few questions (see below). */
  let positions = null;
  let questions = 0;
  return (node) => {
    const identity = identities.get(node);
    if (identity === undefined) return undefined;
    // A read after one small change asks about a few elements (the changed ones and their
    // ancestors): a scan of the records answers each in microseconds, where a map of a 10k line
    // snapshot takes a millisecond to build. Many questions get the map. Both answer the last
    // line of an identity, should one repeat.
    questions += 1;
    if (positions === null && questions <= SCANNED_QUESTIONS) {
      for (let position = Math.floor(lines.length / LINE_RECORD_WIDTH) - 1; position >= 0; position -= 1) {
        if (lines[position * LINE_RECORD_WIDTH] === identity) return position;
      }
      return undefined;
    }
    if (positions === null) {
      positions = new Map();
      for (let position = 0; position * LINE_RECORD_WIDTH < lines.length; position += 1) {
        positions.set(lines[position * LINE_RECORD_WIDTH], position);
      }
    }
    return positions.get(identity);
  };
}

/** How many questions linePositions answers by scanning before it builds its map. */
const SCANNED_QUESTIONS = 16;
