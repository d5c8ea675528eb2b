//! console_messages and network_requests in a launched browser (issue 29, items 1 and 2;
//! docs/agent-tools.md, "The page's console and network"): what the page logged at every level,
//! in its frames too, and what it threw; what it requested, with statuses, failures and masked
//! credentials, checked on the raw text an agent reads.

use std::time::Duration;

use rmcp::model::CallToolResult;
use serde_json::{json, Value};

use crate::bridge::LaunchedMcp;
use crate::support::fixtures;

/// The text an agent reads of a call: its reply's one text block, asked without `verbose`.
async fn reply_text(session: &LaunchedMcp, tool: &str, mut arguments: Value) -> String {
    arguments["verbose"] = json!(false);
    let result: CallToolResult = session
        .call_result(tool, arguments.clone())
        .await
        .unwrap_or_else(|error| {
            panic!(
                "{}: {tool}({arguments}): {:?}",
                session.browser.name(),
                error.0
            )
        });
    assert_ne!(
        result.is_error,
        Some(true),
        "{}: {tool}({arguments}): {result:?}",
        session.browser.name()
    );
    result
        .content
        .iter()
        .find_map(|block| block.as_text().map(|text| text.text.clone()))
        .unwrap_or_default()
}

/// A reply's header line, read as JSON, and its lines.
fn header_and_lines(text: &str) -> (Value, Vec<&str>) {
    let (header, lines) = text.split_once('\n').unwrap_or((text, ""));
    (
        serde_json::from_str(header).expect("a JSON header line"),
        lines.lines().collect(),
    )
}

/// Whether a console line names its place in the observed app's page: its URL, a line and a
/// column.
fn says_its_place_in_the_app(line: &str) -> bool {
    let Some((_, after)) = line.split_once("/pages/observe/app.html") else {
        return false;
    };
    after
        .strip_prefix(':')
        .and_then(|place| place.chars().next())
        .is_some_and(|first| first.is_ascii_digit())
}

/// Reads `tool` again until `done` holds of its reply (events reach the bridge a moment after
/// the page acted), for up to ten seconds.
async fn reply_once(
    session: &LaunchedMcp,
    tool: &str,
    arguments: Value,
    done: impl Fn(&str) -> bool,
) -> String {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        let text = reply_text(session, tool, arguments.clone()).await;
        if done(&text) || tokio::time::Instant::now() > deadline {
            return text;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

pub async fn console_and_network_are_recorded_and_credentials_never_shown(session: &LaunchedMcp) {
    session
        .ok(
            "navigate",
            json!({ "url": fixtures().url("/pages/observe/app.html") }),
        )
        .await;
    let go = session.ref_of("button", "Go").await;
    session.ok("click_ax", json!({ "ref_id": go })).await;
    session
        .ok("wait_for", json!({ "text": "Done", "timeoutMs": 10_000 }))
        .await;
    the_observed_apps_records_are_read(session).await;
}

/// What the observed app recorded once "Go" ran:
/// the console at every level, the frame's warning and the uncaught error with where it was
/// thrown; the requests with statuses, a failure and every credential masked.
pub async fn the_observed_apps_records_are_read(session: &LaunchedMcp) {
    let browser = session.browser.name();
    // The console: every level, the frame's warning, a console method by name, and the
    // uncaught error with where it was thrown.
    let console = reply_once(session, "console_messages", json!({}), |text| {
        text.contains("boom from a timer")
            && text.contains("frame warning")
            && text.contains("clicked Go")
    })
    .await;
    let (header, lines) = header_and_lines(&console);
    for (level, text) in [
        ("debug", "\"debug line\""),
        ("info", "\"info line\""),
        ("info", "\"log line 42\""),
        ("warning", "\"warn line\""),
        ("error", "\"error line\""),
        ("warning", "\"frame warning\""),
    ] {
        assert!(
            lines
                .iter()
                .any(|line| line.contains(&format!(" {level} {text}"))),
            "{browser}: {level} {text} in\n{console}"
        );
    }
    assert!(
        lines.iter().any(|line| line.contains(" console.table ")),
        "{browser}: console.table is named:\n{console}"
    );
    let thrown = lines
        .iter()
        .find(|line| line.contains("boom from a timer"))
        .unwrap_or_else(|| panic!("{browser}: the timer's error:\n{console}"));
    assert!(
        thrown.contains(" error exception ") && says_its_place_in_the_app(thrown),
        "{browser}: an uncaught error says where it was thrown: {thrown}"
    );
    // A console call says the page's own line, though the extension's console hook wraps the
    // console in the agent's tabs.
    let clicked = lines
        .iter()
        .find(|line| line.contains("\"clicked Go\""))
        .unwrap_or_else(|| panic!("{browser}: the click's warning:\n{console}"));
    assert!(says_its_place_in_the_app(clicked), "{browser}: {clicked}");
    let next = header["next"].as_u64().expect("next");

    // Levels from warning up; nothing new since `next`.
    let warnings = reply_text(session, "console_messages", json!({ "level": "warning" })).await;
    assert!(
        !warnings.contains("info line") && warnings.contains("warn line"),
        "{browser}: {warnings}"
    );
    let nothing_new = reply_text(session, "console_messages", json!({ "since": next })).await;
    assert_eq!(
        header_and_lines(&nothing_new).0["count"],
        0,
        "{browser}: {nothing_new}"
    );

    // The network: statuses, a failure, and no credential anywhere in the raw text.
    let network = reply_once(
        session,
        "network_requests",
        json!({ "includeHeaders": true }),
        |text| text.contains(" failed ") && text.contains("/api/hang-up"),
    )
    .await;
    let (_, lines) = header_and_lines(&network);
    let session_line = lines
        .iter()
        .find(|line| line.contains("/api/session"))
        .unwrap_or_else(|| panic!("{browser}: the session request:\n{network}"));
    assert!(
        session_line.contains(" GET 200 ") && session_line.contains("api_key=MASKED("),
        "{browser}: {session_line}"
    );
    assert!(
        lines
            .iter()
            .any(|line| line.contains(" GET 404 ") && line.contains("/pages/observe/missing.json")),
        "{browser}: the missing file:\n{network}"
    );
    assert!(
        lines
            .iter()
            .any(|line| line.contains(" failed ") && line.contains("/api/hang-up")),
        "{browser}: the request without an answer:\n{network}"
    );
    for header in ["> Authorization: \"<masked, ", "< Set-Cookie: \"<masked, "] {
        assert!(
            network.contains(header),
            "{browser}: {header} in\n{network}"
        );
    }
    for secret in ["s3cr3t", "k3y-in-the-query"] {
        assert!(
            !network.contains(secret) && !console.contains(secret),
            "{browser}: {secret} shown:\n{network}"
        );
    }
    let filtered = reply_text(
        session,
        "network_requests",
        json!({ "urlFilter": "MISSING" }),
    )
    .await;
    assert_eq!(
        header_and_lines(&filtered).0["count"],
        1,
        "{browser}: {filtered}"
    );
}

/// network_requests in a person's browser (the extension alone, no BiDi session): the
/// extension's webRequest records, masked and printed by the MCP server as the bridge's are.
pub async fn network_requests_without_a_bridge_come_from_the_extension(
    session: &crate::support::Session,
) {
    let browser = session.browser.name();
    press_go_on_the_observed_app(session).await;
    let network = quiet_reply_once(
        session,
        "network_requests",
        json!({ "includeHeaders": true }),
        |text| text.contains(" failed ") && text.contains("/api/hang-up"),
    )
    .await;
    let (header, lines) = header_and_lines(&network);
    assert!(
        header["recordsSince"].is_number(),
        "{browser}: the records say from when they run: {network}"
    );
    for (status, path) in [
        (" GET 200 ", "/pages/observe/app.html"),
        (" GET 200 ", "/api/session?api_key=MASKED("),
        (" GET 404 ", "/pages/observe/missing.json"),
        (" GET failed ", "/api/hang-up"),
    ] {
        assert!(
            lines
                .iter()
                .any(|line| line.contains(status) && line.contains(path)),
            "{browser}: {status}{path} in\n{network}"
        );
    }
    assert!(
        network.contains("> Authorization: \"<masked, "),
        "{browser}: {network}"
    );
    // Chrome's webRequest shows Set-Cookie only to listeners that ask for "extraHeaders", which
    // slow every request of the browser; Firefox's shows it.
    if session.browser == crate::support::Browser::Firefox {
        assert!(
            network.contains("< Set-Cookie: \"<masked, "),
            "{browser}: {network}"
        );
    }
    for secret in ["s3cr3t", "k3y-in-the-query"] {
        assert!(
            !network.contains(secret),
            "{browser}: {secret} shown:\n{network}"
        );
    }
    // The side panel's log lists the call and keeps neither header values nor queries.
    let panel = crate::panel::open_panel(session).await;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
    let logged = loop {
        // Until the panel's page has loaded (Firefox opens it in a tab that starts blank), the
        // question throws: ask again.
        let logged = session
            .evaluate_json_in(
                &panel,
                r#"(async () => ((await (globalThis.browser ?? chrome).storage.session.get("callLog")).callLog ?? []))()"#,
            )
            .await
            .map(|log| log.to_string())
            .unwrap_or_default();
        if logged.contains("network_requests") || tokio::time::Instant::now() > deadline {
            break logged;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    assert!(
        logged.contains("network_requests") && logged.contains("/api/session"),
        "{browser}: the panel lists the call"
    );
    for secret in ["s3cr3t", "k3y-in-the-query"] {
        assert!(
            !logged.contains(secret),
            "{browser}: {secret} in the panel's log"
        );
    }
}

/// console_messages in a person's browser (the extension alone): the console hook, injected into
/// every frame of the agent's tab, sees what the page logs and throws after the agent's first
/// call, in the top document and in its cross-origin frame.
pub async fn console_messages_without_a_bridge_come_from_the_console_hook(
    session: &crate::support::Session,
) {
    let browser = session.browser.name();
    press_go_on_the_observed_app(session).await;
    let console = quiet_reply_once(session, "console_messages", json!({}), |text| {
        [
            "clicked Go",
            "frame heard Go",
            "boom from a timer",
            "rejected on purpose",
        ]
        .iter()
        .all(|part| text.contains(part))
    })
    .await;
    let (header, lines) = header_and_lines(&console);
    assert!(header["recordsSince"].is_number(), "{browser}: {console}");
    let line_with = |part: &str| {
        lines
            .iter()
            .find(|line| line.contains(part))
            .copied()
            .unwrap_or_else(|| panic!("{browser}: {part} in\n{console}"))
    };
    let clicked = line_with("\"clicked Go\"");
    assert!(
        clicked.contains(" warning ") && clicked.contains("/pages/observe/app.html:"),
        "{browser}: a warning, with the page's line: {clicked}"
    );
    assert!(
        line_with("\"frame heard Go\"").contains(" info "),
        "{browser}: the frame's entry:\n{console}"
    );
    let thrown = line_with("boom from a timer");
    assert!(
        thrown.contains(" error exception "),
        "{browser}: an uncaught error: {thrown}"
    );
    assert!(
        line_with("rejected on purpose").contains(" error exception \"Uncaught (in promise)"),
        "{browser}:\n{console}"
    );
}

/// find, wait_for and fill_form through the bridge of a launched browser (issue 29: each tool
/// checked launched too): the bridge relays them as it relays every call the extension serves,
/// and their answers are the same as in a person's browser.
pub async fn find_wait_for_and_fill_form_work_in_a_launched_browser(session: &LaunchedMcp) {
    let browser = session.browser.name();
    session
        .ok(
            "navigate",
            json!({ "url": fixtures().url("/pages/wait/late.html") }),
        )
        .await;
    let found = reply_text(
        session,
        "find",
        json!({ "role": "button", "name": "start" }),
    )
    .await;
    let (header, lines) = header_and_lines(&found);
    assert_eq!(header["matches"], 1, "{browser}: {found}");
    let start = lines[0]
        .split("[ref_")
        .nth(1)
        .and_then(|rest| rest.split(']').next())
        .map(|number| format!("ref_{number}"))
        .unwrap_or_else(|| panic!("{browser}: a ref in {found}"));
    session.ok("click_ax", json!({ "ref_id": start })).await;
    let waited = session
        .ok(
            "wait_for",
            json!({ "text": "Order confirmed", "timeoutMs": 10_000 }),
        )
        .await;
    assert_eq!(waited["met"], true, "{browser}: {waited}");

    session
        .ok(
            "navigate",
            json!({ "url": fixtures().url("/pages/actions/form-every-kind.html") }),
        )
        .await;
    let name = session.ref_of("textbox", "Full name").await;
    let subscribe = session
        .ref_of("checkbox", "Subscribe to the newsletter")
        .await;
    let filled = session
        .ok(
            "fill_form",
            json!({ "fields": [
                { "ref_id": name, "value": "Ada Lovelace" },
                { "ref_id": subscribe, "value": "true" }
            ] }),
        )
        .await;
    assert!(
        filled.get("failed").is_none() && filled["success"] != false,
        "{browser}: every field filled: {filled}"
    );
    let typed = reply_text(
        session,
        "find",
        json!({ "role": "textbox", "text": "Ada Lovelace" }),
    )
    .await;
    assert_eq!(
        header_and_lines(&typed).0["matches"],
        1,
        "{browser}: {typed}"
    );
    let state = session
        .ok(
            "find",
            json!({ "role": "checkbox", "name": "Subscribe to the newsletter" }),
        )
        .await;
    assert!(
        state["tree"]
            .as_str()
            .is_some_and(|tree| tree.contains("checked")),
        "{browser}: the check box is checked: {state}"
    );
}

/// Opens `fixtures/pages/observe/app.html` in a person's browser, presses "Go" and waits until
/// the page says it is done.
async fn press_go_on_the_observed_app(session: &crate::support::Session) {
    session
        .ok(
            "navigate",
            json!({ "url": fixtures().url("/pages/observe/app.html") }),
        )
        .await;
    let go = crate::actions::ref_of(session, "button", "Go").await;
    session.ok("click_ax", json!({ "ref_id": go })).await;
    session
        .ok("wait_for", json!({ "text": "Done", "timeoutMs": 10_000 }))
        .await;
}

/// [`reply_once`] in a person's browser: the reply's text, read again until `done` holds of it
/// (the records reach the background a moment after the page acted), for up to ten seconds.
async fn quiet_reply_once(
    session: &crate::support::Session,
    tool: &str,
    arguments: Value,
    done: impl Fn(&str) -> bool,
) -> String {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        let reply = session.call_quiet(tool, arguments.clone()).await;
        let text = reply
            .content
            .iter()
            .find_map(|block| block.as_text().map(|text| text.text.clone()))
            .unwrap_or_default();
        if done(&text) || tokio::time::Instant::now() > deadline {
            return text;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}
