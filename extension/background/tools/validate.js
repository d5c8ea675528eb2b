// @ts-check
// The one argument validator of the extension: it checks a tool call against the tool contract
// (extension/shared/tool-contract.json, generated from the host's tool table; ARCHITECTURE.md,
// "Invariants") before anything touches a tab. Pure, so it is unit-tested in Node.
//
// The host validates against the same table first; the extension checks again because it is the
// last stop before a page and a message can reach it from any host version. Content scripts then
// trust what passed here (docs/protocol/channels.md, section 3).

import "../../shared/messages.js";
import { COMMON_NAMED_KEYS, KEY_SPELLINGS } from "../../shared/generated/key-names.js";

/**
 * One argument's rule, as the contract writes it. `enum`, `minimum`, `maximum` and `pattern`
 * follow JSON Schema's meaning; `minLength`/`maxLength` count Unicode code points; an "array"
 * rule's `enum` applies to its items, which must be unique; an "array" rule with `items` is a
 * list of `minItems` to `maxItems` objects whose members are `items`' rules (no others), no two
 * sharing their `uniqueBy` member; an "object" rule is one object whose members are `properties`'
 * rules (no others); `format` names a check below.
 * @typedef {{type: "string"|"integer"|"number"|"boolean"|"array"|"object", required?: boolean, enum?: string[],
 *   minimum?: number, maximum?: number, minLength?: number, maxLength?: number, pattern?: string,
 *   format?: "navigableUrl"|"keyName", minItems?: number, maxItems?: number, itemMaxLength?: number, uniqueBy?: string,
 *   items?: Record<string, ArgumentRule>, properties?: Record<string, ArgumentRule>, example?: unknown,
 *   default?: unknown}} ArgumentRule
 */

/**
 * One tool of the contract. `exactlyOneOf` lists groups of arguments of which exactly one must
 * be given; `requiredWhen` makes an argument required when others have given values.
 * @typedef {{readOnly: boolean, destructive: boolean, tiers: string[], devTiers: string[],
 *   arguments: Record<string, ArgumentRule>, exactlyOneOf?: string[][], atLeastOneOf?: string[][],
 *   onlyWith?: {argument: string, with: string}[],
 *   requiredWhen?: {argument: string, when: Record<string, unknown>}[]}} ToolContractEntry
 * @typedef {{generatedFrom: string, tools: Record<string, ToolContractEntry>}} ToolContract
 */

/**
 * @typedef {{message: string, hint: string, suggestions?: string[]}} Problem
 * @typedef {{ok: true, value: Record<string, unknown>}|{ok: false, error: ToolError}} Validation
 */

const messages = globalThis.allwrightMessages;

/** @type {Promise<ToolContract>|null} */
let contractPromise = null;

/**
 * The contract shipped with the extension, read once per background lifetime. It is derived
 * from a file of the extension, so losing it with a stopped service worker costs only a reread.
 * @param {(path: string) => string} fileUrl the extension API's runtime.getURL
 * @returns {Promise<ToolContract>}
 */
export function loadToolContract(fileUrl) {
  contractPromise ??= fetch(fileUrl("shared/tool-contract.json"))
    .then((response) => response.json())
    .catch((error) => {
      contractPromise = null;
      throw error;
    });
  return contractPromise;
}

/**
 * Validates a tool call's arguments against the contract. Absent and null arguments are the
 * same thing (clients often send null for "not given"); defaults are filled in; unknown
 * arguments are refused, so a misspelt argument is reported instead of silently ignored.
 * @param {ToolContract} contract
 * @param {string} tool
 * @param {unknown} input
 * @returns {Validation}
 */
export function validateArguments(contract, tool, input) {
  const entry = Object.hasOwn(contract.tools, tool) ? contract.tools[tool] : undefined;
  if (entry === undefined) {
    return refuse(
      `unknown tool ${JSON.stringify(tool)}`,
      "Call one of the tools this extension serves.",
      Object.keys(contract.tools),
    );
  }
  const schema = entry.arguments;
  const args = /** @type {Record<string, unknown>} */ (input ?? {});
  if (typeof args !== "object" || Array.isArray(args)) {
    return refuse(`${tool}: arguments must be an object`, `Pass named arguments, e.g. ${exampleCall(tool, schema)}.`);
  }
  const names = Object.keys(schema);
  for (const key of Object.keys(args)) {
    if (!Object.hasOwn(schema, key)) {
      return refuse(
        `${tool}: unknown argument ${JSON.stringify(key)}`,
        `Accepted arguments: ${names.join(", ")}.`,
        closestNames(key, names),
      );
    }
  }
  /** @type {Record<string, unknown>} */
  const value = {};
  for (const [name, rule] of Object.entries(schema)) {
    const given = args[name];
    if (given === undefined || given === null) {
      if (rule.required) {
        return refuse(`${tool}: argument ${name} is required`, `Pass ${name}, e.g. ${exampleCall(tool, schema)}.`);
      }
      if (rule.default !== undefined) value[name] = structuredClone(rule.default);
      continue;
    }
    const problem = checkRule(name, rule, given);
    if (problem !== null) return refuse(`${tool}: ${problem.message}`, problem.hint, problem.suggestions);
    value[name] = given;
  }
  const problem = checkCrossArgumentRules(entry, args);
  if (problem !== null) return refuse(`${tool}: ${problem.message}`, problem.hint);
  return { ok: true, value };
}

/**
 * The rules that tie arguments together, checked on the arguments as given (before defaults).
 * @param {ToolContractEntry} entry
 * @param {Record<string, unknown>} args
 * @returns {Problem|null}
 */
function checkCrossArgumentRules(entry, args) {
  const isGiven = (/** @type {string} */ name) => args[name] !== undefined && args[name] !== null;
  for (const group of entry.exactlyOneOf ?? []) {
    const given = group.filter(isGiven);
    if (given.length === 1) continue;
    const choices = group.map((name) => `${name} (e.g. ${JSON.stringify(entry.arguments[name]?.example)})`);
    return {
      message: given.length === 0 ? `give ${group.join(" or ")}` : `give ${group.join(" or ")}, not both`,
      hint: `Pass exactly one: ${choices.join(" or ")}.`,
    };
  }
  for (const group of entry.atLeastOneOf ?? []) {
    if (group.some(isGiven)) continue;
    const choices = group.map((name) => `${name} (e.g. ${JSON.stringify(entry.arguments[name]?.example)})`);
    return {
      message: `give at least one of ${group.join(", ")}`,
      hint: `Pass one or more of: ${choices.join(", ")}.`,
    };
  }
  for (const { argument, with: withArgument } of entry.onlyWith ?? []) {
    if (!isGiven(argument) || isGiven(withArgument)) continue;
    return {
      message: `${argument} is given only with ${withArgument}`,
      hint: `Pass ${withArgument} too (e.g. ${JSON.stringify(entry.arguments[withArgument]?.example)}), or leave ${argument} out.`,
    };
  }
  for (const { argument, when } of entry.requiredWhen ?? []) {
    const applies = Object.entries(when).every(([name, wanted]) => args[name] === wanted);
    if (!applies || isGiven(argument)) continue;
    const condition = Object.entries(when)
      .map(([name, wanted]) => `${name} ${JSON.stringify(wanted)}`)
      .join(" and ");
    return {
      message: `${condition} needs ${argument}`,
      hint: `Pass ${argument}, e.g. ${JSON.stringify(entry.arguments[argument]?.example)}.`,
    };
  }
  return null;
}

/**
 * @param {string} name
 * @param {ArgumentRule} rule
 * @param {unknown} given
 * @returns {Problem|null}
 */
function checkRule(name, rule, given) {
  const shown = JSON.stringify(given);
  if (rule.type === "integer") {
    if (typeof given !== "number" || !Number.isInteger(given)) {
      return { message: `${name} must be an integer, got ${shown}`, hint: rangeHint(name, rule) };
    }
    if ((rule.minimum !== undefined && given < rule.minimum) || (rule.maximum !== undefined && given > rule.maximum)) {
      return { message: `${name} ${given} is out of range`, hint: rangeHint(name, rule) };
    }
    return null;
  }
  if (rule.type === "number") {
    if (typeof given !== "number" || !Number.isFinite(given)) {
      return { message: `${name} must be a number, got ${shown}`, hint: rangeHint(name, rule) };
    }
    if ((rule.minimum !== undefined && given < rule.minimum) || (rule.maximum !== undefined && given > rule.maximum)) {
      return { message: `${name} ${given} is out of range`, hint: rangeHint(name, rule) };
    }
    return null;
  }
  if (rule.type === "boolean") {
    if (typeof given === "boolean") return null;
    return {
      message: `${name} must be true or false, got ${shown}`,
      hint: `${name} is a JSON boolean: true or false.`,
    };
  }
  if (rule.type === "array" && rule.itemMaxLength !== undefined) return checkTextList(name, rule, given);
  if (rule.type === "array")
    return rule.items === undefined ? checkList(name, rule, given) : checkObjectList(name, rule, given);
  if (rule.type === "object") {
    const members = Object.keys(rule.properties ?? {});
    const hint = `${name} is an object {${members.join(", ")}}, e.g. ${JSON.stringify(rule.example)}.`;
    return checkMembers(name, rule.properties ?? {}, given, hint);
  }
  if (typeof given !== "string") {
    return { message: `${name} must be a string, got ${shown.slice(0, 100)}`, hint: stringHint(name, rule) };
  }
  const length = [...given].length;
  if (rule.maxLength !== undefined && length > rule.maxLength) {
    return {
      message: `${name} is ${length} characters long, over the limit of ${rule.maxLength}`,
      hint: `Pass at most ${rule.maxLength} characters; split longer text over several calls.`,
    };
  }
  if (rule.minLength !== undefined && length < rule.minLength) {
    return { message: `${name} must not be empty`, hint: stringHint(name, rule) };
  }
  if (rule.enum !== undefined && !rule.enum.includes(given)) {
    return {
      message: `${name} ${shown} is not one of ${rule.enum.join(", ")}`,
      hint: stringHint(name, rule),
      suggestions: rule.enum,
    };
  }
  if (rule.pattern !== undefined && !new RegExp(rule.pattern, "u").test(given)) {
    return { message: `${name} ${shown} is malformed`, hint: stringHint(name, rule) };
  }
  if (rule.format === "navigableUrl") return checkNavigableUrl(name, given);
  if (rule.format === "keyName") return checkKeyName(name, given);
  return null;
}

/**
 * A list of `minItems` to `maxItems` distinct strings, each of 1 to `itemMaxLength` characters
 * (upload_file's `paths`).
 * @param {string} name
 * @param {ArgumentRule} rule
 * @param {unknown} given
 * @returns {Problem|null}
 */
function checkTextList(name, rule, given) {
  const minimum = rule.minItems ?? 0;
  const maximum = rule.maxItems ?? Number.MAX_SAFE_INTEGER;
  const hint = `${name} is a list of ${minimum} to ${maximum} distinct strings, e.g. ${JSON.stringify(rule.example ?? ["a"])}.`;
  if (!Array.isArray(given))
    return { message: `${name} must be a list, got ${JSON.stringify(given)?.slice(0, 100)}`, hint };
  if (given.length < minimum || given.length > maximum) {
    return { message: `${name} holds ${given.length} items; it takes ${minimum} to ${maximum}`, hint };
  }
  for (const [index, item] of given.entries()) {
    if (typeof item !== "string" || item.length === 0 || [...item].length > (rule.itemMaxLength ?? 0)) {
      return {
        message: `${name}[${index}] must be a non-empty string of at most ${rule.itemMaxLength} characters`,
        hint,
      };
    }
  }
  if (new Set(given).size !== given.length) return { message: `${name} repeats an entry`, hint };
  return null;
}

/**
 * An array of unique strings, each one of `rule.enum`.
 * @param {string} name
 * @param {ArgumentRule} rule
 * @param {unknown} given
 * @returns {Problem|null}
 */
function checkList(name, rule, given) {
  const choices = rule.enum ?? [];
  const hint = `${name} is a list drawn from ${choices.map((v) => JSON.stringify(v)).join(", ")}, e.g. ["${choices[0]}"].`;
  if (!Array.isArray(given)) return { message: `${name} must be a list, got ${JSON.stringify(given)}`, hint };
  for (const item of given) {
    if (!choices.includes(item)) {
      return {
        message: `${name} has ${JSON.stringify(item)}, which is not one of ${choices.join(", ")}`,
        hint,
        suggestions: choices,
      };
    }
  }
  if (new Set(given).size !== given.length) return { message: `${name} repeats an entry`, hint };
  return null;
}

/**
 * A list of objects (fill_form's `fields`): each item has the members `rule.items` names and no
 * others, each checked by its own rule under its place in the list (`fields[2].value`), and no
 * two items share the `uniqueBy` member.
 * @param {string} name
 * @param {ArgumentRule} rule
 * @param {unknown} given
 * @returns {Problem|null}
 */
function checkObjectList(name, rule, given) {
  const members = Object.keys(rule.items ?? {});
  const minimum = rule.minItems ?? 0;
  const maximum = rule.maxItems ?? Number.MAX_SAFE_INTEGER;
  const hint = `${name} is a list of ${minimum} to ${maximum} objects {${members.join(", ")}}, e.g. ${JSON.stringify(rule.example)}.`;
  if (!Array.isArray(given))
    return { message: `${name} must be a list, got ${JSON.stringify(given)?.slice(0, 100)}`, hint };
  if (given.length < minimum) return { message: `${name} must hold at least ${minimum} item(s)`, hint };
  if (given.length > maximum) {
    return {
      message: `${name} holds ${given.length} items; the limit is ${maximum}`,
      hint: `Send at most ${maximum} items per call: the first ${maximum} now, the rest in another call.`,
    };
  }
  const seen = new Set();
  for (const [index, item] of given.entries()) {
    const itemName = `${name}[${index}]`;
    const problem = checkMembers(itemName, rule.items ?? {}, item, hint);
    if (problem !== null) return problem;
    if (rule.uniqueBy === undefined) continue;
    const key = item[rule.uniqueBy];
    if (key === undefined || key === null) continue;
    if (seen.has(key)) {
      return { message: `${itemName}.${rule.uniqueBy} repeats ${JSON.stringify(key)}: each may appear once`, hint };
    }
    seen.add(key);
  }
  return null;
}

/**
 * One object whose members are `rules`' (no others), each checked by its own rule under
 * `name.member`: an item of a list of objects, or an "object" argument (drag's `by`).
 * @param {string} name
 * @param {Record<string, ArgumentRule>} rules
 * @param {unknown} given
 * @param {string} hint
 * @returns {Problem|null}
 */
function checkMembers(name, rules, given, hint) {
  const members = Object.keys(rules);
  if (typeof given !== "object" || given === null || Array.isArray(given)) {
    return {
      message: `${name} must be an object {${members.join(", ")}}, got ${JSON.stringify(given)?.slice(0, 100)}`,
      hint,
    };
  }
  const object = /** @type {Record<string, unknown>} */ (given);
  const unknown = Object.keys(object).find((key) => !members.includes(key));
  if (unknown !== undefined) {
    return { message: `${name} has no member ${JSON.stringify(unknown)}`, hint, suggestions: members };
  }
  for (const [member, memberRule] of Object.entries(rules)) {
    const value = object[member];
    if (value === undefined || value === null) {
      if (memberRule.required) return { message: `${name}.${member} is missing`, hint };
      continue;
    }
    const problem = checkRule(`${name}.${member}`, memberRule, value);
    // A model often sends a check box's `true` as a JSON boolean: say what to send instead.
    if (problem !== null && memberRule.type === "string" && typeof value === "boolean") {
      return { ...problem, hint: `Every ${member} is a string: pass ${JSON.stringify(String(value))}.` };
    }
    if (problem !== null) return problem;
  }
  return null;
}

/**
 * White space as Rust's `char::is_whitespace` (Unicode's White_Space property) counts it, which
 * JS's `\s` does not quite (it adds U+FEFF and lacks U+0085).
 */
const WHITE_SPACE = /[\t-\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]/u;

/**
 * The `navigableUrl` format (docs/agent-tools.md, "The tool contract file"; the host's
 * `is_navigable_url` in src/tools/validation.rs): `about:blank`; `http://` or `https://` followed
 * by a host (not empty, not starting with `/`) with no white space anywhere; or `file://`
 * followed by a path. It refuses URLs the agent should not open through `navigate` or `new_tab`:
 * browser-internal pages, script and data URLs, and text that is not an absolute URL. The rule
 * is read on the text as given, as the host reads it: a URL parser would repair `https:host`, a
 * leading space or `HTTPS://`, which the host refuses.
 * @param {string} name
 * @param {string} value
 * @returns {Problem|null}
 */
function checkNavigableUrl(name, value) {
  if (isNavigableUrl(value)) return null;
  return {
    message: `${name} ${JSON.stringify(value)} is not an absolute http, https or file URL, nor about:blank`,
    hint: "Give an absolute http://, https:// or file:// URL (or about:blank), e.g. https://example.com/.",
  };
}

/** @param {string} value */
function isNavigableUrl(value) {
  if (value === "about:blank") return true;
  for (const scheme of ["http://", "https://"]) {
    if (!value.startsWith(scheme)) continue;
    const rest = value.slice(scheme.length);
    return rest !== "" && !rest.startsWith("/") && !WHITE_SPACE.test(value);
  }
  // `file:///path` (empty host) or `file://host/path`.
  return value.startsWith("file://") && value.slice("file://".length).includes("/");
}

/**
 * A key name in lower case, ASCII letters only, as the host compares names (Rust's
 * `eq_ignore_ascii_case`): `toLowerCase` would also fold letters such as the Kelvin sign (U+212A)
 * into ASCII ones, and correct a name the host lets pass.
 * @param {string} text
 */
const asciiLowerCase = (text) => text.replace(/[A-Z]/g, (letter) => letter.toLowerCase());

/**
 * The KeyboardEvent `key` value a name of more than one character stands for, when the host's
 * tables (src/tools/keys.rs, generated into shared/generated/key-names.js) know it: itself in the
 * right case, or what another spelling stands for.
 * @param {string} value
 * @returns {string|undefined}
 */
function knownKeyValue(value) {
  const lower = asciiLowerCase(value);
  return (
    COMMON_NAMED_KEYS.find((key) => asciiLowerCase(key) === lower) ??
    KEY_SPELLINGS.find(([spelling]) => asciiLowerCase(spelling) === lower)?.[1]
  );
}

/**
 * The `keyName` format: one KeyboardEvent key value, not a chord like "Control+a" (modifiers
 * have their own argument), and a known named key in its exact spelling.
 * @param {string} name
 * @param {string} value
 * @returns {Problem|null}
 */
function checkKeyName(name, value) {
  const length = [...value].length;
  if (length <= 1) return null;
  if (value.includes("+")) {
    return {
      message: `${name} ${JSON.stringify(value)} is a key combination, not one key`,
      hint: 'Pass one key and hold Alt, Control, Meta or Shift with modifiers, for example key "a" with modifiers ["Control"].',
    };
  }
  const known = knownKeyValue(value);
  if (known === undefined || known === value) return null;
  return {
    message: `${name} ${JSON.stringify(value)} is not a KeyboardEvent key value`,
    hint: `Use ${JSON.stringify(known)}: key values are case-sensitive and pages do not know other spellings.`,
    suggestions: [known],
  };
}

/**
 * @param {string} name
 * @param {ArgumentRule} rule
 */
function rangeHint(name, rule) {
  const kind = rule.type === "number" ? "a number" : "a whole number";
  if (rule.minimum !== undefined && rule.maximum !== undefined) {
    return `${name} is ${kind} from ${rule.minimum} to ${rule.maximum}.`;
  }
  if (rule.minimum !== undefined) return `${name} is ${kind}, at least ${rule.minimum}.`;
  return `${name} is ${kind}.`;
}

/**
 * @param {string} name
 * @param {ArgumentRule} rule
 */
function stringHint(name, rule) {
  if (rule.enum !== undefined) return `${name} is one of ${rule.enum.map((v) => JSON.stringify(v)).join(", ")}.`;
  if (rule.example !== undefined) return `${name} looks like ${JSON.stringify(rule.example)}.`;
  return `${name} is a string.`;
}

/**
 * @param {string} tool
 * @param {Record<string, ArgumentRule>} schema
 */
function exampleCall(tool, schema) {
  /** @type {Record<string, unknown>} */
  const example = {};
  for (const [name, rule] of Object.entries(schema)) {
    if (rule.required) example[name] = rule.example ?? "...";
  }
  return `${tool}(${JSON.stringify(example)})`;
}

/**
 * @param {string} message
 * @param {string} hint
 * @param {string[]} [suggestions]
 * @returns {Validation}
 */
function refuse(message, hint, suggestions) {
  const extra = suggestions !== undefined && suggestions.length > 0 ? { hint, suggestions } : { hint };
  return { ok: false, error: messages.toolError("invalid_arguments", message, extra) };
}

/**
 * The accepted names closest to a misspelt one (case-insensitive edit distance at most 3).
 * @param {string} wrong
 * @param {string[]} names
 */
export function closestNames(wrong, names) {
  /** @type {[string, number][]} */
  const scored = names.map((name) => [name, editDistance(wrong.toLowerCase(), name.toLowerCase())]);
  return scored
    .filter(([, distance]) => distance <= 3)
    .sort((a, b) => a[1] - b[1])
    .map(([name]) => name);
}

/**
 * @param {string} a
 * @param {string} b
 */
function editDistance(a, b) {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i += 1) {
    const current = [i];
    for (let j = 1; j <= b.length; j += 1) {
      current[j] = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length];
}
