// @ts-check
// Prepares the tree core of a tab's frames as soon as a tool call has brought a new document
// into the tab (issue 14, item 2; docs/protocol/core.md "Preparing the core early"): `navigate`,
// `go_back`, `go_forward` and `reload` end when the document has loaded, and the agent's next
// call is most often a read.
// Each frame's content script is asked to load its core now (`prepare_core`), without waiting
// for the answer, so that loading it (the injection and compilation in the page, or the worker's
// compilation on strict-CSP pages in Chromium) overlaps the call's return and the agent's next
// step instead of adding to the first read. Only tabs a tool call touched: a page no tool
// touched still loads nothing.

import { api, messages } from "../platform.js";
import { listFrames } from "../frames/frame-list.js";
import { resolveTab } from "../frames/frames.js";

/** The tools after which the tab shows a document no read has loaded a core into yet. */
const NEW_DOCUMENT_TOOLS = new Set(["navigate", "go_back", "go_forward", "reload", "new_tab"]);

/**
 * After a call of `tool` ended well: prepares the cores of its tab's frames (fire and forget).
 * @param {string} tool
 * @param {{tabId?: number}} toolArguments
 */
export function prepareCoresAfter(tool, toolArguments) {
  if (!NEW_DOCUMENT_TOOLS.has(tool)) return;
  prepareCores(toolArguments.tabId).catch(() => {
    // Preparing is only a head start: the first read loads the core itself if this failed.
  });
}

/** @param {number | undefined} tabId */
async function prepareCores(tabId) {
  const tab = await resolveTab(tabId);
  const tabIdResolved = /** @type {number} */ (tab.id);
  const frames = await listFrames(tabIdResolved);
  const request = messages.contentToolRequest("prepare_core", {});
  await Promise.allSettled(
    frames.map((frame) => api.tabs.sendMessage(tabIdResolved, request, { frameId: frame.frameId })),
  );
}
