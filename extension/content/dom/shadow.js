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
