//! The tools of docs/protocol/tools.md ("The tool table"), as one table: the single source of the tool contract.
//! Each row holds the tool's description for the model, its arguments with their limits and
//! defaults, the rules across arguments, the tiers that list it, whether it only reads or may
//! destroy, and how long the server waits for it. The MCP schemas (`schema.rs`), the checks
//! (`validation.rs`) and the extension's `extension/shared/tool-contract.json` (`contract.rs`)
//! are all derived from it, so they cannot disagree. The behaviour each description promises is
//! written down in docs/agent-tools.md.

use std::time::Duration;

use super::definition::{
    Argument, ArgumentKind, ArgumentRule, HostWait, Literal, ReplyShape, ToolDefinition,
    ONE_MINUTE, OWN_BUDGET,
};
use super::tiers::{
    DEV_ONLY, EVERYWHERE, FROM_COMPACT, FROM_COMPACT_WITH_BRIDGE, FROM_MID, FULL, FULL_AND_DEV_MID,
    FULL_WITH_BRIDGE,
};
use allwright_ax::text::{DEFAULT_MAX_CHARS, DEFAULT_MAX_DEPTH};
use allwright_ax::{Filter, Format as SnapshotFormat};

/// The longest text type_ax and set_field accept in one call.
const MAX_TYPED_CHARS: usize = 50_000;
/// The longest option label or value select_option accepts.
const MAX_OPTION_CHARS: usize = 1_000;

/// The most fields fill_form fills in one call.
const MAX_FORM_FIELDS: usize = 50;

/// The most files upload_file attaches in one call.
const MAX_UPLOAD_FILES: usize = 20;

/// How long the MCP server waits for fill_form: up to 50 fields, each a whole action, within the
/// background's 90 s for the fields (extension/background/host/budgets.js), its settling, and the
/// margins of each hop.
const FORM_FILL_WAIT: HostWait = HostWait::Fixed(Duration::from_secs(120));

/// One item of fill_form's `fields`.
const FORM_FIELDS: &[Argument] = &[
    Argument {
        name: "ref_id",
        kind: ArgumentKind::ElementReference,
        required: true,
        default: None,
        example: None,
        description: "The field: a ref_N printed by get_accessibility_tree (or iframe_read, with frameId).",
    },
    Argument {
        name: "value",
        kind: ArgumentKind::Text {
            min_chars: 0,
            max_chars: MAX_TYPED_CHARS,
        },
        required: true,
        default: None,
        example: None,
        description: "Always a string. A text field's new content (\"\" empties it); \"true\" or \"false\" for a check box, a switch or a radio button; the label of the radio to choose for a radio group; the option's label (or a <select> option's value) for a select, listbox or combobox; a date, time or number input's value in the input's own format (\"2024-12-31\", \"14:30\", \"12.5\").",
    },
];

/// The largest offset drag's `by` accepts on either axis, in CSS pixels: more than any screen.
const MAX_DRAG_OFFSET: i64 = 10_000;

/// One axis of drag's `by`.
const fn drag_offset(name: &'static str, description: &'static str) -> Argument {
    Argument {
        name,
        kind: ArgumentKind::Integer {
            minimum: -MAX_DRAG_OFFSET,
            maximum: MAX_DRAG_OFFSET,
        },
        required: true,
        default: None,
        example: None,
        description,
    }
}

/// The members of drag's `by`.
const DRAG_OFFSET: &[Argument] = &[
    drag_offset("x", "CSS pixels to the right (negative: to the left)."),
    drag_offset("y", "CSS pixels down (negative: up)."),
];

/// The narrowest and lowest viewport resize accepts: below it pages stop being laid out for any
/// real device, and windows cannot be made that small on most desktops.
pub const MIN_VIEWPORT_SIDE: i64 = 200;
/// The widest viewport resize accepts: an 8K screen's width.
pub const MAX_VIEWPORT_WIDTH: i64 = 7_680;
/// The tallest viewport resize accepts: an 8K screen's height.
pub const MAX_VIEWPORT_HEIGHT: i64 = 4_320;
/// The largest device pixel ratio emulate accepts (phones go up to about 4).
const MAX_DEVICE_SCALE_FACTOR: f64 = 8.0;
/// The longest user agent string emulate accepts.
const MAX_USER_AGENT_CHARS: usize = 1_000;

/// The largest tab id. Chrome's and Firefox's tab ids are 32-bit signed integers (`tabs.Tab.id`).
const LARGEST_TAB_ID: i64 = i32::MAX as i64;

const TAB_ID: Argument = Argument {
    name: "tabId",
    kind: ArgumentKind::Integer {
        minimum: 0,
        maximum: LARGEST_TAB_ID,
    },
    required: false,
    default: None,
    example: None,
    description:
        "The browser tab to use. Leave it out to use the active tab of the last focused window.",
};

/// The largest frame id: browsers hand out frame ids up to JavaScript's largest safe integer
/// (Firefox's are often above 2^32).
const LARGEST_FRAME_ID: i64 = 9_007_199_254_740_991;

/// `frameId` of the tools that act in one frame.
const ACTION_FRAME_ID: Argument = Argument {
    name: "frameId",
    kind: ArgumentKind::Integer {
        minimum: 0,
        maximum: LARGEST_FRAME_ID,
    },
    required: false,
    default: None,
    example: None,
    description: "The frame to act in: the one whose tree printed ref_id (accessibility_snapshot names each frame's document `tab-T.frame-F`; F is its frameId). Leave it out for the top document (frame 0).",
};

/// `text` of type_ax and set_field.
const TYPED_TEXT: Argument = Argument {
    name: "text",
    kind: ArgumentKind::Text {
        min_chars: 0,
        max_chars: MAX_TYPED_CHARS,
    },
    required: true,
    default: None,
    example: Some(Literal::Text("hello")),
    description: "The text to type, at most 50000 characters. An empty string with clear: true empties the field.",
};

/// `clear` of type_ax and set_field.
const CLEAR: Argument = Argument {
    name: "clear",
    kind: ArgumentKind::Boolean,
    required: false,
    default: Some(Literal::Boolean(true)),
    example: None,
    description: "true: replace the field's content; false: append to it.",
};

/// `timeoutMs` of the tools that wait for a page to load.
const LOAD_TIMEOUT: Argument = Argument {
    name: "timeoutMs",
    kind: ArgumentKind::Integer {
        minimum: 1_000,
        maximum: 300_000,
    },
    required: false,
    default: Some(Literal::Number(30_000)),
    example: None,
    description: "How long the page may take to load, in milliseconds.",
};

/// `ref_id` of the tools whose target is required.
const fn target(description: &'static str) -> Argument {
    Argument {
        name: "ref_id",
        kind: ArgumentKind::ElementReference,
        required: true,
        default: None,
        example: Some(Literal::Text("ref_12")),
        description,
    }
}

/// `ref_id` of the tools that work on the page, or on one element when it is given.
const fn optional_target(description: &'static str) -> Argument {
    Argument {
        required: false,
        ..target(description)
    }
}

/// `filter` of the tree reads.
const TREE_FILTER: Argument = Argument {
    name: "filter",
    kind: ArgumentKind::Choice(&Filter::NAMES),
    required: false,
    default: Some(Literal::Text("all")),
    example: None,
    description: "\"all\": the whole page; \"visible\": only what is in the viewport; \"interactive\": only elements you can click or type into.",
};

/// `maxDepth` of the tree reads.
const TREE_MAX_DEPTH: Argument = Argument {
    name: "maxDepth",
    kind: ArgumentKind::Integer {
        minimum: 1,
        maximum: 100,
    },
    required: false,
    default: Some(Literal::Number(DEFAULT_MAX_DEPTH as i64)),
    example: None,
    description: "How deep to descend. Skipped generic containers do not count.",
};

/// `maxChars` of the tree reads.
const TREE_MAX_CHARS: Argument = Argument {
    name: "maxChars",
    kind: ArgumentKind::Integer {
        minimum: 100,
        maximum: 1_000_000,
    },
    required: false,
    default: Some(Literal::Number(DEFAULT_MAX_CHARS as i64)),
    example: None,
    description: "Hard limit on the tree's length; longer output is paged and marked autoDegraded. Up to 1000000 for one long read.",
};

/// `page` of the tree reads.
const TREE_PAGE: Argument = Argument {
    name: "page",
    kind: ArgumentKind::Integer {
        minimum: 1,
        maximum: 1_000_000,
    },
    required: false,
    default: None,
    example: None,
    description:
        "1-based page of a tree that did not fit; prefer passing continuationArgs exactly.",
};

/// `since` of the tree reads (docs/protocol/reading.md, "Reads since a snapshot").
const TREE_SINCE: Argument = Argument {
    name: "since",
    kind: ArgumentKind::Text {
        min_chars: 1,
        max_chars: 100,
    },
    required: false,
    default: None,
    example: Some(Literal::Text("s-0123abcd-3")),
    description: "The snapshotId of an earlier read of the same frame with the same filter, maxDepth and ref_id: return only what changed since then (`full: false`; `unchanged: true` when nothing did). The whole tree comes back instead, with `full: true` and `fullReason`, when the page is another document, the snapshot is unknown, the arguments differ, or the changes are at least half as long as the whole tree.",
};

/// `frameId` of the iframe tools, which always name their frame.
const IFRAME_FRAME_ID: Argument = Argument {
    name: "frameId",
    kind: ArgumentKind::Integer {
        minimum: 0,
        maximum: LARGEST_FRAME_ID,
    },
    required: true,
    default: None,
    example: Some(Literal::Number(3)),
    description: "The frame: a frameId from get_frames, or the `frameId=` printed on an iframe's line of the tree.",
};

/// The longest CSS selector the shadow DOM tools accept.
const MAX_SELECTOR_CHARS: usize = 1_000;

/// `verbose` of the tools whose reply is short (src/mcp_reply.rs, docs/protocol/tools.md "Replies"): the
/// MCP server shapes the reply with it and never sends it to the browser. No default in the
/// contract: the extension fills in defaults, and an argument it never receives has none to fill.
const VERBOSE: Argument = Argument {
    name: "verbose",
    kind: ArgumentKind::Boolean,
    required: false,
    default: None,
    example: None,
    description: "true: return the whole result object (every field the tool computed) instead of the short reply. Leave it out (false) for the short reply.",
};

/// The sequence numbers of console entries and requests stay below JavaScript's exact integers.
const LARGEST_SEQUENCE: i64 = 9_007_199_254_740_991;

/// `limit` of console_messages and network_requests: the newest entries kept.
const OBSERVATIONS_LIMIT: Argument = Argument {
    name: "limit",
    kind: ArgumentKind::Integer {
        minimum: 1,
        maximum: 500,
    },
    required: false,
    default: Some(Literal::Number(50)),
    example: None,
    description: "The most entries listed: the newest of those that match.",
};

/// What every action tool's short reply is (src/mcp_reply.rs, docs/protocol/tools.md "Replies"), said
/// once for the six descriptions that share it.
macro_rules! action_reply {
    () => {
        "Returns a JSON header line {progress?, effect?, retryAllowed?, hint?, changes?, ...} (`progress` left out when it is observed and changed lines follow; `effect`: the evidence of progress the lines below do not show; retryAllowed only when false), then, when the action changed lines of the tree you last read, those lines as a read `since` prints them ([changed] parts under [unchanged]; `wholeTree: true` when they are the whole tree, shorter than the changed parts; `changes: \"none\"` when no line changed; `removedRefs`: how many refs went away)"
    };
}

pub const TOOLS: &[ToolDefinition] = &[
    ToolDefinition {
        name: "get_accessibility_tree",
        title: "Read the page",
        description: "Reads the current page as a compact accessibility tree, one line per element:\n\
`role \"accessible name\" [ref_N] href=\"...\" type=\"...\" placeholder=\"...\" value=\"...\"`, indented one space per level.\n\
Call it first on almost every turn: it is faster and cheaper than a screenshot, and the ref_N ids it prints are how you point at elements. A line prints its ref_N only where a tool can use it: controls, links, focusable elements, frames, images, and containers to zoom into (landmarks, lists, tables, articles, dialogs); other lines (paragraphs, headings, list items, cells) have none, and may show their first words in the name's place. Open dialogs, menus, listboxes and expanded comboboxes (including popups rendered in portals) are listed first, under an `[open overlays]` banner.\n\
Returns a JSON header line (snapshotId, and paging, truncation and `since` fields when they apply), then the tree text; verbose: true returns the whole {tree, snapshotId, truncated, hasMore, autoDegraded, notice?, page, pageCount, continuationArgs?, conversationRootRefId?, allMessagesExpanded?, coverage?, url, title, engine}; with `since` also {full, fullReason?, unchanged?, changedBlocks?, removedRefs?}. `engine` says where the reader ran: \"wasm-page\", \"wasm-worker\" or \"js-page\".\n\
After an action, re-read cheaply with `since` = the last result's snapshotId: the tree then holds only `[changed]` blocks (each changed or added part printed whole) under `[unchanged]` lines (its ancestors, a heading after a region that leaves its name to it, and the sibling an added part follows); `removedRefs` left the tree; every other ref of that snapshot is unchanged and still valid. `full: true` means the whole tree was returned instead (`fullReason` says why).\n\
When to call it again:\n\
- truncated/hasMore is true: call again with exactly `continuationArgs` to read the next page, or pass `ref_id` of a container to zoom into it.\n\
- to read a whole conversation (mail thread, chat, comments): pass `ref_id` = `conversationRootRefId` and follow `continuationArgs` page by page until `coverage.complete` is true; document-root, repeated, skipped or other-ref pages do not count. `allMessagesExpanded: false` means some messages are collapsed: click \"Expand all\" first.\n\
- after navigate, after anything that re-renders the page, or when a ref fails: refs of removed elements stop resolving, so read the tree again.\n\
- a popup or dropdown you expect is missing: read again with filter \"all\" and look under `[open overlays]`.\n\
The tree does not enter iframes: an iframe's line shows its `frameId=N`; read it with iframe_read (accessibility_snapshot includes every frame). A host whose closed shadow root could not be read is marked `closed-shadow-root`.\n\
Common errors: ref_not_found (the element behind ref_id is gone; use one of `suggestions` or read without ref_id), page_out_of_range (ask for a page between 1 and pageCount), no_tab (no page is open: call navigate), not_connected (no browser with the extension is reachable: tell the user).",
        arguments: &[
            TREE_FILTER,
            TREE_MAX_DEPTH,
            TREE_MAX_CHARS,
            optional_target("Read only the subtree of this element (a ref_N from an earlier tree), for example one message of a thread."),
            TREE_PAGE,
            TREE_SINCE,
            Argument {
                name: "frameId",
                kind: ArgumentKind::Integer { minimum: 0, maximum: LARGEST_FRAME_ID },
                required: false,
                default: None,
                example: None,
                description: "Read this frame of the tab instead of the top document (0 is the top document); iframe_read does the same. get_frames and the `frameId=` of an iframe's line give frame ids.",
            },
            VERBOSE,
            TAB_ID,
        ],
        rules: &[],
        read_only: true,
        availability: EVERYWHERE,
        destructive: false,
        host_wait: ONE_MINUTE,
        reply: ReplyShape::TreeRead,
    },
    ToolDefinition {
        name: "get_frames",
        title: "List the page's frames",
        description: "Lists every frame of the tab, cross-origin ones included, as the browser's frame inventory knows them.\n\
Returns {frames: [{frameId, parentFrameId, url, origin, width?, height?, visible?, contentScript}]}: the top document is frameId 0 with parentFrameId -1; `width`, `height` and `visible` describe the <iframe> element in its parent (left out when the parent cannot tell); `contentScript` is false for a frame allwright cannot read (a browser page, a frame the extension may not enter).\n\
Use it to find a frameId for iframe_read, iframe_click and iframe_type, or the URL to give promote_iframe.\n\
Common errors: no_tab (call navigate first), not_connected (no browser with the extension is reachable: tell the user).",
        arguments: &[TAB_ID],
        rules: &[],
        read_only: true,
        availability: FULL_AND_DEV_MID,
        destructive: false,
        host_wait: ONE_MINUTE,
        reply: ReplyShape::WholeResult,
    },
    ToolDefinition {
        name: "iframe_read",
        title: "Read an iframe",
        description: "Reads one iframe's document as an accessibility tree, with the same arguments and result as get_accessibility_tree, cross-origin frames included. get_accessibility_tree does not enter iframes: an iframe's line shows `frameId=N` when its frame is known; get_frames lists them all.\n\
The refs it prints belong to that frame: act on them with iframe_click and iframe_type (or any action tool with the same frameId). A ref of one frame is refused in another (ref_in_other_frame).\n\
Returns a JSON header line (snapshotId, and paging, truncation and `since` fields when they apply), then the tree text; verbose: true returns the whole {tree, snapshotId, truncated, hasMore, autoDegraded, notice?, page, pageCount, continuationArgs?, url, title, frameId, engine}; `since` (a snapshotId of an earlier read of this frame) returns only what changed, as for get_accessibility_tree.\n\
Common errors: frame_not_found (no frame has this id: `suggestions` lists the tab's frames), ref_not_found (use one of `suggestions`), page_blocked (the frame stopped answering, most likely behind a dialog), no_tab (call navigate first).",
        arguments: &[
            IFRAME_FRAME_ID,
            TREE_FILTER,
            TREE_MAX_DEPTH,
            TREE_MAX_CHARS,
            optional_target("Read only the subtree of this element of the frame (a ref_N from an earlier read of the same frame)."),
            TREE_PAGE,
            TREE_SINCE,
            VERBOSE,
            TAB_ID,
        ],
        rules: &[],
        read_only: true,
        availability: EVERYWHERE,
        destructive: false,
        host_wait: ONE_MINUTE,
        reply: ReplyShape::TreeRead,
    },
    ToolDefinition {
        name: "find",
        title: "Find elements on the page",
        description: "Searches the page's accessibility tree, every frame and open shadow root included, and returns only the lines that match, each after the path of its ancestors: `main > form \"Shipping\" > group \"Address\" > textbox \"Street\" [ref_7]`. A few hundred characters instead of a whole read, when you know what you are looking for.\n\
Matching ignores case and runs of white space: `text` is a part of anything the line prints (its name, value, placeholder, words), `name` a part of the accessible name, `role` the printed role exactly (button, link, textbox, checkbox, combobox, heading, row, ...). Given together, a line must match them all.\n\
A line without a ref of its own shows, in its path, the ref of its nearest ancestor that has one (the row or item to click). Matches inside an iframe come under a `[frame N: url]` line: act on them with that frameId (iframe_click, iframe_type, or any action tool's frameId).\n\
Returns a JSON header line {matches, shown?, framesNotRead?} (`shown` when `limit` cut the list; `framesNotRead`: the frames that could not be read, with why), then the lines.\n\
Common errors: invalid_arguments (give text, role or name), no_tab (call navigate first), not_connected (no browser with the extension is reachable: tell the user).",
        arguments: &[
            Argument {
                name: "text",
                kind: ArgumentKind::Text { min_chars: 1, max_chars: 200 },
                required: false,
                default: None,
                example: Some(Literal::Text("Add to cart")),
                description: "Words the line prints: a part of its name, value, placeholder or text, in any case.",
            },
            Argument {
                name: "role",
                kind: ArgumentKind::Text { min_chars: 1, max_chars: 40 },
                required: false,
                default: None,
                example: Some(Literal::Text("button")),
                description: "The role as the tree prints it (button, link, textbox, checkbox, radio, combobox, option, heading, row, dialog, ...).",
            },
            Argument {
                name: "name",
                kind: ArgumentKind::Text { min_chars: 1, max_chars: 200 },
                required: false,
                default: None,
                example: Some(Literal::Text("Email")),
                description: "A part of the accessible name, in any case.",
            },
            Argument {
                name: "limit",
                kind: ArgumentKind::Integer { minimum: 1, maximum: 200 },
                required: false,
                default: Some(Literal::Number(20)),
                example: None,
                description: "The most matching lines to return, in page order.",
            },
            VERBOSE,
            TAB_ID,
        ],
        rules: &[ArgumentRule::AtLeastOneOf {
            arguments: &["text", "role", "name"],
            hint: "Pass text (words on the page), role (button, link, ...) or name, or several of them.",
        }],
        read_only: true,
        availability: EVERYWHERE,
        destructive: false,
        host_wait: ONE_MINUTE,
        reply: ReplyShape::TreeRead,
    },
    ToolDefinition {
        name: "accessibility_snapshot",
        title: "Structured snapshot of the page and its frames",
        description: "Captures the whole page, every iframe included (cross-origin too), as a structured snapshot (version 1) in JSON or YAML:\n\
{version: 1, documents: [{contextId, parentContextId, url, title, root}]}, the top document first, then its frames depth-first; each node is {role, name, states, properties, children}.\n\
Use it when you need exact states and properties (checked, expanded, pressed, level, values, descriptions) or content inside iframes; for ordinary reading get_accessibility_tree is shorter. mode \"ai\" adds an `aria-ref` to each element you can act on.\n\
Returns {format, snapshot, documentCount, engines}; `snapshot` is a string to parse as JSON or YAML; `engines` says where each document's reader ran.\n\
Common errors: frame_detached or script_failed (the page changed during the capture: call again; a partial snapshot is never returned), timeout (the page is slow or huge: pass a larger timeoutMs, up to 120000), no_tab (call navigate first), not_connected (no browser with the extension is reachable: tell the user).",
        arguments: &[
            Argument {
                name: "format",
                kind: ArgumentKind::Choice(&SnapshotFormat::NAMES),
                required: false,
                default: Some(Literal::Text("json")),
                example: None,
                description: "Serialization of the snapshot string.",
            },
            Argument {
                name: "mode",
                kind: ArgumentKind::Choice(&["ai"]),
                required: false,
                default: None,
                example: None,
                description: "\"ai\": give actionable elements an opaque `aria-ref`, stable while the element, its role and its name do not change.",
            },
            Argument {
                name: "timeoutMs",
                kind: ArgumentKind::Integer { minimum: 100, maximum: 120_000 },
                required: false,
                default: Some(Literal::Number(10_000)),
                example: None,
                description: "How long the capture may take, in milliseconds.",
            },
            TAB_ID,
        ],
        rules: &[],
        read_only: true,
        availability: EVERYWHERE,
        destructive: false,
        host_wait: OWN_BUDGET,
        reply: ReplyShape::WholeResult,
    },
    ToolDefinition {
        name: "get_shadow_dom",
        title: "Inspect shadow DOM",
        description: "Shows the shadow trees of the page's web components, closed shadow roots included in Chrome (through the browser's debugger protocol; Chrome shows a bar saying allwright is debugging the tab while it reads). With ref_id, the shadow tree of that host element; without it, every shadow host of the document and its shadow tree.\n\
Use it when the tree shows a host marked `closed-shadow-root` or a component whose content is missing. The result is markup for inspection, not refs: act on what the ordinary tree shows.\n\
Returns {hosts: [{host, mode, outline}], truncated, skippedClosedHosts?}: `host` is a CSS path to the host element (` >>> ` separates the shadow trees it crosses), `mode` \"open\" or \"closed\", `outline` the shadow tree as indented tags with ids, classes, roles, names and text.\n\
In Firefox only open shadow roots can be read: a closed one is answered with closed_shadow_root_unreachable, or listed in skippedClosedHosts when open roots were read. In Chrome only the top document is read (frameId other than 0: not_supported_here).\n\
Common errors: closed_shadow_root_unreachable (Firefox: the root is closed; read the ordinary tree), not_a_shadow_host (ref_id names an element without a shadow root), debugger_unavailable (Chrome: DevTools are open on the tab; ask the user to close them), ref_not_found (read the tree again), no_tab (call navigate first).",
        arguments: &[
            optional_target("The shadow host to inspect: a ref_N printed by get_accessibility_tree. Leave it out for every host of the document."),
            Argument {
                name: "maxChars",
                kind: ArgumentKind::Integer { minimum: 1_000, maximum: 200_000 },
                required: false,
                default: Some(Literal::Number(20_000)),
                example: None,
                description: "The longest outline to return; longer ones are cut and marked truncated.",
            },
            ACTION_FRAME_ID,
            TAB_ID,
        ],
        rules: &[],
        read_only: true,
        availability: FULL_AND_DEV_MID,
        destructive: false,
        host_wait: ONE_MINUTE,
        reply: ReplyShape::WholeResult,
    },
    ToolDefinition {
        name: "shadow_dom_query",
        title: "Query inside shadow roots",
        description: "Finds the elements that match a CSS selector inside the page's shadow roots, closed ones included in Chrome (through the debugger protocol), descending through nested roots. With ref_id, only inside that host's shadow tree.\n\
Returns {matches: [{path, tag, mode, text, attributes}], count, truncated, skippedClosedHosts?}: `path` lists the hosts crossed and the element (` >>> ` between trees), `mode` the kind of the innermost root crossed (\"open\" or \"closed\"); at most 100 matches, `count` counts them all.\n\
In Firefox only open shadow roots can be searched: a closed one is answered with closed_shadow_root_unreachable, or listed in skippedClosedHosts when open roots were searched. In Chrome only the top document is searched (frameId other than 0: not_supported_here).\n\
Common errors: invalid_selector (the selector does not parse: fix it), closed_shadow_root_unreachable (Firefox), debugger_unavailable (Chrome: DevTools are open on the tab), ref_not_found (read the tree again), no_tab (call navigate first).",
        arguments: &[
            Argument {
                name: "selector",
                kind: ArgumentKind::Text { min_chars: 1, max_chars: MAX_SELECTOR_CHARS },
                required: true,
                default: None,
                example: Some(Literal::Text("button.primary")),
                description: "A CSS selector, matched inside each shadow root.",
            },
            optional_target("Search only inside this host's shadow tree: a ref_N printed by get_accessibility_tree."),
            ACTION_FRAME_ID,
            TAB_ID,
        ],
        rules: &[],
        read_only: true,
        availability: FULL_AND_DEV_MID,
        destructive: false,
        host_wait: ONE_MINUTE,
        reply: ReplyShape::WholeResult,
    },
    ToolDefinition {
        name: "screenshot",
        title: "Take a screenshot",
        description: "Takes a picture of what the tab shows: the viewport, or one element by its ref_N (scrolled into view first, cropped to its box).\n\
Returns an image (PNG or JPEG) and {width, height, format, scope, method, maskedSecretFields}: the image's size in device pixels, `scope` \"viewport\", \"element\" or \"fullPage\", `method`, how it was taken (\"captureVisibleTab\" in your own browser, \"bidi\" in a browser allwright launched), and how many secret fields (passwords, card numbers, expiry dates and codes, one-time codes, PINs, tokens, API keys, masked fields) were painted over with opaque black boxes: their values never show.\n\
Read the page with get_accessibility_tree first and use this only when you need to see it: layout, colours, images, charts, canvas, or to check what the tree says. A screenshot costs far more than the tree and gives you no refs to act on.\n\
In the user's own browser only the visible part of the active tab can be captured: fullPage is refused there (not_supported_here), and an element inside a frame is refused when the frame's position cannot be found. In a browser allwright launched, any tab, the whole page and elements in any frame can be captured.\n\
Common errors: tab_not_visible (the tab is not the active tab of its window: call select_tab first, or leave tabId out), not_supported_here (fullPage needs a browser allwright launched: take the viewport instead, scrolling with scroll), ref_not_found (use one of `suggestions` or read the tree again), not_actionable (the element has no visible box), page_blocked (an alert, confirm, prompt or beforeunload dialog holds the page: ask the user to answer it).",
        arguments: &[
            optional_target("Capture only this element (a ref_N printed by get_accessibility_tree), cropped to its box. Leave it out to capture the viewport."),
            Argument {
                description: "The frame whose tree printed ref_id (accessibility_snapshot names each frame's document `tab-T.frame-F`; F is its frameId). Leave it out for the top document (frame 0).",
                ..ACTION_FRAME_ID
            },
            Argument {
                name: "fullPage",
                kind: ArgumentKind::Boolean,
                required: false,
                default: Some(Literal::Boolean(false)),
                example: None,
                description: "true: the whole page, beyond the viewport (only in a browser allwright launched; not with ref_id).",
            },
            Argument {
                name: "format",
                kind: ArgumentKind::Choice(&["png", "jpeg"]),
                required: false,
                default: Some(Literal::Text("png")),
                example: None,
                description: "\"png\" (exact colours, larger) or \"jpeg\" (smaller, for photos and busy pages).",
            },
            TAB_ID,
        ],
        rules: &[],
        read_only: true,
        availability: EVERYWHERE,
        destructive: false,
        host_wait: ONE_MINUTE,
        reply: ReplyShape::WholeResult,
    },
    ToolDefinition {
        name: "save_pdf",
        title: "Save the page as a PDF",
        description: "Prints the tab's page to a PDF, as the browser's own print to PDF does (backgrounds included), and returns it as an embedded resource (application/pdf) after a JSON line {pages, bytes, method, tabId?, url?, title?}: `pages` is the PDF's page count, `method` \"bidi\" in a browser allwright launched or \"printToPDF\" in your own Chrome.\n\
Use it when the task asks for a PDF of a page (an invoice, a report, a receipt); to read a page use get_accessibility_tree, to see it screenshot. A PDF is large: at most 20 MiB is returned.\n\
In a browser allwright launched any tab can be printed; in your own Chrome the tab is printed through the browser's debugger for this one call; your own Firefox cannot give an extension the PDF (not_supported_here).\n\
Returns the JSON line, then the PDF.\n\
Common errors: not_supported_here (Firefox without a launched browser: read the page instead, or ask the person to start `allwright mcp --launch firefox`), debugger_unavailable (DevTools or another debugger holds the tab: ask the person to close it), result_too_large (the page prints to more than 20 MiB), page_blocked or dialog_open (a dialog holds the page: handle_dialog or ask the user), no_tab (call list_tabs).",
        arguments: &[TAB_ID],
        rules: &[],
        read_only: true,
        availability: FULL,
        destructive: false,
        host_wait: ONE_MINUTE,
        reply: ReplyShape::WholeResult,
    },
    ToolDefinition {
        name: "navigate",
        title: "Open a URL",
        description: "Opens a URL in the tab and waits for the page's load event.\n\
Accepts absolute http and https URLs, file URLs and about:blank.\n\
Returns {url?, title} of the page that loaded (url only when it is not the URL you gave: after redirects).\n\
Every ref_N from before the navigation stops working: call get_accessibility_tree next.\n\
Common errors: invalid_arguments (give a full URL with its scheme, like https://example.com), navigation_failed (the address could not be loaded: check it, or tell the user the site is unreachable), timeout (the page did not finish loading in timeoutMs: read it anyway with get_accessibility_tree, or retry with a larger timeoutMs), not_connected (no browser with the extension is reachable: tell the user).",
        arguments: &[
            Argument {
                name: "url",
                kind: ArgumentKind::NavigableUrl,
                required: true,
                default: None,
                example: Some(Literal::Text("https://example.com/")),
                description: "The absolute URL to open (http, https, file) or about:blank.",
            },
            LOAD_TIMEOUT,
            VERBOSE,
            TAB_ID,
        ],
        rules: &[],
        read_only: false,
        availability: FROM_COMPACT,
        destructive: false,
        host_wait: OWN_BUDGET,
        reply: ReplyShape::PageLoad,
    },
    ToolDefinition {
        name: "promote_iframe",
        title: "Open an iframe as the page",
        description: "Navigates the current tab to the URL of one of its iframes, so that the embedded app or form becomes the page: later tools act on it with ordinary refs, and go_back returns to the page that embedded it. Use it when reading or acting inside the iframe (iframe_read, iframe_click, iframe_type) stays unreliable, before changing anything in it.\n\
`urlFilter` is a piece of the frame's URL that names its host and path, for example \"airtable.com/embed/\"; the URL comes from the browser's frame inventory, not from the page. When several frames match and matchIndex is left out, nothing happens: the error lists the candidates; call again with matchIndex (0-based).\n\
Fails closed when the frame holds unsaved work: edited fields, attached files, text typed by an agent that the page did not confirm, or a state it cannot inspect. Finish or save the embedded form first; force: true discards that work and is only for when the user wants it gone.\n\
Returns {url, title, promotedFrom: {frameId, url}, previousUrl, discarded?}.\n\
Common errors: frame_not_found (no frame URL contains urlFilter: `suggestions` lists the frames' URLs), ambiguous_frame (several match: `candidates` lists them; pass matchIndex), unsaved_frame_state (the frame holds edits: `reasons` says which), navigation_failed, timeout.",
        arguments: &[
            Argument {
                name: "urlFilter",
                kind: ArgumentKind::Text { min_chars: 1, max_chars: 2_000 },
                required: true,
                default: None,
                example: Some(Literal::Text("airtable.com/embed/")),
                description: "A substring of the frame's URL naming its host and path.",
            },
            Argument {
                name: "matchIndex",
                kind: ArgumentKind::Integer { minimum: 0, maximum: 1_000 },
                required: false,
                default: None,
                example: Some(Literal::Number(0)),
                description: "Which of several matching frames, 0-based, in the order the ambiguous_frame error listed them.",
            },
            Argument {
                name: "force",
                kind: ArgumentKind::Boolean,
                required: false,
                default: Some(Literal::Boolean(false)),
                example: None,
                description: "true: navigate even though the frame holds unsaved work, which is lost. Only when the user wants it.",
            },
            LOAD_TIMEOUT,
            TAB_ID,
        ],
        rules: &[],
        read_only: false,
        availability: FROM_MID,
        destructive: false,
        host_wait: OWN_BUDGET,
        reply: ReplyShape::WholeResult,
    },
    ToolDefinition {
        name: "click_ax",
        title: "Click an element",
        description: concat!(
            "Clicks an element by its ref_N from get_accessibility_tree: scrolls it into view, focuses it and clicks it, then watches the tab for about half a second to tell you whether the click did anything.\n",
            action_reply!(),
            "; verbose: true returns the whole {success, progress, evidence, hints, observed?, retryAllowed, hint?, tag, role, name, rect?, method, href?, navigates?}. `hints` are diagnostics, never proof of an effect; `hint`, when present, says what to do next.\n\
Read `progress` first:\n\
- \"observed\": the click had an effect, `effect` says which (url_changed, focus_moved, local_mutation, semantic_state:aria-expanded, ...). Read the page again with get_accessibility_tree.\n\
- \"inconclusive\": a request was sent, a new tab opened or a download started (see `observed`). The click may already have done its job (sent a message, placed an order): do NOT click again; read the page, or list_tabs to find a new tab.\n\
- \"none\": nothing observable changed. Read the tree again before anything else: the ref may be the wrong element, or a dialog may be in the way.\n\
Never retry a click whose retryAllowed is false.\n\
`method`: \"synthetic\" (a script click); in Chrome, \"trusted-fallback\" when nothing on the page listened for the click and allwright sent one real mouse click to a safe target (never to form controls, toggles, downloads, targets in forms or with names like Delete or Pay). A click the page's listeners heard is never clicked again: \"none\" with retryAllowed false means its effect may still come, so wait and read the page. Firefox always says \"synthetic\". \"bidi\" when allwright launched the browser: a real mouse click at the element's centre, refused with not_actionable naming whatever covers it.\n\
Which tool: click_ax for buttons, links, checkboxes, radios, tabs and menu items; type_ax or set_field for text fields; select_option for <select> elements and listboxes; hover for menus that open on hover.\n\
Common errors: ref_not_found (the element is gone: use one of `suggestions` or read the tree again), not_actionable (the element is disabled or no longer laid out: read the tree again), frame_not_found (wrong frameId), no_tab (call navigate first), page_blocked (the page stopped answering, most likely behind an alert, confirm, prompt or \"leave page?\" dialog: ask the user to answer it, do not click again), dialog_open (the click opened such a dialog; `dialog` gives its type and text), not_connected (no browser with the extension is reachable: tell the user).",
        ),
        arguments: &[
            target("The element to click: a ref_N printed by get_accessibility_tree."),
            ACTION_FRAME_ID,
            VERBOSE,
            TAB_ID,
        ],
        rules: &[],
        read_only: false,
        availability: FROM_COMPACT,
        destructive: false,
        host_wait: ONE_MINUTE,
        reply: ReplyShape::Action,
    },
    ToolDefinition {
        name: "iframe_click",
        title: "Click inside an iframe",
        description: "Clicks an element inside an iframe, by the frameId and a ref_N that iframe_read printed for that frame, cross-origin frames included. It behaves and answers exactly as click_ax (read click_ax's `progress` rules: never repeat a click whose retryAllowed is false).\n\
Returns what click_ax returns.\n\
Common errors: ref_in_other_frame (the ref was printed by another frame: the error names it), ref_not_found (read the frame again with iframe_read), frame_not_found (`suggestions` lists the tab's frames), not_actionable, page_blocked.",
        arguments: &[
            target("The element to click: a ref_N printed by iframe_read for this frame."),
            IFRAME_FRAME_ID,
            VERBOSE,
            TAB_ID,
        ],
        rules: &[],
        read_only: false,
        availability: FROM_COMPACT,
        destructive: false,
        host_wait: ONE_MINUTE,
        reply: ReplyShape::Action,
    },
    ToolDefinition {
        name: "type_ax",
        title: "Type into a field",
        description: concat!(
            "Types text into a text field, text area or contenteditable element by its ref_N, replacing its content (clear: true, the default) or appending to it (clear: false). The value is set the way typing sets it and input and change events fire, so React and Vue controlled fields see it. Nothing is submitted.\n",
            action_reply!(),
            "; verbose: true returns the whole {success, progress, evidence, hints, retryAllowed, hint?, tag, role, name, kind, value}: `kind` is \"input\", \"textarea\" or \"contenteditable\"; `value` is the field's content afterwards (\"••••\" for passwords): check it.\n\
Which tool: type_ax fills a field and nothing else. set_field fills and can submit in one call (search boxes, autocomplete comboboxes, one-field forms). select_option chooses in a <select> or listbox. Checkboxes, radios and buttons take click_ax. press_key sends single keys (Enter, Tab, Escape, arrows).\n\
Text over 50000 characters: type the first 50000, then the rest in further calls with clear: false.\n\
Common errors: not_typable (not a text field: the hint names the right tool), ref_not_found (use one of `suggestions` or read the tree again), not_actionable (the field is disabled or no longer laid out), invalid_arguments (text must be a string of at most 50000 characters).",
        ),
        arguments: &[
            target("The field to type into: a ref_N printed by get_accessibility_tree."),
            TYPED_TEXT,
            CLEAR,
            ACTION_FRAME_ID,
            VERBOSE,
            TAB_ID,
        ],
        rules: &[],
        read_only: false,
        availability: FROM_COMPACT,
        destructive: false,
        host_wait: ONE_MINUTE,
        reply: ReplyShape::Action,
    },
    ToolDefinition {
        name: "iframe_type",
        title: "Type inside an iframe",
        description: "Types text into a field inside an iframe, by the frameId and a ref_N that iframe_read printed for that frame, cross-origin frames included. It behaves and answers exactly as type_ax.\n\
Returns what type_ax returns.\n\
Common errors: ref_in_other_frame (the ref was printed by another frame: the error names it), not_typable (not a text field), ref_not_found (read the frame again with iframe_read), frame_not_found (`suggestions` lists the tab's frames), not_actionable.",
        arguments: &[
            target("The field to type into: a ref_N printed by iframe_read for this frame."),
            TYPED_TEXT,
            CLEAR,
            IFRAME_FRAME_ID,
            VERBOSE,
            TAB_ID,
        ],
        rules: &[],
        read_only: false,
        availability: FROM_COMPACT,
        destructive: false,
        host_wait: ONE_MINUTE,
        reply: ReplyShape::Action,
    },
    ToolDefinition {
        name: "set_field",
        title: "Fill a field and submit",
        description: "Fills a form field in one step: focuses it, clears it (clear: true, the default), types the text, and with submit: true commits it. In a combobox that suggests as you type, submit picks the first suggestion (ArrowDown, then Enter); elsewhere it submits the field's form, or presses Enter when there is no form.\n\
Returns what type_ax returns ({success, progress, evidence, hints, retryAllowed, hint?, tag, role, name, kind, value}) plus submit: {method: \"combobox\"|\"requestSubmit\"|\"enter\"|\"none\", committed?} (`committed`: the suggestion that was chosen).\n\
Read `progress` as for click_ax: \"inconclusive\" after submit: true means the form may have been sent (a request, a new tab): do NOT submit again; read the page. Never repeat a call whose retryAllowed is false.\n\
Which tool: set_field for search boxes, autocomplete fields and anything you would finish with Enter; type_ax to fill a field without submitting; select_option for <select> elements and listboxes; click_ax for checkboxes and radios.\n\
Common errors: not_typable (not a text field: the hint names the right tool), ref_not_found (use one of `suggestions` or read the tree again), not_actionable (the field is disabled or no longer laid out), invalid_arguments (text must be a string of at most 50000 characters).",
        arguments: &[
            target("The field to fill: a ref_N printed by get_accessibility_tree."),
            TYPED_TEXT,
            CLEAR,
            Argument {
                name: "submit",
                kind: ArgumentKind::Boolean,
                required: false,
                default: Some(Literal::Boolean(false)),
                example: None,
                description: "true: commit the field after typing (pick the first suggestion of a combobox, else submit the form or press Enter).",
            },
            ACTION_FRAME_ID,
            VERBOSE,
            TAB_ID,
        ],
        rules: &[],
        read_only: false,
        availability: FROM_COMPACT,
        destructive: false,
        host_wait: ONE_MINUTE,
        reply: ReplyShape::Action,
    },
    ToolDefinition {
        name: "select_option",
        title: "Choose an option",
        description: concat!(
            "Chooses one option of a <select>, a listbox or a combobox, by the ref_N of that control (not of an option), matching either the option's visible label or its value attribute: give exactly one of `label` and `value`.\n",
            action_reply!(),
            "; verbose: true returns the whole {success, progress, evidence, hints, retryAllowed, hint?, tag, role, name, method, selected}: `method` is \"native\" for a <select> and \"listbox\" for an ARIA listbox; `selected` is {label, value?} of the option now chosen: check it.\n\
Which tool: select_option for choosing from a list; click_ax for checkboxes, radios and menu items; set_field for comboboxes you type into.\n\
Common errors: option_not_found (no option has that label or value: `suggestions` lists the options' labels, call again with one of them exactly), not_actionable (the control is disabled), ref_not_found (use one of `suggestions` or read the tree again), invalid_arguments (both or neither of label and value).",
        ),
        arguments: &[
            target("The <select>, listbox or combobox: a ref_N printed by get_accessibility_tree."),
            Argument {
                name: "label",
                kind: ArgumentKind::Text { min_chars: 1, max_chars: MAX_OPTION_CHARS },
                required: false,
                default: None,
                example: Some(Literal::Text("France")),
                description: "The option's visible text, as the tree prints it. Give label or value, not both.",
            },
            Argument {
                name: "value",
                kind: ArgumentKind::Text { min_chars: 1, max_chars: MAX_OPTION_CHARS },
                required: false,
                default: None,
                example: Some(Literal::Text("fr")),
                description: "The option's value attribute. Give value or label, not both.",
            },
            ACTION_FRAME_ID,
            VERBOSE,
            TAB_ID,
        ],
        rules: &[ArgumentRule::ExactlyOneOf {
            arguments: &["label", "value"],
            hint: "Pass either label (the option's visible text) or value (its value attribute), not both.",
        }],
        read_only: false,
        availability: FROM_COMPACT,
        destructive: false,
        host_wait: ONE_MINUTE,
        reply: ReplyShape::Action,
    },
    ToolDefinition {
        name: "fill_form",
        title: "Fill several form fields",
        description: "Fills several fields of a form in one call, in the order given, each by its ref_N and a string value: text fields, text areas and contenteditable elements (their content replaced, as set_field types it), check boxes and switches (\"true\" or \"false\": clicked once, only when their state differs), radio buttons (\"true\" chooses one) and radio groups (the label of the radio to choose), <select> elements, listboxes and comboboxes (the option's label as the tree prints it, or a <select> option's value), date, time and number inputs (in the input's own format: \"2024-12-31\", \"14:30\", \"12.5\"). Nothing is submitted: click the form's button with click_ax afterwards.\n\
Each field is filled as type_ax, click_ax or select_option would fill it, with their refusals. All fields are in one frame: with frameId, refs that iframe_read printed for it. The first field that fails stops the call: the fields before it stay filled, the ones after it are not touched, and no field is ever filled twice.\n\
Returns a JSON header line {success?: false, filled, failed?, notAttempted?, values?, progress?, effect?, retryAllowed?, hint?, changes?, ...}: `filled` is how many fields were filled when all were, else the list of their refs; `failed` is {ref_id, code, message, hint?} of the field that stopped the call; `notAttempted` lists the refs after it; `values` maps a ref to its value afterwards where that is not the value given (a mask reformatted it); then, as for the other actions, the tree lines the fields changed. verbose: true returns the whole {success, filled, failed?, notAttempted?, fields: [{ref_id, kind, role, name, action, value?, checked?, selected?, sensitive}], progress, evidence, hints, retryAllowed, ...}. A password or another secret's value is never shown.\n\
After a failure: fix what `failed` says (read the tree when a ref changed or went away), then call fill_form again with that field and the notAttempted ones.\n\
Common errors: (each in `failed`) ref_not_found (read the tree again), ref_changed (the element is no longer what you read: check it, then call again), not_actionable (the field is disabled or read-only: do what enables it first), not_typable (not a form field: click buttons with click_ax), option_not_found (`suggestions` lists the options), value_not_accepted (the field refused the value: a date input takes yyyy-mm-dd; a box whose state one click did not change is not clicked again), invalid_arguments (a check box's value that is not \"true\" or \"false\"). The call itself fails with invalid_arguments for more than 50 fields, a ref given twice or a value that is not a string.",
        arguments: &[
            Argument {
                name: "fields",
                kind: ArgumentKind::ObjectList {
                    min_items: 1,
                    max_items: MAX_FORM_FIELDS,
                    fields: FORM_FIELDS,
                    distinct_field: Some("ref_id"),
                },
                required: true,
                default: None,
                example: Some(Literal::Json(r#"[{"ref_id": "ref_12", "value": "Ada Lovelace"}, {"ref_id": "ref_14", "value": "true"}]"#)),
                description: "The fields to fill, in order, at most 50, each ref once: [{ref_id, value}].",
            },
            ACTION_FRAME_ID,
            VERBOSE,
            TAB_ID,
        ],
        rules: &[],
        read_only: false,
        availability: FROM_MID,
        destructive: false,
        host_wait: FORM_FILL_WAIT,
        reply: ReplyShape::FormFill,
    },
    ToolDefinition {
        name: "upload_file",
        title: "Attach files",
        description: concat!(
            "Attaches files to a file input, as a person choosing them in the file dialog would: the page gets real File objects (bytes, name, type, size) and the input and change events, or, for a drop zone, the dragenter, dragover and drop events with the files. ref_id is the file input, its label, the button that opens the file dialog (\"Upload\", \"Browse\", \"Choose file\") or the drop zone. paths are files inside the folders the person allowed (allwright mcp --upload-root): relative to one of them, or absolute inside one.\n",
            action_reply!(),
            " plus `files` (the names attached); verbose: true returns the whole {success, progress, evidence, hints, retryAllowed, hint?, tag, role, name, method, target, files: [{name, size, type}]}: `target` is \"input\" or \"drop\", `method` \"bidi\" (the browser's own file chooser, allwright launched it) or \"synthetic\". Read the page next: most pages show the file's name, a preview or start sending it.\n\
Read `progress` as for click_ax; never repeat an upload whose retryAllowed is false (a page that sends the file at once would get it twice).\n\
Common errors: path_outside_upload_roots (the path is not inside the allowed folders, holds .., or a link leads out: nothing was read; use a file inside them), secret_path_refused (keys and credentials such as .ssh, .env, id_rsa are never uploaded), file_not_found, not_a_regular_file, file_too_large (10 MiB per file, 25 MiB per call), file_not_accepted (the input's accept list or its single-file limit excludes a file: the message names the list; choose a file it takes), not_a_file_target (the element takes no files: use the input, its label or the upload button), ref_not_found (read the tree again).",
        ),
        arguments: &[
            target("The file input, its label, the button that opens the file dialog, or the drop zone: a ref_N printed by get_accessibility_tree (or iframe_read, with frameId)."),
            Argument {
                name: "paths",
                kind: ArgumentKind::TextList {
                    min_items: 1,
                    max_items: MAX_UPLOAD_FILES,
                    max_chars: 4_096,
                },
                required: true,
                default: None,
                example: Some(Literal::Json(r#"["report.pdf"]"#)),
                description: "The files to attach, in order, each once, at most 20: paths relative to an upload folder, or absolute paths inside one.",
            },
            ACTION_FRAME_ID,
            VERBOSE,
            TAB_ID,
        ],
        rules: &[],
        read_only: false,
        availability: FROM_MID,
        destructive: false,
        host_wait: ONE_MINUTE,
        reply: ReplyShape::Action,
    },
    ToolDefinition {
        name: "hover",
        title: "Hover over an element",
        description: concat!(
            "Moves the pointer over an element by its ref_N, for menus, tooltips and previews that open on hover.\n",
            action_reply!(),
            "; verbose: true returns the whole {success, progress, evidence, hints, retryAllowed, hint?, tag, role, name, rect, cssHover?}. Read the tree next: a menu or popup that opened is listed first, under `[open overlays]`.\n\
In the user's own browser the pointer is simulated: the page's pointer and mouse handlers run, but CSS :hover rules cannot apply; `cssHover: \"not_applied\"` says the page styles this element on :hover (a CSS-only menu may not open: try click_ax).\n\
Menus that open on click take click_ax, not hover.\n\
Common errors: ref_not_found (use one of `suggestions` or read the tree again), not_actionable (the element is not laid out: it may be hidden or removed), page_blocked (the page stopped answering, most likely behind a dialog: ask the user to answer it).",
        ),
        arguments: &[
            target("The element to hover: a ref_N printed by get_accessibility_tree."),
            ACTION_FRAME_ID,
            VERBOSE,
            TAB_ID,
        ],
        rules: &[],
        read_only: false,
        availability: FROM_MID,
        destructive: false,
        host_wait: ONE_MINUTE,
        reply: ReplyShape::Action,
    },
    ToolDefinition {
        name: "drag",
        title: "Drag an element",
        description: concat!(
            "Drags an element by its ref_N (from_ref) and drops it on another (to_ref), or moves it by an offset in CSS pixels (by: {x, y}): cards to another column of a board, items to another place of a list, slider thumbs, splitters, Give to_ref or by, not both. The pointer presses at from_ref's centre, moves there in steps and releases at to_ref's centre (or at the offset), as a person's mouse does, so HTML5 drag and drop (draggable elements) and pointer-event libraries (dnd-kit, SortableJS, hello-pangea/dnd, jQuery UI) both take it. Both ends must fit in the viewport together.\n",
            action_reply!(),
            "; verbose: true returns the whole {success, progress, evidence, hints, retryAllowed, hint?, tag, role, name, target?, from, to, moved, method, dropEffect?}.\n\\
`moved` says what moved: {item, before: {list, position, of, after?}, after: {...}} (the dragged item's list, its 1-based place and the item before it), or false when no item changed place (a slider or splitter shows its change in `effect` and the changed lines instead). `evidence` \"moved\" is the proof.\n\
`method`: \"bidi\" (real mouse input, when allwright launched the browser), \"synthetic-html5\" (the drag and drop events a browser fires, in the user's own browser, and in a launched Firefox for draggable elements, whose real drag Firefox does not finish: there a hint says when only the press and release were real), \"synthetic-pointer\" (pointer and mouse events). `dropEffect`: \"none\" when the drop target refused the drop.\n\
Never repeat a drag whose retryAllowed is false or whose progress is observed: read the tree first; the item may already be where you wanted it.\n\
Libraries with a keyboard mode (dnd-kit, hello-pangea/dnd) also move by keys: press_key \" \" on the drag handle, then arrow keys, then \" \" again.\n\
Common errors: ref_not_found (use one of `suggestions` or read the tree again), invalid_arguments (both or neither of to_ref and by; from_ref and to_ref the same element), not_actionable (an end is not laid out, covered, or the two do not fit in the viewport together: scroll, or drag by offsets), page_blocked.",
        ),
        arguments: &[
            Argument {
                name: "from_ref",
                kind: ArgumentKind::ElementReference,
                required: true,
                default: None,
                example: Some(Literal::Text("ref_12")),
                description: "The element to drag (a card, a list item or its drag handle, a slider thumb, a splitter): a ref_N printed by get_accessibility_tree.",
            },
            Argument {
                name: "to_ref",
                kind: ArgumentKind::ElementReference,
                required: false,
                default: None,
                example: Some(Literal::Text("ref_20")),
                description: "Where to drop it: the column, list or item whose place it should take, a ref_N printed by get_accessibility_tree. Give to_ref or by.",
            },
            Argument {
                name: "by",
                kind: ArgumentKind::Object { fields: DRAG_OFFSET },
                required: false,
                default: None,
                example: Some(Literal::Json(r#"{"x": 120, "y": 0}"#)),
                description: "Move by this offset instead, in CSS pixels: {x, y}, for sliders and splitters. Give by or to_ref.",
            },
            ACTION_FRAME_ID,
            VERBOSE,
            TAB_ID,
        ],
        rules: &[ArgumentRule::ExactlyOneOf {
            arguments: &["to_ref", "by"],
            hint: "Pass either to_ref (the element to drop on) or by ({x, y} in CSS pixels), not both.",
        }],
        read_only: false,
        availability: FROM_MID,
        destructive: false,
        host_wait: ONE_MINUTE,
        reply: ReplyShape::Action,
    },
    ToolDefinition {
        name: "press_key",
        title: "Press a key",
        description: concat!(
            "Presses one key, optionally with modifier keys held, on the focused element, or on the element ref_id names (focused first).\n\
`key` is a KeyboardEvent key value, case-sensitive: \"Enter\", \"Tab\", \"Escape\", \"Backspace\", \"ArrowDown\", \"PageDown\", \"Home\", \" \" (space), \"a\". One key per call: hold Control, Shift, Alt or Meta with `modifiers`, not \"Control+a\".\n\
The key events are synthetic, so the browser runs no default action of its own; allwright performs the usual one itself and names it in `defaultAction` (\"submit\", \"click\", \"focus_next\", \"focus_previous\", \"insert_text\", \"delete_backward\", \"select_all\").\n",
            action_reply!(),
            "; verbose: true returns the whole {success, progress, evidence, hints, retryAllowed, hint?, tag, role, name, key, modifiers, defaultAction?}.\n\
Use it to drive widgets by keyboard (menus, listboxes, dialogs: Escape closes them) and to press Enter in a field. To type text, use type_ax or set_field, which type a whole string at once.\n\
Common errors: invalid_arguments (key must be one key name, at most 32 characters; modifiers only Alt, Control, Meta, Shift, each once), ref_not_found (use one of `suggestions` or read the tree again), not_actionable (the element is disabled or no longer laid out), page_blocked (the page stopped answering, most likely behind a dialog: ask the user to answer it).",
        ),
        arguments: &[
            Argument {
                name: "key",
                kind: ArgumentKind::KeyName,
                required: true,
                default: None,
                example: Some(Literal::Text("Enter")),
                description: "One KeyboardEvent key value: \"Enter\", \"Tab\", \"Escape\", \"ArrowDown\", \"a\", ...",
            },
            Argument {
                name: "modifiers",
                kind: ArgumentKind::ModifierList,
                required: false,
                default: Some(Literal::EmptyList),
                example: None,
                description: "Modifier keys held during the press, each at most once, for example [\"Control\"] or [\"Shift\", \"Meta\"]. Leave it out for none.",
            },
            optional_target("Focus this element (a ref_N printed by get_accessibility_tree) and press the key there. Leave it out to press the key on the focused element."),
            ACTION_FRAME_ID,
            VERBOSE,
            TAB_ID,
        ],
        rules: &[],
        read_only: false,
        availability: FROM_COMPACT,
        destructive: false,
        host_wait: ONE_MINUTE,
        reply: ReplyShape::Action,
    },
    ToolDefinition {
        name: "scroll",
        title: "Scroll",
        description: concat!(
            "Scrolls the page, or the scrollable element ref_id names: by `amount` pixels in `direction` (default: down, by 80% of the viewport or element), or with `to` to its \"top\" or \"bottom\"; `to: \"into_view\"` scrolls the page until the element ref_id names is visible.\n",
            action_reply!(),
            "; verbose: true returns the whole {success, progress, evidence, hints, retryAllowed, hint?, target, before, after}: `target` is \"page\" or \"element\"; `before` equal to `after` ({x, y}) means it could not scroll further that way.\n\
You rarely need it to read: get_accessibility_tree already includes content outside the viewport, and click_ax, type_ax and hover scroll their target into view themselves. Scroll to load more of an endless list, or before reading with filter \"visible\".\n\
Common errors: ref_not_found (use one of `suggestions` or read the tree again), invalid_arguments (to \"into_view\" needs ref_id).",
        ),
        arguments: &[
            optional_target("The element to scroll (or, with to: \"into_view\", to bring into view): a ref_N printed by get_accessibility_tree. Leave it out to scroll the page."),
            Argument {
                name: "direction",
                kind: ArgumentKind::Choice(&["up", "down", "left", "right"]),
                required: false,
                default: Some(Literal::Text("down")),
                example: None,
                description: "Which way to scroll.",
            },
            Argument {
                name: "amount",
                kind: ArgumentKind::Integer { minimum: 1, maximum: 100_000 },
                required: false,
                default: None,
                example: None,
                description: "How far to scroll, in CSS pixels. Leave it out to scroll by 80% of the viewport (or of the element).",
            },
            Argument {
                name: "to",
                kind: ArgumentKind::Choice(&["top", "bottom", "into_view"]),
                required: false,
                default: None,
                example: None,
                description: "Scroll to the top or the bottom instead of by an amount; \"into_view\" brings the element ref_id names into the viewport.",
            },
            ACTION_FRAME_ID,
            VERBOSE,
            TAB_ID,
        ],
        // Only an element can be brought into view: the page has no view to be brought into.
        rules: &[ArgumentRule::RequiredWhen {
            argument: "ref_id",
            when_argument: "to",
            equals: "into_view",
            hint: "Pass ref_id (a ref_N printed by get_accessibility_tree), the element to bring into view, or use to \"top\" or \"bottom\" to scroll the page.",
        }],
        read_only: false,
        availability: EVERYWHERE,
        destructive: false,
        host_wait: ONE_MINUTE,
        reply: ReplyShape::Action,
    },
    ToolDefinition {
        name: "go_back",
        title: "Go back",
        description: "Goes back one step in the tab's history, as the browser's Back button does, and waits for the page to load.\n\
Returns {url, title, changed}: the page now shown; `changed` is false when the URL stayed the same.\n\
Refs from before may stop working: read the tree again with get_accessibility_tree.\n\
Common errors: no_history (there is nothing to go back to: use navigate), timeout (the page did not finish loading in timeoutMs: read it anyway with get_accessibility_tree), not_connected (no browser with the extension is reachable: tell the user).",
        arguments: &[LOAD_TIMEOUT, VERBOSE, TAB_ID],
        rules: &[],
        read_only: false,
        availability: FROM_COMPACT,
        destructive: false,
        host_wait: OWN_BUDGET,
        reply: ReplyShape::PageLoad,
    },
    // go_forward and reload are listed from Mid, not Compact: Compact keeps the few tools an
    // agent needs on most tasks, and undoing a go_back or reloading a page is rare enough that
    // navigate covers it there (navigate to the URL again).
    ToolDefinition {
        name: "go_forward",
        title: "Go forward",
        description: "Goes forward one step in the tab's history, as the browser's Forward button does after go_back, and waits for the page to load.\n\
Returns {url, title, changed}: the page now shown; `changed` is false when the URL stayed the same.\n\
Refs from before may stop working: read the tree again with get_accessibility_tree.\n\
Common errors: no_history (there is nothing to go forward to: use navigate), timeout (the page did not finish loading in timeoutMs: read it anyway with get_accessibility_tree), not_connected (no browser with the extension is reachable: tell the user).",
        arguments: &[LOAD_TIMEOUT, VERBOSE, TAB_ID],
        rules: &[],
        read_only: false,
        availability: FROM_MID,
        destructive: false,
        host_wait: OWN_BUDGET,
        reply: ReplyShape::PageLoad,
    },
    ToolDefinition {
        name: "reload",
        title: "Reload the page",
        description: "Reloads the tab's page, as the browser's Reload button does, and waits for the page to load. The page runs its scripts again; what was typed into its fields may be kept by the browser, unless ignoreCache is true.\n\
Returns {url, title, changed}: the page now shown; `changed` is false when the URL stayed the same.\n\
Every ref_N from before the reload stops working: call get_accessibility_tree next.\n\
Common errors: timeout (the page did not finish loading in timeoutMs: read it anyway with get_accessibility_tree), navigation_failed (the page could not be loaded again), page_blocked (the page asks whether to leave it: ask the user), not_connected (no browser with the extension is reachable: tell the user).",
        arguments: &[
            Argument {
                name: "ignoreCache",
                kind: ArgumentKind::Boolean,
                required: false,
                default: Some(Literal::Boolean(false)),
                example: None,
                description: "true: load every resource from the network, bypassing the browser's cache, as a hard reload (Ctrl+Shift+R) does; fields are not refilled with what was typed before.",
            },
            LOAD_TIMEOUT,
            VERBOSE,
            TAB_ID,
        ],
        rules: &[],
        read_only: false,
        availability: FROM_MID,
        destructive: false,
        host_wait: OWN_BUDGET,
        reply: ReplyShape::PageLoad,
    },
    ToolDefinition {
        name: "wait_for_stable",
        title: "Wait for the page to settle",
        description: "Waits until the page is quiet, with no DOM change and no request in flight for quietMs, or until timeoutMs has passed.\n\
Use it after an action whose effect arrives late (search results, a spinner, a list that loads) instead of reading the tree again and again.\n\
Returns {stable, waitedMs, pendingRequests, mutations, reason?}: stable false means the page was still busy when timeoutMs ran out (`reason` says why). Read the page anyway: some pages never go quiet (live feeds, animations, chats).\n\
Common errors: no_tab (call navigate first), not_connected (no browser with the extension is reachable: tell the user).",
        arguments: &[
            Argument {
                name: "quietMs",
                kind: ArgumentKind::Integer { minimum: 100, maximum: 10_000 },
                required: false,
                default: Some(Literal::Number(500)),
                example: None,
                description: "How long the page must stay quiet to count as stable, in milliseconds.",
            },
            Argument {
                name: "timeoutMs",
                kind: ArgumentKind::Integer { minimum: 500, maximum: 60_000 },
                required: false,
                default: Some(Literal::Number(10_000)),
                example: None,
                description: "The longest to wait, in milliseconds.",
            },
            TAB_ID,
        ],
        rules: &[],
        read_only: true,
        availability: EVERYWHERE,
        destructive: false,
        host_wait: OWN_BUDGET,
        reply: ReplyShape::WholeResult,
    },
    ToolDefinition {
        name: "wait_for",
        title: "Wait for text or an element",
        description: "Waits until a condition holds, and returns as soon as it does: `text` appears on the page (visible text in any frame of the tab, open shadow roots included), `textGone` is no longer shown anywhere, or the element `ref_id` reaches `state` (visible, hidden, enabled, disabled, checked, unchecked or removed).\n\
Use it after an action whose result comes late (a search, a save, a dialog that opens or closes) instead of reading the page again and again; wait_for_stable waits for the page to stop changing instead.\n\
Text matches ignore case and runs of white space, across the page's element boundaries (\"Order shipped\" matches `Order <b>shipped</b>`); text that CSS hides (display: none, visibility: hidden) does not count as shown.\n\
Returns {met: true, waitedMs} (with `frameId` where the text was found outside the top document), or, when timeoutMs ran out, {met: false, waitedMs, reason: \"timeout\", lastSeen}: what the page showed last (the element's state, or whether the text was there).\n\
Common errors: invalid_arguments (give exactly one of text, textGone and ref_id), ref_not_found (ref_id was never printed in this frame: read the tree again), ref_in_other_frame (pass the frameId of the frame that printed it), no_tab (call navigate first).",
        arguments: &[
            Argument {
                name: "text",
                kind: ArgumentKind::Text { min_chars: 1, max_chars: 500 },
                required: false,
                default: None,
                example: Some(Literal::Text("Order confirmed")),
                description: "Wait until this text is shown on the page.",
            },
            Argument {
                name: "textGone",
                kind: ArgumentKind::Text { min_chars: 1, max_chars: 500 },
                required: false,
                default: None,
                example: Some(Literal::Text("Loading")),
                description: "Wait until this text is no longer shown anywhere on the page.",
            },
            optional_target("Wait until this element (a ref_N from an earlier read) reaches `state`."),
            Argument {
                name: "state",
                kind: ArgumentKind::Choice(&["visible", "hidden", "enabled", "disabled", "checked", "unchecked", "removed"]),
                required: false,
                default: Some(Literal::Text("visible")),
                example: Some(Literal::Text("visible")),
                description: "With ref_id: the state to wait for. hidden also holds once the element is removed.",
            },
            Argument {
                name: "timeoutMs",
                kind: ArgumentKind::Integer { minimum: 100, maximum: 60_000 },
                required: false,
                default: Some(Literal::Number(10_000)),
                example: None,
                description: "The longest to wait, in milliseconds.",
            },
            ACTION_FRAME_ID,
            TAB_ID,
        ],
        rules: &[
            ArgumentRule::ExactlyOneOf {
                arguments: &["text", "textGone", "ref_id"],
                hint: "Pass text to wait for it to appear, textGone to wait for it to go, or ref_id (with state) to wait for an element.",
            },
            ArgumentRule::OnlyWith {
                argument: "state",
                with_argument: "ref_id",
                hint: "state describes the element of ref_id: pass ref_id too, or leave state out.",
            },
        ],
        read_only: true,
        availability: EVERYWHERE,
        destructive: false,
        host_wait: OWN_BUDGET,
        reply: ReplyShape::WholeResult,
    },
    ToolDefinition {
        name: "list_tabs",
        title: "List tabs",
        description: "Lists the browser's open tabs.\n\
Returns {tabs: [{tabId, windowId, url, title, active}]}.\n\
Use a tabId with select_tab to switch to that tab, or pass it as tabId to any other tool to read or act in that tab without switching. Call it after a click reported a new tab (observed.newTabs) to find it.\n\
Common errors: not_connected (no browser with the extension is reachable: tell the user).",
        arguments: &[],
        rules: &[],
        read_only: true,
        availability: EVERYWHERE,
        destructive: false,
        host_wait: ONE_MINUTE,
        reply: ReplyShape::WholeResult,
    },
    ToolDefinition {
        name: "new_tab",
        title: "Open a new tab",
        description: "Opens a new tab on a URL (about:blank when url is left out), makes it the active tab and waits for its load event.\n\
Returns {tabId, url, title}. Later calls without tabId act in the new tab; the tab you were in stays open (list_tabs, select_tab).\n\
Common errors: invalid_arguments (give a full URL with its scheme, like https://example.com), navigation_failed (the address could not be loaded), timeout (the page did not finish loading in timeoutMs: read it anyway with get_accessibility_tree).",
        arguments: &[
            Argument {
                name: "url",
                kind: ArgumentKind::NavigableUrl,
                required: false,
                default: Some(Literal::Text("about:blank")),
                example: Some(Literal::Text("https://example.com/")),
                description: "The absolute URL to open (http, https, file) or about:blank.",
            },
            LOAD_TIMEOUT,
            VERBOSE,
            Argument {
                description: "The tab whose window gets the new tab. Leave it out to use the last focused window.",
                ..TAB_ID
            },
        ],
        rules: &[],
        read_only: false,
        availability: FROM_MID,
        destructive: false,
        host_wait: OWN_BUDGET,
        reply: ReplyShape::PageLoad,
    },
    ToolDefinition {
        name: "select_tab",
        title: "Switch to a tab",
        description: "Makes a tab the active one, so that later calls without tabId act in it.\n\
Returns {tabId, url, title} of that tab. Get tab ids from list_tabs.\n\
Refs are per tab: read the tab with get_accessibility_tree before acting in it.\n\
Common errors: no_tab (no open tab has this id: call list_tabs), not_connected (no browser with the extension is reachable: tell the user).",
        arguments: &[Argument {
            required: true,
            example: Some(Literal::Number(12)),
            description: "The tab to switch to, a tabId from list_tabs.",
            ..TAB_ID
        }],
        rules: &[],
        read_only: false,
        availability: FROM_COMPACT,
        destructive: false,
        host_wait: ONE_MINUTE,
        reply: ReplyShape::WholeResult,
    },
    ToolDefinition {
        name: "close_tab",
        title: "Close a tab",
        description: "Closes a tab, by default the active one. Whatever was typed but not saved in it is lost.\n\
Returns {closed, activeTabId}: the id of the closed tab, and of the tab that is active now, where later calls without tabId act.\n\
Common errors: no_tab (no open tab has this id: call list_tabs), not_connected (no browser with the extension is reachable: tell the user).",
        arguments: &[Argument {
            description: "The tab to close, a tabId from list_tabs. Leave it out to close the active tab of the last focused window.",
            ..TAB_ID
        }],
        rules: &[],
        read_only: false,
        availability: FROM_MID,
        destructive: true,
        host_wait: ONE_MINUTE,
        reply: ReplyShape::WholeResult,
    },
    ToolDefinition {
        name: "resize",
        title: "Resize the viewport",
        description: "Gives the tab's viewport (the page's window.innerWidth and innerHeight, in CSS pixels) a size, so that you can see how the page lays out on a narrow phone or a wide screen.\n\
In a browser allwright launched only this tab's viewport changes, and it keeps its size across navigations until the next resize. In the user's own browser the tab's whole window is resized (a maximized or fullscreen window is made normal first), so every tab of that window changes, and the screen may stop the window short of the size asked.\n\
Returns {width, height}: the viewport the page has now; `hint` says why, when that is not the size asked.\n\
Refs stay valid, but what is visible changes: read the tree again before acting on a layout that depends on the width.\n\
Common errors: invalid_arguments (width 200 to 7680, height 200 to 4320), no_tab (no open tab has this id: call list_tabs), not_connected (no browser with the extension is reachable: tell the user).",
        arguments: &[
            Argument {
                name: "width",
                kind: ArgumentKind::Integer { minimum: MIN_VIEWPORT_SIDE, maximum: MAX_VIEWPORT_WIDTH },
                required: true,
                default: None,
                example: Some(Literal::Number(390)),
                description: "The viewport's width in CSS pixels, from 200 to 7680 (390: a phone; 1280: a laptop).",
            },
            Argument {
                name: "height",
                kind: ArgumentKind::Integer { minimum: MIN_VIEWPORT_SIDE, maximum: MAX_VIEWPORT_HEIGHT },
                required: true,
                default: None,
                example: Some(Literal::Number(844)),
                description: "The viewport's height in CSS pixels, from 200 to 4320.",
            },
            Argument {
                description: "The tab whose viewport to resize (in the user's own browser: whose window). Leave it out for the active tab.",
                ..TAB_ID
            },
        ],
        rules: &[],
        read_only: false,
        availability: FROM_MID,
        destructive: false,
        host_wait: ONE_MINUTE,
        reply: ReplyShape::WholeResult,
    },
    // Only with a browser bridge: WebDriver BiDi (and, for the media features in a launched
    // Chromium, its CDP pipe) emulates per tab; a WebExtension has no such API, and changing the
    // user's own browser for every site is not an agent's to do.
    ToolDefinition {
        name: "emulate",
        title: "Emulate device and user settings",
        description: "Makes the tab's pages see other user settings or another device: a dark or light colour scheme (prefers-color-scheme), reduced motion (prefers-reduced-motion), a device pixel ratio, a user agent string, or no network. Only in a browser allwright launched; each setting stays on this tab, across navigations, until you change it again.\n\
Give only the settings to change; left out (or null) keeps a setting as it is. \"default\", deviceScaleFactor 0, userAgent \"\" and offline false give the browser's own back.\n\
Returns {applied, notSupportedHere?, hint?}: the settings this call set, and those this browser cannot emulate (`hint` says why), which stay as they were.\n\
The page may only notice some settings on its next load (a user agent is sent with the next requests): reload when it does not react.\n\
Common errors: not_supported_here (this browser can emulate none of the settings given: `hint` says which it can), invalid_arguments (give at least one setting), no_tab (call list_tabs).",
        arguments: &[
            Argument {
                name: "colorScheme",
                kind: ArgumentKind::Choice(&["light", "dark", "default"]),
                required: false,
                default: None,
                example: Some(Literal::Text("dark")),
                description: "The colour scheme the page's prefers-color-scheme media queries see: \"light\", \"dark\", or \"default\" (the browser's own).",
            },
            Argument {
                name: "reducedMotion",
                kind: ArgumentKind::Choice(&["reduce", "no-preference", "default"]),
                required: false,
                default: None,
                example: Some(Literal::Text("reduce")),
                description: "What the page's prefers-reduced-motion media queries see: \"reduce\", \"no-preference\", or \"default\" (the browser's own).",
            },
            Argument {
                name: "deviceScaleFactor",
                kind: ArgumentKind::Number { minimum: 0.0, maximum: MAX_DEVICE_SCALE_FACTOR },
                required: false,
                default: None,
                example: Some(Literal::Number(2)),
                description: "The page's window.devicePixelRatio (2 or 3: a phone's dense screen), up to 8; 0 gives the screen's own back.",
            },
            Argument {
                name: "userAgent",
                kind: ArgumentKind::Text { min_chars: 0, max_chars: MAX_USER_AGENT_CHARS },
                required: false,
                default: None,
                example: Some(Literal::Text("Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X)")),
                description: "The user agent string of navigator.userAgent and of the tab's requests; \"\" gives the browser's own back.",
            },
            Argument {
                name: "offline",
                kind: ArgumentKind::Boolean,
                required: false,
                default: None,
                example: Some(Literal::Boolean(true)),
                description: "true: the tab's requests fail as with no network; false: the network is back.",
            },
            Argument {
                description: "The tab to emulate in. Leave it out for the active tab.",
                ..TAB_ID
            },
        ],
        rules: &[],
        read_only: false,
        availability: FULL_WITH_BRIDGE,
        destructive: false,
        host_wait: ONE_MINUTE,
        reply: ReplyShape::WholeResult,
    },
    ToolDefinition {
        name: "execute_js",
        title: "Run JavaScript in the page",
        description: "Dev mode only. Runs JavaScript in the page's own context (its globals are visible) and returns the value of the last expression, awaited when it is a promise. For debugging a page, not for acting on it: use the action tools for that.\n\
Returns {value, type, truncated}: `value` is the result as JSON (functions, DOM nodes and cycles are described, not serialized), at most 100000 characters.\n\
Closed shadow roots stay closed to page scripts. A page whose Content-Security-Policy forbids eval may refuse the code in Firefox (execution_blocked).\n\
Common errors: script_error (the code threw: `message` has the exception), execution_blocked (the page's policy forbids it), timeout (the code did not finish in timeoutMs), debugger_unavailable (Chrome: DevTools are open on the tab), no_tab (call navigate first).",
        arguments: &[
            Argument {
                name: "code",
                kind: ArgumentKind::Text { min_chars: 1, max_chars: 100_000 },
                required: true,
                default: None,
                example: Some(Literal::Text("document.title")),
                description: "The JavaScript to run: an expression or statements; the last expression's value is returned.",
            },
            Argument {
                name: "timeoutMs",
                kind: ArgumentKind::Integer { minimum: 100, maximum: 60_000 },
                required: false,
                default: Some(Literal::Number(10_000)),
                example: None,
                description: "How long the code may run, in milliseconds.",
            },
            ACTION_FRAME_ID,
            TAB_ID,
        ],
        rules: &[],
        read_only: false,
        availability: DEV_ONLY,
        destructive: true,
        host_wait: OWN_BUDGET,
        reply: ReplyShape::WholeResult,
    },
    ToolDefinition {
        name: "console_messages",
        title: "Read the page's console",
        description: "Lists what the tab's pages wrote to the console, every frame included, and the errors they did not catch (with their stack), from the start of the session, oldest first: `#12 error exception \"TypeError: x is undefined\" at https://a.test/app.js:2:15`, then `  at caller https://a.test/app.js:9:3` lines for an exception's stack; a console method other than log, info, warn, error and debug is named (`console.table`).\n\
In a browser allwright launched or drives over WebDriver BiDi they are recorded from the start; in your own browser from the agent's first call in the tab (`recordsSince` says from when), and what a page logs while it first loads may be missed.\n\
Returns a JSON header line {count, shown?, next, olderDropped?, recordsSince?}, then the lines: `next` is the number to pass as `since` to get only what came after; `shown` when `limit` kept only the newest; `olderDropped` when the tab logged more than allwright keeps (1,000 entries a tab).\n\
Common errors: no_tab (call navigate first), not_connected (no browser is reachable: tell the user).",
        arguments: &[
            Argument {
                name: "since",
                kind: ArgumentKind::Integer { minimum: 0, maximum: LARGEST_SEQUENCE },
                required: false,
                default: None,
                example: Some(Literal::Number(12)),
                description: "Only entries after this one: the `next` of an earlier answer.",
            },
            Argument {
                name: "level",
                kind: ArgumentKind::Choice(&["debug", "info", "warning", "error"]),
                required: false,
                default: None,
                example: Some(Literal::Text("warning")),
                description: "The lowest level listed: \"warning\" lists warnings and errors. Leave it out for every level.",
            },
            OBSERVATIONS_LIMIT,
            VERBOSE,
            TAB_ID,
        ],
        rules: &[],
        read_only: true,
        availability: FULL,
        destructive: false,
        host_wait: ONE_MINUTE,
        reply: ReplyShape::TreeRead,
    },
    ToolDefinition {
        name: "network_requests",
        title: "List the page's requests",
        description: "Lists the requests of the tab's pages, every frame included, from the start of the session, oldest first: `#15 POST 201 https://a.test/api/orders fetch application/json 1.2 kB 35 ms from https://a.test/app.js:42` (method, status, URL, resource type, MIME type, bytes received, duration, the script that started it); a failed request says `failed` and why (`failed net::ERR_NAME_NOT_RESOLVED`), one still running `pending`, one held by the browser `blocked`. Credentials are never shown: Authorization, Cookie and Set-Cookie headers, headers and query parameters named like a token, secret, session or key, and values that look like one are printed `<masked, N characters>` (`MASKED(N)` in a URL). Bodies are not recorded.\n\
In a browser allwright launched or drives over WebDriver BiDi they are recorded from the start; in your own browser from the first call in the tab while allwright works (`recordsSince` says from when), without the script that started them.\n\
Returns a JSON header line {count, shown?, next, olderDropped?, recordsSince?}, then the lines, each followed with includeHeaders by its request (`>`) and response (`<`) headers: `next` is the number to pass as `since` to get only what came after.\n\
Common errors: no_tab (call navigate first), not_connected (no browser is reachable: tell the user).",
        arguments: &[
            Argument {
                name: "since",
                kind: ArgumentKind::Integer { minimum: 0, maximum: LARGEST_SEQUENCE },
                required: false,
                default: None,
                example: Some(Literal::Number(15)),
                description: "Only requests after this one: the `next` of an earlier answer.",
            },
            Argument {
                name: "urlFilter",
                kind: ArgumentKind::Text { min_chars: 1, max_chars: 500 },
                required: false,
                default: None,
                example: Some(Literal::Text("/api/")),
                description: "Only requests whose URL contains this, in any case.",
            },
            Argument {
                name: "includeHeaders",
                kind: ArgumentKind::Boolean,
                required: false,
                default: Some(Literal::Boolean(false)),
                example: None,
                description: "true: print each request's and response's headers under it (credentials masked).",
            },
            OBSERVATIONS_LIMIT,
            VERBOSE,
            TAB_ID,
        ],
        rules: &[],
        read_only: true,
        availability: FULL,
        destructive: false,
        host_wait: ONE_MINUTE,
        reply: ReplyShape::TreeRead,
    },
    ToolDefinition {
        name: "list_downloads",
        title: "List the agent's downloads",
        description: "Lists the files your actions and navigations downloaded (a click on a download link, a navigate to a file the server sends as an attachment, a page script's blob: or data: download), oldest first: `#7 complete report.csv text/csv 38 B https://a.test/download/report.csv tab 12 click_ax` (id, state, file name, MIME type, size, URL, the tab and the tool that started it). `state` is in_progress, complete, interrupted (with the browser's reason, such as NETWORK_FAILED or USER_CANCELED) or removed (taken out of the browser's list). Only your own downloads are listed, never the person's; credentials and token-looking query values in URLs are printed `MASKED(N)`.\n\
An action's evidence already names each download it started (`observed.downloads`, with its id): call this to see them all, and get_download to read one.\n\
Returns a JSON header line {count, olderDropped?} (only the newest 100 are kept), then one line per download; verbose: true gives the objects instead.\n\
Common errors: not_connected (no browser is reachable: tell the user).",
        arguments: &[VERBOSE],
        rules: &[],
        read_only: true,
        availability: FROM_MID,
        destructive: false,
        host_wait: ONE_MINUTE,
        reply: ReplyShape::TreeRead,
    },
    ToolDefinition {
        name: "get_download",
        title: "Read a downloaded file",
        description: "Returns one of your downloads by the id that list_downloads or an action's `observed.downloads` gave: its facts as a JSON line {id, state, filename, mimeType, bytes, url, tabId, startedBy, content}, and for a text file (text/*, CSV, JSON, XML, JavaScript, YAML, ...) of at most 256 KiB its text as an embedded resource (`content: \"text\"`). A binary file (`content: \"binary\"`) or a larger one (`\"too_large\"`) comes without its bytes; in a browser allwright launched, `savedAt` then says where it is saved. A download still in progress is waited for up to 15 s; one that is still running after that answers `content: \"not_finished\"`: call again later; an interrupted one says why (`reason`) and answers `content: \"none\"`.\n\
Returns the JSON line, then the file's text when it is text.\n\
Common errors: download_not_found (the id is not one of your downloads: call list_downloads), invalid_arguments (give the numeric id).",
        arguments: &[
            Argument {
                name: "id",
                kind: ArgumentKind::Integer { minimum: 0, maximum: LARGEST_SEQUENCE },
                required: true,
                default: None,
                example: Some(Literal::Number(7)),
                description: "The download's id, from list_downloads or an action's observed.downloads.",
            },
            VERBOSE,
        ],
        rules: &[],
        read_only: true,
        availability: FROM_MID,
        destructive: false,
        host_wait: ONE_MINUTE,
        reply: ReplyShape::Resource,
    },
    ToolDefinition {
        name: "handle_dialog",
        title: "Answer a dialog",
        description: "Answers the alert, confirm or prompt dialog that blocks a tab: accept: true presses OK, accept: false presses Cancel (an alert has only OK: either closes it). promptText is typed into a prompt dialog before it is accepted.\n\
Call it when a tool failed with dialog_open: that error's `dialog` says the dialog's type and message. While a dialog is open no other tool works in that tab.\n\
Returns {handled, type, message}. Read the page again afterwards: the page went on from where the dialog stopped it.\n\
Common errors: no_dialog (no dialog is open in the tab: carry on), no_tab (call list_tabs).",
        arguments: &[
            Argument {
                name: "accept",
                kind: ArgumentKind::Boolean,
                required: true,
                default: None,
                example: Some(Literal::Boolean(true)),
                description: "true: OK (accept); false: Cancel (dismiss).",
            },
            Argument {
                name: "promptText",
                kind: ArgumentKind::Text {
                    min_chars: 0,
                    max_chars: MAX_TYPED_CHARS,
                },
                required: false,
                default: None,
                example: None,
                description: "For a prompt dialog: the text to answer with (accept: true).",
            },
            Argument {
                description: "The tab whose dialog to answer. Leave it out for the active tab.",
                ..TAB_ID
            },
        ],
        rules: &[],
        read_only: false,
        availability: FROM_COMPACT_WITH_BRIDGE,
        destructive: false,
        host_wait: ONE_MINUTE,
        reply: ReplyShape::WholeResult,
    },
];

#[cfg(test)]
mod tests {
    use super::super::find_tool;
    use super::*;

    #[test]
    fn annotations_and_descriptions_guide_the_model() {
        for tool in TOOLS {
            let read_only = matches!(
                tool.name,
                "get_accessibility_tree"
                    | "accessibility_snapshot"
                    | "screenshot"
                    | "list_tabs"
                    | "wait_for_stable"
                    | "get_frames"
                    | "iframe_read"
                    | "get_shadow_dom"
                    | "shadow_dom_query"
                    | "find"
                    | "wait_for"
                    | "console_messages"
                    | "network_requests"
                    | "list_downloads"
                    | "get_download"
                    | "save_pdf"
            );
            assert_eq!(tool.read_only, read_only, "{}", tool.name);
            assert!(tool.title.len() <= 50, "{}: a short title", tool.name);
            assert!(
                tool.description.contains("Returns ")
                    && tool.description.contains("Common errors: "),
                "{} says what it returns and how it fails",
                tool.name
            );
        }
        let description = |tool: &str| find_tool(tool).expect("known tool").description;
        for needed in [
            "\"inconclusive\"",
            "do NOT click again",
            "\"none\"",
            "retryAllowed is false",
            "ref_not_found",
            "not_actionable",
        ] {
            assert!(
                description("click_ax").contains(needed),
                "click_ax: {needed}"
            );
        }
        for needed in [
            "not_typable",
            "set_field",
            "select_option",
            "click_ax",
            "clear: false",
        ] {
            assert!(description("type_ax").contains(needed), "type_ax: {needed}");
        }
        for needed in [
            "option_not_found",
            "`suggestions`",
            "exactly one of `label` and `value`",
        ] {
            assert!(
                description("select_option").contains(needed),
                "select_option: {needed}"
            );
        }
        for needed in ["\"inconclusive\"", "retryAllowed is false", "not_typable"] {
            assert!(
                description("set_field").contains(needed),
                "set_field: {needed}"
            );
        }
        for tool in ["go_back", "go_forward"] {
            assert!(description(tool).contains("no_history"), "{tool}");
        }
        for needed in [
            "\"true\" or \"false\"",
            "`failed`",
            "notAttempted",
            "ref_changed",
            "value_not_accepted",
            "no field is ever filled twice",
            "Nothing is submitted",
        ] {
            assert!(
                description("fill_form").contains(needed),
                "fill_form: {needed}"
            );
        }
        for needed in ["ignoreCache", "page_blocked", "navigation_failed"] {
            assert!(description("reload").contains(needed), "reload: {needed}");
        }
        for needed in ["page_blocked", "dialog_open", "ask the user"] {
            assert!(
                description("click_ax").contains(needed),
                "click_ax: {needed}"
            );
        }
        for needed in ["cssHover", ":hover", "page_blocked"] {
            assert!(description("hover").contains(needed), "hover: {needed}");
        }
        for needed in [
            "tab_not_visible",
            "select_tab",
            "not_supported_here",
            "ref_not_found",
            "page_blocked",
        ] {
            assert!(
                description("screenshot").contains(needed),
                "screenshot: {needed}"
            );
        }
    }
}
