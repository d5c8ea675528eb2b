//! Replies cost only what they tell (issue 30, item 4; docs/protocol/tools.md, "Replies";
//! src/mcp_reply.rs): every result is one text block without `structuredContent`; navigate
//! answers its URL and title without the page-load events, an action its progress and effect, a
//! read a header line and the tree text, an error `{code, message, hint}`; `verbose: true` gives
//! the whole object.

use std::time::Duration;

use rmcp::model::CallToolResult;
use serde_json::{json, Value};

use crate::actions::{find_ref, ref_of};
use crate::support::reply_text::reply_text_value;
use crate::support::{fixtures, Session};

/// The one text block of a reply, checked to be all the reply holds (an image aside).
fn only_text(browser: &str, tool: &str, result: &CallToolResult) -> String {
    assert_eq!(
        result.structured_content, None,
        "{browser}: {tool} sends its result once, as text: {result:?}"
    );
    let texts: Vec<&str> = result
        .content
        .iter()
        .filter_map(|block| block.as_text().map(|text| text.text.as_str()))
        .collect();
    assert_eq!(
        texts.len(),
        1,
        "{browser}: {tool}: one text block: {result:?}"
    );
    texts[0].to_owned()
}

/// A navigate, a read, a click and an error as an agent gets them, and the click again with
/// `verbose: true`.
pub async fn replies_are_short_single_text_blocks(session: &Session) {
    let browser = session.browser.name();
    let url = fixtures().url("/pages/actions/click-order.html");

    let navigated = session.call_quiet("navigate", json!({ "url": url })).await;
    assert_ne!(navigated.is_error, Some(true), "{browser}: {navigated:?}");
    let text = only_text(browser, "navigate", &navigated);
    let reply: Value = serde_json::from_str(&text).expect("navigate's reply is JSON");
    // The URL asked for is not said back.
    assert!(reply.get("url").is_none(), "{browser}: {text}");
    assert_eq!(reply["title"], "Click order", "{browser}: {text}");
    assert!(
        reply.get("lifecycle").is_none(),
        "{browser}: an ordinary load lists no events: {text}"
    );
    assert!(
        text.chars().count() <= url.chars().count() + 60,
        "{browser}: navigate's reply is about its title: {text}"
    );
    // Content scripts run at document_idle, just after load: give them their turn.
    tokio::time::sleep(Duration::from_millis(150)).await;

    let read = session
        .call_quiet("get_accessibility_tree", json!({}))
        .await;
    let text = only_text(browser, "get_accessibility_tree", &read);
    let (header, tree) = text.split_once('\n').expect("a header line, then the tree");
    let header: Value = serde_json::from_str(header).expect("the header is JSON");
    assert!(
        header["snapshotId"].as_str().is_some(),
        "{browser}: {header}"
    );
    for left_out in ["tree", "url", "title", "engine"] {
        assert!(
            header.get(left_out).is_none(),
            "{browser}: {left_out} in {header}"
        );
    }
    assert!(
        find_ref(tree, "button", "Open").is_some(),
        "{browser}: the tree is printed as is after the header:\n{tree}"
    );
    let open = ref_of(session, "button", "Open").await;

    let clicked = session
        .call_quiet("click_ax", json!({ "ref_id": open }))
        .await;
    assert_ne!(clicked.is_error, Some(true), "{browser}: {clicked:?}");
    let text = only_text(browser, "click_ax", &clicked);
    // A JSON header line, then the lines of the tree the click changed, as printed.
    let (header, changed_lines) = text.split_once('\n').unwrap_or((text.as_str(), ""));
    let reply: Value = serde_json::from_str(header).expect("the click's header is JSON");
    // `progress: "observed"` is said only when no changed line says it.
    if changed_lines.is_empty() {
        assert_eq!(reply["progress"], "observed", "{browser}: {text}");
    } else {
        assert!(reply.get("progress").is_none(), "{browser}: {text}");
    }
    assert!(
        reply["effect"].as_str().is_some() || !changed_lines.is_empty(),
        "{browser}: the click says what it did: {text}"
    );
    assert!(
        changed_lines.is_empty() || changed_lines.starts_with('['),
        "{browser}: the lines start with their banner, printed and not escaped: {text}"
    );
    for left_out in [
        "evidence", "hints", "tag", "role", "name", "rect", "method", "input",
    ] {
        assert!(
            reply.get(left_out).is_none(),
            "{browser}: {left_out} in {text}"
        );
    }
    // The changed lines of the page are as long as the page makes them; the header is a few
    // words.
    assert!(
        header.chars().count() <= 120,
        "{browser}: the click's header is short: {text}"
    );

    let verbose = session
        .call_quiet("click_ax", json!({ "ref_id": open, "verbose": true }))
        .await;
    let text = only_text(browser, "click_ax", &verbose);
    let whole = reply_text_value(&text);
    for field in [
        "success",
        "progress",
        "evidence",
        "hints",
        "retryAllowed",
        "tag",
        "role",
        "name",
        "method",
        "input",
    ] {
        assert!(
            whole.get(field).is_some(),
            "{browser}: verbose has {field}: {text}"
        );
    }
    assert_eq!(whole["name"], "Open", "{browser}: {text}");

    let failed = session
        .call_quiet("click_ax", json!({ "ref_id": "ref_999999" }))
        .await;
    assert_eq!(failed.is_error, Some(true), "{browser}: {failed:?}");
    let text = only_text(browser, "click_ax", &failed);
    let error: Value = serde_json::from_str(&text).expect("the error is JSON");
    assert_eq!(error["code"], "ref_not_found", "{browser}: {text}");
    assert!(error["message"].as_str().is_some(), "{browser}: {text}");
    assert!(error["hint"].as_str().is_some(), "{browser}: {text}");
}

/// An action's reply carries what the agent acts on next: a click that opens a modal dialog (the
/// page behind it hidden, so the changed parts would be longer than the tree) answers the whole
/// short tree after its header, the dialog's field and button with their refs, and the agent
/// types and saves without reading again.
pub async fn an_action_answers_the_lines_the_next_step_needs(session: &Session) {
    let browser = session.browser.name();
    session
        .open(&fixtures().url("/pages/actions/radix.html"))
        .await;
    let read = session
        .call_quiet("get_accessibility_tree", json!({}))
        .await;
    let tree = only_text(browser, "get_accessibility_tree", &read);
    let open = find_ref(&tree, "button", "Open settings")
        .unwrap_or_else(|| panic!("{browser}: no Open settings in\n{tree}"));
    let clicked = session
        .call_quiet("click_ax", json!({ "ref_id": open }))
        .await;
    assert_ne!(clicked.is_error, Some(true), "{browser}: {clicked:?}");
    let text = only_text(browser, "click_ax", &clicked);
    let (header, lines) = text
        .split_once('\n')
        .unwrap_or_else(|| panic!("{browser}: the click answers lines: {text}"));
    let header: Value = serde_json::from_str(header).expect("the header is JSON");
    // The dialog's lines say that the click took effect: no `progress` beside them.
    assert!(header.get("progress").is_none(), "{browser}: {text}");
    assert!(
        lines.contains("dialog \"Settings\""),
        "{browser}: the dialog is in the reply: {text}"
    );
    let field = find_ref(lines, "textbox", "Display name")
        .unwrap_or_else(|| panic!("{browser}: the field and its ref are in the reply: {text}"));
    let typed = session
        .call_quiet("type_ax", json!({ "ref_id": field, "text": "Ada" }))
        .await;
    assert_ne!(typed.is_error, Some(true), "{browser}: {typed:?}");
    assert!(
        text.chars().count() <= 600,
        "{browser}: the reply is the short tree, not the page: {text}"
    );
}
