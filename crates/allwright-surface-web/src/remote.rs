//! Sessions on a WebDriver remote end that allwright did not start (`--webdriver URL`): a
//! Selenium Grid 4 hub, a chromedriver or geckodriver on another machine, or a browser's own
//! BiDi WebSocket.
//!
//! - `http://host:port/base`: WebDriver classic `POST {base}/session` with `webSocketUrl: true`
//!   (WebDriver BiDi, "Establishing a connection": the classic session answers the BiDi
//!   WebSocket in `capabilities.webSocketUrl`; Grid 4 and chromedriver both do), then BiDi on
//!   that WebSocket. The session ends with `DELETE {base}/session/{id}`.
//! - `ws://host:port/path`: a BiDi-only remote end (Firefox's remote agent at `/session`):
//!   BiDi `session.new` directly, ended with `session.end`. Firefox has no WebDriver classic
//!   endpoint of its own; that needs geckodriver.
//!
//! The extension is installed with `webExtension.install`: by path when the remote end is on
//! this machine (a loopback host), otherwise as a base64 zip archive of the folder, since the
//! remote machine cannot read our files. SPEC DIFFERENCE: chromium-bidi implements only
//! `{type: "path"}`, so an extension for a Chromium on another machine must already be on that
//! machine (pass its path there with [`ExtensionDelivery::PathOnRemote`]).
//!
//! `https`/`wss` remote ends are reached over TLS with the system's roots (`tls.rs`).
//! Credentials in the URL (`http://user:password@grid:4444`) go as basic authentication on every
//! request and on the BiDi WebSocket's handshake, and never into a message.
//!
//! A grid queues a new session request until a slot frees (Selenium Grid's
//! `--session-request-timeout`, 300 s by default), so `POST /session` may wait for minutes: the
//! wait is bounded by [`NEW_SESSION_TIMEOUT`] and reported every [`NEW_SESSION_PROGRESS_INTERVAL`]
//! through [`RemoteSessionOptions::progress`]. Once a classic session exists, it is ended on
//! every path: [`RemoteSession::end`], or, when a session or a half-made one is dropped (a
//! signal during the start, an error, a panic), the guard's `Drop` ([`ClassicSessionGuard`]).

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Map, Value};

use crate::bidi::{BidiConnection, BidiError, BidiErrorKind};
use crate::launch::BrowserKind;
use crate::lifecycle::keep_prompts_open_capability;
use crate::webdriver_http;

mod capabilities;
mod endpoint;
pub use capabilities::{merge_requested_capabilities, CapabilityError, RequestedCapability};
pub use endpoint::{
    parse_remote_url, without_credentials, Credentials, InvalidRemoteUrl, RemoteEndpoint,
    RemoteProtocol,
};

/// How long `POST /session` may wait for its answer. A grid holds the request in its queue until
/// a slot frees, for up to its `--session-request-timeout` (300 s by default) and then answers
/// an error itself; ten minutes leaves room for a grid configured to wait longer, and still ends
/// a wait on a remote end that never answers.
pub const NEW_SESSION_TIMEOUT: Duration = Duration::from_secs(600);
/// How often a waiting `POST /session` is reported ([`RemoteSessionOptions::progress`]).
pub const NEW_SESSION_PROGRESS_INTERVAL: Duration = Duration::from_secs(5);
const END_SESSION_TIMEOUT: Duration = Duration::from_secs(10);

/// Told, every [`NEW_SESSION_PROGRESS_INTERVAL`] while `POST /session` is unanswered, how long
/// it has waited so far.
pub type NewSessionProgress = Arc<dyn Fn(Duration) + Send + Sync>;

/// The `Authorization` header's value for an endpoint's credentials: HTTP basic
/// authentication (RFC 7617, section 2: base64 of `user:password`).
fn basic_authorization(endpoint: &RemoteEndpoint) -> Option<String> {
    endpoint.credentials.as_ref().map(|credentials| {
        let pair = format!("{}:{}", credentials.user, credentials.password());
        format!("Basic {}", crate::base64::encode(pair.as_bytes()))
    })
}

/// One classic HTTP request to the endpoint, with its credentials.
async fn classic_request(
    endpoint: &RemoteEndpoint,
    method: &str,
    path: &str,
    body: Option<&Value>,
    timeout: Duration,
) -> Result<webdriver_http::HttpResponse, String> {
    let authorization = basic_authorization(endpoint);
    let target = webdriver_http::HttpTarget {
        host: &endpoint.host,
        port: endpoint.port,
        tls: endpoint.tls,
        authorization: authorization.as_deref(),
    };
    webdriver_http::request_to(
        &target,
        method,
        &format!("{}{path}", endpoint.path),
        body,
        timeout,
    )
    .await
}

/// Opens the BiDi WebSocket at `web_socket` (a checked URL, see [`check_bidi_web_socket_url`]),
/// over TLS for `wss`, with `authorization` on the handshake when given.
async fn open_web_socket(
    web_socket: &RemoteEndpoint,
    authorization: Option<&str>,
) -> Result<BidiConnection, RemoteError> {
    use tokio_tungstenite::tungstenite::client::IntoClientRequest;
    use tokio_tungstenite::tungstenite::http::header::{HeaderValue, AUTHORIZATION};
    let url = web_socket.url();
    let cannot_open = |detail: String| {
        RemoteError::Http(format!("cannot open the BiDi WebSocket {url}: {detail}"))
    };
    // tungstenite reads the URL's scheme for the handshake only; the stream below is the
    // transport, TLS or not.
    let mut request = url
        .as_str()
        .into_client_request()
        .map_err(|error| cannot_open(error.to_string()))?;
    if let Some(authorization) = authorization {
        let mut value = HeaderValue::from_str(authorization)
            .map_err(|_| cannot_open("the credentials cannot be sent in a header".into()))?;
        value.set_sensitive(true);
        request.headers_mut().insert(AUTHORIZATION, value);
    }
    let stream = tokio::net::TcpStream::connect((web_socket.host.as_str(), web_socket.port))
        .await
        .map_err(|error| cannot_open(error.to_string()))?;
    let connection = if web_socket.tls {
        let stream = crate::tls::connect(&web_socket.host, stream)
            .await
            .map_err(cannot_open)?;
        BidiConnection::handshake_over(request, stream).await?
    } else {
        BidiConnection::handshake_over(request, stream).await?
    };
    Ok(connection)
}

/// A classic session that exists on the remote end until this guard ends it: explicitly
/// ([`ClassicSessionGuard::end`]), or when dropped. The drop is synchronous (a session dropped
/// during a signal or an error has no later moment to be ended in), so it sends the `DELETE` from
/// a thread of its own, on a runtime of its own, and waits at most [`END_SESSION_TIMEOUT`].
struct ClassicSessionGuard {
    endpoint: RemoteEndpoint,
    session_id: Option<String>,
}

impl ClassicSessionGuard {
    async fn end(&mut self) {
        if let Some(session_id) = self.session_id.take() {
            let _ = classic_request(
                &self.endpoint,
                "DELETE",
                &format!("/session/{session_id}"),
                None,
                END_SESSION_TIMEOUT,
            )
            .await;
        }
    }
}

impl Drop for ClassicSessionGuard {
    fn drop(&mut self) {
        let Some(session_id) = self.session_id.take() else {
            return;
        };
        let endpoint = self.endpoint.clone();
        let deleting = std::thread::spawn(move || {
            let Ok(runtime) = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
            else {
                return;
            };
            let _ = runtime.block_on(classic_request(
                &endpoint,
                "DELETE",
                &format!("/session/{session_id}"),
                None,
                END_SESSION_TIMEOUT,
            ));
        });
        let _ = deleting.join();
    }
}

/// Whether the BiDi WebSocket a classic remote end hands out (`capabilities.webSocketUrl` of its
/// `POST /session` answer) may be connected to: a `ws://` or `wss://` URL (`wss://` when the
/// remote end is an `https://` one on another machine) without credentials on a loopback
/// host (127.0.0.0/8, `::1`, `localhost`) when the remote end itself is on loopback, else on the
/// remote end's own host. Without this check a remote end (or whatever answers on its port) could
/// send the session, and every page it reads, to a host of its choosing. The URL is read by
/// [`parse_remote_url`], the same reader as the remote end's own URL, so `ws://127.0.0.1@evil/`
/// (credentials) and `ws://127.0.0.1.evil.example` (a name, not an address) are read as a
/// browser would read them and refused.
pub fn check_bidi_web_socket_url(
    remote_end: &RemoteEndpoint,
    web_socket_url: &str,
) -> Result<RemoteEndpoint, RemoteError> {
    let refused = |reason: String| {
        RemoteError::UntrustedWebSocketUrl(format!(
            "the remote end at {} handed out the BiDi WebSocket {:?}, {reason}",
            remote_end.url(),
            without_credentials(web_socket_url)
        ))
    };
    let web_socket = parse_remote_url(web_socket_url)
        .map_err(|error| refused(format!("which cannot be used: {error}")))?;
    if web_socket.protocol != RemoteProtocol::BidiWebSocket {
        return Err(refused("which is not a ws:// or wss:// URL".into()));
    }
    // A remote end reached over TLS on another machine keeps the session encrypted: a plain
    // WebSocket would carry every page, and the credentials' header, in clear.
    if remote_end.tls && !web_socket.tls && !remote_end.is_loopback() {
        return Err(refused(
            "which is not wss:// although the remote end is reached over https".into(),
        ));
    }
    // Credentials are ours to send (the remote end's own, from its URL), never the remote
    // end's to choose.
    if web_socket.credentials.is_some() {
        return Err(refused("which holds credentials".into()));
    }
    if remote_end.is_loopback() {
        if !web_socket.is_loopback() {
            return Err(refused(
                "which is not on this machine although the remote end is (a loopback address or localhost)".into(),
            ));
        }
    } else if !web_socket.host.eq_ignore_ascii_case(&remote_end.host) {
        return Err(refused(format!(
            "which is not on the remote end's own host {}",
            remote_end.host
        )));
    }
    Ok(web_socket)
}

/// How the extension reaches the remote browser.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ExtensionDelivery {
    /// By path when the remote end is on a loopback host, as an archive otherwise.
    Automatic,
    /// `{type: "path"}` with our path (the remote end reads our file system).
    LocalPath,
    /// `{type: "base64"}` with a zip of the folder.
    Archive,
    /// `{type: "path"}` with a path on the remote machine, where the extension already is.
    PathOnRemote(PathBuf),
}

/// What [`RemoteSession::start`] needs.
#[derive(Clone)]
pub struct RemoteSessionOptions {
    pub url: String,
    pub browser: BrowserKind,
    /// More `alwaysMatch` capabilities (`goog:chromeOptions` or `moz:firefoxOptions` for the
    /// node, `se:` options for a grid). They win over allwright's own.
    pub extra_capabilities: Map<String, Value>,
    /// See [`crate::launch::ChromiumLaunchOptions::keep_user_prompts_open`].
    pub keep_user_prompts_open: bool,
    /// The unpacked extension folder to install, if any.
    pub extension: Option<PathBuf>,
    pub extension_delivery: ExtensionDelivery,
    /// What the person asked for (`--capability`), merged last into `alwaysMatch`
    /// ([`merge_requested_capabilities`]).
    pub requested_capabilities: Vec<RequestedCapability>,
    /// Told how long a new session request has waited, while it waits.
    pub progress: Option<NewSessionProgress>,
}

impl RemoteSessionOptions {
    pub fn new(url: impl Into<String>, browser: BrowserKind) -> Self {
        Self {
            url: url.into(),
            browser,
            extra_capabilities: Map::new(),
            keep_user_prompts_open: true,
            extension: None,
            extension_delivery: ExtensionDelivery::Automatic,
            requested_capabilities: Vec::new(),
            progress: None,
        }
    }

    /// The `alwaysMatch` capabilities of the new session: allwright's own, then the requested
    /// ones merged in.
    pub fn always_match(&self, with_web_socket_url: bool) -> Result<Value, CapabilityError> {
        let mut capabilities = Map::new();
        capabilities.insert(
            "browserName".into(),
            json!(match self.browser {
                BrowserKind::Chromium => "chrome",
                BrowserKind::Firefox => "firefox",
            }),
        );
        if with_web_socket_url {
            capabilities.insert("webSocketUrl".into(), json!(true));
        }
        if self.keep_user_prompts_open {
            capabilities.insert(
                "unhandledPromptBehavior".into(),
                keep_prompts_open_capability(),
            );
        }
        for (name, value) in &self.extra_capabilities {
            capabilities.insert(name.clone(), value.clone());
        }
        merge_requested_capabilities(&mut capabilities, &self.requested_capabilities)?;
        Ok(Value::Object(capabilities))
    }
}

/// The body of WebDriver classic's `POST /session`.
pub fn classic_new_session_request(
    options: &RemoteSessionOptions,
) -> Result<Value, CapabilityError> {
    Ok(json!({ "capabilities": { "alwaysMatch": options.always_match(true)? } }))
}

/// The session id, the BiDi WebSocket URL and the capabilities from a classic `POST /session`
/// answer (`{value: {sessionId, capabilities}}`), or the remote end's error
/// (`{value: {error, message}}`).
pub fn read_classic_new_session(
    status: u16,
    body: &Value,
) -> Result<(String, String, Value), RemoteError> {
    let value = &body["value"];
    if status == 401 {
        return Err(RemoteError::SessionNotCreated(
            "HTTP 401: the remote end asks for credentials, or refused the ones given (put them in the URL: http://user:password@host:port)".into(),
        ));
    }
    if status != 200 || value.get("error").is_some() {
        let code = value["error"].as_str().unwrap_or("unknown error");
        let message = value["message"].as_str().unwrap_or("no message");
        return Err(RemoteError::SessionNotCreated(format!(
            "HTTP {status}, {code}: {message}"
        )));
    }
    let session_id = value["sessionId"]
        .as_str()
        .ok_or_else(|| RemoteError::SessionNotCreated(format!("no sessionId in {body}")))?;
    let capabilities = value["capabilities"].clone();
    let web_socket_url = capabilities["webSocketUrl"]
        .as_str()
        .ok_or(RemoteError::NoWebSocketUrl)?;
    Ok((
        session_id.to_owned(),
        web_socket_url.to_owned(),
        capabilities,
    ))
}

/// `webExtension.install` parameters for the chosen delivery.
pub fn extension_install_params(
    folder: &std::path::Path,
    delivery: &ExtensionDelivery,
    endpoint: &RemoteEndpoint,
) -> Result<Value, RemoteError> {
    let archive = match delivery {
        ExtensionDelivery::Automatic => !endpoint.is_loopback(),
        ExtensionDelivery::LocalPath => false,
        ExtensionDelivery::Archive => true,
        ExtensionDelivery::PathOnRemote(remote_path) => {
            return Ok(
                json!({ "extensionData": { "type": "path", "path": remote_path.to_string_lossy() } }),
            )
        }
    };
    if !archive {
        return Ok(crate::bidi::commands::web_extension_install_params(folder));
    }
    let bytes = crate::zip_archive::zip_folder(folder).map_err(|error| {
        RemoteError::Extension(format!("cannot archive {}: {error}", folder.display()))
    })?;
    Ok(json!({ "extensionData": { "type": "base64", "value": crate::base64::encode(&bytes) } }))
}

#[derive(Debug)]
pub enum RemoteError {
    InvalidUrl(String),
    /// The HTTP exchange failed (no answer, not HTTP, not JSON).
    Http(String),
    SessionNotCreated(String),
    /// The remote end made a session without BiDi (too old, or `webSocketUrl` not supported).
    NoWebSocketUrl,
    /// The remote end's `webSocketUrl` points somewhere it may not ([`check_bidi_web_socket_url`]).
    UntrustedWebSocketUrl(String),
    Bidi(BidiError),
    Extension(String),
    Capability(CapabilityError),
}

impl std::fmt::Display for RemoteError {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::InvalidUrl(detail) => write!(formatter, "invalid WebDriver URL {detail}"),
            Self::Http(detail) => write!(formatter, "the WebDriver remote end: {detail}"),
            Self::SessionNotCreated(detail) => {
                write!(formatter, "the remote end created no session: {detail}")
            }
            Self::NoWebSocketUrl => write!(
                formatter,
                "the remote end created a session without a BiDi WebSocket (webSocketUrl); it needs WebDriver BiDi support"
            ),
            Self::UntrustedWebSocketUrl(detail) => write!(formatter, "{detail}; allwright refuses to connect"),
            Self::Bidi(error) => write!(formatter, "{error}"),
            Self::Extension(detail) => write!(formatter, "installing the extension: {detail}"),
            Self::Capability(error) => write!(formatter, "{error}"),
        }
    }
}

impl std::error::Error for RemoteError {}

impl From<InvalidRemoteUrl> for RemoteError {
    fn from(InvalidRemoteUrl(detail): InvalidRemoteUrl) -> Self {
        Self::InvalidUrl(detail)
    }
}

impl From<CapabilityError> for RemoteError {
    fn from(error: CapabilityError) -> Self {
        Self::Capability(error)
    }
}

impl From<BidiError> for RemoteError {
    fn from(error: BidiError) -> Self {
        Self::Bidi(error)
    }
}

/// A BiDi session on a remote end, with the extension installed when one was given.
pub struct RemoteSession {
    bidi: BidiConnection,
    endpoint: RemoteEndpoint,
    /// The classic session (HTTP remote ends only), ended by [`RemoteSession::end`] or on drop.
    classic_session: Option<ClassicSessionGuard>,
    capabilities: Value,
    extension_id: Option<String>,
}

impl RemoteSession {
    pub async fn start(options: &RemoteSessionOptions) -> Result<Self, RemoteError> {
        let endpoint = parse_remote_url(&options.url)?;
        let mut session = match endpoint.protocol {
            RemoteProtocol::ClassicHttp => Self::start_classic(options, endpoint).await?,
            RemoteProtocol::BidiWebSocket => Self::start_bidi_only(options, endpoint).await?,
        };
        if let Some(folder) = &options.extension {
            let installed = async {
                let params = extension_install_params(
                    folder,
                    &options.extension_delivery,
                    &session.endpoint,
                )?;
                let archived = params["extensionData"]["type"] == "base64";
                let result = session
                    .bidi
                    .command("webExtension.install", params)
                    .await
                    .map_err(|error| match error.kind {
                        BidiErrorKind::Unsupported if archived => RemoteError::Extension(format!(
                            "the remote browser installs extensions by path only ({}); copy the extension folder to the remote machine and pass its path there (ExtensionDelivery::PathOnRemote)",
                            error.message
                        )),
                        _ => RemoteError::Bidi(error),
                    })?;
                Ok::<_, RemoteError>(crate::bidi::commands::installed_extension_id(&result)?)
            }
            .await;
            match installed {
                Ok(id) => session.extension_id = Some(id),
                Err(error) => {
                    session.end().await;
                    return Err(error);
                }
            }
        }
        Ok(session)
    }

    async fn start_classic(
        options: &RemoteSessionOptions,
        endpoint: RemoteEndpoint,
    ) -> Result<Self, RemoteError> {
        let request = classic_new_session_request(options)?;
        let creating = classic_request(
            &endpoint,
            "POST",
            "/session",
            Some(&request),
            NEW_SESSION_TIMEOUT,
        );
        let response = reporting_progress(creating, options.progress.as_ref())
            .await
            .map_err(RemoteError::Http)?;
        let (session_id, web_socket_url, capabilities) =
            read_classic_new_session(response.status, &response.body)?;
        // From here the session exists: dropping the guard (an error below, or a signal that
        // drops this future) ends it.
        let mut classic_session = ClassicSessionGuard {
            endpoint: endpoint.clone(),
            session_id: Some(session_id),
        };
        let connection = match check_bidi_web_socket_url(&endpoint, &web_socket_url) {
            Ok(web_socket) => {
                open_web_socket(&web_socket, basic_authorization(&endpoint).as_deref()).await
            }
            Err(refusal) => Err(refusal),
        };
        match connection {
            Ok(bidi) => Ok(Self {
                bidi,
                endpoint,
                classic_session: Some(classic_session),
                capabilities,
                extension_id: None,
            }),
            Err(error) => {
                classic_session.end().await;
                Err(error)
            }
        }
    }

    async fn start_bidi_only(
        options: &RemoteSessionOptions,
        endpoint: RemoteEndpoint,
    ) -> Result<Self, RemoteError> {
        let always_match = options.always_match(false)?;
        let bidi = open_web_socket(&endpoint, basic_authorization(&endpoint).as_deref()).await?;
        let result = bidi
            .new_session_with(json!({ "alwaysMatch": always_match }))
            .await?;
        Ok(Self {
            bidi,
            endpoint,
            classic_session: None,
            capabilities: result["capabilities"].clone(),
            extension_id: None,
        })
    }

    pub fn bidi(&self) -> &BidiConnection {
        &self.bidi
    }

    pub fn endpoint(&self) -> &RemoteEndpoint {
        &self.endpoint
    }

    /// The capabilities the remote end granted.
    pub fn capabilities(&self) -> &Value {
        &self.capabilities
    }

    /// The installed extension's id, when an extension was given.
    pub fn extension_id(&self) -> Option<&str> {
        self.extension_id.as_deref()
    }

    /// Ends the session (the remote end closes its browser); errors are ignored, since the
    /// remote end may already be gone.
    pub async fn end(mut self) {
        match &mut self.classic_session {
            Some(classic_session) => classic_session.end().await,
            None => {
                let _ = self
                    .bidi
                    .command_with_timeout("session.end", json!({}), END_SESSION_TIMEOUT)
                    .await;
            }
        }
        self.bidi.close().await;
    }
}

/// Awaits `creating`, calling `progress` every [`NEW_SESSION_PROGRESS_INTERVAL`] with the time
/// waited so far, until it answers.
async fn reporting_progress<T>(
    creating: impl std::future::Future<Output = T>,
    progress: Option<&NewSessionProgress>,
) -> T {
    let started = tokio::time::Instant::now();
    tokio::pin!(creating);
    let mut ticks = tokio::time::interval_at(
        tokio::time::Instant::now() + NEW_SESSION_PROGRESS_INTERVAL,
        NEW_SESSION_PROGRESS_INTERVAL,
    );
    loop {
        tokio::select! {
            answer = &mut creating => return answer,
            _ = ticks.tick() => {
                if let Some(progress) = progress {
                    progress(started.elapsed());
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_classic_session_asks_for_bidi_the_browser_and_open_prompts() {
        let mut options = RemoteSessionOptions::new("http://127.0.0.1:9515", BrowserKind::Chromium);
        options.extra_capabilities.insert(
            "goog:chromeOptions".into(),
            json!({"args": ["--headless=new"]}),
        );
        let request = classic_new_session_request(&options).expect("capabilities");
        let always = &request["capabilities"]["alwaysMatch"];
        assert_eq!(always["browserName"], "chrome");
        assert_eq!(always["webSocketUrl"], true);
        assert_eq!(
            always["unhandledPromptBehavior"],
            keep_prompts_open_capability()
        );
        assert_eq!(always["goog:chromeOptions"]["args"][0], "--headless=new");
        let firefox = RemoteSessionOptions::new("ws://127.0.0.1:1/session", BrowserKind::Firefox);
        let firefox_capabilities = firefox.always_match(false).expect("capabilities");
        assert_eq!(firefox_capabilities["browserName"], "firefox");
        assert!(firefox_capabilities.get("webSocketUrl").is_none());
    }

    #[test]
    fn the_new_session_answer_names_the_websocket_or_the_error() {
        let answer = json!({"value": {"sessionId": "abc", "capabilities": {"browserName": "chrome", "webSocketUrl": "ws://127.0.0.1:9515/session/abc"}}});
        let (id, web_socket_url, capabilities) =
            read_classic_new_session(200, &answer).expect("a session");
        assert_eq!(id, "abc");
        assert_eq!(web_socket_url, "ws://127.0.0.1:9515/session/abc");
        assert_eq!(capabilities["browserName"], "chrome");
        let without_bidi = json!({"value": {"sessionId": "abc", "capabilities": {}}});
        assert!(matches!(
            read_classic_new_session(200, &without_bidi),
            Err(RemoteError::NoWebSocketUrl)
        ));
        let refused = json!({"value": {"error": "session not created", "message": "no node"}});
        let error = read_classic_new_session(500, &refused).expect_err("refused");
        assert!(error.to_string().contains("no node"), "{error}");
    }

    #[test]
    fn extensions_go_by_path_to_loopback_and_as_an_archive_elsewhere() {
        let folder = tempfile::tempdir().expect("a temporary folder");
        std::fs::write(folder.path().join("manifest.json"), b"{}").expect("write");
        let local = parse_remote_url("http://127.0.0.1:9515").expect("url");
        let remote = parse_remote_url("http://10.0.0.7:4444").expect("url");
        let by_path =
            extension_install_params(folder.path(), &ExtensionDelivery::Automatic, &local)
                .expect("params");
        assert_eq!(by_path["extensionData"]["type"], "path");
        let archived =
            extension_install_params(folder.path(), &ExtensionDelivery::Automatic, &remote)
                .expect("params");
        assert_eq!(archived["extensionData"]["type"], "base64");
        let bytes = crate::base64::decode(
            archived["extensionData"]["value"]
                .as_str()
                .unwrap_or_default(),
        )
        .expect("base64");
        assert_eq!(&bytes[..4], b"PK\x03\x04");
        let there = extension_install_params(
            folder.path(),
            &ExtensionDelivery::PathOnRemote(PathBuf::from("/opt/ext")),
            &remote,
        )
        .expect("params");
        assert_eq!(there["extensionData"]["path"], "/opt/ext");
    }

    /// Accepts one HTTP request on a loopback listener, answers `{"value": null}`, and hands
    /// the request's head back.
    async fn one_request_server() -> (u16, tokio::task::JoinHandle<String>) {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("a listener");
        let port = listener.local_addr().expect("its address").port();
        let server = tokio::spawn(async move {
            let (mut stream, _) = listener.accept().await.expect("a connection");
            let mut head = Vec::new();
            let mut buffer = [0u8; 4096];
            while !head.windows(4).any(|window| window == b"\r\n\r\n") {
                let read = stream.read(&mut buffer).await.expect("a read");
                assert!(read > 0, "the request ended before its head");
                head.extend_from_slice(&buffer[..read]);
            }
            let body = b"{\"value\":null}";
            let answer = format!("HTTP/1.1 200 OK\r\nContent-Length: {}\r\n\r\n", body.len());
            stream.write_all(answer.as_bytes()).await.expect("a write");
            stream.write_all(body).await.expect("a write");
            String::from_utf8_lossy(&head).into_owned()
        });
        (port, server)
    }

    #[tokio::test]
    async fn credentials_go_as_basic_authentication() {
        let (port, server) = one_request_server().await;
        let endpoint = parse_remote_url(&format!("http://alice:s%40cret@127.0.0.1:{port}/wd/hub"))
            .expect("url");
        let answer = classic_request(&endpoint, "GET", "/status", None, Duration::from_secs(5))
            .await
            .expect("an answer");
        assert_eq!(answer.status, 200);
        let head = server.await.expect("the server");
        assert!(
            head.starts_with("GET /wd/hub/status HTTP/1.1\r\n"),
            "{head}"
        );
        // RFC 7617, section 2: base64("alice:s@cret").
        assert!(
            head.contains("\r\nAuthorization: Basic YWxpY2U6c0BjcmV0\r\n"),
            "{head}"
        );
        let (port, server) = one_request_server().await;
        let without = parse_remote_url(&format!("http://127.0.0.1:{port}")).expect("url");
        classic_request(&without, "GET", "/status", None, Duration::from_secs(5))
            .await
            .expect("an answer");
        assert!(!server.await.expect("the server").contains("Authorization"));
    }

    /// A session dropped without `end` (a signal while it started, an error) is deleted all
    /// the same, from inside a runtime as from outside one.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_dropped_classic_session_is_deleted() {
        let (port, server) = one_request_server().await;
        let guard = ClassicSessionGuard {
            endpoint: parse_remote_url(&format!("http://bob:pw@127.0.0.1:{port}")).expect("url"),
            session_id: Some("abc123".into()),
        };
        drop(guard);
        let head = server.await.expect("the server");
        assert!(
            head.starts_with("DELETE /session/abc123 HTTP/1.1\r\n"),
            "{head}"
        );
        assert!(head.contains("Authorization: Basic "), "{head}");
    }

    #[tokio::test(start_paused = true)]
    async fn a_waiting_new_session_reports_its_progress() {
        let reports = Arc::new(std::sync::Mutex::new(Vec::new()));
        let recorded = Arc::clone(&reports);
        let progress: NewSessionProgress = Arc::new(move |waited: Duration| {
            recorded.lock().expect("the reports").push(waited);
        });
        let answer = reporting_progress(
            async {
                tokio::time::sleep(Duration::from_secs(17)).await;
                "created"
            },
            Some(&progress),
        )
        .await;
        assert_eq!(answer, "created");
        assert_eq!(
            *reports.lock().expect("the reports"),
            [5, 10, 15].map(Duration::from_secs)
        );
    }

    /// The class of `webSocketUrl` answers: every way to name another host while looking like
    /// loopback is refused, and the ones Selenium and chromedriver really send are accepted.
    #[test]
    fn a_remote_ends_web_socket_url_must_stay_on_its_host() {
        let local = parse_remote_url("http://127.0.0.1:4444").expect("url");
        for accepted in [
            "ws://127.0.0.1:4444/session/abc/se/bidi",
            "ws://127.0.0.1:9515/session/abc",
            "ws://127.8.9.10:1/session",
            "ws://localhost:9222/session/abc",
            "WS://LOCALHOST:9222/session/abc",
            "ws://[::1]:9222/session",
            "wss://127.0.0.1:4444/session",
        ] {
            assert!(
                check_bidi_web_socket_url(&local, accepted).is_ok(),
                "{accepted} should be accepted"
            );
        }
        for refused in [
            "ws://127.0.0.1.evil.example:4444/session",
            "ws://localhost.evil.example/session",
            "ws://127.0.0.1@evil.example/session",
            "ws://user:pw@127.0.0.1:4444/session",
            "ws://evil.example:4444/session",
            "ws://10.0.0.7:4444/session",
            "ws://[::ffff:10.0.0.7]:4444/session",
            "ws://0.0.0.0:4444/session",
            "http://127.0.0.1:4444/session",
            "ftp://127.0.0.1/session",
            "ws://127.0.0.1:4444/session?next=ws://evil",
            "127.0.0.1:4444",
            "",
        ] {
            let error = check_bidi_web_socket_url(&local, refused)
                .expect_err(refused)
                .to_string();
            assert!(error.contains("refuses to connect"), "{refused}: {error}");
        }
        let secure = parse_remote_url("https://grid.example/wd/hub").expect("url");
        assert!(check_bidi_web_socket_url(&secure, "wss://grid.example/session/a").is_ok());
        let error = check_bidi_web_socket_url(&secure, "ws://grid.example/session/a")
            .expect_err("a plain WebSocket after https")
            .to_string();
        assert!(error.contains("not wss://"), "{error}");
        let remote = parse_remote_url("http://grid.example:4444/wd/hub").expect("url");
        assert!(check_bidi_web_socket_url(&remote, "ws://GRID.example:4444/session/a").is_ok());
        for refused in [
            "ws://127.0.0.1:4444/session/a",
            "ws://grid.example.evil:4444/session/a",
            "ws://other.example:4444/session/a",
        ] {
            assert!(
                check_bidi_web_socket_url(&remote, refused).is_err(),
                "{refused} should be refused for a grid on grid.example"
            );
        }
    }
}
