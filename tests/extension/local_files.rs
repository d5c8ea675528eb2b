//! Local files (docs/agent-tools.md, "Local files"): navigate, new_tab and promote_iframe refuse
//! every spelling of a URL that reaches a local file with `file_url_refused` unless the session
//! was started with `allwright mcp --allow-file-urls`; the extension refuses on its own too (a
//! raw socket client skips the MCP server's check), and a web page that redirects to a file
//! reaches nothing. Real files under a temporary folder.

use serde_json::{json, Value};

use crate::support::{fixtures, Session};
use crate::tiers::RawClient;

/// What the notes file says: a read of the page must never show it without the flag.
const SECRET: &str = "allwright local secret 7c1d";

fn every_spelling_of(path: &str, folder: &str) -> Vec<String> {
    vec![
        format!("file://{path}"),
        format!("FILE://{path}"),
        format!("File://{path}"),
        format!("file:{path}"),
        format!("file://localhost{path}"),
        format!("  file://{path}\n"),
        format!("view-source:file://{path}"),
        format!("jar:file://{path}!/"),
        // A folder: Chromium lists it, as it listed /etc/.
        format!("file://{folder}/"),
        "file:///etc/".to_string(),
    ]
}

fn assert_refused(browser: &str, tool: &str, url: &str, error: &Value, folder: &str) {
    assert_eq!(
        error["code"], "file_url_refused",
        "{browser}: {tool}({url:?}): {error}"
    );
    let message = error["message"].as_str().unwrap_or_default();
    assert!(message.contains(tool), "{browser}: {error}");
    assert!(
        !message.contains(folder),
        "{browser}: the message names the scheme, not the path: {error}"
    );
    assert!(
        error["hint"]
            .as_str()
            .unwrap_or_default()
            .contains("allwright mcp --allow-file-urls"),
        "{browser}: {error}"
    );
}

async fn tab_count(session: &Session) -> usize {
    session.ok("list_tabs", json!({})).await["tabs"]
        .as_array()
        .map_or(0, Vec::len)
}

pub async fn local_files_are_refused_unless_the_session_allows_them(session: &mut Session) {
    let browser = session.browser.name();
    let temporary = tempfile::tempdir().expect("temp dir");
    let root = temporary.path().canonicalize().expect("canonical");
    let folder = root.display().to_string();
    std::fs::write(root.join("notes.txt"), SECRET).expect("notes");
    std::fs::write(
        root.join("outer.html"),
        "<title>Outer local page</title><h1>Outer</h1><iframe src=\"inner.html\"></iframe>",
    )
    .expect("outer");
    std::fs::write(
        root.join("inner.html"),
        format!("<title>Inner local page</title><p>{SECRET}</p>"),
    )
    .expect("inner");
    let notes = format!("{folder}/notes.txt");
    let spellings = every_spelling_of(&notes, &folder);

    // Without the flag, through the MCP server: each tool, each spelling.
    session.restart_mcp(&[]).await;
    session.ok("navigate", json!({"url": "about:blank"})).await;
    let tabs_before = tab_count(session).await;
    for tool in ["navigate", "new_tab"] {
        for url in &spellings {
            let error = session
                .call(tool, json!({ "url": url }))
                .await
                .expect_err("refused");
            assert_refused(browser, tool, url, &error.0, &folder);
        }
    }
    assert_eq!(
        tab_count(session).await,
        tabs_before,
        "{browser}: a refused new_tab leaves no tab behind"
    );

    // The extension refuses on its own: a client of the socket skips the MCP server's check.
    session.stop_mcp().await;
    let mut raw = RawClient::connect(session).await;
    for (index, tool) in ["navigate", "new_tab"].into_iter().enumerate() {
        for (number, url) in spellings.iter().enumerate() {
            let answer = raw
                .call(
                    &format!("f{index}-{number}"),
                    tool,
                    json!({ "url": url }),
                    &Value::Null,
                )
                .await;
            assert_eq!(answer["ok"], json!(false), "{browser}: {answer}");
            assert_refused(browser, tool, url, &answer["error"], &folder);
        }
    }
    drop(raw);

    // A web page that redirects to the file: the browser itself refuses to follow it.
    session.restart_mcp(&[]).await;
    let redirect = fixtures().url(&format!("/redirect?to=file://{notes}"));
    let outcome = session.call("navigate", json!({ "url": redirect })).await;
    eprintln!("{browser}: a redirect from http to file: answers {outcome:?}");
    // Chromium fails the load (net::ERR_UNSAFE_REDIRECT); whatever a browser shows instead, it is
    // not the file.
    if outcome.is_ok() {
        let tree = session.call("get_accessibility_tree", json!({})).await;
        assert!(
            !format!("{tree:?}").contains(SECRET),
            "{browser}: the redirect reached the file: {tree:?}"
        );
    }
    let tabs = session.ok("list_tabs", json!({})).await;
    assert!(
        tabs["tabs"]
            .as_array()
            .into_iter()
            .flatten()
            .all(|tab| !tab["url"].as_str().unwrap_or_default().starts_with("file:")),
        "{browser}: a tab shows a file: {tabs}"
    );

    // With the flag, local files open (Chromium); Firefox opens no file: URL for an extension,
    // and says so as a failed navigation, never as file_url_refused.
    session.restart_mcp(&["--allow-file-urls"]).await;
    let opened = session
        .call("navigate", json!({ "url": format!("file://{notes}") }))
        .await;
    match session.browser {
        crate::support::Browser::Chromium => {
            let opened = opened.unwrap_or_else(|error| panic!("{browser}: {error:?}"));
            assert!(
                opened["url"]
                    .as_str()
                    .unwrap_or_default()
                    .starts_with("file://"),
                "{browser}: {opened}"
            );
            let tree = session.ok("get_accessibility_tree", json!({})).await;
            assert!(tree.to_string().contains(SECRET), "{browser}: {tree}");
        }
        crate::support::Browser::Firefox => {
            eprintln!("{browser}: navigate to a file with --allow-file-urls answers {opened:?}");
            if let Err(error) = &opened {
                assert_ne!(error.code(), "file_url_refused", "{browser}: {error:?}");
            }
        }
    }

    // promote_iframe: the frame's URL comes from the browser's frame inventory. A tab already on
    // a local page (opened from outside: a session's start navigates to about:blank) has a file:
    // frame, which is refused when the session does not allow local files.
    session.restart_mcp(&[]).await;
    let outer = format!("file://{folder}/outer.html");
    session.navigate_from_outside(&outer).await;
    let error = session
        .call("promote_iframe", json!({"urlFilter": "inner.html"}))
        .await
        .expect_err("refused");
    eprintln!("{browser}: promote_iframe of a file: frame without the flag: {error:?}");
    assert_refused(browser, "promote_iframe", "inner.html", &error.0, &folder);
    let tabs = session.ok("list_tabs", json!({})).await;
    assert!(
        tabs.to_string().contains("outer.html"),
        "{browser}: nothing was navigated: {tabs}"
    );
    session.restart_mcp(&["--allow-file-urls"]).await;
    session.navigate_from_outside(&outer).await;
    let promoted = session
        .call("promote_iframe", json!({"urlFilter": "inner.html"}))
        .await;
    eprintln!("{browser}: promote_iframe of a file: frame with the flag: {promoted:?}");
    match session.browser {
        crate::support::Browser::Chromium => {
            let promoted = promoted.unwrap_or_else(|error| panic!("{browser}: {error:?}"));
            assert!(
                promoted["url"]
                    .as_str()
                    .unwrap_or_default()
                    .ends_with("inner.html"),
                "{browser}: {promoted}"
            );
        }
        crate::support::Browser::Firefox => {
            if let Err(error) = &promoted {
                assert_ne!(error.code(), "file_url_refused", "{browser}: {error:?}");
            }
        }
    }
    session.navigate_from_outside("about:blank").await;
    session.restart_mcp(&[]).await;
}
