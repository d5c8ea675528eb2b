// @ts-check
// A tab's frames as the frame tools see them (docs/protocol/frames.md, "Frames"): webNavigation's
// inventory, depth-first from the top, with the frames Chromium's webNavigation forgets after a
// back/forward-cache restore put back (frame-inventory.js, repairInventory). Firefox's inventory
// needs no repair.

import { api, BROWSER } from "../platform.js";
import { orderFramesDepthFirst } from "../reads/snapshot-plan.js";
import { describeFrameForInventory, repairInventory } from "./frame-inventory.js";

/**
 * The tabs whose inventory Chromium keeps whole: their top document committed, while this worker
 * ran, by a navigation that was not a history traversal. Only a traversal restores a page from
 * the back/forward cache, after which Chromium lists its top frame only (measured: onCommitted
 * then fires for the top frame with the `forward_back` qualifier, and for none of its
 * subframes). The repair reaches every frame with a script, a renderer round trip of 2-8 ms that
 * every tree read waited for (docs/performance/warm-read.md, "The fixed path of a call"), so it
 * runs only for the other tabs.
 *
 * Memory only, and a tab is listed only on evidence: a restarted worker knows no tab and repairs
 * every tab's inventory until its next ordinary navigation, as it did for all tabs before.
 * @type {Set<number>}
 */
const tabsWithWholeInventory = new Set();

/**
 * webNavigation.onCommitted (Chromium): a top document that committed by a history traversal
 * may be a restored one, any other has a whole inventory.
 * @param {{tabId: number, frameId: number, transitionQualifiers?: string[]}} details
 */
export function noteCommitForFrameList({ tabId, frameId, transitionQualifiers }) {
  if (frameId !== 0) return;
  if ((transitionQualifiers ?? []).includes("forward_back")) tabsWithWholeInventory.delete(tabId);
  else tabsWithWholeInventory.add(tabId);
}

/**
 * tabs.onRemoved: the tab's id is not reused while the browser runs, but the set stays small.
 * @param {number} tabId
 */
export function forgetTabOfFrameList(tabId) {
  tabsWithWholeInventory.delete(tabId);
}

/**
 * The tab's live frames, depth-first from the top.
 * @param {number} tabId
 * @returns {Promise<{frameId: number, parentFrameId: number, url: string}[]>}
 */
export async function listFrames(tabId) {
  if (BROWSER !== "chrome" || tabsWithWholeInventory.has(tabId)) {
    return orderFramesDepthFirst((await api.webNavigation.getAllFrames({ tabId })) ?? []);
  }
  // The two questions are independent: asked together, the list costs the longer of the two
  // rather than their sum.
  const [known, reached] = await Promise.all([
    api.webNavigation.getAllFrames({ tabId }),
    api.scripting
      .executeScript({ target: { tabId, allFrames: true }, func: describeFrameForInventory })
      .catch(() => []),
  ]);
  return orderFramesDepthFirst(repairInventory(known ?? [], Array.isArray(reached) ? reached : []));
}

/**
 * One frame of the tab, or null when it has none with this id.
 * @param {number} tabId
 * @param {number} frameId
 */
export async function frameOf(tabId, frameId) {
  const frame = await api.webNavigation.getFrame({ tabId, frameId }).catch(() => null);
  if (frame != null) return { frameId, parentFrameId: frame.parentFrameId, url: frame.url };
  return (await listFrames(tabId)).find((listed) => listed.frameId === frameId) ?? null;
}
