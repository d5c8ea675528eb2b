// @ts-check
// The target of an action: the live element of its ref (through the registry, which refuses a
// stale ref rather than guess; ARCHITECTURE.md, "Invariants") and what the agent read of it. Role
// and focus rules use the core's answer, printed with the ref (the tree's `refs`; docs/protocol/tools.md,
// "Content-side action tools"), and fall back to the element's own attributes only for an element
// the agent never read (a key pressed on whatever holds focus).

import { explicitRole } from "./element.js";
import { focusQuietly } from "./interaction.js";

/**
 * The tree side's helpers (content/accessibility-tree.js), passed in by the router.
 * @typedef {{resolveRef: (ref: string) => Element,
 *   describeElement: (element: Element) => Promise<{role: string, name: string}>,
 *   describeUnchangedElement: (element: Element) => Promise<{role: string, name: string}>,
 *   printedRefOf: (element: Element) => (import("../tree/printed-refs.js").PrintedRef | null)}} TreeHelpers
 */

/**
 * The live element of `args.ref_id`. A stale reference makes `resolveRef` throw the structured
 * ref_not_found error, with its suggestions, which propagates unchanged.
 * @param {TreeHelpers} ax
 * @param {{ref_id?: string}} args validated by the background
 * @returns {Element}
 */
export function resolveTarget(ax, args) {
  return ax.resolveRef(/** @type {string} */ (args.ref_id));
}

/**
 * The target as the tree names it. Taken before acting: the action may remove the element.
 * @param {TreeHelpers} ax
 * @param {Element} element
 * @returns {Promise<{tag: string, role: string, name: string}>}
 */
export async function describeTarget(ax, element) {
  const { role, name } = await ax.describeElement(element);
  return { tag: element.localName.toLowerCase(), role, name };
}

/**
 * The target of an action the agent named by its ref, as the tree names it, refused with
 * `ref_changed` when its role or name differs from what the agent read (docs/protocol/action-safety.md, "A ref
 * means one element"). Taken before acting, like describeTarget.
 * @param {TreeHelpers} ax
 * @param {Element} element
 * @returns {Promise<{tag: string, role: string, name: string}>}
 */
export async function describeTargetAsRead(ax, element) {
  const { role, name } = await ax.describeUnchangedElement(element);
  return { tag: element.localName.toLowerCase(), role, name };
}

/**
 * The element's role as the agent read it (the core's computed role), else its explicit role.
 * @param {TreeHelpers} ax
 * @param {Element} element
 */
export function printedRole(ax, element) {
  return ax.printedRefOf(element)?.role ?? explicitRole(element);
}

/**
 * Focuses the target as a person's click or key would, unless the core said, when the agent read
 * it, that it cannot take focus (HTML, "focusable area"); `focus()` would do nothing then.
 * @param {TreeHelpers} ax
 * @param {Element} element
 */
export function focusTarget(ax, element) {
  if (ax.printedRefOf(element)?.focusable === false) return;
  focusQuietly(element);
}
