//! Computing an element's role: explicit ARIA roles, then implicit roles per HTML-AAM.
//! (Being written: see the issue "Core engine".)

use crate::aria::Role;
use crate::context::Context;
use crate::dom::{Dom, NodeId};

/// The computed role of an element. `Role::Generic` for containers without semantics,
/// `Role::None` for elements without a role of their own.
pub(crate) fn compute_role<D: Dom + ?Sized>(_context: &Context<'_, D>, _element: NodeId) -> Role {
    Role::Generic
}
