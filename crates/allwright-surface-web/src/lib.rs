//! allwright's WebDriver BiDi surface.
//!
//! The crate holds a BiDi client ([`bidi`]), the launchers of Chromium (through chromedriver,
//! whose BiDi mapper gives the WebSocket) and Firefox (its built-in remote agent) with a
//! temporary profile ([`launch`]), element operations on a browsing context ([`page`]: find,
//! read, focus, fill, keys, real pointer clicks and hovers, highlights, screenshots), the page
//! lifecycle and user prompts ([`lifecycle`]), and sessions on an existing WebDriver remote end
//! ([`remote`]).
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

mod base64;
pub mod bidi;
pub mod launch;
pub mod lifecycle;
pub mod page;
pub mod remote;
mod webdriver_http;
mod zip_archive;

pub use bidi::{BidiConnection, BidiError, BidiErrorKind};
pub use lifecycle::{Lifecycle, LifecycleEvent, OpenPrompt, PromptType};
pub use page::{ElementHandle, Page, PageError, QueryOptions};
pub use launch::{
    BrowserKind, ChromiumLaunchOptions, FirefoxLaunchOptions, LaunchError, LaunchedBrowser,
};
