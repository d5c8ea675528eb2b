// Whether click_ax's synthetic click reached a page listener (extension/background/actions/click-listeners.js):
// the event path the debugger is asked about, and which listeners count. Chrome's trusted
// fallback runs only when none does.
import { test } from "node:test";
import assert from "node:assert/strict";
import { CLICK_EVENT_TYPES, clickListenersIn, describeHeard, eventPathOf, findClickListeners } from "../../../extension/background/actions/click-listeners.js";

/**
 * #document > HTML > BODY > [DIV#root > BUTTON#plain > SPAN, X-CARD (shadow root > SLOT#s > -) >
 * B (slotted into #s), IFRAME > #document > P].
 */
function tree() {
  const span = { backendNodeId: 6, nodeName: "SPAN" };
  const plain = { backendNodeId: 5, nodeName: "BUTTON", attributes: ["id", "plain"], children: [span] };
  const slot = { backendNodeId: 9, nodeName: "SLOT", attributes: ["id", "s"] };
  const shadowRoot = { backendNodeId: 8, nodeName: "#document-fragment", children: [{ backendNodeId: 12, nodeName: "DIV", children: [slot] }] };
  const slotted = { backendNodeId: 10, nodeName: "B", assignedSlot: { backendNodeId: 9 } };
  const host = { backendNodeId: 7, nodeName: "X-CARD", shadowRoots: [shadowRoot], children: [slotted] };
  const frameParagraph = { backendNodeId: 15, nodeName: "P" };
  const frame = { backendNodeId: 13, nodeName: "IFRAME", contentDocument: { backendNodeId: 14, nodeName: "#document", children: [frameParagraph] } };
  const root = {
    backendNodeId: 1,
    nodeName: "#document",
    children: [{ backendNodeId: 2, nodeName: "HTML", children: [{ backendNodeId: 3, nodeName: "BODY", children: [{ backendNodeId: 4, nodeName: "DIV", attributes: ["id", "root"], children: [plain] }, host, frame] }] }],
  };
  return { root, plain, span, slotted, slot, frameParagraph };
}

const ids = (path) => path?.map((node) => node.backendNodeId) ?? null;

test("the event path goes up to the document, through slots and shadow hosts", () => {
  const { root, plain, slotted } = tree();
  assert.deepEqual(ids(eventPathOf(root, plain)), [5, 4, 3, 2, 1]);
  // A slotted node passes its slot, the slot's shadow ancestors and the shadow root, then the host.
  assert.deepEqual(ids(eventPathOf(root, slotted)), [10, 9, 12, 8, 7, 3, 2, 1]);
});

test("a path that cannot be followed is no proof", () => {
  const { root, frameParagraph } = tree();
  // A frame's document has its own path: the element is not under the top document.
  assert.deepEqual(ids(eventPathOf(root, frameParagraph)), [15, 14]);
  const stray = { backendNodeId: 99, nodeName: "B", assignedSlot: { backendNodeId: 98 } };
  assert.equal(eventPathOf(root, stray), null);
  assert.equal(eventPathOf(root, { backendNodeId: 97, nodeName: "I" }), null);
});

test("presses, releases and clicks count; the pointer's way onto the element does not", () => {
  for (const type of ["click", "auxclick", "mousedown", "mouseup", "pointerdown", "pointerup", "DOMActivate"]) {
    assert.ok(CLICK_EVENT_TYPES.includes(type), type);
  }
  const found = clickListenersIn([
    { where: "button#plain", listeners: [{ type: "mouseover" }, { type: "focus" }, { type: "pointermove" }] },
    { where: "div#root", listeners: [{ type: "click" }, { type: "pointerdown", useCapture: true }] },
    { where: "window", listeners: [{ type: "keydown" }, { type: "mouseup", useCapture: true }] },
  ]);
  assert.deepEqual(found, ["click on div#root", "pointerdown on div#root (capture)", "mouseup on window (capture)"]);
  assert.deepEqual(clickListenersIn([{ where: "document", listeners: [{ type: "mouseout" }, { type: "input" }] }]), []);
  assert.match(describeHeard(["a", "b", "c", "d", "e"]), /\(a, b, c and 2 more\)/);
});

/** A debugger that answers from a table of listeners by backend node id (window: "window"). */
function fakeDebugger(listenersById, { failOn } = {}) {
  const asked = [];
  const send = async (method, params = {}) => {
    asked.push([method, params]);
    if (method === failOn) throw new Error("Cannot find context with specified id");
    if (method === "DOM.resolveNode") return { object: { objectId: `node-${params.backendNodeId}` } };
    if (method === "Runtime.evaluate") return { result: { objectId: "window" } };
    if (method === "DOMDebugger.getEventListeners") {
      const key = params.objectId === "window" ? "window" : Number(params.objectId.slice(5));
      return { listeners: listenersById[key] ?? [] };
    }
    throw new Error(`unexpected ${method}`);
  };
  return { send, asked };
}

test("every node of the path, the target's subtree and the window are asked; any click listener is heard", async () => {
  const { root, plain } = tree();
  const quiet = fakeDebugger({});
  assert.deepEqual(await findClickListeners(quiet.send, root, plain), { heard: [] });
  const depths = quiet.asked.filter(([method]) => method === "DOMDebugger.getEventListeners").map(([, params]) => [params.objectId, params.depth, params.pierce]);
  assert.deepEqual(depths, [
    ["node-5", -1, true],
    ["node-4", 1, true],
    ["node-3", 1, true],
    ["node-2", 1, true],
    ["node-1", 1, true],
    ["window", undefined, undefined],
  ]);
  // Delegation to the root, a document handler, a capture handler on the window, a handler on a
  // descendant (the subtree query reports its node id).
  for (const [key, listener, where] of [
    [4, { type: "click" }, "click on div#root"],
    [1, { type: "click" }, "click on document"],
    ["window", { type: "pointerdown", useCapture: true }, "pointerdown on window (capture)"],
    [5, { type: "mouseup", backendNodeId: 6 }, "mouseup on button#plain or inside it"],
  ]) {
    const { send } = fakeDebugger({ [key]: [listener] });
    assert.deepEqual(await findClickListeners(send, root, plain), { heard: [where] }, where);
  }
});

test("a protocol error or an unresolvable window is no proof", async () => {
  const { root, plain } = tree();
  for (const failOn of ["DOM.resolveNode", "DOMDebugger.getEventListeners", "Runtime.evaluate"]) {
    const { send } = fakeDebugger({}, { failOn });
    const finding = await findClickListeners(send, root, plain);
    assert.ok("unproven" in finding, failOn);
  }
  const noWindow = async (method, params) => (method === "Runtime.evaluate" ? { result: { type: "undefined" } } : fakeDebugger({}).send(method, params));
  assert.ok("unproven" in (await findClickListeners(noWindow, root, plain)));
});
