// @ts-check
// mark_trusted_target and unmark_trusted_target: the page half of the re-check that Chrome's
// trusted fallback click makes after the debugger attached (docs/protocol/action-safety.md, "A ref means one
// element"). The background cannot hand the debugger the target element, so the frame marks it
// with a short-lived random attribute and says where the page stood (URL, scroll position and
// viewport size) when it did; the background then asks the browser itself, through the debugger,
// whether the marked element is still the top hit at the point, in the top document, with the
// same URL and viewport, and clicks only if so.

import { viewportRect } from "./element.js";
import { TRUSTED_MARKER_ATTRIBUTE } from "../../shared/generated/marker-attributes.js";
import { clickedElementOf } from "./click.js";

const messages = globalThis.allwrightMessages;

/** How long a marker may stay if the background never removes it. */
const MARKER_LIFETIME_MS = 5_000;

/**
 * mark_trusted_target({token}): `{marker, attribute, url, rect, viewport: {scrollX, scrollY,
 * width, height}}`, the target of the click `token` marked. Fails with ref_not_found when the
 * click's element left the page.
 * @param {{token: string}} args
 */
export async function markTrustedTarget(args) {
  const element = clickedElementOf(args.token);
  if (element === null) {
    throw messages.toolError("ref_not_found", "the clicked element is no longer in the page", {
      hint: "Read the tree again with get_accessibility_tree.",
    });
  }
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  const marker = Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");
  element.setAttribute(TRUSTED_MARKER_ATTRIBUTE, marker);
  setTimeout(() => removeMarker(element, marker), MARKER_LIFETIME_MS);
  markedElements.set(marker, new WeakRef(element));
  return {
    marker,
    attribute: TRUSTED_MARKER_ATTRIBUTE,
    url: location.href,
    rect: viewportRect(element),
    viewport: {
      scrollX: window.scrollX,
      scrollY: window.scrollY,
      width: document.documentElement.clientWidth,
      height: document.documentElement.clientHeight,
    },
  };
}

/**
 * unmark_trusted_target({marker}): `{removed}`.
 * @param {{marker: string}} args
 */
export async function unmarkTrustedTarget(args) {
  const element = markedElements.get(args.marker)?.deref();
  markedElements.delete(args.marker);
  return { removed: element !== undefined && removeMarker(element, args.marker) };
}

/** @type {Map<string, WeakRef<Element>>} */
const markedElements = new Map();

/**
 * @param {Element} element
 * @param {string} marker
 */
function removeMarker(element, marker) {
  markedElements.delete(marker);
  if (element.getAttribute(TRUSTED_MARKER_ATTRIBUTE) !== marker) return false;
  element.removeAttribute(TRUSTED_MARKER_ATTRIBUTE);
  return true;
}
