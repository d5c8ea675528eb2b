// @ts-check
// Whether a form control differs from its default (HTML, "Form controls": defaultValue,
// defaultChecked, defaultSelected), the question promote_iframe asks of a frame before it
// navigates the tab away from the frame's work (docs/protocol/frames.md, "Frames"). Pure: these read
// plain properties, so the unit tests run them on plain objects.

/**
 * The input types whose value a person types or picks, and that `defaultValue` describes (the
 * "value" mode of HTML's input element). Buttons, hidden fields, checkboxes, radios and file
 * inputs are read differently or not at all.
 */
const VALUE_MODE_TYPES = new Set([
  "text",
  "search",
  "url",
  "tel",
  "email",
  "password",
  "date",
  "month",
  "week",
  "time",
  "datetime-local",
  "number",
  "range",
  "color",
]);

/**
 * How an input is read: "value" (compare value with defaultValue), "checked", "file", or
 * "none" (buttons and hidden fields, which a person does not edit).
 * @param {string} type the input's `type` property (the browser's normalised type)
 * @returns {"value"|"checked"|"file"|"none"}
 */
export function inputReading(type) {
  if (type === "checkbox" || type === "radio") return "checked";
  if (type === "file") return "file";
  return VALUE_MODE_TYPES.has(type) ? "value" : "none";
}

/**
 * Whether a <select>'s selection differs from the one it starts with. HTML's "selectedness
 * setting algorithm": a select-one with no option marked `selected` starts on its first option
 * that is not disabled (when it shows one row); with several marked, the last one wins; a
 * multiple select starts exactly on its marked options.
 * @param {{multiple: boolean, size: number,
 *   options: ArrayLike<{selected: boolean, defaultSelected: boolean, disabled: boolean}>}} select
 */
export function selectDiffersFromDefault(select) {
  const options = Array.from(select.options);
  if (select.multiple) return options.some((option) => option.selected !== option.defaultSelected);
  let expected = -1;
  options.forEach((option, index) => {
    if (option.defaultSelected) expected = index;
  });
  if (expected === -1 && (select.size ?? 0) <= 1) expected = options.findIndex((option) => !option.disabled);
  const actual = options.findIndex((option) => option.selected);
  return actual !== expected;
}
