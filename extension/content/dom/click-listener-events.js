// @ts-check
// The names two worlds of one frame share to cross from the page's world, where the click
// listener recorder runs (content/click-listener-recorder.js, a manifest content script with
// "world": "MAIN"), to the isolated world of the tree's gatherer
// (tree/click-listener-elements.js). Isolated worlds share the DOM with the page but no
// JavaScript object (WebExtensions "Content scripts", "DOM access"; Chrome's "Work in isolated
// worlds"), so the only way across is an event on a node of the shared DOM. A module without
// imports: both bundles include it.

/**
 * Dispatched by the gatherer on the document: "name every element you recorded". The prefix
 * keeps it apart from any event a page names; a page may still dispatch it, see
 * docs/security.md, "The click listener recorder".
 */
export const CLICK_LISTENERS_REQUEST = "allwright:click-listeners-request";

/**
 * Dispatched by the recorder on each recorded element that is still connected, in answer to
 * the request, before the request's dispatchEvent returns: composed (it leaves an open shadow
 * root, where the gatherer's capturing listener on the window sees it), not bubbling and not
 * cancelable.
 */
export const CLICK_LISTENER_ELEMENT = "allwright:click-listener-element";

/**
 * The event types whose listeners make an element something to click: a click, and the press
 * or release of a mouse button, a pointer or a touch (UI Events, "Mouse Event Types"; Pointer
 * Events 3; Touch Events). The same presses and releases as the inline handler attributes the
 * core reads (`CLICK_HANDLER_ATTRIBUTES` in crates/allwright-ax/src/tree.rs), plus touches.
 */
export const CLICK_LISTENER_TYPES = Object.freeze([
  "click",
  "mousedown",
  "mouseup",
  "pointerdown",
  "pointerup",
  "touchstart",
  "touchend",
]);

/**
 * An element that received listeners for more event types than this is a framework's
 * delegation root, not a control: React's root container gets one listener for every event
 * React supports (about eighty types, in `listenToAllSupportedEvents`), and a mark on it would
 * make the whole application one clickable, whose descendants the core then reads as part of
 * it. A custom control with listeners of its own (a slider: pointer, mouse, touch, key and
 * focus events) stays well below.
 */
export const DELEGATION_ROOT_TYPE_COUNT = 24;
