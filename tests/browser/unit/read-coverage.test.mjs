// Thread-read coverage (extension/background/reads/read-coverage.js, docs/protocol/reading.md "Thread-read
// coverage"): which reads are progress, when a conversation's read is complete, and what
// restarts it.
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  conversationRootFor,
  describeCoverage,
  nextPageRecord,
  recordKey,
  treeReadOf,
} from "../../../extension/background/reads/read-coverage.js";

const ROOT = "ref_40";

/** The read of page `page` of `pageCount` through the arguments an agent would send. */
function pageRead(
  page,
  { pageCount = 3, anchor = ROOT, fingerprint = "f1", maxChars = 400, filter = "all", maxDepth = 15 } = {},
) {
  const args = { filter, maxDepth, maxChars, page, ...(anchor === null ? {} : { ref_id: anchor }) };
  const next =
    page < pageCount
      ? { filter, maxDepth, maxChars, ...(anchor === null ? {} : { ref_id: anchor }), page: page + 1 }
      : undefined;
  return treeReadOf(args, {
    page,
    pageCount,
    contentFingerprint: fingerprint,
    continuationArgs: next,
    conversationRootRefId: anchor === ROOT ? ROOT : undefined,
  });
}

/** Runs reads one after another, as the store does, and returns every coverage. */
function run(reads, storedRoot = ROOT) {
  let record;
  return reads.map((read) => {
    const next = nextPageRecord(record, read);
    record = next.record;
    return describeCoverage(record, next.outcome, read, conversationRootFor(storedRoot, read));
  });
}

test("pages 1..last through continuationArgs are progress and make the read complete", () => {
  const coverages = run([pageRead(1), pageRead(2), pageRead(3)]);
  assert.deepEqual(
    coverages.map((coverage) => [coverage.progress, coverage.reason, coverage.complete, coverage.pagesRead]),
    [
      [true, "first_page", false, [1]],
      [true, "next_page", false, [1, 2]],
      [true, "next_page", true, [1, 2, 3]],
    ],
  );
  // A conversation that fits on one page is complete at once.
  assert.equal(run([pageRead(1, { pageCount: 1 })])[0].complete, true);
});

test("a repeated page is not progress and keeps what was read", () => {
  const coverages = run([pageRead(1), pageRead(2), pageRead(2), pageRead(1), pageRead(3)]);
  assert.deepEqual(
    coverages.map((coverage) => [coverage.progress, coverage.reason]),
    [
      [true, "first_page"],
      [true, "next_page"],
      [false, "repeated_page"],
      [false, "repeated_page"],
      [true, "next_page"],
    ],
  );
  assert.equal(coverages.at(-1).complete, true);
});

test("a skipped page is not progress, nor a later page without page 1", () => {
  const skipped = run([pageRead(1), pageRead(3)]);
  assert.deepEqual([skipped[1].progress, skipped[1].reason, skipped[1].pagesRead], [false, "skipped_page", [1]]);
  const noStart = run([pageRead(2)])[0];
  assert.deepEqual([noStart.progress, noStart.reason, noStart.pagesRead], [false, "skipped_page", []]);
});

test("a stale page resets the read; page 1 of changed content restarts it", () => {
  const coverages = run([pageRead(1), pageRead(2, { fingerprint: "f2" }), pageRead(3)]);
  assert.deepEqual(
    coverages.map((coverage) => [coverage.progress, coverage.reason, coverage.pagesRead]),
    [
      [true, "first_page", [1]],
      [false, "stale_page", []],
      [false, "skipped_page", []],
    ],
  );
  const grown = run([pageRead(1), pageRead(2, { pageCount: 4 })])[1];
  assert.deepEqual([grown.progress, grown.reason], [false, "stale_page"]);
  const restarted = run([pageRead(1), pageRead(2), pageRead(1, { fingerprint: "f2" })])[2];
  assert.deepEqual([restarted.progress, restarted.reason, restarted.pagesRead], [true, "restarted", [1]]);
});

test("another maxChars is not the exact continuation", () => {
  const coverage = run([pageRead(1), pageRead(2, { maxChars: 500 })])[1];
  assert.deepEqual([coverage.progress, coverage.reason, coverage.pagesRead], [false, "inexact_continuation", [1]]);
});

test("document-root reads, foreign refs and other filters or depths never count", () => {
  for (const [options, reason] of [
    [{ anchor: null }, "document_root"],
    [{ anchor: "ref_7" }, "foreign_ref"],
    [{ filter: "visible" }, "not_default_arguments"],
    [{ maxDepth: 20 }, "not_default_arguments"],
  ]) {
    const coverages = run([pageRead(1, { ...options, pageCount: 2 }), pageRead(2, { ...options, pageCount: 2 })]);
    for (const coverage of coverages) {
      assert.deepEqual([coverage.progress, coverage.reason, coverage.complete], [false, reason, false], reason);
    }
    // The pages are still listed: the agent sees what it read of that anchor.
    assert.deepEqual(coverages[1].pagesRead, [1, 2], reason);
  }
  // Without any conversation on the page, an anchored read counts toward nothing.
  const none = run([pageRead(1, { anchor: "ref_7" })], null)[0];
  assert.deepEqual([none.progress, none.reason], [false, "no_conversation"]);
});

test("the conversation root: the document read's, else an anchor that reports itself", () => {
  const documentRead = pageRead(1, { anchor: null });
  assert.equal(conversationRootFor("ref_1", { ...documentRead, conversationRootRefId: "ref_9" }), "ref_9");
  assert.equal(conversationRootFor("ref_1", { ...documentRead, conversationRootRefId: null }), null);
  assert.equal(conversationRootFor(undefined, pageRead(1)), ROOT);
  assert.equal(conversationRootFor(null, pageRead(1, { anchor: "ref_7" })), null);
  assert.equal(conversationRootFor("ref_1", pageRead(1)), "ref_1");
});

test("records are kept per tab, frame, anchor, filter and maxDepth", () => {
  const keys = new Set([
    recordKey(1, 0, { anchor: "ref_1", filter: "all", maxDepth: 15 }),
    recordKey(2, 0, { anchor: "ref_1", filter: "all", maxDepth: 15 }),
    recordKey(1, 3, { anchor: "ref_1", filter: "all", maxDepth: 15 }),
    recordKey(1, 0, { anchor: null, filter: "all", maxDepth: 15 }),
    recordKey(1, 0, { anchor: "ref_1", filter: "visible", maxDepth: 15 }),
    recordKey(1, 0, { anchor: "ref_1", filter: "all", maxDepth: 14 }),
  ]);
  assert.equal(keys.size, 6);
});
