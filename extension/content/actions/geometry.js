// @ts-check
// element_rect and frame_offset, the page halves of screenshot (docs/protocol/browser-bridge.md, "Screenshots"):
// where an element's box is in its frame's viewport once it is in view, and where a child frame's
// viewport sits in this frame's viewport. The background captures the visible tab and crops.

import "../../shared/messages.js";
import { cssHiddenReason } from "./element.js";
import { resolveTarget } from "./target.js";
import { nextFrame } from "./timing.js";

const messages = globalThis.allwrightMessages;

/**
 * Whether the whole box lies inside the viewport.
 * @param {{left: number, top: number, right: number, bottom: number}} box
 */
function isFullyInViewport(box) {
  return box.left >= 0 && box.top >= 0 && box.right <= innerWidth && box.bottom <= innerHeight;
}

/**
 * A window's viewport in CSS pixels: its whole size, scroll bars included (what a capture of the
 * window shows), and the part that shows the document, without them (CSSOM View: the root
 * element's clientWidth and clientHeight; the smaller of the two in quirks mode, where the root's
 * client size is the document's). Scroll bars are taken to be on the right and at the bottom.
 * @param {Window} view
 */
function viewportOf(view) {
  const root = view.document.documentElement;
  return {
    width: view.innerWidth,
    height: view.innerHeight,
    visibleWidth: Math.min(view.innerWidth, root?.clientWidth ?? view.innerWidth),
    visibleHeight: Math.min(view.innerHeight, root?.clientHeight ?? view.innerHeight),
  };
}

/**
 * element_rect: scrolls the element into view unless all of it is already visible, waits for the
 * page to paint the new scroll position, and answers its border box in this frame's viewport, in
 * CSS pixels (fractions kept: the background rounds after scaling to device pixels).
 * @param {ElementRectArguments} args
 * @param {import("./target.js").TreeHelpers} ax
 * @returns {Promise<ElementRectResult>}
 */
export async function elementRect(args, ax) {
  const element = resolveTarget(ax, args);
  const hidden = cssHiddenReason(element);
  if (hidden !== null) {
    throw messages.toolError("not_actionable", `${args.ref_id} has nothing to capture: ${hidden}`, {
      hint: "Read the tree again: the element may be closed or collapsed. Take the viewport (leave ref_id out) to see the page as it is.",
    });
  }
  if (!isFullyInViewport(element.getBoundingClientRect())) {
    // "instant": a page's `scroll-behavior: smooth` would leave the element moving while it is
    // captured. "nearest" moves the page least, so the picture shows the element where a person
    // scrolling to it would see it.
    element.scrollIntoView({ block: "nearest", inline: "nearest", behavior: "instant" });
  }
  // Two frames: the first runs the page's scroll handlers, the second is painted with them.
  await nextFrame();
  await nextFrame();
  const box = element.getBoundingClientRect();
  return {
    rect: { x: box.x, y: box.y, width: box.width, height: box.height },
    viewport: viewportOf(window),
    devicePixelRatio,
  };
}

/**
 * The frame elements of this document, in its open shadow trees too.
 * @returns {(HTMLIFrameElement|HTMLFrameElement|HTMLObjectElement|HTMLEmbedElement)[]}
 */
function frameElements() {
  /** @type {(HTMLIFrameElement|HTMLFrameElement|HTMLObjectElement|HTMLEmbedElement)[]} */
  const found = [];
  const roots = [/** @type {Document|ShadowRoot} */ (document)];
  for (let root = roots.pop(); root !== undefined; root = roots.pop()) {
    for (const element of root.querySelectorAll("*")) {
      // The local name says which of the four element types it is.
      if (["iframe", "frame", "object", "embed"].includes(element.localName)) {
        found.push(/** @type {HTMLIFrameElement|HTMLFrameElement|HTMLObjectElement|HTMLEmbedElement} */ (element));
      }
      if (element.shadowRoot) roots.push(element.shadowRoot);
    }
  }
  return found;
}

/**
 * The content box of a frame element (its border box moved in by its border and padding): where
 * the frame's viewport starts, in the viewport of the document that holds the element.
 * @param {Element} frameElement
 */
function contentBoxOrigin(frameElement) {
  const box = frameElement.getBoundingClientRect();
  const style = getComputedStyle(frameElement);
  const inset = (/** @type {"left"|"top"} */ side) =>
    parseFloat(style.getPropertyValue(`border-${side}-width`)) + parseFloat(style.getPropertyValue(`padding-${side}`));
  return { x: box.x + inset("left"), y: box.y + inset("top") };
}

/**
 * frame_offset: where a frame's viewport starts in its parent's viewport, and the parent's
 * viewport size.
 * - Without `childFrameId`, asked of the frame itself: its own frame element, which the DOM gives
 *   a same-origin child (HTML, `window.frameElement`; null across origins).
 * - With `childFrameId`, asked of the parent: the frame element whose frame has that id.
 *   `runtime.getFrameId(element)` names it (WebExtensions, runtime.getFrameId; Firefox has it,
 *   Chromium does not), so in Firefox cross-origin children are found too.
 * @param {FrameOffsetArguments} args
 * @returns {FrameOffsetResult}
 */
export function frameOffset({ childFrameId }) {
  if (childFrameId === undefined) {
    const ownFrameElement = window.frameElement;
    if (ownFrameElement === null) {
      throw messages.toolError("frame_not_found", "this frame cannot see its frame element (another origin)");
    }
    return { offset: contentBoxOrigin(ownFrameElement), viewport: viewportOf(/** @type {Window} */ (window.parent)) };
  }
  const runtime = (globalThis.browser ?? globalThis.chrome).runtime;
  // Firefox only (MDN, runtime.getFrameId); called on its namespace, as the API is written.
  const frameElement =
    typeof runtime.getFrameId === "function"
      ? frameElements().find((element) => runtime.getFrameId?.(element) === childFrameId)
      : undefined;
  if (frameElement === undefined) {
    throw messages.toolError("frame_not_found", `frame ${childFrameId} is not found in its parent document`, {
      hint: "The frame may have been removed; read the page again.",
    });
  }
  return { offset: contentBoxOrigin(frameElement), viewport: viewportOf(window) };
}

/**
 * viewport_size: the size of this frame's viewport in CSS pixels, as media queries see it
 * (scroll bars included), for resize in the user's own browser (background/tabs/window-size.js).
 * @returns {ViewportSizeResult}
 */
export function viewportSize() {
  return { width: window.innerWidth, height: window.innerHeight };
}
