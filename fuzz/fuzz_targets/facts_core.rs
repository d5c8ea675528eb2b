//! The facts decoder and the whole core behind it (crates/allwright-ax-wasm/src/facts.rs, api.rs)
//! on facts a hostile page could make the gatherer send. The generator writes well-formed
//! tables most of the time, so that the core runs on them, with the shapes a walker must survive:
//! parents that point forward (cycles), shadow roots hosted inside themselves, slots that assign
//! their own ancestors, ID references in loops, any flags, NaN and infinite boxes, odd Unicode;
//! then it damages a few numbers, so that the decoder's checks run too. Property: no panic, and
//! every output is one of the two envelopes the content script reads.

#![no_main]

use allwright_ax::{NodeId, PseudoElement};
use allwright_ax_wasm::api::{
    snapshot_document_output, text_tree_output, AiRefs, SnapshotRequest, TextTreeRequest,
};
use allwright_ax_wasm::facts::{
    FactDom, Facts, PseudoContentSource, BOXES_UNMEASURED, HAS_BOX, KIND_DOCUMENT, KIND_ELEMENT,
    KIND_MASK, KIND_SHADOW_ROOT, KIND_TEXT, NODE_STRIDE, STRING_SEPARATOR,
};
use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;

mod generated_input;
use generated_input::{assert_envelope, AttributeValue};

const TAGS: &[&str] = &[
    "div",
    "span",
    "button",
    "a",
    "input",
    "label",
    "select",
    "option",
    "optgroup",
    "textarea",
    "ul",
    "li",
    "ol",
    "table",
    "tr",
    "td",
    "th",
    "thead",
    "caption",
    "fieldset",
    "legend",
    "img",
    "svg",
    "title",
    "h1",
    "h3",
    "p",
    "slot",
    "template",
    "iframe",
    "details",
    "summary",
    "dialog",
    "form",
    "nav",
    "main",
    "section",
    "article",
    "figure",
    "figcaption",
    "dl",
    "dt",
    "dd",
    "output",
    "progress",
    "meter",
    "datalist",
    "area",
    "map",
    "abbr",
    "br",
    "my-widget",
];

const ATTRIBUTES: &[&str] = &[
    "id",
    "role",
    "aria-label",
    "aria-labelledby",
    "aria-describedby",
    "aria-owns",
    "aria-controls",
    "aria-hidden",
    "hidden",
    "for",
    "name",
    "type",
    "value",
    "title",
    "alt",
    "href",
    "tabindex",
    "aria-expanded",
    "aria-checked",
    "aria-selected",
    "aria-level",
    "aria-valuenow",
    "aria-valuemin",
    "aria-valuemax",
    "aria-valuetext",
    "slot",
    "placeholder",
    "contenteditable",
    "aria-activedescendant",
    "aria-live",
    "style",
    "multiple",
    "selected",
    "disabled",
    "inert",
    "open",
    "colspan",
    "rowspan",
    "scope",
    "headers",
    "list",
    "usemap",
    "popover",
    "aria-modal",
    "aria-roledescription",
    "aria-details",
    "aria-errormessage",
    "aria-posinset",
    "aria-setsize",
    "aria-rowcount",
    "aria-colindex",
    "size",
    "label",
];

const FILTERS: &[&str] = &["all", "visible", "interactive"];

#[derive(Arbitrary, Debug)]
enum Name {
    Known(u8),
    Other(String),
}

#[derive(Arbitrary, Debug)]
struct NodeInput {
    /// 0-5 element (most common), 6 text, 7 shadow root.
    kind: u8,
    /// 0 is no parent; otherwise node `parent - 1` modulo the node count, forward ones included.
    parent: u16,
    name: Name,
    flags: u32,
    attributes: Vec<(Name, AttributeValue)>,
    give_id: bool,
    value: Option<String>,
    rect: [f64; 4],
    before_content: Option<String>,
}

#[derive(Arbitrary, Debug)]
struct Damage {
    table: u8,
    index: u16,
    value: u32,
}

#[derive(Arbitrary, Debug)]
struct Input {
    document_flags: u32,
    nodes: Vec<NodeInput>,
    slots: Vec<(u16, Vec<u16>)>,
    viewport: (f64, f64),
    damage: Vec<Damage>,
    filter: u8,
    max_depth: u8,
    max_chars: Option<u32>,
    anchor: Option<u16>,
    page: u8,
    known_refs: Vec<(u16, u16)>,
    ref_counter: u32,
    url: String,
    frame_ids: Vec<(u16, f64)>,
    ai_prefix: String,
    ai_known: Vec<(u16, String, String)>,
    /// A read since a snapshot: the node identities and the previous snapshot's line records
    /// (the content script keeps what the core wrote; here, anything).
    identities: Vec<u32>,
    previous_lines: Option<Vec<u32>>,
    depth_offset: Option<u8>,
}

struct Tables {
    strings: String,
    string_lengths: Vec<u32>,
    nodes: Vec<u32>,
    attributes: Vec<u32>,
    rects: Vec<f64>,
    slots: Vec<u32>,
    viewport: Vec<f64>,
}

impl Tables {
    fn intern(&mut self, text: &str) -> u32 {
        if !self.string_lengths.is_empty() {
            self.strings.push(STRING_SEPARATOR);
        }
        self.strings.push_str(text);
        self.string_lengths.push(text.encode_utf16().count() as u32);
        self.string_lengths.len() as u32 - 1
    }
}

fn name_text(name: &Name, table: &[&str]) -> String {
    match name {
        Name::Known(index) => table[*index as usize % table.len()].to_owned(),
        Name::Other(text) => text.clone(),
    }
}

fn build_tables(input: &Input) -> Tables {
    let mut tables = Tables {
        strings: String::new(),
        string_lengths: Vec::new(),
        nodes: Vec::new(),
        attributes: Vec::new(),
        rects: Vec::new(),
        slots: Vec::new(),
        viewport: vec![input.viewport.0, input.viewport.1],
    };
    let node_count = input.nodes.len() as u32 + 1;
    let boxes_measured = input.document_flags & BOXES_UNMEASURED == 0;
    let document_flags = (input.document_flags & !KIND_MASK & !HAS_BOX) | KIND_DOCUMENT;
    tables.nodes.extend([document_flags, 0, 0, 0, 0]);
    for (index, node) in input.nodes.iter().enumerate() {
        let kind = match node.kind % 8 {
            6 => KIND_TEXT,
            7 => KIND_SHADOW_ROOT,
            _ => KIND_ELEMENT,
        };
        let flags = (node.flags & !KIND_MASK) | kind;
        let parent = match node.parent {
            0 => 0,
            parent => (u32::from(parent) - 1) % node_count + 1,
        };
        let string = match kind {
            KIND_TEXT | KIND_ELEMENT => tables.intern(&name_text(&node.name, TAGS)),
            _ => 0,
        };
        let mut attribute_count = 0;
        if kind == KIND_ELEMENT {
            if node.give_id {
                let name = tables.intern("id");
                let value = tables.intern(&format!("n{}", index + 1));
                tables.attributes.extend([name, value]);
                attribute_count += 1;
            }
            for (name, value) in &node.attributes {
                let name = tables.intern(&name_text(name, ATTRIBUTES));
                let value = tables.intern(&value.text());
                tables.attributes.extend([name, value]);
                attribute_count += 1;
            }
        }
        let value = match &node.value {
            Some(text) => tables.intern(text) + 1,
            None => 0,
        };
        if flags & HAS_BOX != 0 && boxes_measured {
            tables.rects.extend(node.rect);
        }
        tables
            .nodes
            .extend([flags, parent, string, attribute_count, value]);
    }
    for (slot, assigned) in &input.slots {
        tables.slots.push(u32::from(*slot) % node_count);
        tables.slots.push(assigned.len() as u32);
        tables
            .slots
            .extend(assigned.iter().map(|node| u32::from(*node) % node_count));
    }
    for damage in &input.damage {
        let table: &mut Vec<u32> = match damage.table % 3 {
            0 => &mut tables.nodes,
            1 => &mut tables.attributes,
            _ => &mut tables.slots,
        };
        if !table.is_empty() {
            let index = damage.index as usize % table.len();
            table[index] = damage.value;
        }
    }
    tables
}

/// `::before` content from the input, for the elements the generator gave some.
struct GeneratedContent<'input>(&'input [NodeInput]);

impl PseudoContentSource for GeneratedContent<'_> {
    fn computed_content(&self, node: NodeId, pseudo: PseudoElement) -> Option<String> {
        if pseudo != PseudoElement::Before {
            return None;
        }
        self.0
            .get(node.index().checked_sub(1)?)?
            .before_content
            .clone()
    }
}

fuzz_target!(|input: Input| {
    let tables = build_tables(&input);
    let facts = Facts {
        strings: &tables.strings,
        string_lengths: &tables.string_lengths,
        nodes: &tables.nodes,
        attributes: &tables.attributes,
        rects: &tables.rects,
        slots: &tables.slots,
        viewport: &tables.viewport,
    };
    let Ok(dom) = FactDom::decode(facts, GeneratedContent(&input.nodes)) else {
        return;
    };
    let node_count = tables.nodes.len() / NODE_STRIDE;
    let known_refs: Vec<u32> = input
        .known_refs
        .iter()
        .flat_map(|(node, number)| [u32::from(*node) % node_count as u32, u32::from(*number)])
        .collect();
    let frame_ids: Vec<f64> = input
        .frame_ids
        .iter()
        .flat_map(|(node, id)| [f64::from(*node), *id])
        .collect();
    let anchor_ref = input.anchor.map(|node| format!("ref_{node}"));
    let request = TextTreeRequest {
        filter: FILTERS[input.filter as usize % FILTERS.len()],
        max_depth: u32::from(input.max_depth),
        max_chars: input.max_chars,
        anchor: input
            .anchor
            .map(|node| NodeId(u32::from(node) % node_count as u32)),
        anchor_ref: anchor_ref.as_deref(),
        page: u32::from(input.page % 8) + 1,
        known_refs: &known_refs,
        ref_counter: input.ref_counter,
        url: &input.url,
        title: "fuzz",
        frame_ids: &frame_ids,
        identities: &input.identities,
        previous_lines: input.previous_lines.as_deref(),
        depth_offset: input.depth_offset.map(u32::from),
    };
    assert_envelope(&text_tree_output(&dom, &request));
    let ai = AiRefs {
        prefix: &input.ai_prefix,
        counter: input.ref_counter,
        known: input
            .ai_known
            .iter()
            .map(|(node, reference, key)| {
                (
                    NodeId(u32::from(*node) % node_count as u32),
                    reference.as_str(),
                    key.as_str(),
                )
            })
            .collect(),
    };
    for (format, ai) in [("json", None), ("yaml", Some(ai))] {
        let request = SnapshotRequest {
            format,
            context_id: "fuzz",
            parent_context_id: None,
            url: &input.url,
            title: "fuzz",
            ai,
        };
        assert_envelope(&snapshot_document_output(&dom, &request));
    }
});
