// @ts-check
// Chrome only: a chrome.debugger session on a tab for the length of one tool call
// (get_shadow_dom, shadow_dom_query, execute_js in the top frame). The debugger is attached, the
// work runs, and it is detached whatever happened, so that no session outlives its call (Chrome
// shows a "started debugging this browser" bar while one is open). Calls on the same tab wait
// for each other: a tab takes one extension debugger at a time.

import { api, fail } from "../platform.js";
import { thrownMessage } from "../../shared/thrown.js";

const DEBUGGER_PROTOCOL_VERSION = "1.3";

/** The last session begun on each tab, which the next one waits for. @type {Map<number, Promise<unknown>>} */
const sessionsByTab = new Map();

/**
 * @typedef {(method: string, params?: Object<string, unknown>) => Promise<any>} SendCommand
 */

/**
 * Runs `work` with a debugger attached to the tab's top-level target.
 * Fails with `debugger_unavailable` when Chrome refuses to attach: another debugger (the
 * DevTools window of that tab, another extension) holds it, or the page may not be debugged.
 * @template T
 * @param {number} tabId
 * @param {(send: SendCommand) => Promise<T>} work
 * @returns {Promise<T>}
 */
export function withDebugger(tabId, work) {
  const previous = sessionsByTab.get(tabId) ?? Promise.resolve();
  const session = previous.catch(() => {}).then(() => runSession(tabId, work));
  sessionsByTab.set(tabId, session);
  session
    .catch(() => {})
    .then(() => {
      if (sessionsByTab.get(tabId) === session) sessionsByTab.delete(tabId);
    });
  return session;
}

/**
 * @template T
 * @param {number} tabId
 * @param {(send: SendCommand) => Promise<T>} work
 * @returns {Promise<T>}
 */
async function runSession(tabId, work) {
  const target = { tabId };
  try {
    await api.debugger.attach(target, DEBUGGER_PROTOCOL_VERSION);
  } catch (error) {
    const reason = thrownMessage(error);
    const another = /another debugger/i.test(reason);
    fail("debugger_unavailable", `the browser's debugger could not attach to tab ${tabId}: ${reason}`, {
      hint: another
        ? "Another debugger holds this tab (DevTools, or another extension that debugs it): close it and retry."
        : "This page cannot be debugged by an extension (a browser page or the extension gallery); use an ordinary web page.",
    });
  }
  try {
    return await work((method, params = {}) => api.debugger.sendCommand(target, method, params));
  } finally {
    await api.debugger.detach(target).catch(() => {});
  }
}
