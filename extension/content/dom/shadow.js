// @ts-check
// The one walker of the composed tree (DOM Standard, "shadow-including" relations): steps from a
// shadow root to its host, looks into open shadow roots (content scripts see no closed ones), and
// resolves ID references in an element's own tree. The gatherer's downward walk (tree/facts.js)
// keeps its own explicit stacks, because it carries per-node state, but uses the same rule: an
// element's open shadow root is a tree of its own, linked to its host.

/**
 * The parent node, stepping from a shadow root to its host.
 * @param {Node} node
 * @returns {Node | null}
 */
function parentAcrossShadow(node) {
  const parent = node.parentNode;
  if (parent === null) return null;
  if (parent.nodeType === Node.DOCUMENT_FRAGMENT_NODE) return /** @type {ShadowRoot} */ (parent).host ?? null;
  return parent;
}

/**
 * The parent element, or the host for the top of a shadow tree.
 * @param {Node} node
 * @returns {Element | null}
 */
export function composedParentElement(node) {
  const parent = parentAcrossShadow(node);
  return parent !== null && parent.nodeType === Node.ELEMENT_NODE ? /** @type {Element} */ (parent) : null;
}

/**
 * The parent element in the flat tree (where a slotted node is rendered), for styles.
 * @param {Node} node
 * @returns {Element | null}
 */
export function flatTreeParentElement(node) {
  const slot = /** @type {Element | Text} */ (node).assignedSlot;
  if (slot) return slot;
  return composedParentElement(node);
}

/**
 * Whether `node` is `ancestor` or lies inside it, shadow trees included.
 * @param {Node} ancestor
 * @param {Node | null} node
 */
export function isSelfOrInside(ancestor, node) {
  for (let current = node; current !== null; current = parentAcrossShadow(current)) {
    if (current === ancestor) return true;
  }
  return false;
}

/**
 * The nearest element from `element` upwards (shadow hosts included) that `predicate` accepts.
 * @param {Node} element
 * @param {(element: Element) => boolean} predicate
 * @returns {Element | null}
 */
export function closestAcrossShadow(element, predicate) {
  for (let current = /** @type {Node | null} */ (element); current !== null; current = parentAcrossShadow(current)) {
    if (current.nodeType === Node.ELEMENT_NODE && predicate(/** @type {Element} */ (current))) {
      return /** @type {Element} */ (current);
    }
  }
  return null;
}

/**
 * `querySelectorAll` that also looks inside open shadow roots; for small subtrees only.
 * @param {Element | Document | ShadowRoot} root
 * @param {string} selector
 * @returns {Element[]}
 */
export function queryAllAcrossShadow(root, selector) {
  /** @type {Element[]} */
  const found = [];
  const pending = [root];
  while (pending.length > 0) {
    const scope = /** @type {Element | Document | ShadowRoot} */ (pending.pop());
    found.push(...scope.querySelectorAll(selector));
    for (const element of scope.querySelectorAll("*")) {
      if (element.shadowRoot) pending.push(element.shadowRoot);
    }
  }
  return found;
}

/**
 * The children of a node in the flat tree (CSS Scoping, "flattened element tree"), the rule the
 * gatherer hands the core (tree/facts.js records shadow roots and slot assignments, and the core
 * renders that tree): a shadow host's children are its shadow root's, a slot's are the nodes
 * assigned to it (its own children when nothing is), and other elements keep their own.
 * @param {Node} node
 * @returns {Node[]}
 */
export function flatTreeChildren(node) {
  const element = /** @type {Element} */ (node);
  if (element.shadowRoot) return [...element.shadowRoot.childNodes];
  if (element.localName === "slot" && typeof (/** @type {HTMLSlotElement} */ (element).assignedNodes) === "function") {
    const assigned = /** @type {HTMLSlotElement} */ (element).assignedNodes();
    if (assigned.length > 0) return assigned;
  }
  return [...node.childNodes];
}

/**
 * The elements below `root` in the flat tree, in tree order, that `accept` takes; at most
 * `limit` elements are looked at. Slotted light-DOM children are found where they render (in the
 * slot of a web component's listbox), not where they are written.
 * @param {Node} root
 * @param {(element: Element) => boolean} accept
 * @param {number} [limit]
 * @returns {Element[]}
 */
export function flatTreeDescendants(root, accept, limit = 20_000) {
  /** @type {Element[]} */
  const found = [];
  const pending = flatTreeChildren(root).reverse();
  let seen = 0;
  while (pending.length > 0 && seen < limit) {
    const node = /** @type {Node} */ (pending.pop());
    if (node.nodeType !== Node.ELEMENT_NODE) continue;
    seen += 1;
    if (accept(/** @type {Element} */ (node))) found.push(/** @type {Element} */ (node));
    pending.push(...flatTreeChildren(node).reverse());
  }
  return found;
}

/**
 * The open shadow roots of a document, nested ones included, shallowest first; at most `limit`
 * of them, so that a page of many components cannot make one action slow.
 * @param {Document} document
 * @param {number} limit
 * @returns {ShadowRoot[]}
 */
export function openShadowRootsOf(document, limit) {
  /** @type {ShadowRoot[]} */
  const roots = [];
  /** @type {(Document | ShadowRoot)[]} */
  const pending = [document];
  while (pending.length > 0 && roots.length < limit) {
    const scope = /** @type {Document | ShadowRoot} */ (pending.shift());
    for (const element of scope.querySelectorAll("*")) {
      if (element.shadowRoot === null) continue;
      roots.push(element.shadowRoot);
      pending.push(element.shadowRoot);
      if (roots.length >= limit) break;
    }
  }
  return roots;
}

/**
 * The elements an IDREF list names, looked up in the element's own tree first.
 * @param {Element} element
 * @param {string} attribute
 * @returns {Element[]}
 */
export function elementsByIdList(element, attribute) {
  const ids = (element.getAttribute(attribute) ?? "").trim().split(/\s+/).filter(Boolean);
  const root = /** @type {Document | ShadowRoot} */ (element.getRootNode());
  /** @type {Element[]} */
  const found = [];
  for (const id of ids) {
    const named =
      (typeof root.getElementById === "function" ? root.getElementById(id) : null) ?? document.getElementById(id);
    if (named !== null) found.push(named);
  }
  return found;
}

/**
 * The focused element, descending into open shadow roots (keys go to the deepest one).
 * @returns {Element}
 */
export function deepActiveElement() {
  let active = document.activeElement;
  while (active?.shadowRoot?.activeElement) active = active.shadowRoot.activeElement;
  return active ?? document.body ?? document.documentElement;
}

/**
 * The element's shadow root, open or closed: content scripts may read closed roots
 * (chrome.dom.openOrClosedShadowRoot in Chrome, `openOrClosedShadowRoot` in Firefox), and a
 * secret inside a closed root is painted on screen like any other.
 * @param {Element} element
 * @returns {ShadowRoot|null}
 */
export function anyShadowRoot(element) {
  if (element.shadowRoot !== null) return element.shadowRoot;
  const chromeDom = /** @type {any} */ (globalThis).chrome?.dom;
  if (typeof chromeDom?.openOrClosedShadowRoot === "function") return chromeDom.openOrClosedShadowRoot(element) ?? null;
  return /** @type {any} */ (element).openOrClosedShadowRoot ?? null;
}
