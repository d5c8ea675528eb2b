// The pure parts of the frame tools (docs/protocol/frames.md, "Frames"): which <iframe> holds which
// child frame (content/dom/frame-elements.js), the per-tab record of which frame printed which
// ref numbers (background/frames/ref-issues.js), the frame inventory's questions and its repair after a
// back/forward-cache restore (background/frames/frame-inventory.js), and whether a form control differs
// from its default (content/actions/form-defaults.js).
import { test } from "node:test";
import assert from "node:assert/strict";
import { matchChildFramesByUrl } from "../../../extension/content/dom/frame-elements.js";
import { emptyRecord, isRecord, issueOf, MAX_ISSUES, recordIssue } from "../../../extension/background/frames/ref-issues.js";
import {
  frameAndDescendants,
  matchingFrames,
  originOf,
  repairInventory,
} from "../../../extension/background/frames/frame-inventory.js";
import { inputReading, selectDiffersFromDefault } from "../../../extension/content/actions/form-defaults.js";

test("an iframe names its frame only when its URL is unambiguous", () => {
  const frames = [
    { frameId: 3, url: "https://pay.test/form" },
    { frameId: 4, url: "https://ads.test/slot" },
    { frameId: 5, url: "https://ads.test/slot" },
    { frameId: 6, url: "about:blank" },
    { frameId: 7, url: "https://twice.test/" },
  ];
  const sources = ["https://pay.test/form", "https://ads.test/slot", "", "about:blank", "https://twice.test/", "https://twice.test/", "https://gone.test/"];
  assert.deepEqual(matchChildFramesByUrl(sources, frames), [3, undefined, undefined, undefined, undefined, undefined, undefined]);
  assert.deepEqual(matchChildFramesByUrl([], frames), []);
});

test("ref ranges: the floor rises, a document's consecutive reads merge, the owner is found", () => {
  let record = emptyRecord();
  record = recordIssue(record, { frameId: 0, document: "top", url: "https://a.test/", first: 1, last: 10 });
  record = recordIssue(record, { frameId: 3, document: "pay", url: "https://pay.test/", first: 11, last: 14 });
  record = recordIssue(record, { frameId: 3, document: "pay", url: "https://pay.test/2", first: 15, last: 15 });
  // A read that printed no new number raises nothing and adds no range.
  record = recordIssue(record, { frameId: 0, document: "top", url: "https://a.test/", first: 16, last: 15 });
  assert.equal(record.floor, 15);
  assert.equal(record.issues.length, 2);
  assert.deepEqual(issueOf(record, "ref_15"), { frameId: 3, document: "pay", url: "https://pay.test/2", first: 11, last: 15 });
  assert.equal(issueOf(record, "ref_4").frameId, 0);
  assert.equal(issueOf(record, "ref_16"), null);
  assert.equal(issueOf(record, "ref_x"), null);
  assert.ok(isRecord(record));
  assert.ok(!isRecord({ floor: "1", issues: [] }));
  assert.ok(!isRecord({ floor: 1, issues: [{ frameId: 0 }] }));
});

test("ref ranges: the oldest are forgotten past the limit, and the floor never falls", () => {
  let record = emptyRecord();
  for (let n = 1; n <= MAX_ISSUES + 5; n += 1) {
    record = recordIssue(record, { frameId: n % 2, document: `d${n}`, url: "u", first: n, last: n });
  }
  assert.equal(record.issues.length, MAX_ISSUES);
  assert.equal(issueOf(record, "ref_1"), null);
  assert.equal(issueOf(record, `ref_${MAX_ISSUES + 5}`).document, `d${MAX_ISSUES + 5}`);
  record = recordIssue(record, { frameId: 0, document: "late", url: "u", first: 3, last: 2 });
  assert.equal(record.floor, MAX_ISSUES + 5);
});

const frame = (frameId, parentFrameId, url) => ({ frameId, parentFrameId, url });

test("frame inventory: origins, urlFilter matches without the top, a frame and its descendants", () => {
  assert.equal(originOf("https://pay.test:8443/form?x", undefined), "https://pay.test:8443");
  assert.equal(originOf("about:srcdoc", "https://a.test"), "https://a.test");
  assert.equal(originOf("data:text/html,x", "https://a.test"), "null");
  const frames = [
    frame(0, -1, "https://a.test/embed/"),
    frame(3, 0, "https://b.test/embed/form"),
    frame(5, 3, "https://c.test/captcha"),
    frame(4, 0, "https://b.test/embed/other"),
  ];
  assert.deepEqual(matchingFrames(frames, "embed/").map((f) => f.frameId), [3, 4]);
  assert.deepEqual(frameAndDescendants(frames, 3).map((f) => f.frameId), [3, 5]);
  assert.deepEqual(frameAndDescendants(frames, 4).map((f) => f.frameId), [4]);
});

test("frame inventory: frames webNavigation forgot are put back under the one parent that holds them", () => {
  const known = [{ frameId: 0, parentFrameId: -1, url: "https://a.test/" }];
  const report = (frameId, url, depth, frameSources = []) => ({ frameId, documentId: `doc${frameId}`, result: { url, depth, frameSources } });
  const reached = [
    report(0, "https://a.test/", 0, ["https://a.test/news", "https://b.test/form"]),
    report(7, "https://a.test/news", 1, ["https://c.test/consent"]),
    report(8, "https://b.test/form", 1),
    report(9, "https://c.test/consent", 2),
    // Two parents hold the same URL: its parent cannot be told, so it is left out.
    report(10, "https://a.test/news", 1, ["https://d.test/x"]),
    report(11, "https://d.test/x", 2),
    report(12, "https://d.test/x", 2),
    { frameId: 13, result: "garbage" },
  ];
  const repaired = repairInventory(known, reached);
  const parents = Object.fromEntries(repaired.map((f) => [f.frameId, f.parentFrameId]));
  assert.deepEqual(parents, { 0: -1, 7: 0, 8: 0, 9: 7, 10: 0, 11: 10, 12: 10 });
  assert.equal(repaired.find((f) => f.frameId === 9).documentId, "doc9");
  // Frames the inventory knows are kept as it knows them.
  assert.equal(repairInventory([...known, { frameId: 8, parentFrameId: 0, url: "https://b.test/moved" }], reached).find((f) => f.frameId === 8).url, "https://b.test/moved");
  const ambiguous = repairInventory(known, [
    report(0, "https://a.test/", 0),
    report(7, "https://a.test/news", 1, ["https://d.test/x", "https://d.test/x"]),
    report(11, "https://d.test/x", 2),
  ]);
  assert.deepEqual(ambiguous.map((f) => f.frameId), [0, 7]);
});

test("form defaults: which inputs are read how", () => {
  assert.equal(inputReading("text"), "value");
  assert.equal(inputReading("password"), "value");
  assert.equal(inputReading("checkbox"), "checked");
  assert.equal(inputReading("radio"), "checked");
  assert.equal(inputReading("file"), "file");
  assert.equal(inputReading("hidden"), "none");
  assert.equal(inputReading("submit"), "none");
});

test("form defaults: a select differs from the selection HTML starts it on", () => {
  const option = (selected, defaultSelected = false, disabled = false) => ({ selected, defaultSelected, disabled });
  // No option marked: the first one that is not disabled.
  assert.equal(selectDiffersFromDefault({ multiple: false, size: 0, options: [option(true), option(false)] }), false);
  assert.equal(selectDiffersFromDefault({ multiple: false, size: 0, options: [option(false, false, true), option(true)] }), false);
  assert.equal(selectDiffersFromDefault({ multiple: false, size: 0, options: [option(false), option(true)] }), true);
  // Several marked: the last one wins.
  assert.equal(selectDiffersFromDefault({ multiple: false, size: 0, options: [option(false, true), option(true, true)] }), false);
  // A list box (size > 1) with nothing marked starts with nothing selected.
  assert.equal(selectDiffersFromDefault({ multiple: false, size: 4, options: [option(false), option(false)] }), false);
  assert.equal(selectDiffersFromDefault({ multiple: false, size: 4, options: [option(true), option(false)] }), true);
  // Multiple: exactly the marked options.
  assert.equal(selectDiffersFromDefault({ multiple: true, size: 4, options: [option(true, true), option(false)] }), false);
  assert.equal(selectDiffersFromDefault({ multiple: true, size: 4, options: [option(true, true), option(true)] }), true);
});
