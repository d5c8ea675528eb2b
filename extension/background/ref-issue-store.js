// @ts-check
// Where each tab's ref record (ref-issues.js) lives: storage.session, so that a restarted service
// worker (or a suspended Firefox event page) still knows the floor; numbering again from an older
// floor would hand out numbers that other frames still hold (docs/protocol.md, "Frames"). Also
// the per-tab queue that keeps two tree reads from numbering from the same floor.

import { api } from "./platform.js";
import { emptyRecord, isRecord } from "./ref-issues.js";

/** @typedef {import("./ref-issues.js").RefRecord} RefRecord */

const storageKey = (tabId) => `refIssues:${tabId}`;

/**
 * The tab's record; an empty one when none is stored. Without storage.session (never in the
 * supported browsers) the record lives in memory only.
 * @param {number} tabId
 * @returns {Promise<RefRecord>}
 */
export async function loadRecord(tabId) {
  const session = api.storage?.session;
  if (session === undefined) return memoryRecords.get(tabId) ?? emptyRecord();
  const stored = (await session.get(storageKey(tabId)))[storageKey(tabId)];
  return isRecord(stored) ? stored : emptyRecord();
}

/**
 * @param {number} tabId
 * @param {RefRecord} record
 */
export async function saveRecord(tabId, record) {
  const session = api.storage?.session;
  if (session === undefined) {
    memoryRecords.set(tabId, record);
    return;
  }
  await session.set({ [storageKey(tabId)]: record });
}

/** Forgets a closed tab's record. */
export async function forgetTab(tabId) {
  memoryRecords.delete(tabId);
  await api.storage?.session?.remove(storageKey(tabId));
}

/** @type {Map<number, RefRecord>} */
const memoryRecords = new Map();

/** @type {Map<number, Promise<unknown>>} */
const readsInFlight = new Map();

/**
 * Runs `read` after the tab's previous tree read has finished, so that two reads never number
 * from the same floor.
 * @template T
 * @param {number} tabId
 * @param {() => Promise<T>} read
 * @returns {Promise<T>}
 */
export function oneReadAtATime(tabId, read) {
  const previous = readsInFlight.get(tabId) ?? Promise.resolve();
  const next = previous.then(read, read);
  const settled = next.then(
    () => undefined,
    () => undefined,
  );
  readsInFlight.set(tabId, settled);
  settled.then(() => {
    if (readsInFlight.get(tabId) === settled) readsInFlight.delete(tabId);
  });
  return next;
}
