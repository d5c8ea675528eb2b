//! The browser bridge (docs/protocol/browser-bridge.md, "The browser bridge"): `allwright mcp --launch`, with
//! the built extension, through the official MCP client. The server holds a BiDi session on the
//! browser it launched: user prompts come back as `dialog_open` and are answered with
//! `handle_dialog`, and results carry the tab's lifecycle events.

use std::process::Stdio;
use std::time::{Duration, Instant};

use rmcp::model::CallToolResult;
use rmcp::service::RunningService;
use rmcp::transport::TokioChildProcess;
use rmcp::{RoleClient, ServiceExt};
use serde_json::{json, Value};

use crate::support::{
    fixtures, frame_id_in_snapshot, mcp_call, mcp_call_within, outcome_of, Browser, ToolError,
    PATIENCE,
};

/// How long real input may wait for the browser in the sessions these tests start
/// (`ALLWRIGHT_INPUT_TIMEOUT_MS`; the product's default is 30 s).
pub const REAL_INPUT_TIMEOUT: Duration = Duration::from_secs(5);

/// `allwright mcp --launch <browser> --headless`, as an MCP client sees it.
pub struct LaunchedMcp {
    pub browser: Browser,
    client: RunningService<RoleClient, ()>,
}

impl LaunchedMcp {
    /// `allwright mcp --launch <browser> --headless` with more arguments (`--input`, `--dev`).
    pub async fn start_with(browser: Browser, more_arguments: &[&str]) -> LaunchedMcp {
        let mut arguments = vec!["mcp", "--launch", browser.name(), "--headless"];
        arguments.extend_from_slice(more_arguments);
        Self::spawn(browser, &arguments).await
    }

    /// `allwright mcp --webdriver URL --headless`: a `browser` from that remote end, with
    /// `ALLWRIGHT_SOCKET` set to `socket` when given (where the remote browser's host listens).
    pub async fn start_on_remote_end(
        browser: Browser,
        url: &str,
        socket: Option<&std::path::Path>,
    ) -> LaunchedMcp {
        let arguments = ["mcp", "--webdriver", url, "--headless"];
        let environment: Vec<(&str, &std::path::Path)> = socket
            .map(|path| ("ALLWRIGHT_SOCKET", path))
            .into_iter()
            .collect();
        Self::spawn_with(browser, &arguments, &environment).await
    }

    async fn spawn(browser: Browser, arguments: &[&str]) -> LaunchedMcp {
        Self::spawn_with(browser, arguments, &[]).await
    }

    async fn spawn_with(
        browser: Browser,
        arguments: &[&str],
        environment: &[(&str, &std::path::Path)],
    ) -> LaunchedMcp {
        let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_allwright"));
        command.args(arguments);
        command.envs(environment.iter().copied());
        // Real input waits 5 s for the browser instead of 30 s, so that the busy page of
        // once.rs holds its thread 8 s, not 35 s, to outlast it (the same behaviour, tested in
        // a quarter of the time); ordinary input answers in milliseconds, and in under a
        // second on a loaded 2-core CI machine.
        command.env(
            "ALLWRIGHT_INPUT_TIMEOUT_MS",
            REAL_INPUT_TIMEOUT.as_millis().to_string(),
        );
        let (transport, _) = TokioChildProcess::builder(command)
            .stderr(Stdio::inherit())
            .spawn()
            .expect("spawn allwright mcp --launch");
        let client = tokio::time::timeout(Duration::from_secs(90), ().serve(transport))
            .await
            .expect("MCP initialize in time")
            .expect("MCP initialize");
        LaunchedMcp { browser, client }
    }

    /// The server's instructions to the model, as the MCP handshake gave them.
    pub fn instructions(&self) -> Option<String> {
        self.client
            .peer_info()
            .and_then(|info| info.instructions.clone())
    }

    pub async fn tool_names(&self) -> Vec<String> {
        self.client
            .list_all_tools()
            .await
            .expect("tools/list")
            .into_iter()
            .map(|tool| tool.name.to_string())
            .collect()
    }

    /// The whole MCP answer of a call (content blocks included), or the failure to get one.
    pub async fn call_result(
        &self,
        tool: &str,
        arguments: Value,
    ) -> Result<CallToolResult, ToolError> {
        mcp_call(&self.client, tool, arguments).await
    }

    pub async fn call(&self, tool: &str, arguments: Value) -> Result<Value, ToolError> {
        outcome_of(self.call_result(tool, arguments).await?)
    }

    /// A call the test expects to take longer than the usual patience, bounded by `patience`.
    pub async fn call_within(
        &self,
        tool: &str,
        arguments: Value,
        patience: Duration,
    ) -> Result<Value, ToolError> {
        outcome_of(mcp_call_within(&self.client, tool, arguments, patience).await?)
    }

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

    /// A call that must fail with `code`, answered within `within`.
    pub async fn refused(
        &self,
        tool: &str,
        arguments: Value,
        code: &str,
        within: Duration,
    ) -> Value {
        let started = Instant::now();
        match self.call(tool, arguments.clone()).await {
            Ok(result) => panic!(
                "{}: {tool}({arguments}) succeeded, expected {code}: {result}",
                self.browser.name()
            ),
            Err(error) => {
                assert_eq!(
                    error.code(),
                    code,
                    "{}: {tool}: {}",
                    self.browser.name(),
                    error.0
                );
                assert!(
                    started.elapsed() < within,
                    "{}: {tool} took {:?} to answer {code}",
                    self.browser.name(),
                    started.elapsed()
                );
                error.0
            }
        }
    }

    /// The ref of the line `role "name" [ref_N]` of the page's tree.
    pub async fn ref_of(&self, role: &str, name: &str) -> String {
        let tree = self.ok("get_accessibility_tree", json!({})).await;
        let text = tree["tree"].as_str().expect("tree text");
        let wanted = format!("{role} \"{name}\" [");
        let line = text
            .lines()
            .find(|line| line.trim_start().starts_with(&wanted))
            .unwrap_or_else(|| panic!("{}: no {wanted} in\n{text}", self.browser.name()));
        let start = line.find("[ref_").expect("a ref") + 1;
        let end = start + line[start..].find(']').expect("the ref's end");
        line[start..end].to_owned()
    }

    /// The frameId of the frame whose document's URL ends with `suffix`, from the snapshot's
    /// context ids (`tab-T.frame-F`).
    pub async fn frame_id_of(&self, suffix: &str) -> i64 {
        let snapshot = self
            .ok("accessibility_snapshot", json!({"format": "json"}))
            .await;
        frame_id_in_snapshot(&snapshot, suffix)
            .unwrap_or_else(|| panic!("{}: no frame {suffix} in {snapshot}", self.browser.name()))
    }

    pub async fn tree_text(&self) -> String {
        let tree = self.ok("get_accessibility_tree", json!({})).await;
        tree["tree"].as_str().expect("tree text").to_owned()
    }

    pub async fn shutdown(self) {
        let _ = self.client.cancel().await;
    }
}

/// The types of the lifecycle events of a result, in order.
fn lifecycle_types(result: &Value) -> Vec<String> {
    result["lifecycle"]
        .as_array()
        .map(|events| {
            events
                .iter()
                .filter_map(|event| event["type"].as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

/// The launched browser shows the agent its one first tab and nothing else: in Chromium the BiDi
/// mapper runs in a hidden tab of its own (docs/protocol/host-safety.md, "Debugging endpoints of `--launch`"),
/// which must appear neither in the extension's `chrome.tabs` (list_tabs) nor in the tab the
/// bridge maps and reads (the tree comes from the agent's tab, not from the mapper's).
pub async fn only_the_agents_tab_is_listed(session: &LaunchedMcp) {
    let name = session.browser.name();
    let tabs = session.ok("list_tabs", json!({})).await;
    let listed = tabs["tabs"].as_array().cloned().unwrap_or_default();
    assert_eq!(listed.len(), 1, "{name}: one tab at the start: {tabs}");
    let url = fixtures().url("/pages/bridge/dialogs.html");
    session.ok("navigate", json!({"url": url})).await;
    let tabs = session.ok("list_tabs", json!({})).await;
    assert_eq!(
        tabs["tabs"].as_array().map(Vec::len),
        Some(1),
        "{name}: still one tab after a navigation: {tabs}"
    );
    let tree = session.tree_text().await;
    assert!(
        !tree.contains("BiDi") && !tree.contains("mapper"),
        "{name}: the tree is the agent's page, not the mapper's: {tree}"
    );
}

/// Prompts raised by a click come back as dialog_open at once, block every page call of the tab
/// until handle_dialog answers them, and the page goes on with the answer.
pub async fn dialogs_are_reported_and_answered(session: &LaunchedMcp) {
    let name = session.browser.name();
    let tools = session.tool_names().await;
    assert!(
        tools.iter().any(|tool| tool == "handle_dialog"),
        "{name}: {tools:?}"
    );

    let url = fixtures().url("/pages/bridge/dialogs.html");
    let navigated = session.ok("navigate", json!({"url": url})).await;
    let types = lifecycle_types(&navigated);
    for expected in ["navigationStarted", "load"] {
        assert!(
            types.iter().any(|kind| kind == expected),
            "{name}: navigate's lifecycle has {expected}: {navigated}"
        );
    }
    let tab_context = navigated["lifecycle"][0]["tabContext"]
        .as_str()
        .expect("tabContext");
    assert!(!tab_context.is_empty());
    let quick = Duration::from_secs(10);

    // alert(): the click is answered dialog_open, not after a timeout.
    let alert_button = session.ref_of("button", "Show alert").await;
    let refused = session
        .refused(
            "click_ax",
            json!({"ref_id": alert_button}),
            "dialog_open",
            quick,
        )
        .await;
    assert_eq!(
        refused["dialog"],
        json!({"type": "alert", "message": "Saved!"}),
        "{name}"
    );
    assert!(
        refused["hint"]
            .as_str()
            .is_some_and(|hint| hint.contains("handle_dialog")),
        "{name}: {refused}"
    );
    // A read while the dialog is open is refused before it reaches the page.
    session
        .refused(
            "get_accessibility_tree",
            json!({}),
            "dialog_open",
            Duration::from_secs(5),
        )
        .await;
    let handled = session.ok("handle_dialog", json!({"accept": true})).await;
    assert_eq!(
        handled,
        json!({"handled": true, "type": "alert", "message": "Saved!"}),
        "{name}"
    );
    let tree = wait_for_text(session, "after the alert").await;
    assert!(tree.contains("after the alert"), "{name}");
    // The input the alert cut short lost its marker once the alert was answered.
    wait_for_text(session, "markers: 0").await;
    session
        .refused("handle_dialog", json!({"accept": true}), "no_dialog", quick)
        .await;

    // confirm(): dismissed, and the page sees Cancel.
    let confirm_button = session.ref_of("button", "Delete").await;
    let refused = session
        .refused(
            "click_ax",
            json!({"ref_id": confirm_button}),
            "dialog_open",
            quick,
        )
        .await;
    assert_eq!(refused["dialog"]["type"], "confirm", "{name}");
    assert_eq!(refused["dialog"]["message"], "Delete it?", "{name}");
    let handled = session.ok("handle_dialog", json!({"accept": false})).await;
    assert_eq!(handled["type"], "confirm");
    wait_for_text(session, "cancelled").await;

    // prompt(): its default value is reported and the answer's text reaches the page.
    let prompt_button = session.ref_of("button", "Ask name").await;
    let refused = session
        .refused(
            "click_ax",
            json!({"ref_id": prompt_button}),
            "dialog_open",
            quick,
        )
        .await;
    assert_eq!(
        refused["dialog"],
        json!({"type": "prompt", "message": "Your name?", "defaultValue": "Ann"}),
        "{name}"
    );
    session
        .ok("handle_dialog", json!({"accept": true, "promptText": "Bo"}))
        .await;
    wait_for_text(session, "name: Bo").await;

    // The prompts' own events are in the lifecycle of the next result of the tab.
    let stable = session.ok("wait_for_stable", json!({"quietMs": 200})).await;
    assert_eq!(stable["stable"], true, "{name}: {stable}");
}

/// A navigation started by a click shows in the lifecycle, and wait_for_stable waits for its
/// load.
pub async fn lifecycle_follows_navigations(session: &LaunchedMcp) {
    let name = session.browser.name();
    let url = fixtures().url("/pages/bridge/dialogs.html");
    session.ok("navigate", json!({"url": url})).await;
    let link = session.ref_of("link", "Reload page").await;
    let clicked = session.ok("click_ax", json!({"ref_id": link})).await;
    let stable = session.ok("wait_for_stable", json!({"quietMs": 200})).await;
    assert_eq!(stable["stable"], true, "{name}: {stable}");
    let mut types = lifecycle_types(&clicked);
    types.extend(lifecycle_types(&stable));
    assert!(
        types.iter().any(|kind| kind == "navigationStarted"),
        "{name}: {types:?}"
    );
    assert!(types.iter().any(|kind| kind == "load"), "{name}: {types:?}");
    let tree = session.ok("get_accessibility_tree", json!({})).await;
    assert!(
        tree["url"]
            .as_str()
            .is_some_and(|url| url.ends_with("?second")),
        "{name}: {tree}"
    );
    assert!(
        tree.get("lifecycle").is_none(),
        "{name}: no new events since the last call: {tree}"
    );
}

pub async fn wait_for_text(session: &LaunchedMcp, text: &str) -> String {
    let deadline = Instant::now() + PATIENCE;
    loop {
        let tree = session.tree_text().await;
        if tree.contains(text) {
            return tree;
        }
        assert!(
            Instant::now() < deadline,
            "{}: the page never showed {text:?}:\n{tree}",
            session.browser.name()
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// click_ax and hover send real pointer input over BiDi: CSS :hover and mouseenter menus open,
/// an isTrusted-only button counts exactly one click, and a covered button is refused with the
/// cover named.
pub async fn real_pointer_input(session: &LaunchedMcp) {
    let name = session.browser.name();
    let url = fixtures().url("/pages/bridge/input.html");
    session.ok("navigate", json!({"url": url})).await;

    // CSS :hover: the menu's items are not in the tree until the pointer is over the trigger.
    assert!(!session.tree_text().await.contains("Laptops"), "{name}");
    let products = session.ref_of("button", "Products").await;
    let hovered = session.ok("hover", json!({"ref_id": products})).await;
    assert_eq!(hovered["method"], "bidi", "{name}: {hovered}");
    assert_eq!(hovered["progress"], "observed", "{name}: {hovered}");
    let laptops = session.ref_of("button", "Laptops").await;
    let clicked = session.ok("click_ax", json!({"ref_id": laptops})).await;
    assert_eq!(clicked["method"], "bidi", "{name}: {clicked}");
    wait_for_text(session, "css menu item").await;

    // mouseenter on the wrapper.
    let account = session.ref_of("button", "Account").await;
    let hovered = session.ok("hover", json!({"ref_id": account})).await;
    assert_eq!(hovered["method"], "bidi", "{name}: {hovered}");
    assert_eq!(hovered["progress"], "observed", "{name}: {hovered}");
    let settings = session.ref_of("button", "Settings").await;
    session.ok("click_ax", json!({"ref_id": settings})).await;
    wait_for_text(session, "js menu item").await;

    // A handler that ignores untrusted events runs exactly once, and the result says so.
    let trusted = session.ref_of("button", "Trusted clicks: 0").await;
    let clicked = session.ok("click_ax", json!({"ref_id": trusted})).await;
    assert_eq!(clicked["method"], "bidi", "{name}: {clicked}");
    assert_eq!(clicked["progress"], "observed", "{name}: {clicked}");
    assert!(
        clicked["evidence"]
            .as_array()
            .is_some_and(|evidence| evidence.contains(&json!("local_mutation"))),
        "{name}: {clicked}"
    );
    let tree = session.tree_text().await;
    assert!(
        tree.contains("Trusted clicks: 1"),
        "{name}: one trusted click:\n{tree}"
    );

    // A covered button: nothing is sent, and the error names the cover.
    let covered = session.ref_of("button", "Covered button").await;
    let refused = session
        .refused(
            "click_ax",
            json!({"ref_id": covered}),
            "not_actionable",
            Duration::from_secs(20),
        )
        .await;
    let message = refused["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("cookie-banner") && message.contains("We use cookies"),
        "{name}: {refused}"
    );
    assert!(
        !session.tree_text().await.contains("covered button"),
        "{name}"
    );
    // The marker is gone from the page whatever the outcome, the refusal included.
    wait_for_text(session, "markers: 0").await;
}

/// press_key in trusted mode (the default with --launch) is real key input over BiDi: the
/// field's handler sees one trusted Enter and no untrusted one, the browser itself submits the
/// form once (no `defaultAction` performed by allwright), and the result says `input: "trusted"`;
/// a key for a field that hands focus elsewhere is not sent for real (it would land elsewhere).
pub async fn real_key_input(session: &LaunchedMcp) {
    let name = session.browser.name();
    let url = fixtures().url("/pages/bridge/keys.html");
    session.ok("navigate", json!({"url": url})).await;
    let query = session.ref_of("textbox", "Search").await;
    let typed = session
        .ok("type_ax", json!({"ref_id": query, "text": "lamps"}))
        .await;
    assert_eq!(typed["input"], "synthetic", "{name}: {typed}");
    let pressed = session
        .ok("press_key", json!({"ref_id": query, "key": "Enter"}))
        .await;
    assert_eq!(pressed["input"], "trusted", "{name}: {pressed}");
    assert_eq!(pressed["method"], "bidi", "{name}: {pressed}");
    assert!(pressed.get("defaultAction").is_none(), "{name}: {pressed}");
    assert_eq!(pressed["progress"], "observed", "{name}: {pressed}");
    wait_for_text(
        session,
        "trusted Enter keys: 1, untrusted Enter keys: 0, submits: 1",
    )
    .await;
    // A key the WebDriver key table does not know is the extension's, and says so.
    let unknown = session
        .ok("press_key", json!({"ref_id": query, "key": "F13"}))
        .await;
    assert_eq!(unknown["input"], "synthetic", "{name}: {unknown}");
    tokio::time::sleep(Duration::from_millis(300)).await;
    let tree = session.tree_text().await;
    assert!(
        tree.contains("trusted Enter keys: 1, untrusted Enter keys: 0, submits: 1"),
        "{name}: one Enter, one submission:\n{tree}"
    );

    // A page that moves focus away from the field as soon as it gets it: no real key is sent
    // (it would land on the decoy); the extension's key, dispatched on the field, runs instead.
    let card = session.ref_of("textbox", "Card number").await;
    let pressed = session
        .ok("press_key", json!({"ref_id": card, "key": "a"}))
        .await;
    assert_eq!(pressed["input"], "synthetic", "{name}: {pressed}");
    assert!(
        pressed["hints"]
            .as_array()
            .is_some_and(|hints| hints.iter().any(|hint| hint
                .as_str()
                .is_some_and(|hint| hint.contains("real key input was not sent")))),
        "{name}: {pressed}"
    );
    tokio::time::sleep(Duration::from_millis(300)).await;
    let tree = session.tree_text().await;
    assert!(
        tree.contains("decoy trusted keys: 0"),
        "{name}: the decoy got no real key:\n{tree}"
    );
}

/// A chromedriver started by the test as the "remote" end of `--webdriver`, with its verbose
/// log: chromedriver writes every CDP command it relays, the BiDi mapper's included.
pub struct LocalChromedriver {
    process: std::process::Child,
    pub url: String,
    pub log: std::path::PathBuf,
    _folder: tempfile::TempDir,
}

impl LocalChromedriver {
    pub fn start() -> LocalChromedriver {
        let folder = tempfile::tempdir().expect("temp dir");
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|listener| listener.local_addr())
            .expect("a free port")
            .port();
        let log = folder.path().join("chromedriver.log");
        let chromedriver =
            allwright_surface_web::find_executable(allwright_surface_web::Program::Chromedriver)
                .expect("chromedriver");
        let process = std::process::Command::new(chromedriver)
            .arg(format!("--port={port}"))
            .arg("--verbose")
            .arg(format!("--log-path={}", log.display()))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn chromedriver");
        let url = format!("http://127.0.0.1:{port}");
        let deadline = Instant::now() + Duration::from_secs(20);
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(
                Instant::now() < deadline,
                "chromedriver did not listen on {port}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        LocalChromedriver {
            process,
            url,
            log,
            _folder: folder,
        }
    }

    /// The CDP and BiDi traffic of the log so far.
    ///
    /// chromedriver logs its own CDP commands as `DevTools WebSocket Command: <method>`, and,
    /// with --verbose, the BiDi mapper's debug channel: each CDP command the mapper sends to
    /// implement a BiDi command is a `sendDebugMessage` binding call whose payload has
    /// `"logType": "cdp:SEND ▸"` and the command's `"method"`.
    pub fn traffic(&self) -> CdpTraffic {
        let text = std::fs::read_to_string(&self.log).unwrap_or_default();
        let mut traffic = CdpTraffic::default();
        let mut in_mapper_send = false;
        for line in text.lines() {
            if line.starts_with('[') {
                in_mapper_send = false;
                if let Some(rest) = line.split("DevTools WebSocket Command: ").nth(1) {
                    if let Some(method) = rest.split_whitespace().next() {
                        traffic.chromedriver_commands.push(method.to_owned());
                    }
                }
            }
            if line.contains("\"logType\": \"cdp:SEND") {
                in_mapper_send = true;
            } else if line.contains("\"logType\":") {
                in_mapper_send = false;
            }
            if let Some(rest) = line.trim_start().strip_prefix("\"method\": \"") {
                let method = rest.trim_end_matches(['"', ',']).to_owned();
                if method == "input.performActions" {
                    traffic.perform_actions += 1;
                }
                if in_mapper_send {
                    traffic.mapper_commands.push(method);
                }
            }
        }
        traffic
    }
}

/// What [`LocalChromedriver::traffic`] read.
#[derive(Debug, Default)]
pub struct CdpTraffic {
    /// CDP commands chromedriver sent on its own connection.
    pub chromedriver_commands: Vec<String>,
    /// CDP commands the BiDi mapper sent.
    pub mapper_commands: Vec<String>,
    /// How often `input.performActions` appears (once per BiDi command).
    pub perform_actions: usize,
}

impl Drop for LocalChromedriver {
    fn drop(&mut self) {
        let _ = self.process.kill();
        let _ = self.process.wait();
    }
}

/// A Firefox started by the test as the "remote" end of `--webdriver ws://.../session`, as the
/// user of a test machine would run it: its own HOME, in which `allwright install` registered
/// the native host (docs/protocol/browser-bridge.md, "The browser bridge"), and a socket for that host that
/// the MCP server is told too.
pub struct LocalFirefox {
    process: std::process::Child,
    pub url: String,
    pub socket: std::path::PathBuf,
    folder: tempfile::TempDir,
}

impl LocalFirefox {
    pub fn start() -> LocalFirefox {
        use std::os::unix::process::CommandExt;
        let folder = tempfile::Builder::new()
            .prefix("allwright-remote-firefox-")
            .tempdir()
            .expect("temp dir");
        let root = folder.path();
        for sub in ["home", "config", "cache", "data", "tmp", "profile"] {
            std::fs::create_dir_all(root.join(sub)).expect("prepare folders");
        }
        let socket = root.join("run").join("host.sock");
        let environment: Vec<(&str, std::path::PathBuf)> = vec![
            ("HOME", root.join("home")),
            ("XDG_CONFIG_HOME", root.join("config")),
            ("XDG_CACHE_HOME", root.join("cache")),
            ("XDG_DATA_HOME", root.join("data")),
            ("TMPDIR", root.join("tmp")),
            ("ALLWRIGHT_SOCKET", socket.clone()),
            ("ALLWRIGHT_LOG_FILE", root.join("host.log")),
        ];
        // What the machine's user does once: register the host for their browsers.
        let install = std::process::Command::new(env!("CARGO_BIN_EXE_allwright"))
            .arg("install")
            .envs(environment.iter().map(|(name, value)| (name, value)))
            .output()
            .expect("run allwright install");
        assert!(
            install.status.success(),
            "allwright install: {}",
            String::from_utf8_lossy(&install.stderr)
        );
        let host_manifest = root
            .join("home/.mozilla/native-messaging-hosts")
            .read_dir()
            .expect("allwright install wrote the Firefox host manifest")
            .count();
        assert_eq!(host_manifest, 1, "one Firefox host manifest");
        // No first-run pages or update traffic, as the launcher's own profile.
        std::fs::write(
            root.join("profile").join("user.js"),
            "user_pref(\"browser.shell.checkDefaultBrowser\", false);\n\
user_pref(\"browser.startup.homepage_override.mstone\", \"ignore\");\n\
user_pref(\"browser.aboutwelcome.enabled\", false);\n\
user_pref(\"datareporting.policy.dataSubmissionEnabled\", false);\n\
user_pref(\"app.update.disabledForTesting\", true);\n",
        )
        .expect("write user.js");
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|listener| listener.local_addr())
            .expect("a free port")
            .port();
        let options = allwright_surface_web::FirefoxLaunchOptions::new(root.join("profile"));
        let log = std::fs::File::create(root.join("firefox.log")).expect("firefox.log");
        let process = std::process::Command::new(options.firefox_executable().expect("Firefox"))
            .args(options.firefox_arguments(port))
            .envs(environment.iter().map(|(name, value)| (name, value)))
            .stdout(log.try_clone().expect("log"))
            .stderr(log)
            .process_group(0)
            .spawn()
            .expect("spawn Firefox");
        let deadline = Instant::now() + Duration::from_secs(60);
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(
                Instant::now() < deadline,
                "Firefox's remote agent did not listen on {port}"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
        LocalFirefox {
            process,
            url: format!("ws://127.0.0.1:{port}/session"),
            socket,
            folder,
        }
    }

    /// Whether the Firefox process is still running.
    pub fn is_running(&mut self) -> bool {
        matches!(self.process.try_wait(), Ok(None))
    }

    /// Whether our extension's host is still running for this Firefox: its socket is there.
    pub fn host_socket_exists(&self) -> bool {
        self.socket.exists()
    }

    pub fn log(&self) -> String {
        std::fs::read_to_string(self.folder.path().join("firefox.log")).unwrap_or_default()
    }
}

impl Drop for LocalFirefox {
    fn drop(&mut self) {
        // Firefox's content processes share its process group.
        if let Some(group) = rustix::process::Pid::from_raw(self.process.id() as i32) {
            let _ = rustix::process::kill_process_group(group, rustix::process::Signal::KILL);
        }
        let _ = self.process.wait();
    }
}

/// Tabs are told apart: a dialog in a second tab (mapped by its marker, since the first tab is
/// mapped already) blocks that tab only, and handle_dialog answers it by tabId.
pub async fn dialogs_are_per_tab(session: &LaunchedMcp) {
    let name = session.browser.name();
    let url = fixtures().url("/pages/bridge/dialogs.html");
    let first = session.ok("navigate", json!({"url": url})).await;
    let first_tab = session.ok("list_tabs", json!({})).await["tabs"]
        .as_array()
        .and_then(|tabs| tabs.iter().find(|tab| tab["active"] == true))
        .and_then(|tab| tab["tabId"].as_i64())
        .expect("the active tab");
    assert!(first["url"].as_str().is_some(), "{name}: {first}");
    let second = session.ok("new_tab", json!({"url": url})).await;
    let second_tab = second["tabId"].as_i64().expect("the new tab's id");
    tokio::time::sleep(Duration::from_millis(150)).await;
    let alert_button = session.ref_of("button", "Show alert").await;
    let refused = session
        .refused(
            "click_ax",
            json!({"ref_id": alert_button}),
            "dialog_open",
            Duration::from_secs(10),
        )
        .await;
    assert_eq!(refused["dialog"]["type"], "alert", "{name}");
    // The first tab is not blocked.
    let other = session
        .ok("get_accessibility_tree", json!({"tabId": first_tab}))
        .await;
    assert!(
        other["tree"]
            .as_str()
            .is_some_and(|tree| tree.contains("Show alert")),
        "{name}"
    );
    session
        .refused(
            "handle_dialog",
            json!({"accept": true, "tabId": first_tab}),
            "no_dialog",
            Duration::from_secs(10),
        )
        .await;
    let handled = session
        .ok(
            "handle_dialog",
            json!({"accept": true, "tabId": second_tab}),
        )
        .await;
    assert_eq!(handled["message"], "Saved!", "{name}");
    wait_for_text(session, "after the alert").await;
    session.ok("close_tab", json!({"tabId": second_tab})).await;
    session.ok("select_tab", json!({"tabId": first_tab})).await;
}

/// Real input reaches a cross-origin frame and an open shadow root; a page that strips the
/// marker gets the extension's own input instead, clicked once, and the result says so.
pub async fn frames_shadow_roots_and_a_page_that_strips_the_marker(session: &LaunchedMcp) {
    let name = session.browser.name();
    session
        .ok(
            "navigate",
            json!({"url": fixtures().url("/pages/frame-actions/top.html")}),
        )
        .await;
    let frame_id = session.frame_id_of("/child.html").await;
    let frame_tree = |tree: Value| tree["tree"].as_str().unwrap_or_default().to_owned();
    let tree = frame_tree(
        session
            .ok("get_accessibility_tree", json!({"frameId": frame_id}))
            .await,
    );
    let save = tree
        .lines()
        .find(|line| line.trim_start().starts_with("button \"Frame save\" ["))
        .and_then(|line| line.split('[').nth(1))
        .and_then(|rest| rest.split(']').next())
        .unwrap_or_else(|| panic!("{name}: no Frame save in\n{tree}"))
        .to_owned();
    let clicked = session
        .ok("click_ax", json!({"ref_id": save, "frameId": frame_id}))
        .await;
    assert_eq!(clicked["method"], "bidi", "{name}: {clicked}");
    let tree = frame_tree(
        session
            .ok("get_accessibility_tree", json!({"frameId": frame_id}))
            .await,
    );
    assert!(
        tree.contains("Saved:"),
        "{name}: the frame took the click:\n{tree}"
    );
    // iframe_click is click_ax in a named frame: the same real input (docs/protocol/frames.md, "Frames").
    let clicked = session
        .ok("iframe_click", json!({"ref_id": save, "frameId": frame_id}))
        .await;
    assert_eq!(clicked["method"], "bidi", "{name}: iframe_click: {clicked}");

    session
        .ok(
            "navigate",
            json!({"url": fixtures().url("/pages/shadow.html")}),
        )
        .await;
    let close = session.ref_of("button", "Close card").await;
    let clicked = session.ok("click_ax", json!({"ref_id": close})).await;
    assert_eq!(
        clicked["method"], "bidi",
        "{name}: inside an open shadow root: {clicked}"
    );

    session
        .ok(
            "navigate",
            json!({"url": fixtures().url("/pages/bridge/hostile.html")}),
        )
        .await;
    let button = session.ref_of("button", "Strip and click").await;
    let clicked = session.ok("click_ax", json!({"ref_id": button})).await;
    assert_ne!(clicked["method"], "bidi", "{name}: {clicked}");
    assert!(
        clicked["hints"]
            .to_string()
            .contains("real input could not reach"),
        "{name}: {clicked}"
    );
    wait_for_text(session, "Clicked once").await;
}

/// screenshot over BiDi (docs/protocol/browser-bridge.md, "The browser bridge"): the viewport, one element (also
/// below the fold and inside a frame), the whole page and a tab that is not shown, none of which
/// needs the tab to be visible; every picture decoded and its size and colours checked.
pub async fn screenshots_over_bidi(session: &LaunchedMcp) {
    use crate::screenshot::{image_of, is_colour, Picture, BLUE, GREEN, RED, WHITE};
    let browser = session.browser.name();
    let capture = |arguments: Value| async move {
        let result = session
            .call_result("screenshot", arguments.clone())
            .await
            .unwrap_or_else(|error| panic!("{browser}: screenshot({arguments}): {}", error.0));
        let (mime_type, bytes, facts) = image_of(browser, &result);
        assert_eq!(facts["method"], "bidi", "{browser}: {facts}");
        (mime_type, bytes, facts)
    };
    session
        .ok(
            "navigate",
            json!({"url": fixtures().url("/pages/screenshot/index.html")}),
        )
        .await;

    // The viewport: the red box where the page put it (headless windows have one device pixel
    // per CSS pixel).
    let (mime_type, bytes, facts) = capture(json!({})).await;
    assert_eq!(mime_type, "image/png", "{browser}");
    let picture = Picture::decode_png(&bytes);
    assert_eq!(facts["scope"], "viewport", "{browser}: {facts}");
    assert_eq!(
        (facts["width"].as_u64(), facts["height"].as_u64()),
        (Some(picture.width.into()), Some(picture.height.into())),
        "{browser}: the facts give the picture's size"
    );
    assert!(
        picture.width >= 400 && picture.height >= 300,
        "{browser}: {facts}"
    );
    assert!(
        is_colour(picture.rgb(100, 100), RED),
        "{browser}: inside the red box"
    );
    assert!(
        is_colour(picture.rgb(20, 20), WHITE),
        "{browser}: outside it"
    );

    // One element: exactly its box, in its colour; one below the fold as well.
    for (name, size, colour) in [("Red box", (120, 80), RED), ("Green box", (100, 50), GREEN)] {
        let reference = session.ref_of("image", name).await;
        let (_, bytes, facts) = capture(json!({"ref_id": reference})).await;
        let picture = Picture::decode_png(&bytes);
        assert_eq!(facts["scope"], "element", "{browser}: {facts}");
        assert_eq!(
            (picture.width, picture.height),
            size,
            "{browser}: {name}: {facts}"
        );
        for (x, y) in [(0, 0), (picture.width - 1, picture.height - 1)] {
            assert!(
                is_colour(picture.rgb(x, y), colour),
                "{browser}: pixel {x},{y} of {name}"
            );
        }
    }

    // An element inside the same-origin frame, through its frame's context.
    let frame_id = session.frame_id_of("/screenshot/frame.html").await;
    let frame_tree = session
        .ok("get_accessibility_tree", json!({"frameId": frame_id}))
        .await;
    let frame_text = frame_tree["tree"].as_str().expect("tree");
    let line = frame_text
        .lines()
        .find(|line| line.trim_start().starts_with("image \"Blue box\" [ref_"))
        .unwrap_or_else(|| panic!("{browser}: the blue box in {frame_text}"));
    let start = line.find("[ref_").expect("a ref") + 1;
    let blue = &line[start..start + line[start..].find(']').expect("the ref's end")];
    let (_, bytes, facts) = capture(json!({"ref_id": blue, "frameId": frame_id})).await;
    let picture = Picture::decode_png(&bytes);
    assert_eq!(
        (picture.width, picture.height),
        (60, 40),
        "{browser}: {facts}"
    );
    assert!(
        is_colour(picture.rgb(30, 20), BLUE),
        "{browser}: the blue box in the frame"
    );

    // The whole page: taller than any viewport (the page is 3000 CSS pixels high), JPEG too.
    let (_, bytes, facts) = capture(json!({"fullPage": true})).await;
    let picture = Picture::decode_png(&bytes);
    assert_eq!(facts["scope"], "fullPage", "{browser}: {facts}");
    assert!(picture.height >= 2450, "{browser}: the whole page: {facts}");
    assert!(
        is_colour(picture.rgb(60, 2420), GREEN),
        "{browser}: the green box far below"
    );
    let (mime_type, bytes, facts) = capture(json!({"format": "jpeg"})).await;
    assert_eq!(mime_type, "image/jpeg", "{browser}: {facts}");
    assert_eq!(&bytes[..2], &[0xFF, 0xD8], "{browser}: a JPEG");

    // A tab that is not shown: BiDi captures it all the same (the extension cannot). The element
    // screenshots above scrolled the page to their elements; it goes back to the top first.
    session.ok("scroll", json!({"to": "top"})).await;
    let first_tab = session.ok("list_tabs", json!({})).await["tabs"][0]["tabId"].clone();
    session
        .ok(
            "new_tab",
            json!({"url": fixtures().url("/pages/bridge/dialogs.html")}),
        )
        .await;
    let (_, bytes, facts) = capture(json!({"tabId": first_tab})).await;
    let picture = Picture::decode_png(&bytes);
    // The page may keep some of its scroll: the red box is looked for down its column.
    assert!(
        (0..picture.height).any(|y| is_colour(picture.rgb(100, y), RED)),
        "{browser}: the hidden tab's red box: {facts}"
    );
    let tabs = session.ok("list_tabs", json!({})).await;
    let newest = tabs["tabs"]
        .as_array()
        .and_then(|tabs| tabs.iter().find(|tab| tab["tabId"] != first_tab))
        .map(|tab| tab["tabId"].clone())
        .expect("the new tab");
    session.ok("close_tab", json!({"tabId": newest})).await;

    // Both at once cannot be.
    let refused = session
        .refused(
            "screenshot",
            json!({"fullPage": true, "ref_id": "ref_1"}),
            "invalid_arguments",
            Duration::from_secs(10),
        )
        .await;
    assert!(
        refused["message"]
            .as_str()
            .is_some_and(|m| m.contains("fullPage")),
        "{refused}"
    );
}

/// Secret fields are painted over in BiDi's pictures too (browsingContext.captureScreenshot,
/// bracketed by the extension's masks): the viewport, the whole page (the field far below
/// included), an element of the top document and an element inside the cross-origin frame; the
/// result counts the fields masked; a page that removes the masks gets no picture.
pub async fn secret_fields_are_painted_over_in_bidi_screenshots(session: &LaunchedMcp) {
    use crate::screenshot::{
        assert_secret_fields_masked, image_of, Picture, SECRET_FIELDS_IN_VIEWPORT,
        SECRET_FIELD_BELOW,
    };
    let browser = session.browser.name();
    let capture = |arguments: Value| async move {
        let result = session
            .call_result("screenshot", arguments.clone())
            .await
            .unwrap_or_else(|error| panic!("{browser}: screenshot({arguments}): {}", error.0));
        let (_, bytes, facts) = image_of(browser, &result);
        assert_eq!(facts["method"], "bidi", "{browser}: {facts}");
        (Picture::decode_png(&bytes), facts)
    };
    session
        .ok(
            "navigate",
            json!({"url": fixtures().url("/pages/screenshot/secrets.html")}),
        )
        .await;
    let frame_id = session.frame_id_of("/screenshot/secrets-frame.html").await;

    // Headless windows have one device pixel per CSS pixel.
    let (picture, facts) = capture(json!({})).await;
    assert_secret_fields_masked(
        browser,
        &picture,
        (0.0, 0.0),
        1.0,
        SECRET_FIELDS_IN_VIEWPORT,
        &facts,
    );
    assert_eq!(facts["maskedSecretFields"], 11, "{browser}: {facts}");

    let (picture, facts) = capture(json!({"fullPage": true})).await;
    let mut everywhere = SECRET_FIELDS_IN_VIEWPORT.to_vec();
    everywhere.push(SECRET_FIELD_BELOW);
    assert!(picture.height >= 2430, "{browser}: the whole page: {facts}");
    assert_secret_fields_masked(browser, &picture, (0.0, 0.0), 1.0, &everywhere, &facts);
    assert_eq!(facts["maskedSecretFields"], 12, "{browser}: {facts}");

    let form = session.ref_of("region", "Payment").await;
    let (picture, facts) = capture(json!({"ref_id": form})).await;
    assert_eq!(facts["scope"], "element", "{browser}: {facts}");
    assert_secret_fields_masked(
        browser,
        &picture,
        (0.0, 0.0),
        1.0,
        &SECRET_FIELDS_IN_VIEWPORT[..8],
        &facts,
    );

    let frame_tree = session
        .ok("get_accessibility_tree", json!({"frameId": frame_id}))
        .await;
    let frame_text = frame_tree["tree"].as_str().expect("tree");
    let line = frame_text
        .lines()
        .find(|line| line.trim_start().starts_with("region \"Frame form\" [ref_"))
        .unwrap_or_else(|| panic!("{browser}: the frame's form in {frame_text}"));
    let start = line.find("[ref_").expect("a ref") + 1;
    let frame_form = &line[start..start + line[start..].find(']').expect("the ref's end")];
    let (picture, facts) = capture(json!({"ref_id": frame_form, "frameId": frame_id})).await;
    assert_secret_fields_masked(
        browser,
        &picture,
        (200.0, 200.0),
        1.0,
        &SECRET_FIELDS_IN_VIEWPORT[10..],
        &facts,
    );

    // A page that removes the masks as soon as they are added gets no picture.
    session
        .ok(
            "navigate",
            json!({"url": fixtures().url("/pages/screenshot/secrets.html?hostile")}),
        )
        .await;
    let refused = session
        .call("screenshot", json!({"fullPage": true}))
        .await
        .expect_err("no picture of a page that removed the masks")
        .0;
    assert_eq!(refused["code"], "script_failed", "{browser}: {refused}");
    assert!(
        refused["message"]
            .as_str()
            .is_some_and(|message| message.contains("thrown away")),
        "{browser}: {refused}"
    );
}
