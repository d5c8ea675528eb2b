// @ts-check
// The page side of the WebDriver BiDi snapshot (crates/allwright-surface-web/src/snapshot.rs),
// bundled by scripts/build-extension.mjs into crates/allwright-surface-web/embedded/bidi-snapshot.js
// together with the JS build of the core (generated/ax-core-js.js), which runs first. It is not
// part of the extension: the manifests do not list it, and the extension's builds do not carry it.
//
// The Rust side evaluates the bundle once per document in a BiDi sandbox realm (WebDriver BiDi,
// "script.evaluate" with `target.sandbox`), never in the page's own realm, and then calls
// `globalThis.allwrightSurface.snapshotDocument(args)` there for the document's part of the
// snapshot. Each document is written by tree/snapshot-document.js, the same code the extension's
// content script runs, so both surfaces give the same bytes for the same page.
//
// The core is the wasm2js build only: it compiles nothing, so it runs under any page CSP, and no
// choice between builds is ever made (compiling WASM to find out would be seen by the page's CSP;
// docs/protocol/core.md, "Loading the core").

import { FACTS_VERSION } from "../content/tree/facts.js";
import { describe } from "../content/tree/core-loading.js";
import { writeSnapshotDocument } from "../content/tree/snapshot-document.js";

const scope = /** @type {any} */ (globalThis);

/** @type {import("../content/tree/core-loading.js").AxCore | undefined} */
const core = scope.allwrightAxCore;
// The core and the message vocabulary announce themselves through globals, which the modules
// above have read by now; the sandbox keeps one global of ours, `allwrightSurface`.
delete scope.allwrightAxCore;
delete scope.allwrightMessages;

/**
 * An error for the Rust side, which reads `code` from the exception's text: `script_failed`
 * for everything that goes wrong on the page's side (docs/protocol/tools.md, "The tool table").
 * @param {string} message
 * @param {unknown} [cause] the error it reports
 */
function scriptFailed(message, cause) {
  return new Error(`script_failed: ${message}`, { cause });
}

/**
 * Runs the one core call of a document; a trap is a bug in the core, reported as such.
 * @param {() => string | Promise<string>} call
 * @returns {string | Promise<string>}
 */
function runCore(call) {
  try {
    return call();
  } catch (error) {
    throw scriptFailed(`the tree core failed: ${describe(error)}`, error);
  }
}

/**
 * This document's part of the snapshot (`snapshot_document` of docs/protocol/channels.md, section 3).
 * @param {import("../content/tree/snapshot-document.js").SnapshotDocumentArguments} args
 * @returns {Promise<string>}
 */
async function snapshotDocument(args) {
  if (core === undefined) throw scriptFailed("the bundle carries no tree core");
  await core.ready;
  if (core.factsVersion() !== FACTS_VERSION) {
    throw scriptFailed("the tree core and the collector come from different builds");
  }
  try {
    return await writeSnapshotDocument(core, args, runCore);
  } catch (error) {
    // The core reports its own failures as `{code, message}` objects (splitOutput).
    if (error !== null && typeof error === "object" && "code" in error && typeof error.code === "string") {
      throw new Error(`${error.code}: ${/** @type {{message?: unknown}} */ (error).message}`, { cause: error });
    }
    if (error instanceof Error && error.message.startsWith("script_failed: ")) throw error;
    throw scriptFailed(describe(error), error);
  }
}

// A second evaluation in the same realm keeps the first instance and its "ai" registry.
if (scope.allwrightSurface === undefined) {
  Object.defineProperty(globalThis, "allwrightSurface", {
    value: Object.freeze({ snapshotDocument }),
    configurable: false,
    enumerable: false,
    writable: false,
  });
}
