// @ts-check
// The writer of the packed form of a core call's number lists, for the calls that travel to the
// core in Chromium's service worker (docs/protocol.md, "The core in the service worker"). Its
// reader, and the layout's definition, is crates/allwright-ax-wasm/src/packed.rs: a version
// byte, then lists, each a LEB128 varint count and its items (varints, or little-endian f64s).
// Extension messaging carries JSON, where a typed array becomes an object with a key per
// number; varints in base64 take about a fifth of that on a real page (docs/performance.md).

import { bytesToBase64 } from "../../shared/base64.js";
import { writeVarint } from "../../shared/varint.js";
import { NODE_STRIDE } from "./fact-layout.js";

/** The layout's version; packed.rs reads the same number first. */
export const PACKED_VERSION = 1;

/** A growing byte buffer with the layout's three kinds of list. */
export class PackedWriter {
  /** @param {number} expectedBytes a first guess at the size, to grow rarely */
  constructor(expectedBytes) {
    this.bytes = new Uint8Array(Math.max(64, expectedBytes));
    this.length = 0;
    this.bytes[this.length++] = PACKED_VERSION;
  }

  /** @param {number} needed */
  reserve(needed) {
    if (this.length + needed <= this.bytes.length) return;
    const grown = new Uint8Array(Math.max(this.bytes.length * 2, this.length + needed));
    grown.set(this.bytes.subarray(0, this.length));
    this.bytes = grown;
  }

  /** @param {number} value an unsigned 32-bit number */
  varint(value) {
    this.reserve(5);
    this.length = writeVarint(this.bytes, this.length, value);
  }

  /** @param {ArrayLike<number>} list */
  u32List(list) {
    this.varint(list.length);
    this.reserve(list.length * 5);
    for (let index = 0; index < list.length; index += 1) this.varint(list[index]);
  }

  /** @param {ArrayLike<number> | undefined} list */
  optionalU32List(list) {
    this.reserve(1);
    if (list === undefined) {
      this.bytes[this.length++] = 0;
      return;
    }
    this.bytes[this.length++] = 1;
    this.u32List(list);
  }

  /** @param {ArrayLike<number>} list */
  f64List(list) {
    this.varint(list.length);
    this.reserve(list.length * 8);
    const view = new DataView(this.bytes.buffer, this.bytes.byteOffset);
    for (let index = 0; index < list.length; index += 1) {
      view.setFloat64(this.length, list[index], true);
      this.length += 8;
    }
  }

  /**
   * The facts' number lists; each node's parent (`parent + 1`) goes as the distance back to it,
   * which stays small where the index grows with the page.
   * @param {{stringLengths: ArrayLike<number>, nodes: ArrayLike<number>, attributes: ArrayLike<number>,
   *   rects: ArrayLike<number>, slots: ArrayLike<number>, viewport: ArrayLike<number>}} facts
   */
  facts(facts) {
    this.u32List(facts.stringLengths);
    const nodes = facts.nodes;
    this.varint(nodes.length);
    this.reserve(nodes.length * 5);
    for (let offset = 0; offset < nodes.length; offset += 1) {
      const field = offset % NODE_STRIDE;
      if (field === 1 && nodes[offset] !== 0) {
        const index = (offset - 1) / NODE_STRIDE;
        // A parent at or after its node (the gatherer writes none) goes as a distance past the
        // first node, which packed.rs reads back as a forward parent the decoder refuses.
        this.varint(nodes[offset] <= index ? index + 1 - nodes[offset] : index + 1);
      } else {
        this.varint(nodes[offset]);
      }
    }
    this.u32List(facts.attributes);
    this.f64List(facts.rects);
    this.u32List(facts.slots);
    this.f64List(facts.viewport);
  }

  /** The written bytes as base64, the form extension messaging carries compactly. */
  toBase64() {
    return bytesToBase64(this.bytes.subarray(0, this.length));
  }
}
