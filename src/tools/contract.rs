//! The extension's copy of the tool contract: `extension/shared/tool-contract.json`, generated
//! from the table and checked in (rust-analyzer's "sourcegen" style). The extension's background
//! validates every call against it before anything touches a tab; a host test fails when the
//! checked-in file differs from what this module writes, and says how to rewrite it.
//!
//! The format (docs/agent-tools.md, "The tool contract file"): per tool `readOnly`,
//! `destructive`, `tiers`, `devTiers`, `arguments` (each with `type` and, where they apply,
//! `required`, `format`, `enum`, `minimum`, `maximum`, `minLength`, `maxLength`, `pattern`,
//! `default`, `example`), `exactlyOneOf`, `atLeastOneOf`, `onlyWith` and `requiredWhen`. Keys keep that order so the file
//! reads the same way in every tool and diffs stay small; each argument fits on one line.

use serde_json::{json, Value};

use super::definition::{
    Argument, ArgumentKind, ArgumentRule, ToolDefinition, ELEMENT_REFERENCE_PATTERN,
};
use super::keys::{MAX_KEY_NAME_CHARS, MODIFIER_KEYS};
use super::table::TOOLS;
use super::tiers::Tier;

/// Where the contract says it comes from and how to rewrite it.
const GENERATED_FROM: &str = "src/tools/table.rs (cargo run -- tool-contract > extension/shared/tool-contract.json); do not edit";

/// A JSON object whose keys keep the order they were added in (serde_json's `Map` sorts them).
type OrderedObject = Vec<(&'static str, Value)>;

/// The whole contract file, with its trailing newline.
pub fn tool_contract_json() -> String {
    let mut text = String::from("{\n");
    text.push_str(&format!(
        "  \"generatedFrom\": {},\n",
        json!(GENERATED_FROM)
    ));
    text.push_str("  \"tools\": {\n");
    // The browser bridge's tools are answered by the MCP server itself; the extension never
    // receives them, so its contract does not list them.
    let tools: Vec<String> = TOOLS
        .iter()
        .filter(|tool| !tool.availability.needs_browser_bridge)
        .map(tool_entry)
        .collect();
    text.push_str(&tools.join(",\n"));
    text.push_str("\n  }\n}\n");
    text
}

/// One tool, indented four spaces, its arguments one per line.
fn tool_entry(tool: &ToolDefinition) -> String {
    let tier_names = |tiers: &[Tier]| -> Value {
        Value::Array(tiers.iter().map(|tier| json!(tier.name())).collect())
    };
    let mut lines = vec![
        format!("\"readOnly\": {}", tool.read_only),
        format!("\"destructive\": {}", tool.destructive),
        format!(
            "\"tiers\": {}",
            inline(&tier_names(tool.availability.tiers))
        ),
        format!(
            "\"devTiers\": {}",
            inline(&tier_names(tool.availability.dev_only_tiers))
        ),
    ];
    if tool.arguments.is_empty() {
        lines.push("\"arguments\": {}".to_owned());
    } else {
        let arguments: Vec<String> = tool
            .arguments
            .iter()
            .map(|argument| {
                format!(
                    "        {}: {}",
                    json!(argument.name),
                    rendered_object(&argument_rule(argument))
                )
            })
            .collect();
        lines.push(format!(
            "\"arguments\": {{\n{}\n      }}",
            arguments.join(",\n")
        ));
    }
    let mut exactly_one_of = Vec::new();
    let mut at_least_one_of = Vec::new();
    let mut only_with = Vec::new();
    let mut required_when = Vec::new();
    for rule in tool.rules {
        match rule {
            ArgumentRule::ExactlyOneOf { arguments, .. } => exactly_one_of.push(json!(arguments)),
            ArgumentRule::AtLeastOneOf { arguments, .. } => at_least_one_of.push(json!(arguments)),
            ArgumentRule::OnlyWith {
                argument,
                with_argument,
                ..
            } => only_with.push(inline_object(&vec![
                ("argument", json!(argument)),
                ("with", json!(with_argument)),
            ])),
            ArgumentRule::RequiredWhen {
                argument,
                when_argument,
                equals,
                ..
            } => required_when.push(inline_object(&vec![
                ("argument", json!(argument)),
                ("when", json!({ *when_argument: equals })),
            ])),
        }
    }
    lines.push(format!(
        "\"exactlyOneOf\": {}",
        inline(&Value::Array(exactly_one_of))
    ));
    lines.push(format!(
        "\"atLeastOneOf\": {}",
        inline(&Value::Array(at_least_one_of))
    ));
    lines.push(format!("\"onlyWith\": [{}]", only_with.join(", ")));
    lines.push(format!("\"requiredWhen\": [{}]", required_when.join(", ")));
    let body: Vec<String> = lines.iter().map(|line| format!("      {line}")).collect();
    format!("    {}: {{\n{}\n    }}", json!(tool.name), body.join(",\n"))
}

/// One argument's rule, keys in the contract's order, each value written on one line.
fn argument_rule(argument: &Argument) -> Vec<(&'static str, String)> {
    let mut rule: Vec<(&'static str, String)> = Vec::new();
    let type_name = match argument.kind {
        ArgumentKind::Integer { .. } => "integer",
        ArgumentKind::Number { .. } => "number",
        ArgumentKind::Boolean => "boolean",
        ArgumentKind::ModifierList
        | ArgumentKind::TextList { .. }
        | ArgumentKind::ObjectList { .. } => "array",
        ArgumentKind::Object { .. } => "object",
        ArgumentKind::Choice(_)
        | ArgumentKind::Text { .. }
        | ArgumentKind::KeyName
        | ArgumentKind::ElementReference
        | ArgumentKind::NavigableUrl => "string",
    };
    push(&mut rule, "type", json!(type_name));
    if argument.required {
        push(&mut rule, "required", json!(true));
    }
    match &argument.kind {
        ArgumentKind::Choice(choices) => push(&mut rule, "enum", json!(choices)),
        ArgumentKind::Integer { minimum, maximum } => {
            push(&mut rule, "minimum", json!(minimum));
            push(&mut rule, "maximum", json!(maximum));
        }
        ArgumentKind::Number { minimum, maximum } => {
            push(&mut rule, "minimum", json!(minimum));
            push(&mut rule, "maximum", json!(maximum));
        }
        ArgumentKind::Boolean => {}
        ArgumentKind::Text {
            min_chars,
            max_chars,
        } => {
            if *min_chars > 0 {
                push(&mut rule, "minLength", json!(min_chars));
            }
            push(&mut rule, "maxLength", json!(max_chars));
        }
        ArgumentKind::KeyName => {
            push(&mut rule, "format", json!("keyName"));
            push(&mut rule, "minLength", json!(1));
            push(&mut rule, "maxLength", json!(MAX_KEY_NAME_CHARS));
        }
        ArgumentKind::ModifierList => push(&mut rule, "enum", json!(MODIFIER_KEYS)),
        ArgumentKind::ElementReference => {
            push(&mut rule, "pattern", json!(ELEMENT_REFERENCE_PATTERN))
        }
        ArgumentKind::NavigableUrl => push(&mut rule, "format", json!("navigableUrl")),
        // Distinct strings, each of 1 to `itemMaxLength` characters.
        ArgumentKind::TextList {
            min_items,
            max_items,
            max_chars,
        } => {
            push(&mut rule, "minItems", json!(min_items));
            push(&mut rule, "maxItems", json!(max_items));
            push(&mut rule, "itemMaxLength", json!(max_chars));
        }
        ArgumentKind::ObjectList {
            min_items,
            max_items,
            fields,
            distinct_field,
        } => {
            push(&mut rule, "minItems", json!(min_items));
            push(&mut rule, "maxItems", json!(max_items));
            if let Some(distinct) = distinct_field {
                push(&mut rule, "uniqueBy", json!(distinct));
            }
            // Each item's fields, by name, with their rules in the same order as an argument's.
            let items: Vec<(&'static str, String)> = fields
                .iter()
                .map(|field| (field.name, rendered_object(&argument_rule(field))))
                .collect();
            rule.push(("items", rendered_object(&items)));
        }
        ArgumentKind::Object { fields } => {
            let members: Vec<(&'static str, String)> = fields
                .iter()
                .map(|field| (field.name, rendered_object(&argument_rule(field))))
                .collect();
            rule.push(("properties", rendered_object(&members)));
        }
    }
    if let Some(default) = argument.default {
        push(&mut rule, "default", default.to_value());
    }
    if let Some(example) = argument.example {
        push(&mut rule, "example", example.to_value());
    }
    rule
}

/// Adds one member, its value written on one line.
fn push(rule: &mut Vec<(&'static str, String)>, key: &'static str, value: Value) {
    rule.push((key, inline(&value)));
}

/// `{"a": 1, "b": [2, 3]}` from members already written on one line, in their order.
fn rendered_object(members: &[(&'static str, String)]) -> String {
    let members: Vec<String> = members
        .iter()
        .map(|(key, value)| format!("{}: {value}", json!(key)))
        .collect();
    format!("{{{}}}", members.join(", "))
}

/// `{"a": 1, "b": [2, 3]}`: an ordered object on one line.
fn inline_object(object: &OrderedObject) -> String {
    inline_members(object.iter().map(|(key, value)| (*key, value)))
}

/// A JSON value on one line, with a space after each comma and colon as the rest of the file.
fn inline(value: &Value) -> String {
    match value {
        Value::Array(items) => {
            let items: Vec<String> = items.iter().map(inline).collect();
            format!("[{}]", items.join(", "))
        }
        Value::Object(members) => {
            inline_members(members.iter().map(|(key, value)| (key.as_str(), value)))
        }
        scalar => scalar.to_string(),
    }
}

fn inline_members<'a>(members: impl Iterator<Item = (&'a str, &'a Value)>) -> String {
    let members: Vec<String> = members
        .map(|(key, value)| format!("{}: {}", json!(key), inline(value)))
        .collect();
    format!("{{{}}}", members.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn contract() -> Value {
        serde_json::from_str(&tool_contract_json()).expect("the contract is JSON")
    }

    #[test]
    fn the_contract_lists_every_tool_with_its_keys_in_order() {
        let text = tool_contract_json();
        assert!(text.ends_with("}\n"));
        assert!(text.starts_with("{\n  \"generatedFrom\": \"src/tools/table.rs (cargo run -- tool-contract > extension/shared/tool-contract.json); do not edit\",\n  \"tools\": {\n"));
        let contract = contract();
        let tools = contract["tools"].as_object().expect("tools");
        let served_by_the_extension = TOOLS
            .iter()
            .filter(|tool| !tool.availability.needs_browser_bridge)
            .count();
        assert_eq!(tools.len(), served_by_the_extension);
        assert!(!tools.contains_key("handle_dialog"));
        let select_option = text
            .split("\"select_option\": {")
            .nth(1)
            .expect("select_option");
        let positions: Vec<usize> = [
            "\"readOnly\"",
            "\"destructive\"",
            "\"tiers\"",
            "\"devTiers\"",
            "\"arguments\"",
            "\"exactlyOneOf\"",
            "\"atLeastOneOf\"",
            "\"onlyWith\"",
            "\"requiredWhen\"",
        ]
        .iter()
        .map(|key| select_option.find(key).expect(key))
        .collect();
        assert!(positions.windows(2).all(|pair| pair[0] < pair[1]));
        assert!(select_option.contains(
            "\"ref_id\": {\"type\": \"string\", \"required\": true, \"pattern\": \"^ref_[0-9]+$\", \"example\": \"ref_12\"}"
        ));
    }

    #[test]
    fn arguments_carry_their_limits_defaults_and_rules() {
        let contract = contract();
        let tool = |name: &str| contract["tools"][name].clone();
        assert_eq!(
            tool("select_option")["exactlyOneOf"],
            json!([["label", "value"]])
        );
        assert_eq!(
            tool("scroll")["requiredWhen"],
            json!([{"argument": "ref_id", "when": {"to": "into_view"}}])
        );
        assert_eq!(tool("click_ax")["exactlyOneOf"], json!([]));
        assert_eq!(tool("close_tab")["destructive"], json!(true));
        assert_eq!(tool("list_tabs")["readOnly"], json!(true));
        assert_eq!(tool("list_tabs")["arguments"], json!({}));
        assert_eq!(tool("hover")["tiers"], json!(["mid", "full"]));
        assert_eq!(tool("hover")["devTiers"], json!([]));
        assert_eq!(
            tool("get_accessibility_tree")["arguments"]["maxDepth"],
            json!({"type": "integer", "minimum": 1, "maximum": 100, "default": 15})
        );
        assert_eq!(
            tool("get_accessibility_tree")["arguments"]["tabId"],
            json!({"type": "integer", "minimum": 0, "maximum": 2_147_483_647})
        );
        assert_eq!(
            tool("press_key")["arguments"]["key"],
            json!({"type": "string", "required": true, "format": "keyName", "minLength": 1, "maxLength": 32, "example": "Enter"})
        );
        assert_eq!(
            tool("press_key")["arguments"]["modifiers"],
            json!({"type": "array", "enum": ["Alt", "Control", "Meta", "Shift"], "default": []})
        );
        assert_eq!(
            tool("navigate")["arguments"]["url"],
            json!({"type": "string", "required": true, "format": "navigableUrl", "example": "https://example.com/"})
        );
        assert_eq!(
            tool("type_ax")["arguments"]["text"],
            json!({"type": "string", "required": true, "maxLength": 50_000, "example": "hello"})
        );
        assert_eq!(
            tool("fill_form")["arguments"]["fields"],
            json!({"type": "array", "required": true, "minItems": 1, "maxItems": 50, "uniqueBy": "ref_id",
                "items": {
                    "ref_id": {"type": "string", "required": true, "pattern": "^ref_[0-9]+$"},
                    "value": {"type": "string", "required": true, "maxLength": 50_000}
                },
                "example": [{"ref_id": "ref_12", "value": "Ada Lovelace"}, {"ref_id": "ref_14", "value": "true"}]})
        );
        assert_eq!(tool("fill_form")["tiers"], json!(["mid", "full"]));
        assert_eq!(
            tool("select_tab")["arguments"]["tabId"],
            json!({"type": "integer", "required": true, "minimum": 0, "maximum": 2_147_483_647, "example": 12})
        );
    }
}
