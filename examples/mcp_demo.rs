//! The demo: an MCP client (the official rmcp SDK) starts `allwright mcp --launch chromium
//! --headless`, which launches Chromium with the extension; the client opens the built-in demo
//! page (fixtures/demo/index.html, served on localhost) and prints what an agent gets back.
//!
//! `cargo run --example mcp_demo -- [--browser chromium|firefox] [--filter all|visible|interactive]`
//! (scripts/demo builds everything first).

use std::process::{ExitCode, Stdio};
use std::time::{Duration, Instant};

use rmcp::model::CallToolRequestParams;
use rmcp::transport::TokioChildProcess;
use rmcp::ServiceExt;
use serde_json::{json, Value};

// The demo reads replies as the tests do; it asks for short ones, so `with_verbose` is unused.
#[allow(dead_code)]
#[path = "../tests/support/reply_text.rs"]
mod reply_text;

// The demo shares the tests' fixture server and uses only its file serving.
#[allow(dead_code)]
#[path = "../tests/support/fixture_server.rs"]
mod fixture_server;

#[tokio::main]
async fn main() -> ExitCode {
    match try_main().await {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("demo: {message}");
            ExitCode::FAILURE
        }
    }
}

async fn try_main() -> Result<(), String> {
    let mut browser = "chromium".to_string();
    let mut filter = "all".to_string();
    let mut arguments = std::env::args().skip(1);
    while let Some(argument) = arguments.next() {
        match argument.as_str() {
            "--browser" => {
                browser = arguments
                    .next()
                    .ok_or("--browser needs chromium or firefox")?
            }
            "--filter" => {
                filter = arguments
                    .next()
                    .ok_or("--filter needs all, visible or interactive")?
            }
            other => return Err(format!("unexpected argument {other:?}")),
        }
    }
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let server = fixture_server::FixtureServer::start(&root.join("fixtures"), None)
        .map_err(|error| format!("cannot serve the demo page: {error}"))?;
    let allwright = root.join("target/debug/allwright");
    let mut command = tokio::process::Command::new(&allwright);
    command.args(["mcp", "--launch", &browser, "--headless"]);
    println!(
        "$ {} mcp --launch {browser} --headless",
        allwright.display()
    );
    let (transport, _) = TokioChildProcess::builder(command)
        .stderr(Stdio::inherit())
        .spawn()
        .map_err(|error| {
            format!(
                "cannot start {} (run scripts/build): {error}",
                allwright.display()
            )
        })?;
    let started = Instant::now();
    let client = tokio::time::timeout(Duration::from_secs(60), ().serve(transport))
        .await
        .map_err(|_| "allwright mcp did not start within 60 s".to_string())?
        .map_err(|error| format!("MCP initialisation failed: {error}"))?;
    let tools = client
        .list_tools(Default::default())
        .await
        .map_err(|error| error.to_string())?;
    let names: Vec<String> = tools
        .tools
        .iter()
        .map(|tool| tool.name.to_string())
        .collect();
    println!(
        "MCP session ready in {:.1} s; tools: {}",
        started.elapsed().as_secs_f64(),
        names.join(", ")
    );

    let call = |tool: &'static str, arguments: Value| {
        let request = CallToolRequestParams::new(tool)
            .with_arguments(arguments.as_object().cloned().unwrap_or_default());
        let client = &client;
        async move {
            let result = client
                .call_tool(request)
                .await
                .map_err(|error| format!("{tool}: {error}"))?;
            // Each reply is one text block (docs/protocol/tools.md, "Replies"): read it back into
            // the object it carries.
            let object = reply_text::reply_value(&result);
            if result.is_error == Some(true) {
                return Err(format!("{tool} failed: {object}"));
            }
            Ok::<Value, String>(object)
        }
    };
    let url = server.url("/demo/index.html");
    let opened = call("navigate", json!({"url": url})).await?;
    println!("\n> navigate {url}\n{opened}");
    let started = Instant::now();
    let tree = call("get_accessibility_tree", json!({"filter": filter})).await?;
    let elapsed = started.elapsed();
    println!(
        "\n> get_accessibility_tree {{filter: {filter:?}}} ({:.0} ms)",
        elapsed.as_secs_f64() * 1000.0
    );
    println!("{}", tree["tree"].as_str().unwrap_or(""));
    let mut metadata = tree.clone();
    if let Some(object) = metadata.as_object_mut() {
        object.remove("tree");
    }
    println!("-- {metadata}");
    let snapshot = call("accessibility_snapshot", json!({"format": "yaml"})).await?;
    let yaml = snapshot["snapshot"].as_str().unwrap_or("");
    println!(
        "\n> accessibility_snapshot {{format: \"yaml\"}}: {} documents; first lines:",
        snapshot["documentCount"]
    );
    for line in yaml.lines().take(18) {
        println!("{line}");
    }

    // Acting: the agent fills a field and ticks a box by the refs it just read, then reads the
    // form again to see the result.
    let tree_text = tree["tree"].as_str().unwrap_or("");
    // The field's name is "Name *": the page's CSS adds the asterisk after required labels.
    let name_field =
        find_ref(tree_text, "textbox \"Name").ok_or("the demo tree shows no textbox \"Name *\"")?;
    let typed = call(
        "set_field",
        json!({"ref_id": name_field, "text": "Espresso machine"}),
    )
    .await?;
    println!(
        "\n> set_field {{ref_id: {name_field:?}, text: \"Espresso machine\"}}\n{}",
        action_summary(&typed)
    );
    let terms = find_ref(tree_text, "checkbox \"I accept")
        .ok_or("the demo tree shows no terms checkbox")?;
    let clicked = call("click_ax", json!({"ref_id": terms})).await?;
    println!(
        "\n> click_ax {{ref_id: {terms:?}}}\n{}",
        action_summary(&clicked)
    );
    // The interactive filter does not print the form itself; the whole tree is read then.
    let reread = match find_ref(tree_text, "form \"New product\"") {
        Some(form) => json!({"ref_id": form}),
        None => json!({"filter": filter}),
    };
    let after = call("get_accessibility_tree", reread.clone()).await?;
    println!("\n> get_accessibility_tree {reread}");
    println!("{}", after["tree"].as_str().unwrap_or(""));
    client.cancel().await.map_err(|error| error.to_string())?;
    Ok(())
}

/// The ref on the first tree line that starts with `prefix` (after its indentation).
fn find_ref(tree: &str, prefix: &str) -> Option<String> {
    let line = tree
        .lines()
        .map(str::trim_start)
        .find(|line| line.starts_with(prefix))?;
    let after = line.split(" [ref_").nth(1)?;
    Some(format!("ref_{}", after.split(']').next()?))
}

/// One line per action result: what happened and the evidence.
fn action_summary(result: &Value) -> String {
    let mut summary = format!(
        "progress: {}, evidence: {}, retryAllowed: {}",
        result["progress"], result["evidence"], result["retryAllowed"]
    );
    for key in ["method", "kind", "value", "hint"] {
        if !result[key].is_null() {
            summary.push_str(&format!(", {key}: {}", result[key]));
        }
    }
    summary
}
