// @ts-check
// What get_shadow_dom and shadow_dom_query return (docs/agent-tools.md, "Shadow roots and execute_js"), written
// once over any tree that can be read through a `ShadowTreeReader`: the live DOM in a content
// script (open roots, content/shadow-roots.js) and the Chrome DevTools Protocol's node tree in
// the background (closed roots too, background/shadow-and-js/shadow-dom.js). The two paths cannot disagree on
// shapes, paths, limits or on what is never shown (file values, and the value and text of every
// field shared/secret-fields.js calls secret).
//
// Every walk is iterative (pages can be 100,000 levels deep) and every output is bounded.

/**
 * How a tree is read. `shadowRoot` answers the element's shadow root and its mode; `root: null`
 * means the element hosts a closed root that this reader cannot enter (Firefox).
 * @template N
 * @typedef {object} ShadowTreeReader
 * @property {(node: N) => "element"|"text"|"other"} kind
 * @property {(node: N) => string} localName lowercase for HTML elements
 * @property {(node: N, name: string) => string|null} attribute
 * @property {(node: N) => Iterable<N>} children light-tree children (of an element or a root)
 * @property {(node: N) => N|null} parent light-tree parent; null for a tree's root
 * @property {(node: N) => {root: N|null, mode: "open"|"closed"}|null} shadowRoot
 * @property {(node: N) => string} text the data of a text node
 * @property {(node: N) => boolean} secretField whether an element is a field holding a secret
 *   (shared/secret-fields.js, with what this tree lets the rule read: the live DOM gives labels
 *   and computed style, the debugger's tree its attributes and its computed masks)
 */

/**
 * A shadow root found by `shadowRootsUnder`: its host, the host's path from the document, and
 * the root itself (null when the reader cannot enter it).
 * @template N
 * @typedef {{host: N, path: string, mode: "open"|"closed", root: N|null, nested: boolean}} FoundRoot
 */

/** Separates the trees a path crosses: the part before it is the host's path in the outer tree. */
export const PATH_SEPARATOR = " >>> ";

/** At most this many matches come back from shadow_dom_query (more are counted). */
export const MAX_MATCHES = 100;
/** shadow_dom_query stops counting here. */
export const MAX_COUNTED_MATCHES = 10_000;
/** The longest `text` of a match, and the longest text line of an outline. */
export const MAX_TEXT_CHARS = 200;
/** The longest attribute value shown. */
const MAX_ATTRIBUTE_CHARS = 200;
/** At most this many attributes per match. */
const MAX_ATTRIBUTES = 20;
/** Deeper levels of an outline are not indented further (the text stays readable). */
const MAX_INDENT_LEVEL = 40;
/** A path names at most this many steps in one tree (the nearest ones), and so many characters. */
const MAX_PATH_STEPS = 30;
const MAX_PATH_CHARS = 2_000;
/** The most characters all the matches of one query may take together. */
export const MAX_QUERY_CHARS = 100_000;

/** Attributes an outline line shows after the tag (ids and classes are in the tag itself). */
const OUTLINE_ATTRIBUTES = Object.freeze([
  "role",
  "aria-label",
  "name",
  "type",
  "href",
  "placeholder",
  "slot",
  "title",
]);

/** What the text of a secret editing host reads as (content/tree/facts.js shows the same). */
const SECRET_TEXT = "••••";

/** Elements whose text is code or data, not content. */
const TEXTLESS_ELEMENTS = new Set(["style", "script", "template", "noscript"]);

/**
 * Whether an attribute may be shown: the value of a file input or of a secret field never is
 * (the tree's rule, docs/protocol/action-safety.md, "Secrets stay secret"), whatever the page wrote into the
 * attribute: a card number's field prefilled with `value="4111..."` shows no value.
 * @template N
 * @param {ShadowTreeReader<N>} reader
 * @param {N} element
 * @param {string} name
 */
function attributeShown(reader, element, name) {
  if (name !== "value") return true;
  const localName = reader.localName(element);
  if (localName === "input" && (reader.attribute(element, "type") ?? "").trim().toLowerCase() === "file") return false;
  return !reader.secretField(element);
}

/**
 * Whether an element is a secret field or inside one (the text of a secret editing host is its
 * value), looking up its light tree.
 * @template N
 * @param {ShadowTreeReader<N>} reader
 * @param {N} element
 */
function isInSecretField(reader, element) {
  for (let node = /** @type {N|null} */ (element); node !== null; node = reader.parent(node)) {
    if (reader.kind(node) === "element" && reader.secretField(node)) return true;
  }
  return false;
}

/** @param {string} text @param {number} max */
export function shortened(text, max) {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/**
 * Whitespace collapsed to single spaces, trimmed.
 * @param {string} text
 */
function collapsed(text) {
  return text.replace(/\s+/g, " ").trim();
}

/**
 * `tag#id.class1.class2`: how an outline names an element.
 * @template N
 * @param {ShadowTreeReader<N>} reader
 * @param {N} element
 */
function tagLabel(reader, element) {
  let label = reader.localName(element);
  const id = reader.attribute(element, "id");
  if (id) label += `#${shortened(id, MAX_ATTRIBUTE_CHARS)}`;
  const classes = (reader.attribute(element, "class") ?? "").split(/\s+/).filter(Boolean).slice(0, 5);
  for (const name of classes) label += `.${shortened(name, 60)}`;
  return label;
}

/**
 * One step of a CSS path: `tag#id` (ids end the path: they are unique in their tree), else
 * `tag`, with `:nth-of-type(n)` when siblings share the tag.
 * @template N
 * @param {ShadowTreeReader<N>} reader
 * @param {N} element
 * @returns {{step: string, final: boolean}}
 */
function pathStep(reader, element) {
  const tag = reader.localName(element);
  const id = reader.attribute(element, "id");
  if (id && /^[A-Za-z_-][\w-]*$/.test(id)) return { step: `${tag}#${id}`, final: true };
  const parent = reader.parent(element);
  if (parent === null) return { step: tag, final: false };
  let position = 0;
  let sameTag = 0;
  for (const sibling of reader.children(parent)) {
    if (reader.kind(sibling) !== "element" || reader.localName(sibling) !== tag) continue;
    sameTag++;
    if (sibling === element) position = sameTag;
  }
  return { step: sameTag > 1 ? `${tag}:nth-of-type(${position})` : tag, final: false };
}

/**
 * The CSS path of an element inside its own tree (document or shadow root).
 * @template N
 * @param {ShadowTreeReader<N>} reader
 * @param {N} element
 */
export function pathInTree(reader, element) {
  const steps = [];
  for (
    let node = /** @type {N|null} */ (element);
    node !== null && reader.kind(node) === "element";
    node = reader.parent(node)
  ) {
    if (steps.length >= MAX_PATH_STEPS) {
      // A page can nest elements without end: the path keeps the steps nearest the element.
      steps.push("…");
      break;
    }
    const { step, final } = pathStep(reader, node);
    steps.push(step);
    if (final) break;
  }
  return boundedPath(steps.reverse().join(" > "));
}

/**
 * A path cut to MAX_PATH_CHARS, keeping its end (the element's side), for paths through many
 * nested trees or long tag names.
 * @param {string} path
 */
export function boundedPath(path) {
  return path.length <= MAX_PATH_CHARS ? path : `…${path.slice(path.length - MAX_PATH_CHARS + 1)}`;
}

/**
 * The elements of a tree in document order, not entering shadow roots (each root is its own
 * tree): the light descendants of `start`.
 * @template N
 * @param {ShadowTreeReader<N>} reader
 * @param {N} start
 * @returns {Generator<N>}
 */
function* elementsOf(reader, start) {
  /** @type {N[]} */
  const pending = [...reader.children(start)].reverse();
  while (pending.length > 0) {
    const node = /** @type {N} */ (pending.pop());
    if (reader.kind(node) !== "element") continue;
    yield node;
    const children = [...reader.children(node)];
    for (let index = children.length - 1; index >= 0; index--) pending.push(children[index]);
  }
}

/**
 * Every shadow root inside `start`'s tree and, through them, in nested trees, in document order
 * of their hosts. `prefix` is the path of the tree `start` belongs to (empty for the document).
 * `nested` says whether the host lies inside another shadow tree than the one searched first.
 * @template N
 * @param {ShadowTreeReader<N>} reader
 * @param {N} start a document or a shadow root
 * @param {string} prefix
 * @returns {FoundRoot<N>[]}
 */
export function shadowRootsUnder(reader, start, prefix = "") {
  /** @type {FoundRoot<N>[]} */
  const found = [];
  /** @type {Array<{tree: N, prefix: string, nested: boolean}>} */
  const trees = [{ tree: start, prefix, nested: false }];
  while (trees.length > 0) {
    const {
      tree,
      prefix: treePrefix,
      nested,
    } = /** @type {{tree: N, prefix: string, nested: boolean}} */ (trees.shift());
    for (const element of elementsOf(reader, tree)) {
      const shadow = reader.shadowRoot(element);
      if (shadow === null) continue;
      const path = boundedPath(treePrefix + pathInTree(reader, element));
      found.push({ host: element, path, mode: shadow.mode, root: shadow.root, nested });
      if (shadow.root !== null) trees.push({ tree: shadow.root, prefix: path + PATH_SEPARATOR, nested: true });
    }
  }
  return found;
}

/**
 * The shadow tree of a root as indented lines: elements as `<tag#id.class attr="...">`, text in
 * quotes, nested shadow roots as `#shadow-root (mode)` above their host's light children.
 * Stops at `maxChars`, saying so.
 * @template N
 * @param {ShadowTreeReader<N>} reader
 * @param {N} root
 * @param {"open"|"closed"} mode
 * @param {number} maxChars
 * @returns {{outline: string, truncated: boolean, unreadable: N[]}}
 */
export function outlineOf(reader, root, mode, maxChars) {
  /** @type {string[]} */
  const lines = [];
  let used = 0;
  let truncated = false;
  /** @type {N[]} closed roots met on the way that the reader could not enter */
  const unreadable = [];
  const add = (/** @type {number} */ level, /** @type {string} */ text) => {
    const line = " ".repeat(2 * Math.min(level, MAX_INDENT_LEVEL)) + text;
    if (used + line.length + 1 > maxChars) {
      truncated = true;
      return false;
    }
    lines.push(line);
    used += line.length + 1;
    return true;
  };
  add(0, `#shadow-root (${mode})`);
  // `secret`: the item is inside a secret field (an editing host's text is its value).
  /** @type {Array<{node: N, level: number, secret: boolean} | {shadow: {root: N|null, mode: string}, level: number, host: N}>} */
  const pending = [...reader.children(root)].reverse().map((node) => ({ node, level: 1, secret: false }));
  while (pending.length > 0 && !truncated) {
    const item = /** @type {any} */ (pending.pop());
    if (item.shadow !== undefined) {
      if (item.shadow.root === null) {
        unreadable.push(item.host);
        add(item.level, `#shadow-root (${item.shadow.mode}, not readable here)`);
        continue;
      }
      add(item.level, `#shadow-root (${item.shadow.mode})`);
      const inner = [...reader.children(item.shadow.root)];
      for (let index = inner.length - 1; index >= 0; index--)
        pending.push({ node: inner[index], level: item.level + 1, secret: false });
      continue;
    }
    const { node, level } = item;
    const kind = reader.kind(node);
    if (kind === "text") {
      const text = collapsed(reader.text(node));
      if (text !== "")
        add(level, item.secret ? JSON.stringify(SECRET_TEXT) : JSON.stringify(shortened(text, MAX_TEXT_CHARS)));
      continue;
    }
    if (kind !== "element") continue;
    const secret = item.secret || reader.secretField(node);
    let line = `<${tagLabel(reader, node)}`;
    for (const name of OUTLINE_ATTRIBUTES) {
      const value = reader.attribute(node, name);
      if (value !== null && attributeShown(reader, node, name)) {
        line += ` ${name}=${JSON.stringify(shortened(value, MAX_ATTRIBUTE_CHARS))}`;
      }
    }
    add(level, `${line}>`);
    const localName = reader.localName(node);
    const children = TEXTLESS_ELEMENTS.has(localName) ? [] : [...reader.children(node)];
    for (let index = children.length - 1; index >= 0; index--)
      pending.push({ node: children[index], level: level + 1, secret });
    // The element's own shadow tree comes before its light children, as DevTools shows it.
    const shadow = reader.shadowRoot(node);
    if (shadow !== null) pending.push({ shadow, level: level + 1, host: node });
  }
  return { outline: lines.join("\n"), truncated, unreadable };
}

/**
 * The text content of an element's light subtree (what `textContent` gives, without style and
 * script text), collapsed and cut to MAX_TEXT_CHARS.
 * @template N
 * @param {ShadowTreeReader<N>} reader
 * @param {N} element
 */
export function textOf(reader, element) {
  let text = "";
  /** @type {N[]} */
  const pending = [element];
  while (pending.length > 0 && text.length <= 4 * MAX_TEXT_CHARS) {
    const node = /** @type {N} */ (pending.pop());
    const kind = reader.kind(node);
    if (kind === "text") {
      text += reader.text(node);
      continue;
    }
    if (kind !== "element" || TEXTLESS_ELEMENTS.has(reader.localName(node))) continue;
    // A secret editing host's text is its value: left out of its container's text too.
    if (reader.secretField(node)) continue;
    const children = [...reader.children(node)];
    for (let index = children.length - 1; index >= 0; index--) pending.push(children[index]);
  }
  return shortened(collapsed(text), MAX_TEXT_CHARS);
}

/**
 * One match of shadow_dom_query: `{path, tag, mode, text, attributes}`.
 * @template N
 * @param {ShadowTreeReader<N>} reader
 * @param {N} element
 * @param {FoundRoot<N>} within the root the element was found in
 */
export function describeMatch(reader, element, within) {
  /** @type {Record<string, string>} */
  const attributes = {};
  let count = 0;
  for (const [name, value] of attributeEntries(reader, element)) {
    if (count >= MAX_ATTRIBUTES) break;
    if (!attributeShown(reader, element, name)) continue;
    attributes[name] = shortened(value, MAX_ATTRIBUTE_CHARS);
    count++;
  }
  return {
    path: boundedPath(within.path + PATH_SEPARATOR + pathInTree(reader, element)),
    tag: reader.localName(element),
    mode: within.mode,
    text: isInSecretField(reader, element) ? "" : textOf(reader, element),
    attributes,
  };
}

/**
 * The attributes of an element as [name, value] pairs, through the reader's optional
 * `attributeEntries` (both readers have one; the fallback shows the outline's attributes).
 * @template N
 * @param {ShadowTreeReader<N> & {attributeEntries?: (node: N) => Array<[string, string]>}} reader
 * @param {N} element
 * @returns {Array<[string, string]>}
 */
function attributeEntries(reader, element) {
  if (typeof reader.attributeEntries === "function") return reader.attributeEntries(element);
  return ["id", "class", ...OUTLINE_ATTRIBUTES]
    .map((name) => /** @type {[string, string|null]} */ ([name, reader.attribute(element, name)]))
    .filter(/** @returns {entry is [string, string]} */ (entry) => entry[1] !== null);
}

/**
 * Collects matches under the limits: at most MAX_MATCHES returned, MAX_QUERY_CHARS of them in
 * all, counted up to MAX_COUNTED_MATCHES.
 */
export class MatchCollector {
  constructor() {
    /** @type {Array<Record<string, unknown>>} */
    this.matches = [];
    this.count = 0;
    this.truncated = false;
    this.chars = 0;
  }

  /** Whether counting should stop. */
  get full() {
    return this.count >= MAX_COUNTED_MATCHES;
  }

  /** @param {() => Record<string, unknown>} describe called only for matches that are kept */
  add(describe) {
    this.count++;
    if (this.matches.length >= MAX_MATCHES || this.chars >= MAX_QUERY_CHARS) {
      this.truncated = true;
      return;
    }
    const match = describe();
    const size = JSON.stringify(match).length;
    if (this.chars + size > MAX_QUERY_CHARS) {
      this.truncated = true;
      return;
    }
    this.chars += size;
    this.matches.push(match);
  }

  result() {
    return { matches: this.matches, count: this.count, truncated: this.truncated || this.full };
  }
}
