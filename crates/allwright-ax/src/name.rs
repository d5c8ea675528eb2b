//! Accessible names and descriptions (accname 1.2), then the French document's fallbacks.
//! (Being written: see the issue "Core engine".)

use crate::context::Context;
use crate::dom::{Dom, NodeId};

/// Where a name came from: the accname algorithm, or one of the pragmatic fallbacks of the
/// French document used only when accname gives no name.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum NameSource {
    #[default]
    Spec,
    Heuristic,
}

/// A computed accessible name, whitespace-normalised.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AccessibleName {
    pub text: String,
    pub source: NameSource,
}

pub(crate) fn compute_name<D: Dom + ?Sized>(
    _context: &Context<'_, D>,
    _element: NodeId,
) -> AccessibleName {
    AccessibleName::default()
}

pub(crate) fn compute_description<D: Dom + ?Sized>(
    _context: &Context<'_, D>,
    _element: NodeId,
) -> String {
    String::new()
}
