//! Chromium started by allwright itself, with no listening socket: the Chrome DevTools Protocol
//! over `--remote-debugging-pipe` (Chromium's fds 3 and 4), and WebDriver BiDi from the mapper
//! that allwright runs in a hidden tab over that pipe (`cdp_pipe.rs`), as chromedriver would.
//! Nothing on the machine but allwright holds the pipe, so no other local user and no web page
//! can drive the browser (issue 27, item 1).

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::{Arc, Once};
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use tokio::net::unix::pipe;
use tokio::process::Command;

use super::cdp_pipe::{self, CdpPipe};
use super::executables::{self, ExecutableNotFound, Program};
use super::process::ProcessGroup;
use super::BrowserKind;
use super::{LaunchError, LaunchedBrowser, STARTUP_TIMEOUT};
use crate::bidi::BidiConnection;
use crate::lifecycle::keep_prompts_open_capability;

/// Everything needed to start Chromium.
#[derive(Debug, Clone)]
pub struct ChromiumLaunchOptions {
    /// Chromium's executable; `None` (the default) finds it when the browser starts
    /// ([`executables::find_executable`]: `$ALLWRIGHT_CHROMIUM`, the system's usual places with
    /// real binaries before wrappers such as Debian's `/usr/bin/chromium`, then `PATH`).
    pub chromium_binary: Option<PathBuf>,
    /// A fresh folder: Chromium's `--user-data-dir`.
    pub user_data_dir: PathBuf,
    pub headless: bool,
    /// Variables set for Chromium, which the native hosts it starts inherit.
    pub environment: Vec<(String, OsString)>,
    /// Where Chromium's output goes; `None` discards it.
    pub log_path: Option<PathBuf>,
    /// More Chromium flags, after the standard ones (tests add `--js-flags=--expose-gc`).
    pub extra_arguments: Vec<String>,
    /// Whether `alert`/`confirm`/`prompt`/`beforeunload` dialogs stay open until the client
    /// answers them (see [`crate::lifecycle`]); otherwise the session dismisses them itself.
    pub keep_user_prompts_open: bool,
    /// Tests only: also open Chromium's DevTools port on 127.0.0.1 (`--remote-debugging-port=0`)
    /// and report its address ([`LaunchedBrowser::chromium_debugger_address`]), so that a test
    /// can read the page through a second, independent client as an oracle. The product never
    /// sets it: the port is a listener that every local user can reach.
    pub devtools_port_for_oracle_tests: bool,
}

impl ChromiumLaunchOptions {
    pub fn new(user_data_dir: PathBuf) -> Self {
        Self {
            chromium_binary: None,
            user_data_dir,
            headless: true,
            environment: Vec::new(),
            log_path: None,
            extra_arguments: Vec::new(),
            keep_user_prompts_open: true,
            devtools_port_for_oracle_tests: false,
        }
    }

    /// The executable this launch starts: the one given, else the one found on this machine.
    pub fn chromium_executable(&self) -> Result<PathBuf, ExecutableNotFound> {
        executables::given_or_found(self.chromium_binary.as_deref(), Program::Chromium)
    }

    /// The Chromium flags shared by allwright's own launch and a `--webdriver` remote end's
    /// `goog:chromeOptions`: headless, the sandbox rule of [`chromium_runs_without_sandbox`], and
    /// none of the background connections (component updates, sync, QUIC) that a closed network
    /// refuses.
    pub fn chromium_arguments(&self) -> Vec<String> {
        self.chromium_arguments_for(chromium_runs_without_sandbox())
    }

    /// [`Self::chromium_arguments`] for a process that runs as root or not.
    fn chromium_arguments_for(&self, running_as_root: bool) -> Vec<String> {
        let mut arguments = Vec::new();
        if self.headless {
            arguments.push("--headless=new".to_owned());
        }
        if running_as_root {
            arguments.push("--no-sandbox".to_owned());
        }
        for flag in [
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

    /// The flags of allwright's own launch: the shared ones, the CDP pipe, and the page the
    /// first tab opens.
    fn launch_arguments_for(&self, running_as_root: bool) -> Vec<String> {
        let mut arguments = self.chromium_arguments_for(running_as_root);
        // CDP on fds 3 and 4 instead of a socket.
        arguments.push("--remote-debugging-pipe".to_owned());
        // `Extensions.loadUnpacked`, which the mapper's `webExtension.install` uses, exists only
        // with this flag, and only for a pipe client.
        arguments.push("--enable-unsafe-extension-debugging".to_owned());
        if self.devtools_port_for_oracle_tests {
            arguments.push("--remote-debugging-port=0".to_owned());
        }
        arguments.push("about:blank".to_owned());
        arguments
    }

    /// The capabilities of BiDi's `session.new`.
    pub fn session_capabilities(&self) -> Value {
        if self.keep_user_prompts_open {
            json!({ "alwaysMatch": { "unhandledPromptBehavior": keep_prompts_open_capability() } })
        } else {
            json!({})
        }
    }
}

/// Chromium's sandbox cannot start for root, so `--no-sandbox` is given exactly when allwright's
/// effective uid is 0 (issue 27, item 2); for anyone else the sandbox stays.
pub fn chromium_runs_without_sandbox() -> bool {
    rustix::process::geteuid().is_root()
}

/// Says once per process, on stderr, that Chromium runs without its sandbox, when it does.
pub fn say_once_when_chromium_runs_without_sandbox() {
    static SAID: Once = Once::new();
    if chromium_runs_without_sandbox() {
        SAID.call_once(|| {
            eprintln!(
                "allwright: Chromium runs without its sandbox (--no-sandbox) because allwright runs as root; run allwright as an ordinary user to keep the sandbox."
            );
        });
    }
}

/// The shell command that starts Chromium with the pipe's ends on fds 3 and 4. The workspace
/// forbids `unsafe` code, which a `pre_exec` dup2 would need, so the child gets the ends as its
/// standard input and output and `sh` moves them: `3<&0 4>&1`, then `0</dev/null 1>&2` gives
/// Chromium an empty input and sends its output to the log with its errors. `exec` keeps the
/// process (and its process group) Chromium's own; `"$0" "$@"` passes the binary and the flags
/// without any quoting.
const START_WITH_PIPE_ON_FDS_3_AND_4: &str = r#"exec "$0" "$@" 3<&0 4>&1 0</dev/null 1>&2"#;

impl LaunchedBrowser {
    pub async fn launch_chromium(options: &ChromiumLaunchOptions) -> Result<Self, LaunchError> {
        say_once_when_chromium_runs_without_sandbox();
        let chromium_binary = options.chromium_executable()?;
        let program = chromium_binary.display().to_string();
        // `sh` would start and then fail to exec a missing binary; say so before that.
        if !chromium_binary.is_file() {
            return Err(LaunchError::Spawn {
                program,
                error: std::io::Error::new(std::io::ErrorKind::NotFound, "no such file"),
            });
        }
        let pipe_error = |error: std::io::Error| LaunchError::NotReady {
            what: "the CDP pipe".into(),
            detail: error.to_string(),
        };
        // Two anonymous pipes (close-on-exec, so no other child inherits them). Chromium's ends
        // go back to blocking mode: it reads and writes them from a thread of its own with
        // blocking calls.
        let (allwright_writes, chromium_reads) = pipe::pipe().map_err(pipe_error)?;
        let (chromium_writes, allwright_reads) = pipe::pipe().map_err(pipe_error)?;
        let chromium_reads = chromium_reads.into_blocking_fd().map_err(pipe_error)?;
        let chromium_writes = chromium_writes.into_blocking_fd().map_err(pipe_error)?;
        let mut command = Command::new("/bin/sh");
        command
            .arg("-c")
            .arg(START_WITH_PIPE_ON_FDS_3_AND_4)
            .arg(&chromium_binary)
            .args(options.launch_arguments_for(chromium_runs_without_sandbox()))
            .envs(
                options
                    .environment
                    .iter()
                    .map(|(name, value)| (name, value)),
            );
        let mut process = ProcessGroup::spawn_with_standard_io(
            command,
            Stdio::from(chromium_reads),
            Stdio::from(chromium_writes),
            options.log_path.as_deref(),
        )
        .map_err(|error| LaunchError::Spawn {
            program: program.clone(),
            error,
        })?;
        let (cdp, cdp_events) = CdpPipe::start(allwright_reads, allwright_writes);
        let cdp = Arc::new(cdp);
        let transport = match cdp_pipe::start_bidi_mapper(
            Arc::clone(&cdp),
            cdp_events,
            cdp_pipe::MAPPER_SCRIPT,
            STARTUP_TIMEOUT,
        )
        .await
        {
            Ok(transport) => transport,
            Err(detail) => {
                let exited = process.has_exited();
                process.terminate(Duration::ZERO).await;
                return Err(LaunchError::NotReady {
                    what: if exited {
                        format!("{program} (it exited during startup)")
                    } else {
                        program
                    },
                    detail,
                });
            }
        };
        let mut browser = Self {
            kind: BrowserKind::Chromium,
            bidi: BidiConnection::over_transport(transport),
            process,
            media_features: Some(cdp_pipe::MediaFeatureEmulation::new(Arc::clone(&cdp))),
            chromium_pipe: Some(cdp),
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
        if options.devtools_port_for_oracle_tests {
            match read_devtools_active_port(&options.user_data_dir).await {
                Ok(address) => browser.chromium_debugger_address = Some(address),
                Err(detail) => {
                    browser.process.terminate(Duration::ZERO).await;
                    return Err(LaunchError::NotReady {
                        what: "Chromium's DevTools port (for oracle tests)".into(),
                        detail,
                    });
                }
            }
        }
        Ok(browser)
    }
}

/// The address of the DevTools port that `--remote-debugging-port=0` chose, from the file
/// Chromium writes in its profile (`DevToolsActivePort`: the port, then the browser's path).
async fn read_devtools_active_port(user_data_dir: &Path) -> Result<String, String> {
    let path = user_data_dir.join("DevToolsActivePort");
    let deadline = Instant::now() + STARTUP_TIMEOUT;
    loop {
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        if let Some(port) = text
            .lines()
            .next()
            .and_then(|line| line.trim().parse::<u16>().ok())
        {
            return Ok(format!("127.0.0.1:{port}"));
        }
        if Instant::now() > deadline {
            return Err(format!("{} names no port", path.display()));
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chromium_launch_arguments_carry_the_pipe_and_no_port() {
        let mut options = ChromiumLaunchOptions::new(PathBuf::from("/tmp/profile"));
        options.headless = true;
        let arguments = options.launch_arguments_for(false);
        for expected in [
            "--headless=new",
            "--user-data-dir=/tmp/profile",
            "--remote-debugging-pipe",
            "--enable-unsafe-extension-debugging",
        ] {
            assert!(
                arguments.iter().any(|argument| argument == expected),
                "{expected} in {arguments:?}"
            );
        }
        assert!(
            !arguments
                .iter()
                .any(|argument| argument.starts_with("--remote-debugging-port")),
            "no DevTools port unless a test asks: {arguments:?}"
        );
        options.devtools_port_for_oracle_tests = true;
        assert!(options
            .launch_arguments_for(false)
            .contains(&"--remote-debugging-port=0".to_owned()));
        options.headless = false;
        assert!(!options
            .chromium_arguments()
            .iter()
            .any(|argument| argument.starts_with("--headless")));
    }

    #[test]
    fn the_sandbox_is_turned_off_only_for_root() {
        let options = ChromiumLaunchOptions::new(PathBuf::from("/tmp/profile"));
        let no_sandbox = "--no-sandbox".to_owned();
        assert!(!options.chromium_arguments_for(false).contains(&no_sandbox));
        assert!(!options.launch_arguments_for(false).contains(&no_sandbox));
        assert!(options.chromium_arguments_for(true).contains(&no_sandbox));
        assert!(options.launch_arguments_for(true).contains(&no_sandbox));
        // The real rule follows this process's effective uid.
        assert_eq!(
            options.chromium_arguments().contains(&no_sandbox),
            rustix::process::geteuid().is_root()
        );
        // The `--webdriver` flags never carry the pipe: chromedriver connects in its own way.
        assert!(!options
            .chromium_arguments_for(true)
            .iter()
            .any(|argument| argument.starts_with("--remote-debugging")));
    }

    #[test]
    fn the_session_keeps_prompts_open_only_when_asked() {
        let mut options = ChromiumLaunchOptions::new(PathBuf::from("/tmp/profile"));
        options.keep_user_prompts_open = true;
        assert_eq!(
            options.session_capabilities()["alwaysMatch"]["unhandledPromptBehavior"],
            keep_prompts_open_capability()
        );
        options.keep_user_prompts_open = false;
        assert_eq!(options.session_capabilities(), json!({}));
    }
}
