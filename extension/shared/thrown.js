// @ts-check
// What a caught value says about itself. A `catch` receives anything a callee threw: an Error, the
// plain `{message}` objects some extension APIs reject with in Firefox, a page's own values.

/**
 * The message of a caught value: its `message` when it has one, else the value itself, as text.
 * @param {unknown} thrown
 * @returns {string}
 */
export function thrownMessage(thrown) {
  const message = typeof thrown === "object" && thrown !== null && "message" in thrown ? thrown.message : undefined;
  return String(message ?? thrown);
}

/**
 * The structured error a tool's own code threw (messages.toolError, or the core's
 * `{code, message}`), or null for anything else a callee threw.
 * @param {unknown} thrown
 * @returns {ToolError|null}
 */
export function thrownToolError(thrown) {
  if (typeof thrown !== "object" || thrown === null || !("code" in thrown)) return null;
  return typeof thrown.code === "string" ? /** @type {ToolError} */ (thrown) : null;
}
