//! The small DOM that the core walks.
//!
//! The core never sees a browser. It sees this trait: node kinds, tags, attributes, the light
//! tree, open shadow roots and slots, the few computed-style and layout facts that the
//! accessibility algorithms need, and form state. The WASM glue implements it over facts gathered
//! from the live DOM in bulk; the in-memory DOM (`memdom`, tests only) implements it over HTML
//! parsed natively.
//!
//! Node ids are dense (`0..node_count()`), so per-call caches are plain vectors.
//!
//! This module is the bottom of the core: it uses no other module (ARCHITECTURE.md,
//! "Dependencies"). Every method is required, so that no algorithm hides behind a default.

/// A node of the DOM, as an index into the implementation's node table.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NodeId(pub u32);

impl NodeId {
    /// The id as a vector index.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// What kind of node this is. Comments, doctypes, processing instructions and template contents
/// are `Other`: the core ignores them.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum NodeKind {
    Document,
    Element,
    Text,
    /// An open shadow root. Closed roots are invisible to the core; only the fact that a host has
    /// one is known (`Dom::has_unread_closed_shadow_root`).
    ShadowRoot,
    Other,
}

/// The namespace of an element; roles and names differ for SVG and MathML.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Namespace {
    Html,
    Svg,
    MathMl,
    Other,
}

/// The computed `display`, reduced to what the algorithms distinguish.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Display {
    /// `display: none`: the element and its subtree are not rendered.
    None,
    /// `display: contents`: no box of its own, children are rendered.
    Contents,
    /// Plain inline boxes (`inline`, `ruby`): their text flows into the text beside them, so
    /// no word break around them when text is gathered for a name.
    Inline,
    /// Atomic inline-level boxes (CSS Display 3, "atomic inline": `inline-block`, `inline-flex`,
    /// `inline-grid`, `inline-table`): laid out in the line like a word, but a box of their own
    /// inside, so Chromium names them as a word of their own ("Issues 42" from
    /// `Issues<span style="display:inline-block">42</span>`; name.rs, `is_word_box`).
    AtomicInline,
    /// Every other rendered box (block, flex, grid, table parts, list-item, ...): a word break
    /// before and after it when text is gathered for a name.
    Block,
}

/// The computed `visibility`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Visibility {
    Visible,
    Hidden,
    Collapse,
}

/// The computed `text-transform` (CSS Text 3, "Case Transforms"), reduced to the case
/// transforms; `full-width` and `full-size-kana` read as `None`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum TextTransform {
    None,
    Uppercase,
    Lowercase,
    Capitalize,
}

/// The computed-style facts the core reads for one element.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Style {
    pub display: Display,
    pub visibility: Visibility,
    /// `content-visibility: hidden` skips the element's contents (not the element itself).
    pub content_visibility_hidden: bool,
    /// `pointer-events: none`: the element cannot be the target of a pointer.
    pub pointer_events_none: bool,
    /// The case transform of the element's text (inherited), which browsers apply to names
    /// from content: Chromium and Firefox name `<button style="text-transform:uppercase">Save
    /// changes</button>` "SAVE CHANGES".
    pub text_transform: TextTransform,
    /// Computed `overflow-x` or `overflow-y` is `auto` or `scroll`: the element is a scroll
    /// container the `scroll` tool can move, so its line prints its reference
    /// (docs/protocol/reading.md, "Which lines print their reference").
    pub scroll_container: bool,
    /// The element's own computed `cursor` is `pointer` and its parent's is not: the page
    /// styled it as something to click (issue 30, "Clickable things without a ref"). A cursor
    /// inherited from a clickable ancestor (a link's words, the cells of a clickable row) is
    /// not the element's own signal, so that the ancestor alone gets a reference.
    pub cursor_pointer: bool,
}

impl Style {
    /// What an element without any author or user-agent style would compute.
    pub const DEFAULT_INLINE: Style = Style {
        display: Display::Inline,
        visibility: Visibility::Visible,
        content_visibility_hidden: false,
        pointer_events_none: false,
        text_transform: TextTransform::None,
        scroll_container: false,
        cursor_pointer: false,
    };
}

/// A rectangle in CSS pixels, relative to the viewport's top-left corner.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Rect {
    pub x: f64,
    pub y: f64,
    pub width: f64,
    pub height: f64,
}

impl Rect {
    /// The rectangle of an element without a layout box (CSSOM View's `getBoundingClientRect()`
    /// answers it with zeros), and of every element when boxes were not measured.
    pub fn is_empty_at_origin(&self) -> bool {
        self.x == 0.0 && self.y == 0.0 && self.width == 0.0 && self.height == 0.0
    }

    /// Whether two rectangles share some area. An empty rectangle touching the viewport counts,
    /// so that zero-sized but positioned elements are not filtered away as invisible.
    pub fn intersects(&self, other: &Rect) -> bool {
        self.x <= other.x + other.width
            && other.x <= self.x + self.width
            && self.y <= other.y + other.height
            && other.y <= self.y + self.height
    }
}

/// A generated pseudo-element whose `content` joins the accessible name (accname 2F.ii).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum PseudoElement {
    Before,
    After,
}

/// Everything the core reads from a page.
///
/// Methods take node ids that the same implementation handed out; an id of the wrong kind (an
/// attribute asked of a text node) gets the empty answer, never a panic.
pub trait Dom {
    /// The number of nodes; ids are `0..node_count()`.
    fn node_count(&self) -> usize;

    /// The document node, root of the light tree.
    fn document(&self) -> NodeId;

    fn node_kind(&self, node: NodeId) -> NodeKind;

    fn namespace(&self, node: NodeId) -> Namespace;

    /// The element's local name: ASCII lowercase for HTML elements, as written for SVG and
    /// MathML (`foreignObject`), empty for non-elements.
    fn local_name(&self, node: NodeId) -> &str;

    /// An attribute's value by its (lowercase, for HTML) name.
    fn attribute(&self, node: NodeId, name: &str) -> Option<&str>;

    /// Calls `visit(name, value)` for every attribute, in document order.
    fn for_each_attribute(&self, node: NodeId, visit: &mut dyn FnMut(&str, &str));

    /// The data of a text node; empty for other nodes.
    fn text_data(&self, node: NodeId) -> &str;

    /// The light-tree parent. A shadow root has none (see `shadow_host`).
    fn parent(&self, node: NodeId) -> Option<NodeId>;

    /// The light-tree children in order (a `<template>`'s contents are not children).
    fn children(&self, node: NodeId) -> &[NodeId];

    /// The element's open shadow root, if it has one.
    fn shadow_root(&self, host: NodeId) -> Option<NodeId>;

    /// The host of a shadow root.
    fn shadow_host(&self, shadow_root: NodeId) -> Option<NodeId>;

    /// Whether the element hosts a closed shadow root that this DOM could not read: its content
    /// is missing from the tree, and the agent is told so (`closed-shadow-root` on the host's
    /// line) rather than left to think the component is empty.
    fn has_unread_closed_shadow_root(&self, element: NodeId) -> bool;

    /// Whether a page script added a listener for a click, or for the press or release of a
    /// mouse button, a pointer or a touch, to this element itself (`addEventListener`, or an
    /// `onclick`-like property), as the extension's main-world recorder saw it
    /// (docs/protocol/reading.md, "Generic elements that keep their line: clickables"). Never true of
    /// `<html>` or `<body>`, whose listeners delegate for everything below them. A DOM that
    /// cannot see listeners answers false.
    fn has_click_listener(&self, element: NodeId) -> bool;

    /// The nodes assigned to a `<slot>`, in order; empty when nothing is assigned (then the
    /// slot's own children are its fallback content). A live implementation returns
    /// `slot.assignedNodes()`, which also honours manual assignment; one without a browser can
    /// use the DOM standard's named-slot assignment, `composed::find_slottables`.
    fn assigned_nodes(&self, slot: NodeId) -> Vec<NodeId>;

    /// The element with this id in the same tree as `context` (the document, or the shadow root
    /// that contains `context`). Implementations should index: the core asks often.
    fn element_by_id(&self, context: NodeId, id: &str) -> Option<NodeId>;

    /// The computed style of an element. Not asked of other nodes.
    fn style(&self, element: NodeId) -> Style;

    /// The computed `content` of `::before` or `::after`, as text, when it generates any.
    fn pseudo_content(&self, element: NodeId, pseudo: PseudoElement) -> Option<String>;

    /// The border box, when the element has a layout box.
    fn bounding_box(&self, element: NodeId) -> Option<Rect>;

    /// The viewport (the layout viewport at its current scroll position, with x = y = 0).
    fn viewport(&self) -> Rect;

    /// The current value of a form control (the `value` IDL attribute of input, textarea, select,
    /// output). `None` for elements without one.
    fn value(&self, element: NodeId) -> Option<&str>;

    /// The checkedness of a checkbox or radio input.
    fn checked(&self, element: NodeId) -> bool;

    /// The `indeterminate` IDL flag of a checkbox input.
    fn indeterminate(&self, element: NodeId) -> bool;

    /// The selectedness of an `<option>`.
    fn option_selected(&self, element: NodeId) -> bool;

    /// Whether a file input has files attached.
    fn files_attached(&self, element: NodeId) -> bool;

    /// Whether the element is a disabled form control (`:disabled`, which includes disabled
    /// fieldset and optgroup ancestors). A DOM without a browser can derive it from attributes
    /// with `html::disabled_from_attributes`.
    fn disabled(&self, element: NodeId) -> bool;
}
