// Property test of the call log's redaction (extension/background/side-panel/call-redaction.js), driven as
// extension/background/side-panel/call-log.js drives it: each call's arguments when it starts, then
// `remember`, then its arguments and its result or error when it ends. Secrets are planted two
// ways: texts typed into fields that are sensitive (or not known to be ordinary), later echoed
// anywhere in other calls' arguments, results and errors (whole, inside longer text, as object
// keys, in lists, deep, across the 20,000-character cut); and values under secret-named keys
// (`password`, `newPassword`, `api_token`, `pin`, `files`...), of any JSON type. Properties: no
// secret appears in any string (key or value) of anything the log keeps, nor any secret-named
// value; the log of any one value is bounded in size, however large or deep the value.
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  createRedactor,
  MOST_KEPT_CHARACTERS,
  MOST_KEPT_MEMBERS,
  REDACTED,
} from "../../../extension/background/side-panel/call-redaction.js";
import { propertySeeds, seededRandom } from "../seeded-random.mjs";

const TYPING_TOOLS = ["type_ax", "set_field", "iframe_type"];
const OTHER_TOOLS = ["get_accessibility_tree", "execute_js", "navigate", "click_ax", "custom_bridge_tool"];
const SECRET_KEYS = ["password", "newPassword", "PASSWD", "passphrase", "client_secret", "api_token", "Credential", "cardNumber", "card_number", "otp", "CVC", "csc", "pin", "file", "files"];
const ORDINARY_KEYS = ["label", "value", "text", "message", "hint", "tree", "name", "url", "ref_id", "items", "a", ""];

/** Every string in `value`, keys included. */
function stringsIn(value, found = []) {
  if (typeof value === "string") found.push(value);
  else if (Array.isArray(value)) for (const item of value) stringsIn(item, found);
  else if (typeof value === "object" && value !== null) {
    for (const [key, item] of Object.entries(value)) {
      found.push(key);
      stringsIn(item, found);
    }
  }
  return found;
}

/** Every primitive in `value` (numbers, booleans), to find a secret-named number kept. */
function primitivesIn(value, found = []) {
  if (Array.isArray(value)) for (const item of value) primitivesIn(item, found);
  else if (typeof value === "object" && value !== null) for (const item of Object.values(value)) primitivesIn(item, found);
  else found.push(value);
  return found;
}

/**
 * A typed secret: `§` (which nothing else here writes, so a secret never matches the log's own
 * notes) and 3 to 12 awkward characters.
 */
const typedSecret = (random) =>
  `§${Array.from({ length: random.int(3, 12) }, () => random.string(1) || "s").join("")}`;
/** A secret-named field's value: any JSON type, its strings marked with `¤`. */
function namedSecret(random) {
  return random.pick([
    () => `¤${random.string(random.int(0, 10))}`,
    () => 400_000 + random.int(0, 99_999),
    () => [`¤${random.string(4)}`, `¤${random.string(4)}`],
    () => ({ inner: `¤${random.string(4)}` }),
  ])();
}

/**
 * A random value with `echoed` secrets planted in it, up to `depth` levels deep and of at most
 * about `budget.nodes` values.
 */
function valueWithSecrets(random, echoed, plantedNamed, depth, budget = { nodes: 150 }) {
  budget.nodes -= 1;
  const plant = () => {
    if (echoed.length === 0 || random.chance(0.4)) return random.string(8);
    const secret = random.pick(echoed);
    return random.pick([
      () => secret,
      () => `${random.string(5)}${secret}${random.string(5)}`,
      () => `${secret}${secret}`,
      // Across the 20,000-character cut.
      () => `${"x".repeat(20_000 - random.int(0, secret.length))}${secret}${"y".repeat(10)}`,
    ])();
  };
  if (depth <= 0 || budget.nodes <= 0 || random.chance(0.25)) return random.chance(0.8) ? plant() : random.json(0);
  if (random.chance(0.3)) {
    return Array.from({ length: random.int(0, 4) }, () => valueWithSecrets(random, echoed, plantedNamed, depth - 1, budget));
  }
  const object = {};
  for (let count = random.int(0, 4); count > 0; count -= 1) {
    const kind = random.int(0, 9);
    if (kind === 0) {
      const named = namedSecret(random);
      plantedNamed.push(named);
      object[random.pick(SECRET_KEYS)] = named;
    } else if (kind === 1) {
      object[plant()] = random.json(1);
    } else {
      object[random.pick(ORDINARY_KEYS)] = valueWithSecrets(random, echoed, plantedNamed, depth - 1, budget);
    }
  }
  return object;
}

function assertNothingSecret(kept, typed, plantedNamed, context) {
  for (const text of stringsIn(kept)) {
    for (const secret of typed) assert.ok(!text.includes(secret), `${context}: typed secret ${JSON.stringify(secret)} kept in ${JSON.stringify(text.slice(0, 200))}`);
    for (const named of plantedNamed) {
      for (const part of stringsIn(named).filter((text) => text.startsWith("¤"))) {
        if (part.length > 1) assert.ok(!text.includes(part), `${context}: secret-named value ${JSON.stringify(part)} kept`);
      }
    }
  }
  const numbers = new Set(plantedNamed.filter((named) => typeof named === "number"));
  for (const primitive of primitivesIn(kept)) assert.ok(!numbers.has(primitive), `${context}: secret-named number ${primitive} kept`);
}

test("no typed secret and no secret-named value survives anywhere in the call log", () => {
  for (const seed of propertySeeds(600)) {
    const random = seededRandom(seed);
    const redact = createRedactor();
    /** Texts typed into fields that were not known to be ordinary (long enough to scrub). */
    const typed = [];
    const plantedNamed = [];
    for (let call = random.int(1, 8); call > 0; call -= 1) {
      const context = `seed ${seed}`;
      if (random.chance(0.4)) {
        const tool = random.pick(TYPING_TOOLS);
        const text = typedSecret(random);
        const rawArguments = { ref_id: `ref_${random.int(1, 9)}`, text };
        const outcome = random.pick([
          { ok: true, result: { sensitive: true, value: text } },
          { ok: true, result: { value: text, note: `typed ${text}` } },
          { ok: true, result: { sensitive: false, value: text } },
          { ok: false, error: { code: "script_failed", message: `could not type ${text}`, hint: text } },
        ]);
        const secret = !(outcome.ok && outcome.result.sensitive === false);
        const started = redact.arguments(tool, rawArguments, undefined);
        assertNothingSecret(started, secret ? [...typed, text] : typed, plantedNamed, `${context}: ${tool} starting`);
        redact.remember(tool, rawArguments, outcome.ok ? outcome.result : undefined);
        if (secret) typed.push(text);
        if (outcome.ok) {
          assertNothingSecret(redact.arguments(tool, rawArguments, outcome.result), typed, plantedNamed, `${context}: ${tool} arguments`);
          assertNothingSecret(redact.result(tool, outcome.result), typed, plantedNamed, `${context}: ${tool} result`);
        } else {
          assertNothingSecret(redact.error(outcome.error), typed, plantedNamed, `${context}: ${tool} error`);
        }
        continue;
      }
      const tool = random.pick(OTHER_TOOLS);
      const rawArguments = valueWithSecrets(random, typed, plantedNamed, 4);
      const result = valueWithSecrets(random, typed, plantedNamed, 16);
      assertNothingSecret(redact.arguments(tool, rawArguments, undefined), typed, plantedNamed, `${context}: ${tool} arguments`);
      assertNothingSecret(redact.result(tool, result), typed, plantedNamed, `${context}: ${tool} result`);
      // An error message quoting the result's text (not its secret-named values: those are
      // secrets only under their names).
      const quoted = stringsIn(result).filter((text) => !text.includes("¤"));
      const error = { code: "script_failed", message: quoted.join(" ").slice(0, 30_000), detail: result };
      assertNothingSecret(redact.error(error), typed, plantedNamed, `${context}: ${tool} error`);
    }
  }
});

test("a typed secret echoed as a field name is scrubbed from the name", () => {
  const redact = createRedactor();
  // A typed text with no secret word in it: a name that says "otp" is redacted as a whole anyway.
  redact.remember("type_ax", { text: "424242-zulu" }, { sensitive: true });
  const kept = redact.result("execute_js", { result: { "424242-zulu": true, "code 424242-zulu sent": 1 } });
  assert.deepEqual(kept, { result: { [REDACTED]: true, [`code ${REDACTED} sent`]: 1 } });
});

test("the log of one value is bounded, however large, wide, deep or long-named the value", () => {
  // JSON may write a character as six bytes (\u0000); each member adds a name, punctuation and
  // at most one note.
  const bound = 6 * MOST_KEPT_CHARACTERS + (MOST_KEPT_MEMBERS + 1) * 100;
  let deep = { leaf: "x" };
  for (let level = 0; level < 10_000; level += 1) deep = { level: deep };
  const wide = Object.fromEntries(Array.from({ length: 50_000 }, (_, index) => [`field${index}`, `value ${index}`]));
  const values = [
    Array.from({ length: 100_000 }, (_, index) => `item ${index}`),
    wide,
    { ["k".repeat(1_000_000)]: 1 },
    { tree: "\u0000".repeat(1_000_000) },
    Array.from({ length: 5_000 }, () => "y".repeat(20_000)),
    deep,
    Array.from({ length: 2_000 }, () => ({ password: "p", ["n".repeat(5_000)]: ["z".repeat(5_000)] })),
  ];
  const redact = createRedactor();
  for (const value of values) {
    for (const kept of [redact.result("get_accessibility_tree", value), redact.arguments("custom", value, {}), redact.error(value)]) {
      const size = JSON.stringify(kept).length;
      assert.ok(size <= bound, `${size} characters logged, more than ${bound}`);
    }
  }
});
