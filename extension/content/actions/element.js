// @ts-check
// What an action needs to know of an element: its explicit role, whether it is disabled, its
// form, its box in the viewport and whether CSS hides it. Text helpers for results and hints.

import { closestAcrossShadow, flatTreeParentElement } from "../dom/shadow.js";

/**
 * The first token of the role attribute: the explicit role, as the tree reads it.
 * @param {Element} element
 */
export function explicitRole(element) {
  const role = element.getAttribute?.("role");
  return role ? role.trim().split(/\s+/)[0].toLowerCase() : "";
}

/**
 * @param {Element} element
 */
export function isNativelyDisabled(element) {
  // `:disabled` covers disabled form controls and those inside a disabled fieldset (outside its
  // first legend), which is exactly when the browser refuses to activate them.
  return typeof element.matches === "function" && element.matches(":disabled");
}

/**
 * @param {Element} element
 * @returns {HTMLFormElement|null}
 */
export function formOwner(element) {
  // A form control names its form owner (HTML, "form owner"); other elements have no `form`.
  const { form } = /** @type {Partial<HTMLInputElement>} */ (element);
  if (form instanceof HTMLFormElement) return form;
  // An element named form in a web page's (HTML) document is an HTML form element.
  return /** @type {HTMLFormElement|null} */ (closestAcrossShadow(element, (node) => node.localName === "form"));
}

/**
 * @param {Element} element
 */
export function isSubmitButton(element) {
  if (element.localName === "button") return /** @type {HTMLButtonElement} */ (element).type === "submit";
  if (element.localName !== "input") return false;
  const { type } = /** @type {HTMLInputElement} */ (element);
  return type === "submit" || type === "image";
}

/** Whitespace collapsed and trimmed, as a list shows a label. */
export const normalizeText = (/** @type {string|null|undefined} */ text) => (text ?? "").replace(/\s+/g, " ").trim();

/**
 * A short quotation of a value for a hint.
 * @param {string} text
 */
export function quote(text, limit = 80) {
  const shown = text.length > limit ? `${text.slice(0, limit)}…` : text;
  return JSON.stringify(shown);
}

/**
 * The border box in this frame's viewport, in whole CSS pixels.
 * @param {Element} element
 */
export function viewportRect(element) {
  const box = element.getBoundingClientRect();
  return {
    x: Math.round(box.x),
    y: Math.round(box.y),
    width: Math.round(box.width),
    height: Math.round(box.height),
  };
}

export const centreOf = (/** @type {{x: number, y: number, width: number, height: number}} */ rect) => ({
  x: Math.round(rect.x + rect.width / 2),
  y: Math.round(rect.y + rect.height / 2),
});

export const sameRect = (
  /** @type {{x: number, y: number, width: number, height: number}} */ left,
  /** @type {{x: number, y: number, width: number, height: number}} */ right,
) =>
  left !== null &&
  right !== null &&
  left.x === right.x &&
  left.y === right.y &&
  left.width === right.width &&
  left.height === right.height;

/** @param {{x: number, y: number}} point */
export function isPointInViewport(point) {
  return point.x >= 0 && point.y >= 0 && point.x < innerWidth && point.y < innerHeight;
}

/**
 * Why CSS keeps the element from being seen, or null: display none, visibility hidden or
 * opacity 0 on it or an ancestor (flat tree), or a box of zero size.
 * @param {Element} element
 */
export function cssHiddenReason(element) {
  const ownStyle = getComputedStyle(element);
  // `visibility` is inherited, so the element's own computed value accounts for its ancestors.
  if (ownStyle.visibility !== "visible") return "hidden by CSS (visibility)";
  for (let node = /** @type {Element|null} */ (element); node !== null; node = flatTreeParentElement(node)) {
    const style = node === element ? ownStyle : getComputedStyle(node);
    if (style.display === "none") return "hidden by CSS (display: none)";
    if (Number(style.opacity) === 0) return "hidden by CSS (opacity: 0)";
  }
  const box = element.getBoundingClientRect();
  if (box.width === 0 || box.height === 0) return "zero-size box";
  return null;
}

export const isShown = (/** @type {Element} */ element) => element.isConnected && cssHiddenReason(element) === null;
