//! The WebDriver BiDi message decoder (crates/allwright-surface-web/src/bidi/protocol.rs) on any
//! text a browser's WebSocket could deliver, and on well-formed messages built from arbitrary
//! parts. Properties: no panic; any text decodes to exactly one of success, error or event, or to
//! a protocol error; a decoded id is the message's own numeric `id` (a response is never matched
//! to another command); a well-formed success, error or event decodes back to its parts; an
//! encoded command reads back as its id, method and parameters.

#![no_main]

use arbitrary::{Arbitrary, Result as ArbitraryResult, Unstructured};
use libfuzzer_sys::fuzz_target;
use serde_json::{json, Map, Value};

#[path = "../../crates/allwright-surface-web/src/bidi/protocol.rs"]
#[allow(dead_code)]
mod protocol;

#[path = "common/arbitrary_json.rs"]
mod arbitrary_json;

use protocol::{decode_message, encode_command, BidiErrorKind, BrowserToClient};

/// A message as the remote end would write it, from arbitrary parts.
#[derive(Debug)]
enum WellFormed {
    Success {
        id: u64,
        result: Value,
        with_type: bool,
    },
    Error {
        id: Option<u64>,
        code: String,
        message: String,
        stacktrace: Option<String>,
        with_type: bool,
    },
    Event {
        method: String,
        params: Value,
        with_type: bool,
    },
}

impl<'a> Arbitrary<'a> for WellFormed {
    fn arbitrary(input: &mut Unstructured<'a>) -> ArbitraryResult<Self> {
        Ok(match input.int_in_range(0..=2)? {
            0 => Self::Success {
                id: input.arbitrary()?,
                result: arbitrary_json::arbitrary_value(input)?,
                with_type: input.arbitrary()?,
            },
            1 => Self::Error {
                id: input.arbitrary()?,
                code: input.arbitrary()?,
                message: input.arbitrary()?,
                stacktrace: input.arbitrary()?,
                with_type: input.arbitrary()?,
            },
            _ => Self::Event {
                method: input.arbitrary()?,
                params: arbitrary_json::arbitrary_value(input)?,
                with_type: input.arbitrary()?,
            },
        })
    }
}

#[derive(Arbitrary, Debug)]
enum Input {
    /// Any text the WebSocket could carry.
    Text(String),
    /// A message the remote end could write.
    WellFormed(WellFormed),
    /// A command allwright writes.
    Command {
        id: u64,
        method: String,
        params: ArbitraryParams,
    },
}

#[derive(Debug)]
struct ArbitraryParams(Value);

impl<'a> Arbitrary<'a> for ArbitraryParams {
    fn arbitrary(input: &mut Unstructured<'a>) -> ArbitraryResult<Self> {
        arbitrary_json::arbitrary_value(input).map(Self)
    }
}

fuzz_target!(|input: Input| {
    match input {
        Input::Text(text) => check_any_text(&text),
        Input::WellFormed(message) => check_well_formed(message),
        Input::Command { id, method, params } => check_command(id, &method, params.0),
    }
});

fn check_any_text(text: &str) {
    let decoded = decode_message(text);
    let object = serde_json::from_str::<Value>(text)
        .ok()
        .and_then(|value| value.as_object().cloned());
    match decoded {
        Ok(BrowserToClient::Success { id, result }) => {
            let object = object.expect("a success decoded from a JSON object");
            assert_eq!(object.get("id").and_then(Value::as_u64), Some(id));
            assert_eq!(object.get("result"), Some(&result));
        }
        Ok(BrowserToClient::Error { id, error }) => {
            let object = object.expect("an error decoded from a JSON object");
            assert_eq!(object.get("id").and_then(Value::as_u64), id);
            assert!(object.contains_key("error"));
            assert_eq!(
                error.kind,
                BidiErrorKind::from_remote_code(&error.code),
                "a remote error's kind follows its code"
            );
        }
        Ok(BrowserToClient::Event { method, params }) => {
            let object = object.expect("an event decoded from a JSON object");
            assert!(object.contains_key("method"));
            assert_eq!(
                object
                    .get("method")
                    .and_then(Value::as_str)
                    .unwrap_or_default(),
                method
            );
            assert_eq!(object.get("params").cloned().unwrap_or(Value::Null), params);
        }
        Err(error) => assert_eq!(error.kind, BidiErrorKind::Protocol, "{error}"),
    }
}

fn check_well_formed(message: WellFormed) {
    match message {
        WellFormed::Success {
            id,
            result,
            with_type,
        } => {
            let mut object = Map::new();
            if with_type {
                object.insert("type".into(), json!("success"));
            }
            object.insert("id".into(), json!(id));
            object.insert("result".into(), result.clone());
            let decoded = decode_message(&Value::Object(object).to_string());
            assert_eq!(decoded, Ok(BrowserToClient::Success { id, result }));
        }
        WellFormed::Error {
            id,
            code,
            message,
            stacktrace,
            with_type,
        } => {
            let mut object = Map::new();
            if with_type {
                object.insert("type".into(), json!("error"));
            }
            object.insert("id".into(), json!(id));
            object.insert("error".into(), json!(code));
            object.insert("message".into(), json!(message));
            if let Some(stacktrace) = &stacktrace {
                object.insert("stacktrace".into(), json!(stacktrace));
            }
            let decoded = decode_message(&Value::Object(object).to_string());
            let Ok(BrowserToClient::Error {
                id: decoded_id,
                error,
            }) = decoded
            else {
                panic!("a well-formed error decoded as {decoded:?}")
            };
            assert_eq!(decoded_id, id);
            assert_eq!(error.code, code);
            assert_eq!(error.message, message);
            assert_eq!(error.stacktrace, stacktrace);
            assert_eq!(error.kind, BidiErrorKind::from_remote_code(&code));
        }
        WellFormed::Event {
            method,
            params,
            with_type,
        } => {
            let mut object = Map::new();
            if with_type {
                object.insert("type".into(), json!("event"));
            }
            object.insert("method".into(), json!(method));
            object.insert("params".into(), params.clone());
            let decoded = decode_message(&Value::Object(object).to_string());
            assert_eq!(decoded, Ok(BrowserToClient::Event { method, params }));
        }
    }
}

fn check_command(id: u64, method: &str, params: Value) {
    let text = encode_command(id, method, params.clone());
    let value: Value = serde_json::from_str(&text).expect("a command is JSON");
    assert_eq!(value["id"].as_u64(), Some(id));
    assert_eq!(value["method"].as_str(), Some(method));
    let expected_params = if params.is_null() { json!({}) } else { params };
    assert_eq!(value["params"], expected_params);
}
