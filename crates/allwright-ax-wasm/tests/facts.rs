//! The fact format, natively: pages parsed by the in-memory DOM are encoded the way
//! `accessibility-tree.js` encodes the live DOM, decoded by the glue, and must give the core
//! exactly the answers the in-memory DOM gives. Malformed facts are errors, never panics.

use allwright_ax::memdom::MemDom;
use allwright_ax::{Dom, NodeId, NodeKind, PseudoElement};
use allwright_ax_wasm::api::{
    snapshot_document_output, split_output, text_tree_output, SnapshotRequest, TextTreeRequest,
};
use allwright_ax_wasm::facts::*;

/// Facts as the content script would send them, owned, with the memdom node of each.
#[derive(Default)]
struct Encoded {
    owned: OwnedFacts,
    /// Encoded index -> memdom node.
    origin: Vec<NodeId>,
}

impl std::ops::Deref for Encoded {
    type Target = OwnedFacts;
    fn deref(&self) -> &OwnedFacts {
        &self.owned
    }
}

impl std::ops::DerefMut for Encoded {
    fn deref_mut(&mut self) -> &mut OwnedFacts {
        &mut self.owned
    }
}

/// The JavaScript gatherer's walk, over the in-memory DOM.
fn encode(dom: &MemDom) -> Encoded {
    let mut out = Encoded::default();
    let viewport = dom.viewport();
    out.viewport = vec![viewport.width, viewport.height];
    let mut index_of = vec![u32::MAX; dom.node_count()];
    let mut pending = vec![(dom.document(), 0u32)];
    while let Some((node, parent)) = pending.pop() {
        let index = out.origin.len() as u32;
        let kind = match dom.node_kind(node) {
            NodeKind::Document => KIND_DOCUMENT,
            NodeKind::Element => KIND_ELEMENT,
            NodeKind::Text => KIND_TEXT,
            NodeKind::ShadowRoot => KIND_SHADOW_ROOT,
            NodeKind::Other => continue,
        };
        index_of[node.index()] = index;
        out.origin.push(node);
        let mut flags = kind;
        let mut string = 0;
        let mut attribute_count = 0;
        let mut value = 0;
        if kind == KIND_ELEMENT {
            let namespace = match dom.namespace(node) {
                allwright_ax::Namespace::Html => 0,
                allwright_ax::Namespace::Svg => 1,
                allwright_ax::Namespace::MathMl => 2,
                allwright_ax::Namespace::Other => 3,
            };
            flags |= namespace << NAMESPACE_SHIFT;
            let style = dom.style(node);
            flags |= (match style.display {
                allwright_ax::Display::None => 0,
                allwright_ax::Display::Contents => 1,
                allwright_ax::Display::Inline | allwright_ax::Display::AtomicInline => 2,
                allwright_ax::Display::Block => 3,
            }) << DISPLAY_SHIFT;
            if style.display == allwright_ax::Display::AtomicInline {
                flags |= ATOMIC_INLINE;
            }
            flags |= (match style.visibility {
                allwright_ax::Visibility::Visible => 0,
                allwright_ax::Visibility::Hidden => 1,
                allwright_ax::Visibility::Collapse => 2,
            }) << VISIBILITY_SHIFT;
            if style.content_visibility_hidden {
                flags |= CONTENT_VISIBILITY_HIDDEN;
            }
            if style.pointer_events_none {
                flags |= POINTER_EVENTS_NONE;
            }
            if style.scroll_container {
                flags |= SCROLL_CONTAINER;
            }
            if style.cursor_pointer {
                flags |= CURSOR_POINTER;
            }
            flags |= (match style.text_transform {
                allwright_ax::TextTransform::None => 0,
                allwright_ax::TextTransform::Uppercase => 1,
                allwright_ax::TextTransform::Lowercase => 2,
                allwright_ax::TextTransform::Capitalize => 3,
            }) << TEXT_TRANSFORM_SHIFT;
            if let Some(rect) = dom.bounding_box(node) {
                flags |= HAS_BOX;
                out.rects.extend([rect.x, rect.y, rect.width, rect.height]);
            }
            // The gatherer flags the elements that some style rule may give generated content;
            // the in-memory DOM knows exactly which ones have it.
            let generated_content = dom.pseudo_content(node, PseudoElement::Before).is_some()
                || dom.pseudo_content(node, PseudoElement::After).is_some();
            for (flag, set) in [
                (GENERATED_CONTENT_POSSIBLE, generated_content),
                (CHECKED, dom.checked(node)),
                (INDETERMINATE, dom.indeterminate(node)),
                (OPTION_SELECTED, dom.option_selected(node)),
                (FILES_ATTACHED, dom.files_attached(node)),
                (DISABLED, dom.disabled(node)),
                (
                    UNREAD_CLOSED_SHADOW_ROOT,
                    dom.has_unread_closed_shadow_root(node),
                ),
                (HAS_CLICK_LISTENER, dom.has_click_listener(node)),
            ] {
                if set {
                    flags |= flag;
                }
            }
            string = out.add_string(dom.local_name(node));
            let mut pairs = Vec::new();
            dom.for_each_attribute(node, &mut |name, value| {
                pairs.push((name.to_string(), value.to_string()))
            });
            attribute_count = pairs.len() as u32;
            for (name, attribute_value) in pairs {
                let name = out.add_string(&name);
                let attribute_value = out.add_string(&attribute_value);
                out.attributes.extend([name, attribute_value]);
            }
            if let Some(text) = dom.value(node) {
                value = out.add_string(text) + 1;
            }
        } else if kind == KIND_TEXT {
            string = out.add_string(dom.text_data(node));
        }
        out.nodes
            .extend([flags, parent, string, attribute_count, value]);
        for &child in dom.children(node).iter().rev() {
            pending.push((child, index + 1));
        }
        if let Some(root) = dom.shadow_root(node) {
            pending.push((root, index + 1));
        }
    }
    for (index, &node) in out.origin.clone().iter().enumerate() {
        if dom.node_kind(node) == NodeKind::Element && dom.local_name(node) == "slot" {
            let assigned: Vec<u32> = dom
                .assigned_nodes(node)
                .iter()
                .map(|assigned| index_of[assigned.index()])
                .filter(|&assigned| assigned != u32::MAX)
                .collect();
            if !assigned.is_empty() {
                out.slots.extend([index as u32, assigned.len() as u32]);
                out.slots.extend(assigned);
            }
        }
    }
    out
}

/// The memdom's pseudo-element content, as the live page would report it (CSS text).
struct MemPseudo<'dom> {
    dom: &'dom MemDom,
    origin: Vec<NodeId>,
}

impl PseudoContentSource for MemPseudo<'_> {
    fn computed_content(&self, node: NodeId, pseudo: PseudoElement) -> Option<String> {
        let original = *self.origin.get(node.index())?;
        let text = self.dom.pseudo_content(original, pseudo)?;
        Some(format!(
            "\"{}\"",
            text.replace('\\', "\\\\").replace('"', "\\\"")
        ))
    }
}

fn request<'a>(filter: &'a str) -> TextTreeRequest<'a> {
    TextTreeRequest {
        filter,
        url: "u",
        title: "t",
        ..TextTreeRequest::whole_page()
    }
}

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

/// `PAGE` with the click listeners its script would add (`Dom::has_click_listener`).
fn page_dom() -> MemDom {
    let mut dom = MemDom::parse(PAGE);
    for element in dom.query_selector_all(".listened").expect("selector") {
        dom.add_click_listener(element);
    }
    dom
}

#[test]
fn decoded_facts_give_the_core_the_same_answers_as_the_original_dom() {
    let dom = page_dom();
    let encoded = encode(&dom);
    let pseudo = MemPseudo {
        dom: &dom,
        origin: encoded.origin.clone(),
    };
    let decoded = FactDom::decode(encoded.facts(), pseudo).expect("valid facts");
    for filter in ["all", "visible", "interactive"] {
        let ours = text_tree_output(&decoded, &request(filter));
        let theirs = text_tree_output(&dom, &request(filter));
        assert_eq!(
            split_output(&ours).1,
            split_output(&theirs).1,
            "filter {filter}"
        );
        // New references name nodes by index: the same nodes once mapped back (the gatherer
        // skips comments, so indices differ).
        let mapped: Vec<u32> = new_refs(&ours)
            .iter()
            .map(|&index| encoded.origin[index as usize].0)
            .collect();
        assert_eq!(mapped, new_refs(&theirs), "filter {filter}");
        // The printed references carry numbers, roles, names and focusability, none of which
        // depends on node indices: identical.
        let printed_refs = |output: &str| {
            let (envelope, _) = split_output(output);
            envelope[envelope.find("\"refs\":").expect("refs")..].to_string()
        };
        assert_eq!(
            printed_refs(&ours),
            printed_refs(&theirs),
            "filter {filter}"
        );
    }
    for format in ["json", "yaml"] {
        let snapshot = |dom: &dyn Dom| {
            snapshot_document_output(
                dom,
                &SnapshotRequest {
                    format,
                    context_id: "c",
                    parent_context_id: Some("p"),
                    url: "u",
                    title: "t",
                    ai: None,
                },
            )
        };
        assert_eq!(snapshot(&decoded), snapshot(&dom), "format {format}");
    }
    // Spot checks of what decoding must preserve.
    let (_, body) = {
        let output = text_tree_output(&decoded, &request("all"));
        let (envelope, body) = split_output(&output);
        (envelope.to_string(), body.to_string())
    };
    assert!(body.contains("heading \"Glue 𝔘𝔫𝔦𝔠𝔬𝔡𝔢\""), "{body}");
    assert!(body.contains("button \"★ Favourite\""), "{body}");
    // text-transform reaches the core through its two bits (all three transforms).
    assert!(body.contains("button \"SAVE CHANGES\""), "{body}");
    assert!(body.contains("link \"New Arrivals\""), "{body}");
    assert!(body.contains("link \"best sellers\""), "{body}");
    assert!(body.contains("Slotted"), "{body}");
    assert!(!body.contains("secret"), "{body}");
    assert!(!body.contains("Not rendered"), "{body}");
    assert!(
        body.contains("generic [ref_") && body.contains("] closed-shadow-root"),
        "{body}"
    );
    assert!(!body.contains("Sealed"), "{body}");
    // A click listener reaches the core through HAS_CLICK_LISTENER.
    assert!(
        body.contains("clickable \"Row with a listener\" [ref_"),
        "{body}"
    );
}

/// The gatherer (extension/content/tree/facts.js) writes the version and the bits this crate
/// reads from the module generated from this crate's constants (extension/shared/generated/
/// fact-layout.js, whose freshness tests/host/mcp.rs checks), and holds no hand copy of them: a
/// copy could drift from facts.rs and show only as a refused core in a browser.
#[test]
fn the_gatherer_takes_the_version_and_the_bits_from_the_generated_layout() {
    let read = |path: &str| {
        std::fs::read_to_string(format!("{}/../../{path}", env!("CARGO_MANIFEST_DIR")))
            .unwrap_or_else(|error| panic!("{path}: {error}"))
    };
    let gatherer = read("extension/content/tree/facts.js");
    let layout = read("extension/shared/generated/fact-layout.js");
    assert!(
        gatherer.contains("} from \"../../shared/generated/fact-layout.js\";"),
        "facts.js does not import the generated fact layout"
    );
    for (name, value) in [
        ("FACTS_VERSION", format!("{FACTS_VERSION}")),
        ("HAS_CLICK_LISTENER", format!("{HAS_CLICK_LISTENER:#x}")),
        ("CURSOR_POINTER", format!("{CURSOR_POINTER:#x}")),
    ] {
        assert!(
            layout.contains(&format!("export const {name} = {value};")),
            "fact-layout.js lacks {name} = {value}"
        );
        assert!(
            gatherer.contains(&format!("  {name},\n")),
            "facts.js does not import {name}"
        );
        assert!(
            !gatherer.contains(&format!("const {name} =")),
            "facts.js keeps a hand copy of {name}"
        );
    }
}

/// The `newRefs` list of a text-tree output.
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
fn strings_split_by_utf16_lengths_including_astral_characters() {
    let mut encoded = encode(&MemDom::parse("<p>x</p>"));
    let index = encoded.add_string("a😀b");
    let tail = encoded.add_string("");
    encoded.nodes[2] = index; // The document's string slot is ignored; any valid index will do.
    let decoded = FactDom::decode(encoded.facts(), NoPseudoContent).expect("valid");
    assert_eq!(decoded.node_count(), encoded.nodes.len() / NODE_STRIDE);
    assert_eq!(tail as usize + 1, encoded.string_lengths.len());
}

/// Records which elements the core asks for generated content, and answers nothing.
struct RecordingPseudo(std::rc::Rc<std::cell::RefCell<Vec<u32>>>);

impl PseudoContentSource for RecordingPseudo {
    fn computed_content(&self, node: NodeId, _pseudo: PseudoElement) -> Option<String> {
        self.0.borrow_mut().push(node.0);
        None
    }
}

#[test]
fn generated_content_is_asked_only_of_flagged_elements() {
    let dom = MemDom::parse(PAGE);
    let mut encoded = encode(&dom);
    let flagged: Vec<u32> = (0..encoded.nodes.len() / NODE_STRIDE)
        .filter(|&node| encoded.nodes[node * NODE_STRIDE] & GENERATED_CONTENT_POSSIBLE != 0)
        .map(|node| node as u32)
        .collect();
    assert_eq!(
        flagged.len(),
        1,
        "the page has one ::before rule, on one element"
    );
    let asked = |encoded: &Encoded| {
        let record = std::rc::Rc::default();
        let source = RecordingPseudo(std::rc::Rc::clone(&record));
        let decoded = FactDom::decode(encoded.facts(), source).expect("valid");
        text_tree_output(&decoded, &request("all"));
        let mut asked = record.take();
        asked.dedup();
        asked
    };
    assert_eq!(asked(&encoded), flagged);
    for node in 0..encoded.nodes.len() / NODE_STRIDE {
        encoded.nodes[node * NODE_STRIDE] &= !GENERATED_CONTENT_POSSIBLE;
    }
    assert_eq!(asked(&encoded), Vec::<u32>::new());
}

#[test]
fn boxes_can_be_left_unmeasured() {
    let dom = MemDom::parse(PAGE);
    let mut encoded = encode(&dom);
    encoded.rects.clear();
    encoded.nodes[0] |= BOXES_UNMEASURED;
    let decoded = FactDom::decode(encoded.facts(), NoPseudoContent).expect("valid");
    let rendered = (0..decoded.node_count() as u32)
        .map(NodeId)
        .find(|&node| decoded.local_name(node) == "h1")
        .expect("h1");
    let rect = decoded.bounding_box(rendered).expect("a box");
    assert_eq!((rect.width, rect.height), (0.0, 0.0));
}

#[test]
fn malformed_facts_are_errors_not_panics() {
    let dom = MemDom::parse(PAGE);
    let good = encode(&dom);
    let decode = |change: &dyn Fn(&mut Encoded)| {
        let mut encoded = encode(&dom);
        change(&mut encoded);
        FactDom::decode(encoded.facts(), NoPseudoContent).map(|_| ())
    };
    assert!(FactDom::decode(good.facts(), NoPseudoContent).is_ok());
    type Change = Box<dyn Fn(&mut Encoded)>;
    let cases: Vec<(&str, Change)> = vec![
        ("empty", Box::new(|e| e.nodes.clear())),
        ("stride", Box::new(|e| e.nodes.push(1))),
        ("kind", Box::new(|e| e.nodes[NODE_STRIDE] = 7)),
        (
            "second document",
            Box::new(|e| e.nodes[NODE_STRIDE] = KIND_DOCUMENT),
        ),
        ("parent", Box::new(|e| e.nodes[NODE_STRIDE + 1] = u32::MAX)),
        ("self parent", Box::new(|e| e.nodes[NODE_STRIDE + 1] = 2)),
        ("string", Box::new(|e| e.nodes[NODE_STRIDE + 2] = u32::MAX)),
        (
            "attributes",
            Box::new(|e| e.nodes[NODE_STRIDE + 3] = u32::MAX),
        ),
        ("value", Box::new(|e| e.nodes[NODE_STRIDE + 4] = u32::MAX)),
        ("lengths", Box::new(|e| e.string_lengths[0] += 1)),
        (
            "long lengths",
            Box::new(|e| e.string_lengths.push(u32::MAX)),
        ),
        ("extra text", Box::new(|e| e.strings.push('x'))),
        (
            "rects",
            Box::new(|e| {
                let kept = e.rects.len() - 4;
                e.rects.truncate(kept)
            }),
        ),
        ("extra rect", Box::new(|e| e.rects.extend([0.0; 4]))),
        ("slot", Box::new(|e| e.slots.extend([u32::MAX, 0]))),
        ("slot count", Box::new(|e| e.slots.extend([0, 5, 1]))),
        ("viewport", Box::new(|e| e.viewport.clear())),
        ("odd attributes", Box::new(|e| e.attributes.push(0))),
    ];
    for (name, change) in cases {
        assert!(
            decode(change.as_ref()).is_err(),
            "{name} should be rejected"
        );
    }
}

#[test]
fn css_content_values_become_text() {
    assert_eq!(content_text("\"Note: \""), Some("Note: ".to_string()));
    assert_eq!(content_text("none"), None);
    assert_eq!(content_text("normal"), None);
    assert_eq!(content_text("\"\""), None);
    assert_eq!(content_text("\"a\" \"b\""), Some("ab".to_string()));
    assert_eq!(content_text("'it\\'s'"), Some("it's".to_string()));
    assert_eq!(content_text("\"\\2605  x\""), Some("★ x".to_string()));
    assert_eq!(
        content_text("\"★\" / \"Favourite\""),
        Some("Favourite".to_string())
    );
    assert_eq!(content_text("url(\"a.png\")"), None);
    assert_eq!(
        content_text("url(\"a.png\") \"caption\""),
        Some("caption".to_string())
    );
    assert_eq!(content_text("counter(item) \". \""), Some(". ".to_string()));
    assert_eq!(
        content_text("\"unterminated"),
        Some("unterminated".to_string())
    );
    assert_eq!(content_text("\"\\0\""), Some("\u{fffd}".to_string()));
}

#[test]
fn a_select_that_shows_no_option_has_neither_name_nor_value() {
    // A script may set `selectedIndex = -1`: the browser then reports no option selected and
    // draws an empty control. The name and the value read the same selectedness
    // (`html::selected_options`), so both stay empty rather than guessing the first option.
    let dom = MemDom::parse("<select><option>First</option><option>Second</option></select>");
    let mut encoded = encode(&dom);
    for flags in encoded.nodes.iter_mut().step_by(NODE_STRIDE) {
        *flags &= !OPTION_SELECTED;
    }
    let decoded = FactDom::decode(encoded.facts(), NoPseudoContent).expect("valid facts");
    let output = text_tree_output(&decoded, &request("all"));
    let line = split_output(&output)
        .1
        .lines()
        .find(|line| line.trim_start().starts_with("combobox"))
        .unwrap_or_else(|| panic!("no combobox in {output}"))
        .to_string();
    assert_eq!(line.trim_start(), "combobox [ref_1]", "{output}");
    // With the first option selected, as the browser's selectedness gives by default, both
    // name and value are that option.
    let selected = text_tree_output(&dom, &request("all"));
    assert!(
        selected.contains("combobox \"First\" [ref_1] value=\"First\""),
        "{selected}"
    );
}

#[test]
fn frame_ids_of_any_size_reach_the_iframe_line_and_bad_pairs_are_ignored() {
    let dom = MemDom::parse(r#"<iframe id="f" title="Pay" src="/pay"></iframe>"#);
    let frame = dom.element_by_id_attribute("f").expect("iframe").0 as f64;
    // Firefox's frame ids exceed 32 bits; a fractional, negative or out-of-range pair is dropped.
    let pairs = [frame, 17_179_869_185.0, frame, 2.5, -1.0, 4.0, 1e9, 5.0];
    let output = text_tree_output(
        &dom,
        &TextTreeRequest {
            frame_ids: &pairs,
            ..request("all")
        },
    );
    let (_, body) = split_output(&output);
    assert!(body.ends_with("[ref_1] frameId=17179869185"), "{body}");
}
