//! Makes the `allwright` binary self-contained (docs/agent-tools.md, "A self-contained binary"):
//!
//! - the built extension (`dist/chrome`, `dist/firefox`, written by scripts/build-extension.mjs)
//!   is compiled in, file by file, so that an installed binary can load it into a browser
//!   without the source tree. Without it the build stops with a message naming `./scripts/build`
//!   (which builds the extension and then runs cargo, so the two never wait on each other),
//!   because a binary without its extension builds fine and then cannot drive a browser. A build
//!   that never starts one (a lint on a fresh checkout) may set
//!   `ALLWRIGHT_ALLOW_MISSING_EXTENSION=1`: then the binary builds with a warning and looks for
//!   the extension on disk at run time;
//! - the git commit it was built from, for `allwright --version`.
//!
//! The extension's identity (manifest/identity.json: its Chrome key and id, its gecko id) is
//! compiled in by `src/identity.rs` with `include_str!`; this script checks that the extension it
//! embeds was built with that identity (a browser would otherwise load it under another id, which
//! the native host refuses) and names it in `--version`.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The browsers' folders under `dist/`, as the extension's build names them.
const EXTENSION_FLAVOURS: &[&str] = &["chrome", "firefox"];

/// The variable that lets the binary build without its extension (crates/allwright-surface-web's
/// build.rs reads it too, for the scripts it embeds).
const ALLOW_MISSING: &str = "ALLWRIGHT_ALLOW_MISSING_EXTENSION";

fn main() {
    let manifest_dir = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default());
    let out_dir = PathBuf::from(std::env::var_os("OUT_DIR").unwrap_or_default());
    if let Err(message) = try_main(&manifest_dir, &out_dir) {
        // A build script that cannot write its output cannot be worked around: stop the build
        // with the reason.
        eprintln!("allwright build script: {message}");
        std::process::exit(1);
    }
}

fn try_main(manifest_dir: &Path, out_dir: &Path) -> Result<(), String> {
    let (generated, fingerprint) = embedded_extension_source(manifest_dir)?;
    let target = out_dir.join("embedded_extension.rs");
    std::fs::write(&target, generated)
        .map_err(|error| format!("cannot write {}: {error}", target.display()))?;
    let identity = read_json(&manifest_dir.join("manifest/identity.json"))?;
    let chrome_id = identity["chromeExtensionId"].as_str().unwrap_or("unknown");
    let gecko_id = identity["geckoId"].as_str().unwrap_or("unknown");
    let extension = match fingerprint {
        Some(fingerprint) => {
            check_identity(manifest_dir, &identity)?;
            format!("extension {fingerprint} embedded")
        }
        None => "no extension embedded".to_owned(),
    };
    let commit = git_commit(manifest_dir);
    println!(
        "cargo:rustc-env=ALLWRIGHT_BUILD_DETAILS=commit {commit}, {extension}, Chrome id {chrome_id}, gecko id {gecko_id}"
    );
    Ok(())
}

/// The Rust source that `src/embedded_extension.rs` includes: each flavour's files as
/// `(relative path, include_bytes!(absolute path))`, and a fingerprint of them all that names the
/// folder they are unpacked to. Empty lists and no fingerprint when `dist/` is not built.
fn embedded_extension_source(manifest_dir: &Path) -> Result<(String, Option<String>), String> {
    let dist = manifest_dir.join("dist");
    // Cargo scans a watched folder recursively, so rebuilding the extension re-embeds it. A
    // missing folder counts as changed, so a build without it checks again next time.
    for flavour in EXTENSION_FLAVOURS {
        println!("cargo:rerun-if-changed={}", dist.join(flavour).display());
    }
    let complete = EXTENSION_FLAVOURS
        .iter()
        .all(|flavour| dist.join(flavour).join("manifest.json").is_file());
    let mut source = String::new();
    let mut fingerprint = Fingerprint::new();
    for flavour in EXTENSION_FLAVOURS {
        let mut files = Vec::new();
        if complete {
            list_files(&dist.join(flavour), &mut files)?;
        }
        files.sort();
        let constant = format!("{}_FILES", flavour.to_ascii_uppercase());
        source.push_str(&format!("pub const {constant}: &[(&str, &[u8])] = &[\n"));
        for file in &files {
            let relative = file
                .strip_prefix(dist.join(flavour))
                .map_err(|error| error.to_string())?
                .to_str()
                .ok_or_else(|| format!("{} is not a UTF-8 path", file.display()))?
                .replace('\\', "/");
            let bytes = std::fs::read(file)
                .map_err(|error| format!("cannot read {}: {error}", file.display()))?;
            fingerprint.add(flavour.as_bytes());
            fingerprint.add(relative.as_bytes());
            fingerprint.add(&bytes);
            let absolute = file
                .to_str()
                .ok_or_else(|| format!("{} is not a UTF-8 path", file.display()))?;
            source.push_str(&format!(
                "    ({relative:?}, include_bytes!({absolute:?})),\n"
            ));
        }
        source.push_str("];\n");
    }
    if complete {
        let fingerprint = format!("{:016x}", fingerprint.finish());
        source.push_str(&format!(
            "pub const EMBEDDED_EXTENSION_FINGERPRINT: Option<&str> = Some({fingerprint:?});\n"
        ));
        return Ok((source, Some(fingerprint)));
    }
    println!("cargo:rerun-if-env-changed={ALLOW_MISSING}");
    if std::env::var_os(ALLOW_MISSING).is_none_or(|value| value != "1") {
        return Err(format!(
            "dist/chrome and dist/firefox, the extension this binary embeds, are not built. \
Run ./scripts/build (or npm run build): it builds the core as WASM, the extension, and then this binary \
with cargo (it needs node and npm; README.md, \"Use it with your own browser\"). To build a binary without its extension on \
purpose, for a lint say, set {ALLOW_MISSING}=1."
        ));
    }
    println!(
        "cargo:warning={ALLOW_MISSING}=1: dist/chrome or dist/firefox is not built, so this allwright binary carries no extension, \
and --launch, snapshot and install will look for one on disk. Run ./scripts/build (or npm run build) to embed it."
    );
    source.push_str("pub const EMBEDDED_EXTENSION_FINGERPRINT: Option<&str> = None;\n");
    Ok((source, None))
}

fn read_json(path: &Path) -> Result<serde_json::Value, String> {
    println!("cargo:rerun-if-changed={}", path.display());
    let text = std::fs::read_to_string(path)
        .map_err(|error| format!("cannot read {}: {error}", path.display()))?;
    serde_json::from_str(&text).map_err(|error| format!("{} is not JSON: {error}", path.display()))
}

/// The built manifests carry the identity of manifest/identity.json: Chrome's public key and
/// Firefox's gecko id. A mismatch is a stale `dist/` (built from another checkout, or before the
/// identity changed); it is refused, because the binary would carry an extension that its own
/// native host manifests do not allow.
fn check_identity(manifest_dir: &Path, identity: &serde_json::Value) -> Result<(), String> {
    let dist = manifest_dir.join("dist");
    let chrome = read_json(&dist.join("chrome/manifest.json"))?;
    let firefox = read_json(&dist.join("firefox/manifest.json"))?;
    let rebuild = "rebuild it with ./scripts/build (or node scripts/build-extension.mjs)";
    if chrome["key"] != identity["chromeKey"] {
        return Err(format!(
            "dist/chrome/manifest.json's key is not manifest/identity.json's chromeKey: {rebuild}"
        ));
    }
    if firefox["browser_specific_settings"]["gecko"]["id"] != identity["geckoId"] {
        return Err(format!(
            "dist/firefox/manifest.json's gecko id is not manifest/identity.json's geckoId: {rebuild}"
        ));
    }
    Ok(())
}

fn list_files(folder: &Path, found: &mut Vec<PathBuf>) -> Result<(), String> {
    let entries = std::fs::read_dir(folder)
        .map_err(|error| format!("cannot list {}: {error}", folder.display()))?;
    for entry in entries {
        let path = entry.map_err(|error| error.to_string())?.path();
        if path.is_dir() {
            list_files(&path, found)?;
        } else {
            found.push(path);
        }
    }
    Ok(())
}

/// FNV-1a, 64 bits: stable across Rust versions (unlike `DefaultHasher`), which matters because
/// the fingerprint names a folder on the user's disk.
struct Fingerprint(u64);

impl Fingerprint {
    fn new() -> Self {
        Self(0xcbf2_9ce4_8422_2325)
    }

    /// Adds `bytes` and their length, so that ("ab", "c") and ("a", "bc") differ.
    fn add(&mut self, bytes: &[u8]) {
        for byte in bytes
            .iter()
            .copied()
            .chain((bytes.len() as u64).to_le_bytes())
        {
            self.0 ^= u64::from(byte);
            self.0 = self.0.wrapping_mul(0x0100_0000_01b3);
        }
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

/// The commit the binary is built from (12 hex digits), or "unknown" outside a git checkout
/// (a source archive). The build reruns when HEAD moves: the files that record it are watched.
fn git_commit(manifest_dir: &Path) -> String {
    let git = |arguments: &[&str]| -> Option<String> {
        let output = Command::new("git")
            .args(arguments)
            .current_dir(manifest_dir)
            .output()
            .ok()?;
        if !output.status.success() {
            return None;
        }
        String::from_utf8(output.stdout)
            .ok()
            .map(|text| text.trim().to_owned())
    };
    let Some(commit) = git(&["rev-parse", "--short=12", "HEAD"]) else {
        return "unknown".to_owned();
    };
    // In a worktree, HEAD lives in the worktree's own git folder and branches in the common one.
    if let Some(git_dir) = git(&["rev-parse", "--path-format=absolute", "--git-dir"]) {
        println!("cargo:rerun-if-changed={git_dir}/HEAD");
    }
    if let (Some(common_dir), Some(reference)) = (
        git(&["rev-parse", "--path-format=absolute", "--git-common-dir"]),
        git(&["symbolic-ref", "-q", "HEAD"]),
    ) {
        // Cargo reruns the script on every build for a watched path that does not exist, so
        // only existing files are watched (a branch may live in packed-refs alone).
        for file in [
            format!("{common_dir}/{reference}"),
            format!("{common_dir}/packed-refs"),
        ] {
            if Path::new(&file).is_file() {
                println!("cargo:rerun-if-changed={file}");
            }
        }
    }
    commit
}
