// @ts-check
// Whether click_ax's synthetic click reached a page listener that could act on it (issue 27,
// item 5; docs/protocol/tools.md, "Action results"): Chrome's trusted fallback click may run only when
// the answer is provably no. A page that acts on a click later (a timer, a request and then a
// render, an animation frame, a promise chain) shows nothing during the two observation
// intervals, yet it heard the click; a second, trusted click would act twice. "Nothing changed
// yet" proves nothing, so the question goes to the browser instead: the debugger's
// `DOMDebugger.getEventListeners` (Chrome DevTools Protocol) on every node the click's events
// pass through.
//
// Which nodes: the DOM's event path ("get the parent", DOM Standard 2.5: a slotted node's
// assigned slot, else its parent; a shadow root's host; the document's window), from the
// element the click went to up to the window, and every node inside that element (the events
// go to the top element at the point inside the target, content/actions/pointer-input.js),
// shadow roots and same-origin frames included. Asked of the browser, never of the page, whose
// scripts could answer anything.
//
// Which listeners: any for an event a mouse click fires at its target and that a second click
// would fire again (CLICK_EVENT_TYPES), in the page's world and in every isolated world
// (`pierce: true` reports listeners of all contexts for nodes; Chromium reports a window's for
// the world it was resolved in, the page's). Inline `onclick` attributes and `onclick`
// properties are listeners to Chromium (JSEventHandler, a JSBasedEventListener) and are
// reported as `click`. A framework that delegates to its root (React's container, Vue's and
// Angular's document listeners) has its listener on an ancestor, which is on the path. The
// extension's own content scripts listen on the window for pointerover/out, mouseover/out,
// focus and form events only (content/tree/changed-parts.js), none of which counts.
//
// `eventPathOf` and `clickListenersIn` are pure (they read the protocol's answers), so the unit
// tests run them without a browser; `findClickListeners` asks the questions.

import { thrownMessage } from "../../shared/thrown.js";

/**
 * The events a mouse click fires at its target that a page acts on, and that a second click
 * would fire again (UI Events, "Mouse Event Order"; Pointer Events, "Compatibility mapping with
 * mouse events"): the press, the release and the click, and Chromium's legacy `DOMActivate`,
 * fired with a click's activation. The pointer's way onto the element (over, enter, move) is
 * left out: the synthetic click's pointer already came onto the element, and a page that opens
 * something on hover opens it once.
 */
export const CLICK_EVENT_TYPES = Object.freeze([
  "click",
  "auxclick",
  "mousedown",
  "mouseup",
  "pointerdown",
  "pointerup",
  "DOMActivate",
]);

/** How many listeners a withheld click names in its hint. */
const LISTENERS_NAMED = 3;

/**
 * A node of DOM.getDocument's answer (DOM.Node), the fields read here.
 * @typedef {{backendNodeId: number, nodeName: string, attributes?: string[],
 *   assignedSlot?: {backendNodeId: number}, children?: CdpNode[], shadowRoots?: CdpNode[],
 *   contentDocument?: CdpNode}} CdpNode
 * One entry of DOMDebugger.getEventListeners' answer (DOMDebugger.EventListener), the fields read.
 * @typedef {{type: string, useCapture?: boolean, backendNodeId?: number}} CdpListener
 * What the check found: the listeners that heard the click (none: the fallback may run), or why
 * that could not be proven (the fallback must not run).
 * @typedef {{heard: string[]} | {unproven: string}} ListenerFinding
 */

/**
 * The event path of a click on `target`, from the target up to its document (the window is
 * asked apart), or null when a step cannot be followed (a slot that is not in the tree).
 * @param {CdpNode} root the top document, as DOM.getDocument({depth: -1, pierce: true}) answers it
 * @param {CdpNode} target
 * @returns {CdpNode[] | null}
 */
export function eventPathOf(root, target) {
  /** @type {Map<number, CdpNode>} */
  const nodes = new Map();
  /** @type {Map<number, CdpNode>} */
  const parents = new Map();
  const visit = (/** @type {CdpNode} */ node) => {
    nodes.set(node.backendNodeId, node);
    // A shadow root's parent in the event path is its host, which is where the tree lists it.
    for (const child of [...(node.shadowRoots ?? []), ...(node.children ?? [])]) {
      parents.set(child.backendNodeId, node);
      visit(child);
    }
    // A frame's document has its own path (and its own window): it is not an ancestor here.
    if (node.contentDocument !== undefined) visit(node.contentDocument);
  };
  visit(root);
  const path = [];
  /** @type {CdpNode | undefined} */
  let node = target;
  while (node !== undefined) {
    path.push(node);
    if (node.nodeName === "#document") return path;
    if (node.assignedSlot !== undefined) {
      // A slotted node's next stop is its slot, inside the host's shadow tree (DOM Standard,
      // "get the parent" of a node: its assigned slot when it is assigned).
      const slot = nodes.get(node.assignedSlot.backendNodeId);
      if (slot === undefined) return null;
      node = slot;
    } else {
      node = parents.get(node.backendNodeId);
    }
  }
  // The walk ended below a document: the target is not in the top document's tree.
  return null;
}

/**
 * The listeners among `listeners` that act on a click, each as "click on button#save"
 * ("(capture)" when it listens in the capture phase), in the order given.
 * @param {{where: string, listeners: CdpListener[]}[]} listenersByTarget
 * @returns {string[]}
 */
export function clickListenersIn(listenersByTarget) {
  const found = [];
  for (const { where, listeners } of listenersByTarget) {
    for (const listener of listeners) {
      if (!CLICK_EVENT_TYPES.includes(listener.type)) continue;
      found.push(`${listener.type} on ${where}${listener.useCapture === true ? " (capture)" : ""}`);
    }
  }
  return found;
}

/**
 * The sentence a withheld fallback gives: the first listeners found and how many more.
 * @param {string[]} heard
 */
export function describeHeard(heard) {
  const named = heard.slice(0, LISTENERS_NAMED).join(", ");
  const more = heard.length > LISTENERS_NAMED ? ` and ${heard.length - LISTENERS_NAMED} more` : "";
  return `the click reached the page's listeners (${named}${more}), so the page heard it`;
}

/** `tag#id.class` of a node, or the node's name for a document or shadow root. */
export function describeNode(/** @type {CdpNode} */ node) {
  if (node.nodeName === "#document") return "document";
  if (node.nodeName === "#document-fragment") return "a shadow root";
  const attributes = node.attributes ?? [];
  let text = node.nodeName.toLowerCase();
  for (let index = 0; index + 1 < attributes.length; index += 2) {
    if (attributes[index] === "id" && attributes[index + 1] !== "") text += `#${attributes[index + 1]}`;
    if (attributes[index] === "class" && attributes[index + 1].trim() !== "") {
      text += `.${attributes[index + 1].trim().split(/\s+/).slice(0, 3).join(".")}`;
    }
  }
  return text.slice(0, 120);
}

/**
 * Asks the browser, through the attached debugger, which listeners on the click's path act on
 * a click. Any protocol error, or a path that cannot be followed, is `unproven`: the fallback
 * then does not run.
 * @param {(method: string, params?: object) => Promise<any>} send a debugger command
 * @param {CdpNode} root the top document (DOM.getDocument with depth -1 and pierce)
 * @param {CdpNode} target the element the click went to (the marked one)
 * @returns {Promise<ListenerFinding>}
 */
export async function findClickListeners(send, root, target) {
  const path = eventPathOf(root, target);
  if (path === null) return { unproven: "the element's event path could not be followed" };
  /** @type {{where: string, listeners: CdpListener[]}[]} */
  const listenersByTarget = [];
  try {
    for (const [index, node] of path.entries()) {
      const { object } = await send("DOM.resolveNode", { backendNodeId: node.backendNodeId });
      // The target with its whole subtree (depth -1), its ancestors alone (depth 1 is the node
      // itself in Chromium's CollectNodes); pierce: shadow roots, same-origin frames and
      // listeners of every world.
      const { listeners } = await send("DOMDebugger.getEventListeners", {
        objectId: object.objectId,
        depth: index === 0 ? -1 : 1,
        pierce: true,
      });
      listenersByTarget.push({ where: describeListenerTarget(node, listeners, path[0]), listeners });
    }
    // `window` cannot be redefined by the page ([LegacyUnforgeable]), unlike `globalThis`.
    const { result: window } = await send("Runtime.evaluate", { expression: "window" });
    if (typeof window?.objectId !== "string") return { unproven: "the page's window could not be resolved" };
    const { listeners } = await send("DOMDebugger.getEventListeners", { objectId: window.objectId });
    listenersByTarget.push({ where: "window", listeners });
  } catch (error) {
    return { unproven: `the browser could not list the page's listeners (${thrownMessage(error)})` };
  }
  return { heard: clickListenersIn(listenersByTarget) };
}

/**
 * Where the listeners of one step sit, for the hint: the node, or "inside <target>" for a
 * listener the subtree query found on a descendant.
 * @param {CdpNode} node
 * @param {CdpListener[]} listeners
 * @param {CdpNode} target
 */
function describeListenerTarget(node, listeners, target) {
  if (node !== target) return describeNode(node);
  const onDescendant = listeners.some(
    (listener) => listener.backendNodeId !== undefined && listener.backendNodeId !== target.backendNodeId,
  );
  return onDescendant ? `${describeNode(target)} or inside it` : describeNode(target);
}
