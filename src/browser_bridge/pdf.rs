//! `save_pdf` in a browser the server holds a BiDi session on: WebDriver BiDi's
//! `browsingContext.print` of the tab's top-level context (Chromium through chromium-bidi's
//! mapper, Firefox's remote agent), which prints any tab, shown or not, with the page's
//! backgrounds. A tab the bridge could not map to its context is printed by the extension, as in
//! the person's own browser (Chrome's debugger; Firefox answers `not_supported_here`).

use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Value};

use crate::host_client::HostClient;
use crate::pdf::SAVE_PDF_TOOL;
use crate::tool_error::ToolError;

use super::BrowserBridge;

/// How long the browser may take to print: within the server's one-minute wait for save_pdf
/// (src/tools/table.rs), with room for the reply.
const PRINT_TIMEOUT: Duration = Duration::from_secs(45);

impl BrowserBridge {
    /// `save_pdf({tabId?})`: the source's answer `{data, mimeType, method}` for src/pdf.rs.
    pub async fn save_pdf(
        &self,
        host: &Arc<HostClient>,
        arguments: Value,
        wait: Duration,
    ) -> Result<Value, ToolError> {
        let tab_id = arguments.get("tabId").and_then(Value::as_i64);
        let target = self.target_tab(host, tab_id).await;
        let Some(context) = target.context.clone() else {
            return self
                .unless_prompt_blocks(&target, host.call(SAVE_PDF_TOOL, arguments, wait))
                .await;
        };
        let printed = self
            .unless_prompt_blocks(&target, print_context(self.bidi(), &context))
            .await;
        // The side panel lists this call as it lists the extension's: its facts, not the PDF.
        let logged = printed
            .as_ref()
            .map(|data| json!({ "method": "bidi", "base64Characters": data.len() }));
        super::log_answer_for_the_panel(
            host,
            SAVE_PDF_TOOL,
            &arguments,
            &logged.map_err(Clone::clone),
        );
        let data = printed?;
        let mut result = json!({ "data": data, "mimeType": "application/pdf", "method": "bidi" });
        if let Some(tab) = target.tab_id {
            result["tabId"] = json!(tab);
        }
        Ok(result)
    }
}

/// The PDF of one top-level context, base64 as the browser answers it: `browsingContext.print`
/// with the page's backgrounds (the bridge's save_pdf, and BiDi-only mode's).
pub(crate) async fn print_context(
    bidi: &allwright_surface_web::BidiConnection,
    context: &str,
) -> Result<String, ToolError> {
    let printed = bidi
        .command_with_timeout(
            "browsingContext.print",
            json!({ "context": context, "background": true }),
            PRINT_TIMEOUT,
        )
        .await
        .map_err(|error| {
            ToolError::script_failed(format!("the browser could not print the tab: {error}"))
        })?;
    Ok(printed
        .get("data")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_owned())
}
