//! Every call's arguments, checked against the table before anything is sent to the browser.
//! A refusal is an `invalid_arguments` error that names the argument at fault and says, in its
//! hint, what to pass instead. The extension checks again with the same rules, read from the
//! generated contract (`contract.rs`).

use serde_json::{json, Map, Value};

use super::definition::{Argument, ArgumentKind, ArgumentRule, ToolDefinition};
use super::keys::{check_key_name, check_modifiers};
use crate::tool_error::ToolError;

impl ToolDefinition {
    /// Checks `arguments` against the table. Returns the arguments to forward (unchanged: the
    /// extension applies the defaults) or an `invalid_arguments` error that names the argument
    /// and says, in its hint, what to pass instead.
    ///
    /// A number with a zero fraction (`2.0`) is an integer, as JSON Schema's `integer` says and as
    /// the extension's validator cannot but read it (`JSON.parse` gives the same number for
    /// `2.0` and `2`); it is forwarded as the integer, so that what reads the arguments after
    /// this check (`as_u64`, `as_i64`) sees the number it was given.
    pub fn validate(&self, arguments: Option<&Map<String, Value>>) -> Result<Value, ToolError> {
        let normalized = arguments.map(|arguments| {
            arguments
                .iter()
                .map(|(name, value)| (name.clone(), with_whole_numbers_as_integers(value)))
                .collect::<Map<String, Value>>()
        });
        let empty = Map::new();
        let arguments = normalized.as_ref().unwrap_or(&empty);
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
            match given(arguments, argument.name) {
                None if argument.required => {
                    return Err(ToolError::invalid_arguments(format!(
                        "{} needs the argument {:?}",
                        self.name, argument.name
                    ))
                    .with_hint(format!("{}: {}", argument.name, argument.description)));
                }
                None => {}
                Some(value) => self.check_argument(argument, argument.name, value)?,
            }
        }
        for rule in self.rules {
            rule.check(self.name, arguments)?;
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

    /// Checks one value against its argument's kind; `name` is how messages call it: the
    /// argument's own name, or its place in a list (`fields[2].value`).
    fn check_argument(
        &self,
        argument: &Argument,
        name: &str,
        value: &Value,
    ) -> Result<(), ToolError> {
        let tool = self.name;
        let refuse = |message: String, what: &str| {
            ToolError::invalid_arguments(format!("{tool}: {message}"))
                .with_hint(argument.usage(what))
        };
        match &argument.kind {
            ArgumentKind::Choice(choices) => match value.as_str() {
                Some(text) if choices.contains(&text) => Ok(()),
                _ => Err(refuse(
                    format!(
                        "{name} must be one of {}, not {}",
                        quoted_list(choices),
                        shown(value)
                    ),
                    &format!("one of {}", quoted_list(choices)),
                )
                .with_suggestions(choices.iter().map(|choice| json!(choice)).collect())),
            },
            ArgumentKind::Integer { minimum, maximum } => {
                let what = format!("a whole number from {minimum} to {maximum}");
                match value.as_i64() {
                    Some(number) if (*minimum..=*maximum).contains(&number) => Ok(()),
                    Some(number) => Err(refuse(
                        format!("{name} must be between {minimum} and {maximum}, not {number}"),
                        &what,
                    )),
                    None => Err(refuse(
                        format!("{name} must be a whole number, not {}", shown(value)),
                        &what,
                    )),
                }
            }
            ArgumentKind::Number { minimum, maximum } => {
                let what = format!("a number from {minimum} to {maximum}");
                match value.as_f64() {
                    Some(number) if (*minimum..=*maximum).contains(&number) => Ok(()),
                    Some(number) => Err(refuse(
                        format!("{name} must be between {minimum} and {maximum}, not {number}"),
                        &what,
                    )),
                    None => Err(refuse(
                        format!("{name} must be a number, not {}", shown(value)),
                        &what,
                    )),
                }
            }
            ArgumentKind::Boolean => match value {
                Value::Bool(_) => Ok(()),
                _ => Err(refuse(
                    format!("{name} must be true or false, not {}", shown(value)),
                    "a JSON boolean, true or false",
                )),
            },
            ArgumentKind::Text {
                min_chars,
                max_chars,
            } => {
                let what = match min_chars {
                    0 => format!("a string of at most {max_chars} characters"),
                    _ => format!("a string of {min_chars} to {max_chars} characters"),
                };
                let Some(text) = value.as_str() else {
                    return Err(refuse(
                        format!("{name} must be a string, not {}", shown(value)),
                        &what,
                    ));
                };
                let length = text.chars().count();
                if length > *max_chars {
                    let error = refuse(
                        format!("{name} is {length} characters long; the limit is {max_chars}"),
                        &what,
                    );
                    // A long text can be typed in parts, each appended to the last.
                    if self.arguments.iter().any(|other| other.name == "clear") {
                        return Err(error.with_hint(format!(
                            "Send at most {max_chars} characters per call: the first {max_chars} now, then the rest in further calls with clear: false."
                        )));
                    }
                    return Err(error);
                }
                if length < *min_chars {
                    return Err(refuse(format!("{name} must not be empty"), &what));
                }
                Ok(())
            }
            ArgumentKind::KeyName => check_key_name(tool, argument, value),
            ArgumentKind::ModifierList => check_modifiers(tool, argument, value),
            ArgumentKind::TextList {
                min_items,
                max_items,
                max_chars,
            } => {
                let what = format!(
                    "a list of {min_items} to {max_items} distinct strings of at most {max_chars} characters"
                );
                let Some(items) = value.as_array() else {
                    return Err(refuse(
                        format!("{name} must be a list, not {}", shown(value)),
                        &what,
                    ));
                };
                if items.len() < *min_items || items.len() > *max_items {
                    return Err(refuse(
                        format!("{name} holds {} items; it takes {min_items} to {max_items}", items.len()),
                        &what,
                    ));
                }
                let mut seen: Vec<&str> = Vec::new();
                for (index, item) in items.iter().enumerate() {
                    let text = match item.as_str() {
                        Some(text) if !text.is_empty() && text.chars().count() <= *max_chars => text,
                        _ => {
                            return Err(refuse(
                                format!("{name}[{index}] must be a non-empty string of at most {max_chars} characters, not {}", shown(item)),
                                &what,
                            ))
                        }
                    };
                    if seen.contains(&text) {
                        return Err(refuse(format!("{name}[{index}] repeats {text:?}: each may appear once"), &what));
                    }
                    seen.push(text);
                }
                Ok(())
            }
            ArgumentKind::ElementReference => match value.as_str() {
                Some(text) if is_element_reference(text) => Ok(()),
                _ => {
                    let error = ToolError::invalid_arguments(format!(
                        "{tool}: {name} must be a reference like \"ref_12\", not {}",
                        shown(value)
                    ))
                    .with_hint("Use a ref_N exactly as get_accessibility_tree prints it in brackets, for example \"ref_12\".");
                    Err(match reference_meant_by(value) {
                        Some(reference) => error.with_suggestions(vec![json!(reference)]),
                        None => error,
                    })
                }
            },
            ArgumentKind::NavigableUrl => match value.as_str() {
                Some(text) if is_navigable_url(text) => Ok(()),
                Some(text) => Err(ToolError::invalid_arguments(format!(
                    "{tool}: {name} {text:?} is not an absolute http, https or file URL, nor about:blank"
                ))
                .with_hint(format!(
                    "Include the scheme, for example \"https://{}\".",
                    text.trim_start_matches('/')
                ))),
                None => Err(refuse(
                    format!("{name} must be a string URL, not {}", shown(value)),
                    "a string, for example \"https://example.com\"",
                )),
            },
            ArgumentKind::ObjectList {
                min_items,
                max_items,
                fields,
                distinct_field,
            } => {
                let members = fields
                    .iter()
                    .map(|field| field.name)
                    .collect::<Vec<_>>()
                    .join(", ");
                let what = format!("a list of {min_items} to {max_items} objects {{{members}}}");
                let Some(items) = value.as_array() else {
                    return Err(refuse(
                        format!("{name} must be a list, not {}", shown(value)),
                        &what,
                    ));
                };
                if items.len() < *min_items {
                    return Err(refuse(
                        format!("{name} must hold at least {min_items} item(s)"),
                        &what,
                    ));
                }
                if items.len() > *max_items {
                    return Err(refuse(
                        format!(
                            "{name} holds {} items; the limit is {max_items}",
                            items.len()
                        ),
                        &what,
                    )
                    .with_hint(format!(
                        "Send at most {max_items} items per call: the first {max_items} now, the rest in another call."
                    )));
                }
                let mut distinct_values: Vec<&str> = Vec::new();
                for (index, item) in items.iter().enumerate() {
                    let item_name = format!("{name}[{index}]");
                    let object = self.check_members(fields, &item_name, item, &refuse, &what)?;
                    let Some(distinct) = distinct_field else {
                        continue;
                    };
                    if let Some(text) = given(object, distinct).and_then(Value::as_str) {
                        if distinct_values.contains(&text) {
                            return Err(refuse(
                                format!("{item_name}.{distinct} repeats {text:?}: each may appear once"),
                                &what,
                            ));
                        }
                        distinct_values.push(text);
                    }
                }
                Ok(())
            }
            ArgumentKind::Object { fields } => {
                let members = fields
                    .iter()
                    .map(|field| field.name)
                    .collect::<Vec<_>>()
                    .join(", ");
                let what = format!("an object {{{members}}}");
                self.check_members(fields, name, value, &refuse, &what)
                    .map(|_| ())
            }
        }
    }

    /// Checks an object's members against `fields`: no other member, each required one given,
    /// each checked by its own kind under `name.member`. Returns the object.
    fn check_members<'v>(
        &self,
        fields: &[Argument],
        name: &str,
        value: &'v Value,
        refuse: &dyn Fn(String, &str) -> ToolError,
        what: &str,
    ) -> Result<&'v Map<String, Value>, ToolError> {
        let members = fields
            .iter()
            .map(|field| field.name)
            .collect::<Vec<_>>()
            .join(", ");
        let Some(object) = value.as_object() else {
            return Err(refuse(
                format!(
                    "{name} must be an object {{{members}}}, not {}",
                    shown(value)
                ),
                what,
            ));
        };
        if let Some(unknown) = object
            .keys()
            .find(|key| !fields.iter().any(|field| field.name == key.as_str()))
        {
            return Err(refuse(format!("{name} has no field {unknown:?}"), what)
                .with_suggestions(fields.iter().map(|field| json!(field.name)).collect()));
        }
        for field in fields {
            let field_name = format!("{name}.{}", field.name);
            match given(object, field.name) {
                None if field.required => {
                    return Err(refuse(format!("{field_name} is missing"), what));
                }
                None => {}
                Some(member) => self.check_argument(field, &field_name, member)?,
            }
        }
        Ok(object)
    }
}

impl Argument {
    /// The hint of an error about this argument: what to pass (`what`), its default, and what it
    /// does.
    fn usage(&self, what: &str) -> String {
        let default = match self.default {
            Some(default) => format!(" (default: {})", default.to_value()),
            None => String::new(),
        };
        format!(
            "Pass {} as {what}{default}. {}",
            self.name, self.description
        )
    }
}

/// `value` with every number that has a zero fraction and fits a JS safe integer written as an
/// integer (`2.0` as `2`), in nested arrays and objects too; other values as they are.
fn with_whole_numbers_as_integers(value: &Value) -> Value {
    /// 2^53 - 1: beyond it a float with a zero fraction may stand for several integers.
    const LARGEST_SAFE_INTEGER: f64 = 9_007_199_254_740_991.0;
    match value {
        Value::Number(number) if number.is_f64() => match number.as_f64() {
            Some(float) if float.fract() == 0.0 && float.abs() <= LARGEST_SAFE_INTEGER => {
                // In range, the cast is exact.
                Value::from(float as i64)
            }
            _ => value.clone(),
        },
        Value::Array(items) => {
            Value::Array(items.iter().map(with_whole_numbers_as_integers).collect())
        }
        Value::Object(members) => Value::Object(
            members
                .iter()
                .map(|(name, member)| (name.clone(), with_whole_numbers_as_integers(member)))
                .collect(),
        ),
        _ => value.clone(),
    }
}

/// An argument as given, with an explicit null meaning "not given", as many clients send for
/// optional fields.
fn given<'a>(arguments: &'a Map<String, Value>, name: &str) -> Option<&'a Value> {
    arguments.get(name).filter(|value| !value.is_null())
}

/// A value as an error message shows it: its JSON, cut short, so that a huge argument does not
/// come back whole inside the error.
pub fn shown(value: &Value) -> String {
    const SHOWN_CHARS: usize = 60;
    let text = value.to_string();
    match text.char_indices().nth(SHOWN_CHARS) {
        Some((cut, _)) => format!("{}... ({} characters)", &text[..cut], text.chars().count()),
        None => text,
    }
}

pub fn quoted_list(choices: &[&str]) -> String {
    choices
        .iter()
        .map(|choice| format!("{choice:?}"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn is_element_reference(text: &str) -> bool {
    text.strip_prefix("ref_").is_some_and(is_digits)
}

fn is_digits(text: &str) -> bool {
    !text.is_empty() && text.bytes().all(|byte| byte.is_ascii_digit())
}

/// The reference a malformed `ref_id` most likely meant: `12`, `"12"`, `"[ref_12]"`, `"ref12"`
/// or `"ref-12"` all mean `ref_12`.
fn reference_meant_by(value: &Value) -> Option<String> {
    let text = match value {
        Value::Number(number) => number.as_u64()?.to_string(),
        Value::String(text) => text.clone(),
        _ => return None,
    };
    let text = text.trim().trim_start_matches('[').trim_end_matches(']');
    let digits = text
        .strip_prefix("ref")
        .map(|rest| rest.trim_start_matches(['_', '-']))
        .unwrap_or(text);
    is_digits(digits).then(|| format!("ref_{digits}"))
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

impl ArgumentRule {
    /// Applies the rule to arguments that each passed their own check.
    fn check(&self, tool: &str, arguments: &Map<String, Value>) -> Result<(), ToolError> {
        match self {
            ArgumentRule::ExactlyOneOf {
                arguments: names,
                hint,
            } => {
                let given_count = names
                    .iter()
                    .filter(|name| given(arguments, name).is_some())
                    .count();
                match given_count {
                    1 => Ok(()),
                    0 => Err(ToolError::invalid_arguments(format!(
                        "{tool} needs the argument {}",
                        alternatives(names, |name| format!("{name:?}"))
                    ))
                    .with_hint(*hint)),
                    _ => {
                        let not_more = if names.len() == 2 {
                            "not both"
                        } else {
                            "only one"
                        };
                        Err(ToolError::invalid_arguments(format!(
                            "{tool}: give {}, {not_more}",
                            alternatives(names, |name| name.to_string())
                        ))
                        .with_hint(*hint))
                    }
                }
            }
            ArgumentRule::AtLeastOneOf {
                arguments: names,
                hint,
            } => {
                if names.iter().any(|name| given(arguments, name).is_some()) {
                    return Ok(());
                }
                Err(ToolError::invalid_arguments(format!(
                    "{tool} needs at least one of the arguments {}",
                    alternatives(names, |name| format!("{name:?}"))
                ))
                .with_hint(*hint))
            }
            ArgumentRule::OnlyWith {
                argument,
                with_argument,
                hint,
            } => {
                if given(arguments, argument).is_some() && given(arguments, with_argument).is_none()
                {
                    return Err(ToolError::invalid_arguments(format!(
                        "{tool}: the argument {argument:?} is given only with {with_argument:?}"
                    ))
                    .with_hint(*hint));
                }
                Ok(())
            }
            ArgumentRule::RequiredWhen {
                argument,
                when_argument,
                equals,
                hint,
            } => {
                let applies =
                    given(arguments, when_argument).and_then(Value::as_str) == Some(equals);
                if applies && given(arguments, argument).is_none() {
                    return Err(ToolError::invalid_arguments(format!(
                        "{tool}: {when_argument} {equals:?} needs the argument {argument:?}"
                    ))
                    .with_hint(*hint));
                }
                Ok(())
            }
        }
    }
}

/// `a or b`, `a, b or c`: the names as `show` writes them.
fn alternatives(names: &[&str], show: impl Fn(&str) -> String) -> String {
    let shown: Vec<String> = names.iter().map(|name| show(name)).collect();
    match shown.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
        _ => shown.concat(),
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::super::find_tool;
    use super::*;

    fn validate(tool: &str, arguments: Value) -> Result<Value, ToolError> {
        let tool = find_tool(tool).expect("known tool");
        tool.validate(arguments.as_object())
    }

    /// A whole number written with a fraction is an integer, forwarded as one: the extension's
    /// `JSON.parse` cannot tell `2.0` from `2`, and the host's own readers (`as_u64`) could.
    #[test]
    fn whole_numbers_written_with_a_fraction_are_forwarded_as_integers() {
        assert_eq!(
            validate(
                "drag",
                json!({"from_ref": "ref_1", "by": {"x": 120.0, "y": -3.0}, "tabId": 7.0})
            ),
            Ok(json!({"from_ref": "ref_1", "by": {"x": 120, "y": -3}, "tabId": 7}))
        );
        assert!(validate(
            "drag",
            json!({"from_ref": "ref_1", "by": {"x": 1.5, "y": 0}})
        )
        .is_err());
        assert_eq!(
            validate("emulate", json!({"deviceScaleFactor": 2.5})),
            Ok(json!({"deviceScaleFactor": 2.5}))
        );
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
        let action_calls = [
            (
                "click_ax",
                json!({"ref_id": "ref_3", "frameId": 0, "tabId": 2}),
            ),
            ("type_ax", json!({"ref_id": "ref_3", "text": ""})),
            (
                "type_ax",
                json!({"ref_id": "ref_3", "text": "héllo 🌍", "clear": false}),
            ),
            (
                "set_field",
                json!({"ref_id": "ref_3", "text": "shoes", "clear": true, "submit": true, "frameId": 4}),
            ),
            (
                "select_option",
                json!({"ref_id": "ref_3", "label": "France"}),
            ),
            (
                "select_option",
                json!({"ref_id": "ref_3", "value": "fr", "label": null}),
            ),
            ("hover", json!({"ref_id": "ref_3"})),
            ("press_key", json!({"key": "Enter"})),
            (
                "press_key",
                json!({"key": "a", "modifiers": ["Control", "Shift"], "ref_id": "ref_9"}),
            ),
            ("press_key", json!({"key": "+", "modifiers": []})),
            ("press_key", json!({"key": " "})),
            ("press_key", json!({"key": "MediaPlayPause"})),
            ("scroll", json!({})),
            ("scroll", json!({"direction": "up", "amount": 1})),
            ("scroll", json!({"ref_id": "ref_3", "to": "into_view"})),
            ("scroll", json!({"to": "bottom", "amount": 100_000})),
            ("go_back", json!({"timeoutMs": 1_000})),
            ("go_forward", json!({})),
            ("go_forward", json!({"timeoutMs": 300_000, "tabId": 7})),
            ("reload", json!({})),
            (
                "reload",
                json!({"ignoreCache": true, "timeoutMs": 1_000, "tabId": 7}),
            ),
            (
                "wait_for_stable",
                json!({"quietMs": 100, "timeoutMs": 60_000}),
            ),
            ("list_tabs", json!({})),
            ("new_tab", json!({})),
            (
                "new_tab",
                json!({"url": "https://example.com/", "timeoutMs": 300_000}),
            ),
            ("select_tab", json!({"tabId": 7})),
            (
                "fill_form",
                json!({"fields": [{"ref_id": "ref_3", "value": "Ada"}, {"ref_id": "ref_4", "value": "true"}, {"ref_id": "ref_5", "value": ""}], "frameId": 2}),
            ),
            ("close_tab", json!({})),
            ("close_tab", json!({"tabId": 7})),
            ("resize", json!({"width": 390, "height": 844})),
            ("resize", json!({"width": 200, "height": 200, "tabId": 7})),
            ("resize", json!({"width": 7_680, "height": 4_320})),
            ("emulate", json!({"colorScheme": "dark"})),
            (
                "emulate",
                json!({"reducedMotion": "reduce", "deviceScaleFactor": 2.625, "userAgent": "Phone", "offline": true, "tabId": 7}),
            ),
            (
                "emulate",
                json!({"colorScheme": "default", "reducedMotion": "default", "deviceScaleFactor": 0, "userAgent": "", "offline": false}),
            ),
            (
                "emulate",
                json!({"deviceScaleFactor": 8, "userAgent": null}),
            ),
        ];
        for (tool, arguments) in action_calls {
            assert_eq!(
                validate(tool, arguments.clone()),
                Ok(arguments.clone()),
                "{tool} {arguments}"
            );
        }
    }

    /// Every refusal is invalid_arguments, names the argument at fault in its message, and says
    /// in its hint what to do instead.
    pub fn assert_refused(tool: &str, arguments: Value, argument: &str) -> ToolError {
        let error = validate(tool, arguments.clone()).expect_err("refused");
        assert_eq!(error.code, "invalid_arguments", "{tool} {arguments}");
        assert!(
            error.message.contains(argument),
            "{tool} {arguments}: the message names {argument}: {}",
            error.message
        );
        assert!(
            error.hint.as_ref().is_some_and(|hint| hint.len() > 10),
            "{tool} {arguments}: a hint"
        );
        error
    }

    #[test]
    fn bad_arguments_are_refused_with_a_usable_error() {
        let long_text = "x".repeat(50_001);
        let cases = [
            (
                "get_accessibility_tree",
                json!({"filter": "everything"}),
                "filter",
            ),
            ("get_accessibility_tree", json!({"maxDepth": 0}), "maxDepth"),
            (
                "get_accessibility_tree",
                json!({"maxDepth": "3"}),
                "maxDepth",
            ),
            ("get_accessibility_tree", json!({"ref_id": "12"}), "ref_id"),
            ("get_accessibility_tree", json!({"depth": 3}), "depth"),
            ("accessibility_snapshot", json!({"format": "xml"}), "format"),
            (
                "accessibility_snapshot",
                json!({"timeoutMs": 999_999}),
                "timeoutMs",
            ),
            ("navigate", json!({}), "url"),
            ("navigate", json!({"url": "example.com"}), "url"),
            ("navigate", json!({"url": "javascript:alert(1)"}), "url"),
            ("navigate", json!({"url": 42}), "url"),
            ("click_ax", json!({}), "ref_id"),
            ("click_ax", json!({"ref_id": null}), "ref_id"),
            ("click_ax", json!({"ref_id": "12"}), "ref_id"),
            ("click_ax", json!({"ref_id": "ref_x"}), "ref_id"),
            (
                "click_ax",
                json!({"ref_id": "ref_3", "frameId": -1}),
                "frameId",
            ),
            ("click_ax", json!({"ref_id": "ref_3", "text": "hi"}), "text"),
            ("hover", json!({"ref_id": 3}), "ref_id"),
            ("type_ax", json!({"ref_id": "ref_3"}), "text"),
            ("type_ax", json!({"ref_id": "ref_3", "text": 42}), "text"),
            (
                "type_ax",
                json!({"ref_id": "ref_3", "text": ["a", "b"]}),
                "text",
            ),
            (
                "type_ax",
                json!({"ref_id": "ref_3", "text": long_text}),
                "text",
            ),
            (
                "type_ax",
                json!({"ref_id": "ref_3", "text": "a", "clear": "yes"}),
                "clear",
            ),
            (
                "set_field",
                json!({"ref_id": "ref_3", "text": "a", "submit": 1}),
                "submit",
            ),
            (
                "set_field",
                json!({"ref_id": "ref_3", "text": long_text}),
                "text",
            ),
            (
                "select_option",
                json!({"ref_id": "ref_3", "label": "a", "value": "b"}),
                "label",
            ),
            ("select_option", json!({"ref_id": "ref_3"}), "label"),
            (
                "select_option",
                json!({"ref_id": "ref_3", "label": null, "value": null}),
                "value",
            ),
            (
                "select_option",
                json!({"ref_id": "ref_3", "label": ""}),
                "label",
            ),
            (
                "select_option",
                json!({"ref_id": "ref_3", "value": "v".repeat(1_001)}),
                "value",
            ),
            ("press_key", json!({}), "key"),
            ("press_key", json!({"key": ""}), "key"),
            ("press_key", json!({"key": 13}), "key"),
            ("press_key", json!({"key": "k".repeat(33)}), "key"),
            ("press_key", json!({"key": "Control+a"}), "key"),
            ("press_key", json!({"key": "enter"}), "key"),
            (
                "press_key",
                json!({"key": "a", "modifiers": ["Hyper"]}),
                "modifiers",
            ),
            (
                "press_key",
                json!({"key": "a", "modifiers": ["Ctrl"]}),
                "modifiers",
            ),
            (
                "press_key",
                json!({"key": "a", "modifiers": ["Shift", "Shift"]}),
                "modifiers",
            ),
            (
                "press_key",
                json!({"key": "a", "modifiers": "Control"}),
                "modifiers",
            ),
            (
                "press_key",
                json!({"key": "a", "modifiers": [1]}),
                "modifiers",
            ),
            ("scroll", json!({"direction": "sideways"}), "direction"),
            ("scroll", json!({"amount": 0}), "amount"),
            ("scroll", json!({"amount": 100_001}), "amount"),
            ("scroll", json!({"amount": 1.5}), "amount"),
            ("scroll", json!({"to": "middle"}), "to"),
            ("scroll", json!({"to": "into_view"}), "ref_id"),
            ("go_back", json!({"timeoutMs": 999}), "timeoutMs"),
            ("go_forward", json!({"timeoutMs": 300_001}), "timeoutMs"),
            ("go_forward", json!({"url": "https://example.com/"}), "url"),
            ("reload", json!({"ignoreCache": "yes"}), "ignoreCache"),
            ("reload", json!({"bypassCache": true}), "bypassCache"),
            ("reload", json!({"tabId": -1}), "tabId"),
            ("wait_for_stable", json!({"quietMs": 50}), "quietMs"),
            ("wait_for_stable", json!({"timeoutMs": 60_001}), "timeoutMs"),
            ("list_tabs", json!({"windowId": 1}), "windowId"),
            ("new_tab", json!({"url": "chrome://settings"}), "url"),
            ("resize", json!({"width": 390}), "height"),
            ("resize", json!({"width": 199, "height": 600}), "width"),
            ("resize", json!({"width": 7_681, "height": 600}), "width"),
            ("resize", json!({"width": 800, "height": 4_321}), "height"),
            ("resize", json!({"width": 800.5, "height": 600}), "width"),
            ("emulate", json!({"colorScheme": "sepia"}), "colorScheme"),
            ("emulate", json!({"reducedMotion": true}), "reducedMotion"),
            (
                "emulate",
                json!({"deviceScaleFactor": -1}),
                "deviceScaleFactor",
            ),
            (
                "emulate",
                json!({"deviceScaleFactor": 8.5}),
                "deviceScaleFactor",
            ),
            (
                "emulate",
                json!({"deviceScaleFactor": "2"}),
                "deviceScaleFactor",
            ),
            (
                "emulate",
                json!({"userAgent": "x".repeat(1_001)}),
                "userAgent",
            ),
            ("emulate", json!({"offline": "yes"}), "offline"),
            ("emulate", json!({"geolocation": [0, 0]}), "geolocation"),
            ("select_tab", json!({}), "tabId"),
            ("select_tab", json!({"tabId": "7"}), "tabId"),
            ("close_tab", json!({"tabId": -3}), "tabId"),
        ];
        for (tool, arguments, argument) in cases {
            assert_refused(tool, arguments, argument);
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
        let sideways = assert_refused("scroll", json!({"direction": "sideways"}), "direction");
        assert_eq!(
            sideways.suggestions,
            Some(vec![
                json!("up"),
                json!("down"),
                json!("left"),
                json!("right")
            ])
        );
        let zero = assert_refused("scroll", json!({"amount": 0}), "amount");
        assert!(
            zero.message.contains("between 1 and 100000"),
            "{}",
            zero.message
        );
        let yes = assert_refused(
            "type_ax",
            json!({"ref_id": "ref_1", "text": "", "clear": "yes"}),
            "clear",
        );
        assert!(yes.hint.expect("hint").contains("true or false"));
    }

    #[test]
    fn text_is_measured_in_characters_and_a_long_one_says_limit_and_length() {
        for character in ["x", "é", "🌍"] {
            let at_limit = character.repeat(50_000);
            assert!(
                validate("type_ax", json!({"ref_id": "ref_1", "text": at_limit})).is_ok(),
                "50000 of {character:?} fit"
            );
        }
        let over = "🌍".repeat(60_000);
        let error = assert_refused("type_ax", json!({"ref_id": "ref_1", "text": over}), "text");
        assert!(error.message.contains("60000"), "{}", error.message);
        assert!(error.message.contains("50000"), "{}", error.message);
        assert!(
            error.message.len() < 200,
            "the text is not echoed back: {}",
            error.message
        );
        assert!(error.hint.expect("hint").contains("clear: false"));
        let not_text = assert_refused(
            "set_field",
            json!({"ref_id": "ref_1", "text": {"value": "x".repeat(100_000)}}),
            "text",
        );
        assert!(not_text.message.len() < 200, "{}", not_text.message);
    }

    #[test]
    fn drag_takes_an_offset_object_of_two_whole_numbers() {
        let tool = find_tool("drag").expect("drag");
        let arguments = |value: Value| value.as_object().cloned().expect("an object");
        assert!(tool
            .validate(Some(&arguments(
                json!({"from_ref": "ref_1", "by": {"x": -20, "y": 5}})
            )))
            .is_ok());
        let refused = |by: Value, named: &str| {
            assert_refused("drag", json!({ "from_ref": "ref_1", "by": by }), named)
        };
        refused(json!([1, 2]), "by");
        refused(json!({"x": 1}), "by.y");
        refused(json!({"x": 1.5, "y": 0}), "by.x");
        refused(json!({"x": 10_001, "y": 0}), "by.x");
        let unknown = refused(json!({"x": 1, "y": 1, "z": 1}), "z");
        assert_eq!(unknown.suggestions, Some(vec![json!("x"), json!("y")]));
        assert_refused(
            "drag",
            json!({"from_ref": "ref_1", "to_ref": "ref_2", "by": {"x": 1, "y": 1}}),
            "to_ref",
        );
    }

    #[test]
    fn fill_form_takes_a_list_of_distinct_fields_each_checked_as_an_argument() {
        let field = |reference: &str| json!({"ref_id": reference, "value": "x"});
        let refused = |fields: Value, named: &str| {
            assert_refused("fill_form", json!({ "fields": fields }), named)
        };
        refused(json!([]), "fields");
        refused(json!({"ref_id": "ref_1", "value": "x"}), "fields");
        refused(json!(["ref_1"]), "fields[0]");
        refused(json!([{"ref_id": "ref_1"}]), "fields[0].value");
        refused(json!([{"value": "x"}]), "fields[0].ref_id");
        refused(
            json!([{"ref_id": "ref_1", "value": null}]),
            "fields[0].value",
        );
        let boolean = refused(
            json!([field("ref_1"), {"ref_id": "ref_2", "value": true}]),
            "fields[1].value",
        );
        assert!(
            boolean.message.contains("must be a string"),
            "{}",
            boolean.message
        );
        let malformed = refused(json!([{"ref_id": "12", "value": "x"}]), "fields[0].ref_id");
        assert_eq!(malformed.suggestions, Some(vec![json!("ref_12")]));
        let unknown = refused(
            json!([{"ref_id": "ref_1", "value": "x", "clear": false}]),
            "clear",
        );
        assert_eq!(
            unknown.suggestions,
            Some(vec![json!("ref_id"), json!("value")])
        );
        let repeated = refused(
            json!([field("ref_1"), field("ref_2"), field("ref_1")]),
            "fields[2].ref_id",
        );
        assert!(repeated.message.contains("repeats"), "{}", repeated.message);
        let long = refused(
            json!([{"ref_id": "ref_1", "value": "x".repeat(50_001)}]),
            "fields[0].value",
        );
        assert!(long.message.len() < 200, "{}", long.message);
        let many: Vec<Value> = (0..51)
            .map(|number| field(&format!("ref_{number}")))
            .collect();
        let too_many = refused(json!(many), "fields");
        assert!(too_many.hint.expect("hint").contains("at most 50"));
        let fifty: Vec<Value> = (0..50)
            .map(|number| field(&format!("ref_{number}")))
            .collect();
        assert!(validate("fill_form", json!({ "fields": fifty })).is_ok());
        assert_refused("fill_form", json!({}), "fields");
    }

    #[test]
    fn malformed_refs_suggest_the_ref_that_was_meant() {
        let suggested = |value: Value| {
            assert_refused("click_ax", json!({ "ref_id": value }), "ref_id").suggestions
        };
        assert_eq!(suggested(json!("12")), Some(vec![json!("ref_12")]));
        assert_eq!(suggested(json!(12)), Some(vec![json!("ref_12")]));
        assert_eq!(suggested(json!("[ref_7]")), Some(vec![json!("ref_7")]));
        assert_eq!(suggested(json!("ref-7")), Some(vec![json!("ref_7")]));
        assert_eq!(suggested(json!("ref_x")), None);
        assert_eq!(suggested(json!("button")), None);
    }

    #[test]
    fn select_option_takes_exactly_one_of_label_and_value() {
        let both = assert_refused(
            "select_option",
            json!({"ref_id": "ref_1", "label": "France", "value": "fr"}),
            "value",
        );
        assert!(both.message.contains("not both"), "{}", both.message);
        let neither = assert_refused("select_option", json!({"ref_id": "ref_1"}), "value");
        assert!(neither.message.contains("needs"), "{}", neither.message);
        // The arguments' own checks come first: a malformed ref is reported as such.
        assert_refused("select_option", json!({"ref_id": "12"}), "ref_id");
    }

    #[test]
    fn find_needs_at_least_one_of_text_role_and_name() {
        let none = assert_refused("find", json!({"limit": 3}), "role");
        assert!(none.message.contains("at least one"), "{}", none.message);
        for given in [
            json!({"text": "Save"}),
            json!({"role": "button"}),
            json!({"role": "button", "name": "Save", "text": "Save"}),
        ] {
            assert!(validate("find", given.clone()).is_ok(), "{given}");
        }
        // An explicit null is absent.
        assert_refused("find", json!({"text": null}), "text");
    }

    #[test]
    fn wait_for_takes_one_condition_and_a_state_only_with_its_ref() {
        assert!(validate("wait_for", json!({"text": "Done"})).is_ok());
        assert!(validate("wait_for", json!({"ref_id": "ref_3", "state": "checked"})).is_ok());
        assert_refused("wait_for", json!({}), "ref_id");
        assert_refused(
            "wait_for",
            json!({"text": "a", "textGone": "b"}),
            "textGone",
        );
        let alone = assert_refused(
            "wait_for",
            json!({"text": "a", "state": "visible"}),
            "state",
        );
        assert!(alone.message.contains("only with"), "{}", alone.message);
        assert_refused(
            "wait_for",
            json!({"ref_id": "ref_3", "state": "open"}),
            "state",
        );
    }
}
