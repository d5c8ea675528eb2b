// @ts-check
// LEB128 varints, the number encoding of the byte payloads that cross extension messaging to
// and from the core in Chromium's service worker: the packed facts (content/tree/packed-facts.js,
// read by crates/allwright-ax-wasm/src/packed.rs) and the packed line records
// (shared/line-records.js). An ES module shared by the content scripts (bundled) and the
// background (imported).

/**
 * Writes `value` (an unsigned 32-bit number) as a varint at `position`: seven bits a byte, low
 * bits first, the top bit set on every byte but the last. The caller has room for five bytes.
 * @param {Uint8Array} bytes
 * @param {number} position
 * @param {number} value
 * @returns {number} the position after it
 */
export function writeVarint(bytes, position, value) {
  let rest = value >>> 0;
  let at = position;
  while (rest >= 0x80) {
    bytes[at++] = (rest & 0x7f) | 0x80;
    rest >>>= 7;
  }
  bytes[at++] = rest;
  return at;
}

/**
 * A number written as its difference from the one before it, as a zigzag number (0, -1, 1, -2,
 * ... as 0, 1, 2, 3, ...) so that a small step either way is a small varint. The difference wraps
 * at 2^32: every pair of unsigned 32-bit numbers has one, and undoZigzagDifference gives the
 * number back.
 * @param {number} value an unsigned 32-bit number
 * @param {number} previous the number before it
 * @returns {number} an unsigned 32-bit number
 */
export function zigzagDifference(value, previous) {
  const difference = (value - previous) | 0;
  return ((difference << 1) ^ (difference >> 31)) >>> 0;
}

/**
 * The number that zigzagDifference wrote as `zigzag` after `previous`.
 * @param {number} zigzag
 * @param {number} previous
 * @returns {number}
 */
export function undoZigzagDifference(zigzag, previous) {
  return (previous + ((zigzag >>> 1) ^ -(zigzag & 1))) >>> 0;
}
