// @ts-check
// The last check before Chrome's trusted fallback click (docs/protocol/action-safety.md, "A ref means one
// element"), made through the debugger after it attached, that is, as late as the click can be
// checked: the element the synthetic click went to (marked by the frame, mark_trusted_target) is
// still the top element at the point, in the top document and not in a frame, and the page still
// shows the URL and the scroll position and viewport size it showed when the point was measured.
// Anything else (a re-render that put another row under the point, an overlay, a scroll, a
// navigation, a frame) and the click is not sent: a trusted click on the wrong element is worse
// than none. The questions go to the browser (Chrome DevTools Protocol, DOM and Page domains),
// not to the page, whose scripts could answer anything.
//
// `trustedClickRefusal` is pure (it reads the protocol's answers), so the unit tests run it
// without a browser; `checkTrustedClick` asks the questions, and then whether the synthetic
// click reached a listener (click-listeners.js): if it did, or if that cannot be proven, the
// trusted click is withheld.

import { describeNode, describeHeard, findClickListeners } from "./click-listeners.js";
import { thrownMessage } from "../../shared/thrown.js";

/**
 * What the frame reported when it marked the target (content/actions/trusted-target.js).
 * @typedef {{marker: string, attribute: string, url: string,
 *   viewport: {scrollX: number, scrollY: number, width: number, height: number}}} MarkedTarget
 * A node of DOM.getDocument's answer (DOM.Node), the fields read here.
 * @typedef {{backendNodeId: number, nodeName: string, attributes?: string[], frameId?: string,
 *   children?: CdpNode[], shadowRoots?: CdpNode[], contentDocument?: CdpNode}} CdpNode
 * The answers the check reads.
 * @typedef {{root: CdpNode, hit: {backendNodeId: number, frameId: string},
 *   frame: {id: string, url: string, urlFragment?: string},
 *   layout: {pageX: number, pageY: number, clientWidth: number, clientHeight: number}}} CdpAnswers
 */

/** Scroll positions and sizes may differ by rounding (CSS pixels are fractional). */
const TOLERANCE_PX = 1;

/** Elements whose box shows another document: a point on them is inside a frame. */
const FRAME_OWNERS = new Set(["IFRAME", "FRAME", "OBJECT", "EMBED", "PORTAL", "FENCEDFRAME"]);

/**
 * Why the trusted click must not be sent, or null when it may.
 * @param {MarkedTarget} marked
 * @param {CdpAnswers} answers
 * @returns {string | null}
 */
export function trustedClickRefusal(marked, answers) {
  const { root, hit, frame, layout } = answers;
  const urlNow = frame.url + (frame.urlFragment ?? "");
  if (urlNow !== marked.url) return `the page's URL changed (${marked.url} -> ${urlNow})`;
  const { viewport } = marked;
  if (
    Math.abs(layout.pageX - viewport.scrollX) > TOLERANCE_PX ||
    Math.abs(layout.pageY - viewport.scrollY) > TOLERANCE_PX
  ) {
    return "the page scrolled";
  }
  if (
    Math.abs(layout.clientWidth - viewport.width) > TOLERANCE_PX ||
    Math.abs(layout.clientHeight - viewport.height) > TOLERANCE_PX
  ) {
    return "the viewport changed size";
  }
  if (hit.frameId !== frame.id) return "the point is inside a frame";
  const parents = new Map();
  /** @type {CdpNode[]} */
  const marks = [];
  /** @type {CdpNode | undefined} */
  let hitNode;
  const visit = (/** @type {CdpNode} */ node, /** @type {CdpNode | null} */ parent) => {
    parents.set(node.backendNodeId, parent);
    if (node.backendNodeId === hit.backendNodeId) hitNode = node;
    if (carriesMarker(node, marked)) marks.push(node);
    for (const child of [...(node.shadowRoots ?? []), ...(node.children ?? [])]) visit(child, node);
    if (node.contentDocument !== undefined) visit(node.contentDocument, node);
  };
  visit(root, null);
  if (marks.length === 0) return "the element is no longer in the page";
  if (marks.length > 1) return `the page copied the element's marker to ${marks.length} elements`;
  if (hitNode === undefined) return "the browser found no element at the point";
  if (FRAME_OWNERS.has(hitNode.nodeName.toUpperCase())) return "the point is inside a frame";
  for (let node = hitNode; node !== null && node !== undefined; node = parents.get(node.backendNodeId)) {
    if (node === marks[0]) return null;
    if (node.nodeName === "#document" && node !== root) return "the point is inside a frame";
  }
  return `another element is on top at the point (${describeNode(hitNode)})`;
}

/**
 * @param {CdpNode} node
 * @param {MarkedTarget} marked
 */
function carriesMarker(node, marked) {
  const attributes = node.attributes ?? [];
  for (let index = 0; index + 1 < attributes.length; index += 2) {
    if (attributes[index] === marked.attribute && attributes[index + 1] === marked.marker) return true;
  }
  return false;
}

/**
 * The nodes of DOM.getDocument's answer that carry the frame's marker.
 * @param {CdpNode} root
 * @param {MarkedTarget} marked
 * @returns {CdpNode[]}
 */
export function markedNodesIn(root, marked) {
  /** @type {CdpNode[]} */
  const marks = [];
  const visit = (/** @type {CdpNode} */ node) => {
    if (carriesMarker(node, marked)) marks.push(node);
    for (const child of [...(node.shadowRoots ?? []), ...(node.children ?? [])]) visit(child);
    if (node.contentDocument !== undefined) visit(node.contentDocument);
  };
  visit(root);
  return marks;
}

/**
 * Why the trusted click must not be sent, or null when it may: `aborted` when it would not land
 * on the element the synthetic click went to (trustedClickRefusal), `withheld` when the
 * synthetic click reached a page listener or that cannot be proven (click-listeners.js).
 * @typedef {{outcome: "aborted"|"withheld", reason: string}} TrustedClickVeto
 */

/**
 * Asks the browser, through the attached debugger, and answers why the click must not be sent,
 * or null.
 * @param {(method: string, params?: object) => Promise<any>} send a debugger command
 * @param {MarkedTarget} marked
 * @param {{x: number, y: number}} point CSS pixels in the top-level viewport
 * @returns {Promise<TrustedClickVeto | null>}
 */
export async function checkTrustedClick(send, marked, point) {
  const { frameTree } = await send("Page.getFrameTree", {});
  const metrics = await send("Page.getLayoutMetrics", {});
  const { root } = await send("DOM.getDocument", { depth: -1, pierce: true });
  // DOM.getNodeForLocation takes document coordinates (Chromium converts them with
  // DocumentToFrame), the point is in the viewport's: on a scrolled page the two differ by the
  // layout viewport's scroll position.
  const scrollX = metrics.cssLayoutViewport?.pageX ?? 0;
  const scrollY = metrics.cssLayoutViewport?.pageY ?? 0;
  let hit;
  try {
    hit = await send("DOM.getNodeForLocation", {
      x: Math.round(point.x + scrollX),
      y: Math.round(point.y + scrollY),
      includeUserAgentShadowDOM: false,
      ignorePointerEventsNone: false,
    });
  } catch (error) {
    return { outcome: "aborted", reason: `the browser found no element at the point (${thrownMessage(error)})` };
  }
  const layout = metrics.cssLayoutViewport;
  const refusal = trustedClickRefusal(marked, { root, hit, frame: frameTree.frame, layout });
  if (refusal !== null) return { outcome: "aborted", reason: refusal };
  // The refusal above found exactly one marked element, with the point on it or inside it.
  const [target] = markedNodesIn(root, marked);
  const finding = await findClickListeners(send, root, target);
  if ("unproven" in finding) {
    return { outcome: "withheld", reason: `no proof that the page did not hear the click: ${finding.unproven}` };
  }
  if (finding.heard.length > 0) return { outcome: "withheld", reason: describeHeard(finding.heard) };
  return null;
}
