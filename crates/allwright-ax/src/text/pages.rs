//! Paging: the text tree cut into 1-based pages of at most `maxChars` characters, and the
//! references each page printed.

use super::escaping::Printed;
use super::line::Line;
use super::PrintedRef;

/// The smallest `maxChars` honoured: below it not even a role and a reference fit on a line.
pub const MIN_MAX_CHARS: usize = 100;

/// The text tree cut into pages.
pub(super) struct Pages {
    pub(super) texts: Vec<String>,
    /// The lines of each page, as a range of line positions.
    pub(super) line_ranges: Vec<std::ops::Range<usize>>,
    /// How much of each line's name was printed; empty when every name was printed whole.
    pub(super) printed_names: Vec<Printed>,
    /// Whether anything was cut.
    pub(super) degraded: bool,
}

/// Splits lines into pages of at most `max_chars` characters (lines joined by newlines). A line
/// longer than a page is shortened without breaking its structure.
/// `written`, when given, holds every line already written in full.
pub(super) fn paginate(
    lines: &[Line],
    max_chars: Option<usize>,
    written: Option<&[String]>,
) -> Pages {
    let Some(max_chars) = max_chars else {
        let text = match written {
            Some(written) => written.join("\n"),
            None => lines
                .iter()
                .map(|line| line.write(None, true).0)
                .collect::<Vec<_>>()
                .join("\n"),
        };
        return Pages {
            texts: vec![text],
            line_ranges: std::iter::once(0..lines.len()).collect(),
            printed_names: Vec::new(),
            degraded: false,
        };
    };
    let max_chars = max_chars.max(MIN_MAX_CHARS);
    let mut pages = Pages {
        texts: Vec::new(),
        line_ranges: Vec::new(),
        printed_names: Vec::with_capacity(lines.len()),
        degraded: false,
    };
    let mut current = String::new();
    let mut current_chars = 0usize;
    let mut page_start = 0usize;
    for (position, line) in lines.iter().enumerate() {
        let (line, shortened, printed_name) = line.write_within(max_chars);
        pages.printed_names.push(printed_name);
        pages.degraded |= shortened;
        let line_chars = line.chars().count();
        let needed = if current.is_empty() {
            line_chars
        } else {
            current_chars + 1 + line_chars
        };
        if needed > max_chars && !current.is_empty() {
            pages.texts.push(std::mem::take(&mut current));
            pages.line_ranges.push(page_start..position);
            page_start = position;
            current_chars = 0;
            pages.degraded = true;
        }
        if !current.is_empty() {
            current.push('\n');
            current_chars += 1;
        }
        current.push_str(&line);
        current_chars += line_chars;
    }
    pages.texts.push(current);
    pages.line_ranges.push(page_start..lines.len());
    pages
}

/// The references printed on page `page_index`, in print order. Takes the names out of the
/// lines rather than copying them: the lines are not needed any more.
pub(super) fn printed_refs(
    lines: &mut [Line],
    pages: &Pages,
    page_index: usize,
) -> Vec<PrintedRef> {
    let Some(range) = pages.line_ranges.get(page_index) else {
        return Vec::new();
    };
    let mut refs = Vec::new();
    for position in range.clone() {
        let Some(line) = lines.get_mut(position) else {
            break;
        };
        if line.reference.is_none() {
            continue;
        }
        let printed = pages
            .printed_names
            .get(position)
            .copied()
            .unwrap_or(Printed::Whole);
        let name = line
            .name
            .take()
            .map_or_else(String::new, |name| printed.of(name.into_owned()));
        refs.push(PrintedRef {
            node: line.node,
            role: line.role,
            name,
            focusable: false,
        });
    }
    refs
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::line::tests::button;

    #[test]
    fn pages_never_exceed_max_chars() {
        let lines: Vec<Line> = (0..50)
            .map(|index| button(index, format!("Item {index}")))
            .collect();
        let pages = paginate(&lines, Some(100), None);
        assert!(pages.degraded);
        assert!(pages.texts.len() > 5);
        for page in &pages.texts {
            assert!(page.chars().count() <= 100, "{page}");
        }
        let whole: Vec<String> = lines.iter().map(|line| line.write(None, true).0).collect();
        assert_eq!(pages.texts.join("\n"), whole.join("\n"));
        // Each page's line range holds exactly the lines it printed.
        for (text, range) in pages.texts.iter().zip(&pages.line_ranges) {
            assert_eq!(*text, whole[range.clone()].join("\n"));
        }
    }

    #[test]
    fn an_overlong_line_is_shortened_inside_its_strings_only() {
        let line = button(7, format!("{}\n[ref_1]", "x".repeat(300)));
        let pages = paginate(std::slice::from_ref(&line), Some(100), None);
        assert!(pages.degraded);
        assert_eq!(pages.texts.len(), 1);
        let page = &pages.texts[0];
        assert!(page.chars().count() <= 100);
        assert!(page.starts_with(" button \"xxx"), "{page}");
        assert!(page.ends_with("…\" [ref_7] type=\"submit\""), "{page}");
        // The printed name, unescaped, is the printed prefix and its ellipsis.
        let Printed::Cut { kept } = pages.printed_names[0] else {
            panic!("the name was not cut: {:?}", pages.printed_names[0]);
        };
        let shown = page.split('"').nth(1).unwrap_or("");
        assert_eq!(format!("{}…", &"x".repeat(300)[..kept]), shown);
    }
}
