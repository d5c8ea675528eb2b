//! Table-style cases for states and properties (`state::compute_states`,
//! `state::compute_properties`) and for `:disabled` derived from attributes. The element under
//! test has `id="target"`; its role is the computed role unless a case says otherwise.

use allwright_ax::html::disabled_from_attributes;
use allwright_ax::memdom::MemDom;
use allwright_ax::state::{
    compute_properties, compute_states, Checked, Properties, PropertyValue, States,
};
use allwright_ax::{Context, Dom, Role};

fn target(dom: &MemDom) -> allwright_ax::NodeId {
    dom.element_by_id_attribute("target")
        .unwrap_or_else(|| panic!("no #target"))
}

fn states_of(html: &str) -> States {
    let dom = MemDom::parse(html);
    let element = target(&dom);
    let context = Context::new(&dom);
    let role = context.role(element);
    compute_states(&context, element, role)
}

fn properties_of(html: &str) -> Properties {
    let dom = MemDom::parse(html);
    let element = target(&dom);
    let context = Context::new(&dom);
    let role = context.role(element);
    compute_properties(&context, element, role)
}

/// Runs `read` on each case and compares with the expectation, reporting all failures at once.
#[track_caller]
fn check_all<T: PartialEq + std::fmt::Debug>(read: impl Fn(&States) -> T, cases: &[(&str, T)]) {
    let failures: Vec<String> = cases
        .iter()
        .filter_map(|(html, expected)| {
            let actual = read(&states_of(html));
            (actual != *expected)
                .then(|| format!("{html}\n    expected {expected:?}, got {actual:?}"))
        })
        .collect();
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

// HTML-AAM input checkbox/radio "checked"; indeterminate is mixed; WAI-ARIA aria-checked on the
// roles that support it.
#[test]
fn checked() {
    check_all(
        |states| states.checked,
        &[
            (r#"<input id=target type=checkbox>"#, Some(Checked::False)),
            (
                r#"<input id=target type=checkbox checked>"#,
                Some(Checked::True),
            ),
            (
                r#"<input id=target type=radio checked>"#,
                Some(Checked::True),
            ),
            (r#"<input id=target type=radio>"#, Some(Checked::False)),
            (
                r#"<input id=target type=checkbox switch checked>"#,
                Some(Checked::True),
            ),
            // Native state wins over a contradicting aria-checked.
            (
                r#"<input id=target type=checkbox aria-checked=true>"#,
                Some(Checked::False),
            ),
            (
                r#"<div id=target role=checkbox aria-checked=true>x</div>"#,
                Some(Checked::True),
            ),
            (
                r#"<div id=target role=checkbox aria-checked=false>x</div>"#,
                Some(Checked::False),
            ),
            (
                r#"<div id=target role=checkbox aria-checked=mixed>x</div>"#,
                Some(Checked::Mixed),
            ),
            (
                r#"<div id=target role=checkbox>x</div>"#,
                Some(Checked::False),
            ),
            (
                r#"<div id=target role=switch aria-checked=TRUE>x</div>"#,
                Some(Checked::True),
            ),
            // Only checkbox and menuitemcheckbox are tri-state.
            (
                r#"<div id=target role=switch aria-checked=mixed>x</div>"#,
                Some(Checked::False),
            ),
            (
                r#"<div role=menu><div id=target role=menuitemcheckbox aria-checked=mixed>x</div></div>"#,
                Some(Checked::Mixed),
            ),
            (
                r#"<div role=listbox><div id=target role=option aria-checked=true>x</div></div>"#,
                Some(Checked::True),
            ),
            (
                r#"<div role=listbox><div id=target role=option>x</div></div>"#,
                None,
            ),
            // Roles without the state ignore the attribute.
            (
                r#"<div id=target role=button aria-checked=true>x</div>"#,
                None,
            ),
            (r#"<div id=target aria-checked=true>x</div>"#, None),
        ],
    );
}

#[test]
fn indeterminate_checkbox_is_mixed() {
    let mut dom = MemDom::parse(r#"<input id=target type=checkbox checked>"#);
    let element = target(&dom);
    dom.set_indeterminate(element, true);
    let context = Context::new(&dom);
    let states = compute_states(&context, element, context.role(element));
    assert_eq!(states.checked, Some(Checked::Mixed));
}

// HTML-AAM option "selected"; aria-selected on gridcell/option/row/tab/treeitem.
#[test]
fn selected() {
    check_all(
        |states| states.selected,
        &[
            (
                r#"<select><option>a</option><option id=target selected>b</option></select>"#,
                Some(true),
            ),
            (
                r#"<select><option>a</option><option id=target>b</option></select>"#,
                Some(false),
            ),
            (
                r#"<select><option id=target>a</option><option>b</option></select>"#,
                Some(true),
            ),
            (
                r#"<div role=tablist><div id=target role=tab aria-selected=true>x</div></div>"#,
                Some(true),
            ),
            (
                r#"<div role=tablist><div id=target role=tab aria-selected=false>x</div></div>"#,
                Some(false),
            ),
            (
                r#"<div role=tablist><div id=target role=tab>x</div></div>"#,
                None,
            ),
            (
                r#"<div id=target role=button aria-selected=true>x</div>"#,
                None,
            ),
        ],
    );
}

// aria-expanded on the roles that support it; a details summary reflects `open`.
#[test]
fn expanded() {
    check_all(
        |states| states.expanded,
        &[
            (
                r#"<button id=target aria-expanded=true>x</button>"#,
                Some(true),
            ),
            (
                r#"<button id=target aria-expanded=false>x</button>"#,
                Some(false),
            ),
            (
                r#"<button id=target aria-expanded=undefined>x</button>"#,
                None,
            ),
            (r#"<button id=target>x</button>"#, None),
            (
                r#"<a id=target href=x aria-expanded=true>x</a>"#,
                Some(true),
            ),
            (
                r#"<div id=target role=combobox aria-expanded=false>x</div>"#,
                Some(false),
            ),
            (
                r#"<details open><summary id=target>s</summary>x</details>"#,
                Some(true),
            ),
            (
                r#"<details><summary id=target>s</summary>x</details>"#,
                Some(false),
            ),
            (r#"<div id=target aria-expanded=true>x</div>"#, None),
            (r#"<h2 id=target aria-expanded=true>x</h2>"#, None),
        ],
    );
}

// aria-pressed on buttons: a toggle button.
#[test]
fn pressed() {
    check_all(
        |states| states.pressed,
        &[
            (
                r#"<button id=target aria-pressed=true>x</button>"#,
                Some(Checked::True),
            ),
            (
                r#"<button id=target aria-pressed=false>x</button>"#,
                Some(Checked::False),
            ),
            (
                r#"<button id=target aria-pressed=mixed>x</button>"#,
                Some(Checked::Mixed),
            ),
            (r#"<button id=target>x</button>"#, None),
            (
                r#"<div id=target role=button aria-pressed=true>x</div>"#,
                Some(Checked::True),
            ),
            (r#"<a id=target href=x aria-pressed=true>x</a>"#, None),
        ],
    );
}

// disabled: native (with fieldset/optgroup inheritance) and aria-disabled (inherited).
#[test]
fn disabled() {
    check_all(
        |states| states.disabled,
        &[
            (r#"<button id=target disabled>x</button>"#, Some(true)),
            (r#"<button id=target>x</button>"#, None),
            (r#"<input id=target disabled>"#, Some(true)),
            (
                r#"<fieldset disabled><input id=target></fieldset>"#,
                Some(true),
            ),
            (
                r#"<fieldset disabled><legend><input id=target></legend></fieldset>"#,
                None,
            ),
            (
                r#"<fieldset disabled><legend>a</legend><legend><input id=target></legend></fieldset>"#,
                Some(true),
            ),
            (
                r#"<fieldset disabled><fieldset><legend><input id=target></legend></fieldset></fieldset>"#,
                Some(true),
            ),
            (
                r#"<select><optgroup disabled><option id=target>a</option></optgroup></select>"#,
                Some(true),
            ),
            (
                r#"<select><option id=target disabled>a</option></select>"#,
                Some(true),
            ),
            (
                r#"<div id=target role=button aria-disabled=true>x</div>"#,
                Some(true),
            ),
            (
                r#"<div id=target role=button aria-disabled=false>x</div>"#,
                Some(false),
            ),
            (
                r#"<div aria-disabled=true><div id=target role=button>x</div></div>"#,
                Some(true),
            ),
            (
                r#"<div aria-disabled=true><div aria-disabled=false><div id=target role=button>x</div></div></div>"#,
                None,
            ),
            (
                r#"<div aria-disabled=true><button id=target>x</button></div>"#,
                Some(true),
            ),
            // Roles that do not support aria-disabled ignore it.
            (
                r#"<div id=target role=heading aria-disabled=true>x</div>"#,
                None,
            ),
            (r#"<a id=target aria-disabled=true>x</a>"#, None),
        ],
    );
}

#[test]
fn disabled_from_attributes_follows_html() {
    let cases = [
        (r#"<button id=target disabled>x</button>"#, true),
        (r#"<div id=target disabled>x</div>"#, false),
        (
            r#"<fieldset disabled><div><textarea id=target></textarea></div></fieldset>"#,
            true,
        ),
        (
            r#"<fieldset disabled><legend><span><select id=target></select></span></legend></fieldset>"#,
            false,
        ),
        (
            r#"<fieldset disabled><fieldset id=target></fieldset></fieldset>"#,
            true,
        ),
        (r#"<fieldset id=target disabled></fieldset>"#, true),
        (
            r#"<select><optgroup id=target disabled></optgroup></select>"#,
            true,
        ),
        (
            r#"<select disabled><option id=target>a</option></select>"#,
            false,
        ),
        (
            r#"<fieldset disabled><a id=target href=x>x</a></fieldset>"#,
            false,
        ),
    ];
    for (html, expected) in cases {
        let dom = MemDom::parse(html);
        assert_eq!(
            disabled_from_attributes(&dom, target(&dom)),
            expected,
            "{html}"
        );
    }
}

// required and readonly: native attributes on the controls they apply to, then aria-*.
#[test]
fn required_and_readonly() {
    check_all(
        |states| (states.required, states.readonly),
        &[
            (r#"<input id=target required>"#, (Some(true), None)),
            (r#"<input id=target readonly>"#, (None, Some(true))),
            (
                r#"<textarea id=target required readonly></textarea>"#,
                (Some(true), Some(true)),
            ),
            (
                r#"<select id=target required><option>a</option></select>"#,
                (Some(true), None),
            ),
            (r#"<input id=target type=checkbox readonly>"#, (None, None)),
            (r#"<input id=target>"#, (None, None)),
            (
                r#"<div id=target role=textbox aria-required=true aria-readonly=false>x</div>"#,
                (Some(true), Some(false)),
            ),
            (
                r#"<input id=target aria-required=false>"#,
                (Some(false), None),
            ),
            (
                r#"<div id=target role=button aria-required=true aria-readonly=true>x</div>"#,
                (None, None),
            ),
        ],
    );
}

// Heading level: h1-h6, aria-level (valid integers >= 1) on roles that support it.
#[test]
fn level() {
    check_all(
        |states| states.level,
        &[
            (r#"<h1 id=target>x</h1>"#, Some(1)),
            (r#"<h4 id=target>x</h4>"#, Some(4)),
            (r#"<h1 id=target aria-level=3>x</h1>"#, Some(3)),
            (r#"<h1 id=target aria-level=0>x</h1>"#, Some(1)),
            (r#"<h1 id=target aria-level=abc>x</h1>"#, Some(1)),
            (
                r#"<div id=target role=heading aria-level=5>x</div>"#,
                Some(5),
            ),
            (r#"<div id=target role=heading>x</div>"#, Some(2)),
            (r#"<ul><li id=target aria-level=2>x</li></ul>"#, Some(2)),
            (r#"<div id=target aria-level=2>x</div>"#, None),
            (r#"<h1 id=target role=button>x</h1>"#, None),
        ],
    );
}

// Range values: native range/number/progress/meter, then aria-value* on range roles.
#[test]
fn range_values() {
    check_all(
        |states| (states.value_now, states.value_min, states.value_max),
        &[
            (
                r#"<input id=target type=range>"#,
                (Some(50.0), Some(0.0), Some(100.0)),
            ),
            (
                r#"<input id=target type=range value=20 min=10 max=30>"#,
                (Some(20.0), Some(10.0), Some(30.0)),
            ),
            (
                r#"<input id=target type=range value=500>"#,
                (Some(100.0), Some(0.0), Some(100.0)),
            ),
            (
                r#"<input id=target type=number value=7 min=1>"#,
                (Some(7.0), Some(1.0), None),
            ),
            (
                r#"<input id=target type=number value=x>"#,
                (None, None, None),
            ),
            (
                r#"<progress id=target value=0.3></progress>"#,
                (Some(0.3), Some(0.0), Some(1.0)),
            ),
            (
                r#"<progress id=target max=10 value=4></progress>"#,
                (Some(4.0), Some(0.0), Some(10.0)),
            ),
            (
                r#"<progress id=target></progress>"#,
                (None, Some(0.0), Some(1.0)),
            ),
            (
                r#"<meter id=target value=5 min=0 max=10></meter>"#,
                (Some(5.0), Some(0.0), Some(10.0)),
            ),
            (
                r#"<div id=target role=slider aria-valuenow=3 aria-valuemin=1 aria-valuemax=9>x</div>"#,
                (Some(3.0), Some(1.0), Some(9.0)),
            ),
            (
                r#"<div id=target role=progressbar aria-valuenow=NaN>x</div>"#,
                (None, None, None),
            ),
            (
                r#"<div id=target aria-valuenow=3>x</div>"#,
                (None, None, None),
            ),
        ],
    );
    check_all(
        |states| states.value_text.clone(),
        &[
            (
                r#"<div id=target role=slider aria-valuenow=3 aria-valuetext="three stars">x</div>"#,
                Some("three stars".to_string()),
            ),
            (
                r#"<div id=target role=slider aria-valuetext="  ">x</div>"#,
                None,
            ),
            (r#"<div id=target aria-valuetext="x">x</div>"#, None),
        ],
    );
}

/// A page and the value, placeholder and URL expected of its `#target`.
type ValueCase<'a> = (&'a str, Option<&'a str>, Option<&'a str>, Option<&'a str>);

// Properties: values (never for password or file), placeholders, URLs.
#[test]
fn values_placeholders_and_urls() {
    // (page, value, placeholder, url)
    let cases: &[ValueCase] = &[
        (
            r#"<input id=target value=hello placeholder=Name>"#,
            Some("hello"),
            Some("Name"),
            None,
        ),
        (
            r#"<input id=target type=password value=secret placeholder=Password>"#,
            None,
            Some("Password"),
            None,
        ),
        (
            r#"<input id=target type=file value=C:\fakepath\a.txt>"#,
            None,
            None,
            None,
        ),
        (
            r#"<input id=target type=hidden value=token>"#,
            None,
            None,
            None,
        ),
        (
            r#"<input id=target type=submit value=Send>"#,
            None,
            None,
            None,
        ),
        (
            r#"<input id=target type=checkbox value=on>"#,
            None,
            None,
            None,
        ),
        (
            r#"<input id=target type=range value=30>"#,
            Some("30"),
            None,
            None,
        ),
        (
            r#"<textarea id=target placeholder=Comment>Some text</textarea>"#,
            Some("Some text"),
            Some("Comment"),
            None,
        ),
        (
            r#"<select id=target><option>a</option><option selected> Second
              choice </option></select>"#,
            Some("Second choice"),
            None,
            None,
        ),
        (
            r#"<select id=target><option label=Short selected>Long text</option></select>"#,
            Some("Short"),
            None,
            None,
        ),
        (
            r#"<select id=target multiple><option selected>a</option></select>"#,
            None,
            None,
            None,
        ),
        (
            r#"<div id=target role=textbox contenteditable>  typed   text </div>"#,
            Some("typed text"),
            None,
            None,
        ),
        (
            r#"<div id=target role=textbox aria-placeholder="Search…">x</div>"#,
            None,
            Some("Search…"),
            None,
        ),
        (
            r#"<a id=target href="/docs?q=1">docs</a>"#,
            None,
            None,
            Some("/docs?q=1"),
        ),
        (r#"<a id=target>no link</a>"#, None, None, None),
        (r#"<div id=target role=link>fake</div>"#, None, None, None),
        (
            r#"<svg><a id=target href="/svg-link"><text>x</text></a></svg>"#,
            None,
            None,
            Some("/svg-link"),
        ),
    ];
    let mut failures = Vec::new();
    for (html, value, placeholder, url) in cases {
        let properties = properties_of(html);
        let actual = (
            properties.value.as_deref(),
            properties.placeholder.as_deref(),
            properties.url.as_deref(),
        );
        if actual != (*value, *placeholder, *url) {
            failures.push(format!(
                "{html}\n    expected {:?}, got {actual:?}",
                (value, placeholder, url)
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn password_value_never_appears_even_when_set() {
    let mut dom = MemDom::parse(r#"<input id=target type=password>"#);
    let element = target(&dom);
    dom.set_value(element, "hunter2");
    let context = Context::new(&dom);
    let properties = compute_properties(&context, element, context.role(element));
    assert_eq!(properties.value, None);
    let states = compute_states(&context, element, Role::TextBox);
    assert!(!format!("{states:?}{properties:?}").contains("hunter2"));
}

// ARIA metadata: supported roles only, typed values, fixed order.
#[test]
fn aria_metadata() {
    let text = |value: &str| PropertyValue::Text(value.to_string());
    let cases: Vec<(&str, Vec<(&str, PropertyValue)>)> = vec![
        (
            r#"<button id=target aria-haspopup=true>x</button>"#,
            vec![("haspopup", text("menu"))],
        ),
        (
            r#"<button id=target aria-haspopup=listbox>x</button>"#,
            vec![("haspopup", text("listbox"))],
        ),
        (
            r#"<button id=target aria-haspopup=false>x</button>"#,
            vec![],
        ),
        (
            r#"<a id=target href=x aria-current=page>x</a>"#,
            vec![("current", text("page"))],
        ),
        (
            r#"<a id=target href=x aria-current=yes>x</a>"#,
            vec![("current", text("true"))],
        ),
        (r#"<a id=target href=x aria-current=false>x</a>"#, vec![]),
        (
            r#"<input id=target aria-invalid=spelling>"#,
            vec![("invalid", text("spelling"))],
        ),
        (r#"<input id=target aria-invalid=false>"#, vec![]),
        (
            r#"<div id=target role=combobox aria-autocomplete=list aria-expanded=false>x</div>"#,
            vec![("autocomplete", text("list"))],
        ),
        (
            r#"<div id=target role=button aria-autocomplete=list>x</div>"#,
            vec![],
        ),
        (
            r#"<div id=target role=listbox aria-multiselectable=true aria-orientation=horizontal>x</div>"#,
            vec![
                ("multiselectable", PropertyValue::Bool(true)),
                ("orientation", text("horizontal")),
            ],
        ),
        (
            r#"<select id=target multiple><option>a</option></select>"#,
            vec![("multiselectable", PropertyValue::Bool(true))],
        ),
        (
            r#"<textarea id=target></textarea>"#,
            vec![("multiline", PropertyValue::Bool(true))],
        ),
        (
            r#"<div id=target role=dialog aria-modal=true>x</div>"#,
            vec![("modal", PropertyValue::Bool(true))],
        ),
        (
            r#"<button id=target aria-keyshortcuts="Control+S">x</button>"#,
            vec![("keyshortcuts", text("Control+S"))],
        ),
        (
            r#"<button id=target aria-roledescription=toggle>x</button>"#,
            vec![("roledescription", text("toggle"))],
        ),
        (
            r#"<div id=target aria-roledescription=toggle>x</div>"#,
            vec![],
        ),
        (
            r#"<div id=target aria-live=polite aria-atomic=true aria-busy=false>x</div>"#,
            vec![
                ("live", text("polite")),
                ("atomic", PropertyValue::Bool(true)),
                ("busy", PropertyValue::Bool(false)),
            ],
        ),
        (
            r#"<ul><li id=target aria-posinset=2 aria-setsize=-1>x</li></ul>"#,
            vec![
                ("posinset", PropertyValue::Integer(2)),
                ("setsize", PropertyValue::Integer(-1)),
            ],
        ),
        (r#"<div id=target aria-posinset=2>x</div>"#, vec![]),
        (
            r#"<table id=target aria-rowcount=100><tr><td>x</td></tr></table>"#,
            vec![("rowcount", PropertyValue::Integer(100))],
        ),
        (
            r#"<table><tr><th id=target aria-sort=ascending aria-colindex=3>x</th><th>y</th></tr><tr><td>1</td><td>2</td></tr></table>"#,
            vec![
                ("sort", text("ascending")),
                ("colindex", PropertyValue::Integer(3)),
            ],
        ),
        (
            r#"<table><tr><th id=target aria-sort=none>x</th><th>y</th></tr></table>"#,
            vec![],
        ),
        (
            r#"<datalist id=d></datalist><input id=target list=d>"#,
            vec![("autocomplete", text("list"))],
        ),
    ];
    let mut failures = Vec::new();
    for (html, expected) in &cases {
        let actual = properties_of(html).aria;
        if actual != *expected {
            failures.push(format!("{html}\n    expected {expected:?}, got {actual:?}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// States and properties of every element of a messy page, without a panic.
#[test]
fn odd_input_never_panics() {
    let html = r#"<input type=range min=1e400 max=-1e400 value=NaN>
        <input type=number value="   ">
        <progress max=-5 value=inf></progress><meter min=10 max=1 value=5></meter>
        <div role=slider aria-valuenow="1e309" aria-level="99999999999"></div>
        <h1 aria-level="-3">x</h1><select><option selected></option></select>
        <fieldset disabled><legend></legend></fieldset><option></option><optgroup></optgroup>"#;
    let dom = MemDom::parse(html);
    let context = Context::new(&dom);
    for element in dom.all_elements() {
        let role = context.role(element);
        let _ = compute_states(&context, element, role);
        let _ = compute_properties(&context, element, role);
        let _ = dom.disabled(element);
    }
    let outside = allwright_ax::NodeId(u32::MAX);
    assert_eq!(
        compute_states(&context, outside, Role::Slider),
        States::default()
    );
    assert_eq!(
        compute_properties(&context, outside, Role::Link),
        Properties::default()
    );
}
