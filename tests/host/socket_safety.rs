//! docs/protocol/host-safety.md, "Local socket safety": the host and the client refuse a socket folder that
//! is not this user's private one (another user's, a symlink, a mode other than 0700) and change
//! nothing they did not create; the client refuses a socket that is a symlink or whose server runs
//! as another user, before sending anything; a second host leaves a live socket alone and says
//! "already running", while a stale socket file is replaced.

use std::os::unix::fs::{DirBuilderExt, MetadataExt, PermissionsExt};
use std::os::unix::net::UnixListener;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use serde_json::json;
use tokio::process::Command;

use crate::mcp::{call, error_object, start_mcp};
use crate::support::{hello, HostUnderTest, SocketClient, CHROME_EXTENSION_ORIGIN, PATIENCE};

/// The uid of `nobody` on Linux, used as "another user".
const ANOTHER_UID: u32 = 65534;

fn running_as_root() -> bool {
    std::fs::metadata("/proc/self")
        .map(|metadata| metadata.uid() == 0)
        .unwrap_or(false)
}

fn make_private_folder(path: &Path, mode: u32) {
    std::fs::DirBuilder::new()
        .mode(0o700)
        .create(path)
        .expect("create the folder");
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).expect("chmod");
}

/// Owner, mode and entries of `path` (not following a symlink): what must not change when the
/// host or the client refuses it.
fn state_of(path: &Path) -> (u32, u32, bool, Vec<String>) {
    let metadata = std::fs::symlink_metadata(path).expect("lstat");
    let mut entries: Vec<String> = if metadata.is_dir() {
        std::fs::read_dir(path)
            .expect("read the folder")
            .map(|entry| {
                entry
                    .expect("entry")
                    .file_name()
                    .to_string_lossy()
                    .into_owned()
            })
            .collect()
    } else {
        Vec::new()
    };
    entries.sort();
    (
        metadata.uid(),
        metadata.mode() & 0o7777,
        metadata.file_type().is_symlink(),
        entries,
    )
}

/// Starts a host as Chrome would with its socket at `socket_path`, and expects it to refuse:
/// a non-zero exit, in time. Returns what it printed on stderr.
async fn host_refuses(socket_path: &Path) -> String {
    let logs = tempfile::tempdir().expect("temp dir");
    let mut child = Command::new(env!("CARGO_BIN_EXE_allwright"))
        .args([CHROME_EXTENSION_ORIGIN, "--parent-window=0"])
        .env("ALLWRIGHT_SOCKET", socket_path)
        .env("ALLWRIGHT_LOG_FILE", logs.path().join("host.log"))
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("spawn the host");
    let output = tokio::time::timeout(PATIENCE, async {
        let _stdin = child.stdin.take();
        child.wait_with_output().await
    })
    .await
    .expect("the host gives up in time instead of serving")
    .expect("wait for the host");
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(
        !output.status.success(),
        "the host must exit non-zero: {stderr}"
    );
    stderr
}

/// `allwright mcp` with its socket at `socket_path` calls a tool and must get
/// `socket_not_private`, whose message mentions `reason`.
async fn client_refuses(socket_path: &Path, reason: &str) {
    let client = start_mcp(socket_path, &[]).await;
    let result = client
        .call_tool(call("navigate", json!({"url": "https://example.com/"})))
        .await
        .expect("a result");
    let error = error_object(&result).clone();
    client.cancel().await.expect("close the session");
    assert_eq!(error["code"], "socket_not_private", "{error}");
    assert!(
        error["hint"]
            .as_str()
            .is_some_and(|hint| hint.contains("Remove") || hint.contains("chmod")),
        "the hint says what to do: {error}"
    );
    assert!(
        error["message"]
            .as_str()
            .is_some_and(|message| message.contains(reason)),
        "the message says why ({reason}): {error}"
    );
}

/// A listener the attacker controls; `accepted` tells whether anyone connected to it.
struct Bait {
    listener: UnixListener,
}

impl Bait {
    fn at(path: &Path) -> Self {
        let listener = UnixListener::bind(path).expect("bind the bait");
        listener.set_nonblocking(true).expect("nonblocking");
        Self { listener }
    }

    fn accepted(&self) -> bool {
        self.listener.accept().is_ok()
    }
}

#[tokio::test]
async fn a_socket_folder_owned_by_another_user_is_refused_and_left_alone() {
    if !running_as_root() {
        eprintln!("SKIPPED: making a folder owned by another uid needs root; run this test as root to check it");
        return;
    }
    let root = tempfile::tempdir().expect("temp dir");
    let folder = root.path().join("run");
    make_private_folder(&folder, 0o700);
    std::os::unix::fs::chown(&folder, Some(ANOTHER_UID), Some(ANOTHER_UID)).expect("chown");
    let bait = Bait::at(&folder.join("host.sock"));
    std::os::unix::fs::lchown(folder.join("host.sock"), Some(0), Some(0)).expect("lchown");
    let before = state_of(&folder);

    let stderr = host_refuses(&folder.join("host.sock")).await;
    assert!(stderr.contains("another user"), "{stderr}");
    assert!(
        stderr.contains("Remove"),
        "the error says what to do: {stderr}"
    );
    client_refuses(&folder.join("host.sock"), "another user").await;
    assert!(
        !bait.accepted(),
        "the client never connected to the other user's folder"
    );
    assert_eq!(state_of(&folder), before, "nothing in the folder changed");
}

#[tokio::test]
async fn a_symlink_in_place_of_the_socket_folder_is_refused_and_not_followed() {
    let root = tempfile::tempdir().expect("temp dir");
    // The attacker's folder looks private, but the path to it goes through a symlink.
    let elsewhere = root.path().join("elsewhere");
    make_private_folder(&elsewhere, 0o700);
    let bait = Bait::at(&elsewhere.join("host.sock"));
    let folder = root.path().join("run");
    std::os::unix::fs::symlink(&elsewhere, &folder).expect("symlink");
    let before = (state_of(&folder), state_of(&elsewhere));

    let stderr = host_refuses(&folder.join("host.sock")).await;
    assert!(stderr.contains("symlink"), "{stderr}");
    client_refuses(&folder.join("host.sock"), "symlink").await;
    assert!(
        !bait.accepted(),
        "the client never connected through the symlink"
    );
    assert_eq!(
        (state_of(&folder), state_of(&elsewhere)),
        before,
        "neither the symlink nor its target changed"
    );
}

#[tokio::test]
async fn a_symlink_in_place_of_the_socket_is_refused_and_not_followed() {
    let root = tempfile::tempdir().expect("temp dir");
    let elsewhere = root.path().join("elsewhere");
    make_private_folder(&elsewhere, 0o700);
    let bait = Bait::at(&elsewhere.join("bait.sock"));
    let folder = root.path().join("run");
    make_private_folder(&folder, 0o700);
    let socket_path = folder.join("host.sock");
    std::os::unix::fs::symlink(elsewhere.join("bait.sock"), &socket_path).expect("symlink");
    let before = (state_of(&folder), state_of(&socket_path));

    let stderr = host_refuses(&socket_path).await;
    assert!(stderr.contains("symlink"), "{stderr}");
    client_refuses(&socket_path, "symlink").await;
    assert!(
        !bait.accepted(),
        "neither side connected through the symlink"
    );
    assert_eq!(
        (state_of(&folder), state_of(&socket_path)),
        before,
        "the symlink was neither removed nor replaced"
    );
}

#[tokio::test]
async fn a_socket_folder_others_can_enter_is_refused_and_not_chmodded() {
    let root = tempfile::tempdir().expect("temp dir");
    let folder = root.path().join("run");
    make_private_folder(&folder, 0o755);
    let bait = Bait::at(&folder.join("host.sock"));
    let before = state_of(&folder);

    let stderr = host_refuses(&folder.join("host.sock")).await;
    assert!(stderr.contains("mode 755"), "{stderr}");
    assert!(
        stderr.contains("chmod 700"),
        "the error says what to do: {stderr}"
    );
    client_refuses(&folder.join("host.sock"), "755").await;
    assert!(!bait.accepted(), "the client never connected");
    assert_eq!(
        state_of(&folder),
        before,
        "the mode stays 755: the host did not make that folder"
    );
}

#[tokio::test]
async fn a_server_running_as_another_user_gets_nothing_from_the_client() {
    if !running_as_root() {
        eprintln!(
            "SKIPPED: running a host as another uid needs root; run this test as root to check it"
        );
        return;
    }
    let root = tempfile::tempdir().expect("temp dir");
    std::fs::set_permissions(root.path(), std::fs::Permissions::from_mode(0o711)).expect("chmod");
    // Another user's host, listening in that user's folder...
    let theirs = root.path().join("theirs");
    make_private_folder(&theirs, 0o700);
    std::os::unix::fs::chown(&theirs, Some(ANOTHER_UID), Some(ANOTHER_UID)).expect("chown");
    let their_socket = theirs.join("run").join("host.sock");
    let mut their_host = Command::new(env!("CARGO_BIN_EXE_allwright"))
        .args([CHROME_EXTENSION_ORIGIN])
        .env("ALLWRIGHT_SOCKET", &their_socket)
        .env("ALLWRIGHT_LOG_FILE", theirs.join("host.log"))
        .uid(ANOTHER_UID)
        .gid(ANOTHER_UID)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("spawn a host as another user");
    let deadline = tokio::time::Instant::now() + PATIENCE;
    while !their_socket.exists() {
        assert!(
            tokio::time::Instant::now() < deadline,
            "the other user's host never listened"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    // ...moved into this user's private folder and given this user's ownership, so that only
    // the server's own credentials (SO_PEERCRED) tell it apart.
    let folder = root.path().join("run");
    make_private_folder(&folder, 0o700);
    let socket_path = folder.join("host.sock");
    std::fs::rename(&their_socket, &socket_path).expect("move the socket");
    std::os::unix::fs::lchown(&socket_path, Some(0), Some(0)).expect("lchown");

    client_refuses(&socket_path, "another user").await;
    let _ = their_host.start_kill();
    let _ = their_host.wait().await;
}

#[tokio::test]
async fn a_second_host_leaves_a_live_socket_alone_and_says_already_running() {
    let mut first = HostUnderTest::start().await;
    let inode = std::fs::symlink_metadata(&first.socket_path)
        .expect("socket")
        .ino();

    let stderr = host_refuses(&first.socket_path).await;
    assert!(stderr.contains("already running"), "{stderr}");
    assert_eq!(
        std::fs::symlink_metadata(&first.socket_path)
            .expect("socket still there")
            .ino(),
        inode,
        "the live socket was not replaced"
    );

    // The first host still serves, and the second one's probe ended no session in its extension:
    // the next thing the extension hears is the client's call.
    first.send(&hello()).await;
    let mut client = connect_once_free(&first.socket_path).await;
    client
        .send(&json!({"type": "call", "id": "c1", "tool": "navigate", "arguments": {"url": "about:blank"}}))
        .await;
    let (call, _) = first.receive_message().await;
    assert_eq!(call["type"], "call", "{call}");
}

/// Connects as a client and waits for `ready`; a `busy` answer (the second host's probe has not
/// been seen leaving yet) is retried.
async fn connect_once_free(socket_path: &Path) -> SocketClient {
    let deadline = tokio::time::Instant::now() + PATIENCE;
    loop {
        let mut client = SocketClient::connect(socket_path).await;
        let first = client.receive().await.expect("a first message");
        if first["type"] == "ready" {
            return client;
        }
        assert_eq!(first["type"], "busy", "{first}");
        assert!(
            tokio::time::Instant::now() < deadline,
            "the host stayed busy"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn a_stale_socket_file_is_replaced() {
    let root = tempfile::tempdir().expect("temp dir");
    let folder = root.path().join("run");
    make_private_folder(&folder, 0o700);
    let socket_path: PathBuf = folder.join("host.sock");
    // A host that died without removing its socket: the file stays, nobody listens.
    drop(UnixListener::bind(&socket_path).expect("bind"));

    let mut host = HostUnderTest::start_at(root, socket_path.clone()).await;
    let deadline = tokio::time::Instant::now() + PATIENCE;
    while !host.log().contains("listening on") {
        assert!(
            tokio::time::Instant::now() < deadline,
            "the host never listened: {}",
            host.log()
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(
        host.log().contains("replacing the stale socket"),
        "{}",
        host.log()
    );
    host.send(&hello()).await;
    let mut client = SocketClient::connect(&socket_path).await;
    assert_eq!(client.receive().await.expect("ready")["type"], "ready");
}

/// Runs `arguments` (this binary's) in a mount namespace of its own whose `/tmp` is a fresh
/// tmpfs, where another user (uid 65534) has made `/tmp/allwright-<uid>` first. The machine's
/// real `/tmp` is untouched, so sessions of other people on this machine are not disturbed.
fn command_beside_a_foreign_shared_folder(home: &Path, arguments: &[&str]) -> Command {
    let script = format!(
        "mount -t tmpfs tmpfs /tmp && setpriv --reuid={ANOTHER_UID} --regid={ANOTHER_UID} --clear-groups \
mkdir -m 0700 /tmp/allwright-{uid} && exec \"$0\" \"$@\"",
        uid = rustix::process::getuid().as_raw()
    );
    let mut command = Command::new("unshare");
    command
        .args([
            "--mount",
            "sh",
            "-c",
            &script,
            env!("CARGO_BIN_EXE_allwright"),
        ])
        .args(arguments)
        .env("HOME", home)
        .env_remove("ALLWRIGHT_SOCKET")
        .env_remove("XDG_RUNTIME_DIR")
        .kill_on_drop(true);
    command
}

/// Whether this machine lets the test make a mount namespace (root, `unshare`, `setpriv`).
fn can_make_a_private_tmp() -> bool {
    running_as_root()
        && std::process::Command::new("unshare")
            .args([
                "--mount",
                "sh",
                "-c",
                "mount -t tmpfs tmpfs /tmp && command -v setpriv",
            ])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|status| status.success())
}

/// Issue 27: another user who makes `/tmp/allwright-<uid>` first no longer blocks the socket.
/// The host (as the browser starts it) and `allwright mcp` (as an agent starts it) both choose
/// `$HOME/.cache/allwright/run/host.sock` by the same function, find each other there, and a call
/// goes through; the foreign folder is left as it was.
#[tokio::test]
async fn a_shared_folder_made_by_another_user_sends_host_and_client_under_the_home() {
    use rmcp::transport::TokioChildProcess;
    use rmcp::ServiceExt;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    if !can_make_a_private_tmp() {
        eprintln!("skipped: needs root, unshare --mount and setpriv");
        return;
    }
    // Not under /tmp, which the namespace replaces; short enough for a socket path.
    let base = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).expect("temp dir");
    let home = base.path().join("home");
    std::fs::create_dir(&home).expect("home");
    let socket_path = home.join(".cache/allwright/run/host.sock");
    let mut host = command_beside_a_foreign_shared_folder(
        &home,
        &[CHROME_EXTENSION_ORIGIN, "--parent-window=0"],
    )
    .env("ALLWRIGHT_LOG_FILE", base.path().join("host.log"))
    .stdin(Stdio::piped())
    .stdout(Stdio::piped())
    .stderr(Stdio::piped())
    .spawn()
    .expect("spawn the host");
    let deadline = tokio::time::Instant::now() + PATIENCE;
    while !socket_path.exists() {
        assert!(
            tokio::time::Instant::now() < deadline,
            "the host never listened on {}: {}",
            socket_path.display(),
            std::fs::read_to_string(base.path().join("host.log")).unwrap_or_default()
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let folder_mode = std::fs::metadata(socket_path.parent().expect("folder"))
        .expect("folder")
        .mode()
        & 0o777;
    assert_eq!(folder_mode, 0o700, "the folder under the home is private");
    let mut host_stdin = host.stdin.take().expect("stdin");
    let mut host_stdout = host.stdout.take().expect("stdout");
    host_stdin
        .write_all(&crate::support::frame(&hello()))
        .await
        .expect("hello");

    let (transport, _stderr) =
        TokioChildProcess::builder(command_beside_a_foreign_shared_folder(&home, &["mcp"]))
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn allwright mcp");
    let client = tokio::time::timeout(PATIENCE, ().serve(transport))
        .await
        .expect("initialize in time")
        .expect("MCP initialize");
    let answered = tokio::spawn(async move {
        let result = client
            .call_tool(call("list_tabs", json!({})))
            .await
            .expect("a result");
        client.cancel().await.expect("close the session");
        result
    });
    // The call reaches the host's stdout as the browser would read it; answer it.
    let call_message = tokio::time::timeout(PATIENCE, async {
        loop {
            let mut length = [0u8; 4];
            host_stdout.read_exact(&mut length).await.expect("length");
            let mut payload = vec![0u8; u32::from_ne_bytes(length) as usize];
            host_stdout.read_exact(&mut payload).await.expect("payload");
            let message: serde_json::Value = serde_json::from_slice(&payload).expect("JSON");
            if message["type"] == "call" {
                return message;
            }
        }
    })
    .await
    .expect("the call reaches the host in time");
    assert_eq!(call_message["tool"], "list_tabs", "{call_message}");
    let answer =
        json!({"type": "result", "id": call_message["id"], "ok": true, "result": {"tabs": []}});
    host_stdin
        .write_all(&crate::support::frame(&answer))
        .await
        .expect("answer");
    let result = tokio::time::timeout(PATIENCE, answered)
        .await
        .expect("the client's answer in time")
        .expect("the client task");
    assert_ne!(result.is_error, Some(true), "{result:?}");
    assert_eq!(crate::reply_text::reply_value(&result)["tabs"], json!([]));
    drop(host_stdin);
    let _ = tokio::time::timeout(PATIENCE, host.wait()).await;
}
