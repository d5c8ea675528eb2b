//! The Chrome DevTools Protocol pipe to a Chromium that allwright started, and the WebDriver BiDi
//! mapper run over it. This is the only file of the crate that sends CDP: the browser's lifecycle
//! (`Browser.close`), the mapper's bootstrap, and the two media features WebDriver BiDi has no
//! command for ([`MediaFeatureEmulation`]: `prefers-color-scheme`, `prefers-reduced-motion`), as
//! ARCHITECTURE.md ("Invariants") allows; everything else speaks BiDi through the mapper
//! (`tests::the_crate_sends_no_cdp` in lib.rs holds the rest of the crate to that).
//!
//! Chromium started with `--remote-debugging-pipe` reads CDP commands on its fd 3 and writes
//! responses and events on its fd 4, each message a JSON text followed by one NUL byte. No socket
//! is opened, so no other user of the machine and no web page can reach the browser's debugging
//! interface (issue 27, item 1).
//!
//! The mapper is `mapperTab.js` of the npm package `chromium-bidi` (embedded by build.rs), the
//! same program chromedriver runs: it translates BiDi into CDP from inside a hidden tab of the
//! browser. The bootstrap follows chromium-bidi's own server
//! (`out/Default/gen/src/bidiServer/MapperCdpConnection.js`, `MapperServerCdpConnection.#initMapper`)
//! and its tab side (`bidiTab/bidiTab.js`, `bidiTab/Transport.js`):
//!
//! 1. `Target.createTarget` of `about:blank` with `hidden: true`, so that the mapper's tab is in
//!    no window and neither the agent nor the extension's `chrome.tabs` sees it;
//! 2. `Target.attachToTarget` with `flatten: true`, giving a session id for that tab;
//! 3. `Runtime.enable`, `Target.exposeDevToolsProtocol` with `bindingName: "cdp"` (the mapper's
//!    own CDP connection, `window.cdp`), `Runtime.addBinding` of `sendBidiResponse` (the mapper's
//!    way out);
//! 4. `Runtime.evaluate` of the mapper's source, then of `runMapperInstance(<its target id>)`,
//!    which tells the mapper which target to leave out of what it reports.
//!
//! From then on a BiDi command goes in as `Runtime.evaluate` of `onBidiMessage(<JSON string>)`,
//! and each BiDi response or event comes out as a `Runtime.bindingCalled` event named
//! `sendBidiResponse` whose `payload` is the BiDi JSON text.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{json, Value};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;

use crate::bidi::{IncomingText, OutgoingText, TextTransport};

/// The mapper's source, as build.rs found it in `embedded/chromium-bidi-mapper.js` (a copy of
/// chromium-bidi's `mapperTab.js` from node_modules; empty when the build had none).
pub(crate) const MAPPER_SCRIPT: &str =
    include_str!(concat!(env!("OUT_DIR"), "/chromium-bidi-mapper.js"));

/// How many bytes one read of the pipe takes at most. Messages may be far larger (a screenshot's
/// base64 runs to megabytes); the framer joins the reads.
const PIPE_READ_SIZE: usize = 64 * 1024;

/// Splits the bytes read from the pipe into messages, each ended by a NUL byte. A message may
/// arrive over many reads and one read may hold many messages; an unfinished message waits in the
/// buffer for the next read (tokio's mini-redis framing: an incomplete frame is a normal state).
#[derive(Default)]
pub(crate) struct NulSeparatedFramer {
    buffer: Vec<u8>,
    /// How far the buffer is known to hold no NUL byte, so that a long message is scanned once.
    scanned: usize,
}

impl NulSeparatedFramer {
    /// Adds the bytes of one read and returns every message they complete, in order.
    pub(crate) fn push(&mut self, bytes: &[u8]) -> Vec<Vec<u8>> {
        self.buffer.extend_from_slice(bytes);
        let mut messages = Vec::new();
        let mut start = 0;
        let mut search_from = self.scanned;
        while let Some(offset) = self.buffer[search_from..]
            .iter()
            .position(|&byte| byte == 0)
        {
            let end = search_from + offset;
            messages.push(self.buffer[start..end].to_vec());
            start = end + 1;
            search_from = start;
        }
        self.buffer.drain(..start);
        self.scanned = self.buffer.len();
        messages
    }

    /// Whether bytes of an unfinished message are waiting.
    pub(crate) fn has_partial_message(&self) -> bool {
        !self.buffer.is_empty()
    }
}

/// An event the browser sent on the pipe: its session (`None` for the browser's own), its method
/// and its parameters.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct CdpEvent {
    pub(crate) session_id: Option<String>,
    pub(crate) method: String,
    pub(crate) params: Value,
}

type CdpResponseSender = oneshot::Sender<Result<Value, String>>;

/// The CDP commands in flight, by id.
#[derive(Default)]
struct PendingCdpCommands {
    waiting: HashMap<u64, CdpResponseSender>,
    /// Set once the pipe is gone: every later command fails at once with this reason.
    closed_with: Option<String>,
}

/// A CDP client over the two pipe ends: commands go out with increasing ids and a reader task
/// routes each response to its command and every event to one channel.
pub(crate) struct CdpPipe {
    writer: tokio::sync::Mutex<Box<dyn AsyncWrite + Send + Unpin>>,
    pending: Arc<Mutex<PendingCdpCommands>>,
    next_command_id: AtomicU64,
    reader_task: JoinHandle<()>,
}

impl CdpPipe {
    /// Starts reading `from_browser`; events arrive on the returned channel, which ends when the
    /// pipe closes.
    pub(crate) fn start(
        from_browser: impl AsyncRead + Send + Unpin + 'static,
        to_browser: impl AsyncWrite + Send + Unpin + 'static,
    ) -> (Self, mpsc::UnboundedReceiver<CdpEvent>) {
        let pending = Arc::new(Mutex::new(PendingCdpCommands::default()));
        let (event_sender, events) = mpsc::unbounded_channel();
        let reader_pending = Arc::clone(&pending);
        let reader_task = tokio::spawn(async move {
            let close_reason =
                read_until_closed(from_browser, &reader_pending, &event_sender).await;
            let mut pending = lock(&reader_pending);
            for (_, sender) in pending.waiting.drain() {
                let _ = sender.send(Err(close_reason.clone()));
            }
            pending.closed_with = Some(close_reason);
        });
        let pipe = Self {
            writer: tokio::sync::Mutex::new(Box::new(to_browser)),
            pending,
            next_command_id: AtomicU64::new(1),
            reader_task,
        };
        (pipe, events)
    }

    /// Sends a command to `session_id` (`None`: the browser) and waits at most `timeout` for its
    /// result. A CDP error comes back as its message, prefixed with the method.
    pub(crate) async fn command(
        &self,
        session_id: Option<&str>,
        method: &str,
        params: Value,
        timeout: Duration,
    ) -> Result<Value, String> {
        let id = self.next_command_id.fetch_add(1, Ordering::Relaxed);
        let receiver = {
            let mut pending = lock(&self.pending);
            if let Some(reason) = &pending.closed_with {
                return Err(format!("{method}: {reason}"));
            }
            let (sender, receiver) = oneshot::channel();
            pending.waiting.insert(id, sender);
            receiver
        };
        if let Err(error) = self.write(id, session_id, method, params).await {
            lock(&self.pending).waiting.remove(&id);
            return Err(format!("{method}: {error}"));
        }
        match tokio::time::timeout(timeout, receiver).await {
            Ok(Ok(Ok(result))) => Ok(result),
            Ok(Ok(Err(reason))) => Err(format!("{method}: {reason}")),
            Ok(Err(_)) => Err(format!("{method}: the CDP pipe closed")),
            Err(_) => {
                lock(&self.pending).waiting.remove(&id);
                Err(format!(
                    "{method}: no answer after {} s",
                    timeout.as_secs_f32()
                ))
            }
        }
    }

    /// Sends a command without waiting for its answer (which the reader drops, as nobody waits
    /// for its id).
    pub(crate) async fn send_without_waiting(
        &self,
        session_id: Option<&str>,
        method: &str,
        params: Value,
    ) -> Result<(), String> {
        let id = self.next_command_id.fetch_add(1, Ordering::Relaxed);
        self.write(id, session_id, method, params)
            .await
            .map_err(|error| format!("{method}: {error}"))
    }

    async fn write(
        &self,
        id: u64,
        session_id: Option<&str>,
        method: &str,
        params: Value,
    ) -> Result<(), String> {
        let mut message = json!({ "id": id, "method": method, "params": params });
        if let Some(session_id) = session_id {
            message["sessionId"] = json!(session_id);
        }
        let mut bytes = message.to_string().into_bytes();
        bytes.push(0);
        let mut writer = self.writer.lock().await;
        writer
            .write_all(&bytes)
            .await
            .map_err(|error| format!("cannot write to the CDP pipe: {error}"))?;
        writer
            .flush()
            .await
            .map_err(|error| format!("cannot write to the CDP pipe: {error}"))
    }
}

impl Drop for CdpPipe {
    fn drop(&mut self) {
        self.reader_task.abort();
    }
}

/// Reads messages until the pipe ends or fails, and returns why it ended.
async fn read_until_closed(
    mut from_browser: impl AsyncRead + Unpin,
    pending: &Mutex<PendingCdpCommands>,
    events: &mpsc::UnboundedSender<CdpEvent>,
) -> String {
    let mut framer = NulSeparatedFramer::default();
    let mut read_buffer = vec![0_u8; PIPE_READ_SIZE];
    loop {
        let count = match from_browser.read(&mut read_buffer).await {
            Ok(0) if framer.has_partial_message() => {
                return "the CDP pipe closed in the middle of a message".to_owned()
            }
            Ok(0) => return "the CDP pipe closed (the browser exited)".to_owned(),
            Ok(count) => count,
            Err(error) => return format!("the CDP pipe failed: {error}"),
        };
        for message in framer.push(&read_buffer[..count]) {
            // One unreadable message is not worth the browser; skip it.
            let Ok(message) = serde_json::from_slice::<Value>(&message) else {
                continue;
            };
            route_cdp_message(message, pending, events);
        }
    }
}

/// A response completes its command (one nobody waits for any more is dropped); an event goes to
/// the events channel.
fn route_cdp_message(
    message: Value,
    pending: &Mutex<PendingCdpCommands>,
    events: &mpsc::UnboundedSender<CdpEvent>,
) {
    if let Some(id) = message.get("id").and_then(Value::as_u64) {
        let Some(sender) = lock(pending).waiting.remove(&id) else {
            return;
        };
        let outcome = match message.get("error") {
            Some(error) => Err(error
                .get("message")
                .and_then(Value::as_str)
                .unwrap_or("an error without a message")
                .to_owned()),
            None => Ok(message.get("result").cloned().unwrap_or(Value::Null)),
        };
        let _ = sender.send(outcome);
        return;
    }
    if let Some(method) = message.get("method").and_then(Value::as_str) {
        let _ = events.send(CdpEvent {
            session_id: message
                .get("sessionId")
                .and_then(Value::as_str)
                .map(str::to_owned),
            method: method.to_owned(),
            params: message.get("params").cloned().unwrap_or(Value::Null),
        });
    }
}

/// Locks a pending table; a poisoned lock still holds a valid map (as in bidi/connection.rs).
fn lock(pending: &Mutex<PendingCdpCommands>) -> std::sync::MutexGuard<'_, PendingCdpCommands> {
    pending
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Runs the BiDi mapper (`mapper_script`, normally [`MAPPER_SCRIPT`]) in a hidden tab of the
/// browser at the other end of `pipe` and returns the transport of BiDi text messages through it. `events` is the pipe's event channel; the
/// transport takes it over. Each bootstrap command may take up to `timeout` (the first one waits
/// for the browser to start reading its pipe).
pub(crate) async fn start_bidi_mapper(
    pipe: Arc<CdpPipe>,
    mut events: mpsc::UnboundedReceiver<CdpEvent>,
    mapper_script: &str,
    timeout: Duration,
) -> Result<TextTransport, String> {
    if mapper_script.is_empty() {
        return Err("the BiDi mapper (node_modules/chromium-bidi) was not there when allwright was built: run ./scripts/build".to_owned());
    }
    let created = pipe
        .command(
            None,
            "Target.createTarget",
            json!({ "url": "about:blank", "hidden": true, "background": true }),
            timeout,
        )
        .await?;
    let mapper_target_id = created["targetId"]
        .as_str()
        .ok_or("Target.createTarget returned no targetId")?
        .to_owned();
    let attached = pipe
        .command(
            None,
            "Target.attachToTarget",
            json!({ "targetId": mapper_target_id, "flatten": true }),
            timeout,
        )
        .await?;
    let mapper_session_id = attached["sessionId"]
        .as_str()
        .ok_or("Target.attachToTarget returned no sessionId")?
        .to_owned();
    let mapper_session = Some(mapper_session_id.as_str());
    pipe.command(mapper_session, "Runtime.enable", json!({}), timeout)
        .await?;
    pipe.command(
        None,
        "Target.exposeDevToolsProtocol",
        json!({ "targetId": mapper_target_id, "bindingName": "cdp", "inheritPermissions": true }),
        timeout,
    )
    .await?;
    // `sendDebugMessage` is not bound: the mapper logs through it only when it exists
    // (chromium-bidi's own server binds it in its verbose mode only), and each log line would be
    // one more message on the pipe.
    pipe.command(
        mapper_session,
        "Runtime.addBinding",
        json!({ "name": "sendBidiResponse" }),
        timeout,
    )
    .await?;
    evaluate_in_mapper(&pipe, &mapper_session_id, mapper_script, timeout).await?;
    evaluate_in_mapper(
        &pipe,
        &mapper_session_id,
        &format!("window.runMapperInstance({})", json!(mapper_target_id)),
        timeout,
    )
    .await?;

    let (incoming_sender, incoming) = mpsc::unbounded_channel();
    let (outgoing, mut outgoing_receiver) = mpsc::unbounded_channel::<OutgoingText>();
    let responses_session_id = mapper_session_id.clone();
    // The mapper's answers and events: every other CDP event (the mapper tab's console, its
    // execution contexts) is of no interest and dropped here.
    let responses = tokio::spawn(async move {
        while let Some(event) = events.recv().await {
            if event.method != "Runtime.bindingCalled"
                || event.session_id.as_deref() != Some(responses_session_id.as_str())
                || event.params["name"] != "sendBidiResponse"
            {
                continue;
            }
            if let Some(payload) = event.params["payload"].as_str() {
                if incoming_sender
                    .send(IncomingText::Message(payload.to_owned()))
                    .is_err()
                {
                    return;
                }
            }
        }
        let _ = incoming_sender.send(IncomingText::Closed(
            "the browser closed the CDP pipe that carried the BiDi mapper".to_owned(),
        ));
    });
    // The commands, in order. The answer to each `Runtime.evaluate` is not awaited: the BiDi
    // answer comes back through `sendBidiResponse`, and waiting would put the commands in single
    // file.
    let commands = tokio::spawn(async move {
        while let Some(outgoing) = outgoing_receiver.recv().await {
            match outgoing {
                OutgoingText::Message(text) => {
                    let expression = format!("onBidiMessage({})", json!(text));
                    if pipe
                        .send_without_waiting(
                            Some(&mapper_session_id),
                            "Runtime.evaluate",
                            json!({ "expression": expression }),
                        )
                        .await
                        .is_err()
                    {
                        break;
                    }
                }
                // The pipe belongs to the launched browser, which ends it with the process.
                OutgoingText::Close(done) => {
                    let _ = done.send(());
                }
            }
        }
    });
    Ok(TextTransport {
        incoming,
        outgoing,
        tasks: vec![responses, commands],
    })
}

/// Evaluates `expression` in the mapper's tab, waiting for a promise it returns; an exception is
/// an error with its text.
async fn evaluate_in_mapper(
    pipe: &CdpPipe,
    mapper_session_id: &str,
    expression: &str,
    timeout: Duration,
) -> Result<(), String> {
    let result = pipe
        .command(
            Some(mapper_session_id),
            "Runtime.evaluate",
            json!({ "expression": expression, "awaitPromise": true }),
            timeout,
        )
        .await?;
    match result.get("exceptionDetails") {
        Some(details) => Err(format!(
            "the BiDi mapper failed to start: {}",
            details["exception"]["description"]
                .as_str()
                .or(details["text"].as_str())
                .unwrap_or("an exception without a description")
        )),
        None => Ok(()),
    }
}

/// How long one CDP command of the media emulation may take.
const MEDIA_COMMAND_TIMEOUT: Duration = Duration::from_secs(10);

/// A media feature that WebDriver BiDi cannot emulate (chromium-bidi 17 implements
/// `emulation.setForcedColorsModeThemeOverride`, and no command for these two).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum MediaFeature {
    /// Media Queries 5, `prefers-color-scheme`: "light" or "dark".
    PrefersColorScheme,
    /// Media Queries 5, `prefers-reduced-motion`: "reduce" or "no-preference".
    PrefersReducedMotion,
}

impl MediaFeature {
    /// The feature's name in CSS, which is also CDP's.
    pub fn css_name(self) -> &'static str {
        match self {
            Self::PrefersColorScheme => "prefers-color-scheme",
            Self::PrefersReducedMotion => "prefers-reduced-motion",
        }
    }

    /// Whether `value` is one the feature can take (an unknown one would match no query).
    pub fn accepts(self, value: &str) -> bool {
        match self {
            Self::PrefersColorScheme => matches!(value, "light" | "dark"),
            Self::PrefersReducedMotion => matches!(value, "reduce" | "no-preference"),
        }
    }
}

/// The media features one tab sees, and the CDP session that set them.
struct TabMediaFeatures {
    session_id: String,
    features: std::collections::BTreeMap<MediaFeature, String>,
}

/// `prefers-color-scheme` and `prefers-reduced-motion` of a launched Chromium's tabs, set with
/// CDP's `Emulation.setEmulatedMedia` on a session of allwright's own attached to the tab's
/// target (chromium-bidi names a top-level browsing context by its CDP target id). The session
/// stays attached while the browser runs: Chromium keeps a session's emulation for its target
/// across navigations and drops it when the session detaches. Each command sends every feature
/// the tab has, since `setEmulatedMedia` replaces what the session set before.
///
/// Nothing else goes over these sessions: elements, input and scripts stay BiDi's.
pub struct MediaFeatureEmulation {
    pipe: Arc<CdpPipe>,
    /// By top-level browsing context (target) id: one entry per tab the agent set a media
    /// feature in, a few strings each, kept while the browser runs (a closed tab's too, and its
    /// session, which Chromium ended with the tab).
    tabs: tokio::sync::Mutex<HashMap<String, TabMediaFeatures>>,
}

impl MediaFeatureEmulation {
    pub(crate) fn new(pipe: Arc<CdpPipe>) -> Self {
        Self {
            pipe,
            tabs: tokio::sync::Mutex::new(HashMap::new()),
        }
    }

    /// Sets (`Some(value)`) or removes (`None`) each of `changes` for the tab whose top-level
    /// browsing context is `context`, leaving its other features as they were.
    pub async fn set(
        &self,
        context: &str,
        changes: &[(MediaFeature, Option<&str>)],
    ) -> Result<(), String> {
        if let Some((feature, value)) = changes
            .iter()
            .find(|(feature, value)| value.is_some_and(|value| !feature.accepts(value)))
        {
            return Err(format!(
                "{} cannot be {:?}",
                feature.css_name(),
                value.unwrap_or_default()
            ));
        }
        let mut tabs = self.tabs.lock().await;
        let mut features = tabs
            .get(context)
            .map(|tab| tab.features.clone())
            .unwrap_or_default();
        for (feature, value) in changes {
            match value {
                Some(value) => features.insert(*feature, (*value).to_owned()),
                None => features.remove(feature),
            };
        }
        let params = set_emulated_media_params(&features);
        // A known session first; a session that is gone (its target was replaced or closed)
        // is attached again once.
        if let Some(session_id) = tabs.get(context).map(|tab| tab.session_id.clone()) {
            let sent = self
                .pipe
                .command(
                    Some(&session_id),
                    "Emulation.setEmulatedMedia",
                    params.clone(),
                    MEDIA_COMMAND_TIMEOUT,
                )
                .await;
            if sent.is_ok() {
                tabs.insert(
                    context.to_owned(),
                    TabMediaFeatures {
                        session_id,
                        features,
                    },
                );
                return Ok(());
            }
            tabs.remove(context);
        }
        let attached = self
            .pipe
            .command(
                None,
                "Target.attachToTarget",
                json!({ "targetId": context, "flatten": true }),
                MEDIA_COMMAND_TIMEOUT,
            )
            .await?;
        let session_id = attached["sessionId"]
            .as_str()
            .ok_or("Target.attachToTarget returned no sessionId")?
            .to_owned();
        self.pipe
            .command(
                Some(&session_id),
                "Emulation.setEmulatedMedia",
                params,
                MEDIA_COMMAND_TIMEOUT,
            )
            .await?;
        tabs.insert(
            context.to_owned(),
            TabMediaFeatures {
                session_id,
                features,
            },
        );
        Ok(())
    }
}

/// `Emulation.setEmulatedMedia`'s parameters for a tab's features: the media type left as it is
/// (empty), and every feature the tab has (an empty list removes them all).
fn set_emulated_media_params(features: &std::collections::BTreeMap<MediaFeature, String>) -> Value {
    let features: Vec<Value> = features
        .iter()
        .map(|(feature, value)| json!({ "name": feature.css_name(), "value": value }))
        .collect();
    json!({ "media": "", "features": features })
}

/// Asks the browser to close (`Browser.close`), waiting at most `timeout` for its answer.
pub(crate) async fn close_browser(pipe: &CdpPipe, timeout: Duration) -> Result<(), String> {
    pipe.command(None, "Browser.close", json!({}), timeout)
        .await
        .map(|_| ())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bidi::BidiConnection;

    fn text(messages: Vec<Vec<u8>>) -> Vec<String> {
        messages
            .into_iter()
            .map(|message| String::from_utf8(message).expect("utf-8"))
            .collect()
    }

    #[test]
    fn messages_split_across_reads_are_joined_and_one_read_may_end_several() {
        let mut framer = NulSeparatedFramer::default();
        assert!(text(framer.push(b"{\"id\":")).is_empty());
        assert!(framer.has_partial_message());
        assert!(text(framer.push(b"1}")).is_empty());
        assert_eq!(
            text(framer.push(b"\0{\"id\":2}\0{\"id\"")),
            ["{\"id\":1}", "{\"id\":2}"]
        );
        assert_eq!(text(framer.push(b":3}\0")), ["{\"id\":3}"]);
        assert!(!framer.has_partial_message());
        // A NUL alone is an empty message (which the reader then skips as unreadable JSON).
        assert_eq!(text(framer.push(b"\0")), [""]);
    }

    #[test]
    fn a_message_larger_than_one_read_arrives_whole() {
        let mut framer = NulSeparatedFramer::default();
        let large = format!("\"{}\"", "x".repeat(PIPE_READ_SIZE * 3 + 17));
        let mut complete = Vec::new();
        for chunk in large.as_bytes().chunks(PIPE_READ_SIZE) {
            complete.extend(framer.push(chunk));
        }
        assert!(complete.is_empty());
        complete.extend(framer.push(b"\0"));
        assert_eq!(text(complete), [large]);
    }

    /// What a fake browser does with one command: the messages it writes back, or `None` to
    /// close the pipe.
    type FakeBrowserAnswer = Box<dyn Fn(&Value) -> Option<Vec<Value>> + Send>;

    /// Our end of the fake browser's pipe, its events, the fake's task and the commands it read.
    type FakeBrowser = (
        CdpPipe,
        mpsc::UnboundedReceiver<CdpEvent>,
        JoinHandle<()>,
        Arc<Mutex<Vec<Value>>>,
    );

    /// A fake browser on an in-memory pipe, answering each command with `answer` and keeping
    /// every command it read in the returned list.
    fn start_fake_browser_answering(answer: FakeBrowserAnswer) -> FakeBrowser {
        let (our_end, browser_end) = tokio::io::duplex(1024);
        let (from_browser, to_browser) = tokio::io::split(our_end);
        let (pipe, events) = CdpPipe::start(from_browser, to_browser);
        let received = Arc::new(Mutex::new(Vec::new()));
        let browser_received = Arc::clone(&received);
        let browser = tokio::spawn(async move {
            let (mut reading, mut writing) = tokio::io::split(browser_end);
            let mut framer = NulSeparatedFramer::default();
            let mut buffer = [0_u8; 7];
            loop {
                let Ok(count) = reading.read(&mut buffer).await else {
                    return;
                };
                if count == 0 {
                    return;
                }
                for message in framer.push(&buffer[..count]) {
                    let command: Value = serde_json::from_slice(&message).expect("JSON command");
                    browser_received.lock().expect("lock").push(command.clone());
                    let Some(replies) = answer(&command) else {
                        return;
                    };
                    for reply in replies {
                        let mut bytes = reply.to_string().into_bytes();
                        bytes.push(0);
                        // Written in small pieces, so that the client's reads split messages.
                        for piece in bytes.chunks(5) {
                            if writing.write_all(piece).await.is_err() {
                                return;
                            }
                        }
                    }
                }
            }
        });
        (pipe, events, browser, received)
    }

    /// A fake browser that answers each command with its method and session, and sends one
    /// event first.
    fn start_fake_browser() -> (CdpPipe, mpsc::UnboundedReceiver<CdpEvent>, JoinHandle<()>) {
        let (pipe, events, browser, _) = start_fake_browser_answering(Box::new(|command| {
            if command["method"] == "Test.closePipe" {
                return None;
            }
            let event = json!({"method": "Test.event", "params": {"n": command["id"]}, "sessionId": command["sessionId"]});
            let answer = if command["method"] == "Test.fail" {
                json!({"id": command["id"], "error": {"code": -32000, "message": "refused"}})
            } else {
                json!({"id": command["id"], "result": {"method": command["method"], "session": command["sessionId"]}})
            };
            Some(vec![event, answer])
        }));
        (pipe, events, browser)
    }

    /// A fake Chromium in which the mapper runs: the bootstrap's commands get the answers
    /// Chromium gives, and each `onBidiMessage(...)` gets a `sendBidiResponse` binding call
    /// answering the BiDi command with its method, after two calls the transport must ignore
    /// (another binding, another session) that carry a wrong answer for the same id.
    fn fake_chromium_with_mapper(mapper_fails: bool) -> FakeBrowserAnswer {
        Box::new(move |command| {
            let id = &command["id"];
            let method = command["method"].as_str().unwrap_or_default();
            let expression = command["params"]["expression"].as_str().unwrap_or_default();
            let result = match method {
                "Target.createTarget" => json!({"targetId": "mapper-target"}),
                "Target.attachToTarget" => json!({"sessionId": "mapper-session"}),
                "Runtime.evaluate" if expression.starts_with("onBidiMessage(") => {
                    let argument = &expression["onBidiMessage(".len()..expression.len() - 1];
                    let text: String = serde_json::from_str(argument).expect("a JSON string");
                    let bidi: Value = serde_json::from_str(&text).expect("a BiDi command");
                    let answer = |result: Value| {
                        json!({"type": "success", "id": bidi["id"], "result": result}).to_string()
                    };
                    let binding_call = |session: &str, name: &str, payload: String| {
                        json!({"method": "Runtime.bindingCalled", "sessionId": session,
                               "params": {"name": name, "payload": payload}})
                    };
                    return Some(vec![
                        json!({"id": id, "result": {"result": {"type": "undefined"}}}),
                        binding_call("mapper-session", "sendDebugMessage", answer(json!("debug"))),
                        binding_call("other-session", "sendBidiResponse", answer(json!("other"))),
                        binding_call(
                            "mapper-session",
                            "sendBidiResponse",
                            answer(json!({"method": bidi["method"], "params": bidi["params"]})),
                        ),
                    ]);
                }
                "Runtime.evaluate" if mapper_fails && !expression.starts_with("window.") => {
                    json!({"result": {"type": "object"},
                           "exceptionDetails": {"text": "Uncaught", "exception": {"description": "Error: boom"}}})
                }
                _ => json!({}),
            };
            Some(vec![json!({"id": id, "result": result})])
        })
    }

    #[tokio::test]
    async fn bidi_travels_through_the_mapper_after_its_bootstrap() {
        let (pipe, events, _browser, received) =
            start_fake_browser_answering(fake_chromium_with_mapper(false));
        let transport = start_bidi_mapper(
            Arc::new(pipe),
            events,
            "/* the mapper */",
            Duration::from_secs(5),
        )
        .await
        .expect("the mapper starts");
        let bootstrap: Vec<(String, Value, Value)> = received
            .lock()
            .expect("lock")
            .iter()
            .map(|command| {
                (
                    command["method"].as_str().unwrap_or_default().to_owned(),
                    command["sessionId"].clone(),
                    command["params"].clone(),
                )
            })
            .collect();
        let methods: Vec<&str> = bootstrap
            .iter()
            .map(|(method, ..)| method.as_str())
            .collect();
        assert_eq!(
            methods,
            [
                "Target.createTarget",
                "Target.attachToTarget",
                "Runtime.enable",
                "Target.exposeDevToolsProtocol",
                "Runtime.addBinding",
                "Runtime.evaluate",
                "Runtime.evaluate",
            ]
        );
        assert_eq!(bootstrap[0].2["hidden"], true, "the mapper's tab is hidden");
        assert_eq!(bootstrap[1].2["flatten"], true);
        assert_eq!(bootstrap[3].2["bindingName"], "cdp");
        assert_eq!(bootstrap[4].2["name"], "sendBidiResponse");
        assert_eq!(bootstrap[5].2["expression"], "/* the mapper */");
        assert_eq!(
            bootstrap[6].2["expression"],
            "window.runMapperInstance(\"mapper-target\")"
        );
        for (method, session, _) in &bootstrap[2..] {
            if method != "Target.exposeDevToolsProtocol" {
                assert_eq!(
                    session, "mapper-session",
                    "{method} goes to the mapper's tab"
                );
            }
        }

        let connection = BidiConnection::over_transport(transport);
        let answer = connection
            .command("session.status", json!({"quote": "\"); alert(1); (\""}))
            .await
            .expect("answered through the mapper");
        assert_eq!(
            answer,
            json!({"method": "session.status", "params": {"quote": "\"); alert(1); (\""}})
        );
    }

    #[tokio::test]
    async fn a_mapper_that_throws_fails_the_launch_with_its_exception() {
        let (pipe, events, _browser, _) =
            start_fake_browser_answering(fake_chromium_with_mapper(true));
        let failed = start_bidi_mapper(Arc::new(pipe), events, "throw 1", Duration::from_secs(5))
            .await
            .err()
            .expect("the bootstrap fails");
        assert!(failed.contains("Error: boom"), "{failed}");
    }

    #[tokio::test]
    async fn no_mapper_built_in_is_a_clear_error() {
        let (pipe, events, _browser, received) =
            start_fake_browser_answering(fake_chromium_with_mapper(false));
        let failed = start_bidi_mapper(Arc::new(pipe), events, "", Duration::from_secs(5))
            .await
            .err()
            .expect("no mapper");
        assert!(failed.contains("./scripts/build"), "{failed}");
        assert!(
            received.lock().expect("lock").is_empty(),
            "nothing was sent"
        );
    }

    /// A fake Chromium that attaches sessions `session-1`, `session-2`, ...; with
    /// `first_session_goes`, `session-1` is gone after its first `Emulation.setEmulatedMedia`
    /// (as when its target was replaced).
    fn fake_chromium_for_media(first_session_goes: bool) -> FakeBrowserAnswer {
        let attached = std::sync::atomic::AtomicU64::new(0);
        let first_session_uses = std::sync::atomic::AtomicU64::new(0);
        Box::new(move |command| {
            let id = &command["id"];
            let session = command["sessionId"].as_str().unwrap_or_default();
            let answer = match command["method"].as_str().unwrap_or_default() {
                "Target.attachToTarget" => {
                    let number = attached.fetch_add(1, Ordering::Relaxed) + 1;
                    json!({"id": id, "result": {"sessionId": format!("session-{number}")}})
                }
                "Emulation.setEmulatedMedia"
                    if first_session_goes
                        && session == "session-1"
                        && first_session_uses.fetch_add(1, Ordering::Relaxed) > 0 =>
                {
                    json!({"id": id, "error": {"code": -32001, "message": "Session with given id not found."}})
                }
                _ => json!({"id": id, "result": {}}),
            };
            Some(vec![answer])
        })
    }

    /// The commands the fake read, as (method, session, params).
    fn sent(received: &Mutex<Vec<Value>>) -> Vec<(String, Value, Value)> {
        received
            .lock()
            .expect("lock")
            .iter()
            .map(|command| {
                (
                    command["method"].as_str().unwrap_or_default().to_owned(),
                    command["sessionId"].clone(),
                    command["params"].clone(),
                )
            })
            .collect()
    }

    #[tokio::test]
    async fn media_features_are_kept_per_tab_on_one_attached_session() {
        let (pipe, _events, _browser, received) =
            start_fake_browser_answering(fake_chromium_for_media(false));
        let media = MediaFeatureEmulation::new(Arc::new(pipe));
        media
            .set("TAB-A", &[(MediaFeature::PrefersColorScheme, Some("dark"))])
            .await
            .expect("set");
        media
            .set(
                "TAB-A",
                &[(MediaFeature::PrefersReducedMotion, Some("reduce"))],
            )
            .await
            .expect("set");
        media
            .set("TAB-A", &[(MediaFeature::PrefersColorScheme, None)])
            .await
            .expect("reset");
        let commands = sent(&received);
        let methods: Vec<&str> = commands
            .iter()
            .map(|(method, ..)| method.as_str())
            .collect();
        assert_eq!(
            methods,
            [
                "Target.attachToTarget",
                "Emulation.setEmulatedMedia",
                "Emulation.setEmulatedMedia",
                "Emulation.setEmulatedMedia",
            ],
            "one session for the tab"
        );
        assert_eq!(commands[0].2, json!({"targetId": "TAB-A", "flatten": true}));
        for (_, session, _) in &commands[1..] {
            assert_eq!(session, "session-1");
        }
        assert_eq!(
            commands[2].2,
            json!({"media": "", "features": [
                {"name": "prefers-color-scheme", "value": "dark"},
                {"name": "prefers-reduced-motion", "value": "reduce"},
            ]}),
            "every feature of the tab, each time"
        );
        assert_eq!(
            commands[3].2,
            json!({"media": "", "features": [{"name": "prefers-reduced-motion", "value": "reduce"}]}),
            "a reset feature is left out"
        );
        let refused = media
            .set(
                "TAB-A",
                &[(MediaFeature::PrefersColorScheme, Some("sepia"))],
            )
            .await
            .expect_err("no such value");
        assert!(refused.contains("prefers-color-scheme"), "{refused}");
        assert_eq!(sent(&received).len(), 4, "nothing sent for a refused value");
    }

    #[tokio::test]
    async fn a_session_that_is_gone_is_attached_again_with_the_tabs_features() {
        let (pipe, _events, _browser, received) =
            start_fake_browser_answering(fake_chromium_for_media(true));
        let media = MediaFeatureEmulation::new(Arc::new(pipe));
        media
            .set("TAB-A", &[(MediaFeature::PrefersColorScheme, Some("dark"))])
            .await
            .expect("set on session-1");
        media
            .set(
                "TAB-A",
                &[(MediaFeature::PrefersReducedMotion, Some("reduce"))],
            )
            .await
            .expect("set on a new session");
        let commands = sent(&received);
        let methods: Vec<&str> = commands
            .iter()
            .map(|(method, ..)| method.as_str())
            .collect();
        assert_eq!(
            methods,
            [
                "Target.attachToTarget",
                "Emulation.setEmulatedMedia",
                "Emulation.setEmulatedMedia",
                "Target.attachToTarget",
                "Emulation.setEmulatedMedia",
            ]
        );
        let last = commands.last().expect("a command");
        assert_eq!(last.1, "session-2");
        assert_eq!(
            last.2,
            json!({"media": "", "features": [
                {"name": "prefers-color-scheme", "value": "dark"},
                {"name": "prefers-reduced-motion", "value": "reduce"},
            ]}),
            "the new session carries every feature of the tab"
        );
    }

    #[tokio::test]
    async fn commands_and_events_travel_over_the_pipe() {
        let (pipe, mut events, _browser) = start_fake_browser();
        let timeout = Duration::from_secs(5);
        let answer = pipe
            .command(Some("session-1"), "Test.echo", json!({}), timeout)
            .await
            .expect("answered");
        assert_eq!(
            answer,
            json!({"method": "Test.echo", "session": "session-1"})
        );
        let event = events.recv().await.expect("event");
        assert_eq!(event.method, "Test.event");
        assert_eq!(event.session_id.as_deref(), Some("session-1"));
        let refused = pipe.command(None, "Test.fail", json!({}), timeout).await;
        assert_eq!(refused, Err("Test.fail: refused".to_owned()));
    }

    #[tokio::test]
    async fn a_closed_pipe_fails_the_waiting_command_and_the_next_ones() {
        let (pipe, mut events, browser) = start_fake_browser();
        let timeout = Duration::from_secs(5);
        let waiting = pipe
            .command(None, "Test.closePipe", json!({}), timeout)
            .await;
        let waiting = waiting.expect_err("the pipe closed before an answer");
        assert!(waiting.contains("closed"), "{waiting}");
        browser.await.expect("fake browser ended");
        let later = pipe
            .command(None, "Test.echo", json!({}), timeout)
            .await
            .expect_err("the pipe is closed");
        assert!(later.contains("closed"), "{later}");
        assert_eq!(events.recv().await, None, "the events channel ends too");
    }
}
