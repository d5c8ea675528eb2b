// The packed line records of the service worker's tree reads (extension/shared/line-records.js):
// what is packed reads back the same, for every kind of number a record holds, and damaged bytes
// are refused rather than read as other records. Printed lines are measured in Unicode scalars, as
// the core measures them (lineLength).
import { test } from "node:test";
import assert from "node:assert/strict";
import { lineLength, lineLengths, packLineRecords, unpackLineRecords } from "../../../extension/shared/line-records.js";

/** Records of every shape: identities that grow, fall back and jump to the top of the range,
 * depths with either flag or both, hashes of all bits, references small and large. */
function sampleRecords() {
  const numbers = [
    [1, 0, 0, 0, 0],
    [2, 1, 0xdeadbeef, 0x01234567, 1],
    [7, 2 | 0x80000000, 0xffffffff, 0xffffffff, 300],
    [3, 3 | 0x40000000, 1, 2, 0],
    [0xffffffff, 0x3fffffff | 0xc0000000, 0x80000000, 0x7fffffff, 0xffffffff],
    [0, 5, 42, 43, 44],
    [123456, 4, 0, 0x80000000, 70000],
  ];
  return Uint32Array.from(numbers.flat());
}

test("packed records read back as the core wrote them", () => {
  const records = sampleRecords();
  const count = records.length / 5;
  const packed = packLineRecords(records, count);
  const into = new Uint32Array(records.length);
  assert.equal(unpackLineRecords(packed, into), count);
  assert.deepEqual([...into], [...records]);
  // The reply's structured clone copies the whole buffer under a view: the bytes own theirs.
  assert.equal(packed.buffer.byteLength, packed.length);
});

test("only the printed lines are packed, and a short target takes what fits", () => {
  const records = sampleRecords();
  const packed = packLineRecords(records, 3);
  const into = new Uint32Array(records.length);
  assert.equal(unpackLineRecords(packed, into), 3);
  assert.deepEqual([...into.subarray(0, 15)], [...records.subarray(0, 15)]);
  assert.deepEqual([...into.subarray(15)], new Array(records.length - 15).fill(0));
  const small = new Uint32Array(10);
  assert.equal(unpackLineRecords(packLineRecords(records, 7), small), 2);
  assert.deepEqual([...small], [...records.subarray(0, 10)]);
});

test("a page's records take at most 12 bytes a line, against 20 raw", () => {
  // Lines in tree order: identities growing by one to three, small depths, references on some.
  const lines = 8000;
  const records = new Uint32Array(lines * 5);
  let identity = 0;
  for (let line = 0; line < lines; line += 1) {
    identity += 1 + (line % 3);
    records.set(
      [identity, line % 12, (line * 2654435761) >>> 0, (line * 40503) >>> 0, line % 2 === 0 ? line / 2 : 0],
      line * 5,
    );
  }
  const packed = packLineRecords(records, lines);
  assert.ok(packed.length <= lines * 12, `${packed.length} bytes for ${lines} lines`);
  const into = new Uint32Array(records.length);
  assert.equal(unpackLineRecords(packed, into), lines);
  assert.deepEqual([...into], [...records]);
});

test("damaged bytes are refused", () => {
  const packed = packLineRecords(sampleRecords(), 7);
  const into = new Uint32Array(35);
  // Cut inside the last record's hash, and a varint that never ends.
  assert.equal(unpackLineRecords(packed.subarray(0, packed.length - 4), into), -1);
  assert.equal(unpackLineRecords(Uint8Array.of(0x80, 0x80, 0x80, 0x80, 0x80, 0x80), into), -1);
  assert.equal(unpackLineRecords(new Uint8Array(0), into), 0);
});

// Lengths counted by Python's len() (code points), which is Rust's `str::chars().count()`.
test("a line's length counts Unicode scalars, as the core counts maxChars", () => {
  const cases = [
    ["", 0],
    ['button "Buy" [ref_3]', 20],
    // A family: four people joined by three zero-width joiners, 11 UTF-16 units.
    ["\u{1F468}\u200D\u{1F469}\u200D\u{1F467}\u200D\u{1F466}", 7],
    // A flag: two regional indicators, 4 units.
    ["\u{1F1EB}\u{1F1F7}", 2],
    // Mathematical letters from the astral plane, 14 units.
    ["\u{1D518}\u{1D52B}\u{1D526}\u{1D520}\u{1D52C}\u{1D521}\u{1D522}", 7],
    // A combining accent is a scalar of its own.
    ["e\u0301", 2],
    ['button "Say \u{1F44B}\u{1F3FD}" [ref_3]', 23],
  ];
  for (const [line, scalars] of cases) assert.equal(lineLength(line), scalars, JSON.stringify(line));
  assert.deepEqual(
    [...lineLengths(cases.map(([line]) => line))],
    cases.map(([, scalars]) => scalars),
  );
});

test("a line's length is its count of code points for any mix of emoji, joiners and astral text", () => {
  // A deterministic generator (a linear congruential one): the same lines on every run.
  let seed = 0x2545f491;
  const next = (/** @type {number} */ bound) => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return seed % bound;
  };
  const pieces = [
    "a",
    " ",
    '"',
    "é",
    "\u200D",
    "\uFE0F",
    "\u{1F600}",
    "\u{1F3FD}",
    "\u{1D518}",
    "\u{10FFFF}",
    "\uFFFD",
    "中",
  ];
  for (let round = 0; round < 2000; round += 1) {
    let line = "";
    const length = next(40);
    for (let piece = 0; piece < length; piece += 1) line += pieces[next(pieces.length)];
    assert.equal(lineLength(line), [...line].length, JSON.stringify(line));
  }
});
