// A small hand-made stand-in for the few DOM relations the content script's tree helpers read:
// parentNode, a shadow root's host, a slotted node's assignedSlot, childNodes, attributes, and
// `matches` for the selector forms the helpers under test use (`*`, a tag name, `[name]`,
// `[name="value"]`, `[name~="value"]`, `:disabled`, `:defined`, a `:not(...)` of one of these, compounds of them, and
// comma-separated lists). It has no layout and no events: a module that needs those is tested in a
// browser (tests/browser/), not here. The node type numbers are the DOM Standard's ("Interface Node").

export const ELEMENT_NODE = 1;
export const TEXT_NODE = 3;
export const DOCUMENT_NODE = 9;
export const DOCUMENT_FRAGMENT_NODE = 11;

/**
 * The globals the modules read: the constants of `Node`, a `document` to fall back on for IDs,
 * `getComputedStyle` answering each fake element's `computedStyle`, and `HTMLInputElement` for
 * the modules' `instanceof` checks. Returns the document.
 */
export function installFakeDom() {
  globalThis.Node ??= /** @type {any} */ ({ ELEMENT_NODE, TEXT_NODE, DOCUMENT_NODE, DOCUMENT_FRAGMENT_NODE });
  globalThis.getComputedStyle = (element) => element.computedStyle;
  globalThis.HTMLInputElement ??= FakeInput;
  globalThis.document = new FakeDocument();
  return globalThis.document;
}

class FakeNode {
  constructor(nodeType) {
    this.nodeType = nodeType;
    this.parentNode = null;
    this.childNodes = [];
    this.assignedSlot = null;
  }

  /** Appends children (nodes or strings, which become text nodes) and returns this node. */
  append(...children) {
    for (const child of children) {
      const node = typeof child === "string" ? new FakeText(child) : child;
      node.parentNode = this;
      this.childNodes.push(node);
    }
    return this;
  }

  get textContent() {
    return this.childNodes.map((child) => child.textContent).join("");
  }

  /** The parent when it is an element (DOM Standard, "parent element"): null at a root. */
  get parentElement() {
    return this.parentNode !== null && this.parentNode.nodeType === ELEMENT_NODE ? this.parentNode : null;
  }

  /** Whether the node is in a document, shadow-including (DOM Standard, "connected"). */
  get isConnected() {
    let node = this;
    while (node.parentNode !== null || node.host) node = node.parentNode ?? node.host;
    return node.nodeType === DOCUMENT_NODE;
  }

  getRootNode() {
    let node = this;
    while (node.parentNode !== null) node = node.parentNode;
    return node;
  }

  /** The elements below this node in its own tree (not its shadow trees), in tree order, that match. */
  querySelectorAll(selectorList) {
    const found = [];
    for (const child of this.childNodes) {
      if (child.nodeType !== ELEMENT_NODE) continue;
      if (child.matches(selectorList)) found.push(child);
      found.push(...child.querySelectorAll(selectorList));
    }
    return found;
  }

  /** The first element of this node's own tree (not its shadow trees) with the ID, as a root finds it. */
  getElementById(id) {
    for (const child of this.childNodes) {
      if (child.nodeType !== ELEMENT_NODE) continue;
      if (child.getAttribute("id") === id) return child;
      const inside = child.getElementById(id);
      if (inside !== null) return inside;
    }
    return null;
  }
}

export class FakeDocument extends FakeNode {
  constructor() {
    super(DOCUMENT_NODE);
  }

  createElement(localName) {
    return new FakeElement(localName);
  }
}

export class FakeText extends FakeNode {
  constructor(data) {
    super(TEXT_NODE);
    this.data = data;
  }

  get textContent() {
    return this.data;
  }

  get nodeValue() {
    return this.data;
  }
}

export class FakeShadowRoot extends FakeNode {
  constructor(host) {
    super(DOCUMENT_FRAGMENT_NODE);
    this.host = host;
  }
}

export class FakeElement extends FakeNode {
  /**
   * @param {string} localName
   * @param {Record<string, string>} [attributes]
   */
  constructor(localName, attributes = {}) {
    super(ELEMENT_NODE);
    this.localName = localName;
    this.namespaceURI = "http://www.w3.org/1999/xhtml";
    this.attributes = new Map(Object.entries(attributes));
    this.shadowRoot = null;
    /** Whether the element is `:disabled`, which the browser computes (HTML, "disabled"). */
    this.disabled = false;
    /** Whether the element is `:defined` (false for a custom element not yet upgraded). */
    this.defined = true;
    /** The computed style a test gives it: what getComputedStyle answers once installed. */
    this.computedStyle = {
      visibility: "visible",
      display: "block",
      opacity: "1",
      /** A longhand by its CSS name, "" when the test gave none (CSSOM, getPropertyValue). */
      getPropertyValue(name) {
        return typeof this[name] === "string" ? this[name] : "";
      },
    };
    /** Its border box, for getBoundingClientRect. */
    this.box = { x: 0, y: 0, width: 10, height: 10 };
  }

  getBoundingClientRect() {
    return this.box;
  }

  get id() {
    return this.getAttribute("id") ?? "";
  }

  getAttribute(name) {
    return this.attributes.has(name) ? this.attributes.get(name) : null;
  }

  hasAttribute(name) {
    return this.attributes.has(name);
  }

  /** Attaches an open shadow root holding `children`, and returns it. */
  attachShadow(...children) {
    this.shadowRoot = new FakeShadowRoot(this);
    this.shadowRoot.append(...children);
    return this.shadowRoot;
  }

  /** The nearest inclusive ancestor in this element's own tree that matches, as Element.closest. */
  closest(selectorList) {
    for (let node = this; node !== null && node.nodeType === ELEMENT_NODE; node = node.parentNode) {
      if (node.matches(selectorList)) return node;
    }
    return null;
  }

  /** Whether `other` is this element or inside it, in this element's own tree (Node.contains). */
  contains(other) {
    for (let node = other; node !== null; node = node.parentNode) if (node === this) return true;
    return false;
  }

  matches(selectorList) {
    return splitTopLevel(selectorList, ",").some((selector) => matchesCompound(this, selector.trim()));
  }
}

/** Splits at `separator` outside parentheses, brackets and quotes. */
function splitTopLevel(text, separator) {
  const parts = [];
  let depth = 0;
  let quoted = false;
  let start = 0;
  for (let index = 0; index < text.length; index += 1) {
    const character = text[index];
    if (character === '"') quoted = !quoted;
    else if (!quoted && (character === "(" || character === "[")) depth += 1;
    else if (!quoted && (character === ")" || character === "]")) depth -= 1;
    else if (!quoted && depth === 0 && character === separator) {
      parts.push(text.slice(start, index));
      start = index + 1;
    }
  }
  parts.push(text.slice(start));
  return parts;
}

const SIMPLE_SELECTOR = /^(?:([a-z][a-z0-9-]*)|\[([a-z-]+)(?:(~?=)"([^"]*)")?\]|:not\((.*)\)|(:disabled)|(\*)|(:defined))/;

function matchesCompound(element, selector) {
  // The whole selector is parsed before any part is matched, so that a selector this stand-in
  // cannot run throws (as a browser's SyntaxError would for an invalid one) whatever the element.
  const parts = [];
  for (let rest = selector; rest !== ""; ) {
    const found = SIMPLE_SELECTOR.exec(rest);
    if (found === null) throw new Error(`fake-dom.mjs cannot match the selector ${JSON.stringify(selector)}`);
    parts.push(found);
    rest = rest.slice(found[0].length);
  }
  return parts.every(([, tag, attribute, operator, value, negated, disabled, , defined]) => {
    if (defined !== undefined && !element.defined) return false;
    // The universal selector (the last group) matches every element.
    if (tag !== undefined && element.localName !== tag) return false;
    if (disabled !== undefined && !element.disabled) return false;
    if (attribute !== undefined) {
      const actual = element.getAttribute(attribute);
      if (actual === null) return false;
      if (operator === "=" && actual !== value) return false;
      if (operator === "~=" && !actual.split(/\s+/).includes(value)) return false;
    }
    return negated === undefined || !matchesCompound(element, negated.trim());
  });
}

/** An `<input>`: its type, value and checkedness are properties, as HTML reflects them. */
export class FakeInput extends FakeElement {
  constructor(attributes = {}) {
    super("input", attributes);
    this.type = attributes.type ?? "text";
    this.checked = false;
    this.value = attributes.value ?? "";
    this.defaultValue = this.value;
    this.defaultChecked = false;
    this.files = null;
  }
}
