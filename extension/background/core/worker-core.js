// @ts-check
// The tree core in Chromium's service worker (docs/protocol/core.md, "The core in the service
// worker"): for frames whose page CSP forbids WASM in their content script, the content script
// gathers the facts, packs them (content/tree/packed-facts.js) and sends each core call here;
// the WASM core runs on them and the output goes back to that frame alone, as the reply to its
// own message.
//
// The module is compiled once per start of the worker (WebAssembly.compileStreaming of the
// extension's own file, whose compiled code V8 also caches across starts) and instantiated, when
// an agent session starts or else on the first call; a stopped worker starts again on the next
// message and does the same. The
// extension's CSP (MV3's default, `script-src 'self' 'wasm-unsafe-eval'`) allows this; a page's
// CSP has no say here.
//
// Everything a call carries comes from a content script that a hostile page may have fed
// anything: the options are checked here one by one, the bytes are read by the core's own
// total decoder (crates/allwright-ax-wasm/src/packed.rs), and the worker does nothing with a
// call but run one pure core function: no state of one call reaches another, and a trap
// throws the instance away.

import { api, BROWSER, messages } from "../platform.js";
import { CALL_TIMING } from "../build-config.js";
import { timingNow } from "../host/call-timing.js";
import { LINE_RECORD_WIDTH, lineLengths, packLineRecords } from "../../shared/line-records.js";
import * as core from "../../generated/ax-core-worker.js";

/** The module file scripts/build-wasm writes (the same module as the page-side WASM core). */
const CORE_MODULE_FILE = "generated/ax-core.wasm";

/**
 * The most line records one call may ask for: five numbers per node of the largest read
 * (MAX_READ_NODES, content/accessibility-tree.js) and its ancestors' lines, with room.
 */
const MAX_RECORD_CAPACITY = 5 * 250_000;

/** The records of a reply that has none (a diff, a snapshot, a failed read). */
const NO_RECORDS = new Uint8Array(0);

/** @type {Promise<WebAssembly.Module> | null} */
let compiledModule = null;
/** Whether the glue holds a live instance (false at start and after a trap). */
let instantiated = false;

/**
 * The compiled module, compiled on first use after each start of the worker.
 * @returns {Promise<WebAssembly.Module>}
 */
function compileCore() {
  compiledModule ??= WebAssembly.compileStreaming(fetch(api.runtime.getURL(CORE_MODULE_FILE))).catch((error) => {
    compiledModule = null;
    throw error;
  });
  return compiledModule;
}

/**
 * Compiles and instantiates the core as soon as an agent session exists (the native host said
 * so), so that the first strict-CSP document of a session does not pay the compilation
 * (docs/performance/warm-read.md, "The read sent the instant `navigate` returns"). Chromium only: the
 * worker runs the core there alone. Never at the browser's start without an agent: a browser no
 * agent uses compiles nothing.
 */
export function prepareWorkerCoreForSession() {
  if (BROWSER !== "chrome") return;
  prepareWorkerCore()
    .then(warmUpWorkerCore)
    .catch(() => {
      // Only a head start: the first call that needs the core compiles it again and reports.
    });
}

/**
 * Reads of the core's built-in page when a session starts (crates/allwright-ax-wasm/src/
 * warm_up.rs), through `buildTextTreePacked` as real calls read: V8 runs a fresh module's
 * functions in its baseline tier and optimises those that run hot, so the session's first
 * strict-CSP read would otherwise run on baseline code (the first read of a 10k page measured
 * about four times the later ones), its packed decoder and this glue included. About 40 ms each.
 */
const WARM_UP_ROUNDS = 3;

/**
 * The generated-content reader of the warm-up's reads: of the same kind as real calls pass, so
 * that the warm-up runs the code they run (crates/allwright-ax-wasm/src/warm_up.rs); the
 * built-in page asks it nothing.
 */
const NO_GENERATED_CONTENT = pseudoReader([]);

/**
 * Reads the built-in page WARM_UP_ROUNDS times, then compares a read of it with itself after a
 * small change as many times (a `since` read's comparison, `warmUpComparison`), one call
 * per task.
 */
async function warmUpWorkerCore() {
  /** @type {{strings: string, packed: Uint8Array, records: Uint32Array} | null} */
  let call = null;
  let output = "";
  for (let round = 0; round < WARM_UP_ROUNDS; round += 1) {
    // A task of its own for each read: a message that arrives meanwhile (the agent's call, a
    // frame's core call) waits for one read at most, not for the whole warm-up.
    await new Promise((resolve) => setTimeout(resolve, 0));
    if (!instantiated) return;
    try {
      call ??= builtInPageCall();
      output = core.buildTextTreePacked(call.strings, call.packed, {
        pseudo: NO_GENERATED_CONTENT,
        page: 1,
        refCounter: 0,
        url: "about:blank",
        title: "A built-in page",
        lineRecords: call.records,
      });
      // The built-in page always reads; a refusal would be a bug of the core, which a real
      // call reports. Only the optimisation is wanted here, never the output.
      if (!output.startsWith('{"ok":true')) return;
    } catch {
      // A trap: as for a real call, the next call gets a fresh instance.
      instantiated = false;
      return;
    }
  }
  for (let round = 0; round < WARM_UP_ROUNDS && call !== null; round += 1) {
    await new Promise((resolve) => setTimeout(resolve, 0));
    if (!instantiated) return;
    try {
      if (!core.warmUpComparison(call.records, output)) return;
    } catch {
      instantiated = false;
      return;
    }
  }
}

/** The built-in page as a packed call (the core's WarmUpCall), with room for its line records. */
function builtInPageCall() {
  const page = new core.WarmUpCall();
  try {
    return { strings: page.strings, packed: page.packed, records: new Uint32Array(page.recordCapacity) };
  } finally {
    page.free();
  }
}

/**
 * Compiles and instantiates the core if it is not yet, and answers the facts version it reads.
 * load-core.js waits for this before it tells a frame to use the worker, so that a frame is sent
 * here only once the worker can run its calls; a failure there falls back to the JS core.
 * @returns {Promise<number>}
 */
export async function prepareWorkerCore() {
  const module = await compileCore();
  if (!instantiated) {
    core.initSync({ module });
    instantiated = true;
  }
  return core.factsVersion();
}

/**
 * Answers one `allwright/core-call` (messages.isCoreCallRequest has checked its shape).
 * @param {CoreCallRequest} request
 * @param {chrome.runtime.MessageSender} sender
 * @returns {Promise<CoreCallReply>}
 */
export async function runWorkerCore(request, sender) {
  const workerReceived = CALL_TIMING ? timingNow() : 0;
  if (sender.tab?.id === undefined || sender.frameId === undefined) {
    return { ok: false, error: messages.toolError("script_failed", "a core call came from outside a tab's frame") };
  }
  const packed = request.packed;
  const pseudo = pseudoReader(request.pseudo);
  if (pseudo === null) {
    return { ok: false, error: messages.toolError("script_failed", "malformed generated content in a core call") };
  }
  try {
    await prepareWorkerCore();
  } catch (error) {
    return {
      ok: false,
      error: messages.toolError(
        "script_failed",
        `the tree core could not start in the service worker: ${describe(error)}`,
      ),
    };
  }
  const options = request.options;
  try {
    switch (request.operation) {
      case "buildTextTree": {
        const capacity = Math.min(request.recordCapacity, MAX_RECORD_CAPACITY);
        const records = new Uint32Array(capacity);
        const workerDecoded = CALL_TIMING ? timingNow() : 0;
        // The scalar fields of the content script's TextTreeCall, checked; its facts and lists
        // are in `packed` (content/tree/core-loading.js, bindings.rs `buildTextTreePacked`).
        const output = core.buildTextTreePacked(request.strings, packed, {
          pseudo,
          filter: optionalString(options.filter),
          maxDepth: optionalNumber(options.maxDepth),
          maxChars: optionalNumber(options.maxChars),
          anchor: optionalNumber(options.anchor),
          anchorRef: optionalString(options.anchorRef),
          page: number(options.page, 1),
          refCounter: number(options.refCounter, 0),
          url: string(options.url),
          title: string(options.title),
          lineRecords: records,
          depthOffset: optionalNumber(options.depthOffset),
        });
        const workerCoreDone = CALL_TIMING ? timingNow() : 0;
        const lineCount = printedLineCount(output);
        const recordsSent = recordsToSend(lineCount, records);
        const diff = diffAfterPart(output, lineCount, records, options.diffAfter);
        const diffField = diff === undefined ? {} : { diff };
        // The call-timing build's stamps (content/tree/read-timing.js); none otherwise.
        if (CALL_TIMING) {
          const timing = { workerReceived, workerDecoded, workerCoreDone, workerReplied: timingNow() };
          return { ok: true, output, records: recordsSent, ...diffField, timing };
        }
        return { ok: true, output, records: recordsSent, ...diffField };
      }
      case "diffLines": {
        const workerDecoded = CALL_TIMING ? timingNow() : 0;
        const changes = options.changes;
        if (!(changes instanceof Uint8Array)) {
          return { ok: false, error: messages.toolError("script_failed", "a diff call without its changes") };
        }
        const output = core.diffLinesPacked(packed, changes, optionalNumber(options.maxChars));
        if (CALL_TIMING) {
          const timing = { workerReceived, workerDecoded, workerCoreDone: timingNow(), workerReplied: timingNow() };
          return { ok: true, output, records: NO_RECORDS, timing };
        }
        return { ok: true, output, records: NO_RECORDS };
      }
      case "writeSnapshotDocument":
        return {
          ok: true,
          output: core.writeSnapshotDocumentPacked(
            request.strings,
            packed,
            pseudo,
            string(options.format),
            string(options.contextId),
            optionalString(options.parentContextId),
            string(options.url),
            string(options.title),
            optionalString(options.aiPrefix),
            number(options.aiCounter, 0),
            string(options.knownAria),
          ),
          records: NO_RECORDS,
        };
      default:
        return { ok: false, error: messages.toolError("script_failed", "unknown core operation") };
    }
  } catch (error) {
    // A trap (a bug in the core): its memory may be half-written, so the next call gets a
    // fresh instance of the same compiled module.
    instantiated = false;
    return { ok: false, error: messages.toolError("script_failed", `the tree core failed: ${describe(error)}`) };
  }
}

/**
 * The records the core wrote, cut to the lines it printed (the envelope's `lineCount`), packed
 * (shared/line-records.js); none when the call failed or wrote none.
 * @param {number} lineCount the output's (printedLineCount)
 * @param {Uint32Array} records
 */
function recordsToSend(lineCount, records) {
  if (records.length === 0 || lineCount === 0) return NO_RECORDS;
  return packLineRecords(records, lineCount);
}

/**
 * The envelope's `lineCount` of a tree output: how many lines the core printed and wrote records
 * for; 0 when the call failed.
 * @param {string} output
 */
function printedLineCount(output) {
  const end = output.indexOf("\n");
  try {
    const envelope = JSON.parse(end < 0 ? output : output.slice(0, end));
    return envelope.ok === true && Number.isSafeInteger(envelope.lineCount) ? envelope.lineCount : 0;
  } catch {
    return 0;
  }
}

/**
 * The diff of a `since` read whose one changed part this call just read (`options.diffAfter`,
 * content/tree/worker-core-client.js): the part's lines replace the snapshot's lines `start` to
 * `end`, and the core compares (crates/allwright-ax-wasm/src/api.rs, `snapshot_changes_output`),
 * in this same call rather than in a second trip from the page. Undefined when the option is
 * absent or malformed, or the part's read failed: the content script then asks for the diff
 * itself, or reads the whole page.
 * @param {string} output the part's tree output
 * @param {number} lineCount its printed lines (printedLineCount)
 * @param {Uint32Array} records its line records
 * @param {unknown} diffAfter
 * @returns {string | undefined}
 */
function diffAfterPart(output, lineCount, records, diffAfter) {
  if (typeof diffAfter !== "object" || diffAfter === null) return undefined;
  const { snapshot, start, end, maxChars } = /** @type {Record<string, unknown>} */ (diffAfter);
  if (!(snapshot instanceof Uint8Array) || !isLineNumber(start) || !isLineNumber(end)) return undefined;
  const newline = output.indexOf("\n");
  const body = newline < 0 ? "" : output.slice(newline + 1);
  const lines = body === "" ? [] : body.split("\n");
  if (lines.length !== lineCount || lineCount * LINE_RECORD_WIDTH > records.length) return undefined;
  return core.diffLinesAfterPart(
    snapshot,
    Uint32Array.of(start, end, lineCount),
    records.subarray(0, lineCount * LINE_RECORD_WIDTH),
    // Unicode scalars, as the content script counts the snapshot's lines.
    lineLengths(lines),
    optionalNumber(maxChars),
  );
}

/**
 * @param {unknown} value
 * @returns {value is number}
 */
function isLineNumber(value) {
  return Number.isSafeInteger(value) && /** @type {number} */ (value) >= 0 && /** @type {number} */ (value) < 2 ** 32;
}

/**
 * The core's `{read(node, after)}` over contents the content script resolved in the page, or
 * null when they are malformed. Keys are `node * 2 + (after ? 1 : 0)`.
 * @param {unknown[]} entries
 */
function pseudoReader(entries) {
  /** @type {Map<number, string>} */
  const contents = new Map();
  for (const entry of entries) {
    if (!Array.isArray(entry) || entry.length !== 2) return null;
    const [key, content] = entry;
    if (!Number.isSafeInteger(key) || key < 0 || typeof content !== "string") return null;
    contents.set(key, content);
  }
  return {
    /**
     * @param {number} node
     * @param {boolean} after
     */
    read: (node, after) => contents.get(node * 2 + (after ? 1 : 0)) ?? null,
  };
}

/** @param {unknown} value */
function optionalString(value) {
  return typeof value === "string" ? value : undefined;
}

/** @param {unknown} value */
function optionalNumber(value) {
  return Number.isSafeInteger(value) &&
    /** @type {number} */ (value) >= 0 &&
    /** @type {number} */ (value) <= 0xffffffff
    ? /** @type {number} */ (value)
    : undefined;
}

/**
 * @param {unknown} value
 * @param {number} fallback
 */
function number(value, fallback) {
  return optionalNumber(value) ?? fallback;
}

/** @param {unknown} value */
function string(value) {
  return typeof value === "string" ? value : "";
}

/** @param {unknown} error */
function describe(error) {
  return error instanceof Error ? error.message || error.name : String(error);
}
