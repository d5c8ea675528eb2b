// @ts-check
// The side panel's record of the agent actions that allwright's MCP server performs with real
// pointer input over WebDriver BiDi (docs/protocol/browser-bridge.md, "The browser bridge"): a click_ax or hover
// in a browser allwright launched reaches the extension only as bridge_begin_input, then
// bridge_finish_input or bridge_abort_input. The person watching the panel must still see the
// action, so the begin opens a log entry as the agent tool and the finish or abort closes it.

import { asToolError, messages } from "../platform.js";
import { agentToolOfBridgeCall, runBridgeCall } from "../host/bridge.js";
import { logCallStart } from "./call-log.js";

/** The log entries still open, by the input's token (one per real-input action in flight). */
const openEntries = /** @type {Map<string, (outcome: any) => void>} */ (new Map());

/** How many actions may be in flight before the oldest open entry is given up (a lost finish). */
const MOST_OPEN_ENTRIES = 50;

/**
 * Runs one bridge call, logging it as the agent action it carries out when it is one: a click or
 * a hover (an element screenshot 's "locate" is not an action, and its capture never reaches the
 * extension).
 * @param {string} tool
 * @param {unknown} rawArguments
 * @param {ToolAccess|null} claimedAccess
 */
export async function runLoggedBridgeCall(tool, rawArguments, claimedAccess) {
  const args = /** @type {Record<string, unknown>} */ (rawArguments ?? {});
  const actingFor = agentToolOfBridgeCall(tool, rawArguments);
  if (tool === "bridge_attach_files") {
    // upload_file's extension route: one call is the whole action, logged with the files' names.
    const logCallEnd = await logCallStart("upload_file", uploadArgumentsToLog(args), claimedAccess);
    try {
      const result = await runBridgeCall(tool, rawArguments);
      logCallEnd({ ok: true, result });
      return result;
    } catch (thrown) {
      logCallEnd({ ok: false, error: asToolError(thrown) });
      throw thrown;
    }
  }
  if (actingFor === "click_ax" || actingFor === "hover" || actingFor === "upload_file" || actingFor === "drag") {
    // The agent's own arguments: the kind of input is the tool's name already.
    const agentArguments =
      actingFor === "upload_file"
        ? uploadArgumentsToLog(args)
        : Object.fromEntries(Object.entries(args).filter(([name]) => name !== "kind"));
    const logCallEnd = await logCallStart(actingFor, { ...agentArguments, input: "bidi" }, claimedAccess);
    try {
      const begun = /** @type {Record<string, unknown>} */ (await runBridgeCall(tool, rawArguments));
      if (typeof begun.token === "string") keepOpen(begun.token, logCallEnd);
      return begun;
    } catch (thrown) {
      logCallEnd({ ok: false, error: asToolError(thrown) });
      throw thrown;
    }
  }
  const token = typeof args.token === "string" ? args.token : undefined;
  const logCallEnd = token === undefined ? undefined : openEntries.get(token);
  if (token === undefined || logCallEnd === undefined) return runBridgeCall(tool, rawArguments);
  openEntries.delete(token);
  try {
    const result = await runBridgeCall(tool, rawArguments);
    if (tool === "bridge_abort_input") {
      logCallEnd({
        ok: false,
        error: messages.toolError("not_actionable", "the real pointer input was not sent", {
          hint: "The MCP server stopped before the input (the element was covered or not found, or a dialog opened) and told the agent why.",
        }),
      });
    } else {
      logCallEnd({ ok: true, result });
    }
    return result;
  } catch (thrown) {
    logCallEnd({ ok: false, error: asToolError(thrown) });
    throw thrown;
  }
}

/**
 * An upload's arguments as the log keeps them: the target and the files' names, never their bytes.
 * @param {Record<string, unknown>} args
 */
function uploadArgumentsToLog(args) {
  const files = Array.isArray(args.files) ? args.files : [];
  return {
    ref_id: args.ref_id,
    frameId: args.frameId,
    tabId: args.tabId,
    files: files.map((file) => (typeof file?.name === "string" ? file.name : "?")),
  };
}

/**
 * @param {string} token
 * @param {(outcome: any) => void} logCallEnd
 */
function keepOpen(token, logCallEnd) {
  if (openEntries.size >= MOST_OPEN_ENTRIES) {
    const [oldest] = openEntries.keys();
    openEntries.delete(oldest);
  }
  openEntries.set(token, logCallEnd);
}
