//! `allwright mcp --input synthetic|trusted`: which input path the action tools take
//! (docs/agent-tools.md, "Input modes"; docs/protocol/browser-bridge.md, "Input modes").
//!
//! - `trusted` (the default when the server holds a WebDriver BiDi session on the browser, with
//!   `--launch` or `--webdriver`): click_ax, iframe_click and hover are real pointer input sent
//!   over BiDi (`input.performActions`, src/browser_bridge/input.rs), events the page sees with
//!   `isTrusted: true`, hit-tested like a person's click; press_key in the top document is real
//!   key input (src/browser_bridge/keys.rs).
//! - `synthetic`: every action tool runs the extension's own input (the event sequences of
//!   extension/content/actions/), as it does in the user's own browser. The user's own browser
//!   has no BiDi session, so it only ever has this path, and `--input trusted` is refused there
//!   rather than silently ignored.
//!
//! Every result of an input tool says which path ran in its `input` field, so that an agent
//! (and the widget matrix of tests/extension/widgets.rs) can check it.

use serde_json::Value;

/// The two input paths.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum InputMode {
    /// The extension's own DOM events, in every browser.
    Synthetic,
    /// Real input through WebDriver BiDi, for the tools that have it.
    Trusted,
}

impl InputMode {
    pub fn name(self) -> &'static str {
        match self {
            InputMode::Synthetic => "synthetic",
            InputMode::Trusted => "trusted",
        }
    }

    /// The mode of a session: what the command line asked for, checked against whether the
    /// server holds a BiDi session (`has_bridge`). Without one only the synthetic path exists.
    pub fn for_session(requested: Option<InputMode>, has_bridge: bool) -> Result<Self, String> {
        match (requested, has_bridge) {
            (Some(InputMode::Trusted), false) => Err(
                "--input trusted needs a browser that allwright drives over WebDriver BiDi \
                 (--launch or --webdriver); the user's own browser only takes the extension's \
                 synthetic input: leave --input out, or say --input synthetic"
                    .into(),
            ),
            (Some(mode), _) => Ok(mode),
            (None, true) => Ok(InputMode::Trusted),
            (None, false) => Ok(InputMode::Synthetic),
        }
    }
}

/// The tools that send input to a page: their results carry `input`. Reads, navigation, tab
/// tools and execute_js send none.
const INPUT_TOOLS: &[&str] = &[
    "click_ax",
    "iframe_click",
    "hover",
    "drag",
    "type_ax",
    "iframe_type",
    "set_field",
    "select_option",
    "fill_form",
    "upload_file",
    "press_key",
    "scroll",
];

/// The name of the result field.
pub const INPUT_FIELD: &str = "input";

/// Adds `input: "synthetic"` to the result of an input tool that no other path labelled: the
/// browser bridge sets `input: "trusted"` on the results of the real input it sent, and any
/// other input tool result comes from the extension's own input.
pub fn label_result(tool: &str, result: &mut Value) {
    if !INPUT_TOOLS.contains(&tool) {
        return;
    }
    if let Some(object) = result.as_object_mut() {
        object
            .entry(INPUT_FIELD)
            .or_insert_with(|| Value::from(InputMode::Synthetic.name()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn trusted_is_the_default_with_a_bridge_and_synthetic_without() {
        assert_eq!(InputMode::for_session(None, true), Ok(InputMode::Trusted));
        assert_eq!(
            InputMode::for_session(None, false),
            Ok(InputMode::Synthetic)
        );
        assert_eq!(
            InputMode::for_session(Some(InputMode::Synthetic), true),
            Ok(InputMode::Synthetic)
        );
        assert_eq!(
            InputMode::for_session(Some(InputMode::Synthetic), false),
            Ok(InputMode::Synthetic)
        );
    }

    #[test]
    fn trusted_input_without_a_bridge_is_refused_with_the_way_out() {
        let error = InputMode::for_session(Some(InputMode::Trusted), false)
            .expect_err("trusted input needs a bridge");
        assert!(error.contains("--launch or --webdriver"), "{error}");
        assert!(error.contains("--input synthetic"), "{error}");
    }

    #[test]
    fn only_input_tools_are_labelled_and_a_trusted_label_is_kept() {
        let mut clicked = json!({"success": true});
        label_result("click_ax", &mut clicked);
        assert_eq!(clicked["input"], "synthetic");
        let mut real = json!({"success": true, "input": "trusted"});
        label_result("click_ax", &mut real);
        assert_eq!(real["input"], "trusted");
        let mut tree = json!({"tree": ""});
        label_result("get_accessibility_tree", &mut tree);
        assert!(tree.get("input").is_none());
    }
}
