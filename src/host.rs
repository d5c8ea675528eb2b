//! Native-host mode: the browser starts the binary for the extension's native port, and the host
//! relays tool calls between the extension (native messaging on stdin/stdout) and one client on
//! the local socket (docs/protocol/channels.md, sections 1 and 2).
//!
//! One task owns all the state (who is connected, which calls are in flight) and reacts to events
//! from small reader and writer tasks, so no lock guards the relay and every rule of the protocol
//! is a branch of one `select!`.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

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
use crate::relay::{ClientMessage, Relay, RelayAction};
use crate::socket_lines::{self, LineError, LineReader};
use crate::wire::{ExtensionToHost, HostToClient, HostToExtension};

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
    Message {
        generation: u64,
        message: ClientMessage,
    },
    Gone {
        generation: u64,
    },
}

/// The most bytes the host keeps queued for a client that has not read them yet: two of the
/// largest results the extension can send. A client that falls further behind (one that never
/// reads) is disconnected rather than back-pressured, because back-pressure would stall the one
/// relay task that also reads the browser's messages (docs/protocol/host-safety.md, "Bounds and deadlines").
pub const MAX_BYTES_QUEUED_FOR_CLIENT: usize = 2 * MAX_MESSAGE_FROM_EXTENSION_BYTES;

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

/// The relay's rules and the connections they act on.
struct HostState {
    relay: Relay,
    client: Option<ActiveClient>,
    to_extension: mpsc::UnboundedSender<HostToExtension>,
}

impl HostState {
    /// Carries out the relay's actions in order. A client that stopped reading (more than
    /// [`MAX_BYTES_QUEUED_FOR_CLIENT`] bytes wait for it) is disconnected, and what the relay
    /// does about that is carried out too.
    fn perform(&mut self, actions: Vec<RelayAction>) {
        let mut actions = VecDeque::from(actions);
        while let Some(action) = actions.pop_front() {
            match action {
                RelayAction::ToExtension(message) => {
                    let _ = self.to_extension.send(message);
                }
                RelayAction::ToClient {
                    generation,
                    message,
                } => {
                    if self.relay.current_generation() != Some(generation) {
                        continue;
                    }
                    let delivered = self.client.as_ref().is_some_and(|client| {
                        client.generation == generation && client.queue(&message)
                    });
                    if !delivered {
                        log!(
                            "client {generation} stopped reading: more than {MAX_BYTES_QUEUED_FOR_CLIENT} bytes wait for it; disconnecting it"
                        );
                        actions.extend(self.relay.client_left(generation));
                    }
                }
                RelayAction::EndClient { generation } => {
                    if self
                        .client
                        .as_ref()
                        .is_some_and(|client| client.generation == generation)
                    {
                        if let Some(client) = self.client.take() {
                            client.writer_task.abort();
                            client.reader_task.abort();
                        }
                    }
                }
                RelayAction::Log(line) => log!("{line}"),
            }
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
    let mut state = HostState {
        relay: Relay::new(),
        client: None,
        to_extension: to_extension.clone(),
    };
    let mut deadline_sweep = tokio::time::interval(Duration::from_millis(250));
    deadline_sweep.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);

    let outcome: Result<(), String> = loop {
        tokio::select! {
            event = extension_events.recv() => match event {
                Some(ExtensionEvent::Message(message)) => {
                    let actions = state.relay.on_extension_message(message);
                    state.perform(actions);
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
            Some(event) = client_events.recv() => {
                let actions = match event {
                    ClientEvent::Message { generation, message } => {
                        state.relay.on_client_message(generation, message, Instant::now())
                    }
                    ClientEvent::Gone { generation } => {
                        if state.relay.current_generation() == Some(generation) {
                            log!("client {generation} left");
                        }
                        state.relay.client_left(generation)
                    }
                };
                state.perform(actions);
            }
            written = &mut extension_writer_task => {
                let reason = match written {
                    Ok(Ok(())) => "the writer stopped".to_owned(),
                    Ok(Err(error)) => error.to_string(),
                    Err(error) => error.to_string(),
                };
                break Err(format!("cannot write to the browser: {reason}"));
            }
            _ = deadline_sweep.tick() => {
                let actions = state.relay.fail_overdue_calls(Instant::now());
                state.perform(actions);
            }
            _ = terminate.recv() => { log!("SIGTERM"); break Ok(()); }
            _ = interrupt.recv() => { log!("SIGINT"); break Ok(()); }
        }
    };

    // The socket file goes first: a host the browser starts next must find the path free (a
    // second host never replaces a live socket), while the connected client keeps its stream.
    drop(socket);
    let actions = state.relay.fail_pending_calls();
    state.perform(actions);
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
fn accept_client(state: &mut HostState, stream: UnixStream, events: &mpsc::Sender<ClientEvent>) {
    if !local_socket::peer_is_same_user(&stream) {
        log!("refused a connection from another user");
        return;
    }
    let Some((generation, actions)) = state.relay.client_connected() else {
        log!("refused a second client: busy");
        tokio::spawn(async move {
            let mut stream = stream;
            let busy = HostToClient::Busy {
                message: "another agent is connected to this browser's allwright host; only one client at a time".into(),
            };
            let _ = socket_lines::write_line(&mut stream, &busy).await;
        });
        return;
    };
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
                Ok(Some(value)) => ClientEvent::Message {
                    generation,
                    message: ClientMessage::from_line(value),
                },
                Ok(None) | Err(LineError::Io(_) | LineError::TooLong) => {
                    let _ = events.send(ClientEvent::Gone { generation }).await;
                    return;
                }
                Err(LineError::Unreadable { reason, .. }) => ClientEvent::Message {
                    generation,
                    message: ClientMessage::Malformed { id: None, reason },
                },
            };
            if events.send(event).await.is_err() {
                return;
            }
        }
    });
    state.client = Some(ActiveClient {
        generation,
        sender,
        queued_bytes,
        writer_task,
        reader_task,
    });
    state.perform(actions);
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
