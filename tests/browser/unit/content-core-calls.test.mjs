// How a frame gets its tree core and calls it, without a browser: the load-core exchange and the
// trap rule (extension/content/tree/core-loading.js: a trapped core is dropped, a tool error
// passes through) and the service worker's core as a frame calls it
// (tree/worker-core-client.js: one resend, checked replies, the generated content read in the
// page, the snapshot's side of a diff; docs/performance/strict-csp.md, "Reads since a snapshot in
// the service worker").
import { test } from "node:test";
import assert from "node:assert/strict";
import { FakeElement, installFakeDom } from "./fake-dom.mjs";
import { packLineRecords } from "../../../extension/shared/line-records.js";
import { PackedWriter } from "../../../extension/content/tree/packed-facts.js";
import {
  FACTS_VERSION,
  GENERATED_CONTENT_POSSIBLE,
  KIND_ELEMENT,
  KIND_TEXT,
  NODE_STRIDE,
} from "../../../extension/shared/generated/fact-layout.js";

globalThis.window = globalThis;
globalThis.Element = FakeElement;
const { describe, engineOf, loadCore, runCore } = await import("../../../extension/content/tree/core-loading.js");
const { workerCore } = await import("../../../extension/content/tree/worker-core-client.js");
const coreLoading = await import("../../../extension/content/tree/core-loading.js");

/** Replaces the extension's runtime with one answering `answer(message)`; returns the messages sent. */
function runtimeAnswering(answer) {
  const sent = [];
  globalThis.chrome = {
    runtime: {
      sendMessage: async (message) => {
        sent.push(message);
        return answer(message, sent.length);
      },
    },
  };
  return sent;
}

/** An injected core as the background's injection leaves it on globalThis. */
const injectedCore = (flavour, factsVersion = FACTS_VERSION) => ({
  flavour,
  ready: Promise.resolve(),
  factsVersion: () => factsVersion,
});

async function rejection(promise) {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  assert.fail("expected a rejection");
}

test("the load-core request carries the document's CSP meta policies only, whatever the case of http-equiv", async () => {
  const document = installFakeDom();
  const meta = (equiv, content) => new FakeElement("meta", { "http-equiv": equiv, ...(content === undefined ? {} : { content }) });
  document.append(
    new FakeElement("head").append(
      meta(" Content-Security-Policy ", "script-src 'self'"),
      meta("refresh", "5"),
      meta("content-security-policy"),
    ),
  );
  delete globalThis.allwrightAxCore;
  const sent = runtimeAnswering(() => {
    globalThis.allwrightAxCore = injectedCore("js");
    return { core: "js" };
  });
  const core = await loadCore();
  assert.deepEqual(sent, [{ kind: "allwright/load-core", metaPolicies: ["script-src 'self'", ""] }]);
  assert.equal(engineOf(core), "js-page");
  // Loaded once: later reads share the core.
  assert.equal(await loadCore(), core);
  assert.equal(sent.length, 1);
});

/** Drops the frame's core as a trap does, so that the next loadCore asks again. */
const dropCore = () => rejection(runCore(() => Promise.reject(new Error("dropped"))));

test("a core trap drops the core so that the next read loads a fresh one; a tool error passes as it is", async () => {
  installFakeDom();
  await dropCore();
  globalThis.allwrightAxCore = injectedCore("wasm");
  const first = await loadCore();
  assert.equal(engineOf(first), "wasm-page");
  const trap = await rejection(runCore(() => {
    throw new WebAssembly.RuntimeError("unreachable");
  }));
  assert.deepEqual(trap, { code: "script_failed", message: "the tree core failed: unreachable" });
  assert.equal(globalThis.allwrightAxCore, undefined);
  const toolError = { code: "ref_not_found", message: "gone" };
  assert.equal(await rejection(runCore(async () => Promise.reject(toolError))), toolError);
  assert.equal(await runCore(() => "output"), "output");
  const sent = runtimeAnswering(() => {
    globalThis.allwrightAxCore = injectedCore("js");
    return { core: "js", fallback: "the worker's core failed" };
  });
  const fresh = await loadCore();
  assert.notEqual(fresh, first);
  assert.equal(sent.length, 1);
  assert.equal(coreLoading.engineFallback, "the worker's core failed");
});

test("a failed load is not kept: each way the background's answer can fail is a script_failed or its own error", async () => {
  installFakeDom();
  await dropCore();
  const failures = [
    [() => Promise.reject(new Error("no receiver")), /could not ask the extension for the tree core: no receiver/],
    [() => ({ ok: false, error: { code: "csp_blocked", message: "no core allowed" } }), /no core allowed/],
    [() => ({ core: "css" }), /did not load the tree core/],
    [() => undefined, /did not load the tree core/],
    [() => ({ core: "wasm" }), /injected but did not start/],
    [
      () => {
        globalThis.allwrightAxCore = injectedCore("wasm", FACTS_VERSION + 1);
        return { core: "wasm" };
      },
      /different builds/,
    ],
    [() => ({ core: "worker", factsVersion: FACTS_VERSION - 1 }), /different builds/],
  ];
  for (const [answer, message] of failures) {
    delete globalThis.allwrightAxCore;
    runtimeAnswering(answer);
    const error = await rejection(loadCore());
    assert.match(error.message, message);
  }
  runtimeAnswering(() => ({ core: "worker", factsVersion: FACTS_VERSION }));
  delete globalThis.allwrightAxCore;
  assert.equal(engineOf(await loadCore()), "wasm-worker");
});

test("a thrown value's text: an Error's message, else its name, else the value as a string", () => {
  assert.equal(describe(new Error("boom")), "boom");
  assert.equal(describe(new TypeError("")), "TypeError");
  assert.equal(describe("plain"), "plain");
  assert.equal(describe(undefined), "undefined");
});

/** A node table of `kinds` (each a flags word), NODE_STRIDE numbers a node. */
const nodeTable = (flagsList) =>
  Uint32Array.from(flagsList.flatMap((flags) => [flags, ...new Array(NODE_STRIDE - 1).fill(0)]));

/** A worker reply with the given output and packed records. */
const reply = (output, records = new Uint8Array(0), extra = {}) => ({ ok: true, output, records, ...extra });

test("the worker's core reads the generated content of flagged elements only, in the page, before the call", async () => {
  const sent = runtimeAnswering(() => reply("tree"));
  const core = workerCore(FACTS_VERSION);
  assert.equal(core.engine, "wasm-worker");
  const asked = [];
  const pseudo = {
    read(node, after) {
      asked.push([node, after]);
      return node === 2 && after ? null : `"${node}${after ? "a" : "b"}"`;
    },
  };
  const nodes = nodeTable([
    KIND_ELEMENT,
    KIND_ELEMENT | GENERATED_CONTENT_POSSIBLE,
    KIND_ELEMENT | GENERATED_CONTENT_POSSIBLE,
    KIND_TEXT | GENERATED_CONTENT_POSSIBLE,
  ]);
  const output = await core.buildTextTree({
    strings: "",
    stringLengths: new Uint32Array(0),
    nodes,
    attributes: new Uint32Array(0),
    rects: new Float64Array(0),
    slots: new Uint32Array(0),
    viewport: Float64Array.of(800, 600),
    pseudo,
    filter: "all",
    refCounter: 0,
    url: "http://a/",
    title: "A",
  });
  assert.equal(output, "tree");
  assert.deepEqual(asked, [
    [1, false],
    [1, true],
    [2, false],
    [2, true],
  ]);
  assert.equal(sent[0].kind, "allwright/core-call");
  assert.equal(sent[0].operation, "buildTextTree");
  assert.deepEqual(sent[0].pseudo, [
    [2, '"1b"'],
    [3, '"1a"'],
    [4, '"2b"'],
  ]);
});

test("the worker's line records are written into the caller's array; malformed ones fail the read", async () => {
  const records = Uint32Array.of(7, 1, 11, 12, 0, 8, 2, 13, 14, 3);
  runtimeAnswering(() => reply("tree", packLineRecords(records, 2)));
  const core = workerCore(FACTS_VERSION);
  const lineRecords = new Uint32Array(10);
  const call = {
    strings: "",
    stringLengths: new Uint32Array(0),
    nodes: new Uint32Array(0),
    attributes: new Uint32Array(0),
    rects: new Float64Array(0),
    slots: new Uint32Array(0),
    viewport: Float64Array.of(1, 1),
    pseudo: { read: () => null },
    lineRecords,
  };
  await core.buildTextTree(call);
  assert.deepEqual([...lineRecords], [...records]);
  runtimeAnswering(() => reply("tree", Uint8Array.of(0xff, 0xff, 0xff)));
  const error = await rejection(core.buildTextTree(call));
  assert.match(error.message, /malformed line records/);
});

test("a call the worker dropped is sent once more; a second failure, a malformed or a failed reply is an error", async () => {
  const core = workerCore(FACTS_VERSION);
  const diff = () => core.diffLines(new Uint32Array(0), new Uint32Array(0), [], new Uint32Array(0), new Uint32Array(0), 100);
  let sent = runtimeAnswering((_, count) => (count === 1 ? Promise.reject(new Error("channel closed")) : reply("diff")));
  assert.equal(await diff(), "diff");
  assert.equal(sent.length, 2);
  sent = runtimeAnswering(() => Promise.reject(new Error("worker gone")));
  const twice = await rejection(diff());
  assert.equal(twice.code, "script_failed");
  assert.match(twice.message, /did not answer: worker gone/);
  assert.equal(sent.length, 2, "never a third attempt");
  runtimeAnswering(() => ({ ok: true, output: 5, records: new Uint8Array(0) }));
  assert.match((await rejection(diff())).message, /answered a core call with something else/);
  const failure = { code: "script_failed", message: "the core trapped in the worker" };
  runtimeAnswering(() => ({ ok: false, error: failure }));
  assert.deepEqual(await rejection(diff()), failure);
});

test("a diff sends the snapshot as columns and the hashes of the replaced lines only", async () => {
  const sent = runtimeAnswering(() => reply("diff"));
  const core = workerCore(FACTS_VERSION);
  // Four lines: identity, depth word, two hash words, reference.
  const previous = Uint32Array.of(1, 0, 10, 11, 0, 2, 1, 20, 21, 5, 4, 1, 30, 31, 0, 9, 2, 40, 41, 6);
  const lengths = Uint32Array.of(3, 4, 5, 6);
  // Lines 1 and 3 to the end (an end past the last line is cut), and a triple left incomplete.
  const replaced = Uint32Array.of(1, 2, 1, 3, 99, 1, 0, 4);
  await core.diffLines(previous, lengths, replaced, new Uint32Array(0), new Uint32Array(0), 500);
  const expected = new PackedWriter(16);
  expected.differenceList(Uint32Array.of(1, 2, 4, 9));
  expected.u32List(Uint32Array.of(0, 1, 1, 2));
  expected.differenceList(Uint32Array.of(0, 5, 0, 6));
  expected.u32List(lengths);
  expected.u32List([20, 21, 40, 41]);
  assert.equal(sent[0].operation, "diffLines");
  assert.deepEqual([...sent[0].packed], [...expected.written()]);
  assert.equal(sent[0].options.maxChars, 500);
  const changes = new PackedWriter(16);
  changes.u32List(replaced);
  changes.u32List(new Uint32Array(0));
  changes.u32List(new Uint32Array(0));
  assert.deepEqual([...sent[0].options.changes], [...changes.written()]);
});

test("a handed-off core sends through its carrier, keeping the same checks", async () => {
  const sent = runtimeAnswering(() => assert.fail("the service worker is not asked"));
  const carried = [];
  const core = workerCore(FACTS_VERSION).handedOffTo(async (request) => {
    carried.push(request.operation);
    return { ok: false, error: { code: "script_failed", message: "carried" } };
  });
  assert.equal(core.factsVersion(), FACTS_VERSION);
  const error = await rejection(core.diffLines(new Uint32Array(0), new Uint32Array(0), [], [], [], undefined));
  assert.equal(error.message, "carried");
  assert.deepEqual(carried, ["diffLines"]);
  assert.equal(sent.length, 0);
});
