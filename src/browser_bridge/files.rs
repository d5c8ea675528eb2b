//! upload_file in a browser the server holds a BiDi session on (docs/protocol/browser-bridge.md, "The browser
//! bridge"). With `--input trusted` the browser itself takes the files: the extension finds the
//! file input the agent's ref stands for (the input, its label's control, the input a button's
//! click opens) and marks it (`bridge_begin_input` with kind "upload"), the server finds the
//! marked element and sends WebDriver BiDi `input.setFiles` with the files' real paths, already
//! checked inside the upload roots (src/upload_roots.rs), and the extension reports what the page
//! did (`bridge_finish_input`). A drop zone, an input BiDi cannot reach (a closed shadow root) and
//! `--input synthetic` take the extension's route: the bytes, through the host
//! (src/upload.rs). Nothing is set twice: a route is left for the other only before the files
//! were sent to the browser.
//!
//! The dialog route: when the session receives the browser's file dialog event
//! (`input.fileDialogOpened`; the session's `file` prompt handler dismisses the chooser as it
//! opens), the extension makes no discovery click. It looks for the input the cheap ways (the
//! element, its label's control, the one input inside it); when they find none it marks the
//! agent's element (`target: "click"`), and the server sends one real click to it (click_ax's),
//! waits for the event, checks the files against the input the event names and sets them there.
//! That reaches a button whose handler ignores untrusted clicks, `showPicker()` and an input the
//! page never put in the document. A click that opens no chooser leaves the extension's route
//! with `noClick` (a drop only): the page sees exactly one click either way.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use allwright_surface_web::{Page, PageError};
use serde_json::{json, Value};

use crate::host_client::HostClient;
use crate::input_mode::InputMode;
use crate::tool_error::ToolError;
use crate::tools::ToolDefinition;
use crate::upload::{self, ATTACH_FILES_CALL, UPLOAD_TOOL};
use crate::upload_roots::CheckedFile;

use super::input::{after_input_was_sent, real_input_error, PointerAction, PointerInput};
use super::{BrowserBridge, TargetTab};

/// How long beginning and aborting may take.
const UPLOAD_STEP_TIMEOUT: Duration = Duration::from_secs(20);

/// How long the dialog route waits, after its click, for the browser's file dialog event. A
/// page's click handler opens the chooser synchronously (it needs the click's user
/// activation), so the event follows the click at once; the wait only bounds a click that
/// opened nothing (a drop zone).
const FILE_DIALOG_WAIT: Duration = Duration::from_millis(1500);

/// The event of the dialog route.
const FILE_DIALOG_EVENT: &str = "input.fileDialogOpened";

impl BrowserBridge {
    /// upload_file through the bridge: the browser's own route where it can take the files,
    /// the extension's otherwise, with the tab's lifecycle events added.
    pub async fn upload_files(
        &self,
        host: &Arc<HostClient>,
        tool: &ToolDefinition,
        arguments: &Value,
        files: &mut [CheckedFile],
        timeout: Duration,
    ) -> Result<Value, ToolError> {
        let tab_id = arguments.get("tabId").and_then(Value::as_i64);
        let target = self.target_tab(host, tab_id).await;
        let outcome = match (self.input_mode, &target.context) {
            (InputMode::Trusted, Some(tab_context)) => {
                self.files_by_the_browser(host, &target, tab_context, arguments, files, timeout)
                    .await
            }
            _ => {
                self.files_by_the_extension(host, &target, arguments, files, timeout, None)
                    .await
            }
        };
        self.with_lifecycle(&target, tool.name, outcome?).await
    }

    /// The extension's route: the bytes go to the frame, which builds the `File`s.
    async fn files_by_the_extension(
        &self,
        host: &Arc<HostClient>,
        target: &TargetTab,
        arguments: &Value,
        files: &mut [CheckedFile],
        timeout: Duration,
        why: Option<&str>,
    ) -> Result<Value, ToolError> {
        let mut call = upload::attach_arguments(arguments, files)?;
        if let (Some(tab_id), Some(object)) = (target.tab_id, call.as_object_mut()) {
            object.insert("tabId".into(), json!(tab_id));
        }
        let mut result = self
            .unless_prompt_blocks(target, host.call(ATTACH_FILES_CALL, call, timeout))
            .await
            .map_err(|error| error.for_call_of(UPLOAD_TOOL))?;
        if let (Some(why), Some(hints)) =
            (why, result.get_mut("hints").and_then(Value::as_array_mut))
        {
            hints.push(json!(why));
        }
        Ok(result)
    }

    /// The browser's route: `input.setFiles` on the input the extension marked.
    async fn files_by_the_browser(
        &self,
        host: &Arc<HostClient>,
        target: &TargetTab,
        tab_context: &str,
        arguments: &Value,
        files: &mut [CheckedFile],
        timeout: Duration,
    ) -> Result<Value, ToolError> {
        let dialog_route = self
            .lifecycle
            .subscribed_events()
            .contains(&FILE_DIALOG_EVENT);
        let begin_arguments = json!({
            "tabId": target.tab_id,
            "frameId": arguments.get("frameId"),
            "ref_id": arguments["ref_id"],
            "kind": "upload",
            "files": upload::file_facts(files),
            "dialogRoute": dialog_route,
        });
        let begun = self
            .unless_prompt_blocks(
                target,
                host.call("bridge_begin_input", begin_arguments, UPLOAD_STEP_TIMEOUT),
            )
            .await?;
        let Some(token) = begun["token"].as_str().map(str::to_owned) else {
            return Err(ToolError::script_failed(format!(
                "the extension began the upload without a token: {begun}"
            )));
        };
        // A drop zone takes files by a drop, which BiDi input cannot carry.
        if begun["target"].as_str() == Some("drop") {
            self.abort_input(host, &token).await;
            return self
                .files_by_the_extension(host, target, arguments, files, timeout, Some(
                    "a drop zone takes files by a drop, which the browser's input cannot carry: the extension dropped them",
                ))
                .await;
        }
        let marker = begun["marker"].as_str().unwrap_or_default();
        // The marker is interpolated into a selector: only the content script's 32 hex digits.
        if marker.len() != 32 || !marker.bytes().all(|byte| byte.is_ascii_hexdigit()) {
            self.abort_input(host, &token).await;
            return Err(ToolError::script_failed(format!(
                "the extension's marker {marker:?} is not 32 hex digits"
            )));
        }
        if begun["target"].as_str() == Some("click") {
            return self
                .files_by_the_dialog(
                    host,
                    target,
                    tab_context,
                    arguments,
                    files,
                    timeout,
                    &token,
                    marker,
                )
                .await;
        }
        let element = match self.marked_element(tab_context, marker).await {
            Ok(Some(element)) => element,
            Ok(None) => {
                self.abort_input(host, &token).await;
                return self
                    .files_by_the_extension(host, target, arguments, files, timeout, Some(
                        "the browser could not reach the file input (a closed shadow root?), so the extension attached the files",
                    ))
                    .await;
            }
            Err(error) => {
                self.abort_input(host, &token).await;
                return Err(error);
            }
        };
        let paths: Vec<PathBuf> = files.iter().map(|file| file.real_path.clone()).collect();
        let page = Page::new(self.bidi(), tab_context);
        let sent = self
            .unless_prompt_blocks(target, async {
                page.frame(&element.context)
                    .set_files(&element.element, &paths)
                    .await
                    .map_err(|error| match error {
                        PageError::InputOutcomeUnknown(_) => real_input_error(UPLOAD_TOOL, &error),
                        other => ToolError::element_operation_failed(
                            other.tool_error_code(),
                            format!("the browser refused the files: {other}"),
                        ),
                    })
            })
            .await;
        if let Err(error) = sent {
            if error.code == crate::tool_error::codes::DIALOG_OPEN {
                self.remember_interrupted(tab_context, &token);
            } else {
                self.abort_input(host, &token).await;
            }
            return Err(error);
        }
        self.finish_sent_input(host, target, tab_context, &token, UPLOAD_TOOL, timeout)
            .await
    }

    /// The dialog route (see the module's comment): one real click on the marked element, the
    /// browser's file dialog event, the files checked and set on the input it names.
    #[allow(clippy::too_many_arguments)]
    async fn files_by_the_dialog(
        &self,
        host: &Arc<HostClient>,
        target: &TargetTab,
        tab_context: &str,
        arguments: &Value,
        files: &mut [CheckedFile],
        timeout: Duration,
        token: &str,
        marker: &str,
    ) -> Result<Value, ToolError> {
        // Listening starts before the click, so the event cannot be missed.
        let mut events = self.bidi().subscribe_events();
        let clicked = self
            .unless_prompt_blocks(
                target,
                self.send_pointer_input(tab_context, marker, PointerAction::Click),
            )
            .await;
        match clicked {
            Ok(PointerInput::Sent) => {}
            Ok(PointerInput::TargetUnreachable) => {
                // Nothing was clicked: the extension's route makes the page's one click.
                self.abort_input(host, token).await;
                return self
                    .files_by_the_extension(host, target, arguments, files, timeout, Some(
                        "real input could not reach the element (a closed shadow root?), so the extension looked for the file input and attached the files",
                    ))
                    .await;
            }
            Err(error) => {
                if error.code == crate::tool_error::codes::DIALOG_OPEN {
                    self.remember_interrupted(tab_context, token);
                } else {
                    self.abort_input(host, token).await;
                }
                return Err(error);
            }
        }
        let deadline = tokio::time::Instant::now() + FILE_DIALOG_WAIT;
        let opened = loop {
            match tokio::time::timeout_at(deadline, events.recv()).await {
                Err(_) => break None,
                Ok(Err(tokio::sync::broadcast::error::RecvError::Lagged(_))) => continue,
                Ok(Err(tokio::sync::broadcast::error::RecvError::Closed)) => break None,
                Ok(Ok(event)) if event.method == FILE_DIALOG_EVENT => {
                    let context = event.params["context"].as_str().unwrap_or_default();
                    if self.lifecycle.tab_of(context) == tab_context {
                        break Some(event.params);
                    }
                }
                Ok(Ok(_)) => {}
            }
        };
        let Some(opened) = opened else {
            // The click opened no chooser: the extension tries a drop, without a second click.
            self.abort_input(host, token).await;
            let mut call_arguments = arguments.clone();
            if let Some(object) = call_arguments.as_object_mut() {
                object.insert("noClick".into(), json!(true));
            }
            return self
                .files_by_the_extension(host, target, &call_arguments, files, timeout, Some(
                    "a real click on the element opened no file dialog, so the extension tried a drop of the files on it",
                ))
                .await
                .map_err(|error| {
                    // A refusal of the page half set nothing: the click was the page's only input.
                    if error.code == crate::tool_error::codes::NOT_A_FILE_TARGET {
                        let message = format!("{} (a real click on it opened no file dialog)", error.message);
                        ToolError { message, ..error }
                    } else {
                        after_input_was_sent(UPLOAD_TOOL, error)
                    }
                });
        };
        let context = opened["context"].as_str().unwrap_or(tab_context).to_owned();
        let Some(shared_id) = opened["element"]["sharedId"].as_str() else {
            self.abort_input(host, token).await;
            return Err(ToolError::file_dialog_without_input());
        };
        let element = allwright_surface_web::ElementHandle {
            shared_id: shared_id.to_owned(),
        };
        let page = Page::new(self.bidi(), tab_context);
        let frame = page.frame(&context);
        let facts = match frame.file_input_facts(&element).await {
            Ok(facts) => facts,
            Err(error) => {
                self.abort_input(host, token).await;
                return Err(ToolError::element_operation_failed(
                    error.tool_error_code(),
                    format!(
                        "the file input the browser's file dialog named could not be read: {error}"
                    ),
                ));
            }
        };
        let refusal = if !facts.is_file_input {
            Some((
                "the browser's file dialog named an element that is no file input".to_owned(),
                "Pass the file input itself or its label if the tree shows one.".to_owned(),
            ))
        } else if facts.disabled {
            Some((
                "the file input is disabled".to_owned(),
                "Do what enables it first (a required step above it), then read the tree again."
                    .to_owned(),
            ))
        } else {
            upload::accept_refusal(&facts, files)
        };
        if let Some((message, hint)) = refusal {
            self.abort_input(host, token).await;
            let message = format!("{message} (the click opened its file dialog, which the browser dismissed; nothing was attached)");
            return Err(if facts.is_file_input && !facts.disabled {
                ToolError::file_not_accepted(message, hint)
            } else {
                ToolError::element_operation_failed("not_actionable", message).with_hint(hint)
            });
        }
        let paths: Vec<PathBuf> = files.iter().map(|file| file.real_path.clone()).collect();
        let sent = self
            .unless_prompt_blocks(target, async {
                frame
                    .set_files(&element, &paths)
                    .await
                    .map_err(|error| match error {
                        PageError::InputOutcomeUnknown(_) => real_input_error(UPLOAD_TOOL, &error),
                        other => ToolError::element_operation_failed(
                            other.tool_error_code(),
                            format!("the browser refused the files: {other}"),
                        ),
                    })
            })
            .await;
        if let Err(error) = sent {
            if error.code == crate::tool_error::codes::DIALOG_OPEN {
                self.remember_interrupted(tab_context, token);
            } else {
                self.abort_input(host, token).await;
            }
            return Err(error);
        }
        let mut result = self
            .finish_sent_input(host, target, tab_context, token, UPLOAD_TOOL, timeout)
            .await?;
        if let Some(object) = result.as_object_mut() {
            object.insert("fileDialog".into(), json!({"multiple": opened["multiple"]}));
        }
        Ok(result)
    }
}
