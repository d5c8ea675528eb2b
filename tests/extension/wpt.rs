//! The web-platform-tests files of `third_party/wpt`, through the extension in a real browser, and
//! (Chromium) the same elements through Chromium's own accessibility engine as an oracle (the
//! agreement test on realistic pages is `agreement.rs`).
//!
//! The test reads each page's expectations (`data-expectedlabel`, `data-expectedrole`,
//! `.ex-generic`) in the page, takes an "ai" snapshot so that every node carries an `aria-ref`
//! attribute on its element, and matches elements to nodes through it. Elements that the tree
//! flattens (generic containers, inline formatting) have no node: their role cannot be observed
//! from outside and they are counted apart, neither passed nor failed (the native WPT test checks
//! their roles). Pass counts are printed per folder; the test fails below a floor, so a broken
//! extension cannot pass it.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::Value;

use crate::devtools::{normalize, DevTools};
use crate::support::{fixtures, nodes, wpt_folder, Browser, Session};
use crate::surface::snapshot;

/// Names of roles the tree flattens: an element with one of them has no node of its own.
const FLATTENED_ROLES: &[&str] = &[
    "generic",
    "none",
    "strong",
    "emphasis",
    "mark",
    "subscript",
    "superscript",
];

/// The files whose expectations are in static markup (script-built pages and the
/// platform-API formats are left to the native runner's notes).
fn static_expectation_files(root: &Path) -> Vec<String> {
    let mut files = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(folder) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&folder) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            let Ok(relative) = path.strip_prefix(root) else {
                continue;
            };
            let relative = relative.to_string_lossy().replace('\\', "/");
            let Ok(text) = std::fs::read_to_string(&path) else {
                continue;
            };
            let static_expectations = text.contains("data-expectedlabel")
                || text.contains("data-expectedrole")
                || text.contains("ex-generic");
            if relative.ends_with(".html")
                && static_expectations
                && !relative.contains("name_pseudo-content")
            {
                files.push(relative);
            }
        }
    }
    files.sort();
    files
}

/// What the page says each test element should be, with the element's aria-ref.
const COLLECT_EXPECTATIONS: &str = r#"
[...document.querySelectorAll('[data-expectedlabel], [data-expectedrole], .ex-generic')].map((element, index) => ({
  index,
  name: element.getAttribute('data-testname') || element.id || element.outerHTML.slice(0, 60),
  label: element.getAttribute('data-expectedlabel'),
  role: element.getAttribute('data-expectedrole'),
  generic: element.classList.contains('ex-generic'),
  reference: element.getAttribute('aria-ref'),
}))
"#;

#[derive(Default, Clone, Copy)]
struct Counts {
    names_passed: usize,
    names_total: usize,
    roles_passed: usize,
    roles_total: usize,
    names_unobservable: usize,
    roles_unobservable: usize,
    oracle_names_passed: usize,
    oracle_roles_passed: usize,
}

fn folder_of(file: &str) -> String {
    match file.rsplit_once('/') {
        Some((folder, _)) if folder.starts_with("html-aam/accname-computation-by-element/4.1.") => {
            "html-aam/accname-computation-by-element/4.1.x".to_string()
        }
        Some((folder, _)) => folder.to_string(),
        None => ".".to_string(),
    }
}

fn role_passes(expected: &str, actual: &str, generic_check: bool) -> bool {
    if generic_check || expected.is_empty() {
        return matches!(actual, "generic" | "none" | "");
    }
    expected == actual
        || (expected == "img" && actual == "image")
        || (expected == "presentation" && actual == "none")
}

async fn run_wpt(session: &Session, oracle: bool) {
    let browser = session.browser.name();
    // The copy is part of the repository, so a missing folder is a broken checkout (or a wrong
    // ALLWRIGHT_WPT_DIR), not a reason to pass.
    let root = wpt_folder()
        .expect("the web-platform-tests copy (third_party/wpt or ALLWRIGHT_WPT_DIR) is missing");
    let server = fixtures();
    let mut per_folder: BTreeMap<String, Counts> = BTreeMap::new();
    let mut devtools = None;
    for file in static_expectation_files(&root) {
        let url = server.url(&format!("/wpt/{file}"));
        // The files are static markup: navigate answers after load, and the read that follows
        // needs no pause (Session::open's pause is for pages whose own scripts run after load).
        session
            .ok("navigate", serde_json::json!({"url": url}))
            .await;
        let parsed = snapshot(session, true).await;
        let root_node = &parsed["documents"][0]["root"];
        let by_reference: BTreeMap<&str, &Value> = nodes(root_node)
            .into_iter()
            .filter_map(|node| node["aria-ref"].as_str().map(|reference| (reference, node)))
            .collect();
        let expectations = session.evaluate_json(COLLECT_EXPECTATIONS).await;
        if oracle && devtools.is_none() {
            let address = session
                .chromium_debugger_address()
                .expect("DevTools address");
            devtools = Some(DevTools::attach_to_page(&address, &server.origin).await);
        }
        let counts = per_folder.entry(folder_of(&file)).or_default();
        for expectation in expectations.as_array().into_iter().flatten() {
            let node = expectation["reference"]
                .as_str()
                .and_then(|reference| by_reference.get(reference));
            let chromium = match devtools.as_mut() {
                Some(devtools) => {
                    let index = expectation["index"].as_u64().unwrap_or(0);
                    devtools
                        .role_and_name(&format!(
                            "document.querySelectorAll('[data-expectedlabel], [data-expectedrole], .ex-generic')[{index}]"
                        ))
                        .await
                }
                None => None,
            };
            if let Some(label) = expectation["label"].as_str() {
                counts.names_total += 1;
                match node {
                    Some(node)
                        if normalize(node["name"].as_str().unwrap_or("")) == normalize(label) =>
                    {
                        counts.names_passed += 1
                    }
                    Some(_) => {}
                    None => counts.names_unobservable += 1,
                }
                if chromium
                    .as_ref()
                    .is_some_and(|(_, name)| *name == normalize(label))
                {
                    counts.oracle_names_passed += 1;
                }
            }
            let generic_check = expectation["generic"] == true;
            if let Some(role) = expectation["role"]
                .as_str()
                .or(generic_check.then_some("generic"))
            {
                counts.roles_total += 1;
                match node {
                    Some(node)
                        if role_passes(
                            role,
                            node["role"].as_str().unwrap_or(""),
                            generic_check,
                        ) =>
                    {
                        counts.roles_passed += 1;
                    }
                    Some(_) => {}
                    // No node: flattened. A flattened element's role is one of the flattened
                    // roles; it passes when the expectation is one of them, and is otherwise
                    // not observable from the tree.
                    None if FLATTENED_ROLES.contains(&role) || generic_check || role.is_empty() => {
                        counts.roles_unobservable += 1;
                    }
                    None => {}
                }
                if chromium.as_ref().is_some_and(|(chromium_role, _)| {
                    role_passes(role, chromium_role, generic_check)
                }) {
                    counts.oracle_roles_passed += 1;
                }
            }
        }
    }
    let mut total = Counts::default();
    eprintln!(
        "\nWPT through the extension in {browser}{}",
        if oracle {
            " (and Chromium's own engine)"
        } else {
            ""
        }
    );
    eprintln!(
        "{:<48} {:>11} {:>11} {:>7}{}",
        "folder",
        "names",
        "roles",
        "no-node",
        if oracle {
            "   chromium names   chromium roles"
        } else {
            ""
        }
    );
    for (folder, counts) in &per_folder {
        eprintln!(
            "{:<48} {:>11} {:>11} {:>7}{}",
            folder,
            format!("{}/{}", counts.names_passed, counts.names_total),
            format!("{}/{}", counts.roles_passed, counts.roles_total),
            format!(
                "{}+{}",
                counts.names_unobservable, counts.roles_unobservable
            ),
            if oracle {
                format!(
                    "   {:>14} {:>16}",
                    format!("{}/{}", counts.oracle_names_passed, counts.names_total),
                    format!("{}/{}", counts.oracle_roles_passed, counts.roles_total)
                )
            } else {
                String::new()
            }
        );
        total.names_passed += counts.names_passed;
        total.names_total += counts.names_total;
        total.roles_passed += counts.roles_passed;
        total.roles_total += counts.roles_total;
        total.names_unobservable += counts.names_unobservable;
        total.roles_unobservable += counts.roles_unobservable;
        total.oracle_names_passed += counts.oracle_names_passed;
        total.oracle_roles_passed += counts.oracle_roles_passed;
    }
    let percent = |passed: usize, of: usize| {
        if of == 0 {
            0.0
        } else {
            100.0 * passed as f64 / of as f64
        }
    };
    eprintln!(
        "{:<48} {:>11} {:>11} {:>7}{}",
        "TOTAL",
        format!("{}/{}", total.names_passed, total.names_total),
        format!("{}/{}", total.roles_passed, total.roles_total),
        format!("{}+{}", total.names_unobservable, total.roles_unobservable),
        if oracle {
            format!(
                "   {:>14} {:>16}",
                format!("{}/{}", total.oracle_names_passed, total.names_total),
                format!("{}/{}", total.oracle_roles_passed, total.roles_total)
            )
        } else {
            String::new()
        }
    );
    let observable_names = total.names_total - total.names_unobservable;
    let observable_roles = total.roles_total - total.roles_unobservable;
    eprintln!(
        "{browser}: of the checks the tree can show (an element with a node), names {:.1}% ({}/{}), roles {:.1}% ({}/{}); \
         {} name and {} role checks are on elements the tree flattens (no-node: names+roles)",
        percent(total.names_passed, observable_names),
        total.names_passed,
        observable_names,
        percent(total.roles_passed, observable_roles),
        total.roles_passed,
        observable_roles,
        total.names_unobservable,
        total.roles_unobservable,
    );
    // Floors under today's rates, so that only a real breakage of the browser path fails.
    assert!(
        observable_names > 400,
        "{browser}: too few name checks ran: {observable_names}"
    );
    assert!(
        percent(total.names_passed, observable_names) >= 85.0,
        "{browser}: names fell under 85%"
    );
    assert!(
        percent(total.roles_passed, observable_roles) >= 80.0,
        "{browser}: roles fell under 80%"
    );
}

pub async fn wpt_files(session: &Session) {
    run_wpt(session, false).await;
}

pub async fn wpt_files_with_chromium_oracle(session: &Session) {
    assert_eq!(session.browser, Browser::Chromium);
    run_wpt(session, true).await;
}
