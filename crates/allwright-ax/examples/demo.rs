//! Reads an HTML file with the in-memory DOM and prints what an agent gets: the text tree of
//! `get_accessibility_tree` and the structured snapshot.
//!
//! `cargo run -p allwright-ax --example demo -- PAGE.html [--filter all|visible|interactive]
//! [--max-chars N] [--page N] [--format text|json|yaml]`

use std::process::ExitCode;

use allwright_ax::memdom::MemDom;
use allwright_ax::{
    generate_accessibility_tree, snapshot_tree, write_snapshot, Filter, Format, SnapshotDocument,
    TextTreeOptions,
};

fn main() -> ExitCode {
    match try_main() {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("demo: {message}");
            ExitCode::from(2)
        }
    }
}

fn try_main() -> Result<(), String> {
    let mut arguments = std::env::args().skip(1);
    let mut path = None;
    let mut options = TextTreeOptions::default();
    let mut formats = vec!["text".to_string(), "yaml".to_string()];
    while let Some(argument) = arguments.next() {
        let mut value = |flag: &str| arguments.next().ok_or(format!("{flag} needs a value"));
        match argument.as_str() {
            "--filter" => {
                let text = value("--filter")?;
                options.filter = Filter::parse(&text).ok_or(format!(
                    "unknown filter {text:?}: use all, visible or interactive"
                ))?;
            }
            "--max-chars" => options.max_chars = Some(parse_number(&value("--max-chars")?)?),
            "--page" => options.page = parse_number(&value("--page")?)?,
            "--format" => formats = vec![value("--format")?],
            other if path.is_none() && !other.starts_with("--") => path = Some(other.to_string()),
            other => return Err(format!("unexpected argument {other:?}")),
        }
    }
    let path = path.ok_or("give the HTML file to read")?;
    let html =
        std::fs::read_to_string(&path).map_err(|error| format!("cannot read {path}: {error}"))?;
    let dom = MemDom::parse(&html);
    for format in formats {
        match format.as_str() {
            "text" => {
                let tree = generate_accessibility_tree(&dom, None, &options, &mut |node| {
                    format!("ref_{}", node.0)
                })
                .map_err(|error| error.to_string())?;
                println!(
                    "== get_accessibility_tree (filter {}) ==\n{}",
                    options.filter.as_str(),
                    tree.tree
                );
                println!(
                    "-- truncated: {}, hasMore: {}, autoDegraded: {}, page {} of {}{}",
                    tree.truncated,
                    tree.has_more,
                    tree.auto_degraded,
                    tree.page,
                    tree.page_count,
                    tree.notice
                        .map(|notice| format!("\n-- notice: {notice}"))
                        .unwrap_or_default()
                );
            }
            "json" | "yaml" => {
                let (tree, diagnostics) = snapshot_tree(&dom);
                let document = SnapshotDocument {
                    context_id: "demo".to_string(),
                    parent_context_id: None,
                    url: format!("file://{path}"),
                    title: allwright_ax::tree::document_title(&allwright_ax::Context::new(&dom)),
                    tree: &tree,
                };
                let format_kind = Format::parse(&format).ok_or("unknown format")?;
                println!(
                    "\n== accessibility_snapshot (format {format}) ==\n{}",
                    write_snapshot(&[document], format_kind)
                );
                for diagnostic in diagnostics {
                    eprintln!("note: {}", diagnostic.message);
                }
            }
            other => return Err(format!("unknown format {other:?}: use text, json or yaml")),
        }
    }
    Ok(())
}

fn parse_number(text: &str) -> Result<usize, String> {
    text.parse()
        .map_err(|_| format!("{text:?} is not a number"))
}
