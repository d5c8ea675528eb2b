// @ts-check
// What the background asks a frame about frames (docs/protocol/frames.md, "Frames"):
// - `child_frames`: for the child frames the background lists, the <iframe> element of this
//   document that holds each one, as this document lays it out (size, visibility);
// - `draft_state`: the work promote_iframe would discard by navigating the tab to this frame's
//   URL: changed text fields, selects, checkboxes and radios, chosen files, and text an agent
//   typed into a contenteditable that the page has not taken. Reasons name the control, never
//   its value (a password stays private).

import { childFrameIdsOf, isFrameElement } from "../dom/frame-elements.js";
import { quote } from "./element.js";
import { inputReading, selectDiffersFromDefault } from "./form-defaults.js";
import { unconfirmedAgentEdits } from "./agent-edits.js";

/** At most this many reasons are listed; the count says how many there were. */
const MAX_REASONS = 10;

/**
 * Every element of this document matching `selector`, open shadow roots included (the content
 * script sees no closed ones; a closed root's controls count as state it cannot inspect only
 * through what the page shows, which is why promote_iframe documents the limit).
 * @param {string} selector
 * @returns {Element[]}
 */
function deepQuery(selector) {
  /** @type {Element[]} */
  const found = [];
  /** @type {(Document|ShadowRoot)[]} */
  const roots = [document];
  while (roots.length > 0) {
    const root = /** @type {Document|ShadowRoot} */ (roots.pop());
    found.push(...root.querySelectorAll(selector));
    for (const element of root.querySelectorAll("*")) {
      if (element.shadowRoot) roots.push(element.shadowRoot);
    }
  }
  return found;
}

/**
 * `child_frames({childFrames})`: `{frames: [{frameId, width, height, visible}]}` for each child
 * frame whose element this document can name (see dom/frame-elements.js); the others are left
 * out, and get_frames then leaves their size and visibility out.
 * @param {{childFrames: ChildFrame[]}} args
 */
export function childFrames({ childFrames: listed }) {
  const elements = /** @type {HTMLIFrameElement[]} */ (deepQuery("iframe, frame").filter(isFrameElement));
  const frameIds = childFrameIdsOf(elements, listed);
  /** @type {{frameId: number, width: number, height: number, visible: boolean}[]} */
  const frames = [];
  frameIds.forEach((frameId, index) => {
    if (frameId === undefined) return;
    const element = elements[index];
    const box = element.getBoundingClientRect();
    const visible =
      box.width > 0 &&
      box.height > 0 &&
      (typeof element.checkVisibility !== "function" ||
        element.checkVisibility({ visibilityProperty: true, opacityProperty: true }));
    frames.push({ frameId, width: Math.round(box.width), height: Math.round(box.height), visible });
  });
  return { frames };
}

/** Elements whose text is content, not a label's words: a textarea's default text, options. */
const NOT_LABEL_TEXT = new Set(["textarea", "select", "option", "datalist", "script", "style", "template"]);

/**
 * A label's own words: its text without the text of the controls it wraps (a textarea's text or
 * a select's options would otherwise show content in the reason).
 * @param {Node} node
 * @returns {string}
 */
function labelWords(node) {
  let text = "";
  for (const child of node.childNodes) {
    if (child.nodeType === Node.TEXT_NODE) text += child.nodeValue ?? "";
    else if (child.nodeType === Node.ELEMENT_NODE && !NOT_LABEL_TEXT.has(/** @type {Element} */ (child).localName)) {
      text += labelWords(child);
    }
  }
  return text;
}

/**
 * How a reason names a control: its label, else its name or id, else its tag.
 * @param {Element} element
 */
function controlName(element) {
  const field = /** @type {HTMLInputElement} */ (element);
  const label =
    element.getAttribute("aria-label") ??
    (field.labels && field.labels.length > 0 ? labelWords(field.labels[0]) : null) ??
    element.getAttribute("name") ??
    (element.id || null) ??
    element.getAttribute("placeholder");
  const text = (label ?? "").replace(/\s+/g, " ").trim();
  return text === "" ? `<${element.localName}>` : quote(text, 60);
}

/**
 * `draft_state()`: `{reasons}`, empty when nothing would be lost.
 * @returns {{reasons: string[]}}
 */
export function draftState() {
  /** @type {string[]} */
  const reasons = [];
  for (const element of deepQuery("input, textarea, select")) {
    const name = controlName(element);
    if (element.localName === "textarea") {
      const area = /** @type {HTMLTextAreaElement} */ (element);
      if (area.value !== area.defaultValue) reasons.push(`the text area ${name} was edited`);
    } else if (element.localName === "select") {
      if (selectDiffersFromDefault(/** @type {HTMLSelectElement} */ (element))) {
        reasons.push(`the selection of ${name} was changed`);
      }
    } else {
      const input = /** @type {HTMLInputElement} */ (element);
      const reading = inputReading(input.type);
      if (reading === "value" && input.value !== input.defaultValue) {
        reasons.push(`the field ${name} was edited`);
      } else if (reading === "checked" && input.checked !== input.defaultChecked) {
        reasons.push(`the ${input.type} ${name} was ${input.checked ? "checked" : "unchecked"}`);
      } else if (reading === "file" && input.files !== null && input.files.length > 0) {
        reasons.push(`a file is attached to ${name}`);
      }
    }
  }
  for (const host of unconfirmedAgentEdits()) {
    reasons.push(`text typed by an agent into ${controlName(host)} was not taken by the page`);
  }
  if (reasons.length > MAX_REASONS) {
    const more = reasons.length - MAX_REASONS;
    return { reasons: [...reasons.slice(0, MAX_REASONS), `and ${more} more`] };
  }
  return { reasons };
}
