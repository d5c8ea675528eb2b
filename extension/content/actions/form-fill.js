// @ts-check
// fill_form_field, the page half of one field of fill_form (docs/protocol/tools.md, "Action results"):
// the field a ref stands for is filled as the single tools fill it, with their refusals. A text
// field goes through set_field's typing (text-entry.js), a list through select_option's choice
// (select-option.js); a check box, a switch or a radio button is clicked once, only when its
// state is not the one asked for, and never a second time: a click that did not change it is
// refused, not repeated. Which kind a field is follows form-field-kind.js's tables.

import "../../shared/messages.js";
import { elementsByIdList, queryAllAcrossShadow } from "../dom/shadow.js";
import { isNativelyDisabled, normalizeText, quote } from "./element.js";
import { displayedText } from "./listbox.js";
import { pointerClick } from "./pointer-input.js";
import { matchOption, selectOption } from "./select-option.js";
import { describeTargetAsRead, printedRole, resolveTarget } from "./target.js";
import { fillField } from "./text-entry.js";
import { labelledField } from "./text-fields.js";
import { waitFor } from "./timing.js";
import { checkedStateOf, FORMATTED_INPUT_TYPES, formFieldKind, wantedCheckedState } from "./form-field-kind.js";
import { isSecretField } from "../../shared/secret-fields.js";
import { thrownToolError } from "../../shared/thrown.js";

const messages = globalThis.allwrightMessages;

/** How long a click on a check box, a switch or a radio button may take to change its state. */
const CHECKED_STATE_COMMIT_MS = 500;

/** What a value shown in a message becomes when the field holds a secret. */
const MASKED = "••••";

/**
 * The kind of field an element is (form-field-kind.js), from its tag and the role the agent read.
 * @param {import("./target.js").TreeHelpers} ax
 * @param {any} element
 */
function kindOf(ax, element) {
  return formFieldKind({
    tag: element.localName,
    type: element.localName === "input" ? element.type : "",
    role: printedRole(ax, element),
    hasList: element.localName === "input" && element.hasAttribute("list"),
    editable: element.isContentEditable === true,
  });
}

/** @param {any} element */
function checkedState(element) {
  return checkedStateOf({
    tag: element.localName,
    type: element.localName === "input" ? element.type : "",
    checked: element.checked === true,
    indeterminate: element.indeterminate === true,
    ariaChecked: element.getAttribute("aria-checked"),
  });
}

/** @param {boolean|"mixed"} state */
const describeState = (state) => (state === "mixed" ? "partly checked" : state ? "checked" : "unchecked");

/**
 * A disabled control refuses the click (native `:disabled`, or `aria-disabled="true"`, which a
 * page's own check box honours), as click_ax reports it.
 * @param {Element} element
 * @param {string} refId
 */
function refuseDisabled(element, refId) {
  if (isNativelyDisabled(element) || element.getAttribute("aria-disabled") === "true") {
    throw messages.toolError("not_actionable", `${refId} is disabled`, {
      hint: "The control is disabled; do what enables it first, then read the tree again.",
    });
  }
}

/**
 * A field's value, as "true" or "false"; anything else is refused before anything is done.
 * @param {string} value
 * @param {string} refId
 * @param {string} what "check box", "radio button"
 */
function wantedState(value, refId, what) {
  const wanted = wantedCheckedState(value);
  if (wanted === null) {
    throw messages.toolError(
      "invalid_arguments",
      `${refId} is a ${what}: its value must be "true" or "false", not ${quote(value, 40)}`,
      {
        hint: `Pass "true" to check it or "false" to uncheck it.`,
      },
    );
  }
  return wanted;
}

/**
 * Clicks `element` once, as a person's mouse would (pointer-input.js), and waits for its checked
 * state to become `wanted`; refused with value_not_accepted, and never clicked again, when it
 * did not.
 * @param {Element} element
 * @param {boolean} wanted
 * @param {string} refId
 */
async function clickOnceInto(element, wanted, refId) {
  const before = checkedState(element);
  element.scrollIntoView({ block: "center", inline: "center", behavior: "instant" });
  pointerClick(element);
  const took = await waitFor(() => (checkedState(element) === wanted ? true : null), CHECKED_STATE_COMMIT_MS);
  if (took === null) {
    const now = checkedState(element);
    throw messages.toolError(
      "value_not_accepted",
      `${refId} was ${describeState(before)} and is ${describeState(now)} after one click; it was not clicked again`,
      {
        hint: "The page did not take the click as a change to the state asked for: read the tree before acting on it again (another control may hold its state, or the page may be busy).",
      },
    );
  }
}

/**
 * A check box or a switch: clicked once when its state is not the one asked for.
 * @param {import("./target.js").TreeHelpers} ax
 * @param {Element} named the element the ref stands for (a label, or the control itself)
 * @param {Element} element the control
 * @param {string} value
 * @param {string} refId
 */
async function fillToggle(ax, named, element, value, refId) {
  const description = await describeTargetAsRead(ax, named);
  const wanted = wantedState(value, refId, description.role === "switch" ? "switch" : "check box");
  // A box that already holds the state asked for needs nothing, disabled or not.
  if (checkedState(element) === wanted) {
    return {
      ...description,
      kind: "checkbox",
      action: "none",
      checked: wanted,
      evidence: [],
      hints: [`it was already ${describeState(wanted)}`],
    };
  }
  refuseDisabled(element, refId);
  await clickOnceInto(element, wanted, refId);
  return {
    ...description,
    kind: "checkbox",
    action: "clicked",
    checked: wanted,
    evidence: ["semantic_state:checked"],
    hints: [],
  };
}

/**
 * A radio button: "true" chooses it (clicked once, unless it is chosen); "false" holds only
 * for a radio that is not chosen, since a radio is cleared by choosing another of its group.
 * @param {import("./target.js").TreeHelpers} ax
 * @param {Element} named the element the ref stands for (a label, or the radio itself)
 * @param {Element} element the radio
 * @param {string} value
 * @param {string} refId
 */
async function fillRadio(ax, named, element, value, refId) {
  const description = await describeTargetAsRead(ax, named);
  const wanted = wantedState(value, refId, "radio button");
  const chosen = checkedState(element) === true;
  if (chosen === wanted) {
    return {
      ...description,
      kind: "radio",
      action: "none",
      checked: wanted,
      evidence: [],
      hints: [`it was already ${wanted ? "chosen" : "not chosen"}`],
    };
  }
  if (!wanted) {
    throw messages.toolError(
      "invalid_arguments",
      `${refId} is the chosen radio button of its group; a click cannot unchoose it`,
      {
        hint: 'Choose another radio button of the group instead: pass "true" for it (or its label for the group\'s ref).',
      },
    );
  }
  refuseDisabled(element, refId);
  await clickOnceInto(element, true, refId);
  return {
    ...description,
    kind: "radio",
    action: "clicked",
    checked: true,
    evidence: ["semantic_state:checked"],
    hints: [],
  };
}

/**
 * A radio button's label as a person reads it, for radios no read of this frame printed.
 * @param {any} radio
 */
function ownRadioLabel(radio) {
  const ariaLabel = radio.getAttribute("aria-label");
  if (ariaLabel !== null && ariaLabel.trim() !== "") return normalizeText(ariaLabel);
  const labelledBy = elementsByIdList(radio, "aria-labelledby");
  if (labelledBy.length > 0) return normalizeText(labelledBy.map((labeller) => labeller.textContent).join(" "));
  if (radio.localName === "input") {
    return normalizeText(Array.from(radio.labels ?? [], (label) => label.textContent).join(" "));
  }
  return normalizeText(radio.textContent);
}

/**
 * A radio group: the radio whose label is the value (matched as select_option matches an
 * option's label; else the radio whose value attribute it is) is chosen, as a radio is.
 * @param {import("./target.js").TreeHelpers} ax
 * @param {Element} group
 * @param {string} value
 * @param {string} refId
 */
async function fillRadioGroup(ax, group, value, refId) {
  const description = await describeTargetAsRead(ax, group);
  const radios = queryAllAcrossShadow(group, 'input[type="radio"], [role~="radio"]');
  const candidates = radios.map((radio) => {
    const printed = ax.printedRefOf(radio);
    const own = /** @type {any} */ (radio).localName === "input" ? /** @type {any} */ (radio).value : null;
    return {
      element: radio,
      label: printed === null ? ownRadioLabel(radio) : normalizeText(printed.name),
      values: own === null || own === "" ? [] : [own],
    };
  });
  let match;
  try {
    match = matchOption(candidates, { label: value });
  } catch (byLabel) {
    try {
      match = matchOption(candidates, { value });
    } catch {
      throw messages.toolError(
        "option_not_found",
        `no radio button of ${refId} is labelled ${quote(value)}; the group has ${candidates.length} radio button${candidates.length === 1 ? "" : "s"}`,
        { hint: "Use one of the suggested labels exactly.", suggestions: thrownToolError(byLabel)?.suggestions ?? [] },
      );
    }
  }
  const radio = match.element;
  const selected = { label: match.label };
  if (checkedState(radio) === true) {
    return {
      ...description,
      kind: "radiogroup",
      action: "none",
      selected,
      evidence: [],
      hints: [`${quote(match.label)} was already chosen`],
    };
  }
  refuseDisabled(group, refId);
  refuseDisabled(radio, refId);
  await clickOnceInto(radio, true, refId);
  return {
    ...description,
    kind: "radiogroup",
    action: "clicked",
    selected,
    evidence: ["semantic_state:checked"],
    hints: [],
  };
}

/**
 * Refuses, with nothing typed, a value that a date, time or number input would not take: the
 * browser's own sanitization (HTML, "value sanitization algorithm") is asked of an input of the
 * same type that is in no document, so the page sees nothing.
 * @param {any} element
 * @param {string} value
 * @param {string} refId
 */
function refuseValueTheInputDrops(element, value, refId) {
  if (element.localName !== "input" || !Object.hasOwn(FORMATTED_INPUT_TYPES, element.type) || value === "") return;
  const probe = element.ownerDocument.createElement("input");
  probe.type = element.type;
  probe.value = value;
  if (probe.value !== "") return;
  const shown = isSecretField(element) ? MASKED : quote(value, 40);
  throw messages.toolError(
    "value_not_accepted",
    `${refId} is a ${element.type} input, which does not take ${shown}; nothing was typed`,
    {
      hint: `Give the value as the input takes it: ${FORMATTED_INPUT_TYPES[/** @type {keyof typeof FORMATTED_INPUT_TYPES} */ (element.type)]}.`,
    },
  );
}

/**
 * A text field: set_field's typing, replacing the content, without submitting.
 * @param {import("./target.js").TreeHelpers} ax
 * @param {Element} element
 * @param {string} value
 * @param {string} refId
 */
async function fillText(ax, element, value, refId) {
  const formatted =
    element.localName === "input" && Object.hasOwn(FORMATTED_INPUT_TYPES, /** @type {any} */ (element).type);
  const text = formatted ? value.trim() : value;
  refuseValueTheInputDrops(element, text, refId);
  const { kind: field, ...filled } = await fillField({ ref_id: refId, text, clear: true, submit: false }, ax);
  // Nothing is submitted: set_field's `submit` says so only in its own result.
  /** @type {Partial<typeof filled>} */
  const report = filled;
  delete report.submit;
  return { ...report, kind: "text", field, action: "typed" };
}

/**
 * A select, a listbox or a combobox: select_option's choice by label, else, for a native select,
 * by the option's value.
 * @param {import("./target.js").TreeHelpers} ax
 * @param {Element} element
 * @param {string} value
 * @param {string} refId
 */
async function fillChoice(ax, element, value, refId) {
  // A combobox that already shows the option asked for is left closed: opening it and choosing
  // the same option again would change nothing but fire the page's handlers a second time.
  if (element.localName !== "select" && printedRole(ax, element) === "combobox") {
    const shown = normalizeText(displayedText(element));
    if (shown !== "" && shown.toLowerCase() === normalizeText(value).toLowerCase()) {
      const description = await describeTargetAsRead(ax, element);
      const sensitive = isSecretField(element);
      return {
        ...description,
        kind: "choice",
        action: "none",
        selected: { label: sensitive ? MASKED : shown },
        sensitive,
        evidence: [],
        hints: [sensitive ? "the option was already chosen" : `${quote(shown)} was already chosen`],
      };
    }
  }
  let report;
  try {
    report = await selectOption({ ref_id: refId, label: value }, ax);
  } catch (byLabel) {
    if (thrownToolError(byLabel)?.code !== "option_not_found" || element.localName !== "select") throw byLabel;
    // A native select's options are all in the page: matching by value opens nothing.
    report = await selectOption({ ref_id: refId, value }, ax).catch(() => {
      throw byLabel;
    });
  }
  const alreadySelected = (report.hints ?? []).includes("the option was already selected");
  return { ...report, kind: "choice", action: alreadySelected ? "none" : "selected" };
}

/**
 * Masks a secret field's value in an error: select_option quotes the label it did not find, and
 * a card's expiry month must not come back in a message.
 * @param {any} error
 * @param {string} value
 */
function withoutValue(error, value) {
  if (!messages.isToolError(error) || value === "") return error;
  const mask = (/** @type {unknown} */ text) =>
    typeof text === "string" ? text.split(quote(value)).join(MASKED).split(JSON.stringify(value)).join(MASKED) : text;
  return { ...error, message: mask(error.message), hint: mask(error.hint) };
}

/**
 * fill_form_field: fills one field of fill_form, `{ref_id, value}` (validated by the background).
 * The report says what was done (`action`: "typed", "clicked", "selected", or "none" when the
 * field already held the value) and whether the field holds a secret (`sensitive`), for the side
 * panel's redaction; a secret's value is never in it.
 * @param {{ref_id: string, value: string}} args
 * @param {import("./target.js").TreeHelpers} ax
 */
export async function fillFormField(args, ax) {
  const refId = args.ref_id;
  const value = args.value;
  const element = resolveTarget(ax, args);
  // A label stands for its control, as it does for type_ax and select_option.
  const labelled = kindOf(ax, element) === null ? labelledField(element) : null;
  const field = labelled ?? element;
  const sensitive = isSecretField(field);
  const kind = kindOf(ax, field);
  try {
    let report;
    if (kind === "toggle") report = await fillToggle(ax, element, field, value, refId);
    else if (kind === "radio") report = await fillRadio(ax, element, field, value, refId);
    else if (kind === "radiogroup") report = await fillRadioGroup(ax, field, value, refId);
    else if (kind === "choice") report = await fillChoice(ax, element, value, refId);
    else if (kind === "text") report = await fillText(ax, element, value, refId);
    else {
      const { role } = await describeTargetAsRead(ax, element);
      throw messages.toolError(
        "not_typable",
        `${refId} (${role || element.localName}) is not a form field fill_form can fill`,
        {
          hint: "fill_form fills text fields, text areas, contenteditable elements, check boxes, switches, radio buttons and groups, selects, listboxes and comboboxes. Use click_ax for buttons and links, and leave this field out.",
        },
      );
    }
    return { ...report, sensitive: /** @type {{sensitive?: unknown}} */ (report).sensitive === true || sensitive };
  } catch (error) {
    throw sensitive ? withoutValue(error, value) : error;
  }
}
