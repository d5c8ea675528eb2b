//! The page and the read of a read-since-a-snapshot test, shared by the core's since.rs and the
//! glue's packed_diff.rs (which includes this file by `#[path]`): both compare answers over the
//! same records, so both must read the same way.
#![allow(dead_code)]

use allwright_ax::memdom::MemDom;
use allwright_ax::reads::{split_output, text_tree_output_into, TextTreeRequest};
use allwright_ax::NodeId;
use serde_json::Value;

pub const PAGE: &str = r#"<main aria-label="Shop"><h1>Shop</h1>
<ul id="list"><li>Apples</li><li>Pears</li><li>Plums</li><li>Kiwis</li><li>Limes</li></ul>
<button id="buy">Buy</button><p>Some text that stays the same between the two reads.</p>
<p>More text that stays the same between the two reads, to make the page longer.</p></main>"#;

/// Identities as the content script gives them: one per node, stable across reads.
pub fn identities(dom: &MemDom) -> Vec<u32> {
    (1..=allwright_ax::Dom::node_count(dom) as u32).collect()
}

/// Ref numbers kept across reads, as the registry keeps them: element index + 1.
pub fn known_refs(dom: &MemDom) -> Vec<u32> {
    (0..allwright_ax::Dom::node_count(dom) as u32)
        .flat_map(|node| [node, node + 1])
        .collect()
}

pub fn read(
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

pub fn element(dom: &MemDom, id: &str) -> NodeId {
    dom.element_by_id_attribute(id).expect("fixture element")
}
