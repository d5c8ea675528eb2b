// @ts-check
// network_requests in a person's browser (docs/agent-tools.md, "The page's console and
// network"): the requests of the tabs an agent uses, from webRequest events, kept per tab in a
// bounded ring from the agent's first call in the tab on. The records go to allwright's MCP
// server as they are, headers unmasked, over the private local socket; the server masks the
// credentials and prints the lines (src/page_observations.rs), the one place those rules live.
// The side panel's log never shows these records' headers (call-redaction.js).
//
// webRequest wakes no stopped worker for these listeners: they are added while an agent works
// (recordRequestsWhileAgentWorks, as activity.js does for its own) and the records live in memory. A worker that
// stopped (Firefox's event page, Chrome's service worker after its native port closed) starts
// with no records: `recordsSince` in the answer says from when they run.

/** How many requests a tab keeps; older ones are dropped first (as the bridge keeps them). */
export const REQUESTS_KEPT_PER_TAB = 1_000;
/** A header value is kept to this many characters, a URL to this many. */
const HEADER_VALUE_CHARS_KEPT = 2_000;
const URL_CHARS_KEPT = 2_000;
/** A request keeps at most this many headers in each direction. */
const HEADERS_KEPT = 100;

/**
 * One request, in the shape the MCP server reads (src/page_observations.rs, `from_extension`).
 * @typedef {{sequence: number, frameId: number, requestId: string, method: string, url: string,
 *   resourceType: string, startedAt: number, requestHeaders: [string, string][],
 *   response: null | {status: number, statusText: string, mimeType: string | null,
 *     fromCache: boolean, transferredBytes: number | null, finishedAt: number,
 *     headers: [string, string][]},
 *   failure: string | null}} RequestRecord
 */

let lastSequence = 0;
/** When this worker started recording: records from before it are gone. */
const recordsSince = Date.now();
/** @type {Map<number, {requests: RequestRecord[], byId: Map<string, RequestRecord>, dropped: number}>} */
const perTab = new Map();

/** @param {string} text @param {number} limit */
const kept = (text, limit) => (text.length > limit ? `${text.slice(0, limit)}…` : text);

/**
 * webRequest's headers as `[name, value]` pairs (a binary value as a note of its length).
 * @param {Array<{name: string, value?: string, binaryValue?: ArrayLike<number>}> | undefined} headers
 * @returns {[string, string][]}
 */
function headerPairs(headers) {
  if (!Array.isArray(headers)) return [];
  return headers
    .slice(0, HEADERS_KEPT)
    .map((header) => [
      String(header.name),
      typeof header.value === "string"
        ? kept(header.value, HEADER_VALUE_CHARS_KEPT)
        : `(binary, ${header.binaryValue?.length ?? 0} bytes)`,
    ]);
}

/**
 * `webRequest.onBeforeRequest` in a tab an agent uses: a new record (a redirect, which keeps its
 * request id, is a record of its own).
 * @param {{requestId: string, tabId: number, frameId?: number, url: string, method: string, type: string, timeStamp?: number}} details
 */
export function recordRequestStarted(details) {
  let tab = perTab.get(details.tabId);
  if (tab === undefined) {
    tab = { requests: [], byId: new Map(), dropped: 0 };
    perTab.set(details.tabId, tab);
  }
  lastSequence += 1;
  /** @type {RequestRecord} */
  const record = {
    sequence: lastSequence,
    frameId: details.frameId ?? 0,
    requestId: details.requestId,
    method: details.method,
    url: kept(details.url, URL_CHARS_KEPT),
    resourceType: details.type,
    startedAt: details.timeStamp ?? Date.now(),
    requestHeaders: [],
    response: null,
    failure: null,
  };
  tab.requests.push(record);
  tab.byId.set(details.requestId, record);
  if (tab.requests.length > REQUESTS_KEPT_PER_TAB) {
    const dropped = /** @type {RequestRecord} */ (tab.requests.shift());
    if (tab.byId.get(dropped.requestId) === dropped) tab.byId.delete(dropped.requestId);
    tab.dropped += 1;
  }
}

/** @param {{requestId: string, tabId: number}} details */
function recordOf(details) {
  return perTab.get(details.tabId)?.byId.get(details.requestId);
}

/**
 * `webRequest.onSendHeaders` (with "requestHeaders").
 * @param {{requestId: string, tabId: number, requestHeaders?: any[]}} details
 */
export function recordRequestHeaders(details) {
  const record = recordOf(details);
  if (record !== undefined) record.requestHeaders = headerPairs(details.requestHeaders);
}

/**
 * `webRequest.onResponseStarted` and `onCompleted` (with "responseHeaders"): the status and
 * headers, then the end and, in Firefox, the bytes received.
 * @param {{requestId: string, tabId: number, statusCode?: number, statusLine?: string, fromCache?: boolean,
 *   responseHeaders?: any[], timeStamp?: number, responseSize?: number}} details
 */
export function recordResponse(details) {
  const record = recordOf(details);
  if (record === undefined || typeof details.statusCode !== "number") return;
  const headers = headerPairs(details.responseHeaders);
  const contentType = headers.find(([name]) => name.toLowerCase() === "content-type")?.[1] ?? null;
  const previous = record.response;
  record.response = {
    status: details.statusCode,
    // "HTTP/1.1 404 Not Found": the words after the code.
    statusText: String(details.statusLine ?? "")
      .split(" ")
      .slice(2)
      .join(" "),
    mimeType: contentType === null ? null : contentType.split(";")[0].trim() || null,
    fromCache: details.fromCache === true,
    transferredBytes: Number.isSafeInteger(details.responseSize) ? /** @type {number} */ (details.responseSize) : null,
    finishedAt: details.timeStamp ?? Date.now(),
    headers: headers.length > 0 ? headers : (previous?.headers ?? []),
  };
}

/**
 * `webRequest.onErrorOccurred`.
 * @param {{requestId: string, tabId: number, error?: string}} details
 */
export function recordFailure(details) {
  const record = recordOf(details);
  if (record !== undefined) record.failure = String(details.error ?? "the request failed");
}

/**
 * The tab's records, oldest first, with how many a full ring dropped and the newest sequence.
 * @param {number} tabId
 */
export function networkRecordsOf(tabId) {
  const tab = perTab.get(tabId);
  return {
    requests: tab?.requests ?? [],
    dropped: tab?.dropped ?? 0,
    lastSequence,
    recordsSince,
  };
}

/** How long after the agent's last call the listeners stay (activity.js keeps its own as long). */
const RECORDING_IDLE_MS = 10 * 60_000;
/** @type {ReturnType<typeof setTimeout>|null} */
let recordingTimer = null;
/** @type {(tabId: number) => boolean} */
let recordedTab = () => false;

/**
 * Starts (or prolongs) recording. Called at the start of every tool call.
 * @param {{onBeforeRequest: any, onSendHeaders: any, onResponseStarted: any, onCompleted: any, onErrorOccurred: any}} webRequest
 * @param {(tabId: number) => boolean} isAgentTab whether an agent uses the tab (agent-tabs.js)
 */
export function recordRequestsWhileAgentWorks(webRequest, isAgentTab) {
  recordedTab = isAgentTab;
  const filter = { urls: ["<all_urls>"] };
  if (recordingTimer === null) {
    webRequest.onBeforeRequest.addListener(onBeforeRequest, filter);
    webRequest.onSendHeaders.addListener(recordRequestHeaders, filter, ["requestHeaders"]);
    webRequest.onResponseStarted.addListener(recordResponse, filter, ["responseHeaders"]);
    webRequest.onCompleted.addListener(recordResponse, filter, ["responseHeaders"]);
    webRequest.onErrorOccurred.addListener(recordFailure, filter);
  } else {
    clearTimeout(recordingTimer);
  }
  recordingTimer = setTimeout(() => {
    recordingTimer = null;
    webRequest.onBeforeRequest.removeListener(onBeforeRequest);
    webRequest.onSendHeaders.removeListener(recordRequestHeaders);
    webRequest.onResponseStarted.removeListener(recordResponse);
    webRequest.onCompleted.removeListener(recordResponse);
    webRequest.onErrorOccurred.removeListener(recordFailure);
  }, RECORDING_IDLE_MS);
}

/** @param {{requestId: string, tabId: number, frameId?: number, url: string, method: string, type: string, timeStamp?: number}} details */
function onBeforeRequest(details) {
  if (details.tabId >= 0 && recordedTab(details.tabId)) recordRequestStarted(details);
}

/**
 * A closed tab's records go with it.
 * @param {number} tabId
 */
export function forgetNetworkRecords(tabId) {
  perTab.delete(tabId);
}
