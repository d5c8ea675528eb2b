// @ts-check
// Incremental reads since a snapshot (docs/protocol/reading.md, "Reads since a snapshot", "Re-reading
// only the changed parts"): a MutationObserver and a few events mark what changed since the last
// read of this frame, and a read since that snapshot re-reads only the containers that hold the
// changes (the gatherer's `scope`, the core's `depthOffset`) and puts their lines into the
// snapshot's. Everything that could make such a read differ from a whole read sends it down the
// whole path instead: a change whose effects this module cannot bound is never guessed at.
//
// What bounds a change. A node's printed line depends on its own facts, its subtree, its
// ancestors (inherited styles, hidden, inert) and, sideways, on its siblings (CSS sibling
// combinators, the name fallback of an unlabelled field from the text before it, a set's
// positions) and on elements its ID references name, or that name it. So a change is re-read
// from a container above its owner's parent: the nearest element with a line whose role names
// itself and takes no name from its content (CONTAINER_ROLES), with only such containers above
// it and none of the elements whose names come from descendants (DEPENDENT_TAGS). Whole reads
// are taken when an ID reference crosses the container's edge, when style rules may change
// styles from elsewhere (`:has()`, `:empty`) or from interaction state that no mutation reports
// (`:hover`, `:focus`, ...) and such an interaction happened, when style rules were added, when
// the page has open shadow roots (their mutations are not observed here) or `aria-owns`, when
// the window was resized, a popover or animation ran, or when more than MAX_PARTS parts changed.

import { LINE_DEPTH_MASK, LINE_OVERLAY_BIT, LINE_RECORD_WIDTH } from "./snapshots.js";
import { isMarkerRecord } from "../dom/marker-attributes.js";

/**
 * Roles (as printed) whose line does not depend on their descendants' text. The core's property test
 * (crates/allwright-ax/tests/tree_diff.rs) reads this list from this file: keep it one literal Set of strings.
 */
const CONTAINER_ROLES = new Set([
  "main",
  "region",
  "navigation",
  "banner",
  "contentinfo",
  "complementary",
  "form",
  "search",
  "group",
  "list",
  "listitem",
  "article",
  "paragraph",
  "generic",
  "blockquote",
  "document",
  "feed",
  "log",
  "status",
  "note",
]);

/**
 * Elements whose own name, or whose ancestors' lines, can come from their descendants (a
 * fieldset's legend, a table's caption, a label's control, a link's or button's content, a
 * details' summary): no container is taken inside one.
 */
const DEPENDENT_TAGS = new Set([
  "a",
  "button",
  "caption",
  "details",
  "dialog",
  "fieldset",
  "figure",
  "label",
  "legend",
  "optgroup",
  "option",
  "select",
  "summary",
  "table",
  "td",
  "th",
  "tr",
  "h1",
  "h2",
  "h3",
  "h4",
  "h5",
  "h6",
]);

/** Attributes whose value names other elements by ID. */
const REFERENCE_ATTRIBUTES = [
  "aria-labelledby",
  "aria-describedby",
  "aria-details",
  "aria-errormessage",
  "aria-activedescendant",
  "aria-controls",
  "aria-flowto",
  "for",
  "form",
  "list",
  "headers",
  "popovertarget",
  "commandfor",
  // Not a name, but collected with the others so that the walk says whether the page owns
  // elements elsewhere (`ownerAtRead`), which moves lines: no read of parts then.
  "aria-owns",
];
const REFERENCE_SELECTOR = REFERENCE_ATTRIBUTES.map((name) => `[${name}]`).join(",");

/** What the observer watches: everything a line may print. */
const OBSERVED = { subtree: true, childList: true, attributes: true, attributeOldValue: true, characterData: true };

/** More changed parts than this and a whole read is cheaper to get right. */
const MAX_PARTS = 8;
/** More mutation records than this between two reads: a whole read. */
const MAX_RECORDS = 2000;

/** Events after which this module cannot bound what changed. */
const UNBOUNDED_EVENTS = ["resize", "toggle", "animationstart", "animationend", "transitionrun", "transitionend"];
/** Interaction events that change `:hover`, `:focus` and the like without a mutation. */
const INTERACTION_EVENTS = ["pointerover", "pointerout", "mouseover", "mouseout", "focusin", "focusout", "hashchange"];

/**
 * Elements kept without keeping them alive: the notes between two reads must not pin elements
 * the page removed (a single-page app's old views), as the registry never does. An element
 * that left the document is dropped when the list has doubled since it was last pruned, so
 * that reads of only the changed parts add to it without a pass over the whole list each time
 * (about 1 ms at 10k elements, docs/performance.md) and without growing for ever.
 */
class WeakElements {
  constructor() {
    /** @type {WeakSet<Element>} */
    this.members = new WeakSet();
    /** @type {WeakRef<Element>[]} */
    this.references = [];
    this.keptAtLastPrune = 0;
  }

  /** @param {Element} element */
  add(element) {
    if (this.members.has(element)) return;
    this.members.add(element);
    this.references.push(new WeakRef(element));
    if (this.references.length > 2 * Math.max(PRUNE_FLOOR, this.keptAtLastPrune)) this.prune();
  }

  /** @param {Element} element */
  has(element) {
    return this.members.has(element);
  }

  /** Empties the list; it prunes again once settled (after the whole page was recorded). */
  clear() {
    this.members = new WeakSet();
    this.references = [];
    this.keptAtLastPrune = Number.POSITIVE_INFINITY;
  }

  /** The list as it is now is the measure of its next prune. */
  settle() {
    this.keptAtLastPrune = this.references.length;
  }

  /** Drops the elements collected or out of the document (one that comes back is added again by the read of its part). */
  prune() {
    this.references = this.references.filter((reference) => {
      const element = reference.deref();
      if (element === undefined) return false;
      if (element.isConnected) return true;
      this.members.delete(element);
      return false;
    });
    this.keptAtLastPrune = this.references.length;
  }

  /** The elements still alive. */
  *[Symbol.iterator]() {
    for (const reference of this.references) {
      const element = reference.deref();
      if (element !== undefined) yield element;
    }
  }
}

/** The least size a WeakElements list prunes at. */
const PRUNE_FLOOR = 64;

/**
 * The form controls at the last read and the state a line may print of each (controlState),
 * side by side: every read since a snapshot compares them all, since a script may set a value
 * without any event, and plain arrays keep that pass to a loop (no generator, no WeakMap
 * lookup per control). Held weakly, pruned as WeakElements is.
 */
class ControlStates {
  constructor() {
    /** @type {WeakMap<Element, number>} control -> its index in the two arrays */
    this.indices = new WeakMap();
    /** @type {WeakRef<Element>[]} */
    this.references = [];
    /** @type {string[]} */
    this.states = [];
    this.keptAtLastPrune = 0;
  }

  /** @param {Element} control */
  record(control) {
    const state = controlState(control);
    const index = this.indices.get(control);
    if (index !== undefined) {
      this.states[index] = state;
      return;
    }
    this.indices.set(control, this.references.length);
    this.references.push(new WeakRef(control));
    this.states.push(state);
    if (this.references.length > 2 * Math.max(PRUNE_FLOOR, this.keptAtLastPrune)) this.prune();
  }

  /** Empties the list; it prunes again once settled (after the whole page was recorded). */
  clear() {
    this.indices = new WeakMap();
    this.references = [];
    this.states = [];
    this.keptAtLastPrune = Number.POSITIVE_INFINITY;
  }

  /** The list as it is now is the measure of its next prune. */
  settle() {
    this.keptAtLastPrune = this.references.length;
  }

  /** Drops the controls collected or out of the document, and renumbers the others. */
  prune() {
    const references = this.references;
    const states = this.states;
    this.clear();
    for (let index = 0; index < references.length; index += 1) {
      const control = references[index].deref();
      if (control === undefined || !control.isConnected) continue;
      this.indices.set(control, this.references.length);
      this.references.push(references[index]);
      this.states.push(states[index]);
    }
    this.keptAtLastPrune = this.references.length;
  }

  /**
   * Adds to `owners` the controls in the document whose state differs from the one recorded.
   * @param {Set<Element>} owners
   */
  addChanged(owners) {
    const { references, states } = this;
    for (let index = 0; index < references.length; index += 1) {
      const control = references[index].deref();
      if (control !== undefined && control.isConnected && controlState(control) !== states[index]) owners.add(control);
    }
  }
}

const tracker = {
  started: false,
  /** Elements whose own state, attributes or children changed. */
  owners: new WeakElements(),
  /** Of `owners`, those whose change was their children's. */
  childListOwners: new WeakElements(),
  records: 0,
  unbounded: false,
  interaction: false,
  /** Form controls at the last read, and their state then. */
  controls: new ControlStates(),
  /** Custom elements not yet defined at the last read. */
  undefinedElements: new WeakElements(),
  /**
   * ID -> the elements that named it at the last read. An entry may outlive what it says (its
   * element left the document, or no longer names the ID) until the next whole read or prune:
   * such an entry can only send a read down the whole path, never hide a change
   * (referencesStayInside).
   * @type {Map<string, WeakRef<Element>[]>}
   */
  referrers: new Map(),
  /** How many referrer entries the index held after its last whole build or prune, and holds now. */
  referrersAtLastPrune: 0,
  referrerEntries: 0,
  /** Whether an element named owned elements (`aria-owns`) at the last read. */
  ownerAtRead: false,
  /** @type {WeakMap<Element, string[]>} Element -> the IDs it is indexed under in `referrers`. */
  namedBy: new WeakMap(),
  ruleCount: -1,
  /** @type {MutationObserver | null} */
  observer: null,
};

/**
 * Notes what mutation records say changed.
 * @param {MutationRecord[]} records
 */
function noteMutations(records) {
  if (tracker.unbounded) return;
  tracker.records += records.length;
  // Past this many the next read is a whole one anyway: keep nothing more (a page that streams
  // changes between two reads must not grow this module's memory).
  if (tracker.records > MAX_RECORDS) {
    tracker.unbounded = true;
    tracker.owners.clear();
    tracker.childListOwners.clear();
    return;
  }
  for (const record of records) {
    // allwright's own markers change no line (dom/marker-attributes.js): the bridge's tab
    // marker coming off the document element 5 s after a mapping sent a read down the whole
    // path.
    if (isMarkerRecord(record)) continue;
    if (record.type === "characterData") {
      const parent = record.target.parentElement;
      if (parent !== null) tracker.owners.add(parent);
    } else if (record.target instanceof Element) {
      tracker.owners.add(record.target);
      if (record.type === "childList") {
        tracker.childListOwners.add(record.target);
        noteReferrersOfRemoved(record.removedNodes);
      } else if (record.attributeName === "id" && record.oldValue !== null) {
        noteReferrersOf(record.oldValue);
      }
    } else {
      // The document's own children changed.
      tracker.unbounded = true;
    }
  }
}

/**
 * Marks as changed the elements that named this ID at the last read and are still in the
 * document: the element that carried it has gone or taken another ID, so what they take from it
 * (a name, a description, a role) changes wherever they are, which the parts around the
 * mutation may not hold. (An element's new ID is in the document to be found:
 * referencesStayInside.)
 * @param {string} id
 */
function noteReferrersOf(id) {
  for (const reference of tracker.referrers.get(id) ?? []) {
    const referrer = reference.deref();
    if (referrer !== undefined && referrer.isConnected) tracker.owners.add(referrer);
  }
}

/**
 * Whether an element in the document takes its name or description from the text of the
 * element with this ID (accname 1.2, step 2B: aria-labelledby and aria-describedby take the
 * text of the whole subtree they name).
 * @param {string} id
 */
function isNamedByItsText(id) {
  return (tracker.referrers.get(id) ?? []).some((reference) => {
    const referrer = reference.deref();
    if (referrer === undefined || !referrer.isConnected) return false;
    return TEXT_REFERENCE_ATTRIBUTES.some((name) => (referrer.getAttribute(name) ?? "").split(/\s+/).includes(id));
  });
}

/** The reference attributes that take the named element's text. */
const TEXT_REFERENCE_ATTRIBUTES = ["aria-labelledby", "aria-describedby"];

/**
 * noteReferrersOf for the IDs of removed nodes and their descendants.
 * @param {NodeList} removedNodes
 */
function noteReferrersOfRemoved(removedNodes) {
  if (tracker.referrers.size === 0) return;
  for (const node of removedNodes) {
    if (!(node instanceof Element)) continue;
    if (node.id !== "") noteReferrersOf(node.id);
    for (const named of node.querySelectorAll("[id]")) noteReferrersOf(named.id);
  }
}

/** Starts watching this frame's document; once per content-script world. */
export function watchChanges() {
  if (tracker.started) return;
  tracker.started = true;
  tracker.observer = new MutationObserver(noteMutations);
  tracker.observer.observe(document, OBSERVED);
  for (const type of UNBOUNDED_EVENTS) {
    window.addEventListener(type, () => (tracker.unbounded = true), { capture: true, passive: true });
  }
  for (const type of INTERACTION_EVENTS) {
    window.addEventListener(type, () => (tracker.interaction = true), { capture: true, passive: true });
  }
  // Form state changes without a mutation (typing, a checkbox), and a script may set a value
  // without any event: both are found by comparing the controls' state with the last read's.
  for (const type of ["input", "change"]) {
    window.addEventListener(
      type,
      (event) => {
        if (event.target instanceof Element) tracker.owners.add(event.target);
      },
      { capture: true, passive: true },
    );
  }
}

const FORM_CONTROLS = "input, textarea, select";

/**
 * The state of a form control that a line may print: checked and mixed for checkboxes and
 * radios, the value for other fields.
 * @param {Element} control
 */
function controlState(control) {
  if (control instanceof HTMLInputElement) {
    const type = control.type;
    if (type === "checkbox" || type === "radio") return `${control.checked ? 1 : 0}${control.indeterminate ? 1 : 0}`;
    // Password and file values are never printed, nor kept here.
    return type === "password" || type === "file" ? "" : control.value;
  }
  if (control instanceof HTMLSelectElement) {
    return Array.from(control.selectedOptions, (option) => option.index).join(",");
  }
  return /** @type {HTMLTextAreaElement} */ (control).value;
}

/**
 * Records the state of the controls in `root` (the document, or a part just re-read).
 * @param {ParentNode} root
 */
function recordControls(root) {
  for (const control of root.querySelectorAll(FORM_CONTROLS)) tracker.controls.record(control);
}

/** How many style rules the document's sheets hold (added rules change styles silently). */
function ruleCount() {
  let count = 0;
  try {
    for (const sheet of [...document.styleSheets, ...document.adoptedStyleSheets]) count += sheet.cssRules.length;
  } catch {
    return -1;
  }
  return count;
}

/**
 * What the style rules allow: `{blocked}` when a rule may change styles from elsewhere (or the
 * rules cannot be read), `{interactionStyles}` when one depends on interaction state.
 */
function styleRisks() {
  let interactionStyles = false;
  try {
    /** @type {CSSRuleList[]} */
    const pending = [...document.styleSheets, ...document.adoptedStyleSheets].map((sheet) => sheet.cssRules);
    while (pending.length > 0) {
      for (const rule of /** @type {CSSRuleList} */ (pending.pop())) {
        if (rule instanceof CSSStyleRule) {
          const selector = rule.selectorText;
          if (selector.includes(":has(") || selector.includes(":empty")) return { blocked: true, interactionStyles };
          if (/:(hover|focus|active|checked|target|open|popover-open|modal|placeholder-shown)/.test(selector)) {
            interactionStyles = true;
          }
        }
        if (rule instanceof CSSImportRule) {
          if (rule.styleSheet !== null) pending.push(rule.styleSheet.cssRules);
        } else if ("cssRules" in rule) {
          pending.push(/** @type {CSSGroupingRule} */ (rule).cssRules);
        }
      }
    }
  } catch {
    return { blocked: true, interactionStyles };
  }
  return { blocked: false, interactionStyles };
}

/**
 * Forgets what changed: called when a read gathers the whole page, so that what is marked from
 * then on is what changed since that read.
 * @param {Element[] | null} [referrers] the light tree's elements that carry a reference
 *   attribute, when the read's walk collected them over the whole document (facts.js,
 *   `referenceAttributes`); null to query them here
 */
export function markRead(referrers = null) {
  forgetChanges();
  tracker.controls.clear();
  recordControls(document);
  tracker.controls.settle();
  tracker.undefinedElements.clear();
  for (const element of document.querySelectorAll(":not(:defined)")) tracker.undefinedElements.add(element);
  tracker.undefinedElements.settle();
  tracker.referrers.clear();
  tracker.namedBy = new WeakMap();
  tracker.referrerEntries = 0;
  tracker.ownerAtRead = false;
  if (referrers === null) indexReferrers(document);
  else for (const referrer of referrers) indexReferrer(referrer);
  tracker.referrersAtLastPrune = tracker.referrerEntries;
}

/**
 * The attributes whose value names other elements by ID, for the gatherer to collect the
 * elements that carry one (tree/facts.js, `referenceAttributes`) during the walk every read makes:
 * the query of indexReferrers took most of markRead's time on a large page (about 4 of 5 ms at
 * 10k elements, docs/performance.md).
 */
export const REFERENCE_ATTRIBUTE_NAMES = new Set(REFERENCE_ATTRIBUTES);

/**
 * The same after a read that re-read only these parts: the state kept of the rest of the page
 * is still right, since nothing else changed.
 * @param {ChangedPart[]} parts
 */
export function markPartsRead(parts) {
  forgetChanges();
  // The parts' referrers are indexed again as they are now (indexReferrer replaces an
  // element's entries). The rest of the index stays: this pass is over the parts, not the
  // page (a pass over every entry and control took 1-3 ms of each such read at 10k elements).
  for (const part of parts) {
    const container = part.element;
    // The container may name IDs itself: querySelectorAll finds its descendants only.
    if (container.matches(REFERENCE_SELECTOR)) indexReferrer(container);
    indexReferrers(container);
    recordControls(container);
    for (const element of container.querySelectorAll(":not(:defined)")) tracker.undefinedElements.add(element);
  }
  if (tracker.referrerEntries > 2 * Math.max(PRUNE_FLOOR, tracker.referrersAtLastPrune)) pruneReferrers();
}

/**
 * Makes the next read since a snapshot a whole one: for a read that marked its parts read
 * (markPartsRead) and then kept no snapshot of them, so that what changed before it is not
 * taken as read.
 */
export function forgetWhatChanged() {
  tracker.unbounded = true;
}

function forgetChanges() {
  // Records not yet delivered are of mutations before this read: dropped. Disconnecting (rather
  // than takeRecords) also ends the transient registrations the DOM keeps on removed nodes until
  // the next delivery (DOM standard, "transient registered observers"), which in Chromium kept a
  // removed view alive after the last read (measured: the registry then held a route's elements
  // after 1,000 route changes, bench --memory).
  if (tracker.observer !== null) {
    tracker.observer.disconnect();
    tracker.observer.observe(document, OBSERVED);
  }
  tracker.owners.clear();
  tracker.childListOwners.clear();
  tracker.records = 0;
  tracker.unbounded = false;
  tracker.interaction = false;
  tracker.ruleCount = ruleCount();
}

/**
 * A part to re-read: a container element and where its lines are in the snapshot.
 * @typedef {{element: Element, start: number, end: number, depth: number}} ChangedPart
 */

/**
 * The parts that changed since the last read, or null when they cannot be bounded (a whole read
 * is then needed). `snapshot` is that read's: its line records, its printed lines and the
 * identity of each line's node.
 * @param {{records: Uint32Array, texts: string[], positionOf: (element: Element) => number | undefined}} snapshot
 * @returns {ChangedPart[] | null}
 */
export function changedParts(snapshot) {
  if (!tracker.started) return null;
  // Mutations made just before this read may not have been delivered yet.
  noteMutations(tracker.observer?.takeRecords() ?? []);
  if (tracker.unbounded || tracker.records > MAX_RECORDS) return null;
  if (ruleCount() !== tracker.ruleCount) return null;
  // An upgrade may attach a shadow root, which no mutation record reports.
  for (const element of tracker.undefinedElements) {
    if (element.isConnected && element.matches(":defined")) return null;
  }
  const risks = styleRisks();
  if (risks.blocked || (risks.interactionStyles && tracker.interaction)) return null;
  if (tracker.ownerAtRead) return null;
  const owners = new Set(tracker.owners);
  // Controls added since come with a mutation; those already there may change without one.
  tracker.controls.addChanged(owners);
  /** @type {Element[]} */
  const containers = [];
  for (const owner of owners) {
    if (!owner.isConnected) continue;
    // A container's own children changing stays inside it; anything else is re-read from the
    // owner's parent up, so that its siblings are re-read with it.
    const ownLine = snapshot.positionOf(owner);
    const start =
      tracker.childListOwners.has(owner) &&
      ownLine !== undefined &&
      CONTAINER_ROLES.has(roleOf(snapshot.texts[ownLine]))
        ? owner
        : owner.parentElement;
    const container = containerOf(start, snapshot);
    if (container === null) return null;
    containers.push(container);
  }
  // The outermost containers only.
  const outermost = containers.filter(
    (container, index) =>
      !containers.some((other, otherIndex) => other !== container && other.contains(container)) &&
      containers.indexOf(container) === index,
  );
  if (outermost.length > MAX_PARTS) return null;
  if (!referencesStayInside(outermost)) return null;
  /** @type {ChangedPart[]} */
  const parts = [];
  for (const element of outermost) {
    const start = /** @type {number} */ (snapshot.positionOf(element));
    const depthField = snapshot.records[start * LINE_RECORD_WIDTH + 1];
    if ((depthField & LINE_OVERLAY_BIT) !== 0) return null;
    const depth = depthField & LINE_DEPTH_MASK;
    let end = start + 1;
    while (
      end * LINE_RECORD_WIDTH < snapshot.records.length &&
      (snapshot.records[end * LINE_RECORD_WIDTH + 1] & LINE_DEPTH_MASK) > depth
    )
      end += 1;
    parts.push({ element, start, end, depth });
  }
  return parts.sort((first, second) => first.start - second.start);
}

/** The role word a printed line starts with. */
function roleOf(/** @type {string} */ line) {
  return line.trimStart().split(" ", 1)[0];
}

/**
 * The nearest element from `start` up that the snapshot printed as a container, with only
 * containers printed above it and no DEPENDENT_TAGS element above it; null when there is none.
 * @param {Element | null} start
 * @param {{texts: string[], positionOf: (element: Element) => number | undefined}} snapshot
 */
function containerOf(start, snapshot) {
  /** @type {Element | null} */
  let container = null;
  for (let element = start; element !== null; element = element.parentElement) {
    const line = snapshot.positionOf(element);
    if (container === null) {
      if (line !== undefined && CONTAINER_ROLES.has(roleOf(snapshot.texts[line]))) container = element;
      continue;
    }
    if (DEPENDENT_TAGS.has(element.localName)) return null;
    if (line !== undefined && !CONTAINER_ROLES.has(roleOf(snapshot.texts[line]))) return null;
  }
  return container;
}

/**
 * The IDs each element names through REFERENCE_ATTRIBUTES.
 * @param {Element} referrer
 * @returns {string[]}
 */
function namedIds(referrer) {
  const ids = [];
  for (const name of REFERENCE_ATTRIBUTES) {
    const value = referrer.getAttribute(name);
    if (value === null) continue;
    for (const id of value.split(/\s+/)) if (id !== "") ids.push(id);
  }
  return ids;
}

/**
 * Indexes the elements of `root` that name IDs: ID -> who names it (as WeakRefs: the index must
 * not pin removed elements).
 * @param {ParentNode} root
 */
function indexReferrers(root) {
  for (const referrer of root.querySelectorAll(REFERENCE_SELECTOR)) indexReferrer(referrer);
}

/**
 * Indexes one element that carries one of REFERENCE_ATTRIBUTES, in place of what the index
 * held of it.
 * @param {Element} referrer
 */
function indexReferrer(referrer) {
  if (tracker.namedBy.has(referrer)) forgetReferrer(referrer);
  const ids = namedIds(referrer);
  tracker.namedBy.set(referrer, ids);
  if (referrer.hasAttribute("aria-owns")) tracker.ownerAtRead = true;
  const reference = new WeakRef(referrer);
  for (const id of ids) {
    const referrers = tracker.referrers.get(id);
    if (referrers === undefined) tracker.referrers.set(id, [reference]);
    else referrers.push(reference);
  }
  tracker.referrerEntries += ids.length;
}

/**
 * Drops an element's entries from the index.
 * @param {Element} referrer
 */
function forgetReferrer(referrer) {
  for (const id of tracker.namedBy.get(referrer) ?? []) {
    const referrers = tracker.referrers.get(id);
    if (referrers === undefined) continue;
    const kept = referrers.filter((reference) => reference.deref() !== referrer);
    tracker.referrerEntries -= referrers.length - kept.length;
    if (kept.length === 0) tracker.referrers.delete(id);
    else tracker.referrers.set(id, kept);
  }
  tracker.namedBy.delete(referrer);
}

/** Drops the index's entries whose element was collected or left the document. */
function pruneReferrers() {
  let entries = 0;
  for (const [id, referrers] of tracker.referrers) {
    const kept = referrers.filter((reference) => {
      const referrer = reference.deref();
      if (referrer === undefined) return false;
      if (referrer.isConnected) return true;
      tracker.namedBy.delete(referrer);
      return false;
    });
    entries += kept.length;
    if (kept.length === 0) tracker.referrers.delete(id);
    else tracker.referrers.set(id, kept);
  }
  tracker.referrerEntries = entries;
  tracker.referrersAtLastPrune = entries;
}

/**
 * Whether no ID reference crosses the edge of the containers: nothing inside names an element
 * outside, and nothing outside names an element inside. Inside, the containers are read now;
 * outside, the index of the last read is still right, since an element outside that changed
 * would be inside a container of this read.
 * @param {Element[]} containers
 */
function referencesStayInside(containers) {
  const home = (/** @type {Element} */ element) => containers.find((container) => container.contains(element));
  for (const container of containers) {
    // A name or description taken from an ancestor's text holds the container's text too.
    for (let ancestor = container.parentElement; ancestor !== null; ancestor = ancestor.parentElement) {
      if (ancestor.id !== "" && isNamedByItsText(ancestor.id)) return false;
    }
    for (const referrer of [container, ...container.querySelectorAll(REFERENCE_SELECTOR)]) {
      // Owned elements move lines out of their place in the DOM: never a read of parts.
      if (referrer.hasAttribute("aria-owns")) return false;
      for (const id of namedIds(referrer)) {
        const target = document.getElementById(id);
        if (target !== null && !container.contains(target)) return false;
      }
    }
    for (const named of [container, ...container.querySelectorAll("[id]")]) {
      for (const reference of tracker.referrers.get(named.id) ?? []) {
        const referrer = reference.deref();
        if (referrer === undefined || !referrer.isConnected || home(referrer) !== undefined) continue;
        return false;
      }
    }
  }
  return true;
}
