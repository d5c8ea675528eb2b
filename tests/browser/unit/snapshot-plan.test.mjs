// Frame order, context ids and assembly of accessibility_snapshot (extension/background/reads/snapshot-plan.js).
import { test } from "node:test";
import assert from "node:assert/strict";
import { assembleSnapshot, contextIdFor, orderFramesDepthFirst } from "../../../extension/background/reads/snapshot-plan.js";

const frame = (frameId, parentFrameId, extra = {}) => ({ frameId, parentFrameId, url: `https://a.test/${frameId}`, ...extra });

test("frames come depth-first from the top, siblings by id", () => {
  const frames = [frame(7, 3), frame(3, 0), frame(0, -1), frame(5, 0), frame(4, 3), frame(9, 5)];
  assert.deepEqual(orderFramesDepthFirst(frames).map((f) => f.frameId), [0, 3, 4, 7, 5, 9]);
});

test("frames that are not live documents, and orphans, are left out", () => {
  const frames = [
    frame(0, -1, { documentLifecycle: "active" }),
    frame(2, 0, { documentLifecycle: "prerender" }),
    frame(3, 0, { documentLifecycle: "active" }),
    frame(8, 6),
  ];
  assert.deepEqual(orderFramesDepthFirst(frames).map((f) => f.frameId), [0, 3]);
  assert.deepEqual(orderFramesDepthFirst([frame(4, 1)]), []);
});

test("a deep chain of frames does not grow the stack", () => {
  const frames = [frame(0, -1)];
  for (let i = 1; i < 50_000; i += 1) frames.push(frame(i, i - 1));
  assert.equal(orderFramesDepthFirst(frames).length, 50_000);
});

test("context ids are derived from tab and frame", () => {
  assert.equal(contextIdFor(12, 0), "tab-12.frame-0");
  assert.notEqual(contextIdFor(1, 23), contextIdFor(12, 3));
});

test("JSON assembly matches the core's snapshot::assemble and parses", () => {
  const a = "{\"contextId\":\"tab-1.frame-0\",\"parentContextId\":null,\"url\":\"u\",\"title\":\"t\",\"root\":{}}";
  const b = "{\"contextId\":\"tab-1.frame-3\",\"parentContextId\":\"tab-1.frame-0\",\"url\":\"v\",\"title\":\"\",\"root\":{}}";
  const joined = assembleSnapshot("json", [a, b]);
  assert.equal(joined, `{"version":1,"documents":[${a},${b}]}`);
  assert.equal(JSON.parse(joined).documents[1].parentContextId, "tab-1.frame-0");
  assert.equal(assembleSnapshot("json", []), "{\"version\":1,\"documents\":[]}");
});

test("YAML assembly matches the core's snapshot::assemble", () => {
  const a = "  - \"contextId\": \"x\"\n    \"root\": {}\n";
  assert.equal(assembleSnapshot("yaml", [a, a]), `"version": 1\n"documents":\n${a}${a}`);
  assert.equal(assembleSnapshot("yaml", []), "\"version\": 1\n\"documents\": []\n");
});
