// @ts-check
// The tree side of the content scripts (entry point, bundled by scripts/build-extension.mjs into
// content/accessibility-tree.js): `get_accessibility_tree` and `snapshot_document` of
// docs/protocol.md, section 3, and the helpers the action tools use, installed as
// `globalThis.allwrightAx` in the content script's world.
//
// It runs in the content script's isolated world and never in the page's: the registry, the
// gatherer and the core live on this world's `window`, which page scripts cannot see. The only
// trace it leaves in the page is the `aria-ref` attribute of "ai" snapshots (ARCHITECTURE.md,
// "Invariants"). Each job has its module: tree/facts.js (gathering), tree/generated-content.js,
// tree/registry.js (refs), tree/ai-refs.js, tree/core-loading.js, tree/printed-refs.js (what
// the agent read) and tree/snapshot-document.js (one document of the structured snapshot, shared
// with the WebDriver BiDi bundle, surface/bidi-snapshot.js).

import "../shared/messages.js";
import { gatherFacts } from "./tree/facts.js";
import {
  documentToken,
  installRegistry,
  lookup,
  refCounter,
  refNotFound,
  refNumberOf,
  registerNewRefs,
  resolveRef,
  suggest,
  sweep,
} from "./tree/registry.js";
import { describe, loadCore, runCore, splitOutput } from "./tree/core-loading.js";
import { factArguments, writeSnapshotDocument } from "./tree/snapshot-document.js";
import { printedRef, printedRefsOf, rememberRead, reprintRef } from "./tree/printed-refs.js";
import { childFrameIdsOf, isFrameElement } from "./dom/frame-elements.js";

const messages = globalThis.allwrightMessages;

/**
 * @typedef {{filter?: "all"|"visible"|"interactive", maxDepth?: number, maxChars?: number,
 *   ref_id?: string, page?: number, refFloor?: number, childFrames?: ChildFrame[]}} TreeArguments
 *   validated by the background (tool contract); an absent filter or maxDepth takes the core's
 *   default (direct callers: tests, benchmarks). `refFloor` is the highest ref number the tab
 *   handed out in any frame, and `childFrames` this frame's children (docs/protocol.md, "Frames").
 */

/**
 * The `get_accessibility_tree` result of docs/protocol.md. The arguments passed the background's
 * validation (extension/background/validate.js) and carry its defaults.
 * @param {TreeArguments} args
 */
async function generateAccessibilityTree(args) {
  return (await buildTree(args, { remember: true })).result;
}

/**
 * One tree read. `remember: false` is a read the agent never sees (an action checking its
 * target), which must not push the agent's own reads out of the kept ones (tree/printed-refs.js).
 * @param {TreeArguments} args
 * @param {{remember: boolean}} options
 * @returns {Promise<{result: Record<string, unknown>, printed: import("./tree/printed-refs.js").PrintedRef[]}>}
 */
async function buildTree(args, { remember }) {
  const { filter, maxDepth } = args;
  const refId = args.ref_id ?? undefined;

  const core = await loadCore();
  // From the sweep to the registration below, everything is synchronous: no other build can
  // interleave and hand out the same numbers.
  sweep();
  const anchor = refId === undefined ? null : lookup(refId);
  if (refId !== undefined && anchor === null) throw refNotFound(refId);
  const facts = gatherFacts({
    anchor,
    withRefs: true,
    withAriaRefs: false,
    measureBoxes: filter === "visible",
    readPointerEvents: false,
  });
  if (refId !== undefined && facts.anchorIndex < 0) throw refNotFound(refId);
  // New references are numbered above every number the tab handed out in any of its frames, so
  // that a ref_N names one element of the whole tab (docs/protocol.md, "Frames").
  const floor = Number.isSafeInteger(args.refFloor) && args.refFloor > 0 ? args.refFloor : 0;
  const counter = Math.max(refCounter(), floor);
  const output = runCore(() =>
    core.buildTextTree(
      ...factArguments(facts),
      filter,
      maxDepth,
      args.maxChars,
      refId === undefined ? undefined : facts.anchorIndex,
      refId,
      args.page ?? 1,
      facts.knownRefs,
      counter,
      document.URL,
      document.title,
      frameIdPairs(facts.nodeList, args.childFrames ?? []),
    ),
  );
  /** @type {{envelope: any, body: string}} */
  let split;
  try {
    split = splitOutput(output);
  } catch (error) {
    if (error?.code === "ref_not_found" && refId !== undefined) {
      throw messages.toolError(error.code, error.message, { hint: error.hint, suggestions: suggest(refId, 5) });
    }
    throw error;
  }
  const { envelope, body } = split;
  registerNewRefs(facts.nodeList, envelope.newRefs, counter);
  const printed = printedRefsOf(envelope);
  if (remember) rememberRead(printed);
  // For the background's bookkeeping of which frame and document printed which numbers; it
  // takes this field out before the agent sees the result.
  const refIssue = { document: documentToken(), first: counter + 1, last: refCounter() };
  return { result: { tree: body, ...envelope.result, refIssue }, printed };
}

/**
 * `[node index, frameId]` pairs for the core: the frame elements of the gathered nodes whose
 * child frame is known, so that their lines print `frameId=N` (docs/protocol.md, "Frames").
 * @param {Node[]} nodeList
 * @param {ChildFrame[]} childFrames
 * @returns {Float64Array} numbers, not 32-bit: Firefox's frame ids exceed 32 bits
 */
function frameIdPairs(nodeList, childFrames) {
  if (childFrames.length === 0) return new Float64Array(0);
  /** @type {number[]} */
  const indices = [];
  nodeList.forEach((node, index) => {
    if (isFrameElement(node)) indices.push(index);
  });
  const frameIds = childFrameIdsOf(
    indices.map((index) => /** @type {HTMLIFrameElement} */ (nodeList[index])),
    childFrames,
  );
  /** @type {number[]} */
  const pairs = [];
  frameIds.forEach((frameId, position) => {
    if (frameId !== undefined) pairs.push(indices[position], frameId);
  });
  return Float64Array.from(pairs);
}

/**
 * This frame's document of the structured snapshot (`snapshot_document` in docs/protocol.md).
 * @param {{format: "json"|"yaml", mode?: "ai", contextId: string, parentContextId?: string|null}} args
 * @returns {Promise<{document: string}>}
 */
async function snapshotDocument(args) {
  const core = await loadCore();
  return { document: writeSnapshotDocument(core, args, runCore) };
}

/**
 * An element's reference as the agent last read it (role, name, focusability), or null when no
 * read of this frame printed it. Synchronous: for rules that must not wait for a new read.
 * @param {Element} element
 * @returns {import("./tree/printed-refs.js").PrintedRef | null}
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
      await generateAccessibilityTree({ filter: "all", ref_id: `ref_${number}`, maxDepth: 1, maxChars: 4000 });
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
 * The role and name of an action's target, checked against what the agent read (docs/protocol.md,
 * "A ref means one element"): the element is read again, alone, and when the role or the name the
 * tree prints for it now differs from what the agent's last read of it printed, the action is
 * refused with `ref_changed`, which names both, rather than run on an element that is no longer
 * what the agent chose (a re-rendered row now holding another item, a button whose label turned
 * from "Save draft" to "Delete"). The refusal counts as a read of that one ref: the agent was
 * told the new role and name, so the same ref then acts on the element as it is now.
 * @param {Element} element
 * @returns {Promise<{role: string, name: string}>}
 */
async function describeUnchangedElement(element) {
  const number = refNumberOf(element);
  if (number === undefined || lookup(`ref_${number}`) !== element) return { role: "generic", name: "" };
  const ref = `ref_${number}`;
  const read = printedRef(number);
  if (read === undefined) return describeElement(element);
  /** @type {import("./tree/printed-refs.js").PrintedRef | undefined} */
  let now;
  try {
    const { printed } = await buildTree(
      { filter: "all", ref_id: ref, maxDepth: 1, maxChars: 4000 },
      { remember: false },
    );
    now = printed.find((entry) => entry.number === number);
  } catch {
    // The tree no longer shows the element (hidden since it was read): the action's own rules
    // decide (a hidden target is not actionable), with the name the agent read.
    now = undefined;
  }
  if (now === undefined || (now.role === read.role && now.name === read.name)) {
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

/**
 * Wraps an operation so that anything it throws reaches the caller as a tool error object.
 * @template A, R
 * @param {(args: A) => Promise<R>} operation
 * @returns {(args: A) => Promise<R>}
 */
const withToolErrors = (operation) => async (args) => {
  try {
    return await operation(args);
  } catch (error) {
    if (error !== null && typeof error === "object" && typeof error.code === "string") throw error;
    throw messages.toolError("script_failed", describe(error));
  }
};

// A second injection of the content scripts into the same world keeps the first registry.
if (globalThis.allwrightAx === undefined) {
  installRegistry();
  Object.defineProperty(globalThis, "allwrightAx", {
    value: Object.freeze({
      generateAccessibilityTree: withToolErrors(generateAccessibilityTree),
      snapshotDocument: withToolErrors(snapshotDocument),
      resolveRef,
      describeElement: withToolErrors(describeElement),
      describeUnchangedElement: withToolErrors(describeUnchangedElement),
      printedRefOf,
      documentToken,
    }),
    configurable: false,
    enumerable: false,
    writable: false,
  });
}
