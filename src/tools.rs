//! The tools of docs/protocol.md ("Tools"), as one table: each tool's description for the model,
//! its arguments (from which both the JSON Schema and the validation are derived, so they cannot
//! disagree) and the tiers that list it.

use serde_json::{json, Map, Value};

use crate::tool_error::ToolError;

/// The tool tiers of the French document: Ask is read-only; Compact, Mid and Full act with
/// growing surfaces. `--dev` adds developer tools to Mid and Full.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Tier {
    Ask,
    Compact,
    Mid,
    Full,
}

/// Read-only tools, and the moves that only change what is looked at (navigate, go_back, scroll,
/// tabs): listed everywhere.
const EVERY_TIER: &[Tier] = &[Tier::Ask, Tier::Compact, Tier::Mid, Tier::Full];
/// The core actions on a page: click, type, fill, choose, press.
const COMPACT_AND_ABOVE: &[Tier] = &[Tier::Compact, Tier::Mid, Tier::Full];
/// The larger surface: hovering, opening and closing tabs.
const MID_AND_FULL: &[Tier] = &[Tier::Mid, Tier::Full];

/// Which tiers list a tool, without and with Dev mode.
pub struct Availability {
    pub tiers: &'static [Tier],
    /// Tiers that list the tool only in Dev mode (for example `get_frames` for Mid).
    pub dev_only_tiers: &'static [Tier],
}

impl Availability {
    pub fn is_listed(&self, tier: Tier, dev: bool) -> bool {
        self.tiers.contains(&tier) || (dev && self.dev_only_tiers.contains(&tier))
    }
}

const EVERYWHERE: Availability = Availability {
    tiers: EVERY_TIER,
    dev_only_tiers: &[],
};
const FROM_COMPACT: Availability = Availability {
    tiers: COMPACT_AND_ABOVE,
    dev_only_tiers: &[],
};
const FROM_MID: Availability = Availability {
    tiers: MID_AND_FULL,
    dev_only_tiers: &[],
};

pub enum ArgumentKind {
    /// One of these strings.
    Choice(&'static [&'static str]),
    /// An integer in `minimum..=maximum`.
    Integer { minimum: i64, maximum: i64 },
    /// `true` or `false`.
    Boolean,
    /// A string of `min_chars..=max_chars` characters, counted as Unicode code points (as JSON
    /// Schema's `minLength` and `maxLength` count them, not as UTF-16 units or bytes).
    Text { min_chars: usize, max_chars: usize },
    /// One KeyboardEvent `key` value ("Enter", "ArrowDown", "a"): 1 to 32 characters, and not a
    /// chord like "Control+a" (modifiers have their own argument).
    KeyName,
    /// An array of distinct names from `MODIFIER_KEYS`.
    ModifierList,
    /// A reference printed by get_accessibility_tree: `ref_` and digits.
    ElementReference,
    /// An absolute http, https or file URL, or about:blank.
    NavigableUrl,
}

pub struct Argument {
    pub name: &'static str,
    pub kind: ArgumentKind,
    pub required: bool,
    pub default: Option<DefaultValue>,
    pub description: &'static str,
}

#[derive(Clone, Copy)]
pub enum DefaultValue {
    Text(&'static str),
    Number(i64),
    Boolean(bool),
}

/// A rule across several arguments that their kinds cannot express (and that JSON Schema could
/// only express with `oneOf`, which MCP clients handle poorly). It runs after every argument
/// passed its own check; explicit nulls count as absent.
type CrossCheck = fn(&Map<String, Value>) -> Result<(), ToolError>;

pub struct ToolDefinition {
    pub name: &'static str,
    pub title: &'static str,
    pub description: &'static str,
    pub arguments: &'static [Argument],
    pub cross_check: Option<CrossCheck>,
    pub read_only: bool,
    pub availability: Availability,
}

/// The longest text type_ax and set_field accept in one call.
const MAX_TYPED_CHARS: usize = 50_000;
/// The longest option label or value select_option accepts.
const MAX_OPTION_CHARS: usize = 1_000;
/// The longest KeyboardEvent `key` value press_key accepts ("ContextMenu", "MediaPlayPause", ...).
const MAX_KEY_NAME_CHARS: usize = 32;
/// The modifier keys press_key can hold, by their KeyboardEvent `key` values.
const MODIFIER_KEYS: &[&str] = &["Alt", "Control", "Meta", "Shift"];

const TAB_ID: Argument = Argument {
    name: "tabId",
    kind: ArgumentKind::Integer {
        minimum: 0,
        maximum: i32::MAX as i64,
    },
    required: false,
    default: None,
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
    description: "The text to type, at most 50000 characters. An empty string with clear: true empties the field.",
};

/// `clear` of type_ax and set_field.
const CLEAR: Argument = Argument {
    name: "clear",
    kind: ArgumentKind::Boolean,
    required: false,
    default: Some(DefaultValue::Boolean(true)),
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
    default: Some(DefaultValue::Number(30_000)),
    description: "How long the page may take to load, in milliseconds.",
};

/// `ref_id` of the tools whose target is required.
const fn target(description: &'static str) -> Argument {
    Argument {
        name: "ref_id",
        kind: ArgumentKind::ElementReference,
        required: true,
        default: None,
        description,
    }
}

pub const TOOLS: &[ToolDefinition] = &[
    ToolDefinition {
        name: "get_accessibility_tree",
        title: "Read the page",
        description: "Reads the current page as a compact accessibility tree, one line per element:\n\
`role \"accessible name\" [ref_N] href=\"...\" type=\"...\" placeholder=\"...\" value=\"...\"`, indented one space per level.\n\
Call it first on almost every turn: it is faster and cheaper than a screenshot, and the ref_N ids it prints are how you point at elements. Open dialogs, menus, listboxes and expanded comboboxes (including popups rendered in portals) are listed first, under an `[open overlays]` banner.\n\
Returns {tree, truncated, hasMore, autoDegraded, notice?, page, pageCount, continuationArgs?, url, title}.\n\
When to call it again:\n\
- truncated/hasMore is true: call again with exactly `continuationArgs` to read the next page, or pass `ref_id` of a container to zoom into it.\n\
- after navigate, after anything that re-renders the page, or when a ref fails: refs of removed elements stop resolving, so read the tree again.\n\
- a popup or dropdown you expect is missing: read again with filter \"all\" and look under `[open overlays]`.\n\
The tree does not enter iframes: their content is not shown (accessibility_snapshot includes every frame). Closed shadow roots cannot be read.\n\
Common errors: ref_not_found (the element behind ref_id is gone; use one of `suggestions` or read without ref_id), page_out_of_range (ask for a page between 1 and pageCount), no_tab (no page is open: call navigate), not_connected (no browser with the extension is reachable: tell the user).",
        arguments: &[
            Argument {
                name: "filter",
                kind: ArgumentKind::Choice(&["all", "visible", "interactive"]),
                required: false,
                default: Some(DefaultValue::Text("all")),
                description: "\"all\": the whole page; \"visible\": only what is in the viewport; \"interactive\": only elements you can click or type into.",
            },
            Argument {
                name: "maxDepth",
                kind: ArgumentKind::Integer { minimum: 1, maximum: 100 },
                required: false,
                default: Some(DefaultValue::Number(15)),
                description: "How deep to descend. Skipped generic containers do not count.",
            },
            Argument {
                name: "maxChars",
                kind: ArgumentKind::Integer { minimum: 100, maximum: 1_000_000 },
                required: false,
                default: None,
                description: "Hard limit on the tree's length; longer output is paged and marked autoDegraded.",
            },
            Argument {
                name: "ref_id",
                kind: ArgumentKind::ElementReference,
                required: false,
                default: None,
                description: "Read only the subtree of this element (a ref_N from an earlier tree), for example one message of a thread.",
            },
            Argument {
                name: "page",
                kind: ArgumentKind::Integer { minimum: 1, maximum: 1_000_000 },
                required: false,
                default: None,
                description: "1-based page of a tree that did not fit; prefer passing continuationArgs exactly.",
            },
            Argument {
                name: "frameId",
                kind: ArgumentKind::Integer { minimum: 0, maximum: LARGEST_FRAME_ID },
                required: false,
                default: None,
                description: "Read this frame of the tab instead of the top document (0 is the top document; accessibility_snapshot names each frame's document `tab-T.frame-F`, F being its frameId).",
            },
            TAB_ID,
        ],
        cross_check: None,
        read_only: true,
        availability: EVERYWHERE,
    },
    ToolDefinition {
        name: "accessibility_snapshot",
        title: "Structured snapshot of the page and its frames",
        description: "Captures the whole page, every iframe included (cross-origin too), as a structured snapshot (version 1) in JSON or YAML:\n\
{version: 1, documents: [{contextId, parentContextId, url, title, root}]}, the top document first, then its frames depth-first; each node is {role, name, states, properties, children}.\n\
Use it when you need exact states and properties (checked, expanded, pressed, level, values, descriptions) or content inside iframes; for ordinary reading get_accessibility_tree is shorter. mode \"ai\" adds an `aria-ref` to each element you can act on.\n\
Returns {format, snapshot, documentCount}; `snapshot` is a string to parse as JSON or YAML.\n\
Common errors: frame_detached or script_failed (the page changed during the capture: call again; a partial snapshot is never returned), timeout (the page is slow or huge: pass a larger timeoutMs, up to 120000), no_tab (call navigate first), not_connected (no browser with the extension is reachable: tell the user).",
        arguments: &[
            Argument {
                name: "format",
                kind: ArgumentKind::Choice(&["json", "yaml"]),
                required: false,
                default: Some(DefaultValue::Text("json")),
                description: "Serialization of the snapshot string.",
            },
            Argument {
                name: "mode",
                kind: ArgumentKind::Choice(&["ai"]),
                required: false,
                default: None,
                description: "\"ai\": give actionable elements an opaque `aria-ref`, stable while the element, its role and its name do not change.",
            },
            Argument {
                name: "timeoutMs",
                kind: ArgumentKind::Integer { minimum: 100, maximum: 120_000 },
                required: false,
                default: Some(DefaultValue::Number(10_000)),
                description: "How long the capture may take, in milliseconds.",
            },
            TAB_ID,
        ],
        cross_check: None,
        read_only: true,
        availability: EVERYWHERE,
    },
    ToolDefinition {
        name: "navigate",
        title: "Open a URL",
        description: "Opens a URL in the tab and waits for the page's load event.\n\
Accepts absolute http and https URLs, file URLs and about:blank.\n\
Returns {url, title} of the page that loaded (after redirects).\n\
Every ref_N from before the navigation stops working: call get_accessibility_tree next.\n\
Common errors: invalid_arguments (give a full URL with its scheme, like https://example.com), navigation_failed (the address could not be loaded: check it, or tell the user the site is unreachable), timeout (the page did not finish loading in timeoutMs: read it anyway with get_accessibility_tree, or retry with a larger timeoutMs), not_connected (no browser with the extension is reachable: tell the user).",
        arguments: &[
            Argument {
                name: "url",
                kind: ArgumentKind::NavigableUrl,
                required: true,
                default: None,
                description: "The absolute URL to open (http, https, file) or about:blank.",
            },
            LOAD_TIMEOUT,
            TAB_ID,
        ],
        cross_check: None,
        read_only: false,
        availability: EVERYWHERE,
    },
    ToolDefinition {
        name: "click_ax",
        title: "Click an element",
        description: "Clicks an element by its ref_N from get_accessibility_tree: scrolls it into view, focuses it and clicks it, then watches the tab for about half a second to tell you whether the click did anything.\n\
Returns {success, progress, evidence, hints, observed?, retryAllowed, hint?, tag, role, name, rect?, method, href?, navigates?}. `hints` are diagnostics, never proof of an effect; `hint`, when present, says what to do next.\n\
Read `progress` first:\n\
- \"observed\": the click had an effect, `evidence` says which (url_changed, focus_moved, local_mutation, semantic_state:aria-expanded, ...). Read the page again with get_accessibility_tree.\n\
- \"inconclusive\": a request was sent, a new tab opened or a download started (see `observed`). The click may already have done its job (sent a message, placed an order): do NOT click again; read the page, or list_tabs to find a new tab.\n\
- \"none\": nothing observable changed. Read the tree again before anything else: the ref may be the wrong element, or a dialog may be in the way.\n\
Never retry a click whose retryAllowed is false.\n\
`method`: \"synthetic\" (a script click); in Chrome, \"trusted-fallback\" when the page ignored it and allwright sent one real mouse click to a safe target (never to form controls, toggles, downloads, targets in forms or with names like Delete or Pay). Firefox always says \"synthetic\".\n\
Which tool: click_ax for buttons, links, checkboxes, radios, tabs and menu items; type_ax or set_field for text fields; select_option for <select> elements and listboxes; hover for menus that open on hover.\n\
Common errors: ref_not_found (the element is gone: use one of `suggestions` or read the tree again), not_actionable (the element is disabled or no longer laid out: read the tree again), frame_not_found (wrong frameId), no_tab (call navigate first), not_connected (no browser with the extension is reachable: tell the user).",
        arguments: &[
            target("The element to click: a ref_N printed by get_accessibility_tree."),
            ACTION_FRAME_ID,
            TAB_ID,
        ],
        cross_check: None,
        read_only: false,
        availability: FROM_COMPACT,
    },
    ToolDefinition {
        name: "type_ax",
        title: "Type into a field",
        description: "Types text into a text field, text area or contenteditable element by its ref_N, replacing its content (clear: true, the default) or appending to it (clear: false). The value is set the way typing sets it and input and change events fire, so React and Vue controlled fields see it. Nothing is submitted.\n\
Returns {success, progress, evidence, hints, retryAllowed, hint?, tag, role, name, kind, value}: `kind` is \"input\", \"textarea\" or \"contenteditable\"; `value` is the field's content afterwards (\"••••\" for passwords): check it.\n\
Which tool: type_ax fills a field and nothing else. set_field fills and can submit in one call (search boxes, autocomplete comboboxes, one-field forms). select_option chooses in a <select> or listbox. Checkboxes, radios and buttons take click_ax. press_key sends single keys (Enter, Tab, Escape, arrows).\n\
Text over 50000 characters: type the first 50000, then the rest in further calls with clear: false.\n\
Common errors: not_typable (not a text field: the hint names the right tool), ref_not_found (use one of `suggestions` or read the tree again), not_actionable (the field is disabled or no longer laid out), invalid_arguments (text must be a string of at most 50000 characters).",
        arguments: &[
            target("The field to type into: a ref_N printed by get_accessibility_tree."),
            TYPED_TEXT,
            CLEAR,
            ACTION_FRAME_ID,
            TAB_ID,
        ],
        cross_check: None,
        read_only: false,
        availability: FROM_COMPACT,
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
                default: Some(DefaultValue::Boolean(false)),
                description: "true: commit the field after typing (pick the first suggestion of a combobox, else submit the form or press Enter).",
            },
            ACTION_FRAME_ID,
            TAB_ID,
        ],
        cross_check: None,
        read_only: false,
        availability: FROM_COMPACT,
    },
    ToolDefinition {
        name: "select_option",
        title: "Choose an option",
        description: "Chooses one option of a <select>, a listbox or a combobox, by the ref_N of that control (not of an option), matching either the option's visible label or its value attribute: give exactly one of `label` and `value`.\n\
Returns {success, progress, evidence, hints, retryAllowed, hint?, tag, role, name, method, selected}: `method` is \"native\" for a <select> and \"listbox\" for an ARIA listbox; `selected` is {label, value?} of the option now chosen: check it.\n\
Which tool: select_option for choosing from a list; click_ax for checkboxes, radios and menu items; set_field for comboboxes you type into.\n\
Common errors: option_not_found (no option has that label or value: `suggestions` lists the options' labels, call again with one of them exactly), not_actionable (the control is disabled), ref_not_found (use one of `suggestions` or read the tree again), invalid_arguments (both or neither of label and value).",
        arguments: &[
            target("The <select>, listbox or combobox: a ref_N printed by get_accessibility_tree."),
            Argument {
                name: "label",
                kind: ArgumentKind::Text { min_chars: 1, max_chars: MAX_OPTION_CHARS },
                required: false,
                default: None,
                description: "The option's visible text, as the tree prints it. Give label or value, not both.",
            },
            Argument {
                name: "value",
                kind: ArgumentKind::Text { min_chars: 1, max_chars: MAX_OPTION_CHARS },
                required: false,
                default: None,
                description: "The option's value attribute. Give value or label, not both.",
            },
            ACTION_FRAME_ID,
            TAB_ID,
        ],
        cross_check: Some(exactly_one_of_label_and_value),
        read_only: false,
        availability: FROM_COMPACT,
    },
    ToolDefinition {
        name: "hover",
        title: "Hover over an element",
        description: "Moves the pointer over an element by its ref_N, for menus, tooltips and previews that open on hover.\n\
Returns {success, progress, evidence, hints, retryAllowed, hint?, tag, role, name, rect}. Read the tree next: a menu or popup that opened is listed first, under `[open overlays]`.\n\
Menus that open on click take click_ax, not hover.\n\
Common errors: ref_not_found (use one of `suggestions` or read the tree again), not_actionable (the element is not laid out: it may be hidden or removed).",
        arguments: &[
            target("The element to hover: a ref_N printed by get_accessibility_tree."),
            ACTION_FRAME_ID,
            TAB_ID,
        ],
        cross_check: None,
        read_only: false,
        availability: FROM_MID,
    },
    ToolDefinition {
        name: "press_key",
        title: "Press a key",
        description: "Presses one key, optionally with modifier keys held, on the focused element, or on the element ref_id names (focused first).\n\
`key` is a KeyboardEvent key value, case-sensitive: \"Enter\", \"Tab\", \"Escape\", \"Backspace\", \"ArrowDown\", \"PageDown\", \"Home\", \" \" (space), \"a\". One key per call: hold Control, Shift, Alt or Meta with `modifiers`, not \"Control+a\".\n\
The key events are synthetic, so the browser runs no default action of its own; allwright performs the usual one itself and names it in `defaultAction` (\"submit\", \"click\", \"focus_next\", \"focus_previous\", \"insert_text\", \"delete_backward\", \"select_all\").\n\
Returns {success, progress, evidence, hints, retryAllowed, hint?, tag, role, name, key, modifiers, defaultAction?}.\n\
Use it to drive widgets by keyboard (menus, listboxes, dialogs: Escape closes them) and to press Enter in a field. To type text, use type_ax or set_field, which type a whole string at once.\n\
Common errors: invalid_arguments (key must be one key name, at most 32 characters; modifiers only Alt, Control, Meta, Shift, each once), ref_not_found (use one of `suggestions` or read the tree again), not_actionable (the element is disabled or no longer laid out).",
        arguments: &[
            Argument {
                name: "key",
                kind: ArgumentKind::KeyName,
                required: true,
                default: None,
                description: "One KeyboardEvent key value: \"Enter\", \"Tab\", \"Escape\", \"ArrowDown\", \"a\", ...",
            },
            Argument {
                name: "modifiers",
                kind: ArgumentKind::ModifierList,
                required: false,
                default: None,
                description: "Modifier keys held during the press, each at most once, for example [\"Control\"] or [\"Shift\", \"Meta\"]. Leave it out for none.",
            },
            Argument {
                name: "ref_id",
                kind: ArgumentKind::ElementReference,
                required: false,
                default: None,
                description: "Focus this element (a ref_N printed by get_accessibility_tree) and press the key there. Leave it out to press the key on the focused element.",
            },
            ACTION_FRAME_ID,
            TAB_ID,
        ],
        cross_check: None,
        read_only: false,
        availability: FROM_COMPACT,
    },
    ToolDefinition {
        name: "scroll",
        title: "Scroll",
        description: "Scrolls the page, or the scrollable element ref_id names: by `amount` pixels in `direction` (default: down, by 80% of the viewport or element), or with `to` to its \"top\" or \"bottom\"; `to: \"into_view\"` scrolls the page until the element ref_id names is visible.\n\
Returns {success, progress, evidence, hints, retryAllowed, hint?, target, before, after}: `target` is \"page\" or \"element\"; `before` equal to `after` ({x, y}) means it could not scroll further that way.\n\
You rarely need it to read: get_accessibility_tree already includes content outside the viewport, and click_ax, type_ax and hover scroll their target into view themselves. Scroll to load more of an endless list, or before reading with filter \"visible\".\n\
Common errors: ref_not_found (use one of `suggestions` or read the tree again), invalid_arguments (to \"into_view\" needs ref_id).",
        arguments: &[
            Argument {
                name: "ref_id",
                kind: ArgumentKind::ElementReference,
                required: false,
                default: None,
                description: "The element to scroll (or, with to: \"into_view\", to bring into view): a ref_N printed by get_accessibility_tree. Leave it out to scroll the page.",
            },
            Argument {
                name: "direction",
                kind: ArgumentKind::Choice(&["up", "down", "left", "right"]),
                required: false,
                default: Some(DefaultValue::Text("down")),
                description: "Which way to scroll.",
            },
            Argument {
                name: "amount",
                kind: ArgumentKind::Integer { minimum: 1, maximum: 100_000 },
                required: false,
                default: None,
                description: "How far to scroll, in CSS pixels. Leave it out to scroll by 80% of the viewport (or of the element).",
            },
            Argument {
                name: "to",
                kind: ArgumentKind::Choice(&["top", "bottom", "into_view"]),
                required: false,
                default: None,
                description: "Scroll to the top or the bottom instead of by an amount; \"into_view\" brings the element ref_id names into the viewport.",
            },
            ACTION_FRAME_ID,
            TAB_ID,
        ],
        cross_check: Some(into_view_needs_a_target),
        read_only: false,
        availability: EVERYWHERE,
    },
    ToolDefinition {
        name: "go_back",
        title: "Go back",
        description: "Goes back one step in the tab's history, as the browser's Back button does, and waits for the page to load.\n\
Returns {url, title, changed}: the page now shown; `changed` is false when the URL stayed the same.\n\
Refs from before may stop working: read the tree again with get_accessibility_tree.\n\
Common errors: no_history (there is nothing to go back to: use navigate), timeout (the page did not finish loading in timeoutMs: read it anyway with get_accessibility_tree), not_connected (no browser with the extension is reachable: tell the user).",
        arguments: &[LOAD_TIMEOUT, TAB_ID],
        cross_check: None,
        read_only: false,
        availability: EVERYWHERE,
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
                default: Some(DefaultValue::Number(500)),
                description: "How long the page must stay quiet to count as stable, in milliseconds.",
            },
            Argument {
                name: "timeoutMs",
                kind: ArgumentKind::Integer { minimum: 500, maximum: 60_000 },
                required: false,
                default: Some(DefaultValue::Number(10_000)),
                description: "The longest to wait, in milliseconds.",
            },
            TAB_ID,
        ],
        cross_check: None,
        read_only: true,
        availability: EVERYWHERE,
    },
    ToolDefinition {
        name: "list_tabs",
        title: "List tabs",
        description: "Lists the browser's open tabs.\n\
Returns {tabs: [{tabId, windowId, url, title, active}]}.\n\
Use a tabId with select_tab to switch to that tab, or pass it as tabId to any other tool to read or act in that tab without switching. Call it after a click reported a new tab (observed.newTabs) to find it.\n\
Common errors: not_connected (no browser with the extension is reachable: tell the user).",
        arguments: &[],
        cross_check: None,
        read_only: true,
        availability: EVERYWHERE,
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
                default: Some(DefaultValue::Text("about:blank")),
                description: "The absolute URL to open (http, https, file) or about:blank.",
            },
            LOAD_TIMEOUT,
            Argument {
                description: "The tab whose window gets the new tab. Leave it out to use the last focused window.",
                ..TAB_ID
            },
        ],
        cross_check: None,
        read_only: false,
        availability: FROM_MID,
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
            description: "The tab to switch to, a tabId from list_tabs.",
            ..TAB_ID
        }],
        cross_check: None,
        read_only: false,
        availability: EVERYWHERE,
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
        cross_check: None,
        read_only: false,
        availability: FROM_MID,
    },
];

/// The tools listed for a tier, in table order.
pub fn listed_tools(tier: Tier, dev: bool) -> impl Iterator<Item = &'static ToolDefinition> {
    TOOLS
        .iter()
        .filter(move |tool| tool.availability.is_listed(tier, dev))
}

impl ToolDefinition {
    /// The JSON Schema of the tool's arguments (draft 2020-12, what MCP clients expect).
    pub fn input_schema(&self) -> Map<String, Value> {
        let mut properties = Map::new();
        for argument in self.arguments {
            let mut schema = argument.kind.schema();
            schema["description"] = json!(argument.description);
            if let Some(default) = argument.default {
                schema["default"] = default.to_value();
            }
            properties.insert(argument.name.to_owned(), schema);
        }
        let required: Vec<&str> = self
            .arguments
            .iter()
            .filter(|argument| argument.required)
            .map(|argument| argument.name)
            .collect();
        let mut schema = Map::new();
        schema.insert("type".into(), json!("object"));
        schema.insert("properties".into(), Value::Object(properties));
        if !required.is_empty() {
            schema.insert("required".into(), json!(required));
        }
        schema.insert("additionalProperties".into(), json!(false));
        schema
    }

    /// Checks `arguments` against the table. Returns the arguments to forward (unchanged: the
    /// extension applies the defaults) or an `invalid_arguments` error that names the argument
    /// and says, in its hint, what to pass instead.
    pub fn validate(&self, arguments: Option<&Map<String, Value>>) -> Result<Value, ToolError> {
        let empty = Map::new();
        let arguments = arguments.unwrap_or(&empty);
        for name in arguments.keys() {
            if !self.arguments.iter().any(|argument| argument.name == name) {
                let known: Vec<Value> = self
                    .arguments
                    .iter()
                    .map(|argument| json!(argument.name))
                    .collect();
                return Err(ToolError::invalid_arguments(format!(
                    "{} has no argument {name:?}",
                    self.name
                ))
                .with_hint(format!(
                    "Use only these arguments: {}.",
                    self.argument_names()
                ))
                .with_suggestions(known));
            }
        }
        for argument in self.arguments {
            match given(arguments, argument.name) {
                None if argument.required => {
                    return Err(ToolError::invalid_arguments(format!(
                        "{} needs the argument {:?}",
                        self.name, argument.name
                    ))
                    .with_hint(format!("{}: {}", argument.name, argument.description)));
                }
                None => {}
                Some(value) => self.check_argument(argument, value)?,
            }
        }
        if let Some(cross_check) = self.cross_check {
            cross_check(arguments)?;
        }
        Ok(Value::Object(arguments.clone()))
    }

    fn argument_names(&self) -> String {
        self.arguments
            .iter()
            .map(|argument| argument.name)
            .collect::<Vec<_>>()
            .join(", ")
    }

    fn check_argument(&self, argument: &Argument, value: &Value) -> Result<(), ToolError> {
        let tool = self.name;
        let name = argument.name;
        let refuse = |message: String, what: &str| {
            ToolError::invalid_arguments(format!("{tool}: {message}"))
                .with_hint(argument.usage(what))
        };
        match &argument.kind {
            ArgumentKind::Choice(choices) => match value.as_str() {
                Some(text) if choices.contains(&text) => Ok(()),
                _ => Err(refuse(
                    format!(
                        "{name} must be one of {}, not {}",
                        quoted_list(choices),
                        shown(value)
                    ),
                    &format!("one of {}", quoted_list(choices)),
                )
                .with_suggestions(choices.iter().map(|choice| json!(choice)).collect())),
            },
            ArgumentKind::Integer { minimum, maximum } => {
                let what = format!("a whole number from {minimum} to {maximum}");
                match value.as_i64() {
                    Some(number) if (*minimum..=*maximum).contains(&number) => Ok(()),
                    Some(number) => Err(refuse(
                        format!("{name} must be between {minimum} and {maximum}, not {number}"),
                        &what,
                    )),
                    None => Err(refuse(
                        format!("{name} must be a whole number, not {}", shown(value)),
                        &what,
                    )),
                }
            }
            ArgumentKind::Boolean => match value {
                Value::Bool(_) => Ok(()),
                _ => Err(refuse(
                    format!("{name} must be true or false, not {}", shown(value)),
                    "a JSON boolean, true or false",
                )),
            },
            ArgumentKind::Text {
                min_chars,
                max_chars,
            } => {
                let what = match min_chars {
                    0 => format!("a string of at most {max_chars} characters"),
                    _ => format!("a string of {min_chars} to {max_chars} characters"),
                };
                let Some(text) = value.as_str() else {
                    return Err(refuse(
                        format!("{name} must be a string, not {}", shown(value)),
                        &what,
                    ));
                };
                let length = text.chars().count();
                if length > *max_chars {
                    let error = refuse(
                        format!("{name} is {length} characters long; the limit is {max_chars}"),
                        &what,
                    );
                    // A long text can be typed in parts, each appended to the last.
                    if self.arguments.iter().any(|other| other.name == "clear") {
                        return Err(error.with_hint(format!(
                            "Send at most {max_chars} characters per call: the first {max_chars} now, then the rest in further calls with clear: false."
                        )));
                    }
                    return Err(error);
                }
                if length < *min_chars {
                    return Err(refuse(format!("{name} must not be empty"), &what));
                }
                Ok(())
            }
            ArgumentKind::KeyName => check_key_name(tool, argument, value),
            ArgumentKind::ModifierList => check_modifiers(tool, argument, value),
            ArgumentKind::ElementReference => match value.as_str() {
                Some(text) if is_element_reference(text) => Ok(()),
                _ => {
                    let error = ToolError::invalid_arguments(format!(
                        "{tool}: {name} must be a reference like \"ref_12\", not {}",
                        shown(value)
                    ))
                    .with_hint("Use a ref_N exactly as get_accessibility_tree prints it in brackets, for example \"ref_12\".");
                    Err(match reference_meant_by(value) {
                        Some(reference) => error.with_suggestions(vec![json!(reference)]),
                        None => error,
                    })
                }
            },
            ArgumentKind::NavigableUrl => match value.as_str() {
                Some(text) if is_navigable_url(text) => Ok(()),
                Some(text) => Err(ToolError::invalid_arguments(format!(
                    "{tool}: {name} {text:?} is not an absolute http, https or file URL, nor about:blank"
                ))
                .with_hint(format!(
                    "Include the scheme, for example \"https://{}\".",
                    text.trim_start_matches('/')
                ))),
                None => Err(refuse(
                    format!("{name} must be a string URL, not {}", shown(value)),
                    "a string, for example \"https://example.com\"",
                )),
            },
        }
    }
}

impl ArgumentKind {
    /// This kind as JSON Schema; the validation in `check_argument` enforces the same limits.
    fn schema(&self) -> Value {
        match self {
            ArgumentKind::Choice(choices) => json!({"type": "string", "enum": choices}),
            ArgumentKind::Integer { minimum, maximum } => {
                json!({"type": "integer", "minimum": minimum, "maximum": maximum})
            }
            ArgumentKind::Boolean => json!({"type": "boolean"}),
            ArgumentKind::Text {
                min_chars,
                max_chars,
            } => {
                let mut schema = json!({"type": "string", "maxLength": max_chars});
                if *min_chars > 0 {
                    schema["minLength"] = json!(min_chars);
                }
                schema
            }
            ArgumentKind::KeyName => {
                json!({"type": "string", "minLength": 1, "maxLength": MAX_KEY_NAME_CHARS})
            }
            ArgumentKind::ModifierList => json!({
                "type": "array",
                "items": {"type": "string", "enum": MODIFIER_KEYS},
                "uniqueItems": true
            }),
            ArgumentKind::ElementReference => {
                json!({"type": "string", "pattern": "^ref_[0-9]+$"})
            }
            ArgumentKind::NavigableUrl => {
                json!({"type": "string", "pattern": "^(https?://|file://|about:blank$)"})
            }
        }
    }
}

impl Argument {
    /// The hint of an error about this argument: what to pass (`what`), its default, and what it
    /// does.
    fn usage(&self, what: &str) -> String {
        let default = match self.default {
            Some(default) => format!(" (default: {})", default.to_value()),
            None => String::new(),
        };
        format!(
            "Pass {} as {what}{default}. {}",
            self.name, self.description
        )
    }
}

impl DefaultValue {
    fn to_value(self) -> Value {
        match self {
            DefaultValue::Text(text) => json!(text),
            DefaultValue::Number(number) => json!(number),
            DefaultValue::Boolean(flag) => json!(flag),
        }
    }
}

/// An argument as given, with an explicit null meaning "not given", as many clients send for
/// optional fields.
fn given<'a>(arguments: &'a Map<String, Value>, name: &str) -> Option<&'a Value> {
    arguments.get(name).filter(|value| !value.is_null())
}

/// A value as an error message shows it: its JSON, cut short, so that a huge argument does not
/// come back whole inside the error.
fn shown(value: &Value) -> String {
    const SHOWN_CHARS: usize = 60;
    let text = value.to_string();
    match text.char_indices().nth(SHOWN_CHARS) {
        Some((cut, _)) => format!("{}... ({} characters)", &text[..cut], text.chars().count()),
        None => text,
    }
}

fn quoted_list(choices: &[&str]) -> String {
    choices
        .iter()
        .map(|choice| format!("{choice:?}"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn is_element_reference(text: &str) -> bool {
    text.strip_prefix("ref_").is_some_and(is_digits)
}

fn is_digits(text: &str) -> bool {
    !text.is_empty() && text.bytes().all(|byte| byte.is_ascii_digit())
}

/// The reference a malformed `ref_id` most likely meant: `12`, `"12"`, `"[ref_12]"`, `"ref12"`
/// or `"ref-12"` all mean `ref_12`.
fn reference_meant_by(value: &Value) -> Option<String> {
    let text = match value {
        Value::Number(number) => number.as_u64()?.to_string(),
        Value::String(text) => text.clone(),
        _ => return None,
    };
    let text = text.trim().trim_start_matches('[').trim_end_matches(']');
    let digits = text
        .strip_prefix("ref")
        .map(|rest| rest.trim_start_matches(['_', '-']))
        .unwrap_or(text);
    is_digits(digits).then(|| format!("ref_{digits}"))
}

fn is_navigable_url(text: &str) -> bool {
    if text == "about:blank" {
        return true;
    }
    if let Some(rest) = text
        .strip_prefix("http://")
        .or_else(|| text.strip_prefix("https://"))
    {
        return !rest.is_empty() && !rest.starts_with('/') && !text.contains(char::is_whitespace);
    }
    if let Some(rest) = text.strip_prefix("file://") {
        // `file:///path` (empty host) or `file://host/path`.
        return rest.contains('/');
    }
    false
}

/// Common named keys, by their KeyboardEvent `key` values, to correct a name given in the wrong
/// case ("enter"): key values are case-sensitive, and a page's handler that waits for "Enter"
/// ignores "enter". Not every named key: an unlisted one passes as given.
const COMMON_NAMED_KEYS: &[&str] = &[
    "Enter",
    "Tab",
    "Escape",
    "Backspace",
    "Delete",
    "Insert",
    "Home",
    "End",
    "PageUp",
    "PageDown",
    "ArrowUp",
    "ArrowDown",
    "ArrowLeft",
    "ArrowRight",
    "Alt",
    "Control",
    "Meta",
    "Shift",
    "CapsLock",
    "ContextMenu",
    "F1",
    "F2",
    "F3",
    "F4",
    "F5",
    "F6",
    "F7",
    "F8",
    "F9",
    "F10",
    "F11",
    "F12",
];

/// Other names for keys (compared ignoring case) and their KeyboardEvent `key` values: the
/// spellings of key-combination notations and of old browsers, which pages do not recognise.
const KEY_SPELLINGS: &[(&str, &str)] = &[
    ("Esc", "Escape"),
    ("Return", "Enter"),
    ("Del", "Delete"),
    ("Space", " "),
    ("Spacebar", " "),
    ("Up", "ArrowUp"),
    ("Down", "ArrowDown"),
    ("Left", "ArrowLeft"),
    ("Right", "ArrowRight"),
    ("PgUp", "PageUp"),
    ("PgDn", "PageDown"),
    ("Ctrl", "Control"),
    ("Cmd", "Meta"),
    ("Command", "Meta"),
    ("Super", "Meta"),
    ("Win", "Meta"),
    ("Option", "Alt"),
];

/// The KeyboardEvent `key` value that a key name of more than one character stands for, when
/// this table knows it: itself, itself in the right case, or what an alias stands for.
fn known_key_value(text: &str) -> Option<&'static str> {
    COMMON_NAMED_KEYS
        .iter()
        .find(|key| key.eq_ignore_ascii_case(text))
        .copied()
        .or_else(|| {
            KEY_SPELLINGS
                .iter()
                .find(|(alias, _)| alias.eq_ignore_ascii_case(text))
                .map(|(_, key)| *key)
        })
}

fn check_key_name(tool: &str, argument: &Argument, value: &Value) -> Result<(), ToolError> {
    let name = argument.name;
    let usage = "Pass one KeyboardEvent key value, such as \"Enter\", \"Tab\", \"Escape\", \"ArrowDown\", \" \" (space) or \"a\".";
    let Some(text) = value.as_str() else {
        return Err(ToolError::invalid_arguments(format!(
            "{tool}: {name} must be a string, not {}",
            shown(value)
        ))
        .with_hint(usage));
    };
    let length = text.chars().count();
    if length == 0 {
        return Err(
            ToolError::invalid_arguments(format!("{tool}: {name} must not be empty"))
                .with_hint(usage),
        );
    }
    if length > MAX_KEY_NAME_CHARS {
        return Err(ToolError::invalid_arguments(format!(
            "{tool}: {name} is {length} characters long; a key name has at most {MAX_KEY_NAME_CHARS}"
        ))
        .with_hint("press_key presses one key. To type text, use type_ax or set_field."));
    }
    // "+" alone is a key; any longer name with a "+" is a combination like "Control+a".
    if length > 1 && text.contains('+') {
        let hint = match chord_as_arguments(text) {
            Some((key, modifiers)) => format!(
                "Pass one key and hold the others with modifiers: key {key:?}, modifiers [{}].",
                quoted_list(&modifiers)
            ),
            None => "Pass one key and hold Alt, Control, Meta or Shift with modifiers, for example key \"a\" with modifiers [\"Control\"].".to_owned(),
        };
        return Err(ToolError::invalid_arguments(format!(
            "{tool}: {name} {text:?} is a key combination, not one key"
        ))
        .with_hint(hint));
    }
    if length > 1 {
        if let Some(key) = known_key_value(text).filter(|key| *key != text) {
            return Err(ToolError::invalid_arguments(format!(
                "{tool}: {name} {text:?} is not a KeyboardEvent key value"
            ))
            .with_hint(format!(
                "Use {key:?}: key values are case-sensitive and pages do not know other spellings."
            ))
            .with_suggestions(vec![json!(key)]));
        }
    }
    Ok(())
}

/// "Control+Shift+a" as press_key's arguments: `("a", ["Control", "Shift"])`, when every part
/// before the last is a modifier.
fn chord_as_arguments(text: &str) -> Option<(&str, Vec<&'static str>)> {
    // "Control++" holds Control and presses "+".
    let (held, key) = match text.strip_suffix("++") {
        Some(held) => (held, "+"),
        None => text.rsplit_once('+')?,
    };
    if key.is_empty() {
        return None;
    }
    let modifiers = held
        .split('+')
        .map(|part| known_key_value(part).filter(|key| MODIFIER_KEYS.contains(key)))
        .collect::<Option<Vec<_>>>()?;
    Some((key, modifiers))
}

fn check_modifiers(tool: &str, argument: &Argument, value: &Value) -> Result<(), ToolError> {
    let name = argument.name;
    let usage = format!(
        "Pass {name} as an array of distinct names from {}, for example [\"Control\", \"Shift\"], or leave it out.",
        quoted_list(MODIFIER_KEYS)
    );
    let Some(items) = value.as_array() else {
        return Err(ToolError::invalid_arguments(format!(
            "{tool}: {name} must be an array of key names, not {}",
            shown(value)
        ))
        .with_hint(usage));
    };
    let mut seen: Vec<&str> = Vec::new();
    for item in items {
        match item.as_str() {
            Some(modifier) if MODIFIER_KEYS.contains(&modifier) => {
                if seen.contains(&modifier) {
                    return Err(ToolError::invalid_arguments(format!(
                        "{tool}: {name} lists {modifier:?} more than once"
                    ))
                    .with_hint("Give each modifier at most once."));
                }
                seen.push(modifier);
            }
            _ => {
                let meant = item
                    .as_str()
                    .and_then(known_key_value)
                    .filter(|key| MODIFIER_KEYS.contains(key));
                let error = ToolError::invalid_arguments(format!(
                    "{tool}: {name} contains {}, which is not a modifier key",
                    shown(item)
                ));
                return Err(match meant {
                    Some(modifier) => error
                        .with_hint(format!("Use {modifier:?}. {usage}"))
                        .with_suggestions(vec![json!(modifier)]),
                    None => error.with_hint(usage).with_suggestions(
                        MODIFIER_KEYS
                            .iter()
                            .map(|modifier| json!(modifier))
                            .collect(),
                    ),
                });
            }
        }
    }
    Ok(())
}

/// select_option matches an option by its label or by its value, never by both at once.
fn exactly_one_of_label_and_value(arguments: &Map<String, Value>) -> Result<(), ToolError> {
    let hint =
        "Pass either label (the option's visible text) or value (its value attribute), not both.";
    match (given(arguments, "label"), given(arguments, "value")) {
        (Some(_), None) | (None, Some(_)) => Ok(()),
        (Some(_), Some(_)) => Err(ToolError::invalid_arguments(
            "select_option: give label or value, not both",
        )
        .with_hint(hint)),
        (None, None) => Err(ToolError::invalid_arguments(
            "select_option needs the argument \"label\" or \"value\"",
        )
        .with_hint(hint)),
    }
}

/// Only an element can be brought into view: the page has no view to be brought into.
fn into_view_needs_a_target(arguments: &Map<String, Value>) -> Result<(), ToolError> {
    let into_view = given(arguments, "to").and_then(Value::as_str) == Some("into_view");
    if into_view && given(arguments, "ref_id").is_none() {
        return Err(ToolError::invalid_arguments(
            "scroll: to \"into_view\" needs the argument \"ref_id\", the element to bring into view",
        )
        .with_hint("Pass ref_id (a ref_N printed by get_accessibility_tree), or use to \"top\" or \"bottom\" to scroll the page."));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn find_tool(name: &str) -> Option<&'static ToolDefinition> {
        TOOLS.iter().find(|tool| tool.name == name)
    }

    #[test]
    fn each_tier_lists_its_tools_in_table_order() {
        let ask = [
            "get_accessibility_tree",
            "accessibility_snapshot",
            "navigate",
            "scroll",
            "go_back",
            "wait_for_stable",
            "list_tabs",
            "select_tab",
        ];
        let compact = [
            "get_accessibility_tree",
            "accessibility_snapshot",
            "navigate",
            "click_ax",
            "type_ax",
            "set_field",
            "select_option",
            "press_key",
            "scroll",
            "go_back",
            "wait_for_stable",
            "list_tabs",
            "select_tab",
        ];
        let everything = [
            "get_accessibility_tree",
            "accessibility_snapshot",
            "navigate",
            "click_ax",
            "type_ax",
            "set_field",
            "select_option",
            "hover",
            "press_key",
            "scroll",
            "go_back",
            "wait_for_stable",
            "list_tabs",
            "new_tab",
            "select_tab",
            "close_tab",
        ];
        let expected: [(Tier, &[&str]); 4] = [
            (Tier::Ask, &ask),
            (Tier::Compact, &compact),
            (Tier::Mid, &everything),
            (Tier::Full, &everything),
        ];
        for (tier, names) in expected {
            // No tool of this table is a developer tool: Dev mode lists the same ones.
            for dev in [false, true] {
                let listed: Vec<&str> = listed_tools(tier, dev).map(|tool| tool.name).collect();
                assert_eq!(listed, names, "{tier:?} dev={dev}");
            }
        }
        assert_eq!(
            TOOLS.len(),
            everything.len(),
            "every tool is listed somewhere"
        );
    }

    #[test]
    fn dev_only_tiers_add_tools_only_in_dev_mode() {
        let availability = Availability {
            tiers: &[Tier::Full],
            dev_only_tiers: &[Tier::Mid],
        };
        assert!(availability.is_listed(Tier::Full, false));
        assert!(!availability.is_listed(Tier::Mid, false));
        assert!(availability.is_listed(Tier::Mid, true));
        assert!(!availability.is_listed(Tier::Ask, true));
    }

    #[test]
    fn schemas_describe_every_argument() {
        for tool in TOOLS {
            let schema = tool.input_schema();
            assert_eq!(schema["type"], "object");
            assert_eq!(schema["additionalProperties"], false);
            for argument in tool.arguments {
                assert!(
                    schema["properties"][argument.name]["description"].is_string(),
                    "{} {}",
                    tool.name,
                    argument.name
                );
            }
            // docs/protocol.md: every tool takes tabId, except list_tabs, which lists them all.
            assert_eq!(
                schema["properties"]["tabId"].is_object(),
                tool.name != "list_tabs",
                "{} and tabId",
                tool.name
            );
        }
        let navigate = find_tool("navigate").expect("navigate").input_schema();
        assert_eq!(navigate["required"], json!(["url"]));
    }

    fn property(tool: &str, argument: &str) -> Value {
        let mut schema = find_tool(tool).expect("known tool").input_schema();
        let mut property = schema["properties"][argument].take();
        assert!(
            property["description"]
                .as_str()
                .is_some_and(|text| !text.is_empty()),
            "{tool} {argument}"
        );
        property
            .as_object_mut()
            .expect("a property schema")
            .remove("description");
        property
    }

    #[test]
    fn schemas_of_the_action_arguments() {
        assert_eq!(
            property("type_ax", "clear"),
            json!({"type": "boolean", "default": true})
        );
        assert_eq!(
            property("set_field", "submit"),
            json!({"type": "boolean", "default": false})
        );
        assert_eq!(
            property("type_ax", "text"),
            json!({"type": "string", "maxLength": 50_000})
        );
        assert_eq!(
            property("select_option", "label"),
            json!({"type": "string", "minLength": 1, "maxLength": 1_000})
        );
        assert_eq!(
            property("press_key", "key"),
            json!({"type": "string", "minLength": 1, "maxLength": 32})
        );
        assert_eq!(
            property("press_key", "modifiers"),
            json!({
                "type": "array",
                "items": {"type": "string", "enum": ["Alt", "Control", "Meta", "Shift"]},
                "uniqueItems": true
            })
        );
        assert_eq!(
            property("scroll", "direction"),
            json!({"type": "string", "enum": ["up", "down", "left", "right"], "default": "down"})
        );
        assert_eq!(
            property("scroll", "amount"),
            json!({"type": "integer", "minimum": 1, "maximum": 100_000})
        );
        assert_eq!(
            property("click_ax", "ref_id"),
            json!({"type": "string", "pattern": "^ref_[0-9]+$"})
        );
        assert_eq!(
            property("click_ax", "frameId"),
            json!({"type": "integer", "minimum": 0, "maximum": 9_007_199_254_740_991_i64})
        );
        assert_eq!(
            property("new_tab", "url"),
            json!({"type": "string", "pattern": "^(https?://|file://|about:blank$)", "default": "about:blank"})
        );
        assert_eq!(
            property("wait_for_stable", "quietMs"),
            json!({"type": "integer", "minimum": 100, "maximum": 10_000, "default": 500})
        );
        let required = |tool: &str| {
            let schema = find_tool(tool).expect("known tool").input_schema();
            schema.get("required").cloned().unwrap_or(Value::Null)
        };
        for tool in ["click_ax", "hover", "select_option"] {
            assert_eq!(required(tool), json!(["ref_id"]), "{tool}");
        }
        for tool in ["type_ax", "set_field"] {
            assert_eq!(required(tool), json!(["ref_id", "text"]), "{tool}");
        }
        assert_eq!(required("press_key"), json!(["key"]));
        assert_eq!(required("select_tab"), json!(["tabId"]));
        for tool in [
            "scroll",
            "go_back",
            "wait_for_stable",
            "list_tabs",
            "new_tab",
            "close_tab",
        ] {
            assert_eq!(required(tool), Value::Null, "{tool} needs nothing");
        }
        // The action tools that point at elements take frameId; the tab tools do not.
        for tool in TOOLS {
            let takes_a_ref = tool
                .arguments
                .iter()
                .any(|argument| argument.name == "ref_id");
            let takes_a_frame = tool
                .arguments
                .iter()
                .any(|argument| argument.name == "frameId");
            assert_eq!(takes_a_ref, takes_a_frame, "{}", tool.name);
        }
    }

    #[test]
    fn annotations_and_descriptions_guide_the_model() {
        for tool in TOOLS {
            let read_only = matches!(
                tool.name,
                "get_accessibility_tree"
                    | "accessibility_snapshot"
                    | "list_tabs"
                    | "wait_for_stable"
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
        assert!(description("go_back").contains("no_history"));
    }

    fn validate(tool: &str, arguments: Value) -> Result<Value, ToolError> {
        let tool = find_tool(tool).expect("known tool");
        tool.validate(arguments.as_object())
    }

    #[test]
    fn good_arguments_pass_unchanged() {
        let arguments = json!({"filter": "interactive", "maxDepth": 3, "ref_id": "ref_12", "page": 2, "tabId": 5, "maxChars": null});
        assert_eq!(
            validate("get_accessibility_tree", arguments.clone()),
            Ok(arguments)
        );
        assert!(validate(
            "accessibility_snapshot",
            json!({"format": "yaml", "mode": "ai", "timeoutMs": 500})
        )
        .is_ok());
        for url in [
            "https://example.com",
            "http://127.0.0.1:8080/a b".replace(' ', "%20").as_str(),
            "file:///tmp/a.html",
            "about:blank",
        ] {
            assert!(validate("navigate", json!({"url": url})).is_ok(), "{url}");
        }
        assert!(
            validate("get_accessibility_tree", Value::Null).is_ok(),
            "no arguments at all is fine"
        );
        let action_calls = [
            (
                "click_ax",
                json!({"ref_id": "ref_3", "frameId": 0, "tabId": 2}),
            ),
            ("type_ax", json!({"ref_id": "ref_3", "text": ""})),
            (
                "type_ax",
                json!({"ref_id": "ref_3", "text": "héllo 🌍", "clear": false}),
            ),
            (
                "set_field",
                json!({"ref_id": "ref_3", "text": "shoes", "clear": true, "submit": true, "frameId": 4}),
            ),
            (
                "select_option",
                json!({"ref_id": "ref_3", "label": "France"}),
            ),
            (
                "select_option",
                json!({"ref_id": "ref_3", "value": "fr", "label": null}),
            ),
            ("hover", json!({"ref_id": "ref_3"})),
            ("press_key", json!({"key": "Enter"})),
            (
                "press_key",
                json!({"key": "a", "modifiers": ["Control", "Shift"], "ref_id": "ref_9"}),
            ),
            ("press_key", json!({"key": "+", "modifiers": []})),
            ("press_key", json!({"key": " "})),
            ("press_key", json!({"key": "MediaPlayPause"})),
            ("scroll", json!({})),
            ("scroll", json!({"direction": "up", "amount": 1})),
            ("scroll", json!({"ref_id": "ref_3", "to": "into_view"})),
            ("scroll", json!({"to": "bottom", "amount": 100_000})),
            ("go_back", json!({"timeoutMs": 1_000})),
            (
                "wait_for_stable",
                json!({"quietMs": 100, "timeoutMs": 60_000}),
            ),
            ("list_tabs", json!({})),
            ("new_tab", json!({})),
            (
                "new_tab",
                json!({"url": "https://example.com/", "timeoutMs": 300_000}),
            ),
            ("select_tab", json!({"tabId": 7})),
            ("close_tab", json!({})),
            ("close_tab", json!({"tabId": 7})),
        ];
        for (tool, arguments) in action_calls {
            assert_eq!(
                validate(tool, arguments.clone()),
                Ok(arguments.clone()),
                "{tool} {arguments}"
            );
        }
    }

    /// Every refusal is invalid_arguments, names the argument at fault in its message, and says
    /// in its hint what to do instead.
    fn assert_refused(tool: &str, arguments: Value, argument: &str) -> ToolError {
        let error = validate(tool, arguments.clone()).expect_err("refused");
        assert_eq!(error.code, "invalid_arguments", "{tool} {arguments}");
        assert!(
            error.message.contains(argument),
            "{tool} {arguments}: the message names {argument}: {}",
            error.message
        );
        assert!(
            error.hint.as_ref().is_some_and(|hint| hint.len() > 10),
            "{tool} {arguments}: a hint"
        );
        error
    }

    #[test]
    fn bad_arguments_are_refused_with_a_usable_error() {
        let long_text = "x".repeat(50_001);
        let cases = [
            (
                "get_accessibility_tree",
                json!({"filter": "everything"}),
                "filter",
            ),
            ("get_accessibility_tree", json!({"maxDepth": 0}), "maxDepth"),
            (
                "get_accessibility_tree",
                json!({"maxDepth": "3"}),
                "maxDepth",
            ),
            ("get_accessibility_tree", json!({"ref_id": "12"}), "ref_id"),
            ("get_accessibility_tree", json!({"depth": 3}), "depth"),
            ("accessibility_snapshot", json!({"format": "xml"}), "format"),
            (
                "accessibility_snapshot",
                json!({"timeoutMs": 999_999}),
                "timeoutMs",
            ),
            ("navigate", json!({}), "url"),
            ("navigate", json!({"url": "example.com"}), "url"),
            ("navigate", json!({"url": "javascript:alert(1)"}), "url"),
            ("navigate", json!({"url": 42}), "url"),
            ("click_ax", json!({}), "ref_id"),
            ("click_ax", json!({"ref_id": null}), "ref_id"),
            ("click_ax", json!({"ref_id": "12"}), "ref_id"),
            ("click_ax", json!({"ref_id": "ref_x"}), "ref_id"),
            (
                "click_ax",
                json!({"ref_id": "ref_3", "frameId": -1}),
                "frameId",
            ),
            ("click_ax", json!({"ref_id": "ref_3", "text": "hi"}), "text"),
            ("hover", json!({"ref_id": 3}), "ref_id"),
            ("type_ax", json!({"ref_id": "ref_3"}), "text"),
            ("type_ax", json!({"ref_id": "ref_3", "text": 42}), "text"),
            (
                "type_ax",
                json!({"ref_id": "ref_3", "text": ["a", "b"]}),
                "text",
            ),
            (
                "type_ax",
                json!({"ref_id": "ref_3", "text": long_text}),
                "text",
            ),
            (
                "type_ax",
                json!({"ref_id": "ref_3", "text": "a", "clear": "yes"}),
                "clear",
            ),
            (
                "set_field",
                json!({"ref_id": "ref_3", "text": "a", "submit": 1}),
                "submit",
            ),
            (
                "set_field",
                json!({"ref_id": "ref_3", "text": long_text}),
                "text",
            ),
            (
                "select_option",
                json!({"ref_id": "ref_3", "label": "a", "value": "b"}),
                "label",
            ),
            ("select_option", json!({"ref_id": "ref_3"}), "label"),
            (
                "select_option",
                json!({"ref_id": "ref_3", "label": null, "value": null}),
                "value",
            ),
            (
                "select_option",
                json!({"ref_id": "ref_3", "label": ""}),
                "label",
            ),
            (
                "select_option",
                json!({"ref_id": "ref_3", "value": "v".repeat(1_001)}),
                "value",
            ),
            ("press_key", json!({}), "key"),
            ("press_key", json!({"key": ""}), "key"),
            ("press_key", json!({"key": 13}), "key"),
            ("press_key", json!({"key": "k".repeat(33)}), "key"),
            ("press_key", json!({"key": "Control+a"}), "key"),
            ("press_key", json!({"key": "enter"}), "key"),
            (
                "press_key",
                json!({"key": "a", "modifiers": ["Hyper"]}),
                "modifiers",
            ),
            (
                "press_key",
                json!({"key": "a", "modifiers": ["Ctrl"]}),
                "modifiers",
            ),
            (
                "press_key",
                json!({"key": "a", "modifiers": ["Shift", "Shift"]}),
                "modifiers",
            ),
            (
                "press_key",
                json!({"key": "a", "modifiers": "Control"}),
                "modifiers",
            ),
            (
                "press_key",
                json!({"key": "a", "modifiers": [1]}),
                "modifiers",
            ),
            ("scroll", json!({"direction": "sideways"}), "direction"),
            ("scroll", json!({"amount": 0}), "amount"),
            ("scroll", json!({"amount": 100_001}), "amount"),
            ("scroll", json!({"amount": 1.5}), "amount"),
            ("scroll", json!({"to": "middle"}), "to"),
            ("scroll", json!({"to": "into_view"}), "ref_id"),
            ("go_back", json!({"timeoutMs": 999}), "timeoutMs"),
            ("wait_for_stable", json!({"quietMs": 50}), "quietMs"),
            ("wait_for_stable", json!({"timeoutMs": 60_001}), "timeoutMs"),
            ("list_tabs", json!({"windowId": 1}), "windowId"),
            ("new_tab", json!({"url": "chrome://settings"}), "url"),
            ("select_tab", json!({}), "tabId"),
            ("select_tab", json!({"tabId": "7"}), "tabId"),
            ("close_tab", json!({"tabId": -3}), "tabId"),
        ];
        for (tool, arguments, argument) in cases {
            assert_refused(tool, arguments, argument);
        }
        let unknown = validate("get_accessibility_tree", json!({"depth": 3})).expect_err("refused");
        assert!(unknown
            .suggestions
            .expect("suggestions")
            .contains(&json!("maxDepth")));
        let schemeless = validate("navigate", json!({"url": "example.com"})).expect_err("refused");
        assert!(schemeless
            .hint
            .expect("hint")
            .contains("https://example.com"));
        let sideways = assert_refused("scroll", json!({"direction": "sideways"}), "direction");
        assert_eq!(
            sideways.suggestions,
            Some(vec![
                json!("up"),
                json!("down"),
                json!("left"),
                json!("right")
            ])
        );
        let zero = assert_refused("scroll", json!({"amount": 0}), "amount");
        assert!(
            zero.message.contains("between 1 and 100000"),
            "{}",
            zero.message
        );
        let yes = assert_refused(
            "type_ax",
            json!({"ref_id": "ref_1", "text": "", "clear": "yes"}),
            "clear",
        );
        assert!(yes.hint.expect("hint").contains("true or false"));
    }

    #[test]
    fn text_is_measured_in_characters_and_a_long_one_says_limit_and_length() {
        for character in ["x", "é", "🌍"] {
            let at_limit = character.repeat(50_000);
            assert!(
                validate("type_ax", json!({"ref_id": "ref_1", "text": at_limit})).is_ok(),
                "50000 of {character:?} fit"
            );
        }
        let over = "🌍".repeat(60_000);
        let error = assert_refused("type_ax", json!({"ref_id": "ref_1", "text": over}), "text");
        assert!(error.message.contains("60000"), "{}", error.message);
        assert!(error.message.contains("50000"), "{}", error.message);
        assert!(
            error.message.len() < 200,
            "the text is not echoed back: {}",
            error.message
        );
        assert!(error.hint.expect("hint").contains("clear: false"));
        let not_text = assert_refused(
            "set_field",
            json!({"ref_id": "ref_1", "text": {"value": "x".repeat(100_000)}}),
            "text",
        );
        assert!(not_text.message.len() < 200, "{}", not_text.message);
    }

    #[test]
    fn malformed_refs_suggest_the_ref_that_was_meant() {
        let suggested = |value: Value| {
            assert_refused("click_ax", json!({ "ref_id": value }), "ref_id").suggestions
        };
        assert_eq!(suggested(json!("12")), Some(vec![json!("ref_12")]));
        assert_eq!(suggested(json!(12)), Some(vec![json!("ref_12")]));
        assert_eq!(suggested(json!("[ref_7]")), Some(vec![json!("ref_7")]));
        assert_eq!(suggested(json!("ref-7")), Some(vec![json!("ref_7")]));
        assert_eq!(suggested(json!("ref_x")), None);
        assert_eq!(suggested(json!("button")), None);
    }

    #[test]
    fn key_combinations_and_misspelt_keys_are_corrected() {
        let hint = |key: &str| {
            assert_refused("press_key", json!({ "key": key }), "key")
                .hint
                .expect("hint")
        };
        assert!(
            hint("Control+a").contains("key \"a\", modifiers [\"Control\"]"),
            "{}",
            hint("Control+a")
        );
        assert!(hint("ctrl+shift+T").contains("key \"T\", modifiers [\"Control\", \"Shift\"]"));
        assert!(hint("Meta++").contains("key \"+\", modifiers [\"Meta\"]"));
        assert!(hint("Foo+a").contains("with modifiers"));
        assert!(hint(&"k".repeat(33)).contains("type_ax"));
        let suggested =
            |key: &str| assert_refused("press_key", json!({ "key": key }), "key").suggestions;
        assert_eq!(suggested("enter"), Some(vec![json!("Enter")]));
        assert_eq!(suggested("ESC"), Some(vec![json!("Escape")]));
        assert_eq!(suggested("Space"), Some(vec![json!(" ")]));
        assert_eq!(suggested("arrowdown"), Some(vec![json!("ArrowDown")]));
        let modifier = |name: &str| {
            assert_refused(
                "press_key",
                json!({"key": "a", "modifiers": [name]}),
                "modifiers",
            )
            .suggestions
        };
        assert_eq!(modifier("Ctrl"), Some(vec![json!("Control")]));
        assert_eq!(modifier("cmd"), Some(vec![json!("Meta")]));
        assert_eq!(modifier("shift"), Some(vec![json!("Shift")]));
        assert_eq!(
            modifier("Hyper"),
            Some(vec![
                json!("Alt"),
                json!("Control"),
                json!("Meta"),
                json!("Shift")
            ])
        );
        assert_eq!(
            modifier("Enter"),
            Some(vec![
                json!("Alt"),
                json!("Control"),
                json!("Meta"),
                json!("Shift")
            ]),
            "a key that is not a modifier"
        );
        let repeated = assert_refused(
            "press_key",
            json!({"key": "a", "modifiers": ["Shift", "Alt", "Shift"]}),
            "modifiers",
        );
        assert!(
            repeated.message.contains("\"Shift\" more than once"),
            "{}",
            repeated.message
        );
    }

    #[test]
    fn select_option_takes_exactly_one_of_label_and_value() {
        let both = assert_refused(
            "select_option",
            json!({"ref_id": "ref_1", "label": "France", "value": "fr"}),
            "value",
        );
        assert!(both.message.contains("not both"), "{}", both.message);
        let neither = assert_refused("select_option", json!({"ref_id": "ref_1"}), "value");
        assert!(neither.message.contains("needs"), "{}", neither.message);
        // The arguments' own checks come first: a malformed ref is reported as such.
        assert_refused("select_option", json!({"ref_id": "12"}), "ref_id");
    }
}
