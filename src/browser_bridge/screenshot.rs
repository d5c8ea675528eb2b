//! `screenshot` in a browser the server holds a BiDi session on (docs/protocol/browser-bridge.md, "The browser
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

/// The JPEG quality of the extension's captures (extension/background/captures/screenshot.js), so that
/// both paths give pictures of the same kind.
const JPEG_QUALITY: u8 = 90;
/// What screenshot's arguments ask of a capture over BiDi, read once for the bridge and for
/// BiDi-only mode (src/bidi_only/screenshot.rs): the picture's format, and the whole page or
/// one element by ref.
pub(crate) struct CaptureRequest<'arguments> {
    pub format: ImageFormat,
    pub jpeg: bool,
    pub full_page: bool,
    pub reference: Option<&'arguments str>,
}

impl<'arguments> CaptureRequest<'arguments> {
    /// The request of validated arguments; `fullPage` with `ref_id` is refused.
    pub(crate) fn of(arguments: &'arguments Value) -> Result<Self, ToolError> {
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
        Ok(Self {
            format,
            jpeg,
            full_page,
            reference,
        })
    }
}

/// How long marking the element may take.
const LOCATE_TIMEOUT: Duration = Duration::from_secs(20);
/// How long painting, or taking away, the masks over a tab's secret fields may take (the
/// extension's own limit, SECRET_MASK_TIMEOUT_MS in extension/background/host/budgets.js, is 5 s).
const MASK_TIMEOUT: Duration = Duration::from_secs(10);

/// How many secret fields the extension painted over for one picture
/// (extension/background/captures/secret-masks.js).
#[derive(Debug, Clone, Copy)]
struct SecretMasks {
    /// In the tab's documents, wherever they are.
    in_documents: u64,
    /// In each frame's viewport.
    in_viewport: u64,
    /// Frames the extension could not script.
    frames_not_masked: u64,
}

impl SecretMasks {
    /// The number the result reports: the whole documents for a full page, the viewport else.
    fn count(self, scope: Scope) -> u64 {
        if scope == Scope::FullPage {
            self.in_documents
        } else {
            self.in_viewport
        }
    }
}

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
        let CaptureRequest {
            format,
            jpeg,
            full_page,
            reference,
        } = CaptureRequest::of(&arguments)?;
        let ((bytes, masks), scope) = match reference {
            None => {
                let (area, scope) = if full_page {
                    (ScreenshotArea::FullPage, Scope::FullPage)
                } else {
                    (ScreenshotArea::Viewport, Scope::Viewport)
                };
                let page = Page::new(self.bidi(), &tab_context);
                let captured = self
                    .with_secrets_masked(host, &target, async {
                        self.unless_prompt_blocks(&target, async {
                            page.screenshot(&area, format)
                                .await
                                .map_err(element_operation_failed)
                        })
                        .await
                    })
                    .await?;
                (captured, scope)
            }
            Some(_) => {
                let captured = self
                    .element_screenshot(host, &target, &tab_context, &arguments, format)
                    .await?;
                (captured, Scope::Element)
            }
        };
        // A tab named by tabId may have been brought to the front for the picture (headless
        // Chromium paints no tab in the background: crates/allwright-surface-web's
        // screenshot.rs), which gives the front back to the tab it saw visible, if it saw one.
        // The agent's active tab gets the front and the focus back here whatever that saw: a
        // rehearsal on a loaded machine left the next page of the session without focus.
        if tab_id.is_some() {
            self.activate_the_active_tab(host).await;
        }
        let Some((width, height)) = image_dimensions(&bytes) else {
            return Err(ToolError::script_failed(
                "the browser's screenshot is neither a PNG nor a JPEG",
            ));
        };
        let mut result = json!({
            "data": allwright_surface_web::base64::encode(&bytes),
            "mimeType": if jpeg { "image/jpeg" } else { "image/png" },
            "width": width,
            "height": height,
            "format": if jpeg { "jpeg" } else { "png" },
            "scope": scope.name(),
            "method": "bidi",
            "maskedSecretFields": masks.count(scope),
        });
        if masks.frames_not_masked > 0 {
            result["framesNotMasked"] = json!(masks.frames_not_masked);
            result["hint"] = json!(format!(
                "{} frame(s) of the tab could not be scripted, so secret fields in them, if any, are not masked.",
                masks.frames_not_masked
            ));
        }
        Screenshot::from_result(result)
    }

    /// Runs `capture` with every secret field of the tab painted over by the extension
    /// (`bridge_mask_secrets`, extension/background/captures/secret-masks.js), and takes the masks away
    /// after it whatever happened (`bridge_unmask_secrets`). A picture taken while a frame's
    /// masks did not stay in place over fields that stayed where they were is thrown away.
    async fn with_secrets_masked(
        &self,
        host: &Arc<HostClient>,
        target: &super::TargetTab,
        capture: impl std::future::Future<Output = Result<Vec<u8>, ToolError>>,
    ) -> Result<(Vec<u8>, SecretMasks), ToolError> {
        let painted = self
            .unless_prompt_blocks(
                target,
                host.call(
                    "bridge_mask_secrets",
                    json!({ "tabId": target.tab_id }),
                    MASK_TIMEOUT,
                ),
            )
            .await?;
        let Some(token) = painted["token"].as_str().filter(|token| is_marker(token)) else {
            return Err(ToolError::script_failed(format!(
                "the extension painted the secret fields' masks without a token: {painted}"
            )));
        };
        let masks = SecretMasks {
            in_documents: painted["masked"].as_u64().unwrap_or(0),
            in_viewport: painted["maskedInViewport"].as_u64().unwrap_or(0),
            frames_not_masked: painted["framesNotMasked"].as_u64().unwrap_or(0),
        };
        let captured = capture.await;
        let removed = host
            .call(
                "bridge_unmask_secrets",
                json!({ "token": token }),
                MASK_TIMEOUT,
            )
            .await;
        let bytes = captured?;
        if removed.ok().and_then(|answer| answer["intact"].as_bool()) != Some(true) {
            return Err(ToolError::script_failed(
                "the page moved, removed or covered the boxes that hide its secret fields while the screenshot was taken, so the picture was thrown away",
            )
            .with_hint("Take the screenshot again once the page is still; a page that keeps moving its password or card fields cannot be captured."));
        }
        Ok((bytes, masks))
    }

    /// One element's picture: marked by the extension, found and captured over BiDi, unmarked.
    async fn element_screenshot(
        &self,
        host: &Arc<HostClient>,
        target: &super::TargetTab,
        tab_context: &str,
        arguments: &Value,
        format: ImageFormat,
    ) -> Result<(Vec<u8>, SecretMasks), ToolError> {
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
            // The masks go on once the element was scrolled into view, so that they are
            // measured where the picture finds the fields.
            self.with_secrets_masked(
                host,
                target,
                self.unless_prompt_blocks(
                    target,
                    self.capture_marked_element(tab_context, marker, format),
                ),
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
/// are accepted (the masks' token has the same form).
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
