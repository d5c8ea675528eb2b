//! What the gatherer reads, checked through the tree an agent gets (fixtures/pages/styles/):
//! - the style of elements under a `<select>` is read after the walk
//!   (extension/content/tree/facts.js, STYLE_READ_DEFERRED), so whether they are rendered, and
//!   the boxes of the elements around them, must come out as a read in tree order gives them
//!   (under-select.html: drop-downs and a list box between closed details and
//!   content-visibility subtrees, with options hidden every way a page hides them);
//! - `visibility` and `overflow` are read only where something may set them (facts.js,
//!   STYLE_READS_BY_RULES), so every way a page sets them must still show
//!   (visibility-and-overflow.html), and the page must read the same when its rules make the
//!   gatherer read them everywhere.

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
    // Neither are the far drop-down and its option, which has no box of its own (the browser
    // answers an empty rectangle at the viewport's origin for it; the core then judges it by
    // its select).
    for off_screen in ["Far below", "Far drop-down", "Far option"] {
        assert!(
            !visible_tree.contains(off_screen),
            "{browser}: {off_screen:?} is off screen:\n{visible_tree}"
        );
    }
}

/// The tree of visibility-and-overflow.html: every element hidden by a class, an at-media rule,
/// an inline style, an SVG attribute, a CSS or a script animation, or a shadow tree's sheet is
/// left out, the elements shown again inside a hidden one are kept, and the lists that scroll
/// (by a class, an inline style, the other axis's `hidden`, a shadow tree's sheet) print their
/// reference while the clipped and the plain ones do not.
const VISIBILITY_AND_OVERFLOW_TREE: &str = "main
 heading \"Visibility and overflow\" level=\"1\"
 button \"Shown again by a class\" [ref]
 text \"shown span\"
 image \"Shown chart\" [ref]
 button \"Slotted and shown\" [ref]
 button \"Shown inside the shadow tree\" [ref]
 list \"Scrolls inside the shadow tree\" [ref]
  listitem \"One\"
  listitem \"Two\"
 list \"Scrolls by a class\" [ref]
  listitem \"One\"
  listitem \"Two\"
 list \"Scrolls by its style\" [ref]
  listitem \"One\"
  listitem \"Two\"
 list \"Scrolls by the other axis\" [ref]
  listitem \"One\"
  listitem \"Two\"
 list \"Clipped\"
  listitem \"One\"
  listitem \"Two\"
 list \"Plain\"
  listitem \"One\"
  listitem \"Two\"
 button \"Shown at the end\" [ref]";

pub async fn visibility_and_overflow_show_however_a_page_sets_them(session: &Session) {
    let browser = session.browser.name();
    // Read as the gatherer reads most pages (the two properties where rules reach), then with a
    // nested rule that makes it read them on every element.
    for query in ["", "?nested"] {
        session
            .open(&fixtures().url(&format!(
                "/pages/styles/visibility-and-overflow.html{query}"
            )))
            .await;
        let result = session
            .ok("get_accessibility_tree", json!({"filter": "all"}))
            .await;
        let tree = result["tree"].as_str().expect("a tree string");
        assert_eq!(
            without_refs(tree),
            VISIBILITY_AND_OVERFLOW_TREE,
            "{browser}, query {query:?}:\n{tree}"
        );
    }
}
