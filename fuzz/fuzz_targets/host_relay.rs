//! The host's relay rules (src/relay.rs), compiled as they are with the wire types, on arbitrary
//! sequences of events: clients connecting, sending calls, sessions and unreadable lines (some
//! from a client that has already left), leaving or ceasing to read; the extension saying hello
//! (again), answering calls (known, unknown, late or twice) and changing the access; time
//! passing. A model of who is owed what checks every action the relay returns:
//! - a message goes to the side it belongs to: a client hears only answers to its own calls (by
//!   its own id, each at most once per call it made with that id, with the extension's outcome
//!   unchanged), its `ready` and access changes, never another client's; the extension hears only
//!   the current client's calls (under fresh host ids, tool and arguments unchanged), sessions,
//!   and the end of an announced session;
//! - nothing is unbounded: no more than 64 calls in flight, and no forwarded message is more than
//!   a fixed size larger than what caused it;
//! - nothing is lost: when the host ends, every call of the connected client has been answered.

#![no_main]

use std::collections::{HashMap, HashSet};
use std::time::{Duration, Instant};

use arbitrary::{Arbitrary, Result as ArbitraryResult, Unstructured};
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

#[path = "../../src/wire.rs"]
#[allow(dead_code)]
mod wire;

#[path = "../../src/tool_error.rs"]
#[allow(dead_code)]
mod tool_error;

#[path = "../../src/tools"]
#[allow(dead_code)]
mod tools {
    mod definition;
    mod table;
    mod tiers;
    pub use tiers::{tool_named, Tier, ToolAccess};
}

#[path = "../../src/relay.rs"]
#[allow(dead_code)]
mod relay;

#[path = "common/arbitrary_json.rs"]
mod arbitrary_json;

#[path = "common/arbitrary_wire.rs"]
#[allow(dead_code)]
mod arbitrary_wire;

use relay::{
    deadlines_for_client_wait, ClientMessage, Relay, RelayAction, MAX_CALLS_IN_FLIGHT_PER_CLIENT,
};
use wire::{ClientToHost, ExtensionToHost, HostToClient, HostToExtension, ToolResultMessage};

/// What the host adds to a message it forwards or answers itself: the fixed texts of its own
/// errors (a timeout's hint, `outcome_unknown`'s), the JSON around them, a host id.
const FIXED_OVERHEAD_BYTES: usize = 2048;

#[derive(Debug)]
enum Step {
    Connect,
    /// A line from the current client, or from the one before it when `from_older`.
    ClientLine {
        from_older: bool,
        line: Value,
    },
    ClientLeaves {
        older: bool,
    },
    /// The next answer to the client is not delivered: it stopped reading.
    ClientStopsReading,
    Extension(Value),
    /// The extension answers the `index`-th call the host sent it (any number of times).
    ExtensionAnswers {
        index: u8,
        result: ToolResultMessage,
    },
    Pass {
        milliseconds: u32,
    },
}

impl<'a> Arbitrary<'a> for Step {
    fn arbitrary(input: &mut Unstructured<'a>) -> ArbitraryResult<Self> {
        Ok(match input.int_in_range(0..=7)? {
            0 => Self::Connect,
            1 | 2 => Self::ClientLine {
                from_older: input.ratio(1, 8)?,
                line: if input.ratio(1, 8)? {
                    arbitrary_json::arbitrary_value(input)?
                } else {
                    serde_json::to_value(arbitrary_wire::arbitrary_client_to_host(input)?)
                        .expect("a message is JSON")
                },
            },
            3 => Self::ClientLeaves {
                older: input.arbitrary()?,
            },
            4 => Self::ClientStopsReading,
            5 => Self::Extension(arbitrary_wire::arbitrary_extension_to_host_json(input)?),
            6 => Self::ExtensionAnswers {
                index: input.arbitrary()?,
                result: arbitrary_wire::arbitrary_result(input)?,
            },
            _ => Self::Pass {
                milliseconds: input.arbitrary()?,
            },
        })
    }
}

#[derive(Arbitrary, Debug)]
struct Input {
    steps: Vec<Step>,
}

/// A call the host sent to the extension, as the model keeps it.
struct SentCall {
    generation: u64,
    client_call_id: String,
    tool: String,
    deadline: Instant,
    /// Answered: by the extension's result, by the host itself, or forgotten with its client.
    settled: bool,
}

struct Model {
    /// The time the relay is told it is.
    now: Instant,
    /// Answers owed to each client, by its own call id: one per call or unreadable line it sent
    /// with that id.
    owed: HashMap<(u64, String), usize>,
    /// Every call the host sent to the extension, by host id, and the host ids in order.
    sent: HashMap<String, SentCall>,
    sent_order: Vec<String>,
    announced: HashSet<u64>,
    hello_seen: bool,
    client_stops_reading: bool,
}

impl Model {
    fn new(now: Instant) -> Self {
        Self {
            now,
            owed: HashMap::new(),
            sent: HashMap::new(),
            sent_order: Vec::new(),
            announced: HashSet::new(),
            hello_seen: false,
            client_stops_reading: false,
        }
    }

    fn in_flight(&self, generation: u64) -> usize {
        self.sent
            .values()
            .filter(|call| call.generation == generation && !call.settled)
            .count()
    }

    /// The longest text a host-made answer may quote: a client's call id and tool name.
    fn longest_quoted_bytes(&self) -> usize {
        let sent = self
            .sent
            .values()
            .map(|call| call.client_call_id.len() + call.tool.len());
        let owed = self.owed.keys().map(|(_, id)| id.len());
        sent.chain(owed).max().unwrap_or(0)
    }

    /// Settles the unsettled calls `which` picks and returns their client ids (sorted), which
    /// the host must answer itself.
    fn settle(&mut self, which: impl Fn(&SentCall) -> bool) -> Vec<String> {
        let mut ids: Vec<String> = self
            .sent
            .values_mut()
            .filter(|call| !call.settled && which(call))
            .map(|call| {
                call.settled = true;
                call.client_call_id.clone()
            })
            .collect();
        ids.sort();
        ids
    }
}

#[derive(Debug)]
enum Cause {
    Connect,
    Client {
        generation: u64,
        message: ClientMessage,
    },
    ClientLeft,
    Extension(ExtensionToHost),
    TimePassed,
    HostEnds,
}

fuzz_target!(|input: Input| {
    let mut now = Instant::now();
    let mut relay = Relay::new();
    let mut model = Model::new(now);
    let mut previous_generation: Option<u64> = None;
    for step in input.steps {
        let current = relay.current_generation();
        match step {
            Step::Connect => {
                let Some((generation, actions)) = relay.client_connected() else {
                    assert!(current.is_some(), "busy with no client connected");
                    continue;
                };
                assert!(current.is_none() && Some(generation) > previous_generation);
                previous_generation = Some(generation);
                let expected = ExpectedAnswers::none();
                check(
                    &mut relay,
                    &mut model,
                    Some(generation),
                    actions,
                    Cause::Connect,
                    0,
                    expected,
                );
            }
            Step::ClientLine { from_older, line } => {
                let Some(current) = current else { continue };
                let generation = if from_older { current - 1 } else { current };
                let size = line.to_string().len();
                let message = ClientMessage::from_line(line);
                let actions = relay.on_client_message(generation, message.clone(), now);
                if generation != current {
                    assert!(
                        actions.is_empty(),
                        "a client that left was heard: {actions:?}"
                    );
                    continue;
                }
                let mut expected = ExpectedAnswers::none();
                match &message {
                    ClientMessage::Known(ClientToHost::Call { id, .. }) => {
                        *model.owed.entry((generation, id.clone())).or_default() += 1;
                        if model.in_flight(generation) >= MAX_CALLS_IN_FLIGHT_PER_CLIENT {
                            expected =
                                ExpectedAnswers::by_host(vec![id.clone()], Some("too_many_calls"));
                        }
                    }
                    ClientMessage::Malformed { id: Some(id), .. } => {
                        *model.owed.entry((generation, id.clone())).or_default() += 1;
                        expected =
                            ExpectedAnswers::by_host(vec![id.clone()], Some("invalid_arguments"));
                    }
                    ClientMessage::Known(ClientToHost::Session { .. }) => {
                        model.announced.insert(generation);
                    }
                    ClientMessage::Malformed { id: None, .. } => {}
                }
                let cause = Cause::Client {
                    generation,
                    message,
                };
                check(
                    &mut relay,
                    &mut model,
                    Some(current),
                    actions,
                    cause,
                    size,
                    expected,
                );
            }
            Step::ClientLeaves { older } => {
                let Some(current) = current else { continue };
                let generation = if older { current - 1 } else { current };
                let actions = relay.client_left(generation);
                if generation != current {
                    assert!(actions.is_empty());
                    continue;
                }
                check(
                    &mut relay,
                    &mut model,
                    Some(current),
                    actions,
                    Cause::ClientLeft,
                    0,
                    ExpectedAnswers::none(),
                );
            }
            Step::ClientStopsReading => model.client_stops_reading = true,
            Step::Extension(json) => {
                let size = json.to_string().len();
                let message: ExtensionToHost =
                    serde_json::from_value(json).expect("a well-formed extension message");
                extension_message(&mut relay, &mut model, message, size);
            }
            Step::ExtensionAnswers { index, mut result } => {
                if let Some(host_id) = model
                    .sent_order
                    .get(index as usize % model.sent_order.len().max(1))
                {
                    result.id = host_id.clone();
                }
                let size = serde_json::to_string(&result).expect("json").len();
                extension_message(
                    &mut relay,
                    &mut model,
                    ExtensionToHost::Result(result),
                    size,
                );
            }
            Step::Pass { milliseconds } => {
                now += Duration::from_millis(u64::from(milliseconds));
                model.now = now;
                let actions = relay.fail_overdue_calls(now);
                let overdue = model.settle(|call| call.deadline <= now);
                let expected = ExpectedAnswers::by_host(overdue, None);
                check(
                    &mut relay,
                    &mut model,
                    current,
                    actions,
                    Cause::TimePassed,
                    0,
                    expected,
                );
            }
        }
    }
    // The host ends: every call of the connected client is answered.
    let connected = relay.current_generation();
    let actions = relay.fail_pending_calls();
    let all = model.settle(|_| true);
    check(
        &mut relay,
        &mut model,
        connected,
        actions,
        Cause::HostEnds,
        0,
        ExpectedAnswers::by_host(all, None),
    );
    if let Some(current) = relay.current_generation() {
        for ((generation, id), owed) in &model.owed {
            assert!(
                *generation != current || *owed == 0,
                "call {id:?} of the connected client was never answered"
            );
        }
    }
});

fn extension_message(relay: &mut Relay, model: &mut Model, message: ExtensionToHost, size: usize) {
    let connected = relay.current_generation();
    let actions = relay.on_extension_message(message.clone());
    let expected = match &message {
        ExtensionToHost::Hello { .. } => {
            let again = std::mem::replace(&mut model.hello_seen, true);
            ExpectedAnswers::by_host(
                if again {
                    model.settle(|_| true)
                } else {
                    Vec::new()
                },
                None,
            )
        }
        ExtensionToHost::Result(result) => match model.sent.get_mut(&result.id) {
            Some(call) if !call.settled => {
                call.settled = true;
                ExpectedAnswers::forwarded(call.client_call_id.clone(), result.clone())
            }
            _ => ExpectedAnswers::none(),
        },
        ExtensionToHost::Access { .. } => ExpectedAnswers::none(),
    };
    check(
        relay,
        model,
        connected,
        actions,
        Cause::Extension(message),
        size,
        expected,
    );
}

/// The answers (results) a step must send the client: the client ids of the calls answered, and
/// either the extension's outcome or the host's own error code.
struct ExpectedAnswers {
    client_ids: Vec<String>,
    forwarded: Option<ToolResultMessage>,
    host_error_code: Option<&'static str>,
}

impl ExpectedAnswers {
    fn none() -> Self {
        Self {
            client_ids: Vec::new(),
            forwarded: None,
            host_error_code: None,
        }
    }
    fn by_host(client_ids: Vec<String>, host_error_code: Option<&'static str>) -> Self {
        Self {
            client_ids,
            forwarded: None,
            host_error_code,
        }
    }
    fn forwarded(client_id: String, result: ToolResultMessage) -> Self {
        Self {
            client_ids: vec![client_id],
            forwarded: Some(result),
            host_error_code: None,
        }
    }
}

/// Checks each action against the model and carries it out as the host does.
fn check(
    relay: &mut Relay,
    model: &mut Model,
    // The client connected when the step began (for a connection, the new one).
    connected: Option<u64>,
    actions: Vec<RelayAction>,
    cause: Cause,
    cause_bytes: usize,
    expected: ExpectedAnswers,
) {
    let quoted = model.longest_quoted_bytes();
    let mut answered_ids = Vec::new();
    let mut left_during_step = false;
    let mut actions: std::collections::VecDeque<RelayAction> = actions.into();
    while let Some(action) = actions.pop_front() {
        // Bounded: JSON escaping may write a character as six bytes.
        let bytes = match &action {
            RelayAction::ToClient { message, .. } => {
                serde_json::to_string(message).expect("json").len()
            }
            RelayAction::ToExtension(message) => {
                serde_json::to_string(message).expect("json").len()
            }
            _ => 0,
        };
        assert!(
            bytes <= 6 * (cause_bytes + quoted) + FIXED_OVERHEAD_BYTES,
            "a {bytes}-byte message from a {cause_bytes}-byte cause: {action:?}"
        );
        match action {
            RelayAction::ToClient {
                generation,
                message,
            } => {
                assert_eq!(
                    Some(generation),
                    connected,
                    "a message for a client that is not the connected one: {message:?}"
                );
                if left_during_step {
                    continue;
                }
                match &message {
                    HostToClient::Result(answer) => {
                        let owed = model
                            .owed
                            .get_mut(&(generation, answer.id.clone()))
                            .filter(|owed| **owed > 0)
                            .unwrap_or_else(|| panic!("an answer no call of this client is owed: {answer:?} ({cause:?})"));
                        *owed -= 1;
                        answered_ids.push(answer.id.clone());
                        if let Some(result) = &expected.forwarded {
                            assert_eq!(
                                (answer.ok, &answer.result, &answer.error),
                                (result.ok, &result.result, &result.error)
                            );
                        } else {
                            assert!(
                                !answer.ok && answer.result.is_none(),
                                "the host's own answer is a failure"
                            );
                            let code = answer
                                .error
                                .as_ref()
                                .and_then(|error| error["code"].as_str())
                                .unwrap_or_default();
                            match expected.host_error_code {
                                Some(expected_code) => assert_eq!(code, expected_code),
                                None => assert!(
                                    ["timeout", "extension_disconnected", "outcome_unknown"]
                                        .contains(&code),
                                    "{code}"
                                ),
                            }
                        }
                    }
                    HostToClient::Ready { .. } => assert!(matches!(
                        cause,
                        Cause::Connect | Cause::Extension(ExtensionToHost::Hello { .. })
                    )),
                    HostToClient::Access { access } => assert!(matches!(
                        &cause,
                        Cause::Extension(ExtensionToHost::Access { access: sent }) if sent == access
                    )),
                    HostToClient::Busy { .. } => panic!("busy is the socket's, not the relay's"),
                }
                if std::mem::take(&mut model.client_stops_reading) {
                    // As the host does: the client is disconnected, and the relay's answer to
                    // that is carried out too.
                    actions.extend(relay.client_left(generation));
                    left_during_step = true;
                    forget_client(model, generation);
                }
            }
            RelayAction::ToExtension(message) => match message {
                HostToExtension::Call {
                    id,
                    tool,
                    arguments,
                    ..
                } => {
                    let Cause::Client {
                        generation,
                        message:
                            ClientMessage::Known(ClientToHost::Call {
                                id: client_id,
                                tool: client_tool,
                                arguments: client_arguments,
                                wait_ms,
                                ..
                            }),
                    } = &cause
                    else {
                        panic!("a call to the extension no client made ({cause:?})");
                    };
                    assert_eq!((&tool, &arguments), (client_tool, client_arguments));
                    assert!(!model.sent.contains_key(&id), "host id {id} used twice");
                    assert!(model.in_flight(*generation) < MAX_CALLS_IN_FLIGHT_PER_CLIENT);
                    model.sent.insert(
                        id.clone(),
                        SentCall {
                            generation: *generation,
                            client_call_id: client_id.clone(),
                            tool,
                            // The host's deadline, by the relay's one formula for it.
                            deadline: model.now + deadlines_for_client_wait(*wait_ms).0,
                            settled: false,
                        },
                    );
                    model.sent_order.push(id);
                }
                HostToExtension::Session {
                    access,
                    client,
                    allow_file_urls,
                    browser_bridge,
                } => assert!(matches!(
                    &cause,
                    Cause::Client { message: ClientMessage::Known(ClientToHost::Session { access: sent_access, client: sent_client, allow_file_urls: sent_allowance, browser_bridge: sent_bridge }), .. }
                        if *sent_access == access && *sent_client == client && *sent_allowance == allow_file_urls && *sent_bridge == browser_bridge
                )),
                HostToExtension::SessionEnded => {
                    assert!(
                        matches!(cause, Cause::ClientLeft) || left_during_step,
                        "a session ended while its client stays ({cause:?})"
                    );
                    assert!(
                        connected.is_some_and(|generation| model.announced.contains(&generation)),
                        "a session ended that was never announced ({cause:?})"
                    );
                }
                HostToExtension::Chunk { .. } => {
                    panic!("chunks are the framing's, not the relay's")
                }
            },
            RelayAction::EndClient { generation } => {
                assert_eq!(Some(generation), connected);
                assert_eq!(relay.current_generation(), None);
                assert!(matches!(cause, Cause::ClientLeft) || left_during_step);
                forget_client(model, generation);
            }
            RelayAction::Log(_) => {}
        }
    }
    if !left_during_step {
        let mut expected_ids = expected.client_ids;
        // Calls of a client that has left are answered to nobody.
        if connected.is_none() {
            expected_ids.clear();
        }
        expected_ids.sort();
        answered_ids.sort();
        assert_eq!(answered_ids, expected_ids, "answers of {cause:?}");
    }
}

/// The client left: nothing more is owed to it, and its calls' results are dropped.
fn forget_client(model: &mut Model, generation: u64) {
    model.owed.retain(|(owner, _), _| *owner != generation);
    for call in model.sent.values_mut() {
        if call.generation == generation {
            call.settled = true;
        }
    }
}
