// @ts-check
// Generated from crates/allwright-ax/src/tree_diff.rs; do not edit. A host test fails when this file is not what
// the generator writes; rewrite it with `cargo run -q -- generated-modules extension/shared/generated`.
//
// The flat encoding of a tree read's line records (`encode_records` in tree_diff.rs):
// LINE_RECORD_WIDTH numbers per printed line (identity, depth word, the hash's low and
// high halves, reference number). The depth word holds the depth in its low bits
// (LINE_DEPTH_MASK) and a flag in each of its top three. The core writes the records;
// the content script keeps them for reads since a snapshot (tree/snapshots.js) and the
// worker route packs them (shared/line-records.js).

export const LINE_RECORD_WIDTH = 5;
export const LINE_OVERLAY_BIT = 0x80000000;
export const LINE_NAME_LEFT_TO_FIRST_CHILD_BIT = 0x40000000;
export const LINE_TEXT_RUN_BIT = 0x20000000;
export const LINE_DEPTH_MASK = 0x1fffffff;
