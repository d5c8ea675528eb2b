//! Reads since a snapshot (`tree_diff.rs`, docs/protocol.md "Reads since a snapshot"): the
//! cases the protocol names, then a property over random mutations of a page: whatever changed,
//! every line that is not the same as before is printed in a `[changed]` block, every line
//! outside those blocks is exactly as it was, and the removed references are exactly those that
//! left the tree.

use std::collections::{HashMap, HashSet};

use allwright_ax::memdom::MemDom;
use allwright_ax::tree_diff::{self, LineRecord, TreeDiff, CHANGED_BANNER, CONTEXT_BANNER};
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
    let (_, previous) = read(before, Filter::All);
    let (lines, current) = read(after, Filter::All);
    // The records travel to JavaScript and back in their flat encoding.
    let previous = tree_diff::decode_records(&tree_diff::encode_records(&previous));
    tree_diff::diff(&previous, &current, &texts(&lines))
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
fn removed_text_reprints_its_parent_whole() {
    let before = page();
    let mut after = page();
    // The status paragraph's text disappears: a text run has no ref, so the paragraph is shown
    // again as it is now.
    let status = element(&after, "status");
    after.set_attribute(status, "hidden", "");
    let diff = diff_between(&before, &after);
    // The span is a generic container, left out of the tree: its text was a line directly
    // under main, so main is shown whole.
    assert_eq!(diff.changed_blocks, 1, "{}", diff.text);
    assert!(
        diff.text.contains("[changed]\nmain \"Shop\""),
        "{}",
        diff.text
    );
    assert!(!diff.text.contains("Two items"), "{}", diff.text);
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
    let (_, previous) = read(before, Filter::All);
    let (lines, current) = read(after, Filter::All);
    let diff = tree_diff::diff(&previous, &current, &texts(&lines));
    check_spliced_plan(&previous, &current, &lines);

    // Which current lines the diff prints inside [changed] blocks (not as context).
    let mut in_changed_block = HashSet::new();
    let mut printed = diff.printed_lines.iter();
    let mut inside_changed = false;
    for text in diff.text.lines() {
        if text == CHANGED_BANNER {
            inside_changed = true;
            continue;
        }
        if text == CONTEXT_BANNER {
            inside_changed = false;
            continue;
        }
        if text.starts_with('[') {
            continue;
        }
        let position = *printed.next().expect("every printed line is listed");
        assert_eq!(lines[position].text, text);
        if inside_changed {
            in_changed_block.insert(position);
        }
    }
    assert!(printed.next().is_none());

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
    // A line that left without a reference to name it (a text run) is told by its parent being
    // printed whole, or by its parent leaving too.
    let now_by_identity: HashMap<u32, usize> = current
        .iter()
        .enumerate()
        .map(|(position, record)| (record.identity, position))
        .collect();
    for (earlier, old) in previous.iter().enumerate() {
        if old.reference != 0 || now_by_identity.contains_key(&old.identity) {
            continue;
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
                current
                    .iter()
                    .enumerate()
                    .any(|(position, record)| record.overlay == old.overlay
                        && record.depth == 0
                        && in_changed_block.contains(&position))
                    || !current.iter().any(|record| record.overlay == old.overlay),
                "a top-level text line left unshown:\n{}",
                diff.text
            ),
        }
    }
    // The removed references are exactly those printed before and not now.
    let now: HashSet<u32> = current.iter().map(|record| record.reference).collect();
    let expected: Vec<u32> = {
        let mut seen = HashSet::new();
        previous
            .iter()
            .map(|record| record.reference)
            .filter(|&reference| {
                reference != 0 && !now.contains(&reference) && seen.insert(reference)
            })
            .collect()
    };
    assert_eq!(diff.removed_references, expected);
    // Nothing changed in the printed tree and its identities: the diff says unchanged.
    let same = previous.len() == current.len()
        && previous.iter().zip(&current).all(|(old, new)| {
            old.identity == new.identity
                && old.hash == new.hash
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
fn check_spliced_plan(previous: &[LineRecord], current: &[LineRecord], lines: &[TreeLine]) {
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
    let text = whole.text(&texts(lines));
    assert_eq!(
        whole.length(|position| lines[position].text.chars().count()),
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
