//! BiDi-only mode (docs/grid.md, "BiDi-only mode"): the tools served over WebDriver BiDi alone,
//! for a browser that has no extension (`allwright mcp --launch BROWSER --no-extension`, or a
//! `--webdriver` remote end, which on another machine selects this mode by itself).
//!
//! What serves what:
//! - tabs are the top-level browsing contexts of `browsingContext.getTree`; each gets a tab id,
//!   a number handed out in the order the contexts are first seen ([`TabTable`]), since the
//!   extension's tab ids do not exist here. The active tab is the one the agent last opened or
//!   selected (BiDi tells no focus), at first the first tab.
//! - get_accessibility_tree is the content script's read, run by the collector in the
//!   document's sandbox realm (crates/allwright-surface-web/src/snapshot.rs, `read_tree`), whose
//!   registry keeps the document's refs; the tab's ref floor is kept here, as the extension's
//!   background keeps it, so that a tab's refs stay unique across its documents.
//! - accessibility_snapshot is the surface's own snapshot; navigate, go_back, go_forward and
//!   reload are `browsingContext.navigate`, `traverseHistory` and `reload`.
//! - click_ax, hover and press_key are real input (`input.performActions`) between the content
//!   script's own halves of the action, run in the document's sandbox, type_ax, set_field,
//!   select_option and scroll are the content script's own actions there, and the result is made by the background's own rules there
//!   (actions.rs).
//!
//! - a call for a tab that a user prompt holds answers `dialog_open` (the surface's
//!   `Lifecycle`, as the browser bridge uses it), and handle_dialog answers the prompt.
//! - screenshot is `browsingContext.captureScreenshot` with the content script's masks over the
//!   secret fields of every document (screenshot.rs); wait_for looks with the content script's
//!   own functions in each document's sandbox (wait_for.rs); wait_for_stable waits for the
//!   tab's requests as BiDi reports them and the content script's `domQuiet` (stable.rs).
//!
//! Which tools this mode lists is said once, in src/tools/tiers.rs (`SERVED_WITHOUT_EXTENSION`).

mod actions;
mod pdf;
mod screenshot;
mod stable;
mod tabs;
mod wait_for;

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use allwright_surface_web::observations::ObservationRecorder;
use allwright_surface_web::snapshot::{accessibility_snapshot_of_documents, read_tree, SANDBOX};
use allwright_surface_web::{
    BidiError, BidiErrorKind, Lifecycle, SnapshotError, SnapshotErrorKind, SnapshotFormat,
    SnapshotMode, SnapshotOptions, Unblocked,
};
use serde_json::{json, Value};

use crate::browser_bridge::{dialog_open_error, BidiSessionOwner};
use crate::tool_error::ToolError;
use crate::tools::ToolDefinition;
use actions::{InputKind, Synthetic};

/// How often a history move looks whether its document has loaded.
const LOAD_POLL: Duration = Duration::from_millis(50);
/// The default of navigate's and the history moves' `timeoutMs` (src/tools/table.rs).
const DEFAULT_NAVIGATION_TIMEOUT: Duration = Duration::from_secs(30);

/// Tools that do not touch a page: they read or change the tab list only, so an open prompt
/// does not hold them (as in the browser bridge).
const PAGE_FREE_TOOLS: &[&str] = &[
    "list_tabs",
    "new_tab",
    "select_tab",
    "close_tab",
    "handle_dialog",
];

/// The tools of a session in BiDi-only mode.
pub struct BidiOnlyTools {
    browser: Arc<dyn BidiSessionOwner>,
    tabs: tokio::sync::Mutex<TabTable>,
    /// The user prompts open now (WebDriver BiDi, `browsingContext.userPromptOpened`): a call
    /// for a tab a prompt blocks answers `dialog_open`, and handle_dialog answers the prompt.
    lifecycle: Lifecycle,
    /// The tabs' requests, which wait_for_stable waits to end (stable.rs).
    observations: ObservationRecorder,
}

/// The tab ids of the top-level contexts, the active tab, and each tab's ref floor.
#[derive(Default)]
struct TabTable {
    /// Context id -> tab id, for every top-level context seen so far.
    ids: HashMap<String, i64>,
    /// The last tab id handed out.
    last_id: i64,
    /// Client window id -> window id, numbered the same way.
    windows: HashMap<String, i64>,
    last_window: i64,
    /// The context the agent last opened or selected.
    active: Option<String>,
    /// Context id -> the highest ref number its reads handed out (docs/protocol/frames.md,
    /// "Frames": new refs are numbered above it, so a ref names one element of the tab).
    ref_floors: HashMap<String, u64>,
    /// Context id -> the tab's last tree read, which an action's `changes` are read since
    /// (the extension's background/actions/action-changes.js, `lastSnapshots`).
    last_reads: HashMap<String, LastRead>,
}

/// A tree read's snapshot and the arguments that decide its lines (a read since it must repeat
/// them: content/tree/snapshots.js, `readKeyOf`).
#[derive(Debug, Clone)]
struct LastRead {
    snapshot_id: String,
    filter: Value,
    max_depth: Value,
    ref_id: Value,
}

impl TabTable {
    fn tab_id(&mut self, context: &str) -> i64 {
        if let Some(id) = self.ids.get(context) {
            return *id;
        }
        self.last_id += 1;
        self.ids.insert(context.to_owned(), self.last_id);
        self.last_id
    }

    fn window_id(&mut self, window: &str) -> i64 {
        if let Some(id) = self.windows.get(window) {
            return *id;
        }
        self.last_window += 1;
        self.windows.insert(window.to_owned(), self.last_window);
        self.last_window
    }

    fn context_of(&self, tab_id: i64) -> Option<String> {
        self.ids
            .iter()
            .find(|(_, id)| **id == tab_id)
            .map(|(context, _)| context.clone())
    }
}

/// One top-level context as `browsingContext.getTree` lists it.
struct TopContext {
    context: String,
    url: String,
    window: String,
}

impl BidiOnlyTools {
    /// Starts following the browser's user prompts and the tabs' requests.
    pub async fn start(browser: Arc<dyn BidiSessionOwner>) -> Result<Self, String> {
        let lifecycle = Lifecycle::start(browser.bidi())
            .await
            .map_err(|error| format!("cannot follow the browser's dialogs over BiDi: {error}"))?;
        let observations = ObservationRecorder::start(browser.bidi(), lifecycle.tab_resolver())
            .await
            .map_err(|error| format!("cannot follow the pages' requests over BiDi: {error}"))?;
        Ok(Self {
            browser,
            tabs: tokio::sync::Mutex::new(TabTable::default()),
            lifecycle,
            observations,
        })
    }

    /// Answers one call of a tool BiDi-only mode lists; `arguments` passed the table's checks.
    pub async fn call(
        &self,
        tool: &'static ToolDefinition,
        arguments: &Value,
        wait: Duration,
    ) -> Result<Value, ToolError> {
        if PAGE_FREE_TOOLS.contains(&tool.name) {
            return self
                .answer(tool, arguments, wait)
                .await
                .map_err(|error| error.for_call_of(tool.name));
        }
        let context = self.context_for(arguments).await?;
        self.unless_a_prompt_blocks(&context, self.answer(tool, arguments, wait))
            .await
            .map_err(|error| error.for_call_of(tool.name))
    }

    /// Runs a call for the tab of `context` unless a user prompt blocks it, when it opens before
    /// or while the call runs (the call's late answer is dropped): `dialog_open`, with the
    /// prompt, for handle_dialog to answer.
    async fn unless_a_prompt_blocks<T>(
        &self,
        context: &str,
        call: impl std::future::Future<Output = Result<T, ToolError>>,
    ) -> Result<T, ToolError> {
        match self
            .lifecycle
            .unless_prompt_opens(self.bidi(), context, call)
            .await
        {
            Unblocked::Finished(answer) => answer,
            Unblocked::PromptOpen(open) => Err(dialog_open_error(&open)),
        }
    }

    async fn answer(
        &self,
        tool: &'static ToolDefinition,
        arguments: &Value,
        wait: Duration,
    ) -> Result<Value, ToolError> {
        match tool.name {
            "handle_dialog" => self.handle_dialog(arguments).await,
            "get_accessibility_tree" => self.read_tree(arguments, wait).await,
            "wait_for" => self.wait_for(arguments).await,
            "wait_for_stable" => self.wait_for_stable(arguments).await,
            "click_ax" => self.act(InputKind::Click, arguments, wait).await,
            "hover" => self.act(InputKind::Hover, arguments, wait).await,
            "press_key" => self.act(InputKind::Key, arguments, wait).await,
            "type_ax" => self.act_in_page(Synthetic::Typing, arguments, wait).await,
            "scroll" => self.act_in_page(Synthetic::Scroll, arguments, wait).await,
            "set_field" => {
                self.act_in_page(Synthetic::FieldUpdate, arguments, wait)
                    .await
            }
            "select_option" => {
                self.act_in_page(Synthetic::Selection, arguments, wait)
                    .await
            }
            "accessibility_snapshot" => self.snapshot(arguments, wait).await,
            "navigate" => self.navigate(arguments).await,
            "go_back" => self.move_through_history(arguments, -1).await,
            "go_forward" => self.move_through_history(arguments, 1).await,
            "reload" => self.reload(arguments).await,
            "list_tabs" => self.list_tabs().await,
            "new_tab" => self.new_tab(arguments).await,
            "select_tab" => self.select_tab(arguments).await,
            "close_tab" => self.close_tab(arguments).await,
            "save_pdf" => self.save_pdf(arguments).await,
            // The bridge's own resize and emulate (src/browser_bridge/emulation.rs), for the
            // tab's top-level context; a prompt was ruled out by [`Self::call`].
            "resize" => {
                let context = self.context_for(arguments).await?;
                crate::browser_bridge::resize_context(self.bidi(), &context, arguments).await
            }
            // The bridge's own reading of the tab's records (src/browser_bridge/observations.rs),
            // which the session records from its start as the bridge does.
            "console_messages" | "network_requests" => {
                let context = self.context_for(arguments).await?;
                let tab = self.lifecycle.tab_of(&context);
                Ok(crate::browser_bridge::read_observations(
                    &self.observations,
                    tool.name,
                    &tab,
                    arguments,
                ))
            }
            "emulate" => {
                let context = self.context_for(arguments).await?;
                crate::browser_bridge::emulate_context(self.browser.as_ref(), &context, arguments)
                    .await
            }
            other => Err(ToolError::needs_extension(
                other,
                crate::tools::why_bidi_only_lacks(other),
            )),
        }
    }

    /// handle_dialog: `browsingContext.handleUserPrompt` of the prompt open in the tab.
    async fn handle_dialog(&self, arguments: &Value) -> Result<Value, ToolError> {
        let context = self.context_for(arguments).await?;
        let Some(open) = self.lifecycle.open_prompt(&context) else {
            return Err(ToolError::no_dialog("no dialog is open in the tab"));
        };
        crate::browser_bridge::answer_prompt(self.bidi(), &open, arguments).await
    }

    fn bidi(&self) -> &allwright_surface_web::BidiConnection {
        self.browser.bidi()
    }

    /// The top-level contexts, in the browser's order.
    async fn top_contexts(&self) -> Result<Vec<TopContext>, ToolError> {
        let tree = self
            .bidi()
            .command("browsingContext.getTree", json!({ "maxDepth": 0 }))
            .await
            .map_err(|error| bidi_failure("listing the tabs", &error))?;
        Ok(tree["contexts"]
            .as_array()
            .map(Vec::as_slice)
            .unwrap_or_default()
            .iter()
            .filter_map(|context| {
                Some(TopContext {
                    context: context["context"].as_str()?.to_owned(),
                    url: context["url"].as_str().unwrap_or_default().to_owned(),
                    window: context["clientWindow"]
                        .as_str()
                        .unwrap_or_default()
                        .to_owned(),
                })
            })
            .collect())
    }

    /// The context a call is for: its `tabId`, else the active tab (the first tab until the
    /// agent opens or selects one, or when the active one was closed).
    async fn context_for(&self, arguments: &Value) -> Result<String, ToolError> {
        let contexts = self.top_contexts().await?;
        let mut tabs = self.tabs.lock().await;
        for context in &contexts {
            tabs.tab_id(&context.context);
        }
        let open = |wanted: &str| contexts.iter().any(|context| context.context == wanted);
        if let Some(tab_id) = arguments.get("tabId").and_then(Value::as_i64) {
            return tabs
                .context_of(tab_id)
                .filter(|context| open(context))
                .ok_or_else(|| no_tab(tab_id));
        }
        if let Some(active) = tabs.active.clone().filter(|active| open(active)) {
            return Ok(active);
        }
        let first = contexts.first().ok_or_else(|| {
            ToolError::new("no_tab", "the browser has no tab open")
                .with_hint("Open one with new_tab.")
        })?;
        tabs.active = Some(first.context.clone());
        Ok(first.context.clone())
    }

    /// The document's URL and title, read in a sandbox realm (the page's own scripts cannot
    /// change what `document.URL` answers there).
    async fn url_and_title(&self, context: &str) -> Result<(String, String), ToolError> {
        let answer = self
            .bidi()
            .command(
                "script.evaluate",
                json!({
                    "expression": "JSON.stringify([document.URL, document.title, document.readyState])",
                    "target": { "context": context, "sandbox": SANDBOX },
                    "awaitPromise": false,
                    "resultOwnership": "none",
                }),
            )
            .await
            .map_err(|error| bidi_failure("reading the tab's URL and title", &error))?;
        let (url, title, _) = document_state(&answer)?;
        Ok((url, title))
    }

    async fn read_tree(&self, arguments: &Value, wait: Duration) -> Result<Value, ToolError> {
        // A frame id names a frame of the extension's inventory (webNavigation), which this
        // mode has not: never read another document than the one named.
        refuse_frame_id(
            arguments,
            "Leave frameId out; accessibility_snapshot covers every frame of the tab.",
        )?;
        let context = self.context_for(arguments).await?;
        let floor = {
            let tabs = self.tabs.lock().await;
            tabs.ref_floors.get(&context).copied().unwrap_or(0)
        };
        let mut read_arguments = arguments.clone();
        if let Some(object) = read_arguments.as_object_mut() {
            object.remove("tabId");
            object.insert("refFloor".to_owned(), json!(floor));
        }
        let hosts = self.closed_shadow_root_hosts(&context).await?;
        let answer = read_tree(self.bidi(), &context, &read_arguments, &hosts, wait)
            .await
            .map_err(snapshot_failure)?;
        let answer: Value = serde_json::from_str(&answer).map_err(|error| {
            ToolError::script_failed(format!("the tree read answered no JSON: {error}"))
        })?;
        if answer["ok"] != true {
            return Err(ToolError::from_foreign_value(answer.get("error")));
        }
        let mut result = answer["result"].clone();
        // The range of new refs raises the tab's floor, and is the server's business only, as
        // the background takes it out of the extension's result.
        if let Some(issued) = result
            .as_object_mut()
            .and_then(|result| result.remove("refIssue"))
        {
            if let Some(last) = issued["last"].as_u64() {
                let mut tabs = self.tabs.lock().await;
                let floor = tabs.ref_floors.entry(context.clone()).or_insert(0);
                *floor = (*floor).max(last);
            }
        }
        // The tab's last read, for an action's `changes`; a read that kept no snapshot (a cut
        // page) keeps the one before it (recordLastSnapshot in action-changes.js).
        if let Some(snapshot_id) = result["snapshotId"].as_str() {
            let argument = |name: &str| arguments.get(name).cloned().unwrap_or(Value::Null);
            let last = LastRead {
                snapshot_id: snapshot_id.to_owned(),
                filter: argument("filter"),
                max_depth: argument("maxDepth"),
                ref_id: argument("ref_id"),
            };
            self.tabs.lock().await.last_reads.insert(context, last);
        }
        Ok(result)
    }

    /// The custom elements of the document (and of its open shadow roots) that host a closed
    /// shadow root: the ones the content script marks `closed-shadow-root` (content/tree/facts.js
    /// asks only custom elements), found over BiDi, since a sandbox cannot ask.
    async fn closed_shadow_root_hosts(&self, context: &str) -> Result<Vec<String>, ToolError> {
        let answer = self
            .bidi()
            .command(
                "script.callFunction",
                json!({
                    "functionDeclaration": screenshot::SHADOW_HOST_CANDIDATES,
                    "arguments": [{"type": "boolean", "value": true}],
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
        Ok(screenshot::closed_hosts_and_roots_in(&answer["result"])
            .into_iter()
            .map(|(host, _)| host)
            .collect())
    }

    async fn snapshot(&self, arguments: &Value, wait: Duration) -> Result<Value, ToolError> {
        let context = self.context_for(arguments).await?;
        let format = match arguments.get("format").and_then(Value::as_str) {
            Some("yaml") => SnapshotFormat::Yaml,
            _ => SnapshotFormat::Json,
        };
        let mode = match arguments.get("mode").and_then(Value::as_str) {
            Some("ai") => Some(SnapshotMode::Ai),
            _ => None,
        };
        let timeout = arguments
            .get("timeoutMs")
            .and_then(Value::as_u64)
            .map(Duration::from_millis)
            .unwrap_or(wait);
        let options = SnapshotOptions {
            format,
            mode,
            timeout,
        };
        let (snapshot, document_count) =
            accessibility_snapshot_of_documents(self.bidi(), &context, &options)
                .await
                .map_err(snapshot_failure)?;
        Ok(json!({
            "format": format.as_str(),
            "snapshot": snapshot,
            "documentCount": document_count,
            "engines": vec!["js-page"; document_count],
        }))
    }
}

/// `frameId` is refused in this mode, which numbers no frames yet: each tool that takes it says
/// in `hint` what it does without (the tab's top document, or every frame).
fn refuse_frame_id(arguments: &Value, hint: &'static str) -> Result<(), ToolError> {
    if arguments
        .get("frameId")
        .is_some_and(|frame| !frame.is_null())
    {
        return Err(ToolError::not_supported_here(
            "frameId names a frame of the extension's inventory, and BiDi-only mode has none yet",
        )
        .with_hint(hint));
    }
    Ok(())
}

/// navigate's and the history moves' `timeoutMs`.
fn navigation_timeout(arguments: &Value) -> Duration {
    arguments
        .get("timeoutMs")
        .and_then(Value::as_u64)
        .map(Duration::from_millis)
        .unwrap_or(DEFAULT_NAVIGATION_TIMEOUT)
}

/// `[URL, title, readyState]` from a `script.evaluate` of `JSON.stringify([...])`.
fn document_state(answer: &Value) -> Result<(String, String, String), ToolError> {
    let text = answer["result"]["value"].as_str().ok_or_else(|| {
        ToolError::script_failed(format!("the tab's document could not be read: {answer}"))
    })?;
    let values: Vec<String> = serde_json::from_str(text)
        .map_err(|error| ToolError::script_failed(format!("the tab's document: {error}")))?;
    match values.as_slice() {
        [url, title, state] => Ok((url.clone(), title.clone(), state.clone())),
        _ => Err(ToolError::script_failed(
            "the tab's document could not be read",
        )),
    }
}

fn no_tab(tab_id: i64) -> ToolError {
    ToolError::new("no_tab", format!("there is no tab {tab_id}"))
        .with_hint("Call list_tabs for the open tabs' ids.")
}

/// A BiDi command that failed while `what` was done.
fn bidi_failure(what: &str, error: &BidiError) -> ToolError {
    match error.kind {
        BidiErrorKind::Timeout => ToolError::timeout(format!("{what}: {error}")),
        BidiErrorKind::ConnectionClosed => ToolError::not_connected(format!(
            "{what}: the WebDriver BiDi connection to the browser closed ({error})"
        )),
        BidiErrorKind::NoSuchFrame => {
            ToolError::new("no_tab", format!("{what}: the tab went away ({error})"))
                .with_hint("Call list_tabs for the open tabs' ids.")
        }
        _ => ToolError::script_failed(format!("{what}: {error}")),
    }
}

/// A navigation that failed: a timeout of its load stays `timeout` (turned into
/// `outcome_unknown` by [`ToolError::for_call_of`], since the navigation may have happened), the
/// browser's refusal is `navigation_failed`.
fn navigation_failure(what: &str, url: &str, error: &BidiError) -> ToolError {
    match error.kind {
        BidiErrorKind::Timeout | BidiErrorKind::ConnectionClosed | BidiErrorKind::NoSuchFrame => {
            bidi_failure(what, error)
        }
        _ => {
            let target = if url.is_empty() {
                String::new()
            } else {
                format!(" to {url}")
            };
            ToolError::new(
                "navigation_failed",
                format!("{what}{target} failed: {}", error.message),
            )
            .with_hint("Check the URL, or read the page with get_accessibility_tree to see where the tab is.")
        }
    }
}

/// A tree read or snapshot that failed, with the surface's code.
fn snapshot_failure(error: SnapshotError) -> ToolError {
    match error.kind {
        SnapshotErrorKind::Timeout => ToolError::timeout(error.message),
        SnapshotErrorKind::NotConnected => ToolError::not_connected(error.message),
        SnapshotErrorKind::FrameDetached => ToolError::new("frame_detached", error.message)
            .with_hint("The page changed while it was read: read it again."),
        SnapshotErrorKind::ScriptFailed | SnapshotErrorKind::BundleMissing => {
            ToolError::script_failed(error.message)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tabs_and_windows_are_numbered_once_in_the_order_first_seen() {
        let mut tabs = TabTable::default();
        assert_eq!(tabs.tab_id("A"), 1);
        assert_eq!(tabs.tab_id("B"), 2);
        assert_eq!(tabs.tab_id("A"), 1);
        assert_eq!(tabs.context_of(2).as_deref(), Some("B"));
        assert_eq!(tabs.context_of(3), None);
        assert_eq!(tabs.window_id("w"), 1);
        assert_eq!(tabs.window_id("w"), 1);
    }

    #[test]
    fn a_document_state_is_read_from_its_json() {
        let answer =
            json!({"result": {"type": "string", "value": "[\"http://a/\",\"A\",\"complete\"]"}});
        assert_eq!(
            document_state(&answer).expect("read"),
            (
                "http://a/".to_owned(),
                "A".to_owned(),
                "complete".to_owned()
            )
        );
        assert!(document_state(&json!({"result": {"type": "null"}})).is_err());
    }
}
