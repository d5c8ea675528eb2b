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
// - fill_form's `fields[].value` is kept only for the fields its result says were not sensitive
//   (each field's report in `fields`); so are the value and the option each report shows. A
//   field that failed or was not attempted says nothing, so its value is redacted, and scrubbed
//   from the failure's message and hint.
// - Screenshots' image data is not kept, only its size.
// - network_requests' records keep their header names, not their values, and their URLs
//   without the query.
// - The secrets typed during the redactor's life are also scrubbed from every string logged
//   after them (a page may echo a code back into its text); they are held in memory only.
// - Field names are scrubbed like values (a page can echo a typed code as a key of what a
//   script returns).
// - Long strings (a large tree) are cut, and so are long names, many members and deep nesting:
//   each logged value has a budget of members and characters, so 200 calls stay within
//   storage.session's quota whatever a page returns.
// Pure, so it is unit-tested in Node; call-log.js applies it.

import { textNamesSecret } from "../../shared/secret-fields.js";

/** The longest string kept in one field; the rest is cut with a note of its length. */
const LONGEST_KEPT_STRING = 20_000;
/** The longest field name kept; the rest is cut. */
export const LONGEST_KEPT_NAME = 200;
/** The most array items and object members kept in one logged value; the rest are counted. */
export const MOST_KEPT_MEMBERS = 1_000;
/** The most characters kept across all the strings of one logged value. */
export const MOST_KEPT_CHARACTERS = 100_000;
/** Deeper values are replaced by a note. */
const DEEPEST_KEPT_LEVEL = 12;
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
/** fill_form: each field's value is a secret unless its report says the field is not one. */
const FORM_TOOL = "fill_form";
/** The values of check boxes: never secrets, and too common to scrub from every later string. */
const CHECKED_STATE_VALUES = Object.freeze(["true", "false"]);
/** network_requests' records carry headers and URLs: the log keeps neither's values. */
const NETWORK_TOOL = "network_requests";
/** Shorter texts are not scrubbed from other strings: they would blank out ordinary words. */
const SHORTEST_SCRUBBED_SECRET = 4;
export const REDACTED = "[redacted]";

/** A redactor: its memory of typed secrets lasts as long as it does (one worker's life). */
export function createRedactor() {
  /** Texts typed into sensitive fields (or fields not known to be ordinary). */
  const typedSecrets = new Set();

  /**
   * `text` without the typed secrets. Repeated until none is left, so that a secret cannot be
   * formed across the marker that replaced another one.
   * @param {string} text
   */
  function scrub(text) {
    let scrubbed = text;
    for (let pass = 0; pass <= typedSecrets.size; pass += 1) {
      let changed = false;
      for (const secret of typedSecrets) {
        if (!scrubbed.includes(secret)) continue;
        scrubbed = scrubbed.split(secret).join(REDACTED);
        changed = true;
      }
      if (!changed) break;
    }
    return scrubbed;
  }

  /**
   * A scrubbed string cut to `longest` characters and to what is left of the value's budget.
   * @param {string} text
   * @param {number} longest
   * @param {{members: number, characters: number}} budget
   */
  function keptText(text, longest, budget) {
    const scrubbed = scrub(text);
    const kept = Math.max(0, Math.min(longest, budget.characters));
    if (scrubbed.length <= kept) {
      budget.characters -= scrubbed.length;
      return scrubbed;
    }
    budget.characters -= kept;
    return `${scrubbed.slice(0, kept)}… (${scrubbed.length - kept} more characters not logged)`;
  }

  /**
   * A deep copy without secret-named fields, without the typed secrets (in values and in
   * names), long strings and names cut, within one value's budget of members and characters.
   * @param {unknown} value
   * @param {{members: number, characters: number}} budget
   * @returns {unknown}
   */
  function redactValue(value, budget = { members: MOST_KEPT_MEMBERS, characters: MOST_KEPT_CHARACTERS }, depth = 0) {
    if (typeof value === "string") return keptText(value, LONGEST_KEPT_STRING, budget);
    if (typeof value !== "object" || value === null) return value;
    if (depth > DEEPEST_KEPT_LEVEL) return "[too deep to log]";
    if (Array.isArray(value)) {
      const kept = [];
      for (const item of value) {
        if (budget.members <= 0) {
          kept.push(`… (${value.length - kept.length} more items not logged)`);
          break;
        }
        budget.members -= 1;
        kept.push(redactValue(item, budget, depth + 1));
      }
      return kept;
    }
    /** @type {Object<string, unknown>} */
    const copy = {};
    const entries = Object.entries(value);
    for (const [index, [key, item]] of entries.entries()) {
      if (budget.members <= 0) {
        copy["…"] = `${entries.length - index} more fields not logged`;
        break;
      }
      budget.members -= 1;
      const name = keptText(key, LONGEST_KEPT_NAME, budget);
      copy[name] = isSecretName(key) && item !== "" && item !== null ? REDACTED : redactValue(item, budget, depth + 1);
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
      if (tool === FORM_TOOL && Array.isArray(kept.fields)) {
        const ordinary = ordinaryFormFields(result);
        kept.fields = kept.fields.map((field, index) => {
          const givenFields = /** @type {Record<number, unknown>|null|undefined} */ (asObject(rawArguments)["fields"]);
          const given = asObject(givenFields?.[index]);
          if (typeof field !== "object" || field === null || !("value" in field)) return field;
          return ordinary.has(given["ref_id"]) ? field : { ...field, value: REDACTED };
        });
      }
      return kept;
    },

    /**
     * A result as the log keeps it: a typing call's shown value unless the field was not
     * sensitive, and a screenshot's image as its size.
     * @param {string} tool
     * @param {unknown} result
     * @returns {Object<string, unknown>}
     */
    result(tool, result) {
      const redacted = redactValue(result);
      // A result that is not an object (null, a list) has no fields to look at; the log keeps it
      // under `result`, so that a logged result is always an object.
      if (typeof redacted !== "object" || redacted === null || Array.isArray(redacted)) return { result: redacted };
      const kept = /** @type {Object<string, unknown>} */ (redacted);
      if (TYPING_TOOLS.includes(tool) && "value" in kept && !saysNotSensitive(result)) kept.value = REDACTED;
      if (tool === SELECTING_TOOL && "selected" in kept && !saysNotSensitive(result)) kept.selected = REDACTED;
      if (tool === FORM_TOOL && Array.isArray(kept.fields)) {
        kept.fields = kept.fields.map((field, index) => {
          const resultFields = /** @type {Record<number, unknown>|null|undefined} */ (asObject(result)["fields"]);
          if (saysNotSensitive(resultFields?.[index]) || typeof field !== "object" || field === null) {
            return field;
          }
          const masked = { ...field };
          for (const name of ["value", "selected"]) if (name in masked) masked[name] = REDACTED;
          return masked;
        });
      }
      if (tool === NETWORK_TOOL) redactNetworkRecords(kept);
      const resultData = /** @type {{data?: unknown}|null|undefined} */ (result)?.["data"];
      if (typeof kept.data === "string" && typeof resultData === "string") {
        kept.data = `[image data not logged: ${resultData.length} base64 characters]`;
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
      if (tool === FORM_TOOL) {
        const ordinary = ordinaryFormFields(result);
        for (const value of formFieldValues(rawArguments, ordinary)) {
          if (value.length >= SHORTEST_SCRUBBED_SECRET && !CHECKED_STATE_VALUES.includes(value.trim().toLowerCase())) {
            typedSecrets.add(value);
          }
        }
        return;
      }
      const text = asObject(rawArguments)["text"];
      if (!TYPING_TOOLS.includes(tool) || typeof text !== "string" || saysNotSensitive(result)) return;
      if (text.length >= SHORTEST_SCRUBBED_SECRET) typedSecrets.add(text);
    },
  };
}

/**
 * The refs of fill_form's fields that its result says hold no secret: each field's report in
 * `fields` with `sensitive: false`. A result that does not say (an error, a call still running)
 * names none.
 * @param {unknown} result
 * @returns {Set<unknown>}
 */
function ordinaryFormFields(result) {
  const reports = asObject(result)["fields"];
  if (!Array.isArray(reports)) return new Set();
  return new Set(reports.filter(saysNotSensitive).map((report) => report["ref_id"]));
}

/**
 * The string values of fill_form's fields other than those of `ordinary` refs.
 * @param {unknown} rawArguments
 * @param {Set<unknown>} ordinary
 * @returns {string[]}
 */
function formFieldValues(rawArguments, ordinary) {
  const fields = asObject(rawArguments)["fields"];
  if (!Array.isArray(fields)) return [];
  return fields
    .map(asObject)
    .filter((field) => !ordinary.has(field["ref_id"]) && typeof field["value"] === "string")
    .map((field) => /** @type {string} */ (field["value"]));
}

/**
 * network_requests' records as the log keeps them: header names without their values, and URLs
 * without their query (either may carry a credential; the agent's reply masks them one by one,
 * src/page_observations.rs, but the panel keeps none).
 * @param {Object<string, unknown>} kept
 */
function redactNetworkRecords(kept) {
  if (!Array.isArray(kept.requests)) return;
  const withoutValues = (/** @type {unknown} */ headers) =>
    Array.isArray(headers)
      ? headers.map((header) => (Array.isArray(header) ? [header[0], REDACTED] : REDACTED))
      : headers;
  for (const request of kept.requests) {
    if (typeof request !== "object" || request === null) continue;
    if (typeof request.url === "string") request.url = request.url.replace(/[?#].*$/s, `?${REDACTED}`);
    request.requestHeaders = withoutValues(request.requestHeaders);
    if (typeof request.response === "object" && request.response !== null) {
      request.response.headers = withoutValues(request.response.headers);
    }
  }
}

/**
 * @param {unknown} value
 * @returns {Object<string, unknown>}
 */
function asObject(value) {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? /** @type {any} */ (value) : {};
}

/** @param {unknown} result an action's result, or one field's part of it */
function saysNotSensitive(result) {
  return (
    typeof result === "object" &&
    result !== null &&
    /** @type {Record<string, unknown>} */ (result)["sensitive"] === false
  );
}

/** @param {string} key */
function isSecretName(key) {
  const lower = key.toLowerCase();
  return textNamesSecret(key) || SECRET_NAMES.includes(lower) || SECRET_NAME_PARTS.some((part) => lower.includes(part));
}
