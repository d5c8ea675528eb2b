//! Safety under hostile pages and unlucky timing (issue 12; docs/protocol.md, "A ref means one
//! element" and the sections after it), as an agent meets them: through `allwright mcp`, in both
//! browsers. Each check also reads the page's own count of what happened, so a refusal is proved
//! to have reached nothing.

use std::time::Duration;

use serde_json::{json, Value};

use crate::actions::{find_ref, ref_of};
use crate::support::{fixtures, Browser, Session};

async fn open_safety(session: &Session, page: &str) {
    session
        .open(&fixtures().url(&format!("/pages/safety/{page}")))
        .await;
}

async fn page_state(session: &Session) -> Value {
    session.evaluate_json("window.fixtureState ?? null").await
}

/// The BiDi context of the tab whose URL contains `url_part`.
async fn context_of_tab(session: &Session, url_part: &str) -> String {
    let (bidi, _) = session.bidi();
    let tree = bidi
        .command("browsingContext.getTree", json!({"maxDepth": 0}))
        .await
        .expect("browsingContext.getTree");
    tree["contexts"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|context| {
            context["url"]
                .as_str()
                .is_some_and(|url| url.contains(url_part))
        })
        .and_then(|context| context["context"].as_str())
        .unwrap_or_else(|| panic!("no tab shows {url_part}: {tree}"))
        .to_string()
}

/// A ref names one element: refused with `ref_changed` once its role or name changed (the
/// re-rendered row now deletes another message), with `ref_not_found` in another tab and after
/// a navigation; never an action on another element.
pub async fn refs_name_one_element_of_one_tab_and_document(session: &Session) {
    let browser = session.browser.name();
    open_safety(session, "refs.html?tab=first").await;
    let row = ref_of(session, "button", "Delete message from Alice").await;
    let toggle = ref_of(session, "button", "Notifications").await;
    let plain = ref_of(session, "button", "Plain button").await;
    let search = ref_of(session, "textbox", "Search").await;

    // The page re-renders the row in place: the same element now deletes Bob's message.
    session.evaluate("window.relabelFirstRow()").await;
    let refused = session
        .call("click_ax", json!({"ref_id": row}))
        .await
        .expect_err("a relabelled target is refused");
    assert_eq!(refused.code(), "ref_changed", "{browser}: {}", refused.0);
    assert_eq!(
        refused.0["changed"],
        json!({"ref": row, "was": {"role": "button", "name": "Delete message from Alice"},
               "now": {"role": "button", "name": "Delete message from Bob"}}),
        "{browser}: {}",
        refused.0
    );
    let message = refused.0["message"].as_str().unwrap_or("");
    assert!(
        message.contains("Delete message from Bob"),
        "{browser}: {message}"
    );
    assert!(
        !refused.0["suggestions"]
            .as_array()
            .is_none_or(Vec::is_empty),
        "{browser}: suggestions: {}",
        refused.0
    );
    assert_eq!(
        page_state(session).await["clicks"],
        json!({}),
        "{browser}: nothing was clicked"
    );
    // The refusal told the agent the new name: the same ref now acts on the element as it is.
    let clicked = session.ok("click_ax", json!({"ref_id": row})).await;
    assert_eq!(
        clicked["name"], "Delete message from Bob",
        "{browser}: {clicked}"
    );
    assert_eq!(page_state(session).await["clicks"]["row-1"], 1, "{browser}");

    // A role change is refused the same way, by the other actions too.
    session.evaluate("window.turnToggleIntoSwitch()").await;
    let refused = session
        .call("press_key", json!({"ref_id": toggle, "key": "Enter"}))
        .await
        .expect_err("a target whose role changed is refused");
    assert_eq!(refused.code(), "ref_changed", "{browser}: {}", refused.0);
    assert_eq!(
        refused.0["changed"]["now"]["role"], "switch",
        "{browser}: {}",
        refused.0
    );
    assert!(
        page_state(session).await["clicks"].get("toggle").is_none(),
        "{browser}"
    );
    // An unchanged target acts as before.
    let typed = session
        .ok("type_ax", json!({"ref_id": search, "text": "invoices"}))
        .await;
    assert_eq!(typed["name"], "Search", "{browser}: {typed}");

    // Another tab: the ref was printed in the first tab, and the second tab's page is the same.
    let tabs = session.ok("list_tabs", json!({})).await;
    let first_tab = tabs["tabs"]
        .as_array()
        .and_then(|tabs| tabs.iter().find(|tab| tab["active"] == true))
        .and_then(|tab| tab["tabId"].as_i64())
        .expect("the active tab");
    let second = session
        .ok(
            "new_tab",
            json!({"url": fixtures().url("/pages/safety/refs.html?tab=second")}),
        )
        .await;
    let second_tab = second["tabId"].as_i64().expect("tab id");
    let second_tree = session
        .ok("get_accessibility_tree", json!({"tabId": second_tab}))
        .await;
    let second_plain = find_ref(
        second_tree["tree"].as_str().unwrap_or(""),
        "button",
        "Plain button",
    )
    .expect("the second tab's button");
    assert_ne!(
        second_plain, plain,
        "{browser}: ref numbers are unique across tabs"
    );
    for tool in ["click_ax", "hover"] {
        let refused = session
            .call(tool, json!({"ref_id": plain, "tabId": second_tab}))
            .await
            .expect_err("a ref of another tab is refused");
        assert_eq!(
            refused.code(),
            "ref_not_found",
            "{browser} {tool}: {}",
            refused.0
        );
        let message = refused.0["message"].as_str().unwrap_or("");
        assert!(
            message.contains(&format!("tab {first_tab}")),
            "{browser} {tool}: the message names the tab that printed it: {message}"
        );
    }
    let second_context = context_of_tab(session, "tab=second").await;
    let second_state = session
        .evaluate_json_in(&second_context, "window.fixtureState")
        .await
        .expect("the second tab's state");
    assert_eq!(
        second_state["clicks"],
        json!({}),
        "{browser}: nothing clicked in the second tab"
    );
    session.ok("close_tab", json!({"tabId": second_tab})).await;
    session.ok("select_tab", json!({"tabId": first_tab})).await;

    // A navigation: the old document's refs name nothing in the new one, even on the same page.
    open_safety(session, "refs.html?tab=third").await;
    let refused = session
        .call("click_ax", json!({"ref_id": plain}))
        .await
        .expect_err("a ref of the previous document is refused");
    assert_eq!(refused.code(), "ref_not_found", "{browser}: {}", refused.0);
    let refused = session
        .call("type_ax", json!({"ref_id": search, "text": "x"}))
        .await
        .expect_err("a ref of the previous document is refused");
    assert_eq!(refused.code(), "ref_not_found", "{browser}: {}", refused.0);
    let state = page_state(session).await;
    assert_eq!(state["tab"], "third", "{browser}: {state}");
    assert_eq!(state["clicks"], json!({}), "{browser}: {state}");
    let value = session
        .evaluate("document.getElementById('search').value")
        .await;
    assert_eq!(value, "", "{browser}: nothing typed in the new document");
}

/// Chrome's trusted fallback re-checks, after the debugger attached, that the element is still
/// the top one at the point: a page that lays another button over it the moment it is marked
/// gets no trusted click at all (not_actionable, naming the cover). Firefox stays synthetic.
pub async fn trusted_click_rechecks_its_target_after_attaching(session: &Session) {
    let browser = session.browser.name();
    open_safety(session, "trusted-swap.html").await;
    let target = ref_of(session, "button", "Open details").await;
    let outcome = session.call("click_ax", json!({"ref_id": target})).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    let state = page_state(session).await;
    assert_eq!(
        state["decoyClicks"], 0,
        "{browser}: the cover was never clicked: {state}"
    );
    assert_eq!(state["trustedClicks"], 0, "{browser}: {state}");
    assert_eq!(
        state["ignoredClicks"], 1,
        "{browser}: one synthetic click: {state}"
    );
    match session.browser {
        Browser::Chromium => {
            let refused = outcome.expect_err("the trusted click is aborted");
            assert_eq!(refused.code(), "not_actionable", "{browser}: {}", refused.0);
            let message = refused.0["message"].as_str().unwrap_or("");
            assert!(
                message.contains("another element is on top") && message.contains("button#decoy"),
                "{browser}: {message}"
            );
            assert_eq!(
                state["decoyShown"], true,
                "{browser}: the page reacted to the marker: {state}"
            );
        }
        Browser::Firefox => {
            let clicked = outcome.expect("Firefox's synthetic click");
            assert_eq!(clicked["method"], "synthetic", "{browser}: {clicked}");
            assert_eq!(state["decoyShown"], false, "{browser}: {state}");
        }
    }
}

/// Secret fields filled on load, then typed into by an agent with `clear: false` and a trailing
/// newline: no value, autofilled or typed, reaches the tree, the snapshot, an action's result or
/// hints, or the host's log, which is private (0600).
pub async fn secrets_never_leave_the_page(session: &Session) {
    let browser = session.browser.name();
    open_safety(session, "secrets.html").await;
    let leaks = |text: &str| text.contains("autofill-secret") || text.contains("typed-secret");

    let tree = session.ok("get_accessibility_tree", json!({})).await;
    let tree_text = tree["tree"].as_str().unwrap_or("");
    assert!(
        tree_text.contains("visible-nickname"),
        "{browser}: ordinary values are printed: {tree_text}"
    );
    assert!(
        !leaks(&tree.to_string()),
        "{browser}: the tree: {tree_text}"
    );
    for format in ["json", "yaml"] {
        let snapshot = session
            .ok("accessibility_snapshot", json!({"format": format}))
            .await;
        let text = snapshot["snapshot"].as_str().unwrap_or("");
        assert!(
            text.contains("visible-nickname"),
            "{browser} {format}: {text}"
        );
        assert!(!leaks(text), "{browser}: the {format} snapshot: {text}");
    }

    let fields = [
        ("password", "Password", "type_ax"),
        ("new-password", "New password", "set_field"),
        ("card", "Card number", "type_ax"),
        ("csc", "Security code", "set_field"),
        ("otp", "One-time code", "type_ax"),
        ("pin", "PIN", "type_ax"),
        ("phrase", "Recovery phrase", "set_field"),
    ];
    let tree_text = tree_text.to_string();
    for (index, (id, label, tool)) in fields.into_iter().enumerate() {
        let reference = find_ref(&tree_text, "textbox", label)
            .unwrap_or_else(|| panic!("{browser}: no textbox \"{label}\":\n{tree_text}"));
        let text = format!("typed-secret-{index}\n");
        let result = session
            .ok(
                tool,
                json!({"ref_id": reference, "text": text, "clear": false}),
            )
            .await;
        assert!(
            !leaks(&result.to_string()),
            "{browser} {tool} into {id}: {result}"
        );
        assert_eq!(result["sensitive"], true, "{browser} {id}: {result}");
        let value = session
            .evaluate(&format!("document.getElementById('{id}').value"))
            .await;
        assert!(
            value
                .as_str()
                .is_some_and(|value| value.contains(&format!("typed-secret-{index}"))),
            "{browser}: {tool} typed into {id}: {value}"
        );
    }
    // The same fields read again, now holding typed text.
    let again = session.ok("get_accessibility_tree", json!({})).await;
    assert!(
        !leaks(&again.to_string()),
        "{browser}: the tree after typing: {again}"
    );

    let log_path = session.folder().join("host.log");
    let log = std::fs::read_to_string(&log_path).unwrap_or_default();
    assert!(!leaks(&log), "{browser}: the host log:\n{log}");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&log_path)
            .expect("the host log")
            .permissions()
            .mode()
            & 0o777;
        assert_eq!(mode, 0o600, "{browser}: the host log is private");
    }
}
