//! `screenshot` in a browser the server holds a BiDi session on (docs/protocol.md, "The browser
//! bridge"): `browsingContext.captureScreenshot` of the tab's context, so that a tab that is not
//! shown, a whole page (`fullPage`) and an element in any frame can be captured, which the
//! extension's `tabs.captureVisibleTab` cannot do. An element is found as click_ax finds it for
//! real input: the extension marks it (`bridge_begin_input` with kind "locate": scrolled into
//! view, a short-lived random marker, nothing observed), a BiDi sandbox query finds the marked
//! element in the tab's documents, and the marker is removed again whatever happens.
//!
//! A tab the bridge could not map to a BiDi context is captured by the extension, as in the
//! user's own browser.

use std::sync::Arc;
use std::time::Duration;

use allwright_surface_web::page::{image_dimensions, ImageFormat, ScreenshotArea};
use allwright_surface_web::Page;
use serde_json::{json, Value};

use crate::host_client::HostClient;
use crate::screenshot::{BoxFuture, Screenshot, ScreenshotSource, SCREENSHOT_TOOL};
use crate::tool_error::ToolError;

use super::BrowserBridge;

/// The JPEG quality of the extension's captures (extension/background/screenshot.js), so that
/// both paths give pictures of the same kind.
const JPEG_QUALITY: u8 = 90;
/// How long marking the element may take.
const LOCATE_TIMEOUT: Duration = Duration::from_secs(20);

/// The screenshots of a session with a browser bridge.
pub struct BridgeScreenshots {
    bridge: Arc<BrowserBridge>,
    host: Arc<HostClient>,
}

impl BridgeScreenshots {
    pub fn new(bridge: Arc<BrowserBridge>, host: Arc<HostClient>) -> Self {
        Self { bridge, host }
    }
}

impl ScreenshotSource for BridgeScreenshots {
    fn capture(
        &self,
        arguments: Value,
        wait: Duration,
    ) -> BoxFuture<'_, Result<Screenshot, ToolError>> {
        Box::pin(async move { self.bridge.screenshot(&self.host, arguments, wait).await })
    }
}

/// What the picture shows, as the result's `scope` names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Scope {
    Viewport,
    FullPage,
    Element,
}

impl Scope {
    fn name(self) -> &'static str {
        match self {
            Self::Viewport => "viewport",
            Self::FullPage => "fullPage",
            Self::Element => "element",
        }
    }
}

impl BrowserBridge {
    /// `screenshot({ref_id?, frameId?, fullPage?, format, tabId?})` over BiDi.
    pub async fn screenshot(
        &self,
        host: &Arc<HostClient>,
        arguments: Value,
        wait: Duration,
    ) -> Result<Screenshot, ToolError> {
        let tab_id = arguments.get("tabId").and_then(Value::as_i64);
        let target = self.target_tab(host, tab_id).await;
        let Some(tab_context) = target.context.clone() else {
            let result = self
                .unless_prompt_blocks(&target, host.call(SCREENSHOT_TOOL, arguments, wait))
                .await?;
            return Screenshot::from_result(result);
        };
        let jpeg = arguments.get("format").and_then(Value::as_str) == Some("jpeg");
        let format = if jpeg {
            ImageFormat::Jpeg {
                quality: JPEG_QUALITY,
            }
        } else {
            ImageFormat::Png
        };
        let full_page = arguments.get("fullPage").and_then(Value::as_bool) == Some(true);
        let reference = arguments.get("ref_id").and_then(Value::as_str);
        if full_page && reference.is_some() {
            return Err(ToolError::invalid_arguments(
                "fullPage and ref_id cannot be combined: an element is captured by its own box",
            )
            .with_hint(
                "Pass ref_id to capture one element, or fullPage: true without ref_id to capture the page.",
            ));
        }
        let (bytes, scope) = match reference {
            None => {
                let (area, scope) = if full_page {
                    (ScreenshotArea::FullPage, Scope::FullPage)
                } else {
                    (ScreenshotArea::Viewport, Scope::Viewport)
                };
                let page = Page::new(self.bidi(), &tab_context);
                let bytes = self
                    .unless_prompt_blocks(&target, async {
                        page.screenshot(&area, format)
                            .await
                            .map_err(element_operation_failed)
                    })
                    .await?;
                (bytes, scope)
            }
            Some(_) => {
                let bytes = self
                    .element_screenshot(host, &target, &tab_context, &arguments, format)
                    .await?;
                (bytes, Scope::Element)
            }
        };
        let Some((width, height)) = image_dimensions(&bytes) else {
            return Err(ToolError::script_failed(
                "the browser's screenshot is neither a PNG nor a JPEG",
            ));
        };
        Screenshot::from_result(json!({
            "data": allwright_surface_web::base64::encode(&bytes),
            "mimeType": if jpeg { "image/jpeg" } else { "image/png" },
            "width": width,
            "height": height,
            "format": if jpeg { "jpeg" } else { "png" },
            "scope": scope.name(),
            "method": "bidi",
        }))
    }

    /// One element's picture: marked by the extension, found and captured over BiDi, unmarked.
    async fn element_screenshot(
        &self,
        host: &Arc<HostClient>,
        target: &super::TargetTab,
        tab_context: &str,
        arguments: &Value,
        format: ImageFormat,
    ) -> Result<Vec<u8>, ToolError> {
        let begin_arguments = json!({
            "tabId": target.tab_id,
            "frameId": arguments.get("frameId"),
            "ref_id": arguments["ref_id"],
            "kind": "locate",
        });
        let begun = self
            .unless_prompt_blocks(
                target,
                host.call("bridge_begin_input", begin_arguments, LOCATE_TIMEOUT),
            )
            .await?;
        let (Some(token), Some(marker)) = (begun["token"].as_str(), begun["marker"].as_str())
        else {
            return Err(ToolError::script_failed(format!(
                "the extension marked the element without a token and marker: {begun}"
            )));
        };
        let token = token.to_owned();
        let captured = if is_marker(marker) {
            self.unless_prompt_blocks(
                target,
                self.capture_marked_element(tab_context, marker, format),
            )
            .await
        } else {
            Err(ToolError::script_failed(format!(
                "the extension's marker {marker:?} is not 32 hex digits"
            )))
        };
        self.abort_input(host, &token).await;
        captured
    }

    /// Finds the one element carrying `marker` in the tab's documents and captures its box.
    async fn capture_marked_element(
        &self,
        tab_context: &str,
        marker: &str,
        format: ImageFormat,
    ) -> Result<Vec<u8>, ToolError> {
        let page = Page::new(self.bidi(), tab_context);
        let Some(element) = self.marked_element(tab_context, marker).await? else {
            return Err(ToolError::not_supported_here(
                "the element cannot be reached over BiDi (it is in a closed shadow root, or the page removed the marker the extension set on it)",
            )
            .with_hint("Take the viewport (leave ref_id out) or a screenshot of an element around it."));
        };
        page.frame(&element.context)
            .screenshot(&ScreenshotArea::Element(element.element), format)
            .await
            .map_err(element_operation_failed)
    }
}

/// The marker is interpolated into a selector: only the 32 hex digits the content script makes
/// are accepted.
fn is_marker(marker: &str) -> bool {
    marker.len() == 32 && marker.bytes().all(|byte| byte.is_ascii_hexdigit())
}

fn element_operation_failed(error: allwright_surface_web::PageError) -> ToolError {
    ToolError::element_operation_failed(error.tool_error_code(), error.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_content_scripts_markers_enter_a_selector() {
        assert!(is_marker("0123456789abcdef0123456789ABCDEF"));
        assert!(!is_marker("0123456789abcdef0123456789abcde\""));
        assert!(!is_marker("short"));
    }
}
