//! The side panel (docs/agent-tools.md, "Watching the agent"), opened as a tab while the MCP
//! client drives tools: it shows each call live, newest first, with the tree text or the error;
//! a password and a one-time code typed with type_ax appear neither in its DOM nor in the JSON
//! dump that Shift+click on Verbose downloads; changing the mode and tier in it changes what the
//! MCP server lists, and the client gets notifications/tools/list_changed. The test takes a
//! screenshot of the panel in each browser (target/tmp/panel-<browser>.png).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::Duration;

use base64::Engine;
use serde_json::{json, Value};

use crate::support::{fixtures, reference_of, repository_root, Browser, Session, PATIENCE};
use crate::tiers::{contract_tools, RawClient};

const PASSWORD: &str = "hunter2-Secret-Password";
const ONE_TIME_CODE: &str = "Secret-Otp-424242";
const VISIBLE_TEXT: &str = "visible search words";
/// What fill_form puts into the same password and search fields.
const FORM_PASSWORD: &str = "Form-Secret-Passphrase-77";
const FORM_VISIBLE_TEXT: &str = "visible form words";

/// Opens the panel's page in a background tab; returns its browsing context. Firefox's BiDi
/// refuses to navigate a tab to a moz-extension: URL, so there the browser window itself (BiDi's
/// chrome scope, behind `remote.experimental.enabled`) opens the tab, as a person's click would.
pub async fn open_panel(session: &Session) -> String {
    if session.browser == Browser::Firefox {
        return open_panel_from_firefox_chrome(session).await;
    }
    let (bidi, main) = session.bidi();
    let created = bidi
        .command(
            "browsingContext.create",
            json!({"type": "tab", "background": true}),
        )
        .await
        .expect("a tab for the panel");
    let panel = created["context"].as_str().expect("context").to_owned();
    bidi.navigate(&panel, &session.panel_url(), PATIENCE)
        .await
        .unwrap_or_else(|error| panic!("open {}: {error}", session.panel_url()));
    activate(session, main).await;
    panel
}

async fn open_panel_from_firefox_chrome(session: &Session) -> String {
    let (bidi, main) = session.bidi();
    let before = tab_contexts(session).await;
    let tree = bidi
        .command("browsingContext.getTree", json!({"moz:scope": "chrome"}))
        .await
        .expect("the chrome scope's contexts");
    let window = tree["contexts"][0]["context"]
        .as_str()
        .unwrap_or_else(|| panic!("no chrome window in {tree}"))
        .to_owned();
    let script = format!(
        "gBrowser.addTab({:?}, {{triggeringPrincipal: Services.scriptSecurityManager.getSystemPrincipal(), inBackground: true}}) && true",
        session.panel_url()
    );
    let opened = bidi
        .command(
            "script.evaluate",
            json!({"expression": script, "target": {"context": window}, "awaitPromise": false}),
        )
        .await
        .expect("open the panel's tab from the browser window");
    assert_ne!(opened["type"], "exception", "{opened}");
    let deadline = tokio::time::Instant::now() + PATIENCE;
    loop {
        let now = tab_contexts(session).await;
        if let Some(panel) = now.iter().find(|context| !before.contains(*context)) {
            activate(session, main).await;
            return panel.clone();
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the panel's tab never appeared"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

async fn tab_contexts(session: &Session) -> Vec<String> {
    let (bidi, _) = session.bidi();
    let tree = bidi
        .command("browsingContext.getTree", json!({"maxDepth": 0}))
        .await
        .expect("the tabs");
    tree["contexts"]
        .as_array()
        .map(|contexts| {
            contexts
                .iter()
                .filter_map(|context| context["context"].as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

async fn activate(session: &Session, context: &str) {
    let (bidi, _) = session.bidi();
    bidi.command("browsingContext.activate", json!({"context": context}))
        .await
        .expect("activate the tab");
}

/// Waits until `expression`, evaluated in the panel, is truthy; returns its last value.
async fn wait_in_panel(session: &Session, panel: &str, expression: &str, what: &str) -> Value {
    let deadline = tokio::time::Instant::now() + PATIENCE;
    loop {
        let value = session.evaluate_json_in(panel, expression).await;
        match &value {
            Ok(found) if !found.is_null() && found != &json!(false) => return found.clone(),
            _ if tokio::time::Instant::now() >= deadline => {
                panic!(
                    "{}: the panel never showed {what}: {value:?}",
                    session.browser.name()
                )
            }
            _ => tokio::time::sleep(Duration::from_millis(200)).await,
        }
    }
}

async fn click_in_panel(session: &Session, panel: &str, selector: &str) {
    session
        .evaluate_json_in(
            panel,
            &format!("document.querySelector({selector:?}).click() ?? true"),
        )
        .await
        .unwrap_or_else(|error| panic!("click {selector}: {error}"));
}

/// A real Shift+click (WebDriver BiDi input.performActions) on an element of the panel, which
/// must be the active tab.
async fn shift_click_in_panel(session: &Session, panel: &str, selector: &str) {
    let rect = session
        .evaluate_json_in(
            panel,
            &format!("(() => {{ const r = document.querySelector({selector:?}).getBoundingClientRect(); return {{x: Math.round(r.x + r.width / 2), y: Math.round(r.y + r.height / 2)}}; }})()"),
        )
        .await
        .expect("the button's box");
    let (bidi, _) = session.bidi();
    bidi.command(
        "input.performActions",
        json!({
            "context": panel,
            "actions": [
                {"type": "key", "id": "keyboard", "actions": [
                    {"type": "keyDown", "value": "\u{E008}"},
                    {"type": "pause"}, {"type": "pause"}, {"type": "pause"},
                    {"type": "keyUp", "value": "\u{E008}"}
                ]},
                {"type": "pointer", "id": "mouse", "parameters": {"pointerType": "mouse"}, "actions": [
                    {"type": "pause"},
                    {"type": "pointerMove", "x": rect["x"], "y": rect["y"]},
                    {"type": "pointerDown", "button": 0},
                    {"type": "pointerUp", "button": 0},
                    {"type": "pause"}
                ]}
            ]
        }),
    )
    .await
    .expect("Shift+click");
    let _ = bidi
        .command("input.releaseActions", json!({"context": panel}))
        .await;
}

async fn screenshot_panel(session: &Session, panel: &str) -> PathBuf {
    activate(session, panel).await;
    // The size of a side panel (Chrome's is about 360 px wide by default).
    let (bidi, _) = session.bidi();
    bidi.command(
        "browsingContext.setViewport",
        json!({"context": panel, "viewport": {"width": 400, "height": 900}}),
    )
    .await
    .expect("a side panel's viewport");
    tokio::time::sleep(Duration::from_millis(300)).await;
    let (bidi, main) = session.bidi();
    let shot = bidi
        .command(
            "browsingContext.captureScreenshot",
            json!({"context": panel}),
        )
        .await
        .expect("a screenshot of the panel");
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(shot["data"].as_str().expect("data"))
        .expect("base64");
    let folder = repository_root().join("target/tmp");
    std::fs::create_dir_all(&folder).expect("target/tmp");
    let path = folder.join(format!("panel-{}.png", session.browser.name()));
    std::fs::write(&path, bytes).expect("write the screenshot");
    activate(session, main).await;
    path
}

fn find_dump(folder: &Path) -> Option<PathBuf> {
    let entries = std::fs::read_dir(folder).ok()?;
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            if let Some(found) = find_dump(&path) {
                return Some(found);
            }
        } else if path
            .file_name()
            .and_then(|name| name.to_str())
            .is_some_and(|name| name.starts_with("allwright-calls-") && name.ends_with(".json"))
        {
            return Some(path);
        }
    }
    None
}

/// The tools of the panel's list, newest first, with their status.
const CALL_LIST: &str = "[...document.querySelectorAll('#calls > li')].map((li) => [li.dataset.tool, li.dataset.status])";

pub async fn the_panel_shows_calls_live_redacts_secrets_and_sets_the_tier(session: &mut Session) {
    let browser = session.browser.name();
    session.restart_mcp(&["--tier", "full"]).await;
    let panel = open_panel(session).await;
    wait_in_panel(
        session,
        &panel,
        "document.getElementById('host-state').dataset.state === 'on' && document.getElementById('client-name').textContent",
        "the host connected and the MCP client's name",
    )
    .await;
    let client = session
        .evaluate_json_in(&panel, "document.getElementById('client-name').textContent")
        .await
        .expect("client name");
    assert_ne!(
        client,
        json!("No MCP client"),
        "{browser}: the panel names the MCP client"
    );
    let full_checked = session
        .evaluate_json_in(&panel, "[document.querySelector('#mode [aria-checked=true]').dataset.value, document.querySelector('#tier [aria-checked=true]').dataset.value]")
        .await
        .expect("selectors");
    assert_eq!(
        full_checked,
        json!(["act", "full"]),
        "{browser}: the session's access is shown"
    );

    // Verbose mode on, then the agent works.
    click_in_panel(session, &panel, "#verbose").await;
    wait_in_panel(
        session,
        &panel,
        "document.getElementById('verbose').getAttribute('aria-pressed') === 'true'",
        "verbose on",
    )
    .await;
    session
        .open(&fixtures().url("/pages/panel-login.html"))
        .await;
    let tree = session.ok("get_accessibility_tree", json!({})).await["tree"]
        .as_str()
        .expect("tree")
        .to_owned();
    let password = reference_of(&tree, "textbox \"Password\"");
    let code = reference_of(&tree, "textbox \"One-time code\"");
    let search = reference_of(&tree, "searchbox \"Search the help\"");
    let typed = session
        .ok("type_ax", json!({"ref_id": password, "text": PASSWORD}))
        .await;
    assert_eq!(typed["sensitive"], json!(true), "{browser}: {typed}");
    let typed = session
        .ok("type_ax", json!({"ref_id": code, "text": ONE_TIME_CODE}))
        .await;
    assert_eq!(
        typed["sensitive"],
        json!(true),
        "{browser}: a one-time code is a secret: {typed}"
    );
    let typed = session
        .ok("type_ax", json!({"ref_id": search, "text": VISIBLE_TEXT}))
        .await;
    assert_eq!(typed["sensitive"], json!(false), "{browser}: {typed}");
    let filled = session
        .ok(
            "fill_form",
            json!({"fields": [{"ref_id": search, "value": FORM_VISIBLE_TEXT}, {"ref_id": password, "value": FORM_PASSWORD}]}),
        )
        .await;
    assert_eq!(filled["success"], json!(true), "{browser}: {filled}");
    let failed = session
        .call("click_ax", json!({"ref_id": "ref_99999"}))
        .await
        .expect_err("no such ref");
    session
        .ok("get_accessibility_tree", json!({"filter": "interactive"}))
        .await;

    // Live, newest first, with the tree text and the error.
    let listed = wait_in_panel(
        session,
        &panel,
        &format!("(() => {{ const calls = {CALL_LIST}; return calls.length >= 8 && calls[0][1] === 'ok' ? calls : false; }})()"),
        "the eight calls",
    )
    .await;
    let tools: Vec<&str> = listed
        .as_array()
        .expect("calls")
        .iter()
        .map(|call| call[0].as_str().unwrap_or(""))
        .collect();
    assert_eq!(
        &tools[..8],
        [
            "get_accessibility_tree",
            "click_ax",
            "fill_form",
            "type_ax",
            "type_ax",
            "type_ax",
            "get_accessibility_tree",
            "navigate"
        ],
        "{browser}: newest first"
    );
    assert_eq!(
        listed[1][1],
        json!("error"),
        "{browser}: the failed click is marked"
    );
    let text = session
        .evaluate_json_in(&panel, "document.getElementById('calls').textContent")
        .await
        .expect("the list's text");
    let text = text.as_str().unwrap_or("");
    assert!(
        text.contains("heading \"Sign in to Example Mail\""),
        "{browser}: the tree text is shown"
    );
    assert!(
        text.contains(failed.code()),
        "{browser}: the error code is shown"
    );
    assert!(
        text.contains(VISIBLE_TEXT) && text.contains(FORM_VISIBLE_TEXT),
        "{browser}: text typed into an ordinary field is shown"
    );
    let whole_page = session
        .evaluate_json_in(&panel, "document.documentElement.outerHTML")
        .await
        .expect("the panel's HTML");
    let whole_page = whole_page.as_str().unwrap_or("");
    for secret in [PASSWORD, ONE_TIME_CODE, FORM_PASSWORD] {
        assert!(
            !whole_page.contains(secret),
            "{browser}: {secret} is in the panel"
        );
    }
    assert!(
        whole_page.contains("[redacted]"),
        "{browser}: the panel says what it redacted"
    );

    // Shift+click on Verbose downloads the log as JSON.
    activate(session, &panel).await;
    shift_click_in_panel(session, &panel, "#verbose").await;
    let deadline = tokio::time::Instant::now() + PATIENCE;
    let dump_path = loop {
        if let Some(found) = find_dump(session.folder()) {
            let complete = std::fs::read_to_string(&found)
                .ok()
                .and_then(|text| serde_json::from_str::<Value>(&text).ok());
            if complete.is_some() {
                break found;
            }
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "{browser}: no dump was downloaded under {}",
            session.folder().display()
        );
        tokio::time::sleep(Duration::from_millis(250)).await;
    };
    activate(session, session.bidi().1).await;
    let dump_text = std::fs::read_to_string(&dump_path).expect("the dump");
    let dump: Value = serde_json::from_str(&dump_text).expect("the dump is JSON");
    assert_eq!(dump["format"], "allwright-call-log", "{browser}");
    assert_eq!(
        verbose_still_on(session, &panel).await,
        json!("true"),
        "{browser}: Shift+click downloads without turning verbose off"
    );
    let calls = dump["calls"].as_array().expect("calls");
    assert!(
        calls.len() >= 8 && calls.len() <= 200,
        "{browser}: {} calls",
        calls.len()
    );
    let last = &calls[calls.len() - 1];
    assert_eq!(
        last["request"]["tool"], "get_accessibility_tree",
        "{browser}: oldest first, the last call last"
    );
    let failed_call = &calls[calls.len() - 2];
    assert_eq!(failed_call["request"]["tool"], "click_ax");
    assert_eq!(failed_call["response"]["ok"], json!(false));
    assert_eq!(failed_call["response"]["error"]["code"], failed.code());
    let tree_call = &calls[calls.len() - 7];
    assert!(
        tree_call["response"]["result"]["tree"]
            .as_str()
            .is_some_and(|tree| tree.contains("Sign in to Example Mail")),
        "{browser}: the dump holds the tree: {tree_call}"
    );
    assert!(dump_text.contains(VISIBLE_TEXT), "{browser}");
    assert!(dump_text.contains(FORM_VISIBLE_TEXT), "{browser}");
    for secret in [PASSWORD, ONE_TIME_CODE, FORM_PASSWORD] {
        assert!(
            !dump_text.contains(secret),
            "{browser}: {secret} is in the dump"
        );
    }

    // The mode and tier selectors: the MCP client's list follows, with list_changed.
    let mut changes = session.tool_list_changes();
    let before = *changes.borrow_and_update();
    for (mode_or_tier, tier, dev, label) in [
        ("#mode [data-value=ask]", "ask", false, "Ask"),
        (
            "#mode [data-value=act]",
            "full",
            false,
            "Act (Full, the last acting tier)",
        ),
        ("#tier [data-value=mid]", "mid", false, "Mid"),
        ("#mode [data-value=dev]", "mid", true, "Dev Mid"),
        ("#tier [data-value=compact]", "compact", true, "Dev Compact"),
    ] {
        let seen = *changes.borrow_and_update();
        click_in_panel(session, &panel, mode_or_tier).await;
        tokio::time::timeout(PATIENCE, changes.wait_for(|count| *count > seen))
            .await
            .unwrap_or_else(|_| panic!("{browser}: no tools/list_changed after {label}"))
            .expect("the client is alive");
        let listed: BTreeSet<String> = session.listed_tools().await.into_iter().collect();
        assert_eq!(listed, contract_tools(tier, dev), "{browser}: {label}");
        if tier == "ask" {
            let refused = session
                .call("navigate", json!({"url": "about:blank"}))
                .await
                .expect_err("Ask does not navigate");
            assert_eq!(refused.code(), "not_in_tier", "{browser}: {:?}", refused.0);
            let tier_disabled = session
                .evaluate_json_in(
                    &panel,
                    "[...document.querySelectorAll('#tier button')].every((b) => b.disabled)",
                )
                .await
                .expect("tier buttons");
            assert_eq!(tier_disabled, json!(true), "{browser}: Ask has no tier");
        }
    }
    assert!(*changes.borrow() >= before + 5, "{browser}");
    click_in_panel(session, &panel, "#mode [data-value=act]").await;
    click_in_panel(session, &panel, "#tier [data-value=mid]").await;
    wait_in_panel(session, &panel, "document.querySelector('#tier [aria-checked=true]')?.dataset.value === 'mid' && document.querySelector('#mode [aria-checked=true]')?.dataset.value === 'act'", "Act Mid").await;
    session
        .open(&fixtures().url("/pages/panel-login.html"))
        .await;
    session
        .ok("get_accessibility_tree", json!({"filter": "interactive"}))
        .await;
    wait_in_panel(session, &panel, &format!("(() => {{ const calls = {CALL_LIST}; return calls[0][0] === 'get_accessibility_tree' && calls[0][1] === 'ok'; }})()"), "the last tree").await;
    let path = screenshot_panel(session, &panel).await;
    eprintln!("{browser}: the panel's screenshot is {}", path.display());
    let (bidi, _) = session.bidi();
    let _ = bidi
        .command("browsingContext.close", json!({"context": panel}))
        .await;
    session.restart_mcp(&[]).await;
}

async fn verbose_still_on(session: &Session, panel: &str) -> Value {
    session
        .evaluate_json_in(
            panel,
            "document.getElementById('verbose').getAttribute('aria-pressed')",
        )
        .await
        .expect("verbose state")
}

/// In a browser allwright launched, the MCP server clicks and hovers with real pointer input over
/// WebDriver BiDi, and the extension sees only the bridge's begin and finish (or abort) of that
/// input: the panel still lists the action, as click_ax, closed by the finish or the abort. The
/// test speaks the bridge's calls itself over the local socket, as the MCP server would.
pub async fn real_input_actions_are_listed_in_the_panel(session: &mut Session) {
    let browser = session.browser.name();
    session.stop_mcp().await;
    let mut raw = RawClient::connect(session).await;
    let page = fixtures().url("/pages/panel-login.html");
    let navigated = raw
        .call("b1", "navigate", json!({"url": page}), &Value::Null)
        .await;
    assert_eq!(navigated["ok"], json!(true), "{browser}: {navigated}");
    let read = raw
        .call(
            "b2",
            "get_accessibility_tree",
            json!({"filter": "interactive"}),
            &Value::Null,
        )
        .await;
    let tree = read["result"]["tree"].as_str().expect("a tree").to_owned();
    let button = reference_of(&tree, "button \"Sign in\"");
    let begun = raw
        .call(
            "b3",
            "bridge_begin_input",
            json!({"ref_id": button, "kind": "click"}),
            &Value::Null,
        )
        .await;
    let token = begun["result"]["token"]
        .as_str()
        .unwrap_or_else(|| panic!("{browser}: no token in {begun}"))
        .to_owned();
    let finished = raw
        .call(
            "b4",
            "bridge_finish_input",
            json!({"token": token}),
            &Value::Null,
        )
        .await;
    assert_eq!(finished["ok"], json!(true), "{browser}: {finished}");
    let begun = raw
        .call(
            "b5",
            "bridge_begin_input",
            json!({"ref_id": button, "kind": "click"}),
            &Value::Null,
        )
        .await;
    let token = begun["result"]["token"]
        .as_str()
        .expect("a token")
        .to_owned();
    let aborted = raw
        .call(
            "b6",
            "bridge_abort_input",
            json!({"token": token}),
            &Value::Null,
        )
        .await;
    assert_eq!(
        aborted["result"]["aborted"],
        json!(true),
        "{browser}: {aborted}"
    );
    // A call the server answered itself (console_messages from its BiDi records) is logged too.
    let logged = raw
        .call(
            "b7",
            "bridge_log_answer",
            json!({
                "tool": "console_messages",
                "arguments": {"level": "error"},
                "outcome": {"ok": true, "result": {"count": 1, "next": 3, "tree": "#3 error \"boom\""}}
            }),
            &Value::Null,
        )
        .await;
    assert_eq!(logged["ok"], json!(true), "{browser}: {logged}");
    let refused = raw
        .call(
            "b8",
            "bridge_log_answer",
            json!({"tool": "click_ax", "arguments": {}, "outcome": {"ok": true, "result": {}}}),
            &Value::Null,
        )
        .await;
    assert_eq!(
        refused["ok"],
        json!(false),
        "{browser}: only the tools the server answers are logged this way: {refused}"
    );
    drop(raw);

    let panel = open_panel(session).await;
    let listed = wait_in_panel(
        session,
        &panel,
        &format!("(() => {{ const calls = {CALL_LIST}; return calls.length >= 5 && calls[1][1] !== 'running' && calls[2][1] !== 'running' ? calls.slice(0, 5) : false; }})()"),
        "the two real-input clicks and the console read",
    )
    .await;
    assert_eq!(
        listed,
        json!([
            ["console_messages", "ok"],
            ["click_ax", "error"],
            ["click_ax", "ok"],
            ["get_accessibility_tree", "ok"],
            ["navigate", "ok"]
        ]),
        "{browser}: the aborted click, the finished one, newest first"
    );
    let text = session
        .evaluate_json_in(&panel, "document.getElementById('calls').textContent")
        .await
        .expect("the list's text");
    assert!(
        text.as_str().is_some_and(|text| text.contains("bidi")),
        "{browser}: the entry says the input was real: {text}"
    );
    let (bidi, _) = session.bidi();
    let _ = bidi
        .command("browsingContext.close", json!({"context": panel}))
        .await;
    session.restart_mcp(&[]).await;
}
