//! Host tests: the built `allwright` binary, spawned the way a browser spawns it, spoken to over
//! framed stdin/stdout as the extension and over its local socket as a client; and `allwright mcp`
//! driven by the rmcp client with this test playing the native host on the socket.
//!
//! Nothing here needs a browser. The opt-in browser checks of the launcher are in `launch.rs`
//! (`cargo test --test host -- --ignored`).

mod architecture;
mod bounds;
mod firefox_namespace;
mod install;
mod launch;
mod mcp;
mod relay;
mod sandbox;
mod self_contained;
mod session_folders;
mod snapshot_files;
mod socket_safety;
mod support;

// The host tests read replies back into objects; they set `verbose` themselves where they
// need it, so the helpers that add it are unused here.
#[allow(dead_code)]
#[path = "../support/reply_text.rs"]
mod reply_text;
