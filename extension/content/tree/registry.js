// @ts-check
// The ref_id registry: `ref_N` -> the element it was issued for, held through WeakRefs so that
// the registry never keeps a removed element alive (ARCHITECTURE.md, "Invariants"), plus the
// page-visible names the browser tests read in the content script's world: `__wbElementMap`,
// `__wbRefCounter`, `__wb_ax_lookup`, `__wb_ax_release`, `__wb_ax_suggest`.

import "../../shared/messages.js";

/**
 * `ref_N` -> WeakRef to the element (long-lived single-page apps would leak otherwise).
 * @type {Record<string, WeakRef<Element>>}
 */
const elementMap = Object.create(null);
/** Element -> N of its `ref_N`, so that an element keeps its reference across builds. */
const refNumbers = /** @type {WeakMap<Element, number>} */ (new WeakMap());

const win = /** @type {any} */ (window);

/**
 * This document's random name, made once per content-script world: the background records which
 * document printed which ref numbers, and a frame that navigated has a new document and a new
 * name, so its old refs answer ref_not_found rather than ref_in_other_frame (docs/protocol/frames.md,
 * "Frames"). Never shown to the page. (crypto.getRandomValues rather than randomUUID, which
 * insecure http pages do not offer.)
 */
const DOCUMENT_TOKEN = Array.from(crypto.getRandomValues(new Uint8Array(16)), (byte) =>
  byte.toString(16).padStart(2, "0"),
).join("");

/** This document's random name (see DOCUMENT_TOKEN). */
export function documentToken() {
  return DOCUMENT_TOKEN;
}

/**
 * Publishes the registry on this world's `window`. Called once per world by the entry point: a
 * second injection of the content scripts keeps the first registry.
 */
export function installRegistry() {
  win.__wbElementMap = elementMap;
  // The last N handed out; the next reference is `ref_{N + 1}`.
  win.__wbRefCounter = 0;
  win.__wb_ax_lookup = lookup;
  win.__wb_ax_release = release;
  win.__wb_ax_suggest = suggest;
}

/** The last N handed out (the page-visible counter, repaired when something overwrote it). */
export function refCounter() {
  const counter = win.__wbRefCounter;
  return Number.isSafeInteger(counter) && counter >= 0 && counter < 0xffffffff ? counter : 0;
}

/**
 * The N of an element's `ref_N`, or undefined when it has none.
 * @param {Element} element
 */
export function refNumberOf(element) {
  writePendingRegistrations();
  return refNumbers.get(element);
}

/**
 * Registrations not yet written into the maps: `[nodeList, newRefs, counter]` of each build.
 * @type {Array<[Node[], number[], number]>}
 */
let pendingRegistrations = [];

/**
 * Registers the elements a build gave new references, numbered after `counter` in order.
 *
 * The counter moves at once; the maps are written in a task of their own, after the read's reply
 * has gone (a first read of a large page hands out thousands of references, about 10 ms on code
 * the document has not run before: docs/performance/strict-csp.md, "The cold read's steps"), or
 * before, by whatever reads the registry first (every function of this module does). The
 * gathered nodes are held until then, for that one task: the registry still pins nothing.
 * @param {Node[]} nodeList the gathered nodes, by index
 * @param {number[]} newRefs indices into nodeList
 * @param {number} counter the counter before the build
 */
export function registerNewRefs(nodeList, newRefs, counter) {
  if (newRefs.length === 0) return;
  if (pendingRegistrations.length === 0) setTimeout(writePendingRegistrations, 0);
  pendingRegistrations.push([nodeList, newRefs, counter]);
  win.__wbRefCounter = counter + newRefs.length;
}

/**
 * Writes the registrations of registerNewRefs into the maps, oldest first; nothing when none is
 * pending (every reader of the registry calls this first).
 */
function writePendingRegistrations() {
  if (pendingRegistrations.length === 0) return;
  const registrations = pendingRegistrations;
  pendingRegistrations = [];
  for (const [nodeList, newRefs, counter] of registrations) {
    let number = counter;
    for (const index of newRefs) {
      const element = nodeList[index];
      number += 1;
      if (!(element instanceof Element)) continue;
      elementMap[`ref_${number}`] = new WeakRef(element);
      refNumbers.set(element, number);
    }
  }
}

/**
 * The structured error of a reference whose element is gone, with nearby live references.
 * @param {string} ref
 */
export function refNotFound(ref) {
  return globalThis.allwrightMessages.toolError(
    "ref_not_found",
    `${ref} was not found: the element is gone or the page changed.`,
    {
      hint: "Read the tree again with get_accessibility_tree and use a current ref.",
      suggestions: suggest(ref, 5),
    },
  );
}

/**
 * The live element of a reference, for an action. Throws the structured `ref_not_found` error
 * (with nearby valid refs) when the element is gone: an action must never fall back to another
 * element than the one the reference was issued for (ARCHITECTURE.md, "Invariants"). The
 * background validated the reference's form already.
 * @param {string} ref
 * @returns {Element}
 */
export function resolveRef(ref) {
  const element = lookup(ref);
  if (element === null) throw refNotFound(ref);
  return element;
}

/**
 * The live element of a reference, or null when it was released, collected or removed.
 * @param {unknown} ref
 * @returns {Element | null}
 */
export function lookup(ref) {
  if (typeof ref !== "string") return null;
  writePendingRegistrations();
  const element = elementMap[ref]?.deref();
  return element !== undefined && element.isConnected ? element : null;
}

/**
 * Forgets a reference. Returns whether it existed.
 * @param {unknown} ref
 */
function release(ref) {
  writePendingRegistrations();
  if (typeof ref !== "string" || !(ref in elementMap)) return false;
  const element = elementMap[ref].deref();
  if (element !== undefined && refNumbers.get(element) === Number(ref.slice(4))) {
    refNumbers.delete(element);
  }
  delete elementMap[ref];
  return true;
}

/**
 * Up to `count` live references nearest to `ref`. References are numbered in tree order as
 * builds meet new elements, so the numerically nearest live ones are mostly the stale
 * element's neighbours on the page (or its replacement, re-rendered nearby).
 * @param {unknown} ref
 * @param {number} [count]
 * @returns {string[]}
 */
export function suggest(ref, count = 5) {
  writePendingRegistrations();
  const limit = Number.isSafeInteger(count) && count > 0 ? Math.min(count, 50) : 5;
  const match = typeof ref === "string" ? /^ref_(\d+)$/.exec(ref) : null;
  const target = match ? Number(match[1]) : refCounter();
  /** @type {Array<[number, string]>} */
  const live = [];
  for (const key in elementMap) {
    if (key !== ref && lookup(key) !== null) {
      live.push([Math.abs(Number(key.slice(4)) - target), key]);
    }
  }
  live.sort((left, right) => left[0] - right[0]);
  return live.slice(0, limit).map(([, key]) => key);
}

/** Drops the entries whose element was collected, at the start of each build (ARCHITECTURE.md: the registry never pins elements). */
export function sweep() {
  writePendingRegistrations();
  for (const key in elementMap) {
    if (elementMap[key].deref() === undefined) delete elementMap[key];
  }
}
