// @ts-check
// The page half of get_shadow_dom and shadow_dom_query (docs/protocol/shadow-and-execute-js.md, "Shadow roots"):
//
// - read_shadow_roots and query_shadow_roots read the shadow trees a content script can enter,
//   the open ones (`element.shadowRoot`). Closed roots are only detected, never entered: the
//   background uses this path where the browser gives it no other (Firefox), and the answer names
//   every closed host it skipped, or fails with closed_shadow_root_unreachable when nothing else
//   was asked for.
// - mark_shadow_host and unmark_shadow_host let the background find a ref's element in the
//   Chrome DevTools Protocol's node tree: the element gets a short-lived random attribute, which
//   the background looks for in DOM.getDocument's answer, then removes.

import {
  boundedPath,
  describeMatch,
  MatchCollector,
  outlineOf,
  PATH_SEPARATOR,
  pathInTree,
  shadowRootsUnder,
} from "../../shared/shadow-outline.js";
import { SHADOW_HOST_MARKER_ATTRIBUTE } from "../../shared/generated/marker-attributes.js";
import { isSecretField } from "../../shared/secret-fields.js";
import { thrownMessage } from "../../shared/thrown.js";

const messages = globalThis.allwrightMessages;

/** How long a marker may stay if the background never asks for its removal. */
const MARKER_LIFETIME_MS = 5_000;

/**
 * Whether an element hosts a closed shadow root: content scripts may ask (Chrome's
 * `chrome.dom.openOrClosedShadowRoot`, Firefox's `element.openOrClosedShadowRoot` property); the root is
 * detected only, never read here.
 * @param {Element} element
 */
function hostsClosedRoot(element) {
  if (element.shadowRoot !== null) return false;
  const chromeDom = /** @type {any} */ (globalThis).chrome?.dom;
  if (typeof chromeDom?.openOrClosedShadowRoot === "function") {
    return chromeDom.openOrClosedShadowRoot(element) != null;
  }
  // Firefox's is a read-only property of content scripts' elements.
  return "openOrClosedShadowRoot" in element && /** @type {any} */ (element).openOrClosedShadowRoot != null;
}

/**
 * The live DOM as a ShadowTreeReader: open roots are entered, closed ones reported with no root.
 * @type {import("../../shared/shadow-outline.js").ShadowTreeReader<Node> &
 *   {attributeEntries: (node: Node) => Array<[string, string]>}}
 */
const liveDom = {
  kind: (node) =>
    node.nodeType === Node.ELEMENT_NODE
      ? "element"
      : node.nodeType === Node.TEXT_NODE || node.nodeType === Node.CDATA_SECTION_NODE
        ? "text"
        : "other",
  localName: (node) => /** @type {Element} */ (node).localName ?? "",
  attribute: (node, name) => /** @type {Element} */ (node).getAttribute?.(name) ?? null,
  attributeEntries: (node) =>
    Array.from(/** @type {Element} */ (node).attributes ?? [], (attribute) => [attribute.name, attribute.value]),
  children: (node) => node.childNodes,
  parent: (node) => node.parentNode,
  shadowRoot: (node) => {
    const element = /** @type {Element} */ (node);
    if (element.shadowRoot) return { root: element.shadowRoot, mode: "open" };
    return hostsClosedRoot(element) ? { root: null, mode: "closed" } : null;
  },
  text: (node) => /** @type {CharacterData} */ (node).data,
  secretField: (node) => node.nodeType === Node.ELEMENT_NODE && isSecretField(/** @type {Element} */ (node)),
};

/**
 * The path of an element from the document, crossing shadow roots: each tree's CSS path, joined
 * with PATH_SEPARATOR.
 * @param {Element} element
 */
function composedPath(element) {
  /** @type {string[]} */
  const parts = [];
  /** @type {Element | null} */
  let current = element;
  while (current !== null) {
    parts.push(pathInTree(liveDom, current));
    const root = current.getRootNode();
    current = root instanceof ShadowRoot ? root.host : null;
  }
  return boundedPath(parts.reverse().join(PATH_SEPARATOR));
}

/**
 * @param {string[]} paths the paths of the hosts whose closed roots could not be entered
 * @param {string} hint
 */
function closedRootError(paths, hint) {
  return messages.toolError(
    "closed_shadow_root_unreachable",
    `closed shadow roots are not reachable in Firefox: ${paths.slice(0, 10).join(", ")}${paths.length > 10 ? ` and ${paths.length - 10} more` : ""}`,
    { hint },
  );
}

const CLOSED_HINT =
  "A content script cannot enter a closed shadow root in this browser. Read the component through the ordinary tree (get_accessibility_tree), which shows what the page exposes, or use Chrome.";

/**
 * The roots a call covers: the ref's host's own root and those nested in it, or every root of
 * the document. Fails when the ref names no host, or a host whose root is closed.
 * @param {{ref_id?: string}} args
 * @param {{resolveRef: (ref: string) => Element}} ax
 */
function rootsInScope(args, ax) {
  if (args.ref_id === undefined) return { roots: shadowRootsUnder(liveDom, document), host: null };
  const host = ax.resolveRef(args.ref_id);
  const shadow = liveDom.shadowRoot(host);
  const path = composedPath(host);
  if (shadow === null) {
    throw messages.toolError("not_a_shadow_host", `${args.ref_id} (${path}) has no shadow root`, {
      hint: "Pass the ref of the component's host element, or leave ref_id out to see every shadow host of the page.",
    });
  }
  if (shadow.root === null) throw closedRootError([path], CLOSED_HINT);
  const own = { host, path, mode: shadow.mode, root: shadow.root, nested: false };
  return { roots: [own, ...shadowRootsUnder(liveDom, shadow.root, path + PATH_SEPARATOR)], host };
}

/**
 * read_shadow_roots({ref_id?, maxChars}): `{hosts: [{host, mode, outline}], truncated,
 * skippedClosedHosts?}`. Without ref_id, `hosts` lists the hosts of the document's own tree; the
 * roots nested in them are part of their outlines.
 * @param {{ref_id?: string, maxChars: number}} args
 * @param {{resolveRef: (ref: string) => Element}} ax
 */
export function readShadowRoots(args, ax) {
  const { roots } = rootsInScope(args, ax);
  const outermost = roots.filter((found) => !found.nested);
  const skipped = roots.filter((found) => found.root === null).map((found) => found.path);
  if (skipped.length > 0 && !outermost.some((found) => found.root !== null)) {
    throw closedRootError(skipped, CLOSED_HINT);
  }
  const hosts = [];
  let room = args.maxChars;
  let truncated = false;
  for (const found of outermost) {
    if (found.root === null) continue;
    if (room <= 0) {
      truncated = true;
      break;
    }
    const { outline, truncated: cut } = outlineOf(liveDom, found.root, found.mode, room);
    hosts.push({ host: found.path, mode: found.mode, outline });
    room -= outline.length + found.path.length;
    truncated ||= cut;
  }
  return { hosts, truncated, ...(skipped.length > 0 ? { skippedClosedHosts: skipped } : {}) };
}

/**
 * query_shadow_roots({selector, ref_id?}): `{matches, count, truncated, skippedClosedHosts?}`.
 * @param {{selector: string, ref_id?: string}} args
 * @param {{resolveRef: (ref: string) => Element}} ax
 */
export function queryShadowRoots(args, ax) {
  const { roots } = rootsInScope(args, ax);
  const collector = new MatchCollector();
  for (const found of roots) {
    if (found.root === null || collector.full) continue;
    let elements;
    try {
      elements = /** @type {ShadowRoot} */ (found.root).querySelectorAll(args.selector);
    } catch (error) {
      throw messages.toolError("invalid_selector", `the selector does not parse: ${thrownMessage(error)}`, {
        hint: "Pass a CSS selector such as `button.primary` or `[part=label]`.",
      });
    }
    for (const element of elements) {
      if (collector.full) break;
      collector.add(() => describeMatch(liveDom, element, found));
    }
  }
  const skipped = roots.filter((found) => found.root === null).map((found) => found.path);
  if (skipped.length > 0 && !roots.some((found) => found.root !== null)) throw closedRootError(skipped, CLOSED_HINT);
  return { ...collector.result(), ...(skipped.length > 0 ? { skippedClosedHosts: skipped } : {}) };
}

/** The markers set and not yet removed, by marker value. @type {Map<string, {element: Element, expiry: ReturnType<typeof setTimeout>}>} */
const markedHosts = new Map();

/** @param {number} byteCount */
function randomHex(byteCount) {
  const bytes = new Uint8Array(byteCount);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");
}

/**
 * @param {string} marker
 */
function removeMarker(marker) {
  const marked = markedHosts.get(marker);
  if (marked === undefined) return;
  markedHosts.delete(marker);
  clearTimeout(marked.expiry);
  if (marked.element.getAttribute(SHADOW_HOST_MARKER_ATTRIBUTE) === marker) {
    marked.element.removeAttribute(SHADOW_HOST_MARKER_ATTRIBUTE);
  }
}

/**
 * mark_shadow_host({ref_id}): `{marker, attribute, path}`. The ref's element carries
 * `data-allwright-shadow-host="<marker>"` until unmark_shadow_host or MARKER_LIFETIME_MS.
 * @param {{ref_id: string}} args
 * @param {{resolveRef: (ref: string) => Element}} ax
 */
export function markShadowHost(args, ax) {
  const element = ax.resolveRef(args.ref_id);
  const marker = randomHex(16);
  const expiry = setTimeout(() => removeMarker(marker), MARKER_LIFETIME_MS);
  markedHosts.set(marker, { element, expiry });
  element.setAttribute(SHADOW_HOST_MARKER_ATTRIBUTE, marker);
  return { marker, attribute: SHADOW_HOST_MARKER_ATTRIBUTE, path: composedPath(element) };
}

/**
 * unmark_shadow_host({marker}): `{removed}`.
 * @param {{marker: string}} args
 */
export function unmarkShadowHost(args) {
  const removed = markedHosts.has(args.marker);
  removeMarker(args.marker);
  return { removed };
}
