// @ts-check
// The background's entry point: Chrome's service worker and Firefox's background script.
//
// Every event listener is registered here, synchronously, in the first turn of this module:
// MV3 wakes a stopped worker only for events whose listeners exist in that turn. The modules
// behind the listeners keep no state a tool result depends on across a restart; what must
// survive lives in storage.session (csp-records.js, read-coverage-store.js, ref-issue-store.js).

import { api, BROWSER, messages, NATIVE_HOST_NAME } from "./platform.js";
import { createNativeConnection } from "./host/native.js";
import { runTool } from "./tools/tools.js";
import { onNavigationEvent } from "./tabs/navigation.js";
import { loadCore } from "./core/load-core.js";
import { prepareWorkerCoreForSession, runWorkerCore } from "./core/worker-core.js";
import { noteReadFinished, noteReadStarted } from "./reads/reads-in-progress.js";
import { policyHeaders } from "./core/csp.js";
import { forgetTab, recordCommit, recordHeaders } from "./core/csp-records.js";
import { forgetAgentTab } from "./tabs/agent-tabs.js";
import { forgetTabOfFrameList, noteCommitForFrameList } from "./frames/frame-list.js";
import {
  forgetTabActivity,
  onDownloadStarted,
  onFrameNavigation,
  onTabOpened,
  setAgentDownloadRecorder,
} from "./actions/activity.js";
import { recordAgentDownload } from "./records/agent-downloads.js";
import { isAgentTabNow } from "./tabs/agent-tabs.js";
import { recordConsoleEntries } from "./records/console-records.js";
import { hookConsoleOnCommit, setConsoleRecordedByBridge } from "./records/console-hooks.js";
import { forgetReadCoverage } from "./reads/read-coverage-store.js";
import { forgetTab as forgetRefIssues } from "./frames/ref-issue-store.js";
import { setActiveAccess, setActiveClient } from "./tools/tool-access.js";
import { setFileUrlsAllowed } from "./tools/local-files.js";
import { servePanels } from "./side-panel/panel-port.js";
import { keepHostReachable } from "./host/keep-alive.js";

/** @type {{connectionChanged: () => Promise<void>}|null} */
let panels = null;
const connection = createNativeConnection({
  hostName: NATIVE_HOST_NAME,
  browser: BROWSER,
  runTool,
  // A session's --tier and --dev become the active access (background/tools/tool-access.js).
  onSession: (session) => {
    if (session === null) {
      setActiveClient(null);
      setFileUrlsAllowed(null);
      setConsoleRecordedByBridge(false);
      return;
    }
    setFileUrlsAllowed(session.allowFileUrls === true);
    setConsoleRecordedByBridge(session.browserBridge === true);
    setActiveAccess(session.access, "session").then(() => setActiveClient(session.client ?? null));
    // An agent is here: the service worker's core compiles now, not at its first read.
    prepareWorkerCoreForSession();
  },
  onConnectionChange: () => panels?.connectionChanged(),
});
// The side panel's port (background/side-panel/panel-port.js); its onConnect listener is registered here.
panels = servePanels(connection);
// Chrome opens the side panel when the toolbar button is clicked; Firefox's sidebar has its own
// button and menu (manifest/firefox.json, sidebar_action).
api.sidePanel?.setPanelBehavior({ openPanelOnActionClick: true }).catch((error) => {
  console.warn(`allwright: cannot open the side panel from the toolbar button: ${error.message}`);
});

// A stopped worker (or suspended event page) wakes on this alarm and connects its host again, so
// that an agent's call finds one without waiting for a browser event (keep-alive.js).
keepHostReachable(() => connection.ensureConnected());

// Installing, updating and starting the browser all start the worker; connecting is idempotent.
api.runtime.onInstalled.addListener(() => connection.ensureConnected());
api.runtime.onStartup.addListener(() => connection.ensureConnected());

// Content scripts ask for their core through runtime messages. Returning true keeps the reply
// channel open for the asynchronous answer (Chrome does not take a returned promise).
api.runtime.onMessage.addListener((message, sender, sendResponse) => {
  // What the console hook saw in a page of a tab an agent uses (console-records.js).
  if (messages.isConsoleEntriesNotice(message)) {
    if (sender.tab?.id !== undefined && isAgentTabNow(sender.tab.id)) {
      recordConsoleEntries(sender.tab.id, sender.frameId ?? 0, message.entries);
    }
    return false;
  }
  if (messages.isReadStartedNotice(message) || messages.isReadFinishedNotice(message)) {
    const note = messages.isReadStartedNotice(message) ? noteReadStarted : noteReadFinished;
    if (sender.tab?.id !== undefined && sender.frameId !== undefined) note(sender.tab.id, sender.frameId);
    return false;
  }
  // Core calls of frames whose core runs here (worker-core.js, Chromium's strict-CSP pages).
  if (messages.isCoreCallRequest(message)) {
    runWorkerCore(message, sender).then(sendResponse);
    return true;
  }
  if (!messages.isLoadCoreRequest(message)) return false;
  loadCore(message, sender).then(sendResponse);
  return true;
});

// Navigation events: the waiting `navigate`, `go_back`, `go_forward` and `reload` calls, the
// actions watching their tab (activity.js), and the CSP record of each committed document.
/** @param {Parameters<typeof onNavigationEvent>[0]} kind */
const navigationEvent = (kind) => (/** @type {Parameters<typeof onNavigationEvent>[1]} */ details) => {
  onNavigationEvent(kind, details);
  onFrameNavigation(kind, details);
  // A new document, or another route of the same one, holds other pages than those read.
  if (kind === "committed" || kind === "sameDocument") forgetReadCoverage(details.tabId, details.frameId);
};
api.webNavigation.onBeforeNavigate.addListener(navigationEvent("beforeNavigate"));
api.webNavigation.onCommitted.addListener((details) => {
  navigationEvent("committed")(details);
  hookConsoleOnCommit(details);
  if (BROWSER === "chrome") {
    recordCommit(details.tabId, details.frameId, details.url);
    noteCommitForFrameList(details);
  }
});
api.webNavigation.onCompleted.addListener(navigationEvent("completed"));
api.webNavigation.onErrorOccurred.addListener(navigationEvent("errorOccurred"));
// A fragment change and a history.pushState/replaceState/back within one document load nothing.
api.webNavigation.onReferenceFragmentUpdated.addListener(navigationEvent("sameDocument"));
api.webNavigation.onHistoryStateUpdated.addListener(navigationEvent("sameDocument"));
api.tabs.onRemoved.addListener((tabId) => {
  navigationEvent("tabRemoved")({ tabId });
  forgetTabActivity(tabId);
  forgetReadCoverage(tabId);
  if (BROWSER === "chrome") {
    forgetTab(tabId);
    forgetTabOfFrameList(tabId);
    void forgetAgentTab(tabId);
  }
  void forgetRefIssues(tabId);
});

// What a tab does while an action settles (activity.js): the tabs it opens and its downloads.
api.tabs.onCreated.addListener((tab) => {
  if (tab.openerTabId !== undefined && tab.id !== undefined)
    onTabOpened(tab.openerTabId, tab.id, tab.pendingUrl ?? tab.url ?? "");
});
api.webNavigation.onCreatedNavigationTarget.addListener((details) => {
  onTabOpened(details.sourceTabId, details.tabId, details.url ?? "");
});
// The downloads an action or navigation of the agent starts are the agent's (agent-downloads.js).
setAgentDownloadRecorder(recordAgentDownload);
api.downloads.onCreated.addListener((item) =>
  onDownloadStarted({
    id: item.id,
    url: item.finalUrl ?? item.url,
    originalUrl: item.url,
    filename: item.filename,
    referrer: item.referrer,
  }),
);
// Requests are observed only while an agent works: tools.js starts it on every tool call.

// Chrome compiles WebAssembly in content scripts under the page's policy, so the background
// keeps each document's policy headers (csp-records.js). Observing headers needs no blocking
// and no "extraHeaders": CSP headers are not among the ones Chrome hides without it.
if (BROWSER === "chrome") {
  api.webRequest.onHeadersReceived.addListener(
    (details) => {
      recordHeaders(details.tabId, details.frameId, details.url, policyHeaders(details.responseHeaders));
      // Observed only: no blocking response.
      return undefined;
    },
    { urls: ["<all_urls>"], types: ["main_frame", "sub_frame"] },
    ["responseHeaders"],
  );
}

connection.ensureConnected();
