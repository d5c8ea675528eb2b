// The core choice for a frame from its Content Security Policies (extension/background/core/csp.js),
// and the per-frame record state machine behind it.
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  chooseCore, CSP_RECORD_BOUNDS, inheritsPolicies, MOST_AGENT_TABS, nextRecord, parsePolicy, policyAllowsWasm, policyHeaders,
  recordedPolicies, recordsToEvict, splitPolicyList, storedSize, withAgentTab,
} from "../../../extension/background/core/csp.js";

const chrome = (policies) => chooseCore({ browser: "chrome", policies });

test("no policy at all allows WASM", () => {
  assert.equal(chrome([]), "wasm");
});

test("the fixtures' strict policies need the JS core", () => {
  assert.equal(chrome(["default-src 'none'; frame-src 'self'; report-uri /csp-report?page=default-none"]), "js");
  assert.equal(chrome(["script-src 'self'; report-uri /csp-report?page=script-self"]), "js");
});

test("a report-only policy counts like an enforced one", () => {
  // The caller passes report-only header values in the same list; a WASM compile they forbid
  // would still send a report.
  assert.equal(chrome(["script-src 'self'; report-uri /csp-report?page=report-only"]), "js");
});

test("'wasm-unsafe-eval' or 'unsafe-eval' in script-src allows WASM", () => {
  assert.equal(chrome(["script-src 'self' 'wasm-unsafe-eval'"]), "wasm");
  assert.equal(chrome(["script-src 'self' 'unsafe-eval'"]), "wasm");
  assert.equal(chrome(["SCRIPT-SRC 'self' 'WASM-UNSAFE-EVAL'"]), "wasm");
});

test("script-src falls back to default-src", () => {
  assert.equal(chrome(["default-src 'self' 'wasm-unsafe-eval'"]), "wasm");
  assert.equal(chrome(["default-src 'self'; img-src *"]), "js");
  // script-src wins over default-src, in both directions.
  assert.equal(chrome(["default-src 'none'; script-src 'wasm-unsafe-eval'"]), "wasm");
  assert.equal(chrome(["default-src 'unsafe-eval'; script-src 'self'"]), "js");
});

test("a policy that restricts neither script-src nor default-src allows WASM", () => {
  assert.equal(chrome(["img-src 'none'; frame-ancestors 'self'"]), "wasm");
  assert.equal(chrome(["upgrade-insecure-requests"]), "wasm");
});

test("every policy must allow it: one strict policy among lenient ones decides", () => {
  assert.equal(chrome(["script-src 'unsafe-eval'", "img-src *", "script-src 'self'"]), "js");
  // Several policies in one header, separated by commas.
  assert.equal(chrome(["script-src 'unsafe-eval', default-src 'self'"]), "js");
  assert.equal(chrome(["script-src 'unsafe-eval', img-src *"]), "wasm");
});

test("script-src-elem and worker-src do not govern WASM compilation", () => {
  assert.equal(chrome(["script-src-elem 'self'; worker-src 'none'"]), "wasm");
});

test("the first occurrence of a directive wins", () => {
  assert.equal(chrome(["script-src 'self'; script-src 'wasm-unsafe-eval'"]), "js");
  assert.equal(chrome(["script-src 'wasm-unsafe-eval'; script-src 'self'"]), "wasm");
});

test("an empty source list is 'none'", () => {
  assert.equal(chrome(["script-src; img-src *"]), "js");
});

test("unknown policies give the JS core in Chrome", () => {
  assert.equal(chrome(null), "js");
});

test("Firefox always gets WASM", () => {
  assert.equal(chooseCore({ browser: "firefox", policies: ["default-src 'none'"] }), "wasm");
  assert.equal(chooseCore({ browser: "firefox", policies: null }), "wasm");
});

test("parsing splits lists and directives, ignoring empty pieces and whitespace", () => {
  assert.deepEqual(splitPolicyList(" a , , b "), ["a", "b"]);
  const directives = parsePolicy("  Script-Src  'self'\t'unsafe-eval' ;; img-src * ");
  assert.deepEqual([...directives.keys()], ["script-src", "img-src"]);
  assert.deepEqual(directives.get("script-src"), ["'self'", "'unsafe-eval'"]);
  assert.equal(policyAllowsWasm(""), true);
});

test("policyHeaders keeps enforced and report-only headers, case-insensitively", () => {
  const headers = [
    { name: "Content-Type", value: "text/html" },
    { name: "Content-Security-Policy", value: "script-src 'self'" },
    { name: "content-security-policy-report-only", value: "default-src 'none'" },
    { name: "Content-Security-Policy", value: "img-src *" },
    { name: "Content-Security-Policy", binaryValue: [1] },
  ];
  assert.deepEqual(policyHeaders(headers), ["script-src 'self'", "default-src 'none'", "img-src *"]);
  assert.deepEqual(policyHeaders(undefined), []);
});

test("local-scheme documents inherit their policies", () => {
  for (const url of ["about:blank", "about:srcdoc", "data:text/html,x", "blob:https://a.test/uuid"]) {
    assert.equal(inheritsPolicies(url), true, url);
  }
  for (const url of ["https://a.test/", "file:///tmp/x.html", "http://about.test/"]) {
    assert.equal(inheritsPolicies(url), false, url);
  }
});

test("record: headers then a commit of the same URL make the policies known", () => {
  let record = nextRecord(undefined, { type: "headers", url: "https://a.test/page", policies: ["script-src 'self'"] });
  assert.deepEqual(record.pending, { url: "https://a.test/page", policies: ["script-src 'self'"] });
  assert.equal(record.committed, null);
  record = nextRecord(record, { type: "commit", url: "https://a.test/page#top" });
  assert.deepEqual(record, { pending: null, committed: { url: "https://a.test/page", policies: ["script-src 'self'"] } });
  assert.deepEqual(recordedPolicies(record, "https://a.test/page"), ["script-src 'self'"]);
  // history.pushState keeps the document and its policies.
  assert.deepEqual(recordedPolicies(record, "https://a.test/other?x=1"), ["script-src 'self'"]);
  assert.equal(recordedPolicies(record, "https://b.test/page"), null);
});

test("record: a redirect replaces the pending response; only the last one commits", () => {
  let record = nextRecord(undefined, { type: "headers", url: "https://a.test/old", policies: ["img-src *"] });
  record = nextRecord(record, { type: "headers", url: "https://a.test/new", policies: ["default-src 'none'"] });
  record = nextRecord(record, { type: "commit", url: "https://a.test/new" });
  assert.deepEqual(recordedPolicies(record, "https://a.test/new"), ["default-src 'none'"]);
});

test("record: a commit without matching headers is unknown", () => {
  // Back/forward cache restores and service-worker responses commit without headers we saw.
  const record = nextRecord(undefined, { type: "commit", url: "https://a.test/page" });
  assert.equal(recordedPolicies(record, "https://a.test/page"), null);
  const mismatched = nextRecord(
    nextRecord(undefined, { type: "headers", url: "https://a.test/a", policies: [] }),
    { type: "commit", url: "https://a.test/b" },
  );
  assert.equal(recordedPolicies(mismatched, "https://a.test/b"), null);
});

test("record: a response that never commits leaves the shown document's policies", () => {
  let record = nextRecord(undefined, { type: "headers", url: "https://a.test/page", policies: ["script-src 'self'"] });
  record = nextRecord(record, { type: "commit", url: "https://a.test/page" });
  // A download or a 204: headers arrive, no commit follows.
  record = nextRecord(record, { type: "headers", url: "https://a.test/file.zip", policies: [] });
  assert.deepEqual(recordedPolicies(record, "https://a.test/page"), ["script-src 'self'"]);
  assert.equal(recordedPolicies(undefined, "https://a.test/page"), null);
});

// ---- The records' bounds (csp-records.js, agent-tabs.js). ----

test("records past the count bound are evicted oldest first, never the incoming one", () => {
  const index = new Map([
    ["csp/1/0", { at: 30, bytes: 10 }],
    ["csp/1/5", { at: 10, bytes: 10 }],
    ["csp/2/0", { at: 20, bytes: 10 }],
  ]);
  const bounds = { mostRecords: 2, mostBytes: 1000 };
  assert.deepEqual(recordsToEvict(index, { key: "csp/3/0", bytes: 10 }, bounds), ["csp/1/5", "csp/2/0"]);
  // Rewriting a record already stored does not count it twice.
  assert.deepEqual(recordsToEvict(index, { key: "csp/1/0", bytes: 10 }, bounds), ["csp/1/5"]);
  assert.deepEqual(recordsToEvict(index, { key: "csp/1/0", bytes: 10 }, { mostRecords: 3, mostBytes: 1000 }), []);
});

test("records past the byte bound are evicted oldest first until the new one fits", () => {
  const index = new Map([
    ["csp/1/0", { at: 1, bytes: 400 }],
    ["csp/1/1", { at: 2, bytes: 400 }],
    ["csp/1/2", { at: 3, bytes: 100 }],
  ]);
  const bounds = { mostRecords: 100, mostBytes: 1000 };
  assert.deepEqual(recordsToEvict(index, { key: "csp/9/0", bytes: 300 }, bounds), ["csp/1/0"]);
  assert.deepEqual(recordsToEvict(index, { key: "csp/9/0", bytes: 900 }, bounds), ["csp/1/0", "csp/1/1"]);
  assert.deepEqual(recordsToEvict(index, { key: "csp/9/0", bytes: 950 }, bounds), ["csp/1/0", "csp/1/1", "csp/1/2"]);
  assert.deepEqual(recordsToEvict(new Map(), { key: "csp/9/0", bytes: 10 }, bounds), []);
});

test("the bounds keep the records well inside storage.session's 10 MB", () => {
  assert.ok(CSP_RECORD_BOUNDS.mostBytes <= 1024 * 1024);
  assert.ok(CSP_RECORD_BOUNDS.mostRecordBytes * 4 <= CSP_RECORD_BOUNDS.mostBytes);
  assert.ok(CSP_RECORD_BOUNDS.mostRecords >= 70, "a page with 70 frames still fits when an agent uses it");
  const record = { pending: null, committed: { url: "https://a.test/", policies: ["script-src 'self'"] }, at: 1 };
  assert.equal(storedSize("csp/1/0", record), "csp/1/0".length + JSON.stringify(record).length);
});

test("the agent's tabs are kept most recent last, the least recently used falling off", () => {
  assert.deepEqual(withAgentTab([], 7, 3), [7]);
  assert.deepEqual(withAgentTab([1, 2, 3], 2, 3), [1, 3, 2]);
  assert.deepEqual(withAgentTab([1, 2, 3], 4, 3), [2, 3, 4]);
  assert.ok(MOST_AGENT_TABS >= 8);
});
