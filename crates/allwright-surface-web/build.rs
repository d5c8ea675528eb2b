//! Embeds the page side of the WebDriver BiDi snapshot, `dist/bidi/snapshot.js` (written by
//! scripts/build-extension.mjs from extension/surface/bidi-snapshot.js and the JS build of the
//! core), into the crate, so that a program using it needs nothing of the source tree.
//!
//! Without the file the crate still builds, with a warning, and embeds an empty script:
//! `accessibility_snapshot` then fails with `bundle_missing`, naming ./scripts/build
//! (src/snapshot.rs).

use std::path::{Path, PathBuf};

/// The bundle, relative to the repository root.
const BUNDLE: &str = "dist/bidi/snapshot.js";
/// The file `src/snapshot.rs` includes, in `OUT_DIR`.
const EMBEDDED: &str = "bidi-snapshot.js";

fn main() {
    let manifest_dir = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default());
    let out_dir = PathBuf::from(std::env::var_os("OUT_DIR").unwrap_or_default());
    if let Err(message) = try_main(&manifest_dir, &out_dir) {
        // A build script that cannot write its output cannot be worked around: stop the build
        // with the reason.
        eprintln!("allwright-surface-web build script: {message}");
        std::process::exit(1);
    }
}

fn try_main(manifest_dir: &Path, out_dir: &Path) -> Result<(), String> {
    let bundle = manifest_dir.join("../..").join(BUNDLE);
    // A missing file counts as changed, so a build without the bundle looks again next time, and
    // a rebuilt bundle is embedded again.
    println!("cargo:rerun-if-changed={}", bundle.display());
    println!("cargo:rerun-if-changed=build.rs");
    let script = match std::fs::read_to_string(&bundle) {
        Ok(script) => script,
        Err(_) => {
            println!(
                "cargo:warning={BUNDLE} is not built: accessibility snapshots over BiDi will fail until ./scripts/build has run"
            );
            String::new()
        }
    };
    let target = out_dir.join(EMBEDDED);
    std::fs::write(&target, script)
        .map_err(|error| format!("cannot write {}: {error}", target.display()))
}
