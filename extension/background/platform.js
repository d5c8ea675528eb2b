// @ts-check
// The browser's extension API and the facts the build fixed for this browser, in one place so
// every other background module can stay agnostic of which browser it runs in.
import "../shared/messages.js";
import { BROWSER, NATIVE_HOST_NAME } from "./build-config.js";

// Firefox exposes the promise-based API as `browser`; Chrome's `chrome` returns promises too
// in MV3. Preferring `browser` keeps Firefox on its native namespace.
export const api = globalThis.browser ?? globalThis.chrome;

/** "chrome" or "firefox": written by scripts/build-extension.mjs into build-config.js. */
export { BROWSER, NATIVE_HOST_NAME };

/** The shared message vocabulary (extension/shared/messages.js). */
export const messages = globalThis.allwrightMessages;

/**
 * A tool failure carrying its structured error. Background code throws these; the native
 * router turns them into `{ok: false, error}` results.
 */
export class ToolFailure extends Error {
  /** @param {ToolError} error */
  constructor(error) {
    super(error.message);
    this.error = error;
  }
}

/**
 * Throws a ToolFailure built from the shared error constructor.
 * @param {ErrorCode} code
 * @param {string} message
 * @param {{hint?: string, suggestions?: string[], candidates?: FrameCandidate[], reasons?: string[]}} [extra]
 * @returns {never}
 */
export function fail(code, message, extra) {
  throw new ToolFailure(messages.toolError(code, message, extra));
}

/**
 * Turns anything thrown into a structured error. An exception that is not a ToolFailure is a
 * bug or an unexpected browser refusal; it still reaches the agent as an error, never a crash.
 * @param {unknown} thrown
 */
export function asToolError(thrown) {
  if (thrown instanceof ToolFailure) return thrown.error;
  if (messages.isToolError(thrown)) return thrown;
  const text = thrown instanceof Error ? thrown.message : String(thrown);
  return messages.toolError("script_failed", `the extension failed: ${text}`, {
    hint: "This is unexpected; retry once, and report it if it happens again.",
  });
}
