//! The user agent's HTML rules that the in-memory DOM needs to stand in for a browser: default
//! `display` values and a select's selectedness from markup.

use crate::dom::{Display, Dom, Namespace, NodeId};
use crate::html::{is_html, list_of_options};

use super::{MemDom, MemNode};

impl MemDom {
    /// HTML "selectedness setting algorithm", from attributes: in a single-choice select shown as
    /// a drop-down, the last `selected` option wins, else the first non-disabled option.
    pub(super) fn selected_options_from_markup(&self, select: NodeId) -> Vec<NodeId> {
        let options = list_of_options(self, select);
        let selected: Vec<NodeId> = options
            .iter()
            .copied()
            .filter(|&option| self.attribute(option, "selected").is_some())
            .collect();
        let multiple = self.attribute(select, "multiple").is_some();
        if multiple {
            return selected;
        }
        if let Some(&last) = selected.last() {
            return vec![last];
        }
        let size = self
            .attribute(select, "size")
            .and_then(|size| size.trim_ascii().parse::<u32>().ok())
            .unwrap_or(1);
        if size > 1 {
            return Vec::new();
        }
        options
            .into_iter()
            .find(|&option| self.attribute(option, "disabled").is_none())
            .into_iter()
            .collect()
    }

    /// An option's selectedness: as its select's algorithm decides, or its `selected`
    /// attribute when it belongs to no select (a datalist's options).
    pub(super) fn option_selected_from_markup(&self, option: NodeId) -> bool {
        if !is_html(self, option, "option") {
            return false;
        }
        let mut select = self.parent(option);
        if let Some(parent) = select {
            if is_html(self, parent, "optgroup") {
                select = self.parent(parent);
            }
        }
        match select {
            Some(select) if is_html(self, select, "select") => {
                self.selected_options_from_markup(select).contains(&option)
            }
            _ => self.attribute(option, "selected").is_some(),
        }
    }
}

/// HTML elements whose user-agent `display` is `none` (HTML "Rendering", 15.3.1 "Hidden elements").
const NEVER_RENDERED: &[&str] = &[
    "area", "base", "basefont", "datalist", "head", "link", "meta", "noembed", "noframes",
    "noscript", "param", "rp", "script", "source", "style", "template", "track", "title",
];

/// HTML elements whose user-agent `display` is block-level (HTML "Rendering", 15.3.3 onwards).
const BLOCK_LEVEL: &[&str] = &[
    "address",
    "article",
    "aside",
    "blockquote",
    "body",
    "caption",
    "center",
    "col",
    "colgroup",
    "dd",
    "details",
    "dialog",
    "dir",
    "div",
    "dl",
    "dt",
    "fieldset",
    "figcaption",
    "figure",
    "footer",
    "form",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "header",
    "hgroup",
    "hr",
    "html",
    "legend",
    "li",
    "listing",
    "main",
    "menu",
    "nav",
    "ol",
    "optgroup",
    "option",
    "p",
    "plaintext",
    "pre",
    "search",
    "section",
    "summary",
    "table",
    "tbody",
    "td",
    "tfoot",
    "th",
    "thead",
    "tr",
    "ul",
    "xmp",
];

/// The `display` an element has before any style sheet: HTML "Rendering" (hidden, never-rendered
/// and block-level elements); everything else is inline.
pub(super) fn user_agent_display(data: &MemNode) -> Display {
    if data.namespace != Namespace::Html {
        return Display::Inline;
    }
    let name = data.local_name.as_str();
    if data
        .attribute("hidden")
        .is_some_and(|value| !value.eq_ignore_ascii_case("until-found"))
    {
        return Display::None;
    }
    if NEVER_RENDERED.contains(&name)
        || (name == "dialog" && data.attribute("open").is_none())
        // The user agent's style sheet matches `input[type=hidden i]` as written, untrimmed.
        || (name == "input"
            && data
                .attribute("type")
                .is_some_and(|kind| kind.eq_ignore_ascii_case("hidden")))
    {
        return Display::None;
    }
    if BLOCK_LEVEL.contains(&name) {
        Display::Block
    } else {
        Display::Inline
    }
}
