//! TLS for `https://` and `wss://` remote ends: a rustls client (ring as its crypto provider)
//! that trusts the system's roots, read once by rustls-native-certs (the platform's store: on
//! Linux the distribution's bundle, or `SSL_CERT_FILE` / `SSL_CERT_DIR` when set). The server's
//! name is checked against its certificate as usual (RFC 6125 through webpki); there is no
//! option to skip that check.
//!
//! Built with the crate's `tls` feature (on by default); without it, [`connect`] refuses with
//! the reason, and an `https://` URL fails at its first connection.

#[cfg(feature = "tls")]
use std::sync::{Arc, OnceLock};

use tokio::net::TcpStream;
#[cfg(feature = "tls")]
use tokio_rustls::{
    client::TlsStream,
    rustls::{pki_types::ServerName, ClientConfig, RootCertStore},
    TlsConnector,
};

#[cfg(feature = "tls")]
/// The client configuration, made on first use: reading the system's roots takes a moment and
/// is the same for every connection of the process.
fn client_config() -> Result<Arc<ClientConfig>, String> {
    static CONFIG: OnceLock<Result<Arc<ClientConfig>, String>> = OnceLock::new();
    CONFIG
        .get_or_init(|| {
            let found = rustls_native_certs::load_native_certs();
            let mut roots = RootCertStore::empty();
            let (added, _ignored) = roots.add_parsable_certificates(found.certs);
            if added == 0 {
                let reasons: Vec<String> =
                    found.errors.iter().map(ToString::to_string).collect();
                return Err(format!(
                    "no trusted root certificate was found on this system ({}); install the system's CA bundle (Debian: ca-certificates) or set SSL_CERT_FILE",
                    if reasons.is_empty() { "none in the store".to_owned() } else { reasons.join("; ") }
                ));
            }
            // The process's provider, which is ring: the one the workspace enables (Cargo.toml).
            let config = ClientConfig::builder()
                .with_root_certificates(roots)
                .with_no_client_auth();
            Ok(Arc::new(config))
        })
        .clone()
}

/// Completes a TLS handshake over `stream` with `host` (a name or an IP address, IPv6 without
/// brackets), checking its certificate against the system's roots.
#[cfg(feature = "tls")]
pub(crate) async fn connect(host: &str, stream: TcpStream) -> Result<TlsStream<TcpStream>, String> {
    let server_name = ServerName::try_from(host.to_owned())
        .map_err(|error| format!("{host} cannot be checked against a certificate: {error}"))?;
    TlsConnector::from(client_config()?)
        .connect(server_name, stream)
        .await
        .map_err(|error| format!("TLS with {host}: {error}"))
}

/// A build without the `tls` feature has no TLS client: the connection is refused with the
/// reason.
#[cfg(not(feature = "tls"))]
pub(crate) async fn connect(host: &str, _stream: TcpStream) -> Result<TcpStream, String> {
    Err(format!(
        "TLS with {host}: this allwright was built without its `tls` feature, so https:// and wss:// remote ends cannot be reached"
    ))
}
