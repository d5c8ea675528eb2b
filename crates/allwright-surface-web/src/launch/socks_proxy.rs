//! The SOCKS5 proxy (RFC 1928) through which a launched Firefox, alone in its private network
//! namespace (`private_network.rs`), reaches the network and the machine's loopback: people point
//! the agent at their local dev server, and the tests serve fixtures on 127.0.0.1 and localhost.
//!
//! It listens on a Unix socket in a private 0700 folder, so only its owner can use it, and no TCP
//! port is opened for it. CONNECT only (no BIND, no UDP ASSOCIATE: nothing a page needs from
//! Firefox's HTTP stack), no authentication (the folder's mode is the access check). IPv4, IPv6
//! and domain names, the names resolved here (Firefox sends them unresolved:
//! `network.proxy.socks_remote_dns`). Bounded: at most [`MAX_CONCURRENT_CONNECTIONS`] at once
//! (later ones wait in the listen backlog) and [`HANDSHAKE_TIMEOUT`] for a client to say where it
//! goes. A failed connection is answered with the SOCKS reply code of its cause, so that Firefox
//! fails the page load as it would fail a direct connection.

use std::net::{Ipv4Addr, Ipv6Addr, SocketAddr, SocketAddrV4, SocketAddrV6};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::{TcpStream, UnixListener};
use tokio::task::{JoinHandle, JoinSet};

/// How many proxied connections may be open at once. Firefox opens at most
/// `network.http.max-connections` (900) itself; a page that needs more than this waits.
pub(crate) const MAX_CONCURRENT_CONNECTIONS: usize = 256;
/// How long a client may take to send its greeting and its request.
pub(crate) const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);
/// How long the proxy tries to reach a destination (all its addresses together).
pub(crate) const CONNECT_TIMEOUT: Duration = Duration::from_secs(30);

const SOCKS_VERSION: u8 = 5;
const METHOD_NO_AUTHENTICATION: u8 = 0x00;
const METHOD_NONE_ACCEPTABLE: u8 = 0xFF;
const COMMAND_CONNECT: u8 = 0x01;
const ADDRESS_IPV4: u8 = 0x01;
const ADDRESS_DOMAIN_NAME: u8 = 0x03;
const ADDRESS_IPV6: u8 = 0x04;

/// The reply codes of RFC 1928 section 6 that the proxy sends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ReplyCode {
    Succeeded = 0x00,
    GeneralFailure = 0x01,
    NetworkUnreachable = 0x03,
    HostUnreachable = 0x04,
    ConnectionRefused = 0x05,
    TtlExpired = 0x06,
    CommandNotSupported = 0x07,
    AddressTypeNotSupported = 0x08,
}

/// Where a client asked to go.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Destination {
    Address(SocketAddr),
    DomainName { name: String, port: u16 },
}

/// A parser's answer on the bytes read so far: more are needed, or the message and its length.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Parsed<T> {
    Incomplete,
    Complete { message: T, length: usize },
}

/// Why a handshake was refused; each maps to what the client is told.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum HandshakeError {
    /// Not SOCKS5 (a SOCKS4 client, or not SOCKS at all): closed without a reply.
    BadVersion(u8),
    /// The greeting offers no "no authentication" method.
    NoAcceptableMethod,
    /// BIND or UDP ASSOCIATE, or an unknown command.
    UnsupportedCommand(u8),
    UnsupportedAddressType(u8),
    /// A domain name of length 0 or not UTF-8: nothing a resolver can look up.
    UnusableDomainName,
}

impl HandshakeError {
    /// The reply the client gets, or `None` when it gets none (it does not speak SOCKS5, or the
    /// method negotiation already told it).
    pub(crate) fn reply_code(&self) -> Option<ReplyCode> {
        match self {
            Self::BadVersion(_) | Self::NoAcceptableMethod => None,
            Self::UnsupportedCommand(_) => Some(ReplyCode::CommandNotSupported),
            Self::UnsupportedAddressType(_) => Some(ReplyCode::AddressTypeNotSupported),
            Self::UnusableDomainName => Some(ReplyCode::HostUnreachable),
        }
    }
}

/// The greeting (RFC 1928 section 3): VER NMETHODS METHODS. Complete when it offers
/// "no authentication"; the message is that method.
pub(crate) fn parse_greeting(bytes: &[u8]) -> Result<Parsed<u8>, HandshakeError> {
    let Some(&version) = bytes.first() else {
        return Ok(Parsed::Incomplete);
    };
    if version != SOCKS_VERSION {
        return Err(HandshakeError::BadVersion(version));
    }
    let Some(&method_count) = bytes.get(1) else {
        return Ok(Parsed::Incomplete);
    };
    let length = 2 + usize::from(method_count);
    let Some(methods) = bytes.get(2..length) else {
        return Ok(Parsed::Incomplete);
    };
    if methods.contains(&METHOD_NO_AUTHENTICATION) {
        Ok(Parsed::Complete {
            message: METHOD_NO_AUTHENTICATION,
            length,
        })
    } else {
        Err(HandshakeError::NoAcceptableMethod)
    }
}

/// The request (RFC 1928 section 4): VER CMD RSV ATYP DST.ADDR DST.PORT, CONNECT only.
pub(crate) fn parse_request(bytes: &[u8]) -> Result<Parsed<Destination>, HandshakeError> {
    let Some(&version) = bytes.first() else {
        return Ok(Parsed::Incomplete);
    };
    if version != SOCKS_VERSION {
        return Err(HandshakeError::BadVersion(version));
    }
    let Some(&command) = bytes.get(1) else {
        return Ok(Parsed::Incomplete);
    };
    if command != COMMAND_CONNECT {
        return Err(HandshakeError::UnsupportedCommand(command));
    }
    // bytes[2] is RSV; RFC 1928 gives it no meaning, so any value is accepted.
    let Some(&address_type) = bytes.get(3) else {
        return Ok(Parsed::Incomplete);
    };
    let (address_length, address_start) = match address_type {
        ADDRESS_IPV4 => (4, 4),
        ADDRESS_IPV6 => (16, 4),
        ADDRESS_DOMAIN_NAME => match bytes.get(4) {
            Some(&name_length) => (usize::from(name_length), 5),
            None => return Ok(Parsed::Incomplete),
        },
        other => return Err(HandshakeError::UnsupportedAddressType(other)),
    };
    let port_start = address_start + address_length;
    let length = port_start + 2;
    let (Some(address), Some(port)) = (
        bytes.get(address_start..port_start),
        bytes.get(port_start..length),
    ) else {
        return Ok(Parsed::Incomplete);
    };
    let port = u16::from_be_bytes([port[0], port[1]]);
    let destination = match address_type {
        ADDRESS_IPV4 => {
            let octets: [u8; 4] = address.try_into().unwrap_or_default();
            Destination::Address(SocketAddr::V4(SocketAddrV4::new(
                Ipv4Addr::from(octets),
                port,
            )))
        }
        ADDRESS_IPV6 => {
            let octets: [u8; 16] = address.try_into().unwrap_or_default();
            Destination::Address(SocketAddr::V6(SocketAddrV6::new(
                Ipv6Addr::from(octets),
                port,
                0,
                0,
            )))
        }
        _ => match std::str::from_utf8(address) {
            Ok(name) if !name.is_empty() => Destination::DomainName {
                name: name.to_owned(),
                port,
            },
            _ => return Err(HandshakeError::UnusableDomainName),
        },
    };
    Ok(Parsed::Complete {
        message: destination,
        length,
    })
}

/// The reply (RFC 1928 section 6) with BND.ADDR 0.0.0.0:0: Firefox does not use it.
fn reply(code: ReplyCode) -> [u8; 10] {
    [SOCKS_VERSION, code as u8, 0, ADDRESS_IPV4, 0, 0, 0, 0, 0, 0]
}

/// The reply code for a failed connection, so that Firefox reports the page load's failure as
/// it would report a direct one.
pub(crate) fn reply_code_for_connect_error(error: &std::io::Error) -> ReplyCode {
    match error.kind() {
        std::io::ErrorKind::ConnectionRefused => ReplyCode::ConnectionRefused,
        std::io::ErrorKind::NetworkUnreachable => ReplyCode::NetworkUnreachable,
        std::io::ErrorKind::HostUnreachable | std::io::ErrorKind::AddrNotAvailable => {
            ReplyCode::HostUnreachable
        }
        std::io::ErrorKind::TimedOut => ReplyCode::TtlExpired,
        _ => ReplyCode::GeneralFailure,
    }
}

/// Serves `listener` until the returned task is aborted; aborting it also ends every open
/// connection (they live in the task's `JoinSet`).
pub(crate) fn serve(listener: UnixListener) -> JoinHandle<()> {
    serve_at_most(listener, MAX_CONCURRENT_CONNECTIONS)
}

/// [`serve`] with another cap on concurrent connections (the tests use 1).
fn serve_at_most(listener: UnixListener, most_connections: usize) -> JoinHandle<()> {
    tokio::spawn(async move {
        let mut connections = JoinSet::new();
        loop {
            if connections.len() >= most_connections {
                connections.join_next().await;
                continue;
            }
            tokio::select! {
                accepted = listener.accept() => match accepted {
                    Ok((client, _address)) => {
                        connections.spawn(relay_one(client));
                    }
                    // Out of descriptors, most likely: let open connections finish first.
                    Err(_) => tokio::time::sleep(Duration::from_millis(50)).await,
                },
                Some(_) = connections.join_next(), if !connections.is_empty() => {}
            }
        }
    })
}

/// One client: the handshake, the connection, then bytes both ways until either side closes.
async fn relay_one<Client: AsyncRead + AsyncWrite + Unpin>(mut client: Client) {
    let Ok(Ok((destination, early_bytes))) =
        tokio::time::timeout(HANDSHAKE_TIMEOUT, read_handshake(&mut client)).await
    else {
        return;
    };
    let connected = match tokio::time::timeout(CONNECT_TIMEOUT, connect(&destination)).await {
        Ok(connected) => connected,
        Err(_elapsed) => Err(ReplyCode::TtlExpired),
    };
    let mut upstream = match connected {
        Ok(upstream) => upstream,
        Err(code) => {
            let _ = client.write_all(&reply(code)).await;
            return;
        }
    };
    if client
        .write_all(&reply(ReplyCode::Succeeded))
        .await
        .is_err()
    {
        return;
    }
    if !early_bytes.is_empty() && upstream.write_all(&early_bytes).await.is_err() {
        return;
    }
    let _ = tokio::io::copy_bidirectional(&mut client, &mut upstream).await;
}

/// Reads the greeting, answers it, reads the request. Returns the destination and any bytes the
/// client sent after the request (it may not wait for the reply).
async fn read_handshake<Client: AsyncRead + AsyncWrite + Unpin>(
    client: &mut Client,
) -> std::io::Result<(Destination, Vec<u8>)> {
    let mut buffer = Vec::with_capacity(64);
    let greeting_length = match read_until_parsed(client, &mut buffer, parse_greeting).await? {
        Ok((_method, length)) => length,
        Err(error) => {
            if error == HandshakeError::NoAcceptableMethod {
                let _ = client
                    .write_all(&[SOCKS_VERSION, METHOD_NONE_ACCEPTABLE])
                    .await;
            }
            return Err(std::io::Error::other(format!("{error:?}")));
        }
    };
    client
        .write_all(&[SOCKS_VERSION, METHOD_NO_AUTHENTICATION])
        .await?;
    buffer.drain(..greeting_length);
    match read_until_parsed(client, &mut buffer, parse_request).await? {
        Ok((destination, length)) => Ok((destination, buffer.split_off(length))),
        Err(error) => {
            if let Some(code) = error.reply_code() {
                let _ = client.write_all(&reply(code)).await;
            }
            Err(std::io::Error::other(format!("{error:?}")))
        }
    }
}

/// The longest handshake message: a request with a 255-byte domain name (4 + 1 + 255 + 2), and
/// a greeting with 255 methods (2 + 255).
const LONGEST_HANDSHAKE_MESSAGE: usize = 262;

/// Reads into `buffer` until `parse` completes or refuses. The outer error is the stream's (it
/// closed mid-message); the inner one is the parser's.
async fn read_until_parsed<Client: AsyncRead + Unpin, Message>(
    client: &mut Client,
    buffer: &mut Vec<u8>,
    parse: fn(&[u8]) -> Result<Parsed<Message>, HandshakeError>,
) -> std::io::Result<Result<(Message, usize), HandshakeError>> {
    loop {
        match parse(buffer) {
            Ok(Parsed::Complete { message, length }) => return Ok(Ok((message, length))),
            Err(error) => return Ok(Err(error)),
            Ok(Parsed::Incomplete) => {}
        }
        let mut chunk = [0u8; LONGEST_HANDSHAKE_MESSAGE];
        let read = client.read(&mut chunk).await?;
        if read == 0 {
            return Err(std::io::ErrorKind::UnexpectedEof.into());
        }
        buffer.extend_from_slice(&chunk[..read]);
    }
}

/// Connects to the destination; a name is resolved here and each of its addresses tried in turn.
async fn connect(destination: &Destination) -> Result<TcpStream, ReplyCode> {
    let addresses: Vec<SocketAddr> = match destination {
        Destination::Address(address) => vec![*address],
        Destination::DomainName { name, port } => {
            match tokio::net::lookup_host((name.as_str(), *port)).await {
                Ok(addresses) => addresses.collect(),
                Err(_) => return Err(ReplyCode::HostUnreachable),
            }
        }
    };
    let mut last_code = ReplyCode::HostUnreachable;
    for address in addresses {
        match TcpStream::connect(address).await {
            Ok(stream) => {
                let _ = stream.set_nodelay(true);
                return Ok(stream);
            }
            Err(error) => last_code = reply_code_for_connect_error(&error),
        }
    }
    Err(last_code)
}

/// A `file://` URL for `path`, as `network.proxy.socks` takes it: every byte outside RFC 3986's
/// unreserved set and `/` percent-encoded.
pub(crate) fn file_url(path: &std::path::Path) -> String {
    use std::os::unix::ffi::OsStrExt;
    let mut url = String::from("file://");
    for &byte in path.as_os_str().as_bytes() {
        if byte.is_ascii_alphanumeric() || b"-._~/".contains(&byte) {
            url.push(char::from(byte));
        } else {
            url.push_str(&format!("%{byte:02X}"));
        }
    }
    url
}

#[cfg(test)]
mod tests {
    use super::*;

    fn complete<T>(message: T, length: usize) -> Result<Parsed<T>, HandshakeError> {
        Ok(Parsed::Complete { message, length })
    }

    #[test]
    fn a_greeting_is_complete_only_with_all_its_methods() {
        assert_eq!(parse_greeting(&[]), Ok(Parsed::Incomplete));
        assert_eq!(parse_greeting(&[5]), Ok(Parsed::Incomplete));
        assert_eq!(parse_greeting(&[5, 2, 2]), Ok(Parsed::Incomplete));
        assert_eq!(parse_greeting(&[5, 2, 2, 0]), complete(0, 4));
        assert_eq!(parse_greeting(&[5, 1, 0, 9, 9]), complete(0, 3));
    }

    #[test]
    fn a_greeting_without_no_authentication_or_of_another_version_is_refused() {
        assert_eq!(
            parse_greeting(&[5, 1, 2]),
            Err(HandshakeError::NoAcceptableMethod)
        );
        assert_eq!(
            parse_greeting(&[5, 0]),
            Err(HandshakeError::NoAcceptableMethod)
        );
        assert_eq!(parse_greeting(&[4, 1]), Err(HandshakeError::BadVersion(4)));
        // An HTTP request sent to the proxy by mistake.
        assert_eq!(
            parse_greeting(b"GET / HTTP/1.1"),
            Err(HandshakeError::BadVersion(b'G'))
        );
    }

    #[test]
    fn a_greeting_with_255_methods_is_read_whole() {
        let mut greeting = vec![5, 255];
        greeting.extend(1..=255u8);
        greeting[256] = 0;
        assert_eq!(parse_greeting(&greeting), complete(0, 257));
        assert!(greeting.len() <= LONGEST_HANDSHAKE_MESSAGE);
    }

    #[test]
    fn every_address_type_is_parsed() {
        assert_eq!(
            parse_request(&[5, 1, 0, 1, 127, 0, 0, 1, 0x1F, 0x90]),
            complete(
                Destination::Address("127.0.0.1:8080".parse().expect("address")),
                10
            )
        );
        let mut ipv6 = vec![5, 1, 0, 4];
        ipv6.extend(Ipv6Addr::LOCALHOST.octets());
        ipv6.extend([0, 80]);
        assert_eq!(
            parse_request(&ipv6),
            complete(
                Destination::Address("[::1]:80".parse().expect("address")),
                22
            )
        );
        let mut domain = vec![5, 1, 0, 3, 9];
        domain.extend(b"localhost");
        domain.extend([0x01, 0xBB]);
        assert_eq!(
            parse_request(&domain),
            complete(
                Destination::DomainName {
                    name: "localhost".into(),
                    port: 443
                },
                16
            )
        );
    }

    #[test]
    fn a_domain_name_of_255_bytes_is_the_longest_request() {
        let name = "a".repeat(255);
        let mut request = vec![5, 1, 0, 3, 255];
        request.extend(name.as_bytes());
        request.extend([0, 80]);
        assert_eq!(request.len(), LONGEST_HANDSHAKE_MESSAGE);
        assert_eq!(
            parse_request(&request),
            complete(Destination::DomainName { name, port: 80 }, 262)
        );
    }

    #[test]
    fn every_truncation_of_a_request_is_incomplete() {
        let mut ipv4 = vec![5, 1, 0, 1, 10, 0, 0, 1, 0, 80];
        let mut ipv6 = vec![5, 1, 0, 4];
        ipv6.extend([0; 16]);
        ipv6.extend([0, 80]);
        let mut domain = vec![5, 1, 0, 3, 3];
        domain.extend(b"a.b");
        domain.extend([0, 80]);
        for request in [&mut ipv4, &mut ipv6, &mut domain] {
            for cut in 0..request.len() {
                assert_eq!(
                    parse_request(&request[..cut]),
                    Ok(Parsed::Incomplete),
                    "{request:?} cut at {cut}"
                );
            }
            // Bytes after the request (data the client sent early) are not part of it.
            let length = request.len();
            request.extend(b"GET");
            assert!(matches!(
                parse_request(request),
                Ok(Parsed::Complete { length: parsed, .. }) if parsed == length
            ));
        }
    }

    #[test]
    fn requests_the_proxy_does_not_serve_are_refused_with_their_reply_code() {
        let bind = parse_request(&[5, 2, 0, 1, 0, 0, 0, 0, 0, 0]);
        assert_eq!(bind, Err(HandshakeError::UnsupportedCommand(2)));
        let udp = parse_request(&[5, 3, 0, 1, 0, 0, 0, 0, 0, 0]);
        assert_eq!(udp, Err(HandshakeError::UnsupportedCommand(3)));
        let unknown_address = parse_request(&[5, 1, 0, 2, 0, 0]);
        assert_eq!(
            unknown_address,
            Err(HandshakeError::UnsupportedAddressType(2))
        );
        assert_eq!(
            parse_request(&[4, 1, 0, 80, 127, 0, 0, 1, 0]),
            Err(HandshakeError::BadVersion(4))
        );
        assert_eq!(
            parse_request(&[5, 1, 0, 3, 0, 0, 80]),
            Err(HandshakeError::UnusableDomainName)
        );
        assert_eq!(
            parse_request(&[5, 1, 0, 3, 2, 0xFF, 0xFE, 0, 80]),
            Err(HandshakeError::UnusableDomainName)
        );
        assert_eq!(
            HandshakeError::UnsupportedCommand(2).reply_code(),
            Some(ReplyCode::CommandNotSupported)
        );
        assert_eq!(
            HandshakeError::UnsupportedAddressType(2).reply_code(),
            Some(ReplyCode::AddressTypeNotSupported)
        );
        assert_eq!(HandshakeError::BadVersion(4).reply_code(), None);
    }

    #[test]
    fn file_urls_encode_what_a_url_path_cannot_hold() {
        assert_eq!(
            file_url(std::path::Path::new("/tmp/allwright-x_y.1/socks")),
            "file:///tmp/allwright-x_y.1/socks"
        );
        assert_eq!(
            file_url(std::path::Path::new("/tmp/a b\"%#/s")),
            "file:///tmp/a%20b%22%25%23/s"
        );
    }

    /// A client's whole handshake through a real proxy on a Unix socket; returns the reply code
    /// and the connected stream.
    async fn through_the_proxy(
        socket: &std::path::Path,
        request: &[u8],
    ) -> (u8, tokio::net::UnixStream) {
        let mut client = tokio::net::UnixStream::connect(socket)
            .await
            .expect("connect to the proxy");
        client.write_all(&[5, 1, 0]).await.expect("greeting");
        let mut method = [0u8; 2];
        client.read_exact(&mut method).await.expect("method");
        assert_eq!(method, [5, 0]);
        client.write_all(request).await.expect("request");
        let mut answer = [0u8; 10];
        client.read_exact(&mut answer).await.expect("reply");
        assert_eq!(answer[0], 5);
        (answer[1], client)
    }

    #[tokio::test]
    async fn the_proxy_relays_to_loopback_by_address_and_by_name_and_refuses_as_the_target_does() {
        let folder = tempfile::tempdir().expect("temp dir");
        let socket = folder.path().join("socks");
        let proxy = serve(UnixListener::bind(&socket).expect("bind the proxy"));

        let echo = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("echo listener");
        let echo_port = echo.local_addr().expect("address").port();
        tokio::spawn(async move {
            while let Ok((mut connection, _)) = echo.accept().await {
                tokio::spawn(async move {
                    let (mut reading, mut writing) = connection.split();
                    let _ = tokio::io::copy(&mut reading, &mut writing).await;
                });
            }
        });
        let [high, low] = echo_port.to_be_bytes();

        let mut by_address = vec![5, 1, 0, 1, 127, 0, 0, 1, high, low];
        let mut by_name = vec![5, 1, 0, 3, 9];
        by_name.extend(b"localhost");
        by_name.extend([high, low]);
        for request in [&mut by_address, &mut by_name] {
            // The request and early data in one write, as a client that does not wait may send.
            let mut with_early_data = request.clone();
            with_early_data.extend(b"early ");
            let (code, mut client) = through_the_proxy(&socket, &with_early_data).await;
            assert_eq!(code, ReplyCode::Succeeded as u8, "{request:?}");
            client.write_all(b"ping").await.expect("write");
            let mut echoed = [0u8; 10];
            client.read_exact(&mut echoed).await.expect("echo");
            assert_eq!(&echoed, b"early ping");
        }

        // A port nobody listens on: the listener is dropped, so the port is closed.
        let closed_port = {
            let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
            listener.local_addr().expect("address").port()
        };
        let [high, low] = closed_port.to_be_bytes();
        let (code, _client) =
            through_the_proxy(&socket, &[5, 1, 0, 1, 127, 0, 0, 1, high, low]).await;
        assert_eq!(code, ReplyCode::ConnectionRefused as u8);

        let mut unknown_name = vec![5, 1, 0, 3, 23];
        unknown_name.extend(b"no-such-host.invalid.__");
        unknown_name.extend([0, 80]);
        let (code, _client) = through_the_proxy(&socket, &unknown_name).await;
        assert_eq!(code, ReplyCode::HostUnreachable as u8);

        let (code, _client) = through_the_proxy(&socket, &[5, 2, 0, 1, 0, 0, 0, 0, 0, 0]).await;
        assert_eq!(code, ReplyCode::CommandNotSupported as u8);
        proxy.abort();
    }

    /// A client that connects and says nothing, or stops halfway through its request, is let go
    /// after the handshake timeout (on a paused clock, which moves on when all tasks wait).
    #[tokio::test(start_paused = true)]
    async fn a_client_that_stalls_in_the_handshake_is_closed_after_the_timeout() {
        let folder = tempfile::tempdir().expect("temp dir");
        let socket = folder.path().join("socks");
        let proxy = serve(UnixListener::bind(&socket).expect("bind the proxy"));
        for sent in [&[][..], &[5, 1, 0][..], &[5, 1, 0, 5, 1, 0, 3, 9, b'l'][..]] {
            let started = tokio::time::Instant::now();
            let mut client = tokio::net::UnixStream::connect(&socket)
                .await
                .expect("connect");
            client.write_all(sent).await.expect("write");
            let mut answer = Vec::new();
            // Twice the timeout on the same paused clock: a proxy that never lets go fails here
            // instead of hanging the test.
            tokio::time::timeout(HANDSHAKE_TIMEOUT * 2, client.read_to_end(&mut answer))
                .await
                .expect("the proxy closes a stalled handshake")
                .expect("read");
            // Only the method choice, when the greeting was whole; then the end of the stream.
            assert!(
                answer.is_empty() || answer == [5, 0],
                "{sent:?}: {answer:?}"
            );
            assert!(started.elapsed() >= HANDSHAKE_TIMEOUT, "{sent:?}");
        }
        proxy.abort();
    }

    /// At the cap, a new client waits in the backlog until a connection ends (here the first
    /// one, let go after the handshake timeout on a paused clock).
    #[tokio::test(start_paused = true)]
    async fn a_client_over_the_cap_waits_until_a_connection_ends() {
        let folder = tempfile::tempdir().expect("temp dir");
        let socket = folder.path().join("socks");
        let proxy = serve_at_most(UnixListener::bind(&socket).expect("bind the proxy"), 1);
        let started = tokio::time::Instant::now();
        let _first = tokio::net::UnixStream::connect(&socket)
            .await
            .expect("connect");
        let mut second = tokio::net::UnixStream::connect(&socket)
            .await
            .expect("connect");
        second.write_all(&[5, 1, 0]).await.expect("greeting");
        let mut method = [0u8; 2];
        second.read_exact(&mut method).await.expect("method");
        assert_eq!(method, [5, 0]);
        assert!(started.elapsed() >= HANDSHAKE_TIMEOUT);
        proxy.abort();
    }

    #[tokio::test]
    async fn a_client_that_offers_only_other_methods_is_told_none_is_acceptable() {
        let folder = tempfile::tempdir().expect("temp dir");
        let socket = folder.path().join("socks");
        let proxy = serve(UnixListener::bind(&socket).expect("bind the proxy"));
        let mut client = tokio::net::UnixStream::connect(&socket)
            .await
            .expect("connect");
        client.write_all(&[5, 1, 2]).await.expect("greeting");
        let mut answer = Vec::new();
        client.read_to_end(&mut answer).await.expect("read");
        assert_eq!(answer, [5, 0xFF]);
        proxy.abort();
    }
}
