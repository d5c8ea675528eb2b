// The click listener recorder (extension/content/click-listener-recorder.js), the one script in a
// page's own world, run as built over a small stand-in of the DOM's classes in a fresh realm: its
// wrappers are transparent (same `this`, arguments, return value and exceptions, the original's
// name and length), it records elements only (never html or body), skips delegation roots and
// detached elements, and answers the gatherer's request synchronously. The real browsers are
// tests/extension/clickables.rs.
import { test } from "node:test";
import assert from "node:assert/strict";
import vm from "node:vm";
import { bundleContentScript } from "../../../scripts/build-extension.mjs";

/** The stand-in DOM: just what the recorder captures and calls, with synchronous dispatch on the target. */
const STAND_IN = `
class Event {
  constructor(type, init = {}) { this.type = type; this.composed = !!init.composed; this.bubbles = !!init.bubbles; }
}
class EventTarget {
  addEventListener(type, listener, options) {
    if (typeof listener === "string") throw new TypeError("not a listener");
    (this.listeners ??= []).push({ type, listener, options });
    return undefined;
  }
  dispatchEvent(event) {
    globalThis.dispatched.push([this, event.type, event.composed, event.bubbles]);
    for (const { type, listener } of this.listeners ?? []) if (type === event.type) listener.call(this, event);
    return true;
  }
}
class Node extends EventTarget {
  get isConnected() { return this.connected !== false; }
  getRootNode() { return this.root ?? document; }
}
class Element extends Node {
  constructor(localName) { super(); this.name = localName; }
  get localName() { return this.name; }
}
class ShadowRoot extends Node {
  constructor(mode) { super(); this.shadowMode = mode; }
  get mode() { return this.shadowMode; }
}
class HTMLElement extends Element {}
for (const type of ["click", "mousedown", "mouseup", "pointerdown", "pointerup", "touchstart", "touchend", "keydown"]) {
  Object.defineProperty(HTMLElement.prototype, "on" + type, {
    get() { return this["handler_" + type] ?? null; },
    set(value) { this["handler_" + type] = typeof value === "function" ? value : null; },
    enumerable: true,
    configurable: true,
  });
}
class Document extends Node {}
var document = new Document();
var dispatched = [];
`;

/** A fresh realm with the stand-in DOM and the recorder installed, as a page's world at document_start. */
async function pageWorld() {
  const context = vm.createContext({});
  vm.runInContext(STAND_IN, context);
  vm.runInContext(await bundleContentScript("content/click-listener-recorder.js"), context);
  // Values cross back as JSON: the realm's arrays have another Array.prototype than this one's.
  const run = (/** @type {string} */ code) => {
    const value = vm.runInContext(code, context);
    return value === undefined ? undefined : JSON.parse(JSON.stringify(value));
  };
  /** The elements named by the answer to one request (by their `name`), as the gatherer gets them. */
  const answered = () =>
    run(`
      dispatched.length = 0;
      document.dispatchEvent(new Event("allwright:click-listeners-request"));
      dispatched.filter(([, type]) => type === "allwright:click-listener-element").map(([element, , composed, bubbles]) => {
        if (!composed || bubbles) throw new Error("the answer must be composed and must not bubble");
        return element.localName + (element.id ? "#" + element.id : "");
      })
    `);
  return { run, answered };
}

test("the wrapper is transparent: this, arguments, return value, exceptions, name and length", async () => {
  const { run } = await pageWorld();
  assert.equal(run("EventTarget.prototype.addEventListener.name"), "addEventListener");
  assert.equal(run("EventTarget.prototype.addEventListener.length"), 2);
  assert.equal(run("'prototype' in EventTarget.prototype.addEventListener"), false);
  const seen = run(`
    const element = new HTMLElement("div");
    const listener = () => {};
    const options = { capture: true, once: true };
    const result = element.addEventListener("click", listener, options, "extra");
    const [entry] = element.listeners;
    [result === undefined, entry.listener === listener, entry.options === options, entry.type]
  `);
  assert.deepEqual(seen, [true, true, true, "click"]);
  // An exception of the original passes through untouched, and nothing is recorded.
  assert.equal(
    run(`
      const failing = new HTMLElement("span");
      let caught;
      try { failing.addEventListener("click", "not a function"); } catch (error) { caught = error; }
      caught instanceof TypeError && caught.message === "not a listener"
    `),
    true,
  );
  assert.equal(run("Object.getOwnPropertyDescriptor(HTMLElement.prototype, 'onclick').set.name"), "set onclick");
});

test("elements with a click, press or release listener are named; html, body and other types are not", async () => {
  const { run, answered } = await pageWorld();
  run(`
    const make = (name, id) => Object.assign(new HTMLElement(name), { id });
    make("div", "row").addEventListener("click", () => {});
    make("span", "press").addEventListener("mousedown", () => {});
    make("li", "point").addEventListener("pointerdown", () => {});
    make("div", "touch").addEventListener("touchstart", {handleEvent() {}});
    make("div", "keys").addEventListener("keydown", () => {});
    make("div", "no-listener").addEventListener("click", null);
    new HTMLElement("html").addEventListener("click", () => {});
    new HTMLElement("body").addEventListener("click", () => {});
    document.addEventListener("click", () => {});
    make("div", "property").onclick = () => {};
    make("div", "cleared").onclick = null;
    make("div", "twice").addEventListener("click", () => {});
  `);
  run(`
    // The same element twice is named once.
    const again = new HTMLElement("div"); again.id = "again";
    again.addEventListener("click", () => {}); again.addEventListener("mouseup", () => {});
  `);
  assert.deepEqual(answered(), ["div#row", "span#press", "li#point", "div#touch", "div#property", "div#twice", "div#again"]);
});

test("delegation roots, detached elements and elements of closed shadow roots are left out", async () => {
  const { run, answered } = await pageWorld();
  run(`
    const root = new HTMLElement("div"); root.id = "framework-root";
    for (let index = 0; index < 30; index++) root.addEventListener("type" + index, () => {});
    root.addEventListener("click", () => {});
    const detached = new HTMLElement("div"); detached.id = "detached";
    detached.addEventListener("click", () => {});
    detached.connected = false;
    const open = new HTMLElement("div"); open.id = "in-open-root";
    open.root = new ShadowRoot("open");
    open.addEventListener("click", () => {});
    const closed = new HTMLElement("div"); closed.id = "in-closed-root";
    closed.root = new ShadowRoot("closed");
    closed.addEventListener("click", () => {});
  `);
  assert.deepEqual(answered(), ["div#in-open-root"]);
});

test("built-ins a page replaces later change nothing: the recorder captured them first", async () => {
  const { run, answered } = await pageWorld();
  run(`
    Set.prototype.add = () => { throw new Error("broken by the page"); };
    WeakMap.prototype.get = () => { throw new Error("broken by the page"); };
    globalThis.Set = function () { throw new Error("broken by the page"); };
    Reflect.apply = () => { throw new Error("broken by the page"); };
    const element = new HTMLElement("div"); element.id = "row";
    element.addEventListener("click", () => {});
  `);
  assert.equal(run("document.listeners.length >= 1 && (new HTMLElement('x').addEventListener('click', () => {}), true)"), true);
  assert.deepEqual(answered(), ["div#row", "x"]);
});
