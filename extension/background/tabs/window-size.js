// @ts-check
// `resize` in the user's own browser (docs/agent-tools.md, "resize"): a WebExtension cannot give
// one tab's viewport a size, so the tab's window is resized until the viewport of its active tab
// (`window.innerWidth` and `innerHeight`, which every tab of the window shares) has the size asked.
// The window's frame (tab strip, toolbars, borders) is measured as the difference between the
// window's outer size and the viewport, then the window is given the viewport asked plus that
// frame; a second step corrects what the first missed (a toolbar that wrapped at the new width).
// In a browser allwright launched, the MCP server resizes the tab alone over WebDriver BiDi and
// this module is not asked.

import { api, fail, messages, ToolFailure } from "../platform.js";
import { callFrame, resolveTab } from "../frames/frames.js";
import { RESIZE_FRAME_TIMEOUT_MS, RESIZE_SETTLE_MS } from "../host/budgets.js";

/** How often the viewport is measured again while the window takes its new size. */
const SETTLE_POLL_MS = 50;
/** How long a window made normal may take to get its normal bounds back. */
const STATE_CHANGE_MS = 300;
/** How many times the window is resized at most: the first guess, then corrections. */
const RESIZE_STEPS = 3;

const sleep = (/** @type {number} */ ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * `resize({width, height, tabId?})`: resizes the tab's window so that its viewport gets the size
 * asked, and answers the viewport reached.
 * @param {ToolArguments<"resize">} args
 * @returns {Promise<{width: number, height: number, hint?: string}>}
 */
export async function resize({ width, height, tabId }) {
  const tab = await resolveTab(tabId);
  const windowId = tab.windowId;
  let window = await api.windows.get(windowId);
  // A maximized, fullscreen or minimized window keeps its size whatever width and height say.
  if (window.state !== "normal") {
    await api.windows.update(windowId, { state: "normal" });
    // The window manager restores the window's normal bounds after answering.
    await sleep(STATE_CHANGE_MS);
    window = await api.windows.get(windowId);
  }
  let viewport = await measuredViewport(windowId, tab);
  for (let step = 0; step < RESIZE_STEPS && !sameSize(viewport, { width, height }); step += 1) {
    const outerWidth = window.width ?? viewport.width;
    const outerHeight = window.height ?? viewport.height;
    try {
      await api.windows.update(windowId, {
        width: Math.max(1, outerWidth + width - viewport.width),
        height: Math.max(1, outerHeight + height - viewport.height),
      });
    } catch (refusal) {
      // Chrome refuses bounds mostly off the screen ("at least 50% within visible screen
      // space"): the window stays as it is, and the answer says why.
      const reason = refusal instanceof Error ? refusal.message : String(refusal);
      return {
        ...viewport,
        hint: `${notReached(width, height, viewport)} The browser refused that window size: ${reason}`,
      };
    }
    const before = viewport;
    viewport = await settledViewport(windowId, tab, before);
    // The window's size as it is now: what update answered may precede the resize (Firefox).
    window = await api.windows.get(windowId);
    // The window did not move at all: the screen or the window manager holds it there.
    if (sameSize(viewport, before)) break;
  }
  if (sameSize(viewport, { width, height })) return { width: viewport.width, height: viewport.height };
  return {
    width: viewport.width,
    height: viewport.height,
    hint: `${notReached(width, height, viewport)} The screen may be smaller, the browser's smallest window wider (Firefox: 500 pixels), or the window manager may keep the window's size.`,
  };
}

/**
 * The first sentences of the hint of a viewport that did not get the size asked.
 * @param {number} width
 * @param {number} height
 * @param {{width: number, height: number}} viewport
 */
function notReached(width, height, viewport) {
  return `The window could not give the viewport ${width}x${height}: it is ${viewport.width}x${viewport.height}. In a browser allwright launched (allwright mcp --launch), resize gives the tab any size.`;
}

/**
 * @param {{width: number, height: number}} one
 * @param {{width: number, height: number}} other
 */
function sameSize(one, other) {
  return one.width === other.width && one.height === other.height;
}

/**
 * The viewport after a resize: measured until it differs from `before` and stays the same for
 * one more measurement, or until RESIZE_SETTLE_MS has passed.
 * @param {number} windowId
 * @param {chrome.tabs.Tab} tab
 * @param {{width: number, height: number}} before
 */
async function settledViewport(windowId, tab, before) {
  const deadline = Date.now() + RESIZE_SETTLE_MS;
  let last = before;
  while (Date.now() < deadline) {
    await sleep(SETTLE_POLL_MS);
    const now = await measuredViewport(windowId, tab);
    if (!sameSize(now, before) && sameSize(now, last)) return now;
    last = now;
  }
  return last;
}

/**
 * The viewport of the window's active tab (hidden tabs are laid out again only when shown), read
 * by its top frame's content script; a tab no content script runs in (a browser page) is
 * measured by the browser's own tab size.
 * @param {number} windowId
 * @param {chrome.tabs.Tab} tab the tab the call named, in that window
 * @returns {Promise<{width: number, height: number}>}
 */
async function measuredViewport(windowId, tab) {
  const [active] = await api.tabs.query({ active: true, windowId });
  const shown = active ?? tab;
  try {
    /** @type {ViewportSizeResult} */
    const measured = await callFrame(shown.id ?? tab.id ?? -1, 0, messages.contentToolRequest("viewport_size", {}), {
      deadline: Date.now() + RESIZE_FRAME_TIMEOUT_MS,
      frameLabel: "the top frame",
    });
    return { width: measured.width, height: measured.height };
  } catch (failure) {
    if (!(failure instanceof ToolFailure)) throw failure;
    const current = await api.tabs.get(shown.id ?? tab.id ?? -1);
    if (typeof current.width !== "number" || typeof current.height !== "number") {
      fail("not_supported_here", `the viewport of tab ${current.id} cannot be measured: ${failure.error.message}`, {
        hint: "Open an http(s) page in the tab (navigate), then resize again.",
      });
    }
    return { width: current.width, height: current.height };
  }
}
