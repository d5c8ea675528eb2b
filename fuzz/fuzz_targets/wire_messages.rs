//! The messages of the host's two hops (src/wire.rs) and their framing toward the browser
//! (src/native_messaging.rs), compiled as they are with the tool errors and the tool table they
//! name. Properties: no panic on any bytes read as any message; every message the host writes or
//! reads on the socket reads back as itself (`decode(encode(m)) == m`, where JSON `null` and a
//! missing field are the one value the wire cannot tell apart); a message the extension writes
//! reads as the message its JSON says, with its ids; a message toward the browser framed by
//! `encode_for_browser`, one frame or a series of chunks under the browser's 1 MiB limit, reads
//! back as its JSON; a failure outcome always becomes a structured error.

#![no_main]

use arbitrary::{Arbitrary, Result as ArbitraryResult, Unstructured};
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

#[path = "../../src/wire.rs"]
#[allow(dead_code)]
mod wire;

#[path = "../../src/tool_error.rs"]
#[allow(dead_code)]
mod tool_error;

#[path = "../../src/tools"]
#[allow(dead_code)]
mod tools {
    mod definition;
    mod table;
    mod tiers;
    pub use tiers::{tool_named, Tier, ToolAccess};
}

#[path = "../../src"]
#[allow(dead_code, unused_imports)]
mod host_side {
    pub mod native_messaging;
}

#[path = "common/arbitrary_json.rs"]
mod arbitrary_json;

#[path = "common/arbitrary_wire.rs"]
mod arbitrary_wire;

use host_side::native_messaging::encode_for_browser;
use wire::{ClientToHost, ExtensionToHost, HostToClient, HostToExtension, ToolResultMessage};

/// The browser refuses a native message from the host larger than 1 MiB.
const BROWSER_LIMIT_BYTES: usize = 1024 * 1024;

#[derive(Debug)]
enum Input {
    AnyBytes(Vec<u8>),
    ClientToHost(ClientToHost),
    HostToClient(HostToClient),
    ExtensionToHost(Value),
    /// With `large`, the call's arguments are padded past the chunking threshold.
    HostToExtension {
        message: HostToExtension,
        large: bool,
    },
    Outcome(ToolResultMessage),
}

impl<'a> Arbitrary<'a> for Input {
    fn arbitrary(input: &mut Unstructured<'a>) -> ArbitraryResult<Self> {
        Ok(match input.int_in_range(0..=5)? {
            0 => Self::AnyBytes(input.arbitrary()?),
            1 => Self::ClientToHost(arbitrary_wire::arbitrary_client_to_host(input)?),
            2 => Self::HostToClient(arbitrary_wire::arbitrary_host_to_client(input)?),
            3 => Self::ExtensionToHost(arbitrary_wire::arbitrary_extension_to_host_json(input)?),
            4 => Self::HostToExtension {
                message: arbitrary_wire::arbitrary_host_to_extension(input)?,
                // Rarely (one byte value in 256; an exhausted input reads as 0): a large message
                // takes milliseconds to frame.
                large: input.arbitrary::<u8>()? == 0xA5,
            },
            _ => Self::Outcome(arbitrary_wire::arbitrary_result(input)?),
        })
    }
}

fuzz_target!(|input: Input| {
    match input {
        Input::AnyBytes(bytes) => {
            let _ = serde_json::from_slice::<ExtensionToHost>(&bytes);
            let _ = serde_json::from_slice::<ClientToHost>(&bytes);
            let _ = serde_json::from_slice::<HostToClient>(&bytes);
        }
        Input::ClientToHost(message) => {
            let text = serde_json::to_string(&message).expect("a message is JSON");
            let read: ClientToHost = serde_json::from_str(&text).expect("reads back");
            assert_eq!(read, message);
        }
        Input::HostToClient(message) => {
            let text = serde_json::to_string(&message).expect("a message is JSON");
            let read: HostToClient = serde_json::from_str(&text).expect("reads back");
            assert_eq!(read, without_null_results(message));
        }
        Input::ExtensionToHost(json) => check_extension_message(&json),
        Input::HostToExtension { message, large } => {
            check_framing_toward_the_browser(padded(message, large))
        }
        Input::Outcome(result) => {
            let ok = result.ok;
            let id = result.id.clone();
            let expected_success = result
                .result
                .clone()
                .unwrap_or(Value::Object(Default::default()));
            match result.into_outcome() {
                Ok(value) => {
                    assert!(ok);
                    assert_eq!(value, expected_success);
                }
                Err(error) => {
                    assert!(!ok);
                    assert!(!error.code.is_empty());
                    // Back on the wire as a failure of the same call.
                    let again = ToolResultMessage::from_outcome(id.clone(), Err(error));
                    assert_eq!(again.id, id);
                    assert!(!again.ok && again.error.is_some() && again.result.is_none());
                }
            }
        }
    }
});

/// JSON `null` in an optional field reads back as the field missing.
fn without_null_results(message: HostToClient) -> HostToClient {
    match message {
        HostToClient::Result(mut result) => {
            result.result = result.result.filter(|value| !value.is_null());
            result.error = result.error.filter(|value| !value.is_null());
            HostToClient::Result(result)
        }
        other => other,
    }
}

fn check_extension_message(json: &Value) {
    let read: ExtensionToHost = serde_json::from_value(json.clone())
        .unwrap_or_else(|error| panic!("{json} does not read: {error}"));
    match read {
        ExtensionToHost::Hello {
            browser,
            extension_version,
            protocol,
        } => {
            assert_eq!(json["type"], "hello");
            assert_eq!(json["browser"], browser.as_str());
            assert_eq!(json["extensionVersion"], extension_version.as_str());
            assert_eq!(
                json.get("protocol").and_then(Value::as_u64),
                protocol.map(u64::from)
            );
        }
        ExtensionToHost::Result(result) => {
            assert_eq!(json["type"], "result");
            assert_eq!(json["id"], result.id.as_str());
            assert_eq!(json["ok"], result.ok);
            assert_eq!(
                json.get("result").filter(|value| !value.is_null()),
                result.result.as_ref()
            );
        }
        ExtensionToHost::Access { access } => {
            assert_eq!(json["type"], "access");
            assert_eq!(json["access"], serde_json::to_value(access).expect("json"));
        }
    }
}

/// Pads a call's arguments past the chunking threshold when `large`.
fn padded(message: HostToExtension, large: bool) -> HostToExtension {
    match message {
        HostToExtension::Call {
            id,
            tool,
            arguments,
            access,
            budget_ms,
        } if large => HostToExtension::Call {
            id,
            tool,
            arguments: serde_json::json!({"padding": "\"é😀\\".repeat(60_000), "arguments": arguments}),
            access,
            budget_ms,
        },
        other => other,
    }
}

fn check_framing_toward_the_browser(message: HostToExtension) {
    let expected = serde_json::to_value(&message).expect("a message is JSON");
    let mut framed = encode_for_browser(&message, "series").expect("frames");
    let mut payloads = Vec::new();
    while !framed.is_empty() {
        let length = u32::from_ne_bytes(framed[..4].try_into().expect("a length")) as usize;
        assert!(length < BROWSER_LIMIT_BYTES, "a frame of {length} bytes");
        let payload: Value =
            serde_json::from_slice(&framed[4..4 + length]).expect("a frame is JSON");
        payloads.push(payload);
        framed.drain(..4 + length);
    }
    if payloads.len() == 1 && payloads[0] == expected {
        return;
    }
    // A series of chunks: indexes in order, one count, one id, the slices joining into the JSON.
    let count = payloads.len();
    assert!(count > 1, "one frame that is not the message");
    let mut joined = String::new();
    for (index, chunk) in payloads.iter().enumerate() {
        assert_eq!(chunk["type"], "chunk");
        assert_eq!(chunk["id"], "series");
        assert_eq!(chunk["index"].as_u64(), Some(index as u64));
        assert_eq!(chunk["count"].as_u64(), Some(count as u64));
        joined.push_str(chunk["data"].as_str().expect("a chunk's data"));
    }
    let reassembled: Value = serde_json::from_str(&joined).expect("the chunks join into JSON");
    assert_eq!(reassembled, expected);
}
