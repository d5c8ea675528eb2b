// A read handed to the background (extension/content/tree/core-hand-off.js): the read gives its
// core call away, goes on with the background's answer, and ends with a failure of its own when
// no answer comes; an answer nobody waits for is refused.
import { test } from "node:test";
import assert from "node:assert/strict";
import { answerHandedOffRead, startHandOff } from "../../../extension/content/tree/core-hand-off.js";

const request = { kind: "allwright/core-call", operation: "buildTextTree", strings: "", packed: "", pseudo: [], options: {}, recordCapacity: 0 };
const prepared = { counter: 0 };

test("the read gives its call away, goes on with the answer, and the answer waits for the read's end", async () => {
  const { handOff, handedOff, track } = startHandOff();
  const answer = { ok: true, output: "{}", records: "" };
  const reading = handOff.carry(request, prepared);
  track(reading);
  const call = await handedOff;
  assert.equal(call.request, request);
  assert.equal(call.prepared, prepared);
  assert.deepEqual(await answerHandedOffRead(call.readId, answer), { committed: true });
  assert.equal(await reading, answer);
  // The same answer a second time waits for nothing: refused.
  await assert.rejects(answerHandedOffRead(call.readId, answer), (error) => error.code === "script_failed");
});

test("the read's failure after the answer is the answer's failure", async () => {
  const { handOff, handedOff, track } = startHandOff();
  const reading = handOff.carry(request, prepared).then(() => {
    throw { code: "script_failed", message: "the records were malformed" };
  });
  reading.catch(() => {});
  track(reading);
  const call = await handedOff;
  await assert.rejects(answerHandedOffRead(call.readId, {}), (error) => error.message === "the records were malformed");
});

test("an answer for an unknown read is refused", async () => {
  await assert.rejects(answerHandedOffRead("read-unknown", {}), (error) => error.code === "script_failed");
  await assert.rejects(answerHandedOffRead(7, {}), (error) => error.code === "script_failed");
});

test("a read whose answer never comes ends with script_failed", async (t) => {
  t.mock.timers.enable({ apis: ["setTimeout"] });
  const { handOff, handedOff, track } = startHandOff();
  const answered = handOff.carry(request, prepared);
  track(answered);
  const call = await handedOff;
  t.mock.timers.tick(60_000);
  await assert.rejects(answered, (error) => error.code === "script_failed");
  await assert.rejects(answerHandedOffRead(call.readId, {}), (error) => error.code === "script_failed");
});
