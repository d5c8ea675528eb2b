//! A browser the MCP server (or `allwright snapshot`) drives over WebDriver BiDi besides the
//! extension's host: one it launched (`--launch`, `browser_launch.rs`) or one a WebDriver remote
//! end started for it (`--webdriver URL`, here). Either way the extension is installed over
//! BiDi and the MCP server talks to the native host that the browser starts.
//!
//! `--webdriver` and the native host: the browser starts the host from its own machine, and the
//! host talks to the MCP server over a local socket. So the remote end must run on this machine
//! (a loopback URL), and these are served (docs/protocol/browser-bridge.md, "The browser bridge"):
//!
//! - `http://...`, a chromedriver or a Selenium standalone started here: it starts a Chromium
//!   for us, so allwright prepares that Chromium's profile with the host's manifest, exactly as
//!   `--launch` does, naming a script that sets the socket of our temporary folder.
//! - `http://...` asked for `browserName` "firefox", a geckodriver or a grid's Firefox node
//!   started here: geckodriver starts Firefox with a profile of its own and its own environment
//!   (it passes `moz:firefoxOptions.env` to Android only), so, as for the `ws://` case below,
//!   the host is the one the user registered and listens on the default socket.
//! - `ws://.../session`, the remote agent of a Firefox someone else started here
//!   (`firefox --remote-debugging-port N`): that Firefox already runs, with its own HOME and
//!   environment, so allwright cannot register anything for it. It starts the host that its
//!   user registered with `allwright install` (`~/.mozilla/native-messaging-hosts/`), and that
//!   host listens on its default socket (`$ALLWRIGHT_SOCKET`, else the per-user path), which
//!   is where the MCP server connects when both run with the same environment.
//!
//! A remote end on another machine (a Selenium Grid node) would need allwright installed on that
//! node (`allwright install`) and the node's host socket forwarded to this machine, so [`connect`]
//! refuses such a URL; `allwright mcp` serves it in BiDi-only mode instead, with no extension
//! ([`connect_without_extension`]; docs/grid.md, "BiDi-only mode").

use std::path::{Path, PathBuf};
use std::sync::Arc;

use allwright_surface_web::remote::{
    parse_remote_url, without_credentials, ExtensionDelivery, RemoteProtocol, RemoteSession,
    RemoteSessionOptions, RequestedCapability, NEW_SESSION_TIMEOUT,
};
use allwright_surface_web::{BidiConnection, BrowserKind, ChromiumLaunchOptions};
use serde_json::json;

use crate::browser_bridge::BidiSessionOwner;
use crate::browser_launch::{self, BrowserChoice, ExtensionChoice, LaunchRequest, LaunchedSession};
use crate::host_client::HostClient;
use crate::identity::ExtensionIdentity;
use crate::install;
use crate::local_socket::{self, SOCKET_ENVIRONMENT_VARIABLE};
use crate::log;
use crate::logging::LOG_FILE_ENVIRONMENT_VARIABLE;
use crate::session_folder::SessionFolder;

/// `--webdriver URL`: the remote end to ask for a browser, and how.
#[derive(Debug, Clone)]
pub struct WebDriverRequest {
    pub url: String,
    pub headless: bool,
    pub extension_dir: Option<PathBuf>,
    /// As [`LaunchRequest::keep_user_prompts_open`].
    pub keep_user_prompts_open: bool,
    /// `--capability NAME=JSON`, merged into the new session's `alwaysMatch`.
    pub capabilities: Vec<RequestedCapability>,
}

/// A browser on a WebDriver remote end, with the extension installed and its host ready.
pub struct RemoteBrowserSession {
    session: RemoteSession,
    /// None in BiDi-only mode: no extension was installed, so no native host runs.
    host: Option<Arc<HostClient>>,
    /// Set for a browser that outlives the session (a Firefox's own remote agent): the
    /// extension to remove again at the end, so that we leave that browser as we found it.
    uninstall_extension: Option<String>,
    // Declared last: removed after the session (and its browser) ended. A Firefox's own remote
    // agent needs no files of ours.
    temporary_root: Option<SessionFolder>,
}

/// The browser the server drives besides the extension's host.
pub enum DrivenBrowser {
    Launched(LaunchedSession),
    Remote(RemoteBrowserSession),
}

impl BidiSessionOwner for DrivenBrowser {
    fn bidi(&self) -> &BidiConnection {
        match self {
            Self::Launched(session) => session.bidi(),
            Self::Remote(remote) => remote.session.bidi(),
        }
    }

    fn browser_name(&self) -> String {
        let name = match self {
            Self::Launched(session) => session.kind().name(),
            // WebDriver's capability, "chrome" or "firefox" (a remote end may name others).
            Self::Remote(remote) => remote.session.capabilities()["browserName"]
                .as_str()
                .unwrap_or("the browser"),
        };
        match name {
            "chromium" | "chrome" => "Chromium".to_owned(),
            "firefox" => "Firefox".to_owned(),
            other => other.to_owned(),
        }
    }

    /// Only a Chromium allwright launched holds a CDP pipe; a remote end's browser is reached
    /// over BiDi alone.
    fn media_features(&self) -> Option<&allwright_surface_web::launch::MediaFeatureEmulation> {
        match self {
            Self::Launched(session) => session.media_features(),
            Self::Remote(_) => None,
        }
    }
}

impl DrivenBrowser {
    /// The private folder a launched browser saves downloads in; None for a remote end's
    /// browser, which saves them where its own settings say.
    pub fn download_folder(&self) -> Option<PathBuf> {
        match self {
            Self::Launched(session) => Some(session.download_folder()),
            Self::Remote(_) => None,
        }
    }

    /// The connection to the browser's host, already past `ready`; None in BiDi-only mode.
    pub fn host(&self) -> Option<Arc<HostClient>> {
        match self {
            Self::Launched(session) => session.host(),
            Self::Remote(remote) => remote.host.clone(),
        }
    }

    /// Closes the browser (ends the remote session) and removes the temporary files.
    pub async fn shutdown(self) {
        match self {
            Self::Launched(session) => session.shutdown().await,
            Self::Remote(RemoteBrowserSession {
                session,
                host,
                uninstall_extension,
                temporary_root,
            }) => {
                drop(host);
                if let Some(extension) = uninstall_extension {
                    // WebDriver BiDi, "webExtension.uninstall": the extension (and so the host
                    // it started) goes away, while the browser and its other tabs stay.
                    if let Err(error) = session
                        .bidi()
                        .command("webExtension.uninstall", json!({ "extension": extension }))
                        .await
                    {
                        log!("could not remove the extension from the remote browser: {error}");
                    }
                }
                session.end().await;
                if let Some(temporary_root) = temporary_root {
                    temporary_root.remove();
                }
            }
        }
    }

    /// As [`DrivenBrowser::shutdown`] for a session still shared; if someone else still holds
    /// it, it is dropped instead (a launched browser's processes are killed).
    /// A holder that is ending (a task of the MCP service, a bridge call) gets a moment to let go
    /// first, since only an unshared session can be shut down whole.
    pub async fn shutdown_shared(browser: Arc<Self>) {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
        let mut browser = browser;
        loop {
            match Arc::try_unwrap(browser) {
                Ok(browser) => return browser.shutdown().await,
                Err(shared) if std::time::Instant::now() < deadline => {
                    browser = shared;
                    tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                }
                Err(shared) => {
                    log!("the browser is still in use at shutdown; dropping it");
                    drop(shared);
                    return;
                }
            }
        }
    }
}

/// Launches a browser (`--launch`) or asks a remote end for one (`--webdriver`), with the
/// extension installed or, in BiDi-only mode, without.
pub async fn start(
    launch: Option<&LaunchRequest>,
    webdriver: Option<&WebDriverRequest>,
    extension: ExtensionChoice,
) -> Result<Option<DrivenBrowser>, String> {
    match (launch, webdriver) {
        (Some(request), _) => Ok(Some(DrivenBrowser::Launched(
            browser_launch::launch_with(request, extension).await?,
        ))),
        (None, Some(request)) if extension == ExtensionChoice::Without => Ok(Some(
            DrivenBrowser::Remote(connect_without_extension(request).await?),
        )),
        (None, Some(request)) => Ok(Some(DrivenBrowser::Remote(connect(request).await?))),
        (None, None) => Ok(None),
    }
}

/// Whether `--webdriver URL` names a remote end on another machine, which BiDi-only mode
/// serves by itself (the extension's native host could not reach this server from there). A
/// URL that does not parse is left for [`connect`] to refuse with its reason.
pub fn is_on_another_machine(url: &str) -> bool {
    parse_remote_url(url).is_ok_and(|endpoint| !endpoint.is_loopback())
}

/// `--webdriver URL` in BiDi-only mode: a new session with nothing installed, on any remote
/// end, this machine's or another's. An `http://` end gives a Chromium unless
/// `--capability browserName=...` asks for another browser; a `ws://` end is a browser's own
/// remote agent.
pub async fn connect_without_extension(
    request: &WebDriverRequest,
) -> Result<RemoteBrowserSession, String> {
    let endpoint = parse_remote_url(&request.url).map_err(|error| error.to_string())?;
    let kind = match endpoint.protocol {
        RemoteProtocol::ClassicHttp => BrowserKind::Chromium,
        RemoteProtocol::BidiWebSocket => BrowserKind::Firefox,
    };
    let mut options = RemoteSessionOptions::new(request.url.clone(), kind);
    let mut temporary_root = None;
    if endpoint.protocol == RemoteProtocol::ClassicHttp {
        // Both vendors' options, as the node's browser may be either: each browser reads only
        // its own key (WebDriver, "Extensions": a capability with a prefix is its vendor's).
        let chrome_options = if endpoint.is_loopback() {
            // A Chromium on this machine gets what a launch gives it (connect_chromium): a
            // private profile, the sandbox rule, this machine's real binary.
            let root = SessionFolder::create()?;
            let mut chromium = ChromiumLaunchOptions::new(root.private_folder("profile")?);
            chromium.headless = request.headless;
            allwright_surface_web::launch::say_once_when_chromium_runs_without_sandbox();
            let mut chrome_options = json!({ "args": chromium.chromium_arguments() });
            if let Ok(chromium_binary) = chromium.chromium_executable() {
                chrome_options["binary"] = json!(chromium_binary.to_string_lossy());
            }
            temporary_root = Some(root);
            Some(chrome_options)
        } else {
            request
                .headless
                .then(|| json!({ "args": ["--headless=new"] }))
        };
        if let Some(chrome_options) = chrome_options {
            options
                .extra_capabilities
                .insert("goog:chromeOptions".into(), chrome_options);
        }
        if request.headless {
            options.extra_capabilities.insert(
                "moz:firefoxOptions".into(),
                json!({ "args": ["-headless"] }),
            );
        }
    }
    options.keep_user_prompts_open = request.keep_user_prompts_open;
    options.requested_capabilities = request.capabilities.clone();
    options.progress = Some(new_session_progress(&request.url));
    log!(
        "asking {} for a browser without the extension (BiDi-only mode)",
        without_credentials(&request.url)
    );
    let session = match RemoteSession::start(&options).await {
        Ok(session) => session,
        Err(error) => {
            if let Some(root) = temporary_root {
                root.remove();
            }
            return Err(format!(
                "--webdriver {}: {error}",
                without_credentials(&request.url)
            ));
        }
    };
    Ok(RemoteBrowserSession {
        session,
        host: None,
        uninstall_extension: None,
        temporary_root,
    })
}

/// `--webdriver URL`: a new session on the remote end (a loopback one), the extension installed
/// by path, and the host ready.
pub async fn connect(request: &WebDriverRequest) -> Result<RemoteBrowserSession, String> {
    let endpoint = parse_remote_url(&request.url).map_err(|error| error.to_string())?;
    if !endpoint.is_loopback() {
        return Err(format!(
            "--webdriver {}: the remote end is on another machine, where the browser would start \
allwright's native host, which must reach this MCP server over a local socket. Run `allwright mcp --webdriver` \
on that machine instead (after `allwright install` there), or use a remote end on this machine",
            without_credentials(&request.url)
        ));
    }
    match endpoint.protocol {
        RemoteProtocol::ClassicHttp => match requested_browser(&request.capabilities) {
            BrowserKind::Chromium => connect_chromium(request).await,
            BrowserKind::Firefox => connect_firefox(request, RemoteProtocol::ClassicHttp).await,
        },
        RemoteProtocol::BidiWebSocket => {
            connect_firefox(request, RemoteProtocol::BidiWebSocket).await
        }
    }
}

/// Logs, while a new session request waits (a grid's queue), how long it has waited: a person
/// watching stderr sees why nothing happens yet. The MCP server answers its client only once the
/// browser is there, so stderr is the one channel at that moment.
fn new_session_progress(url: &str) -> allwright_surface_web::remote::NewSessionProgress {
    let shown = without_credentials(url);
    Arc::new(move |waited: std::time::Duration| {
        log!(
            "still waiting for {shown} to create a session ({} s so far; a grid queues the request until a slot is free; allwright waits up to {} s)",
            waited.as_secs(),
            NEW_SESSION_TIMEOUT.as_secs()
        )
    })
}

/// The browser an http remote end is asked for: a Firefox when `--capability browserName` names
/// one (geckodriver, or a grid's Firefox node), else a Chromium (`"chrome"`, or another Chromium
/// build the person names, such as `"MicrosoftEdge"`, whose options are Chromium's too).
fn requested_browser(capabilities: &[RequestedCapability]) -> BrowserKind {
    let asks_for_firefox = capabilities.iter().any(|capability| {
        capability.name == "browserName"
            && capability
                .value
                .as_str()
                .is_some_and(|name| name.eq_ignore_ascii_case("firefox"))
    });
    if asks_for_firefox {
        BrowserKind::Firefox
    } else {
        BrowserKind::Chromium
    }
}

/// A chromedriver or Selenium standalone on this machine: a Chromium with a profile of ours that
/// registers the native host.
async fn connect_chromium(request: &WebDriverRequest) -> Result<RemoteBrowserSession, String> {
    let identity = ExtensionIdentity::compiled_in()?;
    let extension_folder = browser_launch::locate_extension(&LaunchRequest {
        browser: BrowserChoice::Chromium,
        headless: request.headless,
        extension_dir: request.extension_dir.clone(),
        keep_user_prompts_open: request.keep_user_prompts_open,
    })?;
    let executable = browser_launch::own_executable()?;
    let temporary_root = SessionFolder::create()?;
    let root = temporary_root.path();
    let socket_path = root.join("run").join("host.sock");
    let host_log = temporary_root.private_file("host.log", 0o600)?;
    temporary_root.private_folder("run")?;
    // The remote end starts the browser with its own environment, so the host cannot inherit
    // ALLWRIGHT_SOCKET from us as it does under --launch: the manifest names a small script
    // that sets it and starts this program.
    let host_script = write_host_script(&temporary_root, &executable, &socket_path, &host_log)?;
    let user_data_dir = root.join("profile");
    install::write_manifest(
        &temporary_root.private_folder("profile/NativeMessagingHosts")?,
        &identity,
        &install::chrome_host_manifest(&identity, &host_script),
    )?;
    let mut chromium = ChromiumLaunchOptions::new(user_data_dir);
    chromium.headless = request.headless;
    // The remote end's Chromium gets the same sandbox rule as a launched one (--no-sandbox only
    // for root), so the same notice.
    allwright_surface_web::launch::say_once_when_chromium_runs_without_sandbox();
    let mut chrome_options = json!({ "args": chromium.chromium_arguments() });
    // The remote end is on this machine, so it gets the Chromium a launch would start: the
    // real binary rather than a wrapper that adds flags of its own (Debian's /usr/bin/chromium),
    // or $ALLWRIGHT_CHROMIUM. Without one found here, chromedriver looks for its own.
    if let Ok(chromium_binary) = chromium.chromium_executable() {
        chrome_options["binary"] = json!(chromium_binary.to_string_lossy());
    }
    let mut options = RemoteSessionOptions::new(request.url.clone(), BrowserKind::Chromium);
    options
        .extra_capabilities
        .insert("goog:chromeOptions".into(), chrome_options);
    options.keep_user_prompts_open = request.keep_user_prompts_open;
    options.extension = Some(extension_folder.clone());
    options.extension_delivery = ExtensionDelivery::LocalPath;
    options.requested_capabilities = request.capabilities.clone();
    options.progress = Some(new_session_progress(&request.url));
    log!(
        "asking {} for a Chromium with the extension in {}",
        without_credentials(&request.url),
        extension_folder.display()
    );
    let session = RemoteSession::start(&options)
        .await
        .map_err(|error| format!("--webdriver {}: {error}", without_credentials(&request.url)))?;
    let ready = async {
        let installed_id = session.extension_id().unwrap_or_default();
        if installed_id != identity.chrome_extension_id {
            return Err(format!(
                "the remote browser installed the extension as {installed_id}, not {}: the built manifest's key differs from manifest/identity.json",
                identity.chrome_extension_id
            ));
        }
        browser_launch::host_once_ready(&socket_path, &[&host_log]).await
    }
    .await;
    match ready {
        Ok(host) => Ok(RemoteBrowserSession {
            session,
            host: Some(host),
            uninstall_extension: None,
            temporary_root: Some(temporary_root),
        }),
        Err(message) => {
            session.end().await;
            Err(message)
        }
    }
}

/// `moz:firefoxOptions` for a Firefox that geckodriver starts here (geckodriver's
/// documentation, "Firefox capabilities"): `-headless` when asked, and the Firefox a launch would
/// start (`$ALLWRIGHT_FIREFOX` or Debian's firefox-esr; without one found here, geckodriver looks
/// for its own). No `env`: geckodriver gives it to a Firefox on Android only (its `browser.rs`
/// starts a desktop Firefox with geckodriver's own environment), which is why the host's
/// registration must be the user's own (`connect_firefox`).
fn firefox_options(headless: bool) -> serde_json::Value {
    let mut options = json!({ "args": if headless { vec!["-headless"] } else { Vec::new() } });
    if let Ok(firefox) =
        allwright_surface_web::find_executable(allwright_surface_web::Program::Firefox)
    {
        options["binary"] = json!(firefox.to_string_lossy());
    }
    options
}

/// A Firefox on this machine whose environment is not ours to set: the remote agent of a Firefox
/// that runs already (`ws://`, WebDriver BiDi, "Establishing a connection": a BiDi-only session
/// with `session.new`), or one that a geckodriver or a grid's Firefox node starts (`http://`
/// with `browserName` "firefox": geckodriver starts it with its own environment and a profile
/// of its own, and passes no variables of ours to it). Either way its user registered
/// allwright's host for it (`allwright install`, `~/.mozilla/native-messaging-hosts/` of the
/// HOME that Firefox runs with), so the host it starts listens on the default socket of that
/// user's environment, where we connect. Since that socket may still hold an older host (the
/// user's own browser, say), only a host started after the extension was installed counts; and
/// so one such Firefox per socket at a time.
async fn connect_firefox(
    request: &WebDriverRequest,
    protocol: RemoteProtocol,
) -> Result<RemoteBrowserSession, String> {
    let identity = ExtensionIdentity::compiled_in()?;
    let extension_folder = browser_launch::locate_extension(&LaunchRequest {
        browser: BrowserChoice::Firefox,
        headless: request.headless,
        extension_dir: request.extension_dir.clone(),
        keep_user_prompts_open: request.keep_user_prompts_open,
    })?;
    let socket_path = local_socket::default_socket_path();
    let older_host = socket_file_identity(&socket_path);
    let mut options = RemoteSessionOptions::new(request.url.clone(), BrowserKind::Firefox);
    options.keep_user_prompts_open = request.keep_user_prompts_open;
    options.extension = Some(extension_folder.clone());
    options.extension_delivery = ExtensionDelivery::LocalPath;
    options.requested_capabilities = request.capabilities.clone();
    // A Firefox that geckodriver starts ends with its session; one that runs already is the
    // user's, and only the extension is removed from it at the end.
    let browser_outlives_the_session = protocol == RemoteProtocol::BidiWebSocket;
    if !browser_outlives_the_session {
        options.extra_capabilities.insert(
            "moz:firefoxOptions".into(),
            firefox_options(request.headless),
        );
        options.progress = Some(new_session_progress(&request.url));
    }
    log!(
        "asking the Firefox at {} to install the extension in {}; its host should listen on {}",
        without_credentials(&request.url),
        extension_folder.display(),
        socket_path.display()
    );
    let session = RemoteSession::start(&options)
        .await
        .map_err(|error| format!("--webdriver {}: {error}", without_credentials(&request.url)))?;
    let installed_id = session.extension_id().unwrap_or_default().to_owned();
    let ready = async {
        if installed_id != identity.gecko_id {
            return Err(format!(
                "the remote Firefox installed the extension as {installed_id}, not {}: the built manifest's gecko id differs from manifest/identity.json",
                identity.gecko_id
            ));
        }
        wait_for_new_socket(&socket_path, older_host).await?;
        browser_launch::host_once_ready(&socket_path, &[]).await
    }
    .await;
    match ready {
        Ok(host) => Ok(RemoteBrowserSession {
            session,
            host: Some(host),
            uninstall_extension: Some(installed_id).filter(|_| browser_outlives_the_session),
            temporary_root: None,
        }),
        Err(message) => {
            if !installed_id.is_empty() {
                let _ = session
                    .bidi()
                    .command(
                        "webExtension.uninstall",
                        json!({ "extension": installed_id }),
                    )
                    .await;
            }
            session.end().await;
            Err(message)
        }
    }
}

/// The socket file's device and inode, if there is one.
fn socket_file_identity(path: &Path) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    std::fs::symlink_metadata(path)
        .ok()
        .map(|metadata| (metadata.dev(), metadata.ino()))
}

/// Waits until a socket other than `older` is at `path`: a host binds a fresh socket when it
/// starts (replacing an older one, `local_socket::PrivateSocket::bind`).
async fn wait_for_new_socket(path: &Path, older: Option<(u64, u64)>) -> Result<(), String> {
    let deadline = std::time::Instant::now() + browser_launch::HOST_READY_TIMEOUT;
    loop {
        let current = socket_file_identity(path);
        if current.is_some() && current != older {
            return Ok(());
        }
        if std::time::Instant::now() >= deadline {
            return Err(format!(
                "the remote Firefox did not start allwright's native host on {} within {} s. That Firefox (or the \
geckodriver or grid node that starts it) must run as this user with `allwright install` done in its HOME (~/.mozilla/native-messaging-hosts/), and with the same \
{SOCKET_ENVIRONMENT_VARIABLE} (or XDG_RUNTIME_DIR) as this command; and if another browser's allwright host is \
still running on that socket, the new host leaves it alone and exits (\"already running\"): close that browser first",
                path.display(),
                browser_launch::HOST_READY_TIMEOUT.as_secs()
            ));
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
}

/// Writes `host.sh` (owner-only): sets the socket and log file, then runs this program with
/// the arguments the browser gives a native host.
fn write_host_script(
    root: &SessionFolder,
    executable: &Path,
    socket_path: &Path,
    host_log: &Path,
) -> Result<PathBuf, String> {
    let script = root.private_file("host.sh", 0o700)?;
    let text = format!(
        "#!/bin/sh\n{SOCKET_ENVIRONMENT_VARIABLE}={} {LOG_FILE_ENVIRONMENT_VARIABLE}={} exec {} \"$@\"\n",
        shell_quoted(socket_path),
        shell_quoted(host_log),
        shell_quoted(executable)
    );
    std::fs::write(&script, text)
        .map_err(|error| format!("cannot write {}: {error}", script.display()))?;
    Ok(script)
}

/// A path as one POSIX shell word: single-quoted, each `'` written as `'\''`.
fn shell_quoted(path: &Path) -> String {
    format!("'{}'", path.to_string_lossy().replace('\'', "'\\''"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Both kinds of remote end are refused on another machine, before anything is asked of
    /// them: the host the browser starts could not reach this server's local socket.
    #[tokio::test]
    async fn remote_ends_on_another_machine_are_refused() {
        for url in [
            "http://192.0.2.1:4444/wd/hub",
            "ws://192.0.2.1:9222/session",
        ] {
            let request = WebDriverRequest {
                url: url.to_owned(),
                headless: true,
                extension_dir: None,
                keep_user_prompts_open: true,
                capabilities: Vec::new(),
            };
            let error = connect(&request).await.err().expect("refused");
            assert!(error.contains("on another machine"), "{error}");
        }
    }

    /// A remote end on another machine selects BiDi-only mode; loopback ones, and URLs that do
    /// not parse (left for `connect` to refuse with its reason), do not.
    #[test]
    fn only_remote_ends_elsewhere_select_bidi_only_mode() {
        assert!(is_on_another_machine("http://192.0.2.1:4444"));
        assert!(is_on_another_machine(
            "https://user:secret@grid.example:443/wd/hub"
        ));
        assert!(is_on_another_machine("ws://192.0.2.1:9222/session"));
        assert!(!is_on_another_machine("http://127.0.0.1:4444"));
        assert!(!is_on_another_machine("http://localhost:9515"));
        assert!(!is_on_another_machine("ws://[::1]:9222/session"));
        assert!(!is_on_another_machine("ftp://192.0.2.1/"));
    }

    /// An http remote end gives a Chromium unless `browserName` names a Firefox (in any case):
    /// then geckodriver's Firefox gets the host's registration instead of a Chromium profile.
    #[test]
    fn an_http_remote_end_gives_the_browser_its_browser_name_names() {
        let asking = |value: &str| {
            requested_browser(&[format!("browserName={value}")
                .parse()
                .expect("a capability")])
        };
        assert_eq!(asking("\"Firefox\""), BrowserKind::Firefox);
        assert_eq!(asking("\"firefox\""), BrowserKind::Firefox);
        assert_eq!(asking("\"MicrosoftEdge\""), BrowserKind::Chromium);
        assert_eq!(asking("\"chrome\""), BrowserKind::Chromium);
        assert_eq!(requested_browser(&[]), BrowserKind::Chromium);
    }

    /// geckodriver's Firefox is headless only when asked.
    #[test]
    fn geckodrivers_firefox_is_headless_when_asked() {
        assert_eq!(firefox_options(true)["args"], json!(["-headless"]));
        assert_eq!(firefox_options(false)["args"], json!([]));
    }

    #[test]
    fn paths_are_single_shell_words() {
        assert_eq!(shell_quoted(Path::new("/tmp/a b")), "'/tmp/a b'");
        assert_eq!(shell_quoted(Path::new("/tmp/it's")), "'/tmp/it'\\''s'");
    }
}
