// The one rule of what counts as a part of the control being clicked (issue 30, item 8). The
// extension imports it (content/actions/click.js); the MCP server's WebDriver BiDi input path
// embeds this file's text in its hit test (crates/allwright-surface-web/src/page/scripts.rs,
// PREPARE_POINTER_TARGET), so both judge a cover alike. It must therefore stay one
// self-contained function declaration that reads only the DOM: no imports, no other names.

/**
 * Whether `hit`, the element a pointer at the target's centre would reach, is a part of the
 * target's own control, so that a person's click there is a click on the target:
 *  - the target itself or anything inside it (flat tree: slotted content is inside its slot);
 *  - anything inside one of the target's labels (HTML, "The label element": a label's
 *    activation behaviour runs its labeled control's), as a styled box drawn over a native
 *    check box inside its label;
 *  - anything inside the target's own shadow host, the web component whose shadow tree holds
 *    the target (DOM Standard, "shadow host"): a component that draws its box over its inner
 *    `<input>` takes the click for that input.
 * Anything else (an overlay, a cookie banner, another control) covers the target.
 * @param {Element} target
 * @param {Element} hit
 * @returns {boolean}
 */
export function isPartOfSameControl(target, hit) {
  const isInside = (/** @type {Node} */ ancestor) => {
    for (
      let node = /** @type {Node | null} */ (hit);
      node !== null;
      node =
        /** @type {Element} */ (node).assignedSlot ||
        node.parentNode ||
        /** @type {ShadowRoot} */ (/** @type {unknown} */ (node)).host ||
        null
    ) {
      if (node === ancestor) return true;
    }
    return false;
  };
  if (isInside(target)) return true;
  const labels = /** @type {HTMLInputElement} */ (target).labels;
  if (labels) {
    for (const label of Array.from(labels)) {
      if (isInside(label)) return true;
    }
  }
  // A shadow root is a document fragment (node type 11) with a host; the document has none.
  const root = target.getRootNode();
  const host = root.nodeType === 11 ? /** @type {ShadowRoot} */ (root).host : null;
  return host !== null && host !== undefined && isInside(host);
}
