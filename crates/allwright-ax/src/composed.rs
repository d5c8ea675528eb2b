//! The composed tree: open shadow roots, slots with their assigned or fallback content, and
//! aria-owns, computed once per context by iterative walks (no recursion, so a 100,000-deep page
//! is fine).

use rustc_hash::FxHashMap as HashMap;

use crate::diagnostic::Diagnostic;
use crate::dom::{Display, Dom, Namespace, NodeId, NodeKind, Visibility};

const NO_NODE: u32 = u32::MAX;

/// The flat tree of the DOM standard ("shadow-including" with slots resolved): each element's
/// open shadow root replaces its light children, a slot's assigned nodes replace its fallback
/// children. Only elements and text nodes appear. Light children of a shadow host that no slot
/// takes are not in the flat tree (they are not rendered).
pub struct FlatTree {
    parent: Vec<u32>,
    children_start: Vec<u32>,
    children_count: Vec<u32>,
    children: Vec<NodeId>,
    /// Nodes in flat-tree pre-order (document order of the composed tree).
    preorder: Vec<NodeId>,
    /// Position of each node in `preorder`, or NO_NODE when not in the flat tree.
    order: Vec<u32>,
}

impl FlatTree {
    pub fn build<D: Dom + ?Sized>(dom: &D) -> FlatTree {
        let node_count = dom.node_count();
        let mut tree = FlatTree {
            parent: vec![NO_NODE; node_count],
            children_start: vec![0; node_count],
            children_count: vec![0; node_count],
            children: Vec::with_capacity(node_count),
            preorder: Vec::with_capacity(node_count),
            order: vec![NO_NODE; node_count],
        };
        let document = dom.document();
        if document.index() >= node_count {
            return tree;
        }
        let mut visited = vec![false; node_count];
        visited[document.index()] = true;
        let mut stack = vec![document];
        let mut composed_children = Vec::new();
        while let Some(node) = stack.pop() {
            tree.order[node.index()] = tree.preorder.len() as u32;
            tree.preorder.push(node);
            composed_children.clear();
            collect_composed_children(dom, node, &mut composed_children);
            let start = tree.children.len();
            for &child in &composed_children {
                // A node reached twice (a buggy assignment, a node slotted into two slots) keeps
                // its first place; the walk stays finite and every node has one parent.
                if child.index() >= node_count || visited[child.index()] {
                    continue;
                }
                if !matches!(dom.node_kind(child), NodeKind::Element | NodeKind::Text) {
                    continue;
                }
                visited[child.index()] = true;
                tree.parent[child.index()] = node.0;
                tree.children.push(child);
            }
            tree.children_start[node.index()] = start as u32;
            tree.children_count[node.index()] = (tree.children.len() - start) as u32;
            // Push in reverse so that the first child is walked first.
            stack.extend(tree.children[start..].iter().rev().copied());
        }
        tree
    }

    /// The flat-tree parent (a slotted node's parent is its slot; a shadow root's top-level
    /// children have the host as parent).
    pub fn parent(&self, node: NodeId) -> Option<NodeId> {
        match self.parent.get(node.index()) {
            Some(&parent) if parent != NO_NODE => Some(NodeId(parent)),
            _ => None,
        }
    }

    /// The flat-tree children, in order.
    pub fn children(&self, node: NodeId) -> &[NodeId] {
        let Some(&start) = self.children_start.get(node.index()) else {
            return &[];
        };
        let count = self.children_count[node.index()];
        &self.children[start as usize..(start + count) as usize]
    }

    /// Whether the node is in the flat tree at all (reachable from the document).
    pub fn contains(&self, node: NodeId) -> bool {
        self.order
            .get(node.index())
            .is_some_and(|&order| order != NO_NODE)
    }

    /// Position in flat-tree pre-order; nodes outside the flat tree sort last.
    pub fn position(&self, node: NodeId) -> u32 {
        self.order.get(node.index()).copied().unwrap_or(NO_NODE)
    }

    /// Every node of the flat tree, in pre-order.
    pub fn preorder(&self) -> &[NodeId] {
        &self.preorder
    }
}

/// Appends the composed children of `node` (before the flat-tree filter).
fn collect_composed_children<D: Dom + ?Sized>(dom: &D, node: NodeId, out: &mut Vec<NodeId>) {
    if dom.node_kind(node) == NodeKind::Element {
        if let Some(shadow_root) = dom.shadow_root(node) {
            out.extend_from_slice(dom.children(shadow_root));
            return;
        }
        if is_slot_in_shadow_tree(dom, node) {
            let assigned = dom.assigned_nodes(node);
            if !assigned.is_empty() {
                out.extend(assigned);
                return;
            }
        }
    }
    out.extend_from_slice(dom.children(node));
}

/// Whether `node` is an HTML `<slot>` inside a shadow tree (a slot in the light DOM is an
/// ordinary element).
fn is_slot_in_shadow_tree<D: Dom + ?Sized>(dom: &D, node: NodeId) -> bool {
    dom.namespace(node) == Namespace::Html
        && dom.local_name(node) == "slot"
        && dom.node_kind(tree_root(dom, node)) == NodeKind::ShadowRoot
}

/// The root of the light tree that contains `node`: the document, a shadow root, or the topmost
/// ancestor of a detached subtree.
pub fn tree_root<D: Dom + ?Sized>(dom: &D, node: NodeId) -> NodeId {
    let mut current = node;
    // The step bound guards against an implementation whose parent links form a cycle.
    for _ in 0..=dom.node_count() {
        match dom.parent(current) {
            Some(parent) => current = parent,
            None => return current,
        }
    }
    current
}

/// The DOM standard's "find slottables" for named slot assignment: the host's light children
/// whose slot name (the `slot` attribute of an element, "" for text) equals the slot's name,
/// when this slot is the first slot of that name in the shadow tree.
pub fn find_slottables<D: Dom + ?Sized>(dom: &D, slot: NodeId) -> Vec<NodeId> {
    let root = tree_root(dom, slot);
    let Some(host) = dom.shadow_host(root) else {
        return Vec::new();
    };
    let slot_name = dom.attribute(slot, "name").unwrap_or("");
    if first_slot_named(dom, root, slot_name) != Some(slot) {
        return Vec::new();
    }
    dom.children(host)
        .iter()
        .copied()
        .filter(|&child| match dom.node_kind(child) {
            NodeKind::Element => dom.attribute(child, "slot").unwrap_or("") == slot_name,
            NodeKind::Text => slot_name.is_empty(),
            _ => false,
        })
        .collect()
}

/// The first `<slot>` in tree order within the shadow tree `root` with this name.
fn first_slot_named<D: Dom + ?Sized>(dom: &D, root: NodeId, name: &str) -> Option<NodeId> {
    let mut stack: Vec<NodeId> = dom.children(root).iter().rev().copied().collect();
    while let Some(node) = stack.pop() {
        if dom.node_kind(node) != NodeKind::Element {
            continue;
        }
        if dom.namespace(node) == Namespace::Html
            && dom.local_name(node) == "slot"
            && dom.attribute(node, "name").unwrap_or("") == name
        {
            return Some(node);
        }
        stack.extend(dom.children(node).iter().rev().copied());
    }
    None
}

/// Which nodes the DOM alone excludes, before ownership moves anything: computed in one pass
/// over the flat tree, for the aria-owns rules.
struct DomExclusion {
    /// Not rendered: `display: none` on the node or an ancestor.
    not_rendered: Vec<bool>,
    /// Excluded from the accessibility tree: not rendered, `aria-hidden="true"` or `inert` on
    /// the node or an ancestor.
    excluded: Vec<bool>,
}

impl DomExclusion {
    fn compute<D: Dom + ?Sized>(dom: &D, flat: &FlatTree) -> DomExclusion {
        let count = dom.node_count();
        let mut exclusion = DomExclusion {
            not_rendered: vec![false; count],
            excluded: vec![false; count],
        };
        for &node in flat.preorder() {
            let (parent_not_rendered, parent_excluded) =
                flat.parent(node).map_or((false, false), |parent| {
                    (
                        exclusion.not_rendered[parent.index()],
                        exclusion.excluded[parent.index()],
                    )
                });
            let element = dom.node_kind(node) == NodeKind::Element;
            let not_rendered =
                parent_not_rendered || (element && dom.style(node).display == Display::None);
            let excluded = parent_excluded
                || not_rendered
                || (element
                    && (dom.attribute(node, "inert").is_some()
                        || dom
                            .attribute(node, "aria-hidden")
                            .is_some_and(|value| value.trim().eq_ignore_ascii_case("true"))));
            exclusion.not_rendered[node.index()] = not_rendered;
            exclusion.excluded[node.index()] = excluded;
        }
        exclusion
    }

    fn excluded(&self, node: NodeId) -> bool {
        self.excluded.get(node.index()).copied().unwrap_or(true)
    }

    fn hidden_from_all_users<D: Dom + ?Sized>(&self, dom: &D, node: NodeId) -> bool {
        self.not_rendered.get(node.index()).copied().unwrap_or(true)
            || dom.style(node).visibility != Visibility::Visible
    }
}

/// The resolved aria-owns relationships.
///
/// WAI-ARIA 1.2 (aria-owns): an element is owned by at most one owner, and ownership must not
/// form a cycle. We process owners in flat-tree order and keep, for each owned element, the
/// first owner that can take it without making it its own ancestor, as Chrome does.
#[derive(Default)]
pub struct Ownership {
    owner_of: HashMap<NodeId, NodeId>,
    owned_by: HashMap<NodeId, Vec<NodeId>>,
}

/// How many parent steps all cycle checks of one document may take together. A page that needs
/// more (a very deep tree with many aria-owns) gets its remaining ownerships ignored, with a
/// diagnostic, rather than a quadratic walk.
const OWNERSHIP_STEP_BUDGET: usize = 4_000_000;

impl Ownership {
    pub fn resolve<D: Dom + ?Sized>(
        dom: &D,
        flat: &FlatTree,
        diagnostics: &mut Vec<Diagnostic>,
    ) -> Ownership {
        let mut ownership = Ownership::default();
        let owners: Vec<NodeId> = flat
            .preorder()
            .iter()
            .copied()
            .filter(|&node| {
                dom.node_kind(node) == NodeKind::Element
                    && dom.attribute(node, "aria-owns").is_some()
            })
            .collect();
        if owners.is_empty() {
            return ownership;
        }
        let exclusion = DomExclusion::compute(dom, flat);
        let mut budget = OWNERSHIP_STEP_BUDGET;
        for owner in owners {
            // WAI-ARIA (aria-owns, w3c/aria#1839): "User agents MUST NOT resolve aria-owns when
            // it is set on an element that has been excluded from the accessibility tree."
            if exclusion.excluded(owner) {
                continue;
            }
            let Some(tokens) = dom.attribute(owner, "aria-owns") else {
                continue;
            };
            for token in tokens.split_ascii_whitespace() {
                let Some(owned) = dom.element_by_id(owner, token) else {
                    continue;
                };
                if owned == owner {
                    diagnostics.push(Diagnostic {
                        node: Some(owner),
                        message: format!(
                            "aria-owns of an element names itself (\"{token}\"); ignored"
                        ),
                    });
                    continue;
                }
                // "... nor when it references an element that is, or has a DOM ancestor that is,
                // hidden from all users" (not rendered, or itself invisible).
                if !flat.contains(owned)
                    || dom.node_kind(owned) != NodeKind::Element
                    || exclusion.hidden_from_all_users(dom, owned)
                {
                    continue;
                }
                if ownership.owner_of.contains_key(&owned) {
                    diagnostics.push(Diagnostic {
                        node: Some(owner),
                        message: format!(
                            "aria-owns names an element (\"{token}\") that another element already owns; the first owner keeps it"
                        ),
                    });
                    continue;
                }
                match ownership.is_ancestor_in_accessibility_tree(flat, owned, owner, &mut budget) {
                    Some(false) => {}
                    Some(true) => {
                        diagnostics.push(Diagnostic {
                            node: Some(owner),
                            message: format!(
                                "aria-owns would make an element (\"{token}\") its own ancestor; ignored"
                            ),
                        });
                        continue;
                    }
                    None => {
                        diagnostics.push(Diagnostic {
                            node: Some(owner),
                            message: "aria-owns checks exceeded their budget on this page; remaining ownerships ignored".to_string(),
                        });
                        return ownership;
                    }
                }
                ownership.owner_of.insert(owned, owner);
                ownership.owned_by.entry(owner).or_default().push(owned);
            }
        }
        ownership
    }

    /// Whether `ancestor` is `node` or an ancestor of it once ownership applies. `None` when the
    /// step budget ran out.
    fn is_ancestor_in_accessibility_tree(
        &self,
        flat: &FlatTree,
        ancestor: NodeId,
        node: NodeId,
        budget: &mut usize,
    ) -> Option<bool> {
        let mut current = Some(node);
        while let Some(step) = current {
            if step == ancestor {
                return Some(true);
            }
            *budget = budget.checked_sub(1)?;
            current = self
                .owner_of
                .get(&step)
                .copied()
                .or_else(|| flat.parent(step));
        }
        Some(false)
    }

    /// The element that owns `node` through aria-owns, if any.
    pub fn owner_of(&self, node: NodeId) -> Option<NodeId> {
        self.owner_of.get(&node).copied()
    }

    /// Whether no element of the document owns another (most pages use no aria-owns).
    pub fn is_empty(&self) -> bool {
        self.owner_of.is_empty()
    }

    /// The elements `owner` owns, in its aria-owns order.
    pub fn owned_by(&self, owner: NodeId) -> &[NodeId] {
        self.owned_by.get(&owner).map(Vec::as_slice).unwrap_or(&[])
    }
}
