//! An installed binary needs nothing of the source tree: `cargo install` it, hide the checkout's
//! `dist/`, and `allwright snapshot` a page from another folder in Chromium and in Firefox, with
//! the extension it carries (docs/agent-tools.md, "A self-contained binary").
//!
//! Moving the whole checkout away is not possible from a test that runs inside it, so the test
//! takes away what an installed binary could still reach: the binary lives outside the checkout
//! (`cargo install --root <temporary folder>`), runs from a temporary folder, loads a page written
//! there, and the checkout's `dist/` is renamed while it runs (and put back when the test ends,
//! even when it fails). The browsers' output and the log line that names the extension's folder
//! show that the embedded copy, unpacked under a temporary XDG_DATA_HOME, is what ran.
//!
//! `cargo test --test host -- --ignored`, after `./scripts/build` (the extension must be built
//! for the binary to carry it).

use std::path::{Path, PathBuf};
use std::process::Command;

/// Renames the checkout's `dist/` for as long as it lives.
struct HiddenFolder {
    original: PathBuf,
    hidden: PathBuf,
}

impl HiddenFolder {
    fn hide(original: &Path) -> Self {
        let hidden = original.with_file_name("dist.hidden-by-the-self-contained-test");
        std::fs::rename(original, &hidden).expect("hide dist/");
        Self {
            original: original.to_owned(),
            hidden,
        }
    }
}

impl Drop for HiddenFolder {
    fn drop(&mut self) {
        if let Err(error) = std::fs::rename(&self.hidden, &self.original) {
            eprintln!(
                "could not put {} back to {}: {error}",
                self.hidden.display(),
                self.original.display()
            );
        }
    }
}

/// `cargo install`s this checkout into `root`, reusing the test build's target folder so that
/// nothing is compiled twice.
fn install_into(root: &Path) {
    let checkout = Path::new(env!("CARGO_MANIFEST_DIR"));
    let target_folder = Path::new(env!("CARGO_BIN_EXE_allwright"))
        .parent()
        .and_then(Path::parent)
        .expect("the target folder");
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let output = Command::new(cargo)
        .args(["install", "--locked", "--debug", "--path"])
        .arg(checkout)
        .arg("--root")
        .arg(root)
        .arg("--target-dir")
        .arg(target_folder)
        .output()
        .expect("run cargo install");
    assert!(
        output.status.success(),
        "cargo install failed:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

fn snapshot_from_elsewhere(binary: &Path, folder: &Path, browser: &str) {
    let output = Command::new(binary)
        .args(["snapshot", "page.html", "--browser", browser])
        .current_dir(folder.join("work"))
        .env("XDG_DATA_HOME", folder.join("data"))
        .env_remove("ALLWRIGHT_EXTENSION_DIR")
        .output()
        .expect("run the installed allwright");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "{browser}: snapshot failed:\n{stderr}"
    );
    assert!(
        stdout.contains("heading \"Installed\"") && stdout.contains("button \"Go\""),
        "{browser}: the page's tree:\n{stdout}"
    );
    let unpacked = folder.join("data").join("allwright").join("extension");
    assert!(
        stderr.contains(&format!("with the extension in {}", unpacked.display())),
        "{browser}: the embedded extension was used:\n{stderr}"
    );
}

#[test]
#[ignore = "runs cargo install and starts Chromium and Firefox"]
fn an_installed_binary_snapshots_a_page_from_another_folder_in_both_browsers() {
    let dist = Path::new(env!("CARGO_MANIFEST_DIR")).join("dist");
    assert!(
        dist.join("chrome/manifest.json").is_file() && dist.join("firefox/manifest.json").is_file(),
        "build the extension first (./scripts/build): the installed binary embeds dist/"
    );
    let folder = tempfile::tempdir().expect("temp dir");
    let root = folder.path().join("root");
    install_into(&root);
    let binary = root.join("bin").join("allwright");
    let version = Command::new(&binary)
        .arg("--version")
        .output()
        .expect("allwright --version");
    let version = String::from_utf8_lossy(&version.stdout);
    assert!(version.contains("embedded"), "{version}");

    std::fs::create_dir_all(folder.path().join("work")).expect("work folder");
    std::fs::write(
        folder.path().join("work").join("page.html"),
        "<!doctype html><title>Self-contained</title><main><h1>Installed</h1><button>Go</button></main>",
    )
    .expect("page");
    let _hidden = HiddenFolder::hide(&dist);
    snapshot_from_elsewhere(&binary, folder.path(), "chromium");
    snapshot_from_elsewhere(&binary, folder.path(), "firefox");
}
