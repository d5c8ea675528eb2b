// @ts-check
// One of the background's two persistent states (the other is read-coverage-store.js): the
// Content Security Policies each frame's current document was served with, kept in
// `storage.session` so a restarted service worker still knows them (the headers arrive once,
// long before the first tool call may need them). Chrome only: Firefox compiles WebAssembly in
// content scripts whatever the page's policy (csp.js).
//
// State machine, one record per tab and frame, key `csp/<tabId>/<frameId>`:
//
//   (absent) --headers--> {pending: P, committed: C}        P = {url, policies} of the response
//   {pending: P, committed: C} --commit(url)--> {pending: null, committed: C'}
//        C' = {url, policies: P.policies} when P.url is the committed url,
//        C' = {url, policies: null} otherwise (no header seen for that document: a back/forward
//             cache restore, a service-worker response, about:blank, ...; null means unknown)
//   commit in frame 0 --> every other record of the tab is dropped (their documents are gone)
//   tab removed       --> every record of the tab is dropped
//
// Redirects simply replace `pending` (only the last response commits). A response that never
// commits (a download, a 204) leaves `committed` describing the document still shown. Reads
// take `committed` only when it is for the same origin as the asking document; anything else is
// unknown, which csp.js turns into the JS core: a wrong guess would reveal the extension.
//
// Bounds (csp.js, CSP_RECORD_BOUNDS): only tabs an agent uses are recorded (agent-tabs.js);
// each stored record carries `at`, the order it was written in, and the oldest go first when
// the count or the bytes would pass their bound; a record too large on its own is not kept. When
// storage.session refuses a write (it is full: QuotaExceededError), the oldest records are
// dropped and the write tried once more; if it still fails, the frame's record is removed, so
// that the frame is unknown (the JS core) rather than described by an older document's record.

import { api } from "../platform.js";
import {
  CSP_RECORD_BOUNDS,
  inheritsPolicies,
  nextRecord,
  recordedPolicies,
  recordsToEvict,
  storedSize,
} from "./csp.js";
import { isAgentTab } from "../tabs/agent-tabs.js";
import { thrownMessage } from "../../shared/thrown.js";

/**
 * @typedef {import("./csp.js").FrameRecord} FrameRecord
 * @typedef {import("./csp.js").FrameEvent} FrameEvent
 */

const keyFor = (/** @type {number} */ tabId, /** @type {number} */ frameId) => `csp/${tabId}/${frameId}`;
const tabPrefix = (/** @type {number} */ tabId) => `csp/${tabId}/`;

// Events arrive faster than storage answers; applying them one after another keeps each
// read-modify-write whole. The queue is per worker lifetime, which is all it needs: a worker
// that dies takes its pending events with it, and the browser replays nothing.
/** @type {Promise<unknown>} */
let queue = Promise.resolve();
/**
 * @template T
 * @param {() => Promise<T>} task
 * @returns {Promise<T>}
 */
function serialized(task) {
  const run = queue.then(task);
  queue = run.catch((error) => console.error("allwright: CSP record update failed", error));
  return run;
}

/**
 * Every stored record's order and size, read from storage.session once per worker lifetime and
 * kept up to date by the writes of this module (they are serialized, so nothing else writes).
 * @type {Map<string, {at: number, bytes: number}>|null}
 */
let index = null;
let lastAt = 0;

async function recordIndex() {
  if (index !== null) return index;
  const all = await api.storage.session.get(null).catch(() => ({}));
  index = new Map();
  for (const [key, value] of Object.entries(all)) {
    if (!key.startsWith("csp/")) continue;
    // A stored record (csp.js, FrameRecord) with the time this module wrote it.
    const storedAt = /** @type {{at?: unknown}|null} */ (value)?.at;
    const at = Number.isSafeInteger(storedAt) ? /** @type {number} */ (storedAt) : 0;
    lastAt = Math.max(lastAt, at);
    index.set(key, { at, bytes: await bytesInStorage(key, storedSize(key, value)) });
  }
  return index;
}

/**
 * The bytes a stored record counts for against the quota, as the browser reports them. Chromium
 * does not count a record's JSON: it estimates the memory its value takes, a few hundred bytes
 * more per record than `storedSize` (38 records of a 70-frame page came to 1,055,632 bytes
 * against a 1 MiB bound that their JSON kept). The estimate from the JSON is the fallback where
 * the browser cannot say.
 * @param {string} key
 * @param {number} estimate
 */
async function bytesInStorage(key, estimate) {
  if (typeof api.storage.session.getBytesInUse !== "function") return estimate;
  const reported = await api.storage.session.getBytesInUse(key).catch(() => estimate);
  return Number.isSafeInteger(reported) && reported > 0 ? reported : estimate;
}

/** @param {string[]} keys */
async function removeRecords(keys) {
  const known = await recordIndex();
  // The index mirrors what is stored, so a key it lacks needs no call.
  keys = keys.filter((key) => known.has(key));
  if (keys.length === 0) return;
  for (const key of keys) known.delete(key);
  // Removing needs no room, so it works on a full storage.session too.
  await api.storage.session.remove(keys);
}

/**
 * @param {number} tabId
 * @param {number} frameId
 * @param {FrameEvent} event
 */
async function apply(tabId, frameId, event) {
  const key = keyFor(tabId, frameId);
  const stored = await api.storage.session.get(key);
  lastAt = Math.max(lastAt, Date.now(), lastAt + 1);
  const record = { ...nextRecord(/** @type {FrameRecord|undefined} */ (stored[key]), event), at: lastAt };
  const bytes = storedSize(key, record);
  if (bytes > CSP_RECORD_BOUNDS.mostRecordBytes) {
    await removeRecords([key]);
    return;
  }
  const known = await recordIndex();
  await removeRecords(recordsToEvict(known, { key, bytes }, CSP_RECORD_BOUNDS));
  try {
    await api.storage.session.set({ [key]: record });
  } catch {
    // Full: make room among our own records (the oldest half), then try once more.
    const oldest = [...known.entries()]
      .filter(([other]) => other !== key)
      .sort((a, b) => a[1].at - b[1].at)
      .map(([other]) => other);
    await removeRecords(oldest.slice(0, Math.ceil(oldest.length / 2)));
    try {
      await api.storage.session.set({ [key]: record });
    } catch (error) {
      await removeRecords([key]);
      console.warn(
        `allwright: storage.session is full; frame ${frameId} of tab ${tabId} gets the JS core (${thrownMessage(error)})`,
      );
      return;
    }
  }
  // The estimate chose what to evict before the write; the browser's own count, known only after
  // it, decides whether older records must still go so that the bound holds as the browser counts.
  const storedBytes = await bytesInStorage(key, bytes);
  known.set(key, { at: lastAt, bytes: storedBytes });
  if (storedBytes > bytes) {
    await removeRecords(recordsToEvict(known, { key, bytes: storedBytes }, CSP_RECORD_BOUNDS));
  }
}

/**
 * @param {number} tabId
 * @param {number} [keepFrameId]
 */
async function dropTabRecords(tabId, keepFrameId) {
  const known = await recordIndex();
  const keep = keepFrameId === undefined ? null : keyFor(tabId, keepFrameId);
  const stale = [...known.keys()].filter((key) => key.startsWith(tabPrefix(tabId)) && key !== keep);
  await removeRecords(stale);
}

/**
 * webRequest.onHeadersReceived for main_frame and sub_frame responses.
 * @param {number} tabId
 * @param {number} frameId
 * @param {string} url
 * @param {string[]} policies
 */
export function recordHeaders(tabId, frameId, url, policies) {
  if (tabId < 0) return Promise.resolve();
  return serialized(async () => {
    if (await isAgentTab(tabId)) await apply(tabId, frameId, { type: "headers", url, policies });
  });
}

/**
 * webNavigation.onCommitted: the frame now shows the document at `url`.
 * @param {number} tabId
 * @param {number} frameId
 * @param {string} url
 */
export function recordCommit(tabId, frameId, url) {
  return serialized(async () => {
    if (await isAgentTab(tabId)) await apply(tabId, frameId, { type: "commit", url });
    else await removeRecords([keyFor(tabId, frameId)]);
    if (frameId === 0) await dropTabRecords(tabId, 0);
  });
}

/**
 * tabs.onRemoved.
 * @param {number} tabId
 */
export function forgetTab(tabId) {
  return serialized(() => dropTabRecords(tabId));
}

/**
 * The policies that govern the document a frame shows now, besides its own meta elements (the
 * content script sends those), or null when unknown. Documents that inherit their policies
 * (about:blank, srcdoc, data:, blob:) take their parent's: the parent's header policies and its
 * meta policies, which are part of the policy container the child copied. A top-level one takes
 * none when nothing opened it, and is unknown when another tab did (its creator may be any frame
 * of that tab).
 * @param {number} tabId
 * @param {number} frameId
 * @param {string} documentUrl
 * @returns {Promise<string[]|null>}
 */
export async function framePolicies(tabId, frameId, documentUrl) {
  // Wait for events already queued, so a just-committed document is seen.
  await queue;
  const inherited = [];
  let currentFrameId = frameId;
  let currentUrl = documentUrl;
  // Inheritance chains are short (about:blank inside srcdoc inside a page); the bound only stops
  // a frame table that changes under us from looping.
  for (let depth = 0; depth < 32; depth += 1) {
    if (/^file:/i.test(currentUrl)) return inherited;
    if (!inheritsPolicies(currentUrl)) {
      const key = keyFor(tabId, currentFrameId);
      const stored = await api.storage.session.get(key);
      const own = recordedPolicies(/** @type {FrameRecord|undefined} */ (stored[key]), currentUrl);
      return own === null ? null : [...own, ...inherited];
    }
    const frame = await api.webNavigation.getFrame({ tabId, frameId: currentFrameId });
    if (frame == null) return null;
    if (frame.parentFrameId < 0) {
      const tab = await api.tabs.get(tabId);
      return tab.openerTabId === undefined ? inherited : null;
    }
    const parent = await api.webNavigation.getFrame({ tabId, frameId: frame.parentFrameId });
    if (parent == null) return null;
    const parentMeta = await metaPoliciesOf(tabId, frame.parentFrameId);
    if (parentMeta === null) return null;
    inherited.push(...parentMeta);
    currentFrameId = frame.parentFrameId;
    currentUrl = parent.url;
  }
  return null;
}

/**
 * The meta-element policies of a frame's document, read in the content-script world (nothing
 * runs in the page's world); null when the frame cannot be read.
 * @param {number} tabId
 * @param {number} frameId
 */
async function metaPoliciesOf(tabId, frameId) {
  try {
    const [injection] = await api.scripting.executeScript({
      target: { tabId, frameIds: [frameId] },
      // The function is serialized and runs in the frame, where `document` is the frame's.
      func: () =>
        Array.from(globalThis.document.querySelectorAll("meta[http-equiv]"))
          .filter((meta) => meta.getAttribute("http-equiv")?.trim().toLowerCase() === "content-security-policy")
          .map((meta) => meta.getAttribute("content") ?? ""),
    });
    return Array.isArray(injection?.result) ? injection.result : null;
  } catch {
    return null;
  }
}
