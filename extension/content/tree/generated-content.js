// @ts-check
// Generated content: which elements may have `::before`/`::after` content, and the core's one
// call-back that reads it, with `open-quote`/`close-quote` resolved to the marks the browser
// draws (CSS Generated Content, "quotes").

import { HTML_NAMESPACE } from "./facts.js";
import { composedParentElement } from "../dom/shadow.js";

/**
 * The selectors (pseudo-element part removed) of the document's rules that give `::before` or
 * `::after` some content, joined into one selector list; '' when no rule does; null when it
 * cannot be known (a cross-origin sheet, nested rules, functional selectors), in which case
 * every element is asked. Conditions (@media, @supports, ...) are ignored: the list may match
 * too much, never too little.
 * @param {CSSRule[] | null} rules the document's, from styleRules
 * @returns {string | null}
 */
function generatedContentSelector(rules) {
  if (rules === null) return null;
  /** @type {string[]} */
  const selectors = [];
  for (const rule of rules) {
    if (!(rule instanceof CSSStyleRule)) continue;
    // Nested rules (`&::before`) have selectors relative to their parent's.
    if (rule.cssRules.length > 0) return null;
    const text = rule.selectorText;
    if (!/:(before|after)\b/i.test(text)) continue;
    const content = rule.style.getPropertyValue("content").trim();
    if (["", "none", "normal", '""', "''"].includes(content)) continue;
    // A comma inside :is(...) or :not(...) would be cut wrongly below.
    if (text.includes("(")) return null;
    for (const part of text.split(",")) {
      const stripped = part.replace(/::?(before|after)\b/gi, "").trim();
      selectors.push(stripped === "" ? "*" : stripped);
    }
  }
  const list = selectors.join(",");
  try {
    if (list !== "") document.createElement("div").matches(list);
  } catch {
    return null;
  }
  return list;
}

/**
 * The document's elements that some rule may give `::before` or `::after` content (the
 * gatherer flags them GENERATED_CONTENT_POSSIBLE; the core asks for no other element's), or
 * null when that cannot be known and every element must be asked.
 * @param {CSSRule[] | null} rules the document's, from styleRules
 * @returns {Set<Element> | null}
 */
export function generatedContentCandidates(rules) {
  const selector = generatedContentSelector(rules);
  if (selector === null) return null;
  return new Set(selector === "" ? [] : document.querySelectorAll(selector));
}

/**
 * The core's one call-back: the computed `content` of `::before` / `::after`, asked for the
 * flagged elements (see generatedContentCandidates) whose names come from their content.
 * Resolving a pseudo-element's style is the expensive part, which the flag keeps to the
 * elements that may have some.
 * @param {Node[]} nodeList
 */
export function pseudoContentReader(nodeList) {
  return {
    /**
     * @param {number} index
     * @param {boolean} after
     * @returns {string | null}
     */
    read(index, after) {
      const element = nodeList[index];
      if (!(element instanceof Element)) return null;
      const style = getComputedStyle(element, after ? "::after" : "::before");
      if (style.display === "none") return null;
      const content = style.content;
      if (content === "none" || content === "normal" || content === "") return null;
      return content.includes("quote") ? withQuotesResolved(content, element, style.quotes) : content;
    },
  };
}

/**
 * `quotes: auto` as Chromium 156 renders it, for the languages where it differs from English:
 * lowercase language tag -> outer open, outer close, inner open, inner close. Read from
 * Chromium's own accessible names of nested <q> elements in every ISO 639-1 language and common
 * regional tags (CSS leaves `auto` to the user agent; Chromium's table is older CLDR data).
 */
const AUTO_QUOTES = new Map(
  Object.entries({
    am: "«»‹›",
    ar: "”“’‘",
    bg: "„“„“",
    ca: "«»“”",
    cs: "„“‚‘",
    de: "„“‚‘",
    el: "«»“”",
    et: "„“‚‘",
    fa: "«»‹›",
    fi: "””’’",
    fr: "«»«»",
    he: "””’’",
    hr: "„“‚‘",
    hu: "„”»«",
    it: "«»“”",
    ja: "「」『』",
    lt: "„“„“",
    nb: "«»‘’",
    nl: "‘’‘’",
    nn: "«»‘’",
    no: "«»‘’",
    pl: "„”«»",
    ro: "„”«»",
    ru: "«»„“",
    sk: "„“‚‘",
    sl: "„“‚‘",
    sr: "„”’’",
    sv: "””’’",
    uk: "«»„“",
    ur: "”“’‘",
    "fr-ch": "«»‹›",
    "fr-ca": "«»”“",
    "pt-pt": "«»“”",
    "zh-hant": "「」『』",
  }),
);
const ENGLISH_QUOTES = "“”‘’";
/** A CSS string token, double- or single-quoted, with its escapes. */
const CSS_STRING = /"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'/.source;

/**
 * The computed `content` with `open-quote` and `close-quote` replaced by the quote marks the
 * browser draws, as CSS strings the core reads like any other (`no-open-quote` and
 * `no-close-quote` draw nothing). The nesting depth is the number of <q> ancestors: quote
 * depth is really counted over every quote in the document, which only <q> uses in practice.
 * @param {string} content
 * @param {Element} element
 * @param {string} quotes the computed `quotes` property
 */
function withQuotesResolved(content, element, quotes) {
  /** @type {string[]} CSS string tokens, open and close alternating, outermost first. */
  let marks;
  if (quotes === "auto") {
    let language = elementLanguage(element);
    while (language !== "" && !AUTO_QUOTES.has(language)) {
      language = language.includes("-") ? language.slice(0, language.lastIndexOf("-")) : "";
    }
    marks = [...(AUTO_QUOTES.get(language) ?? ENGLISH_QUOTES)].map((mark) => JSON.stringify(mark));
  } else {
    marks = quotes.match(new RegExp(CSS_STRING, "g")) ?? [];
  }
  let depth = 0;
  for (let ancestor = composedParentElement(element); ancestor !== null; ancestor = composedParentElement(ancestor)) {
    if (ancestor.localName === "q" && ancestor.namespaceURI === HTML_NAMESPACE) depth += 1;
  }
  const pairs = Math.floor(marks.length / 2);
  const pair = Math.min(depth, pairs - 1);
  return content.replace(new RegExp(`${CSS_STRING}|\\b(no-)?(open|close)-quote\\b`, "g"), (token, no, which) => {
    if (which === undefined) return token;
    if (no !== undefined || pairs === 0) return "";
    return /** @type {string} */ (marks[2 * pair + (which === "open" ? 0 : 1)]);
  });
}

/** The language of an element: the nearest `lang` attribute, lowercased ('' when none). */
function elementLanguage(/** @type {Element} */ element) {
  for (
    let current = /** @type {Element | null} */ (element);
    current !== null;
    current = composedParentElement(current)
  ) {
    const language = current.getAttribute("lang");
    if (language !== null) return language.toLowerCase();
  }
  return "";
}
