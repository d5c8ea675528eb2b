// set_field's submission (extension/content/actions/form-submission.js): Enter first, which a
// page may handle itself, then the form's implicit submission as HTML defines it ("implicit
// submission": through the default button, none when that button is disabled), with a hint when
// a field is invalid. On hand-made forms (fake-dom.mjs) that record requestSubmit.
import { test } from "node:test";
import assert from "node:assert/strict";
import { FakeElement, FakeInput, installFakeDom } from "./fake-dom.mjs";
import { submitByEnter, submitImplicitly } from "../../../extension/content/actions/form-submission.js";

globalThis.window = globalThis;
/** A form: its controls in `elements`, and its requestSubmit calls recorded. */
class FakeForm extends FakeElement {
  constructor(...controls) {
    super("form");
    this.append(...controls);
    this.elements = controls;
    this.noValidate = false;
    this.submitted = [];
  }

  requestSubmit(submitter) {
    this.submitted.push(submitter ?? null);
  }
}
globalThis.HTMLFormElement = FakeForm;

/** A control's validity as the constraint validation API gives it. */
const validity = (control, valid, message = "") => {
  control.willValidate = true;
  control.validity = { valid };
  control.validationMessage = message;
  return control;
};

/** KeyboardEvents that the given key listener may cancel, dispatched on a fake field. */
function keyboard(field, cancelEnter) {
  globalThis.KeyboardEvent = class {
    constructor(type, init) {
      this.type = type;
      this.key = init.key;
    }
  };
  field.dispatchEvent = (event) => !(cancelEnter && event.type === "keydown");
}

test("implicit submission goes through the first submit button, skipping other buttons", () => {
  installFakeDom();
  const plain = new FakeElement("button");
  plain.type = "button";
  const image = new FakeInput({ type: "image" });
  const second = new FakeInput({ type: "submit" });
  const form = new FakeForm(new FakeInput(), plain, image, second);
  const hints = [];
  assert.equal(submitImplicitly(form, hints), "requestSubmit");
  assert.deepEqual(form.submitted, [image]);
  assert.deepEqual(hints, []);
  const noButton = new FakeForm(new FakeInput());
  submitImplicitly(noButton, hints);
  assert.deepEqual(noButton.submitted, [null], "no default button: submitted without a submitter");
});

test("a disabled default button blocks the submission, even when a later submit button is enabled", () => {
  const first = new FakeInput({ type: "submit" });
  first.disabled = true;
  const form = new FakeForm(new FakeInput(), first, new FakeInput({ type: "submit" }));
  const hints = [];
  assert.equal(submitImplicitly(form, hints), "none");
  assert.deepEqual(form.submitted, []);
  assert.deepEqual(hints, ["the form's default button is disabled, so the form was not submitted"]);
});

test("an invalid field gives a hint naming its message, else its name, else its tag; novalidate silences it", () => {
  const named = validity(new FakeInput({ name: "email" }), false);
  named.name = "email";
  for (const [control, wanted] of [
    [validity(new FakeInput(), false, "Please fill in this field."), "Please fill in this field."],
    [named, "email"],
    [validity(new FakeInput(), false), "input"],
  ]) {
    const form = new FakeForm(validity(new FakeInput(), true), control);
    const hints = [];
    assert.equal(submitImplicitly(form, hints), "requestSubmit", "the browser decides; the request is made");
    assert.deepEqual(hints, [`the form did not submit: a field is invalid (${wanted})`]);
  }
  const quiet = new FakeForm(validity(new FakeInput(), false, "bad"));
  quiet.noValidate = true;
  const hints = [];
  submitImplicitly(quiet, hints);
  assert.deepEqual(hints, []);
  const button = new FakeInput({ type: "submit" });
  button.formNoValidate = true;
  const byButton = new FakeForm(validity(new FakeInput(), false, "bad"), button);
  submitImplicitly(byButton, hints);
  assert.deepEqual(hints, [], "the default button's formnovalidate");
  // A control that is not validated (disabled, readonly) does not count.
  const barred = validity(new FakeInput(), false, "bad");
  barred.willValidate = false;
  submitImplicitly(new FakeForm(barred), hints);
  assert.deepEqual(hints, []);
});

test("Enter first: a page that cancels it handled the key itself; a field without a form stops at Enter", () => {
  installFakeDom();
  const field = new FakeInput();
  const form = new FakeForm(field);
  keyboard(field, true);
  const hints = [];
  assert.deepEqual(submitByEnter(field, hints), { method: "enter" });
  assert.deepEqual(hints, ["the page handled Enter itself"]);
  assert.deepEqual(form.submitted, []);
  keyboard(field, false);
  field.form = form;
  assert.deepEqual(submitByEnter(field, []), { method: "requestSubmit" });
  assert.deepEqual(form.submitted, [null]);
  const alone = new FakeInput();
  new FakeElement("div").append(alone);
  alone.form = null;
  keyboard(alone, false);
  assert.deepEqual(submitByEnter(alone, []), { method: "enter" });
});

test("a field in a web component submits the form around its host", () => {
  installFakeDom();
  const host = new FakeElement("x-field");
  const inner = new FakeInput();
  host.attachShadow(inner);
  const form = new FakeForm(host);
  keyboard(inner, false);
  assert.deepEqual(submitByEnter(inner, []), { method: "requestSubmit" });
  assert.equal(form.submitted.length, 1);
});
