//! The built-in page that warms the core up (src/warm_up.rs) reads as a page: it decodes, and
//! its tree has the landmarks, links, headings, fields and cells it was built with, so that
//! the warm-up runs the paths real reads run.

use allwright_ax_wasm::api::{split_output, text_tree_output, TextTreeRequest};
use allwright_ax_wasm::facts::{FactDom, NoPseudoContent};
use allwright_ax_wasm::packed::PackedReader;
use allwright_ax_wasm::warm_up::{warm_up, WarmUpPage};

#[test]
fn the_built_in_page_reads_as_a_page() {
    let page = WarmUpPage::new();
    assert!(page.node_count() > 1_000, "{} nodes", page.node_count());
    let dom = FactDom::decode(page.facts(), NoPseudoContent).expect("the facts decode");
    let request = TextTreeRequest {
        max_chars: Some(1_000_000),
        ..TextTreeRequest::whole_page()
    };
    let output = text_tree_output(&dom, &request);
    let (envelope, tree) = split_output(&output);
    assert!(envelope.starts_with("{\"ok\":true"), "{envelope}");
    for expected in [
        "navigation \"Main\"",
        "link \"Home\"",
        "heading \"Section 19\" level=\"2\"",
        "heading \"Section 0\" level=\"2\"",
        "link \"Read the report\"",
        "textbox \"email\"",
        "checkbox \"Subscribe\"",
        "combobox \"Region\"",
        "button \"Apply\"",
        "columnheader \"Total\"",
        "cell \"Region\"",
        "contentinfo",
    ] {
        assert!(tree.contains(expected), "{expected:?} in:\n{tree:.3000}");
    }
    assert!(
        !tree.contains("A built-in page\""),
        "the head is not rendered"
    );
}

#[test]
fn warming_up_reads_the_page_every_round() {
    let lines = warm_up(2, || NoPseudoContent);
    assert!(lines > 300, "{lines} lines");
    assert_eq!(warm_up(0, || NoPseudoContent), 0, "no round, no read");
}

/// The page as a packed call (what the service worker's warm-up reads through
/// `buildTextTreePacked`) holds the page's facts and a whole read's lists, which the packed
/// reader takes back whole.
#[test]
fn the_packed_call_holds_the_page_and_a_whole_reads_lists() {
    let page = WarmUpPage::new();
    let (strings, packed) = page.packed_call();
    let facts = page.facts();
    assert_eq!(strings, facts.strings);
    let mut reader = PackedReader::new(&packed).expect("the version byte");
    let read = reader.facts().expect("the facts read back");
    assert_eq!(read.string_lengths, facts.string_lengths);
    assert_eq!(read.nodes, facts.nodes);
    assert_eq!(read.attributes, facts.attributes);
    assert_eq!(read.slots, facts.slots);
    assert_eq!(
        reader.pair_difference_list().expect("known refs"),
        Vec::<u32>::new()
    );
    assert_eq!(reader.f64_list().expect("frame ids"), Vec::<f64>::new());
    let identities = reader.difference_list().expect("identities");
    assert_eq!(identities.len(), page.node_count());
    assert!(identities
        .iter()
        .enumerate()
        .all(|(index, &identity)| identity as usize == index + 1));
    assert_eq!(reader.optional_u32_list().expect("previous lines"), None);
    reader.finish().expect("nothing after the last list");
}

/// The comparison's warm-up compares as a `since` read does: a read of the built-in page and a
/// plan for a changed line, not a refusal.
#[test]
fn the_comparison_warm_up_compares() {
    use allwright_ax_wasm::warm_up::{warm_up_diff, WarmUpPage};
    let page = WarmUpPage::new();
    let identities: Vec<u32> = (1..=page.node_count() as u32).collect();
    let dom = allwright_ax_wasm::facts::FactDom::decode(
        page.facts(),
        allwright_ax_wasm::facts::NoPseudoContent,
    )
    .expect("the built-in page decodes");
    let request = allwright_ax_wasm::api::TextTreeRequest {
        url: "about:blank",
        title: "A built-in page",
        identities: &identities,
        ..allwright_ax_wasm::api::TextTreeRequest::whole_page()
    };
    let mut records = vec![0; page.node_count() * 5];
    let output = allwright_ax_wasm::api::text_tree_output_into(&dom, &request, &mut records);
    assert!(warm_up_diff(&records, &output));
    assert!(!warm_up_diff(&records, "{\"ok\":false}\n"));
}
