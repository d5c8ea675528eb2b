// @ts-check
// Evidence and observation: what changed around a target after an action (docs/protocol/tools.md,
// "Action results"). Local mutations and semantic state count as progress; mutations elsewhere
// are hints only. dom_quiet, the page half of wait_for_stable, also lives here.

import { closestAcrossShadow, elementsByIdList, isSelfOrInside, openShadowRootsOf } from "../dom/shadow.js";
import { explicitRole, isShown, normalizeText } from "./element.js";
import { delay } from "./timing.js";
import { isMarkerRecord } from "../dom/marker-attributes.js";

/** Attributes whose change on the target is semantic-state progress (aria-current, ...). */
const SEMANTIC_STATE_ATTRIBUTES = Object.freeze([
  "aria-current",
  "aria-expanded",
  "aria-pressed",
  "aria-selected",
  "aria-checked",
]);

/** What the mutation observers watch: everything, everywhere below the observed root. */
const OBSERVE_EVERYTHING = Object.freeze({
  subtree: true,
  childList: true,
  attributes: true,
  characterData: true,
});

/**
 * What an action's observers watch: everything, with the old text of a changed text node so
 * that a text change can be told from a rewrite of the same text.
 */
const OBSERVE_EVERYTHING_WITH_OLD_TEXT = Object.freeze({ ...OBSERVE_EVERYTHING, characterDataOldValue: true });

/** The most shadow roots an action's observer watches besides the target's own (see below). */
const MAX_OBSERVED_SHADOW_ROOTS = 500;

/**
 * Observes the document and its open shadow roots: a document-wide observer does not see inside
 * shadow trees (DOM Standard, "queue a mutation record" walks the inclusive ancestors, not the
 * shadow-including ones), and a selection shown inside a web component's shadow tree, or a
 * status line inside another component, is what an agent would see change. The shadow roots
 * between the document and the element are always watched; the others up to a bound.
 * @param {MutationObserver} observer
 * @param {Element} element
 */
export function observeAroundElement(observer, element) {
  observer.observe(document, OBSERVE_EVERYTHING_WITH_OLD_TEXT);
  const roots = new Set(openShadowRootsOf(document, MAX_OBSERVED_SHADOW_ROOTS));
  for (
    let root = element.getRootNode();
    root.nodeType === Node.DOCUMENT_FRAGMENT_NODE && /** @type {ShadowRoot} */ (root).host;
    root = /** @type {ShadowRoot} */ (root).host.getRootNode()
  ) {
    roots.add(/** @type {ShadowRoot} */ (root));
  }
  for (const root of roots) observer.observe(root, OBSERVE_EVERYTHING_WITH_OLD_TEXT);
}

/** Live regions (WAI-ARIA 1.2, "aria-live" and the roles whose implicit value is polite or assertive). */
const LIVE_REGION_SELECTOR =
  '[aria-live]:not([aria-live="off"]), [role~="status"], [role~="alert"], [role~="log"], [role~="marquee"], [role~="timer"], output';

/**
 * The most characters of a node's text compared: a page that adds or removes a huge subtree
 * must not make the comparison slow, and a difference shows in its first part almost always.
 */
const MAX_COMPARED_TEXT = 10_000;

/** The text a node carries, as a person would read it (its first MAX_COMPARED_TEXT characters). */
const textOf = (/** @type {Node} */ node) => normalizeText((node.textContent ?? "").slice(0, MAX_COMPARED_TEXT));

/**
 * Whether mutation records changed text anywhere (a text node's data, or nodes with text added
 * or removed), and whether one of those changes was inside a live region (a status line, an
 * alert). Attribute changes are not text. Returns the evidence, or null.
 * @param {MutationRecord[]} records
 * @returns {string[]}
 */
export function textChangeEvidence(records) {
  const changed = [];
  for (const record of withoutMarkerRecords(records)) {
    if (record.type === "characterData") {
      if (normalizeText((record.oldValue ?? "").slice(0, MAX_COMPARED_TEXT)) !== textOf(record.target)) {
        changed.push(record.target);
      }
    } else if (record.type === "childList") {
      const added = [...record.addedNodes].map(textOf).join(" ").trim();
      const removed = [...record.removedNodes].map(textOf).join(" ").trim();
      if (added !== removed) changed.push(record.target);
    }
  }
  if (changed.length === 0) return [];
  const inLiveRegion = changed.some(
    (node) => closestAcrossShadow(node, (element) => element.matches(LIVE_REGION_SELECTOR)) !== null,
  );
  return inLiveRegion ? ["text_changed", "text_changed:live_region"] : ["text_changed"];
}

/** The most form controls whose values an action compares before and after. */
const MAX_COMPARED_CONTROLS = 2000;

/**
 * The value of every form control of the document and its open shadow roots (a web component's
 * inner input that shows its selection included), to compare after an action. Kept in this
 * frame's memory only, never reported: only whether one changed is.
 * @returns {Map<Element, string>}
 */
export function controlValues() {
  const values = new Map();
  const scopes = [document, ...openShadowRootsOf(document, MAX_OBSERVED_SHADOW_ROOTS)];
  for (const scope of scopes) {
    for (const control of scope.querySelectorAll("input, textarea, select")) {
      if (values.size >= MAX_COMPARED_CONTROLS) return values;
      if (control instanceof HTMLSelectElement) {
        values.set(control, [...control.selectedOptions].map((option) => option.value).join("\n"));
      } else if (control instanceof HTMLInputElement && (control.type === "checkbox" || control.type === "radio")) {
        values.set(control, String(control.checked));
      } else {
        values.set(control, /** @type {HTMLInputElement | HTMLTextAreaElement} */ (control).value);
      }
    }
  }
  return values;
}

/**
 * `value_changed` when a control that was there before has another value now.
 * @param {Map<Element, string>} before
 * @returns {string[]}
 */
export function valueChangeEvidence(before) {
  const after = controlValues();
  for (const [control, value] of before) {
    if (control.isConnected && after.has(control) && after.get(control) !== value) return ["value_changed"];
  }
  return [];
}

/** Roles of popups (tooltips, menus, lists, dialogs), and the elements that are popups by nature. */
export const POPUP_SELECTOR =
  '[role~="tooltip"], [role~="menu"], [role~="listbox"], [role~="dialog"], ' +
  '[role~="alertdialog"], dialog, [popover]';

/** The popups shown now, in the document and its open shadow roots. */
export function shownPopups() {
  const scopes = [document, ...openShadowRootsOf(document, MAX_OBSERVED_SHADOW_ROOTS)];
  return new Set(scopes.flatMap((scope) => [...scope.querySelectorAll(POPUP_SELECTOR)]).filter(isShown));
}

const popupKind = (/** @type {Element} */ popup) =>
  explicitRole(popup) || (popup.localName === "dialog" ? "dialog" : "popover");

/**
 * `popup_shown:<kind>` for each popup shown now that was not shown before.
 * @param {Set<Element>} before
 * @returns {string[]}
 */
export function popupEvidence(before) {
  return [
    ...new Set([...shownPopups()].filter((popup) => !before.has(popup)).map((p) => `popup_shown:${popupKind(p)}`)),
  ];
}

/**
 * A mutation observer that collects records until `finish()`; for actions whose evidence is
 * read once, a little after acting.
 * @param {Element} element
 */
export function startMutationWindow(element) {
  /** @type {MutationRecord[]} */
  const records = [];
  const observer = new MutationObserver((batch) => {
    for (const record of batch) records.push(record);
  });
  observeAroundElement(observer, element);
  return {
    records,
    /** Everything observed so far, observer still running. */
    collect() {
      for (const record of observer.takeRecords()) records.push(record);
      return records;
    },
    finish() {
      this.collect();
      observer.disconnect();
      return records;
    },
  };
}

export const nodesOfRecord = (/** @type {MutationRecord} */ record) => [...record.addedNodes, ...record.removedNodes];

/**
 * Whether a mutation is local to the target, as docs/protocol/tools.md ("Action results") defines it:
 * the target itself or its subtree, a direct attribute change of one of its ancestors, or what
 * its aria-controls names (including that element being inserted or removed).
 * @param {MutationRecord} record
 * @param {Element} element
 * @param {Element[]} controlledElements
 */
function isLocalMutation(record, element, controlledElements) {
  const node = record.target;
  if (isSelfOrInside(element, node)) return true;
  if (record.type === "attributes" && isSelfOrInside(node, element)) return true;
  // The target itself inserted, moved or removed by the handler (a dismissed chip, a row that
  // re-rendered) is a change of the target, although the record's target is its parent.
  if (record.type === "childList" && nodesOfRecord(record).some((changed) => isSelfOrInside(changed, element))) {
    return true;
  }
  for (const controlled of controlledElements) {
    if (isSelfOrInside(controlled, node)) return true;
    if (record.type === "childList" && nodesOfRecord(record).some((changed) => isSelfOrInside(changed, controlled))) {
      return true;
    }
  }
  return false;
}

/**
 * Splits mutation records into "local to the target" and a count of the others.
 * @param {MutationRecord[]} records
 * @param {Element} element
 * @param {Element[]} controlledElements
 */
export function classifyMutations(records, element, controlledElements) {
  let local = false;
  let elsewhere = 0;
  for (const record of withoutMarkerRecords(records)) {
    if (isLocalMutation(record, element, controlledElements)) local = true;
    else elsewhere += 1;
  }
  return { local, elsewhere };
}

/**
 * The records that are not allwright's own marker attributes coming and going.
 * @param {MutationRecord[]} records
 */
export function withoutMarkerRecords(records) {
  return records.filter((record) => !isMarkerRecord(record));
}

/** The elements that aria-controls names, now (a popup may be created by the action itself). */
export const controlledBy = (/** @type {Element} */ element) =>
  element.hasAttribute("aria-controls") ? elementsByIdList(element, "aria-controls") : [];

/**
 * The target's semantic state: the ARIA states above, and `checked` / `open` properties.
 * @param {Element} element
 */
export function semanticState(element) {
  /** @type {Record<string, string|boolean|null>} */
  const state = {};
  for (const attribute of SEMANTIC_STATE_ATTRIBUTES) state[attribute] = element.getAttribute(attribute);
  // Native toggles change a property without any attribute: a checkbox's checkedness, an open
  // details or dialog.
  state.checked = element.localName === "input" ? Boolean(/** @type {HTMLInputElement} */ (element).checked) : null;
  state.open =
    element.localName === "details" || element.localName === "dialog"
      ? Boolean(/** @type {HTMLDetailsElement|HTMLDialogElement} */ (element).open)
      : null;
  return state;
}

/**
 * `semantic_state:<name>` for every state that differs.
 * @param {Record<string, unknown>} before
 * @param {Record<string, unknown>} after
 */
export function semanticStateChanges(before, after) {
  return Object.keys(before)
    .filter((key) => before[key] !== after[key])
    .map((key) => `semantic_state:${key}`);
}

/**
 * The target's appearance, whose deferred changes observe_click reports as hints only.
 * @param {Element} element
 */
export function targetAppearance(element) {
  return {
    name: [
      element.getAttribute("aria-label"),
      element.getAttribute("title"),
      normalizeText(element.textContent).slice(0, 500),
    ].join("\u0000"),
    class: element.getAttribute("class"),
    style: element.getAttribute("style"),
    children: element.childNodes.length,
  };
}

/**
 * dom_quiet: waits until the page's DOM has had no mutation for `quietMs`, at most `timeoutMs`.
 * @param {{quietMs?: number, timeoutMs?: number}} args
 */
export async function domQuiet(args) {
  const quietMs = args.quietMs ?? 500;
  const timeoutMs = args.timeoutMs ?? 10_000;
  const started = performance.now();
  let lastMutation = started;
  let mutations = 0;
  const observer = new MutationObserver((records) => {
    mutations += records.length;
    lastMutation = performance.now();
  });
  observer.observe(document, OBSERVE_EVERYTHING);
  try {
    for (;;) {
      const now = performance.now();
      if (now - lastMutation >= quietMs) return { quiet: true, waitedMs: Math.round(now - started), mutations };
      if (now - started >= timeoutMs) return { quiet: false, waitedMs: Math.round(now - started), mutations };
      const untilQuiet = lastMutation + quietMs - now;
      const untilTimeout = started + timeoutMs - now;
      await delay(Math.max(1, Math.min(untilQuiet, untilTimeout)));
      // Records still queued (their callback not yet run) are mutations too.
      const pending = observer.takeRecords();
      if (pending.length > 0) {
        mutations += pending.length;
        lastMutation = performance.now();
      }
    }
  } finally {
    observer.disconnect();
  }
}

/**
 * Whether an animation or transition of the document is running (Web Animations'
 * `Document.getAnimations`, which lists CSS animations and transitions too): a popup still
 * moving after a click is not settled (observe_click, `animating`).
 */
export function animationRunning() {
  try {
    return document.getAnimations().some((animation) => animation.playState === "running");
  } catch {
    return false;
  }
}
