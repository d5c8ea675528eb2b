//! Runs the glue's operations over the in-memory DOM and prints their output, so that the
//! browser smoke test (`tests/browser/wasm-smoke.mjs`) can compare what the core says natively
//! with what it says in the page for the same HTML.
//!
//! `cargo run -p allwright-ax-wasm --example native_tree -- PAGE.html text [FILTER]`
//! `cargo run -p allwright-ax-wasm --example native_tree -- PAGE.html json|yaml`
//!
//! Prints the operation's output string: the envelope line, then the body.

use std::process::ExitCode;

use allwright_ax::memdom::MemDom;
use allwright_ax_wasm::api::{
    snapshot_document_output, text_tree_output, SnapshotRequest, TextTreeRequest,
};

fn main() -> ExitCode {
    match try_main() {
        Ok(output) => {
            print!("{output}");
            ExitCode::SUCCESS
        }
        Err(message) => {
            eprintln!("native_tree: {message}");
            ExitCode::from(2)
        }
    }
}

fn try_main() -> Result<String, String> {
    let arguments: Vec<String> = std::env::args().skip(1).collect();
    let [path, operation, rest @ ..] = arguments.as_slice() else {
        return Err("usage: native_tree PAGE.html text [FILTER] | json | yaml".to_string());
    };
    let html =
        std::fs::read_to_string(path).map_err(|error| format!("cannot read {path}: {error}"))?;
    let dom = MemDom::parse(&html);
    Ok(match operation.as_str() {
        "text" => text_tree_output(
            &dom,
            &TextTreeRequest {
                filter: rest.first().map_or("all", String::as_str),
                ..TextTreeRequest::whole_page()
            },
        ),
        format => snapshot_document_output(
            &dom,
            &SnapshotRequest {
                format,
                context_id: "native",
                parent_context_id: None,
                url: "",
                title: "",
                ai: None,
            },
        ),
    })
}
