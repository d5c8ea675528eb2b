//! One line of the text tree before it is written (`Line`), and its writing: whole, or within
//! a page's `maxChars`, shortening its strings and never its structure (role, reference, quotes,
//! escapes).

use super::escaping::{escaped_length, push_escaped_within, Printed};
use super::{LONGEST_PRINTED_NAME, LONGEST_PRINTED_VALUE, OVERLAYS_BANNER};
use std::borrow::Cow;

use crate::dom::NodeId;

/// One line of the text tree before it is written, so that an overlong line can be shortened
/// without cutting through its structure.
pub(super) struct Line<'tree> {
    /// The DOM node of the line (its reference stands for it).
    pub(super) node: NodeId,
    pub(super) indent: usize,
    pub(super) role: &'static str,
    /// Borrowed from the tree's node: a line of its own for every name was a copy each
    /// (docs/performance/warm-read.md, "The core's allocations").
    pub(super) name: Option<Cow<'tree, str>>,
    pub(super) reference: Option<String>,
    /// The registry's reference of an element whose line does not print it
    /// (`printed_reference::prints_reference`), kept in case the line must print it after all.
    pub(super) unprinted_reference: Option<String>,
    /// The reference is printed only because the node is a container to zoom into
    /// (`ReferencePrinting::IfLargeContainer`): `drop_references_of_small_containers` decides.
    pub(super) zoom_container: bool,
    /// An iframe's frame id: written after the reference, unquoted, as part of the structure
    /// (a number the page cannot choose), and never cut.
    pub(super) frame_id: Option<u64>,
    pub(super) attributes: Vec<(&'static str, String)>,
    /// Printed as `closed-shadow-root`: the host's closed shadow root could not be read.
    pub(super) closed_shadow_root: bool,
    /// Printed as `collapsed`: a list item whose nested list is hidden (`AxNode::collapsed`).
    pub(super) collapsed: bool,
    /// The line left its name out because its first child's line prints it (a region labelled
    /// by its heading): a reader shown this line alone, as the context of a change, needs that
    /// child's line too (`tree_diff.rs`).
    pub(super) name_left_to_first_child: bool,
}

/// Marks a line whose attributes were left out to fit `maxChars`.
const OMITTED_ATTRIBUTES: &str = " …";

/// Marks a shadow host whose closed shadow root could not be read (get_accessibility_tree's
/// description promises the word; get_shadow_dom reads such roots in Chrome).
const CLOSED_SHADOW_ROOT_MARK: &str = " closed-shadow-root";

/// Marks a list item or tree item whose nested list is hidden (`AxNode::collapsed`).
const COLLAPSED_MARK: &str = " collapsed";

impl<'tree> Line<'tree> {
    /// About how many characters the line prints, newline included, without writing it (byte
    /// lengths, escapes not counted).
    pub(super) fn estimated_length(&self) -> usize {
        let name = self.name.as_ref().map_or(0, |name| name.len() + 3);
        let reference = self
            .reference
            .as_ref()
            .or(self.unprinted_reference.as_ref())
            .map_or(0, |reference| reference.len() + 3);
        let attributes: usize = self
            .attributes
            .iter()
            .map(|(key, value)| key.len() + value.len() + 4)
            .sum();
        self.indent + self.role.len() + name + reference + attributes + 1
    }

    /// Whether the line would print its role and nothing else.
    pub(super) fn is_bare(&self) -> bool {
        self.name.is_none()
            && self.reference.is_none()
            && self.frame_id.is_none()
            && self.attributes.is_empty()
            && !self.closed_shadow_root
            && !self.collapsed
    }

    pub(super) fn banner() -> Line<'tree> {
        Line {
            node: NodeId(u32::MAX),
            indent: 0,
            role: "",
            name: None,
            reference: None,
            unprinted_reference: None,
            zoom_container: false,
            frame_id: None,
            attributes: Vec::new(),
            closed_shadow_root: false,
            collapsed: false,
            name_left_to_first_child: false,
        }
    }

    /// Writes the line; `budgets` limits each string (name first, then attribute values) to
    /// that many characters once escaped, an ellipsis included. Also says how much of the name
    /// it printed.
    pub(super) fn write(
        &self,
        budgets: Option<&[usize]>,
        with_attributes: bool,
    ) -> (String, Printed) {
        if self.role.is_empty() {
            return (OVERLAYS_BANNER.to_string(), Printed::Nothing);
        }
        // Sized for the whole line at once: grown piece by piece, a line was reallocated two or
        // three times, on every line of every read (docs/performance/warm-read.md, "The core's
        // allocations"). Escapes and attribute keys may still need a little more.
        let strings_length = self.name.as_ref().map_or(0, |name| name.len())
            + self.reference.as_ref().map_or(0, String::len)
            + self
                .attributes
                .iter()
                .map(|(key, value)| key.len() + value.len() + 4)
                .sum::<usize>();
        let mut line = String::with_capacity(self.indent + self.role.len() + strings_length + 16);
        line.extend(std::iter::repeat_n(' ', self.indent));
        line.push_str(self.role);
        let mut budget_of = budgets.map(|budgets| budgets.iter().copied());
        let mut next_budget = || budget_of.as_mut().and_then(Iterator::next);
        // Whatever the page's room, one string never prints longer than its cap.
        let capped = |budget: Option<usize>, cap: usize| Some(budget.map_or(cap, |b| b.min(cap)));
        let mut printed_name = Printed::Nothing;
        if let Some(name) = &self.name {
            line.push_str(" \"");
            printed_name =
                push_escaped_within(&mut line, name, capped(next_budget(), LONGEST_PRINTED_NAME));
            line.push('"');
        }
        if let Some(reference) = &self.reference {
            line.push_str(" [");
            line.push_str(reference);
            line.push(']');
        }
        if let Some(frame_id) = self.frame_id {
            line.push_str(" frameId=");
            line.push_str(&frame_id.to_string());
        }
        if self.closed_shadow_root {
            line.push_str(CLOSED_SHADOW_ROOT_MARK);
        }
        if self.collapsed {
            line.push_str(COLLAPSED_MARK);
        }
        if with_attributes {
            for (key, value) in &self.attributes {
                line.push(' ');
                line.push_str(key);
                line.push_str("=\"");
                push_escaped_within(
                    &mut line,
                    value,
                    capped(next_budget(), LONGEST_PRINTED_VALUE),
                );
                line.push('"');
            }
        } else if !self.attributes.is_empty() {
            line.push_str(OMITTED_ATTRIBUTES);
        }
        (line, printed_name)
    }

    /// Writes the line in at most `max_chars` characters: long strings are shortened first
    /// (each gets a fair share of the room left), then attributes are left out, then the name;
    /// the structure (role, reference, quotes, escapes) is never cut. Returns the line, whether
    /// it had to be shortened, and how much of the name it printed.
    pub(super) fn write_within(&self, max_chars: usize) -> (String, bool, Printed) {
        let (full, printed_name) = self.write(None, true);
        if full.chars().count() <= max_chars {
            return (full, false, printed_name);
        }
        for with_attributes in [true, false] {
            let strings: Vec<&str> = self
                .name
                .iter()
                .map(|name| name.as_ref())
                .chain(
                    self.attributes
                        .iter()
                        .filter(|_| with_attributes)
                        .map(|(_, value)| value.as_str()),
                )
                .collect();
            let empty_budgets = vec![0; strings.len()];
            let fixed = self
                .write(Some(&empty_budgets), with_attributes)
                .0
                .chars()
                .count();
            let Some(room) = max_chars.checked_sub(fixed) else {
                continue;
            };
            let lengths: Vec<usize> = strings.iter().map(|text| escaped_length(text)).collect();
            let budgets = fair_shares(&lengths, room);
            if strings.is_empty()
                || budgets
                    .iter()
                    .zip(&lengths)
                    .all(|(budget, length)| *budget >= 2.min(*length))
            {
                let (line, printed_name) = self.write(Some(&budgets), with_attributes);
                return (line, true, printed_name);
            }
        }
        // Not even the name fits: role and reference only, indentation reduced if need be.
        let bare = Line {
            node: self.node,
            indent: self.indent,
            role: self.role,
            name: None,
            reference: self.reference.clone(),
            unprinted_reference: None,
            zoom_container: false,
            frame_id: self.frame_id,
            attributes: Vec::new(),
            closed_shadow_root: self.closed_shadow_root,
            collapsed: self.collapsed,
            name_left_to_first_child: false,
        };
        let (mut line, _) = bare.write(None, true);
        line.push_str(OMITTED_ATTRIBUTES);
        let overflow = line.chars().count().saturating_sub(max_chars);
        let trimmed_indent = overflow.min(self.indent);
        (line[trimmed_indent..].to_string(), true, Printed::Nothing)
    }
}

/// Splits `room` among strings of these lengths: short strings keep all they need, the long
/// ones share the rest equally ("water filling").
fn fair_shares(lengths: &[usize], room: usize) -> Vec<usize> {
    let mut budgets = vec![0; lengths.len()];
    let mut order: Vec<usize> = (0..lengths.len()).collect();
    order.sort_by_key(|&index| lengths[index]);
    let mut room_left = room;
    for (position, &index) in order.iter().enumerate() {
        let share = room_left / (order.len() - position);
        let given = lengths[index].min(share);
        budgets[index] = given;
        room_left -= given;
    }
    budgets
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    pub(in crate::text) fn button(index: usize, name: String) -> Line<'static> {
        Line {
            node: NodeId(index as u32),
            indent: 1,
            role: "button",
            name: Some(name.into()),
            reference: Some(format!("ref_{index}")),
            unprinted_reference: None,
            zoom_container: false,
            frame_id: None,
            attributes: vec![("type", "submit".to_string())],
            closed_shadow_root: false,
            collapsed: false,
            name_left_to_first_child: false,
        }
    }

    #[test]
    fn huge_attribute_values_give_way_to_the_name() {
        let mut line = button(3, "Pay".to_string());
        line.attributes.push(("value", "v".repeat(10_000)));
        let (written, shortened, _) = line.write_within(100);
        assert!(shortened);
        assert!(written.chars().count() <= 100, "{written}");
        assert!(
            written.contains("button \"Pay\" [ref_3] type=\"submit\" value=\"vvv"),
            "{written}"
        );
    }
}
