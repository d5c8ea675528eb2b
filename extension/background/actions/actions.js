// @ts-check
// The action tools (docs/protocol/tools.md, "Action results"): the background half. The content script
// of the frame acts and reports what changed in its page (content/actions.js); the background
// watches what the tab did meanwhile (activity.js) and, for click_ax, runs the click arbiter, including Chrome's one protected trusted-input fallback.

import { asToolError, BROWSER, fail, messages, ToolFailure } from "../platform.js";
import { callFrame, requireFrame, resolveTab } from "../frames/frames.js";
import { networkState, watchTab } from "./activity.js";
import { actionResultOf, isProgressEvidence, mergeEvidence } from "./action-outcome.js";
import { dispatchTrustedClick } from "./trusted-input.js";
import { checkTrustedClick } from "./trusted-click-check.js";
import { refuseRefOfOtherFrame } from "../frames/ref-ownership.js";
import { ACTION_TIMEOUT_MS, FORM_FILL_FIELDS_MS, NAVIGATION_SETTLE_MS } from "../host/budgets.js";
import { changesOfAction } from "./action-changes.js";
import { formFillSummary } from "./form-fill-outcome.js";
import { dropInPageWorld } from "./page-drop.js";

/** The observation interval of click_ax (docs/protocol/tools.md, "Action results"): the click settles over two of them. */
const OBSERVATION_INTERVAL_MS = 250;

/** After other actions, how long the tab is watched for requests, tabs and navigations. */
const SETTLE_MS = 200;
/**
 * How long an action that navigated its frame waits for the new document's request to be seen
 * (activity.js, documentRequestKnown): it normally comes before the navigation is told.
 */
const DOCUMENT_REQUEST_WAIT_MS = 1_000;

/**
 * How long the page must have been quiet (no mutation, no request started or finished) after an
 * action's effect was seen before the action answers (issue 30, item 6): an action returns as
 * soon as its effect is observed and the page settled, and waits the whole observation only
 * while nothing has happened yet.
 */
const QUIET_AFTER_EFFECT_MS = 50;

const sleep = (/** @type {number} */ ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Runs one content-side tool in a frame, where a navigation that tears the frame down while it
 * answers is an outcome, not a failure: returns null in that case.
 * @param {number} tabId
 * @param {number} frameId
 * @param {ContentToolRequest["tool"]} contentTool
 * @param {Record<string, unknown>} contentArguments
 * @param {{navigated: () => boolean}} watch
 */
async function callFrameThroughNavigation(tabId, frameId, contentTool, contentArguments, watch) {
  const request = messages.contentToolRequest(contentTool, contentArguments);
  try {
    return await callFrame(tabId, frameId, request, {
      deadline: Date.now() + ACTION_TIMEOUT_MS,
      frameLabel: `frame ${frameId}`,
      // Once the action's frame navigated, the request is not sent to the new document.
      mayRetry: () => !watch.navigated(),
    });
  } catch (failure) {
    const gone = failure instanceof ToolFailure && ["frame_detached", "script_failed"].includes(failure.error.code);
    if (gone && watch.navigated()) return null;
    throw failure;
  }
}

/**
 * The tab and frame an action targets, checked; a ref printed by another frame of the tab is
 * refused there (ref_in_other_frame, docs/protocol/frames.md "Frames").
 * @param {{tabId?: number, frameId?: number, ref_id?: unknown}} args
 * @param {string} contentTool the action's content half, to name the call to make instead
 */
async function actionTarget({ tabId, frameId = 0, ref_id: ref }, contentTool) {
  const tab = await resolveTab(tabId);
  if (frameId !== 0) await requireFrame(tab.id, frameId);
  await refuseRefOfOtherFrame(tab.id, frameId, ref, contentTool);
  return { tabId: tab.id, frameId };
}

/**
 * The result every action returns: the page side's report, then the outcome, and the changes
 * of the tab since its last tree read (action-changes.js), when a tree was read in it.
 * @param {Record<string, any>|null} report the content script's result (null: the page navigated away)
 * @param {ReturnType<typeof watchTab>} watch
 * @param {string} action
 * @param {{evidence?: string[], hints?: string[], trustedFallbackUsed?: boolean,
 *   clickReachedListeners?: boolean, tabId?: number}} [extra]
 */
async function actionResult(report, watch, action, extra = {}) {
  // A new document whose request was not seen may have been a form's POST: no retry then.
  const documentRequestKnown = await watch.documentRequestKnown(DOCUMENT_REQUEST_WAIT_MS);
  const observed = watch.stop();
  const result = actionResultOf(report, {
    observed,
    sawSideEffects: watch.sawSideEffects() || !documentRequestKnown,
    navigated: watch.navigated(),
    action,
    evidence: extra.evidence,
    hints: extra.hints,
    trustedFallbackUsed: extra.trustedFallbackUsed,
    clickReachedListeners: extra.clickReachedListeners,
  });
  const changes = await changesOfAction(extra.tabId, { navigated: report === null || watch.navigationStarted() });
  if (changes !== undefined) result.changes = changes;
  return result;
}

/**
 * Waits for a navigation the action started, so the next read sees the new page.
 * @param {ReturnType<typeof watchTab>} watch
 * @param {string[]} hints
 */
async function settleNavigation(watch, hints) {
  if (!watch.navigationStarted()) return;
  const finished = await watch.navigationSettled(NAVIGATION_SETTLE_MS);
  if (!finished) hints.push(`the new page was still loading after ${NAVIGATION_SETTLE_MS / 1000} s`);
}

// ---- click_ax --------------------------------------------------------------------------------

/**
 * `click_ax({ref_id})`: lookup, scroll into view, a mouse's whole click
 * (content/actions/pointer-input.js), then two observation intervals; in Chrome, for a safe
 * generic target after which nothing at all changed (two stable intervals, the page quiet since
 * the click, checked once more just before) and whose synthetic click provably reached no page
 * listener (click-listeners.js, asked once the debugger is attached), one trusted click through
 * the debugger, observed once more.
 * @param {ToolArguments<"click_ax">} args iframe_click's too, whose frameId is required
 * @param {{signal?: AbortSignal}} [options]
 */
export async function clickAx(args, { signal } = {}) {
  const { tabId, frameId } = await actionTarget(args, "click_element");
  const watch = watchTab(tabId, frameId, "click_ax");
  let report;
  try {
    report = await callFrameThroughNavigation(tabId, frameId, "click_element", { ref_id: args.ref_id }, watch);
  } catch (failure) {
    watch.stop();
    throw failure;
  }
  return arbitrateClick({ tabId, frameId, watch, report, inputMethod: "synthetic", signal });
}

/**
 * The click arbiter, after the click: two observation intervals, Chrome's trusted fallback for a
 * synthetic click that did nothing, and the outcome. A click that was real input already
 * (`inputMethod: "bidi"`, sent by the MCP server) gets no fallback: a second real click could
 * act twice, and the first one was all a person's click would be.
 * A call whose answer was already given without it (`signal` aborted: the host failed it when the
 * port closed, or its budget ran out) gets no trusted click: the agent was told outcome_unknown,
 * and a second activation now would act behind its back (docs/protocol/action-safety.md, "Nothing done twice").
 * @param {{tabId: number, frameId: number, watch: ReturnType<typeof watchTab>,
 *   report: Record<string, any>|null, inputMethod: "synthetic"|"bidi", signal?: AbortSignal}} click
 */
async function arbitrateClick({ tabId, frameId, watch, report, inputMethod, signal }) {
  /** @type {string[]} */
  const evidence = [];
  /** @type {string[]} */
  const hints = [];
  if (report === null) {
    await settleNavigation(watch, hints);
    return { method: inputMethod, ...(await actionResult(null, watch, "click", { hints, tabId })) };
  }
  const { token, fallback, ...target } = report;
  let stableIntervals = 0;
  let lastRect = report.rect;
  // Whether the page stayed still since the synthetic input: no mutation anywhere, no focus
  // change, no new value or popup (the page side's quietSinceClick; docs/protocol/tools.md, "Action
  // results"). Stays false once anything moved.
  let quietSinceClick = true;
  // Whether the last look found an animation or transition running in the frame: the page is
  // not settled yet, whatever the DOM says.
  let pageAnimating = false;
  const observe = async () => {
    const seen = await callFrameThroughNavigation(tabId, frameId, "observe_click", { token }, watch).catch(
      (failure) => {
        // The target's document may be gone for a reason other than our navigation; what we have
        // seen so far still stands, so the click's result is reported rather than failed.
        hints.push(`observing the click failed: ${failure.error?.message ?? failure.message}`);
        return null;
      },
    );
    if (seen === null) return false;
    for (const item of seen.evidence ?? []) evidence.push(item);
    for (const item of seen.hints ?? []) hints.push(item);
    if (seen.rect) lastRect = seen.rect;
    if (seen.quietSinceClick !== true) quietSinceClick = false;
    pageAnimating = seen.animating === true;
    return seen.stable === true && seen.connected === true;
  };
  const progressed = () => watch.navigated() || mergeEvidence(target.evidence, evidence).some(isProgressEvidence);
  /** Why the trusted click may no longer run after one more observation, or null. */
  const lastLookBeforeTrustedClick = async () => {
    const stillStable = await observe();
    if (watch.navigated()) return "the page navigated after the click";
    if (progressed() || !quietSinceClick || !stillStable) return "the page changed after the click";
    if (watch.sawSideEffects() || watch.sawPageTraffic()) return "the page sent requests after the click";
    return null;
  };

  // Each interval is watched in steps of QUIET_AFTER_EFFECT_MS: once the click showed progress
  // and the page has been still for a step (no mutation, the same box, no request), the click
  // has answered and the result goes back at once. An interval counts as stable only when every
  // step of it was, as one look at its end would have found, so the trusted fallback's rule (two
  // stable intervals, nothing progressed) is unchanged; it never runs after progress anyway.
  // A navigation ends the watch, but not before one whole interval: a download link starts a
  // navigation that never commits, and its download shows only later (Firefox).
  const observingSince = Date.now();
  observing: for (let interval = 0; interval < 2; interval += 1) {
    const intervalEnd = Date.now() + OBSERVATION_INTERVAL_MS;
    let intervalStable = true;
    while (Date.now() < intervalEnd) {
      await sleep(Math.min(QUIET_AFTER_EFFECT_MS, Math.max(0, intervalEnd - Date.now())));
      if (watch.navigated()) {
        if (Date.now() - observingSince >= OBSERVATION_INTERVAL_MS) break observing;
        continue;
      }
      const stepStable = await observe();
      if (!stepStable) intervalStable = false;
      if (stepStable && !pageAnimating && progressed() && networkQuietFor(tabId, QUIET_AFTER_EFFECT_MS)) {
        break observing;
      }
    }
    if (intervalStable) stableIntervals += 1;
  }

  /** @type {string} */
  let method = inputMethod;
  let trustedFallbackUsed = false;
  let clickReachedListeners = false;
  if (inputMethod === "synthetic" && !progressed() && !watch.sawSideEffects()) {
    // Telemetry and reads are not the click's effect, but they show that a handler ran (or that
    // the page is still answering the click): a trusted click would run it a second time.
    const refusal = watch.sawPageTraffic()
      ? "the page sent requests after the click, so a handler ran or the page is still reacting"
      : trustedFallbackRefusal(fallback, frameId, stableIntervals, quietSinceClick);
    // One last look up to the moment of the trusted click: a page that reacted late (a request
    // answered, a status line written after the two intervals) heard the synthetic click, and a
    // second one would act twice (docs/protocol/tools.md, "Action results").
    const cancelled = "the call was already answered (outcome_unknown), so nothing more may act";
    const lastLook =
      signal?.aborted === true ? cancelled : refusal === null ? await lastLookBeforeTrustedClick() : refusal;
    // The last look takes a moment: the answer may have been given meanwhile.
    if (lastLook === null && signal?.aborted === true) hints.push(`no trusted fallback: ${cancelled}`);
    if (lastLook === null && signal?.aborted !== true) {
      const point = { x: lastRect.x + lastRect.width / 2, y: lastRect.y + lastRect.height / 2 };
      // The frame marks the target and says where the page stood; the debugger, once attached,
      // checks that the click still lands on it (trusted-click-check.js).
      const marked = await callFrame(tabId, frameId, messages.contentToolRequest("mark_trusted_target", { token }), {
        deadline: Date.now() + ACTION_TIMEOUT_MS,
        frameLabel: `frame ${frameId}`,
      });
      const trusted = await dispatchTrustedClick(tabId, point, (send) =>
        checkTrustedClick(send, /** @type {any} */ (marked), point),
      ).finally(() =>
        callFrame(tabId, frameId, messages.contentToolRequest("unmark_trusted_target", { marker: marked.marker }), {
          deadline: Date.now() + 2_000,
          frameLabel: `frame ${frameId}`,
        }).catch(() => null),
      );
      if (trusted.outcome === "dialog") {
        watch.stop();
        throw dialogOpenFailure(trusted.dialog);
      }
      if (trusted.outcome === "aborted") {
        watch.stop();
        throw new ToolFailure(
          messages.toolError(
            "not_actionable",
            `the trusted click was not sent: ${trusted.reason}. The synthetic click before it was dispatched and showed no effect.`,
            {
              hint: "Read the page again (get_accessibility_tree) before acting: what is under the element's position is no longer what was clicked.",
            },
          ),
        );
      }
      if (trusted.outcome === "withheld") {
        // The synthetic click reached a listener of the page (or that could not be proven
        // otherwise): its effect may still come, and a trusted click would act a second time
        // (click-listeners.js).
        clickReachedListeners = true;
        hints.push(`no trusted fallback: ${trusted.reason}`);
      } else if (trusted.outcome === "clicked") {
        method = "trusted-fallback";
        trustedFallbackUsed = true;
        await sleep(OBSERVATION_INTERVAL_MS);
        if (!watch.navigated()) await observe();
      } else {
        hints.push(trusted.reason);
      }
    } else if (lastLook !== null) {
      hints.push(`no trusted fallback: ${lastLook}`);
    }
  }
  await settleNavigation(watch, hints);
  const result = await actionResult(target, watch, "click", {
    evidence,
    hints,
    trustedFallbackUsed,
    clickReachedListeners,
    tabId,
  });
  return { method, ...result };
}

/**
 * The trusted click opened a user prompt, which now holds the page until someone answers it.
 * @param {OpenDialog} dialog
 */
function dialogOpenFailure(dialog) {
  const shown = dialog.message.length > 200 ? `${dialog.message.slice(0, 200)}…` : dialog.message;
  return new ToolFailure(
    messages.toolError("dialog_open", `the click opened a ${dialog.type} dialog: ${JSON.stringify(shown)}`, {
      hint: "The page waits for an answer to the dialog: ask the user to answer it, then read the page again; do not click again. When allwright launched the browser, use handle_dialog.",
      dialog,
    }),
  );
}

/**
 * Why the protected trusted click may not run, or null when it may.
 * @param {{eligible: boolean, reason?: string}|undefined} fallback the page side's verdict on the target
 * @param {number} frameId
 * @param {number} stableIntervals how many checks in a row found the page and the target unchanged
 * @param {boolean} quietSinceClick whether nothing changed on the page since the synthetic click
 */
function trustedFallbackRefusal(fallback, frameId, stableIntervals, quietSinceClick) {
  if (BROWSER !== "chrome") return "Firefox stays synthetic";
  if (fallback?.eligible !== true) return fallback?.reason ?? "the target is not a safe generic target";
  if (frameId !== 0) return "the target is inside a frame";
  if (stableIntervals < 2) return "the page or the target kept changing";
  if (!quietSinceClick) return "the page changed after the click (a mutation, the focus or a value), so it heard it";
  return null;
}

// ---- The other actions -------------------------------------------------------------------------

/**
 * The agent's tool behind each content tool of pageAction: the name a download record gives.
 * @type {Readonly<Partial<Record<ContentActionTool, string>>>}
 */
const AGENT_TOOL_OF_CONTENT_TOOL = Object.freeze({
  type_text: "type_ax",
  fill_field: "set_field",
  select_option: "select_option",
  hover_element: "hover",
  press_key: "press_key",
  scroll: "scroll",
  attach_files: "upload_file",
});

/**
 * Builds a tool that runs one content-side action and reports it.
 * @param {ContentActionTool} contentTool
 * @param {string} action the verb for hints ("typing", "key press", ...)
 * @param {(args: Record<string, unknown>) => Record<string, unknown>} contentArguments
 */
function pageAction(contentTool, action, contentArguments) {
  /** @param {{tabId?: number, frameId?: number, ref_id?: string} & Record<string, unknown>} args validated (validate.js) */
  return async (args) => {
    const { tabId, frameId } = await actionTarget(args, contentTool);
    const watch = watchTab(tabId, frameId, AGENT_TOOL_OF_CONTENT_TOOL[contentTool] ?? contentTool);
    /** @type {string[]} */
    const hints = [];
    let report;
    try {
      report = await callFrameThroughNavigation(tabId, frameId, contentTool, contentArguments(args), watch);
      await sleep(SETTLE_MS);
      await settleNavigation(watch, hints);
    } catch (failure) {
      watch.stop();
      throw failure;
    }
    return actionResult(report, watch, action, { hints, tabId });
  };
}

/**
 * Whether the tab has no short request in flight and none started or finished in the last `ms`
 * (activity.js; long-lived requests and WebSockets do not count, as for wait_for_stable).
 * @param {number} tabId
 * @param {number} ms
 */
function networkQuietFor(tabId, ms) {
  const network = networkState(tabId);
  return network.pending.length === 0 && Date.now() - network.lastActivityAt >= ms;
}

/**
 * A tool's arguments minus the frame they target, which the content side does not take.
 * @param {Record<string, unknown>} args
 */
const withoutTarget = ({ tabId: _tabId, frameId: _frameId, ...rest }) => rest;

export const typeAx = pageAction("type_text", "typing", withoutTarget);
export const setField = pageAction("fill_field", "field update", withoutTarget);
export const selectOption = pageAction("select_option", "selection", withoutTarget);
const hoverWithSyntheticEvents = pageAction("hover_element", "hover", withoutTarget);

/**
 * hover: synthetic pointer and mouse events (content/actions/hover.js). When nothing showed and
 * the page styles the target with `:hover` rules, which synthetic events cannot apply, the hint
 * says why instead of suggesting that the page ignored the hover (docs/protocol/tools.md, "Action
 * results").
 * @param {ToolArguments<"hover">} args
 */
export async function hover(args) {
  const result = await hoverWithSyntheticEvents(args);
  if (result.cssHover === "not_applied" && result.progress !== "observed") {
    result.hint =
      "No observable effect: the page opens this element on CSS :hover, which synthetic events cannot apply in your own browser. Try click_ax on it (many hover menus also open on click), or ask the user to point at it; a browser allwright launched hovers with the real pointer.";
  }
  return result;
}

/**
 * drag: the frame's synthetic drag (content/actions/drag.js), with both refs checked against the
 * frame that printed them (ref_in_other_frame), then the outcome of an action.
 * @param {ToolArguments<"drag">} args
 */
export async function drag(args) {
  const { tabId, frameId } = await actionTarget({ ...args, ref_id: args.from_ref }, "drag_element");
  if (typeof args.to_ref === "string") await refuseRefOfOtherFrame(tabId, frameId, args.to_ref, "drag_element");
  const contentArguments = withoutTarget({ tabId: args.tabId, frameId: args.frameId, ...args });
  const watch = watchTab(tabId, frameId, "drag");
  /** @type {string[]} */
  const hints = [];
  let report;
  try {
    report = await callFrameThroughNavigation(tabId, frameId, "drag_element", contentArguments, watch);
    await sleep(SETTLE_MS);
    await settleNavigation(watch, hints);
  } catch (failure) {
    watch.stop();
    throw failure;
  }
  return actionResult(report, watch, "drag", { hints, tabId });
}

export const pressKey = pageAction("press_key", "key press", withoutTarget);

/**
 * upload_file's extension route (bridge.js, bridge_attach_files): the frame builds the `File`s
 * from the bytes the MCP server read and hands them to the input, or drops them on a drop zone
 * (content/actions/upload.js). Its outcome follows the other actions' rules: a request the page
 * sends with the files forbids a retry.
 */
const attachFilesInFrame = pageAction("attach_files", "upload", withoutTarget);

/** not_a_file_target's hint, as content/actions/upload.js gives it (the frame's own refusal). */
const NOT_A_FILE_TARGET_HINT =
  "Pass the file input, its label, the button that opens the file dialog, or the drop zone itself (read the tree: they are often named Upload, Browse, Choose file or Drop files here). A page that opens its file dialog only for a real click (it ignores untrusted clicks), with showPicker(), or from an input it never put in the document cannot be reached by the extension alone: ask the person to choose the file, or use a browser allwright launched with --input trusted, where upload_file clicks for real and takes the browser's file dialog.";

/**
 * upload_file's extension route (bridge.js, bridge_attach_files): `{tabId?, frameId?, ref_id,
 * files: [{name, type, size, lastModified, data}]}`.
 * @param {{tabId?: number, frameId?: number, ref_id: string, noClick?: boolean, files: {name: string, type: string, size: number, lastModified: number, data: string}[]}} args
 */
export async function attachFiles(args) {
  if (BROWSER !== "firefox") return attachFilesInFrame(args);
  // Firefox hides a content script's DataTransfer items from the page (page-drop.js): the frame
  // finds what takes the files first, and a drop zone gets its drop from the page's own world.
  const { tabId, frameId } = await actionTarget(args, "attach_files");
  const watch = watchTab(tabId, frameId, "upload_file");
  /** @type {string[]} */
  const hints = [];
  let report;
  try {
    const facts = args.files.map(({ name, type, size }) => ({ name, type, size }));
    const begun = await callFrameThroughNavigation(
      tabId,
      frameId,
      "begin_external_input",
      { ref_id: args.ref_id, kind: "upload", files: facts, noClick: args.noClick === true },
      watch,
    );
    if (begun === null) {
      report = null;
    } else if (begun.target !== "drop") {
      await callFrame(tabId, frameId, messages.contentToolRequest("abort_external_input", { token: begun.token }), {
        deadline: Date.now() + 2_000,
        frameLabel: `frame ${frameId}`,
      });
      // The frame remembers what the discovery click found: nothing is clicked twice.
      report = await callFrameThroughNavigation(
        tabId,
        frameId,
        "attach_files",
        withoutTarget({ tabId: undefined, frameId: undefined, ...args }),
        watch,
      );
    } else {
      const dropped = await dropInPageWorld(tabId, frameId, begun.marker, args.files);
      report = await callFrameThroughNavigation(tabId, frameId, "finish_external_input", { token: begun.token }, watch);
      if (!dropped.dropped) {
        fail(
          "not_a_file_target",
          `${args.ref_id} takes no files: it is no file input, no label of one, its click opens no file input, and it does not accept a drop of files`,
          { hint: NOT_A_FILE_TARGET_HINT },
        );
      }
    }
    await sleep(SETTLE_MS);
    await settleNavigation(watch, hints);
  } catch (failure) {
    watch.stop();
    throw failure;
  }
  return actionResult(report, watch, "upload", { hints, tabId });
}
export const scroll = pageAction("scroll", "scroll", withoutTarget);

// ---- fill_form ---------------------------------------------------------------------------------

/**
 * fill_form: after a field that started requests (a country that loads its regions), the next
 * field waits until the tab's short requests are done, at most this long.
 */
const BETWEEN_FIELDS_MAX_WAIT_MS = 2_000;

/**
 * `fill_form({fields: [{ref_id, value}]})` (docs/protocol/tools.md, "Action results"): the fields one
 * by one, in order, each by the frame's fill_form_field (content/actions/form-fill.js, which
 * fills it as set_field, select_option or a single click would, with their refusals), each ref
 * checked first against the frame that printed it (ref_in_other_frame). The first field that
 * fails stops the call, and so does a navigation; no field is tried twice. The tab is watched
 * once for the whole form, and the result is one action's: its outcome, the tree lines that
 * changed, and which fields were filled, which failed and which were not attempted
 * (form-fill-outcome.js).
 * @param {ToolArguments<"fill_form">} args
 * @param {{signal?: AbortSignal}} [options]
 */
export async function fillForm({ fields, frameId = 0, tabId: givenTabId }, { signal } = {}) {
  const tab = await resolveTab(givenTabId);
  if (frameId !== 0) await requireFrame(tab.id, frameId);
  const tabId = tab.id;
  const watch = watchTab(tabId, frameId, "fill_form");
  const deadline = Date.now() + FORM_FILL_FIELDS_MS;
  /** @type {string[]} */
  const filled = [];
  /** @type {Record<string, any>[]} */
  const reports = [];
  /** @type {({ref_id: string} & ToolError)|null} */
  let failed = null;
  /** @type {import("./form-fill-outcome.js").FormFillStop|null} */
  let stop = null;
  /** @type {string[]} */
  const hints = [];
  try {
    for (const [index, { ref_id: ref, value }] of fields.entries()) {
      if (signal?.aborted === true) stop = "answered";
      else if (watch.navigationStarted()) stop = "navigation";
      else if (Date.now() > deadline - ACTION_TIMEOUT_MS) stop = "time";
      if (stop !== null) break;
      let report;
      try {
        await refuseRefOfOtherFrame(tabId, frameId, ref, "fill_form_field");
        report = await callFrameThroughNavigation(tabId, frameId, "fill_form_field", { ref_id: ref, value }, watch);
      } catch (failure) {
        failed = { ref_id: ref, ...asToolError(failure) };
        break;
      }
      filled.push(ref);
      if (report === null) {
        // The field's own action navigated the frame (a select that submits its form).
        reports.push({ ref_id: ref, action: "unknown", hints: ["the page navigated before its script could report"] });
        stop = "navigation";
        break;
      }
      reports.push({ ref_id: ref, ...report });
      if (index + 1 < fields.length)
        await quietNetwork(tabId, Math.min(Date.now() + BETWEEN_FIELDS_MAX_WAIT_MS, deadline));
    }
    await sleep(SETTLE_MS);
    await settleNavigation(watch, hints);
  } catch (unexpected) {
    watch.stop();
    throw unexpected;
  }
  const summary = formFillSummary({
    refs: fields.map((field) => field.ref_id),
    filled,
    failed,
    stop,
    unchanged: reports.every((report) => report.action === "none"),
  });
  // A field's diagnostics, and its evidence that proves no progress (a list that closed), say
  // which field they are about.
  const fieldHints = reports.flatMap((report) =>
    [
      ...(report.hints ?? []),
      ...(report.evidence ?? []).filter((/** @type {string} */ item) => !isProgressEvidence(item)),
    ].map((hint) => `${report.ref_id}: ${hint}`),
  );
  const page = {
    evidence: mergeEvidence(...reports.map((report) => (report.evidence ?? []).filter(isProgressEvidence))),
    hints: fieldHints,
    fields: reports.map(({ evidence: _evidence, hints: _hints, ...report }) => report),
  };
  const result = await actionResult(page, watch, "form fill", { hints, tabId });
  const { success, hint, retryAllowed, ...fieldsPart } = summary;
  Object.assign(result, fieldsPart, { success });
  if (hint !== undefined) result.hint = hint;
  if (retryAllowed === false) result.retryAllowed = false;
  return result;
}

/**
 * Waits until the tab has no short request in flight and none started or ended for a moment
 * (networkQuietFor), or until `until`.
 * @param {number} tabId
 * @param {number} until
 */
async function quietNetwork(tabId, until) {
  while (Date.now() < until && !networkQuietFor(tabId, QUIET_AFTER_EFFECT_MS)) {
    await sleep(QUIET_AFTER_EFFECT_MS);
  }
}

// ---- wait_for_stable ---------------------------------------------------------------------------

/**
 * `wait_for_stable({quietMs, timeoutMs})`: waits until the tab has had no request in flight and
 * its top document no DOM mutation for quietMs, both at once, or until timeoutMs. Not reaching
 * stability is an answer (stable: false, with what kept it busy), not an error.
 * @param {ToolArguments<"wait_for_stable">} args
 */
export async function waitForStable({ tabId, quietMs, timeoutMs }) {
  const tab = await resolveTab(tabId);
  const started = Date.now();
  const deadline = started + timeoutMs;
  let mutations = 0;
  let reason = "network";
  while (Date.now() < deadline) {
    const network = networkState(tab.id);
    const networkQuietFor = Date.now() - network.lastActivityAt;
    if (network.pending.length > 0 || networkQuietFor < quietMs) {
      reason = "network";
      await sleep(Math.min(100, Math.max(0, deadline - Date.now())));
      continue;
    }
    const remaining = deadline - Date.now();
    if (remaining < quietMs) break;
    const activityBefore = network.lastActivityAt;
    const dom = await callFrame(
      tab.id,
      0,
      messages.contentToolRequest("dom_quiet", { quietMs, timeoutMs: remaining }),
      {
        deadline: deadline + 1_000,
        frameLabel: "the top frame",
      },
    ).catch((failure) => {
      // A navigation replaced the document: the page is not stable yet; look again.
      if (failure instanceof ToolFailure && ["frame_detached", "script_failed"].includes(failure.error.code))
        return null;
      throw failure;
    });
    if (dom === null) {
      reason = "navigation";
      await sleep(100);
      continue;
    }
    mutations += dom.mutations ?? 0;
    if (
      dom.quiet &&
      networkState(tab.id).lastActivityAt === activityBefore &&
      networkState(tab.id).pending.length === 0
    ) {
      return {
        stable: true,
        waitedMs: Date.now() - started,
        pendingRequests: 0,
        mutations,
        longLivedRequests: network.longLived.length,
      };
    }
    reason = dom.quiet ? "network" : "dom";
  }
  const network = networkState(tab.id);
  return {
    stable: false,
    waitedMs: Date.now() - started,
    pendingRequests: network.pending.length,
    mutations,
    reason,
    hint:
      reason === "dom"
        ? "The page kept changing (an animation, a clock, a live feed?). Read it now; it may be as ready as it gets."
        : `Requests still running: ${
            network.pending
              .slice(0, 3)
              .map((request) => request.url)
              .join(", ") || "(just finished)"
          }. Read the page now or wait again.`,
  };
}

// ---- External input (the MCP server's BiDi pointer input) ------------------------------------

/** How long a begun external input waits for its finish before it is aborted. */
const EXTERNAL_INPUT_TIMEOUT_MS = 20_000;

/**
 * External inputs begun and not finished, by the content script's token.
 * @type {Map<string, {tabId: number, frameId: number, kind: "click"|"hover"|"locate"|"key"|"upload"|"drag",
 *   watch: ReturnType<typeof watchTab>, expiry: ReturnType<typeof setTimeout>}>}
 */
const externalInputs = new Map();

/**
 * The first half of a click_ax, hover or press_key whose input the MCP server sends over
 * WebDriver BiDi (docs/protocol/browser-bridge.md, "The browser bridge"): the tab is watched and the frame's
 * content script starts its observers and marks the target. Answers `{token, marker, tabId,
 * frameId}`.
 * A drag names its source by `from_ref`, its drop target by `to_ref` (or an offset, `by`).
 * @param {{tabId?: number, frameId?: number, ref_id?: string, kind: "click"|"hover"|"locate"|"key"|"upload"|"drag",
 *   key?: string, modifiers?: string[], files?: {name: string, type: string, size: number}[], from_ref?: string,
 *   to_ref?: string, by?: {x: number, y: number}, dialogRoute?: boolean}} args
 */
export async function beginExternalInput(args) {
  const { tabId, frameId } = await actionTarget(
    { tabId: args.tabId, frameId: args.frameId, ref_id: args.kind === "drag" ? args.from_ref : args.ref_id },
    /** @type {Record<string, string>} */ ({
      click: "click_element",
      hover: "hover_element",
      key: "press_key",
      upload: "attach_files",
      drag: "drag_element",
    })[args.kind] ?? args.kind,
  );
  if (args.kind === "drag" && typeof args.to_ref === "string") {
    await refuseRefOfOtherFrame(tabId, frameId, args.to_ref, "drag_element");
  }
  const watch = watchTab(
    tabId,
    frameId,
    /** @type {Record<string, string>} */ ({
      click: "click_ax",
      hover: "hover",
      key: "press_key",
      upload: "upload_file",
      drag: "drag",
    })[args.kind] ?? args.kind,
  );
  let begun;
  try {
    begun = await callFrame(
      tabId,
      frameId,
      messages.contentToolRequest(
        "begin_external_input",
        args.kind === "key"
          ? { ref_id: args.ref_id, kind: args.kind, key: args.key, modifiers: args.modifiers }
          : args.kind === "drag"
            ? { kind: args.kind, from_ref: args.from_ref, to_ref: args.to_ref, by: args.by }
            : args.kind === "upload"
              ? { ref_id: args.ref_id, kind: args.kind, files: args.files, dialogRoute: args.dialogRoute === true }
              : { ref_id: args.ref_id, kind: args.kind },
      ),
      { deadline: Date.now() + ACTION_TIMEOUT_MS, frameLabel: `frame ${frameId}` },
    );
  } catch (failure) {
    watch.stop();
    throw failure;
  }
  const token = /** @type {string} */ (begun.token);
  const expiry = setTimeout(() => void abortExternalInput({ token }), EXTERNAL_INPUT_TIMEOUT_MS);
  externalInputs.set(token, { tabId, frameId, kind: args.kind, watch, expiry });
  /** @type {Record<string, unknown>} */
  const answer = { token, marker: begun.marker, tabId, frameId };
  // An upload's begin says what takes the files: an input (the marked element) or a drop zone.
  if (begun.target !== undefined) answer.target = begun.target;
  if (args.kind === "drag") answer.html5Source = begun.html5Source === true;
  return answer;
}

/**
 * The pending external input of `token`, forgotten; fails when there is none.
 * @param {string} token
 */
function takeExternalInput(token) {
  const pending = externalInputs.get(token);
  if (pending === undefined) {
    fail("invalid_arguments", `no external input is pending under ${token}`, {
      hint: "Begin the input again: it was finished, aborted or timed out.",
    });
  }
  externalInputs.delete(token);
  clearTimeout(pending.expiry);
  return pending;
}

/**
 * The second half, once the server has sent the pointer input: the page's report and the same
 * outcome rules as the synthetic action, with `method: "bidi"`.
 * @param {{token: string}} args
 */
export async function finishExternalInput({ token }) {
  const { tabId, frameId, kind, watch } = takeExternalInput(token);
  let report;
  try {
    report = await callFrameThroughNavigation(tabId, frameId, "finish_external_input", { token }, watch);
  } catch (failure) {
    // The input navigated the frame: the new document's script knows no such input, and the
    // navigation is the outcome.
    if (watch.navigated()) {
      report = null;
    } else {
      watch.stop();
      throw failure;
    }
  }
  if (kind === "click") return arbitrateClick({ tabId, frameId, watch, report, inputMethod: "bidi" });
  /** @type {string[]} */
  const hints = [];
  await sleep(SETTLE_MS);
  await settleNavigation(watch, hints);
  const action =
    /** @type {Record<string, string>} */ ({ key: "key press", upload: "upload", drag: "drag" })[kind] ?? "hover";
  const result = await actionResult(report, watch, action, { hints, tabId });
  return { method: "bidi", ...result };
}

/**
 * Between a drag's real press and its release (Firefox, src/browser_bridge/input.rs): the frame
 * says whether the press made an HTML5 drag source, and sends its drag and drop events if so
 * (content/actions/drag.js, continueAfterRealPress). `{html5}`; the input stays pending.
 * @param {{token: string}} args
 */
export async function continueExternalDrag({ token }) {
  const pending = externalInputs.get(token);
  if (pending === undefined || pending.kind !== "drag") {
    fail("invalid_arguments", `no drag is pending under ${token}`, {
      hint: "Begin the input again: it was finished, aborted or timed out.",
    });
  }
  return callFrame(pending.tabId, pending.frameId, messages.contentToolRequest("continue_external_drag", { token }), {
    deadline: Date.now() + ACTION_TIMEOUT_MS,
    frameLabel: `frame ${pending.frameId}`,
  });
}

/**
 * Ends an external input that will not be sent (the server could not find the marked element,
 * the hit test refused it, a dialog opened): the marker is removed and the tab no longer watched.
 * @param {{token: string}} args
 */
export async function abortExternalInput({ token }) {
  const pending = externalInputs.get(token);
  if (pending === undefined) return { aborted: false };
  externalInputs.delete(token);
  clearTimeout(pending.expiry);
  pending.watch.stop();
  await callFrame(pending.tabId, pending.frameId, messages.contentToolRequest("abort_external_input", { token }), {
    deadline: Date.now() + 2_000,
    frameLabel: `frame ${pending.frameId}`,
  }).catch(() => null);
  return { aborted: true };
}
