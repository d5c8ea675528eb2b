//! What the gatherer reads, checked through the tree an agent gets: the style of elements under
//! a `<select>` is read after the walk (extension/content/tree/facts.js, STYLE_READ_DEFERRED),
//! so whether they are rendered, and the boxes of the elements around them, must come out as a
//! read in tree order gives them. Fixture: fixtures/pages/styles/under-select.html, drop-downs
//! and a list box between closed details and content-visibility subtrees, with options hidden
//! every way a page hides them.

use serde_json::json;

use crate::support::{fixtures, without_refs, Session};

/// The fixture's whole tree: only the shown options, under their combobox or group, the
/// uppercased option named as the browser draws it, and every skipped subtree where it stands.
const WHOLE_TREE: &str = "heading \"Styles under a select\" level=\"1\"
button \"Closed before\" [ref]
combobox \"Drop-down\" [ref] value=\"Shown option\"
 option \"Shown option\"
 group \"Shown group\"
  option \"Option in a shown group\"
 option \"QUIET WORDS\"
combobox \"Second drop-down\" [ref] value=\"Second shown\"
 option \"Second shown\"
button \"Closed between\" [ref]
listbox \"List box\" [ref]
 option \"First listed\" [ref]
 option \"Second listed\" [ref]
 option \"Third listed\" [ref]
button \"Button after the list box\" [ref]
paragraph \"Far below\"
combobox \"Far drop-down\" [ref] value=\"Far option\"
 option \"Far option\"";

pub async fn styles_under_a_select_are_read_after_the_walk(session: &Session) {
    let browser = session.browser.name();
    session
        .open(&fixtures().url("/pages/styles/under-select.html"))
        .await;
    let whole = session
        .ok("get_accessibility_tree", json!({"filter": "all"}))
        .await;
    let tree = whole["tree"].as_str().expect("a tree string");
    assert_eq!(without_refs(tree), WHOLE_TREE, "{browser}:\n{tree}");

    // The `visible` filter measures every box: the list box's options (read after the walk)
    // are on screen, and their rectangles must stay in tree order among the others, or the
    // elements after them would take the wrong boxes (the paragraph 3000 px below would take
    // an on-screen one).
    let visible = session
        .ok("get_accessibility_tree", json!({"filter": "visible"}))
        .await;
    let visible_tree = without_refs(visible["tree"].as_str().expect("a tree string"));
    for expected in [
        "listbox \"List box\" [ref]\n option \"First listed\" [ref]\n option \"Second listed\" [ref]\n option \"Third listed\" [ref]\n",
        "button \"Button after the list box\" [ref]",
    ] {
        assert!(
            visible_tree.contains(expected),
            "{browser}: {expected:?} in\n{visible_tree}"
        );
    }
    assert!(
        !visible_tree.contains("Far below"),
        "{browser}: the far paragraph is off screen:\n{visible_tree}"
    );
}
