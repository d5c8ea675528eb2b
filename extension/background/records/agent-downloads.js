// @ts-check
// The agent's downloads: list_downloads and get_download (docs/agent-tools.md, "Downloads").
//
// A download is the agent's when it started while an action or a navigation of the agent was
// watching its tab (activity.js records its id here); nothing else is ever listed or read: the
// person's own downloads, in any tab, stay out of reach even when the agent names their id.
// The records live in storage.session (never on disk), so that a restarted service worker still
// knows them, and are bounded: a page that starts a thousand downloads from one click leaves the
// newest MAX_AGENT_DOWNLOADS records, and the list says how many older ones it dropped.
//
// The extension never reads a file's bytes: get_download answers the browser's facts and, for a
// finished download, the path the browser wrote (`filePath`), which only the MCP server reads
// (src/downloads.rs: a regular file, not followed through a link, size-capped) and never
// repeats to the agent in the person's browser.

import { api, fail } from "../platform.js";
import { baseName, referrerFitsTab } from "../actions/activity.js";
import { DOWNLOAD_FINISH_WAIT_MS } from "../host/budgets.js";

/** The storage.session key of the records. */
const STORAGE_KEY = "agentDownloads";

/** The most downloads kept: a hostile page's burst cannot grow storage.session without bound. */
export const MAX_AGENT_DOWNLOADS = 100;

/** How often get_download looks again at a download in progress. */
const FINISH_POLL_MS = 100;

/**
 * One download the agent started.
 * @typedef {{id: number, tabId: number, tool: string, startedAt: number}} AgentDownload
 * @typedef {{records: AgentDownload[], dropped: number}} AgentDownloads
 */

/** Writes run one after the other, so that two downloads of one click both stay. */
let writes = Promise.resolve();

/**
 * Records a download as the agent's (activity.js, while an action or navigation watches its tab),
 * unless its referrer shows it came from another site than the tab's frames (referrerFitsTab).
 * @param {AgentDownload & {referrer?: string}} download
 * @returns {Promise<void>}
 */
export function recordAgentDownload({ referrer, ...record }) {
  writes = writes
    .then(async () => {
      if (referrer) {
        const frames = await api.webNavigation.getAllFrames({ tabId: record.tabId }).catch(() => null);
        const urls = Array.isArray(frames) ? frames.map((frame) => frame.url) : [];
        if (!referrerFitsTab(referrer, urls)) return;
      }
      const state = await readRecords();
      const records = state.records.filter((known) => known.id !== record.id);
      records.push(record);
      const dropped = Math.max(0, records.length - MAX_AGENT_DOWNLOADS);
      await api.storage.session.set({
        [STORAGE_KEY]: { records: records.slice(dropped), dropped: state.dropped + dropped },
      });
    })
    .catch((error) => console.warn(`allwright: cannot record the agent's download: ${error?.message ?? error}`));
  return writes;
}

/** @returns {Promise<AgentDownloads>} */
async function readRecords() {
  // What recordAgentDownload stored in this session, or nothing; its fields are checked all the same.
  const stored = /** @type {Partial<AgentDownloads>|undefined} */ (
    (await api.storage.session.get(STORAGE_KEY))[STORAGE_KEY]
  );
  if (stored === undefined || !Array.isArray(stored.records)) return { records: [], dropped: 0 };
  return { records: stored.records, dropped: Number(stored.dropped) || 0 };
}

/**
 * The `list_downloads` tool: every download the agent started, oldest first.
 * @returns {Promise<{downloads: Object[], olderDropped?: number}>}
 */
export async function listDownloads() {
  await writes;
  const { records, dropped } = await readRecords();
  const downloads = [];
  for (const record of records) downloads.push(describe(record, await browserItem(record.id)));
  /** @type {{downloads: Object[], olderDropped?: number}} */
  const result = { downloads };
  if (dropped > 0) result.olderDropped = dropped;
  return result;
}

/**
 * The `get_download` tool: one of the agent's downloads, waited for while it runs (at most
 * DOWNLOAD_FINISH_WAIT_MS), with the path the browser wrote once it is complete (`filePath`: for
 * the MCP server, which reads the file and leaves the path out of the reply).
 * @param {ToolArguments<"get_download">} args
 */
export async function getDownload({ id }) {
  await writes;
  const { records } = await readRecords();
  const record = records.find((known) => known.id === id);
  if (record === undefined) {
    fail("download_not_found", `download ${id} is not one the agent started`, {
      hint: "Call list_downloads: it lists the downloads your actions and navigations started (the person's own downloads are never listed).",
    });
  }
  const started = Date.now();
  let item = await browserItem(id);
  while (item?.state === "in_progress" && Date.now() - started < DOWNLOAD_FINISH_WAIT_MS) {
    await new Promise((resolve) => setTimeout(resolve, FINISH_POLL_MS));
    item = await browserItem(id);
  }
  const described = describe(record, item);
  if (item?.state === "in_progress") described.waitedMs = Date.now() - started;
  if (item?.state === "complete" && typeof item.filename === "string" && item.filename !== "") {
    described.filePath = item.filename;
  }
  return described;
}

/**
 * The browser's item for a download id, or undefined when the person removed it from the
 * browser's list.
 * @param {number} id
 */
async function browserItem(id) {
  const [item] = await api.downloads.search({ id });
  return item;
}

/**
 * A download as list_downloads and get_download answer it. The URL is masked by the MCP server
 * (src/page_observations.rs's rules); the file name is the base name only, without the person's
 * folder.
 * @param {AgentDownload} record
 * @param {any} item the browser's DownloadItem, or undefined
 * @returns {Record<string, unknown>}
 */
function describe(record, item) {
  /** @type {Record<string, unknown>} */
  const described = { id: record.id, tabId: record.tabId, startedBy: record.tool };
  described.startedAt = new Date(record.startedAt).toISOString();
  if (item === undefined) {
    described.state = "removed";
    return described;
  }
  described.state = item.state === "complete" || item.state === "in_progress" ? item.state : "interrupted";
  if (described.state === "interrupted" && typeof item.error === "string") described.reason = item.error;
  const name = typeof item.filename === "string" ? baseName(item.filename) : "";
  if (name !== "") described.filename = name;
  const bytes = item.state === "complete" && item.fileSize > 0 ? item.fileSize : item.bytesReceived;
  if (typeof bytes === "number" && bytes >= 0) described.bytes = bytes;
  if (typeof item.totalBytes === "number" && item.totalBytes >= 0) described.totalBytes = item.totalBytes;
  if (typeof item.mime === "string" && item.mime !== "") described.mimeType = item.mime;
  described.url = item.finalUrl ?? item.url;
  if (item.exists === false && item.state === "complete") described.fileDeleted = true;
  return described;
}
