//! Replies cost only what they tell (issue 30, item 4; docs/protocol.md, "Replies";
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
    assert_eq!(reply["url"], url.as_str(), "{browser}: {text}");
    assert_eq!(reply["title"], "Click order", "{browser}: {text}");
    assert!(
        reply.get("lifecycle").is_none(),
        "{browser}: an ordinary load lists no events: {text}"
    );
    assert!(
        text.chars().count() <= url.chars().count() + 60,
        "{browser}: navigate's reply is about its URL and title: {text}"
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
    let mut reply: Value = serde_json::from_str(&text).expect("the click's reply is JSON");
    assert_eq!(reply["progress"], "observed", "{browser}: {text}");
    assert!(reply["effect"].as_str().is_some(), "{browser}: {text}");
    for left_out in [
        "evidence", "hints", "tag", "role", "name", "rect", "method", "input",
    ] {
        assert!(
            reply.get(left_out).is_none(),
            "{browser}: {left_out} in {text}"
        );
    }
    // The changed lines of the page are as long as the page makes them; the rest is a few words.
    reply.as_object_mut().map(|object| object.remove("changes"));
    assert!(
        reply.to_string().chars().count() <= 120,
        "{browser}: the click's reply is short: {text}"
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
