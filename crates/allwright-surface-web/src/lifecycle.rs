//! Page lifecycle and user prompts, from BiDi events: browsing contexts created and destroyed,
//! navigations started, committed and loaded, and `alert`/`confirm`/`prompt`/`beforeunload`
//! dialogs opened and closed, as a typed stream ([`LifecycleEvents`]), plus a registry of the
//! prompts that are open now ([`Lifecycle::open_prompt`]), so that a caller whose command is
//! blocked by a dialog can answer "dialog open" instead of waiting for a timeout.
//!
//! Prompts stay open only when the session asked for it: with no `unhandledPromptBehavior`
//! capability a BiDi session dismisses them itself (WebDriver BiDi, "user prompt handler": the
//! default handler is "dismiss", and "accept" for beforeunload). The launchers and
//! [`crate::remote`] set `{default: "ignore"}`.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use serde_json::{json, Value};
use tokio::sync::broadcast;
use tokio::task::JoinHandle;

use crate::bidi::{BidiConnection, BidiError, BidiErrorKind, BidiEvent};

/// The events allwright subscribes to, in the order they are tried.
///
/// SPEC DIFFERENCE: `browsingContext.navigationCommitted` is a newer event; a browser that does
/// not know an event fails the whole `session.subscribe` (`invalid argument`), so each event is
/// subscribed on its own and the unknown ones are reported in [`Lifecycle::unsupported_events`].
pub const LIFECYCLE_EVENT_NAMES: &[&str] = &[
    "browsingContext.contextCreated",
    "browsingContext.contextDestroyed",
    "browsingContext.navigationStarted",
    "browsingContext.navigationCommitted",
    "browsingContext.fragmentNavigated",
    "browsingContext.domContentLoaded",
    "browsingContext.load",
    "browsingContext.navigationFailed",
    "browsingContext.navigationAborted",
    "browsingContext.userPromptOpened",
    "browsingContext.userPromptClosed",
    // A file chooser the page opened (the session's `file` prompt handler dismisses it, see
    // [`keep_prompts_open_capability`]): upload_file's dialog route and click_ax's evidence.
    "input.fileDialogOpened",
];

/// The kind of a user prompt (WebDriver BiDi, browsingContext.UserPromptType).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PromptType {
    Alert,
    Confirm,
    Prompt,
    BeforeUnload,
}

impl PromptType {
    pub fn from_wire(name: &str) -> Option<Self> {
        match name {
            "alert" => Some(Self::Alert),
            "confirm" => Some(Self::Confirm),
            "prompt" => Some(Self::Prompt),
            "beforeunload" => Some(Self::BeforeUnload),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Self::Alert => "alert",
            Self::Confirm => "confirm",
            Self::Prompt => "prompt",
            Self::BeforeUnload => "beforeunload",
        }
    }
}

/// Which stage of a navigation an event reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NavigationStage {
    Started,
    /// The new document replaced the old one (not sent by every browser; see
    /// [`LIFECYCLE_EVENT_NAMES`]).
    Committed,
    /// A same-document navigation (the fragment or the history state changed).
    FragmentNavigated,
    DomContentLoaded,
    Load,
    /// The navigation ended without a new document (a network error, a download, a 204).
    Failed,
    /// Another navigation of the same context replaced this one before it committed.
    Aborted,
}

/// One lifecycle event, with the browsing context it concerns.
#[derive(Debug, Clone, PartialEq)]
pub enum LifecycleEvent {
    ContextCreated {
        context: String,
        parent: Option<String>,
        url: String,
    },
    ContextDestroyed {
        context: String,
    },
    Navigation {
        stage: NavigationStage,
        context: String,
        /// The navigation id, when the browser gives one.
        navigation: Option<String>,
        url: String,
    },
    UserPromptOpened {
        context: String,
        prompt: OpenPrompt,
    },
    UserPromptClosed {
        context: String,
        prompt_type: PromptType,
        accepted: bool,
        user_text: Option<String>,
    },
    /// The page opened a file chooser (`input.fileDialogOpened`); the session's prompt handler
    /// dismissed it without showing it.
    FileDialogOpened {
        context: String,
        multiple: bool,
        /// The shared id of the file input, when the browser names it.
        element: Option<String>,
    },
}

impl LifecycleEvent {
    pub fn context(&self) -> &str {
        match self {
            Self::ContextCreated { context, .. }
            | Self::ContextDestroyed { context }
            | Self::Navigation { context, .. }
            | Self::UserPromptOpened { context, .. }
            | Self::UserPromptClosed { context, .. }
            | Self::FileDialogOpened { context, .. } => context,
        }
    }
}

/// A prompt that is open: its kind, its message and, for `prompt()`, the default text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpenPrompt {
    pub prompt_type: PromptType,
    pub message: String,
    pub default_value: Option<String>,
    /// What the browser does with it by itself (`"ignore"` when it waits for the client).
    pub handler: Option<String>,
}

/// Reads one BiDi event as a lifecycle event; any other event, or one whose required fields
/// are missing, is `None` (the stream skips it rather than failing).
pub fn lifecycle_event_from_bidi(event: &BidiEvent) -> Option<LifecycleEvent> {
    let params = &event.params;
    let text = |key: &str| params[key].as_str().map(str::to_owned);
    let context = text("context")?;
    let navigation_stage = match event.method.as_str() {
        "browsingContext.navigationStarted" => Some(NavigationStage::Started),
        "browsingContext.navigationCommitted" => Some(NavigationStage::Committed),
        "browsingContext.fragmentNavigated" => Some(NavigationStage::FragmentNavigated),
        "browsingContext.domContentLoaded" => Some(NavigationStage::DomContentLoaded),
        "browsingContext.load" => Some(NavigationStage::Load),
        "browsingContext.navigationFailed" => Some(NavigationStage::Failed),
        "browsingContext.navigationAborted" => Some(NavigationStage::Aborted),
        _ => None,
    };
    if let Some(stage) = navigation_stage {
        return Some(LifecycleEvent::Navigation {
            stage,
            context,
            navigation: text("navigation"),
            url: text("url").unwrap_or_default(),
        });
    }
    match event.method.as_str() {
        "browsingContext.contextCreated" => Some(LifecycleEvent::ContextCreated {
            context,
            parent: text("parent"),
            url: text("url").unwrap_or_default(),
        }),
        "browsingContext.contextDestroyed" => Some(LifecycleEvent::ContextDestroyed { context }),
        "input.fileDialogOpened" => Some(LifecycleEvent::FileDialogOpened {
            context,
            multiple: params["multiple"].as_bool().unwrap_or(false),
            element: params["element"]["sharedId"].as_str().map(str::to_owned),
        }),
        "browsingContext.userPromptOpened" => Some(LifecycleEvent::UserPromptOpened {
            context,
            prompt: OpenPrompt {
                prompt_type: PromptType::from_wire(params["type"].as_str()?)?,
                message: text("message").unwrap_or_default(),
                default_value: text("defaultValue"),
                handler: text("handler"),
            },
        }),
        "browsingContext.userPromptClosed" => Some(LifecycleEvent::UserPromptClosed {
            context,
            // SPEC DIFFERENCE: `type` was added to userPromptClosed later than to
            // userPromptOpened; a browser without it reports an alert here, and the registry
            // only needs the context.
            prompt_type: params["type"]
                .as_str()
                .and_then(PromptType::from_wire)
                .unwrap_or(PromptType::Alert),
            accepted: params["accepted"].as_bool().unwrap_or(false),
            user_text: text("userText"),
        }),
        _ => None,
    }
}

/// A prompt and the browsing context the browser reported it in.
///
/// Both Chromium 156 and Firefox 153 report a prompt raised in a frame with the frame's
/// context (not the tab's), and accept `handleUserPrompt` with either; a prompt blocks its
/// whole tab, so lookups go by tab ([`PromptRegistry::open_prompt_in_tab`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PromptInContext {
    pub context: String,
    pub prompt: OpenPrompt,
}

/// The prompts open now, and the tree of browsing contexts they are looked up in, kept up to
/// date from the events.
#[derive(Debug, Default)]
pub struct PromptRegistry {
    open: HashMap<String, OpenPrompt>,
    /// Each known context's parent (`None` for a tab).
    parents: HashMap<String, Option<String>>,
}

impl PromptRegistry {
    /// Learns the contexts of a `browsingContext.getTree` result (without `root`: every tab and
    /// frame). A context the events already described is left as they said.
    pub fn learn_tree(&mut self, get_tree_result: &Value) {
        let mut pending: Vec<(&Value, Option<String>)> = get_tree_result["contexts"]
            .as_array()
            .map(|contexts| contexts.iter().map(|context| (context, None)).collect())
            .unwrap_or_default();
        while let Some((info, parent)) = pending.pop() {
            let Some(context) = info["context"].as_str() else {
                continue;
            };
            let parent = info["parent"].as_str().map(str::to_owned).or(parent);
            self.parents.entry(context.to_owned()).or_insert(parent);
            if let Some(children) = info["children"].as_array() {
                pending.extend(
                    children
                        .iter()
                        .map(|child| (child, Some(context.to_owned()))),
                );
            }
        }
    }

    /// Applies one event: a context appears or goes, a prompt opens or closes.
    pub fn apply(&mut self, event: &LifecycleEvent) {
        match event {
            LifecycleEvent::ContextCreated {
                context, parent, ..
            } => {
                self.parents.insert(context.clone(), parent.clone());
            }
            LifecycleEvent::ContextDestroyed { context } => {
                self.open.remove(context);
                self.parents.remove(context);
            }
            LifecycleEvent::UserPromptOpened { context, prompt } => {
                self.open.insert(context.clone(), prompt.clone());
            }
            // A tab has one prompt at a time, and a browser may report the close in the tab's
            // context although the open named a frame: every prompt of the tab is closed.
            LifecycleEvent::UserPromptClosed { context, .. } => {
                let tab = self.tab_of(context);
                let closed: Vec<String> = self
                    .open
                    .keys()
                    .filter(|open_context| self.tab_of(open_context) == tab)
                    .cloned()
                    .collect();
                for open_context in closed {
                    self.open.remove(&open_context);
                }
            }
            // A new document in the context means the prompt of the old one is gone.
            LifecycleEvent::Navigation {
                stage: NavigationStage::Committed,
                context,
                ..
            } => {
                self.open.remove(context);
            }
            LifecycleEvent::Navigation { .. } | LifecycleEvent::FileDialogOpened { .. } => {}
        }
    }

    /// The tab (top-level context) a context belongs to; an unknown context is its own tab.
    pub fn tab_of(&self, context: &str) -> String {
        let mut current = context.to_owned();
        // The depth bound guards against a cycle in a broken event sequence.
        for _ in 0..64 {
            match self.parents.get(&current) {
                Some(Some(parent)) => current = parent.clone(),
                _ => break,
            }
        }
        current
    }

    /// The prompt open in `context` itself.
    pub fn open_prompt(&self, context: &str) -> Option<&OpenPrompt> {
        self.open.get(context)
    }

    /// The prompt open anywhere in the tab of `context` (the tab itself or any of its frames):
    /// the one that blocks scripts and input there.
    pub fn open_prompt_in_tab(&self, context: &str) -> Option<PromptInContext> {
        let tab = self.tab_of(context);
        self.open
            .iter()
            .find(|(open_context, _)| self.tab_of(open_context) == tab)
            .map(|(open_context, prompt)| PromptInContext {
                context: open_context.clone(),
                prompt: prompt.clone(),
            })
    }

    /// Every open prompt, by context.
    pub fn all(&self) -> impl Iterator<Item = (&String, &OpenPrompt)> {
        self.open.iter()
    }
}

/// `session.subscribe` to one event for every context.
pub fn subscribe_params(event_name: &str) -> Value {
    json!({ "events": [event_name] })
}

/// Subscribes to each event of `names` on its own (a browser that does not know one event fails
/// the whole `session.subscribe`; see [`LIFECYCLE_EVENT_NAMES`]) and answers the events the
/// browser refused as unknown or unsupported. Any other failure ends the call.
pub async fn subscribe_each(
    connection: &BidiConnection,
    names: &[&'static str],
) -> Result<Vec<&'static str>, BidiError> {
    let mut unsupported = Vec::new();
    for name in names {
        match connection
            .command("session.subscribe", subscribe_params(name))
            .await
        {
            Ok(_) => {}
            Err(error)
                if matches!(
                    error.kind,
                    BidiErrorKind::InvalidArgument | BidiErrorKind::Unsupported
                ) =>
            {
                unsupported.push(*name)
            }
            Err(error) => return Err(error),
        }
    }
    Ok(unsupported)
}

/// `browsingContext.handleUserPrompt`: accept or dismiss the open prompt of `context`, with the
/// text to put in a `prompt()` (ignored by the browser for other prompts).
pub fn handle_user_prompt_params(context: &str, accept: bool, user_text: Option<&str>) -> Value {
    let mut params = json!({ "context": context, "accept": accept });
    if let Some(text) = user_text {
        params["userText"] = json!(text);
    }
    params
}

/// The session capability that keeps prompts open until the client answers them
/// (WebDriver BiDi, session.UserPromptHandler; the classic `unhandledPromptBehavior`
/// capability extended to a map). `beforeUnload` is named on its own because the spec's
/// fallback for it is "accept", not `default`. chromedriver 156 and Firefox 153 accept the map.
/// (Neither browser raised a beforeunload prompt under BiDi in the tests, see
/// `a_beforeunload_handler_raises_no_prompt_under_bidi`.)
///
/// A file chooser is the exception: `file: "dismiss"` has the browser cancel it as it opens,
/// without showing the system's dialog, and send `input.fileDialogOpened` naming the input
/// (chromium-bidi intercepts choosers only when this handler is not "ignore"; Firefox's remote
/// agent cancels the picker for "dismiss"). upload_file then sets the files with
/// `input.setFiles` (docs/security.md, "Files the agent uploads").
pub fn keep_prompts_open_capability() -> Value {
    json!({ "default": "ignore", "beforeUnload": "ignore", "file": "dismiss" })
}

/// The lifecycle of a BiDi session: the subscription and the registry of open prompts. The
/// registry is updated by a task of its own, so it is current whether or not anyone reads the
/// event stream. Dropping the `Lifecycle` stops that task.
pub struct Lifecycle {
    prompts: Arc<Mutex<PromptRegistry>>,
    subscribed_events: Vec<&'static str>,
    unsupported_events: Vec<&'static str>,
    tracker: JoinHandle<()>,
}

impl Lifecycle {
    /// Subscribes to [`LIFECYCLE_EVENT_NAMES`] and starts tracking prompts. An event the
    /// browser does not know is skipped (see [`Lifecycle::unsupported_events`]); any other
    /// failure ends the call.
    pub async fn start(connection: &BidiConnection) -> Result<Self, BidiError> {
        let prompts = Arc::new(Mutex::new(PromptRegistry::default()));
        // Listen before subscribing, so no event of the subscription is missed.
        let mut receiver = connection.subscribe_events();
        let tracked = Arc::clone(&prompts);
        let tracker = tokio::spawn(async move {
            loop {
                match receiver.recv().await {
                    Ok(event) => {
                        if let Some(event) = lifecycle_event_from_bidi(&event) {
                            lock(&tracked).apply(&event);
                        }
                    }
                    Err(broadcast::error::RecvError::Lagged(_)) => continue,
                    Err(broadcast::error::RecvError::Closed) => break,
                }
            }
        });
        let unsupported_events = match subscribe_each(connection, LIFECYCLE_EVENT_NAMES).await {
            Ok(unsupported) => unsupported,
            Err(error) => {
                tracker.abort();
                return Err(error);
            }
        };
        let subscribed_events = LIFECYCLE_EVENT_NAMES
            .iter()
            .copied()
            .filter(|name| !unsupported_events.contains(name))
            .collect();
        // Frames that existed before the subscription are learnt from the tree.
        match connection
            .command("browsingContext.getTree", json!({}))
            .await
        {
            Ok(tree) => lock(&prompts).learn_tree(&tree),
            Err(error) => {
                tracker.abort();
                return Err(error);
            }
        }
        Ok(Self {
            prompts,
            subscribed_events,
            unsupported_events,
            tracker,
        })
    }

    /// The prompt open now in the tab of `context` (in the tab or any of its frames), if any.
    pub fn open_prompt(&self, context: &str) -> Option<PromptInContext> {
        lock(&self.prompts).open_prompt_in_tab(context)
    }

    /// Runs an operation on `context` unless a prompt blocks its tab: when one is open already,
    /// the operation does not start; when one opens while it runs, the operation is dropped
    /// (its BiDi command's late answer is discarded) and the prompt is returned.
    ///
    /// Both browsers hold `input.performActions` until a prompt that the input raised is
    /// answered; Chromium 156 also holds `script.callFunction` and `captureScreenshot` in a
    /// tab whose prompt is open, while Firefox 153 answers them. So without this, a click on a
    /// button that calls `alert()` waits for the command timeout.
    pub async fn unless_prompt_opens<T>(
        &self,
        connection: &BidiConnection,
        context: &str,
        operation: impl std::future::Future<Output = T>,
    ) -> Unblocked<T> {
        // Listen before looking, so that a prompt opening in between is not missed.
        let mut events = connection.subscribe_events();
        if let Some(open) = self.open_prompt(context) {
            return Unblocked::PromptOpen(open);
        }
        let mut operation = std::pin::pin!(operation);
        loop {
            tokio::select! {
                result = &mut operation => return Unblocked::Finished(result),
                event = events.recv() => match event {
                    Ok(event) => {
                        if let Some(LifecycleEvent::UserPromptOpened { context: prompt_context, prompt }) =
                            lifecycle_event_from_bidi(&event)
                        {
                            let registry = lock(&self.prompts);
                            if registry.tab_of(&prompt_context) == registry.tab_of(context) {
                                return Unblocked::PromptOpen(PromptInContext {
                                    context: prompt_context,
                                    prompt,
                                });
                            }
                        }
                    }
                    Err(broadcast::error::RecvError::Lagged(_)) => continue,
                    // The connection is gone: the operation fails by itself.
                    Err(broadcast::error::RecvError::Closed) => {
                        return Unblocked::Finished(operation.await)
                    }
                },
            }
        }
    }

    /// The tab (top-level context) that `context` belongs to, as far as the events and the
    /// tree read at the start tell; an unknown context is its own tab.
    pub fn tab_of(&self, context: &str) -> String {
        lock(&self.prompts).tab_of(context)
    }

    /// [`Lifecycle::tab_of`] for a reader on another task (`observations.rs`): it follows the
    /// tree this lifecycle keeps current.
    pub fn tab_resolver(&self) -> crate::observations::TabResolver {
        let prompts = Arc::clone(&self.prompts);
        Arc::new(move |context: &str| lock(&prompts).tab_of(context))
    }

    /// Every prompt open now, by context.
    pub fn open_prompts(&self) -> Vec<(String, OpenPrompt)> {
        lock(&self.prompts)
            .all()
            .map(|(context, prompt)| (context.clone(), prompt.clone()))
            .collect()
    }

    pub fn subscribed_events(&self) -> &[&'static str] {
        &self.subscribed_events
    }

    /// Events this browser refused to subscribe to (it does not implement them).
    pub fn unsupported_events(&self) -> &[&'static str] {
        &self.unsupported_events
    }

    /// A typed stream of the lifecycle events from now on.
    pub fn events(&self, connection: &BidiConnection) -> LifecycleEvents {
        LifecycleEvents {
            receiver: connection.subscribe_events(),
        }
    }
}

impl Drop for Lifecycle {
    fn drop(&mut self) {
        self.tracker.abort();
    }
}

/// The outcome of [`Lifecycle::unless_prompt_opens`].
#[derive(Debug, Clone, PartialEq)]
pub enum Unblocked<T> {
    Finished(T),
    /// A prompt blocks the tab; answer it with [`BidiConnection::handle_user_prompt`].
    PromptOpen(PromptInContext),
}

/// Lifecycle events as they arrive.
pub struct LifecycleEvents {
    receiver: broadcast::Receiver<BidiEvent>,
}

impl LifecycleEvents {
    /// Lifecycle events of `connection` from now on, for a reader that starts listening before
    /// [`Lifecycle::start`] subscribes (so that it misses none of the subscription's events).
    pub fn from_connection(connection: &BidiConnection) -> Self {
        Self {
            receiver: connection.subscribe_events(),
        }
    }

    /// The next lifecycle event; `None` once the connection is gone. Events lost because the
    /// reader fell far behind are skipped.
    pub async fn next(&mut self) -> Option<LifecycleEvent> {
        loop {
            match self.receiver.recv().await {
                Ok(event) => {
                    if let Some(event) = lifecycle_event_from_bidi(&event) {
                        return Some(event);
                    }
                }
                Err(broadcast::error::RecvError::Lagged(_)) => continue,
                Err(broadcast::error::RecvError::Closed) => return None,
            }
        }
    }
}

impl BidiConnection {
    /// Accepts or dismisses the prompt open in `context` (WebDriver BiDi,
    /// browsingContext.handleUserPrompt). `user_text` fills a `prompt()` before accepting.
    pub async fn handle_user_prompt(
        &self,
        context: &str,
        accept: bool,
        user_text: Option<&str>,
    ) -> Result<(), BidiError> {
        self.command(
            "browsingContext.handleUserPrompt",
            handle_user_prompt_params(context, accept, user_text),
        )
        .await
        .map(|_| ())
    }
}

fn lock(registry: &Mutex<PromptRegistry>) -> std::sync::MutexGuard<'_, PromptRegistry> {
    registry
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(method: &str, params: Value) -> BidiEvent {
        BidiEvent {
            method: method.to_owned(),
            params,
        }
    }

    #[test]
    fn navigation_and_context_events_are_typed() {
        assert_eq!(
            lifecycle_event_from_bidi(&event(
                "browsingContext.navigationStarted",
                json!({"context": "c", "navigation": "n1", "url": "http://a/", "timestamp": 1})
            )),
            Some(LifecycleEvent::Navigation {
                stage: NavigationStage::Started,
                context: "c".into(),
                navigation: Some("n1".into()),
                url: "http://a/".into()
            })
        );
        assert_eq!(
            lifecycle_event_from_bidi(&event(
                "browsingContext.load",
                json!({"context": "c", "navigation": null, "url": "http://a/"})
            ))
            .map(|event| matches!(
                event,
                LifecycleEvent::Navigation {
                    stage: NavigationStage::Load,
                    navigation: None,
                    ..
                }
            )),
            Some(true)
        );
        assert_eq!(
            lifecycle_event_from_bidi(&event(
                "browsingContext.contextCreated",
                json!({"context": "f", "parent": "c", "url": "about:blank", "children": null})
            )),
            Some(LifecycleEvent::ContextCreated {
                context: "f".into(),
                parent: Some("c".into()),
                url: "about:blank".into()
            })
        );
        assert_eq!(
            lifecycle_event_from_bidi(&event(
                "browsingContext.navigationFailed",
                json!({"context": "c", "navigation": "n2", "url": "http://a/x.zip"})
            ))
            .map(|event| matches!(
                event,
                LifecycleEvent::Navigation {
                    stage: NavigationStage::Failed,
                    ..
                }
            )),
            Some(true)
        );
        assert_eq!(
            lifecycle_event_from_bidi(&event("log.entryAdded", json!({"context": "c"}))),
            None
        );
        assert_eq!(
            lifecycle_event_from_bidi(&event("browsingContext.load", json!({}))),
            None
        );
    }

    #[test]
    fn prompts_open_and_close_in_the_registry() {
        let opened = lifecycle_event_from_bidi(&event(
            "browsingContext.userPromptOpened",
            json!({"context": "c", "type": "prompt", "message": "Name?", "defaultValue": "Ann", "handler": "ignore"}),
        ))
        .expect("typed");
        let mut registry = PromptRegistry::default();
        registry.apply(&opened);
        assert_eq!(
            registry.open_prompt("c"),
            Some(&OpenPrompt {
                prompt_type: PromptType::Prompt,
                message: "Name?".into(),
                default_value: Some("Ann".into()),
                handler: Some("ignore".into())
            })
        );
        assert_eq!(registry.open_prompt("other"), None);
        let closed = lifecycle_event_from_bidi(&event(
            "browsingContext.userPromptClosed",
            json!({"context": "c", "type": "prompt", "accepted": true, "userText": "Bo"}),
        ))
        .expect("typed");
        assert_eq!(
            closed,
            LifecycleEvent::UserPromptClosed {
                context: "c".into(),
                prompt_type: PromptType::Prompt,
                accepted: true,
                user_text: Some("Bo".into())
            }
        );
        registry.apply(&closed);
        assert_eq!(registry.open_prompt("c"), None);
        registry.apply(&opened);
        registry.apply(&LifecycleEvent::ContextDestroyed {
            context: "c".into(),
        });
        assert_eq!(registry.all().count(), 0);
    }

    #[test]
    fn a_prompt_in_a_frame_blocks_its_tab_and_a_close_in_the_tab_clears_it() {
        let mut registry = PromptRegistry::default();
        registry.learn_tree(&json!({"contexts": [
            {"context": "tab", "parent": null, "children": [
                {"context": "frame", "children": [{"context": "inner", "children": []}]}
            ]},
            {"context": "other-tab", "parent": null, "children": []}
        ]}));
        assert_eq!(registry.tab_of("inner"), "tab");
        registry.apply(&LifecycleEvent::ContextCreated {
            context: "late-frame".into(),
            parent: Some("frame".into()),
            url: "about:blank".into(),
        });
        assert_eq!(registry.tab_of("late-frame"), "tab");
        let prompt = OpenPrompt {
            prompt_type: PromptType::Alert,
            message: "From the frame".into(),
            default_value: None,
            handler: None,
        };
        registry.apply(&LifecycleEvent::UserPromptOpened {
            context: "inner".into(),
            prompt: prompt.clone(),
        });
        assert_eq!(
            registry.open_prompt_in_tab("tab"),
            Some(PromptInContext {
                context: "inner".into(),
                prompt
            })
        );
        assert!(registry.open_prompt_in_tab("late-frame").is_some());
        assert_eq!(registry.open_prompt_in_tab("other-tab"), None);
        registry.apply(&LifecycleEvent::UserPromptClosed {
            context: "tab".into(),
            prompt_type: PromptType::Alert,
            accepted: true,
            user_text: None,
        });
        assert_eq!(registry.open_prompt_in_tab("tab"), None);
    }

    #[test]
    fn unknown_prompt_types_are_skipped() {
        assert_eq!(
            lifecycle_event_from_bidi(&event(
                "browsingContext.userPromptOpened",
                json!({"context": "c", "type": "print", "message": ""})
            )),
            None
        );
    }

    #[test]
    fn prompt_answers_carry_text_only_when_given() {
        assert_eq!(
            handle_user_prompt_params("c", true, Some("hi")),
            json!({"context": "c", "accept": true, "userText": "hi"})
        );
        assert_eq!(
            handle_user_prompt_params("c", false, None),
            json!({"context": "c", "accept": false})
        );
        assert_eq!(
            subscribe_params("browsingContext.load"),
            json!({"events": ["browsingContext.load"]})
        );
        assert_eq!(
            keep_prompts_open_capability(),
            json!({"default": "ignore", "beforeUnload": "ignore", "file": "dismiss"})
        );
    }
}
