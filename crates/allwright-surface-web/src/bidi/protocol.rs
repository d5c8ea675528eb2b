//! BiDi wire messages, in both directions, and the mapping of BiDi errors to allwright's error
//! codes. Only this module knows the JSON shape of a BiDi message.
//!
//! The shapes come from the WebDriver BiDi specification, section "Transport":
//! a command is `{"id": <uint>, "method": "module.command", "params": {...}}`; the remote end
//! answers `{"type": "success", "id": <same>, "result": {...}}` or
//! `{"type": "error", "id": <same or null>, "error": "<error code>", "message": "...",
//! "stacktrace": "..."}`, and sends events as `{"type": "event", "method": "...", "params": {...}}`.

use serde_json::{json, Map, Value};

/// The id the client gives a command; the remote end echoes it in the response.
pub type CommandId = u64;

/// A message from the browser (the BiDi remote end) to allwright.
#[derive(Debug, Clone, PartialEq)]
pub enum BrowserToClient {
    /// The successful response to the command with this id.
    Success { id: CommandId, result: Value },
    /// A failed command. `id` is `None` when the remote end could not read the command's id
    /// (for example when the message was not valid JSON).
    Error {
        id: Option<CommandId>,
        error: BidiError,
    },
    /// An event the session subscribed to.
    Event { method: String, params: Value },
}

/// Writes one command as the JSON text that goes into a WebSocket text frame.
pub fn encode_command(id: CommandId, method: &str, params: Value) -> String {
    // Params must be an object on the wire; `null` (no parameters) becomes `{}`.
    let params = match params {
        Value::Null => Value::Object(Map::new()),
        other => other,
    };
    json!({ "id": id, "method": method, "params": params }).to_string()
}

/// Reads one message from the remote end. Messages without a `type` field are classified by
/// their fields, because some BiDi mappers (older chromedriver builds) leave it out.
pub fn decode_message(text: &str) -> Result<BrowserToClient, BidiError> {
    let value: Value = serde_json::from_str(text).map_err(|parse_error| {
        BidiError::protocol(format!(
            "the browser sent a message that is not JSON: {parse_error}"
        ))
    })?;
    let Value::Object(mut object) = value else {
        return Err(BidiError::protocol(
            "the browser sent a BiDi message that is not a JSON object",
        ));
    };
    let message_type = object
        .get("type")
        .and_then(Value::as_str)
        .map(str::to_owned);
    let id = object.get("id").and_then(Value::as_u64);
    let looks_like_error = object.contains_key("error") && !object.contains_key("result");
    match message_type.as_deref() {
        Some("success") | None if object.contains_key("result") => {
            let id =
                id.ok_or_else(|| BidiError::protocol("a BiDi success response has no numeric id"))?;
            let result = object.remove("result").unwrap_or(Value::Null);
            Ok(BrowserToClient::Success { id, result })
        }
        Some("error") | None if looks_like_error => {
            let code = object
                .get("error")
                .and_then(Value::as_str)
                .unwrap_or("unknown error");
            let message = object
                .get("message")
                .and_then(Value::as_str)
                .unwrap_or_default();
            let mut error = BidiError::from_remote(code, message);
            error.stacktrace = object
                .get("stacktrace")
                .and_then(Value::as_str)
                .map(str::to_owned);
            Ok(BrowserToClient::Error { id, error })
        }
        Some("event") | None if object.contains_key("method") => {
            let method = object
                .get("method")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned();
            let params = object.remove("params").unwrap_or(Value::Null);
            Ok(BrowserToClient::Event { method, params })
        }
        Some(other) => Err(BidiError::protocol(format!(
            "the browser sent a BiDi message of unknown type {other:?}"
        ))),
        None => Err(BidiError::protocol(
            "the browser sent a BiDi message that is neither a response nor an event",
        )),
    }
}

/// What went wrong, as a closed set the callers can match on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BidiErrorKind {
    /// The remote end rejected the command's parameters (`invalid argument`).
    InvalidArgument,
    /// A browsing context (tab or frame) is gone or never existed (`no such frame`).
    NoSuchFrame,
    /// An element reference no longer resolves (`no such element`, `no such node`,
    /// `stale element reference`).
    NoSuchElement,
    /// A script threw or could not run (`javascript error`, `script error`).
    ScriptFailed,
    /// `webExtension.install` failed: not an extension, or a broken manifest.
    InvalidWebExtension,
    /// The command or module is not implemented by this browser (`unknown command`,
    /// `unsupported operation`).
    Unsupported,
    /// The session could not be created (`session not created`).
    SessionNotCreated,
    /// The command did not finish in time (client-side timer or remote `timeout`).
    Timeout,
    /// The WebSocket closed or failed; the browser is probably gone.
    ConnectionClosed,
    /// The remote end broke the protocol (a message we cannot read).
    Protocol,
    /// Any other remote error (`unknown error` and codes this client does not know).
    Other,
}

impl BidiErrorKind {
    /// Maps a BiDi error code (the `error` field of an error response) to a kind. One table; a
    /// code that is not listed is `Other`, so a newer browser's codes never break the client.
    pub fn from_remote_code(code: &str) -> Self {
        match code {
            "invalid argument" | "invalid selector" | "invalid session id" => Self::InvalidArgument,
            "no such frame" | "no such user context" => Self::NoSuchFrame,
            "no such element" | "no such node" | "no such handle" | "stale element reference" => {
                Self::NoSuchElement
            }
            "javascript error" | "script error" | "no such script" => Self::ScriptFailed,
            "invalid web extension" | "no such web extension" => Self::InvalidWebExtension,
            "unknown command" | "unknown method" | "unsupported operation" => Self::Unsupported,
            "session not created" => Self::SessionNotCreated,
            "timeout" | "script timeout" => Self::Timeout,
            _ => Self::Other,
        }
    }

    /// The allwright tool error code (docs/protocol/tools.md, "Error codes") that this failure becomes
    /// when it ends a tool call.
    pub fn tool_error_code(self) -> &'static str {
        match self {
            Self::InvalidArgument => "invalid_arguments",
            Self::NoSuchFrame => "frame_not_found",
            Self::NoSuchElement => "ref_not_found",
            Self::ScriptFailed => "script_failed",
            Self::Timeout => "timeout",
            Self::ConnectionClosed => "not_connected",
            Self::InvalidWebExtension
            | Self::Unsupported
            | Self::SessionNotCreated
            | Self::Protocol
            | Self::Other => "script_failed",
        }
    }
}

/// A failed BiDi command or connection, with the remote end's own code and message kept for logs.
#[derive(Debug, Clone, PartialEq)]
pub struct BidiError {
    pub kind: BidiErrorKind,
    /// The remote end's error code (`"no such frame"`), or a short local label.
    pub code: String,
    pub message: String,
    pub stacktrace: Option<String>,
}

impl BidiError {
    pub fn from_remote(code: &str, message: &str) -> Self {
        Self {
            kind: BidiErrorKind::from_remote_code(code),
            code: code.to_owned(),
            message: message.to_owned(),
            stacktrace: None,
        }
    }

    pub fn local(kind: BidiErrorKind, code: &str, message: impl Into<String>) -> Self {
        Self {
            kind,
            code: code.to_owned(),
            message: message.into(),
            stacktrace: None,
        }
    }

    pub fn protocol(message: impl Into<String>) -> Self {
        Self::local(BidiErrorKind::Protocol, "protocol error", message)
    }

    pub fn connection_closed(message: impl Into<String>) -> Self {
        Self::local(
            BidiErrorKind::ConnectionClosed,
            "connection closed",
            message,
        )
    }

    pub fn timeout(method: &str, after: std::time::Duration) -> Self {
        Self::local(
            BidiErrorKind::Timeout,
            "timeout",
            format!(
                "the browser did not answer {method} within {} ms",
                after.as_millis()
            ),
        )
    }
}

impl std::fmt::Display for BidiError {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.message.is_empty() {
            write!(formatter, "BiDi error: {}", self.code)
        } else {
            write!(formatter, "BiDi error: {}: {}", self.code, self.message)
        }
    }
}

impl std::error::Error for BidiError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_command_is_encoded_with_its_id_method_and_params() {
        let text = encode_command(
            7,
            "browsingContext.navigate",
            json!({"context": "abc", "url": "about:blank"}),
        );
        let value: Value = serde_json::from_str(&text).expect("the encoder writes JSON");
        assert_eq!(
            value,
            json!({"id": 7, "method": "browsingContext.navigate", "params": {"context": "abc", "url": "about:blank"}})
        );
    }

    #[test]
    fn a_command_without_params_sends_an_empty_object() {
        let text = encode_command(1, "session.status", Value::Null);
        let value: Value = serde_json::from_str(&text).expect("the encoder writes JSON");
        assert_eq!(value["params"], json!({}));
    }

    #[test]
    fn success_error_and_event_messages_are_decoded() {
        assert_eq!(
            decode_message(r#"{"type":"success","id":3,"result":{"contexts":[]}}"#),
            Ok(BrowserToClient::Success {
                id: 3,
                result: json!({"contexts": []})
            })
        );
        let decoded = decode_message(
            r#"{"type":"error","id":4,"error":"no such frame","message":"Context abc not found","stacktrace":"at x"}"#,
        );
        let Ok(BrowserToClient::Error { id, error }) = decoded else {
            panic!("expected an error, got {decoded:?}")
        };
        assert_eq!(id, Some(4));
        assert_eq!(error.kind, BidiErrorKind::NoSuchFrame);
        assert_eq!(error.message, "Context abc not found");
        assert_eq!(error.stacktrace.as_deref(), Some("at x"));
        assert_eq!(
            decode_message(r#"{"type":"event","method":"log.entryAdded","params":{"text":"hi"}}"#),
            Ok(BrowserToClient::Event {
                method: "log.entryAdded".into(),
                params: json!({"text": "hi"})
            })
        );
    }

    #[test]
    fn an_error_without_an_id_is_kept_with_no_id() {
        let decoded = decode_message(
            r#"{"type":"error","id":null,"error":"invalid argument","message":"bad JSON"}"#,
        );
        let Ok(BrowserToClient::Error { id, error }) = decoded else {
            panic!("expected an error, got {decoded:?}")
        };
        assert_eq!(id, None);
        assert_eq!(error.kind, BidiErrorKind::InvalidArgument);
    }

    #[test]
    fn messages_without_a_type_are_classified_by_their_fields() {
        assert!(matches!(
            decode_message(r#"{"id":1,"result":{}}"#),
            Ok(BrowserToClient::Success { id: 1, .. })
        ));
        assert!(matches!(
            decode_message(r#"{"id":2,"error":"unknown command","message":"nope"}"#),
            Ok(BrowserToClient::Error { id: Some(2), .. })
        ));
        assert!(matches!(
            decode_message(r#"{"method":"a.b","params":{}}"#),
            Ok(BrowserToClient::Event { .. })
        ));
    }

    #[test]
    fn unreadable_messages_are_protocol_errors_not_panics() {
        for text in [
            "",
            "not json",
            "[1,2]",
            "42",
            r#"{"type":"success","result":{}}"#,
            r#"{"type":"weird"}"#,
            "{}",
        ] {
            let decoded = decode_message(text);
            assert!(
                matches!(&decoded, Err(error) if error.kind == BidiErrorKind::Protocol),
                "{text:?} decoded as {decoded:?}"
            );
        }
    }

    #[test]
    fn remote_error_codes_map_to_allwright_tool_error_codes() {
        let table = [
            ("invalid argument", "invalid_arguments"),
            ("no such frame", "frame_not_found"),
            ("no such node", "ref_not_found"),
            ("stale element reference", "ref_not_found"),
            ("javascript error", "script_failed"),
            ("timeout", "timeout"),
            ("unknown error", "script_failed"),
            ("a code from a future browser", "script_failed"),
        ];
        for (remote_code, tool_code) in table {
            assert_eq!(
                BidiErrorKind::from_remote_code(remote_code).tool_error_code(),
                tool_code,
                "{remote_code}"
            );
        }
        assert_eq!(
            BidiErrorKind::ConnectionClosed.tool_error_code(),
            "not_connected"
        );
    }

    #[test]
    fn errors_display_their_code_and_message() {
        let error = BidiError::from_remote("no such frame", "gone");
        assert_eq!(error.to_string(), "BiDi error: no such frame: gone");
    }
}
