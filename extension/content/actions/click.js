// @ts-check
// click_element and observe_click, the page half of click_ax (docs/protocol/tools.md, "Action results"):
// the synthetic click, its evidence, the deferred evidence the background asks for, and whether a
// trusted fallback click would be safe on the target.

import "../../shared/messages.js";
import { isPartOfSameControl } from "../dom/own-part.js";
import { closestAcrossShadow, deepActiveElement, isSelfOrInside } from "../dom/shadow.js";
import {
  centreOf,
  cssHiddenReason,
  explicitRole,
  formOwner,
  isNativelyDisabled,
  isPointInViewport,
  isSubmitButton,
  normalizeText,
  sameRect,
  viewportRect,
} from "./element.js";
import {
  animationRunning,
  classifyMutations,
  controlledBy,
  controlValues,
  nodesOfRecord,
  observeAroundElement,
  popupEvidence,
  semanticState,
  semanticStateChanges,
  shownPopups,
  targetAppearance,
  textChangeEvidence,
  valueChangeEvidence,
  withoutMarkerRecords,
} from "./evidence.js";
import { pointerClick } from "./pointer-input.js";
import { describeTargetAsRead, printedRole, resolveTarget } from "./target.js";
import { nextTask } from "./timing.js";

const messages = globalThis.allwrightMessages;

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
 * and French words (pages in both languages), matched as whole words, case-insensitively, on the
 * name and the text.
 */
const MUTATING_WORDS = Object.freeze([
  "delete",
  "remove",
  "pay",
  "buy",
  "purchase",
  "order",
  "send",
  "submit",
  "confirm",
  "transfer",
  "publish",
  "post",
  "save",
  "archive",
  "unsubscribe",
  "subscribe",
  "checkout",
  "book",
  "supprimer",
  "payer",
  "acheter",
  "envoyer",
  "valider",
  "confirmer",
  "commander",
  "enregistrer",
]);

const MUTATING_NAME = new RegExp(`\\b(${MUTATING_WORDS.join("|")})\\b`, "i");

/**
 * How long a click's before-state stays available to observe_click. The background observes for
 * about a second (two intervals, perhaps a fallback and one more); the margin covers a slow
 * message channel. Every remembered click keeps a document-wide MutationObserver running, so
 * the memory is short.
 */
const CLICK_MEMORY_MS = 10_000;

/**
 * Clicks remembered for observe_click, by token. Entries hold the element through a WeakRef and
 * forget themselves after CLICK_MEMORY_MS, observer included.
 * @type {Map<string, RememberedClick>}
 */
const rememberedClicks = new Map();

/**
 * @typedef {{elementRef: WeakRef<Element>, before: {href: string, semantic: Record<string, unknown>,
 *   appearance: Record<string, unknown>}, lastRect: {x: number, y: number, width: number, height: number} | null,
 *   clickedAt: number, observer: MutationObserver, expiry: ReturnType<typeof setTimeout> | number,
 *   inClickPhase: boolean, targetMutatedSinceObservation: boolean, pageMutatedSinceObservation?: boolean,
 *   deferredMutationsElsewhere: number, deferredRecords: MutationRecord[], quietSinceClick: boolean,
 *   activeAfterClick: Element | null, valuesBefore: Map<Element, string>, popupsBefore: Set<Element>}} RememberedClick
 */

function newClickToken() {
  const bytes = new Uint8Array(12);
  crypto.getRandomValues(bytes);
  return `click_${Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("")}`;
}

/**
 * @param {string} token
 */
function forgetClick(token) {
  const entry = rememberedClicks.get(token);
  if (entry === undefined) return;
  entry.observer.disconnect();
  clearTimeout(entry.expiry);
  rememberedClicks.delete(token);
}

/**
 * The live element a remembered click went to, or null when the click was forgotten or the
 * element left the page (for the trusted fallback's re-check, trusted-target.js).
 * @param {string} token
 * @returns {Element | null}
 */
export function clickedElementOf(token) {
  const element = rememberedClicks.get(token)?.elementRef.deref();
  return element !== undefined && element.isConnected ? element : null;
}

function forgetExpiredClicks() {
  const now = performance.now();
  for (const [token, entry] of rememberedClicks) {
    if (now - entry.clickedAt > CLICK_MEMORY_MS) forgetClick(token);
  }
}

/**
 * Deferred mutations after a click: whether they touched the target, and how many did not.
 * @param {RememberedClick} entry
 * @param {MutationRecord[]} records
 */
function noteDeferredMutations(entry, records) {
  const element = entry.elementRef.deref();
  if (records.length > 0) entry.quietSinceClick = false;
  entry.deferredRecords.push(...records);
  for (const record of records) {
    if (
      element !== undefined &&
      (isSelfOrInside(element, record.target) ||
        (record.type === "childList" && nodesOfRecord(record).some((changed) => isSelfOrInside(changed, element))))
    ) {
      entry.targetMutatedSinceObservation = true;
    } else {
      entry.deferredMutationsElsewhere += 1;
      entry.pageMutatedSinceObservation = true;
    }
  }
}

/**
 * What a link or submit button would do: its absolute href, and whether it leaves the page.
 * @param {Element} element
 */
function navigationOf(element) {
  if (
    (element.localName === "a" || element.localName === "area") &&
    (element.hasAttribute("href") || element.hasAttribute("xlink:href"))
  ) {
    const raw = element.getAttribute("href") ?? element.getAttribute("xlink:href") ?? "";
    let href;
    try {
      href = new URL(raw, element.baseURI).href;
    } catch {
      return { href: raw, navigates: false };
    }
    if (/^\s*javascript:/i.test(raw)) return { href, navigates: false };
    const withoutFragment = (/** @type {string} */ url) => url.split("#")[0];
    const sameDocumentFragment =
      raw.trim().startsWith("#") || (href.includes("#") && withoutFragment(href) === withoutFragment(location.href));
    return { href, navigates: !sameDocumentFragment };
  }
  return { href: undefined, navigates: isSubmitButton(element) && formOwner(element) !== null };
}

/**
 * Why a trusted click through the debugger would not be safe on this target, or null when it
 * is a safe generic target (docs/protocol/tools.md, "Action results", click_ax). Ordered from cheapest
 * to costliest; the first reason wins.
 * @param {import("./target.js").TreeHelpers} ax
 * @param {Element} element
 * @param {string} name the target's accessible name
 */
function unsafeFallbackReason(ax, element, name) {
  if (!element.isConnected) return "the target left the page";
  const hidden = cssHiddenReason(element);
  if (hidden !== null) return hidden;
  if (getComputedStyle(element).pointerEvents === "none") return "pointer-events: none";

  // Native controls, and anything inside a label that forwards its clicks to one.
  if (NATIVE_CONTROL_TAGS.has(element.localName)) return "native form control";
  const label = closestAcrossShadow(element, (node) => node.localName === "label");
  if (label !== null && /** @type {HTMLLabelElement} */ (label).control !== null) return "native form control (label)";

  // A toggle flipped by the synthetic click and flipped back by a second, trusted one.
  if (TOGGLE_STATE_ATTRIBUTES.some((attribute) => element.hasAttribute(attribute))) return "toggle state";
  // The target's own role as the agent read it; its ancestors' by their role attribute.
  if (TOGGLE_ROLES.has(printedRole(ax, element))) return "toggle state";
  if (closestAcrossShadow(element, (node) => TOGGLE_ROLES.has(explicitRole(node))) !== null) return "toggle state";
  if (
    element.localName === "details" ||
    closestAcrossShadow(element, (node) => node.localName === "summary") !== null
  ) {
    return "toggle state (details)";
  }

  if (formOwner(element) !== null || element.hasAttribute("form")) return "inside a form";
  if (element.localName === "a" && element.hasAttribute("download")) return "download link";

  const words = [
    name,
    element.getAttribute("aria-label"),
    element.getAttribute("title"),
    element.getAttribute("value"),
    normalizeText(element.textContent).slice(0, 500),
  ].join(" ");
  const mutating = MUTATING_NAME.exec(words);
  if (mutating !== null) return `mutating-sounding name ("${mutating[1].toLowerCase()}")`;

  // The trusted click lands on the centre; it must land on the target and not on an overlay.
  const point = centreOf(viewportRect(element));
  if (!isPointInViewport(point)) return "centre outside the viewport";
  // A document or a shadow root answers hit tests; a detached subtree's root does not.
  const root = /** @type {Node & Partial<DocumentOrShadowRoot>} */ (element.getRootNode());
  const hitScope = typeof root.elementFromPoint === "function" ? /** @type {DocumentOrShadowRoot} */ (root) : document;
  const hit = hitScope.elementFromPoint(point.x, point.y);
  // A cover that is a part of the target's own control (inside its label or its web component)
  // takes the click for it; the BiDi input path judges covers by the same rule (own-part.js).
  if (hit === null || !isPartOfSameControl(element, hit)) return "covered by another element";
  return null;
}

/**
 * click_element: the synthetic click, from the before-state to the report.
 * @param {{ref_id: string}} args
 * @param {import("./target.js").TreeHelpers} ax
 */
export async function clickElement(args, ax) {
  const started = await startClick(args, ax);
  // Scroll into view (centred), then the events of a real mouse click at the visible centre
  // (pointer-input.js), focus included: the synthetic path, kept first in both browsers.
  const { activeAfterPress } = pointerClick(started.element);
  return clickReport(ax, started, activeAfterPress);
}

/**
 * The first half of a click whose input comes from outside the page (a WebDriver BiDi pointer
 * click sent by the MCP server; content/actions/external-input.js): everything up to the
 * activation, so the same observers see the real click. The real click focuses the target (or
 * its focusable ancestor) itself, so no focus is set here.
 * @param {{ref_id: string}} args
 * @param {import("./target.js").TreeHelpers} ax
 */
export async function beginExternalClick(args, ax) {
  const started = await startClick(args, ax);
  return {
    element: started.element,
    token: started.token,
    rect: started.rect,
    description: started.description,
    /** The second half, once the real click has been sent. */
    finish: async () => {
      const report = await clickReport(ax, started, started.activeBefore);
      return { ...report, fallback: { eligible: false, reason: "the click was real input already" } };
    },
    /** Forgets the click when its input was never sent. */
    abort: () => forgetClick(started.token),
  };
}

/**
 * Everything before the activation: the target, its before-state, the observer, the scroll.
 * @param {{ref_id: string}} args
 * @param {import("./target.js").TreeHelpers} ax
 */
async function startClick(args, ax) {
  const element = resolveTarget(ax, args);
  const description = await describeTargetAsRead(ax, element);
  const hints = [];

  if (isNativelyDisabled(element)) {
    throw messages.toolError("not_actionable", `${args.ref_id} is disabled`, {
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
  const valuesBefore = controlValues();
  const popupsBefore = shownPopups();

  // Records until the click's microtasks have run are the click's own ("synchronous"); later
  // ones are deferred. The same observer serves both, so nothing falls between them.
  /** @type {MutationRecord[]} */
  const clickRecords = [];
  /** @type {RememberedClick} */
  const entry = {
    elementRef: new WeakRef(element),
    before,
    lastRect: null,
    clickedAt: performance.now(),
    observer: new MutationObserver((batch) => {
      const records = withoutMarkerRecords(batch);
      if (entry.inClickPhase) clickRecords.push(...records);
      else noteDeferredMutations(entry, records);
    }),
    expiry: 0,
    inClickPhase: true,
    targetMutatedSinceObservation: false,
    deferredMutationsElsewhere: 0,
    deferredRecords: [],
    quietSinceClick: true,
    activeAfterClick: null,
    valuesBefore,
    popupsBefore,
  };
  const token = newClickToken();
  // The expiry is armed first, so that an observer cannot outlive CLICK_MEMORY_MS even if the
  // page makes the click throw.
  entry.expiry = setTimeout(() => forgetClick(token), CLICK_MEMORY_MS);
  forgetExpiredClicks();
  rememberedClicks.set(token, entry);
  observeAroundElement(entry.observer, element);

  element.scrollIntoView({ block: "center", inline: "center", behavior: "instant" });
  const rect = viewportRect(element);
  entry.lastRect = rect;
  return { element, description, hints, before, activeBefore, controlledBefore, clickRecords, entry, token, rect };
}

/**
 * What changed anywhere in the page that an agent would see (docs/protocol/tools.md, "Action results"):
 * text (a status line, a live region), the value of a control (in a shadow tree too), a popup
 * that opened. Each is progress.
 * @param {MutationRecord[]} records
 * @param {{valuesBefore: Map<Element, string>, popupsBefore: Set<Element>}} entry
 */
function pageWideEvidence(records, entry) {
  return [
    ...textChangeEvidence(records),
    ...valueChangeEvidence(entry.valuesBefore),
    ...popupEvidence(entry.popupsBefore),
  ];
}

/**
 * The click's report, once it was activated: its synchronous evidence and the fallback verdict.
 * @param {import("./target.js").TreeHelpers} ax
 * @param {Awaited<ReturnType<typeof startClick>>} started
 * @param {Element|null} activeAfterOwnFocus where focus was after allwright's own focus()
 */
async function clickReport(ax, started, activeAfterOwnFocus) {
  const { element, description, hints, before, activeBefore, controlledBefore, clickRecords, entry, token, rect } =
    started;
  await nextTask();
  clickRecords.push(...withoutMarkerRecords(entry.observer.takeRecords()));
  entry.inClickPhase = false;

  const evidence = [];
  if (location.href !== before.href) evidence.push("url_changed");

  // Focus moved by a handler: not to the target (our own focus() did that), not back where it
  // was, nor where our focus() delegated it.
  const movedByHandler = (/** @type {Element|null} */ active) =>
    active !== activeBefore &&
    active !== element &&
    !isSelfOrInside(element, active) &&
    active !== document.body &&
    // A press focuses the target's nearest focusable ancestor (pointer-input.js; the real
    // click's default action does the same): that is the click's own focus, not a handler's.
    !(active !== null && isSelfOrInside(active, element));
  const activeNow = deepActiveElement();
  if (movedByHandler(activeAfterOwnFocus) || (activeNow !== activeAfterOwnFocus && movedByHandler(activeNow))) {
    evidence.push("focus_moved");
  }

  const controlled = [...new Set([...controlledBefore, ...controlledBy(element)])];
  const { local, elsewhere } = classifyMutations(clickRecords, element, controlled);
  if (local) evidence.push("local_mutation");
  evidence.push(...semanticStateChanges(before.semantic, semanticState(element)));
  evidence.push(...pageWideEvidence(clickRecords, entry));
  if (elsewhere > 0) hints.push(`global_mutation: ${elsewhere} mutations elsewhere`);
  // Anything at all that followed the input (a mutation anywhere, focus moved by a handler, a new
  // URL) shows the page heard it: the trusted fallback must not click a second time.
  if (withoutMarkerRecords(clickRecords).length > 0 || evidence.length > 0) entry.quietSinceClick = false;
  entry.activeAfterClick = activeNow;

  const reason = unsafeFallbackReason(ax, element, description.name);
  const fallback =
    reason === null ? { eligible: true, point: centreOf(viewportRect(element)) } : { eligible: false, reason };

  const { href, navigates } = navigationOf(element);
  /** @type {Record<string, unknown>} */
  const result = { token, ...description, rect, navigates, evidence, hints, fallback };
  if (href !== undefined) result.href = href;
  return result;
}

/** @param {{token: string}} args */
export async function observeClick(args) {
  const token = args.token;
  forgetExpiredClicks();
  const entry = rememberedClicks.get(token);
  if (entry === undefined) {
    throw messages.toolError("invalid_arguments", `no click is remembered under ${token}`, {
      hint: `Clicks are remembered for ${CLICK_MEMORY_MS / 1000} seconds by the frame that performed them.`,
    });
  }
  noteDeferredMutations(entry, withoutMarkerRecords(entry.observer.takeRecords()));

  const element = entry.elementRef.deref();
  const connected = element !== undefined && element.isConnected;
  const evidence = [];
  const hints = [];
  if (location.href !== entry.before.href) evidence.push("url_changed");
  const deferredRecords = entry.deferredRecords.splice(0);
  evidence.push(...pageWideEvidence(deferredRecords, entry));
  if (deepActiveElement() !== entry.activeAfterClick) {
    entry.quietSinceClick = false;
    hints.push("the focus moved since the click");
  }
  if (evidence.length > 0) entry.quietSinceClick = false;

  /** @type {{x: number, y: number, width: number, height: number} | null} */
  let rect = null;
  if (connected) {
    evidence.push(...semanticStateChanges(entry.before.semantic, semanticState(element)));
    rect = viewportRect(element);
    // Deferred changes of the target's name, class, style or children are diagnostics only
    // (docs/protocol/tools.md, "Action results"): previews, unread badges and timestamps change alone.
    const now = targetAppearance(element);
    const changed = /** @type {(keyof typeof now)[]} */ (Object.keys(now)).filter(
      (key) => now[key] !== entry.before.appearance[key],
    );
    if (changed.length > 0) hints.push(`the target's ${changed.join(", ")} changed since the click`);
  } else {
    hints.push("the target is no longer in the page");
  }
  if (entry.deferredMutationsElsewhere > 0) {
    hints.push(`global_mutation: ${entry.deferredMutationsElsewhere} mutations elsewhere since the click`);
  }

  // Stable (two stable observation intervals of the page and the target, docs/protocol/tools.md,
  // "Action results"): the same box
  // as at the previous observation (the click, the first time), and no mutation of the target
  // or anywhere else in the page in between. A page still reacting (a request's answer being
  // rendered) may be the click's deferred effect, so it must not get a second activation.
  const stable =
    connected &&
    // Connected, so measured just above; the click measured the box before (startClick).
    sameRect(
      /** @type {{x: number, y: number, width: number, height: number}} */ (rect),
      /** @type {{x: number, y: number, width: number, height: number}} */ (entry.lastRect),
    ) &&
    !entry.targetMutatedSinceObservation &&
    !entry.pageMutatedSinceObservation;
  entry.lastRect = rect;
  entry.targetMutatedSinceObservation = false;
  entry.pageMutatedSinceObservation = false;
  return {
    evidence,
    hints,
    rect,
    stable,
    connected,
    quietSinceClick: entry.quietSinceClick,
    animating: animationRunning(),
  };
}
