//! The text tree's compactness rules (issue 13) and its escaping of hostile page text (issue 12,
//! item 6), through the built extension in a real browser: names and values come from the
//! browser's DOM (an `<svg>` with a `<title>` in a button, `<label>` association, range inputs),
//! so the native tests of `crates/allwright-ax/tests/tree_text.rs` are checked again where the
//! page path matters. Fixture: fixtures/pages/compact-tree.html.

use serde_json::{json, Value};

use crate::support::snapshot_checks::{expect_node, top_root};
use crate::support::{fixtures, line_starting, Session};

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
    line_starting(tree, "group \"Shipping\"", browser);
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
    // A line holds at most its own reference (text lines none), and every control's line holds
    // exactly one: page text adds none (docs/protocol/reading.md, "Which lines print their reference").
    const CONTROLS: [&str; 6] = [
        "button ",
        "link ",
        "textbox ",
        "checkbox ",
        "slider ",
        "tab ",
    ];
    for line in tree.lines() {
        let references = line.matches("[ref_").count();
        let content = line.trim_start();
        if content.starts_with("text \"") {
            assert_eq!(references, 0, "{browser}: {line}");
        } else if CONTROLS.iter().any(|role| content.starts_with(role)) {
            assert_eq!(references, 1, "{browser}: {line}");
        } else {
            assert!(references <= 1, "{browser}: {line}");
        }
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

/// The line that starts (after its indentation) exactly with `start` and has nothing after it.
fn has_exact_line(tree: &str, line: &str) -> bool {
    tree.lines().any(|printed| printed.trim_start() == line)
}

/// Which lines print their reference (docs/protocol/reading.md, "Which lines print their reference"),
/// as an agent meets them: what it acts on has a ref, what it only reads has none, the tools that
/// take a ref work with the printed ones (hover opens a menu, select_option picks an option whose
/// line has no ref), and a ref the registry numbered without printing it (a heading, as an older
/// read printed it) still anchors a read. Fixture: fixtures/pages/compact-refs.html.
pub async fn references_only_where_an_agent_can_use_them(session: &Session) {
    let browser = session.browser.name();
    session
        .open(&fixtures().url("/pages/compact-refs.html"))
        .await;
    let result = session.ok("get_accessibility_tree", json!({})).await;
    let tree = result["tree"].as_str().expect("tree");
    // Read-only lines print no reference.
    for bare in [
        "heading \"Account settings\" level=\"1\"",
        "paragraph \"Read\"",
        "list \"Tips\"",
        "listitem \"Save often\"",
        "option \"North\"",
        "option \"East\"",
        "option \"South\"",
    ] {
        assert!(
            has_exact_line(tree, bare),
            "{browser}: no line {bare:?}:\n{tree}"
        );
    }
    // What the agent acts on or passes to a tool does.
    for with_reference in [
        "main [ref_",
        "link \"the terms\" [ref_",
        "list \"Recent activity\" [ref_",
        "combobox \"Region\" [ref_",
        "link \"Home\" [ref_",
        "image \"Usage chart\" [ref_",
    ] {
        line_starting(tree, with_reference, browser);
    }
    // The image inside the home link repeats the link: no line of its own.
    assert!(!tree.contains("image \"Home\""), "{browser}:\n{tree}");
    assert!(!has_exact_line(tree, "image"), "{browser}:\n{tree}");
    // Every element the agent can act on has its reference: the hover trigger (aria-haspopup
    // on a list item) and the roving-tabindex item print theirs; their words follow as text.
    let lines: Vec<&str> = tree.lines().collect();
    for words in ["text \"Profile\"", "text \"Roving shortcut\""] {
        let position = lines
            .iter()
            .position(|line| line.trim_start() == words)
            .unwrap_or_else(|| panic!("{browser}: no {words}:\n{tree}"));
        assert!(
            lines[position - 1]
                .trim_start()
                .starts_with("listitem [ref_"),
            "{browser}: the item before {words} has no ref:\n{tree}"
        );
    }
    let profile_line = lines[lines
        .iter()
        .position(|line| line.trim_start() == "text \"Profile\"")
        .expect("profile")
        - 1];
    let profile = crate::support::reference_of(profile_line, "listitem");
    // hover opens the menu the trigger announces; it comes first, under the overlays banner.
    session.ok("hover", json!({"ref_id": profile})).await;
    let after_hover = session.ok("get_accessibility_tree", json!({})).await;
    let after_hover = after_hover["tree"].as_str().expect("tree");
    assert!(
        after_hover.starts_with("[open overlays]\nmenu \"Profile menu\" [ref_"),
        "{browser}:\n{after_hover}"
    );
    // select_option picks an option whose line prints no reference, through its select's.
    let region = crate::support::reference_of(tree, "combobox \"Region\"");
    session
        .ok("select_option", json!({"ref_id": region, "label": "East"}))
        .await;
    let after_select = session.ok("get_accessibility_tree", json!({})).await;
    let after_select = after_select["tree"].as_str().expect("tree");
    line_starting(after_select, "combobox \"Region\" [ref_", browser);
    assert!(
        line_starting(after_select, "combobox \"Region\" [ref_", browser)
            .contains("value=\"East\""),
        "{browser}:\n{after_select}"
    );
    // The registry numbers every element as before, printed or not: the heading right after
    // `main` holds the next number, and an agent that passes it (as an older read printed it)
    // reads the heading anchored, its reference on its line.
    let main = crate::support::reference_of(tree, "main");
    let main_number: u64 = main["ref_".len()..].parse().expect("a ref number");
    let heading = format!("ref_{}", main_number + 1);
    let anchored = session
        .ok("get_accessibility_tree", json!({"ref_id": heading}))
        .await;
    assert_eq!(
        anchored["tree"].as_str().expect("tree"),
        format!("heading \"Account settings\" [{heading}] level=\"1\""),
        "{browser}"
    );
}

/// A scroll container prints its reference (the `scroll` tool takes it) whichever axis scrolls:
/// the gatherer reads both axes from the computed `overflow` shorthand (tree/facts.js,
/// isScrollContainer), and `overflow-x: clip` beside `overflow-y: auto` computes to `hidden auto`
/// (CSS Overflow 3), a container that scrolls. A clipped or plain short list prints none.
pub async fn scroll_containers_on_either_axis_print_their_reference(session: &Session) {
    let browser = session.browser.name();
    session
        .open(&fixtures().url("/pages/scroll-axes.html"))
        .await;
    let result = session.ok("get_accessibility_tree", json!({})).await;
    let tree = result["tree"].as_str().expect("tree");
    for scrolling in [
        "list \"Sideways\" [ref_",
        "list \"Downwards\" [ref_",
        "list \"Both ways\" [ref_",
        "list \"Clipped sideways\" [ref_",
    ] {
        line_starting(tree, scrolling, browser);
    }
    for bare in ["list \"Clipped\"", "list \"Plain\""] {
        assert!(
            has_exact_line(tree, bare),
            "{browser}: no line {bare:?} without a reference:\n{tree}"
        );
    }
    // The reference acts: the sideways list scrolls sideways.
    let sideways = crate::support::reference_of(tree, "list \"Sideways\"");
    let scrolled = session
        .ok(
            "scroll",
            json!({"ref_id": sideways, "direction": "right", "amount": 30}),
        )
        .await;
    assert_eq!(scrolled["target"], "element", "{browser}: {scrolled}");
    assert_eq!(scrolled["after"]["x"], 30, "{browser}: {scrolled}");
}
