// The Chromium that the node smoke tests start through playwright-core (wasm-smoke.mjs,
// actions-smoke.mjs, fixtures-check.mjs): $ALLWRIGHT_CHROMIUM, the variable through which
// allwright itself is given another Chromium (crates/allwright-surface-web/src/launch/
// executables.rs; docs/agent-tools.md, "Which browser starts"), else Debian's real binary, which
// scripts/install-deps installs. These tests run on the machines scripts/test sets up, so they do
// not repeat allwright's search of every system's places: the variable covers the others.

/** The path of Chromium's executable. */
export const CHROMIUM_EXECUTABLE = process.env.ALLWRIGHT_CHROMIUM || "/usr/lib/chromium/chromium";
