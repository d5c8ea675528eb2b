// @ts-check
// Answers a content script's `allwright/load-core` request: picks the core build its frame may
// run without the page noticing (csp.js), injects it into exactly that frame, and says which.
// A Chromium frame whose CSP forbids WASM in its content script gets no injection: its core
// calls run in this service worker (worker-core.js), and only if the worker cannot run the core
// does it get the JS build (wasm2js), with the reason (docs/protocol/core.md, "The core in the
// service worker").

import { api, asToolError, BROWSER, messages } from "../platform.js";
import { chooseCore } from "./csp.js";
import { framePolicies } from "./csp-records.js";
import { prepareWorkerCore } from "./worker-core.js";

/** The two builds of the core that scripts/build-wasm writes into extension/generated/. */
export const CORE_FILES = Object.freeze({
  wasm: "generated/ax-core-wasm.js",
  js: "generated/ax-core-js.js",
});

/**
 * @param {LoadCoreRequest} request
 * @param {chrome.runtime.MessageSender} sender
 * @returns {Promise<LoadCoreReply>}
 */
export async function loadCore(request, sender) {
  try {
    const tabId = sender.tab?.id;
    const frameId = sender.frameId;
    if (tabId === undefined || frameId === undefined) {
      return { ok: false, error: messages.toolError("script_failed", "load-core came from outside a tab's frame") };
    }
    /** @type {"wasm"|"js"} */
    let core = "wasm";
    if (BROWSER === "chrome") {
      const headerPolicies = await framePolicies(tabId, frameId, sender.url ?? "");
      core = chooseCore({
        browser: BROWSER,
        policies: headerPolicies === null ? null : [...headerPolicies, ...request.metaPolicies],
      });
    }
    /** @type {string | undefined} */
    let fallback;
    if (core === "js") {
      try {
        return { core: "worker", factsVersion: await prepareWorkerCore() };
      } catch (error) {
        fallback = `the WASM core could not start in the service worker (${String(asToolError(error).message)}), so the JS core runs in the page`;
      }
    }
    // Chrome names the exact document, so a frame that navigated meanwhile is not injected
    // into; Firefox has no document ids and targets the frame.
    const target =
      typeof sender.documentId === "string"
        ? { tabId, documentIds: [sender.documentId] }
        : { tabId, frameIds: [frameId] };
    const [injection] = await api.scripting.executeScript({ target, files: [CORE_FILES[core]] });
    if (injection?.error !== undefined) {
      return {
        ok: false,
        error: messages.toolError(
          "script_failed",
          `the ${core} core failed to start: ${String(injection.error?.message ?? injection.error)}`,
        ),
      };
    }
    return fallback === undefined ? { core } : { core, fallback };
  } catch (error) {
    return { ok: false, error: asToolError(error) };
  }
}
