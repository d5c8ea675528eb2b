// @ts-check
// begin_external_input, finish_external_input and abort_external_input: the page half of a click
// or hover whose input is real pointer input sent from outside the page, by the MCP server over
// WebDriver BiDi, when allwright launched the browser (docs/protocol.md, "The browser bridge").
//
// The content script cannot hand the server an element, and BiDi cannot name the extension's
// refs, so begin marks the target with a short-lived random attribute, which the server's BiDi
// sandbox query finds; the server then hit-tests the element's centre and sends the pointer
// input there. Before that, begin starts the same observers as the synthetic action; finish
// removes the marker and reports the evidence exactly as the synthetic action would, and abort
// removes the marker when the input was never sent. The marker also removes itself after
// MARKER_LIFETIME_MS, so that it cannot outlive a server that went away.

import { isShown, viewportRect } from "./element.js";
import { classifyMutations, controlledBy, MARKER_ATTRIBUTE_PREFIX, startMutationWindow } from "./evidence.js";
import { beginExternalClick } from "./click.js";
import { HOVER_OBSERVATION_MS, popupKind, shownPopups } from "./hover.js";
import { scrollIntoViewIfNeeded } from "./interaction.js";
import { describeTarget, resolveTarget } from "./target.js";
import { nextTask, waitFor } from "./timing.js";

const messages = globalThis.allwrightMessages;

/** The attribute the server's BiDi query looks for (src/browser_bridge/input.rs). */
export const INPUT_MARKER_ATTRIBUTE = `${MARKER_ATTRIBUTE_PREFIX}input`;

/** How long a marker may stay on an element if neither finish nor abort comes. */
const MARKER_LIFETIME_MS = 15_000;

/**
 * The inputs begun and not finished, by token: how to finish or abort each, and its marker.
 * @type {Map<string, {finish: () => Promise<Record<string, unknown>>, abort: () => void,
 *   element: Element, marker: string, expiry: ReturnType<typeof setTimeout>}>}
 */
const pendingInputs = new Map();

function randomHex(byteCount) {
  const bytes = new Uint8Array(byteCount);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");
}

function removeMarker(element, marker) {
  if (element.getAttribute(INPUT_MARKER_ATTRIBUTE) === marker) element.removeAttribute(INPUT_MARKER_ATTRIBUTE);
}

/** Ends a pending input: its marker goes, and so does its entry. */
function settlePending(token) {
  const pending = pendingInputs.get(token);
  if (pending === undefined) return undefined;
  pendingInputs.delete(token);
  clearTimeout(pending.expiry);
  removeMarker(pending.element, pending.marker);
  return pending;
}

/**
 * begin_external_input({ref_id, kind: "click"|"hover"|"locate"}): `{token, marker, tag, role,
 * name, rect}`.
 * @param {{ref_id: string, kind: string}} args
 * @param {import("./target.js").TreeHelpers} ax
 */
export async function beginExternalInput(args, ax) {
  const begin = { hover: beginHover, locate: beginLocate }[args.kind] ?? beginExternalClick;
  const begun = await begin(args, ax);
  const token = `input_${randomHex(12)}`;
  const marker = randomHex(16);
  const expiry = setTimeout(() => {
    const pending = settlePending(token);
    pending?.abort();
  }, MARKER_LIFETIME_MS);
  pendingInputs.set(token, { finish: begun.finish, abort: begun.abort, element: begun.element, marker, expiry });
  begun.element.setAttribute(INPUT_MARKER_ATTRIBUTE, marker);
  return { token, marker, ...begun.description, rect: begun.rect };
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
 * abort_external_input({token}): removes the marker of an input that was never sent.
 * @param {{token: string}} args
 */
export async function abortExternalInput(args) {
  const pending = settlePending(args.token);
  pending?.abort();
  return { aborted: pending !== undefined };
}

/**
 * The first half of a real hover: the before-state and the mutation window of hover_element;
 * the second half watches for popups, states and mutations the same way.
 * @param {{ref_id: string}} args
 * @param {import("./target.js").TreeHelpers} ax
 */
async function beginHover(args, ax) {
  const element = resolveTarget(ax, args);
  const description = await describeTarget(ax, element);
  scrollIntoViewIfNeeded(element);
  const rect = viewportRect(element);
  const popupsBefore = shownPopups();
  const stateBefore = {
    "aria-expanded": element.getAttribute("aria-expanded"),
    "aria-describedby": element.getAttribute("aria-describedby"),
  };
  const mutationWindow = startMutationWindow(element);
  const finish = async () => {
    const hints = [];
    const observe = () => {
      const found = [];
      for (const popup of shownPopups()) {
        if (!popupsBefore.has(popup)) found.push(`popup_shown:${popupKind(popup)}`);
      }
      for (const [attribute, value] of Object.entries(stateBefore)) {
        if (element.getAttribute(attribute) !== value) found.push(`semantic_state:${attribute}`);
      }
      // A CSS :hover menu changes no attribute and no node: it shows by style alone, often as a
      // sibling of the hovered trigger (`.menu:hover > ul`), so the target's parent is checked
      // for content that became shown.
      if (revealedInside(scope, hiddenBefore)) found.push("revealed:hover");
      const { local } = classifyMutations(mutationWindow.collect(), element, controlledBy(element));
      if (local) found.push("local_mutation");
      return found.length > 0 ? [...new Set(found)] : null;
    };
    await nextTask();
    const evidence = (await waitFor(observe, HOVER_OBSERVATION_MS)) ?? [];
    const { elsewhere } = classifyMutations(mutationWindow.finish(), element, controlledBy(element));
    if (elsewhere > 0) hints.push(`global_mutation: ${elsewhere} mutations elsewhere`);
    return { ...description, rect, evidence, hints };
  };
  const scope = element.parentElement ?? element;
  const hiddenBefore = hiddenDescendants(scope);
  return { element, description, rect, finish, abort: () => mutationWindow.finish() };
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

/** The descendants of `scope` that are not shown now (at most 500 are looked at). */
function hiddenDescendants(scope) {
  return new Set([...scope.querySelectorAll("*")].slice(0, 500).filter((node) => !isShown(node)));
}

/** Whether one of the descendants that were hidden is shown now. */
function revealedInside(scope, hiddenBefore) {
  for (const node of hiddenBefore) if (node.isConnected && isShown(node) && scope.contains(node)) return true;
  return false;
}
