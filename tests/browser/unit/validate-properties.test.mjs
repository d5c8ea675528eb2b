// Property test of the extension's argument validator (extension/background/tools/validate.js) over
// the whole tool contract (extension/shared/tool-contract.json): for every tool, random argument
// objects (values near and past each limit, wrong types, code points outside the BMP, hostile
// URLs and key names, unknown and prototype-named keys, non-objects), read from JSON as they
// arrive on the wire. Properties: the validator never throws; a refusal is a structured
// `invalid_arguments` error with a message and a hint; whatever it accepts satisfies the
// contract, checked here by a second reading of the contract's rules.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { validateArguments } from "../../../extension/background/tools/validate.js";
import { propertySeeds, seededRandom } from "../seeded-random.mjs";

const CONTRACT = JSON.parse(readFileSync(new URL("../../../extension/shared/tool-contract.json", import.meta.url), "utf8"));
const TOOLS = Object.keys(CONTRACT.tools);

const URLS = [
  "https://example.com/",
  "http://127.0.0.1:8080/a?b#c",
  "file:///etc/passwd",
  "about:blank",
  "about:config",
  "javascript:alert(1)",
  "JavaScript:alert(1)",
  " javascript:alert(1)",
  "data:text/html,<p>x</p>",
  "chrome://settings",
  "chrome-extension://abc/page.html",
  "moz-extension://abc/page.html",
  "view-source:https://example.com/",
  "blob:https://example.com/uuid",
  "HTTPS://EXAMPLE.COM",
  "https://exämple.test/😀",
  "//example.com",
  "example.com",
  "",
];
const KEY_NAMES = ["Enter", "enter", "ENTER", "a", "😀", "Control+a", "esc", "Escape", "F13", "", " ", "Tab", "tab"];
const PROTOTYPE_NAMES = ["__proto__", "constructor", "toString", "hasOwnProperty", "valueOf"];

/** A value for one argument: often one the rule accepts, often one just past a limit or of another type. */
function valueFor(random, rule) {
  if (random.chance(0.15)) return random.pick([null, true, 3, -1, 1.5, "x", [], {}, [1], { a: 1 }]);
  switch (rule.type) {
    case "integer":
      return random.pick([
        rule.minimum,
        rule.maximum,
        (rule.minimum ?? 0) - 1,
        (rule.maximum ?? 0) + 1,
        random.int(rule.minimum ?? -1000, rule.maximum ?? 1000),
        0,
        -0,
        2 ** 53,
        1e308,
        0.5,
        String(rule.minimum ?? 1),
      ]);
    case "boolean":
      return random.pick([true, false, "true", 1, 0]);
    case "array": {
      if (rule.items !== undefined) return objectListFor(random, rule);
      const choices = rule.enum ?? [];
      const items = Array.from({ length: random.int(0, choices.length + 1) }, () =>
        random.chance(0.85) ? random.pick(choices) : random.string(6),
      );
      return random.chance(0.1) ? random.pick(choices) : items;
    }
    default:
      return stringFor(random, rule);
  }
}

/** A list of objects (fill_form's fields): lengths near the limits, members valid or not, repeats. */
function objectListFor(random, rule) {
  const length = random.pick([0, 1, 2, 5, rule.maxItems ?? 3, (rule.maxItems ?? 3) + 1]);
  const items = [];
  for (let index = 0; index < length; index += 1) {
    if (random.chance(0.03)) {
      items.push(random.pick([null, "x", 3, [], [{}]]));
      continue;
    }
    const item = {};
    for (const [member, memberRule] of Object.entries(rule.items)) {
      if (random.chance(0.97)) item[member] = valueFor(random, memberRule);
    }
    // Distinct by default, sometimes a repeat of an earlier item's key.
    if (rule.uniqueBy !== undefined && typeof item[rule.uniqueBy] === "string" && random.chance(0.9)) {
      item[rule.uniqueBy] = random.chance(0.05) && index > 0 ? items[0]?.[rule.uniqueBy] : `ref_${index}`;
    }
    if (random.chance(0.03)) item[random.pick(PROTOTYPE_NAMES)] = random.json(1);
    items.push(item);
  }
  return items;
}

function stringFor(random, rule) {
  if (rule.enum !== undefined && random.chance(0.6)) {
    const choice = random.pick(rule.enum);
    return random.chance(0.8) ? choice : choice.toUpperCase();
  }
  if (rule.format === "navigableUrl" && random.chance(0.7)) return random.pick(URLS);
  if (rule.format === "keyName" && random.chance(0.7)) return random.pick(KEY_NAMES);
  if (rule.example !== undefined && typeof rule.example === "string" && random.chance(0.4)) {
    return random.chance(0.7) ? rule.example : rule.example + random.string(3);
  }
  if (rule.maxLength !== undefined && random.chance(0.3)) {
    // Exactly at the limit or one past it, in code points that are two UTF-16 units each.
    const length = rule.maxLength + random.int(0, 1);
    return random.chance(0.5) ? "😀".repeat(length) : "a".repeat(length);
  }
  return random.string(random.pick([0, 1, 8, 40]));
}

/** The arguments as the wire delivers them: JSON text parsed, so `__proto__` is an own key. */
function argumentsFor(random, tool) {
  if (random.chance(0.05)) return random.pick([undefined, null, [], "text", 7, true, [{ a: 1 }]]);
  const rules = Object.hasOwn(CONTRACT.tools, tool) ? CONTRACT.tools[tool].arguments : {};
  const pairs = [];
  for (const [name, rule] of Object.entries(rules)) {
    if (rule.required ? random.chance(0.95) : random.chance(0.5)) pairs.push([name, valueFor(random, rule)]);
  }
  if (random.chance(0.1)) pairs.push([random.pick(PROTOTYPE_NAMES), random.json(1)]);
  if (random.chance(0.1)) pairs.push([random.string(8), random.json(1)]);
  const text = `{${pairs.map(([name, value]) => `${JSON.stringify(name)}:${JSON.stringify(value) ?? "null"}`).join(",")}}`;
  return JSON.parse(text);
}

/** A second reading of the contract's rules: why `value` breaks them, or null. */
function contractBreach(entry, given, value) {
  const isGiven = (name) => given?.[name] !== undefined && given?.[name] !== null && Object.hasOwn(given, name);
  for (const key of Object.keys(value)) if (!Object.hasOwn(entry.arguments, key)) return `unknown ${key}`;
  for (const key of Object.keys(given ?? {})) if (!Object.hasOwn(entry.arguments, key)) return `accepted unknown ${key}`;
  for (const [name, rule] of Object.entries(entry.arguments)) {
    if (!Object.hasOwn(value, name)) {
      if (rule.required) return `${name} is required`;
      continue;
    }
    const item = value[name];
    if (isGiven(name) && item !== given[name]) return `${name} is not the value given`;
    if (!isGiven(name) && JSON.stringify(item) !== JSON.stringify(rule.default)) return `${name} is not its default`;
    if (!isGiven(name)) continue;
    const breach = ruleBreach(rule, item);
    if (breach !== null) return `${name}: ${breach}`;
  }
  for (const group of entry.exactlyOneOf ?? []) {
    if (group.filter(isGiven).length !== 1) return `not exactly one of ${group}`;
  }
  for (const group of entry.atLeastOneOf ?? []) {
    if (!group.some(isGiven)) return `none of ${group}`;
  }
  for (const { argument, with: withArgument } of entry.onlyWith ?? []) {
    if (isGiven(argument) && !isGiven(withArgument)) return `${argument} without ${withArgument}`;
  }
  for (const { argument, when } of entry.requiredWhen ?? []) {
    const applies = Object.entries(when).every(([name, wanted]) => given?.[name] === wanted);
    if (applies && !isGiven(argument)) return `${argument} is required when ${JSON.stringify(when)}`;
  }
  return null;
}

function ruleBreach(rule, item) {
  switch (rule.type) {
    case "integer":
      if (!Number.isInteger(item)) return "not an integer";
      if (rule.minimum !== undefined && item < rule.minimum) return "below the minimum";
      if (rule.maximum !== undefined && item > rule.maximum) return "above the maximum";
      return null;
    case "boolean":
      return typeof item === "boolean" ? null : "not a boolean";
    case "array":
      if (!Array.isArray(item)) return "not a list";
      if (rule.items !== undefined) return objectListBreach(rule, item);
      if (item.some((entry) => !rule.enum.includes(entry))) return "an item outside the enum";
      return new Set(item).size === item.length ? null : "a repeated item";
    default: {
      if (typeof item !== "string") return "not a string";
      const codePoints = [...item].length;
      if (rule.maxLength !== undefined && codePoints > rule.maxLength) return "too long";
      if (rule.minLength !== undefined && codePoints < rule.minLength) return "too short";
      if (rule.enum !== undefined && !rule.enum.includes(item)) return "outside the enum";
      if (rule.pattern !== undefined && !new RegExp(rule.pattern, "u").test(item)) return "does not match the pattern";
      if (rule.format === "navigableUrl") {
        const url = URL.canParse(item) ? new URL(item) : null;
        if (url === null) return "not a URL";
        if (!["http:", "https:", "file:"].includes(url.protocol) && url.href !== "about:blank") return `scheme ${url.protocol}`;
      }
      if (rule.format === "keyName" && codePoints > 1 && item.includes("+")) return "a key combination";
      return null;
    }
  }
}

function objectListBreach(rule, list) {
  if (list.length < (rule.minItems ?? 0)) return "too few items";
  if (list.length > (rule.maxItems ?? Infinity)) return "too many items";
  const keys = new Set();
  for (const item of list) {
    if (typeof item !== "object" || item === null || Array.isArray(item)) return "an item that is not an object";
    for (const member of Object.keys(item)) if (!Object.hasOwn(rule.items, member)) return `an unknown member ${member}`;
    for (const [member, memberRule] of Object.entries(rule.items)) {
      if (item[member] === undefined || item[member] === null) {
        if (memberRule.required) return `a missing ${member}`;
        continue;
      }
      const breach = ruleBreach(memberRule, item[member]);
      if (breach !== null) return `${member}: ${breach}`;
    }
    if (rule.uniqueBy !== undefined && item[rule.uniqueBy] != null) {
      if (keys.has(item[rule.uniqueBy])) return "a repeated key";
      keys.add(item[rule.uniqueBy]);
    }
  }
  return null;
}

test("every tool's validator refuses cleanly or accepts only what the contract allows", () => {
  let accepted = 0;
  let refused = 0;
  for (const seed of propertySeeds(4000)) {
    const random = seededRandom(seed);
    const tool = random.chance(0.03) ? random.pick([...PROTOTYPE_NAMES, random.string(10)]) : random.pick(TOOLS);
    const given = argumentsFor(random, tool);
    let outcome;
    try {
      outcome = validateArguments(CONTRACT, tool, given);
    } catch (error) {
      assert.fail(`seed ${seed}: ${tool}(${JSON.stringify(given)}) threw ${error.stack}`);
    }
    if (outcome.ok) {
      accepted += 1;
      const breach = contractBreach(CONTRACT.tools[tool], given, outcome.value);
      assert.equal(breach, null, `seed ${seed}: ${tool}(${JSON.stringify(given)}) accepted: ${breach}`);
    } else {
      refused += 1;
      assert.equal(outcome.error.code, "invalid_arguments", `seed ${seed}`);
      assert.equal(typeof outcome.error.message, "string", `seed ${seed}`);
      assert.ok(outcome.error.hint.length > 0, `seed ${seed}: a refusal without a hint`);
    }
  }
  // Both sides are exercised (a generator that only makes refusals proves little).
  if (process.env.ALLWRIGHT_PROPERTY_SEED === undefined) assert.ok(accepted > 100 && refused > 100, `${accepted} accepted, ${refused} refused`);
});
