//! resize and emulate (docs/agent-tools.md, "resize" and "emulate"): in the user's own browser the
//! extension resizes the tab's window until the page's viewport has the size asked; in a browser
//! allwright launched the bridge gives the tab alone a viewport, a device pixel ratio, a user
//! agent, no network, and (Chromium) a colour scheme and reduced motion, each of which lasts
//! across the tab's navigations and stays in that tab. What the page sees is read in the page
//! itself: over the test's own BiDi session in the user's browser, with execute_js (Dev mode) in
//! the launched one.

use serde_json::{json, Value};

use crate::bridge::LaunchedMcp;
use crate::support::{fixtures, Session};

/// The page's viewport as `[innerWidth, innerHeight]`.
const VIEWPORT: &str = "[window.innerWidth, window.innerHeight]";

/// In the user's own browser, resize moves the window until the viewport has the size asked,
/// and answers the size the page sees.
pub async fn resize_gives_the_window_the_viewport_asked(session: &Session) {
    let name = session.browser.name();
    session
        .open(&fixtures().url("/pages/emulation/index.html"))
        .await;
    let before = session.evaluate_json(VIEWPORT).await;
    for (width, height) in [(640, 480), (560, 400), (720, 540)] {
        let started = std::time::Instant::now();
        let reply = session
            .ok("resize", json!({"width": width, "height": height}))
            .await;
        let took = started.elapsed();
        let seen = session.evaluate_json(VIEWPORT).await;
        assert_eq!(
            seen,
            json!([width, height]),
            "{name}: the page's viewport after resize({width}, {height}): {reply}"
        );
        assert_eq!(
            reply,
            json!({"width": width, "height": height}),
            "{name}: the reply is the viewport reached, and nothing else"
        );
        eprintln!("{name}: resize({width}, {height}) in the user's browser took {took:?}");
    }
    // Sizes a window may not give: narrower than the browser's smallest window (Firefox's is
    // 500 pixels wide), larger than the screen (Chromium refuses a window mostly off screen).
    // The reply is what the page sees, with a hint when it is not the size asked.
    for (width, height) in [(420, 360), (1600, 1000)] {
        let reply = session
            .ok("resize", json!({"width": width, "height": height}))
            .await;
        let seen = session.evaluate_json(VIEWPORT).await;
        assert_eq!(
            json!([reply["width"], reply["height"]]),
            seen,
            "{name}: {reply}"
        );
        if seen != json!([width, height]) {
            assert!(reply["hint"].is_string(), "{name}: a hint: {reply}");
        }
        eprintln!("{name}: resize({width}, {height}) in the user's browser: {reply}");
    }
    // Give the window its size back for the checks that follow.
    if let (Some(width), Some(height)) = (before[0].as_i64(), before[1].as_i64()) {
        if (200..=7_680).contains(&width) && (200..=4_320).contains(&height) {
            session
                .ok("resize", json!({"width": width, "height": height}))
                .await;
        }
    }
}

/// A value the launched browser's page computes (execute_js, Dev mode).
async fn in_page(session: &LaunchedMcp, code: &str) -> Value {
    session.ok("execute_js", json!({ "code": code })).await["value"].clone()
}

/// In a launched browser, resize gives the tab's viewport the size asked over BiDi, whatever
/// the window, and the size lasts across navigations.
pub async fn resize_sets_the_tabs_viewport(session: &LaunchedMcp) {
    let name = session.browser.name();
    let tools = session.tool_names().await;
    for tool in ["resize", "emulate"] {
        assert!(
            tools.iter().any(|listed| listed == tool),
            "{name}: {tool} in {tools:?}"
        );
    }
    let first = fixtures().url("/pages/emulation/index.html");
    session.ok("navigate", json!({ "url": first })).await;
    let before = in_page(session, VIEWPORT).await;
    let reply = session
        .ok("resize", json!({"width": 390, "height": 844}))
        .await;
    assert_eq!(reply, json!({"width": 390, "height": 844}), "{name}");
    assert_eq!(
        in_page(session, VIEWPORT).await,
        json!([390, 844]),
        "{name}"
    );
    // The layout follows: the navigation is hidden below 480 pixels.
    let tree = session.tree_text().await;
    assert!(
        !tree.contains("Second page"),
        "{name}: the narrow layout hides the navigation:\n{tree}"
    );
    session
        .ok(
            "navigate",
            json!({ "url": fixtures().url("/pages/emulation/second.html") }),
        )
        .await;
    assert_eq!(
        in_page(session, VIEWPORT).await,
        json!([390, 844]),
        "{name}: the viewport lasts across a navigation"
    );
    // Larger than the launched window: the tab's viewport alone, so any size is given.
    let wide = session
        .ok("resize", json!({"width": 1920, "height": 1080}))
        .await;
    assert_eq!(wide, json!({"width": 1920, "height": 1080}), "{name}");
    assert_eq!(
        in_page(session, VIEWPORT).await,
        json!([1920, 1080]),
        "{name}"
    );
    if let (Some(width), Some(height)) = (before[0].as_i64(), before[1].as_i64()) {
        session
            .ok("resize", json!({"width": width, "height": height}))
            .await;
    }
    let refused = session
        .refused(
            "resize",
            json!({"width": 100, "height": 600}),
            "invalid_arguments",
            std::time::Duration::from_secs(5),
        )
        .await;
    assert!(
        refused["message"]
            .as_str()
            .is_some_and(|message| message.contains("width")),
        "{name}: {refused}"
    );
}

/// emulate in a launched browser: what each browser can set is set in the page, lasts across a
/// navigation and stays in its tab; "default", 0, "" and false give the browser's own back; what a
/// browser cannot set is named (Firefox has no way to the two media features).
pub async fn emulate_sets_what_the_browser_can_and_names_the_rest(session: &LaunchedMcp) {
    let name = session.browser.name();
    let chromium = name == "chromium";
    let page = fixtures().url("/pages/emulation/index.html");
    session.ok("navigate", json!({ "url": page })).await;
    let dark = "matchMedia('(prefers-color-scheme: dark)').matches";
    let reduced = "matchMedia('(prefers-reduced-motion: reduce)').matches";
    let own_user_agent = in_page(session, "navigator.userAgent").await;
    let own_ratio = in_page(session, "window.devicePixelRatio").await;

    // The device pixel ratio and the user agent: both browsers, over BiDi.
    let reply = session
        .ok(
            "emulate",
            json!({"deviceScaleFactor": 2, "userAgent": "allwright-test/1.0 (Phone)"}),
        )
        .await;
    assert_eq!(
        reply,
        json!({"applied": ["deviceScaleFactor", "userAgent"]}),
        "{name}"
    );
    assert_eq!(
        in_page(session, "window.devicePixelRatio").await,
        json!(2),
        "{name}"
    );
    assert_eq!(
        in_page(session, "navigator.userAgent").await,
        json!("allwright-test/1.0 (Phone)"),
        "{name}: navigator.userAgent at once"
    );
    // The requests carry it too: the fixture server answers the User-Agent it received.
    let sent = in_page(
        session,
        "fetch('/user-agent', { cache: 'no-store' }).then((response) => response.text())",
    )
    .await;
    assert_eq!(
        sent,
        json!("allwright-test/1.0 (Phone)"),
        "{name}: the request's User-Agent"
    );

    // Offline: the tab's requests fail; back online, they work again.
    let fetch_outcome =
        "fetch(location.href, { cache: 'no-store' }).then(() => 'loaded', () => 'failed')";
    assert_eq!(
        in_page(session, fetch_outcome).await,
        json!("loaded"),
        "{name}"
    );
    let reply = session.ok("emulate", json!({"offline": true})).await;
    assert_eq!(reply, json!({"applied": ["offline"]}), "{name}");
    assert_eq!(
        in_page(session, fetch_outcome).await,
        json!("failed"),
        "{name}: offline"
    );
    eprintln!(
        "{name}: navigator.onLine while emulated offline: {}",
        in_page(session, "navigator.onLine").await
    );
    session.ok("emulate", json!({"offline": false})).await;
    assert_eq!(
        in_page(session, fetch_outcome).await,
        json!("loaded"),
        "{name}: online again"
    );

    // The media features: Chromium over its CDP pipe; Firefox names them not supported.
    if chromium {
        let reply = session
            .ok(
                "emulate",
                json!({"colorScheme": "dark", "reducedMotion": "reduce"}),
            )
            .await;
        assert_eq!(
            reply,
            json!({"applied": ["colorScheme", "reducedMotion"]}),
            "{name}"
        );
        assert_eq!(in_page(session, dark).await, json!(true), "{name}");
        assert_eq!(in_page(session, reduced).await, json!(true), "{name}");
        // One feature given back, the other kept.
        session
            .ok("emulate", json!({"reducedMotion": "default"}))
            .await;
        assert_eq!(in_page(session, reduced).await, json!(false), "{name}");
        assert_eq!(in_page(session, dark).await, json!(true), "{name}");
    } else {
        let refused = session
            .refused(
                "emulate",
                json!({"colorScheme": "dark", "reducedMotion": "reduce"}),
                "not_supported_here",
                std::time::Duration::from_secs(10),
            )
            .await;
        let message = refused["message"].as_str().unwrap_or_default();
        assert!(
            message.contains("colorScheme") && message.contains("reducedMotion"),
            "{name}: the settings are named: {refused}"
        );
        let partly = session
            .ok("emulate", json!({"colorScheme": "dark", "offline": false}))
            .await;
        assert_eq!(partly["applied"], json!(["offline"]), "{name}: {partly}");
        assert_eq!(partly["notSupportedHere"], json!(["colorScheme"]), "{name}");
        assert!(partly["hint"].is_string(), "{name}: {partly}");
        assert_eq!(in_page(session, dark).await, json!(false), "{name}");
    }

    // Everything lasts across a navigation to another site (Chromium moves the tab to another
    // renderer process).
    let other_site = format!("{}/pages/emulation/second.html", fixtures().other_origin);
    session.ok("navigate", json!({ "url": other_site })).await;
    assert_eq!(
        in_page(session, "window.devicePixelRatio").await,
        json!(2),
        "{name}: after a navigation"
    );
    assert_eq!(
        in_page(session, "navigator.userAgent").await,
        json!("allwright-test/1.0 (Phone)"),
        "{name}: after a navigation"
    );
    if chromium {
        assert_eq!(
            in_page(session, dark).await,
            json!(true),
            "{name}: after a navigation"
        );
    }

    // Only this tab: a new tab has the browser's own settings.
    let opened = session.ok("new_tab", json!({ "url": page })).await;
    let new_tab = opened["tabId"].clone();
    assert_eq!(
        in_page(session, "window.devicePixelRatio").await,
        own_ratio,
        "{name}: a new tab"
    );
    assert_eq!(
        in_page(session, "navigator.userAgent").await,
        own_user_agent,
        "{name}: a new tab"
    );
    assert_eq!(
        in_page(session, dark).await,
        json!(false),
        "{name}: a new tab"
    );
    session.ok("close_tab", json!({ "tabId": new_tab })).await;

    // The browser's own, back.
    let mut reset = json!({"deviceScaleFactor": 0, "userAgent": "", "offline": false});
    if chromium {
        reset["colorScheme"] = json!("default");
    }
    let reply = session.ok("emulate", reset).await;
    assert!(
        reply["applied"]
            .as_array()
            .is_some_and(|applied| !applied.is_empty()),
        "{name}: {reply}"
    );
    assert_eq!(
        in_page(session, "window.devicePixelRatio").await,
        own_ratio,
        "{name}: reset"
    );
    assert_eq!(
        in_page(session, "navigator.userAgent").await,
        own_user_agent,
        "{name}: reset"
    );
    assert_eq!(in_page(session, dark).await, json!(false), "{name}: reset");

    let refused = session
        .refused(
            "emulate",
            json!({"colorScheme": null}),
            "invalid_arguments",
            std::time::Duration::from_secs(5),
        )
        .await;
    assert!(refused["hint"].is_string(), "{name}: {refused}");
}

/// emulate in a Chromium from a WebDriver remote end (`--webdriver`, chromedriver): BiDi's
/// settings apply, and the two media features, which only the pipe of a Chromium allwright
/// launched itself can set, are named as not supported here.
pub async fn emulate_over_webdriver_names_what_needs_the_launch(session: &LaunchedMcp) {
    let name = session.browser.name();
    session
        .ok(
            "navigate",
            json!({ "url": fixtures().url("/pages/emulation/index.html") }),
        )
        .await;
    let refused = session
        .refused(
            "emulate",
            json!({"colorScheme": "dark"}),
            "not_supported_here",
            std::time::Duration::from_secs(10),
        )
        .await;
    let message = refused["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("Chromium") && message.contains("colorScheme"),
        "{name}: {refused}"
    );
    let partly = session
        .ok(
            "emulate",
            json!({"reducedMotion": "reduce", "deviceScaleFactor": 2}),
        )
        .await;
    assert_eq!(
        partly,
        json!({
            "applied": ["deviceScaleFactor"],
            "notSupportedHere": ["reducedMotion"],
            "hint": partly["hint"],
        }),
        "{name}"
    );
    assert!(
        partly["hint"]
            .as_str()
            .is_some_and(|hint| hint.contains("--launch chromium")),
        "{name}: {partly}"
    );
    session.ok("emulate", json!({"deviceScaleFactor": 0})).await;
}
