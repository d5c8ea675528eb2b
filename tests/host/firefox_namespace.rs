//! Issue 27, item 1 for Firefox: a launched Firefox runs in a private user and network namespace
//! (crates/allwright-surface-web/src/launch/private_network.rs), so its remote agent's port
//! exists only on that namespace's loopback, and its pages reach the machine's loopback through
//! allwright's SOCKS proxy on a private Unix socket (launch/socks_proxy.rs). Opt-in: these start
//! Firefox with the built extension (`./scripts/build`), `cargo test --test host firefox_ -- --ignored`.

use std::collections::HashSet;
use std::os::unix::fs::{FileTypeExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{json, Value};

/// The remote agent's port inside Firefox's namespace (launch/firefox.rs), as /proc/net/tcp
/// prints 127.0.0.1:9222.
const REMOTE_AGENT_INSIDE: &str = "0100007F:2406";

/// The processes whose environment names `marker` (the launcher's TMPDIR, which Firefox, its
/// content processes, the native host and a keeper left behind would all inherit).
fn processes_marked(marker: &str) -> Vec<u32> {
    let mut pids = Vec::new();
    for entry in std::fs::read_dir("/proc").expect("/proc").flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|name| name.parse().ok())
        else {
            continue;
        };
        let Ok(environment) = std::fs::read(entry.path().join("environ")) else {
            continue;
        };
        if String::from_utf8_lossy(&environment).contains(marker) {
            pids.push(pid);
        }
    }
    pids
}

fn socket_inodes_of(pid: u32) -> HashSet<String> {
    let mut inodes = HashSet::new();
    let Ok(descriptors) = std::fs::read_dir(format!("/proc/{pid}/fd")) else {
        return inodes;
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
    inodes
}

/// `(table, local address, state)` of the sockets in `tables` (a /proc/net folder) whose inode
/// is in `inodes`: what `ss -ltnup` would show of them in that folder's namespace.
fn inet_sockets(net_folder: &Path, inodes: &HashSet<String>) -> Vec<(String, String, String)> {
    let mut found = Vec::new();
    for table in ["tcp", "tcp6", "udp", "udp6"] {
        let text = std::fs::read_to_string(net_folder.join(table)).unwrap_or_default();
        for line in text.lines().skip(1) {
            let fields: Vec<&str> = line.split_whitespace().collect();
            // sl, local_address, rem_address, st, tx:rx, tr:when, retrnsmt, uid, timeout, inode
            if fields.len() >= 10 && inodes.contains(fields[9]) {
                found.push((table.to_owned(), fields[1].to_owned(), fields[3].to_owned()));
            }
        }
    }
    found
}

/// `None` when the process has exited since it was listed (a content process Firefox ended).
fn network_namespace_of(pid: &str) -> Option<PathBuf> {
    std::fs::read_link(format!("/proc/{pid}/ns/net")).ok()
}

fn command_line_of(pid: u32) -> String {
    String::from_utf8_lossy(&std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default())
        .replace('\0', " ")
}

/// A page server on the machine's loopback: answers every request with a page titled `title`
/// and counts the requests, so the test knows a page load reached this namespace's loopback.
async fn serve_page(
    listener: tokio::net::TcpListener,
    title: &'static str,
) -> std::sync::Arc<std::sync::atomic::AtomicUsize> {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let requests = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counter = std::sync::Arc::clone(&requests);
    tokio::spawn(async move {
        while let Ok((mut connection, _)) = listener.accept().await {
            let counter = std::sync::Arc::clone(&counter);
            tokio::spawn(async move {
                let mut request = vec![0u8; 4096];
                let _ = connection.read(&mut request).await;
                counter.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                let body = format!("<!doctype html><title>{title}</title><h1>{title}</h1>");
                let response = format!(
                    "HTTP/1.1 200 OK\r\ncontent-type: text/html\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                    body.len()
                );
                let _ = connection.write_all(response.as_bytes()).await;
            });
        }
    });
    requests
}

async fn call(
    client: &rmcp::service::RunningService<rmcp::RoleClient, ()>,
    tool: &'static str,
    arguments: Value,
) -> rmcp::model::CallToolResult {
    client
        .call_tool(
            rmcp::model::CallToolRequestParams::new(tool)
                .with_arguments(arguments.as_object().cloned().expect("object")),
        )
        .await
        .expect("tools/call")
}

/// `allwright mcp --launch firefox`: while the session runs, no process it started has a TCP or
/// UDP socket in this machine's network namespace; Firefox and everything it started (content
/// processes, the native host) are in another one, where the remote agent listens on loopback;
/// the socket keeper is gone; the proxy's folder is 0700. Pages still reach this namespace's
/// loopback by 127.0.0.1, localhost and ::1. Ending the session removes the proxy's folder.
#[tokio::test]
#[ignore = "starts Firefox with the built extension"]
async fn mcp_launch_firefox_remote_agent_listens_only_inside_a_private_network_namespace() {
    use rmcp::transport::TokioChildProcess;
    use rmcp::ServiceExt;

    let folder = tempfile::tempdir().expect("temp dir");
    let temporary = folder.path().join("tmp");
    std::fs::create_dir_all(&temporary).expect("tmp");
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_allwright"));
    command
        .args(["mcp", "--launch", "firefox", "--headless"])
        .env("TMPDIR", &temporary);
    let (transport, _stderr) = TokioChildProcess::builder(command)
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("spawn allwright mcp --launch firefox");
    let launcher = transport.id().expect("launcher pid");
    let client = tokio::time::timeout(Duration::from_secs(90), ().serve(transport))
        .await
        .expect("initialize in time")
        .expect("MCP initialize");

    let by_address = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind 127.0.0.1");
    let by_address_port = by_address.local_addr().expect("address").port();
    let by_address_requests = serve_page(by_address, "Served on 127.0.0.1").await;
    let by_name = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind 127.0.0.1");
    let by_name_port = by_name.local_addr().expect("address").port();
    let by_name_requests = serve_page(by_name, "Served on localhost").await;
    let mut pages = vec![
        (
            format!("http://127.0.0.1:{by_address_port}/"),
            "Served on 127.0.0.1",
            by_address_requests,
        ),
        (
            format!("http://localhost:{by_name_port}/"),
            "Served on localhost",
            by_name_requests,
        ),
    ];
    // ::1 where this machine has IPv6 on loopback.
    if let Ok(by_ipv6) = tokio::net::TcpListener::bind("[::1]:0").await {
        let port = by_ipv6.local_addr().expect("address").port();
        let requests = serve_page(by_ipv6, "Served on ::1").await;
        pages.push((format!("http://[::1]:{port}/"), "Served on ::1", requests));
    }
    eprintln!(
        "pages: {:?}",
        pages.iter().map(|(url, ..)| url).collect::<Vec<_>>()
    );
    for (url, title, requests) in &pages {
        let navigated = call(&client, "navigate", json!({ "url": url })).await;
        assert_ne!(navigated.is_error, Some(true), "{url}: {navigated:?}");
        let tree = call(&client, "get_accessibility_tree", json!({})).await;
        let text = crate::reply_text::reply_value(&tree).to_string();
        assert!(text.contains(title), "{url}: {text}");
        assert!(
            requests.load(std::sync::atomic::Ordering::SeqCst) >= 1,
            "{url} was not served by this namespace's loopback"
        );
    }

    // A refused connection and an unknown name fail the page load as they fail without a proxy:
    // NS_ERROR_CONNECTION_REFUSED (0x804B000D) and NS_ERROR_UNKNOWN_HOST (0x804B001E), which the
    // proxy's reply codes 0x05 and 0x04 become in Firefox.
    let closed_port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .expect("a port")
        .port();
    for (url, error_code) in [
        (format!("http://127.0.0.1:{closed_port}/"), "2152398861"),
        (format!("http://localhost:{closed_port}/"), "2152398861"),
        ("http://no-such-host.invalid/".to_owned(), "2152398878"),
    ] {
        let navigated = call(&client, "navigate", json!({ "url": url })).await;
        let text = crate::reply_text::reply_value(&navigated).to_string();
        assert_eq!(navigated.is_error, Some(true), "{url}: {text}");
        assert!(text.contains(error_code), "{url}: {text}");
    }

    let ours = network_namespace_of("self").expect("this process's network namespace");
    let marked = processes_marked(&temporary.to_string_lossy());
    let mut firefox = None;
    let mut native_host_seen = false;
    for &pid in &marked {
        let command_line = command_line_of(pid);
        if pid == launcher {
            // The launcher itself stays here: its proxy's connections to the pages' servers are
            // here too, but it listens on no TCP port and has no UDP socket.
            let sockets = inet_sockets(Path::new("/proc/net"), &socket_inodes_of(pid));
            assert!(
                !sockets
                    .iter()
                    .any(|(table, _, state)| table.starts_with("udp") || state == "0A"),
                "the launcher has {sockets:?}"
            );
            continue;
        }
        assert!(
            !command_line.contains("mcp --launch"),
            "a process forked from the launcher is still running (the namespace's socket keeper?): {pid} {command_line}"
        );
        let Some(namespace) = network_namespace_of(&pid.to_string()) else {
            continue;
        };
        assert_ne!(
            namespace, ours,
            "{pid} {command_line} is in this machine's network namespace"
        );
        let sockets_here = inet_sockets(Path::new("/proc/net"), &socket_inodes_of(pid));
        assert!(
            sockets_here.is_empty(),
            "{pid} {command_line} has sockets in this namespace: {sockets_here:?}"
        );
        if command_line.contains("--remote-debugging-port") {
            firefox = Some(pid);
        }
        native_host_seen |= command_line.contains("native-messaging-hosts");
    }
    let firefox = firefox.expect("Firefox among the launched processes");
    assert!(native_host_seen, "the native host among {marked:?}");
    // Firefox's content sandbox still works inside: each content process has a seccomp filter
    // and a user namespace of its own, nested in Firefox's.
    let firefox_user_namespace =
        std::fs::read_link(format!("/proc/{firefox}/ns/user")).expect("Firefox's user namespace");
    let mut sandboxed_content_processes = 0;
    for &pid in &marked {
        if !command_line_of(pid).contains("-isForBrowser") {
            continue;
        }
        let (Ok(status), Ok(user_namespace)) = (
            std::fs::read_to_string(format!("/proc/{pid}/status")),
            std::fs::read_link(format!("/proc/{pid}/ns/user")),
        ) else {
            continue;
        };
        assert!(
            status
                .lines()
                .any(|line| line.split_whitespace().eq(["Seccomp:", "2"])),
            "content process {pid} has no seccomp filter"
        );
        assert_ne!(
            user_namespace, firefox_user_namespace,
            "content process {pid}"
        );
        sandboxed_content_processes += 1;
    }
    assert!(
        sandboxed_content_processes > 0,
        "no content process among {marked:?}"
    );
    let inside = inet_sockets(
        Path::new(&format!("/proc/{firefox}/net")),
        &socket_inodes_of(firefox),
    );
    assert!(
        inside.iter().any(|(table, address, state)| table == "tcp"
            && address == REMOTE_AGENT_INSIDE
            && state == "0A"),
        "the remote agent listens on the namespace's loopback: {inside:?}"
    );

    // The proxy's folder sits beside the profile, in the session's folder under TMPDIR.
    let proxy_folders: Vec<PathBuf> = std::fs::read_dir(&temporary)
        .expect("tmp")
        .flatten()
        .filter_map(|session| std::fs::read_dir(session.path()).ok())
        .flat_map(|session| session.flatten().map(|entry| entry.path()))
        .filter(|path| {
            path.file_name()
                .is_some_and(|name| name.to_string_lossy().starts_with("allwright-firefox-"))
        })
        .collect();
    assert_eq!(proxy_folders.len(), 1, "{proxy_folders:?}");
    let proxy_folder = &proxy_folders[0];
    let mode = std::fs::metadata(proxy_folder)
        .expect("proxy folder")
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o700, "{}", proxy_folder.display());
    assert!(std::fs::symlink_metadata(proxy_folder.join("socks"))
        .expect("proxy socket")
        .file_type()
        .is_socket());

    client.cancel().await.expect("close the session");
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    while proxy_folder.exists() {
        assert!(
            std::time::Instant::now() < deadline,
            "the proxy's folder was not removed"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Where this system refuses user namespaces (here `user.max_user_namespaces = 0` in a user
/// namespace of the test's own), launching Firefox fails before Firefox starts, with the step,
/// the setting and what to do instead; it never falls back to a port other users can reach.
#[test]
#[ignore = "needs util-linux's unshare and user namespaces"]
fn firefox_launch_where_user_namespaces_are_refused_fails_with_the_cause_and_a_hint() {
    let folder = tempfile::tempdir().expect("temp dir");
    let page = folder.path().join("page.html");
    std::fs::write(&page, "<!doctype html><title>t</title>").expect("page");
    let script = format!(
        "echo 0 > /proc/sys/user/max_user_namespaces && exec \"$0\" snapshot {} --browser firefox",
        page.display()
    );
    let output = std::process::Command::new("unshare")
        .args(["--user", "--map-root-user", "--", "sh", "-c", &script])
        .arg(env!("CARGO_BIN_EXE_allwright"))
        .env("TMPDIR", folder.path())
        .output()
        .expect("run unshare");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "{stderr}");
    for expected in [
        "cannot run Firefox in a private network namespace",
        "creating a user and network namespace (unshare) failed",
        "user.max_user_namespaces = 0",
        "--webdriver",
    ] {
        assert!(stderr.contains(expected), "{expected:?} not in {stderr}");
    }
    assert!(
        !stderr.contains("host ready"),
        "Firefox must not have started: {stderr}"
    );
}
