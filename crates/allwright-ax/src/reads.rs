//! The reads the extension asks of the core, and the one place where their results become text
//! for JavaScript: a text tree read (with its reference numbering and, for a read since a
//! snapshot, the choice between the whole tree and only what changed), the comparison of a
//! snapshot with the parts of it the content script re-read, and the structured snapshot with
//! its "ai" mode references.
//!
//! Every operation returns one string: a line of JSON (the envelope), a line break, then the
//! body. The envelope is `{"ok":true,...}` with the metadata, or `{"ok":false,"error":{code,
//! message, hint?}}` with an empty body. The body is the text tree or the snapshot document as
//! written by the core, sent raw so that a large document is not escaped into JSON and parsed
//! back. The envelope never holds a raw line break (`push_quoted` escapes them), so the first
//! `\n` ends it.
//!
//! The operations are generic over the DOM: the browser runs them over the facts the content
//! script gathered (crates/allwright-ax-wasm, which only converts arguments), the tests over the
//! in-memory DOM. Lengths are counted in Unicode scalar values throughout, the unit of `maxChars`
//! (docs/protocol/host-safety.md, "Sizes of a read").

use crate::dom::{Dom, NodeId, NodeKind};
use crate::snapshot::{
    push_decimal, push_quoted, write_json_document, write_yaml_document, Format, SnapshotDocument,
};
use crate::text::{Filter, TextTree, TextTreeError, TextTreeOptions, MIN_MAX_CHARS};
use crate::tree::AxRole;
use crate::tree_diff::{self, DiffItem, DiffPlan, UNKNOWN_IDENTITY};
use crate::{generate_accessibility_tree, snapshot_tree};

/// The arguments of `get_accessibility_tree` once the content script has resolved `ref_id` to a
/// node, plus the registry facts the glue needs to keep references stable.
#[derive(Clone, Debug)]
pub struct TextTreeRequest<'input> {
    pub filter: &'input str,
    pub max_depth: u32,
    pub max_chars: Option<u32>,
    /// The node of `ref_id`, when anchored.
    pub anchor: Option<NodeId>,
    /// The `ref_id` itself, echoed in `continuationArgs`.
    pub anchor_ref: Option<&'input str>,
    pub page: u32,
    /// `[node, N]` pairs: elements that already own `ref_N` and must keep it.
    pub known_refs: &'input [u32],
    /// `window.__wbRefCounter`: new references are numbered from this plus one.
    pub ref_counter: u32,
    pub url: &'input str,
    pub title: &'input str,
    /// `[node, frameId]` pairs: frame elements whose child frame the browser's inventory names;
    /// their lines print `frameId=N` (docs/protocol/frames.md, "Frames"). Numbers, not u32: Firefox's
    /// frame ids exceed 32 bits (they stay below 2^53, JavaScript's exact integers).
    pub frame_ids: &'input [f64],
    /// The content script's identity of each gathered node, by node index (docs/protocol/reading.md,
    /// "Reads since a snapshot"). Not empty: the records of this tree's lines, which a later
    /// read compares against, are written out ([`text_tree_output_into`]).
    pub identities: &'input [u32],
    /// The flat records of the snapshot named by `since`, when the content script found it and
    /// the read's arguments match it: the body is then only what changed, unless that is not
    /// shorter than the whole tree.
    pub previous_lines: Option<&'input [u32]>,
    /// `Some(depth)` when this read is one part of a whole read being put together (a read
    /// since a snapshot re-reads only the parts that changed; docs/protocol.md): the anchor's
    /// line sits at `depth` in the whole tree, every line is indented by it
    /// (`TextTreeOptions::depth_offset`), and the anchor prints as the whole tree prints it, not
    /// as the first line of a read (`TextTreeOptions::part_of_whole`). `None` for an agent's read.
    pub depth_offset: Option<u32>,
}

impl TextTreeRequest<'static> {
    /// A read of the whole page with the core's defaults: every node (`all`), the default
    /// depth, no character limit, page 1, no anchor, no references known before, no line
    /// records. Callers in Rust (the warm-up, tests) change the fields they need.
    pub fn whole_page() -> Self {
        TextTreeRequest {
            filter: "all",
            max_depth: crate::text::DEFAULT_MAX_DEPTH as u32,
            max_chars: None,
            anchor: None,
            anchor_ref: None,
            page: 1,
            known_refs: &[],
            ref_counter: 0,
            url: "",
            title: "",
            frame_ids: &[],
            identities: &[],
            previous_lines: None,
            depth_offset: None,
        }
    }
}

/// An error for the agent: one of the codes of docs/protocol.md.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolError {
    pub code: &'static str,
    pub message: String,
    pub hint: Option<String>,
}

impl ToolError {
    pub fn new(code: &'static str, message: impl Into<String>) -> Self {
        ToolError {
            code,
            message: message.into(),
            hint: None,
        }
    }

    pub fn with_hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }

    /// The output string of a failed operation.
    pub fn to_output(&self) -> String {
        let mut out = String::from("{\"ok\":false,\"error\":{\"code\":");
        push_quoted(&mut out, self.code);
        out.push_str(",\"message\":");
        push_quoted(&mut out, &self.message);
        if let Some(hint) = &self.hint {
            out.push_str(",\"hint\":");
            push_quoted(&mut out, hint);
        }
        out.push_str("}}\n");
        out
    }
}

fn push_field_name(out: &mut String, name: &str) {
    out.push(',');
    push_quoted(out, name);
    out.push(':');
}

/// `get_accessibility_tree`: the envelope holds `result` (every metadata field of the tool's
/// result, `tree` excepted: it is the body), `newRefs`, the nodes that received new references,
/// in order (the first is `ref_{ref_counter + 1}`, the next one more, and so on), and `refs`,
/// `[N, role, name, focusable]` for every `ref_N` printed in the returned page, in print order:
/// the role and the name as the line shows them (the name unescaped, shortened as the line
/// shortened it), focusable 1 or 0. The actions read a target's role, name and focusability
/// there rather than parsing printed lines (docs/protocol.md).
pub fn text_tree_output<D: Dom + ?Sized>(dom: &D, request: &TextTreeRequest<'_>) -> String {
    text_tree_output_into(dom, request, &mut [])
}

/// [`text_tree_output`], and, when `request.identities` is not empty, the records of the tree's
/// lines (`tree_diff::encode_records`) written to the start of `line_records`, their count in
/// the envelope's `lineCount`. The records travel in this typed array rather than in the JSON
/// envelope: five numbers per line, parsed as text, would cost every read. A buffer too small
/// for them (more than five numbers per gathered node never happens) leaves `lineCount` out.
pub fn text_tree_output_into<D: Dom + ?Sized>(
    dom: &D,
    request: &TextTreeRequest<'_>,
    line_records: &mut [u32],
) -> String {
    match text_tree(dom, request, line_records) {
        Ok(output) => output,
        Err(error) => error.to_output(),
    }
}

fn text_tree<D: Dom + ?Sized>(
    dom: &D,
    request: &TextTreeRequest<'_>,
    line_records: &mut [u32],
) -> Result<String, ToolError> {
    let filter = Filter::parse(request.filter).ok_or_else(|| {
        ToolError::new(
            "invalid_arguments",
            format!("unknown filter {:?}", request.filter),
        )
        .with_hint("Use \"all\", \"visible\" or \"interactive\".")
    })?;
    if request
        .anchor
        .is_some_and(|node| dom.node_kind(node) != NodeKind::Element)
    {
        return Err(ToolError::new(
            "ref_not_found",
            "the ref_id is not an element",
        ));
    }
    let options = TextTreeOptions {
        filter,
        max_depth: request.max_depth as usize,
        max_chars: request.max_chars.map(|chars| chars as usize),
        anchor_ref: request.anchor_ref.map(str::to_string),
        page: request.page as usize,
        frame_ids: request
            .frame_ids
            .chunks_exact(2)
            .filter(|pair| {
                let exact = |number: f64| {
                    number >= 0.0 && number.fract() == 0.0 && number <= 9_007_199_254_740_991.0
                };
                exact(pair[0]) && exact(pair[1]) && (pair[0] as usize) < dom.node_count()
            })
            .map(|pair| (NodeId(pair[0] as u32), pair[1] as u64))
            .collect(),
        keep_lines: !request.identities.is_empty(),
        depth_offset: request.depth_offset.unwrap_or(0) as usize,
        part_of_whole: request.depth_offset.is_some(),
    };
    // Dense: node -> its reference number, 0 for none.
    let mut numbers = vec![0u32; dom.node_count()];
    for pair in request.known_refs.chunks_exact(2) {
        if let Some(slot) = numbers.get_mut(pair[0] as usize) {
            *slot = pair[1];
        }
    }
    let mut counter = request.ref_counter;
    let mut new_refs: Vec<u32> = Vec::new();
    let mut reference = |node: NodeId| {
        let number = match numbers.get_mut(node.index()) {
            Some(known) if *known != 0 => *known,
            Some(slot) => {
                counter = counter.saturating_add(1);
                *slot = counter;
                new_refs.push(node.0);
                counter
            }
            // Not a node of this DOM; the core does not hand these out.
            None => 0,
        };
        let mut name = String::with_capacity("ref_".len() + 10);
        name.push_str("ref_");
        push_decimal(&mut name, u64::from(number));
        name
    };
    let tree = generate_accessibility_tree(dom, request.anchor, &options, &mut reference).map_err(
        |error| match error {
            TextTreeError::PageOutOfRange { page_count, .. } => {
                ToolError::new("page_out_of_range", error.to_string()).with_hint(format!(
                    "Ask for a page from 1 to {page_count}, or reuse continuationArgs exactly."
                ))
            }
            TextTreeError::EmptyAnchor => ToolError::new("ref_not_found", error.to_string())
                .with_hint("Read the tree again without ref_id and use a current ref."),
            // Only the content script asks for parts; it reads the whole tree instead.
            TextTreeError::PartNotAlone => ToolError::new("part_not_alone", error.to_string()),
        },
    )?;

    let records = tree_diff::records_of(&tree.lines, |line| {
        request
            .identities
            .get(line.node.index())
            .copied()
            .unwrap_or(UNKNOWN_IDENTITY)
    });
    let comparison = request.previous_lines.map(|previous| {
        compare(
            &tree_diff::decode_records(previous),
            &records,
            &tree,
            request,
        )
    });

    let mut out =
        String::with_capacity(tree.tree.len() + 256 + new_refs.len() * 7 + tree.refs.len() * 40);
    let shown_diff = match &comparison {
        Some(Comparison::Diff(diff)) => Some(diff),
        _ => None,
    };
    out.push_str("{\"ok\":true,\"result\":{\"truncated\":");
    if let Some(diff) = shown_diff {
        write_diff_fields(&mut out, diff);
    } else {
        write_page_fields(&mut out, &tree);
        if let Some(Comparison::Full(reason)) = &comparison {
            push_field_name(&mut out, "full");
            out.push_str("true");
            push_field_name(&mut out, "fullReason");
            push_quoted(&mut out, reason);
        }
    }
    if let (None, Some(next)) = (shown_diff, &tree.continuation_args) {
        out.push_str(",\"continuationArgs\":{\"filter\":");
        push_quoted(&mut out, next.filter.as_str());
        push_field_name(&mut out, "maxDepth");
        push_decimal(&mut out, next.max_depth as u64);
        push_field_name(&mut out, "maxChars");
        push_decimal(&mut out, next.max_chars as u64);
        if let Some(ref_id) = &next.ref_id {
            push_field_name(&mut out, "ref_id");
            push_quoted(&mut out, ref_id);
        }
        push_field_name(&mut out, "page");
        push_decimal(&mut out, next.page as u64);
        out.push('}');
    }
    // The thread-read facts (docs/protocol/reading.md, "Thread-read coverage"). `contentFingerprint` is
    // for the background's coverage tracker, which removes it before the agent sees the result.
    let facts = &tree.read_facts;
    if let Some(root) = &facts.conversation_root_ref {
        push_field_name(&mut out, "conversationRootRefId");
        push_quoted(&mut out, root);
    }
    if let Some(expanded) = facts.all_messages_expanded {
        push_field_name(&mut out, "allMessagesExpanded");
        out.push_str(bool_text(expanded));
    }
    push_field_name(&mut out, "contentFingerprint");
    push_quoted(&mut out, &format!("{:016x}", facts.content_fingerprint));
    push_field_name(&mut out, "url");
    push_quoted(&mut out, request.url);
    push_field_name(&mut out, "title");
    push_quoted(&mut out, request.title);
    out.push_str("},\"newRefs\":[");
    push_numbers(&mut out, &new_refs);
    out.push_str("],\"refs\":[");
    let mut first_ref = true;
    let mut push_ref = |out: &mut String, node: NodeId, role: &str, name: &str, focusable: bool| {
        if !first_ref {
            out.push(',');
        }
        first_ref = false;
        out.push('[');
        let number = numbers.get(node.index()).copied().unwrap_or(0);
        push_decimal(out, u64::from(number));
        out.push(',');
        push_quoted(out, role);
        out.push(',');
        push_quoted(out, name);
        out.push_str(if focusable { ",1]" } else { ",0]" });
    };
    if let Some(diff) = shown_diff {
        // The new references of replaced parts are told too (`replacedRefs`): the actions
        // accept them as printed.
        let replaced = diff.replaced_lines.iter().map(|&(_, position)| position);
        for position in diff.printed_lines().into_iter().chain(replaced) {
            let line = &tree.lines[position];
            if line.reference.is_some() {
                let focusable = crate::role::is_focusable(dom, line.node);
                push_ref(&mut out, line.node, line.role, &line.name, focusable);
            }
        }
    } else {
        for printed in &tree.refs {
            push_ref(
                &mut out,
                printed.node,
                printed.role,
                &printed.name,
                printed.focusable,
            );
        }
    }
    out.push(']');
    if !request.identities.is_empty() {
        let encoded = tree_diff::encode_records(&records);
        if let Some(room) = line_records.get_mut(..encoded.len()) {
            room.copy_from_slice(&encoded);
            push_field_name(&mut out, "lineCount");
            push_decimal(&mut out, records.len() as u64);
        }
    }
    out.push_str("}\n");
    match shown_diff {
        Some(diff) => {
            let texts: Vec<&str> = tree.lines.iter().map(|line| line.text.as_str()).collect();
            // This read keeps no text of the snapshot: the plan counts the lines that left
            // rather than showing them (`compare`).
            out.push_str(&diff.text(&texts, &[]));
        }
        None => out.push_str(&tree.tree),
    }
    Ok(out)
}

/// The outcome of a read since a snapshot.
enum Comparison {
    /// Only what changed is shown.
    Diff(DiffPlan),
    /// The whole tree is shown, for this reason (docs/protocol.md, `fullReason`).
    Full(&'static str),
}

/// Compares this read with the snapshot: the diff when it is shorter than half the whole tree
/// and fits `maxChars`, the whole tree otherwise.
fn compare(
    previous: &[tree_diff::LineRecord],
    records: &[tree_diff::LineRecord],
    tree: &TextTree,
    request: &TextTreeRequest<'_>,
) -> Comparison {
    let line_chars = |position: usize| {
        tree.lines
            .get(position)
            .map_or(0, |line| line.text.chars().count())
    };
    let whole_chars = (0..tree.lines.len())
        .map(|position| line_chars(position) + 1)
        .sum();
    // The core has the snapshot's records here, not its lines (the content script keeps
    // those): the lines that left are counted under `[removed]`, not shown.
    let plan = tree_diff::plan_with(previous, records, false);
    let diff_chars = plan.length(line_chars, |_| 0);
    judge(plan, diff_chars, whole_chars, request.max_chars)
}

/// The rules of [`compare`], given the diff's length and the whole tree's (its lines and their
/// line breaks).
fn judge(
    plan: DiffPlan,
    diff_chars: usize,
    whole_chars: usize,
    max_chars: Option<u32>,
) -> Comparison {
    // Issue 14 asks for the whole tree when the changes are longer than it, and issue 30 (item
    // 5) holds to it: an earlier rule that fell back from half the tree's length on answered
    // whole pages for changes an agent reads in a few lines (a route that replaced `main` of a
    // small page). Anything shorter than the whole tree is still cheaper to read.
    if !plan.is_unchanged() && diff_chars > whole_chars {
        return Comparison::Full("too_large");
    }
    if max_chars.is_some_and(|max_chars| diff_chars > (max_chars as usize).max(MIN_MAX_CHARS)) {
        return Comparison::Full("larger_than_max_chars");
    }
    Comparison::Diff(plan)
}

/// A read since a snapshot that re-read only the changed parts (docs/protocol/reading.md, "Reads since a
/// snapshot"). The content script keeps the snapshot's lines and sends none of them: it sends
/// the snapshot's records (`previous`) and the length of each of its lines (`previous_lengths`,
/// in Unicode scalar values, as [`compare`] counts the whole read's lines and as `maxChars`
/// counts, so that both answer alike near the bound: extension/shared/line-records.js
/// `lineLength`), the runs of lines it re-read (`replaced`, `start, end, count` triples, see
/// `tree_diff::splice_lines`), and the re-read lines' records and lengths (`replacement`, `replacement_lengths`). The
/// envelope is `{"ok":true,"result":{...the fields of a read that shows changes},"plan":[...]}`
/// with no body: the plan lists the output's lines, each a banner (a string) or the position of
/// a current line (a number), and the content script joins them with line breaks. Or it is
/// `{"ok":true,"full":"<reason>"}` when the whole tree must be read after all.
pub fn changes_output(
    previous: &[tree_diff::LineRecord],
    previous_lengths: &[u32],
    replaced: &[u32],
    replacement: &[tree_diff::LineRecord],
    replacement_lengths: &[u32],
    max_chars: Option<u32>,
) -> String {
    if previous_lengths.len() != previous.len() || replacement_lengths.len() != replacement.len() {
        return ToolError::new("script_failed", "a line length for every line record").to_output();
    }
    let (Some(current), Some(lengths)) = (
        tree_diff::splice_lines(previous, replaced, replacement),
        tree_diff::splice_lines(previous_lengths, replaced, replacement_lengths),
    ) else {
        return ToolError::new(
            "script_failed",
            "the re-read runs of lines do not fit the snapshot",
        )
        .to_output();
    };
    let line_length = |position: usize| lengths.get(position).map_or(0, |&length| length as usize);
    let whole_chars = lengths.iter().fold(0usize, |total, &length| {
        total.saturating_add(length as usize).saturating_add(1)
    });
    let earlier_length = |position: usize| {
        previous_lengths
            .get(position)
            .map_or(0, |&length| length as usize)
    };
    let plan = tree_diff::plan(previous, &current);
    let diff_chars = plan.length(line_length, earlier_length);
    match judge(plan, diff_chars, whole_chars, max_chars) {
        Comparison::Full(reason) => {
            let mut out = String::from("{\"ok\":true,\"full\":");
            push_quoted(&mut out, reason);
            out.push_str("}\n");
            out
        }
        Comparison::Diff(plan) => {
            let mut out = String::with_capacity(512 + plan.items.len() * 6);
            out.push_str("{\"ok\":true,\"result\":{\"truncated\":");
            write_diff_fields(&mut out, &plan);
            out.push_str("},\"plan\":[");
            for (index, item) in plan.items.iter().enumerate() {
                if index > 0 {
                    out.push(',');
                }
                match *item {
                    DiffItem::Banner(banner) => push_quoted(&mut out, banner),
                    DiffItem::Line(position) => push_decimal(&mut out, position as u64),
                    // A line of the snapshot: -1 for its first line, -2 for the next, ...
                    DiffItem::Removed(position) => {
                        out.push('-');
                        push_decimal(&mut out, position as u64 + 1);
                    }
                    DiffItem::RemovedCount { count, after_shown } => {
                        push_quoted(&mut out, &DiffItem::removed_count_line(count, after_shown))
                    }
                }
            }
            out.push_str("]}\n");
            out
        }
    }
}

/// The page fields of an ordinary read, after `"truncated":`.
fn write_page_fields(out: &mut String, tree: &TextTree) {
    out.push_str(bool_text(tree.truncated));
    push_field_name(out, "hasMore");
    out.push_str(bool_text(tree.has_more));
    push_field_name(out, "autoDegraded");
    out.push_str(bool_text(tree.auto_degraded));
    if let Some(notice) = &tree.notice {
        push_field_name(out, "notice");
        push_quoted(out, notice);
    }
    push_field_name(out, "page");
    push_decimal(out, tree.page as u64);
    push_field_name(out, "pageCount");
    push_decimal(out, tree.page_count as u64);
}

/// The fields of a read that shows only what changed, after `"truncated":` (docs/protocol/reading.md,
/// "Reads since a snapshot").
fn write_diff_fields(out: &mut String, diff: &DiffPlan) {
    out.push_str("false,\"hasMore\":false,\"autoDegraded\":false");
    push_field_name(out, "notice");
    if diff.is_unchanged() {
        push_quoted(
            out,
            "Nothing changed since that snapshot: every ref it printed is still on the page.",
        );
    } else {
        push_quoted(
            out,
            "Only what changed since that snapshot. Each [changed] block is a changed or added \
             part printed whole; the [unchanged] lines before it are its ancestors and, \
             for an added or moved part, the sibling it now follows. [removed] lists lines that \
             left under the context line above it. removedRefs left the tree; replacedRefs are \
             the same parts rendered again (old ref: new ref); every other ref of that snapshot \
             is unchanged and still valid.",
        );
    }
    out.push_str(",\"page\":1,\"pageCount\":1,\"full\":false");
    if diff.is_unchanged() {
        out.push_str(",\"unchanged\":true");
    }
    push_field_name(out, "changedBlocks");
    push_decimal(out, diff.changed_blocks as u64);
    out.push_str(",\"removedRefs\":[");
    for (position, number) in diff.removed_references.iter().enumerate() {
        if position > 0 {
            out.push(',');
        }
        push_quoted(out, &format!("ref_{number}"));
    }
    out.push(']');
    if !diff.replaced_references.is_empty() {
        out.push_str(",\"replacedRefs\":{");
        for (position, (old, new)) in diff.replaced_references.iter().enumerate() {
            if position > 0 {
                out.push(',');
            }
            push_quoted(out, &format!("ref_{old}"));
            out.push(':');
            push_quoted(out, &format!("ref_{new}"));
        }
        out.push('}');
    }
}

fn bool_text(value: bool) -> &'static str {
    if value {
        "true"
    } else {
        "false"
    }
}

fn push_numbers(out: &mut String, numbers: &[u32]) {
    for (position, number) in numbers.iter().enumerate() {
        if position > 0 {
            out.push(',');
        }
        push_decimal(out, u64::from(*number));
    }
}

/// The "ai" mode registry facts of one capture.
#[derive(Clone, Debug)]
pub struct AiRefs<'input> {
    /// The random per-document prefix; every reference starts with it.
    pub prefix: &'input str,
    /// References handed out so far in this document; new ones count on from here.
    pub counter: u32,
    /// `(node, reference, key)` of elements that hold a reference from an earlier capture; the
    /// key identifies the role and name it was given for (see [`role_name_key`]).
    pub known: Vec<(NodeId, &'input str, &'input str)>,
}

/// The arguments of `snapshot_document`.
#[derive(Clone, Debug)]
pub struct SnapshotRequest<'input> {
    pub format: &'input str,
    pub context_id: &'input str,
    pub parent_context_id: Option<&'input str>,
    pub url: &'input str,
    pub title: &'input str,
    /// `Some` in "ai" mode.
    pub ai: Option<AiRefs<'input>>,
}

/// `snapshot_document`: the body is this frame's document as written by the core. In "ai" mode
/// the envelope holds `ariaRefs`, `[node, reference, key]` for every referenced element, and
/// `ariaCounter`, the registry's new counter.
pub fn snapshot_document_output<D: Dom + ?Sized>(dom: &D, request: &SnapshotRequest<'_>) -> String {
    let Some(format) = Format::parse(request.format) else {
        return ToolError::new(
            "invalid_arguments",
            format!("unknown format {:?}", request.format),
        )
        .with_hint("Use \"json\" or \"yaml\".")
        .to_output();
    };
    let (mut tree, _diagnostics) = snapshot_tree(dom);
    let mut envelope = String::from("{\"ok\":true");
    if let Some(ai) = &request.ai {
        // Dense: node -> (reference, key) from earlier captures.
        let mut known: Vec<Option<(&str, &str)>> = vec![None; dom.node_count()];
        for &(node, reference, key) in &ai.known {
            if let Some(slot) = known.get_mut(node.index()) {
                *slot = Some((reference, key));
            }
        }
        let mut counter = ai.counter;
        envelope.push_str(",\"ariaRefs\":[");
        let mut first = true;
        for node in &mut tree.nodes {
            // "Text nodes and non-rendered/non-pointer elements have no reference."
            if matches!(node.role, AxRole::Text | AxRole::Document) || !node.pointer_target {
                continue;
            }
            let key = role_name_key(node.role.as_str(), &node.name);
            // "They stay stable while the element, role, and accessible name remain unchanged."
            let reference = match known.get(node.dom_node.index()).copied().flatten() {
                Some((reference, old_key)) if old_key == key => reference.to_string(),
                _ => {
                    counter = counter.saturating_add(1);
                    format!("{}e{counter}", ai.prefix)
                }
            };
            if !first {
                envelope.push(',');
            }
            first = false;
            envelope.push('[');
            envelope.push_str(&node.dom_node.0.to_string());
            envelope.push(',');
            push_quoted(&mut envelope, &reference);
            envelope.push(',');
            push_quoted(&mut envelope, &key);
            envelope.push(']');
            node.aria_ref = Some(reference);
        }
        envelope.push_str("],\"ariaCounter\":");
        envelope.push_str(&counter.to_string());
    }
    envelope.push_str("}\n");
    let document = SnapshotDocument {
        context_id: request.context_id.to_string(),
        parent_context_id: request.parent_context_id.map(str::to_string),
        url: request.url.to_string(),
        title: request.title.to_string(),
        tree: &tree,
    };
    let body = match format {
        Format::Json => write_json_document(&document),
        Format::Yaml => write_yaml_document(&document),
    };
    envelope.push_str(&body);
    envelope
}

/// A short fingerprint of a role and a name (64-bit FNV-1a, as 16 hex digits): the glue keeps
/// it beside each "ai" reference to notice when the element's role or name changed, without
/// sending every name back to JavaScript.
pub fn role_name_key(role: &str, name: &str) -> String {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in role.bytes().chain([0u8]).chain(name.bytes()) {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    format!("{hash:016x}")
}

/// Splits an output string into its envelope and body.
pub fn split_output(output: &str) -> (&str, &str) {
    output.split_once('\n').unwrap_or((output, ""))
}
