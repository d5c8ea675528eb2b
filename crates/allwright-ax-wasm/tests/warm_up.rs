//! The built-in page that warms the core up (src/warm_up.rs) reads as a page: it decodes, and
//! its tree has the landmarks, links, headings, fields and cells it was built with, so that
//! the warm-up runs the paths real reads run.

use allwright_ax_wasm::api::{split_output, text_tree_output, TextTreeRequest};
use allwright_ax_wasm::facts::{FactDom, NoPseudoContent};
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
