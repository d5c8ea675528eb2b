//! Small CSS value parsing shared by the DOMs that read CSS text: the `content` property of
//! `::before` and `::after` (CSS Generated Content Level 3, "content"), whether it comes from a
//! style sheet (the in-memory DOM) or from `getComputedStyle` in the page (the glue's facts).
//!
//! A leaf: plain text in, plain values out. The algorithms never see CSS, only the text that
//! `Dom::pseudo_content` hands them.

use std::iter::Peekable;
use std::str::Chars;

/// One piece of a `content` value that can become text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ContentPiece {
    /// A string, escapes resolved.
    Text(String),
    /// `attr(name)`: the element's attribute, which only the DOM can read.
    Attribute(String),
}

/// A parsed `content` value that generates something.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Content {
    /// The pieces before any `/`, in order.
    pub pieces: Vec<ContentPiece>,
    /// The alternative text after a `/` (`content: "★" / "Favourite"`), which is what
    /// assistive technology reads instead of the pieces.
    pub alternative: Option<Vec<ContentPiece>>,
}

impl Content {
    /// The text the value generates: the alternative text when there is one, else the pieces,
    /// with `attribute` giving the value of each `attr()` (`None` reads as empty).
    pub fn text(&self, attribute: &dyn Fn(&str) -> Option<String>) -> String {
        let pieces = self.alternative.as_ref().unwrap_or(&self.pieces);
        let mut text = String::new();
        for piece in pieces {
            match piece {
                ContentPiece::Text(literal) => text.push_str(literal),
                ContentPiece::Attribute(name) => {
                    text.push_str(&attribute(name).unwrap_or_default());
                }
            }
        }
        text
    }
}

/// Parses a `content` value. `None` for `none` and `normal`, which generate nothing. Strings and
/// `attr(name)` are kept; other functions (`url()`, `counter()`, ...) and keywords give no text
/// and are skipped whole, so that a string inside them is not read as content. An unterminated
/// string runs to the end (CSS Syntax: "bad string" recovery at end of input).
pub fn parse_content(value: &str) -> Option<Content> {
    let trimmed = value.trim();
    if trimmed.eq_ignore_ascii_case("none") || trimmed.eq_ignore_ascii_case("normal") {
        return None;
    }
    let mut content = Content::default();
    let mut characters = trimmed.chars().peekable();
    let mut word = String::new();
    while let Some(character) = characters.next() {
        let piece = match character {
            '"' | '\'' => Some(ContentPiece::Text(read_string(&mut characters, character))),
            '(' => {
                let arguments = read_arguments(&mut characters);
                let function = std::mem::take(&mut word).to_ascii_lowercase();
                (function == "attr").then(|| ContentPiece::Attribute(arguments.trim().to_string()))
            }
            '/' => {
                word.clear();
                content.alternative = Some(Vec::new());
                None
            }
            character if character.is_whitespace() => {
                word.clear();
                None
            }
            character => {
                word.push(character);
                None
            }
        };
        if let Some(piece) = piece {
            word.clear();
            match &mut content.alternative {
                Some(alternative) => alternative.push(piece),
                None => content.pieces.push(piece),
            }
        }
    }
    Some(content)
}

/// The text of a computed `content` value as the page reports it: its strings joined, or its
/// alternative text. `attr()` is left unresolved (a computed value that still holds one names
/// no text this side can read), and an empty result is `None`.
pub fn content_text(css: &str) -> Option<String> {
    let text = parse_content(css)?.text(&|_| None);
    (!text.is_empty()).then_some(text)
}

/// Reads a string after its opening quote, up to the matching quote, with escapes resolved.
fn read_string(characters: &mut Peekable<Chars<'_>>, quote: char) -> String {
    let mut text = String::new();
    while let Some(inner) = characters.next() {
        match inner {
            '\\' => {
                if let Some(escaped) = read_escape(characters) {
                    text.push(escaped);
                }
            }
            inner if inner == quote => break,
            inner => text.push(inner),
        }
    }
    text
}

/// Reads a function's arguments after its `(`, up to the matching `)`; strings inside are
/// skipped whole, so that a `)` in a string does not end the function.
fn read_arguments(characters: &mut Peekable<Chars<'_>>) -> String {
    let mut arguments = String::new();
    let mut depth = 0usize;
    while let Some(inner) = characters.next() {
        match inner {
            '"' | '\'' => {
                read_string(characters, inner);
            }
            '(' => depth += 1,
            ')' if depth == 0 => break,
            ')' => depth -= 1,
            inner => arguments.push(inner),
        }
    }
    arguments
}

/// Reads a CSS escape after its backslash (CSS Syntax "consume an escaped code point"): up to
/// six hex digits and one optional whitespace, an escaped line break (nothing), or the next
/// character itself. A zero or out-of-range code point is U+FFFD.
fn read_escape(characters: &mut Peekable<Chars<'_>>) -> Option<char> {
    let mut hex = String::new();
    while hex.len() < 6 {
        match characters.peek() {
            Some(digit) if digit.is_ascii_hexdigit() => {
                hex.push(*digit);
                characters.next();
            }
            _ => break,
        }
    }
    if hex.is_empty() {
        return match characters.next() {
            Some('\n') | None => None,
            Some(other) => Some(other),
        };
    }
    if characters
        .peek()
        .is_some_and(|next| next.is_ascii_whitespace())
    {
        characters.next();
    }
    let code = u32::from_str_radix(&hex, 16).unwrap_or(0xfffd);
    Some(
        char::from_u32(code)
            .filter(|&character| character != '\0')
            .unwrap_or('\u{fffd}'),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn attr_and_alternative_text() {
        let attribute = |name: &str| (name == "data-x").then(|| "X".to_string());
        let text = |css: &str| parse_content(css).map(|content| content.text(&attribute));
        assert_eq!(text("\"A\" attr(data-x)").as_deref(), Some("AX"));
        assert_eq!(text("attr( data-x )").as_deref(), Some("X"));
        assert_eq!(text("attr(data-y)").as_deref(), Some(""));
        assert_eq!(text("\"★\" / attr(data-x)").as_deref(), Some("X"));
        assert_eq!(text("\"\"").as_deref(), Some(""));
        assert_eq!(text("NONE"), None);
        assert_eq!(text("counter(item, \")\") \"x\"").as_deref(), Some("x"));
        // The computed-value reading leaves attr() unresolved.
        assert_eq!(content_text("attr(data-x)"), None);
    }
}
