//! The packed forms of a read since a snapshot that the service worker's core receives
//! (docs/protocol/core.md, "The core in the service worker"): the snapshot's side packed, and the
//! changes packed or as the one part just read, must answer what the core's `changes_output`
//! answers over the same records as arrays (crates/allwright-ax/tests/since.rs tests that answer
//! against the whole read). The packed forms send no hash outside the re-read run, and a hash
//! short is refused.

use allwright_ax::memdom::MemDom;
use allwright_ax_wasm::api::{changes_output, packed_changes_output, snapshot_changes_output};

#[path = "../../allwright-ax/tests/support/since_reads.rs"]
mod since_reads;
use since_reads::{element, read, PAGE};

/// The run of a snapshot's lines a re-read replaced (everything between the lines both reads
/// share at the start and at the end), with its new records and their lines' lengths.
struct RereadRun {
    replaced: [u32; 3],
    replacement: Vec<u32>,
    replacement_lengths: Vec<u32>,
}

/// Each line's length in Unicode scalar values, as the content script counts
/// (extension/shared/line-records.js, `lineLength`).
fn lengths_of(body: &str) -> Vec<u32> {
    body.lines()
        .map(|line| line.chars().count() as u32)
        .collect()
}

fn reread_run(previous: &[u32], current: &[u32], current_body: &str) -> RereadRun {
    let previous_lines: Vec<&[u32]> = previous.chunks(5).collect();
    let current_lines: Vec<&[u32]> = current.chunks(5).collect();
    let shared_start = previous_lines
        .iter()
        .zip(&current_lines)
        .take_while(|(before, now)| before == now)
        .count();
    let shared_end = previous_lines[shared_start..]
        .iter()
        .rev()
        .zip(current_lines[shared_start..].iter().rev())
        .take_while(|(before, now)| before == now)
        .count();
    let end = current_lines.len() - shared_end;
    RereadRun {
        replaced: [
            shared_start as u32,
            (previous_lines.len() - shared_end) as u32,
            (end - shared_start) as u32,
        ],
        replacement: current_lines[shared_start..end].concat(),
        replacement_lengths: lengths_of(current_body)[shared_start..end].to_vec(),
    }
}

/// The snapshot's side of a packed diff (`api::packed_snapshot`) for the run `replaced`.
fn packed_snapshot(previous: &[u32], previous_body: &str, replaced: &[u32; 3]) -> Vec<u8> {
    allwright_ax_wasm::api::packed_snapshot(previous, &lengths_of(previous_body), replaced)
}

fn packed_changes(run: &RereadRun) -> Vec<u8> {
    let mut writer = allwright_ax_wasm::packed::PackedWriter::new();
    writer.u32_list(&run.replaced);
    writer.u32_list(&run.replacement);
    writer.u32_list(&run.replacement_lengths);
    writer.into_bytes()
}

/// The packed forms answer what `changes_output` answers over the same records as arrays.
#[test]
fn the_packed_forms_answer_what_the_arrays_answer() {
    let dom = MemDom::parse(PAGE);
    let (_, previous_body, previous) = read(&dom, None, None);
    let mut changed = MemDom::parse(PAGE);
    changed.set_attribute(element(&changed, "buy"), "aria-label", "Buy now");
    let (_, current_body, current) = read(&changed, None, None);
    let run = reread_run(&previous, &current, &current_body);
    assert!(run.replaced[1] - run.replaced[0] < 3, "{:?}", run.replaced);

    let decode = allwright_ax::tree_diff::decode_records;
    let output = changes_output(
        &decode(&previous),
        &lengths_of(&previous_body),
        &run.replaced,
        &decode(&run.replacement),
        &run.replacement_lengths,
        None,
    );
    assert!(output.starts_with("{\"ok\":true,\"result\""), "{output}");
    let snapshot = packed_snapshot(&previous, &previous_body, &run.replaced);
    assert_eq!(
        packed_changes_output(&snapshot, &packed_changes(&run), None),
        output
    );
    assert_eq!(
        snapshot_changes_output(
            &snapshot,
            &run.replaced,
            &run.replacement,
            &run.replacement_lengths,
            None
        ),
        output
    );

    // The snapshot side packed for a run one line shorter: a hash short for the real run,
    // refused, never read past.
    let [start, end, count] = run.replaced;
    let short = packed_snapshot(&previous, &previous_body, &[start, end - 1, count]);
    let short = packed_changes_output(&short, &packed_changes(&run), None);
    assert!(short.starts_with("{\"ok\":false"), "{short}");
}
