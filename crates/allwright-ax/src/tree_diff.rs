//! Reads that send only what changed (docs/protocol.md, "Reads since a snapshot"): the lines of
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
//! `[unchanged context]` and `[changed]`. No placeholder stands for an unchanged subtree and
//! nothing refers to an earlier answer: Playwright's withdrawn diff mode printed `ref=e4
//! [unchanged]` for those, which readers (models and parsers) took for elements.

use std::collections::{HashMap, HashSet};

use crate::text::{TreeLine, OVERLAYS_BANNER_LINE};

/// The banner above the unchanged lines that place a change: its ancestors, and the sibling
/// before an added or moved node.
pub const CONTEXT_BANNER: &str = "[unchanged context]";
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
}

/// The records of a tree's lines; `identity_of` names each line's node.
pub fn records_of(lines: &[TreeLine], identity_of: impl Fn(&TreeLine) -> u32) -> Vec<LineRecord> {
    lines
        .iter()
        .map(|line| LineRecord {
            identity: identity_of(line),
            depth: u32::try_from(line.depth).unwrap_or(u32::MAX),
            overlay: line.overlay,
            hash: line_hash(&line.text),
            reference: line.reference.unwrap_or(0),
            name_left_to_first_child: line.name_left_to_first_child,
        })
        .collect()
}

/// 64-bit FNV-1a: the lines of a snapshot are compared by hash, so that the record holds no text.
fn line_hash(text: &str) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in text.bytes() {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    hash
}

/// The flat encoding: identity, depth (the top bit set for an overlay line, the next one for a
/// line that leaves its name to its first child), the hash's low and high halves, the reference
/// number.
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
                },
        );
        flat.push(record.hash as u32);
        flat.push((record.hash >> 32) as u32);
        flat.push(record.reference);
    }
    flat
}

const OVERLAY_BIT: u32 = 1 << 31;
const NAME_LEFT_TO_FIRST_CHILD_BIT: u32 = 1 << 30;
/// The bits of a record's second number that hold the depth (the content script reads them
/// with the same mask, tree/snapshots.js `LINE_DEPTH_MASK`).
const DEPTH_MASK: u32 = NAME_LEFT_TO_FIRST_CHILD_BIT - 1;

/// Reads [`encode_records`]' numbers back; a trailing partial record is ignored.
pub fn decode_records(flat: &[u32]) -> Vec<LineRecord> {
    flat.chunks_exact(RECORD_WIDTH)
        .map(|numbers| LineRecord {
            identity: numbers[0],
            depth: numbers[1] & DEPTH_MASK,
            overlay: numbers[1] & OVERLAY_BIT != 0,
            name_left_to_first_child: numbers[1] & NAME_LEFT_TO_FIRST_CHILD_BIT != 0,
            hash: u64::from(numbers[2]) | (u64::from(numbers[3]) << 32),
            reference: numbers[4],
        })
        .collect()
}

/// A snapshot's lines (records, or anything kept per line) after some of its runs of lines were
/// re-read: `replaced` holds `start, end, count` triples, in ascending order and not
/// overlapping, each replacing the lines `start..end` of `previous` by the next `count` items of
/// `replacement`. This is how the content script describes a read that re-read only the changed
/// parts (docs/protocol.md, "Reads since a snapshot"): every line outside the replaced runs is
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

/// One line of a diff's output: a banner, or the current line at a position.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum DiffItem {
    /// A banner line ([`CONTEXT_BANNER`], [`CHANGED_BANNER`] or the overlays banner).
    Banner(&'static str),
    /// The current line at this position.
    Line(usize),
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
    /// print order.
    pub removed_references: Vec<u32>,
    /// The page's lines, or the overlays', are all gone, some of them without a reference to
    /// list: a change that no block can show (the caller returns the whole tree).
    pub section_emptied: bool,
}

impl DiffPlan {
    /// Nothing was added, changed, moved or removed.
    pub fn is_unchanged(&self) -> bool {
        self.changed_blocks == 0 && self.removed_references.is_empty() && !self.section_emptied
    }

    /// The positions of the current lines the output prints, context included, in print order.
    pub fn printed_lines(&self) -> Vec<usize> {
        self.items
            .iter()
            .filter_map(|item| match *item {
                DiffItem::Line(position) => Some(position),
                DiffItem::Banner(_) => None,
            })
            .collect()
    }

    /// The length of the output, given each current line's length (in whatever unit the caller
    /// counts; a banner counts its characters, which are ASCII, and each line break one).
    pub fn length(&self, line_length: impl Fn(usize) -> usize) -> usize {
        // Saturating: the lengths come from the caller (the content script), and a sum past
        // the largest number means "too long" all the same.
        let lines = self.items.iter().fold(0usize, |total, item| {
            total.saturating_add(match *item {
                DiffItem::Banner(banner) => banner.len(),
                DiffItem::Line(position) => line_length(position),
            })
        });
        lines.saturating_add(self.items.len().saturating_sub(1))
    }

    /// The output, over the current lines' texts (a position past them prints nothing).
    pub fn text<Text: AsRef<str>>(&self, lines: &[Text]) -> String {
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
}

impl TreeDiff {
    /// Nothing was added, changed, moved or removed.
    pub fn is_unchanged(&self) -> bool {
        self.changed_blocks == 0 && self.removed_references.is_empty() && !self.section_emptied
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

/// Compares the current lines (`current[i]` is the record of the line printed `lines[i]`) with
/// a snapshot, and writes what changed.
pub fn diff<Text: AsRef<str>>(
    previous: &[LineRecord],
    current: &[LineRecord],
    lines: &[Text],
) -> TreeDiff {
    let plan = plan(previous, current);
    TreeDiff {
        text: plan.text(lines),
        printed_lines: plan.printed_lines(),
        changed_blocks: plan.changed_blocks,
        removed_references: plan.removed_references,
        section_emptied: plan.section_emptied,
    }
}

/// Compares the current lines' records with a snapshot's: which lines a diff prints, and what
/// it reports besides.
pub fn plan(previous: &[LineRecord], current: &[LineRecord]) -> DiffPlan {
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
    let place =
        |records: &[LineRecord], shape: &Shape, position: usize| match shape.parent[position] {
            Some(parent) => Place::Under(records[parent].identity),
            None => Place::Top {
                overlay: records[position].overlay,
            },
        };

    // A line is changed when it is new, printed differently, or hangs elsewhere.
    let mut changed = vec![false; current.len()];
    // Placed: it is new or hangs elsewhere, so its context names the sibling it follows.
    let mut placed = vec![false; current.len()];
    for (position, record) in current.iter().enumerate() {
        match earlier_position.get(record.identity) {
            Some(earlier) if current_position.get(record.identity) == Some(position) => {
                let old = &previous[earlier];
                let moved = place(previous, &before, earlier) != place(current, &now, position);
                placed[position] = moved;
                changed[position] = moved
                    || old.hash != record.hash
                    || old.depth != record.depth
                    || old.overlay != record.overlay;
            }
            _ => {
                changed[position] = true;
                placed[position] = true;
            }
        }
    }
    // A line whose children were reordered, or lost a line that printed no reference (a text
    // run), is printed whole: the removed references alone would not tell the reader.
    // Added children are changed lines of their own and need nothing of their parent.
    for (position, record) in current.iter().enumerate() {
        if changed[position] {
            continue;
        }
        if let Some(earlier) = earlier_position.get(record.identity) {
            if !same_children(
                previous,
                &before.children[earlier],
                current,
                &now.children[position],
            ) {
                changed[position] = true;
            }
        }
    }
    // A part of the tree (the page, or the open overlays) whose top lines changed has them
    // printed whole; when it has no line left at all, nothing can be printed for it, and the
    // lines it lost may have printed no reference: the diff is then not "unchanged".
    let mut section_emptied = false;
    for overlay in [true, false] {
        let index = section_index(overlay);
        if !same_children(previous, &before.roots[index], current, &now.roots[index]) {
            section_emptied |= now.roots[index].is_empty();
            for &root in &now.roots[index] {
                changed[root] = true;
            }
        }
    }

    let mut out = Diff::default();
    let mut position = 0;
    // The parent and end of the last region written, to join a region that follows on directly
    // under the same parent to its block.
    let mut last_region: Option<(Option<usize>, usize)> = None;
    while position < current.len() {
        if !changed[position] {
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

    // Sorted rather than hashed: the same reason as IdentityIndex.
    let mut still_printed: Vec<u32> = current
        .iter()
        .map(|record| record.reference)
        .filter(|&reference| reference != 0)
        .collect();
    still_printed.sort_unstable();
    let mut removed = Vec::new();
    let mut seen = HashSet::new();
    for record in previous {
        if record.reference != 0
            && still_printed.binary_search(&record.reference).is_err()
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

/// Whether a line's children are the same for a reader who is told the removed references
/// and shown the added children: the children both snapshots have keep their order, and every
/// child that left printed a reference.
fn same_children(
    previous: &[LineRecord],
    before: &[usize],
    current: &[LineRecord],
    now: &[usize],
) -> bool {
    // Nearly every line's children are exactly those of before: no allocation for them.
    if before.len() == now.len()
        && before
            .iter()
            .zip(now)
            .all(|(&old, &new)| previous[old].identity == current[new].identity)
    {
        return true;
    }
    let identities_now: HashSet<u32> = now.iter().map(|&line| current[line].identity).collect();
    let identities_before: HashSet<u32> =
        before.iter().map(|&line| previous[line].identity).collect();
    let kept_before: Vec<u32> = before
        .iter()
        .map(|&line| previous[line].identity)
        .filter(|identity| identities_now.contains(identity))
        .collect();
    let kept_now: Vec<u32> = now
        .iter()
        .map(|&line| current[line].identity)
        .filter(|identity| identities_before.contains(identity))
        .collect();
    let left_without_reference = before.iter().any(|&line| {
        let record = &previous[line];
        !identities_now.contains(&record.identity)
            && (record.reference == 0 || record.identity == UNKNOWN_IDENTITY)
    });
    kept_before == kept_now && !left_without_reference
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
