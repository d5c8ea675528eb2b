// @ts-check
// The packed form of a tree read's line records on their way back from the core in Chromium's
// service worker to the content script (docs/protocol/core.md, "The core in the service worker"). The
// core writes five u32 per printed line (crates/allwright-ax/src/tree_diff.rs, `encode_records`):
// the line's node identity, its depth word (depth, and two flags in the top bits), its 64-bit
// hash as two u32, and its reference number. As raw u32s that is 20 bytes a line; here the small
// numbers go as LEB128 varints and only the hash keeps its eight bytes, about 12 bytes a line
// (docs/performance/strict-csp.md, "The worker trip's bytes"). An ES module shared by the
// background (the writer) and the content scripts (the reader, bundled).

import { undoZigzagDifference, writeVarint, zigzagDifference } from "./varint.js";
import { LINE_RECORD_WIDTH } from "./generated/line-record-layout.js";

/** Numbers per line record (crates/allwright-ax/src/tree_diff.rs, `RECORD_WIDTH`). */
export { LINE_RECORD_WIDTH };
const RECORD_WIDTH = LINE_RECORD_WIDTH;

/**
 * Packs the first `count` records of `records`: per record, the identity as a zigzag varint of
 * its difference from the previous record's (lines come in tree order, so identities mostly
 * grow by a little), the depth word rotated left by two (its flags then sit in the low bits and
 * a small depth takes one byte) as a varint, the hash's two u32 little-endian, and the reference
 * as a varint.
 * @param {Uint32Array} records
 * @param {number} count records to pack (at most records.length / 5)
 * @returns {Uint8Array}
 */
export function packLineRecords(records, count) {
  const lines = Math.max(0, Math.min(count, Math.floor(records.length / RECORD_WIDTH)));
  // At most 5 + 5 + 8 + 5 bytes a record.
  const bytes = new Uint8Array(lines * 23);
  const view = new DataView(bytes.buffer);
  let length = 0;
  let previousIdentity = 0;
  for (let line = 0; line < lines; line += 1) {
    const offset = line * RECORD_WIDTH;
    const identity = records[offset];
    length = writeVarint(bytes, length, zigzagDifference(identity, previousIdentity));
    previousIdentity = identity;
    const depthWord = records[offset + 1];
    length = writeVarint(bytes, length, (depthWord << 2) | (depthWord >>> 30));
    view.setUint32(length, records[offset + 2], true);
    view.setUint32(length + 4, records[offset + 3], true);
    length += 8;
    length = writeVarint(bytes, length, records[offset + 4]);
  }
  // A buffer of their own: a message's structured clone copies the whole buffer under a view.
  return bytes.slice(0, length);
}

/**
 * Unpacks packLineRecords' bytes into `into` (five numbers per record), as many records as fit.
 * Answers how many records it wrote, or -1 when the bytes end inside a record or a varint runs
 * past five bytes (a malformed reply: the caller then has no records).
 * @param {Uint8Array} bytes
 * @param {Uint32Array} into
 * @returns {number}
 */
export function unpackLineRecords(bytes, into) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let position = 0;
  let malformed = false;
  const varint = () => {
    let value = 0;
    for (let shift = 0; shift < 35; shift += 7) {
      if (position >= bytes.length) break;
      const byte = bytes[position++];
      value += (byte & 0x7f) * 2 ** shift;
      if (byte < 0x80) return value >>> 0;
    }
    malformed = true;
    return 0;
  };
  const capacity = Math.floor(into.length / RECORD_WIDTH);
  let previousIdentity = 0;
  let line = 0;
  while (position < bytes.length && line < capacity) {
    const offset = line * RECORD_WIDTH;
    previousIdentity = undoZigzagDifference(varint(), previousIdentity);
    into[offset] = previousIdentity;
    const rotated = varint();
    into[offset + 1] = (rotated >>> 2) | ((rotated & 3) << 30);
    if (malformed || position + 8 > bytes.length) return -1;
    into[offset + 2] = view.getUint32(position, true);
    into[offset + 3] = view.getUint32(position + 4, true);
    position += 8;
    into[offset + 4] = varint();
    if (malformed) return -1;
    line += 1;
  }
  return line;
}

/**
 * The length of one printed line as the core counts it: in Unicode scalar values (code points),
 * the unit of `maxChars` (docs/protocol/host-safety.md, "Sizes of a read"). A read since a snapshot that
 * re-reads only the changed parts sends the core its lines' lengths, and the core weighs them
 * against the whole tree and `maxChars` as the whole read weighs the lines it printed
 * (crates/allwright-ax/src/reads.rs, `changes_output` and `compare`); counted in UTF-16 units,
 * as `String.length` does, a line of emoji or other characters outside the Basic Multilingual
 * Plane would weigh twice as much here as there, and near `maxChars` the two reads would answer
 * differently. The lines come from the core, which writes valid UTF-8, so every surrogate here
 * is half of a pair and each pair is one scalar.
 * @param {string} line
 * @returns {number}
 */
export function lineLength(line) {
  let length = line.length;
  for (let index = 0; index < line.length; index += 1) {
    const unit = line.charCodeAt(index);
    // A high surrogate followed by a low one: one scalar in two units.
    if (unit >= 0xd800 && unit <= 0xdbff && index + 1 < line.length) {
      const next = line.charCodeAt(index + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        length -= 1;
        index += 1;
      }
    }
  }
  return length;
}

/**
 * The lengths of printed lines (lineLength), as the core's line lengths arguments take them.
 * @param {readonly string[]} lines
 * @returns {Uint32Array}
 */
export function lineLengths(lines) {
  return Uint32Array.from(lines, lineLength);
}
