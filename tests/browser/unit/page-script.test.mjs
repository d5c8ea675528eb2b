// execute_js's page half (extension/background/shadow-and-js/page-script.js), in Node: how values are
// described, the limits, and what a hostile value cannot do (throwing getters, a toJSON that never
// returns, cycles, huge strings). The browsers run the same function (tests/extension/shadow_dev.rs).
import { test } from "node:test";
import assert from "node:assert/strict";
import { pageScript } from "../../../extension/background/shadow-and-js/page-script.js";

const LIMIT = 100_000;
const run = (code, timeoutMs = 1_000) => pageScript("evaluate", code, timeoutMs, LIMIT);
const describe = (value) => pageScript("describe", value, 0, LIMIT);
const valueOf = (answer) => JSON.parse(answer.json);

test("values of each kind are described as JSON with their type", async () => {
  const cases = [
    ["'text'", "text", "string"],
    ["6 * 7", 42, "number"],
    ["0 / 0", "NaN", "number"],
    ["true", true, "boolean"],
    ["undefined", null, "undefined"],
    ["null", null, "null"],
    ["2n ** 70n", "1180591620717411303424n", "bigint"],
    ["Symbol('s')", "Symbol(s)", "symbol"],
    ["(function named() {})", "[function named]", "function"],
    ["[1, undefined, () => 1]", [1, "[undefined]", "[function (anonymous)]"], "array"],
    ["new Map([['k', 1]])", [["k", 1]], "object"],
    ["new Error('bad')", "Error: bad", "object"],
    ["let a = 1; a + 1", 2, "number"],
  ];
  for (const [code, expected, type] of cases) {
    const answer = await run(code);
    assert.equal(answer.outcome, "value", code);
    assert.deepEqual(valueOf(answer), expected, code);
    assert.equal(answer.type, type, code);
    assert.equal(answer.truncated, false, code);
  }
});

test("promises are awaited within the time limit; throws and rejections are reported", async () => {
  assert.deepEqual(valueOf(await run("Promise.resolve({done: 1})")), { done: 1 });
  assert.deepEqual(await run("new Promise(() => {})", 50), { outcome: "timeout" });
  const thrown = await run("throw new TypeError('nope')");
  assert.equal(thrown.outcome, "thrown");
  assert.match(thrown.message, /TypeError: nope/);
  const rejected = await run("Promise.reject(new Error('later'))");
  assert.equal(rejected.outcome, "thrown");
  assert.match(rejected.message, /Error: later/);
  assert.equal((await run("this is not code")).outcome, "thrown");
});

test("a hostile value cannot break the answer", async () => {
  const cyclic = { name: "loop" };
  cyclic.self = cyclic;
  assert.deepEqual(valueOf(await describe(cyclic)), { name: "loop", self: "[circular]" });
  const hostile = {
    get boom() {
      throw new Error("exploded");
    },
    toJSON() {
      throw new Error("toJSON must never be called");
    },
  };
  assert.deepEqual(valueOf(await describe(hostile)), {
    boom: "[getter threw: exploded]",
    toJSON: "[function toJSON]",
  });
  const proxy = new Proxy(
    {},
    {
      ownKeys() {
        throw new Error("no keys for you");
      },
    },
  );
  assert.match(valueOf(await describe(proxy)), /unreadable: no keys for you/);
  // A prototype toJSON (here on Object.prototype and Array.prototype) is never called either.
  Object.prototype.toJSON = () => "hijacked";
  Array.prototype.toJSON = () => "hijacked";
  try {
    assert.deepEqual(valueOf(await describe({ list: [1, 2] })), { list: [1, 2] });
  } finally {
    delete Object.prototype.toJSON;
    delete Array.prototype.toJSON;
  }
});

test("the answer stays within its limit", async () => {
  const huge = await describe("x".repeat(3_000_000));
  assert.equal(huge.truncated, true);
  assert.ok(huge.json.length <= LIMIT + 10, huge.json.length);
  const wide = await describe(Array.from({ length: 50_000 }, (_, index) => `item ${index}`));
  assert.equal(wide.truncated, true);
  assert.ok(valueOf(wide).length <= 1000);
  let deep = {};
  for (let depth = 0; depth < 100; depth++) deep = { deeper: deep };
  assert.match(JSON.stringify(valueOf(await describe(deep))), /too deep/);
  const many = await describe(Array.from({ length: 900 }, () => "y".repeat(1_000)));
  assert.equal(many.truncated, true);
  assert.ok(many.json.length <= LIMIT + 1_000, many.json.length);
});
