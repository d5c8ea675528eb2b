//! Firefox with its remote agent: started directly with `--remote-debugging-port`, the agent
//! serves BiDi at `/session`.

use std::ffi::OsString;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use super::{free_local_port, spawn, BrowserKind, LaunchError, LaunchedBrowser, STARTUP_TIMEOUT};
use crate::bidi::BidiConnection;
use crate::lifecycle::keep_prompts_open_capability;

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

impl LaunchedBrowser {
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
            chromium_pipe: None,
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
}

#[cfg(test)]
mod tests {
    use super::*;

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
