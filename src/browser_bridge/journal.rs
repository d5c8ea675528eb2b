//! The lifecycle journal: the BiDi lifecycle events of each tab since the agent's previous call
//! in that tab (docs/protocol/browser-bridge.md, "The browser bridge", `lifecycle`), and whether a navigation
//! of the tab has started but not loaded yet (what `wait_for_stable` waits for).

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::{Arc, Mutex};

use allwright_surface_web::lifecycle::{LifecycleEvents, NavigationStage, PromptRegistry};
use allwright_surface_web::LifecycleEvent;
use serde_json::{json, Value};
use tokio::task::JoinHandle;

/// The most events one tool result carries; older ones are counted in `lifecycleDropped`.
pub const MAX_EVENTS_PER_RESULT: usize = 20;

/// The events of one tab since the last call that took them, and how many did not fit.
#[derive(Debug, Default)]
struct TabEvents {
    events: VecDeque<Value>,
    dropped: usize,
}

#[derive(Debug, Default)]
struct JournalState {
    by_tab: HashMap<String, TabEvents>,
    /// The tree of contexts, learnt from `getTree` and from the events (the registry's own
    /// record of prompts is not used here).
    contexts: PromptRegistry,
    /// The tab's navigation that started and has not loaded, failed or been aborted: its URL.
    pending_navigation: HashMap<String, String>,
    /// Top-level contexts that are gone (their tabs closed).
    destroyed_tabs: HashSet<String>,
}

impl JournalState {
    fn record(&mut self, event: &LifecycleEvent) {
        // A created context is learnt before its tab is looked up; a destroyed one after.
        if matches!(event, LifecycleEvent::ContextCreated { .. }) {
            self.contexts.apply(event);
        }
        let tab = self.contexts.tab_of(event.context());
        if matches!(event, LifecycleEvent::ContextDestroyed { .. }) {
            self.contexts.apply(event);
        }
        let is_tab_itself = tab == event.context();
        match event {
            LifecycleEvent::Navigation {
                stage: NavigationStage::Started,
                url,
                ..
            } if is_tab_itself => {
                self.pending_navigation.insert(tab.clone(), url.clone());
            }
            LifecycleEvent::Navigation {
                stage: NavigationStage::Load | NavigationStage::Failed | NavigationStage::Aborted,
                ..
            } if is_tab_itself => {
                self.pending_navigation.remove(&tab);
            }
            LifecycleEvent::ContextDestroyed { .. } if is_tab_itself => {
                self.pending_navigation.remove(&tab);
                self.destroyed_tabs.insert(tab.clone());
            }
            _ => {}
        }
        let entry = self.by_tab.entry(tab.clone()).or_default();
        entry.events.push_back(event_json(&tab, event));
        if entry.events.len() > MAX_EVENTS_PER_RESULT {
            entry.events.pop_front();
            entry.dropped += 1;
        }
    }
}

/// One event as the agent reads it: `{type, tabContext, context, url?, ...}`.
pub fn event_json(tab: &str, event: &LifecycleEvent) -> Value {
    match event {
        LifecycleEvent::ContextCreated {
            context,
            parent,
            url,
        } => {
            let mut value = json!({"type": "contextCreated", "tabContext": tab, "context": context, "url": url});
            if let Some(parent) = parent {
                value["parent"] = json!(parent);
            }
            value
        }
        LifecycleEvent::ContextDestroyed { context } => {
            json!({"type": "contextDestroyed", "tabContext": tab, "context": context})
        }
        LifecycleEvent::Navigation {
            stage,
            context,
            navigation,
            url,
        } => {
            let kind = match stage {
                NavigationStage::Started => "navigationStarted",
                NavigationStage::Committed => "navigationCommitted",
                NavigationStage::FragmentNavigated => "fragmentNavigated",
                NavigationStage::DomContentLoaded => "domContentLoaded",
                NavigationStage::Load => "load",
                NavigationStage::Failed => "navigationFailed",
                NavigationStage::Aborted => "navigationAborted",
            };
            let mut value =
                json!({"type": kind, "tabContext": tab, "context": context, "url": url});
            if let Some(navigation) = navigation {
                value["navigation"] = json!(navigation);
            }
            value
        }
        LifecycleEvent::UserPromptOpened { context, prompt } => {
            let mut value = json!({
                "type": "promptOpened",
                "tabContext": tab,
                "context": context,
                "promptType": prompt.prompt_type.name(),
                "message": prompt.message,
            });
            if let Some(default_value) = &prompt.default_value {
                value["defaultValue"] = json!(default_value);
            }
            value
        }
        LifecycleEvent::UserPromptClosed {
            context,
            prompt_type,
            accepted,
            user_text,
        } => {
            let mut value = json!({
                "type": "promptClosed",
                "tabContext": tab,
                "context": context,
                "promptType": prompt_type.name(),
                "accepted": accepted,
            });
            if let Some(text) = user_text {
                value["userText"] = json!(text);
            }
            value
        }
        LifecycleEvent::FileDialogOpened {
            context, multiple, ..
        } => json!({
            "type": "fileDialogOpened",
            "tabContext": tab,
            "context": context,
            "multiple": multiple,
        }),
    }
}

/// Records the lifecycle events of a BiDi session, by tab, from a task of its own. Dropping the
/// journal stops the task.
pub struct LifecycleJournal {
    state: Arc<Mutex<JournalState>>,
    recorder: JoinHandle<()>,
}

impl LifecycleJournal {
    /// Starts recording from `events`; `tree` (a `browsingContext.getTree` result) names the
    /// frames that existed before.
    pub fn start(mut events: LifecycleEvents, tree: &Value) -> Self {
        let mut initial = JournalState::default();
        initial.contexts.learn_tree(tree);
        let state = Arc::new(Mutex::new(initial));
        let recorded = Arc::clone(&state);
        let recorder = tokio::spawn(async move {
            while let Some(event) = events.next().await {
                lock(&recorded).record(&event);
            }
        });
        Self { state, recorder }
    }

    /// The events of `tab` since the previous call of this, oldest first (at most
    /// [`MAX_EVENTS_PER_RESULT`]), and how many older ones were dropped.
    pub fn take(&self, tab: &str) -> (Vec<Value>, usize) {
        let mut state = lock(&self.state);
        match state.by_tab.remove(tab) {
            Some(TabEvents { events, dropped }) => (events.into(), dropped),
            None => (Vec::new(), 0),
        }
    }

    /// The URL of the navigation of `tab` that started and has not ended yet.
    pub fn pending_navigation(&self, tab: &str) -> Option<String> {
        lock(&self.state).pending_navigation.get(tab).cloned()
    }

    /// Whether the tab's context is known to be gone.
    pub fn is_destroyed(&self, tab: &str) -> bool {
        lock(&self.state).destroyed_tabs.contains(tab)
    }
}

impl Drop for LifecycleJournal {
    fn drop(&mut self) {
        self.recorder.abort();
    }
}

fn lock(state: &Mutex<JournalState>) -> std::sync::MutexGuard<'_, JournalState> {
    state
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn navigation(stage: NavigationStage, context: &str) -> LifecycleEvent {
        LifecycleEvent::Navigation {
            stage,
            context: context.into(),
            navigation: Some("n".into()),
            url: "http://a/".into(),
        }
    }

    #[test]
    fn events_are_kept_by_tab_bounded_and_taken_once() {
        let mut state = JournalState::default();
        state.contexts.learn_tree(
            &json!({"contexts": [{"context": "tab", "children": [{"context": "frame", "children": []}]}]}),
        );
        state.record(&navigation(NavigationStage::Started, "frame"));
        assert_eq!(
            state.pending_navigation.get("tab"),
            None,
            "a frame's navigation is not the tab's"
        );
        state.record(&navigation(NavigationStage::Started, "tab"));
        assert_eq!(
            state.pending_navigation.get("tab").map(String::as_str),
            Some("http://a/")
        );
        for _ in 0..MAX_EVENTS_PER_RESULT {
            state.record(&navigation(NavigationStage::DomContentLoaded, "tab"));
        }
        state.record(&navigation(NavigationStage::Load, "tab"));
        assert_eq!(state.pending_navigation.get("tab"), None);
        let tab = state.by_tab.get("tab").expect("events of the tab");
        assert_eq!(tab.events.len(), MAX_EVENTS_PER_RESULT);
        assert_eq!(tab.dropped, 3);
        assert_eq!(tab.events.back().expect("last")["type"], "load");
        assert_eq!(tab.events.back().expect("last")["tabContext"], "tab");
    }

    #[test]
    fn a_failed_navigation_is_no_longer_pending() {
        let mut state = JournalState::default();
        state.record(&navigation(NavigationStage::Started, "tab"));
        state.record(&navigation(NavigationStage::Failed, "tab"));
        assert_eq!(state.pending_navigation.get("tab"), None);
        state.record(&navigation(NavigationStage::Started, "tab"));
        state.record(&LifecycleEvent::ContextDestroyed {
            context: "tab".into(),
        });
        assert_eq!(state.pending_navigation.get("tab"), None);
        assert!(state.destroyed_tabs.contains("tab"));
    }
}
