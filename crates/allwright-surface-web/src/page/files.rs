//! Files handed to a file input over WebDriver BiDi (`input.setFiles`), as a person's choice in
//! the browser's file chooser: the browser reads the files from their paths, builds the `File`s
//! and fires `input` and `change` itself (upload_file's trusted route, src/browser_bridge/files.rs
//! of the binary).

use std::path::PathBuf;

use serde_json::json;

use super::params::{element_argument, remote_string};
use super::{real_input_timeout, ElementHandle, Page, PageError};
use crate::bidi::CommandFailure;

/// The error answers of `input.setFiles` that come before the files are set: the element is no
/// enabled file input, takes one file, is gone, or a path is no file the browser can read.
fn refused_before_setting(code: &str) -> bool {
    matches!(
        code,
        "unable to set file input"
            | "invalid argument"
            | "no such element"
            | "no such node"
            | "no such frame"
            | "unsupported operation"
    )
}

/// What a file input says about the files it takes, read from the element itself: what the
/// browser's own chooser would offer (upload_file checks the files against it before
/// `input.setFiles`, as the extension's page half does with the same rules).
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Deserialize)]
pub struct FileInputFacts {
    /// Whether the element is an `<input type=file>` at all.
    #[serde(rename = "isFileInput")]
    pub is_file_input: bool,
    pub accept: String,
    pub multiple: bool,
    /// `webkitdirectory`: a folder picker.
    pub directory: bool,
    pub disabled: bool,
}

/// Reads [`FileInputFacts`] of the element passed as the one argument, as JSON text.
const READ_FILE_INPUT_FACTS: &str = "(element) => JSON.stringify({isFileInput: element instanceof HTMLInputElement && element.type === 'file', accept: String(element.accept ?? ''), multiple: element.multiple === true, directory: element.hasAttribute?.('webkitdirectory') === true, disabled: element.disabled === true || element.matches?.(':disabled') === true})";

impl Page<'_> {
    /// The [`FileInputFacts`] of `element` in this context (the page's file input, in the
    /// document or not: a shared reference reaches both).
    pub async fn file_input_facts(
        &self,
        element: &ElementHandle,
    ) -> Result<FileInputFacts, PageError> {
        let remote = self
            .call(READ_FILE_INPUT_FACTS, vec![element_argument(element)])
            .await?;
        let text = remote_string(&remote)?;
        serde_json::from_str(&text).map_err(|error| {
            PageError::UnexpectedResult(format!("the file input's facts {text:?}: {error}"))
        })
    }

    /// Sets `paths` as the files of the `<input type=file>` `element` in this context. A
    /// failure once the command was sent is [`PageError::InputOutcomeUnknown`]: the browser may
    /// have set the files and the page's change handlers may have run (a page that uploads at
    /// once would have sent them).
    pub async fn set_files(
        &self,
        element: &ElementHandle,
        paths: &[PathBuf],
    ) -> Result<(), PageError> {
        let files: Vec<String> = paths
            .iter()
            .map(|path| path.to_string_lossy().into_owned())
            .collect();
        let params = json!({
            "context": self.context,
            "element": { "sharedId": element.shared_id },
            "files": files,
        });
        match self
            .connection
            .command_telling_whether_sent("input.setFiles", params, real_input_timeout())
            .await
        {
            Ok(_) => Ok(()),
            Err(CommandFailure::NotSent(error)) => Err(PageError::from(error)),
            // The browser checks the element and the files before it sets anything (both
            // Chromium's mapper and Firefox's remote agent): such an answer is a refusal.
            Err(CommandFailure::AfterSending(error)) if refused_before_setting(&error.code) => {
                Err(PageError::from(error))
            }
            Err(CommandFailure::AfterSending(error)) => Err(PageError::InputOutcomeUnknown(error)),
        }
    }
}
