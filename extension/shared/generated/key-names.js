// @ts-check
// Generated from src/tools/keys.rs; do not edit. A host test fails when this file is not what
// the generator writes; rewrite it with `cargo run -q -- generated-modules extension/shared/generated`.
//
// press_key's tables of KeyboardEvent key values (UI Events KeyboardEvent key Values,
// https://www.w3.org/TR/uievents-key/), with which both argument validators correct a
// misspelt key: COMMON_NAMED_KEYS corrects a name given in the wrong case, KEY_SPELLINGS
// maps other spellings to key values. Both compare ignoring ASCII case only.

export const COMMON_NAMED_KEYS = Object.freeze([
  "Enter",
  "Tab",
  "Escape",
  "Backspace",
  "Delete",
  "Insert",
  "Home",
  "End",
  "PageUp",
  "PageDown",
  "ArrowUp",
  "ArrowDown",
  "ArrowLeft",
  "ArrowRight",
  "Alt",
  "Control",
  "Meta",
  "Shift",
  "CapsLock",
  "ContextMenu",
  "F1",
  "F2",
  "F3",
  "F4",
  "F5",
  "F6",
  "F7",
  "F8",
  "F9",
  "F10",
  "F11",
  "F12",
]);
export const KEY_SPELLINGS = Object.freeze(
  /** @type {[string, string][]} */ ([
    ["Esc", "Escape"],
    ["Return", "Enter"],
    ["Del", "Delete"],
    ["Space", " "],
    ["Spacebar", " "],
    ["Up", "ArrowUp"],
    ["Down", "ArrowDown"],
    ["Left", "ArrowLeft"],
    ["Right", "ArrowRight"],
    ["PgUp", "PageUp"],
    ["PgDn", "PageDown"],
    ["Ctrl", "Control"],
    ["Cmd", "Meta"],
    ["Command", "Meta"],
    ["Super", "Meta"],
    ["Win", "Meta"],
    ["Option", "Alt"],
  ]),
);
