//! What a tool call answers over MCP: one text content block, never `structuredContent`
//! (docs/protocol/tools.md, "Replies"; issue 30, item 4).
//!
//! MCP clients show the model `JSON.stringify(structuredContent)` when a result carries it and
//! the text content otherwise (MCP 2025-06-18, "Tools", "Structured Content": the text block is
//! only there "for backwards compatibility"), so a result that carries both pays for the same
//! facts twice, in the client and on the wire. Every allwright result is therefore one text block
//! (a screenshot keeps its image block before it), shaped to what the model needs for its next
//! step:
//!
//! - a tree read is a one-line JSON header (snapshotId, paging, truncation, what a read since a
//!   snapshot found) followed by the tree text itself, not escaped into a JSON string;
//! - navigate, go_back, go_forward, reload and new_tab answer `{url?, title}` (and `tabId`,
//!   `changed`, `status` when it is not 200), with lifecycle events only when something
//!   unexpected happened;
//! - an action answers a one-line JSON header `{progress, effect?, ...}` with only the decisive
//!   fields, followed by the lines of the tree it changed, as printed;
//! - every other tool answers its whole result as compact JSON;
//! - an error is `{code, message, hint?, ...}` as compact JSON, with `isError`.
//!
//! `verbose: true` on a read, a page load or an action gives the whole result object as compact
//! JSON instead, as the tool computed it.

use rmcp::model::{CallToolResult, ContentBlock};
use serde_json::{json, Map, Value};

use crate::tool_error::ToolError;
use crate::tools::ReplyShape;

/// The argument that asks for the whole result object (src/tools/table.rs, `VERBOSE`). The MCP
/// server takes it out of the arguments: it shapes the reply and never reaches the browser.
pub const VERBOSE_ARGUMENT: &str = "verbose";

/// The short reply of `tool`, as its definition says (src/tools/table.rs); a tool the table does
/// not know answers its whole result.
fn reply_shape(tool: &str) -> ReplyShape {
    crate::tools::tool_named(tool).map_or(ReplyShape::WholeResult, |definition| definition.reply)
}

/// Lifecycle events (docs/protocol/browser-bridge.md, "The browser bridge", `lifecycle`) that say something went
/// other than planned, and so stay in a short reply: a failed or aborted navigation and a user
/// prompt. The ordinary events of a load (navigationStarted, domContentLoaded, load, ...) only
/// confirm what `url` and `title` already say.
const UNEXPECTED_LIFECYCLE_EVENTS: &[&str] = &[
    "navigationFailed",
    "navigationAborted",
    "promptOpened",
    "promptClosed",
];

/// An action's text field value is repeated in the short reply only up to this length; a longer
/// one is on `verbose: true`.
const LONGEST_ECHOED_VALUE: usize = 200;

/// The MCP answer to a successful call of `tool` with its validated `arguments` (`verbose`
/// already taken out and passed as `verbose`).
pub fn success_reply(
    tool: &str,
    arguments: &Value,
    result: Value,
    verbose: bool,
) -> CallToolResult {
    CallToolResult::success(vec![ContentBlock::text(reply_text(
        tool, arguments, result, verbose,
    ))])
}

/// The MCP answer to a call that failed: the error object as compact JSON in one text block,
/// marked `isError`.
pub fn error_reply(error: &ToolError) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(error.to_value().to_string())])
}

/// A screenshot's answer (src/screenshot.rs) without its `structuredContent`: the image block
/// and the one text block of its facts stay.
pub fn without_structured_content(mut result: CallToolResult) -> CallToolResult {
    result.structured_content = None;
    result
}

/// The text of a successful reply.
pub fn reply_text(tool: &str, arguments: &Value, result: Value, verbose: bool) -> String {
    // The extension's results are objects; a stray scalar is wrapped so that every reply is an
    // object the client can parse the same way.
    let result = match result {
        Value::Object(object) => object,
        other => return json!({ "result": other }).to_string(),
    };
    if verbose {
        return Value::Object(result).to_string();
    }
    match reply_shape(tool) {
        ReplyShape::TreeRead => tree_read_text(result),
        ReplyShape::PageLoad => Value::Object(short_page_load(arguments, result)).to_string(),
        ReplyShape::Action => action_text(arguments, result),
        ReplyShape::FormFill => form_fill_text(arguments, result),
        // A resource's reply is built by its module (src/downloads.rs); its facts alone read
        // as a whole result.
        ReplyShape::Resource | ReplyShape::WholeResult => Value::Object(result).to_string(),
    }
}

/// A tree read: the header line, a newline, and the tree as printed. The header leaves out what
/// the agent already knows or cannot use (url, title, which engine read the page), and flags that
/// are false or pages when there is only one.
fn tree_read_text(mut result: Map<String, Value>) -> String {
    let tree = match result.remove("tree") {
        Some(Value::String(tree)) => tree,
        Some(other) => other.to_string(),
        None => String::new(),
    };
    // `frameId` is the argument the agent passed; the rest it knows or cannot use.
    for field in [
        "url",
        "title",
        "engine",
        "input",
        "lifecycleDropped",
        "frameId",
    ] {
        result.remove(field);
    }
    // A read of the whole document never counts toward reading a conversation (docs/protocol/reading.md,
    // "Thread-read coverage", reason `document_root`): its coverage says nothing. An anchored
    // read keeps it.
    let document_read = result
        .get("coverage")
        .and_then(|coverage| coverage.get("anchor"))
        .is_some_and(Value::is_null);
    if document_read {
        result.remove("coverage");
    }
    for flag in ["truncated", "hasMore", "autoDegraded", "unchanged"] {
        if result.get(flag) == Some(&Value::Bool(false)) {
            result.remove(flag);
        }
    }
    let single_page = result
        .get("pageCount")
        .and_then(Value::as_u64)
        .is_none_or(|count| count <= 1);
    if single_page {
        result.remove("page");
        result.remove("pageCount");
    }
    if result
        .get("removedRefs")
        .and_then(Value::as_array)
        .is_some_and(Vec::is_empty)
    {
        result.remove("removedRefs");
    }
    keep_unexpected_lifecycle(&mut result);
    let header = Value::Object(result).to_string();
    format!("{header}\n{tree}")
}

/// navigate, go_back, go_forward, reload and new_tab: where the tab is now, and what went
/// unexpectedly.
fn short_page_load(arguments: &Value, mut result: Map<String, Value>) -> Map<String, Value> {
    let mut short = Map::new();
    for field in [
        "tabId",
        "url",
        "title",
        "changed",
        "lateOutcomes",
        "downloads",
    ] {
        if let Some(value) = result.remove(field) {
            short.insert(field.to_owned(), value);
        }
    }
    if let Some(status) = result.remove("status") {
        if status.as_u64() != Some(200) {
            short.insert("status".to_owned(), status);
        }
    }
    // A redirect to another origin is worth a word: the agent asked for one site and is on
    // another (a login wall, a region redirect). Within one origin it is routine.
    let requested = arguments.get("url").and_then(Value::as_str);
    let landed = short.get("url").and_then(Value::as_str).map(str::to_owned);
    if let (Some(requested), Some(landed)) = (requested, landed) {
        if origin_of(requested) != origin_of(&landed) {
            short.insert("redirectedFrom".to_owned(), json!(requested));
        }
        // The very address the agent asked for tells it nothing: the page's URL is said only
        // when it differs (a redirect, a slash or a fragment the site added).
        if requested == landed {
            short.remove("url");
        }
    }
    keep_unexpected_lifecycle(&mut result);
    if let Some(lifecycle) = result.remove("lifecycle") {
        short.insert("lifecycle".to_owned(), lifecycle);
    }
    short
}

/// Progress evidence (docs/protocol/tools.md, "Synthetic input and page-wide evidence") that the
/// changed lines of an action's reply make redundant: a changed text, value or state, an opened
/// popup, which the lines show, and focus that moved, which follows any activation of a
/// focusable element and says nothing the lines do not (the menu it moved into is printed).
/// When those lines follow the header, `effect` leaves these out and keeps what no line shows
/// (`url_changed`, `scrolled`, `revealed:hover`, ...).
const EVIDENCE_SHOWN_BY_CHANGED_LINES: &[&str] = &[
    "local_mutation",
    "text_changed",
    "value_changed",
    "value_set",
    "semantic_state",
    "popup_shown",
    "focus_moved",
];

/// Whether the changed lines of an action's reply already show `evidence` (its kind is the
/// part before a `:`, as in `semantic_state:aria-expanded` or `text_changed:live_region`).
fn shown_by_changed_lines(evidence: &str) -> bool {
    let kind = evidence.split(':').next().unwrap_or(evidence);
    EVIDENCE_SHOWN_BY_CHANGED_LINES.contains(&kind)
}

/// An action's reply: the short result as a one-line JSON header and, when the action changed
/// lines of the tree the agent last read, those lines after it as printed (not escaped into a
/// JSON string), as a read since that snapshot prints them (docs/protocol/tools.md, "Action
/// results").
fn action_text(arguments: &Value, result: Map<String, Value>) -> String {
    let (header, changed_lines) = short_action(arguments, result);
    if changed_lines.is_empty() {
        Value::Object(header).to_string()
    } else {
        format!("{}\n{changed_lines}", Value::Object(header))
    }
}

/// fill_form's reply: an action's header (extension/background/actions/actions.js, `fillForm`) with
/// `filled` (how many fields, when all were; else their refs), `failed` (the field that stopped
/// the call, with its error), `notAttempted` (the refs after it) and `values` (a field's value
/// afterwards, where it is not the value given and the field is known not to hold a secret),
/// then the tree lines the fields changed. The per-field results are on `verbose: true`.
fn form_fill_text(arguments: &Value, mut result: Map<String, Value>) -> String {
    let filled = result.remove("filled");
    let failed = result.remove("failed");
    let not_attempted = result
        .remove("notAttempted")
        .filter(|refs| refs.as_array().is_some_and(|refs| !refs.is_empty()));
    let fields = result.remove("fields");
    let (mut header, changed_lines) = short_action(arguments, result);
    let complete = failed.is_none() && not_attempted.is_none();
    match filled {
        Some(Value::Array(refs)) if complete => {
            header.insert("filled".to_owned(), json!(refs.len()));
        }
        Some(filled) => {
            header.insert("filled".to_owned(), filled);
        }
        None => {}
    }
    if let Some(failed) = failed {
        header.insert("failed".to_owned(), failed);
    }
    if let Some(not_attempted) = not_attempted {
        header.insert("notAttempted".to_owned(), not_attempted);
    }
    let values = values_not_as_given(arguments, fields.as_ref());
    if !values.is_empty() {
        header.insert("values".to_owned(), Value::Object(values));
    }
    if changed_lines.is_empty() {
        Value::Object(header).to_string()
    } else {
        format!("{}\n{changed_lines}", Value::Object(header))
    }
}

/// The fields whose value afterwards is not the value the agent gave (a mask, a page that
/// reformats), by ref, each at most [`LONGEST_ECHOED_VALUE`] characters. Only fields the page
/// said are not secret (`sensitive: false`): a field that does not say is left out.
fn values_not_as_given(arguments: &Value, fields: Option<&Value>) -> Map<String, Value> {
    let given = |reference: &str| {
        arguments
            .get("fields")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .find(|field| field.get("ref_id").and_then(Value::as_str) == Some(reference))
            .and_then(|field| field.get("value"))
            .and_then(Value::as_str)
    };
    let mut values = Map::new();
    for field in fields.and_then(Value::as_array).into_iter().flatten() {
        let (Some(reference), Some(Value::String(value))) = (
            field.get("ref_id").and_then(Value::as_str),
            field.get("value"),
        ) else {
            continue;
        };
        let ordinary = field.get("sensitive") == Some(&Value::Bool(false));
        if ordinary
            && given(reference) != Some(value.as_str())
            && value.chars().count() <= LONGEST_ECHOED_VALUE
        {
            values.insert(reference.to_owned(), json!(value));
        }
    }
    values
}

/// Moves an action result's `changes` (extension/background/actions/action-changes.js) into the short
/// header and returns the changed lines: how many references went away
/// (the lines are gone, and an action on one of them answers `ref_not_found`; the list itself
/// is on `verbose: true`); the references a re-render replaced; `"changes": "none"` when the
/// action changed no line; `wholeTree: true` when the lines are the whole tree because the
/// changed parts would have been longer; and the object itself when the lines were left out
/// (`omitted`, with the snapshot to read `since`).
fn move_changes_into_header(short: &mut Map<String, Value>, changes: Value) -> String {
    let Value::Object(mut changes) = changes else {
        return String::new();
    };
    if changes.contains_key("omitted") {
        short.insert("changes".to_owned(), Value::Object(changes));
        return String::new();
    }
    // The changes' new `snapshotId` stays on `verbose`: the next action's changes start from it
    // by themselves, and a read `since` the agent's own last read answers the same lines and
    // more (docs/protocol/tools.md, "Action results").
    if changes.get("unchanged") == Some(&Value::Bool(true)) {
        short.insert("changes".to_owned(), json!("none"));
    }
    if changes.get("wholeTree") == Some(&Value::Bool(true)) {
        short.insert("wholeTree".to_owned(), Value::Bool(true));
    }
    if let Some(removed) = changes
        .get("removedRefs")
        .and_then(Value::as_array)
        .map(Vec::len)
        .filter(|count| *count > 0)
    {
        short.insert("removedRefs".to_owned(), json!(removed));
    }
    if let Some(replaced) = changes.remove("replacedRefs") {
        short.insert("replacedRefs".to_owned(), replaced);
    }
    match changes.remove("text") {
        Some(Value::String(text)) => text,
        _ => String::new(),
    }
}

/// An action result (docs/protocol/tools.md, "Action results") cut to what decides the next step:
/// whether anything happened (`progress`, `effect`), whether it may be repeated
/// (`retryAllowed` only when false, `lateOutcomes`), where it led (`url`, `newTabs`,
/// `downloads`), what the page says changed (`changes`, `snapshotId`), and the few facts a tool
/// adds about its own effect.
fn short_action(arguments: &Value, mut result: Map<String, Value>) -> (Map<String, Value>, String) {
    let mut short = Map::new();
    if result.get("success") == Some(&Value::Bool(false)) {
        short.insert("success".to_owned(), Value::Bool(false));
    }
    let progress = result.remove("progress");
    // `changes` comes from the action-changes step of the background (the tab's changes since
    // the last read, bounded): its lines follow the header, and `effect` leaves out what they
    // show.
    let changed_lines = match result.remove("changes") {
        Some(changes) => move_changes_into_header(&mut short, changes),
        None => String::new(),
    };
    // Changed lines after the header are the page's own answer that the action took effect:
    // `progress: "observed"` is then left out, as `effect` leaves out what they show. Any other
    // progress (inconclusive, sent but not observed, ...) is said, lines or not.
    if let Some(progress) = progress {
        if changed_lines.is_empty() || progress != json!("observed") {
            short.insert("progress".to_owned(), progress);
        }
    }
    let effect: Vec<&str> = result
        .get("evidence")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .filter(|evidence| changed_lines.is_empty() || !shown_by_changed_lines(evidence))
        .collect();
    if !effect.is_empty() {
        short.insert("effect".to_owned(), json!(effect.join(", ")));
    }
    if let Some(Value::Object(observed)) = result.get("observed") {
        if let Some(url) = observed.get("navigation").and_then(|n| n.get("url")) {
            short.insert("url".to_owned(), url.clone());
        }
        for field in ["newTabs", "downloads"] {
            if let Some(value) = observed.get(field) {
                short.insert(field.to_owned(), value.clone());
            }
        }
    }
    if result.get("retryAllowed") == Some(&Value::Bool(false)) {
        short.insert("retryAllowed".to_owned(), Value::Bool(false));
    }
    // `selected`, `submit`, `cssHover` and `after` are what select_option, set_field, hover and
    // scroll say about their own effect; `nativeDragUnfinished` is a drag the browser left
    // hanging.
    for field in [
        "hint",
        "snapshotId",
        "lateOutcomes",
        "selected",
        "submit",
        "cssHover",
        "after",
        "nativeDragUnfinished",
    ] {
        if let Some(value) = result.remove(field) {
            short.insert(field.to_owned(), value);
        }
    }
    // What a drag moved, where to: the item, its list and place before and after. `false`
    // (nothing changed place) is left to `effect` and the lines.
    if let Some(moved) = result.remove("moved").filter(Value::is_object) {
        short.insert("moved".to_owned(), moved);
    }
    // upload_file names the files the page got, by name only (sizes and types on `verbose`).
    if let Some(Value::Array(files)) = result.get("files") {
        let names: Vec<Value> = files
            .iter()
            .filter_map(|file| file.get("name").cloned())
            .collect();
        short.insert("files".to_owned(), Value::Array(names));
    }
    // A field's value afterwards is news only when it is not the text the agent typed (a mask,
    // an autocorrection, appended text); short enough to repeat.
    if let Some(Value::String(value)) = result.get("value") {
        let typed = arguments.get("text").and_then(Value::as_str);
        if typed != Some(value.as_str()) && value.chars().count() <= LONGEST_ECHOED_VALUE {
            short.insert("value".to_owned(), json!(value));
        }
    }
    keep_unexpected_lifecycle(&mut result);
    if let Some(lifecycle) = result.remove("lifecycle") {
        short.insert("lifecycle".to_owned(), lifecycle);
    }
    (short, changed_lines)
}

/// Keeps only the unexpected events of `lifecycle`, and drops the field when none is left.
fn keep_unexpected_lifecycle(result: &mut Map<String, Value>) {
    result.remove("lifecycleDropped");
    let Some(Value::Array(events)) = result.remove("lifecycle") else {
        return;
    };
    let unexpected: Vec<Value> = events
        .into_iter()
        .filter(|event| {
            event
                .get("type")
                .and_then(Value::as_str)
                .is_some_and(|kind| UNEXPECTED_LIFECYCLE_EVENTS.contains(&kind))
        })
        .collect();
    if !unexpected.is_empty() {
        result.insert("lifecycle".to_owned(), Value::Array(unexpected));
    }
}

/// A URL's origin as a string (scheme and authority, lowercased; RFC 6454 section 4 without the
/// default-port folding, which navigate's URLs do not need), or the whole URL when it has no
/// authority (about:blank, data:).
fn origin_of(url: &str) -> String {
    let url = url.trim();
    match url.split_once("://") {
        Some((scheme, rest)) => {
            let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
            format!("{}://{}", scheme, authority).to_ascii_lowercase()
        }
        None => url.to_ascii_lowercase(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text_of(result: &CallToolResult) -> &str {
        assert_eq!(result.content.len(), 1, "one content block");
        result.content[0]
            .as_text()
            .map(|text| text.text.as_str())
            .expect("a text block")
    }

    fn bridge_load_events(url: &str) -> Value {
        json!([
            {"type": "navigationStarted", "tabContext": "C", "context": "C", "url": url},
            {"type": "navigationCommitted", "tabContext": "C", "context": "C", "url": url},
            {"type": "domContentLoaded", "tabContext": "C", "context": "C", "url": url},
            {"type": "load", "tabContext": "C", "context": "C", "url": url},
        ])
    }

    #[test]
    fn navigate_answers_url_and_title_without_the_ordinary_page_load_events() {
        let url = "http://127.0.0.1:8000/pages/a.html";
        let result = json!({"url": url, "title": "A", "lifecycle": bridge_load_events(url), "lifecycleDropped": 3});
        let reply = success_reply("navigate", &json!({"url": url}), result.clone(), false);
        assert_eq!(reply.structured_content, None);
        assert_eq!(reply.is_error, Some(false));
        let short: Value = serde_json::from_str(text_of(&reply)).expect("json");
        assert_eq!(short, json!({"title": "A"}));
        let verbose = success_reply("navigate", &json!({"url": url}), result.clone(), true);
        let full: Value = serde_json::from_str(text_of(&verbose)).expect("json");
        assert_eq!(full, result);
    }

    #[test]
    fn navigate_keeps_a_failed_navigation_a_redirect_to_another_origin_and_a_status_that_is_not_200(
    ) {
        let mut events = bridge_load_events("https://login.example/");
        events.as_array_mut().expect("array").push(json!({"type": "navigationFailed", "tabContext": "C", "context": "C", "url": "https://a.example/x"}));
        let result = json!({"url": "https://login.example/", "title": "Log in", "status": 403, "lifecycle": events});
        let text = reply_text(
            "navigate",
            &json!({"url": "https://a.example/x"}),
            result,
            false,
        );
        let short: Value = serde_json::from_str(&text).expect("json");
        assert_eq!(short["status"], 403);
        assert_eq!(short["redirectedFrom"], "https://a.example/x");
        assert_eq!(short["lifecycle"].as_array().map(Vec::len), Some(1));
        assert_eq!(short["lifecycle"][0]["type"], "navigationFailed");
        let same_origin = reply_text(
            "navigate",
            &json!({"url": "https://A.example/x"}),
            json!({"url": "https://a.example/y", "title": "", "status": 200}),
            false,
        );
        assert_eq!(same_origin, r#"{"title":"","url":"https://a.example/y"}"#);
    }

    #[test]
    fn an_action_answers_progress_effect_and_changes_and_leaves_the_rest_to_verbose() {
        let result = json!({
            "success": true, "progress": "observed", "evidence": ["local_mutation", "focus_moved", "scrolled"],
            "hints": ["global_mutation"], "retryAllowed": true, "tag": "button", "role": "button",
            "name": "Save", "rect": {"x": 1, "y": 2, "width": 3, "height": 4}, "method": "synthetic",
            "input": "synthetic", "observed": {},
            "changes": {"snapshotId": "snapshot-ab-2", "text": "[changed]\ntext \"Saved\"", "removedRefs": ["ref_7", "ref_8"]}
        });
        let text = reply_text(
            "click_ax",
            &json!({"ref_id": "ref_3"}),
            result.clone(),
            false,
        );
        // The changed lines follow the header as printed; the effect keeps only what they do
        // not show, and `progress: "observed"` is left to them; the removed references are
        // counted.
        let (header, lines) = text.split_once('\n').expect("a header, then the lines");
        assert_eq!(lines, "[changed]\ntext \"Saved\"");
        let short: Value = serde_json::from_str(header).expect("json");
        assert_eq!(short, json!({"effect": "scrolled", "removedRefs": 2}));
        let verbose = reply_text(
            "click_ax",
            &json!({"ref_id": "ref_3"}),
            result.clone(),
            true,
        );
        assert_eq!(
            serde_json::from_str::<Value>(&verbose).expect("json"),
            result
        );
    }

    #[test]
    fn an_action_that_changed_no_line_or_too_many_says_so_in_its_header() {
        let unchanged = json!({"progress": "observed", "evidence": ["value_set"],
            "changes": {"snapshotId": "snapshot-ab-3", "text": "", "unchanged": true}});
        let text = reply_text("type_ax", &json!({"text": "x"}), unchanged, false);
        assert_eq!(
            serde_json::from_str::<Value>(&text).expect("one JSON line"),
            json!({"progress": "observed", "effect": "value_set", "changes": "none"})
        );
        let omitted = json!({"progress": "observed", "evidence": ["local_mutation"],
            "changes": {"omitted": "longer_than_1200_characters", "since": "snapshot-ab-3"}});
        let text = reply_text("click_ax", &json!({}), omitted, false);
        assert_eq!(
            serde_json::from_str::<Value>(&text).expect("one JSON line"),
            json!({"progress": "observed", "effect": "local_mutation",
                   "changes": {"omitted": "longer_than_1200_characters", "since": "snapshot-ab-3"}})
        );
        let whole = json!({"progress": "observed", "evidence": ["popup_shown:dialog", "focus_moved"],
            "changes": {"snapshotId": "snapshot-ab-4", "text": "[open overlays]\ndialog \"Settings\" [ref_9]", "wholeTree": true}});
        let text = reply_text("click_ax", &json!({}), whole, false);
        let (header, lines) = text.split_once('\n').expect("a header, then the tree");
        assert_eq!(lines, "[open overlays]\ndialog \"Settings\" [ref_9]");
        assert_eq!(
            serde_json::from_str::<Value>(header).expect("json"),
            json!({"wholeTree": true})
        );
    }

    #[test]
    fn an_action_keeps_what_forbids_a_retry_and_where_it_led() {
        let result = json!({
            "success": true, "progress": "inconclusive", "evidence": [], "hints": [],
            "retryAllowed": false, "hint": "Do not click again.",
            "observed": {"navigation": {"url": "https://a.example/done"}, "newTabs": [{"tabId": 4, "url": "https://b.example/"}],
                         "requests": [{"method": "POST", "url": "https://a.example/order", "kind": "mutating"}]},
            "lateOutcomes": [{"callId": "c1", "tool": "click_ax", "ok": true}],
            "lifecycle": [{"type": "load", "tabContext": "C", "context": "C"}, {"type": "promptOpened", "tabContext": "C", "context": "C", "promptType": "alert", "message": "Hi"}]
        });
        let short: Value =
            serde_json::from_str(&reply_text("click_ax", &json!({}), result, false)).expect("json");
        assert_eq!(short["progress"], "inconclusive");
        assert_eq!(short["retryAllowed"], false);
        assert_eq!(short["hint"], "Do not click again.");
        assert_eq!(short["url"], "https://a.example/done");
        assert_eq!(short["newTabs"][0]["tabId"], 4);
        assert_eq!(short["lateOutcomes"][0]["callId"], "c1");
        assert_eq!(short["lifecycle"].as_array().map(Vec::len), Some(1));
        assert!(short.get("effect").is_none(), "no evidence, no effect");
    }

    #[test]
    fn a_drag_says_what_moved_where_and_leaves_its_route_to_verbose() {
        let moved = json!({"item": "Design the login page", "before": {"list": "To do", "position": 1, "of": 2},
                           "after": {"list": "Done", "position": 2, "of": 2, "after": "Set up the repository"}});
        let result = json!({"success": true, "progress": "observed", "evidence": ["moved"], "hints": [],
                            "retryAllowed": true, "method": "bidi", "moved": moved, "from": {"x": 1, "y": 2}});
        let short: Value =
            serde_json::from_str(&reply_text("drag", &json!({}), result, false)).expect("json");
        assert_eq!(short["moved"], moved);
        assert_eq!(short["effect"], "moved");
        assert!(short.get("method").is_none() && short.get("from").is_none());
        let slider = json!({"progress": "observed", "evidence": ["semantic_state:aria-valuenow"], "moved": false});
        let short: Value =
            serde_json::from_str(&reply_text("drag", &json!({}), slider, false)).expect("json");
        assert!(short.get("moved").is_none());
        let hanging = json!({"progress": "inconclusive", "retryAllowed": false, "nativeDragUnfinished": true});
        let short: Value =
            serde_json::from_str(&reply_text("drag", &json!({}), hanging, false)).expect("json");
        assert_eq!(short["nativeDragUnfinished"], true);
    }

    #[test]
    fn a_typed_value_is_repeated_only_when_it_is_not_what_was_typed() {
        let typed = json!({"ref_id": "ref_1", "text": "hello"});
        let same = json!({"success": true, "progress": "observed", "evidence": ["value_set"], "value": "hello", "kind": "input"});
        let short: Value =
            serde_json::from_str(&reply_text("type_ax", &typed, same, false)).expect("json");
        assert!(short.get("value").is_none());
        let masked = json!({"success": true, "progress": "observed", "evidence": ["value_set"], "value": "(555) 123", "kind": "input"});
        let short: Value =
            serde_json::from_str(&reply_text("type_ax", &typed, masked, false)).expect("json");
        assert_eq!(short["value"], "(555) 123");
        let long = json!({"progress": "observed", "value": "x".repeat(LONGEST_ECHOED_VALUE + 1)});
        let short: Value =
            serde_json::from_str(&reply_text("type_ax", &typed, long, false)).expect("json");
        assert!(short.get("value").is_none());
    }

    #[test]
    fn a_form_fill_counts_its_fields_or_says_which_failed_and_which_were_not_attempted() {
        let arguments = json!({"fields": [
            {"ref_id": "ref_1", "value": "Ada"}, {"ref_id": "ref_2", "value": "5551234"},
            {"ref_id": "ref_3", "value": "hunter22"}, {"ref_id": "ref_4", "value": "true"}
        ]});
        let field = |reference: &str, value: &str, sensitive: bool| {
            json!({"ref_id": reference, "kind": "text", "action": "typed", "value": value,
                   "sensitive": sensitive, "evidence": ["value_set"], "hints": []})
        };
        let all = json!({
            "success": true, "progress": "observed", "evidence": ["value_set", "semantic_state:checked"],
            "hints": [], "retryAllowed": true, "filled": ["ref_1", "ref_2", "ref_3", "ref_4"],
            "fields": [field("ref_1", "Ada", false), field("ref_2", "(555) 1234", false),
                       field("ref_3", "••••", true),
                       {"ref_id": "ref_4", "kind": "checkbox", "action": "clicked", "checked": true, "sensitive": false}],
            "changes": {"snapshotId": "s-2", "text": "[changed]\ncheckbox \"Terms\" [ref_4] checked"}
        });
        let text = reply_text("fill_form", &arguments, all, false);
        let (header, lines) = text.split_once('\n').expect("a header, then the lines");
        assert_eq!(lines, "[changed]\ncheckbox \"Terms\" [ref_4] checked");
        assert_eq!(
            serde_json::from_str::<Value>(header).expect("json"),
            json!({"filled": 4, "values": {"ref_2": "(555) 1234"}})
        );
        assert!(
            !text.contains("hunter22") && !text.contains("••••"),
            "{text}"
        );
        let stopped = json!({
            "success": false, "progress": "observed", "evidence": ["value_set"], "hints": [],
            "retryAllowed": true, "filled": ["ref_1"],
            "failed": {"ref_id": "ref_2", "code": "not_actionable", "message": "ref_2 is disabled", "hint": "Enable it first."},
            "notAttempted": ["ref_3", "ref_4"], "fields": [field("ref_1", "Ada", false)],
            "hint": "Fix ref_2, then call fill_form again with it and the fields not attempted."
        });
        let short: Value =
            serde_json::from_str(&reply_text("fill_form", &arguments, stopped, false))
                .expect("json");
        assert_eq!(
            short,
            json!({"success": false, "progress": "observed", "effect": "value_set", "filled": ["ref_1"],
                   "failed": {"ref_id": "ref_2", "code": "not_actionable", "message": "ref_2 is disabled", "hint": "Enable it first."},
                   "notAttempted": ["ref_3", "ref_4"],
                   "hint": "Fix ref_2, then call fill_form again with it and the fields not attempted."})
        );
        let last_failed = json!({"success": false, "filled": [], "notAttempted": [],
            "failed": {"ref_id": "ref_1", "code": "ref_not_found", "message": "gone"}});
        let short: Value =
            serde_json::from_str(&reply_text("fill_form", &arguments, last_failed, false))
                .expect("json");
        assert_eq!(short["filled"], json!([]));
        assert!(short.get("notAttempted").is_none());
    }

    #[test]
    fn a_read_is_a_header_line_then_the_tree_text_as_printed() {
        let tree = "main [ref_1]\n heading \"Title \\\"quoted\\\"\"\n button \"Go\" [ref_2]";
        let result = json!({
            "tree": tree, "snapshotId": "snapshot-ab-1", "truncated": false, "hasMore": false,
            "autoDegraded": false, "page": 1, "pageCount": 1, "url": "https://a.example/",
            "title": "A", "engine": "wasm-page"
        });
        let text = reply_text("get_accessibility_tree", &json!({}), result, false);
        let (header, printed) = text.split_once('\n').expect("a header line");
        assert_eq!(header, r#"{"snapshotId":"snapshot-ab-1"}"#);
        assert_eq!(printed, tree);
        // A document read's coverage (it never counts toward a conversation) and the frame the
        // agent named are left out; an anchored read's coverage stays.
        let coverage = |anchor: Value| {
            json!({"anchor": anchor, "complete": false, "conversationRootRefId": null,
            "pageCount": 1, "pagesRead": [1], "progress": false, "reason": "document_root"})
        };
        let framed = json!({"tree": tree, "snapshotId": "snapshot-ab-1", "frameId": 5, "coverage": coverage(Value::Null)});
        let text = reply_text("iframe_read", &json!({"frameId": 5}), framed, false);
        assert_eq!(
            text.split_once('\n').expect("header").0,
            r#"{"snapshotId":"snapshot-ab-1"}"#
        );
        let anchored = json!({"tree": tree, "snapshotId": "snapshot-ab-1", "coverage": coverage(json!("ref_4"))});
        let text = reply_text(
            "get_accessibility_tree",
            &json!({"ref_id": "ref_4"}),
            anchored,
            false,
        );
        let header: Value =
            serde_json::from_str(text.split_once('\n').expect("header").0).expect("json");
        assert_eq!(header["coverage"]["anchor"], "ref_4");
        assert_eq!(printed, tree);
        let paged = json!({
            "tree": "x", "snapshotId": "s", "truncated": true, "hasMore": true, "page": 1, "pageCount": 3,
            "continuationArgs": {"page": 2}, "full": false, "removedRefs": []
        });
        let text = reply_text("iframe_read", &json!({}), paged, false);
        let header: Value =
            serde_json::from_str(text.split_once('\n').expect("header").0).expect("json");
        assert_eq!(
            header,
            json!({"snapshotId": "s", "truncated": true, "hasMore": true, "page": 1, "pageCount": 3, "continuationArgs": {"page": 2}, "full": false})
        );
    }

    #[test]
    fn other_tools_answer_their_whole_result_once_and_a_scalar_is_wrapped() {
        let tabs =
            json!({"tabs": [{"tabId": 1, "url": "about:blank", "title": "", "active": true}]});
        let reply = success_reply("list_tabs", &json!({}), tabs.clone(), false);
        assert_eq!(reply.structured_content, None);
        assert_eq!(text_of(&reply), tabs.to_string());
        assert_eq!(
            reply_text("execute_js", &json!({}), json!(3), false),
            r#"{"result":3}"#
        );
    }

    #[test]
    fn an_error_is_one_text_block_with_code_message_and_hint() {
        let error = ToolError::invalid_arguments("navigate needs the argument \"url\"")
            .with_hint("url: the absolute URL to open.");
        let reply = error_reply(&error);
        assert_eq!(reply.is_error, Some(true));
        assert_eq!(reply.structured_content, None);
        let object: Value = serde_json::from_str(text_of(&reply)).expect("json");
        assert_eq!(object["code"], "invalid_arguments");
        assert_eq!(object["hint"], "url: the absolute URL to open.");
        assert!(object["message"].as_str().is_some());
    }

    #[test]
    fn the_tools_that_take_verbose_are_the_ones_with_a_short_reply() {
        for definition in crate::tools::all_tools() {
            assert_eq!(
                definition.argument(VERBOSE_ARGUMENT).is_some(),
                definition.reply != ReplyShape::WholeResult,
                "{} takes verbose exactly when its reply is short",
                definition.name
            );
        }
        for (tool, shape) in [
            ("get_accessibility_tree", ReplyShape::TreeRead),
            ("navigate", ReplyShape::PageLoad),
            ("go_back", ReplyShape::PageLoad),
            ("go_forward", ReplyShape::PageLoad),
            ("reload", ReplyShape::PageLoad),
            ("click_ax", ReplyShape::Action),
            ("fill_form", ReplyShape::FormFill),
            ("list_tabs", ReplyShape::WholeResult),
        ] {
            assert_eq!(reply_shape(tool), shape, "{tool}");
        }
    }

    #[test]
    fn origins_compare_scheme_and_authority() {
        assert_eq!(
            origin_of("HTTPS://A.example:8443/x?y"),
            "https://a.example:8443"
        );
        assert_eq!(origin_of("about:blank"), "about:blank");
    }
}
