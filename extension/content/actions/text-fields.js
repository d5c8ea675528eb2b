// @ts-check
// Text fields: which elements take typed text (input, textarea, contenteditable), the field a
// label or wrapper stands for, and writing a value past a framework's wrapper.

import { flatTreeParentElement, queryAllAcrossShadow } from "../dom/shadow.js";

/**
 * Input types that type_ax refuses because they take no typed text (docs/protocol.md, error
 * `not_typable`), each with the hint naming the tool that fits.
 * @type {Readonly<Record<string, string>>}
 */
export const UNTYPABLE_INPUT_TYPES = Object.freeze({
  checkbox: "Use click_ax on the checkbox to check or uncheck it.",
  radio: "Use click_ax on the radio button to choose it.",
  submit: "Use click_ax to press the button, or set_field with submit: true on a field of its form.",
  reset: "Use click_ax to press the button.",
  button: "Use click_ax to press the button.",
  image: "Use click_ax to press the image button.",
  file: "A file input cannot be filled by typing; allwright has no file-upload tool.",
  hidden: "A hidden input is not meant to be typed into; type into the visible field instead.",
  range: "Use press_key with ArrowLeft, ArrowRight, Home or End on the slider.",
  color: "Use click_ax to open the colour picker; its value cannot be typed.",
});

/**
 * The editing host of an element inside contenteditable content.
 * @param {any} element
 */
export function editingHost(element) {
  let host = element;
  /** @type {any} */
  let parent;
  for (
    parent = flatTreeParentElement(host);
    parent !== null && parent.isContentEditable;
    parent = flatTreeParentElement(parent)
  ) {
    host = parent;
  }
  return host;
}

/**
 * The kind of text field the element is, or null; without the checks that refuse it.
 * @param {Element} element
 * @returns {"input"|"textarea"|"contenteditable"|null}
 */
export function textFieldKind(element) {
  if (element.localName === "input") {
    return UNTYPABLE_INPUT_TYPES[/** @type {HTMLInputElement} */ (element).type] === undefined ? "input" : null;
  }
  if (element.localName === "textarea") return "textarea";
  // SVG and MathML elements have no isContentEditable: they are not editing hosts.
  if (/** @type {Partial<HTMLElement>} */ (element).isContentEditable) return "contenteditable";
  return null;
}

/**
 * The field that a label or an aria-labelledby target names.
 * @param {Element} element
 */
export function labelledField(element) {
  const control = element.localName === "label" ? /** @type {HTMLLabelElement} */ (element).control : null;
  if (control !== null) return control;
  if (element.id) {
    const root = /** @type {Node & Partial<ParentNode>} */ (element.getRootNode());
    const scope = typeof root.querySelector === "function" ? /** @type {ParentNode} */ (root) : document;
    const labelled = scope.querySelector(`[aria-labelledby~="${CSS.escape(element.id)}"]`);
    if (labelled !== null && labelled !== element) return labelled;
  }
  return null;
}

/**
 * The only text field inside a wrapper (a form row, a component's host), or null.
 * @param {Element} element
 */
export function onlyTextFieldInside(element) {
  const fields = queryAllAcrossShadow(element, "input, textarea, [contenteditable]")
    .filter((candidate) => textFieldKind(candidate) !== null)
    .map((candidate) =>
      /** @type {HTMLElement} */ (candidate).isContentEditable ? editingHost(candidate) : candidate,
    );
  const distinct = [...new Set(fields)];
  return distinct.length === 1 ? distinct[0] : null;
}

/**
 * Writes a value through the browser's own setter: React and Vue wrap `value` on the instance
 * and would swallow the write, so the input event would look like no change to them: the
 * controlled components of React and Vue must be reached past their wrappers.
 * @param {Element} field
 * @param {string} value
 */
export function setNativeValue(field, value) {
  const prototype = field.localName === "textarea" ? HTMLTextAreaElement.prototype : HTMLInputElement.prototype;
  nativeSetter(prototype, "value").call(field, value);
}

/**
 * The browser's own setter of an accessor property of a DOM prototype (HTML defines `value` and
 * `selected` as accessors there), read from this world's prototype, which the page cannot replace.
 * @param {object} prototype
 * @param {string} name
 * @returns {(this: Element, value: unknown) => void}
 */
export function nativeSetter(prototype, name) {
  const setter = Object.getOwnPropertyDescriptor(prototype, name)?.set;
  if (setter === undefined) throw new Error(`the browser defines no setter of ${name}`);
  return setter;
}

/**
 * The InputEvent fields of typing `text`; "" deletes backwards (Input Events, "inputType").
 * @param {string} text
 */
export const insertTextInit = (text) =>
  text === "" ? { inputType: "deleteContentBackward", data: null } : { inputType: "insertText", data: text };
