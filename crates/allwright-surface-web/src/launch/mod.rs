//! Starting a browser with a temporary profile and a BiDi session, and ending it without leaving
//! processes behind. Each browser's own way in is in its file: `chromium.rs` (with the CDP pipe
//! and the BiDi mapper in `cdp_pipe.rs`), `firefox.rs`.

mod cdp_pipe;
mod chromium;
pub mod executables;
mod firefox;
// Linux's user and network namespaces; elsewhere a Firefox launch is refused with a way out.
#[cfg(target_os = "linux")]
mod private_network;
#[cfg(not(target_os = "linux"))]
#[path = "private_network_unsupported.rs"]
mod private_network;
mod process;
mod socks_proxy;

pub use cdp_pipe::{MediaFeature, MediaFeatureEmulation};
pub use chromium::{
    chromium_runs_without_sandbox, say_once_when_chromium_runs_without_sandbox,
    ChromiumLaunchOptions,
};
pub use executables::{find_executable, ExecutableNotFound, Program};
pub use firefox::FirefoxLaunchOptions;

use std::path::Path;
use std::time::Duration;

use crate::bidi::{BidiConnection, BidiError};
use cdp_pipe::CdpPipe;
use process::ProcessGroup;

/// How long a browser may take to accept its first connection.
pub(super) const STARTUP_TIMEOUT: Duration = Duration::from_secs(30);
/// How long a browser gets to exit by itself before its process group is signalled.
pub(super) const SHUTDOWN_GRACE: Duration = Duration::from_secs(3);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BrowserKind {
    Chromium,
    Firefox,
}

impl BrowserKind {
    pub fn name(self) -> &'static str {
        match self {
            Self::Chromium => "chromium",
            Self::Firefox => "firefox",
        }
    }
}

#[derive(Debug)]
pub enum LaunchError {
    /// A program could not be started (missing, not executable).
    Spawn {
        program: String,
        error: std::io::Error,
    },
    /// No executable of the browser was given or found (`executables.rs`).
    ExecutableNotFound(ExecutableNotFound),
    /// The browser or driver started but did not become reachable.
    NotReady { what: String, detail: String },
    /// A BiDi command failed during the launch.
    Bidi(BidiError),
    /// Firefox's private user and network namespace could not be made (`firefox.rs`): this
    /// system does not let an unprivileged process create one.
    PrivateNamespace {
        step: &'static str,
        error: std::io::Error,
        hint: String,
    },
}

impl std::fmt::Display for LaunchError {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Spawn { program, error } => write!(formatter, "cannot start {program}: {error}"),
            Self::NotReady { what, detail } => {
                write!(formatter, "{what} did not become ready: {detail}")
            }
            Self::ExecutableNotFound(error) => write!(formatter, "{error}"),
            Self::Bidi(error) => write!(formatter, "{error}"),
            Self::PrivateNamespace { step, error, hint } => write!(
                formatter,
                "cannot run Firefox in a private network namespace: {step} failed: {error}\nhint: {hint}"
            ),
        }
    }
}

impl std::error::Error for LaunchError {}

impl From<ExecutableNotFound> for LaunchError {
    fn from(error: ExecutableNotFound) -> Self {
        Self::ExecutableNotFound(error)
    }
}

impl From<BidiError> for LaunchError {
    fn from(error: BidiError) -> Self {
        Self::Bidi(error)
    }
}

/// A running browser with a BiDi connection. Call [`LaunchedBrowser::shutdown`] to end it
/// politely; dropping it kills its process group.
pub struct LaunchedBrowser {
    pub(super) kind: BrowserKind,
    pub(super) bidi: BidiConnection,
    pub(super) process: ProcessGroup,
    /// Chromium's CDP pipe, to close the browser (`Browser.close`); it also carries the BiDi
    /// mapper's messages.
    pub(super) chromium_pipe: Option<std::sync::Arc<CdpPipe>>,
    /// Chromium's media features over that pipe (`prefers-color-scheme`,
    /// `prefers-reduced-motion`), which BiDi cannot emulate.
    pub(super) media_features: Option<MediaFeatureEmulation>,
    /// Chromium's DevTools address (`127.0.0.1:port`), only when a test asked for the port
    /// ([`ChromiumLaunchOptions::devtools_port_for_oracle_tests`]), as an oracle (the product's
    /// element operations go through BiDi).
    pub(super) chromium_debugger_address: Option<String>,
}

impl LaunchedBrowser {
    pub fn kind(&self) -> BrowserKind {
        self.kind
    }

    pub fn bidi(&self) -> &BidiConnection {
        &self.bidi
    }

    /// The media features BiDi cannot emulate, over Chromium's CDP pipe: None for Firefox.
    pub fn media_features(&self) -> Option<&MediaFeatureEmulation> {
        self.media_features.as_ref()
    }

    /// Chromium's DevTools address (`host:port`), when the browser is Chromium.
    pub fn chromium_debugger_address(&self) -> Option<&str> {
        self.chromium_debugger_address.as_deref()
    }

    /// Whether the browser (or its driver) is still running.
    pub fn is_running(&mut self) -> bool {
        !self.process.has_exited()
    }

    /// Ends the browser: `Browser.close` over the CDP pipe (Chromium) or `browser.close`
    /// (Firefox), then the whole process group, so no renderer or native host is left running.
    pub async fn shutdown(mut self) {
        match self.chromium_pipe.take() {
            Some(pipe) => {
                let _ = cdp_pipe::close_browser(&pipe, SHUTDOWN_GRACE).await;
            }
            None => {
                let _ = self.bidi.close_browser().await;
            }
        }
        self.process.terminate(SHUTDOWN_GRACE).await;
    }
}

/// Where a browser's log is, for error messages: the last `lines` lines of it.
pub fn log_tail(log_path: &Path, lines: usize) -> String {
    let text = std::fs::read_to_string(log_path).unwrap_or_default();
    let all: Vec<&str> = text.lines().collect();
    all[all.len().saturating_sub(lines)..].join("\n")
}
