//! The actions on refs in BiDi-only mode (docs/grid.md, "BiDi-only mode"): type_ax, set_field,
//! select_option and scroll are the content script's own actions run in the document's sandbox,
//! as the extension does them with the browser bridge too; the others are the extension's actions with real input
//! (src/browser_bridge/input.rs and keys.rs, and the background's finishExternalInput and click
//! arbiter in extension/background/actions/actions.js), with the extension's halves run in the
//! document's sandbox instead:
//!
//! 1. the content script's own beginning of an input that comes from outside the page
//!    (`beginInput`: content/actions/click.js, beginExternalClick; hover.js,
//!    beginHoverObservation; keyboard.js, beginExternalKeyPress): the ref resolved in the
//!    sandbox's registry (`ref_not_found` with suggestions, `ref_changed`, a disabled target
//!    refused for a click), the before-state and the observers, the target scrolled into view
//!    (and focused, for a key);
//! 2. the element handed over as a BiDi shared reference; a pointer's is hit-tested at its
//!    in-view centre and clicked or hovered with `input.performActions` (allwright_surface_web's
//!    `Page::click` and `Page::hover`: a covered element is refused with `not_actionable` naming
//!    the cover, and nothing is sent); a key is sent (`Page::press`) only when that element holds
//!    focus, and the content script's own synthetic key runs instead when it does not, or when
//!    the WebDriver key table lacks the key, as the browser bridge decides;
//! 3. the content script's report (`finishInput`), then, for a click, the arbiter's
//!    observation: steps of 50 ms over two intervals of 250 ms (`lookAfterClick`: click.js,
//!    observeClick), ended early once the click showed progress and the page is still; for a
//!    hover or a key, the background's 200 ms of watching the tab;
//! 4. the result made by the background's own rules (`actionResult`: action-outcome.js and
//!    changes-of-read.js) from what the server watched over BiDi: the tab's requests as the
//!    surface records them, the tabs that appeared, the navigation, and the read since the tab's
//!    last tree read.
//!
//! Once the input was sent, whatever fails is `outcome_unknown` with `retryAllowed: false`
//! (docs/protocol/action-safety.md, "Nothing done twice"): the input may have had its effect.
//!
//! What this mode cannot watch as the extension does: downloads (the extension's come from its
//! downloads API), and a navigation that has started but not yet committed (the extension's
//! webNavigation tells it at once); the form's POST that starts such a navigation is still seen
//! as a request, so the click is never reported as safe to repeat.

use std::time::{Duration, Instant};

use allwright_surface_web::snapshot::{call_collector_function, SANDBOX};
use allwright_surface_web::{ElementHandle, Page};
use serde_json::{json, Value};

use crate::browser_bridge::{after_input_was_sent, real_input_error, real_key_chord};
use crate::input_mode::{InputMode, INPUT_FIELD};
use crate::tool_error::{codes, ToolError};

use super::{bidi_failure, refuse_frame_id, snapshot_failure, BidiOnlyTools};

/// The click arbiter's observation interval; the click settles over two of them (the
/// extension's OBSERVATION_INTERVAL_MS).
const OBSERVATION_INTERVAL: Duration = Duration::from_millis(250);
/// How long the page must have been still after the click's effect showed before the result
/// goes back (the extension's QUIET_AFTER_EFFECT_MS): also the observation's step.
const QUIET_AFTER_EFFECT: Duration = Duration::from_millis(50);
/// How long a navigation the click started may take to load (the extension's
/// NAVIGATION_SETTLE_MS).
const NAVIGATION_SETTLE: Duration = Duration::from_secs(10);
/// How long each of the page's halves may take (the bridge's INPUT_STEP_TIMEOUT).
const STEP_TIMEOUT: Duration = Duration::from_secs(20);
/// How long the tab is watched after an input other than a click (the extension's SETTLE_MS).
const SETTLE: Duration = Duration::from_millis(200);

/// What a key press's result hints when its key was the content script's own because the
/// target lost focus (the browser bridge's words: src/browser_bridge/keys.rs).
const KEY_NOT_SENT: &str = "real key input was not sent: the element did not hold focus when the key was due (or BiDi could not reach it), so the extension's synthetic key was used";

/// Which input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum InputKind {
    Click,
    Hover,
    Key,
}

impl InputKind {
    /// The content script's name of the input's kind (content/actions/external-input.js).
    fn kind(self) -> &'static str {
        match self {
            Self::Click => "click",
            Self::Hover => "hover",
            Self::Key => "key",
        }
    }

    /// The agent's tool, which errors name.
    fn tool(self) -> &'static str {
        match self {
            Self::Click => "click_ax",
            Self::Hover => "hover",
            Self::Key => "press_key",
        }
    }

    /// The action as the result's hints name it (background/actions/actions.js).
    fn action(self) -> &'static str {
        match self {
            Self::Click => "click",
            Self::Hover => "hover",
            Self::Key => "key press",
        }
    }
}

const BEGIN_INPUT: &str = "function (kind, argumentsText) {
  const surface = globalThis.allwrightSurface;
  if (surface === undefined) return null;
  return surface.beginInput(kind, argumentsText);
}";

const INPUT_TARGET: &str = "function (token) {
  const surface = globalThis.allwrightSurface;
  if (surface === undefined) return null;
  return surface.inputTarget(token);
}";

const FINISH_INPUT: &str = "function (token) {
  const surface = globalThis.allwrightSurface;
  if (surface === undefined) return null;
  return surface.finishInput(token);
}";

const ABORT_INPUT: &str = "function (token) {
  const surface = globalThis.allwrightSurface;
  if (surface === undefined) return null;
  return surface.abortInput(token);
}";

const ACT_SYNTHETICALLY: &str = "function (tool, argumentsText) {
  const surface = globalThis.allwrightSurface;
  if (surface === undefined) return null;
  return surface.actSynthetically(tool, argumentsText);
}";

const LOOK_AFTER_CLICK: &str = "function (token, evidenceSoFar) {
  const surface = globalThis.allwrightSurface;
  if (surface === undefined) return null;
  return surface.lookAfterClick(token, JSON.parse(evidenceSoFar));
}";

const ACTION_RESULT: &str = "function (facts) {
  const surface = globalThis.allwrightSurface;
  if (surface === undefined) return null;
  return surface.actionResult(JSON.parse(facts));
}";

/// The document's URL, and whether its sandbox still holds the collector: a sandbox without it
/// belongs to a new document (a navigation replaced the one the click began in).
const DOCUMENT_NOW: &str =
    "function () { return JSON.stringify([document.URL, globalThis.allwrightSurface !== undefined]); }";

/// What the server watches of a tab while an action runs (the extension's `watchTab`).
struct TabWatch {
    context: String,
    url_before: String,
    /// The surface's last observation before the action: the requests after it are the action's.
    sequence_before: u64,
    contexts_before: Vec<String>,
}

/// An action of the content script's own synthetic input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Synthetic {
    KeyPress,
    Typing,
    FieldUpdate,
    Selection,
    Scroll,
}

impl Synthetic {
    /// The content script's tool (content/actions.js).
    fn content_tool(self) -> &'static str {
        match self {
            Self::KeyPress => "press_key",
            Self::Typing => "type_text",
            Self::FieldUpdate => "fill_field",
            Self::Selection => "select_option",
            Self::Scroll => "scroll",
        }
    }

    /// The action as the result's hints name it (background/actions/actions.js).
    fn action(self) -> &'static str {
        match self {
            Self::KeyPress => "key press",
            Self::Typing => "typing",
            Self::FieldUpdate => "field update",
            Self::Selection => "selection",
            Self::Scroll => "scroll",
        }
    }
}

/// What the page side reported of an input and what was seen after it, which the result is
/// made of.
struct Seen {
    /// The content script's report; None when the input navigated before it could report.
    report: Option<Value>,
    /// The click arbiter's evidence and hints after the report.
    evidence: Vec<String>,
    hints: Vec<String>,
    /// `"bidi"` for real input; None for the content script's own synthetic key.
    method: Option<&'static str>,
}

/// Whether the document an action began in is still there, as the extension's watch tells it.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Navigation {
    None,
    /// The URL changed within the document (history.pushState, a fragment).
    SameDocument(String),
    /// Another document replaced it (or is replacing it: its realm is gone).
    NewDocument(String),
}

impl Navigation {
    /// The `observed.navigation` of an action's result.
    fn observed(&self) -> Value {
        match self {
            Self::None => Value::Null,
            Self::SameDocument(url) => json!({ "url": url, "sameDocument": true }),
            Self::NewDocument(url) => json!({ "url": url }),
        }
    }
}

impl BidiOnlyTools {
    /// `click_ax({ref_id, tabId?})`, `hover({ref_id, tabId?})` and `press_key({key, modifiers?,
    /// ref_id?, tabId?})` with real input over BiDi.
    pub(super) async fn act(
        &self,
        input: InputKind,
        arguments: &Value,
        wait: Duration,
    ) -> Result<Value, ToolError> {
        refuse_frame_id(
            arguments,
            "Leave frameId out: the action runs in the tab's top document.",
        )?;
        let context = self.context_for(arguments).await?;
        let reference = arguments
            .get("ref_id")
            .and_then(Value::as_str)
            .map(str::to_owned);
        // A key press without a ref goes to the focused element; every other input names one.
        if input != InputKind::Key || reference.is_some() {
            self.refuse_a_ref_never_printed(&context, reference.as_deref().unwrap_or_default())
                .await?;
        }
        let input_arguments = json!({
            "ref_id": reference,
            "key": arguments.get("key"),
            "modifiers": arguments.get("modifiers").cloned().unwrap_or_else(|| json!([])),
        });
        // A key the WebDriver key table does not know is the content script's own, as the
        // browser bridge leaves it to the extension (src/browser_bridge/keys.rs).
        let chord = match input {
            InputKind::Key => match real_key_chord(arguments) {
                Some(chord) => Some(chord),
                None => {
                    return self
                        .press_key_synthetically(&context, &input_arguments, None, wait)
                        .await
                }
            },
            InputKind::Click | InputKind::Hover => None,
        };
        let watch = self.watch_tab(&context).await?;
        let begun = surface_answer(
            &call_collector_function(
                self.bidi(),
                &context,
                BEGIN_INPUT,
                vec![
                    json!({"type": "string", "value": input.kind()}),
                    json!({"type": "string", "value": input_arguments.to_string()}),
                ],
                STEP_TIMEOUT,
            )
            .await
            .map_err(snapshot_failure)?,
        )?;
        let Some(token) = begun["token"].as_str().map(str::to_owned) else {
            return Err(ToolError::script_failed(format!(
                "the {} began without a token: {begun}",
                input.kind()
            )));
        };
        let element = match self.input_target(&context, &token).await {
            Ok(Some(element)) => element,
            Ok(None) => {
                self.abort_input(&context, &token).await;
                return Err(ToolError::new(
                    "ref_not_found",
                    "the element left the page before the input reached it",
                )
                .with_hint(
                    "Read the tree again with get_accessibility_tree and use a current ref.",
                ));
            }
            Err(error) => {
                self.abort_input(&context, &token).await;
                return Err(error);
            }
        };
        let page = Page::new(self.bidi(), &context);
        let sent = match input {
            InputKind::Click => page.click(&element).await.map(|_| ()),
            InputKind::Hover => page.hover(&element).await.map(|_| ()),
            InputKind::Key => {
                // Key input goes to whatever holds focus when it arrives: when the page moved
                // focus away from the element the content script focused (a focus handler that
                // sends it to another field), no real key is sent, and the content script's own
                // key, dispatched on the element itself, runs instead and says so.
                let holds_focus = page.holds_focus(&element).await.unwrap_or(false);
                if !holds_focus {
                    self.abort_input(&context, &token).await;
                    return self
                        .press_key_synthetically(
                            &context,
                            &input_arguments,
                            Some(KEY_NOT_SENT),
                            wait,
                        )
                        .await;
                }
                page.press(chord.as_deref().unwrap_or_default()).await
            }
        };
        if let Err(error) = sent {
            let error = real_input_error(input.tool(), &error);
            if error.code != codes::OUTCOME_UNKNOWN {
                self.abort_input(&context, &token).await;
            }
            return Err(error);
        }
        // The input was sent: from here on a failure may not invite a second one.
        self.observe_sent_input(input, &watch, &token, wait)
            .await
            .map_err(|error| after_input_was_sent(input.tool(), error))
    }

    /// press_key with the content script's own synthetic key in the document's sandbox
    /// (keyboard.js, pressKey), answered as the extension answers its synthetic press_key:
    /// no `method`, `input: "synthetic"`, and `hint` among the hints when given.
    async fn press_key_synthetically(
        &self,
        context: &str,
        input_arguments: &Value,
        hint: Option<&str>,
        wait: Duration,
    ) -> Result<Value, ToolError> {
        self.act_synthetically(context, Synthetic::KeyPress, input_arguments, hint, wait)
            .await
    }

    /// type_ax, set_field, select_option and scroll: the content script's own actions in the
    /// document's sandbox (text-entry.js, typeText and fillField; select-option.js; scroll.js),
    /// as the extension does them with or without the browser bridge, answered as its synthetic
    /// actions are.
    pub(super) async fn act_in_page(
        &self,
        action: Synthetic,
        arguments: &Value,
        wait: Duration,
    ) -> Result<Value, ToolError> {
        refuse_frame_id(
            arguments,
            "Leave frameId out: the action runs in the tab's top document.",
        )?;
        let context = self.context_for(arguments).await?;
        if let Some(reference) = arguments.get("ref_id").and_then(Value::as_str) {
            self.refuse_a_ref_never_printed(&context, reference).await?;
        }
        // The tool's arguments less its target, as the background hands them to the content
        // script (withoutTarget in background/actions/actions.js).
        let mut content_arguments = arguments.clone();
        if let Some(object) = content_arguments.as_object_mut() {
            for name in ["tabId", "frameId", "verbose"] {
                object.remove(name);
            }
        }
        self.act_synthetically(&context, action, &content_arguments, None, wait)
            .await
    }

    /// An action of the content script's own synthetic input in the document's sandbox, then
    /// the background's 200 ms of watching the tab and its result (pageAction in
    /// background/actions/actions.js).
    async fn act_synthetically(
        &self,
        context: &str,
        action: Synthetic,
        action_arguments: &Value,
        hint: Option<&str>,
        wait: Duration,
    ) -> Result<Value, ToolError> {
        let watch = self.watch_tab(context).await?;
        let pressed = call_collector_function(
            self.bidi(),
            context,
            ACT_SYNTHETICALLY,
            vec![
                json!({"type": "string", "value": action.content_tool()}),
                json!({"type": "string", "value": action_arguments.to_string()}),
            ],
            STEP_TIMEOUT,
        )
        .await
        .map_err(snapshot_failure)
        .and_then(|answer| surface_answer(&answer));
        // An action that navigated the tab (Enter submitting a form) reports nothing, and the
        // navigation is the outcome.
        let report = match pressed {
            Ok(report) => Some(report),
            Err(error) => match self.navigation_since(&watch).await {
                Navigation::None => return Err(error),
                Navigation::SameDocument(_) | Navigation::NewDocument(_) => None,
            },
        };
        tokio::time::sleep(SETTLE).await;
        let seen = Seen {
            report,
            evidence: Vec::new(),
            hints: hint.map(str::to_owned).into_iter().collect(),
            method: None,
        };
        self.action_result(&watch, action.action(), seen, wait)
            .await
    }

    /// The second half of an input that was sent: the report, the observation and the result,
    /// as the background makes them for real input (finishExternalInput; for a click, the click
    /// arbiter with `inputMethod: "bidi"`: no trusted fallback, the input was real already).
    async fn observe_sent_input(
        &self,
        input: InputKind,
        watch: &TabWatch,
        token: &str,
        wait: Duration,
    ) -> Result<Value, ToolError> {
        let context = watch.context.as_str();
        let token_argument = json!({"type": "string", "value": token});
        let finished = self
            .surface_call(context, FINISH_INPUT, vec![token_argument.clone()])
            .await
            .and_then(|answer| answer.map(|answer| surface_answer(&answer)).transpose());
        // A report that cannot come because the input navigated the tab is no failure: the new
        // document knows no such input, and the navigation is the outcome.
        let report = match finished {
            Ok(report) => report,
            Err(error) => match self.navigation_since(watch).await {
                Navigation::None => return Err(error),
                Navigation::SameDocument(_) | Navigation::NewDocument(_) => None,
            },
        };
        let mut evidence: Vec<String> = Vec::new();
        let mut hints: Vec<String> = Vec::new();
        match (input, &report) {
            (InputKind::Click, Some(report)) => {
                self.observe_click(watch, &token_argument, report, &mut evidence, &mut hints)
                    .await;
            }
            (InputKind::Click, None) => {}
            (InputKind::Hover | InputKind::Key, _) => tokio::time::sleep(SETTLE).await,
        }
        let seen = Seen {
            report,
            evidence,
            hints,
            method: Some("bidi"),
        };
        self.action_result(watch, input.action(), seen, wait).await
    }

    /// The click arbiter's observation after real input (arbitrateClick in
    /// background/actions/actions.js): steps of QUIET_AFTER_EFFECT over two intervals, each
    /// step's evidence and hints added to the click's.
    async fn observe_click(
        &self,
        watch: &TabWatch,
        token_argument: &Value,
        report: &Value,
        evidence: &mut Vec<String>,
        hints: &mut Vec<String>,
    ) {
        let context = watch.context.as_str();
        let mut so_far = strings(&report["evidence"]);
        // Each interval is watched in steps: once the click showed progress and the page has
        // been still for a step (the same box, no mutation, no animation, no request), the click
        // has answered and the result goes back at once. A navigation ends the watch, but not
        // before one whole interval (a download link's navigation never commits, and its
        // download shows only later).
        let observing_since = Instant::now();
        for _ in 0..2 {
            let interval_end = Instant::now() + OBSERVATION_INTERVAL;
            while Instant::now() < interval_end {
                let step =
                    QUIET_AFTER_EFFECT.min(interval_end.saturating_duration_since(Instant::now()));
                tokio::time::sleep(step).await;
                if self.navigation_since(watch).await != Navigation::None {
                    if observing_since.elapsed() >= OBSERVATION_INTERVAL {
                        return;
                    }
                    continue;
                }
                let so_far_text = serde_json::to_string(&so_far).unwrap_or_default();
                let seen = self
                    .surface_call(
                        context,
                        LOOK_AFTER_CLICK,
                        vec![
                            token_argument.clone(),
                            json!({"type": "string", "value": so_far_text}),
                        ],
                    )
                    .await
                    .and_then(|answer| match answer {
                        Some(answer) => surface_answer(&answer),
                        None => Err(ToolError::new(
                            "frame_detached",
                            "the document was replaced",
                        )),
                    });
                let seen = match seen {
                    Ok(seen) => seen,
                    Err(error) => {
                        // What was seen so far still stands: the click's result is reported
                        // rather than failed.
                        hints.push(format!("observing the click failed: {}", error.message));
                        continue;
                    }
                };
                let seen_evidence = strings(&seen["evidence"]);
                so_far.extend(seen_evidence.iter().cloned());
                evidence.extend(seen_evidence);
                hints.extend(strings(&seen["hints"]));
                let still = seen["stable"] == true && seen["connected"] == true;
                if still
                    && seen["animating"] != true
                    && seen["progressed"] == true
                    && self.network_quiet_for(context, QUIET_AFTER_EFFECT)
                {
                    return;
                }
            }
        }
    }

    /// An action's result (actionResult in background/actions/actions.js): the navigation
    /// waited for, what the tab did, the changes since its last tree read, and the result made
    /// by the background's rules in the sandbox, labelled with the input that ran.
    async fn action_result(
        &self,
        watch: &TabWatch,
        action: &str,
        seen: Seen,
        wait: Duration,
    ) -> Result<Value, ToolError> {
        let Seen {
            report,
            evidence,
            mut hints,
            method,
        } = seen;
        let context = watch.context.as_str();
        let navigation = self.navigation_since(watch).await;
        if matches!(navigation, Navigation::NewDocument(_)) {
            let settled = self
                .wait_for_load(context, Instant::now() + NAVIGATION_SETTLE)
                .await;
            if settled.is_err() {
                hints.push(format!(
                    "the new page was still loading after {} s",
                    NAVIGATION_SETTLE.as_secs()
                ));
            }
        }
        let new_document = report.is_none() || matches!(navigation, Navigation::NewDocument(_));
        let mut facts = json!({
            "report": report,
            "action": action,
            "evidence": evidence,
            "hints": hints,
            "navigated": navigation != Navigation::None || report.is_none(),
            "navigation": navigation.observed(),
            "newTabs": self.new_tabs_since(watch).await,
            "requests": self.requests_since(watch),
        });
        if let Some(method) = method {
            facts["method"] = json!(method);
        }
        self.add_changes(&mut facts, context, new_document, wait)
            .await;
        let answer = call_collector_function(
            self.bidi(),
            context,
            ACTION_RESULT,
            vec![json!({"type": "string", "value": facts.to_string()})],
            STEP_TIMEOUT,
        )
        .await
        .map_err(snapshot_failure)?;
        let mut result = surface_answer(&answer)?;
        let label = match method {
            Some(_) => InputMode::Trusted,
            None => InputMode::Synthetic,
        };
        if let Some(object) = result.as_object_mut() {
            object.insert(INPUT_FIELD.into(), json!(label.name()));
        }
        Ok(result)
    }

    /// Starts watching the tab of `context` for what an action does besides its page's evidence.
    async fn watch_tab(&self, context: &str) -> Result<TabWatch, ToolError> {
        let (url_before, _) = self.url_and_title(context).await?;
        let sequence_before = self
            .observations
            .read(|observations, _| observations.last_sequence());
        let contexts_before = self
            .top_contexts()
            .await?
            .into_iter()
            .map(|top| top.context)
            .collect();
        Ok(TabWatch {
            context: context.to_owned(),
            url_before,
            sequence_before,
            contexts_before,
        })
    }

    /// Whether the watched document navigated: its sandbox lost the collector (a new
    /// document), or its URL changed; a realm that cannot answer is being replaced.
    async fn navigation_since(&self, watch: &TabWatch) -> Navigation {
        let answer = self
            .surface_call_value(&watch.context, DOCUMENT_NOW, Vec::new())
            .await;
        let seen = answer.ok().and_then(|answer| {
            let text = answer["value"].as_str()?.to_owned();
            serde_json::from_str::<(String, bool)>(&text).ok()
        });
        match seen {
            Some((url, true)) if url == watch.url_before => Navigation::None,
            Some((url, true)) => Navigation::SameDocument(url),
            Some((url, false)) => Navigation::NewDocument(url),
            None => {
                let url = self
                    .top_contexts()
                    .await
                    .ok()
                    .and_then(|contexts| {
                        contexts
                            .into_iter()
                            .find(|top| top.context == watch.context)
                            .map(|top| top.url)
                    })
                    .unwrap_or_default();
                Navigation::NewDocument(url)
            }
        }
    }

    /// The tabs that appeared since the watch began, as `observed.newTabs` lists them.
    async fn new_tabs_since(&self, watch: &TabWatch) -> Vec<Value> {
        let Ok(contexts) = self.top_contexts().await else {
            return Vec::new();
        };
        let mut tabs = self.tabs.lock().await;
        contexts
            .into_iter()
            .filter(|top| !watch.contexts_before.contains(&top.context))
            .map(|top| json!({ "tabId": tabs.tab_id(&top.context), "url": top.url }))
            .collect()
    }

    /// The tab's requests since the watch began, as the surface recorded them, with the type
    /// BiDi gave each (the sandbox tells which count: background/actions/activity.js).
    fn requests_since(&self, watch: &TabWatch) -> Vec<Value> {
        self.observations.read(|observations, tab_of| {
            let tab = tab_of(&watch.context);
            observations
                .requests_of(&tab, tab_of)
                .into_iter()
                .filter(|request| request.sequence > watch.sequence_before)
                .map(|request| {
                    json!({
                        "method": request.method,
                        "url": request.url,
                        "type": request.resource_type.clone().unwrap_or_default(),
                    })
                })
                .collect()
        })
    }

    /// The facts of an action's `changes` (background/actions/action-changes.js): none before
    /// the tab's first tree read; `navigated` after a new document; else the tab's last read
    /// repeated since its snapshot, or `read_failed`.
    async fn add_changes(
        &self,
        facts: &mut Value,
        context: &str,
        new_document: bool,
        wait: Duration,
    ) {
        let (last, tab_id) = {
            let mut tabs = self.tabs.lock().await;
            let last = tabs.last_reads.get(context).cloned();
            (last, tabs.tab_id(context))
        };
        let Some(last) = last else { return };
        if new_document {
            self.tabs.lock().await.last_reads.remove(context);
            facts["changesOmitted"] = json!("navigated");
            return;
        }
        let mut read_arguments = json!({ "tabId": tab_id, "since": last.snapshot_id });
        for (name, value) in [
            ("filter", &last.filter),
            ("maxDepth", &last.max_depth),
            ("ref_id", &last.ref_id),
        ] {
            if !value.is_null() {
                read_arguments[name] = value.clone();
            }
        }
        match self.read_tree(&read_arguments, wait).await {
            Ok(read) => {
                facts["changesRead"] = read;
                facts["changesSince"] = json!(last.snapshot_id);
            }
            Err(_) => {
                self.tabs.lock().await.last_reads.remove(context);
                facts["changesOmitted"] = json!("read_failed");
            }
        }
    }

    /// The element of a begun input, as a shared reference, or None when it left the page.
    async fn input_target(
        &self,
        context: &str,
        token: &str,
    ) -> Result<Option<ElementHandle>, ToolError> {
        let answer = self
            .surface_call_value(
                context,
                INPUT_TARGET,
                vec![json!({"type": "string", "value": token})],
            )
            .await?;
        Ok(answer["sharedId"].as_str().map(|shared_id| ElementHandle {
            shared_id: shared_id.to_owned(),
        }))
    }

    /// Forgets a begun input that will not be sent (best effort: the page may be gone, and the
    /// sandbox forgets it by itself after a while).
    async fn abort_input(&self, context: &str, token: &str) {
        let _ = self
            .surface_call(
                context,
                ABORT_INPUT,
                vec![json!({"type": "string", "value": token})],
            )
            .await;
    }

    /// Calls a function of the collector already in the document's sandbox, never installing it
    /// (a sandbox without it is a new document's, which knows nothing of the action): its
    /// string, or None when the collector is missing.
    async fn surface_call(
        &self,
        context: &str,
        function: &str,
        arguments: Vec<Value>,
    ) -> Result<Option<String>, ToolError> {
        let value = self
            .surface_call_value(context, function, arguments)
            .await?;
        Ok(value["value"].as_str().map(str::to_owned))
    }

    /// The remote value a function called in the document's sandbox answered.
    async fn surface_call_value(
        &self,
        context: &str,
        function: &str,
        arguments: Vec<Value>,
    ) -> Result<Value, ToolError> {
        let answer = self
            .bidi()
            .command_with_timeout(
                "script.callFunction",
                json!({
                    "functionDeclaration": function,
                    "arguments": arguments,
                    "target": {"context": context, "sandbox": SANDBOX},
                    "awaitPromise": true,
                    "resultOwnership": "none",
                    "serializationOptions": {"maxDomDepth": 0},
                }),
                STEP_TIMEOUT,
            )
            .await
            .map_err(|error| bidi_failure("calling the page's side of the action", &error))?;
        if answer["type"] == "exception" {
            return Err(ToolError::script_failed(format!(
                "the page's side of the action failed: {}",
                answer["exceptionDetails"]["text"]
            )));
        }
        Ok(answer["result"].clone())
    }
}

/// The `result` of the sandbox's `{ok, result}` JSON text, or its structured error.
fn surface_answer(answer: &str) -> Result<Value, ToolError> {
    let answer: Value = serde_json::from_str(answer).map_err(|error| {
        ToolError::script_failed(format!(
            "the page's side of the action answered no JSON: {error}"
        ))
    })?;
    if answer["ok"] == true {
        Ok(answer["result"].clone())
    } else {
        Err(ToolError::from_foreign_value(answer.get("error")))
    }
}

/// The strings of a JSON array (evidence, hints), others left out.
fn strings(value: &Value) -> Vec<String> {
    value
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default()
        .iter()
        .filter_map(|item| item.as_str().map(str::to_owned))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sandbox_answer_is_its_result_or_its_structured_error() {
        let result = surface_answer(r#"{"ok":true,"result":{"token":"click_1"}}"#).expect("ok");
        assert_eq!(result["token"], "click_1");
        let error = surface_answer(
            r#"{"ok":false,"error":{"code":"ref_not_found","message":"ref_3 is gone","suggestions":["ref_4"]}}"#,
        )
        .expect_err("an error");
        assert_eq!(error.code, "ref_not_found");
        assert!(surface_answer("not json").is_err());
    }

    #[test]
    fn a_navigation_is_observed_as_the_extension_reports_it() {
        assert_eq!(Navigation::None.observed(), Value::Null);
        assert_eq!(
            Navigation::SameDocument("http://a/#b".into()).observed(),
            json!({"url": "http://a/#b", "sameDocument": true})
        );
        assert_eq!(
            Navigation::NewDocument("http://b/".into()).observed(),
            json!({"url": "http://b/"})
        );
    }

    #[test]
    fn strings_keep_only_strings() {
        assert_eq!(strings(&json!(["a", 1, "b"])), ["a", "b"]);
        assert!(strings(&Value::Null).is_empty());
    }
}
