// @ts-check
// fill_form's rules, as tables (docs/protocol/tools.md, "Action results", fill_form): which kind of
// field a ref stands for, from its tag and input type and the role the agent read, and what a
// field's string value means for a check box or a radio button. Pure (no DOM), so it is
// unit-tested in Node; content/actions/form-fill.js applies it.

/**
 * How fill_form fills a field:
 * - "text": its content is replaced, as set_field types it (content/actions/text-entry.js);
 * - "toggle": a check box or a switch, clicked once when its state is not the one asked for;
 * - "radio": a radio button, clicked once when "true" is asked for and it is not chosen;
 * - "radiogroup": the radio whose label is the value is chosen, as a "radio";
 * - "choice": the option whose label (or a native option's value) is the value is chosen, as
 *   select_option chooses it (content/actions/select-option.js).
 * @typedef {"text"|"toggle"|"radio"|"radiogroup"|"choice"} FormFieldKind
 */

/** The kind of an element that is no native control, by the role the agent read. */
export const FORM_FIELD_KIND_OF_ROLE = Object.freeze({
  textbox: "text",
  searchbox: "text",
  spinbutton: "text",
  checkbox: "toggle",
  switch: "toggle",
  menuitemcheckbox: "toggle",
  radio: "radio",
  menuitemradio: "radio",
  radiogroup: "radiogroup",
  combobox: "choice",
  listbox: "choice",
});

/**
 * Input types that take no value fill_form can give: buttons are clicked, files uploaded, a
 * hidden input is the page's own; sliders and colour pickers have tools of their own
 * (content/actions/text-fields.js, UNTYPABLE_INPUT_TYPES, names them).
 */
const UNFILLABLE_INPUT_TYPES = new Set(["submit", "reset", "button", "image", "file", "hidden", "range", "color"]);

/**
 * The kind of field an element is, or null when fill_form cannot fill it. A native control's
 * tag and type decide first, since its role follows from them, with one exception: an input that
 * the page made a combobox (react-select, Downshift) chooses from the list it opens, unless its
 * suggestions are a `<datalist>` (`list`), which opens no list in the page and takes typed text.
 * Any other element is what the role the agent read says; an editing host with no such role
 * takes text.
 * @param {{tag: string, type?: string, role: string, hasList?: boolean, editable?: boolean}} facts
 * @returns {FormFieldKind|null}
 */
export function formFieldKind({ tag, type = "", role, hasList = false, editable = false }) {
  if (tag === "input") {
    if (type === "checkbox") return "toggle";
    if (type === "radio") return "radio";
    if (UNFILLABLE_INPUT_TYPES.has(type)) return null;
    return role === "combobox" && !hasList ? "choice" : "text";
  }
  if (tag === "textarea") return "text";
  if (tag === "select") return "choice";
  if (Object.hasOwn(FORM_FIELD_KIND_OF_ROLE, role)) {
    return FORM_FIELD_KIND_OF_ROLE[/** @type {keyof typeof FORM_FIELD_KIND_OF_ROLE} */ (role)];
  }
  return editable ? "text" : null;
}

/**
 * A check box's, a switch's or a radio button's wanted state from its value: "true" or "false",
 * whatever the case and surrounding spaces, else null.
 * @param {string} value
 * @returns {boolean|null}
 */
export function wantedCheckedState(value) {
  const word = value.trim().toLowerCase();
  if (word === "true") return true;
  if (word === "false") return false;
  return null;
}

/**
 * A control's checked state as the accessibility tree reads it: a native check box's
 * checkedness (mixed while indeterminate), else `aria-checked` ("mixed" stays mixed, anything
 * but "true" is false).
 * @param {{tag: string, type?: string, checked?: boolean, indeterminate?: boolean, ariaChecked?: string|null}} facts
 * @returns {boolean|"mixed"}
 */
export function checkedStateOf({ tag, type = "", checked = false, indeterminate = false, ariaChecked = null }) {
  if (tag === "input" && (type === "checkbox" || type === "radio")) {
    return type === "checkbox" && indeterminate ? "mixed" : checked;
  }
  if (ariaChecked === "mixed") return "mixed";
  return ariaChecked === "true";
}

/**
 * Input types whose value the browser sanitizes to "" when it is not in the type's own format
 * (HTML, "value sanitization algorithm"), each with that format for the hint. fill_form checks a
 * value against the browser's own rule before typing, so that a field it would empty is refused
 * with nothing done.
 */
export const FORMATTED_INPUT_TYPES = Object.freeze({
  date: "yyyy-mm-dd, for example 2024-12-31",
  time: "HH:MM or HH:MM:SS in 24 hours, for example 14:30",
  "datetime-local": "yyyy-mm-ddTHH:MM, for example 2024-12-31T14:30",
  month: "yyyy-mm, for example 2024-12",
  week: "yyyy-Www, for example 2024-W52",
  number: "digits with a dot for decimals and no grouping, for example 1234.5",
});
