// The content script's bookkeeping of reads, which needs no layout: the snapshots a later
// `since` read compares with (extension/content/tree/snapshots.js, docs/protocol/reading.md,
// "Reads since a snapshot"), the ref registry (tree/registry.js: refs held weakly, numbered in
// order, never resolved to another element) and the "ai" mode's aria-ref attributes
// (tree/ai-refs.js, docs/protocol/channels.md, section 3).
import { test } from "node:test";
import assert from "node:assert/strict";
import { FakeElement, FakeText, installFakeDom } from "./fake-dom.mjs";

// The modules publish on `window` and test `instanceof Element`, as in a content script's world.
globalThis.window = globalThis;
globalThis.Element = FakeElement;
const document = installFakeDom();

const {
  identitiesOf,
  keepSnapshot,
  linePositions,
  LINE_RECORD_WIDTH,
  readKeyOf,
  reserveSnapshotId,
  snapshotToCompare,
} = await import("../../../extension/content/tree/snapshots.js");
const registry = await import("../../../extension/content/tree/registry.js");
const { applyAriaRefs, knownAriaRef, documentPrefix } = await import("../../../extension/content/tree/ai-refs.js");

/** Line records of the given node identities, one line each at depth 0. */
const recordsOf = (identities) => Uint32Array.from(identities.flatMap((identity) => [identity, 0, 0, 0, 0]));

const attached = (name = "div") => {
  const element = new FakeElement(name);
  document.append(element);
  return element;
};

test("a node keeps its identity across reads; new nodes get the next numbers, never 0", () => {
  const [a, b, c] = [attached(), attached(), new FakeText("t")];
  const first = identitiesOf([a, b]);
  const second = identitiesOf([b, c, a]);
  assert.ok(first[0] > 0 && first[1] === first[0] + 1);
  assert.deepEqual([...second], [first[1], first[1] + 1, first[0]]);
});

test("the read key is filter, depth and ref: page and maxChars only cut the same lines", () => {
  assert.equal(readKeyOf({}), '["all",null,null]');
  assert.equal(readKeyOf({ filter: "all", page: 3, maxChars: 100 }), readKeyOf({}));
  assert.notEqual(readKeyOf({ filter: "interactive" }), readKeyOf({}));
  assert.notEqual(readKeyOf({ maxDepth: 0 }), readKeyOf({}), "a depth of 0 is not no depth");
  assert.notEqual(readKeyOf({ ref_id: "ref_3" }), readKeyOf({}));
});

test("snapshot ids name this document by the first 8 hex digits of its token and count up", () => {
  const digits = registry.documentToken().slice(0, 8);
  assert.match(registry.documentToken(), /^[0-9a-f]{32}$/);
  const first = reserveSnapshotId();
  const second = reserveSnapshotId();
  assert.match(first, new RegExp(`^s-${digits}-\\d+$`));
  assert.equal(Number(second.split("-")[2]), Number(first.split("-")[2]) + 1);
});

test("a snapshot is kept only when the core wrote a whole number of lines it has room for", () => {
  const records = recordsOf([1, 2, 3]);
  for (const lineCount of [-1, 4, 1.5, "3", undefined, null, Number.NaN]) {
    assert.equal(keepSnapshot("k", records, lineCount), undefined, String(lineCount));
  }
  assert.match(keepSnapshot("k", records, 0), /^s-/);
  const id = keepSnapshot("k", records, 2);
  // Only the records the core wrote are kept, not the rest of its buffer.
  assert.deepEqual([...snapshotToCompare(id, "k", 1).lines], [...recordsOf([1, 2])]);
});

test("a since read compares only with a kept snapshot of the same arguments, on page 1", () => {
  const id = keepSnapshot("key-a", recordsOf([5]), 1);
  assert.deepEqual(snapshotToCompare(id, "key-b", 1), { fullReason: "arguments_changed" });
  assert.deepEqual(snapshotToCompare(id, "key-a", 2), { fullReason: "paged" });
  assert.ok(snapshotToCompare(id, "key-a", 1).lines instanceof Uint32Array);
  const number = Number(id.split("-")[2]);
  assert.deepEqual(snapshotToCompare(id.replace(/-\d+$/, `-${number + 1000}`), "key-a", 1), {
    fullReason: "unknown_snapshot",
  });
  assert.deepEqual(snapshotToCompare("s-00000000-1", "key-a", 1), { fullReason: "document_changed" });
  assert.deepEqual(snapshotToCompare("nonsense", "key-a", 1), { fullReason: "unknown_snapshot" });
});

test("a frame keeps its four newest snapshots; only the newest keeps its printed lines", () => {
  const ids = [1, 2, 3, 4, 5].map((identity) =>
    keepSnapshot("k", recordsOf([identity]), 1, [`line ${identity}`]),
  );
  assert.deepEqual(snapshotToCompare(ids[0], "k", 1), { fullReason: "unknown_snapshot" });
  for (const id of ids.slice(1, 4)) assert.equal(snapshotToCompare(id, "k", 1).texts, null, id);
  assert.deepEqual(snapshotToCompare(ids[4], "k", 1).texts, ["line 5"]);
  // Printed text is split into lines on first use, and dropped when it does not match the records.
  const asText = keepSnapshot("k", recordsOf([1, 2]), 2, "a\nb");
  assert.deepEqual(snapshotToCompare(asText, "k", 1).texts, ["a", "b"]);
  const mismatched = keepSnapshot("k", recordsOf([1, 2]), 2, "a\nb\nc");
  assert.equal(snapshotToCompare(mismatched, "k", 1).texts, null);
  const wrongArray = keepSnapshot("k", recordsOf([1, 2]), 2, ["a"]);
  assert.equal(snapshotToCompare(wrongArray, "k", 1).texts, null);
  const empty = keepSnapshot("k", recordsOf([]), 0, "");
  assert.deepEqual(snapshotToCompare(empty, "k", 1).texts, []);
});

test("line positions answer a node's line, its last one when an identity repeats, before and after the map is built", () => {
  const nodes = Array.from({ length: 20 }, () => attached());
  const identities = [...identitiesOf(nodes)];
  // The node at index 3 prints two lines (3 and 20); nodes 18 and 19 print none.
  const lines = recordsOf([...identities.slice(0, 18), identities[3]]);
  const positionOf = linePositions(lines);
  assert.equal(positionOf(attached()), undefined, "a node no read gathered has no line");
  const answers = () => nodes.map((node) => positionOf(node));
  const expected = [0, 1, 2, 18, ...Array.from({ length: 14 }, (_, index) => index + 4), undefined, undefined];
  // The first 16 questions scan; the later ones use the map: both agree.
  assert.deepEqual(answers(), expected);
  assert.deepEqual(answers(), expected);
  assert.equal(LINE_RECORD_WIDTH, 5);
});

test("refs are numbered after the counter in build order, the counter moves at once, the maps soon after", () => {
  registry.installRegistry();
  assert.equal(registry.refCounter(), 0);
  const [a, b] = [attached("button"), attached("a")];
  const text = new FakeText("not an element");
  registry.registerNewRefs([a, text, b], [0, 1, 2], 0);
  assert.equal(registry.refCounter(), 3);
  assert.equal(registry.lookup("ref_1"), a);
  // A text node is counted but never registered.
  assert.equal(registry.lookup("ref_2"), null);
  assert.equal(registry.resolveRef("ref_3"), b);
  assert.equal(registry.refNumberOf(b), 3);
  assert.equal(registry.refNumberOf(attached()), undefined);
  registry.registerNewRefs([a], [], 3);
  assert.equal(registry.refCounter(), 3, "a build with no new refs leaves the counter");
});

test("the page-visible counter is repaired when overwritten", () => {
  for (const value of [-1, 1.5, "7", 0xffffffff, null]) {
    window.__wbRefCounter = value;
    assert.equal(registry.refCounter(), 0, String(value));
  }
  window.__wbRefCounter = 41;
  assert.equal(registry.refCounter(), 41);
});

test("a ref to a removed element is never resolved; its error suggests the nearest live refs", () => {
  registry.installRegistry();
  const elements = Array.from({ length: 8 }, () => attached("li"));
  registry.registerNewRefs(elements, elements.map((_, index) => index), 100);
  assert.equal(registry.lookup(42), null);
  assert.equal(registry.lookup("ref_999"), null);
  const removed = elements[4];
  document.childNodes.splice(document.childNodes.indexOf(removed), 1);
  removed.parentNode = null;
  assert.equal(registry.lookup("ref_105"), null);
  let error;
  try {
    registry.resolveRef("ref_105");
  } catch (thrown) {
    error = thrown;
  }
  assert.equal(error.code, "ref_not_found");
  assert.match(error.message, /^ref_105 was not found/);
  // Nearest by number first; the removed one is not offered.
  assert.deepEqual(error.suggestions.slice(0, 2).sort(), ["ref_104", "ref_106"]);
  assert.ok(!error.suggestions.includes("ref_105"));
  assert.equal(error.suggestions.length, 5);
  assert.equal(registry.suggest("ref_101", 2)[0], "ref_102", "the ref itself is never suggested");
  assert.equal(registry.suggest("ref_101", 0).length, 5, "a count that is no positive integer means 5");
  const all = registry.suggest("ref_101", 1000);
  for (const live of ["ref_102", "ref_103", "ref_104", "ref_106", "ref_107", "ref_108"]) assert.ok(all.includes(live), live);
  assert.ok(!all.includes("ref_101") && !all.includes("ref_105"));
  // Without a ref to be near, the refs nearest the counter (the newest) come first.
  window.__wbRefCounter = 108;
  assert.equal(registry.suggest(undefined, 1)[0], "ref_108");
});

test("suggestions stop at 50, however many are asked for", () => {
  registry.installRegistry();
  const many = Array.from({ length: 60 }, () => attached("li"));
  registry.registerNewRefs(many, many.map((_, index) => index), 300);
  assert.equal(registry.suggest("ref_330", 1000).length, 50);
  assert.equal(registry.suggest("ref_330", 50).length, 50);
  assert.equal(registry.suggest("ref_330", 1.5).length, 5);
});

test("releasing a ref forgets it and the element's number; a second release answers false", () => {
  registry.installRegistry();
  const element = attached("input");
  registry.registerNewRefs([element], [0], 200);
  assert.equal(window.__wb_ax_release("ref_201"), true);
  assert.equal(window.__wb_ax_release("ref_201"), false);
  assert.equal(window.__wb_ax_release(201), false);
  assert.equal(registry.lookup("ref_201"), null);
  assert.equal(registry.refNumberOf(element), undefined);
  assert.equal(window.__wb_ax_lookup, registry.lookup);
});

/** A fake element that records its attribute writes, as the page would see them. */
function watched(name) {
  const element = attached(name);
  element.writes = [];
  element.setAttribute = (attribute, value) => {
    element.writes.push(["set", attribute, value]);
    element.attributes.set(attribute, value);
  };
  element.removeAttribute = (attribute) => {
    element.writes.push(["remove", attribute]);
    element.attributes.delete(attribute);
  };
  return element;
}

test("aria-ref attributes: set on referenced elements, not rewritten unchanged, removed once no longer referenced", () => {
  const [a, b] = [watched("button"), watched("a")];
  const text = new FakeText("skipped");
  applyAriaRefs([a, b, text], [
    [0, "e1", "button|OK"],
    [1, "e2", "link|Home"],
    [2, "e3", "text"],
  ]);
  assert.equal(a.getAttribute("aria-ref"), "e1");
  assert.deepEqual(knownAriaRef(b), { reference: "e2", key: "link|Home" });
  assert.equal(knownAriaRef(text), undefined);
  applyAriaRefs([a, b], [[0, "e1", "button|OK"]]);
  assert.deepEqual(a.writes, [["set", "aria-ref", "e1"]], "an unchanged value is not written again");
  assert.deepEqual(b.writes, [
    ["set", "aria-ref", "e2"],
    ["remove", "aria-ref"],
  ]);
  // A page that rewrote the attribute keeps its own value.
  b.setAttribute("aria-ref", "e2");
  applyAriaRefs([b], [[0, "e2", "link|Home"]]);
  b.setAttribute("aria-ref", "page-own");
  applyAriaRefs([], []);
  assert.equal(b.getAttribute("aria-ref"), "page-own");
});

test("the document prefix of ai refs is five base-36 characters and a dash, the same all along", () => {
  const prefix = documentPrefix();
  assert.match(prefix, /^[0-9a-z]{5}-$/);
  assert.equal(documentPrefix(), prefix);
});
