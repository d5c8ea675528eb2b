//! The shape of one row of the tool table (`table.rs`): what a tool is called, what it tells the
//! model, which arguments it takes with their limits, which rules tie its arguments together,
//! how long the server waits for it, and who may see it. Everything else in `tools/` reads these
//! rows: the MCP schemas (`schema.rs`), the checks (`validation.rs`) and the extension's copy of
//! the contract (`contract.rs`).

use std::time::Duration;

use serde_json::{json, Value};

use super::tiers::Availability;

pub struct ToolDefinition {
    pub name: &'static str,
    pub title: &'static str,
    pub description: &'static str,
    pub arguments: &'static [Argument],
    /// The rules across several arguments that their kinds cannot express, checked after every
    /// argument passed its own check.
    pub rules: &'static [ArgumentRule],
    /// The tool only reads: the MCP `readOnlyHint`.
    pub read_only: bool,
    /// The tool may destroy what the user cannot get back (an unsaved form in a closed tab):
    /// the MCP `destructiveHint`.
    pub destructive: bool,
    pub availability: Availability,
    /// How long the MCP server waits for the browser's answer.
    pub host_wait: HostWait,
    /// What the MCP server's short reply keeps of the result (src/mcp_reply.rs). Every shape
    /// but [`ReplyShape::WholeResult`] leaves something out, so those tools take `verbose`.
    pub reply: ReplyShape,
}

/// The short reply of a tool (docs/protocol/tools.md, "Replies").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReplyShape {
    /// A JSON header line, then the tree text as printed.
    TreeRead,
    /// Where the tab ended up: URL, title, and only what went unexpectedly.
    PageLoad,
    /// A JSON header line of the decisive fields, then the tree lines the action changed.
    Action,
    /// An action's reply, with which fields were filled, which one failed and which were not
    /// attempted (fill_form).
    FormFill,
    /// A JSON header line of the facts, then the content as an MCP embedded resource
    /// (get_download's text file, src/downloads.rs).
    Resource,
    /// The whole result as compact JSON.
    WholeResult,
}

pub enum ArgumentKind {
    /// One of these strings.
    Choice(&'static [&'static str]),
    /// An integer in `minimum..=maximum`.
    Integer { minimum: i64, maximum: i64 },
    /// A JSON number, whole or not, in `minimum..=maximum` (a device pixel ratio: 2.625).
    Number { minimum: f64, maximum: f64 },
    /// `true` or `false`.
    Boolean,
    /// A string of `min_chars..=max_chars` characters, counted as Unicode code points (as JSON
    /// Schema's `minLength` and `maxLength` count them, not as UTF-16 units or bytes).
    Text { min_chars: usize, max_chars: usize },
    /// One KeyboardEvent `key` value ("Enter", "ArrowDown", "a"): 1 to 32 characters, and not a
    /// chord like "Control+a" (modifiers have their own argument).
    KeyName,
    /// An array of distinct names from `keys::MODIFIER_KEYS`.
    ModifierList,
    /// A reference printed by get_accessibility_tree: `ref_` and digits.
    ElementReference,
    /// An absolute http, https or file URL, or about:blank.
    NavigableUrl,
    /// A list of `min_items..=max_items` distinct strings of 1 to `max_chars` characters each
    /// (upload_file's `paths`).
    TextList {
        min_items: usize,
        max_items: usize,
        max_chars: usize,
    },
    /// A list of `min_items..=max_items` objects, each with the named `fields` and no others
    /// (fill_form's `[{ref_id, value}]`). The fields are scalar kinds: a list does not nest.
    /// `distinct_field`, when given, names the field whose value no two items may share (a
    /// form's field is filled once per call).
    ObjectList {
        min_items: usize,
        max_items: usize,
        fields: &'static [Argument],
        distinct_field: Option<&'static str>,
    },
    /// One object with the named `fields` and no others (drag's `by: {x, y}`). The fields are
    /// scalar kinds, as a list's are.
    Object { fields: &'static [Argument] },
}

pub struct Argument {
    pub name: &'static str,
    pub kind: ArgumentKind,
    pub required: bool,
    /// What the extension uses when the argument is absent (or null).
    pub default: Option<Literal>,
    /// A value to show in a hint about a missing or malformed argument.
    pub example: Option<Literal>,
    pub description: &'static str,
}

/// The anchored pattern of an element reference, valid both as a Rust and as a JS regex.
pub const ELEMENT_REFERENCE_PATTERN: &str = "^ref_[0-9]+$";

/// A JSON value written in the table: a default or an example.
#[derive(Clone, Copy)]
pub enum Literal {
    Text(&'static str),
    Number(i64),
    Boolean(bool),
    EmptyList,
    /// Any JSON value, written as JSON text (an example list of objects).
    Json(&'static str),
}

impl Literal {
    pub fn to_value(self) -> Value {
        match self {
            Literal::Text(text) => json!(text),
            Literal::Number(number) => json!(number),
            Literal::Boolean(flag) => json!(flag),
            Literal::EmptyList => json!([]),
            Literal::Json(text) => {
                serde_json::from_str(text).expect("a literal of the tool table is valid JSON")
            }
        }
    }
}

/// A rule across several arguments. JSON Schema could only express these with `oneOf` or
/// `if`/`then`, which MCP clients handle poorly, so they are data that both validators (this
/// binary's and the extension's, through the generated contract) interpret. Explicit nulls count
/// as absent.
pub enum ArgumentRule {
    /// Exactly one of these arguments is given.
    ExactlyOneOf {
        arguments: &'static [&'static str],
        /// What to pass instead, for the error's hint.
        hint: &'static str,
    },
    /// At least one of these arguments is given (several may be).
    AtLeastOneOf {
        arguments: &'static [&'static str],
        /// What to pass, for the error's hint.
        hint: &'static str,
    },
    /// `argument` may be given only together with `with_argument`: it refines it and means
    /// nothing alone (wait_for's `state` describes its `ref_id`).
    OnlyWith {
        argument: &'static str,
        with_argument: &'static str,
        hint: &'static str,
    },
    /// `argument` is required when `when_argument` is the string `equals`.
    RequiredWhen {
        argument: &'static str,
        when_argument: &'static str,
        equals: &'static str,
        hint: &'static str,
    },
}

/// How long `allwright mcp` waits for the browser to answer one call.
#[derive(Clone, Copy)]
pub enum HostWait {
    /// A fixed wait. A minute covers an action's settling and the ten seconds an action may wait
    /// for a navigation it started.
    Fixed(Duration),
    /// The call's own `timeoutMs` (or that argument's default) plus a margin for the trip
    /// through the host and the extension.
    TimeoutArgumentPlus(Duration),
}

/// The wait of the tools that have no budget of their own.
pub const ONE_MINUTE: HostWait = HostWait::Fixed(Duration::from_secs(60));
/// The wait of the tools whose `timeoutMs` bounds their work in the browser. The margin covers
/// the host's and the background's own margins (2 s each, src/host.rs) and what the background
/// adds to `timeoutMs` (promote_iframe's frame check, a load's abort grace: up to 9 s,
/// extension/background/host/budgets.js), so each hop's deadline exceeds the one it waits on.
pub const OWN_BUDGET: HostWait = HostWait::TimeoutArgumentPlus(Duration::from_secs(15));

/// The argument that carries a tool's own time budget, in milliseconds.
const TIMEOUT_ARGUMENT: &str = "timeoutMs";

impl ToolDefinition {
    pub fn argument(&self, name: &str) -> Option<&'static Argument> {
        self.arguments.iter().find(|argument| argument.name == name)
    }

    /// How long to wait for the browser's answer to a call with these (validated) arguments.
    pub fn host_wait(&self, arguments: &Value) -> Duration {
        match self.host_wait {
            HostWait::Fixed(wait) => wait,
            HostWait::TimeoutArgumentPlus(margin) => {
                let default_budget_ms = self
                    .argument(TIMEOUT_ARGUMENT)
                    .and_then(|argument| argument.default)
                    .and_then(|default| default.to_value().as_u64())
                    .unwrap_or(0);
                let budget_ms = arguments
                    .get(TIMEOUT_ARGUMENT)
                    .and_then(Value::as_u64)
                    .unwrap_or(default_budget_ms);
                Duration::from_millis(budget_ms) + margin
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::find_tool;
    use super::super::table::TOOLS;
    use super::*;

    #[test]
    fn the_server_waits_for_the_calls_own_budget_plus_a_margin_or_a_minute() {
        let wait = |tool: &str, arguments: Value| {
            find_tool(tool)
                .expect("known tool")
                .host_wait(&arguments)
                .as_millis()
        };
        assert_eq!(wait("accessibility_snapshot", json!({})), 25_000);
        assert_eq!(wait("wait_for_stable", json!({})), 25_000);
        assert_eq!(
            wait("accessibility_snapshot", json!({"timeoutMs": 500})),
            15_500
        );
        for tool in ["navigate", "go_back", "go_forward", "reload", "new_tab"] {
            assert_eq!(wait(tool, json!({})), 45_000, "{tool}");
        }
        assert_eq!(wait("navigate", json!({"timeoutMs": 300_000})), 315_000);
        for tool in [
            "get_accessibility_tree",
            "click_ax",
            "list_tabs",
            "close_tab",
        ] {
            assert_eq!(wait(tool, json!({})), 60_000, "{tool}");
        }
        // A tool waits for its own budget only if it has one to wait for.
        for tool in TOOLS {
            let has_budget = tool.argument(TIMEOUT_ARGUMENT).is_some();
            let waits_for_budget = matches!(tool.host_wait, HostWait::TimeoutArgumentPlus(_));
            assert_eq!(has_budget, waits_for_budget, "{}", tool.name);
        }
    }

    #[test]
    fn only_close_tab_and_execute_js_are_destructive() {
        for tool in TOOLS {
            assert_eq!(
                tool.destructive,
                matches!(tool.name, "close_tab" | "execute_js"),
                "{}",
                tool.name
            );
            assert!(!(tool.destructive && tool.read_only), "{}", tool.name);
        }
    }

    #[test]
    fn object_lists_hold_scalar_fields_and_their_distinct_field_is_one_of_them() {
        for tool in TOOLS {
            for argument in tool.arguments {
                let ArgumentKind::ObjectList {
                    min_items,
                    max_items,
                    fields,
                    distinct_field,
                } = &argument.kind
                else {
                    continue;
                };
                assert!(min_items <= max_items, "{} {}", tool.name, argument.name);
                assert!(!fields.is_empty(), "{} {}", tool.name, argument.name);
                for field in *fields {
                    assert!(
                        !matches!(field.kind, ArgumentKind::ObjectList { .. }),
                        "{} {}.{}: a list does not nest",
                        tool.name,
                        argument.name,
                        field.name
                    );
                    assert!(
                        field.default.is_none(),
                        "the extension fills no default inside a list"
                    );
                }
                if let Some(distinct) = distinct_field {
                    assert!(fields.iter().any(|field| field.name == *distinct));
                }
                // The example, when there is one, is a list the validator accepts.
                if let Some(example) = argument.example {
                    let arguments = json!({ argument.name: example.to_value() });
                    let mut arguments = arguments.as_object().cloned().expect("an object");
                    for other in tool.arguments.iter().filter(|other| other.required) {
                        if other.name != argument.name {
                            let example = other.example.expect("a required argument's example");
                            arguments.insert(other.name.to_owned(), example.to_value());
                        }
                    }
                    assert!(
                        tool.validate(Some(&arguments)).is_ok(),
                        "{} {}: its example passes",
                        tool.name,
                        argument.name
                    );
                }
            }
        }
    }

    #[test]
    fn rules_name_arguments_the_tool_takes() {
        for tool in TOOLS {
            for rule in tool.rules {
                let named: Vec<&str> = match rule {
                    ArgumentRule::ExactlyOneOf { arguments, .. }
                    | ArgumentRule::AtLeastOneOf { arguments, .. } => arguments.to_vec(),
                    ArgumentRule::OnlyWith {
                        argument,
                        with_argument,
                        ..
                    } => vec![argument, with_argument],
                    ArgumentRule::RequiredWhen {
                        argument,
                        when_argument,
                        ..
                    } => vec![argument, when_argument],
                };
                for name in named {
                    assert!(tool.argument(name).is_some(), "{} {name}", tool.name);
                }
            }
        }
    }
}
