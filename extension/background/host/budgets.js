// @ts-check
// The background's time budgets, in one module with no imports so that a host test can read them
// as data (docs/protocol/host-safety.md, "Bounds and deadlines"). Each hop's deadline exceeds the budget it
// waits on: the MCP server waits W (src/tools/definition.rs, HostWait), the host answers
// `timeout` at W - 2 s, the background's call deadline (call-deadline.js) answers at W - 4 s, and
// each step below has its own, shorter deadline, so the agent hears the most specific error and
// never a reply after it was told "timeout".

/** After this long without an answer, a frame is asked whether it runs at all (`ping`). */
export const PROBE_AFTER_MS = 2_000;

/**
 * How long a probe may go unanswered before the frame counts as blocked. Long enough for a frame
 * busy with a large tree (the 10k-element page takes about a second) to answer between its
 * tasks. Near the deadline a probe gets only what is left, and at least LAST_PROBE_BUDGET_MS.
 */
export const PROBE_BUDGET_MS = 8_000;

/** At the deadline, how long the last probe may take. */
export const LAST_PROBE_BUDGET_MS = 1_000;

/**
 * How far past its deadline one frame call (frames.js callFrame) may answer: a probe begun just
 * before the deadline, then the last probe, each at most LAST_PROBE_BUDGET_MS.
 */
export const FRAME_CALL_OVERRUN_MS = 2 * LAST_PROBE_BUDGET_MS;

/** How long one frame may take to build its tree before the read gives up. */
export const TREE_TIMEOUT_MS = 45_000;

/** How long get_frames waits for one frame's content script to answer (after injecting it). */
export const FRAME_PING_TIMEOUT_MS = 2_000;

/** How long get_shadow_dom and shadow_dom_query's content script may take to read or mark. */
export const SHADOW_DOM_FRAME_TIMEOUT_MS = 45_000;

/** How long a frame may take to scroll the screenshot's element into view and measure it. */
export const SCREENSHOT_ELEMENT_TIMEOUT_MS = 15_000;

/** How long the frames of a tab may take to paint (or take away) the masks over secret fields. */
export const SECRET_MASK_TIMEOUT_MS = 5_000;

/** How long one content-side action may take (set_field waits for listboxes, for instance). */
export const ACTION_TIMEOUT_MS = 15_000;

/**
 * How long fill_form may spend on its fields (actions.js, fillForm): a field starts only while a
 * whole ACTION_TIMEOUT_MS is left of it, so the fields end within it, and the ones left are
 * reported as not attempted. The MCP server waits two minutes (src/tools/table.rs).
 */
export const FORM_FILL_FIELDS_MS = 90_000;

/** How long an action that started a navigation waits for the new document to load. */
export const NAVIGATION_SETTLE_MS = 10_000;

/** How long a navigation may take before the call fails with `timeout`, unless the call says. */
export const DEFAULT_NAVIGATION_TIMEOUT_MS = 30_000;

/**
 * How long an aborted load may be followed by its continuation (navigation.js). Firefox aborts
 * and restarts a load when it moves the tab to another process (the first attempt reports
 * NS_BINDING_ABORTED, "Error code 2152398850"), and a navigation we replaced reports its abort
 * late; a load that is really over (a download, a 204) has no continuation.
 */
export const ABORT_GRACE_MS = 2_000;

/** How long promote_iframe waits for a frame's unsaved-state report. */
export const DRAFT_STATE_TIMEOUT_MS = 5_000;

/** What the debugger adds to execute_js's own time for describing its value. */
export const DESCRIBE_BUDGET_MS = 5_000;

/** How long resize waits for a window to take its new size before measuring what it got. */
export const RESIZE_SETTLE_MS = 3_000;

/** How long resize's measurement of the viewport may take in the top frame. */
export const RESIZE_FRAME_TIMEOUT_MS = 5_000;

/**
 * How long get_download waits for one of the agent's downloads in progress to finish
 * (agent-downloads.js); a longer one answers `in_progress` and the agent asks again.
 */
export const DOWNLOAD_FINISH_WAIT_MS = 15_000;

/** How long save_pdf's print of the page may take (Chrome's debugger, Page.printToPDF). */
export const PRINT_TO_PDF_MS = 30_000;

/**
 * Each tool's longest single wait in the background: `fixedMs`, or `timeoutPlusMs` on top of the
 * call's `timeoutMs`. A step that runs out reports its own error (a frame's `timeout`, a load's
 * `timeout`); a call whose steps together run longer is cut by the call deadline. The host test
 * `the_mcp_waits_exceed_the_background_budgets` checks that every one fits inside the call
 * deadline the MCP server's wait leaves.
 * @type {Readonly<Record<string, {fixedMs: number} | {timeoutPlusMs: number}>>}
 */
export const TOOL_BUDGETS = Object.freeze({
  get_accessibility_tree: { fixedMs: TREE_TIMEOUT_MS + FRAME_CALL_OVERRUN_MS },
  iframe_read: { fixedMs: TREE_TIMEOUT_MS + FRAME_CALL_OVERRUN_MS },
  get_frames: { fixedMs: FRAME_PING_TIMEOUT_MS + FRAME_CALL_OVERRUN_MS },
  accessibility_snapshot: { timeoutPlusMs: FRAME_CALL_OVERRUN_MS },
  get_shadow_dom: { fixedMs: SHADOW_DOM_FRAME_TIMEOUT_MS + FRAME_CALL_OVERRUN_MS },
  shadow_dom_query: { fixedMs: SHADOW_DOM_FRAME_TIMEOUT_MS + FRAME_CALL_OVERRUN_MS },
  screenshot: { fixedMs: SCREENSHOT_ELEMENT_TIMEOUT_MS + 2 * SECRET_MASK_TIMEOUT_MS + FRAME_CALL_OVERRUN_MS },
  save_pdf: { fixedMs: PRINT_TO_PDF_MS },
  navigate: { timeoutPlusMs: ABORT_GRACE_MS },
  go_back: { timeoutPlusMs: ABORT_GRACE_MS },
  go_forward: { timeoutPlusMs: ABORT_GRACE_MS },
  reload: { timeoutPlusMs: ABORT_GRACE_MS },
  new_tab: { timeoutPlusMs: ABORT_GRACE_MS },
  promote_iframe: { timeoutPlusMs: DRAFT_STATE_TIMEOUT_MS + FRAME_CALL_OVERRUN_MS + ABORT_GRACE_MS },
  click_ax: { fixedMs: ACTION_TIMEOUT_MS + FRAME_CALL_OVERRUN_MS + NAVIGATION_SETTLE_MS },
  iframe_click: { fixedMs: ACTION_TIMEOUT_MS + FRAME_CALL_OVERRUN_MS + NAVIGATION_SETTLE_MS },
  type_ax: { fixedMs: ACTION_TIMEOUT_MS + FRAME_CALL_OVERRUN_MS + NAVIGATION_SETTLE_MS },
  iframe_type: { fixedMs: ACTION_TIMEOUT_MS + FRAME_CALL_OVERRUN_MS + NAVIGATION_SETTLE_MS },
  set_field: { fixedMs: ACTION_TIMEOUT_MS + FRAME_CALL_OVERRUN_MS + NAVIGATION_SETTLE_MS },
  select_option: { fixedMs: ACTION_TIMEOUT_MS + FRAME_CALL_OVERRUN_MS + NAVIGATION_SETTLE_MS },
  fill_form: { fixedMs: FORM_FILL_FIELDS_MS + FRAME_CALL_OVERRUN_MS + NAVIGATION_SETTLE_MS },
  // One frame call (bridge_attach_files, or the real route's begin and finish), as a click's.
  upload_file: { fixedMs: ACTION_TIMEOUT_MS + FRAME_CALL_OVERRUN_MS + NAVIGATION_SETTLE_MS },
  hover: { fixedMs: ACTION_TIMEOUT_MS + FRAME_CALL_OVERRUN_MS + NAVIGATION_SETTLE_MS },
  drag: { fixedMs: ACTION_TIMEOUT_MS + FRAME_CALL_OVERRUN_MS + NAVIGATION_SETTLE_MS },
  press_key: { fixedMs: ACTION_TIMEOUT_MS + FRAME_CALL_OVERRUN_MS + NAVIGATION_SETTLE_MS },
  scroll: { fixedMs: ACTION_TIMEOUT_MS + FRAME_CALL_OVERRUN_MS + NAVIGATION_SETTLE_MS },
  // The content side's dom_quiet gets the remaining time plus one second (actions.js).
  wait_for_stable: { timeoutPlusMs: 1_000 + FRAME_CALL_OVERRUN_MS },
  // The last look may start at the deadline and take a frame's ping budget (wait-for.js).
  wait_for: { timeoutPlusMs: FRAME_PING_TIMEOUT_MS + FRAME_CALL_OVERRUN_MS },
  // Every frame's read shares one read budget (find.js).
  find: { fixedMs: TREE_TIMEOUT_MS + FRAME_CALL_OVERRUN_MS },
  execute_js: { timeoutPlusMs: DESCRIBE_BUDGET_MS },
  // One step: the window settles while its viewport is measured, each measurement a frame call.
  resize: { fixedMs: RESIZE_SETTLE_MS + RESIZE_FRAME_TIMEOUT_MS + FRAME_CALL_OVERRUN_MS },
  // Browser API calls only: no step of their own waits.
  list_tabs: { fixedMs: 0 },
  // The background's own records (network-records.js).
  network_requests: { fixedMs: 0 },
  list_downloads: { fixedMs: 0 },
  get_download: { fixedMs: DOWNLOAD_FINISH_WAIT_MS },
  console_messages: { fixedMs: 0 },
  select_tab: { fixedMs: 0 },
  close_tab: { fixedMs: 0 },
});
