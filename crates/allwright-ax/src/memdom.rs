//! An in-memory DOM for tests, benchmarks and tools: HTML parsed natively by html5ever, or
//! built node by node.
//!
//! It knows enough CSS for the accessibility algorithms to be tested without a browser:
//! - user-agent defaults for `display` (block and never-rendered elements, `[hidden]`,
//!   `dialog:not([open])`, `input[type=hidden]`);
//! - `<style>` sheets with simple selectors (type, `*`, `#id`, `.class`, `[attr]`, `[attr=value]`,
//!   descendant and child combinators, selector lists, `::before` / `::after`), applied within the
//!   tree (document or shadow root) that holds the sheet, by specificity then source order;
//! - inline `style` attributes, which win;
//! - the properties `display`, `visibility` and `pointer-events` (the last two inherited through
//!   the flat tree), `content-visibility`, and `content` (strings and `attr()`) on pseudo-elements;
//! - a layout box from the custom property `--memdom-box: X Y WIDTH HEIGHT` (in px); rendered
//!   elements without one get a 100x20 box at the viewport's origin, inside a 1280x720 viewport.
//!
//! Declarative shadow roots (`<template shadowrootmode="open">`) become open shadow roots;
//! closed ones are dropped, as a content script could not see them either.
//!
//! Rules with selectors it does not understand (pseudo-classes, attribute operators other than
//! `=`) are skipped whole rather than half-applied.

use std::cell::OnceCell;
use std::collections::HashMap;

use html5ever::tendril::TendrilSink;
use markup5ever_rcdom::{Handle, NodeData, RcDom};

use crate::composed::FlatTree;
use crate::dom::{
    Display, Dom, Namespace, NodeId, NodeKind, PseudoElement, Rect, Style, Visibility,
};

/// The viewport every memdom page has.
pub const VIEWPORT: Rect = Rect {
    x: 0.0,
    y: 0.0,
    width: 1280.0,
    height: 720.0,
};

/// The box of a rendered element that does not set `--memdom-box`.
const DEFAULT_BOX: Rect = Rect {
    x: 0.0,
    y: 0.0,
    width: 100.0,
    height: 20.0,
};

struct MemNode {
    kind: NodeKind,
    namespace: Namespace,
    local_name: String,
    attributes: Vec<(String, String)>,
    text: String,
    parent: Option<NodeId>,
    children: Vec<NodeId>,
    shadow_root: Option<NodeId>,
    shadow_host: Option<NodeId>,
    value_override: Option<String>,
    checked_override: Option<bool>,
    indeterminate: bool,
    files_attached: bool,
}

impl MemNode {
    fn new(kind: NodeKind) -> MemNode {
        MemNode {
            kind,
            namespace: Namespace::Other,
            local_name: String::new(),
            attributes: Vec::new(),
            text: String::new(),
            parent: None,
            children: Vec::new(),
            shadow_root: None,
            shadow_host: None,
            value_override: None,
            checked_override: None,
            indeterminate: false,
            files_attached: false,
        }
    }

    fn attribute(&self, name: &str) -> Option<&str> {
        self.attributes
            .iter()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.as_str())
    }
}

/// Facts computed once per DOM state, on first use, and dropped by any mutation.
struct Computed {
    styles: Vec<Style>,
    before: Vec<Option<String>>,
    after: Vec<Option<String>>,
    boxes: Vec<Option<Rect>>,
    ids: HashMap<(NodeId, String), NodeId>,
    /// The root of each node's light tree (document, shadow root, or detached top).
    tree_roots: Vec<NodeId>,
}

/// The in-memory DOM.
pub struct MemDom {
    nodes: Vec<MemNode>,
    computed: OnceCell<Computed>,
}

impl Default for MemDom {
    fn default() -> Self {
        Self::new()
    }
}

impl MemDom {
    /// An empty document (just the document node). Build it with `append_element`.
    pub fn new() -> MemDom {
        MemDom {
            nodes: vec![MemNode::new(NodeKind::Document)],
            computed: OnceCell::new(),
        }
    }

    /// Parses an HTML document (or fragment: the parser adds html, head and body).
    pub fn parse(html: &str) -> MemDom {
        let parsed: RcDom =
            html5ever::parse_document(RcDom::default(), Default::default()).one(html);
        let mut dom = MemDom::new();
        let document = dom.document();
        // Each entry: a parsed node and the memdom node to append its children to.
        let mut stack: Vec<(Handle, NodeId)> = vec![(parsed.document.clone(), document)];
        while let Some((handle, into)) = stack.pop() {
            let children: Vec<Handle> = handle.children.borrow().iter().cloned().collect();
            // Converted in order; pushed reversed so the walk also goes in order (ids then follow
            // document order, which keeps test output readable).
            let mut pending = Vec::new();
            for child in children {
                if let Some(walk_into) = dom.convert(&child, into) {
                    pending.push(walk_into);
                }
            }
            for entry in pending.into_iter().rev() {
                stack.push(entry);
            }
        }
        dom
    }

    /// Converts one parsed node under `parent`; returns what to walk next: the parsed node
    /// whose children to convert, and the memdom node to put them under.
    fn convert(&mut self, handle: &Handle, parent: NodeId) -> Option<(Handle, NodeId)> {
        match &handle.data {
            NodeData::Text { contents } => {
                let text = contents.borrow().to_string();
                let node = self.append_text(parent, &text);
                Some((handle.clone(), node))
            }
            NodeData::Element {
                name,
                attrs,
                template_contents,
                ..
            } => {
                let namespace = match &*name.ns {
                    "http://www.w3.org/1999/xhtml" => Namespace::Html,
                    "http://www.w3.org/2000/svg" => Namespace::Svg,
                    "http://www.w3.org/1998/Math/MathML" => Namespace::MathMl,
                    _ => Namespace::Other,
                };
                let attributes: Vec<(String, String)> = attrs
                    .borrow()
                    .iter()
                    .map(|attribute| {
                        (
                            attribute.name.local.to_string(),
                            attribute.value.to_string(),
                        )
                    })
                    .collect();
                let local_name = name.local.to_string();
                let shadow_mode = if namespace == Namespace::Html && local_name == "template" {
                    attributes
                        .iter()
                        .find(|(key, _)| key == "shadowrootmode")
                        .map(|(_, value)| value.to_ascii_lowercase())
                } else {
                    None
                };
                if let Some(mode) = shadow_mode {
                    // A declarative shadow root: the template's contents become the parent's
                    // shadow root, the template itself disappears (HTML "declarative shadow roots").
                    let contents = template_contents.borrow().clone()?;
                    if mode != "open" || self.nodes[parent.index()].shadow_root.is_some() {
                        return None;
                    }
                    let root = self.attach_shadow(parent);
                    return Some((contents, root));
                }
                let node = self.push_element(parent, namespace, &local_name, attributes);
                Some((handle.clone(), node))
            }
            // Doctypes, comments and processing instructions play no part.
            _ => None,
        }
    }

    fn push_node(&mut self, parent: Option<NodeId>, node: MemNode) -> NodeId {
        self.computed = OnceCell::new();
        let id = NodeId(self.nodes.len() as u32);
        self.nodes.push(node);
        if let Some(parent) = parent {
            self.nodes[id.index()].parent = Some(parent);
            self.nodes[parent.index()].children.push(id);
        }
        id
    }

    fn push_element(
        &mut self,
        parent: NodeId,
        namespace: Namespace,
        local_name: &str,
        attributes: Vec<(String, String)>,
    ) -> NodeId {
        let mut node = MemNode::new(NodeKind::Element);
        node.namespace = namespace;
        node.local_name = local_name.to_string();
        node.attributes = attributes;
        self.push_node(Some(parent), node)
    }

    /// Appends an HTML element with these attributes as the last child of `parent`.
    pub fn append_element(
        &mut self,
        parent: NodeId,
        local_name: &str,
        attributes: &[(&str, &str)],
    ) -> NodeId {
        let attributes = attributes
            .iter()
            .map(|(key, value)| (key.to_string(), value.to_string()))
            .collect();
        self.push_element(
            parent,
            Namespace::Html,
            &local_name.to_ascii_lowercase(),
            attributes,
        )
    }

    /// Appends a text node.
    pub fn append_text(&mut self, parent: NodeId, text: &str) -> NodeId {
        let mut node = MemNode::new(NodeKind::Text);
        node.text = text.to_string();
        self.push_node(Some(parent), node)
    }

    /// Attaches an open shadow root to `host` (replacing none: a second call returns the first
    /// root) and returns it.
    pub fn attach_shadow(&mut self, host: NodeId) -> NodeId {
        if let Some(existing) = self.nodes[host.index()].shadow_root {
            return existing;
        }
        let mut root = MemNode::new(NodeKind::ShadowRoot);
        root.shadow_host = Some(host);
        let root = self.push_node(None, root);
        self.nodes[host.index()].shadow_root = Some(root);
        root
    }

    /// Sets or replaces an attribute.
    pub fn set_attribute(&mut self, element: NodeId, name: &str, value: &str) {
        self.computed = OnceCell::new();
        let attributes = &mut self.nodes[element.index()].attributes;
        match attributes.iter_mut().find(|(key, _)| key == name) {
            Some(entry) => entry.1 = value.to_string(),
            None => attributes.push((name.to_string(), value.to_string())),
        }
    }

    /// Sets the current value of a form control, as a user typing would.
    pub fn set_value(&mut self, element: NodeId, value: &str) {
        self.nodes[element.index()].value_override = Some(value.to_string());
    }

    /// Sets the checkedness of a checkbox or radio.
    pub fn set_checked(&mut self, element: NodeId, checked: bool) {
        self.nodes[element.index()].checked_override = Some(checked);
    }

    /// Sets the `indeterminate` IDL flag (no markup can).
    pub fn set_indeterminate(&mut self, element: NodeId, indeterminate: bool) {
        self.nodes[element.index()].indeterminate = indeterminate;
    }

    /// Marks a file input as having files attached.
    pub fn set_files_attached(&mut self, element: NodeId, attached: bool) {
        self.nodes[element.index()].files_attached = attached;
    }

    /// The `<body>` element, when there is one.
    pub fn body(&self) -> Option<NodeId> {
        self.all_elements()
            .into_iter()
            .find(|&node| self.local_name(node) == "body")
    }

    /// The first element (in document order, shadow trees included) whose `id` is `id`.
    pub fn element_by_id_attribute(&self, id: &str) -> Option<NodeId> {
        self.all_elements()
            .into_iter()
            .find(|&node| self.nodes[node.index()].attribute("id") == Some(id))
    }

    /// Every element that has the attribute, in document order, shadow trees included.
    pub fn elements_with_attribute(&self, name: &str) -> Vec<NodeId> {
        self.all_elements()
            .into_iter()
            .filter(|&node| self.nodes[node.index()].attribute(name).is_some())
            .collect()
    }

    /// Every element in document order; a host's shadow tree comes before its light children.
    pub fn all_elements(&self) -> Vec<NodeId> {
        let mut out = Vec::new();
        let mut stack = vec![self.document()];
        while let Some(node) = stack.pop() {
            let data = &self.nodes[node.index()];
            if data.kind == NodeKind::Element {
                out.push(node);
            }
            stack.extend(data.children.iter().rev().copied());
            if let Some(root) = data.shadow_root {
                stack.push(root);
            }
        }
        out
    }

    /// The concatenated text of the light subtree (`textContent`).
    pub fn text_content(&self, node: NodeId) -> String {
        let mut out = String::new();
        let mut stack = vec![node];
        while let Some(current) = stack.pop() {
            let data = &self.nodes[current.index()];
            if data.kind == NodeKind::Text {
                out.push_str(&data.text);
            }
            stack.extend(data.children.iter().rev().copied());
        }
        out
    }

    fn node(&self, node: NodeId) -> Option<&MemNode> {
        self.nodes.get(node.index())
    }

    fn computed(&self) -> &Computed {
        self.computed.get_or_init(|| compute(self))
    }

    fn is_html(&self, node: NodeId, local_name: &str) -> bool {
        self.node(node).is_some_and(|data| {
            data.kind == NodeKind::Element
                && data.namespace == Namespace::Html
                && data.local_name == local_name
        })
    }

    /// The `<option>` elements of a select, in tree order (inside optgroups too).
    fn options_of(&self, select: NodeId) -> Vec<NodeId> {
        let mut out = Vec::new();
        for &child in self.children(select) {
            if self.is_html(child, "option") {
                out.push(child);
            } else if self.is_html(child, "optgroup") {
                out.extend(
                    self.children(child)
                        .iter()
                        .copied()
                        .filter(|&option| self.is_html(option, "option")),
                );
            }
        }
        out
    }

    /// HTML "selectedness setting algorithm", from attributes: in a single-choice select shown as
    /// a drop-down, the last `selected` option wins, else the first non-disabled option.
    fn selected_options(&self, select: NodeId) -> Vec<NodeId> {
        let options = self.options_of(select);
        let selected: Vec<NodeId> = options
            .iter()
            .copied()
            .filter(|&option| self.attribute(option, "selected").is_some())
            .collect();
        let multiple = self.attribute(select, "multiple").is_some();
        if multiple {
            return selected;
        }
        if let Some(&last) = selected.last() {
            return vec![last];
        }
        let size = self
            .attribute(select, "size")
            .and_then(|size| size.trim().parse::<u32>().ok())
            .unwrap_or(1);
        if size > 1 {
            return Vec::new();
        }
        options
            .into_iter()
            .find(|&option| self.attribute(option, "disabled").is_none())
            .into_iter()
            .collect()
    }
}

impl Dom for MemDom {
    fn node_count(&self) -> usize {
        self.nodes.len()
    }

    fn document(&self) -> NodeId {
        NodeId(0)
    }

    fn node_kind(&self, node: NodeId) -> NodeKind {
        self.node(node).map_or(NodeKind::Other, |data| data.kind)
    }

    fn namespace(&self, node: NodeId) -> Namespace {
        self.node(node)
            .map_or(Namespace::Other, |data| data.namespace)
    }

    fn local_name(&self, node: NodeId) -> &str {
        self.node(node).map_or("", |data| data.local_name.as_str())
    }

    fn attribute(&self, node: NodeId, name: &str) -> Option<&str> {
        self.node(node)?.attribute(name)
    }

    fn for_each_attribute(&self, node: NodeId, visit: &mut dyn FnMut(&str, &str)) {
        if let Some(data) = self.node(node) {
            for (name, value) in &data.attributes {
                visit(name, value);
            }
        }
    }

    fn text_data(&self, node: NodeId) -> &str {
        self.node(node).map_or("", |data| data.text.as_str())
    }

    fn parent(&self, node: NodeId) -> Option<NodeId> {
        self.node(node)?.parent
    }

    fn children(&self, node: NodeId) -> &[NodeId] {
        self.node(node).map_or(&[], |data| data.children.as_slice())
    }

    fn shadow_root(&self, host: NodeId) -> Option<NodeId> {
        self.node(host)?.shadow_root
    }

    fn shadow_host(&self, shadow_root: NodeId) -> Option<NodeId> {
        self.node(shadow_root)?.shadow_host
    }

    fn element_by_id(&self, context: NodeId, id: &str) -> Option<NodeId> {
        self.node(context)?;
        let computed = self.computed();
        let root = computed.tree_roots[context.index()];
        computed.ids.get(&(root, id.to_string())).copied()
    }

    fn style(&self, element: NodeId) -> Style {
        self.computed()
            .styles
            .get(element.index())
            .copied()
            .unwrap_or(Style::DEFAULT_INLINE)
    }

    fn pseudo_content(&self, element: NodeId, pseudo: PseudoElement) -> Option<String> {
        let computed = self.computed();
        let table = match pseudo {
            PseudoElement::Before => &computed.before,
            PseudoElement::After => &computed.after,
        };
        table.get(element.index()).cloned().flatten()
    }

    fn bounding_box(&self, element: NodeId) -> Option<Rect> {
        self.computed()
            .boxes
            .get(element.index())
            .copied()
            .flatten()
    }

    fn viewport(&self) -> Rect {
        VIEWPORT
    }

    fn value(&self, element: NodeId) -> Option<&str> {
        let data = self.node(element)?;
        if data.kind != NodeKind::Element || data.namespace != Namespace::Html {
            return None;
        }
        if let Some(value) = &data.value_override {
            return Some(value);
        }
        match data.local_name.as_str() {
            "input" => Some(data.attribute("value").unwrap_or("")),
            // A textarea's default value is its text child (the parser keeps it as one node).
            "textarea" => Some(
                data.children
                    .first()
                    .map_or("", |&child| self.text_data(child)),
            ),
            "select" => {
                let option = *self.selected_options(element).first()?;
                Some(self.attribute(option, "value").unwrap_or_else(|| {
                    self.children(option)
                        .first()
                        .map_or("", |&child| self.text_data(child))
                }))
            }
            "output" => Some(
                data.children
                    .first()
                    .map_or("", |&child| self.text_data(child)),
            ),
            _ => None,
        }
    }

    fn checked(&self, element: NodeId) -> bool {
        self.node(element).is_some_and(|data| {
            data.checked_override
                .unwrap_or_else(|| data.attribute("checked").is_some())
        })
    }

    fn indeterminate(&self, element: NodeId) -> bool {
        self.node(element).is_some_and(|data| data.indeterminate)
    }

    fn option_selected(&self, element: NodeId) -> bool {
        if !self.is_html(element, "option") {
            return false;
        }
        let mut select = self.parent(element);
        if let Some(parent) = select {
            if self.is_html(parent, "optgroup") {
                select = self.parent(parent);
            }
        }
        match select {
            Some(select) if self.is_html(select, "select") => {
                self.selected_options(select).contains(&element)
            }
            _ => self.attribute(element, "selected").is_some(),
        }
    }

    fn files_attached(&self, element: NodeId) -> bool {
        self.node(element).is_some_and(|data| data.files_attached)
    }
}

// ---------------------------------------------------------------------------------------------
// Style: user-agent defaults, simple style sheets, inline styles.

/// HTML elements whose user-agent `display` is `none` (HTML "Rendering", 15.3.1 "Hidden elements").
const NEVER_RENDERED: &[&str] = &[
    "area", "base", "basefont", "datalist", "head", "link", "meta", "noembed", "noframes",
    "noscript", "param", "rp", "script", "source", "style", "template", "track", "title",
];

/// HTML elements whose user-agent `display` is block-level (HTML "Rendering", 15.3.3 onwards).
const BLOCK_LEVEL: &[&str] = &[
    "address",
    "article",
    "aside",
    "blockquote",
    "body",
    "caption",
    "center",
    "col",
    "colgroup",
    "dd",
    "details",
    "dialog",
    "dir",
    "div",
    "dl",
    "dt",
    "fieldset",
    "figcaption",
    "figure",
    "footer",
    "form",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "header",
    "hgroup",
    "hr",
    "html",
    "legend",
    "li",
    "listing",
    "main",
    "menu",
    "nav",
    "ol",
    "optgroup",
    "option",
    "p",
    "plaintext",
    "pre",
    "search",
    "section",
    "summary",
    "table",
    "tbody",
    "td",
    "tfoot",
    "th",
    "thead",
    "tr",
    "ul",
    "xmp",
];

#[derive(Clone, Copy, Default)]
struct Declared {
    display: Option<Display>,
    visibility: Option<Visibility>,
    content_visibility_hidden: Option<bool>,
    pointer_events_none: Option<bool>,
    layout_box: Option<Rect>,
}

/// One declaration block's effect on an element or a pseudo-element.
#[derive(Clone, Default)]
struct Declarations {
    own: Declared,
    /// `content` as parsed pieces: `Some(None)` is `content: none | normal`.
    content: Option<Option<Vec<ContentPiece>>>,
}

#[derive(Clone)]
enum ContentPiece {
    Literal(String),
    Attribute(String),
}

fn parse_declarations(text: &str) -> Declarations {
    let mut declarations = Declarations::default();
    for declaration in split_outside_quotes(text, ';') {
        let Some((property, value)) = declaration.split_once(':') else {
            continue;
        };
        let property = property.trim().to_ascii_lowercase();
        let value = value.trim().trim_end_matches("!important").trim();
        let keyword = value.to_ascii_lowercase();
        match property.as_str() {
            "display" => {
                declarations.own.display = Some(match keyword.as_str() {
                    "none" => Display::None,
                    "contents" => Display::Contents,
                    keyword if keyword.starts_with("inline") || keyword == "ruby" => {
                        Display::Inline
                    }
                    _ => Display::Block,
                })
            }
            "visibility" => {
                declarations.own.visibility = Some(match keyword.as_str() {
                    "hidden" => Visibility::Hidden,
                    "collapse" => Visibility::Collapse,
                    _ => Visibility::Visible,
                })
            }
            "content-visibility" => {
                declarations.own.content_visibility_hidden = Some(keyword == "hidden")
            }
            "pointer-events" => declarations.own.pointer_events_none = Some(keyword == "none"),
            "--memdom-box" => {
                let numbers: Vec<f64> = keyword
                    .split_ascii_whitespace()
                    .filter_map(|number| number.trim_end_matches("px").parse().ok())
                    .collect();
                if let [x, y, width, height] = numbers[..] {
                    declarations.own.layout_box = Some(Rect {
                        x,
                        y,
                        width,
                        height,
                    });
                }
            }
            "content" => declarations.content = Some(parse_content(value)),
            _ => {}
        }
    }
    declarations
}

/// Parses `content`: strings and `attr(name)`; `none` and `normal` generate nothing. Anything
/// else (counters, images) is ignored piece by piece.
fn parse_content(value: &str) -> Option<Vec<ContentPiece>> {
    let trimmed = value.trim();
    if trimmed.eq_ignore_ascii_case("none") || trimmed.eq_ignore_ascii_case("normal") {
        return None;
    }
    let mut pieces = Vec::new();
    let mut chars = trimmed.chars().peekable();
    while let Some(&next) = chars.peek() {
        if next == '"' || next == '\'' {
            chars.next();
            let mut literal = String::new();
            while let Some(character) = chars.next() {
                match character {
                    '\\' => {
                        if let Some(escaped) = chars.next() {
                            literal.push(escaped);
                        }
                    }
                    quote if quote == next => break,
                    other => literal.push(other),
                }
            }
            pieces.push(ContentPiece::Literal(literal));
        } else if next.is_ascii_whitespace() {
            chars.next();
        } else {
            let mut word = String::new();
            while let Some(&character) = chars.peek() {
                if character.is_ascii_whitespace() || character == '"' || character == '\'' {
                    break;
                }
                word.push(character);
                chars.next();
                if character == ')' {
                    break;
                }
            }
            let lowercase = word.to_ascii_lowercase();
            if let Some(inner) = lowercase
                .strip_prefix("attr(")
                .and_then(|rest| rest.strip_suffix(')'))
            {
                pieces.push(ContentPiece::Attribute(inner.trim().to_string()));
            }
        }
    }
    Some(pieces)
}

fn split_outside_quotes(text: &str, separator: char) -> Vec<&str> {
    let mut parts = Vec::new();
    let mut quote: Option<char> = None;
    let mut depth = 0usize;
    let mut start = 0;
    for (index, character) in text.char_indices() {
        match (quote, character) {
            (Some(open), close) if open == close => quote = None,
            (Some(_), _) => {}
            (None, '"' | '\'') => quote = Some(character),
            (None, '(' | '[') => depth += 1,
            (None, ')' | ']') => depth = depth.saturating_sub(1),
            (None, found) if found == separator && depth == 0 => {
                parts.push(&text[start..index]);
                start = index + character.len_utf8();
            }
            _ => {}
        }
    }
    parts.push(&text[start..]);
    parts
}

#[derive(Clone, Debug)]
enum Combinator {
    Descendant,
    Child,
}

#[derive(Clone, Debug, Default)]
struct Compound {
    tag: Option<String>,
    id: Option<String>,
    classes: Vec<String>,
    /// `[name]` (None) or `[name=value]`.
    attributes: Vec<(String, Option<String>)>,
}

#[derive(Clone, Debug)]
struct Selector {
    /// Rightmost compound first, each with the combinator that links it to the next one left.
    compounds: Vec<(Compound, Combinator)>,
    pseudo: Option<PseudoElement>,
    specificity: (u32, u32, u32),
}

struct Rule {
    selector: Selector,
    declarations: Declarations,
    /// The tree (document or shadow root) whose elements the rule applies to.
    scope: NodeId,
    order: usize,
}

fn parse_selector(text: &str) -> Option<Selector> {
    let mut pseudo = None;
    let mut text = text.trim().to_string();
    for (suffix, which) in [
        ("::before", PseudoElement::Before),
        ("::after", PseudoElement::After),
        (":before", PseudoElement::Before),
        (":after", PseudoElement::After),
    ] {
        if text.to_ascii_lowercase().ends_with(suffix) {
            text.truncate(text.len() - suffix.len());
            pseudo = Some(which);
            break;
        }
    }
    let spaced = text.replace('>', " > ");
    let mut compounds_left_to_right: Vec<(Compound, Combinator)> = Vec::new();
    let mut pending = Combinator::Descendant;
    for token in spaced.split_ascii_whitespace() {
        if token == ">" {
            pending = Combinator::Child;
            continue;
        }
        compounds_left_to_right.push((parse_compound(token)?, pending));
        pending = Combinator::Descendant;
    }
    if compounds_left_to_right.is_empty() {
        if pseudo.is_some() {
            compounds_left_to_right.push((Compound::default(), Combinator::Descendant));
        } else {
            return None;
        }
    }
    let mut specificity = (0, 0, 0);
    for (compound, _) in &compounds_left_to_right {
        specificity.0 += u32::from(compound.id.is_some());
        specificity.1 += (compound.classes.len() + compound.attributes.len()) as u32;
        specificity.2 += u32::from(compound.tag.is_some());
    }
    specificity.2 += u32::from(pseudo.is_some());
    // Store right to left; the combinator of entry i links it to entry i + 1 (its left neighbour).
    let mut compounds = Vec::with_capacity(compounds_left_to_right.len());
    let count = compounds_left_to_right.len();
    for index in (0..count).rev() {
        let combinator = compounds_left_to_right[index].1.clone();
        compounds.push((compounds_left_to_right[index].0.clone(), combinator));
    }
    Some(Selector {
        compounds,
        pseudo,
        specificity,
    })
}

fn parse_compound(token: &str) -> Option<Compound> {
    let mut compound = Compound::default();
    let mut rest = token;
    let name_end = |text: &str| text.find(['#', '.', '[', ':']).unwrap_or(text.len());
    let end = name_end(rest);
    if end > 0 {
        let tag = &rest[..end];
        if tag != "*" {
            compound.tag = Some(tag.to_ascii_lowercase());
        }
        rest = &rest[end..];
    }
    while let Some(first) = rest.chars().next() {
        match first {
            '#' | '.' => {
                let after = &rest[1..];
                let end = name_end(after);
                if end == 0 {
                    return None;
                }
                let name = after[..end].to_string();
                if first == '#' {
                    compound.id = Some(name);
                } else {
                    compound.classes.push(name);
                }
                rest = &after[end..];
            }
            '[' => {
                let close = rest.find(']')?;
                let inside = &rest[1..close];
                match inside.split_once('=') {
                    Some((name, value)) => {
                        if name.ends_with(['~', '|', '^', '$', '*']) {
                            return None;
                        }
                        let value = value.trim().trim_matches(['"', '\'']).to_string();
                        compound
                            .attributes
                            .push((name.trim().to_ascii_lowercase(), Some(value)));
                    }
                    None => compound
                        .attributes
                        .push((inside.trim().to_ascii_lowercase(), None)),
                }
                rest = &rest[close + 1..];
            }
            // Pseudo-classes are not understood: the whole rule is skipped.
            _ => return None,
        }
    }
    Some(compound)
}

fn compound_matches(dom: &MemDom, element: NodeId, compound: &Compound) -> bool {
    let Some(data) = dom.node(element) else {
        return false;
    };
    if data.kind != NodeKind::Element {
        return false;
    }
    if let Some(tag) = &compound.tag {
        if !data.local_name.eq_ignore_ascii_case(tag) {
            return false;
        }
    }
    if let Some(id) = &compound.id {
        if data.attribute("id") != Some(id.as_str()) {
            return false;
        }
    }
    let classes = data.attribute("class").unwrap_or("");
    if !compound
        .classes
        .iter()
        .all(|class| classes.split_ascii_whitespace().any(|token| token == class))
    {
        return false;
    }
    compound
        .attributes
        .iter()
        .all(|(name, value)| match (data.attribute(name), value) {
            (None, _) => false,
            (Some(_), None) => true,
            (Some(actual), Some(expected)) => actual == expected,
        })
}

/// Matches a selector against an element, with light-tree ancestors (selectors do not cross
/// shadow boundaries). Descendant combinators backtrack iteratively.
fn selector_matches(dom: &MemDom, element: NodeId, selector: &Selector) -> bool {
    let Some((first, _)) = selector.compounds.first() else {
        return false;
    };
    if !compound_matches(dom, element, first) {
        return false;
    }
    // Stack of (index of the next compound to match, element matched by the previous compound).
    let mut stack = vec![(1usize, element)];
    while let Some((index, matched)) = stack.pop() {
        if index == selector.compounds.len() {
            return true;
        }
        let (compound, _) = &selector.compounds[index];
        let link = &selector.compounds[index - 1].1;
        let mut ancestor = dom.parent(matched);
        while let Some(candidate) = ancestor {
            if compound_matches(dom, candidate, compound) {
                stack.push((index + 1, candidate));
            }
            if matches!(link, Combinator::Child) {
                break;
            }
            ancestor = dom.parent(candidate);
        }
    }
    false
}

fn user_agent_display(data: &MemNode) -> Display {
    if data.namespace != Namespace::Html {
        return Display::Inline;
    }
    let name = data.local_name.as_str();
    if data
        .attribute("hidden")
        .is_some_and(|value| !value.eq_ignore_ascii_case("until-found"))
    {
        return Display::None;
    }
    if NEVER_RENDERED.contains(&name)
        || (name == "dialog" && data.attribute("open").is_none())
        || (name == "input"
            && data
                .attribute("type")
                .is_some_and(|kind| kind.eq_ignore_ascii_case("hidden")))
    {
        return Display::None;
    }
    if BLOCK_LEVEL.contains(&name) {
        Display::Block
    } else {
        Display::Inline
    }
}

fn collect_rules(dom: &MemDom, tree_roots: &[NodeId]) -> Vec<Rule> {
    let mut rules = Vec::new();
    for element in dom.all_elements() {
        if !dom.is_html(element, "style") {
            continue;
        }
        let scope = tree_roots[element.index()];
        let sheet = strip_comments(&dom.text_content(element));
        // Blocks are read flat; @media and other at-rules are skipped with their contents.
        let mut rest = sheet.as_str();
        while let Some(open) = rest.find('{') {
            let prelude = rest[..open].trim();
            let Some(close) = rest[open..].find('}') else {
                break;
            };
            let body = &rest[open + 1..open + close];
            if prelude.starts_with('@') {
                // Skip to the matching close of the at-rule's block.
                let mut depth = 0usize;
                let mut end = rest.len();
                for (index, character) in rest[open..].char_indices() {
                    match character {
                        '{' => depth += 1,
                        '}' => {
                            depth = depth.saturating_sub(1);
                            if depth == 0 {
                                end = open + index + 1;
                                break;
                            }
                        }
                        _ => {}
                    }
                }
                rest = &rest[end..];
                continue;
            }
            let declarations = parse_declarations(body);
            for selector_text in split_outside_quotes(prelude, ',') {
                if let Some(selector) = parse_selector(selector_text) {
                    let order = rules.len();
                    rules.push(Rule {
                        selector,
                        declarations: declarations.clone(),
                        scope,
                        order,
                    });
                }
            }
            rest = &rest[open + close + 1..];
        }
    }
    rules.sort_by_key(|rule| (rule.selector.specificity, rule.order));
    rules
}

fn strip_comments(sheet: &str) -> String {
    let mut out = String::with_capacity(sheet.len());
    let mut rest = sheet;
    while let Some(start) = rest.find("/*") {
        out.push_str(&rest[..start]);
        match rest[start + 2..].find("*/") {
            Some(end) => rest = &rest[start + 2 + end + 2..],
            None => return out,
        }
    }
    out.push_str(rest);
    out
}

fn apply(target: &mut Declared, source: &Declared) {
    target.display = source.display.or(target.display);
    target.visibility = source.visibility.or(target.visibility);
    target.content_visibility_hidden = source
        .content_visibility_hidden
        .or(target.content_visibility_hidden);
    target.pointer_events_none = source.pointer_events_none.or(target.pointer_events_none);
    target.layout_box = source.layout_box.or(target.layout_box);
}

fn render_content(
    dom: &MemDom,
    element: NodeId,
    pieces: &Option<Vec<ContentPiece>>,
) -> Option<String> {
    let pieces = pieces.as_ref()?;
    let mut text = String::new();
    for piece in pieces {
        match piece {
            ContentPiece::Literal(literal) => text.push_str(literal),
            ContentPiece::Attribute(name) => {
                text.push_str(dom.attribute(element, name).unwrap_or(""))
            }
        }
    }
    Some(text)
}

fn compute(dom: &MemDom) -> Computed {
    let node_count = dom.nodes.len();
    // Parents always have smaller ids than their children (nodes are appended under existing
    // parents), so one ascending pass finds every tree root without walking up.
    let mut tree_roots = Vec::with_capacity(node_count);
    for (index, data) in dom.nodes.iter().enumerate() {
        let root = match data.parent {
            Some(parent) if parent.index() < index => tree_roots[parent.index()],
            _ => NodeId(index as u32),
        };
        tree_roots.push(root);
    }
    let rules = collect_rules(dom, &tree_roots);
    let mut computed = Computed {
        styles: vec![Style::DEFAULT_INLINE; node_count],
        before: vec![None; node_count],
        after: vec![None; node_count],
        boxes: vec![None; node_count],
        ids: HashMap::new(),
        tree_roots,
    };
    // Ids: the first element in tree order wins within each tree.
    for element in dom.all_elements() {
        if let Some(id) = dom.nodes[element.index()].attribute("id") {
            computed
                .ids
                .entry((computed.tree_roots[element.index()], id.to_string()))
                .or_insert(element);
        }
    }
    // Styles in flat-tree order, so that inherited properties come from the flat-tree parent.
    let flat = FlatTree::build(dom);
    let mut order = flat.preorder().to_vec();
    // Elements outside the flat tree still get a style (inherited from nothing).
    order.extend(
        dom.all_elements()
            .into_iter()
            .filter(|&element| !flat.contains(element)),
    );
    for element in order {
        let data = &dom.nodes[element.index()];
        if data.kind != NodeKind::Element {
            continue;
        }
        let scope = computed.tree_roots[element.index()];
        let mut own = Declared {
            display: Some(user_agent_display(data)),
            ..Declared::default()
        };
        let mut before: Option<Option<Vec<ContentPiece>>> = None;
        let mut after: Option<Option<Vec<ContentPiece>>> = None;
        for rule in rules.iter().filter(|rule| rule.scope == scope) {
            if !selector_matches(dom, element, &rule.selector) {
                continue;
            }
            match rule.selector.pseudo {
                None => apply(&mut own, &rule.declarations.own),
                Some(PseudoElement::Before) => {
                    if let Some(content) = &rule.declarations.content {
                        before = Some(content.clone());
                    }
                }
                Some(PseudoElement::After) => {
                    if let Some(content) = &rule.declarations.content {
                        after = Some(content.clone());
                    }
                }
            }
        }
        if let Some(inline) = data.attribute("style") {
            apply(&mut own, &parse_declarations(inline).own);
        }
        let parent_style = flat
            .parent(element)
            .filter(|&parent| dom.node_kind(parent) == NodeKind::Element)
            .map(|parent| computed.styles[parent.index()]);
        let style = Style {
            display: own.display.unwrap_or(Display::Inline),
            visibility: own.visibility.unwrap_or_else(|| {
                parent_style.map_or(Visibility::Visible, |style| style.visibility)
            }),
            content_visibility_hidden: own.content_visibility_hidden.unwrap_or(false),
            pointer_events_none: own
                .pointer_events_none
                .unwrap_or_else(|| parent_style.is_some_and(|style| style.pointer_events_none)),
        };
        computed.styles[element.index()] = style;
        if style.display != Display::None {
            computed.before[element.index()] =
                before.and_then(|pieces| render_content(dom, element, &pieces));
            computed.after[element.index()] =
                after.and_then(|pieces| render_content(dom, element, &pieces));
            if style.display != Display::Contents {
                computed.boxes[element.index()] = Some(own.layout_box.unwrap_or(DEFAULT_BOX));
            }
        }
    }
    computed
}

#[cfg(test)]
mod tests {
    use super::*;

    fn by_id(dom: &MemDom, id: &str) -> NodeId {
        dom.element_by_id_attribute(id).unwrap_or(NodeId(u32::MAX))
    }

    #[test]
    fn parses_elements_text_and_attributes() {
        let dom = MemDom::parse(r#"<p id="a" class="x">Hello <b>world</b></p>"#);
        let paragraph = by_id(&dom, "a");
        assert_eq!(dom.local_name(paragraph), "p");
        assert_eq!(dom.attribute(paragraph, "class"), Some("x"));
        assert_eq!(dom.text_content(paragraph), "Hello world");
        assert_eq!(dom.style(paragraph).display, Display::Block);
    }

    #[test]
    fn style_sheets_inline_styles_and_user_agent_defaults() {
        let dom = MemDom::parse(
            r#"<style>.gone { display: none } div > span.v { visibility: hidden } #p::before { content: "A" attr(data-x) }</style>
            <div class="gone" id="g"></div><div><span class="v" id="v">x</span></div>
            <p id="p" data-x="B" style="pointer-events: none">t</p><div hidden id="h"></div>
            <span id="i" style="display:block; --memdom-box: 0 900 10 10">x</span>"#,
        );
        assert_eq!(dom.style(by_id(&dom, "g")).display, Display::None);
        assert_eq!(dom.style(by_id(&dom, "v")).visibility, Visibility::Hidden);
        assert_eq!(
            dom.pseudo_content(by_id(&dom, "p"), PseudoElement::Before)
                .as_deref(),
            Some("AB")
        );
        assert!(dom.style(by_id(&dom, "p")).pointer_events_none);
        assert_eq!(dom.style(by_id(&dom, "h")).display, Display::None);
        assert_eq!(dom.style(by_id(&dom, "i")).display, Display::Block);
        assert_eq!(
            dom.bounding_box(by_id(&dom, "i")).map(|rect| rect.y),
            Some(900.0)
        );
    }

    #[test]
    fn declarative_shadow_roots_and_scoped_ids() {
        let dom = MemDom::parse(
            r#"<div id="host"><template shadowrootmode="open"><span id="inner">in</span><slot></slot></template><b id="light">x</b></div>"#,
        );
        let host = by_id(&dom, "host");
        let root = dom.shadow_root(host).unwrap_or(NodeId(u32::MAX));
        assert_eq!(dom.node_kind(root), NodeKind::ShadowRoot);
        assert_eq!(dom.shadow_host(root), Some(host));
        // Ids are scoped: the document cannot see the shadow tree's id, the shadow tree can.
        assert_eq!(dom.element_by_id(host, "inner"), None);
        let inner = by_id(&dom, "inner");
        assert_eq!(dom.element_by_id(inner, "inner"), Some(inner));
        let slots: Vec<NodeId> = dom
            .all_elements()
            .into_iter()
            .filter(|&node| dom.local_name(node) == "slot")
            .collect();
        assert_eq!(dom.assigned_nodes(slots[0]), vec![by_id(&dom, "light")]);
    }

    #[test]
    fn form_state_from_markup_and_setters() {
        let mut dom = MemDom::parse(
            r#"<select id="s"><option>a</option><option selected value="bv">b</option></select>
            <select id="t"><option disabled>x</option><option>y</option></select>
            <input id="c" type="checkbox" checked><textarea id="ta">typed</textarea>"#,
        );
        assert_eq!(dom.value(by_id(&dom, "s")), Some("bv"));
        assert_eq!(dom.value(by_id(&dom, "t")), Some("y"));
        assert_eq!(dom.value(by_id(&dom, "ta")), Some("typed"));
        let checkbox = by_id(&dom, "c");
        assert!(dom.checked(checkbox));
        dom.set_checked(checkbox, false);
        dom.set_indeterminate(checkbox, true);
        assert!(!dom.checked(checkbox));
        assert!(dom.indeterminate(checkbox));
    }

    #[test]
    fn builder_makes_deep_trees_without_recursion() {
        let mut dom = MemDom::new();
        let mut parent = dom.append_element(dom.document(), "html", &[]);
        for _ in 0..100_000 {
            parent = dom.append_element(parent, "div", &[]);
        }
        dom.append_text(parent, "deep");
        assert_eq!(dom.style(parent).display, Display::Block);
        assert_eq!(FlatTree::build(&dom).preorder().len(), 100_003);
    }
}
