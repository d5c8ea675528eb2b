// @ts-check
// The pure questions asked of a tab's frame inventory (webNavigation.getAllFrames, depth-first
// from the top as snapshot-plan.js orders it): a frame's origin, the frames a urlFilter matches,
// and the frames inside a frame (docs/protocol/frames.md, "Frames"). Unit-tested in Node.

/**
 * A frame's origin from its URL (URL Standard, "origin"); documents with no origin of their own
 * (about:blank, about:srcdoc) inherit their parent's, as HTML gives them their creator's.
 * @param {string} url
 * @param {string|undefined} parentOrigin
 */
export function originOf(url, parentOrigin) {
  if (url.startsWith("about:")) return parentOrigin ?? "null";
  try {
    return new URL(url).origin;
  } catch {
    return "null";
  }
}

/**
 * The frames of `frames` whose URL contains `urlFilter`, in the inventory's depth-first order,
 * the top document excepted (it is the page already).
 * @template {{frameId: number, url: string}} F
 * @param {F[]} frames
 * @param {string} urlFilter
 */
export function matchingFrames(frames, urlFilter) {
  return frames.filter((frame) => frame.frameId !== 0 && frame.url.includes(urlFilter));
}

/**
 * A frame and the frames inside it, which navigating the tab to it would discard as well.
 * @template {{frameId: number, parentFrameId: number}} F
 * @param {F[]} frames depth-first
 * @param {number} frameId
 */
export function frameAndDescendants(frames, frameId) {
  const inside = new Set([frameId]);
  for (const frame of frames) {
    if (inside.has(frame.parentFrameId)) inside.add(frame.frameId);
  }
  return frames.filter((frame) => inside.has(frame.frameId));
}

/**
 * What one frame says of itself when the background reaches every frame with
 * scripting.executeScript (see repairInventory): its URL, its depth below the top document, and
 * the resolved `src` of its own frame elements.
 * @typedef {{url: string, depth: number, frameSources: string[]}} FrameSelfReport
 * @typedef {{frameId: number, documentId?: string, result?: FrameSelfReport}} ReachedFrame
 */

/**
 * The frame inventory with the frames webNavigation forgot put back. Chromium's webNavigation
 * stops listing a page's subframes once the page was restored from the back/forward cache
 * (getAllFrames then lists the top frame only, and getFrame answers null for the others), while
 * scripting.executeScript({allFrames: true}) still reaches every frame with its frameId. A frame
 * the inventory lacks is put back under its parent: the top frame at depth 1, else the one frame
 * one level up whose frame elements hold its URL exactly once. A frame whose parent cannot be told
 * is left out rather than guessed. Pure: unit-tested.
 * @template {{frameId: number, parentFrameId: number, url: string}} F
 * @param {F[]} known webNavigation.getAllFrames
 * @param {ReachedFrame[]} reached scripting.executeScript's results
 * @returns {(F|{frameId: number, parentFrameId: number, url: string, documentId?: string})[]}
 */
export function repairInventory(known, reached) {
  const knownIds = new Set(known.map((frame) => frame.frameId));
  const reports = reached.filter(
    (frame) =>
      Number.isInteger(frame.frameId) &&
      typeof frame.result?.url === "string" &&
      Number.isInteger(frame.result?.depth) &&
      Array.isArray(frame.result?.frameSources),
  );
  /** @type {(F|{frameId: number, parentFrameId: number, url: string, documentId?: string})[]} */
  const repaired = [...known];
  for (const frame of reports) {
    if (knownIds.has(frame.frameId) || frame.frameId === 0) continue;
    const { url, depth } = /** @type {FrameSelfReport} */ (frame.result);
    let parentFrameId;
    if (depth === 1) {
      parentFrameId = 0;
    } else {
      const parents = reports.filter(
        (parent) =>
          parent.result?.depth === depth - 1 &&
          parent.result.frameSources.filter((source) => source === url).length === 1,
      );
      if (parents.length !== 1) continue;
      parentFrameId = parents[0].frameId;
    }
    /** @type {{frameId: number, parentFrameId: number, url: string, documentId?: string}} */
    const entry = { frameId: frame.frameId, parentFrameId, url };
    if (typeof frame.documentId === "string") entry.documentId = frame.documentId;
    repaired.push(entry);
  }
  return repaired;
}

/**
 * Runs in every frame (scripting.executeScript, the extension's isolated world, where the page
 * cannot replace `location` or the DOM methods): the frame's FrameSelfReport. Self-contained, as
 * injected functions must be.
 * @returns {FrameSelfReport}
 */
export function describeFrameForInventory() {
  // Written with globalThis: it runs in a frame, while this module is the background's.
  const page = /** @type {any} */ (globalThis);
  let depth = 0;
  let current = page;
  while (current !== current.parent && depth < 1_000) {
    current = current.parent;
    depth += 1;
  }
  const frameSources = Array.from(page.document.querySelectorAll("iframe, frame"), (element) =>
    String(/** @type {any} */ (element).src ?? ""),
  );
  return { url: String(page.location.href), depth, frameSources };
}
