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
// In BiDi-only mode (docs/grid.md, "BiDi-only mode") it also serves the page's side of the tools
// there: the tree read, the screenshot's masks, wait_for's and wait_for_stable's looks, and
// the halves of click_ax, hover and press_key around the real input the server sends, those of type_ax, set_field, select_option and scroll (src/bidi_only/actions.rs), each made
// by the content script's own modules, and the action's result made by the background's own pure
// rules (background/actions/action-outcome.js, changes-of-read.js, activity.js's notableKind).
//
// The core is the wasm2js build only: it compiles nothing, so it runs under any page CSP, and no
// choice between builds is ever made (compiling WASM to find out would be seen by the page's CSP;
// docs/protocol/core.md, "Loading the core").

import "../shared/messages.js";
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
import { beginExternalClick, observeClick } from "../content/actions/click.js";
import { beginHoverObservation } from "../content/actions/hover.js";
import { beginExternalKeyPress, pressKey } from "../content/actions/keyboard.js";
import { fillField, typeText } from "../content/actions/text-entry.js";
import { selectOption } from "../content/actions/select-option.js";
import { scrollAction } from "../content/actions/scroll.js";
import { printedRefsOf, rememberChanges, rememberRead } from "../content/tree/printed-refs.js";
import { refDescriptions } from "../content/tree/ref-descriptions.js";
import { actionResultOf, isProgressEvidence } from "../background/actions/action-outcome.js";
import { changesOfRead } from "../background/actions/changes-of-read.js";
import { notableKind } from "../background/actions/activity.js";

const scope = /** @type {any} */ (globalThis);
const messages = globalThis.allwrightMessages;

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
  return answerOf(async () => (await readTreeResult(args, new Set(closedShadowRootHosts))).result);
}

/**
 * The JSON text of `{ok: true, result}`, or of `{ok: false, error}` with the structured error
 * {code, message, hint?, suggestions?} that `produce` threw (anything else is `script_failed`),
 * so that a structured error crosses BiDi whole.
 * @param {() => unknown} produce
 * @returns {Promise<string>}
 */
async function answerOf(produce) {
  try {
    return JSON.stringify({ ok: true, result: await produce() });
  } catch (error) {
    const structured =
      error !== null && typeof error === "object" && "code" in error && typeof error.code === "string"
        ? error
        : { code: "script_failed", message: describe(error) };
    return JSON.stringify({ ok: false, error: structured });
  }
}

/** Publishes this realm's ref registry once (installRegistry). */
function ensureRegistry() {
  if (!registryInstalled) {
    installRegistry();
    registryInstalled = true;
  }
}

/**
 * The read of readTree, throwing the structured errors of the content script's read, with what
 * it printed. As in the content script, `remember` makes its printed refs what the agent read
 * (tree/printed-refs.js), and `keepSnapshot` keeps its lines for a later read `since` it: a read
 * of one ref that an action makes to describe its target does neither, or only the first.
 * @param {Parameters<typeof readTree>[0]} args
 * @param {ReadonlySet<Element>} closedShadowRootHosts
 * @param {{remember: boolean, keepSnapshot: boolean}} [options]
 */
async function readTreeResult(args, closedShadowRootHosts, options = { remember: true, keepSnapshot: true }) {
  if (core === undefined) throw scriptFailed("the bundle carries no tree core");
  await core.ready;
  if (core.factsVersion() !== FACTS_VERSION) {
    throw scriptFailed("the tree core and the collector come from different builds");
  }
  ensureRegistry();
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
  const lineRecords = new Uint32Array(options.keepSnapshot ? facts.nodeList.length * LINE_RECORD_WIDTH : 0);
  const prepared = {
    counter,
    document: documentToken(),
    url: document.URL,
    title: document.title,
    cutNotice: pageCut ? PAGE_CUT_NOTICE : null,
    sinceFields: compared !== null && "fullReason" in compared ? { full: true, fullReason: compared.fullReason } : {},
    snapshotId: pageCut || !options.keepSnapshot ? null : reserveSnapshotId(),
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
      identities: options.keepSnapshot ? identitiesOf(facts.nodeList) : new Uint32Array(0),
      previousLines: compared !== null && "lines" in compared ? compared.lines : undefined,
      lineRecords,
    }),
  );
  const { envelope, body } = splitOutput(typeof output === "string" ? output : await output);
  const result = treeResultOf(envelope, body, prepared);
  registerNewRefs(facts.nodeList, envelope.newRefs, counter);
  const onlyChanges = envelope.result.full === false;
  const printed = printedRefsOf(envelope);
  if (options.remember && onlyChanges) rememberChanges(printed);
  else if (options.remember) rememberRead(printed);
  const everyLine = !onlyChanges && result.pageCount === 1 && result.autoDegraded === false;
  if (prepared.snapshotId !== null) {
    keepSnapshot(readKey, lineRecords, envelope.lineCount, everyLine ? body : null, prepared.snapshotId);
  }
  return { result, printed };
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
  ensureRegistry();
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

/**
 * What the actions' target helpers are in this sandbox (content/actions/target.js, TreeHelpers):
 * the registry's refs, and the content script's own descriptions of a target
 * (tree/ref-descriptions.js) made from this sandbox's reads, which keep no snapshot.
 * @type {import("../content/actions/target.js").TreeHelpers}
 */
const treeHelpers = {
  resolveRef,
  ...refDescriptions((args, { remember }) => readTreeResult(args, new Set(), { remember, keepSnapshot: false })),
};

/**
 * How long a begun input waits to be sent before it is forgotten (the content script's external
 * input waits as long: content/actions/external-input.js, MARKER_LIFETIME_MS).
 */
const PENDING_INPUT_MS = 15_000;

/**
 * What each begun input needs: the element the input goes to, and the second halves.
 * @typedef {{element: Element, description: Record<string, unknown>,
 *   rect: {x: number, y: number, width: number, height: number},
 *   finish: () => Promise<Record<string, unknown>>, abort: () => void}} BegunInput
 */

/**
 * The inputs begun and not finished, by token: click_ax, hover and press_key in BiDi-only mode,
 * whose real input the MCP server sends between beginInput and finishInput
 * (src/bidi_only/actions.rs).
 * @type {Map<string, BegunInput>}
 */
const pendingInputs = new Map();

/**
 * A token for a begun hover or key press: random, as a click's is (content/actions/click.js),
 * with its own prefix.
 * @param {string} prefix
 */
function newInputToken(prefix) {
  const bytes = crypto.getRandomValues(new Uint8Array(12));
  return `${prefix}_${Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("")}`;
}

/**
 * The arguments of an input: the target's ref (a key press may have none: it goes to the focused
 * element), and a key press's key and modifiers, as the tool contract checked them.
 * @typedef {{ref_id?: string|null, key?: string, modifiers?: string[]}} InputArguments
 */

/**
 * The first half of click_ax, hover or press_key (docs/grid.md, "BiDi-only mode"): the content
 * script's own beginning of an input that comes from outside the page, as it begins the browser
 * bridge's (content/actions/external-input.js): click.js's beginExternalClick, hover.js's
 * observation with content that CSS :hover reveals counted, keyboard.js's beginExternalKeyPress
 * (the target focused). Each resolves the ref from this sandbox's registry (ref_not_found with
 * suggestions, ref_changed; a disabled target is refused for a click), describes the target as
 * read, starts the observers and scrolls it into view. The JSON text of `{ok, result: {token,
 * tag, role, name, rect}}` or `{ok: false, error}`; the element itself is handed over by
 * inputTarget.
 * @param {"click"|"hover"|"key"} kind
 * @param {string} argumentsText the JSON text of the InputArguments
 * @returns {Promise<string>}
 */
async function beginInput(kind, argumentsText) {
  return answerOf(async () => {
    ensureRegistry();
    /** @type {InputArguments} */
    const args = JSON.parse(argumentsText);
    /** @type {BegunInput} */
    let begun;
    let token;
    if (kind === "hover") {
      begun = await beginHoverObservation({ ref_id: String(args.ref_id) }, treeHelpers, { watchRevealed: true });
      token = newInputToken("hover");
    } else if (kind === "key") {
      // The element is the focused one when no ref names it: never null once begun.
      begun = /** @type {BegunInput} */ (
        await beginExternalKeyPress(
          { ref_id: args.ref_id ?? null, key: String(args.key), modifiers: args.modifiers ?? [] },
          treeHelpers,
        )
      );
      token = newInputToken("key");
    } else {
      const click = await beginExternalClick({ ref_id: String(args.ref_id) }, treeHelpers);
      begun = click;
      token = click.token;
    }
    pendingInputs.set(token, begun);
    setTimeout(() => {
      if (pendingInputs.get(token) !== begun) return;
      pendingInputs.delete(token);
      begun.abort();
    }, PENDING_INPUT_MS);
    return { token, ...begun.description, rect: begun.rect };
  });
}

/**
 * The element a begun input goes to, for the server's hit test, focus check and input (a BiDi
 * shared reference is valid in every realm of the document), or null when it left the page.
 * @param {string} token
 * @returns {Element | null}
 */
function inputTarget(token) {
  const element = pendingInputs.get(token)?.element;
  return element !== undefined && element.isConnected ? element : null;
}

/**
 * The second half, once the real input was sent: the content script's report of it (evidence,
 * hints, the target as read), the JSON text of `{ok, result}`.
 * @param {string} token
 * @returns {Promise<string>}
 */
async function finishInput(token) {
  return answerOf(async () => {
    const begun = pendingInputs.get(token);
    if (begun === undefined) {
      throw messages.toolError("invalid_arguments", `no input is pending under ${token}`, {
        hint: `An input is remembered for ${PENDING_INPUT_MS / 1000} seconds by the document that began it.`,
      });
    }
    pendingInputs.delete(token);
    return begun.finish();
  });
}

/**
 * Forgets a begun input that was never sent: the JSON text of `{aborted}`.
 * @param {string} token
 * @returns {string}
 */
function abortInput(token) {
  const begun = pendingInputs.get(token);
  pendingInputs.delete(token);
  begun?.abort();
  return JSON.stringify({ aborted: begun !== undefined });
}

/**
 * The actions run by the content script's own synthetic input in this sandbox, as the extension
 * runs them in its content script (content/actions.js): type_ax's typing, set_field,
 * select_option and scroll, which the extension does synthetically with the browser bridge too, and press_key for a key real key
 * input cannot send as the browser bridge decides it (src/browser_bridge/keys.rs): a key the
 * WebDriver key table lacks, or a target that lost focus before the key was due.
 * @type {Record<string, (args: any, ax: import("../content/actions/target.js").TreeHelpers) => Promise<unknown>>}
 */
const SYNTHETIC_ACTIONS = Object.freeze({
  type_text: typeText,
  fill_field: fillField,
  select_option: selectOption,
  scroll: scrollAction,
  press_key: pressKey,
});

/**
 * One of SYNTHETIC_ACTIONS, with the tool's arguments less its target: the JSON text of `{ok,
 * result}` with the content script's report.
 * @param {string} tool the content script's name of the action
 * @param {string} argumentsText the JSON text of the arguments
 * @returns {Promise<string>}
 */
async function actSynthetically(tool, argumentsText) {
  return answerOf(async () => {
    ensureRegistry();
    const action = SYNTHETIC_ACTIONS[tool];
    if (action === undefined) throw scriptFailed(`no synthetic action ${tool}`);
    return action(JSON.parse(argumentsText), treeHelpers);
  });
}

/**
 * One observation of a click's deferred effects (content/actions/click.js, observeClick, which
 * the background's click arbiter asks for every step), with `progressed`: whether the evidence
 * seen so far and now proves progress (action-outcome.js, isProgressEvidence), which ends the
 * observation early. The JSON text of `{ok, result}`.
 * @param {string} token
 * @param {string[]} evidenceSoFar the report's evidence and the earlier observations'
 * @returns {Promise<string>}
 */
async function lookAfterClick(token, evidenceSoFar) {
  return answerOf(async () => {
    const seen = await observeClick({ token });
    return { ...seen, progressed: [...evidenceSoFar, ...seen.evidence].some(isProgressEvidence) };
  });
}

/**
 * The webRequest resource type (which the background's rules read: background/actions/activity.js,
 * notableKind) of a request as WebDriver BiDi names it: its fetch destination, or its initiator
 * type when the destination is empty (a fetch, a beacon).
 * @param {string} type
 */
function webRequestTypeOf(type) {
  if (type === "document") return "main_frame";
  if (type === "iframe" || type === "frame") return "sub_frame";
  return type;
}

/**
 * What the MCP server watched of the tab while an action ran over BiDi, and the page side's
 * report: the facts the background's results are made of.
 * @typedef {{report: Record<string, any> | null, action: string, evidence: string[], hints: string[],
 *   navigated: boolean, navigation: {url: string, sameDocument?: boolean} | null,
 *   newTabs: {tabId: number, url: string}[], requests: {method: string, url: string, type: string}[],
 *   changesRead?: Record<string, unknown>, changesSince?: string, changesOmitted?: string,
 *   method?: string}} WatchedAction
 */

/**
 * An action's result in BiDi-only mode, built by the background's own rules
 * (background/actions/action-outcome.js, actionResultOf; changes-of-read.js, changesOfRead) from
 * what the server watched: the requests that count as side effects (activity.js, notableKind),
 * new tabs, the navigation, and the read since the tab's last tree read. The JSON text of `{ok,
 * result}`, with `method` first when given ("bidi" for real input, as the extension's real input
 * answers; none for the content script's own key, as the extension's synthetic press_key).
 * @param {WatchedAction} facts
 * @returns {Promise<string>}
 */
async function actionResult(facts) {
  return answerOf(() => {
    /** @type {import("../background/actions/activity.js").NotableRequest[]} */
    const requests = [];
    for (const request of facts.requests) {
      const kind = notableKind({ ...request, type: webRequestTypeOf(request.type) });
      if (kind !== null) requests.push({ method: request.method, url: request.url, kind });
    }
    /** @type {Record<string, unknown>} */
    const observed = {};
    if (facts.navigation !== null) observed.navigation = facts.navigation;
    if (facts.newTabs.length > 0) observed.newTabs = facts.newTabs;
    if (requests.length > 0) observed.requests = requests.slice(0, 10);
    // The click's token and its fallback verdict are the arbiter's, never the agent's.
    const report = { ...facts.report };
    delete report.token;
    delete report.fallback;
    const result = actionResultOf(facts.report === null ? null : report, {
      observed,
      sawSideEffects: requests.length > 0 || facts.newTabs.length > 0,
      navigated: facts.navigated,
      action: facts.action,
      evidence: facts.evidence,
      hints: facts.hints,
    });
    if (facts.changesOmitted !== undefined) result.changes = { omitted: facts.changesOmitted };
    else if (facts.changesRead !== undefined && facts.changesSince !== undefined) {
      result.changes = changesOfRead(facts.changesRead, facts.changesSince);
    }
    return facts.method === undefined ? result : { method: facts.method, ...result };
  });
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
      beginInput,
      inputTarget,
      finishInput,
      abortInput,
      actSynthetically,
      lookAfterClick,
      actionResult,
    }),
    configurable: false,
    enumerable: false,
    writable: false,
  });
}
