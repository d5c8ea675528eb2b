// @ts-check
// Which frames are busy with a tree read of ours (docs/protocol.md, "Pages blocked by a prompt"):
// a content script announces each read before its synchronous part (messages.readStartedNotice),
// and a frame that then stays silent to the liveness probes is reading, not held by a prompt.
// Kept in memory only: a restarted background has no calls waiting on an old read.

/** `${tabId}:${frameId}` -> when the frame last announced a read (Date.now()). */
const readStarts = new Map();

/** At most this many frames are remembered; the oldest announcements are forgotten first. */
const REMEMBERED_FRAMES = 256;

/**
 * @param {number} tabId
 * @param {number} frameId
 */
export function noteReadStarted(tabId, frameId) {
  const key = `${tabId}:${frameId}`;
  readStarts.delete(key);
  readStarts.set(key, Date.now());
  if (readStarts.size > REMEMBERED_FRAMES) {
    const oldest = readStarts.keys().next().value;
    if (oldest !== undefined) readStarts.delete(oldest);
  }
}

/**
 * Whether the frame announced a read at or after `since` (a Date.now() value): the read a call
 * asked for, not one of an earlier call.
 * @param {number} tabId
 * @param {number} frameId
 * @param {number} since
 */
export function readStartedSince(tabId, frameId, since) {
  const started = readStarts.get(`${tabId}:${frameId}`);
  return started !== undefined && started >= since;
}
