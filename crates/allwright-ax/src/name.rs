//! Accessible names and descriptions (accname 1.2), then allwright's own fallbacks.
//!
//! The code follows "Accessible Name and Description Computation 1.2"
//! (<https://w3c.github.io/accname/>, section 4.3) step by step: every step is a labelled branch
//! quoting the step's title (`// 2B: LabelledBy`). HTML specifics of step 2E come from HTML-AAM
//! "Accessible Name Computations By HTML Element", SVG's `<title>` from SVG-AAM.
//!
//! The spec's algorithm is recursive (2F computes the text alternative of every child). Here the
//! walk over descendants is an explicit stack (`Walker::content_text`), so a 100,000-deep page
//! cannot overflow the thread's stack; only references (aria-labelledby, `<label>`, `<legend>`,
//! the options of an embedded `<select>`) nest calls, and those are bounded by
//! `MAX_REFERENCE_DEPTH`. Total work is bounded too (`NODE_BUDGET`, `MAX_NAME_CHARS`).
//!
//! Where the spec gives no name, pragmatic fallbacks (`heuristic_name`: an unlabelled select's
//! chosen option, an unused placeholder, the text just before a field) give the agent something
//! to act on, and the name says so with `NameSource::Heuristic` (the snapshot writes
//! `nameSource: heuristic`).
//!
//! Deviations from the spec say `SPEC DIFFERENCE:` with the test or browser behaviour behind them.

use std::borrow::Cow;

use rustc_hash::FxHashSet as HashSet;

use crate::aria::Role;
use crate::composed::FlatTree;
use crate::context::Context;
use crate::dom::{Display, Dom, Namespace, NodeId, NodeKind, PseudoElement, TextTransform};
use crate::html::{collapse_ascii_whitespace_owned, is_html, selected_options, InputType};

/// Where a name came from: the accname algorithm, or one of the pragmatic fallbacks used only
/// when accname gives no name (`heuristic_name`).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum NameSource {
    #[default]
    Spec,
    Heuristic,
}

/// A computed accessible name, whitespace-normalised.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AccessibleName {
    pub text: String,
    pub source: NameSource,
}

/// The longest name or description we return, in characters. Browsers do not truncate, but a
/// name longer than this is a page's whole text rather than a label, and the agent's tree has a
/// character budget of its own; the cap keeps every computation total and cheap.
pub const MAX_NAME_CHARS: usize = 10_000;

/// How many nodes one name or description computation may visit. A button wrapping a 100,000-node
/// subtree gets the text of its first 50,000 nodes; without a bound, naming every nested element
/// of a deep page would be quadratic.
const NODE_BUDGET: usize = 50_000;

/// How deeply references may nest: a label whose content holds a control whose own label holds
/// another control, and so on. Real pages need two or three levels.
const MAX_REFERENCE_DEPTH: usize = 24;

/// How many IDREFs of one aria-labelledby or aria-describedby we follow; a page could otherwise
/// make one attribute cost millions of lookups.
const MAX_IDREFS: usize = 64;

/// The longest text (in characters) that the preceding-sibling fallback accepts as a label: a
/// longer text is a paragraph, not the caption of a field.
const MAX_SIBLING_LABEL_CHARS: usize = 80;

/// How many ancestors the preceding-sibling fallback climbs when the field has no preceding text
/// of its own (`<td>Every</td><td><input></td>`).
const SIBLING_LABEL_LEVELS: usize = 3;

/// The element's accessible name: accname 1.2, then the fallbacks of `heuristic_name`.
pub(crate) fn compute_name<D: Dom + ?Sized>(
    context: &Context<'_, D>,
    element: NodeId,
) -> AccessibleName {
    if !context.is_element(element) {
        return AccessibleName::default();
    }
    // An element whose role prohibits naming (a clickable `<div aria-label="Close">`) gets no
    // name from aria-labelledby or aria-label for WAI-ARIA, but HTML-AAM lists them first for
    // such elements (WPT html-aam 4.1.17/*.html) and browsers expose them: the author's label is
    // kept, in HTML-AAM's order, and marked heuristic.
    let role = context.role(element);
    if role.prohibits_naming() && role != Role::None {
        let text = prohibited_author_label(context, element);
        if !text.is_empty() {
            return AccessibleName {
                text,
                source: NameSource::Heuristic,
            };
        }
    }
    let mut walker = Walker::new(context);
    let text = finish(walker.text_alternative(element, Traversal::ROOT));
    if !text.is_empty() {
        return AccessibleName {
            text,
            source: NameSource::Spec,
        };
    }
    let text = heuristic_name(context, element);
    if text.is_empty() {
        return AccessibleName::default();
    }
    AccessibleName {
        text,
        source: NameSource::Heuristic,
    }
}

/// The element's accessible description (accname 1.2 "Computation steps", computing a
/// description, and HTML-AAM "Accessible Description Computation").
pub(crate) fn compute_description<D: Dom + ?Sized>(
    context: &Context<'_, D>,
    element: NodeId,
) -> String {
    if !context.is_element(element) {
        return String::new();
    }
    let dom = context.dom();
    let mut walker = Walker::new(context);
    // 2B (for a description): aria-describedby. "If computing a description, and the current node
    // has an aria-describedby attribute containing at least one valid IDREF", the text
    // alternatives of the referenced nodes, joined by spaces.
    if let Some(text) = walker.referenced_text(element, "aria-describedby", false) {
        let text = finish(text);
        if !text.is_empty() {
            return text;
        }
    }
    // WAI-ARIA 1.3 aria-description: a flat string, used when aria-describedby gives nothing.
    if let Some(text) = dom.attribute(element, "aria-description").map(finish) {
        if !text.is_empty() {
            return text;
        }
    }
    // SVG-AAM: the first `<desc>` child of an SVG element describes it.
    if dom.namespace(element) == Namespace::Svg {
        if let Some(desc) = first_child_element(dom, element, Namespace::Svg, "desc") {
            let text = finish(walker.content_text(desc, Traversal::referenced(true)));
            if !text.is_empty() {
                return text;
            }
        }
    }
    // HTML-AAM: the title attribute describes the element when it did not already name it.
    if let Some(title) = dom.attribute(element, "title").map(finish) {
        if !title.is_empty() && context.name(element).text != title {
            return title;
        }
    }
    String::new()
}

/// Normalises whitespace and cuts the result to `MAX_NAME_CHARS` characters, the last of which
/// is then `…`: a cut name says that it was cut, in the tree and in the snapshot alike (issue 12:
/// long texts are cut with a marker), since the tree's own cap (`LONGEST_PRINTED_NAME` in
/// text.rs) is the same length and so never sees a longer name to mark.
fn finish<'text>(text: impl Into<Cow<'text, str>>) -> String {
    let mut out = collapse_ascii_whitespace_owned(text);
    let mut characters = out.char_indices();
    // One pass: where the kept characters end, and whether any follow the limit.
    if let Some((kept, _)) = characters.nth(MAX_NAME_CHARS - 1) {
        if characters.next().is_none() {
            return out;
        }
        out.truncate(kept);
        out.truncate(out.trim_end_matches(' ').len());
        out.push('…');
    }
    out
}

/// Whether a string has nothing but ASCII whitespace (the spec's "empty" for attributes such as
/// aria-label; WPT comp_label.html: a whitespace-only aria-label is ignored).
fn is_blank(text: &str) -> bool {
    text.trim_ascii().is_empty()
}

/// The attribute's value when it is present and not blank.
fn non_blank_attribute<'dom, D: Dom + ?Sized>(
    dom: &'dom D,
    element: NodeId,
    name: &str,
) -> Option<&'dom str> {
    dom.attribute(element, name)
        .filter(|value| !is_blank(value))
}

/// Where in the computation a node is reached: the flags that the spec's steps test.
#[derive(Copy, Clone, Debug)]
struct Traversal {
    /// The node is the element whose name is computed ("the root node"). Every other node is
    /// reached from it through a reference or as a descendant, which makes 2C (embedded controls)
    /// apply and lets 2F use its content whatever its role.
    is_root: bool,
    /// The node is part of an aria-labelledby traversal, so 2B does not follow references again.
    in_labelledby: bool,
    /// The node directly referenced by aria-labelledby, aria-describedby or a `<label>` was
    /// hidden, so hidden nodes of its subtree count (2A).
    include_hidden: bool,
}

impl Traversal {
    const ROOT: Traversal = Traversal {
        is_root: true,
        in_labelledby: false,
        include_hidden: false,
    };

    /// A node reached through a reference (aria-describedby, a `<label>`), not aria-labelledby.
    fn referenced(include_hidden: bool) -> Traversal {
        Traversal {
            is_root: false,
            in_labelledby: false,
            include_hidden,
        }
    }

    /// The flags for the descendants of a node reached with these flags.
    fn descendant(self) -> Traversal {
        Traversal {
            is_root: false,
            ..self
        }
    }
}

/// What the steps before 2F decided for one element.
enum Outcome {
    /// A step produced the element's text alternative.
    Text(String),
    /// 2F applies: the text comes from the element's content (and, when that is empty, 2I).
    FromContent,
    /// No step up to 2F applied: only 2I (the tooltip attribute) remains.
    Tooltip,
    /// The element contributes nothing (already visited, hidden, never rendered).
    Skip,
    /// The element is hidden by its own `visibility` only; its descendants may be visible again
    /// (`visibility: visible`), so they are walked, but the element adds nothing of its own.
    HiddenSelfOnly,
}

/// One step of the explicit-stack walk over a node's content.
enum Task {
    /// Compute and append the text alternative of this node.
    Node(NodeId),
    /// Append the `content` of a `::before` or `::after` pseudo-element.
    Pseudo(String),
    /// Close an element whose content was pushed: apply 2I when that content came out empty
    /// (`tooltip`), and separate a block-level element from what follows.
    Close {
        element: NodeId,
        start: usize,
        block: bool,
        tooltip: bool,
    },
}

/// The state of one name or description computation: the nodes already used (so that no
/// reference loop or repeated reference adds text twice, as in Playwright's `visitedElements`),
/// and the budgets that keep it total.
struct Walker<'c, 'dom, D: Dom + ?Sized> {
    context: &'c Context<'dom, D>,
    visited: HashSet<NodeId>,
    nodes_left: usize,
    depth: usize,
}

impl<'c, 'dom, D: Dom + ?Sized> Walker<'c, 'dom, D> {
    fn new(context: &'c Context<'dom, D>) -> Self {
        Walker {
            context,
            visited: HashSet::default(),
            nodes_left: NODE_BUDGET,
            depth: 0,
        }
    }

    fn dom(&self) -> &'dom D {
        self.context.dom()
    }

    /// Takes one node from the budget; false when it is spent.
    fn spend(&mut self) -> bool {
        if self.nodes_left == 0 {
            return false;
        }
        self.nodes_left -= 1;
        true
    }

    /// The text alternative of one node (accname "compute the text alternative of the current
    /// node"), not yet whitespace-normalised.
    fn text_alternative(&mut self, node: NodeId, traversal: Traversal) -> String {
        if self.depth >= MAX_REFERENCE_DEPTH || !self.context.in_range(node) || !self.spend() {
            return String::new();
        }
        self.depth += 1;
        let text = match self.dom().node_kind(node) {
            // 2G: Text Node. "If the current node is a Text node, return its textual contents."
            NodeKind::Text => {
                if traversal.include_hidden || !self.context.is_hidden(node) {
                    let mut text = String::new();
                    self.push_rendered_text(node, &mut text);
                    text
                } else {
                    String::new()
                }
            }
            NodeKind::Element => match self.element_steps(node, traversal) {
                Outcome::Text(text) => text,
                Outcome::FromContent => {
                    let text = self.content_text(node, traversal);
                    if is_blank(&text) {
                        self.tooltip(node)
                    } else {
                        text
                    }
                }
                Outcome::Tooltip => self.tooltip(node),
                Outcome::HiddenSelfOnly => self.content_text_without_own(node, traversal),
                Outcome::Skip => String::new(),
            },
            _ => String::new(),
        };
        self.depth -= 1;
        text
    }

    /// Steps 2A to 2F for an element: either its text, or the decision to take it from the
    /// element's content (2F) or its tooltip (2I).
    fn element_steps(&mut self, element: NodeId, traversal: Traversal) -> Outcome {
        let context = self.context;
        let dom = self.dom();
        if self.visited.contains(&element) || is_never_rendered(dom, element) {
            return Outcome::Skip;
        }
        // 2A: Hidden Not Referenced. "If the current node is hidden and is not part of an
        // aria-labelledby or aria-describedby traversal, where the node directly referenced by
        // that relation was hidden ... return the empty string."
        // SPEC DIFFERENCE: the element being named is not skipped when hidden. Browsers still
        // name it from its labels, which count even when hidden (WPT
        // comp_host_language_label.html, "label has hidden attribute with input[type=checkbox]
        // encapsulation"), while its hidden content still gives nothing (WPT comp_label.html,
        // "Hidden button's label should be the empty string").
        if !traversal.is_root && !traversal.include_hidden && context.is_hidden(element) {
            // SPEC DIFFERENCE: accname treats "hidden" as a property of the node, but CSS
            // visibility is inherited and a descendant may set it back to visible; Chrome and
            // Firefox then include that descendant (WPT comp_hidden_not_referenced.html,
            // "visibility:hidden with nested content that is visibility:visible").
            if context.cached_subtree_hidden(element) == Some(false) {
                self.visited.insert(element);
                return Outcome::HiddenSelfOnly;
            }
            return Outcome::Skip;
        }
        // A `<slot>` is not in the accessibility tree: it stands for what it renders, and an
        // aria-label on it is ignored (WPT accname/name/shadowdom/slot.html, "aria-label on
        // slot with slotted content").
        if is_html(dom, element, "slot") {
            self.visited.insert(element);
            return Outcome::FromContent;
        }
        let role = context.role(element);
        // WAI-ARIA 1.2 prohibits naming some roles (generic, paragraph, ...): aria-label and
        // aria-labelledby on such an element do not name it. This applies to the element being
        // named; as a descendant its aria-label still stands for its content (2D).
        let naming_prohibited = traversal.is_root && role.prohibits_naming();

        // 2B: LabelledBy. "If computing a name, and the current node has an aria-labelledby
        // attribute that contains at least one valid IDREF, and the current node is not already
        // part of an aria-labelledby traversal, process its IDREFs in order."
        if !traversal.in_labelledby && !naming_prohibited {
            if let Some(text) = self.labelledby_text(element) {
                // "Return the accumulated text if it is not the empty string"; an empty result
                // falls through (WPT comp_label.html: "hidden aria-labelledby traversal falls
                // back to aria-label").
                if !is_blank(&text) {
                    return Outcome::Text(text);
                }
            }
        }
        // From here on the element is in use: a reference back to it (a label containing the
        // control it labels, a loop of aria-labelledby) adds nothing.
        self.visited.insert(element);

        // 2C: Embedded Control. "Otherwise, if the current node is a control embedded within the
        // label (e.g. any element directly referenced by aria-labelledby) for another widget,
        // where the user can adjust the embedded control's value", return its value.
        if !traversal.is_root {
            if let Some(text) = self.embedded_control_text(element, role) {
                return Outcome::Text(text);
            }
        }

        // 2D: AriaLabel. "Otherwise, if the current node has an aria-label attribute whose value
        // is not undefined, not the empty string, nor, when trimmed of whitespace, is not the
        // empty string", return it.
        if !naming_prohibited {
            if let Some(label) = non_blank_attribute(dom, element, "aria-label") {
                return Outcome::Text(label.to_string());
            }
        }

        // 2E: Host Language Label. "Otherwise, if the current node's native markup provides an
        // attribute (e.g. alt) or element (e.g. HTML label or SVG title) that defines a text
        // alternative, return that alternative." Presentational elements have none (WPT
        // comp_host_language_label.tentative.html: `img[role=none][alt]` has no name).
        if role != Role::None {
            if let Some(outcome) = self.host_language_label(element, traversal) {
                return outcome;
            }
        }

        // 2F: Name From Content. "Otherwise, if the current node's role allows name from
        // content, or if the current node is referenced by aria-labelledby, aria-describedby, or
        // is a native host language text alternative element (e.g. label in HTML), or is a
        // descendant of a native host language text alternative element", and 2H: Recursive Name
        // From Content, "if the current node is a descendant of an element whose name is being
        // computed": every node but the root qualifies.
        if !traversal.is_root
            || (role.supports_name_from_content() && self.row_may_be_named(element, role))
            || self.term_may_be_named_from_content(element, role)
            || self.is_summary(element)
        {
            return Outcome::FromContent;
        }
        // 2I: Tooltip Attribute comes next (`tooltip`).
        Outcome::Tooltip
    }

    /// 2B: the text of the nodes that aria-labelledby references, or `None` when the element has
    /// no valid IDREF.
    fn labelledby_text(&mut self, element: NodeId) -> Option<String> {
        // SPEC DIFFERENCE: browsers also accept the misspelling aria-labeledby when
        // aria-labelledby is absent (WPT comp_labelledby.html, "non-standard spelling").
        let attribute = if self.dom().attribute(element, "aria-labelledby").is_some() {
            "aria-labelledby"
        } else {
            "aria-labeledby"
        };
        self.referenced_text(element, attribute, true)
    }

    /// The text alternatives of the elements an IDREF list names, joined by spaces ("append the
    /// result, with a space, to the accumulated text"), or `None` when no IDREF is valid.
    fn referenced_text(
        &mut self,
        element: NodeId,
        attribute: &str,
        labelledby: bool,
    ) -> Option<String> {
        let context = self.context;
        let dom = self.dom();
        let ids = dom.attribute(element, attribute)?;
        let targets: Vec<NodeId> = ids
            .split_ascii_whitespace()
            .take(MAX_IDREFS)
            .filter_map(|id| dom.element_by_id(element, id))
            .collect();
        if targets.is_empty() {
            return None;
        }
        let mut text = String::new();
        for target in targets {
            // A referenced node counts even when hidden, and so does its whole subtree
            // (accname 2B note; WPT comp_labelledby_hidden_nodes.html: a `display: none`
            // reference gives "foo bar" with its nested `display: none` child).
            let traversal = Traversal {
                is_root: false,
                in_labelledby: labelledby,
                include_hidden: context.is_hidden(target),
            };
            let part = self.text_alternative(target, traversal);
            if !is_blank(&part) {
                if !text.is_empty() {
                    text.push(' ');
                }
                text.push_str(&part);
            }
        }
        Some(text)
    }

    /// 2C: the value of a control embedded in a label, or `None` when the element is not such a
    /// control (or its role gives no value, so the later steps decide).
    fn embedded_control_text(&mut self, element: NodeId, role: Role) -> Option<String> {
        let dom = self.dom();
        let native = dom.namespace(element) == Namespace::Html;
        let local_name = dom.local_name(element);
        match role {
            // "If the embedded control has role textbox, return its value." A searchbox is a
            // textbox. A password's value never leaves the page (the snapshot never reports it,
            // see state.rs), not even here.
            Role::TextBox | Role::SearchBox => {
                if native && local_name == "input" {
                    if InputType::of(dom, element) == InputType::Password {
                        return Some(String::new());
                    }
                    return Some(dom.value(element).unwrap_or("").to_string());
                }
                if native && local_name == "textarea" {
                    return Some(dom.value(element).unwrap_or("").to_string());
                }
                // A contenteditable or ARIA textbox: its value is its content (2F).
                None
            }
            // "If the embedded control has role combobox or listbox, return the text alternative
            // of the chosen option."
            Role::Combobox | Role::ListBox => {
                if native && local_name == "select" {
                    return Some(self.selected_options_text(element));
                }
                if native && local_name == "input" {
                    // SPEC DIFFERENCE: an `<input>` combobox has no option element to read; all
                    // browsers use its value (Playwright roleUtils, WPT name_test_case_611).
                    return Some(dom.value(element).unwrap_or("").to_string());
                }
                let options = self.aria_selected_options(element);
                if !options.is_empty() {
                    return Some(self.join_text_alternatives(&options));
                }
                // A listbox with nothing chosen says nothing; an ARIA combobox usually shows its
                // value as content, which 2F then reads.
                (role == Role::ListBox).then(String::new)
            }
            // "If the embedded control has role range (e.g., a spinbutton or slider)": its
            // aria-valuetext, else its aria-valuenow, else the host language's value.
            Role::ProgressBar | Role::ScrollBar | Role::Slider | Role::SpinButton | Role::Meter => {
                if let Some(text) = non_blank_attribute(dom, element, "aria-valuetext") {
                    return Some(text.to_string());
                }
                if let Some(now) = non_blank_attribute(dom, element, "aria-valuenow") {
                    return Some(now.to_string());
                }
                let value = if native && local_name == "input" {
                    dom.value(element)
                } else {
                    dom.attribute(element, "value")
                };
                Some(value.unwrap_or("").to_string())
            }
            _ => None,
        }
    }

    /// The text of a `<select>`'s selected options, joined by spaces.
    fn selected_options_text(&mut self, select: NodeId) -> String {
        let options = selected_options(self.dom(), select);
        self.join_text_alternatives(&options)
    }

    /// The text alternatives of several option elements, joined by spaces. Options count even
    /// when the popup that holds them is not rendered: the chosen one is what the control shows.
    fn join_text_alternatives(&mut self, options: &[NodeId]) -> String {
        let mut text = String::new();
        for &option in options {
            let part = self.text_alternative(option, Traversal::referenced(true));
            if !is_blank(&part) {
                if !text.is_empty() {
                    text.push(' ');
                }
                text.push_str(&part);
            }
        }
        text
    }

    /// The descendants (aria-owns included) of an ARIA combobox or listbox that have role option
    /// and aria-selected="true". A combobox's options live in the listbox it owns or contains.
    fn aria_selected_options(&mut self, element: NodeId) -> Vec<NodeId> {
        let context = self.context;
        let dom = self.dom();
        let mut found = Vec::new();
        let mut stack = context.ax_children(element).into_owned();
        stack.reverse();
        while let Some(node) = stack.pop() {
            if !self.spend() {
                break;
            }
            if dom.node_kind(node) != NodeKind::Element {
                continue;
            }
            if context.role(node) == Role::Option
                && dom
                    .attribute(node, "aria-selected")
                    .is_some_and(|value| value.trim_ascii().eq_ignore_ascii_case("true"))
            {
                found.push(node);
                continue;
            }
            stack.extend(context.ax_children(node).iter().rev().copied());
        }
        found
    }

    /// 2E for HTML and SVG elements: the host language's own labelling. `None` when the element
    /// has none, so that 2F and 2I follow.
    fn host_language_label(&mut self, element: NodeId, traversal: Traversal) -> Option<Outcome> {
        let dom = self.dom();
        match dom.namespace(element) {
            Namespace::Svg => return self.svg_title(element),
            Namespace::Html => {}
            _ => return None,
        }
        let text = |value: &str| Some(Outcome::Text(value.to_string()));
        match dom.local_name(element) {
            "input" => {
                let input_type = InputType::of(dom, element);
                match input_type {
                    // HTML-AAM "input type=button, submit and reset": labels, then the value,
                    // then the browser's default label (submit and reset), then title. Labels
                    // come first (WPT html-aam 4.1.2/input-*.html, comp_host_language_label).
                    InputType::Button | InputType::Submit | InputType::Reset => {
                        if let Some(labels) = self.labels_text(element, traversal) {
                            return text(&labels);
                        }
                        if let Some(value) = dom.value(element).filter(|value| !is_blank(value)) {
                            return text(value);
                        }
                        match input_type {
                            InputType::Submit => text("Submit"),
                            InputType::Reset => text("Reset"),
                            // A plain button input has no default: 2I's title follows.
                            _ => Some(Outcome::Tooltip),
                        }
                    }
                    // HTML-AAM "input type=image": labels, alt, value, title, then a default.
                    InputType::Image => {
                        if let Some(labels) = self.labels_text(element, traversal) {
                            return text(&labels);
                        }
                        if let Some(alt) = non_blank_attribute(dom, element, "alt") {
                            return text(alt);
                        }
                        if let Some(value) = non_blank_attribute(dom, element, "value") {
                            return text(value);
                        }
                        if let Some(title) = non_blank_attribute(dom, element, "title") {
                            return text(title);
                        }
                        // SPEC DIFFERENCE: HTML-AAM's default is "Submit Query" (Firefox);
                        // Chrome and Safari say "Submit", and so does WPT
                        // html-aam 4.1.3/input-image.html.
                        text("Submit")
                    }
                    InputType::Hidden => None,
                    // HTML-AAM "input type=text, password, number, search, tel, email, url and
                    // textarea" and "Other Form Elements": labels, then title, then (text fields
                    // only) placeholder. Title precedes placeholder (WPT comp_tooltip.html).
                    _ => {
                        let placeholder = uses_placeholder(input_type);
                        Some(self.form_control_label(element, traversal, placeholder))
                    }
                }
            }
            "textarea" => Some(self.form_control_label(element, traversal, true)),
            "select" => Some(self.form_control_label(element, traversal, false)),
            // HTML-AAM "button": labels first, then its content (2F), then title.
            "button" | "meter" | "progress" => {
                self.labels_text(element, traversal).map(Outcome::Text)
            }
            // HTML-AAM "output": labels, then title; its content is its value, not its name.
            "output" => Some(self.form_control_label(element, traversal, false)),
            // HTML-AAM "fieldset": the first legend child, then title.
            "fieldset" => self.native_child_text(element, "legend", traversal),
            // HTML-AAM "figure" (since w3c/aria#2224, 2025): a figcaption no longer names its
            // figure unless the author references it; only aria-labelledby, aria-label and
            // title do. Chromium agrees (issue 13: no name on captioned figures of real pages),
            // as does WPT html-aam/figure-name-no-figcaption.tentative.html; the older
            // 4.1.9/figure.html case that expects the caption is in the known failures.
            // HTML-AAM "table": the first caption child, then title.
            "table" => self.native_child_text(element, "caption", traversal),
            // HTML-AAM "img" and "area": alt, else title. An empty alt is a deliberate "no
            // name" and stops there (WPT html-aam 4.1.10/img.html and 4.1.14/area.html, "alt
            // emptied"; the older comp_tooltip.html case disagrees and is left failing).
            "img" | "area" => match dom.attribute(element, "alt") {
                Some(alt) if !is_blank(alt) => text(alt),
                Some(_) => text(""),
                None => None,
            },
            // HTML: an option's label attribute replaces its text; an optgroup's label names it.
            "option" | "optgroup" => non_blank_attribute(dom, element, "label").and_then(text),
            _ => None,
        }
    }

    /// Labels, then title, then (for text fields) placeholder; never the content.
    fn form_control_label(
        &mut self,
        element: NodeId,
        traversal: Traversal,
        use_placeholder: bool,
    ) -> Outcome {
        let dom = self.dom();
        if let Some(labels) = self.labels_text(element, traversal) {
            return Outcome::Text(labels);
        }
        if let Some(title) = non_blank_attribute(dom, element, "title") {
            return Outcome::Text(title.to_string());
        }
        if use_placeholder {
            if let Some(placeholder) = non_blank_attribute(dom, element, "placeholder") {
                return Outcome::Text(placeholder.to_string());
            }
        }
        Outcome::Text(String::new())
    }

    /// The text of the element's associated `<label>` elements, in tree order, joined by spaces;
    /// `None` when it has none or they are all empty.
    fn labels_text(&mut self, element: NodeId, traversal: Traversal) -> Option<String> {
        let labels = labels_of(self.context, element);
        let mut text = String::new();
        for label in labels {
            // SPEC DIFFERENCE: a hidden label still names its control in Chrome, Firefox and
            // Safari, like a hidden aria-labelledby target (WPT comp_host_language_label.html,
            // "label[for] with display: none"); html-aam/hidden-names.html expects the opposite
            // and is left failing.
            let include_hidden = traversal.include_hidden || self.context.is_hidden(label);
            let part = self.text_alternative(label, Traversal::referenced(include_hidden));
            if !is_blank(&part) {
                if !text.is_empty() {
                    text.push(' ');
                }
                text.push_str(&part);
            }
        }
        (!is_blank(&text)).then_some(text)
    }

    /// The text of the first child `<legend>`, `<figcaption>` or `<caption>`, when it is rendered
    /// and not empty. A hidden one does not name its parent (WPT html-aam/hidden-names.html).
    fn native_child_text(
        &mut self,
        element: NodeId,
        child_name: &str,
        traversal: Traversal,
    ) -> Option<Outcome> {
        let child = first_child_element(self.dom(), element, Namespace::Html, child_name)?;
        if !traversal.include_hidden && self.context.is_hidden(child) {
            return None;
        }
        let text = self.text_alternative(child, traversal.descendant());
        (!is_blank(&text)).then_some(Outcome::Text(text))
    }

    /// SVG-AAM: an SVG element's first `<title>` child names it; an SVG link may use xlink:title.
    fn svg_title(&mut self, element: NodeId) -> Option<Outcome> {
        let dom = self.dom();
        if let Some(title) = first_child_element(dom, element, Namespace::Svg, "title") {
            // The title element is never rendered, so its text counts although it is "hidden".
            let text = self.content_text(title, Traversal::referenced(true));
            if !is_blank(&text) {
                return Some(Outcome::Text(text));
            }
        }
        if dom.local_name(element) == "a" {
            for name in ["xlink:title", "title"] {
                if let Some(title) = non_blank_attribute(dom, element, name) {
                    return Some(Outcome::Text(title.to_string()));
                }
            }
        }
        None
    }

    /// SPEC DIFFERENCE: ARIA names a row from its content; Chromium does so only for a row of
    /// an interactive grid (its table has role grid or treegrid), a row that may take focus (its
    /// own tabindex), or a row of a widget with aria-activedescendant. A data table's row has
    /// no name there (issue 13: rows of `<table>`s had names where Chromium gives none, rows of
    /// ARIA grids and `<table role="grid">` calendars have theirs). Other roles are not
    /// concerned.
    fn row_may_be_named(&self, element: NodeId, role: Role) -> bool {
        if role != Role::Row {
            return true;
        }
        let dom = self.dom();
        if dom.attribute(element, "tabindex").is_some() {
            return true;
        }
        let flat = self.context.flat_tree();
        let mut in_table = false;
        let mut ancestor = flat.parent(element);
        while let Some(node) = ancestor {
            if dom.node_kind(node) == NodeKind::Element {
                if dom.attribute(node, "aria-activedescendant").is_some() {
                    return true;
                }
                match self.context.role(node) {
                    Role::Grid | Role::TreeGrid if !in_table => return true,
                    Role::Table => in_table = true,
                    _ => {}
                }
            }
            ancestor = flat.parent(node);
        }
        false
    }

    /// SPEC DIFFERENCE: ARIA 1.2 names term from the author only; Chromium names a description
    /// list's term (`<dt>`, and role=term) from its content (issue 13: `<dt>Battery
    /// life</dt>` is "Battery life" in Chromium's tree). `<dfn>` keeps HTML-AAM's rule (author
    /// and title only, WPT html-aam 4.1.17/dfn.html), which Chromium does not follow.
    fn term_may_be_named_from_content(&self, element: NodeId, role: Role) -> bool {
        role == Role::Term && !is_html(self.dom(), element, "dfn")
    }

    /// Whether the element is the summary of a `<details>`: HTML-AAM names it from its content.
    fn is_summary(&self, element: NodeId) -> bool {
        let dom = self.dom();
        is_html(dom, element, "summary")
    }

    /// 2I: Tooltip Attribute. "Otherwise, if the current node has a Tooltip attribute, return its
    /// value." Presentational elements have none, except iframes, whose title is their name in
    /// every browser (WPT comp_tooltip.html, html-aam 4.1.15/iframe.html).
    fn tooltip(&self, element: NodeId) -> String {
        let dom = self.dom();
        if self.context.role(element) == Role::None && dom.local_name(element) != "iframe" {
            return String::new();
        }
        non_blank_attribute(dom, element, "title")
            .unwrap_or("")
            .to_string()
    }

    /// 2F: Name From Content, for `root`: the text of its `::before`, its children (DOM children,
    /// shadow tree and slots resolved, aria-owns included) and its `::after`. Iterative: an
    /// explicit stack replaces the spec's recursion.
    fn content_text(&mut self, root: NodeId, traversal: Traversal) -> String {
        self.walk_content(root, traversal, true)
    }

    /// Like `content_text`, for an element hidden by its own visibility: only what its
    /// descendants show again counts, not its pseudo-elements.
    fn content_text_without_own(&mut self, root: NodeId, traversal: Traversal) -> String {
        self.walk_content(root, traversal, false)
    }

    fn walk_content(&mut self, root: NodeId, traversal: Traversal, own_pseudo: bool) -> String {
        let child_traversal = traversal.descendant();
        let stops_at_groups = traversal.is_root && self.context.role(root) == Role::TreeItem;
        let mut out = String::new();
        let mut stack: Vec<Task> = Vec::new();
        self.push_content(root, own_pseudo, &mut stack);
        while let Some(task) = stack.pop() {
            if out.len() > MAX_NAME_CHARS * 4 {
                // Enough text for the longest name we return, even in four-byte characters.
                break;
            }
            match task {
                Task::Pseudo(text) => out.push_str(&text),
                Task::Close {
                    element,
                    start,
                    block,
                    tooltip,
                } => {
                    // 2F.iii/2I: an element whose content gave nothing falls back to its title
                    // (WPT comp_tooltip.html, "link with img with tooltip label").
                    if tooltip && out.get(start..).is_some_and(is_blank) {
                        out.truncate(start);
                        out.push_str(&self.tooltip(element));
                    }
                    if block {
                        out.push(' ');
                    }
                }
                Task::Node(node) => {
                    if self.depth >= MAX_REFERENCE_DEPTH || !self.spend() {
                        break;
                    }
                    match self.dom().node_kind(node) {
                        // 2G: Text Node.
                        NodeKind::Text
                            if child_traversal.include_hidden || !self.context.is_hidden(node) =>
                        {
                            self.push_rendered_text(node, &mut out);
                        }
                        // SPEC DIFFERENCE: accname 2F walks every child, but Chromium names a
                        // tree item from its own text only, not from the items of its nested
                        // group (a folder "src" is not "src main.rs lib.rs"; issue 13, measured
                        // on ARIA tree views).
                        NodeKind::Element
                            if stops_at_groups && self.context.role(node) == Role::Group => {}
                        NodeKind::Element => {
                            self.walk_element(node, child_traversal, &mut out, &mut stack)
                        }
                        _ => {}
                    }
                }
            }
        }
        out
    }

    /// One element met during the content walk: its own text is appended, or its content is
    /// scheduled on the stack.
    fn walk_element(
        &mut self,
        element: NodeId,
        traversal: Traversal,
        out: &mut String,
        stack: &mut Vec<Task>,
    ) {
        let block = self.is_word_box(element);
        // Word breaks follow boxes, as in Chrome: text of inline elements joins directly
        // (`<b>A</b>bc` is "Abc", as Playwright's roleUtils also computes), a block-level box or
        // an atomic inline is a word of its own (`is_word_box`). A text that stands for an element rather than its content (alt,
        // aria-label, an embedded control's value, a title) is the name of a box of its own (an
        // image, a control) or of a labelled thing, so it is kept apart too.
        let separate = |out: &mut String, text: &str| {
            out.push(' ');
            out.push_str(text);
            out.push(' ');
        };
        match self.element_steps(element, traversal) {
            Outcome::Skip => {}
            Outcome::Text(text) => separate(out, &text),
            Outcome::Tooltip => {
                let title = self.tooltip(element);
                separate(out, &title);
            }
            outcome @ (Outcome::FromContent | Outcome::HiddenSelfOnly) => {
                let own = matches!(outcome, Outcome::FromContent);
                if block {
                    out.push(' ');
                }
                stack.push(Task::Close {
                    element,
                    start: out.len(),
                    block,
                    tooltip: own,
                });
                self.push_content(element, own, stack);
            }
        }
    }

    /// Pushes an element's `::before`, children and `::after` so that they pop in that order.
    fn push_content(&mut self, element: NodeId, own_pseudo: bool, stack: &mut Vec<Task>) {
        let context = self.context;
        let dom = self.dom();
        // 2F.ii: "Check for CSS generated textual content associated with the current node and
        // include it in the accumulated text." A pseudo-element of an element that is not
        // rendered has no box, and so no content.
        let pseudo = own_pseudo
            && dom.node_kind(element) == NodeKind::Element
            && !context.is_hidden(element);
        if pseudo {
            if let Some(after) = dom.pseudo_content(element, PseudoElement::After) {
                stack.push(Task::Pseudo(generated_text_in_place(after)));
            }
        }
        let children = self.content_children(element);
        stack.extend(children.iter().rev().copied().map(Task::Node));
        if pseudo {
            if let Some(before) = dom.pseudo_content(element, PseudoElement::Before) {
                stack.push(Task::Pseudo(generated_text_in_place(before)));
            }
        }
    }

    /// The children that 2F walks: the node's children in the accessibility tree (flat tree with
    /// shadow roots and slots resolved, aria-owns applied; 2F.iii "for each child node of the
    /// current node", where owned elements are children). A referenced node outside the flat
    /// tree (a light child of a shadow host that no slot takes) still has its DOM children.
    fn content_children(&self, node: NodeId) -> Cow<'c, [NodeId]> {
        if self.context.flat_tree().contains(node) {
            self.context.ax_children(node)
        } else {
            Cow::Borrowed(self.dom().children(node))
        }
    }

    /// 2G for a text node: its data, with the case transform of its parent's computed
    /// `text-transform` applied.
    ///
    /// SPEC DIFFERENCE: accname says "return its textual contents"; Chromium and Firefox name
    /// from the rendered text, so `<button style="text-transform:uppercase">Save</button>` is
    /// "SAVE" in both (issue 13: Chromium's tree on real pages, MUI's uppercase buttons).
    fn push_rendered_text(&self, text_node: NodeId, out: &mut String) {
        let dom = self.dom();
        let data = dom.text_data(text_node);
        let parent = self
            .context
            .flat_tree()
            .parent(text_node)
            .or_else(|| dom.parent(text_node))
            .filter(|&parent| dom.node_kind(parent) == NodeKind::Element);
        let transform = parent.map_or(TextTransform::None, |parent| {
            dom.style(parent).text_transform
        });
        match transform {
            TextTransform::None => out.push_str(data),
            TextTransform::Uppercase => out.extend(data.chars().flat_map(char::to_uppercase)),
            TextTransform::Lowercase => out.push_str(&data.to_lowercase()),
            TextTransform::Capitalize => {
                let mut previous = out.chars().next_back();
                for character in data.chars() {
                    if starts_word(previous, character) {
                        out.extend(character.to_uppercase());
                    } else {
                        out.push(character);
                    }
                    previous = Some(character);
                }
            }
        }
    }

    /// Whether the element's text is a word of its own in its parent's name (a word break before
    /// and after it): a block-level box, an atomic inline, or a `<br>` (a line break, which names
    /// read as a space).
    ///
    /// SPEC DIFFERENCE: accname 2F.iii appends each child's text alternative to the accumulated
    /// text and says nothing of spaces between them (CSS boxes are left to the host language).
    /// This follows Chromium, which puts a space where two pieces of the name are laid out in
    /// different boxes and none inside one inline formatting context: so `<b>A</b>bc` is "Abc"
    /// and `<span>●</span>Online` is "●Online" (a glyph or an emoji in a plain inline joins the
    /// word after it), while `Issues<span style="display:inline-block">42</span>` is "Issues 42"
    /// (an inline-block, inline-flex, inline-grid or inline-table lays out its content in a box
    /// of its own), as are flex and grid items, which are blockified (CSS Display 3, "Automatic
    /// Box Type Transformations"). Measured against Chromium on
    /// fixtures/pages/corpus/box-boundaries.html (tests/extension/agreement.rs).
    fn is_word_box(&self, element: NodeId) -> bool {
        let dom = self.dom();
        matches!(
            dom.style(element).display,
            Display::Block | Display::AtomicInline
        ) || is_html(dom, element, "br")
    }
}

/// Whether `character` begins a word for `text-transform: capitalize` (CSS Text 3: "the first
/// typographic letter unit of each word"): a letter after the start, a space or punctuation,
/// as Chromium's word breaking finds them ("e-mail" is "E-Mail"), except after an apostrophe
/// inside a word ("o'neill" is "O'neill") and after a digit ("3d" stays "3d").
fn starts_word(previous: Option<char>, character: char) -> bool {
    if !character.is_alphabetic() {
        return false;
    }
    match previous {
        None => true,
        Some(previous) => !previous.is_alphanumeric() && !matches!(previous, '\'' | '\u{2019}'),
    }
}

/// The generated text of a `::before` or `::after` as it joins its neighbours.
///
/// SPEC DIFFERENCE: accname 1.2 says to add ::before and ::after content "without a space";
/// WPT comp_name_from_content.html expects "before label after" (inline pseudo-elements with
/// padding), so generated words stay a word of their own. Generated text without a letter or a
/// digit (the quote marks of `<q>`, brackets, an asterisk, an icon glyph or an emoji) joins the
/// text as written, as Chromium names it: "“Quoted”", not "“ Quoted ”", and "💾Save" from
/// `.icon-save::before { content: "💾" }` (Chromium joins all generated text so, measured on
/// fixtures/pages/corpus/generated-content.html; issue 30, item 9).
fn generated_text_in_place(text: String) -> String {
    if !text.is_empty()
        && text
            .chars()
            .all(|character| !character.is_alphanumeric() && !character.is_whitespace())
    {
        text
    } else {
        format!(" {text} ")
    }
}

/// Elements whose content is never text: scripts, style sheets, templates. Even a hidden
/// referenced subtree (2A) must not read them.
fn is_never_rendered<D: Dom + ?Sized>(dom: &D, element: NodeId) -> bool {
    dom.namespace(element) == Namespace::Html
        && matches!(
            dom.local_name(element),
            "script" | "style" | "template" | "noscript"
        )
}

/// The input types whose placeholder names them when nothing else does (HTML-AAM: text,
/// password, number, search, tel, email and url; textarea too).
fn uses_placeholder(input_type: InputType) -> bool {
    matches!(
        input_type,
        InputType::Text
            | InputType::Password
            | InputType::Number
            | InputType::Search
            | InputType::Tel
            | InputType::Email
            | InputType::Url
    )
}

/// The first child element with this namespace and local name.
fn first_child_element<D: Dom + ?Sized>(
    dom: &D,
    parent: NodeId,
    namespace: Namespace,
    local_name: &str,
) -> Option<NodeId> {
    dom.children(parent).iter().copied().find(|&child| {
        dom.node_kind(child) == NodeKind::Element
            && dom.namespace(child) == namespace
            && dom.local_name(child) == local_name
    })
}

/// HTML "labelable elements": button, input (not hidden), meter, output, progress, select,
/// textarea.
fn is_labelable<D: Dom + ?Sized>(dom: &D, element: NodeId) -> bool {
    if dom.node_kind(element) != NodeKind::Element || dom.namespace(element) != Namespace::Html {
        return false;
    }
    match dom.local_name(element) {
        "button" | "meter" | "output" | "progress" | "select" | "textarea" => true,
        "input" => InputType::of(dom, element) != InputType::Hidden,
        _ => false,
    }
}

/// HTML `control.labels`: every `<label>` whose labeled control is this element, in tree order
/// (from the context's label index, built once per snapshot).
fn labels_of<D: Dom + ?Sized>(context: &Context<'_, D>, control: NodeId) -> Vec<NodeId> {
    if !is_labelable(context.dom(), control) {
        return Vec::new();
    }
    context.labels_of(control).to_vec()
}

/// Maps each labeled control to its labels, in flat-tree order, in one pass over the document's
/// `<label>` elements: a label with `for` labels the element with that id in its own tree (the
/// document or a shadow root); one without labels its first labelable descendant (HTML "The label
/// element", "labeled control").
pub(crate) fn build_label_index<D: Dom + ?Sized>(
    dom: &D,
    flat: &FlatTree,
) -> rustc_hash::FxHashMap<NodeId, Vec<NodeId>> {
    let mut index: rustc_hash::FxHashMap<NodeId, Vec<NodeId>> = Default::default();
    for position in 0..dom.node_count() {
        let label = NodeId(position as u32);
        if !is_html(dom, label, "label") {
            continue;
        }
        let control = match dom.attribute(label, "for") {
            Some(id) => dom
                .element_by_id(label, id)
                .filter(|&target| is_labelable(dom, target)),
            None => first_labelable_descendant(dom, label),
        };
        if let Some(control) = control {
            index.entry(control).or_default().push(label);
        }
    }
    for labels in index.values_mut() {
        labels.sort_by_key(|&label| (flat.position(label), label));
    }
    index
}

/// The first labelable element among the label's descendants, in tree order.
fn first_labelable_descendant<D: Dom + ?Sized>(dom: &D, label: NodeId) -> Option<NodeId> {
    let mut stack: Vec<NodeId> = dom.children(label).iter().rev().copied().collect();
    while let Some(node) = stack.pop() {
        if is_labelable(dom, node) {
            return Some(node);
        }
        stack.extend(dom.children(node).iter().rev().copied());
    }
    None
}

/// aria-labelledby, else aria-label, of an element whose role prohibits naming.
fn prohibited_author_label<D: Dom + ?Sized>(context: &Context<'_, D>, element: NodeId) -> String {
    let mut walker = Walker::new(context);
    if let Some(text) = walker.labelledby_text(element).map(finish) {
        if !text.is_empty() {
            return text;
        }
    }
    context
        .dom()
        .attribute(element, "aria-label")
        .map(finish)
        .unwrap_or_default()
}

/// The fallbacks, tried only when accname gives no name, in this order: the selected option of
/// an unlabelled select, a placeholder the spec did not use, and the text just before an
/// unlabelled field ("Every <input> month(s)" gives "Every"). A name an agent can act on beats
/// an empty one; `NameSource::Heuristic` keeps the difference visible.
fn heuristic_name<D: Dom + ?Sized>(context: &Context<'_, D>, element: NodeId) -> String {
    let dom = context.dom();
    // A presentational element has no name to guess (WPT comp_host_language_label.tentative.html:
    // a disabled `input[role=none]` keeps no name although a label precedes it).
    if context.role(element) == Role::None {
        return String::new();
    }
    // A listbox (`<select multiple>`, `<select size>`, an ARIA listbox) shows its options, each
    // named; guessing a name for the box from its chosen options or the text before it gave
    // names where Chromium gives none (issue 13).
    if context.role(element) == Role::ListBox {
        return String::new();
    }
    // The selected option's text of an unlabelled `<select>`.
    if is_html(dom, element, "select") {
        let mut walker = Walker::new(context);
        let text = finish(walker.selected_options_text(element));
        if !text.is_empty() {
            return text;
        }
    }
    if !is_form_field(context, element) {
        return String::new();
    }
    // A placeholder that the spec did not use (on a date or other field HTML-AAM does not name
    // from it), or an ARIA textbox's aria-placeholder.
    for attribute in ["placeholder", "aria-placeholder"] {
        if let Some(text) = dom.attribute(element, attribute).map(finish) {
            if !text.is_empty() {
                return text;
            }
        }
    }
    preceding_text(context, element)
}

/// Whether the element is a field that a text before it may caption: text-like inputs, selects,
/// textareas and their ARIA equivalents. Checkboxes and radios are not: their label usually
/// follows them.
fn is_form_field<D: Dom + ?Sized>(context: &Context<'_, D>, element: NodeId) -> bool {
    let dom = context.dom();
    if dom.namespace(element) == Namespace::Html {
        match dom.local_name(element) {
            "select" | "textarea" => return true,
            "input" => {
                return !matches!(
                    InputType::of(dom, element),
                    InputType::Button
                        | InputType::Submit
                        | InputType::Reset
                        | InputType::Image
                        | InputType::Hidden
                        | InputType::Checkbox
                        | InputType::Radio
                )
            }
            _ => {}
        }
    }
    matches!(
        context.role(element),
        Role::TextBox | Role::SearchBox | Role::Combobox | Role::SpinButton
    )
}

/// Whether a node is a control of its own, whose neighbouring text belongs to it rather than to
/// the field we are naming.
fn is_control<D: Dom + ?Sized>(context: &Context<'_, D>, node: NodeId) -> bool {
    let dom = context.dom();
    if dom.namespace(node) == Namespace::Html
        && matches!(
            dom.local_name(node),
            "input" | "select" | "textarea" | "button"
        )
    {
        return true;
    }
    context.role(node).is_widget()
}

/// The nearest non-empty text before the field among its flat-tree siblings, climbing a few
/// ancestors when the field starts its container. Stops at another control, and ignores a text
/// too long to be a caption.
fn preceding_text<D: Dom + ?Sized>(context: &Context<'_, D>, element: NodeId) -> String {
    let dom = context.dom();
    let flat = context.flat_tree();
    let mut current = element;
    for _ in 0..SIBLING_LABEL_LEVELS {
        let Some(parent) = flat.parent(current) else {
            break;
        };
        let siblings = flat.children(parent);
        let Some(index) = siblings.iter().position(|&sibling| sibling == current) else {
            break;
        };
        for &sibling in siblings.get(..index).unwrap_or(&[]).iter().rev() {
            if context.is_hidden(sibling) {
                continue;
            }
            let is_element = dom.node_kind(sibling) == NodeKind::Element;
            if is_element && is_control(context, sibling) {
                return String::new();
            }
            // A heading titles the section, not the field under it.
            if is_element && context.role(sibling) == Role::Heading {
                return String::new();
            }
            // A `<label for>` labels the element its `for` names in its own tree, and nothing
            // else: when it did not label this field (the field sits in a shadow tree, where
            // the id does not reach), guessing it back would undo the HTML rule that browsers
            // apply (issue 13: Chromium gives such a field no name).
            if is_element
                && is_html(dom, sibling, "label")
                && dom.attribute(sibling, "for").is_some()
            {
                return String::new();
            }
            let text = if is_element {
                let mut walker = Walker::new(context);
                finish(walker.text_alternative(sibling, Traversal::referenced(false)))
            } else {
                finish(dom.text_data(sibling))
            };
            if text.is_empty() {
                continue;
            }
            if text.chars().count() > MAX_SIBLING_LABEL_CHARS {
                return String::new();
            }
            return text;
        }
        // Climbing past a container that is a landmark, a form or the body would take text that
        // belongs to the page, not to this field.
        let parent_role = context.role(parent);
        if parent_role.is_landmark()
            || dom.node_kind(parent) != NodeKind::Element
            || is_html(dom, parent, "body")
            || is_html(dom, parent, "form")
            || is_html(dom, parent, "fieldset")
        {
            break;
        }
        current = parent;
    }
    String::new()
}
