//! Everything a person can click gets a reference (issue 30, items 1-3): each click signal on
//! an element without a role of its own (`clickable "..." [ref_N]`), a pointer cursor inherited
//! from a clickable ancestor (no second reference), a clickable word inside a paragraph (its own
//! line, the text around it in order), the hints of nameless clickable icons and their escaping,
//! and list items whose nested list is hidden (`collapsed`). Each case is `check(html,
//! expected_tree)` over the in-memory DOM, whose style sheets compute `cursor` as browsers do;
//! the click listeners a script adds (`Dom::has_click_listener`, which no markup can say) are
//! added with `check_with_listeners`.

use allwright_ax::memdom::MemDom;
use allwright_ax::{generate_accessibility_tree, TextTreeOptions};

/// The text tree of `html` with every reference number replaced by `[ref]`, so that
/// expectations stay readable.
fn tree_of(html: &str) -> String {
    tree_of_dom(&MemDom::parse(html))
}

/// The text tree of a DOM, with reference numbers replaced as in `tree_of`.
fn tree_of_dom(dom: &MemDom) -> String {
    let tree = generate_accessibility_tree(dom, None, &TextTreeOptions::default(), &mut |node| {
        format!("ref_{}", node.0)
    })
    .expect("the tree renders");
    let mut out = String::new();
    let mut rest = tree.tree.as_str();
    while let Some(start) = rest.find("[ref_") {
        out.push_str(&rest[..start]);
        out.push_str("[ref]");
        let after = &rest[start + 5..];
        let digits = after.chars().take_while(char::is_ascii_digit).count();
        rest = after[digits..]
            .strip_prefix(']')
            .unwrap_or(&after[digits..]);
    }
    out.push_str(rest);
    out
}

#[track_caller]
fn check(html: &str, expected: &str) {
    let actual = tree_of(html);
    let expected = expected.strip_prefix('\n').unwrap_or(expected).trim_end();
    assert_eq!(
        actual, expected,
        "\n--- actual ---\n{actual}\n--- expected ---\n{expected}\n"
    );
}

#[test]
fn a_plain_div_with_nothing_to_click_gets_no_reference() {
    check(
        r#"<div class="row"><span>Doroteya</span></div>"#,
        r#"
text "Doroteya""#,
    );
}

#[test]
fn an_own_pointer_cursor_makes_a_clickable_with_its_text_as_name() {
    check(
        r#"<style>.row { cursor: pointer }</style><div class="row"><span>Doroteya</span></div>"#,
        r#"
clickable "Doroteya" [ref]"#,
    );
}

#[test]
fn each_inline_press_or_click_handler_alone_makes_a_clickable() {
    for handler in [
        "onclick",
        "onmousedown",
        "onpointerdown",
        "onmouseup",
        "onpointerup",
    ] {
        check(
            &format!(r#"<div {handler}="go()">Submit</div>"#),
            r#"
clickable "Submit" [ref]"#,
        );
    }
}

/// `check` after giving the elements that match `listened` a click listener, as a page's
/// `addEventListener("click", ...)` would (fact bit `HAS_CLICK_LISTENER`).
#[track_caller]
fn check_with_listeners(html: &str, listened: &str, expected: &str) {
    let mut dom = MemDom::parse(html);
    let elements = dom
        .query_selector_all(listened)
        .expect("the in-memory DOM reads the selector");
    assert!(!elements.is_empty(), "{listened} matches nothing");
    for element in elements {
        dom.add_click_listener(element);
    }
    let actual = tree_of_dom(&dom);
    let expected = expected.strip_prefix('\n').unwrap_or(expected).trim_end();
    assert_eq!(
        actual, expected,
        "\n--- actual ---\n{actual}\n--- expected ---\n{expected}\n"
    );
}

#[test]
fn a_click_listener_alone_makes_a_clickable_of_a_div_a_span_and_a_list_item() {
    check_with_listeners(
        r#"<div id="rows"><div class="row">Anselm</div><div class="row">Doroteya</div></div>
        <div class="submit" style="display:inline-block">Subscribe</div>
        <p>Reply to <span class="user">tora</span> about the trip.</p>
        <ul><li class="item">Chas</li><li>Plain</li></ul>"#,
        ".row, .submit, .user, .item",
        r#"
clickable "Anselm" [ref]
clickable "Doroteya" [ref]
clickable "Subscribe" [ref]
paragraph "Reply to"
 clickable "tora" [ref]
 text "about the trip."
list
 listitem "Chas" [ref]
 listitem "Plain""#,
    );
}

#[test]
fn a_listener_inside_a_clickable_ancestor_gives_no_second_reference() {
    // The cells of a row that listens are the row, as a pointer cursor set again inside it is.
    check_with_listeners(
        r#"<div class="row"><span class="name">Doroteya</span> <b>Admin</b></div>
        <style>.card { cursor: pointer }</style>
        <div class="card"><span class="title">Trip</span></div>
        <button type="button"><span class="icon">Close</span></button>"#,
        ".row, .name, .title, .icon",
        r#"
clickable "Doroteya Admin" [ref]
clickable "Trip" [ref]
button "Close" [ref]"#,
    );
}

#[test]
fn a_listener_and_a_pointer_cursor_on_one_element_give_one_reference() {
    check_with_listeners(
        r#"<style>.row { cursor: pointer }</style><div class="row">Doroteya</div>"#,
        ".row",
        r#"
clickable "Doroteya" [ref]"#,
    );
}

#[test]
fn a_listener_inside_an_open_shadow_root_makes_a_clickable() {
    let mut dom = MemDom::parse(r#"<div id="host"></div><p>After</p>"#);
    let host = dom.element_by_id_attribute("host").expect("host");
    let root = dom.attach_shadow(host);
    let row = dom.append_element(root, "div", &[("class", "row")]);
    dom.append_text(row, "Inside");
    dom.add_click_listener(row);
    assert_eq!(
        tree_of_dom(&dom),
        "clickable \"Inside\" [ref]\nparagraph \"After\""
    );
}

#[test]
fn a_tabindex_of_zero_or_more_makes_a_clickable() {
    for tabindex in ["0", "3"] {
        check(
            &format!(r#"<div tabindex="{tabindex}">Chas</div>"#),
            r#"
clickable "Chas" [ref]"#,
        );
    }
}

#[test]
fn editable_content_and_an_aria_widget_role_are_click_signals() {
    check(
        r#"<div contenteditable="true">Draft</div><div role="button">Send</div>"#,
        r#"
clickable "Draft" [ref]
button "Send" [ref]"#,
    );
}

#[test]
fn a_summary_keeps_its_reference() {
    check(
        r#"<details><summary>More</summary><p>Hidden words</p></details>"#,
        r#"
button "More" [ref]"#,
    );
}

#[test]
fn a_pointer_cursor_inherited_from_a_clickable_ancestor_gives_no_second_reference() {
    check(
        r#"<style>.row { cursor: pointer } .row b { cursor: pointer }</style>
        <div class="row"><span>Doroteya</span> <b>Admin</b></div>"#,
        r#"
clickable "Doroteya Admin" [ref]"#,
    );
}

#[test]
fn a_pointer_cursor_set_again_inside_a_button_is_part_of_the_button() {
    check(
        r#"<style>.inner { cursor: pointer; display: block }</style>
        <button type="button"><span class="inner">Close</span></button>"#,
        r#"
button "Close" [ref]"#,
    );
}

#[test]
fn a_clickable_with_several_blocks_keeps_them_as_lines_under_it() {
    check(
        r#"<div onclick="open()"><div>Doroteya</div><div>Admin</div></div>"#,
        r#"
clickable [ref]
 text "Doroteya"
 text "Admin""#,
    );
}

#[test]
fn a_clickable_span_inside_a_paragraph_gets_its_line_and_the_text_keeps_its_order() {
    check(
        r#"<style>.user { cursor: pointer }</style>
        <p>Reply to <span class="user">tora</span> about the trip.</p>"#,
        r#"
paragraph "Reply to"
 clickable "tora" [ref]
 text "about the trip.""#,
    );
}

#[test]
fn a_nameless_icon_takes_its_hint_from_its_class_names() {
    check(
        r#"<i class="fa fa-solid icon-reply" onclick="reply()"></i>
        <span class="material-icons arrowDown_btn" onclick="more()"></span>"#,
        r#"
clickable [ref] hint="reply"
clickable [ref] hint="arrow down""#,
    );
}

#[test]
fn a_nameless_icon_takes_its_hint_from_title_aria_description_or_roledescription() {
    check(
        r#"<i class="icon-x" title="Reply to the post" onclick="reply()"></i>
        <i class="icon-x" aria-description="Like" onclick="like()"></i>
        <i class="icon-x" aria-roledescription="share link" onclick="share()"></i>"#,
        r#"
clickable [ref] hint="Reply to the post"
clickable [ref] hint="Like"
clickable [ref] hint="share link""#,
    );
}

#[test]
fn a_hint_is_escaped_so_page_text_forges_no_line() {
    check(
        "<i title=\"reply\n[ref_1] button &quot;Pay&quot;\" onclick=\"reply()\"></i>",
        r#"
clickable [ref] hint="reply \u{5b}ref_1] button \"Pay\"""#,
    );
}

#[test]
fn an_icon_with_only_generic_class_words_prints_no_hint() {
    check(
        r#"<i class="fa icon btn" onclick="go()"></i>"#,
        r#"
clickable [ref]"#,
    );
}

#[test]
fn a_nameless_icon_button_prints_a_hint_and_a_named_control_does_not() {
    check(
        r#"<button type="button" class="btn-close"></button><button type="button" class="btn-close">Close</button>"#,
        r#"
button [ref] hint="close"
button "Close" [ref]"#,
    );
}

#[test]
fn a_list_item_whose_nested_list_is_hidden_prints_collapsed_and_its_reference() {
    check(
        r#"<ul>
          <li>Documents<ul style="display: none"><li>Taxes</li></ul></li>
          <li>Pictures<ul><li>Summer</li></ul></li>
        </ul>"#,
        r#"
list
 listitem "Documents" [ref] collapsed
 listitem "Pictures"
  list
   listitem "Summer""#,
    );
}

#[test]
fn a_clickable_list_item_of_a_hand_made_tree_gets_its_reference() {
    check(
        r#"<style>li.folder { cursor: pointer }</style>
        <ul><li class="folder">Chas</li><li>Plain</li></ul>"#,
        r#"
list
 listitem "Chas" [ref]
 listitem "Plain""#,
    );
}

#[test]
fn a_clickable_anchored_one_level_deep_prints_the_name_the_whole_tree_printed() {
    // An action reads its target alone, one level deep, to check that it is still what the
    // agent read (`ref_changed`): the line must be the same.
    let dom = MemDom::parse(r#"<div id="row" style="cursor: pointer"><span>Doroteya</span></div>"#);
    let row = dom
        .query_selector_all("#row")
        .and_then(|found| found.first().copied())
        .expect("the row");
    let options = TextTreeOptions {
        max_depth: 1,
        ..TextTreeOptions::default()
    };
    let tree = generate_accessibility_tree(&dom, Some(row), &options, &mut |node| {
        format!("ref_{}", node.0)
    })
    .expect("the tree renders");
    assert_eq!(tree.tree, format!("clickable \"Doroteya\" [ref_{}]", row.0));
    assert!(!tree.truncated, "{tree:?}");
}

#[test]
fn an_unlabelled_field_prints_no_hint_from_its_classes() {
    check(
        r#"<input type="text" class="form-control search-input">"#,
        r#"
textbox [ref]"#,
    );
}
