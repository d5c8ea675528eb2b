//! The wasm-bindgen exports: argument conversion only. Each export decodes the facts, runs one
//! operation of [`crate::api`] and returns its output string (envelope line + body); a decoding
//! failure becomes a `script_failed` envelope, so JavaScript has one way to read every outcome.

use wasm_bindgen::prelude::*;

use allwright_ax::text::DEFAULT_MAX_DEPTH;
use allwright_ax::tree_diff;
use allwright_ax::{Filter, NodeId, PseudoElement};

use crate::api::{
    snapshot_document_output, text_tree_output_into, AiRefs, SnapshotRequest, TextTreeRequest,
    ToolError,
};
use crate::facts::{FactDom, Facts, PseudoContentSource, FACTS_VERSION};

#[wasm_bindgen]
extern "C" {
    /// The content script's `{read(node, after)}` object: the computed `content` of a node's
    /// `::before` (or `::after`) as CSS text, or null.
    pub type PseudoContentReader;

    // `catch`: an exception thrown by the page-facing call-back must not unwind through Rust
    // frames; it is read as "no generated content".
    #[wasm_bindgen(method, catch, js_name = read)]
    fn read(this: &PseudoContentReader, node: u32, after: bool) -> Result<Option<String>, JsValue>;
}

struct JsPseudoContent<'reader>(&'reader PseudoContentReader);

impl PseudoContentSource for JsPseudoContent<'_> {
    fn computed_content(&self, node: NodeId, pseudo: PseudoElement) -> Option<String> {
        self.0
            .read(node.0, pseudo == PseudoElement::After)
            .ok()
            .flatten()
    }
}

/// The fact format this core reads; the content script refuses a core that disagrees.
/// The core's built-in page (`crate::warm_up`) as a `buildTextTreePacked` call, which the service
/// worker reads a few times when an agent session starts so that the engine optimises the code
/// real strict-CSP reads run, the packed decoder and this binding's included. The worker reads it
/// with a generated-content reader like real calls pass (the page asks it nothing): the reads
/// then run over the same `FactDom<JsPseudoContent>` as real ones.
#[wasm_bindgen]
pub struct WarmUpCall {
    strings: String,
    packed: Vec<u8>,
    record_capacity: u32,
}

#[wasm_bindgen]
impl WarmUpCall {
    #[wasm_bindgen(constructor)]
    pub fn new() -> WarmUpCall {
        let page = crate::warm_up::WarmUpPage::new();
        let (strings, packed) = page.packed_call();
        let record_capacity = page.node_count() * allwright_ax::tree_diff::RECORD_WIDTH;
        WarmUpCall {
            strings,
            packed,
            record_capacity: u32::try_from(record_capacity).unwrap_or(u32::MAX),
        }
    }

    /// The joined strings, `buildTextTreePacked`'s first argument.
    #[wasm_bindgen(getter)]
    pub fn strings(&self) -> String {
        self.strings.clone()
    }

    /// The packed lists, its second.
    #[wasm_bindgen(getter)]
    pub fn packed(&self) -> Vec<u8> {
        self.packed.clone()
    }

    /// How many numbers its line records take: the length of the array it writes them to.
    #[wasm_bindgen(getter, js_name = recordCapacity)]
    pub fn record_capacity(&self) -> u32 {
        self.record_capacity
    }
}

/// One comparison of a read of the warm-up's built-in page (`records`, `output`: what
/// `buildTextTreePacked` wrote and answered for it) with itself after a small change. See
/// `warm_up::warm_up_diff`.
#[wasm_bindgen(js_name = warmUpComparison)]
pub fn warm_up_comparison(records: &[u32], output: &str) -> bool {
    crate::warm_up::warm_up_diff(records, output)
}

impl Default for WarmUpCall {
    fn default() -> Self {
        Self::new()
    }
}

#[wasm_bindgen(js_name = factsVersion)]
pub fn facts_version() -> u32 {
    FACTS_VERSION
}

fn decode<'input, 'reader>(
    facts: Facts<'input>,
    pseudo: &'reader PseudoContentReader,
) -> Result<FactDom<'input, JsPseudoContent<'reader>>, String> {
    FactDom::decode(facts, JsPseudoContent(pseudo))
        .map_err(|error| ToolError::new("script_failed", error.to_string()).to_output())
}

#[wasm_bindgen]
extern "C" {
    /// The one argument of `buildTextTree` and the last of `buildTextTreePacked`: an object
    /// with the fields of the JSDoc type `TextTreeCall` (extension/content/tree/core-loading.js),
    /// which every caller in JavaScript builds. Each field is read once, by name, here: the
    /// typed arrays are copied into the module as positional arguments were, and a field left
    /// out takes the core's default. `buildTextTreePacked` reads its scalar fields and
    /// `lineRecords` only: its facts and lists travel packed.
    pub type TextTreeCall;

    #[wasm_bindgen(method, getter)]
    fn strings(this: &TextTreeCall) -> Option<String>;
    #[wasm_bindgen(method, getter, js_name = stringLengths)]
    fn string_lengths(this: &TextTreeCall) -> Option<Vec<u32>>;
    #[wasm_bindgen(method, getter)]
    fn nodes(this: &TextTreeCall) -> Option<Vec<u32>>;
    #[wasm_bindgen(method, getter)]
    fn attributes(this: &TextTreeCall) -> Option<Vec<u32>>;
    #[wasm_bindgen(method, getter)]
    fn rects(this: &TextTreeCall) -> Option<Vec<f64>>;
    #[wasm_bindgen(method, getter)]
    fn slots(this: &TextTreeCall) -> Option<Vec<u32>>;
    #[wasm_bindgen(method, getter)]
    fn viewport(this: &TextTreeCall) -> Option<Vec<f64>>;
    #[wasm_bindgen(method, getter)]
    fn pseudo(this: &TextTreeCall) -> PseudoContentReader;
    #[wasm_bindgen(method, getter)]
    fn filter(this: &TextTreeCall) -> Option<String>;
    #[wasm_bindgen(method, getter, js_name = maxDepth)]
    fn max_depth(this: &TextTreeCall) -> Option<u32>;
    #[wasm_bindgen(method, getter, js_name = maxChars)]
    fn max_chars(this: &TextTreeCall) -> Option<u32>;
    #[wasm_bindgen(method, getter)]
    fn anchor(this: &TextTreeCall) -> Option<u32>;
    #[wasm_bindgen(method, getter, js_name = anchorRef)]
    fn anchor_ref(this: &TextTreeCall) -> Option<String>;
    #[wasm_bindgen(method, getter)]
    fn page(this: &TextTreeCall) -> Option<u32>;
    #[wasm_bindgen(method, getter, js_name = knownRefs)]
    fn known_refs(this: &TextTreeCall) -> Option<Vec<u32>>;
    #[wasm_bindgen(method, getter, js_name = refCounter)]
    fn ref_counter(this: &TextTreeCall) -> Option<u32>;
    #[wasm_bindgen(method, getter)]
    fn url(this: &TextTreeCall) -> Option<String>;
    #[wasm_bindgen(method, getter)]
    fn title(this: &TextTreeCall) -> Option<String>;
    #[wasm_bindgen(method, getter, js_name = frameIds)]
    fn frame_ids(this: &TextTreeCall) -> Option<Vec<f64>>;
    #[wasm_bindgen(method, getter)]
    fn identities(this: &TextTreeCall) -> Option<Vec<u32>>;
    #[wasm_bindgen(method, getter, js_name = previousLines)]
    fn previous_lines(this: &TextTreeCall) -> Option<Vec<u32>>;
    #[wasm_bindgen(method, getter, js_name = lineRecords)]
    fn line_records(this: &TextTreeCall) -> Option<LineRecordArray>;
    #[wasm_bindgen(method, getter, js_name = depthOffset)]
    fn depth_offset(this: &TextTreeCall) -> Option<u32>;

    /// The caller's `Uint32Array` that the core writes the records of the tree's lines into.
    pub type LineRecordArray;

    #[wasm_bindgen(method, getter)]
    fn length(this: &LineRecordArray) -> u32;
    /// `TypedArray.prototype.set`: copies the records from the module's memory.
    #[wasm_bindgen(method)]
    fn set(this: &LineRecordArray, records: &[u32]);
}

/// The scalar fields of a [`TextTreeCall`], and its lists when they are not packed.
struct TextTreeLists {
    known_refs: Vec<u32>,
    frame_ids: Vec<f64>,
    identities: Vec<u32>,
    previous_lines: Option<Vec<u32>>,
}

/// Runs one text tree read of a [`TextTreeCall`] over decoded facts, and writes its line
/// records into the call's `lineRecords`.
fn text_tree_of_call<P: crate::facts::PseudoContentSource>(
    dom: &FactDom<'_, P>,
    call: &TextTreeCall,
    lists: &TextTreeLists,
) -> String {
    let filter = call.filter();
    let anchor_ref = call.anchor_ref();
    let url = call.url().unwrap_or_default();
    let title = call.title().unwrap_or_default();
    // Absent fields take the core's defaults: the background fills in the tool contract's,
    // which are these (src/tools/table.rs reads them from the core), and direct callers of the
    // page-side API (tests, benchmarks) may leave them out.
    let request = TextTreeRequest {
        filter: filter.as_deref().unwrap_or(Filter::default().as_str()),
        max_depth: call.max_depth().unwrap_or(DEFAULT_MAX_DEPTH as u32),
        max_chars: call.max_chars(),
        anchor: call.anchor().map(NodeId),
        anchor_ref: anchor_ref.as_deref(),
        page: call.page().unwrap_or(1),
        known_refs: &lists.known_refs,
        ref_counter: call.ref_counter().unwrap_or(0),
        url: &url,
        title: &title,
        frame_ids: &lists.frame_ids,
        identities: &lists.identities,
        previous_lines: lists.previous_lines.as_deref(),
        depth_offset: call.depth_offset(),
    };
    let target = call.line_records();
    let capacity = target.as_ref().map_or(0, |array| array.length() as usize);
    let mut line_records = vec![0u32; capacity];
    let output = text_tree_output_into(dom, &request, &mut line_records);
    if let Some(array) = target.filter(|_| capacity > 0) {
        array.set(&line_records);
    }
    output
}

/// `get_accessibility_tree` over one frame's facts, all of them in one [`TextTreeCall`]. See
/// `allwright_ax::reads::text_tree_output`.
#[wasm_bindgen(js_name = buildTextTree)]
pub fn build_text_tree(call: &TextTreeCall) -> String {
    let strings = call.strings().unwrap_or_default();
    let string_lengths = call.string_lengths().unwrap_or_default();
    let nodes = call.nodes().unwrap_or_default();
    let attributes = call.attributes().unwrap_or_default();
    let rects = call.rects().unwrap_or_default();
    let slots = call.slots().unwrap_or_default();
    let viewport = call.viewport().unwrap_or_default();
    let facts = Facts {
        strings: &strings,
        string_lengths: &string_lengths,
        nodes: &nodes,
        attributes: &attributes,
        rects: &rects,
        slots: &slots,
        viewport: &viewport,
    };
    let pseudo = call.pseudo();
    let dom = match decode(facts, &pseudo) {
        Ok(dom) => dom,
        Err(output) => return output,
    };
    let lists = TextTreeLists {
        known_refs: call.known_refs().unwrap_or_default(),
        frame_ids: call.frame_ids().unwrap_or_default(),
        identities: call.identities().unwrap_or_default(),
        previous_lines: call.previous_lines(),
    };
    text_tree_of_call(&dom, call, &lists)
}

/// The changes between a snapshot and the parts of it the content script re-read: `previous`
/// and `replacement` are flat records (`tree_diff::encode_records`). See `api::changes_output`.
#[wasm_bindgen(js_name = diffLines)]
pub fn diff_lines(
    previous: &[u32],
    previous_lengths: &[u32],
    replaced: &[u32],
    replacement: &[u32],
    replacement_lengths: &[u32],
    max_chars: Option<u32>,
) -> String {
    crate::api::changes_output(
        &tree_diff::decode_records(previous),
        previous_lengths,
        replaced,
        &tree_diff::decode_records(replacement),
        replacement_lengths,
        max_chars,
    )
}

/// `snapshot_document` over one frame's facts. See `api::snapshot_document_output`.
/// In "ai" mode `ai_prefix` is set and `known_aria` holds `reference \u{7f} key` pairs joined by
/// `\u{7f}` ([`crate::facts::STRING_SEPARATOR`]), one pair per entry of `known_aria_nodes`.
#[allow(clippy::too_many_arguments)]
#[wasm_bindgen(js_name = writeSnapshotDocument)]
pub fn write_snapshot_document(
    strings: &str,
    string_lengths: &[u32],
    nodes: &[u32],
    attributes: &[u32],
    rects: &[f64],
    slots: &[u32],
    viewport: &[f64],
    pseudo: &PseudoContentReader,
    format: &str,
    context_id: &str,
    parent_context_id: Option<String>,
    url: &str,
    title: &str,
    ai_prefix: Option<String>,
    ai_counter: u32,
    known_aria_nodes: &[u32],
    known_aria: &str,
) -> String {
    let facts = Facts {
        strings,
        string_lengths,
        nodes,
        attributes,
        rects,
        slots,
        viewport,
    };
    let dom = match decode(facts, pseudo) {
        Ok(dom) => dom,
        Err(output) => return output,
    };
    let ai = ai_prefix.as_deref().map(|prefix| AiRefs {
        prefix,
        counter: ai_counter,
        known: crate::api::known_aria_refs(known_aria_nodes, known_aria),
    });
    let request = SnapshotRequest {
        format,
        context_id,
        parent_context_id: parent_context_id.as_deref(),
        url,
        title,
        ai,
    };
    snapshot_document_output(&dom, &request)
}

/// A fault in packed bytes (`crate::packed`), as the same `script_failed` envelope as a
/// decoding failure of the facts.
fn packed_failure(error: crate::packed::PackedError) -> String {
    ToolError::new("script_failed", error.to_string()).to_output()
}

/// `buildTextTree` over packed facts, for the core in the extension's service worker
/// (docs/protocol/core.md, "The core in the service worker"). After the facts, `packed` holds the
/// lists `known_refs` (pair differences), `frame_ids` (f64), `identities` (differences) and
/// `previous_lines` (optional), in that order; `call` is `buildTextTree`'s [`TextTreeCall`], of
/// which this reads the generated-content reader, the scalar fields and `lineRecords`.
#[wasm_bindgen(js_name = buildTextTreePacked)]
pub fn build_text_tree_packed(strings: &str, packed: &[u8], call: &TextTreeCall) -> String {
    let read = || -> Result<_, crate::packed::PackedError> {
        let mut reader = crate::packed::PackedReader::new(packed)?;
        let facts = reader.facts()?;
        let known_refs = reader.pair_difference_list()?;
        let frame_ids = reader.f64_list()?;
        let identities = reader.difference_list()?;
        let previous_lines = reader.optional_u32_list()?;
        reader.finish()?;
        Ok((facts, known_refs, frame_ids, identities, previous_lines))
    };
    let (facts, known_refs, frame_ids, identities, previous_lines) = match read() {
        Ok(lists) => lists,
        Err(error) => return packed_failure(error),
    };
    let facts = Facts {
        strings,
        string_lengths: &facts.string_lengths,
        nodes: &facts.nodes,
        attributes: &facts.attributes,
        rects: &facts.rects,
        slots: &facts.slots,
        viewport: &facts.viewport,
    };
    let pseudo = call.pseudo();
    let dom = match decode(facts, &pseudo) {
        Ok(dom) => dom,
        Err(output) => return output,
    };
    let lists = TextTreeLists {
        known_refs,
        frame_ids,
        identities,
        previous_lines,
    };
    text_tree_of_call(&dom, call, &lists)
}

/// `diffLines` over packed lists. See `api::packed_changes_output`.
#[wasm_bindgen(js_name = diffLinesPacked)]
pub fn diff_lines_packed(snapshot: &[u8], changes: &[u8], max_chars: Option<u32>) -> String {
    crate::api::packed_changes_output(snapshot, changes, max_chars)
}

/// `diffLines` with the snapshot's side packed and one part just read. See
/// `api::snapshot_changes_output`.
#[wasm_bindgen(js_name = diffLinesAfterPart)]
pub fn diff_lines_after_part(
    snapshot: &[u8],
    replaced: &[u32],
    replacement: &[u32],
    replacement_lengths: &[u32],
    max_chars: Option<u32>,
) -> String {
    crate::api::snapshot_changes_output(
        snapshot,
        replaced,
        replacement,
        replacement_lengths,
        max_chars,
    )
}

/// `writeSnapshotDocument` over packed facts: after the facts, `packed` holds the list
/// `known_aria_nodes`.
#[allow(clippy::too_many_arguments)]
#[wasm_bindgen(js_name = writeSnapshotDocumentPacked)]
pub fn write_snapshot_document_packed(
    strings: &str,
    packed: &[u8],
    pseudo: &PseudoContentReader,
    format: &str,
    context_id: &str,
    parent_context_id: Option<String>,
    url: &str,
    title: &str,
    ai_prefix: Option<String>,
    ai_counter: u32,
    known_aria: &str,
) -> String {
    let read = || -> Result<_, crate::packed::PackedError> {
        let mut reader = crate::packed::PackedReader::new(packed)?;
        let facts = reader.facts()?;
        let known_aria_nodes = reader.u32_list()?;
        reader.finish()?;
        Ok((facts, known_aria_nodes))
    };
    let (facts, known_aria_nodes) = match read() {
        Ok(lists) => lists,
        Err(error) => return packed_failure(error),
    };
    write_snapshot_document(
        strings,
        &facts.string_lengths,
        &facts.nodes,
        &facts.attributes,
        &facts.rects,
        &facts.slots,
        &facts.viewport,
        pseudo,
        format,
        context_id,
        parent_context_id,
        url,
        title,
        ai_prefix,
        ai_counter,
        &known_aria_nodes,
        known_aria,
    )
}
