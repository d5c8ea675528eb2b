//! One BiDi connection: commands go out with increasing ids, a reader task routes each response
//! to the command that is waiting for it and fans events out to subscribers.
//!
//! The connection runs over any transport of JSON text messages in both directions
//! ([`TextTransport`]). Two exist: a WebSocket (Firefox's remote agent, remote ends, built here by
//! [`BidiConnection::connect`] and [`BidiConnection::connect_over_stream`]) and the BiDi mapper
//! that allwright runs inside a launched Chromium, reached over the CDP pipe
//! (`crate::launch::cdp_pipe`).

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use serde_json::Value;
use tokio::net::TcpStream;
use tokio::sync::{broadcast, mpsc, oneshot};
use tokio::task::JoinHandle;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::WebSocketStream;

use super::protocol::{decode_message, encode_command, BidiError, BrowserToClient, CommandId};

/// How long a command may take when the caller gives no timeout of its own. Navigation to a slow
/// page is the longest ordinary command; the callers pass longer timeouts where they need them.
pub const DEFAULT_COMMAND_TIMEOUT: Duration = Duration::from_secs(30);

/// How a command failed, for the commands whose effect must not be repeated
/// ([`BidiConnection::command_telling_whether_sent`]).
#[derive(Debug, Clone, PartialEq)]
pub enum CommandFailure {
    /// The command never left this client: the connection was closed, or its transport had
    /// ended. Nothing reached the browser.
    NotSent(BidiError),
    /// The command was handed to the transport (the WebSocket, or the mapper's pipe), then the
    /// browser answered an error, the connection closed, or no answer came in time: the browser
    /// may have carried it out, wholly or in part.
    AfterSending(BidiError),
}

impl CommandFailure {
    /// The error, whichever side of sending it came from.
    pub fn into_error(self) -> BidiError {
        match self {
            Self::NotSent(error) | Self::AfterSending(error) => error,
        }
    }
}

/// An event the browser sent (`method` such as `"browsingContext.load"`, and its `params`).
#[derive(Debug, Clone, PartialEq)]
pub struct BidiEvent {
    pub method: String,
    pub params: Value,
}

type ResponseSender = oneshot::Sender<Result<Value, BidiError>>;

/// The commands in flight, by id. Kept apart from the socket so that the correlation rules are
/// tested without one.
#[derive(Default)]
pub(crate) struct PendingCommands {
    waiting: HashMap<CommandId, ResponseSender>,
    /// Set once the connection is gone: every later command fails at once with this error.
    closed_with: Option<BidiError>,
}

impl PendingCommands {
    /// Registers a command before it is sent, so that even an instant answer finds its waiter.
    pub(crate) fn register(
        &mut self,
        id: CommandId,
    ) -> Result<oneshot::Receiver<Result<Value, BidiError>>, BidiError> {
        if let Some(error) = &self.closed_with {
            return Err(error.clone());
        }
        let (sender, receiver) = oneshot::channel();
        self.waiting.insert(id, sender);
        Ok(receiver)
    }

    /// Forgets a command whose caller stopped waiting (it timed out).
    pub(crate) fn forget(&mut self, id: CommandId) {
        self.waiting.remove(&id);
    }

    /// Routes one decoded message: a response completes its command and returns `None`; an
    /// event is handed back for the subscribers. A response to an unknown id (a command that
    /// timed out) or an error without an id is dropped: nobody is waiting for it.
    pub(crate) fn route(&mut self, message: BrowserToClient) -> Option<BidiEvent> {
        match message {
            BrowserToClient::Success { id, result } => {
                if let Some(sender) = self.waiting.remove(&id) {
                    // The receiver may have been dropped by a caller that gave up; that is fine.
                    let _ = sender.send(Ok(result));
                }
                None
            }
            BrowserToClient::Error {
                id: Some(id),
                error,
            } => {
                if let Some(sender) = self.waiting.remove(&id) {
                    let _ = sender.send(Err(error));
                }
                None
            }
            BrowserToClient::Error { id: None, .. } => None,
            BrowserToClient::Event { method, params } => Some(BidiEvent { method, params }),
        }
    }

    /// Fails every waiting command and every later one with `error` (the socket closed).
    pub(crate) fn close(&mut self, error: BidiError) {
        for (_, sender) in self.waiting.drain() {
            let _ = sender.send(Err(error.clone()));
        }
        self.closed_with = Some(error);
    }

    #[cfg(test)]
    pub(crate) fn waiting_count(&self) -> usize {
        self.waiting.len()
    }
}

/// A message the transport delivered, or the end of the transport with the reason.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum IncomingText {
    Message(String),
    Closed(String),
}

/// What the connection asks the transport to send.
#[derive(Debug)]
pub(crate) enum OutgoingText {
    Message(String),
    /// End the transport politely (a WebSocket close frame; for the mapper, nothing: the pipe
    /// belongs to the launched browser, which closes it), then say so on the sender.
    Close(oneshot::Sender<()>),
}

/// The two ends of a transport of JSON text messages, as the connection sees them, and the
/// tasks that move the messages (aborted when the connection is dropped).
pub(crate) struct TextTransport {
    pub(crate) incoming: mpsc::UnboundedReceiver<IncomingText>,
    pub(crate) outgoing: mpsc::UnboundedSender<OutgoingText>,
    pub(crate) tasks: Vec<JoinHandle<()>>,
}

impl TextTransport {
    /// Moves text messages over a WebSocket: one task reads frames, one writes them.
    fn over_websocket<Stream>(socket: WebSocketStream<Stream>) -> Self
    where
        Stream: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send + 'static,
    {
        let (mut sink, mut stream) = socket.split();
        let (incoming_sender, incoming) = mpsc::unbounded_channel();
        let (outgoing, mut outgoing_receiver) = mpsc::unbounded_channel();
        let reader = tokio::spawn(async move {
            let close_reason = loop {
                match stream.next().await {
                    Some(Ok(Message::Text(text))) => {
                        if incoming_sender
                            .send(IncomingText::Message(text.as_str().to_owned()))
                            .is_err()
                        {
                            return;
                        }
                    }
                    Some(Ok(Message::Close(_))) | None => {
                        break "the browser closed the BiDi connection".to_owned()
                    }
                    Some(Ok(_)) => {}
                    Some(Err(error)) => break format!("the BiDi connection failed: {error}"),
                }
            };
            let _ = incoming_sender.send(IncomingText::Closed(close_reason));
        });
        let writer = tokio::spawn(async move {
            while let Some(outgoing) = outgoing_receiver.recv().await {
                let sent = match outgoing {
                    OutgoingText::Message(text) => sink.send(Message::text(text)).await,
                    OutgoingText::Close(done) => {
                        let closed = sink.close().await;
                        let _ = done.send(());
                        closed
                    }
                };
                // A socket that cannot be written is finished; the reader reports why.
                if sent.is_err() {
                    break;
                }
            }
        });
        Self {
            incoming,
            outgoing,
            tasks: vec![reader, writer],
        }
    }
}

/// A connected BiDi session endpoint. Dropping it stops the transport's tasks (closing a
/// WebSocket).
pub struct BidiConnection {
    outgoing: mpsc::UnboundedSender<OutgoingText>,
    pending: Arc<Mutex<PendingCommands>>,
    events: broadcast::Sender<BidiEvent>,
    next_command_id: AtomicU64,
    tasks: Vec<JoinHandle<()>>,
}

impl BidiConnection {
    /// Opens the WebSocket at `url` (`ws://127.0.0.1:PORT/session...`).
    pub async fn connect(url: &str) -> Result<Self, BidiError> {
        let (socket, _response) = tokio_tungstenite::connect_async(url)
            .await
            .map_err(|error| {
                BidiError::connection_closed(format!(
                    "cannot open the BiDi WebSocket {url}: {error}"
                ))
            })?;
        Ok(Self::over_transport(TextTransport::over_websocket(socket)))
    }

    /// Completes the WebSocket handshake of `request` (its URL and headers: an `Authorization`
    /// header for a grid that asks for basic authentication, RFC 6455 section 4.1 allowing it on
    /// the opening handshake) over a stream the caller connected, plain or TLS. The request's
    /// header values are never part of an error.
    pub(crate) async fn handshake_over<Stream>(
        request: tokio_tungstenite::tungstenite::handshake::client::Request,
        stream: Stream,
    ) -> Result<Self, BidiError>
    where
        Stream: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send + 'static,
    {
        let url = request.uri().to_string();
        let (socket, _response) = tokio_tungstenite::client_async(request, stream)
            .await
            .map_err(|error| {
                BidiError::connection_closed(format!(
                    "cannot open the BiDi WebSocket {url}: {error}"
                ))
            })?;
        Ok(Self::over_transport(TextTransport::over_websocket(socket)))
    }

    /// Opens the WebSocket at `url` over a TCP stream the caller has already connected (a
    /// socket made inside a launched browser's private network namespace, where `connect` cannot
    /// reach, or one whose peer the caller checked before speaking).
    pub async fn connect_over_stream(url: &str, stream: TcpStream) -> Result<Self, BidiError> {
        let (socket, _response) =
            tokio_tungstenite::client_async(url, stream)
                .await
                .map_err(|error| {
                    BidiError::connection_closed(format!(
                        "cannot open the BiDi WebSocket {url}: {error}"
                    ))
                })?;
        Ok(Self::over_transport(TextTransport::over_websocket(socket)))
    }

    /// A connection over any transport of JSON text messages.
    pub(crate) fn over_transport(transport: TextTransport) -> Self {
        let TextTransport {
            mut incoming,
            outgoing,
            mut tasks,
        } = transport;
        let pending = Arc::new(Mutex::new(PendingCommands::default()));
        // Events are for observers that may come and go; a slow one loses old events rather than
        // holding up command responses.
        let (events, _) = broadcast::channel(1024);
        let reader_pending = Arc::clone(&pending);
        let reader_events = events.clone();
        tasks.push(tokio::spawn(async move {
            let close_reason = loop {
                match incoming.recv().await {
                    Some(IncomingText::Message(text)) => {
                        let routed = match decode_message(&text) {
                            Ok(message) => lock(&reader_pending).route(message),
                            // One unreadable message is not worth the session; skip it.
                            Err(_) => None,
                        };
                        if let Some(event) = routed {
                            let _ = reader_events.send(event);
                        }
                    }
                    Some(IncomingText::Closed(reason)) => break reason,
                    None => break "the BiDi transport ended".to_owned(),
                }
            };
            lock(&reader_pending).close(BidiError::connection_closed(close_reason));
        }));
        Self {
            outgoing,
            pending,
            events,
            next_command_id: AtomicU64::new(1),
            tasks,
        }
    }

    /// Sends a command and waits for its result, at most [`DEFAULT_COMMAND_TIMEOUT`].
    pub async fn command(&self, method: &str, params: Value) -> Result<Value, BidiError> {
        self.command_with_timeout(method, params, DEFAULT_COMMAND_TIMEOUT)
            .await
    }

    /// Sends a command and waits for its result, at most `timeout`.
    pub async fn command_with_timeout(
        &self,
        method: &str,
        params: Value,
        timeout: Duration,
    ) -> Result<Value, BidiError> {
        self.command_telling_whether_sent(method, params, timeout)
            .await
            .map_err(CommandFailure::into_error)
    }

    /// Sends a command and waits for its result, at most `timeout`, and says of a failure
    /// whether it came before the command left this client (nothing reached the browser) or
    /// after (the browser may have acted on it). Input (`input.performActions`) needs the
    /// difference: input that may have reached the page must not be sent again.
    pub async fn command_telling_whether_sent(
        &self,
        method: &str,
        params: Value,
        timeout: Duration,
    ) -> Result<Value, CommandFailure> {
        let id = self.next_command_id.fetch_add(1, Ordering::Relaxed);
        let receiver = lock(&self.pending)
            .register(id)
            .map_err(CommandFailure::NotSent)?;
        let text = encode_command(id, method, params);
        if self.outgoing.send(OutgoingText::Message(text)).is_err() {
            lock(&self.pending).forget(id);
            return Err(CommandFailure::NotSent(BidiError::connection_closed(
                format!("cannot send {method}: the BiDi transport has ended"),
            )));
        }
        match tokio::time::timeout(timeout, receiver).await {
            Ok(Ok(result)) => result.map_err(CommandFailure::AfterSending),
            Ok(Err(_)) => Err(CommandFailure::AfterSending(BidiError::connection_closed(
                format!("the BiDi connection closed before {method} was answered"),
            ))),
            Err(_) => {
                lock(&self.pending).forget(id);
                Err(CommandFailure::AfterSending(BidiError::timeout(
                    method, timeout,
                )))
            }
        }
    }

    /// Events from now on. Subscribe before the command that causes them.
    pub fn subscribe_events(&self) -> broadcast::Receiver<BidiEvent> {
        self.events.subscribe()
    }

    /// Closes the transport politely (a WebSocket close frame) and returns once that is sent;
    /// the reader task then ends.
    pub async fn close(&self) {
        let (done, sent) = oneshot::channel();
        if self.outgoing.send(OutgoingText::Close(done)).is_ok() {
            let _ = sent.await;
        }
    }
}

impl Drop for BidiConnection {
    fn drop(&mut self) {
        for task in &self.tasks {
            task.abort();
        }
    }
}

/// Locks the pending table. A poisoned lock only means a panic elsewhere mid-update; the table
/// is still a valid map, so the guard is taken back rather than spreading the panic.
fn lock(pending: &Mutex<PendingCommands>) -> std::sync::MutexGuard<'_, PendingCommands> {
    pending
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bidi::protocol::BidiErrorKind;
    use serde_json::json;

    #[test]
    fn a_response_completes_the_command_with_the_same_id_only() {
        let mut pending = PendingCommands::default();
        let mut first = pending.register(1).expect("open table");
        let mut second = pending.register(2).expect("open table");
        assert_eq!(
            pending.route(BrowserToClient::Success {
                id: 2,
                result: json!({"n": 2})
            }),
            None
        );
        assert_eq!(second.try_recv().expect("answered"), Ok(json!({"n": 2})));
        assert!(first.try_recv().is_err(), "command 1 is still waiting");
        assert_eq!(pending.waiting_count(), 1);
        let error = BidiError::from_remote("no such frame", "gone");
        pending.route(BrowserToClient::Error {
            id: Some(1),
            error: error.clone(),
        });
        assert_eq!(first.try_recv().expect("answered"), Err(error));
        assert_eq!(pending.waiting_count(), 0);
    }

    #[test]
    fn late_responses_and_id_less_errors_are_dropped_and_events_pass_through() {
        let mut pending = PendingCommands::default();
        assert_eq!(
            pending.route(BrowserToClient::Success {
                id: 99,
                result: json!(null)
            }),
            None
        );
        assert_eq!(
            pending.route(BrowserToClient::Error {
                id: None,
                error: BidiError::protocol("x")
            }),
            None
        );
        let event = pending.route(BrowserToClient::Event {
            method: "a.b".into(),
            params: json!({}),
        });
        assert_eq!(
            event,
            Some(BidiEvent {
                method: "a.b".into(),
                params: json!({})
            })
        );
    }

    #[test]
    fn closing_fails_waiting_and_later_commands() {
        let mut pending = PendingCommands::default();
        let mut waiting = pending.register(1).expect("open table");
        pending.close(BidiError::connection_closed("gone"));
        let answered = waiting.try_recv().expect("answered");
        assert!(matches!(answered, Err(error) if error.kind == BidiErrorKind::ConnectionClosed));
        assert!(
            matches!(pending.register(2), Err(error) if error.kind == BidiErrorKind::ConnectionClosed)
        );
    }

    /// An in-process BiDi peer: answers each command with its id and method, out of order when
    /// asked, and sends one event first.
    async fn start_fake_remote_end() -> String {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let address = listener.local_addr().expect("address");
        tokio::spawn(async move {
            let Ok((stream, _)) = listener.accept().await else {
                return;
            };
            let Ok(mut socket) = tokio_tungstenite::accept_async(stream).await else {
                return;
            };
            let mut held_back: Option<Value> = None;
            while let Some(Ok(Message::Text(text))) = socket.next().await {
                let Ok(command) = serde_json::from_str::<Value>(text.as_str()) else {
                    continue;
                };
                let method = command["method"].as_str().unwrap_or_default().to_owned();
                let reply = match method.as_str() {
                    "test.fail" => {
                        json!({"type": "error", "id": command["id"], "error": "invalid argument", "message": "bad"})
                    }
                    "test.close" => break,
                    _ => {
                        json!({"type": "success", "id": command["id"], "result": {"method": method, "params": command["params"]}})
                    }
                };
                if method == "test.slow" {
                    held_back = Some(reply);
                    continue;
                }
                let _ = socket
                    .send(Message::text(
                        json!({"type": "event", "method": "test.event", "params": {}}).to_string(),
                    ))
                    .await;
                let _ = socket.send(Message::text(reply.to_string())).await;
                if let Some(slow) = held_back.take() {
                    let _ = socket.send(Message::text(slow.to_string())).await;
                }
            }
        });
        format!("ws://{address}")
    }

    #[tokio::test]
    async fn commands_are_correlated_over_a_real_websocket_even_out_of_order() {
        let url = start_fake_remote_end().await;
        let connection = BidiConnection::connect(&url).await.expect("connect");
        let mut events = connection.subscribe_events();
        let (slow, fast) = tokio::join!(
            connection.command("test.slow", json!({"which": "slow"})),
            async {
                // Give the slow command a head start so that its answer really comes second.
                tokio::time::sleep(Duration::from_millis(50)).await;
                connection
                    .command("test.fast", json!({"which": "fast"}))
                    .await
            }
        );
        assert_eq!(slow.expect("slow answered")["params"]["which"], "slow");
        assert_eq!(fast.expect("fast answered")["params"]["which"], "fast");
        assert_eq!(events.recv().await.expect("event").method, "test.event");
        let failed = connection.command("test.fail", Value::Null).await;
        assert!(matches!(failed, Err(error) if error.kind == BidiErrorKind::InvalidArgument));
    }

    #[tokio::test]
    async fn a_connection_over_a_stream_the_caller_opened_speaks_bidi() {
        let url = start_fake_remote_end().await;
        let address = url.trim_start_matches("ws://");
        let stream = TcpStream::connect(address).await.expect("tcp connect");
        let connection = BidiConnection::connect_over_stream(&url, stream)
            .await
            .expect("websocket handshake");
        let answer = connection
            .command("test.echo", json!({"n": 1}))
            .await
            .expect("answered");
        assert_eq!(answer["params"]["n"], 1);
        connection.close().await;
    }

    #[tokio::test]
    async fn a_closed_socket_fails_the_waiting_command_and_the_next_ones() {
        let url = start_fake_remote_end().await;
        let connection = BidiConnection::connect(&url).await.expect("connect");
        let closed = connection.command("test.close", Value::Null).await;
        assert!(matches!(closed, Err(error) if error.kind == BidiErrorKind::ConnectionClosed));
        let after = connection.command("test.echo", Value::Null).await;
        assert!(matches!(after, Err(error) if error.kind == BidiErrorKind::ConnectionClosed));
    }

    #[tokio::test]
    async fn a_command_without_an_answer_times_out() {
        let url = start_fake_remote_end().await;
        let connection = BidiConnection::connect(&url).await.expect("connect");
        let answer = connection
            .command_with_timeout("test.slow", Value::Null, Duration::from_millis(100))
            .await;
        assert!(matches!(answer, Err(error) if error.kind == BidiErrorKind::Timeout));
    }

    /// Input must not be sent again once it may have reached the page: a failure says whether
    /// the command had left this client (issue 27, item 5).
    #[tokio::test]
    async fn a_failure_says_whether_the_command_was_sent() {
        let url = start_fake_remote_end().await;
        let connection = BidiConnection::connect(&url).await.expect("connect");
        let timeout = Duration::from_millis(100);
        let slow = connection
            .command_telling_whether_sent("test.slow", Value::Null, timeout)
            .await;
        assert!(
            matches!(&slow, Err(CommandFailure::AfterSending(error)) if error.kind == BidiErrorKind::Timeout),
            "{slow:?}"
        );
        let refused = connection
            .command_telling_whether_sent("test.fail", Value::Null, timeout)
            .await;
        assert!(
            matches!(&refused, Err(CommandFailure::AfterSending(error)) if error.kind == BidiErrorKind::InvalidArgument),
            "{refused:?}"
        );
        let closed = connection
            .command_telling_whether_sent("test.close", Value::Null, timeout)
            .await;
        assert!(
            matches!(&closed, Err(CommandFailure::AfterSending(error)) if error.kind == BidiErrorKind::ConnectionClosed),
            "{closed:?}"
        );
        let after = connection
            .command_telling_whether_sent("test.echo", Value::Null, timeout)
            .await;
        assert!(
            matches!(&after, Err(CommandFailure::NotSent(error)) if error.kind == BidiErrorKind::ConnectionClosed),
            "{after:?}"
        );
    }
}
