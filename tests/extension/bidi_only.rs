//! BiDi-only mode (docs/grid.md, "BiDi-only mode"): `allwright mcp --launch BROWSER
//! --no-extension` lists exactly the tools it serves, refuses the others naming the mode, reads
//! the same tree and refs as the extension for the same pages, and navigates and keeps tabs over
//! WebDriver BiDi alone. One BiDi-only session and one session with the extension (to compare
//! against) per browser.

use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::bridge::LaunchedMcp;
use crate::support::{fixtures, record_time, Browser};

/// The tools BiDi-only mode serves, in the table's order (src/tools/tiers.rs,
/// `SERVED_WITHOUT_EXTENSION`), as the Full tier lists them.
const SERVED: &[&str] = &[
    "get_accessibility_tree",
    "accessibility_snapshot",
    "screenshot",
    "save_pdf",
    "navigate",
    "click_ax",
    "type_ax",
    "set_field",
    "select_option",
    "hover",
    "press_key",
    "scroll",
    "go_back",
    "go_forward",
    "reload",
    "wait_for_stable",
    "wait_for",
    "list_tabs",
    "new_tab",
    "select_tab",
    "close_tab",
    "resize",
    "emulate",
    "console_messages",
    "network_requests",
    "handle_dialog",
];

/// Pages whose tree both sessions read: forms and widgets, open and closed shadow roots, frames
/// (same- and cross-origin, srcdoc), a strict CSP, and one of the since fixtures.
const PAGES: &[&str] = &[
    "/pages/surface.html",
    "/pages/shadow.html",
    "/pages/frames.html",
    "/pages/csp/default-none.html",
    "/pages/compact-tree.html",
    "/pages/registry.html",
];

/// How long a refusal may take: it is answered before anything reaches the browser.
const REFUSED_AT_ONCE: Duration = Duration::from_secs(2);

pub async fn bidi_only_mode(browser: Browser) {
    let name = browser.name();
    let mut started = Instant::now();
    let mut step = |what: &str| {
        record_time(&format!("{name} (BiDi-only): {what}"), started.elapsed());
        started = Instant::now();
    };
    let bidi = LaunchedMcp::start_with(browser, &["--no-extension"]).await;
    step("launch without the extension");
    let extension = LaunchedMcp::start_with(browser, &[]).await;
    step("launch with the extension");
    lists_only_what_it_serves(&bidi).await;
    step("lists_only_what_it_serves");
    trees_equal_the_extensions(&bidi, &extension).await;
    step("trees_equal_the_extensions");
    refs_stay_and_since_reads_answer_changes(&bidi).await;
    step("refs_stay_and_since_reads_answer_changes");
    navigation_moves_through_history(&bidi).await;
    step("navigation_moves_through_history");
    tabs_are_top_level_contexts(&bidi).await;
    step("tabs_are_top_level_contexts");
    snapshot_joins_every_document(&bidi, &extension).await;
    step("snapshot_joins_every_document");
    screenshots_mask_every_secret_field(&bidi).await;
    step("screenshots_mask_every_secret_field");
    dialogs_are_reported_and_answered(&bidi).await;
    step("dialogs_are_reported_and_answered");
    wait_for_returns_when_text_or_a_state_arrives(&bidi).await;
    step("wait_for_returns_when_text_or_a_state_arrives");
    clicks_answer_as_the_extensions_real_input(&bidi, &extension).await;
    step("clicks_answer_as_the_extensions_real_input");
    hovers_answer_as_the_extensions_real_input(&bidi, &extension).await;
    step("hovers_answer_as_the_extensions_real_input");
    keys_answer_as_the_extensions_real_input(&bidi, &extension).await;
    step("keys_answer_as_the_extensions_real_input");
    scrolls_answer_as_the_extensions(&bidi, &extension).await;
    step("scrolls_answer_as_the_extensions");
    fields_answer_as_the_extensions(&bidi, &extension).await;
    step("fields_answer_as_the_extensions");
    pdfs_print_any_tab(&bidi).await;
    step("pdfs_print_any_tab");
    console_and_network_are_recorded(&bidi).await;
    step("console_and_network_are_recorded");
    // Last: it leaves the tab's viewport resized, which the comparisons above must not meet.
    resize_and_emulate_set_the_tab(&bidi).await;
    step("resize_and_emulate_set_the_tab");
    bidi.shutdown().await;
    extension.shutdown().await;
}

async fn lists_only_what_it_serves(bidi: &LaunchedMcp) {
    let browser = bidi.browser.name();
    assert_eq!(
        bidi.tool_names().await,
        SERVED,
        "{browser}: the listed tools"
    );
    let instructions = bidi.instructions().unwrap_or_default();
    assert!(
        instructions.contains("BiDi-only mode"),
        "{browser}: the instructions say the mode: {instructions}"
    );
    let refused = bidi
        .refused(
            "drag",
            json!({"from_ref": "ref_1", "to_ref": "ref_2"}),
            "not_supported_here",
            REFUSED_AT_ONCE,
        )
        .await;
    let message = refused["message"].as_str().unwrap_or_default();
    assert!(message.contains("BiDi-only mode"), "{browser}: {refused}");
    assert!(refused["hint"].as_str().is_some(), "{browser}: {refused}");
    let shadow = bidi
        .refused(
            "get_shadow_dom",
            json!({}),
            "not_supported_here",
            REFUSED_AT_ONCE,
        )
        .await;
    assert!(
        shadow["message"]
            .as_str()
            .is_some_and(|message| message.contains("debugger")),
        "{browser}: {shadow}"
    );
}

/// The extension's tree as BiDi-only mode prints it: the extension prints an iframe's frame id
/// (`frameId=N`, from webNavigation) after its ref, which this mode has not (docs/grid.md,
/// "BiDi-only mode").
fn as_bidi_only_prints_it(tree: &str) -> String {
    without_frame_ids(tree)
}

fn without_frame_ids(tree: &str) -> String {
    let mut out = String::with_capacity(tree.len());
    let mut rest = tree;
    while let Some(start) = rest.find(" frameId=") {
        out.push_str(&rest[..start]);
        let digits = &rest[start + " frameId=".len()..];
        let end = digits
            .find(|character: char| !character.is_ascii_digit())
            .unwrap_or(digits.len());
        rest = &digits[end..];
    }
    out.push_str(rest);
    out
}

/// The same page read by both sessions, each in a fresh document of a fresh tab state: the same
/// text with the same ref numbers, for the whole tree and for each argument that shapes it.
async fn trees_equal_the_extensions(bidi: &LaunchedMcp, extension: &LaunchedMcp) {
    let browser = bidi.browser.name();
    let server = fixtures();
    for page in PAGES {
        let url = server.url(page);
        for session in [bidi, extension] {
            session.ok("navigate", json!({"url": url})).await;
        }
        for arguments in [
            json!({}),
            json!({"filter": "interactive"}),
            json!({"filter": "visible", "maxDepth": 4}),
            json!({"maxChars": 300}),
            json!({"maxChars": 300, "page": 2}),
        ] {
            let from_bidi = bidi.call("get_accessibility_tree", arguments.clone()).await;
            let from_extension = extension
                .call("get_accessibility_tree", arguments.clone())
                .await;
            match (from_bidi, from_extension) {
                (Ok(from_bidi), Ok(from_extension)) => {
                    let bidi_tree = from_bidi["tree"].as_str().expect("a tree");
                    let extension_tree =
                        as_bidi_only_prints_it(from_extension["tree"].as_str().expect("a tree"));
                    assert_eq!(
                        bidi_tree, extension_tree,
                        "{browser} {page} {arguments}: BiDi-only's tree differs from the extension's"
                    );
                    for field in ["truncated", "hasMore", "page", "pageCount", "title"] {
                        assert_eq!(
                            from_bidi[field], from_extension[field],
                            "{browser} {page} {arguments}: {field}"
                        );
                    }
                }
                (Err(from_bidi), Err(from_extension)) => assert_eq!(
                    from_bidi.code(),
                    from_extension.code(),
                    "{browser} {page} {arguments}"
                ),
                (from_bidi, from_extension) => panic!(
                    "{browser} {page} {arguments}: BiDi-only answered {from_bidi:?}, the extension {from_extension:?}"
                ),
            }
        }
        // A read anchored on a ref both printed.
        let tree = bidi.tree_text().await;
        if let Some(reference) = first_ref(&tree) {
            let arguments = json!({"ref_id": reference});
            let from_bidi = bidi.ok("get_accessibility_tree", arguments.clone()).await;
            let from_extension = extension.ok("get_accessibility_tree", arguments).await;
            assert_eq!(
                from_bidi["tree"].as_str(),
                Some(
                    as_bidi_only_prints_it(from_extension["tree"].as_str().unwrap_or_default())
                        .as_str()
                ),
                "{browser} {page}: the read of {reference}"
            );
        }
    }
    bidi.refused(
        "get_accessibility_tree",
        json!({"frameId": 1}),
        "not_supported_here",
        REFUSED_AT_ONCE,
    )
    .await;
    bidi.refused(
        "get_accessibility_tree",
        json!({"ref_id": "ref_999999"}),
        "ref_not_found",
        Duration::from_secs(20),
    )
    .await;
}

/// The last `[ref_N]` of a tree (an element deep in the page).
fn first_ref(tree: &str) -> Option<String> {
    let start = tree.rfind("[ref_")? + 1;
    let end = start + tree[start..].find(']')?;
    Some(tree[start..end].to_owned())
}

/// A ref stays its element's across reads; a read since a snapshot answers only what changed,
/// and a navigated tab numbers its new refs above the ones it printed before.
async fn refs_stay_and_since_reads_answer_changes(bidi: &LaunchedMcp) {
    let browser = bidi.browser.name();
    let server = fixtures();
    bidi.ok(
        "navigate",
        json!({"url": server.url("/pages/surface.html")}),
    )
    .await;
    let first = bidi
        .ok("get_accessibility_tree", json!({"verbose": true}))
        .await;
    let second = bidi
        .ok("get_accessibility_tree", json!({"verbose": true}))
        .await;
    assert_eq!(first["tree"], second["tree"], "{browser}: the same refs");
    let snapshot = second["snapshotId"].as_str().expect("a snapshotId");
    let unchanged = bidi
        .ok(
            "get_accessibility_tree",
            json!({"since": snapshot, "verbose": true}),
        )
        .await;
    assert_eq!(unchanged["full"], false, "{browser}: {unchanged}");
    let unknown = bidi
        .ok(
            "get_accessibility_tree",
            json!({"since": "s-00000000-1", "verbose": true}),
        )
        .await;
    assert_eq!(
        unknown["fullReason"], "document_changed",
        "{browser}: {unknown}"
    );
    let highest = highest_ref(first["tree"].as_str().unwrap_or_default());
    bidi.ok(
        "navigate",
        json!({"url": server.url("/pages/registry.html")}),
    )
    .await;
    let after = bidi.tree_text().await;
    let lowest_after = lowest_ref(&after).expect("refs on the new page");
    assert!(
        lowest_after > highest,
        "{browser}: the new document's refs start above {highest}:\n{after}"
    );
}

fn ref_numbers(tree: &str) -> Vec<u64> {
    tree.split("[ref_")
        .skip(1)
        .filter_map(|rest| rest.split(']').next()?.parse().ok())
        .collect()
}

fn highest_ref(tree: &str) -> u64 {
    ref_numbers(tree).into_iter().max().unwrap_or(0)
}

fn lowest_ref(tree: &str) -> Option<u64> {
    ref_numbers(tree).into_iter().min()
}

async fn navigation_moves_through_history(bidi: &LaunchedMcp) {
    let browser = bidi.browser.name();
    let server = fixtures();
    let first = server.url("/pages/surface.html");
    let second = server.url("/pages/shadow.html");
    bidi.ok("navigate", json!({"url": first})).await;
    let landed = bidi
        .ok("navigate", json!({"url": second, "verbose": true}))
        .await;
    assert_eq!(landed["url"], second, "{browser}: {landed}");
    let back = bidi.ok("go_back", json!({"verbose": true})).await;
    assert_eq!(
        (back["url"].as_str(), back["changed"].as_bool()),
        (Some(first.as_str()), Some(true)),
        "{browser}: {back}"
    );
    let forward = bidi.ok("go_forward", json!({"verbose": true})).await;
    assert_eq!(forward["url"], second, "{browser}: {forward}");
    bidi.refused(
        "go_forward",
        json!({}),
        "no_history",
        Duration::from_secs(20),
    )
    .await;
    let reloaded = bidi
        .ok("reload", json!({"ignoreCache": true, "verbose": true}))
        .await;
    assert_eq!(
        (reloaded["url"].as_str(), reloaded["changed"].as_bool()),
        (Some(second.as_str()), Some(false)),
        "{browser}: {reloaded}"
    );
    bidi.refused(
        "navigate",
        json!({"url": "file:///etc/passwd"}),
        "file_url_refused",
        REFUSED_AT_ONCE,
    )
    .await;
}

async fn tabs_are_top_level_contexts(bidi: &LaunchedMcp) {
    let browser = bidi.browser.name();
    let server = fixtures();
    let listed = bidi.ok("list_tabs", json!({})).await;
    let tabs = listed["tabs"].as_array().expect("tabs").clone();
    assert_eq!(
        tabs.len(),
        1,
        "{browser}: one tab at first (no mapper tab): {listed}"
    );
    assert_eq!(tabs[0]["active"], true, "{browser}: {listed}");
    let first_tab = tabs[0]["tabId"].as_i64().expect("a tab id");
    let url = server.url("/pages/frames.html");
    let opened = bidi
        .ok("new_tab", json!({"url": url, "verbose": true}))
        .await;
    let new_tab = opened["tabId"].as_i64().expect("a tab id");
    assert_ne!(new_tab, first_tab);
    assert_eq!(opened["url"], url, "{browser}: {opened}");
    // Calls without tabId go to the new, active tab.
    let read = bidi
        .ok("get_accessibility_tree", json!({"verbose": true}))
        .await;
    assert_eq!(read["url"], url, "{browser}: the active tab is read");
    let listed = bidi.ok("list_tabs", json!({})).await;
    let active: Vec<i64> = listed["tabs"]
        .as_array()
        .expect("tabs")
        .iter()
        .filter(|tab| tab["active"] == true)
        .filter_map(|tab| tab["tabId"].as_i64())
        .collect();
    assert_eq!(active, [new_tab], "{browser}: {listed}");
    let selected = bidi.ok("select_tab", json!({"tabId": first_tab})).await;
    assert_eq!(selected["tabId"], first_tab, "{browser}: {selected}");
    let other = bidi
        .ok(
            "get_accessibility_tree",
            json!({"tabId": new_tab, "verbose": true}),
        )
        .await;
    assert_eq!(other["url"], url, "{browser}: a read of the tab named");
    let closed = bidi.ok("close_tab", json!({"tabId": new_tab})).await;
    assert_eq!(
        (closed["closed"].as_i64(), closed["activeTabId"].as_i64()),
        (Some(new_tab), Some(first_tab)),
        "{browser}: {closed}"
    );
    bidi.refused(
        "select_tab",
        json!({"tabId": new_tab}),
        "no_tab",
        Duration::from_secs(10),
    )
    .await;
    bidi.refused(
        "close_tab",
        json!({}),
        "invalid_arguments",
        Duration::from_secs(10),
    )
    .await;
}

/// accessibility_snapshot joins the top document and its frames' as the extension does.
async fn snapshot_joins_every_document(bidi: &LaunchedMcp, extension: &LaunchedMcp) {
    let browser = bidi.browser.name();
    let url = fixtures().url("/pages/frames.html");
    for session in [bidi, extension] {
        session.ok("navigate", json!({"url": url})).await;
    }
    let from_bidi = bidi
        .ok("accessibility_snapshot", json!({"format": "json"}))
        .await;
    let from_extension = extension
        .ok("accessibility_snapshot", json!({"format": "json"}))
        .await;
    assert_eq!(
        from_bidi["documentCount"], from_extension["documentCount"],
        "{browser}: the documents joined"
    );
    let documents: Value =
        serde_json::from_str(from_bidi["snapshot"].as_str().expect("a snapshot")).expect("JSON");
    assert_eq!(
        documents["documents"].as_array().map(Vec::len),
        from_bidi["documentCount"]
            .as_u64()
            .map(|count| count as usize),
        "{browser}"
    );
}

/// Screenshots over BiDi alone paint over every secret field as the extension's masks do, in
/// the page, its frame and its closed shadow root (the same fixture and pixel checks as
/// bridge.rs, `secret_fields_are_painted_over_in_bidi_screenshots`).
async fn screenshots_mask_every_secret_field(bidi: &LaunchedMcp) {
    use crate::screenshot::{
        assert_secret_fields_masked, image_of, Picture, SECRET_FIELDS_IN_VIEWPORT,
        SECRET_FIELD_BELOW,
    };
    let browser = bidi.browser.name();
    let capture = |arguments: Value| async move {
        let result = bidi
            .call_result("screenshot", arguments.clone())
            .await
            .unwrap_or_else(|error| panic!("{browser}: screenshot({arguments}): {}", error.0));
        let (_, bytes, facts) = image_of(browser, &result);
        assert_eq!(facts["method"], "bidi", "{browser}: {facts}");
        (Picture::decode_png(&bytes), facts)
    };
    bidi.ok(
        "navigate",
        json!({"url": fixtures().url("/pages/screenshot/secrets.html")}),
    )
    .await;
    let (picture, facts) = capture(json!({})).await;
    assert_secret_fields_masked(
        browser,
        &picture,
        (0.0, 0.0),
        1.0,
        SECRET_FIELDS_IN_VIEWPORT,
        &facts,
    );
    assert_eq!(facts["maskedSecretFields"], 11, "{browser}: {facts}");
    assert!(facts.get("framesNotMasked").is_none(), "{browser}: {facts}");
    let (picture, facts) = capture(json!({"fullPage": true})).await;
    let mut everywhere = SECRET_FIELDS_IN_VIEWPORT.to_vec();
    everywhere.push(SECRET_FIELD_BELOW);
    assert!(picture.height >= 2430, "{browser}: the whole page: {facts}");
    assert_secret_fields_masked(browser, &picture, (0.0, 0.0), 1.0, &everywhere, &facts);
    assert_eq!(facts["maskedSecretFields"], 12, "{browser}: {facts}");
    let form = bidi.ref_of("region", "Payment").await;
    let (picture, facts) = capture(json!({"ref_id": form})).await;
    assert_eq!(facts["scope"], "element", "{browser}: {facts}");
    assert_secret_fields_masked(
        browser,
        &picture,
        (0.0, 0.0),
        1.0,
        &SECRET_FIELDS_IN_VIEWPORT[..8],
        &facts,
    );
    bidi.refused(
        "screenshot",
        json!({"ref_id": "ref_999999"}),
        "ref_not_found",
        Duration::from_secs(20),
    )
    .await;
}

/// A prompt that blocks the tab is reported as `dialog_open` (navigate meets it, and so does a
/// read), the tab tools still answer, and handle_dialog answers it; then the page goes on.
async fn dialogs_are_reported_and_answered(bidi: &LaunchedMcp) {
    let browser = bidi.browser.name();
    let url = fixtures().url("/pages/bidi/confirm-on-load.html");
    let blocked = bidi
        .refused(
            "navigate",
            json!({"url": url}),
            "dialog_open",
            Duration::from_secs(20),
        )
        .await;
    assert_eq!(blocked["dialog"]["type"], "confirm", "{browser}: {blocked}");
    assert_eq!(
        blocked["dialog"]["message"], "Carry on?",
        "{browser}: {blocked}"
    );
    bidi.refused(
        "get_accessibility_tree",
        json!({}),
        "dialog_open",
        Duration::from_secs(5),
    )
    .await;
    bidi.ok("list_tabs", json!({})).await;
    let handled = bidi.ok("handle_dialog", json!({"accept": true})).await;
    assert_eq!(
        (handled["handled"].as_bool(), handled["type"].as_str()),
        (Some(true), Some("confirm")),
        "{browser}: {handled}"
    );
    let mut tree = String::new();
    for _ in 0..50 {
        tree = bidi.tree_text().await;
        if tree.contains("confirmed") {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(tree.contains("status \"confirmed\""), "{browser}: {tree}");
    bidi.refused(
        "handle_dialog",
        json!({"accept": false}),
        "no_dialog",
        Duration::from_secs(5),
    )
    .await;
}

/// wait_for looks as the extension's does (the checks of find_and_wait.rs on a page that changes
/// by itself, since this mode has no action to start a change): texts in the page and in a frame
/// (not named by a frame id here), a text gone, element states, what was seen last on a timeout,
/// and a ref never printed refused.
async fn wait_for_returns_when_text_or_a_state_arrives(bidi: &LaunchedMcp) {
    let browser = bidi.browser.name();
    bidi.ok(
        "navigate",
        json!({"url": fixtures().url("/pages/bidi/late-by-itself.html")}),
    )
    .await;
    // One read, at once: the page changes 1.5 s after its load.
    let tree = bidi.tree_text().await;
    let ref_of = |start: &str| -> String {
        let line = tree
            .lines()
            .find(|line| line.trim_start().starts_with(start))
            .unwrap_or_else(|| panic!("{browser}: no {start} in\n{tree}"));
        let from = line.find("[ref_").expect("a ref") + 1;
        let to = from + line[from..].find(']').expect("the ref's end");
        line[from..to].to_owned()
    };
    let continue_ref = ref_of("button \"Continue\"");
    let accept = ref_of("checkbox \"Accept terms\"");
    let banner = ref_of("button \"Spring sale\"");
    for (arguments, what) in [
        (
            json!({ "text": "order   CONFIRMED" }),
            "a text, in any case and spacing",
        ),
        (json!({ "textGone": "Loading results" }), "a text gone"),
        (json!({ "text": "Frame ready" }), "a frame's text"),
        (
            json!({ "ref_id": continue_ref, "state": "enabled" }),
            "enabled",
        ),
        (json!({ "ref_id": accept, "state": "checked" }), "checked"),
        (json!({ "ref_id": banner, "state": "removed" }), "removed"),
        (
            json!({ "ref_id": banner, "state": "hidden" }),
            "hidden, once removed",
        ),
    ] {
        let mut arguments = arguments;
        arguments["timeoutMs"] = json!(10_000);
        let result = bidi.ok("wait_for", arguments.clone()).await;
        assert_eq!(
            result["met"], true,
            "{browser}: {what}: {arguments} {result}"
        );
    }
    // The page changed once and is quiet since, with no request running.
    let stable = bidi
        .ok(
            "wait_for_stable",
            json!({"quietMs": 300, "timeoutMs": 10_000}),
        )
        .await;
    assert_eq!(
        (
            stable["stable"].as_bool(),
            stable["pendingRequests"].as_u64()
        ),
        (Some(true), Some(0)),
        "{browser}: {stable}"
    );
    // Less time than the quiet asked for: not stable, and it says why.
    let too_short = bidi
        .ok(
            "wait_for_stable",
            json!({"quietMs": 2_000, "timeoutMs": 500}),
        )
        .await;
    assert_eq!(too_short["stable"], false, "{browser}: {too_short}");
    assert!(
        too_short["reason"].is_string() && too_short["hint"].is_string(),
        "{browser}: {too_short}"
    );
    let hidden = bidi
        .ok(
            "wait_for",
            json!({"text": "Hidden phrase", "timeoutMs": 300}),
        )
        .await;
    assert_eq!(
        (hidden["met"].as_bool(), hidden["reason"].as_str()),
        (Some(false), Some("timeout")),
        "{browser}: a text CSS hides is not shown: {hidden}"
    );
    assert_eq!(hidden["lastSeen"]["shown"], false, "{browser}: {hidden}");
    assert!(
        hidden["waitedMs"].as_u64().is_some_and(|ms| ms >= 300),
        "{browser}: {hidden}"
    );
    let still_enabled = bidi
        .ok(
            "wait_for",
            json!({"ref_id": continue_ref, "state": "disabled", "timeoutMs": 200}),
        )
        .await;
    assert_eq!(still_enabled["met"], false, "{browser}: {still_enabled}");
    assert_eq!(
        still_enabled["lastSeen"]["enabled"], true,
        "{browser}: {still_enabled}"
    );
    bidi.refused(
        "wait_for",
        json!({"ref_id": "ref_999999"}),
        "ref_not_found",
        REFUSED_AT_ONCE,
    )
    .await;
}

/// save_pdf prints the tab over `browsingContext.print` (src/bidi_only/pdf.rs): the three pages
/// of the print fixture, as the bridge's print of the same page has
/// (downloads::launched_pdf_of_any_tab), and a tab that is not shown prints too.
async fn pdfs_print_any_tab(bidi: &LaunchedMcp) {
    use crate::downloads::{assert_three_page_pdf, pdf_reply};
    let browser = bidi.browser.name();
    bidi.ok(
        "navigate",
        json!({"url": fixtures().url("/pages/downloads/print.html")}),
    )
    .await;
    let result = bidi
        .call_result("save_pdf", json!({}))
        .await
        .expect("save_pdf");
    let (header, bytes) = pdf_reply(browser, &result);
    assert_three_page_pdf(browser, &header, &bytes);
    assert_eq!(header["method"], "bidi", "{browser}: {header}");

    let tabs = bidi.ok("list_tabs", json!({})).await;
    let printed_tab = tabs["tabs"]
        .as_array()
        .and_then(|tabs| tabs.iter().find(|tab| tab["active"] == true))
        .map(|tab| tab["tabId"].clone())
        .unwrap_or_else(|| panic!("{browser}: no active tab in {tabs}"));
    let opened = bidi.ok("new_tab", json!({"url": "about:blank"})).await;
    let result = bidi
        .call_result("save_pdf", json!({"tabId": printed_tab}))
        .await
        .expect("save_pdf of a hidden tab");
    let (header, bytes) = pdf_reply(browser, &result);
    assert_three_page_pdf(browser, &header, &bytes);
    assert_eq!(header["tabId"], printed_tab, "{browser}: {header}");
    bidi.ok("close_tab", json!({"tabId": opened["tabId"]}))
        .await;
}

/// resize and emulate act on the tab's top-level context as the bridge's do (the same code,
/// src/browser_bridge/emulation.rs, whose effects in the page tests/extension/viewport.rs checks
/// with execute_js, which this mode does not serve): the layout follows the viewport, a request
/// carries the emulated user agent, an offline tab loads nothing, and the media features are
/// set where a route exists (a launched Chromium's pipe) and refused, named, where none does.
async fn resize_and_emulate_set_the_tab(bidi: &LaunchedMcp) {
    let browser = bidi.browser.name();
    let page = fixtures().url("/pages/emulation/index.html");
    bidi.ok("navigate", json!({ "url": page })).await;
    let narrow = bidi
        .ok("resize", json!({"width": 390, "height": 844}))
        .await;
    assert_eq!(narrow, json!({"width": 390, "height": 844}), "{browser}");
    let tree = bidi.tree_text().await;
    assert!(
        !tree.contains("Second page"),
        "{browser}: the narrow layout hides the navigation:\n{tree}"
    );
    bidi.ok("resize", json!({"width": 1200, "height": 800}))
        .await;
    let tree = bidi.tree_text().await;
    assert!(
        tree.contains("Second page"),
        "{browser}: the wide layout shows it:\n{tree}"
    );

    let user_agent = format!("allwright-bidi-only/1.0 ({browser})");
    let applied = bidi
        .ok(
            "emulate",
            json!({"deviceScaleFactor": 2, "userAgent": user_agent}),
        )
        .await;
    assert_eq!(
        applied,
        json!({"applied": ["deviceScaleFactor", "userAgent"]}),
        "{browser}"
    );
    // The server keeps each request's path and User-Agent; this agent string is this test's.
    let second = "/pages/emulation/second.html";
    bidi.ok("navigate", json!({ "url": fixtures().url(second) }))
        .await;
    assert_eq!(
        fixtures().request_count_from(&user_agent, second),
        1,
        "{browser}: the navigation's request carries the emulated user agent"
    );

    bidi.ok("emulate", json!({"offline": true})).await;
    let offline = bidi
        .refused(
            "navigate",
            json!({ "url": fixtures().url("/pages/emulation/index.html?offline") }),
            "navigation_failed",
            Duration::from_secs(30),
        )
        .await;
    assert!(offline["message"].is_string(), "{browser}: {offline}");
    bidi.ok("emulate", json!({"offline": false})).await;
    bidi.ok("navigate", json!({ "url": page })).await;

    if bidi.browser == Browser::Chromium {
        let media = bidi.ok("emulate", json!({"colorScheme": "dark"})).await;
        assert_eq!(media, json!({"applied": ["colorScheme"]}), "{browser}");
    } else {
        let refused = bidi
            .refused(
                "emulate",
                json!({"colorScheme": "dark"}),
                "not_supported_here",
                Duration::from_secs(10),
            )
            .await;
        assert!(
            refused["message"]
                .as_str()
                .is_some_and(|message| message.contains("colorScheme")),
            "{browser}: {refused}"
        );
    }
    let reset = bidi
        .ok(
            "emulate",
            json!({"deviceScaleFactor": 0, "userAgent": "", "offline": false}),
        )
        .await;
    assert_eq!(
        reset,
        json!({"applied": ["deviceScaleFactor", "userAgent", "offline"]}),
        "{browser}"
    );
}

/// console_messages and network_requests answer from the records the session keeps from its
/// start, read by the bridge's own rules (src/browser_bridge/observations.rs): the same check as
/// a launched browser's with the extension (page_records.rs), whose "Go" is clicked by ref here
/// too.
async fn console_and_network_are_recorded(bidi: &LaunchedMcp) {
    crate::page_records::console_and_network_are_recorded_and_credentials_never_shown(bidi).await;
}

/// The fields of an action's result, sorted: its shape.
fn fields_of(result: &Value) -> Vec<String> {
    let mut fields: Vec<String> = result
        .as_object()
        .map(|object| object.keys().cloned().collect())
        .unwrap_or_default();
    fields.sort_unstable();
    fields
}

/// A tree text with every ref number as `ref_N`: two sessions whose tabs printed different
/// numbers before print the same lines otherwise.
fn without_ref_numbers(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("ref_") {
        out.push_str(&rest[..start + "ref_".len()]);
        let digits = &rest[start + "ref_".len()..];
        let end = digits
            .find(|character: char| !character.is_ascii_digit())
            .unwrap_or(digits.len());
        if end > 0 {
            out.push('N');
        }
        rest = &digits[end..];
    }
    out.push_str(rest);
    out
}

/// click_ax is real pointer input over BiDi, answered as the extension answers its own real
/// input (`method: "bidi"`, src/browser_bridge/input.rs) on the same page: a button that counts
/// only trusted clicks (fixtures/pages/actions/trusted-only.html) counts one, and the result has
/// the same fields, outcome, evidence and changed lines. A covered button is refused naming the
/// cover and nothing is clicked (fixtures/pages/bridge/input.html); a ref of a document that
/// went away, and a ref never printed, are `ref_not_found`.
async fn clicks_answer_as_the_extensions_real_input(bidi: &LaunchedMcp, extension: &LaunchedMcp) {
    let browser = bidi.browser.name();
    let url = fixtures().url("/pages/actions/trusted-only.html");
    let mut results = Vec::new();
    for session in [bidi, extension] {
        session.ok("navigate", json!({"url": url})).await;
        let button = session.ref_of("button", "Trusted only").await;
        let clicked = session
            .ok("click_ax", json!({"ref_id": button, "verbose": true}))
            .await;
        assert_eq!(
            (clicked["method"].as_str(), clicked["input"].as_str()),
            (Some("bidi"), Some("trusted")),
            "{browser}: {clicked}"
        );
        assert_eq!(clicked["progress"], "observed", "{browser}: {clicked}");
        let tree = session.tree_text().await;
        assert!(
            tree.contains(r#"trustedClicks\":1"#),
            "{browser}: one trusted click:\n{tree}"
        );
        results.push(clicked);
    }
    let (from_bidi, from_extension) = (&results[0], &results[1]);
    assert_eq!(
        fields_of(from_bidi),
        fields_of(from_extension),
        "{browser}: the click's result has the extension's fields:\n{from_bidi}\n{from_extension}"
    );
    for field in [
        "success",
        "progress",
        "evidence",
        "retryAllowed",
        "tag",
        "role",
        "name",
        "navigates",
    ] {
        assert_eq!(
            from_bidi[field], from_extension[field],
            "{browser}: {field}:\n{from_bidi}\n{from_extension}"
        );
    }
    let changed_lines = |result: &Value| {
        without_ref_numbers(result["changes"]["text"].as_str().unwrap_or_default())
    };
    assert_eq!(
        changed_lines(from_bidi),
        changed_lines(from_extension),
        "{browser}: the changed lines since the last read:\n{from_bidi}\n{from_extension}"
    );
    assert!(
        changed_lines(from_bidi).contains(r#"trustedClicks\":1"#),
        "{browser}: {from_bidi}"
    );

    // A covered button: nothing is sent, and the error names the cover.
    bidi.ok(
        "navigate",
        json!({"url": fixtures().url("/pages/bridge/input.html")}),
    )
    .await;
    let covered = bidi.ref_of("button", "Covered button").await;
    let refused = bidi
        .refused(
            "click_ax",
            json!({"ref_id": covered}),
            "not_actionable",
            Duration::from_secs(20),
        )
        .await;
    let message = refused["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("cookie-banner") && message.contains("We use cookies"),
        "{browser}: {refused}"
    );
    assert!(
        !bidi.tree_text().await.contains("covered button"),
        "{browser}: the covered button was not clicked"
    );

    // A ref of the document before a reload, and a ref never printed.
    let stale = bidi.ref_of("button", "Trusted clicks: 0").await;
    bidi.ok("reload", json!({})).await;
    bidi.refused(
        "click_ax",
        json!({"ref_id": stale}),
        "ref_not_found",
        Duration::from_secs(20),
    )
    .await;
    bidi.refused(
        "click_ax",
        json!({"ref_id": "ref_999999"}),
        "ref_not_found",
        REFUSED_AT_ONCE,
    )
    .await;
    assert!(
        bidi.tree_text().await.contains("Trusted clicks: 0"),
        "{browser}: nothing was clicked after the reload"
    );
}

/// hover is real pointer input over BiDi, answered as the extension answers its own real hover
/// on the same page (fixtures/pages/bridge/input.html): a menu that CSS :hover alone opens shows
/// its item, and the result has the same fields and outcome; a covered element is refused.
async fn hovers_answer_as_the_extensions_real_input(bidi: &LaunchedMcp, extension: &LaunchedMcp) {
    let browser = bidi.browser.name();
    let url = fixtures().url("/pages/bridge/input.html");
    let mut results = Vec::new();
    for session in [bidi, extension] {
        session.ok("navigate", json!({"url": url})).await;
        // The pointer stays where the last input left it, which may be over the menu: it is
        // moved below it first, so that the menu is closed before the hover.
        let below = session.ref_of("button", "Trusted clicks: 0").await;
        session.ok("hover", json!({"ref_id": below})).await;
        assert!(!session.tree_text().await.contains("Laptops"), "{browser}");
        let products = session.ref_of("button", "Products").await;
        let hovered = session
            .ok("hover", json!({"ref_id": products, "verbose": true}))
            .await;
        assert_eq!(
            (hovered["method"].as_str(), hovered["input"].as_str()),
            (Some("bidi"), Some("trusted")),
            "{browser}: {hovered}"
        );
        assert_eq!(hovered["progress"], "observed", "{browser}: {hovered}");
        assert!(
            hovered["evidence"]
                .as_array()
                .is_some_and(|evidence| evidence.contains(&json!("revealed:hover"))),
            "{browser}: {hovered}"
        );
        assert!(
            session.tree_text().await.contains("Laptops"),
            "{browser}: the :hover menu is open"
        );
        results.push(hovered);
    }
    let (from_bidi, from_extension) = (&results[0], &results[1]);
    assert_eq!(
        fields_of(from_bidi),
        fields_of(from_extension),
        "{browser}: the hover's result has the extension's fields:\n{from_bidi}\n{from_extension}"
    );
    for field in ["success", "progress", "retryAllowed", "tag", "role", "name"] {
        assert_eq!(
            from_bidi[field], from_extension[field],
            "{browser}: {field}:\n{from_bidi}\n{from_extension}"
        );
    }
    let covered = bidi.ref_of("button", "Covered button").await;
    let refused = bidi
        .refused(
            "hover",
            json!({"ref_id": covered}),
            "not_actionable",
            Duration::from_secs(20),
        )
        .await;
    assert!(
        refused["message"]
            .as_str()
            .is_some_and(|message| message.contains("cookie-banner")),
        "{browser}: {refused}"
    );
}

/// Waits (with the session's own wait_for) until the page shows `text`.
async fn wait_for_text(session: &LaunchedMcp, text: &str) {
    let waited = session
        .ok("wait_for", json!({"text": text, "timeoutMs": 10_000}))
        .await;
    assert_eq!(
        waited["met"],
        true,
        "{}: the page never showed {text:?}: {waited}",
        session.browser.name()
    );
}

/// type_ax is the content script's own typing and press_key real key input over BiDi, each
/// answered as the extension answers it (fixtures/pages/bridge/keys.html): the text is typed
/// into the field, the field's handler sees one trusted Enter, the browser
/// itself submits the form once, and the result has the extension's fields and outcome. A key the
/// WebDriver key table lacks, and a field that hands focus to a decoy, get the content script's
/// own synthetic key instead, which says so, and the decoy gets no real key.
async fn keys_answer_as_the_extensions_real_input(bidi: &LaunchedMcp, extension: &LaunchedMcp) {
    let browser = bidi.browser.name();
    let url = fixtures().url("/pages/bridge/keys.html");
    let mut results = Vec::new();
    let mut typed_results = Vec::new();
    for session in [bidi, extension] {
        session.ok("navigate", json!({"url": url})).await;
        let query = session.ref_of("textbox", "Search").await;
        // type_ax is the content script's own typing, with the browser bridge as without it.
        let typed = session
            .ok(
                "type_ax",
                json!({"ref_id": query, "text": "lamps", "verbose": true}),
            )
            .await;
        assert_eq!(typed["input"], "synthetic", "{browser}: {typed}");
        assert_eq!(typed["progress"], "observed", "{browser}: {typed}");
        assert!(
            session.tree_text().await.contains("lamps"),
            "{browser}: the field holds the text"
        );
        typed_results.push(typed);
        let pressed = session
            .ok(
                "press_key",
                json!({"ref_id": query, "key": "Enter", "verbose": true}),
            )
            .await;
        assert_eq!(
            (pressed["method"].as_str(), pressed["input"].as_str()),
            (Some("bidi"), Some("trusted")),
            "{browser}: {pressed}"
        );
        assert_eq!(pressed["progress"], "observed", "{browser}: {pressed}");
        assert!(
            pressed.get("defaultAction").is_none(),
            "{browser}: {pressed}"
        );
        wait_for_text(
            session,
            "trusted Enter keys: 1, untrusted Enter keys: 0, submits: 1",
        )
        .await;
        results.push(pressed);
    }
    let (typed_bidi, typed_extension) = (&typed_results[0], &typed_results[1]);
    assert_eq!(
        fields_of(typed_bidi),
        fields_of(typed_extension),
        "{browser}: the typing's result has the extension's fields:\n{typed_bidi}\n{typed_extension}"
    );
    for field in [
        "success",
        "progress",
        "evidence",
        "retryAllowed",
        "role",
        "name",
        "value",
    ] {
        assert_eq!(
            typed_bidi[field], typed_extension[field],
            "{browser}: {field}:\n{typed_bidi}\n{typed_extension}"
        );
    }
    let (from_bidi, from_extension) = (&results[0], &results[1]);
    assert_eq!(
        fields_of(from_bidi),
        fields_of(from_extension),
        "{browser}: the key's result has the extension's fields:\n{from_bidi}\n{from_extension}"
    );
    for field in [
        "success",
        "progress",
        "retryAllowed",
        "tag",
        "role",
        "name",
        "key",
        "modifiers",
    ] {
        assert_eq!(
            from_bidi[field], from_extension[field],
            "{browser}: {field}:\n{from_bidi}\n{from_extension}"
        );
    }

    // A key the WebDriver key table does not know is the content script's own.
    let query = bidi.ref_of("textbox", "Search").await;
    let unknown = bidi
        .ok("press_key", json!({"ref_id": query, "key": "F13"}))
        .await;
    assert_eq!(unknown["input"], "synthetic", "{browser}: {unknown}");
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(
        bidi.tree_text()
            .await
            .contains("trusted Enter keys: 1, untrusted Enter keys: 0, submits: 1"),
        "{browser}: one Enter, one submission"
    );

    // A field that sends focus to a decoy: no real key is sent (it would land on the decoy).
    let card = bidi.ref_of("textbox", "Card number").await;
    let pressed = bidi
        .ok("press_key", json!({"ref_id": card, "key": "a"}))
        .await;
    assert_eq!(pressed["input"], "synthetic", "{browser}: {pressed}");
    assert!(
        pressed["hints"]
            .as_array()
            .is_some_and(|hints| hints.iter().any(|hint| hint
                .as_str()
                .is_some_and(|hint| hint.contains("real key input was not sent")))),
        "{browser}: {pressed}"
    );
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(
        bidi.tree_text().await.contains("decoy trusted keys: 0"),
        "{browser}: the decoy got no real key"
    );
}

/// scroll is the content script's own scrolling (fixtures/pages/scroll-hover.html), answered as
/// the extension answers it: the page scrolls down, with the extension's fields and outcome, and
/// a list named by its ref scrolls by the amount asked.
async fn scrolls_answer_as_the_extensions(bidi: &LaunchedMcp, extension: &LaunchedMcp) {
    let browser = bidi.browser.name();
    let url = fixtures().url("/pages/scroll-hover.html");
    let mut results = Vec::new();
    for session in [bidi, extension] {
        session.ok("navigate", json!({"url": url})).await;
        session.tree_text().await;
        let down = session.ok("scroll", json!({"verbose": true})).await;
        assert_eq!(down["target"], "page", "{browser}: {down}");
        assert!(
            down["after"]["y"].as_f64() > down["before"]["y"].as_f64(),
            "{browser}: {down}"
        );
        assert_eq!(down["input"], "synthetic", "{browser}: {down}");
        results.push(down);
    }
    let (from_bidi, from_extension) = (&results[0], &results[1]);
    assert_eq!(
        fields_of(from_bidi),
        fields_of(from_extension),
        "{browser}: the scroll's result has the extension's fields:\n{from_bidi}\n{from_extension}"
    );
    for field in [
        "success",
        "progress",
        "retryAllowed",
        "target",
        "before",
        "after",
    ] {
        assert_eq!(
            from_bidi[field], from_extension[field],
            "{browser}: {field}:\n{from_bidi}\n{from_extension}"
        );
    }
    let results = bidi.ref_of("list", "Results").await;
    let list = bidi
        .ok("scroll", json!({"ref_id": results, "amount": 80}))
        .await;
    assert_eq!(
        (list["target"].as_str(), list["after"]["y"].as_i64()),
        (Some("element"), Some(80)),
        "{browser}: {list}"
    );
}

/// set_field and select_option are the content script's own (fixtures/pages/actions/
/// form-every-kind.html), answered as the extension answers them: the field takes the text and
/// the select the option, with the extension's fields and outcome.
async fn fields_answer_as_the_extensions(bidi: &LaunchedMcp, extension: &LaunchedMcp) {
    let browser = bidi.browser.name();
    let url = fixtures().url("/pages/actions/form-every-kind.html");
    let mut results = Vec::new();
    for session in [bidi, extension] {
        session.ok("navigate", json!({"url": url})).await;
        let country = session.ref_of("combobox", "Country").await;
        let selected = session
            .ok(
                "select_option",
                json!({"ref_id": country, "label": "Japan", "verbose": true}),
            )
            .await;
        assert_eq!(selected["progress"], "observed", "{browser}: {selected}");
        assert_eq!(selected["input"], "synthetic", "{browser}: {selected}");
        results.push(selected);
    }
    let (from_bidi, from_extension) = (&results[0], &results[1]);
    assert_eq!(
        fields_of(from_bidi),
        fields_of(from_extension),
        "{browser}: the selection's result has the extension's fields:\n{from_bidi}\n{from_extension}"
    );
    for field in [
        "success",
        "progress",
        "evidence",
        "retryAllowed",
        "role",
        "name",
        "selected",
    ] {
        assert_eq!(
            from_bidi[field], from_extension[field],
            "{browser}: {field}:\n{from_bidi}\n{from_extension}"
        );
    }
    let keys = fixtures().url("/pages/bridge/keys.html");
    let mut results = Vec::new();
    for session in [bidi, extension] {
        session.ok("navigate", json!({"url": keys})).await;
        let query = session.ref_of("textbox", "Search").await;
        let filled = session
            .ok(
                "set_field",
                json!({"ref_id": query, "text": "desk", "verbose": true}),
            )
            .await;
        assert_eq!(filled["progress"], "observed", "{browser}: {filled}");
        assert_eq!(filled["value"], "desk", "{browser}: {filled}");
        results.push(filled);
    }
    let (from_bidi, from_extension) = (&results[0], &results[1]);
    assert_eq!(
        fields_of(from_bidi),
        fields_of(from_extension),
        "{browser}: the field's result has the extension's fields:\n{from_bidi}\n{from_extension}"
    );
    for field in [
        "success",
        "progress",
        "evidence",
        "retryAllowed",
        "value",
        "submit",
    ] {
        assert_eq!(
            from_bidi[field], from_extension[field],
            "{browser}: {field}:\n{from_bidi}\n{from_extension}"
        );
    }
}
