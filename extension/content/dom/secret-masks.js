// @ts-check
// The masks a screenshot paints over secret fields (docs/protocol/action-safety.md, "Secrets stay secret"):
// before the picture is taken, every field shared/secret-fields.js calls secret in this
// document (its light tree, and its open and closed shadow roots) gets an opaque box over its
// border box; after, the boxes go and the frame says whether they stayed in place. The
// background asks every frame of the tab (background/captures/secret-masks.js), for both capture paths:
// the extension's captureVisibleTab and the browser bridge's BiDi captureScreenshot.
//
// Why boxes in the page rather than paint on the decoded picture: each document places its own
// boxes in its own coordinates, so every frame (cross-origin ones included, in both browsers),
// the device pixel ratio, the browser's zoom, scrolled containers and the whole page of a
// full-page capture come out right with no geometry carried between frames, and one code serves
// both capture paths (the BiDi picture is never decoded by allwright, and a JPEG could not be
// re-encoded there). The cost is that the page can see the boxes: they sit in a closed shadow
// root of an element in the top layer (a manual popover, above the page's own dialogs), styled
// with inline `!important` declarations that no page rule outranks (CSS Cascade 5, "Cascade
// Sorting": the style attribute precedes layers and specificity). A page that removes, moves,
// restyles or hides the boxes, or moves a secret field, while they are up is seen: a
// MutationObserver watches the document, and the fields are measured again afterwards. The
// frame then answers `intact: false`, and the background throws the picture away.

import { isSecretField } from "../../shared/secret-fields.js";
import { anyShadowRoot } from "./shadow.js";

/** The masks' colour: opaque black (tests/extension/screenshot.rs checks the pixels). */
export const MASK_COLOUR = "rgb(0, 0, 0)";

/** The masks reach this far past a field's box, in CSS pixels, over anti-aliased edges. */
const MASK_MARGIN = 1;

/** The fields that can hold a value (shared/secret-fields.js decides which of them are secret). */
const FIELD_SELECTOR = "input, textarea, select, [contenteditable]";

/** Masks a background never took away (its worker stopped) go by themselves after this long. */
const MASK_LIFETIME_MS = 30_000;

/** The longest wait for the page to render the masks (see renderedOnce). */
const RENDER_WAIT_MS = 250;

/** Rounding of a measured box, so that sub-pixel noise between two measures is no change. */
const round = (/** @type {number} */ value) => Math.round(value * 4) / 4;

/**
 * @typedef {{x: number, y: number, width: number, height: number}} MaskBox a field's border box
 *   in document coordinates (the viewport's box plus the document's scroll)
 * @typedef {{token: string, host: HTMLElement, observer: MutationObserver, boxes: string,
 *   tampered: boolean, expiry: ReturnType<typeof setTimeout>}} PaintedMasks
 */

/** The masks up now, or null. @type {PaintedMasks|null} */
let painted = null;

/**
 * Closed shadow roots this realm cannot find by itself but was handed: a WebDriver BiDi sandbox
 * has no extension API to open them (anyShadowRoot), and BiDi-only mode finds them over BiDi
 * (node serialization with `includeShadowTree: "all"`) and passes them in (surface/bidi-snapshot.js).
 * The content script never sets it.
 * @type {ShadowRoot[]}
 */
let handedRoots = [];

/**
 * Sets the closed shadow roots secretFieldsOf searches besides the ones it finds.
 * @param {ShadowRoot[]} roots
 */
export function searchAlsoIn(roots) {
  handedRoots = roots;
}

/**
 * Every secret field of the document with a box, in its light tree and in every shadow root.
 * @param {Document} document
 * @returns {Element[]}
 */
export function secretFieldsOf(document) {
  /** @type {Element[]} */
  const found = [];
  /** @type {Array<Document|ShadowRoot>} */
  const roots = [document, ...handedRoots.filter((root) => root.host?.isConnected === true)];
  for (let index = 0; index < roots.length; index++) {
    const root = roots[index];
    for (const element of root.querySelectorAll("*")) {
      const shadow = anyShadowRoot(element);
      // A handed root may be one this realm can open too (Firefox's): searched once.
      if (shadow !== null && !roots.includes(shadow)) roots.push(shadow);
    }
    for (const field of root.querySelectorAll(FIELD_SELECTOR)) {
      if (isSecretField(field)) found.push(field);
    }
  }
  return found;
}

/**
 * The boxes of the secret fields that have one, in document coordinates.
 * @param {Element[]} fields
 * @returns {MaskBox[]}
 */
function boxesOf(fields) {
  /** @type {MaskBox[]} */
  const boxes = [];
  for (const field of fields) {
    const rect = paintedArea(field);
    if (rect.width <= 0 || rect.height <= 0) continue;
    boxes.push({
      x: round(rect.x + scrollX),
      y: round(rect.y + scrollY),
      width: round(rect.width),
      height: round(rect.height),
    });
  }
  return boxes;
}

/**
 * Where a field's value can show, in viewport coordinates: its border box, and for an editing
 * host also its text, which overflows the box unless the page clips it (inputs, textareas and
 * selects always clip their value to their box).
 * @param {Element} field
 * @returns {{x: number, y: number, width: number, height: number}}
 */
function paintedArea(field) {
  const box = field.getBoundingClientRect();
  const localName = field.localName;
  if (localName === "input" || localName === "textarea" || localName === "select") return box;
  const range = document.createRange();
  range.selectNodeContents(field);
  const text = range.getBoundingClientRect();
  if (text.width <= 0 || text.height <= 0) return box;
  if (box.width <= 0 || box.height <= 0) return text;
  const left = Math.min(box.left, text.left);
  const top = Math.min(box.top, text.top);
  const right = Math.max(box.right, text.right);
  const bottom = Math.max(box.bottom, text.bottom);
  return { x: left, y: top, width: right - left, height: bottom - top };
}

/** Whether a box in document coordinates is inside the viewport, at least in part. */
function inViewport(/** @type {MaskBox} */ box) {
  const left = box.x - scrollX;
  const top = box.y - scrollY;
  const { clientWidth, clientHeight } = document.documentElement;
  const width = Math.max(clientWidth, innerWidth);
  const height = Math.max(clientHeight, innerHeight);
  return left < width && top < height && left + box.width > 0 && top + box.height > 0;
}

/**
 * A style attribute whose every declaration is `!important`: a style attribute's important
 * declarations outrank every rule of the page (CSS Cascade 5, "Cascade Sorting").
 * @param {string[]} declarations
 */
function importantStyle(declarations) {
  return declarations.map((declaration) => `${declaration} !important`).join("; ");
}

/**
 * paint_secret_masks({token}): paints a box over every secret field of this document, waits
 * until the page has rendered them, and answers how many there are with a box (`masked`) and
 * how many of those are in the viewport (`maskedInViewport`). Masks a previous call left are
 * removed first.
 * @param {{token: string}} args
 */
export async function paintSecretMasks({ token }) {
  removeMasks();
  const boxes = boxesOf(secretFieldsOf(document));
  if (boxes.length === 0) return { masked: 0, maskedInViewport: 0 };
  const host = document.createElement("div");
  // The host spans nothing itself; the boxes hang off it in the initial containing block's
  // coordinates, which a top-layer element with `position: absolute` has (CSS Position 4).
  host.setAttribute(
    "style",
    importantStyle([
      "all: initial",
      "display: block",
      "position: absolute",
      "inset: 0 auto auto 0",
      "width: 0",
      "height: 0",
      "margin: 0",
      "padding: 0",
      "border: 0",
      "overflow: visible",
      "background: transparent",
      "pointer-events: none",
      "z-index: 2147483647",
      "opacity: 1",
      "visibility: visible",
      "transform: none",
      "filter: none",
      "clip-path: none",
    ]),
  );
  host.setAttribute("popover", "manual");
  const shadow = host.attachShadow({ mode: "closed" });
  for (const box of boxes) {
    const mask = document.createElement("div");
    mask.setAttribute(
      "style",
      importantStyle([
        "all: initial",
        "display: block",
        "position: absolute",
        `left: ${box.x - MASK_MARGIN}px`,
        `top: ${box.y - MASK_MARGIN}px`,
        `width: ${box.width + 2 * MASK_MARGIN}px`,
        `height: ${box.height + 2 * MASK_MARGIN}px`,
        `background: ${MASK_COLOUR}`,
        "opacity: 1",
        "visibility: visible",
      ]),
    );
    shadow.append(mask);
  }
  document.documentElement.append(host);
  try {
    host.showPopover();
  } catch {
    // A document without popovers keeps the host as the root's last child at the top z-index.
  }
  /** @type {PaintedMasks} */
  const state = {
    token,
    host,
    // Any change to the host, or its removal, while the masks are up (content scripts' observers
    // see the page's mutations like any other).
    observer: new MutationObserver((records) => {
      if (records.some((record) => touchesHost(record, host))) state.tampered = true;
    }),
    boxes: JSON.stringify(boxes),
    tampered: false,
    expiry: setTimeout(removeMasks, MASK_LIFETIME_MS),
  };
  state.observer.observe(document, { subtree: true, childList: true, attributes: true });
  painted = state;
  await renderedOnce();
  return { masked: boxes.length, maskedInViewport: boxes.filter(inViewport).length };
}

/**
 * Resolves once the page has rendered a frame with the masks: captureVisibleTab takes the last
 * frame the compositor drew, which may predate them (an element screenshot in Chromium showed a
 * field the masks were already over in the DOM). Two animation frames: the first runs before the
 * masks' frame is drawn, the second after. A tab that is not shown runs no animation frames
 * (HTML, "update the rendering"), and BiDi's capture renders by itself: a short wait ends it.
 */
function renderedOnce() {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, RENDER_WAIT_MS);
    requestAnimationFrame(() =>
      requestAnimationFrame(() => {
        clearTimeout(timer);
        resolve(undefined);
      }),
    );
  });
}

/**
 * Whether a mutation record changed the masks' host or took it out of the document.
 * @param {MutationRecord} record
 * @param {HTMLElement} host
 */
function touchesHost(record, host) {
  return record.target === host || [...record.removedNodes].includes(host);
}

/**
 * remove_secret_masks({token}): takes the boxes away and answers whether they stayed as painted
 * over fields that stayed where they were (`intact`). A frame without masks (none were needed,
 * or the document was replaced) answers `intact: true` with `painted: false`.
 * @param {{token: string}} args
 */
export function removeSecretMasks({ token }) {
  if (painted === null || painted.token !== token) {
    // The masks of this call are not here: none were painted, or the page replaced the
    // document, and a new document is measured again.
    const fields = boxesOf(secretFieldsOf(document));
    return { painted: false, intact: fields.length === 0 };
  }
  const { host, observer, boxes } = painted;
  if (observer.takeRecords().some((record) => touchesHost(record, host))) painted.tampered = true;
  let intact =
    !painted.tampered &&
    host.isConnected &&
    host.parentNode === document.documentElement &&
    (typeof host.matches !== "function" || !("showPopover" in host) || host.matches(":popover-open"));
  // The fields measured again: a field that moved, appeared or went is a field the boxes missed.
  intact = intact && JSON.stringify(boxesOf(secretFieldsOf(document))) === boxes;
  removeMasks();
  return { painted: true, intact };
}

/** Takes any masks away. */
function removeMasks() {
  if (painted === null) return;
  clearTimeout(painted.expiry);
  painted.observer.disconnect();
  try {
    painted.host.hidePopover();
  } catch {
    // Not shown as a popover, or already hidden.
  }
  painted.host.remove();
  painted = null;
}
