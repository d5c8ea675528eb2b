//! navigate, the history moves, reload and the tab tools in BiDi-only mode: the top-level
//! browsing contexts as tabs (`browsingContext.getTree`, `create`, `activate`, `close`), and
//! their loads (`browsingContext.navigate`, `traverseHistory`, `reload`).

use std::time::{Duration, Instant};

use allwright_surface_web::snapshot::SANDBOX;
use allwright_surface_web::BidiErrorKind;
use serde_json::{json, Value};

use super::{
    bidi_failure, document_state, navigation_failure, navigation_timeout, BidiOnlyTools, LOAD_POLL,
};
use crate::tool_error::ToolError;

impl BidiOnlyTools {
    /// navigate: `browsingContext.navigate` waiting for the load (`wait: "complete"`).
    pub(super) async fn navigate(&self, arguments: &Value) -> Result<Value, ToolError> {
        let context = self.context_for(arguments).await?;
        let url = arguments["url"].as_str().unwrap_or_default();
        let timeout = navigation_timeout(arguments);
        self.bidi()
            .command_with_timeout(
                "browsingContext.navigate",
                json!({ "context": context, "url": url, "wait": "complete" }),
                timeout,
            )
            .await
            .map_err(|error| navigation_failure("navigate", url, &error))?;
        let (url, title) = self.url_and_title(&context).await?;
        Ok(json!({ "url": url, "title": title }))
    }

    /// go_back and go_forward: `browsingContext.traverseHistory` by one entry, over every entry
    /// of the tab's session history (a page's pushState entries included, as the extension's
    /// `history.go` moves), then the document's load awaited.
    pub(super) async fn move_through_history(
        &self,
        arguments: &Value,
        delta: i64,
    ) -> Result<Value, ToolError> {
        let context = self.context_for(arguments).await?;
        let timeout = navigation_timeout(arguments);
        let started = Instant::now();
        let (before, _) = self.url_and_title(&context).await?;
        let moved = self
            .bidi()
            .command_with_timeout(
                "browsingContext.traverseHistory",
                json!({ "context": context, "delta": delta }),
                timeout,
            )
            .await;
        match moved {
            Ok(_) => {}
            // WebDriver BiDi, "browsingContext.traverseHistory": no entry that way.
            Err(error) if error.code == "no such history entry" => {
                let which = if delta < 0 {
                    "no earlier page in its history"
                } else {
                    "no later page in its history"
                };
                return Err(ToolError::new("no_history", format!("the tab has {which}"))
                    .with_hint("Use navigate to open a URL instead."));
            }
            Err(error) => return Err(navigation_failure("the history move", "", &error)),
        }
        self.wait_for_load(&context, started + timeout).await?;
        let (url, title) = self.url_and_title(&context).await?;
        let changed = url != before;
        Ok(json!({ "url": url, "title": title, "changed": changed }))
    }

    /// reload: `browsingContext.reload` waiting for the load.
    pub(super) async fn reload(&self, arguments: &Value) -> Result<Value, ToolError> {
        let context = self.context_for(arguments).await?;
        let timeout = navigation_timeout(arguments);
        let (before, _) = self.url_and_title(&context).await?;
        let ignore_cache = arguments
            .get("ignoreCache")
            .and_then(Value::as_bool)
            .unwrap_or(false);
        let mut params = json!({ "context": context, "wait": "complete" });
        if ignore_cache {
            params["ignoreCache"] = json!(true);
        }
        let reloaded = self
            .bidi()
            .command_with_timeout("browsingContext.reload", params, timeout)
            .await;
        match reloaded {
            Ok(_) => {}
            // Firefox 14x refuses reload's `ignoreCache` ("not supported yet"): the tab's
            // cache is bypassed for the reload instead (WebDriver BiDi, "network.setCacheBehavior").
            Err(error)
                if ignore_cache
                    && matches!(
                        error.kind,
                        BidiErrorKind::Unsupported | BidiErrorKind::InvalidArgument
                    ) =>
            {
                self.reload_bypassing_the_cache(&context, timeout).await?;
            }
            Err(error) => return Err(navigation_failure("reload", "", &error)),
        }
        let (url, title) = self.url_and_title(&context).await?;
        let changed = url != before;
        Ok(json!({ "url": url, "title": title, "changed": changed }))
    }

    /// A reload with the tab's cache bypassed, then its cache behaviour set back to the
    /// browser's own, whatever the reload did.
    pub(super) async fn reload_bypassing_the_cache(
        &self,
        context: &str,
        timeout: Duration,
    ) -> Result<(), ToolError> {
        let cache = |behavior: &str| json!({ "cacheBehavior": behavior, "contexts": [context] });
        self.bidi()
            .command("network.setCacheBehavior", cache("bypass"))
            .await
            .map_err(|error| bidi_failure("bypassing the tab's cache", &error))?;
        let reloaded = self
            .bidi()
            .command_with_timeout(
                "browsingContext.reload",
                json!({ "context": context, "wait": "complete" }),
                timeout,
            )
            .await;
        if let Err(error) = self
            .bidi()
            .command("network.setCacheBehavior", cache("default"))
            .await
        {
            crate::log!("could not give the tab its cache back: {error}");
        }
        reloaded
            .map(|_| ())
            .map_err(|error| navigation_failure("reload", "", &error))
    }

    /// Waits until the context's document says `complete`, or the deadline.
    pub(super) async fn wait_for_load(
        &self,
        context: &str,
        deadline: Instant,
    ) -> Result<(), ToolError> {
        loop {
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
                .await;
            // A realm destroyed by the navigation under way answers an error: look again.
            if let Ok(answer) = answer {
                if let Ok((_, _, state)) = document_state(&answer) {
                    if state == "complete" {
                        return Ok(());
                    }
                }
            }
            if Instant::now() >= deadline {
                return Err(ToolError::timeout(
                    "the page did not finish loading within timeoutMs",
                ));
            }
            tokio::time::sleep(LOAD_POLL).await;
        }
    }

    pub(super) async fn list_tabs(&self) -> Result<Value, ToolError> {
        let contexts = self.top_contexts().await?;
        let active = {
            let mut tabs = self.tabs.lock().await;
            let open = |wanted: &String| contexts.iter().any(|context| &context.context == wanted);
            if !tabs.active.as_ref().is_some_and(open) {
                tabs.active = contexts.first().map(|context| context.context.clone());
            }
            tabs.active.clone()
        };
        let mut listed = Vec::new();
        for context in &contexts {
            // A tab whose document cannot be scripted (a browser page, or one a prompt holds:
            // Chromium holds script calls there) keeps its URL, without its title.
            let title = if self.lifecycle.open_prompt(&context.context).is_some() {
                String::new()
            } else {
                match self.url_and_title(&context.context).await {
                    Ok((_, title)) => title,
                    Err(_) => String::new(),
                }
            };
            let mut tabs = self.tabs.lock().await;
            listed.push(json!({
                "tabId": tabs.tab_id(&context.context),
                "windowId": tabs.window_id(&context.window),
                "url": context.url,
                "title": title,
                "active": active.as_deref() == Some(context.context.as_str()),
            }));
        }
        Ok(json!({ "tabs": listed }))
    }

    /// new_tab: `browsingContext.create` (a tab, in front), then navigate's load for a URL.
    pub(super) async fn new_tab(&self, arguments: &Value) -> Result<Value, ToolError> {
        let created = self
            .bidi()
            .command(
                "browsingContext.create",
                json!({ "type": "tab", "background": false }),
            )
            .await
            .map_err(|error| bidi_failure("opening a tab", &error))?;
        let context = created["context"]
            .as_str()
            .ok_or_else(|| ToolError::script_failed("browsingContext.create named no context"))?
            .to_owned();
        let tab_id = {
            let mut tabs = self.tabs.lock().await;
            tabs.active = Some(context.clone());
            tabs.tab_id(&context)
        };
        self.activate(&context).await;
        let url = arguments
            .get("url")
            .and_then(Value::as_str)
            .unwrap_or("about:blank");
        if url == "about:blank" {
            return Ok(json!({ "tabId": tab_id, "url": "about:blank", "title": "" }));
        }
        let loaded = self
            .navigate(
                &json!({ "tabId": tab_id, "url": url, "timeoutMs": arguments.get("timeoutMs") }),
            )
            .await?;
        Ok(json!({ "tabId": tab_id, "url": loaded["url"], "title": loaded["title"] }))
    }

    /// Brings a tab to the front (`browsingContext.activate`); a browser that cannot (headless
    /// ones may refuse) still has the agent's choice as its active tab here.
    pub(super) async fn activate(&self, context: &str) {
        if let Err(error) = self
            .bidi()
            .command("browsingContext.activate", json!({ "context": context }))
            .await
        {
            crate::log!("could not bring the tab to the front: {error}");
        }
    }

    pub(super) async fn select_tab(&self, arguments: &Value) -> Result<Value, ToolError> {
        let context = self.context_for(arguments).await?;
        self.activate(&context).await;
        let tab_id = {
            let mut tabs = self.tabs.lock().await;
            tabs.active = Some(context.clone());
            tabs.tab_id(&context)
        };
        // A tab a prompt holds answers no script in Chromium: its URL from the tree then.
        let (url, title) = if self.lifecycle.open_prompt(&context).is_some() {
            let url = self
                .top_contexts()
                .await?
                .into_iter()
                .find(|candidate| candidate.context == context)
                .map(|candidate| candidate.url)
                .unwrap_or_default();
            (url, String::new())
        } else {
            self.url_and_title(&context).await?
        };
        Ok(json!({ "tabId": tab_id, "url": url, "title": title }))
    }

    /// close_tab: `browsingContext.close`; never the last tab, which would close the browser
    /// (as the extension refuses it: extension/background/tabs/tabs.js).
    pub(super) async fn close_tab(&self, arguments: &Value) -> Result<Value, ToolError> {
        let context = self.context_for(arguments).await?;
        let contexts = self.top_contexts().await?;
        if contexts.len() <= 1 {
            return Err(ToolError::invalid_arguments(
                "this is the browser's last tab; closing it would close the browser",
            )
            .with_hint("Open another tab with new_tab first, or navigate this one elsewhere."));
        }
        self.bidi()
            .command("browsingContext.close", json!({ "context": context }))
            .await
            .map_err(|error| bidi_failure("closing the tab", &error))?;
        let next = contexts
            .iter()
            .rev()
            .find(|candidate| candidate.context != context)
            .map(|candidate| candidate.context.clone());
        let (closed, active_tab_id) = {
            let mut tabs = self.tabs.lock().await;
            let closed = tabs.tab_id(&context);
            if tabs.active.as_deref() == Some(context.as_str()) || tabs.active.is_none() {
                tabs.active = next;
            }
            tabs.ref_floors.remove(&context);
            tabs.last_reads.remove(&context);
            let active = tabs.active.clone();
            (closed, active.map(|active| tabs.tab_id(&active)))
        };
        if let Some(active) = self.tabs.lock().await.active.clone() {
            self.activate(&active).await;
        }
        Ok(json!({ "closed": closed, "activeTabId": active_tab_id }))
    }
}
