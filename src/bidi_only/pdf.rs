//! `save_pdf` in BiDi-only mode: the browser bridge's print of the tab's top-level context
//! (`print_context` in src/browser_bridge/pdf.rs). src/pdf.rs turns the answer into the reply.

use serde_json::{json, Value};

use super::BidiOnlyTools;
use crate::tool_error::ToolError;

impl BidiOnlyTools {
    /// `save_pdf({tabId?})`: `{data, mimeType, method, tabId}` for src/pdf.rs. A prompt open in
    /// the tab is answered `dialog_open` before this runs ([`BidiOnlyTools::call`]).
    pub(super) async fn save_pdf(&self, arguments: &Value) -> Result<Value, ToolError> {
        let context = self.context_for(arguments).await?;
        let data = crate::browser_bridge::print_context(self.bidi(), &context).await?;
        let tab_id = self.tabs.lock().await.tab_id(&context);
        Ok(
            json!({ "data": data, "mimeType": "application/pdf", "method": "bidi", "tabId": tab_id }),
        )
    }
}
