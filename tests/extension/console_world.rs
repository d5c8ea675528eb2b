//! The ref registry's debugging names (`window.__wb_ax_lookup('ref_42')`, `window.__wbElementMap`,
//! docs/agent-tools.md, "Watching the agent") are reachable from the DevTools console in the content
//! script's world, and never from the page's own scripts, even one that defines the same names.

use serde_json::{json, Value};

use crate::devtools::DevTools;
use crate::support::{fixtures, reference_of, repository_root, Browser, Session};

pub async fn lookup_names_live_in_the_content_script_world_only(session: &Session) {
    let browser = session.browser.name();
    let url = fixtures().url("/pages/registry.html");
    session.open(&url).await;
    let tree = session.ok("get_accessibility_tree", json!({})).await["tree"]
        .as_str()
        .expect("tree")
        .to_owned();
    let reference = reference_of(&tree, "button ");

    // The page's own world sees neither name.
    let seen_by_page = session
        .evaluate_json("[typeof window.__wb_ax_lookup, typeof window.__wbElementMap, typeof window.__wbRefCounter, Object.keys(window).filter((name) => name.startsWith('__wb'))]")
        .await;
    assert_eq!(
        seen_by_page,
        json!(["undefined", "undefined", "undefined", []]),
        "{browser}: the page's scripts must not reach the registry"
    );
    // A page that defines the names itself changes nothing for the extension.
    session
        .evaluate("window.__wb_ax_lookup = () => document.body; window.__wbElementMap = {}; true")
        .await;
    let anchored = session
        .ok("get_accessibility_tree", json!({"ref_id": reference}))
        .await;
    assert!(
        anchored["tree"]
            .as_str()
            .is_some_and(|text| text.starts_with("button ")),
        "{browser}: the extension's lookup is its own: {anchored}"
    );

    // The content script's world has both, as the DevTools console sees it there.
    let checks = format!(
        "(() => {{ const element = window.__wb_ax_lookup({reference:?}); const map = window.__wbElementMap; \
         return [typeof window.__wb_ax_lookup, element ? element.localName : null, \
         map[{reference:?}].deref() === element, Object.keys(map).length > 0]; }})()"
    );
    let in_world = match session.browser {
        Browser::Firefox => match firefox_content_script_evaluate(session, &checks).await {
            Some(value) => value,
            None => {
                // Firefox's WebDriver BiDi lists only the page's window realm (and BiDi's own
                // sandboxes), not the WebExtension content-script sandbox that the DevTools
                // console's context selector offers: the page-side half above is what can be
                // checked from outside there.
                eprintln!("firefox: BiDi lists no content-script realm; the console half is checked in Chromium only");
                return;
            }
        },
        Browser::Chromium => {
            let address = session
                .chromium_debugger_address()
                .expect("DevTools address");
            let mut devtools = DevTools::attach_to_page(&address, &url).await;
            let identity: Value = serde_json::from_str(
                &std::fs::read_to_string(repository_root().join("manifest/identity.json"))
                    .expect("identity"),
            )
            .expect("JSON");
            let world = devtools
                .extension_world(identity["chromeExtensionId"].as_str().expect("id"))
                .await
                .expect("the extension's isolated world in the page");
            devtools.evaluate_in(world, &checks).await
        }
    };
    assert_eq!(
        in_world,
        json!(["function", "button", true, true]),
        "{browser}: the console in the content script's world reaches the registry"
    );
}

/// Firefox: the content script's sandbox, as the DevTools console's context selector picks it,
/// when WebDriver BiDi lists it as a realm (Firefox ESR 140 does not: None).
async fn firefox_content_script_evaluate(session: &Session, expression: &str) -> Option<Value> {
    let (bidi, context) = session.bidi();
    let realms = bidi
        .command("script.getRealms", json!({"context": context}))
        .await
        .expect("the tab's realms");
    let realm = realms["realms"].as_array().and_then(|realms| {
        realms
            .iter()
            .find(|realm| {
                realm["type"] == "content-script"
                    || realm["sandbox"]
                        .as_str()
                        .is_some_and(|name| name.contains("allwright"))
            })
            .and_then(|realm| realm["realm"].as_str())
            .map(str::to_owned)
    });
    let realm = realm?;
    let response = bidi
        .command(
            "script.evaluate",
            json!({"expression": format!("JSON.stringify({expression})"), "target": {"realm": realm}, "awaitPromise": false}),
        )
        .await
        .expect("evaluate in the content script's realm");
    Some(
        serde_json::from_str(response["result"]["value"].as_str().unwrap_or("null"))
            .unwrap_or(Value::Null),
    )
}
