//! Opt-in browser checks of the session folder (src/session_folder.rs): everything allwright and
//! the browser make for a session is private while it runs, and the folder and every process of
//! the session are gone after each way a session ends: stdin closed, SIGTERM, SIGINT, SIGHUP, a
//! launch that fails halfway, and (at the next start) SIGKILL. Each test runs its sessions under
//! a TMPDIR of its own, so it sees only its own folders and processes.
//! `cargo test --test host session_folder -- --ignored`.

use std::io::{BufRead, BufReader, Write};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use rustix::process::{kill_process, Pid, Signal};

use crate::launch::write_stand_in_extension;

/// A launch on this shared machine may be slow; a hang still fails with a message.
const LAUNCH_PATIENCE: Duration = Duration::from_secs(90);
const EXIT_PATIENCE: Duration = Duration::from_secs(30);

/// `allwright mcp --launch <browser>` with the stand-in extension, past the MCP handshake (the
/// server answers `initialize` only once the browser and its host are ready).
struct LaunchedMcp {
    child: Child,
    stdin: Option<std::process::ChildStdin>,
}

fn start_mcp(browser_flag: &str, extension: &Path, temporary: &Path) -> LaunchedMcp {
    // Beside the TMPDIR, not in it: the server's own messages, shown when the launch fails.
    let log_path = temporary.with_extension(format!("{}.log", std::process::id()));
    let log = std::fs::File::options()
        .create(true)
        .append(true)
        .open(&log_path)
        .expect("log");
    let mut child = Command::new(env!("CARGO_BIN_EXE_allwright"))
        .args(["mcp", "--launch", browser_flag, "--headless", "--extension"])
        .arg(extension)
        .env("TMPDIR", temporary)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(log)
        .spawn()
        .expect("spawn allwright mcp --launch");
    let mut stdin = child.stdin.take().expect("stdin");
    let stdout = child.stdout.take().expect("stdout");
    let (lines, received) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if lines.send(line).is_err() {
                return;
            }
        }
    });
    writeln!(
        stdin,
        r#"{{"jsonrpc":"2.0","id":1,"method":"initialize","params":{{"protocolVersion":"2024-11-05","capabilities":{{}},"clientInfo":{{"name":"session-folder-test","version":"0"}}}}}}"#
    )
    .expect("send initialize");
    let answer = received.recv_timeout(LAUNCH_PATIENCE).unwrap_or_else(|_| {
        panic!(
            "the server did not answer initialize:\n{}",
            std::fs::read_to_string(&log_path).unwrap_or_default()
        )
    });
    assert!(answer.contains("\"id\":1"), "{answer}");
    LaunchedMcp {
        child,
        stdin: Some(stdin),
    }
}

impl LaunchedMcp {
    fn pid(&self) -> Pid {
        Pid::from_raw(self.child.id() as i32).expect("a pid")
    }

    fn wait_for_exit(&mut self) {
        let deadline = Instant::now() + EXIT_PATIENCE;
        while self.child.try_wait().expect("try_wait").is_none() {
            assert!(Instant::now() < deadline, "allwright mcp did not exit");
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

impl Drop for LaunchedMcp {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The session folders under `temporary`.
fn session_folders(temporary: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(temporary)
        .expect("tmp")
        .flatten()
        .map(|entry| entry.path())
        .filter(|path| {
            path.file_name()
                .and_then(|name| name.to_str())
                .is_some_and(|name| name.starts_with("allwright-session-"))
        })
        .collect()
}

/// Every file, folder and socket under `folder` (the folder too) whose mode lets the group or
/// others in. Symlinks are skipped: their own mode is always 0777 and means nothing.
fn entries_open_to_others(folder: &Path) -> Vec<String> {
    let mut open = Vec::new();
    let mut pending = vec![folder.to_owned()];
    while let Some(path) = pending.pop() {
        let Ok(metadata) = std::fs::symlink_metadata(&path) else {
            continue; // Removed by the browser meanwhile.
        };
        if metadata.file_type().is_symlink() {
            continue;
        }
        if metadata.mode() & 0o077 != 0 {
            open.push(format!("{:o} {}", metadata.mode() & 0o7777, path.display()));
        }
        if metadata.is_dir() {
            if let Ok(entries) = std::fs::read_dir(&path) {
                pending.extend(entries.flatten().map(|entry| entry.path()));
            }
        }
    }
    open
}

/// The processes whose command line or environment names `marker` (a test's TMPDIR, which the
/// MCP server, the driver, the browser and the host all inherit).
fn processes_naming(marker: &Path) -> Vec<String> {
    let marker = marker.to_string_lossy().into_owned();
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").expect("/proc").flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if !name.bytes().all(|byte| byte.is_ascii_digit()) {
            continue;
        }
        // A zombie has an empty environment and command line: it is gone but not yet reaped.
        let command_line = std::fs::read(entry.path().join("cmdline")).unwrap_or_default();
        let environment = std::fs::read(entry.path().join("environ")).unwrap_or_default();
        if String::from_utf8_lossy(&command_line).contains(&marker)
            || String::from_utf8_lossy(&environment).contains(&marker)
        {
            let shown = String::from_utf8_lossy(&command_line).replace('\0', " ");
            found.push(format!(
                "{name}: {}",
                shown.chars().take(120).collect::<String>()
            ));
        }
    }
    found
}

/// Waits until no process names `marker` and `temporary` holds no session folder.
fn assert_session_gone(temporary: &Path, marker: &Path, how: &str) {
    let deadline = Instant::now() + EXIT_PATIENCE;
    loop {
        let processes = processes_naming(marker);
        let folders = session_folders(temporary);
        if processes.is_empty() && folders.is_empty() {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "after {how}: processes left {processes:#?}, folders left {folders:?}"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
}

enum SessionEnd {
    StdinClosed,
    Signal(Signal),
}

/// One session per way it ends: while it runs, nothing in its folder is open to others; after
/// it ends, the folder and every process are gone.
fn every_way_a_session_ends(browser_flag: &str, extension_flavour: &str) {
    let folder = tempfile::tempdir().expect("temp dir");
    let extension = folder.path().join("extension");
    write_stand_in_extension(&extension, extension_flavour);
    for (index, (how, end)) in [
        ("stdin closed", SessionEnd::StdinClosed),
        ("SIGTERM", SessionEnd::Signal(Signal::TERM)),
        ("SIGINT", SessionEnd::Signal(Signal::INT)),
        ("SIGHUP", SessionEnd::Signal(Signal::HUP)),
    ]
    .into_iter()
    .enumerate()
    {
        // Short: Chromium's SingletonSocket goes under this TMPDIR, and a Unix socket's path has
        // at most 107 bytes.
        let temporary = folder.path().join(format!("t{index}"));
        std::fs::create_dir(&temporary).expect("tmp");
        let mut session = start_mcp(browser_flag, &extension, &temporary);
        let folders = session_folders(&temporary);
        assert_eq!(folders.len(), 1, "{how}: {folders:?}");
        let open = entries_open_to_others(&folders[0]);
        assert!(
            open.is_empty(),
            "{browser_flag}: open to others while the session runs:\n{}",
            open.join("\n")
        );
        assert!(
            !processes_naming(&temporary).is_empty(),
            "the session's processes are found by their TMPDIR"
        );
        match end {
            SessionEnd::StdinClosed => drop(session.stdin.take()),
            SessionEnd::Signal(signal) => {
                kill_process(session.pid(), signal).expect("signal allwright mcp")
            }
        }
        session.wait_for_exit();
        assert_session_gone(&temporary, &temporary, how);
        eprintln!("{browser_flag}: {how}: folder and processes gone");
    }
}

#[test]
#[ignore = "starts Chromium through chromedriver four times"]
fn session_folder_chromium_is_private_and_gone_after_every_end() {
    every_way_a_session_ends("chromium", "chrome");
}

#[test]
#[ignore = "starts Firefox four times"]
fn session_folder_firefox_is_private_and_gone_after_every_end() {
    every_way_a_session_ends("firefox", "firefox");
}

/// A session killed with SIGKILL cannot clean up: its folder (and its browser, left running) are
/// removed by the next start, while a session that runs meanwhile keeps its folder and browser.
#[test]
#[ignore = "starts Chromium through chromedriver three times"]
fn session_folder_of_a_killed_session_is_removed_at_the_next_start_but_a_live_one_is_kept() {
    let folder = tempfile::tempdir().expect("temp dir");
    let extension = folder.path().join("extension");
    write_stand_in_extension(&extension, "chrome");
    let temporary = folder.path().join("tmp");
    std::fs::create_dir(&temporary).expect("tmp");

    let live = start_mcp("chromium", &extension, &temporary);
    let live_folder = session_folders(&temporary).pop().expect("the live folder");
    let mut killed = start_mcp("chromium", &extension, &temporary);
    let killed_folder = session_folders(&temporary)
        .into_iter()
        .find(|path| path != &live_folder)
        .expect("the killed session's folder");
    kill_process(killed.pid(), Signal::KILL).expect("SIGKILL");
    killed.wait_for_exit();
    assert!(killed_folder.exists(), "SIGKILL leaves the folder");
    assert!(
        !processes_naming(&killed_folder).is_empty(),
        "SIGKILL leaves the browser running"
    );

    let next = start_mcp("chromium", &extension, &temporary);
    assert!(
        !killed_folder.exists(),
        "the next start removed the killed session's folder"
    );
    assert_eq!(
        processes_naming(&killed_folder),
        Vec::<String>::new(),
        "the next start ended the killed session's browser"
    );
    assert!(live_folder.exists(), "the live session keeps its folder");
    assert!(
        !processes_naming(&live_folder).is_empty(),
        "the live session keeps its browser"
    );

    drop(next);
    drop(live);
    // Dropping kills the servers (SIGKILL): what they leave is cleared by one more start.
    let last = start_mcp("chromium", &extension, &temporary);
    assert_eq!(
        session_folders(&temporary).len(),
        1,
        "only the last session's folder"
    );
    let mut last = last;
    drop(last.stdin.take());
    last.wait_for_exit();
    assert_session_gone(&temporary, &temporary, "the last session's end");
}

/// A launch that fails after the browser started (the extension installs under another id, so
/// the host would refuse it) closes the browser and removes the folder before it exits.
#[test]
#[ignore = "starts Chromium through chromedriver"]
fn session_folder_of_a_failed_launch_is_removed() {
    let folder = tempfile::tempdir().expect("temp dir");
    let extension = folder.path().join("extension");
    write_stand_in_extension(&extension, "chrome");
    // Without the key, Chromium derives another id from the path.
    let manifest_path = extension.join("manifest.json");
    let mut manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&manifest_path).expect("manifest"))
            .expect("json");
    manifest.as_object_mut().expect("object").remove("key");
    std::fs::write(&manifest_path, manifest.to_string()).expect("manifest");
    let temporary = folder.path().join("tmp");
    std::fs::create_dir(&temporary).expect("tmp");
    let output = Command::new(env!("CARGO_BIN_EXE_allwright"))
        .args(["mcp", "--launch", "chromium", "--headless", "--extension"])
        .arg(&extension)
        .env("TMPDIR", &temporary)
        .stdin(Stdio::null())
        .output()
        .expect("run allwright mcp");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("not oocdjjlhboaefebdlfjodhaelmmedgec"),
        "{stderr}"
    );
    assert_session_gone(&temporary, &temporary, "a failed launch");
}

/// A signal while the browser is still starting (before the MCP handshake can be answered) ends
/// the half-made session too: the folder and every process are gone.
#[test]
#[ignore = "starts Chromium through chromedriver"]
fn session_folder_of_a_launch_interrupted_by_sigterm_is_removed() {
    let folder = tempfile::tempdir().expect("temp dir");
    let extension = folder.path().join("extension");
    write_stand_in_extension(&extension, "chrome");
    let temporary = folder.path().join("tmp");
    std::fs::create_dir(&temporary).expect("tmp");
    let mut child = Command::new(env!("CARGO_BIN_EXE_allwright"))
        .args(["mcp", "--launch", "chromium", "--headless", "--extension"])
        .arg(&extension)
        .env("TMPDIR", &temporary)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(folder.path().join("mcp.log")).expect("log"))
        .spawn()
        .expect("spawn allwright mcp --launch");
    // The browser is on its way once its profile appears; the host is not ready yet.
    let deadline = Instant::now() + LAUNCH_PATIENCE;
    while !session_folders(&temporary)
        .iter()
        .any(|session| session.join("profile").join("Default").exists())
    {
        assert!(Instant::now() < deadline, "the browser never started");
        std::thread::sleep(Duration::from_millis(20));
    }
    kill_process(
        Pid::from_raw(child.id() as i32).expect("a pid"),
        Signal::TERM,
    )
    .expect("SIGTERM");
    let deadline = Instant::now() + EXIT_PATIENCE;
    while child.try_wait().expect("try_wait").is_none() {
        assert!(Instant::now() < deadline, "allwright mcp did not exit");
        std::thread::sleep(Duration::from_millis(100));
    }
    assert_session_gone(&temporary, &temporary, "SIGTERM during the launch");
    let log = std::fs::read_to_string(folder.path().join("mcp.log")).unwrap_or_default();
    assert!(
        log.contains("SIGTERM while the browser was starting"),
        "the signal came during the launch: {log}"
    );
}
