//! Bounded everything, through the built extension (issue 12, item 4; docs/protocol/host-safety.md, "Bounds
//! and deadlines"): pages far larger than any reply may carry answer within the call's time with
//! a page of the tree (maxChars defaults to 50,000), `result_too_large` naming the arguments that
//! would work, or, for a read the page is too large to finish, `timeout` saying so (never
//! `page_blocked`); and the extension and the host stay up for the next call. Fixtures:
//! fixtures/pages/bounds/.

use std::time::{Duration, Instant};

use serde_json::json;

use crate::support::{fixtures, line_starting, Session};

/// What a read of a huge page may answer: a tree page the host can carry, or `result_too_large`
/// with a hint that names the paging arguments.
async fn read_is_bounded(session: &Session, tool: &str, arguments: serde_json::Value, what: &str) {
    let browser = session.browser.name();
    let started = Instant::now();
    let outcome = session.call(tool, arguments.clone()).await;
    let elapsed = started.elapsed();
    match outcome {
        Ok(result) => {
            let text = serde_json::to_string(&result).expect("result JSON");
            assert!(
                text.len() < 32 * 1024 * 1024,
                "{browser}: {what}: {tool}({arguments}) answered {} bytes",
                text.len()
            );
            eprintln!(
                "{browser}: {what}: {tool}({arguments}) answered {} bytes in {elapsed:?}",
                text.len()
            );
        }
        // A read the page is too large to finish in the step's time says so: the frame was
        // busy with the read, not blocked by a prompt (docs/protocol/host-safety.md, "Bounds and deadlines").
        Err(error) if error.code() == "timeout" => {
            let message = error.0["message"].as_str().unwrap_or_default();
            assert!(
                message.contains("still reading the page's tree"),
                "{browser}: {what}: {tool}: {:?}",
                error.0
            );
            eprintln!(
                "{browser}: {what}: {tool}({arguments}) ran out of time reading, in {elapsed:?}"
            );
        }
        Err(error) => {
            assert_eq!(
                error.code(),
                "result_too_large",
                "{browser}: {what}: {tool}: {:?}",
                error.0
            );
            let hint = error.0["hint"].as_str().unwrap_or_default();
            assert!(
                hint.contains("maxChars") || hint.contains("ref_id"),
                "{browser}: {what}: the hint names what would work: {:?}",
                error.0
            );
            eprintln!("{browser}: {what}: {tool}({arguments}) refused as too large in {elapsed:?}");
        }
    }
    // "Within seconds": well inside the MCP call's own deadline, with a loaded CI machine's margin.
    assert!(
        elapsed < Duration::from_secs(60),
        "{browser}: {what}: {tool} took {elapsed:?}"
    );
}

/// The extension and the host answer a normal read after the huge ones.
async fn still_up(session: &Session, what: &str) {
    let browser = session.browser.name();
    session
        .open(&fixtures().url("/pages/compact-tree.html"))
        .await;
    let result = session.ok("get_accessibility_tree", json!({})).await;
    assert!(
        result["tree"]
            .as_str()
            .is_some_and(|tree| tree.contains("Volume")),
        "{browser}: after {what}, a normal read works"
    );
}

pub async fn a_forty_megabyte_textarea_answers_within_bounds(session: &Session) {
    let browser = session.browser.name();
    session
        .open(&fixtures().url("/pages/bounds/huge-textarea.html"))
        .await;
    // Filling is the browser's own work (see the fixture), given more time than a tool call.
    let length = session
        .evaluate_within("window.fill()", Duration::from_secs(180))
        .await;
    assert_eq!(length, json!(40 * 1024 * 1024), "{browser}");
    read_is_bounded(
        session,
        "get_accessibility_tree",
        json!({}),
        "40 MB textarea",
    )
    .await;
    read_is_bounded(
        session,
        "get_accessibility_tree",
        json!({"maxChars": 20000}),
        "40 MB textarea",
    )
    .await;
    read_is_bounded(
        session,
        "accessibility_snapshot",
        json!({}),
        "40 MB textarea",
    )
    .await;
    still_up(session, "the 40 MB textarea").await;
}

pub async fn a_million_nodes_answer_within_bounds(session: &Session) {
    let browser = session.browser.name();
    session
        .open(&fixtures().url("/pages/bounds/million-nodes.html"))
        .await;
    let elements = session.evaluate("window.build()").await;
    assert!(
        elements.as_u64().is_some_and(|count| count > 500_000),
        "{browser}: {elements}"
    );
    // The read covers the page's beginning and says that the page was cut.
    let started = Instant::now();
    let first = session.ok("get_accessibility_tree", json!({})).await;
    eprintln!(
        "{browser}: a million nodes: get_accessibility_tree answered in {:?}",
        started.elapsed()
    );
    let notice = first["notice"].as_str().unwrap_or_default();
    assert!(
        notice.contains("more than 200000 nodes"),
        "{browser}: the cut is said: {notice}"
    );
    assert_eq!(first["autoDegraded"], json!(true), "{browser}");
    let tree = first["tree"].as_str().expect("a tree");
    assert!(tree.contains("heading \"Inventory\""), "{browser}");
    assert!(
        tree.contains("\"Item 0\""),
        "{browser}: {}",
        &tree[..tree.len().min(400)]
    );
    // The button after the rows is past the cut.
    assert!(!tree.contains("Load more"), "{browser}");
    still_up(session, "a million nodes").await;
}

/// The string a tree line prints after `opening` (such as `button "` or `value="`), up to the
/// closing quote (the fixture's strings hold no quote to escape).
fn printed_after<'tree>(line: &'tree str, opening: &str) -> &'tree str {
    let start = line.find(opening).expect("the opening") + opening.len();
    let end = line[start..].find('"').expect("the closing quote");
    &line[start..start + end]
}

/// A tree read sends the core at most the beginning of a very long string (LONGEST_TEXT_READ in
/// extension/content/accessibility-tree.js), so that a huge field or text costs no more than the
/// tree prints of it. The cut must change nothing the agent reads: a name still prints its first
/// 10,000 characters and a value its first 2,000, each ending in `…`
/// (LONGEST_PRINTED_NAME and LONGEST_PRINTED_VALUE in crates/allwright-ax/src/text.rs), for every
/// kind of string: an attribute that names, a field's value, a link's address and a text run.
pub async fn long_strings_print_as_the_core_cuts_them(session: &Session) {
    let browser = session.browser.name();
    session
        .open(&fixtures().url("/pages/bounds/long-strings.html"))
        .await;
    let result = session.ok("get_accessibility_tree", json!({})).await;
    let tree = result["tree"].as_str().expect("a tree");
    assert!(!tree.contains("END!"), "{browser}: past every cut");
    assert!(
        tree.contains("button \"After the long strings\""),
        "{browser}: the page after the long strings is read"
    );
    let cases = [
        ("button \"x", "button \"", 10_000, "an aria-label"),
        ("paragraph \"word", "paragraph \"", 10_000, "a text run"),
        ("textbox \"Notes\"", "value=\"", 2_000, "a field's value"),
        (
            "link \"A long address\"",
            "href=\"",
            2_000,
            "a link's address",
        ),
    ];
    for (line_start, opening, printed_length, what) in cases {
        let printed = printed_after(line_starting(tree, line_start, browser), opening);
        assert_eq!(
            printed.chars().count(),
            printed_length,
            "{browser}: {what} prints its first characters: {:.120}",
            printed
        );
        assert!(
            printed.ends_with('…'),
            "{browser}: {what} ends with the mark"
        );
    }
}
