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
import { changesOfRead } from "./changes-of-read.js";

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
  return changesOfRead(result, last.snapshotId);
}
