//! The functions allwright runs in the `allwright` sandbox realm of a browsing context
//! (WebDriver BiDi, script.callFunction with `target: {context, sandbox}`). A sandbox sees the
//! page's DOM but not its JavaScript globals, so a page that redefines `querySelectorAll` or
//! `Element.prototype.focus` cannot fool these functions, and nothing they define is visible to
//! the page. Each function is a self-contained declaration: BiDi sends its source text.
//!
//! Results that are structured data come back as a JSON string (parsed in Rust): BiDi serializes
//! plain objects as key/value lists, which is more awkward to read than JSON text. Elements come
//! back as node remote values, whose `sharedId` names the element in every realm of the document.

/// The end of the two hit-testing functions, shared as text: with `element`, `x` and `y` in
/// scope, finds what a pointer at (x, y) would hit, looking into open shadow roots
/// (`shadowRoot.elementFromPoint`), and answers `ok` when `$accepts_hit` (a JS expression over
/// `element` and `hit`) holds, or which element covers it.
macro_rules! hit_test_at_x_y {
    ($accepts_hit:expr) => {
        concat!(
            r#"  let hit = document.elementFromPoint(x, y);
  while (hit && hit.shadowRoot) {
    const inner = hit.shadowRoot.elementFromPoint(x, y);
    if (!inner || inner === hit) break;
    hit = inner;
  }
  if (hit && ("#,
            $accepts_hit,
            r#")) return JSON.stringify({ status: 'ok', x, y });
  if (!hit) return JSON.stringify({ status: 'not-visible' });
  const text = (hit.textContent || '').replace(/\s+/g, ' ').trim().slice(0, 60);
  const className = typeof hit.className === 'string' ? hit.className : '';
  return JSON.stringify({
    status: 'covered', x, y,
    covering: { tag: hit.localName, id: hit.id || '', className, text },
  });
}"#
        )
    };
}

/// The hit is the element or inside it in the flat tree (DOM Standard, "assigned slot"): a
/// slotted light-DOM child is rendered inside its slot, so text slotted into a web component's
/// option is inside that option.
macro_rules! hit_is_self_or_inside {
    () => {
        r#"(() => {
    for (let node = hit; node; node = node.assignedSlot || node.parentNode || node.host) {
      if (node === element) return true;
    }
    return false;
  })()"#
    };
}

/// The extension's rule of what is a part of the control being clicked
/// (extension/content/dom/own-part.js, `isPartOfSameControl`), as the text of a plain function
/// declaration: the file is an ES module for the extension, and its one `export` is dropped
/// here so that the same text defines the function inside a BiDi function's body. build.rs
/// embeds the copy that scripts/build-extension.mjs puts in the crate's `embedded/` folder.
fn own_part_rule_declaration() -> String {
    include_str!(concat!(env!("OUT_DIR"), "/own-part.js")).replacen(
        "export function isPartOfSameControl",
        "function isPartOfSameControl",
        1,
    )
}

/// `(selector, pierceShadowRoots) => Element[]`: every element matching a CSS selector in the
/// document, and, when asked, inside every open shadow root (depth first, in tree order of the
/// hosts). An invalid selector throws, and the caller reports it as such.
pub const QUERY_SELECTOR_ALL: &str = r#"(selector, pierceShadowRoots) => {
  const roots = [document];
  if (pierceShadowRoots) {
    for (let index = 0; index < roots.length; index += 1) {
      for (const element of roots[index].querySelectorAll('*')) {
        if (element.shadowRoot) roots.push(element.shadowRoot);
      }
    }
  }
  const found = [];
  for (const root of roots) found.push(...root.querySelectorAll(selector));
  return found;
}"#;

/// `(elements) => string`: for each element, whether it is visible, as a JSON array of booleans.
/// Visible means what a user could see if it were scrolled into view: rendered (not inside
/// `display: none` or `content-visibility: hidden`), `visibility: visible`, and a non-empty box.
pub const VISIBILITY_OF_ELEMENTS: &str = r#"(...elements) => JSON.stringify(elements.map((element) => {
  if (!element.isConnected) return false;
  if (typeof element.checkVisibility === 'function' && !element.checkVisibility()) return false;
  if (getComputedStyle(element).visibility !== 'visible') return false;
  const box = element.getBoundingClientRect();
  return box.width > 0 && box.height > 0;
}))"#;

/// `(element, which) => string`: `innerText` (rendered text) or `textContent` (all text).
pub const READ_TEXT: &str = r#"(element, which) => which === 'innerText'
  ? (typeof element.innerText === 'string' ? element.innerText : element.textContent || '')
  : element.textContent || ''"#;

/// `(element) => boolean`: focuses the element and answers whether it now has focus (looking
/// through open shadow roots, whose hosts are what `document.activeElement` names).
pub const FOCUS: &str = r#"(element) => {
  element.focus({ preventScroll: false });
  let active = document.activeElement;
  while (active && active.shadowRoot && active.shadowRoot.activeElement) {
    active = active.shadowRoot.activeElement;
  }
  return active === element;
}"#;

/// `() => string`: the viewport's size in CSS pixels, as JSON `{width, height}`
/// (`window.innerWidth` and `innerHeight`: scroll bars included, as media queries see it;
/// VIEWPORT_SIZE below leaves the scroll bars out).
pub const INNER_VIEWPORT_SIZE: &str =
    r#"() => JSON.stringify({ width: window.innerWidth, height: window.innerHeight })"#;

/// `(element) => boolean`: whether the element holds its document's focus (looking through
/// open shadow roots, as FOCUS does), without moving it.
pub const HOLDS_FOCUS: &str = r#"(element) => {
  let active = document.activeElement;
  while (active && active.shadowRoot && active.shadowRoot.activeElement) {
    active = active.shadowRoot.activeElement;
  }
  return active === element;
}"#;

/// `(element) => string`: prepares an element for typing that replaces its value: focuses it
/// and selects everything in it, so that the first typed character replaces the old value the
/// way a user's select-all then typing does. Answers JSON `{status, value}`; `status` is `"ok"`,
/// `"not-editable"` (a checkbox, a date picker: typing cannot set those) or `"not-focusable"`.
pub const PREPARE_FILL: &str = r#"(element) => {
  const typable = new Set(['', 'text', 'search', 'url', 'tel', 'email', 'password', 'number']);
  const tag = element.localName;
  const isTextControl = tag === 'textarea' ||
    (tag === 'input' && typable.has((element.getAttribute('type') || '').toLowerCase()));
  if (!isTextControl && !element.isContentEditable) {
    return JSON.stringify({ status: 'not-editable', value: null });
  }
  if (element.disabled || element.readOnly) {
    return JSON.stringify({ status: 'not-editable', value: null });
  }
  element.focus();
  let active = document.activeElement;
  while (active && active.shadowRoot && active.shadowRoot.activeElement) {
    active = active.shadowRoot.activeElement;
  }
  if (active !== element) return JSON.stringify({ status: 'not-focusable', value: null });
  if (isTextControl) {
    element.select();
    return JSON.stringify({ status: 'ok', value: element.value });
  }
  const range = document.createRange();
  range.selectNodeContents(element);
  const selection = window.getSelection();
  selection.removeAllRanges();
  selection.addRange(range);
  return JSON.stringify({ status: 'ok', value: element.textContent });
}"#;

/// `(element) => string`: the value of a text control, or the text of an editable element.
pub const READ_VALUE: &str = r#"(element) => typeof element.value === 'string'
  ? element.value : (element.textContent || '')"#;

/// `(element) => string`: scrolls the element into view when it is not wholly in the viewport,
/// computes its in-view centre point and checks that a pointer there would hit it.
///
/// The centre follows WebDriver's "get the in-view center point" (WebDriver classic, "Element
/// interactability"): the first non-empty client rectangle, clipped to the viewport, and the
/// floor of the middle of what is left; the same point BiDi uses for an element origin. The hit
/// test is `elementFromPoint`, continued into each open shadow root on the way down
/// (`shadowRoot.elementFromPoint`), and the target counts as hit when the element found is a part
/// of the same control (`isPartOfSameControl`, extension/content/dom/own-part.js: the target or
/// inside it in the flat tree, inside one of its labels, or inside its own shadow host), the rule
/// the extension's own actionability check follows too. Answers JSON:
/// `{status: "ok", x, y}`, `{status: "covered", x, y, covering: {tag, id, className, text}}`,
/// `{status: "not-visible"}` or `{status: "detached"}`.
pub static PREPARE_POINTER_TARGET: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| {
    format!(
        "(element) => {{\n{}\n{}",
        own_part_rule_declaration(),
        PREPARE_POINTER_TARGET_BODY
    )
});

/// The body of PREPARE_POINTER_TARGET after the declaration of `isPartOfSameControl`.
const PREPARE_POINTER_TARGET_BODY: &str = concat!(
    r#"  if (!element.isConnected) return JSON.stringify({ status: 'detached' });
  const viewportWidth = document.documentElement.clientWidth || window.innerWidth;
  const viewportHeight = document.documentElement.clientHeight || window.innerHeight;
  const firstBox = () => Array.from(element.getClientRects())
    .find((box) => box.width > 0 && box.height > 0);
  let box = firstBox();
  if (!box) return JSON.stringify({ status: 'not-visible' });
  const wholly = box.left >= 0 && box.top >= 0 &&
    box.right <= viewportWidth && box.bottom <= viewportHeight;
  if (!wholly) {
    element.scrollIntoView({ block: 'center', inline: 'center', behavior: 'instant' });
    box = firstBox();
    if (!box) return JSON.stringify({ status: 'not-visible' });
  }
  const left = Math.max(0, box.left);
  const right = Math.min(viewportWidth, box.right);
  const top = Math.max(0, box.top);
  const bottom = Math.min(viewportHeight, box.bottom);
  if (right <= left || bottom <= top) return JSON.stringify({ status: 'not-visible' });
  const x = Math.floor((left + right) / 2);
  const y = Math.floor((top + bottom) / 2);
"#,
    hit_test_at_x_y!("isPartOfSameControl(element, hit)")
);

/// `(element, colour) => void`: draws an outline over the element's border box, in a box of its
/// own at the top of the stacking order that takes no pointer input (so it never changes what a
/// click hits). Positioned in document coordinates, so it stays over the element on scroll.
pub const HIGHLIGHT: &str = r#"(element, colour) => {
  const box = element.getBoundingClientRect();
  const overlay = document.createElement('div');
  overlay.setAttribute('data-allwright-highlight', '');
  overlay.style.cssText = [
    'all: initial', 'position: absolute', 'pointer-events: none', 'z-index: 2147483647',
    'box-sizing: border-box', `outline: 2px solid ${colour}`, 'outline-offset: 0',
    `background: color-mix(in srgb, ${colour} 15%, transparent)`,
    `left: ${box.left + window.scrollX}px`, `top: ${box.top + window.scrollY}px`,
    `width: ${box.width}px`, `height: ${box.height}px`,
  ].join('; ');
  document.documentElement.appendChild(overlay);
}"#;

/// `() => number`: removes every highlight overlay and answers how many there were.
pub const REMOVE_HIGHLIGHTS: &str = r#"() => {
  const overlays = document.querySelectorAll('[data-allwright-highlight]');
  overlays.forEach((overlay) => overlay.remove());
  return overlays.length;
}"#;

/// `() => Array<[HTMLIFrameElement | HTMLFrameElement, WindowProxy]>`: each frame element of
/// the document with its window. BiDi serializes a window as `{type: "window", value:
/// {context}}`, which maps a child browsing context to the element that embeds it, also for a
/// cross-origin frame (whose window is reachable, though not its document).
pub const FRAME_ELEMENTS_WITH_WINDOWS: &str = r#"() => Array.from(document.querySelectorAll('iframe, frame'))
  .map((frame) => [frame, frame.contentWindow])"#;

/// `(frame) => string`: where a frame element's content box starts in its document's viewport,
/// as JSON `{x, y}` (the frame's viewport origin, inside its border and padding).
pub const FRAME_CONTENT_ORIGIN: &str = r#"(frame) => {
  const box = frame.getBoundingClientRect();
  const style = getComputedStyle(frame);
  return JSON.stringify({
    x: box.left + frame.clientLeft + parseFloat(style.paddingLeft || '0'),
    y: box.top + frame.clientTop + parseFloat(style.paddingTop || '0'),
  });
}"#;

/// `(element, x, y) => string`: whether a pointer at (x, y) of the viewport would reach the
/// target element, as PREPARE_POINTER_TARGET judges it (a part of the same control counts),
/// without scrolling: the last look before the input is sent. Same JSON answers.
pub static HIT_TEST_AT_POINT: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| {
    format!(
        "(element, x, y) => {{\n{}\n{}",
        own_part_rule_declaration(),
        hit_test_at_x_y!("isPartOfSameControl(element, hit)")
    )
});

/// `(element, x, y) => string`: whether a pointer at (x, y) of the viewport would hit the
/// element itself or something inside it (the same composed hit test, without scrolling). Used
/// in a parent document for the frame element a translated point must land on, where only the
/// frame itself will do. Same JSON answers.
pub const FRAME_HIT_TEST_AT_POINT: &str = concat!(
    "(element, x, y) => {\n",
    hit_test_at_x_y!(hit_is_self_or_inside!())
);

/// `() => string`: the size of the document's viewport without scroll bars, JSON
/// `{width, height}`.
pub const VIEWPORT_SIZE: &str = r#"() => JSON.stringify({
  width: document.documentElement.clientWidth || window.innerWidth,
  height: document.documentElement.clientHeight || window.innerHeight,
})"#;

/// `() => string`: how far the document is scrolled, JSON `{x, y}`.
pub const DOCUMENT_SCROLL: &str =
    r#"() => JSON.stringify({ x: window.scrollX, y: window.scrollY })"#;

/// `(element) => string`: the element's border box in document coordinates (its client box
/// moved by the document's scroll), JSON `{x, y, width, height}`; nothing is scrolled.
pub const ELEMENT_BOX_IN_DOCUMENT: &str = r#"(element) => {
  const box = element.getBoundingClientRect();
  return JSON.stringify({ x: box.left + window.scrollX, y: box.top + window.scrollY, width: box.width, height: box.height });
}"#;

/// `(element) => string`: scrolls the element into view when it is not wholly in the viewport
/// and answers its border box in viewport coordinates, JSON `{x, y, width, height}`.
pub const ELEMENT_BOX_IN_VIEW: &str = r#"(element) => {
  const viewportWidth = document.documentElement.clientWidth || window.innerWidth;
  const viewportHeight = document.documentElement.clientHeight || window.innerHeight;
  let box = element.getBoundingClientRect();
  // In a frame, scrolling is asked for even when the element shows in its own viewport: the
  // frame itself may be scrolled out of its parent's view, and scrollIntoView scrolls every
  // ancestor document too (CSSOM View, "scroll an element into view").
  const inFrame = window !== window.top;
  if (inFrame || box.left < 0 || box.top < 0 || box.right > viewportWidth || box.bottom > viewportHeight) {
    element.scrollIntoView({ block: 'nearest', inline: 'nearest', behavior: 'instant' });
    box = element.getBoundingClientRect();
  }
  return JSON.stringify({ x: box.left, y: box.top, width: box.width, height: box.height });
}"#;
