// @ts-check
// The tree core of a Chromium frame whose page CSP forbids WASM in this content script: the same
// calls as an injected core (tree/core-loading.js, AxCore), but each one packs its arguments
// (tree/packed-facts.js), resolves the `::before`/`::after` content the core may ask for here in
// the page (the core cannot call back into the page from the service worker), sends them to the
// service worker (background/core/worker-core.js) and answers the output the WASM core wrote there.
// The line records come back too, packed (shared/line-records.js), and are written into the
// caller's array, as the injected core writes them; references are mapped back to elements by
// the caller, as for every core.

import "../../shared/messages.js";
import { LINE_RECORD_WIDTH, unpackLineRecords } from "../../shared/line-records.js";
import { PackedWriter } from "./packed-facts.js";
import { currentReadTiming } from "./read-timing.js";
import {
  GENERATED_CONTENT_POSSIBLE,
  KIND_ELEMENT,
  KIND_MASK,
  NODE_STRIDE,
} from "../../shared/generated/fact-layout.js";

const messages = globalThis.allwrightMessages;

/**
 * The worker-backed core.
 * @param {number} factsVersion the worker core's, from the load-core answer
 * @returns {import("./core-loading.js").AxCore}
 */
export function workerCore(factsVersion) {
  return coreSendingBy(factsVersion, sendToServiceWorker);
}

/**
 * The core API over one way of delivering its calls: to the service worker, or, for a read
 * handed to the background (tree/core-hand-off.js), to a carrier that gives the call away and
 * answers what comes back. Either answer is checked here alike.
 * @param {number} factsVersion
 * @param {(request: CoreCallRequest) => Promise<unknown>} send
 * @returns {import("./core-loading.js").AxCore}
 */
function coreSendingBy(factsVersion, send) {
  const call = (/** @type {CoreCallRequest} */ request) => checkedReply(send(request));
  return Object.freeze({
    flavour: /** @type {const} */ ("wasm"),
    engine: /** @type {const} */ ("wasm-worker"),
    ready: Promise.resolve(),
    factsVersion: () => factsVersion,
    // The arguments of the injected core's functions (bindings.rs), after the call.
    buildTextTree: (/** @type {import("./core-loading.js").TextTreeCall} */ treeCall) => buildTextTree(call, treeCall),
    diffLines: (/** @type {any[]} */ ...args) => /** @type {any} */ (diffLines)(call, ...args),
    writeSnapshotDocument: (/** @type {any[]} */ ...args) => /** @type {any} */ (writeSnapshotDocument)(call, ...args),
    handedOffTo: (/** @type {(request: CoreCallRequest) => Promise<unknown>} */ carrier) =>
      coreSendingBy(factsVersion, carrier),
  });
}

/**
 * `buildTextTree` with the injected core's one argument (core-loading.js, TextTreeCall): the
 * facts and lists are packed, the scalar fields sent as they are, the records written back into
 * `lineRecords`. When `diffAfter` is given (the read of a `since` read's one changed part), the
 * service worker compares the part with the snapshot in the same trip, and the answer is written
 * into `diffAfter.answer` (bindings.rs `diffLinesAfterPart`).
 * @param {CoreCall} call
 * @param {import("./core-loading.js").TextTreeCall} treeCall
 * @returns {Promise<string>}
 */
async function buildTextTree(call, treeCall) {
  const { strings, stringLengths, nodes, attributes, rects, slots, viewport, pseudo } = treeCall;
  const { filter, maxDepth, maxChars, anchor, anchorRef, page, refCounter, url, title } = treeCall;
  const { depthOffset, diffAfter } = treeCall;
  const knownRefs = treeCall.knownRefs ?? new Uint32Array(0);
  const frameIds = treeCall.frameIds ?? new Float64Array(0);
  const identities = treeCall.identities ?? new Uint32Array(0);
  const lineRecords = treeCall.lineRecords ?? new Uint32Array(0);
  const previousLines = treeCall.previousLines;
  const timing = currentReadTiming();
  const writer = new PackedWriter(nodes.length * 2 + stringLengths.length * 2 + 64);
  writer.facts({ stringLengths, nodes, attributes, rects, slots, viewport });
  writer.pairDifferenceList(knownRefs);
  writer.f64List(frameIds);
  writer.differenceList(identities);
  writer.optionalU32List(previousLines);
  const request = messages.coreCallRequest(
    "buildTextTree",
    strings,
    writer.written(),
    resolvedGeneratedContent(nodes, pseudo),
    {
      filter,
      maxDepth,
      maxChars,
      anchor,
      anchorRef,
      page,
      refCounter,
      url,
      title,
      depthOffset,
      diffAfter:
        diffAfter === undefined
          ? undefined
          : {
              snapshot: packedSnapshot(diffAfter.previous, diffAfter.previousLengths, [
                diffAfter.start,
                diffAfter.end,
                0,
              ]),
              start: diffAfter.start,
              end: diffAfter.end,
              maxChars: diffAfter.maxChars,
            },
    },
    lineRecords.length,
  );
  timing?.mark("workerPacked");
  const reply = await call(request);
  timing?.mark("workerAnswered");
  if (timing !== null && reply.timing !== undefined) Object.assign(timing.stamps, reply.timing);
  if (reply.records.length > 0 && unpackLineRecords(reply.records, lineRecords) < 0) {
    throw messages.toolError("script_failed", "the tree core in the service worker answered malformed line records");
  }
  if (diffAfter !== undefined && typeof reply.diff === "string") diffAfter.answer = reply.diff;
  return reply.output;
}

/**
 * `diffLines` (bindings.rs), packed as `diffLinesPacked` reads it: the snapshot's side
 * (packedSnapshot) and the changes (the runs, the re-read lines' records and lengths).
 * @param {CoreCall} call
 * @param {Uint32Array} previous the snapshot's records
 * @param {Uint32Array} previousLengths its lines' lengths
 * @param {Uint32Array} replaced `start, end, count` triples
 * @param {Uint32Array} replacement the records of the re-read lines
 * @param {Uint32Array} replacementLengths their lengths
 * @param {number | undefined} maxChars
 * @returns {Promise<string>}
 */
async function diffLines(call, previous, previousLengths, replaced, replacement, replacementLengths, maxChars) {
  const changes = new PackedWriter(replaced.length * 2 + replacement.length * 3 + replacementLengths.length * 2 + 16);
  changes.u32List(replaced);
  changes.u32List(replacement);
  changes.u32List(replacementLengths);
  const timing = currentReadTiming();
  const request = messages.coreCallRequest(
    "diffLines",
    "",
    packedSnapshot(previous, previousLengths, replaced),
    [],
    { maxChars, changes: changes.written() },
    0,
  );
  timing?.mark("diffPacked");
  const reply = await call(request);
  if (timing !== null && reply.timing !== undefined) Object.assign(timing.stamps, reply.timing);
  return reply.output;
}

/**
 * The snapshot's side of a diff, as the packed lists `snapshot_changes_output` reads
 * (crates/allwright-ax-wasm/src/api.rs): the records as three columns (identities, depth words,
 * references), the lines' lengths, and the hashes of the lines inside the replaced runs only,
 * which is all the comparison needs of them (api.rs says why). On a 10k element page that is
 * five to seven bytes a line, about 50 KB, where the whole records and the printed
 * lines were 660 KB (docs/performance/strict-csp.md, "Reads since a snapshot in the service worker").
 * @param {Uint32Array} previous the snapshot's records
 * @param {Uint32Array} previousLengths its lines' lengths
 * @param {ArrayLike<number>} replaced `start, end, count` triples (the counts are not read)
 */
function packedSnapshot(previous, previousLengths, replaced) {
  const lineCount = Math.floor(previous.length / LINE_RECORD_WIDTH);
  const identities = new Uint32Array(lineCount);
  const depthWords = new Uint32Array(lineCount);
  const references = new Uint32Array(lineCount);
  for (let line = 0, record = 0; line < lineCount; line += 1, record += LINE_RECORD_WIDTH) {
    identities[line] = previous[record];
    depthWords[line] = previous[record + 1];
    references[line] = previous[record + 4];
  }
  /** @type {number[]} */
  const replacedHashes = [];
  for (let triple = 0; triple + 2 < replaced.length; triple += 3) {
    const end = Math.min(replaced[triple + 1], lineCount);
    for (let line = replaced[triple]; line < end; line += 1) {
      replacedHashes.push(previous[line * LINE_RECORD_WIDTH + 2], previous[line * LINE_RECORD_WIDTH + 3]);
    }
  }
  const writer = new PackedWriter(lineCount * 7 + replacedHashes.length * 5 + 64);
  writer.differenceList(identities);
  writer.u32List(depthWords);
  writer.differenceList(references);
  writer.u32List(previousLengths);
  writer.u32List(replacedHashes);
  return writer.written();
}

/**
 * `writeSnapshotDocument` (bindings.rs).
 * @param {CoreCall} call
 * @param {string} strings
 * @param {Uint32Array} stringLengths
 * @param {Uint32Array} nodes
 * @param {Uint32Array} attributes
 * @param {Float64Array} rects
 * @param {Uint32Array} slots
 * @param {Float64Array} viewport
 * @param {{read(node: number, after: boolean): string | null}} pseudo
 * @param {string} format
 * @param {string} contextId
 * @param {string | undefined} parentContextId
 * @param {string} url
 * @param {string} title
 * @param {string | undefined} aiPrefix
 * @param {number} aiCounter
 * @param {Uint32Array} knownAriaNodes
 * @param {string} knownAria
 * @returns {Promise<string>}
 */
async function writeSnapshotDocument(
  call,
  strings,
  stringLengths,
  nodes,
  attributes,
  rects,
  slots,
  viewport,
  pseudo,
  format,
  contextId,
  parentContextId,
  url,
  title,
  aiPrefix,
  aiCounter,
  knownAriaNodes,
  knownAria,
) {
  const writer = new PackedWriter(nodes.length * 2 + stringLengths.length * 2 + 64);
  writer.facts({ stringLengths, nodes, attributes, rects, slots, viewport });
  writer.u32List(knownAriaNodes);
  const reply = await call(
    messages.coreCallRequest(
      "writeSnapshotDocument",
      strings,
      writer.written(),
      resolvedGeneratedContent(nodes, pseudo),
      { format, contextId, parentContextId, url, title, aiPrefix, aiCounter, knownAria },
      0,
    ),
  );
  return reply.output;
}

/**
 * The `::before`/`::after` content of every element the gatherer flagged as possibly having
 * some (facts.js, GENERATED_CONTENT_POSSIBLE), read here in the page with the same reader the
 * injected core calls back into, as `[node * 2 + after, content]`. The core asks for a subset
 * of these only (names from content); reading them all up front costs a style resolution per
 * flagged pseudo-element, which on most pages is a few elements.
 * @param {Uint32Array} nodes
 * @param {{read(node: number, after: boolean): string | null}} pseudo
 * @returns {Array<[number, string]>}
 */
function resolvedGeneratedContent(nodes, pseudo) {
  /** @type {Array<[number, string]>} */
  const entries = [];
  for (let offset = 0, node = 0; offset < nodes.length; offset += NODE_STRIDE, node += 1) {
    const flags = nodes[offset];
    if ((flags & KIND_MASK) !== KIND_ELEMENT || (flags & GENERATED_CONTENT_POSSIBLE) === 0) continue;
    for (const after of [false, true]) {
      const content = pseudo.read(node, after);
      if (content !== null) entries.push([node * 2 + (after ? 1 : 0), content]);
    }
  }
  return entries;
}

/**
 * Delivers one core call and answers the core's checked reply.
 * @typedef {(request: CoreCallRequest) => Promise<{ok: true, output: string, records: Uint8Array, diff?: string, timing?: Record<string, number>}>} CoreCall
 */

/**
 * Sends one call to the service worker. A worker stopped between calls is started again by the
 * message itself; one stopped while it ran this call closes the reply channel, and the call is
 * sent once more (the core is stateless: the same call gives the same answer).
 * @param {CoreCallRequest} request
 * @returns {Promise<unknown>}
 */
async function sendToServiceWorker(request) {
  const scope = /** @type {any} */ (globalThis);
  const extension = scope.browser ?? scope.chrome;
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await extension.runtime.sendMessage(request);
    } catch (error) {
      if (attempt >= 2) {
        throw messages.toolError(
          "script_failed",
          `the tree core in the service worker did not answer: ${error instanceof Error ? error.message : String(error)}`,
        );
      }
    }
  }
}

/**
 * The worker core's reply once checked: a failure it answered is thrown as the tool error it is.
 * @param {Promise<unknown>} answer
 * @returns {Promise<{ok: true, output: string, records: Uint8Array, diff?: string, timing?: Record<string, number>}>}
 */
async function checkedReply(answer) {
  const reply = await answer;
  if (!messages.isCoreCallReply(reply)) {
    throw messages.toolError("script_failed", "the service worker answered a core call with something else");
  }
  const checked = /** @type {CoreCallReply} */ (reply);
  if (checked.ok === false) throw checked.error;
  return checked;
}
