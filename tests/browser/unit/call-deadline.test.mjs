// The background's call deadline and reply bound (extension/background/call-deadline.js,
// docs/protocol.md "Bounds and deadlines").
import { test } from "node:test";
import assert from "node:assert/strict";
import { boundedReply, MAX_REPLY_BYTES, withinCallBudget } from "../../../extension/background/call-deadline.js";

const m = globalThis.allwrightMessages;

test("a call that outlives the host's budget answers timeout; one within it answers its result", async () => {
  const slow = new Promise((resolve) => setTimeout(() => resolve({ late: true }), 400));
  const started = Date.now();
  await assert.rejects(
    withinCallBudget({ tool: "click_ax", budgetMs: 50 }, () => slow),
    (error) => m.isToolError(error) && error.code === "timeout" && /read the page/.test(error.hint),
  );
  assert.ok(Date.now() - started < 300, "answered at the budget, not when the tool finished");
  assert.deepEqual(await withinCallBudget({ tool: "list_tabs", budgetMs: 1_000 }, async () => ({ tabs: [] })), {
    tabs: [],
  });
  // A call without a budget (an older host) runs as before.
  assert.deepEqual(await withinCallBudget({ tool: "list_tabs" }, async () => ({ tabs: [] })), { tabs: [] });
});

test("a reply over the bound becomes result_too_large naming the paging arguments", () => {
  const small = m.resultOk("h1", { tree: "x".repeat(1000) });
  assert.equal(boundedReply(small, "get_accessibility_tree"), small);
  // Multi-byte text: the bound counts UTF-8 bytes, not UTF-16 units.
  const big = m.resultOk("h2", { tree: "€".repeat(Math.ceil(MAX_REPLY_BYTES / 3) + 10) });
  const refused = boundedReply(big, "get_accessibility_tree");
  assert.equal(refused.ok, false);
  assert.equal(refused.id, "h2");
  assert.equal(refused.error.code, "result_too_large");
  for (const argument of ["maxChars", "ref_id", "page"]) assert.match(refused.error.hint, new RegExp(argument));
  const failure = m.resultError("h3", m.toolError("timeout", "slow"));
  assert.equal(boundedReply(failure, "navigate"), failure);
});
