//! Firefox with its remote agent: started directly with `--remote-debugging-port`, the agent
//! serves BiDi at `/session`. The remote agent only speaks TCP, so Firefox runs in a private user
//! and network namespace where that port exists on the namespace's own loopback alone
//! (`private_network.rs`); its pages reach the network through allwright's SOCKS proxy on a
//! private Unix socket (`socks_proxy.rs`).

use std::ffi::OsString;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use super::executables::{self, ExecutableNotFound, Program};
use super::private_network::PrivateNetwork;
use super::process::ProcessGroup;
use super::{socks_proxy, BrowserKind, LaunchError, LaunchedBrowser, STARTUP_TIMEOUT};
use crate::bidi::BidiConnection;
use crate::lifecycle::keep_prompts_open_capability;

/// Everything needed to start Firefox with its remote agent.
#[derive(Debug, Clone)]
pub struct FirefoxLaunchOptions {
    /// Firefox's executable; `None` (the default) finds it when the browser starts
    /// ([`executables::find_executable`]: `$ALLWRIGHT_FIREFOX`, the system's usual places, then
    /// `PATH`).
    pub binary: Option<PathBuf>,
    /// A fresh folder: the Firefox profile.
    pub profile_dir: PathBuf,
    pub headless: bool,
    /// Variables set for Firefox, which the native hosts it starts inherit. Set `HOME` to a
    /// temporary folder: Firefox writes into `~/.config/mozilla` and `~/Downloads`.
    pub environment: Vec<(String, OsString)>,
    pub log_path: Option<PathBuf>,
    /// As [`ChromiumLaunchOptions::keep_user_prompts_open`].
    pub keep_user_prompts_open: bool,
    /// Where downloads land, without a dialog ([`download_preferences`]); `None` leaves
    /// Firefox's own choice (`~/Downloads` of the `HOME` it is given).
    pub download_folder: Option<PathBuf>,
}

impl FirefoxLaunchOptions {
    pub fn new(profile_dir: PathBuf) -> Self {
        Self {
            binary: None,
            profile_dir,
            headless: true,
            environment: Vec::new(),
            log_path: None,
            keep_user_prompts_open: true,
            download_folder: None,
        }
    }

    /// The executable this launch starts: the one given, else the one found on this machine.
    pub fn firefox_executable(&self) -> Result<PathBuf, ExecutableNotFound> {
        executables::given_or_found(self.binary.as_deref(), Program::Firefox)
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
            FIRST_TAB_URL.to_owned(),
        ]);
        arguments
    }
}

/// The page of Firefox's first tab: a blank page whose window focuses the page, not the address
/// bar, so that the page behaves as a focused window's page (`document.hasFocus()` is true and
/// a click into a field fires `focus` and `focusin`; issue 30, item 7).
///
/// Firefox gives the first window's focus to its page unless the page to load is a "blank
/// page" (`gBrowserInit._setInitialFocus` in browser/base/content/browser-init.js), and then
/// to the address bar, ready for typing. `isBlankPageURL` (utilityOverlay.js) compares the URL
/// as a string with `about:blank`, `about:home`, `about:welcome` and the new tab page, so
/// `about:blank?` is not one of them, while it loads the same empty document (about: URLs
/// ignore their query; `Document.URL` keeps the `?`). With focus on the address bar, the
/// headless window is focused but the page is not: `hasFocus()` is false and clicks move
/// `activeElement` without `focus` events.
const FIRST_TAB_URL: &str = "about:blank?";

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

/// Preferences that save every download into `folder` without asking: the folder of the
/// preference `browser.download.dir` (`folderList` 2: a folder of our choosing), no dialog for a
/// new type, and the file written in place rather than first in the temporary folder.
fn download_preferences(folder: &Path) -> String {
    let folder = serde_json::to_string(&folder.display().to_string()).unwrap_or_default();
    format!(
        r#"user_pref("browser.download.dir", {folder});
user_pref("browser.download.folderList", 2);
user_pref("browser.download.useDownloadDir", true);
user_pref("browser.download.always_ask_before_handling_new_types", false);
user_pref("browser.download.start_downloads_in_tmp_dir", false);
user_pref("browser.download.alwaysOpenPanel", false);
"#
    )
}

/// Preferences that send every connection of Firefox through allwright's SOCKS proxy, the only
/// way out of its private network namespace (`private_network.rs`, `socks_proxy.rs`). Without
/// them pages would fail to load; with them, nothing a page does can make Firefox connect
/// directly, and a direct connection would only reach the namespace's own loopback anyway.
/// - The proxy is a Unix socket (`file://` in `network.proxy.socks`); the port is unused.
/// - `socks_remote_dns`: names are resolved by allwright, as the namespace has no DNS server.
/// - `allow_hijacking_localhost` and an empty `no_proxies_on`: localhost and 127.0.0.1 go through
///   the proxy too, so pages reach the machine's loopback (a local dev server), not the
///   namespace's (where only the remote agent listens).
/// - `failover_direct` off: a proxy failure never becomes a direct connection.
/// - HTTP/3 off (QUIC is UDP, which SOCKS CONNECT cannot carry); DNS over HTTPS off (mode 5) and
///   DNS prefetch off (they would try the namespace's unreachable resolver).
/// - WebRTC is left as it is: nothing it sends can leave the namespace (its only interface is
///   `lo`), so peer connections to other machines fail rather than bypass the proxy.
/// - The captive portal and connectivity probes are off: nothing for them to find.
fn proxy_preferences(socket_url: &str) -> String {
    format!(
        r#"user_pref("network.proxy.type", 1);
user_pref("network.proxy.socks", "{socket_url}");
user_pref("network.proxy.socks_port", 0);
user_pref("network.proxy.socks_version", 5);
user_pref("network.proxy.socks_remote_dns", true);
user_pref("network.proxy.allow_hijacking_localhost", true);
user_pref("network.proxy.no_proxies_on", "");
user_pref("network.proxy.failover_direct", false);
user_pref("network.proxy.share_proxy_settings", false);
user_pref("network.http.http3.enable", false);
user_pref("network.trr.mode", 5);
user_pref("network.dns.disablePrefetch", true);
user_pref("network.dns.disablePrefetchFromHTTPS", true);
user_pref("network.predictor.enabled", false);
user_pref("network.captive-portal-service.enabled", false);
user_pref("network.connectivity-service.enabled", false);
"#
    )
}

/// The remote agent's port inside Firefox's private network namespace. Nothing else listens
/// there, so a fixed port needs no discovery and cannot collide.
const REMOTE_AGENT_PORT: u16 = 9222;

/// What Firefox's proxy needs for as long as Firefox runs: the task that serves it and the
/// private folder that holds its socket (removed when this is dropped).
struct SocksProxyForFirefox {
    task: tokio::task::JoinHandle<()>,
    _folder: tempfile::TempDir,
}

impl Drop for SocksProxyForFirefox {
    fn drop(&mut self) {
        self.task.abort();
    }
}

fn profile_error(error: std::io::Error) -> LaunchError {
    LaunchError::NotReady {
        what: "the Firefox profile".into(),
        detail: error.to_string(),
    }
}

/// The hint of a namespace that could not be made: which of the system's known switches is set
/// against it, and what to do instead.
fn private_namespace_hint() -> String {
    let mut settings = Vec::new();
    for (file, blocking_value) in [
        ("/proc/sys/kernel/unprivileged_userns_clone", "0"),
        (
            "/proc/sys/kernel/apparmor_restrict_unprivileged_userns",
            "1",
        ),
        ("/proc/sys/user/max_user_namespaces", "0"),
    ] {
        if let Ok(value) = std::fs::read_to_string(file) {
            if value.trim() == blocking_value {
                let name = file.trim_start_matches("/proc/sys/").replace('/', ".");
                settings.push(format!("{name} = {blocking_value}"));
            }
        }
    }
    let cause = if settings.is_empty() {
        "this system does not let an unprivileged process create user namespaces (a container's \
         seccomp filter, or a security module)"
            .to_owned()
    } else {
        format!(
            "this system does not let an unprivileged process create user namespaces ({})",
            settings.join(", ")
        )
    };
    format!(
        "allwright runs Firefox in a private user and network namespace so that no other user \
         and no web page can reach its remote agent's port; {cause}. Allow unprivileged user \
         namespaces (on Ubuntu 24.04, an AppArmor profile with `userns` for allwright), or \
         start Firefox yourself with --remote-debugging-port and use `allwright mcp --webdriver \
         ws://127.0.0.1:PORT/session`."
    )
}

/// A TCP connection to the remote agent, made on a socket from inside Firefox's namespace.
async fn connect_to_remote_agent(
    network: &std::sync::Arc<PrivateNetwork>,
) -> std::io::Result<tokio::net::TcpStream> {
    let network = std::sync::Arc::clone(network);
    let socket = tokio::task::spawn_blocking(move || network.socket_inside())
        .await
        .map_err(std::io::Error::other)??;
    socket.set_nonblocking(true)?;
    let address = std::net::SocketAddr::from((std::net::Ipv4Addr::LOCALHOST, REMOTE_AGENT_PORT));
    tokio::net::TcpSocket::from_std_stream(socket)
        .connect(address)
        .await
}

impl LaunchedBrowser {
    /// Starts Firefox in a private user and network namespace (`private_network.rs`) with every
    /// connection sent through a SOCKS proxy on a private Unix socket (`socks_proxy.rs`), and
    /// opens a BiDi session on its remote agent.
    pub async fn launch_firefox(options: &FirefoxLaunchOptions) -> Result<Self, LaunchError> {
        // Before anything is written: a machine without Firefox is told so, not left a profile.
        let firefox_binary = options.firefox_executable()?;
        std::fs::create_dir_all(&options.profile_dir).map_err(profile_error)?;
        // A 0700 folder (tempfile's default mode is 0777 less the umask): only this user can
        // reach the proxy's socket, whatever the umask. It sits beside the profile, in the
        // folder the caller made for this browser (allwright's session folder), so that the
        // sweep of a killed session's folder removes it too.
        let proxy_folder_parent = options
            .profile_dir
            .parent()
            .filter(|parent| !parent.as_os_str().is_empty())
            .map_or_else(std::env::temp_dir, Path::to_owned);
        let proxy_folder = tempfile::Builder::new()
            .prefix("allwright-firefox-")
            .permissions(std::fs::Permissions::from_mode(0o700))
            .tempdir_in(proxy_folder_parent)
            .map_err(|error| LaunchError::NotReady {
                what: "the folder of Firefox's proxy socket".into(),
                detail: error.to_string(),
            })?;
        let proxy_socket = proxy_folder.path().join("socks");
        let proxy_listener = tokio::net::UnixListener::bind(&proxy_socket).map_err(|error| {
            LaunchError::NotReady {
                what: format!("Firefox's proxy socket {}", proxy_socket.display()),
                detail: error.to_string(),
            }
        })?;
        let mut preferences = format!(
            "{FIREFOX_PROFILE_PREFERENCES}{}",
            proxy_preferences(&socks_proxy::file_url(&proxy_socket))
        );
        if let Some(folder) = &options.download_folder {
            preferences.push_str(&download_preferences(folder));
        }
        std::fs::write(options.profile_dir.join("user.js"), preferences).map_err(profile_error)?;

        let program = firefox_binary.display().to_string();
        let mut command = tokio::process::Command::new(&firefox_binary);
        command
            .args(options.firefox_arguments(REMOTE_AGENT_PORT))
            .envs(
                options
                    .environment
                    .iter()
                    .map(|(name, value)| (name, value)),
            );
        let network =
            PrivateNetwork::install(&mut command).map_err(|error| LaunchError::Spawn {
                program: program.clone(),
                error,
            })?;
        let mut process = match ProcessGroup::spawn(command, options.log_path.as_deref()) {
            Ok(process) => process,
            Err(error) => {
                return Err(match network.failed_step() {
                    Some(step) => LaunchError::PrivateNamespace {
                        step: step.describe(),
                        error,
                        hint: private_namespace_hint(),
                    },
                    None => LaunchError::Spawn { program, error },
                })
            }
        };
        process.keep_until_ended(Box::new(SocksProxyForFirefox {
            task: socks_proxy::serve(proxy_listener),
            _folder: proxy_folder,
        }));

        // The remote agent listens a moment after start; retry until it answers.
        let network = std::sync::Arc::new(network);
        let url = format!("ws://127.0.0.1:{REMOTE_AGENT_PORT}/session");
        let deadline = Instant::now() + STARTUP_TIMEOUT;
        let bidi = loop {
            let error = match connect_to_remote_agent(&network).await {
                Ok(stream) => match BidiConnection::connect_over_stream(&url, stream).await {
                    Ok(bidi) => break bidi,
                    Err(error) => error.to_string(),
                },
                Err(error) => error.to_string(),
            };
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
                    detail: error,
                });
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        };
        // Closing allwright's end ends the keeper: no more sockets are needed inside.
        drop(network);
        let mut browser = Self {
            kind: BrowserKind::Firefox,
            bidi,
            process,
            chromium_pipe: None,
            media_features: None,
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

    /// Every preference that keeps a connection on the proxy is there, once, with its value.
    #[test]
    fn downloads_go_to_the_given_folder_without_a_dialog() {
        let preferences = download_preferences(Path::new("/tmp/s \"x\"/downloads"));
        assert!(
            preferences.contains(r#"user_pref("browser.download.dir", "/tmp/s \"x\"/downloads");"#)
        );
        assert!(preferences.contains(r#"user_pref("browser.download.folderList", 2);"#));
        assert!(preferences.contains(r#"user_pref("browser.download.useDownloadDir", true);"#));
    }

    #[test]
    fn the_proxy_preferences_name_the_socket_and_leave_no_way_around_it() {
        let preferences = proxy_preferences("file:///tmp/allwright-firefox-x/socks");
        for line in [
            r#"user_pref("network.proxy.type", 1);"#,
            r#"user_pref("network.proxy.socks", "file:///tmp/allwright-firefox-x/socks");"#,
            r#"user_pref("network.proxy.socks_version", 5);"#,
            r#"user_pref("network.proxy.socks_remote_dns", true);"#,
            r#"user_pref("network.proxy.allow_hijacking_localhost", true);"#,
            r#"user_pref("network.proxy.no_proxies_on", "");"#,
            r#"user_pref("network.proxy.failover_direct", false);"#,
            r#"user_pref("network.http.http3.enable", false);"#,
            r#"user_pref("network.trr.mode", 5);"#,
        ] {
            assert_eq!(
                preferences
                    .lines()
                    .filter(|written| *written == line)
                    .count(),
                1,
                "{line}"
            );
        }
    }
}
