//! The packed form of a core call (crates/allwright-ax-wasm/src/packed.rs), which the service
//! worker reads from content scripts a hostile page may have fed anything (docs/protocol/core.md,
//! "The core in the service worker"). Properties: what the writer wrote reads back the same
//! (parents as distances included, where they point backwards as tree order has them); damaged
//! bytes never panic the reader, and what it accepts runs through the facts decoder and the core
//! to one of the two envelopes the content script reads. The same for the diff of a read of
//! changed parts (`diffLinesPacked`), over any records and damaged packed lists.

#![no_main]

use allwright_ax_wasm::api::{
    changes_output, packed_changes_output, snapshot_changes_output, text_tree_output,
    TextTreeRequest,
};
use allwright_ax_wasm::facts::{FactDom, Facts, NoPseudoContent, NODE_STRIDE};
use allwright_ax_wasm::packed::{PackedReader, PackedWriter};
use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;

// This target needs only the shared envelope check, not the attribute generators.
#[allow(dead_code)]
mod generated_input;
use generated_input::assert_envelope;

#[derive(Arbitrary, Debug)]
struct Input {
    strings: String,
    string_lengths: Vec<u32>,
    nodes: Vec<u32>,
    attributes: Vec<u32>,
    rects: Vec<f64>,
    slots: Vec<u32>,
    viewport: Vec<f64>,
    known_refs: Vec<u32>,
    previous_lines: Option<Vec<u32>>,
    damage: Vec<(u16, u8)>,
    diff: DiffInput,
}

/// A read of changed parts for the diff (api.rs `changes_output`): any records, runs and lengths.
#[derive(Arbitrary, Debug)]
struct DiffInput {
    previous: Vec<u32>,
    previous_lengths: Vec<u32>,
    replaced: Vec<u32>,
    replaced_hashes: Vec<u32>,
    replacement: Vec<u32>,
    replacement_lengths: Vec<u32>,
    max_chars: Option<u32>,
    damage: Vec<(u16, u8)>,
}

/// The diff over the records as they are, and packed (as the service worker reads it) with
/// damage: an envelope, never a panic.
fn check_diff(input: &DiffInput) {
    let decode = allwright_ax::tree_diff::decode_records;
    assert_envelope(&changes_output(
        &decode(&input.previous),
        &input.previous_lengths,
        &input.replaced,
        &decode(&input.replacement),
        &input.replacement_lengths,
        input.max_chars,
    ));
    let column = |index: usize| -> Vec<u32> {
        input
            .previous
            .chunks_exact(5)
            .map(|line| line[index])
            .collect()
    };
    let mut writer = PackedWriter::new();
    writer.difference_list(&column(0));
    writer.u32_list(&column(1));
    writer.difference_list(&column(4));
    writer.u32_list(&input.previous_lengths);
    writer.u32_list(&input.replaced_hashes);
    let mut snapshot = writer.into_bytes();
    let mut writer = PackedWriter::new();
    writer.u32_list(&input.replaced);
    writer.u32_list(&input.replacement);
    writer.u32_list(&input.replacement_lengths);
    let changes = writer.into_bytes();
    assert_envelope(&snapshot_changes_output(
        &snapshot,
        &input.replaced,
        &input.replacement,
        &input.replacement_lengths,
        input.max_chars,
    ));
    for (position, value) in &input.damage {
        let position = *position as usize % snapshot.len();
        snapshot[position] = *value;
    }
    assert_envelope(&packed_changes_output(&snapshot, &changes, input.max_chars));
}

fn same_numbers(left: &[f64], right: &[f64]) -> bool {
    left.len() == right.len()
        && left
            .iter()
            .zip(right)
            .all(|(a, b)| a.to_bits() == b.to_bits())
}

fuzz_target!(|input: Input| {
    check_diff(&input.diff);
    let facts = Facts {
        strings: &input.strings,
        string_lengths: &input.string_lengths,
        nodes: &input.nodes,
        attributes: &input.attributes,
        rects: &input.rects,
        slots: &input.slots,
        viewport: &input.viewport,
    };
    let mut writer = PackedWriter::new();
    writer.facts(&facts);
    writer.pair_difference_list(&input.known_refs);
    // The same numbers as one difference list (how identities travel).
    writer.difference_list(&input.known_refs);
    writer.optional_u32_list(input.previous_lines.as_deref());
    let mut bytes = writer.into_bytes();

    let mut reader = PackedReader::new(&bytes).expect("written bytes read");
    let read = reader.facts().expect("written facts read");
    assert_eq!(read.string_lengths, input.string_lengths);
    assert_eq!(read.attributes, input.attributes);
    assert_eq!(read.slots, input.slots);
    assert!(same_numbers(&read.rects, &input.rects));
    assert!(same_numbers(&read.viewport, &input.viewport));
    assert_eq!(read.nodes.len(), input.nodes.len());
    for (index, (got, wrote)) in read
        .nodes
        .chunks(NODE_STRIDE)
        .zip(input.nodes.chunks(NODE_STRIDE))
        .enumerate()
    {
        for field in 0..wrote.len() {
            // A parent at or after its node (not tree order) is read as one the facts decoder
            // refuses; every other number reads back as written.
            if field == 1 && wrote[1] as usize > index {
                assert!(got[1] as usize > index, "a forward parent stays forward");
            } else {
                assert_eq!(got[field], wrote[field]);
            }
        }
    }
    assert_eq!(
        reader.pair_difference_list().expect("known refs"),
        input.known_refs
    );
    assert_eq!(
        reader.difference_list().expect("identities"),
        input.known_refs
    );
    assert_eq!(
        reader.optional_u32_list().expect("previous lines"),
        input.previous_lines
    );
    reader.finish().expect("nothing left");

    for (position, value) in &input.damage {
        if !bytes.is_empty() {
            let position = *position as usize % bytes.len();
            bytes[position] = *value;
        }
    }
    let Ok(mut reader) = PackedReader::new(&bytes) else {
        return;
    };
    let Ok(facts) = reader.facts() else {
        return;
    };
    let Ok(dom) = FactDom::decode(facts.with_strings(&input.strings), NoPseudoContent) else {
        return;
    };
    let request = TextTreeRequest {
        title: "fuzz",
        ..TextTreeRequest::whole_page()
    };
    assert_envelope(&text_tree_output(&dom, &request));
});
