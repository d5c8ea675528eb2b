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
//!   the flat tree), `content-visibility`, and `content` on pseudo-elements (strings with CSS
//!   escapes, `attr()`, alternative text after `/`: the core's `css` module reads it, as it reads
//!   the computed values the glue receives from a page);
//! - a layout box from the custom property `--memdom-box: X Y WIDTH HEIGHT` (in px); rendered
//!   elements without one get a 100x20 box at the viewport's origin, inside a 1280x720 viewport.
//!
//! Declarative shadow roots (`<template shadowrootmode="open">`) become open shadow roots;
//! closed ones are dropped, as a content script could not see them either, and their host is
//! marked as having one (`Dom::has_unread_closed_shadow_root`).
//!
//! Rules with selectors it does not understand (pseudo-classes, attribute operators other than
//! `=`) are skipped whole rather than half-applied. The same selectors serve
//! [`MemDom::query_selector_all`], which the WPT runner uses to find the elements a test checks.
//!
//! The module is split by concern: this file holds the nodes, the HTML parser's output and the
//! builder; `dom.rs` the core's `Dom` trait over them; `html.rs` the user agent's HTML rules
//! (default display, form state from markup); `css.rs` style sheets, selectors and the computed
//! styles.

mod css;
mod dom;
mod html;

use std::cell::OnceCell;

use html5ever::tendril::TendrilSink;
use markup5ever_rcdom::{Handle, NodeData, RcDom};

use crate::dom::{Dom, Namespace, NodeId, NodeKind, Rect};

use self::css::{compute, parse_selector_list, selector_matches, Computed};

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

/// One node: its kind, name, attributes and text, its links, and the form state that script
/// would set (`set_value`, `set_checked`, ...).
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
    /// The element had a declarative closed shadow root, which was dropped.
    closed_shadow_root: bool,
    value_override: Option<String>,
    checked_override: Option<bool>,
    indeterminate: bool,
    files_attached: bool,
    /// A script added a click, press or release listener to the element (`add_click_listener`).
    click_listener: bool,
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
            closed_shadow_root: false,
            value_override: None,
            checked_override: None,
            indeterminate: false,
            files_attached: false,
            click_listener: false,
        }
    }

    fn attribute(&self, name: &str) -> Option<&str> {
        self.attributes
            .iter()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.as_str())
    }
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
                    let host = &mut self.nodes[parent.index()];
                    if host.shadow_root.is_some() || host.closed_shadow_root {
                        return None;
                    }
                    if mode != "open" {
                        // A closed root is invisible to a content script; only its host's
                        // having one is known (HTML: `shadowrootmode` is "open" or "closed").
                        host.closed_shadow_root = mode == "closed";
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

    /// Records that a script added a click, press or release listener to the element
    /// (`Dom::has_click_listener`), which no markup can say.
    pub fn add_click_listener(&mut self, element: NodeId) {
        self.nodes[element.index()].click_listener = true;
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
        crate::html::text_content(self, node)
    }

    fn node(&self, node: NodeId) -> Option<&MemNode> {
        self.nodes.get(node.index())
    }

    fn computed(&self) -> &Computed {
        self.computed.get_or_init(|| compute(self))
    }

    /// `document.querySelectorAll(selectors)`: the elements of the document's light tree (not
    /// inside shadow trees, as in a browser) that match the selector list, in tree order.
    /// `None` when a selector uses something this DOM does not understand (see the module
    /// comment), so that a caller can tell "matches nothing" from "cannot tell".
    pub fn query_selector_all(&self, selectors: &str) -> Option<Vec<NodeId>> {
        let selectors = parse_selector_list(selectors)?;
        let mut matched = Vec::new();
        let mut stack = vec![self.document()];
        while let Some(node) = stack.pop() {
            if self.node_kind(node) == NodeKind::Element
                && selectors
                    .iter()
                    .any(|selector| selector_matches(self, node, selector))
            {
                matched.push(node);
            }
            stack.extend(self.children(node).iter().rev().copied());
        }
        Some(matched)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::composed::FlatTree;
    use crate::dom::{Display, PseudoElement, Visibility};

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

    #[test]
    fn query_selector_all_reads_the_light_tree_in_order() {
        let dom = MemDom::parse(
            r#"<div id="a" class="x"><span id="b" class="v">1</span></div><p id="c" class="x">2</p>
            <section id="host"><template shadowrootmode="open"><span class="v" id="inside">3</span></template></section>
            <span id="d" class="v" data-k="a,b">4</span>"#,
        );
        let ids = |selectors: &str| {
            dom.query_selector_all(selectors).map(|found| {
                found
                    .iter()
                    .map(|&node| dom.attribute(node, "id").unwrap_or("").to_string())
                    .collect::<Vec<_>>()
            })
        };
        // Tree order, whatever the order of the list; a shadow tree is not searched.
        assert_eq!(ids("span.v, .x").unwrap_or_default(), ["a", "b", "c", "d"]);
        assert_eq!(ids("div > span").unwrap_or_default(), ["b"]);
        assert_eq!(ids("[data-k=\"a,b\"]").unwrap_or_default(), ["d"]);
        assert_eq!(ids("table").unwrap_or_default(), Vec::<String>::new());
        // What this DOM cannot tell is None, not "nothing matches".
        assert_eq!(ids("span:first-child"), None);
        assert_eq!(ids("p::before"), None);
        assert_eq!(ids("[class~=x]"), None);
    }
}
