//! The signals that end `allwright mcp` and `allwright snapshot` politely: SIGTERM (a service
//! manager, `kill`), SIGINT (Ctrl-C) and SIGHUP (the terminal or the MCP client's session went
//! away). Each is watched from the process's start, before any browser is launched, so that a
//! signal at any moment still closes the browser and removes the session folder
//! (`session_folder.rs`) instead of ending the process where it stands.

use tokio::signal::unix::{signal, Signal, SignalKind};

pub struct ExitSignals {
    terminate: Signal,
    interrupt: Signal,
    hang_up: Signal,
}

impl ExitSignals {
    /// Starts watching; from now on these signals no longer end the process by themselves.
    pub fn watch() -> Result<Self, String> {
        let watch = |kind: SignalKind| {
            signal(kind).map_err(|error| format!("cannot watch for signals: {error}"))
        };
        Ok(Self {
            terminate: watch(SignalKind::terminate())?,
            interrupt: watch(SignalKind::interrupt())?,
            hang_up: watch(SignalKind::hangup())?,
        })
    }

    /// Waits for the first of the signals and names it.
    pub async fn received(&mut self) -> &'static str {
        tokio::select! {
            _ = self.terminate.recv() => "SIGTERM",
            _ = self.interrupt.recv() => "SIGINT",
            _ = self.hang_up.recv() => "SIGHUP",
        }
    }
}
