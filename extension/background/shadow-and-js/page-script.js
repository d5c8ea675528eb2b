// @ts-check
// execute_js's page half (docs/protocol/shadow-and-execute-js.md, "execute_js"): one self-contained function that runs
// in the page's main world, injected by chrome.scripting / browser.scripting (`func`, world
// "MAIN") or sent as text to the Chrome DevTools Protocol (Runtime.callFunctionOn). It names
// nothing outside itself, since only its source text reaches the page.
//
// The page owns that world and may have replaced any built-in this function calls (JSON,
// Object.keys, Array.prototype...), so nothing here is trusted: the background parses the answer
// in its own realm and checks its size and shape again (background/shadow-and-js/execute-js.js). What the
// function guards against is the page's values, not its globals: getters that throw, proxies,
// cycles, toJSON methods (never called: our objects have no prototype), huge strings and deep
// or wide objects (a character budget and depth and width limits).

/**
 * @typedef {{outcome: "value", json: string, type: string, truncated: boolean}
 *   |{outcome: "thrown", message: string}
 *   |{outcome: "blocked", message: string}
 *   |{outcome: "timeout"}} PageScriptAnswer
 */

/**
 * "evaluate": evaluates `input` (the code, as text) with indirect eval, awaits a promise within
 * `timeoutMs`, and describes the value. "describe": describes `input` itself (the Chrome
 * debugger evaluated the code already).
 * @param {"evaluate"|"describe"} task
 * @param {unknown} input
 * @param {number} timeoutMs
 * @param {number} limit the most characters the described value may take
 * @returns {Promise<PageScriptAnswer>}
 */
export async function pageScript(task, input, timeoutMs, limit) {
  // The page's DOM interface (absent in the background, where this file is only read as text).
  const PageNode = globalThis.Node;
  const MAX_DEPTH = 20;
  const MAX_ENTRIES = 1000;
  let budget = limit;
  let truncated = false;
  const seen = new Set();
  const text = (/** @type {unknown} */ value) => {
    try {
      return String(value);
    } catch {
      return "[unprintable]";
    }
  };
  const spend = (/** @type {string} */ value) => {
    if (value.length + 2 <= budget) {
      budget -= value.length + 2;
      return value;
    }
    truncated = true;
    const kept = Math.max(0, budget - 3);
    budget = 0;
    return `${value.slice(0, kept)}…`;
  };
  const nodeLabel = (/** @type {any} */ node) => {
    if (node.nodeType === 1) {
      let label = `<${text(node.localName)}`;
      if (node.id) label += `#${text(node.id)}`;
      if (typeof node.className === "string" && node.className.trim() !== "") {
        label += `.${node.className.trim().split(/\s+/).slice(0, 5).join(".")}`;
      }
      return `${label}>`;
    }
    if (node.nodeType === 3) return `#text ${JSON.stringify(text(node.data).slice(0, 200))}`;
    return text(node.nodeName);
  };
  const typeOf = (/** @type {unknown} */ value) => {
    if (value === null) return "null";
    if (Array.isArray(value)) return "array";
    if (typeof PageNode === "function" && value instanceof PageNode) return "node";
    return typeof value;
  };
  /**
   * @param {any} value any value of the page, whatever its type: this function finds out which
   * @param {number} depth
   * @returns {unknown}
   */
  const walk = (value, depth) => {
    if (budget <= 0) {
      truncated = true;
      return null;
    }
    switch (typeof value) {
      case "undefined":
        return depth === 0 ? null : spend("[undefined]");
      case "string":
        return spend(value);
      case "boolean":
        budget -= 5;
        return value;
      case "number":
        budget -= 24;
        return Number.isFinite(value) ? value : text(value);
      case "bigint":
        return spend(`${text(value)}n`);
      case "symbol":
        return spend(text(value.description === undefined ? "Symbol()" : `Symbol(${value.description})`));
      case "function":
        return spend(`[function ${text(value.name) || "(anonymous)"}]`);
      default:
        break;
    }
    if (value === null) return null;
    if (seen.has(value)) return spend("[circular]");
    try {
      if (typeof PageNode === "function" && value instanceof PageNode) return spend(nodeLabel(value));
      if (value instanceof Promise) return spend("[promise]");
      if (value instanceof Error) return spend(`${text(value.name)}: ${text(value.message)}`);
      if (value instanceof Date) return spend(Number.isNaN(value.getTime()) ? "Invalid Date" : value.toISOString());
      if (value instanceof RegExp) return spend(text(value));
      if (depth >= MAX_DEPTH) return spend("[too deep]");
      seen.add(value);
      if (value instanceof Map || value instanceof Set) {
        /** @type {unknown[]} */
        const entries = [];
        Object.setPrototypeOf(entries, null);
        for (const entry of value instanceof Map ? value.entries() : value.values()) {
          if (entries.length >= MAX_ENTRIES || budget <= 0) {
            truncated = true;
            break;
          }
          entries[entries.length] =
            value instanceof Map ? walk([entry[0], entry[1]], depth + 1) : walk(entry, depth + 1);
        }
        seen.delete(value);
        return entries;
      }
      if (Array.isArray(value)) {
        /** @type {unknown[]} */
        const items = [];
        Object.setPrototypeOf(items, null);
        const length = value.length;
        for (let index = 0; index < length; index++) {
          if (index >= MAX_ENTRIES || budget <= 0) {
            truncated = true;
            break;
          }
          let item;
          try {
            item = walk(value[index], depth + 1);
          } catch (error) {
            // The page's values may throw anything (see the top of this file), typed as such.
            item = spend(`[threw: ${text(/** @type {any} */ (error)?.message ?? error)}]`);
          }
          items[items.length] = item;
        }
        seen.delete(value);
        return items;
      }
      const described = Object.create(null);
      let count = 0;
      for (const key of Object.keys(value)) {
        if (count >= MAX_ENTRIES || budget <= 0) {
          truncated = true;
          break;
        }
        count++;
        budget -= key.length + 4;
        try {
          described[key] = walk(value[key], depth + 1);
        } catch (error) {
          described[key] = spend(`[getter threw: ${text(/** @type {any} */ (error)?.message ?? error)}]`);
        }
      }
      seen.delete(value);
      return described;
    } catch (error) {
      seen.delete(value);
      return spend(`[unreadable: ${text(/** @type {any} */ (error)?.message ?? error)}]`);
    }
  };

  let value = input;
  if (task === "evaluate") {
    try {
      value = (0, eval)(/** @type {string} */ (input));
    } catch (error) {
      const message = text(error instanceof Error ? `${error.name}: ${error.message}` : error);
      // Both browsers throw EvalError when the page's Content-Security-Policy forbids eval
      // (CSP 3, "EnsureCSPDoesNotBlockStringCompilation"); the message names the policy.
      if (error instanceof EvalError && /content.security.policy|CSP|unsafe-eval/i.test(message)) {
        return { outcome: "blocked", message: message.slice(0, 2000) };
      }
      return { outcome: "thrown", message: message.slice(0, 2000) };
    }
    if (value instanceof Promise) {
      const timedOut = {};
      try {
        value = await Promise.race([value, new Promise((resolve) => setTimeout(() => resolve(timedOut), timeoutMs))]);
      } catch (error) {
        return {
          outcome: "thrown",
          message: text(error instanceof Error ? `${error.name}: ${error.message}` : error).slice(0, 2000),
        };
      }
      if (value === timedOut) return { outcome: "timeout" };
    }
  }
  try {
    const type = typeOf(value);
    return { outcome: "value", json: JSON.stringify(walk(value, 0)) ?? "null", type, truncated };
  } catch (error) {
    return {
      outcome: "thrown",
      message: `the value could not be described: ${text(/** @type {any} */ (error)?.message ?? error)}`,
    };
  }
}
