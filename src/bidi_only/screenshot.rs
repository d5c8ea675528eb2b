//! `screenshot` in BiDi-only mode: `browsingContext.captureScreenshot` of the tab, as the browser
//! bridge takes it (src/browser_bridge/screenshot.rs), with every secret field of every document
//! of the tab painted over first by the content script's own masks (content/dom/secret-masks.js,
//! bundled into the collector: docs/protocol/action-safety.md, "Secrets stay secret").
//!
//! The one thing a sandbox realm cannot do that the content script does is open a closed shadow
//! root. WebDriver BiDi can: a node serialized with `includeShadowTree: "all"` names its shadow
//! root, closed or open (WebDriver BiDi, "serialize as a remote value"), and that root can be
//! handed back to the sandbox as a remote reference. So each document's closed roots are found
//! over BiDi, round after round into the roots found (a closed root inside a closed root), and
//! handed to the masks.

use std::time::Duration;

use allwright_surface_web::page::{image_dimensions, ScreenshotArea};
use allwright_surface_web::snapshot::{call_collector_function, plan_documents, SANDBOX};
use allwright_surface_web::{ElementHandle, Page};
use serde_json::{json, Value};

use crate::browser_bridge::{random_marker, CaptureRequest};
use crate::screenshot::Screenshot;
use crate::tool_error::ToolError;

use super::{bidi_failure, refuse_frame_id, snapshot_failure, BidiOnlyTools};

/// How long painting, or taking away, one document's masks may take (the extension's own limit
/// is 5 s: SECRET_MASK_TIMEOUT_MS in extension/background/host/budgets.js).
const MASK_TIMEOUT: Duration = Duration::from_secs(10);
/// How deep closed shadow roots nest before the search stops looking further in; a document
/// with deeper ones is not masked (and counted in `framesNotMasked`).
const CLOSED_ROOT_ROUNDS: usize = 16;

/// The elements of the given roots (the document when none), and of the open shadow roots in
/// them, that have no open shadow root: the only elements a closed one can hang off (custom
/// elements only when `customOnly`). Run in the collector's sandbox, so that the page's own
/// scripts cannot answer for the document.
pub(super) const SHADOW_HOST_CANDIDATES: &str = "function (customOnly, ...roots) {
  const queue = roots.length === 0 ? [document] : roots;
  const candidates = [];
  for (let index = 0; index < queue.length; index++) {
    for (const element of queue[index].querySelectorAll('*')) {
      if (element.shadowRoot !== null) queue.push(element.shadowRoot);
      else if (!customOnly || element.localName.includes('-')) candidates.push(element);
    }
  }
  return candidates;
}";

/// Paints the masks with the handed closed roots (`paintMasks` of surface/bidi-snapshot.js).
const PAINT_MASKS: &str = "async function (token, ...roots) {
  const surface = globalThis.allwrightSurface;
  if (surface === undefined) return null;
  return await surface.paintMasks(token, roots);
}";

/// Takes them away (`removeMasks`).
const REMOVE_MASKS: &str = "function (token) {
  const surface = globalThis.allwrightSurface;
  if (surface === undefined) return null;
  return surface.removeMasks(token);
}";

/// The element of a ref in the collector's registry, scrolled into view, or null.
const ELEMENT_OF_REF: &str = "function (reference) {
  const element = typeof globalThis.__wb_ax_lookup === 'function' ? globalThis.__wb_ax_lookup(reference) : null;
  if (element === null) return null;
  element.scrollIntoView({ block: 'center', inline: 'center' });
  return element;
}";

/// How many secret fields the masks covered.
#[derive(Debug, Default, Clone, Copy)]
struct Masks {
    in_documents: u64,
    in_viewport: u64,
    documents_not_masked: u64,
}

impl BidiOnlyTools {
    /// `screenshot({ref_id?, fullPage?, format, tabId?})` over BiDi alone, unless a user prompt
    /// blocks the tab.
    pub async fn screenshot(&self, arguments: Value) -> Result<Screenshot, ToolError> {
        let context = self.context_for(&arguments).await?;
        self.unless_a_prompt_blocks(&context, self.capture(arguments))
            .await
    }

    async fn capture(&self, arguments: Value) -> Result<Screenshot, ToolError> {
        refuse_frame_id(
            &arguments,
            "Leave frameId out: the tab's picture shows its frames.",
        )?;
        let context = self.context_for(&arguments).await?;
        let CaptureRequest {
            format,
            jpeg,
            full_page,
            reference,
        } = CaptureRequest::of(&arguments)?;
        let (area, scope) = match reference {
            Some(reference) => (
                ScreenshotArea::Element(self.element_of(&context, reference).await?),
                "element",
            ),
            None if full_page => (ScreenshotArea::FullPage, "fullPage"),
            None => (ScreenshotArea::Viewport, "viewport"),
        };
        let token = random_marker()
            .ok_or_else(|| ToolError::script_failed("no random source for the masks' token"))?;
        let (masks, painted) = self.paint_masks(&context, &token).await?;
        let captured = Page::new(self.bidi(), &context)
            .screenshot(&area, format)
            .await
            .map_err(|error| {
                ToolError::element_operation_failed(error.tool_error_code(), error.to_string())
            });
        let intact = self.remove_masks(&painted, &token).await;
        let bytes = captured?;
        if !intact {
            return Err(ToolError::script_failed(
                "the page moved, removed or covered the boxes that hide its secret fields while the screenshot was taken, so the picture was thrown away",
            )
            .with_hint("Take the screenshot again once the page is still; a page that keeps moving its password or card fields cannot be captured."));
        }
        let Some((width, height)) = image_dimensions(&bytes) else {
            return Err(ToolError::script_failed(
                "the browser's screenshot is neither a PNG nor a JPEG",
            ));
        };
        let masked = if scope == "fullPage" {
            masks.in_documents
        } else {
            masks.in_viewport
        };
        let mut result = json!({
            "data": allwright_surface_web::base64::encode(&bytes),
            "mimeType": if jpeg { "image/jpeg" } else { "image/png" },
            "width": width,
            "height": height,
            "format": if jpeg { "jpeg" } else { "png" },
            "scope": scope,
            "method": "bidi",
            "maskedSecretFields": masked,
        });
        if masks.documents_not_masked > 0 {
            result["framesNotMasked"] = json!(masks.documents_not_masked);
            result["hint"] = json!(format!(
                "{} frame(s) of the tab could not be scripted, so secret fields in them, if any, are not masked.",
                masks.documents_not_masked
            ));
        }
        Screenshot::from_result(result)
    }

    /// The element a ref names in the tab's top document (the registry of the collector's
    /// sandbox), scrolled into view; `ref_not_found` when it is gone.
    async fn element_of(&self, context: &str, reference: &str) -> Result<ElementHandle, ToolError> {
        let answer = self
            .bidi()
            .command(
                "script.callFunction",
                json!({
                    "functionDeclaration": ELEMENT_OF_REF,
                    "arguments": [{"type": "string", "value": reference}],
                    "target": {"context": context, "sandbox": SANDBOX},
                    "awaitPromise": false,
                    "resultOwnership": "none",
                    "serializationOptions": {"maxDomDepth": 0},
                }),
            )
            .await
            .map_err(|error| bidi_failure("finding the element", &error))?;
        match answer["result"]["sharedId"].as_str() {
            Some(shared_id) => Ok(ElementHandle {
                shared_id: shared_id.to_owned(),
            }),
            None => Err(ToolError::new(
                "ref_not_found",
                format!("{reference} was not found: the element is gone or the page changed."),
            )
            .with_hint("Read the tree again with get_accessibility_tree and use a current ref.")),
        }
    }

    /// Paints the masks in every document of the tab; the documents that painted them.
    async fn paint_masks(
        &self,
        context: &str,
        token: &str,
    ) -> Result<(Masks, Vec<String>), ToolError> {
        let tree = self
            .bidi()
            .command("browsingContext.getTree", json!({ "root": context }))
            .await
            .map_err(|error| bidi_failure("reading the tab's frames", &error))?;
        let documents = plan_documents(&tree).map_err(snapshot_failure)?;
        let mut masks = Masks::default();
        let mut painted = Vec::new();
        for document in documents {
            match self.paint_document_masks(&document.context, token).await {
                Ok((in_document, in_viewport)) => {
                    masks.in_documents += in_document;
                    masks.in_viewport += in_viewport;
                    painted.push(document.context);
                }
                Err(error) => {
                    crate::log!(
                        "a frame's secret fields could not be masked: {}",
                        error.code
                    );
                    masks.documents_not_masked += 1;
                }
            }
        }
        Ok((masks, painted))
    }

    /// One document's masks: its closed shadow roots found, then the boxes painted.
    async fn paint_document_masks(
        &self,
        context: &str,
        token: &str,
    ) -> Result<(u64, u64), ToolError> {
        let roots = self.closed_shadow_roots(context).await?;
        let mut arguments = vec![json!({"type": "string", "value": token})];
        arguments.extend(roots.iter().map(|root| json!({ "sharedId": root })));
        let answer =
            call_collector_function(self.bidi(), context, PAINT_MASKS, arguments, MASK_TIMEOUT)
                .await
                .map_err(snapshot_failure)?;
        let answer: Value = serde_json::from_str(&answer)
            .map_err(|error| ToolError::script_failed(format!("the masks' answer: {error}")))?;
        Ok((
            answer["masked"].as_u64().unwrap_or(0),
            answer["maskedInViewport"].as_u64().unwrap_or(0),
        ))
    }

    /// The shared ids of the document's closed shadow roots, nested ones included.
    async fn closed_shadow_roots(&self, context: &str) -> Result<Vec<String>, ToolError> {
        let mut found: Vec<String> = Vec::new();
        let mut searched_in: Vec<String> = Vec::new();
        for _ in 0..CLOSED_ROOT_ROUNDS {
            let answer = self
                .bidi()
                .command(
                    "script.callFunction",
                    json!({
                        "functionDeclaration": SHADOW_HOST_CANDIDATES,
                        "arguments": std::iter::once(json!({"type": "boolean", "value": false}))
                            .chain(searched_in.iter().map(|root| json!({ "sharedId": root })))
                            .collect::<Vec<_>>(),
                        "target": {"context": context, "sandbox": SANDBOX},
                        "awaitPromise": false,
                        "resultOwnership": "none",
                        "serializationOptions": {"maxDomDepth": 0, "maxObjectDepth": 1, "includeShadowTree": "all"},
                    }),
                )
                .await
                .map_err(|error| bidi_failure("looking for closed shadow roots", &error))?;
            if answer["type"] == "exception" {
                return Err(ToolError::script_failed(format!(
                    "looking for closed shadow roots failed: {}",
                    answer["exceptionDetails"]["text"]
                )));
            }
            let new_roots = closed_roots_in(&answer["result"]);
            if new_roots.is_empty() {
                return Ok(found);
            }
            found.extend(new_roots.iter().cloned());
            searched_in = new_roots;
        }
        Err(ToolError::script_failed(format!(
            "closed shadow roots nest deeper than {CLOSED_ROOT_ROUNDS}"
        )))
    }

    /// Takes the masks away in every document that painted them; whether they all stayed.
    async fn remove_masks(&self, painted: &[String], token: &str) -> bool {
        let mut intact = true;
        for context in painted {
            let answer = call_collector_function(
                self.bidi(),
                context,
                REMOVE_MASKS,
                vec![json!({"type": "string", "value": token})],
                MASK_TIMEOUT,
            )
            .await;
            let stayed = answer
                .ok()
                .and_then(|answer| serde_json::from_str::<Value>(&answer).ok())
                .is_some_and(|answer| answer["intact"] == true);
            intact = intact && stayed;
        }
        intact
    }
}

/// The shared ids of the closed shadow roots of the serialized elements of an array (WebDriver
/// BiDi, "script.NodeRemoteValue": `value.shadowRoot`, itself a node whose `value.mode` says
/// "closed" or "open").
fn closed_roots_in(array: &Value) -> Vec<String> {
    closed_hosts_and_roots_in(array)
        .into_iter()
        .map(|(_, root)| root)
        .collect()
}

/// The shared ids of the elements of a serialized array that host a closed shadow root, with
/// their roots'.
pub(super) fn closed_hosts_and_roots_in(array: &Value) -> Vec<(String, String)> {
    array["value"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default()
        .iter()
        .filter_map(|node| {
            let root = &node["value"]["shadowRoot"];
            if root["value"]["mode"] != "closed" {
                return None;
            }
            Some((
                node["sharedId"].as_str()?.to_owned(),
                root["sharedId"].as_str()?.to_owned(),
            ))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_closed_roots_are_taken() {
        let array = json!({"type": "array", "value": [
            {"type": "node", "sharedId": "a", "value": {"nodeType": 1, "shadowRoot": {"type": "node", "sharedId": "a-root", "value": {"nodeType": 11, "mode": "closed"}}}},
            {"type": "node", "sharedId": "b", "value": {"nodeType": 1, "shadowRoot": null}},
            {"type": "node", "sharedId": "c", "value": {"nodeType": 1, "shadowRoot": {"type": "node", "sharedId": "c-root", "value": {"nodeType": 11, "mode": "open"}}}},
        ]});
        assert_eq!(closed_roots_in(&array), ["a-root"]);
        assert!(closed_roots_in(&json!({"type": "array"})).is_empty());
    }
}
