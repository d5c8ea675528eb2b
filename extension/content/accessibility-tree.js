// @ts-check
// The tree side of the content script (imported by the router, content/content.js, which
// scripts/build-extension.mjs bundles): `get_accessibility_tree` and `snapshot_document` of
// docs/protocol/channels.md, section 3, and the helpers the action tools use (`accessibilityTree()`).
//
// It runs in the content script's isolated world and never in the page's: the registry, the
// gatherer and the core live on this world's `window`, which page scripts cannot see. The only
// trace it leaves in the page is the `aria-ref` attribute of "ai" snapshots (ARCHITECTURE.md,
// "Invariants"). Each job has its module: tree/facts.js (gathering), tree/generated-content.js,
// tree/registry.js (refs), tree/ai-refs.js, tree/core-loading.js, tree/printed-refs.js (what
// the agent read), tree/ref-descriptions.js (an action's target as the agent read it) and
// tree/snapshot-document.js (one document of the structured snapshot); the last two are shared
// with the WebDriver BiDi bundle, surface/bidi-snapshot.js.

import "../shared/messages.js";
import { gatherFacts } from "./tree/facts.js";
import {
  documentToken,
  installRegistry,
  lookup,
  refCounter,
  refNotFound,
  registerNewRefs,
  resolveRef,
  suggest,
  sweep,
} from "./tree/registry.js";
import { describe, engineFallback, engineOf, loadCore, runCore } from "./tree/core-loading.js";
import { splitOutput, treeResultOf } from "../shared/tree-result.js";
import { answerHandedOffRead, startHandOff } from "./tree/core-hand-off.js";
import { factFields, writeSnapshotDocument } from "./tree/snapshot-document.js";
import { printedRefsOf, rememberChanges, rememberRead } from "./tree/printed-refs.js";
import { refDescriptions } from "./tree/ref-descriptions.js";
import {
  identitiesOf,
  keepSnapshot,
  LINE_RECORD_WIDTH,
  reserveSnapshotId,
  linePositions,
  LINE_OVERLAY_BIT,
  readKeyOf,
  snapshotToCompare,
} from "./tree/snapshots.js";
import {
  changedParts,
  forgetWhatChanged,
  markPartsRead,
  markRead,
  REFERENCE_ATTRIBUTE_NAMES,
  watchChanges,
} from "./tree/changed-parts.js";
import { currentReadTiming, startReadTiming } from "./tree/read-timing.js";
import { childFrameIdsOf, isFrameElement } from "./dom/frame-elements.js";
import { lineLength, lineLengths } from "../shared/line-records.js";
import { thrownToolError } from "../shared/thrown.js";
import { LONGEST_TEXT_READ, MAX_READ_NODES, PAGE_CUT_NOTICE } from "./tree/read-limits.js";

const messages = globalThis.allwrightMessages;

/**
 * @typedef {{filter?: "all"|"visible"|"interactive", maxDepth?: number, maxChars?: number,
 *   ref_id?: string, page?: number, since?: string, refFloor?: number, childFrames?: ChildFrame[],
 *   coreHandOff?: boolean}}
 *   TreeArguments validated by the background (tool contract); an absent filter or maxDepth takes
 *   the core's default (direct callers: tests, benchmarks). `refFloor` is the highest ref number
 *   the tab handed out in any frame, and `childFrames` this frame's children (docs/protocol/frames.md,
 *   "Frames"). `since` is a snapshotId of an earlier read (docs/protocol/reading.md, "Reads since a
 *   snapshot"). `coreHandOff`: the background may finish the read (tree/core-hand-off.js).
 */

/**
 * The `get_accessibility_tree` result of docs/protocol.md. The arguments passed the background's
 * validation (extension/background/tools/validate.js) and carry its defaults. `afterTheReply`, given
 * by the content router, takes work the read leaves until its reply has been sent (ReadOptions).
 * @param {TreeArguments} args
 * @param {(task: () => void) => void} [afterTheReply]
 */
async function generateAccessibilityTree(args, afterTheReply) {
  const options = { remember: true, keepSnapshot: true, afterTheReply };
  if (args.coreHandOff !== true) return (await buildTree(args, options)).result;
  // The background takes the read's core call if the core runs in the service worker
  // (tree/core-hand-off.js): the answer is then that call, and the read goes on when the
  // background sends the core's output back (answerHandedOffRead). Any other read ends here.
  const { handOff, handedOff, track } = startHandOff();
  const reading = buildTree(args, { ...options, handOff });
  track(reading);
  // A failure after the hand-off is the answer's to report; this keeps it from also counting
  // as unhandled here.
  reading.catch(() => {});
  return await Promise.race([reading.then(({ result }) => result), handedOff.then((coreHandOff) => ({ coreHandOff }))]);
}

/**
 * One tree read. `remember: false` is a read the agent never sees (an action checking its
 * target), which must not push the agent's own reads out of the kept ones (tree/printed-refs.js).
 * `keepSnapshot: false`: the action tools' own reads keep no snapshot either (the agent never
 * sees their ids, and they would push its snapshots out).
 * `handOff`: the carrier of a read the background may finish (generateAccessibilityTree).
 * @param {TreeArguments} args
 * @param {ReadOptions} options
 * @returns {Promise<{result: Record<string, unknown>, printed: import("./tree/printed-refs.js").PrintedRef[]}>}
 */
async function buildTree(args, options) {
  readsStarted += 1;
  return oneReadAtATime(async () => {
    try {
      return await readTree(args, options);
    } finally {
      announceReadEnd();
    }
  });
}

/**
 * `afterTheReply`: the content router runs the tasks given to it right after it sent the read's
 * reply, in the same task (the reply is sent by microtasks only), so that the page has still not
 * run: a read handed to the background leaves there the bookkeeping its core call does not need.
 * @typedef {{remember: boolean, keepSnapshot: boolean,
 *   handOff?: import("./tree/core-hand-off.js").ReadHandOff,
 *   afterTheReply?: (task: () => void) => void}} ReadOptions
 * @typedef {import("../shared/tree-result.js").TreeReadPrepared} TreeReadPrepared
 */

/** The end of the last read queued in this frame (oneReadAtATime). */
let readsQueued = Promise.resolve();

/**
 * Runs reads one after the other. A read hands out reference numbers between its start and
 * its registration; with an injected core that span is synchronous, but the service worker's
 * core (tree/worker-core-client.js) answers asynchronously, and a second read started meanwhile
 * would hand out the same numbers.
 * @template T
 * @param {() => Promise<T>} read
 * @returns {Promise<T>}
 */
function oneReadAtATime(read) {
  const turn = readsQueued.then(read);
  readsQueued = turn.then(
    () => undefined,
    () => undefined,
  );
  return turn;
}

/**
 * The read itself (see buildTree). A read of the whole frame goes between the notices that tell
 * the background this frame is busy reading (announceRead).
 * @param {TreeArguments} args
 * @param {ReadOptions} options
 * @returns {Promise<{result: Record<string, unknown>, printed: import("./tree/printed-refs.js").PrintedRef[]}>}
 */
async function readTree(args, options) {
  const { filter, maxDepth } = args;
  const withSnapshot = options.keepSnapshot;
  const readKey = readKeyOf(args);
  const compared =
    args.since === undefined || args.since === null ? null : snapshotToCompare(args.since, readKey, args.page ?? 1);
  const refId = args.ref_id ?? undefined;
  const timing = startReadTiming();
  timing?.mark("readStart");

  const core = await loadCore();
  // From here to the registration below, no other read of this frame runs
  // (oneReadAtATime): none can interleave and hand out the same numbers.
  timing?.mark("coreLoaded");
  // The registry's entries whose element was collected are dropped once the reply has gone,
  // when the read has an after: a pass over every entry (about 2 ms at 10k refs, a tenth of a
  // read since a snapshot) that the read does not need, since a collected element's ref reads
  // as gone either way (docs/performance/warm-read.md, "Messages as structured clones").
  if (options.afterTheReply !== undefined) options.afterTheReply(sweep);
  else sweep();
  if (withSnapshot) watchChanges();
  timing?.mark("swept");
  if (compared !== null && "lines" in compared && compared.texts !== null) {
    const changes = await readChangedParts(core, args, readKey, compared.lines, compared.texts);
    // The parts read remembered their refs (rememberChanges); no caller asks for them here.
    if (changes !== null) {
      const stamps =
        timing === null ? {} : { timing: { ...timing.stamps, readEnd: performance.timeOrigin + performance.now() } };
      return { result: { ...changes, ...engineFields(core), ...stamps }, printed: [] };
    }
  }
  // A read of only the changed parts holds the thread for a few milliseconds, far below the
  // probes' patience; the notice is for the whole walk, and spares the others two messages.
  announceRead();
  const anchor = refId === undefined ? null : lookup(refId);
  if (refId !== undefined && anchor === null) throw refNotFound(refId);
  const gatherOptions = {
    anchor,
    withRefs: true,
    withAriaRefs: false,
    measureBoxes: filter === "visible",
    readPointerEvents: false,
    maxNodes: MAX_READ_NODES,
    longestText: LONGEST_TEXT_READ,
    referenceAttributes: withSnapshot ? REFERENCE_ATTRIBUTE_NAMES : undefined,
  };
  let facts = gatherFacts(gatherOptions);
  const pageCut = facts.cut;
  // On a page larger than one read, an anchor past the first nodes is read with its own subtree
  // and its ancestors only (names that refer outside it may then be missing: the notice says
  // the page was cut).
  if (facts.cut && anchor !== null && facts.anchorIndex < 0) facts = gatherFacts({ ...gatherOptions, scope: anchor });
  if (refId !== undefined && facts.anchorIndex < 0) throw refNotFound(refId);
  timing?.mark("gathered");
  // New references are numbered above every number the tab handed out in any of its frames, so
  // that a ref_N names one element of the whole tab (docs/protocol/frames.md, "Frames").
  const refFloor = args.refFloor ?? 0;
  const floor = Number.isSafeInteger(refFloor) && refFloor > 0 ? refFloor : 0;
  const counter = Math.max(refCounter(), floor);
  // The core writes the records of the tree's lines here: at most one line per gathered node.
  const lineRecords = new Uint32Array(withSnapshot ? facts.nodeList.length * LINE_RECORD_WIDTH : 0);
  // What the result reports besides the core's envelope, all known now: the background builds
  // the same result from it when it finishes a handed-off read (shared/tree-result.js).
  /** @type {TreeReadPrepared} */
  const prepared = {
    counter,
    document: documentToken(),
    url: document.URL,
    title: document.title,
    cutNotice: pageCut ? PAGE_CUT_NOTICE : null,
    sinceFields: compared !== null && "fullReason" in compared ? { full: true, fullReason: compared.fullReason } : {},
    // A cut read is no snapshot to compare with: what it left out would read as removed.
    snapshotId: withSnapshot && !pageCut ? reserveSnapshotId() : null,
    lineCapacity: lineRecords.length / LINE_RECORD_WIDTH,
    engine: engineFields(core),
  };
  // A whole read whose core runs in the service worker may be handed to the background; a
  // read of one ref stays here, where its "not found" error gets the nearby refs suggested.
  const handOff =
    options.handOff !== undefined && refId === undefined && core.handedOffTo !== undefined ? options.handOff : null;
  const callingCore =
    handOff === null
      ? core
      : /** @type {NonNullable<typeof core.handedOffTo>} */ (core.handedOffTo)((request) => {
          timing?.mark("handedOff");
          if (timing !== null) Object.assign(prepared, { timing: { ...timing.stamps } });
          return handOff.carry(request, prepared);
        });
  const coreCall = runCore(() =>
    callingCore.buildTextTree({
      ...factFields(facts),
      filter,
      maxDepth,
      maxChars: args.maxChars,
      anchor: refId === undefined ? undefined : facts.anchorIndex,
      anchorRef: refId,
      page: args.page ?? 1,
      knownRefs: facts.knownRefs,
      refCounter: counter,
      url: document.URL,
      title: document.title,
      frameIds: frameIdPairs(facts.nodeList, args.childFrames ?? []),
      identities: withSnapshot ? identitiesOf(facts.nodeList) : new Uint32Array(0),
      previousLines: compared !== null && "lines" in compared ? compared.lines : undefined,
      lineRecords,
    }),
  );
  timing?.mark("coreStarted");
  // The core call has run up to its first wait: the whole call for a core in this page, the
  // packing and the handing over or sending for the service worker's. Only this content
  // script's own code ran since the walk (no task boundary, and neither call changes the page),
  // so the page is as the walk read it: the state the change tracker records is this read's.
  // The walk's referrers cover the whole document unless it was cut or scoped. A read handed
  // to the background makes the record after its reply, which is its core call, has left, in
  // this same task: the record then overlaps the core's run in the service worker rather than
  // delaying it. Any other read makes it now (after an injected core's call, or while the
  // service worker runs a call sent to it).
  if (withSnapshot) {
    const referrers = pageCut ? null : facts.referrers;
    if (handOff !== null && options.afterTheReply !== undefined) options.afterTheReply(() => markRead(referrers));
    else markRead(referrers);
  }
  timing?.mark("marked");
  const output = await coreCall;
  timing?.mark("coreDone");
  /** @type {{envelope: any, body: string}} */
  let split;
  try {
    split = splitOutput(output);
  } catch (error) {
    const coreError = thrownToolError(error);
    if (coreError?.code === "ref_not_found" && refId !== undefined) {
      throw messages.toolError(coreError.code, coreError.message, {
        hint: coreError.hint,
        suggestions: suggest(refId, 5),
      });
    }
    throw error;
  }
  const { envelope, body } = split;
  const result = treeResultOf(envelope, body, prepared);
  registerNewRefs(facts.nodeList, envelope.newRefs, counter);
  const onlyChanges = envelope.result.full === false;
  const printed = printedRefsOf(envelope);
  if (options.remember && onlyChanges) rememberChanges(printed);
  else if (options.remember) rememberRead(printed);
  timing?.mark("registered");
  if (withSnapshot) pageHasShadowRoots = facts.shadowRootCount > 0;
  // The printed lines, kept for a later read of only the changed parts, when this read printed
  // every line uncut and nothing else (no overlay banner: the counts then differ). They stay
  // one string until a `since` read compares with them (tree/snapshots.js).
  const everyLine = !onlyChanges && result.pageCount === 1 && result.autoDegraded === false;
  if (prepared.snapshotId !== null) {
    keepSnapshot(readKey, lineRecords, envelope.lineCount, everyLine ? body : null, prepared.snapshotId);
  }
  if (timing !== null) result.timing = { ...timing.stamps, readEnd: performance.timeOrigin + performance.now() };
  return { result, printed };
}

/**
 * Where the read's core ran (`engine`, docs/protocol/core.md "The core in the service worker") and,
 * when it is the JS core because the service worker could not run the WASM one, why
 * (`engineFallback`).
 * @param {import("./tree/core-loading.js").AxCore} core
 * @returns {{engine: string, engineFallback?: string}}
 */
function engineFields(core) {
  const engine = engineOf(core);
  return engine === "js-page" && engineFallback !== undefined ? { engine, engineFallback } : { engine };
}

/**
 * Tells the background that this frame starts a read: its synchronous part holds the frame's
 * thread, and on a very large page the background's liveness probes then go unanswered for
 * seconds; the notice keeps that silence from reading as a prompt (background/frames/frames.js). Sent
 * without waiting: the message leaves before the read starts, and an answer is never expected.
 */
function announceRead() {
  readAnnounced = true;
  tellBackground(messages.readStartedNotice());
}

/** Tells the background that the read's synchronous part ended, if it was announced (see announceRead). */
function announceReadEnd() {
  if (!readAnnounced) return;
  readAnnounced = false;
  tellBackground(messages.readFinishedNotice());
}

/** Whether the read under way announced itself (reads run one at a time: oneReadAtATime). */
let readAnnounced = false;

/** @param {unknown} notice */
function tellBackground(notice) {
  const scope = /** @type {any} */ (globalThis);
  const extension = scope.browser ?? scope.chrome;
  try {
    Promise.resolve(extension.runtime.sendMessage(notice)).catch(() => {});
  } catch {
    // The extension is being reloaded: the read itself reports what fails.
  }
}

/** Whether the last whole read found open shadow roots, whose mutations are not observed. */
let pageHasShadowRoots = true;

/**
 * A read since the newest snapshot that re-reads only the parts that changed
 * (tree/changed-parts.js) and puts their lines into the snapshot's; null when it cannot, and the
 * whole read is then made as usual.
 * @param {import("./tree/core-loading.js").AxCore} core
 * @param {TreeArguments} args
 * @param {string} readKey
 * @param {Uint32Array} previous the snapshot's records
 * @param {string[]} previousTexts its printed lines
 * @returns {Promise<Record<string, unknown> | null>}
 */
async function readChangedParts(core, args, readKey, previous, previousTexts) {
  if ((args.filter ?? "all") !== "all" || (args.ref_id ?? undefined) !== undefined || pageHasShadowRoots) return null;
  // Lines under the overlays banner are printed apart from their place in the page.
  for (let position = 1; position < previous.length; position += LINE_RECORD_WIDTH) {
    if ((previous[position] & LINE_OVERLAY_BIT) !== 0) return null;
  }
  const positionOf = linePositions(previous);
  const parts = changedParts({ records: previous, texts: previousTexts, positionOf });
  currentReadTiming()?.mark("partsFound");
  if (parts === null) return null;
  // The parts are marked read now, before the first wait: the page's own tasks may run while
  // the core works (the service worker's core answers asynchronously), and what they change
  // must count as changed for the next read, not be forgotten with what this read re-reads
  // (tree/changed-parts.js). A read that then keeps no snapshot makes the next one whole.
  markPartsRead(parts);
  let kept = false;
  try {
    const changes =
      parts.length === 0
        ? await nothingChanged(core, args, readKey, previous, previousTexts)
        : await readParts(core, args, readKey, previous, previousTexts, parts);
    kept = changes !== null;
    return changes;
  } finally {
    if (!kept) forgetWhatChanged();
  }
}

/**
 * The changed parts re-read, their lines put into the snapshot's and compared with it
 * (readChangedParts); null when the whole page must be read instead.
 * @param {import("./tree/core-loading.js").AxCore} core
 * @param {TreeArguments} args
 * @param {string} readKey
 * @param {Uint32Array} previous the snapshot's records
 * @param {string[]} previousTexts its printed lines
 * @param {import("./tree/changed-parts.js").ChangedPart[]} parts
 * @returns {Promise<Record<string, unknown> | null>}
 */
async function readParts(core, args, readKey, previous, previousTexts, parts) {
  const maxDepth = args.maxDepth ?? 15;
  const refFloor = args.refFloor ?? 0;
  const floor = Number.isSafeInteger(refFloor) && refFloor > 0 ? refFloor : 0;
  const firstCounter = Math.max(refCounter(), floor);
  /** @type {Uint32Array[]} The records after the last part, then each part, backwards. */
  const pieces = [];
  /** @type {Uint32Array[]} Each part's records, backwards. */
  const partRecords = [];
  /** @type {number[][]} Each part's `[start, end, count]` (its lines in the snapshot, its line count now), backwards. */
  const runs = [];
  /** @type {number[][]} Each part's lines' lengths, backwards. */
  const partLengths = [];
  // Lengths in Unicode scalars, the snapshot's and the parts' alike, as the whole read counts
  // (shared/line-records.js, lineLength).
  const previousLengths = lineLengths(previousTexts);
  // A read of one part compares it in the same call when the core can (the service worker's:
  // one trip to it rather than two); otherwise diffLines below does.
  /** @type {import("./tree/core-loading.js").DiffAfterPart | undefined} */
  const diffAfter =
    parts.length === 1
      ? { previous, previousLengths, start: parts[0].start, end: parts[0].end, maxChars: args.maxChars }
      : undefined;
  let after = previous.length;
  const texts = previousTexts.slice();
  /** @type {ReturnType<typeof printedRefsOf>} */
  const refs = [];
  // From the last part to the first, so that each part's positions are still the snapshot's.
  for (const part of [...parts].reverse()) {
    if (maxDepth - part.depth < 1) return null;
    const facts = gatherFacts({
      anchor: part.element,
      scope: part.element,
      withRefs: true,
      withAriaRefs: false,
      measureBoxes: false,
      readPointerEvents: false,
      longestText: LONGEST_TEXT_READ,
    });
    if (facts.anchorIndex < 0 || facts.shadowRootCount > 0) return null;
    currentReadTiming()?.mark("partGathered");
    const counter = Math.max(refCounter(), floor);
    const lineRecords = new Uint32Array(facts.nodeList.length * LINE_RECORD_WIDTH);
    let split;
    try {
      split = splitOutput(
        await runCore(() =>
          core.buildTextTree({
            ...factFields(facts),
            filter: "all",
            maxDepth: maxDepth - part.depth,
            anchor: facts.anchorIndex,
            page: 1,
            knownRefs: facts.knownRefs,
            refCounter: counter,
            url: document.URL,
            title: document.title,
            frameIds: frameIdPairs(facts.nodeList, args.childFrames ?? []),
            identities: identitiesOf(facts.nodeList),
            lineRecords,
            depthOffset: part.depth,
            diffAfter,
          }),
        ),
      );
    } catch {
      // The part is hidden now, or the core refused it: a whole read says what happened.
      return null;
    }
    const { envelope, body } = split;
    registerNewRefs(facts.nodeList, envelope.newRefs, counter);
    const partTexts = body === "" ? [] : body.split("\n");
    if (body.startsWith("[open overlays]") || partTexts.length !== envelope.lineCount) return null;
    refs.push(...printedRefsOf(envelope));
    const records = lineRecords.subarray(0, envelope.lineCount * LINE_RECORD_WIDTH);
    pieces.push(previous.subarray(part.end * LINE_RECORD_WIDTH, after));
    pieces.push(records);
    partRecords.push(records);
    runs.push([part.start, part.end, envelope.lineCount]);
    partLengths.push(partTexts.map(lineLength));
    after = part.start * LINE_RECORD_WIDTH;
    texts.splice(part.start, part.end - part.start, ...partTexts);
    currentReadTiming()?.mark("partRead");
  }
  pieces.push(previous.subarray(0, after));
  const current = joinedRecords(pieces.reverse());
  // The core compares records only: it learns which runs of the snapshot's lines were re-read
  // and how long every line is now, and answers the positions of the lines to print, which are
  // joined here, where the lines are (crates/allwright-ax/src/reads.rs, `changes_output`).
  currentReadTiming()?.mark("diffStarted");
  const diffOutput =
    diffAfter?.answer ??
    (await runCore(() =>
      core.diffLines(
        previous,
        previousLengths,
        Uint32Array.from(runs.reverse().flat()),
        joinedRecords(partRecords.reverse()),
        Uint32Array.from(partLengths.reverse().flat()),
        args.maxChars,
      ),
    ));
  const { envelope } = splitOutput(diffOutput);
  currentReadTiming()?.mark("diffDone");
  if (envelope.full !== undefined) return null;
  const body = linesOfPlan(envelope.plan, texts, previousTexts);
  rememberChanges(refs);
  const refIssue = { document: documentToken(), first: firstCounter + 1, last: refCounter() };
  const snapshotId = keepSnapshot(readKey, current, texts.length, texts);
  return {
    tree: body,
    ...envelope.result,
    incremental: true,
    ...(snapshotId === undefined ? {} : { snapshotId }),
    refIssue,
  };
}

/**
 * One array of records from pieces in order.
 * @param {Uint32Array[]} pieces
 */
function joinedRecords(pieces) {
  const joined = new Uint32Array(pieces.reduce((length, piece) => length + piece.length, 0));
  let offset = 0;
  for (const piece of pieces) {
    joined.set(piece, offset);
    offset += piece.length;
  }
  return joined;
}

/**
 * The text of the core's diff plan (crates/allwright-ax/src/reads.rs, `changes_output`): each item a banner, the
 * position of a current line (0 and up), or of a snapshot's line that left the tree, printed
 * under `[removed]` (-1 for its first line, -2 for the next, ...), joined by line breaks.
 * @param {unknown} plan
 * @param {string[]} texts the current lines
 * @param {string[]} previousTexts the snapshot's lines
 * @returns {string}
 */
function linesOfPlan(plan, texts, previousTexts) {
  const printable = (/** @type {unknown} */ item) =>
    typeof item === "string" ||
    (Number.isInteger(item) &&
      /** @type {number} */ (item) < texts.length &&
      -(/** @type {number} */ (item)) <= previousTexts.length);
  if (!Array.isArray(plan) || !plan.every(printable)) {
    throw messages.toolError("script_failed", "the tree core answered a malformed diff");
  }
  return plan
    .map((item) => {
      if (typeof item !== "number") return item;
      return item >= 0 ? texts[item] : previousTexts[-item - 1];
    })
    .join("\n");
}

/**
 * A read since the newest snapshot when nothing changed: the core's answer for no lines (the
 * fields of an unchanged read), and a new snapshot with the same lines.
 * @param {import("./tree/core-loading.js").AxCore} core
 * @param {TreeArguments} args
 * @param {string} readKey
 * @param {Uint32Array} previous
 * @param {string[]} previousTexts
 */
async function nothingChanged(core, args, readKey, previous, previousTexts) {
  const none = new Uint32Array(0);
  const { envelope } = splitOutput(await runCore(() => core.diffLines(none, none, none, none, none, args.maxChars)));
  if (envelope.result?.unchanged !== true) return null;
  const counter = refCounter();
  const snapshotId = keepSnapshot(readKey, previous, previousTexts.length, previousTexts);
  return {
    tree: linesOfPlan(envelope.plan, [], []),
    ...envelope.result,
    incremental: true,
    ...(snapshotId === undefined ? {} : { snapshotId }),
    refIssue: { document: documentToken(), first: counter + 1, last: counter },
  };
}

/**
 * `[node index, frameId]` pairs for the core: the frame elements of the gathered nodes whose
 * child frame is known, so that their lines print `frameId=N` (docs/protocol/frames.md, "Frames").
 * @param {Node[]} nodeList
 * @param {ChildFrame[]} childFrames
 * @returns {Float64Array} numbers, not 32-bit: Firefox's frame ids exceed 32 bits
 */
function frameIdPairs(nodeList, childFrames) {
  if (childFrames.length === 0) return new Float64Array(0);
  /** @type {number[]} */
  const indices = [];
  nodeList.forEach((node, index) => {
    if (isFrameElement(node)) indices.push(index);
  });
  const frameIds = childFrameIdsOf(
    indices.map((index) => /** @type {HTMLIFrameElement} */ (nodeList[index])),
    childFrames,
  );
  /** @type {number[]} */
  const pairs = [];
  frameIds.forEach((frameId, position) => {
    if (frameId !== undefined) pairs.push(indices[position], frameId);
  });
  return Float64Array.from(pairs);
}

/**
 * Loads this frame's core ahead of its first read (`prepare_core`, background/core/core-warmup.js):
 * the read then finds it loaded, or awaits the same loading (core-loading.js keeps one).
 * @returns {Promise<{engine: string}>}
 */
async function prepareCore() {
  const core = await loadCore();
  // The warm-up waits for a quiet moment: an agent that reads the instant `navigate` returns
  // sends its read within a few ms, and a warm-up already running would hold that read back by
  // its whole length (the page's one thread runs one read at a time). An agent that thinks
  // first (seconds, as a model does) finds the code warm.
  await new Promise((resolve) => setTimeout(resolve, WARM_UP_QUIET_MS));
  if (readsStarted === 0) await warmUp(core);
  return { engine: engineOf(core) };
}

/**
 * The most nodes the warm-up reads: enough work for V8 to optimise the gatherer and tier up the
 * core, while a page of a million nodes is not read whole for nothing.
 */
const WARM_UP_NODES = 20_000;

/**
 * How long after the core has loaded the warm-up waits for a read to arrive first (measured:
 * the read an agent sends the instant `navigate` returns reaches the frame within about 20 ms;
 * docs/performance/warm-read.md, "The read sent the instant `navigate` returns").
 */
const WARM_UP_QUIET_MS = 150;

/** Reads (tree or snapshot) started in this document; the warm-up runs only before the first. */
let readsStarted = 0;

/**
 * One read of the whole page whose result is thrown away, so that the agent's first read runs
 * on code the engines have already optimised: V8 runs the gatherer and the WASM core's first
 * calls in their baseline tiers (the first read of a document measured about twice the third:
 * docs/performance/strict-csp.md, "The first read of a document"). It registers no reference, keeps no
 * snapshot and changes nothing in the page or in this world's state: the core is pure, and the
 * facts are dropped.
 * @param {import("./tree/core-loading.js").AxCore} core
 */
async function warmUp(core) {
  const facts = gatherFacts({
    anchor: null,
    withRefs: true,
    withAriaRefs: false,
    measureBoxes: false,
    readPointerEvents: false,
    maxNodes: WARM_UP_NODES,
    longestText: LONGEST_TEXT_READ,
  });
  await runCore(() =>
    core.buildTextTree({
      ...factFields(facts),
      page: 1,
      knownRefs: facts.knownRefs,
      refCounter: refCounter(),
      url: document.URL,
      title: document.title,
      identities: identitiesOf(facts.nodeList),
      lineRecords: new Uint32Array(facts.nodeList.length * LINE_RECORD_WIDTH),
    }),
  );
}

/**
 * This frame's document of the structured snapshot (`snapshot_document` in docs/protocol.md).
 * @param {{format: "json"|"yaml", mode?: "ai", contextId: string, parentContextId?: string|null}} args
 * @returns {Promise<{document: string, engine: string, engineFallback?: string}>}
 */
async function snapshotDocument(args) {
  // One at a time with the tree reads: an "ai" snapshot numbers its references in this frame too.
  readsStarted += 1;
  return oneReadAtATime(async () => {
    const core = await loadCore();
    // Announced as a tree read is: on a page of 100k elements the JS core's synchronous part
    // takes seconds, and the background's liveness probes would read the silence as a prompt.
    announceRead();
    try {
      return { document: await writeSnapshotDocument(core, args, runCore), ...engineFields(core) };
    } finally {
      announceReadEnd();
    }
  });
}

/**
 * What an action says of its target (tree/ref-descriptions.js), from this world's reads: a read
 * of one ref keeps no snapshot, and remembers what it printed when asked.
 */
const { printedRefOf, describeElement, describeUnchangedElement } = refDescriptions((args, { remember }) =>
  buildTree(args, { remember, keepSnapshot: false }),
);

/**
 * Wraps an operation so that anything it throws reaches the caller as a tool error object.
 * @template {unknown[]} A
 * @template R
 * @param {(...args: A) => Promise<R>} operation
 * @returns {(...args: A) => Promise<R>}
 */
const withToolErrors =
  (operation) =>
  async (...args) => {
    try {
      return await operation(...args);
    } catch (error) {
      if (thrownToolError(error) !== null) throw error;
      throw messages.toolError("script_failed", describe(error));
    }
  };

/**
 * The tree side's API, for the router (content/content.js), which hands it to the action tools
 * (content/actions.js) as their `ax`.
 * @typedef {ReturnType<typeof createTreeApi>} TreeApi
 */

/** @type {TreeApi|null} */
let treeApi = null;

/**
 * The tree side's API of this world. The first call installs the registry (tree/registry.js);
 * the router makes it once, when it starts, so that a second injection of the content script
 * into the same world, whose router does not start, keeps the first registry.
 * @returns {TreeApi}
 */
export function accessibilityTree() {
  if (treeApi === null) {
    installRegistry();
    treeApi = createTreeApi();
  }
  return treeApi;
}

function createTreeApi() {
  return Object.freeze({
    generateAccessibilityTree: withToolErrors(generateAccessibilityTree),
    answerHandedOffRead: withToolErrors(({ readId, reply }) => answerHandedOffRead(readId, reply)),
    snapshotDocument: withToolErrors(snapshotDocument),
    prepareCore: withToolErrors(prepareCore),
    resolveRef,
    describeElement: withToolErrors(describeElement),
    describeUnchangedElement: withToolErrors(describeUnchangedElement),
    printedRefOf,
    documentToken,
  });
}
