// @ts-check
// What a tab does while an action settles: the requests it sends, the tabs it opens, the
// downloads it starts and the navigations it makes. The click arbiter of click_ax
// (docs/protocol/tools.md, "Action results") and every other action read it to tell "something happened elsewhere" from "nothing
// happened", and wait_for_stable reads the requests still in flight.
//
// Tab, download and navigation events arrive through listeners that main.js registers in its
// first turn (MV3 wakes a worker only for those); request events only while an agent works
// (observeRequestsWhileAgentWorks). Everything here lives in memory on purpose:
// a watch belongs to a tool call in flight, which dies with the worker anyway, and the requests in
// flight are only ever asked about "now".

import { forgetNetworkRecords } from "../records/network-records.js";
import { forgetConsoleRecords } from "../records/console-records.js";

/** Request methods that only read; anything else may change something on the server. */
const READING_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * Telemetry and heartbeat traffic that the click arbiter ignores: a host label or path segment
 * that names it. Beacons to such endpoints are the page's own bookkeeping, not the click's effect.
 */
const TELEMETRY_WORD =
  /^(telemetry|analytics|collect|beacon|metrics|heartbeat|ping|log|logs|logging|track|tracking|tracker|stats|rum|events?|pixel|gtag|gtm)$/i;

/** Requests in flight longer than this are long polls or streams; they never make a page busy. */
const LONG_LIVED_REQUEST_MS = 10_000;

/**
 * One request the tab has in flight.
 * @typedef {{url: string, method: string, type: string, startedAt: number}} RequestInFlight
 */

/** @type {Map<number, Map<string, RequestInFlight>>} tab id -> request id -> request */
const requestsInFlight = new Map();

/** @type {Map<number, number>} tab id -> Date.now() of the last request start or end */
const lastNetworkActivity = new Map();

/**
 * What one watch has seen so far.
 * @typedef {{method: string, url: string, kind: "mutating"|"beacon"}} NotableRequest
 * @typedef {{tabId: number, frameId: number, startedAt: number, requests: NotableRequest[], pageTraffic: number,
 *   newTabs: Array<{tabId: number, url: string}>, downloads: Array<{id?: number, url: string, originalUrl?: string, filename?: string}>,
 *   navigation: {url: string, started: boolean, committed: boolean, finished: boolean, error?: string}|null,
 *   documentRequestSeen: boolean, sameDocumentUrl: string|null, tool: string, listeners: Set<() => void>}} Watch
 */

/** @type {Set<Watch>} */
const watches = new Set();

/**
 * Starts watching a tab (and, for navigations, one of its frames) until `stop` is called.
 * @param {number} tabId
 * @param {number} [frameId] the frame the action runs in; its navigations count as the action's
 * @param {string} [tool] the agent's tool that acts: the downloads seen are recorded as started by it
 */
export function watchTab(tabId, frameId = 0, tool = "action") {
  /** @type {Watch} */
  const watch = {
    tabId,
    frameId,
    startedAt: Date.now(),
    requests: [],
    pageTraffic: 0,
    newTabs: [],
    downloads: [],
    navigation: null,
    documentRequestSeen: false,
    sameDocumentUrl: null,
    tool,
    listeners: new Set(),
  };
  watches.add(watch);
  return {
    /** What was seen so far, in the shape of an action result's `observed` (empty parts left out). */
    observed: () => observedOf(watch),
    /** Whether a navigation of the watched frame started. */
    navigationStarted: () => navigationOf(watch) !== null,
    /** Whether the watched frame's document was replaced or its URL changed. */
    navigated: () => navigationOf(watch) !== null || watch.sameDocumentUrl !== null,
    /** Whether something happened that forbids a retry (docs/protocol/tools.md, "Action results"). */
    sawSideEffects: () => watch.requests.length > 0 || watch.newTabs.length > 0 || watch.downloads.length > 0,
    /**
     * Whether the page fetched data or sent telemetry since the watch started: not a side
     * effect, but a sign that a handler ran or the page is still reacting, so that no trusted
     * fallback may run.
     */
    sawPageTraffic: () => watch.pageTraffic > 0,
    /**
     * Resolves when a navigation that started has finished (or failed), or after `timeoutMs`;
     * resolves at once when none started. Returns whether it finished.
     * @param {number} timeoutMs
     */
    navigationSettled: (timeoutMs) => navigationSettled(watch, timeoutMs),
    /**
     * Resolves true once the request that loads the watched frame's new document was seen, or at
     * once when no document navigation started; false after `timeoutMs` without it. A load's
     * method decides whether it is a side effect (a form's POST), and the browser may tell the
     * navigation before the request: a Firefox under heavy load answered a submit with
     * `retryAllowed: true` because the POST's `onBeforeRequest` came after the outcome.
     * @param {number} timeoutMs
     */
    documentRequestKnown: (timeoutMs) =>
      conditionMet(watch, () => navigationOf(watch) === null || watch.documentRequestSeen, timeoutMs),
    /**
     * Resolves with the first download seen that `matches` (navigate: the URL it opened turned
     * into a download); never resolves otherwise (race it against the load).
     * @param {(download: {url: string, originalUrl?: string}) => boolean} matches
     * @returns {Promise<void>}
     */
    downloadStarted: (matches) =>
      new Promise((resolve) => {
        const check = () => {
          if (!watch.downloads.some(matches)) return;
          watch.listeners.delete(check);
          resolve();
        };
        watch.listeners.add(check);
        check();
      }),
    stop: () => {
      watches.delete(watch);
      return observedOf(watch);
    },
  };
}

/**
 * The watched frame's navigation, unless it turned into a download: the browser starts a link's
 * load, the response says "attachment", and the page stays (Chrome then reports an aborted load;
 * Firefox may report nothing more).
 * @param {Watch} watch
 */
function navigationOf(watch) {
  const navigation = watch.navigation;
  if (navigation === null) return null;
  return watch.downloads.some((item) => item.url === navigation.url) ? null : navigation;
}

/**
 * @param {Watch} watch
 */
function observedOf(watch) {
  const observed = {};
  const navigation = navigationOf(watch);
  if (navigation !== null) observed.navigation = { url: navigation.url };
  else if (watch.sameDocumentUrl !== null) observed.navigation = { url: watch.sameDocumentUrl, sameDocument: true };
  if (watch.newTabs.length > 0) observed.newTabs = watch.newTabs.map((tab) => ({ ...tab }));
  if (watch.downloads.length > 0) {
    observed.downloads = watch.downloads.map(({ id, url, filename }) => {
      /** @type {{url: string, id?: number, filename?: string}} */
      const download = { url: shortDownloadUrl(url) };
      if (id !== undefined) download.id = id;
      if (filename) download.filename = filename;
      return download;
    });
  }
  if (watch.requests.length > 0) observed.requests = watch.requests.slice(0, 10);
  return observed;
}

/**
 * @param {Watch} watch
 * @param {number} timeoutMs
 */
function navigationSettled(watch, timeoutMs) {
  return conditionMet(watch, () => navigationOf(watch)?.finished ?? true, timeoutMs);
}

/**
 * Resolves true when `isSettled()` holds, checked now and after every event of the watch;
 * false after `timeoutMs`.
 * @param {Watch} watch
 * @param {() => boolean} isSettled
 * @param {number} timeoutMs
 */
function conditionMet(watch, isSettled, timeoutMs) {
  if (isSettled()) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      watch.listeners.delete(check);
      resolve(false);
    }, timeoutMs);
    function check() {
      if (!isSettled()) return;
      clearTimeout(timer);
      watch.listeners.delete(check);
      resolve(true);
    }
    watch.listeners.add(check);
  });
}

/**
 * @param {Watch} watch
 */
function notify(watch) {
  for (const listener of [...watch.listeners]) listener();
}

// ---- Requests -----------------------------------------------------------------------------

/**
 * `webRequest.onBeforeRequest` for every request.
 * @param {{requestId: string, tabId: number, frameId?: number, url: string, method: string, type: string, timeStamp?: number}} details
 */
export function onRequestStarted(details) {
  if (details.tabId < 0) return;
  let perTab = requestsInFlight.get(details.tabId);
  if (perTab === undefined) {
    perTab = new Map();
    requestsInFlight.set(details.tabId, perTab);
  }
  perTab.set(details.requestId, {
    url: details.url,
    method: details.method,
    type: details.type,
    startedAt: Date.now(),
  });
  lastNetworkActivity.set(details.tabId, Date.now());
  const kind = notableKind(details);
  // Requests that are not side effects still show that the page is at work: its own reads, and
  // telemetry, which a handler sends when it runs.
  const pageTraffic = kind === null && ["xmlhttprequest", "fetch", "ping", "beacon"].includes(details.type);
  // A document's own request names the frame it loads in (frameId 0 for the main frame).
  const loadsDocument = details.type === "main_frame" || details.type === "sub_frame";
  for (const watch of watches) {
    if (watch.tabId !== details.tabId) continue;
    if (kind !== null) watch.requests.push({ method: details.method, url: details.url, kind });
    else if (pageTraffic) watch.pageTraffic += 1;
    if (loadsDocument && (details.frameId ?? 0) === watch.frameId) {
      watch.documentRequestSeen = true;
      notify(watch);
    }
  }
}

/**
 * `webRequest.onCompleted` and `onErrorOccurred`.
 * @param {{requestId: string, tabId: number}} details
 */
export function onRequestFinished(details) {
  if (details.tabId < 0) return;
  const perTab = requestsInFlight.get(details.tabId);
  perTab?.delete(details.requestId);
  if (perTab?.size === 0) requestsInFlight.delete(details.tabId);
  lastNetworkActivity.set(details.tabId, Date.now());
}

/**
 * Whether a request may have changed something: a mutating method, or a beacon
 * (docs/protocol/action-safety.md, "Nothing done twice").
 * - A document load sent with a mutating method (a form's POST, main frame or frame) is a side
 *   effect like any POST: its navigation is reported too, but a second submission could order,
 *   pay or post twice.
 * - A URL that names telemetry (`/events`, `/log`, `/stats`, ...) exempts only a beacon (Chrome's
 *   "ping", Firefox's "beacon": sendBeacon and `<a ping>`), which pages use for exactly that.
 *   A fetch or XMLHttpRequest POST there is a mutation: `POST /events` creates a calendar event
 *   as often as it logs one. A `fetch(..., {keepalive: true})` reaches webRequest as an ordinary
 *   fetch, so it cannot be told apart and is counted too: the safer side.
 * @param {{url: string, method: string, type: string}} request
 * @returns {"mutating"|"beacon"|null}
 */
export function notableKind({ url, method, type }) {
  // Chrome reports sendBeacon and <a ping> as "ping", Firefox as "beacon".
  const beacon = type === "ping" || type === "beacon";
  if (!beacon && READING_METHODS.has(String(method).toUpperCase())) return null;
  if (type === "main_frame" || type === "sub_frame") return "mutating";
  if (beacon) return isTelemetry(url) ? null : "beacon";
  return "mutating";
}

/**
 * Whether a URL names telemetry or heartbeat traffic in a host label or a path segment.
 * @param {string} url
 */
export function isTelemetry(url) {
  let parsed;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  const words = [...parsed.hostname.split("."), ...parsed.pathname.split("/")]
    .flatMap((part) => part.split(/[-_.]/))
    .filter((word) => word !== "");
  return words.some((word) => TELEMETRY_WORD.test(word));
}

/**
 * The tab's requests in flight, long-lived ones (streams, long polls) apart.
 * @param {number} tabId
 */
export function networkState(tabId) {
  const now = Date.now();
  const pending = [];
  const longLived = [];
  for (const request of requestsInFlight.get(tabId)?.values() ?? []) {
    if (request.type === "websocket" || now - request.startedAt > LONG_LIVED_REQUEST_MS) longLived.push(request);
    else pending.push(request);
  }
  return { pending, longLived, lastActivityAt: lastNetworkActivity.get(tabId) ?? 0 };
}

/**
 * Requests are observed only while an agent works: from a tool call until ten minutes after the
 * last one. A page that no tool touches pays nothing, and the service worker is not woken for
 * every request of every tab. A request already running when observation starts is unknown;
 * its end still counts as network activity (onRequestFinished), which is all wait_for_stable needs.
 */
const REQUEST_OBSERVATION_IDLE_MS = 10 * 60_000;

/** @type {ReturnType<typeof setTimeout>|null} */
let requestObservationTimer = null;

/**
 * Starts (or prolongs) request observation. Called at the start of every tool call.
 * @param {{onBeforeRequest: any, onCompleted: any, onErrorOccurred: any}} webRequest the browser's API
 */
export function observeRequestsWhileAgentWorks(webRequest) {
  const filter = { urls: ["<all_urls>"] };
  if (requestObservationTimer === null) {
    webRequest.onBeforeRequest.addListener(onRequestStarted, filter);
    webRequest.onCompleted.addListener(onRequestFinished, filter);
    webRequest.onErrorOccurred.addListener(onRequestFinished, filter);
  } else {
    clearTimeout(requestObservationTimer);
  }
  requestObservationTimer = setTimeout(() => {
    requestObservationTimer = null;
    webRequest.onBeforeRequest.removeListener(onRequestStarted);
    webRequest.onCompleted.removeListener(onRequestFinished);
    webRequest.onErrorOccurred.removeListener(onRequestFinished);
    requestsInFlight.clear();
    lastNetworkActivity.clear();
  }, REQUEST_OBSERVATION_IDLE_MS);
}

// ---- Tabs, downloads, navigations ---------------------------------------------------------

/**
 * A tab opened by a watched tab: `tabs.onCreated` (openerTabId) or
 * `webNavigation.onCreatedNavigationTarget` (sourceTabId); the same tab is counted once.
 * @param {number} openerTabId
 * @param {number} tabId
 * @param {string} url
 */
export function onTabOpened(openerTabId, tabId, url) {
  for (const watch of watches) {
    if (watch.tabId !== openerTabId) continue;
    const known = watch.newTabs.find((tab) => tab.tabId === tabId);
    if (known === undefined) watch.newTabs.push({ tabId, url });
    else if (url !== "" && url !== "about:blank") known.url = url;
  }
}

/**
 * Where a download the agent started is recorded (agent-downloads.js's recordAgentDownload, set
 * by main.js): injected, so that this module stays free of the browser's API for its unit tests.
 * @type {(record: {id: number, tabId: number, tool: string, startedAt: number, referrer?: string}) => unknown}
 */
let recordAgentDownload = () => {};

/** @param {typeof recordAgentDownload} record */
export function setAgentDownloadRecorder(record) {
  recordAgentDownload = record;
}

/**
 * Whether a download's referrer (the page that started it, as the browser reports it) may be a
 * page of the watched tab: its origin is the origin of one of the tab's frames. A download with
 * no referrer (a navigation the agent typed, a page whose policy sends none) fits any tab. This
 * is what keeps a download the person starts in another tab, while an action of the agent
 * settles, out of the agent's records, unless that other tab shows the same site.
 * @param {string|undefined} referrer
 * @param {string[]} frameUrls the URLs of the tab's frames
 */
export function referrerFitsTab(referrer, frameUrls) {
  if (!referrer) return true;
  const origin = originOf(referrer);
  if (origin === null) return true;
  return frameUrls.some((url) => originOf(url) === origin);
}

/** @param {string} url */
function originOf(url) {
  try {
    const parsed = new URL(url);
    return parsed.origin === "null" ? null : parsed.origin;
  } catch {
    return null;
  }
}

/**
 * A path's last part, without control characters: the browser reports the whole path in the
 * person's download folder, which no result repeats, and a page chooses the name.
 * @param {string} path
 */
export function baseName(path) {
  // eslint-disable-next-line no-control-regex
  return (path.split(/[\\/]/).pop() ?? "").replace(/[\u0000-\u001f\u007f]/g, "");
}

/**
 * A download started. Downloads do not say which tab started them, so every watch running now
 * counts it: a download during an action makes its result inconclusive whichever tab it came from.
 * It is recorded as the agent's (agent-downloads.js: list_downloads and get_download read only
 * these) for the tab of the watch that started first, the one whose action was under way; a
 * download that starts while no action or navigation of the agent runs is never recorded.
 * @param {{id?: number, url: string, originalUrl?: string, filename?: string, referrer?: string}} item
 */
export function onDownloadStarted(item) {
  let recorded = false;
  for (const watch of watches) {
    /** @type {Watch["downloads"][number]} */
    const download = { url: item.url };
    if (item.id !== undefined) download.id = item.id;
    if (item.originalUrl !== undefined && item.originalUrl !== item.url) download.originalUrl = item.originalUrl;
    if (item.filename) download.filename = baseName(item.filename);
    watch.downloads.push(download);
    if (!recorded && item.id !== undefined) {
      recorded = true;
      void recordAgentDownload({
        id: item.id,
        tabId: watch.tabId,
        tool: watch.tool,
        startedAt: Date.now(),
        referrer: item.referrer,
      });
    }
    notify(watch);
  }
}

/** The longest download URL an action's evidence repeats. */
const LONGEST_EVIDENCE_URL = 300;

/**
 * A download's URL as the evidence names it: a data: URL by its type and length (its bytes are
 * the download), anything else cut at LONGEST_EVIDENCE_URL characters.
 * @param {string} url
 */
export function shortDownloadUrl(url) {
  if (url.startsWith("data:")) {
    const comma = url.indexOf(",");
    const type = (comma < 0 ? url : url.slice(0, comma)).slice(0, 100);
    return `${type},… (${url.length} characters)`;
  }
  return url.length > LONGEST_EVIDENCE_URL ? `${url.slice(0, LONGEST_EVIDENCE_URL)}…` : url;
}

/**
 * Navigation events of a tab's frames.
 * @param {"beforeNavigate"|"committed"|"completed"|"errorOccurred"|"sameDocument"|"tabRemoved"} kind
 * @param {{tabId: number, frameId?: number, url?: string, error?: string}} details
 */
export function onFrameNavigation(kind, details) {
  for (const watch of watches) {
    if (watch.tabId !== details.tabId) continue;
    if (kind === "tabRemoved") {
      if (watch.navigation !== null) watch.navigation.finished = true;
      notify(watch);
      continue;
    }
    if (details.frameId !== watch.frameId) continue;
    const url = details.url ?? "";
    switch (kind) {
      case "beforeNavigate":
        watch.navigation = { url, started: true, committed: false, finished: false };
        break;
      case "committed":
        watch.navigation ??= { url, started: true, committed: false, finished: false };
        watch.navigation.url = url;
        watch.navigation.committed = true;
        break;
      case "completed":
        if (watch.navigation !== null) watch.navigation.finished = true;
        break;
      case "errorOccurred":
        // A download reached through a link ends its navigation with an abort: the page stays.
        if (watch.navigation !== null) {
          watch.navigation.finished = true;
          watch.navigation.error = details.error ?? "error";
          if (!watch.navigation.committed) watch.navigation = null;
        }
        break;
      case "sameDocument":
        watch.sameDocumentUrl = url;
        break;
    }
    notify(watch);
  }
}

/**
 * Forgets a closed tab's requests.
 * @param {number} tabId
 */
export function forgetTabActivity(tabId) {
  requestsInFlight.delete(tabId);
  lastNetworkActivity.delete(tabId);
  forgetNetworkRecords(tabId);
  forgetConsoleRecords(tabId);
}
