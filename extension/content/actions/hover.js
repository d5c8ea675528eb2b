// @ts-check
// hover_element, the page half of hover: the pointer's way onto the element, off the element the
// last hover left it on, and the popups, states and mutations that follow.
//
// The events are synthetic: they run the page's listeners, but the browser's own hover state does
// not move, so CSS `:hover` rules do not apply (Selectors Level 4, ":hover" matches what the
// user's pointing device designates). The result says so when the page styles the target with
// them (`cssHover`); a browser allwright launched moves the real pointer instead.

import { isShown, viewportRect } from "./element.js";
import { classifyMutations, controlledBy, popupEvidence, shownPopups, startMutationWindow } from "./evidence.js";
import { scrollIntoViewIfNeeded } from "./interaction.js";
import { runPageHandlers } from "./page-handlers.js";
import { flatTreeChain, inViewCentre, movePointerTo } from "./pointer-input.js";
import { describeTargetAsRead, resolveTarget } from "./target.js";
import { nextTask, waitFor } from "./timing.js";

/** hover_element: how long a tooltip or menu may take to show. */
const HOVER_OBSERVATION_MS = 500;

/**
 * The selectors of a style sheet's rules that use `:hover`, nested and grouped rules included.
 * A cross-origin sheet cannot be read and is skipped.
 * @param {CSSStyleSheet} sheet
 * @returns {string[]}
 */
function hoverSelectorsOf(sheet) {
  /** @type {string[]} */
  const found = [];
  let rules;
  try {
    rules = [...sheet.cssRules];
  } catch {
    return found;
  }
  while (rules.length > 0) {
    const rule = rules.pop();
    if (rule instanceof CSSStyleRule && rule.selectorText.includes(":hover")) found.push(rule.selectorText);
    const nested = /** @type {CSSGroupingRule} */ (rule).cssRules;
    if (nested !== undefined) rules.push(...nested);
  }
  return found;
}

/**
 * The part of each complex selector in a list up to the compound that holds `:hover`, with
 * `:hover` removed: `.menu:hover > ul` gives `.menu`. The element that part matches is the one
 * that must be hovered for the rule to apply. Commas and combinators inside parentheses
 * (`:is(a, b):hover`) are kept.
 * @param {string} selectorList
 */
function hoveredCompounds(selectorList) {
  const selectors = [];
  let depth = 0;
  let start = 0;
  for (let index = 0; index <= selectorList.length; index += 1) {
    const character = selectorList[index];
    if (character === "(") depth += 1;
    else if (character === ")") depth -= 1;
    else if ((character === "," && depth === 0) || character === undefined) {
      selectors.push(selectorList.slice(start, index).trim());
      start = index + 1;
    }
  }
  const compounds = [];
  for (const selector of selectors) {
    const at = selector.indexOf(":hover");
    if (at < 0) continue;
    let end = at;
    for (let nesting = 0; end < selector.length; end += 1) {
      const character = selector[end];
      if (character === "(") nesting += 1;
      else if (character === ")") nesting -= 1;
      else if (nesting === 0 && /[\s>+~]/.test(character)) break;
    }
    const compound = selector.slice(0, end).replaceAll(":hover", "").trim();
    compounds.push(compound === "" || /[\s>+~]$/.test(compound) ? `${compound}*` : compound);
  }
  return compounds;
}

/**
 * The nearest element of the target's chain that one of the page's `:hover` rules needs hovered,
 * or null. The style sheets of the document and of the shadow roots on the way are read.
 * @param {Element[]} chain the target and its ancestors, nearest first
 */
function elementStyledOnHover(chain) {
  const sheets = new Set([...document.styleSheets, ...(document.adoptedStyleSheets ?? [])]);
  for (const node of chain) {
    const root = node.getRootNode();
    if (root instanceof ShadowRoot)
      for (const sheet of [...root.styleSheets, ...root.adoptedStyleSheets]) sheets.add(sheet);
  }
  const compounds = [...sheets].flatMap((sheet) => hoverSelectorsOf(sheet)).flatMap(hoveredCompounds);
  for (const node of chain) {
    for (const compound of compounds) {
      try {
        if (node.matches(compound)) return node;
      } catch {
        // A selector only valid in its own context (`:host`, a nested `&`) says nothing here.
      }
    }
  }
  return null;
}

/**
 * `tag#id.class` of an element, for a hint.
 * @param {Element} element
 */
function shortName(element) {
  const id = element.id ? `#${element.id}` : "";
  const classes = [...element.classList]
    .slice(0, 2)
    .map((name) => `.${name}`)
    .join("");
  return `${element.localName}${id}${classes}`;
}

/**
 * The observation around one hover, begun before the pointer moves: the target resolved, scrolled
 * into view and described, the popups and states before, and a mutation window. `finish` watches
 * for a while for popups, state changes and local mutations (the evidence) and reports them. The
 * synthetic hover and the bridge's real one (external-input.js) share it, so both report alike.
 * With `watchRevealed`, content that a CSS :hover rule shows is evidence too: a real pointer
 * applies :hover, synthetic events cannot, so only the real hover pays for looking.
 * @param {{ref_id: string}} args
 * @param {import("./target.js").TreeHelpers} ax
 * @param {{watchRevealed: boolean}} options
 */
export async function beginHoverObservation(args, ax, { watchRevealed }) {
  const element = resolveTarget(ax, args);
  const description = await describeTargetAsRead(ax, element);
  scrollIntoViewIfNeeded(element);
  const rect = viewportRect(element);
  const popupsBefore = shownPopups();
  const stateBefore = {
    "aria-expanded": element.getAttribute("aria-expanded"),
    "aria-describedby": element.getAttribute("aria-describedby"),
  };
  // A CSS :hover menu changes no attribute and no node: it shows by style alone, often as a
  // sibling of the hovered trigger (`.menu:hover > ul`), so the target's parent is looked at for
  // content that became shown.
  const scope = element.parentElement ?? element;
  const hiddenBefore = watchRevealed ? hiddenDescendants(scope) : null;
  const mutationWindow = startMutationWindow(element);

  /** @returns {Promise<Record<string, unknown> & {hints: string[]}>} */
  const finish = async () => {
    const hints = [];
    // Tooltips often wait before showing; look each frame for a while, and stop at the first sign.
    const observe = () => {
      const found = [];
      found.push(...popupEvidence(popupsBefore));
      for (const [attribute, value] of Object.entries(stateBefore)) {
        if (element.getAttribute(attribute) !== value) found.push(`semantic_state:${attribute}`);
      }
      if (hiddenBefore !== null && revealedInside(scope, hiddenBefore)) found.push("revealed:hover");
      const { local } = classifyMutations(mutationWindow.collect(), element, controlledBy(element));
      if (local) found.push("local_mutation");
      return found.length > 0 ? [...new Set(found)] : null;
    };
    await nextTask();
    const evidence = (await waitFor(observe, HOVER_OBSERVATION_MS)) ?? [];
    const { elsewhere } = classifyMutations(mutationWindow.finish(), element, controlledBy(element));
    if (elsewhere > 0) hints.push(`global_mutation: ${elsewhere} mutations elsewhere`);
    return { ...description, rect, evidence, hints };
  };
  return { element, description, rect, finish, abort: () => mutationWindow.finish() };
}

/**
 * The descendants of `scope` that are not shown now (at most 500 are looked at).
 * @param {Element} scope
 */
function hiddenDescendants(scope) {
  return new Set([...scope.querySelectorAll("*")].slice(0, 500).filter((node) => !isShown(node)));
}

/**
 * Whether one of the descendants that were hidden is shown now.
 * @param {Element} scope
 * @param {Set<Element>} hiddenBefore
 */
function revealedInside(scope, hiddenBefore) {
  for (const node of hiddenBefore) if (node.isConnected && isShown(node) && scope.contains(node)) return true;
  return false;
}

/**
 * hover_element({ref_id}): the synthetic pointer's way onto the element, then the observation.
 * @param {{ref_id: string}} args
 * @param {import("./target.js").TreeHelpers} ax
 */
export async function hoverElement(args, ax) {
  const observation = await beginHoverObservation(args, ax, { watchRevealed: false });
  const { element } = observation;
  runPageHandlers(() => movePointerTo(element, inViewCentre(element)));
  const result = await observation.finish();
  const styled = element.matches(":hover") ? null : elementStyledOnHover(flatTreeChain(element));
  if (styled !== null) {
    result.cssHover = "not_applied";
    result.hints.push(
      `css_hover_not_applied: the page styles ${shortName(styled)} with :hover rules, which synthetic events cannot apply in your own browser`,
    );
  }
  return result;
}
