// @ts-check
// find (docs/agent-tools.md, "find"): reads every frame of the tab as get_accessibility_tree
// reads it, whole, and answers only the lines that match, each after its ancestors' path
// (tree-find.js), so that an agent looking for one control pays a few hundred characters
// instead of a whole read. The reads hand out refs as any read does: an agent acts on a found
// ref at once.

import { fail, ToolFailure } from "../platform.js";
import { resolveTab } from "../frames/frames.js";
import { listFrames } from "../frames/frame-list.js";
import { readFrameTree } from "../frames/frame-tools.js";
import { findInTree, frameHeading } from "./tree-find.js";
import { TREE_TIMEOUT_MS } from "../host/budgets.js";

/**
 * The read find makes of each frame: every line (filter "all", as get_accessibility_tree's
 * default), to the deepest level a read allows, in one page as long as a read may be.
 */
const WHOLE_FRAME_READ = Object.freeze({ filter: "all", maxDepth: 100, maxChars: 1_000_000, page: 1 });
/**
 * A tree longer than one read's longest page (a million characters, a page of some 100,000
 * elements) is read page after page, up to this many pages.
 */
const PAGES_READ = 10;
/** The frames that could not be read are named, at most this many. */
const FRAMES_NOT_READ_NAMED = 5;

/**
 * `find({text?, role?, name?, limit, tabId?})`.
 * @param {ToolArguments<"find">} args
 *   validated: at least one of text, role and name
 */
export async function find({ tabId, text, role, name, limit }) {
  const tab = await resolveTab(tabId);
  const deadline = Date.now() + TREE_TIMEOUT_MS;
  const frames = await listFrames(tab.id);
  if (frames.length === 0) {
    fail("frame_detached", `tab ${tab.id} shows no document right now`, {
      hint: "Wait for the page to load, then retry.",
    });
  }
  const query = { text, role, name };
  /** @type {string[]} */
  const lines = [];
  let matches = 0;
  let shown = 0;
  /** @type {{frameId: number, url: string, code: string}[]} */
  const framesNotRead = [];
  for (const frame of frames) {
    if (Date.now() >= deadline) {
      framesNotRead.push({ frameId: frame.frameId, url: frame.url, code: "timeout" });
      continue;
    }
    let tree;
    try {
      tree = await wholeTreeOf(tab.id, frame.frameId, deadline);
    } catch (failure) {
      // The top document must answer, as for a read; a frame that cannot (the extension may not
      // enter it, it is navigating) is named in the answer instead of failing the search.
      if (frame.frameId === 0 || !(failure instanceof ToolFailure)) throw failure;
      framesNotRead.push({ frameId: frame.frameId, url: frame.url, code: failure.error.code });
      continue;
    }
    const found = findInTree(tree, query);
    matches += found.length;
    const room = limit - shown;
    if (room <= 0 || found.length === 0) continue;
    if (frame.frameId !== 0) lines.push(frameHeading(frame.frameId, frame.url));
    const kept = found.slice(0, room);
    lines.push(...kept);
    shown += kept.length;
  }
  return {
    matches,
    ...(shown < matches ? { shown } : {}),
    ...(framesNotRead.length === 0
      ? {}
      : {
          framesNotRead: framesNotRead.slice(0, FRAMES_NOT_READ_NAMED),
          ...(framesNotRead.length > FRAMES_NOT_READ_NAMED ? { framesNotReadCount: framesNotRead.length } : {}),
        }),
    ...(matches === 0
      ? { hint: "No line matches: try fewer words, another role, or read the page with get_accessibility_tree." }
      : {}),
    tree: lines.join("\n"),
  };
}

/**
 * The whole text tree of one frame, its pages joined. A page after the first starts where the
 * last one stopped, so the lines at its top have no ancestors in it: their paths are shorter.
 * @param {number} tabId
 * @param {number} frameId
 * @param {number} deadline
 */
async function wholeTreeOf(tabId, frameId, deadline) {
  const pages = [];
  for (let page = 1; page <= PAGES_READ; page += 1) {
    const result = await readFrameTree(tabId, frameId, { ...WHOLE_FRAME_READ, page }, deadline);
    pages.push(typeof result.tree === "string" ? result.tree : "");
    const pageCount = Number.isSafeInteger(result.pageCount) ? result.pageCount : 1;
    if (page >= pageCount || Date.now() >= deadline) break;
  }
  return pages.join("\n");
}
