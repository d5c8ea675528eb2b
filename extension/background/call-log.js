// @ts-check
// The call log behind the side panel's verbose mode (docs/agent-tools.md, "Watching the
// agent"): the last 200 agent tool calls, each with its arguments, duration and result or error,
// redacted before they are kept. It lives in memory and in storage.session, so a Chrome service
// worker that stops and starts again still shows the calls of the session; it never reaches
// storage.local or the disk.
//
// Redaction fails closed: a secret must never appear in the panel or in its JSON dump.
// - The text of a typing call (type_ax, set_field, iframe_type) is kept only when its result
//   says the field was not sensitive (`sensitive: false`, content/actions/text-entry.js); on an
//   error, or when the result does not say, it is redacted, and so is the value the result shows.
// - Any argument or result field whose name speaks of a password, a secret or a token, and any
//   file input value, is redacted.
// - Screenshots' image data is not kept, only its size.
// - The secrets typed during this worker's life are also scrubbed from every string logged after
//   them (a page may echo a code back into its text); they are held in memory only.
// - Long strings (a large tree) are cut, so 200 calls stay within storage.session's quota.

import { api } from "./platform.js";

/** How many calls the log keeps (the dump's "last 200 request/response pairs"). */
export const CALL_LOG_SIZE = 200;
/** The longest string kept in one field; the rest is cut with a note of its length. */
const LONGEST_KEPT_STRING = 20_000;
const STORAGE_KEY = "callLog";
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
export const REDACTED = "[redacted]";

/** Texts typed into sensitive fields (or fields not known to be ordinary), in memory only. */
const typedSecrets = new Set();
/** Shorter texts are not scrubbed from other strings: they would blank out ordinary words. */
const SHORTEST_SCRUBBED_SECRET = 4;

/** @type {LoggedCall[]|null} newest last */
let calls = null;
let nextId = 1;
let persistTimer = null;
/** @type {Set<(call: LoggedCall) => void>} */
const listeners = new Set();

async function loadCalls() {
  if (calls !== null) return calls;
  const stored = await api.storage.session.get(STORAGE_KEY).catch(() => ({}));
  const kept = Array.isArray(stored?.[STORAGE_KEY]) ? stored[STORAGE_KEY] : [];
  // Another call may have started while storage answered.
  if (calls === null) {
    calls = kept.slice(-CALL_LOG_SIZE);
    nextId = calls.reduce((highest, call) => Math.max(highest, call.id), 0) + 1;
  }
  return calls;
}

/** The logged calls, oldest first. */
export async function loggedCalls() {
  return [...(await loadCalls())];
}

/** Calls `listener` with each call as it starts and again when it ends. */
export function onCallLogged(listener) {
  listeners.add(listener);
}

/**
 * Logs the start of a call; the returned function logs its end with the outcome.
 * @param {string} tool
 * @param {unknown} rawArguments
 * @param {ToolAccess|null} claimedAccess the access the MCP server said it lists tools for
 * @returns {Promise<(outcome: {ok: true, result: object}|{ok: false, error: ToolError}) => void>}
 */
export async function logCallStart(tool, rawArguments, claimedAccess) {
  const log = await loadCalls();
  const startedAt = Date.now();
  /** @type {LoggedCall} */
  const call = {
    id: nextId++,
    tool,
    arguments: redactArguments(tool, rawArguments, undefined),
    claimedAccess,
    startedAt: new Date(startedAt).toISOString(),
    durationMs: null,
    ok: null,
  };
  log.push(call);
  if (log.length > CALL_LOG_SIZE) log.splice(0, log.length - CALL_LOG_SIZE);
  publish(call);
  return (outcome) => {
    call.durationMs = Date.now() - startedAt;
    call.ok = outcome.ok;
    rememberSecretText(tool, rawArguments, outcome.ok === true ? outcome.result : undefined);
    if (outcome.ok === true) {
      call.arguments = redactArguments(tool, rawArguments, outcome.result);
      call.result = redactResult(tool, outcome.result);
    } else if (outcome.ok === false) {
      call.error = /** @type {ToolError} */ (redactValue(outcome.error));
    }
    publish(call);
  };
}

function publish(call) {
  const copy = structuredClone(call);
  for (const listener of listeners) listener(copy);
  clearTimeout(persistTimer);
  persistTimer = setTimeout(persist, 250);
}

function persist() {
  if (calls === null) return;
  api.storage.session.set({ [STORAGE_KEY]: calls }).catch((error) => {
    console.warn(`allwright: could not keep the call log: ${error.message}`);
  });
}

/**
 * The arguments as the log keeps them. A typing call's text stays only when its result says
 * the field was not sensitive.
 * @param {string} tool
 * @param {unknown} rawArguments
 * @param {object|undefined} result the call's result, when it succeeded
 * @returns {Object<string, unknown>}
 */
export function redactArguments(tool, rawArguments, result) {
  const args =
    typeof rawArguments === "object" && rawArguments !== null && !Array.isArray(rawArguments) ? rawArguments : {};
  const kept = /** @type {Object<string, unknown>} */ (redactValue(args));
  if (TYPING_TOOLS.includes(tool) && "text" in kept && !saysNotSensitive(result)) kept.text = REDACTED;
  return kept;
}

/**
 * A result as the log keeps it: a typing call's shown value unless the field was not sensitive,
 * and a screenshot's image as its size.
 * @param {string} tool
 * @param {object} result
 */
export function redactResult(tool, result) {
  const kept = /** @type {Object<string, unknown>} */ (redactValue(result));
  if (TYPING_TOOLS.includes(tool) && "value" in kept && !saysNotSensitive(result)) kept.value = REDACTED;
  if (typeof kept.data === "string" && typeof result?.["data"] === "string") {
    kept.data = `[image data not logged: ${result["data"].length} base64 characters]`;
  }
  return kept;
}

/** A typing call that ended without saying its field was ordinary typed a secret: remember it. */
function rememberSecretText(tool, rawArguments, result) {
  const text = typeof rawArguments === "object" && rawArguments !== null ? rawArguments["text"] : undefined;
  if (!TYPING_TOOLS.includes(tool) || typeof text !== "string" || saysNotSensitive(result)) return;
  if (text.length >= SHORTEST_SCRUBBED_SECRET) typedSecrets.add(text);
}

function saysNotSensitive(result) {
  return typeof result === "object" && result !== null && result["sensitive"] === false;
}

/**
 * A deep copy without secret-named fields and with long strings cut.
 * @param {unknown} value
 * @param {number} [depth]
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

/** @param {string} key */
function isSecretName(key) {
  const lower = key.toLowerCase();
  return SECRET_NAMES.includes(lower) || SECRET_NAME_PARTS.some((part) => lower.includes(part));
}
