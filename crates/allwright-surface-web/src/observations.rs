//! What the page said and fetched, from BiDi events: console messages and uncaught exceptions
//! (`log.entryAdded`) and network requests (`network.beforeRequestSent`,
//! `network.responseStarted`, `network.responseCompleted`, `network.fetchError`), kept per tab in bounded rings from the
//! moment the session subscribed. A tab is its top-level browsing context: a frame's entries
//! are kept with its tab's, and say which frame they came from.
//!
//! The entries keep what the events say, headers included and unmasked: what an agent may see of
//! them (masking, filters, limits) is decided by their reader, the MCP server's bridge. Each
//! entry has a sequence number, unique in the session and growing, so that a reader asks for
//! what came after the last entry it saw.
//!
//! Event shapes: WebDriver BiDi, "log.Entry" (GenericLogEntry, ConsoleLogEntry,
//! JavascriptLogEntry) and "network.BeforeRequestSentParameters",
//! "network.ResponseCompletedParameters", "network.FetchErrorParameters".

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};

use serde_json::Value;
use tokio::sync::broadcast;
use tokio::task::JoinHandle;

use crate::bidi::{BidiConnection, BidiError};
use crate::lifecycle::subscribe_each;

/// The events this module reads, each subscribed on its own (a browser that does not know one
/// fails the whole `session.subscribe`, as `lifecycle.rs` explains).
pub const OBSERVATION_EVENT_NAMES: &[&str] = &[
    "log.entryAdded",
    "network.beforeRequestSent",
    "network.responseStarted",
    "network.responseCompleted",
    "network.fetchError",
];

/// How many console entries a tab keeps; older ones are dropped first.
pub const CONSOLE_ENTRIES_KEPT_PER_TAB: usize = 1_000;
/// How many requests a tab keeps; older ones are dropped first.
pub const REQUESTS_KEPT_PER_TAB: usize = 1_000;
/// A console text or an exception's message is kept to this many characters.
const TEXT_CHARS_KEPT: usize = 4_000;
/// A stack keeps at most this many frames.
const STACK_FRAMES_KEPT: usize = 20;
/// A header value is kept to this many characters.
const HEADER_VALUE_CHARS_KEPT: usize = 2_000;
/// A request keeps at most this many headers in each direction.
const HEADERS_KEPT: usize = 100;
/// At most this many contexts keep rings (see [`Observations::bound_holders`]).
const HOLDERS_KEPT: usize = 256;

/// One console message or uncaught exception.
#[derive(Debug, Clone, PartialEq)]
pub struct ConsoleEntry {
    pub sequence: u64,
    /// The browsing context that logged it: the tab or one of its frames.
    pub context: String,
    /// `debug`, `info`, `warning` or `error` (BiDi's `warn` is written `warning`, as the
    /// console_messages tool names levels).
    pub level: &'static str,
    /// `console` (a console method), `exception` (an uncaught error or rejection) or `other`.
    pub kind: &'static str,
    /// The console method (`log`, `warn`, `table`, ...), for console entries.
    pub method: Option<String>,
    pub text: String,
    /// Where it was logged or thrown: the first frame of its stack.
    pub source: Option<SourcePosition>,
    /// The stack of an exception (or of a console call that carried one), innermost first.
    pub stack: Vec<SourcePosition>,
    /// Milliseconds since the epoch.
    pub timestamp: f64,
}

/// A place in a script.
#[derive(Debug, Clone, PartialEq)]
pub struct SourcePosition {
    pub function: String,
    pub url: String,
    /// 1-based, as people and DevTools count lines (BiDi counts from 0).
    pub line: u64,
    pub column: u64,
}

/// One request, filled in as its events arrive.
#[derive(Debug, Clone, PartialEq)]
pub struct NetworkRequest {
    pub sequence: u64,
    pub context: String,
    /// BiDi's request id and redirect count: a redirect is a request of its own.
    pub request_id: String,
    pub redirect_count: u64,
    pub method: String,
    pub url: String,
    /// The fetch destination or initiator type the browser named (`document`, `script`,
    /// `image`, `fetch`, `xmlhttprequest`, ...), when it named one.
    pub resource_type: Option<String>,
    /// The script that started it, as `url:line`, where the browser knows it.
    pub initiator: Option<String>,
    pub started_at: f64,
    pub response: Option<NetworkResponse>,
    /// Why it failed (`net::ERR_FAILED`, `NS_ERROR_...`), when it did.
    pub failure: Option<String>,
    /// The browser held it for an interception.
    pub blocked: bool,
    pub request_headers: Vec<(String, String)>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct NetworkResponse {
    pub status: u16,
    pub status_text: String,
    pub mime_type: Option<String>,
    pub from_cache: bool,
    /// Bytes over the wire, headers included, when the browser counted them.
    pub transferred_bytes: Option<u64>,
    /// The body's size after decoding, when known.
    pub body_bytes: Option<u64>,
    pub finished_at: f64,
    /// From the start of the request to the end of its response, by the browser's own fetch
    /// timings (network.FetchTimingInfo), when it gave them.
    pub fetch_duration_ms: Option<f64>,
    pub headers: Vec<(String, String)>,
}

impl NetworkRequest {
    /// How long it took, from its start to its response's end or its failure.
    pub fn duration_ms(&self) -> Option<f64> {
        let response = self.response.as_ref()?;
        Some(
            response
                .fetch_duration_ms
                .unwrap_or(response.finished_at - self.started_at)
                .max(0.0),
        )
    }
}

/// The entries of every tab, and the tree of contexts that says which tab a frame belongs to.
#[derive(Debug, Default)]
pub struct Observations {
    next_sequence: u64,
    console: HashMap<String, VecDeque<ConsoleEntry>>,
    requests: HashMap<String, VecDeque<NetworkRequest>>,
    /// Console entries and requests dropped from a full ring, per tab: a reader says that older
    /// ones are gone.
    dropped_console: HashMap<String, u64>,
    dropped_requests: HashMap<String, u64>,
}

impl Observations {
    /// Applies one event. `tab_of` names the tab (top-level context) of a context. Events this
    /// module does not read, or that lack what it needs, change nothing.
    pub fn apply(&mut self, method: &str, params: &Value, tab_of: impl Fn(&str) -> String) {
        match method {
            "log.entryAdded" => {
                if let Some(entry) = console_entry(params, self.next_sequence + 1) {
                    self.next_sequence += 1;
                    let tab = tab_of(&entry.context);
                    let ring = self.console.entry(tab.clone()).or_default();
                    ring.push_back(entry);
                    if ring.len() > CONSOLE_ENTRIES_KEPT_PER_TAB {
                        ring.pop_front();
                        *self.dropped_console.entry(tab).or_default() += 1;
                    }
                    self.bound_holders();
                }
            }
            "network.beforeRequestSent" => {
                if let Some(request) = request_started(params, self.next_sequence + 1) {
                    self.next_sequence += 1;
                    let tab = tab_of(&request.context);
                    let ring = self.requests.entry(tab.clone()).or_default();
                    ring.push_back(request);
                    if ring.len() > REQUESTS_KEPT_PER_TAB {
                        ring.pop_front();
                        *self.dropped_requests.entry(tab).or_default() += 1;
                    }
                    self.bound_holders();
                }
            }
            // A response is recorded when it starts (status and headers), and again when it
            // completes (sizes, the end): Chromium does not complete a fetch whose body the page
            // never reads until much later, if at all.
            "network.responseStarted" | "network.responseCompleted" | "network.fetchError" => {
                let Some(context) = params["context"].as_str() else {
                    return;
                };
                let Some((request_id, redirect_count)) = request_key(params) else {
                    return;
                };
                let tab = tab_of(context);
                // The request is kept under its tab, or under its own context when the tab tree
                // did not know it yet.
                let is_it = |request: &NetworkRequest| {
                    request.request_id == request_id && request.redirect_count == redirect_count
                };
                let Some(holder) = [tab.as_str(), context]
                    .into_iter()
                    .find(|holder| {
                        self.requests
                            .get(*holder)
                            .is_some_and(|ring| ring.iter().any(is_it))
                    })
                    .map(str::to_owned)
                else {
                    return;
                };
                let Some(request) = self
                    .requests
                    .get_mut(&holder)
                    .and_then(|ring| ring.iter_mut().rev().find(|request| is_it(request)))
                else {
                    return;
                };
                if method == "network.fetchError" {
                    request.failure = Some(
                        params["errorText"]
                            .as_str()
                            .unwrap_or("the request failed")
                            .to_owned(),
                    );
                } else if let Some(response) = response_of(params) {
                    request.response = Some(response);
                }
                request.blocked = request.blocked || params["isBlocked"].as_bool() == Some(true);
            }
            _ => {}
        }
    }

    /// The console entries of a tab, oldest first: those kept under the tab, and those kept
    /// under a context that `tab_of` now says is the tab's (a frame whose creation the tab tree
    /// learnt after its first message).
    pub fn console_of(&self, tab: &str, tab_of: impl Fn(&str) -> String) -> Vec<&ConsoleEntry> {
        let mut entries: Vec<&ConsoleEntry> = self
            .console
            .iter()
            .filter(|(holder, _)| holder.as_str() == tab || tab_of(holder) == tab)
            .flat_map(|(_, ring)| ring.iter())
            .collect();
        entries.sort_by_key(|entry| entry.sequence);
        entries
    }

    /// The requests of a tab, oldest first (found as [`Observations::console_of`] finds entries).
    pub fn requests_of(&self, tab: &str, tab_of: impl Fn(&str) -> String) -> Vec<&NetworkRequest> {
        let mut requests: Vec<&NetworkRequest> = self
            .requests
            .iter()
            .filter(|(holder, _)| holder.as_str() == tab || tab_of(holder) == tab)
            .flat_map(|(_, ring)| ring.iter())
            .collect();
        requests.sort_by_key(|request| request.sequence);
        requests
    }

    /// How many console entries of the tab a full ring dropped.
    pub fn console_dropped(&self, tab: &str) -> u64 {
        self.dropped_console.get(tab).copied().unwrap_or(0)
    }

    /// How many requests of the tab a full ring dropped.
    pub fn requests_dropped(&self, tab: &str) -> u64 {
        self.dropped_requests.get(tab).copied().unwrap_or(0)
    }

    /// The newest sequence number given out (0 before the first entry).
    pub fn last_sequence(&self) -> u64 {
        self.next_sequence
    }

    /// Forgets what a context kept, when it is destroyed: a closed tab's entries go with it.
    pub fn forget(&mut self, context: &str) {
        self.console.remove(context);
        self.requests.remove(context);
        self.dropped_console.remove(context);
        self.dropped_requests.remove(context);
    }

    /// Keeps at most [`HOLDERS_KEPT`] rings of each kind: past it, the ring whose newest entry
    /// is oldest goes (a page that makes and drops frames by the thousand cannot grow memory).
    fn bound_holders(&mut self) {
        while self.console.len() > HOLDERS_KEPT {
            let oldest = self
                .console
                .iter()
                .min_by_key(|(_, ring)| ring.back().map_or(0, |entry| entry.sequence))
                .map(|(holder, _)| holder.clone());
            match oldest {
                Some(holder) => {
                    self.console.remove(&holder);
                }
                None => break,
            }
        }
        while self.requests.len() > HOLDERS_KEPT {
            let oldest = self
                .requests
                .iter()
                .min_by_key(|(_, ring)| ring.back().map_or(0, |request| request.sequence))
                .map(|(holder, _)| holder.clone());
            match oldest {
                Some(holder) => {
                    self.requests.remove(&holder);
                }
                None => break,
            }
        }
    }
}

/// Names the tab (top-level context) of a context, from the tree of contexts the lifecycle
/// tracks (`Lifecycle::tab_resolver`).
pub type TabResolver = Arc<dyn Fn(&str) -> String + Send + Sync>;

/// The session's [`Observations`], kept current by a task of its own from the moment it
/// subscribed. Dropping it stops the task.
pub struct ObservationRecorder {
    observations: Arc<Mutex<Observations>>,
    tab_of: TabResolver,
    unsupported_events: Vec<&'static str>,
    tracker: JoinHandle<()>,
}

impl ObservationRecorder {
    /// Subscribes to [`OBSERVATION_EVENT_NAMES`] and starts recording. An event the browser
    /// does not know is skipped and named in [`ObservationRecorder::unsupported_events`]; any
    /// other failure ends the call.
    pub async fn start(
        connection: &BidiConnection,
        tab_of: TabResolver,
    ) -> Result<Self, BidiError> {
        let observations = Arc::new(Mutex::new(Observations::default()));
        // Listen before subscribing, so no event of the subscription is missed.
        let mut receiver = connection.subscribe_events();
        let recorded = Arc::clone(&observations);
        let resolve = Arc::clone(&tab_of);
        let tracker = tokio::spawn(async move {
            loop {
                match receiver.recv().await {
                    Ok(event) => {
                        let mut observations = lock(&recorded);
                        // A closed tab's entries go with it (the lifecycle's subscription
                        // brings this event to every listener of the connection).
                        if event.method == "browsingContext.contextDestroyed" {
                            if let Some(context) = event.params["context"].as_str() {
                                observations.forget(context);
                            }
                        } else {
                            observations
                                .apply(&event.method, &event.params, |context| resolve(context));
                        }
                    }
                    // A burst of events beyond the connection's buffer loses the oldest: the
                    // entries they carried are missing, the rest stays right.
                    Err(broadcast::error::RecvError::Lagged(_)) => continue,
                    Err(broadcast::error::RecvError::Closed) => break,
                }
            }
        });
        let unsupported_events = match subscribe_each(connection, OBSERVATION_EVENT_NAMES).await {
            Ok(unsupported) => unsupported,
            Err(error) => {
                tracker.abort();
                return Err(error);
            }
        };
        Ok(Self {
            observations,
            tab_of,
            unsupported_events,
            tracker,
        })
    }

    /// Reads the observations with the tab resolver, under the lock.
    pub fn read<R>(&self, reader: impl FnOnce(&Observations, &dyn Fn(&str) -> String) -> R) -> R {
        let tab_of = Arc::clone(&self.tab_of);
        let observations = lock(&self.observations);
        reader(&observations, &|context: &str| tab_of(context))
    }

    /// The events the browser did not accept a subscription to.
    pub fn unsupported_events(&self) -> &[&'static str] {
        &self.unsupported_events
    }
}

impl Drop for ObservationRecorder {
    fn drop(&mut self) {
        self.tracker.abort();
    }
}

fn lock(observations: &Mutex<Observations>) -> std::sync::MutexGuard<'_, Observations> {
    observations
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// A string cut to `limit` characters, with an ellipsis when it was longer.
fn kept(text: &str, limit: usize) -> String {
    match text.char_indices().nth(limit) {
        Some((end, _)) => format!("{}…", &text[..end]),
        None => text.to_owned(),
    }
}

fn position_of(frame: &Value) -> Option<SourcePosition> {
    Some(SourcePosition {
        function: frame["functionName"].as_str().unwrap_or("").to_owned(),
        url: kept(frame["url"].as_str()?, 500),
        line: frame["lineNumber"].as_u64().unwrap_or(0) + 1,
        column: frame["columnNumber"].as_u64().unwrap_or(0) + 1,
    })
}

fn console_entry(params: &Value, sequence: u64) -> Option<ConsoleEntry> {
    let context = params["source"]["context"].as_str()?.to_owned();
    let level = match params["level"].as_str() {
        Some("debug") => "debug",
        Some("warn") => "warning",
        Some("error") => "error",
        _ => "info",
    };
    let kind = match params["type"].as_str() {
        Some("console") => "console",
        Some("javascript") => "exception",
        _ => "other",
    };
    let text = match params["text"].as_str() {
        Some(text) => text.to_owned(),
        // A console call whose arguments the browser did not turn into text: their primitive
        // values, one space apart, as a console prints them.
        None => params["args"]
            .as_array()
            .map(|arguments| {
                arguments
                    .iter()
                    .map(|argument| match &argument["value"] {
                        Value::String(text) => text.clone(),
                        Value::Null => argument["type"].as_str().unwrap_or("").to_owned(),
                        other => other.to_string(),
                    })
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .unwrap_or_default(),
    };
    let stack: Vec<SourcePosition> = params["stackTrace"]["callFrames"]
        .as_array()
        .map(|frames| {
            frames
                .iter()
                .filter_map(position_of)
                .take(STACK_FRAMES_KEPT)
                .collect()
        })
        .unwrap_or_default();
    Some(ConsoleEntry {
        sequence,
        context,
        level,
        kind,
        method: params["method"].as_str().map(str::to_owned),
        text: kept(&text, TEXT_CHARS_KEPT),
        // The first frame of the page's own scripts: a console wrapped by a script without an
        // address (allwright's console hook in a person's browser, injected into the agent's
        // tabs whatever drives them) is not where the page logged.
        source: stack
            .iter()
            .find(|place| {
                ["http:", "https:", "file:"]
                    .iter()
                    .any(|scheme| place.url.starts_with(scheme))
            })
            .or(stack.first())
            .cloned(),
        // A console call's stack is only where it was made: the source says that.
        stack: if kind == "exception" {
            stack
        } else {
            Vec::new()
        },
        timestamp: params["timestamp"].as_f64().unwrap_or(0.0),
    })
}

/// A request's BiDi id and redirect count.
fn request_key(params: &Value) -> Option<(String, u64)> {
    Some((
        params["request"]["request"].as_str()?.to_owned(),
        params["redirectCount"].as_u64().unwrap_or(0),
    ))
}

/// `[{name, value: {type: "string", value}}]` (network.Header; a `base64` value is binary and
/// kept as a note of its length).
fn headers_of(headers: &Value) -> Vec<(String, String)> {
    headers
        .as_array()
        .map(|headers| {
            headers
                .iter()
                .filter_map(|header| {
                    let name = header["name"].as_str()?.to_owned();
                    let value = match header["value"]["type"].as_str() {
                        Some("base64") => format!(
                            "(binary, {} base64 characters)",
                            header["value"]["value"].as_str().map_or(0, str::len)
                        ),
                        _ => kept(
                            header["value"]["value"].as_str().unwrap_or(""),
                            HEADER_VALUE_CHARS_KEPT,
                        ),
                    };
                    Some((name, value))
                })
                .take(HEADERS_KEPT)
                .collect()
        })
        .unwrap_or_default()
}

fn request_started(params: &Value, sequence: u64) -> Option<NetworkRequest> {
    let context = params["context"].as_str()?.to_owned();
    let (request_id, redirect_count) = request_key(params)?;
    let request = &params["request"];
    let resource_type = request["destination"]
        .as_str()
        .filter(|destination| !destination.is_empty())
        .or_else(|| request["initiatorType"].as_str())
        .map(str::to_owned);
    let initiator = {
        let initiator = &params["initiator"];
        let frame = initiator["stackTrace"]["callFrames"]
            .as_array()
            .and_then(|frames| frames.first())
            .and_then(position_of);
        // Only a script's place says something: a bare type (`parser`, `other`) does not.
        frame.map(|frame| format!("{}:{}", frame.url, frame.line))
    };
    Some(NetworkRequest {
        sequence,
        context,
        request_id,
        redirect_count,
        method: request["method"].as_str().unwrap_or("GET").to_owned(),
        url: kept(request["url"].as_str().unwrap_or(""), 2_000),
        resource_type,
        initiator,
        started_at: params["timestamp"].as_f64().unwrap_or(0.0),
        response: None,
        failure: None,
        blocked: params["isBlocked"].as_bool() == Some(true),
        request_headers: headers_of(&request["headers"]),
    })
}

fn response_of(params: &Value) -> Option<NetworkResponse> {
    let response = &params["response"];
    Some(NetworkResponse {
        status: u16::try_from(response["status"].as_u64()?).ok()?,
        status_text: kept(response["statusText"].as_str().unwrap_or(""), 200),
        mime_type: response["mimeType"]
            .as_str()
            .filter(|mime| !mime.is_empty())
            .map(str::to_owned),
        from_cache: response["fromCache"].as_bool() == Some(true),
        transferred_bytes: response["bytesReceived"].as_u64(),
        body_bytes: response["content"]["size"].as_u64(),
        finished_at: params["timestamp"].as_f64().unwrap_or(0.0),
        fetch_duration_ms: fetch_duration(&params["request"]["timings"]),
        headers: headers_of(&response["headers"]),
    })
}

/// `responseEnd - requestTime` of network.FetchTimingInfo (milliseconds from its time origin;
/// chromium-bidi puts the origin at the request, so its requestTime is 0), when the end was
/// measured (a browser sends 0 for what it did not measure).
fn fetch_duration(timings: &Value) -> Option<f64> {
    let start = timings["requestTime"].as_f64()?;
    let end = timings["responseEnd"].as_f64()?;
    (start >= 0.0 && end > start).then_some(end - start)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Frames `frame-*` belong to `tab-1`; every other context is its own tab.
    fn tab_of(context: &str) -> String {
        if context.starts_with("frame-") {
            "tab-1".to_owned()
        } else {
            context.to_owned()
        }
    }

    fn header(name: &str, value: &str) -> Value {
        json!({"name": name, "value": {"type": "string", "value": value}})
    }

    #[test]
    fn console_messages_and_exceptions_are_kept_per_tab_with_their_source() {
        let mut observations = Observations::default();
        observations.apply(
            "log.entryAdded",
            &json!({"type": "console", "method": "warn", "level": "warn", "text": "low disk",
                    "source": {"realm": "r1", "context": "frame-7"}, "timestamp": 1000.0,
                    "args": [], "stackTrace": {"callFrames": [{"functionName": "check", "url": "https://a.test/app.js", "lineNumber": 9, "columnNumber": 4}]}}),
            tab_of,
        );
        observations.apply(
            "log.entryAdded",
            &json!({"type": "javascript", "level": "error", "text": "TypeError: x is undefined",
                    "source": {"realm": "r1", "context": "tab-1"}, "timestamp": 1001.0,
                    "stackTrace": {"callFrames": [
                        {"functionName": "inner", "url": "https://a.test/app.js", "lineNumber": 1, "columnNumber": 0},
                        {"functionName": "", "url": "https://a.test/app.js", "lineNumber": 20, "columnNumber": 2}]}}),
            tab_of,
        );
        observations.apply(
            "log.entryAdded",
            &json!({"type": "console", "method": "log", "level": "info", "text": null,
                    "source": {"realm": "r2", "context": "tab-2"}, "timestamp": 1002.0,
                    "args": [{"type": "string", "value": "count"}, {"type": "number", "value": 3}, {"type": "undefined"}]}),
            tab_of,
        );
        let tab = observations.console_of("tab-1", tab_of);
        assert_eq!(tab.len(), 2);
        assert_eq!(
            (tab[0].level, tab[0].kind, tab[0].context.as_str()),
            ("warning", "console", "frame-7")
        );
        assert_eq!(
            tab[0].source,
            Some(SourcePosition {
                function: "check".into(),
                url: "https://a.test/app.js".into(),
                line: 10,
                column: 5
            })
        );
        assert!(
            tab[0].stack.is_empty(),
            "a console call keeps only its source"
        );
        assert_eq!((tab[1].level, tab[1].kind), ("error", "exception"));
        assert_eq!(tab[1].stack.len(), 2);
        assert!(tab[0].sequence < tab[1].sequence);
        let other = observations.console_of("tab-2", tab_of);
        assert_eq!(other[0].text, "count 3 undefined");
        assert!(observations.console_of("tab-9", tab_of).is_empty());
    }

    #[test]
    fn a_request_is_filled_in_by_its_response_or_its_failure_and_a_redirect_is_its_own() {
        let mut observations = Observations::default();
        let started = |id: &str, redirects: u64, url: &str| {
            json!({"context": "tab-1", "redirectCount": redirects, "timestamp": 100.0, "isBlocked": false,
                   "request": {"request": id, "url": url, "method": "POST", "destination": "",
                               "initiatorType": "fetch", "headers": [header("Authorization", "Bearer abc")]},
                   "initiator": {"type": "script", "stackTrace": {"callFrames": [{"functionName": "send", "url": "https://a.test/app.js", "lineNumber": 41, "columnNumber": 0}]}}})
        };
        observations.apply(
            "network.beforeRequestSent",
            &started("7", 0, "https://a.test/api"),
            tab_of,
        );
        observations.apply(
            "network.responseCompleted",
            &json!({"context": "tab-1", "redirectCount": 0, "timestamp": 130.0,
                    "request": {"request": "7"},
                    "response": {"url": "https://a.test/api", "status": 302, "statusText": "Found", "fromCache": false,
                                 "headers": [header("Location", "/api2")], "mimeType": "", "bytesReceived": 120, "content": {"size": 0}}}),
            tab_of,
        );
        observations.apply(
            "network.beforeRequestSent",
            &started("7", 1, "https://a.test/api2"),
            tab_of,
        );
        observations.apply(
            "network.fetchError",
            &json!({"context": "tab-1", "redirectCount": 1, "timestamp": 150.0, "request": {"request": "7"},
                    "errorText": "net::ERR_CONNECTION_REFUSED"}),
            tab_of,
        );
        let requests = observations.requests_of("tab-1", tab_of);
        assert_eq!(requests.len(), 2);
        let first = requests[0];
        assert_eq!(
            (first.method.as_str(), first.resource_type.as_deref()),
            ("POST", Some("fetch"))
        );
        assert_eq!(first.initiator.as_deref(), Some("https://a.test/app.js:42"));
        assert_eq!(
            first.request_headers,
            vec![("Authorization".into(), "Bearer abc".into())]
        );
        let response = first.response.as_ref().expect("a response");
        assert_eq!(
            (response.status, response.mime_type.as_deref()),
            (302, None)
        );
        assert_eq!(first.duration_ms(), Some(30.0));
        assert_eq!(
            requests[1].failure.as_deref(),
            Some("net::ERR_CONNECTION_REFUSED")
        );
        assert!(requests[1].response.is_none());
    }

    #[test]
    fn a_duration_comes_from_the_fetch_timings_when_the_browser_measured_them() {
        assert_eq!(
            fetch_duration(&json!({"requestTime": 0.0, "responseEnd": 42.5})),
            Some(42.5)
        );
        assert_eq!(
            fetch_duration(&json!({"requestTime": 10.0, "responseEnd": 35.0})),
            Some(25.0)
        );
        assert_eq!(
            fetch_duration(&json!({"requestTime": 0.0, "responseEnd": 0.0})),
            None
        );
        assert_eq!(fetch_duration(&json!({})), None);
    }

    #[test]
    fn full_rings_drop_the_oldest_and_count_them() {
        let mut observations = Observations::default();
        for index in 0..CONSOLE_ENTRIES_KEPT_PER_TAB + 5 {
            observations.apply(
                "log.entryAdded",
                &json!({"type": "console", "level": "info", "text": format!("line {index}"),
                        "source": {"context": "tab-1"}, "timestamp": 0}),
                tab_of,
            );
        }
        assert_eq!(
            observations.console_of("tab-1", tab_of).len(),
            CONSOLE_ENTRIES_KEPT_PER_TAB
        );
        assert_eq!(observations.console_dropped("tab-1"), 5);
        assert_eq!(
            observations
                .console_of("tab-1", tab_of)
                .first()
                .map(|entry| entry.text.as_str()),
            Some("line 5")
        );
        observations.forget("tab-1");
        assert!(observations.console_of("tab-1", tab_of).is_empty());
    }

    #[test]
    fn malformed_events_change_nothing() {
        let mut observations = Observations::default();
        for (method, params) in [
            ("log.entryAdded", json!({"text": "no source"})),
            ("network.beforeRequestSent", json!({"context": "tab-1"})),
            (
                "network.responseCompleted",
                json!({"context": "tab-1", "request": {"request": "9"}, "response": {"status": 200}}),
            ),
            ("network.fetchError", json!(null)),
            ("browsingContext.load", json!({"context": "tab-1"})),
        ] {
            observations.apply(method, &params, tab_of);
        }
        assert_eq!(observations.last_sequence(), 0);
        assert!(observations.requests_of("tab-1", tab_of).is_empty());
    }

    #[test]
    fn long_texts_and_headers_are_cut() {
        let long = "é".repeat(TEXT_CHARS_KEPT + 10);
        let entry = console_entry(
            &json!({"type": "console", "level": "info", "text": long, "source": {"context": "c"}}),
            1,
        )
        .expect("an entry");
        assert_eq!(entry.text.chars().count(), TEXT_CHARS_KEPT + 1);
        assert!(entry.text.ends_with('…'));
        let headers =
            headers_of(&json!([{"name": "X-Bin", "value": {"type": "base64", "value": "AAAA"}}]));
        assert_eq!(
            headers,
            vec![(
                "X-Bin".to_owned(),
                "(binary, 4 base64 characters)".to_owned()
            )]
        );
    }
}
