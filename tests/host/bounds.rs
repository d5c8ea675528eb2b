//! docs/protocol/host-safety.md, "Bounds and deadlines", on the host: it answers `timeout` before its client
//! stops waiting and drops the late answer, gives the background a shorter budget, and bounds
//! the calls one client may have in flight.

use std::time::Duration;

use serde_json::json;

use crate::support::{hello, HostUnderTest, SocketClient};

async fn ready_host() -> (HostUnderTest, SocketClient) {
    let mut host = HostUnderTest::start().await;
    host.send(&hello()).await;
    let mut client = SocketClient::connect(&host.socket_path).await;
    assert_eq!(client.receive().await.expect("ready")["type"], "ready");
    (host, client)
}

#[tokio::test]
async fn the_host_answers_timeout_before_the_client_stops_waiting_and_drops_the_late_answer() {
    let (mut host, mut client) = ready_host().await;
    let started = std::time::Instant::now();
    client
        .send(&json!({"type": "call", "id": "slow", "tool": "list_tabs", "arguments": {}, "waitMs": 5_000}))
        .await;
    let (call, _) = host.receive_message().await;
    // The background gets the host's deadline (wait - 2 s) minus its own margin (2 s).
    assert_eq!(call["budgetMs"], 1_000, "{call}");

    let answer = client.receive().await.expect("the host's answer");
    let waited = started.elapsed();
    assert_eq!(answer["id"], "slow");
    assert_eq!(answer["ok"], false);
    assert_eq!(answer["error"]["code"], "timeout", "{answer}");
    assert!(
        waited < Duration::from_millis(5_000) && waited >= Duration::from_millis(2_900),
        "answered after {waited:?}: after the host's deadline (3 s), before the client's (5 s)"
    );

    // The extension's late answer reaches nobody: the next thing the client hears is its next call.
    host.send(&json!({"type": "result", "id": call["id"], "ok": true, "result": {"late": true}}))
        .await;
    client
        .send(&json!({"type": "call", "id": "next", "tool": "list_tabs", "arguments": {}}))
        .await;
    let (next_call, _) = host.receive_message().await;
    host.send(
        &json!({"type": "result", "id": next_call["id"], "ok": true, "result": {"tabs": []}}),
    )
    .await;
    let next = client.receive().await.expect("the next answer");
    assert_eq!(next["id"], "next", "the late result was dropped: {next}");
    // A call that does not say how long its client waits gets the MCP server's minute.
    assert_eq!(next_call["budgetMs"], 56_000, "{next_call}");
}

/// docs/protocol/action-safety.md, "Nothing done twice": a tool that changes the page and loses its answer,
/// to the host's deadline or to an extension that went away, is `outcome_unknown`, whose hint
/// says to look and never to retry, with `retryAllowed: false`; a read-only tool stays `timeout`.
#[tokio::test]
async fn a_lost_answer_of_a_tool_that_changes_the_page_is_outcome_unknown() {
    let (mut host, mut client) = ready_host().await;
    client
        .send(&json!({"type": "call", "id": "click", "tool": "click_ax", "arguments": {"ref_id": "ref_1"}, "waitMs": 3_000}))
        .await;
    let _ = host.receive_message().await;
    let answer = client.receive().await.expect("the host's answer");
    assert_eq!(answer["id"], "click");
    assert_eq!(answer["error"]["code"], "outcome_unknown", "{answer}");
    assert_eq!(answer["error"]["retryAllowed"], false, "{answer}");
    let hint = answer["error"]["hint"].as_str().unwrap_or("");
    assert!(hint.contains("Do not repeat"), "{answer}");
    assert!(!hint.to_lowercase().contains("retry"), "{answer}");

    // The extension goes away (a second hello: its service worker restarted) with a type_ax and
    // a list_tabs in flight.
    client
        .send(&json!({"type": "call", "id": "typing", "tool": "type_ax", "arguments": {"ref_id": "ref_2", "text": "x"}}))
        .await;
    client
        .send(&json!({"type": "call", "id": "reading", "tool": "list_tabs", "arguments": {}}))
        .await;
    let _ = host.receive_message().await;
    let _ = host.receive_message().await;
    host.send(&hello()).await;
    let mut codes = std::collections::BTreeMap::new();
    while codes.len() < 2 {
        let message = client.receive().await.expect("a message");
        if message["type"] == "result" {
            codes.insert(
                message["id"].as_str().unwrap_or("").to_string(),
                message["error"]["code"].as_str().unwrap_or("").to_string(),
            );
        }
    }
    assert_eq!(codes["typing"], "outcome_unknown", "{codes:?}");
    assert_eq!(codes["reading"], "extension_disconnected", "{codes:?}");
}

#[tokio::test]
async fn a_client_cannot_have_more_than_64_calls_in_flight() {
    let (mut host, mut client) = ready_host().await;
    for index in 0..64 {
        client
            .send(&json!({"type": "call", "id": format!("c{index}"), "tool": "list_tabs", "arguments": {}}))
            .await;
    }
    for _ in 0..64 {
        let (call, _) = host.receive_message().await;
        assert_eq!(call["type"], "call");
    }
    client
        .send(&json!({"type": "call", "id": "one-too-many", "tool": "list_tabs", "arguments": {}}))
        .await;
    let refused = client.receive().await.expect("an answer");
    assert_eq!(refused["id"], "one-too-many");
    assert_eq!(refused["error"]["code"], "too_many_calls", "{refused}");
    assert!(refused["error"]["hint"]
        .as_str()
        .is_some_and(|hint| hint.contains("Wait")));
}

#[tokio::test]
async fn a_client_that_never_reads_is_disconnected_and_the_host_stays_up() {
    let (mut host, mut client) = ready_host().await;
    let results = 9;
    for index in 0..results {
        client
            .send(&json!({"type": "call", "id": format!("c{index}"), "tool": "get_accessibility_tree", "arguments": {}}))
            .await;
    }
    let mut host_ids = Vec::new();
    for _ in 0..results {
        let (call, _) = host.receive_message().await;
        host_ids.push(call["id"].clone());
    }
    // 9 results of 16 MiB: more than the 128 MiB the host keeps for a client that does not read.
    let tree = "x".repeat(16 * 1024 * 1024);
    for id in host_ids {
        host.send(&json!({"type": "result", "id": id, "ok": true, "result": {"tree": tree}}))
            .await;
    }
    let deadline = tokio::time::Instant::now() + crate::support::PATIENCE;
    while !host.log().contains("stopped reading") {
        assert!(
            tokio::time::Instant::now() < deadline,
            "the host never disconnected the client: {}",
            host.log()
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    drop(client);
    // The host is still there for the next client.
    let mut next = SocketClient::connect(&host.socket_path).await;
    assert_eq!(next.receive().await.expect("ready")["type"], "ready");
}
