//! The accessibility tree: one pass over the composed tree (flat tree + aria-owns) that keeps
//! what an agent needs and drops the rest.
//!
//! Rules (shared by the text tree and the structured snapshot):
//! - hidden and inert subtrees are left out (`hidden.rs`); off-screen content stays;
//! - containers without semantics (`generic`, `none`) and inline formatting (`strong`,
//!   `emphasis`, ...) are flattened: their children take their place. Focusable or editable ones
//!   are kept, since the agent may need to act on them;
//! - text becomes `text` nodes; text split only by inline containers is merged, a block-level
//!   container between two texts keeps them apart;
//! - iframes stay as `iframe` nodes; their documents are collected separately;
//! - a node whose only content is text equal to its name does not repeat it as a child.
//!
//! The walk is iterative (explicit stack), so any depth works, and the tree is an arena of
//! nodes, so dropping it does not recurse either.

use crate::aria::Role;
use crate::context::Context;
use crate::dom::{Display, Dom, Namespace, NodeId, NodeKind};
use crate::html::{collapse_ascii_whitespace_owned, is_html};
use crate::name::NameSource;
use crate::state::{self, Checked, PropertyValue};
use crate::value::Value;
use std::borrow::Cow;

/// The role of a tree node: an ARIA role, or one of the node kinds the outputs name themselves.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum AxRole {
    Aria(Role),
    /// A run of text (`role: text` in the structured snapshot).
    Text,
    /// The root of a document.
    Document,
    /// An `<iframe>` or `<frame>`: its document is read separately.
    Iframe,
}

impl AxRole {
    pub fn as_str(self) -> &'static str {
        match self {
            AxRole::Aria(role) => role.as_str(),
            AxRole::Text => "text",
            AxRole::Document => "document",
            AxRole::Iframe => "iframe",
        }
    }
}

/// One node of the accessibility tree.
#[derive(Clone, Debug)]
pub struct AxNode {
    /// The DOM node it stands for (for a merged text run: the first text node of the run).
    pub dom_node: NodeId,
    pub role: AxRole,
    pub name: String,
    pub name_source: NameSource,
    /// States in a fixed order; undefined states are absent, explicit false is kept.
    pub states: Vec<(&'static str, Value)>,
    /// Properties in a fixed order: description, value, placeholder, url, ARIA metadata.
    pub properties: Vec<(&'static str, Value)>,
    /// The element's `type` attribute for inputs and buttons, as the text tree shows it; `None`
    /// for a submit or reset button without a form owner (`has_form_owner`).
    pub control_type: Option<String>,
    /// Indices of the children in `AxTree::nodes`.
    pub children: Vec<u32>,
    /// Clickable or typable: the `interactive` filter keeps these.
    pub interactive: bool,
    /// The element can take focus (`role::is_focusable`: a tabindex, even -1, or natively
    /// focusable): a roving-tabindex item or a skip-link target that the agent may focus, press
    /// keys on or scroll to. Its line keeps its reference (`text::prints_reference`).
    pub focusable: bool,
    /// The element hosts a shadow root (open, or closed and read by the gatherer):
    /// get_shadow_dom and shadow_dom_query take its reference, so its line prints it.
    pub shadow_host: bool,
    /// The element is a scroll container (`Style::scroll_container`): the scroll tool takes its
    /// reference, so its line prints it.
    pub scroll_container: bool,
    /// The layout box intersects the viewport (for text: the parent's box).
    pub in_viewport: bool,
    /// Rendered and able to receive pointer events: may carry a reference in "ai" mode.
    pub pointer_target: bool,
    /// The role comes from the author's `role` attribute (a native `<select>` listbox does not).
    pub author_role: bool,
    /// The opaque `aria-ref` of "ai" mode, set by the caller before serializing.
    pub aria_ref: Option<String>,
    /// The element hosts a closed shadow root the page's facts could not include: its content
    /// is missing, and the text tree says so (`closed-shadow-root`).
    pub closed_shadow_root: bool,
    /// A text run inside a `<label>` whose whole content is the accessible name of the control
    /// that label labels (HTML "labeled control": `for=` or the first labelable descendant). The
    /// control's own line already carries those words, so the text tree does not print them a
    /// second time; the structured snapshot keeps the node.
    pub repeats_label_of_control: bool,
    /// What a nameless clickable without content is, in a few words, for the text tree's
    /// `hint="..."` (issue 30, "Things nobody prints"): a CSS-drawn icon that is clicked (an
    /// empty `<i class="icon-reply" onclick=...>`) has no accessible name, and its title,
    /// `aria-description`, `aria-roledescription` or class names are the only words that say
    /// what it does. Never the accessible name: the structured snapshot does not carry it.
    pub hint: Option<String>,
    /// A list item or tree item whose nested list (`<ul>`, `<ol>`, or a `group` under a tree
    /// item) is hidden: a folder of a hand-made tree whose children appear on a click. The text
    /// tree prints `collapsed` and the line's reference, so that the agent knows where to click
    /// to see more.
    pub collapsed: bool,
}

impl AxNode {
    /// Whether the node is something to click that has no role of its own: a `generic` (or
    /// `none`, or inline formatting) element kept only because it carries a click signal
    /// (`is_interactive`). The text tree prints its role as `clickable`.
    pub fn is_clickable_without_role(&self) -> bool {
        self.interactive && matches!(self.role, AxRole::Aria(role) if flattens(role))
    }
}

impl AxNode {
    /// A node with a role and nothing else: no name, states, properties or children.
    fn bare(dom_node: NodeId, role: AxRole) -> AxNode {
        AxNode {
            dom_node,
            role,
            name: String::new(),
            name_source: NameSource::Spec,
            states: Vec::new(),
            properties: Vec::new(),
            control_type: None,
            children: Vec::new(),
            interactive: false,
            focusable: false,
            shadow_host: false,
            scroll_container: false,
            in_viewport: false,
            pointer_target: false,
            author_role: false,
            aria_ref: None,
            closed_shadow_root: false,
            repeats_label_of_control: false,
            hint: None,
            collapsed: false,
        }
    }
}

/// The tree of one document (or of one anchored subtree), as an arena.
#[derive(Clone, Debug, Default)]
pub struct AxTree {
    pub nodes: Vec<AxNode>,
    /// Index of the root node; `None` when the anchor was hidden or absent.
    pub root: Option<u32>,
}

impl AxTree {
    pub fn node(&self, index: u32) -> Option<&AxNode> {
        self.nodes.get(index as usize)
    }
}

/// What to build.
#[derive(Clone, Copy, Debug, Default)]
pub struct BuildOptions {
    /// Build only the subtree of this element (the text tree's `ref_id` anchoring). `None`: the
    /// whole document, under a `document` root.
    pub anchor: Option<NodeId>,
    /// Keep and mark the hosts whose closed shadow root the DOM could not read
    /// (`AxNode::closed_shadow_root`): the text tree does; the structured snapshot does not, so
    /// that it stays what the BiDi collector, which cannot ask, writes too.
    pub mark_closed_shadow_hosts: bool,
}

/// One item of a node's child list while the walk is under way.
enum Entry<'dom> {
    Node(u32),
    /// Raw (not yet normalised) text and the first DOM text node it came from, borrowed from the
    /// DOM: the whitespace between elements, most text nodes of a page, is dropped, never copied.
    Text(&'dom str, NodeId),
    /// A block-level boundary: texts on either side are not merged.
    Break,
}

/// A DOM node whose children are being walked.
struct Frame<'context> {
    /// The node this frame produces, or `None` when the node is flattened away.
    output: Option<u32>,
    /// Whether the flattened node is block-level (its entries are fenced by breaks).
    block: bool,
    children: Cow<'context, [NodeId]>,
    next_child: usize,
    /// The node or one of its ancestors is interactive: a pointer cursor set again on a
    /// descendant is not a click target of its own (`is_interactive`).
    inside_interactive: bool,
    /// Where this frame's entries start in the walk's one entry list. The walk is depth-first,
    /// so a frame's entries are always the list's tail from here: a flattened node leaves its
    /// entries where they are for its parent, and nothing is copied level by level (a page
    /// nested a hundred thousand elements deep would otherwise copy its entries that many times).
    entries_start: usize,
}

/// Builds the accessibility tree.
pub fn build_tree<D: Dom + ?Sized>(context: &Context<'_, D>, options: BuildOptions) -> AxTree {
    let dom = context.dom();
    let mut tree = AxTree::default();
    let start = match options.anchor {
        Some(anchor) => {
            if !context.in_range(anchor) || context.is_hidden(anchor) {
                return tree;
            }
            anchor
        }
        None => dom.document(),
    };
    let mut visited = vec![false; dom.node_count()];
    let mut stack: Vec<Frame> = Vec::new();
    let mut entries: Vec<Entry> = Vec::new();
    let root_output = if start == dom.document() {
        Some(push_node(&mut tree, document_node(context, start)))
    } else {
        // An anchor is always shown, even a generic container: the agent asked for it.
        let node = element_node(context, start, options.mark_closed_shadow_hosts, false)
            .unwrap_or_else(|| generic_node(context, start));
        Some(push_node(&mut tree, node))
    };
    tree.root = root_output;
    visited[start.index()] = true;
    let root_interactive = root_output.is_some_and(|index| tree.nodes[index as usize].interactive);
    stack.push(Frame {
        output: root_output,
        block: true,
        inside_interactive: root_interactive,
        children: walkable_children(context, start),
        next_child: 0,
        entries_start: 0,
    });
    while let Some(frame) = stack.last_mut() {
        if frame.next_child < frame.children.len() {
            let child = frame.children[frame.next_child];
            frame.next_child += 1;
            if child.index() >= visited.len() || visited[child.index()] {
                continue;
            }
            visited[child.index()] = true;
            match dom.node_kind(child) {
                NodeKind::Text if !context.is_hidden(child) => {
                    entries.push(Entry::Text(dom.text_data(child), child));
                }
                NodeKind::Element => {
                    if context.is_subtree_hidden(child) {
                        continue;
                    }
                    let shown = !context.is_hidden(child);
                    let inside_interactive = frame.inside_interactive;
                    let output = if shown {
                        element_node(
                            context,
                            child,
                            options.mark_closed_shadow_hosts,
                            inside_interactive,
                        )
                    } else {
                        None
                    };
                    let output = output.map(|node| push_node(&mut tree, node));
                    let inside_interactive = inside_interactive
                        || output.is_some_and(|index| tree.nodes[index as usize].interactive);
                    // A `<label>` fences its text like a block: the words of two labels in a
                    // row belong to two controls, and each run can then be matched with its
                    // control's name (`mark_label_texts`).
                    let block =
                        dom.style(child).display == Display::Block || is_html(dom, child, "label");
                    let children = if output
                        .is_some_and(|index| tree.nodes[index as usize].role == AxRole::Iframe)
                    {
                        Cow::Borrowed(&[][..])
                    } else {
                        walkable_children(context, child)
                    };
                    // A flattened block fences its entries with a break on each side.
                    if output.is_none() && block {
                        entries.push(Entry::Break);
                    }
                    stack.push(Frame {
                        output,
                        block,
                        inside_interactive,
                        children,
                        next_child: 0,
                        entries_start: entries.len(),
                    });
                }
                _ => {}
            }
            continue;
        }
        // All children walked: finish this frame and hand its result to the parent frame.
        let Some(finished) = stack.pop() else { break };
        match finished.output {
            Some(index) => {
                // Drained in place: a list of its own for every node was an allocation each.
                let own_entries = entries.drain(finished.entries_start..);
                let children = finish_children(&mut tree, context, own_entries);
                attach_children(&mut tree, index, children);
                let node = &mut tree.nodes[index as usize];
                if node.name.is_empty() && node.children.is_empty() && is_icon_like_clickable(node)
                {
                    node.hint = hint_of_nameless_clickable(dom, node.dom_node);
                }
                entries.push(Entry::Node(index));
            }
            // A flattened node's entries are already in place for its parent.
            None => {
                if finished.block {
                    entries.push(Entry::Break);
                }
            }
        }
    }
    mark_label_texts(&mut tree, context);
    tree
}

/// Sets `repeats_label_of_control` on the text runs of a `<label>` whose whole content is the
/// name of the control the label labels: `<label for="email">Email</label><input id="email">`
/// would otherwise print `text "Email"` next to `textbox "Email"`. Only runs that start inside
/// the label and equal the control's name exactly are marked, so a label that says more than the
/// name (a hint, an error, a second sentence) keeps its text.
fn mark_label_texts<D: Dom + ?Sized>(tree: &mut AxTree, context: &Context<'_, D>) {
    let dom = context.dom();
    let mut text_by_dom_node: rustc_hash::FxHashMap<NodeId, u32> = Default::default();
    let mut named_controls = Vec::new();
    for (index, node) in tree.nodes.iter().enumerate() {
        match node.role {
            AxRole::Text => {
                text_by_dom_node.insert(node.dom_node, index as u32);
            }
            AxRole::Aria(_) if !node.name.is_empty() => named_controls.push(index),
            _ => {}
        }
    }
    if text_by_dom_node.is_empty() {
        return;
    }
    for control in named_controls {
        let control_node = tree.nodes[control].dom_node;
        for &label in context.labels_of(control_node) {
            let mut stack: Vec<NodeId> = dom.children(label).to_vec();
            while let Some(node) = stack.pop() {
                if let Some(&text) = text_by_dom_node.get(&node) {
                    if tree.nodes[text as usize].name == tree.nodes[control].name {
                        tree.nodes[text as usize].repeats_label_of_control = true;
                    }
                }
                stack.extend(dom.children(node).iter().copied());
            }
        }
    }
}

fn push_node(tree: &mut AxTree, node: AxNode) -> u32 {
    tree.nodes.push(node);
    (tree.nodes.len() - 1) as u32
}

/// The children the walk visits: accessibility-tree children (flat tree + aria-owns).
///
/// A `<textarea>`'s text children are its default value, which the node's `value` already
/// shows (as typed, not as first loaded), so they are not walked.
fn walkable_children<'context, D: Dom + ?Sized>(
    context: &'context Context<'_, D>,
    node: NodeId,
) -> Cow<'context, [NodeId]> {
    let dom = context.dom();
    if is_html(dom, node, "textarea") {
        return Cow::Borrowed(&[]);
    }
    context.ax_children(node)
}

/// Turns a finished child list into node indices: merges text runs, normalises whitespace,
/// drops empty text.
fn finish_children<'dom, D: Dom + ?Sized>(
    tree: &mut AxTree,
    context: &Context<'_, D>,
    entries: impl Iterator<Item = Entry<'dom>>,
) -> Vec<u32> {
    let mut children = Vec::new();
    // Borrowed while the run is one text node; copied once a second one joins it.
    type Run<'text> = Option<(Cow<'text, str>, NodeId)>;
    let mut run: Run<'dom> = None;
    let flush = |tree: &mut AxTree, run: &mut Run<'dom>, children: &mut Vec<u32>| {
        if let Some((raw, first)) = run.take() {
            let text = collapse_ascii_whitespace_owned(raw);
            if !text.is_empty() {
                children.push(push_node(tree, text_node(context, first, text)));
            }
        }
    };
    for entry in entries {
        match entry {
            Entry::Text(raw, node) => match &mut run {
                Some((text, first)) => {
                    // The run stands for its first text node with words in it, not for the
                    // whitespace between the elements before it.
                    if text.trim_ascii().is_empty() {
                        *first = node;
                    }
                    text.to_mut().push_str(raw);
                }
                None => run = Some((Cow::Borrowed(raw), node)),
            },
            Entry::Break => flush(tree, &mut run, &mut children),
            Entry::Node(index) => {
                flush(tree, &mut run, &mut children);
                children.push(index);
            }
        }
    }
    flush(tree, &mut run, &mut children);
    children
}

/// Sets a node's children, dropping a lone text child that only repeats the node's name.
fn attach_children(tree: &mut AxTree, index: u32, children: Vec<u32>) {
    let name = &tree.nodes[index as usize].name;
    let repeats_name = children.len() == 1
        && tree.nodes[children[0] as usize].role == AxRole::Text
        && !name.is_empty()
        && tree.nodes[children[0] as usize].name == *name;
    tree.nodes[index as usize].children = if repeats_name { Vec::new() } else { children };
}

fn document_node<D: Dom + ?Sized>(context: &Context<'_, D>, document: NodeId) -> AxNode {
    let title = document_title(context);
    AxNode {
        name: title,
        in_viewport: true,
        ..AxNode::bare(document, AxRole::Document)
    }
}

/// The document's title: the text of the first `<title>` in the document's head (HTML "The
/// title element"), whitespace-normalised; for SVG documents, the root's `<title>`.
pub fn document_title<D: Dom + ?Sized>(context: &Context<'_, D>) -> String {
    let dom = context.dom();
    let mut stack: Vec<NodeId> = dom.children(dom.document()).iter().rev().copied().collect();
    while let Some(node) = stack.pop() {
        if dom.node_kind(node) != NodeKind::Element {
            continue;
        }
        if dom.local_name(node) == "title"
            && matches!(dom.namespace(node), Namespace::Html | Namespace::Svg)
        {
            let text: String = dom
                .children(node)
                .iter()
                .map(|&child| dom.text_data(child))
                .collect();
            return collapse_ascii_whitespace_owned(text);
        }
        // The title lives in <head>: no need to look inside <body>.
        if dom.local_name(node) != "body" {
            stack.extend(dom.children(node).iter().rev().copied());
        }
    }
    String::new()
}

fn text_node<D: Dom + ?Sized>(context: &Context<'_, D>, first: NodeId, text: String) -> AxNode {
    let parent = context.flat_tree().parent(first);
    let in_viewport = parent.is_none_or(|parent| element_in_viewport(context, parent));
    AxNode {
        name: text,
        in_viewport,
        ..AxNode::bare(first, AxRole::Text)
    }
}

/// The node for a generic container that must be shown anyway (an anchor, a focusable div).
fn generic_node<D: Dom + ?Sized>(context: &Context<'_, D>, element: NodeId) -> AxNode {
    AxNode {
        interactive: is_interactive(context, element, Role::Generic, false),
        focusable: context.is_focusable(element),
        shadow_host: context.dom().shadow_root(element).is_some(),
        scroll_container: context.dom().style(element).scroll_container,
        in_viewport: element_in_viewport(context, element),
        pointer_target: is_pointer_target(context, element),
        ..AxNode::bare(element, AxRole::Aria(Role::Generic))
    }
}

/// The node for an element, or `None` when it is flattened away.
#[inline(never)]
fn element_node<D: Dom + ?Sized>(
    context: &Context<'_, D>,
    element: NodeId,
    mark_closed_shadow_hosts: bool,
    inside_interactive: bool,
) -> Option<AxNode> {
    let dom = context.dom();
    let is_frame = dom.namespace(element) == Namespace::Html
        && matches!(dom.local_name(element), "iframe" | "frame");
    let role = context.role(element);
    let interactive = is_interactive(context, element, role, inside_interactive);
    // A host whose closed shadow root could not be read keeps its line even when its role would
    // flatten it: the line is where the agent learns that content is missing.
    let closed_shadow_root = mark_closed_shadow_hosts && dom.has_unread_closed_shadow_root(element);
    if !is_frame && flattens(role) && !interactive && !closed_shadow_root {
        return None;
    }
    // The description first: it compares a title with the name, which the node then takes.
    let description = context.description(element);
    let name = if role.prohibits_naming() && !is_frame {
        Default::default()
    } else {
        context.take_name(element)
    };
    let mut properties = Vec::new();
    if !description.is_empty() {
        properties.push(("description", Value::String(description)));
    }
    let states = state::compute_states(context, element, role);
    properties.extend(property_entries(
        context,
        element,
        role,
        states.value_text.clone(),
    ));
    if name.source == NameSource::Heuristic && !name.text.is_empty() {
        properties.push(("nameSource", Value::String("heuristic".to_string())));
    }
    let control_type = if dom.namespace(element) == Namespace::Html
        && matches!(dom.local_name(element), "input" | "button")
    {
        dom.attribute(element, "type")
            .map(|kind| kind.trim().to_ascii_lowercase())
            .or_else(|| {
                Some(
                    if dom.local_name(element) == "input" {
                        "text"
                    } else {
                        "submit"
                    }
                    .to_string(),
                )
            })
    } else {
        None
    }
    .filter(|kind| !matches!(kind.as_str(), "submit" | "reset") || has_form_owner(dom, element));
    Some(AxNode {
        dom_node: element,
        role: if is_frame {
            AxRole::Iframe
        } else {
            AxRole::Aria(role)
        },
        name: name.text,
        name_source: name.source,
        states: state_entries(&states),
        properties,
        control_type,
        children: Vec::new(),
        interactive,
        focusable: context.is_focusable(element),
        shadow_host: dom.shadow_root(element).is_some(),
        scroll_container: dom.style(element).scroll_container,
        in_viewport: element_in_viewport(context, element),
        pointer_target: is_pointer_target(context, element),
        author_role: dom.attribute(element, "role").is_some_and(|tokens| {
            tokens
                .split_ascii_whitespace()
                .next()
                .and_then(Role::from_token)
                == Some(role)
        }),
        aria_ref: None,
        closed_shadow_root,
        repeats_label_of_control: false,
        hint: None,
        collapsed: has_hidden_nested_list(context, element, role, &states),
    })
}

/// Whether a list item or tree item holds a nested list that is hidden (`AxNode::collapsed`):
/// a `<ul>` or `<ol>` child, or under a tree item a child whose role is `group` (the ARIA tree
/// pattern's subtree). An item that states `aria-expanded` already says whether it is open.
/// Only the item's own children are looked at, so the cost is one pass over list items'
/// children.
fn has_hidden_nested_list<D: Dom + ?Sized>(
    context: &Context<'_, D>,
    element: NodeId,
    role: Role,
    states: &state::States,
) -> bool {
    if !matches!(role, Role::ListItem | Role::TreeItem) || states.expanded.is_some() {
        return false;
    }
    let dom = context.dom();
    dom.children(element).iter().any(|&child| {
        dom.node_kind(child) == NodeKind::Element
            && (is_html(dom, child, "ul")
                || is_html(dom, child, "ol")
                || (role == Role::TreeItem && context.role(child) == Role::Group))
            && context.is_hidden(child)
    })
}

/// Whether a nameless, empty node may be an icon to click, which a hint describes: a clickable
/// without a role of its own, or a button, link or menu item (an icon button drawn by CSS).
/// Form fields are left out: an unlabelled field's classes say how it is styled, not what it
/// asks for, and its line already says its type and placeholder.
fn is_icon_like_clickable(node: &AxNode) -> bool {
    node.is_clickable_without_role()
        || (node.interactive
            && matches!(
                node.role,
                AxRole::Aria(Role::Button | Role::Link | Role::MenuItem)
            ))
}

/// Class-name words that say only that something is an icon or a control, or how it is
/// styled, not what it does: `fa fa-solid fa-reply` says "reply", `material-icons` nothing.
const GENERIC_CLASS_WORDS: &[&str] = &[
    "icon",
    "icons",
    "ico",
    "fa",
    "fas",
    "far",
    "fab",
    "fal",
    "fad",
    "fass",
    "solid",
    "regular",
    "light",
    "thin",
    "brands",
    "duotone",
    "btn",
    "button",
    "svg",
    "material",
    "symbols",
    "outlined",
    "round",
    "rounded",
    "sharp",
    "filled",
    "glyphicon",
    "glyphicons",
    "bi",
    "mdi",
    "ion",
    "ionicon",
    "ionicons",
    "feather",
    "lucide",
    "octicon",
    "codicon",
    "ri",
    "la",
    "las",
    "lar",
    "lab",
    "js",
    "is",
    "has",
    "active",
    "clickable",
    "pointer",
    "xs",
    "sm",
    "md",
    "lg",
    "xl",
    "small",
    "large",
    "wrapper",
    "container",
    "inner",
    "ui",
    "el",
    "c",
    "i",
];

/// At most this many words of class names make a hint: enough for `arrow down`, `chevron
/// right`, `thumbs up`; a class list of a utility framework would otherwise print a sentence.
const MOST_HINT_WORDS_FROM_CLASSES: usize = 4;

/// The hint of a clickable without a name or content (`AxNode::hint`): the first of its
/// `title`, `aria-description` and `aria-roledescription` that says something, else the words
/// of its class names. Only elements the text tree would otherwise print as a bare
/// `clickable [ref_N]` are asked, so the class names are split for few elements.
fn hint_of_nameless_clickable<D: Dom + ?Sized>(dom: &D, element: NodeId) -> Option<String> {
    for attribute in ["title", "aria-description", "aria-roledescription"] {
        if let Some(text) = dom.attribute(element, attribute) {
            let text = collapse_ascii_whitespace_owned(text.to_string());
            if !text.is_empty() {
                return Some(text);
            }
        }
    }
    let classes = dom.attribute(element, "class")?;
    let words = class_name_words(classes);
    (!words.is_empty()).then(|| words.join(" "))
}

/// The words of class names (`icon-reply` -> `reply`, `arrowDown` -> `arrow down`): split on
/// `-`, `_` and lower-to-upper case changes, lowercased, without the generic words
/// (`GENERIC_CLASS_WORDS`), digits-only parts or repeats, at most
/// `MOST_HINT_WORDS_FROM_CLASSES` of them.
pub fn class_name_words(classes: &str) -> Vec<String> {
    let mut words: Vec<String> = Vec::new();
    for class in classes.split_ascii_whitespace() {
        let mut parts: Vec<String> = Vec::new();
        let mut current = String::new();
        let mut previous_lowercase = false;
        for character in class.chars() {
            if character == '-' || character == '_' || !character.is_alphanumeric() {
                if !current.is_empty() {
                    parts.push(std::mem::take(&mut current));
                }
                previous_lowercase = false;
                continue;
            }
            if character.is_uppercase() && previous_lowercase && !current.is_empty() {
                parts.push(std::mem::take(&mut current));
            }
            previous_lowercase = character.is_lowercase() || character.is_ascii_digit();
            current.extend(character.to_lowercase());
        }
        if !current.is_empty() {
            parts.push(current);
        }
        for part in parts {
            if words.len() >= MOST_HINT_WORDS_FROM_CLASSES {
                return words;
            }
            if part.chars().all(|character| character.is_ascii_digit())
                || GENERIC_CLASS_WORDS.contains(&part.as_str())
                || words.contains(&part)
            {
                continue;
            }
            words.push(part);
        }
    }
    words
}

/// Whether a form control has a form owner (HTML "Association of controls and forms"): the form
/// its `form` attribute names, else its nearest `<form>` ancestor. A submit or reset button
/// without one does nothing when activated, so the text tree does not print its `type`: on
/// pages that render `<button>` without a type outside any form, `type="submit"` would only
/// mislead.
fn has_form_owner<D: Dom + ?Sized>(dom: &D, element: NodeId) -> bool {
    if let Some(id) = dom.attribute(element, "form") {
        return dom
            .element_by_id(element, id)
            .is_some_and(|owner| is_html(dom, owner, "form"));
    }
    let mut current = dom.parent(element);
    while let Some(node) = current {
        if is_html(dom, node, "form") {
            return true;
        }
        current = dom.parent(node);
    }
    false
}

/// Roles whose elements the tree replaces by their children: containers without semantics, and
/// the inline formatting roles (strong, emphasis, mark, subscript, superscript), whose text reads
/// better merged into the surrounding sentence than split over several nodes.
fn flattens(role: Role) -> bool {
    matches!(
        role,
        Role::Generic
            | Role::None
            | Role::Strong
            | Role::Emphasis
            | Role::Mark
            | Role::Subscript
            | Role::Superscript
    )
}

/// Inline event handler attributes that make an element something to click (HTML "Event
/// handlers on elements"): a click, or the press or release of a mouse button or pointer.
const CLICK_HANDLER_ATTRIBUTES: [&str; 5] = [
    "onclick",
    "onmousedown",
    "onpointerdown",
    "onmouseup",
    "onpointerup",
];

/// Clickable or typable (issue 30, "Clickable things without a ref": everything a person can
/// click gets a reference): widget roles, focusable elements (a tabindex of 0 or more; -1 only
/// with an author's label, `is_labelled_script_focus_target`, since pages put a bare -1 on the
/// containers a skip link focuses), editable content, `<summary>`, `draggable="true"`, an inline click handler (`CLICK_HANDLER_ATTRIBUTES`),
/// the element's own `cursor: pointer` (`Style::cursor_pointer`) and a click, press or release
/// listener a script added to the element itself (`Dom::has_click_listener`, seen by the
/// extension's main-world recorder), the last two unless an ancestor is interactive already
/// (`inside_interactive`): the icon inside a button, styled with the pointer again or given a
/// listener of its own, is part of the button, and the cells of a clickable row are the row.
#[inline(never)]
fn is_interactive<D: Dom + ?Sized>(
    context: &Context<'_, D>,
    element: NodeId,
    role: Role,
    inside_interactive: bool,
) -> bool {
    let dom = context.dom();
    if role.is_widget() && !matches!(role, Role::ProgressBar) {
        return true;
    }
    if dom
        .attribute(element, "tabindex")
        .and_then(|value| value.trim().parse::<i64>().ok())
        .is_some_and(|index| index >= 0)
    {
        return true;
    }
    if is_labelled_script_focus_target(dom, element) {
        return true;
    }
    if dom
        .attribute(element, "contenteditable")
        .is_some_and(|value| !value.eq_ignore_ascii_case("false"))
    {
        return true;
    }
    if CLICK_HANDLER_ATTRIBUTES
        .iter()
        .any(|attribute| dom.attribute(element, attribute).is_some())
    {
        return true;
    }
    if is_html(dom, element, "summary") {
        return true;
    }
    // An element its author made draggable (`draggable="true"`: a board's card, a list's row) is
    // what drag takes as from_ref. Links and images are draggable by default without the
    // attribute and keep their own reasons.
    if dom
        .attribute(element, "draggable")
        .is_some_and(|value| value.trim().eq_ignore_ascii_case("true"))
    {
        return true;
    }
    !inside_interactive && (dom.style(element).cursor_pointer || dom.has_click_listener(element))
}

/// An element that takes focus only from script (`tabindex="-1"`) and that its author labelled
/// (aria-label or aria-labelledby): the cells of a widget with roving focus, such as a date
/// picker's days (flatpickr's `<span tabindex="-1" aria-label="March 14, 2026">`), which a
/// person clicks and a keyboard user reaches with the arrow keys. A bare `tabindex="-1"` is
/// not enough: pages put it on containers (main, a dialog, a heading) only to move focus there.
fn is_labelled_script_focus_target<D: Dom + ?Sized>(dom: &D, element: NodeId) -> bool {
    let script_focusable = dom
        .attribute(element, "tabindex")
        .and_then(|value| value.trim().parse::<i64>().ok())
        .is_some_and(|index| index < 0);
    let labelled = ["aria-label", "aria-labelledby"].iter().any(|attribute| {
        dom.attribute(element, attribute)
            .is_some_and(|value| !value.trim().is_empty())
    });
    script_focusable && labelled
}

#[inline(never)]
fn element_in_viewport<D: Dom + ?Sized>(context: &Context<'_, D>, element: NodeId) -> bool {
    let dom = context.dom();
    let viewport = dom.viewport();
    // `display: contents` has no box: judge by the nearest ancestor that has one. Neither has an
    // element the browser lays out no box for although it is rendered, such as an option of a
    // closed drop-down: `getBoundingClientRect()` answers an empty rectangle at the viewport's
    // origin for it (CSSOM View, "getClientRects": no associated layout box), which would
    // otherwise count as on screen wherever its select is.
    let mut current = Some(element);
    for _ in 0..64 {
        let Some(node) = current else { break };
        if dom.node_kind(node) != NodeKind::Element {
            break;
        }
        if let Some(rect) = dom.bounding_box(node) {
            if !rect.is_empty_at_origin() {
                return rect.intersects(&viewport);
            }
        }
        current = context.flat_tree().parent(node);
    }
    false
}

#[inline(never)]
fn is_pointer_target<D: Dom + ?Sized>(context: &Context<'_, D>, element: NodeId) -> bool {
    let dom = context.dom();
    dom.node_kind(element) == NodeKind::Element
        && !dom.style(element).pointer_events_none
        && dom.bounding_box(element).is_some()
        && !context.is_hidden(element)
}

/// The element's states as ordered entries under the snapshot's keys (see `state.rs` for the
/// rules). Non-finite numbers, which JSON cannot carry, are dropped.
#[inline(never)]
fn state_entries(states: &state::States) -> Vec<(&'static str, Value)> {
    let tristate = |value: Checked| match value {
        Checked::True => Value::Bool(true),
        Checked::False => Value::Bool(false),
        Checked::Mixed => Value::String("mixed".to_string()),
    };
    let mut entries = Vec::new();
    let mut push = |key: &'static str, value: Option<Value>| {
        if let Some(value) = value {
            if !matches!(value, Value::Number(number) if !number.is_finite()) {
                entries.push((key, value));
            }
        }
    };
    push("checked", states.checked.map(tristate));
    push("selected", states.selected.map(Value::Bool));
    push("expanded", states.expanded.map(Value::Bool));
    push("pressed", states.pressed.map(tristate));
    push("disabled", states.disabled.map(Value::Bool));
    push("required", states.required.map(Value::Bool));
    push("readonly", states.readonly.map(Value::Bool));
    push(
        "level",
        states
            .level
            .map(|level| Value::Number(f64::from(level.max(1)))),
    );
    push("valueNow", states.value_now.map(Value::Number));
    push("valueMin", states.value_min.map(Value::Number));
    push("valueMax", states.value_max.map(Value::Number));
    entries
}

/// The element's properties other than the description, as ordered entries.
#[inline(never)]
fn property_entries<D: Dom + ?Sized>(
    context: &Context<'_, D>,
    element: NodeId,
    role: Role,
    value_text: Option<String>,
) -> Vec<(&'static str, Value)> {
    let properties = state::compute_properties(context, element, role);
    let mut entries = Vec::new();
    for (key, value) in [
        ("value", properties.value),
        ("placeholder", properties.placeholder),
        ("url", properties.url),
        ("valueText", value_text),
    ] {
        if let Some(value) = value {
            entries.push((key, Value::String(value)));
        }
    }
    for (key, value) in properties.aria {
        entries.push((
            key,
            match value {
                PropertyValue::Text(text) => Value::String(text),
                PropertyValue::Bool(flag) => Value::Bool(flag),
                PropertyValue::Integer(number) => Value::Number(number as f64),
            },
        ));
    }
    entries
}
