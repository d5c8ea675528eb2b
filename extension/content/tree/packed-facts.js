// @ts-check
// The writer of the packed form of a core call's number lists, for the calls that travel to the
// core in Chromium's service worker (docs/protocol/core.md, "The core in the service worker"). Its
// reader, and the layout's definition, is crates/allwright-ax-wasm/src/packed.rs: a version
// byte, then lists, each a LEB128 varint count and its items (varints, or little-endian f64s).
// The varints take about a fifth of the raw u32s' bytes on a real page (docs/performance/strict-csp.md,
// "The worker trip's bytes"), which extension messaging copies from the page to the service
// worker.

import { writeVarint, zigzagDifference } from "../../shared/varint.js";
import { KIND_MASK, KIND_TEXT, NODE_STRIDE } from "../../shared/generated/fact-layout.js";

/** The layout's version; packed.rs reads the same number first. */
export const PACKED_VERSION = 2;

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

  /**
   * A list of numbers that mostly grow by small steps (node identities), each written as its
   * zigzag difference from the one before (shared/varint.js).
   * @param {ArrayLike<number>} list
   */
  differenceList(list) {
    this.varint(list.length);
    this.reserve(list.length * 5);
    let previous = 0;
    for (let index = 0; index < list.length; index += 1) {
      this.varint(zigzagDifference(list[index], previous));
      previous = list[index];
    }
  }

  /**
   * A list of pairs (known refs: node, number) whose two columns each grow by small steps: each
   * number written as its zigzag difference from the same column's number in the pair before.
   * @param {ArrayLike<number>} list
   */
  pairDifferenceList(list) {
    this.varint(list.length);
    this.reserve(list.length * 5);
    const previous = [0, 0];
    for (let index = 0; index < list.length; index += 1) {
      const column = index & 1;
      this.varint(zigzagDifference(list[index], previous[column]));
      previous[column] = list[index];
    }
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
   * The facts' number lists, with the numbers that grow with the page written as small ones
   * (packed.rs documents the layout): each node's parent (`parent + 1`) as the distance back to
   * it, each text node's string as its zigzag difference from the previous text node's, and
   * each attribute's value string as its zigzag difference from the previous attribute's. The
   * gatherer adds strings in tree order, so these steps are a few strings long.
   * @param {{stringLengths: ArrayLike<number>, nodes: ArrayLike<number>, attributes: ArrayLike<number>,
   *   rects: ArrayLike<number>, slots: ArrayLike<number>, viewport: ArrayLike<number>}} facts
   */
  facts(facts) {
    this.u32List(facts.stringLengths);
    const nodes = facts.nodes;
    this.varint(nodes.length);
    this.reserve(nodes.length * 5);
    let previousText = 0;
    for (let offset = 0; offset < nodes.length; offset += 1) {
      const field = offset % NODE_STRIDE;
      if (field === 1 && nodes[offset] !== 0) {
        const index = (offset - 1) / NODE_STRIDE;
        // A parent at or after its node (the gatherer writes none) goes as a distance past the
        // first node, which packed.rs reads back as a forward parent the decoder refuses.
        this.varint(nodes[offset] <= index ? index + 1 - nodes[offset] : index + 1);
      } else if (field === 2 && (nodes[offset - 2] & KIND_MASK) === KIND_TEXT) {
        this.varint(zigzagDifference(nodes[offset], previousText));
        previousText = nodes[offset];
      } else {
        this.varint(nodes[offset]);
      }
    }
    const attributes = facts.attributes;
    this.varint(attributes.length);
    this.reserve(attributes.length * 5);
    let previousValue = 0;
    for (let offset = 0; offset < attributes.length; offset += 1) {
      if ((offset & 1) === 0) {
        this.varint(attributes[offset]);
      } else {
        this.varint(zigzagDifference(attributes[offset], previousValue));
        previousValue = attributes[offset];
      }
    }
    this.f64List(facts.rects);
    this.u32List(facts.slots);
    this.f64List(facts.viewport);
  }

  /**
   * The written bytes, in a buffer of their own: a message's structured clone copies the whole
   * buffer under a view, and the writer's has room to spare.
   */
  written() {
    return this.bytes.slice(0, this.length);
  }
}
