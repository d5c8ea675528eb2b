// @ts-check
// A seeded random source for the extension's property tests (tests/browser/unit/*-properties.test.mjs):
// each test runs many rounds, each from its own seed, and a failure names the seed, so that
// `ALLWRIGHT_PROPERTY_SEED=<seed> node --test <file>` replays exactly that round.
// `ALLWRIGHT_PROPERTY_ROUNDS=<n>` runs more rounds than the default (a longer search).
// Not a test file itself (its name has no `.test.`), so `node --test tests/browser/unit/` skips it.

/**
 * mulberry32: a small, fast 32-bit generator, good enough to pick test inputs (not for secrets).
 * @param {number} seed
 */
function mulberry32(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let mixed = state;
    mixed = Math.imul(mixed ^ (mixed >>> 15), mixed | 1);
    mixed ^= mixed + Math.imul(mixed ^ (mixed >>> 7), mixed | 61);
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Characters that trip up text handling: quotes and backslashes (JSON escaping), control
 * characters, a line break, multi-byte UTF-8 (é, €), an astral character (two UTF-16 units, one
 * code point), lone surrogates, a combining mark, a right-to-left mark, and plain letters.
 */
const AWKWARD_CHARACTERS = [
  ..."abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 ",
  '"',
  "\\",
  "'",
  "\u0000",
  "\u001f",
  "\n",
  "\r",
  "\t",
  "é",
  "€",
  "😀",
  "\ud800",
  "\udc00",
  "\u0301",
  "\u200f",
  "/",
  ":",
  ".",
  "%",
  "+",
  "[",
  "]",
  "{",
  "}",
];

/**
 * @param {number} seed
 */
export function seededRandom(seed) {
  const next = mulberry32(seed);
  const random = {
    seed,
    /** A float in [0, 1). */
    float: next,
    /**
     * An integer from `low` to `high`, both included.
     * @param {number} low
     * @param {number} high
     */
    int: (low, high) => low + Math.floor(next() * (high - low + 1)),
    /** @param {number} probability */
    chance: (probability) => next() < probability,
    /**
     * @template T
     * @param {readonly T[]} items
     * @returns {T}
     */
    pick: (items) => items[Math.floor(next() * items.length)],
    /**
     * A string of up to `maxCodePoints` code points drawn from `alphabet`.
     * @param {number} maxCodePoints
     * @param {readonly string[]} [alphabet]
     */
    string: (maxCodePoints, alphabet = AWKWARD_CHARACTERS) => {
      const length = random.int(0, maxCodePoints);
      let text = "";
      for (let index = 0; index < length; index += 1) text += random.pick(alphabet);
      return text;
    },
    /**
     * A JSON-compatible value up to `depth` levels deep.
     * @param {number} depth
     * @returns {unknown}
     */
    json: (depth) => {
      const kind = random.int(0, depth > 0 ? 6 : 4);
      if (kind === 0) return null;
      if (kind === 1) return random.chance(0.5);
      if (kind === 2) return random.pick([0, -1, 1, 2 ** 31, -(2 ** 53), 1.5, 1e300]);
      if (kind === 3 || kind === 4) return random.string(12);
      if (kind === 5) return Array.from({ length: random.int(0, 4) }, () => random.json(depth - 1));
      /** @type {Record<string, unknown>} */
      const object = {};
      for (let index = random.int(0, 4); index > 0; index -= 1) object[random.string(6)] = random.json(depth - 1);
      return object;
    },
  };
  return random;
}

/** The seeds of a property test's rounds: one given seed, or `defaultRounds` seeds from 1. */
export function propertySeeds(defaultRounds) {
  const given = process.env.ALLWRIGHT_PROPERTY_SEED;
  if (given !== undefined && given !== "") return [Number(given)];
  const rounds = Number(process.env.ALLWRIGHT_PROPERTY_ROUNDS ?? defaultRounds);
  return Array.from({ length: rounds }, (_, index) => index + 1);
}
