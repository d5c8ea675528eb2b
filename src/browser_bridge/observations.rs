//! console_messages and network_requests in a browser the bridge holds (docs/agent-tools.md,
//! "The page's console and network"): the bridge records the tab's console and requests from
//! BiDi events from the start of the session (allwright_surface_web::observations) and answers
//! both tools itself, without the extension, through the reading rules of
//! src/page_observations.rs (filters, masks, lines).

use std::sync::Arc;

use allwright_surface_web::observations::ObservationRecorder;
use serde_json::{json, Value};

use super::{BrowserBridge, TargetTab, IDENTIFY_TIMEOUT};
use crate::host_client::HostClient;
use crate::page_observations::{console_result, network_result, ObservationQuery};
use crate::tool_error::ToolError;

/// The tools the bridge answers from its records.
pub(crate) const OBSERVATION_TOOLS: &[&str] = &["console_messages", "network_requests"];

impl BrowserBridge {
    /// console_messages or network_requests for the call's tab.
    pub(super) async fn page_observations(
        &self,
        host: &Arc<HostClient>,
        tool: &str,
        target: &TargetTab,
        arguments: &Value,
    ) -> Result<Value, ToolError> {
        let Some(context) = target.context.as_deref() else {
            // The extension could not say which tab the call is for (none is open, or it does
            // not answer): its own answer says why.
            host.call(
                "bridge_identify_tab",
                json!({ "tabId": target.tab_id }),
                IDENTIFY_TIMEOUT,
            )
            .await?;
            return Err(ToolError::script_failed(
                "the browser's own name for the tab could not be found, so its records cannot be read",
            ));
        };
        let tab = self.lifecycle.tab_of(context);
        Ok(read_observations(&self.observations, tool, &tab, arguments))
    }
}

/// console_messages or network_requests of one tab (`tab`: its top-level context) from a
/// recorder's records, read by the rules of src/page_observations.rs: the bridge's answer, and
/// BiDi-only mode's (src/bidi_only/).
pub(crate) fn read_observations(
    recorder: &ObservationRecorder,
    tool: &str,
    tab: &str,
    arguments: &Value,
) -> Value {
    let tab = tab.to_owned();
    let query = ObservationQuery::of(arguments);
    recorder.read(|observations, tab_of| {
        if tool == "console_messages" {
            console_result(
                observations.console_of(&tab, tab_of).into_iter(),
                observations.console_dropped(&tab),
                observations.last_sequence(),
                &query,
            )
        } else {
            network_result(
                observations.requests_of(&tab, tab_of).into_iter(),
                observations.requests_dropped(&tab),
                observations.last_sequence(),
                &query,
            )
        }
    })
}
