//! Table-style role cases: each `check(html, role)` parses a page with the in-memory DOM and
//! compares the computed role of the element with `id="target"`. The comment above each group
//! names the HTML-AAM row, the WAI-ARIA section or the WPT file the cases come from.

use allwright_ax::memdom::MemDom;
use allwright_ax::{Context, Dom, Role};

/// The computed role of `#target` in `html`.
fn role_of(html: &str) -> Role {
    let dom = MemDom::parse(html);
    let Some(target) = dom.element_by_id_attribute("target") else {
        panic!("no #target in {html}");
    };
    let context = Context::new(&dom);
    context.role(target)
}

#[track_caller]
fn check(html: &str, expected: &str) {
    let role = role_of(html);
    assert_eq!(role.as_str(), expected, "role of #target in {html}");
}

/// Runs every case, reporting all failures at once.
#[track_caller]
fn check_all(cases: &[(&str, &str)]) {
    let failures: Vec<String> = cases
        .iter()
        .filter_map(|(html, expected)| {
            let actual = role_of(html).as_str();
            (actual != *expected).then(|| format!("{html}\n    expected {expected}, got {actual}"))
        })
        .collect();
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

// HTML-AAM §4 context-free rows (the const table).
#[test]
fn implicit_roles_from_the_tag_table() {
    check_all(&[
        (r#"<address id=target>x</address>"#, "group"),
        (r#"<article id=target>x</article>"#, "article"),
        (r#"<b id=target>x</b>"#, "strong"),
        (r#"<bdi id=target>x</bdi>"#, "generic"),
        (r#"<blockquote id=target>x</blockquote>"#, "blockquote"),
        (r#"<button id=target>x</button>"#, "button"),
        (
            r#"<table><caption id=target>x</caption></table>"#,
            "caption",
        ),
        (r#"<code id=target>x</code>"#, "code"),
        (r#"<data id=target value=1>x</data>"#, "generic"),
        (
            r#"<datalist id=target><option>a</option></datalist>"#,
            "listbox",
        ),
        (r#"<dl><dt id=target>x</dt><dd>y</dd></dl>"#, "term"),
        (r#"<dl><dt>x</dt><dd id=target>y</dd></dl>"#, "definition"),
        (r#"<del id=target>x</del>"#, "deletion"),
        (
            r#"<details id=target><summary>s</summary>x</details>"#,
            "group",
        ),
        (r#"<dfn id=target>x</dfn>"#, "term"),
        (r#"<dialog id=target open>x</dialog>"#, "dialog"),
        (r#"<dir id=target><li>x</li></dir>"#, "list"),
        (r#"<div id=target>x</div>"#, "generic"),
        (r#"<em id=target>x</em>"#, "emphasis"),
        (
            r#"<fieldset id=target><legend>x</legend></fieldset>"#,
            "group",
        ),
        (r#"<figure id=target>x</figure>"#, "figure"),
        (r#"<h1 id=target>x</h1>"#, "heading"),
        (r#"<h6 id=target>x</h6>"#, "heading"),
        (r#"<hgroup id=target><h1>x</h1></hgroup>"#, "group"),
        (r#"<hr id=target>"#, "separator"),
        (r#"<i id=target>x</i>"#, "generic"),
        (r#"<ins id=target>x</ins>"#, "insertion"),
        (r#"<main id=target>x</main>"#, "main"),
        (r#"<mark id=target>x</mark>"#, "mark"),
        (r#"<menu id=target><li>x</li></menu>"#, "list"),
        (r#"<meter id=target value=0.5>x</meter>"#, "meter"),
        (r#"<nav id=target>x</nav>"#, "navigation"),
        (r#"<ol id=target><li>x</li></ol>"#, "list"),
        (r#"<ul id=target><li>x</li></ul>"#, "list"),
        (r#"<output id=target>x</output>"#, "status"),
        (r#"<p id=target>x</p>"#, "paragraph"),
        (r#"<pre id=target>x</pre>"#, "generic"),
        (r#"<progress id=target>x</progress>"#, "progressbar"),
        (r#"<q id=target>x</q>"#, "generic"),
        (r#"<s id=target>x</s>"#, "deletion"),
        (r#"<search id=target>x</search>"#, "search"),
        (r#"<span id=target>x</span>"#, "generic"),
        (r#"<strong id=target>x</strong>"#, "strong"),
        (r#"<sub id=target>x</sub>"#, "subscript"),
        (r#"<sup id=target>x</sup>"#, "superscript"),
        (r#"<table id=target><tr><td>x</td></tr></table>"#, "table"),
        (r#"<textarea id=target></textarea>"#, "textbox"),
        (r#"<time id=target>x</time>"#, "time"),
        (r#"<u id=target>x</u>"#, "generic"),
        (r#"<p>a<br id=target>b</p>"#, "none"),
        (r#"<my-widget id=target>x</my-widget>"#, "generic"),
        (
            r#"<select><optgroup id=target label=g><option>a</option></optgroup></select>"#,
            "group",
        ),
        (r#"<select><option id=target>a</option></select>"#, "option"),
        (r#"<body id=target>x</body>"#, "generic"),
    ]);
}

// HTML-AAM el-a, el-a-no-href, el-area, el-area-no-href.
#[test]
fn links_need_an_href() {
    check(r##"<a id=target href="#">x</a>"##, "link");
    check(r#"<a id=target href="">x</a>"#, "link");
    check(r#"<a id=target>x</a>"#, "generic");
    check(
        r##"<map name=m><area id=target href="#" alt=x></map>"##,
        "link",
    );
    check(r#"<map name=m><area id=target alt=x></map>"#, "generic");
}

// HTML-AAM el-header/el-footer "scoped to the body element" (wpt roles-contextual.html).
#[test]
fn header_and_footer_are_landmarks_only_at_body_scope() {
    check_all(&[
        (r#"<header id=target>x</header>"#, "banner"),
        (r#"<footer id=target>x</footer>"#, "contentinfo"),
        (
            r#"<div><div><header id=target>x</header></div></div>"#,
            "banner",
        ),
        (
            r#"<nav><header id=target aria-label=x>x</header></nav>"#,
            "generic",
        ),
        (
            r#"<nav><footer id=target aria-label=x>x</footer></nav>"#,
            "generic",
        ),
        (r#"<main><footer id=target>x</footer></main>"#, "generic"),
        (
            r#"<article><header id=target>x</header></article>"#,
            "generic",
        ),
        (r#"<aside><footer id=target>x</footer></aside>"#, "generic"),
        (
            r#"<section><header id=target>x</header></section>"#,
            "generic",
        ),
        (
            r#"<div role=main><header id=target>x</header></div>"#,
            "generic",
        ),
        (
            r#"<div role=region><footer id=target>x</footer></div>"#,
            "generic",
        ),
        // A sectioning element whose role attribute says otherwise does not scope.
        (
            r#"<section role=group><header id=target>x</header></section>"#,
            "banner",
        ),
    ]);
}

// HTML-AAM el-aside: complementary at body/main scope, inside sectioning content only named.
#[test]
fn aside_in_sectioning_content_needs_a_name() {
    check_all(&[
        (r#"<aside id=target>x</aside>"#, "complementary"),
        (
            r#"<main><aside id=target>x</aside></main>"#,
            "complementary",
        ),
        (r#"<nav><aside id=target>x</aside></nav>"#, "generic"),
        (
            r#"<nav><aside id=target aria-label=x>x</aside></nav>"#,
            "complementary",
        ),
        (
            r#"<nav><aside id=target role=complementary>x</aside></nav>"#,
            "complementary",
        ),
        (
            r#"<article><aside id=target title=t>x</aside></article>"#,
            "complementary",
        ),
    ]);
}

// HTML-AAM el-section / el-form: landmarks only with an accessible name.
#[test]
fn section_and_form_need_a_name() {
    check_all(&[
        (r#"<section id=target aria-label=x>x</section>"#, "region"),
        (r#"<section id=target>x</section>"#, "generic"),
        (
            r#"<section id=target aria-label="  ">x</section>"#,
            "generic",
        ),
        (r#"<section id=target title=t>x</section>"#, "region"),
        (r#"<form id=target>x</form>"#, "generic"),
        (r#"<form id=target aria-label=x>x</form>"#, "form"),
        (r#"<form id=target aria-label="">x</form>"#, "generic"),
        (r#"<form id=target title=x>x</form>"#, "form"),
        (r#"<form id=target title="">x</form>"#, "generic"),
        (
            r#"<form id=target aria-labelledby=missing>x</form>"#,
            "generic",
        ),
        (
            r#"<div id=e></div><form id=target aria-labelledby=e>x</form>"#,
            "generic",
        ),
    ]);
}

// Name-dependent roles whose name comes from aria-labelledby ask the name computation; these
// only pass once accname (name.rs) is in place.
#[test]
fn section_named_by_labelledby() {
    check(
        r#"<h2 id=h>Shipping</h2><section id=target aria-labelledby=h>x</section>"#,
        "region",
    );
    check(
        r#"<div id=l>labelledby</div><form id=target aria-labelledby=l>x</form>"#,
        "form",
    );
    // A section labelled by itself must not loop.
    let _ = role_of(r#"<section id=target aria-labelledby=target>x</section>"#);
}

// HTML-AAM el-img, el-img-empty-alt; wpt img-src-srcset-roles.tentative.html.
#[test]
fn images() {
    check_all(&[
        (r#"<img id=target src=a.png alt=x>"#, "image"),
        (r#"<img id=target src=a.png>"#, "image"),
        (r#"<img id=target src=a.png alt>"#, "none"),
        (r#"<img id=target src=a.png alt="">"#, "none"),
        (r#"<img id=target src=a.png alt="" aria-label=x>"#, "image"),
        (r#"<img id=target src=a.png alt="" aria-label="">"#, "none"),
        (r#"<img id=target src=a.png alt="" aria-label=" ">"#, "none"),
        (r#"<img id=target src=a.png alt="" title=x>"#, "none"),
        (r#"<img id=target src=a.png alt="" tabindex=0>"#, "image"),
        (
            r#"<img id=target src=a.png alt="" aria-describedby=d>"#,
            "image",
        ),
        (
            r#"<img id=target src=a.png alt="" aria-labelledby=missing>"#,
            "none",
        ),
        (r#"<img id=target>"#, "none"),
        (r#"<img id=target src>"#, "none"),
        (r#"<img id=target srcset>"#, "none"),
        (r#"<img id=target title=x>"#, "image"),
        (r#"<img id=target aria-label=foo>"#, "image"),
        (r#"<img id=target alt=x>"#, "image"),
        (r#"<img id=target srcset="a.png 1x">"#, "image"),
        (r#"<img id=target src=a.png alt="" role=img>"#, "image"),
    ]);
}

// HTML-AAM el-input-* rows.
#[test]
fn input_types() {
    check_all(&[
        (r#"<input id=target>"#, "textbox"),
        (r#"<input id=target type=text>"#, "textbox"),
        (r#"<input id=target type=TEXT>"#, "textbox"),
        (r#"<input id=target type=bogus>"#, "textbox"),
        (r#"<input id=target type=email>"#, "textbox"),
        (r#"<input id=target type=tel>"#, "textbox"),
        (r#"<input id=target type=url>"#, "textbox"),
        (r#"<input id=target type=password>"#, "textbox"),
        (r#"<input id=target type=search>"#, "searchbox"),
        (r#"<input id=target type=number>"#, "spinbutton"),
        (r#"<input id=target type=range>"#, "slider"),
        (r#"<input id=target type=checkbox>"#, "checkbox"),
        (r#"<input id=target type=checkbox switch>"#, "switch"),
        (r#"<input id=target type=radio>"#, "radio"),
        (r#"<input id=target type=button value=x>"#, "button"),
        (r#"<input id=target type=submit>"#, "button"),
        (r#"<input id=target type=reset>"#, "button"),
        (r#"<input id=target type=image alt=go>"#, "button"),
        (r#"<input id=target type=file>"#, "button"),
        (r#"<input id=target type=hidden>"#, "none"),
        (r#"<input id=target type=date>"#, "textbox"),
    ]);
}

// HTML-AAM el-input-text-list and friends: a datalist makes a combobox.
#[test]
fn text_inputs_with_a_datalist_are_comboboxes() {
    let datalist = r#"<datalist id=d><option>a</option></datalist>"#;
    for kind in ["text", "search", "email", "tel", "url"] {
        check(
            &format!(r#"{datalist}<input id=target type={kind} list=d>"#),
            "combobox",
        );
    }
    check(r#"<input id=target list=missing>"#, "textbox");
    check(r#"<div id=d></div><input id=target list=d>"#, "textbox");
    check(r#"<input id=target type=search list=missing>"#, "searchbox");
    check(
        &format!(r#"{datalist}<input id=target type=number list=d>"#),
        "spinbutton",
    );
}

// HTML-AAM el-select-combobox / el-select-listbox.
#[test]
fn select_is_combobox_or_listbox() {
    check_all(&[
        (
            r#"<select id=target><option>a</option></select>"#,
            "combobox",
        ),
        (
            r#"<select id=target size=1><option>a</option></select>"#,
            "combobox",
        ),
        (
            r#"<select id=target size=2><option>a</option></select>"#,
            "listbox",
        ),
        (
            r#"<select id=target size=x><option>a</option></select>"#,
            "combobox",
        ),
        (
            r#"<select id=target multiple><option>a</option></select>"#,
            "listbox",
        ),
    ]);
}

// HTML-AAM el-li; wpt roles-generic.tentative.html.
#[test]
fn list_items_need_a_list() {
    check_all(&[
        (r#"<ul><li id=target>x</li></ul>"#, "listitem"),
        (r#"<ol><li id=target>x</li></ol>"#, "listitem"),
        (r#"<menu><li id=target>x</li></menu>"#, "listitem"),
        (r#"<li id=target>x</li>"#, "generic"),
        (r#"<ul><div><li id=target>x</li></div></ul>"#, "listitem"),
        (r#"<div role=list><li id=target>x</li></div>"#, "listitem"),
        (
            r#"<ul aria-owns=target></ul><li id=target>x</li>"#,
            "listitem",
        ),
        (r#"<ul role=none><li id=target>x</li></ul>"#, "none"),
        (r#"<ul role=presentation><li id=target>x</li></ul>"#, "none"),
        (r#"<ul role=tablist><li id=target>x</li></ul>"#, "generic"),
        // A presentational list that is focusable keeps its semantics, so its items too.
        (
            r#"<ul role=none tabindex=0><li id=target>x</li></ul>"#,
            "listitem",
        ),
    ]);
}

// HTML-AAM el-td / el-th / el-tr; wpt html-aam/table-roles.html.
#[test]
fn table_cells() {
    let table = r#"<table>
        <thead><tr><th id=col>a</th><th>b</th><th>c</th></tr></thead>
        <tbody id=tbody><tr id=row><th id=rowheader>1</th><td id=cell>2</td><td>3</td></tr></tbody>
        <tfoot><tr><th id=foot>x</th><th>y</th></tr></tfoot>
      </table>"#;
    for (id, expected) in [
        ("col", "columnheader"),
        ("rowheader", "rowheader"),
        ("cell", "cell"),
        ("row", "row"),
        ("foot", "columnheader"),
        ("tbody", "generic"),
    ] {
        check(&table.replace(&format!("id={id}"), "id=target"), expected);
    }
    check_all(&[
        (
            r#"<table><tbody id=target tabindex=0><tr><td>x</td></tr></tbody></table>"#,
            "rowgroup",
        ),
        (
            r#"<table><tr><th id=target scope=row>a</th><th>b</th></tr></table>"#,
            "rowheader",
        ),
        (
            r#"<table><tr><td>1</td><th id=target scope=col>a</th></tr></table>"#,
            "columnheader",
        ),
        (r#"<table><tr><th id=target>only</th></tr></table>"#, "cell"),
        (
            r#"<table role=grid><tr><td id=target>x</td></tr></table>"#,
            "gridcell",
        ),
        (
            r#"<table role=treegrid><tr><td id=target>x</td></tr></table>"#,
            "gridcell",
        ),
        (
            r#"<table role=none><tr><td id=target>x</td></tr></table>"#,
            "none",
        ),
        (
            r#"<table role=presentation><tr id=target><td>x</td></tr></table>"#,
            "none",
        ),
        (
            r#"<table role=none><tr><th id=target>x</th><td>y</td></tr></table>"#,
            "none",
        ),
        (
            r#"<table role=none tabindex=0><tr><td id=target>x</td></tr></table>"#,
            "cell",
        ),
    ]);
}

// HTML-AAM el-summary; wpt html-aam/summary.html.
#[test]
fn summary_is_a_button_only_for_its_details() {
    check(
        r#"<details><summary id=target>x</summary>y</details>"#,
        "button",
    );
    check(r#"<summary id=target>x</summary>"#, "generic");
    check(
        r#"<details><summary>a</summary><summary id=target>b</summary></details>"#,
        "generic",
    );
    check(
        r#"<details><div><summary id=target>b</summary></div></details>"#,
        "generic",
    );
}

// SVG-AAM and MathML.
#[test]
fn svg_and_math() {
    check_all(&[
        (
            r#"<svg id=target><circle r=1></circle></svg>"#,
            "graphics-document",
        ),
        (r#"<svg><circle id=target r=1></circle></svg>"#, "none"),
        (
            r#"<svg><circle id=target r=1 aria-label=dot></circle></svg>"#,
            "graphics-symbol",
        ),
        (
            r#"<svg><rect id=target><title>box</title></rect></svg>"#,
            "graphics-symbol",
        ),
        (
            r#"<svg><g id=target><circle r=1></circle></g></svg>"#,
            "generic",
        ),
        (
            r#"<svg><g id=target aria-label=group><circle r=1></circle></g></svg>"#,
            "group",
        ),
        (
            r#"<svg><a id=target href="/x"><text>go</text></a></svg>"#,
            "link",
        ),
        (r#"<svg><text id=target>hello</text></svg>"#, "generic"),
        (r#"<svg id=target role=img aria-label=logo></svg>"#, "image"),
        (r#"<math id=target><mi>x</mi></math>"#, "math"),
        (r#"<math><mi id=target>x</mi></math>"#, "generic"),
    ]);
}

// WAI-ARIA 1.2 §7.1 role attribute and §9.1 handling author errors; wpt invalid-roles.html and
// fallback-roles.html.
#[test]
fn explicit_roles_take_the_first_valid_token() {
    check_all(&[
        (r#"<div id=target role=button>x</div>"#, "button"),
        (r#"<div id=target role="BUTTON">x</div>"#, "button"),
        (r#"<div id=target role="foo button">x</div>"#, "button"),
        (r#"<div id=target role="switch checkbox">x</div>"#, "switch"),
        (r#"<div id=target role="widget button">x</div>"#, "button"),
        (r#"<div id=target role="img">x</div>"#, "image"),
        (r#"<div id=target role="image">x</div>"#, "image"),
        (r#"<nav id=target role=foo>x</nav>"#, "navigation"),
        (r#"<nav id=target role="foo bar baz">x</nav>"#, "navigation"),
        (r#"<nav id=target role=" ">x</nav>"#, "navigation"),
        (r#"<span id=target role=foo>x</span>"#, "generic"),
        (r#"<nav id=target role="&#8203;">x</nav>"#, "navigation"),
        (r#"<span id=target role="&nbsp;button">x</span>"#, "generic"),
        (r#"<div id=target role="&#9;button">x</div>"#, "button"),
        (
            r#"<div id=target role="invalid, punctuation, link, button">x</div>"#,
            "button",
        ),
        (r#"<a id=target href=x role="button&#771;">x</a>"#, "link"),
        (r#"<nav id=target role="region\">x</nav>"#, "navigation"),
        (r#"<button id=target role="foo Link">x</button>"#, "link"),
        (
            r#"<nav id=target role="foo GROUP" aria-label=x>x</nav>"#,
            "group",
        ),
        (r#"<div id=target role=generic>x</div>"#, "generic"),
        (r#"<button id=target role=generic>x</button>"#, "generic"),
        (r#"<div id=target role=heading>x</div>"#, "heading"),
        (
            r#"<div id=target role="associationlist">x</div>"#,
            "generic",
        ),
    ]);
}

// wpt fallback-roles.html, region-roles.html, form-roles.html: region and form tokens need a
// name, otherwise the next token (or the implicit role) is used.
#[test]
fn region_and_form_tokens_need_a_name() {
    check_all(&[
        (r#"<div id=target role=region>x</div>"#, "generic"),
        (
            r#"<div id=target role=region aria-label=x>x</div>"#,
            "region",
        ),
        (r#"<nav id=target role="region group">x</nav>"#, "group"),
        (
            r#"<nav id=target role="region group" aria-label=x>x</nav>"#,
            "region",
        ),
        (r#"<div id=target role="ReGiOn foo">x</div>"#, "generic"),
        (r#"<nav id=target role=form>x</nav>"#, "navigation"),
        (r#"<nav id=target role=form aria-label=x>x</nav>"#, "form"),
    ]);
}

// WAI-ARIA 1.2 §5.2.7 required context roles; wpt contextual-roles.html, grid-roles.tentative,
// menu-roles.html, tree-roles.html.
#[test]
fn roles_without_their_required_context_are_ignored() {
    check_all(&[
        (r#"<span id=target role=cell>x</span>"#, "generic"),
        (r#"<span id=target role=row>x</span>"#, "generic"),
        (r#"<span id=target role=rowgroup>x</span>"#, "generic"),
        (r#"<span id=target role=columnheader>x</span>"#, "generic"),
        (r#"<div id=target role=listitem>x</div>"#, "generic"),
        (r#"<p id=target role=listitem>x</p>"#, "paragraph"),
        (r#"<p id=target role=caption>x</p>"#, "paragraph"),
        (r#"<button id=target role=gridcell>x</button>"#, "button"),
        (
            r#"<button id=target role=menuitemcheckbox>x</button>"#,
            "button",
        ),
        (r#"<span id=target role=option>x</span>"#, "generic"),
        (r#"<button id=target role=tab>x</button>"#, "button"),
        (r#"<nav id=target role=treeitem>x</nav>"#, "navigation"),
        (r#"<nav id=target role=menuitem>x</nav>"#, "navigation"),
        // In context.
        (
            r#"<div role=list><div id=target role=listitem>x</div></div>"#,
            "listitem",
        ),
        (
            r#"<div role=menu><div id=target role=menuitem>x</div></div>"#,
            "menuitem",
        ),
        (
            r#"<div role=menu><div role=group><div id=target role=menuitemradio>x</div></div></div>"#,
            "menuitemradio",
        ),
        (
            r#"<ul role=menu><li role=none><a id=target role=menuitem href=x>x</a></li></ul>"#,
            "menuitem",
        ),
        (
            r#"<div role=tablist><button id=target role=tab>x</button></div>"#,
            "tab",
        ),
        (
            r#"<div role=listbox><div id=target role=option>x</div></div>"#,
            "option",
        ),
        (
            r#"<ul role=tree><li id=target role=treeitem>x</li></ul>"#,
            "treeitem",
        ),
        (
            r#"<ul role=tree><li role=treeitem>x<ul role=group><li id=target role=treeitem>y</li></ul></li></ul>"#,
            "treeitem",
        ),
        (
            r#"<div role=table><div role=rowgroup><div id=target role=row>x</div></div></div>"#,
            "row",
        ),
        (
            r#"<div role=table><div role=row><span id=target role=cell>x</span></div></div>"#,
            "cell",
        ),
        (
            r#"<div role=grid><div role=row><div id=target role=gridcell>x</div></div></div>"#,
            "gridcell",
        ),
        (
            r#"<div role=table><div id=target role=caption>x</div></div>"#,
            "caption",
        ),
        (
            r#"<table role=treegrid><tr role=row><td id=target role=gridcell>x</td></tr></table>"#,
            "gridcell",
        ),
    ]);
}

// WAI-ARIA 1.2 §9.1 Presentational Roles Conflict Resolution; wpt role_none_conflict_resolution.
#[test]
fn presentation_conflict_resolution() {
    check_all(&[
        (r#"<h1 id=target role=none>x</h1>"#, "none"),
        (r#"<h1 id=target role=presentation>x</h1>"#, "none"),
        (r#"<h1 id=target role=none aria-label=x>x</h1>"#, "heading"),
        (r#"<p id=target role=none aria-label=x>x</p>"#, "paragraph"),
        (r#"<p id=target role=none>x</p>"#, "none"),
        (r#"<h1 id=target role=none tabindex=0>x</h1>"#, "heading"),
        (r#"<h1 id=target role=none tabindex=-1>x</h1>"#, "heading"),
        (r#"<h1 id=target role=none tabindex=nope>x</h1>"#, "none"),
        (r#"<h1 id=target role=none aria-level=2>x</h1>"#, "none"),
        (
            r#"<input id=target type=text role=presentation>"#,
            "textbox",
        ),
        (
            r#"<input id=target type=text role=presentation disabled>"#,
            "none",
        ),
        (r#"<button id=target role=none>x</button>"#, "button"),
        (r#"<a id=target role=none href=x>x</a>"#, "link"),
        (r#"<a id=target role=none>x</a>"#, "none"),
        (
            r#"<div id=target role=none aria-describedby=x>x</div>"#,
            "generic",
        ),
        (
            r#"<div id=target role=none contenteditable>x</div>"#,
            "generic",
        ),
        (
            r#"<fieldset disabled><button id=target role=none>x</button></fieldset>"#,
            "none",
        ),
    ]);
}

// HTML-AAM "minimum role"; wpt roles-minimum.tentative.html.
#[test]
fn minimum_role_group() {
    check_all(&[
        (r#"<div id=target autofocus>x</div>"#, "group"),
        (r#"<div id=target draggable=true>x</div>"#, "group"),
        (r#"<div id=target draggable=false>x</div>"#, "generic"),
        (r#"<div id=target role=generic draggable>x</div>"#, "group"),
        (r#"<div id=target role=none autofocus>x</div>"#, "group"),
        (r#"<div id=target popover>x</div>"#, "group"),
        (r#"<section id=target draggable>x</section>"#, "group"),
        (
            r#"<section id=target draggable aria-label=t>x</section>"#,
            "region",
        ),
        (r#"<article id=target draggable>x</article>"#, "article"),
    ]);
}

// Shadow DOM: context rules look through the composed tree.
#[test]
fn context_crosses_shadow_boundaries() {
    check(
        r#"<ul><x-item><template shadowrootmode="open"><li id=inner>x</li></template></x-item></ul>
           <div role=list><x-host><template shadowrootmode="open"><slot></slot></template><li id=target>y</li></x-host></div>"#,
        "listitem",
    );
    check(
        r#"<article><x-host><template shadowrootmode="open"><slot></slot></template><header id=target>h</header></x-host></article>"#,
        "generic",
    );
}

/// Roles asked bottom-up on a very deep page must neither overflow the stack nor go wrong.
/// The page is built directly (html5ever's tree builder is slow on pathological nesting).
#[test]
fn deep_nesting_is_iterative() {
    let depth = 30_000;
    let mut dom = MemDom::new();
    let mut parent = dom.document();
    let html = dom.append_element(parent, "html", &[]);
    parent = dom.append_element(html, "body", &[]);
    let mut items = Vec::new();
    for _ in 0..depth {
        let list = dom.append_element(parent, "ul", &[]);
        let item = dom.append_element(list, "li", &[]);
        items.push(item);
        parent = dom.append_element(item, "section", &[]);
    }
    let target = dom.append_element(parent, "span", &[("id", "target")]);
    let run = move || {
        let context = Context::new(&dom);
        // The innermost list items first, so that none of their ancestors is cached yet.
        for &item in items.iter().rev().take(50) {
            assert_eq!(context.role(item), Role::ListItem);
        }
        assert_eq!(context.role(target), Role::Generic);
        // The outermost ones, now cached.
        for &item in items.iter().take(50) {
            assert_eq!(context.role(item), Role::ListItem);
        }
    };
    // A small stack on purpose: the walk must not depend on the depth.
    let handle = std::thread::Builder::new()
        .stack_size(1 << 20)
        .spawn(run)
        .unwrap_or_else(|error| panic!("spawn: {error}"));
    if handle.join().is_err() {
        panic!("role computation panicked on a deep page");
    }
}

/// Explicit roles with required contexts nested deeply (row in row in row ...), asked from the
/// bottom: the depth guard computes ancestors top-down instead of recursing.
#[test]
fn deep_required_context_chains_are_iterative() {
    let depth = 30_000;
    let mut dom = MemDom::new();
    let html = dom.append_element(dom.document(), "html", &[]);
    let mut parent = dom.append_element(html, "body", &[]);
    parent = dom.append_element(parent, "div", &[("role", "tree")]);
    let mut last = parent;
    for _ in 0..depth {
        let item = dom.append_element(parent, "div", &[("role", "treeitem")]);
        parent = dom.append_element(item, "div", &[("role", "group")]);
        last = item;
    }
    let run = move || {
        let context = Context::new(&dom);
        assert_eq!(context.role(last), Role::TreeItem);
    };
    let handle = std::thread::Builder::new()
        .stack_size(1 << 20)
        .spawn(run)
        .unwrap_or_else(|error| panic!("spawn: {error}"));
    if handle.join().is_err() {
        panic!("role computation panicked on a deep page");
    }
}

/// Every element of a messy page gets a role without panicking.
#[test]
fn odd_input_never_panics() {
    let html = r##"<div role="&#0; &#xFFFF; 💥 button" tabindex="99999999999999999999999">
        <select size="-1" multiple><optgroup><option>a</optgroup></select>
        <input type="ränge" list=""><td>stray</td><th scope="">h</th><tr></tr>
        <img alt srcset=" "><svg><a xlink:href="#"></a><foreignObject><p>x</p></foreignObject></svg>
        <section aria-labelledby="a b c"></section><aside aria-labelledby="x"></aside></div>"##;
    let dom = MemDom::parse(html);
    let context = Context::new(&dom);
    for element in dom.all_elements() {
        let _ = context.role(element);
    }
    assert_eq!(context.role(allwright_ax::NodeId(u32::MAX)), Role::None);
}
