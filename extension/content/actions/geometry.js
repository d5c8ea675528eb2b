// @ts-check
// element_rect and frame_offset, the page halves of screenshot (docs/protocol.md, "Screenshots"):
// where an element's box is in its frame's viewport once it is in view, and where a child frame's
// viewport sits in this frame's viewport. The background captures the visible tab and crops.

import "../../shared/messages.js";
import { cssHiddenReason } from "./element.js";
import { resolveTarget } from "./target.js";
import { nextFrame } from "./timing.js";

const messages = globalThis.allwrightMessages;

/** Whether the whole box lies inside the viewport. */
function isFullyInViewport(box) {
  return box.left >= 0 && box.top >= 0 && box.right <= innerWidth && box.bottom <= innerHeight;
}

/** The viewport's size in CSS pixels (the layout viewport, scroll bars included). */
const viewportSize = () => ({ width: innerWidth, height: innerHeight });

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
    viewport: viewportSize(),
    devicePixelRatio,
  };
}

/**
 * The frame elements of this document, in its open shadow trees too.
 * @returns {(HTMLIFrameElement|HTMLFrameElement|HTMLObjectElement|HTMLEmbedElement)[]}
 */
function frameElements() {
  const found = [];
  const roots = [/** @type {Document|ShadowRoot} */ (document)];
  while (roots.length > 0) {
    const root = roots.pop();
    for (const element of root.querySelectorAll("*")) {
      if (["iframe", "frame", "object", "embed"].includes(element.localName)) found.push(element);
      if (element.shadowRoot) roots.push(element.shadowRoot);
    }
  }
  return found;
}

/**
 * frame_offset: where the viewport of the child frame `childFrameId` starts in this frame's
 * viewport: the frame element's content box (border box moved in by its border and padding).
 * `runtime.getFrameId(element)` names a frame element's frame in the extension's frame ids
 * (WebExtensions, runtime.getFrameId: Chrome 106, Firefox 96), so cross-origin children are found
 * without asking them anything.
 * @param {FrameOffsetArguments} args
 * @returns {FrameOffsetResult}
 */
export function frameOffset({ childFrameId }) {
  const runtime = (globalThis.browser ?? globalThis.chrome).runtime;
  const frameElement = frameElements().find((element) => runtime.getFrameId(element) === childFrameId);
  if (frameElement === undefined) {
    throw messages.toolError("frame_not_found", `frame ${childFrameId} is not laid out in its parent document`, {
      hint: "The frame may have been removed or hidden; read the page again.",
    });
  }
  const box = frameElement.getBoundingClientRect();
  const style = getComputedStyle(frameElement);
  const inset = (side) =>
    parseFloat(style.getPropertyValue(`border-${side}-width`)) + parseFloat(style.getPropertyValue(`padding-${side}`));
  return { offset: { x: box.x + inset("left"), y: box.y + inset("top") }, viewport: viewportSize() };
}
