// @ts-check
// Where the console hook (console-hook.js) runs: in every frame of a tab when an agent first
// uses it, and in each new document of such a tab as it commits. Never in another tab. A hook
// injected at commit runs as soon as the browser allows, which may be after a page's first
// inline scripts: what they logged before it is not seen.

import { api } from "../platform.js";
import { CONSOLE_HOOK_EVENT, consoleHook } from "./console-hook.js";
import { isAgentTab } from "../tabs/agent-tabs.js";

/**
 * Whether the MCP server holds a WebDriver BiDi session on this browser (the session's
 * `browserBridge`): it records the console itself, and a hook would only stand between the page
 * and the place its console calls are made (BiDi reports the hook's line instead).
 */
let consoleRecordedByBridge = false;

/** @param {boolean} recorded */
export function setConsoleRecordedByBridge(recorded) {
  consoleRecordedByBridge = recorded;
}

/**
 * @param {chrome.scripting.InjectionTarget} target
 */
function inject(target) {
  if (consoleRecordedByBridge) return;
  // A frame the extension may not script (a browser page) or one that went away keeps no hook.
  api.scripting
    .executeScript({ target, world: "MAIN", injectImmediately: true, func: consoleHook, args: [CONSOLE_HOOK_EVENT] })
    .catch(() => {});
}

/**
 * Every frame of a tab an agent has just started to use.
 * @param {number} tabId
 */
export function hookConsoleInTab(tabId) {
  inject({ tabId, allFrames: true });
}

/**
 * A document committed in a tab: hooked when an agent uses the tab.
 * @param {{tabId: number, frameId: number}} details webNavigation.onCommitted's
 */
export async function hookConsoleOnCommit({ tabId, frameId }) {
  if (tabId < 0 || !(await isAgentTab(tabId))) return;
  inject({ tabId, frameIds: [frameId] });
}
