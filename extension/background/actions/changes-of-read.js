// @ts-check
// The changes an action made, from a read of its tab since the tab's last tree read
// (docs/protocol/tools.md, "Action results"): the few changed lines that travel with the
// action's result, the whole tree when that is shorter, or why neither does. Pure, so that the
// background (action-changes.js) and BiDi-only mode (surface/bidi-snapshot.js) tell the agent
// the same.

/**
 * The most characters of changed lines an action result carries. An action's changes are
 * usually a few lines (a toggled state, an opened menu, a status message); past this the page
 * changed much, and the agent reads what it needs with `get_accessibility_tree({since})`: an
 * action result carries no long text it did not ask for (issue 30, item 4).
 */
export const CHANGES_MAX_CHARS = 1_200;

/**
 * The `changes` of an action's result from the read since the last snapshot: `{snapshotId, text}`
 * (with `removedRefs`, `replacedRefs` and `unchanged: true` when there are), `{snapshotId, text,
 * wholeTree: true}`, or `{omitted: reason}`.
 * @param {Record<string, unknown>} result the read's result
 * @param {string} lastSnapshotId the snapshot it was read since
 * @returns {Record<string, unknown>}
 */
export function changesOfRead(result, lastSnapshotId) {
  const snapshotId = typeof result.snapshotId === "string" ? result.snapshotId : null;
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
    return { omitted: "longer_than_1200_characters", since: lastSnapshotId };
  }
  return changes;
}
