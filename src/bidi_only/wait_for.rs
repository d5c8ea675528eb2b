//! `wait_for` in BiDi-only mode: the extension's wait (extension/background/reads/wait-for.js)
//! with its looks made by the content script's own functions in each document's sandbox
//! (content/actions/wait-conditions.js, bundled into the collector): a text shown in any
//! document of the tab, a text shown in none, or a ref's element in a state. Not reaching the
//! condition in time is an answer (`met: false` with what was seen last), not an error.
//!
//! The one difference: a text found in a frame is not named by a `frameId`, since frames have no
//! ids in this mode yet (docs/grid.md, "BiDi-only mode").

use std::time::{Duration, Instant};

use allwright_surface_web::snapshot::{call_collector_function, plan_documents};
use serde_json::{json, Value};

use crate::tool_error::ToolError;

use super::{bidi_failure, refuse_frame_id, snapshot_failure, BidiOnlyTools};

/// How often the condition is looked at: often at first, since most waits end within a second
/// or two, then less (the extension's LOOK_INTERVAL_MS, LATER_LOOK_INTERVAL_MS and
/// FREQUENT_LOOKS_FOR_MS).
const LOOK_INTERVAL: Duration = Duration::from_millis(100);
const LATER_LOOK_INTERVAL: Duration = Duration::from_millis(250);
const FREQUENT_LOOKS_FOR: Duration = Duration::from_secs(2);
/// The default of `timeoutMs` (src/tools/table.rs).
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);
/// How long one document may take to answer one look.
const LOOK_TIMEOUT: Duration = Duration::from_secs(2);

const LOOK_FOR_TEXT: &str = "function (text) {
  const surface = globalThis.allwrightSurface;
  if (surface === undefined) return null;
  return surface.lookForText(text);
}";

const LOOK_AT_ELEMENT: &str = "function (reference, state) {
  const surface = globalThis.allwrightSurface;
  if (surface === undefined) return null;
  return surface.lookAtElement(reference, state);
}";

/// One look's answer: whether the condition holds, and what was seen.
struct Look {
    met: bool,
    last_seen: Value,
    hint: Option<String>,
}

impl BidiOnlyTools {
    /// `wait_for({text} | {textGone} | {ref_id, state}, timeoutMs, tabId?)`.
    pub(super) async fn wait_for(&self, arguments: &Value) -> Result<Value, ToolError> {
        refuse_frame_id(
            arguments,
            "Leave frameId out: a text is looked for in every frame of the tab.",
        )?;
        let context = self.context_for(arguments).await?;
        let started = Instant::now();
        let timeout = arguments
            .get("timeoutMs")
            .and_then(Value::as_u64)
            .map(Duration::from_millis)
            .unwrap_or(DEFAULT_TIMEOUT);
        let deadline = started + timeout;
        let reference = arguments.get("ref_id").and_then(Value::as_str);
        if let Some(reference) = reference {
            self.refuse_a_ref_never_printed(&context, reference).await?;
        }
        loop {
            let look = match reference {
                Some(reference) => {
                    let state = arguments
                        .get("state")
                        .and_then(Value::as_str)
                        .unwrap_or("visible");
                    self.look_at_element(&context, reference, state).await?
                }
                None => {
                    let (text, until_gone) = match arguments.get("textGone").and_then(Value::as_str)
                    {
                        Some(gone) => (gone, true),
                        None => (arguments["text"].as_str().unwrap_or_default(), false),
                    };
                    self.look_for_text(&context, text, until_gone).await?
                }
            };
            let waited = started.elapsed();
            if look.met {
                return Ok(json!({ "met": true, "waitedMs": waited.as_millis() as u64 }));
            }
            if Instant::now() >= deadline {
                let mut result = json!({
                    "met": false,
                    "waitedMs": waited.as_millis() as u64,
                    "reason": "timeout",
                    "lastSeen": look.last_seen,
                });
                if let Some(hint) = look.hint {
                    result["hint"] = json!(hint);
                }
                return Ok(result);
            }
            let interval = if waited < FREQUENT_LOOKS_FOR {
                LOOK_INTERVAL
            } else {
                LATER_LOOK_INTERVAL
            };
            tokio::time::sleep(interval.min(deadline.saturating_duration_since(Instant::now())))
                .await;
        }
    }

    /// A ref the tab never printed is refused at once, as an action would refuse it: its number
    /// is above every number the tab's reads handed out (the extension tells it from the tab's
    /// ref record; a printed ref whose element went counts as removed).
    pub(super) async fn refuse_a_ref_never_printed(
        &self,
        context: &str,
        reference: &str,
    ) -> Result<(), ToolError> {
        let number: u64 = reference
            .strip_prefix("ref_")
            .and_then(|digits| digits.parse().ok())
            .unwrap_or(u64::MAX);
        let floor = self
            .tabs
            .lock()
            .await
            .ref_floors
            .get(context)
            .copied()
            .unwrap_or(0);
        if number == 0 || number > floor {
            return Err(ToolError::new(
                "ref_not_found",
                format!("{reference} was never printed in this tab"),
            )
            .with_hint(
                "Read the page with get_accessibility_tree (or find) and wait for one of its refs.",
            ));
        }
        Ok(())
    }

    async fn look_at_element(
        &self,
        context: &str,
        reference: &str,
        state: &str,
    ) -> Result<Look, ToolError> {
        let answer = call_collector_function(
            self.bidi(),
            context,
            LOOK_AT_ELEMENT,
            vec![
                json!({"type": "string", "value": reference}),
                json!({"type": "string", "value": state}),
            ],
            LOOK_TIMEOUT,
        )
        .await;
        let seen = match answer {
            Ok(answer) => serde_json::from_str::<Value>(&answer)
                .map_err(|error| ToolError::script_failed(format!("wait_for's look: {error}")))?,
            // The document went away or navigated: the element is gone with it.
            Err(_) => {
                json!({ "met": state == "removed" || state == "hidden", "lastSeen": "removed" })
            }
        };
        Ok(Look {
            met: seen["met"] == true,
            last_seen: seen["lastSeen"].clone(),
            hint: Some(format!("{reference} did not become {state} in time.")),
        })
    }

    /// Looks for a text in every document of the tab; a document that cannot answer (it is
    /// navigating) counts as showing nothing, and the next look asks it again.
    async fn look_for_text(
        &self,
        context: &str,
        text: &str,
        until_gone: bool,
    ) -> Result<Look, ToolError> {
        let tree = self
            .bidi()
            .command("browsingContext.getTree", json!({ "root": context }))
            .await
            .map_err(|error| bidi_failure("reading the tab's frames", &error))?;
        let mut showing: Option<Value> = None;
        for document in plan_documents(&tree).map_err(snapshot_failure)? {
            let answer = call_collector_function(
                self.bidi(),
                &document.context,
                LOOK_FOR_TEXT,
                vec![json!({"type": "string", "value": text})],
                LOOK_TIMEOUT,
            )
            .await;
            let Ok(answer) = answer else { continue };
            let Ok(seen) = serde_json::from_str::<Value>(&answer) else {
                continue;
            };
            if seen["shown"] == true {
                showing = Some(seen);
                break;
            }
        }
        Ok(match (showing, until_gone) {
            (None, true) => Look {
                met: true,
                last_seen: Value::Null,
                hint: None,
            },
            (Some(seen), true) => Look {
                met: false,
                last_seen: json!({ "shown": true, "excerpt": seen["excerpt"] }),
                hint: Some("The text is still on the page: read it to see why (a spinner, an error), or wait longer.".to_owned()),
            },
            (Some(_), false) => Look {
                met: true,
                last_seen: Value::Null,
                hint: None,
            },
            (None, false) => Look {
                met: false,
                last_seen: json!({ "shown": false }),
                hint: Some("The text never appeared: read the page (get_accessibility_tree or find) to see what it shows instead.".to_owned()),
            },
        })
    }
}
