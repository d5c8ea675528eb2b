// Argument validation of the tools (extension/background/tools/validate.js) against the tool contract
// the extension ships (extension/shared/tool-contract.json).
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { closestNames, validateArguments as validateAgainst } from "../../../extension/background/tools/validate.js";

const CONTRACT = JSON.parse(readFileSync(new URL("../../../extension/shared/tool-contract.json", import.meta.url), "utf8"));
const validateArguments = (tool, args) => validateAgainst(CONTRACT, tool, args);

const ok = (tool, args) => {
  const outcome = validateArguments(tool, args);
  assert.equal(outcome.ok, true, JSON.stringify(outcome.error));
  return outcome.value;
};
const refused = (tool, args) => {
  const outcome = validateArguments(tool, args);
  assert.equal(outcome.ok, false, `expected ${tool}(${JSON.stringify(args)}) to be refused`);
  assert.equal(outcome.error.code, "invalid_arguments");
  assert.equal(typeof outcome.error.message, "string");
  assert.equal(typeof outcome.error.hint, "string", "every refusal carries a hint");
  return outcome.error;
};

test("get_accessibility_tree fills its defaults and keeps given values", () => {
  assert.deepEqual(ok("get_accessibility_tree", undefined), { filter: "all", maxDepth: 15, maxChars: 50_000 });
  assert.deepEqual(ok("get_accessibility_tree", {}), { filter: "all", maxDepth: 15, maxChars: 50_000 });
  assert.deepEqual(
    ok("get_accessibility_tree", { filter: "interactive", maxDepth: 100, maxChars: 100, ref_id: "ref_12", page: 2, frameId: 3, tabId: 9 }),
    { tabId: 9, frameId: 3, filter: "interactive", maxDepth: 100, maxChars: 100, ref_id: "ref_12", page: 2 },
  );
});

test("null means not given", () => {
  assert.deepEqual(ok("get_accessibility_tree", { filter: null, page: null }), { filter: "all", maxDepth: 15, maxChars: 50_000 });
});

test("get_accessibility_tree refuses bad values with a useful hint", () => {
  const filter = refused("get_accessibility_tree", { filter: "everything" });
  assert.deepEqual(filter.suggestions, ["all", "visible", "interactive"]);
  assert.match(refused("get_accessibility_tree", { maxDepth: 0 }).hint, /1 to 100/);
  assert.match(refused("get_accessibility_tree", { maxDepth: 101 }).message, /out of range/);
  assert.match(refused("get_accessibility_tree", { maxDepth: 2.5 }).message, /integer/);
  assert.match(refused("get_accessibility_tree", { maxDepth: "5" }).message, /integer/);
  refused("get_accessibility_tree", { maxChars: 99 });
  refused("get_accessibility_tree", { maxChars: 1_000_001 });
  assert.match(refused("get_accessibility_tree", { ref_id: "12" }).hint, /ref_12/);
  refused("get_accessibility_tree", { ref_id: "ref_" });
  refused("get_accessibility_tree", { page: 0 });
  refused("get_accessibility_tree", { frameId: -1 });
  refused("get_accessibility_tree", { tabId: "1" });
});

test("unknown arguments are refused, with the closest accepted names", () => {
  const error = refused("get_accessibility_tree", { maxdepth: 3 });
  assert.match(error.message, /unknown argument "maxdepth"/);
  assert.deepEqual(error.suggestions, ["maxDepth"]);
  assert.match(error.hint, /filter, maxDepth/);
  assert.deepEqual(closestNames("refId", ["ref_id", "page", "filter"]), ["ref_id"]);
});

test("arguments must be an object", () => {
  refused("get_accessibility_tree", [1, 2]);
  refused("get_accessibility_tree", "all");
});

test("accessibility_snapshot defaults and bounds", () => {
  assert.deepEqual(ok("accessibility_snapshot", {}), { format: "json", timeoutMs: 10_000 });
  assert.deepEqual(ok("accessibility_snapshot", { format: "yaml", mode: "ai", timeoutMs: 100 }), { format: "yaml", mode: "ai", timeoutMs: 100 });
  refused("accessibility_snapshot", { format: "xml" });
  refused("accessibility_snapshot", { mode: "default" });
  refused("accessibility_snapshot", { timeoutMs: 99 });
  refused("accessibility_snapshot", { timeoutMs: 120_001 });
});

test("navigate needs an http, https, file or about:blank URL", () => {
  for (const url of ["https://example.com/", "http://127.0.0.1:8080/x?y#z", "file:///tmp/page.html", "about:blank"]) {
    assert.equal(ok("navigate", { url }).url, url);
  }
  assert.match(refused("navigate", {}).message, /url is required/);
  for (const url of ["example.com", "javascript:alert(1)", "chrome://settings", "about:config", "data:text/html,hi", "ftp://x.test/"]) {
    assert.match(refused("navigate", { url }).message, /is not an absolute http, https or file URL, nor about:blank/, url);
  }
  refused("navigate", { url: 42 });
});

test("unknown tools are refused with the known ones as suggestions", () => {
  const error = refused("click_everything", {});
  assert.ok(error.suggestions.includes("click_ax") && error.suggestions.includes("get_accessibility_tree"), error.suggestions.join());
  refused("__proto__", {});
  refused("toString", {});
});

test("action tools: defaults, booleans, long text and lists", () => {
  assert.deepEqual(ok("type_ax", { ref_id: "ref_3", text: "hi" }), { ref_id: "ref_3", text: "hi", clear: true });
  assert.deepEqual(ok("set_field", { ref_id: "ref_3", text: "", submit: true }), { ref_id: "ref_3", text: "", clear: true, submit: true });
  assert.deepEqual(ok("press_key", { key: "Enter" }), { key: "Enter", modifiers: [] });
  assert.deepEqual(ok("press_key", { key: "a", modifiers: ["Control", "Shift"] }), { key: "a", modifiers: ["Control", "Shift"] });
  assert.deepEqual(ok("scroll", {}), { direction: "down" });
  assert.deepEqual(ok("wait_for_stable", {}), { quietMs: 500, timeoutMs: 10_000 });
  assert.deepEqual(ok("list_tabs", {}), {});
  ok("type_ax", { ref_id: "ref_3", text: "é".repeat(50_000) });
  refused("click_ax", {});
  refused("click_ax", { ref_id: "12" });
  refused("click_ax", { ref_id: "ref_x" });
  refused("type_ax", { ref_id: "ref_3", text: 5 });
  const tooLong = refused("type_ax", { ref_id: "ref_3", text: "x".repeat(50_001) });
  assert.match(tooLong.message, /50001 characters long, over the limit of 50000/);
  refused("type_ax", { ref_id: "ref_3", text: "x", clear: "yes" });
  refused("press_key", { key: "" });
  refused("press_key", { key: "a", modifiers: ["Hyper"] });
  refused("press_key", { key: "a", modifiers: ["Shift", "Shift"] });
  refused("press_key", { key: "a", modifiers: "Shift" });
  refused("scroll", { direction: "sideways" });
  refused("scroll", { amount: 0 });
  refused("scroll", { to: "into_view" });
  refused("select_tab", {});
  refused("new_tab", { url: "javascript:alert(1)" });
});

test("select_option takes exactly one of label and value", () => {
  ok("select_option", { ref_id: "ref_1", label: "France" });
  ok("select_option", { ref_id: "ref_1", value: "fr" });
  assert.match(refused("select_option", { ref_id: "ref_1" }).message, /give label or value$/);
  assert.match(refused("select_option", { ref_id: "ref_1", label: "France", value: "fr" }).message, /not both/);
  refused("select_option", { ref_id: "ref_1", label: "" });
});

test("the contract's cross-argument rules are data", () => {
  const error = refused("scroll", { to: "into_view" });
  assert.equal(error.message, 'scroll: to "into_view" needs ref_id');
  assert.match(error.hint, /ref_12/);
  ok("scroll", { to: "into_view", ref_id: "ref_4" });
  assert.match(refused("select_option", { ref_id: "ref_1" }).hint, /label .*France.* or value/);
});

test("the keyName format refuses chords and misspelt named keys", () => {
  const contract = {
    generatedFrom: "test",
    tools: { press: { arguments: { key: { type: "string", required: true, format: "keyName", maxLength: 32 } } } },
  };
  const check = (key) => validateAgainst(contract, "press", { key });
  for (const key of ["Enter", "a", "+", " ", "ArrowDown", "F5", "Unidentified"]) assert.equal(check(key).ok, true, key);
  assert.match(check("Control+a").error.message, /key combination/);
  assert.deepEqual(check("enter").error.suggestions, ["Enter"]);
  assert.deepEqual(check("Esc").error.suggestions, ["Escape"]);
  assert.deepEqual(check("space").error.suggestions, [" "]);
});

test("the contract describes every tool with the types the validator knows", () => {
  const names = Object.keys(CONTRACT.tools);
  assert.ok(names.includes("get_accessibility_tree") && names.includes("close_tab"), names.join());
  for (const [tool, entry] of Object.entries(CONTRACT.tools)) {
    for (const [name, rule] of Object.entries(entry.arguments)) {
      assert.ok(["integer", "number", "boolean", "string", "array", "object"].includes(rule.type), `${tool}.${name}`);
      if (rule.pattern !== undefined) new RegExp(rule.pattern, "u");
    }
  }
});

test("fill_form takes 1 to 50 distinct fields, each {ref_id, value} checked by its own rule", () => {
  const fields = [
    { ref_id: "ref_3", value: "Ada" },
    { ref_id: "ref_4", value: "true" },
    { ref_id: "ref_5", value: "" },
  ];
  assert.deepEqual(ok("fill_form", { fields, frameId: 2 }), { fields, frameId: 2 });
  const fifty = Array.from({ length: 50 }, (_, index) => ({ ref_id: `ref_${index}`, value: "x" }));
  ok("fill_form", { fields: fifty });

  assert.match(refused("fill_form", {}).message, /argument fields is required/);
  assert.match(refused("fill_form", { fields: [] }).message, /at least 1/);
  assert.match(refused("fill_form", { fields: { ref_id: "ref_1", value: "x" } }).message, /fields must be a list/);
  const many = refused("fill_form", { fields: [...fifty, { ref_id: "ref_99", value: "x" }] });
  assert.match(many.message, /51 items; the limit is 50/);
  assert.match(many.hint, /at most 50/);
  assert.match(refused("fill_form", { fields: ["ref_1"] }).message, /fields\[0\] must be an object/);
  assert.match(refused("fill_form", { fields: [{ ref_id: "ref_1" }] }).message, /fields\[0\]\.value is missing/);
  assert.match(refused("fill_form", { fields: [{ ref_id: "ref_1", value: null }] }).message, /value is missing/);
  assert.match(refused("fill_form", { fields: [{ value: "x" }] }).message, /fields\[0\]\.ref_id is missing/);
  assert.match(refused("fill_form", { fields: [{ ref_id: "12", value: "x" }] }).message, /fields\[0\]\.ref_id "12" is malformed/);
  const boolean = refused("fill_form", { fields: [{ ref_id: "ref_1", value: true }] });
  assert.match(boolean.message, /fields\[0\]\.value must be a string/);
  assert.match(boolean.hint, /pass "true"/);
  const extra = refused("fill_form", { fields: [{ ref_id: "ref_1", value: "x", clear: false }] });
  assert.match(extra.message, /no member "clear"/);
  assert.deepEqual(extra.suggestions, ["ref_id", "value"]);
  const repeated = refused("fill_form", {
    fields: [
      { ref_id: "ref_1", value: "a" },
      { ref_id: "ref_2", value: "b" },
      { ref_id: "ref_1", value: "c" },
    ],
  });
  assert.match(repeated.message, /fields\[2\]\.ref_id repeats "ref_1"/);
  const long = refused("fill_form", { fields: [{ ref_id: "ref_1", value: "x".repeat(50_001) }] });
  assert.match(long.message, /50001 characters long/);
  assert.ok(long.message.length < 200, "the value is not echoed");
});

test("drag takes from_ref and exactly one of to_ref and by {x, y}", () => {
  assert.deepEqual(ok("drag", { from_ref: "ref_1", to_ref: "ref_2" }), { from_ref: "ref_1", to_ref: "ref_2" });
  assert.deepEqual(ok("drag", { from_ref: "ref_1", by: { x: -40, y: 0 } }), { from_ref: "ref_1", by: { x: -40, y: 0 } });
  assert.match(refused("drag", { to_ref: "ref_2" }).message, /argument from_ref is required/);
  assert.match(refused("drag", { from_ref: "ref_1" }).message, /give to_ref or by/);
  assert.match(refused("drag", { from_ref: "ref_1", to_ref: "ref_2", by: { x: 1, y: 1 } }).message, /not both/);
  assert.match(refused("drag", { from_ref: "ref_1", by: [1, 2] }).message, /by must be an object \{x, y\}/);
  assert.match(refused("drag", { from_ref: "ref_1", by: { x: 1 } }).message, /by\.y is missing/);
  assert.match(refused("drag", { from_ref: "ref_1", by: { x: 1, y: 2, z: 3 } }).message, /by has no member "z"/);
  assert.match(refused("drag", { from_ref: "ref_1", by: { x: 1.5, y: 2 } }).message, /by\.x must be an integer/);
  assert.match(refused("drag", { from_ref: "ref_1", by: { x: 10_001, y: 2 } }).message, /by\.x 10001 is out of range/);
});

test("resize takes a viewport within the contract's bounds", () => {
  assert.deepEqual(ok("resize", { width: 390, height: 844 }), { width: 390, height: 844 });
  assert.deepEqual(ok("resize", { width: 7680, height: 4320, tabId: 3 }), { width: 7680, height: 4320, tabId: 3 });
  assert.match(refused("resize", { width: 390 }).message, /height/);
  assert.match(refused("resize", { width: 199, height: 600 }).hint, /200 to 7680/);
  refused("resize", { width: 800, height: 4321 });
  assert.match(refused("resize", { width: 800.5, height: 600 }).message, /integer/);
});

test("a number argument takes fractions within its range", () => {
  const contract = {
    generatedFrom: "test",
    tools: { zoom: { arguments: { ratio: { type: "number", minimum: 0, maximum: 8 } } } },
  };
  const check = (ratio) => validateAgainst(contract, "zoom", { ratio });
  for (const ratio of [0, 2.625, 8]) assert.equal(check(ratio).ok, true, String(ratio));
  assert.match(check(8.5).error.message, /out of range/);
  assert.match(check(-1).error.hint, /a number from 0 to 8/);
  assert.match(check("2").error.message, /must be a number/);
  assert.equal(check(Number.NaN).ok, false);
});
