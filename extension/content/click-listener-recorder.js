// @ts-check
// The click listener recorder: the extension's one content script in the page's own world
// (manifest/base.json: "world": "MAIN", "run_at": "document_start", every frame). A listener
// added with addEventListener leaves no trace that a page's script or an isolated content
// script can read (only the debugger's getEventListeners lists them, per element), yet a div
// whose only behaviour is `row.addEventListener("click", ...)` is something a person clicks
// (issue 30, item 1). So this script wraps EventTarget.prototype.addEventListener, and the
// `onclick`-like setters of HTMLElement.prototype, before any page script runs, and keeps
// the elements that received a click, press or release listener (CLICK_LISTENER_TYPES). At a
// read, the gatherer asks for them across the worlds with events on the shared DOM
// (dom/click-listener-events.js; docs/protocol/reading.md, "Generic elements that keep their line:
// clickables"), and the core gives them a `clickable` line and a reference.
//
// What the page sees (docs/security.md, "The click listener recorder"):
// - The wrappers are transparent: the same `this`, the same arguments, the same return value,
//   and every exception of the original passes through untouched; the recording itself never
//   throws into the page (it uses only primitives captured here, before any page script ran,
//   and a failure is swallowed). Their `name` and `length` are the originals' ("addEventListener",
//   2; "set onclick", 1), but `Function.prototype.toString` shows this source rather than
//   "[native code]", and the setters' descriptors hold other functions: a page can tell that
//   something wrapped them (fingerprinting), as it can for any extension that does.
// - Nothing is written to the page: no attribute, no property, no global. The two event names
//   are the only trace, and a page may dispatch them itself; it then gets references on
//   elements of its own page, which it could have had with `cursor: pointer`.
// - No element is kept alive: the recorder holds WeakRefs (and a WeakSet and a WeakMap), and
//   drops the collected ones as it goes.
// - removeEventListener is not wrapped: an element whose last click listener was removed keeps
//   its mark until it is collected. The cost of that is a reference on an element that no
//   longer reacts, which clicking tells the agent (no effect); counting listeners per type,
//   capture flag and callback to catch the last removal would cost every page's every call.

import {
  CLICK_LISTENER_ELEMENT,
  CLICK_LISTENER_TYPES,
  CLICK_LISTENERS_REQUEST,
  DELEGATION_ROOT_TYPE_COUNT,
} from "./dom/click-listener-events.js";

// Everything the wrappers call, captured before any page script can replace it.
const apply = Reflect.apply;
const defineProperty = Object.defineProperty;
const ownDescriptor = Object.getOwnPropertyDescriptor;
const isPrototypeOf = Object.prototype.isPrototypeOf;
const eventTargetPrototype = EventTarget.prototype;
const originalAddEventListener = eventTargetPrototype.addEventListener;
const dispatchEvent = eventTargetPrototype.dispatchEvent;
const elementPrototype = Element.prototype;
const shadowRootPrototype = ShadowRoot.prototype;
const localNameOf = /** @type {() => string} */ (ownDescriptor(elementPrototype, "localName")?.get);
const isConnectedOf = /** @type {() => boolean} */ (ownDescriptor(Node.prototype, "isConnected")?.get);
const getRootNode = Node.prototype.getRootNode;
const shadowRootModeOf = /** @type {() => string} */ (ownDescriptor(shadowRootPrototype, "mode")?.get);
const EventConstructor = Event;
const SetConstructor = Set;
const WeakRefConstructor = WeakRef;
const deref = WeakRef.prototype.deref;
const weakSetHas = WeakSet.prototype.has;
const weakSetAdd = WeakSet.prototype.add;
const weakMapGet = WeakMap.prototype.get;
const weakMapSet = WeakMap.prototype.set;
const setHas = Set.prototype.has;
const setAdd = Set.prototype.add;
const setSizeOf = /** @type {() => number} */ (ownDescriptor(Set.prototype, "size")?.get);

const clickTypes = new Set(CLICK_LISTENER_TYPES);
/** The recorded elements, for membership. @type {WeakSet<Element>} */
const recorded = new WeakSet();
/** The recorded elements, for the answer: WeakRefs, compacted as collected ones are found. @type {WeakRef<Element>[]} */
let recordedRefs = [];
/** Compact `recordedRefs` when it reaches this length (twice the live count after the last compaction). */
let compactAt = 1024;
/**
 * The event types each element received a listener for, of any kind, so that a framework's
 * delegation root is told from a control (DELEGATION_ROOT_TYPE_COUNT).
 * @type {WeakMap<EventTarget, Set<string>>}
 */
const typesOf = new WeakMap();

/** Drops the WeakRefs whose element was collected, in place. */
function compact() {
  let live = 0;
  for (let index = 0; index < recordedRefs.length; index++) {
    const reference = recordedRefs[index];
    if (apply(deref, reference, []) !== undefined) recordedRefs[live++] = reference;
  }
  recordedRefs.length = live;
  compactAt = live * 2 > 1024 ? live * 2 : 1024;
}

/**
 * Notes that `target` received a listener of `type`. Never throws: it runs inside the page's
 * own addEventListener calls.
 * @param {unknown} target
 * @param {unknown} type
 */
function record(target, type) {
  try {
    // Strings only: converting another value would call the page's toString a second time.
    if (typeof type !== "string" || target === null || typeof target !== "object") return;
    if (!apply(isPrototypeOf, elementPrototype, [target])) return;
    const element = /** @type {Element} */ (target);
    // The document's root and body are where pages delegate every click (DOM, "Event
    // dispatch": a listener there sees the events of everything below); marking them would
    // mark the page. Window and document are not elements.
    const localName = apply(localNameOf, element, []);
    if (localName === "html" || localName === "body") return;
    let types = apply(weakMapGet, typesOf, [element]);
    if (types === undefined) {
      types = new SetConstructor();
      apply(weakMapSet, typesOf, [element, types]);
    }
    apply(setAdd, types, [type]);
    if (!apply(setHas, clickTypes, [type]) || apply(weakSetHas, recorded, [element])) return;
    apply(weakSetAdd, recorded, [element]);
    recordedRefs[recordedRefs.length] = new WeakRefConstructor(element);
    if (recordedRefs.length >= compactAt) compact();
  } catch {
    // A page that broke a built-in this relies on loses the recording, never its listener.
  }
}

/**
 * Whether an element is to be named in the answer: connected, not a delegation root, and not
 * inside a closed shadow root (the tree never enters one, and the isolated world would see the
 * event on the host).
 * @param {Element} element
 */
function answerable(element) {
  if (!apply(isConnectedOf, element, [])) return false;
  const types = apply(weakMapGet, typesOf, [element]);
  if (types !== undefined && apply(setSizeOf, types, []) > DELEGATION_ROOT_TYPE_COUNT) return false;
  const root = apply(getRootNode, element, []);
  return !apply(isPrototypeOf, shadowRootPrototype, [root]) || apply(shadowRootModeOf, root, []) === "open";
}

/**
 * The answer to the gatherer's request: one composed, non-bubbling event on each recorded
 * element still connected, all before the request's dispatchEvent returns (DOM, "dispatch":
 * listeners run synchronously).
 */
function answer() {
  compact();
  // Read from a copy: a page listener of the answer's event may add listeners meanwhile.
  const elements = [];
  for (let index = 0; index < recordedRefs.length; index++) {
    const element = apply(deref, recordedRefs[index], []);
    if (element !== undefined) elements[elements.length] = element;
  }
  for (let index = 0; index < elements.length; index++) {
    const element = elements[index];
    try {
      if (!answerable(element)) continue;
      apply(dispatchEvent, element, [new EventConstructor(CLICK_LISTENER_ELEMENT, { composed: true })]);
    } catch {
      // One element's failure (a page listener that threw is reported, not thrown) skips it alone.
    }
  }
}

// The wrapper is a method, like the original: no prototype, not a constructor, and the same
// name and length.
const wrappers = {
  /**
   * @this {EventTarget}
   * @param {string} type
   * @param {EventListenerOrEventListenerObject | null} listener
   */
  addEventListener(type, listener) {
    // `arguments`, not the two parameters: a third (options) and any further ones reach the
    // original as the page passed them, and a call with fewer fails there as it would have.
    const result = apply(originalAddEventListener, this, arguments);
    if (listener !== null && listener !== undefined) record(this, type);
    return result;
  },
};
defineProperty(eventTargetPrototype, "addEventListener", {
  value: wrappers.addEventListener,
  writable: true,
  enumerable: true,
  configurable: true,
});

// The event handler IDL attributes (HTML, "Event handlers"): `element.onclick = f` is the same
// behaviour as a listener. Only the setter is replaced; the getter stays the browser's.
for (const type of CLICK_LISTENER_TYPES) {
  const property = `on${type}`;
  const descriptor = ownDescriptor(HTMLElement.prototype, property);
  const originalSetter = descriptor?.set;
  if (descriptor === undefined || originalSetter === undefined || !descriptor.configurable) continue;
  const setter = /** @type {(value: unknown) => void} */ (
    ownDescriptor(
      {
        /** @param {unknown} value */
        set [property](value) {
          apply(originalSetter, this, [value]);
          if (typeof value === "function") record(this, type);
        },
      },
      property,
    )?.set
  );
  defineProperty(HTMLElement.prototype, property, { ...descriptor, set: setter });
}

// The request comes from the gatherer in the isolated world (tree/click-listener-elements.js),
// on the document, as a capturing listener added with the original so that it is not recorded.
apply(originalAddEventListener, document, [CLICK_LISTENERS_REQUEST, answer, true]);
