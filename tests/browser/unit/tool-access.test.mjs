// The tier gate (extension/background/tools/tool-gate.js) and the call log's redaction
// (extension/background/side-panel/call-redaction.js), in Node: docs/protocol/access.md, "Tool access", and
// docs/agent-tools.md, "Watching the agent".
import test from "node:test";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { accessRefusal, describeAccess, isListed } from "../../../extension/background/tools/tool-gate.js";
import { createRedactor, REDACTED } from "../../../extension/background/side-panel/call-redaction.js";

const contract = JSON.parse(
  await readFile(new URL("../../../extension/shared/tool-contract.json", import.meta.url), "utf8"),
);
const listedFor = (access) => Object.keys(contract.tools).filter((name) => isListed(contract.tools[name], access));

test("the gate lists what the contract's tiers and devTiers say, and refuses the rest with not_in_tier", () => {
  const ask = { tier: "ask", dev: false };
  assert.equal(accessRefusal(contract, "get_accessibility_tree", ask), null);
  const refusal = accessRefusal(contract, "navigate", ask);
  assert.equal(refusal.code, "not_in_tier");
  assert.match(refusal.message, /navigate .*\(ask\)/);
  assert.ok(refusal.hint.includes("side panel"));
  assert.deepEqual(refusal.suggestions, listedFor(ask));
  assert.ok(!refusal.suggestions.includes("navigate"));
  // Dev mode adds execute_js and, in Mid, the Full fallbacks.
  assert.equal(accessRefusal(contract, "execute_js", { tier: "full", dev: false })?.code, "not_in_tier");
  assert.equal(accessRefusal(contract, "execute_js", { tier: "full", dev: true }), null);
  assert.equal(accessRefusal(contract, "get_frames", { tier: "mid", dev: false })?.code, "not_in_tier");
  assert.equal(accessRefusal(contract, "get_frames", { tier: "mid", dev: true }), null);
  // Dev mode never opens Ask.
  assert.equal(accessRefusal(contract, "execute_js", { tier: "ask", dev: true })?.code, "not_in_tier");
  // A name that is no tool is left to argument validation.
  assert.equal(accessRefusal(contract, "teleport", ask), null);
  assert.equal(describeAccess({ tier: "mid", dev: true }), "mid + dev");
});

test("typed text is kept only when the result says the field was not sensitive", () => {
  const redact = createRedactor();
  const args = { ref_id: "ref_3", text: "hunter2-secret" };
  assert.equal(redact.arguments("type_ax", args, undefined).text, REDACTED, "unknown while running");
  assert.equal(redact.arguments("type_ax", args, { sensitive: true }).text, REDACTED);
  assert.equal(redact.arguments("type_ax", args, { value: "x" }).text, REDACTED, "a result that does not say");
  assert.equal(redact.arguments("set_field", args, { sensitive: false }).text, "hunter2-secret");
  assert.equal(redact.result("iframe_type", { value: "hunter2-secret", sensitive: true }).value, REDACTED);
  assert.equal(redact.arguments("navigate", { url: "https://example.com/" }, {}).url, "https://example.com/");
});

test("a secret typed once is scrubbed from everything logged after it; secret-named fields and images are not kept", () => {
  const redact = createRedactor();
  redact.remember("type_ax", { text: "424242-otp" }, undefined);
  redact.remember("type_ax", { text: "ordinary words" }, { sensitive: false });
  const tree = redact.result("get_accessibility_tree", {
    tree: 'textbox "Code" value="424242-otp"\ntext "ordinary words"',
  });
  assert.equal(tree.tree, `textbox "Code" value="${REDACTED}"\ntext "ordinary words"`);
  const fields = redact.arguments("custom", { newPassword: "p4ss", files: ["/etc/passwd"], label: "ok" }, {});
  assert.deepEqual(fields, { newPassword: REDACTED, files: REDACTED, label: "ok" });
  const shot = redact.result("screenshot", { data: "iVBORw0KGgo=", width: 2 });
  assert.match(shot.data, /not logged: 12 base64 characters/);
  const long = redact.result("get_accessibility_tree", { tree: "x".repeat(25_000) });
  assert.ok(long.tree.length < 21_000 && long.tree.includes("5000 more characters"));
});

test("fields named by the secret-field rule's words are redacted; near-misses are kept", () => {
  const redact = createRedactor();
  const logged = redact.result("execute_js", {
    apiKey: "k-1",
    api_key: "k-2",
    pinCode: "1234",
    otpValue: "999999",
    clientSecret: "s-1",
    opinion: "kept",
    spinner: "kept",
    tokenizer: "redacted by the substring rule",
  });
  for (const name of ["apiKey", "api_key", "pinCode", "otpValue", "clientSecret", "tokenizer"]) {
    assert.equal(logged[name], REDACTED, name);
  }
  assert.equal(logged.opinion, "kept");
  assert.equal(logged.spinner, "kept");
});

test("select_option's choice is kept only when its result says the select was not sensitive", () => {
  const redact = createRedactor();
  const args = { ref_id: "ref_3", value: "07" };
  assert.equal(redact.arguments("select_option", args, undefined).value, REDACTED, "unknown while running");
  assert.equal(redact.arguments("select_option", args, { sensitive: true }).value, REDACTED);
  assert.equal(redact.arguments("select_option", args, { sensitive: false }).value, "07");
  const secret = redact.result("select_option", { selected: { label: "07", value: "07" }, sensitive: true });
  assert.equal(secret.selected, REDACTED);
  const ordinary = redact.result("select_option", { selected: { label: "Red", value: "red" }, sensitive: false });
  assert.deepEqual(ordinary.selected, { label: "Red", value: "red" });
});

test("fill_form's values are kept only for the fields its result says are not sensitive", () => {
  const redact = createRedactor();
  const args = {
    fields: [
      { ref_id: "ref_1", value: "Ada Lovelace" },
      { ref_id: "ref_2", value: "hunter2-secret" },
      { ref_id: "ref_3", value: "true" },
      { ref_id: "ref_4", value: "never tried" },
    ],
  };
  const running = redact.arguments("fill_form", args, undefined);
  assert.deepEqual(
    running.fields.map((field) => field.value),
    [REDACTED, REDACTED, REDACTED, REDACTED],
    "nothing is known while it runs",
  );
  assert.deepEqual(
    running.fields.map((field) => field.ref_id),
    ["ref_1", "ref_2", "ref_3", "ref_4"],
  );
  const result = {
    success: false,
    filled: ["ref_1", "ref_2", "ref_3"],
    fields: [
      { ref_id: "ref_1", kind: "text", value: "Ada Lovelace", sensitive: false },
      { ref_id: "ref_2", kind: "text", value: "••••", sensitive: true },
      { ref_id: "ref_3", kind: "checkbox", checked: true, sensitive: false },
    ],
    failed: { ref_id: "ref_4", code: "not_actionable", message: "ref_4 refused never tried" },
    notAttempted: [],
  };
  redact.remember("fill_form", args, result);
  const kept = redact.arguments("fill_form", args, result);
  assert.deepEqual(
    kept.fields.map((field) => field.value),
    ["Ada Lovelace", REDACTED, "true", REDACTED],
  );
  const logged = redact.result("fill_form", result);
  assert.equal(logged.fields[0].value, "Ada Lovelace");
  assert.equal(logged.fields[1].value, REDACTED);
  // The value of a field that says nothing is scrubbed from what is logged later, the failure's
  // message included; a check box's "true" is not.
  assert.doesNotMatch(logged.failed.message, /never tried/);
  assert.doesNotMatch(JSON.stringify(redact.result("execute_js", { value: "x hunter2-secret y" })), /hunter2-secret/);
  assert.equal(redact.result("execute_js", { value: "true" }).value, "true");
  // Unknown results (an error) keep nothing.
  const failedCall = redact.arguments("fill_form", args, undefined);
  assert.ok(failedCall.fields.every((field) => field.value === REDACTED));
});
