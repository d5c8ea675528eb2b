//! The glue's part of the reads of [`allwright_ax::reads`]: the packed forms the service worker's
//! core receives (crate::packed) turned into the core's arguments, and the "ai" mode registry
//! facts as the content script joins them. The reads themselves (reference numbering, the choice
//! between a whole read and a read of changed parts, the envelope) are the core's, re-exported
//! here for the bindings, the example and the fuzz targets.

pub use allwright_ax::reads::{
    changes_output, role_name_key, snapshot_document_output, split_output, text_tree_output,
    text_tree_output_into, AiRefs, SnapshotRequest, TextTreeRequest, ToolError,
};
use allwright_ax::tree_diff;
use allwright_ax::NodeId;

/// [`changes_output`] for the core in the service worker (`diffLinesPacked`), where the numbers
/// travel packed: `snapshot` holds the snapshot's side (see [`snapshot_changes_output`]), and
/// `changes` the lists `replaced`, `replacement` (flat records) and `replacement_lengths`.
pub fn packed_changes_output(snapshot: &[u8], changes: &[u8], max_chars: Option<u32>) -> String {
    let read = || -> Result<_, crate::packed::PackedError> {
        let mut reader = crate::packed::PackedReader::new(changes)?;
        let replaced = reader.u32_list()?;
        let replacement = reader.u32_list()?;
        let replacement_lengths = reader.u32_list()?;
        reader.finish()?;
        Ok((replaced, replacement, replacement_lengths))
    };
    match read() {
        Ok((replaced, replacement, replacement_lengths)) => snapshot_changes_output(
            snapshot,
            &replaced,
            &replacement,
            &replacement_lengths,
            max_chars,
        ),
        Err(error) => ToolError::new("script_failed", error.to_string()).to_output(),
    }
}

/// [`changes_output`] with the snapshot's side packed (`diffLinesAfterPart`: the service worker
/// has just read the one changed part, and gives its records and lengths as they are), in this
/// order: the snapshot's records as three lists (the identities as differences, the
/// depth-and-flags numbers, the reference numbers as differences), its lines' lengths, and the
/// hashes of its lines inside the replaced runs (two numbers a line, low half first).
///
/// The hashes of the snapshot's other lines are not sent, which is most of what the records
/// weigh (eight bytes of a line's eleven or so): a line outside the replaced runs is the same
/// line before and after ([`tree_diff::splice_lines`] copies it), so the comparison, which
/// compares the hashes of one node's line before and after, only ever compares such a line's
/// hash with itself. They are read as 0.
pub fn snapshot_changes_output(
    snapshot: &[u8],
    replaced: &[u32],
    replacement: &[u32],
    replacement_lengths: &[u32],
    max_chars: Option<u32>,
) -> String {
    let read = || -> Result<_, crate::packed::PackedError> {
        let mut reader = crate::packed::PackedReader::new(snapshot)?;
        let identities = reader.difference_list()?;
        let flags = reader.u32_list()?;
        let references = reader.difference_list()?;
        let lengths = reader.u32_list()?;
        let replaced_hashes = reader.u32_list()?;
        reader.finish()?;
        let previous =
            snapshot_records(&identities, &flags, &references, replaced, &replaced_hashes)?;
        Ok((previous, lengths))
    };
    match read() {
        Ok((previous, lengths)) => changes_output(
            &previous,
            &lengths,
            replaced,
            &tree_diff::decode_records(replacement),
            replacement_lengths,
            max_chars,
        ),
        Err(error) => ToolError::new("script_failed", error.to_string()).to_output(),
    }
}

/// The snapshot's side of [`snapshot_changes_output`], packed as the content script packs it
/// (content/tree/worker-core-client.js `packedSnapshot`): for the native tests and the worker's
/// warm-up.
pub fn packed_snapshot(previous: &[u32], previous_lengths: &[u32], replaced: &[u32]) -> Vec<u8> {
    let lines: Vec<&[u32]> = previous.chunks_exact(tree_diff::RECORD_WIDTH).collect();
    let column = |index: usize| -> Vec<u32> { lines.iter().map(|line| line[index]).collect() };
    let mut hashes = Vec::new();
    for triple in replaced.chunks_exact(3) {
        let run = triple[0] as usize..(triple[1] as usize).min(lines.len());
        for line in lines.get(run).unwrap_or_default() {
            hashes.extend_from_slice(&line[2..4]);
        }
    }
    let mut writer = crate::packed::PackedWriter::new();
    writer.difference_list(&column(0));
    writer.u32_list(&column(1));
    writer.difference_list(&column(4));
    writer.u32_list(previous_lengths);
    writer.u32_list(&hashes);
    writer.into_bytes()
}

/// The snapshot's records of [`snapshot_changes_output`]: the hashes only inside the replaced
/// runs.
fn snapshot_records(
    identities: &[u32],
    flags: &[u32],
    references: &[u32],
    replaced: &[u32],
    replaced_hashes: &[u32],
) -> Result<Vec<tree_diff::LineRecord>, crate::packed::PackedError> {
    use crate::packed::malformed;
    if flags.len() != identities.len() || references.len() != identities.len() {
        return Err(malformed("the snapshot's record lists differ in length"));
    }
    let mut flat = Vec::with_capacity(identities.len() * tree_diff::RECORD_WIDTH);
    for line in 0..identities.len() {
        flat.extend_from_slice(&[identities[line], flags[line], 0, 0, references[line]]);
    }
    let mut hashes = replaced_hashes.chunks_exact(2);
    for triple in replaced.chunks_exact(3) {
        let (start, end) = (triple[0] as usize, triple[1] as usize);
        if start > end || end > identities.len() {
            return Err(malformed("a replaced run past the snapshot's lines"));
        }
        for line in start..end {
            let Some(hash) = hashes.next() else {
                return Err(malformed("fewer hashes than replaced lines"));
            };
            let record = line * tree_diff::RECORD_WIDTH;
            flat[record + 2] = hash[0];
            flat[record + 3] = hash[1];
        }
    }
    if hashes.next().is_some() || replaced_hashes.len() % 2 != 0 {
        return Err(malformed("more hashes than replaced lines"));
    }
    Ok(tree_diff::decode_records(&flat))
}

/// Pairs `known_aria_nodes[i]` with the i-th `reference \u{7f} key` pair of `known_aria` (the
/// references and keys are the glue's own ASCII strings). Extra or missing entries are ignored:
/// an element without its old reference simply gets a new one.
pub fn known_aria_refs<'input>(
    nodes: &[u32],
    joined: &'input str,
) -> Vec<(NodeId, &'input str, &'input str)> {
    if joined.is_empty() {
        return Vec::new();
    }
    let mut parts = joined.split(crate::facts::STRING_SEPARATOR);
    nodes
        .iter()
        .map_while(|&node| Some((NodeId(node), parts.next()?, parts.next()?)))
        .collect()
}
