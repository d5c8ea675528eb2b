//! A real browser with the built extension, the native host it starts, and `allwright mcp`
//! attached to that host: the way a person's own browser is driven. The test keeps the browser's
//! WebDriver BiDi session to look at the page from outside (and, in Chromium, DevTools as an
//! oracle), and talks to allwright only through the official MCP client.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use allwright_surface_web::launch::{
    find_executable, ChromiumLaunchOptions, FirefoxLaunchOptions, LaunchedBrowser, Program,
};
use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::service::{NotificationContext, RunningService};
use rmcp::transport::TokioChildProcess;
use rmcp::{ClientHandler, RoleClient, ServiceExt};
use serde_json::{json, Value};

#[path = "../support/fixture_server.rs"]
pub mod fixture_server;

#[path = "../support/snapshot_checks.rs"]
pub mod snapshot_checks;

#[path = "../support/reply_text.rs"]
pub mod reply_text;

use fixture_server::FixtureServer;
pub use snapshot_checks::{find, nodes};

/// The moz-extension UUID the test profiles give the extension (profile preference
/// `extensions.webextensions.uuids`), so that a test can open its pages by URL.
pub const FIREFOX_EXTENSION_UUID: &str = "5f0c9d0e-7a61-4d3b-9a55-a11b0a11b0a1";

/// Every wait is bounded: a hang is a failure with a message.
pub const PATIENCE: Duration = Duration::from_secs(30);

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Browser {
    Chromium,
    Firefox,
}

impl Browser {
    /// What this browser's `User-Agent` contains and the other's does not (Firefox's has no
    /// "Chrome/"): the fixture server counts a test's requests by it (`request_count_from`).
    pub fn user_agent_mark(self) -> &'static str {
        match self {
            Browser::Chromium => "Chrome/",
            Browser::Firefox => "Firefox/",
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Browser::Chromium => "chromium",
            Browser::Firefox => "firefox",
        }
    }

    pub fn dist_folder(self) -> PathBuf {
        repository_root().join("dist").join(match self {
            Browser::Chromium => "chrome",
            Browser::Firefox => "firefox",
        })
    }

    /// The programs this browser's tests start (the `--webdriver` tests start chromedriver).
    fn programs(self) -> &'static [Program] {
        match self {
            Browser::Chromium => &[Program::Chromium, Program::Chromedriver],
            Browser::Firefox => &[Program::Firefox],
        }
    }
}

pub fn repository_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Whether the browser and the built extension are here. Without them the test says so and
/// passes, unless `ALLWRIGHT_REQUIRE_BROWSERS=1` (set by scripts/test, so CI cannot skip).
pub fn available(browser: Browser) -> bool {
    let mut missing: Vec<String> = browser
        .programs()
        .iter()
        .filter_map(|program| find_executable(*program).err())
        .map(|not_found| not_found.to_string())
        .collect();
    if !browser.dist_folder().join("manifest.json").is_file() {
        missing.push(format!(
            "{} (run scripts/build)",
            browser.dist_folder().display()
        ));
    }
    if missing.is_empty() {
        return true;
    }
    let message = format!(
        "{} browser tests need: {}",
        browser.name(),
        missing.join(", ")
    );
    if std::env::var("ALLWRIGHT_REQUIRE_BROWSERS").is_ok_and(|value| value == "1") {
        panic!("{message}");
    }
    eprintln!("SKIPPED: {message}");
    false
}

/// Where the browser tests' time goes: one line per check and per test, `<seconds>\t<what>`, in
/// `target/tmp/extension-timings.txt` or `$ALLWRIGHT_TEST_TIMINGS` (emptied by the first line of
/// each run of this binary; scripts/test prints it sorted), and on stderr.
pub fn record_time(what: &str, elapsed: Duration) {
    use std::io::Write;
    static FILE: OnceLock<std::sync::Mutex<Option<std::fs::File>>> = OnceLock::new();
    let line = format!("{:7.1}\t{what}", elapsed.as_secs_f64());
    eprintln!("[time] {line}");
    let file = FILE.get_or_init(|| {
        let path = std::env::var_os("ALLWRIGHT_TEST_TIMINGS")
            .map(PathBuf::from)
            .unwrap_or_else(|| repository_root().join("target/tmp/extension-timings.txt"));
        if let Some(folder) = path.parent() {
            let _ = std::fs::create_dir_all(folder);
        }
        std::sync::Mutex::new(std::fs::File::create(path).ok())
    });
    if let Ok(mut file) = file.lock() {
        if let Some(file) = file.as_mut() {
            let _ = writeln!(file, "{line}");
        }
    }
}

/// The shared fixture server (two origins) for the whole test binary.
pub fn fixtures() -> Arc<FixtureServer> {
    static SERVER: OnceLock<Arc<FixtureServer>> = OnceLock::new();
    SERVER
        .get_or_init(|| {
            let root = repository_root();
            let wpt = wpt_folder();
            Arc::new(
                FixtureServer::start(&root.join("fixtures"), wpt.as_deref())
                    .expect("start the fixture server"),
            )
        })
        .clone()
}

/// The web-platform-tests copy in `third_party/wpt` (or `ALLWRIGHT_WPT_DIR`), when present.
pub fn wpt_folder() -> Option<PathBuf> {
    let candidate = std::env::var_os("ALLWRIGHT_WPT_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| repository_root().join("third_party/wpt"));
    candidate.is_dir().then_some(candidate)
}

/// A structured tool error, as the MCP server returns it.
#[derive(Debug, Clone)]
pub struct ToolError(pub Value);

impl ToolError {
    pub fn code(&self) -> &str {
        self.0["code"].as_str().unwrap_or("")
    }
}

/// The test's MCP client: it does nothing but count `notifications/tools/list_changed`, which
/// the server sends when the side panel changes the tier (tests/extension/tiers.rs).
#[derive(Clone, Default)]
pub struct TestClient {
    pub tool_list_changes: Arc<tokio::sync::watch::Sender<usize>>,
}

impl ClientHandler for TestClient {
    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.tool_list_changes.send_modify(|count| *count += 1);
    }
}

pub type McpClient = RunningService<RoleClient, TestClient>;

pub struct Session {
    pub browser: Browser,
    launched: Option<LaunchedBrowser>,
    mcp: Option<McpClient>,
    client: TestClient,
    context: String,
    folder: tempfile::TempDir,
}

/// How to start a session.
#[derive(Default, Clone)]
pub struct SessionOptions {
    /// Extra Chromium flags (e.g. `--js-flags=--expose-gc`).
    pub chromium_flags: Vec<String>,
    /// Extra arguments of `allwright mcp` (e.g. `--tier`, `mid`, `--dev`).
    pub mcp_arguments: Vec<String>,
}

impl Session {
    pub async fn start(browser: Browser, options: SessionOptions) -> Session {
        let folder = tempfile::Builder::new()
            .prefix("allwright-browser-test-")
            .tempdir()
            .expect("temp dir");
        let root = folder.path().to_path_buf();
        for sub in ["tmp", "config", "cache", "home"] {
            std::fs::create_dir_all(root.join(sub)).expect("prepare folders");
        }
        let socket = root.join("run").join("host.sock");
        let host_log = root.join("host.log");
        let environment: Vec<(String, OsString)> = vec![
            ("ALLWRIGHT_SOCKET".into(), socket.clone().into()),
            ("ALLWRIGHT_LOG_FILE".into(), host_log.clone().into()),
            ("TMPDIR".into(), root.join("tmp").into()),
            ("XDG_CONFIG_HOME".into(), root.join("config").into()),
            ("XDG_CACHE_HOME".into(), root.join("cache").into()),
            ("HOME".into(), root.join("home").into()),
        ];
        let host_binary = PathBuf::from(env!("CARGO_BIN_EXE_allwright"));
        let identity: Value = serde_json::from_str(
            &std::fs::read_to_string(repository_root().join("manifest/identity.json"))
                .expect("identity.json"),
        )
        .expect("identity is JSON");
        let host_name = identity["nativeHostName"]
            .as_str()
            .expect("host name")
            .to_string();
        let launched = match browser {
            Browser::Chromium => {
                let profile = root.join("profile");
                let manifest = json!({
                    "name": host_name,
                    "description": "allwright native host (browser test)",
                    "path": host_binary,
                    "type": "stdio",
                    "allowed_origins": [format!("chrome-extension://{}/", identity["chromeExtensionId"].as_str().expect("id"))],
                });
                write_json(&profile.join("NativeMessagingHosts").join(format!("{host_name}.json")), &manifest);
                let mut launch = ChromiumLaunchOptions::new(profile);
                launch.environment = environment;
                launch.log_path = Some(root.join("browser.log"));
                launch.extra_arguments = options.chromium_flags.clone();
                // Several tests read the page through Chromium's DevTools port as an oracle
                // (`chromium_debugger_address`); the product never opens it.
                launch.devtools_port_for_oracle_tests = true;
                LaunchedBrowser::launch_chromium(&launch).await
            }
            Browser::Firefox => {
                let manifest = json!({
                    "name": host_name,
                    "description": "allwright native host (browser test)",
                    "path": host_binary,
                    "type": "stdio",
                    "allowed_extensions": [identity["geckoId"].as_str().expect("gecko id")],
                });
                write_json(
                    &root.join("home/.mozilla/native-messaging-hosts").join(format!("{host_name}.json")),
                    &manifest,
                );
                // Firefox reads prefs.js, then the launcher's user.js: the extension's UUID is
                // fixed here, before it is installed.
                let uuids = json!({identity["geckoId"].as_str().expect("gecko id"): FIREFOX_EXTENSION_UUID}).to_string();
                std::fs::create_dir_all(root.join("profile")).expect("profile folder");
                std::fs::write(
                    root.join("profile").join("prefs.js"),
                    // remote.experimental.enabled: BiDi's chrome scope, through which the panel test
                    // opens the extension's page in a tab (BiDi refuses to navigate a tab there).
                    format!(
                        "user_pref(\"extensions.webextensions.uuids\", {});\nuser_pref(\"remote.experimental.enabled\", true);\n",
                        serde_json::to_string(&uuids).expect("JSON")
                    ),
                )
                .expect("write prefs.js");
                let mut launch = FirefoxLaunchOptions::new(root.join("profile"));
                launch.environment = environment;
                // The same as -remote-allow-system-access: BiDi's chrome scope for the panel test.
                launch
                    .environment
                    .push(("MOZ_REMOTE_ALLOW_SYSTEM_ACCESS".into(), "1".into()));
                launch.log_path = Some(root.join("browser.log"));
                LaunchedBrowser::launch_firefox(&launch).await
            }
        }
        .unwrap_or_else(|error| panic!("launch {}: {error}", browser.name()));
        launched
            .bidi()
            .install_web_extension(&browser.dist_folder())
            .await
            .expect("install the extension over BiDi");
        let context = launched
            .bidi()
            .first_tab()
            .await
            .expect("a top-level context");
        let client = TestClient::default();
        let mcp = start_mcp_client(&socket, &options.mcp_arguments, &client).await;
        let session = Session {
            browser,
            launched: Some(launched),
            mcp: Some(mcp),
            client,
            context,
            folder,
        };
        session.wait_for_host().await;
        session
    }

    /// Waits until a tool call reaches the extension (the host starts when the extension's
    /// background connects to it). In Ask, which does not list navigate, list_tabs is the call.
    async fn wait_for_host(&self) {
        let deadline = tokio::time::Instant::now() + PATIENCE;
        loop {
            let outcome = match self.call("navigate", json!({"url": "about:blank"})).await {
                Err(error) if error.code() == "not_in_tier" => {
                    self.call("list_tabs", json!({})).await
                }
                outcome => outcome,
            };
            match outcome {
                Ok(_) => return,
                Err(_) if tokio::time::Instant::now() < deadline => {
                    tokio::time::sleep(Duration::from_millis(250)).await;
                }
                Err(error) => panic!(
                    "{}: the extension's host never answered: {:?}\n{}",
                    self.browser.name(),
                    error,
                    std::fs::read_to_string(self.folder.path().join("host.log"))
                        .unwrap_or_default()
                ),
            }
        }
    }

    /// Ends the MCP session and starts a new `allwright mcp` with `mcp_arguments` on the same
    /// browser (a new session: its --tier and --dev become the extension's access).
    pub async fn restart_mcp(&mut self, mcp_arguments: &[&str]) {
        self.stop_mcp().await;
        let arguments: Vec<String> = mcp_arguments.iter().map(|a| a.to_string()).collect();
        self.client = TestClient::default();
        self.mcp = Some(start_mcp_client(&self.socket_path(), &arguments, &self.client).await);
        self.wait_for_host().await;
    }

    /// Ends the MCP session: the host's socket is free for another client.
    pub async fn stop_mcp(&mut self) {
        if let Some(mcp) = self.mcp.take() {
            let _ = mcp.cancel().await;
        }
    }

    /// The side panel's page, as a URL a tab can open.
    pub fn panel_url(&self) -> String {
        match self.browser {
            Browser::Chromium => {
                let identity: Value = serde_json::from_str(
                    &std::fs::read_to_string(repository_root().join("manifest/identity.json"))
                        .expect("identity.json"),
                )
                .expect("identity is JSON");
                format!(
                    "chrome-extension://{}/panel/panel.html",
                    identity["chromeExtensionId"].as_str().expect("id")
                )
            }
            Browser::Firefox => {
                format!("moz-extension://{FIREFOX_EXTENSION_UUID}/panel/panel.html")
            }
        }
    }

    /// The names of the tools the MCP server lists now (tools/list).
    pub async fn listed_tools(&self) -> Vec<String> {
        let mcp = self.mcp.as_ref().expect("MCP client");
        tokio::time::timeout(PATIENCE, mcp.list_all_tools())
            .await
            .expect("tools/list in time")
            .expect("tools/list")
            .into_iter()
            .map(|tool| tool.name.to_string())
            .collect()
    }

    /// Follows the count of `notifications/tools/list_changed` the MCP client received.
    pub fn tool_list_changes(&self) -> tokio::sync::watch::Receiver<usize> {
        self.client.tool_list_changes.subscribe()
    }

    /// The session's temporary folder (the browser's HOME, downloads and the host's socket).
    pub fn folder(&self) -> &Path {
        self.folder.path()
    }

    /// The local socket the browser's host listens on.
    pub fn socket_path(&self) -> PathBuf {
        self.folder.path().join("run").join("host.sock")
    }

    /// Calls a tool over MCP with `verbose: true` where the tool takes it: the whole result object
    /// (read back from the reply's text), or the error object.
    pub async fn call(&self, tool: &str, arguments: Value) -> Result<Value, ToolError> {
        let mcp = self.mcp.as_ref().expect("MCP client");
        outcome_of(mcp_call(mcp, tool, arguments).await?)
    }

    /// [`Session::call`] bounded by `patience` instead of PATIENCE: a call the test expects to
    /// wait for something slower, such as the keep-alive alarm that wakes a stopped background.
    pub async fn call_within(
        &self,
        tool: &str,
        arguments: Value,
        patience: Duration,
    ) -> Result<Value, ToolError> {
        let mcp = self.mcp.as_ref().expect("MCP client");
        outcome_of(mcp_call_within(mcp, tool, arguments, patience).await?)
    }

    /// Calls a tool over MCP as an agent does, without `verbose`, and returns the MCP result as
    /// it came: the short reply (src/mcp_reply.rs) in its content blocks.
    pub async fn call_quiet(&self, tool: &str, arguments: Value) -> CallToolResult {
        let arguments = reply_text::with_verbose(tool, arguments, false);
        self.call_result(tool, arguments).await
    }

    /// Calls a tool over MCP (with `verbose: true` where the tool takes it, unless `arguments`
    /// say otherwise) and returns the whole MCP result: content blocks (an image, for
    /// screenshot) and isError.
    pub async fn call_result(&self, tool: &str, arguments: Value) -> CallToolResult {
        let mcp = self.mcp.as_ref().expect("MCP client");
        mcp_call(mcp, tool, arguments)
            .await
            .unwrap_or_else(|error| panic!("{tool}: {}", error.0))
    }

    /// Answers the user prompt open in the test's tab from outside (WebDriver BiDi,
    /// `browsingContext.handleUserPrompt`), as the user would; false when none was open.
    pub async fn answer_prompt(&self, accept: bool) -> bool {
        let launched = self.launched.as_ref().expect("browser");
        launched
            .bidi()
            .command(
                "browsingContext.handleUserPrompt",
                json!({"context": self.context, "accept": accept}),
            )
            .await
            .is_ok()
    }

    /// Calls a tool that must succeed.
    pub async fn ok(&self, tool: &str, arguments: Value) -> Value {
        match self.call(tool, arguments.clone()).await {
            Ok(result) => result,
            Err(error) => panic!(
                "{}: {tool}({arguments}) failed: {}",
                self.browser.name(),
                error.0
            ),
        }
    }

    /// Opens a fixture page through the navigate tool, as an agent would.
    pub async fn open(&self, url: &str) -> Value {
        let result = self.ok("navigate", json!({"url": url})).await;
        // Content scripts run at document_idle, just after load: give them their turn.
        tokio::time::sleep(Duration::from_millis(150)).await;
        result
    }

    /// Evaluates a script in the top-level page (the page's own world), from outside, over BiDi.
    pub async fn evaluate(&self, expression: &str) -> Value {
        self.evaluate_within(
            expression,
            allwright_surface_web::bidi::DEFAULT_COMMAND_TIMEOUT,
        )
        .await
    }

    /// Evaluates a script in the top-level page over BiDi, waiting up to `timeout` for it: for
    /// the few fixtures whose setup is the browser's own slow work (styling a 40 MB textarea
    /// takes Chromium 8-15 s on an idle machine, more than the default 30 s on a loaded one).
    pub async fn evaluate_within(&self, expression: &str, timeout: Duration) -> Value {
        let launched = self.launched.as_ref().expect("browser");
        let response = launched
            .bidi()
            .command_with_timeout(
                "script.evaluate",
                json!({
                    "expression": expression,
                    "target": {"context": self.context},
                    "awaitPromise": true,
                    "resultOwnership": "none",
                }),
                timeout,
            )
            .await
            .unwrap_or_else(|error| panic!("evaluate {expression}: {error}"));
        if response["type"] == "exception" {
            panic!(
                "evaluate {expression} threw: {}",
                response["exceptionDetails"]
            );
        }
        from_remote_value(&response["result"])
    }

    /// Evaluates a script and returns its JSON-serialised value (JSON.stringify in the page).
    pub async fn evaluate_json(&self, expression: &str) -> Value {
        let text = self
            .evaluate(&format!("JSON.stringify(({expression}))"))
            .await;
        serde_json::from_str(text.as_str().unwrap_or("null")).unwrap_or(Value::Null)
    }

    /// Evaluates a script in another browsing context (another tab, the side panel's page) over
    /// BiDi and returns its JSON-serialised value; an exception is an error with its text.
    pub async fn evaluate_json_in(&self, context: &str, expression: &str) -> Result<Value, String> {
        let launched = self.launched.as_ref().expect("browser");
        let response = launched
            .bidi()
            .command(
                "script.evaluate",
                json!({
                    "expression": format!("(async () => JSON.stringify(await ({expression})))()"),
                    "target": {"context": context},
                    "awaitPromise": true,
                    "resultOwnership": "none",
                }),
            )
            .await
            .map_err(|error| format!("evaluate {expression}: {error}"))?;
        if response["type"] == "exception" {
            return Err(format!(
                "{expression} threw: {}",
                response["exceptionDetails"]
            ));
        }
        let text = from_remote_value(&response["result"]);
        Ok(serde_json::from_str(text.as_str().unwrap_or("null")).unwrap_or(Value::Null))
    }

    /// Loads a page from outside (BiDi), not through allwright: for checks where the extension
    /// must not be the one acting, such as waking a stopped service worker.
    pub async fn navigate_from_outside(&self, url: &str) {
        let launched = self.launched.as_ref().expect("browser");
        launched
            .bidi()
            .navigate(&self.context, url, PATIENCE)
            .await
            .unwrap_or_else(|error| panic!("BiDi navigate {url}: {error}"));
    }

    /// The browser's BiDi connection and the tab's top-level context: the WebDriver BiDi surface
    /// reads the same page as the extension through them (tests/extension/bidi_snapshot.rs).
    pub fn bidi(&self) -> (&allwright_surface_web::BidiConnection, &str) {
        let launched = self.launched.as_ref().expect("browser");
        (launched.bidi(), self.context.as_str())
    }

    /// Chromium's DevTools address, for oracle checks.
    pub fn chromium_debugger_address(&self) -> Option<String> {
        self.launched
            .as_ref()
            .and_then(|launched| launched.chromium_debugger_address().map(str::to_owned))
    }

    pub async fn shutdown(mut self) {
        if let Some(mcp) = self.mcp.take() {
            let _ = mcp.cancel().await;
        }
        if let Some(launched) = self.launched.take() {
            launched.shutdown().await;
        }
    }
}

/// `allwright mcp` without --launch attaches to the host the extension starts, through the
/// socket that the browser's environment names.
async fn start_mcp_client(socket: &Path, arguments: &[String], client: &TestClient) -> McpClient {
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_allwright"));
    command
        .arg("mcp")
        .args(arguments)
        .env("ALLWRIGHT_SOCKET", socket);
    let (transport, _) = TokioChildProcess::builder(command)
        .stderr(Stdio::inherit())
        .spawn()
        .expect("spawn allwright mcp");
    tokio::time::timeout(PATIENCE, client.clone().serve(transport))
        .await
        .expect("MCP initialize in time")
        .expect("MCP initialize")
}

fn write_json(path: &Path, value: &Value) {
    std::fs::create_dir_all(path.parent().expect("a folder")).expect("create folder");
    std::fs::write(path, serde_json::to_vec_pretty(value).expect("JSON")).expect("write manifest");
}

/// Turns a BiDi RemoteValue into plain JSON (primitives, arrays, objects).
fn from_remote_value(value: &Value) -> Value {
    match value["type"].as_str() {
        Some("string") | Some("boolean") => value["value"].clone(),
        Some("number") => match &value["value"] {
            Value::String(special) => Value::String(special.clone()),
            number => number.clone(),
        },
        Some("null") | Some("undefined") => Value::Null,
        Some("array") => Value::Array(
            value["value"]
                .as_array()
                .map(|items| items.iter().map(from_remote_value).collect())
                .unwrap_or_default(),
        ),
        Some("object") => {
            let mut map = serde_json::Map::new();
            for pair in value["value"].as_array().into_iter().flatten() {
                if let (Some(key), Some(item)) = (pair[0].as_str(), pair.get(1)) {
                    map.insert(key.to_string(), from_remote_value(item));
                }
            }
            Value::Object(map)
        }
        _ => Value::Null,
    }
}

/// The strings of a JSON array (suggestions, evidence); anything else gives none.
pub fn strings(value: &Value) -> Vec<String> {
    value
        .as_array()
        .map(|items| {
            items
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default()
}

/// One tool call over MCP, bounded by PATIENCE: the whole MCP result, or a test-side failure
/// (`test_timeout`, `mcp_error`) in the shape of a tool error.
pub async fn mcp_call<Handler: rmcp::Service<RoleClient>>(
    client: &RunningService<RoleClient, Handler>,
    tool: &str,
    arguments: Value,
) -> Result<CallToolResult, ToolError> {
    mcp_call_within(client, tool, arguments, PATIENCE).await
}

/// One tool call over MCP, bounded by `patience` (a call the test expects to take longer than
/// PATIENCE: a page that holds its thread for 35 s).
pub async fn mcp_call_within<Handler: rmcp::Service<RoleClient>>(
    client: &RunningService<RoleClient, Handler>,
    tool: &str,
    arguments: Value,
    patience: Duration,
) -> Result<CallToolResult, ToolError> {
    // The tests read every field of a result: they ask for the whole object unless they set
    // `verbose` themselves (Session::call_quiet).
    let arguments = reply_text::with_verbose(tool, arguments, true);
    let request = CallToolRequestParams::new(tool.to_string())
        .with_arguments(arguments.as_object().cloned().unwrap_or_default());
    tokio::time::timeout(patience, client.call_tool(request))
        .await
        .map_err(|_| ToolError(json!({"code": "test_timeout", "message": format!("{tool} took over {patience:?}")})))?
        .map_err(|error| ToolError(json!({"code": "mcp_error", "message": error.to_string()})))
}

/// A tool's result object, or its error object when the result is an error, read back from the
/// reply's one text block (tests/support/reply_text.rs).
pub fn outcome_of(result: CallToolResult) -> Result<Value, ToolError> {
    let object = reply_text::reply_value(&result);
    if result.is_error == Some(true) {
        Err(ToolError(object))
    } else {
        Ok(object)
    }
}

/// The frameId of the document whose URL ends with `suffix` in an accessibility_snapshot result,
/// read from its context id (`tab-T.frame-F`).
pub fn frame_id_in_snapshot(snapshot: &Value, suffix: &str) -> Option<i64> {
    let documents: Value = serde_json::from_str(snapshot["snapshot"].as_str()?).ok()?;
    documents["documents"]
        .as_array()?
        .iter()
        .find(|document| {
            document["url"]
                .as_str()
                .is_some_and(|url| url.ends_with(suffix))
        })
        .and_then(|document| document["contextId"].as_str())
        .and_then(|context| context.rsplit(".frame-").next())
        .and_then(|number| number.parse().ok())
}

/// A tree with its reference numbers blanked, to compare two reads of the same content.
pub fn without_refs(tree: &str) -> String {
    let mut out = String::with_capacity(tree.len());
    let mut rest = tree;
    while let Some(start) = rest.find("[ref_") {
        out.push_str(&rest[..start]);
        out.push_str("[ref]");
        rest = &rest[start..];
        rest = rest.find(']').map_or("", |end| &rest[end + 1..]);
    }
    out.push_str(rest);
    out
}

/// The first line of a text tree that starts (after its indent) with `start`, for example
/// `button "Save"`; a panic that names the browser and shows the tree when there is none.
pub fn line_starting<'tree>(tree: &'tree str, start: &str, browser: &str) -> &'tree str {
    tree.lines()
        .find(|line| line.trim_start().starts_with(start))
        .unwrap_or_else(|| panic!("{browser}: no line starts with {start:?}:\n{tree}"))
}

/// The `ref_N` on the first line of a text tree that starts (after its indent) with
/// `line_start`, for example `button "Save"`.
pub fn reference_of(tree: &str, line_start: &str) -> String {
    tree.lines()
        .find(|line| line.trim_start().starts_with(line_start))
        .and_then(|line| line.split("[ref_").nth(1))
        .and_then(|rest| rest.split(']').next())
        .map(|number| format!("ref_{number}"))
        .unwrap_or_else(|| panic!("no line starts with {line_start:?} in\n{tree}"))
}
