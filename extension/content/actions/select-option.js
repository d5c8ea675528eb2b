// @ts-check
// select_option's page half (docs/protocol/tools.md, "Action results"): a native select, a listbox, or
// a combobox that opens one; the option is matched against the names the agent read.

import "../../shared/messages.js";
import { deepActiveElement, elementsByIdList, isSelfOrInside, queryAllAcrossShadow } from "../dom/shadow.js";
import { explicitRole, isNativelyDisabled, isShown, normalizeText, quote } from "./element.js";
import { focusQuietly, scrollIntoViewIfNeeded } from "./interaction.js";
import { pressKeyOnce } from "./key-events.js";
import { pointerClick } from "./pointer-input.js";
import { activeDescendantOf, displayedText, openListboxOf, optionsOf, visibleListboxes } from "./listbox.js";
import { describeTargetAsRead, resolveTarget } from "./target.js";
import { labelledField, nativeSetter } from "./text-fields.js";
import { nextFrame, settle, waitFor } from "./timing.js";
import { isSecretField } from "../../shared/secret-fields.js";
import { thrownToolError } from "../../shared/thrown.js";

const messages = globalThis.allwrightMessages;

/** select_option: how long a click may take to open a list, then an ArrowDown. */
const LIST_OPEN_BY_CLICK_MS = 500;

const LIST_OPEN_BY_KEY_MS = 1000;

/** select_option: how long an option's activation may take to show. */
const OPTION_COMMIT_MS = 300;

/**
 * select_option: how many ArrowDown presses may look for an option in a list that renders only a
 * window of its options (see findInWindowedList).
 */
const MAX_WINDOWED_LIST_STEPS = 500;

/** The most option labels an option_not_found error suggests. */
const MAX_OPTION_SUGGESTIONS = 20;

/**
 * The option an agent asked for: by value (exact), or by label: exact, then case-insensitive
 * exact, then a case-insensitive substring that only one option contains. Throws
 * option_not_found with the options' labels as suggestions.
 * @param {{element: Element, label: string, values: string[]}[]} candidates
 * @param {WantedOption} wanted
 */
export function matchOption(candidates, wanted) {
  const labels = candidates.map((candidate) => candidate.label).filter(Boolean);
  const suggestions = [...new Set(labels)].slice(0, MAX_OPTION_SUGGESTIONS);
  // The options seen are always listed, so that the agent can pick one without another read;
  // a list that showed none says so.
  const seen =
    labels.length === 0
      ? "the list showed no options"
      : `the list showed ${labels.length} option${labels.length === 1 ? "" : "s"}`;
  const notFound = (/** @type {string} */ message) =>
    messages.toolError("option_not_found", `${message}; ${seen}`, {
      hint:
        labels.length === 0
          ? "The list had no options when it opened (they may load as you type): type into the field with set_field, or read the tree after opening it with click_ax."
          : "Use one of the suggested labels, or read the tree to see the options.",
      suggestions,
    });
  if (wanted.value !== undefined) {
    const match = candidates.find((candidate) => candidate.values.includes(wanted.value));
    if (match === undefined) throw notFound(`no option has the value ${quote(wanted.value)}`);
    return match;
  }
  const label = normalizeText(wanted.label);
  const lower = label.toLowerCase();
  const exact =
    candidates.find((candidate) => candidate.label === label) ??
    candidates.find((candidate) => candidate.label.toLowerCase() === lower);
  if (exact !== undefined) return exact;
  const containing = candidates.filter((candidate) => lower !== "" && candidate.label.toLowerCase().includes(lower));
  if (containing.length === 1) return containing[0];
  if (containing.length > 1) {
    throw messages.toolError(
      "option_not_found",
      `${containing.length} options contain ${quote(label)}; give the whole label`,
      {
        hint: "Use one of the suggested labels exactly.",
        suggestions: containing.map((candidate) => candidate.label).slice(0, MAX_OPTION_SUGGESTIONS),
      },
    );
  }
  throw notFound(`no option is labelled ${quote(label)}`);
}

/**
 * The option select_option was asked for: by its label or by its value (the tool contract allows
 * exactly one).
 * @typedef {{label: string, value?: undefined} | {value: string, label?: undefined}} WantedOption
 * What select_option acts on: a native select, a listbox, or a combobox that opens one.
 * @typedef {{kind: "native", select: HTMLSelectElement}
 *   | {kind: "listbox", listbox: Element|null, combobox: Element|null}} SelectControl
 */

/**
 * What select_option acts on: a native select, a listbox, or a combobox that opens one.
 * @param {Element} element
 * @param {string} refId
 * @param {string[]} hints
 * @returns {SelectControl}
 */
function locateSelectControl(element, refId, hints) {
  if (element.localName === "select") return { kind: "native", select: /** @type {HTMLSelectElement} */ (element) };
  const role = explicitRole(element);
  if (role === "listbox") return { kind: "listbox", listbox: element, combobox: null };
  if (role === "combobox" || element.getAttribute("aria-haspopup") === "listbox") {
    return { kind: "listbox", listbox: null, combobox: element };
  }
  const labelled = labelledField(element);
  const inside = queryAllAcrossShadow(element, 'select, [role~="combobox"], [role~="listbox"]').filter(
    (candidate) => candidate.localName === "select" || ["combobox", "listbox"].includes(explicitRole(candidate)),
  );
  const delegate = labelled ?? (inside.length === 1 ? inside[0] : null);
  if (delegate !== null && delegate !== element) {
    const control = locateSelectControl(delegate, refId, hints);
    hints.push(
      `chose in the ${delegate.localName} ${labelled !== null ? "labelled by" : "inside"} this ${element.localName}`,
    );
    return control;
  }
  throw messages.toolError(
    "invalid_arguments",
    `${refId} (${element.localName}) is not a select, a combobox or a listbox`,
    {
      hint: "For a menu of buttons, click_ax the button that opens it, read the tree, then click_ax the item.",
    },
  );
}

/**
 * @param {string} refId
 * @param {string[]} evidence
 * @param {string[]} hints
 * @param {import("./target.js").TreeHelpers} ax
 * @param {HTMLSelectElement} select
 * @param {WantedOption} wanted
 */
async function selectNativeOption(ax, select, wanted, refId, evidence, hints) {
  if (isNativelyDisabled(select)) {
    throw messages.toolError("not_actionable", `${refId} is disabled`, {
      hint: "The list is disabled; do what enables it first, then read the tree again.",
    });
  }
  const candidates = Array.from(select.options, (option) => ({
    element: option,
    label: optionName(ax, option, nativeOptionLabel),
    values: [option.value],
  }));
  const match = matchOption(candidates, wanted);
  const option = /** @type {HTMLOptionElement} */ (match.element);
  if (isNativelyDisabled(option)) {
    throw messages.toolError("not_actionable", `the option ${quote(match.label)} is disabled`, {
      hint: "Choose another option.",
    });
  }
  if (option.selected) {
    // A person re-choosing the current option causes no change event either.
    hints.push("the option was already selected");
  } else {
    if (select.multiple) hints.push("the other selected options were kept");
    nativeSetter(HTMLOptionElement.prototype, "selected").call(option, true);
    select.dispatchEvent(new Event("input", { bubbles: true, composed: true }));
    select.dispatchEvent(new Event("change", { bubbles: true }));
    await settle();
    if (option.selected) evidence.push("value_changed");
    else
      hints.push(
        `the page changed the selection back to ${quote(normalizeText(select.selectedOptions[0]?.text ?? ""))}`,
      );
  }
  return { method: "native", selected: { label: match.label, value: option.value } };
}

/**
 * An option's name as the agent read it in the tree (the core's accessible name, whitespace
 * collapsed as a list shows it), so that select_option matches what the agent saw. An option no
 * read of this frame printed (a list this action opened, an option below the tree's depth) falls
 * back to `ownLabel`, this file's own reading of the option's text, which is close to the
 * accessible name but not computed by the same rules.
 * @param {import("./target.js").TreeHelpers} ax
 * @param {Element} option
 * @param {(option: any) => string} ownLabel
 */
function optionName(ax, option, ownLabel) {
  const printed = ax.printedRefOf(option);
  return printed === null ? ownLabel(option) : normalizeText(printed.name);
}

/**
 * A native option's label as the select shows it, for options the agent never read.
 * @param {HTMLOptionElement} option
 */
function nativeOptionLabel(option) {
  return normalizeText(option.label || option.text);
}

/**
 * The text of a listbox option, for options the agent never read (see optionName).
 * @param {Element} option
 */
function optionLabel(option) {
  const ariaLabel = option.getAttribute("aria-label");
  if (ariaLabel !== null && ariaLabel.trim() !== "") return normalizeText(ariaLabel);
  const labelledBy = elementsByIdList(option, "aria-labelledby");
  if (labelledBy.length > 0) return normalizeText(labelledBy.map((labeller) => labeller.textContent).join(" "));
  return normalizeText(option.textContent);
}

/**
 * Closes a list select_option opened, so the page is left as it was found.
 * @param {Element} combobox
 * @param {Element} listbox
 */
async function closeOpenedList(combobox, listbox) {
  const active = deepActiveElement();
  const keyTarget = listbox !== null && isSelfOrInside(listbox, active) ? active : combobox;
  pressKeyOnce(keyTarget, "Escape");
  await nextFrame();
}

/**
 * Chooses the option with the keyboard when its click did nothing: Enter on the option when
 * focus lives in the popup (Radix Select, MUI menus), else ArrowDown on the combobox until
 * aria-activedescendant names the option, then Enter (react-select, Downshift).
 * @param {Element|null} combobox a combobox, or null for a listbox on its own
 * @param {Element} listbox
 * @param {Element} option
 * @param {number} optionCount
 * @param {string[]} hints
 */
async function chooseOptionByKeyboard(combobox, listbox, option, optionCount, hints) {
  const active = deepActiveElement();
  const holder = combobox ?? (listbox.hasAttribute("aria-activedescendant") ? listbox : null);
  if (holder === null || isSelfOrInside(listbox, active)) {
    focusQuietly(option);
    pressKeyOnce(option, "Enter");
    return;
  }
  focusQuietly(holder);
  for (let step = 0; step <= optionCount + 1; step += 1) {
    if (activeDescendantOf(holder) === option) {
      pressKeyOnce(holder, "Enter");
      return;
    }
    pressKeyOnce(holder, "ArrowDown");
    await nextFrame();
  }
  hints.push("ArrowDown never highlighted the option");
}

/**
 * Whether an option is the one the agent asked for: its value, or its label exactly (case aside).
 * @param {{label?: string, value?: string}} wanted
 * @param {Element} option
 * @param {import("./target.js").TreeHelpers} ax
 */
function isWantedOption(ax, option, wanted) {
  if (wanted.value !== undefined) {
    return [option.getAttribute("data-value"), option.getAttribute("value"), option.id].includes(wanted.value);
  }
  return optionName(ax, option, optionLabel).toLowerCase() === normalizeText(wanted.label ?? "").toLowerCase();
}

/**
 * A combobox whose listbox renders only a window of its options around the active one: Ant
 * Design's Select (rc-select) keeps an ARIA listbox of the active option and its neighbours while
 * its visible, virtualised list has no roles, so an option further down is in no listbox yet.
 * A keyboard user reaches it with ArrowDown, the combobox naming the highlighted option in
 * aria-activedescendant, and chooses it with Enter (WAI-ARIA Authoring Practices, "Combobox
 * Pattern", keyboard interaction); so does this, until the option asked for is the active one,
 * or the highlight comes back to an option already passed (the list wrapped), or gets stuck.
 * Answers the select_option result, or null (nothing chosen) when the option was not reached.
 * @param {Element} combobox
 * @param {Element} listbox
 * @param {string[]} evidence
 * @param {string[]} hints
 * @param {import("./target.js").TreeHelpers} ax
 * @param {WantedOption} wanted
 */
async function chooseInWindowedList(ax, combobox, listbox, wanted, evidence, hints) {
  focusQuietly(combobox);
  const passed = new Set();
  const before = displayedText(combobox);
  for (let step = 0; step < MAX_WINDOWED_LIST_STEPS; step += 1) {
    const active = activeDescendantOf(combobox);
    if (active !== null && isWantedOption(ax, active, wanted)) {
      const label = optionName(ax, active, optionLabel);
      pressKeyOnce(combobox, "Enter");
      const changed = await waitFor(
        () => (displayedText(combobox) !== before || combobox.getAttribute("aria-expanded") === "false" ? true : null),
        OPTION_COMMIT_MS,
      );
      if (changed !== null) evidence.push("value_changed");
      else hints.push("nothing changed after pressing Enter on the option");
      hints.push(
        `the list shows only a window of its options: ArrowDown highlighted ${quote(label)} after ${step} step${step === 1 ? "" : "s"}, and Enter chose it`,
      );
      /** @type {{label: string, value?: string}} */
      const selected = { label };
      const value = active.getAttribute("data-value") ?? active.getAttribute("value");
      if (value !== null && value !== "") selected.value = value;
      return { method: "listbox_keyboard", selected };
    }
    const key = active === null ? null : `${active.id}\u0000${optionName(ax, active, optionLabel)}`;
    if (key !== null && passed.has(key)) return null;
    if (key !== null) passed.add(key);
    if (step > 0 && active === null) return null;
    pressKeyOnce(combobox, "ArrowDown");
    await nextFrame();
  }
  return null;
}

/**
 * @param {string} refId
 * @param {string[]} evidence
 * @param {string[]} hints
 * @param {import("./target.js").TreeHelpers} ax
 * @param {SelectControl & {kind: "listbox"}} control
 * @param {WantedOption} wanted
 */
async function selectListboxOption(ax, control, wanted, refId, evidence, hints) {
  const { combobox } = control;
  let found = control.listbox;
  let openedHere = false;

  if (combobox !== null) {
    if (isNativelyDisabled(combobox)) {
      throw messages.toolError("not_actionable", `${refId} is disabled`, {
        hint: "The list is disabled; do what enables it first, then read the tree again.",
      });
    }
    const shownBefore = new Set(visibleListboxes());
    found = combobox.getAttribute("aria-expanded") === "true" ? openListboxOf(combobox, new Set()) : null;
    if (found === null) {
      // Libraries open on different events: a click for most, mousedown or pointerdown for some
      // (react-select, Radix, MUI), which all also open on ArrowDown.
      openedHere = true;
      scrollIntoViewIfNeeded(combobox);
      focusQuietly(combobox);
      pointerClick(combobox);
      found = await waitFor(() => openListboxOf(combobox, shownBefore), LIST_OPEN_BY_CLICK_MS);
      if (found === null) {
        pressKeyOnce(combobox, "ArrowDown");
        found = await waitFor(() => openListboxOf(combobox, shownBefore), LIST_OPEN_BY_KEY_MS);
      }
      if (found === null) {
        throw messages.toolError("not_actionable", `${refId} did not open a list of options`, {
          hint: "Open it with click_ax, read the tree, then click_ax the option.",
        });
      }
    }
  }

  // A listbox control names its list; a combobox's list was found above, or the call failed.
  if (found === null) throw new Error("select_option has no list to choose in");
  const listbox = found;

  const options = optionsOf(listbox);
  const candidates = options.map((option) => ({
    element: option,
    label: optionName(ax, option, optionLabel),
    values: [option.getAttribute("data-value"), option.getAttribute("value"), option.id].filter(
      /** @returns {value is string} */ (value) => value !== null && value !== "",
    ),
  }));
  let match;
  try {
    match = matchOption(candidates, wanted);
    if (match.element.getAttribute("aria-disabled") === "true") {
      throw messages.toolError("not_actionable", `the option ${quote(match.label)} is disabled`, {
        hint: "Choose another option.",
      });
    }
  } catch (error) {
    const windowed =
      thrownToolError(error)?.code === "option_not_found" && combobox !== null
        ? await chooseInWindowedList(ax, combobox, listbox, wanted, evidence, hints)
        : null;
    if (windowed !== null) return windowed;
    // Only a combobox's list is opened here.
    if (openedHere && combobox !== null) await closeOpenedList(combobox, listbox);
    throw error;
  }
  const option = match.element;

  // What shows that the choice took: the combobox's displayed value, the option's
  // aria-selected, the list closing.
  const shownText = () => displayedText(combobox ?? listbox);
  const listboxShownBefore = isShown(listbox);
  const before = {
    text: shownText(),
    selected: option.getAttribute("aria-selected"),
    expanded: combobox?.getAttribute("aria-expanded") ?? null,
  };
  const outcome = () => {
    const changes = [];
    if (shownText() !== before.text) changes.push("value_changed");
    const selected = option.getAttribute("aria-selected");
    if (selected !== before.selected && selected === "true") changes.push("semantic_state:aria-selected");
    if (combobox !== null && combobox.getAttribute("aria-expanded") !== before.expanded)
      changes.push("semantic_state:aria-expanded");
    // A list that was never shown (a zero-size ARIA listbox, see listbox.js) cannot close.
    if (combobox !== null && listboxShownBefore && !isShown(listbox)) changes.push("listbox_closed");
    return changes.length > 0 ? changes : null;
  };

  option.scrollIntoView({ block: "nearest", behavior: "instant" });
  // The whole click a mouse gives (pointer-input.js): widgets that choose on mouseup (Shoelace,
  // Web Awesome) or pointerup hear it as well as those that choose on click.
  pointerClick(option);
  let changes = await waitFor(outcome, OPTION_COMMIT_MS);
  if (changes === null) {
    await chooseOptionByKeyboard(combobox, listbox, option, options.length, hints);
    changes = await waitFor(outcome, OPTION_COMMIT_MS);
    if (changes !== null) hints.push("the option ignored a click and was chosen with the keyboard");
  }
  if (changes !== null) evidence.push(...changes);
  else hints.push("nothing changed after clicking the option or pressing Enter on it");

  /** @type {{label: string, value?: string}} */
  const selected = { label: match.label };
  if (match.values.length > 0) selected.value = match.values[0];
  return { method: "listbox", selected };
}

/**
 * @param {{ref_id: string, label?: string|null, value?: string|null}} args
 * @param {import("./target.js").TreeHelpers} ax
 */
export async function selectOption(args, ax) {
  const element = resolveTarget(ax, args);
  // The background's contract guarantees exactly one of label and value.
  const label = args.label ?? undefined;
  const value = args.value ?? undefined;
  const description = await describeTargetAsRead(ax, element);
  /** @type {string[]} */
  const evidence = [];
  /** @type {string[]} */
  const hints = [];
  const control = locateSelectControl(element, args.ref_id, hints);
  /** @type {WantedOption} */
  const wanted = label !== undefined ? { label } : { value: /** @type {string} */ (value) };
  const chosen =
    control.kind === "native"
      ? await selectNativeOption(ax, control.select, wanted, args.ref_id, evidence, hints)
      : await selectListboxOption(ax, control, wanted, args.ref_id, evidence, hints);
  // A native select whose value is a secret (shared/secret-fields.js: a card's expiry month)
  // does not echo the option chosen; `sensitive` tells the side panel's log to redact it too.
  const sensitive = control.kind === "native" && isSecretField(control.select);
  const shown = sensitive ? { ...chosen, selected: { label: "••••", value: "••••" } } : chosen;
  return { ...description, ...shown, sensitive, evidence, hints };
}
