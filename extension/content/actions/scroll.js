// @ts-check
// scroll's page half: the page, the element or its nearest scrollable ancestor, by an amount, to
// an edge, or the element into view.

import { flatTreeParentElement } from "../dom/shadow.js";
import { sameRect, viewportRect } from "./element.js";
import { resolveTarget } from "./target.js";

const pageScroller = () => document.scrollingElement ?? document.documentElement;

/**
 * Whether a person could scroll the element along the axis: overflow that scrolls, and room.
 * @param {Element} element
 * @param {boolean} vertical
 */
function isScrollable(element, vertical) {
  if (element === pageScroller() || element === document.body) return false;
  const style = getComputedStyle(element);
  const overflow = vertical ? style.overflowY : style.overflowX;
  if (!["auto", "scroll", "overlay"].includes(overflow)) return false;
  return vertical ? element.scrollHeight > element.clientHeight : element.scrollWidth > element.clientWidth;
}

/**
 * The nearest scrollable ancestor along the axis, or null for the page.
 * @param {Element} element
 * @param {boolean} vertical
 */
function scrollableAncestor(element, vertical) {
  for (let node = flatTreeParentElement(element); node !== null; node = flatTreeParentElement(node)) {
    if (isScrollable(node, vertical)) return node;
  }
  return null;
}

/**
 * Reads and moves either the page (null) or a scrollable element.
 * @param {Element|null} scroller
 */
function scrollPosition(scroller) {
  return scroller === null
    ? { x: Math.round(scrollX), y: Math.round(scrollY) }
    : { x: Math.round(scroller.scrollLeft), y: Math.round(scroller.scrollTop) };
}

/**
 * @param {Omit<ToolArguments<"scroll">, "tabId" | "frameId">} args the scroll tool's arguments, less its target
 * @param {import("./target.js").TreeHelpers} ax
 */
export async function scrollAction(args, ax) {
  const direction = args.direction ?? "down";
  const to = args.to ?? undefined;
  const amount = args.amount ?? undefined;
  // The background's contract guarantees a ref_id with to "into_view".
  const hasRef = args.ref_id !== undefined && args.ref_id !== null;
  const element = hasRef ? resolveTarget(ax, args) : null;
  const hints = [];
  const evidence = [];
  const vertical = to !== undefined || direction === "up" || direction === "down";

  if (to === "into_view") {
    const target = /** @type {Element} */ (element);
    const scroller = scrollableAncestor(target, true) ?? scrollableAncestor(target, false);
    const before = scrollPosition(scroller);
    const rectBefore = viewportRect(target);
    target.scrollIntoView({ block: "center", inline: "center", behavior: "instant" });
    if (!sameRect(rectBefore, viewportRect(target))) evidence.push("scrolled");
    else hints.push("already in view");
    return { target: scroller === null ? "page" : "element", before, after: scrollPosition(scroller), evidence, hints };
  }

  /** @type {Element|null} */
  let scroller = null;
  if (element !== null && element !== pageScroller() && element !== document.body) {
    if (isScrollable(element, vertical)) {
      scroller = element;
    } else {
      scroller = scrollableAncestor(element, vertical);
      hints.push(
        scroller === null
          ? `the ${element.localName} does not scroll, so the page was scrolled`
          : `the ${element.localName} does not scroll, so its nearest scrollable ancestor (${scroller.localName}) was scrolled`,
      );
    }
  }

  const before = scrollPosition(scroller);
  const box = scroller ?? pageScroller();
  if (to === "top" || to === "bottom") {
    const top = to === "top" ? 0 : box.scrollHeight;
    if (scroller === null) window.scrollTo({ top, behavior: "instant" });
    else scroller.scrollTo({ top, behavior: "instant" });
  } else {
    const viewportSize = vertical
      ? scroller === null
        ? innerHeight
        : scroller.clientHeight
      : scroller === null
        ? innerWidth
        : scroller.clientWidth;
    const distance = amount ?? Math.round(viewportSize * 0.8);
    const sign = direction === "up" || direction === "left" ? -1 : 1;
    const delta = vertical ? { top: sign * distance, left: 0 } : { top: 0, left: sign * distance };
    if (scroller === null) window.scrollBy({ ...delta, behavior: "instant" });
    else scroller.scrollBy({ ...delta, behavior: "instant" });
  }
  const after = scrollPosition(scroller);
  if (after.x !== before.x || after.y !== before.y) {
    evidence.push("scrolled");
  } else {
    const towardsStart = to === "top" || (to === undefined && (direction === "up" || direction === "left"));
    hints.push(towardsStart ? "already at the start" : "already at the end");
  }
  return { target: scroller === null ? "page" : "element", before, after, evidence, hints };
}
