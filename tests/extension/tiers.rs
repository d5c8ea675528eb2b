//! Tool tiers, enforced (docs/protocol/access.md, "Tool access"): each tier's tool list over MCP, with
//! and without --dev; the MCP server's refusal of a tool outside the tier; and the extension's
//! own refusal of an out-of-tier call sent straight to the local socket by a raw client that
//! claims a larger access, which the extension does not believe.

use std::collections::BTreeSet;
use std::time::Duration;

use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::UnixStream;

use crate::support::{fixtures, repository_root, strings, Session, PATIENCE};

/// The tools the contract lists for a tier (its `tiers`, and its `devTiers` in Dev mode): what
/// the MCP server must list in a session without a browser bridge and without `--upload-root`
/// (upload_file is listed only with one: tests/extension/upload.rs).
pub fn contract_tools(tier: &str, dev: bool) -> BTreeSet<String> {
    let contract: Value = serde_json::from_str(
        &std::fs::read_to_string(repository_root().join("extension/shared/tool-contract.json"))
            .expect("the tool contract"),
    )
    .expect("the contract is JSON");
    contract["tools"]
        .as_object()
        .expect("tools")
        .iter()
        .filter(|(_, entry)| {
            strings(&entry["tiers"]).iter().any(|name| name == tier)
                || (dev && strings(&entry["devTiers"]).iter().any(|name| name == tier))
        })
        .map(|(name, _)| name.clone())
        .filter(|name| name != "upload_file")
        .collect()
}

pub async fn each_tier_lists_its_tools_and_refuses_the_others(session: &mut Session) {
    let browser = session.browser.name();
    let cases: [(&[&str], &str, bool); 7] = [
        (&["--tier", "ask"], "ask", false),
        (&["--tier", "compact"], "compact", false),
        (&["--tier", "compact", "--dev"], "compact", true),
        (&["--tier", "mid"], "mid", false),
        (&["--tier", "mid", "--dev"], "mid", true),
        (&["--tier", "full"], "full", false),
        (&["--tier", "full", "--dev"], "full", true),
    ];
    let mut lists = Vec::new();
    for (arguments, tier, dev) in cases {
        session.restart_mcp(arguments).await;
        let listed: BTreeSet<String> = session.listed_tools().await.into_iter().collect();
        let expected = contract_tools(tier, dev);
        assert_eq!(listed, expected, "{browser}: {arguments:?}");
        lists.push(listed);
    }
    // The tiers are really different: Ask < Compact < Mid < Full, and Dev adds to each.
    let [ask, compact, compact_dev, mid, mid_dev, full, full_dev] =
        <[_; 7]>::try_from(lists).unwrap_or_else(|_| panic!("seven lists"));
    for (smaller, larger, what) in [
        (&ask, &compact, "ask < compact"),
        (&compact, &mid, "compact < mid"),
        (&mid, &full, "mid < full"),
        (&compact, &compact_dev, "compact < compact + dev"),
        (&mid, &mid_dev, "mid < mid + dev"),
        (&full, &full_dev, "full < full + dev"),
    ] {
        assert!(
            smaller.is_subset(larger) && smaller.len() < larger.len(),
            "{browser}: {what}"
        );
    }
    for acting in [
        "navigate",
        "click_ax",
        "type_ax",
        "new_tab",
        "select_tab",
        "go_back",
        "go_forward",
        "reload",
    ] {
        assert!(!ask.contains(acting), "{browser}: Ask lists {acting}");
    }
    assert!(
        ask.contains("get_accessibility_tree")
            && ask.contains("list_tabs")
            && ask.contains("screenshot")
    );
    assert!(compact.contains("navigate") && !compact.contains("hover"));
    // Compact goes back but leaves going forward and reloading to Mid (src/tools/table.rs).
    assert!(
        compact.contains("go_back")
            && !compact.contains("go_forward")
            && !compact.contains("reload")
            && mid.contains("go_forward")
            && mid.contains("reload"),
        "{browser}"
    );

    // The MCP server refuses a tool of the contract outside the tier with not_in_tier, and a name
    // that is no tool with invalid_arguments.
    session.restart_mcp(&["--tier", "ask"]).await;
    let refused = session
        .call(
            "navigate",
            json!({"url": fixtures().url("/pages/surface.html")}),
        )
        .await
        .expect_err("Ask does not navigate");
    assert_eq!(refused.code(), "not_in_tier", "{browser}: {:?}", refused.0);
    assert!(
        refused.0["message"]
            .as_str()
            .unwrap_or("")
            .contains("navigate")
            && refused.0["message"].as_str().unwrap_or("").contains("ask"),
        "{browser}: the refusal names the tool and the tier: {:?}",
        refused.0
    );
    let suggested: BTreeSet<String> = strings(&refused.0["suggestions"]).into_iter().collect();
    assert_eq!(suggested, ask, "{browser}: the suggestions are Ask's tools");
    assert!(refused.0["hint"]
        .as_str()
        .is_some_and(|hint| hint.contains("side panel")));
    let unknown = session
        .call("teleport", json!({}))
        .await
        .expect_err("no such tool");
    assert_eq!(
        unknown.code(),
        "invalid_arguments",
        "{browser}: {:?}",
        unknown.0
    );
    // Reading tools run in Ask (the page is loaded from outside: Ask cannot navigate).
    session
        .navigate_from_outside(&fixtures().url("/pages/surface.html"))
        .await;
    tokio::time::sleep(Duration::from_millis(150)).await;
    session.ok("get_accessibility_tree", json!({})).await;
}

/// A raw client of the local socket, speaking its JSON lines (docs/protocol/channels.md, section 1): it
/// skips the MCP server and claims Full + Dev on its calls; the extension checks the tool
/// against its own active access (Ask, from the last session) and refuses with not_in_tier.
pub async fn a_raw_socket_client_cannot_leave_the_active_tier(session: &mut Session) {
    let browser = session.browser.name();
    session.restart_mcp(&["--tier", "ask"]).await;
    // The host serves one client at a time: the MCP session leaves first.
    session.stop_mcp().await;
    let mut raw = RawClient::connect(session).await;
    let claimed = json!({"tier": "full", "dev": true});
    let answer = raw
        .call(
            "r1",
            "navigate",
            json!({"url": fixtures().url("/pages/surface.html")}),
            &claimed,
        )
        .await;
    assert_eq!(answer["ok"], json!(false), "{browser}: {answer}");
    let error = &answer["error"];
    assert_eq!(error["code"], "not_in_tier", "{browser}: {answer}");
    assert!(
        error["message"].as_str().unwrap_or("").contains("navigate")
            && error["message"].as_str().unwrap_or("").contains("ask"),
        "{browser}: {error}"
    );
    assert!(error["hint"].as_str().is_some_and(|hint| !hint.is_empty()));
    let suggested: BTreeSet<String> = strings(&error["suggestions"]).into_iter().collect();
    assert_eq!(
        suggested,
        contract_tools("ask", false),
        "{browser}: {error}"
    );
    // Without any claimed access too, and for another acting tool.
    let answer = raw
        .call("r2", "press_key", json!({"key": "Enter"}), &Value::Null)
        .await;
    assert_eq!(
        answer["error"]["code"], "not_in_tier",
        "{browser}: {answer}"
    );
    // The bridge call that starts a real-pointer click_ax is gated as click_ax.
    let answer = raw
        .call(
            "r5",
            "bridge_begin_input",
            json!({"ref_id": "ref_1", "kind": "click"}),
            &claimed,
        )
        .await;
    assert_eq!(
        answer["error"]["code"], "not_in_tier",
        "{browser}: {answer}"
    );
    assert!(
        answer["error"]["message"]
            .as_str()
            .unwrap_or("")
            .contains("click_ax"),
        "{browser}: {answer}"
    );
    // A listed tool still runs: the refusal is the gate, not a broken connection.
    let answer = raw.call("r3", "list_tabs", json!({}), &claimed).await;
    assert_eq!(answer["ok"], json!(true), "{browser}: {answer}");
    // An unknown tool is still an argument error, with the tools as suggestions.
    let answer = raw.call("r4", "teleport", json!({}), &claimed).await;
    assert_eq!(
        answer["error"]["code"], "invalid_arguments",
        "{browser}: {answer}"
    );
    drop(raw);
    session.restart_mcp(&[]).await;
}

pub struct RawClient {
    lines: tokio::io::Lines<BufReader<tokio::net::unix::OwnedReadHalf>>,
    writer: tokio::net::unix::OwnedWriteHalf,
}

impl RawClient {
    /// Connects to the browser's host once the MCP client has left, and waits for `ready`.
    pub async fn connect(session: &Session) -> RawClient {
        let deadline = tokio::time::Instant::now() + PATIENCE;
        loop {
            let stream = UnixStream::connect(session.socket_path())
                .await
                .expect("connect to the host's socket");
            let (read_half, writer) = stream.into_split();
            let mut lines = BufReader::new(read_half).lines();
            let first = tokio::time::timeout(PATIENCE, lines.next_line())
                .await
                .expect("the host's first line in time")
                .expect("a line")
                .expect("not closed");
            let first: Value = serde_json::from_str(&first).expect("JSON");
            if first["type"] == "ready" {
                return RawClient { lines, writer };
            }
            // `busy`: the MCP client's connection is still closing.
            assert!(
                tokio::time::Instant::now() < deadline,
                "the host stayed busy: {first}"
            );
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }

    /// Sends one call and waits for its result (skipping anything else the host says).
    pub async fn call(&mut self, id: &str, tool: &str, arguments: Value, access: &Value) -> Value {
        let mut call = json!({"type": "call", "id": id, "tool": tool, "arguments": arguments});
        if !access.is_null() {
            call["access"] = access.clone();
        }
        self.writer
            .write_all(format!("{call}\n").as_bytes())
            .await
            .expect("write the call");
        loop {
            let line = tokio::time::timeout(PATIENCE, self.lines.next_line())
                .await
                .expect("an answer in time")
                .expect("a line")
                .expect("not closed");
            let message: Value = serde_json::from_str(&line).expect("JSON");
            if message["type"] == "result" && message["id"] == id {
                return message;
            }
        }
    }
}
