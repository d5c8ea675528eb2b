//! The host's relay rules (docs/protocol/channels.md, sections 1 and 2), as a pure state machine: what
//! the host does with each message from the extension or from its socket client, which calls are
//! in flight and whose they are, and when a call is answered by the host itself (a deadline
//! passed, the extension restarted or left, too many calls). It does no I/O and reads no clock:
//! `host.rs` owns the pipes, sockets, tasks and timers and carries out the [`RelayAction`]s it
//! returns. No other dependency than the wire types and tool errors, so that the fuzz target
//! `host_relay` runs these rules as they are.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::tool_error::ToolError;
use crate::tools::ToolAccess;
use crate::wire::{
    ClientToHost, ExtensionToHost, HostToClient, HostToExtension, ToolResultMessage,
};

/// The most calls one client may have in flight; more are answered `too_many_calls` at once, so
/// a client that keeps sending without waiting cannot make the pending table or the queue to the
/// extension grow without bound.
pub const MAX_CALLS_IN_FLIGHT_PER_CLIENT: usize = 64;

/// The host answers a call this long before its client stops waiting, so the client always
/// hears the host's answer and never a late one (docs/protocol/host-safety.md, "Bounds and deadlines").
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

/// One line the client sent, as the relay reads it.
#[derive(Debug, Clone, PartialEq)]
pub enum ClientMessage {
    Known(ClientToHost),
    /// A line that is JSON but not a message we know; `id` is its `id` when that is a string, so
    /// that a call we cannot read is still answered.
    Malformed {
        id: Option<String>,
        reason: String,
    },
}

impl ClientMessage {
    /// Reads one JSON line from the client.
    pub fn from_line(value: Value) -> Self {
        let id = value.get("id").and_then(Value::as_str).map(str::to_owned);
        match serde_json::from_value::<ClientToHost>(value) {
            Ok(message) => Self::Known(message),
            Err(error) => Self::Malformed {
                id,
                reason: error.to_string(),
            },
        }
    }
}

/// What the host must do, in this order.
#[derive(Debug, Clone, PartialEq)]
pub enum RelayAction {
    ToExtension(HostToExtension),
    /// A message for the client of this generation (always the current one when the action is
    /// made; the host drops it if that client has left since).
    ToClient {
        generation: u64,
        message: HostToClient,
    },
    /// The client of this generation is gone: the host stops its reader and writer.
    EndClient {
        generation: u64,
    },
    /// A line for the host's log. Never a payload: message text may hold page text or secrets.
    Log(String),
}

struct ExtensionHello {
    browser: String,
    extension_version: String,
}

struct ConnectedClient {
    generation: u64,
    /// Whether the client announced a session; a connection that never did (a second host
    /// probing whether this one is alive) ends no session in the extension.
    announced: bool,
}

/// A call forwarded to the extension under the host's own id.
struct PendingCall {
    client_generation: u64,
    client_call_id: String,
    tool: String,
    /// When the host answers `timeout` itself if the extension has not answered.
    deadline: Instant,
}

/// The relay's whole state: who is connected and which calls are in flight.
#[derive(Default)]
pub struct Relay {
    hello: Option<ExtensionHello>,
    client: Option<ConnectedClient>,
    pending: HashMap<String, PendingCall>,
    next_host_call_id: u64,
    next_client_generation: u64,
}

impl Relay {
    pub fn new() -> Self {
        Self::default()
    }

    /// The generation of the connected client, if one is.
    pub fn current_generation(&self) -> Option<u64> {
        self.client.as_ref().map(|client| client.generation)
    }

    /// A new connection from the same user: `None` when a client is already connected (the new
    /// one is told `busy`), otherwise its generation and `ready` at once if the extension has
    /// already said hello.
    pub fn client_connected(&mut self) -> Option<(u64, Vec<RelayAction>)> {
        if self.client.is_some() {
            return None;
        }
        self.next_client_generation += 1;
        let generation = self.next_client_generation;
        self.client = Some(ConnectedClient {
            generation,
            announced: false,
        });
        let mut actions = vec![RelayAction::Log(format!("client {generation} connected"))];
        actions.extend(self.ready());
        Some((generation, actions))
    }

    fn ready(&self) -> Option<RelayAction> {
        let (Some(generation), Some(hello)) = (self.current_generation(), &self.hello) else {
            return None;
        };
        Some(RelayAction::ToClient {
            generation,
            message: HostToClient::Ready {
                browser: hello.browser.clone(),
                extension_version: hello.extension_version.clone(),
            },
        })
    }

    /// A message from the extension.
    pub fn on_extension_message(&mut self, message: ExtensionToHost) -> Vec<RelayAction> {
        match message {
            ExtensionToHost::Hello {
                browser,
                extension_version,
                protocol,
            } => {
                let mut actions = Vec::new();
                if self.hello.is_some() {
                    // The background restarted (a Chrome service worker wakes up again): the
                    // calls sent to the old one will never be answered.
                    actions.push(RelayAction::Log(format!(
                        "the extension said hello again; failing {} call(s) in flight",
                        self.pending.len()
                    )));
                    actions.extend(self.fail_pending_calls());
                }
                actions.push(RelayAction::Log(format!(
                    "extension hello: {browser} {extension_version} (protocol {})",
                    protocol.map_or("?".into(), |protocol| protocol.to_string())
                )));
                self.hello = Some(ExtensionHello {
                    browser,
                    extension_version,
                });
                actions.extend(self.ready());
                actions
            }
            ExtensionToHost::Result(result) => match self.pending.remove(&result.id) {
                Some(call) => {
                    let answer = ToolResultMessage {
                        id: call.client_call_id,
                        ..result
                    };
                    vec![RelayAction::ToClient {
                        generation: call.client_generation,
                        message: HostToClient::Result(answer),
                    }]
                }
                None => vec![RelayAction::Log(format!(
                    "dropping a result for call {:?}, whose client has left",
                    result.id
                ))],
            },
            ExtensionToHost::Access { access } => {
                // The person changed the tier in the side panel: the client lists tools for it.
                let mut actions = vec![RelayAction::Log(format!(
                    "the side panel set the tool access to {}",
                    access.describe()
                ))];
                if let Some(generation) = self.current_generation() {
                    actions.push(RelayAction::ToClient {
                        generation,
                        message: HostToClient::Access { access },
                    });
                }
                actions
            }
        }
    }

    /// A line from the client of `generation`, read at `now`. Lines from a client that has
    /// already left are dropped.
    pub fn on_client_message(
        &mut self,
        generation: u64,
        message: ClientMessage,
        now: Instant,
    ) -> Vec<RelayAction> {
        if self.current_generation() != Some(generation) {
            return Vec::new();
        }
        match message {
            ClientMessage::Known(ClientToHost::Call {
                id,
                tool,
                arguments,
                access,
                wait_ms,
            }) => self.forward_call(generation, id, tool, arguments, access, wait_ms, now),
            ClientMessage::Known(ClientToHost::Session {
                access,
                client,
                allow_file_urls,
                browser_bridge,
            }) => {
                if let Some(connected) = self.client.as_mut() {
                    connected.announced = true;
                }
                vec![
                    RelayAction::Log(format!(
                        "client {generation} starts a session: {} ({})",
                        access.describe(),
                        client.as_deref().unwrap_or("unnamed client")
                    )),
                    RelayAction::ToExtension(HostToExtension::Session {
                        access,
                        client,
                        allow_file_urls,
                        browser_bridge,
                    }),
                ]
            }
            ClientMessage::Malformed { id, reason } => {
                // The reason may quote the client's text, which the log never holds.
                let mut actions = vec![RelayAction::Log(format!(
                    "unreadable message from client {generation}"
                ))];
                if let Some(id) = id {
                    let answer = ToolResultMessage::from_outcome(
                        id,
                        Err(ToolError::invalid_arguments(format!(
                            "the host could not read this call: {reason}"
                        ))),
                    );
                    actions.push(RelayAction::ToClient {
                        generation,
                        message: HostToClient::Result(answer),
                    });
                }
                actions
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn forward_call(
        &mut self,
        generation: u64,
        id: String,
        tool: String,
        arguments: Value,
        access: Option<ToolAccess>,
        wait_ms: Option<u64>,
        now: Instant,
    ) -> Vec<RelayAction> {
        if self.pending.len() >= MAX_CALLS_IN_FLIGHT_PER_CLIENT {
            let answer = ToolResultMessage::from_outcome(
                id,
                Err(ToolError::too_many_calls(MAX_CALLS_IN_FLIGHT_PER_CLIENT)),
            );
            return vec![RelayAction::ToClient {
                generation,
                message: HostToClient::Result(answer),
            }];
        }
        self.next_host_call_id += 1;
        let host_call_id = format!("h{}", self.next_host_call_id);
        let (host_deadline, background_budget) = deadlines_for_client_wait(wait_ms);
        self.pending.insert(
            host_call_id.clone(),
            PendingCall {
                client_generation: generation,
                client_call_id: id,
                tool: tool.clone(),
                deadline: now + host_deadline,
            },
        );
        let budget_ms = Some(background_budget.as_millis() as u64);
        vec![RelayAction::ToExtension(HostToExtension::Call {
            id: host_call_id,
            tool,
            arguments,
            access,
            budget_ms,
        })]
    }

    /// The client of `generation` is gone (it closed, broke the protocol or stopped reading): its
    /// connection ends, its calls are forgotten (their results are dropped when they come), and
    /// the extension hears that its session ended.
    pub fn client_left(&mut self, generation: u64) -> Vec<RelayAction> {
        if self.current_generation() != Some(generation) {
            return Vec::new();
        }
        let mut actions = vec![RelayAction::EndClient { generation }];
        if self.client.take().is_some_and(|client| client.announced) {
            actions.push(RelayAction::ToExtension(HostToExtension::SessionEnded));
        }
        self.pending
            .retain(|_, call| call.client_generation != generation);
        actions
    }

    /// Answers the calls whose deadline passed by `now` with `timeout` (`outcome_unknown` for a
    /// tool that changes the page); their late results are dropped.
    pub fn fail_overdue_calls(&mut self, now: Instant) -> Vec<RelayAction> {
        let mut overdue: Vec<String> = self
            .pending
            .iter()
            .filter(|(_, call)| call.deadline <= now)
            .map(|(id, _)| id.clone())
            .collect();
        overdue.sort();
        let mut actions = Vec::new();
        for id in overdue {
            if let Some(call) = self.pending.remove(&id) {
                actions.push(RelayAction::Log(format!(
                    "call {id} ({}) passed its deadline; answering timeout",
                    call.tool
                )));
                let answer = ToolResultMessage::from_outcome(
                    call.client_call_id,
                    Err(ToolError::timeout(format!(
                        "{} got no answer from the browser in time",
                        call.tool
                    ))
                    .with_hint("The page may be very large or busy. For snapshots pass a larger timeoutMs, for trees a smaller maxChars or a ref_id.")
                    .for_call_of(&call.tool)),
                );
                actions.push(RelayAction::ToClient {
                    generation: call.client_generation,
                    message: HostToClient::Result(answer),
                });
            }
        }
        actions
    }

    /// Answers every call in flight with `extension_disconnected` (`outcome_unknown` for a tool
    /// that changes the page): a call is never silently lost.
    pub fn fail_pending_calls(&mut self) -> Vec<RelayAction> {
        let mut calls: Vec<(String, PendingCall)> =
            std::mem::take(&mut self.pending).into_iter().collect();
        calls.sort_by(|(first, _), (second, _)| first.cmp(second));
        calls
            .into_iter()
            .map(|(_, call)| RelayAction::ToClient {
                generation: call.client_generation,
                message: HostToClient::Result(ToolResultMessage::from_outcome(
                    call.client_call_id,
                    Err(ToolError::extension_disconnected().for_call_of(&call.tool)),
                )),
            })
            .collect()
    }
}
