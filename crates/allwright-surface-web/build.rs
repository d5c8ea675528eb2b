//! Embeds two scripts into the crate, so that a program using it needs nothing of the source tree:
//!
//! - the page side of the WebDriver BiDi snapshot, `dist/bidi/snapshot.js` (written by
//!   scripts/build-extension.mjs from extension/surface/bidi-snapshot.js and the JS build of the
//!   core);
//! - the WebDriver BiDi mapper for Chromium, `mapperTab.js` of the npm package `chromium-bidi`
//!   (pinned exactly in package.json), which the Chromium launcher runs in a hidden tab
//!   (src/launch/cdp_pipe.rs).
//!
//! Without a file the crate still builds, with a warning, and embeds an empty script: then
//! `accessibility_snapshot` fails with `bundle_missing` (src/snapshot.rs), or launching Chromium
//! fails with a message, each naming ./scripts/build.

use std::path::{Path, PathBuf};

/// Each script to embed: where it is, relative to the repository root; the file in `OUT_DIR` that
/// the crate includes; and what fails without it.
const EMBEDDED_SCRIPTS: [(&str, &str, &str); 2] = [
    (
        "dist/bidi/snapshot.js",
        "bidi-snapshot.js",
        "accessibility snapshots over BiDi",
    ),
    (
        "node_modules/chromium-bidi/out/Default/gen/src/mapperTab.js",
        "chromium-bidi-mapper.js",
        "launching Chromium (its BiDi mapper)",
    ),
];

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
    println!("cargo:rerun-if-changed=build.rs");
    for (source, embedded, what_fails_without_it) in EMBEDDED_SCRIPTS {
        let source_path = manifest_dir.join("../..").join(source);
        // A missing file counts as changed, so a build without it looks again next time, and a
        // rebuilt or upgraded file is embedded again.
        println!("cargo:rerun-if-changed={}", source_path.display());
        let script = match std::fs::read_to_string(&source_path) {
            Ok(script) => script,
            Err(_) => {
                println!(
                    "cargo:warning={source} is not there: {what_fails_without_it} will fail until ./scripts/build has run"
                );
                String::new()
            }
        };
        let target = out_dir.join(embedded);
        std::fs::write(&target, script)
            .map_err(|error| format!("cannot write {}: {error}", target.display()))?;
    }
    Ok(())
}
