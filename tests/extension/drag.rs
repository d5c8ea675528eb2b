//! drag in the user's own browser (docs/agent-tools.md, "Dragging: drag"): the extension alone,
//! with no BiDi session in the MCP server, drags a card of an HTML5 board, a dnd-kit song and a
//! slider's thumb with its synthetic events; each check reads the page's own state. The launched
//! browser's routes (real input, and `--input synthetic`) are the drag rows of the widget matrix
//! (widgets.rs).

use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::actions::ref_of;
use crate::support::{fixtures, Session};

/// How long the page's state may take to follow a drag.
const SETTLE: Duration = Duration::from_secs(5);

/// The page's state (fixtures/apps/state.js) once `wanted` holds, or a panic naming `what`.
async fn state_when(session: &Session, wanted: impl Fn(&Value) -> bool, what: &str) -> Value {
    let deadline = Instant::now() + SETTLE;
    loop {
        let state = session.evaluate_json("window.fixtureState ?? null").await;
        if wanted(&state) {
            return state;
        }
        assert!(
            Instant::now() < deadline,
            "{}: the page never reached {what}: {state}",
            session.browser.name()
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// A drag answered by the extension's synthetic events, with progress.
async fn drag(session: &Session, arguments: Value) -> Value {
    let result = session.ok("drag", arguments.clone()).await;
    let browser = session.browser.name();
    assert!(
        result["method"]
            .as_str()
            .is_some_and(|method| method.starts_with("synthetic-")),
        "{browser}: drag({arguments}) took another route: {result}"
    );
    assert_eq!(result["progress"], "observed", "{browser}: {result}");
    result
}

pub async fn drags_in_the_users_own_browser(session: &Session) {
    let browser = session.browser.name();
    session
        .open(&fixtures().url("/pages/widgets/drag-html5.html"))
        .await;
    let card = ref_of(session, "listitem", "Design the login page").await;
    let done = ref_of(session, "listitem", "Set up the repository").await;
    let moved = drag(session, json!({ "from_ref": card, "to_ref": done })).await;
    assert_eq!(moved["method"], "synthetic-html5", "{browser}: {moved}");
    assert_eq!(
        moved["moved"]["after"]["list"], "Done",
        "{browser}: {moved}"
    );
    let state = state_when(
        session,
        |state| state["columns"]["todo"] == json!(["api"]),
        "the card in Done",
    )
    .await;
    assert_eq!(state["dataSeen"], "login", "{browser}: {state}");
    assert_eq!(
        (&state["drops"], &state["moves"], &state["dragstarts"]),
        (&json!(1), &json!(1), &json!(1)),
        "{browser}: {state}"
    );

    session
        .open(&fixtures().url("/pages/widgets/dnd-kit.html"))
        .await;
    let song = ref_of(session, "button", "Blue in Green").await;
    let last = ref_of(session, "button", "All Blues").await;
    let reordered = drag(session, json!({ "from_ref": song, "to_ref": last })).await;
    assert_eq!(
        reordered["method"], "synthetic-pointer",
        "{browser}: {reordered}"
    );
    let state = state_when(session, |state| state["moves"] == 1, "one move").await;
    assert_eq!(
        state["order"],
        json!([
            "So What",
            "Freddie Freeloader",
            "All Blues",
            "Blue in Green"
        ]),
        "{browser}: {state}"
    );

    session
        .open(&fixtures().url("/pages/widgets/drag-offset.html"))
        .await;
    let thumb = ref_of(session, "slider", "Volume").await;
    drag(
        session,
        json!({ "from_ref": thumb, "by": {"x": 66, "y": 0} }),
    )
    .await;
    let state = state_when(session, |state| state["volumeChanges"] == 1, "one change").await;
    assert!(
        state["volume"]
            .as_i64()
            .is_some_and(|volume| (49..=51).contains(&volume)),
        "{browser}: {state}"
    );
}
