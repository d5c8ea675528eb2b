//! find and wait_for (issue 29, items 3 and 5; docs/agent-tools.md, "find" and "wait_for"):
//! find answers the matching lines of every frame and open shadow root after their ancestors'
//! path, with refs an agent acts on at once; wait_for returns as soon as a text shows or goes,
//! or a ref's element reaches a state, and says what it saw last when its time runs out.

use std::time::Duration;

use rmcp::model::CallToolResult;
use serde_json::{json, Value};

use crate::actions::ref_of;
use crate::support::{fixtures, Session};

/// The text an agent reads: the reply's one text block.
fn reply_text(result: &CallToolResult) -> String {
    result
        .content
        .iter()
        .find_map(|block| block.as_text().map(|text| text.text.clone()))
        .unwrap_or_default()
}

/// The whole tree text of the top document, as an agent's read prints it.
async fn whole_tree(session: &Session) -> String {
    session.ok("get_accessibility_tree", json!({})).await["tree"]
        .as_str()
        .expect("a tree")
        .to_owned()
}

/// The ref printed on `line` (`... [ref_N] ...`).
fn ref_on(line: &str) -> String {
    let start = line.find("[ref_").expect("a ref on the line") + 1;
    let end = start + line[start..].find(']').expect("the ref's end");
    line[start..end].to_owned()
}

/// The reply an agent reads for `find(arguments)`: its header and its lines.
async fn find(session: &Session, arguments: Value) -> (Value, Vec<String>) {
    let reply = session.call_quiet("find", arguments.clone()).await;
    assert_ne!(
        reply.is_error,
        Some(true),
        "{}: find({arguments}): {reply:?}",
        session.browser.name()
    );
    let text = reply_text(&reply);
    let (header, lines) = text.split_once('\n').unwrap_or((text.as_str(), ""));
    let header: Value = serde_json::from_str(header).expect("find's header is JSON");
    (header, lines.lines().map(str::to_owned).collect())
}

pub async fn find_answers_matching_lines_with_their_paths_in_every_frame_and_shadow_root(
    session: &Session,
) {
    let browser = session.browser.name();
    session
        .ok(
            "navigate",
            json!({ "url": fixtures().url("/pages/find/shop.html") }),
        )
        .await;
    // The frame's document loads after the top one's load event is not guaranteed to have
    // answered yet: wait until its form shows.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    let (header, lines) = loop {
        let (header, lines) = find(session, json!({ "role": "textbox" })).await;
        if header["matches"] == 2 || tokio::time::Instant::now() > deadline {
            break (header, lines);
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    assert_eq!(header["matches"], 2, "{browser}: {header} {lines:#?}");
    assert!(
        lines[0].starts_with(
            "main \"Shop\" > form \"Shipping\" > group \"Address\" > textbox \"Street\" [ref_"
        ),
        "{browser}: the path of the top document's field: {lines:#?}"
    );
    assert!(
        lines[1].starts_with("[frame ") && lines[1].contains("/pages/find/payment.html\""),
        "{browser}: the frame's matches come under its heading: {lines:#?}"
    );
    assert!(
        lines[2].starts_with("form \"Card\" > textbox \"Card number\" [ref_"),
        "{browser}: {lines:#?}"
    );

    // A found ref acts at once, in its frame.
    let frame_id: u64 = lines[1]["[frame ".len()..]
        .split(']')
        .next()
        .and_then(|number| number.parse().ok())
        .expect("the frame's id");
    let (_, pay) = find(session, json!({ "role": "button", "name": "pay" })).await;
    let pay_ref = ref_on(pay.last().expect("Pay now"));
    session
        .ok(
            "iframe_click",
            json!({ "ref_id": pay_ref, "frameId": frame_id }),
        )
        .await;
    let frame_tree = session
        .ok("iframe_read", json!({ "frameId": frame_id }))
        .await;
    assert!(
        frame_tree["tree"]
            .as_str()
            .is_some_and(|tree| tree.contains("\"Paid\"")),
        "{browser}: the frame's button was clicked: {frame_tree}"
    );

    // Inside an open shadow root, by name in any case.
    let (header, lines) = find(session, json!({ "name": "APPLY  coupon" })).await;
    assert_eq!(header["matches"], 1, "{browser}: {lines:#?}");
    assert!(
        lines[0].starts_with("main \"Shop\" > region \"Coupons\" > button \"Apply coupon\" [ref_"),
        "{browser}: {lines:#?}"
    );
    session
        .ok("click_ax", json!({ "ref_id": ref_on(&lines[0]) }))
        .await;
    assert!(
        whole_tree(session).await.contains("Coupon applied"),
        "{browser}: the shadow root's button was clicked"
    );

    // Text without a ref of its own, printed as its item's first words.
    let (_, lines) = find(session, json!({ "text": "shipped" })).await;
    assert_eq!(lines.len(), 1, "{browser}: {lines:#?}");
    assert!(
        lines[0].starts_with("main \"Shop\" > list \"Orders\" > ")
            && lines[0].contains("\"Order 12 shipped\""),
        "{browser}: {lines:#?}"
    );

    // limit keeps the first matches in page order and says how many there were.
    let (header, lines) = find(session, json!({ "role": "button", "limit": 2 })).await;
    assert_eq!(header["shown"], 2, "{browser}: {header}");
    assert!(
        header["matches"].as_u64().is_some_and(|count| count >= 5),
        "{browser}: {header}"
    );
    assert_eq!(lines.len(), 2, "{browser}: {lines:#?}");
    assert!(
        lines[0].contains("button \"Save address\""),
        "{browser}: {lines:#?}"
    );

    // Nothing found is an answer with a way on.
    let (header, lines) = find(session, json!({ "text": "no such words here" })).await;
    assert_eq!(header["matches"], 0, "{browser}: {header}");
    assert!(header["hint"].is_string(), "{browser}: {header}");
    assert!(lines.is_empty(), "{browser}: {lines:#?}");

    // find costs a fraction of a whole read.
    let reply = session
        .call_quiet("find", json!({ "role": "textbox", "name": "street" }))
        .await;
    let found = reply_text(&reply);
    let whole = session
        .call_quiet("get_accessibility_tree", json!({}))
        .await;
    let whole = reply_text(&whole);
    assert!(
        found.chars().count() * 4 < whole.chars().count(),
        "{browser}: find answered {} characters, a whole read {}:\n{found}",
        found.chars().count(),
        whole.chars().count()
    );

    // At least one of text, role and name.
    let refused = session.call("find", json!({ "limit": 3 })).await;
    let error = refused.expect_err("find without a query");
    assert_eq!(
        error.code(),
        "invalid_arguments",
        "{browser}: {:?}",
        error.0
    );
}

/// wait_for's result, which must succeed as a call.
async fn wait_for(session: &Session, arguments: Value) -> Value {
    session.ok("wait_for", arguments).await
}

pub async fn wait_for_returns_when_text_or_a_state_arrives_and_says_what_it_saw_last(
    session: &Session,
) {
    let browser = session.browser.name();
    session
        .ok(
            "navigate",
            json!({ "url": fixtures().url("/pages/wait/late.html") }),
        )
        .await;
    let start = ref_of(session, "button", "Start").await;
    let continue_ref = ref_of(session, "button", "Continue").await;
    let accept = ref_of(session, "checkbox", "Accept terms").await;
    let banner = ref_of(session, "button", "Spring sale").await;
    let saved = ref_of(session, "button", "Saved").await;

    // Before anything happens: a timeout that says what it saw.
    let early = wait_for(
        session,
        json!({ "text": "Order confirmed", "timeoutMs": 300 }),
    )
    .await;
    assert_eq!(early["met"], false, "{browser}: {early}");
    assert_eq!(early["reason"], "timeout", "{browser}: {early}");
    assert_eq!(early["lastSeen"]["shown"], false, "{browser}: {early}");
    assert!(
        early["waitedMs"].as_u64().is_some_and(|ms| ms >= 300),
        "{browser}: {early}"
    );
    let still_disabled = wait_for(
        session,
        json!({ "ref_id": continue_ref, "state": "enabled", "timeoutMs": 200 }),
    )
    .await;
    assert_eq!(still_disabled["met"], false, "{browser}: {still_disabled}");
    assert_eq!(
        still_disabled["lastSeen"]["enabled"], false,
        "{browser}: {still_disabled}"
    );
    let still_transparent = wait_for(
        session,
        json!({ "ref_id": saved, "state": "visible", "timeoutMs": 200 }),
    )
    .await;
    assert_eq!(
        still_transparent["met"], false,
        "{browser}: {still_transparent}"
    );

    session.ok("click_ax", json!({ "ref_id": start })).await;
    // Across the page's element boundaries, in any case and spacing.
    let confirmed = wait_for(
        session,
        json!({ "text": "order   CONFIRMED", "timeoutMs": 10_000 }),
    )
    .await;
    assert_eq!(confirmed["met"], true, "{browser}: {confirmed}");
    assert!(
        confirmed["waitedMs"].as_u64().is_some_and(|ms| ms < 5_000),
        "{browser}: it returns as soon as the text shows: {confirmed}"
    );
    for (arguments, what) in [
        (json!({ "textGone": "Loading results" }), "a text gone"),
        (json!({ "text": "Shadow ready" }), "a shadow root's text"),
        (
            json!({ "ref_id": continue_ref, "state": "enabled" }),
            "enabled",
        ),
        (json!({ "ref_id": accept, "state": "checked" }), "checked"),
        (json!({ "ref_id": banner, "state": "removed" }), "removed"),
        (
            json!({ "ref_id": banner, "state": "hidden" }),
            "hidden, once removed",
        ),
    ] {
        let mut arguments = arguments;
        arguments["timeoutMs"] = json!(5_000);
        let result = wait_for(session, arguments.clone()).await;
        assert_eq!(
            result["met"], true,
            "{browser}: {what}: {arguments} {result}"
        );
    }
    let in_frame = wait_for(
        session,
        json!({ "text": "Frame ready", "timeoutMs": 5_000 }),
    )
    .await;
    assert_eq!(in_frame["met"], true, "{browser}: {in_frame}");
    assert!(
        in_frame["frameId"].as_u64().is_some_and(|frame| frame > 0),
        "{browser}: the frame that shows it is named: {in_frame}"
    );
    // A transparent button became opaque.
    let shown = wait_for(session, json!({ "ref_id": saved, "state": "visible" })).await;
    assert_eq!(shown["met"], true, "{browser}: {shown}");

    // Text that CSS hides is not shown.
    for hidden in ["Hidden phrase", "Invisible phrase"] {
        let result = wait_for(session, json!({ "text": hidden, "timeoutMs": 200 })).await;
        assert_eq!(result["met"], false, "{browser}: {hidden}: {result}");
    }

    // Bad input is refused by name.
    for (arguments, code) in [
        (json!({}), "invalid_arguments"),
        (json!({ "text": "a", "textGone": "b" }), "invalid_arguments"),
        (
            json!({ "text": "a", "state": "visible" }),
            "invalid_arguments",
        ),
        (json!({ "ref_id": "ref_999999" }), "ref_not_found"),
    ] {
        let error = session
            .call("wait_for", arguments.clone())
            .await
            .expect_err("refused");
        assert_eq!(error.code(), code, "{browser}: {arguments}: {:?}", error.0);
    }
}
