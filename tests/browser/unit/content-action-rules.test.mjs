// The action tools' page-side rules that need no live DOM: select_option's matching of the option
// asked for (extension/content/actions/select-option.js, matchOption), the key tables and the
// keypress rule of a synthetic key press (actions/key-events.js), the page-handler depth the
// liveness probe reads (actions/page-handlers.js), which elements take typed text
// (actions/text-fields.js), the text and box helpers of results (actions/element.js), polling
// (actions/timing.js), the call-timing switch (tree/read-timing.js) and which inline styles may
// set `visibility` or `overflow` (tree/style-rule-targets.js).
import { test } from "node:test";
import assert from "node:assert/strict";
import { matchOption } from "../../../extension/content/actions/select-option.js";
import {
  dispatchKeyboardEvent,
  isPrintableKey,
  NO_MODIFIERS,
  pressKeyOnce,
} from "../../../extension/content/actions/key-events.js";
import { ping, runPageHandlers } from "../../../extension/content/actions/page-handlers.js";
import {
  insertTextInit,
  nativeSetter,
  textFieldKind,
  UNTYPABLE_INPUT_TYPES,
} from "../../../extension/content/actions/text-fields.js";
import {
  centreOf,
  explicitRole,
  isSubmitButton,
  normalizeText,
  quote,
  sameRect,
} from "../../../extension/content/actions/element.js";
import { waitFor } from "../../../extension/content/actions/timing.js";
import { currentReadTiming, startReadTiming } from "../../../extension/content/tree/read-timing.js";
import {
  inlineStyleMayReach,
  visibilityAndOverflowTargets,
} from "../../../extension/content/tree/style-rule-targets.js";

/** Candidates as select_option builds them: the option's element stands in as its label. */
const options = (...entries) =>
  entries.map(([label, ...values]) => ({ element: { label }, label, values: values.length > 0 ? values : [label] }));

/** Calls `run` and returns the tool error it throws. */
function thrownBy(run) {
  try {
    run();
  } catch (error) {
    return error;
  }
  assert.fail("expected a tool error");
}

test("select_option matches a value exactly, never by label, case or part", () => {
  const candidates = options(["Sweden", "se"], ["Switzerland", "ch"], ["Norway", "no"]);
  assert.equal(matchOption(candidates, { value: "ch" }).label, "Switzerland");
  const error = thrownBy(() => matchOption(candidates, { value: "Sweden" }));
  assert.equal(error.code, "option_not_found");
  assert.match(error.message, /no option has the value "Sweden"; the list showed 3 options$/);
  assert.deepEqual(error.suggestions, ["Sweden", "Switzerland", "Norway"]);
  assert.equal(thrownBy(() => matchOption(candidates, { value: "SE" })).code, "option_not_found");
});

test("select_option prefers an exact label, then one differing in case, then the one option containing it", () => {
  const candidates = options(["apple"], ["Apple"], ["Pineapple"], ["Green apple pie"]);
  // Exact wins over a case-insensitive match listed earlier.
  assert.equal(matchOption(candidates, { label: "Apple" }).element, candidates[1].element);
  // The asked label's white space is collapsed as a list shows a label.
  assert.equal(matchOption(candidates, { label: "  Green   apple\npie " }).label, "Green apple pie");
  assert.equal(matchOption(candidates, { label: "APPLE" }).label, "apple");
  assert.equal(matchOption(candidates, { label: "pinea" }).label, "Pineapple");
  assert.equal(matchOption(candidates, { label: "PIE" }).label, "Green apple pie");
});

test("a label that several options contain is refused, with those options as suggestions", () => {
  const candidates = options(["Small box"], ["Large box"], ["Envelope"]);
  const error = thrownBy(() => matchOption(candidates, { label: "box" }));
  assert.equal(error.code, "option_not_found");
  assert.equal(error.message, '2 options contain "box"; give the whole label');
  assert.deepEqual(error.suggestions, ["Small box", "Large box"]);
});

test("an empty label matches only an empty option label, never every option by containment", () => {
  const candidates = options(["One"], ["Two"]);
  const error = thrownBy(() => matchOption(candidates, { label: "   " }));
  assert.equal(error.message, 'no option is labelled ""; the list showed 2 options');
  const withBlank = [{ element: "blank", label: "", values: [""] }, ...candidates];
  assert.equal(matchOption(withBlank, { label: "" }).element, "blank");
});

test("an option_not_found error counts the options seen, one or none, and suggests at most 20 distinct labels", () => {
  const one = thrownBy(() => matchOption(options(["Only"]), { label: "Other" }));
  assert.match(one.message, /the list showed 1 option$/);
  assert.match(one.hint, /suggested labels/);
  const none = thrownBy(() => matchOption([], { label: "Any" }));
  assert.match(none.message, /the list showed no options$/);
  assert.match(none.hint, /may load as you type/);
  assert.deepEqual(none.suggestions, []);
  const many = options(...Array.from({ length: 30 }, (_, index) => [`Item ${index % 25}`]));
  const error = thrownBy(() => matchOption(many, { label: "Nothing" }));
  assert.match(error.message, /the list showed 30 options$/);
  assert.equal(error.suggestions.length, 20);
  assert.equal(new Set(error.suggestions).size, 20);
  // A long label is quoted short in the message.
  const long = thrownBy(() => matchOption(options(["A"]), { label: "x".repeat(200) }));
  assert.match(long.message, new RegExp(`"${"x".repeat(80)}…"`));
});

/** A stand-in KeyboardEvent that keeps its init dictionary, and a target that records dispatches. */
function keyboardRecorder({ cancel = [] } = {}) {
  const dispatched = [];
  globalThis.window ??= globalThis;
  globalThis.KeyboardEvent = class {
    constructor(type, init) {
      this.type = type;
      this.init = init;
    }
  };
  const target = {
    dispatchEvent(event) {
      // The liveness probe sees the frame held by the page while a handler runs.
      dispatched.push({ type: event.type, ...event.init, heldByPage: ping().heldByPage });
      return !cancel.includes(event.type);
    },
  };
  return { dispatched, target };
}

test("a key's code and legacy keyCode come from UI Events' tables: named keys, letters, digits, F1 to F12", () => {
  const { dispatched, target } = keyboardRecorder();
  const cases = [
    ["Enter", "Enter", 13],
    [" ", "Space", 32],
    ["ArrowDown", "ArrowDown", 40],
    ["Meta", "MetaLeft", 91],
    ["a", "KeyA", 65],
    ["Z", "KeyZ", 90],
    ["0", "Digit0", 48],
    ["9", "Digit9", 57],
    ["F1", "F1", 112],
    ["F12", "F12", 123],
    // Not keys of the tables: no code, as on a layout that lacks them.
    ["F13", "", 0],
    ["F0", "", 0],
    ["é", "", 0],
    ["toString", "", 0],
  ];
  for (const [key] of cases) dispatchKeyboardEvent(target, "keydown", key, NO_MODIFIERS);
  assert.deepEqual(
    dispatched.map(({ key, code, keyCode, which, charCode }) => [key, code, keyCode, which, charCode]),
    cases.map(([key, code, keyCode]) => [key, code, keyCode, keyCode, 0]),
  );
  for (const event of dispatched) {
    assert.equal(event.bubbles && event.cancelable && event.composed, true);
    assert.equal(event.heldByPage, true);
  }
  assert.equal(ping().heldByPage, false);
});

test("keypress carries the character's code point (13 for Enter) as keyCode, which and charCode", () => {
  const { dispatched, target } = keyboardRecorder();
  dispatchKeyboardEvent(target, "keypress", "a", NO_MODIFIERS);
  dispatchKeyboardEvent(target, "keypress", "Enter", NO_MODIFIERS);
  dispatchKeyboardEvent(target, "keypress", "😀", NO_MODIFIERS);
  assert.deepEqual(
    dispatched.map(({ keyCode, which, charCode }) => [keyCode, which, charCode]),
    [
      [97, 97, 97],
      [13, 13, 13],
      [0x1f600, 0x1f600, 0x1f600],
    ],
  );
});

test("a key press sends keypress for printable keys without Control or Meta, and for Enter", () => {
  const typesOf = (key, modifiers) => {
    const { dispatched, target } = keyboardRecorder();
    pressKeyOnce(target, key, modifiers);
    return dispatched.map((event) => event.type).join(" ");
  };
  assert.equal(typesOf("a"), "keydown keypress keyup");
  assert.equal(typesOf("😀"), "keydown keypress keyup");
  assert.equal(typesOf("Enter"), "keydown keypress keyup");
  assert.equal(typesOf("Enter", { ...NO_MODIFIERS, ctrlKey: true }), "keydown keypress keyup");
  assert.equal(typesOf("Tab"), "keydown keyup");
  assert.equal(typesOf("a", { ...NO_MODIFIERS, ctrlKey: true }), "keydown keyup");
  assert.equal(typesOf("a", { ...NO_MODIFIERS, metaKey: true }), "keydown keyup");
  assert.equal(typesOf("A", { ...NO_MODIFIERS, shiftKey: true }), "keydown keypress keyup");
  const { dispatched, target } = keyboardRecorder();
  pressKeyOnce(target, "b", { ...NO_MODIFIERS, altKey: true });
  assert.ok(dispatched.every((event) => event.altKey === true && event.ctrlKey === false));
});

test("a cancelled keydown skips keypress but still sends keyup; a cancelled keypress counts as prevented", () => {
  const run = (cancel) => {
    const { dispatched, target } = keyboardRecorder({ cancel });
    const result = pressKeyOnce(target, "x");
    return [dispatched.map((event) => event.type).join(" "), result.prevented];
  };
  assert.deepEqual(run([]), ["keydown keypress keyup", false]);
  assert.deepEqual(run(["keydown"]), ["keydown keyup", true]);
  assert.deepEqual(run(["keypress"]), ["keydown keypress keyup", true]);
  // keyup's answer does not matter: its default action is nothing.
  assert.deepEqual(run(["keyup"]), ["keydown keypress keyup", false]);
});

test("a printable key is one Unicode scalar, astral ones included, not one UTF-16 unit", () => {
  for (const key of ["a", " ", "é", "😀", "中"]) assert.equal(isPrintableKey(key), true, key);
  for (const key of ["Enter", "ab", "", "e\u0301"]) assert.equal(isPrintableKey(key), false, key);
});

test("the liveness probe reads the frame held while nested dispatches run, and freed after one throws", () => {
  assert.deepEqual(ping(), { alive: true, heldByPage: false });
  const inner = runPageHandlers(() => runPageHandlers(() => ping().heldByPage));
  assert.equal(inner, true);
  assert.throws(() =>
    runPageHandlers(() => {
      throw new Error("a handler threw");
    }),
  );
  assert.equal(ping().heldByPage, false);
});

test("typed text goes to inputs other than the untypable types, textareas and editing hosts", () => {
  const input = (type) => ({ localName: "input", type });
  for (const type of ["text", "email", "password", "search", "number", "date"]) {
    assert.equal(textFieldKind(input(type)), "input", type);
  }
  for (const type of Object.keys(UNTYPABLE_INPUT_TYPES)) assert.equal(textFieldKind(input(type)), null, type);
  // Every refusal names a tool or what to do instead.
  for (const hint of Object.values(UNTYPABLE_INPUT_TYPES)) assert.match(hint, /\w+_\w+|instead|no file-upload/);
  assert.equal(textFieldKind({ localName: "textarea" }), "textarea");
  assert.equal(textFieldKind({ localName: "div", isContentEditable: true }), "contenteditable");
  assert.equal(textFieldKind({ localName: "div", isContentEditable: false }), null);
  // SVG elements have no isContentEditable.
  assert.equal(textFieldKind({ localName: "text" }), null);
});

test("typing text is insertText; typing nothing deletes backwards (Input Events, inputType)", () => {
  assert.deepEqual(insertTextInit("hi"), { inputType: "insertText", data: "hi" });
  assert.deepEqual(insertTextInit(""), { inputType: "deleteContentBackward", data: null });
});

test("the native setter is the prototype's own accessor, refused where the prototype defines none", () => {
  const written = [];
  const prototype = Object.defineProperty({}, "value", {
    set(value) {
      written.push([this, value]);
    },
  });
  const field = Object.create(prototype);
  // A framework's own setter on the instance is passed over.
  Object.defineProperty(field, "value", {
    set() {
      written.push("wrapper");
    },
  });
  nativeSetter(prototype, "value").call(field, "typed");
  assert.deepEqual(written, [[field, "typed"]]);
  assert.throws(() => nativeSetter(prototype, "selected"), /no setter of selected/);
  assert.throws(() => nativeSetter(Object.defineProperty({}, "value", { get: () => "" }), "value"), /no setter/);
});

test("result helpers: the explicit role is the first token, text is collapsed, quotes are short", () => {
  const withRole = (role) => ({ getAttribute: (name) => (name === "role" ? role : null) });
  assert.equal(explicitRole(withRole("  Switch checkbox ")), "switch");
  assert.equal(explicitRole(withRole("")), "");
  assert.equal(explicitRole(withRole(null)), "");
  // A text node has no getAttribute.
  assert.equal(explicitRole({}), "");
  assert.equal(normalizeText("  a\n\t b  "), "a b");
  assert.equal(normalizeText(undefined), "");
  assert.equal(normalizeText(null), "");
  assert.equal(quote("say \"hi\""), '"say \\"hi\\""');
  assert.equal(quote("abcdef", 3), '"abc…"');
  assert.equal(quote("abc", 3), '"abc"');
});

test("submit buttons: a button of type submit, an input of type submit or image", () => {
  assert.equal(isSubmitButton({ localName: "button", type: "submit" }), true);
  assert.equal(isSubmitButton({ localName: "button", type: "button" }), false);
  assert.equal(isSubmitButton({ localName: "input", type: "image" }), true);
  assert.equal(isSubmitButton({ localName: "input", type: "submit" }), true);
  assert.equal(isSubmitButton({ localName: "input", type: "text" }), false);
  assert.equal(isSubmitButton({ localName: "a", type: "submit" }), false);
});

test("a box's centre is rounded; two boxes are the same only when every side is, and never when one is missing", () => {
  assert.deepEqual(centreOf({ x: 10, y: 20, width: 5, height: 3 }), { x: 13, y: 22 });
  const box = { x: 1, y: 2, width: 3, height: 4 };
  assert.equal(sameRect(box, { ...box }), true);
  for (const side of ["x", "y", "width", "height"]) assert.equal(sameRect(box, { ...box, [side]: 9 }), false, side);
  assert.equal(sameRect(null, box), false);
  assert.equal(sameRect(box, null), false);
  assert.equal(sameRect(null, null), false);
});

test("waitFor answers the first truthy value, or null once its time is out", async () => {
  globalThis.requestAnimationFrame ??= (callback) => setTimeout(callback, 16);
  let calls = 0;
  const value = await waitFor(() => (++calls >= 3 ? { found: calls } : 0), 1000);
  assert.deepEqual(value, { found: 3 });
  const started = performance.now();
  assert.equal(await waitFor(() => "", 60), null);
  const waited = performance.now() - started;
  assert.ok(waited >= 55 && waited < 1000, `waited ${waited} ms`);
  // A check that holds at once is not waited for, even with no time at all.
  assert.equal(await waitFor(() => "now", 0), "now");
});

test("reads are timed only in a call-timing build; the stamps are epoch milliseconds", () => {
  delete globalThis.ALLWRIGHT_CALL_TIMING;
  assert.equal(startReadTiming(), null);
  assert.equal(currentReadTiming(), null);
  globalThis.ALLWRIGHT_CALL_TIMING = true;
  try {
    const timing = startReadTiming();
    assert.equal(currentReadTiming(), timing);
    timing.mark("gathered");
    assert.ok(Math.abs(timing.stamps.gathered - Date.now()) < 1000);
  } finally {
    delete globalThis.ALLWRIGHT_CALL_TIMING;
  }
  assert.equal(currentReadTiming(), null);
});

test("an inline style may set visibility or overflow through their names or `all`; other styles never", () => {
  for (const style of ["visibility: hidden", "overflow-x: auto", "overflow: clip", "all: unset", "color: red; OVERFLOW: auto".toLowerCase()]) {
    assert.equal(inlineStyleMayReach(style), true, style);
  }
  for (const style of ["", "color: red", "display: none", "opacity: 0"]) assert.equal(inlineStyleMayReach(style), false, style);
  // Rules that cannot be read mean every element is read.
  assert.equal(visibilityAndOverflowTargets(null), null);
});
