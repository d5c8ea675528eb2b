// @ts-check
// press_key's page half: the key's events and the default action a synthetic key lacks (Tab's
// focus navigation, Enter's submission or activation, Space's activation, editing), performed here.

import { deepActiveElement, isSelfOrInside } from "../dom/shadow.js";
import { formOwner, isNativelyDisabled, viewportRect } from "./element.js";
import {
  classifyMutations,
  controlledBy,
  controlValues,
  popupEvidence,
  semanticState,
  semanticStateChanges,
  shownPopups,
  startMutationWindow,
  textChangeEvidence,
  valueChangeEvidence,
} from "./evidence.js";
import { submitImplicitly } from "./form-submission.js";
import { activate, focusElement, scrollIntoViewIfNeeded } from "./interaction.js";
import { dispatchKeyboardEvent, isPrintableKey, NO_MODIFIERS } from "./key-events.js";
import { describeTarget, describeTargetAsRead, focusTarget, printedRole, resolveTarget } from "./target.js";
import { editingHost, insertTextInit, setNativeValue, textFieldKind } from "./text-fields.js";
import { nextTask, settle } from "./timing.js";

/** press_key's modifier names -> the KeyboardEvent flag each one sets. */
const MODIFIER_FLAGS = Object.freeze({ Alt: "altKey", Control: "ctrlKey", Meta: "metaKey", Shift: "shiftKey" });

/** Roles that Enter activates like a click (press_key's "click" default action). */
const ENTER_ACTIVATED_ROLES = new Set([
  "button",
  "link",
  "menuitem",
  "menuitemcheckbox",
  "menuitemradio",
  "option",
  "tab",
]);

/** Roles that Space activates like a click: buttons and checkbox-like widgets. */
const SPACE_ACTIVATED_ROLES = new Set(["button", "checkbox", "switch", "radio", "menuitemcheckbox", "menuitemradio"]);

/** Elements that sequential focus navigation (Tab) may stop at, before the tabIndex check. */
const TABBABLE_CANDIDATES =
  "a[href], area[href], button, input, select, textarea, iframe, summary, " +
  "audio[controls], video[controls], [contenteditable], [tabindex]";

/**
 * A text control: the fields whose value keys edit at a caret.
 * @typedef {HTMLInputElement | HTMLTextAreaElement} TextControl
 * @typedef {{altKey: boolean, ctrlKey: boolean, metaKey: boolean, shiftKey: boolean}} Modifiers
 */

/**
 * The editable kind of a focused element, or null when keys cannot edit it.
 * @param {Element} element
 * @returns {"input"|"textarea"|"contenteditable"|null}
 */
function editableKind(element) {
  const kind = textFieldKind(element);
  if (kind === null || isNativelyDisabled(element)) return null;
  if (kind !== "contenteditable" && /** @type {TextControl} */ (element).readOnly) return null;
  return kind;
}

/** The sequential focus navigation order: positive tabindex first, then document order. */
function tabbableElements() {
  /** @type {HTMLElement[]} */
  const elements = [...document.querySelectorAll(TABBABLE_CANDIDATES)].map(
    (element) => /** @type {HTMLElement} */ (element),
  );
  const candidates = elements.filter(
    (element) =>
      element.tabIndex >= 0 &&
      !isNativelyDisabled(element) &&
      !(element.localName === "input" && /** @type {HTMLInputElement} */ (element).type === "hidden") &&
      element.closest("[inert]") === null &&
      element.getClientRects().length > 0 &&
      getComputedStyle(element).visibility === "visible",
  );
  // Array.prototype.sort is stable, so equal tabindex values keep document order.
  const positive = candidates
    .filter((element) => element.tabIndex > 0)
    .sort((left, right) => left.tabIndex - right.tabIndex);
  return [...positive, ...candidates.filter((element) => element.tabIndex === 0)];
}

/**
 * Tab / Shift+Tab: focus the next or previous tabbable element, wrapping at the ends.
 * @param {Element} from
 * @param {boolean} backward
 * @param {string[]} hints
 */
function moveFocusSequentially(from, backward, hints) {
  const order = tabbableElements();
  if (order.length === 0) return null;
  const index = order.indexOf(/** @type {HTMLElement} */ (from));
  let next;
  if (index >= 0) {
    next = order[(index + (backward ? -1 : 1) + order.length) % order.length];
  } else {
    // From a position that is not itself tabbable (the body, a plain element), the search
    // starts at that position in document order.
    const after = (/** @type {Element} */ element) =>
      (from.compareDocumentPosition(element) & Node.DOCUMENT_POSITION_FOLLOWING) !== 0;
    next = backward ? order.findLast((element) => !after(element)) : order.find(after);
    next ??= backward ? order[order.length - 1] : order[0];
  }
  if ((backward && index === 0) || (!backward && index === order.length - 1)) {
    hints.push("focus wrapped around the page");
  }
  focusElement(next, { preventScroll: false });
  return next;
}

/**
 * The caret (or selection) of a text control; types without one (email, number) use the end.
 * @param {TextControl} field
 */
function textControlSelection(field) {
  try {
    if (field.selectionStart !== null && field.selectionEnd !== null) {
      return { start: field.selectionStart, end: field.selectionEnd };
    }
  } catch {
    // Some input types throw on selectionStart instead of returning null.
  }
  return { start: field.value.length, end: field.value.length };
}

/**
 * @param {TextControl} field
 * @param {number} position
 */
function restoreCaret(field, position) {
  try {
    field.setSelectionRange(position, position);
  } catch {
    // Input types without a selection have no caret to restore.
  }
}

/**
 * Dispatches the cancelable beforeinput of typing `text` ("" deletes backwards) on `target`.
 * Returns the fields of the input event that follows, or null when the page cancelled it.
 * @param {EventTarget} target
 * @param {string} text
 */
function beforeInput(target, text) {
  const init = { bubbles: true, composed: true, ...insertTextInit(text) };
  return target.dispatchEvent(new InputEvent("beforeinput", { ...init, cancelable: true })) ? init : null;
}

/**
 * Edits a text control at its caret as a typed key would: beforeinput (cancelable), the new
 * value through the native setter, input. `text` "" deletes backwards.
 * @param {HTMLInputElement | HTMLTextAreaElement} field
 * @param {string} text
 */
export function editTextControl(field, text) {
  const init = beforeInput(field, text);
  if (init === null) return false;
  const value = field.value;
  let { start, end } = textControlSelection(field);
  if (text === "" && start === end) {
    if (start === 0) return false;
    // One character backwards, which is two code units for a character outside the BMP.
    const previous = value.charCodeAt(start - 1);
    start -= previous >= 0xdc00 && previous <= 0xdfff && start >= 2 ? 2 : 1;
  }
  setNativeValue(field, value.slice(0, start) + text + value.slice(end));
  restoreCaret(field, start + text.length);
  field.dispatchEvent(new InputEvent("input", init));
  return true;
}

/**
 * The same in a contenteditable, at the selection when it lies inside the host.
 * @param {Element} host
 * @param {string} text
 */
function editEditingHost(host, text) {
  const init = beforeInput(host, text);
  if (init === null) return false;
  const selection = host.ownerDocument.getSelection();
  let range = selection !== null && selection.rangeCount > 0 ? selection.getRangeAt(0) : null;
  if (range === null || !isSelfOrInside(host, range.commonAncestorContainer)) {
    range = host.ownerDocument.createRange();
    range.selectNodeContents(host);
    range.collapse(false);
  }
  if (text === "" && range.collapsed && selection !== null) {
    selection.removeAllRanges();
    selection.addRange(range);
    selection.modify("extend", "backward", "character");
    range = selection.getRangeAt(0);
  }
  range.deleteContents();
  if (text !== "") {
    const inserted = host.ownerDocument.createTextNode(text);
    range.insertNode(inserted);
    range.setStartAfter(inserted);
    range.collapse(true);
  }
  if (selection !== null) {
    selection.removeAllRanges();
    selection.addRange(range);
  }
  host.dispatchEvent(new InputEvent("input", init));
  return true;
}

/**
 * @param {Element} element
 * @param {"input"|"textarea"|"contenteditable"} kind
 * @param {string} text
 */
function editAtCaret(element, kind, text) {
  return kind === "contenteditable"
    ? editEditingHost(editingHost(element), text)
    : editTextControl(/** @type {TextControl} */ (element), text);
}

/**
 * @param {Element} element
 * @param {"input"|"textarea"|"contenteditable"} kind
 */
function selectAllIn(element, kind) {
  if (kind === "contenteditable") {
    element.ownerDocument.getSelection()?.selectAllChildren(editingHost(element));
  } else {
    /** @type {TextControl} */ (element).select();
  }
}

/**
 * @param {Element} element
 * @param {string} role
 */
function isEnterActivated(element, role) {
  if (element.localName === "button" || (element.localName === "a" && element.hasAttribute("href"))) return true;
  if (
    element.localName === "input" &&
    ["submit", "button", "reset", "image"].includes(/** @type {HTMLInputElement} */ (element).type)
  )
    return true;
  return ENTER_ACTIVATED_ROLES.has(role);
}

/**
 * @param {Element} element
 * @param {string} role
 */
function isSpaceActivated(element, role) {
  if (element.localName === "button" || element.localName === "summary") return true;
  if (
    element.localName === "input" &&
    ["submit", "button", "reset", "image", "checkbox", "radio"].includes(/** @type {HTMLInputElement} */ (element).type)
  )
    return true;
  return SPACE_ACTIVATED_ROLES.has(role);
}

/**
 * The default action a real key press would have had, which a synthetic event lacks; chosen
 * before keyup, performed by the caller.
 * @param {Element} target
 * @param {string} role
 * @param {string} key
 * @param {Modifiers} modifiers
 * @param {string[]} hints
 * @returns {null | {name: string, perform: () => void, afterKeyUp?: boolean}}
 */
function defaultActionOf(target, role, key, modifiers, hints) {
  const kind = editableKind(target);
  const commandKey = modifiers.ctrlKey || modifiers.metaKey;
  if (key === "Tab" && !commandKey && !modifiers.altKey) {
    return {
      name: modifiers.shiftKey ? "focus_previous" : "focus_next",
      perform: () => moveFocusSequentially(target, modifiers.shiftKey, hints),
    };
  }
  if (key === "Enter" && !commandKey && !modifiers.altKey) {
    // Enter in a single-line field submits its form ("implicit submission").
    if (kind === "input" && formOwner(target) !== null) {
      // formOwner found the form just above, and the page's script cannot take it away in between.
      return {
        name: "submit",
        perform: () => submitImplicitly(/** @type {HTMLFormElement} */ (formOwner(target)), hints),
      };
    }
    if (isEnterActivated(target, role)) return { name: "click", perform: () => activate(target) };
    return null;
  }
  if (key === " " && !commandKey && !modifiers.altKey && kind === null && isSpaceActivated(target, role)) {
    // Buttons activate on Space's keyup.
    return { name: "click", perform: () => activate(target), afterKeyUp: true };
  }
  if (kind === null) return null;
  if (key === "Backspace" && !commandKey && !modifiers.altKey) {
    return { name: "delete_backward", perform: () => editAtCaret(target, kind, "") };
  }
  if (commandKey && !modifiers.altKey && key.toLowerCase() === "a") {
    return { name: "select_all", perform: () => selectAllIn(target, kind) };
  }
  if (isPrintableKey(key) && !commandKey) {
    return { name: "insert_text", perform: () => editAtCaret(target, kind, key) };
  }
  return null;
}

/**
 * A value to compare before and after a key, for editable targets.
 * @param {Element} element
 * @param {"input"|"textarea"|"contenteditable"|null} kind
 */
const editableValue = (element, kind) =>
  kind === null
    ? null
    : kind === "contenteditable"
      ? editingHost(element).textContent
      : /** @type {TextControl} */ (element).value;

/**
 * press_key up to the key itself: the target (focused first when ref_id names it) and the
 * before-state its evidence is measured against.
 * @param {{ref_id?: string|null, key: string, modifiers?: string[]}} args
 * @param {import("./target.js").TreeHelpers} ax
 */
async function startKeyPress(args, ax) {
  const modifierNames = args.modifiers ?? [];
  /** @type {Modifiers} */
  const modifiers = { ...NO_MODIFIERS };
  // The names passed the tool contract's enum (background/validate.js).
  for (const name of modifierNames) modifiers[MODIFIER_FLAGS[/** @type {keyof typeof MODIFIER_FLAGS} */ (name)]] = true;

  let target;
  let description;
  if (args.ref_id !== undefined && args.ref_id !== null) {
    target = resolveTarget(ax, { ref_id: args.ref_id });
    description = await describeTargetAsRead(ax, target);
    scrollIntoViewIfNeeded(target);
    focusTarget(ax, target);
  } else {
    target = deepActiveElement();
    description = await describeTarget(ax, target);
  }
  const kind = editableKind(target);
  return {
    key: args.key,
    modifierNames,
    modifiers,
    target,
    description,
    href: location.href,
    activeBefore: deepActiveElement(),
    stateBefore: semanticState(target),
    kind,
    valueBefore: editableValue(target, kind),
    mutationWindow: startMutationWindow(target),
    controlledBefore: controlledBy(target),
    valuesBefore: controlValues(),
    popupsBefore: shownPopups(),
  };
}

/**
 * press_key's report once the key was pressed (by this script or, in a browser allwright drives,
 * by real key input): what changed since startKeyPress.
 * @param {Awaited<ReturnType<typeof startKeyPress>>} started
 * @param {{name: string} | null} action the default action this script performed, if any
 * @param {string[]} hints
 */
async function keyPressReport(started, action, hints) {
  const { target, kind } = started;
  await nextTask();
  await settle();
  const evidence = [];
  if (location.href !== started.href) evidence.push("url_changed");
  const activeNow = deepActiveElement();
  if (activeNow !== started.activeBefore && activeNow !== target) evidence.push("focus_moved");
  const controlled = [...new Set([...started.controlledBefore, ...controlledBy(target)])];
  const records = started.mutationWindow.finish();
  const { local, elsewhere } = classifyMutations(records, target, controlled);
  if (local) evidence.push("local_mutation");
  if (target.isConnected) {
    evidence.push(...semanticStateChanges(started.stateBefore, semanticState(target)));
    if (kind !== null && editableValue(target, kind) !== started.valueBefore) evidence.push("value_changed");
  }
  // What an agent would see change anywhere in the page, as for a click (docs/protocol/tools.md,
  // "Synthetic input and page-wide evidence"): Enter that submits a search changes a result
  // line elsewhere, Escape closes a popup's text, ArrowDown opens a list.
  evidence.push(
    ...textChangeEvidence(records),
    ...valueChangeEvidence(started.valuesBefore),
    ...popupEvidence(started.popupsBefore),
  );
  if (elsewhere > 0) hints.push(`global_mutation: ${elsewhere} mutations elsewhere`);

  /** @type {Record<string, unknown>} */
  const result = {
    ...started.description,
    key: started.key,
    modifiers: started.modifierNames,
    evidence: [...new Set(evidence)],
    hints,
  };
  if (action !== null) result.defaultAction = action.name;
  return result;
}

/**
 * @param {{ref_id?: string|null, key: string, modifiers?: string[]}} args
 * @param {import("./target.js").TreeHelpers} ax
 */
export async function pressKey(args, ax) {
  const started = await startKeyPress(args, ax);
  const { target, key, modifiers } = started;
  /** @type {string[]} */
  const hints = [];

  // keydown, keypress, then the default action where the browser performs it, then keyup on
  // whatever holds focus by then (after Tab, the newly focused element).
  let proceed = dispatchKeyboardEvent(target, "keydown", key, modifiers);
  const withPress = key === "Enter" || (isPrintableKey(key) && !modifiers.ctrlKey && !modifiers.metaKey);
  if (proceed && withPress) proceed = dispatchKeyboardEvent(target, "keypress", key, modifiers);
  const action =
    proceed && target.isConnected ? defaultActionOf(target, printedRole(ax, target), key, modifiers, hints) : null;
  if (action !== null && !action.afterKeyUp) action.perform();
  const keyUpTarget = target.isConnected ? deepActiveElement() : document.body;
  dispatchKeyboardEvent(keyUpTarget, "keyup", key, modifiers);
  if (action !== null && action.afterKeyUp) action.perform();
  if (!proceed) hints.push("the page cancelled the key, so it had no default action");

  return keyPressReport(started, action, hints);
}

/**
 * The first half of a press_key whose key the MCP server sends as real key input over WebDriver
 * BiDi (external-input.js): the target focused and observed. The browser performs the key's
 * default action itself, so "finish" reports no `defaultAction`.
 * @param {{ref_id?: string|null, key: string, modifiers?: string[]}} args
 * @param {import("./target.js").TreeHelpers} ax
 */
export async function beginExternalKeyPress(args, ax) {
  const started = await startKeyPress(args, ax);
  return {
    element: started.target,
    description: started.description,
    rect: viewportRect(started.target),
    finish: () => keyPressReport(started, null, []),
    abort: () => started.mutationWindow.finish(),
  };
}
