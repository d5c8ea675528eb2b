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
