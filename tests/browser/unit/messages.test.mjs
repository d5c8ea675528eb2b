// The shared message vocabulary (extension/shared/messages.js), loaded the way the background
// loads it: for its effect on globalThis.
import { test } from "node:test";
import assert from "node:assert/strict";
import "../../../extension/shared/messages.js";

const m = globalThis.allwrightMessages;

test("NativeToBackground guards", () => {
  assert.ok(m.isNativeCall({ type: "call", id: "1", tool: "navigate", arguments: { url: "x" } }));
  assert.ok(m.isNativeCall({ type: "call", id: "1", tool: "navigate" }));
  assert.ok(!m.isNativeCall({ type: "call", id: 1, tool: "navigate", arguments: {} }));
  assert.ok(!m.isNativeCall({ type: "call", id: "1", tool: "navigate", arguments: [] }));
  assert.ok(m.isNativeChunk({ type: "chunk", id: "s", index: 0, count: 1, data: "" }));
  assert.ok(!m.isNativeChunk({ type: "chunk", id: "s", index: 1, count: 1, data: "" }));
  assert.ok(!m.isNativeChunk(null));
});

test("BackgroundToNative constructors build messages their guard accepts", () => {
  assert.deepEqual(m.hello("chrome", "0.1.0"), { type: "hello", browser: "chrome", extensionVersion: "0.1.0", protocol: 1 });
  assert.ok(m.isBackgroundToNative(m.hello("firefox", "0.1.0")));
  assert.ok(!m.isBackgroundToNative(m.hello("safari", "0.1.0")));
  assert.ok(m.isBackgroundToNative(m.resultOk("4", { url: "u" })));
  assert.ok(m.isBackgroundToNative(m.resultError("4", m.toolError("timeout", "slow"))));
  assert.ok(!m.isBackgroundToNative(m.resultError("4", { code: "oops", message: "no such code" })));
});

test("BackgroundToContent and its reply", () => {
  const request = m.contentToolRequest("snapshot_document", { format: "json", contextId: "c", parentContextId: null });
  assert.ok(m.isContentToolRequest(request));
  assert.ok(!m.isContentToolRequest({ kind: "allwright/tool", tool: "navigate", arguments: {} }));
  assert.ok(m.isContentToolReply({ ok: true, result: { document: "{}" } }));
  assert.ok(m.isContentToolReply({ ok: false, error: { code: "ref_not_found", message: "gone", suggestions: ["ref_2"] } }));
  assert.ok(!m.isContentToolReply({ ok: true, result: "text" }));
  assert.ok(!m.isContentToolReply(undefined));
});

test("ContentToBackground load-core and its reply", () => {
  assert.ok(m.isLoadCoreRequest(m.loadCoreRequest(["script-src 'self'"])));
  assert.ok(!m.isLoadCoreRequest({ kind: "allwright/load-core" }));
  assert.ok(!m.isLoadCoreRequest({ kind: "allwright/load-core", metaPolicies: [1] }));
  assert.ok(m.isLoadCoreReply({ core: "wasm" }) && m.isLoadCoreReply({ core: "js" }));
  assert.ok(m.isLoadCoreReply({ ok: false, error: m.toolError("script_failed", "no") }));
  assert.ok(!m.isLoadCoreReply({ error: m.toolError("script_failed", "no") }));
  assert.ok(!m.isLoadCoreReply({ core: "asm" }));
});

test("toolError leaves out empty optional fields", () => {
  assert.deepEqual(m.toolError("no_tab", "none"), { code: "no_tab", message: "none" });
  assert.deepEqual(m.toolError("ref_not_found", "gone", { hint: "", suggestions: ["ref_1"] }), { code: "ref_not_found", message: "gone", suggestions: ["ref_1"] });
  assert.ok(Object.isFrozen(m));
});

test("dialog_open carries the prompt; a malformed prompt is left out", () => {
  const open = m.toolError("dialog_open", "an alert is open", { hint: "Ask the user.", dialog: { type: "alert", message: "Saved!", extra: 1 } });
  assert.deepEqual(open, { code: "dialog_open", message: "an alert is open", hint: "Ask the user.", dialog: { type: "alert", message: "Saved!" } });
  assert.ok(m.isToolError(open));
  assert.deepEqual(m.toolError("dialog_open", "?", { dialog: { type: "print", message: "" } }), { code: "dialog_open", message: "?" });
  assert.ok(!m.isToolError({ code: "dialog_open", message: "?", dialog: { type: "alert" } }));
  for (const code of ["page_blocked", "tab_not_visible", "not_supported_here"]) assert.ok(m.isToolError(m.toolError(code, "x")), code);
});

test("screenshot's and the probe's content tools are part of the vocabulary", () => {
  for (const tool of ["element_rect", "frame_offset", "ping"]) {
    assert.ok(m.isContentToolRequest(m.contentToolRequest(tool, {})), tool);
  }
});

test("ref_changed carries the target as read and as it is now; outcome_unknown is a code", () => {
  const changed = { ref: "ref_4", was: { role: "button", name: "Save draft" }, now: { role: "button", name: "Delete" } };
  const error = m.toolError("ref_changed", "ref_4 changed", { suggestions: ["ref_5"], changed: { ...changed, extra: 1 } });
  assert.deepEqual(error, { code: "ref_changed", message: "ref_4 changed", suggestions: ["ref_5"], changed });
  assert.ok(m.isToolError(error));
  assert.ok(!m.isToolError({ ...error, changed: { ref: "ref_4" } }), "a malformed change is no tool error");
  assert.equal(m.toolError("ref_changed", "x", { changed: { ref: 4 } }).changed, undefined);
  assert.ok(m.isToolError(m.toolError("outcome_unknown", "click_ax may have acted")));
  // An action that may have acted is never repeated: the error says so as a result would.
  assert.equal(m.toolError("outcome_unknown", "click_ax may have acted").retryAllowed, false);
  assert.equal(m.toolError("timeout", "no answer").retryAllowed, undefined);
});
