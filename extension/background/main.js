// The background's entry point: Chrome's service worker and Firefox's background script.
//
// Every event listener is registered here, synchronously, in the first turn of this module:
// MV3 wakes a stopped worker only for events whose listeners exist in that turn. The modules
// behind the listeners keep no state a tool result depends on across a restart; what must
// survive lives in storage.session (csp-records.js).

import { api, BROWSER, messages, NATIVE_HOST_NAME } from "./platform.js";
import { createNativeConnection } from "./native.js";
import { runTool } from "./tools.js";
import { onNavigationEvent } from "./navigation.js";
import { loadCore } from "./load-core.js";
import { policyHeaders } from "./csp.js";
import { forgetTab, recordCommit, recordHeaders } from "./csp-records.js";

const connection = createNativeConnection({ hostName: NATIVE_HOST_NAME, browser: BROWSER, runTool });

// Installing, updating and starting the browser all start the worker; connecting is idempotent.
api.runtime.onInstalled.addListener(() => connection.ensureConnected());
api.runtime.onStartup.addListener(() => connection.ensureConnected());

// Content scripts ask for their core through runtime messages. Returning true keeps the reply
// channel open for the asynchronous answer (Chrome does not take a returned promise).
api.runtime.onMessage.addListener((message, sender, sendResponse) => {
  if (!messages.isLoadCoreRequest(message)) return false;
  loadCore(message, sender).then(sendResponse);
  return true;
});

// Navigation events: the waiting `navigate` calls, and the CSP record of each committed document.
api.webNavigation.onBeforeNavigate.addListener((d) => onNavigationEvent("beforeNavigate", d));
api.webNavigation.onCommitted.addListener((details) => {
  onNavigationEvent("committed", details);
  if (BROWSER === "chrome") recordCommit(details.tabId, details.frameId, details.url);
});
api.webNavigation.onCompleted.addListener((d) => onNavigationEvent("completed", d));
api.webNavigation.onErrorOccurred.addListener((d) => onNavigationEvent("errorOccurred", d));
api.webNavigation.onReferenceFragmentUpdated.addListener((d) => onNavigationEvent("sameDocument", d));
api.tabs.onRemoved.addListener((tabId) => {
  onNavigationEvent("tabRemoved", { tabId });
  if (BROWSER === "chrome") forgetTab(tabId);
});

// Chrome compiles WebAssembly in content scripts under the page's policy, so the background
// keeps each document's policy headers (csp-records.js). Observing headers needs no blocking
// and no "extraHeaders": CSP headers are not among the ones Chrome hides without it.
if (BROWSER === "chrome") {
  api.webRequest.onHeadersReceived.addListener(
    (details) => {
      recordHeaders(details.tabId, details.frameId, details.url, policyHeaders(details.responseHeaders));
    },
    { urls: ["<all_urls>"], types: ["main_frame", "sub_frame"] },
    ["responseHeaders"],
  );
}

connection.ensureConnected();
