//! Accessible names and descriptions (accname 1.2, HTML-AAM) and allwright's own fallbacks,
//! as table-style cases over the in-memory DOM. Each case marks its target with `id="target"`.

use allwright_ax::memdom::MemDom;
use allwright_ax::{Context, Dom, NameSource};

/// The computed name of `#target`, and where it came from.
fn name_of(html: &str) -> (String, NameSource) {
    let dom = MemDom::parse(html);
    let Some(target) = dom.element_by_id_attribute("target") else {
        panic!("no #target in {html}");
    };
    let context = Context::new(&dom);
    let name = context.name(target);
    (name.text, name.source)
}

/// The name of `#target` is `expected`, from the spec's algorithm.
#[track_caller]
fn check(html: &str, expected: &str) {
    let (text, source) = name_of(html);
    assert_eq!(text, expected, "name of #target in {html}");
    if !expected.is_empty() {
        assert_eq!(source, NameSource::Spec, "source of the name in {html}");
    }
}

/// The name of `#target` is `expected`, from one of the fallbacks (`name.rs`, `heuristic_name`).
#[track_caller]
fn check_heuristic(html: &str, expected: &str) {
    let (text, source) = name_of(html);
    assert_eq!(text, expected, "name of #target in {html}");
    assert_eq!(
        source,
        NameSource::Heuristic,
        "source of the name in {html}"
    );
}

/// The description of `#target` is `expected`.
#[track_caller]
fn check_description(html: &str, expected: &str) {
    let dom = MemDom::parse(html);
    let Some(target) = dom.element_by_id_attribute("target") else {
        panic!("no #target in {html}");
    };
    let context = Context::new(&dom);
    assert_eq!(
        context.description(target),
        expected,
        "description of #target in {html}"
    );
}

// 2A: Hidden Not Referenced.

#[test]
fn hidden_element_has_no_name() {
    check(
        r#"<span style="display:none"><button id="target">x</button></span>"#,
        "",
    );
    check(r#"<button id="target" hidden>x</button>"#, "");
    // A hidden element is still named by its author's label (browsers agree).
    check(
        r#"<button id="target" hidden aria-label="Close">x</button>"#,
        "Close",
    );
}

#[test]
fn hidden_descendants_are_skipped() {
    check(
        r#"<button id="target"><span aria-hidden="true">hidden,</span><span hidden>gone,</span> <span>visible</span></button>"#,
        "visible",
    );
    check(
        r#"<button id="target">a<span style="display:none">b</span>c</button>"#,
        "ac",
    );
}

#[test]
fn visibility_visible_descendant_of_hidden_counts() {
    check(
        r#"<h2 id="target">visible, <span style="visibility:hidden">hidden, <span style="visibility:visible">shown again</span></span></h2>"#,
        "visible, shown again",
    );
}

// 2B: LabelledBy.

#[test]
fn labelledby_beats_everything() {
    check(
        r#"<span id="l">from ref</span><button id="target" aria-labelledby="l" aria-label="label" title="t">content</button>"#,
        "from ref",
    );
}

#[test]
fn labelledby_joins_references_with_spaces() {
    check(
        r#"<nav id="target" aria-labelledby="s1 s2 s3"><span id="s1">verify</span><span id="s2">spaces</span><span>NOT</span><span id="s3">between</span></nav>"#,
        "verify spaces between",
    );
}

#[test]
fn labelledby_self_reference_uses_own_aria_label() {
    check(
        r#"<div id="target" role="group" aria-label="self label" aria-labelledby="target h"><p>text</p></div><h2 id="h">heading</h2>"#,
        "self label heading",
    );
}

#[test]
fn labelledby_is_not_followed_twice() {
    // The referenced node's own aria-labelledby is ignored within a labelledby traversal.
    check(
        r#"<button id="target" aria-labelledby="a">x</button><span id="a" aria-labelledby="b">A</span><span id="b">B</span>"#,
        "A",
    );
}

#[test]
fn labelledby_loop_terminates() {
    check(
        r#"<div id="target" role="button" aria-labelledby="a"></div><span id="a" aria-labelledby="target">A <span aria-labelledby="a">inner</span></span>"#,
        "A inner",
    );
    check(
        r#"<div id="target" role="button" aria-labelledby="target">self</div>"#,
        "self",
    );
}

#[test]
fn labelledby_invalid_ids_fall_through() {
    check(
        r#"<button id="target" aria-labelledby="missing nope">content</button>"#,
        "content",
    );
}

#[test]
fn labelledby_empty_result_falls_back_to_aria_label() {
    check(
        r#"<button id="target" aria-labelledby="s" aria-label="foo"><span id="s"><span style="visibility:hidden">label</span></span>x</button>"#,
        "foo",
    );
}

#[test]
fn labelledby_hidden_reference_counts_with_hidden_descendants() {
    check(
        r#"<button id="target" aria-labelledby="a"></button><span id="a" style="display:none">foo <span style="display:none">bar</span></span>"#,
        "foo bar",
    );
    check(
        r#"<button id="target" aria-labelledby="a"></button><span id="a" hidden>foo <span hidden>bar <span hidden>baz</span></span></span>"#,
        "foo bar baz",
    );
    check(
        r#"<button id="target" aria-labelledby="a"></button><span id="a" aria-hidden="true">foo <span>bar</span></span>"#,
        "foo bar",
    );
}

#[test]
fn labelledby_visible_reference_skips_hidden_descendants() {
    check(
        r#"<button id="target" aria-labelledby="a"></button><span id="a">foo <span style="display:none">bar</span></span>"#,
        "foo",
    );
    check(
        r#"<button id="target" aria-labelledby="a"></button><span id="a">foo <span style="visibility:hidden">bar</span></span>"#,
        "foo",
    );
}

#[test]
fn labelledby_non_standard_spelling() {
    check(
        r#"<span id="n1">first</span><span id="n2">second</span><button id="target" aria-labeledby="n1">x</button>"#,
        "first",
    );
    check(
        r#"<span id="n1">first</span><span id="n2">second</span><button id="target" aria-labelledby="n1" aria-labeledby="n2">x</button>"#,
        "first",
    );
}

#[test]
fn labelledby_repeated_reference_counts_once() {
    check(
        r#"<button id="target" aria-labelledby="a a">x</button><span id="a">A</span>"#,
        "A",
    );
}

#[test]
fn labelledby_in_shadow_tree_resolves_in_that_tree() {
    check(
        r#"<div><template shadowrootmode="open"><span id="l">inside</span><button id="target" aria-labelledby="l">x</button></template></div><span id="l">outside</span>"#,
        "inside",
    );
}

// 2C: Embedded Control.

#[test]
fn embedded_textbox_contributes_its_value() {
    check(
        r#"<input type="checkbox" id="target"><label for="target">Flash the screen <input type="text" value="3"> times</label>"#,
        "Flash the screen 3 times",
    );
}

#[test]
fn embedded_select_contributes_selected_option() {
    check(
        r#"<input type="checkbox" id="target"><label for="target">Flash the screen <select><option>1</option><option selected>2</option></select> times</label>"#,
        "Flash the screen 2 times",
    );
}

#[test]
fn embedded_range_contributes_valuetext_then_valuenow() {
    check(
        r#"<input type="checkbox" id="target"><label for="target">Flash <span role="slider" aria-valuetext="three" aria-valuenow="3"></span> times</label>"#,
        "Flash three times",
    );
    check(
        r#"<input type="checkbox" id="target"><label for="target">Flash <span role="spinbutton" aria-valuenow="4"></span> times</label>"#,
        "Flash 4 times",
    );
    check(
        r#"<input type="checkbox" id="target"><label for="target">Flash <input type="number" value="5"> times</label>"#,
        "Flash 5 times",
    );
}

#[test]
fn embedded_password_value_never_appears() {
    check(
        r#"<input type="checkbox" id="target"><label for="target">Remember <input type="password" value="hunter2"> me</label>"#,
        "Remember me",
    );
}

#[test]
fn embedded_control_in_button_content() {
    check(
        r#"<button id="target">Delete <input type="text" value="7"> items</button>"#,
        "Delete 7 items",
    );
}

#[test]
fn own_value_is_not_part_of_own_label() {
    check(
        r#"<label><input type="text" id="target" value="test">textfield label</label>"#,
        "textfield label",
    );
    check(
        r#"<label><input type="range" id="target" min="0" max="10" value="5">range label</label>"#,
        "range label",
    );
}

// 2D: AriaLabel.

#[test]
fn aria_label_beats_native_label_and_content() {
    check(
        r#"<label for="target">label</label><input type="text" id="target" aria-label="foo">"#,
        "foo",
    );
    check(r#"<img id="target" alt="alt" aria-label="foo">"#, "foo");
    check(
        r#"<button id="target" aria-label="label">x</button>"#,
        "label",
    );
}

#[test]
fn whitespace_only_aria_label_is_ignored() {
    check(
        r#"<button id="target" aria-label="   ">my button</button>"#,
        "my button",
    );
    check(
        r#"<textarea id="target" aria-label="  " title="title">contents</textarea>"#,
        "title",
    );
    check(
        r#"<button id="target" aria-label="">my button</button>"#,
        "my button",
    );
}

#[test]
fn aria_label_whitespace_is_trimmed_but_nbsp_kept() {
    check(
        r#"<a href="/x" id="target" aria-label="  label ">x</a>"#,
        "label",
    );
    check(
        "<nav id=\"target\" aria-label=\"label&nbsp;\">x</nav>",
        "label\u{a0}",
    );
    check(
        "<button id=\"target\" aria-label=\"\u{2800}\">my button</button>",
        "\u{2800}",
    );
}

#[test]
fn aria_label_on_descendant_replaces_its_content() {
    check(
        r#"<button id="target"><span aria-label="Close">X</span> dialog</button>"#,
        "Close dialog",
    );
}

// 2E: Host Language Label.

#[test]
fn label_for_and_wrapping_label() {
    check(
        r#"<label for="target">checkbox label</label><input id="target" type="checkbox">"#,
        "checkbox label",
    );
    check(
        r#"<label><input id="target" type="checkbox">wrapped label</label>"#,
        "wrapped label",
    );
}

#[test]
fn multiple_labels_join_in_tree_order() {
    check(
        r#"<label for="target">first</label><label for="target">second</label><input id="target">"#,
        "first second",
    );
    check(
        r#"<label>wrapping <input id="target"></label><label for="target">by id</label>"#,
        "wrapping by id",
    );
}

#[test]
fn hidden_label_still_names_its_control() {
    check(
        r#"<label for="target" style="display:none">input label</label><input id="target">"#,
        "input label",
    );
    check(
        r#"<label hidden><input type="checkbox" id="target">label</label>"#,
        "label",
    );
}

#[test]
fn label_with_for_elsewhere_does_not_label_wrapped_input() {
    check(
        r#"<label for="other">other label <input id="target" title="own title"></label><input id="other">"#,
        "own title",
    );
}

#[test]
fn input_button_submit_reset() {
    check(
        r#"<input type="button" id="target" value="button label">"#,
        "button label",
    );
    check(r#"<input type="submit" id="target">"#, "Submit");
    check(r#"<input type="reset" id="target">"#, "Reset");
    check(r#"<input type="submit" id="target" value="Go">"#, "Go");
    check(
        r#"<input type="button" id="target" title="Title attribute value">"#,
        "Title attribute value",
    );
    check(r#"<input type="button" id="target">"#, "");
}

#[test]
fn input_button_label_beats_value() {
    check(
        r#"<label for="target" style="display:none">input label</label><input id="target" type="button" value="button">"#,
        "input label",
    );
}

#[test]
fn input_image_alt_title_default() {
    check(r#"<input type="image" id="target" alt="Search">"#, "Search");
    check(r#"<input type="image" id="target" title="Find">"#, "Find");
    check(r#"<input type="image" id="target">"#, "Submit");
}

#[test]
fn text_input_title_then_placeholder() {
    check(
        r#"<input type="text" id="target" title="label" placeholder="text">"#,
        "label",
    );
    check(
        r#"<input type="email" id="target" placeholder="you@example.com">"#,
        "you@example.com",
    );
    check(
        r#"<textarea id="target" placeholder="Write here"></textarea>"#,
        "Write here",
    );
    check(
        r#"<label for="target">Name</label><input id="target" placeholder="Jane">"#,
        "Name",
    );
}

#[test]
fn text_input_value_is_not_its_name() {
    check(r#"<input type="text" id="target" value="typed">"#, "");
}

#[test]
fn select_label_and_title() {
    check(
        r#"<label for="target">select label</label><select id="target"><option>foo</option></select>"#,
        "select label",
    );
    check(
        r#"<label>select label <select id="target"><option>foo</option></select></label>"#,
        "select label",
    );
    check(
        r#"<select id="target" title="label"><option>one</option></select>"#,
        "label",
    );
}

#[test]
fn img_alt_title_and_empty_alt() {
    check(
        r#"<img id="target" alt="image label" src="a.png">"#,
        "image label",
    );
    check(r#"<img id="target" title="label" src="a.png">"#, "label");
    check(r#"<img id="target" alt="broken" title="label">"#, "broken");
}

#[test]
fn attribute_text_of_a_descendant_is_a_word_of_its_own() {
    check(
        r#"<a href="/x" id="target">Rated<img alt="5 stars" src="s.png">by users</a>"#,
        "Rated 5 stars by users",
    );
}

#[test]
fn img_in_link_contributes_alt() {
    check(
        r#"<a href="/" id="target">Go to <img alt="the home page" src="h.png"></a>"#,
        "Go to the home page",
    );
}

#[test]
fn fieldset_legend_figure_figcaption_table_caption() {
    check(
        r#"<fieldset id="target"><legend>fieldset legend</legend><input></fieldset>"#,
        "fieldset legend",
    );
    // HTML-AAM since w3c/aria#2224, and Chromium: a figcaption does not name its figure; an
    // author's reference to it, or a title, does.
    check(
        r#"<figure id="target"><img alt="x"><figcaption>caption text</figcaption></figure>"#,
        "",
    );
    check(
        r#"<figure id="target" aria-labelledby="c"><img alt="x"><figcaption id="c">caption text</figcaption></figure>"#,
        "caption text",
    );
    check(
        r#"<figure id="target" title="Figure title"><figcaption>caption text</figcaption></figure>"#,
        "Figure title",
    );
    check(
        r#"<table id="target"><caption>table caption</caption><tr><td>a</td></tr></table>"#,
        "table caption",
    );
    check(
        r#"<table id="target" title="table title"><tr><td>a</td></tr></table>"#,
        "table title",
    );
}

#[test]
fn hidden_legend_does_not_name_fieldset() {
    check(
        r#"<fieldset id="target"><legend hidden>Hidden legend</legend></fieldset>"#,
        "",
    );
}

#[test]
fn legend_with_role_none_still_names() {
    check(
        r#"<fieldset id="target"><legend role="none">legend</legend></fieldset>"#,
        "legend",
    );
}

#[test]
fn output_label_then_title() {
    check(
        r#"<label for="target">Total</label><output id="target">42</output>"#,
        "Total",
    );
    check(
        r#"<output id="target" title="Result">42</output>"#,
        "Result",
    );
}

#[test]
fn optgroup_and_option_label_attributes() {
    check(
        r#"<select><optgroup id="target" label="Fruits"><option>Apple</option></optgroup></select>"#,
        "Fruits",
    );
    check(
        r#"<select><option id="target" label="Short">A much longer text</option></select>"#,
        "Short",
    );
    check(
        r#"<select><option id="target">Apple</option></select>"#,
        "Apple",
    );
}

#[test]
fn svg_title_names_svg() {
    check(
        r#"<svg id="target" viewBox="0 0 10 10"><title>Logo</title><circle r="4"></circle></svg>"#,
        "Logo",
    );
    check(
        r#"<svg id="target" aria-label="foo"><title>circle</title></svg>"#,
        "foo",
    );
}

#[test]
fn presentational_img_has_no_name() {
    check(r#"<img id="target" role="none" alt="w3c logo">"#, "");
}

// 2F: Name From Content.

#[test]
fn name_from_content_for_button_link_heading() {
    check(r#"<button id="target">label</button>"#, "label");
    check(r#"<a href="/x" id="target">link text</a>"#, "link text");
    check(
        r#"<h2 id="target">heading <em>text</em></h2>"#,
        "heading text",
    );
    check(
        r#"<div role="menu"><div role="menuitem" id="target">  Save   as… </div></div>"#,
        "Save as…",
    );
}

#[test]
fn roles_without_name_from_content_have_no_content_name() {
    check(r#"<nav id="target">menu items</nav>"#, "");
    check(r#"<div role="dialog" id="target">body text</div>"#, "");
    check(r#"<p id="target">just text</p>"#, "");
}

#[test]
fn inline_elements_join_without_spaces_block_elements_with() {
    check(r#"<button id="target"><b>A</b>bc<i>d</i></button>"#, "Abcd");
    check(
        r#"<a href="/x" id="target"><div>one</div><div>two</div></a>"#,
        "one two",
    );
    check(
        r#"<button id="target">line<br>break</button>"#,
        "line break",
    );
}

/// Chromium's word breaks per box type (issue 30, item 9; name.rs, `is_word_box`): an atomic
/// inline is a word of its own, a glyph or an emoji in a plain inline joins the word after it,
/// and flex and grid items are blockified. Each expected name is Chromium's, measured on
/// fixtures/pages/corpus/box-boundaries.html.
#[test]
fn atomic_inlines_are_words_of_their_own_plain_inlines_are_not() {
    for display in ["inline-block", "inline-flex", "inline-grid", "inline-table"] {
        check(
            &format!(
                r#"<a href="/x" id="target">Issues<span style="display:{display}">42</span></a>"#
            ),
            "Issues 42",
        );
    }
    check(
        r#"<a href="/x" id="target">Read<span style="display:inline-block">the</span>manual</a>"#,
        "Read the manual",
    );
    // Inside the atomic inline its own inline content still joins.
    check(
        r#"<button id="target">Rate<span style="display:inline-block"><span>4</span>.5</span>stars</button>"#,
        "Rate 4.5 stars",
    );
    check(
        r#"<a href="/x" id="target"><span>Sign<span style="display:inline-block">in</span></span>now</a>"#,
        "Sign in now",
    );
    check(
        r#"<a href="/x" id="target"><span>●</span>Online</a>"#,
        "●Online",
    );
    // Generated glyphs join as well; generated words stay apart (WPT comp_name_from_content).
    check(
        r#"<style>.i::before { content: "💾" } .n::after { content: "›" }</style><button id="target" class="i n">Save</button>"#,
        "💾Save›",
    );
    check(
        r#"<a href="/x" id="target"><span>🎉</span>Party</a>"#,
        "🎉Party",
    );
    // An empty icon box adds no word, and leaves no leading space in the name.
    check(
        r#"<button id="target"><i style="display:inline-block"></i> Settings</button>"#,
        "Settings",
    );
    for container in ["flex", "grid", "inline-flex"] {
        check(
            &format!(
                r#"<a href="/x" id="target" style="display:{container}"><span>Inbox</span><span>12</span></a>"#
            ),
            "Inbox 12",
        );
    }
}

#[test]
fn text_nodes_split_by_comment_join_directly() {
    check(
        r#"<h2 id="target">heading<!-- c -->label</h2>"#,
        "headinglabel",
    );
}

#[test]
fn pseudo_content_before_and_after() {
    let style =
        r#"<style>.b::before { content: "before " } .a::after { content: " after" }</style>"#;
    check(
        &format!(r#"{style}<button id="target" class="b a">label</button>"#),
        "before label after",
    );
    check(
        &format!(r#"{style}<a href="/x" id="target"><span class="b">label</span></a>"#),
        "before label",
    );
}

#[test]
fn generated_punctuation_joins_the_text_and_generated_words_stay_apart() {
    check(
        r#"<style>.p::before { content: "(" } .p::after { content: ")" }</style><button id="target" class="p">label</button>"#,
        "(label)",
    );
    check(
        r#"<style>.q::before { content: "“" } .q::after { content: "”" }</style><button id="target"><span class="q">Quoted</span> text</button>"#,
        "\u{201C}Quoted\u{201D} text",
    );
    check(
        r#"<style>.w::before { content: "Note:" } .w::after { content: "!" }</style><button id="target" class="w">label</button>"#,
        "Note: label!",
    );
}

#[test]
fn pseudo_content_from_attr() {
    check(
        r#"<style>label::before { content: attr(data-title); }</style><label for="target" data-title="bar">foo</label><input type="text" id="target">"#,
        "bar foo",
    );
}

#[test]
fn display_contents_children_still_count() {
    check(
        r#"<button id="target"><span style="display:contents">inside</span> contents</button>"#,
        "inside contents",
    );
}

#[test]
fn aria_owns_children_are_content() {
    check(
        r#"<div role="button" id="target" aria-owns="extra">Own</div><span id="extra"> owned</span>"#,
        "Own owned",
    );
}

#[test]
fn shadow_dom_slots_in_name_from_content() {
    check(
        r#"<button id="target"><template shadowrootmode="open">[<slot></slot>]</template>slotted</button>"#,
        "[slotted]",
    );
    check(
        r#"<div role="link" id="target"><template shadowrootmode="open"><slot name="x">fallback</slot></template></div>"#,
        "fallback",
    );
    check(
        r#"<div role="link" id="target"><template shadowrootmode="open">shadow only</template><span>light, not slotted</span></div>"#,
        "shadow only",
    );
}

#[test]
fn aria_label_on_slot_is_ignored() {
    check(
        r#"<span id="l"><template shadowrootmode="open">foo <slot aria-label="label"></slot> bar</template>slotted</span><button id="target" aria-labelledby="l"></button>"#,
        "foo slotted bar",
    );
    check(
        r#"<span id="l"><template shadowrootmode="open">foo <slot aria-label="label">default</slot> bar</template></span><button id="target" aria-labelledby="l"></button>"#,
        "foo default bar",
    );
}

#[test]
fn presentational_field_gets_no_heuristic_name() {
    check(
        r#"<label for="target">input label</label><input id="target" role="none" disabled>"#,
        "",
    );
}

#[test]
fn nested_link_name_includes_referenced_image_when_not_visited() {
    check(
        r##"<a href="/x" id="target">link2 <img id="img" alt="image" src="x.png"> link3</a>"##,
        "link2 image link3",
    );
}

#[test]
fn summary_is_named_from_content() {
    check(
        r#"<details><summary id="target">More info</summary>details</details>"#,
        "More info",
    );
}

// 2I: Tooltip Attribute.

#[test]
fn title_is_the_last_resort() {
    check(
        r#"<div role="group" id="target" title="label">content</div>"#,
        "label",
    );
    check(
        r#"<input type="checkbox" id="target" title="label">"#,
        "label",
    );
    check(
        r#"<abbr id="target" title="Web Platform Tests">WPT</abbr>"#,
        "Web Platform Tests",
    );
    check(
        r#"<iframe id="target" title="frame label"></iframe>"#,
        "frame label",
    );
}

#[test]
fn content_beats_title() {
    check(
        r#"<button id="target" title="tooltip">content</button>"#,
        "content",
    );
}

#[test]
fn empty_content_falls_back_to_title() {
    check(
        r#"<a href="/x" id="target" title="label"><img src="x.png" alt=""></a>"#,
        "label",
    );
    check(
        r#"<button id="target"><span title="Close"></span></button>"#,
        "Close",
    );
}

// Naming prohibited.

#[test]
fn naming_prohibited_role_ignores_aria_label_for_spec() {
    // The spec gives no name; the author's label comes back as a fallback.
    check_heuristic(r#"<div id="target" aria-label="Close">X</div>"#, "Close");
    check_heuristic(
        r#"<span id="l">Rating</span><span id="target" aria-labelledby="l">***</span>"#,
        "Rating",
    );
}

#[test]
fn naming_prohibited_role_author_label_precedes_title() {
    // HTML-AAM's order for text-level elements: aria-labelledby, aria-label, title.
    check_heuristic(
        r#"<abbr id="target" aria-label="label" title="title">x</abbr>"#,
        "label",
    );
    check(r#"<abbr id="target" title="title">x</abbr>"#, "title");
}

#[test]
fn naming_prohibited_role_has_no_content_name() {
    check(r#"<div id="target">some text</div>"#, "");
    check(r#"<span id="target">some text</span>"#, "");
}

// Whitespace.

#[test]
fn whitespace_is_collapsed_and_trimmed() {
    check(
        "<button id=\"target\">\n\t  several \r\n  words\x0c here  </button>",
        "several words here",
    );
    check(
        "<button id=\"target\">a&nbsp;&nbsp;b</button>",
        "a\u{a0}\u{a0}b",
    );
}

// Descriptions.

#[test]
fn description_from_describedby() {
    check_description(
        r#"<button id="target" aria-describedby="d1 d2">Save</button><span id="d1">Saves the</span><span id="d2" hidden>document</span>"#,
        "Saves the document",
    );
}

#[test]
fn description_from_aria_description() {
    check_description(
        r#"<button id="target" aria-description=" Deletes  everything ">Delete</button>"#,
        "Deletes everything",
    );
}

#[test]
fn describedby_beats_aria_description() {
    check_description(
        r#"<button id="target" aria-describedby="d" aria-description="attr">x</button><p id="d">ref</p>"#,
        "ref",
    );
}

#[test]
fn title_describes_when_not_the_name() {
    check_description(
        r#"<button id="target" title="More about saving">Save</button>"#,
        "More about saving",
    );
    check_description(r#"<button id="target" title="Only title"></button>"#, "");
}

#[test]
fn describedby_loop_terminates() {
    check_description(
        r#"<div id="target" role="button" aria-describedby="d">x</div><span id="d" aria-describedby="target">desc <span aria-labelledby="d">again</span></span>"#,
        "desc again",
    );
}

#[test]
fn no_description() {
    check_description(r#"<button id="target">Save</button>"#, "");
}

// The fallbacks of `heuristic_name`, used when accname gives no name.

#[test]
fn heuristic_selected_option_of_unlabelled_select() {
    check_heuristic(
        r#"<select id="target"><option>Monthly</option><option selected>Weekly</option></select>"#,
        "Weekly",
    );
    check_heuristic(
        r#"<select id="target"><option>First</option><option>Second</option></select>"#,
        "First",
    );
}

#[test]
fn heuristic_preceding_sibling_text() {
    check_heuristic(
        r#"<p>Every <input id="target" type="number" value="1"> month(s)</p>"#,
        "Every",
    );
    check_heuristic(
        r#"<div><span>Quantity</span><input id="target"></div>"#,
        "Quantity",
    );
    check_heuristic(
        r#"<table><tr><td>Every</td><td><select id="target"></select></td></tr></table>"#,
        "Every",
    );
}

#[test]
fn heuristic_preceding_text_ignores_headings() {
    check(r#"<h2>Section</h2><input id="target">"#, "");
}

#[test]
fn heuristic_preceding_text_ignores_long_paragraphs() {
    let long = "This paragraph explains at length what the form below is for. ".repeat(3);
    check(&format!(r#"<div>{long}</div><input id="target">"#), "");
}

#[test]
fn heuristic_preceding_text_stops_at_another_control() {
    check(r#"<p>Start <input value="a"> <input id="target"></p>"#, "");
}

#[test]
fn heuristic_placeholder_on_field_the_spec_does_not_name_by_it() {
    check_heuristic(
        r#"<input type="date" id="target" placeholder="Birthday">"#,
        "Birthday",
    );
    check_heuristic(
        r#"<div role="textbox" id="target" aria-placeholder="Search mail"></div>"#,
        "Search mail",
    );
}

#[test]
fn heuristics_do_not_override_spec_names() {
    check(
        r#"<label for="target">Frequency</label><select id="target"><option selected>Weekly</option></select>"#,
        "Frequency",
    );
    check(
        r#"<p>Every <input id="target" aria-label="Interval"> month(s)</p>"#,
        "Interval",
    );
}

// Totality: deep and large inputs.

#[test]
fn deep_dom_inside_button_does_not_overflow_the_stack() {
    let mut dom = MemDom::new();
    let document = dom.document();
    let html = dom.append_element(document, "html", &[]);
    let body = dom.append_element(html, "body", &[]);
    let button = dom.append_element(body, "button", &[("id", "target")]);
    let mut parent = button;
    for _ in 0..100_000 {
        dom.append_text(parent, "a");
        parent = dom.append_element(parent, "span", &[]);
    }
    dom.append_text(parent, "end");
    let context = Context::new(&dom);
    let name = context.name(button);
    assert!(
        name.text.starts_with("aaaa"),
        "name starts {:?}",
        name.text.get(..10)
    );
    assert!(name.text.chars().count() <= allwright_ax::name::MAX_NAME_CHARS);
    assert!(!context.description(button).contains('\n'));
}

#[test]
fn deep_label_nesting_terminates() {
    // Each label holds a checkbox whose own label holds the next one: references nest, and
    // their depth is bounded.
    let mut html = String::from(r#"<input type="checkbox" id="target">"#);
    let mut previous = String::from("target");
    for index in 0..2_000 {
        html.push_str(&format!(
            r#"<label for="{previous}">L{index} <input type="checkbox" id="c{index}"></label>"#
        ));
        previous = format!("c{index}");
    }
    let (text, _) = name_of(&html);
    assert!(text.starts_with("L0 L1 L2"), "{text}");
    assert!(!text.contains("L1999"), "{text}");
}

#[test]
fn labelledby_chain_through_descendants_terminates() {
    let mut html = String::from(r#"<button id="target" aria-labelledby="l0">x</button>"#);
    for index in 0..2_000 {
        let next = index + 1;
        html.push_str(&format!(
            r#"<span id="l{index}">L{index} <a href="/x" aria-labelledby="l{next}">link</a></span>"#
        ));
    }
    let (text, _) = name_of(&html);
    assert!(text.starts_with("L0"), "{text}");
}

#[test]
fn a_name_of_exactly_the_limit_is_whole_and_one_more_character_is_cut_with_the_mark() {
    let limit = allwright_ax::name::MAX_NAME_CHARS;
    let whole = "x".repeat(limit);
    let html = format!(r#"<button id="target" aria-label="{whole}">x</button>"#);
    assert_eq!(name_of(&html).0, whole);
    let longer = "x".repeat(limit + 1);
    let html = format!(r#"<button id="target" aria-label="{longer}">x</button>"#);
    assert_eq!(name_of(&html).0, format!("{}…", "x".repeat(limit - 1)));
}

#[test]
fn huge_attribute_values_are_bounded() {
    let label = "word ".repeat(50_000);
    let html = format!(r#"<button id="target" aria-label="{label}">x</button>"#);
    let (text, _) = name_of(&html);
    // The collapsed label is cut to its first 9,999 characters ("word word … word", without the
    // space after the last word) and the mark.
    assert_eq!(text.chars().count(), allwright_ax::name::MAX_NAME_CHARS);
    assert!(text.ends_with("word…"), "{:?}", &text[text.len() - 12..]);
    let ids = "a ".repeat(100_000);
    let html =
        format!(r#"<button id="target" aria-labelledby="{ids}">x</button><span id="a">A</span>"#);
    assert_eq!(name_of(&html).0, "A");
}

#[test]
fn non_element_nodes_have_empty_names() {
    let dom = MemDom::parse("<p>text</p>");
    let context = Context::new(&dom);
    let document = dom.document();
    assert_eq!(context.name(document).text, "");
    assert_eq!(context.description(document), "");
    assert_eq!(context.name(allwright_ax::NodeId(u32::MAX)).text, "");
}

// Issue 13: names as Chromium computes them.

#[test]
fn term_is_named_from_content() {
    check(
        r#"<dl><dt id="target">Battery life</dt><dd>30 hours</dd></dl>"#,
        "Battery life",
    );
    check(
        r#"<div role="term" id="target">Weight</div><div role="definition">250 g</div>"#,
        "Weight",
    );
    // HTML-AAM names <dfn> from its author and title only (WPT html-aam 4.1.17/dfn.html).
    check(r#"<p><dfn id="target">accessibility tree</dfn></p>"#, "");
}

#[test]
fn listitem_is_not_named_from_content() {
    check(r#"<ul><li id="target">Bread <b>and</b> milk</li></ul>"#, "");
    check(
        r#"<div role="list"><div role="listitem" id="target">rust</div></div>"#,
        "",
    );
    // Its author still names it.
    check(
        r#"<ul><li id="target" aria-label="Groceries">Bread</li></ul>"#,
        "Groceries",
    );
}

#[test]
fn row_is_named_from_content_only_when_it_may_take_focus() {
    check(
        r#"<table><tr id="target"><td>Ada</td><td>Paris</td></tr></table>"#,
        "",
    );
    // A row of an interactive grid is named from its cells, as in Chromium.
    check(
        r#"<div role="grid"><div role="row" id="target"><div role="gridcell">INV-1</div> <div role="gridcell">Ada</div></div></div>"#,
        "INV-1 Ada",
    );
    check(
        r#"<table role="grid"><tr id="target"><td>1</td><td>2</td></tr></table>"#,
        "1 2",
    );
    // A table nested in a grid cell is a data table again.
    check(
        r#"<div role="grid"><div role="row"><div role="gridcell"><table><tr id="target"><td>x</td></tr></table></div></div></div>"#,
        "",
    );
    // A focusable row (a treegrid's) is named from its cells, as in Chromium.
    check(
        r#"<div role="treegrid"><div role="row" tabindex="-1" id="target"><div role="gridcell">Wireframes</div><div role="gridcell">done</div></div></div>"#,
        "Wireframes done",
    );
    // So is a row of a widget that moves focus with aria-activedescendant.
    check(
        r#"<div role="grid" tabindex="0" aria-activedescendant="target"><div role="row" id="target"><div role="gridcell">a</div></div></div>"#,
        "a",
    );
    check(
        r#"<table><tr id="target" aria-label="Totals"><td>1</td></tr></table>"#,
        "Totals",
    );
}

#[test]
fn treeitem_name_stops_at_its_nested_group() {
    check(
        r#"<ul role="tree"><li role="treeitem" id="target" aria-expanded="true"><span>src</span><ul role="group"><li role="treeitem">main.rs</li><li role="treeitem">lib.rs</li></ul></li></ul>"#,
        "src",
    );
    // A leaf tree item keeps its whole content.
    check(
        r#"<ul role="tree"><li role="treeitem" id="target">Cargo.<b>toml</b></li></ul>"#,
        "Cargo.toml",
    );
}

#[test]
fn listbox_gets_no_guessed_name() {
    check(
        r#"<p>Toppings</p><select id="target" multiple><option selected>Cheese</option><option>Olives</option></select>"#,
        "",
    );
    check(
        r#"<p>Sizes</p><div role="listbox" id="target"><div role="option">Small</div></div>"#,
        "",
    );
    check(
        r#"<label for="target">Toppings</label><select id="target" size="3"><option>Cheese</option></select>"#,
        "Toppings",
    );
}

#[test]
fn label_for_does_not_cross_a_shadow_boundary() {
    // The label's `for` looks up the id in the label's own tree: the input inside the host's
    // shadow tree, although it has that id, is not its labeled control, and the label's text is
    // not guessed back as the text before the field either.
    check(
        r#"<label for="target">Outer</label><div><template shadowrootmode="open"><input id="target"></template></div>"#,
        "",
    );
    check(
        r#"<div><template shadowrootmode="open"><label for="target">Inner</label></template></div><input id="target" title="Own title">"#,
        "Own title",
    );
    // Within one shadow tree it resolves.
    check(
        r#"<div><template shadowrootmode="open"><label for="target">Inner</label><input id="target"></template></div>"#,
        "Inner",
    );
    // A label in the document whose `for` names the host labels nothing (the host is not
    // labelable), and gives the input in its shadow tree no name.
    check(
        r#"<label for="host">Outer</label><div id="host"><template shadowrootmode="open"><input id="target"></template></div>"#,
        "",
    );
}

#[test]
fn text_transform_applies_to_names_from_content() {
    check(
        r#"<button id="target" style="text-transform:uppercase">Save changes</button>"#,
        "SAVE CHANGES",
    );
    check(
        r#"<style>.lower { text-transform: lowercase }</style><button id="target" class="lower">CANCEL</button>"#,
        "cancel",
    );
    check(
        r#"<a href="x" id="target" style="text-transform:capitalize">new arrivals, o'neill e-mail 3d</a>"#,
        "New Arrivals, O'neill E-Mail 3d",
    );
    // Inherited, and reset by a descendant.
    check(
        r#"<div style="text-transform:uppercase"><a href="x" id="target">terms <span style="text-transform:none">and</span> conditions</a></div>"#,
        "TERMS and CONDITIONS",
    );
    // Uppercase follows Unicode's full case mapping, as browsers draw it.
    check(
        r#"<h2 id="target" style="text-transform:uppercase">straße</h2>"#,
        "STRASSE",
    );
    // It does not change an author's label, an alt text or a label's own text source.
    check(
        r#"<button id="target" style="text-transform:uppercase" aria-label="Close dialog">x</button>"#,
        "Close dialog",
    );
    check(
        r#"<label for="target" style="text-transform:uppercase">postal code</label><input id="target">"#,
        "POSTAL CODE",
    );
}
