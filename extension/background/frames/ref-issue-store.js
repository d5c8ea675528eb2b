// @ts-check
// Where each tab's ref record (ref-issues.js) lives: storage.session, so that a restarted service
// worker (or a suspended Firefox event page) still knows the floor; numbering again from an older
// floor would hand out numbers that other frames still hold (docs/protocol/frames.md, "Frames"). Also
// the queue that keeps two tree reads from numbering from the same floor.
//
// The floor is one for the whole browser, not one per tab (docs/protocol/action-safety.md, "A ref means one
// element"): with a floor per tab, `ref_5` named an element in every tab, and a ref read in one
// tab and used with another tab's id acted on whatever that tab had numbered 5. With one floor a
// number names one element of the browser, and a ref used in the wrong tab is refused by name.

import { api } from "../platform.js";
import { emptyRecord, isRecord, issueOf } from "./ref-issues.js";

/** @typedef {import("./ref-issues.js").RefRecord} RefRecord */

const KEY_PREFIX = "refIssues:";
const storageKey = (/** @type {number} */ tabId) => `${KEY_PREFIX}${tabId}`;
/** The browser-wide floor: the highest number any tab's frames handed out. */
const FLOOR_KEY = "refFloor";

/**
 * The tab's record; an empty one when none is stored. Every record this worker saved is also
 * kept in memory, and that copy wins: it is never older than the stored one, and it is the only
 * one when storage.session was full (a read must not fail because the quota is used up). After a
 * restart of the worker, storage.session's copy is all there is.
 * @param {number} tabId
 * @returns {Promise<RefRecord>}
 */
export async function loadRecord(tabId) {
  const session = api.storage?.session;
  const remembered = memoryRecords.get(tabId);
  /** @type {Record<string, unknown>} what storage.session holds, as any extension page may have written it */
  const stored = session === undefined ? {} : await session.get([storageKey(tabId), FLOOR_KEY]).catch(() => ({}));
  const storedRecord = stored[storageKey(tabId)];
  const record = remembered ?? (isRecord(storedRecord) ? storedRecord : emptyRecord());
  const floorValue = stored[FLOOR_KEY];
  const storedFloor = typeof floorValue === "number" && Number.isSafeInteger(floorValue) ? floorValue : 0;
  return { ...record, floor: Math.max(record.floor, storedFloor, memoryFloor) };
}

/**
 * @param {number} tabId
 * @param {RefRecord} record
 */
export async function saveRecord(tabId, record) {
  memoryRecords.set(tabId, record);
  memoryFloor = Math.max(memoryFloor, record.floor);
  const session = api.storage?.session;
  if (session === undefined) return;
  const stored = /** @type {Record<string, unknown>} */ (await session.get(FLOOR_KEY).catch(() => ({})))[FLOOR_KEY];
  const floor = Math.max(typeof stored === "number" && Number.isSafeInteger(stored) ? stored : 0, memoryFloor);
  // A full storage.session keeps the record in this worker's memory only (loadRecord reads it
  // there); a worker that restarts then knows an older floor, as it would without the write.
  await session.set({ [storageKey(tabId)]: record, [FLOOR_KEY]: floor }).catch((error) => {
    console.warn(`allwright: could not keep tab ${tabId}'s ref record: ${error.message}`);
  });
}

/**
 * The other tab whose record holds `ref`, with the range that holds it, or null.
 * @param {number} tabId the tab the call named
 * @param {string} ref
 * @returns {Promise<{tabId: number, issue: import("./ref-issues.js").RefIssue} | null>}
 */
export async function otherTabOf(tabId, ref) {
  const session = api.storage?.session;
  /** @type {Array<[number, unknown]>} */
  const stored =
    session === undefined
      ? []
      : Object.entries(await session.get(null).catch(() => ({})))
          .filter(([key]) => key.startsWith(KEY_PREFIX))
          .map(([key, value]) => [Number(key.slice(KEY_PREFIX.length)), value]);
  // This worker's copies win over the stored ones (loadRecord).
  const records = [...new Map([...stored, ...memoryRecords.entries()]).entries()];
  for (const [otherTabId, record] of records) {
    if (otherTabId === tabId || !isRecord(record)) continue;
    const issue = issueOf(record, ref);
    if (issue !== null) return { tabId: otherTabId, issue };
  }
  return null;
}

/**
 * Forgets a closed tab's record.
 * @param {number} tabId
 */
export async function forgetTab(tabId) {
  memoryRecords.delete(tabId);
  await api.storage?.session?.remove(storageKey(tabId));
}

/** @type {Map<number, RefRecord>} */
const memoryRecords = new Map();
let memoryFloor = 0;

/** The last tree read queued, in any tab (the floor is the browser's). */
/** @type {Promise<unknown>} */
let lastReadInFlight = Promise.resolve();

/**
 * Runs `read` after the previous tree read has finished, so that two reads never number from the
 * same floor. One queue for every tab, since the floor is one (above): reads of two tabs take
 * turns, which an agent working one tab at a time never notices.
 * @template T
 * @param {number} _tabId
 * @param {() => Promise<T>} read
 * @returns {Promise<T>}
 */
export function oneReadAtATime(_tabId, read) {
  const next = lastReadInFlight.then(read, read);
  lastReadInFlight = next.then(
    () => undefined,
    () => undefined,
  );
  return next;
}
