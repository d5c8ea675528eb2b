// @ts-check
// A tab's frames as the frame tools see them (docs/protocol.md, "Frames"): webNavigation's
// inventory, depth-first from the top, with the frames Chromium's webNavigation forgets after a
// back/forward-cache restore put back (frame-inventory.js, repairInventory). Firefox's inventory
// needs no repair.

import { api, BROWSER } from "./platform.js";
import { orderFramesDepthFirst } from "./snapshot-plan.js";
import { describeFrameForInventory, repairInventory } from "./frame-inventory.js";

/**
 * The tab's live frames, depth-first from the top.
 * @param {number} tabId
 * @returns {Promise<{frameId: number, parentFrameId: number, url: string}[]>}
 */
export async function listFrames(tabId) {
  if (BROWSER !== "chrome") return orderFramesDepthFirst((await api.webNavigation.getAllFrames({ tabId })) ?? []);
  // The two questions are independent: asked together, the list costs the longer of the two
  // rather than their sum (about 1 ms of every tree read).
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
