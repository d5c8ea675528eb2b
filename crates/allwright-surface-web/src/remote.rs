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
//! Plain `http`/`ws` only (see `webdriver_http.rs`): an `https` grid needs a local proxy.

use std::path::PathBuf;
use std::time::Duration;

use serde_json::{json, Map, Value};

use crate::bidi::{BidiConnection, BidiError, BidiErrorKind};
use crate::launch::BrowserKind;
use crate::lifecycle::keep_prompts_open_capability;
use crate::webdriver_http;

mod endpoint;
pub use endpoint::{parse_remote_url, InvalidRemoteUrl, RemoteEndpoint, RemoteProtocol};

/// Creating a session on a grid may wait for a free node.
const NEW_SESSION_TIMEOUT: Duration = Duration::from_secs(120);
const END_SESSION_TIMEOUT: Duration = Duration::from_secs(10);

/// Whether the BiDi WebSocket a classic remote end hands out (`capabilities.webSocketUrl` of its
/// `POST /session` answer) may be connected to: a `ws://` URL without credentials on a loopback
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
            "the remote end at {} handed out the BiDi WebSocket {web_socket_url:?}, {reason}",
            remote_end.url()
        ))
    };
    let web_socket = parse_remote_url(web_socket_url)
        .map_err(|error| refused(format!("which cannot be used: {error}")))?;
    if web_socket.protocol != RemoteProtocol::BidiWebSocket {
        return Err(refused("which is not a ws:// URL".into()));
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
#[derive(Debug, Clone)]
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
        }
    }

    /// The `alwaysMatch` capabilities of the new session.
    pub fn always_match(&self, with_web_socket_url: bool) -> Value {
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
        Value::Object(capabilities)
    }
}

/// The body of WebDriver classic's `POST /session`.
pub fn classic_new_session_request(options: &RemoteSessionOptions) -> Value {
    json!({ "capabilities": { "alwaysMatch": options.always_match(true) } })
}

/// The session id, the BiDi WebSocket URL and the capabilities from a classic `POST /session`
/// answer (`{value: {sessionId, capabilities}}`), or the remote end's error
/// (`{value: {error, message}}`).
pub fn read_classic_new_session(
    status: u16,
    body: &Value,
) -> Result<(String, String, Value), RemoteError> {
    let value = &body["value"];
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
        }
    }
}

impl std::error::Error for RemoteError {}

impl From<InvalidRemoteUrl> for RemoteError {
    fn from(InvalidRemoteUrl(detail): InvalidRemoteUrl) -> Self {
        Self::InvalidUrl(detail)
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
    /// The classic session id (HTTP remote ends only).
    classic_session_id: Option<String>,
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
        let response = webdriver_http::request_to(
            &endpoint.host,
            endpoint.port,
            "POST",
            &format!("{}/session", endpoint.path),
            Some(&classic_new_session_request(options)),
            NEW_SESSION_TIMEOUT,
        )
        .await
        .map_err(RemoteError::Http)?;
        let (session_id, web_socket_url, capabilities) =
            read_classic_new_session(response.status, &response.body)?;
        let connection = match check_bidi_web_socket_url(&endpoint, &web_socket_url) {
            Ok(_) => BidiConnection::connect(&web_socket_url)
                .await
                .map_err(RemoteError::from),
            Err(refusal) => Err(refusal),
        };
        match connection {
            Ok(bidi) => Ok(Self {
                bidi,
                endpoint,
                classic_session_id: Some(session_id),
                capabilities,
                extension_id: None,
            }),
            Err(error) => {
                let _ = webdriver_http::request_to(
                    &endpoint.host,
                    endpoint.port,
                    "DELETE",
                    &format!("{}/session/{session_id}", endpoint.path),
                    None,
                    END_SESSION_TIMEOUT,
                )
                .await;
                Err(error)
            }
        }
    }

    async fn start_bidi_only(
        options: &RemoteSessionOptions,
        endpoint: RemoteEndpoint,
    ) -> Result<Self, RemoteError> {
        let bidi = BidiConnection::connect(&endpoint.url()).await?;
        let result = bidi
            .new_session_with(json!({ "alwaysMatch": options.always_match(false) }))
            .await?;
        Ok(Self {
            bidi,
            endpoint,
            classic_session_id: None,
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
    pub async fn end(self) {
        match &self.classic_session_id {
            Some(session_id) => {
                let _ = webdriver_http::request_to(
                    &self.endpoint.host,
                    self.endpoint.port,
                    "DELETE",
                    &format!("{}/session/{session_id}", self.endpoint.path),
                    None,
                    END_SESSION_TIMEOUT,
                )
                .await;
            }
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
        let request = classic_new_session_request(&options);
        let always = &request["capabilities"]["alwaysMatch"];
        assert_eq!(always["browserName"], "chrome");
        assert_eq!(always["webSocketUrl"], true);
        assert_eq!(
            always["unhandledPromptBehavior"],
            keep_prompts_open_capability()
        );
        assert_eq!(always["goog:chromeOptions"]["args"][0], "--headless=new");
        let firefox = RemoteSessionOptions::new("ws://127.0.0.1:1/session", BrowserKind::Firefox);
        assert_eq!(firefox.always_match(false)["browserName"], "firefox");
        assert!(firefox.always_match(false).get("webSocketUrl").is_none());
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
            "wss://127.0.0.1:4444/session",
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
