// @ts-check
// The page half of wait_for (docs/agent-tools.md, "wait_for"): whether a text is shown in this
// frame, and the state of a ref's element. The background asks again and again until the
// condition holds or its time runs out (background/reads/wait-for.js); each answer is one look, cheap
// enough to repeat every 100 ms on a large page.

import { closestAcrossShadow, openShadowRootsOf } from "../dom/shadow.js";
import { isNativelyDisabled, isShown, normalizeText } from "./element.js";

/** At most this many open shadow roots are looked into, as the other whole-page looks do. */
const SHADOW_ROOTS_LOOKED_INTO = 500;
/** The characters of context on each side of a match in `excerpt`. */
const EXCERPT_CONTEXT_CHARS = 30;

/**
 * Text as it is compared: lower case, every run of white space one space, trimmed. So "Order
 * <b>shipped</b>" matches "order  shipped", as a person reading the page would match it.
 * @param {string} text
 */
function comparableText(text) {
  return normalizeText(text).toLowerCase();
}

/**
 * The text this frame shows: the rendered text of the body (`innerText`, HTML's "rendered text
 * collection steps": no text of display: none or visibility: hidden elements, line breaks between
 * blocks) and of every open shadow root's elements, where the body's may stop. Form fields'
 * values are not page text (and a secret field's value must never be probed through a match).
 * @returns {string}
 */
function shownText() {
  const parts = [];
  const body = document.body ?? document.documentElement;
  if (body instanceof HTMLElement) parts.push(body.innerText);
  for (const root of openShadowRootsOf(document, SHADOW_ROOTS_LOOKED_INTO)) {
    // A shadow root whose host is not rendered shows nothing; its elements' innerText would
    // still give their text (innerText of an element without a box is its textContent).
    if (!(root.host instanceof HTMLElement) || root.host.getClientRects().length === 0) continue;
    for (const child of root.children) {
      if (child instanceof HTMLElement && child.getClientRects().length > 0) parts.push(child.innerText);
    }
  }
  return comparableText(parts.join("\n"));
}

/**
 * `text_shown({text})`: whether the text is shown in this frame, and around it the words that
 * show it (for the agent's `lastSeen` when it waited for the text to go).
 * @param {{text: string}} args
 * @returns {{shown: boolean, excerpt?: string}}
 */
export function textShown({ text }) {
  const wanted = comparableText(text);
  const shown = shownText();
  const at = shown.indexOf(wanted);
  if (at < 0) return { shown: false };
  const start = Math.max(0, at - EXCERPT_CONTEXT_CHARS);
  const end = Math.min(shown.length, at + wanted.length + EXCERPT_CONTEXT_CHARS);
  return {
    shown: true,
    excerpt: `${start > 0 ? "…" : ""}${shown.slice(start, end)}${end < shown.length ? "…" : ""}`,
  };
}

/**
 * Whether a person could tell the element is checked: a check box's or radio button's own
 * checkedness, else `aria-checked="true"` (check boxes, switches, menu item check boxes and
 * radios, ARIA 1.2) or `aria-pressed="true"` (toggle buttons).
 * @param {Element} element
 */
function isChecked(element) {
  if (element instanceof HTMLInputElement && (element.type === "checkbox" || element.type === "radio")) {
    return element.checked;
  }
  return element.getAttribute("aria-checked") === "true" || element.getAttribute("aria-pressed") === "true";
}

/**
 * Whether the element takes input: not `:disabled` (HTML, a disabled control or one inside a
 * disabled fieldset) and not under `aria-disabled="true"` (ARIA 1.2: it applies to the element
 * and its focusable descendants).
 * @param {Element} element
 */
function isEnabled(element) {
  if (isNativelyDisabled(element)) return false;
  return closestAcrossShadow(element, (node) => node.getAttribute("aria-disabled") === "true") === null;
}

/**
 * `element_state({ref_id})`: the state of a ref's element, or `{found: false}` when the registry
 * no longer has a live element for it (removed, or never printed here: the background tells the
 * two apart from the tab's ref record).
 * @param {{ref_id: string}} args
 * @param {{resolveRef: (ref: string) => Element}} ax
 * @returns {{found: false} | {found: true, visible: boolean, enabled: boolean, checked: boolean}}
 */
export function elementState({ ref_id }, ax) {
  let element;
  try {
    element = ax.resolveRef(ref_id);
  } catch {
    return { found: false };
  }
  return { found: true, visible: isShown(element), enabled: isEnabled(element), checked: isChecked(element) };
}
