// @ts-check
// Which build of the core a frame may run without the page noticing: a pure decision over the
// frame's Content Security Policies, kept free of browser APIs so it is unit-tested in Node.
//
// Why it exists: Chromium compiles WebAssembly in a content script under the page's own policy.
// If that policy does not allow 'wasm-unsafe-eval', compiling fails, and the failed attempt is
// visible to the page (a securitypolicyviolation event, a ReportingObserver entry and a report
// sent to the page's report-uri). A report-only policy does not block, but it reports the same
// attempt, so report-only policies count exactly like enforced ones (docs/protocol/core.md, "Loading
// the core").
// Such frames get the same Rust core compiled to plain JS instead.

/** @typedef {"wasm"|"js"} CoreKind */

/**
 * Splits a header value, or a meta element's content, into its policies. One header may carry
 * several policies separated by commas (CSP3, "parse a serialized CSP list"), and a response
 * may carry several headers, which the browser reports one by one.
 * @param {string} serialized
 * @returns {string[]}
 */
export function splitPolicyList(serialized) {
  return serialized
    .split(",")
    .map((policy) => policy.trim())
    .filter((policy) => policy !== "");
}

/**
 * Reads one policy's directives into a map from lower-case name to source tokens. The first
 * occurrence of a directive wins and later duplicates are ignored (CSP3, "parse a serialized
 * CSP", step 2.4), which is what the browser enforces.
 * @param {string} policy
 * @returns {Map<string, string[]>}
 */
export function parsePolicy(policy) {
  const directives = new Map();
  for (const token of policy.split(";")) {
    const parts = token
      .trim()
      .split(/[\t\n\f\r ]+/)
      .filter((part) => part !== "");
    if (parts.length === 0) continue;
    const name = parts[0].toLowerCase();
    if (directives.has(name)) continue;
    directives.set(
      name,
      parts.slice(1).map((part) => part.toLowerCase()),
    );
  }
  return directives;
}

/**
 * Whether one policy lets a content script compile WebAssembly. Compilation is checked against
 * script-src, falling back to default-src (CSP3, "WebAssembly.compile" hook, which uses the
 * script-src fallback list); a policy with neither directive does not restrict it. 'unsafe-eval'
 * implies 'wasm-unsafe-eval'.
 * @param {string} policy
 * @returns {boolean}
 */
export function policyAllowsWasm(policy) {
  const directives = parsePolicy(policy);
  const sources = directives.get("script-src") ?? directives.get("default-src");
  if (sources === undefined) return true;
  return sources.includes("'wasm-unsafe-eval'") || sources.includes("'unsafe-eval'");
}

/**
 * Picks the core for a frame.
 * - Firefox compiles WebAssembly in content scripts regardless of the page's policy: "wasm".
 * - Chromium: "wasm" only when the frame's policies are known and every one of them (enforced,
 *   report-only, meta) allows it. Unknown policies (`null`: no header record matched the
 *   frame's document) give "js", because guessing wrong would reveal the extension to the page
 *   while the JS core only costs a little speed.
 * @param {{browser: "chrome"|"firefox", policies: string[]|null}} frame
 *   `policies` holds serialized policy lists (header values or meta contents), or null if unknown.
 * @returns {CoreKind}
 */
export function chooseCore({ browser, policies }) {
  if (browser === "firefox") return "wasm";
  if (policies === null) return "js";
  const every = policies.flatMap(splitPolicyList);
  return every.every(policyAllowsWasm) ? "wasm" : "js";
}

/**
 * The policy headers of a response, enforced and report-only alike (see the top of this file
 * for why report-only counts), from webRequest's `responseHeaders`.
 * @param {{name: string, value?: string}[]|undefined} responseHeaders
 * @returns {string[]}
 */
export function policyHeaders(responseHeaders) {
  const names = new Set(["content-security-policy", "content-security-policy-report-only"]);
  return (responseHeaders ?? [])
    .map((header) => (names.has(header.name.toLowerCase()) ? header.value : undefined))
    .filter((value) => typeof value === "string");
}

/**
 * Whether a document at this URL gets its policies from the document that created it rather
 * than from response headers: about:blank, about:srcdoc, data: and blob: documents (HTML,
 * "policy container" inheritance for local schemes).
 * @param {string} url
 */
export function inheritsPolicies(url) {
  return /^(about|data|blob):/i.test(url);
}

// ---- The frame record state machine of csp-records.js, as pure functions. ----

/**
 * @typedef {{url: string, policies: string[]}} PendingResponse
 * @typedef {{url: string, policies: string[]|null}} CommittedDocument
 * @typedef {{pending: PendingResponse|null, committed: CommittedDocument|null}} FrameRecord
 * @typedef {{type: "headers", url: string, policies: string[]}|{type: "commit", url: string}} FrameEvent
 */

/**
 * The state machine's transition function (pure).
 * @param {FrameRecord|undefined} record
 * @param {FrameEvent} event
 * @returns {FrameRecord}
 */
export function nextRecord(record, event) {
  const url = withoutFragment(event.url);
  if (event.type === "headers") {
    return { pending: { url, policies: event.policies }, committed: record?.committed ?? null };
  }
  const pending = record?.pending ?? null;
  const policies = pending !== null && pending.url === url ? pending.policies : null;
  return { pending: null, committed: { url, policies } };
}

/**
 * What a record says about the document at `documentUrl` (pure): its header policies, or null
 * when the record does not describe that document. Same-origin is enough, so a document that
 * changed its URL with history.pushState keeps its policies.
 * @param {FrameRecord|undefined} record
 * @param {string} documentUrl
 * @returns {string[]|null}
 */
export function recordedPolicies(record, documentUrl) {
  const committed = record?.committed;
  if (committed == null || committed.policies === null) return null;
  return sameOrigin(committed.url, documentUrl) ? committed.policies : null;
}

/**
 * @param {string} url
 */
function withoutFragment(url) {
  const hash = url.indexOf("#");
  return hash === -1 ? url : url.slice(0, hash);
}

/**
 * @param {string} a
 * @param {string} b
 */
function sameOrigin(a, b) {
  try {
    return new URL(a).origin === new URL(b).origin;
  } catch {
    return false;
  }
}

// ---- The records' bounds (csp-records.js), as pure functions. ----

/**
 * What the CSP records may hold in `storage.session` (10 MB for the whole extension in Chromium,
 * shared with the call log, the ref records and thread coverage): at most this many frame
 * records, this many bytes in all, and this many bytes in one record. A page with 70 frames once
 * filled 10.4 of the 10.5 MB while no agent was working; now only the tabs an agent uses are
 * recorded, and the oldest records go first when a bound is reached. A record that is not kept
 * only makes its frame "unknown", which chooseCore turns into the JS core: slower, never seen.
 */
export const CSP_RECORD_BOUNDS = Object.freeze({
  mostRecords: 256,
  mostBytes: 1024 * 1024,
  mostRecordBytes: 64 * 1024,
});

/** How many tabs count as the agent's at once (agent-tabs.js); the least recently used goes first. */
export const MOST_AGENT_TABS = 32;

/**
 * The size a record takes in storage, as Chromium counts it for the quota: its key and its JSON.
 * @param {string} key
 * @param {unknown} record
 */
export function storedSize(key, record) {
  return key.length + JSON.stringify(record).length;
}

/**
 * The keys to remove so that the records fit their bounds once `incoming` is stored, oldest
 * first (the smallest `at`); `incoming` itself is never among them.
 * @param {Map<string, {at: number, bytes: number}>} index every stored record but `incoming`
 * @param {{key: string, bytes: number}} incoming
 * @param {{mostRecords: number, mostBytes: number}} bounds
 * @returns {string[]}
 */
export function recordsToEvict(index, incoming, bounds) {
  const others = [...index.entries()].filter(([key]) => key !== incoming.key).sort((a, b) => a[1].at - b[1].at);
  let count = others.length + 1;
  let bytes = others.reduce((sum, [, entry]) => sum + entry.bytes, 0) + incoming.bytes;
  const evicted = [];
  for (const [key, entry] of others) {
    if (count <= bounds.mostRecords && bytes <= bounds.mostBytes) break;
    evicted.push(key);
    count -= 1;
    bytes -= entry.bytes;
  }
  return evicted;
}

/**
 * The agent's tabs after a tool call addressed `tabId`: it moves to the end (most recent), and
 * the least recently used fall off past `most`.
 * @param {number[]} tabs least recently used first
 * @param {number} tabId
 * @param {number} most
 * @returns {number[]}
 */
export function withAgentTab(tabs, tabId, most) {
  const next = [...tabs.filter((tab) => tab !== tabId), tabId];
  return next.slice(Math.max(0, next.length - most));
}
