//! The host's argument validator runs the conformance cases the extension's runs too
//! (tests/cases/tool-arguments.json; extension/background/tools/validate.js, through
//! tests/browser/unit/tool-arguments.test.mjs): both stand at a trust boundary, and a call one of
//! them accepts and the other refuses is a bug in one of them.

use serde_json::Value;

use super::table::TOOLS;

/// The shared cases: `{tool, arguments, expect: "ok" | error code, suggestions?, why?}`.
fn conformance_cases() -> Vec<Value> {
    let file: Value = serde_json::from_str(include_str!("../../tests/cases/tool-arguments.json"))
        .expect("tests/cases/tool-arguments.json is JSON");
    file["cases"].as_array().expect("a list of cases").clone()
}

#[test]
fn every_case_gets_the_answer_the_extension_gives() {
    let mut disagreements = Vec::new();
    for case in conformance_cases() {
        let name = case["tool"].as_str().expect("a tool name");
        let tool = TOOLS
            .iter()
            .find(|tool| tool.name == name)
            .unwrap_or_else(|| panic!("{name} is a tool of the table"));
        let call = format!("{name}({})", case["arguments"]);
        let expected = case["expect"].as_str().expect("an expected answer");
        let outcome = tool.validate(case["arguments"].as_object());
        let answer = match &outcome {
            Ok(_) => "ok".to_owned(),
            Err(error) => error.code.to_string(),
        };
        if answer != expected {
            let said = outcome.err().map(|error| error.message).unwrap_or_default();
            disagreements.push(format!(
                "{call} [{}]: expected {expected}, got {answer} {said}",
                case["why"].as_str().unwrap_or_default()
            ));
            continue;
        }
        if let (Some(wanted), Err(error)) = (case.get("suggestions"), &outcome) {
            let suggested = Value::Array(error.suggestions.clone().unwrap_or_default());
            if &suggested != wanted {
                disagreements.push(format!(
                    "{call}: expected suggestions {wanted}, got {suggested}"
                ));
            }
        }
    }
    assert!(
        disagreements.is_empty(),
        "the host's validator disagrees with tests/cases/tool-arguments.json:\n{}",
        disagreements.join("\n")
    );
}

#[test]
fn every_tool_has_an_accepted_and_a_refused_case() {
    let cases = conformance_cases();
    let has_case = |tool: &str, accepted: bool| {
        cases
            .iter()
            .any(|case| case["tool"] == tool && (case["expect"] == "ok") == accepted)
    };
    let uncovered: Vec<&str> = TOOLS
        .iter()
        .map(|tool| tool.name)
        .filter(|name| !has_case(name, true) || !has_case(name, false))
        .collect();
    assert!(
        uncovered.is_empty(),
        "tools without an accepted and a refused case: {uncovered:?}"
    );
}
