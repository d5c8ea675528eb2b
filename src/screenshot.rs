//! The `screenshot` tool's host side (docs/protocol/browser-bridge.md, "Screenshots"). The MCP server asks a
//! [`ScreenshotSource`] for the picture and answers with an MCP image content block plus the
//! picture's facts. The user's own browser is one source: its extension captures the visible tab
//! ([`ExtensionScreenshots`]). A browser that allwright launched can be another, through WebDriver
//! BiDi's `browsingContext.captureScreenshot`, which also takes whole pages; the server does not
//! care which one answers, as long as the result has the same shape.

use std::sync::Arc;
use std::time::Duration;

pub use futures_util::future::BoxFuture;
use rmcp::model::{CallToolResult, ContentBlock};
use serde_json::{Map, Value};

use crate::host_client::HostClient;
use crate::tool_error::ToolError;

/// The tool's name in the table (`src/tools/table.rs`).
pub const SCREENSHOT_TOOL: &str = "screenshot";

/// One captured picture.
#[derive(Debug, Clone, PartialEq)]
pub struct Screenshot {
    /// The encoded image, in base64, as MCP's image content carries it.
    pub data_base64: String,
    /// `image/png` or `image/jpeg`.
    pub mime_type: String,
    /// What the agent reads beside the image: `{width, height, format, scope, method}` (the
    /// image's size in device pixels; `scope` "viewport", "element" or "fullPage"; `method`, how
    /// the source took it), and anything else the source adds (`hints`, the element's `rect`).
    pub details: Map<String, Value>,
}

impl Screenshot {
    /// Reads a source's answer: `{data, mimeType, ...details}`. An answer without an image is
    /// the source's failure, reported as `script_failed` rather than an empty picture.
    pub fn from_result(result: Value) -> Result<Self, ToolError> {
        let Value::Object(mut details) = result else {
            return Err(ToolError::script_failed(
                "the screenshot came back without an image",
            ));
        };
        let data = details.remove("data");
        let mime_type = details.remove("mimeType");
        match (data, mime_type) {
            (Some(Value::String(data_base64)), Some(Value::String(mime_type)))
                if !data_base64.is_empty() && mime_type.starts_with("image/") =>
            {
                Ok(Self {
                    data_base64,
                    mime_type,
                    details,
                })
            }
            _ => Err(ToolError::script_failed(
                "the screenshot came back without an image",
            )),
        }
    }

    /// The MCP answer: the image first, then its facts as JSON text (for clients that read only
    /// text), the same facts as `structuredContent`.
    pub fn into_tool_result(self) -> CallToolResult {
        let details = Value::Object(self.details);
        let mut result = CallToolResult::structured(details);
        result
            .content
            .insert(0, ContentBlock::image(self.data_base64, self.mime_type));
        result
    }
}

/// Where screenshots come from. `arguments` passed the table's checks; `wait` is the table's
/// wait for this call.
pub trait ScreenshotSource: Send + Sync {
    fn capture(
        &self,
        arguments: Value,
        wait: Duration,
    ) -> BoxFuture<'_, Result<Screenshot, ToolError>>;
}

/// The user's own browser: the extension captures the visible tab (`tabs.captureVisibleTab`),
/// crops to an element when asked, and refuses what it cannot see (`tab_not_visible`,
/// `not_supported_here` for fullPage).
pub struct ExtensionScreenshots {
    host: Arc<HostClient>,
}

impl ExtensionScreenshots {
    pub fn new(host: Arc<HostClient>) -> Self {
        Self { host }
    }
}

impl ScreenshotSource for ExtensionScreenshots {
    fn capture(
        &self,
        arguments: Value,
        wait: Duration,
    ) -> BoxFuture<'_, Result<Screenshot, ToolError>> {
        Box::pin(async move {
            let result = self.host.call(SCREENSHOT_TOOL, arguments, wait).await?;
            Screenshot::from_result(result)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_image_leads_and_its_facts_follow_as_text_and_structured_content() {
        let screenshot = Screenshot::from_result(json!({
            "data": "iVBORw0KGgo=", "mimeType": "image/png",
            "width": 2, "height": 1, "format": "png", "scope": "viewport", "method": "captureVisibleTab"
        }))
        .expect("a screenshot");
        let result = screenshot.into_tool_result();
        assert_eq!(result.is_error, Some(false));
        let image = result.content[0].as_image().expect("an image block first");
        assert_eq!(image.data, "iVBORw0KGgo=");
        assert_eq!(image.mime_type, "image/png");
        let facts = json!({"width": 2, "height": 1, "format": "png", "scope": "viewport", "method": "captureVisibleTab"});
        assert_eq!(result.structured_content, Some(facts.clone()));
        let text = result.content[1].as_text().expect("the facts as text");
        assert_eq!(
            serde_json::from_str::<Value>(&text.text).expect("JSON"),
            facts
        );
    }

    #[test]
    fn an_answer_without_an_image_is_a_failure() {
        for answer in [
            json!({"width": 1}),
            json!({"data": "", "mimeType": "image/png"}),
            json!({"data": "abc", "mimeType": "text/plain"}),
            json!("abc"),
        ] {
            let error = Screenshot::from_result(answer.clone()).expect_err("no image");
            assert_eq!(error.code, "script_failed", "{answer}");
        }
    }
}
