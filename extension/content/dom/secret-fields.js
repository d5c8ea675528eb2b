// @ts-check
// Which fields hold a secret (docs/protocol.md, "Secrets stay secret"): a password input; a field
// whose autocomplete names a password, a card number or security code, or a one-time code (HTML,
// "Autofill": current-password, new-password, cc-number, cc-csc, one-time-code); and a text field
// the page masks with `-webkit-text-security` (CSS Overflow 4 leaves it to the WebKit/Blink
// compatibility property; a page that draws discs over what is typed treats it as a password).
// Their values never leave the page: not in the tree, the snapshot, an action's result, hint or
// error, nor the side panel's log. One rule, read by the tree's gatherer and by the actions.

const SECRET_AUTOCOMPLETE = /(^|\s)(current-password|new-password|cc-number|cc-csc|one-time-code)(\s|$)/i;

/**
 * Whether an element's autocomplete names a secret.
 * @param {Element} element
 */
export function hasSecretAutocomplete(element) {
  return SECRET_AUTOCOMPLETE.test(element.getAttribute("autocomplete") ?? "");
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
 * Whether the value of an input or textarea is a secret. `style` is the element's computed
 * style when the caller has it already.
 * @param {Element} element
 * @param {CSSStyleDeclaration} [style]
 */
export function isSecretField(element, style) {
  const localName = element.localName;
  if (localName !== "input" && localName !== "textarea") return false;
  if (localName === "input" && /** @type {HTMLInputElement} */ (element).type === "password") return true;
  if (hasSecretAutocomplete(element)) return true;
  return isMaskedByStyle(style ?? getComputedStyle(element));
}
