//! Issue 27, item 2: a launched Chromium keeps its sandbox unless allwright runs as root
//! (`crates/allwright-surface-web/src/launch/chromium.rs`, `chromium_runs_without_sandbox`).
//!
//! The evidence is the kernel's, not Chromium's flags: Chromium's namespace sandbox puts its
//! zygote and renderers in a user namespace of their own, so with the sandbox on some process of
//! the browser's process group lives in another user namespace than the browser process; with
//! `--no-sandbox` they all share it. The tests watch `/proc` while `allwright snapshot` runs.
//! Both start Chromium, so they are `--ignored`, like the other browser checks of the launcher.

use std::collections::BTreeSet;
use std::process::{Command, Stdio};

/// The uid and gid of `nobody` on Debian: a user with no home, no groups and no files of ours.
const NOBODY: u32 = 65534;

/// The sentence allwright prints once when Chromium runs without its sandbox.
const NO_SANDBOX_NOTICE: &str = "Chromium runs without its sandbox";

/// What was seen of the launched Chromium while it ran.
#[derive(Default, Debug)]
struct ChromiumSeen {
    /// The browser process's command line (the process without `--type=`).
    browser_command_line: Option<String>,
    /// The user namespace of the browser process.
    browser_user_namespace: Option<String>,
    /// The user namespaces of the other processes of its group that could be read.
    other_user_namespaces: BTreeSet<String>,
}

/// The processes whose command line names `marker` (the temporary folder, in `--user-data-dir`):
/// the browser process (`chromium`'s executable), and through its process group, its zygotes and
/// renderers.
fn look_at_chromium(chromium: &str, marker: &str, seen: &mut ChromiumSeen) {
    let mut browser_group = None;
    let mut processes = Vec::new();
    for entry in std::fs::read_dir("/proc").expect("/proc").flatten() {
        let folder = entry.path();
        let Ok(stat) = std::fs::read_to_string(folder.join("stat")) else {
            continue;
        };
        // pid (comm) state ppid pgrp ...: the fields after the last ')'.
        let Some(group) = stat
            .rsplit_once(')')
            .and_then(|(_, rest)| rest.split_whitespace().nth(2))
            .map(str::to_owned)
        else {
            continue;
        };
        let command_line = std::fs::read(folder.join("cmdline"))
            .map(|bytes| String::from_utf8_lossy(&bytes).replace('\0', " "))
            .unwrap_or_default();
        let user_namespace = std::fs::read_link(folder.join("ns/user"))
            .ok()
            .map(|target| target.to_string_lossy().into_owned());
        if command_line.starts_with(chromium)
            && command_line.contains(marker)
            && !command_line.contains("--type=")
        {
            browser_group = Some(group.clone());
            seen.browser_command_line = Some(command_line.clone());
            if user_namespace.is_some() {
                seen.browser_user_namespace = user_namespace.clone();
            }
        }
        processes.push((group, command_line, user_namespace));
    }
    let Some(browser_group) = browser_group else {
        return;
    };
    for (group, command_line, user_namespace) in processes {
        if group == browser_group && command_line.contains("--type=") {
            if let Some(namespace) = user_namespace {
                seen.other_user_namespaces.insert(namespace);
            }
        }
    }
}

/// Runs `allwright snapshot` of a small page, as `as_user` (through setpriv) or as this process's
/// user, watching Chromium's processes until it exits. Returns stdout, stderr and what was seen.
fn snapshot_watching_chromium(as_user: Option<u32>) -> (String, String, ChromiumSeen) {
    use std::os::unix::fs::PermissionsExt;

    let folder = tempfile::tempdir().expect("temp dir");
    let top = folder.path();
    // The other user must reach the page and own its HOME and TMPDIR; the rest stays root's.
    std::fs::set_permissions(top, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    for own_folder in ["home", "tmp"] {
        let path = top.join(own_folder);
        std::fs::create_dir(&path).expect("folder");
        if let Some(user) = as_user {
            rustix::fs::chown(
                &path,
                Some(rustix::fs::Uid::from_raw(user)),
                Some(rustix::fs::Gid::from_raw(user)),
            )
            .expect("chown");
        }
    }
    let page = top.join("page.html");
    std::fs::write(
        &page,
        "<!doctype html><title>Sandbox</title><h1>Read with the sandbox question answered</h1>",
    )
    .expect("page");
    std::fs::set_permissions(&page, std::fs::Permissions::from_mode(0o644)).expect("chmod");

    let binary = env!("CARGO_BIN_EXE_allwright");
    let mut command = match as_user {
        Some(user) => {
            let mut command = Command::new("setpriv");
            command
                .arg(format!("--reuid={user}"))
                .arg(format!("--regid={user}"))
                .args(["--clear-groups", "--", binary]);
            command
        }
        None => Command::new(binary),
    };
    let temporary = top.join("tmp");
    // The environment is cleared, so the Chromium this test looks for is handed down by name.
    let chromium = allwright_surface_web::find_executable(allwright_surface_web::Program::Chromium)
        .expect("Chromium");
    command
        .args(["snapshot"])
        .arg(&page)
        .args(["--browser", "chromium"])
        .env_clear()
        .env("PATH", "/usr/bin:/bin")
        .env("ALLWRIGHT_CHROMIUM", &chromium)
        .env("HOME", top.join("home"))
        .env("TMPDIR", &temporary)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = command.spawn().expect("start allwright snapshot");
    let marker = temporary.to_string_lossy().into_owned();
    let mut seen = ChromiumSeen::default();
    // The pipes are read after the exit: a snapshot of this page is far below a pipe's buffer.
    while child.try_wait().expect("wait").is_none() {
        look_at_chromium(&chromium.to_string_lossy(), &marker, &mut seen);
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    let output = child.wait_with_output().expect("output");
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(
        output.status.success(),
        "allwright snapshot failed:\n{stderr}"
    );
    assert!(
        stdout.contains("Read with the sandbox question answered"),
        "the page was read:\n{stdout}"
    );
    (stdout, stderr, seen)
}

/// Whether `user` can create a user namespace here, which Chromium's sandbox needs.
fn user_namespaces_work_for(user: u32) -> bool {
    Command::new("setpriv")
        .arg(format!("--reuid={user}"))
        .arg(format!("--regid={user}"))
        .args(["--clear-groups", "unshare", "-r", "true"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|status| status.success())
}

#[test]
#[ignore = "starts Chromium as an ordinary user"]
fn chromium_keeps_its_sandbox_when_allwright_is_not_root() {
    let as_user = if rustix::process::geteuid().is_root() {
        if !user_namespaces_work_for(NOBODY) {
            eprintln!(
                "skipped: uid {NOBODY} cannot create a user namespace here (setpriv ... unshare -r true failed), so Chromium's sandbox cannot start for it"
            );
            return;
        }
        Some(NOBODY)
    } else {
        None
    };
    let (_, stderr, seen) = snapshot_watching_chromium(as_user);
    eprintln!("as uid {as_user:?}: {seen:?}");
    assert!(
        !stderr.contains(NO_SANDBOX_NOTICE),
        "no sandbox notice for an ordinary user:\n{stderr}"
    );
    let browser = seen
        .browser_command_line
        .as_deref()
        .expect("the browser process was seen");
    assert!(!browser.contains("--no-sandbox"), "{browser}");
    let browser_namespace = seen
        .browser_user_namespace
        .as_deref()
        .expect("the browser's user namespace was read");
    assert!(
        seen.other_user_namespaces
            .iter()
            .any(|namespace| namespace != browser_namespace),
        "a zygote or renderer runs in a user namespace of its own (the sandbox): {seen:?}"
    );
}

#[test]
#[ignore = "starts Chromium as root"]
fn as_root_chromium_runs_without_sandbox_and_allwright_says_so_once() {
    if !rustix::process::geteuid().is_root() {
        eprintln!("skipped: this test runs as root only, and this process is not root");
        return;
    }
    let (_, stderr, seen) = snapshot_watching_chromium(None);
    assert_eq!(
        stderr.matches(NO_SANDBOX_NOTICE).count(),
        1,
        "the notice once:\n{stderr}"
    );
    let browser = seen
        .browser_command_line
        .as_deref()
        .expect("the browser process was seen");
    assert!(browser.contains("--no-sandbox"), "{browser}");
    let browser_namespace = seen
        .browser_user_namespace
        .as_deref()
        .expect("the browser's user namespace was read");
    assert!(
        !seen.other_user_namespaces.is_empty()
            && seen
                .other_user_namespaces
                .iter()
                .all(|namespace| namespace == browser_namespace),
        "without the sandbox every process shares the browser's user namespace: {seen:?}"
    );
}
