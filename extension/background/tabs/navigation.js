// @ts-check
// The tools that bring a tab another document and wait until it has loaded: `navigate` (a URL),
// `go_back` and `go_forward` (a step through the tab's history) and `reload` (the same page again).
//
// The webNavigation listeners are registered once, at the top level of main.js (MV3 wakes a
// worker only for listeners registered in its first turn); they forward events here, where the
// navigations in flight wait. Waiters live only in memory, on purpose: a waiter belongs to a
// call in flight, and a call in flight dies with the worker (the host then fails it).

import { api, fail, messages, ToolFailure } from "../platform.js";
import {
  LAST_PROBE_BUDGET_MS,
  pageBlockedFailure,
  probe,
  PROBE_AFTER_MS,
  PROBE_BUDGET_MS,
  resolveTab,
} from "../frames/frames.js";
import { ABORT_GRACE_MS, DEFAULT_NAVIGATION_TIMEOUT_MS } from "../host/budgets.js";
import { refuseLocalFile } from "../tools/local-files.js";
import { watchTab } from "../actions/activity.js";
import { thrownMessage } from "../../shared/thrown.js";

/**
 * One navigation waiting for its load.
 * @typedef {{tabId: number, startedUrl: string|null, landedUrl: string|null, url: string|null,
 *   committed: boolean,
 *   abortTimer: ReturnType<typeof setTimeout>|null, settle: (error?: ToolFailure) => void}} Waiter
 */

/** The URL of a tab's first, empty document (HTML, "initial about:blank"); new_tab opens it. */
const INITIAL_BLANK = "about:blank";

// ABORT_GRACE_MS (budgets.js): how long an aborted load may be followed by its continuation.

/** Browsers' texts for an aborted load: Chrome's, and Firefox's by name or by number. */
const ABORTED = /ERR_ABORTED|NS_BINDING_ABORTED|2152398850/;

/** @type {Set<Waiter>} */
const waiters = new Set();

/**
 * Feeds one webNavigation or tabs event to the waiting navigations.
 * @param {"beforeNavigate"|"committed"|"completed"|"errorOccurred"|"sameDocument"|"tabRemoved"} kind
 * @param {{tabId: number, frameId?: number, url?: string, error?: string}} details
 */
export function onNavigationEvent(kind, details) {
  for (const waiter of [...waiters]) {
    if (waiter.tabId !== details.tabId) continue;
    if (kind === "tabRemoved") {
      waiter.settle(
        new ToolFailure(messages.toolError("navigation_failed", "the tab was closed during the navigation")),
      );
      continue;
    }
    if (details.frameId !== 0) continue;
    // A navigation to a page is never ended by an empty document's events: new_tab opens its tab
    // on about:blank, and that load's events may reach the service worker after the tab's
    // navigation to the agent's URL has begun (a loaded CI machine: new_tab answered on
    // about:blank, and the agent's next read found a page no extension may script).
    if (waiter.url !== null && !waiter.url.startsWith(INITIAL_BLANK) && details.url === INITIAL_BLANK) continue;
    if (kind !== "errorOccurred" && waiter.abortTimer !== null) {
      clearTimeout(waiter.abortTimer);
      waiter.abortTimer = null;
    }
    switch (kind) {
      case "beforeNavigate":
      case "committed":
        // Events of a navigation that was already running when ours started come before our
        // own start; from here on, events are ours.
        waiter.startedUrl ??= details.url ?? "";
        if (kind === "committed") waiter.committed = true;
        break;
      case "completed":
        if (waiter.startedUrl === null) break;
        // A new document completes only after it committed. A completion with no commit
        // before it belongs to the document the tab already showed: Firefox reported one while
        // a navigation to a download was under way, and on a loaded machine it came before
        // the download did (navigate answered the old page, and named no download).
        if (waiter.url !== null && !waiter.committed) break;
        waiter.landedUrl = details.url ?? null;
        waiter.settle();
        break;
      case "sameDocument":
        // A URL that differs only in its fragment loads nothing: the browser reports a
        // same-document navigation and no completion.
        waiter.landedUrl = details.url ?? null;
        waiter.settle();
        break;
      case "errorOccurred": {
        if (waiter.startedUrl === null) break;
        const failure = new ToolFailure(
          messages.toolError("navigation_failed", `loading ${details.url} failed: ${details.error}`, {
            hint: "Check the URL; the site may be down, or the address may not exist.",
          }),
        );
        // An abort fails the call only if nothing continues the load (see ABORT_GRACE_MS).
        if (ABORTED.test(details.error ?? "")) {
          clearTimeout(waiter.abortTimer ?? undefined);
          waiter.abortTimer = setTimeout(() => waiter.settle(failure), ABORT_GRACE_MS);
        } else {
          waiter.settle(failure);
        }
        break;
      }
    }
  }
}

/**
 * The `navigate` tool.
 * @param {ToolArguments<"navigate">} args validated arguments
 * @returns {Promise<{url: string, title: string}>}
 */
export function navigate(args) {
  return openInTab(args, "navigate");
}

/**
 * The one way navigate, new_tab and promote_iframe open a URL in a tab and wait for its load. A
 * local file is refused here unless the session allows it (local-files.js), whichever tool asked.
 * @param {{tabId?: number, url: string, timeoutMs?: number}} args validated arguments
 * @param {"navigate"|"new_tab"|"promote_iframe"} tool the tool that opens the URL
 * @returns {Promise<{url: string, title: string}>}
 */
export async function openInTab({ tabId, url, timeoutMs = DEFAULT_NAVIGATION_TIMEOUT_MS }, tool) {
  await refuseLocalFile(tool, url);
  const tab = await resolveTab(tabId);
  const loaded = waitForLoad(tab.id, timeoutMs, url);
  // The navigation's downloads are the agent's (activity.js records them; list_downloads).
  const watch = watchTab(tab.id, 0, tool);
  try {
    await api.tabs.update(tab.id, { url });
  } catch (error) {
    loaded.cancel();
    watch.stop();
    fail("navigation_failed", `the browser refused to open ${url}: ${thrownMessage(error)}`, {
      hint: url.startsWith("file:")
        ? 'Chrome needs "Allow access to file URLs" for this extension (chrome://extensions), and Firefox opens no file: URL for an extension; or serve the file over http.'
        : "Check the URL.",
    });
  }
  const watchdog = failWhenHeldBeforeStart(tab.id, loaded);
  // A URL that answers with a download (Content-Disposition: attachment, or a type the browser
  // does not show) loads nothing: the tab stays on its page, Chrome reports an aborted load and
  // Firefox may report nothing more. The download itself ends the wait.
  const downloaded = watch.downloadStarted((download) => download.url === url || download.originalUrl === url);
  let ended = "load";
  let observed;
  try {
    ended = await Promise.race([loaded.promise.then(() => "load"), downloaded.then(() => "download")]);
  } finally {
    watchdog.stop();
    observed = watch.stop();
    if (ended === "download") loaded.cancel();
  }
  const final = await api.tabs.get(tab.id);
  /** @type {{url: string, title: string, downloads?: Object[]}} */
  const result = { url: final.url ?? url, title: final.title ?? "" };
  if (observed.downloads !== undefined) result.downloads = observed.downloads;
  return result;
}

/**
 * A navigation that does not start may be held by the page: its `beforeunload` handler asked the
 * user whether to leave (HTML, "prompt to unload"), or a prompt it opened earlier still waits.
 * While the navigation has not started, the top frame is probed as calls into frames are
 * (frames.js); one that does not answer, or whose handlers hold an event, fails the wait with
 * `page_blocked`.
 * @param {number} tabId
 * @param {ReturnType<typeof waitForLoad>} loaded
 */
function failWhenHeldBeforeStart(tabId, loaded) {
  let watching = true;
  /** @type {ReturnType<typeof setTimeout>|undefined} */
  let timer;
  const check = async () => {
    if (!watching || loaded.started()) return;
    const state = await probe({ tabId, frameId: 0 }, PROBE_BUDGET_MS);
    if (!watching || loaded.started()) return;
    if (state === "alive") timer = setTimeout(check, PROBE_AFTER_MS);
    else loaded.fail(pageBlockedFailure("the tab's page", state));
  };
  timer = setTimeout(check, PROBE_AFTER_MS);
  return {
    stop() {
      watching = false;
      clearTimeout(timer);
    },
  };
}

/**
 * How long go_back and go_forward wait for the browser to start moving through the history
 * before they say there is no entry to move to.
 */
const HISTORY_MOVE_START_MS = 1_500;

/**
 * The two moves through a tab's session history: the step `history.go` takes, the browser's own
 * move for pages the extension may not script, and the words of the `no_history` error.
 * @type {Readonly<Record<"back"|"forward", {step: number, browserMove: (tabId: number) => Promise<void>, missingEntry: string}>>}
 */
const HISTORY_MOVES = Object.freeze({
  back: { step: -1, browserMove: (tabId) => api.tabs.goBack(tabId), missingEntry: "no previous page to go back to" },
  forward: {
    step: 1,
    browserMove: (tabId) => api.tabs.goForward(tabId),
    missingEntry: "no next page to go forward to",
  },
});

/**
 * The `go_back` tool: the tab's previous history entry, another document or the same one (an
 * SPA's pushState entry), waited for like navigate.
 * @param {ToolArguments<"go_back">} args validated arguments
 * @returns {Promise<{url: string, title: string, changed: boolean}>}
 */
export function goBack(args) {
  return moveThroughHistory(args, "back");
}

/**
 * The `go_forward` tool: the tab's next history entry (the one a go_back left), another document
 * or the same one, waited for like navigate.
 * @param {ToolArguments<"go_forward">} args validated arguments
 * @returns {Promise<{url: string, title: string, changed: boolean}>}
 */
export function goForward(args) {
  return moveThroughHistory(args, "forward");
}

/**
 * One step back or forward in a tab's session history, waited for like navigate: until the new
 * document's load, or the same-document move of a pushState entry.
 * @param {{tabId?: number, timeoutMs?: number}} args validated arguments
 * @param {"back"|"forward"} direction
 * @returns {Promise<{url: string, title: string, changed: boolean}>}
 */
async function moveThroughHistory({ tabId, timeoutMs = DEFAULT_NAVIGATION_TIMEOUT_MS }, direction) {
  const move = HISTORY_MOVES[direction];
  const tab = await resolveTab(tabId);
  const before = tab.url ?? "";
  const loaded = waitForLoad(tab.id, timeoutMs);
  const noHistory = () =>
    new ToolFailure(
      messages.toolError("no_history", `tab ${tab.id} has ${move.missingEntry}`, {
        hint: "Use navigate to open a URL instead.",
      }),
    );
  // The page's own history.go(-1 or 1), not tabs.goBack() or tabs.goForward(): Chrome's back
  // and forward buttons (and those two functions) skip entries that a page added without a user
  // gesture, such as an SPA route pushed after a synthetic click, and would leave the site
  // altogether. The script runs in the extension's isolated world, on the same session
  // history. Pages the extension may not script fall back to the browser's own move.
  try {
    await api.scripting.executeScript({
      target: { tabId: tab.id, frameIds: [0] },
      func: (step) => globalThis.history.go(step),
      args: [move.step],
    });
  } catch {
    try {
      await move.browserMove(tab.id);
    } catch {
      // Chrome refuses when the tab's history has no entry that way.
      loaded.cancel();
      throw noHistory();
    }
  }
  // history.go does nothing when there is no entry that way, and Firefox's tabs.goBack and
  // tabs.goForward accept a move past either end and do nothing: nothing starting is the
  // answer, unless the page holds the navigation (a beforeunload prompt): then it is
  // page_blocked.
  const startCheck = setTimeout(async () => {
    if (loaded.started()) return;
    const state = await probe({ tabId: tab.id, frameId: 0 }, LAST_PROBE_BUDGET_MS);
    if (loaded.started()) return;
    loaded.fail(state === "alive" ? noHistory() : pageBlockedFailure("the tab's page", state));
  }, HISTORY_MOVE_START_MS);
  try {
    await loaded.promise;
  } finally {
    clearTimeout(startCheck);
  }
  const final = await tabShowing(tab.id, loaded.landedUrl());
  return { url: final.url ?? "", title: final.title ?? "", changed: (final.url ?? "") !== before };
}

/**
 * The `reload` tool: the tab's page loaded again (with `ignoreCache`, every resource from the
 * network, as a hard reload), waited for like navigate. A reload has no start check of its own:
 * it always starts, unless the page holds it with a beforeunload prompt, which the same watchdog
 * as navigate's answers with page_blocked.
 * @param {ToolArguments<"reload">} args validated arguments
 * @returns {Promise<{url: string, title: string, changed: boolean}>}
 */
export async function reload({ tabId, ignoreCache = false, timeoutMs = DEFAULT_NAVIGATION_TIMEOUT_MS }) {
  const tab = await resolveTab(tabId);
  const before = tab.url ?? "";
  const loaded = waitForLoad(tab.id, timeoutMs);
  try {
    await api.tabs.reload(tab.id, { bypassCache: ignoreCache });
  } catch (error) {
    loaded.cancel();
    fail("navigation_failed", `the browser refused to reload tab ${tab.id}: ${thrownMessage(error)}`, {
      hint: "Use navigate to open the page's URL again.",
    });
  }
  const watchdog = failWhenHeldBeforeStart(tab.id, loaded);
  try {
    await loaded.promise;
  } finally {
    watchdog.stop();
  }
  const final = await tabShowing(tab.id, loaded.landedUrl());
  return { url: final.url ?? "", title: final.title ?? "", changed: (final.url ?? "") !== before };
}

/** How long a history move or reload waits for the tab to show the URL its navigation ended on. */
const TAB_URL_LAG_MS = 1_000;

/**
 * The tab once it shows `landedUrl`, or after TAB_URL_LAG_MS as it is then. Firefox may report a
 * same-document move (webNavigation) before the tab's own URL and title follow it (tabs.get):
 * the two reach the parent process by different messages.
 * @param {number} tabId
 * @param {string|null} landedUrl
 */
async function tabShowing(tabId, landedUrl) {
  const deadline = Date.now() + TAB_URL_LAG_MS;
  let tab = await api.tabs.get(tabId);
  while (landedUrl !== null && tab.url !== landedUrl && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    tab = await api.tabs.get(tabId);
  }
  return tab;
}

/**
 * @param {number} tabId
 * @param {number} timeoutMs
 * @param {string|null} [url] the URL a navigation opens (navigate, new_tab): its load ends only
 *   after a commit of its own, and never on about:blank unless that is the URL. A history move or
 *   a reload has none: it may restore a document from the back/forward cache, which browsers
 *   report differently, or land on about:blank.
 */
function waitForLoad(tabId, timeoutMs, url = null) {
  /** @type {ReturnType<typeof setTimeout>|undefined} */
  let timer;
  /** @type {Waiter} */
  const waiter = {
    tabId,
    startedUrl: null,
    landedUrl: null,
    url,
    committed: false,
    abortTimer: null,
    settle: () => {},
  };
  /** @type {Promise<void>} */
  const promise = new Promise((resolve, reject) => {
    waiter.settle = (error) => {
      waiters.delete(waiter);
      clearTimeout(timer);
      clearTimeout(waiter.abortTimer ?? undefined);
      if (error === undefined) resolve();
      else reject(error);
    };
  });
  waiters.add(waiter);
  timer = setTimeout(
    () =>
      waiter.settle(
        new ToolFailure(
          messages.toolError("timeout", `the page did not finish loading within ${timeoutMs / 1000} s`, {
            hint: "The page may still be usable: read it with get_accessibility_tree, or navigate again with a larger timeoutMs.",
          }),
        ),
      ),
    timeoutMs,
  );
  return {
    promise,
    /** The URL the browser reported the load (or the same-document move) ended on, once it has. */
    landedUrl: () => waiter.landedUrl,
    /** Whether the browser reported any navigation (or a same-document move) yet. */
    started: () => waiter.startedUrl !== null || !waiters.has(waiter),
    fail: (/** @type {ToolFailure} */ error) => waiter.settle(error),
    cancel: () => {
      waiters.delete(waiter);
      clearTimeout(timer);
      clearTimeout(waiter.abortTimer ?? undefined);
    },
  };
}
