//! A browser the MCP server (or `allwright snapshot`) drives over WebDriver BiDi besides the
//! extension's host: one it launched (`--launch`, `browser_launch.rs`) or one a WebDriver remote
//! end started for it (`--webdriver URL`, here). Either way the extension is installed over
//! BiDi and the native host the browser starts listens on a socket of our temporary folder.
//!
//! `--webdriver` and the native host: the browser starts the host from its own machine, and the
//! host talks to the MCP server over a local socket. So the remote end must run on this machine
//! (a loopback URL: a chromedriver or a Selenium standalone started here), where allwright
//! prepares the browser's profile with the host's manifest, exactly as `--launch` does. A remote
//! end on another machine (a Selenium Grid node) would need allwright installed on that node
//! (`allwright install`) and the node's host socket forwarded to this machine; this version
//! refuses such a URL with a message that says so (docs/protocol.md, "The browser bridge").

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use allwright_surface_web::remote::{
    parse_remote_url, ExtensionDelivery, RemoteSession, RemoteSessionOptions,
};
use allwright_surface_web::{BidiConnection, BrowserKind, ChromiumLaunchOptions};
use serde_json::json;

use crate::browser_bridge::BidiSessionOwner;
use crate::browser_launch::{self, BrowserChoice, LaunchRequest, LaunchedSession};
use crate::host_client::HostClient;
use crate::identity::ExtensionIdentity;
use crate::install;
use crate::local_socket::SOCKET_ENVIRONMENT_VARIABLE;
use crate::log;
use crate::logging::LOG_FILE_ENVIRONMENT_VARIABLE;

/// `--webdriver URL`: the remote end to ask for a Chromium, and how.
#[derive(Debug, Clone)]
pub struct WebDriverRequest {
    pub url: String,
    pub headless: bool,
    pub extension_dir: Option<PathBuf>,
    /// As [`LaunchRequest::keep_user_prompts_open`].
    pub keep_user_prompts_open: bool,
}

/// A browser on a WebDriver remote end, with the extension installed and its host ready.
pub struct RemoteBrowserSession {
    session: RemoteSession,
    host: Arc<HostClient>,
    // Declared last: removed after the session (and its browser) ended.
    temporary_root: tempfile::TempDir,
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
}

impl DrivenBrowser {
    /// The connection to the browser's host, already past `ready`.
    pub fn host(&self) -> Arc<HostClient> {
        match self {
            Self::Launched(session) => session.host(),
            Self::Remote(remote) => Arc::clone(&remote.host),
        }
    }

    /// Closes the browser (ends the remote session) and removes the temporary files.
    pub async fn shutdown(self) {
        match self {
            Self::Launched(session) => session.shutdown().await,
            Self::Remote(RemoteBrowserSession {
                session,
                host,
                temporary_root,
            }) => {
                drop(host);
                session.end().await;
                let path = temporary_root.path().to_owned();
                if let Err(error) = temporary_root.close() {
                    log!("could not remove {}: {error}", path.display());
                }
            }
        }
    }

    /// As [`DrivenBrowser::shutdown`] for a session still shared; if someone else still holds
    /// it, it is dropped instead (a launched browser's processes are killed).
    pub async fn shutdown_shared(browser: Arc<Self>) {
        match Arc::try_unwrap(browser) {
            Ok(browser) => browser.shutdown().await,
            Err(shared) => {
                log!("the browser is still in use at shutdown; dropping it");
                drop(shared);
            }
        }
    }
}

/// Launches a browser (`--launch`) or asks a remote end for one (`--webdriver`).
pub async fn start(
    launch: Option<&LaunchRequest>,
    webdriver: Option<&WebDriverRequest>,
) -> Result<Option<DrivenBrowser>, String> {
    match (launch, webdriver) {
        (Some(request), _) => Ok(Some(DrivenBrowser::Launched(
            browser_launch::launch(request).await?,
        ))),
        (None, Some(request)) => Ok(Some(DrivenBrowser::Remote(connect(request).await?))),
        (None, None) => Ok(None),
    }
}

/// `--webdriver URL`: a new session on the remote end, with a profile of ours that registers
/// the native host, the extension installed by path, and the host ready.
pub async fn connect(request: &WebDriverRequest) -> Result<RemoteBrowserSession, String> {
    let endpoint = parse_remote_url(&request.url).map_err(|error| error.to_string())?;
    if !endpoint.is_loopback() {
        return Err(format!(
            "--webdriver {}: the remote end is on another machine, where the browser would start \
allwright's native host, which must reach this MCP server over a local socket. Run `allwright mcp --webdriver` \
on that machine instead (after `allwright install` there), or use a remote end on this machine",
            request.url
        ));
    }
    let identity = ExtensionIdentity::compiled_in()?;
    let extension_folder = browser_launch::locate_extension(&LaunchRequest {
        browser: BrowserChoice::Chromium,
        headless: request.headless,
        extension_dir: request.extension_dir.clone(),
        keep_user_prompts_open: request.keep_user_prompts_open,
    })?;
    let executable = browser_launch::own_executable()?;
    let temporary_root = browser_launch::temporary_folder("allwright-webdriver-")?;
    let root = temporary_root.path();
    let socket_path = root.join("run").join("host.sock");
    let host_log = root.join("host.log");
    // The remote end starts the browser with its own environment, so the host cannot inherit
    // ALLWRIGHT_SOCKET from us as it does under --launch: the manifest names a small script
    // that sets it and starts this program.
    let host_script = write_host_script(root, &executable, &socket_path, &host_log)?;
    let user_data_dir = root.join("profile");
    install::write_manifest(
        &user_data_dir.join("NativeMessagingHosts"),
        &identity,
        &install::chrome_host_manifest(&identity, &host_script),
    )?;
    let mut chromium = ChromiumLaunchOptions::new(user_data_dir);
    chromium.headless = request.headless;
    let mut chrome_options = json!({ "args": chromium.chromium_arguments() });
    // Debian's /usr/bin/chromium wrapper adds flags of its own; the real binary is preferred
    // when it is where the launcher expects it (the remote end is on this machine).
    if chromium.chromium_binary.is_file() {
        chrome_options["binary"] = json!(chromium.chromium_binary.to_string_lossy());
    }
    let mut options = RemoteSessionOptions::new(request.url.clone(), BrowserKind::Chromium);
    options
        .extra_capabilities
        .insert("goog:chromeOptions".into(), chrome_options);
    options.keep_user_prompts_open = request.keep_user_prompts_open;
    options.extension = Some(extension_folder.clone());
    options.extension_delivery = ExtensionDelivery::LocalPath;
    log!(
        "asking {} for a Chromium with the extension in {}",
        request.url,
        extension_folder.display()
    );
    let session = RemoteSession::start(&options)
        .await
        .map_err(|error| format!("--webdriver {}: {error}", request.url))?;
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
            host,
            temporary_root,
        }),
        Err(message) => {
            session.end().await;
            Err(message)
        }
    }
}

/// Writes `host.sh` (owner-only): sets the socket and log file, then runs this program with
/// the arguments the browser gives a native host.
fn write_host_script(
    root: &Path,
    executable: &Path,
    socket_path: &Path,
    host_log: &Path,
) -> Result<PathBuf, String> {
    let script = root.join("host.sh");
    let text = format!(
        "#!/bin/sh\n{SOCKET_ENVIRONMENT_VARIABLE}={} {LOG_FILE_ENVIRONMENT_VARIABLE}={} exec {} \"$@\"\n",
        shell_quoted(socket_path),
        shell_quoted(host_log),
        shell_quoted(executable)
    );
    std::fs::write(&script, text)
        .and_then(|()| std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o700)))
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

    #[test]
    fn paths_are_single_shell_words() {
        assert_eq!(shell_quoted(Path::new("/tmp/a b")), "'/tmp/a b'");
        assert_eq!(shell_quoted(Path::new("/tmp/it's")), "'/tmp/it'\\''s'");
    }
}
