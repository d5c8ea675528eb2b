//! The reads of the core as the extension asks for them (allwright_ax::reads), over the
//! in-memory DOM: references kept and numbered on, errors as envelopes with the protocol's codes,
//! and the "ai" mode references of the structured snapshot, which stay while an element's role
//! and name hold. The glue's tests (crates/allwright-ax-wasm/tests) check that the facts the
//! content script sends give these reads the same answers.

use allwright_ax::memdom::MemDom;
use allwright_ax::reads::{
    role_name_key, snapshot_document_output, split_output, text_tree_output, AiRefs,
    SnapshotRequest, TextTreeRequest,
};
use allwright_ax::{Dom, NodeId};

/// The glue's test page (crates/allwright-ax-wasm/tests/facts.rs): the same reads over it.
const PAGE: &str = r#"<!doctype html><html><head><title>Glue 🧪</title>
<style>.star::before { content: "★ "; } .gone { display: none } .ghost { visibility: hidden }
.box { --memdom-box: 0 900 10 10 }</style></head><body>
<h1>Glue 𝔘𝔫𝔦𝔠𝔬𝔡𝔢</h1>
<ul aria-label="Feed" style="overflow-y: scroll"><li>Scrolls, so it prints its ref</li></ul>
<button class="star">Favourite</button>
<button style="text-transform:uppercase">Save changes</button>
<a href="/x" style="text-transform:capitalize">new arrivals</a><a href="/y" style="text-transform:lowercase">BEST SELLERS</a>
<p title="a&#1;b">Text with the separator &#1; inside</p>
<label for="pw">Password</label><input id="pw" type="password" value="secret">
<label>Agree <input type="checkbox" checked></label>
<select aria-label="Size"><option>S</option><option selected>M</option></select>
<fieldset disabled><button>Locked</button></fieldset>
<div class="gone"><button>Not rendered</button></div>
<div class="ghost"><button>Invisible</button></div>
<button class="box">Below the fold</button>
<div role="listbox" aria-label="Owner" aria-owns="o1"></div><div role="option" id="o1">Owned</div>
<x-card><template shadowrootmode="open"><section aria-labelledby="t"><h2 id="t">Shadow title</h2>
<slot name="a"></slot><slot></slot></section></template>
<button slot="a">Slotted</button><span>Default slot</span></x-card>
<x-vault><template shadowrootmode="closed"><p>Sealed</p></template></x-vault>
<div class="listened">Row with a listener</div>
<!-- a comment the gatherer does not send -->
</body></html>"#;

fn request<'a>(filter: &'a str) -> TextTreeRequest<'a> {
    TextTreeRequest {
        filter,
        url: "u",
        title: "t",
        ..TextTreeRequest::whole_page()
    }
}

/// The envelope's `newRefs`: the nodes that received new references, in order.
fn new_refs(output: &str) -> Vec<u32> {
    let (envelope, _) = split_output(output);
    let start = envelope.find("\"newRefs\":[").expect("newRefs") + 11;
    let end = envelope[start..].find(']').expect("end") + start;
    envelope[start..end]
        .split(',')
        .filter(|part| !part.is_empty())
        .map(|part| part.parse().expect("number"))
        .collect()
}

#[test]
fn known_refs_are_kept_and_new_ones_numbered_after_the_counter() {
    let dom = MemDom::parse(PAGE);
    let first = text_tree_output(&dom, &request("all"));
    let (_, body) = split_output(&first);
    let new_refs = new_refs(&first);
    assert!(body.contains("[ref_1]"));
    // The second build knows every element: the same text, nothing new.
    let known: Vec<u32> = new_refs
        .iter()
        .enumerate()
        .flat_map(|(position, &node)| [node, position as u32 + 1])
        .collect();
    let second = text_tree_output(
        &dom,
        &TextTreeRequest {
            known_refs: &known,
            ref_counter: new_refs.len() as u32,
            ..request("all")
        },
    );
    let (second_envelope, second_body) = split_output(&second);
    assert_eq!(second_body, body);
    assert!(
        second_envelope.contains("\"newRefs\":[],"),
        "{second_envelope}"
    );
    // With an older registry that already counted to 100, new references continue from there.
    let third = text_tree_output(
        &dom,
        &TextTreeRequest {
            ref_counter: 100,
            ..request("all")
        },
    );
    assert!(split_output(&third).1.contains("[ref_101]"));
}

#[test]
fn errors_are_envelopes_with_protocol_codes() {
    let dom = MemDom::parse(PAGE);
    let bad_filter = text_tree_output(&dom, &request("everything"));
    assert!(bad_filter.starts_with("{\"ok\":false,\"error\":{\"code\":\"invalid_arguments\""));
    let bad_page = text_tree_output(
        &dom,
        &TextTreeRequest {
            page: 9,
            ..request("all")
        },
    );
    assert!(
        bad_page.contains("\"code\":\"page_out_of_range\""),
        "{bad_page}"
    );
    let text_anchor = text_tree_output(
        &dom,
        &TextTreeRequest {
            anchor: Some(NodeId(0)),
            ..request("all")
        },
    );
    assert!(
        text_anchor.contains("\"code\":\"ref_not_found\""),
        "{text_anchor}"
    );
}

#[test]
fn ai_references_stay_while_role_and_name_hold() {
    let dom = MemDom::parse(PAGE);
    let capture = |known: Vec<(NodeId, &'static str, &'static str)>| {
        snapshot_document_output(
            &dom,
            &SnapshotRequest {
                format: "json",
                context_id: "c",
                parent_context_id: None,
                url: "u",
                title: "t",
                ai: Some(AiRefs {
                    prefix: "p-",
                    counter: 0,
                    known,
                }),
            },
        )
    };
    let first = capture(Vec::new());
    assert!(first.contains("\"aria-ref\":\"p-e1\""));
    let heading = (0..dom.node_count() as u32)
        .map(NodeId)
        .find(|&node| dom.local_name(node) == "h1")
        .expect("h1");
    let kept = capture(vec![(
        heading,
        "old-ref",
        Box::leak(role_name_key("heading", "Glue 𝔘𝔫𝔦𝔠𝔬𝔡𝔢").into_boxed_str()),
    )]);
    assert!(kept.contains("\"aria-ref\":\"old-ref\""));
    let renamed = capture(vec![(heading, "old-ref", "0000000000000000")]);
    assert!(!renamed.contains("old-ref"));
    // Text nodes and unrendered elements get none.
    let (envelope, _) = split_output(&first);
    assert!(envelope.contains("\"ariaCounter\":"));
}
