// @ts-check
// The one vocabulary of messages the extension speaks, named by direction (docs/protocol/channels.md,
// sections 2 and 3). Every message that crosses a boundary is built by a constructor here and
// recognised by a guard here, so the background and the content scripts cannot drift apart.
//
// This file is loaded three ways, which is why it has no import or export: in the content
// script's bundle (imported for its effect by the modules that use it), as a side-effect module
// import by the background (Chrome's module service worker,
// Firefox's module background scripts), and by the Node unit tests. Each of them reads the result
// from `globalThis.allwrightMessages`.
"use strict";

// Types of the vocabulary, at the top level so that the type check (tsconfig.json) sees them
// from every script and module of the extension; the code below builds and recognises them.

/**
 * A structured error, the only shape an error takes on every hop. `dialog` comes with
 * `dialog_open`: the user prompt that holds the page. `candidates` comes with `ambiguous_frame`
 * (the frames that matched, docs/protocol/frames.md "Frames") and `reasons` with `unsaved_frame_state`;
 * `changed` with `ref_changed` (the target as the agent read it and as it is now).
 * @typedef {{code: ErrorCode, message: string, hint?: string, suggestions?: string[],
 *   dialog?: OpenDialog, candidates?: FrameCandidate[], reasons?: string[], changed?: RefChange,
 *   retryAllowed?: false}} ToolError
 * @typedef {{ref: string, was: {role: string, name: string}, now: {role: string, name: string}}} RefChange
 * @typedef {{index: number, frameId: number, url: string}} FrameCandidate
 * @typedef {{type: "alert"|"confirm"|"prompt"|"beforeunload", message: string}} OpenDialog
 */

/**
 * The error codes of docs/protocol/tools.md, "Error codes". Nothing else may appear in `ToolError.code`.
 * @typedef {"invalid_arguments"|"no_tab"|"frame_not_found"|"frame_detached"|"ref_not_found"
 *   |"page_out_of_range"|"timeout"|"script_failed"|"navigation_failed"
 *   |"extension_disconnected"|"not_connected"|"not_actionable"|"not_typable"|"option_not_found"
 *   |"value_not_accepted"|"no_history"|"tab_not_visible"|"not_supported_here"|"page_blocked"|"dialog_open"
 *   |"closed_shadow_root_unreachable"|"not_a_shadow_host"|"invalid_selector"|"debugger_unavailable"
 *   |"script_error"|"execution_blocked"
 *   |"ref_in_other_frame"|"ambiguous_frame"|"unsaved_frame_state"
 *   |"not_in_tier"
 *   |"result_too_large"
 *   |"ref_changed"|"outcome_unknown"
 *   |"file_url_refused"
 *   |"download_not_found"
 *   |"file_not_accepted"|"not_a_file_target"} ErrorCode
 */

/**
 * The tool access (docs/protocol/access.md, "Tool access"): a tier and whether Dev mode is on. Ask
 * never carries Dev mode.
 * @typedef {"ask"|"compact"|"mid"|"full"} ToolTier
 * @typedef {{tier: ToolTier, dev: boolean}} ToolAccess
 */

/**
 * A call carries the access the MCP server believes active (informative: the background checks
 * its own). A session starts with its client's access and name, and ends when the client leaves.
 * @typedef {{type: "call", id: string, tool: string, arguments: Object<string, unknown>,
 *   access?: ToolAccess}} NativeCall
 * @typedef {{type: "chunk", id: string, index: number, count: number, data: string}} NativeChunk
 * @typedef {{type: "session", access: ToolAccess, client?: string, allowFileUrls?: boolean, browserBridge?: boolean}} NativeSession
 * @typedef {{type: "sessionEnded"}} NativeSessionEnded
 * @typedef {NativeCall|NativeChunk|NativeSession|NativeSessionEnded} NativeToBackground
 */

/**
 * @typedef {{type: "hello", browser: "chrome"|"firefox", extensionVersion: string, protocol: 1}} NativeHello
 * @typedef {{type: "result", id: string, ok: true, result: Object<string, unknown>}} NativeResultOk
 * @typedef {{type: "result", id: string, ok: false, error: ToolError}} NativeResultError
 * @typedef {{type: "access", access: ToolAccess}} NativeAccessChanged
 * @typedef {NativeHello|NativeResultOk|NativeResultError|NativeAccessChanged} BackgroundToNative
 */

/**
 * The side panel's runtime port (background/side-panel/panel-port.js), named "allwright-panel". The
 * background sends the whole state and call log when the panel connects, then each change.
 * @typedef {{hostConnected: boolean, client: string|null, browser: "chrome"|"firefox",
 *   extensionVersion: string, access: ToolAccess}} PanelConnectionState
 * @typedef {{id: number, tool: string, arguments: Object<string, unknown>, claimedAccess: ToolAccess|null,
 *   startedAt: string, durationMs: number|null, ok: boolean|null, result?: Object<string, unknown>,
 *   error?: ToolError}} LoggedCall
 * @typedef {{type: "state", state: PanelConnectionState}
 *   |{type: "calls", calls: LoggedCall[]}
 *   |{type: "call", call: LoggedCall}} BackgroundToPanel
 * @typedef {{type: "setAccess", access: ToolAccess}} PanelToBackground
 */

/**
 * The tools a content script serves, with the arguments the background has already validated.
 * `refFloor` and `childFrames` come from the background (docs/protocol/frames.md, "Frames"): new refs
 * are numbered above refFloor, and an iframe holding one of childFrames prints its frameId.
 * `coreHandOff` (Chromium): the frame may answer with its core call instead of a tree, when its
 * core runs in the service worker, and the background finishes the read (docs/protocol/core.md, "The
 * read handed to the background").
 * @typedef {{filter?: "all"|"visible"|"interactive", maxDepth?: number, maxChars?: number,
 *   ref_id?: string, page?: number, refFloor?: number, childFrames?: ChildFrame[],
 *   coreHandOff?: boolean}} TreeArguments
 * A frame's answer to such a read: the read's core call, what its result reports besides the
 * core's output (shared/tree-result.js), and the id under which the frame waits for the output
 * (`tree_core_answer`). `prepared.timing`: the frame's stamps, in a call-timing build only.
 * @typedef {{readId: string, request: CoreCallRequest,
 *   prepared: import("./tree-result.js").TreeReadPrepared & {timing?: Record<string, number>}}} TreeCoreHandOff
 * @typedef {{readId: string, reply: CoreCallReply}} TreeCoreAnswerArguments
 * @typedef {{format: "json"|"yaml", mode?: "ai", contextId: string,
 *   parentContextId: string|null}} SnapshotDocumentArguments
 * The action tools' content halves (docs/protocol/tools.md, "Content-side action tools"); their
 * arguments are the validated tool arguments without tabId and frameId.
 * @typedef {"click_element"|"observe_click"|"type_text"|"fill_field"|"select_option"
 *   |"hover_element"|"drag_element"|"press_key"|"scroll"|"dom_quiet"|"begin_external_input"
 *   |"finish_external_input"|"abort_external_input"|"continue_external_drag"|"fill_form_field"|"attach_files"} ContentActionTool
 * What screenshot asks of frames (docs/protocol/browser-bridge.md, "Screenshots"): an element's box after it
 * was scrolled into view, and where a child frame's viewport sits in its parent's.
 * @typedef {{ref_id: string}} ElementRectArguments
 * @typedef {{childFrameId?: number}} FrameOffsetArguments
 * @typedef {{rect: Rect, viewport: Viewport, devicePixelRatio: number}} ElementRectResult
 * @typedef {{offset: {x: number, y: number}, viewport: Viewport}} FrameOffsetResult
 * What resize asks of the top frame while the window takes its new size: `window.innerWidth`
 * and `innerHeight` in CSS pixels.
 * @typedef {{width: number, height: number}} ViewportSizeResult
 * A viewport in CSS pixels: whole (`width`, `height`) and without scroll bars (`visible...`).
 * @typedef {{width: number, height: number, visibleWidth: number, visibleHeight: number}} Viewport
 * @typedef {{x: number, y: number, width: number, height: number}} Rect
 * @typedef {{kind: "allwright/tool", tool: "get_accessibility_tree", arguments: TreeArguments}
 *   |{kind: "allwright/tool", tool: "tree_core_answer", arguments: TreeCoreAnswerArguments}
 *   |{kind: "allwright/tool", tool: "snapshot_document", arguments: SnapshotDocumentArguments}
 *   |{kind: "allwright/tool", tool: ContentActionTool, arguments: Object<string, unknown>}
 *   |{kind: "allwright/tool", tool: "element_rect", arguments: ElementRectArguments}
 *   |{kind: "allwright/tool", tool: "frame_offset", arguments: FrameOffsetArguments}
 *   |{kind: "allwright/tool", tool: "viewport_size", arguments: {}}
 *   |{kind: "allwright/tool", tool: "paint_secret_masks"|"remove_secret_masks", arguments: {token: string}}
 *   |{kind: "allwright/tool", tool: "ping", arguments: {}}
 *   |{kind: "allwright/tool", tool: "read_shadow_roots"|"query_shadow_roots"|"mark_shadow_host"
 *     |"unmark_shadow_host", arguments: Object<string, unknown>}
 *   |{kind: "allwright/tool", tool: "child_frames", arguments: {childFrames: ChildFrame[]}}
 *   |{kind: "allwright/tool", tool: "draft_state", arguments: {}}
 *   |{kind: "allwright/tool", tool: "mark_trusted_target", arguments: {token: string}}
 *   |{kind: "allwright/tool", tool: "unmark_trusted_target", arguments: {marker: string}}
 *   |{kind: "allwright/tool", tool: "prepare_core", arguments: {}}
 *   |{kind: "allwright/tool", tool: "text_shown"|"element_state", arguments: Object<string, unknown>}} ContentToolRequest
 * A child frame of the frame asked, as the browser's frame inventory (webNavigation) lists it.
 * @typedef {{frameId: number, url: string}} ChildFrame
 * @typedef {ContentToolRequest} BackgroundToContent
 */

/**
 * The content script's answer to a tool request (its `sendResponse` value).
 * @typedef {{ok: true, result: Object<string, unknown>}|{ok: false, error: ToolError}} ContentToolReply
 */

/**
 * The page-side script asks for its core once, on the first tool call in its frame. It sends
 * the policies of the document's `<meta http-equiv="Content-Security-Policy">` elements,
 * which the background cannot see in the response headers.
 * @typedef {{kind: "allwright/load-core", metaPolicies: string[]}} LoadCoreRequest
 */

/**
 * A content script starts a tree read, which runs synchronously and holds the frame's one
 * thread: until it ends, the frame cannot answer the background's liveness probes. The notice
 * tells the background that silence is the read's, not a prompt's (background/frames/frames.js).
 * @typedef {{kind: "allwright/read-started"}} ReadStartedNotice
 * The read's synchronous part ended (its answer may still wait: a prompt opened meanwhile holds
 * it back in Chromium, and the frame is then blocked, not reading).
 * @typedef {{kind: "allwright/read-finished"}} ReadFinishedNotice
 * What a page of a tab an agent uses wrote to its console, as the console hook saw it
 * (background/records/console-hook.js, relayed by content/console-relay.js): at most 200 entries.
 * @typedef {{kind: "allwright/console-entries", entries: object[]}} ConsoleEntriesNotice
 * @typedef {LoadCoreRequest|ReadStartedNotice|ReadFinishedNotice|CoreCallRequest|ConsoleEntriesNotice} ContentToBackground
 */

/**
 * One call of the tree core run in Chromium's service worker for a frame whose page CSP forbids
 * WASM in its content script (docs/protocol/core.md, "The core in the service worker"): `packed` is
 * the bytes of the call's number lists (content/tree/packed-facts.js, read by
 * crates/allwright-ax-wasm/src/packed.rs), `strings` the facts' joined strings, `pseudo` the
 * `::before`/`::after` content resolved in the page (`[node * 2 + after, content]`), `options`
 * the call's scalar arguments and `recordCapacity` the line records it wants back.
 * @typedef {{kind: "allwright/core-call", operation: "buildTextTree"|"diffLines"|"writeSnapshotDocument",
 *   strings: string, packed: Uint8Array, pseudo: Array<[number, string]>, options: Record<string, unknown>,
 *   recordCapacity: number}} CoreCallRequest
 * The worker's answer: the core's output string and, for a tree, the line records it wrote,
 * packed (shared/line-records.js; empty when none), or why the call could not run. `diff`: the output
 * of the comparison a tree call of a `since` read's one changed part asked for
 * (`options.diffAfter`, background/core/worker-core.js).
 * `timing`: the worker's stamps of the call, in a call-timing build only (content/tree/read-timing.js).
 * Bytes travel as Uint8Array: Chromium's messages are structured clones (manifest/chrome.json,
 * `message_serialization`), as Firefox's always are.
 * @typedef {{ok: true, output: string, records: Uint8Array, diff?: string, timing?: Record<string, number>}|{ok: false, error: ToolError}} CoreCallReply
 */

/**
 * The background's answer: which core it injected into the frame, or why it could not.
 * `worker`: nothing was injected; the frame sends its core calls to the service worker
 * (CoreCallRequest). `fallback` says why a frame that would have used the worker got the JS core.
 * `factsVersion` is the worker core's, checked by the frame as it checks an injected core's.
 * @typedef {{core: "wasm"|"js", fallback?: string}|{core: "worker", factsVersion: number}|{ok: false, error: ToolError}} LoadCoreReply
 */

/**
 * The vocabulary as `globalThis.allwrightMessages` holds it, typed for every script of the
 * extension (types/globals.d.ts).
 * @typedef {ReturnType<typeof messageVocabulary>} MessageVocabulary
 */

globalThis.allwrightMessages = messageVocabulary();

function messageVocabulary() {
  const ERROR_CODES = Object.freeze([
    "invalid_arguments",
    "no_tab",
    "frame_not_found",
    "frame_detached",
    "ref_not_found",
    "page_out_of_range",
    "timeout",
    "script_failed",
    "navigation_failed",
    "extension_disconnected",
    "not_connected",
    "not_actionable",
    "not_typable",
    "option_not_found",
    // fill_form: a field refused the value (a date input given another format, a check box a
    // click did not change).
    "value_not_accepted",
    "no_history",
    "tab_not_visible",
    "not_supported_here",
    "page_blocked",
    "dialog_open",
    // get_shadow_dom, shadow_dom_query and execute_js (docs/protocol/shadow-and-execute-js.md, "Shadow roots" and
    // "execute_js").
    "closed_shadow_root_unreachable",
    "not_a_shadow_host",
    "invalid_selector",
    "debugger_unavailable",
    "script_error",
    "execution_blocked",
    // Frames (docs/protocol/frames.md, "Frames"): a ref printed by another frame of the tab, several
    // frames matching promote_iframe's urlFilter, and a frame holding work promote would lose.
    "ref_in_other_frame",
    "ambiguous_frame",
    "unsaved_frame_state",
    // The tier gate (docs/protocol/access.md, "Tool access").
    "not_in_tier",
    // A ref whose element's role or name changed since the agent read it (docs/protocol/action-safety.md, "A
    // ref means one element").
    "ref_changed",
    // A tool that changes the page lost its answer: it may have acted (docs/protocol/action-safety.md,
    // "Nothing done twice").
    "outcome_unknown",
    // navigate, new_tab or promote_iframe would open a local file in a session that does not
    // allow it (docs/agent-tools.md, "Local files").
    "file_url_refused",
    // get_download was given an id that is not one of the agent's downloads (docs/agent-tools.md,
    // "Downloads").
    "download_not_found",
    // upload_file's page half (docs/agent-tools.md, "Attaching files: upload_file"): the
    // input's accept or single-file limit excludes a file; the element takes no files.
    "file_not_accepted",
    "not_a_file_target",
  ]);

  /** The tool tiers, from read-only to the largest surface (docs/agent-tools.md, "Tiers"). */
  const TOOL_TIERS = Object.freeze(["ask", "compact", "mid", "full"]);

  /** The user prompts a page can open (HTML, "User prompts"), as `dialog_open` names them. */
  const DIALOG_TYPES = Object.freeze(["alert", "confirm", "prompt", "beforeunload"]);

  /** The version of the native-messaging protocol this extension speaks in its hello. */
  const PROTOCOL_VERSION = 1;

  // ---- NativeToBackground: what the native host sends the extension. ----

  /**
   * @param {unknown} value
   * @param {unknown} value
   * @returns {value is NativeCall}
   */
  function isNativeCall(value) {
    return (
      isObject(value) &&
      value.type === "call" &&
      typeof value.id === "string" &&
      typeof value.tool === "string" &&
      (value.arguments === undefined || isObject(value.arguments))
    );
  }

  /**
   * @param {unknown} value
   * @param {unknown} value
   * @returns {value is NativeChunk}
   */
  function isNativeChunk(value) {
    return (
      isObject(value) &&
      value.type === "chunk" &&
      typeof value.id === "string" &&
      Number.isInteger(value.index) &&
      Number.isInteger(value.count) &&
      value.count >= 1 &&
      value.index >= 0 &&
      value.index < value.count &&
      typeof value.data === "string"
    );
  }

  /**
   * @param {unknown} value
   * @param {unknown} value
   * @returns {value is NativeSession}
   */
  function isNativeSession(value) {
    return (
      isObject(value) &&
      value.type === "session" &&
      isToolAccess(value.access) &&
      (value.client === undefined || typeof value.client === "string") &&
      (value.allowFileUrls === undefined || typeof value.allowFileUrls === "boolean") &&
      (value.browserBridge === undefined || typeof value.browserBridge === "boolean")
    );
  }

  /**
   * @param {unknown} value
   * @param {unknown} value
   * @returns {value is NativeSessionEnded}
   */
  function isNativeSessionEnded(value) {
    return isObject(value) && value.type === "sessionEnded";
  }

  /**
   * @param {unknown} value
   * @param {unknown} value
   * @returns {value is ToolAccess}
   */
  function isToolAccess(value) {
    return isObject(value) && TOOL_TIERS.includes(value.tier) && typeof value.dev === "boolean";
  }

  /**
   * A tool access as the extension holds it: Ask never carries Dev mode (it adds tools that
   * change the page), whoever asked for it.
   * @param {ToolAccess} access
   * @returns {ToolAccess}
   */
  function toolAccess(access) {
    return { tier: access.tier, dev: access.dev && access.tier !== "ask" };
  }

  // ---- BackgroundToNative: what the extension sends the native host. ----

  /**
   * @param {NativeHello["browser"]} browser
   * @param {string} extensionVersion
   * @returns {NativeHello}
   */
  function hello(browser, extensionVersion) {
    return { type: "hello", browser, extensionVersion, protocol: PROTOCOL_VERSION };
  }

  /**
   * @param {string} id
   * @param {NativeResultOk["result"]} result
   * @returns {NativeResultOk}
   */
  function resultOk(id, result) {
    return { type: "result", id, ok: true, result };
  }

  /**
   * @param {string} id
   * @param {ToolError} error
   * @returns {NativeResultError}
   */
  function resultError(id, error) {
    return { type: "result", id, ok: false, error };
  }

  /**
   * @param {ToolAccess} access
   * @returns {NativeAccessChanged}
   */
  function accessChanged(access) {
    return { type: "access", access: toolAccess(access) };
  }

  /**
   * @param {unknown} value
   * @param {unknown} value
   * @returns {value is BackgroundToNative}
   */
  function isBackgroundToNative(value) {
    if (!isObject(value)) return false;
    if (value.type === "access") return isToolAccess(value.access);
    if (value.type === "hello") {
      return (
        (value.browser === "chrome" || value.browser === "firefox") &&
        typeof value.extensionVersion === "string" &&
        value.protocol === PROTOCOL_VERSION
      );
    }
    return value.type === "result" && typeof value.id === "string" && isReply(value);
  }

  // ---- BackgroundToContent: what the background asks a frame's content script. ----

  const CONTENT_TOOLS = Object.freeze([
    "get_accessibility_tree",
    // The core's output for a read a frame handed to the background (background/core/tree-hand-off.js).
    "tree_core_answer",
    "snapshot_document",
    // Loads the frame's tree core ahead of its first read (background/core/core-warmup.js).
    "prepare_core",
    "click_element",
    "observe_click",
    "type_text",
    "fill_field",
    "select_option",
    // One field of fill_form (content/actions/form-fill.js): the background sends them one by one.
    "fill_form_field",
    // upload_file's extension route (content/actions/upload.js): the files, built from the bytes.
    "attach_files",
    "hover_element",
    "drag_element",
    "press_key",
    "scroll",
    "dom_quiet",
    "begin_external_input",
    "finish_external_input",
    "abort_external_input",
    // A Firefox drag whose press was real input (content/actions/drag.js, continueAfterRealPress).
    "continue_external_drag",
    "element_rect",
    "frame_offset",
    // resize in the user's own browser (background/tabs/window-size.js): the viewport's size.
    "viewport_size",
    // The masks a screenshot paints over secret fields (content/dom/secret-masks.js).
    "paint_secret_masks",
    "remove_secret_masks",
    // get_shadow_dom and shadow_dom_query (docs/protocol/shadow-and-execute-js.md, "Shadow roots"): the open roots a
    // content script reads, and the short-lived marker that names a ref's element to the
    // background's debugger query in Chrome.
    "read_shadow_roots",
    "query_shadow_roots",
    "mark_shadow_host",
    "unmark_shadow_host",
    // The background's liveness probe of a frame that is slow to answer (background/frames/frames.js):
    // a frame whose page sits behind a user prompt cannot answer even this.
    "ping",
    // Frames (docs/protocol/frames.md, "Frames"): the <iframe> elements of this document that hold the
    // given child frames, and the unsaved work promote_iframe would discard.
    "child_frames",
    "draft_state",
    // Chrome's trusted fallback click (docs/protocol/action-safety.md, "A ref means one element"): the clicked
    // element marked for the debugger's re-check after it attached, and the marker removed.
    "mark_trusted_target",
    "unmark_trusted_target",
    // wait_for's looks (content/actions/wait-conditions.js): whether a text is shown in the frame,
    // and the state of a ref's element.
    "text_shown",
    "element_state",
  ]);

  /**
   * @param {ContentToolRequest["tool"]} tool
   * @param {ContentToolRequest["arguments"]} toolArguments
   * @returns {ContentToolRequest}
   */
  function contentToolRequest(tool, toolArguments) {
    // The union pairs each tool with its own arguments; a caller names the pair it sends.
    return /** @type {ContentToolRequest} */ ({ kind: "allwright/tool", tool, arguments: toolArguments });
  }

  /**
   * @param {unknown} value
   * @param {unknown} value
   * @returns {value is ContentToolRequest}
   */
  function isContentToolRequest(value) {
    return (
      isObject(value) &&
      value.kind === "allwright/tool" &&
      CONTENT_TOOLS.includes(value.tool) &&
      isObject(value.arguments)
    );
  }

  /**
   * @param {unknown} value
   * @param {unknown} value
   * @returns {value is ContentToolReply}
   */
  function isContentToolReply(value) {
    return isObject(value) && isReply(value);
  }

  // ---- ContentToBackground: what a content script asks the background. ----

  /**
   * @param {string[]} metaPolicies
   * @returns {LoadCoreRequest}
   */
  function loadCoreRequest(metaPolicies) {
    return { kind: "allwright/load-core", metaPolicies };
  }

  /**
   * @param {unknown} value
   * @param {unknown} value
   * @returns {value is LoadCoreRequest}
   */
  function isLoadCoreRequest(value) {
    return (
      isObject(value) &&
      value.kind === "allwright/load-core" &&
      Array.isArray(value.metaPolicies) &&
      value.metaPolicies.every((policy) => typeof policy === "string")
    );
  }

  const CORE_CALL_OPERATIONS = Object.freeze(["buildTextTree", "diffLines", "writeSnapshotDocument"]);

  /**
   * @param {CoreCallRequest["operation"]} operation
   * @param {CoreCallRequest["strings"]} strings
   * @param {CoreCallRequest["packed"]} packed
   * @param {CoreCallRequest["pseudo"]} pseudo
   * @param {CoreCallRequest["options"]} options
   * @param {CoreCallRequest["recordCapacity"]} recordCapacity
   * @returns {CoreCallRequest}
   */
  function coreCallRequest(operation, strings, packed, pseudo, options, recordCapacity) {
    return { kind: "allwright/core-call", operation, strings, packed, pseudo, options, recordCapacity };
  }

  /**
   * The shape only: the worker checks every option's type itself, and the core reads the bytes
   * as untrusted (crates/allwright-ax-wasm/src/packed.rs).
   * @param {unknown} value
   * @returns {value is CoreCallRequest}
   */
  function isCoreCallRequest(value) {
    return (
      isObject(value) &&
      value.kind === "allwright/core-call" &&
      CORE_CALL_OPERATIONS.includes(value.operation) &&
      typeof value.strings === "string" &&
      value.packed instanceof Uint8Array &&
      Array.isArray(value.pseudo) &&
      isObject(value.options) &&
      Number.isSafeInteger(value.recordCapacity) &&
      value.recordCapacity >= 0
    );
  }

  /**
   * @param {unknown} value
   * @param {unknown} value
   * @returns {value is CoreCallReply}
   */
  function isCoreCallReply(value) {
    return (
      isObject(value) &&
      ((value.ok === true && typeof value.output === "string" && value.records instanceof Uint8Array) ||
        (value.ok === false && isToolError(value.error)))
    );
  }

  /**
   * A frame's hand-off of its read (TreeCoreHandOff), checked field by field: the background
   * builds the agent's result from `prepared` (shared/tree-result.js).
   * @param {unknown} value
   * @returns {value is TreeCoreHandOff}
   */
  function isTreeCoreHandOff(value) {
    if (!isObject(value) || typeof value.readId !== "string" || !isCoreCallRequest(value.request)) return false;
    const prepared = value.prepared;
    return (
      isObject(prepared) &&
      Number.isSafeInteger(prepared.counter) &&
      prepared.counter >= 0 &&
      typeof prepared.document === "string" &&
      typeof prepared.url === "string" &&
      typeof prepared.title === "string" &&
      (prepared.cutNotice === null || typeof prepared.cutNotice === "string") &&
      isObject(prepared.sinceFields) &&
      (prepared.snapshotId === null || typeof prepared.snapshotId === "string") &&
      Number.isSafeInteger(prepared.lineCapacity) &&
      prepared.lineCapacity >= 0 &&
      isObject(prepared.engine) &&
      typeof prepared.engine.engine === "string"
    );
  }

  /** @returns {ReadStartedNotice} */
  function readStartedNotice() {
    return { kind: "allwright/read-started" };
  }

  /**
   * @param {unknown} value
   * @param {unknown} value
   * @returns {value is ReadStartedNotice}
   */
  function isReadStartedNotice(value) {
    return isObject(value) && value.kind === "allwright/read-started";
  }

  /** @returns {ReadFinishedNotice} */
  function readFinishedNotice() {
    return { kind: "allwright/read-finished" };
  }

  /**
   * @param {unknown} value
   * @param {unknown} value
   * @returns {value is ReadFinishedNotice}
   */
  function isReadFinishedNotice(value) {
    return isObject(value) && value.kind === "allwright/read-finished";
  }
  /** The most console entries one notice carries (content/console-relay.js batches them). */
  const MOST_CONSOLE_ENTRIES_PER_NOTICE = 200;

  /**
   * @param {ConsoleEntriesNotice["entries"]} entries
   * @returns {ConsoleEntriesNotice}
   */
  function consoleEntriesNotice(entries) {
    return { kind: "allwright/console-entries", entries };
  }

  /**
   * The shape only: the background reads each entry's fields as untrusted page data
   * (background/records/console-records.js).
   * @param {unknown} value
   * @returns {value is ConsoleEntriesNotice}
   */
  function isConsoleEntriesNotice(value) {
    return (
      isObject(value) &&
      value.kind === "allwright/console-entries" &&
      Array.isArray(value.entries) &&
      value.entries.length <= MOST_CONSOLE_ENTRIES_PER_NOTICE &&
      value.entries.every(isObject)
    );
  }

  /**
   * @param {unknown} value
   * @param {unknown} value
   * @returns {value is LoadCoreReply}
   */
  function isLoadCoreReply(value) {
    return (
      isObject(value) &&
      (value.core === "wasm" ||
        value.core === "js" ||
        value.core === "worker" ||
        (value.ok === false && isToolError(value.error)))
    );
  }

  // ---- The side panel's port (BackgroundToPanel, PanelToBackground). ----

  /** The name of the side panel's runtime port. */
  const PANEL_PORT_NAME = "allwright-panel";

  /**
   * @param {any} state the background's own record, sent as it is (docs/protocol/access.md, "The side panel")
   * @returns {BackgroundToPanel}
   */
  function panelState(state) {
    return { type: "state", state };
  }

  /**
   * @param {any} calls the background's own record, sent as it is (docs/protocol/access.md, "The side panel")
   * @returns {BackgroundToPanel}
   */
  function panelCalls(calls) {
    return { type: "calls", calls };
  }

  /**
   * @param {any} call the background's own record, sent as it is (docs/protocol/access.md, "The side panel")
   * @returns {BackgroundToPanel}
   */
  function panelCall(call) {
    return { type: "call", call };
  }

  /**
   * @param {ToolAccess} access
   * @returns {PanelToBackground}
   */
  function panelSetAccess(access) {
    return { type: "setAccess", access: toolAccess(access) };
  }

  /**
   * @param {unknown} value
   * @param {unknown} value
   * @returns {value is PanelToBackground}
   */
  function isPanelSetAccess(value) {
    return isObject(value) && value.type === "setAccess" && isToolAccess(value.access);
  }

  // ---- Errors. ----

  /**
   * Builds a structured error; optional fields are left out rather than set to undefined, so
   * the object serializes the same way on every hop.
   * @param {ErrorCode} code
   * @param {string} message
   * @param {{hint?: string, suggestions?: string[], dialog?: OpenDialog, candidates?: FrameCandidate[],
   *   reasons?: string[], changed?: RefChange}} [extra]
   * @returns {ToolError}
   */
  function toolError(code, message, extra = {}) {
    /** @type {ToolError} */
    const error = { code, message };
    if (typeof extra.hint === "string" && extra.hint !== "") error.hint = extra.hint;
    if (Array.isArray(extra.suggestions)) error.suggestions = extra.suggestions.map(String);
    if (isOpenDialog(extra.dialog)) error.dialog = { type: extra.dialog.type, message: extra.dialog.message };
    if (Array.isArray(extra.candidates) && extra.candidates.every(isFrameCandidate)) {
      error.candidates = extra.candidates.map(({ index, frameId, url }) => ({ index, frameId, url }));
    }
    if (Array.isArray(extra.reasons)) error.reasons = extra.reasons.map(String);
    if (isRefChange(extra.changed)) {
      const { ref, was, now } = extra.changed;
      error.changed = { ref, was: { role: was.role, name: was.name }, now: { role: now.role, name: now.name } };
    }
    // The call may have acted: never repeated (docs/protocol/action-safety.md, "Nothing done twice"), as the
    // binary's ToolError::outcome_unknown says too.
    if (code === "outcome_unknown") error.retryAllowed = false;
    return error;
  }

  /**
   * @param {unknown} value
   * @param {unknown} value
   * @returns {value is RefChange}
   */
  function isRefChange(value) {
    const isRoleAndName = (/** @type {unknown} */ side) =>
      isObject(side) && typeof side.role === "string" && typeof side.name === "string";
    return isObject(value) && typeof value.ref === "string" && isRoleAndName(value.was) && isRoleAndName(value.now);
  }

  /**
   * @param {unknown} value
   * @param {unknown} value
   * @returns {value is FrameCandidate}
   */
  function isFrameCandidate(value) {
    return (
      isObject(value) &&
      Number.isInteger(value.index) &&
      Number.isInteger(value.frameId) &&
      typeof value.url === "string"
    );
  }

  /**
   * @param {unknown} value
   * @param {unknown} value
   * @returns {value is OpenDialog}
   */
  function isOpenDialog(value) {
    return isObject(value) && DIALOG_TYPES.includes(value.type) && typeof value.message === "string";
  }

  /**
   * @param {unknown} value
   * @param {unknown} value
   * @returns {value is ToolError}
   */
  function isToolError(value) {
    return (
      isObject(value) &&
      ERROR_CODES.includes(value.code) &&
      typeof value.message === "string" &&
      (value.hint === undefined || typeof value.hint === "string") &&
      (value.suggestions === undefined ||
        (Array.isArray(value.suggestions) && value.suggestions.every((s) => typeof s === "string"))) &&
      (value.dialog === undefined || isOpenDialog(value.dialog)) &&
      (value.candidates === undefined ||
        (Array.isArray(value.candidates) && value.candidates.every(isFrameCandidate))) &&
      (value.reasons === undefined ||
        (Array.isArray(value.reasons) && value.reasons.every((reason) => typeof reason === "string"))) &&
      (value.changed === undefined || isRefChange(value.changed)) &&
      (value.retryAllowed === undefined || value.retryAllowed === false)
    );
  }

  // A reply is either `{ok: true, result}` with an object result or `{ok: false, error}`.
  /** @param {Record<string, any>} value */
  function isReply(value) {
    if (value.ok === true) return isObject(value.result);
    return value.ok === false && isToolError(value.error);
  }

  /**
   * The first step of every guard: whatever arrived from another process, a page or storage is
   * an object whose fields are not known yet, hence `any` for them; the guards check each.
   * @param {unknown} value
   * @returns {value is Record<string, any>}
   */
  function isObject(value) {
    return typeof value === "object" && value !== null && !Array.isArray(value);
  }

  return Object.freeze({
    ERROR_CODES,
    DIALOG_TYPES,
    TOOL_TIERS,
    PANEL_PORT_NAME,
    PROTOCOL_VERSION,
    CONTENT_TOOLS,
    // NativeToBackground
    isNativeCall,
    isNativeChunk,
    isNativeSession,
    isNativeSessionEnded,
    // Tool access
    isToolAccess,
    toolAccess,
    // BackgroundToNative
    accessChanged,
    hello,
    resultOk,
    resultError,
    isBackgroundToNative,
    // BackgroundToContent
    contentToolRequest,
    isContentToolRequest,
    isContentToolReply,
    // ContentToBackground
    loadCoreRequest,
    isLoadCoreRequest,
    readStartedNotice,
    isReadStartedNotice,
    readFinishedNotice,
    isReadFinishedNotice,
    consoleEntriesNotice,
    isConsoleEntriesNotice,
    isLoadCoreReply,
    coreCallRequest,
    isCoreCallRequest,
    isCoreCallReply,
    isTreeCoreHandOff,
    // BackgroundToPanel, PanelToBackground
    panelState,
    panelCalls,
    panelCall,
    panelSetAccess,
    isPanelSetAccess,
    // Errors
    toolError,
    isToolError,
  });
}
