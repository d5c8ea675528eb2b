// @ts-check
// screenshot in the user's own browser (docs/protocol/browser-bridge.md, "Screenshots"): the visible part of the
// active tab, captured with `tabs.captureVisibleTab`, and for an element the part of that picture
// under its box. The page halves (content/actions/geometry.js) scroll the element into view and
// say where it is; frames add the offsets of their frame elements up to the top document.
//
// The tool only reads, so it never activates a tab or a window: a tab that is not shown cannot be
// captured, and the agent is told to call select_tab. A whole page beyond the viewport cannot be
// captured by an extension without scrolling the page under the user's eyes, so fullPage is left
// to a browser allwright launched (WebDriver BiDi's `browsingContext.captureScreenshot`).

import { api, fail, messages, ToolFailure } from "../platform.js";
import { callFrame, requireFrame, resolveTab } from "../frames/frames.js";
import { refuseRefOfOtherFrame } from "../frames/ref-ownership.js";
import { SCREENSHOT_ELEMENT_TIMEOUT_MS as ELEMENT_TIMEOUT_MS } from "../host/budgets.js";
import { captureMasked } from "./secret-masks.js";
import { thrownMessage } from "../../shared/thrown.js";

/** The picture's MIME type per `format`. */
const MIME_TYPES = Object.freeze({ png: "image/png", jpeg: "image/jpeg" });

/** JPEG quality, on captureVisibleTab's 0..100 scale: small files, text still legible. */
const JPEG_QUALITY = 90;

/**
 * Chrome allows two captureVisibleTab calls per second per extension
 * (`MAX_CAPTURE_VISIBLE_TAB_CALLS_PER_SECOND`, chrome.tabs documentation); a call over the quota
 * fails at once, so it is tried again after the quota's second has passed.
 */
const CAPTURE_QUOTA_WAIT_MS = 600;
const CAPTURE_ATTEMPTS = 4;

const sleep = (/** @type {number} */ ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * `screenshot({ref_id?, frameId?, fullPage?, format, tabId?})`.
 * @param {ToolArguments<"screenshot">} args
 */
export async function screenshot({ tabId, ref_id, frameId = 0, fullPage = false, format }) {
  if (fullPage && ref_id !== undefined) {
    fail("invalid_arguments", "fullPage and ref_id cannot be combined: an element is captured by its own box", {
      hint: "Pass ref_id to capture one element, or fullPage: true without ref_id to capture the page.",
    });
  }
  if (fullPage) {
    fail("not_supported_here", "a full-page screenshot cannot be taken in your own browser", {
      hint: "Take the viewport instead (leave fullPage out) and use scroll to see more; whole pages need a browser allwright launched (`allwright mcp --launch`).",
    });
  }
  const tab = await resolveTab(tabId);
  await requireShown(tab);
  if (frameId !== 0) await requireFrame(tab.id, frameId);
  // An element is captured only in the frame whose tree printed its ref (docs/protocol/frames.md, "Frames").
  await refuseRefOfOtherFrame(tab.id, frameId, ref_id, "element_rect");
  // The element is measured first: bringing it into view may scroll the page being captured.
  const element = ref_id === undefined ? null : await elementInTopViewport(tab.id, frameId, ref_id);
  // Secret fields are painted over in every frame while the picture is taken (secret-masks.js).
  const masked = await captureMasked(tab.id, element === null ? "viewport" : "element", () =>
    captureVisibleTab(tab.windowId, format),
  );
  // The user may have switched tabs meanwhile; a picture of another tab must not be returned.
  await requireShown(await api.tabs.get(tab.id));
  const captured = decodeDataUrl(masked.captured);
  const maskFacts = maskFactsOf(masked);
  const bitmap = await createImageBitmap(new Blob([captured.bytes], { type: captured.mimeType }));
  try {
    if (element === null) {
      return {
        data: captured.base64,
        mimeType: captured.mimeType,
        width: bitmap.width,
        height: bitmap.height,
        format,
        scope: "viewport",
        method: "captureVisibleTab",
        ...maskFacts,
      };
    }
    // The picture is in device pixels and the boxes in CSS pixels. The ratio is taken from the
    // picture itself rather than from devicePixelRatio: it also covers the browser's zoom and a
    // capture made at another scale.
    const scale = bitmap.width / element.topViewport.width;
    const crop = deviceRect(element.visible, scale, bitmap);
    if (crop.width === 0 || crop.height === 0) {
      fail("not_actionable", `${ref_id} is not in the visible part of the page`, {
        hint: "The element may be covered by its frame's edges or be too small to see; take the viewport (leave ref_id out).",
      });
    }
    const canvas = new OffscreenCanvas(crop.width, crop.height);
    const context = canvas.getContext("2d");
    // A new canvas has no other context, so the 2D one is always granted (HTML, getContext).
    if (context === null) throw new Error("the canvas gave no 2D context");
    context.drawImage(bitmap, crop.x, crop.y, crop.width, crop.height, 0, 0, crop.width, crop.height);
    const mimeType = MIME_TYPES[format];
    const blob = await canvas.convertToBlob({ type: mimeType, quality: JPEG_QUALITY / 100 });
    return {
      data: base64Of(new Uint8Array(await blob.arrayBuffer())),
      mimeType,
      width: crop.width,
      height: crop.height,
      format,
      scope: "element",
      method: "captureVisibleTab",
      rect: roundedRect(element.visible),
      devicePixelRatio: scale,
      ...maskFacts,
    };
  } finally {
    bitmap.close();
  }
}

/**
 * What the result says of the masks: how many secret fields were painted over, and, when some
 * frames could not be asked to paint theirs, how many and what that means.
 * @param {{maskedSecretFields: number, framesNotMasked: number}} masked
 */
function maskFactsOf({ maskedSecretFields, framesNotMasked }) {
  if (framesNotMasked === 0) return { maskedSecretFields };
  return {
    maskedSecretFields,
    framesNotMasked,
    hint: `${framesNotMasked} frame(s) of the tab could not be scripted, so secret fields in them, if any, are not masked.`,
  };
}

/**
 * Refuses a tab that is not on screen: captureVisibleTab can only capture a window's active tab,
 * and a minimized window shows nothing.
 * @param {chrome.tabs.Tab} tab
 */
async function requireShown(tab) {
  const window = await api.windows.get(tab.windowId).catch(() => null);
  if (tab.active && window?.state !== "minimized") return;
  fail(
    "tab_not_visible",
    `tab ${tab.id} is not shown${tab.active ? " (its window is minimized)" : " (another tab of its window is active)"}`,
    {
      hint: `A screenshot sees only what is on screen and never switches tabs itself: call select_tab with tabId ${tab.id} first, or leave tabId out to capture the active tab.`,
    },
  );
}

/**
 * The element's visible box in the top document's viewport, in CSS pixels: its box in its own
 * frame, cut to the part of that frame's viewport that scroll bars leave visible, then moved by
 * each frame element's position and cut the same way to each parent's viewport in turn.
 * @returns {Promise<{visible: Rect, topViewport: Viewport}>}
 * @param {number} tabId
 * @param {number} frameId
 * @param {string} ref_id
 */
async function elementInTopViewport(tabId, frameId, ref_id) {
  const deadline = Date.now() + ELEMENT_TIMEOUT_MS;
  /** @type {ElementRectResult} */
  const measured = await callFrame(tabId, frameId, messages.contentToolRequest("element_rect", { ref_id }), {
    deadline,
    frameLabel: `frame ${frameId}`,
  });
  let visible = intersect(measured.rect, measured.viewport);
  let viewport = measured.viewport;
  for (let child = frameId; child !== 0;) {
    const frame = await api.webNavigation.getFrame({ tabId, frameId: child }).catch(() => null);
    const parent = frame?.parentFrameId;
    if (typeof parent !== "number" || parent < 0) frameNotPlaced(child);
    const placed = await framePlacement(tabId, child, parent, deadline);
    visible = intersect(
      { ...visible, x: visible.x + placed.offset.x, y: visible.y + placed.offset.y },
      placed.viewport,
    );
    viewport = placed.viewport;
    child = parent;
  }
  return { visible, topViewport: viewport };
}

/**
 * Where frame `child` sits in frame `parent`: asked of the child first (a same-origin child sees
 * its frame element), then of the parent (Firefox names a cross-origin child's element too).
 * @returns {Promise<FrameOffsetResult>}
 * @param {number} tabId
 * @param {number} child the frame id of the child frame
 * @param {number} parent the frame id of its parent
 * @param {number} deadline
 */
async function framePlacement(tabId, child, parent, deadline) {
  const askers = [
    { frameId: child, request: messages.contentToolRequest("frame_offset", {}) },
    { frameId: parent, request: messages.contentToolRequest("frame_offset", { childFrameId: child }) },
  ];
  for (const { frameId, request } of askers) {
    try {
      return await callFrame(tabId, frameId, request, { deadline, frameLabel: `frame ${frameId}` });
    } catch (failure) {
      if (!(failure instanceof ToolFailure && failure.error.code === "frame_not_found")) throw failure;
    }
  }
  frameNotPlaced(child);
}

/**
 * @returns {never}
 * @param {number} frameId
 */
function frameNotPlaced(frameId) {
  fail(
    "not_supported_here",
    `the position of frame ${frameId} in the page could not be found, so its element cannot be cut out of the picture`,
    {
      hint: "Take the viewport instead (leave ref_id and frameId out); in a browser allwright launched, elements in frames can be captured.",
    },
  );
}

/**
 * captureVisibleTab of a window, through Chrome's per-second quota.
 * @param {number} windowId
 * @param {"png"|"jpeg"} format
 * @returns {Promise<string>} a data: URL
 */
async function captureVisibleTab(windowId, format) {
  const options = format === "jpeg" ? { format, quality: JPEG_QUALITY } : { format };
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await api.tabs.captureVisibleTab(windowId, options);
    } catch (error) {
      const text = thrownMessage(error);
      if (/MAX_CAPTURE_VISIBLE_TAB_CALLS_PER_SECOND/.test(text) && attempt < CAPTURE_ATTEMPTS) {
        await sleep(CAPTURE_QUOTA_WAIT_MS);
        continue;
      }
      fail("script_failed", `the browser refused to capture the tab: ${text}`, {
        hint: "Browser pages (settings, the extension gallery, other extensions' pages) cannot be captured; navigate to an ordinary web page.",
      });
    }
  }
}

/**
 * A data: URL's MIME type, its base64 text and its bytes.
 * @param {string} dataUrl
 */
function decodeDataUrl(dataUrl) {
  const match = /^data:([^;,]+);base64,(.*)$/s.exec(dataUrl);
  if (match === null) fail("script_failed", "the browser's capture was not a base64 data URL");
  const [, mimeType, base64] = match;
  const text = atob(base64);
  const bytes = new Uint8Array(text.length);
  for (let index = 0; index < text.length; index += 1) bytes[index] = text.charCodeAt(index);
  return { mimeType, base64, bytes };
}

/**
 * Base64 of bytes, in slices: `String.fromCharCode` takes a bounded number of arguments.
 * @param {Uint8Array} bytes
 */
function base64Of(bytes) {
  const SLICE = 0x8000;
  let text = "";
  for (let start = 0; start < bytes.length; start += SLICE) {
    text += String.fromCharCode(...bytes.subarray(start, start + SLICE));
  }
  return btoa(text);
}

/**
 * The part of a box inside a viewport's visible area (from (0, 0), scroll bars left out); empty
 * boxes have zero size.
 * @param {Rect} box
 * @param {Viewport} viewport
 * @returns {Rect}
 */
function intersect(box, viewport) {
  const left = Math.max(0, box.x);
  const top = Math.max(0, box.y);
  const right = Math.min(viewport.visibleWidth, box.x + box.width);
  const bottom = Math.min(viewport.visibleHeight, box.y + box.height);
  return { x: left, y: top, width: Math.max(0, right - left), height: Math.max(0, bottom - top) };
}

/**
 * A CSS-pixel box in the picture's device pixels: each edge rounded to the nearest whole pixel
 * (as a browser snaps a box's edges when it paints it), then cut to the picture.
 * @param {Rect} box
 * @param {number} scale
 * @param {{width: number, height: number}} picture
 */
function deviceRect(box, scale, picture) {
  const left = Math.max(0, Math.round(box.x * scale));
  const top = Math.max(0, Math.round(box.y * scale));
  const right = Math.min(picture.width, Math.round((box.x + box.width) * scale));
  const bottom = Math.min(picture.height, Math.round((box.y + box.height) * scale));
  return { x: left, y: top, width: Math.max(0, right - left), height: Math.max(0, bottom - top) };
}

/** @param {Rect} box */
function roundedRect(box) {
  return { x: Math.round(box.x), y: Math.round(box.y), width: Math.round(box.width), height: Math.round(box.height) };
}
