// @ts-check
// Which frames are busy with a tree read of ours (docs/protocol/browser-bridge.md, "Pages blocked by a prompt"):
// a content script announces each read before its synchronous part (messages.readStartedNotice)
// and its end after it (readFinishedNotice); a frame that stays silent to the liveness probes
// between the two is reading, not held by a prompt. After the end, silence is a prompt's again:
// Chromium holds back the answer of a read that finished while a prompt was open.
// Kept in memory only: a restarted background has no calls waiting on an old read.

/** `${tabId}:${frameId}` -> when the frame last announced a read (Date.now()), while it reads. */
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
 * @param {number} tabId
 * @param {number} frameId
 */
export function noteReadFinished(tabId, frameId) {
  readStarts.delete(`${tabId}:${frameId}`);
}

/**
 * Whether the frame announced a read at or after `since`, and has not finished it (a Date.now() value): the read a call
 * asked for, not one of an earlier call.
 * @param {number} tabId
 * @param {number} frameId
 * @param {number} since
 */
export function readStartedSince(tabId, frameId, since) {
  const started = readStarts.get(`${tabId}:${frameId}`);
  return started !== undefined && started >= since;
}
