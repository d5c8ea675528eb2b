//! Facts no honest gatherer sends but a hostile page could shape (tests/README.md, "Fuzzing"):
//! nesting a hundred thousand levels deep, shadow roots and slots that lead back to their own
//! ancestors, parents that point forward, ID references in loops, attributes and texts of
//! megabytes. The fuzz target `facts_core` (fuzz/) explores these shapes at random; these are
//! the shapes it must never regress on, fixed. Each read must end with an envelope.

use allwright_ax_wasm::api::{
    snapshot_document_output, split_output, text_tree_output, SnapshotRequest, TextTreeRequest,
};
use allwright_ax_wasm::facts::*;

/// A hand-built fact table: node 0 is the document.
struct Page {
    owned: OwnedFacts,
}

impl std::ops::Deref for Page {
    type Target = OwnedFacts;
    fn deref(&self) -> &OwnedFacts {
        &self.owned
    }
}

impl std::ops::DerefMut for Page {
    fn deref_mut(&mut self) -> &mut OwnedFacts {
        &mut self.owned
    }
}

/// Flags of an element with a box, displayed and visible, boxes left unmeasured.
const SHOWN_ELEMENT: u32 = KIND_ELEMENT | (3 << DISPLAY_SHIFT) | HAS_BOX;

impl Page {
    fn new() -> Page {
        Page {
            owned: OwnedFacts {
                nodes: vec![KIND_DOCUMENT | BOXES_UNMEASURED, 0, 0, 0, 0],
                viewport: vec![1280.0, 720.0],
                ..OwnedFacts::default()
            },
        }
    }

    fn element(&mut self, parent: u32, tag: &str, attributes: &[(&str, &str)]) -> u32 {
        let tag = self.add_string(tag);
        self.push_node(SHOWN_ELEMENT, parent + 1, tag, attributes, 0)
    }

    fn text(&mut self, parent: u32, data: &str) -> u32 {
        let data = self.add_string(data);
        self.push_node(KIND_TEXT, parent + 1, data, &[], 0)
    }

    fn shadow_root(&mut self, host: u32) -> u32 {
        self.push_node(KIND_SHADOW_ROOT, host + 1, 0, &[], 0)
    }
}

fn request(filter: &str, max_chars: Option<u32>) -> TextTreeRequest<'_> {
    TextTreeRequest {
        filter,
        max_depth: 1_000_000,
        max_chars,
        url: "https://hostile.test/",
        title: "hostile",
        ..TextTreeRequest::whole_page()
    }
}

/// Reads the page as the text tree (every filter) and as both snapshot formats, on a thread
/// with the stack a wasm32 build gets by default (1 MiB), and returns the "all" tree.
fn read_everything(page: Page) -> String {
    std::thread::Builder::new()
        .stack_size(1024 * 1024)
        .spawn(move || {
            let dom = FactDom::decode(page.facts(), NoPseudoContent).expect("well-formed facts");
            let mut all = String::new();
            for filter in ["all", "visible", "interactive"] {
                let output = text_tree_output(&dom, &request(filter, Some(50_000)));
                assert!(
                    output.starts_with("{\"ok\":true"),
                    "{filter}: {}",
                    &output[..output.len().min(300)]
                );
                if filter == "all" {
                    all = split_output(&output).1.to_owned();
                }
            }
            for format in ["json", "yaml"] {
                let output = snapshot_document_output(
                    &dom,
                    &SnapshotRequest {
                        format,
                        context_id: "c",
                        parent_context_id: None,
                        url: "https://hostile.test/",
                        title: "hostile",
                        ai: None,
                    },
                );
                assert!(output.starts_with("{\"ok\":"), "{format}");
            }
            all
        })
        .expect("a reader thread")
        .join()
        .expect("the read must not panic or overflow its stack")
}

#[test]
fn a_hundred_thousand_levels_of_nesting_read_without_overflow() {
    let mut page = Page::new();
    let mut parent = page.element(0, "body", &[]);
    for _ in 0..100_000 {
        parent = page.element(parent, "div", &[]);
    }
    page.element(parent, "button", &[("aria-label", "Deepest")]);
    let tree = read_everything(page);
    assert!(!tree.is_empty());
}

#[test]
fn a_slot_that_assigns_its_own_ancestors_is_read_once() {
    let mut page = Page::new();
    let body = page.element(0, "body", &[]);
    let host = page.element(body, "x-card", &[]);
    let root = page.shadow_root(host);
    let slot = page.element(root, "slot", &[]);
    let button = page.element(host, "button", &[]);
    page.text(button, "Slotted");
    // The slot assigns the button, then its own host and body, and itself.
    page.slots.extend([slot, 4, button, host, body, slot]);
    read_everything(page);
}

#[test]
fn parents_after_their_children_are_refused_so_no_cycle_is_decoded() {
    // Nodes 3 and 4 each other's parent, a label among them (the label index looks at every
    // label, reachable or not, and once looped here: the fuzz target facts_core found it); and a
    // host whose parent is inside the shadow root it hosts. Tree order forbids both.
    let mut detached_cycle = Page::new();
    let body = detached_cycle.element(0, "body", &[]);
    detached_cycle.text(body, "Reachable");
    let label = detached_cycle.add_string("label");
    detached_cycle.push_node(SHOWN_ELEMENT, 4 + 1, label, &[], 0);
    detached_cycle.push_node(SHOWN_ELEMENT, 3 + 1, label, &[], 0);
    let mut host_in_own_root = Page::new();
    host_in_own_root.element(0, "body", &[]);
    // body 1, host 2 (its parent: the section, node 4), root 3, section 4.
    let tag = host_in_own_root.add_string("x-loop");
    host_in_own_root.push_node(SHOWN_ELEMENT, 4 + 1, tag, &[], 0);
    let root = host_in_own_root.shadow_root(2);
    host_in_own_root.element(root, "section", &[]);
    for (name, page) in [
        ("detached cycle", detached_cycle),
        ("host in its own root", host_in_own_root),
    ] {
        let error = FactDom::decode(page.facts(), NoPseudoContent).err();
        assert!(
            error
                .as_ref()
                .is_some_and(|error| error.0.contains("parent")),
            "{name}: {error:?}"
        );
    }
}

#[test]
fn reference_loops_in_names_and_ownership_end() {
    let mut page = Page::new();
    let body = page.element(0, "body", &[]);
    let a = page.element(
        body,
        "div",
        &[
            ("id", "a"),
            ("role", "group"),
            ("aria-labelledby", "b a"),
            ("aria-owns", "b"),
        ],
    );
    let b = page.element(
        a,
        "div",
        &[
            ("id", "b"),
            ("role", "button"),
            ("aria-labelledby", "a b"),
            ("aria-owns", "a body"),
        ],
    );
    page.text(b, "Loop");
    page.element(
        body,
        "label",
        &[("id", "body"), ("aria-owns", "a"), ("for", "a")],
    );
    read_everything(page);
}

#[test]
fn megabyte_attributes_and_texts_are_cut_not_copied() {
    let mut page = Page::new();
    let body = page.element(0, "body", &[]);
    let huge_label = "label ".repeat(2_000_000);
    let huge_text = "word\u{200B}".repeat(2_000_000);
    let huge_href = format!("https://hostile.test/{}", "a".repeat(5_000_000));
    page.element(body, "button", &[("aria-label", &huge_label)]);
    let paragraph = page.element(body, "p", &[]);
    page.text(paragraph, &huge_text);
    page.element(body, "a", &[("href", &huge_href), ("aria-label", "Link")]);
    let tree = read_everything(page);
    // The page is bounded by the 50,000-character cap the read asked for.
    assert!(
        tree.chars().count() <= 60_000,
        "{} characters",
        tree.chars().count()
    );
}

#[test]
fn names_from_content_a_hundred_thousand_levels_deep_end() {
    // A link and a label's target named from content nested far below them, a text beside
    // every level (so that no level can hand its entries up untouched), and aria-labelledby
    // pointing at the deepest element.
    let mut page = Page::new();
    let body = page.element(0, "body", &[]);
    let link = page.element(body, "a", &[("href", "/deep")]);
    let mut parent = link;
    for level in 0..100_000 {
        page.text(parent, if level % 2 == 0 { "a" } else { "b" });
        parent = page.element(parent, "span", &[]);
    }
    page.element(parent, "b", &[("id", "bottom")]);
    page.element(body, "button", &[("aria-labelledby", "bottom")]);
    read_everything(page);
}

#[test]
fn one_label_around_thousands_of_controls_is_read_in_one_pass() {
    let mut page = Page::new();
    let body = page.element(0, "body", &[]);
    let label = page.element(body, "label", &[]);
    for index in 0..20_000 {
        let span = page.element(label, "span", &[]);
        page.text(span, &format!("Option {index}"));
        page.element(label, "input", &[("type", "checkbox")]);
    }
    read_everything(page);
}
