//! One browser for a whole test binary (tests/accessibility.rs, tests/element_operations.rs), and
//! a fresh tab of it for each test.
//!
//! A launch costs seconds (Chromium with its BiDi mapper, Firefox in its private network
//! namespace), and these binaries have dozens of tests: one launch per test was most of their
//! time. What a test needs of its own is a top-level browsing context, not a browser: the BiDi
//! input state (pointer position, pressed keys), the viewport, prompts, navigation and frames all
//! belong to a top-level context (WebDriver BiDi, "input state" is kept per top-level traversable;
//! `browsingContext.setViewport` and `browsingContext.handleUserPrompt` take a context), so each
//! test gets a tab made with `browsingContext.create` and closed when it ends. The tests still
//! take turns ([`SharedBrowserTurn`] holds the one browser for its test): focus follows the active
//! tab, and a screenshot is of the tab in front, so two tests side by side in two tabs of one
//! window would disturb each other.
//!
//! The browser is `ALLWRIGHT_TEST_BROWSER`'s (chromium by default, or firefox), launched with a
//! temporary profile on the first turn, and again if it stopped running (a crash fails the test
//! that saw it, not every test after it). It runs on a runtime of this module's own: each
//! `#[tokio::test]` has a runtime that ends with the test, and the browser's connection tasks must
//! outlive every test. Statics are never dropped, so the browser is ended when the process
//! exits ([`end_the_shared_browser_at_exit`]).

use std::ffi::OsString;
use std::sync::OnceLock;
use std::time::Duration;

use allwright_surface_web::launch::{
    BrowserKind, ChromiumLaunchOptions, FirefoxLaunchOptions, LaunchedBrowser,
};
use allwright_surface_web::BidiConnection;
use serde_json::json;

/// How long opening or closing a tab may take.
const TAB_PATIENCE: Duration = Duration::from_secs(20);

/// The browser `ALLWRIGHT_TEST_BROWSER` asks for: chromium (the default) or firefox.
pub fn browser_kind() -> BrowserKind {
    match std::env::var("ALLWRIGHT_TEST_BROWSER").as_deref() {
        Ok("" | "chromium") | Err(_) => BrowserKind::Chromium,
        Ok("firefox") => BrowserKind::Firefox,
        Ok(other) => panic!("ALLWRIGHT_TEST_BROWSER={other}: use chromium or firefox"),
    }
}

/// The launched browser with the folder its profile, HOME, TMPDIR and XDG folders live in.
/// The browser is declared first so that it is dropped (its process group killed) before the
/// folder is removed.
pub struct SharedBrowser {
    launched: LaunchedBrowser,
    /// The tab the browser opened with. It stays open while tests open and close theirs, so
    /// that closing a test's tab never closes the browser's last window.
    first_tab: String,
    _folder: tempfile::TempDir,
}

/// The one browser of the binary, `None` until the first turn. Its tokio mutex is also the
/// tests' turn: a test holds the guard for as long as it uses the browser.
fn shared_browser() -> &'static tokio::sync::Mutex<Option<SharedBrowser>> {
    static BROWSER: tokio::sync::Mutex<Option<SharedBrowser>> = tokio::sync::Mutex::const_new(None);
    &BROWSER
}

/// The runtime the browser is launched on, so that its connection's tasks (and Firefox's SOCKS
/// proxy) live as long as the process rather than as long as the first test's runtime.
fn browser_runtime() -> &'static tokio::runtime::Runtime {
    static RUNTIME: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    RUNTIME.get_or_init(|| {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("shared-browser")
            .enable_all()
            .build()
            .expect("a runtime for the shared browser")
    })
}

/// A test's turn with the shared browser and the tab it opened for the test.
pub struct SharedBrowserTurn {
    browser: tokio::sync::MutexGuard<'static, Option<SharedBrowser>>,
    /// The test's own tab (`browsingContext.create`), in front.
    pub tab: String,
}

impl SharedBrowserTurn {
    /// Waits for the turn, launches the browser if none runs, closes whatever tabs an earlier
    /// test left open (one that failed before [`SharedBrowserTurn::finish`]) and opens a fresh
    /// tab for this test.
    pub async fn start() -> SharedBrowserTurn {
        let mut browser = shared_browser().lock().await;
        let running = match browser.as_mut() {
            Some(shared) => shared.launched_mut().is_running(),
            None => false,
        };
        if !running {
            if browser.is_some() {
                eprintln!(
                    "{}: the shared browser stopped; launching another",
                    browser_kind().name()
                );
            }
            // The old one, if any, is dropped here: its process group is killed.
            *browser = None;
            // A failed launch panics in the runtime's task; the test fails with its message.
            *browser = Some(
                browser_runtime()
                    .spawn(launch())
                    .await
                    .unwrap_or_else(|error| std::panic::resume_unwind(error.into_panic())),
            );
        }
        let shared = browser.as_ref().expect("a browser was just launched");
        close_tabs_other_than(shared.launched.bidi(), &shared.first_tab).await;
        let created = shared
            .launched
            .bidi()
            .command_with_timeout(
                "browsingContext.create",
                json!({"type": "tab"}),
                TAB_PATIENCE,
            )
            .await
            .unwrap_or_else(|error| panic!("{}: open a tab: {error}", browser_kind().name()));
        let tab = created["context"]
            .as_str()
            .unwrap_or_else(|| panic!("browsingContext.create answered {created}"))
            .to_owned();
        SharedBrowserTurn { browser, tab }
    }

    pub fn launched(&self) -> &LaunchedBrowser {
        &self
            .browser
            .as_ref()
            .expect("the turn's browser runs")
            .launched
    }

    /// Closes the test's tab (without running its beforeunload handlers, which the tests do not
    /// check there) and gives the turn to the next test.
    pub async fn finish(self) {
        let closed = self
            .launched()
            .bidi()
            .command_with_timeout(
                "browsingContext.close",
                json!({"context": self.tab, "promptUnload": false}),
                TAB_PATIENCE,
            )
            .await;
        if let Err(error) = closed {
            // The next turn closes it; a test's result does not hang on its tab's close.
            eprintln!(
                "{}: closing the test's tab failed: {error}",
                browser_kind().name()
            );
        }
    }
}

impl SharedBrowser {
    fn launched_mut(&mut self) -> &mut LaunchedBrowser {
        &mut self.launched
    }
}

/// The turn alone, without the shared browser or a tab: for a test that starts a browser of its
/// own (a remote end) and must not run beside the others either. Only element_operations has
/// such a test; accessibility compiles this module too.
#[allow(dead_code)]
pub async fn turn_without_a_tab() -> tokio::sync::MutexGuard<'static, Option<SharedBrowser>> {
    shared_browser().lock().await
}

/// Closes every top-level context but `keep`: the tabs of tests that failed before they could
/// close their own.
async fn close_tabs_other_than(bidi: &BidiConnection, keep: &str) {
    let tree = bidi
        .command_with_timeout(
            "browsingContext.getTree",
            json!({"maxDepth": 0}),
            TAB_PATIENCE,
        )
        .await
        .unwrap_or_else(|error| panic!("{}: list the tabs: {error}", browser_kind().name()));
    let left_open: Vec<String> = tree["contexts"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|context| context["context"].as_str())
        .filter(|context| *context != keep)
        .map(str::to_owned)
        .collect();
    for context in left_open {
        let _ = bidi
            .command_with_timeout(
                "browsingContext.close",
                json!({"context": context, "promptUnload": false}),
                TAB_PATIENCE,
            )
            .await;
    }
}

/// Launches the browser with a temporary profile: TMPDIR, HOME and the XDG folders go to the
/// same temporary folder, since browsers write into all of them.
async fn launch() -> SharedBrowser {
    let folder = tempfile::Builder::new()
        .prefix("allwright-surface-web-test-")
        .tempdir()
        .expect("temp dir");
    let root = folder.path().to_path_buf();
    for sub in ["tmp", "config", "cache", "home"] {
        std::fs::create_dir_all(root.join(sub)).expect("prepare folders");
    }
    let environment: Vec<(String, OsString)> = vec![
        ("TMPDIR".into(), root.join("tmp").into()),
        ("XDG_CONFIG_HOME".into(), root.join("config").into()),
        ("XDG_CACHE_HOME".into(), root.join("cache").into()),
        ("HOME".into(), root.join("home").into()),
    ];
    let kind = browser_kind();
    let launched = match kind {
        BrowserKind::Chromium => {
            let mut options = ChromiumLaunchOptions::new(root.join("profile"));
            options.environment = environment;
            options.log_path = Some(root.join("browser.log"));
            LaunchedBrowser::launch_chromium(&options).await
        }
        BrowserKind::Firefox => {
            let mut options = FirefoxLaunchOptions::new(root.join("profile"));
            options.environment = environment;
            options.log_path = Some(root.join("browser.log"));
            LaunchedBrowser::launch_firefox(&options).await
        }
    }
    .unwrap_or_else(|error| panic!("launch {}: {error}", kind.name()));
    let first_tab = launched.bidi().first_tab().await.expect("a first tab");
    end_the_shared_browser_at_exit();
    SharedBrowser {
        launched,
        first_tab,
        _folder: folder,
    }
}

/// Registers, once, an exit handler that drops the shared browser: its process group is killed
/// (`LaunchedBrowser` does that when dropped) and its temporary folder removed. Without it, a
/// browser launched with `process_group(0)` would outlive the test binary, whose statics are
/// never dropped. libtest leaves `main` by returning or by `std::process::exit`, and both end in
/// the C library's `exit`, which runs the handlers of `atexit`.
fn end_the_shared_browser_at_exit() {
    static REGISTERED: OnceLock<()> = OnceLock::new();
    REGISTERED.get_or_init(|| {
        extern "C" fn drop_the_shared_browser() {
            // A test still holding its turn when the process exits (none should) keeps the
            // browser; its process group is then left to the operating system's cleanup of
            // the test run, rather than this handler waiting forever.
            if let Ok(mut browser) = shared_browser().try_lock() {
                drop(browser.take());
            }
        }
        // SAFETY: `atexit` only stores the pointer of a function with the C ABI that takes no
        // argument, which `drop_the_shared_browser` is; the function catches nothing it would
        // need to unwind past: dropping the browser signals a process group and removes a
        // folder, and ignores their errors.
        #[allow(unsafe_code)]
        let refused = unsafe { libc::atexit(drop_the_shared_browser) } != 0;
        if refused {
            eprintln!("atexit refused the shared browser's exit handler: the browser may outlive this test binary");
        }
    });
}
