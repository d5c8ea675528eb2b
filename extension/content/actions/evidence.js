// @ts-check
// Evidence and observation: what changed around a target after an action (docs/protocol.md,
// "Action results"). Local mutations and semantic state count as progress; mutations elsewhere
// are hints only. dom_quiet, the page half of wait_for_stable, also lives here.

import { elementsByIdList, isSelfOrInside } from "../dom/shadow.js";
import { normalizeText } from "./element.js";
import { delay } from "./timing.js";

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
 * Observes the document and every shadow root between it and the element: a document-wide
 * observer does not see inside shadow trees.
 */
export function observeAroundElement(observer, element) {
  observer.observe(document, OBSERVE_EVERYTHING);
  for (
    let root = element.getRootNode();
    root.nodeType === Node.DOCUMENT_FRAGMENT_NODE && root.host;
    root = root.host.getRootNode()
  ) {
    observer.observe(root, OBSERVE_EVERYTHING);
  }
}

/**
 * A mutation observer that collects records until `finish()`; for actions whose evidence is
 * read once, a little after acting.
 */
export function startMutationWindow(element) {
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

export const nodesOfRecord = (record) => [...record.addedNodes, ...record.removedNodes];

/**
 * Whether a mutation is local to the target, as docs/protocol.md ("Action results") defines it:
 * the target itself or its subtree, a direct attribute change of one of its ancestors, or what
 * its aria-controls names (including that element being inserted or removed).
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

/** Splits mutation records into "local to the target" and a count of the others. */
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
 * The attributes allwright itself sets for a moment (`data-allwright-tab` on the document
 * element, `data-allwright-input` on a target: docs/protocol.md, "The browser bridge") start
 * with this. Their changes are allwright's own, never evidence of the page's reaction.
 */
export const MARKER_ATTRIBUTE_PREFIX = "data-allwright-";

/**
 * The records that are not allwright's own marker attributes coming and going.
 * @param {MutationRecord[]} records
 */
export function withoutMarkerRecords(records) {
  return records.filter(
    (record) => !(record.type === "attributes" && record.attributeName?.startsWith(MARKER_ATTRIBUTE_PREFIX)),
  );
}

/** The elements that aria-controls names, now (a popup may be created by the action itself). */
export const controlledBy = (element) =>
  element.hasAttribute("aria-controls") ? elementsByIdList(element, "aria-controls") : [];

/** The target's semantic state: the ARIA states above, and `checked` / `open` properties. */
export function semanticState(element) {
  const state = {};
  for (const attribute of SEMANTIC_STATE_ATTRIBUTES) state[attribute] = element.getAttribute(attribute);
  // Native toggles change a property without any attribute: a checkbox's checkedness, an open
  // details or dialog.
  state.checked = element.localName === "input" ? Boolean(element.checked) : null;
  state.open = element.localName === "details" || element.localName === "dialog" ? Boolean(element.open) : null;
  return state;
}

/** `semantic_state:<name>` for every state that differs. */
export function semanticStateChanges(before, after) {
  return Object.keys(before)
    .filter((key) => before[key] !== after[key])
    .map((key) => `semantic_state:${key}`);
}

/** The target's appearance, whose deferred changes observe_click reports as hints only. */
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
