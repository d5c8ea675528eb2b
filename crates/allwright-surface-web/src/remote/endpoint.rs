//! The `--webdriver URL` of a remote end, read into a scheme, a host, a port and a base path
//! (see `remote.rs` for what each scheme starts). A pure function with no other dependency than
//! the Host header's rendering, so that the fuzz target `webdriver_url` compiles it as it is.

use std::net::{IpAddr, Ipv6Addr};

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
    /// `https` or `wss`: the connection is TLS (`tls.rs`, the system's roots).
    pub tls: bool,
    /// The `user:password@` of the URL, sent as HTTP basic authentication (RFC 7617) on every
    /// request and on the WebSocket handshake. Never part of [`RemoteEndpoint::url`].
    pub credentials: Option<Credentials>,
}

/// A user name and password from a remote end URL (`http://user:password@grid:4444`),
/// percent-decoded. Its `Debug` hides the password, so that no log or error can print it.
#[derive(Clone, PartialEq, Eq)]
pub struct Credentials {
    pub user: String,
    password: String,
}

impl Credentials {
    /// The password, for the one place that writes the `Authorization` header.
    pub fn password(&self) -> &str {
        &self.password
    }
}

impl std::fmt::Debug for Credentials {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            formatter,
            "Credentials {{ user: {:?}, password: \"***\" }}",
            self.user
        )
    }
}

/// The URL as typed, with anything that could be a `user:password@` replaced by `***@`, for
/// messages. Everything before the last `@` after the scheme goes, so that a password holding an
/// unencoded `/` or `@` (which the parser refuses) is hidden too; a path holding an `@` loses
/// its host in the message, which is the price of never printing a password.
pub fn without_credentials(url: &str) -> String {
    match url.split_once("://") {
        Some((scheme, rest)) => match rest.rfind('@') {
            Some(at) => format!("{scheme}://***@{}", &rest[at + 1..]),
            None => url.to_owned(),
        },
        None if url.contains('@') => "***".to_owned(),
        None => url.to_owned(),
    }
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
        let scheme = match (self.protocol, self.tls) {
            (RemoteProtocol::ClassicHttp, false) => "http",
            (RemoteProtocol::ClassicHttp, true) => "https",
            (RemoteProtocol::BidiWebSocket, false) => "ws",
            (RemoteProtocol::BidiWebSocket, true) => "wss",
        };
        format!(
            "{scheme}://{}{}",
            host_header(&self.host, self.port),
            self.path
        )
    }
}

/// Reads `http://[user:password@]host[:port][/path]` or `ws://[user:password@]host[:port][/path]`,
/// or the same with `https`/`wss`. Queries and fragments are refused with a reason; the reason
/// quotes the URL without its credentials ([`without_credentials`]).
pub fn parse_remote_url(url: &str) -> Result<RemoteEndpoint, InvalidRemoteUrl> {
    let invalid =
        |reason: &str| InvalidRemoteUrl(format!("{}: {reason}", without_credentials(url)));
    let (scheme, rest) = url
        .split_once("://")
        .ok_or_else(|| invalid("expected http://host:port or ws://host:port"))?;
    let (protocol, tls) = match scheme.to_ascii_lowercase().as_str() {
        "http" => (RemoteProtocol::ClassicHttp, false),
        "https" => (RemoteProtocol::ClassicHttp, true),
        "ws" => (RemoteProtocol::BidiWebSocket, false),
        "wss" => (RemoteProtocol::BidiWebSocket, true),
        _ => return Err(invalid("the scheme must be http, https, ws or wss")),
    };
    let default_port = if tls { 443 } else { 80 };
    if rest.contains(['?', '#']) {
        return Err(invalid("a query or fragment is not allowed"));
    }
    let (authority, path) = match rest.find('/') {
        Some(slash) => rest.split_at(slash),
        None => (rest, ""),
    };
    let (credentials, authority) = match authority.split_once('@') {
        Some((user_information, host_and_port)) => {
            if host_and_port.contains('@') {
                return Err(invalid(
                    "more than one '@' before the path (percent-encode an '@' in a password as %40)",
                ));
            }
            (
                Some(read_credentials(user_information).map_err(&invalid)?),
                host_and_port,
            )
        }
        None => (None, authority),
    };
    let (host, port_text) = if let Some(bracketed) = authority.strip_prefix('[') {
        let (host, after) = bracketed
            .split_once(']')
            .ok_or_else(|| invalid("an IPv6 address lacks its closing bracket"))?;
        if host.parse::<Ipv6Addr>().is_err() {
            return Err(invalid("the bracketed host is not an IPv6 address"));
        }
        let port_text = match after {
            "" => None,
            _ => Some(
                after
                    .strip_prefix(':')
                    .ok_or_else(|| invalid("only a port may follow the IPv6 address"))?,
            ),
        };
        (host, port_text)
    } else {
        let (host, port_text) = match authority.rsplit_once(':') {
            Some((host, port)) => (host, Some(port)),
            None => (authority, None),
        };
        if host.is_empty() {
            return Err(invalid("no host"));
        }
        if !host.chars().all(is_host_name_character) {
            return Err(invalid(
                "the host may hold only letters, digits, '-', '.', '_' and '~' (an IPv6 address goes in brackets)",
            ));
        }
        (host, port_text)
    };
    let port = match port_text {
        Some(text) => {
            parse_port(text).ok_or_else(|| invalid("the port is not a number from 1 to 65535"))?
        }
        None => default_port,
    };
    if !path.chars().all(is_path_character) {
        return Err(invalid(
            "the path may hold only the characters RFC 3986 allows in a path (percent-encode the others)",
        ));
    }
    Ok(RemoteEndpoint {
        protocol,
        host: host.to_owned(),
        port,
        path: path.trim_end_matches('/').to_owned(),
        tls,
        credentials,
    })
}

/// RFC 3986's userinfo (section 3.2.1): `user[:password]`, of unreserved characters,
/// percent-encodings and sub-delims, each part percent-decoded to UTF-8. An empty user name is
/// refused: basic authentication needs one.
fn read_credentials(user_information: &str) -> Result<Credentials, &'static str> {
    if !user_information.chars().all(is_user_information_character) {
        return Err("the user name and password may hold only the characters RFC 3986 allows there (percent-encode the others)");
    }
    let (user, password) = user_information
        .split_once(':')
        .unwrap_or((user_information, ""));
    let user = percent_decoded(user).ok_or("the user name is not valid percent-encoded UTF-8")?;
    let password =
        percent_decoded(password).ok_or("the password is not valid percent-encoded UTF-8")?;
    if user.is_empty() {
        return Err("credentials without a user name");
    }
    Ok(Credentials { user, password })
}

/// Percent-decoding (RFC 3986, section 2.1) into UTF-8 text; None for a `%` not followed by two
/// hexadecimal digits or bytes that are not UTF-8.
fn percent_decoded(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut decoded = Vec::with_capacity(bytes.len());
    let mut index = 0;
    while index < bytes.len() {
        if bytes[index] == b'%' {
            let digits = bytes.get(index + 1..index + 3)?;
            // `from_str_radix` alone would also take a sign ("%+1").
            if !digits.iter().all(u8::is_ascii_hexdigit) {
                return None;
            }
            let digits = std::str::from_utf8(digits).ok()?;
            decoded.push(u8::from_str_radix(digits, 16).ok()?);
            index += 3;
        } else {
            decoded.push(bytes[index]);
            index += 1;
        }
    }
    String::from_utf8(decoded).ok()
}

/// A character of a host name or IPv4 address: RFC 3986's "unreserved" characters (section
/// 2.3). Percent-encoded and international names are refused rather than read differently from
/// the resolver: nothing else may reach the `Host` header, where a space or line break would end
/// it.
fn is_host_name_character(character: char) -> bool {
    character.is_ascii_alphanumeric() || matches!(character, '-' | '.' | '_' | '~')
}

/// A character of RFC 3986's userinfo (section 3.2.1): unreserved, percent-encoded, sub-delims
/// and `:`.
fn is_user_information_character(character: char) -> bool {
    character.is_ascii_alphanumeric()
        || matches!(
            character,
            '-' | '.'
                | '_'
                | '~'
                | '%'
                | '!'
                | '$'
                | '&'
                | '\''
                | '('
                | ')'
                | '*'
                | '+'
                | ','
                | ';'
                | '='
                | ':'
        )
}

/// A character of a path: RFC 3986's "pchar" (the userinfo characters and `@`, section 3.3) or
/// the `/` between segments. The path goes into the HTTP request line, where a space or line
/// break would end it.
fn is_path_character(character: char) -> bool {
    is_user_information_character(character) || matches!(character, '@' | '/')
}

/// A port: ASCII digits only (`u16::from_str` would also take a `+`), from 1 to 65535.
fn parse_port(text: &str) -> Option<u16> {
    if text.is_empty() || !text.bytes().all(|byte| byte.is_ascii_digit()) {
        return None;
    }
    text.parse::<u16>().ok().filter(|&port| port != 0)
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
                path: "/wd/hub".into(),
                tls: false,
                credentials: None,
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
        let secure = parse_remote_url("https://grid.example/wd/hub").expect("url");
        assert!(secure.tls);
        assert_eq!(secure.port, 443);
        assert_eq!(secure.url(), "https://grid.example:443/wd/hub");
        let secure_bidi = parse_remote_url("WSS://grid.example:9222/session").expect("url");
        assert_eq!(
            (secure_bidi.protocol, secure_bidi.tls),
            (RemoteProtocol::BidiWebSocket, true)
        );
        assert!(!parse_remote_url("http://10.0.0.7:4444")
            .expect("url")
            .is_loopback());
    }

    #[test]
    fn unsupported_remote_urls_say_why() {
        for (url, reason) in [
            ("ftps://grid:4444", "scheme"),
            ("grid:4444", "expected"),
            ("ftp://grid", "scheme"),
            ("http://:pw@grid:4444", "user name"),
            ("http://a@b@grid:4444", "more than one"),
            ("http://user:p%zzw@grid:4444", "percent-encoded"),
            ("http://user:p w@grid:4444", "RFC 3986"),
            ("http://grid:99999", "port"),
            ("http://:4444", "no host"),
            ("http://grid:4444/?x=1", "query"),
        ] {
            let error = parse_remote_url(url).expect_err(url).to_string();
            assert!(error.contains(reason), "{url}: {error}");
        }
    }

    #[test]
    fn credentials_are_read_decoded_and_never_shown() {
        let endpoint =
            parse_remote_url("http://alice:s%40cr%3At@grid.example:4444/wd/hub").expect("url");
        let credentials = endpoint.credentials.clone().expect("credentials");
        assert_eq!(credentials.user, "alice");
        assert_eq!(credentials.password(), "s@cr:t");
        assert_eq!(endpoint.host, "grid.example");
        assert_eq!(endpoint.url(), "http://grid.example:4444/wd/hub");
        assert!(!format!("{endpoint:?}").contains("s@cr"), "{endpoint:?}");
        let user_only = parse_remote_url("ws://bob@127.0.0.1:9222/session").expect("url");
        assert_eq!(user_only.credentials.expect("credentials").password(), "");
        for (url, shown) in [
            (
                "http://alice:hunter2@grid:4444/wd",
                "http://***@grid:4444/wd",
            ),
            ("http://alice:hun/ter2@grid:4444", "http://***@grid:4444"),
            ("http://alice:hunter2@grid:99999", "http://***@grid:99999"),
            ("http://grid:4444", "http://grid:4444"),
            ("alice:hunter2@grid", "***"),
        ] {
            assert_eq!(without_credentials(url), shown);
            if let Err(error) = parse_remote_url(url) {
                assert!(!error.to_string().contains("hunter2"), "{error}");
            }
        }
        let error = parse_remote_url("http://alice:hunter2@grid:99999").expect_err("port");
        assert!(!error.to_string().contains("hunter2"), "{error}");
    }

    /// Every way a URL could put text into the HTTP request line or `Host` header that ends it
    /// (a space, a line break), or be read differently from what an RFC 3986 parser reads (the
    /// fuzz target `webdriver_url` compares with the `http` crate's): each is refused, not
    /// passed on.
    #[test]
    fn urls_that_a_uri_parser_reads_differently_or_that_break_a_request_are_refused() {
        for (url, reason) in [
            ("http://grid:4444/wd hub", "path"),
            ("http://grid:4444/wd\r\nX-Injected: 1", "path"),
            ("http://grid:4444/caf\u{e9}", "path"),
            ("http://gr id:4444", "host"),
            ("http://grid\r\nX-Injected: 1:4444", "host"),
            ("http://gr%69d:4444", "host"),
            ("http://gr\u{ef}d:4444", "host"),
            ("http://::1:4444", "host"),
            ("http://grid:+4444", "port"),
            ("http://grid:0", "port"),
            ("http://grid:", "port"),
            ("http://grid:44 44", "port"),
            ("http://[::1]evil:4444", "only a port"),
            ("http://[grid.example]:4444", "IPv6"),
            ("http://[]:4444", "IPv6"),
        ] {
            let error = parse_remote_url(url).expect_err(url).to_string();
            assert!(error.contains(reason), "{url:?}: {error}");
        }
        for url in [
            "http://grid-1.example_a~b:4444/wd/hub",
            "http://[fe80::1]:4444/a;b=c/%20d",
            "ws://127.0.0.1:9222/session",
            "http://GRID:0080",
        ] {
            let endpoint = parse_remote_url(url).expect(url);
            assert_eq!(parse_remote_url(&endpoint.url()), Ok(endpoint), "{url}");
        }
    }
}
