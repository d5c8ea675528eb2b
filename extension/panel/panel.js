// @ts-check
// The side panel's script (panel.html): it renders what the background sends over the
// "allwright-panel" port (background/side-panel/panel-port.js) and sends back the access the person
// chooses. Mode and tier map onto the tool access: Ask is {tier: "ask"}, Act is {tier, dev:
// false}, Dev is {tier, dev: true} (docs/agent-tools.md, "Tiers").
//
// Everything shown comes from the background's call log, already redacted (background/
// call-log.js); this page adds nothing to it and writes nothing but the DOM and the JSON dump.

import "../shared/messages.js";

const messages = globalThis.allwrightMessages;
const api = globalThis.browser ?? globalThis.chrome;

/** How much of a result the summary line previews. */
const PREVIEW_CHARACTERS = 90;

/** What each mode lets the agent do, in the words the panel shows. */
const MODE_SUMMARIES = Object.freeze({
  ask: "Read-only: the agent reads pages, takes screenshots and lists tabs. It cannot click, type, navigate or change tabs.",
  act: "The agent reads and acts on pages with the tools of the tier.",
  dev: "Act, plus developer tools (execute_js) and the Full tier's fallbacks in Mid.",
});

/** What each tier adds, in the words the panel shows. */
const TIER_SUMMARIES = Object.freeze({
  compact: "Compact: navigate, click, type, fill, choose, press keys, switch tabs.",
  mid: "Mid: Compact plus hover, drag, new and closed tabs, promote_iframe, resizing the window, reading back the agent's downloads.",
  full: "Full: Mid plus the frame inventory, closed shadow roots, PDFs of pages, and emulation in a browser allwright launched.",
});

const elements = {
  hostState: byId("host-state"),
  clientName: byId("client-name"),
  browserName: byId("browser-name"),
  mode: byId("mode"),
  tier: byId("tier"),
  summary: byId("access-summary"),
  toolCount: byId("tool-count"),
  toolNames: byId("tool-names"),
  verbose: byId("verbose"),
  callCount: byId("call-count"),
  note: byId("activity-note"),
  calls: byId("calls"),
};

/** @type {PanelConnectionState|null} */
let state = null;
/** @type {Map<number, LoggedCall>} by id */
const calls = new Map();
/** @type {Map<number, HTMLLIElement>} */
const callItems = new Map();
let verbose = false;
/** The tier Act and Dev return to after Ask. */
let lastActingTier = "full";
/** @type {{tools: Record<string, {tiers: string[], devTiers: string[]}>}|null} */
let contract = null;

/** @param {string} id */
function byId(id) {
  const element = document.getElementById(id);
  if (element === null) throw new Error(`panel.html has no #${id}`);
  return element;
}

// ---- The port ----------------------------------------------------------------------------------

/** @type {chrome.runtime.Port|null} */
let port = null;

function connect() {
  port = api.runtime.connect({ name: messages.PANEL_PORT_NAME });
  port.onMessage.addListener(receive);
  // A Chrome service worker that stops closes the port; connecting again wakes it.
  port.onDisconnect.addListener(() => {
    port = null;
    showHost(null);
    setTimeout(connect, 1000);
  });
}

/** @param {BackgroundToPanel} message */
function receive(message) {
  if (message.type === "state") {
    state = message.state;
    renderState();
  } else if (message.type === "calls") {
    calls.clear();
    for (const item of callItems.values()) item.remove();
    callItems.clear();
    for (const call of message.calls) calls.set(call.id, call);
    renderCalls();
  } else if (message.type === "call") {
    calls.set(message.call.id, message.call);
    if (verbose) renderCall(message.call, true);
    renderCallCount();
  }
}

// ---- Connection and access ---------------------------------------------------------------------

/** @param {boolean|null} connected null until the background has said */
function showHost(connected) {
  elements.hostState.dataset.state = connected === null ? "unknown" : connected ? "on" : "off";
  elements.hostState.textContent =
    connected === null ? "Connecting…" : connected ? "Host connected" : "Host not running";
  elements.hostState.title = connected
    ? "The allwright native host is running; an MCP client can reach this browser."
    : "The native host is not running: run `allwright install` once, then restart the browser.";
}

function renderState() {
  if (state === null) return;
  showHost(state.hostConnected);
  elements.clientName.textContent = state.client ?? "No MCP client";
  elements.clientName.classList.toggle("muted", state.client === null);
  const browserLabel = state.browser === "firefox" ? "Firefox" : "Chrome";
  elements.browserName.textContent = `${browserLabel} · extension ${state.extensionVersion}`;
  const { tier, dev } = state.access;
  if (tier !== "ask") lastActingTier = tier;
  const mode = tier === "ask" ? "ask" : dev ? "dev" : "act";
  checkRadio(elements.mode, mode);
  checkRadio(elements.tier, tier === "ask" ? null : tier);
  for (const button of elements.tier.querySelectorAll("button")) {
    button.disabled = tier === "ask";
  }
  elements.tier.title = tier === "ask" ? "Ask is read-only: it has no tier." : "";
  const summary = tier === "ask" ? MODE_SUMMARIES.ask : `${TIER_SUMMARIES[tier]} ${dev ? MODE_SUMMARIES.dev : ""}`;
  elements.summary.textContent = summary.trim();
  renderToolNames();
}

/**
 * @param {HTMLElement} group
 * @param {string|null} value null checks none of the group's buttons
 */
function checkRadio(group, value) {
  for (const button of group.querySelectorAll("button")) {
    const checked = button.dataset.value === value;
    button.setAttribute("aria-checked", String(checked));
    button.tabIndex = checked || (value === null && button === group.querySelector("button")) ? 0 : -1;
  }
}

function renderToolNames() {
  if (contract === null || state === null) return;
  const { tier, dev } = state.access;
  const names = Object.entries(contract.tools)
    .filter(([, entry]) => entry.tiers.includes(tier) || (dev && entry.devTiers.includes(tier)))
    .map(([name]) => name);
  elements.toolCount.textContent = `${names.length} tools available to the agent`;
  elements.toolNames.textContent = names.join(" · ");
}

/** @param {ToolAccess} access */
function chooseAccess(access) {
  if (port === null || state === null) return;
  port.postMessage(messages.panelSetAccess(access));
  // Shown at once, so that a second click builds on this choice; the background's state
  // message confirms it.
  state = { ...state, access: messages.toolAccess(access) };
  renderState();
}

elements.mode.addEventListener("click", (event) => {
  const button = /** @type {HTMLElement} */ (event.target).closest("button");
  if (button === null || state === null) return;
  const mode = button.dataset.value;
  if (mode === "ask") chooseAccess({ tier: "ask", dev: false });
  else chooseAccess({ tier: currentActingTier(), dev: mode === "dev" });
});

elements.tier.addEventListener("click", (event) => {
  const button = /** @type {HTMLButtonElement|null} */ (/** @type {HTMLElement} */ (event.target).closest("button"));
  if (button === null || button.disabled || state === null) return;
  chooseAccess(messages.toolAccess({ tier: /** @type {ToolTier} */ (button.dataset.value), dev: state.access.dev }));
});

// Arrow keys move within a radio group (WAI-ARIA Authoring Practices, "Radio Group").
for (const group of [elements.mode, elements.tier]) {
  group.addEventListener("keydown", (event) => {
    if (!["ArrowLeft", "ArrowRight", "ArrowUp", "ArrowDown"].includes(event.key)) return;
    const buttons = [...group.querySelectorAll("button:not(:disabled)")];
    const at = buttons.indexOf(/** @type {HTMLButtonElement} */ (document.activeElement));
    const step = event.key === "ArrowLeft" || event.key === "ArrowUp" ? -1 : 1;
    const next = /** @type {HTMLButtonElement} */ (buttons[(at + step + buttons.length) % buttons.length]);
    next.focus();
    next.click();
    event.preventDefault();
  });
}

/** @returns {ToolTier} */
function currentActingTier() {
  const tier = state?.access.tier;
  return /** @type {ToolTier} */ (tier !== undefined && tier !== "ask" ? tier : lastActingTier);
}

// ---- Verbose mode: the live call list ----------------------------------------------------------

elements.verbose.addEventListener("click", (event) => {
  if (event.shiftKey) {
    downloadDump();
    return;
  }
  setVerbose(!verbose);
  api.storage.local.set({ panelVerbose: verbose }).catch(() => {});
});

/** @param {boolean} on */
function setVerbose(on) {
  verbose = on;
  elements.verbose.setAttribute("aria-pressed", String(on));
  renderCalls();
}

function renderCalls() {
  for (const item of callItems.values()) item.remove();
  callItems.clear();
  if (verbose) {
    // Oldest first, each inserted at the top: newest first.
    for (const call of [...calls.values()].sort((a, b) => a.id - b.id)) renderCall(call, false);
  }
  renderCallCount();
}

function renderCallCount() {
  const count = calls.size;
  elements.callCount.textContent = count === 0 ? "" : `${count} call${count === 1 ? "" : "s"}`;
  elements.note.textContent = verbose
    ? count === 0
      ? "Waiting for the agent's first tool call…"
      : ""
    : "Turn on Verbose to watch every tool call live. Shift+click it to download the last 200 calls as JSON.";
  elements.note.hidden = elements.note.textContent === "";
}

/**
 * Shows one call: a new one at the top, a known one updated in place (it started, then ended).
 * @param {LoggedCall} call
 * @param {boolean} live whether it just happened (the newest call opens, the previous closes)
 */
function renderCall(call, live) {
  const existing = callItems.get(call.id);
  const item = document.createElement("li");
  item.className = "call";
  item.dataset.status = call.ok === null ? "running" : call.ok ? "ok" : "error";
  item.dataset.tool = call.tool;
  const details = document.createElement("details");
  const previous = existing?.querySelector("details");
  details.open = previous?.open ?? false;
  if (previous?.dataset.touched === "true") details.dataset.touched = "true";
  if (previous === autoOpened) autoOpened = details;
  details.append(callSummary(call), callBody(call));
  item.append(details);
  if (existing !== undefined) existing.replaceWith(item);
  else elements.calls.prepend(item);
  callItems.set(call.id, item);
  if (live && existing === undefined) openOnlyNewest(details);
}

/** The newest call opens itself, unless the person opened another one to read it. */
let autoOpened = /** @type {HTMLDetailsElement|null} */ (null);
/** @param {HTMLDetailsElement} details */
function openOnlyNewest(details) {
  if (autoOpened !== null && autoOpened.isConnected && autoOpened.dataset.touched !== "true") autoOpened.open = false;
  details.open = true;
  autoOpened = details;
}
elements.calls.addEventListener("click", (event) => {
  const summary = /** @type {HTMLElement} */ (event.target).closest("summary");
  if (summary?.parentElement instanceof HTMLDetailsElement) summary.parentElement.dataset.touched = "true";
});

/** @param {LoggedCall} call */
function callSummary(call) {
  const summary = document.createElement("summary");
  const status = span("status", "");
  status.title = call.ok === null ? "running" : call.ok ? "succeeded" : `failed: ${call.error?.code}`;
  const tool = document.createElement("code");
  tool.className = "tool";
  tool.textContent = call.tool;
  const duration = span("duration", call.durationMs === null ? "…" : formatDuration(call.durationMs));
  const time = document.createElement("time");
  time.dateTime = call.startedAt;
  time.textContent = new Date(call.startedAt).toLocaleTimeString([], { hour12: false });
  const head = span("summary-head", "");
  head.append(status, tool, duration, time);
  const preview = span("preview", previewOf(call));
  if (call.ok === false) preview.classList.add("preview-error");
  summary.append(head, preview);
  return summary;
}

/** @param {LoggedCall} call */
function callBody(call) {
  const body = document.createElement("div");
  body.className = "call-body";
  const noArguments = Object.keys(call.arguments).length === 0;
  body.append(heading("Arguments"), pre("fields", noArguments ? "(none)" : fieldLines(call.arguments)));
  if (call.ok === null) {
    body.append(paragraph("waiting", "Waiting for the browser…"));
  } else if (call.ok === false && call.error !== undefined) {
    const error = document.createElement("div");
    error.className = "error";
    const code = document.createElement("code");
    code.textContent = call.error.code;
    error.append(code, document.createTextNode(` ${call.error.message}`));
    if (call.error.hint) error.append(paragraph("hint", call.error.hint));
    if (call.error.suggestions?.length)
      error.append(paragraph("suggestions", `Suggestions: ${call.error.suggestions.join(", ")}`));
    body.append(heading("Error"), error);
  } else if (call.result !== undefined) {
    const { tree, ...rest } = call.result;
    if (typeof tree === "string") body.append(heading("Tree"), pre("tree", tree));
    if (Object.keys(rest).length > 0)
      body.append(heading(typeof tree === "string" ? "Details" : "Result"), pre("fields", fieldLines(rest)));
  }
  return body;
}

/** @param {LoggedCall} call */
function previewOf(call) {
  if (call.ok === false) return `${call.error?.code}: ${call.error?.message}`;
  const args = Object.entries(call.arguments)
    .map(([name, value]) => `${name}=${typeof value === "string" ? JSON.stringify(value) : JSON.stringify(value)}`)
    .join(" ");
  const tree = call.result?.["tree"];
  const outcome = typeof tree === "string" ? tree.split("\n", 1)[0] : (call.result?.["progress"] ?? "");
  const text = [args, outcome].filter((part) => part !== "").join(" → ");
  return text.length > PREVIEW_CHARACTERS ? `${text.slice(0, PREVIEW_CHARACTERS)}…` : text;
}

/**
 * An object as "name: value" lines, values that are not strings in JSON: easy to scan.
 * @param {Object<string, unknown>} object
 */
function fieldLines(object) {
  return Object.entries(object)
    .map(([name, value]) => `${name}: ${typeof value === "string" ? value : JSON.stringify(value)}`)
    .join("\n");
}

/**
 * @param {number} ms
 */
function formatDuration(ms) {
  return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
}

/**
 * @param {string} className
 * @param {string} text
 */
function span(className, text) {
  const element = document.createElement("span");
  element.className = className;
  element.textContent = text;
  return element;
}

/**
 * @param {string} text
 */
function heading(text) {
  const element = document.createElement("h3");
  element.textContent = text;
  return element;
}

/**
 * @param {string} className
 * @param {string} text
 */
function pre(className, text) {
  const element = document.createElement("pre");
  element.className = className;
  element.textContent = text;
  return element;
}

/**
 * @param {string} className
 * @param {string} text
 */
function paragraph(className, text) {
  const element = document.createElement("p");
  element.className = className;
  element.textContent = text;
  return element;
}

// ---- The JSON dump -----------------------------------------------------------------------------

/**
 * Shift+click on Verbose: the last 200 request/response pairs, oldest first, as a JSON file in
 * the downloads folder. They are the background's redacted log, nothing more.
 */
function downloadDump() {
  const ordered = [...calls.values()].sort((a, b) => a.id - b.id);
  const dump = {
    format: "allwright-call-log",
    version: 1,
    exportedAt: new Date().toISOString(),
    browser: state?.browser ?? null,
    extensionVersion: state?.extensionVersion ?? null,
    client: state?.client ?? null,
    access: state?.access ?? null,
    calls: ordered.map((call) => ({
      id: call.id,
      startedAt: call.startedAt,
      durationMs: call.durationMs,
      request: { tool: call.tool, arguments: call.arguments, claimedAccess: call.claimedAccess },
      response:
        call.ok === null
          ? { pending: true }
          : call.ok
            ? { ok: true, result: call.result }
            : { ok: false, error: call.error },
    })),
  };
  const blob = new Blob([`${JSON.stringify(dump, null, 2)}\n`], { type: "application/json" });
  const url = URL.createObjectURL(blob);
  const stamp = dump.exportedAt.replace(/[:.]/g, "-");
  api.downloads
    .download({ url, filename: `allwright-calls-${stamp}.json`, saveAs: false, conflictAction: "uniquify" })
    .catch((error) => {
      elements.note.hidden = false;
      elements.note.textContent = `The download failed: ${error.message}`;
    })
    .finally(() => setTimeout(() => URL.revokeObjectURL(url), 60_000));
}

// ---- Start -------------------------------------------------------------------------------------

fetch(api.runtime.getURL("shared/tool-contract.json"))
  .then((response) => response.json())
  .then((loaded) => {
    contract = loaded;
    renderToolNames();
  })
  .catch(() => {});
api.storage.local
  .get("panelVerbose")
  .then((stored) => setVerbose(stored?.panelVerbose === true))
  .catch(() => setVerbose(false));
showHost(null);
renderCallCount();
connect();
