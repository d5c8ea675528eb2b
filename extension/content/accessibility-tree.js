// accessibility-tree.js: the tree builder and the ref_id registry of the French document
// (spec/ax-tree-and-ref-ids.fr.txt), as a classic content script in every frame.
//
// It runs in the content script's isolated world and never in the page's: the registry, the
// gatherer and the core live on this world's `window`, which page scripts cannot see. The only
// trace it leaves in the page is the `aria-ref` attribute of "ai" snapshots, which
// spec/surface-web-snapshot.txt asks for.
//
// The Rust core is loaded lazily: nothing is fetched, compiled or instantiated until the first
// tool call in this frame asks for a tree (content scripts run in every frame of every page).
// The background then injects one of two builds of the same crate, chosen from the frame's CSP
// (see docs/protocol.md, "Loading the core"): WASM, or the wasm2js build for pages whose CSP
// forbids WASM compilation in Chromium. Either defines `globalThis.allwrightAxCore`.
//
// Performance: reading the DOM node by node from WASM costs a boundary crossing per read, so
// this script walks the page once in plain JS and hands the core a few flat arrays in one call
// (the format is documented in crates/allwright-ax-wasm/src/facts.rs; constants below mirror it).

(() => {
  'use strict';

  // A second injection of this file into the same world keeps the first registry.
  if (globalThis.allwrightAx) {
    return;
  }

  // ---- Fact format (crates/allwright-ax-wasm/src/facts.rs) -----------------------------------

  const FACTS_VERSION = 2;
  const KIND_DOCUMENT = 0;
  const KIND_ELEMENT = 1;
  const KIND_TEXT = 2;
  const KIND_SHADOW_ROOT = 3;
  const NAMESPACE_SHIFT = 3;
  const DISPLAY_SHIFT = 5;
  const VISIBILITY_SHIFT = 7;
  const CONTENT_VISIBILITY_HIDDEN = 1 << 9;
  const POINTER_EVENTS_NONE = 1 << 10;
  const HAS_BOX = 1 << 11;
  const CHECKED = 1 << 12;
  const INDETERMINATE = 1 << 13;
  const OPTION_SELECTED = 1 << 14;
  const FILES_ATTACHED = 1 << 15;
  const DISABLED = 1 << 16;
  const BOXES_UNMEASURED = 1 << 17;
  const POINTER_EVENTS_UNREAD = 1 << 18;
  const GENERATED_CONTENT_POSSIBLE = 1 << 19;
  const STRING_SEPARATOR = '\u0001';

  const HTML_NAMESPACE = 'http://www.w3.org/1999/xhtml';
  const SVG_NAMESPACE = 'http://www.w3.org/2000/svg';
  const MATHML_NAMESPACE = 'http://www.w3.org/1998/Math/MathML';

  /** Computed `display` -> the two bits of the fact format (0 none, 1 contents, 2 inline, 3 box). */
  const displayBits = (/** @type {string} */ display) => {
    if (display === 'none') return 0;
    if (display === 'contents') return 1;
    // Inline-level boxes do not break words when text is gathered for a name.
    if (display.startsWith('inline') || display === 'ruby') return 2;
    return 3;
  };

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
   * @property {string} knownAria `reference \u0001 key` pairs for `knownAriaNodes`, joined.
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
   */

  /**
   * Walks the document once (light tree, open shadow roots, slot assignments) and records what
   * the core needs of every element and text node. Comments and other nodes are not sent.
   * @param {GatherOptions} options
   * @returns {Facts}
   */
  function gatherFacts(options) {
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
    // attribute mentions it (see mentionsContentVisibility).
    // The document's rules are collected once for both questions asked of them.
    const documentRules = styleRules(document);
    let readContentVisibility = rulesMentionContentVisibility(documentRules);
    const generatedContent = generatedContentCandidates(documentRules);

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
    const add = (/** @type {string} */ text) => {
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
    /** @type {boolean[]} */
    const pendingInShadowTree = [false];

    while (pendingNodes.length > 0) {
      const node = /** @type {Node} */ (pendingNodes.pop());
      const parent = /** @type {number} */ (pendingParents.pop());
      let rendered = /** @type {boolean} */ (pendingRendered.pop());
      const inShadowTree = /** @type {boolean} */ (pendingInShadowTree.pop());
      const index = nodeList.length;
      const type = node.nodeType;
      if (type === Node.ELEMENT_NODE) {
        const element = /** @type {Element} */ (node);
        const namespace = element.namespaceURI;
        const localName = element.localName;
        let flags =
          KIND_ELEMENT |
          ((namespace === HTML_NAMESPACE
            ? 0
            : namespace === SVG_NAMESPACE
              ? 1
              : namespace === MATHML_NAMESPACE
                ? 2
                : 3) <<
            NAMESPACE_SHIFT);
        const shadowRoot = element.shadowRoot;
        // A shadow tree's sheets can style its host (`:host`), so they are looked at before
        // the host's own style is read.
        if (!readContentVisibility && shadowRoot !== null) {
          readContentVisibility = mentionsContentVisibility(shadowRoot);
        }
        if (!readContentVisibility && element.getAttribute('style')?.includes('content-visibility')) {
          readContentVisibility = true;
        }
        const style = getComputedStyle(element);
        const display = displayBits(style.display);
        flags |= display << DISPLAY_SHIFT;
        const visibility = style.visibility;
        flags |= (visibility === 'hidden' ? 1 : visibility === 'collapse' ? 2 : 0) << VISIBILITY_SHIFT;
        // The user-agent sheet sets it on `hidden="until-found"`.
        if (
          (readContentVisibility || element.hasAttribute('hidden')) &&
          style.contentVisibility === 'hidden'
        ) {
          flags |= CONTENT_VISIBILITY_HIDDEN;
        }
        if (readPointerEvents && style.pointerEvents === 'none') flags |= POINTER_EVENTS_NONE;
        // Shadow trees and shadow hosts (`:host::before`) are not covered by the document's
        // rules, and `<q>` has the user-agent's quotes.
        if (
          generatedContent === null ||
          inShadowTree ||
          shadowRoot !== null ||
          localName === 'q' ||
          generatedContent.has(element)
        ) {
          flags |= GENERATED_CONTENT_POSSIBLE;
        }
        if (display === 0) rendered = false;
        // `display: contents` and unrendered elements have no box; asking would only cost.
        if (rendered && display !== 1) {
          flags |= HAS_BOX;
          if (measureBoxes) {
            const rect = element.getBoundingClientRect();
            rects.push(rect.x, rect.y, rect.width, rect.height);
          }
        }
        const attributeList = element.attributes;
        const attributeCount = attributeList.length;
        for (let position = 0; position < attributeCount; position++) {
          const attribute = /** @type {Attr} */ (attributeList[position]);
          attributes.push(intern(attribute.name), add(attribute.value));
        }
        let value = 0;
        if (namespace === HTML_NAMESPACE) {
          switch (localName) {
            case 'input': {
              const input = /** @type {HTMLInputElement} */ (element);
              const inputType = input.type;
              // Password and file values are never read (only whether files are attached).
              if (inputType === 'file') {
                if (input.files !== null && input.files.length > 0) flags |= FILES_ATTACHED;
              } else if (inputType !== 'password') {
                value = add(input.value) + 1;
              }
              if (input.checked) flags |= CHECKED;
              if (input.indeterminate) flags |= INDETERMINATE;
              if (input.matches(':disabled')) flags |= DISABLED;
              break;
            }
            case 'textarea':
            case 'select':
              value = add(/** @type {HTMLTextAreaElement | HTMLSelectElement} */ (element).value) + 1;
              if (element.matches(':disabled')) flags |= DISABLED;
              break;
            case 'output':
              value = add(/** @type {HTMLOutputElement} */ (element).value) + 1;
              break;
            case 'option':
              if (/** @type {HTMLOptionElement} */ (element).selected) flags |= OPTION_SELECTED;
              if (element.matches(':disabled')) flags |= DISABLED;
              break;
            case 'button':
            case 'fieldset':
            case 'optgroup':
              if (element.matches(':disabled')) flags |= DISABLED;
              break;
            case 'slot':
              slotElements.push([index, /** @type {HTMLSlotElement} */ (element)]);
              break;
            default:
              break;
          }
        }
        if (element === options.anchor) anchorIndex = index;
        if (options.withRefs) {
          const number = refNumbers.get(element);
          if (number !== undefined) knownRefs.push(index, number);
        }
        if (options.withAriaRefs) {
          const known = ariaRefs.get(element);
          if (known !== undefined) {
            knownAriaNodes.push(index);
            knownAria.push(known.reference, known.key);
          }
        }
        nodes.push(flags, parent, intern(localName), attributeCount, value);
        nodeList.push(element);
        // Children are pushed last first so that they pop in document order; the open shadow
        // root (content scripts see only open ones) is its own tree, linked to its host.
        for (let child = element.lastChild; child !== null; child = child.previousSibling) {
          pendingNodes.push(child);
          pendingParents.push(index + 1);
          pendingRendered.push(rendered);
          pendingInShadowTree.push(inShadowTree);
        }
        if (shadowRoot !== null) {
          pendingNodes.push(shadowRoot);
          pendingParents.push(index + 1);
          pendingRendered.push(rendered);
          pendingInShadowTree.push(true);
        }
        continue;
      }
      if (type === Node.TEXT_NODE || type === Node.CDATA_SECTION_NODE) {
        nodes.push(KIND_TEXT, parent, add(/** @type {CharacterData} */ (node).data), 0, 0);
        nodeList.push(node);
        continue;
      }
      let kind;
      if (type === Node.DOCUMENT_NODE) kind = KIND_DOCUMENT;
      else if (type === Node.DOCUMENT_FRAGMENT_NODE) kind = KIND_SHADOW_ROOT;
      else continue;
      const documentFlags =
        kind === KIND_DOCUMENT
          ? (measureBoxes ? 0 : BOXES_UNMEASURED) | (readPointerEvents ? 0 : POINTER_EVENTS_UNREAD)
          : 0;
      nodes.push(kind | documentFlags, parent, 0, 0, 0);
      nodeList.push(node);
      for (let child = node.lastChild; child !== null; child = child.previousSibling) {
        pendingNodes.push(child);
        pendingParents.push(index + 1);
        pendingRendered.push(rendered);
        pendingInShadowTree.push(inShadowTree);
      }
    }

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
      rects: Float64Array.from(rects),
      slots: Uint32Array.from(slots),
      viewport: Float64Array.of(window.innerWidth, window.innerHeight),
      nodeList,
      anchorIndex,
      knownRefs: Uint32Array.from(knownRefs),
      knownAriaNodes: Uint32Array.from(knownAriaNodes),
      knownAria: knownAria.join(STRING_SEPARATOR),
    };
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
          } else if ('cssRules' in rule) {
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
   * Whether a document's or shadow root's style sheets may set `content-visibility` (true when
   * a sheet cannot be read).
   * @param {Document | ShadowRoot} root
   */
  function mentionsContentVisibility(root) {
    return rulesMentionContentVisibility(styleRules(root));
  }

  /**
   * Whether style rules may set `content-visibility` (true when they could not be read).
   * @param {CSSRule[] | null} rules
   */
  function rulesMentionContentVisibility(rules) {
    return (
      rules === null ||
      rules.some(
        (rule) => rule instanceof CSSStyleRule && rule.style.getPropertyValue('content-visibility') !== '',
      )
    );
  }

  /**
   * The selectors (pseudo-element part removed) of the document's rules that give `::before` or
   * `::after` some content, joined into one selector list; '' when no rule does; null when it
   * cannot be known (a cross-origin sheet, nested rules, functional selectors), in which case
   * every element is asked. Conditions (@media, @supports, ...) are ignored: the list may match
   * too much, never too little.
   * @param {CSSRule[] | null} rules the document's, from styleRules
   * @returns {string | null}
   */
  function generatedContentSelector(rules) {
    if (rules === null) return null;
    /** @type {string[]} */
    const selectors = [];
    for (const rule of rules) {
      if (!(rule instanceof CSSStyleRule)) continue;
      // Nested rules (`&::before`) have selectors relative to their parent's.
      if (rule.cssRules.length > 0) return null;
      const text = rule.selectorText;
      if (!/:(before|after)\b/i.test(text)) continue;
      const content = rule.style.getPropertyValue('content').trim();
      if (['', 'none', 'normal', '""', "''"].includes(content)) continue;
      // A comma inside :is(...) or :not(...) would be cut wrongly below.
      if (text.includes('(')) return null;
      for (const part of text.split(',')) {
        const stripped = part.replace(/::?(before|after)\b/gi, '').trim();
        selectors.push(stripped === '' ? '*' : stripped);
      }
    }
    const list = selectors.join(',');
    try {
      if (list !== '') document.createElement('div').matches(list);
    } catch {
      return null;
    }
    return list;
  }

  /**
   * The document's elements that some rule may give `::before` or `::after` content (the
   * gatherer flags them GENERATED_CONTENT_POSSIBLE; the core asks for no other element's), or
   * null when that cannot be known and every element must be asked.
   * @param {CSSRule[] | null} rules the document's, from styleRules
   * @returns {Set<Element> | null}
   */
  function generatedContentCandidates(rules) {
    const selector = generatedContentSelector(rules);
    if (selector === null) return null;
    return new Set(selector === '' ? [] : document.querySelectorAll(selector));
  }

  /**
   * The core's one call-back: the computed `content` of `::before` / `::after`, asked for the
   * flagged elements (see generatedContentCandidates) whose names come from their content.
   * Resolving a pseudo-element's style is the expensive part, which the flag keeps to the
   * elements that may have some.
   * @param {Node[]} nodeList
   */
  function pseudoContentReader(nodeList) {
    return {
      /**
       * @param {number} index
       * @param {boolean} after
       * @returns {string | null}
       */
      read(index, after) {
        const element = nodeList[index];
        if (!(element instanceof Element)) return null;
        const style = getComputedStyle(element, after ? '::after' : '::before');
        if (style.display === 'none') return null;
        const content = style.content;
        if (content === 'none' || content === 'normal' || content === '') return null;
        return content.includes('quote') ? withQuotesResolved(content, element, style.quotes) : content;
      },
    };
  }

  /**
   * `quotes: auto` as Chromium 156 renders it, for the languages where it differs from English:
   * lowercase language tag -> outer open, outer close, inner open, inner close. Read from
   * Chromium's own accessible names of nested <q> elements in every ISO 639-1 language and common
   * regional tags (CSS leaves `auto` to the user agent; Chromium's table is older CLDR data).
   */
  const AUTO_QUOTES = new Map(Object.entries({
    am: '«»‹›', ar: '”“’‘', bg: '„“„“', ca: '«»“”', cs: '„“‚‘', de: '„“‚‘', el: '«»“”', et: '„“‚‘',
    fa: '«»‹›', fi: '””’’', fr: '«»«»', he: '””’’', hr: '„“‚‘', hu: '„”»«', it: '«»“”', ja: '「」『』',
    lt: '„“„“', nb: '«»‘’', nl: '‘’‘’', nn: '«»‘’', no: '«»‘’', pl: '„”«»', ro: '„”«»', ru: '«»„“',
    sk: '„“‚‘', sl: '„“‚‘', sr: '„”’’', sv: '””’’', uk: '«»„“', ur: '”“’‘', 'fr-ch': '«»‹›',
    'fr-ca': '«»”“', 'pt-pt': '«»“”', 'zh-hant': '「」『』',
  }));
  const ENGLISH_QUOTES = '“”‘’';
  /** A CSS string token, double- or single-quoted, with its escapes. */
  const CSS_STRING = /"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'/.source;

  /**
   * The computed `content` with `open-quote` and `close-quote` replaced by the quote marks the
   * browser draws, as CSS strings the core reads like any other (`no-open-quote` and
   * `no-close-quote` draw nothing). The nesting depth is the number of <q> ancestors: quote
   * depth is really counted over every quote in the document, which only <q> uses in practice.
   * @param {string} content
   * @param {Element} element
   * @param {string} quotes the computed `quotes` property
   */
  function withQuotesResolved(content, element, quotes) {
    /** @type {string[]} CSS string tokens, open and close alternating, outermost first. */
    let marks;
    if (quotes === 'auto') {
      let language = elementLanguage(element);
      while (language !== '' && !AUTO_QUOTES.has(language)) {
        language = language.includes('-') ? language.slice(0, language.lastIndexOf('-')) : '';
      }
      marks = [...(AUTO_QUOTES.get(language) ?? ENGLISH_QUOTES)].map((mark) => JSON.stringify(mark));
    } else {
      marks = quotes.match(new RegExp(CSS_STRING, 'g')) ?? [];
    }
    let depth = 0;
    for (let ancestor = composedParent(element); ancestor !== null; ancestor = composedParent(ancestor)) {
      if (ancestor.localName === 'q' && ancestor.namespaceURI === HTML_NAMESPACE) depth += 1;
    }
    const pairs = Math.floor(marks.length / 2);
    const pair = Math.min(depth, pairs - 1);
    return content.replace(
      new RegExp(`${CSS_STRING}|\\b(no-)?(open|close)-quote\\b`, 'g'),
      (token, no, which) => {
        if (which === undefined) return token;
        if (no !== undefined || pairs === 0) return '';
        return /** @type {string} */ (marks[2 * pair + (which === 'open' ? 0 : 1)]);
      },
    );
  }

  /** The parent element, or the host for the top of a shadow tree. */
  function composedParent(/** @type {Element} */ element) {
    if (element.parentElement !== null) return element.parentElement;
    const root = element.getRootNode();
    return root instanceof ShadowRoot ? root.host : null;
  }

  /** The language of an element: the nearest `lang` attribute, lowercased ('' when none). */
  function elementLanguage(/** @type {Element} */ element) {
    for (let current = /** @type {Element | null} */ (element); current !== null; current = composedParent(current)) {
      const language = current.getAttribute('lang');
      if (language !== null) return language.toLowerCase();
    }
    return '';
  }

  // ---- The ref_id registry (French document, "Registre ref_id") ------------------------------

  /**
   * `ref_N` -> WeakRef to the element, so that the registry never keeps a removed element alive
   * (long-lived SPAs and chat apps would leak otherwise).
   * @type {Record<string, WeakRef<Element>>}
   */
  const elementMap = Object.create(null);
  /** Element -> N of its `ref_N`, so that an element keeps its reference across builds. */
  const refNumbers = /** @type {WeakMap<Element, number>} */ (new WeakMap());

  const win = /** @type {any} */ (window);
  win.__wbElementMap = elementMap;
  // The last N handed out; the next reference is `ref_{N + 1}`.
  win.__wbRefCounter = 0;

  const refCounter = () => {
    const counter = win.__wbRefCounter;
    return Number.isSafeInteger(counter) && counter >= 0 && counter < 0xffffffff ? counter : 0;
  };

  /**
   * The live element of a reference, or null when it was released, collected or removed.
   * @param {unknown} ref
   * @returns {Element | null}
   */
  function lookup(ref) {
    if (typeof ref !== 'string') return null;
    const element = elementMap[ref]?.deref();
    return element !== undefined && element.isConnected ? element : null;
  }

  /**
   * Forgets a reference. Returns whether it existed.
   * @param {unknown} ref
   */
  function release(ref) {
    if (typeof ref !== 'string' || !(ref in elementMap)) return false;
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
  function suggest(ref, count = 5) {
    const limit = Number.isSafeInteger(count) && count > 0 ? Math.min(count, 50) : 5;
    const match = typeof ref === 'string' ? /^ref_(\d+)$/.exec(ref) : null;
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

  /** Drops the entries whose element was collected ("balayées" at the start of each build). */
  function sweep() {
    for (const key in elementMap) {
      if (elementMap[key].deref() === undefined) delete elementMap[key];
    }
  }

  win.__wb_ax_lookup = lookup;
  win.__wb_ax_release = release;
  win.__wb_ax_suggest = suggest;

  // ---- "ai" mode references (spec/surface-web-snapshot.txt) ----------------------------------

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
  /** @type {string | null} */
  let ariaPrefix = null;

  /**
   * A random prefix per document, so that references are unique across the documents of one
   * snapshot; a new document (navigation) gets a new script instance and so a new registry.
   */
  function documentPrefix() {
    if (ariaPrefix === null) {
      const bytes = crypto.getRandomValues(new Uint8Array(5));
      ariaPrefix = `${Array.from(bytes, (byte) => (byte % 36).toString(36)).join('')}-`;
    }
    return ariaPrefix;
  }

  /**
   * Sets `aria-ref` on every referenced element and removes the attributes this script set in
   * the previous capture on elements that are no longer referenced ("stale attributes assigned
   * by the collector are removed").
   * @param {Node[]} nodeList
   * @param {Array<[number, string, string]>} assigned
   */
  function applyAriaRefs(nodeList, assigned) {
    /** @type {Set<Element>} */
    const current = new Set();
    for (const [index, reference, key] of assigned) {
      const element = nodeList[index];
      if (!(element instanceof Element)) continue;
      current.add(element);
      ariaRefs.set(element, { reference, key });
      // The collector owns aria-ref on referenced elements; unchanged values are not rewritten,
      // so the page sees no needless mutation.
      if (element.getAttribute('aria-ref') !== reference) element.setAttribute('aria-ref', reference);
    }
    for (const weak of ariaAssigned) {
      const element = weak.deref();
      if (element === undefined || current.has(element)) continue;
      const known = ariaRefs.get(element);
      if (known !== undefined && element.getAttribute('aria-ref') === known.reference) {
        element.removeAttribute('aria-ref');
      }
    }
    ariaAssigned = Array.from(current, (element) => new WeakRef(element));
  }

  // ---- Loading the core ------------------------------------------------------------------------

  /**
   * @typedef {object} AxCore The API of generated/ax-core-wasm.js and generated/ax-core-js.js.
   * @property {'wasm' | 'js'} flavour
   * @property {Promise<void>} ready
   * @property {() => number} factsVersion
   * @property {(...args: any[]) => string} buildTextTree
   * @property {(...args: any[]) => string} writeSnapshotDocument
   */

  /** @type {Promise<AxCore> | null} */
  let corePromise = null;

  /** @returns {Promise<AxCore>} */
  function loadCore() {
    corePromise ??= requestCore().catch((error) => {
      corePromise = null;
      throw error;
    });
    return corePromise;
  }

  /** The policies of every `<meta http-equiv="Content-Security-Policy">` of this document. */
  function metaPolicies() {
    return Array.from(document.querySelectorAll('meta[http-equiv]'))
      .filter((meta) => meta.getAttribute('http-equiv')?.trim().toLowerCase() === 'content-security-policy')
      .map((meta) => meta.getAttribute('content') ?? '');
  }

  /** @returns {Promise<AxCore>} */
  async function requestCore() {
    const scope = /** @type {any} */ (globalThis);
    if (scope.allwrightAxCore === undefined) {
      // The background picks the build from this frame's CSP (headers + these meta policies)
      // and injects it into this world. Compiling WASM to find out would fire a
      // securitypolicyviolation event and a CSP report in the page.
      const extension = scope.browser ?? scope.chrome;
      // shared/messages.js (listed before this script) owns the message's shape.
      const messages = scope.allwrightMessages;
      const policies = metaPolicies();
      const request = messages?.loadCoreRequest(policies) ?? { kind: 'allwright/load-core', metaPolicies: policies };
      /** @type {any} */
      let reply;
      try {
        reply = await extension.runtime.sendMessage(request);
      } catch (error) {
        throw toolError('script_failed', `could not ask the extension for the tree core: ${describe(error)}`);
      }
      if (reply?.ok === false && reply.error) throw reply.error;
      if (reply?.core !== 'wasm' && reply?.core !== 'js') {
        throw toolError('script_failed', 'the extension did not load the tree core into this frame');
      }
    }
    /** @type {AxCore | undefined} */
    const core = scope.allwrightAxCore;
    if (core === undefined) {
      throw toolError('script_failed', 'the tree core was injected but did not start');
    }
    await core.ready;
    if (core.factsVersion() !== FACTS_VERSION) {
      throw toolError('script_failed', 'the tree core and the content script come from different builds', 'Reload the extension.');
    }
    return core;
  }

  /**
   * Runs one core call; a trap (a bug in the core) leaves the instance unusable, so the next
   * call asks for a fresh one.
   * @template T
   * @param {() => T} call
   * @returns {T}
   */
  function runCore(call) {
    try {
      return call();
    } catch (error) {
      corePromise = null;
      delete (/** @type {any} */ (globalThis).allwrightAxCore);
      throw toolError('script_failed', `the tree core failed: ${describe(error)}`);
    }
  }

  /**
   * Splits a core output into its JSON envelope and its raw body (crates/allwright-ax-wasm/src/api.rs).
   * @param {string} output
   * @returns {{envelope: any, body: string}}
   */
  function splitOutput(output) {
    const end = output.indexOf('\n');
    const envelope = JSON.parse(end < 0 ? output : output.slice(0, end));
    if (envelope.ok !== true) throw envelope.error;
    return { envelope, body: end < 0 ? '' : output.slice(end + 1) };
  }

  // ---- Errors and arguments --------------------------------------------------------------------

  /**
   * @typedef {object} ToolError
   * @property {string} code
   * @property {string} message
   * @property {string} [hint]
   * @property {string[]} [suggestions]
   */

  /**
   * @param {string} code
   * @param {string} message
   * @param {string} [hint]
   * @returns {ToolError}
   */
  function toolError(code, message, hint) {
    return hint === undefined ? { code, message } : { code, message, hint };
  }

  /** @param {unknown} error */
  function describe(error) {
    return error instanceof Error ? error.message || error.name : String(error);
  }

  /** @param {string} ref */
  function refNotFound(ref) {
    return {
      code: 'ref_not_found',
      message: `${ref} was not found: the element is gone or the page changed.`,
      hint: 'Read the tree again with get_accessibility_tree and use a current ref.',
      suggestions: suggest(ref, 5),
    };
  }

  /**
   * @param {Record<string, unknown>} args
   * @param {string} key
   * @param {number} min
   * @param {number} max
   * @param {number | undefined} fallback
   */
  function integerArgument(args, key, min, max, fallback) {
    const value = args[key];
    if (value === undefined || value === null) return fallback;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
      throw toolError('invalid_arguments', `${key} must be an integer from ${min} to ${max}`);
    }
    return value;
  }

  /** @param {unknown} args */
  function argumentObject(args) {
    if (args === undefined || args === null) return {};
    if (typeof args !== 'object' || Array.isArray(args)) {
      throw toolError('invalid_arguments', 'the arguments must be an object');
    }
    return /** @type {Record<string, unknown>} */ (args);
  }

  // ---- The API for content.js --------------------------------------------------------------

  /**
   * `generateAccessibilityTree(filter, maxDepth, maxChars, ref_id, page)` of the French
   * document, as the `get_accessibility_tree` result of docs/protocol.md.
   * @param {unknown} rawArgs `{filter?, maxDepth?, maxChars?, ref_id?, page?}`
   */
  async function generateAccessibilityTree(rawArgs) {
    const args = argumentObject(rawArgs);
    const filter = args.filter ?? 'all';
    if (filter !== 'all' && filter !== 'visible' && filter !== 'interactive') {
      throw toolError('invalid_arguments', 'filter must be "all", "visible" or "interactive"');
    }
    const maxDepth = /** @type {number} */ (integerArgument(args, 'maxDepth', 1, 100, 15));
    const maxChars = integerArgument(args, 'maxChars', 100, 1_000_000, undefined);
    const page = /** @type {number} */ (integerArgument(args, 'page', 1, 0xffffffff, 1));
    const refId = args.ref_id ?? undefined;
    if (refId !== undefined && (typeof refId !== 'string' || !/^ref_\d+$/.test(refId))) {
      throw toolError('invalid_arguments', 'ref_id must look like "ref_12"');
    }

    const core = await loadCore();
    // From the sweep to the registration below, everything is synchronous: no other build can
    // interleave and hand out the same numbers.
    sweep();
    const anchor = refId === undefined ? null : lookup(refId);
    if (refId !== undefined && anchor === null) throw refNotFound(refId);
    const facts = gatherFacts({
      anchor,
      withRefs: true,
      withAriaRefs: false,
      measureBoxes: filter === 'visible',
      readPointerEvents: false,
    });
    if (refId !== undefined && facts.anchorIndex < 0) throw refNotFound(refId);
    const counter = refCounter();
    const output = runCore(() =>
      core.buildTextTree(
        facts.strings,
        facts.stringLengths,
        facts.nodes,
        facts.attributes,
        facts.rects,
        facts.slots,
        facts.viewport,
        pseudoContentReader(facts.nodeList),
        filter,
        maxDepth,
        maxChars,
        refId === undefined ? undefined : facts.anchorIndex,
        refId,
        page,
        facts.knownRefs,
        counter,
        document.URL,
        document.title,
      ),
    );
    /** @type {{envelope: any, body: string}} */
    let split;
    try {
      split = splitOutput(output);
    } catch (error) {
      if (error?.code === 'ref_not_found' && refId !== undefined) {
        throw { ...error, suggestions: suggest(refId, 5) };
      }
      throw error;
    }
    const { envelope, body } = split;
    let number = counter;
    for (const index of envelope.newRefs) {
      const element = facts.nodeList[index];
      number += 1;
      if (!(element instanceof Element)) continue;
      elementMap[`ref_${number}`] = new WeakRef(element);
      refNumbers.set(element, number);
    }
    win.__wbRefCounter = number;
    recentTrees = [body, ...recentTrees.slice(0, RECENT_TREES_KEPT - 1)];
    return { tree: body, ...envelope.result };
  }

  /**
   * This frame's document of the structured snapshot (`snapshot_document` in docs/protocol.md).
   * @param {unknown} rawArgs `{format?, mode?, contextId, parentContextId?}`
   * @returns {Promise<{document: string}>}
   */
  async function snapshotDocument(rawArgs) {
    const args = argumentObject(rawArgs);
    const format = args.format ?? 'json';
    if (format !== 'json' && format !== 'yaml') {
      throw toolError('invalid_arguments', 'format must be "json" or "yaml"');
    }
    const mode = args.mode ?? undefined;
    if (mode !== undefined && mode !== 'ai') {
      throw toolError('invalid_arguments', 'mode must be "ai" or left out');
    }
    const contextId = args.contextId;
    const parentContextId = args.parentContextId ?? undefined;
    if (typeof contextId !== 'string' || (parentContextId !== undefined && typeof parentContextId !== 'string')) {
      throw toolError('invalid_arguments', 'contextId must be a string, and parentContextId a string or null');
    }

    const core = await loadCore();
    const ai = mode === 'ai';
    const facts = gatherFacts({
      anchor: null,
      withRefs: false,
      withAriaRefs: ai,
      measureBoxes: false,
      readPointerEvents: ai,
    });
    const output = runCore(() =>
      core.writeSnapshotDocument(
        facts.strings,
        facts.stringLengths,
        facts.nodes,
        facts.attributes,
        facts.rects,
        facts.slots,
        facts.viewport,
        pseudoContentReader(facts.nodeList),
        format,
        contextId,
        parentContextId,
        document.URL,
        document.title,
        ai ? documentPrefix() : undefined,
        ariaCounter,
        facts.knownAriaNodes,
        facts.knownAria,
      ),
    );
    const { envelope, body } = splitOutput(output);
    if (ai) {
      applyAriaRefs(facts.nodeList, envelope.ariaRefs);
      ariaCounter = envelope.ariaCounter;
    }
    return { document: body };
  }

  // ---- Helpers for the action tools (content/actions.js) ------------------------------------

  /**
   * The live element of a reference, for an action. Throws the structured `ref_not_found`
   * error (with nearby valid refs) when the element is gone: an action must never fall back
   * to another element than the one the reference was issued for.
   * @param {unknown} ref
   * @returns {Element}
   */
  function resolveRef(ref) {
    if (typeof ref !== 'string' || !/^ref_\d+$/.test(ref)) {
      throw toolError('invalid_arguments', 'ref_id must look like "ref_12"', 'Use a ref_N printed by get_accessibility_tree.');
    }
    const element = lookup(ref);
    if (element === null) throw refNotFound(ref);
    return element;
  }

  /**
   * The texts of the last trees this frame printed, newest first. Actions name their target from
   * the line the agent read, without building the tree again. A few are kept because an agent
   * may zoom into a container (an anchored read) and then act on a ref of the full read before.
   * @type {string[]}
   */
  let recentTrees = [];
  const RECENT_TREES_KEPT = 3;

  /**
   * The line of a tree text that carries `reference`, or null. The reference is matched with the
   * space before it: a name or value that contains "[ref_N]" is printed escaped as "\[ref_N]".
   * @param {string} tree
   * @param {string} reference
   */
  function lineWithReference(tree, reference) {
    const at = tree.indexOf(` [${reference}]`);
    if (at < 0) return null;
    const end = tree.indexOf('\n', at);
    return tree.slice(tree.lastIndexOf('\n', at) + 1, end < 0 ? tree.length : end);
  }

  /**
   * The role and name the tree printed for an element that has a reference, so that an action
   * reports its target exactly as the agent saw it: from the last trees read in this frame, or,
   * for a reference none of them shows, from a one-level tree anchored on it. An element the tree
   * does not show (hidden since it was read) is reported as "generic" with no name.
   * @param {Element} element
   * @returns {Promise<{role: string, name: string}>}
   */
  async function describeElement(element) {
    const number = refNumbers.get(element);
    if (number === undefined || lookup(`ref_${number}`) !== element) return { role: 'generic', name: '' };
    const reference = `ref_${number}`;
    for (const tree of recentTrees) {
      const line = lineWithReference(tree, reference);
      if (line !== null) return parseTreeLine(line);
    }
    let tree;
    try {
      ({ tree } = await generateAccessibilityTree({ ref_id: reference, maxDepth: 1, maxChars: 4000 }));
    } catch {
      // The tree no longer shows the element (hidden since it was read): the action still
      // runs on it, and its report just has no role or name to give.
      return { role: 'generic', name: '' };
    }
    const line = lineWithReference(tree, reference);
    return line === null ? { role: 'generic', name: '' } : parseTreeLine(line);
  }

  /**
   * Reads `role "name" [ref_N] ...` back into its role and unescaped name (text.rs,
   * `push_escaped`: backslash escapes for \\, ", \n, \r, \t, \[ and \u{XXXX}).
   * @param {string} line
   */
  function parseTreeLine(line) {
    const trimmed = line.trimStart();
    const space = trimmed.indexOf(' ');
    const role = space < 0 ? trimmed : trimmed.slice(0, space);
    if (space < 0 || trimmed[space + 1] !== '"') return { role, name: '' };
    let name = '';
    for (let index = space + 2; index < trimmed.length; index += 1) {
      const character = trimmed[index];
      if (character === '"') break;
      if (character !== '\\') {
        name += character;
        continue;
      }
      const escaped = trimmed[index + 1];
      index += 1;
      if (escaped === 'n') name += '\n';
      else if (escaped === 'r') name += '\r';
      else if (escaped === 't') name += '\t';
      else if (escaped === 'u') {
        const close = trimmed.indexOf('}', index);
        name += String.fromCodePoint(Number.parseInt(trimmed.slice(index + 2, close), 16) || 0xfffd);
        index = close;
      } else name += escaped;
    }
    return { role, name };
  }

  /**
   * Wraps an operation so that anything it throws reaches the caller as a tool error object.
   * @template A, R
   * @param {(args: A) => Promise<R>} operation
   * @returns {(args: A) => Promise<R>}
   */
  const withToolErrors = (operation) => async (args) => {
    try {
      return await operation(args);
    } catch (error) {
      if (error !== null && typeof error === 'object' && typeof error.code === 'string') throw error;
      throw toolError('script_failed', describe(error));
    }
  };

  Object.defineProperty(globalThis, 'allwrightAx', {
    value: Object.freeze({
      generateAccessibilityTree: withToolErrors(generateAccessibilityTree),
      snapshotDocument: withToolErrors(snapshotDocument),
      resolveRef,
      describeElement: withToolErrors(describeElement),
    }),
    configurable: false,
    enumerable: false,
    writable: false,
  });
})();
