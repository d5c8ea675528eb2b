//! The browser bridge: what the MCP server adds when it holds a WebDriver BiDi session on the
//! browser besides the extension's host (`allwright mcp --launch` or `--webdriver`).
//! docs/protocol/browser-bridge.md, "The browser bridge", describes it for the agent:
//!
//! - user prompts: a call for a tab that an `alert`/`confirm`/`prompt` blocks answers
//!   `dialog_open` at once (before it is relayed, or as soon as the prompt opens while it runs),
//!   and `handle_dialog` answers the prompt (`browsingContext.handleUserPrompt`);
//! - real input: with `--input trusted` (the default), `click_ax`, `iframe_click`, `hover` and
//!   `drag` are WebDriver BiDi pointer input, and `press_key` BiDi key input, observed by the
//!   extension as its own actions are (`input.rs`, `keys.rs`); with `--input synthetic` they are relayed to the extension like every other
//!   tool (src/input_mode.rs);
//! - lifecycle: each result carries the tab's BiDi lifecycle events since the previous call in
//!   that tab (`lifecycle`, `lifecycleDropped`), and `wait_for_stable` is not stable while a
//!   navigation of the tab has started and not loaded;
//! - emulation: `resize` gives the tab's viewport a size and `emulate` other user settings or
//!   another device, for the tab alone (`emulation.rs`).
//!
//! Extension tab ids and BiDi browsing-context ids are different namespaces. The bridge maps
//! one to the other with a random marker: the extension sets it on the tab's document element
//! (`bridge_identify_tab`, extension/background/host/bridge.js) and a BiDi sandbox query finds the
//! one top-level context whose document carries it. Why a hostile page cannot misdirect that
//! is said at [`BrowserBridge::map_tab_by_marker`].

mod emulation;
mod files;
mod input;
mod journal;
mod keys;
mod observations;
mod pdf;
mod screenshot;

pub(crate) use input::{after_input_was_sent, real_input_error};
pub(crate) use keys::real_key_chord;
pub use screenshot::BridgeScreenshots;
pub(crate) use screenshot::CaptureRequest;

/// resize and emulate of one context, which BiDi-only mode serves too (src/bidi_only/).
pub(crate) use emulation::{emulate_context, resize_context};
/// console_messages and network_requests from a recorder, which BiDi-only mode serves too.
pub(crate) use observations::read_observations;
/// The print of one context, which BiDi-only mode's save_pdf uses too.
pub(crate) use pdf::print_context;
use std::collections::HashMap;
use std::future::Future;
use std::io::Read;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use allwright_surface_web::launch::MediaFeatureEmulation;
use allwright_surface_web::lifecycle::PromptType;
use allwright_surface_web::observations::ObservationRecorder;
use allwright_surface_web::{
    BidiConnection, Lifecycle, LifecycleEvent, Page, PromptInContext, QueryOptions,
};
use serde_json::{json, Value};

use crate::host_client::HostClient;
use crate::input_mode::InputMode;
use crate::log;
use crate::marker_attributes::TAB_MARKER_ATTRIBUTE;
use crate::tool_error::{OpenDialog, ToolError};
use crate::tools::ToolDefinition;

use input::PointerAction;
use journal::LifecycleJournal;

/// How long the extension may take to say which tab a call is for (and to mark it).
const IDENTIFY_TIMEOUT: Duration = Duration::from_secs(5);
/// How long the marker query may take in one top-level context.
const MARKER_QUERY_TIMEOUT: Duration = Duration::from_secs(3);
/// How often `wait_for_stable` looks again whether the tab's navigation has loaded.
const NAVIGATION_POLL: Duration = Duration::from_millis(50);

/// Tools whose result comes after the tab's load event (navigate waits for it, and so do the
/// history moves and reload).
const WAITS_FOR_LOAD: &[&str] = &["navigate", "go_back", "go_forward", "reload"];
/// How long BiDi's `browsingContext.load` may arrive after the extension saw the load.
const LOAD_EVENT_LAG: Duration = Duration::from_secs(2);

/// Tools that do not touch a page: they read or change the tab list only, so an open prompt
/// does not block them (the extension's background answers them while a page is blocked).
const PAGE_FREE_TOOLS: &[&str] = &["list_tabs", "new_tab", "select_tab", "close_tab"];
/// Tools the bridge answers itself or whose tab it must know before relaying them (see
/// [`BrowserBridge::identifies_while_relaying`]).
const TOOLS_THAT_NEED_THE_TAB_FIRST: &[&str] = &[
    "handle_dialog",
    "console_messages",
    "network_requests",
    "resize",
    "emulate",
    "wait_for_stable",
    "new_tab",
    "select_tab",
    "close_tab",
];

/// Tools after which another tab may be the active one: the bridge then activates that tab over
/// BiDi too ([`BrowserBridge::activate_the_active_tab`]).
const TOOLS_THAT_CHANGE_THE_ACTIVE_TAB: &[&str] = &["new_tab", "select_tab", "close_tab"];

/// How long the extension may take to log a call the bridge answered.
const PANEL_LOG_TIMEOUT: Duration = Duration::from_secs(5);

/// A call the bridge answered itself, without the extension (handle_dialog, resize, emulate,
/// console_messages, network_requests), told to the extension so that the side panel's log lists it as it lists
/// every other call (`bridge_log_answer`, extension/background/host/bridge.js). Sent on a task of its
/// own: the agent's answer does not wait for the log.
fn log_answer_for_the_panel(
    host: &Arc<HostClient>,
    tool: &str,
    arguments: &Value,
    outcome: &Result<Value, ToolError>,
) {
    let outcome = match outcome {
        Ok(result) => json!({ "ok": true, "result": result }),
        Err(error) => json!({ "ok": false, "error": error.to_value() }),
    };
    let logged = json!({ "tool": tool, "arguments": arguments, "outcome": outcome });
    let host = Arc::clone(host);
    tokio::spawn(async move {
        if let Err(error) = host
            .call("bridge_log_answer", logged, PANEL_LOG_TIMEOUT)
            .await
        {
            log!("the side panel could not log a call the bridge answered: {error}");
        }
    });
}

/// Whoever holds the BiDi session: the launched browser (or a remote end).
pub trait BidiSessionOwner: Send + Sync {
    fn bidi(&self) -> &BidiConnection;

    /// The browser's name as a reply names it ("Chromium", "Firefox").
    fn browser_name(&self) -> String {
        "the browser".to_owned()
    }

    /// The media features BiDi cannot emulate, over the CDP pipe of a Chromium allwright
    /// launched itself; None elsewhere.
    fn media_features(&self) -> Option<&MediaFeatureEmulation> {
        None
    }
}

/// A real click or hover cut short by a prompt it opened: its input is released and its marker
/// removed once the prompt is answered (input.releaseActions cannot run before in Chromium,
/// and the content script that removes the marker is blocked with the page).
#[derive(Debug, Clone)]
struct InterruptedInput {
    tab_context: String,
    token: String,
}

/// The tab a call acts in, as far as the bridge could tell.
#[derive(Debug, Clone, Default)]
struct TargetTab {
    /// The extension's tab id, when the extension said which tab the call is for.
    tab_id: Option<i64>,
    /// The tab's BiDi top-level context, when the mapping is known.
    context: Option<String>,
}

pub struct BrowserBridge {
    owner: Arc<dyn BidiSessionOwner>,
    lifecycle: Lifecycle,
    /// The console and requests of every tab, recorded from the start (observations.rs).
    observations: ObservationRecorder,
    journal: LifecycleJournal,
    /// Extension tab id -> BiDi top-level context, learnt by marker.
    tab_contexts: Mutex<HashMap<i64, String>>,
    interrupted_inputs: Mutex<Vec<InterruptedInput>>,
    /// `--input`: whether click_ax, iframe_click and hover send real pointer input.
    input_mode: InputMode,
}

impl BrowserBridge {
    /// Subscribes to the lifecycle events and starts tracking prompts and the journal.
    pub async fn start(
        owner: Arc<dyn BidiSessionOwner>,
        input_mode: InputMode,
    ) -> Result<Self, String> {
        let connection = owner.bidi();
        // The journal listens before the subscription, so it misses nothing the browser sends.
        let journal_events =
            allwright_surface_web::lifecycle::LifecycleEvents::from_connection(connection);
        let lifecycle = Lifecycle::start(connection)
            .await
            .map_err(|error| format!("cannot follow the browser's lifecycle over BiDi: {error}"))?;
        if !lifecycle.unsupported_events().is_empty() {
            log!(
                "the browser does not send {:?}",
                lifecycle.unsupported_events()
            );
        }
        let observations = ObservationRecorder::start(connection, lifecycle.tab_resolver())
            .await
            .map_err(|error| {
                format!("cannot record the pages' console and requests over BiDi: {error}")
            })?;
        if !observations.unsupported_events().is_empty() {
            log!(
                "the browser does not send {:?}",
                observations.unsupported_events()
            );
        }
        let tree = connection
            .command("browsingContext.getTree", json!({}))
            .await
            .map_err(|error| format!("cannot read the browser's tabs over BiDi: {error}"))?;
        let journal = LifecycleJournal::start(journal_events, &tree);
        Ok(Self {
            owner,
            lifecycle,
            observations,
            journal,
            tab_contexts: Mutex::new(HashMap::new()),
            interrupted_inputs: Mutex::new(Vec::new()),
            input_mode,
        })
    }

    fn bidi(&self) -> &BidiConnection {
        self.owner.bidi()
    }

    /// Runs one tool call through the bridge: answered here (`handle_dialog`), or relayed to the
    /// extension unless a prompt blocks its tab, with the tab's lifecycle events added.
    pub async fn call(
        &self,
        host: &Arc<HostClient>,
        tool: &ToolDefinition,
        arguments: Value,
        timeout: Duration,
    ) -> Result<Value, ToolError> {
        let tab_id = arguments.get("tabId").and_then(Value::as_i64);
        if self.identifies_while_relaying(tool.name) {
            if let Some(result) = self
                .relay_while_identifying(host, tool.name, tab_id, arguments.clone(), timeout)
                .await
            {
                return result;
            }
        }
        let target = self.target_tab(host, tab_id).await;
        match tool.name {
            "handle_dialog" => {
                let outcome = self.handle_dialog(host, &target, &arguments).await;
                log_answer_for_the_panel(host, tool.name, &arguments, &outcome);
                return outcome;
            }
            "resize" => {
                // A tab the bridge has not mapped is resized by the extension, which logs it.
                let answered_here = target.context.is_some();
                let outcome = self.resize(host, &target, arguments.clone(), timeout).await;
                if answered_here {
                    log_answer_for_the_panel(host, tool.name, &arguments, &outcome);
                }
                return outcome;
            }
            "emulate" => {
                let outcome = self.emulate(host, &target, arguments.clone()).await;
                log_answer_for_the_panel(host, tool.name, &arguments, &outcome);
                return outcome;
            }
            _ => {}
        }
        if observations::OBSERVATION_TOOLS.contains(&tool.name) {
            let outcome = self
                .page_observations(host, tool.name, &target, &arguments)
                .await;
            log_answer_for_the_panel(host, tool.name, &arguments, &outcome);
            return outcome;
        }
        let page_free = PAGE_FREE_TOOLS.contains(&tool.name);
        let pointer_action = match self.input_mode {
            InputMode::Trusted => PointerAction::for_tool(tool.name),
            InputMode::Synthetic => None,
        };
        let real_drag = self.input_mode == InputMode::Trusted && tool.name == "drag";
        let key_chord = match self.input_mode {
            InputMode::Trusted if tool.name == "press_key" => keys::real_key_chord(&arguments),
            _ => None,
        };
        let outcome = if page_free {
            let outcome = host.call(tool.name, arguments, timeout).await;
            if outcome.is_ok() && TOOLS_THAT_CHANGE_THE_ACTIVE_TAB.contains(&tool.name) {
                self.activate_the_active_tab(host).await;
            }
            outcome
        } else if let (Some(action), Some(tab_context)) = (pointer_action, &target.context) {
            self.pointer_input(host, &target, tab_context, action, &arguments, timeout)
                .await
        } else if let (true, Some(tab_context)) = (real_drag, &target.context) {
            self.drag_input(host, &target, tab_context, &arguments, timeout)
                .await
        } else if let (Some(chord), Some(tab_context)) = (&key_chord, &target.context) {
            self.key_input(host, &target, tab_context, chord, &arguments, timeout)
                .await
        } else if tool.name == "wait_for_stable" {
            self.wait_for_stable(host, &target, arguments).await
        } else {
            self.unless_prompt_blocks(&target, host.call(tool.name, arguments, timeout))
                .await
        };
        self.with_lifecycle(&target, tool.name, outcome?).await
    }

    /// Whether a call of `tool` may be relayed at once, its tab identified while it runs
    /// ([`BrowserBridge::relay_while_identifying`]): the calls relayed as they are, whose tab
    /// the call itself does not change. The others need the tab first: real input and
    /// `wait_for_stable` act on its BiDi context, `handle_dialog` answers its prompt, `resize`
    /// and `emulate` change its context, console_messages and network_requests read its
    /// records, and
    /// `new_tab`, `select_tab` and `close_tab` change which tab is active.
    fn identifies_while_relaying(&self, tool: &str) -> bool {
        let real_input = match self.input_mode {
            InputMode::Trusted => {
                PointerAction::for_tool(tool).is_some() || tool == "press_key" || tool == "drag"
            }
            InputMode::Synthetic => false,
        };
        !real_input && !TOOLS_THAT_NEED_THE_TAB_FIRST.contains(&tool)
    }

    /// Relays a call at once and asks the extension which tab it is for meanwhile, rather
    /// than one after the other: the question is a round trip to the extension of its own,
    /// which doubled the fixed cost of every call (docs/performance/warm-read.md, "The fixed path of a call"). None when a prompt is open in any tab: the call then waits for its
    /// tab (`target_tab`), so that a call for a blocked tab is never sent, since its page
    /// would run it once the prompt is answered, after the agent was told `dialog_open`.
    ///
    /// A prompt that opens while the tab is not known yet is judged when it is; a tab the
    /// bridge has not mapped to its BiDi context yet is mapped after the call (the marker then
    /// lands in the document the call leaves, which a navigation may have replaced), and
    /// meanwhile a prompt counts as for tabs whose context is not known.
    async fn relay_while_identifying(
        &self,
        host: &HostClient,
        tool: &str,
        tab_id: Option<i64>,
        arguments: Value,
        timeout: Duration,
    ) -> Option<Result<Value, ToolError>> {
        // Listen before looking, so that a prompt opening in between is not missed.
        let mut events = self.lifecycle.events(self.bidi());
        if !self.lifecycle.open_prompts().is_empty() {
            return None;
        }
        let mut relayed = std::pin::pin!(host.call(tool, arguments, timeout));
        let mut identified = std::pin::pin!(self.identify_tab(host, tab_id));
        let mut target: Option<(TargetTab, Option<Value>)> = None;
        let mut prompts_to_judge: Vec<PromptInContext> = Vec::new();
        let outcome = loop {
            tokio::select! {
                outcome = &mut relayed => break outcome,
                answer = &mut identified, if target.is_none() => {
                    let tab = self.known_target(tab_id, answer.as_ref());
                    if let Some(open) = prompts_to_judge
                        .drain(..)
                        .find(|open| self.prompt_may_block(&tab, &open.context))
                    {
                        return Some(Err(dialog_open_error(&open)));
                    }
                    target = Some((tab, answer));
                }
                event = events.next() => match event {
                    Some(LifecycleEvent::UserPromptOpened { context, prompt }) => match &target {
                        Some((tab, _)) if self.prompt_may_block(tab, &context) => {
                            return Some(Err(dialog_open_error(&PromptInContext { context, prompt })));
                        }
                        Some(_) => {}
                        None => prompts_to_judge.push(PromptInContext { context, prompt }),
                    },
                    Some(_) => {}
                    // The BiDi session is gone; the relayed call still stands on its own.
                    None => break relayed.await,
                },
            }
        };
        let (mut tab, answer) = match target {
            Some(known) => known,
            None => {
                let answer = identified.await;
                (self.known_target(tab_id, answer.as_ref()), answer)
            }
        };
        if let (None, Some(answer)) = (&tab.context, &answer) {
            tab = self.map_identified_tab(host, answer).await;
        }
        Some(match outcome {
            Ok(result) => self.with_lifecycle(&tab, tool, result).await,
            Err(error) => Err(error),
        })
    }

    /// A relayed call's result with the tab's lifecycle events since the previous call in that
    /// tab; after the tools of [`WAITS_FOR_LOAD`], once BiDi's load event has come too.
    async fn with_lifecycle(
        &self,
        target: &TargetTab,
        tool: &str,
        mut result: Value,
    ) -> Result<Value, ToolError> {
        if let (Some(context), true) = (&target.context, WAITS_FOR_LOAD.contains(&tool)) {
            // The extension answered after the load event; BiDi's event for it may still be on
            // its way, and the result should carry it.
            let deadline = Instant::now() + LOAD_EVENT_LAG;
            while self.journal.pending_navigation(context).is_some() && Instant::now() < deadline {
                tokio::time::sleep(NAVIGATION_POLL).await;
            }
        }
        if let (Some(context), Some(object)) = (&target.context, result.as_object_mut()) {
            let (events, dropped) = self.journal.take(context);
            // The session's prompt handler dismissed a file chooser the action opened (see
            // keep_prompts_open_capability): the agent learns that it opened, and what takes files.
            let chooser_opened = events
                .iter()
                .any(|event| event["type"] == "fileDialogOpened");
            if chooser_opened && tool != crate::upload::UPLOAD_TOOL {
                // The action did something (it opened the chooser): progress, and the one hint
                // the short reply carries says what to do next.
                object.insert("progress".into(), json!("observed"));
                object.insert("hint".into(), json!("The click opened a file chooser, which the browser dismissed (nothing was chosen). To attach a file, call upload_file with this ref and the file's path."));
                let evidence = object.entry("evidence").or_insert_with(|| json!([]));
                if let Some(evidence) = evidence.as_array_mut() {
                    evidence.push(json!("file_chooser_opened"));
                }
            }
            if !events.is_empty() {
                object.insert("lifecycle".into(), Value::Array(events));
            }
            if dropped > 0 {
                object.insert("lifecycleDropped".into(), json!(dropped));
            }
        }
        Ok(result)
    }

    /// The prompt that blocks the target tab, if any. For a tab whose context is not known,
    /// any prompt in a tab that is not known to be another extension tab counts: answering
    /// `dialog_open` is better than a call that waits for its timeout.
    fn blocking_prompt(&self, target: &TargetTab) -> Option<PromptInContext> {
        if let Some(context) = &target.context {
            return self.lifecycle.open_prompt(context);
        }
        self.lifecycle
            .open_prompts()
            .into_iter()
            .find(|(context, _)| self.prompt_may_block(target, context))
            .map(|(context, prompt)| PromptInContext { context, prompt })
    }

    /// Whether a prompt reported in `prompt_context` blocks the target tab.
    fn prompt_may_block(&self, target: &TargetTab, prompt_context: &str) -> bool {
        let prompt_tab = self.lifecycle.tab_of(prompt_context);
        match &target.context {
            Some(context) => *context == prompt_tab,
            None => !lock(&self.tab_contexts)
                .iter()
                .any(|(tab_id, context)| *context == prompt_tab && Some(*tab_id) != target.tab_id),
        }
    }

    /// Runs a relayed call unless a prompt blocks the target tab: when one is open already the
    /// call is not sent; when one opens while it runs, the call is answered `dialog_open` at
    /// once. The relayed call is then dropped: its late answer (the extension sends one when
    /// the prompt has been answered and the page goes on) finds no waiter and is discarded,
    /// since `HostClient` matches answers by a call id that is never reused.
    async fn unless_prompt_blocks<T>(
        &self,
        target: &TargetTab,
        operation: impl Future<Output = Result<T, ToolError>>,
    ) -> Result<T, ToolError> {
        // Listen before looking, so that a prompt opening in between is not missed.
        let mut events = self.lifecycle.events(self.bidi());
        if let Some(open) = self.blocking_prompt(target) {
            return Err(dialog_open_error(&open));
        }
        let mut operation = std::pin::pin!(operation);
        loop {
            tokio::select! {
                result = &mut operation => return result,
                event = events.next() => match event {
                    Some(LifecycleEvent::UserPromptOpened { context, prompt }) => {
                        if self.prompt_may_block(target, &context) {
                            return Err(dialog_open_error(&PromptInContext { context, prompt }));
                        }
                    }
                    Some(_) => {}
                    // The BiDi session is gone; the relayed call still stands on its own.
                    None => return operation.await,
                },
            }
        }
    }

    /// `handle_dialog({accept, promptText?, tabId?})`.
    async fn handle_dialog(
        &self,
        host: &HostClient,
        target: &TargetTab,
        arguments: &Value,
    ) -> Result<Value, ToolError> {
        let Some(open) = self.blocking_prompt(target) else {
            return Err(ToolError::no_dialog(match target.tab_id {
                Some(tab_id) => format!("no dialog is open in tab {tab_id}"),
                None => "no dialog is open in the tab".to_owned(),
            }));
        };
        let handled = answer_prompt(self.bidi(), &open, arguments).await?;
        self.release_interrupted_inputs(host, &self.lifecycle.tab_of(&open.context))
            .await;
        Ok(handled)
    }

    /// After a prompt of `tab_context` was answered: the inputs it cut short release their
    /// buttons (WebDriver BiDi, input.releaseActions: the input state belongs to the tab) and
    /// lose their markers.
    async fn release_interrupted_inputs(&self, host: &HostClient, tab_context: &str) {
        let released: Vec<InterruptedInput> = {
            let mut interrupted = self
                .interrupted_inputs
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            let (released, kept) = interrupted
                .drain(..)
                .partition(|input| input.tab_context == tab_context);
            *interrupted = kept;
            released
        };
        if released.is_empty() {
            return;
        }
        let page = Page::new(self.bidi(), tab_context);
        if let Err(error) = page.release_input().await {
            log!("releasing the input cut short by a prompt failed: {error}");
        }
        for input in released {
            self.abort_input(host, &input.token).await;
        }
    }

    /// `wait_for_stable`, with the lifecycle: the page is not stable while a navigation of the
    /// tab has started and not loaded, whatever the extension saw (between the start of a
    /// navigation and its commit, the old document can be perfectly quiet).
    async fn wait_for_stable(
        &self,
        host: &HostClient,
        target: &TargetTab,
        arguments: Value,
    ) -> Result<Value, ToolError> {
        let timeout_ms = arguments["timeoutMs"].as_u64().unwrap_or(10_000);
        let Some(tab) = &target.context else {
            let wait = Duration::from_millis(timeout_ms) + Duration::from_secs(10);
            return self
                .unless_prompt_blocks(target, host.call("wait_for_stable", arguments, wait))
                .await;
        };
        let started = Instant::now();
        let deadline = started + Duration::from_millis(timeout_ms);
        loop {
            while let Some(url) = self.journal.pending_navigation(tab) {
                if let Some(open) = self.blocking_prompt(target) {
                    return Err(dialog_open_error(&open));
                }
                if Instant::now() >= deadline {
                    return Ok(json!({
                        "stable": false,
                        "waitedMs": started.elapsed().as_millis() as u64,
                        "pendingRequests": 0,
                        "mutations": 0,
                        "reason": "navigation",
                        "hint": format!("The tab's navigation to {url} started and has not loaded yet. Wait again, or read the page as it is."),
                    }));
                }
                tokio::time::sleep(NAVIGATION_POLL).await;
            }
            // The extension's own minimum for timeoutMs is 500 ms.
            let remaining = deadline
                .saturating_duration_since(Instant::now())
                .max(Duration::from_millis(500));
            let mut relayed = arguments.clone();
            relayed["timeoutMs"] = json!(remaining.as_millis() as u64);
            let mut result = self
                .unless_prompt_blocks(
                    target,
                    host.call(
                        "wait_for_stable",
                        relayed,
                        remaining + Duration::from_secs(10),
                    ),
                )
                .await?;
            let stable = result["stable"].as_bool() == Some(true);
            if stable && self.journal.pending_navigation(tab).is_some() && Instant::now() < deadline
            {
                continue;
            }
            if let Some(object) = result.as_object_mut() {
                object.insert(
                    "waitedMs".into(),
                    json!(started.elapsed().as_millis() as u64),
                );
            }
            return Ok(result);
        }
    }

    /// Gives the tab the extension made active the focus of its window as well, with WebDriver
    /// BiDi's `browsingContext.activate` ("activates and focuses the given top-level
    /// traversable"), so that its page behaves as a focused window's page (HTML, "has focus
    /// steps": `document.hasFocus()` is true and a click into a field fires `focus` and
    /// `focusin`; issue 30, item 7). The extension's `tabs.update({active})` and
    /// `windows.update({focused})` select the tab but leave a headless browser's focus where
    /// it was: in Firefox on the address bar, which it focuses for a new blank tab. Best
    /// effort: a tab that cannot be activated still is the active tab, and the call's result
    /// stands.
    async fn activate_the_active_tab(&self, host: &HostClient) {
        let Some(context) = self.target_tab(host, None).await.context else {
            return;
        };
        if let Err(error) = self
            .bidi()
            .command("browsingContext.activate", json!({ "context": context }))
            .await
        {
            log!("could not activate the tab's browsing context {context}: {error}");
        }
    }

    /// Asks the extension which tab the call is for and finds that tab's BiDi context.
    async fn target_tab(&self, host: &HostClient, tab_id: Option<i64>) -> TargetTab {
        match self.identify_tab(host, tab_id).await {
            Some(answer) => self.map_identified_tab(host, &answer).await,
            // The call itself will meet the same failure (no tab, no extension) and say so.
            None => TargetTab {
                tab_id,
                context: None,
            },
        }
    }

    /// The extension's answer to which tab `tab_id` (the active tab when None) is, or None
    /// when it could not say.
    async fn identify_tab(&self, host: &HostClient, tab_id: Option<i64>) -> Option<Value> {
        host.call(
            "bridge_identify_tab",
            json!({ "tabId": tab_id }),
            IDENTIFY_TIMEOUT,
        )
        .await
        .ok()
    }

    /// The identified tab with its BiDi context when the bridge has mapped it already.
    fn known_target(&self, tab_id: Option<i64>, answer: Option<&Value>) -> TargetTab {
        let Some(answer) = answer else {
            return TargetTab {
                tab_id,
                context: None,
            };
        };
        let Some(tab_id) = answer["tabId"].as_i64() else {
            return TargetTab::default();
        };
        let known = lock(&self.tab_contexts).get(&tab_id).cloned();
        TargetTab {
            tab_id: Some(tab_id),
            context: known.filter(|context| !self.journal.is_destroyed(context)),
        }
    }

    /// The identified tab with its BiDi context, mapped now if the bridge had not yet.
    async fn map_identified_tab(&self, host: &HostClient, answer: &Value) -> TargetTab {
        let known = self.known_target(None, Some(answer));
        let Some(tab_id) = known.tab_id else {
            return known;
        };
        if known.context.is_some() {
            return known;
        }
        // A context the journal saw destroyed is mapped again.
        lock(&self.tab_contexts).remove(&tab_id);
        let (context, how) = match self.map_tab_by_marker(host, tab_id).await {
            Some(context) => (Some(context), "by its marker"),
            None => (
                self.map_the_only_unmapped_tab(answer).await,
                "as the only unmapped tab",
            ),
        };
        if let Some(context) = &context {
            log!("extension tab {tab_id} is BiDi context {context} ({how})");
            lock(&self.tab_contexts).insert(tab_id, context.clone());
        }
        TargetTab {
            tab_id: Some(tab_id),
            context,
        }
    }

    /// Maps an extension tab to its BiDi context with a fresh random marker: the extension sets
    /// `data-allwright-tab="<marker>"` on the tab's document element, and the BiDi sandbox
    /// query must find it in exactly one top-level context.
    ///
    /// Why a hostile page cannot misdirect the mapping: the marker is 128 random bits chosen
    /// here for this one mapping, so no page can plant it in advance. A page that sees it can
    /// copy it only into documents it can script, which are windows of its own origin; if it
    /// does, two contexts match and the mapping is refused (the call then goes on unmapped,
    /// which can only make the bridge report a prompt too eagerly, never act elsewhere). A page
    /// that removes the marker only leaves its own tab unmapped. Contexts that show a prompt
    /// are not queried: Chromium holds sandbox scripts in a blocked tab.
    async fn map_tab_by_marker(&self, host: &HostClient, tab_id: i64) -> Option<String> {
        let marker = random_marker()?;
        let answer = host
            .call(
                "bridge_identify_tab",
                json!({ "tabId": tab_id, "marker": marker }),
                IDENTIFY_TIMEOUT,
            )
            .await
            .ok()?;
        if answer["marked"].as_bool() != Some(true) {
            return None;
        }
        let selector = format!("[{TAB_MARKER_ATTRIBUTE}=\"{marker}\"]");
        let mut matches = Vec::new();
        for context in self.unmapped_top_level_contexts(tab_id).await {
            if self.lifecycle.open_prompt(&context).is_some() {
                continue;
            }
            let page = Page::new(self.bidi(), &context);
            let found = tokio::time::timeout(
                MARKER_QUERY_TIMEOUT,
                page.count(&selector, QueryOptions::default()),
            )
            .await;
            if let Ok(Ok(count)) = found {
                if count > 0 {
                    matches.push(context);
                }
            }
        }
        match matches.len() {
            1 => matches.pop(),
            0 => None,
            _ => {
                log!(
                    "the marker of tab {tab_id} was found in {} contexts: not mapped",
                    matches.len()
                );
                None
            }
        }
    }

    /// When the marker cannot be set (about:blank, a page the extension may not script), the
    /// tab is mapped only if it is the one extension tab and the one top-level context that
    /// are both still unmapped: the two lists name the same tabs, so one left on each side is
    /// the same tab.
    async fn map_the_only_unmapped_tab(&self, answer: &Value) -> Option<String> {
        let tab_id = answer["tabId"].as_i64()?;
        let tab_count = answer["tabCount"].as_u64()? as usize;
        let mapped_tabs = lock(&self.tab_contexts).len();
        if tab_count != mapped_tabs + 1 {
            return None;
        }
        let mut unmapped = self.unmapped_top_level_contexts(tab_id).await;
        (unmapped.len() == 1).then(|| unmapped.pop()).flatten()
    }

    /// The top-level contexts not mapped to an extension tab other than `tab_id`.
    async fn unmapped_top_level_contexts(&self, tab_id: i64) -> Vec<String> {
        let Ok(tree) = self
            .bidi()
            .command("browsingContext.getTree", json!({ "maxDepth": 0 }))
            .await
        else {
            return Vec::new();
        };
        let taken: Vec<String> = lock(&self.tab_contexts)
            .iter()
            .filter(|(mapped_tab, _)| **mapped_tab != tab_id)
            .map(|(_, context)| context.clone())
            .collect();
        tree["contexts"]
            .as_array()
            .map(|contexts| {
                contexts
                    .iter()
                    .filter_map(|context| context["context"].as_str())
                    .filter(|context| !taken.iter().any(|taken| taken == context))
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_default()
    }
}

/// handle_dialog's answer to an open prompt (`{accept, promptText?}`): WebDriver BiDi's
/// `browsingContext.handleUserPrompt`, and the reply `{handled, type, message}`; the bridge's
/// and BiDi-only mode's.
pub(crate) async fn answer_prompt(
    bidi: &BidiConnection,
    open: &PromptInContext,
    arguments: &Value,
) -> Result<Value, ToolError> {
    let accept = arguments["accept"].as_bool().unwrap_or(true);
    // The text only means something to a prompt() that is accepted.
    let prompt_text = arguments["promptText"]
        .as_str()
        .filter(|_| accept && open.prompt.prompt_type == PromptType::Prompt);
    bidi.handle_user_prompt(&open.context, accept, prompt_text)
        .await
        .map_err(|error| {
            ToolError::script_failed(format!(
                "the browser did not take the answer to the {} dialog: {error}",
                open.prompt.prompt_type.name()
            ))
        })?;
    Ok(json!({
        "handled": true,
        "type": open.prompt.prompt_type.name(),
        "message": open.prompt.message,
    }))
}

/// The `dialog_open` error for a prompt: `dialog` is `{type, message, defaultValue?}`.
pub(crate) fn dialog_open_error(open: &PromptInContext) -> ToolError {
    let prompt = &open.prompt;
    let dialog = OpenDialog {
        kind: prompt.prompt_type.name().to_owned(),
        message: prompt.message.clone(),
        default_value: prompt.default_value.clone(),
    };
    ToolError::dialog_open(
        format!(
            "the page opened a dialog that blocks the tab: {}({:?})",
            prompt.prompt_type.name(),
            prompt.message
        ),
        dialog,
    )
}

/// 32 hex digits from the operating system's random source.
pub(crate) fn random_marker() -> Option<String> {
    let mut bytes = [0u8; 16];
    std::fs::File::open("/dev/urandom")
        .and_then(|mut source| source.read_exact(&mut bytes))
        .ok()?;
    Some(bytes.iter().map(|byte| format!("{byte:02x}")).collect())
}

fn lock(tabs: &Mutex<HashMap<i64, String>>) -> std::sync::MutexGuard<'_, HashMap<i64, String>> {
    tabs.lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}
