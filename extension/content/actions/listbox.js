// @ts-check
// Listboxes and comboboxes (WAI-ARIA combobox and listbox patterns): finding the popup list of a
// combobox, its options, the highlighted one, and the value a combobox shows.

import { elementsByIdList, flatTreeDescendants, flatTreeParentElement, queryAllAcrossShadow } from "../dom/shadow.js";
import { cssHiddenReason, explicitRole, isShown, normalizeText } from "./element.js";

/** The shown listboxes of the page, in open shadow roots too (a web component's own list). */
export const visibleListboxes = () =>
  queryAllAcrossShadow(document, '[role~="listbox"]').filter(
    (element) => explicitRole(element) === "listbox" && isShown(element),
  );

const isOption = (/** @type {Element} */ element) => explicitRole(element) === "option";

/**
 * The [role=option] elements of a listbox, in the flat tree the tree shows (shadow roots and
 * slotted light-DOM options included: a web-component select writes its options as its own
 * children and renders them in a slot of its shadow listbox), and the ones aria-owns adds.
 * @param {Element} listbox
 */
export function optionsOf(listbox) {
  const found = flatTreeDescendants(listbox, isOption);
  for (const owned of elementsByIdList(listbox, "aria-owns")) {
    if (isOption(owned)) found.push(owned);
    else found.push(...flatTreeDescendants(owned, isOption));
  }
  return [...new Set(found)];
}

/**
 * Listboxes named by the IDREFs of a combobox, of its descendants, or of an ancestor wrapper.
 * @param {Element} combobox
 */
function namedListboxes(combobox) {
  const holders = [combobox, ...combobox.querySelectorAll("[aria-controls], [aria-owns]")];
  const wrapper = combobox.parentElement?.closest("[aria-controls], [aria-owns]");
  if (wrapper) holders.push(wrapper);
  const listboxes = [];
  for (const holder of holders) {
    for (const named of [...elementsByIdList(holder, "aria-controls"), ...elementsByIdList(holder, "aria-owns")]) {
      if (explicitRole(named) === "listbox") listboxes.push(named);
      else listboxes.push(...flatTreeDescendants(named, (inner) => explicitRole(inner) === "listbox"));
    }
  }
  return listboxes;
}

/**
 * Whether a listbox that a combobox names is open: shown, or, while the combobox says it is
 * expanded, out of sight only because its box has no size. rc-select (Ant Design's Select) keeps
 * its ARIA listbox in a 0x0 box beside the visible list, which has no roles; browsers still
 * expose that listbox, and its options are the ones the keyboard highlights.
 * @param {Element} combobox
 * @param {Element} listbox
 */
function isOpenNamedListbox(combobox, listbox) {
  if (isShown(listbox)) return true;
  return (
    combobox.getAttribute("aria-expanded") === "true" &&
    listbox.isConnected &&
    cssHiddenReason(listbox) === "zero-size box"
  );
}

/**
 * The popup list of a combobox, once shown: the one its IDREFs name, else the last listbox that
 * became visible since `shownBefore` (portals append to the body), else, when the combobox says
 * it is expanded, the last visible one.
 * @param {Element} combobox
 * @param {Set<Element>} shownBefore the listboxes shown before the typing (visibleListboxes)
 */
export function openListboxOf(combobox, shownBefore) {
  const named = namedListboxes(combobox).find((listbox) => isOpenNamedListbox(combobox, listbox));
  if (named !== undefined) return named;
  const visible = visibleListboxes();
  const appeared = visible.filter((listbox) => !shownBefore.has(listbox));
  if (appeared.length > 0) return appeared[appeared.length - 1];
  if (combobox.getAttribute("aria-expanded") === "true" && visible.length > 0) return visible[visible.length - 1];
  return null;
}

/**
 * Whether set_field should treat the field as a combobox: role=combobox, aria-autocomplete,
 * aria-controls/aria-owns naming a listbox, or a listbox shown on the page. The last clause is
 * read as "a listbox that appeared while typing": a listbox that was already on the page (a
 * static list elsewhere) says nothing about this field.
 * @param {Element} field
 * @param {Set<Element>} shownBefore the listboxes shown before the typing (visibleListboxes)
 */
export function looksLikeCombobox(field, shownBefore) {
  if (explicitRole(field) === "combobox" || field.closest('[role~="combobox"]') !== null) return true;
  const autocomplete = field.getAttribute("aria-autocomplete");
  if (autocomplete !== null && autocomplete !== "none") return true;
  if (namedListboxes(field).length > 0) return true;
  return visibleListboxes().some((listbox) => !shownBefore.has(listbox));
}

/**
 * The option the combobox highlights now, if any, by the conventions libraries use.
 * @param {Element} listbox
 * @param {Element} field
 */
export function highlightedOption(field, listbox) {
  const combobox = field.closest('[role~="combobox"]') ?? field;
  for (const holder of new Set([field, combobox])) {
    for (const active of elementsByIdList(holder, "aria-activedescendant")) {
      if (explicitRole(active) === "option") return active;
    }
  }
  return (
    optionsOf(listbox).find(
      (option) =>
        option.getAttribute("aria-selected") === "true" ||
        option.hasAttribute("data-highlighted") ||
        option.hasAttribute("data-focus") ||
        /\bactive\b/.test(option.getAttribute("data-headlessui-state") ?? "") ||
        /(^|[\s_-])(is-)?(focused|highlighted)($|[\s_-])/i.test(option.getAttribute("class") ?? ""),
    ) ?? null
  );
}

/**
 * Text of an element, leaving out popups and live regions that sit inside widgets.
 * @param {Element} element
 */
function textOutsidePopups(element) {
  const walker = document.createTreeWalker(element, NodeFilter.SHOW_ELEMENT | NodeFilter.SHOW_TEXT, {
    acceptNode(node) {
      if (node.nodeType === Node.TEXT_NODE) return NodeFilter.FILTER_ACCEPT;
      const element = /** @type {Element} */ (node);
      const role = explicitRole(element);
      if (role === "listbox" || role === "option" || role === "menu" || element.hasAttribute("aria-live")) {
        return NodeFilter.FILTER_REJECT;
      }
      return NodeFilter.FILTER_SKIP;
    },
  });
  let text = "";
  while (walker.nextNode()) text += /** @type {Text} */ (walker.currentNode).data;
  return normalizeText(text).slice(0, 200);
}

/**
 * What a combobox shows as its value: an input's value, else the text of the widget around it
 * (react-select shows the chosen option next to an emptied input). The climb stops before it
 * reaches a label, a form or another field, where it would leave the widget.
 * @param {Element} field
 */
export function displayedText(field) {
  const isTextControl = field.localName === "input" || field.localName === "textarea";
  const value = isTextControl ? /** @type {HTMLInputElement|HTMLTextAreaElement} */ (field).value : "";
  if (value !== "") return value;
  if (!isTextControl) {
    const own = textOutsidePopups(field);
    if (own !== "") return own;
  }
  let node = flatTreeParentElement(field);
  for (let level = 0; node !== null && level < 3; level += 1, node = flatTreeParentElement(node)) {
    if (node.localName === "label" || node.localName === "form" || node.localName === "fieldset") break;
    const otherField = [...node.querySelectorAll("input, select, textarea")].some((other) => other !== field);
    if (otherField) break;
    const text = textOutsidePopups(node);
    if (text !== "") return text;
  }
  return "";
}

/**
 * The element a combobox's aria-activedescendant names now.
 * @param {Element} holder
 */
export function activeDescendantOf(holder) {
  return elementsByIdList(holder, "aria-activedescendant")[0] ?? null;
}
