// @ts-check
// Core loading: nothing of the Rust core runs in a frame until its first tree or snapshot call.
// The background then injects one of two builds of the same crate, chosen from the frame's CSP
// (docs/protocol/core.md, "Loading the core"): WASM, or the wasm2js build for pages whose CSP forbids
// WASM compilation in Chromium. Either defines `globalThis.allwrightAxCore`. For such pages the
// background first offers the WASM core in its service worker instead (tree/worker-core-client.js,
// docs/protocol/core.md, "The core in the service worker"): nothing is injected then, and the JS build
// is the last resort, used only when the worker cannot run the core. Every read says which
// engine ran (`engine`).

import "../../shared/messages.js";
import { FACTS_VERSION } from "./facts.js";
import { workerCore } from "./worker-core-client.js";

const messages = globalThis.allwrightMessages;

/**
 * A `since` read's one changed part, read with its comparison (TextTreeCall's `diffAfter`):
 * the snapshot's records and lines' lengths, the part's run of lines in it, and `maxChars`. A
 * core that compares in the same call (the service worker's, tree/worker-core-client.js) writes
 * the diff's output into `answer`; an injected core ignores the argument, and the caller then
 * asks `diffLines` itself.
 * @typedef {{previous: Uint32Array, previousLengths: Uint32Array, start: number, end: number,
 *   maxChars: number | undefined, answer?: string}} DiffAfterPart
 */

/**
 * The one argument of the core's `buildTextTree`, the same for every core and every caller
 * (crates/allwright-ax-wasm/src/bindings.rs reads it by these names, `TextTreeCall`): the
 * frame's facts (tree/snapshot-document.js, factFields), then the read's arguments. A field
 * left out or undefined takes the core's default: filter "all", the default depth, no
 * `maxChars`, page 1, no anchor, no references known before (counted from 0), no line records.
 * @typedef {object} TextTreeCall
 * @property {string} strings the facts' strings (tree/facts.js)
 * @property {Uint32Array} stringLengths
 * @property {Uint32Array} nodes
 * @property {Uint32Array} attributes
 * @property {Float64Array} rects
 * @property {Uint32Array} slots
 * @property {Float64Array} viewport
 * @property {{read(node: number, after: boolean): string | null}} pseudo the `::before` and
 *   `::after` content of a node, asked by the core when a name needs it
 * @property {string | undefined} [filter] "all", "visible" or "interactive"
 * @property {number | undefined} [maxDepth]
 * @property {number | undefined} [maxChars] in Unicode scalars (docs/protocol/host-safety.md, "Sizes of a read")
 * @property {number | undefined} [anchor] the node index of `ref_id`'s element
 * @property {string | undefined} [anchorRef] `ref_id` itself, echoed in `continuationArgs`
 * @property {number | undefined} [page]
 * @property {Uint32Array | undefined} [knownRefs] `[node, N]` pairs: elements that keep `ref_N`
 * @property {number | undefined} [refCounter] new references are numbered from this plus one
 * @property {string | undefined} [url]
 * @property {string | undefined} [title]
 * @property {Float64Array | undefined} [frameIds] `[node, frameId]` pairs (numbers: Firefox's
 *   frame ids exceed 32 bits)
 * @property {Uint32Array | undefined} [identities] each node's identity, for the line records
 * @property {Uint32Array | undefined} [previousLines] the records of the snapshot a `since`
 *   read compares with
 * @property {Uint32Array | undefined} [lineRecords] where the core writes the records of the
 *   tree's lines (five numbers a line)
 * @property {number | undefined} [depthOffset] the depth of a `since` read's part in the whole
 *   tree (docs/protocol/reading.md, "Reads since a snapshot")
 * @property {DiffAfterPart | undefined} [diffAfter] that part's comparison, for a core that
 *   makes it in the same call (the service worker's); an injected core does not read it
 */

/**
 * @typedef {object} AxCore The API of generated/ax-core-wasm.js and generated/ax-core-js.js, and
 *   of the service worker's core (tree/worker-core-client.js), whose calls answer promises.
 * @property {'wasm' | 'js'} flavour
 * @property {Engine} [engine] where the core runs; an injected core has none, and is named
 *   from its flavour (engineOf)
 * @property {Promise<void>} ready
 * @property {() => number} factsVersion
 * @property {(call: TextTreeCall) => string | Promise<string>} buildTextTree
 * @property {(...args: any[]) => string | Promise<string>} diffLines
 * @property {(...args: any[]) => string | Promise<string>} writeSnapshotDocument
 * @property {(carrier: (request: CoreCallRequest) => Promise<unknown>) => AxCore} [handedOffTo] the
 *   service worker's core only: the same core with its calls given to a carrier instead, for a
 *   read handed to the background (tree/core-hand-off.js)
 */

/**
 * Where a read's core ran (the `engine` of every tree and snapshot result, docs/protocol.md):
 * "wasm-page" (WASM in this content script), "wasm-worker" (WASM in Chromium's service worker)
 * or "js-page" (the wasm2js build in this content script: the last resort).
 * @typedef {"wasm-page" | "wasm-worker" | "js-page"} Engine
 */

/**
 * @param {AxCore} core
 * @returns {Engine}
 */
export function engineOf(core) {
  return core.engine ?? (core.flavour === "wasm" ? "wasm-page" : "js-page");
}

/**
 * Why this frame runs the JS core though the worker's WASM core was offered first, as the
 * background said (undefined when it did not fall back).
 * @type {string | undefined}
 */
export let engineFallback = undefined;

/** @type {Promise<AxCore> | null} */
let corePromise = null;

/** @returns {Promise<AxCore>} */
export function loadCore() {
  corePromise ??= requestCore().catch((error) => {
    corePromise = null;
    throw error;
  });
  return corePromise;
}

/** The policies of every `<meta http-equiv="Content-Security-Policy">` of this document. */
function metaPolicies() {
  return Array.from(document.querySelectorAll("meta[http-equiv]"))
    .filter((meta) => meta.getAttribute("http-equiv")?.trim().toLowerCase() === "content-security-policy")
    .map((meta) => meta.getAttribute("content") ?? "");
}

/** @returns {Promise<AxCore>} */
async function requestCore() {
  const scope = /** @type {any} */ (globalThis);
  if (scope.allwrightAxCore === undefined) {
    // The background picks the build from this frame's CSP (headers + these meta policies)
    // and injects it into this world. Compiling WASM to find out would fire a
    // securitypolicyviolation event and a CSP report in the page.
    const extension = scope.browser ?? scope.chrome;
    // shared/messages.js owns the message's shape.
    const request = messages.loadCoreRequest(metaPolicies());
    /** @type {any} */
    let reply;
    try {
      reply = await extension.runtime.sendMessage(request);
    } catch (error) {
      throw messages.toolError("script_failed", `could not ask the extension for the tree core: ${describe(error)}`);
    }
    if (reply?.ok === false && reply.error) throw reply.error;
    if (reply?.core === "worker" && Number.isSafeInteger(reply.factsVersion)) {
      return checkedFactsVersion(workerCore(reply.factsVersion));
    }
    engineFallback = typeof reply?.fallback === "string" ? reply.fallback : undefined;
    if (reply?.core !== "wasm" && reply?.core !== "js") {
      throw messages.toolError("script_failed", "the extension did not load the tree core into this frame");
    }
  }
  /** @type {AxCore | undefined} */
  const core = scope.allwrightAxCore;
  if (core === undefined) {
    throw messages.toolError("script_failed", "the tree core was injected but did not start");
  }
  await core.ready;
  return checkedFactsVersion(core);
}

/**
 * @param {AxCore} core
 * @returns {AxCore}
 */
function checkedFactsVersion(core) {
  if (core.factsVersion() !== FACTS_VERSION) {
    throw messages.toolError("script_failed", "the tree core and the content script come from different builds", {
      hint: "Reload the extension.",
    });
  }
  return core;
}

/**
 * Runs one core call; a trap (a bug in the core) leaves the instance unusable, so the next
 * call asks for a fresh one. The worker's core answers its own failures as tool errors, which
 * pass through; the frame then asks for its core again too.
 * @param {() => string | Promise<string>} call
 * @returns {Promise<string>}
 */
export async function runCore(call) {
  try {
    return await call();
  } catch (error) {
    corePromise = null;
    delete (/** @type {any} */ (globalThis).allwrightAxCore);
    if (error !== null && typeof error === "object" && typeof (/** @type {any} */ (error).code) === "string") {
      throw error;
    }
    throw messages.toolError("script_failed", `the tree core failed: ${describe(error)}`);
  }
}

/**
 * A thrown value's text, for a `script_failed` message.
 * @param {unknown} error
 */
export function describe(error) {
  return error instanceof Error ? error.message || error.name : String(error);
}
