// @ts-check
// Core loading: nothing of the Rust core runs in a frame until its first tree or snapshot call.
// The background then injects one of two builds of the same crate, chosen from the frame's CSP
// (docs/protocol.md, "Loading the core"): WASM, or the wasm2js build for pages whose CSP forbids
// WASM compilation in Chromium. Either defines `globalThis.allwrightAxCore`.

import "../../shared/messages.js";
import { FACTS_VERSION } from "./facts.js";

const messages = globalThis.allwrightMessages;

/**
 * @typedef {object} AxCore The API of generated/ax-core-wasm.js and generated/ax-core-js.js.
 * @property {'wasm' | 'js'} flavour
 * @property {Promise<void>} ready
 * @property {() => number} factsVersion
 * @property {(...args: any[]) => string} buildTextTree
 * @property {(...args: any[]) => string} diffLines
 * @property {(...args: any[]) => string} writeSnapshotDocument
 */

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
  if (core.factsVersion() !== FACTS_VERSION) {
    throw messages.toolError("script_failed", "the tree core and the content script come from different builds", {
      hint: "Reload the extension.",
    });
  }
  return core;
}

/**
 * Runs one core call; a trap (a bug in the core) leaves the instance unusable, so the next
 * call asks for a fresh one.
 * @template T
 * @param {() => T} call
 * @returns {T}
 */
export function runCore(call) {
  try {
    return call();
  } catch (error) {
    corePromise = null;
    delete (/** @type {any} */ (globalThis).allwrightAxCore);
    throw messages.toolError("script_failed", `the tree core failed: ${describe(error)}`);
  }
}

/**
 * Splits a core output into its JSON envelope and its raw body (crates/allwright-ax-wasm/src/api.rs).
 * @param {string} output
 * @returns {{envelope: any, body: string}}
 */
export function splitOutput(output) {
  const end = output.indexOf("\n");
  const envelope = JSON.parse(end < 0 ? output : output.slice(0, end));
  if (envelope.ok !== true) throw envelope.error;
  return { envelope, body: end < 0 ? "" : output.slice(end + 1) };
}

/**
 * A thrown value's text, for a `script_failed` message.
 * @param {unknown} error
 */
export function describe(error) {
  return error instanceof Error ? error.message || error.name : String(error);
}
