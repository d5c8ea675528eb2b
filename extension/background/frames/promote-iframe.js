// @ts-check
// `promote_iframe({urlFilter, matchIndex?, force?, timeoutMs?, tabId?})` (docs/protocol/frames.md,
// "Frames"): navigates the tab to the standalone URL of one of its child frames, so that an
// embedded app or form becomes the page, and go_back returns to the page that embedded it.
//
// The frame's URL comes from the browser's frame inventory (webNavigation), never from the page,
// which could name any URL in an attribute or a message. Before anything moves, two checks run
// back to back: ambiguity (several frames match and no matchIndex chose one: nothing happens, the
// candidates are returned) and draft state (the frame, or a frame inside it, holds work the
// navigation would discard: nothing happens, the reasons are returned, unless force). Only then
// does the normal same-tab navigate path (navigation.js) run, which is what keeps the embedding
// page in the tab's history.

import { DRAFT_STATE_TIMEOUT_MS } from "../host/budgets.js";
import { api, fail, messages, ToolFailure } from "../platform.js";
import { callFrame, resolveTab } from "./frames.js";
import { framesOf } from "./frame-tools.js";
import { frameOf } from "./frame-list.js";
import { openInTab } from "../tabs/navigation.js";
import { refuseLocalFile } from "../tools/local-files.js";
import { frameAndDescendants, matchingFrames } from "./frame-inventory.js";
import { thrownMessage } from "../../shared/thrown.js";

// DRAFT_STATE_TIMEOUT_MS (budgets.js): how long one frame may take to say whether it holds
// unsaved work.

/** The schemes a frame's URL must have to be opened as a page of its own. */
const PROMOTABLE_SCHEMES = new Set(["http:", "https:", "file:"]);

/**
 * Why navigating away would lose work in these frames; fails closed: a frame whose content script
 * cannot answer is a reason in itself.
 * @param {number} tabId
 * @param {{frameId: number, url: string}[]} frames
 */
async function unsavedWork(tabId, frames) {
  const reasons = await Promise.all(
    frames.map(async (frame) => {
      const label = `frame ${frame.frameId} (${frame.url})`;
      try {
        const state = await callFrame(tabId, frame.frameId, messages.contentToolRequest("draft_state", {}), {
          deadline: Date.now() + DRAFT_STATE_TIMEOUT_MS,
          frameLabel: label,
        });
        if (!Array.isArray(state.reasons)) return [`${label}: its state could not be read`];
        return state.reasons.map((/** @type {unknown} */ reason) =>
          frames.length > 1 ? `${label}: ${reason}` : String(reason),
        );
      } catch (failure) {
        // A ToolFailure carries its structured error; anything else says what it is itself.
        const why = failure instanceof ToolFailure ? failure.error.message : thrownMessage(failure);
        return [`${label}: its state cannot be inspected safely (${why})`];
      }
    }),
  );
  return reasons.flat();
}

/**
 * The `promote_iframe` tool.
 * @param {ToolArguments<"promote_iframe">} args
 */
export async function promoteIframe({ urlFilter, matchIndex, force = false, timeoutMs, tabId }) {
  const tab = await resolveTab(tabId);
  const frames = await framesOf(tab.id);
  const matches = matchingFrames(frames, urlFilter);
  if (matches.length === 0) {
    const urls = frames.filter((frame) => frame.frameId !== 0).map((frame) => frame.url);
    fail("frame_not_found", `no frame of the page has a URL containing ${JSON.stringify(urlFilter)}`, {
      hint:
        urls.length === 0
          ? "The page has no iframe right now: read it with get_accessibility_tree."
          : "Pass a piece of one of the frames' URLs in `suggestions` (host and path).",
      suggestions: urls,
    });
  }
  const candidates = matches.map((frame, index) => ({ index, frameId: frame.frameId, url: frame.url }));
  if (matchIndex === undefined && matches.length > 1) {
    fail("ambiguous_frame", `${matches.length} frames have a URL containing ${JSON.stringify(urlFilter)}`, {
      hint: "Nothing was navigated. Look at `candidates`, then call promote_iframe again with the same urlFilter and the matchIndex of the frame you want.",
      candidates,
      suggestions: matches.map((frame) => frame.url),
    });
  }
  const index = matchIndex ?? 0;
  if (index >= matches.length) {
    fail("invalid_arguments", `matchIndex ${index} is past the ${matches.length} matching frame(s)`, {
      hint: `Use a matchIndex from 0 to ${matches.length - 1}.`,
      suggestions: matches.map((frame) => frame.url),
    });
  }
  const chosen = matches[index];
  // Before anything else is asked of the frames: a local file is refused as navigate refuses it.
  await refuseLocalFile("promote_iframe", chosen.url);
  let scheme = "";
  try {
    scheme = new URL(chosen.url).protocol;
  } catch {
    // An unparsable URL has no scheme to open; refused below.
  }
  if (!PROMOTABLE_SCHEMES.has(scheme)) {
    fail("not_supported_here", `frame ${chosen.frameId} shows ${chosen.url}, which cannot be opened as a page`, {
      hint: "Only frames with an http, https or file URL can be promoted; read or act in this one with iframe_read, iframe_click and iframe_type.",
    });
  }
  if (!force) {
    const reasons = await unsavedWork(tab.id, frameAndDescendants(frames, chosen.frameId));
    if (reasons.length > 0) {
      fail("unsaved_frame_state", `frame ${chosen.frameId} (${chosen.url}) holds work that opening it would lose`, {
        hint: "Nothing was navigated. Finish or save the embedded form first (submit it, or check that the page took the text), then promote again; pass force: true only if the user wants this work discarded.",
        reasons,
      });
    }
  }
  // The frame may have navigated while it was asked: what was checked must be what is opened.
  const now = await frameOf(tab.id, chosen.frameId);
  if (now === null || now.url !== chosen.url) {
    fail("frame_detached", `frame ${chosen.frameId} left ${chosen.url} while it was checked`, {
      hint: "Call get_frames or promote_iframe again.",
    });
  }
  const previousUrl = (await api.tabs.get(tab.id)).url ?? "";
  const loaded = await openInTab({ tabId: tab.id, url: chosen.url, timeoutMs }, "promote_iframe");
  /** @type {Record<string, unknown>} */
  const result = { ...loaded, promotedFrom: { frameId: chosen.frameId, url: chosen.url }, previousUrl };
  if (force) result.discarded = true;
  return result;
}
