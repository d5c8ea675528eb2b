//! Reading allwright's MCP replies back into objects, for the tests (docs/protocol/tools.md, "Replies";
//! src/mcp_reply.rs). A reply is one text block and no `structuredContent`: compact JSON, or for
//! a tree read a JSON header line followed by the tree text. [`reply_value`] turns either back
//! into one object (the tree under `tree`), the way the tests read results before replies were
//! shortened. Test binaries include this file with `#[path]`.

use std::sync::OnceLock;

use rmcp::model::CallToolResult;
use serde_json::{json, Map, Value};

/// The argument that asks for the whole result object instead of the short reply.
pub const VERBOSE_ARGUMENT: &str = "verbose";

/// The object a reply carries: its first text block parsed as JSON, or, when the text holds a
/// newline (compact JSON never does), the header line's object with the rest as `tree`. Null
/// when there is no text block or it is not JSON.
pub fn reply_value(result: &CallToolResult) -> Value {
    let Some(text) = result
        .content
        .iter()
        .find_map(|block| block.as_text().map(|text| text.text.as_str()))
    else {
        return Value::Null;
    };
    reply_text_value(text)
}

/// [`reply_value`] of a reply's text.
pub fn reply_text_value(text: &str) -> Value {
    match text.split_once('\n') {
        Some((header, tree)) => match serde_json::from_str::<Value>(header) {
            Ok(Value::Object(mut object)) => {
                object.insert("tree".to_owned(), json!(tree));
                Value::Object(object)
            }
            _ => Value::Null,
        },
        None => serde_json::from_str(text).unwrap_or(Value::Null),
    }
}

/// Whether `tool` takes `verbose`, as the generated tool contract says
/// (`extension/shared/tool-contract.json`, written from src/tools/table.rs by the build).
pub fn takes_verbose(tool: &str) -> bool {
    static TOOLS_WITH_VERBOSE: OnceLock<Vec<String>> = OnceLock::new();
    TOOLS_WITH_VERBOSE
        .get_or_init(|| {
            let path = concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/extension/shared/tool-contract.json"
            );
            let contract: Value = serde_json::from_str(
                &std::fs::read_to_string(path).expect("the tool contract (run ./scripts/build)"),
            )
            .expect("the tool contract is JSON");
            contract["tools"]
                .as_object()
                .map(|tools| {
                    tools
                        .iter()
                        .filter(|(_, tool)| tool["arguments"].get(VERBOSE_ARGUMENT).is_some())
                        .map(|(name, _)| name.clone())
                        .collect()
                })
                .unwrap_or_default()
        })
        .iter()
        .any(|name| name == tool)
}

/// `arguments` with `verbose` set to `verbose` when the tool takes it and the caller did not
/// choose already.
pub fn with_verbose(tool: &str, arguments: Value, verbose: bool) -> Value {
    let mut object: Map<String, Value> = match arguments {
        Value::Object(object) => object,
        other => return other,
    };
    if takes_verbose(tool) && !object.contains_key(VERBOSE_ARGUMENT) {
        object.insert(VERBOSE_ARGUMENT.to_owned(), Value::Bool(verbose));
    }
    Value::Object(object)
}
