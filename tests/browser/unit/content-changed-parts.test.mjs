// Which parts a read since a snapshot re-reads (extension/content/tree/changed-parts.js;
// docs/protocol/reading.md, "Re-reading only the changed parts"), on a hand-made page whose
// mutation records this test delivers itself: a change is re-read from the nearest container
// above its owner's parent, and every change it cannot bound (an ID reference across the part's
// edge, too many parts, an overlay, an unbounded event, interaction styles, rules added, owned
// elements, a custom element upgraded, the document's own children) asks for a whole read (null).
import { test } from "node:test";
import assert from "node:assert/strict";
import { FakeElement, FakeInput, FakeText, installFakeDom } from "./fake-dom.mjs";
import { LINE_OVERLAY_BIT } from "../../../extension/shared/generated/line-record-layout.js";

const events = new EventTarget();
globalThis.window = globalThis;
globalThis.addEventListener = events.addEventListener.bind(events);
globalThis.Element = FakeElement;
globalThis.HTMLInputElement = FakeInput;
globalThis.HTMLSelectElement = class FakeSelect extends FakeElement {};
/** Style rules as CSSOM gives them, for the style risks. */
globalThis.CSSStyleRule = class FakeStyleRule {
  constructor(selectorText) {
    this.selectorText = selectorText;
  }
};
globalThis.CSSImportRule = class FakeImportRule {};

/** The one observer the module makes; this test delivers its records (takeRecords). */
let pendingRecords = [];
globalThis.MutationObserver = class FakeMutationObserver {
  observe() {}
  disconnect() {
    pendingRecords = [];
  }
  takeRecords() {
    const records = pendingRecords;
    pendingRecords = [];
    return records;
  }
};

const { changedParts, markPartsRead, markRead, watchChanges, forgetWhatChanged } = await import(
  "../../../extension/content/tree/changed-parts.js"
);

const record = (fields) => ({ addedNodes: [], removedNodes: [], oldValue: null, attributeName: null, ...fields });

/**
 * A page and its snapshot: each element given a printed line gets it, in tree order, at a depth.
 * body > main > [ul > li(a) > span"A", li(b)] [button > span] | nav > p#hint | input[aria-describedby=hint]
 *   | form > input#q | label > div > span
 */
function page() {
  const document = installFakeDom();
  document.styleSheets = [];
  document.adoptedStyleSheets = [];
  const lines = [];
  const line = (element, text, depth) => {
    lines.push([element, text, depth]);
    return element;
  };
  const el = (name, attributes) => new FakeElement(name, attributes);
  const textA = new FakeText("A");
  const spanA = el("span").append(textA);
  const main = line(el("main"), "main", 0);
  const list = line(el("ul"), "list", 1);
  const itemA = line(el("li"), "listitem", 2);
  const itemB = line(el("li"), "listitem", 2);
  const button = line(el("button"), 'button "Go"', 1);
  const inButton = el("span");
  const nav = line(el("nav"), "navigation", 0);
  const hint = line(el("p", { id: "hint" }), "paragraph", 1);
  const described = line(new FakeInput({ "aria-describedby": "hint" }), "textbox", 0);
  const form = line(el("form"), "form", 0);
  const field = line(new FakeInput({ id: "q" }), "textbox", 1);
  const label = line(el("label"), 'label "Pick"', 0);
  const inLabel = line(el("div"), "generic", 1);
  const inLabelText = el("span");
  const body = el("body").append(
    main.append(list.append(itemA.append(spanA), itemB), button.append(inButton)),
    nav.append(hint),
    described,
    form.append(field),
    label.append(inLabel.append(inLabelText)),
  );
  document.append(el("html").append(body));
  const positions = new Map(lines.map(([element], index) => [element, index]));
  const records = Uint32Array.from(lines.flatMap(([, , depth], index) => [index + 1, depth, 0, 0, 0]));
  const snapshot = { records, texts: lines.map(([, text]) => text), positionOf: (element) => positions.get(element) };
  watchChanges();
  markRead();
  return { document, snapshot, main, list, itemA, itemB, spanA, textA, button, inButton, nav, hint, form, field, inLabelText, body };
}

/** The parts as [line start, line end, depth]. */
const spans = (parts) => parts?.map(({ start, end, depth }) => [start, end, depth]) ?? null;

test("nothing changed: no parts; before the watch starts every read is whole", async () => {
  assert.equal(changedParts({ records: new Uint32Array(0), texts: [], positionOf: () => undefined }), null);
  const { snapshot } = page();
  assert.deepEqual(changedParts(snapshot), []);
});

test("a change is re-read from the container above its owner's parent; a container's own children stay inside it", () => {
  const { snapshot, textA, list, itemA } = page();
  pendingRecords = [record({ type: "characterData", target: textA })];
  // The text's owner is the span; its parent, the list item, is the container.
  assert.deepEqual(spans(changedParts(snapshot)), [[2, 3, 2]]);
  markRead();
  pendingRecords = [record({ type: "childList", target: list })];
  assert.deepEqual(spans(changedParts(snapshot)), [[1, 4, 1]], "the list's own children: the list");
  markRead();
  pendingRecords = [record({ type: "attributes", target: list, attributeName: "class" })];
  assert.deepEqual(spans(changedParts(snapshot)), [[0, 5, 0]], "the list's own attribute: from its parent");
  markRead();
  // Two changes, one inside the other's part: the outermost only.
  pendingRecords = [record({ type: "childList", target: list }), record({ type: "attributes", target: itemA, attributeName: "title" })];
  assert.deepEqual(spans(changedParts(snapshot)), [[1, 4, 1]]);
});

test("a change inside a line that takes its name from its content goes up to a container above it", () => {
  const { snapshot, inButton, inLabelText } = page();
  pendingRecords = [record({ type: "attributes", target: inButton, attributeName: "hidden" })];
  assert.deepEqual(spans(changedParts(snapshot)), [[0, 5, 0]]);
  markRead();
  // Inside a label, whose control takes its name from it: no container can hold the change.
  pendingRecords = [record({ type: "attributes", target: inLabelText, attributeName: "hidden" })];
  assert.equal(changedParts(snapshot), null);
  // A fieldset prints as a group, a container role, yet its legend names it: no part inside it.
  const { snapshot: plain, body } = page();
  const inner = new FakeElement("div");
  const changed = new FakeElement("span");
  const fieldset = new FakeElement("fieldset").append(inner.append(changed));
  body.append(fieldset);
  const withFieldset = {
    ...plain,
    texts: [...plain.texts, "group", "generic"],
    records: Uint32Array.from([...plain.records, 99, 0, 0, 0, 0, 100, 1, 0, 0, 0]),
    positionOf: (element) => (element === fieldset ? 12 : element === inner ? 13 : plain.positionOf(element)),
  };
  markRead();
  pendingRecords = [record({ type: "attributes", target: changed, attributeName: "hidden" })];
  assert.equal(changedParts(withFieldset), null);
});

test("an ID reference across the part's edge asks for a whole read", () => {
  const { snapshot, hint } = page();
  pendingRecords = [record({ type: "attributes", target: hint, attributeName: "class" })];
  assert.equal(changedParts(snapshot), null, "a field outside the part is described by the hint's text");
  // The other way: an element inside the part names one outside it.
  const { snapshot: again, itemB } = page();
  itemB.attributes.set("aria-controls", "q");
  markRead();
  pendingRecords = [record({ type: "attributes", target: itemB, attributeName: "class" })];
  assert.equal(changedParts(again), null);
  itemB.attributes.set("aria-controls", "nowhere");
  markRead();
  pendingRecords = [record({ type: "attributes", target: itemB, attributeName: "class" })];
  assert.deepEqual(spans(changedParts(again)), [[1, 4, 1]], "an ID no element has crosses no edge");
});

test("a form field's state changed without any event or mutation is found by comparison", () => {
  const { snapshot, field } = page();
  field.value = "typed by a script";
  assert.deepEqual(spans(changedParts(snapshot)), [[8, 10, 0]]);
  // Read as parts: the field's new state is the one kept.
  markPartsRead(changedParts(snapshot));
  assert.deepEqual(changedParts(snapshot), []);
});

test("more than eight parts ask for a whole read; eight do not", () => {
  const { snapshot, list } = page();
  const items = Array.from({ length: 9 }, () => new FakeElement("li"));
  for (const item of items) list.append(item.append(new FakeElement("span")));
  const extended = {
    ...snapshot,
    positionOf: (element) => {
      const index = items.indexOf(element);
      return index >= 0 ? 2 : snapshot.positionOf(element);
    },
  };
  const changeOf = (item) => record({ type: "attributes", target: item.childNodes[0], attributeName: "class" });
  pendingRecords = items.slice(0, 8).map(changeOf);
  assert.equal(changedParts(extended).length, 8);
  markRead();
  pendingRecords = items.map(changeOf);
  assert.equal(changedParts(extended), null);
});

test("a part whose container is under the open overlays asks for a whole read", () => {
  const { snapshot, textA } = page();
  const overlaid = { ...snapshot, records: snapshot.records.slice() };
  overlaid.records[2 * 5 + 1] |= LINE_OVERLAY_BIT;
  pendingRecords = [record({ type: "characterData", target: textA })];
  assert.equal(changedParts(overlaid), null);
});

test("changes it cannot bound: the document's own children, too many records, an unbounded event, a forgotten read", () => {
  const { snapshot, document, textA, itemB } = page();
  pendingRecords = [record({ type: "childList", target: document })];
  assert.equal(changedParts(snapshot), null);
  markRead();
  pendingRecords = Array.from({ length: 2001 }, () => record({ type: "characterData", target: textA }));
  assert.equal(changedParts(snapshot), null);
  markRead();
  pendingRecords = Array.from({ length: 2000 }, () => record({ type: "characterData", target: textA }));
  assert.deepEqual(spans(changedParts(snapshot)), [[2, 3, 2]], "2000 records are still counted");
  markRead();
  events.dispatchEvent(new Event("resize"));
  assert.equal(changedParts(snapshot), null);
  markRead();
  assert.deepEqual(changedParts(snapshot), []);
  forgetWhatChanged();
  assert.equal(changedParts(snapshot), null);
  markRead();
  // allwright's own marker attributes change no line.
  pendingRecords = [record({ type: "attributes", target: itemB, attributeName: "data-allwright-input" })];
  assert.deepEqual(changedParts(snapshot), []);
});

test("style rules: :has() or :empty always, :hover after an interaction, a rule added since the read", () => {
  const { snapshot, document, textA } = page();
  const sheet = { cssRules: [new CSSStyleRule("li:hover")] };
  document.styleSheets = [sheet];
  markRead();
  pendingRecords = [record({ type: "characterData", target: textA })];
  assert.equal(changedParts(snapshot).length, 1, "an interaction style without an interaction");
  events.dispatchEvent(new Event("pointerover"));
  assert.equal(changedParts(snapshot), null);
  markRead();
  sheet.cssRules.push(new CSSStyleRule(".late"));
  assert.equal(changedParts(snapshot), null, "a rule added since the read");
  sheet.cssRules = [{ cssRules: [new CSSStyleRule("ul:has(li)")] }];
  markRead();
  assert.equal(changedParts(snapshot), null, ":has() inside a grouping rule");
  sheet.cssRules = [new CSSStyleRule("p:empty")];
  markRead();
  assert.equal(changedParts(snapshot), null);
});

test("a page that owns elements elsewhere, or a custom element upgraded since the read, is read whole", () => {
  const { snapshot, body } = page();
  const owner = new FakeElement("div", { "aria-owns": "hint" });
  body.append(owner);
  markRead();
  assert.equal(changedParts(snapshot), null);
  owner.attributes.delete("aria-owns");
  const widget = new FakeElement("x-widget");
  widget.defined = false;
  body.append(widget);
  markRead();
  assert.deepEqual(changedParts(snapshot), []);
  widget.defined = true;
  assert.equal(changedParts(snapshot), null);
});
