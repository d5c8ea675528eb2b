//! Property tests over random DOM trees: cyclic references, deep nesting, huge attribute values
//! and odd Unicode. Whatever the page, the core never panics, the JSON snapshot parses and is
//! valid against the schema, the YAML snapshot reads back equal to it, and every line of the text
//! tree parses with exactly the structure we wrote (no page text forges a line or a reference).

use allwright_ax::memdom::MemDom;
use allwright_ax::snapshot::SCHEMA_V1;
use allwright_ax::{
    generate_accessibility_tree, snapshot_tree, write_snapshot, Dom, Filter, Format, NodeId,
    SnapshotDocument, TextTreeOptions,
};
use proptest::prelude::*;
use serde_json::Value;

const TAGS: &[&str] = &[
    "div",
    "span",
    "button",
    "a",
    "input",
    "select",
    "option",
    "optgroup",
    "label",
    "ul",
    "ol",
    "li",
    "table",
    "tr",
    "td",
    "th",
    "thead",
    "details",
    "summary",
    "slot",
    "dialog",
    "img",
    "h1",
    "h4",
    "section",
    "form",
    "fieldset",
    "legend",
    "textarea",
    "iframe",
    "nav",
    "header",
    "footer",
    "p",
    "figure",
    "figcaption",
    "output",
    "progress",
    "meter",
    "area",
    "map",
    "my-element",
    "style",
];

const ATTRIBUTES: &[&str] = &[
    "id",
    "role",
    "aria-label",
    "aria-labelledby",
    "aria-describedby",
    "aria-owns",
    "aria-hidden",
    "hidden",
    "style",
    "inert",
    "tabindex",
    "type",
    "value",
    "checked",
    "selected",
    "disabled",
    "open",
    "slot",
    "name",
    "href",
    "title",
    "alt",
    "placeholder",
    "for",
    "aria-checked",
    "aria-expanded",
    "aria-level",
    "aria-valuenow",
    "aria-controls",
    "contenteditable",
    "size",
    "multiple",
    "scope",
    "aria-pressed",
    "aria-description",
    "list",
    "aria-haspopup",
];

/// Values worth trying: id pools that make references (and cycles) likely, role tokens valid and
/// not, styles that hide, and arbitrary text.
fn attribute_value() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => prop::sample::select(vec!["a", "b", "c", "d", "a b", "b a c", "c c", "a  d\t"]).prop_map(str::to_string),
        2 => prop::sample::select(vec![
            "button", "none", "presentation", "listbox", "option", "combobox", "widget", "heading",
            "dialog", "menu", "img", "list listitem", "BUTTON", "checkbox", "tab", "grid", "row", "cell",
            "display:none", "visibility:hidden", "display:contents", "content-visibility:hidden",
            "visibility:visible", "pointer-events:none", "--memdom-box: 0 5000 10 10", "true", "false",
            "mixed", "2", "-1", "0", "text", "password", "file", "checkbox", "radio", "range", "email",
            "NaN", "1e309", "",
        ]).prop_map(str::to_string),
        2 => any::<String>(),
        1 => "[\\[\\]ref_0-9\"\\\\\n\r\u{2028}]{0,20}",
        1 => (1usize..20_000).prop_map(|length| "x\u{1F600}\"".repeat(length / 3 + 1)),
    ]
}

#[derive(Clone, Debug)]
enum Operation {
    Element {
        parent: usize,
        tag: usize,
        attributes: Vec<(usize, String)>,
    },
    Text {
        parent: usize,
        text: String,
    },
    Shadow {
        host: usize,
    },
}

fn operation() -> impl Strategy<Value = Operation> {
    prop_oneof![
        6 => (any::<usize>(), 0..TAGS.len(), prop::collection::vec((0..ATTRIBUTES.len(), attribute_value()), 0..4))
            .prop_map(|(parent, tag, attributes)| Operation::Element { parent, tag, attributes }),
        3 => (any::<usize>(), prop_oneof![any::<String>(), "[ \n\tA-Za-z\\[\\]_0-9\"]{0,30}"])
            .prop_map(|(parent, text)| Operation::Text { parent, text }),
        1 => any::<usize>().prop_map(|host| Operation::Shadow { host }),
    ]
}

/// Builds a DOM from operations. `parent` picks among the nodes so far; a bias towards the last
/// element makes deep chains common.
fn build(operations: &[Operation]) -> MemDom {
    let mut dom = MemDom::new();
    let html = dom.append_element(dom.document(), "html", &[]);
    let body = dom.append_element(html, "body", &[]);
    let mut containers: Vec<NodeId> = vec![body];
    for operation in operations {
        let pick = |choice: usize, containers: &[NodeId]| {
            if choice % 3 == 0 {
                containers[containers.len() - 1]
            } else {
                containers[choice % containers.len()]
            }
        };
        match operation {
            Operation::Element {
                parent,
                tag,
                attributes,
            } => {
                let parent = pick(*parent, &containers);
                let attributes: Vec<(&str, &str)> = attributes
                    .iter()
                    .map(|(name, value)| (ATTRIBUTES[*name], value.as_str()))
                    .collect();
                let element = dom.append_element(parent, TAGS[*tag], &attributes);
                containers.push(element);
            }
            Operation::Text { parent, text } => {
                let parent = pick(*parent, &containers);
                dom.append_text(parent, text);
            }
            Operation::Shadow { host } => {
                let host = pick(*host, &containers);
                if dom.node_kind(host) == allwright_ax::NodeKind::Element {
                    let root = dom.attach_shadow(host);
                    containers.push(root);
                }
            }
        }
    }
    dom
}

/// Checks that a text-tree line has exactly our structure:
/// `INDENT ROLE [ "NAME"] [ [ref_N]] ( KEY="VALUE")*`, or the overlays banner.
fn parse_line(line: &str, known_refs: &std::collections::HashSet<String>) -> Result<(), String> {
    if line == "[open overlays]" {
        return Ok(());
    }
    let rest = line.trim_start_matches(' ');
    let role_end = rest.find(' ').unwrap_or(rest.len());
    let role = &rest[..role_end];
    if role.is_empty()
        || !role
            .chars()
            .all(|character| character.is_ascii_lowercase() || character == '-')
    {
        return Err(format!("bad role {role:?}"));
    }
    let mut rest = &rest[role_end..];
    if let Some(after) = rest.strip_prefix(" \"") {
        rest = skip_quoted(after)?;
    }
    if let Some(after) = rest.strip_prefix(" [") {
        let close = after.find(']').ok_or("unclosed reference")?;
        let reference = &after[..close];
        if !known_refs.contains(reference) {
            return Err(format!("reference {reference:?} was not issued"));
        }
        rest = &after[close + 1..];
    }
    // A line shortened to fit maxChars may end by saying that its attributes were left out.
    if rest == " …" {
        return Ok(());
    }
    while !rest.is_empty() {
        let after = rest.strip_prefix(' ').ok_or(format!("junk {rest:?}"))?;
        let equals = after.find("=\"").ok_or(format!("junk {after:?}"))?;
        let key = &after[..equals];
        if key.is_empty() || !key.chars().all(|character| character.is_ascii_alphabetic()) {
            return Err(format!("bad key {key:?}"));
        }
        rest = skip_quoted(&after[equals + 2..])?;
    }
    Ok(())
}

/// Skips an escaped string body up to and including its closing quote.
fn skip_quoted(text: &str) -> Result<&str, String> {
    let mut characters = text.char_indices();
    while let Some((index, character)) = characters.next() {
        match character {
            '\\' => {
                characters.next();
            }
            '"' => return Ok(&text[index + 1..]),
            '\n' | '\r' | '\u{2028}' | '\u{2029}' | '\u{85}' => {
                return Err("raw line break inside a string".into())
            }
            '[' if text[index + 1..].to_ascii_lowercase().starts_with("ref_") => {
                return Err("unescaped [ref_ inside a string".into())
            }
            _ => {}
        }
    }
    Err("unclosed string".into())
}

fn depth_of(value: &Value) -> usize {
    let mut deepest = 0;
    let mut stack = vec![(value, 1usize)];
    while let Some((node, depth)) = stack.pop() {
        deepest = deepest.max(depth);
        match node {
            Value::Array(items) => stack.extend(items.iter().map(|item| (item, depth + 1))),
            Value::Object(map) => stack.extend(map.values().map(|item| (item, depth + 1))),
            _ => {}
        }
    }
    deepest
}

fn check_page(
    operations: &[Operation],
    max_chars: Option<usize>,
    validator: &jsonschema::Validator,
) {
    let dom = build(operations);
    // Text tree, every filter, with and without paging.
    for filter in [Filter::All, Filter::Visible, Filter::Interactive] {
        let mut issued = std::collections::HashSet::new();
        let options = TextTreeOptions {
            filter,
            max_chars,
            ..TextTreeOptions::default()
        };
        let tree = generate_accessibility_tree(&dom, None, &options, &mut |node| {
            let reference = format!("ref_{}", node.0);
            issued.insert(reference.clone());
            reference
        })
        .expect("the document always has a tree");
        if let Some(max_chars) = max_chars {
            assert!(
                tree.tree.chars().count() <= max_chars.max(allwright_ax::text::MIN_MAX_CHARS),
                "page over maxChars: {:?}",
                tree.tree
            );
        }
        for line in tree.tree.lines() {
            if let Err(problem) = parse_line(line, &issued) {
                panic!("{problem} in line {line:?}");
            }
        }
    }
    // Structured snapshot.
    let (tree, _) = snapshot_tree(&dom);
    let document = SnapshotDocument {
        context_id: "ctx\"1".to_string(),
        parent_context_id: None,
        url: "https://example.test/\u{2028}".to_string(),
        title: "t".to_string(),
        tree: &tree,
    };
    let json_text = write_snapshot(std::slice::from_ref(&document), Format::Json);
    let mut deserializer = serde_json::Deserializer::from_str(&json_text);
    deserializer.disable_recursion_limit();
    let json: Value =
        serde::Deserialize::deserialize(&mut deserializer).expect("the JSON snapshot parses");
    let errors: Vec<String> = validator
        .iter_errors(&json)
        .map(|error| error.to_string())
        .take(3)
        .collect();
    assert!(errors.is_empty(), "schema errors: {errors:?}");
    // serde_yaml stops at 128 levels of nesting: compare the formats where it can read.
    if depth_of(&json) < 120 {
        let yaml_text = write_snapshot(&[document], Format::Yaml);
        let yaml: Value = serde_yaml::from_str(&yaml_text).expect("the YAML snapshot parses");
        assert_eq!(yaml, json, "YAML and JSON differ");
    }
}

fn validator() -> jsonschema::Validator {
    let schema: Value = serde_json::from_str(SCHEMA_V1).expect("schema is JSON");
    jsonschema::validator_for(&schema).expect("schema compiles")
}

/// Runs the property on a thread with room for the recursive JSON and schema readers of the
/// test itself (the core needs none of it).
fn on_big_stack(test: impl FnOnce() + Send + 'static) {
    let handle = std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(test)
        .expect("thread starts");
    if let Err(panic) = handle.join() {
        std::panic::resume_unwind(panic);
    }
}

#[test]
fn random_pages_never_break_the_core_or_its_outputs() {
    on_big_stack(|| {
        let validator = validator();
        let config = ProptestConfig {
            cases: 256,
            failure_persistence: None,
            ..ProptestConfig::default()
        };
        let mut runner = proptest::test_runner::TestRunner::new(config);
        let strategy = (
            prop::collection::vec(operation(), 0..120),
            prop::option::of(1usize..400),
        );
        let result = runner.run(&strategy, |(operations, max_chars)| {
            check_page(&operations, max_chars, &validator);
            Ok(())
        });
        if let Err(failure) = result {
            panic!("{failure}");
        }
    });
}

#[test]
fn long_chains_of_random_nodes_stay_total() {
    on_big_stack(|| {
        let validator = validator();
        let config = ProptestConfig {
            cases: 12,
            failure_persistence: None,
            ..ProptestConfig::default()
        };
        let mut runner = proptest::test_runner::TestRunner::new(config);
        // Parent choice 0 always picks the last container: a chain as deep as the operations.
        let chained = prop::collection::vec(operation(), 300..900).prop_map(|operations| {
            operations
                .into_iter()
                .map(|operation| match operation {
                    Operation::Element {
                        tag, attributes, ..
                    } => Operation::Element {
                        parent: 0,
                        tag,
                        attributes,
                    },
                    Operation::Text { text, .. } => Operation::Text { parent: 0, text },
                    Operation::Shadow { .. } => Operation::Shadow { host: 0 },
                })
                .collect::<Vec<_>>()
        });
        let result = runner.run(&chained, |operations| {
            check_page(&operations, Some(2_000), &validator);
            Ok(())
        });
        if let Err(failure) = result {
            panic!("{failure}");
        }
    });
}

/// Characters that could forge a reference or a line if printed raw (issue 12, item 6): square
/// brackets and their look-alikes, the letters of `ref_` (ASCII and fullwidth), digits, Unicode
/// format characters (category Cf: zero-width space and joiners, word joiner, soft hyphen,
/// bidirectional overrides, byte order mark, a tag character), every line or paragraph break
/// (LF, CR, VT, FF, NEL, U+2028, U+2029), quotes, backslashes and spaces.
fn forging_text() -> impl Strategy<Value = String> {
    let pieces = prop::sample::select(vec![
        "[",
        "]",
        "\u{ff3b}",
        "\u{ff3d}",
        "\u{27e6}",
        "\u{3010}",
        "ref_",
        "REF_",
        "re",
        "f_",
        "\u{ff52}\u{ff45}\u{ff46}_",
        "[\u{ff52}\u{ff45}\u{ff46}_",
        "[r\u{0435}f_",
        "r\u{0435}f_",
        "12",
        "7",
        "\u{200b}",
        "\u{200c}",
        "\u{200d}",
        "\u{2060}",
        "\u{00ad}",
        "\u{202e}",
        "\u{2066}",
        "\u{feff}",
        "\u{e0001}",
        "\n",
        "\r",
        "\u{0b}",
        "\u{0c}",
        "\u{85}",
        "\u{2028}",
        "\u{2029}",
        "\"",
        "\\",
        " ",
        "button \"x\" ",
        "a",
    ]);
    prop::collection::vec(pieces, 0..12).prop_map(|pieces| pieces.concat())
}

/// One element per line: its kind picks which of its strings are random.
fn forging_element() -> impl Strategy<Value = (usize, String, String)> {
    (0usize..5, forging_text(), forging_text())
}

/// The HTML-escaped form of `text` for an attribute value or text content.
fn html_escaped(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('"', "&quot;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// Splits on every character a reader could take for the end of a line.
fn printed_lines(tree: &str) -> Vec<&str> {
    tree.split([
        '\n', '\r', '\u{0b}', '\u{0c}', '\u{85}', '\u{2028}', '\u{2029}',
    ])
    .collect()
}

#[test]
fn names_and_values_of_forging_characters_never_make_a_line_or_a_reference() {
    let config = ProptestConfig {
        cases: 512,
        failure_persistence: None,
        ..ProptestConfig::default()
    };
    let mut runner = proptest::test_runner::TestRunner::new(config);
    let strategy = prop::collection::vec(forging_element(), 1..12);
    let result = runner.run(&strategy, |elements| {
        let mut html = String::new();
        for (kind, first, second) in &elements {
            let (first, second) = (html_escaped(first), html_escaped(second));
            html.push_str(&match kind {
                0 => format!("<button aria-label=\"{first}\"></button>"),
                1 => format!("<a href=\"/{second}\" aria-label=\"{first}\"></a>"),
                2 => format!(
                    "<input aria-label=\"{first}\" value=\"{second}\" placeholder=\"p{second}\">"
                ),
                3 => format!("<img alt=\"{first}\">"),
                _ => format!("<p>{first}</p>"),
            });
        }
        let dom = MemDom::parse(&html);
        let tree =
            generate_accessibility_tree(&dom, None, &TextTreeOptions::default(), &mut |node| {
                format!("ref_{}", node.0)
            })
            .map_err(|error| TestCaseError::fail(error.to_string()))?;
        // Every node of the tree (the document root has no line) is one line, and one line is
        // one node, except that a paragraph shows its lone run of text on its own line and an
        // empty paragraph prints nothing.
        let (nodes, _) = snapshot_tree(&dom);
        let merged_texts = nodes
            .nodes
            .iter()
            .filter(|node| {
                node.role.as_str() == "paragraph"
                    && matches!(node.children.as_slice(), [only]
                        if nodes.nodes[*only as usize].role.as_str() == "text")
            })
            .count();
        let empty_paragraphs = nodes
            .nodes
            .iter()
            .filter(|node| node.role.as_str() == "paragraph" && node.children.is_empty())
            .count();
        let lines = printed_lines(&tree.tree);
        let printed = if tree.tree.is_empty() { 0 } else { lines.len() };
        prop_assert_eq!(
            printed,
            nodes.nodes.len() - 1 - merged_texts - empty_paragraphs,
            "{}\n{}",
            html,
            tree.tree
        );
        // The only `[ref_` of a line is its own reference, right after the quoted name; text
        // and paragraph lines have none (docs/protocol/reading.md, "Which lines print their reference").
        let mut references = tree.refs.iter();
        for line in &lines {
            let own = if line.trim_start().starts_with("text ")
                || line.trim_start().starts_with("paragraph")
            {
                None
            } else {
                references.next()
            };
            match own {
                Some(reference) => {
                    let token = format!("[ref_{}]", reference.node.0);
                    prop_assert_eq!(line.matches("[ref_").count(), 1, "{}", line);
                    prop_assert!(line.contains(&token), "{} lacks {}", line, token);
                }
                None => prop_assert_eq!(line.matches("[ref_").count(), 0, "{}", line),
            }
            // Nor can a bracket start anything that reads like `ref` in other letters
            // (fullwidth, Cyrillic `е`): apart from the line's own reference, a raw `[` is
            // never followed by `ref` in any case or by a character outside ASCII.
            let without_own = match own {
                Some(reference) => line.replacen(&format!("[ref_{}]", reference.node.0), "", 1),
                None => line.to_string(),
            };
            for (index, _) in without_own.match_indices('[') {
                let after = &without_own[index + 1..];
                let reads_as_reference = after.chars().next().is_some_and(|next| !next.is_ascii())
                    || after
                        .get(..3)
                        .is_some_and(|next| next.eq_ignore_ascii_case("ref"));
                prop_assert!(
                    !reads_as_reference,
                    "{} has a bracket that reads as a reference",
                    line
                );
            }
            for look_alike in [
                '\u{ff3b}', '\u{ff3d}', '\u{27e6}', '\u{3010}', '\u{200b}', '\u{feff}',
            ] {
                prop_assert!(
                    !line.contains(look_alike),
                    "{} prints {:?} raw",
                    line,
                    look_alike
                );
            }
        }
        Ok(())
    });
    if let Err(failure) = result {
        panic!("{failure}");
    }
}
