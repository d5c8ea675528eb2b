// Reassembly of the native host's chunk series (extension/background/host/chunks.js).
import { test } from "node:test";
import assert from "node:assert/strict";
import { ChunkAssembler, ChunkError } from "../../../extension/background/host/chunks.js";

/** Splits a message the way the host does: JSON text cut on character boundaries. */
function chunksOf(id, message, size) {
  const characters = [...JSON.stringify(message)];
  const slices = [];
  for (let i = 0; i < characters.length; i += size) slices.push(characters.slice(i, i + size).join(""));
  return slices.map((data, index) => ({ type: "chunk", id, index, count: slices.length, data }));
}

const call = { type: "call", id: "7", tool: "navigate", arguments: { url: "https://exämple.test/ünïcödé/😀" } };

test("in-order chunks join into the original message", () => {
  const assembler = new ChunkAssembler();
  const chunks = chunksOf("s1", call, 5);
  assert.ok(chunks.length > 3);
  for (const chunk of chunks.slice(0, -1)) assert.equal(assembler.add(chunk), null);
  assert.deepEqual(assembler.add(chunks.at(-1)), call);
  assert.equal(assembler.openSeries, 0);
});

test("out-of-order chunks and interleaved series both work", () => {
  const assembler = new ChunkAssembler();
  const a = chunksOf("a", call, 7).reverse();
  const other = { ...call, id: "8" };
  const b = chunksOf("b", other, 11);
  const results = [];
  for (let i = 0; i < Math.max(a.length, b.length); i += 1) {
    for (const chunk of [a[i], b[i]]) {
      if (chunk === undefined) continue;
      const whole = assembler.add(chunk);
      if (whole !== null) results.push(whole);
    }
  }
  assert.deepEqual(results.sort((x, y) => x.id.localeCompare(y.id)), [call, other]);
  assert.equal(assembler.openSeries, 0);
});

test("a one-chunk series completes at once", () => {
  const assembler = new ChunkAssembler();
  const [only] = chunksOf("one", call, 100_000);
  assert.deepEqual(assembler.add(only), call);
});

test("a duplicate chunk drops its series and later series still work", () => {
  const assembler = new ChunkAssembler();
  const chunks = chunksOf("dup", call, 9);
  assembler.add(chunks[0]);
  assert.throws(() => assembler.add(chunks[0]), ChunkError);
  assert.equal(assembler.openSeries, 0);
  let whole = null;
  for (const chunk of chunksOf("next", call, 9)) whole = assembler.add(chunk);
  assert.deepEqual(whole, call);
});

test("a chunk whose count contradicts its series is refused", () => {
  const assembler = new ChunkAssembler();
  assembler.add({ id: "c", index: 0, count: 3, data: "{" });
  assert.throws(() => assembler.add({ id: "c", index: 1, count: 4, data: "}" }), /announced 3 chunks, then 4/);
});

test("out-of-range indexes are refused", () => {
  const assembler = new ChunkAssembler();
  assert.throws(() => assembler.add({ id: "r", index: 2, count: 2, data: "" }), ChunkError);
  assert.throws(() => assembler.add({ id: "r", index: -1, count: 2, data: "" }), ChunkError);
  assert.throws(() => assembler.add({ id: "r", index: 0, count: 0, data: "" }), ChunkError);
});

test("a series that joins into invalid JSON is an error", () => {
  const assembler = new ChunkAssembler();
  assembler.add({ id: "j", index: 0, count: 2, data: "{\"a\":" });
  assert.throws(() => assembler.add({ id: "j", index: 1, count: 2, data: "]" }), /valid JSON/);
  assert.equal(assembler.openSeries, 0);
});

test("too many open series are refused", () => {
  const assembler = new ChunkAssembler();
  for (let i = 0; i < 16; i += 1) assembler.add({ id: `s${i}`, index: 0, count: 2, data: "" });
  assert.throws(() => assembler.add({ id: "s16", index: 0, count: 2, data: "" }), /more than 16/);
});
