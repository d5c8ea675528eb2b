// Property test of the reassembly of the native host's chunk series
// (extension/background/host/chunks.js): random messages, cut at random sizes (on code points as the
// host does, or anywhere, even inside a surrogate pair), their series interleaved and delivered
// in random order, some with a chunk repeated, missing, out of range, with a changed or absurd
// count, or with data that breaks the JSON. Properties: `add` returns a message or null or throws
// a ChunkError, nothing else; a message returned is exactly the one sent; a series delivered
// whole and intact is returned exactly once; one that never finishes is never returned; the text
// held for open series never exceeds the limit, however long a series goes unfinished.
import { test } from "node:test";
import assert from "node:assert/strict";
import { ChunkAssembler, ChunkError, MAX_CHUNKS_PER_SERIES } from "../../../extension/background/host/chunks.js";
import { propertySeeds, seededRandom } from "../seeded-random.mjs";

/** Cuts `text` into slices of 1 to `largest` code points (or UTF-16 units when `anywhere`). */
function slicesOf(random, text, largest, anywhere) {
  const units = anywhere ? [...text.split("")] : [...text];
  const slices = [];
  for (let start = 0; start < units.length; ) {
    const size = random.int(1, largest);
    slices.push(units.slice(start, start + size).join(""));
    start += size;
  }
  return slices;
}

const FAULTS = ["none", "none", "none", "repeat", "missing", "out of range", "other count", "absurd count", "broken data"];

test("chunk series reassemble exactly, or fail with a ChunkError, within the held-text limit", () => {
  let returned = 0;
  let refused = 0;
  for (const seed of propertySeeds(1500)) {
    const random = seededRandom(seed);
    const maxHeldUnits = random.chance(0.3) ? random.int(50, 2000) : undefined;
    const assembler = new ChunkAssembler(maxHeldUnits === undefined ? {} : { maxHeldUnits });
    const limit = maxHeldUnits ?? Infinity;
    /** @type {Map<string, {message: unknown, fault: string, returned: number}>} */
    const series = new Map();
    const deliveries = [];
    for (let number = random.int(1, 4); number > 0; number -= 1) {
      const id = `s${number}-${random.string(3)}`;
      const message = { type: "call", id: random.string(5), tool: "type_ax", arguments: random.json(3) };
      const fault = random.pick(FAULTS);
      series.set(id, { message, fault, returned: 0 });
      const slices = slicesOf(random, JSON.stringify(message), random.pick([1, 3, 16, 200]), random.chance(0.3));
      let chunks = slices.map((data, index) => ({ type: "chunk", id, index, count: slices.length, data }));
      const victim = random.int(0, chunks.length - 1);
      if (fault === "repeat") chunks.splice(random.int(0, chunks.length), 0, { ...chunks[victim] });
      if (fault === "missing") chunks.splice(victim, 1);
      if (fault === "out of range") chunks[victim] = { ...chunks[victim], index: random.pick([-1, chunks.length, 0.5, NaN]) };
      if (fault === "other count") chunks[victim] = { ...chunks[victim], count: chunks.length + random.pick([-1, 1]) };
      if (fault === "absurd count") {
        chunks = chunks.map((chunk) => ({ ...chunk, count: random.pick([2 ** 32, 2 ** 40, MAX_CHUNKS_PER_SERIES + 1]) }));
      }
      if (fault === "broken data") chunks[victim] = { ...chunks[victim], data: `${chunks[victim].data}\u0000` };
      // Each series in order or shuffled; the series interleaved.
      if (random.chance(0.5)) chunks.sort(() => random.float() - 0.5);
      deliveries.push(...chunks);
    }
    if (random.chance(0.5)) deliveries.sort(() => random.float() - 0.5);
    /** @type {Set<string>} */
    const failed = new Set();
    for (const chunk of deliveries) {
      let whole;
      try {
        whole = assembler.add(chunk);
      } catch (error) {
        assert.ok(error instanceof ChunkError, `seed ${seed}: ${error.stack}`);
        failed.add(chunk.id);
        refused += 1;
        whole = null;
      }
      assert.ok(assembler.heldTextUnits <= limit, `seed ${seed}: ${assembler.heldTextUnits} units held`);
      assert.ok(assembler.openSeries <= 16, `seed ${seed}`);
      if (whole === null) continue;
      const sent = series.get(chunk.id);
      assert.deepEqual(whole, sent.message, `seed ${seed}: series ${chunk.id} joined into another message`);
      sent.returned += 1;
      returned += 1;
    }
    for (const [id, sent] of series) {
      assert.ok(sent.returned <= 1, `seed ${seed}: series ${id} returned twice`);
      if (sent.fault === "missing" || sent.fault === "absurd count" || sent.fault === "broken data") {
        assert.equal(sent.returned, 0, `seed ${seed}: a ${sent.fault} series ${id} was returned`);
      }
      const clean = sent.fault === "none" && maxHeldUnits === undefined;
      if (clean) assert.equal(sent.returned, 1, `seed ${seed}: intact series ${id} was not returned`);
      if (clean) assert.ok(!failed.has(id), `seed ${seed}: intact series ${id} was refused`);
    }
  }
  if (process.env.ALLWRIGHT_PROPERTY_SEED === undefined) assert.ok(returned > 100 && refused > 100, `${returned} returned, ${refused} refused`);
});

test("a series that never finishes holds no more than the limit, and later series still work", () => {
  const assembler = new ChunkAssembler({ maxHeldUnits: 100_000 });
  const slice = "x".repeat(1_000);
  let refusedAt = null;
  for (let index = 0; index < MAX_CHUNKS_PER_SERIES - 1; index += 1) {
    try {
      assembler.add({ id: "endless", index, count: MAX_CHUNKS_PER_SERIES, data: slice });
    } catch (error) {
      assert.ok(error instanceof ChunkError);
      refusedAt = index;
      break;
    }
    assert.ok(assembler.heldTextUnits <= 100_000);
  }
  assert.equal(refusedAt, 100, "refused at the chunk that would pass the limit");
  assert.equal(assembler.heldTextUnits, 0, "the refused series is dropped");
  assert.deepEqual(assembler.add({ id: "next", index: 0, count: 1, data: '{"type":"sessionEnded"}' }), { type: "sessionEnded" });
});

test("a count too large for an array is a ChunkError, not a RangeError", () => {
  const assembler = new ChunkAssembler();
  for (const count of [2 ** 32, 2 ** 40, Number.MAX_SAFE_INTEGER]) {
    assert.throws(() => assembler.add({ id: "huge", index: 0, count, data: "{" }), ChunkError);
  }
  assert.equal(assembler.openSeries, 0);
});

test("a chunk of a series that has ended is refused, so a call is never delivered twice", () => {
  const assembler = new ChunkAssembler();
  const call = { type: "call", id: "h1", tool: "click_ax", arguments: { ref_id: "ref_1" } };
  const chunk = { type: "chunk", id: "chunks-1", index: 0, count: 1, data: JSON.stringify(call) };
  assert.deepEqual(assembler.add(chunk), call);
  assert.throws(() => assembler.add({ ...chunk }), ChunkError, "the same series again");
  // A refused series' late chunks are refused too, and hold nothing.
  assert.equal(assembler.add({ type: "chunk", id: "chunks-2", index: 0, count: 2, data: "{" }), null);
  assert.throws(() => assembler.add({ type: "chunk", id: "chunks-2", index: 1, count: 3, data: "}" }), ChunkError);
  assert.throws(() => assembler.add({ type: "chunk", id: "chunks-2", index: 1, count: 2, data: "}" }), ChunkError);
  assert.equal(assembler.heldTextUnits, 0);
});
