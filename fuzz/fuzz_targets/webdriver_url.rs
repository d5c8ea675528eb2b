//! The `--webdriver URL` parser (crates/allwright-surface-web/src/remote/endpoint.rs) on any
//! text, and on URLs assembled from a scheme, a host, a port and a path with arbitrary text in
//! each. Properties: no panic; an accepted URL's host and port are the ones the `http` crate's
//! URI parser (RFC 3986, already in the lock file through the WebSocket client) reads from the
//! same text; the host is a name, an IPv4 address or a bracketed IPv6 address, and neither host
//! nor path holds a character that could end the HTTP request line or a header (space, control
//! characters); the URL re-rendered by `url()` parses to the same endpoint.

#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;

#[path = "../../crates/allwright-surface-web/src/webdriver_http"]
mod webdriver_http {
    #[allow(dead_code)]
    mod framing;
    pub(crate) use framing::host_header;
}

#[path = "../../crates/allwright-surface-web/src/remote/endpoint.rs"]
#[allow(dead_code)]
mod endpoint;

use endpoint::{parse_remote_url, RemoteProtocol};

#[derive(Arbitrary, Debug)]
enum Host {
    Name(String),
    Ipv4([u8; 4]),
    Ipv6([u16; 8]),
    Bracketed(String),
}

#[derive(Arbitrary, Debug)]
enum Input {
    Text(String),
    Assembled {
        scheme: u8,
        host: Host,
        port: Option<String>,
        path: String,
    },
}

const SCHEMES: [&str; 7] = ["http", "ws", "HTTP", "Ws", "https", "wss", "ftp"];

fuzz_target!(|input: Input| {
    let url = match input {
        Input::Text(text) => text,
        Input::Assembled {
            scheme,
            host,
            port,
            path,
        } => {
            let scheme = SCHEMES[scheme as usize % SCHEMES.len()];
            let host = match host {
                Host::Name(name) => name,
                Host::Ipv4(octets) => std::net::Ipv4Addr::from(octets).to_string(),
                Host::Ipv6(segments) => format!("[{}]", std::net::Ipv6Addr::from(segments)),
                Host::Bracketed(text) => format!("[{text}]"),
            };
            let port = port.map(|port| format!(":{port}")).unwrap_or_default();
            format!("{scheme}://{host}{port}{path}")
        }
    };
    check(&url);
});

fn check(url: &str) {
    let Ok(endpoint) = parse_remote_url(url) else {
        return;
    };
    // The host: a bracketed IPv6 address, or a name or IPv4 address of URL-safe characters.
    if endpoint.host.contains(':') {
        assert!(
            endpoint.host.parse::<std::net::Ipv6Addr>().is_ok(),
            "{url:?}: host {:?} has a colon but is no IPv6 address",
            endpoint.host
        );
    } else {
        assert!(
            endpoint
                .host
                .chars()
                .all(|character| character.is_ascii_alphanumeric() || "-._~".contains(character)),
            "{url:?}: host {:?}",
            endpoint.host
        );
    }
    assert!(!endpoint.host.is_empty());
    assert!(endpoint.port != 0, "{url:?}: port 0");
    assert!(
        endpoint
            .path
            .chars()
            .all(|character| character.is_ascii_graphic()),
        "{url:?}: path {:?} would break the request line",
        endpoint.path
    );
    assert!(endpoint.path.is_empty() || endpoint.path.starts_with('/'));
    // A second parser reads the same host and port.
    let uri: http::Uri = url
        .parse()
        .unwrap_or_else(|error| panic!("{url:?} accepted here, refused by http::Uri: {error}"));
    let expected_scheme = match (endpoint.protocol, endpoint.tls) {
        (RemoteProtocol::ClassicHttp, false) => "http",
        (RemoteProtocol::ClassicHttp, true) => "https",
        (RemoteProtocol::BidiWebSocket, false) => "ws",
        (RemoteProtocol::BidiWebSocket, true) => "wss",
    };
    assert!(uri
        .scheme_str()
        .is_some_and(|scheme| scheme.eq_ignore_ascii_case(expected_scheme)));
    let uri_host = uri.host().unwrap_or_default();
    let uri_host = uri_host
        .strip_prefix('[')
        .and_then(|host| host.strip_suffix(']'))
        .unwrap_or(uri_host);
    assert_eq!(uri_host, endpoint.host, "{url:?}");
    let default_port = if endpoint.tls { 443 } else { 80 };
    assert_eq!(
        uri.port_u16().unwrap_or(default_port),
        endpoint.port,
        "{url:?}"
    );
    assert_eq!(uri.path().trim_end_matches('/'), endpoint.path, "{url:?}");
    // The URL as allwright writes it again reads back the same, less the credentials, which
    // `url()` never writes (so that no message can hold them).
    let again = parse_remote_url(&endpoint.url())
        .unwrap_or_else(|error| panic!("{url:?} re-rendered as {} fails: {error}", endpoint.url()));
    assert!(again.credentials.is_none(), "{url:?}");
    let mut without_credentials = endpoint.clone();
    without_credentials.credentials = None;
    assert_eq!(again, without_credentials, "{url:?}");
}
