// The packed form of a core call's numbers (extension/content/tree/packed-facts.js), whose
// reader is crates/allwright-ax-wasm/src/packed.rs: the bytes here are the ones the Rust tests
// of that file expect for the same facts, so the two sides cannot drift apart silently.
import { test } from "node:test";
import assert from "node:assert/strict";
import { PackedWriter, PACKED_VERSION } from "../../../extension/content/tree/packed-facts.js";
import "../../../extension/shared/messages.js";

const m = globalThis.allwrightMessages;

/** The writer's bytes, as a core call sends them. */
const bytesOf = (writer) => writer.written();

test("parents travel as distances back, as packed.rs reads them", () => {
  // packed.rs `parents_travel_as_distances`: node 3's parent is node 1 (written 2).
  const nodes = [0, 0, 0, 0, 0, 1, 1, 0, 0, 0, 1, 2, 0, 0, 0, 1, 2, 0, 0, 0];
  const writer = new PackedWriter(8);
  writer.facts({ stringLengths: [], nodes, attributes: [], rects: [], slots: [], viewport: [] });
  const bytes = bytesOf(writer);
  assert.equal(bytes[0], PACKED_VERSION);
  assert.equal(bytes[2], 20);
  assert.deepEqual([...bytes.subarray(3 + 15, 3 + 17)], [1, 2]);
  // Node 1's parent (node 0) is one back; node 2's parent (node 1) is one back.
  assert.deepEqual([...bytes.subarray(3 + 5, 3 + 7)], [1, 1]);
});

test("a parent at or after its node is written past the first node, which the reader refuses", () => {
  const nodes = [0, 0, 0, 0, 0, 1, 2, 0, 0, 0];
  const writer = new PackedWriter(8);
  writer.facts({ stringLengths: [], nodes, attributes: [], rects: [], slots: [], viewport: [] });
  // Node 1 names itself (parent + 1 = 2): written as 2, a distance past node 0.
  assert.equal(bytesOf(writer)[3 + 6], 2);
});

test("varints, optional lists and f64 lists", () => {
  const writer = new PackedWriter(1);
  writer.u32List([0, 127, 128, 16384, 0xffffffff]);
  writer.optionalU32List(undefined);
  writer.optionalU32List([5]);
  writer.f64List([1.5]);
  const bytes = bytesOf(writer);
  assert.deepEqual(
    [...bytes.subarray(0, 14)],
    [PACKED_VERSION, 5, 0, 127, 0x80, 1, 0x80, 0x80, 1, 0xff, 0xff, 0xff, 0xff, 0x0f],
  );
  assert.deepEqual([...bytes.subarray(14, 18)], [0, 1, 1, 5]);
  assert.equal(bytes[18], 1);
  assert.equal(new DataView(bytes.buffer, bytes.byteOffset + 19, 8).getFloat64(0, true), 1.5);
  assert.equal(bytes.length, 27);
});

test("the written bytes own their buffer, which a message's structured clone copies whole", () => {
  const writer = new PackedWriter(4096);
  writer.u32List([1, 2, 3]);
  const bytes = writer.written();
  assert.equal(bytes.length, 5);
  assert.equal(bytes.buffer.byteLength, 5);
  assert.equal(bytes.byteOffset, 0);
});

test("core-call guards", () => {
  const request = m.coreCallRequest("buildTextTree", "", Uint8Array.of(1), [[2, '"x"']], { page: 1 }, 10);
  assert.ok(m.isCoreCallRequest(request));
  assert.ok(!m.isCoreCallRequest({ ...request, operation: "eval" }));
  assert.ok(!m.isCoreCallRequest({ ...request, packed: [1] }));
  // Bytes as base64 (the JSON messages of Chromium before 148) are refused, not misread.
  assert.ok(!m.isCoreCallRequest({ ...request, packed: "AQ==" }));
  assert.ok(!m.isCoreCallRequest({ ...request, recordCapacity: -1 }));
  assert.ok(m.isCoreCallReply({ ok: true, output: "{}", records: new Uint8Array(0) }));
  assert.ok(!m.isCoreCallReply({ ok: true, output: "{}", records: "" }));
  assert.ok(m.isCoreCallReply({ ok: false, error: m.toolError("script_failed", "no") }));
  assert.ok(!m.isCoreCallReply({ ok: true, output: "{}" }));
  assert.ok(m.isLoadCoreReply({ core: "worker", factsVersion: 5 }));
});

test("strings and identities travel as differences, as packed.rs reads them", () => {
  // packed.rs `strings_and_identities_travel_as_differences`: the same facts, the same bytes.
  const nodes = [0, 0, 0, 0, 0, 1, 1, 5, 1, 0, 2, 2, 300, 0, 0, 2, 2, 302, 0, 0];
  const writer = new PackedWriter(8);
  writer.facts({ stringLengths: [], nodes, attributes: [6, 301], rects: [], slots: [], viewport: [] });
  writer.differenceList([5, 6, 4, 0xffffffff]);
  writer.pairDifferenceList([3, 100, 7, 101]);
  assert.deepEqual(
    [...bytesOf(writer)],
    [
      PACKED_VERSION, 0, 20,
      0, 0, 0, 0, 0,
      1, 1, 5, 1, 0,
      // A text node's string: 300 as the zigzag difference 600.
      2, 1, 0xd8, 0x04, 0, 0,
      // The next text node's: 302, two after 300.
      2, 2, 4, 0, 0,
      // An attribute's value string: 301 as 602.
      2, 6, 0xda, 0x04,
      0, 0, 0,
      // Identities: 5, then +1, -2, and a wrap to the top of the range.
      4, 10, 2, 3, 9,
      // Known refs: each column from its own previous number.
      4, 6, 0xc8, 0x01, 8, 2,
    ],
  );
});
