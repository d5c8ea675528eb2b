//! Real pointer input for click_ax and hover in a browser the server holds a BiDi session on
//! (docs/protocol.md, "The browser bridge"). The extension still observes: it begins the action
//! (`bridge_begin_input`: the target resolved from its ref, scrolled into view, the same
//! observers as the synthetic action, and a random marker attribute on the element), the server
//! finds the marked element with a BiDi sandbox query, hit-tests its centre and sends the
//! pointer input (`Page::click`/`Page::hover`: `input.performActions`), and the extension
//! finishes (`bridge_finish_input`: the marker removed, the evidence and outcome computed as for
//! the synthetic action, `method: "bidi"`). Every path that does not finish aborts
//! (`bridge_abort_input`), which removes the marker; the content script also removes it by
//! itself after a few seconds.

use std::sync::Arc;
use std::time::Duration;

use allwright_surface_web::page::ElementInContext;
use allwright_surface_web::{Page, PageError, QueryOptions};
use serde_json::{json, Value};

use crate::host_client::HostClient;
use crate::input_mode::{InputMode, INPUT_FIELD};
use crate::tool_error::ToolError;

use super::{BrowserBridge, InterruptedInput, TargetTab};

/// The attribute the content script sets (extension/content/actions/external-input.js).
pub(super) const INPUT_MARKER_ATTRIBUTE: &str = "data-allwright-input";
/// How long beginning, aborting and the pointer input itself may take.
const INPUT_STEP_TIMEOUT: Duration = Duration::from_secs(20);

/// What became of the pointer input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum PointerInput {
    Sent,
    /// No document of the tab that BiDi can query holds the marked element: it is in a closed
    /// shadow root (which only the extension's content script can open), or the page replaced
    /// or unmarked it. Nothing was sent.
    TargetUnreachable,
}

/// Which pointer action.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PointerAction {
    Click,
    Hover,
}

impl PointerAction {
    pub fn for_tool(tool: &str) -> Option<Self> {
        match tool {
            // iframe_click is click_ax in a named frame (docs/protocol.md, "Frames"): the same
            // real input, aimed by the frame's content script.
            "click_ax" | "iframe_click" => Some(Self::Click),
            "hover" => Some(Self::Hover),
            _ => None,
        }
    }

    fn kind(self) -> &'static str {
        match self {
            Self::Click => "click",
            Self::Hover => "hover",
        }
    }

    /// The agent tool whose own (synthetic) action runs when real input cannot reach the
    /// element, and which errors name.
    fn tool(self) -> &'static str {
        match self {
            Self::Click => "click_ax",
            Self::Hover => "hover",
        }
    }
}

/// The tool error of a failed element operation of real input: `outcome_unknown` once the
/// input was sent (docs/protocol.md, "Nothing done twice"), the operation's own code before
/// (the hit test refused the element, the element went away).
pub(super) fn real_input_error(tool: &str, error: &PageError) -> ToolError {
    match error {
        PageError::InputOutcomeUnknown(cause) => {
            ToolError::input_outcome_unknown(tool, &format!("failed ({cause})"))
        }
        _ => ToolError::element_operation_failed(error.tool_error_code(), error.to_string()),
    }
}

/// What the agent is told when the extension's observation of real input that was sent fails:
/// the input reached the browser, so any failure now but a prompt it opened (`dialog_open`,
/// answered with handle_dialog) is `outcome_unknown`.
pub(super) fn after_input_was_sent(tool: &str, error: ToolError) -> ToolError {
    if error.code == crate::tool_error::codes::DIALOG_OPEN
        || error.code == crate::tool_error::codes::OUTCOME_UNKNOWN
    {
        return error;
    }
    ToolError::input_outcome_unknown(
        tool,
        &format!(
            "observing its effect failed ({}: {})",
            error.code, error.message
        ),
    )
}

impl BrowserBridge {
    /// Runs click_ax or hover with real pointer input in the tab `tab_context`. When BiDi
    /// cannot reach the marked element, the extension's own (synthetic) action runs instead,
    /// and its result says so in `hints`: nothing was sent before, so nothing happens twice.
    pub(super) async fn pointer_input(
        &self,
        host: &Arc<HostClient>,
        target: &TargetTab,
        tab_context: &str,
        action: PointerAction,
        arguments: &Value,
        timeout: Duration,
    ) -> Result<Value, ToolError> {
        let begin_arguments = json!({
            "tabId": target.tab_id,
            "frameId": arguments.get("frameId"),
            "ref_id": arguments["ref_id"],
            "kind": action.kind(),
        });
        let begun = self
            .unless_prompt_blocks(
                target,
                host.call("bridge_begin_input", begin_arguments, INPUT_STEP_TIMEOUT),
            )
            .await?;
        let (Some(token), Some(marker)) = (begun["token"].as_str(), begun["marker"].as_str())
        else {
            return Err(ToolError::script_failed(format!(
                "the extension began the {} without a token and marker: {begun}",
                action.kind()
            )));
        };
        // The marker is interpolated into a selector: only the 32 hex digits the content script
        // makes are accepted.
        if marker.len() != 32 || !marker.bytes().all(|byte| byte.is_ascii_hexdigit()) {
            self.abort_input(host, token).await;
            return Err(ToolError::script_failed(format!(
                "the extension's marker {marker:?} is not 32 hex digits"
            )));
        }
        let token = token.to_owned();
        let sent = self
            .unless_prompt_blocks(target, self.send_pointer_input(tab_context, marker, action))
            .await;
        match sent {
            Ok(PointerInput::TargetUnreachable) => {
                self.abort_input(host, &token).await;
                let mut result = self
                    .unless_prompt_blocks(
                        target,
                        host.call(action.tool(), arguments.clone(), timeout),
                    )
                    .await?;
                if let Some(hints) = result.get_mut("hints").and_then(Value::as_array_mut) {
                    hints.push(json!("real input could not reach the element (a closed shadow root?), so the extension's synthetic input was used"));
                }
                Ok(result)
            }
            Ok(PointerInput::Sent) => {
                let finished = self
                    .unless_prompt_blocks(
                        target,
                        host.call("bridge_finish_input", json!({ "token": token }), timeout),
                    )
                    .await;
                if let Err(error) = &finished {
                    if error.code == crate::tool_error::codes::DIALOG_OPEN {
                        self.remember_interrupted(tab_context, &token);
                    }
                }
                // The result says that real input ran (src/input_mode.rs labels the others).
                finished
                    .map_err(|error| after_input_was_sent(action.tool(), error))
                    .map(|mut result| {
                        if let Some(object) = result.as_object_mut() {
                            object.insert(INPUT_FIELD.into(), json!(InputMode::Trusted.name()));
                        }
                        result
                    })
            }
            Err(error) => {
                if error.code == crate::tool_error::codes::DIALOG_OPEN {
                    // A prompt opened by the click itself: both browsers hold
                    // `input.performActions` until it is answered, and the content script is
                    // blocked with the page. The input is released and the marker removed once
                    // handle_dialog has answered the prompt.
                    self.remember_interrupted(tab_context, &token);
                } else {
                    self.abort_input(host, &token).await;
                }
                Err(error)
            }
        }
    }

    /// Finds the one element carrying `marker` in the tab or its frames and sends the pointer
    /// input to its centre.
    ///
    /// Why a page that moves the marker cannot redirect the input anywhere a person would not
    /// have clicked: the query looks only in this tab's own documents; a marker found on more
    /// than one element is refused; and `Page::click`/`Page::hover` send nothing until the hit
    /// test at the element's centre finds that element (or something inside it) on top, in its
    /// document and in every ancestor document of its frame. So the worst a hostile page can do
    /// is have a visible, uncovered element of its own tab clicked at its centre, which the page
    /// could equally arrange by moving the original element there: nothing covered, nothing in
    /// another tab, nothing outside the page.
    pub(super) async fn send_pointer_input(
        &self,
        tab_context: &str,
        marker: &str,
        action: PointerAction,
    ) -> Result<PointerInput, ToolError> {
        let page = Page::new(self.bidi(), tab_context);
        let Some(element) = self.marked_element(tab_context, marker).await? else {
            return Ok(PointerInput::TargetUnreachable);
        };
        let frame = page.frame(&element.context);
        let outcome = match action {
            PointerAction::Click => frame.click(&element.element).await,
            PointerAction::Hover => frame.hover(&element.element).await,
        };
        outcome.map_err(|error| real_input_error(action.tool(), &error))?;
        Ok(PointerInput::Sent)
    }

    /// The one element carrying `marker` in the tab `tab_context` or its frames (open shadow
    /// roots included), `None` when no document BiDi can query holds it (a closed shadow root, or
    /// a page that removed the marker). A marker found on more than one element is refused: the
    /// page copied it, and the target is ambiguous.
    pub(super) async fn marked_element(
        &self,
        tab_context: &str,
        marker: &str,
    ) -> Result<Option<ElementInContext>, ToolError> {
        let selector = format!("[{INPUT_MARKER_ATTRIBUTE}=\"{marker}\"]");
        let mut found = Page::new(self.bidi(), tab_context)
            .query_all_in_frames(
                &selector,
                QueryOptions {
                    pierce_shadow_roots: true,
                },
            )
            .await
            .map_err(|error| {
                ToolError::element_operation_failed(error.tool_error_code(), error.to_string())
            })?;
        match found.len() {
            0 => Ok(None),
            1 => Ok(Some(found.remove(0))),
            count => Err(ToolError::element_operation_failed(
                "not_actionable",
                format!("the page copied the element's marker to {count} elements, so the target is ambiguous"),
            )),
        }
    }

    /// Removes the marker of an input that will not be finished (best effort: the page may be
    /// gone, and the content script removes it by itself anyway).
    pub(super) async fn abort_input(&self, host: &HostClient, token: &str) {
        let _ = host
            .call(
                "bridge_abort_input",
                json!({ "token": token }),
                INPUT_STEP_TIMEOUT,
            )
            .await;
    }

    pub(super) fn remember_interrupted(&self, tab_context: &str, token: &str) {
        let mut interrupted = self
            .interrupted_inputs
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        interrupted.push(InterruptedInput {
            tab_context: tab_context.to_owned(),
            token: token.to_owned(),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use allwright_surface_web::bidi::BidiErrorKind;
    use allwright_surface_web::BidiError;

    #[test]
    fn a_failure_after_the_input_was_sent_is_outcome_unknown_and_before_keeps_its_code() {
        let timed_out = PageError::InputOutcomeUnknown(BidiError::timeout(
            "input.performActions",
            Duration::from_secs(30),
        ));
        for tool in ["click_ax", "hover", "press_key"] {
            let error = real_input_error(tool, &timed_out);
            assert_eq!(error.code, "outcome_unknown", "{tool}");
            assert_eq!(error.retry_allowed(), Some(false), "{tool}");
        }
        let closed = PageError::InputOutcomeUnknown(BidiError::connection_closed("gone"));
        assert_eq!(
            real_input_error("click_ax", &closed).code,
            "outcome_unknown"
        );
        // Before sending: the hit test and a target that went away keep their codes and hints.
        assert_eq!(
            real_input_error("click_ax", &PageError::NotVisible).code,
            "not_actionable"
        );
        assert_eq!(
            real_input_error("click_ax", &PageError::Detached).code,
            "ref_not_found"
        );
        let not_sent = PageError::Bidi(BidiError::local(BidiErrorKind::Timeout, "timeout", "x"));
        assert_eq!(real_input_error("click_ax", &not_sent).code, "timeout");
    }

    #[test]
    fn an_observation_that_fails_after_the_input_was_sent_is_outcome_unknown() {
        for lost in [
            ToolError::timeout("bridge_finish_input got no answer"),
            ToolError::extension_disconnected(),
            ToolError::script_failed("the page function failed"),
        ] {
            let error = after_input_was_sent("click_ax", lost);
            assert_eq!(error.code, "outcome_unknown");
            assert_eq!(error.retry_allowed(), Some(false));
        }
        let dialog = ToolError::dialog_open(
            "an alert",
            crate::tool_error::OpenDialog {
                kind: "alert".into(),
                message: "Saved".into(),
                default_value: None,
            },
        );
        assert_eq!(after_input_was_sent("click_ax", dialog).code, "dialog_open");
    }
}
