// actions.js: the page-side half of the action tools (docs/protocol.md, "Content-side action
// tools"). click_element, type_text and fill_field are the French document's click_ax, type_ax
// and set_field (spec/ax-tree-and-ref-ids.fr.txt, "Outils AX"); select_option, hover_element,
// press_key, scroll and dom_quiet complete the set.
//
// A classic script, loaded between accessibility-tree.js and content.js in every frame. It runs in
// the content script's isolated world (Chrome) or behind Xray wrappers (Firefox) and never injects
// code into the page's world. The DOM is shared, so the events dispatched here reach the page's
// listeners; the page's own JavaScript overrides of DOM properties are not shared, so the native
// value setters used here are the browser's and not a framework's wrapper.
//
// This file acts and reports; the background decides. Every result separates `evidence` (an
// observed effect that counts as progress) from `hints` (diagnostics that never count), and the
// background turns them into `progress`, `retryAllowed` and the trusted fallback of click_ax.
"use strict";

(function installAllwrightActions() {
  // The background may inject the content scripts again into a frame that already has them; the
  // first copy keeps its remembered clicks.
  if (globalThis.allwrightActions !== undefined) return;

  // ---- Tables ----------------------------------------------------------------------------------

  /** Attributes whose change on the target is "état sémantique" progress (aria-current, ...). */
  const SEMANTIC_STATE_ATTRIBUTES = Object.freeze([
    "aria-current",
    "aria-expanded",
    "aria-pressed",
    "aria-selected",
    "aria-checked",
  ]);

  /** What the mutation observers watch: everything, everywhere below the observed root. */
  const OBSERVE_EVERYTHING = Object.freeze({
    subtree: true,
    childList: true,
    attributes: true,
    characterData: true,
  });

  /**
   * Input types that type_ax refuses ("Refuse les types de saisie non saisissables"), each with
   * the hint naming the tool that fits.
   */
  const UNTYPABLE_INPUT_TYPES = Object.freeze({
    checkbox: "Use click_ax on the checkbox to check or uncheck it.",
    radio: "Use click_ax on the radio button to choose it.",
    submit: "Use click_ax to press the button, or set_field with submit: true on a field of its form.",
    reset: "Use click_ax to press the button.",
    button: "Use click_ax to press the button.",
    image: "Use click_ax to press the image button.",
    file: "A file input cannot be filled by typing; allwright has no file-upload tool.",
    hidden: "A hidden input is not meant to be typed into; type into the visible field instead.",
    range: "Use press_key with ArrowLeft, ArrowRight, Home or End on the slider.",
    color: "Use click_ax to open the colour picker; its value cannot be typed.",
  });

  /** Roles whose element has an on/off or chosen state that a second activation would flip. */
  const TOGGLE_ROLES = new Set([
    "checkbox",
    "switch",
    "radio",
    "tab",
    "option",
    "menuitemcheckbox",
    "menuitemradio",
    "treeitem",
  ]);

  /** Attributes that, when present at all, say the element has a toggle state. */
  const TOGGLE_STATE_ATTRIBUTES = Object.freeze(["aria-pressed", "aria-checked", "aria-expanded", "aria-selected"]);

  /** Native form controls and media: their default actions are the browser's, not a handler's. */
  const NATIVE_CONTROL_TAGS = new Set(["input", "select", "textarea", "option", "optgroup", "audio", "video"]);

  /**
   * Words that make a target's name sound like it changes something on the server. A trusted
   * second click on such a target could act twice, so it is never retried automatically. English
   * and French, matched as whole words, case-insensitively, on the name and the text.
   */
  const MUTATING_WORDS = Object.freeze([
    "delete", "remove", "pay", "buy", "purchase", "order", "send", "submit", "confirm", "transfer",
    "publish", "post", "save", "archive", "unsubscribe", "subscribe", "checkout", "book",
    "supprimer", "payer", "acheter", "envoyer", "valider", "confirmer", "commander", "enregistrer",
  ]);
  const MUTATING_NAME = new RegExp(`\\b(${MUTATING_WORDS.join("|")})\\b`, "i");

  /**
   * KeyboardEvent `code` and legacy `keyCode` of the named keys. Letters, digits and F-keys are
   * computed in `keyDefinition`; other printable characters get no code, as on a layout that
   * lacks them.
   */
  const NAMED_KEYS = Object.freeze({
    Enter: ["Enter", 13],
    Tab: ["Tab", 9],
    Escape: ["Escape", 27],
    Backspace: ["Backspace", 8],
    Delete: ["Delete", 46],
    " ": ["Space", 32],
    ArrowLeft: ["ArrowLeft", 37],
    ArrowUp: ["ArrowUp", 38],
    ArrowRight: ["ArrowRight", 39],
    ArrowDown: ["ArrowDown", 40],
    Home: ["Home", 36],
    End: ["End", 35],
    PageUp: ["PageUp", 33],
    PageDown: ["PageDown", 34],
    Insert: ["Insert", 45],
    Shift: ["ShiftLeft", 16],
    Control: ["ControlLeft", 17],
    Alt: ["AltLeft", 18],
    Meta: ["MetaLeft", 91],
    ContextMenu: ["ContextMenu", 93],
  });

  /** press_key's modifier names -> the KeyboardEvent flag each one sets. */
  const MODIFIER_FLAGS = Object.freeze({ Alt: "altKey", Control: "ctrlKey", Meta: "metaKey", Shift: "shiftKey" });

  /** Roles that Enter activates like a click (press_key's "click" default action). */
  const ENTER_ACTIVATED_ROLES = new Set(["button", "link", "menuitem", "menuitemcheckbox", "menuitemradio", "option", "tab"]);

  /** Roles that Space activates like a click: buttons and checkbox-like widgets. */
  const SPACE_ACTIVATED_ROLES = new Set(["button", "checkbox", "switch", "radio", "menuitemcheckbox", "menuitemradio"]);

  /** Roles of the popups that a hover may reveal (tooltips, menus, lists, dialogs). */
  const POPUP_SELECTOR = '[role~="tooltip"], [role~="menu"], [role~="listbox"], [role~="dialog"], '
    + '[role~="alertdialog"], dialog, [popover]';

  /** Elements that sequential focus navigation (Tab) may stop at, before the tabIndex check. */
  const TABBABLE_CANDIDATES = "a[href], area[href], button, input, select, textarea, iframe, summary, "
    + "audio[controls], video[controls], [contenteditable], [tabindex]";

  /**
   * How long a click's before-state stays available to observe_click. The background observes for
   * about a second (two intervals, perhaps a fallback and one more); the margin covers a slow
   * message channel. Every remembered click keeps a document-wide MutationObserver running, so
   * the memory is short.
   */
  const CLICK_MEMORY_MS = 10_000;
  /** set_field: how long a combobox's suggestion list may take to appear after typing. */
  const SUGGESTIONS_TIMEOUT_MS = 1000;
  /** set_field: the "petits délais" between the keys that commit a suggestion. */
  const COMBOBOX_KEY_DELAY_MS = 100;
  /** select_option: how long a click may take to open a list, then an ArrowDown. */
  const LIST_OPEN_BY_CLICK_MS = 500;
  const LIST_OPEN_BY_KEY_MS = 1000;
  /** select_option: how long an option's activation may take to show. */
  const OPTION_COMMIT_MS = 300;
  /** hover_element: how long a tooltip or menu may take to show. */
  const HOVER_OBSERVATION_MS = 500;
  /** The most option labels an option_not_found error suggests. */
  const MAX_OPTION_SUGGESTIONS = 20;

  // ---- Errors and arguments --------------------------------------------------------------------

  /**
   * A structured tool error, thrown as a plain object (docs/protocol.md, "Error codes").
   * @param {string} code
   * @param {string} message
   * @param {{hint?: string, suggestions?: string[]}} [extras]
   */
  function actionError(code, message, extras = {}) {
    const error = { code, message };
    if (extras.hint !== undefined) error.hint = extras.hint;
    if (extras.suggestions !== undefined) error.suggestions = extras.suggestions;
    return error;
  }

  // The background validated the arguments already; these checks only keep a malformed message
  // from turning into a confusing script failure.
  function argumentObject(args) {
    if (args === null || typeof args !== "object") {
      throw actionError("invalid_arguments", "the arguments must be an object");
    }
    return args;
  }

  function requiredString(args, key) {
    const value = args[key];
    if (typeof value !== "string") throw actionError("invalid_arguments", `${key} must be a string`);
    return value;
  }

  function optionalString(args, key) {
    const value = args[key];
    if (value === undefined || value === null) return undefined;
    if (typeof value !== "string") throw actionError("invalid_arguments", `${key} must be a string`);
    return value;
  }

  function booleanArgument(args, key, fallback) {
    const value = args[key];
    if (value === undefined || value === null) return fallback;
    if (typeof value !== "boolean") throw actionError("invalid_arguments", `${key} must be a boolean`);
    return value;
  }

  function numberArgument(args, key, fallback) {
    const value = args[key];
    if (value === undefined || value === null) return fallback;
    if (typeof value !== "number" || !Number.isFinite(value) || value < 0) {
      throw actionError("invalid_arguments", `${key} must be a non-negative number`);
    }
    return value;
  }

  /** The registry's helpers; without them the frame's scripts are not all running. */
  function requireAx(ax) {
    if (ax === null || typeof ax !== "object" || typeof ax.resolveRef !== "function"
      || typeof ax.describeElement !== "function") {
      throw new Error("the accessibility tree script (resolveRef, describeElement) is not available");
    }
    return ax;
  }

  /**
   * The live element of `args.ref_id`. A stale reference makes `resolveRef` throw the structured
   * ref_not_found error, with its suggestions, which propagates unchanged.
   */
  function resolveTarget(ax, args) {
    const element = requireAx(ax).resolveRef(requiredString(args, "ref_id"));
    if (element === null || typeof element !== "object" || element.nodeType !== Node.ELEMENT_NODE) {
      throw actionError("ref_not_found", `${args.ref_id} does not name an element`, {
        hint: "Read the tree again with get_accessibility_tree and use a current ref.",
      });
    }
    return element;
  }

  /**
   * The target as the tree names it. Taken before acting: the action may remove the element.
   * @returns {Promise<{tag: string, role: string, name: string}>}
   */
  async function describeTarget(ax, element) {
    const { role, name } = await requireAx(ax).describeElement(element);
    return { tag: element.localName.toLowerCase(), role, name };
  }

  // ---- Time --------------------------------------------------------------------------------------

  const delay = (milliseconds) => new Promise((resolve) => setTimeout(resolve, milliseconds));

  /**
   * The next task: every microtask the action queued (a React 18 render after a click, a
   * promise-based handler) has run by then, as it would have after a real event.
   */
  const nextTask = () => delay(0);

  /**
   * One animation frame, or `fallbackMs` when frames do not come (a hidden tab runs no frames).
   * @param {number} [fallbackMs]
   */
  function nextFrame(fallbackMs = 50) {
    return new Promise((resolve) => {
      let settled = false;
      const finish = () => {
        if (settled) return;
        settled = true;
        resolve();
      };
      requestAnimationFrame(finish);
      setTimeout(finish, fallbackMs);
    });
  }

  /** After a microtask and a frame: where a framework's re-render has written the DOM back. */
  async function settle() {
    await Promise.resolve();
    await nextFrame();
  }

  /**
   * Polls `check` each frame (or 50 ms) until it returns something truthy or `timeoutMs` passes.
   * @template T
   * @param {() => T} check
   * @param {number} timeoutMs
   * @returns {Promise<T | null>}
   */
  async function waitFor(check, timeoutMs) {
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      const value = check();
      if (value) return value;
      const remaining = deadline - performance.now();
      if (remaining <= 0) return null;
      await nextFrame(Math.min(50, remaining));
    }
  }

  // ---- The DOM across shadow roots ---------------------------------------------------------------

  /** The parent node, stepping from a shadow root to its host. */
  function parentAcrossShadow(node) {
    const parent = node.parentNode;
    if (parent === null) return null;
    if (parent.nodeType === Node.DOCUMENT_FRAGMENT_NODE) return parent.host ?? null;
    return parent;
  }

  /** The parent element in the flat tree (where a slotted node is rendered), for styles. */
  function flatTreeParentElement(node) {
    if (node.assignedSlot) return node.assignedSlot;
    const parent = parentAcrossShadow(node);
    return parent !== null && parent.nodeType === Node.ELEMENT_NODE ? parent : null;
  }

  /** Whether `node` is `ancestor` or lies inside it, shadow trees included. */
  function isSelfOrInside(ancestor, node) {
    for (let current = node; current !== null; current = parentAcrossShadow(current)) {
      if (current === ancestor) return true;
    }
    return false;
  }

  /** The nearest element from `element` upwards (shadow hosts included) that `predicate` accepts. */
  function closestAcrossShadow(element, predicate) {
    for (let current = element; current !== null; current = parentAcrossShadow(current)) {
      if (current.nodeType === Node.ELEMENT_NODE && predicate(current)) return current;
    }
    return null;
  }

  /** `querySelectorAll` that also looks inside open shadow roots; for small subtrees only. */
  function queryAllAcrossShadow(root, selector) {
    const found = [];
    const pending = [root];
    while (pending.length > 0) {
      const scope = pending.pop();
      found.push(...scope.querySelectorAll(selector));
      for (const element of scope.querySelectorAll("*")) {
        if (element.shadowRoot) pending.push(element.shadowRoot);
      }
    }
    return found;
  }

  /** The elements an IDREF list names, looked up in the element's own tree first. */
  function elementsByIdList(element, attribute) {
    const ids = (element.getAttribute(attribute) ?? "").trim().split(/\s+/).filter(Boolean);
    const root = element.getRootNode();
    const found = [];
    for (const id of ids) {
      const named = (typeof root.getElementById === "function" ? root.getElementById(id) : null)
        ?? document.getElementById(id);
      if (named !== null) found.push(named);
    }
    return found;
  }

  /** The focused element, descending into open shadow roots (keys go to the deepest one). */
  function deepActiveElement() {
    let active = document.activeElement;
    while (active?.shadowRoot?.activeElement) active = active.shadowRoot.activeElement;
    return active ?? document.body ?? document.documentElement;
  }

  /** The first token of the role attribute: the explicit role, as the tree reads it. */
  function explicitRole(element) {
    const role = element.getAttribute?.("role");
    return role ? role.trim().split(/\s+/)[0].toLowerCase() : "";
  }

  function isNativelyDisabled(element) {
    // `:disabled` covers disabled form controls and those inside a disabled fieldset (outside its
    // first legend), which is exactly when the browser refuses to activate them.
    return typeof element.matches === "function" && element.matches(":disabled");
  }

  function formOwner(element) {
    if (element.form instanceof HTMLFormElement) return element.form;
    return closestAcrossShadow(element, (node) => node.localName === "form");
  }

  function isSubmitButton(element) {
    if (element.localName === "button") return element.type === "submit";
    return element.localName === "input" && (element.type === "submit" || element.type === "image");
  }

  /** Whitespace collapsed and trimmed, as a list shows a label. */
  const normalizeText = (text) => (text ?? "").replace(/\s+/g, " ").trim();

  /** A short quotation of a value for a hint. */
  function quote(text, limit = 80) {
    const shown = text.length > limit ? `${text.slice(0, limit)}…` : text;
    return JSON.stringify(shown);
  }

  // ---- Geometry and visibility ------------------------------------------------------------------

  /** The border box in this frame's viewport, in whole CSS pixels. */
  function viewportRect(element) {
    const box = element.getBoundingClientRect();
    return {
      x: Math.round(box.x),
      y: Math.round(box.y),
      width: Math.round(box.width),
      height: Math.round(box.height),
    };
  }

  const centreOf = (rect) => ({ x: Math.round(rect.x + rect.width / 2), y: Math.round(rect.y + rect.height / 2) });

  const sameRect = (left, right) => left !== null && right !== null && left.x === right.x
    && left.y === right.y && left.width === right.width && left.height === right.height;

  function isPointInViewport(point) {
    return point.x >= 0 && point.y >= 0 && point.x < innerWidth && point.y < innerHeight;
  }

  /** Scrolls only when the element's centre is off screen, as a person would before acting. */
  function scrollIntoViewIfNeeded(element) {
    if (isPointInViewport(centreOf(viewportRect(element)))) return false;
    // "instant": a page's `scroll-behavior: smooth` would otherwise leave the target moving while
    // its rect is measured.
    element.scrollIntoView({ block: "center", inline: "center", behavior: "instant" });
    return true;
  }

  /**
   * Why CSS keeps the element from being seen, or null: display none, visibility hidden or
   * opacity 0 on it or an ancestor (flat tree), or a box of zero size.
   */
  function cssHiddenReason(element) {
    const ownStyle = getComputedStyle(element);
    // `visibility` is inherited, so the element's own computed value accounts for its ancestors.
    if (ownStyle.visibility !== "visible") return "hidden by CSS (visibility)";
    for (let node = element; node !== null; node = flatTreeParentElement(node)) {
      const style = node === element ? ownStyle : getComputedStyle(node);
      if (style.display === "none") return "hidden by CSS (display: none)";
      if (Number(style.opacity) === 0) return "hidden by CSS (opacity: 0)";
    }
    const box = element.getBoundingClientRect();
    if (box.width === 0 || box.height === 0) return "zero-size box";
    return null;
  }

  const isShown = (element) => element.isConnected && cssHiddenReason(element) === null;

  // ---- Mutation evidence ------------------------------------------------------------------------

  /**
   * Observes the document and every shadow root between it and the element: a document-wide
   * observer does not see inside shadow trees.
   */
  function observeAroundElement(observer, element) {
    observer.observe(document, OBSERVE_EVERYTHING);
    for (let root = element.getRootNode(); root.nodeType === Node.DOCUMENT_FRAGMENT_NODE && root.host;
      root = root.host.getRootNode()) {
      observer.observe(root, OBSERVE_EVERYTHING);
    }
  }

  /**
   * A mutation observer that collects records until `finish()`; for actions whose evidence is
   * read once, a little after acting.
   */
  function startMutationWindow(element) {
    const records = [];
    const observer = new MutationObserver((batch) => {
      for (const record of batch) records.push(record);
    });
    observeAroundElement(observer, element);
    return {
      records,
      /** Everything observed so far, observer still running. */
      collect() {
        for (const record of observer.takeRecords()) records.push(record);
        return records;
      },
      finish() {
        this.collect();
        observer.disconnect();
        return records;
      },
    };
  }

  const nodesOfRecord = (record) => [...record.addedNodes, ...record.removedNodes];

  /**
   * Whether a mutation is local to the target, as the French document defines local progress:
   * the target itself or its subtree, a direct attribute change of one of its ancestors, or what
   * its aria-controls names (including that element being inserted or removed).
   */
  function isLocalMutation(record, element, controlledElements) {
    const node = record.target;
    if (isSelfOrInside(element, node)) return true;
    if (record.type === "attributes" && isSelfOrInside(node, element)) return true;
    // The target itself inserted, moved or removed by the handler (a dismissed chip, a row that
    // re-rendered) is a change of the target, although the record's target is its parent.
    if (record.type === "childList" && nodesOfRecord(record).some((changed) => isSelfOrInside(changed, element))) {
      return true;
    }
    for (const controlled of controlledElements) {
      if (isSelfOrInside(controlled, node)) return true;
      if (record.type === "childList" && nodesOfRecord(record).some((changed) => isSelfOrInside(changed, controlled))) {
        return true;
      }
    }
    return false;
  }

  /** Splits mutation records into "local to the target" and a count of the others. */
  function classifyMutations(records, element, controlledElements) {
    let local = false;
    let elsewhere = 0;
    for (const record of records) {
      if (isLocalMutation(record, element, controlledElements)) local = true;
      else elsewhere += 1;
    }
    return { local, elsewhere };
  }

  /** The elements that aria-controls names, now (a popup may be created by the action itself). */
  const controlledBy = (element) => (element.hasAttribute("aria-controls") ? elementsByIdList(element, "aria-controls") : []);

  /** The target's semantic state: the ARIA states above, and `checked` / `open` properties. */
  function semanticState(element) {
    const state = {};
    for (const attribute of SEMANTIC_STATE_ATTRIBUTES) state[attribute] = element.getAttribute(attribute);
    // Native toggles change a property without any attribute: a checkbox's checkedness, an open
    // details or dialog.
    state.checked = element.localName === "input" ? Boolean(element.checked) : null;
    state.open = element.localName === "details" || element.localName === "dialog" ? Boolean(element.open) : null;
    return state;
  }

  /** `semantic_state:<name>` for every state that differs. */
  function semanticStateChanges(before, after) {
    return Object.keys(before).filter((key) => before[key] !== after[key]).map((key) => `semantic_state:${key}`);
  }

  /** The target's appearance, whose deferred changes observe_click reports as hints only. */
  function targetAppearance(element) {
    return {
      name: [element.getAttribute("aria-label"), element.getAttribute("title"), normalizeText(element.textContent).slice(0, 500)].join("\u0000"),
      class: element.getAttribute("class"),
      style: element.getAttribute("style"),
      children: element.childNodes.length,
    };
  }

  /**
   * Focuses an element as a person's click or Tab would, focus events included. A browser whose
   * window is not the active one (a background window, a headless Firefox) moves
   * document.activeElement but holds the focus events back until the window is activated;
   * components that track focus through them (MUI's Autocomplete resets its input while it
   * believes it is unfocused) would then undo what the agent types. When the element took focus
   * and no focus event came, the events are dispatched as the browser would have.
   * @param {Element} element
   * @param {{preventScroll?: boolean}} [options]
   */
  function focusElement(element, { preventScroll = true } = {}) {
    if (typeof element.focus !== "function") return;
    const previous = deepActiveElement();
    let focusEventSeen = false;
    const seen = () => {
      focusEventSeen = true;
    };
    element.addEventListener("focus", seen, { capture: true, once: true });
    element.focus({ preventScroll });
    element.removeEventListener("focus", seen, { capture: true });
    if (focusEventSeen || deepActiveElement() !== element || previous === element) return;
    if (previous !== null && previous !== document.body && previous !== element) {
      previous.dispatchEvent(new FocusEvent("blur", { relatedTarget: element, composed: true }));
      previous.dispatchEvent(new FocusEvent("focusout", { bubbles: true, relatedTarget: element, composed: true }));
    }
    element.dispatchEvent(new FocusEvent("focus", { relatedTarget: previous, composed: true }));
    element.dispatchEvent(new FocusEvent("focusin", { bubbles: true, relatedTarget: previous, composed: true }));
  }

  function focusQuietly(element) {
    focusElement(element);
  }

  /**
   * "Déclenche el.click()". SVG and MathML elements have no click(); they get the click event it
   * would have dispatched, at their centre.
   */
  function activate(element) {
    if (typeof element.click === "function") {
      element.click();
      return;
    }
    const point = centreOf(viewportRect(element));
    element.dispatchEvent(new MouseEvent("click", {
      bubbles: true,
      cancelable: true,
      composed: true,
      view: window,
      detail: 1,
      clientX: point.x,
      clientY: point.y,
    }));
  }

  // ---- click_element and observe_click (click_ax) --------------------------------------------------

  /**
   * Clicks remembered for observe_click, by token. Entries hold the element through a WeakRef and
   * forget themselves after CLICK_MEMORY_MS, observer included.
   * @type {Map<string, object>}
   */
  const rememberedClicks = new Map();

  function newClickToken() {
    const bytes = new Uint8Array(12);
    crypto.getRandomValues(bytes);
    return `click_${Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("")}`;
  }

  function forgetClick(token) {
    const entry = rememberedClicks.get(token);
    if (entry === undefined) return;
    entry.observer.disconnect();
    clearTimeout(entry.expiry);
    rememberedClicks.delete(token);
  }

  function forgetExpiredClicks() {
    const now = performance.now();
    for (const [token, entry] of rememberedClicks) {
      if (now - entry.clickedAt > CLICK_MEMORY_MS) forgetClick(token);
    }
  }

  /** Deferred mutations after a click: whether they touched the target, and how many did not. */
  function noteDeferredMutations(entry, records) {
    const element = entry.elementRef.deref();
    for (const record of records) {
      if (element !== undefined && (isSelfOrInside(element, record.target)
        || (record.type === "childList" && nodesOfRecord(record).some((changed) => isSelfOrInside(changed, element))))) {
        entry.targetMutatedSinceObservation = true;
      } else {
        entry.deferredMutationsElsewhere += 1;
        entry.pageMutatedSinceObservation = true;
      }
    }
  }

  /** What a link or submit button would do: its absolute href, and whether it leaves the page. */
  function navigationOf(element) {
    if ((element.localName === "a" || element.localName === "area")
      && (element.hasAttribute("href") || element.hasAttribute("xlink:href"))) {
      const raw = element.getAttribute("href") ?? element.getAttribute("xlink:href") ?? "";
      let href;
      try {
        href = new URL(raw, element.baseURI).href;
      } catch {
        return { href: raw, navigates: false };
      }
      if (/^\s*javascript:/i.test(raw)) return { href, navigates: false };
      const withoutFragment = (url) => url.split("#")[0];
      const sameDocumentFragment = raw.trim().startsWith("#")
        || (href.includes("#") && withoutFragment(href) === withoutFragment(location.href));
      return { href, navigates: !sameDocumentFragment };
    }
    return { href: undefined, navigates: isSubmitButton(element) && formOwner(element) !== null };
  }

  /**
   * Why a trusted click through the debugger would not be safe on this target, or null when it
   * is a "cible générique sûre". Ordered from cheapest to costliest; the first reason wins.
   */
  function unsafeFallbackReason(element, name) {
    if (!element.isConnected) return "the target left the page";
    const hidden = cssHiddenReason(element);
    if (hidden !== null) return hidden;
    if (getComputedStyle(element).pointerEvents === "none") return "pointer-events: none";

    // Native controls, and anything inside a label that forwards its clicks to one.
    if (NATIVE_CONTROL_TAGS.has(element.localName)) return "native form control";
    const label = closestAcrossShadow(element, (node) => node.localName === "label");
    if (label !== null && label.control !== null) return "native form control (label)";

    // A toggle flipped by the synthetic click and flipped back by a second, trusted one.
    if (TOGGLE_STATE_ATTRIBUTES.some((attribute) => element.hasAttribute(attribute))) return "toggle state";
    if (closestAcrossShadow(element, (node) => TOGGLE_ROLES.has(explicitRole(node))) !== null) return "toggle state";
    if (element.localName === "details" || closestAcrossShadow(element, (node) => node.localName === "summary") !== null) {
      return "toggle state (details)";
    }

    if (formOwner(element) !== null || element.hasAttribute("form")) return "inside a form";
    if (element.localName === "a" && element.hasAttribute("download")) return "download link";

    const words = [name, element.getAttribute("aria-label"), element.getAttribute("title"),
      element.getAttribute("value"), normalizeText(element.textContent).slice(0, 500)].join(" ");
    const mutating = MUTATING_NAME.exec(words);
    if (mutating !== null) return `mutating-sounding name ("${mutating[1].toLowerCase()}")`;

    // The trusted click lands on the centre; it must land on the target and not on an overlay.
    const point = centreOf(viewportRect(element));
    if (!isPointInViewport(point)) return "centre outside the viewport";
    const root = element.getRootNode();
    const hitScope = typeof root.elementFromPoint === "function" ? root : document;
    const hit = hitScope.elementFromPoint(point.x, point.y);
    if (hit === null || !isSelfOrInside(element, hit)) return "covered by another element";
    return null;
  }

  async function clickElement(rawArgs, ax) {
    const args = argumentObject(rawArgs);
    const element = resolveTarget(ax, args);
    const description = await describeTarget(ax, element);
    const hints = [];

    if (isNativelyDisabled(element)) {
      throw actionError("not_actionable", `${args.ref_id} is disabled`, {
        hint: "The control is disabled; do what enables it first (fill the required fields), then read the tree again.",
      });
    }
    if (element.closest?.('[aria-disabled="true"]')) {
      hints.push('the target is marked aria-disabled="true"; the page may ignore the click');
    }

    // Before-state, for the synchronous evidence now and the deferred evidence of observe_click.
    const before = {
      href: location.href,
      semantic: semanticState(element),
      appearance: targetAppearance(element),
    };
    const activeBefore = deepActiveElement();
    const controlledBefore = controlledBy(element);

    // Records until the click's microtasks have run are the click's own ("synchronous"); later
    // ones are deferred. The same observer serves both, so nothing falls between them.
    const clickRecords = [];
    const entry = {
      elementRef: new WeakRef(element),
      before,
      lastRect: null,
      clickedAt: performance.now(),
      observer: null,
      expiry: 0,
      inClickPhase: true,
      targetMutatedSinceObservation: false,
      deferredMutationsElsewhere: 0,
    };
    entry.observer = new MutationObserver((records) => {
      if (entry.inClickPhase) clickRecords.push(...records);
      else noteDeferredMutations(entry, records);
    });
    const token = newClickToken();
    // The expiry is armed first, so that an observer cannot outlive CLICK_MEMORY_MS even if the
    // page makes the click throw.
    entry.expiry = setTimeout(() => forgetClick(token), CLICK_MEMORY_MS);
    forgetExpiredClicks();
    rememberedClicks.set(token, entry);
    observeAroundElement(entry.observer, element);

    // "Défile dans la vue (scrollIntoView({block: 'center'}))", "Focus l'élément",
    // "Déclenche el.click()": the synthetic path, kept first in both browsers.
    element.scrollIntoView({ block: "center", inline: "center", behavior: "instant" });
    const rect = viewportRect(element);
    entry.lastRect = rect;
    focusQuietly(element);
    const activeAfterOwnFocus = deepActiveElement();
    activate(element);
    await nextTask();
    clickRecords.push(...entry.observer.takeRecords());
    entry.inClickPhase = false;

    const evidence = [];
    if (location.href !== before.href) evidence.push("url_changed");

    // Focus moved by a handler: not to the target (our own focus() did that), not back where it
    // was, nor where our focus() delegated it.
    const movedByHandler = (active) => active !== activeBefore && active !== element
      && !isSelfOrInside(element, active) && active !== document.body;
    const activeNow = deepActiveElement();
    if (movedByHandler(activeAfterOwnFocus) || (activeNow !== activeAfterOwnFocus && movedByHandler(activeNow))) {
      evidence.push("focus_moved");
    }

    const controlled = [...new Set([...controlledBefore, ...controlledBy(element)])];
    const { local, elsewhere } = classifyMutations(clickRecords, element, controlled);
    if (local) evidence.push("local_mutation");
    evidence.push(...semanticStateChanges(before.semantic, semanticState(element)));
    if (elsewhere > 0) hints.push(`global_mutation: ${elsewhere} mutations elsewhere`);

    const reason = unsafeFallbackReason(element, description.name);
    const fallback = reason === null
      ? { eligible: true, point: centreOf(viewportRect(element)) }
      : { eligible: false, reason };

    const { href, navigates } = navigationOf(element);
    const result = { token, ...description, rect, navigates, evidence, hints, fallback };
    if (href !== undefined) result.href = href;
    return result;
  }

  async function observeClick(rawArgs) {
    const args = argumentObject(rawArgs);
    const token = requiredString(args, "token");
    forgetExpiredClicks();
    const entry = rememberedClicks.get(token);
    if (entry === undefined) {
      throw actionError("invalid_arguments", `no click is remembered under ${token}`, {
        hint: `Clicks are remembered for ${CLICK_MEMORY_MS / 1000} seconds by the frame that performed them.`,
      });
    }
    noteDeferredMutations(entry, entry.observer.takeRecords());

    const element = entry.elementRef.deref();
    const connected = element !== undefined && element.isConnected;
    const evidence = [];
    const hints = [];
    if (location.href !== entry.before.href) evidence.push("url_changed");

    let rect = null;
    if (connected) {
      evidence.push(...semanticStateChanges(entry.before.semantic, semanticState(element)));
      rect = viewportRect(element);
      // "Les changements différés de nom, classe, style ou enfants de la cible ne sont conservés
      // que comme indices de diagnostic": previews, unread badges and timestamps change alone.
      const now = targetAppearance(element);
      const changed = Object.keys(now).filter((key) => now[key] !== entry.before.appearance[key]);
      if (changed.length > 0) hints.push(`the target's ${changed.join(", ")} changed since the click`);
    } else {
      hints.push("the target is no longer in the page");
    }
    if (entry.deferredMutationsElsewhere > 0) {
      hints.push(`global_mutation: ${entry.deferredMutationsElsewhere} mutations elsewhere since the click`);
    }

    // Stable ("deux intervalles d'observation stables de la page et de la cible"): the same box
    // as at the previous observation (the click, the first time), and no mutation of the target
    // or anywhere else in the page in between. A page still reacting (a request's answer being
    // rendered) may be the click's deferred effect, so it must not get a second activation.
    const stable = connected && sameRect(rect, entry.lastRect) && !entry.targetMutatedSinceObservation
      && !entry.pageMutatedSinceObservation;
    entry.lastRect = rect;
    entry.targetMutatedSinceObservation = false;
    entry.pageMutatedSinceObservation = false;
    return { evidence, hints, rect, stable, connected };
  }

  // ---- type_text and fill_field (type_ax, set_field) -----------------------------------------------

  /** The editing host of an element inside contenteditable content. */
  function editingHost(element) {
    let host = element;
    for (let parent = flatTreeParentElement(host); parent !== null && parent.isContentEditable; parent = flatTreeParentElement(parent)) {
      host = parent;
    }
    return host;
  }

  /** The kind of text field the element is, or null; without the checks that refuse it. */
  function textFieldKind(element) {
    if (element.localName === "input") return UNTYPABLE_INPUT_TYPES[element.type] === undefined ? "input" : null;
    if (element.localName === "textarea") return "textarea";
    if (element.isContentEditable) return "contenteditable";
    return null;
  }

  /** The field that a label or an aria-labelledby target names. */
  function labelledField(element) {
    if (element.localName === "label" && element.control !== null) return element.control;
    if (element.id) {
      const root = element.getRootNode();
      const scope = typeof root.querySelector === "function" ? root : document;
      const labelled = scope.querySelector(`[aria-labelledby~="${CSS.escape(element.id)}"]`);
      if (labelled !== null && labelled !== element) return labelled;
    }
    return null;
  }

  /** The only text field inside a wrapper (a form row, a component's host), or null. */
  function onlyTextFieldInside(element) {
    const fields = queryAllAcrossShadow(element, "input, textarea, [contenteditable]")
      .filter((candidate) => textFieldKind(candidate) !== null)
      .map((candidate) => (candidate.isContentEditable ? editingHost(candidate) : candidate));
    const distinct = [...new Set(fields)];
    return distinct.length === 1 ? distinct[0] : null;
  }

  /**
   * The field that type_ax types into, with its kind; refuses what cannot be typed into with
   * not_typable and a hint that names the right tool.
   * @returns {{field: Element, kind: "input"|"textarea"|"contenteditable", hint?: string}}
   */
  function locateTextField(element, refId) {
    if (element.localName === "input") {
      const refusal = UNTYPABLE_INPUT_TYPES[element.type];
      if (refusal !== undefined) {
        throw actionError("not_typable", `${refId} is a ${element.type} input, which cannot be typed into`, { hint: refusal });
      }
      return { field: element, kind: "input" };
    }
    if (element.localName === "textarea") return { field: element, kind: "textarea" };
    if (element.localName === "select") {
      throw actionError("not_typable", `${refId} is a select, which cannot be typed into`, {
        hint: "Use select_option with the option's label or value.",
      });
    }
    if (element.isContentEditable) return { field: editingHost(element), kind: "contenteditable" };

    // A label types into its control, and a wrapper into its only field; the agent often holds
    // the ref of the visible text rather than of the field.
    const labelled = labelledField(element);
    const delegate = labelled ?? onlyTextFieldInside(element);
    if (delegate !== null && delegate !== element) {
      const located = locateTextField(delegate, refId);
      const relation = labelled !== null ? "labelled by" : "inside";
      return { ...located, hint: `typed into the ${located.field.localName} ${relation} this ${element.localName}` };
    }
    const role = explicitRole(element);
    const hint = role === "combobox" || role === "listbox"
      ? "Use select_option to choose from this list."
      : "type_ax and set_field need a text input, a textarea or a contenteditable element; use click_ax on buttons and links, select_option on lists.";
    throw actionError("not_typable", `${refId} (${element.localName}) is not an editable field`, { hint });
  }

  function refuseReadOnlyField(field, refId) {
    if (isNativelyDisabled(field)) {
      throw actionError("not_actionable", `${refId} is disabled`, {
        hint: "The field is disabled; do what enables it first, then read the tree again.",
      });
    }
    if ((field.localName === "input" || field.localName === "textarea") && field.readOnly) {
      throw actionError("not_actionable", `${refId} is read-only`, {
        hint: "The page does not accept typing in this field; it may be filled by another control.",
      });
    }
  }

  /**
   * Writes a value through the browser's own setter: React and Vue wrap `value` on the instance
   * and would swallow the write, so the input event would look like no change to them (the
   * French document: "contourner les wrappers de composants contrôlés React/Vue").
   */
  function setNativeValue(field, value) {
    const prototype = field.localName === "textarea" ? HTMLTextAreaElement.prototype : HTMLInputElement.prototype;
    Object.getOwnPropertyDescriptor(prototype, "value").set.call(field, value);
  }

  /** The value a result may show: never a password. */
  function shownValue(field, kind) {
    if (kind === "contenteditable") return field.textContent;
    if (field.localName === "input" && field.type === "password") return field.value === "" ? "" : "••••";
    return field.value;
  }

  const insertTextInit = (text) => (text === ""
    ? { inputType: "deleteContentBackward", data: null }
    : { inputType: "insertText", data: text });

  /** Puts the caret where typing should go: over everything when clearing, else at the end. */
  function placeCaret(host, selectEverything) {
    const selection = host.ownerDocument.getSelection();
    if (selection === null) return;
    const range = host.ownerDocument.createRange();
    range.selectNodeContents(host);
    if (!selectEverything) range.collapse(false);
    selection.removeAllRanges();
    selection.addRange(range);
  }

  /**
   * type_ax on a contenteditable: "définit textContent + déclenche beforeinput + input". The
   * beforeinput goes first and is cancelable, because editors (ProseMirror, Lexical, Slate)
   * cancel it and insert the text themselves; then whether the text appeared is what counts.
   */
  async function typeIntoEditingHost(host, text, clear, evidence, hints) {
    const previous = host.textContent;
    const intended = clear ? text : previous + text;
    placeCaret(host, clear);
    const init = { bubbles: true, composed: true, ...insertTextInit(text) };
    const proceed = host.dispatchEvent(new InputEvent("beforeinput", { ...init, cancelable: true }));
    if (proceed) {
      host.textContent = intended;
      placeCaret(host, false);
      host.dispatchEvent(new InputEvent("input", init));
    }
    await settle();
    const now = host.textContent;
    if (proceed) {
      if (now === intended) evidence.push("value_set");
      else hints.push(`the page changed the text back to ${quote(now)}`);
    } else if (now === intended || (text !== "" && now !== previous && now.includes(text))) {
      evidence.push("value_set");
      hints.push("the page cancelled beforeinput and inserted the text itself");
    } else {
      hints.push("the page cancelled beforeinput and the text did not appear");
    }
  }

  /** Types into a located field as type_ax does, appending evidence and hints. */
  async function typeIntoField(located, text, clear, evidence, hints) {
    const { field, kind } = located;
    scrollIntoViewIfNeeded(field);
    focusQuietly(field);
    if (kind === "contenteditable") {
      await typeIntoEditingHost(field, text, clear, evidence, hints);
      return;
    }
    const intended = clear ? text : field.value + text;
    setNativeValue(field, intended);
    // The browser itself sanitizes some types (a number input drops letters, a date input needs
    // yyyy-mm-dd); that is no revert by the page, and the hint says so.
    const sanitized = field.value !== intended ? field.value : null;
    field.dispatchEvent(new InputEvent("input", { bubbles: true, composed: true, ...insertTextInit(text) }));
    field.dispatchEvent(new Event("change", { bubbles: true }));
    // A controlled component that did not accept the value writes its own back during its
    // re-render, after the event; read once that had its chance.
    await settle();
    if (field.value === intended) {
      evidence.push("value_set");
    } else if (sanitized !== null && field.value === sanitized) {
      hints.push(`the ${field.type} input does not accept ${quote(intended)}; its value is ${quote(sanitized)}`);
    } else {
      const shown = field.localName === "input" && field.type === "password" ? "••••" : field.value;
      hints.push(`the page changed the value back to ${quote(shown)}`);
    }
  }

  /**
   * What type_ax and set_field share before typing: the target, its description as the tree
   * named it, the text field it stands for (refusing what cannot be typed into) and the lists the
   * action's evidence and hints go into.
   */
  async function prepareTextEntry(rawArgs, ax) {
    const args = argumentObject(rawArgs);
    const element = resolveTarget(ax, args);
    const text = requiredString(args, "text");
    const clear = booleanArgument(args, "clear", true);
    const description = await describeTarget(ax, element);
    const located = locateTextField(element, args.ref_id);
    refuseReadOnlyField(located.field, args.ref_id);
    const hints = located.hint === undefined ? [] : [located.hint];
    return { args, text, clear, description, located, evidence: [], hints };
  }

  /** The result of type_ax, and of set_field before its `submit` field. */
  function textEntryResult({ description, located, evidence, hints }) {
    return { ...description, kind: located.kind, value: shownValue(located.field, located.kind), evidence, hints };
  }

  async function typeText(rawArgs, ax) {
    const entry = await prepareTextEntry(rawArgs, ax);
    await typeIntoField(entry.located, entry.text, entry.clear, entry.evidence, entry.hints);
    return textEntryResult(entry);
  }

  // ---- Keyboard ---------------------------------------------------------------------------------

  const isPrintableKey = (key) => [...key].length === 1;

  /** KeyboardEvent `code` and `keyCode` of a key value. */
  function keyDefinition(key) {
    if (Object.hasOwn(NAMED_KEYS, key)) return { code: NAMED_KEYS[key][0], keyCode: NAMED_KEYS[key][1] };
    if (/^[a-z]$/i.test(key)) return { code: `Key${key.toUpperCase()}`, keyCode: key.toUpperCase().charCodeAt(0) };
    if (/^[0-9]$/.test(key)) return { code: `Digit${key}`, keyCode: key.charCodeAt(0) };
    const functionKey = /^F([1-9]|1[0-2])$/.exec(key);
    if (functionKey !== null) return { code: key, keyCode: 111 + Number(functionKey[1]) };
    return { code: "", keyCode: 0 };
  }

  const NO_MODIFIERS = Object.freeze({ altKey: false, ctrlKey: false, metaKey: false, shiftKey: false });

  /**
   * Dispatches one keyboard event; `true` when no listener cancelled it. keyCode, charCode and
   * which go through the init dictionary, which Chrome and Firefox both accept, because many
   * widgets still read `keyCode`.
   */
  function dispatchKeyboardEvent(target, type, key, modifiers) {
    const { code, keyCode } = keyDefinition(key);
    const charCode = type === "keypress" ? (key === "Enter" ? 13 : key.codePointAt(0)) : 0;
    const legacyCode = type === "keypress" ? charCode : keyCode;
    return target.dispatchEvent(new KeyboardEvent(type, {
      key,
      code,
      keyCode: legacyCode,
      which: legacyCode,
      charCode,
      bubbles: true,
      cancelable: true,
      composed: true,
      view: window,
      ...modifiers,
    }));
  }

  /**
   * keydown, keypress (printable keys without Control/Meta, and Enter), keyup, with no default
   * action; press_key performs those itself. Returns whether a listener cancelled keydown or
   * keypress.
   */
  function pressKeyOnce(target, key, modifiers = NO_MODIFIERS) {
    let proceed = dispatchKeyboardEvent(target, "keydown", key, modifiers);
    const withPress = key === "Enter" || (isPrintableKey(key) && !modifiers.ctrlKey && !modifiers.metaKey);
    if (proceed && withPress) proceed = dispatchKeyboardEvent(target, "keypress", key, modifiers);
    dispatchKeyboardEvent(target, "keyup", key, modifiers);
    return { prevented: !proceed };
  }

  // ---- set_field's submission -----------------------------------------------------------------

  const visibleListboxes = () => [...document.querySelectorAll('[role~="listbox"]')]
    .filter((element) => explicitRole(element) === "listbox" && isShown(element));

  /** The [role=option] elements of a listbox, shadow roots and aria-owns included. */
  function optionsOf(listbox) {
    const found = queryAllAcrossShadow(listbox, '[role~="option"]');
    for (const owned of elementsByIdList(listbox, "aria-owns")) {
      if (explicitRole(owned) === "option") found.push(owned);
      else found.push(...queryAllAcrossShadow(owned, '[role~="option"]'));
    }
    return [...new Set(found)].filter((option) => explicitRole(option) === "option");
  }

  /** Listboxes named by the IDREFs of a combobox, of its descendants, or of an ancestor wrapper. */
  function namedListboxes(combobox) {
    const holders = [combobox, ...combobox.querySelectorAll("[aria-controls], [aria-owns]")];
    const wrapper = combobox.parentElement?.closest("[aria-controls], [aria-owns]");
    if (wrapper) holders.push(wrapper);
    const listboxes = [];
    for (const holder of holders) {
      for (const named of [...elementsByIdList(holder, "aria-controls"), ...elementsByIdList(holder, "aria-owns")]) {
        if (explicitRole(named) === "listbox") listboxes.push(named);
        else listboxes.push(...[...named.querySelectorAll('[role~="listbox"]')].filter((inner) => explicitRole(inner) === "listbox"));
      }
    }
    return listboxes;
  }

  /**
   * The popup list of a combobox, once shown: the one its IDREFs name, else the last listbox that
   * became visible since `shownBefore` (portals append to the body), else, when the combobox says
   * it is expanded, the last visible one.
   */
  function openListboxOf(combobox, shownBefore) {
    const named = namedListboxes(combobox).find(isShown);
    if (named !== undefined) return named;
    const visible = visibleListboxes();
    const appeared = visible.filter((listbox) => !shownBefore.has(listbox));
    if (appeared.length > 0) return appeared[appeared.length - 1];
    if (combobox.getAttribute("aria-expanded") === "true" && visible.length > 0) return visible[visible.length - 1];
    return null;
  }

  /**
   * Whether set_field should treat the field as a combobox: role=combobox, aria-autocomplete,
   * aria-controls/aria-owns naming a listbox, or a listbox shown on the page. The last clause is
   * read as "a listbox that appeared while typing": a listbox that was already on the page (a
   * static list elsewhere) says nothing about this field.
   */
  function looksLikeCombobox(field, shownBefore) {
    if (explicitRole(field) === "combobox" || field.closest('[role~="combobox"]') !== null) return true;
    const autocomplete = field.getAttribute("aria-autocomplete");
    if (autocomplete !== null && autocomplete !== "none") return true;
    if (namedListboxes(field).length > 0) return true;
    return visibleListboxes().some((listbox) => !shownBefore.has(listbox));
  }

  /** The option the combobox highlights now, if any, by the conventions libraries use. */
  function highlightedOption(field, listbox) {
    const combobox = field.closest('[role~="combobox"]') ?? field;
    for (const holder of new Set([field, combobox])) {
      for (const active of elementsByIdList(holder, "aria-activedescendant")) {
        if (explicitRole(active) === "option") return active;
      }
    }
    return optionsOf(listbox).find((option) => option.getAttribute("aria-selected") === "true"
      || option.hasAttribute("data-highlighted")
      || option.hasAttribute("data-focus")
      || /\bactive\b/.test(option.getAttribute("data-headlessui-state") ?? "")
      || /(^|[\s_-])(is-)?(focused|highlighted)($|[\s_-])/i.test(option.getAttribute("class") ?? "")) ?? null;
  }

  /** Text of an element, leaving out popups and live regions that sit inside widgets. */
  function textOutsidePopups(element) {
    const walker = document.createTreeWalker(element, NodeFilter.SHOW_ELEMENT | NodeFilter.SHOW_TEXT, {
      acceptNode(node) {
        if (node.nodeType === Node.TEXT_NODE) return NodeFilter.FILTER_ACCEPT;
        const role = explicitRole(node);
        if (role === "listbox" || role === "option" || role === "menu" || node.hasAttribute("aria-live")) {
          return NodeFilter.FILTER_REJECT;
        }
        return NodeFilter.FILTER_SKIP;
      },
    });
    let text = "";
    while (walker.nextNode()) text += walker.currentNode.data;
    return normalizeText(text).slice(0, 200);
  }

  /**
   * What a combobox shows as its value: an input's value, else the text of the widget around it
   * (react-select shows the chosen option next to an emptied input). The climb stops before it
   * reaches a label, a form or another field, where it would leave the widget.
   */
  function displayedText(field) {
    const isTextControl = field.localName === "input" || field.localName === "textarea";
    if (isTextControl && field.value !== "") return field.value;
    if (!isTextControl) {
      const own = textOutsidePopups(field);
      if (own !== "") return own;
    }
    let node = flatTreeParentElement(field);
    for (let level = 0; node !== null && level < 3; level += 1, node = flatTreeParentElement(node)) {
      if (node.localName === "label" || node.localName === "form" || node.localName === "fieldset") break;
      const otherField = [...node.querySelectorAll("input, select, textarea")].some((other) => other !== field);
      if (otherField) break;
      const text = textOutsidePopups(node);
      if (text !== "") return text;
    }
    return "";
  }

  /**
   * The form's implicit submission, as Enter in a field performs it: through the default button
   * as submitter, and not at all when that button is disabled.
   * @returns {"requestSubmit"|"none"}
   */
  function submitImplicitly(form, hints) {
    const controls = Array.from(form.elements);
    const defaultButton = controls.find(isSubmitButton) ?? null;
    if (defaultButton !== null && isNativelyDisabled(defaultButton)) {
      hints.push("the form's default button is disabled, so the form was not submitted");
      return "none";
    }
    const validating = !form.noValidate && !(defaultButton?.formNoValidate ?? false);
    const invalid = controls.find((control) => control.willValidate && control.validity && !control.validity.valid);
    if (validating && invalid !== undefined) {
      hints.push(`the form did not submit: a field is invalid (${invalid.validationMessage || invalid.name || invalid.localName})`);
    }
    form.requestSubmit(defaultButton ?? undefined);
    return "requestSubmit";
  }

  /**
   * set_field's non-combobox submission: "revient à form.requestSubmit() ou une simple pression
   * de touche Enter". Enter is dispatched first in both cases, because a page that handles Enter
   * itself (a chat box) cancels it, and a real Enter would then not submit the form either.
   */
  function submitByEnter(field, hints) {
    const { prevented } = pressKeyOnce(field, "Enter");
    if (prevented) {
      hints.push("the page handled Enter itself");
      return { method: "enter" };
    }
    const form = formOwner(field);
    if (form === null) return { method: "enter" };
    return { method: submitImplicitly(form, hints) };
  }

  /**
   * The combobox-aware submission: "déclenche ArrowDown → Enter avec de petits délais pour valider
   * l'option en surbrillance".
   */
  async function commitSuggestion(field, listbox, hints) {
    // SPEC DIFFERENCE: the French document always sends ArrowDown before Enter. react-select (and
    // Downshift, MUI Autocomplete with autoHighlight) already highlight the first match while
    // typing, so ArrowDown would move to the second one and Enter would commit the wrong option.
    // ArrowDown is sent only when no option is highlighted.
    if (highlightedOption(field, listbox) === null) {
      pressKeyOnce(field, "ArrowDown");
      await delay(COMBOBOX_KEY_DELAY_MS);
    }
    const { prevented } = pressKeyOnce(field, "Enter");
    await delay(COMBOBOX_KEY_DELAY_MS);
    if (!prevented && isShown(listbox)) hints.push("the suggestion list stayed open after Enter");
    return { method: "combobox", committed: displayedText(field) };
  }

  async function fillField(rawArgs, ax) {
    const entry = await prepareTextEntry(rawArgs, ax);
    const { located, text, clear, evidence, hints } = entry;
    const submit = booleanArgument(entry.args, "submit", false);
    const field = located.field;

    // "De manière atomique, focus + (efface optionnellement) + saisit + (soumet optionnellement)".
    const listboxesBefore = new Set(visibleListboxes());
    await typeIntoField(located, text, clear, evidence, hints);

    let submission = { method: "none" };
    if (submit) {
      if (looksLikeCombobox(field, listboxesBefore)) {
        const listbox = await waitFor(() => {
          const open = openListboxOf(field.closest('[role~="combobox"]') ?? field, listboxesBefore);
          return open !== null && optionsOf(open).length > 0 ? open : null;
        }, SUGGESTIONS_TIMEOUT_MS);
        if (listbox !== null) {
          submission = await commitSuggestion(field, listbox, hints);
        } else {
          hints.push("no suggestion list appeared, so the field was submitted like a plain field");
          submission = submitByEnter(field, hints);
        }
      } else {
        submission = submitByEnter(field, hints);
      }
    }
    return { ...textEntryResult(entry), submit: submission };
  }

  // ---- select_option ------------------------------------------------------------------------------

  /**
   * The option an agent asked for: by value (exact), or by label: exact, then case-insensitive
   * exact, then a case-insensitive substring that only one option contains. Throws
   * option_not_found with the options' labels as suggestions.
   * @param {{element: Element, label: string, values: string[]}[]} candidates
   */
  function matchOption(candidates, wanted) {
    const labels = candidates.map((candidate) => candidate.label).filter(Boolean);
    const suggestions = [...new Set(labels)].slice(0, MAX_OPTION_SUGGESTIONS);
    const notFound = (message) => actionError("option_not_found", message, {
      hint: "Use one of the suggested labels, or read the tree to see the options.",
      suggestions,
    });
    if (wanted.value !== undefined) {
      const match = candidates.find((candidate) => candidate.values.includes(wanted.value));
      if (match === undefined) throw notFound(`no option has the value ${quote(wanted.value)}`);
      return match;
    }
    const label = normalizeText(wanted.label);
    const lower = label.toLowerCase();
    const exact = candidates.find((candidate) => candidate.label === label)
      ?? candidates.find((candidate) => candidate.label.toLowerCase() === lower);
    if (exact !== undefined) return exact;
    const containing = candidates.filter((candidate) => lower !== "" && candidate.label.toLowerCase().includes(lower));
    if (containing.length === 1) return containing[0];
    if (containing.length > 1) {
      throw actionError("option_not_found", `${containing.length} options contain ${quote(label)}; give the whole label`, {
        hint: "Use one of the suggested labels exactly.",
        suggestions: containing.map((candidate) => candidate.label).slice(0, MAX_OPTION_SUGGESTIONS),
      });
    }
    throw notFound(`no option is labelled ${quote(label)}`);
  }

  /** What select_option acts on: a native select, a listbox, or a combobox that opens one. */
  function locateSelectControl(element, refId, hints) {
    if (element.localName === "select") return { kind: "native", select: element };
    const role = explicitRole(element);
    if (role === "listbox") return { kind: "listbox", listbox: element, combobox: null };
    if (role === "combobox" || element.getAttribute("aria-haspopup") === "listbox") {
      return { kind: "listbox", listbox: null, combobox: element };
    }
    const labelled = labelledField(element);
    const inside = queryAllAcrossShadow(element, 'select, [role~="combobox"], [role~="listbox"]')
      .filter((candidate) => candidate.localName === "select" || ["combobox", "listbox"].includes(explicitRole(candidate)));
    const delegate = labelled ?? (inside.length === 1 ? inside[0] : null);
    if (delegate !== null && delegate !== element) {
      const control = locateSelectControl(delegate, refId, hints);
      hints.push(`chose in the ${delegate.localName} ${labelled !== null ? "labelled by" : "inside"} this ${element.localName}`);
      return control;
    }
    throw actionError("invalid_arguments", `${refId} (${element.localName}) is not a select, a combobox or a listbox`, {
      hint: "For a menu of buttons, click_ax the button that opens it, read the tree, then click_ax the item.",
    });
  }

  async function selectNativeOption(select, wanted, refId, evidence, hints) {
    if (isNativelyDisabled(select)) {
      throw actionError("not_actionable", `${refId} is disabled`, {
        hint: "The list is disabled; do what enables it first, then read the tree again.",
      });
    }
    const candidates = Array.from(select.options, (option) => ({
      element: option,
      label: normalizeText(option.label || option.text),
      values: [option.value],
    }));
    const match = matchOption(candidates, wanted);
    const option = match.element;
    if (isNativelyDisabled(option)) {
      throw actionError("not_actionable", `the option ${quote(match.label)} is disabled`, {
        hint: "Choose another option.",
      });
    }
    if (option.selected) {
      // A person re-choosing the current option causes no change event either.
      hints.push("the option was already selected");
    } else {
      if (select.multiple) hints.push("the other selected options were kept");
      Object.getOwnPropertyDescriptor(HTMLOptionElement.prototype, "selected").set.call(option, true);
      select.dispatchEvent(new Event("input", { bubbles: true, composed: true }));
      select.dispatchEvent(new Event("change", { bubbles: true }));
      await settle();
      if (option.selected) evidence.push("value_changed");
      else hints.push(`the page changed the selection back to ${quote(normalizeText(select.selectedOptions[0]?.text ?? ""))}`);
    }
    return { method: "native", selected: { label: match.label, value: option.value } };
  }

  /** The accessible text of an option, as a list shows it. */
  function optionLabel(option) {
    const ariaLabel = option.getAttribute("aria-label");
    if (ariaLabel !== null && ariaLabel.trim() !== "") return normalizeText(ariaLabel);
    const labelledBy = elementsByIdList(option, "aria-labelledby");
    if (labelledBy.length > 0) return normalizeText(labelledBy.map((labeller) => labeller.textContent).join(" "));
    return normalizeText(option.textContent);
  }

  /** The element a combobox's aria-activedescendant names now. */
  function activeDescendantOf(holder) {
    return elementsByIdList(holder, "aria-activedescendant")[0] ?? null;
  }

  /** Closes a list select_option opened, so the page is left as it was found. */
  async function closeOpenedList(combobox, listbox) {
    const active = deepActiveElement();
    const keyTarget = listbox !== null && isSelfOrInside(listbox, active) ? active : combobox;
    pressKeyOnce(keyTarget, "Escape");
    await nextFrame();
  }

  /**
   * Chooses the option with the keyboard when its click did nothing: Enter on the option when
   * focus lives in the popup (Radix Select, MUI menus), else ArrowDown on the combobox until
   * aria-activedescendant names the option, then Enter (react-select, Downshift).
   */
  async function chooseOptionByKeyboard(combobox, listbox, option, optionCount, hints) {
    const active = deepActiveElement();
    const holder = combobox ?? (listbox.hasAttribute("aria-activedescendant") ? listbox : null);
    if (holder === null || isSelfOrInside(listbox, active)) {
      focusQuietly(option);
      pressKeyOnce(option, "Enter");
      return;
    }
    focusQuietly(holder);
    for (let step = 0; step <= optionCount + 1; step += 1) {
      if (activeDescendantOf(holder) === option) {
        pressKeyOnce(holder, "Enter");
        return;
      }
      pressKeyOnce(holder, "ArrowDown");
      await nextFrame();
    }
    hints.push("ArrowDown never highlighted the option");
  }

  async function selectListboxOption(control, wanted, refId, evidence, hints) {
    const { combobox } = control;
    let { listbox } = control;
    let openedHere = false;

    if (combobox !== null) {
      if (isNativelyDisabled(combobox)) {
        throw actionError("not_actionable", `${refId} is disabled`, {
          hint: "The list is disabled; do what enables it first, then read the tree again.",
        });
      }
      const shownBefore = new Set(visibleListboxes());
      listbox = combobox.getAttribute("aria-expanded") === "true" ? openListboxOf(combobox, new Set()) : null;
      if (listbox === null) {
        // Libraries open on different events: a click for most, mousedown or pointerdown for some
        // (react-select, Radix, MUI), which all also open on ArrowDown.
        openedHere = true;
        scrollIntoViewIfNeeded(combobox);
        focusQuietly(combobox);
        activate(combobox);
        listbox = await waitFor(() => openListboxOf(combobox, shownBefore), LIST_OPEN_BY_CLICK_MS);
        if (listbox === null) {
          pressKeyOnce(combobox, "ArrowDown");
          listbox = await waitFor(() => openListboxOf(combobox, shownBefore), LIST_OPEN_BY_KEY_MS);
        }
        if (listbox === null) {
          throw actionError("not_actionable", `${refId} did not open a list of options`, {
            hint: "Open it with click_ax, read the tree, then click_ax the option.",
          });
        }
      }
    }

    const options = optionsOf(listbox);
    const candidates = options.map((option) => ({
      element: option,
      label: optionLabel(option),
      values: [option.getAttribute("data-value"), option.getAttribute("value"), option.id].filter((value) => value !== null && value !== ""),
    }));
    let match;
    try {
      match = matchOption(candidates, wanted);
      if (match.element.getAttribute("aria-disabled") === "true") {
        throw actionError("not_actionable", `the option ${quote(match.label)} is disabled`, { hint: "Choose another option." });
      }
    } catch (error) {
      if (openedHere) await closeOpenedList(combobox, listbox);
      throw error;
    }
    const option = match.element;

    // What shows that the choice took: the combobox's displayed value, the option's
    // aria-selected, the list closing.
    const shownText = () => displayedText(combobox ?? listbox);
    const before = {
      text: shownText(),
      selected: option.getAttribute("aria-selected"),
      expanded: combobox?.getAttribute("aria-expanded") ?? null,
    };
    const outcome = () => {
      const changes = [];
      if (shownText() !== before.text) changes.push("value_changed");
      const selected = option.getAttribute("aria-selected");
      if (selected !== before.selected && selected === "true") changes.push("semantic_state:aria-selected");
      if (combobox !== null && combobox.getAttribute("aria-expanded") !== before.expanded) changes.push("semantic_state:aria-expanded");
      if (combobox !== null && !isShown(listbox)) changes.push("listbox_closed");
      return changes.length > 0 ? changes : null;
    };

    option.scrollIntoView({ block: "nearest", behavior: "instant" });
    activate(option);
    let changes = await waitFor(outcome, OPTION_COMMIT_MS);
    if (changes === null) {
      await chooseOptionByKeyboard(combobox, listbox, option, options.length, hints);
      changes = await waitFor(outcome, OPTION_COMMIT_MS);
      if (changes !== null) hints.push("the option ignored a click and was chosen with the keyboard");
    }
    if (changes !== null) evidence.push(...changes);
    else hints.push("nothing changed after clicking the option or pressing Enter on it");

    const selected = { label: match.label };
    if (match.values.length > 0) selected.value = match.values[0];
    return { method: "listbox", selected };
  }

  async function selectOption(rawArgs, ax) {
    const args = argumentObject(rawArgs);
    const element = resolveTarget(ax, args);
    const label = optionalString(args, "label");
    const value = optionalString(args, "value");
    if ((label === undefined) === (value === undefined)) {
      throw actionError("invalid_arguments", "give exactly one of label and value");
    }
    const description = await describeTarget(ax, element);
    const evidence = [];
    const hints = [];
    const control = locateSelectControl(element, args.ref_id, hints);
    const wanted = label !== undefined ? { label } : { value };
    const chosen = control.kind === "native"
      ? await selectNativeOption(control.select, wanted, args.ref_id, evidence, hints)
      : await selectListboxOption(control, wanted, args.ref_id, evidence, hints);
    return { ...description, ...chosen, evidence, hints };
  }

  // ---- hover_element ------------------------------------------------------------------------------

  function shownPopups() {
    return new Set([...document.querySelectorAll(POPUP_SELECTOR)].filter(isShown));
  }

  const popupKind = (popup) => explicitRole(popup) || (popup.localName === "dialog" ? "dialog" : "popover");

  /**
   * The pointer's way onto an element: over, enter (not bubbling), move; pointer events first, as
   * browsers send them, each at the centre, with no element left behind (relatedTarget null).
   */
  function dispatchHoverEvents(element, point) {
    const common = { clientX: point.x, clientY: point.y, relatedTarget: null, view: window, composed: true };
    const pointer = { ...common, pointerId: 1, pointerType: "mouse", isPrimary: true };
    element.dispatchEvent(new PointerEvent("pointerover", { ...pointer, bubbles: true, cancelable: true }));
    element.dispatchEvent(new PointerEvent("pointerenter", { ...pointer, bubbles: false, cancelable: false }));
    element.dispatchEvent(new MouseEvent("mouseover", { ...common, bubbles: true, cancelable: true }));
    element.dispatchEvent(new MouseEvent("mouseenter", { ...common, bubbles: false, cancelable: false }));
    element.dispatchEvent(new PointerEvent("pointermove", { ...pointer, bubbles: true, cancelable: true }));
    element.dispatchEvent(new MouseEvent("mousemove", { ...common, bubbles: true, cancelable: true }));
  }

  async function hoverElement(rawArgs, ax) {
    const args = argumentObject(rawArgs);
    const element = resolveTarget(ax, args);
    const description = await describeTarget(ax, element);
    const hints = [];
    scrollIntoViewIfNeeded(element);
    const rect = viewportRect(element);

    const popupsBefore = shownPopups();
    const stateBefore = {
      "aria-expanded": element.getAttribute("aria-expanded"),
      "aria-describedby": element.getAttribute("aria-describedby"),
    };
    const mutationWindow = startMutationWindow(element);
    dispatchHoverEvents(element, centreOf(rect));

    // Tooltips often wait before showing; look each frame for a while, and stop at the first sign.
    const observe = () => {
      const found = [];
      for (const popup of shownPopups()) {
        if (!popupsBefore.has(popup)) found.push(`popup_shown:${popupKind(popup)}`);
      }
      for (const [attribute, value] of Object.entries(stateBefore)) {
        if (element.getAttribute(attribute) !== value) found.push(`semantic_state:${attribute}`);
      }
      const { local } = classifyMutations(mutationWindow.collect(), element, controlledBy(element));
      if (local) found.push("local_mutation");
      return found.length > 0 ? [...new Set(found)] : null;
    };
    await nextTask();
    const evidence = (await waitFor(observe, HOVER_OBSERVATION_MS)) ?? [];
    const { elsewhere } = classifyMutations(mutationWindow.finish(), element, controlledBy(element));
    if (elsewhere > 0) hints.push(`global_mutation: ${elsewhere} mutations elsewhere`);
    return { ...description, rect, evidence, hints };
  }

  // ---- press_key -------------------------------------------------------------------------------

  /** The editable kind of a focused element, or null when keys cannot edit it. */
  function editableKind(element) {
    const kind = textFieldKind(element);
    if (kind === null || isNativelyDisabled(element)) return null;
    if (kind !== "contenteditable" && element.readOnly) return null;
    return kind;
  }

  /** The sequential focus navigation order: positive tabindex first, then document order. */
  function tabbableElements() {
    const candidates = [...document.querySelectorAll(TABBABLE_CANDIDATES)].filter((element) => element.tabIndex >= 0
      && !isNativelyDisabled(element)
      && !(element.localName === "input" && element.type === "hidden")
      && element.closest("[inert]") === null
      && element.getClientRects().length > 0
      && getComputedStyle(element).visibility === "visible");
    // Array.prototype.sort is stable, so equal tabindex values keep document order.
    const positive = candidates.filter((element) => element.tabIndex > 0).sort((left, right) => left.tabIndex - right.tabIndex);
    return [...positive, ...candidates.filter((element) => element.tabIndex === 0)];
  }

  /** Tab / Shift+Tab: focus the next or previous tabbable element, wrapping at the ends. */
  function moveFocusSequentially(from, backward, hints) {
    const order = tabbableElements();
    if (order.length === 0) return null;
    const index = order.indexOf(from);
    let next;
    if (index >= 0) {
      next = order[(index + (backward ? -1 : 1) + order.length) % order.length];
    } else {
      // From a position that is not itself tabbable (the body, a plain element), the search
      // starts at that position in document order.
      const after = (element) => (from.compareDocumentPosition(element) & Node.DOCUMENT_POSITION_FOLLOWING) !== 0;
      next = backward ? order.findLast((element) => !after(element)) : order.find(after);
      next ??= backward ? order[order.length - 1] : order[0];
    }
    if ((backward && index === 0) || (!backward && index === order.length - 1)) {
      hints.push("focus wrapped around the page");
    }
    focusElement(next, { preventScroll: false });
    return next;
  }

  /** The caret (or selection) of a text control; types without one (email, number) use the end. */
  function textControlSelection(field) {
    try {
      if (field.selectionStart !== null && field.selectionEnd !== null) {
        return { start: field.selectionStart, end: field.selectionEnd };
      }
    } catch {
      // Some input types throw on selectionStart instead of returning null.
    }
    return { start: field.value.length, end: field.value.length };
  }

  function restoreCaret(field, position) {
    try {
      field.setSelectionRange(position, position);
    } catch {
      // Input types without a selection have no caret to restore.
    }
  }

  /**
   * Edits a text control at its caret as a typed key would: beforeinput (cancelable), the new
   * value through the native setter, input. `text` "" deletes backwards.
   */
  function editTextControl(field, text) {
    const inputType = text === "" ? "deleteContentBackward" : "insertText";
    const data = text === "" ? null : text;
    if (!field.dispatchEvent(new InputEvent("beforeinput", { bubbles: true, cancelable: true, composed: true, inputType, data }))) {
      return false;
    }
    const value = field.value;
    let { start, end } = textControlSelection(field);
    if (text === "" && start === end) {
      if (start === 0) return false;
      // One character backwards, which is two code units for a character outside the BMP.
      const previous = value.charCodeAt(start - 1);
      start -= previous >= 0xdc00 && previous <= 0xdfff && start >= 2 ? 2 : 1;
    }
    setNativeValue(field, value.slice(0, start) + text + value.slice(end));
    restoreCaret(field, start + text.length);
    field.dispatchEvent(new InputEvent("input", { bubbles: true, composed: true, inputType, data }));
    return true;
  }

  /** The same in a contenteditable, at the selection when it lies inside the host. */
  function editEditingHost(host, text) {
    const inputType = text === "" ? "deleteContentBackward" : "insertText";
    const data = text === "" ? null : text;
    if (!host.dispatchEvent(new InputEvent("beforeinput", { bubbles: true, cancelable: true, composed: true, inputType, data }))) {
      return false;
    }
    const selection = host.ownerDocument.getSelection();
    let range = selection !== null && selection.rangeCount > 0 ? selection.getRangeAt(0) : null;
    if (range === null || !isSelfOrInside(host, range.commonAncestorContainer)) {
      range = host.ownerDocument.createRange();
      range.selectNodeContents(host);
      range.collapse(false);
    }
    if (text === "" && range.collapsed && selection !== null) {
      selection.removeAllRanges();
      selection.addRange(range);
      selection.modify("extend", "backward", "character");
      range = selection.getRangeAt(0);
    }
    range.deleteContents();
    if (text !== "") {
      const inserted = host.ownerDocument.createTextNode(text);
      range.insertNode(inserted);
      range.setStartAfter(inserted);
      range.collapse(true);
    }
    if (selection !== null) {
      selection.removeAllRanges();
      selection.addRange(range);
    }
    host.dispatchEvent(new InputEvent("input", { bubbles: true, composed: true, inputType, data }));
    return true;
  }

  function editAtCaret(element, kind, text) {
    return kind === "contenteditable" ? editEditingHost(editingHost(element), text) : editTextControl(element, text);
  }

  function selectAllIn(element, kind) {
    if (kind === "contenteditable") {
      element.ownerDocument.getSelection()?.selectAllChildren(editingHost(element));
    } else {
      element.select();
    }
  }

  function isEnterActivated(element) {
    if (element.localName === "button" || (element.localName === "a" && element.hasAttribute("href"))) return true;
    if (element.localName === "input" && ["submit", "button", "reset", "image"].includes(element.type)) return true;
    return ENTER_ACTIVATED_ROLES.has(explicitRole(element));
  }

  function isSpaceActivated(element) {
    if (element.localName === "button" || element.localName === "summary") return true;
    if (element.localName === "input" && ["submit", "button", "reset", "image", "checkbox", "radio"].includes(element.type)) return true;
    return SPACE_ACTIVATED_ROLES.has(explicitRole(element));
  }

  /**
   * The default action a real key press would have had, which a synthetic event lacks; chosen
   * before keyup, performed by the caller.
   * @returns {null | {name: string, perform: () => void, afterKeyUp?: boolean}}
   */
  function defaultActionOf(target, key, modifiers, hints) {
    const kind = editableKind(target);
    const commandKey = modifiers.ctrlKey || modifiers.metaKey;
    if (key === "Tab" && !commandKey && !modifiers.altKey) {
      return {
        name: modifiers.shiftKey ? "focus_previous" : "focus_next",
        perform: () => moveFocusSequentially(target, modifiers.shiftKey, hints),
      };
    }
    if (key === "Enter" && !commandKey && !modifiers.altKey) {
      // Enter in a single-line field submits its form ("implicit submission").
      if (kind === "input" && formOwner(target) !== null) {
        return { name: "submit", perform: () => submitImplicitly(formOwner(target), hints) };
      }
      if (isEnterActivated(target)) return { name: "click", perform: () => activate(target) };
      return null;
    }
    if (key === " " && !commandKey && !modifiers.altKey && kind === null && isSpaceActivated(target)) {
      // Buttons activate on Space's keyup.
      return { name: "click", perform: () => activate(target), afterKeyUp: true };
    }
    if (kind === null) return null;
    if (key === "Backspace" && !commandKey && !modifiers.altKey) {
      return { name: "delete_backward", perform: () => editAtCaret(target, kind, "") };
    }
    if (commandKey && !modifiers.altKey && key.toLowerCase() === "a") {
      return { name: "select_all", perform: () => selectAllIn(target, kind) };
    }
    if (isPrintableKey(key) && !commandKey) {
      return { name: "insert_text", perform: () => editAtCaret(target, kind, key) };
    }
    return null;
  }

  /** A value to compare before and after a key, for editable targets. */
  const editableValue = (element, kind) => (kind === null ? null
    : kind === "contenteditable" ? editingHost(element).textContent : element.value);

  async function pressKey(rawArgs, ax) {
    const args = argumentObject(rawArgs);
    const key = requiredString(args, "key");
    const modifierNames = args.modifiers ?? [];
    if (!Array.isArray(modifierNames) || modifierNames.some((name) => !Object.hasOwn(MODIFIER_FLAGS, name))) {
      throw actionError("invalid_arguments", "modifiers must be a list of Alt, Control, Meta, Shift");
    }
    const modifiers = { ...NO_MODIFIERS };
    for (const name of modifierNames) modifiers[MODIFIER_FLAGS[name]] = true;

    let target;
    let description;
    if (args.ref_id !== undefined && args.ref_id !== null) {
      target = resolveTarget(ax, args);
      description = await describeTarget(ax, target);
      scrollIntoViewIfNeeded(target);
      focusQuietly(target);
    } else {
      target = deepActiveElement();
      description = await describeTarget(ax, target);
    }

    const hints = [];
    const href = location.href;
    const activeBefore = deepActiveElement();
    const stateBefore = semanticState(target);
    const kind = editableKind(target);
    const valueBefore = editableValue(target, kind);
    const mutationWindow = startMutationWindow(target);
    const controlledBefore = controlledBy(target);

    // keydown, keypress, then the default action where the browser performs it, then keyup on
    // whatever holds focus by then (after Tab, the newly focused element).
    let proceed = dispatchKeyboardEvent(target, "keydown", key, modifiers);
    const withPress = key === "Enter" || (isPrintableKey(key) && !modifiers.ctrlKey && !modifiers.metaKey);
    if (proceed && withPress) proceed = dispatchKeyboardEvent(target, "keypress", key, modifiers);
    const action = proceed && target.isConnected ? defaultActionOf(target, key, modifiers, hints) : null;
    if (action !== null && !action.afterKeyUp) action.perform();
    const keyUpTarget = target.isConnected ? deepActiveElement() : document.body;
    dispatchKeyboardEvent(keyUpTarget, "keyup", key, modifiers);
    if (action !== null && action.afterKeyUp) action.perform();
    if (!proceed) hints.push("the page cancelled the key, so it had no default action");

    await nextTask();
    await settle();
    const evidence = [];
    if (location.href !== href) evidence.push("url_changed");
    const activeNow = deepActiveElement();
    if (activeNow !== activeBefore && activeNow !== target) evidence.push("focus_moved");
    const controlled = [...new Set([...controlledBefore, ...controlledBy(target)])];
    const { local, elsewhere } = classifyMutations(mutationWindow.finish(), target, controlled);
    if (local) evidence.push("local_mutation");
    if (target.isConnected) {
      evidence.push(...semanticStateChanges(stateBefore, semanticState(target)));
      if (kind !== null && editableValue(target, kind) !== valueBefore) evidence.push("value_changed");
    }
    if (elsewhere > 0) hints.push(`global_mutation: ${elsewhere} mutations elsewhere`);

    const result = { ...description, key, modifiers: modifierNames, evidence, hints };
    if (action !== null) result.defaultAction = action.name;
    return result;
  }

  // ---- scroll ----------------------------------------------------------------------------------

  const pageScroller = () => document.scrollingElement ?? document.documentElement;

  /** Whether a person could scroll the element along the axis: overflow that scrolls, and room. */
  function isScrollable(element, vertical) {
    if (element === pageScroller() || element === document.body) return false;
    const style = getComputedStyle(element);
    const overflow = vertical ? style.overflowY : style.overflowX;
    if (!["auto", "scroll", "overlay"].includes(overflow)) return false;
    return vertical ? element.scrollHeight > element.clientHeight : element.scrollWidth > element.clientWidth;
  }

  /** The nearest scrollable ancestor along the axis, or null for the page. */
  function scrollableAncestor(element, vertical) {
    for (let node = flatTreeParentElement(element); node !== null; node = flatTreeParentElement(node)) {
      if (isScrollable(node, vertical)) return node;
    }
    return null;
  }

  /** Reads and moves either the page (null) or a scrollable element. */
  function scrollPosition(scroller) {
    return scroller === null
      ? { x: Math.round(scrollX), y: Math.round(scrollY) }
      : { x: Math.round(scroller.scrollLeft), y: Math.round(scroller.scrollTop) };
  }

  async function scrollAction(rawArgs, ax) {
    const args = argumentObject(rawArgs);
    const direction = optionalString(args, "direction") ?? "down";
    const to = optionalString(args, "to");
    const amount = numberArgument(args, "amount", undefined);
    if (!["up", "down", "left", "right"].includes(direction)) {
      throw actionError("invalid_arguments", "direction must be up, down, left or right");
    }
    if (to !== undefined && !["top", "bottom", "into_view"].includes(to)) {
      throw actionError("invalid_arguments", "to must be top, bottom or into_view");
    }
    const hasRef = args.ref_id !== undefined && args.ref_id !== null;
    if (to === "into_view" && !hasRef) {
      throw actionError("invalid_arguments", 'to: "into_view" needs a ref_id');
    }
    const element = hasRef ? resolveTarget(ax, args) : null;
    const hints = [];
    const evidence = [];
    const vertical = to !== undefined || direction === "up" || direction === "down";

    if (to === "into_view") {
      const scroller = scrollableAncestor(element, true) ?? scrollableAncestor(element, false);
      const before = scrollPosition(scroller);
      const rectBefore = viewportRect(element);
      element.scrollIntoView({ block: "center", inline: "center", behavior: "instant" });
      if (!sameRect(rectBefore, viewportRect(element))) evidence.push("scrolled");
      else hints.push("already in view");
      return { target: scroller === null ? "page" : "element", before, after: scrollPosition(scroller), evidence, hints };
    }

    let scroller = null;
    if (element !== null && element !== pageScroller() && element !== document.body) {
      if (isScrollable(element, vertical)) {
        scroller = element;
      } else {
        scroller = scrollableAncestor(element, vertical);
        hints.push(scroller === null
          ? `the ${element.localName} does not scroll, so the page was scrolled`
          : `the ${element.localName} does not scroll, so its nearest scrollable ancestor (${scroller.localName}) was scrolled`);
      }
    }

    const before = scrollPosition(scroller);
    const box = scroller ?? pageScroller();
    if (to === "top" || to === "bottom") {
      const top = to === "top" ? 0 : box.scrollHeight;
      if (scroller === null) window.scrollTo({ top, behavior: "instant" });
      else scroller.scrollTo({ top, behavior: "instant" });
    } else {
      const viewportSize = vertical
        ? (scroller === null ? innerHeight : scroller.clientHeight)
        : (scroller === null ? innerWidth : scroller.clientWidth);
      const distance = amount ?? Math.round(viewportSize * 0.8);
      const sign = direction === "up" || direction === "left" ? -1 : 1;
      const delta = vertical ? { top: sign * distance, left: 0 } : { top: 0, left: sign * distance };
      if (scroller === null) window.scrollBy({ ...delta, behavior: "instant" });
      else scroller.scrollBy({ ...delta, behavior: "instant" });
    }
    const after = scrollPosition(scroller);
    if (after.x !== before.x || after.y !== before.y) {
      evidence.push("scrolled");
    } else {
      const towardsStart = to === "top" || (to === undefined && (direction === "up" || direction === "left"));
      hints.push(towardsStart ? "already at the start" : "already at the end");
    }
    return { target: scroller === null ? "page" : "element", before, after, evidence, hints };
  }

  // ---- dom_quiet (the page half of wait_for_stable) -----------------------------------------------

  async function domQuiet(rawArgs) {
    const args = argumentObject(rawArgs);
    const quietMs = numberArgument(args, "quietMs", 500);
    const timeoutMs = numberArgument(args, "timeoutMs", 10_000);
    const started = performance.now();
    let lastMutation = started;
    let mutations = 0;
    const observer = new MutationObserver((records) => {
      mutations += records.length;
      lastMutation = performance.now();
    });
    observer.observe(document, OBSERVE_EVERYTHING);
    try {
      for (;;) {
        const now = performance.now();
        if (now - lastMutation >= quietMs) return { quiet: true, waitedMs: Math.round(now - started), mutations };
        if (now - started >= timeoutMs) return { quiet: false, waitedMs: Math.round(now - started), mutations };
        const untilQuiet = lastMutation + quietMs - now;
        const untilTimeout = started + timeoutMs - now;
        await delay(Math.max(1, Math.min(untilQuiet, untilTimeout)));
        // Records still queued (their callback not yet run) are mutations too.
        const pending = observer.takeRecords();
        if (pending.length > 0) {
          mutations += pending.length;
          lastMutation = performance.now();
        }
      }
    } finally {
      observer.disconnect();
    }
  }

  // ---- The content tools ------------------------------------------------------------------------

  Object.defineProperty(globalThis, "allwrightActions", {
    value: Object.freeze({
      click_element: clickElement,
      observe_click: observeClick,
      type_text: typeText,
      fill_field: fillField,
      select_option: selectOption,
      hover_element: hoverElement,
      press_key: pressKey,
      scroll: scrollAction,
      dom_quiet: domQuiet,
    }),
    configurable: false,
    enumerable: false,
    writable: false,
  });
})();
