//! The core's `Dom` trait over the in-memory DOM.

use crate::composed::find_slottables;
use crate::dom::{Dom, Namespace, NodeId, NodeKind, PseudoElement, Rect, Style};
use crate::html::disabled_from_attributes;

use super::{MemDom, VIEWPORT};

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

    fn has_unread_closed_shadow_root(&self, element: NodeId) -> bool {
        self.node(element)
            .is_some_and(|data| data.closed_shadow_root)
    }

    fn has_click_listener(&self, element: NodeId) -> bool {
        self.node(element).is_some_and(|data| data.click_listener)
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
                let option = *self.selected_options_from_markup(element).first()?;
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
        self.option_selected_from_markup(element)
    }

    fn files_attached(&self, element: NodeId) -> bool {
        self.node(element).is_some_and(|data| data.files_attached)
    }

    fn assigned_nodes(&self, slot: NodeId) -> Vec<NodeId> {
        // Named-slot assignment from markup; this DOM has no script to assign manually.
        find_slottables(self, slot)
    }

    fn disabled(&self, element: NodeId) -> bool {
        disabled_from_attributes(self, element)
    }
}
