//! docs/protocol/host-safety.md, "Bounds and deadlines": each hop's deadline exceeds the budget it waits on.
//! The MCP server waits W (the table's HostWait), the host answers `timeout` before W, the
//! background's call deadline before the host's, and each background step's own budget
//! (extension/background/host/budgets.js, read here as data through node) before that.

use std::path::Path;
use std::time::Duration;

use serde_json::Value;

use super::definition::ArgumentKind;
use super::table::TOOLS;
use crate::relay::deadlines_for_client_wait;

/// The background's declared budgets, as budgets.js exports them.
fn background_budgets() -> serde_json::Map<String, Value> {
    let module = Path::new(env!("CARGO_MANIFEST_DIR")).join("extension/background/host/budgets.js");
    let output = std::process::Command::new("node")
        .args([
            "--input-type=module",
            "-e",
            "import { pathToFileURL } from 'node:url'; const budgets = await import(pathToFileURL(process.argv[1]).href); console.log(JSON.stringify(budgets.TOOL_BUDGETS));",
        ])
        .arg(&module)
        .output()
        .expect("node runs (it builds the extension too)");
    assert!(
        output.status.success(),
        "node could not read budgets.js: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice::<Value>(&output.stdout)
        .expect("budgets as JSON")
        .as_object()
        .cloned()
        .expect("an object of budgets")
}

/// The tools the background's router serves (extension/background/tools/tools.js, the TOOLS map).
fn background_tools() -> Vec<String> {
    let source = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("extension/background/tools/tools.js"),
    )
    .expect("tools.js");
    let start = source
        .find("const TOOLS = Object.freeze({")
        .expect("the TOOLS map");
    let body = &source[start..];
    let body = &body[body.find('{').expect("map") + 1..body.find("});").expect("map end")];
    body.lines()
        .filter_map(|line| {
            let name = line.trim().split([':', ',']).next()?.trim();
            (!name.is_empty() && !name.starts_with("//")).then(|| name.to_owned())
        })
        .collect()
}

#[test]
fn the_mcp_waits_exceed_the_background_budgets() {
    let budgets = background_budgets();
    let mut served = background_tools();
    served.sort();
    let mut declared: Vec<String> = budgets.keys().cloned().collect();
    declared.sort();
    assert_eq!(
        served, declared,
        "every tool the background serves has a budget in budgets.js, and only those"
    );
    for (name, budget) in &budgets {
        let tool = TOOLS
            .iter()
            .find(|tool| tool.name == name.as_str())
            .unwrap_or_else(|| panic!("{name} is in budgets.js but not in the tool table"));
        // Every timeoutMs the tool accepts: its smallest, its default and its largest.
        let timeouts: Vec<Option<i64>> = match tool.argument("timeoutMs") {
            Some(argument) => match argument.kind {
                ArgumentKind::Integer { minimum, maximum } => {
                    let default = argument
                        .default
                        .and_then(|default| default.to_value().as_i64())
                        .expect("a default timeoutMs");
                    vec![Some(minimum), Some(default), Some(maximum)]
                }
                _ => panic!("{name}: timeoutMs is an integer"),
            },
            None => vec![None],
        };
        for timeout_ms in timeouts {
            let arguments = match timeout_ms {
                Some(value) => serde_json::json!({ "timeoutMs": value }),
                None => serde_json::json!({}),
            };
            let mcp_wait = tool.host_wait(&arguments);
            let (host_deadline, background_deadline) =
                deadlines_for_client_wait(Some(mcp_wait.as_millis() as u64));
            let step_budget = match (budget.get("fixedMs"), budget.get("timeoutPlusMs")) {
                (Some(fixed), None) => fixed.as_u64().expect("fixedMs"),
                (None, Some(plus)) => {
                    let timeout = timeout_ms.unwrap_or_else(|| {
                        panic!(
                            "{name}: timeoutPlusMs in budgets.js, but the tool takes no timeoutMs"
                        )
                    });
                    timeout as u64 + plus.as_u64().expect("timeoutPlusMs")
                }
                _ => panic!("{name}: a budget is fixedMs or timeoutPlusMs: {budget}"),
            };
            let step_budget = Duration::from_millis(step_budget);
            assert!(
                mcp_wait > host_deadline
                    && host_deadline > background_deadline
                    && background_deadline > step_budget,
                "{name} with timeoutMs {timeout_ms:?}: MCP {mcp_wait:?} > host {host_deadline:?} > background {background_deadline:?} > its longest step {step_budget:?} does not hold"
            );
        }
    }
}
