// @ts-check
// "ai" mode references of the structured snapshot (docs/protocol/channels.md, section 3): the `aria-ref`
// attributes this script sets, the only page-visible writes the content scripts make
// (ARCHITECTURE.md, "Invariants"), and what the gatherer tells the core of earlier captures.

/**
 * Element -> its "ai" reference and the role/name key it was given for.
 * @type {WeakMap<Element, {reference: string, key: string}>}
 */
const ariaRefs = new WeakMap();
/**
 * Elements that carry an `aria-ref` this script set, from the last "ai" capture.
 * @type {WeakRef<Element>[]}
 */
let ariaAssigned = [];
let ariaCounter = 0;

/** The counter the next "ai" capture starts from. */
export function ariaRefCounter() {
  return ariaCounter;
}

/**
 * Records the counter the core reached in a capture.
 * @param {number} counter
 */
export function setAriaRefCounter(counter) {
  ariaCounter = counter;
}

/**
 * The "ai" reference an element was given in an earlier capture, if any.
 * @param {Element} element
 */
export function knownAriaRef(element) {
  return ariaRefs.get(element);
}
/** @type {string | null} */
let ariaPrefix = null;

/**
 * A random prefix per document, so that references are unique across the documents of one
 * snapshot; a new document (navigation) gets a new script instance and so a new registry.
 */
export function documentPrefix() {
  if (ariaPrefix === null) {
    const bytes = crypto.getRandomValues(new Uint8Array(5));
    ariaPrefix = `${Array.from(bytes, (byte) => (byte % 36).toString(36)).join("")}-`;
  }
  return ariaPrefix;
}

/**
 * Sets `aria-ref` on every referenced element and removes the attributes this script set in
 * the previous capture on elements that are no longer referenced, so that a page never keeps a
 * stale reference this script assigned.
 * @param {Node[]} nodeList
 * @param {Array<[number, string, string]>} assigned
 */
export function applyAriaRefs(nodeList, assigned) {
  /** @type {Set<Element>} */
  const current = new Set();
  for (const [index, reference, key] of assigned) {
    const element = nodeList[index];
    if (!(element instanceof Element)) continue;
    current.add(element);
    ariaRefs.set(element, { reference, key });
    // The collector owns aria-ref on referenced elements; unchanged values are not rewritten,
    // so the page sees no needless mutation.
    if (element.getAttribute("aria-ref") !== reference) element.setAttribute("aria-ref", reference);
  }
  for (const weak of ariaAssigned) {
    const element = weak.deref();
    if (element === undefined || current.has(element)) continue;
    const known = ariaRefs.get(element);
    if (known !== undefined && element.getAttribute("aria-ref") === known.reference) {
      element.removeAttribute("aria-ref");
    }
  }
  ariaAssigned = Array.from(current, (element) => new WeakRef(element));
}
