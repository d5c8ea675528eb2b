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

import { api } from "./platform.js";
import { inheritsPolicies, nextRecord, recordedPolicies } from "./csp.js";

const keyFor = (tabId, frameId) => `csp/${tabId}/${frameId}`;
const tabPrefix = (tabId) => `csp/${tabId}/`;

// Events arrive faster than storage answers; applying them one after another keeps each
// read-modify-write whole. The queue is per worker lifetime, which is all it needs: a worker
// that dies takes its pending events with it, and the browser replays nothing.
let queue = Promise.resolve();
function serialized(task) {
  const run = queue.then(task);
  queue = run.catch((error) => console.error("allwright: CSP record update failed", error));
  return run;
}

async function apply(tabId, frameId, event) {
  const key = keyFor(tabId, frameId);
  const stored = await api.storage.session.get(key);
  await api.storage.session.set({ [key]: nextRecord(stored[key], event) });
}

async function dropTabRecords(tabId, keepFrameId) {
  const all = await api.storage.session.get(null);
  const keep = keepFrameId === undefined ? null : keyFor(tabId, keepFrameId);
  const stale = Object.keys(all).filter((key) => key.startsWith(tabPrefix(tabId)) && key !== keep);
  if (stale.length > 0) await api.storage.session.remove(stale);
}

/** webRequest.onHeadersReceived for main_frame and sub_frame responses. */
export function recordHeaders(tabId, frameId, url, policies) {
  if (tabId < 0) return Promise.resolve();
  return serialized(() => apply(tabId, frameId, { type: "headers", url, policies }));
}

/** webNavigation.onCommitted: the frame now shows the document at `url`. */
export function recordCommit(tabId, frameId, url) {
  return serialized(async () => {
    await apply(tabId, frameId, { type: "commit", url });
    if (frameId === 0) await dropTabRecords(tabId, 0);
  });
}

/** tabs.onRemoved. */
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
      const own = recordedPolicies(stored[key], currentUrl);
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
