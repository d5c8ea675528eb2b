//! The HTML facts that several algorithms read the same way: element tests, the input types,
//! a select's options, text content, whitespace collapsing and `:disabled` from markup.
//!
//! One rule each, so that the role, the name and the states of an element never disagree about
//! what kind of input it is or which option is chosen. This module knows only `dom`.

use std::borrow::Cow;

use crate::dom::{Dom, Namespace, NodeId, NodeKind};

/// The element's local name when it is an HTML element.
pub fn html_tag<D: Dom + ?Sized>(dom: &D, node: NodeId) -> Option<&str> {
    (dom.node_kind(node) == NodeKind::Element && dom.namespace(node) == Namespace::Html)
        .then(|| dom.local_name(node))
}

/// Whether the node is an HTML element with this local name.
pub fn is_html<D: Dom + ?Sized>(dom: &D, node: NodeId, local_name: &str) -> bool {
    html_tag(dom, node) == Some(local_name)
}

/// The states of an `<input>`'s `type` attribute (HTML "the input element", the `type`
/// attribute's keywords).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum InputType {
    Button,
    Checkbox,
    Color,
    Date,
    DateTimeLocal,
    Email,
    File,
    Hidden,
    Image,
    Month,
    Number,
    Password,
    Radio,
    Range,
    Reset,
    Search,
    Submit,
    Tel,
    Text,
    Time,
    Url,
    Week,
}

/// Keyword -> input type, one row per keyword.
const INPUT_TYPES: &[(&str, InputType)] = &[
    ("button", InputType::Button),
    ("checkbox", InputType::Checkbox),
    ("color", InputType::Color),
    ("date", InputType::Date),
    ("datetime-local", InputType::DateTimeLocal),
    ("email", InputType::Email),
    ("file", InputType::File),
    ("hidden", InputType::Hidden),
    ("image", InputType::Image),
    ("month", InputType::Month),
    ("number", InputType::Number),
    ("password", InputType::Password),
    ("radio", InputType::Radio),
    ("range", InputType::Range),
    ("reset", InputType::Reset),
    ("search", InputType::Search),
    ("submit", InputType::Submit),
    ("tel", InputType::Tel),
    ("text", InputType::Text),
    ("time", InputType::Time),
    ("url", InputType::Url),
    ("week", InputType::Week),
];

impl InputType {
    /// The type of an `<input>`: its `type` keyword, ASCII case-insensitively, with surrounding
    /// ASCII whitespace ignored (hand-written markup such as `type="checkbox "` keeps its
    /// control); a missing or unknown keyword is the Text state (HTML: "the missing value
    /// default and the invalid value default are the Text state").
    pub fn of<D: Dom + ?Sized>(dom: &D, input: NodeId) -> InputType {
        let Some(value) = dom.attribute(input, "type") else {
            return InputType::Text;
        };
        let value = value.trim_ascii();
        INPUT_TYPES
            .iter()
            .find(|(keyword, _)| keyword.eq_ignore_ascii_case(value))
            .map_or(InputType::Text, |&(_, input_type)| input_type)
    }

    /// The keyword, lowercase.
    pub fn as_str(self) -> &'static str {
        INPUT_TYPES
            .iter()
            .find(|&&(_, input_type)| input_type == self)
            .map_or("text", |&(keyword, _)| keyword)
    }
}

/// A select's "list of options" (HTML): its `<option>` children and the `<option>` children of
/// its `<optgroup>` children, in tree order.
pub fn list_of_options<D: Dom + ?Sized>(dom: &D, select: NodeId) -> Vec<NodeId> {
    let mut options = Vec::new();
    for &child in dom.children(select) {
        if is_html(dom, child, "option") {
            options.push(child);
        } else if is_html(dom, child, "optgroup") {
            options.extend(
                dom.children(child)
                    .iter()
                    .copied()
                    .filter(|&option| is_html(dom, option, "option")),
            );
        }
    }
    options
}

/// The options of a select that are selected, in tree order. The DOM answers selectedness
/// (`Dom::option_selected`, which already applies HTML's "selectedness setting algorithm": a
/// drop-down with nothing chosen shows its first enabled option), so a select that shows no
/// option (its script set `selectedIndex = -1`) has none.
pub fn selected_options<D: Dom + ?Sized>(dom: &D, select: NodeId) -> Vec<NodeId> {
    let mut options = list_of_options(dom, select);
    options.retain(|&option| dom.option_selected(option));
    options
}

/// DOM `textContent`: a text node's data, or the concatenated data of the descendant text nodes
/// of an element (or a whole tree) in the light tree, walked iteratively.
pub fn text_content<D: Dom + ?Sized>(dom: &D, node: NodeId) -> String {
    let mut text = String::new();
    let mut stack = vec![node];
    let mut steps = 0usize;
    while let Some(current) = stack.pop() {
        // The bound guards against an implementation whose child lists form a cycle.
        steps += 1;
        if steps > dom.node_count().saturating_add(1) {
            break;
        }
        match dom.node_kind(current) {
            NodeKind::Text => text.push_str(dom.text_data(current)),
            NodeKind::Element | NodeKind::Document | NodeKind::ShadowRoot => {
                stack.extend(dom.children(current).iter().rev().copied());
            }
            NodeKind::Other => {}
        }
    }
    text
}

/// Infra's "strip and collapse ASCII whitespace": runs of tab, LF, FF, CR and space become one
/// space, and none is left at either end. A no-break space is not ASCII whitespace and stays, as
/// browsers keep it in names (and the WPT harness expects it).
pub fn collapse_ascii_whitespace(text: &str) -> String {
    let mut out = String::new();
    for word in text.split_ascii_whitespace() {
        if out.is_empty() {
            // Sized at the first word: text of whitespace alone (between elements) allocates
            // nothing.
            out.reserve(text.len());
        } else {
            out.push(' ');
        }
        out.push_str(word);
    }
    out
}

/// [`collapse_ascii_whitespace`] of a string the caller may give up: most text (a link's words,
/// a heading) is collapsed already, and is then kept as it is, an owned string without a copy and
/// a borrowed one in a single one (a read makes one for every name and text run;
/// docs/performance/warm-read.md, "The core's allocations").
pub fn collapse_ascii_whitespace_owned<'text>(text: impl Into<Cow<'text, str>>) -> String {
    let text = text.into();
    if is_collapsed(&text) {
        text.into_owned()
    } else {
        collapse_ascii_whitespace(&text)
    }
}

/// Whether [`collapse_ascii_whitespace`] would leave `text` as it is: no ASCII whitespace but
/// single spaces between words.
fn is_collapsed(text: &str) -> bool {
    // True at the start, so that leading whitespace counts as a run.
    let mut after_space = true;
    for &byte in text.as_bytes() {
        match byte {
            b' ' if after_space => return false,
            b' ' => after_space = true,
            b'\t' | b'\n' | b'\x0c' | b'\r' => return false,
            _ => after_space = false,
        }
    }
    !after_space || text.is_empty()
}

/// `:disabled` derived from attributes (HTML "concept-fe-disabled", "concept-option-disabled"):
/// - button, input, select, textarea and fieldset with a `disabled` attribute, or inside a
///   disabled `<fieldset>` but not inside that fieldset's first `<legend>` child;
/// - optgroup with a `disabled` attribute;
/// - option with a `disabled` attribute, or whose parent optgroup is disabled.
///
/// For DOMs that cannot ask a browser (the in-memory DOM). Iterative: one walk up the light
/// tree.
pub fn disabled_from_attributes<D: Dom + ?Sized>(dom: &D, element: NodeId) -> bool {
    let Some(tag) = html_tag(dom, element) else {
        return false;
    };
    let has_disabled = |node: NodeId| dom.attribute(node, "disabled").is_some();
    match tag {
        "optgroup" => return has_disabled(element),
        "option" => {
            return has_disabled(element)
                || dom.parent(element).is_some_and(|parent| {
                    is_html(dom, parent, "optgroup") && has_disabled(parent)
                });
        }
        "button" | "input" | "select" | "textarea" | "fieldset" => {}
        _ => return false,
    }
    if has_disabled(element) {
        return true;
    }
    // Walk up; `came_from` is the ancestor's child on the path to the element, to tell whether
    // the element sits inside a disabled fieldset's first legend.
    let mut came_from = element;
    for _ in 0..=dom.node_count() {
        let Some(ancestor) = dom.parent(came_from) else {
            return false;
        };
        if is_html(dom, ancestor, "fieldset") && has_disabled(ancestor) {
            let first_legend = dom
                .children(ancestor)
                .iter()
                .copied()
                .find(|&child| is_html(dom, child, "legend"));
            if first_legend != Some(came_from) {
                return true;
            }
        }
        came_from = ancestor;
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_input_type_keyword_reads_back() {
        for &(keyword, input_type) in INPUT_TYPES {
            assert_eq!(input_type.as_str(), keyword);
        }
    }

    #[test]
    fn collapsing_keeps_no_break_spaces() {
        assert_eq!(
            collapse_ascii_whitespace(" a\t\n b\u{c}\rc \u{a0}d "),
            "a b c \u{a0}d"
        );
        assert_eq!(collapse_ascii_whitespace(" \n "), "");
        for text in [
            "",
            " ",
            "a",
            "a b",
            " a",
            "a ",
            "a  b",
            "a\tb",
            "a\nb",
            "a\u{c}b",
            "a\rb",
            "a\u{a0} b",
            "\u{a0}",
            "word",
            "two words here",
            "x  ",
            "  x",
        ] {
            assert_eq!(
                collapse_ascii_whitespace_owned(text.to_string()),
                collapse_ascii_whitespace(text),
                "{text:?}"
            );
            assert_eq!(
                collapse_ascii_whitespace_owned(text),
                collapse_ascii_whitespace(text),
                "{text:?}"
            );
        }
    }
}
