//! Everything a person can click gets a reference (issue 30, items 1-3), through the built
//! extension in a real browser: the gatherer reads each element's own `cursor: pointer` (fact
//! bit `CURSOR_POINTER`), so that a row, a tree item, a word in a paragraph and a CSS icon whose
//! only behaviour is a script listener print with a reference, and click_ax on each of them
//! reaches the page's listener. The native cases are in crates/allwright-ax/tests/clickables.rs.
//! Fixture: fixtures/pages/clickables.html (records each click in `window.fixtureState.clicks`).

use serde_json::{json, Value};

use crate::support::{fixtures, line_starting, reference_of, Session};

pub async fn everything_a_person_can_click_has_a_reference_that_clicks(session: &Session) {
    let browser = session.browser.name();
    session
        .open(&fixtures().url("/pages/clickables.html"))
        .await;
    let result = session.ok("get_accessibility_tree", json!({})).await;
    let tree = result["tree"].as_str().expect("tree");
    // The words inside the row inherit its pointer: one line, one reference.
    line_starting(tree, "clickable \"Doroteya Admin\" [ref_", browser);
    assert!(
        !tree.contains("clickable \"Doroteya\""),
        "{browser}:\n{tree}"
    );
    // The clickable word keeps its place between the words around it.
    let paragraph: Vec<&str> = tree
        .lines()
        .map(str::trim_start)
        .skip_while(|line| !line.starts_with("paragraph \"Reply to\""))
        .take(3)
        .collect();
    assert!(
        paragraph.len() == 3
            && paragraph[1].starts_with("clickable \"tora\" [ref_")
            && paragraph[2] == "text \"about the trip.\"",
        "{browser}: {paragraph:?}\n{tree}"
    );
    line_starting(tree, "clickable [ref_", browser);
    assert!(
        line_starting(tree, "clickable [ref_", browser).ends_with("] hint=\"reply\""),
        "{browser}:\n{tree}"
    );
    assert!(
        line_starting(tree, "listitem \"Documents\" [ref_", browser).ends_with("] collapsed"),
        "{browser}:\n{tree}"
    );
    // Nothing to click, nothing printed but its words.
    line_starting(tree, "text \"Plain words\"", browser);
    let targets = [
        ("clickable \"Doroteya Admin\"", "row-doroteya"),
        ("clickable \"Submit form\"", "fake-submit"),
        ("listitem \"Chas\"", "item-chas"),
        ("clickable \"tora\"", "user-tora"),
        ("clickable [ref_", "icon-reply"),
        ("listitem \"Documents\"", "folder-documents"),
    ];
    for (line, _) in targets {
        let reference = reference_of(tree, line);
        session.ok("click_ax", json!({"ref_id": reference})).await;
    }
    let clicks = session.evaluate_json("window.fixtureState.clicks").await;
    let expected: Vec<Value> = targets.iter().map(|(_, id)| json!(id)).collect();
    assert_eq!(clicks, Value::Array(expected), "{browser}:\n{tree}");
}

/// The frame id printed on the first `iframe` line of a text tree (`iframe "..." frameId=N`).
fn frame_id_on_iframe_line(tree: &str, browser: &str) -> i64 {
    line_starting(tree, "iframe", browser)
        .split("frameId=")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|number| number.parse().ok())
        .unwrap_or_else(|| panic!("{browser}: no frameId on the iframe's line:\n{tree}"))
}

/// Issue 30, item 1: an element whose only behaviour is a listener a script added (no pointer
/// cursor, no handler attribute, no role) prints a reference that clicks, whatever the element
/// and however the listener came: addEventListener on a div, a span and a list item, a row
/// created after load, an open shadow root's element, a same-origin frame's, a press
/// (mousedown) or pointer press only, an `onclick` property. What stays a line of text: the
/// children of listeners on the document and the body (delegation), and of a root that listens
/// to every event type (a framework's delegation root); an element removed after it got its
/// listener costs nothing. The recorder is content/click-listener-recorder.js (docs/protocol/reading.md,
/// "Generic elements that keep their line: clickables").
pub async fn click_listeners_give_references_where_the_page_added_them(session: &Session) {
    let browser = session.browser.name();
    session
        .open(&fixtures().url("/pages/click-listeners.html"))
        .await;
    // The late row comes 50 ms after load.
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(10);
    while session
        .evaluate_json("window.fixtureState.lateRowAdded === true")
        .await
        != json!(true)
    {
        assert!(
            tokio::time::Instant::now() < deadline,
            "{browser}: the late row never came"
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    let result = session.ok("get_accessibility_tree", json!({})).await;
    let tree = result["tree"].as_str().expect("tree");
    for line in [
        "clickable \"Open Doroteya\" [ref_",
        "listitem \"Chas\" [ref_",
        "clickable \"Late row\" [ref_",
        "clickable \"Shadow row\" [ref_",
        "clickable \"Press me\" [ref_",
        "clickable \"Point at me\" [ref_",
        "clickable \"Property handler\" [ref_",
    ] {
        line_starting(tree, line, browser);
    }
    // A span keeps its place in its sentence.
    let paragraph: Vec<&str> = tree
        .lines()
        .map(str::trim_start)
        .skip_while(|line| !line.starts_with("paragraph \"Written by\""))
        .take(3)
        .collect();
    assert!(
        paragraph.len() == 3
            && paragraph[1].starts_with("clickable \"Evander\" [ref_")
            && paragraph[2] == "text \"yesterday.\"",
        "{browser}: {paragraph:?}\n{tree}"
    );
    // Delegation and plain content: words only, no reference.
    let unmarked = [
        "Plain item",
        "Delegated child",
        "Framework child",
        "Plain words",
    ];
    for words in unmarked {
        let line = tree
            .lines()
            .find(|line| line.contains(&format!("\"{words}\"")))
            .unwrap_or_else(|| panic!("{browser}: no line with {words:?}:\n{tree}"));
        assert!(!line.contains("[ref_"), "{browser}: {line}\n{tree}");
    }
    assert!(!tree.contains("Removed row"), "{browser}:\n{tree}");
    assert!(
        !tree
            .lines()
            .any(|line| line.trim_start().starts_with("clickable [ref_")),
        "{browser}: no nameless clickable (a delegation root would print one):\n{tree}"
    );
    let targets = [
        ("clickable \"Open Doroteya\"", "listener-div"),
        ("clickable \"Evander\"", "listener-span"),
        ("listitem \"Chas\"", "listener-li"),
        ("clickable \"Late row\"", "late-row"),
        ("clickable \"Shadow row\"", "shadow-row"),
        ("clickable \"Press me\"", "mousedown-only"),
        ("clickable \"Point at me\"", "pointerdown-only"),
        ("clickable \"Property handler\"", "onclick-property"),
    ];
    for (line, _) in targets {
        let reference = reference_of(tree, line);
        session.ok("click_ax", json!({"ref_id": reference})).await;
    }
    // The same-origin frame's own recorder.
    let frame_id = frame_id_on_iframe_line(tree, browser);
    let frame = session
        .ok("iframe_read", json!({"frameId": frame_id}))
        .await;
    let frame_tree = frame["tree"].as_str().expect("frame tree");
    let frame_row = reference_of(frame_tree, "clickable \"Frame row\"");
    session
        .ok(
            "iframe_click",
            json!({"frameId": frame_id, "ref_id": frame_row}),
        )
        .await;
    let clicks = session.evaluate_json("window.fixtureState.clicks").await;
    let mut expected: Vec<Value> = targets.iter().map(|(_, id)| json!(id)).collect();
    expected.push(json!("frame-row"));
    assert_eq!(clicks, Value::Array(expected), "{browser}:\n{tree}");
}

/// The recorder pins no element (content/click-listener-recorder.js keeps WeakRefs, a WeakSet
/// and a WeakMap): elements that got a click listener and were removed are collected, across a
/// read that asked the recorder for its elements. Chromium only, started with
/// `--js-flags=--expose-gc` (the page's `gc()`); WeakRefs hold their target until the end of the
/// task that made them (ECMAScript, "AddToKeptObjects"), so each step is its own evaluation.
pub async fn the_click_listener_recorder_pins_no_element(session: &Session) {
    session
        .open(&fixtures().url("/pages/click-listeners.html"))
        .await;
    session
        .evaluate(
            "(() => { window.__probes = []; for (let index = 0; index < 20; index += 1) {              const row = document.createElement('div'); row.textContent = 'Probe ' + index;              row.addEventListener('click', () => {}); document.body.append(row);              window.__probes.push(new WeakRef(row)); } return true; })()",
        )
        .await;
    let result = session.ok("get_accessibility_tree", json!({})).await;
    let tree = result["tree"].as_str().expect("tree");
    line_starting(tree, "clickable \"Probe 19\" [ref_", "chromium");
    // Removed, and no longer printed by a read (the registry releases what no read printed).
    session
        .evaluate("for (const probe of window.__probes) probe.deref()?.remove(); true")
        .await;
    session.ok("get_accessibility_tree", json!({})).await;
    // Up to 6 s: the registry writes its maps in a task of its own after a read
    // (content/tree/registry.js, `pendingRegistrations`), and on a loaded CI machine that task and
    // the collection may come late; the rehearsal of stop 39 once saw one row alive after 2 s.
    let mut live = Value::Null;
    for _ in 0..30 {
        session.evaluate("gc(); true").await;
        live = session
            .evaluate_json("window.__probes.filter((probe) => probe.deref() !== undefined).length")
            .await;
        if live == json!(0) {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    }
    assert_eq!(live, json!(0), "removed rows still alive after gc()");
}
