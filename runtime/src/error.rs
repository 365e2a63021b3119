use std::error::Error as StdError;
use std::fmt;

/// Why a request could not be built, sent or read.
///
/// An answer with an unexpected status or body is not an error: it decodes
/// into the operation's `Undocumented` or `Mismatch` variant instead.
///
/// Connection failures name the address (host and port only: never a
/// password or a query string of the URL) and the cause in words:
/// `could not connect to 127.0.0.1:8080: connection refused`.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    #[error("required parameter `{0}` was not set")]
    MissingParameter(&'static str),
    #[error("the value for header `{name}` is not a valid HTTP header value")]
    InvalidHeader { name: String },
    #[error("`{method}` is not an HTTP method")]
    InvalidMethod { method: String },
    #[error("`{url}` cannot be used as a base URL: {reason}")]
    BaseUrl { url: String, reason: String },
    #[error("could not encode the request body as JSON: {0}")]
    Encode(#[source] serde_json::Error),
    #[error("could not encode the request body as a form: {0}")]
    EncodeForm(#[source] serde_urlencoded::ser::Error),
    #[error("the request timed out")]
    Timeout,
    /// No connection: refused, reset or timed out while connecting, the
    /// host name not resolved, or a TLS handshake that failed (which
    /// certificate problem, or which alert).
    #[error("could not connect to {0}")]
    Connect(#[source] ConnectError),
    /// The exchange failed after connecting (a connection reset or closed
    /// before the whole answer), or a client could not be built.
    #[error("{}", Transport::new(.0))]
    Transport(#[source] reqwest::Error),
    #[error("the response body is larger than the cap of {limit} bytes")]
    BodyTooLarge { limit: usize },
}

impl Error {
    /// As [`Error::from_reqwest`], naming `url`'s address when reqwest's
    /// error does not carry it (an error while reading the body).
    pub(crate) fn from_reqwest_at(error: reqwest::Error, url: &reqwest::Url) -> Self {
        if error.url().is_some() {
            return Self::from_reqwest(error);
        }
        match origin(url) {
            Some(origin) => Self::from_reqwest(error.with_url(origin)),
            None => Self::from_reqwest(error),
        }
    }

    pub(crate) fn from_reqwest(error: reqwest::Error) -> Self {
        // A connect that times out is a connect error: the target cannot
        // be reached, which is not the same as a slow answer.
        if error.is_connect() {
            Self::Connect(ConnectError::new(error))
        } else if error.is_timeout() {
            Self::Timeout
        } else {
            // Only the origin is kept: a URL's path and query may carry
            // values the caller did not mean to print.
            let origin = error.url().and_then(origin);
            let error = error.without_url();
            Self::Transport(match origin {
                Some(url) => error.with_url(url),
                None => error,
            })
        }
    }
}

/// A failed connection: where to, and why.
#[derive(Debug)]
pub struct ConnectError {
    address: String,
    cause: String,
    source: reqwest::Error,
}

impl ConnectError {
    fn new(error: reqwest::Error) -> Self {
        Self {
            address: error
                .url()
                .and_then(address)
                .unwrap_or_else(|| "the server".to_owned()),
            cause: cause(&error),
            source: error.without_url(),
        }
    }

    /// `host:port` of the server (`[::1]:443` for IPv6), never credentials.
    pub fn address(&self) -> &str {
        &self.address
    }

    /// The cause in words: `connection refused`, `connection reset by the
    /// server`, `timed out`, `TLS: the server's certificate has expired
    /// (...)`, ...
    pub fn cause(&self) -> &str {
        &self.cause
    }
}

impl fmt::Display for ConnectError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.address, self.cause)
    }
}

impl StdError for ConnectError {
    fn source(&self) -> Option<&(dyn StdError + 'static)> {
        Some(&self.source)
    }
}

/// How [`Error::Transport`] reads: the address when the request had one,
/// and the cause from reqwest's source chain.
struct Transport<'a>(&'a reqwest::Error);

impl<'a> Transport<'a> {
    fn new(error: &'a reqwest::Error) -> Self {
        Self(error)
    }
}

impl fmt::Display for Transport<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let error = self.0;
        if error.is_builder() {
            return write!(f, "could not build the HTTP client: {}", cause(error));
        }
        match error.url().and_then(address) {
            Some(address) => write!(f, "the exchange with {address} failed: {}", cause(error)),
            None => write!(f, "the exchange failed: {}", cause(error)),
        }
    }
}

/// `host:port` of a URL: no user name, password, path or query.
fn address(url: &reqwest::Url) -> Option<String> {
    let host = url.host_str()?;
    Some(match url.port_or_known_default() {
        Some(port) => format!("{host}:{port}"),
        None => host.to_owned(),
    })
}

/// `scheme://host:port/` of a URL.
fn origin(url: &reqwest::Url) -> Option<reqwest::Url> {
    let mut origin = url.clone();
    origin.set_username("").ok()?;
    origin.set_password(None).ok()?;
    origin.set_path("/");
    origin.set_query(None);
    origin.set_fragment(None);
    Some(origin)
}

/// The cause of a reqwest error in words. reqwest and hyper wrap it a few
/// levels deep ("error sending request" > "client error (Connect)" > "tcp
/// connect error" > the OS error); what a reader needs is the last.
fn cause(error: &reqwest::Error) -> String {
    let mut resolving = false;
    let mut innermost = None;
    let mut source: Option<&(dyn StdError + 'static)> = Some(error);
    while let Some(s) = source {
        #[cfg(feature = "rustls")]
        if let Some(tls) = s.downcast_ref::<rustls::Error>() {
            return tls_cause(tls);
        }
        if let Some(io) = s.downcast_ref::<std::io::Error>() {
            // A TLS error travels inside an io::Error, itself sometimes
            // inside another, and an io::Error's `source()` skips what it
            // wraps: look inside.
            let io = innermost_io(io);
            #[cfg(feature = "rustls")]
            if let Some(tls) = io.get_ref().and_then(|e| e.downcast_ref::<rustls::Error>()) {
                return tls_cause(tls);
            }
            if let Some(words) = io_cause(io) {
                return words;
            }
        }
        let text = s.to_string();
        resolving |= text == "dns error";
        innermost = Some(text);
        source = s.source();
    }
    if error.is_timeout() {
        return "timed out".to_owned();
    }
    let text = innermost.unwrap_or_else(|| error.to_string());
    if resolving {
        format!("the host name could not be resolved ({text})")
    } else if text.contains("certificate") && !text.starts_with("TLS") {
        // native-tls: the platform library's words, which name the problem.
        format!("TLS: {text}")
    } else {
        text
    }
}

/// The io::Error an io::Error wraps, however deep.
fn innermost_io(mut io: &std::io::Error) -> &std::io::Error {
    while let Some(inner) = io
        .get_ref()
        .and_then(|e| e.downcast_ref::<std::io::Error>())
    {
        io = inner;
    }
    io
}

fn io_cause(io: &std::io::Error) -> Option<String> {
    use std::io::ErrorKind as K;
    let words = match io.kind() {
        K::ConnectionRefused => "connection refused",
        K::ConnectionReset => "connection reset by the server",
        K::ConnectionAborted => "connection aborted",
        K::TimedOut => "timed out",
        K::HostUnreachable => "host unreachable",
        K::NetworkUnreachable => "network unreachable",
        K::AddrNotAvailable => "address not available",
        // hyper's own words say what was missing ("end of file before
        // message length reached").
        K::UnexpectedEof | K::BrokenPipe | K::NotConnected if io.raw_os_error().is_none() => {
            return Some(format!("connection closed by the server: {io}"));
        }
        K::UnexpectedEof | K::BrokenPipe | K::NotConnected => "connection closed by the server",
        _ => return None,
    };
    Some(words.to_owned())
}

/// Which certificate problem, or which alert, in words; rustls's own words
/// in parentheses (names, dates).
#[cfg(feature = "rustls")]
fn tls_cause(error: &rustls::Error) -> String {
    use rustls::CertificateError as C;
    match error {
        rustls::Error::InvalidCertificate(problem) => {
            let why = match problem {
                C::UnknownIssuer => {
                    "is not trusted: its issuer is not a known certificate authority (self-signed, or a private CA)"
                }
                C::Expired | C::ExpiredContext { .. } => "has expired",
                C::NotValidYet | C::NotValidYetContext { .. } => "is not valid yet",
                C::NotValidForName | C::NotValidForNameContext { .. } => {
                    "is not valid for this host name"
                }
                C::Revoked => "has been revoked",
                C::BadSignature => "has a bad signature",
                C::BadEncoding => "could not be parsed",
                C::InvalidPurpose | C::InvalidPurposeContext { .. } => {
                    "is not for a TLS server (its extended key usage)"
                }
                // webpki's reasons travel as `Other`: say the common one.
                C::Other(other) if format!("{other:?}").contains("CaUsedAsEndEntity") => {
                    "is a CA certificate (CA:TRUE) used as the server's own; sign a server certificate with that CA"
                }
                _ => "was refused",
            };
            format!("TLS: the server's certificate {why} ({problem})")
        }
        rustls::Error::AlertReceived(alert) => {
            format!("TLS: the server refused the handshake (alert {alert:?})")
        }
        rustls::Error::InvalidMessage(_) | rustls::Error::InappropriateMessage { .. } => {
            format!("TLS: the handshake failed ({error}); does this port speak HTTPS?")
        }
        other => format!("TLS: {other}"),
    }
}

#[cfg(test)]
mod tests {
    use std::io::Read;
    use std::net::{TcpListener, TcpStream};
    use std::time::Duration;

    use crate::{Error, Transport};

    /// A port of 127.0.0.1 that nothing listens on: bound by the kernel's
    /// choice, then closed.
    fn closed_port() -> u16 {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1:0");
        listener.local_addr().expect("local address").port()
    }

    fn fetch(url: &str) -> Error {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a runtime");
        let transport = Transport::new(Duration::from_secs(5), 1024).expect("a transport");
        let request = reqwest::Request::new(reqwest::Method::GET, url.parse().expect("a URL"));
        runtime
            .block_on(transport.fetch(request))
            .expect_err("no answer expected")
    }

    #[test]
    fn a_refused_connection_names_the_address_and_the_cause_and_no_secret() {
        let port = closed_port();
        let e = fetch(&format!(
            "http://user:hunter2@127.0.0.1:{port}/v1/x?api_key=q-secret"
        ));
        assert!(matches!(e, Error::Connect(_)), "{e:?}");
        let text = e.to_string();
        assert_eq!(
            text,
            format!("could not connect to 127.0.0.1:{port}: connection refused")
        );
        let debug = format!("{e:?}");
        for secret in ["hunter2", "q-secret", "user:"] {
            assert!(!text.contains(secret), "{secret} in {text}");
            assert!(!debug.contains(secret), "{secret} in {debug}");
        }
        let Error::Connect(connect) = &e else {
            unreachable!()
        };
        assert_eq!(connect.address(), format!("127.0.0.1:{port}"));
        assert_eq!(connect.cause(), "connection refused");
    }

    #[test]
    fn a_connection_closed_before_the_answer_names_the_address_and_no_secret() {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
        let port = listener.local_addr().expect("address").port();
        let server = std::thread::spawn(move || {
            // Read the whole request head, then close without answering
            // (a FIN: nothing unread is left to make it a reset).
            let (mut stream, _) = listener.accept().expect("accept");
            stream
                .set_read_timeout(Some(Duration::from_secs(5)))
                .expect("read timeout");
            let mut head = Vec::new();
            let mut byte = [0u8; 1];
            while !head.ends_with(b"\r\n\r\n") && stream.read(&mut byte).is_ok_and(|n| n == 1) {
                head.push(byte[0]);
            }
            drop(stream);
        });
        let e = fetch(&format!(
            "http://u:hunter2@127.0.0.1:{port}/x?token=q-secret"
        ));
        server.join().expect("the server thread");
        assert!(matches!(e, Error::Transport(_)), "{e:?}");
        let text = e.to_string();
        assert!(
            text.starts_with(&format!("the exchange with 127.0.0.1:{port} failed: ")),
            "{text}"
        );
        assert!(text.contains("closed"), "{text}");
        let debug = format!("{e:?}");
        for secret in ["hunter2", "q-secret"] {
            assert!(
                !text.contains(secret) && !debug.contains(secret),
                "{secret}: {debug}"
            );
        }
    }

    #[test]
    fn a_connection_reset_says_reset() {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
        let port = listener.local_addr().expect("address").port();
        let server = std::thread::spawn(move || {
            // Unread request bytes in the receive buffer when the socket
            // closes: the kernel answers with a reset (RST), not a FIN.
            let (stream, _) = listener.accept().expect("accept");
            std::thread::sleep(Duration::from_millis(200));
            drop::<TcpStream>(stream);
        });
        let e = fetch(&format!("http://127.0.0.1:{port}/"));
        server.join().expect("the server thread");
        let text = e.to_string();
        assert_eq!(
            text,
            format!("the exchange with 127.0.0.1:{port} failed: connection reset by the server")
        );
    }
}
