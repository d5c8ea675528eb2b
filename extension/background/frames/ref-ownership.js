// @ts-check
// A ref acts only in the frame whose tree printed it (docs/protocol/frames.md, "Frames"): before an
// action runs, the background looks up which frame and document printed the ref's number
// (ref-issues.js) and refuses the call with ref_in_other_frame, naming that frame and the call to
// make instead, when another frame printed it and still shows the same document.

import { api, fail, messages } from "../platform.js";
import { issueOf } from "./ref-issues.js";
import { loadRecord, otherTabOf } from "./ref-issue-store.js";
import { frameOf } from "./frame-list.js";

/** How long the owner of a ref is given to say which document it shows. */
const DOCUMENT_QUESTION_MS = 1_000;

/**
 * The tool an agent calls with a ref in the top document and in a frame, by the content half of
 * the call (the tree read, or an action).
 * @type {Readonly<Record<string, string[]>>}
 */
const TOOL_OF_CONTENT_ACTION = Object.freeze({
  get_accessibility_tree: ["get_accessibility_tree", "iframe_read"],
  click_element: ["click_ax", "iframe_click"],
  type_text: ["type_ax", "iframe_type"],
  fill_field: ["set_field", "set_field"],
  select_option: ["select_option", "select_option"],
  fill_form_field: ["fill_form", "fill_form"],
  attach_files: ["upload_file", "upload_file"],
  hover_element: ["hover", "hover"],
  drag_element: ["drag", "drag"],
  press_key: ["press_key", "press_key"],
  scroll: ["scroll", "scroll"],
  element_rect: ["screenshot", "screenshot"],
  element_state: ["wait_for", "wait_for"],
});

/**
 * The call to make instead, in words: "iframe_click with frameId 3", "click_ax without frameId".
 * @param {string} contentAction
 * @param {number} frameId
 */
export function callInstead(contentAction, frameId) {
  const [topTool, frameTool] = TOOL_OF_CONTENT_ACTION[contentAction] ?? ["the same tool", "the same tool"];
  return frameId === 0 ? `${topTool} without frameId (or frameId 0)` : `${frameTool} with frameId ${frameId}`;
}

/**
 * Fails with ref_in_other_frame when `ref` was printed by another frame of the tab whose document
 * still shows it. A ref the record does not know, or whose document has gone (the frame navigated
 * or was removed), goes on to the frame asked, which answers ref_not_found as before.
 * @param {number} tabId
 * @param {number} frameId the frame the call names
 * @param {unknown} ref
 * @param {string} contentAction the content half of the action (click_element, type_text, ...)
 */
export async function refuseRefOfOtherFrame(tabId, frameId, ref, contentAction) {
  if (typeof ref !== "string") return;
  const issue = issueOf(await loadRecord(tabId), ref);
  if (issue === null) return refuseRefOfOtherTab(tabId, ref);
  if (issue.frameId === frameId) return;
  const owner = await frameOf(tabId, issue.frameId);
  if (owner === null) return;
  if ((await documentShown(tabId, issue.frameId)) !== issue.document) return;
  const url = owner.url ?? issue.url;
  fail(
    "ref_in_other_frame",
    `${ref} was printed by frame ${issue.frameId} (${url}), not by frame ${frameId}: a ref acts only in the frame whose tree printed it`,
    {
      hint: `Call ${callInstead(contentAction, issue.frameId)} and ${ref}; or read frame ${frameId} with ${
        frameId === 0 ? "get_accessibility_tree" : `iframe_read (frameId ${frameId})`
      } and use one of its refs.`,
      suggestions: [String(issue.frameId)],
    },
  );
}

/**
 * Fails with ref_not_found, naming the tab, when another tab printed `ref` (docs/protocol/action-safety.md, "A
 * ref means one element"). Numbers are unique across tabs (ref-issue-store.js), so the tab asked
 * has no element of that number anyway; the refusal only says where the ref came from, and
 * nothing is sent to the page.
 * @param {number} tabId
 * @param {string} ref
 */
async function refuseRefOfOtherTab(tabId, ref) {
  const other = await otherTabOf(tabId, ref);
  if (other === null) return;
  fail(
    "ref_not_found",
    `${ref} was printed in tab ${other.tabId} (${other.issue.url}), not in tab ${tabId}: a ref acts only in the tab and document whose tree printed it. Nothing was done.`,
    {
      hint: `To act there, call the tool again with tabId ${other.tabId}; to act in tab ${tabId}, read its tree and use one of its refs.`,
      suggestions: [],
    },
  );
}

/**
 * The document a frame's content script shows now (its random name), or null when it does not
 * answer at once.
 * @param {number} tabId
 * @param {number} frameId
 */
async function documentShown(tabId, frameId) {
  const request = messages.contentToolRequest("ping", {});
  const answer = api.tabs.sendMessage(tabId, request, { frameId }).then(
    (reply) => (messages.isContentToolReply(reply) && reply.ok ? (reply.result.document ?? null) : null),
    () => null,
  );
  /** @type {ReturnType<typeof setTimeout>|undefined} */
  let timer;
  const silence = new Promise((resolve) => {
    timer = setTimeout(() => resolve(null), DOCUMENT_QUESTION_MS);
  });
  return Promise.race([answer, silence]).finally(() => clearTimeout(timer));
}
