//! Files handed to a file input over WebDriver BiDi (`input.setFiles`), as a person's choice in
//! the browser's file chooser: the browser reads the files from their paths, builds the `File`s
//! and fires `input` and `change` itself (upload_file's trusted route, src/browser_bridge/files.rs
//! of the binary).

use std::path::PathBuf;

use serde_json::json;

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

impl Page<'_> {
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
