//! Systems other than Linux have no user and network namespaces to put a launched Firefox in
//! (`private_network.rs` is the Linux implementation). A launch there fails before Firefox
//! starts, with a way out: a Firefox the person starts, handed over with `--webdriver ws://…`.
//! Firefox's remote agent is not opened on the shared loopback instead (docs/security.md).

/// No step of a namespace setup runs on this system.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SetupStep {}

impl SetupStep {
    pub(crate) fn describe(self) -> &'static str {
        match self {}
    }
}

/// Never made on this system: [`PrivateNetwork::install`] always fails.
pub(crate) struct PrivateNetwork {
    never: std::convert::Infallible,
}

impl PrivateNetwork {
    pub(crate) fn install(_command: &mut tokio::process::Command) -> std::io::Result<Self> {
        Err(std::io::Error::new(
            std::io::ErrorKind::Unsupported,
            "a launched Firefox runs in a private network namespace, which only Linux has; \
start Firefox yourself with --remote-debugging-port and pass allwright --webdriver ws://127.0.0.1:PORT/session",
        ))
    }

    pub(crate) fn failed_step(&self) -> Option<SetupStep> {
        match self.never {}
    }

    pub(crate) fn socket_inside(&self) -> std::io::Result<std::net::TcpStream> {
        match self.never {}
    }
}
