//! The version-1 structured snapshot (`accessibility_snapshot`, docs/protocol.md; JSON Schema in
//! `schema/snapshot-v1.schema.json`), written as JSON or YAML.
//!
//! ```yaml
//! version: 1
//! documents:
//!   - contextId: ...          # opaque browsing-context id
//!     parentContextId: null   # the parent frame's context, null for the top document
//!     url: ...
//!     title: ...
//!     root: {role, name, aria-ref?, states, properties, children}
//! ```
//!
//! Both formats carry the same ordinary mappings, arrays, strings, booleans and numbers. YAML
//! quotes every string key and value, so YAML 1.1 and 1.2 readers keep names such as `yes`, `on`
//! or dates as strings. The schema is `schema/snapshot-v1.schema.json` beside this crate.
//!
//! Writers are iterative: a 100,000-deep tree writes without recursion. YAML switches to flow
//! style (JSON syntax, which YAML reads too) below `YAML_BLOCK_DEPTH` nested nodes, so that
//! indentation cannot grow with the depth of the page.

use crate::tree::{AxNode, AxTree};
use crate::value::{format_number, Value};

/// The JSON Schema of version 1, as checked into the repository.
pub const SCHEMA_V1: &str = include_str!("../schema/snapshot-v1.schema.json");

/// Nested nodes written in YAML block style before switching to flow style.
const YAML_BLOCK_DEPTH: usize = 24;

/// One document of a snapshot: the top page or one of its frames.
#[derive(Clone, Debug)]
pub struct SnapshotDocument<'tree> {
    pub context_id: String,
    pub parent_context_id: Option<String>,
    pub url: String,
    pub title: String,
    pub tree: &'tree AxTree,
}

/// The serialization format.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Format {
    Json,
    Yaml,
}

impl Format {
    /// The formats' names, as `accessibility_snapshot` takes them (src/tools/table.rs lists these
    /// as the argument's choices).
    pub const NAMES: [&'static str; 2] = ["json", "yaml"];

    pub fn as_str(self) -> &'static str {
        match self {
            Format::Json => Self::NAMES[0],
            Format::Yaml => Self::NAMES[1],
        }
    }

    pub fn parse(text: &str) -> Option<Format> {
        [Format::Json, Format::Yaml]
            .into_iter()
            .find(|format| format.as_str() == text)
    }
}

/// Writes a whole snapshot.
pub fn write_snapshot(documents: &[SnapshotDocument<'_>], format: Format) -> String {
    match format {
        Format::Json => write_json(documents),
        Format::Yaml => write_yaml(documents),
    }
}

/// Appends `number` in decimal, as `to_string` would, without the formatting machinery or a
/// string of its own: the core writes a reference and several numbers for every printed line,
/// and each `to_string` was an allocation (docs/performance/warm-read.md, "The core's allocations").
pub fn push_decimal(out: &mut String, number: u64) {
    let mut digits = [0u8; 20];
    let mut start = digits.len();
    let mut rest = number;
    loop {
        start -= 1;
        digits[start] = b'0' + (rest % 10) as u8;
        rest /= 10;
        if rest == 0 {
            break;
        }
    }
    // ASCII digits only, so this is always text.
    if let Ok(text) = std::str::from_utf8(&digits[start..]) {
        out.push_str(text);
    }
}

/// Appends `text` as a double-quoted string that JSON and YAML (1.1 and 1.2) read alike: quotes,
/// backslashes, control characters, the Unicode line separators (line breaks in YAML 1.1) and
/// non-characters are escaped as `\uXXXX` or the short escapes both languages share.
pub fn push_quoted(out: &mut String, text: &str) {
    out.push('"');
    for character in text.chars() {
        match character {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            character
                if character.is_control()
                    || matches!(
                        character,
                        '\u{2028}' | '\u{2029}' | '\u{feff}' | '\u{fffe}' | '\u{ffff}'
                    ) =>
            {
                out.push_str(&format!("\\u{:04x}", character as u32));
            }
            character => out.push(character),
        }
    }
    out.push('"');
}

fn push_value(out: &mut String, value: &Value) {
    match value {
        Value::Bool(value) => out.push_str(if *value { "true" } else { "false" }),
        Value::Number(value) => out.push_str(&format_number(*value)),
        Value::String(value) => push_quoted(out, value),
    }
}

/// Writes `{"key": value, ...}` (flow mapping; valid JSON and YAML).
fn push_flow_map(out: &mut String, entries: &[(&'static str, Value)]) {
    out.push('{');
    for (position, (key, value)) in entries.iter().enumerate() {
        if position > 0 {
            out.push(',');
        }
        push_quoted(out, key);
        out.push(':');
        push_value(out, value);
    }
    out.push('}');
}

/// Writes the start of a node in flow style, up to the opening bracket of its children.
fn push_flow_node_head(out: &mut String, node: &AxNode) {
    out.push_str("{\"role\":");
    push_quoted(out, node.role.as_str());
    out.push_str(",\"name\":");
    push_quoted(out, &node.name);
    if let Some(aria_ref) = &node.aria_ref {
        out.push_str(",\"aria-ref\":");
        push_quoted(out, aria_ref);
    }
    out.push_str(",\"states\":");
    push_flow_map(out, &node.states);
    out.push_str(",\"properties\":");
    push_flow_map(out, &node.properties);
    out.push_str(",\"children\":[");
}

/// Writes a subtree in flow style, iteratively.
fn push_flow_tree(out: &mut String, tree: &AxTree, start: u32) {
    // (node, index of the next child to write)
    let mut stack: Vec<(u32, usize)> = Vec::new();
    match tree.node(start) {
        Some(node) => push_flow_node_head(out, node),
        None => return,
    }
    stack.push((start, 0));
    while let Some((index, next_child)) = stack.last_mut() {
        let node = &tree.nodes[*index as usize];
        match node.children.get(*next_child) {
            Some(&child) => {
                if *next_child > 0 {
                    out.push(',');
                }
                *next_child += 1;
                if let Some(child_node) = tree.node(child) {
                    push_flow_node_head(out, child_node);
                    stack.push((child, 0));
                }
            }
            None => {
                out.push_str("]}");
                stack.pop();
            }
        }
    }
}

/// Writes the snapshot as compact JSON.
pub fn write_json(documents: &[SnapshotDocument<'_>]) -> String {
    let written: Vec<String> = documents.iter().map(write_json_document).collect();
    assemble(Format::Json, &written)
}

/// Writes the snapshot as YAML with every string key and value quoted.
pub fn write_yaml(documents: &[SnapshotDocument<'_>]) -> String {
    let written: Vec<String> = documents.iter().map(write_yaml_document).collect();
    assemble(Format::Yaml, &written)
}

/// Joins documents written one by one (each frame writes its own, in its own browsing context)
/// into a snapshot: for JSON, `{"version":1,"documents":[` + documents joined by `,` + `]}`; for
/// YAML, `"version": 1` and `"documents":` lines followed by the documents as written.
pub fn assemble(format: Format, documents: &[String]) -> String {
    match format {
        Format::Json => {
            let mut out = String::from("{\"version\":1,\"documents\":[");
            out.push_str(&documents.join(","));
            out.push_str("]}");
            out
        }
        Format::Yaml if documents.is_empty() => "\"version\": 1\n\"documents\": []\n".to_string(),
        Format::Yaml => {
            let mut out = String::from("\"version\": 1\n\"documents\":\n");
            for document in documents {
                out.push_str(document);
            }
            out
        }
    }
}

/// One document as compact JSON: an element of the `documents` array.
pub fn write_json_document(document: &SnapshotDocument<'_>) -> String {
    let mut out = String::with_capacity(document.tree.nodes.len() * 80);
    out.push_str("{\"contextId\":");
    push_quoted(&mut out, &document.context_id);
    out.push_str(",\"parentContextId\":");
    match &document.parent_context_id {
        Some(parent) => push_quoted(&mut out, parent),
        None => out.push_str("null"),
    }
    out.push_str(",\"url\":");
    push_quoted(&mut out, &document.url);
    out.push_str(",\"title\":");
    push_quoted(&mut out, &document.title);
    out.push_str(",\"root\":");
    match document.tree.root {
        Some(root) => push_flow_tree(&mut out, document.tree, root),
        None => out.push_str(EMPTY_ROOT_JSON),
    }
    out.push('}');
    out
}

/// The root written for a document whose tree is empty (an anchor that vanished).
const EMPTY_ROOT_JSON: &str =
    "{\"role\":\"document\",\"name\":\"\",\"states\":{},\"properties\":{},\"children\":[]}";

/// One document as a YAML sequence item of `"documents":` (it starts with `  - ` and ends with a
/// line break).
pub fn write_yaml_document(document: &SnapshotDocument<'_>) -> String {
    let mut out = String::with_capacity(document.tree.nodes.len() * 120);
    out.push_str("  - \"contextId\": ");
    push_quoted(&mut out, &document.context_id);
    out.push_str("\n    \"parentContextId\": ");
    match &document.parent_context_id {
        Some(parent) => push_quoted(&mut out, parent),
        None => out.push_str("null"),
    }
    out.push_str("\n    \"url\": ");
    push_quoted(&mut out, &document.url);
    out.push_str("\n    \"title\": ");
    push_quoted(&mut out, &document.title);
    out.push_str("\n    \"root\":");
    match document.tree.root {
        Some(root) => push_yaml_tree(&mut out, document.tree, root, 6),
        None => {
            out.push(' ');
            out.push_str(EMPTY_ROOT_JSON);
            out.push('\n');
        }
    }
    out
}

/// Writes a node as a YAML block mapping whose keys are indented by `indent` spaces, the cursor
/// being just after the `"root":` key that introduces it.
fn push_yaml_tree(out: &mut String, tree: &AxTree, start: u32, indent: usize) {
    enum Step {
        /// Write a node's fields; `after_marker` when it follows a `- ` sequence marker, which
        /// holds its first key on the same line.
        Node {
            index: u32,
            indent: usize,
            depth: usize,
            after_marker: bool,
        },
        /// Write a sequence marker at this indent.
        Marker { indent: usize },
    }
    let mut stack = vec![Step::Node {
        index: start,
        indent,
        depth: 0,
        after_marker: false,
    }];
    while let Some(step) = stack.pop() {
        let (index, indent, depth, after_marker) = match step {
            Step::Marker { indent } => {
                push_spaces(out, indent);
                out.push_str("- ");
                continue;
            }
            Step::Node {
                index,
                indent,
                depth,
                after_marker,
            } => (index, indent, depth, after_marker),
        };
        let Some(node) = tree.node(index) else {
            continue;
        };
        if !after_marker {
            out.push('\n');
            push_spaces(out, indent);
        }
        out.push_str("\"role\": ");
        push_quoted(out, node.role.as_str());
        out.push('\n');
        push_spaces(out, indent);
        out.push_str("\"name\": ");
        push_quoted(out, &node.name);
        out.push('\n');
        if let Some(aria_ref) = &node.aria_ref {
            push_spaces(out, indent);
            out.push_str("\"aria-ref\": ");
            push_quoted(out, aria_ref);
            out.push('\n');
        }
        push_yaml_map(out, indent, "states", &node.states);
        push_yaml_map(out, indent, "properties", &node.properties);
        push_spaces(out, indent);
        out.push_str("\"children\":");
        if node.children.is_empty() {
            out.push_str(" []\n");
            continue;
        }
        if depth + 1 >= YAML_BLOCK_DEPTH {
            // Deep enough: the children go in flow style, on one line.
            out.push_str(" [");
            for (position, &child) in node.children.iter().enumerate() {
                if position > 0 {
                    out.push(',');
                }
                push_flow_tree(out, tree, child);
            }
            out.push_str("]\n");
            continue;
        }
        out.push('\n');
        // Popped in order: marker of child 0, child 0 (whole subtree), marker of child 1, ...
        for &child in node.children.iter().rev() {
            stack.push(Step::Node {
                index: child,
                indent: indent + 2,
                depth: depth + 1,
                after_marker: true,
            });
            stack.push(Step::Marker { indent });
        }
    }
}

fn push_spaces(out: &mut String, count: usize) {
    out.extend(std::iter::repeat_n(' ', count));
}

fn push_yaml_map(out: &mut String, indent: usize, key: &str, entries: &[(&'static str, Value)]) {
    push_spaces(out, indent);
    push_quoted(out, key);
    out.push(':');
    if entries.is_empty() {
        out.push_str(" {}\n");
        return;
    }
    out.push('\n');
    for (entry_key, value) in entries {
        push_spaces(out, indent + 2);
        push_quoted(out, entry_key);
        out.push_str(": ");
        push_value(out, value);
        out.push('\n');
    }
}
