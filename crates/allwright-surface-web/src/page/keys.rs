//! Key names as agents write them (`"Enter"`, `"Control+Shift+ArrowLeft"`, `"a"`) and the key
//! values WebDriver dispatches.
//!
//! WebDriver BiDi, input.performActions, key source actions: a `keyDown`/`keyUp` value is one
//! grapheme cluster; keys without a character are the code points of WebDriver classic's
//! "keyboard actions" table (U+E000 to U+E05D). The names are the `KeyboardEvent.key` values
//! (UI Events KeyboardEvent key Values), so a caller writes the key the page will see.

/// A key name and its WebDriver code point. One table; the lookup is case-sensitive for
/// single characters and case-insensitive for names, like Playwright's `keyboard.press`.
const NAMED_KEYS: &[(&str, char)] = &[
    ("Cancel", '\u{E001}'),
    ("Help", '\u{E002}'),
    ("Backspace", '\u{E003}'),
    ("Tab", '\u{E004}'),
    ("Clear", '\u{E005}'),
    // "Return" is WebDriver's U+E006; pages see `key: "Enter"` for both, so Enter is U+E007.
    ("Enter", '\u{E007}'),
    ("Shift", '\u{E008}'),
    ("Control", '\u{E009}'),
    ("Alt", '\u{E00A}'),
    ("Pause", '\u{E00B}'),
    ("Escape", '\u{E00C}'),
    ("Space", ' '),
    ("PageUp", '\u{E00E}'),
    ("PageDown", '\u{E00F}'),
    ("End", '\u{E010}'),
    ("Home", '\u{E011}'),
    ("ArrowLeft", '\u{E012}'),
    ("ArrowUp", '\u{E013}'),
    ("ArrowRight", '\u{E014}'),
    ("ArrowDown", '\u{E015}'),
    ("Insert", '\u{E016}'),
    ("Delete", '\u{E017}'),
    ("F1", '\u{E031}'),
    ("F2", '\u{E032}'),
    ("F3", '\u{E033}'),
    ("F4", '\u{E034}'),
    ("F5", '\u{E035}'),
    ("F6", '\u{E036}'),
    ("F7", '\u{E037}'),
    ("F8", '\u{E038}'),
    ("F9", '\u{E039}'),
    ("F10", '\u{E03A}'),
    ("F11", '\u{E03B}'),
    ("F12", '\u{E03C}'),
    ("Meta", '\u{E03D}'),
];

/// Aliases agents commonly write, mapped to the names above.
const KEY_ALIASES: &[(&str, &str)] = &[
    ("Ctrl", "Control"),
    ("Cmd", "Meta"),
    ("Command", "Meta"),
    ("Esc", "Escape"),
    ("Return", "Enter"),
    ("Del", "Delete"),
    ("Up", "ArrowUp"),
    ("Down", "ArrowDown"),
    ("Left", "ArrowLeft"),
    ("Right", "ArrowRight"),
];

/// The WebDriver key value for one key name: a named key, or a single character as itself.
pub fn key_value(name: &str) -> Option<String> {
    let canonical = KEY_ALIASES
        .iter()
        .find(|(alias, _)| alias.eq_ignore_ascii_case(name))
        .map_or(name, |(_, canonical)| canonical);
    if let Some((_, code_point)) = NAMED_KEYS
        .iter()
        .find(|(key, _)| key.eq_ignore_ascii_case(canonical))
    {
        return Some(code_point.to_string());
    }
    let mut characters = name.chars();
    match (characters.next(), characters.next()) {
        (Some(character), None) => Some(character.to_string()),
        _ => None,
    }
}

/// Whether a key name is one of the four modifiers (held down while the last key is pressed).
fn is_modifier(value: &str) -> bool {
    ["\u{E008}", "\u{E009}", "\u{E00A}", "\u{E03D}"].contains(&value)
}

/// A key combination: modifiers held in order, then one key pressed and released.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyChord {
    pub modifiers: Vec<String>,
    pub key: String,
}

/// Reads `"Control+Shift+a"` (or `"Enter"`, or `"+"`, or `"Control++"`): every part before the
/// last is a modifier, the last is the key. An unknown name or a non-modifier before the last
/// part is an error naming it.
pub fn parse_key_chord(text: &str) -> Result<KeyChord, String> {
    if text.is_empty() {
        return Err("an empty key name".to_owned());
    }
    // A trailing "+" after a separator is the plus key itself ("Control++").
    let (head, last) = match text.strip_suffix("++") {
        Some(head) => (head, "+"),
        None if text == "+" => ("", "+"),
        None => match text.rsplit_once('+') {
            Some((head, last)) => (head, last),
            None => ("", text),
        },
    };
    let key = key_value(last).ok_or_else(|| format!("unknown key {last:?} in {text:?}"))?;
    let mut modifiers = Vec::new();
    if !head.is_empty() {
        for part in head.split('+') {
            let value =
                key_value(part).ok_or_else(|| format!("unknown key {part:?} in {text:?}"))?;
            if !is_modifier(&value) {
                return Err(format!(
                    "{part:?} in {text:?} is not a modifier (Shift, Control, Alt, Meta)"
                ));
            }
            modifiers.push(value);
        }
    }
    Ok(KeyChord { modifiers, key })
}

/// The key values that type `text`: one per character, with a line feed typed as Enter.
/// SPEC DIFFERENCE: BiDi allows a whole grapheme cluster per action, but a combining sequence
/// typed character by character gives the same text in both browsers, and no grapheme table is
/// needed here.
pub fn typing_key_values(text: &str) -> Vec<String> {
    text.chars()
        .filter(|character| *character != '\r')
        .map(|character| match character {
            '\n' => '\u{E007}'.to_string(),
            '\t' => '\u{E004}'.to_string(),
            other => other.to_string(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_aliases_and_characters_map_to_webdriver_key_values() {
        assert_eq!(key_value("Enter").as_deref(), Some("\u{E007}"));
        assert_eq!(key_value("enter").as_deref(), Some("\u{E007}"));
        assert_eq!(key_value("Ctrl").as_deref(), Some("\u{E009}"));
        assert_eq!(key_value("ArrowLeft").as_deref(), Some("\u{E012}"));
        assert_eq!(key_value("a").as_deref(), Some("a"));
        assert_eq!(key_value("A").as_deref(), Some("A"));
        assert_eq!(key_value("é").as_deref(), Some("é"));
        assert_eq!(key_value("Space").as_deref(), Some(" "));
        assert_eq!(key_value("Nonsense"), None);
    }

    #[test]
    fn chords_split_modifiers_from_the_key() {
        assert_eq!(
            parse_key_chord("Control+Shift+a"),
            Ok(KeyChord {
                modifiers: vec!["\u{E009}".into(), "\u{E008}".into()],
                key: "a".into()
            })
        );
        assert_eq!(
            parse_key_chord("Enter"),
            Ok(KeyChord {
                modifiers: vec![],
                key: "\u{E007}".into()
            })
        );
        assert_eq!(
            parse_key_chord("+"),
            Ok(KeyChord {
                modifiers: vec![],
                key: "+".into()
            })
        );
        assert_eq!(
            parse_key_chord("Alt++"),
            Ok(KeyChord {
                modifiers: vec!["\u{E00A}".into()],
                key: "+".into()
            })
        );
        assert!(parse_key_chord("a+b").is_err());
        assert!(parse_key_chord("Control+Bogus").is_err());
        assert!(parse_key_chord("").is_err());
    }

    #[test]
    fn typing_maps_line_breaks_to_enter_and_keeps_characters() {
        assert_eq!(
            typing_key_values("a\r\nb\té"),
            vec!["a", "\u{E007}", "b", "\u{E004}", "é"]
        );
    }
}
