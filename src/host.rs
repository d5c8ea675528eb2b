//! Native-host mode: the browser starts the binary for the extension's native port, and the host
//! relays tool calls between the extension (native messaging on stdin/stdout) and one client on
//! the local socket (docs/protocol.md, sections 1 and 2).
//!
//! One task owns all the state (who is connected, which calls are in flight) and reacts to events
//! from small reader and writer tasks, so no lock guards the relay and every rule of the protocol
//! is a branch of one `select!`.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use tokio::net::UnixStream;
use tokio::signal::unix::{signal, SignalKind};
use tokio::sync::mpsc;

use crate::local_socket::{self, PrivateSocket};
use crate::log;
use crate::native_messaging::{
    NativeMessageReader, NativeMessageWriter, NativeMessagingError,
    MAX_MESSAGE_FROM_EXTENSION_BYTES,
};
use crate::socket_lines::{self, LineError, LineReader};
use crate::tool_error::ToolError;
use crate::tools::ToolAccess;
use crate::wire::{
    ClientToHost, ExtensionToHost, HostToClient, HostToExtension, ToolResultMessage,
};

/// Who started the host, as recognised from the browser's arguments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HostInvocation {
    /// Chrome/Chromium: argv `[path, "chrome-extension://<id>/", ...]`.
    Chrome { origin: String },
    /// Firefox: argv `[path, <manifest path>, <gecko id>]`.
    Firefox {
        manifest_path: String,
        extension_id: String,
    },
}

impl HostInvocation {
    /// Recognises the browser's argv (without the program name). Anything else is a command line
    /// for the CLI.
    pub fn from_arguments(arguments: &[String]) -> Option<Self> {
        let first = arguments.first()?;
        if first.starts_with("chrome-extension://") {
            return Some(Self::Chrome {
                origin: first.clone(),
            });
        }
        let second = arguments.get(1)?;
        let looks_like_manifest =
            first.ends_with(".json") && std::path::Path::new(first).is_absolute();
        if looks_like_manifest && !second.starts_with('-') {
            return Some(Self::Firefox {
                manifest_path: first.clone(),
                extension_id: second.clone(),
            });
        }
        None
    }

    fn caller(&self) -> String {
        match self {
            Self::Chrome { origin } => origin.clone(),
            Self::Firefox { extension_id, .. } => extension_id.clone(),
        }
    }
}

/// What the reader of stdin reports.
enum ExtensionEvent {
    Message(ExtensionToHost),
    /// Clean end of stream (`Ok`) or a broken one.
    Ended(Result<(), NativeMessagingError>),
}

/// What a client connection's reader reports. `generation` tells the current client from one
/// that has already left.
enum ClientEvent {
    Call {
        generation: u64,
        id: String,
        tool: String,
        arguments: Value,
        access: Option<ToolAccess>,
        wait_ms: Option<u64>,
    },
    Session {
        generation: u64,
        access: ToolAccess,
        client: Option<String>,
        allow_file_urls: bool,
    },
    Malformed {
        generation: u64,
        id: Option<String>,
        reason: String,
    },
    Gone {
        generation: u64,
    },
}

/// The most bytes the host keeps queued for a client that has not read them yet: two of the
/// largest results the extension can send. A client that falls further behind (one that never
/// reads) is disconnected rather than back-pressured, because back-pressure would stall the one
/// relay task that also reads the browser's messages (docs/protocol.md, "Bounds and deadlines").
pub const MAX_BYTES_QUEUED_FOR_CLIENT: usize = 2 * MAX_MESSAGE_FROM_EXTENSION_BYTES;

/// The most calls one client may have in flight; more are answered `too_many_calls` at once, so
/// a client that keeps sending without waiting cannot make the pending table or the queue to the
/// extension grow without bound.
pub const MAX_CALLS_IN_FLIGHT_PER_CLIENT: usize = 64;

/// How many read messages a client's reader may have waiting for the relay: once full, the reader
/// stops reading the socket, and the client's own writes block (back-pressure on calls).
const CLIENT_EVENT_QUEUE: usize = 64;

struct ActiveClient {
    generation: u64,
    sender: mpsc::UnboundedSender<Vec<u8>>,
    /// Bytes handed to the writer and not yet written to the socket.
    queued_bytes: Arc<AtomicUsize>,
    writer_task: tokio::task::JoinHandle<()>,
    reader_task: tokio::task::JoinHandle<()>,
    /// Whether the client announced a session; a connection that never did (a second host
    /// probing whether this one is alive) ends no session in the extension.
    announced: bool,
}

impl ActiveClient {
    /// Queues one line for the client; `false` when the client is too far behind.
    fn queue(&self, message: &HostToClient) -> bool {
        let mut line = match serde_json::to_vec(message) {
            Ok(line) => line,
            Err(error) => {
                log!("cannot write a message for the client: {error}");
                return true;
            }
        };
        line.push(b'\n');
        let size = line.len();
        let queued = self.queued_bytes.fetch_add(size, Ordering::SeqCst) + size;
        if queued > MAX_BYTES_QUEUED_FOR_CLIENT {
            return false;
        }
        let _ = self.sender.send(line);
        true
    }
}

/// A call forwarded to the extension under the host's own id.
struct PendingCall {
    client_generation: u64,
    client_call_id: String,
    tool: String,
    /// When the host answers `timeout` itself if the extension has not answered.
    deadline: tokio::time::Instant,
}

/// The host answers a call this long before its client stops waiting, so the client always
/// hears the host's answer and never a late one (docs/protocol.md, "Bounds and deadlines").
pub const HOST_MARGIN: Duration = Duration::from_secs(2);
/// The background answers this long before the host's deadline.
pub const BACKGROUND_MARGIN: Duration = Duration::from_secs(2);
/// The wait assumed for a client that does not say how long it waits (`waitMs`): the MCP
/// server's wait for tools without a budget of their own.
const DEFAULT_CLIENT_WAIT: Duration = Duration::from_secs(60);
/// The longest wait a client may ask for: the longest `timeoutMs` (120 s) plus room.
const LONGEST_CLIENT_WAIT: Duration = Duration::from_secs(10 * 60);
/// The shortest deadline the host and the background get, whatever the client's wait.
const SHORTEST_DEADLINE: Duration = Duration::from_secs(1);

/// The host's and the background's deadlines for a client that waits `wait_ms`.
pub fn deadlines_for_client_wait(wait_ms: Option<u64>) -> (Duration, Duration) {
    let wait = wait_ms
        .map(Duration::from_millis)
        .unwrap_or(DEFAULT_CLIENT_WAIT)
        .min(LONGEST_CLIENT_WAIT);
    let host = wait.saturating_sub(HOST_MARGIN).max(SHORTEST_DEADLINE);
    let background = host
        .saturating_sub(BACKGROUND_MARGIN)
        .max(SHORTEST_DEADLINE);
    (host, background)
}

struct ExtensionHello {
    browser: String,
    extension_version: String,
}

struct RelayState {
    hello: Option<ExtensionHello>,
    client: Option<ActiveClient>,
    pending: HashMap<String, PendingCall>,
    next_host_call_id: u64,
    next_client_generation: u64,
    to_extension: mpsc::UnboundedSender<HostToExtension>,
}

impl RelayState {
    fn new(to_extension: mpsc::UnboundedSender<HostToExtension>) -> Self {
        Self {
            hello: None,
            client: None,
            pending: HashMap::new(),
            next_host_call_id: 0,
            next_client_generation: 0,
            to_extension,
        }
    }

    fn current_generation(&self) -> Option<u64> {
        self.client.as_ref().map(|client| client.generation)
    }

    fn send_to_client(&mut self, generation: u64, message: HostToClient) {
        if self.current_generation() != Some(generation) {
            return;
        }
        let delivered = self
            .client
            .as_ref()
            .is_some_and(|client| client.queue(&message));
        if !delivered {
            log!(
                "client {generation} stopped reading: more than {MAX_BYTES_QUEUED_FOR_CLIENT} bytes wait for it; disconnecting it"
            );
            self.client_left(generation);
        }
    }

    fn send_ready(&mut self) {
        let (Some(generation), Some(hello)) = (self.current_generation(), &self.hello) else {
            return;
        };
        let ready = HostToClient::Ready {
            browser: hello.browser.clone(),
            extension_version: hello.extension_version.clone(),
        };
        self.send_to_client(generation, ready);
    }

    /// The current client is gone (it closed, broke the protocol or stopped reading): its tasks
    /// stop, its calls are forgotten (their results are dropped when they come), and the
    /// extension hears that its session ended.
    fn client_left(&mut self, generation: u64) {
        if self.current_generation() != Some(generation) {
            return;
        }
        if let Some(client) = self.client.take() {
            client.writer_task.abort();
            client.reader_task.abort();
            if client.announced {
                let _ = self.to_extension.send(HostToExtension::SessionEnded);
            }
        }
        self.pending
            .retain(|_, call| call.client_generation != generation);
    }

    /// Answers the calls whose deadline passed with `timeout` (`outcome_unknown` for a tool that
    /// changes the page); their late results are dropped.
    fn fail_overdue_calls(&mut self) {
        let now = tokio::time::Instant::now();
        let overdue: Vec<String> = self
            .pending
            .iter()
            .filter(|(_, call)| call.deadline <= now)
            .map(|(id, _)| id.clone())
            .collect();
        for id in overdue {
            if let Some(call) = self.pending.remove(&id) {
                log!(
                    "call {id} ({}) passed its deadline; answering timeout",
                    call.tool
                );
                let answer = ToolResultMessage::from_outcome(
                    call.client_call_id,
                    Err(ToolError::timeout(format!(
                        "{} got no answer from the browser in time",
                        call.tool
                    ))
                    .with_hint("The page may be very large or busy. For snapshots pass a larger timeoutMs, for trees a smaller maxChars or a ref_id.")
                    .for_call_of(&call.tool)),
                );
                self.send_to_client(call.client_generation, HostToClient::Result(answer));
            }
        }
    }

    /// Answers every call in flight with `extension_disconnected` (`outcome_unknown` for a tool
    /// that changes the page): a call is never silently lost.
    fn fail_pending_calls(&mut self) {
        for (_, call) in std::mem::take(&mut self.pending) {
            let answer = ToolResultMessage::from_outcome(
                call.client_call_id,
                Err(ToolError::extension_disconnected().for_call_of(&call.tool)),
            );
            self.send_to_client(call.client_generation, HostToClient::Result(answer));
        }
    }
}

pub async fn run(invocation: HostInvocation) -> Result<(), String> {
    log!("started by {} (protocol 1)", invocation.caller());
    if let (HostInvocation::Chrome { origin }, Ok(identity)) = (
        &invocation,
        crate::identity::ExtensionIdentity::compiled_in(),
    ) {
        if *origin != identity.chrome_origin() {
            log!(
                "warning: started by {origin}, not by allwright's extension {}",
                identity.chrome_origin()
            );
        }
    }
    let socket_path = local_socket::default_socket_path();
    let socket = PrivateSocket::bind(&socket_path).map_err(|refusal| {
        log!("not starting: {refusal}");
        refusal.to_string()
    })?;
    log!("listening on {}", socket.path().display());

    let (extension_event_sender, mut extension_events) = mpsc::channel::<ExtensionEvent>(64);
    let reader_task = tokio::spawn(async move {
        let mut reader = NativeMessageReader::new(tokio::io::stdin());
        loop {
            let event = match reader.read_message().await {
                Ok(Some(Ok(message))) => ExtensionEvent::Message(message),
                Ok(Some(Err(unreadable))) => {
                    log!(
                        "ignoring a message from the extension: {}",
                        unreadable.reason
                    );
                    continue;
                }
                Ok(None) => ExtensionEvent::Ended(Ok(())),
                Err(error) => ExtensionEvent::Ended(Err(error)),
            };
            let ended = matches!(event, ExtensionEvent::Ended(_));
            if extension_event_sender.send(event).await.is_err() || ended {
                return;
            }
        }
    });
    let (to_extension, mut outgoing_to_extension) = mpsc::unbounded_channel::<HostToExtension>();
    let mut extension_writer_task = tokio::spawn(async move {
        let mut writer = NativeMessageWriter::new(tokio::io::stdout());
        while let Some(message) = outgoing_to_extension.recv().await {
            writer.write_message(&message).await?;
        }
        Ok::<(), NativeMessagingError>(())
    });

    let (client_event_sender, mut client_events) = mpsc::channel::<ClientEvent>(CLIENT_EVENT_QUEUE);
    let mut terminate = signal(SignalKind::terminate()).map_err(|error| error.to_string())?;
    let mut interrupt = signal(SignalKind::interrupt()).map_err(|error| error.to_string())?;
    let mut state = RelayState::new(to_extension.clone());
    let mut deadline_sweep = tokio::time::interval(Duration::from_millis(250));
    deadline_sweep.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);

    let outcome: Result<(), String> = loop {
        tokio::select! {
            event = extension_events.recv() => match event {
                Some(ExtensionEvent::Message(ExtensionToHost::Hello { browser, extension_version, protocol })) => {
                    if state.hello.is_some() {
                        // The background restarted (a Chrome service worker wakes up again): the
                        // calls sent to the old one will never be answered.
                        log!("the extension said hello again; failing {} call(s) in flight", state.pending.len());
                        state.fail_pending_calls();
                    }
                    log!("extension hello: {browser} {extension_version} (protocol {})", protocol.map_or("?".into(), |p| p.to_string()));
                    state.hello = Some(ExtensionHello { browser, extension_version });
                    state.send_ready();
                }
                Some(ExtensionEvent::Message(ExtensionToHost::Result(result))) => match state.pending.remove(&result.id) {
                    Some(call) => {
                        let answer = ToolResultMessage { id: call.client_call_id, ..result };
                        state.send_to_client(call.client_generation, HostToClient::Result(answer));
                    }
                    None => log!("dropping a result for call {:?}, whose client has left", result.id),
                },
                Some(ExtensionEvent::Message(ExtensionToHost::Access { access })) => {
                    // The person changed the tier in the side panel: the client lists tools for it.
                    log!("the side panel set the tool access to {}", access.describe());
                    if let Some(generation) = state.current_generation() {
                        state.send_to_client(generation, HostToClient::Access { access });
                    }
                }
                Some(ExtensionEvent::Ended(Ok(()))) | None => {
                    log!("the extension closed the native port");
                    break Ok(());
                }
                Some(ExtensionEvent::Ended(Err(error))) => break Err(error.to_string()),
            },
            accepted = socket.listener.accept() => match accepted {
                Ok((stream, _)) => accept_client(&mut state, stream, &client_event_sender),
                Err(error) => log!("accept failed: {error}"),
            },
            Some(event) = client_events.recv() => match event {
                ClientEvent::Call { generation, id, tool, arguments, access, wait_ms } => {
                    if state.current_generation() != Some(generation) {
                        continue;
                    }
                    if state.pending.len() >= MAX_CALLS_IN_FLIGHT_PER_CLIENT {
                        let answer = ToolResultMessage::from_outcome(id, Err(ToolError::too_many_calls(MAX_CALLS_IN_FLIGHT_PER_CLIENT)));
                        state.send_to_client(generation, HostToClient::Result(answer));
                        continue;
                    }
                    state.next_host_call_id += 1;
                    let host_call_id = format!("h{}", state.next_host_call_id);
                    let (host_deadline, background_budget) = deadlines_for_client_wait(wait_ms);
                    state.pending.insert(host_call_id.clone(), PendingCall {
                        client_generation: generation,
                        client_call_id: id,
                        tool: tool.clone(),
                        deadline: tokio::time::Instant::now() + host_deadline,
                    });
                    let budget_ms = Some(background_budget.as_millis() as u64);
                    let _ = to_extension.send(HostToExtension::Call { id: host_call_id, tool, arguments, access, budget_ms });
                }
                ClientEvent::Session { generation, access, client, allow_file_urls } => {
                    if state.current_generation() != Some(generation) {
                        continue;
                    }
                    if let Some(active) = state.client.as_mut() {
                        active.announced = true;
                    }
                    log!("client {generation} starts a session: {} ({})", access.describe(), client.as_deref().unwrap_or("unnamed client"));
                    let _ = to_extension.send(HostToExtension::Session { access, client, allow_file_urls });
                }
                ClientEvent::Malformed { generation, id, reason } => {
                    // The reason may quote the client's text, which the log never holds.
                    log!("unreadable message from client {generation}");
                    if let Some(id) = id {
                        let answer = ToolResultMessage::from_outcome(id, Err(ToolError::invalid_arguments(format!("the host could not read this call: {reason}"))));
                        state.send_to_client(generation, HostToClient::Result(answer));
                    }
                }
                ClientEvent::Gone { generation } => {
                    if state.current_generation() == Some(generation) {
                        log!("client {generation} left");
                        state.client_left(generation);
                    }
                }
            },
            written = &mut extension_writer_task => {
                let reason = match written {
                    Ok(Ok(())) => "the writer stopped".to_owned(),
                    Ok(Err(error)) => error.to_string(),
                    Err(error) => error.to_string(),
                };
                break Err(format!("cannot write to the browser: {reason}"));
            }
            _ = deadline_sweep.tick() => state.fail_overdue_calls(),
            _ = terminate.recv() => { log!("SIGTERM"); break Ok(()); }
            _ = interrupt.recv() => { log!("SIGINT"); break Ok(()); }
        }
    };

    // The socket file goes first: a host the browser starts next must find the path free (a
    // second host never replaces a live socket), while the connected client keeps its stream.
    drop(socket);
    state.fail_pending_calls();
    if let Some(client) = state.client.take() {
        drop(client.sender);
        client.reader_task.abort();
        // Let the writer deliver the last answers before the process exits.
        let _ = tokio::time::timeout(Duration::from_secs(2), client.writer_task).await;
    }
    reader_task.abort();
    match &outcome {
        Ok(()) => log!("exiting"),
        Err(error) => log!("exiting after an error: {error}"),
    }
    outcome
}

/// Takes a new connection: another user's is dropped, a second client is told `busy`, the first
/// one becomes the client and gets `ready` at once if the extension has already said hello.
fn accept_client(state: &mut RelayState, stream: UnixStream, events: &mpsc::Sender<ClientEvent>) {
    if !local_socket::peer_is_same_user(&stream) {
        log!("refused a connection from another user");
        return;
    }
    if state.client.is_some() {
        log!("refused a second client: busy");
        tokio::spawn(async move {
            let mut stream = stream;
            let busy = HostToClient::Busy {
                message: "another agent is connected to this browser's allwright host; only one client at a time".into(),
            };
            let _ = socket_lines::write_line(&mut stream, &busy).await;
        });
        return;
    }
    state.next_client_generation += 1;
    let generation = state.next_client_generation;
    let (read_half, mut write_half) = stream.into_split();
    let (sender, mut outgoing) = mpsc::unbounded_channel::<Vec<u8>>();
    let queued_bytes = Arc::new(AtomicUsize::new(0));
    let writer_queued_bytes = Arc::clone(&queued_bytes);
    let writer_task = tokio::spawn(async move {
        use tokio::io::AsyncWriteExt;
        while let Some(line) = outgoing.recv().await {
            let written = write_half.write_all(&line).await;
            writer_queued_bytes.fetch_sub(line.len(), Ordering::SeqCst);
            if written.is_err() || write_half.flush().await.is_err() {
                return;
            }
        }
    });
    let events = events.clone();
    let reader_task = tokio::spawn(async move {
        let mut reader = LineReader::new(read_half);
        loop {
            let event = match reader.read_message::<Value>().await {
                Ok(Some(value)) => {
                    let id = value.get("id").and_then(Value::as_str).map(str::to_owned);
                    match serde_json::from_value::<ClientToHost>(value) {
                        Ok(ClientToHost::Call {
                            id,
                            tool,
                            arguments,
                            access,
                            wait_ms,
                        }) => ClientEvent::Call {
                            generation,
                            id,
                            tool,
                            arguments,
                            access,
                            wait_ms,
                        },
                        Ok(ClientToHost::Session {
                            access,
                            client,
                            allow_file_urls,
                        }) => ClientEvent::Session {
                            generation,
                            access,
                            client,
                            allow_file_urls,
                        },
                        Err(error) => ClientEvent::Malformed {
                            generation,
                            id,
                            reason: error.to_string(),
                        },
                    }
                }
                Ok(None) | Err(LineError::Io(_) | LineError::TooLong) => {
                    let _ = events.send(ClientEvent::Gone { generation }).await;
                    return;
                }
                Err(LineError::Unreadable { reason, .. }) => ClientEvent::Malformed {
                    generation,
                    id: None,
                    reason,
                },
            };
            if events.send(event).await.is_err() {
                return;
            }
        }
    });
    log!("client {generation} connected");
    state.client = Some(ActiveClient {
        generation,
        sender,
        queued_bytes,
        writer_task,
        reader_task,
        announced: false,
    });
    state.send_ready();
}

#[cfg(test)]
mod tests {
    use super::*;

    fn arguments(list: &[&str]) -> Vec<String> {
        list.iter().map(|argument| argument.to_string()).collect()
    }

    #[test]
    fn browser_invocations_are_recognised() {
        assert_eq!(
            HostInvocation::from_arguments(&arguments(&[
                "chrome-extension://abc/",
                "--parent-window=0"
            ])),
            Some(HostInvocation::Chrome {
                origin: "chrome-extension://abc/".into()
            })
        );
        assert_eq!(
            HostInvocation::from_arguments(&arguments(&[
                "/home/u/.mozilla/native-messaging-hosts/dev.allwright.host.json",
                "allwright@allwright.dev"
            ])),
            Some(HostInvocation::Firefox {
                manifest_path: "/home/u/.mozilla/native-messaging-hosts/dev.allwright.host.json"
                    .into(),
                extension_id: "allwright@allwright.dev".into()
            })
        );
        for command_line in [
            &["mcp"][..],
            &["snapshot", "page.json", "x"],
            &["install"],
            &[],
        ] {
            assert_eq!(
                HostInvocation::from_arguments(&arguments(command_line)),
                None,
                "{command_line:?}"
            );
        }
    }
}
