// @ts-check
// Where thread-read coverage (read-coverage.js) keeps its records: `storage.session` in Chrome,
// so that a service worker the browser stopped between two pages still knows the pages read,
// and a map in memory where `storage.session` is not available (Firefox without the "storage"
// permission: its background is an event page). Records are forgotten when their frame
// navigates (a new document, or a same-document history change such as a webmail opening
// another thread) and when their tab closes.

import { api } from "../platform.js";
import {
  conversationRootFor,
  describeCoverage,
  framePrefix,
  nextPageRecord,
  recordKey,
  rootKey,
  tabPrefix,
  treeReadOf,
} from "./read-coverage.js";

/** A storage area with the three calls used here, backed by a Map. */
function memoryArea() {
  const values = new Map();
  return {
    /** @param {string|null} key */
    async get(key) {
      if (key === null) return Object.fromEntries(values);
      return values.has(key) ? { [key]: structuredClone(values.get(key)) } : {};
    },
    /** @param {Record<string, unknown>} entries */
    async set(entries) {
      for (const [key, value] of Object.entries(entries)) values.set(key, structuredClone(value));
    },
    /** @param {string|string[]} keys */
    async remove(keys) {
      for (const key of [keys].flat()) values.delete(key);
    },
  };
}

const area = api.storage?.session ?? memoryArea();

// Reads and forgets arrive concurrently; running them one after another keeps each
// read-modify-write whole (the same queue as csp-records.js).
/** @type {Promise<unknown>} */
let queue = Promise.resolve();
/**
 * @template T
 * @param {() => Promise<T>} task
 * @returns {Promise<T>}
 */
function serialized(task) {
  const run = queue.then(task);
  queue = run.then(
    () => undefined,
    (error) => console.error("allwright: read coverage update failed", error),
  );
  return run;
}

/**
 * Stores `entries`; when storage.session refuses (it is full), removes them instead, so that a
 * later read finds no record rather than an outdated one, and the read itself goes on: coverage
 * is a help for the agent, never a reason for a read to fail.
 * @param {Record<string, unknown>} entries
 */
async function keep(entries) {
  try {
    await area.set(entries);
  } catch (error) {
    console.warn(`allwright: could not keep read coverage: ${error instanceof Error ? error.message : error}`);
    await area.remove(Object.keys(entries)).catch(() => {});
  }
}

/**
 * Records one `get_accessibility_tree` read and returns the result the agent sees: with
 * `coverage`, without the internal `contentFingerprint`, and with a `continuationArgs` that
 * also names the tab and the child frame the call named, so that following it reads the same
 * document.
 * @param {number} tabId the resolved tab
 * @param {number} frameId
 * @param {{tabId?: number, frameId?: number, filter?: string, maxDepth?: number, maxChars?: number,
 *   ref_id?: string, page?: number}} args the validated arguments
 * @param {any} result the content script's result
 */
export function withReadCoverage(tabId, frameId, args, result) {
  return serialized(async () => {
    const read = treeReadOf(args, result);
    const recordName = recordKey(tabId, frameId, read);
    const rootName = rootKey(tabId, frameId);
    const stored = { ...(await area.get(recordName)), ...(await area.get(rootName)) };
    // What keep() stored under these keys, or nothing.
    const { record, outcome } = nextPageRecord(
      /** @type {import("./read-coverage.js").PageRecord|undefined} */ (stored[recordName]),
      read,
    );
    const conversationRoot = conversationRootFor(/** @type {string|undefined} */ (stored[rootName]), read);
    if (record === undefined) await area.remove(recordName);
    else await keep({ [recordName]: record });
    if (read.anchor === null) await keep({ [rootName]: conversationRoot });
    const visible = { ...result };
    delete visible.contentFingerprint;
    if (visible.continuationArgs !== undefined) {
      visible.continuationArgs = {
        ...visible.continuationArgs,
        ...(args.tabId === undefined ? {} : { tabId: args.tabId }),
        // Frame 0 is the default: leaving it out keeps the arguments as short as the agent's.
        ...(args.frameId === undefined || args.frameId === 0 ? {} : { frameId: args.frameId }),
      };
    }
    return { ...visible, coverage: describeCoverage(record, outcome, read, conversationRoot) };
  });
}

/**
 * Forgets the records of a frame (its document changed) or, without a frame, of a whole tab
 * (it closed, or its top document changed, which replaces every frame).
 * @param {number} tabId
 * @param {number} [frameId]
 */
export function forgetReadCoverage(tabId, frameId) {
  return serialized(async () => {
    const prefix = frameId === undefined || frameId === 0 ? tabPrefix(tabId) : framePrefix(tabId, frameId);
    const all = await area.get(null);
    const stale = Object.keys(all ?? {}).filter((key) => key.startsWith(prefix));
    if (stale.length > 0) await area.remove(stale);
  });
}
