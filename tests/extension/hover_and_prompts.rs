//! hover's synthetic pointer in the user's own browser (the boundary events a real pointer
//! causes, on the ancestors it enters and leaves, across a shadow boundary; the notice when CSS
//! `:hover` cannot be applied), and a click that opens an alert: `page_blocked` (or, while
//! Chrome's debugger is attached, `dialog_open`), not a timeout (docs/protocol.md).

use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::actions::{open, ref_of, state, state_when};
use crate::support::{strings, Session};

/// The recorded events from index `from` on: [type, target id, relatedTarget id, pointerId,
/// pointerType, isPrimary, clientX, clientY] (fixtures/pages/actions/hover-menus.html).
async fn events_since(session: &Session, from: usize) -> Vec<Value> {
    state(session).await["events"]
        .as_array()
        .map(|events| events.iter().skip(from).cloned().collect())
        .unwrap_or_default()
}

/// The target ids of the events of one type, in order, leaving out elements without an id.
fn targets_of(events: &[Value], kind: &str) -> Vec<String> {
    events
        .iter()
        .filter(|event| event[0] == kind)
        .filter_map(|event| event[1].as_str())
        .filter(|id| !id.is_empty())
        .map(str::to_owned)
        .collect()
}

fn first_index(events: &[Value], kind: &str) -> usize {
    events
        .iter()
        .position(|event| event[0] == kind)
        .unwrap_or_else(|| panic!("no {kind} in {events:?}"))
}

pub async fn hover_enters_ancestors_and_reports_css_hover(session: &Session) {
    let browser = session.browser.name();
    open(session, "hover-menus").await;

    // From outside the page onto the inner button of a wrapper that listens for mouseenter.
    let files = ref_of(session, "button", "Files").await;
    let hovered = session.ok("hover", json!({"ref_id": files})).await;
    assert_eq!(hovered["progress"], "observed", "{browser}: {hovered}");
    assert!(hovered.get("cssHover").is_none(), "{browser}: {hovered}");
    let after_files = state_when(session, "the Files menu opened", |state| {
        state["filesOpen"] == true
    })
    .await;
    let events = events_since(session, 0).await;
    let order = [
        "pointerover",
        "pointerenter",
        "mouseover",
        "mouseenter",
        "pointermove",
        "mousemove",
    ]
    .map(|kind| first_index(&events, kind));
    assert!(
        order.windows(2).all(|pair| pair[0] < pair[1]),
        "{browser}: the order of {events:?}"
    );
    // Enter events go to every element entered, outermost first.
    assert_eq!(
        targets_of(&events, "pointerenter"),
        ["files-wrapper", "files"],
        "{browser}"
    );
    assert_eq!(
        targets_of(&events, "mouseenter"),
        ["files-wrapper", "files"],
        "{browser}"
    );
    assert_eq!(targets_of(&events, "mouseover"), ["files"], "{browser}");
    let box_of_files = session
        .evaluate_json("document.getElementById('files').getBoundingClientRect()")
        .await;
    for event in events.iter().filter(|event| {
        event[0]
            .as_str()
            .is_some_and(|kind| kind.starts_with("pointer"))
    }) {
        assert_eq!(
            event[2],
            Value::Null,
            "{browser}: from outside, no relatedTarget: {event}"
        );
        assert_eq!(
            (&event[3], &event[4], &event[5]),
            (&json!(1), &json!("mouse"), &json!(true)),
            "{browser}: {event}"
        );
        let (x, y) = (
            event[6].as_f64().unwrap_or(-1.0),
            event[7].as_f64().unwrap_or(-1.0),
        );
        let inside = |low: &str, size: &str, value: f64| {
            let start = box_of_files[low].as_f64().unwrap_or(0.0);
            value >= start && value <= start + box_of_files[size].as_f64().unwrap_or(0.0)
        };
        assert!(
            inside("x", "width", x) && inside("y", "height", y),
            "{browser}: {event} in {box_of_files}"
        );
    }

    // On to a button in a shadow tree, inside a wrapper that listens for pointerenter: the Files
    // wrapper is left (its mouseleave closes the menu), the Edit wrapper entered.
    let seen = after_files["events"].as_array().map_or(0, Vec::len);
    let edit = ref_of(session, "button", "Edit").await;
    let hovered = session.ok("hover", json!({"ref_id": edit})).await;
    assert_eq!(hovered["progress"], "observed", "{browser}: {hovered}");
    state_when(session, "Edit opened and Files closed", |state| {
        state["editOpen"] == true && state["filesOpen"] == false
    })
    .await;
    let events = events_since(session, seen).await;
    assert!(
        first_index(&events, "pointerout") < first_index(&events, "pointerover"),
        "{browser}: {events:?}"
    );
    assert_eq!(
        targets_of(&events, "pointerleave"),
        ["files", "files-wrapper"],
        "{browser}: leave goes innermost first"
    );
    assert_eq!(
        targets_of(&events, "mouseleave"),
        ["files", "files-wrapper"],
        "{browser}"
    );
    // The enter events inside the shadow tree stay there (they are not composed); the document
    // hears the wrapper and the host, outermost first.
    assert_eq!(
        targets_of(&events, "pointerenter"),
        ["edit-wrapper", "edit-host"],
        "{browser}"
    );
    let out = events
        .iter()
        .find(|event| event[0] == "mouseout")
        .expect("a mouseout");
    assert_eq!(out[1], "files", "{browser}: {out}");
    assert_eq!(
        out[2], "edit-host",
        "{browser}: relatedTarget retargeted to the host: {out}"
    );

    // A CSS-only menu: the page's listeners ran, but `:hover` cannot be applied.
    let view = ref_of(session, "button", "View").await;
    let hovered = session.ok("hover", json!({"ref_id": view})).await;
    assert_eq!(hovered["cssHover"], "not_applied", "{browser}: {hovered}");
    assert!(
        strings(&hovered["hints"])
            .iter()
            .any(|hint| hint.starts_with("css_hover_not_applied")),
        "{browser}: {hovered}"
    );
    assert_ne!(hovered["progress"], "observed", "{browser}: {hovered}");
    assert!(
        hovered["hint"]
            .as_str()
            .is_some_and(|hint| hint.contains(":hover")),
        "{browser}: {hovered}"
    );
}

/// Waits up to `patience` for the fixture's state to satisfy `wanted`.
async fn state_within(
    session: &Session,
    patience: Duration,
    wanted: impl Fn(&Value) -> bool,
) -> Value {
    let deadline = tokio::time::Instant::now() + patience;
    loop {
        let current = state(session).await;
        if wanted(&current) || tokio::time::Instant::now() > deadline {
            return current;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// A click whose handler holds the page's thread (two synchronous 8 s requests, as a page behind
/// an alert in Chromium is held) is answered with page_blocked, well before the call's time runs
/// out, and never with a bare timeout.
pub async fn click_on_a_page_that_stops_answering_is_page_blocked(session: &Session) {
    let browser = session.browser.name();
    open(session, "alert").await;
    let sync = ref_of(session, "button", "Sync save").await;
    let started = Instant::now();
    let outcome = session.call("click_ax", json!({"ref_id": sync})).await;
    let waited = started.elapsed();
    let error = match outcome {
        Err(error) => error.0,
        Ok(result) => panic!("{browser}: a held page answered the click: {result}"),
    };
    assert_eq!(error["code"], "page_blocked", "{browser}: {error}");
    for needed in ["alert", "beforeunload"] {
        assert!(
            error["message"]
                .as_str()
                .is_some_and(|message| message.contains(needed)),
            "{browser}: {error}"
        );
    }
    assert!(
        error["hint"]
            .as_str()
            .is_some_and(|hint| hint.contains("user") && hint.contains("handle_dialog")),
        "{browser}: {error}"
    );
    assert!(
        waited < Duration::from_secs(15),
        "{browser}: answered after {waited:?}"
    );
    let after = state_within(session, Duration::from_secs(20), |state| {
        state["synced"] == true
    })
    .await;
    assert_eq!(
        after["synced"], true,
        "{browser}: the page went on once released: {after}"
    );
}

/// A click whose handler opens alert(). In the user's own browser nothing dismisses it, and the
/// call comes back as page_blocked (or dialog_open, from Chrome's debugger). The tests' browsers
/// run under a WebDriver BiDi session created without `unhandledPromptBehavior`, whose default
/// ("dismiss and notify") dismisses every prompt at once (WebDriver BiDi, "User prompts"): the
/// alert then blocks nothing and the click returns normally. Either way the call never times out.
pub async fn click_that_opens_an_alert_is_never_a_timeout(session: &Session) {
    let browser = session.browser.name();
    open(session, "alert").await;
    let save = ref_of(session, "button", "Save").await;
    let started = Instant::now();
    let outcome = session.call("click_ax", json!({"ref_id": save})).await;
    let waited = started.elapsed();
    assert!(
        waited < Duration::from_secs(15),
        "{browser}: answered after {waited:?}"
    );
    match outcome {
        Err(error) => {
            let error = error.0;
            assert!(
                ["page_blocked", "dialog_open"].contains(&error["code"].as_str().unwrap_or("")),
                "{browser}: {error}"
            );
            assert!(
                session.answer_prompt(true).await,
                "{browser}: an alert was open"
            );
        }
        Ok(result) => {
            eprintln!(
                "{browser}: the test session's BiDi prompt handler dismissed the alert: {result}"
            );
        }
    }
    let after = state_within(session, Duration::from_secs(5), |state| {
        state["saved"] == true
    })
    .await;
    assert_eq!(after["saved"], true, "{browser}: {after}");
}

/// Chrome: the prompt opened by click_ax's trusted input is seen through the debugger
/// (`Page.javascriptDialogOpening`) and reported as dialog_open with its type and text. The
/// button has no listener of a click, so the fallback runs; a trusted pointer coming onto it
/// opens the prompt. The tests' BiDi session dismisses it right after; the report stands.
/// Firefox has no trusted fallback, so its synthetic input opens nothing.
pub async fn trusted_click_that_opens_an_alert_is_dialog_open(session: &Session) {
    let browser = session.browser.name();
    open(session, "alert").await;
    let notice = ref_of(session, "button", "Show notice").await;
    let outcome = session.call("click_ax", json!({"ref_id": notice})).await;
    if session.browser == crate::support::Browser::Firefox {
        let result = outcome.unwrap_or_else(|error| panic!("{browser}: {}", error.0));
        assert_eq!(result["method"], "synthetic", "{browser}: {result}");
        return;
    }
    let error = match outcome {
        Err(error) => error.0,
        Ok(result) => panic!("{browser}: the trusted click's alert was not reported: {result}"),
    };
    assert_eq!(error["code"], "dialog_open", "{browser}: {error}");
    assert_eq!(
        error["dialog"],
        json!({"type": "alert", "message": "Notice shown"}),
        "{browser}: {error}"
    );
    assert!(
        error["hint"]
            .as_str()
            .is_some_and(|hint| hint.contains("user")),
        "{browser}: {error}"
    );
    // Whoever answers the alert (here the test session's prompt handler), the page goes on.
    session.answer_prompt(true).await;
    let after = state_within(session, Duration::from_secs(5), |state| {
        state["noticed"] == true
    })
    .await;
    assert_eq!(after["noticed"], true, "{browser}: {after}");
}
