//! States and properties of an element, as the structured snapshot lists them
//! (`schema/snapshot-v1.schema.json`): states include native and explicit ARIA checked, selected,
//! expanded, pressed, disabled, required, readonly, heading level, and numeric range values;
//! undefined states are omitted, an explicit false remains a boolean, and a mixed check state is
//! a string. Properties include accessible descriptions, control values, placeholders, link
//! URLs and ARIA metadata; password and file input values are never reported.
//!
//! Native state comes first (HTML-AAM §5 "HTML Attribute State and Property Mappings"); an
//! explicit ARIA state counts only on a role that supports it (WAI-ARIA 1.2 §6.6 "Definitions of
//! States and Properties", "Used in Roles"). The description is added by the tree builder.

use crate::aria::Role;
use crate::context::Context;
use crate::dom::{Dom, Namespace, NodeId, NodeKind};
use crate::html::{
    collapse_ascii_whitespace, html_tag, is_html, selected_options, text_content, InputType,
};

/// A tri-state value: aria-checked and aria-pressed accept "mixed".
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Checked {
    True,
    False,
    Mixed,
}

impl Checked {
    fn from_bool(value: bool) -> Checked {
        if value {
            Checked::True
        } else {
            Checked::False
        }
    }
}

/// The states of one element. `None` means undefined (omitted from the output).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct States {
    pub checked: Option<Checked>,
    pub selected: Option<bool>,
    pub expanded: Option<bool>,
    pub pressed: Option<Checked>,
    pub disabled: Option<bool>,
    pub required: Option<bool>,
    pub readonly: Option<bool>,
    pub level: Option<u32>,
    pub value_now: Option<f64>,
    pub value_min: Option<f64>,
    pub value_max: Option<f64>,
    pub value_text: Option<String>,
}

/// A typed ARIA property value, so that serializers write booleans and numbers as such.
#[derive(Clone, Debug, PartialEq)]
pub enum PropertyValue {
    Text(String),
    Bool(bool),
    Integer(i64),
}

/// The properties of one element (the description comes from the tree builder).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Properties {
    /// The control's current value. Never set for password or file inputs.
    pub value: Option<String>,
    pub placeholder: Option<String>,
    /// A link's href as written (the tree builder may resolve it against the document URL).
    pub url: Option<String>,
    /// ARIA metadata, in the fixed order of `ARIA_PROPERTIES`, keyed by the attribute name
    /// without its `aria-` prefix (`haspopup`, `current`, `posinset`, ...).
    pub aria: Vec<(&'static str, PropertyValue)>,
}

// ---------------------------------------------------------------------------------------------
// Which roles support which state (WAI-ARIA 1.2, "Used in Roles" plus the roles that inherit it).

/// aria-checked: checkbox, menuitemcheckbox, menuitemradio, option, radio, switch, treeitem.
const CHECKED_ROLES: &[Role] = &[
    Role::Checkbox,
    Role::MenuItemCheckbox,
    Role::MenuItemRadio,
    Role::Option,
    Role::Radio,
    Role::Switch,
    Role::TreeItem,
];

/// Roles whose aria-checked defaults to false rather than undefined (their role definition
/// requires the state), so a missing attribute still reports "not checked".
const CHECKED_DEFAULTS_FALSE: &[Role] = &[
    Role::Checkbox,
    Role::MenuItemCheckbox,
    Role::MenuItemRadio,
    Role::Radio,
    Role::Switch,
];

/// Only checkbox and menuitemcheckbox accept "mixed"; on the others it means false.
const MIXED_ROLES: &[Role] = &[Role::Checkbox, Role::MenuItemCheckbox];

/// aria-selected: gridcell, option, row, tab, and (inherited) columnheader, rowheader, treeitem.
const SELECTED_ROLES: &[Role] = &[
    Role::ColumnHeader,
    Role::GridCell,
    Role::Option,
    Role::Row,
    Role::RowHeader,
    Role::Tab,
    Role::TreeItem,
];

/// aria-expanded, with the roles that inherit it.
const EXPANDED_ROLES: &[Role] = &[
    Role::Application,
    Role::Button,
    Role::Checkbox,
    Role::ColumnHeader,
    Role::Combobox,
    Role::GridCell,
    Role::Link,
    Role::ListBox,
    Role::MenuItem,
    Role::MenuItemCheckbox,
    Role::MenuItemRadio,
    Role::Row,
    Role::RowHeader,
    Role::Switch,
    Role::Tab,
    Role::TreeItem,
];

/// aria-pressed: button only.
const PRESSED_ROLES: &[Role] = &[Role::Button];

/// aria-disabled (used in the widget and container roles, ARIA 1.2 deprecates it as global).
const DISABLED_ROLES: &[Role] = &[
    Role::Application,
    Role::Button,
    Role::Checkbox,
    Role::ColumnHeader,
    Role::Combobox,
    Role::Grid,
    Role::GridCell,
    Role::Group,
    Role::Link,
    Role::ListBox,
    Role::Menu,
    Role::MenuBar,
    Role::MenuItem,
    Role::MenuItemCheckbox,
    Role::MenuItemRadio,
    Role::Option,
    Role::Radio,
    Role::RadioGroup,
    Role::Row,
    Role::RowHeader,
    Role::ScrollBar,
    Role::SearchBox,
    Role::Separator,
    Role::Slider,
    Role::SpinButton,
    Role::Switch,
    Role::Tab,
    Role::TabList,
    Role::TextBox,
    Role::Toolbar,
    Role::Tree,
    Role::TreeGrid,
    Role::TreeItem,
];

/// aria-required.
const REQUIRED_ROLES: &[Role] = &[
    Role::Checkbox,
    Role::ColumnHeader,
    Role::Combobox,
    Role::GridCell,
    Role::ListBox,
    Role::RadioGroup,
    Role::RowHeader,
    Role::SearchBox,
    Role::SpinButton,
    Role::Switch,
    Role::TextBox,
    Role::Tree,
    Role::TreeGrid,
];

/// aria-readonly.
const READONLY_ROLES: &[Role] = &[
    Role::Checkbox,
    Role::ColumnHeader,
    Role::Combobox,
    Role::Grid,
    Role::GridCell,
    Role::ListBox,
    Role::RadioGroup,
    Role::RowHeader,
    Role::SearchBox,
    Role::Slider,
    Role::SpinButton,
    Role::Switch,
    Role::TextBox,
    Role::TreeGrid,
];

/// aria-level.
const LEVEL_ROLES: &[Role] = &[
    Role::Comment,
    Role::Heading,
    Role::ListItem,
    Role::Row,
    Role::TreeItem,
];

/// aria-valuenow / valuemin / valuemax / valuetext.
const RANGE_ROLES: &[Role] = &[
    Role::Meter,
    Role::ProgressBar,
    Role::ScrollBar,
    Role::Separator,
    Role::Slider,
    Role::SpinButton,
];

// ---------------------------------------------------------------------------------------------
// States.

/// The element's states, given its computed role.
// Not inlined: inlined into the tree builder it makes one giant function, which the wasm2js
// build turns into a JavaScript function too large for the JIT to optimise.
#[inline(never)]
pub fn compute_states<D: Dom + ?Sized>(
    context: &Context<'_, D>,
    element: NodeId,
    role: Role,
) -> States {
    let dom = context.dom();
    let mut states = States::default();
    if !context.is_element(element) {
        return states;
    }
    let tag = html_tag(dom, element);
    let input_type = (tag == Some("input")).then(|| InputType::of(dom, element));

    // checked: HTML-AAM "input type=checkbox/radio: checked state"; the indeterminate IDL flag
    // is mixed (checkbox only).
    if CHECKED_ROLES.contains(&role) {
        states.checked = match input_type {
            Some(InputType::Checkbox)
                if dom.indeterminate(element) && MIXED_ROLES.contains(&role) =>
            {
                Some(Checked::Mixed)
            }
            Some(InputType::Checkbox | InputType::Radio) => {
                Some(Checked::from_bool(dom.checked(element)))
            }
            _ => match aria_tristate(dom.attribute(element, "aria-checked")) {
                Some(Checked::Mixed) if !MIXED_ROLES.contains(&role) => Some(Checked::False),
                Some(value) => Some(value),
                None if CHECKED_DEFAULTS_FALSE.contains(&role) => Some(Checked::False),
                None => None,
            },
        };
    }

    // selected: a native option's selectedness, else aria-selected.
    if SELECTED_ROLES.contains(&role) {
        states.selected = if tag == Some("option") {
            Some(dom.option_selected(element))
        } else {
            aria_bool(dom.attribute(element, "aria-selected"))
        };
    }

    // expanded: the summary of a details element reflects `open` (HTML-AAM el-summary);
    // otherwise aria-expanded.
    if EXPANDED_ROLES.contains(&role) {
        states.expanded = match summary_details(dom, element) {
            Some(details) => Some(dom.attribute(details, "open").is_some()),
            None => aria_bool(dom.attribute(element, "aria-expanded")),
        };
    }

    if PRESSED_ROLES.contains(&role) {
        states.pressed = aria_tristate(dom.attribute(element, "aria-pressed"));
    }

    states.disabled = disabled_state(context, element, role);

    // required: the native attribute on the controls it applies to, else aria-required.
    let native_required = matches!(tag, Some("select" | "textarea"))
        || input_type.is_some_and(|input_type| {
            !matches!(
                input_type,
                InputType::Hidden
                    | InputType::Range
                    | InputType::Color
                    | InputType::Button
                    | InputType::Submit
                    | InputType::Reset
                    | InputType::Image
            )
        });
    if native_required && dom.attribute(element, "required").is_some() {
        states.required = Some(true);
    } else if REQUIRED_ROLES.contains(&role) {
        states.required = aria_bool(dom.attribute(element, "aria-required"));
    }

    // readonly: the native attribute on text-like inputs and textarea, else aria-readonly.
    let native_readonly = tag == Some("textarea")
        || input_type.is_some_and(|input_type| {
            !matches!(
                input_type,
                InputType::Hidden
                    | InputType::Range
                    | InputType::Color
                    | InputType::Checkbox
                    | InputType::Radio
                    | InputType::File
                    | InputType::Button
                    | InputType::Submit
                    | InputType::Reset
                    | InputType::Image
            )
        });
    if native_readonly && dom.attribute(element, "readonly").is_some() {
        states.readonly = Some(true);
    } else if READONLY_ROLES.contains(&role) {
        states.readonly = aria_bool(dom.attribute(element, "aria-readonly"));
    }

    // level: a valid aria-level wins (Chrome and Firefox let it override h1-h6); h1-h6 give
    // their number; an explicit heading without either is level 2 (WAI-ARIA 1.2 heading).
    if LEVEL_ROLES.contains(&role) {
        let explicit = dom
            .attribute(element, "aria-level")
            .and_then(|value| value.trim().parse::<u32>().ok())
            .filter(|&level| level >= 1);
        let native = tag.and_then(heading_level);
        states.level = explicit.or(native).or((role == Role::Heading).then_some(2));
    }

    range_values(context, element, role, tag, input_type, &mut states);
    states
}

/// disabled: a disabled native control (`:disabled`, with fieldset and optgroup inheritance),
/// else aria-disabled on the element or inherited from an ancestor (WAI-ARIA 1.2 aria-disabled:
/// "applies to the element and all focusable descendants") for the roles that support it. An
/// explicit aria-disabled="false" on the element itself is kept.
fn disabled_state<D: Dom + ?Sized>(
    context: &Context<'_, D>,
    element: NodeId,
    role: Role,
) -> Option<bool> {
    let dom = context.dom();
    if is_disableable_control(dom, element) && dom.disabled(element) {
        return Some(true);
    }
    if !DISABLED_ROLES.contains(&role) && !is_disableable_control(dom, element) {
        return None;
    }
    let own = aria_bool(dom.attribute(element, "aria-disabled"));
    if own.is_some() {
        return own;
    }
    // The nearest ancestor (across shadow boundaries) that says anything decides.
    let flat = context.flat_tree();
    let mut current = element;
    for _ in 0..=dom.node_count() {
        let Some(parent) = flat.parent(current) else {
            break;
        };
        current = parent;
        if dom.node_kind(parent) != NodeKind::Element {
            continue;
        }
        match aria_bool(dom.attribute(parent, "aria-disabled")) {
            Some(true) => return Some(true),
            Some(false) => return None,
            None => {}
        }
    }
    None
}

/// Elements that HTML can disable (HTML "concept-fe-disabled" and option/optgroup).
fn is_disableable_control<D: Dom + ?Sized>(dom: &D, element: NodeId) -> bool {
    matches!(
        html_tag(dom, element),
        Some("button" | "input" | "select" | "textarea" | "fieldset" | "optgroup" | "option")
    )
}

/// Numeric range values: native input range/number, progress and meter first, then the
/// aria-value* attributes on range roles.
fn range_values<D: Dom + ?Sized>(
    context: &Context<'_, D>,
    element: NodeId,
    role: Role,
    tag: Option<&str>,
    input_type: Option<InputType>,
    states: &mut States,
) {
    let dom = context.dom();
    let number_attribute = |name: &str| dom.attribute(element, name).and_then(parse_number);
    match (tag, input_type) {
        // HTML "Range state": min defaults to 0, max to 100; the value is sanitized to the
        // midpoint when it is missing or invalid, and clamped into [min, max].
        (_, Some(InputType::Range)) if RANGE_ROLES.contains(&role) => {
            let min = number_attribute("min").unwrap_or(0.0);
            let max = number_attribute("max").unwrap_or(100.0).max(min);
            let value = dom
                .value(element)
                .and_then(parse_number)
                .unwrap_or(min + (max - min) / 2.0)
                .clamp(min, max);
            states.value_min = Some(min);
            states.value_max = Some(max);
            states.value_now = Some(value);
            return;
        }
        // HTML "Number state": only what the page states.
        (_, Some(InputType::Number)) if RANGE_ROLES.contains(&role) => {
            states.value_min = number_attribute("min");
            states.value_max = number_attribute("max");
            states.value_now = dom.value(element).and_then(parse_number);
            return;
        }
        // HTML progress: max defaults to 1; without a value the bar is indeterminate.
        (Some("progress"), _) if RANGE_ROLES.contains(&role) => {
            let max = number_attribute("max")
                .filter(|&max| max > 0.0)
                .unwrap_or(1.0);
            states.value_min = Some(0.0);
            states.value_max = Some(max);
            states.value_now = number_attribute("value").map(|value| value.clamp(0.0, max));
            return;
        }
        // HTML meter: min 0, max 1 (at least min), value 0, clamped.
        (Some("meter"), _) if RANGE_ROLES.contains(&role) => {
            let min = number_attribute("min").unwrap_or(0.0);
            let max = number_attribute("max").unwrap_or(1.0).max(min);
            let value = number_attribute("value").unwrap_or(0.0).clamp(min, max);
            states.value_min = Some(min);
            states.value_max = Some(max);
            states.value_now = Some(value);
            return;
        }
        _ => {}
    }
    if RANGE_ROLES.contains(&role) {
        states.value_now = number_attribute("aria-valuenow");
        states.value_min = number_attribute("aria-valuemin");
        states.value_max = number_attribute("aria-valuemax");
        states.value_text = dom
            .attribute(element, "aria-valuetext")
            .map(str::trim)
            .filter(|text| !text.is_empty())
            .map(str::to_string);
    }
}

// ---------------------------------------------------------------------------------------------
// Properties.

/// How an ARIA property's value is read.
#[derive(Copy, Clone)]
enum Kind {
    /// One of the listed tokens (ASCII case-insensitive); `("true", x)` maps true to x.
    Token(&'static [(&'static str, &'static str)]),
    /// A token property whose unknown non-false values mean "true" (aria-current, aria-invalid).
    TokenOrTrue(&'static [&'static str]),
    Bool,
    Integer,
    Text,
}

/// `None`: a global property (any role); otherwise the roles that support it.
type Roles = Option<&'static [Role]>;

const SET_ROLES: &[Role] = &[
    Role::Article,
    Role::Comment,
    Role::ListItem,
    Role::MenuItem,
    Role::MenuItemCheckbox,
    Role::MenuItemRadio,
    Role::Option,
    Role::Radio,
    Role::Row,
    Role::Tab,
    Role::TreeItem,
];
const TABLE_ROLES: &[Role] = &[Role::Grid, Role::Table, Role::TreeGrid];
const CELL_ROLES: &[Role] = &[
    Role::Cell,
    Role::ColumnHeader,
    Role::GridCell,
    Role::RowHeader,
];
const CELL_OR_ROW_ROLES: &[Role] = &[
    Role::Cell,
    Role::ColumnHeader,
    Role::GridCell,
    Role::Row,
    Role::RowHeader,
];

/// The ARIA metadata the snapshot reports, in output order: (attribute, key, kind, roles).
const ARIA_PROPERTIES: &[(&str, &str, Kind, Roles)] = &[
    // ARIA 1.2 deprecates global use of aria-haspopup but pages put it on anything that opens a
    // popup, and "true" means "menu".
    (
        "aria-haspopup",
        "haspopup",
        Kind::Token(&[
            ("true", "menu"),
            ("menu", "menu"),
            ("listbox", "listbox"),
            ("tree", "tree"),
            ("grid", "grid"),
            ("dialog", "dialog"),
        ]),
        None,
    ),
    (
        "aria-autocomplete",
        "autocomplete",
        Kind::Token(&[("inline", "inline"), ("list", "list"), ("both", "both")]),
        Some(&[Role::Combobox, Role::SearchBox, Role::TextBox]),
    ),
    (
        "aria-multiselectable",
        "multiselectable",
        Kind::Bool,
        Some(&[
            Role::Grid,
            Role::ListBox,
            Role::TabList,
            Role::Tree,
            Role::TreeGrid,
        ]),
    ),
    (
        "aria-multiline",
        "multiline",
        Kind::Bool,
        Some(&[Role::TextBox, Role::SearchBox]),
    ),
    (
        "aria-orientation",
        "orientation",
        Kind::Token(&[("horizontal", "horizontal"), ("vertical", "vertical")]),
        Some(&[
            Role::ListBox,
            Role::Menu,
            Role::MenuBar,
            Role::RadioGroup,
            Role::ScrollBar,
            Role::Separator,
            Role::Slider,
            Role::TabList,
            Role::Toolbar,
            Role::Tree,
            Role::TreeGrid,
        ]),
    ),
    (
        "aria-sort",
        "sort",
        Kind::Token(&[
            ("ascending", "ascending"),
            ("descending", "descending"),
            ("other", "other"),
        ]),
        Some(&[Role::ColumnHeader, Role::RowHeader]),
    ),
    (
        "aria-modal",
        "modal",
        Kind::Bool,
        Some(&[Role::AlertDialog, Role::Dialog]),
    ),
    (
        "aria-current",
        "current",
        Kind::TokenOrTrue(&["page", "step", "location", "date", "time", "true"]),
        None,
    ),
    (
        "aria-invalid",
        "invalid",
        Kind::TokenOrTrue(&["grammar", "spelling", "true"]),
        None,
    ),
    ("aria-keyshortcuts", "keyshortcuts", Kind::Text, None),
    ("aria-roledescription", "roledescription", Kind::Text, None),
    (
        "aria-live",
        "live",
        Kind::Token(&[("polite", "polite"), ("assertive", "assertive")]),
        None,
    ),
    ("aria-atomic", "atomic", Kind::Bool, None),
    ("aria-relevant", "relevant", Kind::Text, None),
    ("aria-busy", "busy", Kind::Bool, None),
    ("aria-posinset", "posinset", Kind::Integer, Some(SET_ROLES)),
    ("aria-setsize", "setsize", Kind::Integer, Some(SET_ROLES)),
    (
        "aria-colcount",
        "colcount",
        Kind::Integer,
        Some(TABLE_ROLES),
    ),
    (
        "aria-rowcount",
        "rowcount",
        Kind::Integer,
        Some(TABLE_ROLES),
    ),
    (
        "aria-colindex",
        "colindex",
        Kind::Integer,
        Some(CELL_OR_ROW_ROLES),
    ),
    (
        "aria-rowindex",
        "rowindex",
        Kind::Integer,
        Some(CELL_OR_ROW_ROLES),
    ),
    ("aria-colspan", "colspan", Kind::Integer, Some(CELL_ROLES)),
    ("aria-rowspan", "rowspan", Kind::Integer, Some(CELL_ROLES)),
];

/// The element's properties, given its computed role.
// Not inlined, for the same reason as `compute_states`.
#[inline(never)]
pub fn compute_properties<D: Dom + ?Sized>(
    context: &Context<'_, D>,
    element: NodeId,
    role: Role,
) -> Properties {
    let dom = context.dom();
    let mut properties = Properties::default();
    if !context.is_element(element) {
        return properties;
    }
    let tag = html_tag(dom, element);
    properties.value = control_value(dom, element, role, tag);
    properties.placeholder = placeholder(dom, element, role, tag);
    if role == Role::Link {
        properties.url = link_url(dom, element);
    }
    // Most elements carry no aria-* attribute at all: one pass over the attributes spares them
    // forty lookups (which the wasm2js build of the core pays dearly for).
    let mut has_aria_attribute = false;
    dom.for_each_attribute(element, &mut |name, _| {
        has_aria_attribute |= name.starts_with("aria-");
    });
    let has_native_property = tag.is_some_and(|tag| matches!(tag, "select" | "input" | "textarea"));
    if !has_aria_attribute && !has_native_property {
        return properties;
    }
    for &(attribute, key, kind, roles) in ARIA_PROPERTIES {
        if roles.is_some_and(|roles| !roles.contains(&role)) {
            continue;
        }
        // aria-roledescription is prohibited on generic (WAI-ARIA 1.2 aria-roledescription).
        if key == "roledescription" && matches!(role, Role::Generic | Role::None) {
            continue;
        }
        let value = match dom.attribute(element, attribute) {
            Some(raw) => read_property(raw, kind),
            None => native_property(dom, element, key, role, tag),
        };
        if let Some(value) = value {
            properties.aria.push((key, value));
        }
    }
    properties
}

fn read_property(raw: &str, kind: Kind) -> Option<PropertyValue> {
    let trimmed = raw.trim();
    let lower = trimmed.to_ascii_lowercase();
    match kind {
        Kind::Token(tokens) => tokens
            .iter()
            .find(|(token, _)| *token == lower)
            .map(|(_, value)| PropertyValue::Text((*value).to_string())),
        Kind::TokenOrTrue(tokens) => {
            if lower.is_empty() || lower == "false" {
                None
            } else if tokens.contains(&lower.as_str()) {
                Some(PropertyValue::Text(lower))
            } else {
                Some(PropertyValue::Text("true".to_string()))
            }
        }
        Kind::Bool => aria_bool(Some(trimmed)).map(PropertyValue::Bool),
        Kind::Integer => trimmed.parse::<i64>().ok().map(PropertyValue::Integer),
        Kind::Text => (!trimmed.is_empty()).then(|| PropertyValue::Text(trimmed.to_string())),
    }
}

/// Properties that HTML elements carry natively (HTML-AAM attribute mappings).
fn native_property<D: Dom + ?Sized>(
    dom: &D,
    element: NodeId,
    key: &str,
    role: Role,
    tag: Option<&str>,
) -> Option<PropertyValue> {
    match key {
        // HTML-AAM select[multiple]: aria-multiselectable=true.
        "multiselectable"
            if tag == Some("select") && dom.attribute(element, "multiple").is_some() =>
        {
            Some(PropertyValue::Bool(true))
        }
        // A text field with a datalist offers a list of suggestions.
        "autocomplete" if tag == Some("input") && role == Role::Combobox => {
            Some(PropertyValue::Text("list".to_string()))
        }
        // textarea is multi-line (HTML-AAM el-textarea: aria-multiline=true).
        "multiline" if tag == Some("textarea") => Some(PropertyValue::Bool(true)),
        // A modal dialog opened with showModal() has no attribute to read; dialog[open] alone is
        // not modal. Nothing to report natively.
        _ => None,
    }
}

/// The control's value: text fields, textarea, the selected option of a select combobox, range
/// and number inputs, contenteditable text boxes, and aria-valuetext/valuenow of custom ranges
/// are left to the states. Password and file inputs never report a value.
fn control_value<D: Dom + ?Sized>(
    dom: &D,
    element: NodeId,
    role: Role,
    tag: Option<&str>,
) -> Option<String> {
    match tag {
        Some("input") => match InputType::of(dom, element) {
            // Never: password and file values are secret or meaningless (spec).
            InputType::Password | InputType::File | InputType::Hidden => None,
            // The value of a button is its name; a checkbox's value is not what it shows.
            InputType::Button
            | InputType::Submit
            | InputType::Reset
            | InputType::Image
            | InputType::Checkbox
            | InputType::Radio => None,
            _ => dom.value(element).map(str::to_string),
        },
        Some("textarea") => dom.value(element).map(str::to_string),
        // HTML-AAM el-select-combobox: the value is the selected option's label.
        Some("select") if role == Role::Combobox => selected_options(dom, element)
            .first()
            .map(|&option| option_label(dom, option)),
        _ => {
            let editable = dom
                .attribute(element, "contenteditable")
                .is_some_and(|value| !value.trim().eq_ignore_ascii_case("false"));
            if editable && matches!(role, Role::TextBox | Role::SearchBox | Role::Combobox) {
                Some(collapse_ascii_whitespace(&text_content(dom, element)))
            } else {
                None
            }
        }
    }
}

fn placeholder<D: Dom + ?Sized>(
    dom: &D,
    element: NodeId,
    role: Role,
    tag: Option<&str>,
) -> Option<String> {
    let non_empty = |name: &str| {
        dom.attribute(element, name)
            .filter(|value| !value.trim().is_empty())
            .map(str::to_string)
    };
    match tag {
        Some("input" | "textarea") => non_empty("placeholder").or_else(|| {
            matches!(role, Role::TextBox | Role::SearchBox | Role::Combobox)
                .then(|| non_empty("aria-placeholder"))
                .flatten()
        }),
        _ if matches!(role, Role::TextBox | Role::SearchBox | Role::Combobox) => {
            non_empty("aria-placeholder")
        }
        _ => None,
    }
}

/// A link's href as written: HTML a/area, or SVG a with href or xlink:href.
fn link_url<D: Dom + ?Sized>(dom: &D, element: NodeId) -> Option<String> {
    match dom.namespace(element) {
        Namespace::Html if matches!(dom.local_name(element), "a" | "area") => {
            dom.attribute(element, "href").map(str::to_string)
        }
        Namespace::Svg if dom.local_name(element) == "a" => dom
            .attribute(element, "href")
            .or_else(|| dom.attribute(element, "xlink:href"))
            .map(str::to_string),
        _ => None,
    }
}

/// HTML "option label": the label attribute when non-empty, else the stripped and collapsed text.
fn option_label<D: Dom + ?Sized>(dom: &D, option: NodeId) -> String {
    if let Some(label) = dom
        .attribute(option, "label")
        .filter(|label| !label.is_empty())
    {
        return label.to_string();
    }
    collapse_ascii_whitespace(&text_content(dom, option))
}

// ---------------------------------------------------------------------------------------------
// Helpers.

fn heading_level(tag: &str) -> Option<u32> {
    match tag {
        "h1" => Some(1),
        "h2" => Some(2),
        "h3" => Some(3),
        "h4" => Some(4),
        "h5" => Some(5),
        "h6" => Some(6),
        _ => None,
    }
}

/// The details element whose summary this is, when it is the first summary child.
fn summary_details<D: Dom + ?Sized>(dom: &D, element: NodeId) -> Option<NodeId> {
    if !is_html(dom, element, "summary") {
        return None;
    }
    let details = dom
        .parent(element)
        .filter(|&parent| is_html(dom, parent, "details"))?;
    let first = dom
        .children(details)
        .iter()
        .copied()
        .find(|&child| is_html(dom, child, "summary"))?;
    (first == element).then_some(details)
}

/// An ARIA true/false value; anything else (including "undefined") is undefined.
fn aria_bool(value: Option<&str>) -> Option<bool> {
    let value = value?.trim();
    if value.eq_ignore_ascii_case("true") {
        Some(true)
    } else if value.eq_ignore_ascii_case("false") {
        Some(false)
    } else {
        None
    }
}

/// An ARIA tristate value (true, false, mixed).
fn aria_tristate(value: Option<&str>) -> Option<Checked> {
    let value = value?.trim();
    if value.eq_ignore_ascii_case("mixed") {
        Some(Checked::Mixed)
    } else {
        aria_bool(Some(value)).map(Checked::from_bool)
    }
}

/// A finite floating-point number (HTML "rules for parsing floating-point number values",
/// leniently: surrounding whitespace is ignored, infinities and NaN are rejected).
fn parse_number(value: &str) -> Option<f64> {
    value
        .trim()
        .parse::<f64>()
        .ok()
        .filter(|number| number.is_finite())
}
