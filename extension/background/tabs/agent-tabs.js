// @ts-check
// The tabs an agent uses: a tab that a tool call addressed (frames.js, resolveTab: every tool
// that acts in or reads a tab finds it there). Only these tabs get CSP records
// (csp-records.js): a tab the person browses without an agent costs no storage. Kept in memory
// and in storage.session (a restarted service worker still knows them), least recently used
// first, at most MOST_AGENT_TABS. A tab an agent starts using mid-page has no record of its
// current document: that document is "unknown", so its frames get the JS core (csp.js,
// chooseCore) until the tab loads its next document.

import { api } from "../platform.js";
import { MOST_AGENT_TABS, withAgentTab } from "../core/csp.js";

const AGENT_TABS_KEY = "agentTabs";

/** @type {number[]|null} null until read from storage.session. */
let cachedTabs = null;

async function agentTabs() {
  if (cachedTabs !== null) return cachedTabs;
  /** @type {Record<string, unknown>} */
  const stored = await (api.storage?.session?.get(AGENT_TABS_KEY) ?? Promise.resolve({})).catch(() => ({}));
  const value = stored?.[AGENT_TABS_KEY];
  cachedTabs ??= Array.isArray(value) ? value.filter((tab) => Number.isSafeInteger(tab)) : [];
  return cachedTabs;
}

/** @param {number[]} tabs */
async function keep(tabs) {
  cachedTabs = tabs;
  // A full storage.session keeps the list in memory only: the worker that holds it records on.
  await api.storage?.session?.set({ [AGENT_TABS_KEY]: tabs }).catch((error) => {
    console.warn(`allwright: could not keep the agent's tabs: ${error.message}`);
  });
}

/**
 * A tool call addressed this tab. Answers whether the tab is new to the agent.
 * @param {number} tabId
 */
export async function noteAgentTab(tabId) {
  const tabs = await agentTabs();
  if (tabs.at(-1) === tabId) return false;
  const known = tabs.includes(tabId);
  await keep(withAgentTab(tabs, tabId, MOST_AGENT_TABS));
  return !known;
}

/**
 * Whether an agent uses this tab.
 * @param {number} tabId
 */
export async function isAgentTab(tabId) {
  return (await agentTabs()).includes(tabId);
}

/**
 * Whether an agent uses this tab, as far as this worker knows without waiting: for listeners
 * that must answer at once (a request's first event). The list is read from storage at the
 * first tool call, which every recorded tab has had.
 * @param {number} tabId
 */
export function isAgentTabNow(tabId) {
  return cachedTabs?.includes(tabId) ?? false;
}

/**
 * The tab was closed.
 * @param {number} tabId
 */
export async function forgetAgentTab(tabId) {
  const tabs = await agentTabs();
  if (tabs.includes(tabId)) await keep(tabs.filter((tab) => tab !== tabId));
}
