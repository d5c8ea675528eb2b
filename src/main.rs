//! The `allwright` binary. Its commands (the MCP server, the native-messaging host, one-shot
//! snapshots, install/uninstall) arrive with the end-to-end issue; today it only explains itself.

use std::process::ExitCode;

fn main() -> ExitCode {
    match try_main(std::env::args().skip(1).collect()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("allwright: {message}");
            ExitCode::from(2)
        }
    }
}

fn try_main(arguments: Vec<String>) -> Result<(), String> {
    match arguments.first().map(String::as_str) {
        None | Some("--help" | "-h" | "help") => {
            println!("allwright {}\n\n{}", env!("CARGO_PKG_VERSION"), USAGE);
            Ok(())
        }
        Some("--version" | "-V") => {
            println!("allwright {}", env!("CARGO_PKG_VERSION"));
            Ok(())
        }
        Some(other) => Err(format!("unknown command {other:?}\n\n{USAGE}")),
    }
}

const USAGE: &str = "\
Usage: allwright [--help | --version]

allwright turns web pages into accessibility trees for AI agents. This build contains the core
engine (crate allwright-ax); the browser extension and the MCP server are not part of it yet.";
