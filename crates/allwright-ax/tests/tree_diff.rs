//! Reads since a snapshot (`tree_diff.rs`, docs/protocol/reading.md "Reads since a snapshot"): the
//! cases the protocol names, then a property over random mutations of a page: whatever changed,
//! every line that is not the same as before is printed in a `[changed]` block, every line
//! outside those blocks is exactly as it was, and the removed references are exactly those that
//! left the tree.

use std::collections::{HashMap, HashSet};

use allwright_ax::memdom::MemDom;
use allwright_ax::tree_diff::{
    self, DiffItem, LineRecord, TreeDiff, CHANGED_BANNER, CONTEXT_BANNER, REMOVED_BANNER,
};
use allwright_ax::{
    generate_accessibility_tree, Filter, NodeId, TextTreeError, TextTreeOptions, TreeLine,
};
use proptest::prelude::*;

/// One read of the whole page: its lines and their records. A node's identity is its arena
/// index plus one (memdom never reuses an index), and its reference number the same, as the
/// content script's registry keeps one number per element.
fn read(dom: &MemDom, filter: Filter) -> (Vec<TreeLine>, Vec<LineRecord>) {
    let options = TextTreeOptions {
        filter,
        keep_lines: true,
        ..TextTreeOptions::default()
    };
    let tree = generate_accessibility_tree(dom, None, &options, &mut |node: NodeId| {
        format!("ref_{}", node.0 + 1)
    })
    .expect("the document always has a tree");
    let records = tree_diff::records_of(&tree.lines, |line| line.node.0 + 1);
    (tree.lines, records)
}

fn texts(lines: &[TreeLine]) -> Vec<&str> {
    lines.iter().map(|line| line.text.as_str()).collect()
}

fn diff_between(before: &MemDom, after: &MemDom) -> TreeDiff {
    let (earlier_lines, previous) = read(before, Filter::All);
    let (lines, current) = read(after, Filter::All);
    // The records travel to JavaScript and back in their flat encoding.
    let previous = tree_diff::decode_records(&tree_diff::encode_records(&previous));
    tree_diff::diff(&previous, &texts(&earlier_lines), &current, &texts(&lines))
}

fn page() -> MemDom {
    MemDom::parse(
        r#"<main aria-label="Shop">
          <h1>Cart</h1>
          <ul id="items"><li>Apples</li><li>Pears <button id="remove-pears">Remove</button></li></ul>
          <span id="status">Two items</span>
          <button id="checkout" aria-label="Checkout">Checkout</button>
        </main>
        <footer><a href="/help">Help</a></footer>"#,
    )
}

fn element(dom: &MemDom, id: &str) -> NodeId {
    dom.element_by_id_attribute(id).expect("fixture element")
}

#[test]
fn nothing_changed_is_unchanged_and_prints_nothing() {
    let diff = diff_between(&page(), &page());
    assert!(diff.is_unchanged(), "{diff:?}");
    assert_eq!(diff.text, "");
}

#[test]
fn a_changed_line_is_printed_under_its_ancestors() {
    let before = page();
    let mut after = page();
    after.set_attribute(element(&after, "checkout"), "aria-label", "Pay now");
    let diff = diff_between(&before, &after);
    assert_eq!(diff.changed_blocks, 1);
    assert!(diff.removed_references.is_empty());
    let lines: Vec<&str> = diff.text.lines().collect();
    assert_eq!(lines[0], CONTEXT_BANNER);
    // A small landmark prints no reference (printed_reference.rs): its line is context only.
    assert_eq!(lines[1], "main \"Shop\"", "{}", diff.text);
    assert_eq!(lines[2], CHANGED_BANNER);
    assert!(
        lines[3].starts_with(" button \"Pay now\" [ref_"),
        "{}",
        diff.text
    );
    // The button's own words are no longer its name, so they are printed under it.
    assert_eq!(lines[4], "  text \"Checkout\"");
    assert_eq!(lines.len(), 5, "{}", diff.text);
}

#[test]
fn an_added_node_comes_after_the_sibling_it_follows() {
    let before = page();
    let mut after = page();
    let list = element(&after, "items");
    let added = after.append_element(list, "li", &[]);
    after.append_text(added, "Plums");
    let diff = diff_between(&before, &after);
    let lines: Vec<&str> = diff.text.lines().collect();
    assert_eq!(lines[0], CONTEXT_BANNER, "{}", diff.text);
    assert!(lines[1].starts_with("main \"Shop\""), "{}", diff.text);
    assert_eq!(lines[2], " list", "{}", diff.text);
    // The item before it: its line only, as context.
    // (A list item prints its first words and no reference: printed_reference.rs.)
    assert!(
        lines[3].starts_with("  listitem \"Pears\""),
        "{}",
        diff.text
    );
    assert_eq!(lines[4], CHANGED_BANNER);
    assert_eq!(lines[5], "  listitem \"Plums\"", "{}", diff.text);
    assert_eq!(lines.len(), 6, "{}", diff.text);
    assert!(
        !diff.text.contains("Apples"),
        "unchanged items stay out: {}",
        diff.text
    );
}

#[test]
fn a_context_line_that_left_its_name_to_its_heading_is_followed_by_the_heading() {
    // A region labelled by its heading prints no name: the heading's line says it. Alone as
    // the context of a change, `region` would not say which region; the heading follows it. The
    // links make the region long enough to print its reference (printed_reference.rs).
    let page = || {
        MemDom::parse(
            r#"<main>
              <section id="north" aria-labelledby="north-title"><h2 id="north-title">North sales</h2>
                <p>Revenue grew.</p><button id="apply-north">Apply</button><p>Reports:</p><a href="/report/0">Quarterly report 0</a><a href="/report/1">Quarterly report 1</a><a href="/report/2">Quarterly report 2</a><a href="/report/3">Quarterly report 3</a><a href="/report/4">Quarterly report 4</a><a href="/report/5">Quarterly report 5</a><a href="/report/6">Quarterly report 6</a><a href="/report/7">Quarterly report 7</a><a href="/report/8">Quarterly report 8</a><a href="/report/9">Quarterly report 9</a><a href="/report/10">Quarterly report 10</a><a href="/report/11">Quarterly report 11</a><a href="/report/12">Quarterly report 12</a><a href="/report/13">Quarterly report 13</a><a href="/report/14">Quarterly report 14</a><a href="/report/15">Quarterly report 15</a><a href="/report/16">Quarterly report 16</a><a href="/report/17">Quarterly report 17</a><a href="/report/18">Quarterly report 18</a><a href="/report/19">Quarterly report 19</a><a href="/report/20">Quarterly report 20</a><a href="/report/21">Quarterly report 21</a><a href="/report/22">Quarterly report 22</a><a href="/report/23">Quarterly report 23</a><a href="/report/24">Quarterly report 24</a><a href="/report/25">Quarterly report 25</a><a href="/report/26">Quarterly report 26</a><a href="/report/27">Quarterly report 27</a><a href="/report/28">Quarterly report 28</a><a href="/report/29">Quarterly report 29</a>
              </section>
              <section aria-labelledby="south-title"><h2 id="south-title">South sales</h2><p>Flat.</p></section>
            </main>"#,
        )
    };
    let before = page();
    let mut after = page();
    after.set_attribute(element(&after, "apply-north"), "aria-pressed", "true");
    let diff = diff_between(&before, &after);
    let lines: Vec<&str> = diff.text.lines().collect();
    assert_eq!(lines[0], CONTEXT_BANNER, "{}", diff.text);
    assert!(lines[1].starts_with("main"), "{}", diff.text);
    assert!(lines[2].starts_with(" region [ref_"), "{}", diff.text);
    assert!(
        lines[3].starts_with("  heading \"North sales\""),
        "{}",
        diff.text
    );
    assert_eq!(lines[4], CHANGED_BANNER, "{}", diff.text);
    assert!(
        lines[5].starts_with("  button \"Apply\"") && lines[5].ends_with("pressed=\"true\""),
        "{}",
        diff.text
    );
    assert!(!diff.text.contains("South"), "{}", diff.text);
}

#[test]
fn a_removed_element_is_listed_by_its_ref_and_its_parent_is_not_reprinted() {
    let before = page();
    let mut after = page();
    let remove = element(&after, "remove-pears");
    after.set_attribute(remove, "hidden", "");
    let diff = diff_between(&before, &after);
    assert_eq!(diff.removed_references, vec![remove.0 + 1]);
    assert_eq!(diff.changed_blocks, 0, "{}", diff.text);
    assert_eq!(diff.text, "");
    assert!(!diff.is_unchanged());
}

#[test]
fn removed_text_is_told_under_removed_and_its_parent_is_not_reprinted() {
    let before = page();
    let mut after = page();
    // The status span's text disappears: a text run has no ref for removedRefs to list, so it
    // is told under [removed], below its parent's line, which is context and not a change: a
    // removed run must not make all of main a change (issue 30, item 5).
    let status = element(&after, "status");
    after.set_attribute(status, "hidden", "");
    let diff = diff_between(&before, &after);
    assert_eq!(
        diff.text,
        "[unchanged]\nmain \"Shop\"\n[removed]\n text \"Two items\""
    );
    assert_eq!(diff.changed_blocks, 0);
    assert!(!diff.is_unchanged());
}

#[test]
fn a_read_that_keeps_no_text_of_the_snapshot_counts_the_removed_lines() {
    // The core that reads the whole page has the snapshot's records only (reads.rs `compare`).
    let before = page();
    let mut after = page();
    after.set_attribute(element(&after, "status"), "hidden", "");
    let (_, previous) = read(&before, Filter::All);
    let (lines, current) = read(&after, Filter::All);
    let plan = tree_diff::plan_with(&previous, &current, false);
    let none: [&str; 0] = [];
    assert_eq!(
        plan.text(&texts(&lines), &none),
        "[unchanged]\nmain \"Shop\"\n[removed]\n[1 line]"
    );
}

#[test]
fn a_long_removed_part_is_shown_up_to_the_bound_and_counted() {
    let page = || {
        let items: String = (0..10).map(|n| format!("<p>Line {n}</p>")).collect();
        MemDom::parse(&format!(
            r#"<main aria-label="News"><div id="old">{items}</div><button>More</button></main>"#
        ))
    };
    let before = page();
    let mut after = page();
    after.set_attribute(element(&after, "old"), "hidden", "");
    let diff = diff_between(&before, &after);
    let lines: Vec<&str> = diff.text.lines().collect();
    assert_eq!(&lines[..3], ["[unchanged]", "main \"News\"", "[removed]"]);
    assert_eq!(
        lines.len(),
        3 + tree_diff::REMOVED_LINES_SHOWN + 1,
        "{}",
        diff.text
    );
    assert!(
        lines.last().is_some_and(|line| line.starts_with("[and ")),
        "{}",
        diff.text
    );
    assert_eq!(diff.plan.removed_lines.len(), 10);
}

/// A read whose identities are the `data-key` attributes (a text run's is its element's key
/// and `#text`): two documents parsed apart then hold "the same node" where their keys agree,
/// as the content script's identities do for a node that a script moved. Unkeyed nodes get
/// identities of their own read (`salt`), so that they are new in every read. The reference
/// number is the identity, as the registry gives one number per element.
fn read_keyed(
    dom: &MemDom,
    keys: &mut HashMap<String, u32>,
    salt: u32,
) -> (Vec<TreeLine>, Vec<LineRecord>) {
    use allwright_ax::dom::Dom;
    let mut identity_of = |node: NodeId| -> u32 {
        let (element, suffix) = match dom.attribute(node, "data-key") {
            Some(_) => (node, ""),
            None => match dom.parent(node) {
                Some(parent) if dom.local_name(node).is_empty() => (parent, "#text"),
                _ => (node, ""),
            },
        };
        match dom.attribute(element, "data-key") {
            Some(key) => {
                let next = keys.len() as u32 + 1;
                *keys.entry(format!("{key}{suffix}")).or_insert(next)
            }
            None => salt * 1_000_000 + node.0 + 1,
        }
    };
    let identities: Vec<u32> = (0..dom.node_count() as u32)
        .map(|index| identity_of(NodeId(index)))
        .collect();
    let options = TextTreeOptions {
        keep_lines: true,
        ..TextTreeOptions::default()
    };
    let tree = generate_accessibility_tree(dom, None, &options, &mut |node: NodeId| {
        format!("ref_{}", identities[node.0 as usize])
    })
    .expect("the document always has a tree");
    let records = tree_diff::records_of(&tree.lines, |line| identities[line.node.0 as usize]);
    (tree.lines, records)
}

fn keyed_diff(before: &str, after: &str) -> (TreeDiff, usize) {
    let mut keys = HashMap::new();
    let (earlier_lines, previous) = read_keyed(&MemDom::parse(before), &mut keys, 1);
    let (lines, current) = read_keyed(&MemDom::parse(after), &mut keys, 2);
    let whole: usize = lines.iter().map(|line| line.text.chars().count() + 1).sum();
    (
        tree_diff::diff(&previous, &texts(&earlier_lines), &current, &texts(&lines)),
        whole,
    )
}

#[test]
fn a_text_run_rewritten_in_place_prints_its_new_words_only() {
    // A status line whose text node a framework replaced (unkeyed: new in every read): the new
    // words are the change, and the old ones, which the reader already read, are not repeated
    // under [removed]. A run that left without one in its place is still told.
    let page = |status: &str, note: &str| {
        format!(
            r#"<main data-key="main" aria-label="Form"><button data-key="send">Send</button><div role="status" data-key="state" aria-label="State"><span>{status}</span></div>{note}</main>"#
        )
    };
    let (diff, _) = keyed_diff(
        &page("not sent", "<span>Draft</span>"),
        &page("sent 1 time", ""),
    );
    assert!(diff.text.contains("text \"sent 1 time\""), "{}", diff.text);
    assert!(!diff.text.contains("not sent"), "{}", diff.text);
    assert!(diff.text.contains("text \"Draft\""), "{}", diff.text);
}

#[test]
fn a_re_sorted_list_reports_only_the_items_that_moved() {
    let list = |order: &[usize]| {
        let items: String = order
            .iter()
            .map(|n| {
                format!(r#"<li data-key="item{n}"><a data-key="link{n}" href="/p/{n}">Product {n}</a> <button data-key="buy{n}">Buy {n}</button></li>"#)
            })
            .collect();
        format!(
            r#"<main data-key="main" aria-label="Shop"><ul data-key="list">{items}</ul></main>"#
        )
    };
    // Sorted by price: product 7 comes first, the others keep their order.
    let (diff, _) = keyed_diff(
        &list(&[0, 1, 2, 3, 4, 5, 6, 7]),
        &list(&[7, 0, 1, 2, 3, 4, 5, 6]),
    );
    assert_eq!(diff.changed_blocks, 1, "{}", diff.text);
    assert!(diff.removed_references.is_empty());
    for n in 0..7 {
        assert!(
            !diff.text.contains(&format!("Product {n}\"")),
            "{}",
            diff.text
        );
    }
    assert!(
        diff.text
            .contains("[changed]\n  listitem\n   link \"Product 7\""),
        "{}",
        diff.text
    );
    // Reversed: all but one item moved, printed in one block, in their new order.
    let (diff, whole) = keyed_diff(
        &list(&[0, 1, 2, 3, 4, 5, 6, 7]),
        &list(&[7, 6, 5, 4, 3, 2, 1, 0]),
    );
    assert_eq!(diff.changed_blocks, 1, "{}", diff.text);
    assert!(diff.text.chars().count() < whole, "{}", diff.text);
}

#[test]
fn a_re_rendered_wrapper_answers_replaced_refs_and_no_lines() {
    // A framework renders the form again: new elements, the same lines.
    let form = |generation: &str| {
        format!(
            r#"<main data-key="main" aria-label="Account"><h1 data-key="title">Account</h1>
              <div data-key="wrapper-{generation}"><label data-key="label-{generation}">Email <input data-key="email-{generation}" value="a@b.c"></label>
              <p data-key="hint-{generation}">We never share it.</p>
              <button data-key="save-{generation}">Save</button></div>
              <footer data-key="footer"><a data-key="help" href="/help">Help</a></footer></main>"#
        )
    };
    let (diff, _) = keyed_diff(&form("1"), &form("2"));
    assert_eq!(diff.text, "", "{:?}", diff.plan);
    assert!(diff.removed_references.is_empty(), "{:?}", diff.plan);
    assert!(!diff.plan.replaced_references.is_empty());
    assert!(!diff.is_unchanged());
    // The same wrapper with one word changed is a change: the part is printed, its old refs
    // are removed.
    let (diff, _) = keyed_diff(&form("1"), &form("2").replace(">Save<", ">Save now<"));
    assert!(diff.text.contains("button \"Save now\""), "{}", diff.text);
    assert!(!diff.removed_references.is_empty());
}

#[test]
fn a_modal_added_at_the_end_of_body_is_a_part_of_a_few_lines() {
    let page = |modal: &str| {
        let rows: String = (0..40)
            .map(|n| {
                format!(
                    r#"<li data-key="row{n}"><a data-key="a{n}" href="/r/{n}">Row {n}</a></li>"#
                )
            })
            .collect();
        format!(
            r#"<header data-key="header"><a data-key="home" href="/">Home</a></header>
            <main data-key="main"><h1 data-key="h">Rows</h1><ul data-key="rows">{rows}</ul></main>{modal}"#
        )
    };
    for modal in [
        r#"<div data-key="modal" role="dialog" aria-modal="true" aria-label="Delete row"><p data-key="q">Delete row 3?</p><button data-key="yes">Delete</button><button data-key="no">Cancel</button></div>"#,
        r#"<div data-key="portal"><div data-key="modal" role="dialog" aria-label="Delete row"><p data-key="q">Delete row 3?</p><button data-key="yes">Delete</button><button data-key="no">Cancel</button></div></div>"#,
    ] {
        let (diff, _) = keyed_diff(&page(""), &page(modal));
        let lines: Vec<&str> = diff.text.lines().collect();
        assert!(lines.len() <= 9, "{}", diff.text);
        assert!(diff.text.contains("dialog \"Delete row\""), "{}", diff.text);
        assert!(!diff.text.contains("Row 1"), "{}", diff.text);
    }
}

#[test]
fn a_route_change_that_keeps_header_and_navigation_answers_only_main() {
    let page = |route: &str| {
        let content = match route {
            "home" => {
                r#"<h1 data-key="home-h">Home</h1><p data-key="home-p">Welcome back.</p><a data-key="home-a" href="/news">Latest news</a>"#
            }
            _ => {
                r#"<h1 data-key="set-h">Settings</h1><label data-key="set-l">Name <input data-key="set-i"></label><button data-key="set-b">Save</button>"#
            }
        };
        let links: String = (0..30)
            .map(|n| format!(r#"<a data-key="nav{n}" href="/s/{n}">Section {n}</a>"#))
            .collect();
        format!(
            r#"<header data-key="header"><a data-key="logo" href="/">Logo</a><nav data-key="nav" aria-label="Sections">{links}</nav></header>
            <main data-key="main"><div data-key="outlet-{route}">{content}</div></main>
            <footer data-key="footer">Copyright</footer>"#
        )
    };
    let (diff, whole) = keyed_diff(&page("home"), &page("settings"));
    assert!(!diff.text.contains("Section"), "{}", diff.text);
    assert!(!diff.text.contains("banner"), "{}", diff.text);
    assert!(diff.text.contains("heading \"Settings\""), "{}", diff.text);
    assert!(diff.text.contains("[removed]"), "{}", diff.text);
    assert!(diff.text.chars().count() * 4 < whole, "{}", diff.text);
}

/// A generated page of about `elements` elements: header, navigation, and `main` of sections
/// of headings, paragraphs and link lists, one of which is an unnamed section (`#slot`) whose
/// content a click replaces ([`click_load`]).
fn generated_page(elements: usize) -> MemDom {
    let mut html = String::from(r#"<header><a href="/">Home</a><nav aria-label="Main">"#);
    for n in 0..20 {
        html.push_str(&format!(r#"<a href="/n/{n}">Topic {n}</a>"#));
    }
    html.push_str("</nav></header><main>");
    let sections = elements / 10;
    for n in 0..sections {
        if n == sections / 2 {
            html.push_str(r#"<section id="slot"><p id="placeholder">Press Load to see the report.</p><button id="load">Load</button></section>"#);
        }
        html.push_str(&format!(
            r#"<section aria-label="Part {n}"><h2>Part {n}</h2><p>Text of part {n}.</p><ul><li><a href="/a/{n}">First {n}</a></li><li><a href="/b/{n}">Second {n}</a></li><li><a href="/c/{n}">Third {n}</a></li></ul></section>"#
        ));
    }
    html.push_str("</main>");
    MemDom::parse(&html)
}

/// The click of issue 30, item 5: the paragraph removed; a heading, a paragraph and a button
/// added to the same section.
fn click_load(dom: &mut MemDom) {
    dom.set_attribute(element(dom, "placeholder"), "hidden", "");
    let slot = element(dom, "slot");
    let heading = dom.append_element(slot, "h2", &[]);
    dom.append_text(heading, "Quarterly report");
    let paragraph = dom.append_element(slot, "p", &[]);
    dom.append_text(paragraph, "Revenue grew 12 percent.");
    let button = dom.append_element(slot, "button", &[]);
    dom.append_text(button, "Download");
}

#[test]
fn a_click_that_replaces_a_section_inside_main_is_a_few_lines_on_1k_and_10k_pages() {
    for elements in [1_000, 10_000] {
        let before = generated_page(elements);
        let mut after = generated_page(elements);
        click_load(&mut after);
        let (_, previous) = read(&before, Filter::All);
        let (lines, _) = read(&after, Filter::All);
        let whole: usize = lines.iter().map(|line| line.text.chars().count() + 1).sum();
        let diff = diff_between(&before, &after);
        let changes = diff.text.chars().count();
        println!(
            "{elements} elements: since {changes} characters, whole tree {whole} ({} lines before)",
            previous.len()
        );
        assert!(diff.text.lines().count() <= 12, "{}", diff.text);
        assert!(changes * 20 < whole, "{}", diff.text);
        assert!(
            diff.text.contains("heading \"Quarterly report\""),
            "{}",
            diff.text
        );
        assert!(diff.text.contains("[removed]"), "{}", diff.text);
        assert!(diff.text.contains("Press Load"), "{}", diff.text);
    }
}

#[test]
fn an_opened_dialog_is_shown_under_the_overlays_banner() {
    let before = page();
    let mut after = page();
    let body = after.body().expect("body");
    let dialog = after.append_element(
        body,
        "div",
        &[("role", "dialog"), ("aria-label", "Confirm")],
    );
    let button = after.append_element(dialog, "button", &[]);
    after.append_text(button, "OK");
    let diff = diff_between(&before, &after);
    assert!(
        diff.text
            .starts_with("[changed]\n[open overlays]\ndialog \"Confirm\" [ref_"),
        "{}",
        diff.text
    );
}

// The property ---------------------------------------------------------------------------------

#[derive(Clone, Debug)]
enum Mutation {
    Label {
        target: usize,
        word: usize,
    },
    Hide {
        target: usize,
    },
    Show {
        target: usize,
    },
    Expand {
        target: usize,
        expanded: bool,
    },
    Append {
        target: usize,
        tag: usize,
        word: usize,
    },
    AppendText {
        target: usize,
        word: usize,
    },
    Dialog {
        target: usize,
    },
}

const WORDS: &[&str] = &["Save", "Open", "Apples", "Pears", "", "Two items", "Menu"];
const TAGS: &[&str] = &[
    "button", "li", "ul", "a", "div", "span", "input", "h2", "section",
];

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        (any::<usize>(), 0..WORDS.len())
            .prop_map(|(target, word)| Mutation::Label { target, word }),
        any::<usize>().prop_map(|target| Mutation::Hide { target }),
        any::<usize>().prop_map(|target| Mutation::Show { target }),
        (any::<usize>(), any::<bool>())
            .prop_map(|(target, expanded)| Mutation::Expand { target, expanded }),
        (any::<usize>(), 0..TAGS.len(), 0..WORDS.len())
            .prop_map(|(target, tag, word)| Mutation::Append { target, tag, word }),
        (any::<usize>(), 0..WORDS.len())
            .prop_map(|(target, word)| Mutation::AppendText { target, word }),
        any::<usize>().prop_map(|target| Mutation::Dialog { target }),
    ]
}

fn apply(dom: &mut MemDom, mutation: &Mutation) {
    let elements = dom.all_elements();
    let pick = |target: usize| elements[target % elements.len()];
    match *mutation {
        Mutation::Label { target, word } => {
            dom.set_attribute(pick(target), "aria-label", WORDS[word])
        }
        Mutation::Hide { target } => dom.set_attribute(pick(target), "style", "display: none"),
        Mutation::Show { target } => dom.set_attribute(pick(target), "style", "display: block"),
        Mutation::Expand { target, expanded } => dom.set_attribute(
            pick(target),
            "aria-expanded",
            if expanded { "true" } else { "false" },
        ),
        Mutation::Append { target, tag, word } => {
            let added = dom.append_element(pick(target), TAGS[tag], &[]);
            dom.append_text(added, WORDS[word]);
        }
        Mutation::AppendText { target, word } => {
            dom.append_text(pick(target), WORDS[word]);
        }
        Mutation::Dialog { target } => {
            dom.set_attribute(pick(target), "role", "dialog");
        }
    }
}

/// Checks what a reader who kept the earlier tree and reads the diff can rely on.
fn check_diff(before: &MemDom, after: &MemDom) {
    let (earlier_lines, previous) = read(before, Filter::All);
    let (lines, current) = read(after, Filter::All);
    let diff = tree_diff::diff(&previous, &texts(&earlier_lines), &current, &texts(&lines));
    check_spliced_plan(&previous, &current, &lines, &earlier_lines);

    // Which current lines the diff prints inside [changed] blocks (not as context, nor the
    // earlier lines under [removed]).
    let mut in_changed_block = HashSet::new();
    let mut printed = diff.printed_lines.iter();
    let mut inside_changed = false;
    assert_eq!(
        diff.text.lines().count(),
        diff.plan.items.len(),
        "{}",
        diff.text
    );
    for (text, item) in diff.text.lines().zip(&diff.plan.items) {
        match *item {
            DiffItem::Banner(banner) => {
                assert_eq!(text, banner);
                if banner == CHANGED_BANNER {
                    inside_changed = true;
                } else if banner == CONTEXT_BANNER || banner == REMOVED_BANNER {
                    inside_changed = false;
                }
            }
            DiffItem::Line(position) => {
                assert_eq!(
                    Some(&position),
                    printed.next(),
                    "every printed line is listed"
                );
                assert_eq!(lines[position].text, text);
                if inside_changed {
                    in_changed_block.insert(position);
                }
            }
            DiffItem::Removed(earlier) => {
                assert!(!inside_changed);
                assert_eq!(earlier_lines[earlier].text, text);
            }
            DiffItem::RemovedCount { .. } => assert!(text.starts_with('[') && text.ends_with(']')),
        }
    }
    assert!(printed.next().is_none());
    // The lines of parts rendered again: each the same as the line it replaces.
    let replaced_now: HashMap<usize, usize> = diff
        .plan
        .replaced_lines
        .iter()
        .map(|&(earlier, position)| (position, earlier))
        .collect();
    let replaced_before: HashSet<usize> = diff
        .plan
        .replaced_lines
        .iter()
        .map(|&(earlier, _)| earlier)
        .collect();

    // Every line outside the changed blocks is exactly as before, under the same parent.
    let before_by_identity: HashMap<u32, (usize, &LineRecord)> = previous
        .iter()
        .enumerate()
        .map(|(position, record)| (record.identity, (position, record)))
        .collect();
    let parents = |records: &[LineRecord]| -> Vec<Option<u32>> {
        let mut stack: Vec<(u32, u32, bool)> = Vec::new();
        records
            .iter()
            .map(|record| {
                while stack.last().is_some_and(|&(depth, _, overlay)| {
                    depth >= record.depth || overlay != record.overlay
                }) {
                    stack.pop();
                }
                let parent = stack.last().map(|&(_, identity, _)| identity);
                stack.push((record.depth, record.identity, record.overlay));
                parent
            })
            .collect()
    };
    let parents_before = parents(&previous);
    let parents_now = parents(&current);
    for (position, record) in current.iter().enumerate() {
        if in_changed_block.contains(&position) {
            continue;
        }
        if let Some(&earlier) = replaced_now.get(&position) {
            let old = &previous[earlier];
            assert_eq!(
                old.hash, record.hash,
                "a replaced line differs:\n{}",
                diff.text
            );
            assert_eq!(
                old.depth, record.depth,
                "a replaced line moved:\n{}",
                diff.text
            );
            continue;
        }
        let (earlier, old) = before_by_identity
            .get(&record.identity)
            .unwrap_or_else(|| panic!("line {position} is new but not shown:\n{}", diff.text));
        assert_eq!(
            old.hash, record.hash,
            "line {position} changed unshown:\n{}",
            diff.text
        );
        assert_eq!(old.depth, record.depth);
        assert_eq!(
            parents_before[*earlier], parents_now[position],
            "line {position} moved unshown:\n{}",
            diff.text
        );
    }
    // A line that left without a reference to name it (a text run) is told under [removed]
    // (it, or the part it was in), or by its parent being printed whole, or by its parent
    // leaving too; or it was replaced by the same line.
    let now_by_identity: HashMap<u32, usize> = current
        .iter()
        .enumerate()
        .map(|(position, record)| (record.identity, position))
        .collect();
    let mut told_removed = HashSet::new();
    for &top in &diff.plan.removed_lines {
        told_removed.insert(top);
        for line in top + 1..previous.len() {
            if previous[line].depth <= previous[top].depth
                || previous[line].overlay != previous[top].overlay
            {
                break;
            }
            told_removed.insert(line);
        }
    }
    // A text run rewritten in place (docs/protocol/reading.md, "Reads since a snapshot", `[removed]`) is told by the new run printed
    // under [changed] in its place: under the same parent, after the same sibling both trees
    // have. Each new run tells one old run.
    let lone_text_run = |records: &[LineRecord], position: usize| {
        records[position].text_run
            && records[position].reference == 0
            && records.get(position + 1).is_none_or(|next| {
                next.depth <= records[position].depth || next.overlay != records[position].overlay
            })
    };
    let anchor_of = |records: &[LineRecord],
                     parents: &[Option<u32>],
                     position: usize,
                     in_other: &dyn Fn(u32) -> bool|
     -> Option<u32> {
        (0..position)
            .rev()
            .filter(|&sibling| {
                parents[sibling] == parents[position]
                    && records[sibling].depth == records[position].depth
                    && records[sibling].overlay == records[position].overlay
            })
            .map(|sibling| records[sibling].identity)
            .find(|&identity| in_other(identity))
    };
    let mut new_runs: Vec<(Option<u32>, Option<u32>)> = (0..current.len())
        .filter(|&position| {
            in_changed_block.contains(&position)
                && !before_by_identity.contains_key(&current[position].identity)
                && lone_text_run(&current, position)
        })
        .map(|position| {
            let anchor = anchor_of(&current, &parents_now, position, &|identity| {
                before_by_identity.contains_key(&identity)
            });
            (parents_now[position], anchor)
        })
        .collect();
    for (earlier, old) in previous.iter().enumerate() {
        if old.reference != 0
            || now_by_identity.contains_key(&old.identity)
            || told_removed.contains(&earlier)
            || replaced_before.contains(&earlier)
        {
            continue;
        }
        if lone_text_run(&previous, earlier) {
            let anchor = anchor_of(&previous, &parents_before, earlier, &|identity| {
                now_by_identity.contains_key(&identity)
            });
            if let Some(index) = new_runs
                .iter()
                .position(|&run| run == (parents_before[earlier], anchor))
            {
                new_runs.swap_remove(index);
                continue;
            }
        }
        match parents_before[earlier] {
            Some(parent) => {
                if let Some(&position) = now_by_identity.get(&parent) {
                    assert!(
                        in_changed_block.contains(&position),
                        "a text line under line {position} left unshown:\n{}",
                        diff.text
                    );
                }
            }
            None => assert!(
                !current.iter().any(|record| record.overlay == old.overlay),
                "a top-level text line left unshown:\n{}",
                diff.text
            ),
        }
    }
    // The removed references are exactly those printed before and not now, but for the
    // replaced ones, which are told with the references that replace them.
    let now: HashSet<u32> = current.iter().map(|record| record.reference).collect();
    let replaced_old: HashSet<u32> = diff
        .plan
        .replaced_references
        .iter()
        .map(|&(old, _)| old)
        .collect();
    let expected: Vec<u32> = {
        let mut seen = HashSet::new();
        previous
            .iter()
            .map(|record| record.reference)
            .filter(|&reference| {
                reference != 0
                    && !now.contains(&reference)
                    && !replaced_old.contains(&reference)
                    && seen.insert(reference)
            })
            .collect()
    };
    assert_eq!(diff.removed_references, expected);
    for &(old, new) in &diff.plan.replaced_references {
        assert!(now.contains(&new) && !now.contains(&old), "{}", diff.text);
    }
    // Nothing changed in the printed tree (its identities, or parts rendered again alike with
    // no reference to replace): the diff says unchanged.
    let same = previous.len() == current.len()
        && previous
            .iter()
            .zip(&current)
            .enumerate()
            .all(|(position, (old, new))| {
                (old.identity == new.identity || replaced_now.get(&position) == Some(&position))
                    && old.hash == new.hash
                    && old.reference == new.reference
                    && old.depth == new.depth
                    && old.overlay == new.overlay
            });
    assert_eq!(
        diff.is_unchanged(),
        same,
        "{}\nbefore: {:?}\nafter: {:?}",
        diff.text,
        previous
            .iter()
            .map(|r| (r.identity, r.depth, r.hash, r.reference))
            .collect::<Vec<_>>(),
        current
            .iter()
            .zip(&lines)
            .map(|(r, l)| (r.identity, r.depth, r.hash, r.reference, l.text.clone()))
            .collect::<Vec<_>>()
    );
}

/// The content script describes a read of the changed parts as the snapshot with runs of lines
/// replaced, and sends no hash of a line outside those runs (bindings.rs `diffLinesPacked`):
/// here the run is everything between the lines both reads share at the start and at the end.
/// Spliced back, the records are the current ones, and with every hash outside the run cleared
/// in both, the plan is the one over the whole records; its length, counted over the lines, is
/// the length of its text.
fn check_spliced_plan(
    previous: &[LineRecord],
    current: &[LineRecord],
    lines: &[TreeLine],
    earlier_lines: &[TreeLine],
) {
    let shared_start = previous
        .iter()
        .zip(current)
        .take_while(|(before, now)| before == now)
        .count();
    let shared_end = previous[shared_start..]
        .iter()
        .rev()
        .zip(current[shared_start..].iter().rev())
        .take_while(|(before, now)| before == now)
        .count();
    let run_end = previous.len() - shared_end;
    let replacement = &current[shared_start..current.len() - shared_end];
    let replaced = [
        shared_start as u32,
        run_end as u32,
        replacement.len() as u32,
    ];
    let spliced = tree_diff::splice_lines(previous, &replaced, replacement).expect("the run fits");
    assert_eq!(spliced, current);

    let without_hash = |record: &LineRecord| LineRecord { hash: 0, ..*record };
    let stripped_previous: Vec<LineRecord> = previous
        .iter()
        .enumerate()
        .map(|(position, record)| {
            if (shared_start..run_end).contains(&position) {
                *record
            } else {
                without_hash(record)
            }
        })
        .collect();
    let stripped_current =
        tree_diff::splice_lines(&stripped_previous, &replaced, replacement).expect("the run fits");
    let whole = tree_diff::plan(previous, current);
    assert_eq!(
        tree_diff::plan(&stripped_previous, &stripped_current),
        whole
    );
    let text = whole.text(&texts(lines), &texts(earlier_lines));
    assert_eq!(
        whole.length(
            |position| lines[position].text.chars().count(),
            |position| earlier_lines[position].text.chars().count()
        ),
        text.chars().count()
    );
}

#[test]
fn splicing_refuses_runs_that_do_not_fit() {
    let record = |identity| LineRecord {
        identity,
        depth: 0,
        overlay: false,
        hash: u64::from(identity),
        reference: 0,
        name_left_to_first_child: false,
        text_run: false,
    };
    let previous = [record(1), record(2), record(3)];
    let new = [record(4)];
    let spliced = tree_diff::splice_lines(&previous, &[1, 2, 1], &new).expect("fits");
    assert_eq!(spliced, [record(1), record(4), record(3)]);
    // Past the end, backwards, overlapping, a partial triple, records left over or missing.
    for replaced in [
        &[2, 4, 1][..],
        &[2, 1, 1],
        &[0, 2, 0, 1, 3, 1],
        &[0, 1],
        &[0, 1, 0],
        &[0, 1, 2],
    ] {
        assert_eq!(
            tree_diff::splice_lines(&previous, replaced, &new),
            None,
            "{replaced:?}"
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn a_diff_shows_every_change_and_only_changes(
        first in proptest::collection::vec(mutation(), 0..12),
        second in proptest::collection::vec(mutation(), 0..6),
    ) {
        let mut before = page();
        for mutation in &first {
            apply(&mut before, mutation);
        }
        // The same page again (memdom hands out the same node indices), then more changes.
        let mut after = page();
        for mutation in first.iter().chain(&second) {
            apply(&mut after, mutation);
        }
        check_diff(&before, &after);
    }
}

// Re-reading one part (the core's half of an incremental read) -----------------------------------

/// The lines of an anchored read of `node`, printed at `depth` (`depth_offset`), with the depth
/// left of a whole read's `maxDepth`; None when the core refuses to read the part alone because
/// it holds the conversation root (`part_not_alone`: the content script then reads the whole
/// tree, accessibility-tree.js `readChangedParts`).
fn part_lines(dom: &MemDom, node: NodeId, depth: usize) -> Option<Vec<String>> {
    let options = TextTreeOptions {
        keep_lines: true,
        depth_offset: depth,
        part_of_whole: true,
        max_depth: allwright_ax::text::DEFAULT_MAX_DEPTH - depth,
        ..TextTreeOptions::default()
    };
    generate_accessibility_tree(dom, Some(node), &options, &mut |node: NodeId| {
        format!("ref_{}", node.0 + 1)
    })
    .map_or_else(
        |error| match error {
            TextTreeError::PartNotAlone => None,
            other => Some(vec![format!("the part read failed: {other}")]),
        },
        |tree| Some(tree.lines.into_iter().map(|line| line.text).collect()),
    )
}

/// The content script's container roles (`CONTAINER_ROLES` of tree/changed-parts.js), read from
/// that file so that the rule has one list: the roles whose line does not depend on their
/// descendants' text.
fn container_roles() -> Vec<&'static str> {
    const CHANGED_PARTS: &str = include_str!("../../../extension/content/tree/changed-parts.js");
    const DECLARATION: &str = "const CONTAINER_ROLES = new Set([";
    let start = CHANGED_PARTS
        .find(DECLARATION)
        .expect("tree/changed-parts.js declares CONTAINER_ROLES as a Set of strings")
        + DECLARATION.len();
    let length = CHANGED_PARTS[start..]
        .find("]);")
        .expect("CONTAINER_ROLES's list ends with `]);`");
    let roles: Vec<&'static str> = CHANGED_PARTS[start..start + length]
        .split(',')
        .map(|entry| entry.trim().trim_matches('"'))
        .filter(|role| !role.is_empty())
        .collect();
    assert!(
        roles.len() >= 10
            && roles
                .iter()
                .all(|role| role.chars().all(|c| c.is_ascii_lowercase())),
        "CONTAINER_ROLES was not read as a list of role words: {roles:?}"
    );
    roles
}

/// Whether a part may be re-read alone, by the content script's rule (tree/changed-parts.js):
/// a container whose printed ancestors are containers too, and no overlay in the tree.
fn re_readable(lines: &[TreeLine], position: usize) -> bool {
    let containers = container_roles();
    if lines.iter().any(|line| line.overlay) {
        return false;
    }
    let mut depth = lines[position].depth;
    if !containers.contains(&lines[position].role) {
        return false;
    }
    for line in lines[..position].iter().rev() {
        if line.depth < depth {
            if !containers.contains(&line.role) {
                return false;
            }
            depth = line.depth;
        }
    }
    true
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    /// Every part the content script may re-read alone prints, at its depth, exactly the lines
    /// the whole tree prints for it.
    #[test]
    fn a_part_re_read_alone_prints_the_whole_trees_lines(
        mutations in proptest::collection::vec(mutation(), 0..14),
    ) {
        let mut dom = page();
        for mutation in &mutations {
            apply(&mut dom, mutation);
        }
        let (lines, records) = read(&dom, Filter::All);
        for position in 0..lines.len() {
            if !re_readable(&lines, position) {
                continue;
            }
            let depth = lines[position].depth;
            let end = (position + 1..records.len())
                .find(|&later| records[later].depth <= records[position].depth)
                .unwrap_or(records.len());
            let whole: Vec<String> = lines[position..end].iter().map(|line| line.text.clone()).collect();
            if let Some(part) = part_lines(&dom, lines[position].node, depth) {
                prop_assert_eq!(part, whole);
            }
        }
    }
}
