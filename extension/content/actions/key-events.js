// @ts-check
// Keyboard events as a real key press dispatches them (UI Events, "Keyboard Events"): key, code,
// the legacy keyCode/charCode/which many widgets still read, and modifiers.

import { runPageHandlers } from "./page-handlers.js";

/**
 * KeyboardEvent `code` and legacy `keyCode` of the named keys. Letters, digits and F-keys are
 * computed in `keyDefinition`; other printable characters get no code, as on a layout that
 * lacks them.
 * @type {Readonly<Record<string, [code: string, keyCode: number]>>}
 */
const NAMED_KEYS = Object.freeze({
  Enter: ["Enter", 13],
  Tab: ["Tab", 9],
  Escape: ["Escape", 27],
  Backspace: ["Backspace", 8],
  Delete: ["Delete", 46],
  " ": ["Space", 32],
  ArrowLeft: ["ArrowLeft", 37],
  ArrowUp: ["ArrowUp", 38],
  ArrowRight: ["ArrowRight", 39],
  ArrowDown: ["ArrowDown", 40],
  Home: ["Home", 36],
  End: ["End", 35],
  PageUp: ["PageUp", 33],
  PageDown: ["PageDown", 34],
  Insert: ["Insert", 45],
  Shift: ["ShiftLeft", 16],
  Control: ["ControlLeft", 17],
  Alt: ["AltLeft", 18],
  Meta: ["MetaLeft", 91],
  ContextMenu: ["ContextMenu", 93],
});

export const isPrintableKey = (/** @type {string} */ key) => [...key].length === 1;

/**
 * KeyboardEvent `code` and `keyCode` of a key value.
 * @param {string} key
 */
function keyDefinition(key) {
  if (Object.hasOwn(NAMED_KEYS, key)) {
    const [code, keyCode] = NAMED_KEYS[key];
    return { code, keyCode };
  }
  if (/^[a-z]$/i.test(key)) return { code: `Key${key.toUpperCase()}`, keyCode: key.toUpperCase().charCodeAt(0) };
  if (/^[0-9]$/.test(key)) return { code: `Digit${key}`, keyCode: key.charCodeAt(0) };
  const functionKey = /^F([1-9]|1[0-2])$/.exec(key);
  if (functionKey !== null) return { code: key, keyCode: 111 + Number(functionKey[1]) };
  return { code: "", keyCode: 0 };
}

/** @typedef {{altKey: boolean, ctrlKey: boolean, metaKey: boolean, shiftKey: boolean}} KeyModifiers */

export const NO_MODIFIERS = Object.freeze({ altKey: false, ctrlKey: false, metaKey: false, shiftKey: false });

/**
 * Dispatches one keyboard event; `true` when no listener cancelled it. keyCode, charCode and
 * which go through the init dictionary, which Chrome and Firefox both accept, because many
 * widgets still read `keyCode`.
 * @param {EventTarget} target
 * @param {"keydown"|"keypress"|"keyup"} type
 * @param {string} key
 * @param {KeyModifiers} modifiers
 */
export function dispatchKeyboardEvent(target, type, key, modifiers) {
  const { code, keyCode } = keyDefinition(key);
  const charCode = type === "keypress" ? (key === "Enter" ? 13 : key.codePointAt(0)) : 0;
  const legacyCode = type === "keypress" ? charCode : keyCode;
  const event = new KeyboardEvent(type, {
    key,
    code,
    keyCode: legacyCode,
    which: legacyCode,
    charCode,
    bubbles: true,
    cancelable: true,
    composed: true,
    view: window,
    ...modifiers,
  });
  return runPageHandlers(() => target.dispatchEvent(event));
}

/**
 * keydown, keypress (printable keys without Control/Meta, and Enter), keyup, with no default
 * action; press_key performs those itself. Returns whether a listener cancelled keydown or
 * keypress.
 * @param {EventTarget} target
 * @param {string} key
 * @param {KeyModifiers} [modifiers]
 */
export function pressKeyOnce(target, key, modifiers = NO_MODIFIERS) {
  let proceed = dispatchKeyboardEvent(target, "keydown", key, modifiers);
  const withPress = key === "Enter" || (isPrintableKey(key) && !modifiers.ctrlKey && !modifiers.metaKey);
  if (proceed && withPress) proceed = dispatchKeyboardEvent(target, "keypress", key, modifiers);
  dispatchKeyboardEvent(target, "keyup", key, modifiers);
  return { prevented: !proceed };
}
