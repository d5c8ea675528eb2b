//! The WebDriver BiDi client: the wire messages ([`protocol`]), one WebSocket connection that
//! correlates command ids with responses and fans out events ([`BidiConnection`]), and typed
//! helpers for the commands allwright uses ([`commands`]).

pub mod commands;
mod connection;
pub mod protocol;

pub use connection::{BidiConnection, BidiEvent, CommandFailure, DEFAULT_COMMAND_TIMEOUT};
pub use protocol::{BidiError, BidiErrorKind};
