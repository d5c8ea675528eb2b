//! `accessibility_snapshot` over WebDriver BiDi in a real browser: every behaviour the
//! snapshot promises (docs/protocol/channels.md, section 3; tests/README.md lists them). Opt-in, because
//! the tests launch a browser with a temporary profile (one for the whole binary, a fresh tab
//! for each test: tests/shared_browser/mod.rs):
//!
//! ```text
//! cargo test -p allwright-surface-web --test accessibility -- --ignored
//! ALLWRIGHT_TEST_BROWSER=firefox cargo test -p allwright-surface-web --test accessibility -- --ignored
//! ```
//!
//! Pages come from `fixtures/` through the fixture server of the root package's browser tests
//! (two origins, so that cross-origin frames are real ones). The extension's browser tests read
//! the same pages (tests/extension/surface.rs); that the two surfaces give the same bytes is
//! checked there (tests/extension/bidi_snapshot.rs), where both are reachable.

use std::path::PathBuf;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use allwright_surface_web::launch::LaunchedBrowser;
use allwright_surface_web::{
    accessibility_snapshot, Page, SnapshotErrorKind, SnapshotFormat, SnapshotMode, SnapshotOptions,
};
use serde_json::{json, Value};

// The fixture server is shared with the root package's browser tests; this test uses part of it.
#[allow(dead_code)]
#[path = "../../../tests/support/fixture_server.rs"]
mod fixture_server;

#[path = "../../../tests/support/snapshot_checks.rs"]
mod snapshot_checks;

mod shared_browser;

use fixture_server::FixtureServer;
use shared_browser::{browser_kind, SharedBrowserTurn};
use snapshot_checks::{
    expect_node, find, nodes, shadow_roots_and_slots, surface_hidden_and_off_screen,
    surface_labels_and_descriptions, surface_owned_list, surface_typed_states, top_root,
};

/// Every wait is bounded: a hang is a failure with a message.
const PATIENCE: Duration = Duration::from_secs(30);

fn repository_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The shared fixture server (two origins) for the whole test binary.
fn fixtures() -> Arc<FixtureServer> {
    static SERVER: OnceLock<Arc<FixtureServer>> = OnceLock::new();
    SERVER
        .get_or_init(|| {
            Arc::new(
                FixtureServer::start(&repository_root().join("fixtures"), None)
                    .expect("start the fixture server"),
            )
        })
        .clone()
}

/// A test's turn with the binary's one browser (tests/shared_browser/mod.rs) and the fresh tab
/// it opened for the test.
struct TestBrowser {
    name: &'static str,
    tab: String,
    turn: SharedBrowserTurn,
}

impl TestBrowser {
    async fn start() -> TestBrowser {
        let turn = SharedBrowserTurn::start().await;
        TestBrowser {
            name: browser_kind().name(),
            tab: turn.tab.clone(),
            turn,
        }
    }

    fn launched(&self) -> &LaunchedBrowser {
        self.turn.launched()
    }

    async fn open(&self, path: &str) {
        let url = fixtures().url(path);
        self.launched()
            .bidi()
            .navigate(&self.tab, &url, PATIENCE)
            .await
            .unwrap_or_else(|error| panic!("{}: open {url}: {error}", self.name));
    }

    async fn snapshot_text(&self, format: SnapshotFormat, mode: Option<SnapshotMode>) -> String {
        let options = SnapshotOptions {
            format,
            mode,
            timeout: PATIENCE,
        };
        // The page-level entry (`page.accessibilitySnapshot`); the free function is the same call.
        Page::new(self.launched().bidi(), &self.tab)
            .accessibility_snapshot(&options)
            .await
            .unwrap_or_else(|error| panic!("{}: snapshot: {error}", self.name))
    }

    /// The JSON snapshot, parsed.
    async fn snapshot(&self, mode: Option<SnapshotMode>) -> Value {
        let text = self.snapshot_text(SnapshotFormat::Json, mode).await;
        serde_json::from_str(&text).expect("the JSON snapshot parses")
    }

    /// Evaluates an expression in the page's own realm of a context (a page script's view) and
    /// returns its value, which must be a string, number, boolean or null.
    async fn evaluate_in(&self, context: &str, expression: &str) -> Value {
        let response = self
            .launched()
            .bidi()
            .command(
                "script.evaluate",
                json!({
                    "expression": expression,
                    "target": {"context": context},
                    "awaitPromise": true,
                    "resultOwnership": "none",
                }),
            )
            .await
            .unwrap_or_else(|error| panic!("evaluate {expression}: {error}"));
        assert_ne!(
            response["type"], "exception",
            "{}: {expression} threw: {}",
            self.name, response["exceptionDetails"]
        );
        match response["result"]["type"].as_str() {
            Some("string" | "number" | "boolean") => response["result"]["value"].clone(),
            _ => Value::Null,
        }
    }

    async fn evaluate(&self, expression: &str) -> Value {
        self.evaluate_in(&self.tab.clone(), expression).await
    }

    async fn finish(self) {
        self.turn.finish().await;
    }
}

/// Opens a fixture page in a fresh tab, snapshots it (JSON) and runs a check of
/// tests/support/snapshot_checks.rs on the top document.
async fn check_top_document(path: &str, check: fn(&Value, &str)) {
    let browser = TestBrowser::start().await;
    browser.open(path).await;
    let snapshot = browser.snapshot(None).await;
    check(top_root(&snapshot), browser.name);
    browser.finish().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "launches a browser"]
async fn json_and_yaml_hold_the_same_snapshot() {
    let browser = TestBrowser::start().await;
    browser.open("/pages/surface.html").await;
    let json_text = browser.snapshot_text(SnapshotFormat::Json, None).await;
    let yaml_text = browser.snapshot_text(SnapshotFormat::Yaml, None).await;
    let from_json: Value = serde_json::from_str(&json_text).expect("JSON parses");
    let from_yaml: Value = serde_yaml::from_str(&yaml_text).expect("YAML parses");
    assert_eq!(
        from_json, from_yaml,
        "{}: YAML differs from JSON",
        browser.name
    );
    assert_eq!(from_json["version"], 1);
    let top = &from_json["documents"][0];
    assert_eq!(top["contextId"], browser.tab.as_str(), "{}", browser.name);
    assert_eq!(top["parentContextId"], Value::Null);
    assert_eq!(top["title"], "Surface fixture");
    assert_eq!(top["root"]["role"], "document");
    browser.finish().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "launches a browser"]
async fn labels_and_descriptions() {
    check_top_document("/pages/surface.html", surface_labels_and_descriptions).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "launches a browser"]
async fn typed_states() {
    check_top_document("/pages/surface.html", surface_typed_states).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "launches a browser"]
async fn hidden_content_is_excluded_and_hidden_labels_still_name() {
    check_top_document("/pages/surface.html", surface_hidden_and_off_screen).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "launches a browser"]
async fn password_and_file_values_never_appear() {
    let browser = TestBrowser::start().await;
    browser.open("/pages/surface.html").await;
    // A chosen file, as a page script can attach one: its name must not appear either.
    browser
        .evaluate(
            "(() => { const transfer = new DataTransfer(); \
             transfer.items.add(new File(['x'], 'secret-upload.txt')); \
             document.getElementById('file').files = transfer.files; \
             return document.getElementById('file').files.length; })()",
        )
        .await;
    for format in [SnapshotFormat::Json, SnapshotFormat::Yaml] {
        for mode in [None, Some(SnapshotMode::Ai)] {
            let text = browser.snapshot_text(format, mode).await;
            assert!(
                !text.contains("correct horse"),
                "{}: a password leaked",
                browser.name
            );
            assert!(
                !text.contains("secret-upload"),
                "{}: a file name leaked",
                browser.name
            );
        }
    }
    let snapshot = browser.snapshot(None).await;
    let password = expect_node(top_root(&snapshot), "textbox", "Password", browser.name);
    assert!(password["properties"].get("value").is_none());
    browser.finish().await;
}

/// The BiDi snapshot runs the extension's gatherer, so the one secret-field rule
/// (extension/shared/secret-fields.js) holds here too: fixtures/pages/safety/secrets.html fills
/// every kind of secret field (autofill tokens, a tel PIN, api_token, an "API key" label, style
/// masks on inputs, a textarea and an editing host, a card's expiry month in a select, and the
/// same in an open shadow root) with values holding "autofill-secret"; none shows, while the
/// ordinary nickname does.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "launches a browser"]
async fn secret_field_values_never_appear() {
    let browser = TestBrowser::start().await;
    browser.open("/pages/safety/secrets.html").await;
    for format in [SnapshotFormat::Json, SnapshotFormat::Yaml] {
        for mode in [None, Some(SnapshotMode::Ai)] {
            let text = browser.snapshot_text(format, mode).await;
            assert!(
                text.contains("visible-nickname"),
                "{}: ordinary values are shown: {text}",
                browser.name
            );
            assert!(
                !text.contains("autofill-secret"),
                "{}: a secret leaked: {text}",
                browser.name
            );
            // The page's one select is the secret month's: no option of it reads as selected.
            assert!(
                !text.contains("\"selected\":true") && !text.contains("selected: true"),
                "{}: the secret month leaked: {text}",
                browser.name
            );
        }
    }
    browser.finish().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "launches a browser"]
async fn shadow_dom_and_slots() {
    check_top_document("/pages/shadow.html", shadow_roots_and_slots).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "launches a browser"]
async fn aria_owns_cycles_and_duplicates() {
    check_top_document("/pages/surface.html", surface_owned_list).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "launches a browser"]
async fn off_screen_content_is_included() {
    check_top_document("/pages/surface.html", |root, browser| {
        for name in ["Off-screen but present", "Far below the fold"] {
            expect_node(root, "button", name, browser);
        }
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "launches a browser"]
async fn same_origin_cross_origin_and_hidden_frames() {
    let browser = TestBrowser::start().await;
    browser.open("/pages/frames.html").await;
    let snapshot = browser.snapshot(None).await;
    let documents = snapshot["documents"].as_array().expect("documents");
    assert_eq!(
        documents.len(),
        4,
        "{}: top + three frames: {snapshot}",
        browser.name
    );
    let top = &documents[0];
    assert_eq!(top["contextId"], browser.tab.as_str());
    expect_node(&top["root"], "iframe", "Same-origin frame", browser.name);
    expect_node(&top["root"], "iframe", "Cross-origin frame", browser.name);
    assert!(find(&top["root"], "iframe", "Hidden frame").is_none());
    // The frames' documents, in document order (depth-first), each from its own context.
    let tree = browser
        .launched()
        .bidi()
        .command("browsingContext.getTree", json!({"root": browser.tab}))
        .await
        .expect("getTree");
    let frame_contexts: Vec<&str> = tree["contexts"][0]["children"]
        .as_array()
        .expect("children")
        .iter()
        .filter_map(|child| child["context"].as_str())
        .collect();
    let mut who = Vec::new();
    for (document, context) in documents[1..].iter().zip(&frame_contexts) {
        assert_eq!(document["contextId"], *context, "{}", browser.name);
        assert_eq!(document["parentContextId"], top["contextId"]);
        let url = document["url"].as_str().unwrap_or("");
        let name = url.rsplit("who=").next().unwrap_or("").to_owned();
        expect_node(
            &document["root"],
            "heading",
            &format!("Frame content ({name})"),
            browser.name,
        );
        expect_node(
            &document["root"],
            "button",
            "Button inside the frame",
            browser.name,
        );
        if name == "cross" {
            assert!(url.starts_with(&fixtures().other_origin), "{url}");
        }
        who.push(name);
    }
    assert_eq!(who, vec!["same", "cross", "hidden"], "{}", browser.name);
    browser.finish().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "launches a browser"]
async fn strict_csp_pages_work_and_see_no_violation() {
    let browser = TestBrowser::start().await;
    let server = fixtures();
    for (page, has_listener, frames) in [("script-self", true, 3), ("default-none", false, 2)] {
        browser.open(&format!("/pages/csp/{page}.html")).await;
        let snapshot = browser.snapshot(None).await;
        expect_node(top_root(&snapshot), "button", "Pay now", browser.name);
        let documents = snapshot["documents"].as_array().expect("documents");
        assert_eq!(
            documents.len(),
            frames,
            "{} {page}: {snapshot}",
            browser.name
        );
        let ai = browser.snapshot(Some(SnapshotMode::Ai)).await;
        assert!(
            expect_node(top_root(&ai), "button", "Pay now", browser.name)["aria-ref"].is_string()
        );
        // Reports travel asynchronously: give them time to arrive before concluding none came.
        tokio::time::sleep(Duration::from_millis(700)).await;
        if has_listener {
            let seen = browser
                .evaluate("document.getElementById('violations').textContent")
                .await;
            assert_eq!(
                seen, "0",
                "{} {page}: the page saw a CSP violation",
                browser.name
            );
        }
        let reports: Vec<String> = server
            .reports()
            .into_iter()
            .filter(|report| report.query.contains(&format!("page={page}")))
            // Firefox fetches /favicon.ico for every page, which default-src 'none' forbids:
            // the browser's own request, not the collector's.
            .filter(|report| !report.body.contains("/favicon.ico"))
            .map(|report| report.body)
            .collect();
        assert!(
            reports.is_empty(),
            "{} {page}: CSP reports: {reports:?}",
            browser.name
        );
    }
    browser.finish().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "launches a browser"]
async fn ai_mode_references_select_one_element_and_stay_stable() {
    let browser = TestBrowser::start().await;
    browser.open("/pages/frames.html").await;
    let first = browser.snapshot(Some(SnapshotMode::Ai)).await;
    let documents = first["documents"].as_array().expect("documents").clone();
    let mut all_references = Vec::new();
    for document in &documents {
        let context = document["contextId"].as_str().expect("a context id");
        for node in nodes(&document["root"]) {
            if node["role"] == "text" {
                assert!(
                    node.get("aria-ref").is_none(),
                    "text nodes have no reference"
                );
            }
            let Some(reference) = node["aria-ref"].as_str() else {
                continue;
            };
            all_references.push(reference.to_owned());
            // Each reference selects exactly one element in its own document's frame.
            let count = browser
                .evaluate_in(
                    context,
                    &format!("document.querySelectorAll('[aria-ref=\"{reference}\"]').length"),
                )
                .await;
            assert_eq!(
                count, 1,
                "{}: [aria-ref={reference}] in {context}",
                browser.name
            );
        }
    }
    let unique: std::collections::BTreeSet<&String> = all_references.iter().collect();
    assert_eq!(
        unique.len(),
        all_references.len(),
        "{}: references are unique",
        browser.name
    );
    // Frame buttons: same role and name in three documents, three different references.
    let frame_buttons: Vec<&str> = documents[1..]
        .iter()
        .filter_map(|document| {
            expect_node(
                &document["root"],
                "button",
                "Button inside the frame",
                browser.name,
            )["aria-ref"]
                .as_str()
        })
        .collect();
    assert_eq!(frame_buttons.len(), 3);

    // Stable across captures; a renamed element gets a new reference and a hidden one loses its
    // attribute (surface.html has the elements for that).
    browser.open("/pages/surface.html").await;
    let before = browser.snapshot(Some(SnapshotMode::Ai)).await;
    let save = expect_node(top_root(&before), "button", "Save", browser.name)["aria-ref"]
        .as_str()
        .expect("Save has a reference")
        .to_owned();
    let nickname = expect_node(top_root(&before), "textbox", "Nickname", browser.name)["aria-ref"]
        .as_str()
        .expect("Nickname has a reference")
        .to_owned();
    let again = browser.snapshot(Some(SnapshotMode::Ai)).await;
    assert_eq!(
        expect_node(top_root(&again), "button", "Save", browser.name)["aria-ref"],
        save.as_str()
    );
    let id = browser
        .evaluate(&format!(
            "document.querySelector('[aria-ref=\"{save}\"]')?.id ?? null"
        ))
        .await;
    assert_eq!(id, "save", "{}", browser.name);
    browser
        .evaluate("document.getElementById('save').textContent = 'Store'; document.getElementById('nickname').closest('label').style.display = 'none'; true")
        .await;
    let after = browser.snapshot(Some(SnapshotMode::Ai)).await;
    assert_ne!(
        expect_node(top_root(&after), "button", "Store", browser.name)["aria-ref"],
        save.as_str()
    );
    let left = browser
        .evaluate(&format!(
            "document.querySelectorAll('[aria-ref=\"{nickname}\"]').length"
        ))
        .await;
    assert_eq!(left, 0, "{}: the stale aria-ref is removed", browser.name);
    browser.finish().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "launches a browser"]
async fn nothing_is_visible_to_the_pages_own_scripts() {
    let browser = TestBrowser::start().await;
    browser.open("/pages/bidi/page-globals.html").await;
    for mode in [None, Some(SnapshotMode::Ai)] {
        let snapshot = browser.snapshot(mode).await;
        assert_eq!(snapshot["documents"].as_array().map(Vec::len), Some(2));
    }
    let seen = browser.evaluate("pageSeesCollector()").await;
    let seen: Value = serde_json::from_str(seen.as_str().expect("a JSON text")).expect("JSON");
    assert_eq!(
        seen,
        json!({"appeared": [], "reachable": []}),
        "{}: the page's own scripts see the collector",
        browser.name
    );
    browser.finish().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "launches a browser"]
async fn a_missing_context_and_a_short_timeout_fail_with_typed_errors() {
    let browser = TestBrowser::start().await;
    browser.open("/pages/frames.html").await;
    let bidi = browser.launched().bidi();
    let gone = accessibility_snapshot(bidi, "no-such-context", &SnapshotOptions::default())
        .await
        .expect_err("no such context");
    assert_eq!(
        gone.kind,
        SnapshotErrorKind::FrameDetached,
        "{}: {gone}",
        browser.name
    );
    // A frame removed while the snapshot is collected: the page removes its frames as soon as
    // the "ai" capture of the top document writes its first aria-ref, before the frames' turn.
    browser
        .evaluate(
            "new MutationObserver(() => document.querySelectorAll('iframe').forEach((frame) => frame.remove())) \
             .observe(document.body, {attributes: true, attributeFilter: ['aria-ref'], subtree: true}); true",
        )
        .await;
    let options = SnapshotOptions {
        mode: Some(SnapshotMode::Ai),
        ..SnapshotOptions::default()
    };
    let detached = accessibility_snapshot(bidi, &browser.tab, &options)
        .await
        .expect_err("the frames are gone");
    assert_eq!(
        detached.kind,
        SnapshotErrorKind::FrameDetached,
        "{}: {detached}",
        browser.name
    );
    let options = SnapshotOptions {
        timeout: Duration::from_millis(1),
        ..SnapshotOptions::default()
    };
    let slow = accessibility_snapshot(bidi, &browser.tab, &options)
        .await
        .expect_err("1 ms is too short");
    assert_eq!(
        slow.kind,
        SnapshotErrorKind::Timeout,
        "{}: {slow}",
        browser.name
    );
    browser.finish().await;
}
