//! A copy of the web-platform-tests (accname, html-aam, wai-aria/role), run natively: each page is parsed with the in-memory DOM, its expectations are read from the markup
//! the way `wai-aria/scripts/aria-utils.js` reads them, and the computed names and roles are
//! compared. Scripts do not run, so a few simple script patterns are emulated (documented at
//! `read_script`); pages that build their elements in ways we do not emulate are reported as "not
//! runnable natively", with the reason.
//!
//! A failing case must be listed in `tests/wpt-known-failures.txt` with a reason, and a listed case
//! that passes fails the test too, so the list always says exactly what does not work.
//!
//! - `cargo test -p allwright-ax --test wpt -- --nocapture` prints the per-folder table;
//! - `ALLWRIGHT_WPT_UPDATE=1` rewrites the list from the current results, keeping the reasons of
//!   entries that still fail and writing `TODO: triage` for new ones (which then fail the test
//!   until someone writes the reason);
//! - `ALLWRIGHT_WPT_VERBOSE=1` prints every failing case with its markup, expected and computed;
//! - `ALLWRIGHT_WPT_FILTER=text` runs only the files whose path contains `text`;
//! - `ALLWRIGHT_WPT_DIR=/path/to/wpt` says where the copy is (default: the repository's
//!   `third_party/wpt`). A missing folder fails the test: the copy is part of the repository.
//!
//! The full report (table and every failing case) is also written to
//! `target/tmp/wpt-report.txt`.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::fmt::Write as _;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

use allwright_ax::html::collapse_ascii_whitespace;
use allwright_ax::memdom::MemDom;
use allwright_ax::{Context, Dom, NodeId, NodeKind};

/// The known-failures list, relative to this crate's manifest.
const KNOWN_FAILURES_FILE: &str = "tests/wpt-known-failures.txt";

/// The placeholder reason written by update mode for a new entry.
const TODO_REASON: &str = "TODO: triage";

/// What `verifyGenericRolesBySelector` accepts: ARIA WG decided that Chromium's `none` and
/// WebKit's empty string are acceptable variants of `generic` for these tests.
const GENERIC_VARIANTS: [&str; 3] = ["generic", "", "none"];

/// What `html-aam/table/tentative/resources/table-computed-role.js` accepts as the role of a
/// layout table (Firefox, Chromium, WebKit and the proposed token).
const LAYOUT_TABLE_VARIANTS: [&str; 4] = ["table", "LayoutTable", "", "html-layout-table"];

#[test]
fn web_platform_tests() {
    let root = wpt_root();
    assert!(
        root.is_dir(),
        "no web-platform-tests folder at {} (the repository keeps one in third_party/wpt; \
         ALLWRIGHT_WPT_DIR names another)",
        root.display()
    );
    let filter = std::env::var("ALLWRIGHT_WPT_FILTER").ok();
    let update = std::env::var_os("ALLWRIGHT_WPT_UPDATE").is_some_and(|value| value != "0");
    let verbose = std::env::var_os("ALLWRIGHT_WPT_VERBOSE").is_some_and(|value| value != "0");

    let files = html_files(&root);
    assert!(
        !files.is_empty(),
        "WPT: {} has no .html files; is ALLWRIGHT_WPT_DIR right?",
        root.display()
    );
    let mut reports = Vec::new();
    for relative in &files {
        if filter
            .as_deref()
            .is_some_and(|filter| !relative.contains(filter))
        {
            continue;
        }
        let source = std::fs::read_to_string(root.join(relative))
            .unwrap_or_else(|error| panic!("WPT: cannot read {relative}: {error}"));
        reports.push(run_file(relative, &source));
    }
    let skipped_other = other_files(&root);

    let known_path = Path::new(env!("CARGO_MANIFEST_DIR")).join(KNOWN_FAILURES_FILE);
    let known_text = std::fs::read_to_string(&known_path).unwrap_or_default();
    let known = KnownFailures::parse(&known_text);

    let mut report = String::new();
    write_table(&mut report, &reports, &known);
    write_not_runnable(&mut report, &reports, &skipped_other);
    let mut details = String::new();
    write_failure_details(&mut details, &reports, &known);
    print!("{report}");
    if verbose {
        print!("{details}");
    }
    let report_path = Path::new(env!("CARGO_TARGET_TMPDIR")).join("wpt-report.txt");
    if std::fs::write(&report_path, format!("{report}{details}")).is_ok() {
        println!("WPT: full report in {}", report_path.display());
    }

    if update {
        let considered: HashSet<&str> = reports.iter().map(|file| file.path.as_str()).collect();
        let text = known.rewrite(&reports, &considered);
        std::fs::write(&known_path, text)
            .unwrap_or_else(|error| panic!("WPT: cannot write {}: {error}", known_path.display()));
        println!("WPT: rewrote {}", known_path.display());
        return;
    }

    let problems = check_against_known(&reports, &known);
    assert!(
        problems.is_empty(),
        "WPT: {} problem(s) with {KNOWN_FAILURES_FILE}:\n{}\n\nIf the changes are intended, run \
         `ALLWRIGHT_WPT_UPDATE=1 cargo test -p allwright-ax --test wpt` and give every new entry \
         a one-line reason.",
        problems.len(),
        problems.join("\n")
    );
}

// ------------------------------------------------------------------------------------------
// Finding the files.

/// `ALLWRIGHT_WPT_DIR`, or by default the repository's `third_party/wpt` (its README says which
/// upstream files and commits it holds).
fn wpt_root() -> PathBuf {
    match std::env::var_os("ALLWRIGHT_WPT_DIR") {
        Some(dir) => PathBuf::from(dir),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../third_party/wpt"),
    }
}

/// Every `.html` file under `root`, as sorted `/`-separated relative paths.
fn html_files(root: &Path) -> Vec<String> {
    let mut out: Vec<String> = walk(root)
        .into_iter()
        .filter(|path| path.ends_with(".html"))
        .collect();
    out.sort();
    out
}

/// Test files that are not HTML pages (e.g. `html-aam/aamtests/element/abbr.py`, an AT-SPI test).
fn other_files(root: &Path) -> Vec<String> {
    let mut out: Vec<String> = walk(root)
        .into_iter()
        .filter(|path| path.ends_with(".py"))
        .collect();
    out.sort();
    out
}

fn walk(root: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if let Ok(relative) = path.strip_prefix(root) {
                let parts: Vec<String> = relative
                    .components()
                    .map(|part| part.as_os_str().to_string_lossy().into_owned())
                    .collect();
                out.push(parts.join("/"));
            }
        }
    }
    out
}

/// The folder a file is counted under: its directory, with the numbered
/// `accname-computation-by-element/4.1.N` sub-folders (the static copies) counted together.
fn folder_of(path: &str) -> String {
    let mut parts: Vec<&str> = path.split('/').collect();
    parts.pop();
    let parts: Vec<&str> = parts
        .into_iter()
        .map(|part| {
            if part.starts_with("4.1.") {
                "4.1.x"
            } else {
                part
            }
        })
        .collect();
    if parts.is_empty() {
        ".".to_string()
    } else {
        parts.join("/")
    }
}

// ------------------------------------------------------------------------------------------
// Cases and results.

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Kind {
    Name,
    Role,
}

impl Kind {
    fn as_str(self) -> &'static str {
        match self {
            Kind::Name => "name",
            Kind::Role => "role",
        }
    }
}

/// What a subtest asserts about one element.
#[derive(Clone, Debug)]
enum Expectation {
    /// `verifyLabelsBySelector`: the normalised computed name equals this. `None` when the page
    /// gives no expected label (the browser then compares with `null`, which always fails).
    Label(Option<String>),
    /// `verifyRolesBySelector` and direct `assert_equals` on the computed role.
    Role(Option<String>),
    /// `verifyGenericRolesBySelector` and similar: any of these roles.
    OneOfRoles(Vec<String>),
    /// The page's own `verifyNoForbiddenAncestorRole`: no ancestor (below the root element)
    /// computes to this role.
    NoAncestorWithRole(String),
}

impl Expectation {
    fn kind(&self) -> Kind {
        match self {
            Expectation::Label(_) => Kind::Name,
            _ => Kind::Role,
        }
    }

    fn describe(&self) -> String {
        match self {
            Expectation::Label(Some(label)) | Expectation::Role(Some(label)) => {
                format!("{label:?}")
            }
            Expectation::Label(None) | Expectation::Role(None) => "null".to_string(),
            Expectation::OneOfRoles(roles) => format!("one of {roles:?}"),
            Expectation::NoAncestorWithRole(role) => format!("no ancestor with role {role:?}"),
        }
    }
}

/// One subtest, before it runs.
struct PlannedCase {
    test_name: String,
    element: NodeId,
    expectation: Expectation,
}

/// One subtest's result.
struct Outcome {
    /// `path#kind: test name`, unique within the run (duplicates get ` (2)`, ` (3)`, ...).
    id: String,
    kind: Kind,
    passed: bool,
    expected: String,
    computed: String,
    markup: String,
}

/// What happened to one file.
struct FileReport {
    path: String,
    folder: String,
    outcomes: Vec<Outcome>,
    /// Why the file (or part of it) could not be run natively.
    not_runnable: Vec<String>,
    /// Why the file is not a computed-name/role test at all (ATTAcomm).
    skipped: Option<String>,
    /// What the reader should know about how the file was read.
    notes: Vec<String>,
    /// The engine panicked on this file: always a failure.
    panic: Option<String>,
}

fn run_file(path: &str, source: &str) -> FileReport {
    let mut report = FileReport {
        path: path.to_string(),
        folder: folder_of(path),
        outcomes: Vec::new(),
        not_runnable: Vec::new(),
        skipped: None,
        notes: Vec::new(),
        panic: None,
    };
    let result = catch_unwind(AssertUnwindSafe(|| {
        let mut dom = MemDom::parse(source);
        let plan = read_script(&mut dom, &mut report);
        plan.map(|cases| evaluate(path, &dom, cases))
    }));
    match result {
        Ok(Some(outcomes)) => report.outcomes = outcomes,
        Ok(None) => {}
        Err(payload) => {
            let message = payload
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| payload.downcast_ref::<&str>().map(|text| text.to_string()))
                .unwrap_or_else(|| "(no message)".to_string());
            report.panic = Some(message);
        }
    }
    report
}

/// Runs the planned cases against one `Context` (created after every DOM change).
fn evaluate(path: &str, dom: &MemDom, cases: Vec<PlannedCase>) -> Vec<Outcome> {
    let context = Context::new(dom);
    let mut seen: HashMap<String, usize> = HashMap::new();
    let mut outcomes = Vec::new();
    for case in cases {
        let kind = case.expectation.kind();
        let base = format!(
            "{path}#{}: {}",
            kind.as_str(),
            collapse_whitespace(&case.test_name)
        );
        let count = seen.entry(base.clone()).or_insert(0);
        *count += 1;
        let id = if *count == 1 {
            base
        } else {
            format!("{base} ({count})")
        };
        let role_of = |element: NodeId| context.role(element).as_str().to_string();
        let (passed, computed) = match &case.expectation {
            Expectation::Label(expected) => {
                // `aria-utils.js` normalises a computed label as Infra's "strip and collapse
                // ASCII whitespace" does, which is the core's own rule.
                let computed = collapse_ascii_whitespace(&context.name(case.element).text);
                (expected.as_deref() == Some(computed.as_str()), computed)
            }
            Expectation::Role(expected) => {
                let computed = role_of(case.element);
                (expected.as_deref() == Some(computed.as_str()), computed)
            }
            Expectation::OneOfRoles(roles) => {
                let computed = role_of(case.element);
                (roles.contains(&computed), computed)
            }
            Expectation::NoAncestorWithRole(forbidden) => {
                let roles: Vec<String> = ancestors_below_root(dom, case.element)
                    .into_iter()
                    .map(role_of)
                    .collect();
                let passed = !roles.iter().any(|role| role == forbidden);
                (passed, format!("ancestor roles {roles:?}"))
            }
        };
        outcomes.push(Outcome {
            id,
            kind,
            passed,
            expected: case.expectation.describe(),
            computed: format!("{computed:?}"),
            markup: start_tag(dom, case.element),
        });
    }
    outcomes
}

/// Any whitespace run becomes one space (for test names used as list keys, one line each).
fn collapse_whitespace(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The element's parents up to, but excluding, the root element (`document.documentElement`).
fn ancestors_below_root(dom: &MemDom, element: NodeId) -> Vec<NodeId> {
    let mut out = Vec::new();
    let mut current = dom.parent(element);
    while let Some(node) = current {
        if dom.node_kind(node) != NodeKind::Element {
            break;
        }
        let parent = dom.parent(node);
        if parent.is_none_or(|parent| dom.node_kind(parent) == NodeKind::Document) {
            break;
        }
        out.push(node);
        current = parent;
    }
    out
}

/// The element's start tag, for failure messages (long values cut).
fn start_tag(dom: &MemDom, element: NodeId) -> String {
    let mut out = format!("<{}", dom.local_name(element));
    dom.for_each_attribute(element, &mut |name, value| {
        let value: String = if value.chars().count() > 60 {
            value.chars().take(60).chain("…".chars()).collect()
        } else {
            value.to_string()
        };
        let _ = write!(out, " {name}={value:?}");
    });
    out.push('>');
    let text = collapse_whitespace(&dom.text_content(element));
    if !text.is_empty() {
        let text: String = text.chars().take(80).collect();
        let _ = write!(out, " text {text:?}");
    }
    out
}

// ------------------------------------------------------------------------------------------
// Reading a page's script.

/// Reads the inline scripts of a page and returns the subtests to run, or `None` when the page
/// cannot be run natively (the reason is in `report`). Emulated patterns, all of them straight
/// from the copied files:
/// - the `AriaUtils.verify*BySelector(selector)` helpers, with simple selectors (tag, `.class`,
///   `#id`, `[attr]`, comma lists); the first string argument is the selector (an unmerged
///   revision of `accname/name/shadowdom/slot.html` passes `4` first);
/// - `document.getElementById('x').attachShadow({mode: 'open'}).innerHTML = '...'`, applied
///   before the checks (as the page does), through the MemDom builder;
/// - top-level `promise_test`s that `assert_equals` (or `assert_true(x == "v")`) the computed
///   label or role of `document.getElementById('x')`;
/// - `wai-aria/role/roles.html`'s loop over `let roles = [...]` creating `<div role=R>x</div>`,
///   and `AriaUtils.assignAndVerifyRolesByRoleNames([...])`, which does the same;
/// - `runTests({...})` of `html-aam/table/tentative/resources/table-computed-role.js`;
/// - `verifyNoForbiddenAncestorRole(selector, role)` of `html-aam/heading/invalid-nesting.html`.
fn read_script(dom: &mut MemDom, report: &mut FileReport) -> Option<Vec<PlannedCase>> {
    let scripts = dom.query_selector_all("script").unwrap_or_default();
    let script_sources: Vec<String> = scripts
        .iter()
        .filter_map(|&element| dom.attribute(element, "src").map(str::to_string))
        .collect();
    let inline: Vec<String> = scripts
        .iter()
        .filter(|&&element| dom.attribute(element, "src").is_none())
        .map(|&element| dom.text_content(element))
        .collect();
    let script = strip_comments(&inline.join("\n;\n"));

    if script.contains("new ATTAcomm(") || script_sources.iter().any(|src| src.contains("ATTAcomm"))
    {
        report.skipped = Some(
            "ATTAcomm test (expected values per platform API, needs wai-aria/scripts/ATTAcomm.js, \
             not copied); not a computed-label test"
                .to_string(),
        );
        return None;
    }
    if script.contains("HtmlAamAccnameUtils.") {
        report.not_runnable.push(
            "needs script: builds its elements at run time with \
             html-aam/scripts/html-aam-accname-utils.js (the static 4.1.x files spell the same \
             cases out)"
                .to_string(),
        );
        return None;
    }

    let depth = brace_depths(&script);
    let mut mutation_spans: Vec<(usize, usize)> = Vec::new();

    // DOM set-up first: the pages attach their shadow roots before calling the helpers.
    let mut search_from = 0;
    while let Some(found) = script[search_from..].find(".attachShadow(") {
        let at = search_from + found;
        search_from = at + 1;
        match emulate_attach_shadow(dom, &script, at) {
            Ok(span) => mutation_spans.push(span),
            Err(reason) => {
                report.not_runnable.push(format!("needs script: {reason}"));
                return None;
            }
        }
    }

    let mut events: Vec<(usize, Vec<PlannedCase>)> = Vec::new();
    let helpers: [(&str, Helper); 6] = [
        ("AriaUtils.verifyLabelsBySelector", Helper::Labels),
        ("AriaUtils.verifyRolesBySelector", Helper::Roles),
        ("AriaUtils.verifyGenericRolesBySelector", Helper::Generic),
        (
            "AriaUtils.verifyRoleOrVariantRolesBySelector",
            Helper::Variants,
        ),
        (
            "AriaUtils.verifyRolesAndLabelsBySelector",
            Helper::RolesAndLabels,
        ),
        ("verifyNoForbiddenAncestorRole", Helper::NoAncestor),
    ];
    for (callee, helper) in helpers {
        for call in find_calls(&script, &depth, callee) {
            let arguments = split_arguments(call.arguments);
            let strings: Vec<Option<String>> = arguments
                .iter()
                .map(|argument| string_literal(argument))
                .collect();
            let Some(selector_index) = strings.iter().position(Option::is_some) else {
                // `function verifyNoForbiddenAncestorRole(selector, forbiddenRole)`: the
                // definition, not a call.
                continue;
            };
            if selector_index > 0 {
                report.notes.push(format!(
                    "{callee}: first argument is not a string; used the selector {:?}",
                    strings[selector_index].as_deref().unwrap_or_default()
                ));
            }
            let selector = strings[selector_index].clone().unwrap_or_default();
            let extra = strings.get(selector_index + 1).cloned().flatten();
            let Some(elements) = dom.query_selector_all(&selector) else {
                report.not_runnable.push(format!(
                    "selector {selector:?} is not one the harness understands"
                ));
                return None;
            };
            let aliases: &[(&str, &str)] = match helper {
                Helper::Labels => &[("data-expectedlabel", "data-expectedname")],
                Helper::Roles => &[("data-expectedrole", "data-role")],
                Helper::RolesAndLabels => &[
                    ("data-expectedlabel", "data-expectedname"),
                    ("data-expectedrole", "data-role"),
                ],
                _ => &[],
            };
            for &(expected, alias) in aliases {
                let aliased = elements.iter().any(|&element| {
                    dom.attribute(element, expected).is_none()
                        && dom.attribute(element, alias).is_some()
                });
                if aliased {
                    report.notes.push(format!(
                        "{callee}({selector:?}): the elements give {alias} instead of {expected} \
                         (in a browser every such subtest compares with null); read as {expected}"
                    ));
                }
            }
            if elements.is_empty() {
                report.notes.push(format!(
                    "{callee}({selector:?}) matches no element (in a browser the helper throws)"
                ));
            }
            let cases = match helper {
                Helper::Labels => label_cases(dom, &elements, extra.as_deref().unwrap_or("")),
                Helper::Roles => role_cases(dom, &elements, extra.as_deref().unwrap_or("")),
                Helper::Generic => variant_cases(dom, &elements, &GENERIC_VARIANTS),
                Helper::Variants => {
                    let roles = arguments
                        .get(selector_index + 1)
                        .and_then(|argument| string_array(argument))
                        .unwrap_or_default();
                    let roles: Vec<&str> = roles.iter().map(String::as_str).collect();
                    variant_cases(dom, &elements, &roles)
                }
                Helper::RolesAndLabels => {
                    let mut cases = label_cases(dom, &elements, "Label: ");
                    cases.extend(role_cases(dom, &elements, "Role: "));
                    cases
                }
                Helper::NoAncestor => elements
                    .iter()
                    .map(|&element| PlannedCase {
                        test_name: dom
                            .attribute(element, "data-testname")
                            .unwrap_or("null")
                            .to_string(),
                        element,
                        expectation: Expectation::NoAncestorWithRole(
                            extra.clone().unwrap_or_default(),
                        ),
                    })
                    .collect(),
            };
            events.push((call.start, cases));
        }
    }

    for call in find_calls(&script, &depth, "AriaUtils.assignAndVerifyRolesByRoleNames") {
        let roles = split_arguments(call.arguments)
            .first()
            .and_then(|argument| string_array(argument))
            .unwrap_or_default();
        let cases = assigned_role_cases(dom, &roles, "role: ");
        events.push((call.start, cases));
    }

    // `wai-aria/role/roles.html`: `for (const role of roles) { el = createElement("div");
    // el.appendChild(text "x"); el.role = role; ... }`.
    if script.contains("el.role = role") {
        let Some(list) = script.find("let roles = [").and_then(|at| {
            let open = at + "let roles = ".len();
            let close = matching_bracket(&script, open)?;
            string_array(&script[open..=close])
        }) else {
            report
                .not_runnable
                .push("needs script: a role loop the harness cannot read".to_string());
            return None;
        };
        let at = script.find("el.role = role").unwrap_or_default();
        let cases = assigned_role_cases(dom, &list, "Assign/verify role: ");
        events.push((at, cases));
    }

    // `html-aam/table/tentative/*`: `runTests({expectedTables, expectedLayoutTables})`.
    if script_sources
        .iter()
        .any(|src| src.ends_with("table-computed-role.js"))
    {
        if let Some(call) = find_calls(&script, &depth, "runTests").first() {
            let cases = table_cases(dom, report);
            events.push((call.start, cases));
        }
    }

    // Top-level `promise_test`s (those inside helper functions or loops are the helpers' own).
    let mut unread = 0usize;
    for call in find_calls(&script, &depth, "promise_test") {
        if depth.get(call.start).copied().flatten() != Some(0) {
            continue;
        }
        match direct_promise_test(dom, call.arguments) {
            Some(case) => events.push((call.start, vec![case])),
            None => unread += 1,
        }
    }
    if unread > 0 {
        report.not_runnable.push(format!(
            "needs script: {unread} promise_test(s) written in a form the harness does not read"
        ));
    }

    // Any other top-level DOM change would make the static DOM wrong.
    for token in [
        "createElement",
        "appendChild",
        ".append(",
        ".remove(",
        "innerHTML",
        "textContent =",
        "setAttribute",
        "removeAttribute",
        "classList.",
        ".role =",
    ] {
        let mut from = 0;
        while let Some(found) = script[from..].find(token) {
            let at = from + found;
            from = at + 1;
            let top_level = depth.get(at).copied().flatten() == Some(0);
            let emulated = mutation_spans
                .iter()
                .any(|&(start, end)| (start..end).contains(&at));
            if top_level && !emulated {
                report.not_runnable.push(format!(
                    "needs script: changes the DOM at load time ({token}) in a way the harness \
                     does not emulate"
                ));
                return None;
            }
        }
    }

    if events.is_empty() && report.not_runnable.is_empty() {
        report
            .notes
            .push("no subtest found in the page's script".to_string());
    }
    events.sort_by_key(|(start, _)| *start);
    Some(events.into_iter().flat_map(|(_, cases)| cases).collect())
}

#[derive(Copy, Clone)]
enum Helper {
    Labels,
    Roles,
    Generic,
    Variants,
    RolesAndLabels,
    NoAncestor,
}

/// `verifyLabelsBySelector`: test name is `data-testname || expected label`.
/// `html-aam/names.html` writes its expectations as `data-expectedname`, which the copied
/// `aria-utils.js` does not read (so in a browser those subtests compare with `null` and fail
/// everywhere); we read it, since the intent is plain.
fn label_cases(dom: &MemDom, elements: &[NodeId], prefix: &str) -> Vec<PlannedCase> {
    elements
        .iter()
        .map(|&element| {
            let expected = dom
                .attribute(element, "data-expectedlabel")
                .or_else(|| dom.attribute(element, "data-expectedname"))
                .map(str::to_string);
            let test_name = non_empty(dom.attribute(element, "data-testname"))
                .or(expected.as_deref())
                .unwrap_or("null");
            PlannedCase {
                test_name: format!("{prefix}{test_name}"),
                element,
                expectation: Expectation::Label(expected),
            }
        })
        .collect()
}

/// `verifyRolesBySelector`: test name is `data-testname || expected role`.
/// `wai-aria/role/list-roles.html` writes `data-role` instead of `data-expectedrole` (its
/// subtests compare with `null` in a browser); we read it, as for `data-expectedname`.
fn role_cases(dom: &MemDom, elements: &[NodeId], prefix: &str) -> Vec<PlannedCase> {
    elements
        .iter()
        .map(|&element| {
            let expected = dom
                .attribute(element, "data-expectedrole")
                .or_else(|| dom.attribute(element, "data-role"))
                .map(str::to_string);
            let test_name = non_empty(dom.attribute(element, "data-testname"))
                .or(expected.as_deref())
                .unwrap_or("null");
            PlannedCase {
                test_name: format!("{prefix}{test_name}"),
                element,
                expectation: Expectation::Role(expected),
            }
        })
        .collect()
}

fn variant_cases(dom: &MemDom, elements: &[NodeId], roles: &[&str]) -> Vec<PlannedCase> {
    elements
        .iter()
        .map(|&element| PlannedCase {
            test_name: dom
                .attribute(element, "data-testname")
                .unwrap_or("null")
                .to_string(),
            element,
            expectation: Expectation::OneOfRoles(roles.iter().map(|r| r.to_string()).collect()),
        })
        .collect()
}

/// `<div role=R>x</div>` appended to the body for each role; the expected role is R lowercased.
fn assigned_role_cases(dom: &mut MemDom, roles: &[String], prefix: &str) -> Vec<PlannedCase> {
    let Some(body) = dom.body() else {
        return Vec::new();
    };
    roles
        .iter()
        .map(|role| {
            let element = dom.append_element(body, "div", &[("role", role)]);
            dom.append_text(element, "x");
            PlannedCase {
                test_name: format!("{prefix}{role}"),
                element,
                expectation: Expectation::Role(Some(role.to_ascii_lowercase())),
            }
        })
        .collect()
}

/// `runTests` of `table-computed-role.js`: tables with `data-testname` and no `data-layout` must
/// be `table`; those with `data-layout` must compute like an empty `<table>` appended to the body
/// (the layout-table role, which differs per browser), and that role must be one of the sensible
/// values. `data-nest="id"` appends the element with that id into the table first (we copy it).
fn table_cases(dom: &mut MemDom, report: &mut FileReport) -> Vec<PlannedCase> {
    let mut cases = Vec::new();
    let Some(body) = dom.body() else {
        return cases;
    };
    let tested: Vec<NodeId> = dom
        .query_selector_all("table[data-testname]")
        .unwrap_or_default()
        .into_iter()
        .filter(|&element| dom.attribute(element, "data-nested").is_none())
        .collect();
    for &table in &tested {
        if let Some(nest) = dom.attribute(table, "data-nest").map(str::to_string) {
            match dom.element_by_id_attribute(&nest) {
                Some(nested) => {
                    let plan = subtree_plan(dom, nested, true);
                    apply_plan(dom, table, &plan);
                }
                None => report
                    .notes
                    .push(format!("data-nest={nest:?}: no element with that id")),
            }
        }
    }
    let layout_probe = dom.append_element(body, "table", &[]);
    cases.push(PlannedCase {
        test_name: "Table with a non-standard role should still be a sensible value".to_string(),
        element: layout_probe,
        expectation: Expectation::OneOfRoles(
            LAYOUT_TABLE_VARIANTS
                .iter()
                .map(|r| r.to_string())
                .collect(),
        ),
    });
    // The layout tables' expectation is whatever the probe computes to; evaluated with the
    // same context, so we resolve it here with a throwaway context over the final DOM.
    let layout_role = Context::new(&*dom).role(layout_probe).as_str().to_string();
    report.notes.push(format!(
        "layout tables are expected to compute like an empty <table> ({layout_role:?} here)"
    ));
    for layout in [false, true] {
        for &table in &tested {
            if dom.attribute(table, "data-layout").is_some() != layout {
                continue;
            }
            let name = dom.attribute(table, "data-testname").unwrap_or_default();
            let kind = if layout { "layout table" } else { "table" };
            cases.push(PlannedCase {
                test_name: format!("\"{name}\" must have a computed role {kind}"),
                element: table,
                expectation: Expectation::Role(Some(if layout {
                    layout_role.clone()
                } else {
                    "table".to_string()
                })),
            });
        }
    }
    cases
}

/// `promise_test(async t => { ... get_computed_label|role(document.getElementById('x')) ...
/// assert_equals(v, "expected") | assert_true(v == "expected") }, "name")`.
fn direct_promise_test(dom: &MemDom, arguments: &str) -> Option<PlannedCase> {
    let parts = split_arguments(arguments);
    let test_name = string_literal(parts.last()?)?;
    let body = parts.first()?;
    let (kind, after) = if let Some(at) = body.find("get_computed_label(") {
        (Kind::Name, &body[at..])
    } else {
        let at = body.find("get_computed_role(")?;
        (Kind::Role, &body[at..])
    };
    let id_at = after.find("getElementById(")? + "getElementById(".len();
    let id = string_literal_prefix(&after[id_at..])?.0;
    let element = dom.element_by_id(dom.document(), &id)?;
    let expected = if let Some(at) = body.find("assert_equals(") {
        let open = at + "assert_equals".len();
        let close = matching_bracket(body, open)?;
        let arguments = split_arguments(&body[open + 1..close]);
        string_literal(arguments.get(1)?)?
    } else {
        let at = body.find("assert_true(")?;
        let open = at + "assert_true".len();
        let close = matching_bracket(body, open)?;
        let condition = &body[open + 1..close];
        let equals = condition.find("==")?;
        string_literal(condition[equals..].trim_start_matches('=').trim())?
    };
    Some(PlannedCase {
        test_name,
        element,
        expectation: match kind {
            Kind::Name => Expectation::Label(Some(expected)),
            Kind::Role => Expectation::Role(Some(expected)),
        },
    })
}

/// `document.getElementById('host').attachShadow({ mode: 'open' }).innerHTML = '...'`, with the
/// `.attachShadow(` at `at`. Returns the statement's span.
fn emulate_attach_shadow(
    dom: &mut MemDom,
    script: &str,
    at: usize,
) -> Result<(usize, usize), String> {
    let statement_start = script[..at]
        .rfind([';', '\n', '}'])
        .map_or(0, |position| position + 1);
    let head = &script[statement_start..at];
    let id_at = head
        .find("getElementById(")
        .ok_or("attachShadow on something other than getElementById")?
        + "getElementById(".len();
    let id = string_literal_prefix(&head[id_at..])
        .ok_or("attachShadow host id is not a literal")?
        .0;
    let open = at + ".attachShadow".len();
    let close = matching_bracket(script, open).ok_or("unbalanced attachShadow call")?;
    let rest = &script[close + 1..];
    let trimmed = rest.trim_start();
    let Some(assignment) = trimmed.strip_prefix(".innerHTML") else {
        return Err("attachShadow without an innerHTML assignment".to_string());
    };
    let assignment = assignment.trim_start();
    let Some(value) = assignment.strip_prefix('=') else {
        return Err("attachShadow without an innerHTML assignment".to_string());
    };
    let (html, used) =
        string_literal_prefix(value.trim_start()).ok_or("innerHTML value is not a literal")?;
    let value_start = script.len() - value.trim_start().len();
    let end = value_start + used;
    let host = dom
        .element_by_id_attribute(&id)
        .ok_or_else(|| format!("no element with id {id:?} to attach a shadow root to"))?;
    let fragment = MemDom::parse(&html);
    let root = dom.attach_shadow(host);
    if let Some(body) = fragment.body() {
        let plan = subtree_plan(&fragment, body, false);
        apply_plan(dom, root, &plan);
    }
    Ok((statement_start, end))
}

// ------------------------------------------------------------------------------------------
// Copying subtrees with the builder.

enum PlanNode {
    Element {
        parent: Option<usize>,
        tag: String,
        attributes: Vec<(String, String)>,
    },
    Text {
        parent: Option<usize>,
        text: String,
    },
}

/// The light subtree of `root` (with `root` itself or only its children), as builder steps.
fn subtree_plan(dom: &MemDom, root: NodeId, include_root: bool) -> Vec<PlanNode> {
    let mut plan = Vec::new();
    let mut stack: Vec<(NodeId, Option<usize>)> = if include_root {
        vec![(root, None)]
    } else {
        dom.children(root)
            .iter()
            .rev()
            .map(|&c| (c, None))
            .collect()
    };
    while let Some((node, parent)) = stack.pop() {
        match dom.node_kind(node) {
            NodeKind::Element => {
                let mut attributes = Vec::new();
                dom.for_each_attribute(node, &mut |name, value| {
                    attributes.push((name.to_string(), value.to_string()));
                });
                plan.push(PlanNode::Element {
                    parent,
                    tag: dom.local_name(node).to_string(),
                    attributes,
                });
                let index = plan.len() - 1;
                for &child in dom.children(node).iter().rev() {
                    stack.push((child, Some(index)));
                }
            }
            NodeKind::Text => plan.push(PlanNode::Text {
                parent,
                text: dom.text_data(node).to_string(),
            }),
            _ => {}
        }
    }
    plan
}

fn apply_plan(dom: &mut MemDom, target: NodeId, plan: &[PlanNode]) {
    let mut created: Vec<Option<NodeId>> = Vec::with_capacity(plan.len());
    for step in plan {
        let parent_of = |parent: &Option<usize>, created: &[Option<NodeId>]| match parent {
            Some(index) => created.get(*index).copied().flatten(),
            None => Some(target),
        };
        match step {
            PlanNode::Element {
                parent,
                tag,
                attributes,
            } => {
                let Some(parent) = parent_of(parent, &created) else {
                    created.push(None);
                    continue;
                };
                let attributes: Vec<(&str, &str)> = attributes
                    .iter()
                    .map(|(name, value)| (name.as_str(), value.as_str()))
                    .collect();
                created.push(Some(dom.append_element(parent, tag, &attributes)));
            }
            PlanNode::Text { parent, text } => {
                if let Some(parent) = parent_of(parent, &created) {
                    dom.append_text(parent, text);
                }
                created.push(None);
            }
        }
    }
}

fn non_empty(value: Option<&str>) -> Option<&str> {
    value.filter(|value| !value.is_empty())
}

// ------------------------------------------------------------------------------------------
// A very small JavaScript reader: comments, string literals, balanced brackets, call sites.

/// Removes `//` and `/* */` comments outside string literals (keeping line breaks).
fn strip_comments(script: &str) -> String {
    let mut out = String::with_capacity(script.len());
    let mut chars = script.chars().peekable();
    let mut quote: Option<char> = None;
    while let Some(c) = chars.next() {
        if let Some(q) = quote {
            out.push(c);
            if c == '\\' {
                if let Some(next) = chars.next() {
                    out.push(next);
                }
            } else if c == q {
                quote = None;
            }
            continue;
        }
        match c {
            '\'' | '"' | '`' => {
                quote = Some(c);
                out.push(c);
            }
            '/' if chars.peek() == Some(&'/') => {
                for next in chars.by_ref() {
                    if next == '\n' {
                        out.push('\n');
                        break;
                    }
                }
            }
            '/' if chars.peek() == Some(&'*') => {
                chars.next();
                let mut previous = ' ';
                for next in chars.by_ref() {
                    if next == '\n' {
                        out.push('\n');
                    }
                    if previous == '*' && next == '/' {
                        break;
                    }
                    previous = next;
                }
                out.push(' ');
            }
            _ => out.push(c),
        }
    }
    out
}

/// For each byte offset: `None` inside a string literal (quotes included), otherwise the number
/// of `{` open there.
fn brace_depths(script: &str) -> Vec<Option<u32>> {
    let mut depths = vec![Some(0u32); script.len() + 1];
    let mut depth = 0u32;
    let mut quote: Option<char> = None;
    let mut escaped = false;
    for (offset, c) in script.char_indices() {
        if let Some(q) = quote {
            depths[offset] = None;
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == q {
                quote = None;
            }
            continue;
        }
        match c {
            '\'' | '"' | '`' => {
                quote = Some(c);
                depths[offset] = None;
                continue;
            }
            '{' => depth += 1,
            '}' => depth = depth.saturating_sub(1),
            _ => {}
        }
        depths[offset] = Some(depth);
    }
    // Continuation bytes of multi-byte characters take the value of their character.
    for offset in 1..depths.len() {
        if !script.is_char_boundary(offset.min(script.len())) {
            depths[offset] = depths[offset - 1];
        }
    }
    depths
}

/// The offset of the bracket closing the one at `open` (`(`, `[` or `{`), skipping strings.
fn matching_bracket(text: &str, open: usize) -> Option<usize> {
    let mut depth = 0i32;
    let mut quote: Option<char> = None;
    let mut escaped = false;
    for (offset, c) in text[open..].char_indices() {
        if let Some(q) = quote {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == q {
                quote = None;
            }
            continue;
        }
        match c {
            '\'' | '"' | '`' => quote = Some(c),
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(open + offset);
                }
            }
            _ => {}
        }
    }
    None
}

struct Call<'script> {
    start: usize,
    arguments: &'script str,
}

/// Every call `callee(...)` in code (not in a string, not preceded by an identifier character or
/// a dot).
fn find_calls<'script>(
    script: &'script str,
    depths: &[Option<u32>],
    callee: &str,
) -> Vec<Call<'script>> {
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(found) = script[from..].find(callee) {
        let start = from + found;
        from = start + callee.len();
        if depths.get(start).copied().flatten().is_none() {
            continue;
        }
        let preceded = script[..start]
            .chars()
            .next_back()
            .is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '.' || c == '$');
        if preceded {
            continue;
        }
        let after = &script[from..];
        let open = from + (after.len() - after.trim_start().len());
        if !script[open..].starts_with('(') {
            continue;
        }
        if let Some(close) = matching_bracket(script, open) {
            out.push(Call {
                start,
                arguments: &script[open + 1..close],
            });
        }
    }
    out
}

/// Splits call arguments at top-level commas (outside strings and brackets), trimmed.
fn split_arguments(arguments: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut quote: Option<char> = None;
    let mut escaped = false;
    let mut start = 0;
    for (offset, c) in arguments.char_indices() {
        if let Some(q) = quote {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == q {
                quote = None;
            }
            continue;
        }
        match c {
            '\'' | '"' | '`' => quote = Some(c),
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => depth -= 1,
            ',' if depth == 0 => {
                out.push(arguments[start..offset].trim());
                start = offset + 1;
            }
            _ => {}
        }
    }
    let last = arguments[start..].trim();
    if !last.is_empty() {
        out.push(last);
    }
    out
}

/// The whole of `text` as one string literal.
fn string_literal(text: &str) -> Option<String> {
    let text = text.trim();
    let (value, used) = string_literal_prefix(text)?;
    text[used..].trim().is_empty().then_some(value)
}

/// A string literal at the start of `text` (after whitespace): its value and the bytes used.
/// Template literals with substitutions are not literals.
fn string_literal_prefix(text: &str) -> Option<(String, usize)> {
    let skipped = text.len() - text.trim_start().len();
    let mut chars = text[skipped..].char_indices();
    let (_, quote) = chars.next()?;
    if !matches!(quote, '\'' | '"' | '`') {
        return None;
    }
    let mut value = String::new();
    while let Some((offset, c)) = chars.next() {
        if c == quote {
            return Some((value, skipped + offset + c.len_utf8()));
        }
        if quote == '`' && c == '$' && text[skipped + offset..].starts_with("${") {
            return None;
        }
        if c != '\\' {
            value.push(c);
            continue;
        }
        let (_, escape) = chars.next()?;
        match escape {
            'n' => value.push('\n'),
            't' => value.push('\t'),
            'r' => value.push('\r'),
            'f' => value.push('\u{c}'),
            'u' | 'x' => {
                let length = if escape == 'u' { 4 } else { 2 };
                let mut code = String::new();
                for _ in 0..length {
                    code.push(chars.next()?.1);
                }
                value.push(char::from_u32(u32::from_str_radix(&code, 16).ok()?)?);
            }
            '\n' => {}
            other => value.push(other),
        }
    }
    None
}

/// `["a", 'b', ...]`.
fn string_array(text: &str) -> Option<Vec<String>> {
    let inside = text.trim().strip_prefix('[')?.strip_suffix(']')?;
    split_arguments(inside)
        .into_iter()
        .map(string_literal)
        .collect()
}

// ------------------------------------------------------------------------------------------
// The known-failures list.

struct KnownFailures {
    /// Case id -> reason, in file order.
    entries: Vec<(String, String)>,
    /// Lines that are neither comments nor `id<TAB>reason`.
    malformed: Vec<String>,
}

impl KnownFailures {
    fn parse(text: &str) -> KnownFailures {
        let mut entries = Vec::new();
        let mut malformed = Vec::new();
        for line in text.lines() {
            if line.trim().is_empty() || line.starts_with('#') {
                continue;
            }
            match line.split_once('\t') {
                Some((id, reason)) => entries.push((id.to_string(), reason.trim().to_string())),
                None => malformed.push(line.to_string()),
            }
        }
        KnownFailures { entries, malformed }
    }

    fn reason(&self, id: &str) -> Option<&str> {
        self.entries
            .iter()
            .find(|(known, _)| known == id)
            .map(|(_, reason)| reason.as_str())
    }

    fn file_of(id: &str) -> &str {
        id.split_once('#').map_or(id, |(file, _)| file)
    }

    /// The list as it should be now: every failing case of the considered files (reasons kept,
    /// new ones marked TODO), plus the untouched entries of files not considered (filtered out).
    fn rewrite(&self, reports: &[FileReport], considered: &HashSet<&str>) -> String {
        let mut out = String::from(KNOWN_FAILURES_HEADER);
        let mut lines: Vec<(String, String)> = self
            .entries
            .iter()
            .filter(|(id, _)| !considered.contains(Self::file_of(id)))
            .cloned()
            .collect();
        for report in reports {
            for outcome in report.outcomes.iter().filter(|outcome| !outcome.passed) {
                let reason = self
                    .reason(&outcome.id)
                    .filter(|reason| !reason.is_empty())
                    .unwrap_or(TODO_REASON);
                lines.push((outcome.id.clone(), reason.to_string()));
            }
        }
        // Files in path order; cases keep their order within a file.
        lines.sort_by(|a, b| Self::file_of(&a.0).cmp(Self::file_of(&b.0)));
        for (id, reason) in lines {
            let _ = writeln!(out, "{id}\t{reason}");
        }
        out
    }
}

const KNOWN_FAILURES_HEADER: &str = "\
# WPT cases that fail natively (tests/wpt.rs), one per line: `path#kind: test name<TAB>reason`.
# The reason starts with its cause:
#   layout:     needs real CSS, layout or rendering (left to the browser run);
#   script:     the page needs script we do not emulate;
#   browser:    a Chromium/Firefox/WebKit behaviour we do not follow;
#   deliberate: we decided otherwise on purpose (the design or an issue says so);
#   tentative:  a *.tentative.html expectation that no spec has adopted;
#   stale:      the copied expectation is out of date or wrong;
#   todo:       the engine should get this right (a bug to fix).
# A listed case that passes fails the test: remove it (ALLWRIGHT_WPT_UPDATE=1 rewrites this file,
# keeping the reasons, and writes `TODO: triage` for new failures, which must then be triaged).
";

fn check_against_known(reports: &[FileReport], known: &KnownFailures) -> Vec<String> {
    let mut problems = Vec::new();
    for line in &known.malformed {
        problems.push(format!("MALFORMED line (want `id<TAB>reason`): {line:?}"));
    }
    let mut all_ids: HashSet<&str> = HashSet::new();
    let considered: HashSet<&str> = reports.iter().map(|file| file.path.as_str()).collect();
    for report in reports {
        if let Some(message) = &report.panic {
            problems.push(format!("PANIC in {}: {message}", report.path));
        }
        for outcome in &report.outcomes {
            all_ids.insert(&outcome.id);
            match (outcome.passed, known.reason(&outcome.id)) {
                (false, None) => problems.push(format!(
                    "REGRESSION (failing, not in the list): {}\n    expected {}, computed {}\n    {}",
                    outcome.id, outcome.expected, outcome.computed, outcome.markup
                )),
                (true, Some(_)) => problems.push(format!(
                    "NOW PASSES (remove it from the list): {}",
                    outcome.id
                )),
                _ => {}
            }
        }
    }
    for (id, reason) in &known.entries {
        if !considered.contains(KnownFailures::file_of(id)) {
            continue;
        }
        if !all_ids.contains(id.as_str()) {
            problems.push(format!("STALE entry (no such case any more): {id}"));
        } else if reason.is_empty() || reason.starts_with("TODO") {
            problems.push(format!("NO REASON given: {id}\t{reason}"));
        }
    }
    problems
}

// ------------------------------------------------------------------------------------------
// The report.

#[derive(Default)]
struct Tally {
    files: usize,
    not_runnable_files: usize,
    names_passed: usize,
    names: usize,
    roles_passed: usize,
    roles: usize,
    known: usize,
    unexpected: usize,
}

fn write_table(out: &mut String, reports: &[FileReport], known: &KnownFailures) {
    let mut folders: BTreeMap<&str, Tally> = BTreeMap::new();
    for report in reports {
        let tally = folders.entry(report.folder.as_str()).or_default();
        tally.files += 1;
        if report.skipped.is_none() && report.outcomes.is_empty() && !report.not_runnable.is_empty()
        {
            tally.not_runnable_files += 1;
        }
        for outcome in &report.outcomes {
            let listed = known.reason(&outcome.id).is_some();
            match outcome.kind {
                Kind::Name => {
                    tally.names += 1;
                    tally.names_passed += usize::from(outcome.passed);
                }
                Kind::Role => {
                    tally.roles += 1;
                    tally.roles_passed += usize::from(outcome.passed);
                }
            }
            tally.known += usize::from(!outcome.passed && listed);
            tally.unexpected += usize::from(outcome.passed == listed);
        }
    }
    let mut total = Tally::default();
    let _ = writeln!(
        out,
        "\nWPT (natively, in-memory DOM)\n{:<46} {:>5} {:>7} {:>11} {:>11} {:>6} {:>10}",
        "folder", "files", "no-run", "names", "roles", "known", "unexpected"
    );
    let row = |out: &mut String, folder: &str, tally: &Tally| {
        let _ = writeln!(
            out,
            "{:<46} {:>5} {:>7} {:>11} {:>11} {:>6} {:>10}",
            folder,
            tally.files,
            tally.not_runnable_files,
            format!("{}/{}", tally.names_passed, tally.names),
            format!("{}/{}", tally.roles_passed, tally.roles),
            tally.known,
            tally.unexpected
        );
    };
    for (folder, tally) in &folders {
        row(out, folder, tally);
        total.files += tally.files;
        total.not_runnable_files += tally.not_runnable_files;
        total.names += tally.names;
        total.names_passed += tally.names_passed;
        total.roles += tally.roles;
        total.roles_passed += tally.roles_passed;
        total.known += tally.known;
        total.unexpected += tally.unexpected;
    }
    row(out, "TOTAL", &total);
    let mut causes: BTreeMap<String, usize> = BTreeMap::new();
    for (id, reason) in &known.entries {
        if reports.iter().any(|r| r.path == KnownFailures::file_of(id)) {
            let cause = reason.split_once(':').map_or(reason.as_str(), |(c, _)| c);
            *causes.entry(cause.to_string()).or_default() += 1;
        }
    }
    if !causes.is_empty() {
        let causes: Vec<String> = causes
            .iter()
            .map(|(cause, count)| format!("{cause} {count}"))
            .collect();
        let _ = writeln!(out, "known failures by cause: {}", causes.join(", "));
    }
}

fn write_not_runnable(out: &mut String, reports: &[FileReport], other: &[String]) {
    let _ = writeln!(out, "\nNot run natively, and notes:");
    for report in reports {
        for reason in &report.not_runnable {
            let _ = writeln!(out, "  not runnable  {}: {reason}", report.path);
        }
        if let Some(reason) = &report.skipped {
            let _ = writeln!(out, "  skipped       {}: {reason}", report.path);
        }
        for note in &report.notes {
            let _ = writeln!(out, "  note          {}: {note}", report.path);
        }
    }
    for path in other {
        let _ = writeln!(
            out,
            "  skipped       {path}: a platform-API (AT-SPI) test in Python, not a computed-label test"
        );
    }
}

fn write_failure_details(out: &mut String, reports: &[FileReport], known: &KnownFailures) {
    let _ = writeln!(out, "\nFailing cases:");
    for report in reports {
        for outcome in report.outcomes.iter().filter(|outcome| !outcome.passed) {
            let _ = writeln!(
                out,
                "  {}\n      expected {}, computed {}\n      {}\n      listed: {}",
                outcome.id,
                outcome.expected,
                outcome.computed,
                outcome.markup,
                known.reason(&outcome.id).unwrap_or("(not listed)")
            );
        }
    }
}
