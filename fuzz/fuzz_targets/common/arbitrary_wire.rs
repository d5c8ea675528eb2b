//! Arbitrary messages of the host's two hops (src/wire.rs), for the targets that compile the wire
//! types as they are (`wire_messages`, `host_relay`). Each is built from arbitrary parts: texts
//! with any Unicode, any JSON arguments and results, any tool access.

use arbitrary::{Result, Unstructured};
use serde_json::{json, Value};

use crate::arbitrary_json::arbitrary_value;
use crate::tools::{Tier, ToolAccess};
use crate::wire::{ClientToHost, HostToClient, HostToExtension, ToolResultMessage};

pub fn arbitrary_access(input: &mut Unstructured) -> Result<ToolAccess> {
    let tier = *input.choose(&[Tier::Ask, Tier::Compact, Tier::Mid, Tier::Full])?;
    // Built as the wire reads it, not through `ToolAccess::new`: a hand-written message may say
    // `{"tier": "ask", "dev": true}`, and that must round-trip too.
    Ok(ToolAccess {
        tier,
        dev: input.arbitrary()?,
    })
}

fn optional_access(input: &mut Unstructured) -> Result<Option<ToolAccess>> {
    Ok(if input.arbitrary()? {
        Some(arbitrary_access(input)?)
    } else {
        None
    })
}

fn optional_value(input: &mut Unstructured) -> Result<Option<Value>> {
    Ok(if input.arbitrary()? {
        Some(arbitrary_value(input)?)
    } else {
        None
    })
}

pub fn arbitrary_result(input: &mut Unstructured) -> Result<ToolResultMessage> {
    Ok(ToolResultMessage {
        id: input.arbitrary()?,
        ok: input.arbitrary()?,
        result: optional_value(input)?,
        error: optional_value(input)?,
    })
}

pub fn arbitrary_client_to_host(input: &mut Unstructured) -> Result<ClientToHost> {
    Ok(if input.arbitrary()? {
        ClientToHost::Call {
            id: input.arbitrary()?,
            tool: input.arbitrary()?,
            arguments: arbitrary_value(input)?,
            access: optional_access(input)?,
            wait_ms: input.arbitrary()?,
        }
    } else {
        ClientToHost::Session {
            access: arbitrary_access(input)?,
            client: input.arbitrary()?,
            allow_file_urls: input.arbitrary()?,
            browser_bridge: input.arbitrary()?,
        }
    })
}

pub fn arbitrary_host_to_client(input: &mut Unstructured) -> Result<HostToClient> {
    Ok(match input.int_in_range(0..=3)? {
        0 => HostToClient::Ready {
            browser: input.arbitrary()?,
            extension_version: input.arbitrary()?,
        },
        1 => HostToClient::Busy {
            message: input.arbitrary()?,
        },
        2 => HostToClient::Result(arbitrary_result(input)?),
        _ => HostToClient::Access {
            access: arbitrary_access(input)?,
        },
    })
}

pub fn arbitrary_host_to_extension(input: &mut Unstructured) -> Result<HostToExtension> {
    Ok(match input.int_in_range(0..=3)? {
        0 => HostToExtension::Call {
            id: input.arbitrary()?,
            tool: input.arbitrary()?,
            arguments: arbitrary_value(input)?,
            access: optional_access(input)?,
            budget_ms: input.arbitrary()?,
        },
        1 => HostToExtension::Session {
            access: arbitrary_access(input)?,
            client: input.arbitrary()?,
            allow_file_urls: input.arbitrary()?,
            browser_bridge: input.arbitrary()?,
        },
        2 => HostToExtension::SessionEnded,
        _ => HostToExtension::Chunk {
            id: input.arbitrary()?,
            index: input.arbitrary()?,
            count: input.arbitrary()?,
            data: input.arbitrary()?,
        },
    })
}

/// An extension message as the extension writes it (the host only reads these, so they are
/// JSON built by hand from docs/protocol.md's shapes).
pub fn arbitrary_extension_to_host_json(input: &mut Unstructured) -> Result<Value> {
    Ok(match input.int_in_range(0..=2)? {
        0 => {
            let mut hello = json!({
                "type": "hello",
                "browser": input.arbitrary::<String>()?,
                "extensionVersion": input.arbitrary::<String>()?,
            });
            if let Some(protocol) = input.arbitrary::<Option<u32>>()? {
                hello["protocol"] = json!(protocol);
            }
            hello
        }
        1 => {
            let result = arbitrary_result(input)?;
            let mut value = serde_json::to_value(&result).expect("a result is JSON");
            value["type"] = json!("result");
            value
        }
        _ => json!({"type": "access", "access": arbitrary_access(input)?}),
    })
}
