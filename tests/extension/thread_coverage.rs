//! Thread-read coverage (docs/protocol/reading.md, "Thread-read coverage"), as an agent reads a webmail
//! thread: the tree names the conversation's root, the anchored pages read through
//! `continuationArgs` make the read complete, and repeated, skipped, stale, foreign-ref and
//! document-root pages are not progress. The fixture is an MUI mail client
//! (fixtures/apps/mui-mail.jsx): folders, an inbox list and a thread of ten messages, seven of
//! them collapsed behind "Expand all".

use std::time::Duration;

use serde_json::{json, Value};

use crate::actions::{ref_of, state_when};
use crate::lifecycle::{close_from_outside, stop_service_worker, wake_service_worker};
use crate::support::{fixtures, Browser, Session};

/// Small enough that the thread needs several pages.
const PAGE_CHARS: u64 = 600;

/// Opens the mail fixture afresh (a navigation, which also forgets every earlier read's pages)
/// and waits until React has rendered the thread.
async fn open_mail(session: &Session) {
    session
        .open(&fixtures().url("/pages/thread/mui-mail.html"))
        .await;
    state_when(session, "the mail app did not render", |state| {
        state["messageCount"] == 10
    })
    .await;
}

async fn read(session: &Session, arguments: Value) -> Value {
    session.ok("get_accessibility_tree", arguments).await
}

/// The conversation root the document read reports; it must be printed in the tree.
async fn conversation_root(session: &Session) -> String {
    let browser = session.browser.name();
    let whole = read(session, json!({})).await;
    let root = whole["conversationRootRefId"]
        .as_str()
        .unwrap_or_else(|| panic!("{browser}: no conversationRootRefId in {whole}"))
        .to_string();
    let tree = whole["tree"].as_str().expect("tree");
    assert!(
        tree.lines()
            .any(|line| line.trim_start() == format!("main [{root}]")),
        "{browser}: the root {root} is not the printed main landmark:\n{tree}"
    );
    root
}

/// The coverage of a result as `(progress, reason, complete, pagesRead)`.
fn summary(result: &Value) -> (bool, String, bool, Vec<u64>) {
    let coverage = &result["coverage"];
    (
        coverage["progress"].as_bool().expect("progress"),
        coverage["reason"].as_str().expect("reason").to_string(),
        coverage["complete"].as_bool().expect("complete"),
        coverage["pagesRead"]
            .as_array()
            .expect("pagesRead")
            .iter()
            .map(|page| page.as_u64().expect("page"))
            .collect(),
    )
}

fn page_one(root: &str) -> Value {
    json!({"ref_id": root, "maxChars": PAGE_CHARS})
}

/// The same read with another page (what an agent that does not reuse continuationArgs sends).
fn page_of(root: &str, page: u64) -> Value {
    json!({"ref_id": root, "maxChars": PAGE_CHARS, "filter": "all", "maxDepth": 15, "page": page})
}

pub async fn conversation_root_is_the_thread(session: &Session) {
    let browser = session.browser.name();
    open_mail(session).await;
    let root = conversation_root(session).await;
    let thread = read(session, json!({"ref_id": root})).await;
    let tree = thread["tree"].as_str().expect("tree");
    for inside in [
        "heading \"Quarterly plan review\"",
        "heading \"Ana Lima\"",
        "heading \"Farid Haddad\"",
        // MUI's buttons are uppercased by CSS; names follow `text-transform` as Chromium's do.
        "button \"EXPAND ALL\"",
        "Message 10 from Ben Moreau",
    ] {
        assert!(
            tree.contains(inside),
            "{browser}: {inside} not in the thread:\n{tree}"
        );
    }
    for outside in ["Lunch on Friday", "Starred", "Search mail", "Fixture state"] {
        assert!(
            !tree.contains(outside),
            "{browser}: {outside} in the thread:\n{tree}"
        );
    }
    // An anchored read of the root names itself: the rule is the same on every path.
    assert_eq!(thread["conversationRootRefId"], root.as_str(), "{browser}");
    assert_eq!(thread["allMessagesExpanded"], false, "{browser}: {thread}");
    assert!(
        thread.get("contentFingerprint").is_none(),
        "{browser}: internal field leaked"
    );
}

pub async fn every_page_through_continuation_args_is_complete(session: &Session) {
    let browser = session.browser.name();
    open_mail(session).await;
    let root = conversation_root(session).await;
    let mut arguments = page_one(&root);
    let mut pages = Vec::new();
    loop {
        let page = read(session, arguments.clone()).await;
        pages.push(page["tree"].as_str().expect("tree").to_string());
        let (progress, reason, complete, read_pages) = summary(&page);
        let number = pages.len() as u64;
        assert!(progress, "{browser}: page {number} is not progress: {page}");
        assert_eq!(
            reason,
            if number == 1 {
                "first_page"
            } else {
                "next_page"
            },
            "{browser}"
        );
        assert_eq!(read_pages, (1..=number).collect::<Vec<_>>(), "{browser}");
        match page.get("continuationArgs") {
            Some(next) => {
                assert!(!complete, "{browser}: complete before the last page");
                assert_eq!(
                    *next,
                    json!({"filter": "all", "maxDepth": 15, "maxChars": PAGE_CHARS, "ref_id": root, "page": number + 1}),
                    "{browser}: continuationArgs are not exact"
                );
                arguments = next.clone();
            }
            None => {
                assert!(
                    complete,
                    "{browser}: the last page did not complete: {page}"
                );
                assert_eq!(page["coverage"]["pageCount"], number, "{browser}");
                break;
            }
        }
        assert!(pages.len() < 50, "{browser}: paging does not end");
    }
    assert!(
        pages.len() >= 3,
        "{browser}: the thread fits in {} page(s)",
        pages.len()
    );
    // Read whole (another maxChars: a read of its own, complete in one page), the thread is the
    // pages put together.
    let whole = read(session, json!({"ref_id": root})).await;
    assert_eq!(
        summary(&whole),
        (true, "restarted".to_string(), true, vec![1]),
        "{browser}"
    );
    assert_eq!(
        pages.join("\n"),
        whole["tree"].as_str().expect("tree"),
        "{browser}: the pages add up to the thread"
    );
}

pub async fn repeated_skipped_foreign_and_document_root_pages_are_not_progress(session: &Session) {
    let browser = session.browser.name();
    open_mail(session).await;
    let root = conversation_root(session).await;
    let expect = |result: &Value, progress: bool, reason: &str, pages: &[u64]| {
        let (actual_progress, actual_reason, complete, read_pages) = summary(result);
        assert_eq!(
            (
                actual_progress,
                actual_reason.as_str(),
                complete,
                read_pages.as_slice()
            ),
            (progress, reason, false, pages),
            "{browser}: {}",
            result["coverage"]
        );
    };
    expect(
        &read(session, page_one(&root)).await,
        true,
        "first_page",
        &[1],
    );
    expect(
        &read(session, page_one(&root)).await,
        false,
        "repeated_page",
        &[1],
    );
    expect(
        &read(session, page_of(&root, 3)).await,
        false,
        "skipped_page",
        &[1],
    );
    expect(
        &read(session, page_of(&root, 2)).await,
        true,
        "next_page",
        &[1, 2],
    );
    expect(
        &read(session, page_of(&root, 2)).await,
        false,
        "repeated_page",
        &[1, 2],
    );
    // Another anchor holds something else: the Inbox folder button is a foreign ref. (The inbox
    // list is too short to print a ref of its own: docs/protocol/reading.md, "Which lines print their
    // reference".)
    let inbox = ref_of(session, "button", "Inbox").await;
    let foreign = read(session, json!({"ref_id": inbox, "maxChars": 200})).await;
    expect(&foreign, false, "foreign_ref", &[1]);
    if let Some(next) = foreign.get("continuationArgs") {
        expect(
            &read(session, next.clone()).await,
            false,
            "foreign_ref",
            &[1, 2],
        );
    }
    // Pages of the document root walk the inbox and the chrome too: they never count.
    let document = read(session, json!({"maxChars": PAGE_CHARS})).await;
    expect(&document, false, "document_root", &[1]);
    let next = document["continuationArgs"].clone();
    assert!(next.get("ref_id").is_none(), "{browser}: {next}");
    expect(&read(session, next).await, false, "document_root", &[1, 2]);
    // Another filter is not the read that completes a conversation.
    let visible = read(
        session,
        json!({"ref_id": root, "filter": "visible", "maxChars": PAGE_CHARS}),
    )
    .await;
    expect(&visible, false, "not_default_arguments", &[1]);
    // None of that disturbed the conversation's own read.
    expect(
        &read(session, page_of(&root, 3)).await,
        true,
        "next_page",
        &[1, 2, 3],
    );
}

pub async fn a_changed_thread_is_stale_and_restarts(session: &Session) {
    let browser = session.browser.name();
    open_mail(session).await;
    let root = conversation_root(session).await;
    let first = read(session, page_one(&root)).await;
    assert_eq!(summary(&first).1, "first_page", "{browser}");
    let next = first["continuationArgs"].clone();
    // A reply arrives while the agent reads.
    session
        .evaluate("window.mailFixture.addMessage('Gus Lee', 'A late reply to the plan.')")
        .await;
    state_when(session, "the reply did not arrive", |state| {
        state["messageCount"] == 11
    })
    .await;
    let stale = read(session, next).await;
    assert_eq!(
        summary(&stale),
        (false, "stale_page".to_string(), false, vec![]),
        "{browser}"
    );
    assert_eq!(
        summary(&read(session, page_of(&root, 3)).await).1,
        "skipped_page",
        "{browser}: the read restarts at page 1"
    );
    // Read again from page 1, the changed thread completes, reply included.
    let mut page = read(session, page_one(&root)).await;
    assert_eq!(summary(&page).1, "first_page", "{browser}");
    let mut text = page["tree"].as_str().expect("tree").to_string();
    while let Some(next) = page.get("continuationArgs").cloned() {
        page = read(session, next).await;
        assert!(summary(&page).0, "{browser}: {}", page["coverage"]);
        text.push_str(page["tree"].as_str().expect("tree"));
    }
    assert!(
        summary(&page).2,
        "{browser}: not complete: {}",
        page["coverage"]
    );
    assert!(text.contains("A late reply to the plan."), "{browser}");
}

pub async fn collapse_all_is_evidence_of_expanded_messages(session: &Session) {
    let browser = session.browser.name();
    open_mail(session).await;
    let before = read(session, json!({})).await;
    assert_eq!(before["allMessagesExpanded"], false, "{browser}");
    let expand = ref_of(session, "button", "EXPAND ALL").await;
    session.ok("click_ax", json!({"ref_id": expand})).await;
    state_when(session, "Expand all did not expand", |state| {
        state["expandedCount"] == 10
    })
    .await;
    let root = conversation_root(session).await;
    let thread = read(session, json!({"ref_id": root})).await;
    assert_eq!(thread["allMessagesExpanded"], true, "{browser}: {thread}");
    let tree = thread["tree"].as_str().expect("tree");
    assert!(tree.contains("button \"COLLAPSE ALL\""), "{browser}");
    // Every message's body is now in the thread.
    for index in 1..=10 {
        assert!(
            tree.contains(&format!("Message {index} from")),
            "{browser}: message {index}"
        );
    }
    // Collapsing again takes the evidence back.
    let collapse = ref_of(session, "button", "COLLAPSE ALL").await;
    session.ok("click_ax", json!({"ref_id": collapse})).await;
    state_when(session, "Collapse all did not collapse", |state| {
        state["expandedCount"] == 0
    })
    .await;
    assert_eq!(
        read(session, json!({})).await["allMessagesExpanded"],
        false,
        "{browser}"
    );
}

/// Chromium: the pages read survive a stopped service worker (they are in storage.session).
pub async fn coverage_survives_a_service_worker_restart(session: &Session) {
    assert_eq!(session.browser, Browser::Chromium);
    open_mail(session).await;
    let root = conversation_root(session).await;
    let mail_tab = session.ok("list_tabs", json!({})).await["tabs"]
        .as_array()
        .expect("tabs")
        .iter()
        .find(|tab| tab["active"] == true)
        .and_then(|tab| tab["tabId"].as_i64())
        .expect("the mail tab");
    let first = read(
        session,
        json!({"tabId": mail_tab, "ref_id": root, "maxChars": PAGE_CHARS}),
    )
    .await;
    let next = first["continuationArgs"].clone();
    assert_eq!(
        next["tabId"], mail_tab,
        "continuationArgs name the tab: {next}"
    );
    stop_service_worker(session).await;
    // Any extension event wakes the worker; a tab opened from outside leaves the mail tab's
    // document, and so its records, alone.
    let woken = wake_service_worker(session).await;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    let second = loop {
        match session.call("get_accessibility_tree", next.clone()).await {
            Ok(result) => break result,
            Err(error) if tokio::time::Instant::now() < deadline => {
                let _ = error;
                tokio::time::sleep(Duration::from_millis(300)).await;
            }
            Err(error) => panic!(
                "no tree read after the service worker restart: {:?}",
                error.0
            ),
        }
    };
    assert_eq!(
        summary(&second),
        (true, "next_page".to_string(), false, vec![1, 2]),
        "{}",
        second["coverage"]
    );
    close_from_outside(session, &woken).await;
}
