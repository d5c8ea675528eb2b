//! The WebDriver BiDi client: the wire messages ([`protocol`]), one connection that correlates
//! command ids with responses and fans out events ([`BidiConnection`], over a WebSocket or over
//! the BiDi mapper in a launched Chromium), and typed
//! helpers for the commands allwright uses ([`commands`]).

pub mod commands;
mod connection;
pub mod protocol;

pub use connection::{BidiConnection, BidiEvent, CommandFailure, DEFAULT_COMMAND_TIMEOUT};
pub(crate) use connection::{IncomingText, OutgoingText, TextTransport};
pub use protocol::{BidiError, BidiErrorKind};
