//! allwright-ax: the pure-Rust accessibility tree of allwright.
//!
//! The crate turns a DOM, seen through the [`Dom`] trait, into an accessibility tree: roles
//! (WAI-ARIA 1.2 and HTML-AAM), accessible names and descriptions (accname 1.2), states and
//! properties, with hidden and inert content excluded and the composed tree (open shadow roots,
//! slots, aria-owns) followed. It then writes that tree as the agent's text tree (the result of
//! the `get_accessibility_tree` tool, docs/protocol.md; its line format is described in
//! [`text`]) or as the version-1 structured snapshot in JSON or YAML (the
//! `accessibility_snapshot` tool; its JSON Schema is `schema/snapshot-v1.schema.json`).
//!
//! What this crate does not do: no I/O, no browser APIs (no web-sys, js-sys or wasm-bindgen in
//! its dependency tree), no panics on any input, no recursion proportional to the DOM's depth.

pub mod aria;
pub mod composed;
mod context;
pub mod conversation;
pub mod css;
mod diagnostic;
pub mod dom;
pub mod hidden;
pub mod html;
pub mod name;
mod printed_reference;
pub mod reads;
pub mod role;
pub mod snapshot;
pub mod state;
pub mod text;
pub mod tree;
pub mod tree_diff;
pub mod value;

#[cfg(feature = "memdom")]
pub mod memdom;

pub use aria::Role;
pub use context::Context;
pub use diagnostic::Diagnostic;
pub use dom::{
    Display, Dom, Namespace, NodeId, NodeKind, PseudoElement, Rect, Style, TextTransform,
    Visibility,
};
pub use name::{AccessibleName, NameSource};

pub use snapshot::{write_snapshot, Format, SnapshotDocument};
pub use text::{
    ContinuationArgs, Filter, PrintedRef, TextTree, TextTreeError, TextTreeOptions, TreeLine,
};
pub use tree::{build_tree, AxNode, AxRole, AxTree, BuildOptions};
pub use value::Value;

/// `get_accessibility_tree(filter, maxDepth, maxChars, ref_id, page)` (docs/protocol.md): builds
/// the tree of the document (or of `anchor`'s subtree) and renders the requested page.
/// `reference` gives each shown element its `ref_N` (the glue owns that registry).
pub fn generate_accessibility_tree<D: Dom + ?Sized>(
    dom: &D,
    anchor: Option<NodeId>,
    options: &TextTreeOptions,
    reference: &mut dyn FnMut(NodeId) -> String,
) -> Result<TextTree, TextTreeError> {
    let context = Context::new(dom);
    let tree = build_tree(
        &context,
        BuildOptions {
            anchor,
            mark_closed_shadow_hosts: true,
        },
    );
    let mut read_facts = conversation::read_facts(&tree);
    if options.part_of_whole
        && (read_facts.conversation_root.is_some()
            || anchor.is_some_and(|anchor| repeats_an_ancestors_name(&context, &tree, anchor)))
    {
        return Err(TextTreeError::PartNotAlone);
    }
    let mut text_tree =
        text::render_text_tree(&tree, options, read_facts.conversation_root, reference)?;
    // The conversation root is a shown element, so the render above already numbered it; asking
    // again returns the same reference (and numbers it when a filter left its line out).
    read_facts.conversation_root_ref = read_facts.conversation_root.map(&mut *reference);
    text_tree.read_facts = read_facts;
    // Only the printed references are asked, so the rule runs for one page's elements at most.
    for printed in &mut text_tree.refs {
        printed.focusable = role::is_focusable(dom, printed.node);
    }
    Ok(text_tree)
}

/// Whether the first line of a part read alone could print differently in the whole tree
/// because of a name above it: a line leaves out a name its parent's line printed, and a wrapper
/// whose only words are that name prints nothing (text.rs, `render`). The part's own name and
/// the words of its text children are compared with the name of every ancestor, which is more
/// than the whole tree compares (its nearest printed ancestor only): a part refused for a name
/// two levels up costs one whole read, and a part read wrong would leave the agent's tree wrong.
fn repeats_an_ancestors_name<D: Dom + ?Sized>(
    context: &Context<'_, D>,
    tree: &AxTree,
    anchor: NodeId,
) -> bool {
    let Some(start) = tree.root.and_then(|root| tree.node(root)) else {
        return false;
    };
    let mut words: Vec<&str> = start
        .children
        .iter()
        .filter_map(|&child| tree.node(child))
        .filter(|child| child.role == AxRole::Text)
        .map(|child| child.name.as_str())
        .collect();
    words.push(start.name.as_str());
    words.retain(|words| !words.is_empty());
    if words.is_empty() {
        return false;
    }
    let mut ancestor = context.ax_parent(anchor);
    while let Some(element) = ancestor {
        if context.is_element(element) {
            let name = context.name(element);
            if words.contains(&name.text.as_str()) {
                return true;
            }
        }
        ancestor = context.ax_parent(element);
    }
    false
}

/// The accessibility tree of a whole document, for the structured snapshot, with what the
/// walk noticed on the way.
pub fn snapshot_tree<D: Dom + ?Sized>(dom: &D) -> (AxTree, Vec<Diagnostic>) {
    let context = Context::new(dom);
    let tree = build_tree(&context, BuildOptions::default());
    (tree, context.diagnostics())
}
