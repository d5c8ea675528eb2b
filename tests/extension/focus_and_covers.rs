//! A launched browser's page behaves as the page of a focused window (issue 30, item 7), and a
//! control covered by a part of itself is clicked as a person would click it (item 8). Both
//! run in the launched bridge's session (main.rs, BRIDGE), with trusted input over BiDi.

use serde_json::json;

use crate::bridge::{wait_for_text, LaunchedMcp};
use crate::support::fixtures;

/// The page's document has focus (HTML, "has focus steps": its browsing context is the focused
/// area of a focused top-level traversable), so click_ax into a field fires `focus` and `focusin`
/// there; and so it stays in a tab opened with new_tab and after select_tab back.
pub async fn a_launched_browsers_page_has_focus(session: &LaunchedMcp) {
    let name = session.browser.name();
    let url = fixtures().url("/pages/bridge/focus.html");
    session.ok("navigate", json!({"url": url})).await;
    let first_tab = session.ok("list_tabs", json!({})).await["tabs"]
        .as_array()
        .and_then(|tabs| tabs.iter().find(|tab| tab["active"] == true))
        .and_then(|tab| tab["tabId"].as_i64())
        .expect("the active tab");
    wait_for_text(session, "has focus: true").await;
    let field = session.ref_of("textbox", "Your name").await;
    let clicked = session.ok("click_ax", json!({"ref_id": field})).await;
    assert_eq!(clicked["method"], "bidi", "{name}: {clicked}");
    wait_for_text(
        session,
        "has focus: true, focus events: 1, focusin events: 1",
    )
    .await;

    let second = session.ok("new_tab", json!({"url": url})).await;
    let second_tab = second["tabId"].as_i64().expect("the new tab's id");
    wait_for_text(session, "has focus: true").await;
    let field = session.ref_of("textbox", "Your name").await;
    session.ok("click_ax", json!({"ref_id": field})).await;
    wait_for_text(
        session,
        "has focus: true, focus events: 1, focusin events: 1",
    )
    .await;

    session.ok("select_tab", json!({"tabId": first_tab})).await;
    wait_for_text(session, "has focus: true").await;
    session.ok("close_tab", json!({"tabId": second_tab})).await;
    session.ok("select_tab", json!({"tabId": first_tab})).await;
    wait_for_text(session, "has focus: true").await;
}

/// A control drawn over by a part of itself is clicked as a person would click it: a Lit check
/// box whose input lies under its styled box inside its label (as Shoelace's), a Lit switch
/// whose track lies over its input in the same web component, and a plain check box under a box
/// inside its label; a foreign overlay still refuses, naming itself, and nothing is clicked
/// (extension/content/dom/own-part.js, the one rule of both input paths).
pub async fn a_control_covered_by_its_own_part_is_clicked(session: &LaunchedMcp) {
    let name = session.browser.name();
    let url = fixtures().url("/pages/bridge/own-part-covers.html");
    session.ok("navigate", json!({"url": url})).await;
    for (role, label, state) in [
        ("checkbox", "Newsletter", "newsletter: on"),
        ("switch", "Dark mode", "dark-mode: on"),
        ("checkbox", "I accept the terms", "terms: on"),
    ] {
        let control = session.ref_of(role, label).await;
        let clicked = session.ok("click_ax", json!({"ref_id": control})).await;
        assert_eq!(clicked["method"], "bidi", "{name}: {label}: {clicked}");
        wait_for_text(session, state).await;
    }
    let delete = session.ref_of("button", "Delete everything").await;
    let refused = session
        .refused(
            "click_ax",
            json!({"ref_id": delete}),
            "not_actionable",
            std::time::Duration::from_secs(20),
        )
        .await;
    let message = refused["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("promo-overlay") && message.contains("Special offer"),
        "{name}: {refused}"
    );
    assert!(session.tree_text().await.contains("deletes: 0"), "{name}");
}
