// fill_form's pure rules: which kind of field a ref stands for and what its value means
// (extension/content/actions/form-field-kind.js), and what the result says about the fields
// filled, failed and not attempted (extension/background/actions/form-fill-outcome.js).
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  checkedStateOf,
  FORMATTED_INPUT_TYPES,
  formFieldKind,
  wantedCheckedState,
} from "../../../extension/content/actions/form-field-kind.js";
import { formFillSummary } from "../../../extension/background/actions/form-fill-outcome.js";

test("a native control's tag and type decide its kind; other elements go by the role the agent read", () => {
  const kind = (facts) => formFieldKind({ role: "", ...facts });
  for (const type of ["text", "email", "password", "search", "tel", "url", "date", "time", "number", "month"]) {
    assert.equal(kind({ tag: "input", type, role: "textbox" }), "text", type);
  }
  assert.equal(kind({ tag: "input", type: "checkbox", role: "checkbox" }), "toggle");
  assert.equal(kind({ tag: "input", type: "checkbox", role: "switch" }), "toggle");
  assert.equal(kind({ tag: "input", type: "radio", role: "radio" }), "radio");
  for (const type of ["submit", "reset", "button", "image", "file", "hidden", "range", "color"]) {
    assert.equal(kind({ tag: "input", type }), null, type);
  }
  // A page's combobox input opens a list to choose from; a datalist's suggestions open none.
  assert.equal(kind({ tag: "input", type: "text", role: "combobox" }), "choice");
  assert.equal(kind({ tag: "input", type: "text", role: "combobox", hasList: true }), "text");
  assert.equal(kind({ tag: "textarea", role: "textbox" }), "text");
  assert.equal(kind({ tag: "select", role: "combobox" }), "choice");
  assert.equal(kind({ tag: "select", role: "listbox" }), "choice");
  assert.equal(kind({ tag: "div", role: "switch" }), "toggle");
  assert.equal(kind({ tag: "div", role: "checkbox" }), "toggle");
  assert.equal(kind({ tag: "span", role: "radio" }), "radio");
  assert.equal(kind({ tag: "div", role: "radiogroup" }), "radiogroup");
  assert.equal(kind({ tag: "div", role: "combobox" }), "choice");
  assert.equal(kind({ tag: "ul", role: "listbox" }), "choice");
  assert.equal(kind({ tag: "div", role: "spinbutton" }), "text");
  assert.equal(kind({ tag: "div", role: "textbox", editable: true }), "text");
  assert.equal(kind({ tag: "p", role: "paragraph", editable: true }), "text");
  assert.equal(kind({ tag: "button", role: "button" }), null);
  assert.equal(kind({ tag: "a", role: "link" }), null);
  assert.equal(kind({ tag: "div", role: "generic" }), null);
});

test("a check box's value is true or false, whatever the case; nothing else", () => {
  for (const [value, wanted] of [
    ["true", true],
    ["false", false],
    [" TRUE ", true],
    ["False", false],
    ["yes", null],
    ["on", null],
    ["1", null],
    ["", null],
  ]) {
    assert.equal(wantedCheckedState(value), wanted, JSON.stringify(value));
  }
});

test("the checked state is a native check box's checkedness, else aria-checked", () => {
  assert.equal(checkedStateOf({ tag: "input", type: "checkbox", checked: true }), true);
  assert.equal(checkedStateOf({ tag: "input", type: "checkbox", checked: false }), false);
  assert.equal(checkedStateOf({ tag: "input", type: "checkbox", checked: false, indeterminate: true }), "mixed");
  assert.equal(checkedStateOf({ tag: "input", type: "radio", checked: true, indeterminate: true }), true);
  // A native control's property wins over an attribute the page left behind.
  assert.equal(checkedStateOf({ tag: "input", type: "checkbox", checked: false, ariaChecked: "true" }), false);
  assert.equal(checkedStateOf({ tag: "div", ariaChecked: "true" }), true);
  assert.equal(checkedStateOf({ tag: "div", ariaChecked: "false" }), false);
  assert.equal(checkedStateOf({ tag: "div", ariaChecked: "mixed" }), "mixed");
  assert.equal(checkedStateOf({ tag: "div", ariaChecked: null }), false);
});

test("every input type whose value the browser sanitizes names its format", () => {
  assert.deepEqual(Object.keys(FORMATTED_INPUT_TYPES).sort(), [
    "date",
    "datetime-local",
    "month",
    "number",
    "time",
    "week",
  ]);
  for (const format of Object.values(FORMATTED_INPUT_TYPES)) assert.match(format, /for example /);
});

test("all fields filled: success, every ref filled, nothing left", () => {
  const summary = formFillSummary({ refs: ["ref_1", "ref_2"], filled: ["ref_1", "ref_2"], failed: null, stop: null, unchanged: false });
  assert.deepEqual(summary, { success: true, filled: ["ref_1", "ref_2"], notAttempted: [] });
  const unchanged = formFillSummary({ refs: ["ref_1"], filled: ["ref_1"], failed: null, stop: null, unchanged: true });
  assert.match(unchanged.hint, /already held the value/);
});

test("the first failure stops the fields: the ones after it are not attempted, and the hint says what to do", () => {
  const failed = { ref_id: "ref_2", code: "not_actionable", message: "ref_2 is disabled", hint: "Enable it." };
  const summary = formFillSummary({ refs: ["ref_1", "ref_2", "ref_3", "ref_4"], filled: ["ref_1"], failed, stop: null, unchanged: false });
  assert.equal(summary.success, false);
  assert.deepEqual(summary.filled, ["ref_1"]);
  assert.deepEqual(summary.failed, failed);
  assert.deepEqual(summary.notAttempted, ["ref_3", "ref_4"]);
  assert.match(summary.hint, /Fix ref_2 .* again with it and the notAttempted fields/);
  assert.equal(summary.retryAllowed, undefined);

  const first = formFillSummary({ refs: ["ref_1"], filled: [], failed: { ...failed, ref_id: "ref_1" }, stop: null, unchanged: true });
  assert.deepEqual(first.notAttempted, []);
  assert.doesNotMatch(first.hint, /notAttempted/);
});

test("a field whose outcome is unknown forbids a retry", () => {
  for (const code of ["timeout", "page_blocked", "outcome_unknown", "frame_detached", "dialog_open"]) {
    const failed = { ref_id: "ref_2", code, message: "..." };
    const summary = formFillSummary({ refs: ["ref_1", "ref_2"], filled: ["ref_1"], failed, stop: null, unchanged: false });
    assert.equal(summary.retryAllowed, false, code);
    assert.match(summary.hint, /unknown: read the page/, code);
  }
});

test("a navigation, the end of the budget or an answered call stop the fields without a failure", () => {
  const refs = ["ref_1", "ref_2", "ref_3"];
  const navigated = formFillSummary({ refs, filled: ["ref_1"], failed: null, stop: "navigation", unchanged: false });
  assert.equal(navigated.success, false);
  assert.deepEqual(navigated.notAttempted, ["ref_2", "ref_3"]);
  assert.match(navigated.hint, /navigated after ref_1/);
  const late = formFillSummary({ refs, filled: ["ref_1", "ref_2"], failed: null, stop: "time", unchanged: false });
  assert.deepEqual(late.notAttempted, ["ref_3"]);
  assert.match(late.hint, /time ran out/);
  const answered = formFillSummary({ refs, filled: [], failed: null, stop: "answered", unchanged: true });
  assert.equal(answered.retryAllowed, false);
  // A navigation by the last field leaves nothing out: the form was filled.
  const last = formFillSummary({ refs, filled: refs, failed: null, stop: "navigation", unchanged: false });
  assert.equal(last.success, true);
  assert.equal(last.hint, undefined);
});
