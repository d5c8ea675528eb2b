//! Real key input for press_key in a browser the server holds a BiDi session on, in trusted
//! mode (docs/protocol/browser-bridge.md, "Input modes"). As with the pointer input of `input.rs`, the
//! extension observes: it begins the key press (`bridge_begin_input` with kind "key": the target
//! focused when ref_id names one, the same before-state as the synthetic press_key), the server
//! sends the key with its modifiers as WebDriver BiDi key input (`Page::press`:
//! `input.performActions`, a key source) to the tab, where it reaches the focused element, and
//! the extension finishes (`bridge_finish_input`: the evidence as for the synthetic key, no
//! `defaultAction` since the browser performed the key's default action itself).

use std::sync::Arc;
use std::time::Duration;

use allwright_surface_web::page::keys::parse_key_chord;
use allwright_surface_web::Page;
use serde_json::{json, Value};

use crate::host_client::HostClient;
use crate::tool_error::{codes, ToolError};

use super::input::real_input_error;
use super::{BrowserBridge, TargetTab};

/// How long beginning the key press may take.
const KEY_STEP_TIMEOUT: Duration = Duration::from_secs(20);

/// The key chord press_key's arguments name (`"Control+a"`, `"Enter"`), when real key input can
/// send it: a key of the top document (a child frame's focus is the frame's own business, so a
/// key for a `frameId` other than 0 stays the extension's), and a key the WebDriver key table
/// knows (an unknown key name, which the extension may still dispatch, stays the extension's too).
pub fn real_key_chord(arguments: &Value) -> Option<String> {
    if arguments
        .get("frameId")
        .and_then(Value::as_i64)
        .is_some_and(|frame| frame != 0)
    {
        return None;
    }
    let key = arguments.get("key")?.as_str()?;
    let mut parts: Vec<&str> = arguments
        .get("modifiers")
        .and_then(Value::as_array)
        .map(|names| names.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    parts.push(key);
    let chord = parts.join("+");
    parse_key_chord(&chord).ok().map(|_| chord)
}

impl BrowserBridge {
    /// Whether the one element carrying `marker` in the tab holds its document's focus.
    async fn marked_element_holds_focus(
        &self,
        tab_context: &str,
        marker: &str,
    ) -> Result<bool, ToolError> {
        let Some(element) = self.marked_element(tab_context, marker).await? else {
            return Ok(false);
        };
        Page::new(self.bidi(), tab_context)
            .frame(&element.context)
            .holds_focus(&element.element)
            .await
            .map_err(|error| {
                ToolError::element_operation_failed(error.tool_error_code(), error.to_string())
            })
    }

    /// Runs press_key with real key input in the tab `tab_context`.
    pub(super) async fn key_input(
        &self,
        host: &Arc<HostClient>,
        target: &TargetTab,
        tab_context: &str,
        chord: &str,
        arguments: &Value,
        timeout: Duration,
    ) -> Result<Value, ToolError> {
        let begin_arguments = json!({
            "tabId": target.tab_id,
            "frameId": arguments.get("frameId"),
            "ref_id": arguments.get("ref_id"),
            "kind": "key",
            "key": arguments["key"],
            "modifiers": arguments.get("modifiers").cloned().unwrap_or_else(|| json!([])),
        });
        let begun = self
            .unless_prompt_blocks(
                target,
                host.call("bridge_begin_input", begin_arguments, KEY_STEP_TIMEOUT),
            )
            .await?;
        let (Some(token), Some(marker)) = (
            begun["token"].as_str().map(str::to_owned),
            begun["marker"].as_str(),
        ) else {
            return Err(ToolError::script_failed(format!(
                "the extension began the key press without a token and marker: {begun}"
            )));
        };
        // The marker is interpolated into a selector: only the 32 hex digits the content script
        // makes are accepted.
        if marker.len() != 32 || !marker.bytes().all(|byte| byte.is_ascii_hexdigit()) {
            self.abort_input(host, &token).await;
            return Err(ToolError::script_failed(format!(
                "the extension's marker {marker:?} is not 32 hex digits"
            )));
        }
        // Key input goes to whatever holds focus when it arrives. The extension marked the
        // element it focused (or that held focus); when the page has moved focus elsewhere since
        // (a focus handler that sends it to another field), or the element is out of BiDi's
        // reach (a closed shadow root), no real key is sent: the extension's own press_key,
        // which dispatches on the element itself, runs instead, and says so.
        if !self
            .unless_prompt_blocks(target, self.marked_element_holds_focus(tab_context, marker))
            .await?
        {
            self.abort_input(host, &token).await;
            let mut result = self
                .unless_prompt_blocks(target, host.call("press_key", arguments.clone(), timeout))
                .await?;
            if let Some(hints) = result.get_mut("hints").and_then(Value::as_array_mut) {
                hints.push(json!("real key input was not sent: the element did not hold focus when the key was due (or BiDi could not reach it), so the extension's synthetic key was used"));
            }
            return Ok(result);
        }
        let page = Page::new(self.bidi(), tab_context);
        let sent = self
            .unless_prompt_blocks(target, async {
                page.press(chord)
                    .await
                    .map_err(|error| real_input_error("press_key", &error))
            })
            .await;
        if let Err(error) = sent {
            if error.code == codes::DIALOG_OPEN {
                // The key opened a prompt (Enter submitting a form that confirms): the input is
                // released and the observation ended once handle_dialog answered it.
                self.remember_interrupted(tab_context, &token);
            } else {
                self.abort_input(host, &token).await;
            }
            return Err(error);
        }
        self.finish_sent_input(host, target, tab_context, &token, "press_key", timeout)
            .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn top_document_keys_the_webdriver_table_knows_are_sent_for_real() {
        assert_eq!(
            real_key_chord(&json!({"key": "Enter"})).as_deref(),
            Some("Enter")
        );
        assert_eq!(
            real_key_chord(&json!({"key": "a", "modifiers": ["Control", "Shift"], "frameId": 0}))
                .as_deref(),
            Some("Control+Shift+a")
        );
        assert_eq!(
            real_key_chord(&json!({"key": "+", "modifiers": ["Shift"]})).as_deref(),
            Some("Shift++")
        );
    }

    #[test]
    fn child_frames_and_unknown_keys_stay_synthetic() {
        assert_eq!(real_key_chord(&json!({"key": "Enter", "frameId": 3})), None);
        assert_eq!(real_key_chord(&json!({"key": "NoSuchKey"})), None);
    }
}
