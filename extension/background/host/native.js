// @ts-check
// The native-messaging connection to the allwright host (docs/protocol/channels.md, section 2).
//
// One port per worker lifetime. The open port keeps Chrome's service worker alive; if the worker
// dies anyway, or the host exits, the port closes, the host fails the calls in flight, and the
// next worker start (or the backoff timer below) connects again and says hello. Nothing here
// has to survive a restart: the chunk assembler and the reconnect counter belong to one port.

import { api, asToolError, messages } from "../platform.js";
import { ChunkAssembler, ChunkError } from "./chunks.js";
import { boundedReply, withinCallBudget } from "./call-deadline.js";
import { rememberLateOutcome, takeLateOutcomes } from "./late-outcomes.js";
import { loadToolContract } from "../tools/validate.js";
import { CALL_TIMING } from "../build-config.js";
import { timingNow } from "./call-timing.js";
import { replySent } from "./after-reply.js";
import { thrownMessage } from "../../shared/thrown.js";

/**
 * Whether a tool changes the page (its contract's `readOnly` is false): its lost answer is
 * `outcome_unknown`, never `timeout` (docs/protocol/action-safety.md, "Nothing done twice"). A tool the
 * contract does not know (the MCP server's bridge calls) counts as changing it, the safer side.
 * @param {string} tool
 */
async function changesThePage(tool) {
  const contract = await loadToolContract(api.runtime.getURL).catch(() => null);
  const entry = contract !== null && Object.hasOwn(contract.tools, tool) ? contract.tools[tool] : undefined;
  return entry?.readOnly !== true;
}

/**
 * A result with the late outcomes of earlier calls added (late-outcomes.js), when there are any.
 * @param {Record<string, unknown>} result
 * @returns {Record<string, unknown>}
 */
function withLateOutcomes(result) {
  if (typeof result !== "object" || result === null || Array.isArray(result)) return result;
  const late = takeLateOutcomes();
  return late.length === 0 ? result : { ...result, lateOutcomes: late };
}

/** Reconnect delays grow from the first to the last value, doubling. */
const FIRST_RETRY_MS = 500;
const LAST_RETRY_MS = 30_000;
/** A port that stays open this long counts as a good connection and resets the backoff. */
const STABLE_AFTER_MS = 5_000;

/**
 * @param {{hostName: string, browser: "chrome"|"firefox",
 *   runTool: (tool: string, args: unknown, claimedAccess: ToolAccess|null, signal: AbortSignal) => Promise<object>,
 *   onSession: (session: NativeSession|null) => void,
 *   onConnectionChange: () => void}} options
 *   `onSession` hears each MCP session start, and null when its client leaves or the host goes.
 */
export function createNativeConnection({ hostName, browser, runTool, onSession, onConnectionChange }) {
  /** @type {chrome.runtime.Port|null} */
  let port = null;
  let failures = 0;
  /** @type {ReturnType<typeof setTimeout>|null} */
  let retryTimer = null;
  /** @type {ReturnType<typeof setTimeout>|undefined} */
  let stableTimer;
  /**
   * The calls in flight, each with the controller that cancels what is left of it once its
   * answer was given by someone else: the host failed it when this port closed, or the budget
   * ran out (docs/protocol/action-safety.md, "Nothing done twice"). An action then takes no further step
   * that acts (the trusted fallback click); its result is reported late.
   * @type {Set<AbortController>}
   */
  const callsInFlight = new Set();

  function ensureConnected() {
    if (port !== null || retryTimer !== null) return;
    connect();
  }

  function connect() {
    retryTimer = null;
    let opened;
    try {
      opened = api.runtime.connectNative(hostName);
    } catch (error) {
      console.warn(`allwright: cannot start the native host ${hostName}: ${thrownMessage(error)}`);
      scheduleReconnect();
      return;
    }
    port = opened;
    const assembler = new ChunkAssembler();
    opened.onMessage.addListener((message) => receive(opened, assembler, message));
    opened.onDisconnect.addListener(() => {
      // Reading lastError marks it as handled in Chrome; Firefox puts the reason on the port.
      const reason = api.runtime.lastError?.message ?? opened.error?.message ?? "closed";
      console.warn(`allwright: native host ${hostName} disconnected: ${reason}`);
      clearTimeout(stableTimer);
      // The host answers these calls extension_disconnected or outcome_unknown now.
      for (const controller of callsInFlight) controller.abort();
      callsInFlight.clear();
      if (port === opened) {
        port = null;
        onSession(null);
        onConnectionChange();
      }
      scheduleReconnect();
    });
    stableTimer = setTimeout(() => {
      failures = 0;
    }, STABLE_AFTER_MS);
    opened.postMessage(messages.hello(browser, api.runtime.getManifest().version));
    onConnectionChange();
  }

  function scheduleReconnect() {
    if (retryTimer !== null) return;
    const delay = Math.min(LAST_RETRY_MS, FIRST_RETRY_MS * 2 ** failures);
    failures += 1;
    retryTimer = setTimeout(connect, delay);
  }

  /**
   * @param {chrome.runtime.Port} from
   * @param {ChunkAssembler} assembler
   * @param {unknown} message what the native host sent, checked here before it is used
   */
  function receive(from, assembler, message) {
    failures = 0;
    if (messages.isNativeChunk(message)) {
      let whole;
      try {
        whole = assembler.add(message);
      } catch (error) {
        if (!(error instanceof ChunkError)) throw error;
        console.error(`allwright: ${error.message}`);
        return;
      }
      if (whole !== null) receive(from, assembler, whole);
      return;
    }
    if (messages.isNativeCall(message)) {
      answer(from, message);
      return;
    }
    if (messages.isNativeSession(message)) {
      onSession(message);
      return;
    }
    if (messages.isNativeSessionEnded(message)) {
      onSession(null);
      return;
    }
    console.warn(
      "allwright: ignoring an unknown message from the native host",
      /** @type {{type?: unknown}} */ (message)?.type,
    );
  }

  /**
   * @param {chrome.runtime.Port} from
   * @param {NativeCall} call
   */
  async function answer(from, call) {
    const received = CALL_TIMING ? timingNow() : 0;
    let reply;
    const controller = new AbortController();
    callsInFlight.add(controller);
    try {
      const claimedAccess = messages.isToolAccess(call.access) ? call.access : null;
      const changesPage = await changesThePage(call.tool);
      const result = await withinCallBudget(
        call,
        () => runTool(call.tool, call.arguments, claimedAccess, controller.signal),
        {
          changesPage,
          onExpiry: () => controller.abort(),
          onLateOutcome: (outcome) => rememberLateOutcome(call, outcome),
        },
      );
      const timed = /** @type {{timing?: object}} */ (result);
      if (CALL_TIMING && typeof timed?.timing === "object") {
        timed.timing = { ...timed.timing, backgroundReceived: received, backgroundAnswered: timingNow() };
      }
      // runTool answers a result object (tools.js).
      reply = boundedReply(
        messages.resultOk(call.id, withLateOutcomes(/** @type {Record<string, unknown>} */ (result))),
        call.tool,
      );
    } catch (error) {
      reply = messages.resultError(call.id, asToolError(error));
    } finally {
      callsInFlight.delete(controller);
    }
    // A port that closed meanwhile has no one to answer: the host already failed this call.
    try {
      if (from === port) from.postMessage(reply);
    } catch (error) {
      console.warn(`allwright: could not answer call ${call.id}: ${thrownMessage(error)}`);
    } finally {
      replySent();
    }
  }

  /**
   * Sends a message to the host, when connected (the side panel's access changes).
   * @param {BackgroundToNative} message
   */
  function sendToHost(message) {
    try {
      port?.postMessage(message);
    } catch (error) {
      console.warn(`allwright: could not tell the host: ${thrownMessage(error)}`);
    }
  }

  return { ensureConnected, sendToHost, isHostConnected: () => port !== null };
}
