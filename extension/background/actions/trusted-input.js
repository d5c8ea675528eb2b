// @ts-check
// Chrome only: the one protected trusted-input fallback of click_ax, one CDP
// Input.dispatchMouseEvent click (docs/protocol/tools.md, "Action results"). The debugger is attached for
// the one click and detached at once; Firefox has no such API, and its clicks stay synthetic.
// While it is attached, the page's user prompts are visible (Page.javascriptDialogOpening): a
// click that opens one is reported as that prompt rather than left to time out.

import { api } from "../platform.js";
import { thrownMessage } from "../../shared/thrown.js";

const DEBUGGER_PROTOCOL_VERSION = "1.3";

/**
 * @typedef {{outcome: "clicked"}
 *   |{outcome: "refused", reason: string}
 *   |{outcome: "aborted", reason: string}
 *   |{outcome: "withheld", reason: string}
 *   |{outcome: "dialog", dialog: OpenDialog}} TrustedClickOutcome
 */

/**
 * Presses and releases the left mouse button at a point of the tab's viewport, as a person would:
 * the page receives trusted pointer, mouse and click events at whatever element is there.
 * Resolves with the outcome: clicked; refused, with the reason the browser gave (another debugger
 * attached, a page the extension may not debug); or the user prompt the click opened, which
 * stays open for the user to answer.
 * `beforeClick`, when given, runs once the debugger is attached, right before the first input
 * event, with the debugger's command function; a veto it returns cancels the click, as its
 * outcome: "aborted" (the click would not go where it should) or "withheld" (the synthetic
 * click reached a page listener, or that cannot be proven: trusted-click-check.js). A
 * `beforeClick` that fails withholds the click too: nothing was proven.
 * @param {number} tabId
 * @param {{x: number, y: number}} point CSS pixels in the top-level viewport
 * @param {(send: (method: string, params?: object) => Promise<any>) =>
 *   Promise<{outcome: "aborted"|"withheld", reason: string}|null>} [beforeClick]
 * @returns {Promise<TrustedClickOutcome>}
 */
export async function dispatchTrustedClick(tabId, { x, y }, beforeClick) {
  const target = { tabId };
  try {
    await api.debugger.attach(target, DEBUGGER_PROTOCOL_VERSION);
  } catch (error) {
    return { outcome: "refused", reason: `the debugger could not attach: ${thrownMessage(error)}` };
  }
  /** @type {(dialog: OpenDialog) => void} */
  let reportDialog = () => {};
  /** @type {Promise<TrustedClickOutcome>} */
  const dialogOpened = new Promise((resolve) => {
    reportDialog = (dialog) => resolve({ outcome: "dialog", dialog });
  });
  // Page.javascriptDialogOpening (Chrome DevTools Protocol, Page domain): {type, message, ...},
  // where type is "alert", "confirm", "prompt" or "beforeunload".
  /**
   * @param {chrome.debugger.Debuggee} source
   * @param {string} method
   * @param {object} [params] the event's parameters, as the protocol documents them for `method`
   */
  const onEvent = (source, method, params) => {
    if (source.tabId !== tabId || method !== "Page.javascriptDialogOpening") return;
    const opening = /** @type {{type: OpenDialog["type"], message?: unknown}} */ (params);
    reportDialog({ type: opening.type, message: String(opening.message ?? "") });
  };
  api.debugger.onEvent.addListener(onEvent);
  try {
    await api.debugger.sendCommand(target, "Page.enable", {});
    if (beforeClick !== undefined) {
      let veto;
      try {
        veto = await beforeClick((method, params = {}) => api.debugger.sendCommand(target, method, params));
      } catch (error) {
        return { outcome: "withheld", reason: `the check before the click failed: ${thrownMessage(error)}` };
      }
      if (veto !== null) return veto;
    }
    const event = { x, y, modifiers: 0, pointerType: "mouse" };
    const steps = [
      { ...event, type: "mouseMoved", button: "none", buttons: 0 },
      { ...event, type: "mousePressed", button: "left", buttons: 1, clickCount: 1 },
      { ...event, type: "mouseReleased", button: "left", buttons: 0, clickCount: 1 },
    ];
    for (const step of steps) {
      // A prompt opened by a handler holds the command until it is answered: the prompt wins.
      const sent = api.debugger.sendCommand(target, "Input.dispatchMouseEvent", step).then(() => null);
      const dialog = await Promise.race([sent, dialogOpened]);
      if (dialog !== null) return dialog;
    }
    return { outcome: "clicked" };
  } catch (error) {
    return { outcome: "refused", reason: `the trusted click failed: ${thrownMessage(error)}` };
  } finally {
    api.debugger.onEvent.removeListener(onEvent);
    await api.debugger.detach(target).catch(() => {});
  }
}
