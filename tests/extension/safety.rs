//! Safety under hostile pages and unlucky timing (issue 12; docs/protocol/action-safety.md, "A ref means one
//! element" and the sections after it), as an agent meets them: through `allwright mcp`, in both
//! browsers. Each check also reads the page's own count of what happened, so a refusal is proved
//! to have reached nothing.

use std::time::Duration;

use serde_json::{json, Value};

use crate::actions::{find_ref, ref_of};
use crate::support::{fixtures, Browser, Session};

async fn open_safety(session: &Session, page: &str) {
    session
        .open(&fixtures().url(&format!("/pages/safety/{page}")))
        .await;
}

async fn page_state(session: &Session) -> Value {
    session.evaluate_json("window.fixtureState ?? null").await
}

/// The BiDi context of the tab whose URL contains `url_part`.
async fn context_of_tab(session: &Session, url_part: &str) -> String {
    let (bidi, _) = session.bidi();
    let tree = bidi
        .command("browsingContext.getTree", json!({"maxDepth": 0}))
        .await
        .expect("browsingContext.getTree");
    tree["contexts"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|context| {
            context["url"]
                .as_str()
                .is_some_and(|url| url.contains(url_part))
        })
        .and_then(|context| context["context"].as_str())
        .unwrap_or_else(|| panic!("no tab shows {url_part}: {tree}"))
        .to_string()
}

/// A ref names one element: refused with `ref_changed` once its role or name changed (the
/// re-rendered row now deletes another message), with `ref_not_found` in another tab and after
/// a navigation; never an action on another element.
pub async fn refs_name_one_element_of_one_tab_and_document(session: &Session) {
    let browser = session.browser.name();
    open_safety(session, "refs.html?tab=first").await;
    let row = ref_of(session, "button", "Delete message from Alice").await;
    let toggle = ref_of(session, "button", "Notifications").await;
    let plain = ref_of(session, "button", "Plain button").await;
    let search = ref_of(session, "textbox", "Search").await;

    // The page re-renders the row in place: the same element now deletes Bob's message.
    session.evaluate("window.relabelFirstRow()").await;
    let refused = session
        .call("click_ax", json!({"ref_id": row}))
        .await
        .expect_err("a relabelled target is refused");
    assert_eq!(refused.code(), "ref_changed", "{browser}: {}", refused.0);
    assert_eq!(
        refused.0["changed"],
        json!({"ref": row, "was": {"role": "button", "name": "Delete message from Alice"},
               "now": {"role": "button", "name": "Delete message from Bob"}}),
        "{browser}: {}",
        refused.0
    );
    let message = refused.0["message"].as_str().unwrap_or("");
    assert!(
        message.contains("Delete message from Bob"),
        "{browser}: {message}"
    );
    assert!(
        !refused.0["suggestions"]
            .as_array()
            .is_none_or(Vec::is_empty),
        "{browser}: suggestions: {}",
        refused.0
    );
    assert_eq!(
        page_state(session).await["clicks"],
        json!({}),
        "{browser}: nothing was clicked"
    );
    // The refusal told the agent the new name: the same ref now acts on the element as it is.
    let clicked = session.ok("click_ax", json!({"ref_id": row})).await;
    assert_eq!(
        clicked["name"], "Delete message from Bob",
        "{browser}: {clicked}"
    );
    assert_eq!(page_state(session).await["clicks"]["row-1"], 1, "{browser}");

    // A role change is refused the same way, by the other actions too.
    session.evaluate("window.turnToggleIntoSwitch()").await;
    let refused = session
        .call("press_key", json!({"ref_id": toggle, "key": "Enter"}))
        .await
        .expect_err("a target whose role changed is refused");
    assert_eq!(refused.code(), "ref_changed", "{browser}: {}", refused.0);
    assert_eq!(
        refused.0["changed"]["now"]["role"], "switch",
        "{browser}: {}",
        refused.0
    );
    assert!(
        page_state(session).await["clicks"].get("toggle").is_none(),
        "{browser}"
    );
    // An unchanged target acts as before.
    let typed = session
        .ok("type_ax", json!({"ref_id": search, "text": "invoices"}))
        .await;
    assert_eq!(typed["name"], "Search", "{browser}: {typed}");

    // Another tab: the ref was printed in the first tab, and the second tab's page is the same.
    let tabs = session.ok("list_tabs", json!({})).await;
    let first_tab = tabs["tabs"]
        .as_array()
        .and_then(|tabs| tabs.iter().find(|tab| tab["active"] == true))
        .and_then(|tab| tab["tabId"].as_i64())
        .expect("the active tab");
    let second = session
        .ok(
            "new_tab",
            json!({"url": fixtures().url("/pages/safety/refs.html?tab=second")}),
        )
        .await;
    let second_tab = second["tabId"].as_i64().expect("tab id");
    let second_tree = session
        .ok("get_accessibility_tree", json!({"tabId": second_tab}))
        .await;
    let second_plain = find_ref(
        second_tree["tree"].as_str().unwrap_or(""),
        "button",
        "Plain button",
    )
    .expect("the second tab's button");
    assert_ne!(
        second_plain, plain,
        "{browser}: ref numbers are unique across tabs"
    );
    for tool in ["click_ax", "hover"] {
        let refused = session
            .call(tool, json!({"ref_id": plain, "tabId": second_tab}))
            .await
            .expect_err("a ref of another tab is refused");
        assert_eq!(
            refused.code(),
            "ref_not_found",
            "{browser} {tool}: {}",
            refused.0
        );
        let message = refused.0["message"].as_str().unwrap_or("");
        assert!(
            message.contains(&format!("tab {first_tab}")),
            "{browser} {tool}: the message names the tab that printed it: {message}"
        );
    }
    let second_context = context_of_tab(session, "tab=second").await;
    let second_state = session
        .evaluate_json_in(&second_context, "window.fixtureState")
        .await
        .expect("the second tab's state");
    assert_eq!(
        second_state["clicks"],
        json!({}),
        "{browser}: nothing clicked in the second tab"
    );
    session.ok("close_tab", json!({"tabId": second_tab})).await;
    session.ok("select_tab", json!({"tabId": first_tab})).await;

    // A navigation: the old document's refs name nothing in the new one, even on the same page.
    open_safety(session, "refs.html?tab=third").await;
    let refused = session
        .call("click_ax", json!({"ref_id": plain}))
        .await
        .expect_err("a ref of the previous document is refused");
    assert_eq!(refused.code(), "ref_not_found", "{browser}: {}", refused.0);
    let refused = session
        .call("type_ax", json!({"ref_id": search, "text": "x"}))
        .await
        .expect_err("a ref of the previous document is refused");
    assert_eq!(refused.code(), "ref_not_found", "{browser}: {}", refused.0);
    let state = page_state(session).await;
    assert_eq!(state["tab"], "third", "{browser}: {state}");
    assert_eq!(state["clicks"], json!({}), "{browser}: {state}");
    let value = session
        .evaluate("document.getElementById('search').value")
        .await;
    assert_eq!(value, "", "{browser}: nothing typed in the new document");
}

/// Chrome's trusted fallback re-checks, after the debugger attached, that the element is still
/// the top one at the point: a page that lays another button over it the moment it is marked
/// gets no trusted click at all (not_actionable, naming the cover). Firefox stays synthetic.
pub async fn trusted_click_rechecks_its_target_after_attaching(session: &Session) {
    let browser = session.browser.name();
    open_safety(session, "trusted-swap.html").await;
    let target = ref_of(session, "button", "Open details").await;
    let outcome = session.call("click_ax", json!({"ref_id": target})).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    let state = page_state(session).await;
    assert_eq!(
        state["decoyClicks"], 0,
        "{browser}: the cover was never clicked: {state}"
    );
    assert_eq!(state["trustedClicks"], 0, "{browser}: {state}");
    assert_eq!(
        state["ignoredClicks"], 1,
        "{browser}: one synthetic click: {state}"
    );
    match session.browser {
        Browser::Chromium => {
            let refused = outcome.expect_err("the trusted click is aborted");
            assert_eq!(refused.code(), "not_actionable", "{browser}: {}", refused.0);
            let message = refused.0["message"].as_str().unwrap_or("");
            assert!(
                message.contains("another element is on top") && message.contains("button#decoy"),
                "{browser}: {message}"
            );
            assert_eq!(
                state["decoyShown"], true,
                "{browser}: the page reacted to the marker: {state}"
            );
        }
        Browser::Firefox => {
            let clicked = outcome.expect("Firefox's synthetic click");
            assert_eq!(clicked["method"], "synthetic", "{browser}: {clicked}");
            assert_eq!(state["decoyShown"], false, "{browser}: {state}");
        }
    }
}

/// Secret fields filled on load, then typed into by an agent with `clear: false` and a trailing
/// newline: no value, autofilled or typed, reaches the tree, the snapshot, an action's result or
/// hints, or the host's log, which is private (0600).
pub async fn secrets_never_leave_the_page(session: &Session) {
    let browser = session.browser.name();
    open_safety(session, "secrets.html").await;
    let leaks = |text: &str| text.contains("autofill-secret") || text.contains("typed-secret");

    let tree = session.ok("get_accessibility_tree", json!({})).await;
    let tree_text = tree["tree"].as_str().unwrap_or("");
    assert!(
        tree_text.contains("visible-nickname"),
        "{browser}: ordinary values are printed: {tree_text}"
    );
    assert!(
        !leaks(&tree.to_string()),
        "{browser}: the tree: {tree_text}"
    );
    // The expiry month chosen in a select: neither the select's value nor a selected option.
    let month_lines: Vec<&str> = tree_text
        .lines()
        .filter(|line| line.contains("Expiry month") || line.contains("\"07\""))
        .collect();
    assert!(
        !month_lines.is_empty(),
        "{browser}: the expiry month's select is in the tree: {tree_text}"
    );
    for line in &month_lines {
        assert!(
            !line.contains("07") || !line.contains("selected"),
            "{browser}: the secret month shows: {line}"
        );
        assert!(
            !(line.contains("Expiry month") && line.contains("07")),
            "{browser}: the secret month shows: {line}"
        );
    }
    for format in ["json", "yaml"] {
        let snapshot = session
            .ok("accessibility_snapshot", json!({"format": format}))
            .await;
        let text = snapshot["snapshot"].as_str().unwrap_or("");
        assert!(
            text.contains("visible-nickname"),
            "{browser} {format}: {text}"
        );
        assert!(!leaks(text), "{browser}: the {format} snapshot: {text}");
        // The page's one select is the secret month's: no option of it may read as selected.
        assert!(
            !text.contains("\"selected\":true") && !text.contains("selected: true"),
            "{browser}: the {format} snapshot shows the secret month: {text}"
        );
    }

    let fields = [
        ("password", "Password", "type_ax"),
        ("new-password", "New password", "set_field"),
        ("card", "Card number", "type_ax"),
        ("csc", "Security code", "set_field"),
        ("otp", "One-time code", "type_ax"),
        ("pin", "PIN", "type_ax"),
        ("phrase", "Recovery phrase", "set_field"),
        ("expiry", "Expiry", "type_ax"),
        ("tel-pin", "Code", "set_field"),
        ("api-token", "Access", "type_ax"),
        ("key-by-label", "API key", "set_field"),
        ("memo", "Memo", "type_ax"),
    ];
    let tree_text = tree_text.to_string();
    for (index, (id, label, tool)) in fields.into_iter().enumerate() {
        let reference = find_ref(&tree_text, "textbox", label)
            .unwrap_or_else(|| panic!("{browser}: no textbox \"{label}\":\n{tree_text}"));
        let text = format!("typed-secret-{index}\n");
        let result = session
            .ok(
                tool,
                json!({"ref_id": reference, "text": text, "clear": false}),
            )
            .await;
        assert!(
            !leaks(&result.to_string()),
            "{browser} {tool} into {id}: {result}"
        );
        assert_eq!(result["sensitive"], true, "{browser} {id}: {result}");
        let value = session
            .evaluate(&format!(
                "(field => field.value ?? field.textContent)(document.getElementById('{id}'))"
            ))
            .await;
        assert!(
            value
                .as_str()
                .is_some_and(|value| value.contains(&format!("typed-secret-{index}"))),
            "{browser}: {tool} typed into {id}: {value}"
        );
    }
    // select_option on the secret month: chosen, but not echoed.
    let month = find_ref(&tree_text, "combobox", "Expiry month")
        .unwrap_or_else(|| panic!("{browser}: no combobox \"Expiry month\":\n{tree_text}"));
    let chosen = session
        .ok("select_option", json!({"ref_id": month, "value": "03"}))
        .await;
    assert_eq!(chosen["sensitive"], true, "{browser}: {chosen}");
    assert!(
        !without_generated_identifiers(&chosen.to_string()).contains("03"),
        "{browser}: select_option echoes the secret month: {chosen}"
    );
    assert_eq!(
        session
            .evaluate("document.getElementById('expiry-month').value")
            .await,
        "03",
        "{browser}: the month was chosen"
    );

    // fill_form over secret fields of each kind and the secret month, in its short reply and
    // its whole result: filled, nothing echoed (the second call finds every value in place).
    let secret_ref = |role: &str, label: &str| {
        find_ref(&tree_text, role, label)
            .unwrap_or_else(|| panic!("{browser}: no {role} \"{label}\":\n{tree_text}"))
    };
    let form_fields = json!([
        {"ref_id": secret_ref("textbox", "Password"), "value": "typed-secret-form-password"},
        {"ref_id": secret_ref("textbox", "Card number"), "value": "typed-secret-form-card"},
        {"ref_id": secret_ref("textbox", "Memo"), "value": "typed-secret-form-memo"},
        {"ref_id": month, "value": "11"},
    ]);
    for verbose in [false, true] {
        let reply = session
            .call_result(
                "fill_form",
                json!({"fields": form_fields, "verbose": verbose}),
            )
            .await;
        assert_ne!(reply.is_error, Some(true), "{browser}: {reply:?}");
        let text: String = reply
            .content
            .iter()
            .filter_map(|block| block.as_text().map(|text| text.text.clone()))
            .collect();
        assert!(
            !leaks(&text),
            "{browser}: fill_form (verbose {verbose}): {text}"
        );
        // The month's own report, and the short reply's header line (the tree lines after it
        // may list the select's options, whose labels are page text).
        let month_said = if verbose {
            let whole: Value = serde_json::from_str(&text).expect("the whole result is JSON");
            whole["fields"]
                .as_array()
                .into_iter()
                .flatten()
                .find(|report| report["ref_id"] == month.as_str())
                .map(Value::to_string)
                .unwrap_or_default()
        } else {
            text.lines().next().unwrap_or("").to_owned()
        };
        assert!(
            !without_generated_identifiers(&month_said).contains("11"),
            "{browser}: fill_form echoes the secret month: {month_said}"
        );
    }
    assert_eq!(
        session
            .evaluate("[document.getElementById('password').value, document.getElementById('expiry-month').value]")
            .await,
        json!(["typed-secret-form-password", "11"]),
        "{browser}: fill_form filled the secret fields"
    );

    // The shadow tools, over open roots in both browsers and closed ones in Chrome (its
    // debugger's node tree): no value attribute, no text of a secret field, in an outline or a
    // match (the masked editing host's text reads "••••"); the ordinary field inside the open
    // root shows its value, so values are shown at all.
    for (tool, arguments) in [
        ("get_shadow_dom", json!({})),
        ("shadow_dom_query", json!({"selector": ".field"})),
        ("shadow_dom_query", json!({"selector": "p"})),
    ] {
        let answer = match session.call(tool, arguments.clone()).await {
            Ok(answer) => answer,
            Err(error) => {
                // Firefox cannot enter the closed root; whatever it says must not leak either.
                assert!(
                    !leaks(&error.0.to_string()),
                    "{browser} {tool}: {}",
                    error.0
                );
                panic!("{browser}: {tool}({arguments}) failed: {}", error.0);
            }
        };
        let text = answer.to_string();
        assert!(!leaks(&text), "{browser} {tool}({arguments}): {answer:#}");
        // An outline shows no values at all; a match shows its attributes, `value` included.
        if tool == "get_shadow_dom" {
            assert!(text.contains("••••"), "{browser} {tool}: {answer:#}");
        }
        if arguments["selector"] != ".field" {
            continue;
        }
        assert!(
            text.contains("visible-open-city"),
            "{browser} {tool}({arguments}) shows ordinary values: {answer:#}"
        );
        if session.browser == Browser::Chromium {
            assert!(
                text.contains("visible-closed-city"),
                "{browser} {tool}({arguments}) reads the closed root: {answer:#}"
            );
        }
    }

    // The same fields read again, now holding typed text.
    let again = session.ok("get_accessibility_tree", json!({})).await;
    assert!(
        !leaks(&again.to_string()),
        "{browser}: the tree after typing: {again}"
    );

    let log_path = session.folder().join("host.log");
    let log = std::fs::read_to_string(&log_path).unwrap_or_default();
    assert!(!leaks(&log), "{browser}: the host log:\n{log}");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&log_path)
            .expect("the host log")
            .permissions()
            .mode()
            & 0o777;
        assert_eq!(mode, 0o600, "{browser}: the host log is private");
    }
}

/// The requests an action made, as `observed.requests` lists them: `(method, path)`.
fn listed_requests(result: &Value) -> Vec<(String, String)> {
    result["observed"]["requests"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|request| {
            let url = request["url"].as_str().unwrap_or("");
            let path = url
                .split_once("://")
                .and_then(|(_, rest)| rest.find('/').map(|slash| &rest[slash..]))
                .unwrap_or(url);
            (
                request["method"].as_str().unwrap_or("").to_string(),
                path.split('?').next().unwrap_or("").to_string(),
            )
        })
        .collect()
}

/// Waits a moment for requests in flight to reach the server, then counts them.
async fn requests_to(session: &Session, path: &str) -> usize {
    tokio::time::sleep(Duration::from_millis(400)).await;
    fixtures().request_count_from(session.browser.user_agent_mark(), path)
}

/// A form's POST navigation, submitted by click_ax, set_field's submit and press_key Enter, is a
/// side effect: listed, `retryAllowed: false`, sent once. A fetch POST to `/events`, `/log` or
/// `/stats` is one too (only a beacon there is telemetry), and no trusted click repeats it.
pub async fn posts_are_side_effects_whatever_their_path(session: &Session) {
    let browser = session.browser.name();
    let submissions: [(&str, &str, Value); 3] = [
        ("/forms/order", "Place order", json!({})),
        (
            "/forms/subscribe",
            "Email",
            json!({"text": "ada@example.com", "submit": true}),
        ),
        ("/forms/redeem", "Gift code", json!({"key": "Enter"})),
    ];
    for (path, name, extra) in submissions {
        open_safety(session, "post-form.html").await;
        let before = fixtures().request_count_from(session.browser.user_agent_mark(), path);
        let (tool, role) = match path {
            "/forms/order" => ("click_ax", "button"),
            "/forms/subscribe" => ("set_field", "textbox"),
            _ => ("press_key", "textbox"),
        };
        let reference = ref_of(session, role, name).await;
        let mut arguments = extra;
        arguments["ref_id"] = json!(reference);
        let result = session.ok(tool, arguments).await;
        assert!(
            listed_requests(&result).contains(&("POST".to_string(), path.to_string())),
            "{browser} {tool}: the POST is listed: {result}"
        );
        assert_eq!(result["retryAllowed"], false, "{browser} {tool}: {result}");
        assert!(
            result["observed"]["navigation"]["url"]
                .as_str()
                .is_some_and(|url| url.contains(path)),
            "{browser} {tool}: the navigation is reported too: {result}"
        );
        assert_eq!(
            requests_to(session, path).await - before,
            1,
            "{browser} {tool}: submitted once"
        );
    }

    open_safety(session, "post-form.html").await;
    for (path, name) in [
        ("/events", "Add to calendar"),
        ("/log", "Save journal entry"),
        ("/stats", "Update my goals"),
    ] {
        let before = fixtures().request_count_from(session.browser.user_agent_mark(), path);
        let button = ref_of(session, "button", name).await;
        let clicked = session.ok("click_ax", json!({"ref_id": button})).await;
        assert_eq!(
            listed_requests(&clicked),
            vec![("POST".to_string(), path.to_string())],
            "{browser} {name}: {clicked}"
        );
        assert_eq!(
            clicked["progress"], "inconclusive",
            "{browser} {name}: {clicked}"
        );
        assert_eq!(
            clicked["retryAllowed"], false,
            "{browser} {name}: {clicked}"
        );
        assert_eq!(
            clicked["method"], "synthetic",
            "{browser} {name}: {clicked}"
        );
        assert_eq!(
            requests_to(session, path).await - before,
            1,
            "{browser} {name}: sent once"
        );
    }
    // A beacon to /stats is the page's bookkeeping: not listed, not a side effect, and (since
    // it shows the handler ran) no trusted click follows.
    let before = fixtures().request_count_from(session.browser.user_agent_mark(), "/stats");
    let tips = ref_of(session, "button", "Show tips").await;
    let clicked = session.ok("click_ax", json!({"ref_id": tips})).await;
    assert!(
        clicked["observed"]["requests"].is_null(),
        "{browser}: {clicked}"
    );
    assert_eq!(clicked["method"], "synthetic", "{browser}: {clicked}");
    assert_eq!(
        requests_to(session, "/stats").await - before,
        1,
        "{browser}: one beacon"
    );
    assert_eq!(
        page_state(session).await["clicks"]["beacon-stats"],
        1,
        "{browser}"
    );
}

/// Stops the extension's background as the browser does when it is idle: Chromium's service
/// worker through DevTools (`Target.closeTarget`), Firefox's event page through the browser's own
/// `terminateBackground` (what about:debugging's "Terminate background script" calls), reached
/// through BiDi's chrome scope. Either way its native port closes and the host ends.
async fn stop_background(session: &Session) {
    match session.browser {
        Browser::Chromium => crate::lifecycle::stop_service_worker(session).await,
        Browser::Firefox => {
            let (bidi, _) = session.bidi();
            let tree = bidi
                .command("browsingContext.getTree", json!({"moz:scope": "chrome"}))
                .await
                .expect("the chrome scope's contexts");
            let window = tree["contexts"][0]["context"]
                .as_str()
                .unwrap_or_else(|| panic!("no chrome window in {tree}"))
                .to_owned();
            let identity: Value = serde_json::from_str(
                &std::fs::read_to_string(
                    crate::support::repository_root().join("manifest/identity.json"),
                )
                .expect("identity"),
            )
            .expect("JSON");
            let script = format!(
                r#"(async () => {{
                    const {{ ExtensionParent }} = ChromeUtils.importESModule("resource://gre/modules/ExtensionParent.sys.mjs");
                    const extension = ExtensionParent.GlobalManager.getExtension({:?});
                    await extension.terminateBackground({{ ignoreDevToolsAttached: true, disableResetIdleForTest: true }});
                    return String(extension.backgroundState);
                }})()"#,
                identity["geckoId"].as_str().expect("gecko id")
            );
            let stopped = bidi
                .command(
                    "script.evaluate",
                    json!({"expression": script, "target": {"context": window}, "awaitPromise": true}),
                )
                .await
                .expect("terminate the background");
            assert_ne!(stopped["type"], "exception", "{stopped}");
        }
    }
}

/// A stopped background comes back by itself for the agent's next call, with no browser event
/// to wake it (the keep-alive alarm), and a call in flight when it stopped is answered
/// (`outcome_unknown` for a click), never lost; the page's handler ran once.
pub async fn a_stopped_background_comes_back_and_loses_no_call(session: &Session) {
    let browser = session.browser.name();
    open_safety(session, "busy.html").await;
    let crunch = ref_of(session, "button", "Crunch numbers").await;
    let started = tokio::time::Instant::now();
    let in_flight = session.call("click_ax", json!({"ref_id": crunch}));
    let stopper = async {
        tokio::time::sleep(Duration::from_millis(1_500)).await;
        stop_background(session).await;
    };
    let (outcome, ()) = tokio::join!(in_flight, stopper);
    // Answered or outcome_unknown, never lost: a browser may let the background finish the event
    // it is running before it stops it (Chromium does), or stop it with the answer unsent.
    match outcome {
        Ok(clicked) => {
            eprintln!("{browser}: the click in flight was answered before the background stopped");
            assert_eq!(clicked["progress"], "observed", "{browser}: {clicked}");
        }
        Err(error) => {
            eprintln!("{browser}: the click in flight answered {}", error.code());
            assert_eq!(error.code(), "outcome_unknown", "{browser}: {}", error.0);
            let hint = error.0["hint"].as_str().unwrap_or("");
            assert!(hint.contains("Do not repeat"), "{browser}: {}", error.0);
        }
    }
    assert!(
        started.elapsed() < Duration::from_secs(30),
        "{browser}: answered when the background stopped, after {:?}",
        started.elapsed()
    );

    // Nothing happens in the browser now; only the agent calls.
    let tree = read_when_back(session).await;
    assert!(
        tree.contains("button \"Crunch numbers\""),
        "{browser}: {tree}"
    );
    let state = page_state(session).await;
    assert_eq!(state["crunches"], 1, "{browser}: clicked once: {state}");

    // Stopped while idle, with no call in flight: the alarm alone can wake it.
    tokio::time::sleep(Duration::from_millis(500)).await;
    stop_background(session).await;
    let tree = read_when_back(session).await;
    assert!(tree.contains("Crunched 1 time(s)"), "{browser}: {tree}");
}

/// The keep-alive alarm's period in the extension under test, as scripts/build-extension.mjs
/// wrote it into the build's background/build-config.js: 3 s in a build for the tests
/// (`./scripts/build --for-tests`), 30 s in a product build.
fn keep_alive_period(session: &Session) -> Duration {
    let config_path = session
        .browser
        .dist_folder()
        .join("background/build-config.js");
    let config = std::fs::read_to_string(&config_path)
        .unwrap_or_else(|error| panic!("{}: {error}", config_path.display()));
    let minutes: f64 = config
        .lines()
        .find_map(|line| line.strip_prefix("export const KEEP_ALIVE_PERIOD_MINUTES = "))
        .and_then(|value| value.trim_end_matches(';').parse().ok())
        .unwrap_or_else(|| {
            panic!(
                "{} sets no KEEP_ALIVE_PERIOD_MINUTES: rebuild with ./scripts/build --for-tests",
                config_path.display()
            )
        });
    Duration::from_secs_f64(minutes * 60.0)
}

/// get_accessibility_tree as the agent calls it after a stop, with the time it took to answer.
/// A background stopped while idle is woken by the keep-alive alarm alone
/// (extension/background/host/keep-alive.js), which fires every period ([`keep_alive_period`]): the
/// read may wait up to a whole period plus the reconnection, so the test gives it that and a
/// margin of 20 s.
async fn read_when_back(session: &Session) -> String {
    let alarm_period_and_reconnection = keep_alive_period(session) + Duration::from_secs(20);
    let stopped_at = tokio::time::Instant::now();
    let tree = session
        .call_within(
            "get_accessibility_tree",
            json!({}),
            alarm_period_and_reconnection,
        )
        .await
        .unwrap_or_else(|error| {
            panic!(
                "{}: get_accessibility_tree after a stop failed: {}",
                session.browser.name(),
                error.0
            )
        });
    eprintln!(
        "{}: the background came back for the agent after {:?}",
        session.browser.name(),
        stopped_at.elapsed()
    );
    tree["tree"].as_str().unwrap_or("").to_string()
}

/// The text with the identifiers allwright makes up removed: snapshot ids (`s-<hex>-<n>` as a
/// JSON string, which an action result's `changes` carries) and refs (`ref_<n>`). Their digits are random or
/// counted, so a check that a secret's digits ("03") are not echoed must not read them.
fn without_generated_identifiers(text: &str) -> String {
    let mut kept = String::with_capacity(text.len());
    let mut rest = text;
    while !rest.is_empty() {
        let (prefix, allowed): (&str, fn(char) -> bool) = if rest.starts_with("\"s-") {
            ("\"s-", |character| {
                character.is_ascii_hexdigit() || character == '-'
            })
        } else if rest.starts_with("ref_") {
            ("ref_", |character| character.is_ascii_digit())
        } else {
            let character = rest.chars().next().unwrap_or_default();
            kept.push(character);
            rest = &rest[character.len_utf8()..];
            continue;
        };
        let after_prefix = &rest[prefix.len()..];
        let identifier_length = after_prefix
            .find(|character: char| !allowed(character))
            .unwrap_or(after_prefix.len());
        kept.push_str(prefix);
        rest = &after_prefix[identifier_length..];
    }
    kept
}

#[test]
fn generated_identifiers_are_removed_and_everything_else_kept() {
    assert_eq!(
        without_generated_identifiers(
            r#"{"snapshotId":"s-a36cdfe0-14","text":"[ref_103] 03","label":"••••","id":"fields-03"}"#
        ),
        r#"{"snapshotId":"s-","text":"[ref_] 03","label":"••••","id":"fields-03"}"#
    );
}
