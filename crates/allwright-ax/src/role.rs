//! Computing an element's role: the explicit ARIA role first (WAI-ARIA 1.2 §7.1 "Role
//! attribute" and §9.1 "Roles - handling author errors"), then the implicit role of HTML-AAM
//! §4 "HTML Element Role Mappings", SVG-AAM and MathML.
//!
//! Where the specs and the browsers part ways we follow Chrome as the web-platform-tests in
//! `wpt/html-aam` and `wpt/wai-aria/role` check it, and say so with `SPEC DIFFERENCE:`.
//!
//! Some roles depend on other elements: an `<li>` is a list item only inside a list, a `<td>`
//! is a grid cell inside a grid, a `<section>` is a region only when it has a name. Those rules
//! ask `Context::role` (cached) about ancestors and `Context::name` about the element itself. Two
//! guards keep that finite and shallow:
//! - re-entrance: the name computation of a `<section>` asks the section's role again; while an
//!   element's role is being computed, a nested request gets the provisional role the element
//!   would have if the pending check succeeds (the role whose name is being computed);
//! - depth: when role computations nest deeper than `WARM_DEPTH` (a page of nested list items
//!   asked bottom-up), the element's ancestors are computed top-down first, so each of them finds
//!   its own ancestors cached; past `MAX_DEPTH` a role is decided without asking other elements.

use std::cell::{Cell, RefCell};

use crate::aria::Role;
use crate::context::Context;
use crate::dom::{Dom, Namespace, NodeId, NodeKind};
use crate::html::{is_html, InputType};

/// The computed role of an element. `Role::Generic` for containers without semantics,
/// `Role::None` for elements without a role of their own.
pub(crate) fn compute_role<D: Dom + ?Sized>(context: &Context<'_, D>, element: NodeId) -> Role {
    if !context.is_element(element) {
        return Role::None;
    }
    let roles = context.roles_in_progress();
    let guard = match RoleGuard::enter(roles, element) {
        Entry::Fresh(guard) => guard,
        Entry::Nested(provisional) => {
            return provisional.unwrap_or_else(|| static_role(context.dom(), element));
        }
    };
    if guard.depth > MAX_DEPTH {
        return static_role(context.dom(), element);
    }
    if guard.depth > WARM_DEPTH && !roles.warming.get() {
        warm_ancestor_roles(context, element, &guard);
    }
    let role = computed_role(context, element, &guard);
    drop(guard);
    role
}

/// Nested role computations beyond this depth first compute the ancestors top-down.
const WARM_DEPTH: usize = 24;
/// Nested role computations beyond this depth answer from the element alone (stack safety).
const MAX_DEPTH: usize = 160;

// ---------------------------------------------------------------------------------------------
// Re-entrance and depth guard.

/// The role computations in progress within one context: a section's role asks for its name,
/// and the name may ask for the section's role again; the nested request gets the provisional
/// role instead of looping. Owned by the `Context`, so nothing outlives the snapshot.
#[derive(Default)]
pub(crate) struct RolesInProgress {
    /// (element, the role it provisionally has while a name check of that role is pending)
    stack: RefCell<Vec<(NodeId, Option<Role>)>>,
    /// Ancestors are being computed top-down (see `warm_ancestor_roles`).
    warming: Cell<bool>,
}

enum Entry<'a> {
    Fresh(RoleGuard<'a>),
    Nested(Option<Role>),
}

/// Pops its entry from the in-progress stack when dropped.
struct RoleGuard<'a> {
    roles: &'a RolesInProgress,
    element: NodeId,
    depth: usize,
}

impl<'a> RoleGuard<'a> {
    fn enter(roles: &'a RolesInProgress, element: NodeId) -> Entry<'a> {
        let mut stack = roles.stack.borrow_mut();
        if let Some((_, provisional)) = stack.iter().find(|(pending, _)| *pending == element) {
            return Entry::Nested(*provisional);
        }
        stack.push((element, None));
        Entry::Fresh(RoleGuard {
            roles,
            element,
            depth: stack.len(),
        })
    }

    /// Declares the role this element has if the name check about to run succeeds.
    fn set_provisional(&self, role: Role) {
        if let Some(entry) = self
            .roles
            .stack
            .borrow_mut()
            .iter_mut()
            .rev()
            .find(|(pending, _)| *pending == self.element)
        {
            entry.1 = Some(role);
        }
    }

    /// Whether nested lookups must not ask other elements any more.
    fn too_deep(&self) -> bool {
        self.depth >= MAX_DEPTH
    }
}

impl Drop for RoleGuard<'_> {
    fn drop(&mut self) {
        let mut stack = self.roles.stack.borrow_mut();
        if let Some(position) = stack
            .iter()
            .rposition(|(pending, _)| *pending == self.element)
        {
            stack.remove(position);
        }
    }
}

/// Computes the roles of the element's ancestors from the top down, so that each finds its own
/// ancestors cached and the nesting stays shallow.
fn warm_ancestor_roles<D: Dom + ?Sized>(
    context: &Context<'_, D>,
    element: NodeId,
    guard: &RoleGuard<'_>,
) {
    guard.roles.warming.set(true);
    let mut chain = Vec::new();
    let mut current = element;
    for _ in 0..=context.dom().node_count() {
        let Some(parent) = context.ax_parent(current) else {
            break;
        };
        if context.is_element(parent) {
            chain.push(parent);
        }
        current = parent;
    }
    for &ancestor in chain.iter().rev() {
        context.role(ancestor);
    }
    guard.roles.warming.set(false);
}

// ---------------------------------------------------------------------------------------------
// Explicit roles and conflict resolution.

fn computed_role<D: Dom + ?Sized>(
    context: &Context<'_, D>,
    element: NodeId,
    guard: &RoleGuard<'_>,
) -> Role {
    let dom = context.dom();
    let explicit = explicit_role(context, element, guard);
    let role = match explicit {
        // WAI-ARIA 1.2 §9.1 "Presentational Roles Conflict Resolution": a focusable element, or
        // one with a global ARIA attribute, keeps its implicit role despite none/presentation.
        Some(Role::None) if has_presentation_conflict(dom, element) => {
            implicit_role(context, element, guard)
        }
        Some(role) => role,
        None => implicit_role(context, element, guard),
    };
    // HTML-AAM "minimum role": an element that would be generic (or presentational by author
    // request) but is draggable, autofocused or a popover is exposed as a group
    // (wpt/html-aam/roles-minimum.tentative.html).
    let minimum_applies =
        role == Role::Generic || (explicit == Some(Role::None) && role == Role::None);
    if minimum_applies
        && dom.namespace(element) == Namespace::Html
        && wants_minimum_group(dom, element)
    {
        return Role::Group;
    }
    role
}

/// The first usable token of the role attribute (WAI-ARIA 1.2 §7.1: "the first token in the
/// sequence that matches the name of a non-abstract WAI-ARIA role"), or `None` to use the
/// implicit role.
fn explicit_role<D: Dom + ?Sized>(
    context: &Context<'_, D>,
    element: NodeId,
    guard: &RoleGuard<'_>,
) -> Option<Role> {
    let dom = context.dom();
    let attribute = dom.attribute(element, "role")?;
    // HTML's "split on ASCII whitespace": a no-break or zero-width space is part of a token, which
    // then names no role.
    for token in attribute.split_ascii_whitespace() {
        // Unknown and abstract tokens give no role (§9.1 "Roles - handling author errors").
        let Some(role) = Role::from_token(token) else {
            continue;
        };
        match role {
            // SPEC DIFFERENCE: a region or form landmark without an accessible name is not a
            // landmark; Chrome skips the token and tries the next one
            // (wpt/wai-aria/role/fallback-roles.html "region group", form-roles.html).
            Role::Region | Role::Form => {
                if has_accessible_name(context, element, role, guard) {
                    return Some(role);
                }
            }
            // SPEC DIFFERENCE: a role whose required context role is missing is ignored, as in
            // Chrome and Core-AAM "Computed role" (wpt/wai-aria/role/contextual-roles.html).
            _ if required_context(role).is_some() => {
                if has_required_context(context, element, role) {
                    return Some(role);
                }
            }
            // A banner or contentinfo inside sectioning content or main is not a page landmark
            // (wpt/wai-aria/role/contextual-roles.html, as for header and footer elements).
            Role::Banner | Role::ContentInfo => {
                if !has_sectioning_ancestor(context, element, HEADER_FOOTER_SCOPING) {
                    return Some(role);
                }
            }
            _ => return Some(role),
        }
    }
    None
}

/// WAI-ARIA 1.2 §5.2.7 "Required Context Role", for the roles that have one.
fn required_context(role: Role) -> Option<&'static [Role]> {
    const CAPTION: &[Role] = &[Role::Figure, Role::Grid, Role::Table, Role::TreeGrid];
    // SPEC DIFFERENCE: cells directly inside a grid or table (no row between) are accepted,
    // as Chrome does (wpt/wai-aria/role/grid-roles.html "first simple gridcell").
    const IN_ROW: &[Role] = &[Role::Row, Role::Grid, Role::Table, Role::TreeGrid];
    const LIST_ITEM: &[Role] = &[Role::List, Role::Directory];
    const MENU_ITEM: &[Role] = &[Role::Group, Role::Menu, Role::MenuBar];
    const OPTION: &[Role] = &[Role::Group, Role::ListBox];
    const ROW: &[Role] = &[Role::Grid, Role::RowGroup, Role::Table, Role::TreeGrid];
    const ROW_GROUP: &[Role] = &[Role::Grid, Role::Table, Role::TreeGrid];
    const TAB: &[Role] = &[Role::TabList];
    const TREE_ITEM: &[Role] = &[Role::Group, Role::Tree];
    match role {
        Role::Caption => Some(CAPTION),
        Role::Cell | Role::ColumnHeader | Role::GridCell | Role::RowHeader => Some(IN_ROW),
        Role::ListItem => Some(LIST_ITEM),
        Role::MenuItem | Role::MenuItemCheckbox | Role::MenuItemRadio => Some(MENU_ITEM),
        Role::Option => Some(OPTION),
        Role::Row => Some(ROW),
        Role::RowGroup => Some(ROW_GROUP),
        Role::Tab => Some(TAB),
        Role::TreeItem => Some(TREE_ITEM),
        _ => None,
    }
}

fn has_required_context<D: Dom + ?Sized>(
    context: &Context<'_, D>,
    element: NodeId,
    role: Role,
) -> bool {
    let Some(allowed) = required_context(role) else {
        return true;
    };
    // The context is judged by the roles the ancestors declare (their first role token, else
    // their context-free implicit role), not by their fully computed roles: Chrome accepts rows
    // inside an author rowgroup whatever that rowgroup's own context
    // (wpt/wai-aria/role/grid-roles.html), and it keeps this check free of recursion.
    let dom = context.dom();
    let mut current = element;
    for _ in 0..=dom.node_count() {
        let Some(parent) = context.ax_parent(current) else {
            return false;
        };
        current = parent;
        if !context.is_element(parent) {
            continue;
        }
        match static_role(dom, parent) {
            Role::Generic | Role::None => continue,
            found => return allowed.contains(&found),
        }
    }
    false
}

/// The role of the nearest accessibility-tree ancestor that is neither generic nor
/// presentational (those are flattened away, so they do not break a required context: think
/// `<ul role="menu"><li role="none"><a role="menuitem">`).
fn nearest_semantic_ancestor_role<D: Dom + ?Sized>(
    context: &Context<'_, D>,
    element: NodeId,
) -> Option<Role> {
    let mut current = element;
    let limit = context.dom().node_count();
    for _ in 0..=limit {
        let parent = context.ax_parent(current)?;
        current = parent;
        if !context.is_element(parent) {
            continue;
        }
        match context.role(parent) {
            Role::Generic | Role::None => continue,
            role => return Some(role),
        }
    }
    None
}

/// WAI-ARIA 1.2 global states and properties, minus those whose global use 1.2 deprecates
/// (aria-disabled, aria-errormessage, aria-haspopup, aria-invalid), as Chrome counts them for
/// presentational role conflict resolution.
const GLOBAL_ARIA_ATTRIBUTES: &[&str] = &[
    "aria-atomic",
    "aria-busy",
    "aria-controls",
    "aria-current",
    "aria-describedby",
    "aria-description",
    "aria-details",
    "aria-dropeffect",
    "aria-flowto",
    "aria-grabbed",
    "aria-keyshortcuts",
    "aria-label",
    "aria-labelledby",
    "aria-live",
    "aria-owns",
    "aria-relevant",
    "aria-roledescription",
];

fn has_global_aria_attribute<D: Dom + ?Sized>(dom: &D, element: NodeId) -> bool {
    GLOBAL_ARIA_ATTRIBUTES
        .iter()
        .any(|name| dom.attribute(element, name).is_some())
}

/// WAI-ARIA 1.2 §9.1 "Presentational Roles Conflict Resolution": none/presentation is ignored on
/// an element that is focusable or carries a global ARIA attribute.
fn has_presentation_conflict<D: Dom + ?Sized>(dom: &D, element: NodeId) -> bool {
    has_global_aria_attribute(dom, element) || is_focusable(dom, element)
}

/// Whether the element can take focus: a tabindex, or natively focusable and not disabled.
/// (Inert and hidden elements are out of the tree anyway.)
pub fn is_focusable<D: Dom + ?Sized>(dom: &D, element: NodeId) -> bool {
    if dom
        .attribute(element, "tabindex")
        .is_some_and(|value| parse_integer(value).is_some())
    {
        return true;
    }
    if dom
        .attribute(element, "contenteditable")
        .is_some_and(|value| !value.trim().eq_ignore_ascii_case("false"))
    {
        return true;
    }
    if dom.namespace(element) != Namespace::Html {
        return dom.namespace(element) == Namespace::Svg
            && dom.local_name(element) == "a"
            && has_svg_href(dom, element);
    }
    match dom.local_name(element) {
        "a" | "area" => dom.attribute(element, "href").is_some(),
        "button" | "select" | "textarea" => !dom.disabled(element),
        "input" => InputType::of(dom, element) != InputType::Hidden && !dom.disabled(element),
        "iframe" | "embed" | "object" => true,
        "audio" | "video" => dom.attribute(element, "controls").is_some(),
        "summary" => is_first_summary_of_details(dom, element),
        _ => false,
    }
}

/// HTML "rules for parsing integers" (leading whitespace, optional sign, digits).
fn parse_integer(value: &str) -> Option<i64> {
    let trimmed = value.trim_ascii_start();
    let (negative, digits) = match trimmed.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, trimmed.strip_prefix('+').unwrap_or(trimmed)),
    };
    let end = digits
        .find(|character: char| !character.is_ascii_digit())
        .unwrap_or(digits.len());
    if end == 0 {
        return None;
    }
    // Eighteen digits always fit an i64; longer numbers are clamped there (HTML would reject
    // them, and any tabindex or size that large means the same as a large one).
    let number = digits
        .get(..end)?
        .chars()
        .take(18)
        .try_fold(0i64, |acc, digit| {
            Some(acc * 10 + i64::from(digit.to_digit(10)?))
        })?;
    Some(if negative { -number } else { number })
}

/// HTML-AAM "minimum role": draggable, autofocus and popover give an otherwise generic element
/// the group role.
fn wants_minimum_group<D: Dom + ?Sized>(dom: &D, element: NodeId) -> bool {
    dom.attribute(element, "autofocus").is_some()
        || dom.attribute(element, "popover").is_some()
        || dom
            .attribute(element, "draggable")
            .is_some_and(|value| !value.trim().eq_ignore_ascii_case("false"))
}

// ---------------------------------------------------------------------------------------------
// Implicit roles.

/// HTML elements whose implicit role does not depend on context (HTML-AAM §4, "HTML Element
/// Role Mappings"), sorted by tag for binary search. Context-dependent elements are in
/// `implicit_html_role`'s `match`.
const IMPLICIT_ROLE_BY_TAG: &[(&str, Role)] = &[
    // HTML-AAM maps address to group (wpt/html-aam/roles.html el-address).
    ("address", Role::Group),
    ("article", Role::Article),
    // SPEC DIFFERENCE: HTML-AAM maps b to generic; wpt/html-aam/roles.html expects strong.
    ("b", Role::Strong),
    ("base", Role::None),
    ("bdi", Role::Generic),
    ("bdo", Role::Generic),
    ("blockquote", Role::Blockquote),
    ("body", Role::Generic),
    ("br", Role::None),
    ("button", Role::Button),
    ("caption", Role::Caption),
    ("code", Role::Code),
    ("col", Role::None),
    ("colgroup", Role::None),
    ("data", Role::Generic),
    ("datalist", Role::ListBox),
    ("dd", Role::Definition),
    ("del", Role::Deletion),
    ("details", Role::Group),
    ("dfn", Role::Term),
    ("dialog", Role::Dialog),
    // The obsolete dir element is a list (wpt/html-aam/dir-role.tentative.html).
    ("dir", Role::List),
    ("div", Role::Generic),
    ("dl", Role::Generic),
    ("dt", Role::Term),
    ("em", Role::Emphasis),
    ("fieldset", Role::Group),
    ("figure", Role::Figure),
    ("h1", Role::Heading),
    ("h2", Role::Heading),
    ("h3", Role::Heading),
    ("h4", Role::Heading),
    ("h5", Role::Heading),
    ("h6", Role::Heading),
    ("head", Role::None),
    ("hgroup", Role::Group),
    ("hr", Role::Separator),
    // The document node is the root of the tree; the html element adds nothing to it.
    ("html", Role::Generic),
    ("i", Role::Generic),
    ("ins", Role::Insertion),
    ("link", Role::None),
    ("main", Role::Main),
    ("map", Role::None),
    ("mark", Role::Mark),
    ("menu", Role::List),
    ("meta", Role::None),
    ("meter", Role::Meter),
    ("nav", Role::Navigation),
    ("noscript", Role::None),
    ("ol", Role::List),
    ("optgroup", Role::Group),
    ("option", Role::Option),
    ("output", Role::Status),
    ("p", Role::Paragraph),
    ("param", Role::None),
    ("pre", Role::Generic),
    ("progress", Role::ProgressBar),
    ("q", Role::Generic),
    // SPEC DIFFERENCE: HTML-AAM maps s to deletion only since 2023; browsers and
    // wpt/html-aam/roles.html agree on deletion.
    ("s", Role::Deletion),
    ("samp", Role::Generic),
    ("script", Role::None),
    ("search", Role::Search),
    ("small", Role::Generic),
    ("source", Role::None),
    ("span", Role::Generic),
    ("strong", Role::Strong),
    ("style", Role::None),
    ("sub", Role::Subscript),
    ("sup", Role::Superscript),
    ("table", Role::Table),
    ("template", Role::None),
    ("textarea", Role::TextBox),
    ("time", Role::Time),
    ("title", Role::None),
    ("track", Role::None),
    ("u", Role::Generic),
    ("ul", Role::List),
    ("wbr", Role::None),
];

fn table_role(tag: &str) -> Option<Role> {
    IMPLICIT_ROLE_BY_TAG
        .binary_search_by(|(name, _)| (*name).cmp(tag))
        .ok()
        .and_then(|index| IMPLICIT_ROLE_BY_TAG.get(index))
        .map(|(_, role)| *role)
}

fn implicit_role<D: Dom + ?Sized>(
    context: &Context<'_, D>,
    element: NodeId,
    guard: &RoleGuard<'_>,
) -> Role {
    let dom = context.dom();
    match dom.namespace(element) {
        Namespace::Html => {
            let role = implicit_html_role(context, element, guard);
            // WAI-ARIA 1.2 §9.1: the required owned elements of a presentational table or list
            // (rows, cells, list items) are presentational too.
            if role != Role::None && inherits_presentation(dom, element) {
                return Role::None;
            }
            role
        }
        Namespace::Svg => implicit_svg_role(dom, element),
        // MathML-AAM: the math element is the math role; its parts are not mapped to ARIA.
        Namespace::MathMl => {
            if dom.local_name(element) == "math" {
                Role::Math
            } else {
                Role::Generic
            }
        }
        Namespace::Other => Role::Generic,
    }
}

fn implicit_html_role<D: Dom + ?Sized>(
    context: &Context<'_, D>,
    element: NodeId,
    guard: &RoleGuard<'_>,
) -> Role {
    let dom = context.dom();
    let tag = dom.local_name(element);
    match tag {
        // HTML-AAM el-a / el-area: a link with an href, otherwise generic.
        "a" | "area" => {
            if dom.attribute(element, "href").is_some() {
                Role::Link
            } else {
                Role::Generic
            }
        }
        // HTML-AAM el-aside: complementary when scoped to body or main; inside other sectioning
        // content only when named.
        "aside" => {
            if !has_sectioning_ancestor(context, element, ASIDE_SCOPING)
                || has_accessible_name(context, element, Role::Complementary, guard)
            {
                Role::Complementary
            } else {
                Role::Generic
            }
        }
        // HTML-AAM el-header / el-footer: banner and contentinfo only when scoped to body.
        // SPEC DIFFERENCE: not sectionheader/sectionfooter inside sectioning content; the stable
        // wpt/html-aam/roles-contextual.html expects generic there (the tentative file differs).
        "header" | "footer" => {
            if has_sectioning_ancestor(context, element, HEADER_FOOTER_SCOPING) {
                Role::Generic
            } else if tag == "header" {
                Role::Banner
            } else {
                Role::ContentInfo
            }
        }
        // HTML-AAM el-form / el-section: a landmark only with an accessible name
        // (wpt/html-aam/roles-contextual.tentative.html).
        "form" => {
            if has_accessible_name(context, element, Role::Form, guard) {
                Role::Form
            } else {
                Role::Generic
            }
        }
        "section" => {
            if has_accessible_name(context, element, Role::Region, guard) {
                Role::Region
            } else {
                Role::Generic
            }
        }
        "img" => image_role(context, element, guard),
        "input" => input_role(dom, element),
        // HTML-AAM el-select-combobox / el-select-listbox.
        "select" => {
            let size = dom
                .attribute(element, "size")
                .and_then(parse_integer)
                .unwrap_or(0);
            if dom.attribute(element, "multiple").is_some() || size > 1 {
                Role::ListBox
            } else {
                Role::Combobox
            }
        }
        // HTML-AAM el-li: a list item only inside a list (wpt/html-aam/roles-generic.tentative.html:
        // generic wrappers between are fine, aria-owns counts).
        "li" => {
            if guard.too_deep()
                || matches!(
                    nearest_semantic_ancestor_role(context, element),
                    Some(Role::List | Role::Directory)
                )
            {
                Role::ListItem
            } else {
                Role::Generic
            }
        }
        // HTML-AAM el-summary: only the first summary child of a details element is its
        // summary. SPEC DIFFERENCE: HTML-AAM gives it no ARIA role; Chrome exposes a disclosure
        // triangle that platforms map to a button, and we call it a button so the agent sees a
        // clickable control with its expanded state.
        "summary" => {
            if is_first_summary_of_details(dom, element) {
                Role::Button
            } else {
                Role::Generic
            }
        }
        // HTML-AAM el-td: cell in a table, gridcell in a grid or treegrid.
        "td" => match enclosing_table_role(context, element, guard) {
            Some(Role::Grid | Role::TreeGrid) => Role::GridCell,
            Some(Role::None) => Role::None,
            _ => Role::Cell,
        },
        "th" => header_cell_role(context, element, guard),
        "tr" => Role::Row,
        // SPEC DIFFERENCE: HTML-AAM maps thead, tbody and tfoot to rowgroup; Chrome exposes them
        // only when focusable (wpt/html-aam/table-roles.html expects "" for plain row groups).
        "thead" | "tbody" | "tfoot" => {
            if is_focusable(dom, element) {
                Role::RowGroup
            } else {
                Role::Generic
            }
        }
        _ => table_role(tag).unwrap_or(Role::Generic),
    }
}

/// Ancestors that take header and footer out of the body's scope (HTML-AAM
/// "scoped to the body element": sectioning content and main), as tags and as explicit roles.
const HEADER_FOOTER_SCOPING: Scoping = Scoping {
    tags: &["article", "aside", "main", "nav", "section"],
    roles: &[
        Role::Article,
        Role::Complementary,
        Role::Main,
        Role::Navigation,
        Role::Region,
    ],
};

/// Ancestors that make an aside need a name (HTML-AAM el-aside: sectioning content other than
/// main).
const ASIDE_SCOPING: Scoping = Scoping {
    tags: &["article", "aside", "nav", "section"],
    roles: &[
        Role::Article,
        Role::Complementary,
        Role::Navigation,
        Role::Region,
    ],
};

struct Scoping {
    tags: &'static [&'static str],
    roles: &'static [Role],
}

/// Whether a flat-tree ancestor is sectioning content by tag (without a role attribute) or by
/// an explicit role. Decided from attributes only, so it never asks other roles.
fn has_sectioning_ancestor<D: Dom + ?Sized>(
    context: &Context<'_, D>,
    element: NodeId,
    scoping: Scoping,
) -> bool {
    let dom = context.dom();
    let flat = context.flat_tree();
    let mut current = element;
    for _ in 0..=dom.node_count() {
        let Some(parent) = flat.parent(current) else {
            return false;
        };
        current = parent;
        if dom.node_kind(parent) != NodeKind::Element {
            continue;
        }
        match first_role_token(dom, parent) {
            Some(role) => {
                if scoping.roles.contains(&role) {
                    return true;
                }
            }
            None => {
                if dom.namespace(parent) == Namespace::Html
                    && scoping.tags.contains(&dom.local_name(parent))
                {
                    return true;
                }
            }
        }
    }
    false
}

/// The first known, non-abstract role token, without any context check.
fn first_role_token<D: Dom + ?Sized>(dom: &D, element: NodeId) -> Option<Role> {
    dom.attribute(element, "role")?
        .split_ascii_whitespace()
        .find_map(Role::from_token)
}

/// Whether the element has a non-empty accessible name from the author (aria-labelledby,
/// aria-label, title), which section, form, aside and an explicit region need.
fn has_accessible_name<D: Dom + ?Sized>(
    context: &Context<'_, D>,
    element: NodeId,
    candidate: Role,
    guard: &RoleGuard<'_>,
) -> bool {
    let dom = context.dom();
    let non_empty = |name: &str| {
        dom.attribute(element, name)
            .is_some_and(|value| !value.trim().is_empty())
    };
    // A non-empty aria-label or title is always part of the name (accname 2C, 2I): no need to
    // run the whole computation.
    if non_empty("aria-label") || non_empty("title") {
        return true;
    }
    if !non_empty("aria-labelledby") || guard.too_deep() {
        return false;
    }
    guard.set_provisional(candidate);
    let name = context.name(element);
    name.source == crate::name::NameSource::Spec && !name.text.trim().is_empty()
}

/// HTML-AAM el-img and the image rows of wpt/html-aam/img-src-srcset-roles.tentative.html.
fn image_role<D: Dom + ?Sized>(
    context: &Context<'_, D>,
    element: NodeId,
    guard: &RoleGuard<'_>,
) -> Role {
    let dom = context.dom();
    let non_empty = |name: &str| {
        dom.attribute(element, name)
            .is_some_and(|value| !value.trim().is_empty())
    };
    let labelled = || {
        (dom.attribute(element, "aria-label").is_some()
            || dom.attribute(element, "aria-labelledby").is_some())
            && {
                if non_empty("aria-label") {
                    true
                } else if !non_empty("aria-labelledby") || guard.too_deep() {
                    false
                } else {
                    guard.set_provisional(Role::Image);
                    !context.name(element).text.trim().is_empty()
                }
            }
    };
    match dom.attribute(element, "alt") {
        // alt="": presentational (HTML-AAM el-img-empty-alt), unless an author label names it,
        // it is focusable or carries another global ARIA attribute (§9.1 conflict resolution).
        // A title alone does not rescue it (wpt el-img-empty-alt-title).
        Some("") => {
            let other_global = GLOBAL_ARIA_ATTRIBUTES
                .iter()
                .filter(|name| !matches!(**name, "aria-label" | "aria-labelledby"))
                .any(|name| dom.attribute(element, name).is_some());
            if other_global || is_focusable(dom, element) || labelled() {
                Role::Image
            } else {
                Role::None
            }
        }
        Some(_) => Role::Image,
        // No alt: an image when it has a source to show or a name; "represents nothing"
        // otherwise (HTML "img" rendering rules).
        None => {
            if non_empty("src") || non_empty("srcset") || non_empty("title") || labelled() {
                Role::Image
            } else {
                Role::None
            }
        }
    }
}

/// HTML-AAM el-input-*: the role of each input type.
fn input_role<D: Dom + ?Sized>(dom: &D, element: NodeId) -> Role {
    let input_type = InputType::of(dom, element);
    match input_type {
        // el-input-text-list etc.: a text field with a list attribute naming a datalist is a
        // combobox (we require the datalist, as Chrome does).
        InputType::Text
        | InputType::Search
        | InputType::Email
        | InputType::Tel
        | InputType::Url => {
            if has_datalist(dom, element) {
                Role::Combobox
            } else if input_type == InputType::Search {
                Role::SearchBox
            } else {
                Role::TextBox
            }
        }
        // el-input-checkbox; the switch attribute makes it a switch (wpt roles.tentative.html).
        InputType::Checkbox => {
            if dom.attribute(element, "switch").is_some() {
                Role::Switch
            } else {
                Role::Checkbox
            }
        }
        InputType::Radio => Role::Radio,
        InputType::Number => Role::SpinButton,
        InputType::Range => Role::Slider,
        InputType::Button | InputType::Submit | InputType::Reset | InputType::Image => Role::Button,
        // SPEC DIFFERENCE: HTML-AAM gives file inputs no role; every browser exposes a button.
        InputType::File => Role::Button,
        InputType::Hidden => Role::None,
        // SPEC DIFFERENCE: HTML-AAM gives password, date and time fields no ARIA role; Chrome
        // exposes text fields (and agents type into them), as Playwright does.
        InputType::Password
        | InputType::Color
        | InputType::Date
        | InputType::DateTimeLocal
        | InputType::Month
        | InputType::Time
        | InputType::Week => Role::TextBox,
    }
}

fn has_datalist<D: Dom + ?Sized>(dom: &D, element: NodeId) -> bool {
    let Some(list) = dom.attribute(element, "list") else {
        return false;
    };
    if list.is_empty() {
        return false;
    }
    dom.element_by_id(element, list)
        .is_some_and(|target| is_html(dom, target, "datalist"))
}

/// Whether this `<summary>` is the first summary child of a `<details>` (HTML "the summary
/// element ... summary for its parent details").
fn is_first_summary_of_details<D: Dom + ?Sized>(dom: &D, element: NodeId) -> bool {
    let Some(parent) = dom.parent(element) else {
        return false;
    };
    if !is_html(dom, parent, "details") {
        return false;
    }
    dom.children(parent)
        .iter()
        .copied()
        .find(|&child| is_html(dom, child, "summary"))
        == Some(element)
}

/// The computed role of the nearest `<table>` ancestor of a cell (DOM ancestors, as the HTML
/// table model is about the DOM).
fn enclosing_table_role<D: Dom + ?Sized>(
    context: &Context<'_, D>,
    element: NodeId,
    guard: &RoleGuard<'_>,
) -> Option<Role> {
    let dom = context.dom();
    let table = enclosing_table(dom, element)?;
    if guard.too_deep() {
        return Some(static_role(dom, table));
    }
    Some(context.role(table))
}

fn enclosing_table<D: Dom + ?Sized>(dom: &D, element: NodeId) -> Option<NodeId> {
    let mut current = element;
    for _ in 0..=dom.node_count() {
        let parent = dom.parent(current)?;
        if is_html(dom, parent, "table") {
            return Some(parent);
        }
        current = parent;
    }
    None
}

/// HTML-AAM el-th: columnheader or rowheader, from scope, else from the cell's neighbours as
/// Chrome does (a header row of th cells heads columns; a th beside data cells heads its row).
fn header_cell_role<D: Dom + ?Sized>(
    context: &Context<'_, D>,
    element: NodeId,
    guard: &RoleGuard<'_>,
) -> Role {
    let dom = context.dom();
    if enclosing_table_role(context, element, guard) == Some(Role::None) {
        return Role::None;
    }
    match dom
        .attribute(element, "scope")
        .map(|scope| scope.trim().to_ascii_lowercase())
        .as_deref()
    {
        Some("col" | "colgroup") => return Role::ColumnHeader,
        Some("row" | "rowgroup") => return Role::RowHeader,
        _ => {}
    }
    let Some(row) = dom.parent(element).filter(|&row| is_html(dom, row, "tr")) else {
        return Role::ColumnHeader;
    };
    // A header row inside thead heads columns.
    if dom
        .parent(row)
        .is_some_and(|group| is_html(dom, group, "thead"))
    {
        return Role::ColumnHeader;
    }
    let cells: Vec<NodeId> = dom
        .children(row)
        .iter()
        .copied()
        .filter(|&cell| is_html(dom, cell, "td") || is_html(dom, cell, "th"))
        .collect();
    // Chrome: a th that is the only cell of the only row heads nothing; it is a plain cell.
    if cells.len() == 1 {
        let rows = enclosing_table(dom, row).map_or(0, |table| count_rows(dom, table));
        return if rows <= 1 {
            Role::Cell
        } else {
            Role::ColumnHeader
        };
    }
    // A th next to a data cell with content heads its row (Chrome's neighbour check).
    let has_data_neighbour = cells
        .iter()
        .any(|&cell| is_html(dom, cell, "td") && has_content(dom, cell));
    if has_data_neighbour {
        Role::RowHeader
    } else {
        Role::ColumnHeader
    }
}

/// The rows of a table: its tr children and those of its row groups.
fn count_rows<D: Dom + ?Sized>(dom: &D, table: NodeId) -> usize {
    let mut rows = 0;
    for &child in dom.children(table) {
        if is_html(dom, child, "tr") {
            rows += 1;
        } else if ["thead", "tbody", "tfoot"]
            .iter()
            .any(|tag| is_html(dom, child, tag))
        {
            rows += dom
                .children(child)
                .iter()
                .filter(|&&row| is_html(dom, row, "tr"))
                .count();
        }
    }
    rows
}

/// Whether a cell has element children or non-whitespace text.
fn has_content<D: Dom + ?Sized>(dom: &D, cell: NodeId) -> bool {
    dom.children(cell)
        .iter()
        .any(|&child| match dom.node_kind(child) {
            NodeKind::Element => true,
            NodeKind::Text => !dom.text_data(child).trim().is_empty(),
            _ => false,
        })
}

/// WAI-ARIA 1.2 §9.1 (presentational role inheritance): which parents pass a presentational
/// role down to which children, as the required owned elements of lists, tables and
/// description lists.
const PRESENTATION_INHERITANCE: &[(&str, &[&str])] = &[
    ("dd", &["dl", "div"]),
    ("div", &["dl"]),
    ("dt", &["dl", "div"]),
    ("li", &["ol", "ul", "menu"]),
    ("tbody", &["table"]),
    ("td", &["tr"]),
    ("tfoot", &["table"]),
    ("th", &["tr"]),
    ("thead", &["table"]),
    ("tr", &["thead", "tbody", "tfoot", "table"]),
];

/// Whether an implicitly-roled element inherits none/presentation from the list or table it
/// belongs to (through its chain of required-owned parents, e.g. td -> tr -> tbody -> table).
fn inherits_presentation<D: Dom + ?Sized>(dom: &D, element: NodeId) -> bool {
    let mut current = element;
    for _ in 0..=dom.node_count() {
        let tag = dom.local_name(current);
        let Some((_, parents)) = PRESENTATION_INHERITANCE
            .iter()
            .find(|(child, _)| *child == tag)
        else {
            return false;
        };
        let Some(parent) = dom.parent(current) else {
            return false;
        };
        if dom.node_kind(parent) != NodeKind::Element
            || dom.namespace(parent) != Namespace::Html
            || !parents.contains(&dom.local_name(parent))
        {
            return false;
        }
        match first_role_token(dom, parent) {
            Some(Role::None) => return !has_presentation_conflict(dom, parent),
            // An explicit role on the parent ends the chain: its children are its own.
            Some(_) => return false,
            None => current = parent,
        }
    }
    false
}

/// SVG-AAM §5 "SVG Element Mappings", reduced to what an agent needs: the root is a graphics
/// document, links are links, named shapes are graphics symbols, everything else is decoration
/// or a plain container.
fn implicit_svg_role<D: Dom + ?Sized>(dom: &D, element: NodeId) -> Role {
    match dom.local_name(element) {
        "svg" => Role::GraphicsDocument,
        "a" => {
            if has_svg_href(dom, element) {
                Role::Link
            } else {
                Role::Group
            }
        }
        // SVG-AAM: g is a group when it has a name, otherwise nothing worth showing.
        "g" => {
            if svg_is_named(dom, element) {
                Role::Group
            } else {
                Role::Generic
            }
        }
        "image" => {
            if svg_is_named(dom, element) {
                Role::Image
            } else {
                Role::None
            }
        }
        "circle" | "ellipse" | "line" | "path" | "polygon" | "polyline" | "rect" | "use" => {
            if svg_is_named(dom, element) {
                Role::GraphicsSymbol
            } else {
                Role::None
            }
        }
        // Text content keeps its text; foreignObject holds HTML.
        "text" | "tspan" | "textPath" | "foreignObject" => Role::Generic,
        _ => Role::None,
    }
}

fn has_svg_href<D: Dom + ?Sized>(dom: &D, element: NodeId) -> bool {
    dom.attribute(element, "href").is_some() || dom.attribute(element, "xlink:href").is_some()
}

/// SVG-AAM "name": aria-label, aria-labelledby or a title child.
fn svg_is_named<D: Dom + ?Sized>(dom: &D, element: NodeId) -> bool {
    let non_empty = |name: &str| {
        dom.attribute(element, name)
            .is_some_and(|value| !value.trim().is_empty())
    };
    non_empty("aria-label")
        || non_empty("aria-labelledby")
        || dom.children(element).iter().any(|&child| {
            dom.node_kind(child) == NodeKind::Element
                && dom.namespace(child) == Namespace::Svg
                && dom.local_name(child) == "title"
                && dom.children(child).iter().any(|&text| {
                    dom.node_kind(text) == NodeKind::Text && !dom.text_data(text).trim().is_empty()
                })
        })
}

/// A role decided from the element alone (explicit token, or the context-free implicit role):
/// the answer for nested requests past the depth limit, and for re-entrant requests without a
/// provisional role.
fn static_role<D: Dom + ?Sized>(dom: &D, element: NodeId) -> Role {
    if let Some(role) = first_role_token(dom, element) {
        if role != Role::None || !has_presentation_conflict(dom, element) {
            return role;
        }
    }
    match dom.namespace(element) {
        Namespace::Html => match dom.local_name(element) {
            "a" | "area" if dom.attribute(element, "href").is_some() => Role::Link,
            // A list item only when its parent declares a list (so that `<ul role=tablist><li>`
            // does not break the tablist context of a tab inside it).
            "li" => {
                let parent_is_list = dom.parent(element).is_some_and(|parent| {
                    dom.node_kind(parent) == NodeKind::Element
                        && match first_role_token(dom, parent) {
                            Some(role) => role == Role::List,
                            None => {
                                dom.namespace(parent) == Namespace::Html
                                    && matches!(
                                        dom.local_name(parent),
                                        "ul" | "ol" | "menu" | "dir"
                                    )
                            }
                        }
                });
                if parent_is_list {
                    Role::ListItem
                } else {
                    Role::Generic
                }
            }
            "td" => Role::Cell,
            "th" => Role::ColumnHeader,
            "tr" => Role::Row,
            "input" => input_role(dom, element),
            "img" => Role::Image,
            tag => table_role(tag).unwrap_or(Role::Generic),
        },
        Namespace::Svg => implicit_svg_role(dom, element),
        Namespace::MathMl if dom.local_name(element) == "math" => Role::Math,
        _ => Role::Generic,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn implicit_role_table_is_sorted_for_binary_search() {
        for pair in IMPLICIT_ROLE_BY_TAG.windows(2) {
            assert!(
                pair[0].0 < pair[1].0,
                "{} must come before {}",
                pair[0].0,
                pair[1].0
            );
        }
    }

    #[test]
    fn integers_parse_like_html() {
        assert_eq!(parse_integer("0"), Some(0));
        assert_eq!(parse_integer(" -1"), Some(-1));
        assert_eq!(parse_integer("+3x"), Some(3));
        assert_eq!(parse_integer("x"), None);
        assert_eq!(parse_integer(""), None);
        assert_eq!(parse_integer("-"), None);
        assert!(parse_integer("99999999999999999999999999").is_some());
    }
}
