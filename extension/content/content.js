// @ts-check
// The content-side router, the content script's one entry point (scripts/build-extension.mjs
// bundles it and every module it imports into content/content.js): runs the tools the background
// sends to this frame (`allwright/tool`, docs/protocol/channels.md, section 3) on the tree side
// (accessibility-tree.js) and the action side (actions.js), and answers `{ok, result}` or
// `{ok: false, error}`.
//
// The background may inject the content script again into a frame that lacked it; the guard
// below keeps a second copy from answering twice, and from installing a second registry. The
// guard is the one name the content script leaves on its world's `globalThis`, because two copies
// of the bundle share nothing else.

import "../shared/messages.js";
import { accessibilityTree } from "./accessibility-tree.js";
import { actionHandlers } from "./actions.js";
import { markShadowHost, queryShadowRoots, readShadowRoots, unmarkShadowHost } from "./shadow/shadow-roots.js";
import { relayConsoleEntries } from "./console-relay.js";

/**
 * @typedef {import("./accessibility-tree.js").TreeApi} TreeApi
 * @typedef {Record<string, unknown> | Promise<Record<string, unknown>>} HandlerResult
 * @typedef {(ax: TreeApi, args: any, afterTheReply: (task: () => void) => void) => HandlerResult} ContentHandler
 * @typedef {Record<string, number>} ReadStamps the times of a read's steps in a call-timing build
 *   (content/tree/read-timing.js)
 */

/** The action handlers by the tool names the background sends (content/actions.js). */
const ACTION_HANDLERS = /** @type {Record<string, (args: any, ax: TreeApi) => HandlerResult>} */ (actionHandlers);

(function startContentRouter() {
  if (globalThis.allwrightContentRouter === true) return;
  globalThis.allwrightContentRouter = true;

  const runtime = (globalThis.browser ?? globalThis.chrome).runtime;
  const messages = globalThis.allwrightMessages;
  const ax = accessibilityTree();
  // The console hook's entries, in a page of a tab an agent uses (console-relay.js).
  relayConsoleEntries(runtime, messages);

  /**
   * The page-side entry point of each content tool. The arguments are the background's, validated
   * against the tool contract (docs/protocol/channels.md, section 3), so each handler takes them as its own
   * JSDoc types them; here they are only passed on.
   * @type {Record<string, ContentHandler>}
   */
  const HANDLERS = {
    get_accessibility_tree: async (ax, args, afterTheReply) => {
      // In a call-timing build only (content/tree/read-timing.js): when the request arrived.
      const received = globalThis.ALLWRIGHT_CALL_TIMING ? performance.timeOrigin + performance.now() : 0;
      const answer = await ax.generateAccessibilityTree(args, afterTheReply);
      // A read handed to the background (content/tree/core-hand-off.js): its core call, which
      // carries the read's stamps in a call-timing build.
      if ("coreHandOff" in answer && answer.coreHandOff !== undefined) {
        const handedOff = /** @type {import("./tree/core-hand-off.js").HandedOffCall} */ (answer.coreHandOff);
        const prepared = /** @type {{timing?: ReadStamps}} */ (handedOff.prepared);
        if (globalThis.ALLWRIGHT_CALL_TIMING && prepared.timing) {
          prepared.timing = { ...prepared.timing, received, replied: performance.timeOrigin + performance.now() };
        }
        return answer;
      }
      const result = /** @type {{timing?: ReadStamps}} */ (answer);
      if (globalThis.ALLWRIGHT_CALL_TIMING && result.timing) {
        result.timing = { ...result.timing, received, replied: performance.timeOrigin + performance.now() };
      }
      // The tool's result names the document it read; the tree builder may already have.
      return { url: document.URL, title: document.title, ...result };
    },
    // The core's output for a read this frame handed to the background.
    tree_core_answer: (ax, args) => ax.answerHandedOffRead(args),
    snapshot_document: (ax, args) => ax.snapshotDocument(args),
    prepare_core: (ax) => ax.prepareCore(),
    // get_shadow_dom and shadow_dom_query (content/shadow/shadow-roots.js).
    read_shadow_roots: (ax, args) => readShadowRoots(args, ax),
    query_shadow_roots: (ax, args) => queryShadowRoots(args, ax),
    mark_shadow_host: (ax, args) => markShadowHost(args, ax),
    unmark_shadow_host: (_ax, args) => unmarkShadowHost(args),
    // The liveness probe also names this frame's document, so that the background can tell a
    // frame that still shows the document that printed a ref from one that navigated
    // (docs/protocol/frames.md, "Frames").
    ping: (ax) => ({ ...actionHandlers.ping(), document: ax.documentToken() }),
  };
  // The action tools' page halves live in content/actions.js (docs/protocol/tools.md, "Content-side
  // action tools"); each takes the validated arguments and the tree builder's API.
  for (const tool of messages.CONTENT_TOOLS) {
    if (tool in HANDLERS) continue;
    HANDLERS[tool] = (ax, args) => {
      if (!Object.hasOwn(ACTION_HANDLERS, tool)) {
        throw messages.toolError("script_failed", `the action script does not serve ${tool} in this frame`, {
          hint: "Reload the page so the extension's scripts start, then try again.",
        });
      }
      return ACTION_HANDLERS[tool](args, ax);
    };
  }

  runtime.onMessage.addListener((message, _sender, sendResponse) => {
    if (!messages.isContentToolRequest(message)) return false;
    /** @type {Array<() => void>} */
    const afterTheReply = [];
    run(message, (task) => afterTheReply.push(task)).then((reply) => {
      sendResponse(reply);
      // What the tool left until its reply was sent (a tree read's bookkeeping), in this same
      // task: the reply is sent by microtasks only, so the page has not run since the tool did.
      for (const task of afterTheReply) task();
    });
    // The answer comes asynchronously; Chrome needs `true` to keep the channel open.
    return true;
  });

  /**
   * @param {ContentToolRequest} request
   * @param {(task: () => void) => void} afterTheReply takes work the tool leaves until its reply
   *   has been sent
   * @returns {Promise<ContentToolReply>}
   */
  async function run({ tool, arguments: args }, afterTheReply) {
    try {
      const result = await HANDLERS[tool](ax, args, afterTheReply);
      return { ok: true, result };
    } catch (thrown) {
      return { ok: false, error: asError(thrown) };
    }
  }

  // The tree builder throws structured errors ({code, message, hint?, suggestions?}); anything
  // else is a failure of the script itself.
  /** @param {unknown} thrown */
  function asError(thrown) {
    if (messages.isToolError(thrown)) {
      const error = /** @type {ToolError} */ (thrown);
      return messages.toolError(error.code, error.message, error);
    }
    const text = thrown instanceof Error ? `${thrown.name}: ${thrown.message}` : String(thrown);
    return messages.toolError("script_failed", `the page-side script failed: ${text}`, {
      hint: "Read the page again; if it keeps failing, the page may defeat the tree builder.",
    });
  }
})();
