//! Reads that send only what changed (docs/protocol/reading.md, "Reads since a snapshot"): the lines of
//! one text tree compared with the record of an earlier one of the same document and arguments.
//!
//! A line is known by the identity of its node, which the caller gives (the content script keeps
//! one number per DOM node for as long as the node lives), never by its printed text or its
//! reference: two lines with the same words are different lines, and a line that prints no
//! reference still has an identity. A snapshot is kept as one [`LineRecord`] per line (identity,
//! depth, part of the tree, a hash of the printed line, the reference number it printed), five
//! numbers, so that keeping it costs no strings.
//!
//! The output is written for a reader who kept nothing but the refs: every changed or added
//! subtree is printed whole, in the ordinary line format, after the lines of its unchanged
//! ancestors (and, for a node that was added or moved, the line of the sibling it now follows).
//! Two banner lines, which no element line can start with, separate the two:
//! `[unchanged]` and `[changed]`. No placeholder stands for an unchanged subtree and
//! nothing refers to an earlier answer: Playwright's withdrawn diff mode printed `ref=e4
//! [unchanged]` for those, which readers (models and parsers) took for elements.
//!
//! The answer stays a few lines for the changes real pages make (issue 30, item 5): a part that
//! left without a reference to list (a text run, a paragraph) is told under a third banner,
//! `[removed]`, below its parent's line, rather than by printing the parent whole; a re-sorted
//! list prints only the items that left the longest run that kept its order; a part the page
//! rendered again with new elements and the same lines is not printed at all: its references
//! are reported replaced, old to new; an added part at the top of the page (a dialog at the
//! end of `body`) is placed like any other added part.

use std::collections::{HashMap, HashSet};

use crate::text::{TreeLine, OVERLAYS_BANNER_LINE};

/// The banner above the unchanged lines that place a change: its ancestors, and the sibling
/// before an added or moved node.
pub const CONTEXT_BANNER: &str = "[unchanged]";
/// The banner above changed or added subtrees, each printed whole.
pub const CHANGED_BANNER: &str = "[changed]";

/// The numbers of a [`LineRecord`] in its flat encoding.
pub const RECORD_WIDTH: usize = 5;

/// The identity of a node the caller could not name: never equal to another line's.
pub const UNKNOWN_IDENTITY: u32 = 0;

/// One line of a snapshot, as the next read compares it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct LineRecord {
    /// The caller's identity of the line's node ([`UNKNOWN_IDENTITY`] when it has none).
    pub identity: u32,
    /// The line's indentation.
    pub depth: u32,
    /// Whether the line is under the `[open overlays]` banner.
    pub overlay: bool,
    /// 64-bit FNV-1a of the printed line.
    pub hash: u64,
    /// The N of the `ref_N` it prints, 0 for none.
    pub reference: u32,
    /// The line leaves its name to its first child's line (`TreeLine::name_left_to_first_child`).
    pub name_left_to_first_child: bool,
    /// The line is a run of text (`text "..."`): a run whose words changed in place (a status
    /// line, a counter) is a new line, since text has no identity, and the old words are not told
    /// under `[removed]` (see [`plan_with`]).
    pub text_run: bool,
}

/// The records of a tree's lines; `identity_of` names each line's node.
pub fn records_of(lines: &[TreeLine], identity_of: impl Fn(&TreeLine) -> u32) -> Vec<LineRecord> {
    lines
        .iter()
        .map(|line| LineRecord {
            identity: identity_of(line),
            depth: u32::try_from(line.depth).unwrap_or(u32::MAX),
            overlay: line.overlay,
            hash: content_hash(&line.text, line.reference),
            reference: line.reference.unwrap_or(0),
            name_left_to_first_child: line.name_left_to_first_child,
            text_run: is_text_run_line(&line.text),
        })
        .collect()
}

/// Whether a printed line is a run of text: after its indentation it starts with the role word
/// `text` and its quoted words (page text cannot start a line: docs/protocol/reading.md, "What the text
/// tree leaves out").
fn is_text_run_line(text: &str) -> bool {
    text.trim_start_matches(' ').starts_with("text \"")
}

/// 64-bit FNV-1a of a line without its ` [ref_N]`: the lines of a snapshot are compared by
/// hash, so that the record holds no text, and the reference is compared apart (the record's
/// last number). A line that prints the same words for a new element (a wrapper the page
/// rendered again) then has the same hash as the old element's line, which is how a replaced
/// part is recognised ([`DiffPlan::replaced_references`]). The reference is found by its exact
/// form: `[ref_` appears on a line only as its own reference (docs/protocol/reading.md, "What the
/// text tree leaves out").
fn content_hash(text: &str, reference: Option<u32>) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    let mut feed = |bytes: &[u8]| {
        for &byte in bytes {
            hash ^= u64::from(byte);
            hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
        }
    };
    let printed = reference.map(|number| format!(" [ref_{number}]"));
    match printed
        .as_deref()
        .and_then(|printed| text.find(printed).map(|start| (start, printed.len())))
    {
        Some((start, length)) => {
            feed(&text.as_bytes()[..start]);
            feed(&text.as_bytes()[start + length..]);
        }
        None => feed(text.as_bytes()),
    }
    hash
}

/// The flat encoding: identity, depth (the top bit set for an overlay line, the next one for a
/// line that leaves its name to its first child, the next for a run of text), the hash's low and
/// high halves, the reference number.
pub fn encode_records(records: &[LineRecord]) -> Vec<u32> {
    let mut flat = Vec::with_capacity(records.len() * RECORD_WIDTH);
    for record in records {
        flat.push(record.identity);
        flat.push(
            record.depth.min(DEPTH_MASK)
                | if record.overlay { OVERLAY_BIT } else { 0 }
                | if record.name_left_to_first_child {
                    NAME_LEFT_TO_FIRST_CHILD_BIT
                } else {
                    0
                }
                | if record.text_run { TEXT_RUN_BIT } else { 0 },
        );
        flat.push(record.hash as u32);
        flat.push((record.hash >> 32) as u32);
        flat.push(record.reference);
    }
    flat
}

/// In a record's second number: the line is under the `[open overlays]` banner.
pub const OVERLAY_BIT: u32 = 1 << 31;
/// In a record's second number: the line leaves its name to its first child's line.
pub const NAME_LEFT_TO_FIRST_CHILD_BIT: u32 = 1 << 30;
/// In a record's second number: the line is a run of text.
pub const TEXT_RUN_BIT: u32 = 1 << 29;
/// The bits of a record's second number that hold the depth. The content script reads records
/// with these numbers too, from the module the binary generates from them
/// (`extension/shared/generated/line-records.js`).
pub const DEPTH_MASK: u32 = TEXT_RUN_BIT - 1;

/// Reads [`encode_records`]' numbers back; a trailing partial record is ignored.
pub fn decode_records(flat: &[u32]) -> Vec<LineRecord> {
    flat.chunks_exact(RECORD_WIDTH)
        .map(|numbers| LineRecord {
            identity: numbers[0],
            depth: numbers[1] & DEPTH_MASK,
            overlay: numbers[1] & OVERLAY_BIT != 0,
            name_left_to_first_child: numbers[1] & NAME_LEFT_TO_FIRST_CHILD_BIT != 0,
            text_run: numbers[1] & TEXT_RUN_BIT != 0,
            hash: u64::from(numbers[2]) | (u64::from(numbers[3]) << 32),
            reference: numbers[4],
        })
        .collect()
}

/// A snapshot's lines (records, or anything kept per line) after some of its runs of lines were
/// re-read: `replaced` holds `start, end, count` triples, in ascending order and not
/// overlapping, each replacing the lines `start..end` of `previous` by the next `count` items of
/// `replacement`. This is how the content script describes a read that re-read only the changed
/// parts (docs/protocol/reading.md, "Reads since a snapshot"): every line outside the replaced runs is
/// the snapshot's own. None when the triples do not fit `previous` or do not use up
/// `replacement` exactly.
pub fn splice_lines<Line: Copy>(
    previous: &[Line],
    replaced: &[u32],
    replacement: &[Line],
) -> Option<Vec<Line>> {
    if replaced.len() % 3 != 0 {
        return None;
    }
    let mut current = Vec::with_capacity(previous.len() + replacement.len());
    let mut copied_up_to = 0;
    let mut used: usize = 0;
    for triple in replaced.chunks_exact(3) {
        let (start, end, count) = (triple[0] as usize, triple[1] as usize, triple[2] as usize);
        if start < copied_up_to || end < start || end > previous.len() {
            return None;
        }
        let lines = replacement.get(used..used.checked_add(count)?)?;
        current.extend_from_slice(&previous[copied_up_to..start]);
        current.extend_from_slice(lines);
        copied_up_to = end;
        used += count;
    }
    if used != replacement.len() {
        return None;
    }
    current.extend_from_slice(&previous[copied_up_to..]);
    Some(current)
}

/// The banner above the lines of the snapshot that left the tree without a reference to list
/// in `removedRefs` (a text run, a paragraph that printed none): their parent's line is the
/// last context line, and it is not printed again whole.
pub const REMOVED_BANNER: &str = "[removed]";

/// How many lines one `[removed]` banner shows at most; the rest are counted on one line. A
/// part that left is told so the reader can drop what it remembers of it: its first lines say
/// which part it was, and the whole of it would cost what the part cost to read.
pub const REMOVED_LINES_SHOWN: usize = 6;

/// One line of a diff's output: a banner, a current line, or a line of the snapshot that left.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum DiffItem {
    /// A banner line ([`CONTEXT_BANNER`], [`CHANGED_BANNER`], [`REMOVED_BANNER`] or the
    /// overlays banner).
    Banner(&'static str),
    /// The current line at this position.
    Line(usize),
    /// The snapshot's line at this position, which left the tree (under [`REMOVED_BANNER`]).
    Removed(usize),
    /// How many lines that left are not shown under the [`REMOVED_BANNER`] above: those past
    /// [`REMOVED_LINES_SHOWN`] (`after_shown`), or all of them when the caller keeps no text of
    /// the snapshot ([`plan_with`]).
    RemovedCount { count: usize, after_shown: bool },
}

impl DiffItem {
    /// The line a [`DiffItem::RemovedCount`] prints: a banner-like line, which no element line
    /// can start with.
    pub fn removed_count_line(count: usize, after_shown: bool) -> String {
        let noun = if count == 1 { "line" } else { "lines" };
        if after_shown {
            format!("[and {count} more {noun}]")
        } else {
            format!("[{count} {noun}]")
        }
    }
}

/// What changed between two snapshots, as the lines to print rather than their text: the
/// comparison needs no printed text, only the records, so a caller that keeps the texts
/// elsewhere (the content script keeps a snapshot's lines) sends none and writes the text from
/// the plan itself ([`DiffPlan::text`] writes it here).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DiffPlan {
    /// The lines of the output, in order, joined by line breaks; empty when nothing changed.
    pub items: Vec<DiffItem>,
    /// How many `[changed]` blocks the output holds.
    pub changed_blocks: usize,
    /// The reference numbers the earlier snapshot printed and this one does not, in the earlier
    /// print order (a replaced reference is in [`DiffPlan::replaced_references`] instead).
    pub removed_references: Vec<u32>,
    /// The page's lines, or the overlays', are all gone, some of them without a reference to
    /// list: a change that no block can show (the caller returns the whole tree).
    pub section_emptied: bool,
    /// `(old, new)` reference numbers of parts the page rendered again with new elements and
    /// the same lines (a framework re-rendering a wrapper): nothing the reader sees changed but
    /// the references, so the part is not printed and the old references are not "removed".
    pub replaced_references: Vec<(u32, u32)>,
    /// `(earlier position, current position)` of every line of those replaced parts.
    pub replaced_lines: Vec<(usize, usize)>,
    /// The earlier positions of the tops of the parts told under [`REMOVED_BANNER`], all of
    /// them (also those past the shown bound), in output order.
    pub removed_lines: Vec<usize>,
}

impl DiffPlan {
    /// Nothing was added, changed, moved, replaced or removed.
    pub fn is_unchanged(&self) -> bool {
        self.changed_blocks == 0
            && self.removed_references.is_empty()
            && !self.section_emptied
            && self.removed_lines.is_empty()
            && self.replaced_references.is_empty()
    }

    /// The positions of the current lines the output prints, context included, in print order.
    pub fn printed_lines(&self) -> Vec<usize> {
        self.items
            .iter()
            .filter_map(|item| match *item {
                DiffItem::Line(position) => Some(position),
                _ => None,
            })
            .collect()
    }

    /// The length of the output, given each current line's length and each earlier line's (in
    /// whatever unit the caller counts; a banner counts its characters, which are ASCII, and
    /// each line break one).
    pub fn length(
        &self,
        line_length: impl Fn(usize) -> usize,
        earlier_line_length: impl Fn(usize) -> usize,
    ) -> usize {
        // Saturating: the lengths come from the caller (the content script), and a sum past
        // the largest number means "too long" all the same.
        let lines = self.items.iter().fold(0usize, |total, item| {
            total.saturating_add(match *item {
                DiffItem::Banner(banner) => banner.len(),
                DiffItem::Line(position) => line_length(position),
                DiffItem::Removed(position) => earlier_line_length(position),
                DiffItem::RemovedCount { count, after_shown } => {
                    DiffItem::removed_count_line(count, after_shown).len()
                }
            })
        });
        lines.saturating_add(self.items.len().saturating_sub(1))
    }

    /// The output, over the current lines' texts and the earlier ones' (a position past them
    /// prints nothing).
    pub fn text<Text: AsRef<str>>(&self, lines: &[Text], earlier_lines: &[Text]) -> String {
        let mut text = String::new();
        for (index, item) in self.items.iter().enumerate() {
            if index > 0 {
                text.push('\n');
            }
            match *item {
                DiffItem::Banner(banner) => text.push_str(banner),
                DiffItem::Line(position) => {
                    if let Some(line) = lines.get(position) {
                        text.push_str(line.as_ref());
                    }
                }
                DiffItem::Removed(position) => {
                    if let Some(line) = earlier_lines.get(position) {
                        text.push_str(line.as_ref());
                    }
                }
                DiffItem::RemovedCount { count, after_shown } => {
                    text.push_str(&DiffItem::removed_count_line(count, after_shown));
                }
            }
        }
        text
    }
}

/// What changed between two snapshots, with its text: [`DiffPlan`] written over the lines.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TreeDiff {
    /// The changed subtrees under their context, or empty when nothing changed.
    pub text: String,
    /// How many `[changed]` blocks the text holds.
    pub changed_blocks: usize,
    /// The reference numbers the earlier snapshot printed and this one does not, in the earlier
    /// print order.
    pub removed_references: Vec<u32>,
    /// The page's lines, or the overlays', are all gone, some of them without a reference to
    /// list: a change that no block can show (the caller returns the whole tree).
    pub section_emptied: bool,
    /// The positions (in the current lines) of every line the text prints, context included,
    /// in print order: the caller reports their references as printed.
    pub printed_lines: Vec<usize>,
    /// The plan the text was written from.
    pub plan: DiffPlan,
}

impl TreeDiff {
    /// Nothing was added, changed, moved, replaced or removed.
    pub fn is_unchanged(&self) -> bool {
        self.plan.is_unchanged()
    }
}

/// The shape of one snapshot: each line's parent and children, by position.
struct Shape {
    parent: Vec<Option<usize>>,
    children: Vec<Vec<usize>>,
    /// The top-level lines of the overlays, then of the page tree.
    roots: [Vec<usize>; 2],
}

impl Shape {
    fn of(records: &[LineRecord]) -> Shape {
        let mut parent = vec![None; records.len()];
        let mut children = vec![Vec::new(); records.len()];
        let mut roots = [Vec::new(), Vec::new()];
        let mut stack: Vec<usize> = Vec::new();
        let mut section = None;
        for (position, record) in records.iter().enumerate() {
            if section != Some(record.overlay) {
                stack.clear();
                section = Some(record.overlay);
            }
            stack.truncate(record.depth as usize);
            match stack.last() {
                Some(&above) => {
                    parent[position] = Some(above);
                    children[above].push(position);
                }
                None => roots[section_index(record.overlay)].push(position),
            }
            stack.push(position);
        }
        Shape {
            parent,
            children,
            roots,
        }
    }

    /// The children of a parent: a line's, or the top lines of a part of the tree.
    fn children_of(&self, parent: Parent) -> &[usize] {
        match parent {
            Parent::Line(position) => &self.children[position],
            Parent::Top(section) => &self.roots[section],
        }
    }

    /// Where a line hangs, by position.
    fn parent_of(&self, records: &[LineRecord], position: usize) -> Parent {
        match self.parent[position] {
            Some(above) => Parent::Line(above),
            None => Parent::Top(section_index(records[position].overlay)),
        }
    }
}

fn section_index(overlay: bool) -> usize {
    if overlay {
        0
    } else {
        1
    }
}

/// Where a line hangs: under a parent (its identity), or at the top of a part of the tree.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
enum Place {
    Under(u32),
    Top { overlay: bool },
}

/// A parent of lines in one snapshot, by position: a line, or the top of a part of the tree
/// (0 the overlays, 1 the page, as [`section_index`]).
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
enum Parent {
    Line(usize),
    Top(usize),
}

/// Compares the current lines (`current[i]` is the record of the line printed `lines[i]`) with
/// a snapshot whose lines were `earlier_lines`, and writes what changed.
pub fn diff<Text: AsRef<str>>(
    previous: &[LineRecord],
    earlier_lines: &[Text],
    current: &[LineRecord],
    lines: &[Text],
) -> TreeDiff {
    let plan = plan(previous, current);
    TreeDiff {
        text: plan.text(lines, earlier_lines),
        printed_lines: plan.printed_lines(),
        changed_blocks: plan.changed_blocks,
        removed_references: plan.removed_references.clone(),
        section_emptied: plan.section_emptied,
        plan,
    }
}

/// Compares the current lines' records with a snapshot's, for a caller that keeps the
/// snapshot's lines: which lines a diff prints, and what it reports besides.
pub fn plan(previous: &[LineRecord], current: &[LineRecord]) -> DiffPlan {
    plan_with(previous, current, true)
}

/// [`plan`]; `earlier_texts_kept` says whether the caller can print the snapshot's lines: when
/// it cannot, the lines that left are counted under `[removed]` rather than shown.
pub fn plan_with(
    previous: &[LineRecord],
    current: &[LineRecord],
    earlier_texts_kept: bool,
) -> DiffPlan {
    let before = Shape::of(previous);
    let now = Shape::of(current);
    let largest_identity = previous
        .iter()
        .chain(current)
        .map(|record| record.identity)
        .max()
        .unwrap_or(0);
    let earlier_position = IdentityIndex::of(previous, largest_identity);
    let current_position = IdentityIndex::of(current, largest_identity);
    // The same node's line in the other snapshot (its identity occurs once in each).
    let earlier_of = |position: usize| -> Option<usize> {
        let identity = current[position].identity;
        match earlier_position.get(identity) {
            Some(earlier) if current_position.get(identity) == Some(position) => Some(earlier),
            _ => None,
        }
    };
    let now_of = |earlier: usize| -> Option<usize> {
        let identity = previous[earlier].identity;
        match current_position.get(identity) {
            Some(position) if earlier_position.get(identity) == Some(earlier) => Some(position),
            _ => None,
        }
    };
    let place =
        |records: &[LineRecord], shape: &Shape, position: usize| match shape.parent[position] {
            Some(parent) => Place::Under(records[parent].identity),
            None => Place::Top {
                overlay: records[position].overlay,
            },
        };

    // The parents whose children are compared: every line both snapshots have, and the tops.
    // Nearly every line's children are exactly those of before; those are left out at once.
    let mut parents: Vec<(Parent, Parent)> = Vec::new();
    for section in 0..2 {
        parents.push((Parent::Top(section), Parent::Top(section)));
    }
    for position in 0..current.len() {
        if let Some(earlier) = earlier_of(position) {
            parents.push((Parent::Line(position), Parent::Line(earlier)));
        }
    }
    parents.retain(|&(parent_now, parent_before)| {
        let children_now = now.children_of(parent_now);
        let children_before = before.children_of(parent_before);
        !(children_now.len() == children_before.len()
            && children_now
                .iter()
                .zip(children_before)
                .all(|(&child, &earlier)| earlier_of(child) == Some(earlier)))
    });

    // Parts rendered again: under one parent, a new child whose lines are those of a child
    // that left (the same words, depths and reference or none, every line new and every old
    // one gone), at the same place among the children both snapshots have, in order.
    let mut replacement: Vec<Option<usize>> = vec![None; current.len()];
    let mut replaced_before = vec![false; previous.len()];
    let mut replaced_references = Vec::new();
    let mut replaced_lines = Vec::new();
    for &(parent_now, parent_before) in &parents {
        let fresh = anchored(now.children_of(parent_now), |child| {
            earlier_of(child).map(|_| current[child].identity)
        });
        let gone = anchored(before.children_of(parent_before), |child| {
            now_of(child).map(|_| previous[child].identity)
        });
        if fresh.is_empty() || gone.is_empty() {
            continue;
        }
        let mut next_gone = 0;
        for &(child, anchor) in &fresh {
            let found = gone[next_gone..].iter().position(|&(old, old_anchor)| {
                old_anchor == anchor
                    && same_part(previous, old, current, child, &earlier_of, &now_of)
            });
            let Some(offset) = found else { continue };
            let old = gone[next_gone + offset].0;
            next_gone += offset + 1;
            for line in 0..subtree_end(current, child) - child {
                let (earlier, position) = (old + line, child + line);
                replacement[position] = Some(earlier);
                replaced_before[earlier] = true;
                replaced_lines.push((earlier, position));
                let (old_reference, new_reference) =
                    (previous[earlier].reference, current[position].reference);
                if old_reference != 0 && new_reference != 0 && old_reference != new_reference {
                    replaced_references.push((old_reference, new_reference));
                }
            }
        }
    }

    // A line is changed when it is new, printed differently, or hangs elsewhere.
    let mut changed = vec![false; current.len()];
    // Placed: it is new or hangs elsewhere, so its context names the sibling it follows.
    let mut placed = vec![false; current.len()];
    for (position, record) in current.iter().enumerate() {
        if replacement[position].is_some() {
            continue;
        }
        match earlier_of(position) {
            Some(earlier) => {
                let old = &previous[earlier];
                let moved = place(previous, &before, earlier) != place(current, &now, position);
                placed[position] = moved;
                changed[position] = moved
                    || old.hash != record.hash
                    || old.reference != record.reference
                    || old.depth != record.depth
                    || old.overlay != record.overlay;
            }
            None => {
                changed[position] = true;
                placed[position] = true;
            }
        }
    }
    // Under each parent: the children both snapshots have that changed their order are placed
    // again, and only those: the longest run that kept its order stays (a re-sorted list
    // reports the items that moved, not the list). The children that left without a reference
    // to list (a text run) are told under `[removed]`, below their parent's line, rather than
    // by printing the parent whole: a removed paragraph must not make all of `main` a change.
    let mut removals: HashMap<Parent, Vec<usize>> = HashMap::new();
    for &(parent_now, parent_before) in &parents {
        // A run of text whose words changed in place (a status line, a counter, a fixture's
        // state) is a new line after the same unchanged sibling as the run that left: the new
        // words are printed under `[changed]`, and the old ones would only repeat what the
        // reader already read. Such a pair is a rewrite, not a removal.
        let single_text_run = |records: &[LineRecord], position: usize| {
            records[position].text_run
                && records[position].reference == 0
                && subtree_end(records, position) == position + 1
        };
        let mut rewritten_anchors: Vec<Option<u32>> =
            anchored(now.children_of(parent_now), |child| {
                earlier_of(child).map(|_| current[child].identity)
            })
            .into_iter()
            .filter(|&(child, _)| replacement[child].is_none() && single_text_run(current, child))
            .map(|(_, anchor)| anchor)
            .collect();
        let rewritten: Vec<usize> = anchored(before.children_of(parent_before), |child| {
            now_of(child).map(|_| previous[child].identity)
        })
        .into_iter()
        .filter(|&(earlier, anchor)| {
            if replaced_before[earlier] || !single_text_run(previous, earlier) {
                return false;
            }
            let Some(index) = rewritten_anchors.iter().position(|&fresh| fresh == anchor) else {
                return false;
            };
            rewritten_anchors.swap_remove(index);
            true
        })
        .map(|(earlier, _)| earlier)
        .collect();
        let children_before = before.children_of(parent_before);
        let mut kept = Vec::new();
        let mut order = Vec::new();
        for &child in now.children_of(parent_now) {
            if replacement[child].is_some() {
                continue;
            }
            let Some(earlier) = earlier_of(child) else {
                continue;
            };
            if let Ok(index) = children_before.binary_search(&earlier) {
                kept.push(child);
                order.push(index);
            }
        }
        for (child, in_order) in kept.iter().zip(longest_increasing(&order)) {
            if !in_order {
                changed[*child] = true;
                placed[*child] = true;
            }
        }
        for &earlier in children_before {
            if replaced_before[earlier] {
                continue;
            }
            let still_here =
                now_of(earlier).is_some_and(|child| now.parent_of(current, child) == parent_now);
            let record = &previous[earlier];
            if !still_here
                && (record.reference == 0 || record.identity == UNKNOWN_IDENTITY)
                && !rewritten.contains(&earlier)
            {
                removals.entry(parent_now).or_default().push(earlier);
            }
        }
    }
    // A part of the tree (the page, or the open overlays) that has no line left, and lost one
    // that printed no reference: nothing can be placed under it (the caller returns the whole
    // tree).
    let section_emptied = (0..2).any(|section| {
        now.roots[section].is_empty() && removals.contains_key(&Parent::Top(section))
    });

    let mut out = Diff::default();
    let mut removed_lines = Vec::new();
    let mut write_removed = |out: &mut Diff, context: Vec<usize>, overlay: bool, tops: &[usize]| {
        if !context.is_empty() {
            out.push_banner(CONTEXT_BANNER);
            if overlay {
                out.push_banner(OVERLAYS_BANNER_LINE);
            }
            for line in context.iter().copied() {
                out.push_line(line);
            }
        }
        out.push_banner(REMOVED_BANNER);
        if context.is_empty() && overlay {
            out.push_banner(OVERLAYS_BANNER_LINE);
        }
        let total: usize = tops
            .iter()
            .map(|&top| subtree_end(previous, top) - top)
            .sum();
        let mut shown = 0;
        if earlier_texts_kept {
            'tops: for &top in tops {
                for line in top..subtree_end(previous, top) {
                    if shown == REMOVED_LINES_SHOWN {
                        break 'tops;
                    }
                    out.items.push(DiffItem::Removed(line));
                    shown += 1;
                }
            }
        }
        if total > shown {
            out.items.push(DiffItem::RemovedCount {
                count: total - shown,
                after_shown: shown > 0,
            });
        }
        removed_lines.extend_from_slice(tops);
    };
    // The parts at the top of each section that left are told before the section's first line.
    let mut tops_told = [false, false];
    let mut position = 0;
    // The parent and end of the last region written, to join a region that follows on directly
    // under the same parent to its block.
    let mut last_region: Option<(Option<usize>, usize)> = None;
    while position < current.len() {
        let section = section_index(current[position].overlay);
        if !tops_told[section] {
            tops_told[section] = true;
            if let Some(tops) = removals.get(&Parent::Top(section)) {
                write_removed(&mut out, Vec::new(), section == 0, tops);
                last_region = None;
            }
        }
        if !changed[position] {
            if let Some(tops) = removals.get(&Parent::Line(position)) {
                let mut context = context_lines(&now, current, &changed, position, false);
                context.push(position);
                if current[position].name_left_to_first_child {
                    if let Some(&first_child) = now.children[position].first() {
                        if !changed[first_child] {
                            context.push(first_child);
                        }
                    }
                }
                write_removed(&mut out, context, current[position].overlay, tops);
                last_region = None;
            }
            position += 1;
            continue;
        }
        let end = subtree_end(current, position);
        let parent = now.parent[position];
        let joins_previous = last_region
            .is_some_and(|(last_parent, last_end)| last_end == position && last_parent == parent);
        if !joins_previous {
            let context = context_lines(&now, current, &changed, position, placed[position]);
            if !context.is_empty() {
                out.push_banner(CONTEXT_BANNER);
                if current[position].overlay {
                    out.push_banner(OVERLAYS_BANNER_LINE);
                }
                for line in context {
                    out.push_line(line);
                }
            }
            out.push_banner(CHANGED_BANNER);
            if context_is_empty_overlay(&now, current, &changed, position, placed[position]) {
                out.push_banner(OVERLAYS_BANNER_LINE);
            }
            out.changed_blocks += 1;
        }
        for line in position..end {
            out.push_line(line);
        }
        last_region = Some((parent, end));
        position = end;
    }
    for (section, told) in tops_told.iter().enumerate() {
        if !told {
            if let Some(tops) = removals.get(&Parent::Top(section)) {
                write_removed(&mut out, Vec::new(), section == 0, tops);
            }
        }
    }

    // Sorted rather than hashed: the same reason as IdentityIndex.
    let mut still_printed: Vec<u32> = current
        .iter()
        .map(|record| record.reference)
        .filter(|&reference| reference != 0)
        .collect();
    still_printed.sort_unstable();
    let mut replaced_old: Vec<u32> = replaced_references.iter().map(|&(old, _)| old).collect();
    replaced_old.sort_unstable();
    let mut removed = Vec::new();
    let mut seen = HashSet::new();
    for record in previous {
        if record.reference != 0
            && still_printed.binary_search(&record.reference).is_err()
            && replaced_old.binary_search(&record.reference).is_err()
            && seen.insert(record.reference)
        {
            removed.push(record.reference);
        }
    }
    DiffPlan {
        items: out.items,
        changed_blocks: out.changed_blocks,
        removed_references: removed,
        section_emptied,
        replaced_references,
        replaced_lines,
        removed_lines,
    }
}

/// Identity -> position, for the identities that occur exactly once (a line whose identity is
/// unknown or repeated cannot be matched, so it counts as new). Identities are small numbers
/// handed out in order (one per node the content script ever gathered), so the index is a
/// dense table when they are, and a hash map only when they are spread out: hashing every line
/// of a 10k-element page twice per read cost more than the rest of the comparison in the
/// wasm2js build.
enum IdentityIndex {
    Dense(Vec<u32>),
    Sparse(HashMap<u32, usize>),
}

/// Marks a dense slot that holds no line, or a repeated identity.
const NO_LINE: u32 = u32::MAX;
const REPEATED: u32 = u32::MAX - 1;

impl IdentityIndex {
    fn of(records: &[LineRecord], largest_identity: u32) -> IdentityIndex {
        let dense_size = largest_identity as usize + 1;
        if dense_size <= 4 * records.len() + 4096 && records.len() < REPEATED as usize {
            let mut table = vec![NO_LINE; dense_size];
            for (position, record) in records.iter().enumerate() {
                if record.identity == UNKNOWN_IDENTITY {
                    continue;
                }
                let slot = &mut table[record.identity as usize];
                *slot = if *slot == NO_LINE {
                    position as u32
                } else {
                    REPEATED
                };
            }
            return IdentityIndex::Dense(table);
        }
        let mut positions: HashMap<u32, usize> = HashMap::with_capacity(records.len());
        let mut repeated = HashSet::new();
        for (position, record) in records.iter().enumerate() {
            if record.identity == UNKNOWN_IDENTITY {
                continue;
            }
            if positions.insert(record.identity, position).is_some() {
                repeated.insert(record.identity);
            }
        }
        for identity in repeated {
            positions.remove(&identity);
        }
        IdentityIndex::Sparse(positions)
    }

    fn get(&self, identity: u32) -> Option<usize> {
        match self {
            IdentityIndex::Dense(table) => match table.get(identity as usize).copied() {
                Some(NO_LINE) | Some(REPEATED) | None => None,
                Some(position) => Some(position as usize),
            },
            IdentityIndex::Sparse(positions) => positions.get(&identity).copied(),
        }
    }
}

/// Whether the part at `position` (a current line and its subtree) shows the same lines as the
/// part that left at `earlier`: a page that rendered a part again with new elements. Every
/// line of it must be new and every old one gone (a line both snapshots have is compared as
/// itself), and each pair of lines alike but for the reference number: the same words, the
/// same depth under the part's top, a reference printed on both or neither.
fn same_part(
    previous: &[LineRecord],
    earlier: usize,
    current: &[LineRecord],
    position: usize,
    earlier_of: &dyn Fn(usize) -> Option<usize>,
    now_of: &dyn Fn(usize) -> Option<usize>,
) -> bool {
    let length = subtree_end(current, position) - position;
    if subtree_end(previous, earlier) - earlier != length {
        return false;
    }
    (0..length).all(|line| {
        let (old, new) = (&previous[earlier + line], &current[position + line]);
        old.hash == new.hash
            && old.depth.wrapping_sub(previous[earlier].depth)
                == new.depth.wrapping_sub(current[position].depth)
            && old.overlay == new.overlay
            && (old.reference == 0) == (new.reference == 0)
            && old.name_left_to_first_child == new.name_left_to_first_child
            && earlier_of(position + line).is_none()
            && now_of(earlier + line).is_none()
    })
}

/// Which items of `sequence` belong to one of its longest strictly increasing subsequences
/// (patience sorting, O(n log n)): the children that kept their order among themselves.
fn longest_increasing(sequence: &[usize]) -> Vec<bool> {
    // tails[k]: the index of the smallest last value of an increasing run of length k + 1.
    let mut tails: Vec<usize> = Vec::new();
    let mut before: Vec<Option<usize>> = vec![None; sequence.len()];
    for (index, &value) in sequence.iter().enumerate() {
        let length = tails.partition_point(|&tail| sequence[tail] < value);
        if length > 0 {
            before[index] = Some(tails[length - 1]);
        }
        if length == tails.len() {
            tails.push(index);
        } else {
            tails[length] = index;
        }
    }
    let mut in_run = vec![false; sequence.len()];
    let mut next = tails.last().copied();
    while let Some(index) = next {
        in_run[index] = true;
        next = before[index];
    }
    in_run
}

/// The children of one parent that `kept` does not match in the other snapshot, each with the
/// identity of the last matched child before it (`None`: none before it): its place among the
/// children both snapshots have.
fn anchored(children: &[usize], kept: impl Fn(usize) -> Option<u32>) -> Vec<(usize, Option<u32>)> {
    let mut anchor = None;
    let mut unmatched = Vec::new();
    for &child in children {
        match kept(child) {
            Some(identity) => anchor = Some(identity),
            None => unmatched.push((child, anchor)),
        }
    }
    unmatched
}

/// The position after the last line of the subtree that starts at `start`.
fn subtree_end(records: &[LineRecord], start: usize) -> usize {
    let depth = records[start].depth;
    let overlay = records[start].overlay;
    let mut end = start + 1;
    while end < records.len() && records[end].overlay == overlay && records[end].depth > depth {
        end += 1;
    }
    end
}

/// The unchanged lines that place a change: its ancestors from the top (each one that leaves
/// its name to its first child followed by that child's line, so that it reads with its name),
/// then, for a node that was added or moved, the sibling it follows.
fn context_lines(
    shape: &Shape,
    records: &[LineRecord],
    changed: &[bool],
    start: usize,
    placed: bool,
) -> Vec<usize> {
    let mut ancestors = Vec::new();
    let mut above = shape.parent[start];
    while let Some(line) = above {
        ancestors.push(line);
        above = shape.parent[line];
    }
    ancestors.reverse();
    // An ancestor that left its name to its first child (a region labelled by its heading)
    // would read as a bare role: its first child's line follows it, when that line is not a
    // change itself (it is then printed in its block) and not already in the context.
    let mut context = Vec::with_capacity(ancestors.len() * 2);
    for (index, &ancestor) in ancestors.iter().enumerate() {
        context.push(ancestor);
        if !records[ancestor].name_left_to_first_child {
            continue;
        }
        if let Some(&first_child) = shape.children[ancestor].first() {
            let next_in_context = ancestors.get(index + 1).copied().unwrap_or(start);
            if first_child != next_in_context && !changed[first_child] {
                context.push(first_child);
            }
        }
    }
    let mut ancestors = context;
    if placed {
        let siblings = match shape.parent[start] {
            Some(parent) => &shape.children[parent],
            None => &shape.roots[section_index(records[start].overlay)],
        };
        if let Some(slot) = siblings.iter().position(|&line| line == start) {
            if slot > 0 && ancestors.last() != Some(&siblings[slot - 1]) {
                ancestors.push(siblings[slot - 1]);
            }
        }
    }
    ancestors
}

/// A change at the top of the overlays with nothing before it: the `[open overlays]` banner
/// goes under `[changed]`, since there is no context block to carry it.
fn context_is_empty_overlay(
    shape: &Shape,
    records: &[LineRecord],
    changed: &[bool],
    start: usize,
    placed: bool,
) -> bool {
    records[start].overlay && context_lines(shape, records, changed, start, placed).is_empty()
}

#[derive(Default)]
struct Diff {
    items: Vec<DiffItem>,
    changed_blocks: usize,
}

impl Diff {
    fn push_banner(&mut self, banner: &'static str) {
        self.items.push(DiffItem::Banner(banner));
    }

    fn push_line(&mut self, position: usize) {
        self.items.push(DiffItem::Line(position));
    }
}
