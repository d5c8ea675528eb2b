// @ts-check
// What an action says of its target, from what the agent read (docs/protocol/action-safety.md, "A
// ref means one element"): the reference as the last reads printed it, its role and name, and
// the refusal `ref_changed` when a fresh read of it alone prints another role or name. Shared by
// the content script (content/accessibility-tree.js) and the WebDriver BiDi sandbox bundle
// (surface/bidi-snapshot.js), which give it their own tree read, so that both refuse and
// describe a target alike.

import "../../shared/messages.js";
import { lookup, refNumberOf, suggest } from "./registry.js";
import { printedRef, reprintRef } from "./printed-refs.js";

const messages = globalThis.allwrightMessages;

/**
 * A read of one reference (`{filter: "all", ref_id, maxDepth: 1, maxChars: 4000}`): `remember`
 * says whether its printed refs count as what the agent read.
 * @typedef {(args: {filter: "all", ref_id: string, maxDepth: number, maxChars: number},
 *   options: {remember: boolean}) => Promise<{printed: import("./printed-refs.js").PrintedRef[]}>} OneRefRead
 */

/**
 * The describing helpers of a world whose reads `readOneRef` makes.
 * @param {OneRefRead} readOneRef
 */
export function refDescriptions(readOneRef) {
  /**
   * An element's reference as the agent last read it (role, name, focusability), or null when no
   * read of this frame printed it. Synchronous: for rules that must not wait for a new read.
   * @param {Element} element
   * @returns {import("./printed-refs.js").PrintedRef | null}
   */
  function printedRefOf(element) {
    const number = refNumberOf(element);
    if (number === undefined || lookup(`ref_${number}`) !== element) return null;
    return printedRef(number) ?? null;
  }

  /**
   * The role and name the tree printed for an element that has a reference, so that an action
   * reports its target exactly as the agent saw it: from the last reads of this frame, or, for a
   * reference none of them shows, from a one-level read anchored on it. An element the tree does
   * not show (hidden since it was read) is reported as "generic" with no name.
   * @param {Element} element
   * @returns {Promise<{role: string, name: string}>}
   */
  async function describeElement(element) {
    const number = refNumberOf(element);
    if (number === undefined || lookup(`ref_${number}`) !== element) return { role: "generic", name: "" };
    let printed = printedRef(number);
    if (printed === undefined) {
      try {
        await readOneRef({ filter: "all", ref_id: `ref_${number}`, maxDepth: 1, maxChars: 4000 }, { remember: true });
      } catch {
        // The tree no longer shows the element (hidden since it was read): the action still
        // runs on it, and its report just has no role or name to give.
        return { role: "generic", name: "" };
      }
      printed = printedRef(number);
    }
    return printed === undefined ? { role: "generic", name: "" } : { role: printed.role, name: printed.name };
  }

  /**
   * The role and name of an action's target, checked against what the agent read: the element
   * is read again, alone, and when the role or the name the tree prints for it now differs from
   * what the agent's last read of it printed, the action is refused with `ref_changed`, which
   * names both, rather than run on an element that is no longer what the agent chose (a
   * re-rendered row now holding another item, a button whose label turned from "Save draft" to
   * "Delete"). The refusal counts as a read of that one ref: the agent was told the new role and
   * name, so the same ref then acts on the element as it is now.
   * @param {Element} element
   * @returns {Promise<{role: string, name: string}>}
   */
  async function describeUnchangedElement(element) {
    const number = refNumberOf(element);
    if (number === undefined || lookup(`ref_${number}`) !== element) return { role: "generic", name: "" };
    const ref = `ref_${number}`;
    const read = printedRef(number);
    if (read === undefined) return describeElement(element);
    /** @type {import("./printed-refs.js").PrintedRef | undefined} */
    let now;
    try {
      const { printed } = await readOneRef(
        { filter: "all", ref_id: ref, maxDepth: 1, maxChars: 4000 },
        { remember: false },
      );
      now = printed.find((entry) => entry.number === number);
    } catch {
      // The tree no longer shows the element (hidden since it was read): the action's own rules
      // decide (a hidden target is not actionable), with the name the agent read.
      now = undefined;
    }
    // A whole read leaves out the name of a container whose first child prints it
    // (docs/protocol/reading.md, "What the text tree leaves out"), where this read, whose first
    // line the element is, prints it: a name that only appeared that way is not a change.
    const nameOnlyLeftOut = read.name === "" && now !== undefined && now.role === read.role;
    if (now === undefined || nameOnlyLeftOut || (now.role === read.role && now.name === read.name)) {
      return { role: read.role, name: read.name };
    }
    reprintRef(now);
    throw messages.toolError(
      "ref_changed",
      `${ref} changed since it was read: it was ${read.role} ${JSON.stringify(read.name)}, it is now ${now.role} ${JSON.stringify(now.name)}. Nothing was done.`,
      {
        hint: `If ${now.role} ${JSON.stringify(now.name)} is what you want, call the tool again with ${ref}; otherwise read the tree again and pick the element you meant.`,
        suggestions: suggest(ref, 5),
        changed: { ref, was: { role: read.role, name: read.name }, now: { role: now.role, name: now.name } },
      },
    );
  }

  return { printedRefOf, describeElement, describeUnchangedElement };
}
