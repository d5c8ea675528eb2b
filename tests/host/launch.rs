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
pub fn write_stand_in_extension(folder: &Path, browser: &str) {
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

/// `--no-extension` needs a browser allwright drives (the user's own is reached through its
/// extension), and contradicts `--extension`; both are refused before anything starts.
#[test]
fn no_extension_needs_a_driven_browser_and_no_extension_folder() {
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_allwright"))
        .args(["mcp", "--no-extension"])
        .output()
        .expect("run");
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("--no-extension applies to --launch or --webdriver"),
        "{stderr}"
    );
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_allwright"))
        .args([
            "mcp",
            "--launch",
            "chromium",
            "--no-extension",
            "--extension",
            "/nonexistent",
        ])
        .output()
        .expect("run");
    assert_eq!(output.status.code(), Some(2), "a usage error");
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
    let structured = crate::reply_text::reply_value(&result);
    assert!(
        structured["tree"]
            .as_str()
            .is_some_and(|tree| tree.starts_with("stand-in tree of")),
        "{structured}"
    );
    client.cancel().await.expect("close the session");
    // The folder goes once the browser has exited; a Firefox took more than 20 s to exit on
    // a 2-core machine with two builds and two other browser streams running.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
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

/// A socket that one of a launched session's processes listens on, in the machine's own network
/// namespace (the one every local user shares): what another local user, or a web page in any
/// browser on the machine, could try to reach.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum Listener {
    /// A TCP socket in LISTEN state: `address` as /proc/net/tcp{,6} prints it (hex).
    Tcp { address: String, port: u16 },
    /// A UDP socket bound to a port (UDP has no LISTEN state: any bound socket receives).
    Udp { address: String, port: u16 },
    /// A listening Unix socket with a path on the file system (file modes guard it).
    UnixPath(String),
    /// A listening Unix socket in the abstract namespace (no file modes: any local user of the
    /// same network namespace reaches it).
    UnixAbstract(String),
}

/// The processes whose environment carries `marker`, and the socket inodes they hold open.
fn processes_marked(marker: &str) -> Vec<(std::path::PathBuf, std::collections::HashSet<String>)> {
    let mut processes = Vec::new();
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
        let mut inodes = std::collections::HashSet::new();
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
        processes.push((pid_folder, inodes));
    }
    processes
}

/// The listeners of the processes whose environment carries `marker` that another local user
/// could address. Ports and abstract Unix sockets belong to a network namespace, so only those in
/// the machine's namespace (this test's) count: a port in a private namespace of the browser's
/// is reachable by nobody else. A Unix socket with a path is reachable from any namespace
/// through the file system, so those count wherever the process runs.
fn listeners_of_processes_marked(marker: &str) -> std::collections::BTreeSet<Listener> {
    let own_namespace = std::fs::read_link("/proc/self/ns/net").ok();
    let processes = processes_marked(marker);
    let mut inodes_in_own_namespace = std::collections::HashSet::new();
    let mut listeners = std::collections::BTreeSet::new();
    for (pid_folder, inodes) in &processes {
        let in_own_namespace = std::fs::read_link(pid_folder.join("ns/net")).ok() == own_namespace;
        if in_own_namespace {
            inodes_in_own_namespace.extend(inodes.iter().cloned());
        }
        // Num RefCount Protocol Flags Type St Inode Path; flag 00010000 is __SO_ACCEPTCON
        // (listening). The process's own table: the one of its network namespace.
        let text = std::fs::read_to_string(pid_folder.join("net/unix")).unwrap_or_default();
        for line in text.lines().skip(1) {
            let fields: Vec<&str> = line.split_whitespace().collect();
            if fields.len() < 8 || !inodes.contains(fields[6]) {
                continue;
            }
            let flags = u32::from_str_radix(fields[3], 16).unwrap_or(0);
            if flags & 0x0001_0000 == 0 {
                continue;
            }
            let path = fields[7..].join(" ");
            match path.strip_prefix('@') {
                Some(name) if in_own_namespace => {
                    listeners.insert(Listener::UnixAbstract(name.to_owned()));
                }
                Some(_) => {}
                None => {
                    listeners.insert(Listener::UnixPath(path));
                }
            }
        }
    }
    for (table, is_tcp) in [
        ("/proc/net/tcp", true),
        ("/proc/net/tcp6", true),
        ("/proc/net/udp", false),
        ("/proc/net/udp6", false),
    ] {
        let text = std::fs::read_to_string(table).unwrap_or_default();
        for line in text.lines().skip(1) {
            let fields: Vec<&str> = line.split_whitespace().collect();
            // sl, local_address, rem_address, st, tx:rx, tr:when, retrnsmt, uid, timeout, inode.
            // TCP state 0A is LISTEN; a UDP socket with no remote address (07, "close") is bound
            // and receives from anyone.
            if fields.len() < 10 || !inodes_in_own_namespace.contains(fields[9]) {
                continue;
            }
            let listening = if is_tcp {
                fields[3] == "0A"
            } else {
                fields[3] == "07"
            };
            if !listening {
                continue;
            }
            let (address, port) = fields[1].split_once(':').expect("address:port");
            let address = address.to_owned();
            let port = u16::from_str_radix(port, 16).expect("hex port");
            listeners.insert(if is_tcp {
                Listener::Tcp { address, port }
            } else {
                Listener::Udp { address, port }
            });
        }
    }
    listeners
}

/// /proc/net/tcp's hex address as text: `0100007F` is 127.0.0.1, the 32-digit form an IPv6 one.
fn address_from_proc_hex(hex: &str) -> String {
    let bytes: Vec<u8> = (0..hex.len() / 2)
        .filter_map(|index| u8::from_str_radix(&hex[index * 2..index * 2 + 2], 16).ok())
        .collect();
    match bytes.len() {
        4 => std::net::Ipv4Addr::new(bytes[3], bytes[2], bytes[1], bytes[0]).to_string(),
        16 => {
            // Four little-endian 32-bit words.
            let mut octets = [0u8; 16];
            for word in 0..4 {
                for byte in 0..4 {
                    octets[word * 4 + byte] = bytes[word * 4 + 3 - byte];
                }
            }
            std::net::Ipv6Addr::from(octets).to_string()
        }
        _ => hex.to_owned(),
    }
}

/// The uid another local user's probe runs as: `nobody`, as in issue 27's attack.
const OTHER_USER_ID: &str = "65534";

/// Tries each listener as another local user (`setpriv --reuid=65534`), with Perl (perl-base is
/// Essential in Debian, so it is on every machine this runs on): a TCP connect to the address,
/// then a Unix connect to each path and abstract name. Returns the listeners the other user
/// reached, or `None` when this process cannot change user (not root).
fn listeners_reachable_by_another_user(
    listeners: &std::collections::BTreeSet<Listener>,
) -> Option<Vec<Listener>> {
    const PROBE: &str = r#"
use strict; use Socket qw(:DEFAULT inet_pton pack_sockaddr_in6 AF_INET6 PF_INET6);
for my $target (@ARGV) {
  my ($kind, $where, $port) = split /\|/, $target, 3;
  my ($domain, $address);
  if ($kind eq "tcp4") { $domain = PF_INET; $address = sockaddr_in($port, inet_aton($where)); }
  elsif ($kind eq "tcp6") { $domain = PF_INET6; $address = pack_sockaddr_in6($port, inet_pton(AF_INET6, $where)); }
  elsif ($kind eq "unix") { $domain = PF_UNIX; $address = pack_sockaddr_un($where); }
  elsif ($kind eq "abstract") { $domain = PF_UNIX; $address = pack_sockaddr_un("\0" . $where); }
  socket(my $socket, $domain, SOCK_STREAM, 0) or die "socket: $!";
  if (connect($socket, $address)) { print "reached $target\n"; } else { print "refused $target: $!\n"; }
  close $socket;
}
"#;
    let is_root = std::process::Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|output| String::from_utf8_lossy(&output.stdout).trim() == "0");
    if !is_root {
        return None;
    }
    let mut targets = Vec::new();
    let mut by_target = std::collections::HashMap::new();
    for listener in listeners {
        let target = match listener {
            Listener::Tcp { address, port } => {
                let text = address_from_proc_hex(address);
                // A wildcard listener is reached through loopback.
                let text = match text.as_str() {
                    "0.0.0.0" => "127.0.0.1".to_owned(),
                    "::" => "::1".to_owned(),
                    _ => text,
                };
                let family = if text.contains(':') { "tcp6" } else { "tcp4" };
                format!("{family}|{text}|{port}")
            }
            // A datagram socket takes packets from anyone who can address it; counted as reached.
            Listener::Udp { .. } => {
                continue;
            }
            Listener::UnixPath(path) => format!("unix|{path}"),
            Listener::UnixAbstract(name) => format!("abstract|{name}"),
        };
        by_target.insert(target.clone(), listener.clone());
        targets.push(target);
    }
    let mut reached: Vec<Listener> = listeners
        .iter()
        .filter(|listener| matches!(listener, Listener::Udp { .. }))
        .cloned()
        .collect();
    if targets.is_empty() {
        return Some(reached);
    }
    let output = std::process::Command::new("setpriv")
        .args([
            &format!("--reuid={OTHER_USER_ID}"),
            &format!("--regid={OTHER_USER_ID}"),
            "--clear-groups",
            "perl",
            "-e",
            PROBE,
        ])
        .args(&targets)
        .output()
        .expect("run the probe as another user");
    let report = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "the probe failed: {report}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    eprintln!("probe as uid {OTHER_USER_ID}:\n{report}");
    for line in report.lines() {
        if let Some(target) = line.strip_prefix("reached ") {
            reached.push(by_target[target].clone());
        }
    }
    Some(reached)
}

/// Lets the folders above a session's files be entered by everyone, as /tmp is, so that only
/// allwright's own folder and file modes stand between another user and the session.
fn open_like_tmp(folder: &Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(folder, std::fs::Permissions::from_mode(mode)).expect("chmod");
}

/// `allwright mcp --launch`: from before the browser starts until the session has answered a
/// call, no process of the session listens on a TCP or UDP port, or on an abstract Unix socket,
/// of the machine's network namespace, and another local user (uid 65534) reaches none of the
/// Unix sockets it does listen on (docs/security.md, "Control of a launched
/// browser").
async fn launched_session_offers_another_user_no_listener(
    browser_flag: &str,
    extension_flavour: &str,
) {
    use rmcp::model::CallToolRequestParams;
    use rmcp::transport::TokioChildProcess;
    use rmcp::ServiceExt;

    let folder = tempfile::tempdir().expect("temp dir");
    let extension = folder.path().join("extension");
    write_stand_in_extension(&extension, extension_flavour);
    let temporary = folder.path().join("tmp");
    std::fs::create_dir_all(&temporary).expect("tmp");
    open_like_tmp(folder.path(), 0o755);
    open_like_tmp(&extension, 0o755);
    open_like_tmp(&temporary, 0o1777);
    // Every process of the session inherits this variable: it is how the sampler finds them.
    let marker = format!(
        "ALLWRIGHT_LISTENER_PROBE={}-{browser_flag}",
        std::process::id()
    );

    // Sampled every 50 ms from before the launch: a port open only while the browser starts
    // counts as much as one open for the whole session.
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let sampler = {
        let stop = std::sync::Arc::clone(&stop);
        let marker = marker.clone();
        std::thread::spawn(move || {
            let mut seen = std::collections::BTreeSet::new();
            let mut samples = 0u32;
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                seen.extend(listeners_of_processes_marked(&marker));
                samples += 1;
                std::thread::sleep(std::time::Duration::from_millis(50));
            }
            (seen, samples)
        })
    };

    let (name, value) = marker.split_once('=').expect("name=value");
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_allwright"));
    command
        .args(["mcp", "--launch", browser_flag, "--headless", "--extension"])
        .arg(&extension)
        .env("TMPDIR", &temporary)
        .env(name, value);
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

    // The session is live: what it listens on now is probed as another user.
    let live = listeners_of_processes_marked(&marker);
    let reached = listeners_reachable_by_another_user(&live);
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let (seen, samples) = sampler.join().expect("sampler");
    eprintln!(
        "{browser_flag}: listeners of the session's processes over {samples} samples: {seen:?}; live: {live:?}"
    );
    assert!(samples > 3, "the sampler ran through the launch");
    let network: Vec<&Listener> = seen
        .iter()
        .filter(|listener| !matches!(listener, Listener::UnixPath(_)))
        .collect();
    assert!(
        network.is_empty(),
        "{browser_flag}: the session listened where any local user or web page reaches it: {network:?}"
    );
    assert!(
        live.iter().any(
            |listener| matches!(listener, Listener::UnixPath(path) if path.ends_with("host.sock"))
        ),
        "{browser_flag}: the native host's own socket is among the listeners found: {live:?}"
    );
    match reached {
        Some(reached) => {
            eprintln!(
                "{browser_flag}: listeners reachable by uid {OTHER_USER_ID}: {} of {}",
                reached.len(),
                live.len()
            );
            assert!(
                reached.is_empty(),
                "{browser_flag}: uid {OTHER_USER_ID} reached {reached:?}"
            );
        }
        None => eprintln!("{browser_flag}: not root, so the probe as another user was skipped"),
    }
    client.cancel().await.expect("close the session");
}

#[tokio::test]
#[ignore = "starts Chromium"]
async fn mcp_launch_chromium_offers_another_user_no_listener() {
    launched_session_offers_another_user_no_listener("chromium", "chrome").await;
}

#[tokio::test]
#[ignore = "starts Firefox"]
async fn mcp_launch_firefox_offers_another_user_no_listener() {
    launched_session_offers_another_user_no_listener("firefox", "firefox").await;
}
