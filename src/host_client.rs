//! The client side of the local socket, used by `allwright mcp` and `allwright snapshot`: connect,
//! wait for `ready`, send calls and match their results by id. A host exits whenever its extension
//! goes away and the browser starts a new one, so a dead connection is replaced on the next call.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::Value;
use tokio::net::unix::OwnedWriteHalf;
use tokio::net::UnixStream;
use tokio::sync::{oneshot, watch};

use crate::local_socket;
use crate::log;
use crate::socket_lines::{self, LineReader};
use crate::tool_error::ToolError;
use crate::tools::ToolAccess;
use crate::wire::{ClientToHost, HostToClient};

/// How long a fresh connection waits for `ready` before the call reports `not_connected`.
const READY_TIMEOUT: Duration = Duration::from_secs(10);

#[derive(Debug, Clone, PartialEq)]
pub struct HostReady {
    pub browser: String,
    pub extension_version: String,
}

/// The calls waiting for their result, by call id; `None` once the connection is gone.
type WaiterTable = Option<HashMap<String, oneshot::Sender<Result<Value, ToolError>>>>;
type Waiters = Arc<Mutex<WaiterTable>>;

struct Connection {
    writer: OwnedWriteHalf,
    /// Calls waiting for their result. `None` once the connection is gone.
    waiters: Waiters,
    reader_task: tokio::task::JoinHandle<()>,
}

impl Drop for Connection {
    fn drop(&mut self) {
        self.reader_task.abort();
    }
}

/// What this client announces to each host it connects to (`session`, docs/protocol/access.md "Tool
/// access"): its tool access and its MCP client's name.
#[derive(Debug, Clone)]
struct SessionAnnouncement {
    client: Option<String>,
    /// `allwright mcp --allow-file-urls`.
    allow_file_urls: bool,
    /// The MCP server holds a WebDriver BiDi session on the browser (`--launch`, `--webdriver`).
    browser_bridge: bool,
}

pub struct HostClient {
    socket_path: PathBuf,
    connection: tokio::sync::Mutex<Option<Connection>>,
    next_call_id: std::sync::atomic::AtomicU64,
    announcement: Mutex<SessionAnnouncement>,
    /// The session's tool access: the command line's at first, then whatever the side panel
    /// sets (the host's `access` messages). The MCP server lists its tools from it.
    access: Arc<watch::Sender<ToolAccess>>,
    /// Whether a host answered this client before: a host that went away since (Chrome stopped
    /// the extension's idle service worker, which ends the host) is waited for when the next
    /// call comes, while the extension's alarm wakes the worker and it starts a new host.
    had_host: std::sync::atomic::AtomicBool,
}

/// How long a call waits for a host that went away to come back: more than the extension's
/// keep-alive alarm period (30 s, `background/host/keep-alive.js`), which wakes a stopped worker, plus
/// the time a worker takes to start its host (docs/protocol/action-safety.md, "Service-worker life").
const HOST_RETURN_WAIT: Duration = Duration::from_secs(40);

fn lock(waiters: &Waiters) -> std::sync::MutexGuard<'_, WaiterTable> {
    waiters
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl HostClient {
    /// A client for the host at `socket_path`; its access is `allwright mcp`'s default (Full,
    /// without Dev mode) until [`HostClient::set_access`].
    pub fn new(socket_path: PathBuf) -> Self {
        let access = ToolAccess::new(crate::tools::Tier::Full, false);
        Self {
            socket_path,
            connection: tokio::sync::Mutex::new(None),
            had_host: std::sync::atomic::AtomicBool::new(false),
            next_call_id: std::sync::atomic::AtomicU64::new(1),
            announcement: Mutex::new(SessionAnnouncement {
                client: None,
                allow_file_urls: false,
                browser_bridge: false,
            }),
            access: Arc::new(watch::channel(access).0),
        }
    }

    /// The tool access in force now.
    pub fn access(&self) -> ToolAccess {
        *self.access.borrow()
    }

    /// The session's own access (`--tier`, `--dev`), announced by the next [`Self::start_session`].
    pub fn set_access(&self, access: ToolAccess) {
        self.access.send_replace(access);
    }

    /// Follows the tool access as the side panel changes it.
    pub fn watch_access(&self) -> watch::Receiver<ToolAccess> {
        self.access.subscribe()
    }

    fn session_message(&self) -> ClientToHost {
        let announcement = self
            .announcement
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone();
        ClientToHost::Session {
            access: self.access(),
            client: announcement.client,
            allow_file_urls: announcement.allow_file_urls,
            browser_bridge: announcement.browser_bridge,
        }
    }

    /// Whether the session holds a WebDriver BiDi session on the browser, announced with the
    /// session: the extension then leaves the console to the bridge's records.
    pub fn set_browser_bridge(&self, bridge: bool) {
        self.announcement
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .browser_bridge = bridge;
    }

    /// Whether the session opens local files (`--allow-file-urls`), announced with the session.
    pub fn set_allow_file_urls(&self, allowed: bool) {
        self.announcement
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .allow_file_urls = allowed;
    }

    pub fn file_urls_allowed(&self) -> bool {
        self.announcement
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .allow_file_urls
    }

    /// Names the MCP client (its `clientInfo`) and announces the session to the host now, so the
    /// side panel shows the client and its tier before the first call. A host that is not there
    /// yet gets the announcement when a call connects.
    pub async fn start_session(&self, client: Option<String>) {
        self.announcement
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .client = client;
        let mut slot = self.connection.lock().await;
        let alive = slot
            .as_ref()
            .is_some_and(|connection| lock(&connection.waiters).is_some());
        if alive {
            let message = self.session_message();
            if let Some(connection) = slot.as_mut() {
                if socket_lines::write_line(&mut connection.writer, &message)
                    .await
                    .is_err()
                {
                    *slot = None;
                }
            }
            return;
        }
        match connect(
            &self.socket_path,
            READY_TIMEOUT,
            self.session_message(),
            &self.access,
        )
        .await
        {
            Ok((connection, _ready)) => {
                *slot = Some(connection);
                self.had_host
                    .store(true, std::sync::atomic::Ordering::Relaxed);
            }
            Err(error) => log!(
                "no host yet ({}); the session is announced on the first call",
                error.code
            ),
        }
    }

    pub fn socket_path(&self) -> &Path {
        &self.socket_path
    }

    /// Connects (if not connected) and waits for `ready`, retrying until `deadline_after`:
    /// used right after a launch, while the browser is still starting the host.
    pub async fn wait_until_ready(&self, deadline_after: Duration) -> Result<HostReady, ToolError> {
        let deadline = Instant::now() + deadline_after;
        loop {
            let mut slot = self.connection.lock().await;
            let remaining = deadline.saturating_duration_since(Instant::now());
            match connect(
                &self.socket_path,
                remaining.min(READY_TIMEOUT),
                self.session_message(),
                &self.access,
            )
            .await
            {
                Ok((connection, ready)) => {
                    *slot = Some(connection);
                    self.had_host
                        .store(true, std::sync::atomic::Ordering::Relaxed);
                    return Ok(ready);
                }
                Err(error) if Instant::now() >= deadline => return Err(error),
                // A socket that is not private stays so: waiting longer cannot help.
                Err(error) if error.code == crate::tool_error::codes::SOCKET_NOT_PRIVATE => {
                    return Err(error)
                }
                Err(_) => {
                    drop(slot);
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
            }
        }
    }

    /// A connection for a call. When a host answered this client before and none answers now,
    /// the host went away with the extension's service worker: connecting is retried for up to
    /// HOST_RETURN_WAIT (leaving the call 15 s of its own wait), since the worker's alarm
    /// brings it back by itself. A client that never reached a host fails at once.
    async fn connect_for_call(&self, call_timeout: Duration) -> Result<Connection, ToolError> {
        use std::sync::atomic::Ordering;
        let patience = if self.had_host.load(Ordering::Relaxed) {
            HOST_RETURN_WAIT.min(call_timeout.saturating_sub(Duration::from_secs(15)))
        } else {
            Duration::ZERO
        };
        let deadline = Instant::now() + patience;
        loop {
            match connect(
                &self.socket_path,
                READY_TIMEOUT,
                self.session_message(),
                &self.access,
            )
            .await
            {
                Ok((connection, _ready)) => {
                    self.had_host.store(true, Ordering::Relaxed);
                    return Ok(connection);
                }
                Err(error)
                    if Instant::now() >= deadline
                        || error.code == crate::tool_error::codes::SOCKET_NOT_PRIVATE =>
                {
                    return Err(error)
                }
                Err(_) => tokio::time::sleep(Duration::from_millis(250)).await,
            }
        }
    }

    /// Sends one tool call and waits for its result, at most `timeout`.
    ///
    /// A read-only tool whose answer was lost with the extension (its background stopped with
    /// the call in flight) is sent once more, to the host that comes back (docs/protocol/action-safety.md,
    /// "Service-worker life"): reading twice changes nothing. A tool that changes the page
    /// never is (`outcome_unknown`).
    pub async fn call(
        &self,
        tool: &str,
        arguments: Value,
        timeout: Duration,
    ) -> Result<Value, ToolError> {
        let deadline = Instant::now() + timeout;
        let outcome = self.call_once(tool, arguments.clone(), timeout).await;
        let read_only =
            crate::tools::tool_named(tool).is_some_and(|definition| definition.read_only);
        match outcome {
            Err(error)
                if read_only
                    && error.code == crate::tool_error::codes::EXTENSION_DISCONNECTED
                    && deadline.saturating_duration_since(Instant::now())
                        > Duration::from_secs(5) =>
            {
                let remaining = deadline.saturating_duration_since(Instant::now());
                self.call_once(tool, arguments, remaining).await
            }
            outcome => outcome,
        }
    }

    /// One attempt of [`HostClient::call`].
    async fn call_once(
        &self,
        tool: &str,
        arguments: Value,
        timeout: Duration,
    ) -> Result<Value, ToolError> {
        let id = format!(
            "c{}",
            self.next_call_id
                .fetch_add(1, std::sync::atomic::Ordering::Relaxed)
        );
        let receiver = {
            let mut slot = self.connection.lock().await;
            let alive = slot
                .as_ref()
                .is_some_and(|connection| lock(&connection.waiters).is_some());
            if !alive {
                *slot = None;
                let connection = self.connect_for_call(timeout).await?;
                *slot = Some(connection);
            }
            let Some(connection) = slot.as_mut() else {
                return Err(ToolError::not_connected(
                    "no connection to the browser's allwright host",
                ));
            };
            let (sender, receiver) = oneshot::channel();
            match lock(&connection.waiters).as_mut() {
                Some(waiters) => waiters.insert(id.clone(), sender),
                // The connection closed before this call was written: nothing was sent, so the
                // call may be repeated (not outcome_unknown).
                None => {
                    return Err(ToolError::not_connected(
                        "the connection to the browser's allwright host closed before the call was sent",
                    ))
                }
            };
            let message = ClientToHost::Call {
                id: id.clone(),
                tool: tool.to_owned(),
                arguments,
                access: Some(self.access()),
                wait_ms: Some(timeout.as_millis() as u64),
            };
            if socket_lines::write_line(&mut connection.writer, &message)
                .await
                .is_err()
            {
                *slot = None;
                // Part of the call may have reached the host.
                return Err(ToolError::extension_disconnected().for_call_of(tool));
            }
            receiver
        };
        // A lost answer of a tool that changes the page (this wait, or a host that went away
        // with the call) is outcome_unknown, never "retry" (docs/protocol/action-safety.md, "Nothing done
        // twice"). Errors the host or the extension answered pass through as they are.
        match tokio::time::timeout(timeout, receiver).await {
            Ok(Ok(outcome)) => outcome,
            Ok(Err(_)) => Err(ToolError::extension_disconnected().for_call_of(tool)),
            Err(_) => {
                if let Some(connection) = self.connection.lock().await.as_ref() {
                    if let Some(waiters) = lock(&connection.waiters).as_mut() {
                        waiters.remove(&id);
                    }
                }
                Err(ToolError::timeout(format!("{tool} got no answer from the browser within {} s", timeout.as_secs()))
                    .with_hint("The page may be very large or busy. Retry once; for snapshots pass a larger timeoutMs, for trees a smaller maxChars or a ref_id.")
                    .for_call_of(tool))
            }
        }
    }
}

/// Opens the socket, waits for the host's first message, which must be `ready`, and announces
/// the session; the reader then follows results and the side panel's access changes.
async fn connect(
    socket_path: &Path,
    ready_timeout: Duration,
    session: ClientToHost,
    access: &Arc<watch::Sender<ToolAccess>>,
) -> Result<(Connection, HostReady), ToolError> {
    local_socket::check_socket_before_connecting(socket_path)
        .map_err(|refusal| ToolError::socket_not_private(refusal.message, refusal.hint))?;
    let stream = UnixStream::connect(socket_path).await.map_err(|error| {
        ToolError::not_connected(format!(
            "no allwright host is listening at {} ({error}): the browser with the extension is not running, or the extension has not connected yet",
            socket_path.display()
        ))
    })?;
    // The server must be this user's own process before anything is sent to it (the session
    // announcement names the client and its tier; calls carry page text).
    if !local_socket::peer_is_same_user(&stream) {
        return Err(ToolError::socket_not_private(
            format!(
                "the process listening on {} runs as another user; allwright sends it nothing",
                socket_path.display()
            ),
            format!(
                "Remove {} (or its folder) and restart the browser, or set {} to a path in a folder only you can use.",
                socket_path.display(),
                local_socket::SOCKET_ENVIRONMENT_VARIABLE
            ),
        ));
    }
    let (read_half, writer) = stream.into_split();
    let mut reader = LineReader::new(read_half);
    let first = tokio::time::timeout(ready_timeout, reader.read_message::<HostToClient>()).await;
    let ready = match first {
        Ok(Ok(Some(HostToClient::Ready { browser, extension_version }))) => HostReady { browser, extension_version },
        Ok(Ok(Some(HostToClient::Busy { message }))) => {
            return Err(ToolError::not_connected(format!("the browser's allwright host is busy: {message}"))
                .with_hint("Another MCP client is connected to this browser. Close it, or start a separate browser with `allwright mcp --launch chromium`."))
        }
        Ok(Ok(Some(HostToClient::Result(_) | HostToClient::Access { .. })))
        | Ok(Ok(None))
        | Ok(Err(_)) => {
            return Err(ToolError::not_connected("the allwright host closed the connection before it was ready"))
        }
        Err(_) => {
            return Err(ToolError::not_connected(format!(
                "the allwright host at {} is running but the extension has not said hello within {} s",
                socket_path.display(),
                ready_timeout.as_secs()
            )))
        }
    };
    let mut writer = writer;
    socket_lines::write_line(&mut writer, &session)
        .await
        .map_err(|_| ToolError::not_connected("the allwright host closed the connection"))?;
    let waiters: Waiters = Arc::new(Mutex::new(Some(HashMap::new())));
    let reader_waiters = Arc::clone(&waiters);
    let reader_access = Arc::clone(access);
    let reader_task = tokio::spawn(async move {
        loop {
            match reader.read_message::<HostToClient>().await {
                Ok(Some(HostToClient::Result(result))) => {
                    let id = result.id.clone();
                    let waiter = lock(&reader_waiters)
                        .as_mut()
                        .and_then(|waiters| waiters.remove(&id));
                    if let Some(waiter) = waiter {
                        let _ = waiter.send(result.into_outcome());
                    }
                }
                Ok(Some(HostToClient::Access { access })) => {
                    reader_access.send_replace(ToolAccess::new(access.tier, access.dev));
                }
                // A repeated `ready` (the extension restarted) changes nothing for the client.
                Ok(Some(HostToClient::Ready { .. } | HostToClient::Busy { .. })) => {}
                Err(crate::socket_lines::LineError::Unreadable { .. }) => {}
                Ok(None) | Err(_) => break,
            }
        }
        // The host is gone: every call still waiting failed with it. Dropping the waiters says
        // so; each `call` then answers for its own tool (extension_disconnected, or
        // outcome_unknown for a tool that changes the page).
        drop(lock(&reader_waiters).take());
    });
    Ok((
        Connection {
            writer,
            waiters,
            reader_task,
        },
        ready,
    ))
}
