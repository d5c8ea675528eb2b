//! Real pointer input for click_ax, hover and drag in a browser the server holds a BiDi session on
//! (docs/protocol/browser-bridge.md, "The browser bridge"). The extension still observes: it begins the action
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

use allwright_surface_web::page::{DragEnd, ElementInContext};
use allwright_surface_web::{Page, PageError, QueryOptions};
use serde_json::{json, Value};

use crate::host_client::HostClient;
use crate::input_mode::{InputMode, INPUT_FIELD};
use crate::marker_attributes::{DROP_MARKER_ATTRIBUTE, INPUT_MARKER_ATTRIBUTE};
use crate::tool_error::ToolError;

use super::{BrowserBridge, InterruptedInput, TargetTab};

/// The hint of a drag that Firefox would not finish as real input.
const FIREFOX_HTML5_DRAG: &str = "Firefox does not finish an HTML5 drag started by real input (no drop, no dragend), so the extension's synthetic drag and drop events were sent instead; nothing was sent before them";
/// How long beginning, aborting and the pointer input itself may take.
const INPUT_STEP_TIMEOUT: Duration = Duration::from_secs(20);

/// A real drag whose HTML5 drag the browser started and did not end (`nativeDragUnfinished`,
/// from the extension's observation): Firefox 153 does that when the page makes its element
/// draggable only on the press (SortableJS), so the page may be mid-drag and whatever moved may
/// not be its model's. The agent is told so: progress inconclusive, no retry.
fn unfinished_drag_is_inconclusive(result: &mut Value) {
    if result["nativeDragUnfinished"] != json!(true) {
        return;
    }
    let Some(object) = result.as_object_mut() else {
        return;
    };
    object.insert("progress".into(), json!("inconclusive"));
    object.insert("retryAllowed".into(), json!(false));
    object.insert(
        "hint".into(),
        json!("The browser started an HTML5 drag and never finished it (Firefox does not end a drag started by real input): the page may still be mid-drag and its data may not have changed. Do not drag again; reload the page and read it, or use a session with --input synthetic."),
    );
}

/// The hint of a Firefox drag whose press was real input and whose drag events were not.
const FIREFOX_DRAG_AFTER_REAL_PRESS: &str = "the press was real input and made the element an HTML5 drag source; Firefox does not finish an HTML5 drag started by real input, so the extension sent the drag and drop events from that press and the real release ended it unseen";

/// What became of a drag's real input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum DragInput {
    /// Sent; `drag_events_synthetic` when only the press and the release were real input and
    /// the extension sent the HTML5 drag events between them (Firefox).
    Sent { drag_events_synthetic: bool },
    /// An end BiDi cannot reach (as [`PointerInput::TargetUnreachable`]); nothing was sent.
    TargetUnreachable,
}

/// The tool whose real input [`BrowserBridge::send_drag`] sends.
const TOOL_DRAG: &str = "drag";

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
            // iframe_click is click_ax in a named frame (docs/protocol/frames.md, "Frames"): the same
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
/// input was sent (docs/protocol/action-safety.md, "Nothing done twice"), the operation's own code before
/// (the hit test refused the element, the element went away).
pub(crate) fn real_input_error(tool: &str, error: &PageError) -> ToolError {
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
pub(crate) fn after_input_was_sent(tool: &str, error: ToolError) -> ToolError {
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
                self.finish_sent_input(host, target, tab_context, &token, action.tool(), timeout)
                    .await
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

    /// Runs drag with real pointer input in the tab `tab_context`: the extension begins it (both
    /// ends resolved, scrolled into view, described, and marked), the server finds them by
    /// their markers and sends one `input.performActions` (press, moves in steps, release), and
    /// the extension reports what moved. Two cases take the extension's own synthetic drag
    /// instead, decided before anything is sent, so that nothing happens twice: a marked end
    /// BiDi cannot reach (a closed shadow root), and, in Firefox, a source the press would drag
    /// as HTML5 drag and drop (`html5Source`): measured in Firefox 153, a real drag then starts
    /// (dragstart, dragenter, dragover) but never drops nor ends, and the page is left mid-drag.
    /// Chromium 156 (chromium-bidi) performs the whole HTML5 drag from real input. Any other
    /// Firefox drag presses first and asks ([`Self::send_drag`]'s `press_first`), since a
    /// source may become draggable only in the page's own pointerdown handler.
    pub(super) async fn drag_input(
        &self,
        host: &Arc<HostClient>,
        target: &TargetTab,
        tab_context: &str,
        arguments: &Value,
        timeout: Duration,
    ) -> Result<Value, ToolError> {
        const TOOL: &str = "drag";
        let begin_arguments = json!({
            "tabId": target.tab_id,
            "frameId": arguments.get("frameId"),
            "kind": "drag",
            "from_ref": arguments["from_ref"],
            "to_ref": arguments.get("to_ref"),
            "by": arguments.get("by"),
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
                "the extension began the drag without a token and marker: {begun}"
            )));
        };
        let token = token.to_owned();
        if marker.len() != 32 || !marker.bytes().all(|byte| byte.is_ascii_hexdigit()) {
            self.abort_input(host, &token).await;
            return Err(ToolError::script_failed(format!(
                "the extension's marker {marker:?} is not 32 hex digits"
            )));
        }
        let token_for_abort: &str = &token;
        let synthetic_instead = |hint: &'static str| async move {
            self.abort_input(host, token_for_abort).await;
            let mut result = self
                .unless_prompt_blocks(target, host.call(TOOL, arguments.clone(), timeout))
                .await?;
            if let Some(hints) = result.get_mut("hints").and_then(Value::as_array_mut) {
                hints.push(json!(hint));
            }
            Ok::<Value, ToolError>(result)
        };
        let firefox = self.owner.browser_name() == "Firefox";
        if begun["html5Source"].as_bool() == Some(true) && firefox {
            return synthetic_instead(FIREFOX_HTML5_DRAG).await;
        }
        let sent = self
            .unless_prompt_blocks(
                target,
                self.send_drag(host, &token, tab_context, marker, arguments, firefox),
            )
            .await;
        match sent {
            Ok(DragInput::TargetUnreachable) => {
                synthetic_instead("real input could not reach both ends of the drag (a closed shadow root?), so the extension's synthetic drag was used").await
            }
            Ok(DragInput::Sent {
                drag_events_synthetic,
            }) => {
                let mut result = self
                    .finish_sent_input(host, target, tab_context, &token, TOOL, timeout)
                    .await?;
                if drag_events_synthetic {
                    if let Some(hints) = result.get_mut("hints").and_then(Value::as_array_mut) {
                        hints.push(json!(FIREFOX_DRAG_AFTER_REAL_PRESS));
                    }
                }
                unfinished_drag_is_inconclusive(&mut result);
                Ok(result)
            }
            Err(error) => {
                if error.code == crate::tool_error::codes::DIALOG_OPEN {
                    self.remember_interrupted(tab_context, &token);
                } else {
                    self.abort_input(host, &token).await;
                }
                Err(error)
            }
        }
    }

    /// Finds the drag's marked source (and drop target, for `to_ref`) and sends the drag. Both
    /// must be found exactly once, in the same document, or nothing is sent (the same reasons
    /// as [`Self::send_pointer_input`] say why a page that moves a marker gains nothing).
    ///
    /// With `press_first` (Firefox) the press goes alone, then the extension says whether it made
    /// an HTML5 drag source (SortableJS sets `draggable` in its own pointerdown handler): if not,
    /// the moves and the release follow as real input; if so, the extension runs the drag events
    /// itself from that real press and swallows the real release that ends it, since Firefox
    /// would start a native drag from the moves and never drop it.
    async fn send_drag(
        &self,
        host: &Arc<HostClient>,
        token: &str,
        tab_context: &str,
        marker: &str,
        arguments: &Value,
        press_first: bool,
    ) -> Result<DragInput, ToolError> {
        let Some(source) = self.marked_element(tab_context, marker).await? else {
            return Ok(DragInput::TargetUnreachable);
        };
        let page = Page::new(self.bidi(), tab_context);
        let frame = page.frame(&source.context);
        let drop_target = if arguments
            .get("to_ref")
            .is_some_and(|value| !value.is_null())
        {
            let selector = format!("[{DROP_MARKER_ATTRIBUTE}=\"{marker}\"]");
            let mut found = frame
                .query_all(
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
                0 => return Ok(DragInput::TargetUnreachable),
                1 => Some(found.remove(0)),
                count => {
                    return Err(ToolError::element_operation_failed(
                        "not_actionable",
                        format!("the page copied the drop target's marker to {count} elements, so the target is ambiguous"),
                    ))
                }
            }
        } else {
            None
        };
        let offset = |axis: &str| arguments["by"][axis].as_i64().unwrap_or(0);
        let end = match &drop_target {
            Some(element) => DragEnd::OnElement(element),
            None => DragEnd::ByOffset {
                x: offset("x"),
                y: offset("y"),
            },
        };
        if !press_first {
            frame
                .drag(&source.element, end)
                .await
                .map_err(|error| real_input_error(TOOL_DRAG, &error))?;
            return Ok(DragInput::Sent {
                drag_events_synthetic: false,
            });
        }
        let pressed = frame
            .press_for_drag(&source.element, end)
            .await
            .map_err(|error| real_input_error(TOOL_DRAG, &error))?;
        // The button is down from here on: whatever fails now fails after input was sent.
        let asked = host
            .call(
                "bridge_drag_after_press",
                json!({ "token": token }),
                INPUT_STEP_TIMEOUT,
            )
            .await;
        let drag_events_synthetic = match asked {
            Ok(answer) => answer["html5"].as_bool() == Some(true),
            Err(error) => {
                // The button must not stay down for the next action.
                let _ = frame.release_input().await;
                return Err(after_input_was_sent(TOOL_DRAG, error));
            }
        };
        let rest = if drag_events_synthetic {
            frame.release_pressed_drag(&pressed).await
        } else {
            frame.finish_pressed_drag(&pressed).await
        };
        rest.map_err(|error| {
            ToolError::input_outcome_unknown(
                TOOL_DRAG,
                &format!("failed after the press was sent ({error})"),
            )
        })?;
        Ok(DragInput::Sent {
            drag_events_synthetic,
        })
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

    /// The second half of every real input once it was sent (click_ax, hover, drag, press_key,
    /// upload_file): the extension's report (`bridge_finish_input`), a prompt the input opened
    /// remembered for handle_dialog, any other failure `outcome_unknown`
    /// ([`after_input_was_sent`]), and `input: "trusted"` on the result (src/input_mode.rs labels
    /// the others).
    pub(super) async fn finish_sent_input(
        &self,
        host: &Arc<HostClient>,
        target: &TargetTab,
        tab_context: &str,
        token: &str,
        tool: &str,
        timeout: Duration,
    ) -> Result<Value, ToolError> {
        let finished = self
            .unless_prompt_blocks(
                target,
                host.call("bridge_finish_input", json!({ "token": token }), timeout),
            )
            .await;
        if let Err(error) = &finished {
            if error.code == crate::tool_error::codes::DIALOG_OPEN {
                self.remember_interrupted(tab_context, token);
            }
        }
        let mut result = finished.map_err(|error| after_input_was_sent(tool, error))?;
        if let Some(object) = result.as_object_mut() {
            object.insert(INPUT_FIELD.into(), json!(InputMode::Trusted.name()));
        }
        Ok(result)
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
    fn a_drag_the_browser_left_unfinished_is_inconclusive_and_not_retried() {
        let mut hanging =
            json!({"progress": "observed", "retryAllowed": true, "nativeDragUnfinished": true});
        unfinished_drag_is_inconclusive(&mut hanging);
        assert_eq!(hanging["progress"], "inconclusive");
        assert_eq!(hanging["retryAllowed"], false);
        assert!(hanging["hint"]
            .as_str()
            .is_some_and(|hint| hint.contains("--input synthetic")));
        let mut finished = json!({"progress": "observed", "retryAllowed": true});
        unfinished_drag_is_inconclusive(&mut finished);
        assert_eq!(finished["progress"], "observed");
        assert!(finished.get("hint").is_none());
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
