//! Escaping page text for the text tree: every string is written inside double quotes with
//! backslash escapes for quotes, backslashes, line breaks of every kind, control and format
//! characters and look-alike brackets (`needs_unicode_escape`), and a `[` that could start
//! `[ref_` is written `\u{5b}`, so no name, value or URL can start a line, close its quotes, or
//! produce a `[ref_N]` token. Cutting a string to a budget never cuts an escape in half.

use std::fmt::Write as _;

/// How much of a string a line printed.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) enum Printed {
    /// All of it.
    Whole,
    /// Its first `kept` bytes, then an ellipsis.
    Cut { kept: usize },
    /// None of it (the line has no such string, or left it out).
    Nothing,
}

impl Printed {
    /// The printed part of `text`, unescaped.
    pub(super) fn of(self, text: String) -> String {
        match self {
            Printed::Whole => text,
            Printed::Cut { kept } => {
                let mut shown = text.get(..kept).unwrap_or("").to_string();
                shown.push('…');
                shown
            }
            Printed::Nothing => String::new(),
        }
    }
}

/// The length of `text` once escaped, in characters, without writing it.
pub(super) fn escaped_length(text: &str) -> usize {
    let mut length = 0;
    for (index, character) in text.char_indices() {
        let rest = &text[index + character.len_utf8()..];
        length += match escape_of(character, rest) {
            None => 1,
            Some(escape) => escape.length(),
        };
    }
    length
}

/// Appends `text` escaped; with a budget, only as many whole characters (never half an escape)
/// as fit in `budget - 1`, then an ellipsis, when the whole does not fit. Says how much of
/// `text` it printed.
pub(super) fn push_escaped_within(out: &mut String, text: &str, budget: Option<usize>) -> Printed {
    let Some(budget) = budget else {
        push_escaped(out, text);
        return Printed::Whole;
    };
    // Written whole first, since almost every string fits, then taken back when it did not.
    let start = out.len();
    push_escaped(out, text);
    if out[start..].chars().count() <= budget {
        return Printed::Whole;
    }
    out.truncate(start);
    if budget == 0 {
        return Printed::Nothing;
    }
    let mut used = 0;
    let mut kept = 0;
    for (index, character) in text.char_indices() {
        let next = index + character.len_utf8();
        // Escaped with what follows it, so that `[ref_` is still recognised.
        let escape = escape_of(character, &text[next..]);
        let length = escape.map_or(1, Escape::length);
        if used + length > budget - 1 {
            break;
        }
        match escape {
            None => out.push(character),
            Some(escape) => escape.push_to(out),
        }
        used += length;
        kept = next;
    }
    out.push('…');
    Printed::Cut { kept }
}

/// How one character of page text is written inside the text tree's quotes, when not as itself.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Escape {
    /// A fixed escape: a backslash and one letter or the character itself (`\\`, `\"`, `\n`,
    /// `\r`, `\t`), or the `[` that would start `[ref_`, always `\u{5b}`.
    Fixed(&'static str),
    /// A code point escape, `\u{...}` with at least four hexadecimal digits.
    CodePoint(u32),
}

impl Escape {
    /// The escape's length in characters.
    fn length(self) -> usize {
        match self {
            Escape::Fixed(text) => text.len(),
            // `\u{` and `}` around the digits, four at least.
            Escape::CodePoint(code) => {
                let digits = (32 - code.leading_zeros()).div_ceil(4).max(4) as usize;
                digits + 4
            }
        }
    }

    fn push_to(self, out: &mut String) {
        match self {
            Escape::Fixed(text) => out.push_str(text),
            Escape::CodePoint(code) => {
                // Writing to a String cannot fail.
                let _ = write!(out, "\\u{{{code:04x}}}");
            }
        }
    }
}

/// How `character` is written when `rest` follows it, or None when it is written as itself:
/// the one table of the text tree's escapes, which both writing and measuring read.
fn escape_of(character: char, rest: &str) -> Option<Escape> {
    if character.is_ascii() {
        return match character {
            '\\' => Some(Escape::Fixed("\\\\")),
            '"' => Some(Escape::Fixed("\\\"")),
            '\n' => Some(Escape::Fixed("\\n")),
            '\r' => Some(Escape::Fixed("\\r")),
            '\t' => Some(Escape::Fixed("\\t")),
            // Written as a code point escape rather than `\[`, so that no quoted string holds
            // the characters `[ref_` at all and a line's only `[ref_` is its own reference.
            '[' if starts_reference(rest) => Some(Escape::Fixed("\\u{5b}")),
            character if character.is_ascii_control() => {
                Some(Escape::CodePoint(u32::from(character)))
            }
            _ => None,
        };
    }
    needs_unicode_escape(character).then_some(Escape::CodePoint(u32::from(character)))
}

/// Appends `text` escaped for a double-quoted string of the text tree. Runs of characters
/// written as themselves are copied whole (most page text is such a run).
pub fn push_escaped(out: &mut String, text: &str) {
    let mut unescaped_from = 0;
    for (index, character) in text.char_indices() {
        let next = index + character.len_utf8();
        if let Some(escape) = escape_of(character, &text[next..]) {
            out.push_str(&text[unescaped_from..index]);
            escape.push_to(out);
            unescaped_from = next;
        }
    }
    out.push_str(&text[unescaped_from..]);
}

/// Whether text right after a `[` could make it read as a reference (`[ref_`): the letters
/// `ref` in any case, or any non-ASCII character, which may be a look-alike of one of them
/// (Unicode's confusables: Cyrillic `е`, fullwidth `ｒ`, ...). Escaping a `[` costs one
/// backslash, so the test errs on the side of escaping.
fn starts_reference(after_bracket: &str) -> bool {
    after_bracket
        .get(..3)
        .is_some_and(|prefix| prefix.eq_ignore_ascii_case("ref"))
        || after_bracket
            .chars()
            .next()
            .is_some_and(|next| !next.is_ascii())
}

/// Characters printed as `\u{...}` escapes, so that page text can neither start a line nor
/// hide or fake a reference:
///
/// - Unicode general category Cc (controls, NEL U+0085, VT, FF and CR among them), Zl (U+2028
///   LINE SEPARATOR) and Zp (U+2029 PARAGRAPH SEPARATOR): a reader may break the line there
///   (Unicode Standard Annex #14 classes them as mandatory breaks).
/// - Category Cf (format characters: zero-width spaces and joiners, bidirectional controls, the
///   byte order mark, invisible operators, tags, ...): they are invisible, so `[\u{200b}ref_12]`
///   would read as `[ref_12]`, and bidirectional controls can make a line read in another order
///   than it parses. Escaping (rather than dropping) keeps the text an agent types back
///   recoverable and shows that something was there.
/// - Look-alikes of the square brackets (fullwidth `［ ］`, white, tortoise-shell, lenticular and
///   mathematical brackets, ...): a `［ref_3］` would read as a reference.
fn needs_unicode_escape(character: char) -> bool {
    character.is_control()
        || is_format_character(character)
        || matches!(character, '\u{2028}' | '\u{2029}')
        || is_bracket_look_alike(character)
}

/// Unicode general category Cf (Unicode 15.1, DerivedGeneralCategory.txt).
fn is_format_character(character: char) -> bool {
    matches!(
        character,
        '\u{00ad}'
            | '\u{0600}'..='\u{0605}'
            | '\u{061c}'
            | '\u{06dd}'
            | '\u{070f}'
            | '\u{0890}'..='\u{0891}'
            | '\u{08e2}'
            | '\u{180e}'
            | '\u{200b}'..='\u{200f}'
            | '\u{202a}'..='\u{202e}'
            | '\u{2060}'..='\u{2064}'
            | '\u{2066}'..='\u{206f}'
            | '\u{feff}'
            | '\u{fff9}'..='\u{fffb}'
            | '\u{110bd}'
            | '\u{110cd}'
            | '\u{13430}'..='\u{1343f}'
            | '\u{1bca0}'..='\u{1bca3}'
            | '\u{1d173}'..='\u{1d17a}'
            | '\u{e0001}'
            | '\u{e0020}'..='\u{e007f}'
    )
}

/// Opening and closing punctuation (categories Ps and Pe) that looks like `[` or `]`: the
/// fullwidth and halfwidth forms, and the square-bracket variants of the Miscellaneous
/// Technical, Dingbats, Miscellaneous Mathematical Symbols, CJK Symbols and vertical-form blocks.
fn is_bracket_look_alike(character: char) -> bool {
    matches!(
        character,
        '\u{ff3b}' | '\u{ff3d}' // FULLWIDTH LEFT/RIGHT SQUARE BRACKET
            | '\u{2045}' | '\u{2046}' // SQUARE BRACKET WITH QUILL
            | '\u{2308}'..='\u{230b}' // CEILING and FLOOR
            | '\u{23a1}'..='\u{23a6}' // SQUARE BRACKET pieces
            | '\u{2772}' | '\u{2773}' // LIGHT TORTOISE SHELL BRACKET ORNAMENT
            | '\u{27e6}' | '\u{27e7}' // MATHEMATICAL WHITE SQUARE BRACKET
            | '\u{27ec}' | '\u{27ed}' // MATHEMATICAL WHITE TORTOISE SHELL BRACKET
            | '\u{298b}'..='\u{2990}' // SQUARE BRACKET WITH UNDERBAR / TICK
            | '\u{2997}' | '\u{2998}' // BLACK TORTOISE SHELL BRACKET
            | '\u{3010}' | '\u{3011}' // BLACK LENTICULAR BRACKET
            | '\u{3014}'..='\u{301b}' // TORTOISE SHELL, WHITE LENTICULAR, WHITE SQUARE
            | '\u{fe17}' | '\u{fe18}' // VERTICAL WHITE LENTICULAR BRACKET
            | '\u{fe39}'..='\u{fe3c}'
            | '\u{fe47}' | '\u{fe48}' // PRESENTATION FORM FOR VERTICAL SQUARE BRACKET
            | '\u{fe5d}' | '\u{fe5e}' // SMALL TORTOISE SHELL BRACKET
            | '\u{ff62}' | '\u{ff63}' // HALFWIDTH CORNER BRACKET
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn escaped(text: &str) -> String {
        let mut out = String::new();
        push_escaped(&mut out, text);
        out
    }

    #[test]
    fn escaping_keeps_page_text_inside_its_quotes() {
        assert_eq!(escaped("a\"b"), "a\\\"b");
        assert_eq!(
            escaped("line\nbreak\r\u{2028}x"),
            "line\\nbreak\\r\\u{2028}x"
        );
        assert_eq!(
            escaped("see [ref_9] and [REF_1]"),
            "see \\u{5b}ref_9] and \\u{5b}REF_1]"
        );
        assert_eq!(escaped("[x] [re"), "[x] [re");
        assert_eq!(escaped("back\\slash"), "back\\\\slash");
        // Format characters (Unicode Cf), look-alike brackets and letters cannot fake a ref.
        assert_eq!(
            escaped("[\u{ff52}\u{ff45}\u{ff46}_1] [\u{200b}ref_2] \u{ff3b}ref_3\u{ff3d} a\u{85}b\u{0b}c"),
            "\\u{5b}\u{ff52}\u{ff45}\u{ff46}_1] \\u{5b}\\u{200b}ref_2] \\u{ff3b}ref_3\\u{ff3d} a\\u{0085}b\\u{000b}c"
        );
    }

    #[test]
    fn the_measured_length_is_the_written_length() {
        // Every kind of escape, beside plain ASCII and other scripts, in many orders: the length
        // measured without writing must be what writing produces, or budgets cut wrongly.
        let pieces = [
            "a",
            "\\",
            "\"",
            "\n",
            "\r",
            "\t",
            "[",
            "[ref_",
            "[REF",
            "[\u{435}",
            "\u{0}",
            "\u{7f}",
            "\u{85}",
            "\u{200b}",
            "\u{2028}",
            "\u{ff3b}",
            "\u{e0020}",
            "\u{1d173}",
            "é",
            "漢",
            "😀",
        ];
        for first in pieces {
            for second in pieces {
                for third in pieces {
                    let text = format!("{first}{second}{third}");
                    assert_eq!(
                        escaped_length(&text),
                        escaped(&text).chars().count(),
                        "{text:?}"
                    );
                }
            }
        }
        assert_eq!(escaped("\u{e0020}\u{1}"), "\\u{e0020}\\u{0001}");
    }

    #[test]
    fn escapes_are_never_cut_in_half() {
        let mut out = String::new();
        let printed = push_escaped_within(&mut out, "ab\n[ref_2]cd", Some(6));
        assert_eq!(out, "ab\\n…");
        assert_eq!(printed, Printed::Cut { kept: 3 });
        out.clear();
        let printed = push_escaped_within(&mut out, "a[ref_2]", Some(8));
        assert_eq!(out, "a\\u{5b}…");
        assert_eq!(printed, Printed::Cut { kept: 2 });
    }
}
