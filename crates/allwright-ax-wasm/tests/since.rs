//! A read since a snapshot through the glue's envelope (docs/protocol.md, "Reads since a
//! snapshot"): the records written to the caller's buffer and counted in `lineCount`, then a
//! second read against them that answers only the changes, their refs and `removedRefs`, or the
//! whole tree with `full` and `fullReason` when the changes are most of the page or exceed
//! `maxChars`.

use allwright_ax::memdom::MemDom;
use allwright_ax::NodeId;
use allwright_ax_wasm::api::{split_output, text_tree_output_into, TextTreeRequest};
use serde_json::Value;

const PAGE: &str = r#"<main aria-label="Shop"><h1>Shop</h1>
<ul id="list"><li>Apples</li><li>Pears</li><li>Plums</li><li>Kiwis</li><li>Limes</li></ul>
<button id="buy">Buy</button><p>Some text that stays the same between the two reads.</p>
<p>More text that stays the same between the two reads, to make the page longer.</p></main>"#;

/// Identities as the content script gives them: one per node, stable across reads.
fn identities(dom: &MemDom) -> Vec<u32> {
    (1..=allwright_ax::Dom::node_count(dom) as u32).collect()
}

/// Ref numbers kept across reads, as the registry keeps them: element index + 1.
fn known_refs(dom: &MemDom) -> Vec<u32> {
    (0..allwright_ax::Dom::node_count(dom) as u32)
        .flat_map(|node| [node, node + 1])
        .collect()
}

fn read(
    dom: &MemDom,
    previous: Option<&[u32]>,
    max_chars: Option<u32>,
) -> (Value, String, Vec<u32>) {
    let identities = identities(dom);
    let known = known_refs(dom);
    let request = TextTreeRequest {
        max_chars,
        known_refs: &known,
        ref_counter: 10_000,
        url: "https://example.com/",
        title: "Since",
        identities: &identities,
        previous_lines: previous,
        ..TextTreeRequest::whole_page()
    };
    let mut records = vec![0u32; identities.len() * 5];
    let output = text_tree_output_into(dom, &request, &mut records);
    let (envelope, body) = split_output(&output);
    let envelope: Value = serde_json::from_str(envelope).expect("the envelope is JSON");
    assert_eq!(envelope["ok"], Value::Bool(true), "{envelope}");
    let count = envelope["lineCount"].as_u64().expect("lineCount") as usize;
    assert_eq!(count, body.lines().count().max(count), "{body}");
    records.truncate(count * 5);
    (envelope, body.to_string(), records)
}

fn element(dom: &MemDom, id: &str) -> NodeId {
    dom.element_by_id_attribute(id).expect("fixture element")
}

#[test]
fn the_second_read_answers_only_what_changed() {
    let dom = MemDom::parse(PAGE);
    let (first, body, records) = read(&dom, None, None);
    assert_eq!(
        records.len() / 5,
        body.lines().count(),
        "one record per line"
    );
    assert!(first["result"].get("full").is_none(), "{first}");

    let (same, same_body, _) = read(&dom, Some(&records), None);
    assert_eq!(same["result"]["full"], Value::Bool(false));
    assert_eq!(same["result"]["unchanged"], Value::Bool(true));
    assert_eq!(same_body, "");

    let mut changed = MemDom::parse(PAGE);
    changed.set_attribute(element(&changed, "buy"), "aria-label", "Buy now");
    let (diff, diff_body, _) = read(&changed, Some(&records), None);
    assert_eq!(diff["result"]["full"], Value::Bool(false), "{diff}");
    assert_eq!(diff["result"]["changedBlocks"], Value::from(1));
    assert!(
        diff_body.contains("[changed]\n button \"Buy now\" [ref_"),
        "{diff_body}"
    );
    // The refs of the printed lines, context included, for the actions (the small main landmark
    // prints none: printed_reference.rs).
    let refs = diff["refs"].as_array().expect("refs");
    assert_eq!(refs.len(), 1, "the button: {diff}");
    assert_eq!(refs[0][2], Value::from("Buy now"));

    let mut removed = MemDom::parse(PAGE);
    removed.set_attribute(element(&removed, "buy"), "hidden", "");
    let (gone, _, _) = read(&removed, Some(&records), None);
    let buy = element(&removed, "buy").0 + 1;
    assert_eq!(
        gone["result"]["removedRefs"],
        serde_json::json!([format!("ref_{buy}")])
    );
}

#[test]
fn most_of_the_page_changed_or_too_long_for_max_chars_answers_the_whole_tree() {
    let dom = MemDom::parse(PAGE);
    let (_, whole, records) = read(&dom, None, None);
    let mut hidden = MemDom::parse(PAGE);
    let list = element(&hidden, "list");
    hidden.set_attribute(list, "aria-label", "Fruit");
    hidden.set_attribute(list, "style", "color: red");
    let main = allwright_ax::Dom::parent(&hidden, list).expect("main");
    hidden.set_attribute(main, "aria-label", "Another shop");
    let (full, body, _) = read(&hidden, Some(&records), None);
    assert_eq!(full["result"]["full"], Value::Bool(true), "{full}");
    assert_eq!(full["result"]["fullReason"], Value::from("too_large"));
    assert_ne!(body, whole);
    assert!(body.starts_with("main \"Another shop\""), "{body}");

    let mut small = MemDom::parse(PAGE);
    // Longer than maxChars, but less than half the whole tree with its context (the main
    // landmark, and the heading its name is left to).
    let long_name = "Buy now and receive the order within two working days".repeat(2);
    small.set_attribute(element(&small, "buy"), "aria-label", &long_name);
    let (paged, _, _) = read(&small, Some(&records), Some(100));
    assert!(
        paged["result"]["full"] == Value::Bool(true)
            && paged["result"]["fullReason"] == "larger_than_max_chars",
        "{paged}"
    );
}
