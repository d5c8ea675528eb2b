// @ts-check
// Which elements of the document may have a `visibility` or an `overflow` other than the one
// their place in the tree gives them, so that the gatherer reads these two properties there
// only (facts.js, STYLE_READS_BY_RULES). Reading a computed property costs about as much as
// reading `display` (8-10 ms for `visibility` over 10,000 elements in a content script's world
// in Chromium; docs/performance/warm-read.md, "Visibility and overflow read where rules reach").
//
// Without author style, `visibility` is inherited unchanged (no user-agent rule sets it) and
// `overflow` is `visible`, except on the few elements the user-agent sheets make scroll
// (USER_AGENT_SCROLLERS in facts.js). An author changes either through a style rule, an inline
// style, an SVG presentation attribute, or an animation or transition running on the element.
// This module finds the first and the last; facts.js checks the others on each element.

/** The longhands a rule changes `visibility` or `overflow` through (`all` sets them too). */
const PROPERTIES = ["visibility", "overflow-x", "overflow-y", "overflow-block", "overflow-inline"];

/**
 * The document's elements that one of its style rules may give a `visibility` or an `overflow`
 * (whatever the value, under whatever condition: @media and the like are ignored, so the set
 * may hold too many, never too few), and the targets of the animations and transitions running
 * now; or null when every element must be read: when that cannot be known (a sheet that cannot
 * be read, nested rules, `@scope`, a selector the document cannot run), or when the document
 * has more rules than elements. Looking at a rule costs about what the two reads cost on an
 * element (0.6-0.9 µs against 0.8-1.5 µs in Chromium: docs/performance/warm-read.md, "Visibility and
 * overflow read where rules reach"), so a page with a large sheet and a small document reads
 * its elements instead.
 * Elements in shadow trees, which the document's rules do not reach alone, are read by
 * facts.js whatever this answers.
 * @param {CSSRule[] | null} rules the document's, from styleRules in facts.js
 * @returns {Set<Element> | null}
 */
export function visibilityAndOverflowTargets(rules) {
  if (rules === null || rules.length > document.getElementsByTagName("*").length) return null;
  /** @type {string[]} */
  const selectors = [];
  for (const rule of rules) {
    // A scoped rule's selector is relative to its scope's root, which the document's query
    // would not know.
    if (typeof CSSScopeRule !== "undefined" && rule instanceof CSSScopeRule) return null;
    if (!(rule instanceof CSSStyleRule)) continue;
    // Nested rules (`&:hover`) have selectors relative to their parent's.
    if (rule.cssRules.length > 0) return null;
    const style = rule.style;
    if (PROPERTIES.some((property) => style.getPropertyValue(property) !== "")) selectors.push(rule.selectorText);
  }
  /** @type {Set<Element>} */
  const targets = new Set();
  try {
    if (selectors.length > 0)
      for (const element of document.querySelectorAll(selectors.join(","))) targets.add(element);
  } catch {
    return null;
  }
  // Running CSS animations and transitions, and script animations: their values are not in
  // any rule (a menu that fades its `visibility` out is hidden only once its transition ends).
  for (const animation of document.getAnimations()) {
    const target = /** @type {KeyframeEffect | null} */ (animation.effect)?.target ?? null;
    if (target !== null) targets.add(target);
  }
  return targets;
}

/**
 * Whether an inline style may set `visibility` or `overflow` (`all` included); a word that
 * only contains one of these names costs one property read too many, never a wrong fact.
 * @param {string} inlineStyle
 */
export function inlineStyleMayReach(inlineStyle) {
  return inlineStyle.includes("visibility") || inlineStyle.includes("overflow") || inlineStyle.includes("all");
}
