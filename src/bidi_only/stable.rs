//! `wait_for_stable` in BiDi-only mode: the extension's wait (waitForStable in
//! extension/background/actions/actions.js) with its two halves over BiDi. The network half
//! reads the tab's requests as the surface records them (`network.beforeRequestSent`,
//! `responseCompleted`, `fetchError`: allwright_surface_web::observations) instead of the
//! extension's webRequest records; the page half is the content script's own `domQuiet`
//! (content/actions/evidence.js), run in the top document's sandbox.

use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use allwright_surface_web::snapshot::call_collector_function;
use serde_json::{json, Value};

use crate::tool_error::ToolError;

use super::BidiOnlyTools;

/// The defaults of `quietMs` and `timeoutMs` (src/tools/table.rs).
const DEFAULT_QUIET: Duration = Duration::from_millis(500);
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);
/// A request running longer than this is long-lived (a stream, a long poll): it does not hold
/// the page unstable (the extension's LONG_LIVED_REQUEST_MS).
const LONG_LIVED_REQUEST_MS: f64 = 10_000.0;
/// How often the network is looked at again while requests run.
const NETWORK_POLL: Duration = Duration::from_millis(100);

const WAIT_FOR_QUIET: &str = "async function (quietMs, timeoutMs) {
  const surface = globalThis.allwrightSurface;
  if (surface === undefined) return null;
  return await surface.waitForQuiet(quietMs, timeoutMs);
}";

/// The tab's requests now.
struct NetworkState {
    /// The URLs of the requests running, long-lived ones aside.
    pending: Vec<String>,
    long_lived: usize,
    /// When the last request started or ended, in milliseconds since the epoch.
    last_activity: f64,
}

fn now_ms() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|since| since.as_secs_f64() * 1_000.0)
        .unwrap_or(0.0)
}

impl BidiOnlyTools {
    /// `wait_for_stable({quietMs, timeoutMs, tabId?})`: stable once no request of the tab ran
    /// for `quietMs` and the top document then stayed unchanged for `quietMs`.
    pub(super) async fn wait_for_stable(&self, arguments: &Value) -> Result<Value, ToolError> {
        let context = self.context_for(arguments).await?;
        let duration = |name: &str, default: Duration| {
            arguments
                .get(name)
                .and_then(Value::as_u64)
                .map(Duration::from_millis)
                .unwrap_or(default)
        };
        let quiet = duration("quietMs", DEFAULT_QUIET);
        let timeout = duration("timeoutMs", DEFAULT_TIMEOUT);
        let started = Instant::now();
        let deadline = started + timeout;
        let mut mutations = 0_u64;
        let mut reason = "network";
        while Instant::now() < deadline {
            let network = self.network_state(&context);
            let quiet_for = now_ms() - network.last_activity;
            if !network.pending.is_empty() || quiet_for < quiet.as_millis() as f64 {
                reason = "network";
                tokio::time::sleep(
                    NETWORK_POLL.min(deadline.saturating_duration_since(Instant::now())),
                )
                .await;
                continue;
            }
            let remaining = deadline.saturating_duration_since(Instant::now());
            if remaining < quiet {
                break;
            }
            let activity_before = network.last_activity;
            let answer = call_collector_function(
                self.bidi(),
                &context,
                WAIT_FOR_QUIET,
                vec![
                    json!({"type": "number", "value": quiet.as_millis() as u64}),
                    json!({"type": "number", "value": remaining.as_millis() as u64}),
                ],
                remaining + Duration::from_secs(1),
            )
            .await;
            // A navigation replaced the document: the page is not stable yet; look again.
            let Some(dom) = answer
                .ok()
                .and_then(|answer| serde_json::from_str::<Value>(&answer).ok())
            else {
                reason = "navigation";
                tokio::time::sleep(NETWORK_POLL).await;
                continue;
            };
            mutations += dom["mutations"].as_u64().unwrap_or(0);
            let after = self.network_state(&context);
            if dom["quiet"] == true
                && after.last_activity == activity_before
                && after.pending.is_empty()
            {
                return Ok(json!({
                    "stable": true,
                    "waitedMs": started.elapsed().as_millis() as u64,
                    "pendingRequests": 0,
                    "mutations": mutations,
                    "longLivedRequests": network.long_lived,
                }));
            }
            reason = if dom["quiet"] == true {
                "network"
            } else {
                "dom"
            };
        }
        let network = self.network_state(&context);
        let hint = if reason == "dom" {
            "The page kept changing (an animation, a clock, a live feed?). Read it now; it may be as ready as it gets.".to_owned()
        } else {
            let running: Vec<&str> = network.pending.iter().take(3).map(String::as_str).collect();
            let running = if running.is_empty() {
                "(just finished)".to_owned()
            } else {
                running.join(", ")
            };
            format!("Requests still running: {running}. Read the page now or wait again.")
        };
        Ok(json!({
            "stable": false,
            "waitedMs": started.elapsed().as_millis() as u64,
            "pendingRequests": network.pending.len(),
            "mutations": mutations,
            "reason": reason,
            "hint": hint,
        }))
    }

    /// Whether the tab of `context` had no request running, and none starting or ending, for
    /// `quiet` (the extension's networkQuietFor: background/actions/actions.js).
    pub(super) fn network_quiet_for(&self, context: &str, quiet: Duration) -> bool {
        let network = self.network_state(context);
        network.pending.is_empty() && now_ms() - network.last_activity >= quiet.as_millis() as f64
    }

    /// The requests of the tab of `context`, as the surface recorded them.
    fn network_state(&self, context: &str) -> NetworkState {
        let now = now_ms();
        self.observations.read(|observations, tab_of| {
            let tab = tab_of(context);
            let mut state = NetworkState {
                pending: Vec::new(),
                long_lived: 0,
                last_activity: 0.0,
            };
            for request in observations.requests_of(&tab, tab_of) {
                let ended = request
                    .response
                    .as_ref()
                    .map(|response| response.finished_at);
                state.last_activity = state
                    .last_activity
                    .max(request.started_at)
                    .max(ended.unwrap_or(0.0));
                if ended.is_some() || request.failure.is_some() {
                    continue;
                }
                if now - request.started_at > LONG_LIVED_REQUEST_MS {
                    state.long_lived += 1;
                } else {
                    state.pending.push(request.url.clone());
                }
            }
            state
        })
    }
}
