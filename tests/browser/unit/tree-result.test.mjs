// A tree read's result from the core's output (extension/shared/tree-result.js), the one function
// the content script and the background both run: the fields it reports, the page-cut notice,
// the snapshot id exactly when the frame keeps the snapshot, and the ref range the read handed out.
import { test } from "node:test";
import assert from "node:assert/strict";
import { keepableLineCount, splitOutput, treeResultOf } from "../../../extension/shared/tree-result.js";

/** What a read of a document prepares before its core call. */
function prepared(overrides = {}) {
  return {
    counter: 40,
    document: "doc-token",
    url: "https://example.test/",
    title: "Example",
    cutNotice: null,
    sinceFields: {},
    snapshotId: "snapshot-abc-3",
    lineCapacity: 10,
    engine: { engine: "wasm-worker" },
    ...overrides,
  };
}

const envelope = (fields) => JSON.stringify({ ok: true, lineCount: 2, newRefs: [4, 9], result: { pageCount: 1, autoDegraded: false, ...fields } });

test("the result carries the tree, the core's fields, the snapshot, the engine and the ref range", () => {
  const { envelope: parsed, body } = splitOutput(`${envelope({ truncated: false })}\nmain\n  button "OK" [ref_41]`);
  assert.deepEqual(treeResultOf(parsed, body, prepared()), {
    url: "https://example.test/",
    title: "Example",
    tree: 'main\n  button "OK" [ref_41]',
    pageCount: 1,
    autoDegraded: false,
    truncated: false,
    snapshotId: "snapshot-abc-3",
    engine: "wasm-worker",
    refIssue: { document: "doc-token", first: 41, last: 42 },
  });
});

test("a read that handed out no number reports an empty range above its counter", () => {
  const { envelope: parsed, body } = splitOutput(JSON.stringify({ ok: true, lineCount: 0, newRefs: [], result: {} }));
  assert.deepEqual(treeResultOf(parsed, body, prepared({ snapshotId: null })).refIssue, {
    document: "doc-token",
    first: 41,
    last: 40,
  });
});

test("a cut page is marked degraded and truncated, and its notice joins the core's", () => {
  const cutNotice = "The page has more than 200000 nodes.";
  const alone = splitOutput(envelope({}));
  const result = treeResultOf(alone.envelope, alone.body, prepared({ cutNotice }));
  assert.equal(result.autoDegraded, true);
  assert.equal(result.truncated, true);
  assert.equal(result.notice, cutNotice);
  const joined = splitOutput(envelope({ notice: "Overlays are open." }));
  assert.equal(treeResultOf(joined.envelope, joined.body, prepared({ cutNotice })).notice, `Overlays are open. ${cutNotice}`);
});

test("the snapshot id is reported exactly when the line count is one the frame keeps", () => {
  for (const [lineCount, kept] of [
    [0, true],
    [10, true],
    [11, false],
    [-1, false],
    [1.5, false],
    ["2", false],
    [undefined, false],
  ]) {
    assert.equal(keepableLineCount(lineCount, 10), kept, String(lineCount));
    const parsed = { ok: true, lineCount, newRefs: [], result: {} };
    assert.equal(treeResultOf(parsed, "", prepared()).snapshotId !== undefined, kept, String(lineCount));
  }
});

test("a since read's fallback to the whole tree is reported", () => {
  const { envelope: parsed, body } = splitOutput(envelope({}));
  const result = treeResultOf(parsed, body, prepared({ sinceFields: { full: true, fullReason: "document_changed" } }));
  assert.equal(result.full, true);
  assert.equal(result.fullReason, "document_changed");
});

test("a refused call throws the core's error", () => {
  const error = { code: "ref_not_found", message: "ref_9 was not found" };
  assert.throws(() => splitOutput(JSON.stringify({ ok: false, error })), (thrown) => thrown === error || thrown.code === "ref_not_found");
});
