//! Where the core runs (issue 14, item 1; docs/protocol/core.md "The core in the service worker"),
//! through MCP as an agent reads and acts. In Chromium a page whose CSP forbids WASM in the
//! content script is read by the WASM core in the extension's service worker ("wasm-worker");
//! every other page, and every page in Firefox, by the WASM core in the content script
//! ("wasm-page"). Fixtures: fixtures/pages/engines/ (page.html without a policy and strict.html,
//! the same file, with `script-src 'self'`).

use serde_json::{json, Value};

use crate::support::{fixtures, reference_of, without_refs, Browser, Session};

const OPEN_PAGE: &str = "/pages/engines/page.html";
const STRICT_PAGE: &str = "/pages/engines/strict.html";

/// The engine a strict-CSP page is read with in this browser. Where the core runs on a page whose CSP forbids WASM in a content script: Chromium moves it to
/// the service worker; Firefox does not apply the page's CSP to content scripts.
pub fn strict_engine(session: &Session) -> &'static str {
    match session.browser {
        Browser::Chromium => "wasm-worker",
        Browser::Firefox => "wasm-page",
    }
}

/// Lines both engine fixtures print: a name from a button's content, one from another node
/// (`aria-labelledby`), one inside an open shadow root, and a labelled field.
fn assert_reads_the_engine_fixture(tree: &str, context: &str) {
    for expected in [
        "button \"Close dialog\"",
        "button \"Labelled by another node\"",
        "button \"Inside shadow\"",
        "textbox \"Card number\"",
    ] {
        assert!(tree.contains(expected), "{context}: {expected} in {tree}");
    }
}

fn tree_of(result: &Value) -> &str {
    result["tree"].as_str().expect("a tree string")
}

/// The same document read with and without a strict policy prints the same tree, whichever
/// engine read it: the packed facts, the generated content resolved in the page (an icon
/// button named by `::after`; quotes and a prefix that no name takes), an aria-labelledby name, a shadow
/// root, and strings a hostile page could use against the encoding (U+0001, a lone surrogate,
/// characters outside the BMP) all survive the trip to the service worker.
pub async fn strict_pages_read_like_open_ones(session: &Session) {
    let browser = session.browser.name();
    let server = fixtures();
    session.open(&server.url(OPEN_PAGE)).await;
    let open = session.ok("get_accessibility_tree", json!({})).await;
    assert_eq!(open["engine"], "wasm-page", "{browser}: {open}");
    session.open(&server.url(STRICT_PAGE)).await;
    let strict = session.ok("get_accessibility_tree", json!({})).await;
    assert_eq!(
        strict["engine"],
        strict_engine(session),
        "{browser}: {strict}"
    );
    assert!(
        strict.get("engineFallback").is_none(),
        "{browser}: {strict}"
    );
    let tree = tree_of(&strict);
    assert_reads_the_engine_fixture(tree, browser);
    assert_eq!(
        without_refs(tree_of(&open)),
        without_refs(tree),
        "{browser}: the strict page's tree differs from the open page's"
    );
    // In Chromium the background finishes the strict page's read (docs/protocol/core.md, "The read
    // handed to the background") with the function the frame runs for the open page's: both
    // answer the same fields, with the same values but for the document's own.
    let document_fields = ["tree", "url", "title", "engine", "snapshotId", "coverage"];
    let fields_of = |result: &Value| -> Vec<(String, Value)> {
        let mut fields: Vec<(String, Value)> = result
            .as_object()
            .expect("a tree result is an object")
            .iter()
            .filter(|(name, _)| !document_fields.contains(&name.as_str()))
            .map(|(name, value)| (name.clone(), value.clone()))
            .collect();
        fields.sort_by(|a, b| a.0.cmp(&b.0));
        fields
    };
    assert_eq!(
        fields_of(&open),
        fields_of(&strict),
        "{browser}: the strict page's read answers other fields than the open page's"
    );
    let mut named: Vec<&str> = strict
        .as_object()
        .expect("object")
        .keys()
        .map(String::as_str)
        .filter(|name| document_fields.contains(name))
        .collect();
    named.sort_unstable();
    assert_eq!(
        named,
        ["coverage", "engine", "snapshotId", "title", "tree", "url"],
        "{browser}: {strict}"
    );
    // The structured snapshot of the same page runs on the same engine, and says so.
    let snapshot = session.ok("accessibility_snapshot", json!({})).await;
    assert_eq!(
        snapshot["engines"],
        json!([strict_engine(session)]),
        "{browser}: {snapshot}"
    );
}

/// On a strict page, references from the worker's read act on the right elements (type, click),
/// and a read `since` that snapshot reports what the click changed.
pub async fn refs_act_and_since_reads_on_strict_pages(session: &Session) {
    let browser = session.browser.name();
    session.open(&fixtures().url(STRICT_PAGE)).await;
    let first = session.ok("get_accessibility_tree", json!({})).await;
    let since = type_click_and_read_since(session, &first, "5555", browser).await;
    assert_eq!(
        since["engine"],
        strict_engine(session),
        "{browser}: {since}"
    );
    assert_eq!(since["full"], json!(false), "{browser}: {since}");
    let changes = tree_of(&since);
    assert!(
        changes.contains("Applied at checkout"),
        "{browser}: the new line is reported: {changes}"
    );
    assert!(
        !changes.contains("Close dialog"),
        "{browser}: unchanged lines are not: {changes}"
    );
}

/// The first read of a document sent the instant `navigate` returns, and one sent while the
/// warm-up read is likely running (it starts 150 ms after the frame's core has loaded:
/// docs/protocol/core.md "Preparing the core early"), on an open and a strict page: each prints the
/// page whole, registers its references (a second read prints the very same tree, numbers
/// included), and its references act; a read `since` its snapshot reports the click's change.
pub async fn the_first_read_is_right_at_once_and_during_the_warm_up(session: &Session) {
    let browser = session.browser.name();
    let server = fixtures();
    for (page, engine) in [
        (OPEN_PAGE, "wasm-page"),
        (STRICT_PAGE, strict_engine(session)),
    ] {
        for delay_ms in [0u64, 170] {
            let context = format!("{browser}: {page} read {delay_ms} ms after navigate");
            session
                .ok(
                    "navigate",
                    json!({"url": server.url(&format!("{page}?after={delay_ms}"))}),
                )
                .await;
            tokio::time::sleep(std::time::Duration::from_millis(delay_ms)).await;
            let first = session.ok("get_accessibility_tree", json!({})).await;
            assert_eq!(first["engine"], engine, "{context}: {first}");
            let tree = tree_of(&first);
            assert_reads_the_engine_fixture(tree, &context);
            let again = session.ok("get_accessibility_tree", json!({})).await;
            assert_eq!(
                tree,
                tree_of(&again),
                "{context}: a second read numbers the same elements the same"
            );
            let since = type_click_and_read_since(session, &first, "4242", &context).await;
            assert_eq!(since["full"], json!(false), "{context}: {since}");
            assert!(
                tree_of(&since).contains("Applied at checkout"),
                "{context}: {since}"
            );
        }
    }
}

/// Chromium's service worker may stop between two calls (it does when idle): the next read
/// starts it, which compiles and instantiates the core again, and nothing is lost: the `since`
/// read after the stop still compares with the snapshot taken before it (the snapshots live in
/// the content script; the core keeps no state between calls).
pub async fn a_stopped_worker_loses_no_read(session: &Session) {
    let browser = session.browser.name();
    session.open(&fixtures().url(STRICT_PAGE)).await;
    let first = session.ok("get_accessibility_tree", json!({})).await;
    assert_eq!(first["engine"], "wasm-worker", "{browser}: {first}");
    let id = first["snapshotId"]
        .as_str()
        .expect("snapshotId")
        .to_string();
    let apply = reference_of(tree_of(&first), "button \"Apply\"");
    // Each stop is followed by a browser event that wakes the worker (a background tab opened
    // from outside), not by the keep-alive alarm's wait (safety.rs checks that alarm).
    use crate::lifecycle::{close_from_outside, stop_service_worker, wake_service_worker};
    stop_service_worker(session).await;
    let woken = wake_service_worker(session).await;
    session.ok("click_ax", json!({"ref_id": apply})).await;
    close_from_outside(session, &woken).await;
    stop_service_worker(session).await;
    let woken = wake_service_worker(session).await;
    let since = session
        .ok("get_accessibility_tree", json!({"since": id}))
        .await;
    close_from_outside(session, &woken).await;
    assert_eq!(since["engine"], "wasm-worker", "{browser}: {since}");
    assert_eq!(since["full"], json!(false), "{browser}: {since}");
    assert!(
        tree_of(&since).contains("Applied at checkout"),
        "{browser}: {since}"
    );
    stop_service_worker(session).await;
    let woken = wake_service_worker(session).await;
    let whole = session.ok("get_accessibility_tree", json!({})).await;
    close_from_outside(session, &woken).await;
    assert_eq!(whole["engine"], "wasm-worker", "{browser}: {whole}");
    assert!(
        tree_of(&whole).contains("status \"Status\""),
        "{browser}: {whole}"
    );
}

/// One tab, three documents, three policies: the top page has none, one frame (from the other
/// origin) has a strict header, one a strict `<meta>` policy. Each document is read by its own
/// engine and shows its own content only: one frame's facts never produce another's result.
pub async fn frames_with_different_policies_pick_their_own_engine(session: &Session) {
    let browser = session.browser.name();
    session
        .open(&fixtures().url("/pages/engines/mixed.html"))
        .await;
    // The frames load after the top document.
    tokio::time::sleep(std::time::Duration::from_millis(500)).await;
    let snapshot = session.ok("accessibility_snapshot", json!({})).await;
    let engines = match session.browser {
        Browser::Chromium => json!(["wasm-page", "wasm-worker", "wasm-worker"]),
        Browser::Firefox => json!(["wasm-page", "wasm-page", "wasm-page"]),
    };
    assert_eq!(snapshot["engines"], engines, "{browser}: {snapshot}");
    let documents: Value =
        serde_json::from_str(snapshot["snapshot"].as_str().expect("snapshot string"))
            .expect("JSON snapshot");
    let documents = documents["documents"]
        .as_array()
        .expect("documents")
        .clone();
    assert_eq!(documents.len(), 3, "{browser}: {documents:?}");
    let texts: Vec<String> = documents
        .iter()
        .map(|document| document.to_string())
        .collect();
    assert!(texts[0].contains("Top button") && !texts[0].contains("Close dialog"));
    assert!(texts[1].contains("Close dialog") && !texts[1].contains("Top button"));
    assert!(texts[2].contains("Button under a meta policy") && !texts[2].contains("Apply"));
    // The tree tools name the engine of the frame they read, too.
    let frames = session.ok("get_frames", json!({})).await;
    let frame_ids: Vec<i64> = frames["frames"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|frame| frame["frameId"].as_i64())
        .filter(|id| *id != 0)
        .collect();
    assert_eq!(frame_ids.len(), 2, "{browser}: {frames}");
    for frame_id in frame_ids {
        let read = session
            .ok("iframe_read", json!({"frameId": frame_id}))
            .await;
        assert_eq!(
            read["engine"],
            strict_engine(session),
            "{browser}: frame {frame_id}: {read}"
        );
    }
    let top = session.ok("get_accessibility_tree", json!({})).await;
    assert_eq!(top["engine"], "wasm-page", "{browser}: {top}");
}

/// A page cannot talk to the service worker's core itself: the extension declares no
/// `externally_connectable`, so a page script has no channel to it (only the extension's own
/// content scripts do, and they send only facts they gathered). Asked from the page's world,
/// the extension's id answers nothing.
pub async fn a_page_cannot_reach_the_worker(session: &Session) {
    let browser = session.browser.name();
    session.open(&fixtures().url(STRICT_PAGE)).await;
    let identity: Value = serde_json::from_str(
        &std::fs::read_to_string(crate::support::repository_root().join("manifest/identity.json"))
            .expect("identity"),
    )
    .expect("JSON");
    let id = identity["chromeExtensionId"].as_str().expect("id");
    let outcome = session
        .evaluate(&format!(
            "(async () => {{
                const runtime = globalThis.chrome?.runtime ?? globalThis.browser?.runtime;
                if (typeof runtime?.sendMessage !== 'function') return 'no channel';
                try {{
                    const reply = await runtime.sendMessage('{id}', {{kind: 'allwright/core-call', operation: 'diffLines', strings: '', packed: 'AQAA', pseudo: [], options: {{}}, recordCapacity: 0}});
                    return 'answered ' + JSON.stringify(reply);
                }} catch (error) {{
                    return 'refused';
                }}
            }})()"
        ))
        .await;
    assert!(
        outcome == json!("no channel") || outcome == json!("refused"),
        "{browser}: a page reached the extension: {outcome}"
    );
}

/// Two tabs, both strict, read alternately: each read shows its own tab's page, and its
/// references act in that tab only (the worker answers each call to its sender alone, and keeps
/// nothing between calls).
pub async fn two_tabs_read_their_own_pages(session: &Session) {
    let browser = session.browser.name();
    let server = fixtures();
    session.open(&server.url(STRICT_PAGE)).await;
    let tabs = session.ok("list_tabs", json!({})).await;
    let first_tab = tabs["tabs"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|tab| tab["active"] == json!(true))
        .and_then(|tab| tab["tabId"].as_i64())
        .expect("the active tab");
    let opened = session
        .ok(
            "new_tab",
            json!({"url": server.url("/pages/engines/meta.html")}),
        )
        .await;
    let second_tab = opened["tabId"].as_i64().expect("new tab id");
    for _ in 0..2 {
        let first = session
            .ok("get_accessibility_tree", json!({"tabId": first_tab}))
            .await;
        let second = session
            .ok("get_accessibility_tree", json!({"tabId": second_tab}))
            .await;
        assert_eq!(
            first["engine"],
            strict_engine(session),
            "{browser}: {first}"
        );
        assert_eq!(
            second["engine"],
            strict_engine(session),
            "{browser}: {second}"
        );
        assert!(
            tree_of(&first).contains("button \"Apply\"")
                && !tree_of(&first).contains("Button under a meta policy"),
            "{browser}: {first}"
        );
        assert!(
            tree_of(&second).contains("Button under a meta policy")
                && !tree_of(&second).contains("Apply"),
            "{browser}: {second}"
        );
    }
    let first = session
        .ok("get_accessibility_tree", json!({"tabId": first_tab}))
        .await;
    let apply = reference_of(tree_of(&first), "button \"Apply\"");
    session
        .ok("click_ax", json!({"ref_id": apply, "tabId": first_tab}))
        .await;
    let status = session
        .evaluate("document.getElementById('status').textContent")
        .await;
    assert_eq!(
        status,
        json!("applied"),
        "{browser}: the click acted in the first tab"
    );
    session.ok("close_tab", json!({"tabId": second_tab})).await;
    session.ok("select_tab", json!({"tabId": first_tab})).await;
}

/// With the references of `first` (a read of the engines fixture page): types `text` into the
/// card field and clicks Apply, checks both in the page, and answers the read `since` that
/// first read's snapshot.
async fn type_click_and_read_since(
    session: &Session,
    first: &Value,
    text: &str,
    context: &str,
) -> Value {
    let tree = tree_of(first);
    let id = first["snapshotId"]
        .as_str()
        .expect("snapshotId")
        .to_string();
    let card = reference_of(tree, "textbox \"Card number\"");
    session
        .ok("type_ax", json!({"ref_id": card, "text": text}))
        .await;
    let value = session
        .evaluate("document.getElementById('card').value")
        .await;
    assert_eq!(value, json!(text), "{context}: typed into the card field");
    let apply = reference_of(tree, "button \"Apply\"");
    session.ok("click_ax", json!({"ref_id": apply})).await;
    let status = session
        .evaluate("document.getElementById('status').textContent")
        .await;
    assert_eq!(
        status,
        json!("applied"),
        "{context}: the click reached Apply"
    );
    session
        .ok("get_accessibility_tree", json!({"since": id}))
        .await
}
