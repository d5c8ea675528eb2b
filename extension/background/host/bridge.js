// @ts-check
// The internal calls of the MCP server's browser bridge (docs/protocol/browser-bridge.md, "The browser
// bridge"). When allwright launched the browser it also holds a WebDriver BiDi session on it,
// and must know which BiDi browsing context is the tab a tool call names. Extension tab ids and
// BiDi context ids are different namespaces, so the server asks here which tab a call is for
// and, for a tab it has not seen yet, has a random marker put on that tab's document element,
// which its BiDi sandbox query then finds in exactly one top-level context.
//
// These calls are not agent tools: they are not in the tool contract, the MCP server never
// lists them, and they only read tab facts or set one short-lived attribute.

import { api, fail, messages } from "../platform.js";
import { resolveTab } from "../frames/frames.js";
import {
  abortExternalInput,
  attachFiles,
  beginExternalInput,
  continueExternalDrag,
  finishExternalInput,
} from "../actions/actions.js";
import { maskForBridge, unmaskForBridge } from "../captures/secret-masks.js";
import { logCallStart } from "../side-panel/call-log.js";
import { TAB_MARKER_ATTRIBUTE } from "../../shared/generated/marker-attributes.js";

/** How long a marker stays on the document element if the server never removes it. */
const TAB_MARKER_LIFETIME_MS = 5_000;

/** How long setting the marker may take: a tab whose page shows a dialog never runs it. */
const MARK_TIMEOUT_MS = 2_000;

const BRIDGE_CALLS = Object.freeze({
  bridge_identify_tab: identifyTab,
  bridge_begin_input: beginInput,
  bridge_finish_input: (/** @type {Record<string, unknown>} */ args) => finishExternalInput({ token: tokenOf(args) }),
  bridge_abort_input: (/** @type {Record<string, unknown>} */ args) => abortExternalInput({ token: tokenOf(args) }),
  // A Firefox drag whose press the server sent alone (src/browser_bridge/input.rs).
  bridge_drag_after_press: (/** @type {Record<string, unknown>} */ args) =>
    continueExternalDrag({ token: tokenOf(args) }),
  // The masks over secret fields around the server's BiDi screenshot (secret-masks.js).
  bridge_mask_secrets: maskSecrets,
  bridge_unmask_secrets: (/** @type {Record<string, unknown>} */ args) => unmaskForBridge({ token: tokenOf(args) }),
  // upload_file's extension route: the files' bytes, read by the server inside its upload roots.
  bridge_attach_files: attachFilesFromServer,
  // The calls the server answered without the extension, for the side panel's log.
  bridge_log_answer: logAnswer,
});

/** The agent tools the server answers itself from its BiDi session (src/browser_bridge/). */
const TOOLS_THE_SERVER_ANSWERS = Object.freeze([
  "handle_dialog",
  "console_messages",
  "network_requests",
  "resize",
  "emulate",
  "save_pdf",
]);

/**
 * bridge_log_answer({tool, arguments, outcome: {ok: true, result} | {ok: false, error}}): a call
 * of one of those tools, logged for the side panel as every other call is (call-log.js, which
 * redacts it).
 * @param {Record<string, unknown>} args
 */
async function logAnswer(args) {
  const { tool, arguments: toolArguments, outcome } = args;
  if (typeof tool !== "string" || !TOOLS_THE_SERVER_ANSWERS.includes(tool)) {
    fail("invalid_arguments", "bridge_log_answer: tool is one the server answers itself");
  }
  const answer = /** @type {Record<string, unknown>} */ (outcome);
  if (typeof answer !== "object" || answer === null || typeof answer.ok !== "boolean") {
    fail("invalid_arguments", "bridge_log_answer: outcome is {ok, result} or {ok, error}");
  }
  const end = await logCallStart(/** @type {string} */ (tool), toolArguments ?? {}, null);
  const result = typeof answer.result === "object" && answer.result !== null ? answer.result : {};
  const error = messages.isToolError(answer.error)
    ? answer.error
    : messages.toolError("script_failed", "the server's answer was not logged whole");
  end(answer.ok ? { ok: true, result } : { ok: false, error });
  return { logged: true };
}

/** press_key's modifier names (the tool contract's choices). */
const MODIFIER_NAMES = Object.freeze(["Alt", "Control", "Meta", "Shift"]);

/** The references the tree prints (the contract's pattern for ref_id). */
const REF_PATTERN = /^ref_[0-9]+$/;

/**
 * bridge_begin_input({tabId?, frameId?, ref_id, kind}): the first half of a click_ax or hover
 * whose pointer input the server sends over BiDi (actions.js, "External input"), of a press_key
 * whose key it sends (kind "key", with `key` and `modifiers`, ref_id optional), or, with kind
 * "locate", only the marker that lets the server find the element for an element screenshot.
 * @param {Record<string, unknown>} args
 */
function beginInput(args) {
  const { tabId, frameId, ref_id: refId, kind } = args;
  for (const [name, value] of [
    ["tabId", tabId],
    ["frameId", frameId],
  ]) {
    if (value !== undefined && value !== null && !Number.isSafeInteger(value)) {
      fail("invalid_arguments", `bridge_begin_input: ${name} must be an integer`);
    }
  }
  if (
    kind !== "click" &&
    kind !== "hover" &&
    kind !== "locate" &&
    kind !== "key" &&
    kind !== "upload" &&
    kind !== "drag"
  ) {
    fail("invalid_arguments", "bridge_begin_input: kind is click, hover, locate, key, upload or drag");
  }
  if (kind === "drag") return beginDragInput(args);
  // A key press acts on the focused element unless ref_id names one, as press_key does.
  const refOptional = kind === "key" && (refId === undefined || refId === null);
  if (!refOptional && (typeof refId !== "string" || !REF_PATTERN.test(refId))) {
    fail("invalid_arguments", "bridge_begin_input: ref_id must be a ref_N");
  }
  const input = {
    tabId: /** @type {number|undefined} */ (tabId ?? undefined),
    frameId: /** @type {number|undefined} */ (frameId ?? undefined),
    ref_id: refOptional ? undefined : /** @type {string} */ (refId),
    kind: /** @type {"click"|"hover"|"locate"|"key"} */ (kind),
  };
  if (kind === "upload") {
    return beginExternalInput({
      ...input,
      files: filesOf(args, { withBytes: false }),
      dialogRoute: args.dialogRoute === true,
    });
  }
  if (kind !== "key") return beginExternalInput(input);
  const { key, modifiers } = args;
  if (typeof key !== "string" || key.length === 0 || key.length > 100) {
    fail("invalid_arguments", "bridge_begin_input: key must be press_key's key");
  }
  const modifierNames = modifiers ?? [];
  if (!Array.isArray(modifierNames) || !modifierNames.every((name) => MODIFIER_NAMES.includes(name))) {
    fail("invalid_arguments", `bridge_begin_input: modifiers are among ${MODIFIER_NAMES.join(", ")}`);
  }
  return beginExternalInput({ ...input, key, modifiers: modifierNames });
}

/** The largest offset of a drag's `by`, in CSS pixels (the tool contract's limit). */
const LARGEST_DRAG_OFFSET = 10_000;

/**
 * bridge_begin_input({kind: "drag", tabId?, frameId?, from_ref, to_ref?, by?}): the first half of
 * a drag whose pointer input the server sends over BiDi: both ends marked, and `html5Source`.
 * @param {Record<string, unknown>} args
 */
function beginDragInput(args) {
  const { tabId, frameId, from_ref: fromRef, to_ref: toRef, by } = args;
  if (typeof fromRef !== "string" || !REF_PATTERN.test(fromRef)) {
    fail("invalid_arguments", "bridge_begin_input: from_ref must be a ref_N");
  }
  const hasTarget = toRef !== undefined && toRef !== null;
  if (hasTarget && (typeof toRef !== "string" || !REF_PATTERN.test(toRef))) {
    fail("invalid_arguments", "bridge_begin_input: to_ref must be a ref_N");
  }
  const offset = /** @type {Record<string, unknown>|null|undefined} */ (by);
  const isOffset = (/** @type {unknown} */ value) =>
    Number.isFinite(value) && Math.abs(/** @type {number} */ (value)) <= LARGEST_DRAG_OFFSET;
  const hasOffset = offset !== undefined && offset !== null;
  if (hasOffset && (typeof offset !== "object" || !isOffset(offset.x) || !isOffset(offset.y))) {
    fail("invalid_arguments", "bridge_begin_input: by is {x, y} in CSS pixels");
  }
  if (hasTarget === hasOffset) fail("invalid_arguments", "bridge_begin_input: a drag takes to_ref or by");
  return beginExternalInput({
    tabId: /** @type {number|undefined} */ (tabId ?? undefined),
    frameId: /** @type {number|undefined} */ (frameId ?? undefined),
    kind: "drag",
    from_ref: /** @type {string} */ (fromRef),
    to_ref: hasTarget ? /** @type {string} */ (toRef) : undefined,
    by: hasOffset ? { x: Number(offset.x), y: Number(offset.y) } : undefined,
  });
}

/** The most files and bytes of one upload (src/upload_roots.rs, src/tools/table.rs). */
const MOST_UPLOAD_FILES = 20;
const MOST_UPLOAD_BYTES = 25 * 1024 * 1024;

/**
 * The files of an upload, checked: `[{name, type, size, lastModified?, data?}]`, `data` the
 * bytes in base64 when `withBytes`.
 * @param {Record<string, unknown>} args
 * @param {{withBytes: boolean}} options
 * @returns {any[]}
 */
function filesOf(args, { withBytes }) {
  const files = args.files;
  if (!Array.isArray(files) || files.length === 0 || files.length > MOST_UPLOAD_FILES) {
    fail("invalid_arguments", `files must be a list of 1 to ${MOST_UPLOAD_FILES} files`);
  }
  let total = 0;
  return files.map((file) => {
    const { name, type, size, lastModified, data } = /** @type {Record<string, unknown>} */ (file ?? {});
    if (typeof name !== "string" || name.length === 0 || name.length > 1000 || /[/\0]/.test(name)) {
      fail("invalid_arguments", "each file's name is a file name without a folder");
    }
    if (typeof type !== "string" || type.length > 200 || !Number.isSafeInteger(size) || Number(size) < 0) {
      fail("invalid_arguments", "each file has a MIME type and a size");
    }
    total += Number(size);
    if (total > MOST_UPLOAD_BYTES) fail("invalid_arguments", "the files hold more than 25 MiB together");
    const bytes = /** @type {number} */ (size);
    if (!withBytes) return { name, type, size: bytes };
    if (typeof data !== "string" || data.length > Math.ceil(Number(size) / 3) * 4 + 4) {
      fail("invalid_arguments", "each file's data is its bytes in base64");
    }
    const modified = Number.isSafeInteger(lastModified) ? /** @type {number} */ (lastModified) : Date.now();
    return { name, type, size: bytes, lastModified: modified, data };
  });
}

/**
 * bridge_attach_files({tabId?, frameId?, ref_id, files}): upload_file's extension route
 * (actions.js, attachFiles).
 * @param {Record<string, unknown>} args
 */
function attachFilesFromServer(args) {
  const { tabId, frameId, ref_id: refId } = args;
  for (const value of [tabId, frameId]) {
    if (value !== undefined && value !== null && !Number.isSafeInteger(value)) {
      fail("invalid_arguments", "bridge_attach_files: tabId and frameId are integers");
    }
  }
  if (typeof refId !== "string" || !REF_PATTERN.test(refId)) {
    fail("invalid_arguments", "bridge_attach_files: ref_id must be a ref_N");
  }
  return attachFiles({
    tabId: /** @type {number|undefined} */ (tabId ?? undefined),
    frameId: /** @type {number|undefined} */ (frameId ?? undefined),
    ref_id: refId,
    files: filesOf(args, { withBytes: true }),
    noClick: args.noClick === true,
  });
}

/** @param {Record<string, unknown>} args */
function tokenOf(args) {
  if (typeof args.token !== "string" || args.token.length > 100) {
    fail("invalid_arguments", "the token must be the string bridge_begin_input answered");
  }
  return args.token;
}

/** @param {string} tool */
export function isBridgeCall(tool) {
  return Object.hasOwn(BRIDGE_CALLS, tool);
}

/**
 * The agent tool whose real pointer input a bridge_begin_input starts, by its kind.
 * @type {Readonly<Record<string, string>>}
 */
const AGENT_TOOL_OF_INPUT_KIND = Object.freeze({
  click: "click_ax",
  hover: "hover",
  locate: "screenshot",
  key: "press_key",
  drag: "drag",
  upload: "upload_file",
});

/**
 * The agent tool a bridge call acts for, or null: bridge_begin_input is the page half of a
 * click_ax, a hover or an element screenshot whose input the server sends over BiDi, and
 * bridge_mask_secrets the page half of a BiDi screenshot, so the tier gate applies to them as to
 * the tool itself (tools.js).
 * @param {string} tool
 * @param {unknown} rawArguments
 * @returns {string|null}
 */
export function agentToolOfBridgeCall(tool, rawArguments) {
  if (tool === "bridge_mask_secrets") return "screenshot";
  if (tool === "bridge_attach_files") return "upload_file";
  if (tool !== "bridge_begin_input") return null;
  const kind = /** @type {Record<string, unknown>} */ (rawArguments ?? {})["kind"];
  return typeof kind === "string" && Object.hasOwn(AGENT_TOOL_OF_INPUT_KIND, kind)
    ? AGENT_TOOL_OF_INPUT_KIND[kind]
    : null;
}

/**
 * Runs one bridge call. The arguments come from the server, not from the agent; they are still
 * checked, since anything may reach the native port.
 * @param {string} tool
 * @param {unknown} rawArguments
 */
export function runBridgeCall(tool, rawArguments) {
  const args = /** @type {Record<string, unknown>} */ (rawArguments ?? {});
  if (typeof args !== "object" || Array.isArray(args)) {
    fail("invalid_arguments", `${tool}: arguments must be an object`);
  }
  return BRIDGE_CALLS[/** @type {keyof typeof BRIDGE_CALLS} */ (tool)](args);
}

/**
 * bridge_mask_secrets({tabId?}): paints the masks over every secret field of the tab before the
 * server's BiDi capture: `{token, masked, maskedInViewport, framesNotMasked}`.
 * @param {Record<string, unknown>} args
 */
async function maskSecrets(args) {
  if (args.tabId !== undefined && args.tabId !== null && !Number.isInteger(args.tabId)) {
    fail("invalid_arguments", "bridge_mask_secrets: tabId must be an integer");
  }
  const tab = await resolveTab(/** @type {number|undefined} */ (args.tabId ?? undefined));
  return maskForBridge({ tabId: /** @type {number} */ (tab.id) });
}

/**
 * Which tab a call with `tabId` (or without, for the active tab) acts in: `{tabId, url,
 * tabCount}`; with
 * `marker` (a random string of 32 hex digits chosen by the server), the marker is also set on
 * the top document's element, and `marked` says whether that worked (it cannot in pages the
 * extension may not script, nor while a dialog blocks the page).
 * @param {Record<string, unknown>} args
 */
async function identifyTab(args) {
  const { tabId, marker } = args;
  if (tabId !== undefined && tabId !== null && !Number.isSafeInteger(tabId)) {
    fail("invalid_arguments", "bridge_identify_tab: tabId must be an integer");
  }
  if (marker !== undefined && (typeof marker !== "string" || !/^[0-9a-f]{32}$/.test(marker))) {
    fail("invalid_arguments", "bridge_identify_tab: marker must be 32 hex digits");
  }
  const tab = await resolveTab(/** @type {number|undefined} */ (tabId ?? undefined));
  // The number of tabs lets the server map the last unmapped tab when no marker can be set.
  const tabCount = (await api.tabs.query({})).length;
  const answer = { tabId: tab.id, url: tab.url ?? "", tabCount };
  if (typeof marker !== "string") return answer;
  return { ...answer, marked: await setTabMarker(/** @type {number} */ (tab.id), marker) };
}

/**
 * Sets the marker on the document element of the tab's top frame, from the extension's
 * isolated world, and removes it again after a few seconds if it still holds this marker.
 * @param {number} tabId
 * @param {string} marker
 */
async function setTabMarker(tabId, marker) {
  const injection = api.scripting.executeScript({
    target: { tabId, frameIds: [0] },
    func: markDocumentElement,
    args: [TAB_MARKER_ATTRIBUTE, marker, TAB_MARKER_LIFETIME_MS],
  });
  const timeout = new Promise((resolve) => setTimeout(() => resolve(false), MARK_TIMEOUT_MS));
  try {
    return (await Promise.race([injection.then(() => true), timeout])) === true;
  } catch {
    return false;
  }
}

/**
 * Runs in the page's isolated world (serialized by executeScript: no closure).
 * @param {string} attribute
 * @param {string} marker
 * @param {number} lifetimeMs
 */
function markDocumentElement(attribute, marker, lifetimeMs) {
  const root = globalThis.document.documentElement;
  root.setAttribute(attribute, marker);
  setTimeout(() => {
    if (root.getAttribute(attribute) === marker) root.removeAttribute(attribute);
  }, lifetimeMs);
}
