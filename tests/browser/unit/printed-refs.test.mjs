// What the agent read (extension/content/tree/printed-refs.js): the tree's `refs` tuples, the
// last reads kept per frame, and the reading of printed lines for a core without `refs`.
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  forgetReads,
  parseTreeLine,
  printedRef,
  printedRefsOf,
  refsFromTreeText,
  rememberRead,
} from "../../../extension/content/tree/printed-refs.js";

test("the envelope's refs tuples become printed refs, focusable as a boolean", () => {
  const refs = printedRefsOf({ refs: [[3, "button", "Save", 1], [7, "option", "France", 0], "junk", [null, "x", "y", 1]] }, "");
  assert.deepEqual(refs, [
    { number: 3, role: "button", name: "Save", focusable: true },
    { number: 7, role: "option", name: "France", focusable: false },
  ]);
});

test("without refs, the printed lines are read back, and focusability stays unknown", () => {
  const tree = [
    'form "New \\"product\\"" [ref_4]',
    '  textbox "Name\\nfirst" [ref_5] value="x"',
    '  button "Look \\[ref_9] up" [ref_6]',
    "  text: plain",
    "  generic [ref_8]",
  ].join("\n");
  assert.deepEqual(printedRefsOf({}, tree), [
    { number: 4, role: "form", name: 'New "product"', focusable: null },
    { number: 5, role: "textbox", name: "Name\nfirst", focusable: null },
    { number: 6, role: "button", name: "Look [ref_9] up", focusable: null },
    { number: 8, role: "generic", name: "", focusable: null },
  ]);
  assert.deepEqual(refsFromTreeText(""), []);
  assert.deepEqual(parseTreeLine('  img "\\u{1F600} smile" [ref_1]'), { role: "img", name: "\u{1F600} smile" });
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
