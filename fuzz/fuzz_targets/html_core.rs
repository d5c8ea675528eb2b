//! The core on pages parsed by the in-memory DOM (crates/allwright-ax/src/memdom/): markup that
//! html5ever builds into any shape a page can have (misnested tables, `<template>`, SVG and
//! MathML islands, `<select>` content, shadow-root templates in markup are plain elements here),
//! with the ARIA and label attributes that make names refer to other nodes, and inline style
//! sheets, as one string. The generator either writes a tree of elements from the lists below or
//! takes the bytes as markup. Property: no panic, and every output is an envelope.

#![no_main]

use allwright_ax::memdom::MemDom;
use allwright_ax_wasm::api::{
    snapshot_document_output, text_tree_output, SnapshotRequest, TextTreeRequest,
};
use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;

mod generated_input;
use generated_input::{assert_envelope, AttributeValue};

const TAGS: &[&str] = &[
    "div",
    "span",
    "button",
    "a",
    "input",
    "label",
    "select",
    "option",
    "textarea",
    "ul",
    "li",
    "table",
    "tr",
    "td",
    "th",
    "caption",
    "fieldset",
    "legend",
    "img",
    "svg",
    "title",
    "h2",
    "p",
    "details",
    "summary",
    "dialog",
    "form",
    "nav",
    "figure",
    "figcaption",
    "dl",
    "dt",
    "dd",
    "output",
    "progress",
    "meter",
    "template",
    "style",
    "math",
    "iframe",
    "area",
    "map",
];

const ATTRIBUTES: &[&str] = &[
    "id",
    "role",
    "aria-label",
    "aria-labelledby",
    "aria-describedby",
    "aria-owns",
    "aria-hidden",
    "hidden",
    "for",
    "type",
    "value",
    "title",
    "alt",
    "href",
    "tabindex",
    "aria-expanded",
    "aria-checked",
    "aria-level",
    "aria-valuenow",
    "style",
    "class",
    "selected",
    "disabled",
    "inert",
    "open",
    "colspan",
    "headers",
    "list",
    "placeholder",
    "contenteditable",
];

#[derive(Arbitrary, Debug)]
enum Piece {
    Open {
        tag: u8,
        attributes: Vec<(u8, AttributeValue)>,
    },
    Close,
    Text(String),
    StyleRule(String),
}

#[derive(Arbitrary, Debug)]
enum Input {
    Pieces(Vec<Piece>),
    Markup(String),
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('"', "&quot;")
}

fn markup(pieces: &[Piece]) -> String {
    let mut out = String::from("<!doctype html><html><body>");
    let mut open: Vec<&str> = Vec::new();
    let mut next_id = 0u32;
    for piece in pieces {
        match piece {
            Piece::Open { tag, attributes } => {
                let tag = TAGS[*tag as usize % TAGS.len()];
                out.push('<');
                out.push_str(tag);
                out.push_str(&format!(" id=\"n{next_id}\""));
                next_id += 1;
                for (name, value) in attributes {
                    let name = ATTRIBUTES[*name as usize % ATTRIBUTES.len()];
                    let value = escape(&value.text());
                    out.push_str(&format!(" {name}=\"{value}\""));
                }
                out.push('>');
                open.push(tag);
            }
            Piece::Close => {
                if let Some(tag) = open.pop() {
                    out.push_str(&format!("</{tag}>"));
                }
            }
            Piece::Text(text) => out.push_str(&escape(text)),
            Piece::StyleRule(rule) => {
                out.push_str("<style>");
                out.push_str(&rule.replace("</", "< /"));
                out.push_str("</style>");
            }
        }
    }
    out
}

fuzz_target!(|input: Input| {
    let html = match &input {
        Input::Pieces(pieces) => markup(pieces),
        Input::Markup(markup) => markup.clone(),
    };
    let dom = MemDom::parse(&html);
    for filter in ["all", "visible", "interactive"] {
        let request = TextTreeRequest {
            filter,
            max_depth: 30,
            max_chars: Some(2_000),
            url: "http://fuzz.test/",
            title: "fuzz",
            ..TextTreeRequest::whole_page()
        };
        assert_envelope(&text_tree_output(&dom, &request));
    }
    let request = SnapshotRequest {
        format: "yaml",
        context_id: "fuzz",
        parent_context_id: None,
        url: "http://fuzz.test/",
        title: "fuzz",
        ai: None,
    };
    assert_envelope(&snapshot_document_output(&dom, &request));
});
