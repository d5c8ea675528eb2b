//! Chromium through chromedriver: a classic session with `webSocketUrl: true` starts Chromium and
//! the BiDi mapper, and its capabilities name the BiDi WebSocket.

use std::ffi::OsString;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use super::BrowserKind;
use super::{
    free_local_port, spawn, LaunchError, LaunchedBrowser, SHUTDOWN_GRACE, STARTUP_TIMEOUT,
};
use crate::bidi::BidiConnection;
use crate::lifecycle::keep_prompts_open_capability;
use crate::webdriver_http;

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

impl LaunchedBrowser {
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
}
