//! The DOM facts that the content script gathers in one pass, and the core's [`Dom`] trait over
//! them.
//!
//! Reading the DOM node by node from WASM costs a boundary crossing and a string conversion per
//! read (a per-node walk through web-sys measured about 3x the same walk in plain JS; see
//! docs/performance.md for where the in-page time goes). So `accessibility-tree.js` walks the page once in
//! plain JS and hands over a handful of flat arrays in a single call; the core then reads only
//! Rust memory. The one fact gathered on demand is the `content` of `::before` / `::after`,
//! which the core asks for a few elements only (names from content, and only elements flagged
//! [`GENERATED_CONTENT_POSSIBLE`]) and which costs a style resolution per pseudo-element in the
//! browser.
//!
//! The format (version [`FACTS_VERSION`]; the content script's `tree/facts.js` writes it with
//! these constants, which the binary generates into `extension/shared/generated/fact-layout.js`):
//!
//! - `strings`: every string of the page, joined with one separator character (U+007F, see
//!   [`STRING_SEPARATOR`]) so that two neighbouring lone surrogates cannot fuse into one
//!   character when the joined text is encoded; `string_lengths[i]` is the length of string `i`
//!   in UTF-16 code units, as JavaScript counts. Tag and attribute names are interned by the gatherer, values and text are not.
//! - `nodes`: [`NODE_STRIDE`] numbers per node, in tree order (each tree: the document, then each
//!   open shadow root, in preorder), node 0 being the document:
//!   `[flags, parent + 1, string, attribute count, value string + 1]`. `parent` is the light-tree
//!   parent; for a shadow root it is the host. Either comes before the node (tree order); the
//!   decoder refuses one that does not, so the decoded DOM has no cycles. `string` is the local name of an element or the
//!   data of a text node. Comments and other node kinds are not sent: the core ignores them.
//! - `attributes`: `[name string, value string]` pairs, in node order, `attribute count` per
//!   element.
//! - `rects`: `[x, y, width, height]` for each element with [`HAS_BOX`], in node order (empty
//!   when the document node carries [`BOXES_UNMEASURED`]).
//! - `slots`: `[slot node, count, assigned node...]` for each `<slot>` with assigned nodes.
//! - `viewport`: `[width, height]`.
//!
//! Decoding checks every index: facts come from the page, so a bad index or length is an error
//! to report, never a panic.

use rustc_hash::FxHashMap as HashMap;
use std::cell::{OnceCell, RefCell};
use std::fmt;

/// The text of a computed `content` value (the core's CSS reading, shared with the in-memory
/// DOM); re-exported for the tests of the fact format.
pub use allwright_ax::css::content_text;
use allwright_ax::{
    Display, Dom, Namespace, NodeId, NodeKind, PseudoElement, Rect, Style, TextTransform,
    Visibility,
};

/// Bumped whenever the layout below changes, so that a content script and a core from different
/// builds refuse each other instead of misreading.
pub const FACTS_VERSION: u32 = 8;

/// Numbers per node in `nodes`.
pub const NODE_STRIDE: usize = 5;

/// Node kind: bits 0-2 of the flags.
pub const KIND_MASK: u32 = 0b111;
pub const KIND_DOCUMENT: u32 = 0;
pub const KIND_ELEMENT: u32 = 1;
pub const KIND_TEXT: u32 = 2;
pub const KIND_SHADOW_ROOT: u32 = 3;

/// Namespace: bits 3-4, one of the `NAMESPACE_*` codes below.
pub const NAMESPACE_SHIFT: u32 = 3;
pub const NAMESPACE_HTML: u32 = 0;
pub const NAMESPACE_SVG: u32 = 1;
pub const NAMESPACE_MATHML: u32 = 2;
pub const NAMESPACE_OTHER: u32 = 3;
/// Computed `display`: bits 5-6, one of the `DISPLAY_*` codes below.
pub const DISPLAY_SHIFT: u32 = 5;
pub const DISPLAY_NONE: u32 = 0;
pub const DISPLAY_CONTENTS: u32 = 1;
/// An inline-level box (`display` `inline*` or `ruby`): it does not break words when text is
/// gathered for a name; with [`ATOMIC_INLINE`] an atomic inline.
pub const DISPLAY_INLINE_LEVEL: u32 = 2;
/// Any other box (block, flex, grid, table, list-item, ...).
pub const DISPLAY_OTHER_BOX: u32 = 3;
/// Computed `visibility`: bits 7-8, one of the `VISIBILITY_*` codes below.
pub const VISIBILITY_SHIFT: u32 = 7;
pub const VISIBILITY_VISIBLE: u32 = 0;
pub const VISIBILITY_HIDDEN: u32 = 1;
pub const VISIBILITY_COLLAPSE: u32 = 2;
/// The mask of one two-bit code once shifted down (namespace, display, visibility,
/// text-transform).
pub const TWO_BIT_CODE_MASK: u32 = 0b11;
pub const CONTENT_VISIBILITY_HIDDEN: u32 = 1 << 9;
pub const POINTER_EVENTS_NONE: u32 = 1 << 10;
/// The element has a layout box; its rectangle is the next one in `rects`.
pub const HAS_BOX: u32 = 1 << 11;
pub const CHECKED: u32 = 1 << 12;
pub const INDETERMINATE: u32 = 1 << 13;
pub const OPTION_SELECTED: u32 = 1 << 14;
pub const FILES_ATTACHED: u32 = 1 << 15;
/// The element matches `:disabled` (asked of form controls only).
pub const DISABLED: u32 = 1 << 16;
/// On the document node: boxes were not measured. Elements with [`HAS_BOX`] have a box, but
/// `rects` is empty and each box reads as an empty rectangle at the viewport's origin. The
/// gatherer skips `getBoundingClientRect` (a fifth of its time) when the operation reads no
/// position: every text-tree filter but `visible`, and the snapshot, which only asks whether an
/// element has a box ("non-rendered elements have no reference").
pub const BOXES_UNMEASURED: u32 = 1 << 17;
/// On the document node: `pointer-events` was not read and reads as `auto` everywhere. Only
/// "ai" references depend on it (an element that cannot be a pointer target gets none), so the
/// text tree does not pay for the read.
pub const POINTER_EVENTS_UNREAD: u32 = 1 << 18;
/// The element's `::before` or `::after` may have generated content: the gatherer found a style
/// rule that could give it some, or could not rule it out (see `generatedContentCandidates` in
/// `accessibility-tree.js`). The core asks for the pseudo-elements of these elements only, so
/// that a page without such rules costs no call-back at all (on a 10k-element page, thousands of
/// calls across the WASM boundary, each a hash lookup, a call and a style check).
pub const GENERATED_CONTENT_POSSIBLE: u32 = 1 << 19;
/// The element hosts a closed shadow root that the gatherer could not read (it asks only of
/// custom elements, see `facts.js`): the tree marks the host `closed-shadow-root`.
pub const UNREAD_CLOSED_SHADOW_ROOT: u32 = 1 << 20;

/// Computed `text-transform`: bits 21-22, one of the `TEXT_TRANSFORM_*` codes below. The
/// gatherer reads it only once a style rule or a style attribute of the page mentions
/// `text-transform` (`readTextTransform` in `facts.js`), so pages without it pay nothing; until
/// then every element reads 0.
pub const TEXT_TRANSFORM_SHIFT: u32 = 21;
pub const TEXT_TRANSFORM_NONE: u32 = 0;
pub const TEXT_TRANSFORM_UPPERCASE: u32 = 1;
pub const TEXT_TRANSFORM_LOWERCASE: u32 = 2;
pub const TEXT_TRANSFORM_CAPITALIZE: u32 = 3;

/// Computed `overflow-x` or `overflow-y` is `auto` or `scroll` (a scroll container, which the
/// `scroll` tool moves): its line in the text tree prints its reference. Read from the computed
/// style the gatherer already holds, so it costs two property reads per element.
pub const SCROLL_CONTAINER: u32 = 1 << 23;

/// The element's own computed `cursor` is `pointer` and its parent's is not
/// (`Style::cursor_pointer`): the page styled it as something to click. `cursor` is inherited,
/// so the gatherer compares with the parent's value it read just before (tree order). Like
/// `text-transform`, it is read only once a style rule or a style attribute of the page
/// mentions `cursor` (`readCursor` in `facts.js`); links, which the user-agent sheet gives the
/// pointer, are interactive anyway.
pub const CURSOR_POINTER: u32 = 1 << 24;

/// With display bits 2 (inline-level): the box is an atomic inline (`inline-block`,
/// `inline-flex`, `inline-grid`, `inline-table`), which names read as a word of its own
/// (`Display::AtomicInline`). Read from the computed `display` the gatherer already holds.
pub const ATOMIC_INLINE: u32 = 1 << 25;

/// A page script added a listener for a click, or for the press or release of a mouse button, a
/// pointer or a touch, to the element itself (`Dom::has_click_listener`): the extension's
/// main-world recorder (`content/click-listener-recorder.js`) saw the `addEventListener` call or
/// the `onclick`-like property, and the gatherer asked it which connected elements it holds
/// (`clickListenerElements` in `tree/click-listener-elements.js`). Never set on `<html>` or
/// `<body>`, whose listeners delegate for everything below them. Version 8.
pub const HAS_CLICK_LISTENER: u32 = 1 << 26;

/// Separates the strings in the joined string table. Any character of one UTF-8 byte keeps
/// neighbouring lone surrogates apart; U+007F DELETE is one that JSON leaves as it is, so the
/// table travels to the service worker's core (extension messaging is JSON) at one byte per
/// string, where U+0001 took six (`\u0001`), and page text holds it about never.
pub const STRING_SEPARATOR: char = '\u{7f}';

/// The raw facts as the content script sends them.
#[derive(Clone, Copy, Debug)]
pub struct Facts<'input> {
    pub strings: &'input str,
    pub string_lengths: &'input [u32],
    pub nodes: &'input [u32],
    pub attributes: &'input [u32],
    pub rects: &'input [f64],
    pub slots: &'input [u32],
    pub viewport: &'input [f64],
}

/// Facts owned rather than lent by a content script, in the same format: the number lists read
/// from a service-worker call's packed bytes ([`crate::packed`], whose strings travel apart), and
/// facts built in Rust, for the core's built-in warm-up page ([`crate::warm_up`]) and the tests
/// that encode pages as the gatherer does. [`OwnedFacts::facts`] lends them out as [`Facts`].
#[derive(Clone, Debug, Default, PartialEq)]
pub struct OwnedFacts {
    pub strings: String,
    pub string_lengths: Vec<u32>,
    pub nodes: Vec<u32>,
    pub attributes: Vec<u32>,
    pub rects: Vec<f64>,
    pub slots: Vec<u32>,
    pub viewport: Vec<f64>,
}

impl OwnedFacts {
    /// Adds a string to the table as the gatherer does (after [`STRING_SEPARATOR`], its length
    /// counted in UTF-16 code units) and answers its index.
    pub fn add_string(&mut self, text: &str) -> u32 {
        if !self.string_lengths.is_empty() {
            self.strings.push(STRING_SEPARATOR);
        }
        self.strings.push_str(text);
        self.string_lengths.push(text.encode_utf16().count() as u32);
        (self.string_lengths.len() - 1) as u32
    }

    /// How many nodes `nodes` holds, which is also the index of the next one.
    pub fn node_count(&self) -> usize {
        self.nodes.len() / NODE_STRIDE
    }

    /// Appends a node: its attributes' strings and pairs, then its [`NODE_STRIDE`] numbers, with
    /// `parent_field` as the format writes it (the parent's index + 1, 0 for none). Answers the
    /// node's index.
    pub fn push_node(
        &mut self,
        flags: u32,
        parent_field: u32,
        string: u32,
        attributes: &[(&str, &str)],
        value_field: u32,
    ) -> u32 {
        let index = self.node_count() as u32;
        for (name, value) in attributes {
            let name = self.add_string(name);
            let value = self.add_string(value);
            self.attributes.extend([name, value]);
        }
        self.nodes.extend([
            flags,
            parent_field,
            string,
            attributes.len() as u32,
            value_field,
        ]);
        index
    }

    /// The facts, borrowed as a content script's would be.
    pub fn facts(&self) -> Facts<'_> {
        self.with_strings(&self.strings)
    }

    /// The facts with `strings` in place of the table's own (a packed call's strings, which
    /// arrive beside its number lists).
    pub fn with_strings<'facts>(&'facts self, strings: &'facts str) -> Facts<'facts> {
        Facts {
            strings,
            string_lengths: &self.string_lengths,
            nodes: &self.nodes,
            attributes: &self.attributes,
            rects: &self.rects,
            slots: &self.slots,
            viewport: &self.viewport,
        }
    }
}

/// Why facts could not be read. Each is a bug in the gatherer or a version mismatch, reported
/// as `script_failed` with this text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DecodeError(pub String);

impl fmt::Display for DecodeError {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(formatter, "malformed DOM facts: {}", self.0)
    }
}

fn malformed(message: impl Into<String>) -> DecodeError {
    DecodeError(message.into())
}

/// One node, decoded.
#[derive(Clone, Debug)]
struct NodeFacts<'input> {
    flags: u32,
    kind: NodeKind,
    namespace: Namespace,
    /// Light-tree parent (none for the document and for shadow roots).
    parent: Option<NodeId>,
    /// For a shadow root: its host. For an element: its open shadow root.
    shadow_link: Option<NodeId>,
    /// Local name of an element, data of a text node.
    string: &'input str,
    attributes: std::ops::Range<usize>,
    value: Option<&'input str>,
    rect: Option<Rect>,
}

/// Where `::before` / `::after` content comes from: the live page through a JavaScript
/// call-back in the browser, a table in tests.
pub trait PseudoContentSource {
    /// The computed `content` of the pseudo-element as CSS text (`"\"Note: \""`, `none`,
    /// `normal`, ...), or `None` when it generates no box.
    fn computed_content(&self, node: NodeId, pseudo: PseudoElement) -> Option<String>;
}

/// A page without generated content.
pub struct NoPseudoContent;

impl PseudoContentSource for NoPseudoContent {
    fn computed_content(&self, _node: NodeId, _pseudo: PseudoElement) -> Option<String> {
        None
    }
}

/// The core's view of one page, over decoded facts. Built per call and dropped with it.
pub struct FactDom<'input, P> {
    nodes: Vec<NodeFacts<'input>>,
    attributes: Vec<(&'input str, &'input str)>,
    children: Vec<NodeId>,
    /// `children[child_ranges[n]]` are node n's light children.
    child_ranges: Vec<std::ops::Range<usize>>,
    slots: HashMap<NodeId, Vec<NodeId>>,
    viewport: Rect,
    /// `(tree root, id)` -> first element with that id in that tree, built on first use.
    ids: OnceCell<HashMap<(NodeId, &'input str), NodeId>>,
    pseudo_source: P,
    pseudo_cache: RefCell<HashMap<(NodeId, bool), Option<String>>>,
}

/// Splits the joined string table into one slice per string.
fn split_strings<'input>(
    joined: &'input str,
    lengths: &[u32],
) -> Result<Vec<&'input str>, DecodeError> {
    let bytes = joined.as_bytes();
    let mut strings = Vec::with_capacity(lengths.len());
    let mut position = 0usize;
    for (index, &length) in lengths.iter().enumerate() {
        if index > 0 {
            // The separator is one byte in UTF-8.
            if bytes.get(position) != Some(&(STRING_SEPARATOR as u8)) {
                return Err(malformed(format!("string {index}: separator missing")));
            }
            position += 1;
        }
        let start = position;
        let mut units = 0u32;
        while units < length {
            let Some(&lead) = bytes.get(position) else {
                return Err(malformed(format!("string {index}: table too short")));
            };
            // UTF-8 lead byte -> (bytes, UTF-16 units): 4-byte sequences are surrogate pairs.
            let (width, width_units) = match lead {
                0x00..=0x7f => (1, 1),
                0xc0..=0xdf => (2, 1),
                0xe0..=0xef => (3, 1),
                _ => (4, 2),
            };
            position += width;
            units += width_units;
        }
        if units != length {
            return Err(malformed(format!(
                "string {index}: length splits a character"
            )));
        }
        let Some(text) = joined.get(start..position) else {
            return Err(malformed(format!(
                "string {index}: not on a character boundary"
            )));
        };
        strings.push(text);
    }
    if position != bytes.len() {
        return Err(malformed("string table longer than its lengths"));
    }
    Ok(strings)
}

fn kind_of(flags: u32) -> Result<NodeKind, DecodeError> {
    match flags & KIND_MASK {
        KIND_DOCUMENT => Ok(NodeKind::Document),
        KIND_ELEMENT => Ok(NodeKind::Element),
        KIND_TEXT => Ok(NodeKind::Text),
        KIND_SHADOW_ROOT => Ok(NodeKind::ShadowRoot),
        other => Err(malformed(format!("unknown node kind {other}"))),
    }
}

fn namespace_of(flags: u32) -> Namespace {
    match (flags >> NAMESPACE_SHIFT) & TWO_BIT_CODE_MASK {
        NAMESPACE_HTML => Namespace::Html,
        NAMESPACE_SVG => Namespace::Svg,
        NAMESPACE_MATHML => Namespace::MathMl,
        _ => Namespace::Other,
    }
}

impl<'input, P: PseudoContentSource> FactDom<'input, P> {
    /// Decodes and checks the facts.
    pub fn decode(facts: Facts<'input>, pseudo_source: P) -> Result<Self, DecodeError> {
        let strings = split_strings(facts.strings, facts.string_lengths)?;
        let lookup = |index: u32, what: &str| {
            strings
                .get(index as usize)
                .copied()
                .ok_or_else(|| malformed(format!("{what}: no string {index}")))
        };
        if facts.nodes.len() % NODE_STRIDE != 0 || facts.nodes.is_empty() {
            return Err(malformed("node table size"));
        }
        if facts.attributes.len() % 2 != 0 {
            return Err(malformed("attribute table size"));
        }
        let node_count = facts.nodes.len() / NODE_STRIDE;
        if u32::try_from(node_count).is_err() {
            return Err(malformed("too many nodes"));
        }
        let mut attributes = Vec::with_capacity(facts.attributes.len() / 2);
        for pair in facts.attributes.chunks_exact(2) {
            attributes.push((
                lookup(pair[0], "attribute name")?,
                lookup(pair[1], "attribute value")?,
            ));
        }
        let mut rects = facts.rects.chunks_exact(4);
        let boxes_measured = facts.nodes[0] & BOXES_UNMEASURED == 0;
        let mut nodes = Vec::with_capacity(node_count);
        let mut next_attribute = 0usize;
        for (index, record) in facts.nodes.chunks_exact(NODE_STRIDE).enumerate() {
            let [flags, parent, string_index, attribute_count, value] =
                [record[0], record[1], record[2], record[3], record[4]];
            let kind = kind_of(flags)?;
            if (index == 0) != (kind == NodeKind::Document) {
                return Err(malformed("the document must be node 0, and only it"));
            }
            let parent = match parent {
                0 => None,
                // Tree order puts every parent (and every shadow root's host) before its
                // children, so a parent at or after its child is malformed. Checking it here
                // keeps cycles out of the DOM the core walks: a page cannot make a label or a
                // walker loop through parents that point forward.
                parent if (parent as usize - 1) < index => Some(NodeId(parent - 1)),
                parent => return Err(malformed(format!("node {index}: parent {parent}"))),
            };
            let attribute_end = next_attribute + attribute_count as usize;
            if attribute_end > attributes.len() {
                return Err(malformed(format!(
                    "node {index}: attributes past the table"
                )));
            }
            let rect = if flags & HAS_BOX != 0 && !boxes_measured {
                Some(Rect {
                    x: 0.0,
                    y: 0.0,
                    width: 0.0,
                    height: 0.0,
                })
            } else if flags & HAS_BOX != 0 {
                let Some(quad) = rects.next() else {
                    return Err(malformed(format!("node {index}: rectangle missing")));
                };
                Some(Rect {
                    x: quad[0],
                    y: quad[1],
                    width: quad[2],
                    height: quad[3],
                })
            } else {
                None
            };
            let string = match kind {
                NodeKind::Element | NodeKind::Text => lookup(string_index, "node")?,
                _ => "",
            };
            let value = match value {
                0 => None,
                value => Some(lookup(value - 1, "value")?),
            };
            let (parent, shadow_link) = match kind {
                NodeKind::ShadowRoot => (None, parent),
                _ => (parent, None),
            };
            nodes.push(NodeFacts {
                flags,
                kind,
                namespace: namespace_of(flags),
                parent,
                shadow_link,
                string,
                attributes: next_attribute..attribute_end,
                value,
                rect,
            });
            next_attribute = attribute_end;
        }
        if next_attribute != attributes.len() || rects.next().is_some() {
            return Err(malformed("attributes or rectangles left over"));
        }
        // Link shadow roots to their hosts, then lay the light children out contiguously.
        for index in 0..nodes.len() {
            if nodes[index].kind == NodeKind::ShadowRoot {
                let Some(host) = nodes[index].shadow_link else {
                    return Err(malformed(format!("shadow root {index} without a host")));
                };
                let host = &mut nodes[host.index()];
                if host.kind != NodeKind::Element || host.shadow_link.is_some() {
                    return Err(malformed(format!("shadow root {index}: bad host")));
                }
                host.shadow_link = Some(NodeId(index as u32));
            }
        }
        let mut counts = vec![0usize; nodes.len()];
        for node in &nodes {
            if let Some(parent) = node.parent {
                counts[parent.index()] += 1;
            }
        }
        let mut child_ranges = Vec::with_capacity(nodes.len());
        let mut start = 0usize;
        for count in &counts {
            child_ranges.push(start..start);
            start += count;
        }
        let mut children = vec![NodeId(0); start];
        for (index, node) in nodes.iter().enumerate() {
            if let Some(parent) = node.parent {
                let range = &mut child_ranges[parent.index()];
                children[range.end] = NodeId(index as u32);
                range.end += 1;
            }
        }
        let mut slots = HashMap::default();
        let mut cursor = facts.slots;
        while let [slot, count, rest @ ..] = cursor {
            let count = *count as usize;
            let (Some(assigned), true) = (rest.get(..count), (*slot as usize) < nodes.len()) else {
                return Err(malformed("slot table"));
            };
            if assigned.iter().any(|&node| node as usize >= nodes.len()) {
                return Err(malformed("slot assigns an unknown node"));
            }
            slots.insert(
                NodeId(*slot),
                assigned.iter().map(|&node| NodeId(node)).collect(),
            );
            cursor = &rest[count..];
        }
        if !cursor.is_empty() {
            return Err(malformed("slot table"));
        }
        let viewport = match facts.viewport {
            [width, height] => Rect {
                x: 0.0,
                y: 0.0,
                width: *width,
                height: *height,
            },
            _ => return Err(malformed("viewport")),
        };
        Ok(FactDom {
            nodes,
            attributes,
            children,
            child_ranges,
            slots,
            viewport,
            ids: OnceCell::new(),
            pseudo_source,
            pseudo_cache: RefCell::new(HashMap::default()),
        })
    }

    fn node(&self, node: NodeId) -> Option<&NodeFacts<'input>> {
        self.nodes.get(node.index())
    }

    fn flag(&self, node: NodeId, flag: u32) -> bool {
        self.node(node).is_some_and(|facts| facts.flags & flag != 0)
    }

    /// The document or shadow root that holds `node`.
    fn tree_root(&self, node: NodeId) -> NodeId {
        let mut current = node;
        // Parents always exist and the chain ends at a root; the bound only guards against a
        // malformed cycle, which decoding does not rule out.
        for _ in 0..=self.nodes.len() {
            match self.node(current).and_then(|facts| facts.parent) {
                Some(parent) => current = parent,
                None => break,
            }
        }
        current
    }

    fn id_index(&self) -> &HashMap<(NodeId, &'input str), NodeId> {
        self.ids.get_or_init(|| {
            let mut index = HashMap::default();
            // Tree roots, memoised in preorder: a parent comes before its children.
            let mut roots: Vec<NodeId> = Vec::with_capacity(self.nodes.len());
            for (position, facts) in self.nodes.iter().enumerate() {
                let root = match facts.parent {
                    Some(parent) if parent.index() < position => roots[parent.index()],
                    Some(_) => self.tree_root(NodeId(position as u32)),
                    None => NodeId(position as u32),
                };
                roots.push(root);
                if facts.kind != NodeKind::Element {
                    continue;
                }
                let attributes = self.attributes.get(facts.attributes.clone()).unwrap_or(&[]);
                if let Some(&(_, id)) = attributes.iter().find(|(name, _)| *name == "id") {
                    index.entry((root, id)).or_insert(NodeId(position as u32));
                }
            }
            index
        })
    }
}

impl<P: PseudoContentSource> Dom for FactDom<'_, P> {
    fn node_count(&self) -> usize {
        self.nodes.len()
    }

    fn document(&self) -> NodeId {
        NodeId(0)
    }

    fn node_kind(&self, node: NodeId) -> NodeKind {
        self.node(node).map_or(NodeKind::Other, |facts| facts.kind)
    }

    fn namespace(&self, node: NodeId) -> Namespace {
        self.node(node)
            .map_or(Namespace::Other, |facts| facts.namespace)
    }

    fn local_name(&self, node: NodeId) -> &str {
        match self.node(node) {
            Some(facts) if facts.kind == NodeKind::Element => facts.string,
            _ => "",
        }
    }

    fn attribute(&self, node: NodeId, name: &str) -> Option<&str> {
        let facts = self.node(node)?;
        self.attributes
            .get(facts.attributes.clone())?
            .iter()
            .find(|(attribute, _)| *attribute == name)
            .map(|(_, value)| *value)
    }

    fn for_each_attribute(&self, node: NodeId, visit: &mut dyn FnMut(&str, &str)) {
        let Some(facts) = self.node(node) else { return };
        for (name, value) in self.attributes.get(facts.attributes.clone()).unwrap_or(&[]) {
            visit(name, value);
        }
    }

    fn text_data(&self, node: NodeId) -> &str {
        match self.node(node) {
            Some(facts) if facts.kind == NodeKind::Text => facts.string,
            _ => "",
        }
    }

    fn parent(&self, node: NodeId) -> Option<NodeId> {
        self.node(node)?.parent
    }

    fn children(&self, node: NodeId) -> &[NodeId] {
        self.child_ranges
            .get(node.index())
            .and_then(|range| self.children.get(range.clone()))
            .unwrap_or(&[])
    }

    fn shadow_root(&self, host: NodeId) -> Option<NodeId> {
        let facts = self.node(host)?;
        (facts.kind == NodeKind::Element)
            .then_some(facts.shadow_link)
            .flatten()
    }

    fn has_unread_closed_shadow_root(&self, element: NodeId) -> bool {
        self.flag(element, UNREAD_CLOSED_SHADOW_ROOT)
    }

    fn has_click_listener(&self, element: NodeId) -> bool {
        self.flag(element, HAS_CLICK_LISTENER)
    }

    fn shadow_host(&self, shadow_root: NodeId) -> Option<NodeId> {
        let facts = self.node(shadow_root)?;
        (facts.kind == NodeKind::ShadowRoot)
            .then_some(facts.shadow_link)
            .flatten()
    }

    fn assigned_nodes(&self, slot: NodeId) -> Vec<NodeId> {
        // The gatherer sends `slot.assignedNodes()`, which honours manual assignment too; a
        // slot it does not list has nothing assigned.
        self.slots.get(&slot).cloned().unwrap_or_default()
    }

    fn element_by_id(&self, context: NodeId, id: &str) -> Option<NodeId> {
        let root = self.tree_root(context);
        self.id_index().get(&(root, id)).copied()
    }

    fn style(&self, element: NodeId) -> Style {
        let Some(facts) = self.node(element) else {
            return Style::DEFAULT_INLINE;
        };
        let flags = facts.flags;
        Style {
            display: match (flags >> DISPLAY_SHIFT) & TWO_BIT_CODE_MASK {
                DISPLAY_NONE => Display::None,
                DISPLAY_CONTENTS => Display::Contents,
                DISPLAY_INLINE_LEVEL if flags & ATOMIC_INLINE != 0 => Display::AtomicInline,
                DISPLAY_INLINE_LEVEL => Display::Inline,
                _ => Display::Block,
            },
            visibility: match (flags >> VISIBILITY_SHIFT) & TWO_BIT_CODE_MASK {
                VISIBILITY_VISIBLE => Visibility::Visible,
                VISIBILITY_HIDDEN => Visibility::Hidden,
                _ => Visibility::Collapse,
            },
            content_visibility_hidden: flags & CONTENT_VISIBILITY_HIDDEN != 0,
            pointer_events_none: flags & POINTER_EVENTS_NONE != 0,
            text_transform: match (flags >> TEXT_TRANSFORM_SHIFT) & TWO_BIT_CODE_MASK {
                TEXT_TRANSFORM_NONE => TextTransform::None,
                TEXT_TRANSFORM_UPPERCASE => TextTransform::Uppercase,
                TEXT_TRANSFORM_LOWERCASE => TextTransform::Lowercase,
                _ => TextTransform::Capitalize,
            },
            scroll_container: flags & SCROLL_CONTAINER != 0,
            cursor_pointer: flags & CURSOR_POINTER != 0,
        }
    }

    fn pseudo_content(&self, element: NodeId, pseudo: PseudoElement) -> Option<String> {
        if !self.flag(element, GENERATED_CONTENT_POSSIBLE)
            || self.node_kind(element) != NodeKind::Element
        {
            return None;
        }
        let key = (element, pseudo == PseudoElement::After);
        if let Some(cached) = self.pseudo_cache.borrow().get(&key) {
            return cached.clone();
        }
        let text = self
            .pseudo_source
            .computed_content(element, pseudo)
            .and_then(|css| content_text(&css));
        self.pseudo_cache.borrow_mut().insert(key, text.clone());
        text
    }

    fn bounding_box(&self, element: NodeId) -> Option<Rect> {
        self.node(element)?.rect
    }

    fn viewport(&self) -> Rect {
        self.viewport
    }

    fn value(&self, element: NodeId) -> Option<&str> {
        self.node(element)?.value
    }

    fn checked(&self, element: NodeId) -> bool {
        self.flag(element, CHECKED)
    }

    fn indeterminate(&self, element: NodeId) -> bool {
        self.flag(element, INDETERMINATE)
    }

    fn option_selected(&self, element: NodeId) -> bool {
        self.flag(element, OPTION_SELECTED)
    }

    fn files_attached(&self, element: NodeId) -> bool {
        self.flag(element, FILES_ATTACHED)
    }

    fn disabled(&self, element: NodeId) -> bool {
        self.flag(element, DISABLED)
    }
}
