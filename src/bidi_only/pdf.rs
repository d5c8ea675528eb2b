//! `save_pdf` in BiDi-only mode: WebDriver BiDi's `browsingContext.print` of the tab's top-level
//! context, with the page's backgrounds, as the browser bridge prints a tab of a browser with
//! the extension (src/browser_bridge/pdf.rs). src/pdf.rs turns the answer into the reply.

use std::time::Duration;

use serde_json::{json, Value};

use super::BidiOnlyTools;
use crate::tool_error::ToolError;

/// How long the browser may take to print: within the server's one-minute wait for save_pdf
/// (src/tools/table.rs), with room for the reply; the bridge's figure.
const PRINT_TIMEOUT: Duration = Duration::from_secs(45);

impl BidiOnlyTools {
    /// `save_pdf({tabId?})`: `{data, mimeType, method, tabId}` for src/pdf.rs. A prompt open in
    /// the tab is answered `dialog_open` before this runs ([`BidiOnlyTools::call`]).
    pub(super) async fn save_pdf(&self, arguments: &Value) -> Result<Value, ToolError> {
        let context = self.context_for(arguments).await?;
        let printed = self
            .bidi()
            .command_with_timeout(
                "browsingContext.print",
                json!({ "context": context, "background": true }),
                PRINT_TIMEOUT,
            )
            .await
            .map_err(|error| {
                ToolError::script_failed(format!("the browser could not print the tab: {error}"))
            })?;
        let data = printed
            .get("data")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned();
        let tab_id = self.tabs.lock().await.tab_id(&context);
        Ok(
            json!({ "data": data, "mimeType": "application/pdf", "method": "bidi", "tabId": tab_id }),
        )
    }
}
