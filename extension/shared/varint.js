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
