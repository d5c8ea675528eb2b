// @ts-check
// Which fields hold a secret (docs/protocol/action-safety.md, "Secrets stay secret"). This module is the one
// rule: the tree's gatherer and both snapshots (content/tree/facts.js, which the BiDi bundle
// runs too), the text-entry actions, the shadow tools over the live DOM and over Chrome's
// debugger node tree (shared/shadow-outline.js) and the screenshot masks
// (content/dom/secret-masks.js) all call it; nothing else decides.
//
// A field is an `<input>` (of a type that holds text), a `<textarea>`, a `<select>` or an
// editing host (`contenteditable`). It holds a secret when:
// - it is a password input;
// - its autocomplete names a secret (HTML, "Autofill", the autofill field names): every
//   `*-password` (current-password, new-password), one-time-code, and the payment card's
//   cc-number, cc-exp, cc-exp-month, cc-exp-year and cc-csc. The card's holder (cc-name,
//   cc-given-name, cc-additional-name, cc-family-name) and brand (cc-type) are personal data,
//   not a credential: they are printed on the card's face and identify no account, so they are
//   not masked. Any other `cc-` token a later HTML adds is a secret until this list says
//   otherwise (fail closed);
// - the page masks what it shows with `-webkit-text-security` (disc, circle, square), on an
//   input, a textarea or an editing host: CSS Overflow 4 leaves the property to the
//   WebKit/Blink compatibility list, and a page that draws discs over what is typed treats it
//   as a password;
// - its name, id or label says it is one, as a word: PIN, OTP/TOTP, token, secret, API key
//   (api_key, api-key, apiKey, apikey, "API key"), passcode, password, passwd, CVC/CVV/CSC.
//   Words, not substrings: "spinner", "opinion", "tokenize", "secretary" and "pinned" are not
//   secrets (tests/browser/unit/secret-fields.test.mjs holds the near-misses).
//
// A secret's value never leaves the page: not in the tree, a snapshot, an action's result,
// hint or error, the side panel's log, a shadow tool's output, nor a screenshot (which paints
// over the field).

/** Input types whose value is never text a user typed: buttons, toggles, files (whose value is
 * never read anyway) and hidden inputs (no box, no typing; their value is not read either way). */
const NON_TEXT_INPUT_TYPES = new Set([
  "button",
  "checkbox",
  "color",
  "file",
  "hidden",
  "image",
  "radio",
  "range",
  "reset",
  "submit",
]);

/** The card's autofill tokens that are not secrets (see above): holder names and brand. */
const CARD_TOKENS_NOT_SECRET = new Set(["cc-name", "cc-given-name", "cc-additional-name", "cc-family-name", "cc-type"]);

/** Single words of a name, id or label that mark a secret. */
const SECRET_WORDS = new Set([
  "pin",
  "otp",
  "totp",
  "token",
  "secret",
  "passcode",
  "password",
  "passwd",
  "apikey",
  "cvc",
  "cvv",
  "csc",
]);

/**
 * Whether one autocomplete token names a secret.
 * @param {string} token lowercase
 */
export function isSecretAutocompleteToken(token) {
  if (token === "one-time-code") return true;
  if (token.endsWith("-password")) return true;
  return token.startsWith("cc-") && !CARD_TOKENS_NOT_SECRET.has(token);
}

/**
 * Whether an autocomplete attribute's value names a secret (any of its tokens: the field name
 * comes after the optional section, address-type and contact tokens).
 * @param {string|null} autocomplete
 */
export function autocompleteNamesSecret(autocomplete) {
  if (autocomplete === null) return false;
  return autocomplete.toLowerCase().split(/\s+/).some(isSecretAutocompleteToken);
}

/**
 * The words of a name, id or label: split at anything not a letter or digit, at a lowercase
 * letter followed by an uppercase one ("apiKey"), at letters next to digits ("pin2"), then
 * lowercased.
 * @param {string} text
 */
export function wordsOf(text) {
  return text
    .replace(/([a-z])([A-Z])/g, "$1 $2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2")
    .replace(/([A-Za-z])([0-9])|([0-9])([A-Za-z])/g, "$1$3 $2$4")
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((word) => word !== "");
}

/**
 * Whether a name, id or label says it is a secret, as a word ("api key" as two words too).
 * @param {string|null|undefined} text
 */
export function textNamesSecret(text) {
  if (text === null || text === undefined || text === "") return false;
  const words = wordsOf(text);
  for (let index = 0; index < words.length; index++) {
    if (SECRET_WORDS.has(words[index])) return true;
    if (words[index] === "api" && words[index + 1] === "key") return true;
  }
  return false;
}

/**
 * Whether a computed style masks the text (`-webkit-text-security: disc|circle|square`).
 * @param {CSSStyleDeclaration} style
 */
export function isMaskedByStyle(style) {
  const security = style.getPropertyValue("-webkit-text-security").trim();
  return security !== "" && security !== "none";
}

/**
 * What the rule reads of a field, from whatever tree holds it (the live DOM, the debugger's
 * node tree): its tag, its attributes, the texts that label it, and whether its style masks it.
 * @typedef {object} FieldDescription
 * @property {string} localName lowercase
 * @property {(name: string) => string|null} attribute
 * @property {() => Iterable<string>} [labels] the texts of its labels (aria-label,
 *   aria-labelledby, `<label>`, placeholder, title); absent where they cannot be read
 * @property {() => boolean} [maskedByStyle] absent where the style cannot be read
 */

/**
 * Whether an element of this tag and these attributes is a field whose value is text: an input of
 * a text type, a textarea, a select, or an editing host.
 * @param {string} localName
 * @param {(name: string) => string|null} attribute
 */
export function isValueField(localName, attribute) {
  if (localName === "input") {
    return !NON_TEXT_INPUT_TYPES.has((attribute("type") ?? "").trim().toLowerCase());
  }
  if (localName === "textarea" || localName === "select") return true;
  const editable = attribute("contenteditable");
  return editable !== null && editable.trim().toLowerCase() !== "false";
}

/**
 * The rule itself: whether the described field holds a secret.
 * @param {FieldDescription} field
 */
export function describesSecretField(field) {
  const { localName, attribute } = field;
  if (!isValueField(localName, attribute)) return false;
  if (localName === "input" && (attribute("type") ?? "").trim().toLowerCase() === "password") return true;
  if (autocompleteNamesSecret(attribute("autocomplete"))) return true;
  if (textNamesSecret(attribute("name")) || textNamesSecret(attribute("id"))) return true;
  for (const label of field.labels?.() ?? []) {
    if (textNamesSecret(label)) return true;
  }
  return field.maskedByStyle?.() ?? false;
}

/**
 * The texts that label a live element: aria-label, the elements aria-labelledby names, its
 * `<label>` elements, placeholder and title. (The accessible name itself is the core's; these
 * are its sources that can say "PIN".)
 * @param {Element} element
 */
function* labelTextsOf(element) {
  yield element.getAttribute("aria-label") ?? "";
  const labelledBy = element.getAttribute("aria-labelledby");
  if (labelledBy !== null) {
    const root = element.getRootNode();
    for (const id of labelledBy.split(/\s+/)) {
      if (id === "") continue;
      const label = root instanceof Document || root instanceof ShadowRoot ? root.getElementById(id) : null;
      if (label !== null) yield label.textContent ?? "";
    }
  }
  const labels = /** @type {HTMLInputElement} */ (element).labels;
  if (labels !== undefined && labels !== null) {
    for (const label of labels) yield label.textContent ?? "";
  }
  yield element.getAttribute("placeholder") ?? "";
  yield element.getAttribute("title") ?? "";
}

/**
 * Whether a live element is a field holding a secret. `style` is the element's computed style
 * when the caller has it already.
 * @param {Element} element
 * @param {CSSStyleDeclaration} [style]
 */
export function isSecretField(element, style) {
  const localName = element.localName;
  // A live input's `type` property is the one the browser applies (an unknown type is text).
  const attribute =
    localName === "input"
      ? (/** @type {string} */ name) =>
          name === "type" ? /** @type {HTMLInputElement} */ (element).type : element.getAttribute(name)
      : (/** @type {string} */ name) =>
          name === "contenteditable" && /** @type {HTMLElement} */ (element).isContentEditable
            ? editingHostAttribute(element)
            : element.getAttribute(name);
  return describesSecretField({
    localName,
    attribute,
    labels: () => labelTextsOf(element),
    maskedByStyle: () => isMaskedByStyle(style ?? getComputedStyle(element)),
  });
}

/**
 * An editable element counts as a field when it is the editing host (its parent is not
 * editable): the host holds the value, its descendants are its text.
 * @param {Element} element
 */
function editingHostAttribute(element) {
  const parent = element.parentElement;
  const parentEditable = parent !== null && /** @type {HTMLElement} */ (parent).isContentEditable;
  return parentEditable ? null : "true";
}

/**
 * The secret editing host a node is inside of, if any (its text is the secret's value).
 * `secretHosts` are the hosts known to be secret; the walk stops at a shadow root.
 * @param {Node} node
 * @param {Set<Element>} secretHosts
 */
export function isInsideSecretHost(node, secretHosts) {
  if (secretHosts.size === 0) return false;
  for (let ancestor = node.parentElement; ancestor !== null; ancestor = ancestor.parentElement) {
    if (secretHosts.has(ancestor)) return true;
  }
  return false;
}
