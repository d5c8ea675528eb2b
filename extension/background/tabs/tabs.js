// @ts-check
// The tab tools: list_tabs, new_tab, select_tab, close_tab. A tab the agent selects becomes the
// active tab of its window, and the window is focused, so that calls without tabId (which use the
// active tab of the last focused window) follow the agent's choice.

import { api, fail } from "../platform.js";
import { resolveTab } from "../frames/frames.js";
import { openInTab } from "./navigation.js";

/** @param {chrome.tabs.Tab} tab */
function describeTab(tab) {
  return {
    tabId: tab.id,
    windowId: tab.windowId,
    url: tab.url ?? "",
    title: tab.title ?? "",
    active: tab.active === true,
  };
}

/** `list_tabs()`: every tab of every normal window, in window then tab order. */
export async function listTabs() {
  const tabs = await api.tabs.query({});
  return { tabs: tabs.filter((tab) => tab.id !== undefined && tab.id >= 0).map(describeTab) };
}

/**
 * `new_tab({url?, tabId?, timeoutMs})`: opens a tab (in tabId's window, when given), makes it the active one and, for a URL, waits for it
 * to load (through navigate, so a failed load reports the same errors).
 * @param {ToolArguments<"new_tab">} args
 */
export async function newTab({ tabId, url, timeoutMs }) {
  // With a tabId, the new tab opens in that tab's window.
  const windowId = tabId === undefined ? undefined : (await resolveTab(tabId)).windowId;
  const tab = await api.tabs.create({
    url: "about:blank",
    active: true,
    ...(windowId === undefined ? {} : { windowId }),
  });
  await focusWindow(tab.windowId);
  if (url === "about:blank") return { tabId: tab.id, url: "about:blank", title: "" };
  const loaded = await openInTab({ tabId: tab.id, url, timeoutMs }, "new_tab");
  return { tabId: tab.id, ...loaded };
}

/**
 * `select_tab({tabId})`: activates the tab and focuses its window.
 * @param {ToolArguments<"select_tab">} args
 */
export async function selectTab({ tabId }) {
  const tab = await resolveTab(tabId);
  // The browser answers the updated tab; the tab as read a moment ago stands in if it does not.
  const updated = (await api.tabs.update(tab.id, { active: true })) ?? tab;
  await focusWindow(updated.windowId);
  return { tabId: updated.id, url: updated.url ?? "", title: updated.title ?? "" };
}

/**
 * `close_tab({tabId?})`: closes the tab (default: the active one) and names the tab now active.
 * @param {ToolArguments<"close_tab">} args
 */
export async function closeTab({ tabId }) {
  const tab = await resolveTab(tabId);
  const remaining = await api.tabs.query({});
  if (remaining.length <= 1) {
    fail("invalid_arguments", "this is the browser's last tab; closing it would close the browser", {
      hint: "Open another tab with new_tab first, or navigate this one elsewhere.",
    });
  }
  await api.tabs.remove(tab.id);
  const [active] = await api.tabs.query({ active: true, windowId: tab.windowId });
  const next = active ?? (await api.tabs.query({ active: true }))[0];
  return { closed: tab.id, activeTabId: next?.id ?? null };
}

/** @param {number} windowId */
async function focusWindow(windowId) {
  // Focusing may be refused (some window managers, headless browsers); the tab is active anyway.
  await api.windows?.update(windowId, { focused: true }).catch(() => {});
}
