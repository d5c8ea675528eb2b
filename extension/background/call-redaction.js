// @ts-check
// What the side panel's call log keeps of a call (docs/agent-tools.md, "Watching the agent").
// Redaction fails closed: a secret must never appear in the panel or in its JSON dump.
// - The text of a typing call (type_ax, set_field, iframe_type) is kept only when its result
//   says the field was not sensitive (`sensitive: false`, content/actions/text-entry.js); on an
//   error, or when the result does not say, it is redacted, and so is the value the result shows.
// - Any argument or result field whose name speaks of a password, a secret, a token or a file is
//   redacted: the secret-field rule's words (shared/secret-fields.js: PIN, OTP, token, secret, API
//   key, passcode, password, CVC...), and, failing closed, these words inside a longer name.
// - select_option's label and value, and the option its result echoes, are kept only when its
//   result says the select was not sensitive (a card's expiry month is).
// - Screenshots' image data is not kept, only its size.
// - The secrets typed during the redactor's life are also scrubbed from every string logged
//   after them (a page may echo a code back into its text); they are held in memory only.
// - Long strings (a large tree) are cut, so 200 calls stay within storage.session's quota.
// Pure, so it is unit-tested in Node; call-log.js applies it.

import { textNamesSecret } from "../shared/secret-fields.js";

/** The longest string kept in one field; the rest is cut with a note of its length. */
const LONGEST_KEPT_STRING = 20_000;
/** The words that mark a field holding a secret, inside its name ("newPassword") or as it. */
const SECRET_NAME_PARTS = Object.freeze([
  "password",
  "passwd",
  "passphrase",
  "secret",
  "token",
  "credential",
  "cardnumber",
  "card_number",
]);
const SECRET_NAMES = Object.freeze(["otp", "cvc", "csc", "file", "files", "pin"]);
/** The tools that type text into a field, whose text is a secret unless the field is not one. */
const TYPING_TOOLS = Object.freeze(["type_ax", "set_field", "iframe_type"]);
/** select_option's choice is a secret unless its result says the select is not one
 * (`sensitive: false`, content/actions/select-option.js: a card's expiry month is). */
const SELECTING_TOOL = "select_option";
const SELECTION_ARGUMENTS = Object.freeze(["label", "value"]);
/** Shorter texts are not scrubbed from other strings: they would blank out ordinary words. */
const SHORTEST_SCRUBBED_SECRET = 4;
export const REDACTED = "[redacted]";

/** A redactor: its memory of typed secrets lasts as long as it does (one worker's life). */
export function createRedactor() {
  /** Texts typed into sensitive fields (or fields not known to be ordinary). */
  const typedSecrets = new Set();

  /**
   * A deep copy without secret-named fields, without the typed secrets, long strings cut.
   * @param {unknown} value
   * @returns {unknown}
   */
  function redactValue(value, depth = 0) {
    if (typeof value === "string") {
      let scrubbed = value;
      for (const secret of typedSecrets) scrubbed = scrubbed.split(secret).join(REDACTED);
      if (scrubbed.length <= LONGEST_KEPT_STRING) return scrubbed;
      return `${scrubbed.slice(0, LONGEST_KEPT_STRING)}… (${scrubbed.length - LONGEST_KEPT_STRING} more characters not logged)`;
    }
    if (typeof value !== "object" || value === null) return value;
    if (depth > 12) return "[too deep to log]";
    if (Array.isArray(value)) return value.map((item) => redactValue(item, depth + 1));
    /** @type {Object<string, unknown>} */
    const copy = {};
    for (const [key, item] of Object.entries(value)) {
      copy[key] = isSecretName(key) && item !== "" && item !== null ? REDACTED : redactValue(item, depth + 1);
    }
    return copy;
  }

  return {
    /**
     * The arguments as the log keeps them; `result` is the call's result once it succeeded.
     * @param {string} tool
     * @param {unknown} rawArguments
     * @param {object|undefined} result
     * @returns {Object<string, unknown>}
     */
    arguments(tool, rawArguments, result) {
      const kept = /** @type {Object<string, unknown>} */ (redactValue(asObject(rawArguments)));
      if (TYPING_TOOLS.includes(tool) && "text" in kept && !saysNotSensitive(result)) kept.text = REDACTED;
      if (tool === SELECTING_TOOL && !saysNotSensitive(result)) {
        for (const name of SELECTION_ARGUMENTS) if (name in kept) kept[name] = REDACTED;
      }
      return kept;
    },

    /**
     * A result as the log keeps it: a typing call's shown value unless the field was not
     * sensitive, and a screenshot's image as its size.
     * @param {string} tool
     * @param {object} result
     */
    result(tool, result) {
      const kept = /** @type {Object<string, unknown>} */ (redactValue(result));
      if (TYPING_TOOLS.includes(tool) && "value" in kept && !saysNotSensitive(result)) kept.value = REDACTED;
      if (tool === SELECTING_TOOL && "selected" in kept && !saysNotSensitive(result)) kept.selected = REDACTED;
      if (typeof kept.data === "string" && typeof result?.["data"] === "string") {
        kept.data = `[image data not logged: ${result["data"].length} base64 characters]`;
      }
      return kept;
    },

    /** @param {ToolError} error */
    error(error) {
      return /** @type {ToolError} */ (redactValue(error));
    },

    /**
     * A typing call ended: unless its result says the field was ordinary, its text is a secret,
     * scrubbed from everything logged from now on.
     * @param {string} tool
     * @param {unknown} rawArguments
     * @param {object|undefined} result undefined when the call failed
     */
    remember(tool, rawArguments, result) {
      const text = asObject(rawArguments)["text"];
      if (!TYPING_TOOLS.includes(tool) || typeof text !== "string" || saysNotSensitive(result)) return;
      if (text.length >= SHORTEST_SCRUBBED_SECRET) typedSecrets.add(text);
    },
  };
}

/** @returns {Object<string, unknown>} */
function asObject(value) {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? /** @type {any} */ (value) : {};
}

function saysNotSensitive(result) {
  return typeof result === "object" && result !== null && result["sensitive"] === false;
}

/** @param {string} key */
function isSecretName(key) {
  const lower = key.toLowerCase();
  return textNamesSecret(key) || SECRET_NAMES.includes(lower) || SECRET_NAME_PARTS.some((part) => lower.includes(part));
}
