//! The tools of docs/protocol.md ("Tools"), as one table: each tool's description for the model,
//! its arguments (from which both the JSON Schema and the validation are derived, so they cannot
//! disagree) and the tiers that list it.

use serde_json::{json, Map, Value};

use crate::tool_error::ToolError;

/// The tool tiers of the French document: Ask is read-only; Compact, Mid and Full act with
/// growing surfaces. `--dev` adds developer tools to Mid and Full.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Tier {
    Ask,
    Compact,
    Mid,
    Full,
}

const EVERY_TIER: &[Tier] = &[Tier::Ask, Tier::Compact, Tier::Mid, Tier::Full];

/// Which tiers list a tool, without and with Dev mode.
pub struct Availability {
    pub tiers: &'static [Tier],
    /// Tiers that list the tool only in Dev mode (for example `get_frames` for Mid).
    pub dev_only_tiers: &'static [Tier],
}

impl Availability {
    pub fn is_listed(&self, tier: Tier, dev: bool) -> bool {
        self.tiers.contains(&tier) || (dev && self.dev_only_tiers.contains(&tier))
    }
}

pub enum ArgumentKind {
    /// One of these strings.
    Choice(&'static [&'static str]),
    /// An integer in `minimum..=maximum`.
    Integer { minimum: i64, maximum: i64 },
    /// A reference printed by get_accessibility_tree: `ref_` and digits.
    ElementReference,
    /// An absolute http, https or file URL, or about:blank.
    NavigableUrl,
}

pub struct Argument {
    pub name: &'static str,
    pub kind: ArgumentKind,
    pub required: bool,
    pub default: Option<DefaultValue>,
    pub description: &'static str,
}

#[derive(Clone, Copy)]
pub enum DefaultValue {
    Text(&'static str),
    Number(i64),
}

pub struct ToolDefinition {
    pub name: &'static str,
    pub title: &'static str,
    pub description: &'static str,
    pub arguments: &'static [Argument],
    pub read_only: bool,
    pub availability: Availability,
}

const TAB_ID: Argument = Argument {
    name: "tabId",
    kind: ArgumentKind::Integer {
        minimum: 0,
        maximum: i32::MAX as i64,
    },
    required: false,
    default: None,
    description:
        "The browser tab to use. Leave it out to use the active tab of the last focused window.",
};

pub const TOOLS: &[ToolDefinition] = &[
    ToolDefinition {
        name: "get_accessibility_tree",
        title: "Read the page",
        description: "Reads the current page as a compact accessibility tree, one line per element:\n\
`role \"accessible name\" [ref_N] href=\"...\" type=\"...\" placeholder=\"...\" value=\"...\"`, indented one space per level.\n\
Call it first on almost every turn: it is faster and cheaper than a screenshot, and the ref_N ids it prints are how you point at elements. Open dialogs, menus, listboxes and expanded comboboxes (including popups rendered in portals) are listed first, under an `[open overlays]` banner.\n\
Returns {tree, truncated, hasMore, autoDegraded, notice?, page, pageCount, continuationArgs?, url, title}.\n\
When to call it again:\n\
- truncated/hasMore is true: call again with exactly `continuationArgs` to read the next page, or pass `ref_id` of a container to zoom into it.\n\
- after navigate, after anything that re-renders the page, or when a ref fails: refs of removed elements stop resolving, so read the tree again.\n\
- a popup or dropdown you expect is missing: read again with filter \"all\" and look under `[open overlays]`.\n\
The tree does not enter iframes: their content is not shown (accessibility_snapshot includes every frame). Closed shadow roots cannot be read.\n\
Common errors: ref_not_found (the element behind ref_id is gone; use one of `suggestions` or read without ref_id), page_out_of_range (ask for a page between 1 and pageCount), no_tab (no page is open: call navigate), not_connected (no browser with the extension is reachable: tell the user).",
        arguments: &[
            Argument {
                name: "filter",
                kind: ArgumentKind::Choice(&["all", "visible", "interactive"]),
                required: false,
                default: Some(DefaultValue::Text("all")),
                description: "\"all\": the whole page; \"visible\": only what is in the viewport; \"interactive\": only elements you can click or type into.",
            },
            Argument {
                name: "maxDepth",
                kind: ArgumentKind::Integer { minimum: 1, maximum: 100 },
                required: false,
                default: Some(DefaultValue::Number(15)),
                description: "How deep to descend. Skipped generic containers do not count.",
            },
            Argument {
                name: "maxChars",
                kind: ArgumentKind::Integer { minimum: 100, maximum: 1_000_000 },
                required: false,
                default: None,
                description: "Hard limit on the tree's length; longer output is paged and marked autoDegraded.",
            },
            Argument {
                name: "ref_id",
                kind: ArgumentKind::ElementReference,
                required: false,
                default: None,
                description: "Read only the subtree of this element (a ref_N from an earlier tree), for example one message of a thread.",
            },
            Argument {
                name: "page",
                kind: ArgumentKind::Integer { minimum: 1, maximum: 1_000_000 },
                required: false,
                default: None,
                description: "1-based page of a tree that did not fit; prefer passing continuationArgs exactly.",
            },
            Argument {
                name: "frameId",
                kind: ArgumentKind::Integer { minimum: 0, maximum: i32::MAX as i64 },
                required: false,
                default: None,
                description: "Read this frame of the tab instead of the top document (0 is the top document).",
            },
            TAB_ID,
        ],
        read_only: true,
        availability: Availability { tiers: EVERY_TIER, dev_only_tiers: &[] },
    },
    ToolDefinition {
        name: "accessibility_snapshot",
        title: "Structured snapshot of the page and its frames",
        description: "Captures the whole page, every iframe included (cross-origin too), as a structured snapshot (version 1) in JSON or YAML:\n\
{version: 1, documents: [{contextId, parentContextId, url, title, root}]}, the top document first, then its frames depth-first; each node is {role, name, states, properties, children}.\n\
Use it when you need exact states and properties (checked, expanded, pressed, level, values, descriptions) or content inside iframes; for ordinary reading get_accessibility_tree is shorter. mode \"ai\" adds an `aria-ref` to each element you can act on.\n\
Returns {format, snapshot, documentCount}; `snapshot` is a string to parse as JSON or YAML.\n\
Common errors: frame_detached or script_failed (the page changed during the capture: call again; a partial snapshot is never returned), timeout (the page is slow or huge: pass a larger timeoutMs, up to 120000), no_tab (call navigate first), not_connected (no browser with the extension is reachable: tell the user).",
        arguments: &[
            Argument {
                name: "format",
                kind: ArgumentKind::Choice(&["json", "yaml"]),
                required: false,
                default: Some(DefaultValue::Text("json")),
                description: "Serialization of the snapshot string.",
            },
            Argument {
                name: "mode",
                kind: ArgumentKind::Choice(&["ai"]),
                required: false,
                default: None,
                description: "\"ai\": give actionable elements an opaque `aria-ref`, stable while the element, its role and its name do not change.",
            },
            Argument {
                name: "timeoutMs",
                kind: ArgumentKind::Integer { minimum: 100, maximum: 120_000 },
                required: false,
                default: Some(DefaultValue::Number(10_000)),
                description: "How long the capture may take, in milliseconds.",
            },
            TAB_ID,
        ],
        read_only: true,
        availability: Availability { tiers: EVERY_TIER, dev_only_tiers: &[] },
    },
    ToolDefinition {
        name: "navigate",
        title: "Open a URL",
        description: "Opens a URL in the tab and waits for the page's load event.\n\
Accepts absolute http and https URLs, file URLs and about:blank.\n\
Returns {url, title} of the page that loaded (after redirects).\n\
Every ref_N from before the navigation stops working: call get_accessibility_tree next.\n\
Common errors: invalid_arguments (give a full URL with its scheme, like https://example.com), navigation_failed (the address could not be loaded: check it, or tell the user the site is unreachable), timeout (the page did not finish loading in timeoutMs: read it anyway with get_accessibility_tree, or retry with a larger timeoutMs), not_connected (no browser with the extension is reachable: tell the user).",
        arguments: &[
            Argument {
                name: "url",
                kind: ArgumentKind::NavigableUrl,
                required: true,
                default: None,
                description: "The absolute URL to open (http, https, file) or about:blank.",
            },
            Argument {
                name: "timeoutMs",
                kind: ArgumentKind::Integer { minimum: 1_000, maximum: 300_000 },
                required: false,
                default: Some(DefaultValue::Number(30_000)),
                description: "How long the page may take to load, in milliseconds.",
            },
            TAB_ID,
        ],
        read_only: false,
        availability: Availability { tiers: EVERY_TIER, dev_only_tiers: &[] },
    },
];

/// The tools listed for a tier, in table order.
pub fn listed_tools(tier: Tier, dev: bool) -> impl Iterator<Item = &'static ToolDefinition> {
    TOOLS
        .iter()
        .filter(move |tool| tool.availability.is_listed(tier, dev))
}

impl ToolDefinition {
    /// The JSON Schema of the tool's arguments (draft 2020-12, what MCP clients expect).
    pub fn input_schema(&self) -> Map<String, Value> {
        let mut properties = Map::new();
        for argument in self.arguments {
            let mut schema = match &argument.kind {
                ArgumentKind::Choice(choices) => json!({"type": "string", "enum": choices}),
                ArgumentKind::Integer { minimum, maximum } => {
                    json!({"type": "integer", "minimum": minimum, "maximum": maximum})
                }
                ArgumentKind::ElementReference => {
                    json!({"type": "string", "pattern": "^ref_[0-9]+$"})
                }
                ArgumentKind::NavigableUrl => {
                    json!({"type": "string", "pattern": "^(https?://|file://|about:blank$)"})
                }
            };
            schema["description"] = json!(argument.description);
            match argument.default {
                Some(DefaultValue::Text(text)) => schema["default"] = json!(text),
                Some(DefaultValue::Number(number)) => schema["default"] = json!(number),
                None => {}
            }
            properties.insert(argument.name.to_owned(), schema);
        }
        let required: Vec<&str> = self
            .arguments
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

    /// Checks `arguments` against the table. Returns the arguments to forward (unchanged: the
    /// extension applies the defaults) or an `invalid_arguments` error that says what to fix.
    pub fn validate(&self, arguments: Option<&Map<String, Value>>) -> Result<Value, ToolError> {
        let empty = Map::new();
        let arguments = arguments.unwrap_or(&empty);
        for name in arguments.keys() {
            if !self.arguments.iter().any(|argument| argument.name == name) {
                let known: Vec<Value> = self
                    .arguments
                    .iter()
                    .map(|argument| json!(argument.name))
                    .collect();
                return Err(ToolError::invalid_arguments(format!(
                    "{} has no argument {name:?}",
                    self.name
                ))
                .with_hint(format!(
                    "Use only these arguments: {}.",
                    self.argument_names()
                ))
                .with_suggestions(known));
            }
        }
        for argument in self.arguments {
            match arguments.get(argument.name) {
                None | Some(Value::Null) if argument.required => {
                    return Err(ToolError::invalid_arguments(format!(
                        "{} needs the argument {:?}",
                        self.name, argument.name
                    ))
                    .with_hint(format!("{}: {}", argument.name, argument.description)));
                }
                // An explicit null means "not given", as many clients send for optional fields.
                None | Some(Value::Null) => {}
                Some(value) => check_argument(self.name, argument, value)?,
            }
        }
        Ok(Value::Object(arguments.clone()))
    }

    fn argument_names(&self) -> String {
        self.arguments
            .iter()
            .map(|argument| argument.name)
            .collect::<Vec<_>>()
            .join(", ")
    }
}

fn check_argument(tool: &str, argument: &Argument, value: &Value) -> Result<(), ToolError> {
    let name = argument.name;
    match &argument.kind {
        ArgumentKind::Choice(choices) => match value.as_str() {
            Some(text) if choices.contains(&text) => Ok(()),
            _ => Err(ToolError::invalid_arguments(format!(
                "{tool}: {name} must be one of {}, not {value}",
                quoted_list(choices)
            ))
            .with_suggestions(choices.iter().map(|choice| json!(choice)).collect())),
        },
        ArgumentKind::Integer { minimum, maximum } => match value.as_i64() {
            Some(number) if (*minimum..=*maximum).contains(&number) => Ok(()),
            Some(number) => Err(ToolError::invalid_arguments(format!(
                "{tool}: {name} must be between {minimum} and {maximum}, not {number}"
            ))),
            None => Err(ToolError::invalid_arguments(format!(
                "{tool}: {name} must be a whole number, not {value}"
            ))
            .with_hint(format!(
                "Pass {name} as a JSON integer between {minimum} and {maximum}."
            ))),
        },
        ArgumentKind::ElementReference => match value.as_str() {
            Some(text) if is_element_reference(text) => Ok(()),
            _ => Err(ToolError::invalid_arguments(format!(
                "{tool}: {name} must be a reference like \"ref_12\", not {value}"
            ))
            .with_hint("Use a ref_N printed in brackets by get_accessibility_tree.")),
        },
        ArgumentKind::NavigableUrl => match value.as_str() {
            Some(text) if is_navigable_url(text) => Ok(()),
            Some(text) => Err(ToolError::invalid_arguments(format!(
                "{tool}: {text:?} is not an absolute http, https or file URL, nor about:blank"
            ))
            .with_hint(format!(
                "Include the scheme, for example \"https://{}\".",
                text.trim_start_matches('/')
            ))),
            None => Err(ToolError::invalid_arguments(format!(
                "{tool}: {name} must be a string URL, not {value}"
            ))),
        },
    }
}

fn quoted_list(choices: &[&str]) -> String {
    choices
        .iter()
        .map(|choice| format!("{choice:?}"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn is_element_reference(text: &str) -> bool {
    text.strip_prefix("ref_").is_some_and(|digits| {
        !digits.is_empty() && digits.bytes().all(|byte| byte.is_ascii_digit())
    })
}

fn is_navigable_url(text: &str) -> bool {
    if text == "about:blank" {
        return true;
    }
    if let Some(rest) = text
        .strip_prefix("http://")
        .or_else(|| text.strip_prefix("https://"))
    {
        return !rest.is_empty() && !rest.starts_with('/') && !text.contains(char::is_whitespace);
    }
    if let Some(rest) = text.strip_prefix("file://") {
        // `file:///path` (empty host) or `file://host/path`.
        return rest.contains('/');
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    fn find_tool(name: &str) -> Option<&'static ToolDefinition> {
        TOOLS.iter().find(|tool| tool.name == name)
    }

    #[test]
    fn every_tier_lists_the_three_tools_today() {
        for tier in EVERY_TIER {
            for dev in [false, true] {
                let names: Vec<&str> = listed_tools(*tier, dev).map(|tool| tool.name).collect();
                assert_eq!(
                    names,
                    [
                        "get_accessibility_tree",
                        "accessibility_snapshot",
                        "navigate"
                    ],
                    "{tier:?} dev={dev}"
                );
            }
        }
    }

    #[test]
    fn dev_only_tiers_add_tools_only_in_dev_mode() {
        let availability = Availability {
            tiers: &[Tier::Full],
            dev_only_tiers: &[Tier::Mid],
        };
        assert!(availability.is_listed(Tier::Full, false));
        assert!(!availability.is_listed(Tier::Mid, false));
        assert!(availability.is_listed(Tier::Mid, true));
        assert!(!availability.is_listed(Tier::Ask, true));
    }

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
        }
        let navigate = find_tool("navigate").expect("navigate").input_schema();
        assert_eq!(navigate["required"], json!(["url"]));
    }

    fn validate(tool: &str, arguments: Value) -> Result<Value, ToolError> {
        let tool = find_tool(tool).expect("known tool");
        tool.validate(arguments.as_object())
    }

    #[test]
    fn good_arguments_pass_unchanged() {
        let arguments = json!({"filter": "interactive", "maxDepth": 3, "ref_id": "ref_12", "page": 2, "tabId": 5, "maxChars": null});
        assert_eq!(
            validate("get_accessibility_tree", arguments.clone()),
            Ok(arguments)
        );
        assert!(validate(
            "accessibility_snapshot",
            json!({"format": "yaml", "mode": "ai", "timeoutMs": 500})
        )
        .is_ok());
        for url in [
            "https://example.com",
            "http://127.0.0.1:8080/a b".replace(' ', "%20").as_str(),
            "file:///tmp/a.html",
            "about:blank",
        ] {
            assert!(validate("navigate", json!({"url": url})).is_ok(), "{url}");
        }
        assert!(
            validate("get_accessibility_tree", Value::Null).is_ok(),
            "no arguments at all is fine"
        );
    }

    #[test]
    fn bad_arguments_are_refused_with_a_usable_error() {
        let cases = [
            ("get_accessibility_tree", json!({"filter": "everything"})),
            ("get_accessibility_tree", json!({"maxDepth": 0})),
            ("get_accessibility_tree", json!({"maxDepth": "3"})),
            ("get_accessibility_tree", json!({"ref_id": "12"})),
            ("get_accessibility_tree", json!({"depth": 3})),
            ("accessibility_snapshot", json!({"format": "xml"})),
            ("accessibility_snapshot", json!({"timeoutMs": 999_999})),
            ("navigate", json!({})),
            ("navigate", json!({"url": "example.com"})),
            ("navigate", json!({"url": "javascript:alert(1)"})),
            ("navigate", json!({"url": 42})),
        ];
        for (tool, arguments) in cases {
            let error = validate(tool, arguments.clone()).expect_err("refused");
            assert_eq!(error.code, "invalid_arguments", "{tool} {arguments}");
            assert!(!error.message.is_empty());
        }
        let unknown = validate("get_accessibility_tree", json!({"depth": 3})).expect_err("refused");
        assert!(unknown
            .suggestions
            .expect("suggestions")
            .contains(&json!("maxDepth")));
        let schemeless = validate("navigate", json!({"url": "example.com"})).expect_err("refused");
        assert!(schemeless
            .hint
            .expect("hint")
            .contains("https://example.com"));
    }
}
