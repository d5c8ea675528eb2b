// @ts-check
// The changes an action made, carried in its result (docs/protocol/tools.md, "Action
// results"; issue 30, item 5): after the action, the tab's last tree read is read again `since`
// that snapshot, and the few changed lines travel with the action's result, so that an agent
// need not read again to see what its click did.
//
// The record of each tab's last read is kept in this worker's memory only, on purpose: it is a
// saving, never a fact an answer depends on. A service worker that restarted (Chrome may stop it
// between calls) has forgotten it, and the next action then carries no `changes` until the agent
// reads the tree again, exactly as before its first read; storing it would cost every read a
// write of storage.session.

import { readFrameTree } from "../frames/frame-tools.js";

/**
 * The most characters of changed lines an action result carries. An action's changes are
 * usually a few lines (a toggled state, an opened menu, a status message); past this the page
 * changed much, and the agent reads what it needs with `get_accessibility_tree({since})`: an
 * action result carries no long text it did not ask for (issue 30, item 4).
 */
export const CHANGES_MAX_CHARS = 1_200;

/**
 * Tab id -> the last tree read's snapshot of the tab and the arguments that decide its lines
 * (a `since` read must repeat them: content/tree/snapshots.js `readKeyOf`).
 * @type {Map<number, {frameId: number, snapshotId: string, filter?: unknown, maxDepth?: unknown, ref_id?: unknown}>}
 */
const lastSnapshots = new Map();

/**
 * Records a tree read's snapshot as its tab's last, called for every `get_accessibility_tree`
 * and `iframe_read` (frame-tools.js). A read that kept no snapshot (a cut page) keeps the one
 * before it, which its frame still holds.
 * @param {number} tabId
 * @param {number} frameId
 * @param {Record<string, unknown>} treeArguments the read's arguments
 * @param {Record<string, unknown>} result the read's result
 */
export function recordLastSnapshot(tabId, frameId, treeArguments, result) {
  if (typeof result.snapshotId !== "string") return;
  const { filter, maxDepth, ref_id } = treeArguments;
  lastSnapshots.set(tabId, { frameId, snapshotId: result.snapshotId, filter, maxDepth, ref_id });
}

/**
 * What an action changed in its tab since the tab's last tree read: `{snapshotId, text}` (the
 * changed lines, as a read since that snapshot prints them, with `removedRefs` and
 * `replacedRefs` when there are any, and `unchanged: true` when nothing changed), or
 * `{snapshotId, text, wholeTree: true}` (the whole tree, when the changed parts would have been
 * longer and the whole tree is short), or `{omitted: reason}`, or undefined when no tree was read
 * in the tab yet (nothing to compare with: the cheap case, no read at all).
 * @param {number | undefined} tabId
 * @param {{navigated: boolean}} action whether the action's frame loaded another document (a
 *   route change within the document is compared like any change)
 * @returns {Promise<Record<string, unknown> | undefined>}
 */
export async function changesOfAction(tabId, { navigated }) {
  if (tabId === undefined) return undefined;
  const last = lastSnapshots.get(tabId);
  if (last === undefined) return undefined;
  // A new document: every line would be new, and the agent reads the new page anyway.
  if (navigated) {
    lastSnapshots.delete(tabId);
    return { omitted: "navigated" };
  }
  /** @type {Record<string, unknown>} */
  let result;
  try {
    result = await readFrameTree(tabId, last.frameId, {
      ...(last.filter === undefined ? {} : { filter: last.filter }),
      ...(last.maxDepth === undefined ? {} : { maxDepth: last.maxDepth }),
      ...(last.ref_id === undefined || last.ref_id === null ? {} : { ref_id: last.ref_id }),
      since: last.snapshotId,
    });
  } catch {
    // The frame went away, or its anchor did: the action's own result still stands.
    lastSnapshots.delete(tabId);
    return { omitted: "read_failed" };
  }
  const snapshotId = typeof result.snapshotId === "string" ? result.snapshotId : null;
  if (snapshotId !== null) lastSnapshots.set(tabId, { ...last, snapshotId });
  const text = typeof result.tree === "string" ? result.tree : "";
  if (result.full !== false) {
    // The read printed the whole tree instead of the changed parts (they would have been
    // longer: a modal that hid the rest of the page, a new view). When that whole tree is itself
    // short and uncut, it is exactly what the agent needs next, and it saves a read.
    const uncut = result.truncated !== true && result.hasMore !== true;
    if (uncut && text.length > 0 && text.length <= CHANGES_MAX_CHARS) return { snapshotId, text, wholeTree: true };
    return { omitted: typeof result.fullReason === "string" ? result.fullReason : "full" };
  }
  /** @type {Record<string, unknown>} */
  const changes = { snapshotId, text };
  if (result.unchanged === true) changes.unchanged = true;
  if (Array.isArray(result.removedRefs) && result.removedRefs.length > 0) changes.removedRefs = result.removedRefs;
  if (typeof result.replacedRefs === "object" && result.replacedRefs !== null)
    changes.replacedRefs = result.replacedRefs;
  // The bound counts the refs' lists too: a long list of removed refs costs as much as lines.
  // The changes stay readable in full since the snapshot the agent had (a frame keeps its last
  // four): `since` names it.
  const refsLength = JSON.stringify([changes.removedRefs ?? [], changes.replacedRefs ?? {}]).length;
  if (text.length + refsLength > CHANGES_MAX_CHARS) {
    return { omitted: "longer_than_1200_characters", since: last.snapshotId };
  }
  return changes;
}
