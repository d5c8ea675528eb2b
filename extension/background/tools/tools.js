// @ts-check
// The tool router: validates a call's arguments, then runs the tool against the right tab and
// frames (docs/protocol/tools.md, "The tool table"). Results and errors leave as plain objects.

import { api, asToolError, fail, messages, ToolFailure } from "../platform.js";
import { loadToolContract, validateArguments } from "./validate.js";
import { callFrame, resolveTab } from "../frames/frames.js";
import { goBack, goForward, navigate, reload } from "../tabs/navigation.js";
import {
  clickAx,
  drag,
  fillForm,
  hover,
  pressKey,
  scroll,
  selectOption,
  setField,
  typeAx,
  waitForStable,
} from "../actions/actions.js";
import { closeTab, listTabs, newTab, selectTab } from "../tabs/tabs.js";
import { resize } from "../tabs/window-size.js";
import { screenshot } from "../captures/screenshot.js";
import { observeRequestsWhileAgentWorks } from "../actions/activity.js";
import { assembleSnapshot, contextIdFor } from "../reads/snapshot-plan.js";
import { listFrames } from "../frames/frame-list.js";
import { agentToolOfBridgeCall, isBridgeCall } from "../host/bridge.js";
import { runLoggedBridgeCall } from "../side-panel/bridge-call-log.js";
import { getShadowDom, shadowDomQuery } from "../shadow-and-js/shadow-dom.js";
import { executeJs } from "../shadow-and-js/execute-js.js";
import { getAccessibilityTree, getFrames, iframeClick, iframeRead, iframeType } from "../frames/frame-tools.js";
import { promoteIframe } from "../frames/promote-iframe.js";
import { accessRefusal, activeAccess } from "./tool-access.js";
import { logCallStart } from "../side-panel/call-log.js";
import { prepareCoresAfter } from "../core/core-warmup.js";
import { refuseLocalFileArguments } from "./local-files.js";
import { find } from "../reads/find.js";
import { waitFor } from "../reads/wait-for.js";
import { networkRecordsOf, recordRequestsWhileAgentWorks } from "../records/network-records.js";
import { consoleRecordsOf } from "../records/console-records.js";
import { isAgentTabNow } from "../tabs/agent-tabs.js";
import { getDownload, listDownloads } from "../records/agent-downloads.js";
import { savePdf } from "../captures/save-pdf.js";

/**
 * Each agent tool's handler, typed from the tool contract: a handler takes its tool's validated
 * arguments (extension/types/tool-arguments.d.ts), so one that reads an argument the contract
 * does not define, or reads it as another type, fails the type check.
 * @type {{readonly [Tool in keyof ToolArgumentsByTool]: (args: ToolArguments<Tool>, options: {signal?: AbortSignal}) => Promise<object>}}
 */
const TOOLS = Object.freeze({
  get_accessibility_tree: getAccessibilityTree,
  accessibility_snapshot: accessibilitySnapshot,
  screenshot,
  save_pdf: savePdf,
  navigate,
  click_ax: clickAx,
  type_ax: typeAx,
  set_field: setField,
  select_option: selectOption,
  fill_form: fillForm,
  hover,
  drag,
  press_key: pressKey,
  scroll,
  go_back: goBack,
  go_forward: goForward,
  reload,
  wait_for_stable: waitForStable,
  wait_for: waitFor,
  find,
  network_requests: networkRequests,
  list_downloads: listDownloads,
  get_download: getDownload,
  console_messages: consoleMessages,
  list_tabs: listTabs,
  new_tab: newTab,
  select_tab: selectTab,
  close_tab: closeTab,
  resize,
  get_shadow_dom: getShadowDom,
  shadow_dom_query: shadowDomQuery,
  execute_js: executeJs,
  get_frames: getFrames,
  iframe_read: iframeRead,
  iframe_click: iframeClick,
  iframe_type: iframeType,
  promote_iframe: promoteIframe,
  upload_file: uploadFileWithoutServer,
});

/**
 * upload_file sent to the extension as it is: its files are read by allwright's MCP server,
 * inside the folders the person allowed, which then calls bridge_attach_files; the extension
 * reads no file itself.
 * @returns {Promise<never>}
 */
async function uploadFileWithoutServer() {
  fail("not_supported_here", "upload_file's files are read by allwright's MCP server, not by the extension", {
    hint: "Call upload_file through `allwright mcp --upload-root DIR`.",
  });
}

/**
 * Runs one tool call. Resolves with the result object, or rejects with a ToolFailure (or an
 * unexpected error, which the caller turns into a structured one). Every agent tool call is
 * logged for the side panel (call-log.js), refused ones included.
 * @param {string} tool
 * @param {unknown} rawArguments
 * @param {ToolAccess|null} [claimedAccess] the access the MCP server lists tools for
 * @param {AbortSignal} [signal] aborted once the call was answered without its result (the port
 *   closed, the budget ran out): an action then takes no further step that acts
 * @returns {Promise<Record<string, unknown>>}
 */
export async function runTool(tool, rawArguments, claimedAccess = null, signal = undefined) {
  // The MCP server's own calls (bridge.js) are not agent tools and are not in the contract; the
  // one that starts a click_ax or hover with real input passes the tier gate as that tool.
  if (isBridgeCall(tool)) {
    const actingFor = agentToolOfBridgeCall(tool, rawArguments);
    if (actingFor !== null) await refuseOutsideAccess(actingFor);
    return runLoggedBridgeCall(tool, rawArguments, claimedAccess);
  }
  const logCallEnd = await logCallStart(tool, rawArguments, claimedAccess);
  try {
    const result = await runAgentTool(tool, rawArguments, signal);
    logCallEnd({ ok: true, result });
    return result;
  } catch (thrown) {
    logCallEnd({ ok: false, error: asToolError(thrown) });
    throw thrown;
  }
}

/**
 * @param {string} tool
 * @param {unknown} rawArguments
 * @param {AbortSignal} [signal] aborted once the call's answer was given without it (native.js)
 */
async function runAgentTool(tool, rawArguments, signal) {
  const contract = await loadToolContract((file) => api.runtime.getURL(file));
  await refuseOutsideAccess(tool);
  await refuseLocalFileArguments(contract, tool, rawArguments);
  const checked = validateArguments(contract, tool, rawArguments);
  if ("error" in checked) fail(checked.error.code, checked.error.message, checked.error);
  observeRequestsWhileAgentWorks(api.webRequest);
  recordRequestsWhileAgentWorks(api.webRequest, isAgentTabNow);
  // The trust boundary: validateArguments checked the arguments against this tool's contract, the
  // one ToolArguments<tool> is generated from, so the handler takes them as its contract types them.
  const handler = /** @type {(args: any, options: {signal?: AbortSignal}) => Promise<Record<string, unknown>>} */ (
    TOOLS[/** @type {keyof ToolArgumentsByTool} */ (tool)]
  );
  const result = await handler(checked.value, { signal });
  prepareCoresAfter(tool, checked.value);
  return result;
}

/**
 * The tier gate: the tool must be listed for the extension's active access, never for the
 * access the call claims, so no client of the local socket can step outside what the person
 * sees in the side panel (docs/protocol/access.md, "Tool access").
 * @param {string} tool
 */
async function refuseOutsideAccess(tool) {
  const contract = await loadToolContract((file) => api.runtime.getURL(file));
  const refusal = accessRefusal(contract, tool, await activeAccess());
  if (refusal !== null) throw new ToolFailure(refusal);
}

/**
 * Collects one document per frame, each in its own frame, sequentially and depth-first from the
 * top; any frame that cannot answer fails the whole call, because a snapshot silently missing a
 * frame would mislead the agent (docs/protocol/channels.md, section 3: "a frame that does not answer fails
 * the call").
 * @param {ToolArguments<"accessibility_snapshot">} args
 */
async function accessibilitySnapshot({ tabId, format, mode, timeoutMs }) {
  const deadline = Date.now() + timeoutMs;
  const tab = await resolveTab(tabId);
  const frames = await listFrames(tab.id);
  if (frames.length === 0) {
    fail("frame_detached", `tab ${tab.id} shows no document right now`, {
      hint: "Wait for the page to load, then retry.",
    });
  }
  const documents = [];
  /** @type {string[]} Where each document's core ran (docs/protocol/core.md, "The core in the service worker"). */
  const engines = [];
  for (const frame of frames) {
    /** @type {{format: string, contextId: string, parentContextId: string|null, mode?: string}} */
    const snapshotArguments = {
      format,
      contextId: contextIdFor(tab.id, frame.frameId),
      parentContextId: frame.parentFrameId < 0 ? null : contextIdFor(tab.id, frame.parentFrameId),
    };
    if (mode !== undefined) snapshotArguments.mode = mode;
    const request = messages.contentToolRequest("snapshot_document", snapshotArguments);
    const result = await callFrame(tab.id, frame.frameId, request, {
      deadline,
      frameLabel: `frame ${frame.frameId} (${frame.url})`,
    });
    if (typeof result.document !== "string") {
      fail("script_failed", `frame ${frame.frameId} (${frame.url}) returned no document`);
    }
    documents.push(result.document);
    engines.push(typeof result.engine === "string" ? result.engine : "unknown");
  }
  return { format, snapshot: assembleSnapshot(format, documents), documentCount: documents.length, engines };
}

/**
 * `network_requests` in a person's browser: the tab's records after `since`, as they are
 * (network-records.js); allwright's MCP server filters them, masks their credentials and prints
 * them (src/page_observations.rs).
 * @param {ToolArguments<"network_requests">} args
 */
async function networkRequests({ tabId, since }) {
  const tab = await resolveTab(tabId);
  const records = networkRecordsOf(tab.id);
  return { ...records, requests: records.requests.filter((request) => request.sequence > (since ?? 0)) };
}

/**
 * `console_messages` in a person's browser: the tab's entries after `since`, as the console hook
 * saw them (console-records.js); allwright's MCP server filters and prints them.
 * @param {ToolArguments<"console_messages">} args
 */
async function consoleMessages({ tabId, since }) {
  const tab = await resolveTab(tabId);
  const records = consoleRecordsOf(tab.id);
  return { ...records, entries: records.entries.filter((entry) => entry.sequence > (since ?? 0)) };
}
