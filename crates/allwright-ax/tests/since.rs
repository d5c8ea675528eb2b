//! A read since a snapshot through the core's envelope (docs/protocol/reading.md, "Reads since a
//! snapshot"): the records written to the caller's buffer and counted in `lineCount`, then a
//! second read against them that answers only the changes, their refs and `removedRefs`, or the
//! whole tree with `full` and `fullReason` when the changes are most of the page or exceed
//! `maxChars`.

use allwright_ax::memdom::MemDom;
use allwright_ax::reads::{changes_output, split_output};
use serde_json::Value;

#[path = "support/since_reads.rs"]
mod since_reads;
use since_reads::{element, read, PAGE};

#[test]
fn the_second_read_answers_only_what_changed() {
    let dom = MemDom::parse(PAGE);
    let (first, body, records) = read(&dom, None, None);
    assert_eq!(
        records.len() / 5,
        body.lines().count(),
        "one record per line"
    );
    assert!(first["result"].get("full").is_none(), "{first}");

    let (same, same_body, _) = read(&dom, Some(&records), None);
    assert_eq!(same["result"]["full"], Value::Bool(false));
    assert_eq!(same["result"]["unchanged"], Value::Bool(true));
    assert_eq!(same_body, "");

    let mut changed = MemDom::parse(PAGE);
    changed.set_attribute(element(&changed, "buy"), "aria-label", "Buy now");
    let (diff, diff_body, _) = read(&changed, Some(&records), None);
    assert_eq!(diff["result"]["full"], Value::Bool(false), "{diff}");
    assert_eq!(diff["result"]["changedBlocks"], Value::from(1));
    assert!(
        diff_body.contains("[changed]\n button \"Buy now\" [ref_"),
        "{diff_body}"
    );
    // The refs of the printed lines, context included, for the actions (the small main landmark
    // prints none: printed_reference.rs).
    let refs = diff["refs"].as_array().expect("refs");
    assert_eq!(refs.len(), 1, "the button: {diff}");
    assert_eq!(refs[0][2], Value::from("Buy now"));

    let mut removed = MemDom::parse(PAGE);
    removed.set_attribute(element(&removed, "buy"), "hidden", "");
    let (gone, _, _) = read(&removed, Some(&records), None);
    let buy = element(&removed, "buy").0 + 1;
    assert_eq!(
        gone["result"]["removedRefs"],
        serde_json::json!([format!("ref_{buy}")])
    );
}

#[test]
fn most_of_the_page_changed_or_too_long_for_max_chars_answers_the_whole_tree() {
    let dom = MemDom::parse(PAGE);
    let (_, whole, records) = read(&dom, None, None);
    let mut hidden = MemDom::parse(PAGE);
    let list = element(&hidden, "list");
    hidden.set_attribute(list, "aria-label", "Fruit");
    hidden.set_attribute(list, "style", "color: red");
    let main = allwright_ax::Dom::parent(&hidden, list).expect("main");
    hidden.set_attribute(main, "aria-label", "Another shop");
    let (full, body, _) = read(&hidden, Some(&records), None);
    assert_eq!(full["result"]["full"], Value::Bool(true), "{full}");
    assert_eq!(full["result"]["fullReason"], Value::from("too_large"));
    assert_ne!(body, whole);
    assert!(body.starts_with("main \"Another shop\""), "{body}");

    let mut small = MemDom::parse(PAGE);
    // Longer than maxChars, but less than half the whole tree with its context (the main
    // landmark, and the heading its name is left to).
    let long_name = "Buy now and receive the order within two working days".repeat(2);
    small.set_attribute(element(&small, "buy"), "aria-label", &long_name);
    let (paged, _, _) = read(&small, Some(&records), Some(100));
    assert!(
        paged["result"]["full"] == Value::Bool(true)
            && paged["result"]["fullReason"] == "larger_than_max_chars",
        "{paged}"
    );
}

/// The run of a snapshot's lines a re-read replaced (everything between the lines both reads
/// share at the start and at the end), with its new records and their lines' lengths.
struct RereadRun {
    replaced: [u32; 3],
    replacement: Vec<u32>,
    replacement_lengths: Vec<u32>,
}

/// Each line's length in Unicode scalar values, as the content script counts
/// (extension/shared/line-records.js, `lineLength`).
fn lengths_of(body: &str) -> Vec<u32> {
    body.lines()
        .map(|line| line.chars().count() as u32)
        .collect()
}

fn reread_run(previous: &[u32], current: &[u32], current_body: &str) -> RereadRun {
    let previous_lines: Vec<&[u32]> = previous.chunks(5).collect();
    let current_lines: Vec<&[u32]> = current.chunks(5).collect();
    let shared_start = previous_lines
        .iter()
        .zip(&current_lines)
        .take_while(|(before, now)| before == now)
        .count();
    let shared_end = previous_lines[shared_start..]
        .iter()
        .rev()
        .zip(current_lines[shared_start..].iter().rev())
        .take_while(|(before, now)| before == now)
        .count();
    let end = current_lines.len() - shared_end;
    RereadRun {
        replaced: [
            shared_start as u32,
            (previous_lines.len() - shared_end) as u32,
            (end - shared_start) as u32,
        ],
        replacement: current_lines[shared_start..end].concat(),
        replacement_lengths: lengths_of(current_body)[shared_start..end].to_vec(),
    }
}

/// The text a `changes_output` plan stands for over the current lines.
fn plan_text(envelope: &Value, lines: &[&str]) -> String {
    envelope["plan"]
        .as_array()
        .expect("a plan")
        .iter()
        .map(|item| match item {
            Value::String(banner) => banner.clone(),
            number => lines[number.as_u64().expect("a position") as usize].to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// A read of the changed parts only (the snapshot with one run of lines replaced, and the
/// lines' lengths) answers what the whole second read answers. The glue's tests check that the
/// packed forms of the service worker's core answer the same (crates/allwright-ax-wasm/tests).
#[test]
fn a_diff_of_the_re_read_parts_answers_what_the_whole_read_answers() {
    let dom = MemDom::parse(PAGE);
    let (_, previous_body, previous) = read(&dom, None, None);
    let mut changed = MemDom::parse(PAGE);
    changed.set_attribute(element(&changed, "buy"), "aria-label", "Buy now");
    let (whole_diff, whole_diff_body, _) = read(&changed, Some(&previous), None);
    let (_, current_body, current) = read(&changed, None, None);
    let run = reread_run(&previous, &current, &current_body);
    assert!(run.replaced[1] - run.replaced[0] < 3, "{:?}", run.replaced);

    let decode = allwright_ax::tree_diff::decode_records;
    let previous_lengths = lengths_of(&previous_body);
    let output = changes_output(
        &decode(&previous),
        &previous_lengths,
        &run.replaced,
        &decode(&run.replacement),
        &run.replacement_lengths,
        None,
    );
    let (envelope, body) = split_output(&output);
    assert_eq!(body, "");
    let envelope: Value = serde_json::from_str(envelope).expect("JSON");
    let lines: Vec<&str> = current_body.lines().collect();
    assert_eq!(plan_text(&envelope, &lines), whole_diff_body);
    for field in ["full", "changedBlocks", "removedRefs", "notice"] {
        assert_eq!(
            envelope["result"][field], whole_diff["result"][field],
            "{field}"
        );
    }

    // Nothing changed: no run, the unchanged answer and an empty plan.
    let none = changes_output(&decode(&previous), &previous_lengths, &[], &[], &[], None);
    let envelope: Value = serde_json::from_str(split_output(&none).0).expect("JSON");
    assert_eq!(
        envelope["result"]["unchanged"],
        Value::Bool(true),
        "{envelope}"
    );
    assert_eq!(envelope["plan"], serde_json::json!([]));

    // Malformed calls are refused, never read past: a run past the snapshot, a length short on
    // either side.
    let past = changes_output(
        &decode(&previous),
        &previous_lengths,
        &[0, previous.len() as u32, 0],
        &[],
        &[],
        None,
    );
    assert!(past.starts_with("{\"ok\":false"), "{past}");
    let short = changes_output(
        &decode(&previous),
        &previous_lengths[1..],
        &run.replaced,
        &decode(&run.replacement),
        &run.replacement_lengths,
        None,
    );
    assert!(short.starts_with("{\"ok\":false"), "{short}");
    let short = changes_output(
        &decode(&previous),
        &previous_lengths,
        &run.replaced,
        &decode(&run.replacement),
        &run.replacement_lengths[1..],
        None,
    );
    assert!(short.starts_with("{\"ok\":false"), "{short}");
}

/// What a read since a snapshot answers, reduced to what the two ways of making it must share:
/// the whole tree for this reason, or only the changes as this text.
#[derive(Debug, PartialEq)]
enum SinceAnswer {
    Whole(String),
    Changes(String),
}

/// The whole read since the snapshot `previous`, as the core in the page makes it when it reads
/// every node again.
fn whole_read_answer(changed: &MemDom, previous: &[u32], max_chars: u32) -> SinceAnswer {
    let (envelope, body, _) = read(changed, Some(previous), Some(max_chars));
    match envelope["result"]["fullReason"].as_str() {
        Some(reason) => SinceAnswer::Whole(reason.to_string()),
        None => SinceAnswer::Changes(body),
    }
}

/// The read of only the changed parts: the run of re-read lines put into the snapshot's, their
/// lengths counted as the content script counts them (`lengths_of`), compared by
/// `changes_output`.
fn parts_read_answer(
    previous: &[u32],
    previous_body: &str,
    current: &[u32],
    current_body: &str,
    max_chars: u32,
) -> SinceAnswer {
    let decode = allwright_ax::tree_diff::decode_records;
    let run = reread_run(previous, current, current_body);
    let output = changes_output(
        &decode(previous),
        &lengths_of(previous_body),
        &run.replaced,
        &decode(&run.replacement),
        &run.replacement_lengths,
        Some(max_chars),
    );
    let envelope: Value = serde_json::from_str(split_output(&output).0).expect("JSON");
    match envelope["full"].as_str() {
        Some(reason) => SinceAnswer::Whole(reason.to_string()),
        None => {
            let lines: Vec<&str> = current_body.lines().collect();
            SinceAnswer::Changes(plan_text(&envelope, &lines))
        }
    }
}

/// Pieces of names that JavaScript and Rust measure differently: characters outside the Basic
/// Multilingual Plane (one scalar, two UTF-16 units), emoji with skin tones and variation
/// selectors, zero-width-joiner sequences and flags (several scalars drawn as one), combining
/// accents, and plain text.
const NAME_PIECES: &[&str] = &[
    "a",
    "Buy ",
    "😀",
    "👋🏽",
    "👨\u{200d}👩\u{200d}👧\u{200d}👦",
    "🇫🇷",
    "❤\u{fe0f}",
    "𝔘𝔫𝔦𝔠𝔬𝔡𝔢",
    "e\u{301}",
    "中文",
    "\u{10ffff}",
];

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(48))]

    /// "A partial re-read answers what the whole read would" (issue 32 item 2): over names rich
    /// in emoji and astral-plane text, and every `maxChars` near the changes' length, the read of
    /// only the changed parts answers the whole read's answer: the same reason for the whole
    /// tree, or the same changes. Both count in Unicode scalars (docs/protocol/host-safety.md, "Sizes of a
    /// read"); counted in UTF-16 units, the parts' lengths would weigh these names up to twice
    /// as much and answer `larger_than_max_chars` where the whole read shows the changes.
    #[test]
    fn a_read_of_the_changed_parts_answers_the_whole_read_near_max_chars(
        pieces in proptest::collection::vec(proptest::sample::select(NAME_PIECES), 12..60)
    ) {
        // A plain beginning keeps the changes longer than the smallest `maxChars` (100), so
        // that the window below reaches both sides of the bound.
        let name = format!("Receive the order within two working days {}", pieces.concat());
        let dom = MemDom::parse(PAGE);
        let (_, previous_body, previous) = read(&dom, None, None);
        let mut changed = MemDom::parse(PAGE);
        changed.set_attribute(element(&changed, "buy"), "aria-label", &name);
        let (_, current_body, current) = read(&changed, None, None);
        let unlimited = whole_read_answer(&changed, &previous, 1_000_000);
        proptest::prop_assert_eq!(
            &parts_read_answer(&previous, &previous_body, &current, &current_body, 1_000_000),
            &unlimited
        );
        // A long name can make the whole main landmark one change (a large landmark prints its
        // ref: printed_reference.rs), longer than the whole tree: both answered that above.
        let SinceAnswer::Changes(changes) = unlimited else {
            return Ok(());
        };
        let changes_length = changes.chars().count() as u32;
        let mut both = [0usize; 2];
        for max_chars in changes_length.saturating_sub(8).max(100)..changes_length + 8 {
            let whole = whole_read_answer(&changed, &previous, max_chars);
            let parts =
                parts_read_answer(&previous, &previous_body, &current, &current_body, max_chars);
            both[usize::from(matches!(whole, SinceAnswer::Changes(_)))] += 1;
            proptest::prop_assert_eq!(&parts, &whole, "maxChars {}, name {:?}", max_chars, name);
        }
        // The window reaches both sides of the bound: the changes fit, and they do not.
        proptest::prop_assert!(both[0] > 0 && both[1] > 0, "{changes_length}: {both:?}");
    }
}
