//! `allwright mcp` through the official rmcp client, with this test playing the native host on
//! the socket that `ALLWRIGHT_SOCKET` names.

use std::path::Path;
use std::process::Stdio;

use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::service::RunningService;
use rmcp::transport::TokioChildProcess;
use rmcp::{RoleClient, ServiceExt};
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::UnixListener;
use tokio::sync::mpsc;

use crate::support::PATIENCE;

pub async fn start_mcp(
    socket_path: &Path,
    extra_arguments: &[&str],
) -> RunningService<RoleClient, ()> {
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_allwright"));
    command
        .arg("mcp")
        .args(extra_arguments)
        .env("ALLWRIGHT_SOCKET", socket_path);
    let (transport, _stderr) = TokioChildProcess::builder(command)
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn allwright mcp");
    tokio::time::timeout(PATIENCE, ().serve(transport))
        .await
        .expect("initialize in time")
        .expect("MCP initialize")
}

/// A stand-in host: says ready, records each call, answers with a canned result per tool.
async fn start_fake_host(socket_path: &Path) -> mpsc::UnboundedReceiver<Value> {
    std::fs::create_dir_all(socket_path.parent().expect("folder")).expect("folder");
    let listener = UnixListener::bind(socket_path).expect("bind the fake host");
    let (calls_sender, calls) = mpsc::unbounded_channel();
    tokio::spawn(async move {
        let Ok((stream, _)) = listener.accept().await else {
            return;
        };
        let (read_half, mut write_half) = stream.into_split();
        let ready = json!({"type": "ready", "browser": "chrome", "extensionVersion": "0.1.0"});
        let _ = write_half.write_all(format!("{ready}\n").as_bytes()).await;
        let mut lines = BufReader::new(read_half).lines();
        while let Ok(Some(line)) = lines.next_line().await {
            let Ok(call) = serde_json::from_str::<Value>(&line) else {
                continue;
            };
            // The session announcement (docs/protocol/access.md, "Tool access") is no call.
            if call["type"] == "session" {
                continue;
            }
            let result = match call["tool"].as_str() {
                Some("get_accessibility_tree") => json!({
                    "tree": "button \"Send\" [ref_1]", "truncated": false, "hasMore": false, "autoDegraded": false,
                    "page": 1, "pageCount": 1, "url": "https://example.com/", "title": "Example"
                }),
                Some("screenshot") => json!({
                    "data": "iVBORw0KGgo=", "mimeType": "image/png",
                    "width": 2, "height": 1, "format": "png", "scope": "viewport", "method": "captureVisibleTab"
                }),
                _ => json!({"url": "about:blank", "title": ""}),
            };
            let answer = json!({"type": "result", "id": call["id"], "ok": true, "result": result});
            let _ = calls_sender.send(call);
            let _ = write_half.write_all(format!("{answer}\n").as_bytes()).await;
        }
    });
    calls
}

/// The tools of the full tier, the default, in the order the server lists them.
const FULL_TIER: [&str; 36] = [
    "get_accessibility_tree",
    "get_frames",
    "iframe_read",
    "find",
    "accessibility_snapshot",
    "get_shadow_dom",
    "shadow_dom_query",
    "screenshot",
    "save_pdf",
    "navigate",
    "promote_iframe",
    "click_ax",
    "iframe_click",
    "type_ax",
    "iframe_type",
    "set_field",
    "select_option",
    "fill_form",
    "hover",
    "drag",
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
    "console_messages",
    "network_requests",
    "list_downloads",
    "get_download",
];

/// A temporary folder only this user can enter: the client refuses a socket in any other
/// (docs/protocol/host-safety.md, "Local socket safety").
pub fn private_folder() -> tempfile::TempDir {
    use std::os::unix::fs::PermissionsExt;
    let folder = tempfile::tempdir().expect("temp dir");
    std::fs::set_permissions(folder.path(), std::fs::Permissions::from_mode(0o700))
        .expect("make the folder private");
    folder
}

pub fn call(tool: &str, arguments: Value) -> CallToolRequestParams {
    CallToolRequestParams::new(tool.to_owned())
        .with_arguments(arguments.as_object().cloned().expect("object arguments"))
}

/// The error object of an isError result: its one text block, and no structuredContent
/// (src/mcp_reply.rs).
pub fn error_object(result: &CallToolResult) -> Value {
    assert_eq!(
        result.is_error,
        Some(true),
        "expected an isError result: {result:?}"
    );
    assert_eq!(
        result.structured_content, None,
        "the error once: {result:?}"
    );
    assert_eq!(result.content.len(), 1, "one block: {result:?}");
    crate::reply_text::reply_value(result)
}

#[tokio::test]
async fn tools_are_listed_with_schemas_and_calls_return_one_text_block() {
    let folder = private_folder();
    let socket_path = folder.path().join("host.sock");
    let mut calls = start_fake_host(&socket_path).await;
    let client = start_mcp(&socket_path, &[]).await;

    let tools = client.list_all_tools().await.expect("tools/list");
    let names: Vec<&str> = tools.iter().map(|tool| tool.name.as_ref()).collect();
    assert_eq!(names, FULL_TIER, "the default tier is full");
    for tool in &tools {
        assert_eq!(
            tool.input_schema.get("type"),
            Some(&json!("object")),
            "{}",
            tool.name
        );
        assert!(
            tool.input_schema
                .get("properties")
                .is_some_and(Value::is_object),
            "{}",
            tool.name
        );
        assert!(
            tool.description
                .as_ref()
                .is_some_and(|text| text.len() > 200),
            "{} explains itself to the model",
            tool.name
        );
    }
    let tree_tool = &tools[0];
    assert_eq!(
        tree_tool.input_schema["properties"]["filter"]["enum"],
        json!(["all", "visible", "interactive"])
    );
    let navigate = tools
        .iter()
        .find(|tool| tool.name == "navigate")
        .expect("navigate");
    assert_eq!(navigate.input_schema["required"], json!(["url"]));

    let result = client
        .call_tool(
            CallToolRequestParams::new("get_accessibility_tree").with_arguments(
                json!({"filter": "interactive"})
                    .as_object()
                    .cloned()
                    .expect("object"),
            ),
        )
        .await
        .expect("tools/call");
    assert_ne!(result.is_error, Some(true));
    // One text block and no structuredContent (src/mcp_reply.rs): a read is its header line,
    // then the tree as printed.
    assert_eq!(result.structured_content, None);
    assert_eq!(result.content.len(), 1);
    let text = result
        .content
        .first()
        .and_then(|content| content.as_text())
        .map(|text| text.text.clone())
        .expect("a text block");
    let (header, tree) = text.split_once('\n').expect("a header line");
    assert!(
        serde_json::from_str::<Value>(header).is_ok_and(|header| header.is_object()),
        "{header}"
    );
    assert_eq!(tree, "button \"Send\" [ref_1]");

    let forwarded = tokio::time::timeout(PATIENCE, calls.recv())
        .await
        .expect("in time")
        .expect("the host got the call");
    assert_eq!(forwarded["type"], "call");
    assert_eq!(forwarded["tool"], "get_accessibility_tree");
    assert_eq!(forwarded["arguments"], json!({"filter": "interactive"}));

    // verbose: the whole result object as one line of JSON; the argument shapes the reply and
    // never reaches the browser.
    let result = client
        .call_tool(call(
            "get_accessibility_tree",
            json!({"filter": "interactive", "verbose": true}),
        ))
        .await
        .expect("tools/call");
    assert_eq!(result.structured_content, None);
    let text = result.content[0].as_text().expect("a text block");
    let whole: Value = serde_json::from_str(&text.text).expect("one JSON object");
    assert_eq!(whole["tree"], "button \"Send\" [ref_1]");
    let forwarded = tokio::time::timeout(PATIENCE, calls.recv())
        .await
        .expect("in time")
        .expect("the host got the call");
    assert_eq!(forwarded["arguments"], json!({"filter": "interactive"}));
    client.cancel().await.expect("close the session");
}

#[tokio::test]
async fn bad_arguments_come_back_as_invalid_arguments_without_reaching_the_host() {
    let folder = private_folder();
    let socket_path = folder.path().join("host.sock");
    let mut calls = start_fake_host(&socket_path).await;
    let client = start_mcp(&socket_path, &["--tier", "compact"]).await;

    let cases = [
        ("navigate", json!({"url": "example.com"})),
        ("navigate", json!({})),
        ("get_accessibility_tree", json!({"maxDepth": 0})),
        ("get_accessibility_tree", json!({"depth": 3})),
        ("accessibility_snapshot", json!({"format": "xml"})),
        ("no_such_tool", json!({})),
    ];
    for (tool, arguments) in cases {
        let result = client
            .call_tool(
                CallToolRequestParams::new(tool)
                    .with_arguments(arguments.as_object().cloned().expect("object")),
            )
            .await
            .expect("an isError result, not a protocol error");
        let error = error_object(&result);
        assert_eq!(error["code"], "invalid_arguments", "{tool} {arguments}");
        assert!(error["message"]
            .as_str()
            .is_some_and(|message| !message.is_empty()));
        let text = result
            .content
            .first()
            .and_then(|content| content.as_text())
            .map(|text| text.text.clone())
            .expect("text");
        assert_eq!(
            serde_json::from_str::<Value>(&text).expect("JSON text"),
            error
        );
    }
    let schemeless = client
        .call_tool(
            CallToolRequestParams::new("navigate").with_arguments(
                json!({"url": "example.com"})
                    .as_object()
                    .cloned()
                    .expect("object"),
            ),
        )
        .await
        .expect("result");
    assert!(error_object(&schemeless)["hint"]
        .as_str()
        .is_some_and(|hint| hint.contains("https://example.com")));
    assert!(
        calls.try_recv().is_err(),
        "no invalid call reached the host"
    );
    client.cancel().await.expect("close the session");
}

#[tokio::test]
async fn without_a_host_calls_fail_with_not_connected_and_a_hint() {
    let folder = private_folder();
    let socket_path = folder.path().join("nobody-listens.sock");
    let client = start_mcp(&socket_path, &[]).await;
    let result = client
        .call_tool(
            CallToolRequestParams::new("navigate").with_arguments(
                json!({"url": "https://example.com"})
                    .as_object()
                    .cloned()
                    .expect("object"),
            ),
        )
        .await
        .expect("result");
    let error = error_object(&result);
    assert_eq!(error["code"], "not_connected");
    assert!(
        error["hint"]
            .as_str()
            .is_some_and(|hint| hint.contains("allwright install")),
        "{error}"
    );
    client.cancel().await.expect("close the session");
}

/// The host exits whenever the extension goes (a browser restart, an extension reload) and the
/// browser starts a new one: a call in flight fails with outcome_unknown (extension_disconnected
/// for a read-only tool), the next call reaches the new host.
#[tokio::test]
async fn a_call_lost_with_the_host_fails_clearly_and_the_next_call_reaches_the_new_host() {
    let folder = private_folder();
    let socket_path = folder.path().join("host.sock");
    let listener = UnixListener::bind(&socket_path).expect("bind");
    tokio::spawn(async move {
        for generation in 0..2 {
            let Ok((stream, _)) = listener.accept().await else {
                return;
            };
            let (read_half, mut write_half) = stream.into_split();
            let ready = json!({"type": "ready", "browser": "firefox", "extensionVersion": "0.1.0"});
            let _ = write_half.write_all(format!("{ready}\n").as_bytes()).await;
            let mut lines = BufReader::new(read_half).lines();
            // The first host dies with the call unanswered; the second one answers. Each
            // connection starts with the session announcement, which is no call.
            let mut line = String::new();
            while let Ok(Some(next)) = lines.next_line().await {
                if !next.contains("\"type\":\"session\"") {
                    line = next;
                    break;
                }
            }
            if line.is_empty() {
                return;
            }
            if generation == 1 {
                let call: Value = serde_json::from_str(&line).expect("call");
                let answer = json!({"type": "result", "id": call["id"], "ok": true, "result": {"url": "about:blank", "title": ""}});
                let _ = write_half.write_all(format!("{answer}\n").as_bytes()).await;
                let _ = lines.next_line().await;
            }
        }
    });
    let client = start_mcp(&socket_path, &[]).await;
    let navigate = || {
        CallToolRequestParams::new("navigate").with_arguments(
            json!({"url": "about:blank"})
                .as_object()
                .cloned()
                .expect("object"),
        )
    };
    let lost = client.call_tool(navigate()).await.expect("result");
    // navigate changes the page: the lost answer is outcome_unknown, not a retry.
    assert_eq!(error_object(&lost)["code"], "outcome_unknown");
    let next = client.call_tool(navigate()).await.expect("result");
    assert_ne!(next.is_error, Some(true), "{next:?}");
    // The new host answered the page load: its URL, the one asked for, is not said back.
    let reply = crate::reply_text::reply_value(&next);
    assert!(reply.is_object() && reply.get("url").is_none(), "{next:?}");
    client.cancel().await.expect("close the session");
}

/// The action tools are listed with their exact schemas, and their arguments are checked by
/// `allwright mcp` itself: with no host and no browser at all, a bad call is an `isError` result
/// carrying invalid_arguments (a call that got through would fail with not_connected instead).
#[tokio::test]
async fn action_tools_are_listed_and_their_bad_calls_are_refused_without_a_browser() {
    let folder = private_folder();
    let socket_path = folder.path().join("nobody-listens.sock");
    let client = start_mcp(&socket_path, &[]).await;

    let tools = client.list_all_tools().await.expect("tools/list");
    let tool = |name: &str| {
        tools
            .iter()
            .find(|tool| tool.name == name)
            .unwrap_or_else(|| panic!("{name} is listed"))
    };
    assert_eq!(tool("click_ax").input_schema["required"], json!(["ref_id"]));
    assert_eq!(
        tool("type_ax").input_schema["properties"]["text"]["maxLength"],
        50_000
    );
    assert_eq!(
        tool("type_ax").input_schema["properties"]["clear"]["type"],
        "boolean"
    );
    assert_eq!(
        tool("press_key").input_schema["properties"]["modifiers"]["items"]["enum"],
        json!(["Alt", "Control", "Meta", "Shift"])
    );
    assert_eq!(
        tool("press_key").input_schema["properties"]["modifiers"]["uniqueItems"],
        true
    );
    assert_eq!(
        tool("select_tab").input_schema["required"],
        json!(["tabId"])
    );
    // The acting tools (and list_tabs, wait_for_stable): every tool but the reading ones.
    let reading = [
        "get_accessibility_tree",
        "get_frames",
        "iframe_read",
        "accessibility_snapshot",
        "get_shadow_dom",
        "shadow_dom_query",
        "screenshot",
    ];
    for name in FULL_TIER.iter().filter(|name| !reading.contains(name)) {
        let listed = tool(name);
        assert!(listed.title.is_some(), "{name} has a title");
        assert!(
            listed
                .description
                .as_ref()
                .is_some_and(|text| text.contains("Returns ")),
            "{name} says what it returns"
        );
        let read_only = listed
            .annotations
            .as_ref()
            .and_then(|annotations| annotations.read_only_hint);
        let expected = matches!(
            *name,
            "get_accessibility_tree"
                | "accessibility_snapshot"
                | "screenshot"
                | "list_tabs"
                | "wait_for_stable"
                | "wait_for"
                | "find"
                | "console_messages"
                | "network_requests"
                | "list_downloads"
                | "get_download"
                | "save_pdf"
                | "get_frames"
                | "iframe_read"
                | "get_shadow_dom"
                | "shadow_dom_query"
        );
        assert_eq!(read_only, Some(expected), "{name} read-only hint");
    }

    let too_long = "é".repeat(60_000);
    let cases = [
        (
            "type_ax",
            json!({"ref_id": "ref_1", "text": too_long}),
            "text",
        ),
        ("click_ax", json!({}), "ref_id"),
        ("click_ax", json!({"ref_id": "12"}), "ref_id"),
        (
            "type_ax",
            json!({"ref_id": "ref_1", "text": "a", "clear": "yes"}),
            "clear",
        ),
        (
            "select_option",
            json!({"ref_id": "ref_1", "label": "a", "value": "a"}),
            "value",
        ),
        (
            "press_key",
            json!({"key": "Enter", "modifiers": ["Shift", "Shift"]}),
            "modifiers",
        ),
        ("scroll", json!({"direction": "sideways"}), "direction"),
        ("select_tab", json!({}), "tabId"),
        ("resize", json!({"width": 390}), "height"),
        ("resize", json!({"width": 100, "height": 600}), "width"),
        ("resize", json!({"width": 800, "height": 5_000}), "height"),
        (
            "fill_form",
            json!({"fields": [{"ref_id": "ref_1", "value": true}]}),
            "fields[0].value",
        ),
        (
            "fill_form",
            json!({"fields": [{"ref_id": "ref_1", "value": "a"}, {"ref_id": "ref_1", "value": "b"}]}),
            "fields[1].ref_id",
        ),
    ];
    for (tool, arguments, argument) in cases {
        let result = client
            .call_tool(call(tool, arguments.clone()))
            .await
            .expect("an isError result, not a protocol error");
        let error = error_object(&result);
        assert_eq!(error["code"], "invalid_arguments", "{tool}: {error}");
        assert!(
            error["message"]
                .as_str()
                .is_some_and(|message| message.contains(argument) && message.len() < 200),
            "{tool}: the message names {argument} and does not echo the arguments: {error}"
        );
        assert!(error["hint"].is_string(), "{tool}: a hint: {error}");
    }
    let long_text = client
        .call_tool(call(
            "type_ax",
            json!({"ref_id": "ref_1", "text": "x".repeat(60_000)}),
        ))
        .await
        .expect("result");
    let message = error_object(&long_text)["message"]
        .as_str()
        .expect("message")
        .to_owned();
    assert!(
        message.contains("60000") && message.contains("50000"),
        "the length and the limit: {message}"
    );
    let stray_ref = client
        .call_tool(call("click_ax", json!({"ref_id": "12"})))
        .await
        .expect("result");
    assert_eq!(error_object(&stray_ref)["suggestions"], json!(["ref_12"]));
    // The tools of the browser bridge are not listed without one; a call of them says what
    // they need rather than naming a tier (the tier lists them).
    for (tool, arguments) in [
        ("emulate", json!({"colorScheme": "dark"})),
        ("handle_dialog", json!({"accept": true})),
    ] {
        let result = client
            .call_tool(call(tool, arguments))
            .await
            .expect("an isError result");
        let error = error_object(&result);
        assert_eq!(error["code"], "not_supported_here", "{tool}: {error}");
        assert!(
            error["hint"]
                .as_str()
                .is_some_and(|hint| hint.contains("--launch")),
            "{tool}: {error}"
        );
    }
    client.cancel().await.expect("close the session");
}

/// resize is relayed to the extension as the agent gave it (the user's own browser: the
/// extension resizes the window).
#[tokio::test]
async fn resize_goes_to_the_extension_in_the_users_own_browser() {
    let folder = private_folder();
    let socket_path = folder.path().join("host.sock");
    let mut calls = start_fake_host(&socket_path).await;
    let client = start_mcp(&socket_path, &["--tier", "mid"]).await;
    let result = client
        .call_tool(call("resize", json!({"width": 390, "height": 844})))
        .await
        .expect("tools/call");
    assert_ne!(result.is_error, Some(true), "{result:?}");
    let forwarded = tokio::time::timeout(PATIENCE, calls.recv())
        .await
        .expect("in time")
        .expect("the host got the call");
    assert_eq!(forwarded["tool"], "resize");
    assert_eq!(forwarded["arguments"], json!({"width": 390, "height": 844}));
    client.cancel().await.expect("close the session");
    // Compact leaves resize to Mid: refused before anything reaches a host (none listens here).
    let compact = start_mcp(&folder.path().join("nobody.sock"), &["--tier", "compact"]).await;
    let refused = compact
        .call_tool(call("resize", json!({"width": 390, "height": 844})))
        .await
        .expect("result");
    assert_eq!(error_object(&refused)["code"], "not_in_tier");
    compact.cancel().await.expect("close the session");
}

/// The Ask tier is read-only: it lists the reading and looking-around tools, and a call to a tool
/// that acts on the page is refused as unknown in this session.
#[tokio::test]
async fn a_screenshot_comes_back_as_an_image_block_then_its_facts() {
    let folder = private_folder();
    let socket_path = folder.path().join("host.sock");
    let mut calls = start_fake_host(&socket_path).await;
    let client = start_mcp(&socket_path, &["--tier", "ask"]).await;
    let result = client
        .call_tool(call("screenshot", json!({"format": "png"})))
        .await
        .expect("tools/call");
    assert_eq!(result.is_error, Some(false), "{result:?}");
    let image = result.content[0].as_image().expect("an image block first");
    assert_eq!(
        (image.data.as_str(), image.mime_type.as_str()),
        ("iVBORw0KGgo=", "image/png")
    );
    let facts = json!({"width": 2, "height": 1, "format": "png", "scope": "viewport", "method": "captureVisibleTab"});
    assert_eq!(result.structured_content, None, "the facts once");
    let text = result.content[1].as_text().expect("the facts as text");
    assert_eq!(
        serde_json::from_str::<Value>(&text.text).expect("JSON"),
        facts
    );
    let forwarded = tokio::time::timeout(PATIENCE, calls.recv())
        .await
        .expect("in time")
        .expect("the host got the call");
    assert_eq!(forwarded["tool"], "screenshot");
    assert_eq!(forwarded["arguments"], json!({"format": "png"}));
    let refused = client
        .call_tool(call("screenshot", json!({"format": "gif"})))
        .await
        .expect("result");
    assert_eq!(error_object(&refused)["code"], "invalid_arguments");
    client.cancel().await.expect("close the session");
}

#[tokio::test]
async fn the_ask_tier_lists_no_tool_that_changes_a_page() {
    let folder = private_folder();
    let socket_path = folder.path().join("nobody-listens.sock");
    let client = start_mcp(&socket_path, &["--tier", "ask"]).await;
    let tools = client.list_all_tools().await.expect("tools/list");
    let names: Vec<&str> = tools.iter().map(|tool| tool.name.as_ref()).collect();
    assert_eq!(
        names,
        [
            "get_accessibility_tree",
            "iframe_read",
            "find",
            "accessibility_snapshot",
            "screenshot",
            "scroll",
            "wait_for_stable",
            "wait_for",
            "list_tabs"
        ]
    );
    let result = client
        .call_tool(call("click_ax", json!({"ref_id": "ref_1"})))
        .await
        .expect("result");
    let error = error_object(&result);
    assert_eq!(
        error["code"], "not_in_tier",
        "a tool of another tier is refused as such"
    );
    assert!(
        error["message"]
            .as_str()
            .is_some_and(|message| message.contains("click_ax") && message.contains("ask")),
        "{error}"
    );
    assert!(
        error["suggestions"]
            .as_array()
            .is_some_and(|listed| listed.contains(&json!("get_accessibility_tree"))
                && !listed.contains(&json!("click_ax"))),
        "{error}"
    );
    let unknown = client
        .call_tool(call("teleport", json!({})))
        .await
        .expect("result");
    assert_eq!(
        error_object(&unknown)["code"],
        "invalid_arguments",
        "a name that is no tool is an argument error"
    );
    client.cancel().await.expect("close the session");
}

/// A stand-in host for the tool-access exchange: it records the session announcement and each
/// call's claimed access, and after the first call tells the client that the side panel chose
/// Ask (`{"type": "access"}`).
async fn start_access_host(socket_path: &Path) -> mpsc::UnboundedReceiver<Value> {
    std::fs::create_dir_all(socket_path.parent().expect("folder")).expect("folder");
    let listener = UnixListener::bind(socket_path).expect("bind the fake host");
    let (seen_sender, seen) = mpsc::unbounded_channel();
    tokio::spawn(async move {
        let Ok((stream, _)) = listener.accept().await else {
            return;
        };
        let (read_half, mut write_half) = stream.into_split();
        let ready = json!({"type": "ready", "browser": "firefox", "extensionVersion": "0.1.0"});
        let _ = write_half.write_all(format!("{ready}\n").as_bytes()).await;
        let mut lines = BufReader::new(read_half).lines();
        while let Ok(Some(line)) = lines.next_line().await {
            let Ok(message) = serde_json::from_str::<Value>(&line) else {
                continue;
            };
            let _ = seen_sender.send(message.clone());
            if message["type"] != "call" {
                continue;
            }
            let answer =
                json!({"type": "result", "id": message["id"], "ok": true, "result": {"tabs": []}});
            let _ = write_half.write_all(format!("{answer}\n").as_bytes()).await;
            let access = json!({"type": "access", "access": {"tier": "ask", "dev": false}});
            let _ = write_half.write_all(format!("{access}\n").as_bytes()).await;
        }
    });
    seen
}

/// The test's MCP client: it counts notifications/tools/list_changed.
#[derive(Clone, Default)]
struct ListChangeCounter(std::sync::Arc<tokio::sync::Notify>);

impl rmcp::ClientHandler for ListChangeCounter {
    async fn on_tool_list_changed(&self, _context: rmcp::service::NotificationContext<RoleClient>) {
        self.0.notify_one();
    }
}

#[tokio::test]
async fn the_session_is_announced_and_the_side_panels_tier_changes_the_listed_tools() {
    let folder = private_folder();
    let socket_path = folder.path().join("host.sock");
    let mut seen = start_access_host(&socket_path).await;
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_allwright"));
    command
        .args(["mcp", "--tier", "mid", "--dev"])
        .env("ALLWRIGHT_SOCKET", &socket_path);
    let (transport, _stderr) = TokioChildProcess::builder(command)
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn allwright mcp");
    let counter = ListChangeCounter::default();
    let client = tokio::time::timeout(PATIENCE, counter.clone().serve(transport))
        .await
        .expect("initialize in time")
        .expect("MCP initialize");
    assert_eq!(
        client
            .peer_info()
            .and_then(|info| info.capabilities.tools.clone())
            .and_then(|tools| tools.list_changed),
        Some(true),
        "the server says its tool list can change"
    );
    // Right after initialize, before any call: the session, with the client's name.
    let session = tokio::time::timeout(PATIENCE, seen.recv())
        .await
        .expect("the session in time")
        .expect("a message");
    assert_eq!(session["type"], "session", "{session}");
    assert_eq!(session["access"], json!({"tier": "mid", "dev": true}));
    assert!(
        session["client"]
            .as_str()
            .is_some_and(|name| !name.is_empty()),
        "the MCP client's name: {session}"
    );
    let mid_dev: Vec<String> = client
        .list_all_tools()
        .await
        .expect("tools/list")
        .iter()
        .map(|tool| tool.name.to_string())
        .collect();
    assert!(mid_dev.contains(&"get_frames".to_owned()) && mid_dev.contains(&"hover".to_owned()));

    // A call carries the access the server lists tools for; the host then says the panel chose Ask.
    let result = client
        .call_tool(call("list_tabs", json!({})))
        .await
        .expect("list_tabs");
    assert_ne!(result.is_error, Some(true), "{result:?}");
    let forwarded = tokio::time::timeout(PATIENCE, seen.recv())
        .await
        .expect("the call in time")
        .expect("a message");
    assert_eq!(forwarded["type"], "call");
    assert_eq!(forwarded["access"], json!({"tier": "mid", "dev": true}));
    tokio::time::timeout(PATIENCE, counter.0.notified())
        .await
        .expect("notifications/tools/list_changed after the panel's change");
    let ask: Vec<String> = client
        .list_all_tools()
        .await
        .expect("tools/list")
        .iter()
        .map(|tool| tool.name.to_string())
        .collect();
    assert_eq!(
        ask,
        [
            "get_accessibility_tree",
            "iframe_read",
            "find",
            "accessibility_snapshot",
            "screenshot",
            "scroll",
            "wait_for_stable",
            "wait_for",
            "list_tabs"
        ]
    );
    let refused = client
        .call_tool(call("hover", json!({"ref_id": "ref_1"})))
        .await
        .expect("result");
    assert_eq!(error_object(&refused)["code"], "not_in_tier");
    client.cancel().await.expect("close the session");
}

/// The extension's copy of the tool contract, generated from the binary's table.
const TOOL_CONTRACT_PATH: &str = "extension/shared/tool-contract.json";

/// `extension/shared/tool-contract.json` is what `allwright tool-contract` prints today
/// (rust-analyzer's "sourcegen" style): the extension validates calls against the checked-in file,
/// so a change to the table that is not written there fails here. With `UPDATE_CONTRACT=1` the
/// test rewrites the file instead.
#[test]
fn the_checked_in_tool_contract_is_what_the_table_generates() {
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_allwright"))
        .arg("tool-contract")
        .output()
        .expect("run allwright tool-contract");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let generated = String::from_utf8(output.stdout).expect("UTF-8");
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(TOOL_CONTRACT_PATH);
    if std::env::var_os("UPDATE_CONTRACT").is_some_and(|value| value == "1") {
        std::fs::write(&path, &generated).expect("write the tool contract");
        return;
    }
    let checked_in = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        checked_in == generated,
        "{TOOL_CONTRACT_PATH} is stale: the tool table in src/tools/table.rs changed. Rewrite it with\n\
         \x20   cargo run -- tool-contract > {TOOL_CONTRACT_PATH}\n\
         (or UPDATE_CONTRACT=1 cargo test --test host tool_contract) and commit it."
    );
}

/// The folder of the JS modules the binary writes from its Rust definitions.
const GENERATED_MODULES_FOLDER: &str = "extension/shared/generated";

/// `extension/shared/generated/` holds exactly what `allwright generated-modules` writes today:
/// the fact layout, the line records' layout, the marker attributes and the key-name tables that
/// the extension imports instead of copying them from the Rust side by hand
/// (src/generated_modules.rs). With `UPDATE_GENERATED=1` the test rewrites the folder instead.
#[test]
fn the_checked_in_generated_modules_are_what_the_rust_definitions_generate() {
    let checked_in = Path::new(env!("CARGO_MANIFEST_DIR")).join(GENERATED_MODULES_FOLDER);
    let written = tempfile::tempdir().expect("a temporary folder");
    let target = if std::env::var_os("UPDATE_GENERATED").is_some_and(|value| value == "1") {
        checked_in.clone()
    } else {
        written.path().to_path_buf()
    };
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_allwright"))
        .arg("generated-modules")
        .arg(&target)
        .output()
        .expect("run allwright generated-modules");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let files_of = |folder: &Path| -> Vec<(String, String)> {
        let mut files: Vec<(String, String)> = std::fs::read_dir(folder)
            .map(|entries| {
                entries
                    .map(|entry| entry.expect("a folder entry").path())
                    .map(|path| {
                        let name = path
                            .file_name()
                            .expect("a file name")
                            .to_string_lossy()
                            .into_owned();
                        (name, std::fs::read_to_string(&path).unwrap_or_default())
                    })
                    .collect()
            })
            .unwrap_or_default();
        files.sort();
        files
    };
    let generated = files_of(&target);
    assert!(generated.len() >= 4, "the generator writes its modules");
    let current = files_of(&checked_in);
    let names = |files: &[(String, String)]| -> Vec<String> {
        files.iter().map(|(name, _)| name.clone()).collect()
    };
    let stale: Vec<String> = generated
        .iter()
        .filter(|file| !current.contains(file))
        .map(|(name, _)| name.clone())
        .collect();
    assert!(
        stale.is_empty() && names(&current) == names(&generated),
        "{GENERATED_MODULES_FOLDER} is stale ({stale:?} differ; it holds {:?}, the generator writes {:?}): \
         a Rust definition it copies changed. Rewrite it with\n\
         \x20   cargo run -q -- generated-modules {GENERATED_MODULES_FOLDER}\n\
         (or UPDATE_GENERATED=1 cargo test --test host generated_modules) and commit it.",
        names(&current),
        names(&generated)
    );
}

/// The MCP schemas that `tools/list` publishes and the contract the extension validates with
/// describe the same tools, arguments, required arguments and defaults: both come from one table,
/// and this checks the two writers of it against each other through the running server.
#[tokio::test]
async fn the_extension_checks_the_same_arguments_as_the_mcp_schemas() {
    let folder = private_folder();
    // Full with Dev mode and an upload root lists every tool of the contract.
    let root = folder.path().display().to_string();
    let client = start_mcp(
        &folder.path().join("nobody.sock"),
        &["--dev", "--upload-root", &root],
    )
    .await;
    let tools = client.list_all_tools().await.expect("tools/list");
    let mut from_mcp = serde_json::Map::new();
    for tool in &tools {
        let schema = Value::Object((*tool.input_schema).clone());
        let required: Vec<&str> = schema["required"]
            .as_array()
            .map(|names| names.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let mut arguments = serde_json::Map::new();
        for (name, property) in schema["properties"].as_object().expect("properties") {
            arguments.insert(
                name.clone(),
                json!({
                    "required": required.contains(&name.as_str()),
                    "default": property.get("default").cloned().unwrap_or(Value::Null),
                }),
            );
        }
        from_mcp.insert(tool.name.to_string(), Value::Object(arguments));
    }
    let contract_text =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(TOOL_CONTRACT_PATH))
            .expect("the tool contract");
    let contract: Value = serde_json::from_str(&contract_text).expect("the contract is JSON");
    let mut from_extension = serde_json::Map::new();
    for (tool, entry) in contract["tools"].as_object().expect("tools") {
        let mut arguments = serde_json::Map::new();
        for (name, rule) in entry["arguments"].as_object().expect("arguments") {
            arguments.insert(
                name.clone(),
                json!({
                    "required": rule["required"] == json!(true),
                    "default": rule.get("default").cloned().unwrap_or(Value::Null),
                }),
            );
        }
        from_extension.insert(tool.clone(), Value::Object(arguments));
    }
    assert_eq!(
        from_extension, from_mcp,
        "extension contract vs MCP schemas"
    );
    client.cancel().await.expect("close the session");
}

/// `--input trusted` needs a browser the server drives over WebDriver BiDi: without --launch or
/// --webdriver it is refused before anything starts, with the way out in the message; a mode
/// that does not exist is a usage error.
#[test]
fn trusted_input_without_a_launched_browser_is_refused() {
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_allwright"))
        .args(["mcp", "--input", "trusted"])
        .stdin(Stdio::null())
        .output()
        .expect("run allwright mcp");
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("--input trusted needs")
            && stderr.contains("--launch or --webdriver")
            && stderr.contains("--input synthetic"),
        "{stderr}"
    );
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_allwright"))
        .args(["mcp", "--launch", "chromium", "--input", "sideways"])
        .stdin(Stdio::null())
        .output()
        .expect("run allwright mcp");
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("synthetic") && stderr.contains("trusted"),
        "{stderr}"
    );
}

/// In the user's own browser (`--input synthetic` accepted, and the default) every input tool's
/// result says which path ran, `input: "synthetic"`; reads say nothing about input.
#[tokio::test]
async fn input_tool_results_name_the_synthetic_path_in_the_users_browser() {
    let folder = private_folder();
    for arguments in [&[][..], &["--input", "synthetic"][..]] {
        let socket_path = folder.path().join(format!("host-{}.sock", arguments.len()));
        let _calls = start_fake_host(&socket_path).await;
        let client = start_mcp(&socket_path, arguments).await;
        for (tool, tool_arguments, labelled) in [
            // verbose: the whole result, where `input` is (the short reply leaves it out).
            (
                "click_ax",
                json!({"ref_id": "ref_1", "verbose": true}),
                true,
            ),
            ("press_key", json!({"key": "Enter", "verbose": true}), true),
            (
                "type_ax",
                json!({"ref_id": "ref_1", "text": "a", "verbose": true}),
                true,
            ),
            ("get_accessibility_tree", json!({"verbose": true}), false),
        ] {
            let result = client
                .call_tool(
                    CallToolRequestParams::new(tool)
                        .with_arguments(tool_arguments.as_object().cloned().expect("object")),
                )
                .await
                .expect("tools/call");
            assert_ne!(result.is_error, Some(true), "{tool}: {result:?}");
            let structured = crate::reply_text::reply_value(&result);
            if labelled {
                assert_eq!(
                    structured["input"], "synthetic",
                    "{arguments:?} {tool}: {structured}"
                );
            } else {
                assert!(structured.get("input").is_none(), "{tool}: {structured}");
            }
        }
        client.cancel().await.expect("close the session");
    }
}

/// upload_file (src/upload_roots.rs, src/upload.rs): listed only with `--upload-root`, right
/// after fill_form; every refusal of a path answered before anything reaches the host; a file
/// inside the root reaches the host as `bridge_attach_files` with its bytes and type.
#[tokio::test]
async fn upload_file_reads_only_inside_the_upload_roots() {
    let folder = private_folder();
    let socket_path = folder.path().join("host.sock");
    let mut calls = start_fake_host(&socket_path).await;
    let files = tempfile::tempdir().expect("temp dir");
    let base = std::fs::canonicalize(files.path()).expect("canonical");
    let root = base.join("root");
    std::fs::create_dir_all(root.join(".aws")).expect("folders");
    std::fs::write(root.join("report.pdf"), b"%PDF-1.4 report").expect("a file");
    std::fs::write(root.join(".aws/credentials"), b"[default]").expect("a file");
    std::fs::write(root.join(".env"), b"TOKEN=1").expect("a file");
    std::fs::write(base.join("outside.txt"), b"outside").expect("a file");
    std::os::unix::fs::symlink(base.join("outside.txt"), root.join("link.txt")).expect("a link");
    std::os::unix::fs::symlink(&base, root.join("up")).expect("a link");

    // Without a root the tool is not listed, and a call says how to allow one (before any host
    // is asked: this server has none).
    let without = start_mcp(&folder.path().join("no-host.sock"), &[]).await;
    let names: Vec<String> = without
        .list_all_tools()
        .await
        .expect("tools/list")
        .iter()
        .map(|tool| tool.name.to_string())
        .collect();
    assert!(!names.iter().any(|name| name == "upload_file"), "{names:?}");
    let result = without
        .call_tool(call(
            "upload_file",
            json!({"ref_id": "ref_1", "paths": ["report.pdf"]}),
        ))
        .await
        .expect("an isError result");
    let error = error_object(&result);
    assert_eq!(error["code"], "not_supported_here", "{error}");
    assert!(error["hint"]
        .as_str()
        .is_some_and(|hint| hint.contains("--upload-root")));
    let _ = without.cancel().await;

    let root_argument = root.display().to_string();
    let client = start_mcp(&socket_path, &["--upload-root", &root_argument]).await;
    let names: Vec<String> = client
        .list_all_tools()
        .await
        .expect("tools/list")
        .iter()
        .map(|tool| tool.name.to_string())
        .collect();
    let position = |wanted: &str| names.iter().position(|name| name == wanted);
    assert_eq!(
        position("upload_file"),
        position("fill_form").map(|at| at + 1),
        "{names:?}"
    );
    let outside = base.join("outside.txt").display().to_string();
    for (path, code) in [
        ("/etc/passwd", "path_outside_upload_roots"),
        (outside.as_str(), "path_outside_upload_roots"),
        ("../outside.txt", "path_outside_upload_roots"),
        ("link.txt", "path_outside_upload_roots"),
        ("up/outside.txt", "path_outside_upload_roots"),
        (".aws/credentials", "secret_path_refused"),
        (".env", "secret_path_refused"),
        ("missing.pdf", "file_not_found"),
        (".", "not_a_regular_file"),
    ] {
        let result = client
            .call_tool(call(
                "upload_file",
                json!({"ref_id": "ref_1", "paths": [path]}),
            ))
            .await
            .expect("an isError result");
        let error = error_object(&result);
        assert_eq!(error["code"], code, "{path}: {error}");
    }
    assert!(
        calls.try_recv().is_err(),
        "no refused upload reached the host"
    );

    let result = client
        .call_tool(call(
            "upload_file",
            json!({"ref_id": "ref_1", "paths": ["report.pdf"], "verbose": true}),
        ))
        .await
        .expect("tools/call");
    assert_ne!(result.is_error, Some(true), "{result:?}");
    let answer = crate::reply_text::reply_value(&result);
    assert_eq!(
        answer["files"],
        json!([{"name": "report.pdf", "size": 15, "type": "application/pdf"}]),
        "{answer}"
    );
    let sent = tokio::time::timeout(PATIENCE, calls.recv())
        .await
        .expect("the call in time")
        .expect("a call");
    assert_eq!(sent["tool"], "bridge_attach_files", "{sent}");
    let file = &sent["arguments"]["files"][0];
    assert_eq!(file["name"], "report.pdf");
    assert_eq!(file["type"], "application/pdf");
    assert_eq!(
        file["data"],
        allwright_surface_web::base64::encode(b"%PDF-1.4 report")
    );
    assert!(sent["arguments"].get("paths").is_none(), "{sent}");

    // The short reply names the files, as an action's header line.
    let result = client
        .call_tool(call(
            "upload_file",
            json!({"ref_id": "ref_1", "paths": [root.join("report.pdf").display().to_string()]}),
        ))
        .await
        .expect("tools/call");
    let short = crate::reply_text::reply_value(&result);
    assert_eq!(short["files"], json!(["report.pdf"]), "{short}");
}
