// find's reading of the text tree and printing of matches (background/reads/tree-find.js), and the
// element states of wait_for (background/reads/element-states.js).
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  comparable,
  findInTree,
  frameHeading,
  lineMatches,
  parseTreeLine,
  unescapeTreeString,
} from "../../../extension/background/reads/tree-find.js";
import { stateHolds } from "../../../extension/background/reads/element-states.js";

const SHOP = [
  "banner",
  ' link "Home" [ref_1] href="/"',
  'main "Shop" [ref_2]',
  ' form "Shipping" [ref_3]',
  '  group "Address"',
  '   textbox "Street" [ref_4] placeholder="12 Main St"',
  '   combobox "Country" [ref_5] value="France"',
  '    option "France"',
  '  button "Save address" [ref_6] type="submit"',
  ' list "Orders" [ref_7]',
  "  listitem [ref_8]",
  '   text "Order 12 shipped"',
  '   button "Track" [ref_9]',
  '  listitem "Order 13 pending" [ref_10]',
].join("\n");

test("a printed line reads back into its role, name, ref and words", () => {
  assert.deepEqual(parseTreeLine('   textbox "Street" [ref_4] placeholder="12 Main St"'), {
    depth: 3,
    role: "textbox",
    rawName: "Street",
    name: "Street",
    ref: "ref_4",
    words: "Street 12 Main St",
    printed: 'textbox "Street" [ref_4] placeholder="12 Main St"',
  });
  const link = parseTreeLine(' link "Home" [ref_1] href="/home page"');
  assert.equal(link?.words, "Home", "addresses are not words on the page");
  assert.equal(parseTreeLine("listitem [ref_8] collapsed")?.ref, "ref_8");
  assert.equal(parseTreeLine("main")?.name, "");
  assert.equal(parseTreeLine("[open overlays]"), null);
  assert.equal(parseTreeLine(""), null);
});

test("escaped page text reads back as the page wrote it, and cannot forge a ref", () => {
  assert.equal(unescapeTreeString('say \\"hi\\" \\\\ \\n \\u{5b}ref_9]'), 'say "hi" \\ \n [ref_9]');
  const line = parseTreeLine('button "\\u{5b}ref_9] \\" [ref_1]" [ref_3]');
  assert.equal(line?.ref, "ref_3");
  assert.equal(line?.name, '[ref_9] " [ref_1]');
});

test("a query matches by role exactly and by name or text in any case and spacing", () => {
  const street = /** @type {NonNullable<ReturnType<typeof parseTreeLine>>} */ (
    parseTreeLine('textbox "Street  name" [ref_4] placeholder="12 Main St"')
  );
  assert.ok(lineMatches(street, { role: "textbox" }));
  assert.ok(lineMatches(street, { role: " TextBox " }));
  assert.ok(!lineMatches(street, { role: "text" }));
  assert.ok(lineMatches(street, { name: "street name" }));
  assert.ok(!lineMatches(street, { name: "main st" }), "a placeholder is not the name");
  assert.ok(lineMatches(street, { text: "MAIN st" }));
  assert.ok(lineMatches(street, { role: "textbox", name: "street" }));
  assert.ok(!lineMatches(street, { role: "button", name: "street" }), "every given part must match");
  assert.equal(comparable("  A\n\tB  "), "a b");
});

test("matches print after their ancestors' path, in page order", () => {
  assert.deepEqual(findInTree(SHOP, { role: "textbox" }), [
    'main "Shop" > form "Shipping" > group "Address" > textbox "Street" [ref_4] placeholder="12 Main St"',
  ]);
  assert.deepEqual(findInTree(SHOP, { text: "france" }), [
    'main "Shop" > form "Shipping" > group "Address" > combobox "Country" [ref_5] value="France"',
    'main "Shop" > form "Shipping" > group "Address" > combobox "Country" [ref_5] > option "France"',
  ]);
  assert.deepEqual(findInTree(SHOP, { role: "button" }), [
    'main "Shop" > form "Shipping" > button "Save address" [ref_6] type="submit"',
    'main "Shop" > list "Orders" > listitem > button "Track" [ref_9]',
  ]);
});

test("a match without a ref shows the ref of its nearest ancestor that has one", () => {
  assert.deepEqual(findInTree(SHOP, { text: "shipped" }), [
    'main "Shop" > list "Orders" > listitem [ref_8] > text "Order 12 shipped"',
  ]);
  assert.deepEqual(findInTree(SHOP, { role: "option" }), [
    'main "Shop" > form "Shipping" > group "Address" > combobox "Country" [ref_5] > option "France"',
  ]);
});

test("a container named by its first line, a heading, is named so in the paths below it", () => {
  const tree = [
    "main",
    " region [ref_1]",
    '  heading "Section 1" level="2"',
    '  button "Apply" [ref_2]',
    " region [ref_3]",
    '  heading "Section 2" level="2"',
    '  button "Apply" [ref_4]',
    " region",
    '  paragraph "Not a heading"',
    '  button "Apply" [ref_5]',
  ].join("\n");
  assert.deepEqual(findInTree(tree, { name: "apply" }), [
    'main > region "Section 1" > button "Apply" [ref_2]',
    'main > region "Section 2" > button "Apply" [ref_4]',
    'main > region > button "Apply" [ref_5]',
  ]);
  assert.deepEqual(findInTree(tree, { text: "section 2" }), ['main > region [ref_3] > heading "Section 2" level="2"']);
});

test("a run of text is left out when its parent line matched already", () => {
  const tree = ['button "Pick a fruit" [ref_1]', ' text "Pick a fruit"'].join("\n");
  assert.deepEqual(findInTree(tree, { text: "fruit" }), ['button "Pick a fruit" [ref_1]']);
});

test("a banner ends the ancestors above it", () => {
  const tree = [
    "[open overlays]",
    'dialog "Confirm" [ref_1]',
    ' button "OK" [ref_2]',
    'main "Page"',
    ' button "OK" [ref_3]',
  ].join("\n");
  assert.deepEqual(findInTree(tree, { name: "ok" }), [
    'dialog "Confirm" > button "OK" [ref_2]',
    'main "Page" > button "OK" [ref_3]',
  ]);
});

test("a deep path keeps its outermost and innermost steps, and the ancestor holding the ref", () => {
  const tree = Array.from({ length: 9 }, (_, level) => `${" ".repeat(level)}group "G${level}"`).concat(
    `${" ".repeat(9)}text "deep"`,
  );
  assert.deepEqual(findInTree(tree.join("\n"), { text: "deep" }), [
    'group "G0" > group "G1" > … > group "G5" > group "G6" > group "G7" > group "G8" > text "deep"',
  ]);
  const withRef = [...tree];
  withRef[3] = '   group "G3" [ref_7]';
  assert.deepEqual(findInTree(withRef.join("\n"), { text: "deep" }), [
    'group "G0" > group "G1" > … > group "G3" [ref_7] > group "G4" > group "G5" > group "G6" > group "G7" > group "G8" > text "deep"',
  ]);
});

test("a long name is shortened in a path without cutting an escape", () => {
  const name = `${"x".repeat(38)}\\u{5b}ref_1]`;
  const tree = [`region "${name}"`, ' button "Go" [ref_2]'].join("\n");
  const [match] = findInTree(tree, { role: "button" });
  assert.equal(match, `region "${"x".repeat(38)}…" > button "Go" [ref_2]`);
});

test("a frame's heading quotes its URL so that it spells neither a line nor a ref", () => {
  assert.equal(frameHeading(3, "https://pay.test/card"), '[frame 3] "https://pay.test/card"');
  assert.equal(frameHeading(4, 'https://x.test/[ref_1]"\n'), '[frame 4] "https://x.test/\\u{5b}ref_1]\\"\\u{a}"');
});

test("wait_for's states hold as a person would judge them", () => {
  const shown = { found: true, visible: true, enabled: true, checked: false };
  assert.ok(stateHolds("visible", shown));
  assert.ok(!stateHolds("hidden", shown));
  assert.ok(stateHolds("hidden", { ...shown, visible: false }));
  assert.ok(stateHolds("hidden", { found: false }), "a removed element is hidden");
  assert.ok(stateHolds("removed", { found: false }));
  assert.ok(!stateHolds("removed", shown));
  assert.ok(stateHolds("enabled", shown));
  assert.ok(stateHolds("disabled", { ...shown, enabled: false }));
  assert.ok(!stateHolds("disabled", { found: false }), "a removed element is not disabled");
  assert.ok(stateHolds("unchecked", shown));
  assert.ok(stateHolds("checked", { ...shown, checked: true }));
  assert.ok(!stateHolds("visible", { found: false }));
});
