// What storage.session keeps of the side panel's call log (extension/background/side-panel/call-log-storage.js):
// long result strings are cut so that 200 calls stay under the 10 MB quota; everything else is kept.
import { test } from "node:test";
import assert from "node:assert/strict";
import { STORED_STRING_CHARS, storedCopyOf } from "../../../extension/background/side-panel/call-log-storage.js";

const call = (result) => ({
  id: 1,
  tool: "get_accessibility_tree",
  arguments: {},
  startedAt: "",
  durationMs: 3,
  ok: true,
  result,
});

test("a short result is stored as it was logged", () => {
  const logged = call({ tree: 'button "Buy" [ref_1]', snapshotId: "snapshot-1" });
  assert.equal(storedCopyOf(logged), logged);
});

test("a long tree keeps its start and says how long it was; the logged call is not changed", () => {
  const tree = "x".repeat(STORED_STRING_CHARS * 15);
  const logged = call({ tree, snapshotId: "snapshot-2", pageCount: 1 });
  const stored = storedCopyOf(logged);
  assert.ok(stored.result.tree.startsWith("x".repeat(STORED_STRING_CHARS)));
  assert.ok(stored.result.tree.length < STORED_STRING_CHARS + 100);
  assert.match(stored.result.tree, new RegExp(`\\[${tree.length} characters`));
  assert.equal(stored.result.snapshotId, "snapshot-2");
  assert.equal(stored.result.pageCount, 1);
  assert.equal(logged.result.tree, tree, "the in-memory log keeps the whole tree");
  // 200 such calls fit in storage.session's 10 MB.
  assert.ok(JSON.stringify(Array(200).fill(stored)).length < 10 * 2 ** 20);
});

test("calls without a result (errors, calls in flight) are stored as they are", () => {
  const failed = { ...call(undefined), ok: false, error: { code: "ref_not_found", message: "gone" } };
  assert.equal(storedCopyOf(failed), failed);
});
