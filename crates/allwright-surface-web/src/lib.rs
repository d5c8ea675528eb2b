//! allwright's WebDriver BiDi surface.
//!
//! The crate holds a BiDi client ([`bidi`]), the launchers of Chromium (started with
//! `--remote-debugging-pipe`, with chromium-bidi's BiDi mapper run over that pipe in a hidden tab,
//! so no port is opened) and Firefox (its built-in remote agent, in a private user and network
//! namespace so that its TCP port exists only on that namespace's loopback, with its pages'
//! traffic sent through a SOCKS5 proxy on a private Unix socket) with a temporary profile
//! ([`launch`]), element operations on a browsing context ([`page`]: find,
//! read, focus, fill, keys, real pointer clicks and hovers, highlights, screenshots), the page
//! lifecycle and user prompts ([`lifecycle`]), the console and network records of each tab
//! ([`observations`]), and sessions on an existing WebDriver remote end
//! ([`remote`]).
//!
//! The protocol rule (ARCHITECTURE.md, "Invariants") applies here: element operations
//! performed from outside the page go through WebDriver BiDi. Only `launch/cdp_pipe.rs` speaks
//! CDP, to close the launched Chromium, to start the BiDi mapper in it, and to emulate the two
//! media features BiDi has no command for (`prefers-color-scheme`, `prefers-reduced-motion`)
//! (`tests::the_crate_sends_no_cdp` checks the sources).
//!
//! Invariants, stated as absences:
//! - No browser is needed for `cargo test -p allwright-surface-web --lib`: the unit tests cover
//!   message encoding and decoding, id correlation, error mapping, every command's parameters
//!   and the readers of its results, with an in-process WebSocket peer where a connection is
//!   needed, and the CDP pipe's framing and the mapper's bootstrap and transport against a fake
//!   Chromium on an in-memory pipe (`launch/cdp_pipe.rs`). The browser tests are
//!   `tests/element_operations.rs` (`-- --ignored`).
//! - No process outlives its [`launch::LaunchedBrowser`]: every process is started in its own
//!   process group, which is terminated on shutdown and killed on drop.
//! - No port of a launched Chromium listens anywhere: CDP is on its `--remote-debugging-pipe`,
//!   whose two ends only allwright and the browser process hold (`launch/chromium.rs`).
//! - No port of a launched Firefox listens in the machine's network namespace: its remote agent
//!   is on the loopback of a namespace of its own, reached through sockets made inside it.
//! - No unsafe code outside `launch/private_network.rs` (the crate's lints deny it; that module,
//!   which runs between fork and exec, allows it).
//! - No event is synthesized in the page: clicks, hovers and keys are `input.performActions`,
//!   so the page sees trusted events. Page functions run in the `allwright` sandbox realm; they
//!   read, focus, select, scroll and draw the highlight overlay, and define nothing the page's
//!   scripts can see.
//! - No pointer action is sent before a hit test at its point found the target (or something
//!   inside it), in its document and in every ancestor document of its frame.

pub mod base64;
pub mod bidi;
pub mod emulation;
pub mod launch;
pub mod lifecycle;
pub mod observations;
pub mod page;
pub mod remote;
pub mod snapshot;
mod tls;
mod webdriver_http;
mod zip_archive;

pub use bidi::{BidiConnection, BidiError, BidiErrorKind};
pub use launch::{
    find_executable, BrowserKind, ChromiumLaunchOptions, ExecutableNotFound, FirefoxLaunchOptions,
    LaunchError, LaunchedBrowser, Program,
};
pub use lifecycle::{
    Lifecycle, LifecycleEvent, OpenPrompt, PromptInContext, PromptType, Unblocked,
};
pub use page::files::FileInputFacts;
pub use page::{ElementHandle, Page, PageError, QueryOptions};

pub use snapshot::{
    accessibility_snapshot, SnapshotError, SnapshotErrorKind, SnapshotFormat, SnapshotMode,
    SnapshotOptions,
};

#[cfg(test)]
mod tests {
    /// The CDP commands and events the Chromium launcher may use, all in `src/launch/cdp_pipe.rs`:
    /// the browser's lifecycle, the BiDi mapper's bootstrap and transport (ARCHITECTURE.md, "Invariants":
    /// no CDP outside the debugger sessions of the extension and this launcher), and the media features BiDi
    /// cannot emulate (`MediaFeatureEmulation`: a session attached to a tab, and
    /// `setEmulatedMedia` on it). Written as (domain, method), so that this file does not match
    /// its own patterns.
    const CDP_ALLOWED_IN_THE_PIPE_MODULE: [(&str, &str); 9] = [
        ("Browser", "close"),
        ("Emulation", "setEmulatedMedia"),
        ("Runtime", "addBinding"),
        ("Runtime", "bindingCalled"),
        ("Runtime", "enable"),
        ("Runtime", "evaluate"),
        ("Target", "attachToTarget"),
        ("Target", "createTarget"),
        ("Target", "exposeDevToolsProtocol"),
    ];

    /// The protocol rule (ARCHITECTURE.md, "Invariants"): element operations go through BiDi,
    /// never CDP. No source file of this crate names a CDP command (a string literal starting with
    /// a CDP domain), chromium-bidi's CDP passthrough (its `goog` CDP commands) or the DevTools
    /// HTTP endpoints, and no CDP client crate is a dependency.
    ///
    /// One file is exempt from the first rule only: `src/launch/cdp_pipe.rs`, the CDP pipe to a
    /// launched Chromium, which must speak CDP to close the browser and to start the BiDi mapper
    /// (there is no BiDi before the mapper runs). It may name exactly the commands and events of
    /// [`CDP_ALLOWED_IN_THE_PIPE_MODULE`], and nothing else of CDP; the other patterns hold for
    /// it as for every file.
    #[test]
    fn the_crate_sends_no_cdp() {
        let cdp_domains = [
            "Accessibility",
            "Browser",
            "CSS",
            "DOM",
            "DOMSnapshot",
            "Emulation",
            "Extensions",
            "Input",
            "Network",
            "Overlay",
            "Page",
            "Runtime",
            "Target",
        ];
        let cdp_prefixes: Vec<String> = cdp_domains
            .iter()
            .map(|domain| format!("\"{domain}."))
            .collect();
        // Written in two halves, so that this file does not match its own patterns.
        let always_forbidden = [
            ["goog", ":cdp"].concat(),
            ["/json", "/version"].concat(),
            ["devtools", "/page"].concat(),
        ];
        let crate_root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let pipe_module = crate_root.join("src").join("launch").join("cdp_pipe.rs");
        let mut pending = vec![crate_root.join("src")];
        let mut checked = 0;
        let mut pipe_module_checked = false;
        while let Some(folder) = pending.pop() {
            for entry in std::fs::read_dir(&folder).expect("read src") {
                let path = entry.expect("entry").path();
                if path.is_dir() {
                    pending.push(path);
                    continue;
                }
                let text = std::fs::read_to_string(&path).expect("read a source file");
                for pattern in &always_forbidden {
                    assert!(
                        !text.contains(pattern.as_str()),
                        "{} contains {pattern}",
                        path.display()
                    );
                }
                for prefix in &cdp_prefixes {
                    for (start, _) in text.match_indices(prefix.as_str()) {
                        let name: String = text[start + 1..]
                            .chars()
                            .take_while(|character| {
                                character.is_ascii_alphanumeric() || *character == '.'
                            })
                            .collect();
                        let allowed = path == pipe_module
                            && CDP_ALLOWED_IN_THE_PIPE_MODULE
                                .iter()
                                .any(|(domain, method)| name == format!("{domain}.{method}"));
                        assert!(allowed, "{} names CDP's {name}", path.display());
                    }
                }
                pipe_module_checked |= path == pipe_module;
                checked += 1;
            }
        }
        assert!(checked > 10, "the walk found the sources");
        assert!(pipe_module_checked, "the walk read the pipe module");
        let manifest = std::fs::read_to_string(crate_root.join("Cargo.toml")).expect("Cargo.toml");
        for client in ["chromiumoxide", "headless_chrome", "cdp"] {
            assert!(!manifest.contains(client), "Cargo.toml depends on {client}");
        }
    }
}
