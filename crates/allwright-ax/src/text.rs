//! The text tree that `get_accessibility_tree` returns to the agent (docs/protocol/tools.md, "The tool table"):
//! one line per node, one space of indent per depth,
//!
//! ```text
//! role "accessible name" [ref_N] href="..." type="..." placeholder="..." value="..."
//! ```
//!
//! followed by the node's states in the same `key="value"` form. Skipped containers add no depth
//! (they are already flattened in the tree). Only the lines an agent can use print their
//! reference (`printed_reference`), and what a line would only repeat is left out (docs/protocol/reading.md,
//! "What the text tree leaves out"). Open overlays (dialogs, popup listboxes and menus,
//! expanded comboboxes) come first under an `[open overlays]` banner so that portal-rendered popups
//! survive a reader's soft length limit. `maxChars` cuts the output into 1-based pages.
//!
//! Page text can never forge structure: every string is escaped (`escaping`). A line is built as
//! a `Line` and written whole or within a page (`line`); `pages` cuts the lines into pages.

mod escaping;
mod line;
mod pages;

pub use escaping::push_escaped;
pub use pages::MIN_MAX_CHARS;

use crate::aria::Role;
use crate::dom::NodeId;
use crate::printed_reference::ReferencePrinting;
use crate::tree::{AxNode, AxRole, AxTree};
use line::Line;
use pages::{paginate, printed_refs};
use std::borrow::Cow;

/// Which nodes the text tree shows.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum Filter {
    /// The whole tree.
    #[default]
    All,
    /// Nodes whose box intersects the viewport (and the containers that lead to them).
    Visible,
    /// Clickable or typable nodes only; everything else adds no depth.
    Interactive,
}

impl Filter {
    /// Every filter with the name agents and the tool contract use for it (src/tools/table.rs
    /// lists `Filter::NAMES` as the argument's choices), in one table so the two cannot drift.
    const BY_NAME: [(&'static str, Filter); 3] = [
        ("all", Filter::All),
        ("visible", Filter::Visible),
        ("interactive", Filter::Interactive),
    ];

    /// The names of [`Filter::BY_NAME`], in its order.
    pub const NAMES: [&'static str; 3] =
        [Self::BY_NAME[0].0, Self::BY_NAME[1].0, Self::BY_NAME[2].0];

    pub fn as_str(self) -> &'static str {
        Self::BY_NAME
            .iter()
            .find(|(_, filter)| *filter == self)
            .map_or("all", |(name, _)| name)
    }

    pub fn parse(text: &str) -> Option<Filter> {
        Self::BY_NAME
            .iter()
            .find(|(name, _)| *name == text)
            .map(|(_, filter)| *filter)
    }
}

/// The default `maxDepth` of `get_accessibility_tree` (docs/protocol/tools.md, "The tool table").
pub const DEFAULT_MAX_DEPTH: usize = 15;

/// `maxChars` when the agent gives none (the tool contract's default, src/tools/table.rs): about
/// 12,500 tokens, a page of the tree that fits an agent's turn with room for its reasoning; a
/// longer tree comes in pages through `continuationArgs`. Without it, one read of a huge page
/// (a 40 MB field, a million nodes) would be built whole before anything could refuse it
/// (docs/protocol/host-safety.md, "Bounds and deadlines").
pub const DEFAULT_MAX_CHARS: usize = 50_000;

/// The parameters of `generateAccessibilityTree(filter, maxDepth, maxChars, ref_id, page)`.
#[derive(Clone, Debug)]
pub struct TextTreeOptions {
    pub filter: Filter,
    /// Levels shown: with 1, only top-level nodes.
    pub max_depth: usize,
    /// A hard cap on the characters of the returned tree; over it the tree is cut into pages.
    pub max_chars: Option<usize>,
    /// The `ref_id` the tree is anchored on, echoed in `continuationArgs`.
    pub anchor_ref: Option<String>,
    /// The 1-based page to return.
    pub page: usize,
    /// The frame id of each `<iframe>` or `<frame>` whose frame the caller knows (the browser's
    /// frame inventory): the element's line prints `frameId=N` after its reference, so that the
    /// reader can read that frame (docs/protocol/frames.md, "Frames"). Empty: no line prints one.
    /// Frame ids are the browser's: Firefox's exceed 32 bits.
    pub frame_ids: Vec<(NodeId, u64)>,
    /// Keep every line of the whole tree, unpaged and written in full, in [`TextTree::lines`]:
    /// the record of a snapshot that a later read compares against (`tree_diff.rs`).
    pub keep_lines: bool,
    /// Indentation added to every line: an anchored read of an element whose line sits at this
    /// depth in the whole tree then prints its lines exactly as the whole tree does (reads since
    /// a snapshot re-read only the parts that changed; docs/protocol.md). `max_depth` still
    /// counts from the anchor.
    pub depth_offset: usize,
    /// The read is one part of a whole read being put together (reads since a snapshot): its
    /// anchor prints as the whole tree prints that element, not as the first line of a read (which
    /// always prints its reference and name and is never a lone wrapper's empty place), and a
    /// part that holds a conversation root is refused (`TextTreeError::PartNotAlone`), since
    /// whether an element is the page's conversation root is decided over the whole page, and
    /// so is a part whose name or words repeat a name above it (a line leaves out its parent's
    /// name, which a part read alone does not know).
    pub part_of_whole: bool,
}

impl Default for TextTreeOptions {
    fn default() -> Self {
        TextTreeOptions {
            filter: Filter::All,
            max_depth: DEFAULT_MAX_DEPTH,
            max_chars: None,
            anchor_ref: None,
            page: 1,
            frame_ids: Vec::new(),
            keep_lines: false,
            depth_offset: 0,
            part_of_whole: false,
        }
    }
}

/// The exact arguments that read the next page.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ContinuationArgs {
    pub filter: Filter,
    pub max_depth: usize,
    pub max_chars: usize,
    pub ref_id: Option<String>,
    pub page: usize,
}

/// A reference printed in the returned page, as the line shows it: the actions reuse these
/// instead of reading the printed lines again (docs/protocol.md, `refs`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PrintedRef {
    /// The element the reference stands for.
    pub node: NodeId,
    /// The role as printed.
    pub role: &'static str,
    /// The name as printed, before escaping: shortened with an ellipsis when the line was, empty
    /// when the line shows none.
    pub name: String,
    /// Whether the element is focusable (`role::is_focusable`). The renderer sees the tree, not
    /// the DOM, so `generate_accessibility_tree` fills this in.
    pub focusable: bool,
}

/// The rendered tree and its metadata.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TextTree {
    pub tree: String,
    /// The references printed in `tree`, in print order.
    pub refs: Vec<PrintedRef>,
    /// The returned text is not the whole tree (other pages, or levels past maxDepth).
    pub truncated: bool,
    /// Another page follows this one.
    pub has_more: bool,
    /// The tree exceeded `maxChars` and was cut automatically.
    pub auto_degraded: bool,
    /// What the reader should know and do next, in a sentence or two.
    pub notice: Option<String>,
    pub page: usize,
    pub page_count: usize,
    pub continuation_args: Option<ContinuationArgs>,
    /// The conversation root, expansion evidence and content fingerprint of the read
    /// (conversation.rs); filled in by `generate_accessibility_tree`.
    pub read_facts: crate::conversation::ReadFacts,
    /// Every line of the whole tree (all pages), written without a `maxChars` cut, when
    /// [`TextTreeOptions::keep_lines`] asked for them; empty otherwise.
    pub lines: Vec<TreeLine>,
}

/// One line of the whole tree as a later comparison needs it (`tree_diff.rs`): which node it
/// stands for, where it sits, and its text exactly as a read without `maxChars` prints it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TreeLine {
    /// The DOM node of the line (a text run's first text node).
    pub node: NodeId,
    /// Its indentation: the number of shown ancestors.
    pub depth: usize,
    /// Whether it is printed under the `[open overlays]` banner rather than in the page tree.
    pub overlay: bool,
    /// The line as printed, indentation included.
    pub text: String,
    /// The N of the `ref_N` it prints, if it prints one.
    pub reference: Option<u32>,
    /// The role as printed.
    pub role: &'static str,
    /// The name as printed (unescaped), empty when the line shows none.
    pub name: String,
    /// The line leaves its name to its first child's line, which prints it (a region labelled
    /// by its heading): shown as the context of a change, it is followed by that line.
    pub name_left_to_first_child: bool,
}

/// The banner line above the open overlays: a later comparison (`tree_diff.rs`) prints it as
/// the context of a change among them.
pub const OVERLAYS_BANNER_LINE: &str = OVERLAYS_BANNER;

/// Why a text tree could not be produced.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TextTreeError {
    /// The requested page is past the last one.
    PageOutOfRange { requested: usize, page_count: usize },
    /// The anchor is hidden or gone, so there is no tree to show.
    EmptyAnchor,
    /// A part of a whole read (`TextTreeOptions::part_of_whole`) cannot be read alone: the
    /// caller reads the whole tree instead.
    PartNotAlone,
}

impl std::fmt::Display for TextTreeError {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TextTreeError::PageOutOfRange {
                requested,
                page_count,
            } => {
                write!(
                    formatter,
                    "page {requested} does not exist: the tree has {page_count} page(s)"
                )
            }
            TextTreeError::EmptyAnchor => write!(
                formatter,
                "the anchored element is hidden or no longer in the page"
            ),
            TextTreeError::PartNotAlone => write!(
                formatter,
                "this part of the page holds a conversation root or repeats a name above it, and is read with the whole page"
            ),
        }
    }
}

/// Renders the text tree. `reference` gives the `ref_N` of an element (the glue owns the
/// registry; tests number them). `conversation_root` is the element the read reports as
/// `conversationRootRefId` (conversation.rs): its line always prints its reference, the anchor
/// of a whole-thread read.
pub fn render_text_tree(
    tree: &AxTree,
    options: &TextTreeOptions,
    conversation_root: Option<NodeId>,
    reference: &mut dyn FnMut(NodeId) -> String,
) -> Result<TextTree, TextTreeError> {
    let Some(root) = tree.root else {
        return Err(TextTreeError::EmptyAnchor);
    };
    let max_depth = options.max_depth.max(1);
    let subtree_visible = subtree_flags(tree, |node| node.in_viewport);
    let overlays = find_overlays(tree, root);
    let mut lines: Vec<Line> = Vec::new();
    let mut cut_by_depth = 0usize;
    let mut renderer = Renderer {
        tree,
        options,
        max_depth,
        subtree_visible: &subtree_visible,
        reference,
        overlays: &overlays,
        conversation_root,
    };
    if !overlays.is_empty() {
        lines.push(Line::banner());
        for &overlay in &overlays {
            cut_by_depth += renderer.render(overlay, false, &mut lines);
        }
    }
    let overlay_lines_end = lines.len();
    // The document root has no line of its own: its children start at depth 0. An anchor does
    // have its line.
    let skip_root = tree
        .node(root)
        .is_some_and(|node| node.role == AxRole::Document);
    cut_by_depth += renderer.render(root, skip_root, &mut lines);
    drop_references_of_small_containers(&mut lines);

    // Every line written in full, once: the page when there is no maxChars, and the kept lines.
    let written: Option<Vec<String>> = (options.keep_lines || options.max_chars.is_none())
        .then(|| lines.iter().map(|line| line.write(None, true).0).collect());
    let pages = paginate(&lines, options.max_chars, written.as_deref());
    let kept_lines = match written {
        Some(written) if options.keep_lines => tree_lines(&lines, overlay_lines_end, written),
        _ => Vec::new(),
    };
    let auto_degraded = pages.degraded;
    let page_count = pages.texts.len().max(1);
    if options.page == 0 || options.page > page_count {
        return Err(TextTreeError::PageOutOfRange {
            requested: options.page,
            page_count,
        });
    }
    let has_more = options.page < page_count;
    let mut notices = Vec::new();
    if page_count > 1 {
        notices.push(format!(
            "Page {} of {page_count}: the tree is longer than maxChars ({}).{}",
            options.page,
            options.max_chars.unwrap_or(0),
            if has_more {
                " Call again with continuationArgs for the next page, or anchor on a ref_id to zoom in."
            } else {
                " This is the last page."
            }
        ));
    }
    if cut_by_depth > 0 {
        notices.push(format!(
            "{cut_by_depth} node(s) deeper than maxDepth ({max_depth}) were left out; anchor on a ref_id or raise maxDepth to read them."
        ));
    }
    let continuation_args = has_more.then(|| ContinuationArgs {
        filter: options.filter,
        max_depth,
        max_chars: options.max_chars.unwrap_or(0),
        ref_id: options.anchor_ref.clone(),
        page: options.page + 1,
    });
    let page_index = options.page - 1;
    let refs = printed_refs(&mut lines, &pages, page_index);
    let mut texts = pages.texts;
    Ok(TextTree {
        tree: if page_index < texts.len() {
            texts.swap_remove(page_index)
        } else {
            String::new()
        },
        refs,
        truncated: page_count > 1 || cut_by_depth > 0,
        has_more,
        auto_degraded,
        notice: (!notices.is_empty()).then(|| notices.join(" ")),
        page: options.page,
        page_count,
        continuation_args,
        read_facts: Default::default(),
        lines: kept_lines,
    })
}

/// The lines of the whole tree as [`TreeLine`]s, the banner left out (a line's `overlay` says
/// which part it is in).
fn tree_lines(lines: &[Line], overlay_lines_end: usize, written: Vec<String>) -> Vec<TreeLine> {
    lines
        .iter()
        .zip(written)
        .enumerate()
        .filter(|(_, (line, _))| !line.role.is_empty())
        .map(|(position, (line, text))| TreeLine {
            node: line.node,
            depth: line.indent,
            overlay: position < overlay_lines_end,
            text,
            reference: line
                .reference
                .as_deref()
                .and_then(|reference| reference.strip_prefix("ref_"))
                .and_then(|digits| digits.parse().ok()),
            role: line.role,
            name: line.name.as_deref().unwrap_or_default().to_string(),
            name_left_to_first_child: line.name_left_to_first_child,
        })
        .collect()
}

/// A container's subtree shorter than this (about a third of the 3,000-character soft limit
/// that the `[open overlays]` banner is designed around, docs/protocol.md) is read whole in
/// passing: zooming into it with `ref_id` would only read again what the agent has, so its line
/// prints no reference.
const SMALL_CONTAINER_CHARS: usize = 1000;

/// Takes the reference off the lines of containers to zoom into (`zoom_container`) whose own
/// line and descendants' lines total fewer than [`SMALL_CONTAINER_CHARS`] characters (as
/// estimated by `Line::estimated_length`); the registry keeps them.
fn drop_references_of_small_containers(lines: &mut [Line]) {
    for position in 0..lines.len() {
        if !lines[position].zoom_container {
            continue;
        }
        let indent = lines[position].indent;
        let mut total = lines[position].estimated_length();
        for line in &lines[position + 1..] {
            // The subtree ends at the next line that is not deeper, or at the overlays' banner.
            if total >= SMALL_CONTAINER_CHARS || line.indent <= indent || line.role.is_empty() {
                break;
            }
            total += line.estimated_length();
        }
        if total < SMALL_CONTAINER_CHARS {
            let line = &mut lines[position];
            line.unprinted_reference = line.reference.take();
            line.zoom_container = false;
        }
    }
}

/// The most characters (escaped, the ellipsis included) that a name prints: a text run, a
/// heading or a label longer than this (a whole article in one paragraph, a field's label
/// made of its help text) is cut with `…` (issue 12: long texts are cut with a marker). An agent
/// that needs the rest reads the page text another way (a screenshot, or execute_js in Dev mode).
pub const LONGEST_PRINTED_NAME: usize = 10_000;

/// The most characters that an attribute value (`value`, `href`, `placeholder`, ...) prints: a
/// field holding a whole document prints its beginning and `…`, so that one field cannot fill
/// the agent's page (docs/protocol/host-safety.md, "Bounds and deadlines").
pub const LONGEST_PRINTED_VALUE: usize = 2_000;

/// A property of a node as text, empty when absent.
fn property_text<'tree>(node: &'tree AxNode, key: &str) -> &'tree str {
    node.properties
        .iter()
        .find(|(name, _)| *name == key)
        .and_then(|(_, value)| match value {
            crate::value::Value::String(text) => Some(text.as_str()),
            _ => None,
        })
        .unwrap_or("")
}

/// A node waiting on the renderer's stack.
struct Pending<'tree> {
    index: u32,
    /// The depth of its line, if it is shown.
    depth: usize,
    /// The node the rendering started from (an overlay, the root or the anchor).
    is_start: bool,
    /// The name of the nearest ancestor whose children are presentational, if any.
    presentational_name: Option<&'tree str>,
    /// The name its parent's line printed, if any.
    parent_name: Option<&'tree str>,
    /// Its parent is interactive (a link, a menu item, ...).
    parent_interactive: bool,
    /// The position in `lines` of its parent's line, if the parent has one.
    parent_line: Option<usize>,
    /// It is inside a drop-down `<select>` (`is_native_drop_down`): that select's value (its
    /// selected option's label, empty when none).
    native_drop_down_value: Option<&'tree str>,
}

struct Renderer<'a> {
    tree: &'a AxTree,
    options: &'a TextTreeOptions,
    max_depth: usize,
    subtree_visible: &'a [bool],
    reference: &'a mut dyn FnMut(NodeId) -> String,
    overlays: &'a [u32],
    conversation_root: Option<NodeId>,
}

impl<'a> Renderer<'a> {
    /// Renders the subtree of `start` into `lines`; returns how many nodes maxDepth cut.
    fn render(&mut self, start: u32, skip_start: bool, lines: &mut Vec<Line<'a>>) -> usize {
        let mut cut = 0;
        // A part of a whole read starts at an ordinary line of the whole tree.
        let starts_a_read = !(self.options.part_of_whole && self.tree.root == Some(start));
        let mut stack = vec![Pending {
            index: start,
            depth: 0,
            is_start: starts_a_read,
            presentational_name: None,
            parent_name: None,
            parent_interactive: false,
            parent_line: None,
            native_drop_down_value: None,
        }];
        while let Some(Pending {
            index,
            depth,
            is_start,
            presentational_name,
            parent_name,
            parent_interactive,
            parent_line,
            native_drop_down_value,
        }) = stack.pop()
        {
            let Some(node) = self.tree.node(index) else {
                continue;
            };
            // An overlay shown under the banner is not repeated in the page tree.
            if !is_start && self.overlays.contains(&index) {
                continue;
            }
            if self.options.filter == Filter::Visible && !self.subtree_visible[index as usize] {
                continue;
            }
            // The words of a label are already the name on its control's line.
            if node.repeats_label_of_control && !is_start {
                continue;
            }
            // A legend's text under its fieldset's group, a caption under its table, a link's
            // text under the link: the parent's line already printed those words as its name.
            if parent_name.is_some_and(|name| repeats_parent_name(node, name, self.tree)) {
                continue;
            }
            // Under a control or link with a printed name, a text run the name already holds
            // (`link "Download version 3.10.1"` around the word "Download") or an icon glyph
            // without a letter or a digit says nothing more, as under a role whose children are
            // presentational (below).
            if parent_interactive
                && node.role == AxRole::Text
                && parent_name.is_some_and(|name| {
                    contains_ignoring_case(name, &node.name)
                        || !node.name.chars().any(char::is_alphanumeric)
                })
            {
                continue;
            }
            // Inside a role whose children are presentational only what the agent can act on
            // is shown (a close button in a tab, a link in an option), without adding depth,
            // and text that the name does not hold: `<button aria-label="Cancel">Delete
            // all</button>` shows the words a sighted user reads, which the name hides. Icon
            // glyphs (`✎`, `⚑`, `♡`: text without a letter or a digit) say nothing the name
            // does not.
            let mut shown = !(is_start && skip_start)
                && self.shows(node)
                && presentational_name.is_none_or(|name| {
                    node.interactive
                        || (node.role == AxRole::Text
                            && !contains_ignoring_case(name, &node.name)
                            && node.name.chars().any(char::is_alphanumeric))
                });
            let children_presentational = presentational_name
                .or_else(|| has_presentational_children(node).then_some(node.name.as_str()));
            let native_drop_down_value = native_drop_down_value
                .or_else(|| is_native_drop_down(node).then(|| property_text(node, "value")));
            let mut merged_text = None;
            let mut printed_name = None;
            if shown {
                if depth >= self.max_depth {
                    cut += 1;
                    // The notice tells the agent to anchor on the cut node's parent: that line
                    // prints its reference even where the rule would leave it out.
                    if let Some(parent) = parent_line.and_then(|position| lines.get_mut(position)) {
                        if let Some(reference) = parent.unprinted_reference.take() {
                            parent.reference = Some(reference);
                        }
                        parent.zoom_container = false;
                    }
                    continue;
                }
                let mut line = self.line(
                    node,
                    depth,
                    is_start,
                    parent_interactive,
                    native_drop_down_value,
                );
                let children_shown =
                    children_presentational.is_none() && depth + 1 < self.max_depth;
                // A name is printed once: not again on a child of the line that printed it
                // (an image named like the link around it), and not on a line whose first
                // child prints it (a region labelled by its heading). The first line of a read
                // or of an open overlay keeps its name: it says what the agent is reading (a
                // dialog labelled by its heading).
                if line.name.is_some() {
                    if parent_name.is_some_and(|name| name == node.name) && !node.interactive {
                        line.name = None;
                    } else if !is_start && children_shown && self.first_child_prints_name(node) {
                        line.name = None;
                        line.name_left_to_first_child = true;
                    }
                }
                // A clickable named by its only text is named so at any depth: an action's
                // one-level read of its target (the `ref_changed` check) prints the same line
                // as the whole tree did.
                if children_shown
                    || (children_presentational.is_none()
                        && names_itself_from_its_only_text(node, &line))
                {
                    merged_text = self.first_text_child(node, &line);
                    if let Some(text) = merged_text {
                        let words = &self.tree.nodes[text as usize].name;
                        // A wrapper whose only words are its parent's name (`<time>` inside a
                        // link named by it) says nothing the parent's line did not.
                        if node.children.len() == 1
                            && line.is_bare()
                            && parent_name.is_some_and(|name| name == words)
                        {
                            continue;
                        }
                        line.name = Some(Cow::Borrowed(words.as_str()));
                    }
                }
                // A nameless clickable without content (a CSS-drawn icon) says what it is in
                // a hint, right after its reference and never as its name.
                if line.name.is_none() {
                    if let Some(hint) = &node.hint {
                        line.attributes.insert(0, ("hint", hint.clone()));
                    }
                }
                // An image inside a link or control that names it prints nothing its parent's
                // line does not: its name was the parent's, and the parent's reference covers it.
                if !is_start
                    && line.is_bare()
                    && parent_interactive
                    && node.children.is_empty()
                    && node.role == AxRole::Aria(Role::Image)
                {
                    continue;
                }
                if !is_start && line.is_bare() && self.is_lone_wrapper(node) {
                    // A list item, group or paragraph around one element prints only its role:
                    // its child takes its place (docs/protocol/reading.md, "What the text tree leaves out").
                    shown = false;
                } else {
                    printed_name = line
                        .name
                        .is_some()
                        .then_some(node.name.as_str())
                        .filter(|name| !name.is_empty());
                    lines.push(line);
                }
            }
            let child_depth = if shown { depth + 1 } else { depth };
            let own_line = if shown {
                Some(lines.len() - 1)
            } else {
                parent_line
            };
            for &child in node.children.iter().rev() {
                if Some(child) == merged_text {
                    continue;
                }
                stack.push(Pending {
                    index: child,
                    depth: child_depth,
                    is_start: false,
                    presentational_name: children_presentational,
                    parent_name: printed_name,
                    parent_interactive: node.interactive,
                    parent_line: own_line,
                    native_drop_down_value,
                });
            }
        }
        cut
    }

    /// Whether the first child of `node` is an element whose line prints the same name: a
    /// heading whose only content is a link, a region or an article labelled by its first
    /// heading. The child's line says the words, so the parent's line leaves them out (only for
    /// a node the agent cannot act on: an action's target keeps its name on its own line).
    fn first_child_prints_name(&self, node: &AxNode) -> bool {
        if node.interactive || node.name.is_empty() {
            return false;
        }
        let Some(child) = node
            .children
            .first()
            .and_then(|&index| self.tree.node(index).map(|child| (index, child)))
        else {
            return false;
        };
        let (index, child) = child;
        child.role != AxRole::Text
            && child.name == node.name
            && self.shows(child)
            && !self.overlays.contains(&index)
            && !omits_name_in_text(child, self.tree)
            && (self.options.filter != Filter::Visible || self.subtree_visible[index as usize])
    }

    /// The first child of a line that prints neither a name nor a reference, when that child is
    /// a run of text: the line shows the text in its name's place instead of a `text` line below
    /// it (`paragraph "Some words"` rather than `paragraph` and ` text "Some words"`), and the
    /// node's other children follow as usual, so reading order is kept. Lines with a reference
    /// keep their text apart, so that what an action calls its target's name stays the
    /// accessible name.
    ///
    /// A clickable without an accessible name (a `generic` kept for its click signal, which
    /// ARIA prohibits naming, or a clickable or collapsed list item) whose only content is one
    /// run of text prints that text as its name (`clickable "Doroteya" [ref_4]`, as Playwright
    /// prints the text of its `generic [cursor=pointer]`): there is no accessible name to keep
    /// apart from it.
    fn first_text_child(&self, node: &AxNode, line: &Line) -> Option<u32> {
        if !names_itself_from_its_only_text(node, line)
            && (line.name.is_some() || line.reference.is_some() || node.interactive)
        {
            return None;
        }
        let first = *node.children.first()?;
        let child = self.tree.node(first)?;
        (child.role == AxRole::Text
            && !child.name.is_empty()
            && !child.repeats_label_of_control
            && self.shows(child)
            && (self.options.filter != Filter::Visible || self.subtree_visible[first as usize]))
            .then_some(first)
    }

    /// Whether `node` wraps at most one element and says nothing of its own: a list item
    /// around a link, a group around a button, a paragraph around a link or around a label and
    /// its field (the label's words are the field's name, and are not printed), or a paragraph
    /// with nothing in it yet (a status line a script fills later). Only for roles that group
    /// and say nothing of their own; a heading, a cell or a row keeps its line.
    fn is_lone_wrapper(&self, node: &AxNode) -> bool {
        let AxRole::Aria(role) = node.role else {
            return false;
        };
        if !matches!(
            role,
            Role::ListItem | Role::Group | Role::Paragraph | Role::Generic | Role::None
        ) || node.interactive
        {
            return false;
        }
        // The words of a label are printed as its control's name, never as a line of their
        // own (the `repeats_label_of_control` rule of `render`): they are not content here.
        let mut content = node.children.iter().filter_map(|&index| {
            self.tree
                .node(index)
                .filter(|child| !child.repeats_label_of_control)
        });
        match (content.next(), content.next()) {
            (None, _) => true,
            (Some(only), None) => only.role != AxRole::Text,
            (Some(_), Some(_)) => false,
        }
    }

    fn shows(&self, node: &AxNode) -> bool {
        match self.options.filter {
            Filter::All => true,
            Filter::Visible => node.in_viewport,
            Filter::Interactive => node.interactive,
        }
    }

    fn line(
        &mut self,
        node: &'a AxNode,
        depth: usize,
        is_start: bool,
        parent_interactive: bool,
        native_drop_down_value: Option<&str>,
    ) -> Line<'a> {
        let name = (!node.name.is_empty() && !omits_name_in_text(node, self.tree))
            .then_some(Cow::Borrowed(node.name.as_str()));
        // Every shown element is numbered in the registry as before, printed or not, so that
        // numbering and the registry do not depend on which lines print their reference.
        let registered = (node.role != AxRole::Text).then(|| (self.reference)(node.dom_node));
        let printing = crate::printed_reference::prints_reference(
            node,
            is_start || self.conversation_root == Some(node.dom_node),
            parent_interactive,
            native_drop_down_value.is_some(),
        );
        let (reference, unprinted_reference) = match printing {
            ReferencePrinting::Never => (None, registered),
            _ => (registered, None),
        };
        let zoom_container = printing == ReferencePrinting::IfLargeContainer;
        let property = |key: &str| {
            node.properties
                .iter()
                .find(|(name, _)| *name == key)
                .map(|(_, value)| value.to_text())
        };
        let name_text = node.name.as_str();
        let value = property("value");
        let candidates = [
            ("href", property("url")),
            (
                "type",
                node.control_type
                    .clone()
                    .filter(|kind| !type_repeats_role(kind, node.role)),
            ),
            // A placeholder that is also the name (the name fell back on it, or says the same
            // words) repeats the name.
            (
                "placeholder",
                property("placeholder").filter(|text| text != name_text),
            ),
            ("value", value.clone()),
        ];
        let states = node
            .states
            .iter()
            .filter(|(key, state)| !state_repeats_line(key, state, value.as_deref(), node.role))
            // The selected option of a drop-down `<select>` is its select's `value`, printed on
            // the line above.
            .filter(|(key, state)| {
                !(*key == "selected"
                    && *state == crate::value::Value::Bool(true)
                    && native_drop_down_value.is_some_and(|value| value == node.name))
            })
            .map(|(key, state)| (*key, Some(state.to_text())));
        let mut attributes = Vec::new();
        for (key, text) in candidates.into_iter().chain(states) {
            // Empty values say nothing the line does not already say.
            if let Some(text) = text.filter(|text| !text.is_empty()) {
                attributes.push((key, text));
            }
        }
        let frame_id = if node.role == AxRole::Iframe {
            self.options
                .frame_ids
                .iter()
                .find(|(element, _)| *element == node.dom_node)
                .map(|(_, frame_id)| *frame_id)
        } else {
            None
        };
        Line {
            node: node.dom_node,
            indent: depth + self.options.depth_offset,
            // ARIA's `generic` says "no role": an element kept only because it can be clicked
            // says what it is for the agent instead (issue 30).
            role: if node.is_clickable_without_role() {
                CLICKABLE_ROLE
            } else {
                node.role.as_str()
            },
            name,
            reference,
            unprinted_reference,
            zoom_container,
            frame_id,
            attributes,
            closed_shadow_root: node.closed_shadow_root,
            collapsed: node.collapsed,
            name_left_to_first_child: false,
        }
    }
}

/// The role word of a clickable element without a role of its own
/// (`AxNode::is_clickable_without_role`; docs/protocol/reading.md, "Generic elements that keep their line").
pub const CLICKABLE_ROLE: &str = "clickable";

const OVERLAYS_BANNER: &str = "[open overlays]";

/// Whether a line without an accessible name takes the words of its only child, a run of text,
/// as its name (`Renderer::first_text_child`): a clickable `generic` (which ARIA prohibits
/// naming) or an interactive or collapsed item without a name.
fn names_itself_from_its_only_text(node: &AxNode, line: &Line) -> bool {
    (node.interactive || node.collapsed)
        && node.name.is_empty()
        && node.children.len() == 1
        && line.name.is_none()
}

/// Rows, cells and list items named from their own content would repeat it before their
/// children; the text tree leaves such names out when the node has element children.
fn omits_name_in_text(node: &AxNode, tree: &AxTree) -> bool {
    let AxRole::Aria(role) = node.role else {
        return false;
    };
    matches!(
        role,
        Role::ListItem | Role::Row | Role::Cell | Role::GridCell | Role::TreeItem | Role::Option
    ) && node.children.iter().any(|&child| {
        tree.node(child)
            .is_some_and(|child| child.role != AxRole::Text)
    })
}

/// Whether a node only repeats the name its parent's line printed: a text run with exactly those
/// words, or a caption whose only content is that text (HTML-AAM names a table from its
/// caption and a fieldset from its legend, so the name already holds the words).
fn repeats_parent_name(node: &AxNode, parent_name: &str, tree: &AxTree) -> bool {
    match node.role {
        AxRole::Text => node.name == parent_name,
        AxRole::Aria(Role::Caption) => {
            !node.interactive
                && matches!(node.children.as_slice(), [only] if tree
                    .node(*only)
                    .is_some_and(|child| child.role == AxRole::Text && child.name == parent_name))
        }
        _ => false,
    }
}

/// Whether `text` occurs in `name`, letters compared without case (a name from `aria-label` may
/// differ from the shown text only by case, or by CSS `text-transform`).
fn contains_ignoring_case(name: &str, text: &str) -> bool {
    name.to_lowercase().contains(&text.to_lowercase())
}

/// A drop-down `<select>` (HTML-AAM: a `select` without `multiple` and with a display size of 1
/// is a combobox; its options are drawn by the browser, not the page). An author's
/// `role="combobox"` and an `<input list>` (which has an input type) are not.
fn is_native_drop_down(node: &AxNode) -> bool {
    node.role == AxRole::Aria(Role::Combobox) && !node.author_role && node.control_type.is_none()
}

/// WAI-ARIA 1.2 roles with "Children Presentational: True": their descendants are not exposed
/// as separate objects (an `<svg>` inside a button, the text of a tab), so the text tree does not
/// print them. Interactive descendants, which the spec does not foresee but pages build (a close
/// button inside a tab, a link inside an option), keep their lines so that each has a ref.
fn has_presentational_children(node: &AxNode) -> bool {
    let AxRole::Aria(role) = node.role else {
        return false;
    };
    matches!(
        role,
        Role::Button
            | Role::Checkbox
            | Role::Image
            | Role::Meter
            | Role::Option
            | Role::ProgressBar
            | Role::Radio
            | Role::ScrollBar
            | Role::Separator
            | Role::Slider
            | Role::Switch
            | Role::Tab
            | Role::MenuItemCheckbox
            | Role::MenuItemRadio
    )
}

/// Whether an input's `type` only says what the role already says, in the same word: `checkbox`
/// on a checkbox, `radio` on a radio button (HTML-AAM maps those input types to those roles),
/// `button` on a button (a `<button type="button">` or `<input type="button">`: a plain button,
/// which is what the role says; submit and reset buttons keep their type, it says what activating
/// them does to their form), and the types whose role HTML-AAM names after them in other words:
/// `text` on a textbox (the default type of `<input>`, which is what the role says), `search` on
/// a searchbox, `number` on a spinbutton, `range` on a slider. The field keeps its place in the
/// line format (`type="..."` after the reference and href) for the types that say something the
/// role does not: email, password, tel, url, date, submit or reset.
fn type_repeats_role(kind: &str, role: AxRole) -> bool {
    let AxRole::Aria(role) = role else {
        return false;
    };
    matches!(
        (kind, role),
        ("checkbox", Role::Checkbox)
            | ("radio", Role::Radio)
            | ("button", Role::Button)
            | ("text", Role::TextBox)
            // An editable combobox is a text input by definition (HTML-AAM maps `<input
            // type=text list>` to it; react-select and MUI give their inputs the role).
            | ("text", Role::Combobox)
            // A `<button type="button">` given a menu item, tab or option role: the type only
            // says that it submits no form, which those roles never do.
            | (
                "button",
                Role::MenuItem
                    | Role::MenuItemCheckbox
                    | Role::MenuItemRadio
                    | Role::Tab
                    | Role::Option
            )
            | ("search", Role::SearchBox)
            | ("number", Role::SpinButton)
            | ("range", Role::Slider)
    )
}

/// States the text line leaves out because another part of the line says the same: `valueNow`
/// when `value` is that number (a range or number input), `selected="false"` (an option that is
/// not selected is the normal case; the selected one still says `selected="true"`), and
/// `checked="false"` on the roles that are always checked or not (checkbox, radio, switch and
/// their menu items: ARIA 1.2 gives them a checked state by default, false, so a line without
/// `checked` is unchecked; `checked="true"` and `checked="mixed"` stay), and `pressed="false"` and
/// `expanded="false"`, and `disabled="false"` (the default of every element): as in Playwright's snapshot, a toggle or a disclosure says its state when
/// it is on or open (`pressed="true"`, `expanded="true"`), so that a click that presses or opens
/// it still shows as a change on its line. The structured snapshot keeps every typed state,
/// explicit false included.
fn state_repeats_line(
    key: &str,
    state: &crate::value::Value,
    value: Option<&str>,
    role: AxRole,
) -> bool {
    use crate::value::Value;
    match (key, state) {
        ("valueNow", Value::Number(number)) => value
            .and_then(|text| text.trim().parse::<f64>().ok())
            .is_some_and(|parsed| parsed == *number),
        // `disabled="false"` (an explicit `aria-disabled="false"`, as react-select writes on
        // every option) is the state every element has by default.
        ("selected" | "pressed" | "expanded" | "disabled", Value::Bool(false)) => true,
        ("checked", Value::Bool(false)) => matches!(
            role,
            AxRole::Aria(
                Role::Checkbox
                    | Role::Radio
                    | Role::Switch
                    | Role::MenuItemCheckbox
                    | Role::MenuItemRadio
            )
        ),
        _ => false,
    }
}

/// For each node, whether it or a descendant satisfies `predicate`. Children always come after
/// their parent in the arena, so one backward pass suffices.
fn subtree_flags(tree: &AxTree, predicate: impl Fn(&AxNode) -> bool) -> Vec<bool> {
    let mut flags: Vec<bool> = tree.nodes.iter().map(&predicate).collect();
    for index in (0..tree.nodes.len()).rev() {
        if flags[index] {
            continue;
        }
        flags[index] = tree.nodes[index]
            .children
            .iter()
            .any(|&child| flags.get(child as usize).copied().unwrap_or(false));
    }
    flags
}

/// The outermost open overlays under `root`, in tree order: dialogs, popup listboxes and menus
/// (author-made ones; a native `<select size>` listbox is part of its page), and comboboxes with
/// `aria-expanded="true"`.
fn find_overlays(tree: &AxTree, root: u32) -> Vec<u32> {
    let mut overlays = Vec::new();
    let mut stack = vec![root];
    while let Some(index) = stack.pop() {
        let Some(node) = tree.node(index) else {
            continue;
        };
        if index != root && is_overlay(node) {
            overlays.push(index);
            continue;
        }
        stack.extend(node.children.iter().rev().copied());
    }
    overlays
}

fn is_overlay(node: &AxNode) -> bool {
    let AxRole::Aria(role) = node.role else {
        return false;
    };
    let expanded = node
        .states
        .iter()
        .any(|(key, value)| *key == "expanded" && *value == crate::value::Value::Bool(true));
    match role {
        Role::Dialog | Role::AlertDialog => true,
        Role::ListBox | Role::Menu => node.author_role,
        Role::Combobox => expanded,
        _ => false,
    }
}
