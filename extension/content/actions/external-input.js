// @ts-check
// begin_external_input, finish_external_input and abort_external_input: the page half of a click,
// hover or key press whose input is real input sent from outside the page, by the MCP server over
// WebDriver BiDi, when allwright launched the browser (docs/protocol/browser-bridge.md, "The browser bridge").
//
// The content script cannot hand the server an element, and BiDi cannot name the extension's
// refs, so begin marks the target with a short-lived random attribute, which the server's BiDi
// sandbox query finds; the server then hit-tests the element's centre and sends the pointer
// input there. Before that, begin starts the same observers as the synthetic action; finish
// removes the marker and reports the evidence exactly as the synthetic action would, and abort
// removes the marker when the input was never sent. The marker also removes itself after
// MARKER_LIFETIME_MS, so that it cannot outlive a server that went away.

import { viewportRect } from "./element.js";
import { DROP_MARKER_ATTRIBUTE, INPUT_MARKER_ATTRIBUTE } from "../../shared/generated/marker-attributes.js";
import { beginExternalClick } from "./click.js";
import { beginDragObservation } from "./drag.js";
import { beginHoverObservation } from "./hover.js";
import { beginExternalKeyPress } from "./keyboard.js";
import { beginExternalUpload } from "./upload.js";
import { scrollIntoViewIfNeeded } from "./interaction.js";
import { describeTarget, resolveTarget } from "./target.js";

const messages = globalThis.allwrightMessages;

/** How long a marker may stay on an element if neither finish nor abort comes. */
const MARKER_LIFETIME_MS = 15_000;

/**
 * The inputs begun and not finished, by token: how to finish or abort each, and its marker.
 * @type {Map<string, {finish: () => Promise<Record<string, unknown>>, abort: () => void,
 *   continueAfterRealPress?: () => Promise<{html5: boolean}>,
 *   element: Element, dropTarget: Element | null, marker: string, expiry: ReturnType<typeof setTimeout>}>}
 */
const pendingInputs = new Map();

/**
 * What each kind's begin function answers: the element marked for the server, what to tell it,
 * how to finish or abort; a drag adds its drop target, whether the press starts an HTML5 drag,
 * and how to go on after a press the server sent alone.
 * @typedef {{element: Element, rect: {x: number, y: number, width: number, height: number},
 *   description: Record<string, unknown>, finish: () => Promise<Record<string, unknown>>, abort: () => void,
 *   target?: Element|null, html5Source?: boolean, continueAfterRealPress?: () => Promise<{html5: boolean}>}} BegunExternalInput
 */

/** @param {number} byteCount */
function randomHex(byteCount) {
  const bytes = new Uint8Array(byteCount);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");
}

/**
 * @param {Element} element
 * @param {string} marker
 */
function removeMarker(element, marker) {
  if (element.getAttribute(INPUT_MARKER_ATTRIBUTE) === marker) element.removeAttribute(INPUT_MARKER_ATTRIBUTE);
}

/**
 * Ends a pending input: its marker goes, and so does its entry.
 * @param {string} token
 */
function settlePending(token) {
  const pending = pendingInputs.get(token);
  if (pending === undefined) return undefined;
  pendingInputs.delete(token);
  clearTimeout(pending.expiry);
  removeMarker(pending.element, pending.marker);
  if (pending.dropTarget?.getAttribute(DROP_MARKER_ATTRIBUTE) === pending.marker) {
    pending.dropTarget.removeAttribute(DROP_MARKER_ATTRIBUTE);
  }
  return pending;
}

/**
 * begin_external_input({ref_id, kind: "click"|"hover"|"locate"}, {ref_id?, kind: "key", key,
 * modifiers} or {kind: "drag", from_ref, to_ref?, by?}): `{token, marker, tag, role, name,
 * rect}`. A key press marks the element that holds focus (the target, focused, when ref_id names
 * one), which the server does not look for: key input goes to the focused element. A drag marks
 * its source and its drop target (DROP_MARKER_ATTRIBUTE) and answers `html5Source` too: whether
 * the press would start an HTML5 drag, which the server needs before it sends anything.
 * @param {{ref_id?: string, kind: string, key?: string, modifiers?: string[], from_ref?: string, to_ref?: string,
 *   by?: {x: number, y: number}}} args
 * @param {import("./target.js").TreeHelpers} ax
 */
export async function beginExternalInput(args, ax) {
  // Each kind's begin function reads the arguments of its kind (the background's
  // beginExternalInput sends them, actions.js), so the chosen one takes them as they came.
  const begin = /** @type {(args: any, ax: import("./target.js").TreeHelpers) => Promise<BegunExternalInput>} */ (
    /** @type {Record<string, unknown>} */ ({
      hover: beginHover,
      locate: beginLocate,
      key: beginExternalKeyPress,
      upload: beginExternalUpload,
      drag: beginDragObservation,
    })[args.kind] ?? beginExternalClick
  );
  const begun = await begin(args, ax);
  const token = `input_${randomHex(12)}`;
  const marker = randomHex(16);
  const expiry = setTimeout(() => {
    const pending = settlePending(token);
    pending?.abort();
  }, MARKER_LIFETIME_MS);
  const dropTarget = begun.target ?? null;
  pendingInputs.set(token, {
    finish: begun.finish,
    abort: begun.abort,
    continueAfterRealPress: begun.continueAfterRealPress,
    element: begun.element,
    dropTarget,
    marker,
    expiry,
  });
  begun.element.setAttribute(INPUT_MARKER_ATTRIBUTE, marker);
  dropTarget?.setAttribute(DROP_MARKER_ATTRIBUTE, marker);
  /** @type {Record<string, unknown>} */
  const answer = { token, marker, ...begun.description, rect: begun.rect };
  if (args.kind === "drag") answer.html5Source = begun.html5Source;
  return answer;
}

/**
 * finish_external_input({token}): the report of the action, as its synthetic version gives it.
 * @param {{token: string}} args
 */
export async function finishExternalInput(args) {
  const pending = settlePending(args.token);
  if (pending === undefined) {
    throw messages.toolError("invalid_arguments", `no external input is pending under ${args.token}`, {
      hint: `An external input is remembered for ${MARKER_LIFETIME_MS / 1000} seconds by the frame that began it.`,
    });
  }
  return pending.finish();
}

/**
 * continue_external_drag({token}): a drag whose press the server sent alone (Firefox): `{html5}`,
 * whether the press made an HTML5 drag source, whose drag and drop events are then sent here
 * (drag.js, continueAfterRealPress). The input stays pending: finish_external_input follows.
 * @param {{token: string}} args
 */
export async function continueExternalDrag(args) {
  const pending = pendingInputs.get(args.token);
  if (pending?.continueAfterRealPress === undefined) {
    throw messages.toolError("invalid_arguments", `no drag is pending under ${args.token}`);
  }
  return pending.continueAfterRealPress();
}

/**
 * abort_external_input({token}): removes the marker of an input that was never sent.
 * @param {{token: string}} args
 */
export async function abortExternalInput(args) {
  const pending = settlePending(args.token);
  pending?.abort();
  return { aborted: pending !== undefined };
}

/**
 * The first half of a real hover: hover_element's observation, with content that CSS :hover
 * reveals counted too, since the real pointer applies it.
 * @param {{ref_id: string}} args
 * @param {import("./target.js").TreeHelpers} ax
 */
function beginHover(args, ax) {
  return beginHoverObservation(args, ax, { watchRevealed: true });
}

/**
 * The first half of locating an element for the server (an element screenshot over BiDi): the
 * target scrolled into view and marked, nothing observed. Its "finish" reports what it marked;
 * the server aborts it once the picture is taken, which removes the marker.
 * @param {{ref_id: string}} args
 * @param {import("./target.js").TreeHelpers} ax
 */
async function beginLocate(args, ax) {
  const element = resolveTarget(ax, args);
  const description = await describeTarget(ax, element);
  scrollIntoViewIfNeeded(element);
  const rect = viewportRect(element);
  return { element, description, rect, finish: async () => ({ ...description, rect }), abort: () => {} };
}
