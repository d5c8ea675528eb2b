//! The KeyboardEvent key-name engine of press_key: which `key` values are one key, how a chord
//! ("Control+a") or a misspelt name ("enter", "Esc") is corrected in the error's hint, and which
//! modifier keys may be held. Key values are those of the UI Events KeyboardEvent key Values
//! specification (https://www.w3.org/TR/uievents-key/).

use serde_json::{json, Value};

use super::definition::Argument;
use super::validation::{quoted_list, shown};
use crate::tool_error::ToolError;

/// The longest KeyboardEvent `key` value press_key accepts ("ContextMenu", "MediaPlayPause", ...).
pub const MAX_KEY_NAME_CHARS: usize = 32;
/// The modifier keys press_key can hold, by their KeyboardEvent `key` values.
pub const MODIFIER_KEYS: &[&str] = &["Alt", "Control", "Meta", "Shift"];

/// Common named keys, by their KeyboardEvent `key` values, to correct a name given in the wrong
/// case ("enter"): key values are case-sensitive, and a page's handler that waits for "Enter"
/// ignores "enter". Not every named key: an unlisted one passes as given. The extension's
/// validator uses this table too, from the module src/generated_modules.rs writes from it.
pub const COMMON_NAMED_KEYS: &[&str] = &[
    "Enter",
    "Tab",
    "Escape",
    "Backspace",
    "Delete",
    "Insert",
    "Home",
    "End",
    "PageUp",
    "PageDown",
    "ArrowUp",
    "ArrowDown",
    "ArrowLeft",
    "ArrowRight",
    "Alt",
    "Control",
    "Meta",
    "Shift",
    "CapsLock",
    "ContextMenu",
    "F1",
    "F2",
    "F3",
    "F4",
    "F5",
    "F6",
    "F7",
    "F8",
    "F9",
    "F10",
    "F11",
    "F12",
];

/// Other names for keys (compared ignoring case) and their KeyboardEvent `key` values: the
/// spellings of key-combination notations and of old browsers, which pages do not recognise.
/// The extension's validator uses this table too (src/generated_modules.rs).
pub const KEY_SPELLINGS: &[(&str, &str)] = &[
    ("Esc", "Escape"),
    ("Return", "Enter"),
    ("Del", "Delete"),
    ("Space", " "),
    ("Spacebar", " "),
    ("Up", "ArrowUp"),
    ("Down", "ArrowDown"),
    ("Left", "ArrowLeft"),
    ("Right", "ArrowRight"),
    ("PgUp", "PageUp"),
    ("PgDn", "PageDown"),
    ("Ctrl", "Control"),
    ("Cmd", "Meta"),
    ("Command", "Meta"),
    ("Super", "Meta"),
    ("Win", "Meta"),
    ("Option", "Alt"),
];

/// The KeyboardEvent `key` value that a key name of more than one character stands for, when
/// this table knows it: itself, itself in the right case, or what an alias stands for.
fn known_key_value(text: &str) -> Option<&'static str> {
    COMMON_NAMED_KEYS
        .iter()
        .find(|key| key.eq_ignore_ascii_case(text))
        .copied()
        .or_else(|| {
            KEY_SPELLINGS
                .iter()
                .find(|(alias, _)| alias.eq_ignore_ascii_case(text))
                .map(|(_, key)| *key)
        })
}

pub fn check_key_name(tool: &str, argument: &Argument, value: &Value) -> Result<(), ToolError> {
    let name = argument.name;
    let usage = "Pass one KeyboardEvent key value, such as \"Enter\", \"Tab\", \"Escape\", \"ArrowDown\", \" \" (space) or \"a\".";
    let Some(text) = value.as_str() else {
        return Err(ToolError::invalid_arguments(format!(
            "{tool}: {name} must be a string, not {}",
            shown(value)
        ))
        .with_hint(usage));
    };
    let length = text.chars().count();
    if length == 0 {
        return Err(
            ToolError::invalid_arguments(format!("{tool}: {name} must not be empty"))
                .with_hint(usage),
        );
    }
    if length > MAX_KEY_NAME_CHARS {
        return Err(ToolError::invalid_arguments(format!(
            "{tool}: {name} is {length} characters long; a key name has at most {MAX_KEY_NAME_CHARS}"
        ))
        .with_hint("press_key presses one key. To type text, use type_ax or set_field."));
    }
    // "+" alone is a key; any longer name with a "+" is a combination like "Control+a".
    if length > 1 && text.contains('+') {
        let hint = match chord_as_arguments(text) {
            Some((key, modifiers)) => format!(
                "Pass one key and hold the others with modifiers: key {key:?}, modifiers [{}].",
                quoted_list(&modifiers)
            ),
            None => "Pass one key and hold Alt, Control, Meta or Shift with modifiers, for example key \"a\" with modifiers [\"Control\"].".to_owned(),
        };
        return Err(ToolError::invalid_arguments(format!(
            "{tool}: {name} {text:?} is a key combination, not one key"
        ))
        .with_hint(hint));
    }
    if length > 1 {
        if let Some(key) = known_key_value(text).filter(|key| *key != text) {
            return Err(ToolError::invalid_arguments(format!(
                "{tool}: {name} {text:?} is not a KeyboardEvent key value"
            ))
            .with_hint(format!(
                "Use {key:?}: key values are case-sensitive and pages do not know other spellings."
            ))
            .with_suggestions(vec![json!(key)]));
        }
    }
    Ok(())
}

/// "Control+Shift+a" as press_key's arguments: `("a", ["Control", "Shift"])`, when every part
/// before the last is a modifier.
fn chord_as_arguments(text: &str) -> Option<(&str, Vec<&'static str>)> {
    // "Control++" holds Control and presses "+".
    let (held, key) = match text.strip_suffix("++") {
        Some(held) => (held, "+"),
        None => text.rsplit_once('+')?,
    };
    if key.is_empty() {
        return None;
    }
    let modifiers = held
        .split('+')
        .map(|part| known_key_value(part).filter(|key| MODIFIER_KEYS.contains(key)))
        .collect::<Option<Vec<_>>>()?;
    Some((key, modifiers))
}

pub fn check_modifiers(tool: &str, argument: &Argument, value: &Value) -> Result<(), ToolError> {
    let name = argument.name;
    let usage = format!(
        "Pass {name} as an array of distinct names from {}, for example [\"Control\", \"Shift\"], or leave it out.",
        quoted_list(MODIFIER_KEYS)
    );
    let Some(items) = value.as_array() else {
        return Err(ToolError::invalid_arguments(format!(
            "{tool}: {name} must be an array of key names, not {}",
            shown(value)
        ))
        .with_hint(usage));
    };
    let mut seen: Vec<&str> = Vec::new();
    for item in items {
        match item.as_str() {
            Some(modifier) if MODIFIER_KEYS.contains(&modifier) => {
                if seen.contains(&modifier) {
                    return Err(ToolError::invalid_arguments(format!(
                        "{tool}: {name} lists {modifier:?} more than once"
                    ))
                    .with_hint("Give each modifier at most once."));
                }
                seen.push(modifier);
            }
            _ => {
                let meant = item
                    .as_str()
                    .and_then(known_key_value)
                    .filter(|key| MODIFIER_KEYS.contains(key));
                let error = ToolError::invalid_arguments(format!(
                    "{tool}: {name} contains {}, which is not a modifier key",
                    shown(item)
                ));
                return Err(match meant {
                    Some(modifier) => error
                        .with_hint(format!("Use {modifier:?}. {usage}"))
                        .with_suggestions(vec![json!(modifier)]),
                    None => error.with_hint(usage).with_suggestions(
                        MODIFIER_KEYS
                            .iter()
                            .map(|modifier| json!(modifier))
                            .collect(),
                    ),
                });
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::validation::tests::assert_refused;
    use super::*;

    #[test]
    fn key_combinations_and_misspelt_keys_are_corrected() {
        let hint = |key: &str| {
            assert_refused("press_key", json!({ "key": key }), "key")
                .hint
                .expect("hint")
        };
        assert!(
            hint("Control+a").contains("key \"a\", modifiers [\"Control\"]"),
            "{}",
            hint("Control+a")
        );
        assert!(hint("ctrl+shift+T").contains("key \"T\", modifiers [\"Control\", \"Shift\"]"));
        assert!(hint("Meta++").contains("key \"+\", modifiers [\"Meta\"]"));
        assert!(hint("Foo+a").contains("with modifiers"));
        assert!(hint(&"k".repeat(33)).contains("type_ax"));
        let suggested =
            |key: &str| assert_refused("press_key", json!({ "key": key }), "key").suggestions;
        assert_eq!(suggested("enter"), Some(vec![json!("Enter")]));
        assert_eq!(suggested("ESC"), Some(vec![json!("Escape")]));
        assert_eq!(suggested("Space"), Some(vec![json!(" ")]));
        assert_eq!(suggested("arrowdown"), Some(vec![json!("ArrowDown")]));
        let modifier = |name: &str| {
            assert_refused(
                "press_key",
                json!({"key": "a", "modifiers": [name]}),
                "modifiers",
            )
            .suggestions
        };
        assert_eq!(modifier("Ctrl"), Some(vec![json!("Control")]));
        assert_eq!(modifier("cmd"), Some(vec![json!("Meta")]));
        assert_eq!(modifier("shift"), Some(vec![json!("Shift")]));
        assert_eq!(
            modifier("Hyper"),
            Some(vec![
                json!("Alt"),
                json!("Control"),
                json!("Meta"),
                json!("Shift")
            ])
        );
        assert_eq!(
            modifier("Enter"),
            Some(vec![
                json!("Alt"),
                json!("Control"),
                json!("Meta"),
                json!("Shift")
            ]),
            "a key that is not a modifier"
        );
        let repeated = assert_refused(
            "press_key",
            json!({"key": "a", "modifiers": ["Shift", "Alt", "Shift"]}),
            "modifiers",
        );
        assert!(
            repeated.message.contains("\"Shift\" more than once"),
            "{}",
            repeated.message
        );
    }
}
