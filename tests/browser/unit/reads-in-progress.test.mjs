// Which frames are busy with a tree read (extension/background/reads/reads-in-progress.js,
// docs/protocol/host-safety.md "Bounds and deadlines"): background/frames/frames.js takes a frame's silence for
// the read's only when that frame announced a read after the call was asked.
import { test } from "node:test";
import assert from "node:assert/strict";
import { noteReadFinished, noteReadStarted, readStartedSince } from "../../../extension/background/reads/reads-in-progress.js";

test("a read announced after the call counts for that frame only", () => {
  const asked = Date.now();
  assert.equal(readStartedSince(7, 0, asked), false);
  noteReadStarted(7, 0);
  assert.equal(readStartedSince(7, 0, asked), true);
  assert.equal(readStartedSince(7, 3, asked), false, "another frame of the tab");
  assert.equal(readStartedSince(8, 0, asked), false, "another tab");
  assert.equal(readStartedSince(7, 0, Date.now() + 1_000), false, "a read of an earlier call");
  // Once its synchronous part ended, a silent frame is blocked again, not reading.
  noteReadFinished(7, 0);
  assert.equal(readStartedSince(7, 0, asked), false);
});

test("the remembered frames are bounded, the oldest forgotten first", () => {
  const asked = Date.now();
  noteReadStarted(1_000, 0);
  for (let frame = 1; frame <= 300; frame += 1) noteReadStarted(2_000, frame);
  assert.equal(readStartedSince(1_000, 0, asked), false);
  assert.equal(readStartedSince(2_000, 300, asked), true);
});
