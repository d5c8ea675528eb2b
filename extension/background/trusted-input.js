// @ts-check
// Chrome only: the one protected trusted-input fallback of click_ax, one CDP
// Input.dispatchMouseEvent click (docs/protocol.md, "Action results"). The debugger is attached for the one click and
// detached at once; Firefox has no such API, and its clicks stay synthetic.

import { api } from "./platform.js";

const DEBUGGER_PROTOCOL_VERSION = "1.3";

/**
 * Presses and releases the left mouse button at a point of the tab's viewport, as a person would:
 * the page receives trusted pointer, mouse and click events at whatever element is there.
 * Resolves with null, or with the reason the browser refused (another debugger attached, a page
 * the extension may not debug).
 * @param {number} tabId
 * @param {{x: number, y: number}} point CSS pixels in the top-level viewport
 * @returns {Promise<string|null>}
 */
export async function dispatchTrustedClick(tabId, { x, y }) {
  const target = { tabId };
  try {
    await api.debugger.attach(target, DEBUGGER_PROTOCOL_VERSION);
  } catch (error) {
    return `the debugger could not attach: ${error?.message ?? error}`;
  }
  try {
    const event = { x, y, modifiers: 0, pointerType: "mouse" };
    await api.debugger.sendCommand(target, "Input.dispatchMouseEvent", {
      ...event,
      type: "mouseMoved",
      button: "none",
      buttons: 0,
    });
    await api.debugger.sendCommand(target, "Input.dispatchMouseEvent", {
      ...event,
      type: "mousePressed",
      button: "left",
      buttons: 1,
      clickCount: 1,
    });
    await api.debugger.sendCommand(target, "Input.dispatchMouseEvent", {
      ...event,
      type: "mouseReleased",
      button: "left",
      buttons: 0,
      clickCount: 1,
    });
    return null;
  } catch (error) {
    return `the trusted click failed: ${error?.message ?? error}`;
  } finally {
    await api.debugger.detach(target).catch(() => {});
  }
}
