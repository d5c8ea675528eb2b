//! docs/protocol/channels.md, sections 1 and 2, checked against the real host process.

use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::time::Duration;

use serde_json::{json, Value};

use crate::support::{frame, hello, HostUnderTest, SocketClient};

/// Connects a client and completes the hello/ready exchange.
async fn ready_host() -> (HostUnderTest, SocketClient) {
    let mut host = HostUnderTest::start().await;
    host.send(&hello()).await;
    let mut client = SocketClient::connect(&host.socket_path).await;
    let ready = client.receive().await.expect("ready");
    assert_eq!(
        ready,
        json!({"type": "ready", "browser": "chrome", "extensionVersion": "0.1.0"})
    );
    (host, client)
}

#[tokio::test]
async fn ready_waits_for_the_extension_hello() {
    let mut host = HostUnderTest::start().await;
    let mut client = SocketClient::connect(&host.socket_path).await;
    assert_eq!(
        client.receive_within(Duration::from_millis(300)).await,
        Err(()),
        "no ready before hello"
    );
    host.send(&hello()).await;
    assert_eq!(client.receive().await.expect("ready")["type"], "ready");
}

#[tokio::test]
async fn calls_and_results_are_relayed_both_ways_with_each_sides_own_ids() {
    let (mut host, mut client) = ready_host().await;
    client.send(&json!({"type": "call", "id": "client-7", "tool": "navigate", "arguments": {"url": "https://example.com/"}})).await;
    let (call, frames) = host.receive_message().await;
    assert_eq!(frames, 1);
    assert_eq!(call["type"], "call");
    assert_eq!(call["tool"], "navigate");
    assert_eq!(call["arguments"], json!({"url": "https://example.com/"}));
    let host_id = call["id"].as_str().expect("the host's id").to_owned();
    assert_ne!(
        host_id, "client-7",
        "the host uses its own ids toward the extension"
    );

    host.send(&json!({"type": "result", "id": host_id, "ok": true, "result": {"url": "https://example.com/", "title": "Example"}})).await;
    assert_eq!(
        client.receive().await.expect("result"),
        json!({"type": "result", "id": "client-7", "ok": true, "result": {"url": "https://example.com/", "title": "Example"}})
    );

    client.send(&json!({"type": "call", "id": "client-8", "tool": "get_accessibility_tree", "arguments": {"ref_id": "ref_9"}})).await;
    let (call, _) = host.receive_message().await;
    let error = json!({"code": "ref_not_found", "message": "ref_9 is gone", "hint": "re-read the tree", "suggestions": ["ref_8"]});
    host.send(&json!({"type": "result", "id": call["id"], "ok": false, "error": error}))
        .await;
    assert_eq!(
        client.receive().await.expect("result"),
        json!({"type": "result", "id": "client-8", "ok": false, "error": error})
    );
}

#[tokio::test]
async fn a_message_over_a_megabyte_reaches_the_extension_in_chunks_under_the_limit() {
    let (mut host, mut client) = ready_host().await;
    // Quotes and multi-byte characters: escaping doubles some bytes, cutting must respect UTF-8.
    let text: String = "a\"é😀".repeat(200_000);
    client
        .send(&json!({"type": "call", "id": "big", "tool": "type_ax", "arguments": {"text": text}}))
        .await;
    let mut frames = Vec::new();
    let (length, first) = host.receive_frame().await;
    assert_eq!(
        first["type"], "chunk",
        "a {length}-byte message must be chunked"
    );
    let count = first["count"].as_u64().expect("count") as usize;
    assert!(count >= 3, "{count} chunks for ~2 MB");
    frames.push((length, first));
    for _ in 1..count {
        frames.push(host.receive_frame().await);
    }
    let mut joined = String::new();
    for (index, (length, chunk)) in frames.iter().enumerate() {
        assert!(
            *length < 1024 * 1024,
            "chunk {index} is {length} bytes, over the browser's 1 MB limit"
        );
        assert_eq!(chunk["index"], index);
        assert_eq!(chunk["count"], count);
        joined.push_str(chunk["data"].as_str().expect("data"));
    }
    let call: Value = serde_json::from_str(&joined).expect("the chunks join into one JSON message");
    assert_eq!(call["type"], "call");
    assert_eq!(call["arguments"]["text"].as_str(), Some(text.as_str()));

    // The other way messages are never chunked: a 3 MB result arrives whole.
    let big_tree = "x".repeat(3 * 1024 * 1024);
    host.send(
        &json!({"type": "result", "id": call["id"], "ok": true, "result": {"tree": big_tree}}),
    )
    .await;
    let result = client.receive().await.expect("result");
    assert_eq!(
        result["result"]["tree"].as_str().map(str::len),
        Some(big_tree.len())
    );
}

#[tokio::test]
async fn a_second_client_is_told_busy_and_closed() {
    let (mut host, mut first) = ready_host().await;
    let mut second = SocketClient::connect(&host.socket_path).await;
    let busy = second.receive().await.expect("busy");
    assert_eq!(busy["type"], "busy");
    assert!(busy["message"]
        .as_str()
        .is_some_and(|message| !message.is_empty()));
    assert_eq!(
        second.receive().await,
        None,
        "the second connection is closed"
    );

    // The first client is untouched.
    first.send(&json!({"type": "call", "id": "still-mine", "tool": "navigate", "arguments": {"url": "about:blank"}})).await;
    let (call, _) = host.receive_message().await;
    host.send(&json!({"type": "result", "id": call["id"], "ok": true, "result": {}}))
        .await;
    assert_eq!(first.receive().await.expect("result")["id"], "still-mine");
}

#[tokio::test]
async fn a_client_can_take_over_after_the_first_one_leaves() {
    let (mut host, mut first) = ready_host().await;
    first
        .send(&json!({"type": "session", "access": {"tier": "full", "dev": false}, "client": "first"}))
        .await;
    let (started, _) = host.receive_message().await;
    assert_eq!(started["type"], "session");
    drop(first);
    // The extension hears that the session ended (the side panel shows no MCP client).
    let (ended, _) = host.receive_message().await;
    assert_eq!(ended, json!({"type": "sessionEnded"}));
    let mut next = SocketClient::connect(&host.socket_path).await;
    assert_eq!(
        next.receive().await.expect("ready")["type"],
        "ready",
        "ready at once: hello came earlier"
    );
    next.send(&json!({"type": "call", "id": "n1", "tool": "navigate", "arguments": {"url": "about:blank"}})).await;
    let (call, _) = host.receive_message().await;
    host.send(&json!({"type": "result", "id": call["id"], "ok": true, "result": {}}))
        .await;
    assert_eq!(next.receive().await.expect("result")["id"], "n1");
}

#[tokio::test]
async fn the_socket_is_private_to_the_user() {
    let host = HostUnderTest::start().await;
    let socket_mode = std::fs::symlink_metadata(&host.socket_path)
        .expect("socket")
        .permissions()
        .mode()
        & 0o777;
    let folder = host.socket_path.parent().expect("folder");
    let folder_metadata = std::fs::metadata(folder).expect("folder");
    assert_eq!(socket_mode, 0o600, "socket mode {socket_mode:o}");
    assert_eq!(folder_metadata.permissions().mode() & 0o777, 0o700);
    assert_eq!(folder_metadata.uid(), rustix::process::getuid().as_raw());
}

#[tokio::test]
async fn when_the_extension_disconnects_pending_calls_fail_and_the_host_exits() {
    let (mut host, mut client) = ready_host().await;
    client.send(&json!({"type": "call", "id": "in-flight", "tool": "accessibility_snapshot", "arguments": {}})).await;
    let (call, _) = host.receive_message().await;
    assert_eq!(call["tool"], "accessibility_snapshot");
    host.close_stdin();
    let answer = client.receive().await.expect("an answer, not silence");
    assert_eq!(answer["id"], "in-flight");
    assert_eq!(answer["ok"], false);
    assert_eq!(answer["error"]["code"], "extension_disconnected");
    assert!(answer["error"]["message"].is_string());
    assert!(
        host.exit_status().await.success(),
        "a closed port is a clean exit"
    );
    assert!(
        !host.socket_path.exists(),
        "the socket file is removed on exit"
    );
}

#[tokio::test]
async fn a_second_hello_fails_the_calls_sent_to_the_old_background() {
    let (mut host, mut client) = ready_host().await;
    client.send(&json!({"type": "call", "id": "lost", "tool": "navigate", "arguments": {"url": "about:blank"}})).await;
    let _ = host.receive_message().await;
    host.send(&hello()).await;
    let mut saw_failure = false;
    for _ in 0..2 {
        let message = client.receive().await.expect("a message");
        if message["type"] == "result" {
            assert_eq!(message["id"], "lost");
            // navigate changes the page: its lost answer is outcome_unknown (docs/protocol/action-safety.md,
            // "Nothing done twice").
            assert_eq!(message["error"]["code"], "outcome_unknown");
            saw_failure = true;
        }
    }
    assert!(saw_failure);
}

#[tokio::test]
async fn a_truncated_frame_is_an_error_exit() {
    let mut host = HostUnderTest::start().await;
    let whole = frame(&hello());
    host.send_bytes(&whole[..whole.len() / 2]).await;
    host.close_stdin();
    let status = host.exit_status().await;
    assert!(
        !status.success(),
        "a cut frame must not look like a clean exit"
    );
    assert!(
        host.log().contains("inside a message"),
        "the log says why: {}",
        host.log()
    );
}

#[tokio::test]
async fn a_clean_end_of_stream_is_a_clean_exit() {
    let mut host = HostUnderTest::start().await;
    host.send(&hello()).await;
    host.close_stdin();
    assert!(host.exit_status().await.success());
    assert!(!host.socket_path.exists());
}

#[tokio::test]
async fn an_unreadable_call_is_answered_not_dropped() {
    let (_host, mut client) = ready_host().await;
    client.send(&json!({"type": "call", "id": "odd"})).await;
    let answer = client.receive().await.expect("an answer");
    assert_eq!(answer["id"], "odd");
    assert_eq!(answer["error"]["code"], "invalid_arguments");
    client.send_raw_line("this is not JSON").await;
    // The connection survives a garbage line.
    client
        .send(&json!({"type": "call", "id": "odd-2", "tool": 5}))
        .await;
    assert_eq!(client.receive().await.expect("an answer")["id"], "odd-2");
}

#[tokio::test]
async fn unknown_extension_messages_are_ignored() {
    let (mut host, mut client) = ready_host().await;
    host.send(&json!({"type": "telemetry", "anything": 1}))
        .await;
    host.send_bytes(&{
        let mut framed = 3u32.to_ne_bytes().to_vec();
        framed.extend_from_slice(b"{{{");
        framed
    })
    .await;
    client.send(&json!({"type": "call", "id": "after", "tool": "navigate", "arguments": {"url": "about:blank"}})).await;
    let (call, _) = host.receive_message().await;
    host.send(&json!({"type": "result", "id": call["id"], "ok": true, "result": {}}))
        .await;
    assert_eq!(client.receive().await.expect("result")["id"], "after");
}

#[tokio::test]
async fn sessions_access_changes_and_a_leaving_client_are_relayed() {
    let (mut host, mut client) = ready_host().await;
    client
        .send(&json!({"type": "session", "access": {"tier": "compact", "dev": true}, "client": "claude-code"}))
        .await;
    let (session, _) = host.receive_message().await;
    assert_eq!(
        session,
        json!({"type": "session", "access": {"tier": "compact", "dev": true}, "client": "claude-code"})
    );
    client
        .send(&json!({"type": "call", "id": "c1", "tool": "list_tabs", "arguments": {}, "access": {"tier": "full", "dev": false}}))
        .await;
    let (call, _) = host.receive_message().await;
    assert_eq!(
        call["access"],
        json!({"tier": "full", "dev": false}),
        "the claimed access travels with the call (the extension does not trust it)"
    );
    // The side panel changed the access: the client hears it.
    host.send(&json!({"type": "access", "access": {"tier": "ask", "dev": false}}))
        .await;
    assert_eq!(
        client.receive().await.expect("access"),
        json!({"type": "access", "access": {"tier": "ask", "dev": false}})
    );
    // An access that is no access is ignored, not relayed.
    host.send(&json!({"type": "access", "access": {"tier": "root", "dev": true}}))
        .await;
    assert_eq!(
        client.receive_within(Duration::from_millis(300)).await,
        Err(())
    );
    drop(client);
    let (ended, _) = host.receive_message().await;
    assert_eq!(ended, json!({"type": "sessionEnded"}));
}
