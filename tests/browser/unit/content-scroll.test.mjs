// scroll's page half (extension/content/actions/scroll.js) on hand-made scroll boxes: which box
// scrolls (the element, its nearest scrollable ancestor in the flat tree, or the page), by how
// much (80% of the box's size unless an amount is given), to which edge, and what the result
// says when nothing moved. The boxes clamp their positions as a browser does (CSSOM View,
// "scroll an element"); layout itself is the browser tests' (tests/browser/).
import { test } from "node:test";
import assert from "node:assert/strict";
import { FakeElement, installFakeDom } from "./fake-dom.mjs";
import { scrollAction } from "../../../extension/content/actions/scroll.js";
import { printedRole } from "../../../extension/content/actions/target.js";

/** Gives a fake element a scroll box: content size, client size, position, and overflow. */
function scrollBox(element, { overflowX = "visible", overflowY = "visible", content = [0, 0], client = [0, 0] } = {}) {
  element.computedStyle = { ...element.computedStyle, overflowX, overflowY };
  [element.scrollWidth, element.scrollHeight] = content;
  [element.clientWidth, element.clientHeight] = client;
  element.scrollLeft = 0;
  element.scrollTop = 0;
  const clamp = (value, most) => Math.max(0, Math.min(value, most));
  element.scrollTo = ({ top = element.scrollTop, left = element.scrollLeft }) => {
    element.scrollTop = clamp(top, element.scrollHeight - element.clientHeight);
    element.scrollLeft = clamp(left, element.scrollWidth - element.clientWidth);
  };
  element.scrollBy = ({ top = 0, left = 0 }) =>
    element.scrollTo({ top: element.scrollTop + top, left: element.scrollLeft + left });
  return element;
}

/** A page 1000 x 600 showing a document 1000 x 3000, with a list that scrolls inside it. */
function page() {
  const document = installFakeDom();
  const root = scrollBox(new FakeElement("html"), { content: [1000, 3000], client: [1000, 600] });
  const body = new FakeElement("body");
  const list = scrollBox(new FakeElement("ul"), { overflowY: "auto", content: [300, 1000], client: [300, 200] });
  const item = new FakeElement("li");
  const wide = scrollBox(new FakeElement("div"), { overflowX: "scroll", content: [900, 50], client: [100, 50] });
  const cell = new FakeElement("span");
  const clipped = scrollBox(new FakeElement("div"), { overflowY: "hidden", content: [100, 900], client: [100, 100] });
  const inClipped = new FakeElement("p");
  document.append(root.append(body.append(list.append(item), wide.append(cell), clipped.append(inClipped))));
  document.scrollingElement = root;
  document.body = body;
  // The page scrolls through the window, as `window.scrollBy` moves the scrolling element.
  globalThis.window = globalThis;
  globalThis.innerWidth = 1000;
  globalThis.innerHeight = 600;
  Object.defineProperty(globalThis, "scrollX", { configurable: true, get: () => root.scrollLeft });
  Object.defineProperty(globalThis, "scrollY", { configurable: true, get: () => root.scrollTop });
  globalThis.scrollBy = (delta) => root.scrollBy(delta);
  globalThis.scrollTo = (position) => root.scrollTo(position);
  return { root, body, list, item, wide, cell, clipped, inClipped };
}

/** The tree side's helpers, resolving refs to the given elements. */
const helpers = (elements) => ({ resolveRef: (ref) => elements[ref] ?? assert.fail(`unknown ${ref}`) });

test("without a ref the page scrolls down by 80% of the viewport, and up back to the start", async () => {
  page();
  const down = await scrollAction({}, helpers({}));
  assert.deepEqual(down, { target: "page", before: { x: 0, y: 0 }, after: { x: 0, y: 480 }, evidence: ["scrolled"], hints: [] });
  const up = await scrollAction({ direction: "up", amount: 1000 }, helpers({}));
  assert.deepEqual(up.after, { x: 0, y: 0 });
  const again = await scrollAction({ direction: "up" }, helpers({}));
  assert.deepEqual(again.evidence, []);
  assert.deepEqual(again.hints, ["already at the start"]);
});

test("a scrollable element scrolls itself; an element that does not scroll hands over to its scrollable ancestor", async () => {
  const { list, item } = page();
  const own = await scrollAction({ ref_id: "ref_1" }, helpers({ ref_1: list }));
  assert.equal(own.target, "element");
  assert.deepEqual(own.after, { x: 0, y: 160 });
  assert.deepEqual(own.hints, []);
  const viaItem = await scrollAction({ ref_id: "ref_2", amount: 50 }, helpers({ ref_2: item }));
  assert.equal(viaItem.target, "element");
  assert.deepEqual(viaItem.after, { x: 0, y: 210 });
  assert.deepEqual(viaItem.hints, ["the li does not scroll, so its nearest scrollable ancestor (ul) was scrolled"]);
});

test("the axis picks the ancestor: a horizontal scroller for left and right, the page when none scrolls that way", async () => {
  const { cell, root } = page();
  const right = await scrollAction({ ref_id: "ref_3", direction: "right" }, helpers({ ref_3: cell }));
  assert.equal(right.target, "element");
  assert.deepEqual(right.after, { x: 80, y: 0 }, "80% of the scroller's 100 px");
  const down = await scrollAction({ ref_id: "ref_3", direction: "down" }, helpers({ ref_3: cell }));
  assert.equal(down.target, "page");
  assert.deepEqual(down.hints, ["the span does not scroll, so the page was scrolled"]);
  assert.equal(root.scrollTop, 480);
});

test("overflow hidden is no scroller a person can use; the page and the body never count as elements", async () => {
  const { inClipped, body, root } = page();
  const result = await scrollAction({ ref_id: "ref_4" }, helpers({ ref_4: inClipped }));
  assert.equal(result.target, "page");
  for (const element of [body, root]) {
    const onPage = await scrollAction({ ref_id: "ref_5", amount: 10 }, helpers({ ref_5: element }));
    assert.equal(onPage.target, "page");
    assert.deepEqual(onPage.hints, [], "no hand-over hint for the page itself");
  }
});

test("to an edge: top and bottom move to the ends; at the end a further scroll says so", async () => {
  const { list } = page();
  const bottom = await scrollAction({ ref_id: "ref_1", to: "bottom" }, helpers({ ref_1: list }));
  assert.deepEqual(bottom.after, { x: 0, y: 800 });
  const further = await scrollAction({ ref_id: "ref_1" }, helpers({ ref_1: list }));
  assert.deepEqual(further.hints, ["already at the end"]);
  const top = await scrollAction({ ref_id: "ref_1", to: "top", direction: "down" }, helpers({ ref_1: list }));
  assert.deepEqual(top.after, { x: 0, y: 0 });
  const atTop = await scrollAction({ ref_id: "ref_1", to: "top" }, helpers({ ref_1: list }));
  assert.deepEqual(atTop.hints, ["already at the start"]);
  // An edge is always along the vertical axis, whatever direction comes with it.
  const { cell } = page();
  const edge = await scrollAction({ ref_id: "ref_3", to: "bottom", direction: "right" }, helpers({ ref_3: cell }));
  assert.equal(edge.target, "page");
  assert.deepEqual(edge.after, { x: 0, y: 2400 });
  page();
  const pageBottom = await scrollAction({ to: "bottom" }, helpers({}));
  assert.deepEqual(pageBottom.after, { x: 0, y: 2400 });
});

test("into view reports scrolled only when the element's box moved, and which box holds it", async () => {
  const { item, list } = page();
  let moves = true;
  item.scrollIntoView = () => {
    if (moves) {
      list.scrollTop = 120;
      item.box = { ...item.box, y: item.box.y - 120 };
    }
  };
  const result = await scrollAction({ ref_id: "ref_2", to: "into_view" }, helpers({ ref_2: item }));
  assert.deepEqual(result, {
    target: "element",
    before: { x: 0, y: 0 },
    after: { x: 0, y: 120 },
    evidence: ["scrolled"],
    hints: [],
  });
  moves = false;
  const still = await scrollAction({ ref_id: "ref_2", to: "into_view" }, helpers({ ref_2: item }));
  assert.deepEqual(still.evidence, []);
  assert.deepEqual(still.hints, ["already in view"]);
  // With no vertical scroller around it, the horizontal one holds it.
  const { cell, wide } = page();
  cell.scrollIntoView = () => {
    wide.scrollLeft = 300;
  };
  const sideways = await scrollAction({ ref_id: "ref_3", to: "into_view" }, helpers({ ref_3: cell }));
  assert.equal(sideways.target, "element");
  assert.deepEqual(sideways.after, { x: 300, y: 0 });
});

test("the role an action reads is the one the agent read, else the element's explicit role", () => {
  const element = new FakeElement("div", { role: "button link" });
  assert.equal(printedRole({ printedRefOf: () => ({ role: "menuitem" }) }, element), "menuitem");
  assert.equal(printedRole({ printedRefOf: () => null }, element), "button");
});
