// @ts-check
// drag_element, the page half of drag: a press on the source, moves in steps to the drop target
// (or by an offset), and a release there, as a person's mouse gives them; then what moved.
//
// Two families of pages take a drag, and a browser serves both from the same mouse:
// - HTML5 drag and drop (HTML, "Drag and drop"): once the pressed element (or an ancestor) is
//   draggable and the pointer moves, the browser fires dragstart at the source, pointercancel
//   (Pointer Events, "Suppressing a pointer event stream"), then drag at the source and
//   dragenter/dragover at what is under the pointer; the target accepts by cancelling dragover,
//   and the release fires drop there (only when accepted) and dragend at the source, one
//   DataTransfer carried through, no pointerup, mouseup or click. Measured in Chromium 156 and
//   Firefox 153 with real input (docs/agent-tools.md, "drag").
// - Pointer-event libraries (dnd-kit, SortableJS's fallback, hello-pangea/dnd, jQuery UI, sliders
//   and splitters): pointerdown/mousedown, pointermove/mousemove in steps past the library's
//   activation distance, pointerup/mouseup over the target, and click on what the press and the
//   release have in common (UI Events, "click").
// The events are synthetic (isTrusted false); a browser allwright launched sends real input
// instead where it performs the drag itself (src/browser_bridge/input.rs), and this observation
// reports either.

import { flatTreeParentElement, isSelfOrInside } from "../dom/shadow.js";
import { isPointInViewport, normalizeText, viewportRect } from "./element.js";
import {
  animationRunning,
  classifyMutations,
  controlledBy,
  semanticState,
  semanticStateChanges,
  startMutationWindow,
} from "./evidence.js";
import { focusElement, scrollIntoViewIfNeeded } from "./interaction.js";
import { runPageHandlers } from "./page-handlers.js";
import {
  aimAt,
  deepElementFromPoint,
  flatTreeChain,
  focusTargetOfPress,
  inViewCentre,
  mouseFields,
  movePointerTo,
  pointerFields,
  pointerNowOn,
} from "./pointer-input.js";
import { describeTargetAsRead, resolveTarget } from "./target.js";
import { nextFrame, waitFor } from "./timing.js";
import { deepActiveElement } from "../dom/shadow.js";

const messages = globalThis.allwrightMessages;

/** How many moves carry the pointer from the source to the target, one frame apart. */
const DRAG_STEPS = 12;
/**
 * The first move's distance from the press, in CSS pixels: below every activation distance we
 * know of (dnd-kit's and hello-pangea's 5, jQuery UI's 1 is passed by the next step), as a hand
 * that starts to move.
 */
const FIRST_MOVE_PX = 2;
/** How long the page may take to show the drop: hello-pangea animates it for about 250 ms. */
const DROP_OBSERVATION_MS = 1_500;
/**
 * How long the page must stay still (no mutation, no animation) after the release before a drag
 * that moved no item is reported.
 */
const QUIET_AFTER_DROP_MS = 300;

/** Elements that a list, board or grid moves as one item, nearest first. */
const ITEM_SELECTOR =
  'li, tr, article, [role="listitem"], [role="option"], [role="row"], [role="article"], [role="treeitem"], ' +
  '[draggable="true"], [data-rfd-draggable-id], [aria-roledescription="sortable"], [aria-roledescription="draggable"]';

/**
 * The HTML5 drag source a press on `pressed` would drag: the nearest element of its flat-tree
 * chain whose `draggable` is true (HTML, "draggable": true by default for links and images),
 * unless an element on the way says draggable="false".
 * @param {Element} pressed
 * @returns {HTMLElement | null}
 */
export function html5DragSourceOf(pressed) {
  for (const node of flatTreeChain(pressed)) {
    if (!(node instanceof HTMLElement)) continue;
    if (node.getAttribute("draggable") === "false") return null;
    if (node.draggable) return node;
  }
  return null;
}

/**
 * A short label of an element: its aria-label, else its text, at most 60 characters.
 * @param {Element} element
 */
function labelOf(element) {
  const text = element.getAttribute("aria-label") || normalizeText(element.textContent);
  return text.length > 60 ? `${text.slice(0, 60)}…` : text;
}

/**
 * The name of the list or column an item sits in: the nearest ancestor (three at most) that is
 * labelled (aria-label, aria-labelledby) or whose first heading names it.
 * @param {Element} item
 */
function containerLabelOf(item) {
  let node = flatTreeParentElement(item);
  for (let level = 0; node !== null && level < 3; level += 1, node = flatTreeParentElement(node)) {
    const label = node.getAttribute("aria-label");
    if (label) return normalizeText(label);
    const labelledBy = node.getAttribute("aria-labelledby");
    const labelling = labelledBy ? node.ownerDocument.getElementById(labelledBy.split(/\s+/)[0]) : null;
    if (labelling !== null) return normalizeText(labelling.textContent);
    const heading = node.querySelector(":scope > h1, :scope > h2, :scope > h3, :scope > h4, :scope > header");
    if (heading !== null) return normalizeText(heading.textContent);
  }
  return "";
}

/**
 * Where an item is: its list's label, its place among its siblings of the same kind (1-based)
 * and the item before it.
 * @param {Element} item
 */
function placeOf(item) {
  const parent = item.parentElement;
  const siblings = parent === null ? [item] : [...parent.children].filter((node) => node.localName === item.localName);
  const index = siblings.indexOf(item);
  /** @type {{list: ReturnType<typeof containerLabelOf>, position: number, of: number, after?: ReturnType<typeof labelOf>}} */
  const place = { list: containerLabelOf(item), position: index + 1, of: siblings.length };
  if (index > 0) place.after = labelOf(siblings[index - 1]);
  return place;
}

/**
 * The item a drag of `source` moves: the nearest list item, row, card or draggable around it.
 * @param {Element} source
 */
function itemOf(source) {
  return source.closest(ITEM_SELECTOR) ?? source;
}

/**
 * The item after the drop: the same element when the page moved it, else the one element of
 * its kind with the same label (a framework that rendered it anew in its new list).
 * @param {Element} item
 * @param {string} label
 */
function itemAfterDrop(item, label) {
  if (item.isConnected) return item;
  const candidates = [...document.querySelectorAll(item.localName)].filter((node) => labelOf(node) === label);
  return candidates.length === 1 ? candidates[0] : null;
}

/**
 * The point a drag ends at: the drop target's in-view centre, or the press point moved by the
 * offset. Both ends must be in the viewport at once, as a person's hand needs them.
 * @param {Element} source
 * @param {Element | null} target
 * @param {{x: number, y: number} | undefined} offset
 */
function dragEnds(source, target, offset) {
  scrollIntoViewIfNeeded(source);
  if (target !== null && !isPointInViewport(inViewCentre(target))) {
    target.scrollIntoView({ block: "nearest", inline: "nearest", behavior: "instant" });
  }
  const { point: start, element: pressed } = aimAt(source);
  const end =
    target !== null
      ? inViewCentre(target)
      : { x: start.x + Math.round(offset?.x ?? 0), y: start.y + Math.round(offset?.y ?? 0) };
  if (!isPointInViewport(start) || !isPointInViewport(end)) {
    throw messages.toolError("not_actionable", "the drag's start and end do not fit in the viewport together", {
      hint:
        target !== null
          ? "Scroll so that both elements show (scroll), or drag in two steps with `by` offsets."
          : "Use a smaller offset: the end point must stay inside the viewport.",
    });
  }
  return { start, end, pressed };
}

/**
 * The observation around one drag, begun before the pointer moves: both ends resolved and
 * described as the agent read them, the item's place, the source's states, a mutation window;
 * `finish` waits for the page to show the drop and reports what moved. The synthetic drag and
 * the bridge's real one (external-input.js) share it.
 * @param {{from_ref: string, to_ref?: string, by?: {x: number, y: number}}} args
 * @param {import("./target.js").TreeHelpers} ax
 */
export async function beginDragObservation(args, ax) {
  const source = resolveTarget(ax, { ref_id: args.from_ref });
  const target = args.to_ref === undefined ? null : resolveTarget(ax, { ref_id: args.to_ref });
  if (target !== null && (isSelfOrInside(source, target) || isSelfOrInside(target, source))) {
    throw messages.toolError("invalid_arguments", "from_ref and to_ref are the same element, or one holds the other", {
      hint: "Drop onto another element: the list, column or item to move the dragged one to.",
    });
  }
  const description = await describeTargetAsRead(ax, source);
  const dropDescription = target === null ? null : await describeTargetAsRead(ax, target);
  const { start, end, pressed } = dragEnds(source, target, args.by);
  const item = itemOf(source);
  const itemLabel = labelOf(item);
  const placeBefore = placeOf(item);
  const stateBefore = semanticState(source);
  const mutationWindow = startMutationWindow(item.parentElement ?? item);
  const html5Source = html5DragSourceOf(pressed) !== null;
  // The browser's own drags (isTrusted) that start and end meanwhile: real input that starts an
  // HTML5 drag Firefox then never ends (docs/agent-tools.md, "Dragging: drag") is told apart.
  const nativeDrags = { started: 0, ended: 0 };
  const countStart = (/** @type {Event} */ event) => {
    if (event.isTrusted) nativeDrags.started += 1;
  };
  const countEnd = (/** @type {Event} */ event) => {
    if (event.isTrusted) nativeDrags.ended += 1;
  };
  // The browser's own press, when the server sends it alone first (continueAfterRealPress): a
  // press the page cancelled starts no HTML5 drag.
  /** @type {MouseEvent | null} */
  let realMousedown = null;
  const recordPress = (/** @type {MouseEvent} */ event) => {
    if (event.isTrusted) realMousedown = event;
  };
  window.addEventListener("dragstart", countStart, { capture: true });
  window.addEventListener("dragend", countEnd, { capture: true });
  window.addEventListener("mousedown", recordPress, { capture: true });
  /** @type {{released: Promise<void>, stop: () => void} | null} */
  let releaseSwallower = null;
  /** @type {string | undefined} */
  let dropEffectAfterRealPress;
  const stopCounting = () => {
    window.removeEventListener("dragstart", countStart, { capture: true });
    window.removeEventListener("dragend", countEnd, { capture: true });
    window.removeEventListener("mousedown", recordPress, { capture: true });
    releaseSwallower?.stop();
  };

  /**
   * After the server's real press, sent alone (Firefox, src/browser_bridge/input.rs): whether
   * the press made an HTML5 drag source (SortableJS sets `draggable` in its own pointerdown
   * handler) and, if so, the drag and drop events from that press, sent here: Firefox would
   * start a native drag from real moves and never drop nor end it. The real release that
   * follows is swallowed, as a browser fires no pointerup, mouseup or click after a drag.
   * @returns {Promise<{html5: boolean}>}
   */
  const continueAfterRealPress = async () => {
    const dragSource = realMousedown?.defaultPrevented === true ? null : html5DragSourceOf(pressed);
    if (dragSource === null) return { html5: false };
    releaseSwallower = swallowRealRelease();
    const path = dragPath(start, end);
    const dragged = await html5Drag(dragSource, pressed, path);
    if (dragged === null) await pointerDrag(pressed, path, false);
    else dropEffectAfterRealPress = dragged.dropEffect;
    return { html5: true };
  };

  /** @returns {Promise<Record<string, unknown> & {hints: string[]}>} */
  const finish = async () => {
    if (releaseSwallower !== null) await Promise.race([releaseSwallower.released, delay(RELEASE_SWALLOW_MS)]);
    const hints = [];
    /** @type {ReturnType<typeof placeOf>|null} */
    let moved = null;
    const observe = () => {
      const now = itemAfterDrop(item, itemLabel);
      if (now === null) return null;
      const place = placeOf(now);
      if (place.list !== placeBefore.list || place.position !== placeBefore.position) moved = place;
      return moved;
    };
    // The drop shows when the item is at its new place, or when the page has been still for a
    // while (a slider, a splitter, a refused drop). A library that animates the drop
    // (hello-pangea) writes the new order only afterwards, so a running animation is not still.
    let seenRecords = mutationWindow.collect().length;
    let stillSince = performance.now();
    await waitFor(() => {
      if (observe() !== null) return true;
      const records = mutationWindow.collect().length;
      if (records !== seenRecords || animationRunning()) {
        seenRecords = records;
        stillSince = performance.now();
        return null;
      }
      return performance.now() - stillSince >= QUIET_AFTER_DROP_MS || null;
    }, DROP_OBSERVATION_MS);
    const evidence = [];
    if (moved !== null) evidence.push("moved");
    if (source.isConnected) evidence.push(...semanticStateChanges(stateBefore, semanticState(source)));
    const records = mutationWindow.finish();
    stopCounting();
    const { local, elsewhere } = classifyMutations(records, source, controlledBy(source));
    if (local) evidence.push("local_mutation");
    if (elsewhere > 0) hints.push(`global_mutation: ${elsewhere} mutations elsewhere`);
    /** @type {Record<string, unknown> & {hints: string[]}} */
    const result = { ...description, evidence, hints, from: start, to: end };
    if (dropDescription !== null) result.target = { role: dropDescription.role, name: dropDescription.name };
    result.moved = moved === null ? false : { item: itemLabel, before: placeBefore, after: moved };
    if (nativeDrags.started > nativeDrags.ended) result.nativeDragUnfinished = true;
    if (dropEffectAfterRealPress !== undefined) result.dropEffect = dropEffectAfterRealPress;
    return result;
  };
  return {
    element: source,
    target,
    description,
    rect: viewportRect(source),
    start,
    end,
    pressed,
    html5Source,
    continueAfterRealPress,
    finish,
    abort: () => {
      mutationWindow.finish();
      stopCounting();
    },
  };
}

/** How long the real release after a drag's synthetic events may take to arrive. */
const RELEASE_SWALLOW_MS = 1_000;

const delay = (/** @type {number} */ ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Swallows the browser's own pointerup, mouseup and click of the release that ends a drag whose
 * drag events were synthetic: `released` settles once the release went by (its click, or a task
 * after its mouseup, since a click may not follow when the item moved away), and `stop` removes
 * the listeners, so that no later click of the agent's is swallowed.
 * @returns {{released: Promise<void>, stop: () => void}}
 */
function swallowRealRelease() {
  const types = ["pointerup", "mouseup", "click"];
  /** @type {() => void} */
  let settle = () => {};
  const released = new Promise((resolve) => {
    settle = () => resolve(undefined);
  });
  const stop = () => {
    for (const type of types) window.removeEventListener(type, swallow, { capture: true });
    settle();
  };
  const swallow = (/** @type {Event} */ event) => {
    if (!event.isTrusted) return;
    event.stopImmediatePropagation();
    event.preventDefault();
    if (event.type === "click") stop();
    else if (event.type === "mouseup") setTimeout(stop, 0);
  };
  for (const type of types) window.addEventListener(type, swallow, { capture: true });
  return { released, stop };
}

/**
 * The points of the moves from `start` to `end`: a first small one, then even steps.
 * @param {{x: number, y: number}} start
 * @param {{x: number, y: number}} end
 */
function dragPath(start, end) {
  const length = Math.hypot(end.x - start.x, end.y - start.y);
  const unit = length === 0 ? { x: 1, y: 0 } : { x: (end.x - start.x) / length, y: (end.y - start.y) / length };
  const points = [{ x: Math.round(start.x + unit.x * FIRST_MOVE_PX), y: Math.round(start.y + unit.y * FIRST_MOVE_PX) }];
  for (let step = 1; step <= DRAG_STEPS; step += 1) {
    points.push({
      x: Math.round(start.x + ((end.x - start.x) * step) / DRAG_STEPS),
      y: Math.round(start.y + ((end.y - start.y) * step) / DRAG_STEPS),
    });
  }
  // Once more where it ends: libraries that compute the drop target on the move after they
  // rearranged the list (SortableJS, dnd-kit) see the pointer settled over it.
  points.push({ ...end });
  return points;
}

/** @typedef {"none"|"copy"|"link"|"move"} DropEffect */

/**
 * The effect a dragover starts with (HTML, "drag-and-drop processing model", the table of
 * effectAllowed to dropEffect): the first operation effectAllowed permits, copy first as
 * Chromium and Gecko choose; "uninitialized" counts as "all".
 * @param {string} effectAllowed
 * @returns {DropEffect}
 */
function initialDropEffect(effectAllowed) {
  if (effectAllowed === "none") return "none";
  if (effectAllowed === "move" || effectAllowed === "linkMove") return effectAllowed === "move" ? "move" : "link";
  if (effectAllowed === "link") return "link";
  return "copy";
}

/**
 * Whether effectAllowed permits an operation (HTML, "effectAllowed").
 * @param {string} effectAllowed
 * @param {DropEffect} operation
 */
function allows(effectAllowed, operation) {
  if (operation === "none") return false;
  if (effectAllowed === "all" || effectAllowed === "uninitialized") return true;
  return effectAllowed.toLowerCase().includes(operation);
}

/** Whether this browser keeps what script writes to a script-made DataTransfer's effects. */
function scriptDataTransferKeepsEffects() {
  const probe = new DataTransfer();
  probe.effectAllowed = "all";
  return probe.effectAllowed === "all";
}

/**
 * The HTML5 part of a drag, after the press: dragstart at the source with a new DataTransfer,
 * pointercancel, then for each point drag at the source and dragenter/dragleave/dragover at what
 * is under the pointer, and at the release drop (when the current target accepted) and dragend.
 * Returns null when the page cancelled dragstart (no drag happens; the mouse goes on as a mouse).
 * @param {HTMLElement} source
 * @param {Element} pressed
 * @param {{x: number, y: number}[]} path
 */
async function html5Drag(source, pressed, path) {
  const dataTransfer = new DataTransfer();
  const at = (/** @type {{x: number, y: number}} */ point) => ({
    ...mouseFields(point, { button: 0, buttons: 1 }),
    dataTransfer,
  });
  const first = path[0];
  const started = runPageHandlers(() => source.dispatchEvent(new DragEvent("dragstart", at(first))));
  if (!started) return null;
  // What the page allowed in dragstart. SPEC DIFFERENCE: Chromium ignores writes to
  // effectAllowed and dropEffect of a DataTransfer made by script (it is not a drag's: both
  // read "none" whatever the page set), so there the drag counts as "uninitialized" (every
  // operation allowed) and a cancelled dragover takes the effect that starts with. Gecko keeps
  // the page's writes, which are honoured.
  const effectsWritable = scriptDataTransferKeepsEffects();
  const effectAllowed = effectsWritable ? dataTransfer.effectAllowed : "uninitialized";
  runPageHandlers(() =>
    pressed.dispatchEvent(
      new PointerEvent("pointercancel", {
        ...pointerFields(mouseFields(first, { button: 0, buttons: 0 })),
        cancelable: false,
      }),
    ),
  );
  /** @type {Element | null} */
  let current = null;
  /** @type {DropEffect} */
  let operation = "none";
  for (const point of path) {
    await nextFrame();
    const under = deepElementFromPoint(point) ?? document.body;
    runPageHandlers(() => {
      dataTransfer.dropEffect = "none";
      source.dispatchEvent(new DragEvent("drag", at(point)));
      // SPEC DIFFERENCE: HTML makes the body the current target when dragenter is not
      // cancelled; Chromium and Gecko keep the element under the pointer, so a page that
      // cancels only dragover (most of them) takes the drop. We follow the browsers.
      if (under !== current) {
        dataTransfer.dropEffect = initialDropEffect(effectAllowed);
        under.dispatchEvent(new DragEvent("dragenter", at(point)));
        if (current !== null) {
          dataTransfer.dropEffect = "none";
          current.dispatchEvent(new DragEvent("dragleave", { ...at(point), cancelable: false, relatedTarget: under }));
        }
        current = under;
      }
      dataTransfer.dropEffect = initialDropEffect(effectAllowed);
      const accepted = !under.dispatchEvent(new DragEvent("dragover", at(point)));
      const chosen = effectsWritable ? dataTransfer.dropEffect : initialDropEffect(effectAllowed);
      operation = accepted && allows(effectAllowed, chosen) ? chosen : "none";
    });
  }
  const last = path[path.length - 1];
  runPageHandlers(() => {
    if (current !== null && operation !== "none") {
      dataTransfer.dropEffect = operation;
      current.dispatchEvent(new DragEvent("drop", at(last)));
    } else if (current !== null) {
      dataTransfer.dropEffect = "none";
      current.dispatchEvent(new DragEvent("dragleave", { ...at(last), cancelable: false }));
    }
    dataTransfer.dropEffect = operation;
    source.dispatchEvent(new DragEvent("dragend", { ...at(last), buttons: 0 }));
  });
  pointerNowOn(current ?? source);
  return { dropEffect: operation };
}

/**
 * The pointer part of a drag: moves with the button held, each to what is under the pointer,
 * then the release there and a click on what the press and the release have in common.
 * @param {Element} pressed
 * @param {{x: number, y: number}[]} path
 * @param {boolean} mouseEventsSuppressed a cancelled pointerdown suppresses the mouse events
 */
async function pointerDrag(pressed, path, mouseEventsSuppressed) {
  let under = pressed;
  for (const point of path) {
    await nextFrame();
    under = deepElementFromPoint(point) ?? document.documentElement;
    const fields = mouseFields(point, { button: 0, buttons: 1 });
    runPageHandlers(() => {
      under.dispatchEvent(new PointerEvent("pointermove", pointerFields(fields)));
      if (!mouseEventsSuppressed) under.dispatchEvent(new MouseEvent("mousemove", fields));
    });
  }
  await nextFrame();
  const last = path[path.length - 1];
  const released = mouseFields(last, { button: 0, buttons: 0, detail: 1 });
  const changed = { buttonChanged: true };
  runPageHandlers(() => {
    under.dispatchEvent(new PointerEvent("pointerup", pointerFields(released, changed)));
    if (!mouseEventsSuppressed) under.dispatchEvent(new MouseEvent("mouseup", released));
    const common = commonAncestor(pressed, under);
    if (common !== null && pressed.isConnected) {
      common.dispatchEvent(
        new PointerEvent("click", { ...pointerFields(released, changed), detail: 1, isPrimary: false }),
      );
    }
  });
  pointerNowOn(under);
}

/**
 * The nearest element of both flat-tree chains (the click target of a press and release).
 * @param {Element} first
 * @param {Element} second
 */
function commonAncestor(first, second) {
  const chain = new Set(flatTreeChain(first));
  return flatTreeChain(second).find((node) => chain.has(node)) ?? null;
}

/**
 * drag_element({from_ref, to_ref} | {from_ref, by}): the synthetic drag, then the observation.
 * `method` says which sequence the page got: "synthetic-html5" when the pressed element was
 * draggable once pressed (SortableJS makes its item draggable on pointerdown), else
 * "synthetic-pointer".
 * @param {{from_ref: string, to_ref?: string, by?: {x: number, y: number}}} args
 * @param {import("./target.js").TreeHelpers} ax
 */
export async function dragElement(args, ax) {
  const observation = await beginDragObservation(args, ax);
  const { pressed, start, end } = observation;
  const path = dragPath(start, end);
  const pressedFields = mouseFields(start, { button: 0, buttons: 1, detail: 1 });
  const changed = { buttonChanged: true };
  const { proceeded, mousedownCancelled } = runPageHandlers(() => {
    movePointerTo(pressed, start);
    const downProceeded = pressed.dispatchEvent(new PointerEvent("pointerdown", pointerFields(pressedFields, changed)));
    const cancelled = downProceeded && !pressed.dispatchEvent(new MouseEvent("mousedown", pressedFields));
    return { proceeded: downProceeded, mousedownCancelled: cancelled };
  });
  if (!mousedownCancelled) {
    const focusable = focusTargetOfPress(pressed);
    if (focusable !== null && deepActiveElement() !== focusable) focusElement(focusable);
  }
  // A cancelled mousedown keeps the browser from starting a drag (HTML, "drag-and-drop
  // processing model": the user agent starts one on a press that was not cancelled).
  const html5Source = mousedownCancelled || !proceeded ? null : html5DragSourceOf(pressed);
  let method = "synthetic-pointer";
  let dropEffect;
  if (html5Source !== null) {
    const dragged = await html5Drag(html5Source, pressed, path);
    if (dragged !== null) {
      method = "synthetic-html5";
      dropEffect = dragged.dropEffect;
    } else {
      await pointerDrag(pressed, path, !proceeded);
    }
  } else {
    await pointerDrag(pressed, path, !proceeded);
  }
  const result = await observation.finish();
  result.method = method;
  if (dropEffect !== undefined) result.dropEffect = dropEffect;
  return result;
}
