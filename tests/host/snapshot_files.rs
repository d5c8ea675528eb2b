//! docs/protocol/host-safety.md, "Snapshot of a local file", as a hostile page sees it: a page snapshotted
//! with `allwright snapshot FILE` asks the local server for the folder's other files, its
//! dotfiles, a symlink that leads out and the folder above, and gets 404 for each; what it
//! references itself loads. In both browsers, with the built extension (`./scripts/build`).

use std::path::Path;

/// What the page asks for, and the status it must get.
const REQUESTS: &[(&str, u16)] = &[
    ("logo.svg", 200),
    ("other-download.txt", 404),
    (".env", 404),
    (".git/config", 404),
    ("link-out/key.txt", 404),
    ("../outside.txt", 404),
    ("%2e%2e/outside.txt", 404),
    ("%2e%2e%2foutside.txt", 404),
    ("./", 404),
];

fn hostile_page() -> String {
    let list: Vec<String> = REQUESTS
        .iter()
        .map(|(path, _)| format!("{path:?}"))
        .collect();
    format!(
        r#"<!doctype html><title>Hostile</title><img src="logo.svg" alt="logo">
<script>
for (const path of [{}]) {{
  const request = new XMLHttpRequest();
  request.open("GET", path, false);
  let status = "error";
  try {{ request.send(); status = String(request.status); }} catch (error) {{}}
  const heading = document.createElement("h2");
  heading.textContent = "asked " + path + " got " + status;
  document.body.append(heading);
}}
</script>"#,
        list.join(", ")
    )
}

fn snapshot_of_the_hostile_page(browser: &str) {
    let folder = tempfile::tempdir().expect("temp dir");
    let top = folder.path();
    let downloads = top.join("downloads");
    std::fs::create_dir_all(downloads.join(".git")).expect("folders");
    std::fs::create_dir_all(top.join("private")).expect("folders");
    std::fs::write(top.join("outside.txt"), "above").expect("file");
    std::fs::write(top.join("private/key.txt"), "secret").expect("file");
    std::fs::write(downloads.join("page.html"), hostile_page()).expect("page");
    std::fs::write(
        downloads.join("logo.svg"),
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"/>"#,
    )
    .expect("logo");
    std::fs::write(downloads.join("other-download.txt"), "private").expect("file");
    std::fs::write(downloads.join(".env"), "TOKEN=1").expect("file");
    std::fs::write(downloads.join(".git/config"), "[core]").expect("file");
    std::os::unix::fs::symlink(top.join("private"), downloads.join("link-out")).expect("symlink");

    let output = std::process::Command::new(env!("CARGO_BIN_EXE_allwright"))
        .args(["snapshot"])
        .arg(downloads.join("page.html"))
        .args(["--browser", browser])
        .env("TMPDIR", Path::new(top))
        .output()
        .expect("run allwright snapshot");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{browser}: snapshot failed:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    for (path, status) in REQUESTS {
        let line = format!("asked {path} got {status}");
        assert!(
            stdout.contains(&line),
            "{browser}: expected {line:?} in:\n{stdout}"
        );
    }
}

#[test]
#[ignore = "starts Chromium"]
fn chromium_a_snapshotted_page_reads_only_what_it_references() {
    snapshot_of_the_hostile_page("chromium");
}

#[test]
#[ignore = "starts Firefox"]
fn firefox_a_snapshotted_page_reads_only_what_it_references() {
    snapshot_of_the_hostile_page("firefox");
}
