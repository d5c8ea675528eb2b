//! Style sheets, selectors and computed styles of the in-memory DOM (see the module comment of
//! `memdom` for what it understands). `content` values are read by the core's `css` module, as
//! the glue reads the page's computed values.

use std::collections::HashMap;

use crate::composed::FlatTree;
use crate::css::{parse_content, Content};
use crate::dom::{
    Display, Dom, NodeId, NodeKind, PseudoElement, Rect, Style, TextTransform, Visibility,
};
use crate::html::is_html;

use super::html::user_agent_display;
use super::{MemDom, DEFAULT_BOX};

/// Facts computed once per DOM state, on first use, and dropped by any mutation.
pub(super) struct Computed {
    pub(super) styles: Vec<Style>,
    /// Each element's computed `cursor` is `pointer`, inherited or its own (`cursor` is an
    /// inherited property, CSS UI 4): `Style::cursor_pointer` is set where it differs from the
    /// parent's.
    pub(super) pointer_cursor: Vec<bool>,
    pub(super) before: Vec<Option<String>>,
    pub(super) after: Vec<Option<String>>,
    pub(super) boxes: Vec<Option<Rect>>,
    pub(super) ids: HashMap<(NodeId, String), NodeId>,
    /// The root of each node's light tree (document, shadow root, or detached top).
    pub(super) tree_roots: Vec<NodeId>,
}

#[derive(Clone, Copy, Default)]
struct Declared {
    display: Option<Display>,
    visibility: Option<Visibility>,
    content_visibility_hidden: Option<bool>,
    pointer_events_none: Option<bool>,
    text_transform: Option<TextTransform>,
    scroll_container: Option<bool>,
    /// `cursor` declared: whether its value is `pointer`.
    cursor_pointer: Option<bool>,
    layout_box: Option<Rect>,
    /// `display` is `flex`, `grid`, `inline-flex` or `inline-grid`: the element's children are
    /// flex or grid items, whose display is blockified (CSS Display 3, "Automatic Box Type
    /// Transformations"), as a browser's computed style reports it.
    lays_out_items: Option<bool>,
}

/// One declaration block's effect on an element or a pseudo-element.
#[derive(Clone, Default)]
struct Declarations {
    own: Declared,
    /// `content` as parsed: `Some(None)` is `content: none | normal`.
    content: Option<Option<Content>>,
}

fn parse_declarations(text: &str) -> Declarations {
    let mut declarations = Declarations::default();
    for declaration in split_outside_quotes(text, ';') {
        let Some((property, value)) = declaration.split_once(':') else {
            continue;
        };
        let property = property.trim().to_ascii_lowercase();
        let value = value.trim().trim_end_matches("!important").trim();
        let keyword = value.to_ascii_lowercase();
        match property.as_str() {
            "display" => {
                declarations.own.lays_out_items = Some(matches!(
                    keyword.as_str(),
                    "flex" | "grid" | "inline-flex" | "inline-grid"
                ));
                declarations.own.display = Some(match keyword.as_str() {
                    "none" => Display::None,
                    "contents" => Display::Contents,
                    "inline" | "ruby" => Display::Inline,
                    keyword if keyword.starts_with("inline") => Display::AtomicInline,
                    _ => Display::Block,
                })
            }
            "visibility" => {
                declarations.own.visibility = Some(match keyword.as_str() {
                    "hidden" => Visibility::Hidden,
                    "collapse" => Visibility::Collapse,
                    _ => Visibility::Visible,
                })
            }
            "content-visibility" => {
                declarations.own.content_visibility_hidden = Some(keyword == "hidden")
            }
            "pointer-events" => declarations.own.pointer_events_none = Some(keyword == "none"),
            // Either axis scrolling makes a scroll container (CSS Overflow 3); `overflow` with
            // two keywords sets both.
            "overflow" | "overflow-x" | "overflow-y" => {
                let scrolls = keyword
                    .split_ascii_whitespace()
                    .any(|value| matches!(value, "auto" | "scroll"));
                declarations.own.scroll_container =
                    Some(scrolls || declarations.own.scroll_container.unwrap_or(false));
            }
            "cursor" => {
                declarations.own.cursor_pointer = Some(
                    keyword
                        .rsplit(',')
                        .next()
                        .is_some_and(|last| last.trim() == "pointer"),
                )
            }
            "text-transform" => {
                declarations.own.text_transform = Some(match keyword.as_str() {
                    "uppercase" => TextTransform::Uppercase,
                    "lowercase" => TextTransform::Lowercase,
                    "capitalize" => TextTransform::Capitalize,
                    _ => TextTransform::None,
                })
            }
            "--memdom-box" => {
                let numbers: Vec<f64> = keyword
                    .split_ascii_whitespace()
                    .filter_map(|number| number.trim_end_matches("px").parse().ok())
                    .collect();
                if let [x, y, width, height] = numbers[..] {
                    declarations.own.layout_box = Some(Rect {
                        x,
                        y,
                        width,
                        height,
                    });
                }
            }
            "content" => declarations.content = Some(parse_content(value)),
            _ => {}
        }
    }
    declarations
}

fn split_outside_quotes(text: &str, separator: char) -> Vec<&str> {
    let mut parts = Vec::new();
    let mut quote: Option<char> = None;
    let mut depth = 0usize;
    let mut start = 0;
    for (index, character) in text.char_indices() {
        match (quote, character) {
            (Some(open), close) if open == close => quote = None,
            (Some(_), _) => {}
            (None, '"' | '\'') => quote = Some(character),
            (None, '(' | '[') => depth += 1,
            (None, ')' | ']') => depth = depth.saturating_sub(1),
            (None, found) if found == separator && depth == 0 => {
                parts.push(&text[start..index]);
                start = index + character.len_utf8();
            }
            _ => {}
        }
    }
    parts.push(&text[start..]);
    parts
}

#[derive(Clone, Debug)]
enum Combinator {
    Descendant,
    Child,
}

#[derive(Clone, Debug, Default)]
struct Compound {
    tag: Option<String>,
    id: Option<String>,
    classes: Vec<String>,
    /// `[name]` (None) or `[name=value]`.
    attributes: Vec<(String, Option<String>)>,
}

#[derive(Clone, Debug)]
pub(super) struct Selector {
    /// Rightmost compound first, each with the combinator that links it to the next one left.
    compounds: Vec<(Compound, Combinator)>,
    pseudo: Option<PseudoElement>,
    specificity: (u32, u32, u32),
}

struct Rule {
    selector: Selector,
    declarations: Declarations,
    /// The tree (document or shadow root) whose elements the rule applies to.
    scope: NodeId,
    order: usize,
}

/// A selector list as `querySelectorAll` takes it: `None` when any selector is not understood,
/// or names a pseudo-element (which no element matches).
pub(super) fn parse_selector_list(text: &str) -> Option<Vec<Selector>> {
    split_outside_quotes(text, ',')
        .into_iter()
        .map(|selector| parse_selector(selector).filter(|selector| selector.pseudo.is_none()))
        .collect()
}

fn parse_selector(text: &str) -> Option<Selector> {
    let mut pseudo = None;
    let mut text = text.trim().to_string();
    for (suffix, which) in [
        ("::before", PseudoElement::Before),
        ("::after", PseudoElement::After),
        (":before", PseudoElement::Before),
        (":after", PseudoElement::After),
    ] {
        if text.to_ascii_lowercase().ends_with(suffix) {
            text.truncate(text.len() - suffix.len());
            pseudo = Some(which);
            break;
        }
    }
    let spaced = text.replace('>', " > ");
    let mut compounds_left_to_right: Vec<(Compound, Combinator)> = Vec::new();
    let mut pending = Combinator::Descendant;
    for token in spaced.split_ascii_whitespace() {
        if token == ">" {
            pending = Combinator::Child;
            continue;
        }
        compounds_left_to_right.push((parse_compound(token)?, pending));
        pending = Combinator::Descendant;
    }
    if compounds_left_to_right.is_empty() {
        if pseudo.is_some() {
            compounds_left_to_right.push((Compound::default(), Combinator::Descendant));
        } else {
            return None;
        }
    }
    let mut specificity = (0, 0, 0);
    for (compound, _) in &compounds_left_to_right {
        specificity.0 += u32::from(compound.id.is_some());
        specificity.1 += (compound.classes.len() + compound.attributes.len()) as u32;
        specificity.2 += u32::from(compound.tag.is_some());
    }
    specificity.2 += u32::from(pseudo.is_some());
    // Store right to left; the combinator of entry i links it to entry i + 1 (its left neighbour).
    let mut compounds = Vec::with_capacity(compounds_left_to_right.len());
    let count = compounds_left_to_right.len();
    for index in (0..count).rev() {
        let combinator = compounds_left_to_right[index].1.clone();
        compounds.push((compounds_left_to_right[index].0.clone(), combinator));
    }
    Some(Selector {
        compounds,
        pseudo,
        specificity,
    })
}

fn parse_compound(token: &str) -> Option<Compound> {
    let mut compound = Compound::default();
    let mut rest = token;
    let name_end = |text: &str| text.find(['#', '.', '[', ':']).unwrap_or(text.len());
    let end = name_end(rest);
    if end > 0 {
        let tag = &rest[..end];
        if tag != "*" {
            compound.tag = Some(tag.to_ascii_lowercase());
        }
        rest = &rest[end..];
    }
    while let Some(first) = rest.chars().next() {
        match first {
            '#' | '.' => {
                let after = &rest[1..];
                let end = name_end(after);
                if end == 0 {
                    return None;
                }
                let name = after[..end].to_string();
                if first == '#' {
                    compound.id = Some(name);
                } else {
                    compound.classes.push(name);
                }
                rest = &after[end..];
            }
            '[' => {
                let close = rest.find(']')?;
                let inside = &rest[1..close];
                match inside.split_once('=') {
                    Some((name, value)) => {
                        if name.ends_with(['~', '|', '^', '$', '*']) {
                            return None;
                        }
                        let value = value.trim().trim_matches(['"', '\'']).to_string();
                        compound
                            .attributes
                            .push((name.trim().to_ascii_lowercase(), Some(value)));
                    }
                    None => compound
                        .attributes
                        .push((inside.trim().to_ascii_lowercase(), None)),
                }
                rest = &rest[close + 1..];
            }
            // Pseudo-classes are not understood: the whole rule is skipped.
            _ => return None,
        }
    }
    Some(compound)
}

fn compound_matches(dom: &MemDom, element: NodeId, compound: &Compound) -> bool {
    let Some(data) = dom.node(element) else {
        return false;
    };
    if data.kind != NodeKind::Element {
        return false;
    }
    if let Some(tag) = &compound.tag {
        if !data.local_name.eq_ignore_ascii_case(tag) {
            return false;
        }
    }
    if let Some(id) = &compound.id {
        if data.attribute("id") != Some(id.as_str()) {
            return false;
        }
    }
    let classes = data.attribute("class").unwrap_or("");
    if !compound
        .classes
        .iter()
        .all(|class| classes.split_ascii_whitespace().any(|token| token == class))
    {
        return false;
    }
    compound
        .attributes
        .iter()
        .all(|(name, value)| match (data.attribute(name), value) {
            (None, _) => false,
            (Some(_), None) => true,
            (Some(actual), Some(expected)) => actual == expected,
        })
}

/// Matches a selector against an element, with light-tree ancestors (selectors do not cross
/// shadow boundaries). Descendant combinators backtrack iteratively.
pub(super) fn selector_matches(dom: &MemDom, element: NodeId, selector: &Selector) -> bool {
    let Some((first, _)) = selector.compounds.first() else {
        return false;
    };
    if !compound_matches(dom, element, first) {
        return false;
    }
    // Stack of (index of the next compound to match, element matched by the previous compound).
    let mut stack = vec![(1usize, element)];
    while let Some((index, matched)) = stack.pop() {
        if index == selector.compounds.len() {
            return true;
        }
        let (compound, _) = &selector.compounds[index];
        let link = &selector.compounds[index - 1].1;
        let mut ancestor = dom.parent(matched);
        while let Some(candidate) = ancestor {
            if compound_matches(dom, candidate, compound) {
                stack.push((index + 1, candidate));
            }
            if matches!(link, Combinator::Child) {
                break;
            }
            ancestor = dom.parent(candidate);
        }
    }
    false
}

fn collect_rules(dom: &MemDom, tree_roots: &[NodeId]) -> Vec<Rule> {
    let mut rules = Vec::new();
    for element in dom.all_elements() {
        if !is_html(dom, element, "style") {
            continue;
        }
        let scope = tree_roots[element.index()];
        let sheet = strip_comments(&dom.text_content(element));
        // Blocks are read flat; @media and other at-rules are skipped with their contents.
        let mut rest = sheet.as_str();
        while let Some(open) = rest.find('{') {
            let prelude = rest[..open].trim();
            let Some(close) = rest[open..].find('}') else {
                break;
            };
            let body = &rest[open + 1..open + close];
            if prelude.starts_with('@') {
                // Skip to the matching close of the at-rule's block.
                let mut depth = 0usize;
                let mut end = rest.len();
                for (index, character) in rest[open..].char_indices() {
                    match character {
                        '{' => depth += 1,
                        '}' => {
                            depth = depth.saturating_sub(1);
                            if depth == 0 {
                                end = open + index + 1;
                                break;
                            }
                        }
                        _ => {}
                    }
                }
                rest = &rest[end..];
                continue;
            }
            let declarations = parse_declarations(body);
            for selector_text in split_outside_quotes(prelude, ',') {
                if let Some(selector) = parse_selector(selector_text) {
                    let order = rules.len();
                    rules.push(Rule {
                        selector,
                        declarations: declarations.clone(),
                        scope,
                        order,
                    });
                }
            }
            rest = &rest[open + close + 1..];
        }
    }
    rules.sort_by_key(|rule| (rule.selector.specificity, rule.order));
    rules
}

fn strip_comments(sheet: &str) -> String {
    let mut out = String::with_capacity(sheet.len());
    let mut rest = sheet;
    while let Some(start) = rest.find("/*") {
        out.push_str(&rest[..start]);
        match rest[start + 2..].find("*/") {
            Some(end) => rest = &rest[start + 2 + end + 2..],
            None => return out,
        }
    }
    out.push_str(rest);
    out
}

fn apply(target: &mut Declared, source: &Declared) {
    target.display = source.display.or(target.display);
    target.lays_out_items = source.lays_out_items.or(target.lays_out_items);
    target.visibility = source.visibility.or(target.visibility);
    target.content_visibility_hidden = source
        .content_visibility_hidden
        .or(target.content_visibility_hidden);
    target.pointer_events_none = source.pointer_events_none.or(target.pointer_events_none);
    target.text_transform = source.text_transform.or(target.text_transform);
    target.scroll_container = source.scroll_container.or(target.scroll_container);
    target.cursor_pointer = source.cursor_pointer.or(target.cursor_pointer);
    target.layout_box = source.layout_box.or(target.layout_box);
}

/// The text a pseudo-element's `content` generates, `attr()` read from the element (attribute
/// names are ASCII case-insensitive on HTML elements, and this DOM stores them lowercase).
fn render_content(dom: &MemDom, element: NodeId, content: &Option<Content>) -> Option<String> {
    let content = content.as_ref()?;
    Some(content.text(&|name| {
        dom.attribute(element, &name.to_ascii_lowercase())
            .map(str::to_string)
    }))
}

/// Computes every element's style, pseudo-element content and box, and the id index, in one
/// pass over the flat tree (inherited properties come from the flat-tree parent).
pub(super) fn compute(dom: &MemDom) -> Computed {
    let node_count = dom.nodes.len();
    // Parents always have smaller ids than their children (nodes are appended under existing
    // parents), so one ascending pass finds every tree root without walking up.
    let mut tree_roots = Vec::with_capacity(node_count);
    for (index, data) in dom.nodes.iter().enumerate() {
        let root = match data.parent {
            Some(parent) if parent.index() < index => tree_roots[parent.index()],
            _ => NodeId(index as u32),
        };
        tree_roots.push(root);
    }
    let rules = collect_rules(dom, &tree_roots);
    let mut computed = Computed {
        styles: vec![Style::DEFAULT_INLINE; node_count],
        pointer_cursor: vec![false; node_count],
        before: vec![None; node_count],
        after: vec![None; node_count],
        boxes: vec![None; node_count],
        ids: HashMap::new(),
        tree_roots,
    };
    // Ids: the first element in tree order wins within each tree.
    for element in dom.all_elements() {
        if let Some(id) = dom.nodes[element.index()].attribute("id") {
            computed
                .ids
                .entry((computed.tree_roots[element.index()], id.to_string()))
                .or_insert(element);
        }
    }
    // Styles in flat-tree order, so that inherited properties come from the flat-tree parent.
    let flat = FlatTree::build(dom);
    let mut order = flat.preorder().to_vec();
    // Elements outside the flat tree still get a style (inherited from nothing).
    order.extend(
        dom.all_elements()
            .into_iter()
            .filter(|&element| !flat.contains(element)),
    );
    let mut lays_out_items = vec![false; node_count];
    for element in order {
        let data = &dom.nodes[element.index()];
        if data.kind != NodeKind::Element {
            continue;
        }
        let scope = computed.tree_roots[element.index()];
        let mut own = Declared {
            display: Some(user_agent_display(data)),
            // The user-agent sheets of Chromium and Firefox give links `cursor: pointer`.
            cursor_pointer: (is_html(dom, element, "a") || is_html(dom, element, "area"))
                .then(|| data.attribute("href").is_some())
                .filter(|&link| link),
            ..Declared::default()
        };
        let mut before: Option<Option<Content>> = None;
        let mut after: Option<Option<Content>> = None;
        for rule in rules.iter().filter(|rule| rule.scope == scope) {
            if !selector_matches(dom, element, &rule.selector) {
                continue;
            }
            match rule.selector.pseudo {
                None => apply(&mut own, &rule.declarations.own),
                Some(PseudoElement::Before) => {
                    if let Some(content) = &rule.declarations.content {
                        before = Some(content.clone());
                    }
                }
                Some(PseudoElement::After) => {
                    if let Some(content) = &rule.declarations.content {
                        after = Some(content.clone());
                    }
                }
            }
        }
        if let Some(inline) = data.attribute("style") {
            apply(&mut own, &parse_declarations(inline).own);
        }
        let parent_element = flat
            .parent(element)
            .filter(|&parent| dom.node_kind(parent) == NodeKind::Element);
        let parent_style = parent_element.map(|parent| computed.styles[parent.index()]);
        let parent_pointer_cursor =
            parent_element.is_some_and(|parent| computed.pointer_cursor[parent.index()]);
        let pointer_cursor = own.cursor_pointer.unwrap_or(parent_pointer_cursor);
        computed.pointer_cursor[element.index()] = pointer_cursor;
        let parent_lays_out_items = flat
            .parent(element)
            .is_some_and(|parent| lays_out_items[parent.index()]);
        lays_out_items[element.index()] = own.lays_out_items.unwrap_or(false);
        let display = match own.display.unwrap_or(Display::Inline) {
            Display::Inline | Display::AtomicInline if parent_lays_out_items => Display::Block,
            display => display,
        };
        let style = Style {
            display,
            visibility: own.visibility.unwrap_or_else(|| {
                parent_style.map_or(Visibility::Visible, |style| style.visibility)
            }),
            content_visibility_hidden: own.content_visibility_hidden.unwrap_or(false),
            pointer_events_none: own
                .pointer_events_none
                .unwrap_or_else(|| parent_style.is_some_and(|style| style.pointer_events_none)),
            text_transform: own.text_transform.unwrap_or_else(|| {
                parent_style.map_or(TextTransform::None, |style| style.text_transform)
            }),
            scroll_container: own.scroll_container.unwrap_or(false),
            cursor_pointer: pointer_cursor && !parent_pointer_cursor,
        };
        computed.styles[element.index()] = style;
        if style.display != Display::None {
            computed.before[element.index()] =
                before.and_then(|content| render_content(dom, element, &content));
            computed.after[element.index()] =
                after.and_then(|content| render_content(dom, element, &content));
            if style.display != Display::Contents {
                computed.boxes[element.index()] = Some(own.layout_box.unwrap_or(DEFAULT_BOX));
            }
        }
    }
    computed
}
