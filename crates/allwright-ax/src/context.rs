//! The per-call context: one DOM, the composed tree computed once, and the caches of one
//! snapshot. It is dropped when the call ends, so nothing leaks between calls.

use rustc_hash::FxHashMap as HashMap;
use std::borrow::Cow;
use std::cell::{Cell, OnceCell, RefCell};

use crate::aria::Role;
use crate::composed::{FlatTree, Ownership};
use crate::diagnostic::Diagnostic;
use crate::dom::{Dom, NodeId, NodeKind};
use crate::name::AccessibleName;

/// One snapshot's view of a DOM.
///
/// The entry points below are `#[inline(never)]`: inlined into the tree builder, they made one
/// giant function that the wasm2js build (strict-CSP pages) turns into JavaScript too large for
/// the JIT to optimise; kept apart, each stays small and fast.
pub struct Context<'dom, D: Dom + ?Sized> {
    dom: &'dom D,
    flat: FlatTree,
    ownership: Ownership,
    /// 0 = not computed yet, otherwise `Role as u8 + 1`.
    role_cache: Vec<Cell<u8>>,
    /// 0 = not computed yet, 1 = shown, 2 = hidden with its subtree, 3 = hidden by its own
    /// visibility only (a `visibility: visible` descendant shows again).
    hidden_cache: Vec<Cell<u8>>,
    name_cache: RefCell<Vec<Option<AccessibleName>>>,
    diagnostics: RefCell<Vec<Diagnostic>>,
    /// Role computations under way (see `role::RolesInProgress`).
    roles_in_progress: crate::role::RolesInProgress,
    /// Labeled control -> its `<label>` elements, built on first use.
    label_index: OnceCell<HashMap<NodeId, Vec<NodeId>>>,
}

impl<'dom, D: Dom + ?Sized> Context<'dom, D> {
    /// Computes the composed (flat) tree and the aria-owns relationships of the whole document.
    pub fn new(dom: &'dom D) -> Self {
        let mut diagnostics = Vec::new();
        let flat = FlatTree::build(dom);
        let ownership = Ownership::resolve(dom, &flat, &mut diagnostics);
        let node_count = dom.node_count();
        Context {
            dom,
            flat,
            ownership,
            role_cache: (0..node_count).map(|_| Cell::new(0)).collect(),
            hidden_cache: (0..node_count).map(|_| Cell::new(0)).collect(),
            name_cache: RefCell::new(vec![None; node_count]),
            diagnostics: RefCell::new(diagnostics),
            label_index: OnceCell::new(),
            roles_in_progress: Default::default(),
        }
    }

    pub fn dom(&self) -> &'dom D {
        self.dom
    }

    /// The composed tree: flat-tree parents and children.
    pub fn flat_tree(&self) -> &FlatTree {
        &self.flat
    }

    /// aria-owns relationships after cycle and duplicate removal.
    pub fn ownership(&self) -> &Ownership {
        &self.ownership
    }

    /// The children of a node in the accessibility tree: its flat-tree children that no other
    /// element owns, then the elements it owns through aria-owns (WAI-ARIA 1.2: owned elements
    /// follow the DOM children). Borrowed from the flat tree when the document has no aria-owns,
    /// which spares the tree walk and name computations an allocation per element
    /// (docs/performance/warm-read.md, "The core's allocations").
    #[inline(never)]
    pub fn ax_children(&self, node: NodeId) -> Cow<'_, [NodeId]> {
        if self.ownership.is_empty() {
            return Cow::Borrowed(self.flat.children(node));
        }
        let mut children: Vec<NodeId> = self
            .flat
            .children(node)
            .iter()
            .copied()
            .filter(|&child| self.ownership.owner_of(child).is_none())
            .collect();
        children.extend_from_slice(self.ownership.owned_by(node));
        Cow::Owned(children)
    }

    /// The parent of a node in the accessibility tree: its aria-owns owner, else its flat-tree
    /// parent.
    pub fn ax_parent(&self, node: NodeId) -> Option<NodeId> {
        self.ownership
            .owner_of(node)
            .or_else(|| self.flat.parent(node))
    }

    /// Whether the node is an element.
    pub fn is_element(&self, node: NodeId) -> bool {
        self.in_range(node) && self.dom.node_kind(node) == NodeKind::Element
    }

    /// Whether the id belongs to this DOM (ids from elsewhere get empty answers).
    pub fn in_range(&self, node: NodeId) -> bool {
        node.index() < self.dom.node_count()
    }

    /// The element's computed role (see `role::compute_role`), cached.
    #[inline(never)]
    pub fn role(&self, element: NodeId) -> Role {
        if !self.in_range(element) {
            return Role::None;
        }
        let cell = &self.role_cache[element.index()];
        if let Some(role) = cached_role(cell.get()) {
            return role;
        }
        let role = crate::role::compute_role(self, element);
        cell.set(role as u8 + 1);
        role
    }

    /// Whether the node is excluded from the accessibility tree (see `hidden`), cached.
    #[inline(never)]
    /// Whether the element can take focus (`role::is_focusable`), for the tree's nodes.
    pub fn is_focusable(&self, element: NodeId) -> bool {
        crate::role::is_focusable(self.dom, element)
    }

    pub fn is_hidden(&self, node: NodeId) -> bool {
        if !self.in_range(node) {
            return true;
        }
        match self.hidden_cache[node.index()].get() {
            1 => false,
            2 | 3 => true,
            _ => crate::hidden::compute_hidden(self, node),
        }
    }

    /// Whether the node hides its whole subtree (not only itself through `visibility`).
    pub fn is_subtree_hidden(&self, node: NodeId) -> bool {
        if !self.is_hidden(node) {
            return false;
        }
        self.cached_subtree_hidden(node).unwrap_or(true)
    }

    /// Records the hidden flags of a node (used by `hidden::compute_hidden`).
    pub(crate) fn cache_hidden(&self, node: NodeId, subtree_hidden: bool, self_hidden: bool) {
        let code = match (subtree_hidden, self_hidden) {
            (true, _) => 2,
            (false, true) => 3,
            (false, false) => 1,
        };
        self.hidden_cache[node.index()].set(code);
    }

    /// Whether the node is known to hide its whole subtree (None: not computed yet).
    pub(crate) fn cached_subtree_hidden(&self, node: NodeId) -> Option<bool> {
        match self.hidden_cache[node.index()].get() {
            1 | 3 => Some(false),
            2 => Some(true),
            _ => None,
        }
    }

    /// The element's accessible name (accname 1.2, then the marked fallbacks of `name.rs`),
    /// cached.
    #[inline(never)]
    pub fn name(&self, element: NodeId) -> AccessibleName {
        if !self.in_range(element) {
            return AccessibleName::default();
        }
        if let Some(name) = &self.name_cache.borrow()[element.index()] {
            return name.clone();
        }
        let name = crate::name::compute_name(self, element);
        self.name_cache.borrow_mut()[element.index()] = Some(name.clone());
        name
    }

    /// The element's name for its node in the tree, moved out of the cache instead of copied:
    /// the tree's node is the last to ask for it, and a later question computes it again
    /// (docs/performance/warm-read.md, "The core's allocations").
    #[inline(never)]
    pub fn take_name(&self, element: NodeId) -> AccessibleName {
        if !self.in_range(element) {
            return AccessibleName::default();
        }
        let cached = self.name_cache.borrow_mut()[element.index()].take();
        cached.unwrap_or_else(|| crate::name::compute_name(self, element))
    }

    /// The element's accessible description (accname 1.2 "Accessible Description").
    #[inline(never)]
    pub fn description(&self, element: NodeId) -> String {
        if !self.in_range(element) {
            return String::new();
        }
        crate::name::compute_description(self, element)
    }

    /// The role computations under way in this context.
    pub(crate) fn roles_in_progress(&self) -> &crate::role::RolesInProgress {
        &self.roles_in_progress
    }

    /// The `<label>` elements of a labeled control (HTML `control.labels`), in tree order.
    pub fn labels_of(&self, control: NodeId) -> &[NodeId] {
        self.label_index
            .get_or_init(|| crate::name::build_label_index(self.dom, &self.flat))
            .get(&control)
            .map(Vec::as_slice)
            .unwrap_or(&[])
    }

    /// Notes something worth telling the caller; never fatal.
    pub fn diagnose(&self, node: Option<NodeId>, message: impl Into<String>) {
        self.diagnostics.borrow_mut().push(Diagnostic {
            node,
            message: message.into(),
        });
    }

    /// Everything noticed so far.
    pub fn diagnostics(&self) -> Vec<Diagnostic> {
        self.diagnostics.borrow().clone()
    }
}

fn cached_role(code: u8) -> Option<Role> {
    if code == 0 {
        return None;
    }
    crate::aria::Role::from_index(code - 1)
}
