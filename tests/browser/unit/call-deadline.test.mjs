// The background's call deadline and reply bound (extension/background/host/call-deadline.js,
// docs/protocol/host-safety.md "Bounds and deadlines").
import { test } from "node:test";
import assert from "node:assert/strict";
import { boundedReply, jsonBytesAtMost, MAX_REPLY_BYTES, withinCallBudget } from "../../../extension/background/host/call-deadline.js";

const m = globalThis.allwrightMessages;

test("a call that outlives the host's budget answers timeout; one within it answers its result", async () => {
  const slow = new Promise((resolve) => setTimeout(() => resolve({ late: true }), 400));
  const started = Date.now();
  await assert.rejects(
    withinCallBudget({ tool: "get_accessibility_tree", budgetMs: 50 }, () => slow),
    (error) => m.isToolError(error) && error.code === "timeout" && /maxChars/.test(error.hint),
  );
  assert.ok(Date.now() - started < 300, "answered at the budget, not when the tool finished");
  assert.deepEqual(await withinCallBudget({ tool: "list_tabs", budgetMs: 1_000 }, async () => ({ tabs: [] })), {
    tabs: [],
  });
  // A call without a budget (an older host) runs as before.
  assert.deepEqual(await withinCallBudget({ tool: "list_tabs" }, async () => ({ tabs: [] })), { tabs: [] });
});

test("a tool that changes the page answers outcome_unknown, never retry, and its late result is reported", async () => {
  const late = [];
  const slow = new Promise((resolve) => setTimeout(() => resolve({ progress: "observed" }), 200));
  await assert.rejects(
    withinCallBudget({ id: "h9", tool: "click_ax", budgetMs: 50 }, () => slow, {
      changesPage: true,
      onLateOutcome: (outcome) => late.push(outcome),
    }),
    (error) =>
      m.isToolError(error) &&
      error.code === "outcome_unknown" &&
      /Do not repeat/.test(error.hint) &&
      !/retry|try again/i.test(error.hint),
  );
  assert.deepEqual(late, [], "reported when it comes, not before");
  await slow;
  await new Promise((resolve) => setTimeout(resolve, 0));
  assert.deepEqual(late, [{ ok: true, result: { progress: "observed" } }]);
  // A failure that comes late is reported too; one within the budget is the answer itself.
  const failing = new Promise((_, reject) => setTimeout(() => reject(m.toolError("not_actionable", "gone")), 100));
  await assert.rejects(withinCallBudget({ tool: "type_ax", budgetMs: 20 }, () => failing, { changesPage: true, onLateOutcome: (outcome) => late.push(outcome) }));
  await failing.catch(() => {});
  await new Promise((resolve) => setTimeout(resolve, 0));
  assert.equal(late[1].ok, false);
  assert.equal(late[1].error.code, "not_actionable");
  const quick = await withinCallBudget({ tool: "click_ax", budgetMs: 500 }, async () => ({ done: true }), { changesPage: true, onLateOutcome: (outcome) => late.push(outcome) });
  assert.deepEqual(quick, { done: true });
  assert.equal(late.length, 2);
});

test("late outcomes come once, with the next result, and keep no page text", async () => {
  const { rememberLateOutcome, takeLateOutcomes } = await import("../../../extension/background/host/late-outcomes.js");
  rememberLateOutcome({ id: "h1", tool: "click_ax" }, { ok: true, result: { progress: "observed", evidence: ["text_changed"], retryAllowed: true, name: "Pay now", value: "secret" } });
  rememberLateOutcome({ id: "h2", tool: "type_ax" }, { ok: false, error: m.toolError("ref_not_found", "ref_3 was not found") });
  const taken = takeLateOutcomes();
  assert.equal(taken.length, 2);
  assert.deepEqual(
    { ...taken[0], finishedAt: undefined },
    { callId: "h1", tool: "click_ax", finishedAt: undefined, ok: true, progress: "observed", evidence: ["text_changed"], retryAllowed: true },
  );
  assert.deepEqual(taken[1].error, { code: "ref_not_found", message: "ref_3 was not found" });
  assert.deepEqual(takeLateOutcomes(), []);
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

test("the bound of a reply's JSON is never below the JSON it writes", () => {
  const utf8Bytes = (value) => new TextEncoder().encode(JSON.stringify(value)).length;
  const pieces = ["a", "\"", "\\", "\n", "\u0001", "\u007f", "é", "€", "😀", "\ud800", "\u2028", " "];
  let seed = 7;
  const random = (count) => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed % count;
  };
  for (let round = 0; round < 300; round += 1) {
    const text = Array.from({ length: random(40) }, () => pieces[random(pieces.length)]).join("");
    const value = {
      tree: text,
      [text.slice(0, 5)]: [1.5e300, -0, true, null, text, { nested: [text, 42] }],
      refs: Array.from({ length: random(5) }, (_, index) => [index, "button", text, 1]),
    };
    const bytes = utf8Bytes(value);
    assert.ok(jsonBytesAtMost(value, bytes * 7 + 1000), `${JSON.stringify(value)} is within a loose bound`);
    assert.equal(jsonBytesAtMost(value, bytes - 1), false, `${JSON.stringify(value)} takes ${bytes} bytes`);
  }
  // What JSON writes in its own way is left to the exact count.
  assert.equal(jsonBytesAtMost({ when: new Date(0) }, 1000), false);
  assert.equal(jsonBytesAtMost({ big: 1n }, 1000), false);
});
