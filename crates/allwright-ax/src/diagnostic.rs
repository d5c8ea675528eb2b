//! What the core noticed about a page and worked around. A leaf: the composed tree reports
//! into it before any context exists.

use crate::dom::NodeId;

/// Something the core noticed about the page and worked around: an aria-owns cycle, an element
/// owned twice, a page deeper than the walk goes. Never fatal.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    pub node: Option<NodeId>,
    pub message: String,
}
