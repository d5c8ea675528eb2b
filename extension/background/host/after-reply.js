// @ts-check
// Work that waits until the agent's reply has left (native.js posts it): the output of a read
// handed to the background goes back to its frame only then (tree-hand-off.js), so that its
// serialisation and the frame's bookkeeping, on a machine whose cores the browser, the native
// host and the agent's client share, do not delay the reply. A call that no native host asked
// for (none in the extension today) still runs its queued work, LONGEST_WAIT_MS later at most.

/** The longest queued work waits for a reply. */
const LONGEST_WAIT_MS = 100;

/** @type {Array<() => void>} */
let queued = [];
/** @type {ReturnType<typeof setTimeout> | null} */
let fallback = null;

/**
 * Runs `task` once the next reply to the native host has been posted.
 * @param {() => void} task
 */
export function afterTheReply(task) {
  queued.push(task);
  fallback ??= setTimeout(runQueued, LONGEST_WAIT_MS);
}

/** A reply to the native host was posted (or could not be): the queued work runs now. */
export function replySent() {
  runQueued();
}

function runQueued() {
  if (fallback !== null) clearTimeout(fallback);
  fallback = null;
  const tasks = queued;
  queued = [];
  for (const task of tasks) task();
}
