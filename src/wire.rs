//! The typed messages of the two hops this binary owns (docs/protocol.md, sections 1 and 2),
//! named by direction. Nothing else in the binary builds or reads these JSON shapes; the framing
//! lives in `native_messaging` (stdin/stdout) and `local_socket` (lines).

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::tool_error::ToolError;

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
}

/// Native host -> extension background.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum HostToExtension {
    Call {
        id: String,
        tool: String,
        arguments: Value,
    },
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
}
