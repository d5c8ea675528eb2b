// @ts-check
// Moving to an element and activating it as a person would: scrolling it into view, focusing it
// with the focus events, and clicking it (HTML, "focusing steps" and "activation behavior").

import { deepActiveElement } from "../dom/shadow.js";
import { centreOf, isPointInViewport, viewportRect } from "./element.js";
import { runPageHandlers } from "./page-handlers.js";

/**
 * Scrolls only when the element's centre is off screen, as a person would before acting.
 * @param {Element} element
 */
export function scrollIntoViewIfNeeded(element) {
  if (isPointInViewport(centreOf(viewportRect(element)))) return false;
  // "instant": a page's `scroll-behavior: smooth` would otherwise leave the target moving while
  // its rect is measured.
  element.scrollIntoView({ block: "center", inline: "center", behavior: "instant" });
  return true;
}

/**
 * Focuses an element as a person's click or Tab would, focus events included. A browser whose
 * window is not the active one (a background window, a headless Firefox) moves
 * document.activeElement but holds the focus events back until the window is activated;
 * components that track focus through them (MUI's Autocomplete resets its input while it
 * believes it is unfocused) would then undo what the agent types. When the element took focus
 * and no focus event came, the events are dispatched as the browser would have.
 * @param {any} element an element; SVG and MathML ones focus too when focusable
 * @param {{preventScroll?: boolean}} [options]
 */
export function focusElement(element, { preventScroll = true } = {}) {
  if (typeof element.focus !== "function") return;
  const previous = deepActiveElement();
  let focusEventSeen = false;
  const seen = () => {
    focusEventSeen = true;
  };
  element.addEventListener("focus", seen, { capture: true, once: true });
  element.focus({ preventScroll });
  element.removeEventListener("focus", seen, { capture: true });
  if (focusEventSeen || deepActiveElement() !== element || previous === element) return;
  if (previous !== null && previous !== document.body && previous !== element) {
    previous.dispatchEvent(new FocusEvent("blur", { relatedTarget: element, composed: true }));
    previous.dispatchEvent(new FocusEvent("focusout", { bubbles: true, relatedTarget: element, composed: true }));
  }
  element.dispatchEvent(new FocusEvent("focus", { relatedTarget: previous, composed: true }));
  element.dispatchEvent(new FocusEvent("focusin", { bubbles: true, relatedTarget: previous, composed: true }));
}

/**
 * @param {Element} element
 */
export function focusQuietly(element) {
  focusElement(element);
}

/**
 * element.click() (HTML, "click()"). SVG and MathML elements have no click(); they get the click event it
 * would have dispatched, at their centre.
 * @param {Element} element
 */
export function activate(element) {
  const ownClick = /** @type {Partial<HTMLElement>} */ (element).click;
  if (typeof ownClick === "function") {
    runPageHandlers(() => ownClick.call(element));
    return;
  }
  const point = centreOf(viewportRect(element));
  const click = new MouseEvent("click", {
    bubbles: true,
    cancelable: true,
    composed: true,
    view: window,
    detail: 1,
    clientX: point.x,
    clientY: point.y,
  });
  runPageHandlers(() => element.dispatchEvent(click));
}
