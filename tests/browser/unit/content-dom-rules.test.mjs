// The content script's rules over the composed tree, run on a small hand-made tree
// (fake-dom.mjs) instead of a browser: the shadow-crossing walks (extension/content/dom/shadow.js),
// what counts as part of the clicked control (dom/own-part.js), which mutations are local to an
// action's target and which are text changes (actions/evidence.js, docs/protocol/tools.md, "Action
// results"), the marker attributes that are never evidence (dom/marker-attributes.js), wait_for's
// element states (actions/wait-conditions.js), CSS hiding (actions/element.js) and the option a
// combobox highlights (actions/listbox.js). Layout, events and real style resolution are the
// browser tests' (tests/browser/).
import { test } from "node:test";
import assert from "node:assert/strict";
import { FakeElement, FakeInput, FakeText, installFakeDom } from "./fake-dom.mjs";
import {
  closestAcrossShadow,
  composedParentElement,
  elementsByIdList,
  flatTreeChildren,
  flatTreeDescendants,
  flatTreeParentElement,
  isSelfOrInside,
} from "../../../extension/content/dom/shadow.js";
import { isPartOfSameControl } from "../../../extension/content/dom/own-part.js";
import { isMarkerRecord } from "../../../extension/content/dom/marker-attributes.js";
import {
  classifyMutations,
  semanticState,
  semanticStateChanges,
  targetAppearance,
  textChangeEvidence,
  withoutMarkerRecords,
} from "../../../extension/content/actions/evidence.js";
import { elementState } from "../../../extension/content/actions/wait-conditions.js";
import { cssHiddenReason, isShown } from "../../../extension/content/actions/element.js";
import { highlightedOption, optionsOf } from "../../../extension/content/actions/listbox.js";

const element = (name, attributes) => new FakeElement(name, attributes);

/**
 * A page: body > form > host(shadow: wrapper > [slot, input#inner]) with a light child slotted
 * into the slot, and a sibling banner.
 */
function page() {
  const document = installFakeDom();
  const body = element("body");
  const form = element("form");
  const host = element("fancy-field");
  const slotted = element("span", { slot: "label" });
  const slot = element("slot", { name: "label" });
  const inner = new FakeInput({ id: "inner" });
  const wrapper = element("div", { class: "wrapper" });
  const banner = element("div", { id: "banner" });
  document.append(body.append(form.append(host.append(slotted)), banner));
  const shadow = host.attachShadow(wrapper.append(slot, inner));
  slotted.assignedSlot = slot;
  slot.assignedNodes = () => [slotted];
  return { document, body, form, host, slotted, slot, inner, wrapper, shadow, banner };
}

test("the composed parent steps from a shadow root to its host; the flat-tree parent of a slotted node is its slot", () => {
  const { host, slotted, slot, wrapper, form, document } = page();
  assert.equal(composedParentElement(wrapper), host);
  assert.equal(composedParentElement(slotted), host);
  assert.equal(flatTreeParentElement(slotted), slot);
  assert.equal(flatTreeParentElement(wrapper), host);
  assert.equal(composedParentElement(form.parentNode), null, "the document is no element");
  assert.equal(composedParentElement(document), null);
});

test("inside-ness and closest cross shadow roots upwards, never downwards", () => {
  const { body, form, host, inner, banner } = page();
  assert.equal(isSelfOrInside(form, inner), true);
  assert.equal(isSelfOrInside(inner, inner), true);
  assert.equal(isSelfOrInside(inner, form), false);
  assert.equal(isSelfOrInside(banner, inner), false);
  assert.equal(isSelfOrInside(body, null), false);
  assert.equal(
    closestAcrossShadow(inner, (candidate) => candidate.localName === "form"),
    form,
  );
  assert.equal(
    closestAcrossShadow(inner, (candidate) => candidate.localName === "fancy-field"),
    host,
  );
  assert.equal(
    closestAcrossShadow(new FakeText("x"), () => true),
    null,
    "a text node alone is no element",
  );
});

test("the flat tree: a host's children are its shadow root's, a slot's are the nodes assigned to it", () => {
  const { host, slot, slotted, wrapper, inner, form } = page();
  assert.deepEqual(flatTreeChildren(host), [wrapper]);
  assert.deepEqual(flatTreeChildren(slot), [slotted]);
  const empty = element("slot").append(element("b"));
  empty.assignedNodes = () => [];
  assert.equal(flatTreeChildren(empty)[0].localName, "b", "an empty slot shows its own children");
  // Tree order in the flat tree: the slotted span renders inside the slot, before the input.
  assert.deepEqual(
    flatTreeDescendants(form, () => true).map((found) => found.localName),
    ["fancy-field", "div", "slot", "span", "input"],
  );
  assert.deepEqual(flatTreeDescendants(form, (found) => found === inner), [inner]);
  assert.equal(flatTreeDescendants(form, () => true, 2).length, 2, "the limit bounds the elements looked at");
});

test("ID lists resolve in the element's own tree first, then in the document", () => {
  const { inner, wrapper, banner } = page();
  wrapper.attributes.set("aria-controls", "  inner missing   banner ");
  assert.deepEqual(elementsByIdList(wrapper, "aria-controls"), [inner, banner]);
  assert.deepEqual(elementsByIdList(banner, "aria-owns"), []);
  // The document does not see into a shadow tree.
  banner.attributes.set("aria-owns", "inner");
  assert.deepEqual(elementsByIdList(banner, "aria-owns"), []);
});

test("a hit on the target, inside it, inside its label or inside its own shadow host is part of the control", () => {
  const { host, slotted, inner, wrapper, banner, form } = page();
  assert.equal(isPartOfSameControl(inner, inner), true);
  assert.equal(isPartOfSameControl(wrapper, inner), true);
  // A component's box drawn over its inner input takes the click for it.
  assert.equal(isPartOfSameControl(inner, host), true);
  assert.equal(isPartOfSameControl(inner, slotted), true, "a slotted node is inside the host");
  assert.equal(isPartOfSameControl(inner, banner), false);
  assert.equal(isPartOfSameControl(inner, form), false, "an ancestor above the host covers it");
  const checkbox = new FakeInput({ type: "checkbox" });
  const label = element("label");
  const styledBox = element("span");
  const other = element("span");
  label.append(styledBox, checkbox);
  checkbox.labels = [label];
  form.append(label, other);
  assert.equal(isPartOfSameControl(checkbox, styledBox), true);
  assert.equal(isPartOfSameControl(checkbox, other), false);
});

/** A mutation record as MutationObserver gives it. */
const record = (fields) => ({ addedNodes: [], removedNodes: [], oldValue: null, attributeName: null, ...fields });

test("a mutation is local in the target, as a direct attribute change of an ancestor, or in what aria-controls names", () => {
  const { body, form, host, inner, banner, wrapper } = page();
  const popup = element("ul", { role: "listbox" });
  body.append(popup);
  const local = (change, controlled = []) => classifyMutations([record(change)], wrapper, controlled);
  assert.deepEqual(local({ type: "childList", target: inner }), { local: true, elsewhere: 0 });
  assert.deepEqual(local({ type: "attributes", target: host, attributeName: "class" }), { local: true, elsewhere: 0 });
  assert.deepEqual(local({ type: "childList", target: host }), { local: false, elsewhere: 1 }, "only attributes of ancestors");
  assert.deepEqual(local({ type: "attributes", target: banner, attributeName: "class" }), { local: false, elsewhere: 1 });
  // The target itself removed by its parent's re-render.
  assert.deepEqual(local({ type: "childList", target: host.shadowRoot, removedNodes: [wrapper] }), { local: true, elsewhere: 0 });
  assert.deepEqual(local({ type: "childList", target: popup }, [popup]), { local: true, elsewhere: 0 });
  assert.deepEqual(local({ type: "childList", target: body, addedNodes: [popup] }, [popup]), { local: true, elsewhere: 0 });
  assert.deepEqual(local({ type: "childList", target: body, addedNodes: [popup] }), { local: false, elsewhere: 1 });
  // Counted per record; allwright's own marker attributes are not counted at all.
  const records = [
    record({ type: "attributes", target: banner, attributeName: "style" }),
    record({ type: "characterData", target: form }),
    record({ type: "attributes", target: banner, attributeName: "data-allwright-input" }),
  ];
  assert.deepEqual(classifyMutations(records, wrapper, []), { local: false, elsewhere: 2 });
});

test("marker records are allwright's data-allwright-* attributes only", () => {
  assert.equal(isMarkerRecord(record({ type: "attributes", attributeName: "data-allwright-trusted" })), true);
  assert.equal(isMarkerRecord(record({ type: "attributes", attributeName: "data-allwright" })), false);
  assert.equal(isMarkerRecord(record({ type: "attributes", attributeName: "data-allwrightx" })), false);
  assert.equal(isMarkerRecord(record({ type: "childList", attributeName: null })), false);
  const kept = withoutMarkerRecords([
    record({ type: "attributes", attributeName: "data-allwright-shadow-host" }),
    record({ type: "attributes", attributeName: "aria-expanded" }),
  ]);
  assert.deepEqual(
    kept.map((kept) => kept.attributeName),
    ["aria-expanded"],
  );
});

test("text changes: new characters, added or removed text, not a rewrite of the same words; live regions say so", () => {
  const { body, banner } = page();
  const status = element("div", { role: "log alert" });
  const quiet = element("div", { "aria-live": "off" });
  body.append(status, quiet);
  const text = new FakeText("Saved");
  banner.append(text);
  assert.deepEqual(textChangeEvidence([record({ type: "characterData", target: text, oldValue: "Saving" })]), [
    "text_changed",
  ]);
  // Only white space differs: the same text as a person reads it.
  assert.deepEqual(textChangeEvidence([record({ type: "characterData", target: text, oldValue: " Saved\n" })]), []);
  // A list re-rendered with the same words is no text change.
  const same = record({ type: "childList", target: banner, addedNodes: [new FakeText("a b")], removedNodes: [new FakeText("a  b")] });
  assert.deepEqual(textChangeEvidence([same]), []);
  assert.deepEqual(textChangeEvidence([record({ type: "attributes", target: banner, attributeName: "title" })]), []);
  const announced = new FakeText("1 item added");
  status.append(element("p").append(announced));
  assert.deepEqual(textChangeEvidence([record({ type: "childList", target: announced.parentNode, addedNodes: [announced] })]), [
    "text_changed",
    "text_changed:live_region",
  ]);
  const silenced = new FakeText("muted");
  quiet.append(silenced);
  assert.deepEqual(textChangeEvidence([record({ type: "childList", target: quiet, addedNodes: [silenced] })]), ["text_changed"]);
  const output = element("output");
  body.append(output);
  assert.deepEqual(textChangeEvidence([record({ type: "childList", target: output, addedNodes: [new FakeText("42")] })]), [
    "text_changed",
    "text_changed:live_region",
  ]);
});

test("semantic state: the ARIA states, a native input's checkedness, a details or dialog's openness", () => {
  const tab = element("div", { role: "tab", "aria-selected": "false" });
  const before = semanticState(tab);
  assert.deepEqual(before, {
    "aria-current": null,
    "aria-expanded": null,
    "aria-pressed": null,
    "aria-selected": "false",
    "aria-checked": null,
    checked: null,
    open: null,
  });
  tab.attributes.set("aria-selected", "true");
  tab.attributes.set("aria-current", "page");
  assert.deepEqual(semanticStateChanges(before, semanticState(tab)), [
    "semantic_state:aria-current",
    "semantic_state:aria-selected",
  ]);
  const checkbox = new FakeInput({ type: "checkbox" });
  const unchecked = semanticState(checkbox);
  checkbox.checked = true;
  assert.deepEqual(semanticStateChanges(unchecked, semanticState(checkbox)), ["semantic_state:checked"]);
  const details = element("details");
  details.open = false;
  const closed = semanticState(details);
  details.open = true;
  assert.deepEqual(semanticStateChanges(closed, semanticState(details)), ["semantic_state:open"]);
  assert.deepEqual(semanticStateChanges(closed, semanticState(details)).length, 1);
});

test("the target's appearance: name parts, class, style and child count, each change seen", () => {
  const button = element("button", { "aria-label": "Like", class: "btn" }).append("  Like \n it ");
  const before = targetAppearance(button);
  assert.deepEqual(before, { name: "Like\u0000\u0000Like it", class: "btn", style: null, children: 1 });
  button.attributes.set("title", "Liked");
  assert.notEqual(targetAppearance(button).name, before.name);
});

test("CSS hiding: visibility on the element, display none or opacity 0 up the flat tree, a zero-size box", () => {
  const { host, slotted, slot, inner } = page();
  assert.equal(cssHiddenReason(inner), null);
  assert.equal(isShown(inner), true);
  slotted.computedStyle = { ...slotted.computedStyle, visibility: "collapse" };
  assert.equal(cssHiddenReason(slotted), "hidden by CSS (visibility)");
  slotted.computedStyle = { ...slotted.computedStyle, visibility: "visible" };
  // The slot, the slotted node's flat-tree parent, is hidden: so is what renders in it.
  slot.computedStyle = { ...slot.computedStyle, display: "none" };
  assert.equal(cssHiddenReason(slotted), "hidden by CSS (display: none)");
  assert.equal(cssHiddenReason(inner), null, "the input is not in the slot");
  host.computedStyle = { ...host.computedStyle, opacity: "0" };
  assert.equal(cssHiddenReason(inner), "hidden by CSS (opacity: 0)");
  host.computedStyle = { ...host.computedStyle, opacity: "0.01" };
  assert.equal(cssHiddenReason(inner), null);
  inner.box = { x: 5, y: 5, width: 0, height: 20 };
  assert.equal(cssHiddenReason(inner), "zero-size box");
  const detached = element("div");
  assert.equal(isShown(detached), false, "an element out of the document is not shown");
});

test("wait_for's element state: visible, enabled (not :disabled, not under aria-disabled), checked", () => {
  const { form, inner, host } = page();
  const ax = { resolveRef: (ref) => ({ ref_5: inner })[ref] ?? assert.fail("unknown ref") };
  assert.deepEqual(elementState({ ref_id: "ref_9" }, { resolveRef: () => { throw new Error("gone"); } }), { found: false });
  assert.deepEqual(elementState({ ref_id: "ref_5" }, ax), { found: true, visible: true, enabled: true, checked: false });
  inner.disabled = true;
  assert.equal(elementState({ ref_id: "ref_5" }, ax).enabled, false);
  inner.disabled = false;
  // aria-disabled on an ancestor across the shadow boundary disables the inner input too.
  host.attributes.set("aria-disabled", "true");
  assert.equal(elementState({ ref_id: "ref_5" }, ax).enabled, false);
  host.attributes.set("aria-disabled", "false");
  assert.equal(elementState({ ref_id: "ref_5" }, ax).enabled, true);
  inner.type = "checkbox";
  inner.checked = true;
  assert.equal(elementState({ ref_id: "ref_5" }, ax).checked, true);
  // A text input's checkedness is no state a person sees; aria-checked and aria-pressed are.
  inner.type = "text";
  assert.equal(elementState({ ref_id: "ref_5" }, ax).checked, false);
  const toggle = element("div", { role: "button", "aria-pressed": "true" });
  const sw = element("div", { role: "switch", "aria-checked": "mixed" });
  form.append(toggle, sw);
  assert.equal(elementState({ ref_id: "x" }, { resolveRef: () => toggle }).checked, true);
  assert.equal(elementState({ ref_id: "x" }, { resolveRef: () => sw }).checked, false);
});

test("a combobox's highlighted option: aria-activedescendant first, then the libraries' markers", () => {
  const { body } = page();
  const field = new FakeInput({ role: "combobox" });
  const listbox = element("ul", { role: "listbox", id: "list" });
  const option = (id, attributes = {}) => element("li", { role: "option", id, ...attributes }).append(id);
  const [first, second, third] = [option("o1"), option("o2", { class: "option is-focused" }), option("o3", { "aria-selected": "true" })];
  listbox.append(first, element("div", { role: "group" }).append(second), third);
  body.append(field, listbox);
  assert.deepEqual(optionsOf(listbox), [first, second, third]);
  // The first option a marker names, in tree order: the class marker comes before aria-selected.
  assert.equal(highlightedOption(field, listbox), second);
  field.attributes.set("aria-activedescendant", "o3");
  assert.equal(highlightedOption(field, listbox), third);
  // An active descendant that is no option does not count.
  field.attributes.set("aria-activedescendant", "list");
  assert.equal(highlightedOption(field, listbox), second);
  field.attributes.delete("aria-activedescendant");
  for (const [attributes, highlighted] of [
    [{ "data-highlighted": "" }, true],
    [{ "data-focus": "" }, true],
    [{ "data-headlessui-state": "active selected" }, true],
    [{ "data-headlessui-state": "inactive" }, false],
    [{ class: "select__option--is-focused" }, true],
    [{ class: "Highlighted" }, true],
    [{ class: "unfocused" }, false],
    [{ class: "focusedish" }, false],
  ]) {
    const alone = element("ul", { role: "listbox" }).append(option("solo", attributes));
    body.append(alone);
    assert.equal(highlightedOption(field, alone) !== null, highlighted, JSON.stringify(attributes));
  }
});

test("a listbox's options include the ones aria-owns adds, each once", () => {
  const { body } = page();
  const listbox = element("div", { role: "listbox", "aria-owns": "extra group" });
  const inside = element("div", { role: "option" });
  const extra = element("div", { role: "option", id: "extra" });
  const grouped = element("div", { role: "option" });
  const group = element("div", { id: "group" }).append(grouped);
  listbox.append(inside);
  body.append(listbox, extra, group);
  assert.deepEqual(optionsOf(listbox), [inside, extra, grouped]);
  listbox.attributes.set("aria-owns", "extra extra");
  assert.deepEqual(optionsOf(listbox), [inside, extra]);
});
