// @ts-check
// hover_element, the page half of hover: the pointer's way onto the element (UI Events, "Mouse
// Event Order"), and the popups, states and mutations that follow.

import { centreOf, explicitRole, isShown, viewportRect } from "./element.js";
import { classifyMutations, controlledBy, startMutationWindow } from "./evidence.js";
import { scrollIntoViewIfNeeded } from "./interaction.js";
import { describeTarget, resolveTarget } from "./target.js";
import { nextTask, waitFor } from "./timing.js";

/** Roles of the popups that a hover may reveal (tooltips, menus, lists, dialogs). */
const POPUP_SELECTOR =
  '[role~="tooltip"], [role~="menu"], [role~="listbox"], [role~="dialog"], ' +
  '[role~="alertdialog"], dialog, [popover]';

/** hover_element: how long a tooltip or menu may take to show. */
const HOVER_OBSERVATION_MS = 500;

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

export async function hoverElement(args, ax) {
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
