//! allwright's WebDriver BiDi surface.
//!
//! Today this crate holds what `allwright mcp --launch` and `allwright snapshot` need: a BiDi
//! client ([`bidi`]) and the launchers of Chromium (through chromedriver, whose BiDi mapper gives
//! the WebSocket) and Firefox (its built-in remote agent) with a temporary profile ([`launch`]).
//! A later issue grows it into the full surface of `spec/surface-web-snapshot.txt`.
//!
//! The protocol rule of that document applies here: element operations performed from outside the
//! page go through WebDriver BiDi. Nothing in this crate speaks CDP.
//!
//! Invariants, stated as absences:
//! - No browser is needed for `cargo test -p allwright-surface-web --lib`: the unit tests cover
//!   message encoding and decoding, id correlation and error mapping, with an in-process
//!   WebSocket peer where a connection is needed.
//! - No process outlives its [`launch::LaunchedBrowser`]: every process is started in its own
//!   process group, which is terminated on shutdown and killed on drop.

pub mod bidi;
pub mod launch;
pub mod snapshot;
mod webdriver_http;

pub use bidi::{BidiConnection, BidiError, BidiErrorKind};
pub use launch::{
    BrowserKind, ChromiumLaunchOptions, FirefoxLaunchOptions, LaunchError, LaunchedBrowser,
};
pub use snapshot::{
    accessibility_snapshot, SnapshotError, SnapshotErrorKind, SnapshotFormat, SnapshotMode,
    SnapshotOptions,
};
