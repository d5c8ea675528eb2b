// @ts-check
// Facts gathering: one walk of the document in plain JS (light tree, open shadow roots, slot
// assignments) that hands the core a few flat arrays in one call. Reading the DOM node by node
// from WASM would cost a boundary crossing per read (docs/performance.md). The format is
// documented in crates/allwright-ax-wasm/src/facts.rs; its constants come from there, through the
// module the binary generates from it (shared/generated/fact-layout.js).

import { generatedContentCandidates } from "./generated-content.js";
import { refNumberOf } from "./registry.js";
import { knownAriaRef } from "./ai-refs.js";
import { isInsideSecretHost, isSecretField } from "../../shared/secret-fields.js";
import { inlineStyleMayReach, visibilityAndOverflowTargets } from "./style-rule-targets.js";
import {
  ATOMIC_INLINE,
  BOXES_UNMEASURED,
  CHECKED,
  CONTENT_VISIBILITY_HIDDEN,
  CURSOR_POINTER,
  DISABLED,
  DISPLAY_CONTENTS,
  DISPLAY_INLINE_LEVEL,
  DISPLAY_NONE,
  DISPLAY_OTHER_BOX,
  DISPLAY_SHIFT,
  FACTS_VERSION,
  FILES_ATTACHED,
  GENERATED_CONTENT_POSSIBLE,
  HAS_BOX,
  HAS_CLICK_LISTENER,
  INDETERMINATE,
  KIND_DOCUMENT,
  KIND_ELEMENT,
  KIND_SHADOW_ROOT,
  KIND_TEXT,
  NAMESPACE_HTML,
  NAMESPACE_MATHML,
  NAMESPACE_OTHER,
  NAMESPACE_SHIFT,
  NAMESPACE_SVG,
  NODE_STRIDE,
  OPTION_SELECTED,
  POINTER_EVENTS_NONE,
  POINTER_EVENTS_UNREAD,
  SCROLL_CONTAINER,
  STRING_SEPARATOR,
  TEXT_TRANSFORM_CAPITALIZE,
  TEXT_TRANSFORM_LOWERCASE,
  TEXT_TRANSFORM_NONE,
  TEXT_TRANSFORM_SHIFT,
  TEXT_TRANSFORM_UPPERCASE,
  TWO_BIT_CODE_MASK,
  UNREAD_CLOSED_SHADOW_ROOT,
  VISIBILITY_COLLAPSE,
  VISIBILITY_HIDDEN,
  VISIBILITY_SHIFT,
  VISIBILITY_VISIBLE,
} from "../../shared/generated/fact-layout.js";
import { clickListenerElements } from "./click-listener-elements.js";

export { FACTS_VERSION };

// STYLE_READ_DEFERRED: the style of an element under a `<select>` is read after the walk, not
// in tree order. Chromium computes the style of a drop-down's options (which have no box) only
// when asked, and asking for it between two reads inside skipped subtrees (closed `<details>`,
// `content-visibility: hidden` or `auto` off screen) makes each of those reads cost time in
// proportion to the whole document. The first style reads of a page of 1,000 sections (a
// drop-down, a closed details, a `content-visibility: hidden` block) took 1.9 s in tree order
// against 0.13-0.15 s with the options read last, and those of the 10k bench page 49-51 ms
// against 15 ms (docs/performance/warm-read.md, "Options read last"); Firefox showed no difference.
// Deferred elements have no facts that others' depend on during the walk except whether they
// are rendered, which their descendants (deferred too) settle after it.
const NOT_IN_SELECT = -2;
const IN_SELECT = -1;

// STYLE_READS_BY_RULES: `visibility` is read only where something may set it other than
// inheritance, and `overflow` only where something may make it scroll; elsewhere an element
// takes its parent's visibility and is no scroll container. What may set them:
// tree/style-rule-targets.js (the document's rules, running animations and transitions), an
// inline style, the sheets of a shadow tree (its elements, its host, and the host's children,
// which `::slotted` reaches and which inherit from their slot), SVG and MathML presentation
// attributes (non-HTML elements are always read), and the user-agent sheets' scrolling
// elements below. A page whose rules cannot be read, and a read of one changed part, have both
// read everywhere.
const VISIBILITY_MASK = TWO_BIT_CODE_MASK << VISIBILITY_SHIFT;
/** The elements that user-agent sheets make scroll (`[popover]` too): Chromium 156, Firefox ESR. */
const USER_AGENT_SCROLLERS = new Set(["textarea", "select", "dialog"]);
/** Which of the properties read only where needed an element has read. */
const READ_VISIBILITY = 1;
const READ_OVERFLOW = 2;
const READ_CONTENT_VISIBILITY = 4;
/** Where a node stands: in the light tree, a light child of a shadow host, in a shadow tree. */
const IN_LIGHT_TREE = 0;
const CHILD_OF_SHADOW_HOST = 1;
const IN_SHADOW_TREE = 2;

/** The attribute names of an element that has none. */
/** What a secret editing host's text reads as in the tree (text-entry.js shows "••••" too). */
const SECRET_TEXT = "••••";
const NO_ATTRIBUTES = Object.freeze(/** @type {string[]} */ ([]));

export const HTML_NAMESPACE = "http://www.w3.org/1999/xhtml";
const SVG_NAMESPACE = "http://www.w3.org/2000/svg";
const MATHML_NAMESPACE = "http://www.w3.org/1998/Math/MathML";

/** Computed `display` -> its two-bit code of the fact format (DISPLAY_* in facts.rs). */
const displayBits = (/** @type {string} */ display) => {
  if (display === "none") return DISPLAY_NONE;
  if (display === "contents") return DISPLAY_CONTENTS;
  // Inline-level boxes do not break words when text is gathered for a name.
  if (display.startsWith("inline") || display === "ruby") return DISPLAY_INLINE_LEVEL;
  return DISPLAY_OTHER_BOX;
};

/** Computed `visibility` -> its two-bit code of the fact format (VISIBILITY_* in facts.rs). */
const visibilityBits = (/** @type {string} */ visibility) =>
  visibility === "hidden" ? VISIBILITY_HIDDEN : visibility === "collapse" ? VISIBILITY_COLLAPSE : VISIBILITY_VISIBLE;

/** An element's namespace -> its two-bit code of the fact format (NAMESPACE_* in facts.rs). */
const namespaceBits = (/** @type {string|null} */ namespace) =>
  namespace === HTML_NAMESPACE
    ? NAMESPACE_HTML
    : namespace === SVG_NAMESPACE
      ? NAMESPACE_SVG
      : namespace === MATHML_NAMESPACE
        ? NAMESPACE_MATHML
        : NAMESPACE_OTHER;

/**
 * ATOMIC_INLINE (facts.rs) for an atomic inline-level box (`inline-block`, `inline-flex`,
 * `inline-grid`, `inline-table`; CSS Display 3, "atomic inline"), which Chromium names as a
 * word of its own ("Issues 42" from `Issues<span style="display:inline-block">42</span>`);
 * 0 for a plain inline (`inline`, `ruby`) and every other display.
 * @param {string} display the computed `display`
 */
const atomicInlineBit = (display) => (display !== "inline" && display.startsWith("inline") ? ATOMIC_INLINE : 0);

/**
 * @typedef {object} Facts
 * @property {string} strings
 * @property {Uint32Array} stringLengths
 * @property {Uint32Array} nodes
 * @property {Uint32Array} attributes
 * @property {Float64Array} rects
 * @property {Uint32Array} slots
 * @property {Float64Array} viewport
 * @property {Node[]} nodeList Node of each index, to map the core's answers back to elements.
 * @property {number} anchorIndex Index of the anchor element, or -1.
 * @property {Uint32Array} knownRefs `[node, N]` pairs of elements that own `ref_N`.
 * @property {Uint32Array} knownAriaNodes Elements that hold an "ai" reference.
 * @property {string} knownAria `reference \u007f key` pairs for `knownAriaNodes`, joined.
 * @property {number} shadowRootCount Open shadow roots gathered.
 * @property {boolean} cut The walk stopped at `maxNodes`: the facts hold the page's first nodes
 *   in tree order only.
 * @property {Element[]} referrers With `referenceAttributes`: the light-tree elements that carry
 *   one of them, in tree order (empty without).
 */

/**
 * @typedef {object} GatherOptions
 * @property {Element | null} anchor
 * @property {boolean} withRefs Send the `ref_N` of registered elements.
 * @property {boolean} withAriaRefs Send the "ai" references of earlier captures.
 * @property {boolean} measureBoxes Read every element's position (only the `visible` filter
 *   needs one; otherwise boxes are only said to exist, see BOXES_UNMEASURED in facts.rs).
 * @property {boolean} readPointerEvents Read `pointer-events` (only "ai" references need it,
 *   see POINTER_EVENTS_UNREAD in facts.rs).
 * @property {Element} [scope] Gather only this element's subtree and its ancestors (without
 *   their other children): a read since a snapshot re-reads the parts that changed
 *   (tree/changed-parts.js). The ancestors carry what the subtree inherits (hidden, inert,
 *   styles); nothing outside is needed, which changed-parts.js makes sure of before it asks.
 * @property {number} [longestText] Cut attribute values, field values and text data longer than
 *   this many UTF-16 units, marking the cut with `…` (the text tree's reads: see
 *   LONGEST_TEXT_READ in accessibility-tree.js). Without it every string is sent whole, as the
 *   structured snapshot prints it.
 * @property {ReadonlySet<Element>} [closedShadowRootHosts] The elements known to host a closed
 *   shadow root, where this realm cannot ask (the BiDi collector's sandbox: BiDi-only mode finds
 *   them over WebDriver BiDi, crates/allwright-surface-web's read_tree). Absent, the gatherer asks
 *   the browser itself where it can (closedShadowRootReader).
 * @property {number} [maxNodes] Stop after this many nodes (the text tree's reads of a whole
 *   document; docs/protocol/host-safety.md, "Bounds and deadlines"): `cut` then says so.
 * @property {ReadonlySet<string>} [referenceAttributes] Collect the document's elements (not
 *   those in shadow trees) that carry one of these attributes into `referrers`: the change
 *   tracker's index of ID references (tree/changed-parts.js, markRead) then needs no query of its
 *   own, since the walk reads every attribute already.
 */

/**
 * The first `length` UTF-16 units of a string followed by `…`, without leaving half of a
 * surrogate pair at the cut.
 * @param {string} text
 * @param {number} length
 */
function cutText(text, length) {
  const last = text.charCodeAt(length - 1);
  const end = last >= 0xd800 && last <= 0xdbff ? length - 1 : length;
  return `${text.slice(0, end)}…`;
}

/**
 * Walks the document once (light tree, open shadow roots, slot assignments) and records what
 * the core needs of every element and text node. Comments and other nodes are not sent.
 * @param {GatherOptions} options
 * @returns {Facts}
 */
export function gatherFacts(options) {
  /** @type {string[]} */
  const strings = [];
  /** @type {number[]} */
  const lengths = [];
  /** @type {Map<string, number>} */
  const interned = new Map();
  /** @type {number[]} */
  const nodes = [];
  /** @type {number[]} */
  const attributes = [];
  /** @type {number[]} */
  const rects = [];
  /** @type {Node[]} */
  const nodeList = [];
  /** @type {number[]} */
  const knownRefs = [];
  /** @type {number[]} */
  const knownAriaNodes = [];
  /** @type {string[]} */
  const knownAria = [];
  /** @type {Array<[number, HTMLSlotElement]>} */
  const slotElements = [];
  let anchorIndex = -1;
  const measureBoxes = options.measureBoxes;
  const readPointerEvents = options.readPointerEvents;
  // Each computed property read costs about a third of a bare walk over the page (measured
  // at 10k elements in Chromium: 3-4 ms per property), so
  // `content-visibility`, which few pages use, is read only once a style sheet or a style
  // attribute mentions it (see rulesMention).
  // The document's rules are collected once for both questions asked of them.
  const documentRules = styleRules(document);
  let readContentVisibility = rulesMention(documentRules, "content-visibility");
  // `text-transform` changes names from content (Chromium and Firefox name an uppercased
  // "Save" button "SAVE"). Like `content-visibility`, it is read only once a rule or a style
  // attribute mentions it; it is inherited, and the walk is in tree order, so an element's
  // ancestors that set it have already turned the read on.
  let readTextTransform = rulesMention(documentRules, "text-transform");
  // CURSOR_POINTER (facts.rs): an element's own `cursor: pointer` marks something to click
  // (issue 30). Like `text-transform`, `cursor` is read only once a rule or a style attribute
  // gives some element the pointer; the user-agent sheet gives it to links only, which are
  // interactive anyway. `cursor` is inherited: the node indices whose computed cursor is the
  // pointer (own or inherited) tell a child whether its pointer is its own.
  let readCursor = rulesSetPointerCursor(documentRules);
  /** @type {Set<number>} */
  const pointerCursorNodes = new Set();
  const generatedContent = generatedContentCandidates(documentRules);
  // HAS_CLICK_LISTENER (facts.rs): the elements a page script gave a click, press or release
  // listener, as the recorder in the page's world saw them (content/click-listener-recorder.js), asked
  // once per read; null when there are none, so that most pages pay one lookup per read only.
  const listenerElements = clickListenerElements();
  const clickListeners = listenerElements.size > 0 ? listenerElements : null;
  // A read of one changed part (`scope`) walks too few elements for the search to pay.
  const ruleTargets = (options.scope ?? null) === null ? visibilityAndOverflowTargets(documentRules) : null;
  const knownHosts = options.closedShadowRootHosts;
  const closedRootReader =
    knownHosts === undefined ? closedShadowRootReader() : (/** @type {Element} */ element) => knownHosts.has(element);

  /**
   * The fact flags an element's computed style gives (display, visibility, content-visibility,
   * pointer-events, text-transform, scroll container), each read only when needed.
   * @param {CSSStyleDeclaration} style
   * @param {number} reads READ_VISIBILITY, READ_OVERFLOW (STYLE_READS_BY_RULES) and
   *   READ_CONTENT_VISIBILITY
   * @param {number} parentFlags the parent node's flags, whose visibility an unread one takes
   */
  const styleFlagsOf = (style, reads, parentFlags) => {
    const displayValue = style.display;
    const display = displayBits(displayValue);
    let flags = (display << DISPLAY_SHIFT) | (display === DISPLAY_INLINE_LEVEL ? atomicInlineBit(displayValue) : 0);
    if ((reads & READ_VISIBILITY) !== 0) {
      const visibility = style.visibility;
      flags |= visibilityBits(visibility) << VISIBILITY_SHIFT;
    } else {
      flags |= parentFlags & VISIBILITY_MASK;
    }
    if ((reads & READ_CONTENT_VISIBILITY) !== 0 && style.contentVisibility === "hidden") {
      flags |= CONTENT_VISIBILITY_HIDDEN;
    }
    if (readPointerEvents && style.pointerEvents === "none") flags |= POINTER_EVENTS_NONE;
    if (readTextTransform) flags |= textTransformBits(style.textTransform) << TEXT_TRANSFORM_SHIFT;
    // A scroll container (the `scroll` tool moves it): its text-tree line keeps its reference.
    // `overflow` applies to block, flex and grid containers only (CSS Overflow 3, "Applies
    // to"): an inline box, or an element with no box, never scrolls whatever its overflow
    // says, so its overflow is not read (one style read fewer for most inline elements).
    if ((reads & READ_OVERFLOW) !== 0 && display >= 2 && displayValue !== "inline" && isScrollContainer(style)) {
      flags |= SCROLL_CONTAINER;
    }
    return flags;
  };

  // Tag and attribute names repeat on every page; values and text rarely do.
  const intern = (/** @type {string} */ text) => {
    let index = interned.get(text);
    if (index === undefined) {
      index = strings.length;
      strings.push(text);
      lengths.push(text.length);
      interned.set(text, index);
    }
    return index;
  };
  const longestText = options.longestText ?? Infinity;
  const add = (/** @type {string} */ whole) => {
    const text = whole.length > longestText ? cutText(whole, longestText) : whole;
    strings.push(text);
    lengths.push(text.length);
    return strings.length - 1;
  };

  // Explicit stacks (no recursion: pages can be 100,000 levels deep). A node comes with its
  // parent's index + 1 and whether its ancestors are rendered.
  /** @type {Node[]} */
  const pendingNodes = [document];
  /** @type {number[]} */
  const pendingParents = [0];
  /** @type {boolean[]} */
  const pendingRendered = [true];
  /** @type {number[]} IN_LIGHT_TREE, CHILD_OF_SHADOW_HOST or IN_SHADOW_TREE */
  const pendingTreePosition = [IN_LIGHT_TREE];
  // Where a node stands towards a `<select>` (STYLE_READ_DEFERRED): NOT_IN_SELECT,
  // IN_SELECT (under a select, no element between them deferred yet), or the node index of
  // the nearest ancestor whose style read was deferred.
  /** @type {number[]} */
  const pendingDeferredAncestor = [NOT_IN_SELECT];
  // The elements under a select, whose style is read after the walk: their node index, whether
  // their ancestors outside the select are rendered, and their nearest deferred ancestor.
  /** @type {Element[]} */
  const deferredElements = [];
  /** @type {number[]} */
  const deferredIndices = [];
  /** @type {boolean[]} */
  const deferredAncestorsRendered = [];
  /** @type {number[]} */
  const deferredAncestors = [];
  /** @type {number[]} READ_VISIBILITY and READ_OVERFLOW */
  const deferredReads = [];
  // With measured boxes, the node index of each rectangle in `rects`: the deferred elements'
  // rectangles are merged into node order after the walk.
  /** @type {number[]} */
  const rectOwners = [];
  const scope = options.scope ?? null;
  let shadowRootCount = 0;

  const maxNodes = options.maxNodes ?? Infinity;
  const referenceAttributes = options.referenceAttributes ?? null;
  /** @type {Element[]} */
  const referrers = [];
  /** The editing hosts whose text is a secret (their text nodes come later in the walk). @type {Set<Element>} */
  const secretEditingHosts = new Set();
  /** The selects whose value is a secret: their options are never gathered as selected. @type {Set<Element>} */
  const secretSelects = new Set();
  let cut = false;
  while (pendingNodes.length > 0) {
    if (nodeList.length >= maxNodes) {
      cut = true;
      break;
    }
    const node = /** @type {Node} */ (pendingNodes.pop());
    const parent = /** @type {number} */ (pendingParents.pop());
    let rendered = /** @type {boolean} */ (pendingRendered.pop());
    const treePosition = /** @type {number} */ (pendingTreePosition.pop());
    const inShadowTree = treePosition === IN_SHADOW_TREE;
    const deferredAncestor = /** @type {number} */ (pendingDeferredAncestor.pop());
    // Outside the scope, only its ancestors are gathered (the document and the chain down).
    if (scope !== null && node !== scope && !node.contains(scope) && !scope.contains(node)) continue;
    const index = nodeList.length;
    const type = node.nodeType;
    if (type === Node.ELEMENT_NODE) {
      const element = /** @type {Element} */ (node);
      const namespace = element.namespaceURI;
      const localName = element.localName;
      let flags = KIND_ELEMENT | (namespaceBits(namespace) << NAMESPACE_SHIFT);
      const shadowRoot = element.shadowRoot;
      // A closed shadow root's content is not read, but its host is marked so the agent knows
      // content is missing. Asking costs a call per element, too slow on large pages, so only
      // custom elements (a hyphen in the local name) are asked: they are where closed roots
      // are found in practice, although the DOM standard also lets a few HTML elements (div,
      // span, article, ...) attach one.
      if (shadowRoot === null && closedRootReader !== null && localName.includes("-") && closedRootReader(element)) {
        flags |= UNREAD_CLOSED_SHADOW_ROOT;
      }
      // Names, then values by name: reading `element.attributes` instead makes the browser
      // create an Attr node for every attribute (kept with the element ever after) and, in this
      // isolated world, a wrapper for each (docs/performance/strict-csp.md, "The gatherer's property
      // reads"). Two attributes can share a qualified name only through setAttributeNS with
      // different namespaces; the value read is then the first's for both, as for any
      // by-name read of the attribute.
      // Most elements of a page carry no attribute at all (a paragraph, a list item, a table
      // cell): asking first spares each an array of names (docs/performance/warm-read.md, "The gatherer
      // and the way back").
      const attributeNames = element.hasAttributes() ? element.getAttributeNames() : NO_ATTRIBUTES;
      const attributeCount = attributeNames.length;
      let refersToIds = false;
      /** @type {string | null} */
      let inlineStyle = null;
      let popover = false;
      let hiddenAttribute = false;
      let editingHost = false;
      for (let position = 0; position < attributeCount; position++) {
        const name = attributeNames[position];
        const attributeValue = element.getAttribute(name) ?? "";
        attributes.push(intern(name), add(attributeValue));
        if (referenceAttributes !== null && !refersToIds) refersToIds = referenceAttributes.has(name);
        if (name === "style") inlineStyle = attributeValue;
        else if (name === "popover") popover = true;
        else if (name === "hidden") hiddenAttribute = true;
        else if (name === "contenteditable") editingHost = true;
      }
      if (refersToIds && !inShadowTree) referrers.push(element);
      // A shadow tree's sheets can style its host (`:host`), so they are looked at before
      // the host's own style is read.
      if ((!readContentVisibility || !readTextTransform) && shadowRoot !== null) {
        const shadowRules = styleRules(shadowRoot);
        readContentVisibility ||= rulesMention(shadowRules, "content-visibility");
        readTextTransform ||= rulesMention(shadowRules, "text-transform");
      }
      if ((!readContentVisibility || !readTextTransform) && inlineStyle !== null) {
        readContentVisibility ||= inlineStyle.includes("content-visibility");
        readTextTransform ||= inlineStyle.includes("text-transform");
      }
      if (!readCursor && (inlineStyle !== null || shadowRoot !== null)) {
        readCursor =
          (inlineStyle !== null && inlineStyle.includes("cursor")) ||
          (shadowRoot !== null && rulesSetPointerCursor(styleRules(shadowRoot)));
      }
      // STYLE_READS_BY_RULES.
      const readsEverything =
        ruleTargets === null ||
        treePosition !== IN_LIGHT_TREE ||
        shadowRoot !== null ||
        namespace !== HTML_NAMESPACE ||
        ruleTargets.has(element) ||
        (inlineStyle !== null && inlineStyleMayReach(inlineStyle));
      const reads =
        (readsEverything
          ? READ_VISIBILITY | READ_OVERFLOW
          : popover || USER_AGENT_SCROLLERS.has(localName)
            ? READ_OVERFLOW
            : 0) |
        // The user-agent sheet sets `content-visibility: hidden` on `hidden="until-found"`.
        (readContentVisibility || hiddenAttribute ? READ_CONTENT_VISIBILITY : 0);
      // Inside a select the style is read after the walk (STYLE_READ_DEFERRED): until then the
      // element's display is unknown, and its children inherit that along with the rest.
      const styleDeferred = deferredAncestor !== NOT_IN_SELECT;
      const style = styleDeferred ? undefined : getComputedStyle(element);
      // An editing host that holds a secret (shared/secret-fields.js: a masked one, a PIN's)
      // keeps its text out of the tree: its text nodes are gathered as bullets.
      if (editingHost && isSecretField(element, style)) secretEditingHosts.add(element);
      let display = DISPLAY_OTHER_BOX;
      if (style !== undefined) {
        flags |= styleFlagsOf(style, reads, nodes[(parent - 1) * NODE_STRIDE]);
        display = (flags >> DISPLAY_SHIFT) & TWO_BIT_CODE_MASK;
        if (readCursor && isPointerCursor(style.cursor)) {
          pointerCursorNodes.add(index);
          if (!pointerCursorNodes.has(parent - 1)) flags |= CURSOR_POINTER;
        }
      } else {
        deferredElements.push(element);
        deferredIndices.push(index);
        deferredAncestorsRendered.push(rendered);
        deferredAncestors.push(deferredAncestor);
        deferredReads.push(reads);
      }
      // Shadow trees and shadow hosts (`:host::before`) are not covered by the document's
      // rules, and `<q>` has the user-agent's quotes.
      if (
        generatedContent === null ||
        inShadowTree ||
        shadowRoot !== null ||
        localName === "q" ||
        generatedContent.has(element)
      ) {
        flags |= GENERATED_CONTENT_POSSIBLE;
      }
      if (display === DISPLAY_NONE) rendered = false;
      // `display: contents` and unrendered elements have no box; asking would only cost.
      if (!styleDeferred && rendered && display !== DISPLAY_CONTENTS) {
        flags |= HAS_BOX;
        if (measureBoxes) {
          const rect = element.getBoundingClientRect();
          rects.push(rect.x, rect.y, rect.width, rect.height);
          rectOwners.push(index);
        }
      }
      let value = 0;
      if (namespace === HTML_NAMESPACE) {
        switch (localName) {
          case "input": {
            const input = /** @type {HTMLInputElement} */ (element);
            const inputType = input.type;
            // Password and file values are never read (only whether files are attached), nor
            // the values of fields whose autocomplete names a secret (a one-time code, a card
            // number or code, a password in a text input) or that the page masks with
            // -webkit-text-security (shared/secret-fields.js): they would reach the agent's tree
            // and the side panel's call log.
            if (inputType === "file") {
              if (input.files !== null && input.files.length > 0) flags |= FILES_ATTACHED;
            } else if (!isSecretField(input, style)) {
              value = add(input.value) + 1;
            }
            if (input.checked) flags |= CHECKED;
            if (input.indeterminate) flags |= INDETERMINATE;
            if (input.matches(":disabled")) flags |= DISABLED;
            break;
          }
          case "textarea":
          case "select":
            if (!isSecretField(element, style)) {
              value = add(/** @type {HTMLTextAreaElement | HTMLSelectElement} */ (element).value) + 1;
            } else if (localName === "select") {
              // A card's expiry month chosen in a select: which option is selected is the secret.
              secretSelects.add(element);
            }
            if (element.matches(":disabled")) flags |= DISABLED;
            break;
          case "output":
            value = add(/** @type {HTMLOutputElement} */ (element).value) + 1;
            break;
          case "option":
            if (
              /** @type {HTMLOptionElement} */ (element).selected &&
              (secretSelects.size === 0 || !secretSelects.has(/** @type {Element} */ (element.closest("select"))))
            ) {
              flags |= OPTION_SELECTED;
            }
            if (element.matches(":disabled")) flags |= DISABLED;
            break;
          case "button":
          case "fieldset":
          case "optgroup":
            if (element.matches(":disabled")) flags |= DISABLED;
            break;
          case "slot":
            slotElements.push([index, /** @type {HTMLSlotElement} */ (element)]);
            break;
          default:
            break;
        }
      }
      if (clickListeners !== null && clickListeners.has(element)) flags |= HAS_CLICK_LISTENER;
      if (element === options.anchor) anchorIndex = index;
      if (options.withRefs) {
        const number = refNumberOf(element);
        if (number !== undefined) knownRefs.push(index, number);
      }
      if (options.withAriaRefs) {
        const known = knownAriaRef(element);
        if (known !== undefined) {
          knownAriaNodes.push(index);
          knownAria.push(known.reference, known.key);
        }
      }
      nodes.push(flags, parent, intern(localName), attributeCount, value);
      nodeList.push(element);
      const childrenDeferredAncestor = styleDeferred
        ? index
        : namespace === HTML_NAMESPACE && localName === "select"
          ? IN_SELECT
          : NOT_IN_SELECT;
      const childrenTreePosition = inShadowTree
        ? IN_SHADOW_TREE
        : shadowRoot !== null
          ? CHILD_OF_SHADOW_HOST
          : IN_LIGHT_TREE;
      // Children are pushed last first so that they pop in document order; the open shadow
      // root (content scripts see only open ones) is its own tree, linked to its host.
      for (let child = element.lastChild; child !== null; child = child.previousSibling) {
        pendingNodes.push(child);
        pendingParents.push(index + 1);
        pendingRendered.push(rendered);
        pendingTreePosition.push(childrenTreePosition);
        pendingDeferredAncestor.push(childrenDeferredAncestor);
      }
      if (shadowRoot !== null) {
        pendingNodes.push(shadowRoot);
        pendingParents.push(index + 1);
        pendingRendered.push(rendered);
        pendingTreePosition.push(IN_SHADOW_TREE);
        pendingDeferredAncestor.push(childrenDeferredAncestor);
      }
      continue;
    }
    if (type === Node.TEXT_NODE || type === Node.CDATA_SECTION_NODE) {
      const data = /** @type {CharacterData} */ (node).data;
      const shown = isInsideSecretHost(node, secretEditingHosts) && data.trim() !== "" ? SECRET_TEXT : data;
      nodes.push(KIND_TEXT, parent, add(shown), 0, 0);
      nodeList.push(node);
      continue;
    }
    let kind;
    if (type === Node.DOCUMENT_NODE) kind = KIND_DOCUMENT;
    else if (type === Node.DOCUMENT_FRAGMENT_NODE) {
      kind = KIND_SHADOW_ROOT;
      shadowRootCount += 1;
    } else continue;
    const documentFlags =
      kind === KIND_DOCUMENT
        ? (measureBoxes ? 0 : BOXES_UNMEASURED) | (readPointerEvents ? 0 : POINTER_EVENTS_UNREAD)
        : 0;
    nodes.push(kind | documentFlags, parent, 0, 0, 0);
    nodeList.push(node);
    // A shadow tree's top elements inherit their host's cursor.
    if (kind === KIND_SHADOW_ROOT && pointerCursorNodes.has(parent - 1)) pointerCursorNodes.add(index);
    for (let child = node.lastChild; child !== null; child = child.previousSibling) {
      pendingNodes.push(child);
      pendingParents.push(index + 1);
      pendingRendered.push(rendered);
      pendingTreePosition.push(treePosition);
      pendingDeferredAncestor.push(deferredAncestor);
    }
  }

  // The deferred style reads, in tree order, so that a deferred ancestor's display is known
  // before its descendants' boxes are decided.
  /** @type {Map<number, boolean>} */
  const deferredRendered = new Map();
  /** @type {number[]} */
  const deferredRects = [];
  /** @type {number[]} */
  const deferredRectOwners = [];
  for (let position = 0; position < deferredElements.length; position++) {
    const element = deferredElements[position];
    const index = deferredIndices[position];
    const ancestor = deferredAncestors[position];
    let rendered =
      deferredAncestorsRendered[position] && (ancestor === IN_SELECT || deferredRendered.get(ancestor) === true);
    // The parent's flags are final here: it came earlier in the walk, or earlier in this loop.
    const parentFlags = nodes[(nodes[index * NODE_STRIDE + 1] - 1) * NODE_STRIDE];
    const flags = styleFlagsOf(getComputedStyle(element), deferredReads[position], parentFlags);
    const display = (flags >> DISPLAY_SHIFT) & TWO_BIT_CODE_MASK;
    if (display === DISPLAY_NONE) rendered = false;
    let boxFlag = 0;
    if (rendered && display !== DISPLAY_CONTENTS) {
      boxFlag = HAS_BOX;
      if (measureBoxes) {
        const rect = element.getBoundingClientRect();
        deferredRects.push(rect.x, rect.y, rect.width, rect.height);
        deferredRectOwners.push(index);
      }
    }
    nodes[index * NODE_STRIDE] |= flags | boxFlag;
    deferredRendered.set(index, rendered);
  }
  const allRects =
    deferredRectOwners.length === 0 ? rects : mergedRects(rects, rectOwners, deferredRects, deferredRectOwners);

  /** @type {number[]} */
  const slots = [];
  if (slotElements.length > 0) {
    /** @type {Map<Node, number>} */
    const indexOf = new Map();
    nodeList.forEach((node, index) => indexOf.set(node, index));
    for (const [slotIndex, slot] of slotElements) {
      const assigned = slot.assignedNodes();
      const indices = [];
      for (const node of assigned) {
        const index = indexOf.get(node);
        if (index !== undefined) indices.push(index);
      }
      if (indices.length > 0) {
        slots.push(slotIndex, indices.length);
        // A loop rather than a spread: a slot can hold more nodes than a call has arguments.
        for (const index of indices) slots.push(index);
      }
    }
  }

  return {
    strings: strings.join(STRING_SEPARATOR),
    stringLengths: Uint32Array.from(lengths),
    nodes: Uint32Array.from(nodes),
    attributes: Uint32Array.from(attributes),
    rects: Float64Array.from(allRects),
    slots: Uint32Array.from(slots),
    viewport: Float64Array.of(window.innerWidth, window.innerHeight),
    nodeList,
    anchorIndex,
    knownRefs: Uint32Array.from(knownRefs),
    knownAriaNodes: Uint32Array.from(knownAriaNodes),
    knownAria: knownAria.join(STRING_SEPARATOR),
    shadowRootCount,
    cut,
    referrers,
  };
}

/**
 * The rectangles of the walk and of the deferred style reads (STYLE_READ_DEFERRED), each in
 * node order, merged into one list in node order (facts.rs reads them in that order).
 * @param {number[]} walkRects
 * @param {number[]} walkOwners node index of each of `walkRects`' rectangles
 * @param {number[]} deferredRects
 * @param {number[]} deferredOwners
 */
function mergedRects(walkRects, walkOwners, deferredRects, deferredOwners) {
  /** @type {number[]} */
  const merged = [];
  let walkPosition = 0;
  let deferredPosition = 0;
  while (walkPosition < walkOwners.length || deferredPosition < deferredOwners.length) {
    const takeWalk =
      deferredPosition >= deferredOwners.length ||
      (walkPosition < walkOwners.length && walkOwners[walkPosition] < deferredOwners[deferredPosition]);
    const source = takeWalk ? walkRects : deferredRects;
    const start = 4 * (takeWalk ? walkPosition++ : deferredPosition++);
    merged.push(source[start], source[start + 1], source[start + 2], source[start + 3]);
  }
  return merged;
}

/**
 * A function telling whether an element hosts a closed shadow root, or null where the gatherer
 * cannot ask (the BiDi collector's sandbox realm, a page's own world). Only extension content
 * scripts may ask: Chrome's `chrome.dom.openOrClosedShadowRoot(element)` and Firefox's
 * `element.openOrClosedShadowRoot` property (content scripts only, MDN); both also return open roots,
 * which the caller has already ruled out.
 * @returns {((element: Element) => boolean) | null}
 */
function closedShadowRootReader() {
  const chromeDom = /** @type {any} */ (globalThis).chrome?.dom;
  if (typeof chromeDom?.openOrClosedShadowRoot === "function") {
    return (element) => chromeDom.openOrClosedShadowRoot(element) != null;
  }
  // Firefox's is a read-only property (reading it on the prototype itself would throw).
  if ("openOrClosedShadowRoot" in Element.prototype) {
    return (element) => /** @type {any} */ (element).openOrClosedShadowRoot != null;
  }
  return null;
}

/**
 * The style rules of a document or shadow root (its sheets, imported sheets and rules nested
 * in @media, @supports, @layer and the like), or null when one of its sheets cannot be read
 * (cross-origin).
 * @param {Document | ShadowRoot} root
 * @returns {CSSRule[] | null}
 */
function styleRules(root) {
  /** @type {CSSRule[]} */
  const rules = [];
  /** @type {CSSRuleList[]} */
  const pending = [];
  try {
    for (const sheet of [...root.styleSheets, ...root.adoptedStyleSheets]) pending.push(sheet.cssRules);
    while (pending.length > 0) {
      for (const rule of /** @type {CSSRuleList} */ (pending.pop())) {
        rules.push(rule);
        if (rule instanceof CSSImportRule) {
          if (rule.styleSheet !== null) pending.push(rule.styleSheet.cssRules);
        } else if ("cssRules" in rule) {
          pending.push(/** @type {CSSGroupingRule} */ (rule).cssRules);
        }
      }
    }
  } catch {
    return null;
  }
  return rules;
}

/**
 * Whether style rules may set a property (true when they could not be read).
 * @param {CSSRule[] | null} rules
 * @param {string} property
 */
function rulesMention(rules, property) {
  return (
    rules === null || rules.some((rule) => rule instanceof CSSStyleRule && rule.style.getPropertyValue(property) !== "")
  );
}

/**
 * Whether style rules may give an element the pointer cursor (true when they could not be read).
 * @param {CSSRule[] | null} rules
 */
function rulesSetPointerCursor(rules) {
  return (
    rules === null ||
    rules.some((rule) => rule instanceof CSSStyleRule && rule.style.getPropertyValue("cursor").includes("pointer"))
  );
}

/**
 * Whether a computed `cursor` shows the pointer: the keyword, or the fallback after images
 * (`url(hand.png), pointer`).
 * @param {string} cursor
 */
function isPointerCursor(cursor) {
  return cursor === "pointer" || cursor.endsWith(", pointer");
}

/**
 * Computed `text-transform` -> its two-bit code of the fact format (TEXT_TRANSFORM_* in
 * facts.rs); `full-width` and `full-size-kana` change no letter's case.
 * @param {string} transform
 */
function textTransformBits(transform) {
  if (transform.includes("uppercase")) return TEXT_TRANSFORM_UPPERCASE;
  if (transform.includes("lowercase")) return TEXT_TRANSFORM_LOWERCASE;
  if (transform.includes("capitalize")) return TEXT_TRANSFORM_CAPITALIZE;
  return TEXT_TRANSFORM_NONE;
}

/**
 * Whether a computed `overflow-x` or `overflow-y` makes a scroll container the user can scroll
 * (CSS Overflow 3: `auto` and `scroll`; `hidden` and `clip` cannot be scrolled by the user).
 * @param {string} overflow
 */
function scrolls(overflow) {
  return overflow === "auto" || overflow === "scroll";
}

/**
 * Whether either axis of an element scrolls, with one property read for almost every element:
 * `visible` computes to `auto` when the other axis is neither `visible` nor `clip` (CSS
 * Overflow 3, "overflow-x, overflow-y": computed value), so an `overflow-x` of `visible` says
 * that `overflow-y` is `visible` or `clip`, and neither axis scrolls. Other elements have their
 * `overflow-y` read too. (Reading the computed `overflow` shorthand instead costs about twice a
 * longhand: Chromium serialises it from both; docs/performance/strict-csp.md, "The gatherer's property
 * reads".)
 * SPEC DIFFERENCE: the same rule turns `clip` into `hidden`, which Firefox does and Chromium 156
 * does not (`overflow-x: clip; overflow-y: auto` computes to `clip` and `auto` there:
 * fixtures/pages/scroll-axes.html, `#clip-and-auto`), so `clip` is no answer on its own.
 * @param {CSSStyleDeclaration} style
 */
function isScrollContainer(style) {
  const overflowX = style.overflowX;
  if (overflowX === "visible") return false;
  return scrolls(overflowX) || scrolls(style.overflowY);
}
