//! Which nodes are excluded from the accessibility tree.
//!
//! A node is hidden when it, or an ancestor in the accessibility tree (the flat tree with
//! aria-owns applied), is not rendered or is hidden from assistive technologies:
//! - `display: none` (this includes the `hidden` attribute through the user-agent style sheet,
//!   which the `Dom` reports as computed style);
//! - `visibility: hidden | collapse` on the node itself (visibility inherits, and a descendant may
//!   set it back to `visible`, so it is read per element, not per ancestor);
//! - `aria-hidden="true"` (WAI-ARIA 1.2: excluded with its subtree);
//! - the `inert` attribute on it or an ancestor (HTML: inert subtrees are hidden from AT);
//! - the content of a closed `<details>` other than its first `<summary>`;
//! - the content of an element with `content-visibility: hidden`;
//! - nodes outside the flat tree (light children of a shadow host that no slot takes).
//!
//! Off-screen content is not hidden: it stays in the tree, so that the structured snapshot and
//! the `all` filter of the text tree show the whole page (the `visible` filter is the text
//! tree's own choice, in `text.rs`).
//!
//! Elements that are never rendered (`<head>`, `<script>`, `<style>`, `<template>`, ...) have
//! `display: none` in the user-agent style sheet, so a live DOM reports them through `style()`;
//! the in-memory DOM does the same.

use crate::context::Context;
use crate::dom::{Display, Dom, Namespace, NodeId, NodeKind, Visibility};

/// Computes (and caches, for the node and the ancestors it had to look at) whether `node` is
/// hidden. Iterative: walks up to the nearest ancestor with a cached answer, then back down.
pub(crate) fn compute_hidden<D: Dom + ?Sized>(context: &Context<'_, D>, node: NodeId) -> bool {
    // Owned elements inherit from their owner, not from their DOM ancestors: an element that
    // aria-owns takes out of an aria-hidden subtree is shown (wpt/accname/aria-owns.html).
    let flat = context.flat_tree();
    if !flat.contains(node) {
        context.cache_hidden(node, true, true);
        return true;
    }
    // The node's uncached ancestors, up to the first ancestor whose answer is known (or the
    // root). A tree-order walk has its parent's answer already, so this stays empty (and
    // unallocated) for almost every node.
    let mut uncached_ancestors = Vec::new();
    let mut subtree_hidden = false;
    let mut current = node;
    while let Some(parent) = context.ax_parent(current) {
        if let Some(parent_subtree_hidden) = context.cached_subtree_hidden(parent) {
            subtree_hidden = parent_subtree_hidden;
            break;
        }
        uncached_ancestors.push(parent);
        current = parent;
    }
    // Walk back down from the topmost uncached node, caching each answer on the way.
    let mut hidden = subtree_hidden;
    for step in uncached_ancestors.into_iter().rev().chain([node]) {
        if !subtree_hidden {
            subtree_hidden = hides_subtree(context, step, context.ax_parent(step));
        }
        let self_hidden = subtree_hidden || hides_only_itself(context, step);
        context.cache_hidden(step, subtree_hidden, self_hidden);
        hidden = self_hidden;
    }
    hidden
}

/// Whether `node` hides itself and its whole subtree.
fn hides_subtree<D: Dom + ?Sized>(
    context: &Context<'_, D>,
    node: NodeId,
    parent: Option<NodeId>,
) -> bool {
    let dom = context.dom();
    if let Some(parent) = parent {
        if closed_details_hides_child(dom, parent, node) {
            return true;
        }
        if dom.node_kind(parent) == NodeKind::Element && dom.style(parent).content_visibility_hidden
        {
            return true;
        }
    }
    if dom.node_kind(node) != NodeKind::Element {
        return false;
    }
    if dom.style(node).display == Display::None {
        return true;
    }
    if dom.attribute(node, "inert").is_some() {
        return true;
    }
    if dom
        .attribute(node, "aria-hidden")
        .is_some_and(|value| value.trim().eq_ignore_ascii_case("true"))
    {
        return true;
    }
    false
}

/// Whether `node` is hidden by its own computed visibility (which its children may override).
fn hides_only_itself<D: Dom + ?Sized>(context: &Context<'_, D>, node: NodeId) -> bool {
    let dom = context.dom();
    let element = match dom.node_kind(node) {
        NodeKind::Element => node,
        // A text node has the visibility of its parent element.
        NodeKind::Text => match context.ax_parent(node) {
            Some(parent) if dom.node_kind(parent) == NodeKind::Element => parent,
            _ => return false,
        },
        _ => return false,
    };
    dom.style(element).visibility != Visibility::Visible
}

/// HTML: a closed `<details>` renders only its first `<summary>` child.
fn closed_details_hides_child<D: Dom + ?Sized>(dom: &D, parent: NodeId, child: NodeId) -> bool {
    if dom.node_kind(parent) != NodeKind::Element
        || dom.namespace(parent) != Namespace::Html
        || dom.local_name(parent) != "details"
        || dom.attribute(parent, "open").is_some()
    {
        return false;
    }
    let first_summary = dom.children(parent).iter().copied().find(|&candidate| {
        dom.node_kind(candidate) == NodeKind::Element
            && dom.namespace(candidate) == Namespace::Html
            && dom.local_name(candidate) == "summary"
    });
    first_summary != Some(child)
}
