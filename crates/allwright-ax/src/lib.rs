//! allwright-ax: the pure-Rust accessibility tree of allwright.
//!
//! The crate turns a DOM, seen through the [`Dom`] trait, into an accessibility tree: roles
//! (WAI-ARIA 1.2 and HTML-AAM), accessible names and descriptions (accname 1.2), states and
//! properties, with hidden and inert content excluded and the composed tree (open shadow roots,
//! slots, aria-owns) followed. It then writes that tree as the agent's text tree (the French
//! document, `spec/ax-tree-and-ref-ids.fr.txt`) or as the version-1 structured snapshot in JSON
//! or YAML (`spec/surface-web-snapshot.txt`).
//!
//! What this crate does not do: no I/O, no browser APIs (no web-sys, js-sys or wasm-bindgen in
//! its dependency tree), no panics on any input, no recursion proportional to the DOM's depth.

pub mod aria;
pub mod composed;
mod context;
pub mod dom;
pub mod hidden;
pub mod name;
pub mod role;
pub mod snapshot;
pub mod state;
pub mod text;
pub mod tree;

#[cfg(feature = "memdom")]
pub mod memdom;

pub use aria::Role;
pub use context::{Context, Diagnostic};
pub use dom::{Display, Dom, Namespace, NodeId, NodeKind, PseudoElement, Rect, Style, Visibility};
pub use name::{AccessibleName, NameSource};
