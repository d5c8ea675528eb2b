//! What ARCHITECTURE.md states about the core as absences, checked:
//! - no web-sys, js-sys or wasm-bindgen in the core's dependency tree, on the host or on wasm32,
//!   with every feature on ("Invariants");
//! - no I/O in the core's source: no `std::fs`, `std::net`, `std::process`, `std::io`,
//!   `std::env`, and no printing ("Invariants");
//! - the module graph of "Dependencies": `dom` uses no other module, the other leaves only
//!   `dom`, and every module uses exactly the modules the table below allows. A new edge fails
//!   here until ARCHITECTURE.md and the table say it.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

/// Crates the core must never depend on (ARCHITECTURE.md, "Invariants").
const FORBIDDEN_CRATES: &[&str] = &["web-sys", "js-sys", "wasm-bindgen"];

/// Paths and macros that would mean I/O in the core.
const FORBIDDEN_IN_SOURCE: &[&str] = &[
    "std::fs",
    "std::net",
    "std::process",
    "std::io",
    "std::env",
    "print!",
    "println!",
    "eprint!",
    "eprintln!",
    "dbg!",
];

/// The core's module graph: module -> the modules it may use (`crate::module`). This is the
/// "Dependencies" section of ARCHITECTURE.md as data. `context`, `role`, `name` and `hidden` use
/// one another (one memoised layer: each asks `Context` for the others' cached answers);
/// everything else is layered. `lib.rs`, the crate root, is not listed: it re-exports everything.
const MODULE_GRAPH: &[(&str, &[&str])] = &[
    ("dom", &[]),
    ("aria", &[]),
    ("value", &[]),
    ("css", &[]),
    ("diagnostic", &["dom"]),
    ("html", &["dom"]),
    ("composed", &["diagnostic", "dom"]),
    (
        "context",
        &[
            "aria",
            "composed",
            "diagnostic",
            "dom",
            "hidden",
            "name",
            "role",
        ],
    ),
    ("hidden", &["context", "dom"]),
    ("role", &["aria", "context", "dom", "html", "name"]),
    ("name", &["aria", "composed", "context", "dom", "html"]),
    ("state", &["aria", "context", "dom", "html"]),
    (
        "tree",
        &["aria", "context", "dom", "html", "name", "state", "value"],
    ),
    ("conversation", &["aria", "dom", "tree"]),
    ("printed_reference", &["aria", "tree"]),
    (
        "text",
        &[
            "aria",
            "conversation",
            "dom",
            "printed_reference",
            "tree",
            "value",
        ],
    ),
    ("tree_diff", &["text"]),
    ("snapshot", &["tree", "value"]),
    ("memdom", &["composed", "css", "dom", "html"]),
    (
        "reads",
        &[
            "dom",
            "lib",
            "role",
            "snapshot",
            "text",
            "tree",
            "tree_diff",
        ],
    ),
];

/// The crate root's own items (lib.rs): the two entry points that build a text tree and a
/// snapshot tree. A module that names them uses `lib`.
const ROOT_ITEMS: &[&str] = &["generate_accessibility_tree", "snapshot_tree"];

fn source_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// Every `.rs` file of the core's source, with its module: `name.rs` is `name`, anything under
/// `memdom/` is `memdom`.
fn source_files() -> Vec<(String, PathBuf)> {
    let mut files = Vec::new();
    let mut folders = vec![source_dir()];
    while let Some(folder) = folders.pop() {
        let entries = std::fs::read_dir(&folder)
            .unwrap_or_else(|error| panic!("cannot read {}: {error}", folder.display()));
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                folders.push(path);
                continue;
            }
            if path.extension().is_none_or(|extension| extension != "rs") {
                continue;
            }
            let relative = path.strip_prefix(source_dir()).unwrap_or(&path);
            let first = relative
                .components()
                .next()
                .map(|part| part.as_os_str().to_string_lossy().into_owned())
                .unwrap_or_default();
            files.push((first.trim_end_matches(".rs").to_string(), path));
        }
    }
    files.sort();
    files
}

/// The file's code without its comments (line comments and doc comments; the core has no block
/// comments), so that a comment may name any module.
fn code_of(path: &Path) -> String {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|error| panic!("cannot read {}: {error}", path.display()));
    text.lines()
        .map(|line| match line.find("//") {
            Some(start) => &line[..start],
            None => line,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The modules a piece of code names with `crate::module` or `crate::{module, ...}`.
fn crate_modules_used(code: &str) -> BTreeSet<String> {
    let mut used = BTreeSet::new();
    let mut rest = code;
    while let Some(start) = rest.find("crate::") {
        rest = &rest[start + "crate::".len()..];
        let paths = if let Some(group) = rest.strip_prefix('{') {
            group.split('}').next().unwrap_or("")
        } else {
            rest
        };
        for path in paths.split(',') {
            let module: String = path
                .trim_start()
                .chars()
                .take_while(|character| character.is_ascii_alphanumeric() || *character == '_')
                .collect();
            if ROOT_ITEMS.contains(&module.as_str()) {
                used.insert("lib".to_string());
            } else if !module.is_empty() {
                used.insert(module);
            }
            if !rest.starts_with('{') {
                break;
            }
        }
    }
    used
}

#[test]
fn the_module_graph_is_the_one_architecture_md_states() {
    let allowed: BTreeMap<&str, BTreeSet<String>> = MODULE_GRAPH
        .iter()
        .map(|(module, uses)| (*module, uses.iter().map(|used| used.to_string()).collect()))
        .collect();
    let mut actual: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (module, path) in source_files() {
        if module == "lib" {
            continue;
        }
        let mut used = crate_modules_used(&code_of(&path));
        used.remove(&module);
        actual.entry(module).or_default().extend(used);
    }
    let mut problems = Vec::new();
    for (module, used) in &actual {
        let Some(allowed_uses) = allowed.get(module.as_str()) else {
            problems.push(format!("module `{module}` is not in MODULE_GRAPH"));
            continue;
        };
        for extra in used.difference(allowed_uses) {
            problems.push(format!(
                "`{module}` uses `{extra}`, which the graph does not allow"
            ));
        }
        for missing in allowed_uses.difference(used) {
            problems.push(format!(
                "`{module}` no longer uses `{missing}`: remove the edge from the graph"
            ));
        }
    }
    for module in allowed.keys() {
        if !actual.contains_key(*module) {
            problems.push(format!(
                "MODULE_GRAPH lists `{module}`, which has no source file"
            ));
        }
    }
    let graph: Vec<String> = actual
        .iter()
        .map(|(module, used)| {
            let used: Vec<&str> = used.iter().map(String::as_str).collect();
            format!("{module} -> {}", used.join(", "))
        })
        .collect();
    assert!(
        problems.is_empty(),
        "the core's module graph differs from ARCHITECTURE.md (\"Dependencies\"); update both \
         the document and MODULE_GRAPH, or undo the edge:\n{}\n\nactual graph:\n{}",
        problems.join("\n"),
        graph.join("\n")
    );
}

#[test]
fn dom_is_the_bottom_and_uses_no_other_module() {
    let code = code_of(&source_dir().join("dom.rs"));
    assert!(
        !code.contains("crate::") && !code.contains("super::"),
        "dom.rs must not use any other module of the core (ARCHITECTURE.md, \"Dependencies\")"
    );
}

#[test]
fn the_core_does_no_io() {
    let mut found = Vec::new();
    for (_, path) in source_files() {
        let code = code_of(&path);
        for forbidden in FORBIDDEN_IN_SOURCE {
            if code.contains(forbidden) {
                found.push(format!("{}: {forbidden}", path.display()));
            }
        }
    }
    assert!(
        found.is_empty(),
        "the core does no I/O (ARCHITECTURE.md, \"Invariants\"):\n{}",
        found.join("\n")
    );
}

/// The crates in `cargo tree -p package -e normal`, every feature on, for one target (`None`:
/// the host).
fn dependency_tree(package: &str, target: Option<&str>) -> BTreeSet<String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    let mut command = Command::new(cargo);
    command
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(["tree", "--offline", "--all-features", "-e", "normal"])
        .args(["--prefix", "none", "--format", "{p}", "-p", package]);
    if let Some(target) = target {
        command.args(["--target", target]);
    }
    let output = command
        .output()
        .unwrap_or_else(|error| panic!("cannot run cargo tree: {error}"));
    assert!(
        output.status.success(),
        "cargo tree failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|line| line.split_whitespace().next())
        .map(str::to_string)
        .collect()
}

#[test]
fn no_browser_bindings_in_the_core_dependency_tree() {
    for target in [None, Some("wasm32-unknown-unknown")] {
        let crates = dependency_tree("allwright-ax", target);
        assert!(
            crates.contains("allwright-ax"),
            "cargo tree did not list the core itself: {crates:?}"
        );
        for forbidden in FORBIDDEN_CRATES {
            assert!(
                !crates.contains(*forbidden),
                "allwright-ax depends on {forbidden} ({}): the core must stay free of browser \
                 bindings (ARCHITECTURE.md, \"Invariants\")",
                target.unwrap_or("host")
            );
        }
    }
    // The check can see such a crate: the glue does depend on wasm-bindgen for wasm32.
    let glue = dependency_tree("allwright-ax-wasm", Some("wasm32-unknown-unknown"));
    assert!(glue.contains("wasm-bindgen"), "{glue:?}");
}
