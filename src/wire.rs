//! The typed messages of the two hops this binary owns (docs/protocol/channels.md, sections 1 and 2),
//! named by direction. Nothing else in the binary builds or reads these JSON shapes; the framing
//! lives in `native_messaging` (stdin/stdout) and `local_socket` (lines).

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::tool_error::ToolError;
use crate::tools::ToolAccess;

/// Extension background -> native host.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(
    tag = "type",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
pub enum ExtensionToHost {
    /// Sent on every (re)connection of the background's native port.
    Hello {
        browser: String,
        extension_version: String,
        #[serde(default)]
        protocol: Option<u32>,
    },
    /// The answer to a call; `id` is the host's own call id.
    Result(ToolResultMessage),
    /// The person changed the active tool access in the side panel (docs/protocol/access.md, "Tool
    /// access"); the host passes it on to its client.
    Access { access: ToolAccess },
}

/// Native host -> extension background.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum HostToExtension {
    Call {
        id: String,
        tool: String,
        arguments: Value,
        /// The access the MCP server believes active; informative only: the extension checks
        /// the tool against its own active access (docs/protocol/access.md, "Tool access").
        #[serde(skip_serializing_if = "Option::is_none")]
        access: Option<ToolAccess>,
        /// How long the background may work on this call before it answers `timeout` itself:
        /// the host's own deadline minus a margin (docs/protocol/host-safety.md, "Bounds and deadlines").
        #[serde(rename = "budgetMs", skip_serializing_if = "Option::is_none")]
        budget_ms: Option<u64>,
    },
    /// An MCP session started: its client's tier and Dev mode become the active access, and the
    /// side panel shows which client it is. `allowFileUrls` is sent only when true: the
    /// extension opens local files for this session only then (extension/background/tools/local-files.js).
    Session {
        access: ToolAccess,
        #[serde(skip_serializing_if = "Option::is_none")]
        client: Option<String>,
        #[serde(rename = "allowFileUrls", skip_serializing_if = "std::ops::Not::not")]
        allow_file_urls: bool,
        /// The MCP server holds a WebDriver BiDi session on this browser and records its pages'
        /// console itself: the extension then injects no console hook (sent only when true).
        #[serde(rename = "browserBridge", skip_serializing_if = "std::ops::Not::not")]
        browser_bridge: bool,
    },
    /// The host's client left: the side panel shows no MCP client (the access stays).
    SessionEnded,
    /// One slice of a message whose JSON exceeds the browser's limit (see `native_messaging`).
    Chunk {
        id: String,
        index: usize,
        count: usize,
        data: String,
    },
}

/// MCP server (the socket client) -> native host.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum ClientToHost {
    Call {
        id: String,
        tool: String,
        #[serde(default)]
        arguments: Value,
        /// The access the client lists tools for (passed on, never trusted).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        access: Option<ToolAccess>,
        /// How long the client waits for the result; the host answers `timeout` before that
        /// (docs/protocol/host-safety.md, "Bounds and deadlines").
        #[serde(rename = "waitMs", default, skip_serializing_if = "Option::is_none")]
        wait_ms: Option<u64>,
    },
    /// Sent once per connection, right after `ready`: the session's `--tier`/`--dev` and the
    /// MCP client's name (its `clientInfo`), when it has already initialized, and whether it
    /// allows local files (`--allow-file-urls`; absent means no).
    Session {
        access: ToolAccess,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        client: Option<String>,
        #[serde(
            rename = "allowFileUrls",
            default,
            skip_serializing_if = "std::ops::Not::not"
        )]
        allow_file_urls: bool,
        /// The client holds a WebDriver BiDi session on the browser (absent means no).
        #[serde(
            rename = "browserBridge",
            default,
            skip_serializing_if = "std::ops::Not::not"
        )]
        browser_bridge: bool,
    },
}

/// Native host -> MCP server (the socket client).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(
    tag = "type",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
pub enum HostToClient {
    /// The extension has said hello; calls can flow.
    Ready {
        browser: String,
        extension_version: String,
    },
    /// Another client holds the host; this connection is closed right after.
    Busy { message: String },
    /// The answer to the client's call `id`.
    Result(ToolResultMessage),
    /// The person changed the active tool access in the side panel: list tools for it.
    Access { access: ToolAccess },
}

/// `{"id", "ok": true, "result"}` or `{"id", "ok": false, "error"}`, the same on both hops.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolResultMessage {
    pub id: String,
    pub ok: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<Value>,
}

impl ToolResultMessage {
    pub fn from_outcome(id: String, outcome: Result<Value, ToolError>) -> Self {
        match outcome {
            Ok(result) => Self {
                id,
                ok: true,
                result: Some(result),
                error: None,
            },
            Err(error) => Self {
                id,
                ok: false,
                result: None,
                error: Some(error.to_value()),
            },
        }
    }

    /// The outcome this message carries. A success without a result is an empty object; a
    /// failure without a readable error object still becomes a structured error.
    pub fn into_outcome(self) -> Result<Value, ToolError> {
        if self.ok {
            Ok(self
                .result
                .unwrap_or_else(|| Value::Object(Default::default())))
        } else {
            Err(ToolError::from_foreign_value(self.error.as_ref()))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn extension_messages_are_read_from_the_documented_shapes() {
        let hello: ExtensionToHost =
            serde_json::from_value(json!({"type": "hello", "browser": "chrome", "extensionVersion": "0.1.0", "protocol": 1})).expect("hello");
        assert_eq!(
            hello,
            ExtensionToHost::Hello {
                browser: "chrome".into(),
                extension_version: "0.1.0".into(),
                protocol: Some(1)
            }
        );
        let result: ExtensionToHost =
            serde_json::from_value(json!({"type": "result", "id": "h1", "ok": false, "error": {"code": "no_tab", "message": "none"}})).expect("result");
        let ExtensionToHost::Result(result) = result else {
            panic!("not a result")
        };
        assert_eq!(result.into_outcome().expect_err("a failure").code, "no_tab");
    }

    #[test]
    fn host_messages_are_written_in_the_documented_shapes() {
        let call = HostToExtension::Call {
            id: "h1".into(),
            tool: "navigate".into(),
            arguments: json!({"url": "about:blank"}),
            access: None,
            budget_ms: None,
        };
        assert_eq!(
            serde_json::to_value(&call).expect("json"),
            json!({"type": "call", "id": "h1", "tool": "navigate", "arguments": {"url": "about:blank"}})
        );
        let ready = HostToClient::Ready {
            browser: "firefox".into(),
            extension_version: "0.1.0".into(),
        };
        assert_eq!(
            serde_json::to_value(&ready).expect("json"),
            json!({"type": "ready", "browser": "firefox", "extensionVersion": "0.1.0"})
        );
        let result = HostToClient::Result(ToolResultMessage::from_outcome(
            "c1".into(),
            Ok(json!({"url": "x"})),
        ));
        assert_eq!(
            serde_json::to_value(&result).expect("json"),
            json!({"type": "result", "id": "c1", "ok": true, "result": {"url": "x"}})
        );
    }

    #[test]
    fn tool_access_messages_are_written_and_read_in_the_documented_shapes() {
        use crate::tools::{Tier, ToolAccess};
        let session: ClientToHost = serde_json::from_value(json!({
            "type": "session", "access": {"tier": "mid", "dev": true}, "client": "claude-code"
        }))
        .expect("session");
        assert_eq!(
            session,
            ClientToHost::Session {
                access: ToolAccess::new(Tier::Mid, true),
                client: Some("claude-code".into()),
                allow_file_urls: false,
                browser_bridge: false,
            }
        );
        let forwarded = HostToExtension::Session {
            access: ToolAccess::new(Tier::Ask, false),
            client: None,
            allow_file_urls: false,
            browser_bridge: false,
        };
        assert_eq!(
            serde_json::to_value(&forwarded).expect("json"),
            json!({"type": "session", "access": {"tier": "ask", "dev": false}})
        );
        // --allow-file-urls travels both hops as allowFileUrls: true, and only when given.
        let allowing: ClientToHost = serde_json::from_value(json!({
            "type": "session", "access": {"tier": "full", "dev": false}, "allowFileUrls": true
        }))
        .expect("session");
        assert!(matches!(
            allowing,
            ClientToHost::Session {
                allow_file_urls: true,
                ..
            }
        ));
        let forwarded = HostToExtension::Session {
            access: ToolAccess::new(Tier::Full, false),
            client: None,
            allow_file_urls: true,
            browser_bridge: true,
        };
        assert_eq!(
            serde_json::to_value(&forwarded).expect("json")["allowFileUrls"],
            json!(true)
        );
        // A BiDi session on the browser travels as browserBridge: true, and only then.
        assert_eq!(
            serde_json::to_value(&forwarded).expect("json")["browserBridge"],
            json!(true)
        );
        assert_eq!(
            serde_json::to_value(HostToExtension::SessionEnded).expect("json"),
            json!({"type": "sessionEnded"})
        );
        let changed: ExtensionToHost = serde_json::from_value(
            json!({"type": "access", "access": {"tier": "compact", "dev": false}}),
        )
        .expect("access");
        assert_eq!(
            changed,
            ExtensionToHost::Access {
                access: ToolAccess::new(Tier::Compact, false)
            }
        );
        let call = HostToExtension::Call {
            id: "h2".into(),
            tool: "list_tabs".into(),
            arguments: json!({}),
            access: Some(ToolAccess::new(Tier::Full, true)),
            budget_ms: None,
        };
        assert_eq!(
            serde_json::to_value(&call).expect("json")["access"],
            json!({"tier": "full", "dev": true})
        );
        assert!(
            serde_json::from_value::<ClientToHost>(
                json!({"type": "session", "access": {"tier": "huge", "dev": false}})
            )
            .is_err(),
            "an unknown tier is not an access"
        );
    }
}
