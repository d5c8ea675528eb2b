// @ts-check
// console_messages in a person's browser (docs/agent-tools.md, "The page's console and
// network"): what the console hook (console-hook.js) saw in the frames of the tabs an agent uses,
// kept per tab in a bounded ring, in memory, from the hook's injection on. Each entry is page
// data: only the fields below are kept, each of its type and within its length, and the MCP
// server prints them (src/page_observations.rs).

/** How many entries a tab keeps; older ones are dropped first (as the bridge keeps them). */
export const CONSOLE_ENTRIES_KEPT_PER_TAB = 1_000;
const TEXT_CHARS_KEPT = 4_000;
const URL_CHARS_KEPT = 500;
const STACK_FRAMES_KEPT = 20;
const LEVELS = new Set(["debug", "info", "warning", "error"]);
const KINDS = new Set(["console", "exception"]);

/**
 * One entry, in the shape the MCP server reads (src/page_observations.rs,
 * `console_result_from_extension`).
 * @typedef {{function: string, url: string, line: number, column: number}} Place
 * @typedef {{sequence: number, frameId: number, level: string, kind: string, method: string | null,
 *   text: string, source: Place | null, stack: Place[], timestamp: number}} ConsoleRecord
 */

let lastSequence = 0;
/** When this worker started recording: entries from before it are gone. */
const recordsSince = Date.now();
/** @type {Map<number, {entries: ConsoleRecord[], dropped: number}>} */
const perTab = new Map();

/** @param {unknown} text @param {number} limit */
const keptText = (text, limit) => {
  const value = typeof text === "string" ? text : "";
  return value.length > limit ? `${value.slice(0, limit)}…` : value;
};

/**
 * @param {unknown} value
 * @returns {Place | null}
 */
function placeOf(value) {
  if (typeof value !== "object" || value === null) return null;
  const place = /** @type {Record<string, unknown>} */ (value);
  const line = Number(place.line);
  const column = Number(place.column);
  if (typeof place.url !== "string" || !Number.isSafeInteger(line) || !Number.isSafeInteger(column)) return null;
  return {
    function: keptText(place.function, 200),
    url: keptText(place.url, URL_CHARS_KEPT),
    line: Math.max(0, line),
    column: Math.max(0, column),
  };
}

/**
 * Keeps what a frame's hook reported, entry by entry.
 * @param {number} tabId
 * @param {number} frameId
 * @param {unknown[]} entries
 */
export function recordConsoleEntries(tabId, frameId, entries) {
  let tab = perTab.get(tabId);
  if (tab === undefined) {
    tab = { entries: [], dropped: 0 };
    perTab.set(tabId, tab);
  }
  for (const value of entries) {
    if (typeof value !== "object" || value === null) continue;
    const entry = /** @type {Record<string, unknown>} */ (value);
    const level = typeof entry.level === "string" && LEVELS.has(entry.level) ? entry.level : "info";
    const kind = typeof entry.kind === "string" && KINDS.has(entry.kind) ? entry.kind : "console";
    lastSequence += 1;
    tab.entries.push({
      sequence: lastSequence,
      frameId,
      level,
      kind,
      method: typeof entry.method === "string" ? keptText(entry.method, 40) : null,
      text: keptText(entry.text, TEXT_CHARS_KEPT),
      source: placeOf(entry.source),
      stack: Array.isArray(entry.stack)
        ? entry.stack
            .slice(0, STACK_FRAMES_KEPT)
            .map(placeOf)
            .filter((place) => place !== null)
        : [],
      timestamp: Number.isFinite(entry.timestamp) ? Number(entry.timestamp) : Date.now(),
    });
    if (tab.entries.length > CONSOLE_ENTRIES_KEPT_PER_TAB) {
      tab.entries.shift();
      tab.dropped += 1;
    }
  }
}

/**
 * The tab's entries, oldest first, with how many a full ring dropped and the newest sequence.
 * @param {number} tabId
 */
export function consoleRecordsOf(tabId) {
  const tab = perTab.get(tabId);
  return { entries: tab?.entries ?? [], dropped: tab?.dropped ?? 0, lastSequence, recordsSince };
}

/**
 * A closed tab's entries go with it.
 * @param {number} tabId
 */
export function forgetConsoleRecords(tabId) {
  perTab.delete(tabId);
}
