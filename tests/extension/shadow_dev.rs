//! Closed shadow roots and Dev mode's execute_js, as an agent meets them (docs/agent-tools.md,
//! "Shadow roots and execute_js"): hand-written web components with a closed root that nests an
//! open and a closed one, an open component that nests a closed one, and plain elements
//! (fixtures/pages/shadow-dev/). In Chromium get_shadow_dom and shadow_dom_query read the closed
//! content through the debugger; in Firefox they answer closed_shadow_root_unreachable for it and
//! still read the open roots. In both, the tree marks exactly the hosts whose closed root it could
//! not read. execute_js returns every kind of value, awaits promises, reports exceptions and
//! timeouts, survives hostile values, reaches a cross-origin frame, and is refused in a session
//! without --dev.

use serde_json::{json, Value};

use crate::support::{fixtures, Browser, Session, SessionOptions};

/// The options of a Dev-mode session (execute_js is listed only there).
pub fn dev_session_options() -> SessionOptions {
    SessionOptions {
        mcp_arguments: vec!["--dev".into()],
        ..SessionOptions::default()
    }
}

/// The tree's line that contains `needle`, and the ref on it.
fn line_with<'a>(tree: &'a str, needle: &str) -> Option<(&'a str, String)> {
    let line = tree.lines().find(|line| line.contains(needle))?;
    let reference = line
        .split('[')
        .nth(1)
        .and_then(|rest| rest.split(']').next())
        .unwrap_or("")
        .to_string();
    Some((line, reference))
}

async fn tree_text(session: &Session) -> String {
    let result = session
        .ok("get_accessibility_tree", json!({"filter": "all"}))
        .await;
    result["tree"].as_str().unwrap_or_default().to_string()
}

fn host_paths(result: &Value) -> Vec<String> {
    result["hosts"]
        .as_array()
        .map(|hosts| {
            hosts
                .iter()
                .filter_map(|host| host["host"].as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

fn outline_of<'a>(result: &'a Value, host: &str) -> &'a str {
    result["hosts"]
        .as_array()
        .and_then(|hosts| hosts.iter().find(|entry| entry["host"] == host))
        .and_then(|entry| entry["outline"].as_str())
        .unwrap_or("")
}

pub async fn closed_shadow_roots(session: &Session) {
    let browser = session.browser.name();
    session
        .open(&fixtures().url("/pages/shadow-dev/components.html"))
        .await;
    let tree = tree_text(session).await;

    // The tree: the closed hosts are marked (account-panel at the top, inner-closed inside the
    // open widget); the open host, the plain div and the custom element without a root are not.
    let marked: Vec<&str> = tree
        .lines()
        .filter(|line| line.contains("closed-shadow-root"))
        .collect();
    assert_eq!(
        marked.len(),
        2,
        "{browser}: exactly the two closed hosts reachable from the document are marked:\n{tree}"
    );
    let (widget_line, widget_ref) = line_with(&tree, "region \"Widget\"").expect("the open host");
    assert!(
        !widget_line.contains("closed-shadow-root"),
        "{browser}: {widget_line}"
    );
    let (_, account_ref) = line_with(&tree, "closed-shadow-root").expect("a closed host");
    assert!(
        !tree.contains("Save settings") && !tree.contains("Closed inside"),
        "{browser}: the tree cannot read closed content:\n{tree}"
    );
    for plain in [
        "Plain text outside any component",
        "Custom element without a shadow root",
        "Open action",
    ] {
        let (line, _) =
            line_with(&tree, plain).unwrap_or_else(|| panic!("{browser}: {plain} in\n{tree}"));
        assert!(!line.contains("closed-shadow-root"), "{browser}: {line}");
    }
    let (button_line, button_ref) =
        line_with(&tree, "button \"Open action\"").expect("the open button");
    assert!(!button_line.contains("closed-shadow-root"), "{browser}");

    let everything = session.call("get_shadow_dom", json!({})).await;
    let on_account = session
        .call("get_shadow_dom", json!({"ref_id": account_ref}))
        .await;
    let query_all = session
        .call("shadow_dom_query", json!({"selector": "button.primary"}))
        .await;
    let on_widget = session
        .ok("get_shadow_dom", json!({"ref_id": widget_ref}))
        .await;
    let widget_outline = outline_of(&on_widget, "open-widget#widget");
    assert!(
        widget_outline.contains("<button.primary type=\"button\">")
            && widget_outline.contains("\"Open action\"")
            && widget_outline.contains("<inner-closed>"),
        "{browser}: the open root is read in every browser:\n{widget_outline}"
    );
    let not_a_host = session
        .call("get_shadow_dom", json!({"ref_id": button_ref}))
        .await
        .expect_err("a button hosts no shadow root");
    assert_eq!(
        not_a_host.code(),
        "not_a_shadow_host",
        "{browser}: {:?}",
        not_a_host.0
    );
    let bad_selector = session
        .call("shadow_dom_query", json!({"selector": "button[["}))
        .await
        .expect_err("the selector does not parse");
    assert_eq!(
        bad_selector.code(),
        "invalid_selector",
        "{browser}: {:?}",
        bad_selector.0
    );

    match session.browser {
        Browser::Chromium => {
            let everything = everything.expect("Chromium reads every root");
            assert_eq!(
                host_paths(&everything),
                ["account-panel#account", "open-widget#widget"],
                "{everything}"
            );
            assert_eq!(everything["hosts"][0]["mode"], "closed");
            let account = outline_of(&everything, "account-panel#account");
            for expected in [
                "#shadow-root (closed)",
                "<section.panel aria-label=\"Account settings\">",
                "<h2#title>",
                "\"Account\"",
                "<button.primary type=\"button\">",
                "\"Save settings\"",
                "<status-badge>",
                "#shadow-root (open)",
                "\"Verified\"",
                "<secret-note>",
                "\"Closed inside closed\"",
                "<input.secret name=\"password\" type=\"password\">",
            ] {
                assert!(
                    account.contains(expected),
                    "chromium: {expected:?} in\n{account}"
                );
            }
            assert!(
                !everything.to_string().contains("hunter2"),
                "no password value: {everything}"
            );
            assert!(
                outline_of(&everything, "open-widget#widget").contains("\"Closed inside open\""),
                "{everything}"
            );
            let on_account = on_account.expect("the closed host by its ref");
            assert_eq!(host_paths(&on_account), ["account-panel#account"]);
            assert_eq!(
                on_account["hosts"][0]["outline"],
                everything["hosts"][0]["outline"]
            );

            let query_all = query_all.expect("Chromium searches closed roots");
            assert_eq!(query_all["count"], 2, "{query_all}");
            let texts: Vec<&str> = query_all["matches"]
                .as_array()
                .map(|matches| matches.iter().filter_map(|m| m["text"].as_str()).collect())
                .unwrap_or_default();
            assert_eq!(texts, ["Save settings", "Open action"], "{query_all}");
            assert_eq!(query_all["matches"][0]["mode"], "closed");
            assert_eq!(
                query_all["matches"][0]["path"], "account-panel#account >>> section > button",
                "{query_all}"
            );
            assert_eq!(query_all["matches"][1]["mode"], "open");
            // Nested roots are searched one by one, closed inside closed included.
            let nested = session
                .ok(
                    "shadow_dom_query",
                    json!({"selector": "p.note", "ref_id": account_ref}),
                )
                .await;
            assert_eq!(nested["count"], 1, "{nested}");
            assert_eq!(nested["matches"][0]["text"], "Closed inside closed");
            assert_eq!(
                nested["matches"][0]["path"],
                "account-panel#account >>> section > secret-note >>> p",
                "{nested}"
            );
            let password = session
                .ok("shadow_dom_query", json!({"selector": "input"}))
                .await;
            assert_eq!(password["count"], 1, "{password}");
            assert!(!password.to_string().contains("hunter2"), "{password}");
            assert_eq!(password["matches"][0]["attributes"]["type"], "password");
            // The debugger is gone after each call, and the marker too.
            let markers = session
                .evaluate("document.querySelectorAll('[data-allwright-shadow-host]').length")
                .await;
            assert_eq!(markers, json!(0), "the ref marker is removed");
        }
        Browser::Firefox => {
            let error = on_account.expect_err("Firefox cannot enter the closed host");
            assert_eq!(
                error.code(),
                "closed_shadow_root_unreachable",
                "{:?}",
                error.0
            );
            assert!(
                error.0["message"]
                    .as_str()
                    .is_some_and(|message| message.contains("not reachable in Firefox")
                        && message.contains("account-panel#account")),
                "{:?}",
                error.0
            );
            // Without a ref: the open roots, and the closed hosts it skipped, by path.
            let everything = everything.expect("the open roots are read");
            assert_eq!(
                host_paths(&everything),
                ["open-widget#widget"],
                "{everything}"
            );
            assert_eq!(
                everything["skippedClosedHosts"],
                json!([
                    "account-panel#account",
                    "open-widget#widget >>> div > inner-closed"
                ]),
                "{everything}"
            );
            assert!(
                outline_of(&everything, "open-widget#widget")
                    .contains("#shadow-root (closed, not readable here)"),
                "{everything}"
            );
            assert!(
                !everything.to_string().contains("Save settings"),
                "{everything}"
            );
            let query_all = query_all.expect("the open matches, with the skipped hosts named");
            assert_eq!(query_all["count"], 1, "{query_all}");
            assert_eq!(query_all["matches"][0]["text"], "Open action");
            assert_eq!(
                query_all["skippedClosedHosts"], everything["skippedClosedHosts"],
                "{query_all}"
            );
            let on_closed = session
                .call(
                    "shadow_dom_query",
                    json!({"selector": "button", "ref_id": account_ref}),
                )
                .await
                .expect_err("a closed host's root cannot be searched");
            assert_eq!(on_closed.code(), "closed_shadow_root_unreachable");
        }
    }
    // Reading never changed the page.
    let state = session.evaluate_json("window.fixtureState").await;
    assert_eq!(state, json!({"saved": false}), "{browser}");
}

/// A Lit component whose shadow root is closed (`shadowRootOptions = {mode: "closed"}`), bundled
/// from npm (fixtures/apps/lit-settings.js).
pub async fn lit_component_with_a_closed_root(session: &Session) {
    let browser = session.browser.name();
    session
        .open(&fixtures().url("/pages/shadow-dev/lit.html"))
        .await;
    let tree = tree_text(session).await;
    let (_, card_ref) = line_with(&tree, "closed-shadow-root")
        .unwrap_or_else(|| panic!("{browser}: the Lit host is marked:\n{tree}"));
    assert!(
        !tree.contains("Apply") && !tree.contains("Email me"),
        "{browser}: {tree}"
    );
    // Page scripts, execute_js included, cannot reach a closed root either.
    let from_page = session
        .ok(
            "execute_js",
            json!({"code": "document.getElementById('settings').shadowRoot"}),
        )
        .await;
    assert_eq!(from_page["type"], "null", "{browser}: {from_page}");
    let outline = session
        .call("get_shadow_dom", json!({"ref_id": card_ref}))
        .await;
    let query = session
        .call("shadow_dom_query", json!({"selector": "button.apply"}))
        .await;
    match session.browser {
        Browser::Chromium => {
            let outline = outline.expect("Chromium reads the Lit root");
            assert_eq!(host_paths(&outline), ["lit-settings-card#settings"]);
            assert_eq!(outline["hosts"][0]["mode"], "closed");
            let text = outline["hosts"][0]["outline"].as_str().unwrap_or("");
            for expected in [
                "#shadow-root (closed)",
                "<section.card aria-label=\"Notifications\">",
                "<h3.card-title>",
                "\"Notifications\"",
                "<input name=\"email\" type=\"checkbox\">",
                "\"Email me\"",
                "<button.apply type=\"button\">",
                "\"Apply\"",
            ] {
                assert!(text.contains(expected), "chromium: {expected:?} in\n{text}");
            }
            let query = query.expect("Chromium searches the Lit root");
            assert_eq!(query["count"], 1, "{query}");
            assert_eq!(query["matches"][0]["text"], "Apply");
            assert_eq!(query["matches"][0]["mode"], "closed");
            assert_eq!(
                query["matches"][0]["path"],
                "lit-settings-card#settings >>> section > button"
            );
        }
        Browser::Firefox => {
            for result in [outline, query] {
                let error = result.expect_err("the only root is closed");
                assert_eq!(
                    error.code(),
                    "closed_shadow_root_unreachable",
                    "{:?}",
                    error.0
                );
            }
        }
    }
    let state = session.evaluate_json("window.fixtureState").await;
    assert_eq!(
        state,
        json!({"applied": false, "emailMe": false}),
        "{browser}"
    );
}

pub async fn execute_js_values_errors_and_hostile_pages(session: &Session) {
    let browser = session.browser.name();
    session
        .open(&fixtures().url("/pages/shadow-dev/values.html"))
        .await;
    let run = |code: &str| session.call("execute_js", json!({"code": code}));
    let value =
        |code: &'static str| async move { session.ok("execute_js", json!({"code": code})).await };
    let cases: [(&str, Value, &str); 12] = [
        (
            "window.pageGreeting",
            json!("hello from the page"),
            "string",
        ),
        ("6 * 7", json!(42), "number"),
        ("1 / 0", json!("Infinity"), "number"),
        ("document.title.length > 0", json!(true), "boolean"),
        ("undefined", Value::Null, "undefined"),
        ("null", Value::Null, "null"),
        ("12n ** 20n", json!("3833759992447475122176n"), "bigint"),
        (
            "[1, 'two', undefined, null]",
            json!([1, "two", "[undefined]", null]),
            "array",
        ),
        (
            "({a: {b: [1, 2]}, f() {}})",
            json!({"a": {"b": [1, 2]}, "f": "[function f]"}),
            "object",
        ),
        (
            "document.getElementById('go')",
            json!("<button#go.big.red>"),
            "node",
        ),
        (
            "let total = 0; for (const n of [1, 2, 3]) total += n; total",
            json!(6),
            "number",
        ),
        (
            "Promise.resolve().then(() => ({awaited: 'yes'}))",
            json!({"awaited": "yes"}),
            "object",
        ),
    ];
    for (code, expected, kind) in cases {
        let result = value(code).await;
        assert_eq!(result["value"], expected, "{browser}: {code}: {result}");
        assert_eq!(result["type"], kind, "{browser}: {code}: {result}");
        assert_eq!(result["truncated"], false, "{browser}: {code}");
    }
    let cyclic = value("window.cyclic").await;
    assert_eq!(
        cyclic["value"],
        json!({"name": "loop", "self": "[circular]"}),
        "{browser}: {cyclic}"
    );
    // A getter that throws and a toJSON that never returns: described, never called.
    let hostile = value("window.hostile").await;
    assert_eq!(
        hostile["value"],
        json!({"boom": "[getter threw: getter exploded]", "toJSON": "[function toJSON]", "fine": 1}),
        "{browser}: {hostile}"
    );
    let huge = value("window.huge").await;
    assert_eq!(huge["truncated"], true, "{browser}");
    let length = huge["value"]
        .as_str()
        .map_or(0, |text| text.chars().count());
    assert!((90_000..=100_000).contains(&length), "{browser}: {length}");
    let huge_object = value("({list: Array.from({length: 50000}, (_, i) => 'item ' + i)})").await;
    assert_eq!(huge_object["truncated"], true, "{browser}");
    assert!(
        huge_object["value"].to_string().len() <= 101_000,
        "{browser}"
    );

    let thrown = run("throw new TypeError('bad thing')")
        .await
        .expect_err("it throws");
    assert_eq!(thrown.code(), "script_error", "{browser}: {:?}", thrown.0);
    assert!(
        thrown.0["message"]
            .as_str()
            .is_some_and(|m| m.contains("bad thing")),
        "{browser}: {:?}",
        thrown.0
    );
    let rejected = run("Promise.reject(new Error('no luck'))")
        .await
        .expect_err("it rejects");
    assert_eq!(
        rejected.code(),
        "script_error",
        "{browser}: {:?}",
        rejected.0
    );
    assert!(rejected.0["message"]
        .as_str()
        .is_some_and(|m| m.contains("no luck")));
    let syntax = run("this is not javascript")
        .await
        .expect_err("it does not parse");
    assert_eq!(syntax.code(), "script_error", "{browser}: {:?}", syntax.0);

    let never = session
        .call(
            "execute_js",
            json!({"code": "new Promise(() => {})", "timeoutMs": 500}),
        )
        .await
        .expect_err("a promise that never settles");
    assert_eq!(never.code(), "timeout", "{browser}: {:?}", never.0);
    if session.browser == Browser::Chromium {
        // The debugger stops a script that never yields, and the page goes on.
        let busy = session
            .call(
                "execute_js",
                json!({"code": "for (;;) {}", "timeoutMs": 500}),
            )
            .await
            .expect_err("an endless loop");
        assert_eq!(busy.code(), "timeout", "{browser}: {:?}", busy.0);
    }
    let after = value("window.pageGreeting").await;
    assert_eq!(
        after["value"], "hello from the page",
        "{browser}: the page still answers"
    );

    // The page's own world: a global set by the code is seen by the page, and a frame's own
    // globals from the frame.
    value("window.setByAgent = 'yes'").await;
    assert_eq!(
        session.evaluate("window.setByAgent").await,
        json!("yes"),
        "{browser}"
    );
    let snapshot = session
        .ok("accessibility_snapshot", json!({"format": "json"}))
        .await;
    let frame_id = crate::support::frame_id_in_snapshot(&snapshot, "/pages/shadow-dev/child.html")
        .expect("the child frame");
    let child = session
        .ok(
            "execute_js",
            json!({"code": "window.childMarker", "frameId": frame_id}),
        )
        .await;
    assert_eq!(child["value"], "child frame global", "{browser}: {child}");
    // get_shadow_dom in a frame: Firefox reads the frame's open roots (it has none); in Chrome a
    // frame is another debugger target, refused clearly.
    let in_frame = session
        .call("get_shadow_dom", json!({"frameId": frame_id}))
        .await;
    match session.browser {
        Browser::Firefox => {
            let result = in_frame.expect("the frame's open roots");
            assert_eq!(result["hosts"], json!([]), "{result}");
        }
        Browser::Chromium => {
            let error = in_frame.expect_err("Chrome reads the top document only");
            assert_eq!(error.code(), "not_supported_here", "{:?}", error.0);
        }
    }

    // A page that forbids eval: Firefox refuses clearly; Chrome's debugger is not bound by it.
    session
        .open(&fixtures().url("/pages/shadow-dev/no-eval.html"))
        .await;
    let strict = session
        .call("execute_js", json!({"code": "window.pageGreeting"}))
        .await;
    match session.browser {
        Browser::Firefox => {
            let error = strict.expect_err("eval is forbidden");
            assert_eq!(error.code(), "execution_blocked", "{:?}", error.0);
        }
        Browser::Chromium => {
            let result = strict.expect("the debugger runs it");
            assert_eq!(result["value"], "hello from the page");
        }
    }
}

/// A session without --dev does not list execute_js, and the MCP server refuses it.
pub async fn execute_js_is_refused_without_dev(browser: Browser) {
    let session = Session::start(browser, SessionOptions::default()).await;
    session
        .open(&fixtures().url("/pages/shadow-dev/values.html"))
        .await;
    let refused = session
        .call("execute_js", json!({"code": "1"}))
        .await
        .expect_err("execute_js is Dev-only");
    // A tool of the contract outside the session's access is refused as such, not as unknown.
    assert_eq!(refused.code(), "not_in_tier", "{:?}", refused.0);
    assert!(
        refused.0["message"]
            .as_str()
            .is_some_and(|message| message.contains("execute_js is not available")),
        "{:?}",
        refused.0
    );
    let listed: Vec<String> = crate::support::strings(&refused.0["suggestions"]);
    assert!(
        listed.iter().any(|tool| tool == "get_shadow_dom"),
        "{listed:?}"
    );
    assert!(
        !listed.iter().any(|tool| tool == "execute_js"),
        "{listed:?}"
    );
    session.shutdown().await;
}
