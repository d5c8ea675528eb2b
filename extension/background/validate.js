// The tools' argument schemas (docs/protocol.md, "Tools") and the small validator that checks a
// call against them before anything touches a tab. Pure, so it is unit-tested in Node.
//
// The host's MCP layer publishes JSON Schemas for the same arguments, but the extension checks
// again: it is the last stop before a page, and a message can reach it from any host version.

/**
 * One argument's rule. `enum`, `minimum`, `maximum` and `pattern` follow JSON Schema's meaning;
 * `check` is a last test that returns a reason to refuse, or null.
 * `minLength`/`maxLength` count Unicode characters; an "array" rule's `enum` applies to its items,
 * which must be unique.
 * @typedef {{type: "string"|"integer"|"boolean"|"array", required?: boolean, enum?: string[],
 *   minimum?: number, maximum?: number, minLength?: number, maxLength?: number, pattern?: RegExp,
 *   example?: string, default?: unknown,
 *   check?: (value: unknown) => (null|{message: string, hint: string})}} ArgumentRule
 */

const TAB_ID = { type: "integer", minimum: 0 };
const FRAME_ID = { type: "integer", minimum: 0 };
const REF_ID = { type: "string", pattern: /^ref_[0-9]+$/, example: "ref_12" };
const REQUIRED_REF_ID = { ...REF_ID, required: true };
/** The longest text type_ax and set_field accept: far beyond any form field, short of abuse. */
const MAX_TEXT_CHARS = 50_000;
const TEXT = { type: "string", required: true, maxLength: MAX_TEXT_CHARS, example: "hello" };
const NAVIGATION_TIMEOUT = { type: "integer", minimum: 1_000, maximum: 300_000, default: 30_000 };

/** @type {Readonly<Record<string, Readonly<Record<string, ArgumentRule>>>>} */
export const TOOL_SCHEMAS = Object.freeze({
  get_accessibility_tree: Object.freeze({
    tabId: TAB_ID,
    frameId: { type: "integer", minimum: 0 },
    filter: { type: "string", enum: ["all", "visible", "interactive"], default: "all" },
    maxDepth: { type: "integer", minimum: 1, maximum: 100, default: 15 },
    maxChars: { type: "integer", minimum: 100, maximum: 1_000_000 },
    ref_id: REF_ID,
    page: { type: "integer", minimum: 1 },
  }),
  accessibility_snapshot: Object.freeze({
    tabId: TAB_ID,
    format: { type: "string", enum: ["json", "yaml"], default: "json" },
    mode: { type: "string", enum: ["ai"] },
    timeoutMs: { type: "integer", minimum: 100, maximum: 120_000, default: 10_000 },
  }),
  navigate: Object.freeze({
    tabId: TAB_ID,
    url: { type: "string", required: true, example: "https://example.com/", check: checkNavigableUrl },
    timeoutMs: NAVIGATION_TIMEOUT,
  }),
  click_ax: Object.freeze({ tabId: TAB_ID, frameId: FRAME_ID, ref_id: REQUIRED_REF_ID }),
  type_ax: Object.freeze({
    tabId: TAB_ID,
    frameId: FRAME_ID,
    ref_id: REQUIRED_REF_ID,
    text: TEXT,
    clear: { type: "boolean", default: true },
  }),
  set_field: Object.freeze({
    tabId: TAB_ID,
    frameId: FRAME_ID,
    ref_id: REQUIRED_REF_ID,
    text: TEXT,
    clear: { type: "boolean", default: true },
    submit: { type: "boolean", default: false },
  }),
  select_option: Object.freeze({
    tabId: TAB_ID,
    frameId: FRAME_ID,
    ref_id: REQUIRED_REF_ID,
    label: { type: "string", minLength: 1, maxLength: 1_000, example: "France" },
    value: { type: "string", minLength: 1, maxLength: 1_000, example: "fr" },
  }),
  hover: Object.freeze({ tabId: TAB_ID, frameId: FRAME_ID, ref_id: REQUIRED_REF_ID }),
  press_key: Object.freeze({
    tabId: TAB_ID,
    frameId: FRAME_ID,
    ref_id: REF_ID,
    key: { type: "string", required: true, minLength: 1, maxLength: 32, example: "Enter" },
    modifiers: { type: "array", enum: ["Alt", "Control", "Meta", "Shift"], default: [] },
  }),
  scroll: Object.freeze({
    tabId: TAB_ID,
    frameId: FRAME_ID,
    ref_id: REF_ID,
    direction: { type: "string", enum: ["up", "down", "left", "right"], default: "down" },
    amount: { type: "integer", minimum: 1, maximum: 100_000 },
    to: { type: "string", enum: ["top", "bottom", "into_view"] },
  }),
  go_back: Object.freeze({ tabId: TAB_ID, timeoutMs: NAVIGATION_TIMEOUT }),
  wait_for_stable: Object.freeze({
    tabId: TAB_ID,
    quietMs: { type: "integer", minimum: 100, maximum: 10_000, default: 500 },
    timeoutMs: { type: "integer", minimum: 500, maximum: 60_000, default: 10_000 },
  }),
  list_tabs: Object.freeze({}),
  new_tab: Object.freeze({
    tabId: TAB_ID,
    url: { type: "string", default: "about:blank", example: "https://example.com/", check: checkNavigableUrl },
    timeoutMs: NAVIGATION_TIMEOUT,
  }),
  select_tab: Object.freeze({ tabId: { ...TAB_ID, required: true, example: 12 } }),
  close_tab: Object.freeze({ tabId: TAB_ID }),
});

/**
 * Rules that tie several arguments together, checked after each argument passed its own rule.
 * @type {Readonly<Record<string, (value: Record<string, unknown>) => (null|{message: string, hint: string})>>}
 */
const CROSS_ARGUMENT_CHECKS = Object.freeze({
  select_option: (value) => {
    const given = ["label", "value"].filter((name) => value[name] !== undefined);
    if (given.length === 1) return null;
    return {
      message: given.length === 0 ? "give the option's label or its value" : "give label or value, not both",
      hint: "Pass exactly one: label (the text the option shows) or value (its value attribute).",
    };
  },
  scroll: (value) => {
    if (value.to === "into_view" && value.ref_id === undefined) {
      return { message: "to \"into_view\" needs ref_id", hint: "Pass the ref_id of the element to bring into view." };
    }
    return null;
  },
});

/** The schemes `navigate` accepts; `about:` only for about:blank. */
const NAVIGABLE_PROTOCOLS = new Set(["http:", "https:", "file:"]);

/**
 * Refuses URLs the agent should not open through `navigate`: browser-internal pages, script and
 * data URLs, and anything that does not parse.
 * @param {string} value
 */
export function checkNavigableUrl(value) {
  const hint = "Give an absolute http://, https:// or file:// URL (or about:blank), e.g. https://example.com/.";
  let url;
  try {
    url = new URL(value);
  } catch {
    return { message: `url ${JSON.stringify(value)} is not an absolute URL`, hint };
  }
  if (NAVIGABLE_PROTOCOLS.has(url.protocol) || url.href === "about:blank") return null;
  return { message: `url scheme ${url.protocol} is not allowed`, hint };
}

/**
 * Validates a tool call's arguments. Absent and null arguments are the same thing (clients
 * often send null for "not given"); defaults from the schema are filled in; unknown arguments
 * are refused, so a misspelt argument is reported instead of silently ignored.
 * @param {string} tool
 * @param {unknown} input
 * @returns {{ok: true, value: Record<string, unknown>}
 *   |{ok: false, error: {code: "invalid_arguments", message: string, hint?: string, suggestions?: string[]}}}
 */
export function validateArguments(tool, input) {
  const schema = Object.hasOwn(TOOL_SCHEMAS, tool) ? TOOL_SCHEMAS[tool] : undefined;
  if (schema === undefined) {
    return refuse(`unknown tool ${JSON.stringify(tool)}`,
      "Call one of the tools this extension serves.", Object.keys(TOOL_SCHEMAS));
  }
  const args = input ?? {};
  if (typeof args !== "object" || Array.isArray(args)) {
    return refuse(`${tool}: arguments must be an object`, `Pass named arguments, e.g. ${exampleCall(tool, schema)}.`);
  }
  const names = Object.keys(schema);
  for (const key of Object.keys(args)) {
    if (!Object.hasOwn(schema, key)) {
      return refuse(`${tool}: unknown argument ${JSON.stringify(key)}`,
        `Accepted arguments: ${names.join(", ")}.`, closestNames(key, names));
    }
  }
  const value = {};
  for (const [name, rule] of Object.entries(schema)) {
    const given = args[name];
    if (given === undefined || given === null) {
      if (rule.required) {
        return refuse(`${tool}: argument ${name} is required`, `Pass ${name}, e.g. ${exampleCall(tool, schema)}.`);
      }
      if (rule.default !== undefined) value[name] = rule.default;
      continue;
    }
    const problem = checkRule(name, rule, given);
    if (problem !== null) return refuse(`${tool}: ${problem.message}`, problem.hint, problem.suggestions);
    value[name] = given;
  }
  const problem = CROSS_ARGUMENT_CHECKS[tool]?.(value) ?? null;
  if (problem !== null) return refuse(`${tool}: ${problem.message}`, problem.hint);
  return { ok: true, value };
}

/**
 * @param {string} name
 * @param {ArgumentRule} rule
 * @param {unknown} given
 * @returns {null|{message: string, hint: string, suggestions?: string[]}}
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
  if (rule.type === "boolean") {
    if (typeof given === "boolean") return null;
    return { message: `${name} must be true or false, got ${shown}`, hint: `${name} is a JSON boolean: true or false.` };
  }
  if (rule.type === "array") return checkList(name, rule, given);
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
    return { message: `${name} ${shown} is not one of ${rule.enum.join(", ")}`, hint: stringHint(name, rule), suggestions: rule.enum };
  }
  if (rule.pattern !== undefined && !rule.pattern.test(given)) {
    return { message: `${name} ${shown} is malformed`, hint: stringHint(name, rule) };
  }
  return rule.check?.(given) ?? null;
}

/** An array of unique strings, each one of `rule.enum`. */
function checkList(name, rule, given) {
  const hint = `${name} is a list drawn from ${rule.enum.map((v) => JSON.stringify(v)).join(", ")}, e.g. ["${rule.enum[0]}"].`;
  if (!Array.isArray(given)) return { message: `${name} must be a list, got ${JSON.stringify(given)}`, hint };
  for (const item of given) {
    if (!rule.enum.includes(item)) {
      return { message: `${name} has ${JSON.stringify(item)}, which is not one of ${rule.enum.join(", ")}`, hint, suggestions: rule.enum };
    }
  }
  if (new Set(given).size !== given.length) return { message: `${name} repeats an entry`, hint };
  return null;
}

function rangeHint(name, rule) {
  if (rule.minimum !== undefined && rule.maximum !== undefined) {
    return `${name} is a whole number from ${rule.minimum} to ${rule.maximum}.`;
  }
  if (rule.minimum !== undefined) return `${name} is a whole number, at least ${rule.minimum}.`;
  return `${name} is a whole number.`;
}

function stringHint(name, rule) {
  if (rule.enum !== undefined) return `${name} is one of ${rule.enum.map((v) => JSON.stringify(v)).join(", ")}.`;
  if (rule.example !== undefined) return `${name} looks like ${JSON.stringify(rule.example)}.`;
  return `${name} is a string.`;
}

function exampleCall(tool, schema) {
  const example = {};
  for (const [name, rule] of Object.entries(schema)) {
    if (rule.required) example[name] = rule.example ?? "...";
  }
  return `${tool}(${JSON.stringify(example)})`;
}

function refuse(message, hint, suggestions) {
  const error = { code: "invalid_arguments", message };
  if (hint) error.hint = hint;
  if (suggestions !== undefined && suggestions.length > 0) error.suggestions = suggestions;
  return { ok: false, error };
}

/** The accepted names closest to a misspelt one (case-insensitive edit distance at most 3). */
export function closestNames(wrong, names) {
  const scored = names.map((name) => [name, editDistance(wrong.toLowerCase(), name.toLowerCase())]);
  return scored.filter(([, distance]) => distance <= 3).sort((a, b) => a[1] - b[1]).map(([name]) => name);
}

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
