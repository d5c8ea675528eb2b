//! Embeds three scripts into the crate, so that a program using it needs nothing of the source
//! tree. All three are in the crate's own `embedded/` folder, written there by
//! scripts/build-extension.mjs (which `./scripts/build` runs), so that the crate builds from its
//! own package rather than from the repository around it:
//!
//! - `bidi-snapshot.js`, the page side of the WebDriver BiDi snapshot (bundled from
//!   extension/surface/bidi-snapshot.js and the JS build of the core);
//! - `chromium-bidi-mapper.js`, the WebDriver BiDi mapper for Chromium (`mapperTab.js` of the
//!   npm package `chromium-bidi`, pinned exactly in package.json), which the Chromium launcher
//!   runs in a hidden tab (src/launch/cdp_pipe.rs);
//! - `own-part.js`, the extension's rule of what is a part of the control being clicked
//!   (extension/content/dom/own-part.js), which the element operations share (src/page/scripts.rs).
//!
//! A missing script stops the build with a message naming ./scripts/build, because a crate built
//! without them builds fine and then fails at its first snapshot or Chromium launch. Builds that
//! never start a browser (a lint on a fresh checkout) may set
//! `ALLWRIGHT_ALLOW_MISSING_EXTENSION=1`: then an empty script is embedded with a warning, and
//! `accessibility_snapshot` fails with `bundle_missing` (src/snapshot.rs), launching Chromium
//! fails with a message, and clicks cannot tell a control's own parts.

use std::path::{Path, PathBuf};

/// Each script to embed: its file in `embedded/` (the same name in `OUT_DIR`, where the crate
/// includes it), and what fails without it.
const EMBEDDED_SCRIPTS: [(&str, &str); 3] = [
    ("bidi-snapshot.js", "accessibility snapshots over BiDi"),
    (
        "chromium-bidi-mapper.js",
        "launching Chromium, whose BiDi mapper it is",
    ),
    ("own-part.js", "telling a clicked control's own parts"),
];

/// The variable that lets a build go on without the scripts (and, in the `allwright` binary's
/// build.rs, without the extension).
const ALLOW_MISSING: &str = "ALLWRIGHT_ALLOW_MISSING_EXTENSION";

fn main() {
    let manifest_dir = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default());
    let out_dir = PathBuf::from(std::env::var_os("OUT_DIR").unwrap_or_default());
    if let Err(message) = try_main(&manifest_dir, &out_dir) {
        eprintln!("allwright-surface-web build script: {message}");
        std::process::exit(1);
    }
}

fn try_main(manifest_dir: &Path, out_dir: &Path) -> Result<(), String> {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed={ALLOW_MISSING}");
    let allow_missing = std::env::var_os(ALLOW_MISSING).is_some_and(|value| value == "1");
    let mut missing = Vec::new();
    for (name, what_fails_without_it) in EMBEDDED_SCRIPTS {
        let source_path = manifest_dir.join("embedded").join(name);
        // A missing file counts as changed, so a build without it looks again next time, and a
        // rebuilt or upgraded file is embedded again.
        println!("cargo:rerun-if-changed={}", source_path.display());
        let script = match std::fs::read_to_string(&source_path) {
            Ok(script) => script,
            Err(_) => {
                missing.push(format!("embedded/{name} ({what_fails_without_it})"));
                String::new()
            }
        };
        let target = out_dir.join(name);
        std::fs::write(&target, script)
            .map_err(|error| format!("cannot write {}: {error}", target.display()))?;
    }
    if missing.is_empty() {
        return Ok(());
    }
    if allow_missing {
        println!(
            "cargo:warning={ALLOW_MISSING}=1: built without {}; run ./scripts/build to embed them",
            missing.join(", ")
        );
        return Ok(());
    }
    Err(format!(
        "the scripts this crate embeds are not built in {}: {}. Run ./scripts/build from the \
repository's root (it needs node and npm): it writes them and the extension, then builds the crates. \
To build without them on purpose, for a lint say, set {ALLOW_MISSING}=1.",
        manifest_dir.join("embedded").display(),
        missing.join(", ")
    ))
}
