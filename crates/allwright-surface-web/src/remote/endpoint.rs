//! The `--webdriver URL` of a remote end, read into a scheme, a host, a port and a base path
//! (see `remote.rs` for what each scheme starts). A pure function with no other dependency than
//! the Host header's rendering, so that the fuzz target `webdriver_url` compiles it as it is.

use std::net::IpAddr;

use crate::webdriver_http::host_header;

/// The scheme of a remote end URL: which protocol starts the session.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RemoteProtocol {
    /// WebDriver classic over HTTP, which hands out a BiDi WebSocket.
    ClassicHttp,
    /// A BiDi WebSocket directly.
    BidiWebSocket,
}

/// A parsed remote end URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RemoteEndpoint {
    pub protocol: RemoteProtocol,
    /// A host name or IP address; IPv6 without brackets.
    pub host: String,
    pub port: u16,
    /// The path, without a trailing slash (`""`, `"/wd/hub"`, `"/session"`).
    pub path: String,
}

impl RemoteEndpoint {
    /// Whether the remote end runs on this machine, so that it can read our files.
    pub fn is_loopback(&self) -> bool {
        self.host.eq_ignore_ascii_case("localhost")
            || self
                .host
                .parse::<IpAddr>()
                .is_ok_and(|address| address.is_loopback())
    }

    /// The URL again, for messages and for the BiDi WebSocket.
    pub fn url(&self) -> String {
        let scheme = match self.protocol {
            RemoteProtocol::ClassicHttp => "http",
            RemoteProtocol::BidiWebSocket => "ws",
        };
        format!(
            "{scheme}://{}{}",
            host_header(&self.host, self.port),
            self.path
        )
    }
}

/// Reads `http://host[:port][/path]` or `ws://host[:port][/path]`. User names, queries,
/// fragments and `https`/`wss` are refused with a reason.
pub fn parse_remote_url(url: &str) -> Result<RemoteEndpoint, InvalidRemoteUrl> {
    let invalid = |reason: &str| InvalidRemoteUrl(format!("{url}: {reason}"));
    let (scheme, rest) = url
        .split_once("://")
        .ok_or_else(|| invalid("expected http://host:port or ws://host:port"))?;
    let (protocol, default_port) = match scheme.to_ascii_lowercase().as_str() {
        "http" => (RemoteProtocol::ClassicHttp, 80),
        "ws" => (RemoteProtocol::BidiWebSocket, 80),
        "https" | "wss" => {
            return Err(invalid(
                "TLS is not supported; put a local forwarding proxy in front of the grid",
            ))
        }
        _ => return Err(invalid("the scheme must be http or ws")),
    };
    if rest.contains(['?', '#']) {
        return Err(invalid("a query or fragment is not allowed"));
    }
    let (authority, path) = match rest.find('/') {
        Some(slash) => rest.split_at(slash),
        None => (rest, ""),
    };
    if authority.contains('@') {
        return Err(invalid("credentials in the URL are not supported"));
    }
    let (host, port_text) = if let Some(bracketed) = authority.strip_prefix('[') {
        let (host, after) = bracketed
            .split_once(']')
            .ok_or_else(|| invalid("an IPv6 address lacks its closing bracket"))?;
        (host, after.strip_prefix(':'))
    } else {
        match authority.rsplit_once(':') {
            Some((host, port)) => (host, Some(port)),
            None => (authority, None),
        }
    };
    if host.is_empty() {
        return Err(invalid("no host"));
    }
    let port = match port_text {
        Some(text) => text
            .parse::<u16>()
            .map_err(|_| invalid("the port is not a number from 1 to 65535"))?,
        None => default_port,
    };
    Ok(RemoteEndpoint {
        protocol,
        host: host.to_owned(),
        port,
        path: path.trim_end_matches('/').to_owned(),
    })
}

/// A `--webdriver` URL that cannot name a remote end: the URL and the reason, for the person
/// who typed it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InvalidRemoteUrl(pub String);

impl std::fmt::Display for InvalidRemoteUrl {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(formatter, "invalid WebDriver URL {}", self.0)
    }
}

impl std::error::Error for InvalidRemoteUrl {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remote_urls_are_parsed_with_their_base_path() {
        assert_eq!(
            parse_remote_url("http://grid.example:4444/wd/hub/").expect("url"),
            RemoteEndpoint {
                protocol: RemoteProtocol::ClassicHttp,
                host: "grid.example".into(),
                port: 4444,
                path: "/wd/hub".into()
            }
        );
        let local = parse_remote_url("http://127.0.0.1:9515").expect("url");
        assert_eq!(local.path, "");
        assert!(local.is_loopback());
        let ipv6 = parse_remote_url("http://[::1]:4444").expect("url");
        assert_eq!(ipv6.host, "::1");
        assert!(ipv6.is_loopback());
        assert_eq!(ipv6.url(), "http://[::1]:4444");
        let bidi = parse_remote_url("ws://localhost:9222/session").expect("url");
        assert_eq!(bidi.protocol, RemoteProtocol::BidiWebSocket);
        assert!(bidi.is_loopback());
        assert_eq!(bidi.url(), "ws://localhost:9222/session");
        assert_eq!(parse_remote_url("http://node7").expect("url").port, 80);
        assert!(!parse_remote_url("http://10.0.0.7:4444")
            .expect("url")
            .is_loopback());
    }

    #[test]
    fn unsupported_remote_urls_say_why() {
        for (url, reason) in [
            ("https://grid:4444", "TLS"),
            ("grid:4444", "expected"),
            ("ftp://grid", "scheme"),
            ("http://user:pw@grid:4444", "credentials"),
            ("http://grid:99999", "port"),
            ("http://:4444", "no host"),
            ("http://grid:4444/?x=1", "query"),
        ] {
            let error = parse_remote_url(url).expect_err(url).to_string();
            assert!(error.contains(reason), "{url}: {error}");
        }
    }
}
