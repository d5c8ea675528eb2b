//! The action tools, driven as an agent drives them: read the tree, find the element by role and
//! name, act through `allwright mcp`, read again, and check the page's own state (each fixture
//! publishes it as `window.fixtureState`). Fixtures are real component libraries built from npm
//! (scripts/build-fixtures.mjs) and plain pages, served from two origins (fixtures/pages/actions/).
//!
//! Every check runs in Chromium and in Firefox; where the browsers differ on purpose (Chrome's one
//! trusted fallback, only where no page listener heard the synthetic click), the check says so.

use std::time::Duration;

use serde_json::{json, Value};

use crate::support::{fixtures, frame_id_in_snapshot, strings, Browser, Session};

/// The tree of the current page, as the agent reads it.
async fn read_tree(session: &Session) -> String {
    session.ok("get_accessibility_tree", json!({})).await["tree"]
        .as_str()
        .expect("a tree")
        .to_string()
}

/// The ref on the first line that starts with `role "name"`, as an agent would pick it.
pub fn find_ref(tree: &str, role: &str, name: &str) -> Option<String> {
    let start = format!("{role} \"{name}\" [ref_");
    tree.lines()
        .map(str::trim_start)
        .find(|line| line.starts_with(&start))
        .and_then(|line| line[start.len()..].split(']').next())
        .map(|number| format!("ref_{number}"))
}

/// Reads the tree (again and again for up to five seconds: a page may still be rendering) until
/// it shows `role "name"`, and returns that element's ref.
pub async fn ref_of(session: &Session, role: &str, name: &str) -> String {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
    loop {
        let tree = read_tree(session).await;
        if let Some(reference) = find_ref(&tree, role, name) {
            return reference;
        }
        if tokio::time::Instant::now() > deadline {
            panic!(
                "{}: no {role} \"{name}\" in the tree:\n{tree}",
                session.browser.name()
            );
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// The fixture's published state.
pub async fn state(session: &Session) -> Value {
    session.evaluate_json("window.fixtureState ?? null").await
}

/// Waits up to five seconds for the fixture's state to satisfy `wanted`, and returns it.
pub async fn state_when(session: &Session, what: &str, wanted: impl Fn(&Value) -> bool) -> Value {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
    loop {
        let current = state(session).await;
        if wanted(&current) {
            return current;
        }
        if tokio::time::Instant::now() > deadline {
            panic!("{}: {what}; the state is {current}", session.browser.name());
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

pub async fn open(session: &Session, page: &str) {
    session
        .open(&fixtures().url(&format!("/pages/actions/{page}.html")))
        .await;
    // The component libraries render after load.
    state_when(session, "the fixture published no state", |value| {
        !value.is_null()
    })
    .await;
}

/// Waits a moment for anything delayed, then checks how many requests the server got for `path`
/// since `before`: an action activates its target once, and only a trusted fallback may add one.
async fn assert_requests_since(
    session: &Session,
    path: &str,
    before: usize,
    expected: usize,
    what: &str,
) {
    tokio::time::sleep(Duration::from_millis(700)).await;
    assert_eq!(
        fixtures().request_count_from(session.browser.user_agent_mark(), path) - before,
        expected,
        "{}: {what}",
        session.browser.name()
    );
}

/// select_option with a label no option has: `option_not_found`, the options suggested.
async fn assert_option_not_found(session: &Session, reference: &str, label: &str, suggested: &str) {
    let browser = session.browser.name();
    let missing = session
        .call(
            "select_option",
            json!({"ref_id": reference, "label": label}),
        )
        .await
        .expect_err("no such option");
    assert_eq!(
        missing.code(),
        "option_not_found",
        "{browser}: {:?}",
        missing.0
    );
    assert!(
        strings(&missing.0["suggestions"]).contains(&suggested.to_string()),
        "{browser}: the options are suggested: {:?}",
        missing.0
    );
}

/// A combobox filled by typing part of an option and submitting (set_field commits the
/// highlighted suggestion), then set to another option with select_option; `field` is the
/// fixture state's key, which must take each option's value in turn.
async fn type_then_pick(
    session: &Session,
    combobox: &str,
    typed: &str,
    (field, committed): (&str, &str),
    (picked_label, picked): (&str, &str),
) -> String {
    let browser = session.browser.name();
    let reference = ref_of(session, "combobox", combobox).await;
    let filled = session
        .ok(
            "set_field",
            json!({"ref_id": reference, "text": typed, "submit": true}),
        )
        .await;
    assert_eq!(
        filled["submit"]["method"], "combobox",
        "{browser}: {filled}"
    );
    state_when(
        session,
        &format!("{combobox} did not commit {committed}"),
        |value| value[field] == committed,
    )
    .await;
    let reference = ref_of(session, "combobox", combobox).await;
    let selected = session
        .ok(
            "select_option",
            json!({"ref_id": reference, "label": picked_label}),
        )
        .await;
    assert_eq!(selected["method"], "listbox", "{browser}: {selected}");
    state_when(
        session,
        &format!("select_option did not pick {picked_label}"),
        |value| value[field] == picked,
    )
    .await;
    reference
}

/// The result shape every action shares (docs/protocol/tools.md, "Action results").
fn assert_action_shape(browser: &str, tool: &str, result: &Value) {
    assert_eq!(result["success"], true, "{browser}: {tool}: {result}");
    assert!(
        matches!(
            result["progress"].as_str(),
            Some("observed" | "none" | "inconclusive")
        ),
        "{browser}: {tool}: progress in {result}"
    );
    assert!(
        result["evidence"].is_array() && result["hints"].is_array(),
        "{browser}: {tool}: {result}"
    );
    assert!(
        result["retryAllowed"].is_boolean(),
        "{browser}: {tool}: {result}"
    );
    if result["progress"] == "none" {
        // Nothing showed; a click the page's listeners heard says that its effect may still come.
        let hint = result["hint"].as_str().unwrap_or("");
        assert!(
            hint.contains("No observable effect") || hint.starts_with("No visible effect yet"),
            "{browser}: {tool}: an action without effect says so: {result}"
        );
    }
}

// ---- Forms ---------------------------------------------------------------------------------

pub async fn react_controlled_form(session: &Session) {
    let browser = session.browser.name();
    open(session, "react-form").await;
    let name = ref_of(session, "textbox", "Full name").await;
    let typed = session
        .ok("type_ax", json!({"ref_id": name, "text": "Ada Lovelace"}))
        .await;
    assert_action_shape(browser, "type_ax", &typed);
    assert_eq!(typed["kind"], "input", "{browser}: {typed}");
    assert_eq!(typed["value"], "Ada Lovelace", "{browser}: {typed}");
    assert_eq!(typed["name"], "Full name", "{browser}: {typed}");
    assert_eq!(typed["progress"], "observed", "{browser}: {typed}");

    let email = ref_of(session, "textbox", "Email").await;
    session
        .ok(
            "type_ax",
            json!({"ref_id": email, "text": "ada@example.com"}),
        )
        .await;
    let message = ref_of(session, "textbox", "Message").await;
    let textarea = session
        .ok("type_ax", json!({"ref_id": message, "text": "Line one"}))
        .await;
    assert_eq!(textarea["kind"], "textarea", "{browser}: {textarea}");
    // clear: false appends.
    session
        .ok(
            "type_ax",
            json!({"ref_id": message, "text": ", line two", "clear": false}),
        )
        .await;
    let promo = ref_of(session, "textbox", "Promo code").await;
    session
        .ok("type_ax", json!({"ref_id": promo, "text": "spring"}))
        .await;

    let subscribe = ref_of(session, "checkbox", "Subscribe").await;
    let refused = session
        .call("type_ax", json!({"ref_id": subscribe, "text": "yes"}))
        .await
        .expect_err("a checkbox is not typable");
    assert_eq!(refused.code(), "not_typable", "{browser}: {:?}", refused.0);
    assert!(
        refused.0["hint"]
            .as_str()
            .unwrap_or("")
            .contains("click_ax"),
        "{browser}: the hint names the right tool: {:?}",
        refused.0
    );
    let clicked = session.ok("click_ax", json!({"ref_id": subscribe})).await;
    assert_action_shape(browser, "click_ax", &clicked);
    assert_eq!(clicked["method"], "synthetic", "{browser}: {clicked}");
    assert_eq!(clicked["progress"], "observed", "{browser}: {clicked}");

    let country = ref_of(session, "combobox", "Country").await;
    let selected = session
        .ok(
            "select_option",
            json!({"ref_id": country, "label": "Japan"}),
        )
        .await;
    assert_action_shape(browser, "select_option", &selected);
    assert_eq!(selected["method"], "native", "{browser}: {selected}");
    assert_eq!(
        selected["selected"]["label"], "Japan",
        "{browser}: {selected}"
    );
    assert_option_not_found(session, &country, "Atlantis", "France").await;

    let values = state(session).await;
    assert_eq!(
        values["values"],
        json!({"fullName": "Ada Lovelace", "email": "ada@example.com", "message": "Line one, line two",
               "subscribe": true, "country": "jp", "promoCode": "SPRING"}),
        "{browser}: React kept every value"
    );

    let send = ref_of(session, "button", "Send").await;
    session.ok("click_ax", json!({"ref_id": send})).await;
    let submitted = state_when(session, "the form was not submitted", |value| {
        value["submitCount"] == 1
    })
    .await;
    assert_eq!(
        submitted["submittedValues"]["fullName"], "Ada Lovelace",
        "{browser}"
    );

    // set_field with submit: atomic focus + clear + type + requestSubmit.
    let name = ref_of(session, "textbox", "Full name").await;
    let filled = session
        .ok(
            "set_field",
            json!({"ref_id": name, "text": "Grace Hopper", "submit": true}),
        )
        .await;
    assert_action_shape(browser, "set_field", &filled);
    assert_eq!(
        filled["submit"]["method"], "requestSubmit",
        "{browser}: {filled}"
    );
    let resubmitted = state_when(session, "set_field did not submit", |value| {
        value["submitCount"] == 2
    })
    .await;
    assert_eq!(
        resubmitted["submittedValues"]["fullName"], "Grace Hopper",
        "{browser}"
    );

    // press_key Enter in a field submits the form (implicit submission, done by allwright
    // because synthetic keys have no default action).
    let email = ref_of(session, "textbox", "Email").await;
    let pressed = session
        .ok("press_key", json!({"ref_id": email, "key": "Enter"}))
        .await;
    assert_eq!(pressed["defaultAction"], "submit", "{browser}: {pressed}");
    state_when(session, "Enter did not submit", |value| {
        value["submitCount"] == 3
    })
    .await;
}

pub async fn vue_form(session: &Session) {
    let browser = session.browser.name();
    open(session, "vue-form").await;
    let city = ref_of(session, "textbox", "City").await;
    session
        .ok("set_field", json!({"ref_id": city, "text": "Lyon"}))
        .await;
    let zip = ref_of(session, "textbox", "Zip code").await;
    let filled = session
        .ok(
            "set_field",
            json!({"ref_id": zip, "text": "69001", "submit": true}),
        )
        .await;
    assert_eq!(
        filled["submit"]["method"], "requestSubmit",
        "{browser}: {filled}"
    );
    let saved = state_when(session, "the Vue form was not saved", |value| {
        value["saved"] == true
    })
    .await;
    assert_eq!(
        saved["savedValues"],
        json!({"city": "Lyon", "zipCode": "69001"}),
        "{browser}: v-model and v-model.lazy both took the values"
    );
    assert_eq!(saved["saveCount"], 1, "{browser}");
}

pub async fn contenteditable_editor(session: &Session) {
    let browser = session.browser.name();
    open(session, "contenteditable").await;
    let editor = ref_of(session, "textbox", "Editor").await;
    let typed = session
        .ok("type_ax", json!({"ref_id": editor, "text": "Hello editor"}))
        .await;
    assert_eq!(typed["kind"], "contenteditable", "{browser}: {typed}");
    let after = state_when(session, "the editor did not see the text", |value| {
        value["text"] == "Hello editor"
    })
    .await;
    assert!(
        after["beforeInputEvents"].as_u64().unwrap_or(0) >= 1,
        "{browser}: {after}"
    );
}

// ---- Component libraries: comboboxes, portals ----------------------------------------------

pub async fn radix_select_and_dialog(session: &Session) {
    let browser = session.browser.name();
    open(session, "radix").await;
    let fruit = ref_of(session, "combobox", "Fruit").await;
    let selected = session
        .ok("select_option", json!({"ref_id": fruit, "label": "Banana"}))
        .await;
    assert_action_shape(browser, "select_option", &selected);
    assert_eq!(selected["method"], "listbox", "{browser}: {selected}");
    state_when(session, "Radix Select did not take Banana", |value| {
        value["fruit"] == "banana"
    })
    .await;

    let open_settings = ref_of(session, "button", "Open settings").await;
    let clicked = session
        .ok("click_ax", json!({"ref_id": open_settings}))
        .await;
    assert_eq!(clicked["progress"], "observed", "{browser}: {clicked}");
    let tree = read_tree(session).await;
    assert!(
        tree.starts_with("[open overlays]") && tree.contains("dialog \"Settings\""),
        "{browser}: the portal dialog is listed first:\n{tree}"
    );
    let display_name = ref_of(session, "textbox", "Display name").await;
    session
        .ok("type_ax", json!({"ref_id": display_name, "text": "Ada"}))
        .await;
    let save = ref_of(session, "button", "Save settings").await;
    session.ok("click_ax", json!({"ref_id": save})).await;
    let saved = state_when(session, "the dialog did not save", |value| {
        value["displayName"] == "Ada"
    })
    .await;
    assert_eq!(saved["settingsOpen"], false, "{browser}: {saved}");
}

pub async fn react_select_combobox(session: &Session) {
    let browser = session.browser.name();
    open(session, "react-select").await;
    let flavour = type_then_pick(
        session,
        "Flavour",
        "Straw",
        ("flavour", "strawberry"),
        ("Vanilla", "vanilla"),
    )
    .await;
    assert_option_not_found(session, &flavour, "Pistachio", "Chocolate").await;
    let after = state_when(session, "the menu was left open", |value| {
        value["menuOpen"] == false
    })
    .await;
    assert_eq!(
        after["flavour"], "vanilla",
        "{browser}: a failed pick changes nothing"
    );
}

pub async fn mui_autocomplete(session: &Session) {
    open(session, "mui-autocomplete").await;
    type_then_pick(
        session,
        "Movie",
        "Casa",
        ("movie", "Casablanca"),
        ("Vertigo", "Vertigo"),
    )
    .await;
}

// ---- Navigation, tabs, downloads -----------------------------------------------------------

pub async fn spa_routing_and_back(session: &Session) {
    let browser = session.browser.name();
    open(session, "spa").await;
    let about = ref_of(session, "link", "About").await;
    let clicked = session.ok("click_ax", json!({"ref_id": about})).await;
    assert_action_shape(browser, "click_ax", &clicked);
    assert_eq!(clicked["progress"], "observed", "{browser}: {clicked}");
    let evidence = strings(&clicked["evidence"]);
    assert!(
        evidence
            .iter()
            .any(|item| item == "url_changed" || item == "navigation"),
        "{browser}: {clicked}"
    );
    assert_eq!(clicked["navigates"], true, "{browser}: {clicked}");
    state_when(session, "the route did not change", |value| {
        value["route"] == "about"
    })
    .await;
    assert!(
        read_tree(session).await.contains("heading \"About us\""),
        "{browser}"
    );
    let back = session.ok("go_back", json!({})).await;
    assert!(
        back["url"].as_str().unwrap_or("").ends_with("spa.html"),
        "{browser}: {back}"
    );
    state_when(session, "going back did not restore Home", |value| {
        value["route"] == "home"
    })
    .await;
}

/// go_forward undoes go_back, across documents and across an SPA's pushState entries alike, and
/// answers no_history at the newest entry.
pub async fn go_forward_undoes_go_back_across_documents_and_routes(session: &Session) {
    let browser = session.browser.name();
    // Two documents: the help page, then the SPA.
    session
        .ok(
            "navigate",
            json!({"url": fixtures().url("/pages/actions/help.html")}),
        )
        .await;
    open(session, "spa").await;
    let back = session.ok("go_back", json!({})).await;
    assert!(
        back["url"].as_str().unwrap_or("").ends_with("help.html"),
        "{browser}: {back}"
    );
    assert_eq!(back["changed"], true, "{browser}: {back}");
    let forward = session.ok("go_forward", json!({})).await;
    assert!(
        forward["url"].as_str().unwrap_or("").ends_with("spa.html"),
        "{browser}: {forward}"
    );
    assert_eq!(forward["changed"], true, "{browser}: {forward}");
    assert_eq!(
        forward["title"], "Home - Single-page app",
        "{browser}: {forward}"
    );
    let home = state_when(session, "going forward did not show the SPA", |value| {
        value["route"] == "home"
    })
    .await;

    // Two routes of one document: the About route pushed by the page, back, then forward again.
    let about = ref_of(session, "link", "About").await;
    session.ok("click_ax", json!({"ref_id": about})).await;
    state_when(session, "the route did not change", |value| {
        value["route"] == "about"
    })
    .await;
    let back = session.ok("go_back", json!({})).await;
    assert!(
        back["url"].as_str().unwrap_or("").ends_with("spa.html"),
        "{browser}: {back}"
    );
    state_when(session, "going back did not restore Home", |value| {
        value["route"] == "home"
    })
    .await;
    let forward = session.ok("go_forward", json!({})).await;
    assert!(
        forward["url"]
            .as_str()
            .unwrap_or("")
            .ends_with("spa.html?route=about"),
        "{browser}: {forward}"
    );
    assert_eq!(forward["changed"], true, "{browser}: {forward}");
    // The same document all along: the page's popstate handler moved it, twice.
    let routed = state_when(session, "going forward did not restore About", |value| {
        value["route"] == "about"
    })
    .await;
    assert_eq!(
        routed["pops"].as_i64().unwrap_or(-1) - home["pops"].as_i64().unwrap_or(0),
        2,
        "{browser}: one popstate going back, one going forward: {routed}"
    );
    assert!(
        read_tree(session).await.contains("heading \"About us\""),
        "{browser}"
    );

    // The newest entry has nothing after it: no_history, and the page stays where it was.
    let newest = session
        .call("go_forward", json!({}))
        .await
        .expect_err("nothing to go forward to");
    assert_eq!(newest.code(), "no_history", "{browser}: {:?}", newest.0);
    assert!(
        newest.0["message"]
            .as_str()
            .unwrap_or("")
            .contains("go forward"),
        "{browser}: {:?}",
        newest.0
    );
    assert!(
        newest.0["hint"]
            .as_str()
            .is_some_and(|hint| hint.contains("navigate")),
        "{browser}: {:?}",
        newest.0
    );
    assert_eq!(state(session).await["route"], "about", "{browser}");
}

/// reload runs the page's script again on the same URL, asking the server whether its copy is still
/// good; with ignoreCache it asks for a fresh copy, and what was typed into a field is gone. A bad
/// argument is refused before anything reloads.
pub async fn reload_runs_the_page_again_and_ignore_cache_bypasses_the_cache(session: &Session) {
    let browser = session.browser.name();
    open(session, "reload").await;
    let first_loads = state(session).await["loads"]
        .as_i64()
        .expect("a load count");
    let page_path = "/pages/actions/reload.html";
    let page_url = fixtures().url(page_path);
    // A reload and a hard reload differ on the wire: a hard reload asks for a fresh copy
    // (`Cache-Control: no-cache`, in both browsers), an ordinary one at most asks to revalidate
    // (Chromium sends `max-age=0`; Firefox, for this no-store page, no Cache-Control at all).
    // The page itself cannot tell them apart: the fixture server answers `no-store`, so neither
    // browser refills a field on either reload. Forcing bypassCache to false in navigation.js
    // fails this check in both browsers.
    let bypassed_the_cache = || {
        fixtures()
            .latest_cache_control(page_path)
            .is_some_and(|value| value.contains("no-cache"))
    };

    let reloaded = session.ok("reload", json!({})).await;
    assert_eq!(reloaded["url"], page_url.as_str(), "{browser}: {reloaded}");
    assert_eq!(reloaded["changed"], false, "{browser}: {reloaded}");
    // The title the reply carries is the one the page's script wrote on its new run.
    assert_eq!(
        reloaded["title"],
        format!("Reload (loaded {} times)", first_loads + 1),
        "{browser}: {reloaded}"
    );
    state_when(session, "the page's script did not run again", |value| {
        value["loads"] == first_loads + 1
    })
    .await;
    assert!(
        !bypassed_the_cache(),
        "{browser}: an ordinary reload asked for a fresh copy: {:?}",
        fixtures().latest_cache_control(page_path)
    );

    let note = ref_of(session, "textbox", "Note").await;
    session
        .ok("type_ax", json!({"ref_id": note, "text": "Draft"}))
        .await;
    state_when(session, "typing into Note changed nothing", |value| {
        value["note"] == "Draft"
    })
    .await;
    let hard = session.ok("reload", json!({"ignoreCache": true})).await;
    assert_eq!(hard["url"], page_url.as_str(), "{browser}: {hard}");
    assert_eq!(
        hard["title"],
        format!("Reload (loaded {} times)", first_loads + 2),
        "{browser}: {hard}"
    );
    let after = state_when(
        session,
        "the hard reload did not run the page again",
        |value| value["loads"] == first_loads + 2,
    )
    .await;
    assert!(
        bypassed_the_cache(),
        "{browser}: the hard reload did not bypass the cache: {:?}",
        fixtures().latest_cache_control(page_path)
    );
    assert_eq!(
        after["note"], "",
        "{browser}: the script saw an empty Note: {after}"
    );
    // Read the field itself too: a browser that restores form fields does so around the end of
    // parsing, which the state published by the script may have come before.
    let field_value = session
        .evaluate_json("document.getElementById('note').value")
        .await;
    assert_eq!(
        field_value, "",
        "{browser}: the hard reload kept the typed note"
    );
    assert!(
        read_tree(session).await.contains("heading \"Loaded"),
        "{browser}"
    );

    let refused = session
        .call("reload", json!({"ignoreCache": "yes"}))
        .await
        .expect_err("ignoreCache must be a boolean");
    assert_eq!(
        refused.code(),
        "invalid_arguments",
        "{browser}: {:?}",
        refused.0
    );
    assert_eq!(
        state(session).await["loads"],
        first_loads + 2,
        "{browser}: a refused reload loads nothing"
    );
}

pub async fn new_tab_link_and_tab_tools(session: &Session) {
    let browser = session.browser.name();
    open(session, "new-tab").await;
    let first_tab = session.ok("list_tabs", json!({})).await["tabs"]
        .as_array()
        .expect("tabs")
        .len();
    let link = ref_of(session, "link", "Open help in a new tab").await;
    let clicked = session.ok("click_ax", json!({"ref_id": link})).await;
    assert_action_shape(browser, "click_ax", &clicked);
    assert_eq!(clicked["retryAllowed"], false, "{browser}: {clicked}");
    let new_tabs = clicked["observed"]["newTabs"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert_eq!(new_tabs.len(), 1, "{browser}: one new tab: {clicked}");
    let new_tab = new_tabs[0]["tabId"].as_i64().expect("tab id");
    let state_after = state(session).await;
    assert_eq!(state_after["linkClicks"], 1, "{browser}: clicked once");

    let tabs = session.ok("list_tabs", json!({})).await;
    assert_eq!(
        tabs["tabs"].as_array().map(Vec::len),
        Some(first_tab + 1),
        "{browser}: {tabs}"
    );
    session.ok("select_tab", json!({"tabId": new_tab})).await;
    // The new tab may still be loading its page: until its document commits, it is the
    // initial about:blank, which Firefox lets no extension read (`script_failed`).
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        let tree = match session
            .call("get_accessibility_tree", json!({"tabId": new_tab}))
            .await
        {
            Ok(tree) => tree,
            Err(error) if error.code() == "script_failed" => error.0,
            Err(error) => panic!("{browser}: reading the new tab: {}", error.0),
        };
        if tree["tree"]
            .as_str()
            .unwrap_or("")
            .contains("heading \"Help\"")
        {
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "{browser}: the help page never showed: {tree}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let closed = session.ok("close_tab", json!({"tabId": new_tab})).await;
    assert_eq!(closed["closed"], new_tab, "{browser}: {closed}");
    let opened = session
        .ok(
            "new_tab",
            json!({"url": fixtures().url("/pages/actions/help.html")}),
        )
        .await;
    assert_eq!(
        opened["title"].as_str().map(str::is_empty),
        Some(false),
        "{browser}: {opened}"
    );
    session
        .ok("close_tab", json!({"tabId": opened["tabId"]}))
        .await;
    let last = session.call("close_tab", json!({})).await;
    assert_eq!(
        last.expect_err("the last tab is not closed").code(),
        "invalid_arguments",
        "{browser}"
    );
}

pub async fn download_link_is_inconclusive(session: &Session) {
    let browser = session.browser.name();
    open(session, "download").await;
    let before =
        fixtures().request_count_from(session.browser.user_agent_mark(), "/download/report.csv");
    let link = ref_of(session, "link", "Download report").await;
    let clicked = session.ok("click_ax", json!({"ref_id": link})).await;
    assert_action_shape(browser, "click_ax", &clicked);
    assert_eq!(clicked["progress"], "inconclusive", "{browser}: {clicked}");
    assert_eq!(clicked["retryAllowed"], false, "{browser}: {clicked}");
    assert!(
        clicked["observed"]["downloads"]
            .as_array()
            .is_some_and(|items| !items.is_empty()),
        "{browser}: {clicked}"
    );
    assert_requests_since(
        session,
        "/download/report.csv",
        before,
        1,
        "downloaded once",
    )
    .await;
}

// ---- The click arbiter ---------------------------------------------------------------------

pub async fn mutating_request_is_inconclusive_and_never_repeated(session: &Session) {
    let browser = session.browser.name();
    // The response (and the state text it writes, which would be evidence: a change of text in
    // the page) is held back past the click's observation, so the request is all there is.
    session
        .open(&fixtures().url("/pages/actions/network.html?delay=1500"))
        .await;
    state_when(session, "the fixture published no state", |value| {
        !value.is_null()
    })
    .await;
    let before = fixtures().request_count_from(session.browser.user_agent_mark(), "/api/mutate");
    let delete = ref_of(session, "button", "Delete item").await;
    let clicked = session.ok("click_ax", json!({"ref_id": delete})).await;
    assert_action_shape(browser, "click_ax", &clicked);
    assert_eq!(clicked["progress"], "inconclusive", "{browser}: {clicked}");
    assert_eq!(clicked["retryAllowed"], false, "{browser}: {clicked}");
    assert_eq!(clicked["method"], "synthetic", "{browser}: {clicked}");
    assert!(
        clicked["observed"]["requests"][0]["method"] == "POST",
        "{browser}: {clicked}"
    );
    assert_requests_since(
        session,
        "/api/mutate",
        before,
        1,
        "one activation, never a second",
    )
    .await;
}

pub async fn telemetry_beacons_are_ignored(session: &Session) {
    let browser = session.browser.name();
    open(session, "network").await;
    let before =
        fixtures().request_count_from(session.browser.user_agent_mark(), "/telemetry/collect");
    let refresh = ref_of(session, "button", "Refresh stats").await;
    let clicked = session.ok("click_ax", json!({"ref_id": refresh})).await;
    assert_action_shape(browser, "click_ax", &clicked);
    // A telemetry beacon is not the click's effect: the arbiter sees no progress and no side
    // effect. But the beacon shows that the handler ran, so no trusted fallback follows, in
    // Chrome either: one activation.
    assert_eq!(clicked["progress"], "none", "{browser}: {clicked}");
    assert!(
        clicked["observed"]["requests"].is_null(),
        "{browser}: {clicked}"
    );
    assert_eq!(clicked["method"], "synthetic", "{browser}: {clicked}");
    assert_requests_since(
        session,
        "/telemetry/collect",
        before,
        1,
        "one activation, no trusted retry",
    )
    .await;
}

pub async fn overlay_with_pointer_events_none(session: &Session) {
    let browser = session.browser.name();
    open(session, "overlay").await;
    let buy = ref_of(session, "button", "Buy tickets").await;
    let clicked = session.ok("click_ax", json!({"ref_id": buy})).await;
    assert_action_shape(browser, "click_ax", &clicked);
    assert_eq!(clicked["method"], "synthetic", "{browser}: {clicked}");
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(
        state(session).await["clicked"],
        1,
        "{browser}: clicked once"
    );
}

/// A button that acts on trusted clicks only (it checks `event.isTrusted` in its click listener):
/// the synthetic click reached that listener, so Chrome's trusted fallback does not click again
/// (a listener that heard the click may act on it later; issue 27, item 5). The result says that
/// nothing showed yet, forbids a retry and names real input as the way for such a page.
pub async fn trusted_only_button(session: &Session) {
    let browser = session.browser.name();
    open(session, "trusted-only").await;
    let button = ref_of(session, "button", "Trusted only").await;
    let clicked = session.ok("click_ax", json!({"ref_id": button})).await;
    assert_action_shape(browser, "click_ax", &clicked);
    tokio::time::sleep(Duration::from_millis(300)).await;
    let after = state(session).await;
    assert_eq!(
        after["ignoredClicks"], 1,
        "{browser}: one synthetic click: {after}"
    );
    assert_eq!(after["trustedClicks"], 0, "{browser}: {after}");
    assert_eq!(clicked["method"], "synthetic", "{browser}: {clicked}");
    assert_eq!(clicked["progress"], "none", "{browser}: {clicked}");
    if session.browser == Browser::Chromium {
        assert!(
            strings(&clicked["hints"]).iter().any(|hint| {
                hint.starts_with(
                "no trusted fallback: the click reached the page's listeners (click on div#trusted"
            )
            }),
            "{browser}: {clicked}"
        );
        assert_eq!(clicked["retryAllowed"], false, "{browser}: {clicked}");
        assert!(
            clicked["hint"]
                .as_str()
                .is_some_and(|hint| hint.contains("--input trusted")),
            "{browser}: {clicked}"
        );
    }
}

// ---- Hover, scroll, keys, waiting ----------------------------------------------------------

pub async fn hover_scroll_keys_and_stability(session: &Session) {
    let browser = session.browser.name();
    session
        .open(&fixtures().url("/pages/scroll-hover.html"))
        .await;
    let info = ref_of(session, "button", "Shipping info").await;
    let hovered = session.ok("hover", json!({"ref_id": info})).await;
    assert_action_shape(browser, "hover", &hovered);
    assert_eq!(hovered["progress"], "observed", "{browser}: {hovered}");
    assert_eq!(state(session).await["tooltip"], true, "{browser}");

    // The heading prints no ref (docs/protocol/reading.md, "Which lines print their reference"), but the
    // registry still numbers it, right before the button that follows it: the ref an older read
    // printed for it still works.
    let info_number: u64 = info["ref_".len()..].parse().expect("a ref number");
    let heading = format!("ref_{}", info_number - 1);
    let nothing = session.ok("hover", json!({"ref_id": heading})).await;
    assert_eq!(nothing["progress"], "none", "{browser}: {nothing}");

    let down = session.ok("scroll", json!({})).await;
    assert_action_shape(browser, "scroll", &down);
    assert_eq!(down["target"], "page", "{browser}: {down}");
    assert!(
        down["after"]["y"].as_f64() > down["before"]["y"].as_f64(),
        "{browser}: {down}"
    );
    let bottom = session.ok("scroll", json!({"to": "bottom"})).await;
    assert_eq!(bottom["progress"], "observed", "{browser}: {bottom}");
    let again = session.ok("scroll", json!({"to": "bottom"})).await;
    assert_eq!(
        again["progress"], "none",
        "{browser}: already at the bottom: {again}"
    );
    let results = ref_of(session, "list", "Results").await;
    let list = session
        .ok("scroll", json!({"ref_id": results, "amount": 80}))
        .await;
    assert_eq!(list["target"], "element", "{browser}: {list}");
    assert_eq!(list["after"]["y"], 80, "{browser}: {list}");

    let first = ref_of(session, "textbox", "First").await;
    session
        .ok("type_ax", json!({"ref_id": first, "text": "x"}))
        .await;
    let tab = session
        .ok("press_key", json!({"ref_id": first, "key": "Tab"}))
        .await;
    assert_eq!(tab["defaultAction"], "focus_next", "{browser}: {tab}");
    let focused = session
        .evaluate("document.activeElement && document.activeElement.id")
        .await;
    assert_eq!(focused, "second", "{browser}");
    let typed = session.ok("press_key", json!({"key": "z"})).await;
    assert_eq!(typed["defaultAction"], "insert_text", "{browser}: {typed}");
    assert_eq!(
        session
            .evaluate("document.getElementById('second').value")
            .await,
        "z",
        "{browser}"
    );

    let load_more = ref_of(session, "button", "Load more").await;
    session.ok("click_ax", json!({"ref_id": load_more})).await;
    let stable = session
        .ok(
            "wait_for_stable",
            json!({"quietMs": 300, "timeoutMs": 10000}),
        )
        .await;
    assert_eq!(stable["stable"], true, "{browser}: {stable}");
    assert_eq!(
        state(session).await["loaded"],
        1,
        "{browser}: waited for the work to end"
    );
}

// ---- Bad input and stale refs --------------------------------------------------------------

pub async fn bad_input_and_stale_refs(session: &Session) {
    let browser = session.browser.name();
    open(session, "react-form").await;
    let send = ref_of(session, "button", "Send").await;
    for (tool, arguments, code) in [
        ("click_ax", json!({}), "invalid_arguments"),
        ("click_ax", json!({"ref_id": "12"}), "invalid_arguments"),
        ("click_ax", json!({"ref_id": 12}), "invalid_arguments"),
        (
            "type_ax",
            json!({"ref_id": send, "text": "x".repeat(60_000)}),
            "invalid_arguments",
        ),
        (
            "type_ax",
            json!({"ref_id": send, "text": 5}),
            "invalid_arguments",
        ),
        (
            "type_ax",
            json!({"ref_id": send, "text": "hi"}),
            "not_typable",
        ),
        (
            "press_key",
            json!({"key": "a", "modifiers": ["Hyper"]}),
            "invalid_arguments",
        ),
        (
            "select_option",
            json!({"ref_id": send}),
            "invalid_arguments",
        ),
        ("click_ax", json!({"ref_id": "ref_999999"}), "ref_not_found"),
    ] {
        let error = session
            .call(tool, arguments.clone())
            .await
            .expect_err("bad input is refused");
        assert_eq!(
            error.code(),
            code,
            "{browser}: {tool}({arguments}): {:?}",
            error.0
        );
        assert!(
            error.0["message"]
                .as_str()
                .is_some_and(|text| !text.is_empty()),
            "{browser}: {:?}",
            error.0
        );
    }
    // A removed element's ref fails with "not found" and suggestions that resolve, and never
    // reaches another element.
    let name = ref_of(session, "textbox", "Full name").await;
    session
        .evaluate("document.getElementById('full-name').closest('p').remove(); true")
        .await;
    let stale = session
        .call("click_ax", json!({"ref_id": name}))
        .await
        .expect_err("a removed element's ref does not resolve");
    assert_eq!(stale.code(), "ref_not_found", "{browser}: {:?}", stale.0);
    assert!(
        stale.0["message"]
            .as_str()
            .unwrap_or("")
            .contains("not found"),
        "{browser}: {:?}",
        stale.0
    );
    for suggestion in strings(&stale.0["suggestions"]) {
        session
            .ok("get_accessibility_tree", json!({"ref_id": suggestion}))
            .await;
    }
    // The page and the extension keep working.
    assert!(
        read_tree(session).await.contains("button \"Send\""),
        "{browser}"
    );
    assert_eq!(
        state(session).await["submitCount"],
        0,
        "{browser}: nothing was submitted"
    );
}

// ---- Frames --------------------------------------------------------------------------------

/// The frame id of the document whose URL ends with `suffix`, as an agent finds it: the
/// snapshot's context ids are `tab-T.frame-F`.
pub async fn frame_id_of(session: &Session, suffix: &str) -> i64 {
    let snapshot = session
        .ok("accessibility_snapshot", json!({"format": "json"}))
        .await;
    frame_id_in_snapshot(&snapshot, suffix).unwrap_or_else(|| {
        panic!(
            "{}: no frame {suffix} in {snapshot}",
            session.browser.name()
        )
    })
}

async fn read_frame_tree(session: &Session, frame_id: i64) -> String {
    session
        .ok("get_accessibility_tree", json!({"frameId": frame_id}))
        .await["tree"]
        .as_str()
        .expect("tree")
        .to_string()
}

pub async fn act_inside_a_cross_origin_frame(session: &Session) {
    let browser = session.browser.name();
    session
        .open(&fixtures().url("/pages/frame-actions/top.html"))
        .await;
    let frame_id = frame_id_of(session, "/frame-actions/child.html").await;

    let tree = read_frame_tree(session, frame_id).await;
    let city = find_ref(&tree, "textbox", "Frame city").expect("the frame's field");
    let save = find_ref(&tree, "button", "Frame save").expect("the frame's button");
    let typed = session
        .ok(
            "type_ax",
            json!({"ref_id": city, "text": "Lyon", "frameId": frame_id}),
        )
        .await;
    assert_eq!(typed["value"], "Lyon", "{browser}: {typed}");
    let clicked = session
        .ok("click_ax", json!({"ref_id": save, "frameId": frame_id}))
        .await;
    assert_action_shape(browser, "click_ax", &clicked);
    assert!(
        read_frame_tree(session, frame_id)
            .await
            .contains("Saved: Lyon"),
        "{browser}: the frame's page took the click: {clicked}"
    );
    // fill_form acts in the frame its frameId names, and the top document refuses the frame's
    // refs field by field, as every action does.
    let filled = session
        .ok(
            "fill_form",
            json!({"fields": [{"ref_id": city, "value": "Paris"}], "frameId": frame_id}),
        )
        .await;
    assert_eq!(filled["success"], true, "{browser}: {filled}");
    let refused = session
        .ok(
            "fill_form",
            json!({"fields": [{"ref_id": city, "value": "Nice"}]}),
        )
        .await;
    assert_eq!(
        refused["failed"]["code"], "ref_in_other_frame",
        "{browser}: {refused}"
    );
    assert!(
        refused["failed"]["hint"]
            .as_str()
            .is_some_and(|hint| hint.contains(&format!("fill_form with frameId {frame_id}"))),
        "{browser}: the hint names the call to make: {refused}"
    );
    let frame_tree = read_frame_tree(session, frame_id).await;
    assert!(
        frame_tree.contains("Paris") && !frame_tree.contains("Nice"),
        "{browser}: {frame_tree}"
    );
    // A frame's refs belong to that frame: the top document refuses them by name
    // (docs/protocol/frames.md, "Frames").
    let elsewhere = session
        .call("click_ax", json!({"ref_id": save}))
        .await
        .expect_err("another document's ref");
    assert_eq!(
        elsewhere.code(),
        "ref_in_other_frame",
        "{browser}: {:?}",
        elsewhere.0
    );
    let missing = session
        .call("click_ax", json!({"ref_id": save, "frameId": 99_999}))
        .await
        .expect_err("no such frame");
    assert_eq!(
        missing.code(),
        "frame_not_found",
        "{browser}: {:?}",
        missing.0
    );
}

// ---- Input that matches a browser's, lookups through the composed tree, page-wide evidence ----

/// The event order of a real click in Chromium, recorded by tests/browser/fixtures-check.mjs
/// (playwright-core's trusted input) on the same page.
fn real_click_order() -> Value {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/fixtures/pages/actions/click-order.expected.json"
    );
    serde_json::from_str(&std::fs::read_to_string(path).expect("the recorded click order"))
        .expect("JSON")
}

/// click_ax dispatches the events a real mouse click produces, in the same order, on the same
/// elements (the hit-tested text inside the button), with the same buttons, detail, pointer
/// fields and the point at the button's centre; and the button is clicked once.
pub async fn click_events_match_a_real_click(session: &Session) {
    let browser = session.browser.name();
    open(session, "click-order").await;
    let button = ref_of(session, "button", "Open").await;
    let clicked = session.ok("click_ax", json!({"ref_id": button})).await;
    assert_action_shape(browser, "click_ax", &clicked);
    assert_eq!(clicked["method"], "synthetic", "{browser}: {clicked}");
    tokio::time::sleep(Duration::from_millis(300)).await;
    let recorded = state(session).await;
    assert_eq!(
        recorded["clicks"], 1,
        "{browser}: one click, never two: {recorded}"
    );
    assert_eq!(
        recorded["events"],
        real_click_order(),
        "{browser}: click_ax's events differ from a real click's"
    );
}

/// The list: "Open" changes only a status line elsewhere on the page. That text change
/// is the click's evidence, so no trusted fallback follows and the item is opened exactly once,
/// in both browsers; a status written 450 ms later is evidence too; and a click whose only
/// reaction is a class changed on its row (no evidence, nothing changing later) gets no trusted
/// fallback either: the page heard it.
pub async fn status_line_elsewhere_is_evidence_and_nothing_runs_twice(session: &Session) {
    let browser = session.browser.name();
    open(session, "status-list").await;

    let open_now = ref_of(session, "button", "Open").await;
    let clicked = session.ok("click_ax", json!({"ref_id": open_now})).await;
    assert_action_shape(browser, "click_ax", &clicked);
    assert_eq!(clicked["method"], "synthetic", "{browser}: {clicked}");
    assert_eq!(clicked["progress"], "observed", "{browser}: {clicked}");
    let evidence = strings(&clicked["evidence"]);
    assert!(
        evidence.contains(&"text_changed".to_string())
            && evidence.contains(&"text_changed:live_region".to_string()),
        "{browser}: the status line is evidence: {clicked}"
    );

    let open_later = ref_of(session, "button", "Open later").await;
    let later = session.ok("click_ax", json!({"ref_id": open_later})).await;
    assert_eq!(later["method"], "synthetic", "{browser}: {later}");
    assert_eq!(
        later["progress"], "observed",
        "{browser}: a status written late is evidence: {later}"
    );

    let pin = ref_of(session, "button", "Pin").await;
    let pinned = session.ok("click_ax", json!({"ref_id": pin})).await;
    assert_eq!(
        pinned["method"], "synthetic",
        "{browser}: the page changed after the click, so no trusted click: {pinned}"
    );
    if session.browser == Browser::Chromium {
        assert!(
            strings(&pinned["hints"])
                .iter()
                .any(|hint| hint
                    .starts_with("no trusted fallback: the page changed after the click")),
            "{browser}: {pinned}"
        );
    }

    tokio::time::sleep(Duration::from_millis(700)).await;
    let after = state(session).await;
    assert_eq!(
        after,
        json!({"opened": {"a": 1, "b": 1}, "pinned": 1}),
        "{browser}: each button ran exactly once"
    );
    let status = session
        .evaluate_json("document.getElementById('status').textContent")
        .await;
    assert_eq!(status, "Opened Report B (1)", "{browser}");
}

/// Shoelace's select (from npm): options are light-DOM children slotted into the listbox of its
/// shadow root, and it chooses on mouseup. select_option finds them through slot assignment,
/// lists them when the label is wrong, and chooses with a whole click; click_ax on the combobox
/// opens it (mousedown) and click_ax on an option chooses it (mouseup). Each choice fires one
/// change, never two.
pub async fn shoelace_select_through_slots(session: &Session) {
    let browser = session.browser.name();
    open(session, "shoelace-select").await;
    let combobox = ref_of(session, "combobox", "Fruit").await;

    assert_option_not_found(session, &combobox, "Durian", "Cherry").await;
    let picked = session
        .ok(
            "select_option",
            json!({"ref_id": combobox, "label": "Banana"}),
        )
        .await;
    assert_action_shape(browser, "select_option", &picked);
    assert_eq!(picked["progress"], "observed", "{browser}: {picked}");
    state_when(session, "select_option chose Banana", |value| {
        value["value"] == "banana"
    })
    .await;

    let opened = session.ok("click_ax", json!({"ref_id": combobox})).await;
    assert_eq!(opened["progress"], "observed", "{browser}: {opened}");
    let cherry = ref_of(session, "option", "Cherry").await;
    let chosen = session.ok("click_ax", json!({"ref_id": cherry})).await;
    assert_action_shape(browser, "click_ax", &chosen);
    assert_eq!(chosen["method"], "synthetic", "{browser}: {chosen}");
    assert_eq!(chosen["progress"], "observed", "{browser}: {chosen}");
    let after = state_when(session, "click_ax chose Cherry", |value| {
        value["value"] == "cherry"
    })
    .await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    let settled = state(session).await;
    assert_eq!(settled, after, "{browser}: nothing changed later");
    assert_eq!(
        settled["changes"], 2,
        "{browser}: one change per choice: {settled}"
    );
    assert_eq!(
        settled["mouseups"], 2,
        "{browser}: one mouseup per choice: {settled}"
    );
}
