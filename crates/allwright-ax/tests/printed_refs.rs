//! The `refs` field of the text tree's envelope (docs/protocol.md): for every `ref_N` printed in
//! the returned page, in print order, `[N, role, name, focusable]`, with the role and the name
//! as the line shows them. The actions rely on it instead of parsing printed lines, so each case
//! checks the field against the printed body itself.

use allwright_ax::memdom::MemDom;
use allwright_ax::reads::{split_output, text_tree_output, TextTreeRequest};
use allwright_ax::text::push_escaped;
use serde_json::Value;

const PAGE: &str = r#"<!doctype html><html><head><title>Refs</title></head><body>
<h1>Shop</h1>
<nav aria-label="Main"><a href="/a">Home</a> <a>No href</a></nav>
<button>Say "hi"
now</button>
<div role="button" tabindex="-1">Custom</div>
<label>Agree <input type="checkbox" checked></label>
<select aria-label="Size"><option>S</option><option selected>M</option></select>
<ul><li><a href="/x">Inside a named item</a></li></ul>
<input type="hidden" value="never printed">
<button disabled>Off</button>
</body></html>"#;

/// One printed reference, as the envelope gives it.
#[derive(Debug, PartialEq)]
struct Printed {
    number: u64,
    role: String,
    name: String,
    focusable: bool,
}

fn request(max_chars: Option<u32>, page: u32) -> TextTreeRequest<'static> {
    TextTreeRequest {
        max_chars,
        page,
        url: "https://example.com/",
        title: "Refs",
        ..TextTreeRequest::whole_page()
    }
}

/// The envelope's `refs`, and the body.
fn read(output: &str) -> (Vec<Printed>, String) {
    let (envelope, body) = split_output(output);
    let envelope: Value = serde_json::from_str(envelope).expect("the envelope is JSON");
    assert_eq!(envelope["ok"], Value::Bool(true), "{envelope}");
    let refs = envelope["refs"]
        .as_array()
        .expect("refs is an array")
        .iter()
        .map(|tuple| {
            let tuple = tuple.as_array().expect("each ref is an array");
            assert_eq!(tuple.len(), 4, "{tuple:?}");
            let focusable = tuple[3].as_u64().expect("focusable is a number");
            assert!(focusable <= 1, "{tuple:?}");
            Printed {
                number: tuple[0].as_u64().expect("N is a number"),
                role: tuple[1].as_str().expect("role is a string").to_string(),
                name: tuple[2].as_str().expect("name is a string").to_string(),
                focusable: focusable == 1,
            }
        })
        .collect();
    (refs, body.to_string())
}

/// Checks that `refs` says exactly what the body prints: the same references in the same order,
/// each line starting with the role, then the escaped name in quotes (or no name), then the
/// reference.
fn assert_matches_body(refs: &[Printed], body: &str) {
    let printed_lines: Vec<&str> = body
        .lines()
        .filter(|line| line.contains(" [ref_"))
        .collect();
    assert_eq!(printed_lines.len(), refs.len(), "{refs:?}\n{body}");
    for (printed, line) in refs.iter().zip(&printed_lines) {
        let mut expected = format!("{} ", printed.role);
        if !printed.name.is_empty() {
            expected.push('"');
            push_escaped(&mut expected, &printed.name);
            expected.push_str("\" ");
        }
        expected.push_str(&format!("[ref_{}]", printed.number));
        assert!(
            line.trim_start().starts_with(&expected),
            "line {line:?} does not start with {expected:?}"
        );
    }
}

#[test]
fn refs_list_every_printed_reference_in_print_order() {
    let dom = MemDom::parse(PAGE);
    let (refs, body) = read(&text_tree_output(&dom, &request(None, 1)));
    assert_matches_body(&refs, &body);
    let find = |role: &str, name: &str| {
        refs.iter()
            .find(|printed| printed.role == role && printed.name == name)
            .unwrap_or_else(|| panic!("no {role} {name:?} in {refs:?}"))
    };
    // The name is unescaped: the quote and the line break are the page's own characters.
    assert!(find("button", "Say \"hi\" now").focusable);
    // A heading prints no ref (docs/protocol/reading.md, "Which lines print their reference"), so
    // `refs` does not list it either.
    assert!(refs.iter().all(|printed| printed.role != "heading"));
    assert!(find("link", "Home").focusable);
    // A tabindex of -1 is focusable (by script), as the core's rule says.
    assert!(find("button", "Custom").focusable);
    assert!(find("checkbox", "Agree").focusable);
    assert!(find("combobox", "Size").focusable);
    // A disabled button cannot take focus.
    assert!(!find("button", "Off").focusable);
    // References are numbered from the counter in tree order on a first read, one for every
    // element of the tree, printed or not: the printed ones are increasing, and the lines that
    // print none (the heading, the list item) still took their numbers.
    let numbers: Vec<u64> = refs.iter().map(|printed| printed.number).collect();
    assert!(
        numbers.windows(2).all(|pair| pair[0] < pair[1]),
        "{numbers:?}"
    );
    assert!(
        numbers.first().is_some_and(|&first| first > 1),
        "{numbers:?}"
    );
}

#[test]
fn refs_follow_the_page_and_its_shortened_names() {
    let long_name = "Lorem ipsum ".repeat(40);
    let html = format!(
        "<!doctype html><body>{}<button>{long_name}</button></body>",
        (0..40)
            .map(|index| format!("<button>Item {index}</button>"))
            .collect::<String>()
    );
    let dom = MemDom::parse(&html);
    let whole = read(&text_tree_output(&dom, &request(None, 1))).0;
    let mut paged = Vec::new();
    let mut page = 1;
    loop {
        let output = text_tree_output(&dom, &request(Some(300), page));
        let (refs, body) = read(&output);
        assert_matches_body(&refs, &body);
        assert!(!refs.is_empty(), "page {page} prints no reference:\n{body}");
        paged.extend(refs);
        if !split_output(&output).0.contains("\"hasMore\":true") {
            break;
        }
        page += 1;
        assert!(page < 100, "the pages never end");
    }
    assert!(page > 1, "the tree fits one page; the case needs several");
    // Over all pages, every reference once, in the same order as the whole tree.
    let numbers = |refs: &[Printed]| {
        refs.iter()
            .map(|printed| printed.number)
            .collect::<Vec<_>>()
    };
    assert_eq!(numbers(&paged), numbers(&whole));
    // The long name was shortened on its line, and `refs` gives what the line shows.
    let long = paged.last().expect("the long button");
    assert!(long.name.ends_with('…'), "{long:?}");
    assert!(long.name.chars().count() < long_name.trim().chars().count());
    assert!(long_name.starts_with(long.name.trim_end_matches('…')));
}

#[test]
fn refs_are_empty_when_nothing_is_referenced() {
    let dom = MemDom::parse("<!doctype html><body>Only text</body>");
    let (refs, body) = read(&text_tree_output(&dom, &request(None, 1)));
    assert!(refs.is_empty(), "{refs:?}");
    assert!(body.contains("Only text"), "{body}");
}
