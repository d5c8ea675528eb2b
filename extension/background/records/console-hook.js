// @ts-check
// The console hook (docs/agent-tools.md, "The page's console and network"): the one function
// allwright runs in the page's own world to see its console in a person's browser, injected by
// console-hooks.js into the frames of the tabs an agent uses, never elsewhere. It wraps the
// console's methods and listens for uncaught errors and rejections, and hands each entry to the
// content script (content/console-relay.js) as a CustomEvent whose detail is a JSON string. It
// reads and sends nothing else; a page can forge such an event, which is no more than writing
// to its own console.
//
// The function is serialized by scripting.executeScript: it uses nothing from outside itself.

/**
 * @param {string} eventName the event the content script listens for
 */
export function consoleHook(eventName) {
  const installed = Symbol.for("allwright.consoleHook");
  const scope = /** @type {any} */ (globalThis);
  if (scope[installed] === true) return;
  Object.defineProperty(scope, installed, { value: true });
  const TEXT_CHARS = 4_000;
  const VALUE_CHARS = 500;

  /** @param {unknown} value */
  const textOf = (value) => {
    if (typeof value === "string") return value;
    if (value instanceof Error) return `${value.name}: ${value.message}`;
    if (typeof value !== "object" || value === null) return String(value);
    try {
      const json = JSON.stringify(value);
      if (typeof json === "string") return json.length > VALUE_CHARS ? `${json.slice(0, VALUE_CHARS)}…` : json;
    } catch {
      // A cycle or a throwing getter: the object's kind says enough.
    }
    return Object.prototype.toString.call(value);
  };
  /**
   * The places of a stack, innermost first: Chromium writes `at name (url:line:column)`,
   * Firefox `name@url:line:column`.
   * @param {unknown} stack
   */
  const placesOf = (stack) => {
    if (typeof stack !== "string") return [];
    const places = [];
    for (const line of stack.split("\n").slice(0, 30)) {
      const match = /^\s*(?:at\s+(?:(.*?)\s+\()?|(.*?)@)(.*?):(\d+):(\d+)\)?\s*$/.exec(line);
      if (match === null) continue;
      places.push({
        function: match[1] ?? match[2] ?? "",
        url: match[3],
        line: Number(match[4]),
        column: Number(match[5]),
      });
    }
    return places;
  };
  /** @param {Record<string, unknown>} entry */
  const send = (entry) => {
    try {
      globalThis.dispatchEvent(
        new CustomEvent(eventName, { detail: JSON.stringify({ ...entry, timestamp: Date.now() }) }),
      );
    } catch {
      // The page's console goes on whatever happens here.
    }
  };
  const LEVELS = {
    log: "info",
    info: "info",
    warn: "warning",
    error: "error",
    debug: "debug",
    table: "info",
    trace: "debug",
    dir: "info",
    assert: "error",
  };
  for (const [method, level] of Object.entries(LEVELS)) {
    const original = /** @type {any} */ (console)[method];
    if (typeof original !== "function") continue;
    /** @type {any} */ (console)[method] = function (/** @type {unknown[]} */ ...args) {
      let shown = args;
      if (method === "assert") shown = args[0] ? [] : ["Assertion failed:", ...args.slice(1)];
      if (shown.length > 0 || method !== "assert") {
        // The caller's place: the first frame of the page's own scripts (this wrapper, injected
        // by the extension, has no such address).
        const source = placesOf(new Error().stack).find((place) => /^(https?|file):/.test(place.url)) ?? null;
        const text = shown.map(textOf).join(" ");
        send({
          level,
          kind: "console",
          method,
          text: text.length > TEXT_CHARS ? `${text.slice(0, TEXT_CHARS)}…` : text,
          source,
        });
      }
      return original.apply(this, args);
    };
  }
  globalThis.addEventListener("error", (event) => {
    if (!(event instanceof ErrorEvent)) return;
    const error = event.error;
    const stack = placesOf(error instanceof Error ? error.stack : undefined);
    send({
      level: "error",
      kind: "exception",
      text: error instanceof Error ? `${error.name}: ${error.message}` : String(event.message),
      source: stack[0] ?? { function: "", url: event.filename, line: event.lineno, column: event.colno },
      stack,
    });
  });
  globalThis.addEventListener("unhandledrejection", (event) => {
    const reason = event.reason;
    const stack = placesOf(reason instanceof Error ? reason.stack : undefined);
    send({
      level: "error",
      kind: "exception",
      text: `Uncaught (in promise) ${textOf(reason)}`,
      source: stack[0] ?? null,
      stack,
    });
  });
}

/** The event the hook dispatches and the content script listens for. */
export const CONSOLE_HOOK_EVENT = "allwright:console-entry";
