//! Reads the core's built-in page (about 11,000 nodes, crates/allwright-ax-wasm/src/warm_up.rs)
//! the given number of times over the fact format, as a text-tree read does, and prints the time
//! per read: a native target for profilers (docs/performance/strict-csp.md, "The core's escapes and
//! allocations"), for example
//!
//! `cargo build --release --example read_built_in_page -p allwright-ax-wasm`, then
//! `valgrind --tool=callgrind target/release/examples/read_built_in_page 5` (instructions) or
//! `perf record --call-graph dwarf target/release/examples/read_built_in_page 60`.
//!
//! Not a benchmark of the browser: the core runs there as WASM, on V8, after the gatherer.

use std::process::ExitCode;
use std::time::Instant;

use allwright_ax_wasm::facts::NoPseudoContent;
use allwright_ax_wasm::warm_up::warm_up;

fn main() -> ExitCode {
    let argument = std::env::args().nth(1);
    let rounds = match argument.as_deref().map(str::parse::<u32>) {
        None => 50,
        Some(Ok(rounds)) if rounds > 0 => rounds,
        Some(_) => {
            eprintln!("read_built_in_page: the argument is the number of reads, at least 1");
            return ExitCode::from(2);
        }
    };
    let start = Instant::now();
    let lines = warm_up(rounds, || NoPseudoContent);
    let per_read = start.elapsed().as_secs_f64() * 1000.0 / f64::from(rounds);
    if lines == 0 {
        eprintln!("read_built_in_page: the built-in page did not read");
        return ExitCode::FAILURE;
    }
    println!("{rounds} reads of the built-in page, {lines} lines each: {per_read:.2} ms per read");
    ExitCode::SUCCESS
}
