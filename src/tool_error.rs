//! The error object every hop carries: `{code, message, hint?, suggestions?}` (docs/protocol.md).
//! Errors from anywhere in the binary become one of these at the edge where a tool call ends.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The error codes of docs/protocol/tools.md ("Error codes") that this binary produces itself.
///
/// The others come from the extension and pass through unchanged, hint and suggestions included:
/// `no_tab`, `frame_not_found`, `frame_detached`, `ref_not_found` (with `suggestions`),
/// `page_out_of_range`, `navigation_failed`; and from the action tools `not_actionable`,
/// `not_typable` (its hint names the right tool), `option_not_found` (with `suggestions`: the
/// options' labels), `value_not_accepted` (fill_form: a field refused the value) and
/// `no_history`; from screenshot `tab_not_visible` and `not_supported_here`;
/// and from any call into a page `page_blocked` (the page stopped answering, most likely behind an
/// alert, confirm, prompt or beforeunload dialog) and `dialog_open` (with `dialog`: the prompt
/// the browser reported); from the frame tools `ref_in_other_frame`, `ambiguous_frame` (with
/// `candidates`) and `unsaved_frame_state` (with `reasons`); from every action with a ref
/// `ref_changed` (with `changed`); from get_download `download_not_found` (the id is not one of
/// the agent's downloads). They get a constant here once the binary makes one itself.
pub mod codes {
    pub const INVALID_ARGUMENTS: &str = "invalid_arguments";
    pub const TIMEOUT: &str = "timeout";
    pub const SCRIPT_FAILED: &str = "script_failed";
    pub const EXTENSION_DISCONNECTED: &str = "extension_disconnected";
    pub const NOT_CONNECTED: &str = "not_connected";
    pub const SOCKET_NOT_PRIVATE: &str = "socket_not_private";
    pub const TOO_MANY_CALLS: &str = "too_many_calls";
    /// A user prompt (`alert`, `confirm`, `prompt`) blocks the tab; only a launched or remote
    /// browser reports it (docs/protocol/browser-bridge.md, "The browser bridge").
    pub const DIALOG_OPEN: &str = "dialog_open";
    /// handle_dialog found no prompt to answer.
    pub const NO_DIALOG: &str = "no_dialog";
    /// What this browser or path cannot do (an element it cannot reach from outside the page).
    pub const NOT_SUPPORTED_HERE: &str = "not_supported_here";
    pub const NOT_IN_TIER: &str = "not_in_tier";
    /// A tool that changes the page lost its answer (a deadline, a lost connection): it may or
    /// may not have acted (docs/protocol/action-safety.md, "Nothing done twice").
    pub const OUTCOME_UNKNOWN: &str = "outcome_unknown";
    /// navigate or new_tab was given a URL that reaches a local file, and the session does not
    /// allow that (src/tools/local_files.rs).
    pub const FILE_URL_REFUSED: &str = "file_url_refused";
    /// A result larger than a hop carries (the extension's 32 MiB reply; save_pdf's PDF cap).
    pub const RESULT_TOO_LARGE: &str = "result_too_large";
    /// upload_file: a path that is not inside the session's `--upload-root` folders, holds a
    /// `..` step, or leads out of them through a link (src/upload_roots.rs).
    pub const PATH_OUTSIDE_UPLOAD_ROOTS: &str = "path_outside_upload_roots";
    /// upload_file: a path inside a root whose name looks like a credential (`.ssh`, `.env`, ...).
    pub const SECRET_PATH_REFUSED: &str = "secret_path_refused";
    /// upload_file: no such file inside the roots.
    pub const FILE_NOT_FOUND: &str = "file_not_found";
    /// upload_file: a folder, a device, a pipe or a socket.
    pub const NOT_A_REGULAR_FILE: &str = "not_a_regular_file";
    /// upload_file: a file, or the files of one call, over the size cap.
    pub const FILE_TOO_LARGE: &str = "file_too_large";
    /// upload_file: the file was allowed but could not be read.
    pub const UPLOAD_FILE_UNREADABLE: &str = "upload_file_unreadable";
    /// upload_file: the element takes no files (the page half raises it too).
    pub const NOT_A_FILE_TARGET: &str = "not_a_file_target";
    /// upload_file: the input's `accept`, `multiple` or folder picker excludes the files (the
    /// page half raises it too).
    pub const FILE_NOT_ACCEPTED: &str = "file_not_accepted";
}

/// Serialized through [`ToolErrorOnTheWire`], which adds `retryAllowed`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct ToolError {
    pub code: String,
    pub message: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suggestions: Option<Vec<Value>>,
    /// With `dialog_open`: the user prompt that holds the page. Boxed: errors travel in every
    /// `Result` of the binary, and the rare prompt should not make them all larger.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dialog: Option<Box<OpenDialog>>,
    /// With `ambiguous_frame` and `unsaved_frame_state`: `candidates` or `reasons`, at the top
    /// level of the error. Boxed for the same reason as `dialog`.
    #[serde(flatten, default, skip_serializing_if = "Option::is_none")]
    pub frame: Option<Box<FrameErrorDetails>>,
    /// With `ref_changed`: `{ref, was: {role, name}, now: {role, name}}`, the target as the agent
    /// read it and as the tree names it now (docs/protocol/action-safety.md, "A ref means one element"). Passed
    /// through from the extension unchanged.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub changed: Option<Box<Value>>,
}

/// A [`ToolError`] as it is written: its fields, and `retryAllowed: false` with
/// `outcome_unknown` ([`ToolError::retry_allowed`]). The field is computed from the code rather
/// than stored, so that no error can carry the code without it, and `ToolError` stays within
/// the size every `Result` of the binary pays for.
#[derive(Serialize)]
struct ToolErrorOnTheWire<'error> {
    code: &'error str,
    message: &'error str,
    #[serde(skip_serializing_if = "Option::is_none")]
    hint: Option<&'error String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    suggestions: Option<&'error Vec<Value>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    dialog: Option<&'error OpenDialog>,
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    frame: Option<&'error FrameErrorDetails>,
    #[serde(skip_serializing_if = "Option::is_none")]
    changed: Option<&'error Value>,
    #[serde(rename = "retryAllowed", skip_serializing_if = "Option::is_none")]
    retry_allowed: Option<bool>,
}

impl Serialize for ToolError {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        ToolErrorOnTheWire {
            code: &self.code,
            message: &self.message,
            hint: self.hint.as_ref(),
            suggestions: self.suggestions.as_ref(),
            dialog: self.dialog.as_deref(),
            frame: self.frame.as_deref(),
            changed: self.changed.as_deref(),
            retry_allowed: self.retry_allowed(),
        }
        .serialize(serializer)
    }
}

/// What promote_iframe's errors add (docs/protocol/frames.md, "Frames"). Deserializing it fails when
/// neither field is there, so that an error without them has `frame: None`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "MaybeFrameErrorDetails")]
pub struct FrameErrorDetails {
    /// With `ambiguous_frame`: the frames that matched the urlFilter, `{index, frameId, url}`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub candidates: Option<Vec<Value>>,
    /// With `unsaved_frame_state`: why promoting the frame would lose work.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reasons: Option<Vec<Value>>,
}

#[derive(Deserialize)]
struct MaybeFrameErrorDetails {
    #[serde(default)]
    candidates: Option<Vec<Value>>,
    #[serde(default)]
    reasons: Option<Vec<Value>>,
}

impl TryFrom<MaybeFrameErrorDetails> for FrameErrorDetails {
    type Error = &'static str;

    fn try_from(details: MaybeFrameErrorDetails) -> Result<Self, Self::Error> {
        if details.candidates.is_none() && details.reasons.is_none() {
            return Err("no frame details");
        }
        Ok(Self {
            candidates: details.candidates,
            reasons: details.reasons,
        })
    }
}

/// A user prompt open in a page (HTML, "User prompts": `alert`, `confirm`, `prompt`, and the
/// `beforeunload` confirmation), as `dialog_open` reports it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OpenDialog {
    /// "alert", "confirm", "prompt" or "beforeunload".
    #[serde(rename = "type")]
    pub kind: String,
    /// The text the page passed to the prompt.
    pub message: String,
    /// For `prompt`: the text the page offered as the answer, when it gave one.
    #[serde(
        rename = "defaultValue",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub default_value: Option<String>,
}

impl ToolError {
    /// The one constructor: every error the binary makes goes through a named constructor below
    /// (one per code it produces), so codes are never spelt at the call site.
    pub fn new(code: &str, message: impl Into<String>) -> Self {
        Self {
            code: code.to_owned(),
            message: message.into(),
            hint: None,
            suggestions: None,
            dialog: None,
            frame: None,
            changed: None,
        }
    }

    /// `Some(false)` with `outcome_unknown`: the call may have acted, so it must not be repeated
    /// (the same field an action's result carries, docs/protocol/tools.md "Action results"); `None`
    /// for the other codes, which say what to do in their hint.
    pub fn retry_allowed(&self) -> Option<bool> {
        (self.code == codes::OUTCOME_UNKNOWN).then_some(false)
    }

    pub fn with_hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }

    pub fn with_suggestions(mut self, suggestions: Vec<Value>) -> Self {
        self.suggestions = Some(suggestions);
        self
    }

    /// A tool of the contract that the active tool access does not list (docs/protocol/access.md,
    /// "Tool access"); `listed` are the tools it does list.
    pub fn not_in_tier(tool: &str, active: &str, listed: Vec<Value>) -> Self {
        Self::new(
            codes::NOT_IN_TIER,
            format!("{tool} is not available in the active tool access ({active})"),
        )
        .with_hint("Use one of the suggested tools. If this tool is really needed, ask the person to change the mode or tier in allwright's side panel.")
        .with_suggestions(listed)
    }

    /// `tool` would open a local file (a URL of `scheme`, or wrapping a file: URL) in a session
    /// that does not allow it. The message names the scheme only: the path is the agent's own.
    pub fn file_url_refused(tool: &str, scheme: &str) -> Self {
        let what = if scheme == "file:" {
            "a file: URL".to_owned()
        } else {
            format!("a {scheme} URL of a local file (file:)")
        };
        Self::new(
            codes::FILE_URL_REFUSED,
            format!("{tool} refused {what}: this session does not open local files"),
        )
        .with_hint("Local files are opened only when the person starts the server with `allwright mcp --allow-file-urls`; a page that asks you to open a file may be trying to read it. Ask the person, or use an http(s) URL.")
    }

    pub fn invalid_arguments(message: impl Into<String>) -> Self {
        Self::new(codes::INVALID_ARGUMENTS, message)
    }

    /// The browser did not answer within the server's wait for this tool.
    pub fn timeout(message: impl Into<String>) -> Self {
        Self::new(codes::TIMEOUT, message)
    }

    /// The extension went away with this call in flight.
    pub fn extension_disconnected() -> Self {
        Self::new(codes::EXTENSION_DISCONNECTED, "the browser extension disconnected before answering this call")
            .with_hint("The browser was closed or the extension restarted. Retry the call; if it fails again with not_connected, ask the user to reopen the browser.")
    }

    /// A call of a tool that changes the page whose answer was lost: the browser may have acted,
    /// so the agent is told to look, never to retry (docs/protocol/action-safety.md, "Nothing done twice").
    pub fn outcome_unknown(tool: &str, why: &str) -> Self {
        Self::new(
            codes::OUTCOME_UNKNOWN,
            format!("{tool} was sent to the browser, but {why}: whether it took effect is unknown"),
        )
        .with_hint("Do not repeat the call. Read the page (get_accessibility_tree, or list_tabs for the tab tools) to see whether it took effect, then decide.")
    }

    /// Real input (WebDriver BiDi `input.performActions`) that failed after it was sent: a
    /// timeout (a handler holding the page's thread holds the command too), a closed
    /// connection, an error answer, or the extension's observation of it that failed. The page
    /// may have received it and its handlers may have run, so it is `outcome_unknown`, never
    /// `timeout` with a retry hint (docs/protocol/action-safety.md, "Nothing done twice"). A failure before
    /// the input was sent (the hit test, a target not found) keeps its own code.
    pub fn input_outcome_unknown(tool: &str, what_failed: &str) -> Self {
        Self::new(
            codes::OUTCOME_UNKNOWN,
            format!("{tool}'s real input was sent to the browser, then {what_failed}: whether the page received it is unknown"),
        )
        .with_hint("The input may have reached the page and its handlers may have run: do not repeat the call. Read the page again (get_accessibility_tree) before acting again.")
    }

    /// This error as the agent must see it for a call of `tool`: a lost answer (`timeout`,
    /// `extension_disconnected`) of a tool that changes the page becomes `outcome_unknown`, since
    /// the action may have run; a read-only tool's stays what it was, safe to repeat.
    #[must_use]
    pub fn for_call_of(self, tool: &str) -> Self {
        let changes_page =
            crate::tools::tool_named(tool).is_some_and(|definition| !definition.read_only);
        if !changes_page {
            return self;
        }
        match self.code.as_str() {
            codes::TIMEOUT => Self::outcome_unknown(tool, "its answer did not come in time"),
            codes::EXTENSION_DISCONNECTED => Self::outcome_unknown(
                tool,
                "the extension disconnected (its service worker stopped or the browser closed) before answering",
            ),
            _ => self,
        }
    }

    /// Nothing answers on the local socket, or the host there is taken.
    pub fn not_connected(message: impl Into<String>) -> Self {
        Self::new(codes::NOT_CONNECTED, message).with_hint(
            "Open Chrome, Chromium or Firefox with the allwright extension loaded (run `allwright install` once so the browser can start the host), or start the server with `allwright mcp --launch chromium`.",
        )
    }

    /// The local socket's folder or file, or the process answering on it, is not this user's own
    /// (docs/protocol/host-safety.md, "Local socket safety"): the client refuses to talk to it.
    pub fn socket_not_private(message: impl Into<String>, hint: impl Into<String>) -> Self {
        Self::new(codes::SOCKET_NOT_PRIVATE, message).with_hint(hint)
    }

    /// The client has this many calls in flight already (the host's bound, docs/protocol/host-safety.md
    /// "Bounds and deadlines"); the call was not sent to the browser.
    pub fn too_many_calls(limit: usize) -> Self {
        Self::new(
            codes::TOO_MANY_CALLS,
            format!("{limit} calls are already waiting for the browser; this one was not sent"),
        )
        .with_hint("Wait for the calls in flight to answer before sending more; this call did nothing and can be sent again.")
    }

    /// Something in the browser failed that the agent cannot fix by changing the call, or a
    /// source answered with something unusable (a screenshot without an image).
    pub fn script_failed(message: impl Into<String>) -> Self {
        Self::new(codes::SCRIPT_FAILED, message)
            .with_hint("This is unexpected; retry once, and report it if it happens again.")
    }

    /// A BiDi element operation failed; `code` is the one `PageError::tool_error_code` gave
    /// (allwright-surface-web), and the hint says what the agent can do about it.
    pub fn element_operation_failed(code: &str, message: impl Into<String>) -> Self {
        let hint = match code {
            "not_actionable" => "Something else is where the pointer would land, or the element is not laid out: close the covering element (a banner, a dialog) or scroll, read the tree again, then retry.",
            "ref_not_found" => "The element went away: read the page again with get_accessibility_tree and use a fresh ref.",
            "frame_not_found" => "The frame went away: read the page again.",
            _ => "Read the page again with get_accessibility_tree, then retry once.",
        };
        Self::new(code, message).with_hint(hint)
    }

    /// A user prompt blocks the tab the call is for.
    pub fn dialog_open(message: impl Into<String>, dialog: OpenDialog) -> Self {
        let mut error = Self::new(codes::DIALOG_OPEN, message).with_hint(
            "Answer the dialog with handle_dialog (accept: true to press OK, false to cancel; promptText fills a prompt), then retry the call.",
        );
        error.dialog = Some(Box::new(dialog));
        error
    }

    /// The call asks for something this browser or path cannot do; the hint says what can.
    pub fn not_supported_here(message: impl Into<String>) -> Self {
        Self::new(codes::NOT_SUPPORTED_HERE, message)
    }

    /// A tool of the browser bridge (tools/tiers.rs, `needs_browser_bridge`) called in a session
    /// without one: the user's own browser, reached through the extension alone.
    pub fn needs_browser_bridge(tool: &str) -> Self {
        Self::not_supported_here(format!(
            "{tool} works only in a browser allwright drives over WebDriver BiDi, and this session reaches the user's own browser through the extension"
        ))
        .with_hint("Carry on without it, or ask the person to start the server with `allwright mcp --launch chromium` (or firefox).")
    }

    /// A tool that BiDi-only mode does not list, called in that mode: the browser has no
    /// extension, and `why` says what the tool needs of it (tools/tiers.rs,
    /// `why_bidi_only_lacks`; docs/grid.md, "BiDi-only mode").
    pub fn needs_extension(tool: &str, why: &str) -> Self {
        Self::not_supported_here(format!(
            "{tool} is not served in BiDi-only mode, where allwright drives the browser over WebDriver BiDi alone with no extension in it: {why}"
        ))
        .with_hint("Carry on with the listed tools, or ask the person to start the server with the extension (`allwright mcp --launch chromium` without --no-extension, or a --webdriver remote end on this machine).")
    }

    /// `tool`'s result is larger than it may answer (save_pdf's PDF over its cap).
    pub fn result_too_large(tool: &str, message: impl Into<String>) -> Self {
        let hint = match tool {
            "save_pdf" => "The page prints to too large a PDF: read it with get_accessibility_tree instead, or take a screenshot.",
            _ => "Ask for less at once.",
        };
        Self::new(codes::RESULT_TOO_LARGE, message).with_hint(hint)
    }

    /// upload_file in a session started without `--upload-root`.
    pub fn needs_upload_root(tool: &str) -> Self {
        Self::not_supported_here(format!(
            "{tool} reads files only from folders the person allowed, and this session allows none"
        ))
        .with_hint("Ask the person to start the server with `allwright mcp --upload-root DIR` (the folder that holds the files), or to attach the file themselves.")
    }

    /// upload_file: `path` is not inside the roots (`why` says how); nothing was opened.
    pub fn path_outside_upload_roots(path: &str, why: &str, roots: &str) -> Self {
        Self::new(
            codes::PATH_OUTSIDE_UPLOAD_ROOTS,
            format!("{path:?} is not inside the folders this session may upload from ({roots}): {why}; nothing was read"),
        )
        .with_hint("Use a file inside those folders (a path relative to one of them works). For a file elsewhere, ask the person to copy it there or to start allwright mcp with another --upload-root.")
    }

    /// upload_file: a secret-looking name below a root (src/upload_roots.rs, `SECRET_NAMES`).
    pub fn secret_path_refused(path: &str) -> Self {
        Self::new(
            codes::SECRET_PATH_REFUSED,
            format!("{path:?} looks like a credential (a name such as .ssh, .gnupg, .aws, .env, id_rsa or a .pem/.key file): allwright never uploads those; nothing was read"),
        )
        .with_hint("Do not upload keys or credentials. If the person really wants this file sent, they must attach it themselves.")
    }

    /// upload_file's dialog route: the element's click opened a file dialog the browser did not
    /// tie to a file input.
    pub fn file_dialog_without_input() -> Self {
        Self::new(
            codes::NOT_A_FILE_TARGET,
            "the click opened the browser's file dialog, but the browser did not name the file input it belongs to, so there is nothing to set the files on; nothing was attached",
        )
        .with_hint("Pass the file input itself or its label if the tree shows one; otherwise ask the person to choose the file.")
    }

    /// upload_file's dialog route: the input the file dialog belongs to would not take the
    /// files (the rules of src/upload.rs's `accept_refusal`).
    pub fn file_not_accepted(message: impl Into<String>, hint: impl Into<String>) -> Self {
        Self::new(codes::FILE_NOT_ACCEPTED, message).with_hint(hint)
    }

    /// upload_file: no such file in any root.
    pub fn file_not_found(path: &str, roots: &str) -> Self {
        Self::new(
            codes::FILE_NOT_FOUND,
            format!(
                "there is no file {path:?} in the folders this session may upload from ({roots})"
            ),
        )
        .with_hint(
            "Check the name: paths are relative to an upload folder, or absolute inside one.",
        )
    }

    /// upload_file: the path names a folder, a device, a pipe or a socket.
    pub fn not_a_regular_file(path: &str, why: &str) -> Self {
        Self::new(
            codes::NOT_A_REGULAR_FILE,
            format!("{path:?} is not a regular file: {why}"),
        )
        .with_hint("Name a file, not a folder: one path per file.")
    }

    /// upload_file: over a size cap (`why` names it).
    pub fn file_too_large(path: &str, why: &str) -> Self {
        Self::new(codes::FILE_TOO_LARGE, format!("{path:?} is too large to upload: {why}"))
            .with_hint("Upload fewer or smaller files per call (10 MiB per file, 25 MiB per call), or ask the person to attach a larger file themselves.")
    }

    /// upload_file: an allowed file that could not be read.
    pub fn upload_file_unreadable(path: &str, why: &str) -> Self {
        Self::new(
            codes::UPLOAD_FILE_UNREADABLE,
            format!("{path:?} could not be read: {why}"),
        )
        .with_hint("Check the file's permissions, or ask the person.")
    }

    /// handle_dialog was called with no prompt open.
    pub fn no_dialog(message: impl Into<String>) -> Self {
        Self::new(codes::NO_DIALOG, message).with_hint(
            "No dialog needs an answer: carry on, and read the page with get_accessibility_tree.",
        )
    }

    /// Reads an error object written by someone else (the extension), keeping whatever is
    /// usable: a missing code or message becomes `script_failed` with a generic message rather
    /// than a lost error.
    pub fn from_foreign_value(value: Option<&Value>) -> Self {
        let Some(value) = value else {
            return Self::new(
                codes::SCRIPT_FAILED,
                "the extension reported a failure without details",
            );
        };
        if let Ok(mut error) = serde_json::from_value::<ToolError>(value.clone()) {
            // A failure names a code the agent can act on: an empty one (a broken or hostile
            // extension build) says nothing, so it becomes the generic one.
            if error.code.trim().is_empty() {
                error.code = codes::SCRIPT_FAILED.to_owned();
            }
            return error;
        }
        let code = value
            .get("code")
            .and_then(Value::as_str)
            .filter(|code| !code.trim().is_empty())
            .unwrap_or(codes::SCRIPT_FAILED);
        let message = value
            .get("message")
            .and_then(Value::as_str)
            .map(str::to_owned)
            .unwrap_or_else(|| format!("the extension reported a failure: {value}"));
        let mut error = Self::new(code, message);
        error.hint = value.get("hint").and_then(Value::as_str).map(str::to_owned);
        error.suggestions = value.get("suggestions").and_then(Value::as_array).cloned();
        error.dialog = value
            .get("dialog")
            .and_then(|dialog| serde_json::from_value(dialog.clone()).ok());
        error.frame = serde_json::from_value(value.clone()).ok().map(Box::new);
        error
    }

    pub fn to_value(&self) -> Value {
        serde_json::to_value(self)
            .unwrap_or_else(|_| serde_json::json!({"code": self.code, "message": self.message}))
    }
}

impl std::fmt::Display for ToolError {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(formatter, "{}: {}", self.code, self.message)?;
        if let Some(hint) = &self.hint {
            write!(formatter, " ({hint})")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_foreign_error_without_a_code_is_script_failed() {
        for error in [
            json!({"code": "", "message": "nothing said"}),
            json!({"code": "  ", "message": "nothing said", "hint": "h"}),
            json!({"code": "", "message": 7}),
            json!({"message": "no code at all"}),
        ] {
            assert_eq!(
                ToolError::from_foreign_value(Some(&error)).code,
                codes::SCRIPT_FAILED,
                "{error}"
            );
        }
    }

    #[test]
    fn foreign_errors_keep_what_they_have() {
        let full = json!({"code": "ref_not_found", "message": "ref_9 is gone", "hint": "re-read", "suggestions": ["ref_8"]});
        let error = ToolError::from_foreign_value(Some(&full));
        assert_eq!(error.code, "ref_not_found");
        assert_eq!(error.suggestions, Some(vec![json!("ref_8")]));
        assert_eq!(error.to_value(), full);
        let not_typable = json!({"code": "not_typable", "message": "ref_4 is a checkbox", "hint": "Use click_ax to toggle a checkbox."});
        assert_eq!(
            ToolError::from_foreign_value(Some(&not_typable)).to_value(),
            not_typable
        );
        let no_option = json!({"code": "option_not_found", "message": "no option \"Fr\"", "suggestions": ["France", "Finland"]});
        assert_eq!(
            ToolError::from_foreign_value(Some(&no_option)).to_value(),
            no_option
        );
        let dialog = json!({"code": "dialog_open", "message": "an alert is open", "hint": "Answer it.", "dialog": {"type": "alert", "message": "Saved"}});
        assert_eq!(
            ToolError::from_foreign_value(Some(&dialog)).to_value(),
            dialog
        );
        let ambiguous = json!({"code": "ambiguous_frame", "message": "2 frames match", "candidates": [{"index": 0, "frameId": 3, "url": "https://a.test/embed/1"}], "suggestions": ["https://a.test/embed/1"]});
        assert_eq!(
            ToolError::from_foreign_value(Some(&ambiguous)).to_value(),
            ambiguous
        );
        let unsaved = json!({"code": "unsaved_frame_state", "message": "frame 3 holds work", "reasons": ["the field \"City\" was edited"]});
        assert_eq!(
            ToolError::from_foreign_value(Some(&unsaved)).to_value(),
            unsaved
        );
        assert_eq!(ToolError::from_foreign_value(Some(&full)).frame, None);
        let odd = ToolError::from_foreign_value(Some(&json!({"message": 3})));
        assert_eq!(odd.code, "script_failed");
        assert_eq!(ToolError::from_foreign_value(None).code, "script_failed");
    }

    #[test]
    fn an_answer_lost_after_real_input_is_outcome_unknown_and_never_retried() {
        let error = ToolError::input_outcome_unknown(
            "click_ax",
            "failed (BiDi error: timeout: the browser did not answer input.performActions within 30000 ms)",
        );
        let value = error.to_value();
        assert_eq!(value["code"], "outcome_unknown");
        assert_eq!(value["retryAllowed"], false);
        let hint = value["hint"].as_str().unwrap_or_default();
        assert!(
            hint.contains("do not repeat") && !hint.contains("retry once"),
            "{hint}"
        );
        // Every outcome_unknown says so, the lost answers of the hops too; other errors do not.
        let lost = ToolError::timeout("no answer").for_call_of("click_ax");
        assert_eq!(lost.to_value()["retryAllowed"], false);
        assert!(ToolError::timeout("no answer")
            .to_value()
            .get("retryAllowed")
            .is_none());
        // The field survives the hop from the host to the MCP server.
        assert_eq!(ToolError::from_foreign_value(Some(&value)), error);
    }
}
