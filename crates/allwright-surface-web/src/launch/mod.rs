//! Starting a browser with a temporary profile and a BiDi session, and ending it without leaving
//! processes behind.
//!
//! Chromium is driven through chromedriver: a classic session with `webSocketUrl: true` starts
//! Chromium and the BiDi mapper, and its capabilities name the BiDi WebSocket. Firefox is started
//! directly with `--remote-debugging-port`, and its remote agent serves BiDi at `/session`.

mod process;

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use tokio::process::Command;

use crate::bidi::{BidiConnection, BidiError};
use crate::lifecycle::keep_prompts_open_capability;
use crate::webdriver_http;
use process::ProcessGroup;

/// How long a browser may take to accept its first connection.
const STARTUP_TIMEOUT: Duration = Duration::from_secs(30);
/// How long a browser gets to exit by itself before its process group is signalled.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(3);

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

/// Everything needed to start Chromium through chromedriver.
#[derive(Debug, Clone)]
pub struct ChromiumLaunchOptions {
    pub chromedriver: PathBuf,
    /// The real Chromium binary, not Debian's `/usr/bin/chromium` wrapper (which adds its own
    /// flags and an empty `--load-extension=`).
    pub chromium_binary: PathBuf,
    /// A fresh folder: Chromium's `--user-data-dir`.
    pub user_data_dir: PathBuf,
    pub headless: bool,
    /// Variables set for chromedriver, which Chromium (and the native hosts it starts) inherit.
    pub environment: Vec<(String, OsString)>,
    /// Where chromedriver's and Chromium's output goes; `None` discards it.
    pub log_path: Option<PathBuf>,
    /// More Chromium flags, after the standard ones (tests add `--js-flags=--expose-gc`).
    pub extra_arguments: Vec<String>,
    /// Whether `alert`/`confirm`/`prompt`/`beforeunload` dialogs stay open until the client
    /// answers them (see [`crate::lifecycle`]); otherwise the session dismisses them itself.
    pub keep_user_prompts_open: bool,
}

impl ChromiumLaunchOptions {
    pub fn new(user_data_dir: PathBuf) -> Self {
        Self {
            chromedriver: PathBuf::from("/usr/bin/chromedriver"),
            chromium_binary: PathBuf::from("/usr/lib/chromium/chromium"),
            user_data_dir,
            headless: true,
            environment: Vec::new(),
            log_path: None,
            extra_arguments: Vec::new(),
            keep_user_prompts_open: true,
        }
    }

    /// The Chromium command-line flags: headless, no sandbox (the tests run as root), and none of
    /// the background connections (component updates, sync, QUIC) that a closed network refuses.
    pub fn chromium_arguments(&self) -> Vec<String> {
        let mut arguments = Vec::new();
        if self.headless {
            arguments.push("--headless=new".to_owned());
        }
        for flag in [
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--no-default-browser-check",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
        ] {
            arguments.push(flag.to_owned());
        }
        arguments.push(format!("--user-data-dir={}", self.user_data_dir.display()));
        arguments.extend(self.extra_arguments.iter().cloned());
        arguments
    }

    /// The body of chromedriver's `POST /session`.
    pub fn new_session_request(&self) -> Value {
        let mut request = json!({
            "capabilities": {
                "alwaysMatch": {
                    "browserName": "chrome",
                    "webSocketUrl": true,
                    "goog:chromeOptions": {
                        "binary": self.chromium_binary.to_string_lossy(),
                        "args": self.chromium_arguments(),
                    }
                }
            }
        });
        if self.keep_user_prompts_open {
            request["capabilities"]["alwaysMatch"]["unhandledPromptBehavior"] =
                keep_prompts_open_capability();
        }
        request
    }
}

/// Everything needed to start Firefox with its remote agent.
#[derive(Debug, Clone)]
pub struct FirefoxLaunchOptions {
    pub binary: PathBuf,
    /// A fresh folder: the Firefox profile.
    pub profile_dir: PathBuf,
    pub headless: bool,
    /// Variables set for Firefox, which the native hosts it starts inherit. Set `HOME` to a
    /// temporary folder: Firefox writes into `~/.config/mozilla` and `~/Downloads`.
    pub environment: Vec<(String, OsString)>,
    pub log_path: Option<PathBuf>,
    /// As [`ChromiumLaunchOptions::keep_user_prompts_open`].
    pub keep_user_prompts_open: bool,
}

impl FirefoxLaunchOptions {
    pub fn new(profile_dir: PathBuf) -> Self {
        Self {
            binary: PathBuf::from("/usr/bin/firefox-esr"),
            profile_dir,
            headless: true,
            environment: Vec::new(),
            log_path: None,
            keep_user_prompts_open: true,
        }
    }

    /// The capabilities of Firefox's `session.new`.
    pub fn session_capabilities(&self) -> Value {
        if self.keep_user_prompts_open {
            json!({ "alwaysMatch": { "unhandledPromptBehavior": keep_prompts_open_capability() } })
        } else {
            json!({})
        }
    }

    pub fn firefox_arguments(&self, remote_debugging_port: u16) -> Vec<String> {
        let mut arguments = Vec::new();
        if self.headless {
            arguments.push("-headless".to_owned());
        }
        arguments.extend([
            "-no-remote".to_owned(),
            "-profile".to_owned(),
            self.profile_dir.to_string_lossy().into_owned(),
            format!("--remote-debugging-port={remote_debugging_port}"),
            "about:blank".to_owned(),
        ]);
        arguments
    }
}

/// Preferences written to a fresh Firefox profile: no first-run pages, no update or telemetry
/// traffic, and no default-browser prompt, so that a test run only sees its own pages.
const FIREFOX_PROFILE_PREFERENCES: &str = r#"user_pref("browser.shell.checkDefaultBrowser", false);
user_pref("browser.startup.homepage_override.mstone", "ignore");
user_pref("browser.aboutwelcome.enabled", false);
user_pref("datareporting.policy.dataSubmissionEnabled", false);
user_pref("toolkit.telemetry.reportingpolicy.firstRun", false);
user_pref("app.update.disabledForTesting", true);
user_pref("browser.tabs.warnOnClose", false);
"#;

#[derive(Debug)]
pub enum LaunchError {
    /// A program could not be started (missing, not executable).
    Spawn {
        program: String,
        error: std::io::Error,
    },
    /// The browser or driver started but did not become reachable.
    NotReady { what: String, detail: String },
    /// chromedriver refused the session.
    Session(String),
    /// A BiDi command failed during the launch.
    Bidi(BidiError),
}

impl std::fmt::Display for LaunchError {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Spawn { program, error } => write!(formatter, "cannot start {program}: {error}"),
            Self::NotReady { what, detail } => {
                write!(formatter, "{what} did not become ready: {detail}")
            }
            Self::Session(detail) => write!(
                formatter,
                "chromedriver could not start a session: {detail}"
            ),
            Self::Bidi(error) => write!(formatter, "{error}"),
        }
    }
}

impl std::error::Error for LaunchError {}

impl From<BidiError> for LaunchError {
    fn from(error: BidiError) -> Self {
        Self::Bidi(error)
    }
}

/// Starts a driver or browser in its own process group, with these variables added to the
/// environment and its output sent to `log_path`.
fn spawn(
    program: &Path,
    arguments: impl IntoIterator<Item = String>,
    environment: &[(String, OsString)],
    log_path: Option<&Path>,
) -> Result<ProcessGroup, LaunchError> {
    let mut command = Command::new(program);
    command
        .args(arguments)
        .envs(environment.iter().map(|(name, value)| (name, value)));
    ProcessGroup::spawn(command, log_path).map_err(|error| LaunchError::Spawn {
        program: program.display().to_string(),
        error,
    })
}

/// A running browser with a BiDi connection. Call [`LaunchedBrowser::shutdown`] to end it
/// politely; dropping it kills its process group.
pub struct LaunchedBrowser {
    kind: BrowserKind,
    bidi: BidiConnection,
    process: ProcessGroup,
    /// chromedriver's port and session id, to end the classic session (which closes Chromium).
    chromedriver_session: Option<(u16, String)>,
    /// Chromium's DevTools address (`host:port`) as chromedriver reports it. Only tests use it,
    /// as an oracle (the product's element operations go through BiDi).
    chromium_debugger_address: Option<String>,
}

impl LaunchedBrowser {
    pub fn kind(&self) -> BrowserKind {
        self.kind
    }

    pub fn bidi(&self) -> &BidiConnection {
        &self.bidi
    }

    /// Chromium's DevTools address (`host:port`), when the browser is Chromium.
    pub fn chromium_debugger_address(&self) -> Option<&str> {
        self.chromium_debugger_address.as_deref()
    }

    /// Whether the browser (or its driver) is still running.
    pub fn is_running(&mut self) -> bool {
        !self.process.has_exited()
    }

    pub async fn launch_chromium(options: &ChromiumLaunchOptions) -> Result<Self, LaunchError> {
        let port = free_local_port().map_err(|error| LaunchError::NotReady {
            what: "a free local port".into(),
            detail: error.to_string(),
        })?;
        let program = options.chromedriver.display().to_string();
        let mut process = spawn(
            &options.chromedriver,
            [format!("--port={port}")],
            &options.environment,
            options.log_path.as_deref(),
        )?;

        // chromedriver answers /status with ready: true once it listens.
        let deadline = Instant::now() + STARTUP_TIMEOUT;
        loop {
            let status =
                webdriver_http::request(port, "GET", "/status", None, Duration::from_secs(2)).await;
            if matches!(&status, Ok(response) if response.body["value"]["ready"] == json!(true)) {
                break;
            }
            if process.has_exited() {
                return Err(LaunchError::NotReady {
                    what: program,
                    detail: "chromedriver exited".into(),
                });
            }
            if Instant::now() > deadline {
                process.terminate(Duration::ZERO).await;
                return Err(LaunchError::NotReady {
                    what: program,
                    detail: format!(
                        "no answer on port {port} after {} s",
                        STARTUP_TIMEOUT.as_secs()
                    ),
                });
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }

        let response = webdriver_http::request(
            port,
            "POST",
            "/session",
            Some(&options.new_session_request()),
            STARTUP_TIMEOUT,
        )
        .await;
        let response = match response {
            Ok(response) if response.status == 200 => response,
            Ok(response) => {
                process.terminate(Duration::ZERO).await;
                let message = response.body["value"]["message"]
                    .as_str()
                    .unwrap_or("no message")
                    .to_owned();
                return Err(LaunchError::Session(message));
            }
            Err(error) => {
                process.terminate(Duration::ZERO).await;
                return Err(LaunchError::Session(error));
            }
        };
        let session_id = response.body["value"]["sessionId"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        let Some(web_socket_url) = response.body["value"]["capabilities"]["webSocketUrl"].as_str()
        else {
            process.terminate(Duration::ZERO).await;
            return Err(LaunchError::Session(
                "the session has no webSocketUrl (is this chromedriver too old for BiDi?)".into(),
            ));
        };
        let bidi = match BidiConnection::connect(web_socket_url).await {
            Ok(bidi) => bidi,
            Err(error) => {
                let _ = webdriver_http::request(
                    port,
                    "DELETE",
                    &format!("/session/{session_id}"),
                    None,
                    SHUTDOWN_GRACE,
                )
                .await;
                process.terminate(Duration::ZERO).await;
                return Err(error.into());
            }
        };
        let chromium_debugger_address = response.body["value"]["capabilities"]
            ["goog:chromeOptions"]["debuggerAddress"]
            .as_str()
            .map(str::to_owned);
        Ok(Self {
            kind: BrowserKind::Chromium,
            bidi,
            process,
            chromedriver_session: Some((port, session_id)),
            chromium_debugger_address,
        })
    }

    pub async fn launch_firefox(options: &FirefoxLaunchOptions) -> Result<Self, LaunchError> {
        std::fs::create_dir_all(&options.profile_dir)
            .and_then(|()| {
                std::fs::write(
                    options.profile_dir.join("user.js"),
                    FIREFOX_PROFILE_PREFERENCES,
                )
            })
            .map_err(|error| LaunchError::NotReady {
                what: "the Firefox profile".into(),
                detail: error.to_string(),
            })?;
        let port = free_local_port().map_err(|error| LaunchError::NotReady {
            what: "a free local port".into(),
            detail: error.to_string(),
        })?;
        let program = options.binary.display().to_string();
        let mut process = spawn(
            &options.binary,
            options.firefox_arguments(port),
            &options.environment,
            options.log_path.as_deref(),
        )?;

        // The remote agent listens a moment after start; retry the WebSocket until it answers.
        let url = format!("ws://127.0.0.1:{port}/session");
        let deadline = Instant::now() + STARTUP_TIMEOUT;
        let bidi = loop {
            match BidiConnection::connect(&url).await {
                Ok(bidi) => break bidi,
                Err(error) => {
                    if process.has_exited() {
                        return Err(LaunchError::NotReady {
                            what: program,
                            detail: "Firefox exited during startup".into(),
                        });
                    }
                    if Instant::now() > deadline {
                        process.terminate(Duration::ZERO).await;
                        return Err(LaunchError::NotReady {
                            what: program,
                            detail: error.to_string(),
                        });
                    }
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
            }
        };
        let mut browser = Self {
            kind: BrowserKind::Firefox,
            bidi,
            process,
            chromedriver_session: None,
            chromium_debugger_address: None,
        };
        if let Err(error) = browser
            .bidi
            .new_session_with(options.session_capabilities())
            .await
        {
            browser.process.terminate(Duration::ZERO).await;
            return Err(error.into());
        }
        Ok(browser)
    }

    /// Ends the browser: the driver's session (Chromium) or `browser.close` (Firefox), then the
    /// whole process group, so no renderer, driver or native host is left running.
    pub async fn shutdown(mut self) {
        match self.chromedriver_session.take() {
            Some((port, session_id)) => {
                let _ = webdriver_http::request(
                    port,
                    "DELETE",
                    &format!("/session/{session_id}"),
                    None,
                    SHUTDOWN_GRACE,
                )
                .await;
                // chromedriver itself keeps running after the session; it is ended with its group.
                self.process.terminate(Duration::ZERO).await;
            }
            None => {
                let _ = self.bidi.close_browser().await;
                self.process.terminate(SHUTDOWN_GRACE).await;
            }
        }
    }
}

/// A port that was free a moment ago. The browser binds it shortly after; the tiny race with
/// another process is accepted (both launchers retry and report a clear error otherwise).
fn free_local_port() -> std::io::Result<u16> {
    let listener = std::net::TcpListener::bind("127.0.0.1:0")?;
    Ok(listener.local_addr()?.port())
}

/// Where a browser's log is, for error messages: the last `lines` lines of it.
pub fn log_tail(log_path: &Path, lines: usize) -> String {
    let text = std::fs::read_to_string(log_path).unwrap_or_default();
    let all: Vec<&str> = text.lines().collect();
    all[all.len().saturating_sub(lines)..].join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chromium_session_request_carries_binary_flags_and_bidi() {
        let mut options = ChromiumLaunchOptions::new(PathBuf::from("/tmp/profile"));
        options.headless = true;
        let request = options.new_session_request();
        let always = &request["capabilities"]["alwaysMatch"];
        assert_eq!(always["webSocketUrl"], json!(true));
        assert_eq!(
            always["goog:chromeOptions"]["binary"],
            json!("/usr/lib/chromium/chromium")
        );
        let arguments: Vec<&str> = always["goog:chromeOptions"]["args"]
            .as_array()
            .expect("args")
            .iter()
            .filter_map(Value::as_str)
            .collect();
        assert!(arguments.contains(&"--headless=new"));
        assert!(arguments.contains(&"--user-data-dir=/tmp/profile"));
        options.headless = false;
        assert!(!options
            .chromium_arguments()
            .iter()
            .any(|argument| argument.starts_with("--headless")));
    }

    #[test]
    fn firefox_arguments_name_the_profile_and_the_remote_port() {
        let options = FirefoxLaunchOptions::new(PathBuf::from("/tmp/ff"));
        let arguments = options.firefox_arguments(9333);
        assert_eq!(
            &arguments[..4],
            ["-headless", "-no-remote", "-profile", "/tmp/ff"]
        );
        assert!(arguments.contains(&"--remote-debugging-port=9333".to_owned()));
    }
}
