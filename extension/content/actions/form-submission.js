// @ts-check
// A form's implicit submission as Enter in a field performs it (HTML, "implicit submission").

import { formOwner, isNativelyDisabled, isSubmitButton } from "./element.js";
import { pressKeyOnce } from "./key-events.js";

/**
 * The form's implicit submission, as Enter in a field performs it: through the default button
 * as submitter, and not at all when that button is disabled.
 * @returns {"requestSubmit"|"none"}
 * @param {HTMLFormElement} form
 * @param {string[]} hints
 */
export function submitImplicitly(form, hints) {
  // The form's listed elements (HTML, "listed elements"): buttons, fieldsets, inputs, objects,
  // outputs, selects, text areas and form-associated custom elements; the checks below read the
  // validation members those have, and find them absent on a custom element without them.
  const controls = /** @type {Array<Element & Partial<HTMLButtonElement & HTMLInputElement>>} */ (
    Array.from(form.elements)
  );
  const defaultButton = controls.find(isSubmitButton) ?? null;
  if (defaultButton !== null && isNativelyDisabled(defaultButton)) {
    hints.push("the form's default button is disabled, so the form was not submitted");
    return "none";
  }
  const validating = !form.noValidate && !(defaultButton?.formNoValidate ?? false);
  const invalid = controls.find((control) => control.willValidate && control.validity && !control.validity.valid);
  if (validating && invalid !== undefined) {
    hints.push(
      `the form did not submit: a field is invalid (${invalid.validationMessage || invalid.name || invalid.localName})`,
    );
  }
  // isSubmitButton found a button or an input, both HTML elements.
  form.requestSubmit(/** @type {HTMLElement|null} */ (defaultButton) ?? undefined);
  return "requestSubmit";
}

/**
 * set_field's non-combobox submission: form.requestSubmit() or a plain Enter key press
 * (docs/protocol/tools.md, "Action results", `submit.method`). Enter is dispatched first in both cases, because a page that handles Enter
 * itself (a chat box) cancels it, and a real Enter would then not submit the form either.
 * @param {string[]} hints
 * @param {Element} field
 */
export function submitByEnter(field, hints) {
  const { prevented } = pressKeyOnce(field, "Enter");
  if (prevented) {
    hints.push("the page handled Enter itself");
    return { method: "enter" };
  }
  const form = formOwner(field);
  if (form === null) return { method: "enter" };
  return { method: submitImplicitly(form, hints) };
}
