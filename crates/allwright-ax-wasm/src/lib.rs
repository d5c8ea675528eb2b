//! allwright-ax-wasm: the glue between the content script and the core.
//!
//! The content script (`extension/content/accessibility-tree.js`) walks the page once in plain
//! JavaScript and sends the raw facts in a few flat arrays ([`facts`]); this crate implements the
//! core's `Dom` trait over them and runs the core's reads (`allwright_ax::reads`, re-exported in
//! [`api`] beside the packed forms the service worker receives). It does nothing else: roles,
//! names, states, trees, reference numbering, the choice between a whole read and a read of the
//! changed parts, the "ai" references and the JSON envelope live in `allwright-ax`, and the
//! `ref_N` WeakRef registry lives in the content script, which alone can hold WeakRefs to
//! elements.
//!
//! Everything except the wasm-bindgen exports is target-independent and tested natively; the
//! exports (`bindings.rs`, wasm32 only) only convert arguments.

pub mod api;
pub mod facts;
pub mod packed;
pub mod warm_up;

#[cfg(target_arch = "wasm32")]
mod bindings;
