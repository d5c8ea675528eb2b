//! `--launch chromium|firefox`: a browser of our own, with a temporary profile, the extension
//! installed over WebDriver BiDi, and the native host registered for that profile only. The host
//! learns where to listen from `ALLWRIGHT_SOCKET`, set in the browser's environment and inherited
//! by the host the browser starts.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use allwright_surface_web::launch::log_tail;
use allwright_surface_web::{
    BidiConnection, ChromiumLaunchOptions, FirefoxLaunchOptions, LaunchedBrowser,
};

use crate::embedded_extension;
use crate::host_client::HostClient;
use crate::identity::ExtensionIdentity;
use crate::install;
use crate::local_socket::SOCKET_ENVIRONMENT_VARIABLE;
use crate::log;
use crate::logging::LOG_FILE_ENVIRONMENT_VARIABLE;
use crate::session_folder::SessionFolder;

/// The session folder's subfolder where the launched browser saves every download.
const DOWNLOAD_FOLDER: &str = "downloads";

/// How long the extension may take, after installation, to start the host and say hello.
pub const HOST_READY_TIMEOUT: Duration = Duration::from_secs(20);

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum BrowserChoice {
    Chromium,
    Firefox,
}

impl BrowserChoice {
    /// The folder of the built extension for this browser under `dist/`.
    fn dist_folder_name(self) -> &'static str {
        match self {
            Self::Chromium => "chrome",
            Self::Firefox => "firefox",
        }
    }
}

#[derive(Debug, Clone)]
pub struct LaunchRequest {
    pub browser: BrowserChoice,
    pub headless: bool,
    /// `--extension DIR`: the built extension to install, instead of the default search.
    pub extension_dir: Option<PathBuf>,
    /// Whether user prompts stay open until answered: true for `allwright mcp`, whose browser
    /// bridge reports and answers them (src/browser_bridge); false for `allwright snapshot`,
    /// which answers none, so the session dismisses them as a BiDi session does by default.
    pub keep_user_prompts_open: bool,
}

/// A launched browser with its host ready. [`LaunchedSession::shutdown`] closes the browser and
/// removes every temporary file; dropping it kills the browser's processes.
pub struct LaunchedSession {
    browser: LaunchedBrowser,
    /// None in BiDi-only mode (`--no-extension`): no extension, so no native host.
    host: Option<Arc<HostClient>>,
    // Declared last: dropped after the browser is gone, so the profile is removed whole.
    temporary_root: SessionFolder,
}

impl LaunchedSession {
    /// The connection to the host, already past `ready`. The host serves one client at a time,
    /// so this is the connection every later call must use.
    pub fn host(&self) -> Option<Arc<HostClient>> {
        self.host.clone()
    }

    pub fn bidi(&self) -> &BidiConnection {
        self.browser.bidi()
    }

    /// Where the browser saves downloads: a 0700 folder inside the session folder, removed with it.
    pub fn download_folder(&self) -> PathBuf {
        self.temporary_root.path().join(DOWNLOAD_FOLDER)
    }

    /// Which browser was launched.
    pub fn kind(&self) -> allwright_surface_web::BrowserKind {
        self.browser.kind()
    }

    /// The media features BiDi cannot emulate, over a launched Chromium's CDP pipe.
    pub fn media_features(&self) -> Option<&allwright_surface_web::launch::MediaFeatureEmulation> {
        self.browser.media_features()
    }

    pub async fn shutdown(self) {
        let Self {
            browser,
            host,
            temporary_root,
            ..
        } = self;
        drop(host);
        browser.shutdown().await;
        temporary_root.remove();
    }
}

/// Finds the built extension, first match wins:
/// 1. `--extension DIR`, else `$ALLWRIGHT_EXTENSION_DIR` (only these when given);
/// 2. `dist/<browser>` of the checkout this binary was built in, when it runs from that
///    checkout's `target/` (`<exe>/../../dist`, beside a `Cargo.toml`): a developer's freshly
///    built extension wins over the copy compiled in at the last `cargo build`;
/// 3. the extension compiled into the binary, unpacked to the per-user folder
///    (`embedded_extension`): what an installed binary uses;
/// 4. `dist/<browser>` of the source tree it was built from, for a binary built without one.
pub fn locate_extension(request: &LaunchRequest) -> Result<PathBuf, String> {
    let folder = request.browser.dist_folder_name();
    let explicit = request.extension_dir.clone().or_else(|| {
        std::env::var_os("ALLWRIGHT_EXTENSION_DIR")
            .filter(|value| !value.is_empty())
            .map(PathBuf::from)
    });
    if let Some(explicit) = explicit {
        return built_extension(&explicit).ok_or_else(|| not_built(folder, &[explicit], ""))?;
    }
    let mut tried = Vec::new();
    if let Some(checkout) = std::env::current_exe()
        .ok()
        .and_then(|exe| exe.parent()?.parent()?.parent().map(Path::to_owned))
        .filter(|checkout| checkout.join("Cargo.toml").is_file())
    {
        let checkout_dist = checkout.join("dist").join(folder);
        if let Some(found) = built_extension(&checkout_dist) {
            return found;
        }
        tried.push(checkout_dist);
    }
    // Unpacked only when reached: a run from the checkout writes nothing to the user's folders.
    if let Some(unpacked) = embedded_extension::unpack(folder)? {
        if let Some(found) = built_extension(&unpacked) {
            return found;
        }
        tried.push(unpacked);
    }
    let source_tree_dist = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("dist")
        .join(folder);
    if let Some(found) = built_extension(&source_tree_dist) {
        return found;
    }
    tried.push(source_tree_dist);
    Err(not_built(folder, &tried, ", and this binary carries none"))
}

/// `Some` (the folder, resolved) when `candidate` holds a built extension.
fn built_extension(candidate: &Path) -> Option<Result<PathBuf, String>> {
    candidate.join("manifest.json").is_file().then(|| {
        candidate
            .canonicalize()
            .map_err(|error| format!("cannot resolve {}: {error}", candidate.display()))
    })
}

fn not_built(folder: &str, tried: &[PathBuf], carried: &str) -> String {
    let tried: Vec<String> = tried
        .iter()
        .map(|candidate| candidate.display().to_string())
        .collect();
    format!(
        "the {folder} extension is not built (no manifest.json in {}){carried}. Build it with \
`node scripts/build-extension.mjs` (or scripts/build, which also compiles it into the binary), or pass --extension DIR",
        tried.join(", ")
    )
}

/// This program's own path, resolved: what the native host manifests name.
pub fn own_executable() -> Result<PathBuf, String> {
    std::env::current_exe()
        .and_then(|exe| exe.canonicalize())
        .map_err(|error| {
            format!("cannot find this program's own path for the native host manifest: {error}")
        })
}

/// Whether a browser allwright starts gets the extension (and so its native host), or is
/// driven over WebDriver BiDi alone (`--no-extension`: docs/grid.md, "BiDi-only mode").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExtensionChoice {
    Install,
    Without,
}

/// Launches the browser with a temporary profile, with the extension installed and its native
/// host ready, or, without it, with no native host manifest written, nothing installed and no
/// host awaited: the browser is ready once its BiDi session is.
pub async fn launch_with(
    request: &LaunchRequest,
    extension: ExtensionChoice,
) -> Result<LaunchedSession, String> {
    if extension == ExtensionChoice::Without {
        return launch_without_extension(request).await;
    }
    let identity = ExtensionIdentity::compiled_in()?;
    let extension_folder = locate_extension(request)?;
    let executable = own_executable()?;
    let temporary_root = SessionFolder::create()?;
    let root = temporary_root.path();
    let socket_path = root.join("run").join("host.sock");
    let browser_log = temporary_root.private_file("browser.log", 0o600)?;
    let host_log = temporary_root.private_file("host.log", 0o600)?;
    for folder in ["run", "tmp", "config", "cache", "home", "profile"] {
        temporary_root.private_folder(folder)?;
    }
    // Downloads land here, never in the person's folders (docs/security.md, "Downloads and PDFs").
    let download_folder = temporary_root.private_folder(DOWNLOAD_FOLDER)?;
    // The browser inherits these and passes them to the host it starts: the host listens on our
    // socket and logs to our file, and nothing is written outside the temporary folder.
    let environment: Vec<(String, OsString)> = vec![
        (
            SOCKET_ENVIRONMENT_VARIABLE.into(),
            socket_path.clone().into(),
        ),
        (
            LOG_FILE_ENVIRONMENT_VARIABLE.into(),
            host_log.clone().into(),
        ),
        ("TMPDIR".into(), root.join("tmp").into()),
        ("XDG_CONFIG_HOME".into(), root.join("config").into()),
        ("XDG_CACHE_HOME".into(), root.join("cache").into()),
        ("HOME".into(), root.join("home").into()),
    ];

    log!(
        "launching {:?} with the extension in {}",
        request.browser,
        extension_folder.display()
    );
    let (browser, expected_extension_id) = match request.browser {
        BrowserChoice::Chromium => {
            let user_data_dir = root.join("profile");
            let manifest_folder = temporary_root.private_folder("profile/NativeMessagingHosts")?;
            install::write_manifest(
                &manifest_folder,
                &identity,
                &install::chrome_host_manifest(&identity, &executable),
            )?;
            let mut options = ChromiumLaunchOptions::new(user_data_dir);
            options.headless = request.headless;
            options.keep_user_prompts_open = request.keep_user_prompts_open;
            options.environment = environment;
            options.log_path = Some(browser_log.clone());
            let browser = LaunchedBrowser::launch_chromium(&options).await;
            (browser, identity.chrome_extension_id.clone())
        }
        BrowserChoice::Firefox => {
            let manifest_folder =
                temporary_root.private_folder("home/.mozilla/native-messaging-hosts")?;
            install::write_manifest(
                &manifest_folder,
                &identity,
                &install::firefox_host_manifest(&identity, &executable),
            )?;
            let mut options = FirefoxLaunchOptions::new(root.join("profile"));
            options.headless = request.headless;
            options.keep_user_prompts_open = request.keep_user_prompts_open;
            options.environment = environment;
            options.log_path = Some(browser_log.clone());
            options.download_folder = Some(download_folder.clone());
            let browser = LaunchedBrowser::launch_firefox(&options).await;
            (browser, identity.gecko_id.clone())
        }
    };
    let browser = browser.map_err(|error| format!("{error}\n{}", log_excerpt(&browser_log)))?;

    let ready = async {
        let installed_id = browser
            .bidi()
            .install_web_extension(&extension_folder)
            .await
            .map_err(|error| format!("installing the extension from {} failed: {error}", extension_folder.display()))?;
        if installed_id != expected_extension_id {
            return Err(format!(
                "the browser installed the extension as {installed_id}, not {expected_extension_id}: the built manifest's \
key or gecko id differs from manifest/identity.json, so the native host would refuse it"
            ));
        }
        log!("extension {installed_id} installed; waiting for its native host");
        let host = host_once_ready(&socket_path, &[&host_log, &browser_log]).await?;
        if request.browser == BrowserChoice::Chromium {
            save_downloads_in(browser.bidi(), &download_folder).await?;
        }
        activate_first_tab(browser.bidi()).await;
        Ok(host)
    }
    .await;
    match ready {
        Ok(host) => Ok(LaunchedSession {
            browser,
            host: Some(host),
            temporary_root,
        }),
        Err(message) => {
            browser.shutdown().await;
            Err(message)
        }
    }
}

/// A browser with a temporary profile and no extension, for BiDi-only mode: the same private
/// session folder, environment and download folder as [`launch_with`] with it, and nothing of the native
/// host.
async fn launch_without_extension(request: &LaunchRequest) -> Result<LaunchedSession, String> {
    let temporary_root = SessionFolder::create()?;
    let root = temporary_root.path();
    let browser_log = temporary_root.private_file("browser.log", 0o600)?;
    for folder in ["tmp", "config", "cache", "home", "profile"] {
        temporary_root.private_folder(folder)?;
    }
    let download_folder = temporary_root.private_folder(DOWNLOAD_FOLDER)?;
    let environment: Vec<(String, OsString)> = vec![
        ("TMPDIR".into(), root.join("tmp").into()),
        ("XDG_CONFIG_HOME".into(), root.join("config").into()),
        ("XDG_CACHE_HOME".into(), root.join("cache").into()),
        ("HOME".into(), root.join("home").into()),
    ];
    log!(
        "launching {:?} without the extension (BiDi-only mode)",
        request.browser
    );
    let browser = match request.browser {
        BrowserChoice::Chromium => {
            let mut options = ChromiumLaunchOptions::new(root.join("profile"));
            options.headless = request.headless;
            options.keep_user_prompts_open = request.keep_user_prompts_open;
            options.environment = environment;
            options.log_path = Some(browser_log.clone());
            LaunchedBrowser::launch_chromium(&options).await
        }
        BrowserChoice::Firefox => {
            let mut options = FirefoxLaunchOptions::new(root.join("profile"));
            options.headless = request.headless;
            options.keep_user_prompts_open = request.keep_user_prompts_open;
            options.environment = environment;
            options.log_path = Some(browser_log.clone());
            options.download_folder = Some(download_folder.clone());
            LaunchedBrowser::launch_firefox(&options).await
        }
    };
    let browser = browser.map_err(|error| format!("{error}\n{}", log_excerpt(&browser_log)))?;
    let ready = async {
        if request.browser == BrowserChoice::Chromium {
            save_downloads_in(browser.bidi(), &download_folder).await?;
        }
        activate_first_tab(browser.bidi()).await;
        Ok::<(), String>(())
    }
    .await;
    match ready {
        Ok(()) => Ok(LaunchedSession {
            browser,
            host: None,
            temporary_root,
        }),
        Err(message) => {
            browser.shutdown().await;
            Err(message)
        }
    }
}

/// Makes Chromium save every download into the session's `folder`, without asking, with
/// WebDriver BiDi's `browser.setDownloadBehavior` (chromium-bidi's mapper turns it into CDP's
/// `Browser.setDownloadBehavior` on the pipe, for every user context). Firefox gets the same
/// through its profile's preferences (`FirefoxLaunchOptions::download_folder`). The extension
/// still sees each download (`downloads.onCreated`) and records the agent's.
async fn save_downloads_in(bidi: &BidiConnection, folder: &Path) -> Result<(), String> {
    bidi.command(
        "browser.setDownloadBehavior",
        serde_json::json!({
            "downloadBehavior": { "type": "allowed", "destinationFolder": folder.display().to_string() }
        }),
    )
    .await
    .map(|_| ())
    .map_err(|error| format!("cannot send Chromium's downloads to the session folder: {error}"))
}

/// Gives the first tab the focus of its window, with WebDriver BiDi's `browsingContext.activate`
/// ("activates and focuses the given top-level traversable"), so that its page behaves as a
/// focused window's page: `document.hasFocus()` is true and a click into a field fires `focus`
/// and `focusin` (HTML, "has focus steps"; issue 30, item 7). Headless Chromium starts with its
/// first tab unfocused; Firefox's first tab has focus already (`FIRST_TAB_URL`), and activating
/// it again changes nothing. Tabs opened or selected later are activated by the browser bridge
/// (src/browser_bridge, `activate_the_active_tab`). Best effort: a page without focus still works.
async fn activate_first_tab(bidi: &BidiConnection) {
    let activated = async {
        let context = bidi.first_tab().await?;
        bidi.command(
            "browsingContext.activate",
            serde_json::json!({ "context": context }),
        )
        .await
    }
    .await;
    if let Err(error) = activated {
        log!("could not activate the first tab: {error}");
    }
}

/// The client of the host that the extension starts on `socket_path`, once it is ready; the
/// error quotes the end of each of `logs`.
pub async fn host_once_ready(
    socket_path: &Path,
    logs: &[&Path],
) -> Result<Arc<HostClient>, String> {
    let host = Arc::new(HostClient::new(socket_path.to_owned()));
    let hello = host
        .wait_until_ready(HOST_READY_TIMEOUT)
        .await
        .map_err(|error| {
            let excerpts: Vec<String> = logs.iter().map(|log| log_excerpt(log)).collect();
            format!(
                "the extension did not start the native host within {} s: {}\n{}",
                HOST_READY_TIMEOUT.as_secs(),
                error.message,
                excerpts.join("\n")
            )
        })?;
    log!(
        "host ready: {} extension {}",
        hello.browser,
        hello.extension_version
    );
    Ok(host)
}

fn log_excerpt(path: &Path) -> String {
    let tail = log_tail(path, 15);
    let name = path
        .file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default();
    if tail.trim().is_empty() {
        format!("({name}: empty)")
    } else {
        format!("last lines of {name}:\n{tail}")
    }
}
