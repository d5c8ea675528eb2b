// @ts-check
// Generated from crates/allwright-ax-wasm/src/facts.rs; do not edit. A host test fails when this file is not what
// the generator writes; rewrite it with `cargo run -q -- generated-modules extension/shared/generated`.
//
// The layout of the DOM facts that the content script's gatherer (tree/facts.js) writes
// and the core reads. Each constant is the one of the same name in facts.rs, which
// documents it; FACTS_VERSION changes with the layout, so that a content script and a
// core from different builds refuse each other. A module without imports, so that the
// node unit tests load it without a page.

export const FACTS_VERSION = 8;
export const NODE_STRIDE = 5;
export const KIND_MASK = 0x7;
export const KIND_DOCUMENT = 0;
export const KIND_ELEMENT = 1;
export const KIND_TEXT = 2;
export const KIND_SHADOW_ROOT = 3;
export const NAMESPACE_SHIFT = 3;
export const NAMESPACE_HTML = 0;
export const NAMESPACE_SVG = 1;
export const NAMESPACE_MATHML = 2;
export const NAMESPACE_OTHER = 3;
export const DISPLAY_SHIFT = 5;
export const DISPLAY_NONE = 0;
export const DISPLAY_CONTENTS = 1;
export const DISPLAY_INLINE_LEVEL = 2;
export const DISPLAY_OTHER_BOX = 3;
export const VISIBILITY_SHIFT = 7;
export const VISIBILITY_VISIBLE = 0;
export const VISIBILITY_HIDDEN = 1;
export const VISIBILITY_COLLAPSE = 2;
export const TWO_BIT_CODE_MASK = 0x3;
export const CONTENT_VISIBILITY_HIDDEN = 0x200;
export const POINTER_EVENTS_NONE = 0x400;
export const HAS_BOX = 0x800;
export const CHECKED = 0x1000;
export const INDETERMINATE = 0x2000;
export const OPTION_SELECTED = 0x4000;
export const FILES_ATTACHED = 0x8000;
export const DISABLED = 0x10000;
export const BOXES_UNMEASURED = 0x20000;
export const POINTER_EVENTS_UNREAD = 0x40000;
export const GENERATED_CONTENT_POSSIBLE = 0x80000;
export const UNREAD_CLOSED_SHADOW_ROOT = 0x100000;
export const TEXT_TRANSFORM_SHIFT = 21;
export const TEXT_TRANSFORM_NONE = 0;
export const TEXT_TRANSFORM_UPPERCASE = 1;
export const TEXT_TRANSFORM_LOWERCASE = 2;
export const TEXT_TRANSFORM_CAPITALIZE = 3;
export const SCROLL_CONTAINER = 0x800000;
export const CURSOR_POINTER = 0x1000000;
export const ATOMIC_INLINE = 0x2000000;
export const HAS_CLICK_LISTENER = 0x4000000;
export const STRING_SEPARATOR = "\u007f";
