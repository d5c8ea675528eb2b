// @ts-check
// The frame tools (docs/protocol/frames.md, "Frames"): get_frames, the tree read of any frame
// (get_accessibility_tree and iframe_read), iframe_click and iframe_type, and the rule that a ref
// printed by one frame is refused in another (ref_in_other_frame).

import { BROWSER, fail, messages } from "../platform.js";
import { callFrame, requireFrame, resolveTab } from "./frames.js";
import { clickAx, typeAx } from "../actions/actions.js";
import { recordIssue } from "./ref-issues.js";
import { loadRecord, oneReadAtATime, saveRecord } from "./ref-issue-store.js";
import { originOf } from "./frame-inventory.js";
import { listFrames } from "./frame-list.js";
import { refuseRefOfOtherFrame } from "./ref-ownership.js";
import { withReadCoverage } from "../reads/read-coverage-store.js";
import { FRAME_PING_TIMEOUT_MS, TREE_TIMEOUT_MS } from "../host/budgets.js";
import { CALL_TIMING } from "../build-config.js";
import { timingNow } from "../host/call-timing.js";
import { finishHandedOffRead } from "../core/tree-hand-off.js";
import { recordLastSnapshot } from "../actions/action-changes.js";

/** The tab's live frames, depth-first from the top (frame-list.js). */
export const framesOf = listFrames;

/**
 * Reads one frame's tree: the tab's reads one at a time, new refs numbered above the tab's floor,
 * the range the frame printed recorded, and the frame's children named so that their iframe lines
 * print `frameId=N`.
 * @param {number} tabId
 * @param {number} frameId
 * @param {Record<string, unknown>} treeArguments the validated tree arguments
 * @param {number} [deadline] when the frame's answer is due (a read's own budget by default)
 */
export function readFrameTree(tabId, frameId, treeArguments, deadline = undefined) {
  return oneReadAtATime(tabId, async () => {
    const readStart = CALL_TIMING ? timingNow() : 0;
    // The tab's ref record and its frames, asked together: neither depends on the other.
    let recordLoaded = 0;
    const [record, frames] = await Promise.all([
      loadRecord(tabId).then((loaded) => {
        if (CALL_TIMING) recordLoaded = timingNow();
        return loaded;
      }),
      framesOf(tabId),
    ]);
    const childFrames = frames
      .filter((frame) => frame.parentFrameId === frameId)
      .map(({ frameId: childId, url }) => ({ frameId: childId, url }));
    const framesListed = CALL_TIMING ? timingNow() : 0;
    const request = messages.contentToolRequest("get_accessibility_tree", {
      ...treeArguments,
      refFloor: record.floor,
      childFrames,
      // Chromium runs strict-CSP frames' cores here: such a frame hands its read over.
      coreHandOff: BROWSER === "chrome",
    });
    let result = await callFrame(tabId, frameId, request, {
      deadline: deadline ?? Date.now() + TREE_TIMEOUT_MS,
      frameLabel: `frame ${frameId}`,
    });
    const frameAnswered = CALL_TIMING ? timingNow() : 0;
    if (result.coreHandOff !== undefined) {
      if (!messages.isTreeCoreHandOff(result.coreHandOff)) {
        fail("script_failed", `the content script of frame ${frameId} handed over a malformed read`, {
          hint: "Read the page again.",
        });
      }
      result = await finishHandedOffRead(tabId, frameId, result.coreHandOff);
    }
    if (CALL_TIMING && typeof result.timing === "object") {
      const stamps = {
        backgroundReadStart: readStart,
        recordLoaded,
        framesListed,
        frameAnswered,
        readFinished: timingNow(),
      };
      result.timing = { ...result.timing, ...stamps };
    }
    const { refIssue, ...treeResult } = result;
    // A read that handed out no new number, below the floor already kept, changes nothing in
    // the record: re-reads of a page whose elements all have their refs, and most reads since
    // a snapshot. Storage is not touched again for them (two reads and a write of
    // storage.session, a few milliseconds of every such call).
    if (isRefIssue(refIssue) && refIssue.last < refIssue.first && refIssue.last <= record.floor) return treeResult;
    if (isRefIssue(refIssue)) {
      const url = typeof treeResult.url === "string" ? treeResult.url : "";
      // The record read above is still the tab's: reads are one at a time, and only they write it.
      await saveRecord(tabId, recordIssue(record, { frameId, url, ...refIssue }));
    }
    return treeResult;
  });
}

/**
 * @param {unknown} value what the frame's tree read reported as its ref issue
 * @returns {value is {document: string, first: number, last: number}}
 */
function isRefIssue(value) {
  if (typeof value !== "object" || value === null) return false;
  const candidate = /** @type {{document?: unknown, first?: unknown, last?: unknown}} */ (value);
  return (
    typeof candidate.document === "string" &&
    Number.isSafeInteger(candidate.first) &&
    Number.isSafeInteger(candidate.last)
  );
}

/**
 * `get_accessibility_tree`: the top document, or the frame `frameId` names. A `ref_id` printed
 * by another frame is refused by name, as for the actions.
 * @param {ToolArguments<"get_accessibility_tree">} args
 */
export async function getAccessibilityTree({ tabId, frameId = 0, ...treeArguments }) {
  const tab = await resolveTab(tabId);
  if (frameId !== 0) await requireFrame(tab.id, frameId);
  await refuseRefOfOtherFrame(tab.id, frameId, treeArguments.ref_id, "get_accessibility_tree");
  const result = await readFrameTree(tab.id, frameId, treeArguments);
  recordLastSnapshot(tab.id, frameId, treeArguments, result);
  if (result.full === false) return onlyChanges(result);
  return withReadCoverage(tab.id, frameId, { tabId, frameId, ...treeArguments }, result);
}

/**
 * A read since a snapshot that shows only what changed (docs/protocol/reading.md, "Reads since a
 * snapshot") is no page of a thread read: it is not recorded for coverage and carries none.
 * @param {Record<string, unknown>} result
 */
function onlyChanges(result) {
  const visible = { ...result };
  delete visible.contentFingerprint;
  return visible;
}

/**
 * `iframe_read`: get_accessibility_tree of one frame, whose id the result repeats.
 * @param {ToolArguments<"iframe_read">} args
 */
export async function iframeRead({ tabId, frameId, ...treeArguments }) {
  const tab = await resolveTab(tabId);
  await requireFrame(tab.id, frameId);
  await refuseRefOfOtherFrame(tab.id, frameId, treeArguments.ref_id, "get_accessibility_tree");
  const result = await readFrameTree(tab.id, frameId, treeArguments);
  recordLastSnapshot(tab.id, frameId, treeArguments, result);
  if (result.full === false) return { ...onlyChanges(result), frameId };
  const covered = await withReadCoverage(tab.id, frameId, { tabId, frameId, ...treeArguments }, result);
  // iframe_read always names its frame, frame 0 included: its continuation must too.
  const continuationArgs =
    covered.continuationArgs === undefined ? undefined : { ...covered.continuationArgs, frameId };
  return { ...covered, ...(continuationArgs === undefined ? {} : { continuationArgs }), frameId };
}

/** `iframe_click`: click_ax in the frame named (the same path, the same answer). */
export const iframeClick = (
  /** @type {ToolArguments<"iframe_click">} */ args,
  /** @type {Parameters<typeof clickAx>[1]} */ options,
) => clickAx(args, options);

/** `iframe_type`: type_ax in the frame named (the same path, the same answer). */
export const iframeType = (/** @type {ToolArguments<"iframe_type">} */ args) => typeAx(args);

// ---- get_frames --------------------------------------------------------------------------------

/**
 * Whether our content script answers in a frame, after injecting it where it was missing (as
 * callFrame does for every tool).
 * @param {number} tabId
 * @param {number} frameId
 */
async function contentScriptAnswers(tabId, frameId) {
  try {
    await callFrame(tabId, frameId, messages.contentToolRequest("ping", {}), {
      deadline: Date.now() + FRAME_PING_TIMEOUT_MS,
      frameLabel: `frame ${frameId}`,
    });
    return true;
  } catch {
    return false;
  }
}

/**
 * `get_frames`: the browser's frame inventory, each child frame's <iframe> element as its parent
 * lays it out, and whether our content script answers in each frame.
 * @param {ToolArguments<"get_frames">} args
 */
export async function getFrames({ tabId }) {
  const tab = await resolveTab(tabId);
  const frames = await framesOf(tab.id);
  if (frames.length === 0) {
    fail("frame_detached", `tab ${tab.id} shows no document right now`, {
      hint: "Wait for the page to load, then retry.",
    });
  }
  const answering = await Promise.all(frames.map((frame) => contentScriptAnswers(tab.id, frame.frameId)));
  /** @type {Map<number, {width: number, height: number, visible: boolean}>} */
  const boxes = new Map();
  await Promise.all(
    frames.map(async (parent, index) => {
      const children = frames.filter((frame) => frame.parentFrameId === parent.frameId);
      if (children.length === 0 || !answering[index]) return;
      const request = messages.contentToolRequest("child_frames", {
        childFrames: children.map(({ frameId, url }) => ({ frameId, url })),
      });
      const seen = await callFrame(tab.id, parent.frameId, request, {
        deadline: Date.now() + FRAME_PING_TIMEOUT_MS,
        frameLabel: `frame ${parent.frameId}`,
      }).catch(() => ({ frames: [] }));
      for (const box of Array.isArray(seen.frames) ? seen.frames : []) {
        if (Number.isInteger(box?.frameId)) {
          boxes.set(box.frameId, { width: box.width, height: box.height, visible: box.visible === true });
        }
      }
    }),
  );
  /** @type {Map<number, string>} */
  const origins = new Map();
  const listed = frames.map((frame, index) => {
    const origin = originOf(frame.url, origins.get(frame.parentFrameId));
    origins.set(frame.frameId, origin);
    return {
      frameId: frame.frameId,
      parentFrameId: frame.parentFrameId,
      url: frame.url,
      origin,
      ...boxes.get(frame.frameId),
      contentScript: answering[index],
    };
  });
  return { frames: listed };
}
