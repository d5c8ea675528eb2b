// What the agent read (extension/content/tree/printed-refs.js): the tree's `refs` tuples, the
// last reads kept per frame.
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  forgetReads,
  printedRef,
  printedRefsOf,
  rememberChanges,
  rememberRead,
} from "../../../extension/content/tree/printed-refs.js";

test("the envelope's refs tuples become printed refs, focusable as a boolean", () => {
  const refs = printedRefsOf({ refs: [[3, "button", "Save", 1], [7, "option", "France", 0], "junk", [null, "x", "y", 1]] });
  assert.deepEqual(refs, [
    { number: 3, role: "button", name: "Save", focusable: true },
    { number: 7, role: "option", name: "France", focusable: false },
  ]);
});

test("an envelope without refs (a failed read) remembers nothing", () => {
  assert.deepEqual(printedRefsOf({}), []);
});

test("the newest read that printed a ref wins, and three reads are kept", () => {
  forgetReads();
  rememberRead([{ number: 1, role: "button", name: "Old", focusable: true }, { number: 2, role: "link", name: "Two", focusable: true }]);
  rememberRead([{ number: 1, role: "button", name: "New", focusable: true }]);
  assert.equal(printedRef(1)?.name, "New");
  assert.equal(printedRef(2)?.name, "Two", "a ref of an older read is still known");
  rememberRead([]);
  rememberRead([]);
  assert.equal(printedRef(2), undefined, "the fourth read back is forgotten");
  assert.equal(printedRef(1)?.name, "New");
  assert.equal(printedRef(99), undefined);
  forgetReads();
});

test("the changes of a read since a snapshot update the newest read instead of replacing it", () => {
  forgetReads();
  rememberRead([
    { number: 1, role: "button", name: "Add", focusable: true },
    { number: 2, role: "link", name: "Help", focusable: true },
  ]);
  for (let round = 0; round < 4; round++) {
    rememberChanges([{ number: 1, role: "button", name: `Added ${round}`, focusable: true }]);
  }
  rememberChanges([{ number: 3, role: "button", name: "Remove", focusable: true }]);
  assert.equal(printedRef(1)?.name, "Added 3");
  assert.equal(printedRef(2)?.name, "Help", "an unchanged ref of the full read is still known after five changes");
  assert.equal(printedRef(3)?.name, "Remove");
  forgetReads();
  rememberChanges([{ number: 4, role: "link", name: "Only", focusable: true }]);
  assert.equal(printedRef(4)?.name, "Only", "changes with no read before are a read of their own");
  forgetReads();
});
