// @ts-check
// execute_js (Dev mode only; docs/protocol/shadow-and-execute-js.md, "execute_js"): runs the agent's JavaScript in the
// page's main world and returns {value, type, truncated}.
//
// - Chrome, top frame: the debugger's Runtime.evaluate (DevTools' console path, which the page's
//   Content-Security-Policy does not govern), then Runtime.callFunctionOn with the page half
//   (page-script.js) to describe an object result. On timeout, Runtime.terminateExecution stops
//   a script that is still running.
// - Firefox, and Chrome's other frames: scripting.executeScript in world "MAIN" with the page half,
//   which evaluates the code with indirect eval: a page whose policy forbids eval refuses it
//   (`execution_blocked`). A script that never yields cannot be stopped from there: the call
//   answers `timeout` and the page stays busy until the browser offers to stop it.
//
// Whatever the page returns or does, the answer that leaves here is parsed in the background's
// own realm and at most MAX_VALUE_CHARS long.

import { api, BROWSER, fail } from "../platform.js";
import { requireFrame, resolveTab } from "../frames/frames.js";
import { withDebugger } from "./debugger-session.js";
import { pageScript } from "./page-script.js";
import { DESCRIBE_BUDGET_MS } from "../host/budgets.js";
import { thrownMessage } from "../../shared/thrown.js";

/** The longest `value`, as JSON text (the tool's description promises it). */
export const MAX_VALUE_CHARS = 100_000;

const sleep = (/** @type {number} */ ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * @param {ToolArguments<"execute_js">} args
 */
export async function executeJs({ code, timeoutMs, frameId = 0, tabId }) {
  const tab = await resolveTab(tabId);
  if (frameId !== 0) await requireFrame(tab.id, frameId);
  const answer =
    BROWSER === "chrome" && frameId === 0
      ? await evaluateWithDebugger(tab.id, code, timeoutMs)
      : await evaluateInMainWorld(tab.id, frameId, code, timeoutMs);
  return resultOf(answer, timeoutMs);
}

/**
 * Turns the page's answer into the tool's result or error, trusting nothing about its shape.
 * @param {any} answer
 * @param {number} timeoutMs
 */
export function resultOf(answer, timeoutMs) {
  const outcome = answer?.outcome;
  if (outcome === "thrown") {
    fail("script_error", `the code threw: ${String(answer.message).slice(0, 2000)}`, {
      hint: "Fix the code and run it again.",
    });
  }
  if (outcome === "blocked") {
    fail(
      "execution_blocked",
      `the page's Content-Security-Policy forbids running code: ${String(answer.message).slice(0, 2000)}`,
      {
        hint:
          BROWSER === "firefox"
            ? "This page forbids eval (no 'unsafe-eval' in its script-src). Use the reading and action tools instead."
            : "This frame's policy forbids eval. Run the code in the top frame (frameId 0), or use the reading and action tools.",
      },
    );
  }
  if (outcome === "timeout") timedOut(timeoutMs);
  if (outcome !== "value" || typeof answer.json !== "string" || typeof answer.type !== "string") {
    fail(
      "script_error",
      "the page gave no usable answer (its own scripts may have replaced the built-ins the answer relies on)",
      {
        hint: "Return a simpler value, such as a string.",
      },
    );
  }
  let truncated = answer.truncated === true;
  let value;
  if (answer.json.length > MAX_VALUE_CHARS + 1_000) {
    // The page's own JSON or built-ins wrote more than the budget allows: keep its beginning as text.
    value = answer.json.slice(0, MAX_VALUE_CHARS);
    truncated = true;
  } else {
    try {
      value = JSON.parse(answer.json);
    } catch {
      value = answer.json.slice(0, MAX_VALUE_CHARS);
      truncated = true;
    }
  }
  return { value, type: answer.type.slice(0, 20), truncated };
}

/**
 * @returns {never}
 * @param {number} timeoutMs
 */
function timedOut(timeoutMs) {
  fail("timeout", `the code did not finish within ${timeoutMs} ms`, {
    hint: "Make it faster, or pass a larger timeoutMs (at most 60000).",
  });
}

/**
 * Firefox, and frames other than the top one in Chrome: the page half evaluates the code.
 * @returns {Promise<unknown>}
 * @param {number} tabId
 * @param {number} frameId
 * @param {string} code
 * @param {number} timeoutMs
 */
async function evaluateInMainWorld(tabId, frameId, code, timeoutMs) {
  const injection = api.scripting.executeScript({
    target: { tabId, frameIds: [frameId] },
    world: "MAIN",
    func: pageScript,
    args: ["evaluate", code, timeoutMs, MAX_VALUE_CHARS],
  });
  // The page half has its own timer, but a script that never yields keeps it from firing.
  const deadline = sleep(timeoutMs + DESCRIBE_BUDGET_MS).then(() => ({ outcome: "timeout" }));
  let results;
  try {
    results = await Promise.race([injection, deadline]);
  } catch (error) {
    fail("script_failed", `the code could not be injected into frame ${frameId}: ${thrownMessage(error)}`, {
      hint: "Browser pages and the extension gallery cannot run code; use an ordinary web page.",
    });
  }
  if (!Array.isArray(results)) return results;
  const [first] = results;
  if (first?.error !== undefined) return { outcome: "thrown", message: String(first.error?.message ?? first.error) };
  return first?.result;
}

/**
 * Chrome's top frame: Runtime.evaluate, then the page half describes an object result.
 * @returns {Promise<unknown>}
 * @param {number} tabId
 * @param {string} code
 * @param {number} timeoutMs
 */
function evaluateWithDebugger(tabId, code, timeoutMs) {
  return withDebugger(tabId, async (send) => {
    const deadline = Date.now() + timeoutMs;
    const evaluation = send("Runtime.evaluate", {
      expression: code,
      // A synchronous script is stopped by the debugger itself after timeoutMs.
      timeout: timeoutMs,
      awaitPromise: true,
      returnByValue: false,
      userGesture: false,
      objectGroup: "allwright-execute-js",
    });
    const evaluated = await raceDeadline(evaluation, deadline, send);
    if (evaluated === null) return { outcome: "timeout" };
    if (evaluated.exceptionDetails !== undefined) {
      const details = evaluated.exceptionDetails;
      // A script stopped by `timeout` reports an exception without an exception object.
      if (details.exception === undefined && Date.now() >= deadline - 50) return { outcome: "timeout" };
      return { outcome: "thrown", message: String(details.exception?.description ?? details.text ?? "exception") };
    }
    const remote = evaluated.result ?? {};
    if (remote.objectId === undefined) return describePrimitive(remote);
    try {
      const described = await raceDeadline(
        send("Runtime.callFunctionOn", {
          functionDeclaration: pageScript.toString(),
          objectId: remote.objectId,
          arguments: [{ value: "describe" }, { objectId: remote.objectId }, { value: 0 }, { value: MAX_VALUE_CHARS }],
          awaitPromise: true,
          returnByValue: true,
        }),
        Date.now() + DESCRIBE_BUDGET_MS,
        send,
      );
      if (described === null) return { outcome: "timeout" };
      if (described.exceptionDetails !== undefined) {
        return { outcome: "thrown", message: `the value could not be described: ${described.exceptionDetails.text}` };
      }
      return described.result?.value;
    } finally {
      await send("Runtime.releaseObjectGroup", { objectGroup: "allwright-execute-js" }).catch(() => {});
    }
  });
}

/**
 * A command's answer, or null once the deadline passed; then any script still running in the
 * page is stopped (Runtime.terminateExecution), and detaching the debugger ends the command.
 * @template T
 * @param {Promise<T>} command
 * @param {number} deadline
 * @param {import("./debugger-session.js").SendCommand} send
 * @returns {Promise<T|null>}
 */
async function raceDeadline(command, deadline, send) {
  /** @type {ReturnType<typeof setTimeout>|undefined} */
  let timer;
  /** @type {Promise<null>} */
  const expiry = new Promise((resolve) => {
    timer = setTimeout(() => resolve(null), Math.max(0, deadline - Date.now()));
  });
  const answer = await Promise.race([command, expiry]).finally(() => clearTimeout(timer));
  if (answer === null) {
    command.catch(() => {});
    await send("Runtime.terminateExecution", {}).catch(() => {});
  }
  return answer;
}

/**
 * A primitive RemoteObject (Chrome DevTools Protocol, Runtime domain) as the page half would have
 * described it: `unserializableValue` carries NaN, Infinity, -0 and bigints ("12n").
 * @param {{type?: string, subtype?: string, value?: unknown, unserializableValue?: string}} remote
 */
function describePrimitive(remote) {
  const type = remote.subtype === "null" ? "null" : String(remote.type ?? "undefined");
  let value = remote.unserializableValue ?? remote.value ?? null;
  let truncated = false;
  if (typeof value === "string" && value.length > MAX_VALUE_CHARS) {
    value = `${value.slice(0, MAX_VALUE_CHARS - 1)}…`;
    truncated = true;
  }
  return { outcome: "value", json: JSON.stringify(value), type, truncated };
}
