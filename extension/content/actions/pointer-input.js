// @ts-check
// The synthetic mouse of this frame: where the pointer is, how it moves onto an element, and the
// events of a click, in the order and with the fields a browser gives a real mouse (UI Events,
// "Mouse Event Order"; Pointer Events, "Boundary events", "The primary pointer" and "Mapping for
// devices that support hover"). hover and click_ax both move this one pointer, so a click after a
// hover leaves the hovered element as a real pointer would.
//
// The events are synthetic (isTrusted false): they run the page's listeners, and a `click` event
// runs the target's activation behaviour (DOM Standard, "dispatch": an activation event), but the
// browser's own hover state and default actions do not follow. The one default action a page
// relies on, focus on mousedown (HTML, "focusing steps", run by a press of the primary button on
// a focusable area), is performed here unless mousedown was cancelled.

import { deepActiveElement, flatTreeParentElement, isSelfOrInside } from "../dom/shadow.js";
import { centreOf, isNativelyDisabled, viewportRect } from "./element.js";
import { focusElement } from "./interaction.js";
import { runPageHandlers } from "./page-handlers.js";

/**
 * The element the last pointer movement of this frame ended on, so that the next one moves off
 * it first. Held weakly: the page may remove it. The pointer is not followed across frames.
 * @type {WeakRef<Element> | null}
 */
let lastPointed = null;

/** The mouse's pointerId: Chromium and Gecko both give the mouse pointer id 1. */
const MOUSE_POINTER_ID = 1;

/**
 * The element and its ancestors, nearest first, in the flat tree (slots and shadow hosts
 * included, open shadow roots crossed): the chain over which Chromium and Gecko compute the
 * elements a pointer enters and leaves.
 * @param {Element} element
 */
export function flatTreeChain(element) {
  const chain = [];
  for (let node = /** @type {Element | null} */ (element); node !== null; node = flatTreeParentElement(node)) {
    chain.push(node);
  }
  return chain;
}

/**
 * WebDriver's "in-view center point" (WebDriver, "element interactability"): the centre of the
 * part of the element's first box that lies in the viewport.
 * @param {Element} element
 */
export function inViewCentre(element) {
  const box = element.getClientRects()[0] ?? element.getBoundingClientRect();
  const left = Math.max(0, box.left);
  const right = Math.min(innerWidth, box.right);
  const top = Math.max(0, box.top);
  const bottom = Math.min(innerHeight, box.bottom);
  if (right <= left || bottom <= top) return centreOf(viewportRect(element));
  return { x: Math.floor((left + right) / 2), y: Math.floor((top + bottom) / 2) };
}

/**
 * The topmost element at a point, descending into open shadow roots: `elementFromPoint` of the
 * document answers the shadow host, and the host's shadow root answers what lies inside it.
 * @param {{x: number, y: number}} point client coordinates
 * @returns {Element | null}
 */
export function deepElementFromPoint(point) {
  let hit = document.elementFromPoint(point.x, point.y);
  while (hit?.shadowRoot) {
    const inner = hit.shadowRoot.elementFromPoint(point.x, point.y);
    if (inner === null || inner === hit) break;
    hit = inner;
  }
  return hit;
}

/**
 * Where a real pointer aimed at `target` would be and which element it would press: the in-view
 * centre, and the top element there when it lies inside the target (a label's text, an icon in a
 * button, an option's slotted text). When something else covers the centre (an overlay that lets
 * clicks through with pointer-events: none is not a hit), the events go to the target itself, as
 * a content script's input always has.
 * @param {Element} target
 */
export function aimAt(target) {
  const point = inViewCentre(target);
  const hit = deepElementFromPoint(point);
  return { point, element: hit !== null && isSelfOrInside(target, hit) ? hit : target };
}

/**
 * The fields a mouse event and its pointer event share at a point.
 * @param {{x: number, y: number}} point
 * @param {{button: number, buttons: number, detail?: number}} state
 */
export function mouseFields(point, { button, buttons, detail = 0 }) {
  return {
    clientX: point.x,
    clientY: point.y,
    screenX: point.x + (window.screenX ?? 0),
    screenY: point.y + (window.screenY ?? 0),
    view: window,
    button,
    buttons,
    detail,
    bubbles: true,
    cancelable: true,
    composed: true,
  };
}

/**
 * The pointer event fields of the mouse pointer (Pointer Events, "PointerEvent interface"):
 * width and height 1, pressure 0.5 while a button is down and 0 otherwise, and `button` -1 on
 * the events where no button changed (over, enter, move, out, leave: Pointer Events, "The
 * button property"), as Chromium reports them.
 * @param {ReturnType<typeof mouseFields>} fields
 * @param {{buttonChanged?: boolean}} [options]
 */
export function pointerFields(fields, { buttonChanged = false } = {}) {
  return {
    ...fields,
    button: buttonChanged ? fields.button : -1,
    detail: 0,
    pointerId: MOUSE_POINTER_ID,
    pointerType: "mouse",
    isPrimary: true,
    width: 1,
    height: 1,
    pressure: fields.buttons === 0 ? 0 : 0.5,
  };
}

/**
 * Moves the pointer from where it was (nowhere: from outside the document) onto `element`:
 * - pointerout and pointerleave, then mouseout and mouseleave, for what the pointer leaves:
 *   out bubbles from the previous element; leave goes to it and to each ancestor the pointer
 *   leaves, innermost first;
 * - pointerover and pointerenter, then mouseover and mouseenter, for what it enters: over bubbles
 *   from the element; enter goes to each ancestor the pointer enters, outermost first, then to
 *   the element (enter and leave do not bubble, so a listener on a wrapper hears only its own);
 * - pointermove, then mousemove, at the element.
 * relatedTarget is the element on the other side; out, over and move are composed, so listeners
 * outside a shadow tree hear them retargeted to its host, as with a real pointer.
 * @param {Element} element
 * @param {{x: number, y: number}} point client coordinates
 */
export function movePointerTo(element, point) {
  const remembered = lastPointed?.deref() ?? null;
  const previous = remembered?.isConnected ? remembered : null;
  const targetChain = flatTreeChain(element);
  const previousChain = previous === null ? [] : flatTreeChain(previous);
  const inTarget = new Set(targetChain);
  const inPrevious = new Set(previousChain);
  const left = previousChain.filter((node) => !inTarget.has(node));
  const entered = targetChain.filter((node) => !inPrevious.has(node)).reverse();
  const mouse = mouseFields(point, { button: 0, buttons: 0 });
  const pointer = pointerFields(mouse);
  const notBubbling = { bubbles: false, cancelable: false, composed: false };
  /**
   * @param {"pointer"|"mouse"} prefix
   * @param {typeof MouseEvent} EventType
   * @param {MouseEventInit} init
   */
  const boundaryEvents = (prefix, EventType, init) => {
    if (previous !== null && previous !== element) {
      previous.dispatchEvent(new EventType(`${prefix}out`, { ...init, relatedTarget: element }));
      for (const node of left) {
        node.dispatchEvent(new EventType(`${prefix}leave`, { ...init, ...notBubbling, relatedTarget: element }));
      }
    }
    if (previous !== element) {
      element.dispatchEvent(new EventType(`${prefix}over`, { ...init, relatedTarget: previous }));
      for (const node of entered) {
        node.dispatchEvent(new EventType(`${prefix}enter`, { ...init, ...notBubbling, relatedTarget: previous }));
      }
    }
  };
  boundaryEvents("pointer", PointerEvent, pointer);
  boundaryEvents("mouse", MouseEvent, mouse);
  element.dispatchEvent(new PointerEvent("pointermove", pointer));
  element.dispatchEvent(new MouseEvent("mousemove", mouse));
  lastPointed = new WeakRef(element);
}

/**
 * Where the pointer is now, after events another module dispatched (a drag ends over its drop
 * target), so that the next movement leaves that element first.
 * @param {Element} element
 */
export function pointerNowOn(element) {
  lastPointed = new WeakRef(element);
}

/** Elements that take focus when clicked (HTML, "focusable area"), whatever their tabindex. */
const CLICK_FOCUSABLE =
  'a[href], area[href], button, input:not([type="hidden"]), select, textarea, iframe, summary, ' +
  '[tabindex], [contenteditable]:not([contenteditable="false"])';

/**
 * The element a press at `element` focuses (HTML, "focusing steps" run on the nearest
 * focusable area of the flat tree, a shadow host that delegates focus included), or null when no
 * ancestor can take focus.
 * @param {Element} element
 */
export function focusTargetOfPress(element) {
  for (const node of flatTreeChain(element)) {
    if (node === document.body || node === document.documentElement) return null;
    if (isNativelyDisabled(node)) return null;
    if (node.matches(CLICK_FOCUSABLE) || node.shadowRoot?.delegatesFocus === true) return node;
  }
  return null;
}

/**
 * A left click at `element` as a mouse produces it: the pointer's way onto the element, then
 * pointerdown, mousedown, focus (unless mousedown was cancelled, which keeps focus where it was,
 * as comboboxes rely on), pointerup, mouseup, click, with buttons 1 while the button is down and
 * detail 1 on the mouse events of the press (a single click). `click` is a PointerEvent, as in
 * Chromium and Gecko today (UI Events, "click"; Pointer Events, "click, auxclick, and
 * contextmenu events"), and it runs the element's activation behaviour (a link, a checkbox, a
 * submit button) as a real click does. Returns where focus went after allwright's own focus.
 * @param {Element} element the element pressed (the top hit inside the target)
 * @param {{x: number, y: number}} point client coordinates
 * @param {{focus?: boolean}} [options] focus: false leaves focus alone (the caller focuses)
 * @returns {{activeAfterPress: Element | null, mousedownCancelled: boolean}}
 */
export function clickAt(element, point, { focus = true } = {}) {
  movePointerTo(element, point);
  const pressed = mouseFields(point, { button: 0, buttons: 1, detail: 1 });
  const released = mouseFields(point, { button: 0, buttons: 0, detail: 1 });
  const changed = { buttonChanged: true };
  const pointerDownProceeded = element.dispatchEvent(new PointerEvent("pointerdown", pointerFields(pressed, changed)));
  // A cancelled pointerdown suppresses the compatibility mouse events of the press (Pointer
  // Events, "Compatibility mapping with mouse events"), but neither focus nor click; only a
  // cancelled mousedown keeps focus where it was.
  const mousedownCancelled = pointerDownProceeded && !element.dispatchEvent(new MouseEvent("mousedown", pressed));
  if (focus && !mousedownCancelled) {
    const focusable = focusTargetOfPress(element);
    if (focusable !== null && deepActiveElement() !== focusable) focusElement(focusable);
  }
  const activeAfterPress = deepActiveElement();
  // A press handler that removed the pressed element (a list re-rendered on mousedown): a real
  // release lands on whatever is there now and the click on what both have in common, which a
  // synthetic click cannot know; nothing more is sent, rather than a click on a detached node.
  if (!element.isConnected) return { activeAfterPress, mousedownCancelled };
  element.dispatchEvent(new PointerEvent("pointerup", pointerFields(released, changed)));
  if (pointerDownProceeded) element.dispatchEvent(new MouseEvent("mouseup", released));
  // Chromium's click carries the mouse's pointerId and pointerType but isPrimary false, and the
  // click count in detail (recorded from a real click: fixtures/pages/actions/click-order.html).
  element.dispatchEvent(
    new PointerEvent("click", { ...pointerFields(released, changed), detail: 1, isPrimary: false }),
  );
  return { activeAfterPress, mousedownCancelled };
}

/**
 * A left click on `target` as a person's mouse gives it: aimed at the in-view centre, pressed on
 * the top element there inside the target, within the page-handler mark (page-handlers.js).
 * @param {Element} target
 * @param {{focus?: boolean}} [options]
 */
export function pointerClick(target, options) {
  const { point, element } = aimAt(target);
  return runPageHandlers(() => clickAt(element, point, options));
}
