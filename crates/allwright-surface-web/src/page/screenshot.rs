//! Screenshots of a page, an element or a box (WebDriver BiDi, browsingContext.captureScreenshot),
//! with Chromium's frame fallback: a frame is captured from its tab as a translated box.

use std::time::Duration;

use super::params::{self, ImageFormat, ScreenshotArea};
use super::{element_argument, remote_json, scripts, ElementHandle, Page, PageError};
use crate::bidi::BidiErrorKind;

/// Screenshots of a long page take a while to encode; give them more than a plain command.
const SCREENSHOT_TIMEOUT: Duration = Duration::from_secs(60);

impl Page<'_> {
    /// A screenshot as image bytes (PNG or JPEG, decoded from BiDi's base64).
    ///
    /// SPEC DIFFERENCE: Chromium 156 captures top-level contexts only ("Non-top-level
    /// 'context' ... is currently not supported"); Firefox 153 captures a frame's viewport and
    /// elements directly. For a frame in Chromium, the viewport, an element (scrolled into
    /// view) or a box is captured from the tab as a box translated by the frames' positions;
    /// a frame's full page cannot be, and fails with the browser's error.
    pub async fn screenshot(
        &self,
        area: &ScreenshotArea,
        format: ImageFormat,
    ) -> Result<Vec<u8>, PageError> {
        let tab_in_front = self.bring_a_hidden_tab_to_the_front().await;
        let captured = self.screenshot_of_a_shown_tab(area, format).await;
        if let Some(tab_in_front) = tab_in_front {
            // Best effort: the picture is taken whether or not the other tab comes back.
            let _ = self.activate(&tab_in_front).await;
        }
        captured
    }

    /// SPEC DIFFERENCE: WebDriver BiDi captures any top-level context, shown or not, but
    /// headless Chromium composites no frame for a tab in the background, and its
    /// captureScreenshot then waits for one that may never come: the hidden-tab check of
    /// `bridge::screenshots_over_bidi` answered in under 2 s alone and hung past 30 s with a
    /// Firefox test running beside it on two cores (other BiDi and CDP clients report the same
    /// hang). A tab whose document is hidden is therefore brought to the front
    /// (`browsingContext.activate`) for the capture, and the tab that was in front is answered,
    /// to be given the front back once the picture is taken. Any failure here leaves the tabs as
    /// they are and the capture tries anyway.
    async fn bring_a_hidden_tab_to_the_front(&self) -> Option<String> {
        if self.visibility_state_in(self.context).await.as_deref() != Some("hidden") {
            return None;
        }
        let mut tab = self.context.to_owned();
        while let Ok(Some(parent)) = self.parent_context(&tab).await {
            tab = parent;
        }
        let tabs = self
            .connection
            .command(
                "browsingContext.getTree",
                serde_json::json!({ "maxDepth": 0 }),
            )
            .await
            .ok()?;
        let mut tab_in_front = None;
        for other in params::top_level_contexts(&tabs) {
            if other != tab && self.visibility_state_in(&other).await.as_deref() == Some("visible")
            {
                tab_in_front = Some(other);
                break;
            }
        }
        self.activate(&tab).await.ok()?;
        tab_in_front
    }

    /// `document.visibilityState` of the document in `context`; None when it cannot be read.
    async fn visibility_state_in(&self, context: &str) -> Option<String> {
        let remote = self
            .call_in(context, "() => document.visibilityState", Vec::new())
            .await
            .ok()?;
        params::remote_string(&remote).ok()
    }

    async fn activate(&self, context: &str) -> Result<(), PageError> {
        self.connection
            .command(
                "browsingContext.activate",
                serde_json::json!({ "context": context }),
            )
            .await?;
        Ok(())
    }

    async fn screenshot_of_a_shown_tab(
        &self,
        area: &ScreenshotArea,
        format: ImageFormat,
    ) -> Result<Vec<u8>, PageError> {
        // SPEC DIFFERENCE: an element clip (`clip: {type: "element"}`) is placed by Chromium
        // 156's mapper from the element's client rectangle as if it were in document
        // coordinates, so on a scrolled page the picture comes from the wrong place (a green box
        // at y 2400, scrolled into view, came back white). An element is therefore captured as
        // its box in document coordinates, in both browsers, without scrolling.
        let requested = area;
        let element_box;
        let area = match area {
            ScreenshotArea::Element(element) => {
                element_box = self.element_box_in_document(element).await?;
                &element_box
            }
            _ => area,
        };
        match self.capture_screenshot(self.context, area, format).await {
            Err(PageError::Bidi(error))
                if error.kind == BidiErrorKind::Unsupported
                    && *area != ScreenshotArea::FullPage =>
            {
                let Some(frame_box) = self.frame_area_box(requested).await? else {
                    return Err(PageError::Bidi(error));
                };
                let (top_level, origin_x, origin_y) = self.viewport_origin_in_top_level().await?;
                let ScreenshotArea::Box {
                    x,
                    y,
                    width,
                    height,
                } = frame_box
                else {
                    return Err(PageError::Bidi(error));
                };
                let translated = ScreenshotArea::Box {
                    x: x + origin_x,
                    y: y + origin_y,
                    width,
                    height,
                };
                self.capture_screenshot(&top_level, &translated, format)
                    .await
            }
            other => other,
        }
    }

    async fn capture_screenshot(
        &self,
        context: &str,
        area: &ScreenshotArea,
        format: ImageFormat,
    ) -> Result<Vec<u8>, PageError> {
        let result = self
            .connection
            .command_with_timeout(
                "browsingContext.captureScreenshot",
                params::capture_screenshot_params(context, area, format),
                SCREENSHOT_TIMEOUT,
            )
            .await?;
        params::screenshot_bytes(&result)
    }

    /// An element's border box `(x, y, width, height)` as `script` (one of the page scripts
    /// that answer JSON `{x, y, width, height}`) measures it; an element that is not laid out is
    /// [`PageError::NotVisible`].
    async fn element_box(
        &self,
        element: &ElementHandle,
        script: &str,
    ) -> Result<(f64, f64, f64, f64), PageError> {
        let found = remote_json(&self.call(script, vec![element_argument(element)]).await?)?;
        match (
            found["x"].as_f64(),
            found["y"].as_f64(),
            found["width"].as_f64(),
            found["height"].as_f64(),
        ) {
            (Some(x), Some(y), Some(width), Some(height)) if width > 0.0 && height > 0.0 => {
                Ok((x, y, width, height))
            }
            _ => Err(PageError::NotVisible),
        }
    }

    /// An element's border box in its document's coordinates, nothing scrolled.
    async fn element_box_in_document(
        &self,
        element: &ElementHandle,
    ) -> Result<ScreenshotArea, PageError> {
        let (x, y, width, height) = self
            .element_box(element, scripts::ELEMENT_BOX_IN_DOCUMENT)
            .await?;
        Ok(ScreenshotArea::DocumentBox {
            x,
            y,
            width,
            height,
        })
    }

    /// The area as a box of this context's viewport (a frame's, for the fallback above):
    /// `None` for an area that has no such box (the full page).
    async fn frame_area_box(
        &self,
        area: &ScreenshotArea,
    ) -> Result<Option<ScreenshotArea>, PageError> {
        match area {
            ScreenshotArea::FullPage => Ok(None),
            ScreenshotArea::Box { .. } => Ok(Some(area.clone())),
            // A document box is a viewport box once the document's scroll is taken off.
            ScreenshotArea::DocumentBox {
                x,
                y,
                width,
                height,
            } => {
                let scroll = remote_json(&self.call(scripts::DOCUMENT_SCROLL, Vec::new()).await?)?;
                match (scroll["x"].as_f64(), scroll["y"].as_f64()) {
                    (Some(scroll_x), Some(scroll_y)) => Ok(Some(ScreenshotArea::Box {
                        x: x - scroll_x,
                        y: y - scroll_y,
                        width: *width,
                        height: *height,
                    })),
                    _ => Err(PageError::UnexpectedResult(format!(
                        "the document's scroll is {scroll}"
                    ))),
                }
            }
            ScreenshotArea::Viewport => {
                let size = remote_json(&self.call(scripts::VIEWPORT_SIZE, Vec::new()).await?)?;
                match (size["width"].as_f64(), size["height"].as_f64()) {
                    (Some(width), Some(height)) => Ok(Some(ScreenshotArea::Box {
                        x: 0.0,
                        y: 0.0,
                        width,
                        height,
                    })),
                    _ => Err(PageError::UnexpectedResult(format!(
                        "the viewport is {size}"
                    ))),
                }
            }
            ScreenshotArea::Element(element) => {
                let (x, y, width, height) = self
                    .element_box(element, scripts::ELEMENT_BOX_IN_VIEW)
                    .await?;
                Ok(Some(ScreenshotArea::Box {
                    x,
                    y,
                    width,
                    height,
                }))
            }
        }
    }
}
