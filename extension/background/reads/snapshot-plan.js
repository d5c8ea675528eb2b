// @ts-check
// The pure parts of `accessibility_snapshot`: which frames to visit in which order, the context
// ids the documents carry, and how the frames' documents join into one snapshot. Unit-tested in
// Node; the browser calls live in tools.js.

/**
 * A frame as webNavigation.getAllFrames reports it (only the fields used here).
 * @typedef {{frameId: number, parentFrameId: number, url: string, documentLifecycle?: string}} FrameInfo
 */

/**
 * Orders a tab's frames depth-first from the top frame, each frame followed by its descendants
 * (docs/protocol/channels.md, section 3: "Frames are visited depth-first from frame 0, siblings by frame
 * id"). Siblings are ordered by frame id: the browser hands out ids as frames are created,
 * which for markup frames is document order. Frames that are not live documents (Chrome's
 * prerendered, back/forward-cached or deleting documents) and frames whose parent chain does not
 * reach the top frame (a subtree being torn down) are left out: they are not part of the page.
 * @param {FrameInfo[]} frames
 * @returns {FrameInfo[]}
 */
export function orderFramesDepthFirst(frames) {
  const live = frames.filter((frame) => frame.documentLifecycle === undefined || frame.documentLifecycle === "active");
  /** @type {Map<number, FrameInfo[]>} each frame's children, by the parent's frame id */
  const children = new Map();
  for (const frame of live) {
    const siblings = children.get(frame.parentFrameId) ?? [];
    siblings.push(frame);
    children.set(frame.parentFrameId, siblings);
  }
  for (const siblings of children.values()) siblings.sort((a, b) => a.frameId - b.frameId);
  const top = live.find((frame) => frame.frameId === 0);
  if (top === undefined) return [];
  const ordered = [];
  // An explicit stack keeps deep frame nesting from growing the call stack; children are pushed
  // in reverse so the first child is visited first.
  const stack = [top];
  const seen = new Set();
  for (let frame = stack.pop(); frame !== undefined; frame = stack.pop()) {
    if (seen.has(frame.frameId)) continue;
    seen.add(frame.frameId);
    ordered.push(frame);
    const own = children.get(frame.frameId) ?? [];
    for (let i = own.length - 1; i >= 0; i -= 1) stack.push(own[i]);
  }
  return ordered;
}

/**
 * The opaque context id of a frame's document in a snapshot: derived from the tab and frame
 * ids, which are stable for the frame's lifetime and unique within the browser session.
 * @param {number} tabId
 * @param {number} frameId
 */
export function contextIdFor(tabId, frameId) {
  return `tab-${tabId}.frame-${frameId}`;
}

/**
 * Joins the frames' documents into one snapshot, byte for byte as the core's
 * `snapshot::assemble` does (docs/protocol/channels.md, section 3).
 * @param {"json"|"yaml"} format
 * @param {string[]} documents
 */
export function assembleSnapshot(format, documents) {
  if (format === "json") return `{"version":1,"documents":[${documents.join(",")}]}`;
  if (documents.length === 0) return '"version": 1\n"documents": []\n';
  return `"version": 1\n"documents":\n${documents.join("")}`;
}
