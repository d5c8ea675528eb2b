//! Reads since a snapshot (issue 14, docs/protocol/reading.md "Reads since a snapshot"), through MCP in a
//! real browser, as an agent uses them: read, act, read again with `since`. One check per rule:
//! nothing changed, a changed subtree, removed refs, the whole tree when the arguments differ or
//! the changes are not shorter, a new document; then a randomized run that compares each `since`
//! read with the full reads before and after it; then the changes real pages make (issue 30,
//! item 5), each answered in a few lines in the action's own result (`changes`). Fixtures:
//! fixtures/pages/since/shop.html, classes.html.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{json, Value};

use crate::support::{fixtures, reference_of, strings, Session};

const SHOP: &str = "/pages/since/shop.html";
/** Rounds of random changes in `random_mutations_are_all_reported`. */
const ROUNDS: u32 = 40;

fn tree_of(result: &Value) -> &str {
    result["tree"].as_str().expect("a tree string")
}

fn snapshot_of(result: &Value, browser: &str) -> String {
    let id = result["snapshotId"]
        .as_str()
        .unwrap_or_else(|| panic!("{browser}: no snapshotId in {result}"));
    // Opaque, and nothing in it looks like a ref.
    assert!(!id.contains("ref_"), "{browser}: {id}");
    id.to_string()
}

/// Every `ref_N` a tree prints.
fn refs_in(tree: &str) -> BTreeSet<String> {
    tree.split("[ref_")
        .skip(1)
        .filter_map(|rest| rest.split(']').next())
        .map(|number| format!("ref_{number}"))
        .collect()
}

async fn open_shop(session: &Session) -> (Value, String) {
    let browser = session.browser.name();
    session.open(&fixtures().url(SHOP)).await;
    let first = session.ok("get_accessibility_tree", json!({})).await;
    let id = snapshot_of(&first, browser);
    (first, id)
}

async fn click(session: &Session, tree: &str, line_start: &str) {
    let target = reference_of(tree, line_start);
    session.ok("click_ax", json!({"ref_id": target})).await;
}

pub async fn nothing_changed_is_unchanged(session: &Session) {
    let browser = session.browser.name();
    let (first, id) = open_shop(session).await;
    click(session, tree_of(&first), "button \"Do nothing\"").await;
    let again = session
        .ok("get_accessibility_tree", json!({"since": id}))
        .await;
    assert_eq!(again["full"], json!(false), "{browser}: {again}");
    assert_eq!(again["unchanged"], json!(true), "{browser}: {again}");
    assert_eq!(tree_of(&again), "", "{browser}");
    assert_eq!(again["removedRefs"], json!([]), "{browser}");
    // A new snapshot, to chain the next read on.
    assert_ne!(snapshot_of(&again, browser), id, "{browser}");
}

pub async fn a_changed_subtree_is_printed_under_its_context(session: &Session) {
    let browser = session.browser.name();
    let (first, id) = open_shop(session).await;
    let full_chars = tree_of(&first).chars().count();
    click(session, tree_of(&first), "button \"Add Pear 1\"").await;
    let changes = session
        .ok("get_accessibility_tree", json!({"since": id}))
        .await;
    let tree = tree_of(&changes);
    assert_eq!(changes["full"], json!(false), "{browser}: {changes}");
    assert!(changes.get("unchanged").is_none(), "{browser}: {changes}");
    assert_eq!(changes["removedRefs"], json!([]), "{browser}");
    // The new cart item, whole, after the cart list; the total's new text under its paragraph.
    let lines: Vec<&str> = tree.lines().collect();
    assert!(lines.contains(&"[changed]"), "{browser}:\n{tree}");
    assert!(lines.contains(&"[unchanged]"), "{browser}:\n{tree}");
    assert!(
        tree.contains("button \"Remove Pear 1\" [ref_"),
        "{browser}:\n{tree}"
    );
    // (A paragraph without a reference shows its first words in the name's place, and the
    // cart's region leaves its name to its heading: docs/protocol/reading.md, "What the text tree leaves
    // out".)
    assert!(
        tree.contains("paragraph \"Total: 1 items\""),
        "{browser}:\n{tree}"
    );
    assert!(
        lines.contains(&" region") && lines.contains(&"  list \"Cart items\""),
        "{browser}: the cart's lines place the change:\n{tree}"
    );
    // The region's line prints no name (its heading's line says it): in the context, the
    // heading's line follows it, so that a reader knows which region changed.
    let region = lines.iter().position(|line| *line == " region");
    assert!(
        region.is_some_and(|region| lines
            .get(region + 1)
            .is_some_and(|next| next.starts_with("  heading \"Cart\""))),
        "{browser}: the region's heading follows it in the context:\n{tree}"
    );
    // Nothing of the unchanged products is repeated.
    assert!(!tree.contains("Add Plum 1"), "{browser}:\n{tree}");
    assert!(tree.chars().count() * 10 < full_chars, "{browser}:\n{tree}");
    // Refs of the first read that the changes do not list still act; so does the new one.
    let removal = reference_of(tree, "button \"Remove Pear 1\"");
    click(session, tree_of(&first), "button \"Add Plum 1\"").await;
    session.ok("click_ax", json!({"ref_id": removal})).await;
    let cart = session
        .evaluate_json("Array.from(document.querySelectorAll('#cart li'), (li) => li.textContent)")
        .await;
    assert_eq!(cart, json!(["Plum 1 Remove Plum 1"]), "{browser}");
}

pub async fn removed_refs_are_listed(session: &Session) {
    let browser = session.browser.name();
    let (first, _) = open_shop(session).await;
    click(session, tree_of(&first), "button \"Add Cherry 1\"").await;
    let with_item = session.ok("get_accessibility_tree", json!({})).await;
    let id = snapshot_of(&with_item, browser);
    let item_tree = tree_of(&with_item);
    let removal = reference_of(item_tree, "button \"Remove Cherry 1\"");
    session.ok("click_ax", json!({"ref_id": removal})).await;
    let changes = session
        .ok("get_accessibility_tree", json!({"since": id}))
        .await;
    assert_eq!(changes["full"], json!(false), "{browser}: {changes}");
    // The item's button printed a ref; the list item around it printed none (printed_reference.rs),
    // so the item is told under [removed], below its list's line, which is not printed again:
    // its lines as they were when the changed parts alone were re-read, their count when the
    // whole page was (docs/protocol/reading.md, "Reads since a snapshot").
    assert_eq!(
        changes["removedRefs"],
        json!([removal]),
        "{browser}: {changes}"
    );
    let tree = tree_of(&changes);
    let (before_removed, after_removed) = tree
        .split_once("list \"Cart items\"\n[removed]\n")
        .unwrap_or_else(|| panic!("{browser}: no [removed] under the list:\n{tree}"));
    let removed_block = after_removed.split("\n[unchanged]").next().unwrap_or("");
    assert!(
        removed_block.starts_with("   listitem") && removed_block.contains("Cherry 1")
            || removed_block.starts_with("[") && removed_block.ends_with(" lines]"),
        "{browser}:\n{tree}"
    );
    // The total changed too; the list is not printed whole.
    assert!(
        tree.contains("paragraph \"Total: 0 items\""),
        "{browser}:\n{tree}"
    );
    assert!(!before_removed.contains("Cherry"), "{browser}:\n{tree}");
}

pub async fn the_whole_tree_when_arguments_differ_or_changes_are_not_shorter(session: &Session) {
    let browser = session.browser.name();
    let (first, id) = open_shop(session).await;
    // Other arguments than the snapshot's.
    let other_filter = session
        .ok(
            "get_accessibility_tree",
            json!({"since": id, "filter": "interactive"}),
        )
        .await;
    assert_eq!(other_filter["full"], json!(true), "{browser}");
    assert_eq!(
        other_filter["fullReason"],
        json!("arguments_changed"),
        "{browser}"
    );
    assert!(
        tree_of(&other_filter).contains("button \"Add Apple 1\" [ref_"),
        "{browser}"
    );
    // A snapshotId this frame never issued (or forgot).
    let unknown = session
        .ok("get_accessibility_tree", json!({"since": "snapshot-x"}))
        .await;
    assert_eq!(
        unknown["fullReason"],
        json!("unknown_snapshot"),
        "{browser}"
    );
    assert_eq!(unknown["full"], json!(true), "{browser}");
    // A change that fits no small maxChars.
    let small = session.ok("get_accessibility_tree", json!({})).await;
    let small_id = snapshot_of(&small, browser);
    click(session, tree_of(&small), "button \"Add Kiwi 1\"").await;
    let paged = session
        .ok(
            "get_accessibility_tree",
            json!({"since": small_id, "maxChars": 100}),
        )
        .await;
    assert_eq!(paged["full"], json!(true), "{browser}: {paged}");
    assert_eq!(
        paged["fullReason"],
        json!("larger_than_max_chars"),
        "{browser}"
    );
    assert!(paged["pageCount"].as_u64().unwrap_or(0) > 1, "{browser}");
    // Every node of the products and the heading rendered again alike, the cart emptied: the
    // products are not printed, their refs are replaced (old to new), and the new refs act.
    let before = session.ok("get_accessibility_tree", json!({})).await;
    let before_id = snapshot_of(&before, browser);
    click(session, tree_of(&first), "button \"Rebuild everything\"").await;
    let rebuilt = session
        .ok("get_accessibility_tree", json!({"since": before_id}))
        .await;
    assert_eq!(rebuilt["full"], json!(false), "{browser}: {rebuilt}");
    assert!(
        !tree_of(&rebuilt).contains("Add Apple 1"),
        "{browser}: {rebuilt}"
    );
    let apple = reference_of(tree_of(&before), "button \"Add Apple 1\"");
    let new_apple = rebuilt["replacedRefs"][&apple]
        .as_str()
        .unwrap_or_else(|| panic!("{browser}: {apple} is not replaced in {rebuilt}"))
        .to_string();
    assert_ne!(new_apple, apple, "{browser}");
    session.ok("click_ax", json!({"ref_id": new_apple})).await;
    let cart = session
        .evaluate_json("Array.from(document.querySelectorAll('#cart li'), (li) => li.textContent)")
        .await;
    assert_eq!(cart, json!(["Apple 1 Remove Apple 1"]), "{browser}");
}

pub async fn a_new_document_is_read_whole(session: &Session) {
    let browser = session.browser.name();
    let (_, id) = open_shop(session).await;
    session
        .open(&fixtures().url("/pages/since/other.html"))
        .await;
    let other = session
        .ok("get_accessibility_tree", json!({"since": id}))
        .await;
    assert_eq!(other["full"], json!(true), "{browser}: {other}");
    assert_eq!(other["fullReason"], json!("document_changed"), "{browser}");
    assert!(
        tree_of(&other).contains("heading \"Another document\""),
        "{browser}"
    );
    // The same page loaded again is another document too.
    let again_id = snapshot_of(&other, browser);
    session
        .open(&fixtures().url("/pages/since/other.html"))
        .await;
    let reloaded = session
        .ok("get_accessibility_tree", json!({"since": again_id}))
        .await;
    assert_eq!(
        reloaded["fullReason"],
        json!("document_changed"),
        "{browser}"
    );
}

/// `replacedRefs` of a read since a snapshot, old to new.
fn replaced_refs(changes: &Value) -> BTreeMap<String, String> {
    changes["replacedRefs"]
        .as_object()
        .map(|replaced| {
            replaced
                .iter()
                .filter_map(|(old, new)| Some((old.clone(), new.as_str()?.to_string())))
                .collect()
        })
        .unwrap_or_default()
}

/// A line with its ref replaced as `replaced` says.
fn with_replaced_ref(line: &str, replaced: &BTreeMap<String, String>) -> String {
    for (old, new) in replaced {
        let printed = format!("[{old}]");
        if line.contains(&printed) {
            return line.replace(&printed, &format!("[{new}]"));
        }
    }
    line.to_string()
}

/// A diff's text with the lines under each `[removed]` banner replaced by their count: a read
/// that re-reads only the changed parts shows the lines that left (up to six, then `[and N more
/// lines]`), a whole read compared with an older snapshot has no text of it and counts them
/// (`[N lines]`, docs/protocol/reading.md "Reads since a snapshot"); the rest must be the same.
fn removed_counted(text: &str) -> String {
    let mut out: Vec<String> = Vec::new();
    let mut counting: Option<usize> = None;
    let count_of = |line: &str| -> Option<usize> {
        let inner = line.strip_prefix('[')?.strip_suffix(']')?;
        let inner = inner.strip_prefix("and ").unwrap_or(inner);
        let number = inner.split(' ').next()?.parse().ok()?;
        (inner.ends_with(" line")
            || inner.ends_with(" lines")
            || inner.ends_with(" more line")
            || inner.ends_with(" more lines"))
        .then_some(number)
    };
    let flush = |out: &mut Vec<String>, counting: &mut Option<usize>| {
        if let Some(count) = counting.take() {
            out.push(format!("[{count} removed]"));
        }
    };
    for line in text.lines() {
        if line == "[removed]" {
            flush(&mut out, &mut counting);
            out.push(line.to_string());
            counting = Some(0);
            continue;
        }
        if let Some(count) = counting.as_mut() {
            if line == "[open overlays]" {
                out.push(line.to_string());
                continue;
            }
            if let Some(number) = count_of(line) {
                *count += number;
                continue;
            }
            if !line.starts_with('[') {
                *count += 1;
                continue;
            }
        }
        flush(&mut out, &mut counting);
        out.push(line.to_string());
    }
    flush(&mut out, &mut counting);
    out.join("\n")
}

/// Random changes, adds, removals, moves and reorders, then a `since` read between two full
/// reads: a reader who applies it to the first full read knows every ref of the second (the
/// first's, less removedRefs, plus those the changes print), and every line of the second that
/// is not a line of the first is in the changes.
pub async fn random_mutations_are_all_reported(session: &Session) {
    random_mutations_on(session, SHOP).await;
}

/// The same on the shop served with a strict CSP, in Chromium, where the core then runs in the
/// service worker and the comparison of the changed parts travels there as records only
/// (bindings.rs `diffLinesAfterPart`, `diffLinesPacked`). Firefox reads strict pages in the
/// content script, as open ones, so the check runs in Chromium only.
pub async fn random_mutations_are_all_reported_on_strict_pages(session: &Session) {
    let page = format!("{SHOP}?csp=strict");
    session.open(&fixtures().url(&page)).await;
    let read = session.ok("get_accessibility_tree", json!({})).await;
    let expected = crate::engines::strict_engine(session);
    assert_eq!(
        read["engine"],
        expected,
        "{}: {read}",
        session.browser.name()
    );
    random_mutations_on(session, &page).await;
}

async fn random_mutations_on(session: &Session, page: &str) {
    let browser = session.browser.name();
    session.open(&fixtures().url(page)).await;
    let mut compared = 0;
    let mut incremental = 0;
    for seed in 1..=ROUNDS {
        // A fresh page every ten rounds: the mutations pile up (an ID moved onto another
        // element, references across the page), and a page they have wrecked sends every read
        // down the whole path, which would leave the reads of parts untested.
        if seed % 10 == 1 && seed > 1 {
            session.open(&fixtures().url(page)).await;
        }
        let before = session.ok("get_accessibility_tree", json!({})).await;
        let id = snapshot_of(&before, browser);
        let done = session
            .evaluate(&format!("window.mutateRandomly({seed}, 4)"))
            .await;
        let changes = session
            .ok("get_accessibility_tree", json!({"since": id}))
            .await;
        let after = session.ok("get_accessibility_tree", json!({})).await;
        if changes["full"] == json!(true) {
            assert_eq!(tree_of(&changes), tree_of(&after), "{browser} seed {seed}");
            continue;
        }
        compared += 1;
        if changes["incremental"] == json!(true) {
            incremental += 1;
            // The same snapshot read again is no longer the newest, so the whole page is read
            // and compared: incremental must equal whole.
            let whole = session
                .ok("get_accessibility_tree", json!({"since": id}))
                .await;
            assert!(whole.get("incremental").is_none(), "{browser}: {whole}");
            assert_eq!(
                removed_counted(tree_of(&whole)),
                removed_counted(tree_of(&changes)),
                "{browser} seed {seed} ({done}): the changed parts alone and the whole page differ"
            );
            assert_eq!(
                whole["removedRefs"], changes["removedRefs"],
                "{browser} seed {seed}"
            );
            assert_eq!(
                whole["replacedRefs"], changes["replacedRefs"],
                "{browser} seed {seed}"
            );
        }
        let removed: BTreeSet<String> = strings(&changes["removedRefs"]).into_iter().collect();
        let replaced = replaced_refs(&changes);
        let mut known: BTreeSet<String> = refs_in(tree_of(&before))
            .difference(&removed)
            .map(|reference| replaced.get(reference).unwrap_or(reference).clone())
            .collect();
        known.extend(refs_in(tree_of(&changes)));
        assert_eq!(
            known,
            refs_in(tree_of(&after)),
            "{browser} seed {seed} ({done}):\nbefore:\n{}\nchanges:\n{}\nafter:\n{}",
            tree_of(&before),
            tree_of(&changes),
            tree_of(&after)
        );
        // The lines of parts rendered again read as before with their new refs.
        let lines_before: BTreeSet<String> = tree_of(&before)
            .lines()
            .map(|line| with_replaced_ref(line, &replaced))
            .collect();
        let lines_of_changes: BTreeSet<&str> = tree_of(&changes).lines().collect();
        for line in tree_of(&after).lines() {
            assert!(
                lines_before.contains(line) || lines_of_changes.contains(line),
                "{browser} seed {seed} ({done}): {line:?} is new but not in the changes:\n{}",
                tree_of(&changes)
            );
        }
        if changes["unchanged"] == json!(true) {
            assert_eq!(tree_of(&before), tree_of(&after), "{browser} seed {seed}");
        }
    }
    eprintln!(
        "{browser}: {compared} of {ROUNDS} random rounds answered with the changes only, {incremental} of them re-reading only the changed parts"
    );
    session.open(&fixtures().url(page)).await;
    // A chain: each read since the one before, with changes in between, and nothing else read.
    // Re-reading only the changed parts keeps its own state (the snapshot's lines, the form
    // controls, the ID referrers) from read to read; at the end, the last snapshot is compared
    // with the whole page: nothing may differ.
    let mut id = snapshot_of(
        &session.ok("get_accessibility_tree", json!({})).await,
        browser,
    );
    let mut chained = 0;
    for seed in 100..110u32 {
        session
            .evaluate(&format!("window.mutateRandomly({seed}, 2, 'local')"))
            .await;
        let changes = session
            .ok("get_accessibility_tree", json!({"since": id}))
            .await;
        if changes["incremental"] == json!(true) {
            chained += 1;
        }
        id = snapshot_of(&changes, browser);
    }
    // Any other read makes that snapshot no longer the newest, so the next read since it
    // compares it with the whole page.
    session
        .ok("get_accessibility_tree", json!({"filter": "interactive"}))
        .await;
    let check = session
        .ok("get_accessibility_tree", json!({"since": id}))
        .await;
    assert!(check.get("incremental").is_none(), "{browser}: {check}");
    assert_eq!(
        check["unchanged"],
        json!(true),
        "{browser}: after {chained} chained reads of the changed parts, the whole page differs:\n{}",
        tree_of(&check)
    );
    eprintln!("{browser}: a chain of 10 reads, {chained} of them re-reading only the changed parts, equals the whole page");
    assert!(
        chained >= 3,
        "{browser}: only {chained} chained reads re-read only the changed parts"
    );
    assert!(
        compared >= ROUNDS / 2,
        "{browser}: only {compared} reads were diffs"
    );
    // A sixth: some of the mutator's kinds send a read down the whole path on purpose (an ID
    // moved, an element named from elsewhere removed, an owner), with four steps a round.
    assert!(
        incremental >= ROUNDS / 6,
        "{browser}: only {incremental} reads re-read only the changed parts"
    );
}

/// A frame's snapshots are its own: iframe_read answers its changes, and the top document does
/// not take a frame's snapshotId (another document).
pub async fn a_frame_has_its_own_snapshots(session: &Session) {
    let browser = session.browser.name();
    session
        .open(&fixtures().url("/pages/frames/embed.html"))
        .await;
    let booking = crate::frames::frame_with(session, "/frames/form.html").await;
    let frame_id = booking["frameId"].clone();
    let first = session
        .ok("iframe_read", json!({"frameId": frame_id}))
        .await;
    let id = snapshot_of(&first, browser);
    let same = session
        .ok("iframe_read", json!({"frameId": frame_id, "since": id}))
        .await;
    assert_eq!(same["unchanged"], json!(true), "{browser}: {same}");
    assert_eq!(same["frameId"], frame_id, "{browser}");
    let city = reference_of(tree_of(&first), "textbox \"City\"");
    session
        .ok(
            "iframe_type",
            json!({"frameId": frame_id, "ref_id": city, "text": "Lisbon"}),
        )
        .await;
    let typed = session
        .ok(
            "iframe_read",
            json!({"frameId": frame_id, "since": snapshot_of(&same, browser)}),
        )
        .await;
    assert_eq!(typed["full"], json!(false), "{browser}: {typed}");
    assert!(
        tree_of(&typed).contains("textbox \"City\"")
            && tree_of(&typed).contains("value=\"Lisbon\""),
        "{browser}:\n{}",
        tree_of(&typed)
    );
    let top = session
        .ok("get_accessibility_tree", json!({"since": id}))
        .await;
    assert_eq!(top["full"], json!(true), "{browser}: {top}");
    assert_eq!(top["fullReason"], json!("document_changed"), "{browser}");
}

/// The changes real pages make answer in a few lines, and each action's result carries them
/// (`changes`, bounded, with the new `snapshotId`), so that the agent need not read again:
/// a click that replaces an unnamed section's content inside `main`, a re-sorted list, a wrapper
/// rendered again, a modal added at the end of `body`, a route change that keeps header and
/// navigation. At the end, a read since the first snapshot answers all of it, shorter than the
/// whole tree.
pub async fn real_page_changes_are_a_few_lines(session: &Session) {
    let browser = session.browser.name();
    session
        .open(&fixtures().url("/pages/since/classes.html"))
        .await;
    let first = session.ok("get_accessibility_tree", json!({})).await;
    let first_id = snapshot_of(&first, browser);
    let whole_chars = tree_of(&first).chars().count();
    let mut seen = Seen {
        tree: tree_of(&first).to_string(),
        snapshot_id: first_id.clone(),
    };
    let act = async |seen: &mut Seen, line_start: &str| -> Value {
        let target = reference_of(&seen.tree, line_start);
        let result = session.ok("click_ax", json!({"ref_id": target})).await;
        let changes = result["changes"].clone();
        let id = changes["snapshotId"]
            .as_str()
            .unwrap_or_else(|| panic!("{browser}: {line_start}: no changes in {result}"))
            .to_string();
        assert_ne!(id, seen.snapshot_id, "{browser}");
        let text = changes["text"].as_str().unwrap_or_default();
        assert!(text.chars().count() <= 1_200, "{browser}: {changes}");
        // Lines to act on next: the changes' refs are as good as a read's.
        seen.tree = format!("{}\n{text}", seen.tree);
        seen.snapshot_id = id;
        changes
    };

    let loaded = act(&mut seen, "button \"Load\"").await;
    let text = loaded["text"].as_str().unwrap_or_default();
    assert!(text.contains("[removed]"), "{browser}:\n{text}");
    assert!(text.contains("Press Load"), "{browser}:\n{text}");
    assert!(
        text.contains("heading \"Quarterly report\""),
        "{browser}:\n{text}"
    );
    assert!(
        text.contains("button \"Download\" [ref_"),
        "{browser}:\n{text}"
    );
    assert!(!text.contains("Part 3"), "{browser}:\n{text}");
    assert!(text.lines().count() <= 14, "{browser}:\n{text}");

    let sorted = act(&mut seen, "button \"Sort by price\"").await;
    // Each action's changes are a read that keeps a snapshot, and a frame keeps its last four:
    // the snapshot after this action is the oldest still kept at the end.
    let kept_id = seen.snapshot_id.clone();
    let text = sorted["text"].as_str().unwrap_or_default();
    // Figs (the cheapest) moved to the front; the others kept their order.
    assert!(text.contains("Figs"), "{browser}:\n{text}");
    for kept in ["Bread", "Cheese", "Dates", "Eggs"] {
        assert!(!text.contains(kept), "{browser}:\n{text}");
    }

    let rendered = act(&mut seen, "button \"Refresh account\"").await;
    assert!(
        !rendered["text"]
            .as_str()
            .unwrap_or_default()
            .contains("Save account"),
        "{browser}: {rendered}"
    );
    let save = reference_of(&seen.tree, "button \"Save account\"");
    assert!(
        rendered["replacedRefs"][&save].is_string(),
        "{browser}: {save} not replaced in {rendered}"
    );

    let modal = act(&mut seen, "button \"Delete row\"").await;
    let text = modal["text"].as_str().unwrap_or_default();
    assert!(
        text.contains("dialog \"Delete row 3\""),
        "{browser}:\n{text}"
    );
    assert!(text.lines().count() <= 9, "{browser}:\n{text}");

    let route = act(&mut seen, "button \"Settings\"").await;
    let text = route["text"].as_str().unwrap_or_default();
    assert!(text.contains("heading \"Settings\""), "{browser}:\n{text}");
    assert!(!text.contains("Topic"), "{browser}:\n{text}");
    assert!(!text.contains("Part 3"), "{browser}:\n{text}");

    // All of it since an earlier snapshot (no longer the newest: the whole page is read and
    // compared): still a diff, much shorter than the tree.
    let all = session
        .ok("get_accessibility_tree", json!({"since": kept_id}))
        .await;
    assert_eq!(all["full"], json!(false), "{browser}: {all}");
    let chars = tree_of(&all).chars().count();
    eprintln!("{browser}: every change since the first read: {chars} characters, the whole tree {whole_chars}");
    assert!(chars * 3 < whole_chars, "{browser}:\n{}", tree_of(&all));
}

/// What the agent has seen in `real_page_changes_are_a_few_lines`: the first read and every
/// action's changes, and the newest snapshot.
struct Seen {
    tree: String,
    snapshot_id: String,
}
