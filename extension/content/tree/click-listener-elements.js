// @ts-check
// The gatherer's half of the click listener recorder (content/click-listener-recorder.js, in the
// page's world): which elements of this frame received a click, press or release listener,
// asked across the worlds with events on the shared DOM (dom/click-listener-events.js). The
// gatherer marks them HAS_CLICK_LISTENER (crates/allwright-ax-wasm/src/facts.rs).

import { CLICK_LISTENER_ELEMENT, CLICK_LISTENERS_REQUEST } from "../dom/click-listener-events.js";

/**
 * The elements of this document (open shadow roots included) that the recorder holds and that
 * are still connected, or an empty set where no recorder runs (a frame open before the
 * extension was installed, a BiDi sandbox without the extension, a page whose world the
 * browser did not give the script). All synchronous: the recorder answers inside the
 * request's dispatch (DOM, "dispatch": listeners run before dispatchEvent returns), so the
 * set is whole when this returns. The page can add names of its own by dispatching the
 * answer's event (docs/security.md, "The click listener recorder"): they are elements of its
 * own document, which it could have given a pointer cursor.
 * @returns {Set<Element>}
 */
export function clickListenerElements() {
  /** @type {Set<Element>} */
  const found = new Set();
  /** @param {Event} event */
  const collect = (event) => {
    // The first node of the composed path is the element the recorder dispatched on, inside
    // an open shadow root too (DOM, "composedPath()": only closed roots are hidden from it);
    // `target` would be retargeted to the outermost host at the window.
    // Read by nodeType rather than instanceof, which Firefox's wrappers of page nodes need not
    // satisfy.
    const target = /** @type {Node | undefined} */ (event.composedPath()[0]);
    if (target !== undefined && target.nodeType === Node.ELEMENT_NODE) found.add(/** @type {Element} */ (target));
  };
  window.addEventListener(CLICK_LISTENER_ELEMENT, collect, true);
  try {
    document.dispatchEvent(new Event(CLICK_LISTENERS_REQUEST));
  } finally {
    window.removeEventListener(CLICK_LISTENER_ELEMENT, collect, true);
  }
  return found;
}
