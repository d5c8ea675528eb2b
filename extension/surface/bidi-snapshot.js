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

import { FACTS_VERSION, gatherFacts } from "../content/tree/facts.js";
import { describe } from "../content/tree/core-loading.js";
import { factFields, writeSnapshotDocument } from "../content/tree/snapshot-document.js";
import {
  documentToken,
  installRegistry,
  lookup,
  refCounter,
  refNotFound,
  registerNewRefs,
  sweep,
} from "../content/tree/registry.js";
import {
  identitiesOf,
  keepSnapshot,
  LINE_RECORD_WIDTH,
  readKeyOf,
  reserveSnapshotId,
  snapshotToCompare,
} from "../content/tree/snapshots.js";
import { splitOutput, treeResultOf } from "../shared/tree-result.js";
import { LONGEST_TEXT_READ, MAX_READ_NODES, PAGE_CUT_NOTICE } from "../content/tree/read-limits.js";
import { paintSecretMasks, removeSecretMasks, searchAlsoIn } from "../content/dom/secret-masks.js";
import { elementState, textShown } from "../content/actions/wait-conditions.js";
import { stateHolds } from "../background/reads/element-states.js";
import { resolveRef } from "../content/tree/registry.js";
import { domQuiet } from "../content/actions/evidence.js";

const scope = /** @type {any} */ (globalThis);

/** @type {import("../content/tree/core-loading.js").AxCore | undefined} */
const core = scope.allwrightAxCore;
// The core announces itself through a global, which the modules above have read by now. The
// message vocabulary (shared/messages.js) stays: the registry builds its ref_not_found error
// from it when a tree read is asked (readTree). Both live in this sandbox realm, which the
// page's scripts never see.
delete scope.allwrightAxCore;

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

/** Whether this realm's ref registry is published (installRegistry, once per realm). */
let registryInstalled = false;

/**
 * `get_accessibility_tree` of this document in BiDi-only mode (docs/grid.md, "BiDi-only mode"):
 * the content script's whole read (content/accessibility-tree.js, readTree) with the same
 * modules, run in this sandbox, whose registry holds the refs of this document as the content
 * script's world holds them. The differences are the ones a sandbox makes: a read since a
 * snapshot is the core's comparison of a whole re-read with the snapshot (the answer the
 * content script's read of only the changed parts gives too: tests/extension/since.rs), no
 * frame ids are printed (the extension's come from webNavigation), the hosts of closed shadow
 * roots are told by the caller (the content script asks the browser), and the core is the
 * wasm2js build. The answer is a JSON text, `{ok: true, result}` or `{ok: false, error}` with the
 * error's {code, message, hint?, suggestions?}, so that a structured error crosses BiDi whole.
 * @param {{filter?: "all"|"visible"|"interactive", maxDepth?: number, maxChars?: number,
 *   ref_id?: string, page?: number, since?: string, refFloor?: number}} args
 * @param {Element[]} closedShadowRootHosts the custom elements that host a closed shadow root,
 *   which the Rust side found over BiDi (this realm cannot ask): their lines say
 *   `closed-shadow-root`, as the content script's do
 * @returns {Promise<string>}
 */
async function readTree(args, closedShadowRootHosts = []) {
  try {
    return JSON.stringify({ ok: true, result: await readTreeResult(args, new Set(closedShadowRootHosts)) });
  } catch (error) {
    const structured =
      error !== null && typeof error === "object" && "code" in error && typeof error.code === "string"
        ? error
        : { code: "script_failed", message: describe(error) };
    return JSON.stringify({ ok: false, error: structured });
  }
}

/**
 * The read of readTree, throwing the structured errors of the content script's read.
 * @param {Parameters<typeof readTree>[0]} args
 * @param {ReadonlySet<Element>} closedShadowRootHosts
 */
async function readTreeResult(args, closedShadowRootHosts) {
  if (core === undefined) throw scriptFailed("the bundle carries no tree core");
  await core.ready;
  if (core.factsVersion() !== FACTS_VERSION) {
    throw scriptFailed("the tree core and the collector come from different builds");
  }
  if (!registryInstalled) {
    installRegistry();
    registryInstalled = true;
  }
  sweep();
  const readKey = readKeyOf(args);
  const compared =
    args.since === undefined || args.since === null ? null : snapshotToCompare(args.since, readKey, args.page ?? 1);
  const refId = args.ref_id ?? undefined;
  const anchor = refId === undefined ? null : lookup(refId);
  if (refId !== undefined && anchor === null) throw refNotFound(refId);
  const gatherOptions = {
    anchor,
    withRefs: true,
    withAriaRefs: false,
    measureBoxes: args.filter === "visible",
    readPointerEvents: false,
    maxNodes: MAX_READ_NODES,
    longestText: LONGEST_TEXT_READ,
    closedShadowRootHosts,
  };
  let facts = gatherFacts(gatherOptions);
  const pageCut = facts.cut;
  if (facts.cut && anchor !== null && facts.anchorIndex < 0) facts = gatherFacts({ ...gatherOptions, scope: anchor });
  if (refId !== undefined && facts.anchorIndex < 0) throw refNotFound(refId);
  // The tab's floor (kept by the Rust side per tab, as the extension's background keeps it:
  // docs/protocol/frames.md, "Frames"): a navigated tab numbers above what it printed before.
  const refFloor = args.refFloor ?? 0;
  const floor = Number.isSafeInteger(refFloor) && refFloor > 0 ? refFloor : 0;
  const counter = Math.max(refCounter(), floor);
  const lineRecords = new Uint32Array(facts.nodeList.length * LINE_RECORD_WIDTH);
  const prepared = {
    counter,
    document: documentToken(),
    url: document.URL,
    title: document.title,
    cutNotice: pageCut ? PAGE_CUT_NOTICE : null,
    sinceFields: compared !== null && "fullReason" in compared ? { full: true, fullReason: compared.fullReason } : {},
    snapshotId: pageCut ? null : reserveSnapshotId(),
    lineCapacity: lineRecords.length / LINE_RECORD_WIDTH,
    engine: { engine: "js-page" },
  };
  const output = runCore(() =>
    core.buildTextTree({
      ...factFields(facts),
      filter: args.filter,
      maxDepth: args.maxDepth,
      maxChars: args.maxChars,
      anchor: refId === undefined ? undefined : facts.anchorIndex,
      anchorRef: refId,
      page: args.page ?? 1,
      knownRefs: facts.knownRefs,
      refCounter: counter,
      url: document.URL,
      title: document.title,
      frameIds: new Float64Array(0),
      identities: identitiesOf(facts.nodeList),
      previousLines: compared !== null && "lines" in compared ? compared.lines : undefined,
      lineRecords,
    }),
  );
  const { envelope, body } = splitOutput(typeof output === "string" ? output : await output);
  const result = treeResultOf(envelope, body, prepared);
  registerNewRefs(facts.nodeList, envelope.newRefs, counter);
  const onlyChanges = envelope.result.full === false;
  const everyLine = !onlyChanges && result.pageCount === 1 && result.autoDegraded === false;
  if (prepared.snapshotId !== null) {
    keepSnapshot(readKey, lineRecords, envelope.lineCount, everyLine ? body : null, prepared.snapshotId);
  }
  return result;
}

/**
 * A screenshot's masks in BiDi-only mode: the content script's own boxes over every secret field
 * of this document (content/dom/secret-masks.js), its closed shadow roots included, which the
 * Rust side found over BiDi and hands in (this realm cannot open them). Answers the JSON text of
 * `{masked, maskedInViewport}`.
 * @param {string} token
 * @param {ShadowRoot[]} closedRoots
 * @returns {Promise<string>}
 */
async function paintMasks(token, closedRoots) {
  searchAlsoIn(closedRoots.filter((root) => root instanceof ShadowRoot));
  return JSON.stringify(await paintSecretMasks({ token }));
}

/**
 * Takes the masks of paintMasks away: the JSON text of `{painted, intact}`.
 * @param {string} token
 * @returns {string}
 */
function removeMasks(token) {
  const answer = removeSecretMasks({ token });
  searchAlsoIn([]);
  return JSON.stringify(answer);
}

/**
 * One look of wait_for for a text in this document (content/actions/wait-conditions.js, the
 * content script's own): the JSON text of `{shown, excerpt?}`.
 * @param {string} text
 * @returns {string}
 */
function lookForText(text) {
  return JSON.stringify(textShown({ text }));
}

/**
 * One look of wait_for at a ref's element in this document's registry: the JSON text of
 * `{met, lastSeen}`, with the background's rule of which state holds
 * (background/reads/element-states.js) and its `lastSeen`.
 * @param {string} reference
 * @param {string} state
 * @returns {string}
 */
function lookAtElement(reference, state) {
  if (!registryInstalled) {
    installRegistry();
    registryInstalled = true;
  }
  const seen = elementState({ ref_id: reference }, { resolveRef });
  const lastSeen =
    seen.found === true ? { visible: seen.visible, enabled: seen.enabled, checked: seen.checked } : "removed";
  return JSON.stringify({ met: stateHolds(state, seen), lastSeen });
}

/**
 * wait_for_stable's look at this document (content/actions/evidence.js, the content script's
 * own): whether no mutation happened for `quietMs`, within `timeoutMs`. The JSON text of
 * `{quiet, waitedMs, mutations}`.
 * @param {number} quietMs
 * @param {number} timeoutMs
 * @returns {Promise<string>}
 */
async function waitForQuiet(quietMs, timeoutMs) {
  return JSON.stringify(await domQuiet({ quietMs, timeoutMs }));
}

// A second evaluation in the same realm keeps the first instance and its "ai" registry.
if (scope.allwrightSurface === undefined) {
  Object.defineProperty(globalThis, "allwrightSurface", {
    value: Object.freeze({
      snapshotDocument,
      readTree,
      paintMasks,
      removeMasks,
      lookForText,
      lookAtElement,
      waitForQuiet,
    }),
    configurable: false,
    enumerable: false,
    writable: false,
  });
}
