//! States and properties of an element, as the structured snapshot lists them.
//! (Being written: see the issue "Core engine".)

use crate::dom::{Dom, NodeId};

/// `:disabled` derived from attributes: a disabled form control, or one inside a disabled
/// `<fieldset>` (outside its first legend) or `<optgroup>`.
pub fn disabled_from_attributes<D: Dom + ?Sized>(dom: &D, element: NodeId) -> bool {
    dom.attribute(element, "disabled").is_some()
}
