// @ts-check
// type_text and fill_field, the page halves of type_ax and set_field (docs/protocol/tools.md, "Action
// results"): typing into the field a ref stands for, and set_field's submission (a combobox's
// suggestion, the form, or Enter).

import "../../shared/messages.js";
import { explicitRole, isNativelyDisabled, isShown, quote } from "./element.js";
import { focusQuietly, scrollIntoViewIfNeeded } from "./interaction.js";
import { dispatchKeyboardEvent, NO_MODIFIERS, pressKeyOnce } from "./key-events.js";
import { editTextControl } from "./keyboard.js";
import { runPageHandlers } from "./page-handlers.js";
import {
  displayedText,
  highlightedOption,
  looksLikeCombobox,
  openListboxOf,
  optionsOf,
  visibleListboxes,
} from "./listbox.js";
import { submitByEnter } from "./form-submission.js";
import { describeTargetAsRead, resolveTarget } from "./target.js";
import {
  editingHost,
  insertTextInit,
  labelledField,
  onlyTextFieldInside,
  setNativeValue,
  UNTYPABLE_INPUT_TYPES,
} from "./text-fields.js";
import { delay, settle, waitFor } from "./timing.js";
import { rememberAgentEdit } from "./agent-edits.js";
import { isSecretField } from "../../shared/secret-fields.js";

const messages = globalThis.allwrightMessages;

/** set_field: how long a combobox's suggestion list may take to appear after typing. */
const SUGGESTIONS_TIMEOUT_MS = 1000;

/** set_field: the short delay between the keys that commit a suggestion. */
const COMBOBOX_KEY_DELAY_MS = 100;

/**
 * A field type_ax types into, by kind; `hint` says when it stands in for the element the ref
 * named (a label's control, a wrapper's only field).
 * @typedef {({field: HTMLInputElement, kind: "input"} | {field: HTMLTextAreaElement, kind: "textarea"}
 *   | {field: Element, kind: "contenteditable"}) & {hint?: string}} LocatedField
 */

/**
 * The field that type_ax types into, with its kind; refuses what cannot be typed into with
 * not_typable and a hint that names the right tool.
 * @param {Element} element
 * @param {string} refId
 * @returns {LocatedField}
 */
function locateTextField(element, refId) {
  if (element.localName === "input") {
    const input = /** @type {HTMLInputElement} */ (element);
    const refusal = UNTYPABLE_INPUT_TYPES[input.type];
    if (refusal !== undefined) {
      throw messages.toolError("not_typable", `${refId} is a ${input.type} input, which cannot be typed into`, {
        hint: refusal,
      });
    }
    return { field: input, kind: "input" };
  }
  if (element.localName === "textarea")
    return { field: /** @type {HTMLTextAreaElement} */ (element), kind: "textarea" };
  if (element.localName === "select") {
    throw messages.toolError("not_typable", `${refId} is a select, which cannot be typed into`, {
      hint: "Use select_option with the option's label or value.",
    });
  }
  // SVG and MathML elements have no isContentEditable: they are not editing hosts.
  if (/** @type {Partial<HTMLElement>} */ (element).isContentEditable) {
    return { field: editingHost(element), kind: "contenteditable" };
  }

  // A label types into its control, and a wrapper into its only field; the agent often holds
  // the ref of the visible text rather than of the field.
  const labelled = labelledField(element);
  const delegate = labelled ?? onlyTextFieldInside(element);
  if (delegate !== null && delegate !== element) {
    const located = locateTextField(delegate, refId);
    const relation = labelled !== null ? "labelled by" : "inside";
    return { ...located, hint: `typed into the ${located.field.localName} ${relation} this ${element.localName}` };
  }
  const role = explicitRole(element);
  const hint =
    role === "combobox" || role === "listbox"
      ? "Use select_option to choose from this list."
      : "type_ax and set_field need a text input, a textarea or a contenteditable element; use click_ax on buttons and links, select_option on lists.";
  throw messages.toolError("not_typable", `${refId} (${element.localName}) is not an editable field`, { hint });
}

/**
 * @param {Element} field
 * @param {string} refId
 */
function refuseReadOnlyField(field, refId) {
  if (isNativelyDisabled(field)) {
    throw messages.toolError("not_actionable", `${refId} is disabled`, {
      hint: "The field is disabled; do what enables it first, then read the tree again.",
    });
  }
  const isTextControl = field.localName === "input" || field.localName === "textarea";
  if (isTextControl && /** @type {HTMLInputElement|HTMLTextAreaElement} */ (field).readOnly) {
    throw messages.toolError("not_actionable", `${refId} is read-only`, {
      hint: "The page does not accept typing in this field; it may be filled by another control.",
    });
  }
}

/**
 * Whether the text typed into a field is a secret: a file input, or a field (an input, a
 * textarea or an editing host) shared/secret-fields.js calls secret.
 * The result says so (`sensitive`), the background's call log redacts the text unless it is
 * false, and no hint or error quotes the text or the value.
 * @param {Element} field
 */
function isSensitiveField(field) {
  if (field.localName === "input" && /** @type {HTMLInputElement} */ (field).type === "file") return true;
  return isSecretField(field);
}

/**
 * The value a result may show: never a password or another secret.
 * @param {LocatedField} located
 */
function shownValue({ field, kind }) {
  const value = kind === "contenteditable" ? field.textContent : field.value;
  if (isSensitiveField(field)) return value === "" ? "" : "••••";
  return value;
}

/**
 * Puts the caret where typing should go: over everything when clearing, else at the end.
 * @param {Element} host
 * @param {boolean} selectEverything
 */
function placeCaret(host, selectEverything) {
  const selection = host.ownerDocument.getSelection();
  if (selection === null) return;
  const range = host.ownerDocument.createRange();
  range.selectNodeContents(host);
  if (!selectEverything) range.collapse(false);
  selection.removeAllRanges();
  selection.addRange(range);
}

/**
 * type_ax on a contenteditable: sets textContent, with beforeinput and input events. The
 * beforeinput goes first and is cancelable, because editors (ProseMirror, Lexical, Slate)
 * cancel it and insert the text themselves; then whether the text appeared is what counts.
 * @param {Element} host
 * @param {string} text
 * @param {boolean} clear
 * @param {string[]} evidence
 * @param {string[]} hints
 */
async function typeIntoEditingHost(host, text, clear, evidence, hints) {
  const previous = host.textContent;
  const intended = clear ? text : previous + text;
  placeCaret(host, clear);
  const init = { bubbles: true, composed: true, ...insertTextInit(text) };
  const proceed = host.dispatchEvent(new InputEvent("beforeinput", { ...init, cancelable: true }));
  if (proceed) {
    host.textContent = intended;
    placeCaret(host, false);
    host.dispatchEvent(new InputEvent("input", init));
  }
  await settle();
  const now = host.textContent;
  // Whatever the page did with it, the text now in the host may be work the page has not saved
  // (promote_iframe asks, content/actions/frame-state.js).
  if (now !== previous) rememberAgentEdit(host);
  if (proceed) {
    if (now === intended) evidence.push("value_set");
    else hints.push(`the page changed the text back to ${quote(isSensitiveField(host) ? "••••" : now)}`);
  } else if (now === intended || (text !== "" && now !== previous && now.includes(text))) {
    evidence.push("value_set");
    hints.push("the page cancelled beforeinput and inserted the text itself");
  } else {
    hints.push("the page cancelled beforeinput and the text did not appear");
  }
}

/** Input types whose value takes whatever text a key gives, so that they are typed key by key. */
const KEY_BY_KEY_INPUT_TYPES = new Set(["text", "search", "email", "url", "tel", "password"]);

/** The longest text typed key by key; longer text is inserted at once, as a paste would be. */
const MAX_KEY_BY_KEY_LENGTH = 256;

/**
 * Whether `text` is typed into `field` key by key: a text control that takes any character,
 * text of printable characters (a line break or a tab would be a key with its own default
 * action: Enter submits, Tab moves focus), not too long.
 * @param {any} field
 * @param {string} text
 */
function typesKeyByKey(field, text) {
  if (text === "" || text.length > MAX_KEY_BY_KEY_LENGTH || /[\r\n\t]/.test(text)) return false;
  return field.localName === "textarea" || KEY_BY_KEY_INPUT_TYPES.has(field.type);
}

/**
 * Types `text` into a text control as a keyboard does (UI Events, "Keyboard Event Order"; Input
 * Events, "Event order"): for each character keydown, keypress, beforeinput, the new value,
 * input, keyup; a cancelled keydown or keypress types nothing, as in a browser. Clearing first
 * deletes the old value with its own beforeinput and input (a select-all and a delete).
 * @param {any} field
 * @param {string} text
 * @param {boolean} clear
 */
function typeKeyByKey(field, text, clear) {
  if (clear && field.value !== "") {
    try {
      field.setSelectionRange(0, field.value.length);
    } catch {
      // Input types without a selection (email) are cleared below all the same.
    }
    const init = { bubbles: true, composed: true, inputType: "deleteContentBackward", data: null };
    if (field.dispatchEvent(new InputEvent("beforeinput", { ...init, cancelable: true }))) {
      setNativeValue(field, "");
      field.dispatchEvent(new InputEvent("input", init));
    }
  }
  for (const character of text) {
    let proceed = dispatchKeyboardEvent(field, "keydown", character, NO_MODIFIERS);
    if (proceed) proceed = dispatchKeyboardEvent(field, "keypress", character, NO_MODIFIERS);
    if (proceed && field.isConnected) runPageHandlers(() => editTextControl(field, character));
    dispatchKeyboardEvent(field, "keyup", character, NO_MODIFIERS);
  }
}

/**
 * Types into a located field as type_ax does, appending evidence and hints.
 * @param {LocatedField} located
 * @param {string} text
 * @param {boolean} clear
 * @param {string[]} evidence
 * @param {string[]} hints
 */
async function typeIntoField(located, text, clear, evidence, hints) {
  const { field, kind } = located;
  scrollIntoViewIfNeeded(field);
  focusQuietly(field);
  if (kind === "contenteditable") {
    await typeIntoEditingHost(field, text, clear, evidence, hints);
    return;
  }
  const intended = clear ? text : field.value + text;
  /** @type {string|null} */
  let sanitized = null;
  if (typesKeyByKey(field, text)) {
    typeKeyByKey(field, text, clear);
  } else {
    setNativeValue(field, intended);
    // The browser itself sanitizes some types (a number input drops letters, a date input needs
    // yyyy-mm-dd); that is no revert by the page, and the hint says so.
    sanitized = field.value !== intended ? field.value : null;
    field.dispatchEvent(new InputEvent("input", { bubbles: true, composed: true, ...insertTextInit(text) }));
  }
  field.dispatchEvent(new Event("change", { bubbles: true }));
  // A controlled component that did not accept the value writes its own back during its
  // re-render, after the event; read once that had its chance.
  await settle();
  if (field.value === intended) {
    evidence.push("value_set");
  } else if (sanitized !== null && field.value === sanitized) {
    hints.push(
      isSensitiveField(field)
        ? `the ${field.type} input changed the text as it took it (a secret field: neither is shown)`
        : `the ${field.type} input does not accept ${quote(intended)}; its value is ${quote(sanitized)}`,
    );
  } else {
    const shown = isSensitiveField(field) ? "••••" : field.value;
    hints.push(`the page changed the value back to ${quote(shown)}`);
  }
}

/**
 * What type_ax and set_field share before typing: the target, its description as the tree
 * named it, the text field it stands for (refusing what cannot be typed into) and the lists the
 * action's evidence and hints go into.
 * @param {TextEntryArguments} args
 * @param {import("./target.js").TreeHelpers} ax
 */
async function prepareTextEntry(args, ax) {
  const element = resolveTarget(ax, args);
  const text = args.text;
  const clear = args.clear ?? true;
  const description = await describeTargetAsRead(ax, element);
  const located = locateTextField(element, args.ref_id);
  refuseReadOnlyField(located.field, args.ref_id);
  const hints = located.hint === undefined ? [] : [located.hint];
  return { args, text, clear, description, located, evidence: /** @type {string[]} */ ([]), hints };
}

/**
 * The result of type_ax, and of set_field before its `submit` field.
 * @param {Awaited<ReturnType<typeof prepareTextEntry>>} entry
 */
function textEntryResult({ description, located, evidence, hints }) {
  return {
    ...description,
    kind: located.kind,
    value: shownValue(located),
    sensitive: isSensitiveField(located.field),
    evidence,
    hints,
  };
}

/**
 * The arguments of type_text and fill_field, as the background validated them (the tool contract
 * of type_ax and set_field).
 * @typedef {{ref_id: string, text: string, clear?: boolean, submit?: boolean}} TextEntryArguments
 */

/**
 * @param {TextEntryArguments} args
 * @param {import("./target.js").TreeHelpers} ax
 */
export async function typeText(args, ax) {
  const entry = await prepareTextEntry(args, ax);
  await typeIntoField(entry.located, entry.text, entry.clear, entry.evidence, entry.hints);
  return textEntryResult(entry);
}

/**
 * The combobox-aware submission: ArrowDown then Enter, a short delay apart, to commit the
 * highlighted suggestion.
 * @param {Element} field
 * @param {Element} listbox
 * @param {string[]} hints
 */
async function commitSuggestion(field, listbox, hints) {
  // A plain ArrowDown-then-Enter would not do: react-select (and
  // Downshift, MUI Autocomplete with autoHighlight) already highlight the first match while
  // typing, so ArrowDown would move to the second one and Enter would commit the wrong option.
  // ArrowDown is sent only when no option is highlighted.
  if (highlightedOption(field, listbox) === null) {
    pressKeyOnce(field, "ArrowDown");
    await delay(COMBOBOX_KEY_DELAY_MS);
  }
  const { prevented } = pressKeyOnce(field, "Enter");
  await delay(COMBOBOX_KEY_DELAY_MS);
  if (!prevented && isShown(listbox)) hints.push("the suggestion list stayed open after Enter");
  return { method: "combobox", committed: displayedText(field) };
}

/**
 * @param {TextEntryArguments} args
 * @param {import("./target.js").TreeHelpers} ax
 */
export async function fillField(args, ax) {
  const entry = await prepareTextEntry(args, ax);
  const { located, text, clear, evidence, hints } = entry;
  const submit = entry.args.submit ?? false;
  const field = located.field;

  // In one call: focus, clear (optionally), type, submit (optionally).
  const listboxesBefore = new Set(visibleListboxes());
  await typeIntoField(located, text, clear, evidence, hints);

  let submission = { method: "none" };
  if (submit) {
    if (looksLikeCombobox(field, listboxesBefore)) {
      const listbox = await waitFor(() => {
        const open = openListboxOf(field.closest('[role~="combobox"]') ?? field, listboxesBefore);
        return open !== null && optionsOf(open).length > 0 ? open : null;
      }, SUGGESTIONS_TIMEOUT_MS);
      if (listbox !== null) {
        submission = await commitSuggestion(field, listbox, hints);
      } else {
        hints.push("no suggestion list appeared, so the field was submitted like a plain field");
        submission = submitByEnter(field, hints);
      }
    } else {
      submission = submitByEnter(field, hints);
    }
  }
  return { ...textEntryResult(entry), submit: submission };
}
