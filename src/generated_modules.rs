//! The JS modules of `extension/shared/generated/`: facts that the Rust side defines and the
//! extension must spell the same way, written from the Rust definitions and checked in
//! (rust-analyzer's "sourcegen" style, as `extension/shared/tool-contract.json` is):
//!
//! - `fact-layout.js`: the fact format's version, node stride, flag bits and string separator
//!   (crates/allwright-ax-wasm/src/facts.rs), which the content script's gatherer writes and the
//!   core reads;
//! - `line-record-layout.js`: the width and the depth word's bits of a tree read's line records
//!   (crates/allwright-ax/src/tree_diff.rs), which the core writes and the content script keeps
//!   and reads back for reads since a snapshot;
//! - `marker-attributes.js`: the attributes allwright sets on page elements (src/marker_attributes.rs),
//!   which one side sets and the other looks for;
//! - `key-names.js`: press_key's common named keys and other spellings (src/tools/keys.rs),
//!   which both argument validators use to correct a misspelt key.
//!
//! `allwright generated-modules DIR` writes them (a build step, not a user command); a host test
//! (tests/host/mcp.rs) fails when the checked-in folder differs and names the command. The core
//! crates stay free of JS: they only make their constants public, and this module, in the binary,
//! renders them.

use std::path::Path;

use allwright_ax::tree_diff;
use allwright_ax_wasm::facts;

use crate::marker_attributes::{MARKER_ATTRIBUTES, MARKER_ATTRIBUTE_PREFIX};
use crate::tools::{COMMON_NAMED_KEYS, KEY_SPELLINGS};

/// The command that rewrites the checked-in folder, as the modules' headers say it.
const REGENERATE_COMMAND: &str = "cargo run -q -- generated-modules extension/shared/generated";

/// One generated module: its file name in the folder and its whole text.
struct GeneratedModule {
    file_name: &'static str,
    text: String,
}

/// One `export const` of a module.
enum Export {
    /// A count, an index or a shift, written in decimal.
    Number(&'static str, u32),
    /// A flag or a mask, written in hexadecimal (`0x80000000` stays positive in JS, where
    /// `1 << 31` would not).
    Bits(&'static str, u32),
    Text(&'static str, String),
    /// A frozen array of strings.
    TextList(&'static str, &'static [&'static str]),
    /// A frozen array of `[string, string]` pairs.
    TextPairs(&'static str, &'static [(&'static str, &'static str)]),
}

/// Every module, in file-name order.
fn generated_modules() -> Vec<GeneratedModule> {
    let mut modules = vec![
        fact_layout_module(),
        key_names_module(),
        line_record_layout_module(),
        marker_attributes_module(),
    ];
    modules.sort_by_key(|module| module.file_name);
    modules
}

/// Writes every module into `folder` and removes any other `.js` file there (a module the
/// generator no longer writes), so that the folder holds exactly what the generator writes.
pub fn write_generated_modules(folder: &Path) -> Result<(), String> {
    std::fs::create_dir_all(folder)
        .map_err(|error| format!("cannot create {}: {error}", folder.display()))?;
    let modules = generated_modules();
    let entries = std::fs::read_dir(folder)
        .map_err(|error| format!("cannot list {}: {error}", folder.display()))?;
    for entry in entries {
        let path = entry
            .map_err(|error| format!("cannot list {}: {error}", folder.display()))?
            .path();
        let stale = path.extension().is_some_and(|extension| extension == "js")
            && !modules.iter().any(|module| {
                path.file_name()
                    .is_some_and(|name| name == module.file_name)
            });
        if stale {
            std::fs::remove_file(&path)
                .map_err(|error| format!("cannot remove {}: {error}", path.display()))?;
        }
    }
    for module in &modules {
        let path = folder.join(module.file_name);
        std::fs::write(&path, &module.text)
            .map_err(|error| format!("cannot write {}: {error}", path.display()))?;
    }
    Ok(())
}

fn fact_layout_module() -> GeneratedModule {
    use facts::*;
    module(
        "fact-layout.js",
        "crates/allwright-ax-wasm/src/facts.rs",
        &[
            "The layout of the DOM facts that the content script's gatherer (tree/facts.js) writes",
            "and the core reads. Each constant is the one of the same name in facts.rs, which",
            "documents it; FACTS_VERSION changes with the layout, so that a content script and a",
            "core from different builds refuse each other. A module without imports, so that the",
            "node unit tests load it without a page.",
        ],
        &[
            Export::Number("FACTS_VERSION", FACTS_VERSION),
            Export::Number("NODE_STRIDE", count(NODE_STRIDE)),
            Export::Bits("KIND_MASK", KIND_MASK),
            Export::Number("KIND_DOCUMENT", KIND_DOCUMENT),
            Export::Number("KIND_ELEMENT", KIND_ELEMENT),
            Export::Number("KIND_TEXT", KIND_TEXT),
            Export::Number("KIND_SHADOW_ROOT", KIND_SHADOW_ROOT),
            Export::Number("NAMESPACE_SHIFT", NAMESPACE_SHIFT),
            Export::Number("NAMESPACE_HTML", NAMESPACE_HTML),
            Export::Number("NAMESPACE_SVG", NAMESPACE_SVG),
            Export::Number("NAMESPACE_MATHML", NAMESPACE_MATHML),
            Export::Number("NAMESPACE_OTHER", NAMESPACE_OTHER),
            Export::Number("DISPLAY_SHIFT", DISPLAY_SHIFT),
            Export::Number("DISPLAY_NONE", DISPLAY_NONE),
            Export::Number("DISPLAY_CONTENTS", DISPLAY_CONTENTS),
            Export::Number("DISPLAY_INLINE_LEVEL", DISPLAY_INLINE_LEVEL),
            Export::Number("DISPLAY_OTHER_BOX", DISPLAY_OTHER_BOX),
            Export::Number("VISIBILITY_SHIFT", VISIBILITY_SHIFT),
            Export::Number("VISIBILITY_VISIBLE", VISIBILITY_VISIBLE),
            Export::Number("VISIBILITY_HIDDEN", VISIBILITY_HIDDEN),
            Export::Number("VISIBILITY_COLLAPSE", VISIBILITY_COLLAPSE),
            Export::Bits("TWO_BIT_CODE_MASK", TWO_BIT_CODE_MASK),
            Export::Bits("CONTENT_VISIBILITY_HIDDEN", CONTENT_VISIBILITY_HIDDEN),
            Export::Bits("POINTER_EVENTS_NONE", POINTER_EVENTS_NONE),
            Export::Bits("HAS_BOX", HAS_BOX),
            Export::Bits("CHECKED", CHECKED),
            Export::Bits("INDETERMINATE", INDETERMINATE),
            Export::Bits("OPTION_SELECTED", OPTION_SELECTED),
            Export::Bits("FILES_ATTACHED", FILES_ATTACHED),
            Export::Bits("DISABLED", DISABLED),
            Export::Bits("BOXES_UNMEASURED", BOXES_UNMEASURED),
            Export::Bits("POINTER_EVENTS_UNREAD", POINTER_EVENTS_UNREAD),
            Export::Bits("GENERATED_CONTENT_POSSIBLE", GENERATED_CONTENT_POSSIBLE),
            Export::Bits("UNREAD_CLOSED_SHADOW_ROOT", UNREAD_CLOSED_SHADOW_ROOT),
            Export::Number("TEXT_TRANSFORM_SHIFT", TEXT_TRANSFORM_SHIFT),
            Export::Number("TEXT_TRANSFORM_NONE", TEXT_TRANSFORM_NONE),
            Export::Number("TEXT_TRANSFORM_UPPERCASE", TEXT_TRANSFORM_UPPERCASE),
            Export::Number("TEXT_TRANSFORM_LOWERCASE", TEXT_TRANSFORM_LOWERCASE),
            Export::Number("TEXT_TRANSFORM_CAPITALIZE", TEXT_TRANSFORM_CAPITALIZE),
            Export::Bits("SCROLL_CONTAINER", SCROLL_CONTAINER),
            Export::Bits("CURSOR_POINTER", CURSOR_POINTER),
            Export::Bits("ATOMIC_INLINE", ATOMIC_INLINE),
            Export::Bits("HAS_CLICK_LISTENER", HAS_CLICK_LISTENER),
            Export::Text("STRING_SEPARATOR", STRING_SEPARATOR.to_string()),
        ],
    )
}

fn line_record_layout_module() -> GeneratedModule {
    module(
        "line-record-layout.js",
        "crates/allwright-ax/src/tree_diff.rs",
        &[
            "The flat encoding of a tree read's line records (`encode_records` in tree_diff.rs):",
            "LINE_RECORD_WIDTH numbers per printed line (identity, depth word, the hash's low and",
            "high halves, reference number). The depth word holds the depth in its low bits",
            "(LINE_DEPTH_MASK) and a flag in each of its top three. The core writes the records;",
            "the content script keeps them for reads since a snapshot (tree/snapshots.js) and the",
            "worker route packs them (shared/line-records.js).",
        ],
        &[
            Export::Number("LINE_RECORD_WIDTH", count(tree_diff::RECORD_WIDTH)),
            Export::Bits("LINE_OVERLAY_BIT", tree_diff::OVERLAY_BIT),
            Export::Bits(
                "LINE_NAME_LEFT_TO_FIRST_CHILD_BIT",
                tree_diff::NAME_LEFT_TO_FIRST_CHILD_BIT,
            ),
            Export::Bits("LINE_TEXT_RUN_BIT", tree_diff::TEXT_RUN_BIT),
            Export::Bits("LINE_DEPTH_MASK", tree_diff::DEPTH_MASK),
        ],
    )
}

fn marker_attributes_module() -> GeneratedModule {
    let mut exports = vec![Export::Text(
        "MARKER_ATTRIBUTE_PREFIX",
        MARKER_ATTRIBUTE_PREFIX.to_owned(),
    )];
    exports.extend(
        MARKER_ATTRIBUTES
            .iter()
            .map(|(name, attribute)| Export::Text(name, (*attribute).to_owned())),
    );
    module(
        "marker-attributes.js",
        "src/marker_attributes.rs",
        &[
            "The attributes allwright itself sets on page elements for a moment, each with a random",
            "marker that one side sets and the other looks for; marker_attributes.rs says which side",
            "does what. Every one starts with MARKER_ATTRIBUTE_PREFIX.",
        ],
        &exports,
    )
}

fn key_names_module() -> GeneratedModule {
    module(
        "key-names.js",
        "src/tools/keys.rs",
        &[
            "press_key's tables of KeyboardEvent key values (UI Events KeyboardEvent key Values,",
            "https://www.w3.org/TR/uievents-key/), with which both argument validators correct a",
            "misspelt key: COMMON_NAMED_KEYS corrects a name given in the wrong case, KEY_SPELLINGS",
            "maps other spellings to key values. Both compare ignoring ASCII case only.",
        ],
        &[
            Export::TextList("COMMON_NAMED_KEYS", COMMON_NAMED_KEYS),
            Export::TextPairs("KEY_SPELLINGS", KEY_SPELLINGS),
        ],
    )
}

/// A count of the Rust side (`usize`) as a JS number; the layouts' counts are single digits.
fn count(value: usize) -> u32 {
    u32::try_from(value).unwrap_or(u32::MAX)
}

/// A module's text: the header, then one export per line (a list's items one per line, so that
/// a change to a table diffs as the lines it changes).
fn module(
    file_name: &'static str,
    source: &str,
    about: &[&str],
    exports: &[Export],
) -> GeneratedModule {
    let mut text = String::from("// @ts-check\n");
    text.push_str(&format!(
        "// Generated from {source}; do not edit. A host test fails when this file is not what\n\
         // the generator writes; rewrite it with `{REGENERATE_COMMAND}`.\n//\n"
    ));
    for line in about {
        text.push_str(&format!("// {line}\n"));
    }
    text.push('\n');
    for export in exports {
        match export {
            Export::Number(name, value) => {
                text.push_str(&format!("export const {name} = {value};\n"));
            }
            Export::Bits(name, value) => {
                text.push_str(&format!("export const {name} = {value:#x};\n"));
            }
            Export::Text(name, value) => {
                text.push_str(&format!("export const {name} = {};\n", js_string(value)));
            }
            Export::TextList(name, values) => {
                text.push_str(&format!("export const {name} = Object.freeze([\n"));
                for value in *values {
                    text.push_str(&format!("  {},\n", js_string(value)));
                }
                text.push_str("]);\n");
            }
            Export::TextPairs(name, pairs) => {
                text.push_str(&format!(
                    "export const {name} = Object.freeze(\n  /** @type {{[string, string][]}} */ ([\n"
                ));
                for (first, second) in *pairs {
                    text.push_str(&format!(
                        "    [{}, {}],\n",
                        js_string(first),
                        js_string(second)
                    ));
                }
                text.push_str("  ]),\n);\n");
            }
        }
    }
    GeneratedModule { file_name, text }
}

/// A JS string literal: double quotes, and every character outside printable ASCII, the quote
/// and the backslash as an escape, so that the module reads the same in any editor.
fn js_string(value: &str) -> String {
    let mut literal = String::from("\"");
    for unit in value.encode_utf16() {
        match unit {
            0x22 => literal.push_str("\\\""),
            0x5c => literal.push_str("\\\\"),
            0x20..=0x7e => literal.push(char::from(unit as u8)),
            _ => literal.push_str(&format!("\\u{unit:04x}")),
        }
    }
    literal.push('"');
    literal
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_separator_is_written_as_an_escape() {
        assert!(fact_layout_module()
            .text
            .contains("export const STRING_SEPARATOR = \"\\u007f\";\n"));
    }

    #[test]
    fn strings_are_written_as_js_literals() {
        assert_eq!(js_string("Enter"), "\"Enter\"");
        assert_eq!(js_string(" "), "\" \"");
        assert_eq!(js_string("a\"b\\c"), "\"a\\\"b\\\\c\"");
        assert_eq!(
            js_string("\u{7f}\u{e9}\u{1f600}"),
            "\"\\u007f\\u00e9\\ud83d\\ude00\""
        );
    }

    #[test]
    fn flags_stay_positive_and_every_module_is_listed_once() {
        let layout = line_record_layout_module().text;
        assert!(layout.contains("export const LINE_OVERLAY_BIT = 0x80000000;\n"));
        assert!(layout.contains("export const LINE_DEPTH_MASK = 0x1fffffff;\n"));
        let names: Vec<&str> = generated_modules()
            .iter()
            .map(|module| module.file_name)
            .collect();
        let mut distinct = names.clone();
        distinct.dedup();
        assert_eq!(names, distinct);
        assert_eq!(names.len(), 4);
    }
}
