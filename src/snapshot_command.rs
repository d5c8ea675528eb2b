//! `allwright snapshot URL_OR_FILE`: launch a headless browser with the extension, load the page,
//! print its tree or structured snapshot on stdout, and close everything.

use std::path::Path;
use std::time::Duration;

use allwright_ax::{Filter, Format as SnapshotFormat};
use serde_json::{json, Value};

use crate::browser_bridge::BidiSessionOwner;
use crate::browser_launch::{BrowserChoice, LaunchRequest};
use crate::driven_browser::{self, DrivenBrowser, WebDriverRequest};
use crate::exit_signals::ExitSignals;
use crate::file_server::LocalFileServer;
use crate::log;
use crate::tool_error::ToolError;

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum OutputFormat {
    /// The agent's text tree (get_accessibility_tree).
    Text,
    /// The version-1 structured snapshot as JSON (accessibility_snapshot).
    Json,
    /// The version-1 structured snapshot as YAML.
    Yaml,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum TreeFilter {
    All,
    Visible,
    Interactive,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum SnapshotMode {
    /// Give actionable elements an `aria-ref`.
    Ai,
}

pub struct SnapshotOptions {
    pub target: String,
    pub browser: BrowserChoice,
    pub format: OutputFormat,
    pub filter: TreeFilter,
    pub mode: Option<SnapshotMode>,
    pub headless: bool,
    pub extension_dir: Option<std::path::PathBuf>,
    /// `--webdriver URL`: a browser from a WebDriver remote end on this machine (a chromedriver's
    /// Chromium or a running Firefox's remote agent) instead of a launched browser.
    pub webdriver: Option<String>,
    /// `--capability NAME=JSON`: more capabilities for the remote end's new session.
    pub capabilities: Vec<allwright_surface_web::remote::RequestedCapability>,
}

const NAVIGATION_TIMEOUT: Duration = Duration::from_secs(30);

pub async fn run(options: SnapshotOptions) -> Result<(), String> {
    if options.mode.is_some() && options.format == OutputFormat::Text {
        return Err(
            "--mode ai applies to the structured snapshot: add --format json or --format yaml"
                .into(),
        );
    }
    if options.filter != TreeFilter::All && options.format != OutputFormat::Text {
        return Err("--filter applies to the text tree (--format text); the structured snapshot always covers the whole page".into());
    }
    // Serve a local file before launching, so that a bad path fails fast.
    let (url, _file_server) = page_url(&options.target).await?;
    let request = LaunchRequest {
        browser: options.browser,
        headless: options.headless,
        extension_dir: options.extension_dir.clone(),
        keep_user_prompts_open: false,
    };
    let webdriver = options.webdriver.clone().map(|url| WebDriverRequest {
        url,
        headless: options.headless,
        extension_dir: options.extension_dir.clone(),
        keep_user_prompts_open: false,
        capabilities: options.capabilities.clone(),
    });
    // Watched before the browser starts (src/exit_signals.rs): a signal at any moment closes
    // the browser and removes the session folder.
    let mut exit_signals = ExitSignals::watch()?;
    let started = tokio::select! {
        started = driven_browser::start(
            Some(&request).filter(|_| webdriver.is_none()),
            webdriver.as_ref(),
            crate::browser_launch::ExtensionChoice::Install,
        ) => started?,
        signal = exit_signals.received() => {
            return Err(format!("{signal} while the browser was starting"));
        }
    };
    let session = started.ok_or("no browser to read the page in")?;
    let outcome = tokio::select! {
        outcome = read_page(&session, &url, &options) => outcome,
        signal = exit_signals.received() => Err(format!("{signal} while the page was read")),
    };
    session.shutdown().await;
    let output = outcome?;
    println!("{}", output.trim_end_matches('\n'));
    Ok(())
}

/// The URL to load: URLs as given, files through a local HTTP server.
async fn page_url(target: &str) -> Result<(String, Option<LocalFileServer>), String> {
    let lowered = target.to_ascii_lowercase();
    if lowered.starts_with("http://") || lowered.starts_with("https://") || lowered == "about:blank"
    {
        return Ok((target.to_owned(), None));
    }
    let path_text = target.strip_prefix("file://").unwrap_or(target);
    let path = Path::new(path_text);
    if !path.is_file() {
        return Err(format!(
            "{target} is neither an http(s) URL nor an existing file"
        ));
    }
    let absolute = path
        .canonicalize()
        .map_err(|error| format!("cannot read {target}: {error}"))?;
    let file_name = absolute
        .file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default();
    let server = LocalFileServer::start_for_file(&absolute).await?;
    let url = server.url_of(&file_name);
    log!("serving {} at {url}", absolute.display());
    Ok((url, Some(server)))
}

async fn read_page(
    session: &DrivenBrowser,
    url: &str,
    options: &SnapshotOptions,
) -> Result<String, String> {
    let bidi = session.bidi();
    let tab = bidi
        .first_tab()
        .await
        .map_err(|error| format!("cannot find the browser's tab: {error}"))?;
    bidi.navigate(&tab, url, NAVIGATION_TIMEOUT)
        .await
        .map_err(|error| format!("cannot load {url}: {error}"))?;
    let (tool, arguments, field) = match options.format {
        OutputFormat::Text => {
            let filter = match options.filter {
                TreeFilter::All => Filter::All,
                TreeFilter::Visible => Filter::Visible,
                TreeFilter::Interactive => Filter::Interactive,
            };
            (
                "get_accessibility_tree",
                // The whole tree in one answer, as the command prints it: the largest page the
                // contract allows rather than the agent's default.
                json!({ "filter": filter.as_str(), "maxChars": 1_000_000 }),
                "tree",
            )
        }
        OutputFormat::Json | OutputFormat::Yaml => {
            let format = if options.format == OutputFormat::Json {
                SnapshotFormat::Json
            } else {
                SnapshotFormat::Yaml
            };
            let mut arguments = json!({ "format": format.as_str() });
            if options.mode == Some(SnapshotMode::Ai) {
                arguments["mode"] = json!("ai");
            }
            ("accessibility_snapshot", arguments, "snapshot")
        }
    };
    let result = call_after_load(session, tool, arguments)
        .await
        .map_err(|error| format!("{tool} failed: {error}"))?;
    if result.get("hasMore").and_then(Value::as_bool) == Some(true) {
        log!(
            "the tree has more pages than printed: {}",
            result
                .get("notice")
                .and_then(Value::as_str)
                .unwrap_or("use the MCP server to page through it")
        );
    }
    result
        .get(field)
        .and_then(Value::as_str)
        .map(str::to_owned)
        .ok_or_else(|| format!("{tool} returned no {field:?} string: {result}"))
}

/// The first call after a load can race the content scripts, which the browser injects at
/// "document idle", a moment after the load event. A bounded retry covers that race only.
async fn call_after_load(
    session: &DrivenBrowser,
    tool: &str,
    arguments: Value,
) -> Result<Value, ToolError> {
    // Started with ExtensionChoice::Install, so the host is there.
    let host = session
        .host()
        .ok_or_else(|| ToolError::script_failed("the browser has no extension to read with"))?;
    let mut attempts_left = 5;
    loop {
        match host
            .call(tool, arguments.clone(), Duration::from_secs(60))
            .await
        {
            Err(error)
                if attempts_left > 0
                    && matches!(
                        error.code.as_str(),
                        "no_tab" | "frame_not_found" | "script_failed"
                    ) =>
            {
                attempts_left -= 1;
                log!("{tool}: {error}; retrying once the content scripts are in");
                tokio::time::sleep(Duration::from_millis(400)).await;
            }
            outcome => return outcome,
        }
    }
}
