//! A built-in page's facts, read by the core a few times so that the engine optimises the core's
//! code before the first real read needs it (docs/protocol/core.md, "Preparing the core early").
//!
//! V8 compiles a WebAssembly module's functions first with its baseline compiler (Liftoff) and
//! recompiles the ones that run hot with its optimising one (TurboFan) while they run. Measured
//! in Node (the same V8) on the facts of the 10k-element benchmark page: the first
//! `buildTextTreePacked` call of a fresh instance took 100-146 ms, the second 33-93 ms, the later
//! ones 18-31 ms; after three reads of this page the first 10k call took 35-39 ms
//! (docs/performance/strict-csp.md, "The session's first strict-CSP read"). The service worker's core, which
//! reads strict-CSP pages in Chromium, runs this when an agent session starts, so that the
//! session's first strict-CSP read is not the one that pays for the baseline code.
//!
//! The page is built here, in the fact format itself ([`crate::facts`]), rather than parsed
//! from HTML: the core's functions are compiled once per `Dom` implementation, and only reads
//! over the real calls' [`FactDom`] type (its generated-content source included: see
//! [`warm_up`]) warm the code that real reads run. It holds what most pages hold (landmarks,
//! a list of links, headings, paragraphs with inline text, a form with labelled fields, a table)
//! so that the same role, name and printing paths run.

use allwright_ax::NodeId;

use crate::api::{split_output, text_tree_output_into, TextTreeRequest};
use crate::facts::*;

/// Sections of the built-in page: about 11,000 nodes, the size of a large real page. Size
/// matters as much as the number of reads: in Node, three reads of a 1,500-node page left the
/// first 10k read at 90-98 ms (against 100-127 ms cold), three of this page at 35-39 ms.
const SECTIONS: usize = 150;

/// The built-in page's facts.
pub struct WarmUpPage {
    owned: OwnedFacts,
}

/// The computed `display` of a built-in element, as the fact format codes it.
#[derive(Copy, Clone)]
enum Display {
    None,
    Inline,
    Block,
}

impl Default for WarmUpPage {
    fn default() -> Self {
        Self::new()
    }
}

impl WarmUpPage {
    /// The built-in page: a header with navigation, `SECTIONS` sections of headings,
    /// paragraphs, forms and tables, and a footer.
    pub fn new() -> Self {
        let mut page = WarmUpPage {
            owned: OwnedFacts {
                viewport: vec![1280.0, 720.0],
                ..OwnedFacts::default()
            },
        };
        // The document: boxes unmeasured and pointer-events unread, as a text-tree read sends it.
        page.owned.push_node(
            KIND_DOCUMENT | BOXES_UNMEASURED | POINTER_EVENTS_UNREAD,
            0,
            0,
            &[],
            0,
        );
        let document = NodeId(0);
        let html = page.element(document, "html", Display::Block, &[("lang", "en")]);
        let head = page.element(html, "head", Display::None, &[]);
        let title = page.element(head, "title", Display::None, &[]);
        page.text(title, "A built-in page");
        let body = page.element(html, "body", Display::Block, &[]);
        let header = page.element(body, "header", Display::Block, &[]);
        let navigation = page.element(header, "nav", Display::Block, &[("aria-label", "Main")]);
        let list = page.element(navigation, "ul", Display::Block, &[]);
        for (label, address) in [
            ("Home", "/"),
            ("Products", "/products"),
            ("Pricing", "/pricing"),
            ("Docs", "/docs"),
            ("Contact", "/contact"),
        ] {
            let item = page.element(list, "li", Display::Block, &[]);
            let link = page.element(item, "a", Display::Inline, &[("href", address)]);
            page.text(link, label);
        }
        let main = page.element(body, "main", Display::Block, &[]);
        for section_number in 0..SECTIONS {
            page.section(main, section_number);
        }
        let footer = page.element(body, "footer", Display::Block, &[]);
        let paragraph = page.element(footer, "p", Display::Block, &[]);
        page.text(paragraph, "Built in.");
        page
    }

    /// The facts, as the content script would send them.
    pub fn facts(&self) -> Facts<'_> {
        self.owned.facts()
    }

    /// How many nodes the page has.
    pub fn node_count(&self) -> usize {
        self.owned.node_count()
    }

    /// The page as the service worker's real calls bring their facts: the joined strings, and
    /// the packed lists of a whole `buildTextTreePacked` read ([`crate::packed`]: the facts,
    /// no known refs, no frames, an identity per node, no earlier lines). Reading it through
    /// that entry point warms what a real strict-CSP read runs beyond the tree itself: the
    /// packed decoder and the binding's own code (docs/performance/strict-csp.md, "The read handed to the
    /// background").
    pub fn packed_call(&self) -> (String, Vec<u8>) {
        let facts = self.owned.facts();
        let identities: Vec<u32> = (1..=self.node_count() as u32).collect();
        let mut writer = crate::packed::PackedWriter::new();
        writer.facts(&facts);
        writer.pair_difference_list(&[]);
        writer.f64_list(&[]);
        writer.difference_list(&identities);
        writer.optional_u32_list(None);
        (facts.strings.to_owned(), writer.into_bytes())
    }

    fn section(&mut self, main: NodeId, number: usize) {
        let heading_id = format!("heading-{number}");
        let section = self.element(
            main,
            "section",
            Display::Block,
            &[("aria-labelledby", heading_id.as_str())],
        );
        let heading = self.element(
            section,
            "h2",
            Display::Block,
            &[("id", heading_id.as_str())],
        );
        self.text(heading, &format!("Section {number}"));
        for paragraph_number in 0..3 {
            let paragraph = self.element(section, "p", Display::Block, &[]);
            self.text(paragraph, "Revenue grew in every region, ");
            let strong = self.element(paragraph, "strong", Display::Inline, &[]);
            self.text(strong, "led by the north");
            self.text(paragraph, ", while costs stayed ");
            let emphasis = self.element(paragraph, "em", Display::Inline, &[]);
            self.text(emphasis, "flat");
            self.text(paragraph, ". ");
            let address = format!("/report/{number}/{paragraph_number}");
            let link = self.element(
                paragraph,
                "a",
                Display::Inline,
                &[("href", address.as_str())],
            );
            self.text(link, "Read the report");
        }
        let form = self.element(section, "form", Display::Block, &[("aria-label", "Filter")]);
        for (field, kind) in [("name", "text"), ("email", "email")] {
            let id = format!("{field}-{number}");
            let label = self.element(form, "label", Display::Inline, &[("for", id.as_str())]);
            self.text(label, field);
            self.input(form, &[("id", id.as_str()), ("type", kind)], "", 0);
        }
        let label = self.element(form, "label", Display::Inline, &[]);
        self.input(label, &[("type", "checkbox")], "on", CHECKED);
        self.text(label, "Subscribe");
        let select = self.element(form, "select", Display::Inline, &[("aria-label", "Region")]);
        for (position, region) in ["North", "South", "East"].into_iter().enumerate() {
            let selected = if position == 0 { OPTION_SELECTED } else { 0 };
            let option = self.element_with(select, "option", Display::Block, &[], selected, 0);
            self.text(option, region);
        }
        let button = self.element(form, "button", Display::Inline, &[("type", "submit")]);
        self.text(button, "Apply");
        let table = self.element(section, "table", Display::Block, &[]);
        let body = self.element(table, "tbody", Display::Block, &[]);
        for row_number in 0..3 {
            let row = self.element(body, "tr", Display::Block, &[]);
            for column in ["Quarter", "Region", "Total"] {
                let tag = if row_number == 0 { "th" } else { "td" };
                let cell = self.element(row, tag, Display::Block, &[]);
                self.text(cell, column);
            }
        }
    }

    fn input(&mut self, parent: NodeId, attributes: &[(&str, &str)], value: &str, flags: u32) {
        let value = self.owned.add_string(value) + 1;
        self.element_with(parent, "input", Display::Inline, attributes, flags, value);
    }

    fn element(
        &mut self,
        parent: NodeId,
        local_name: &str,
        display: Display,
        attributes: &[(&str, &str)],
    ) -> NodeId {
        self.element_with(parent, local_name, display, attributes, 0, 0)
    }

    fn element_with(
        &mut self,
        parent: NodeId,
        local_name: &str,
        display: Display,
        attributes: &[(&str, &str)],
        extra_flags: u32,
        value: u32,
    ) -> NodeId {
        let display_bits = match display {
            Display::None => 0,
            Display::Inline => 2,
            Display::Block => 3,
        };
        let has_box = if matches!(display, Display::None) {
            0
        } else {
            HAS_BOX
        };
        let flags = KIND_ELEMENT | (display_bits << DISPLAY_SHIFT) | has_box | extra_flags;
        let name = self.owned.add_string(local_name);
        NodeId(
            self.owned
                .push_node(flags, parent.0 + 1, name, attributes, value),
        )
    }

    fn text(&mut self, parent: NodeId, data: &str) {
        let string = self.owned.add_string(data);
        self.owned
            .push_node(KIND_TEXT, parent.0 + 1, string, &[], 0);
    }
}

/// Reads the built-in page `rounds` times as a text-tree read does (decoding the facts, the
/// tree, its lines' records) and answers how many lines the last read printed: 0 means the page
/// did not read, which the caller reports, since the page is fixed and always reads.
///
/// `pseudo_source` makes the generated-content source of each read, of the very type real reads
/// use: the core is generic over its [`allwright_ax::Dom`], so the compiler makes one copy of
/// its code per `FactDom<P>`, and a warm-up over another `P` would optimise a copy no real read
/// runs (the worker's first strict-CSP read took 48-88 ms after such a warm-up, against 26-36 ms
/// for later documents: docs/performance/strict-csp.md, "The session's first strict-CSP read: one copy of
/// the core").
pub fn warm_up<P: PseudoContentSource>(rounds: u32, pseudo_source: impl Fn() -> P) -> u32 {
    let page = WarmUpPage::new();
    let identities: Vec<u32> = (1..=page.node_count() as u32).collect();
    let mut records = vec![0; page.node_count() * allwright_ax::tree_diff::RECORD_WIDTH];
    let mut lines = 0;
    for _ in 0..rounds {
        let Ok(dom) = FactDom::decode(page.facts(), pseudo_source()) else {
            return 0;
        };
        let request = TextTreeRequest {
            url: "about:blank",
            title: "A built-in page",
            identities: &identities,
            ..TextTreeRequest::whole_page()
        };
        let output = text_tree_output_into(&dom, &request, &mut records);
        let (envelope, body) = split_output(&output);
        lines = if envelope.contains("\"ok\":true") {
            body.lines().count() as u32
        } else {
            0
        };
    }
    lines
}

/// One comparison of the built-in page's read with itself after a small change, as a `since`
/// read in the service worker makes it ([`crate::api::snapshot_changes_output`], which
/// `diffLinesAfterPart` calls): a few lines in the middle of the page re-read, one of them
/// changed. `records` and `output` are a read of the page through `buildTextTreePacked` (the
/// warm-up's own). Run a few times, it optimises the comparison's code before an agent's first
/// `since` read needs it: at 10k elements, the worker's comparison and its reply took 8-19 ms
/// in the session's first `since` reads on baseline code, and 2.5-5 ms after this warm-up
/// (docs/performance/strict-csp.md, "Reads since a snapshot in the service worker"). Answers
/// whether the comparison answered as it should (a plan), which only a bug would make false.
pub fn warm_up_diff(records: &[u32], output: &str) -> bool {
    let (envelope, body) = split_output(output);
    if !envelope.starts_with("{\"ok\":true") {
        return false;
    }
    // A whole read of the page, uncut: a record for every printed line.
    let lengths: Vec<u32> = body
        .lines()
        .map(|line| line.encode_utf16().count() as u32)
        .collect();
    let line_count = lengths.len();
    let width = allwright_ax::tree_diff::RECORD_WIDTH;
    let Some(previous) = records.get(..line_count * width) else {
        return false;
    };
    if line_count < 8 {
        return false;
    }
    let start = line_count / 2;
    let end = start + 4;
    let replaced = [start as u32, end as u32, 4];
    let mut replacement = previous[start * width..end * width].to_vec();
    // A different hash for the run's second line: printed as changed, with its context.
    replacement[width + 2] ^= 1;
    let snapshot = crate::api::packed_snapshot(previous, &lengths, &replaced);
    let answer = crate::api::snapshot_changes_output(
        &snapshot,
        &replaced,
        &replacement,
        &lengths[start..end],
        None,
    );
    answer.starts_with("{\"ok\":true,\"result\"")
}
