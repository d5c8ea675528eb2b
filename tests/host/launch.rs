//! Opt-in browser checks of `--launch` and `snapshot` with a stand-in extension: a background
//! that connects to the native host, says hello and answers every call with what it knows about
//! the active tab. It carries the real extension's identity (the public `key` and the gecko id
//! of manifest/identity.json), so the launcher's id check and the native-host manifests are
//! exercised for real. `cargo test --test host -- --ignored`.

use std::path::Path;

use serde_json::{json, Value};

const STAND_IN_BACKGROUND: &str = r#"
const port = chrome.runtime.connectNative("NATIVE_HOST_NAME");
port.postMessage({type: "hello", browser: "BROWSER", extensionVersion: "0.0.0-stand-in", protocol: 1});
port.onMessage.addListener(async (message) => {
  if (message.type !== "call") return;
  const [tab] = await chrome.tabs.query({active: true, lastFocusedWindow: true});
  const url = tab ? tab.url : null;
  port.postMessage({type: "result", id: message.id, ok: true,
    result: {tree: `stand-in tree of ${url}`, snapshot: JSON.stringify({url}), tool: message.tool, url}});
});
"#;

fn identity() -> Value {
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("manifest/identity.json"),
    )
    .expect("identity.json");
    serde_json::from_str(&text).expect("identity JSON")
}

/// Writes the stand-in extension for `browser` ("chrome" or "firefox") into `folder`.
fn write_stand_in_extension(folder: &Path, browser: &str) {
    let identity = identity();
    let background = STAND_IN_BACKGROUND
        .replace(
            "NATIVE_HOST_NAME",
            identity["nativeHostName"].as_str().expect("name"),
        )
        .replace("BROWSER", browser);
    let manifest = if browser == "chrome" {
        json!({"manifest_version": 3, "name": "allwright stand-in", "version": "0.0.0", "key": identity["chromeKey"],
               "permissions": ["nativeMessaging", "tabs"], "background": {"service_worker": "background.js"}})
    } else {
        json!({"manifest_version": 3, "name": "allwright stand-in", "version": "0.0.0",
               "browser_specific_settings": {"gecko": {"id": identity["geckoId"]}},
               "permissions": ["nativeMessaging", "tabs"], "background": {"scripts": ["background.js"]}})
    };
    std::fs::create_dir_all(folder).expect("folder");
    std::fs::write(folder.join("manifest.json"), manifest.to_string()).expect("manifest");
    std::fs::write(folder.join("background.js"), background).expect("background");
}

fn snapshot_through_the_stand_in(browser_flag: &str, extension_flavour: &str) {
    let folder = tempfile::tempdir().expect("temp dir");
    let extension = folder.path().join("extension");
    write_stand_in_extension(&extension, extension_flavour);
    let page = folder.path().join("page with space.html");
    std::fs::write(&page, "<title>Stand-in</title><button>Go</button>").expect("page");
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_allwright"))
        .args([
            "snapshot",
            page.to_str().expect("utf-8 path"),
            "--browser",
            browser_flag,
            "--extension",
        ])
        .arg(&extension)
        .output()
        .expect("run allwright snapshot");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "snapshot failed:\n{stderr}");
    assert!(
        stdout.starts_with("stand-in tree of http://127.0.0.1:"),
        "{stdout}"
    );
    assert!(
        stdout.trim_end().ends_with("/page%20with%20space.html"),
        "{stdout}"
    );
}

#[test]
#[ignore = "starts Chromium"]
fn snapshot_launches_chromium_installs_the_extension_and_reaches_the_host() {
    snapshot_through_the_stand_in("chromium", "chrome");
}

#[test]
#[ignore = "starts Firefox"]
fn snapshot_launches_firefox_installs_the_extension_and_reaches_the_host() {
    snapshot_through_the_stand_in("firefox", "firefox");
}

#[test]
fn snapshot_without_a_built_extension_fails_clearly() {
    let folder = tempfile::tempdir().expect("temp dir");
    let page = folder.path().join("page.html");
    std::fs::write(&page, "<p>x</p>").expect("page");
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_allwright"))
        .args([
            "snapshot",
            page.to_str().expect("utf-8 path"),
            "--extension",
        ])
        .arg(folder.path().join("missing"))
        .output()
        .expect("run allwright snapshot");
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("not built") && stderr.contains("build-extension"),
        "{stderr}"
    );
}

#[test]
fn a_bad_command_line_is_a_usage_error() {
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_allwright"))
        .args(["mcp", "--tier", "huge"])
        .output()
        .expect("run");
    assert_eq!(output.status.code(), Some(2));
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_allwright"))
        .arg("--help")
        .output()
        .expect("run");
    assert_eq!(output.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&output.stdout).contains("mcp"));
}

/// `allwright mcp --launch`: the MCP session drives a browser of its own; closing the session
/// (stdin EOF) closes the browser and removes every temporary file.
async fn mcp_session_through_the_stand_in(browser_flag: &str, extension_flavour: &str) {
    use rmcp::model::CallToolRequestParams;
    use rmcp::transport::TokioChildProcess;
    use rmcp::ServiceExt;

    let folder = tempfile::tempdir().expect("temp dir");
    let extension = folder.path().join("extension");
    write_stand_in_extension(&extension, extension_flavour);
    // The launcher's temporary folder goes under this TMPDIR, so the test can see it removed.
    let temporary = folder.path().join("tmp");
    std::fs::create_dir_all(&temporary).expect("tmp");
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_allwright"));
    command
        .args(["mcp", "--launch", browser_flag, "--headless", "--extension"])
        .arg(&extension)
        .env("TMPDIR", &temporary);
    let (transport, _stderr) = TokioChildProcess::builder(command)
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("spawn allwright mcp --launch");
    let client = tokio::time::timeout(std::time::Duration::from_secs(60), ().serve(transport))
        .await
        .expect("initialize in time")
        .expect("MCP initialize");
    assert!(
        std::fs::read_dir(&temporary).expect("tmp").count() > 0,
        "the launcher made its temporary folder"
    );
    let result = client
        .call_tool(
            CallToolRequestParams::new("get_accessibility_tree")
                .with_arguments(json!({}).as_object().cloned().expect("object")),
        )
        .await
        .expect("tools/call");
    assert_ne!(result.is_error, Some(true), "{result:?}");
    let structured = result.structured_content.expect("structuredContent");
    assert!(
        structured["tree"]
            .as_str()
            .is_some_and(|tree| tree.starts_with("stand-in tree of")),
        "{structured}"
    );
    client.cancel().await.expect("close the session");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while std::fs::read_dir(&temporary).expect("tmp").count() > 0 {
        assert!(
            std::time::Instant::now() < deadline,
            "the launcher's temporary folder was not removed"
        );
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
}

#[tokio::test]
#[ignore = "starts Chromium"]
async fn mcp_launch_chromium_serves_tools_and_cleans_up() {
    mcp_session_through_the_stand_in("chromium", "chrome").await;
}

#[tokio::test]
#[ignore = "starts Firefox"]
async fn mcp_launch_firefox_serves_tools_and_cleans_up() {
    mcp_session_through_the_stand_in("firefox", "firefox").await;
}

/// The TCP sockets listening in the processes whose environment names `marker` (the launcher's
/// own temporary folder, which chromedriver, the browser and its children inherit), as
/// `(address, port)` from /proc/net/tcp and /proc/net/tcp6.
fn listening_sockets_of_processes_marked(marker: &str) -> Vec<(String, u16)> {
    let mut inodes = std::collections::HashSet::new();
    for entry in std::fs::read_dir("/proc").expect("/proc").flatten() {
        let pid_folder = entry.path();
        let Ok(environment) = std::fs::read(pid_folder.join("environ")) else {
            continue;
        };
        if !String::from_utf8_lossy(&environment).contains(marker) {
            continue;
        }
        let Ok(descriptors) = std::fs::read_dir(pid_folder.join("fd")) else {
            continue;
        };
        for descriptor in descriptors.flatten() {
            if let Ok(target) = std::fs::read_link(descriptor.path()) {
                let target = target.to_string_lossy().into_owned();
                if let Some(inode) = target
                    .strip_prefix("socket:[")
                    .and_then(|rest| rest.strip_suffix(']'))
                {
                    inodes.insert(inode.to_owned());
                }
            }
        }
    }
    let mut listening = Vec::new();
    for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
        let text = std::fs::read_to_string(table).unwrap_or_default();
        for line in text.lines().skip(1) {
            let fields: Vec<&str> = line.split_whitespace().collect();
            // sl, local_address, rem_address, st, tx:rx, tr:when, retrnsmt, uid, timeout, inode
            if fields.len() < 10 || fields[3] != "0A" || !inodes.contains(fields[9]) {
                continue;
            }
            let (address, port) = fields[1].split_once(':').expect("address:port");
            listening.push((
                address.to_owned(),
                u16::from_str_radix(port, 16).expect("hex port"),
            ));
        }
    }
    listening
}

/// 127.0.0.1 as /proc/net/tcp prints it (little-endian hex), and ::1 as /proc/net/tcp6 does.
const LOOPBACK_V4: &str = "0100007F";
const LOOPBACK_V6: &str = "00000000000000000000000001000000";

/// `allwright mcp --launch`: every debugging endpoint of the launched browser and its driver
/// (chromedriver's WebDriver port and Chromium's DevTools port; Firefox's remote agent) listens
/// on loopback only (docs/protocol.md, "Debugging endpoints of --launch").
async fn launched_debugging_endpoints_listen_on_loopback_only(
    browser_flag: &str,
    extension_flavour: &str,
    expected_at_least: usize,
) {
    use rmcp::model::CallToolRequestParams;
    use rmcp::transport::TokioChildProcess;
    use rmcp::ServiceExt;

    let folder = tempfile::tempdir().expect("temp dir");
    let extension = folder.path().join("extension");
    write_stand_in_extension(&extension, extension_flavour);
    let temporary = folder.path().join("tmp");
    std::fs::create_dir_all(&temporary).expect("tmp");
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_allwright"));
    command
        .args(["mcp", "--launch", browser_flag, "--headless", "--extension"])
        .arg(&extension)
        .env("TMPDIR", &temporary);
    let (transport, _stderr) = TokioChildProcess::builder(command)
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("spawn allwright mcp --launch");
    let client = tokio::time::timeout(std::time::Duration::from_secs(60), ().serve(transport))
        .await
        .expect("initialize in time")
        .expect("MCP initialize");
    let result = client
        .call_tool(
            CallToolRequestParams::new("get_accessibility_tree")
                .with_arguments(json!({}).as_object().cloned().expect("object")),
        )
        .await
        .expect("tools/call");
    assert_ne!(result.is_error, Some(true), "{result:?}");

    let listening = listening_sockets_of_processes_marked(&temporary.to_string_lossy());
    eprintln!("{browser_flag}: listening sockets of the launched processes: {listening:?}");
    assert!(
        listening.len() >= expected_at_least,
        "{browser_flag}: expected at least {expected_at_least} debugging endpoint(s), found {listening:?}"
    );
    for (address, port) in &listening {
        assert!(
            address == LOOPBACK_V4 || address == LOOPBACK_V6,
            "{browser_flag}: port {port} listens on {address}, not on loopback"
        );
    }
    client.cancel().await.expect("close the session");
}

#[tokio::test]
#[ignore = "starts Chromium through chromedriver"]
async fn mcp_launch_chromium_debugging_endpoints_listen_on_loopback_only() {
    // chromedriver's WebDriver port and Chromium's DevTools port.
    launched_debugging_endpoints_listen_on_loopback_only("chromium", "chrome", 2).await;
}

#[tokio::test]
#[ignore = "starts Firefox"]
async fn mcp_launch_firefox_debugging_endpoints_listen_on_loopback_only() {
    // Firefox's remote agent (WebDriver BiDi).
    launched_debugging_endpoints_listen_on_loopback_only("firefox", "firefox", 1).await;
}
