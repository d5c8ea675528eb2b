//! The MCP side of the table: each tool's arguments as the JSON Schema (draft 2020-12) that
//! `tools/list` publishes. `validation.rs` enforces the same limits on every call.

use serde_json::{json, Map, Value};

use super::definition::{Argument, ArgumentKind, ToolDefinition, ELEMENT_REFERENCE_PATTERN};
use super::keys::{MAX_KEY_NAME_CHARS, MODIFIER_KEYS};

impl ToolDefinition {
    /// The JSON Schema of the tool's arguments (draft 2020-12, what MCP clients expect).
    pub fn input_schema(&self) -> Map<String, Value> {
        object_schema(self.arguments)
    }
}

/// The JSON Schema of an object with these members: a tool's arguments, or an item of an
/// [`ArgumentKind::ObjectList`].
fn object_schema(arguments: &[Argument]) -> Map<String, Value> {
    let mut properties = Map::new();
    for argument in arguments {
        let mut schema = argument.kind.schema();
        schema["description"] = json!(argument.description);
        if let Some(default) = argument.default {
            schema["default"] = default.to_value();
        }
        properties.insert(argument.name.to_owned(), schema);
    }
    let required: Vec<&str> = arguments
        .iter()
        .filter(|argument| argument.required)
        .map(|argument| argument.name)
        .collect();
    let mut schema = Map::new();
    schema.insert("type".into(), json!("object"));
    schema.insert("properties".into(), Value::Object(properties));
    if !required.is_empty() {
        schema.insert("required".into(), json!(required));
    }
    schema.insert("additionalProperties".into(), json!(false));
    schema
}

impl ArgumentKind {
    /// This kind as JSON Schema; `validation.rs` enforces the same limits.
    fn schema(&self) -> Value {
        match self {
            ArgumentKind::Choice(choices) => json!({"type": "string", "enum": choices}),
            ArgumentKind::Integer { minimum, maximum } => {
                json!({"type": "integer", "minimum": minimum, "maximum": maximum})
            }
            ArgumentKind::Number { minimum, maximum } => {
                json!({"type": "number", "minimum": minimum, "maximum": maximum})
            }
            ArgumentKind::Boolean => json!({"type": "boolean"}),
            ArgumentKind::Text {
                min_chars,
                max_chars,
            } => {
                let mut schema = json!({"type": "string", "maxLength": max_chars});
                if *min_chars > 0 {
                    schema["minLength"] = json!(min_chars);
                }
                schema
            }
            ArgumentKind::KeyName => {
                json!({"type": "string", "minLength": 1, "maxLength": MAX_KEY_NAME_CHARS})
            }
            ArgumentKind::ModifierList => json!({
                "type": "array",
                "items": {"type": "string", "enum": MODIFIER_KEYS},
                "uniqueItems": true
            }),
            ArgumentKind::ElementReference => {
                json!({"type": "string", "pattern": ELEMENT_REFERENCE_PATTERN})
            }
            ArgumentKind::NavigableUrl => {
                json!({"type": "string", "pattern": "^(https?://|file://|about:blank$)"})
            }
            ArgumentKind::TextList {
                min_items,
                max_items,
                max_chars,
            } => json!({
                "type": "array",
                "minItems": min_items,
                "maxItems": max_items,
                "items": {"type": "string", "minLength": 1, "maxLength": max_chars},
                "uniqueItems": true
            }),
            // `distinct_field` has no JSON Schema keyword (`uniqueItems` compares whole items):
            // validation.rs and the extension check it.
            ArgumentKind::ObjectList {
                min_items,
                max_items,
                fields,
                distinct_field: _,
            } => json!({
                "type": "array",
                "minItems": min_items,
                "maxItems": max_items,
                "items": Value::Object(object_schema(fields)),
            }),
            ArgumentKind::Object { fields } => Value::Object(object_schema(fields)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::find_tool;
    use super::super::table::TOOLS;
    use super::*;

    #[test]
    fn schemas_describe_every_argument() {
        for tool in TOOLS {
            let schema = tool.input_schema();
            assert_eq!(schema["type"], "object");
            assert_eq!(schema["additionalProperties"], false);
            for argument in tool.arguments {
                assert!(
                    schema["properties"][argument.name]["description"].is_string(),
                    "{} {}",
                    tool.name,
                    argument.name
                );
            }
            // docs/protocol.md: every tool takes tabId, except list_tabs, which lists them all,
            // and the downloads tools, which read the agent's downloads of every tab.
            assert_eq!(
                schema["properties"]["tabId"].is_object(),
                !matches!(tool.name, "list_tabs" | "list_downloads" | "get_download"),
                "{} and tabId",
                tool.name
            );
        }
        let navigate = find_tool("navigate").expect("navigate").input_schema();
        assert_eq!(navigate["required"], json!(["url"]));
    }

    fn property(tool: &str, argument: &str) -> Value {
        let mut schema = find_tool(tool).expect("known tool").input_schema();
        let mut property = schema["properties"][argument].take();
        assert!(
            property["description"]
                .as_str()
                .is_some_and(|text| !text.is_empty()),
            "{tool} {argument}"
        );
        property
            .as_object_mut()
            .expect("a property schema")
            .remove("description");
        property
    }

    #[test]
    fn schemas_of_the_action_arguments() {
        assert_eq!(
            property("type_ax", "clear"),
            json!({"type": "boolean", "default": true})
        );
        assert_eq!(
            property("set_field", "submit"),
            json!({"type": "boolean", "default": false})
        );
        assert_eq!(
            property("type_ax", "text"),
            json!({"type": "string", "maxLength": 50_000})
        );
        assert_eq!(
            property("select_option", "label"),
            json!({"type": "string", "minLength": 1, "maxLength": 1_000})
        );
        assert_eq!(
            property("press_key", "key"),
            json!({"type": "string", "minLength": 1, "maxLength": 32})
        );
        assert_eq!(
            property("press_key", "modifiers"),
            json!({
                "type": "array",
                "items": {"type": "string", "enum": ["Alt", "Control", "Meta", "Shift"]},
                "uniqueItems": true,
                "default": []
            })
        );
        assert_eq!(
            property("scroll", "direction"),
            json!({"type": "string", "enum": ["up", "down", "left", "right"], "default": "down"})
        );
        assert_eq!(
            property("scroll", "amount"),
            json!({"type": "integer", "minimum": 1, "maximum": 100_000})
        );
        assert_eq!(
            property("click_ax", "ref_id"),
            json!({"type": "string", "pattern": "^ref_[0-9]+$"})
        );
        assert_eq!(
            property("click_ax", "frameId"),
            json!({"type": "integer", "minimum": 0, "maximum": 9_007_199_254_740_991_i64})
        );
        assert_eq!(
            property("new_tab", "url"),
            json!({"type": "string", "pattern": "^(https?://|file://|about:blank$)", "default": "about:blank"})
        );
        assert_eq!(
            property("wait_for_stable", "quietMs"),
            json!({"type": "integer", "minimum": 100, "maximum": 10_000, "default": 500})
        );
        let required = |tool: &str| {
            let schema = find_tool(tool).expect("known tool").input_schema();
            schema.get("required").cloned().unwrap_or(Value::Null)
        };
        for tool in ["click_ax", "hover", "select_option"] {
            assert_eq!(required(tool), json!(["ref_id"]), "{tool}");
        }
        for tool in ["type_ax", "set_field"] {
            assert_eq!(required(tool), json!(["ref_id", "text"]), "{tool}");
        }
        assert_eq!(required("press_key"), json!(["key"]));
        assert_eq!(required("fill_form"), json!(["fields"]));
        let mut fields = property("fill_form", "fields");
        let mut item = fields["items"].take();
        for field in ["ref_id", "value"] {
            let described = item["properties"][field]
                .as_object_mut()
                .and_then(|property| property.remove("description"));
            assert!(
                described.is_some_and(|text| text.as_str().is_some_and(|text| !text.is_empty()))
            );
        }
        assert_eq!(
            fields,
            json!({"type": "array", "minItems": 1, "maxItems": 50, "items": null})
        );
        assert_eq!(
            item,
            json!({
                "type": "object",
                "properties": {
                    "ref_id": {"type": "string", "pattern": "^ref_[0-9]+$"},
                    "value": {"type": "string", "maxLength": 50_000},
                },
                "required": ["ref_id", "value"],
                "additionalProperties": false,
            })
        );
        assert_eq!(required("select_tab"), json!(["tabId"]));
        for tool in [
            "scroll",
            "go_back",
            "go_forward",
            "reload",
            "wait_for_stable",
            "list_tabs",
            "new_tab",
            "close_tab",
        ] {
            assert_eq!(required(tool), Value::Null, "{tool} needs nothing");
        }
        // The action tools that point at elements take frameId; the tab tools do not.
        // execute_js runs in a frame without pointing at an element.
        for tool in TOOLS.iter().filter(|tool| tool.name != "execute_js") {
            // fill_form's refs are inside its list of fields.
            let takes_a_ref = tool.arguments.iter().any(|argument| {
                argument.name == "ref_id"
                    || argument.name == "from_ref"
                    || matches!(argument.kind, ArgumentKind::ObjectList { fields, .. }
                        if fields.iter().any(|field| field.name == "ref_id"))
            });
            let takes_a_frame = tool
                .arguments
                .iter()
                .any(|argument| argument.name == "frameId");
            assert_eq!(takes_a_ref, takes_a_frame, "{}", tool.name);
        }
    }
}
