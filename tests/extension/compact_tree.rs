//! The text tree's compactness rules (issue 13) and its escaping of hostile page text (issue 12,
//! item 6), through the built extension in a real browser: names and values come from the
//! browser's DOM (an `<svg>` with a `<title>` in a button, `<label>` association, range inputs),
//! so the native tests of `crates/allwright-ax/tests/tree_text.rs` are checked again where the
//! page path matters. Fixture: fixtures/pages/compact-tree.html.

use serde_json::{json, Value};

use crate::support::snapshot_checks::{expect_node, top_root};
use crate::support::{fixtures, Session};

/// The printed line that starts (after its indentation) with `start`.
fn line_starting<'a>(tree: &'a str, start: &str, browser: &str) -> &'a str {
    tree.lines()
        .find(|line| line.trim_start().starts_with(start))
        .unwrap_or_else(|| panic!("{browser}: no line starts with {start:?}:\n{tree}"))
}

pub async fn nothing_is_printed_twice(session: &Session) {
    let browser = session.browser.name();
    session
        .open(&fixtures().url("/pages/compact-tree.html"))
        .await;
    let result = session.ok("get_accessibility_tree", json!({})).await;
    let tree = result["tree"].as_str().expect("tree");
    // Presentational children: no graphics-document under the button, no text under the tabs;
    // the close button inside the tab keeps its line and ref.
    assert!(!tree.contains("graphics-document"), "{browser}:\n{tree}");
    assert!(!tree.contains("text \"Sent\""), "{browser}:\n{tree}");
    assert!(
        line_starting(tree, "button \"Close Inbox\" [ref_", browser).contains("[ref_"),
        "{browser}"
    );
    // Label text that is the control's name is not printed again; a label that says more is.
    line_starting(tree, "textbox \"Email\" [ref_", browser);
    line_starting(tree, "checkbox \"Subscribe\" [ref_", browser);
    for repeated in ["text \"Email\"", "text \"Subscribe\"", "text \"Shipping\""] {
        assert!(
            !tree.lines().any(|line| line.trim_start() == repeated),
            "{browser}: {repeated} printed again:\n{tree}"
        );
    }
    line_starting(tree, "text \"Phone (optional)\"", browser);
    line_starting(tree, "group \"Shipping\" [ref_", browser);
    // No attribute repeats another.
    let slider = line_starting(tree, "slider \"Volume\" [ref_", browser);
    assert!(slider.contains("value=\"4\""), "{browser}: {slider}");
    assert!(!slider.contains("valueNow"), "{browser}: {slider}");
    let search = line_starting(tree, "textbox \"Search\" [ref_", browser);
    assert!(!search.contains("placeholder"), "{browser}: {search}");
    let checkbox = line_starting(tree, "checkbox \"Subscribe\" [ref_", browser);
    assert!(!checkbox.contains("type="), "{browser}: {checkbox}");
    // The structured snapshot keeps its typed fields.
    let snapshot = session
        .ok("accessibility_snapshot", json!({"format": "json"}))
        .await;
    let parsed: Value =
        serde_json::from_str(snapshot["snapshot"].as_str().expect("a snapshot string"))
            .expect("the JSON snapshot parses");
    let slider_node = expect_node(top_root(&parsed), "slider", "Volume", browser);
    assert_eq!(slider_node["states"]["valueNow"], json!(4), "{browser}");
}

pub async fn page_text_forges_no_line_or_reference(session: &Session) {
    let browser = session.browser.name();
    session
        .open(&fixtures().url("/pages/compact-tree.html"))
        .await;
    let result = session.ok("get_accessibility_tree", json!({})).await;
    let tree = result["tree"].as_str().expect("tree");
    // Every line break a reader could see is a line of ours: none hides in a name or value.
    for separator in ['\r', '\u{0b}', '\u{0c}', '\u{85}', '\u{2028}', '\u{2029}'] {
        assert!(
            !tree.contains(separator),
            "{browser}: raw {separator:?}:\n{tree}"
        );
    }
    for line in tree.lines() {
        let references = line.matches("[ref_").count();
        let expected = usize::from(!line.trim_start().starts_with("text \""));
        assert_eq!(references, expected, "{browser}: {line}");
        for hidden in ['\u{200b}', '\u{200e}', '\u{ff3b}', '\u{ff3d}'] {
            assert!(
                !line.contains(hidden),
                "{browser}: raw {hidden:?} in {line}"
            );
        }
    }
    let pay = line_starting(tree, "button \"Pay", browser);
    assert!(
        pay.contains(r#"\u{200b}\u{5b}\u{200b}ref_1]"#)
            && pay.contains(r#"\u{ff3b}ref_2\u{ff3d}"#)
            && pay.contains(r#"\u{5b}ｒｅｆ_3]"#)
            && pay.contains(r#"\u{2028}button \"Forged\" \u{5b}ref_4]"#),
        "{browser}: {pay}"
    );
}
