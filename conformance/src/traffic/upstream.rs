//! Where the proxy forwards. An `http://` server gets one connection per
//! client connection ([`Line`]), opened at its first exchange and closed
//! with it: the server sees the client's connections as they are, and an
//! exchange crosses no pool and no other task. Any other base URL goes
//! through the bindings' client.

use std::sync::Mutex;
use std::time::Duration;

use conformance_wire::connect::Connect;
use conformance_wire::transport::Limits;
use hyper::body::Incoming;
use hyper::client::conn::http1::SendRequest;
use hyper::http::uri::{Authority, PathAndQuery};
use hyper::{Request, Response};
use hyper_util::rt::TokioIo;
use tokio::net::TcpStream;

use super::bodies::Sending;
use super::lock;

/// Where exchanges are forwarded, and how.
pub(super) enum Upstream {
    /// `http://`: each client connection's [`Line`]; the request's parsed
    /// head is moved into the forwarded one (no URL parsed, no header
    /// copied per exchange).
    Plain {
        authority: Authority,
        /// `Host` of every forwarded request: the server's, as a client
        /// of it would send.
        host: hyper::header::HeaderValue,
        /// The base URL's path (`/prefix`), empty for none.
        prefix: String,
        /// `--header`s, for each request that lacks them.
        gateway: hyper::HeaderMap,
    },
    /// `https://`, or a base URL with credentials or a query: the bindings'
    /// client (rustls on ring, its provider set).
    Bindings {
        client: reqwest::Client,
        base: String,
    },
}

impl Upstream {
    pub(super) fn new(
        base_url: &str,
        timeout: Duration,
        connect: &Connect,
    ) -> Result<Upstream, String> {
        let base = base_url.trim_end_matches('/');
        let uri: hyper::Uri = base.parse().map_err(|e| {
            format!("the profile's base_url is no URL the proxy can forward to: {e}")
        })?;
        if uri.scheme_str() == Some("http") && uri.query().is_none() {
            if let Some(authority) = uri.authority().filter(|a| !a.as_str().contains('@')) {
                let host = hyper::header::HeaderValue::from_str(authority.as_str())
                    .map_err(|e| format!("the profile's base_url has no usable host: {e}"))?;
                return Ok(Upstream::Plain {
                    authority: authority.clone(),
                    host,
                    prefix: uri.path().trim_end_matches('/').to_owned(),
                    gateway: connect.headers.clone(),
                });
            }
        }
        // The run's client settings (CA, identity, gateway headers);
        // forwarded as the client sent it: no proxy of the environment, no
        // redirect followed.
        let limits = Limits {
            timeout,
            ..Limits::default()
        };
        let client = connect
            .builder(&limits)
            .no_proxy()
            // reqwest keeps no spelling of a name: the usual one
            // (`X-Client-Id`) rather than lower case.
            .http1_title_case_headers()
            .redirect(reqwest::redirect::Policy::none())
            .timeout(timeout)
            .build()
            .map_err(|e| format!("cannot build the forwarding client: {e}"))?;
        Ok(Upstream::Bindings {
            client,
            base: base.to_owned(),
        })
    }

    /// The target a request for `target` (path and query, as the client
    /// sent it) has on the server: the base URL's path put first.
    pub(super) fn target(
        prefix: &str,
        target: Option<&PathAndQuery>,
    ) -> Result<hyper::Uri, String> {
        if prefix.is_empty() {
            // The client's own, shared: no copy.
            return Ok(hyper::Uri::from(
                target
                    .cloned()
                    .unwrap_or_else(|| PathAndQuery::from_static("/")),
            ));
        }
        let target = target.map_or("/", PathAndQuery::as_str);
        hyper::Uri::try_from(format!("{prefix}{target}"))
            .map_err(|e| format!("cannot forward: {e}"))
    }
}

/// Why the bindings' client got no answer, with its causes (its own text
/// says only "error sending request"), never its URL (a base URL may hold
/// credentials); an unknown certificate authority says how to trust it.
pub(super) fn reason(e: reqwest::Error) -> String {
    let e = e.without_url();
    let mut text = e.to_string();
    let mut source = std::error::Error::source(&e);
    while let Some(s) = source {
        let part = s.to_string();
        if !text.contains(&part) {
            text.push_str(": ");
            text.push_str(&part);
        }
        source = s.source();
    }
    if text.contains("UnknownIssuer") {
        text.push_str(" (give its CA with --ca-cert)");
    }
    text
}

/// One client connection's own connection to an `http://` server. HTTP/1
/// carries one exchange at a time, so the line is never shared: opened at
/// the first exchange, opened again when the server closed it, and closed
/// when the client's connection ends (its sender dropped, hyper closes it).
#[derive(Default)]
pub(super) struct Line {
    /// Ready for the next exchange; `None` before the first, and while one
    /// is in flight.
    sender: Mutex<Option<SendRequest<Sending>>>,
}

impl Line {
    /// Sends `req` to the server at `to` and waits for its answer's head.
    /// A connection the server closed while it was idle is opened again,
    /// and a request it never took is sent again on the new one; a request
    /// the server may have seen is not.
    pub(super) async fn send(
        &self,
        to: &Authority,
        mut req: Request<Sending>,
        timeout: Duration,
    ) -> Result<Response<Incoming>, String> {
        loop {
            let kept = lock(&self.sender).take().filter(|s| !s.is_closed());
            let fresh = kept.is_none();
            let mut sender = match kept {
                Some(sender) => sender,
                None => self.open(to, timeout).await?,
            };
            if sender.ready().await.is_err() {
                if fresh {
                    return Err("the server closed the connection at once".to_owned());
                }
                continue;
            }
            match sender.try_send_request(req).await {
                Ok(answer) => {
                    *lock(&self.sender) = Some(sender);
                    return Ok(answer);
                }
                Err(mut failed) => match failed.take_message() {
                    Some(unsent) if !fresh => req = unsent,
                    _ => return Err(format!("the server gave no answer: {}", failed.error())),
                },
            }
        }
    }

    /// A new connection to `to`, on a task of its own.
    async fn open(
        &self,
        to: &Authority,
        timeout: Duration,
    ) -> Result<SendRequest<Sending>, String> {
        let host = to.host().trim_start_matches('[').trim_end_matches(']');
        let port = to.port_u16().unwrap_or(80);
        let stream = tokio::time::timeout(timeout, TcpStream::connect((host, port)))
            .await
            .map_err(|_| "cannot connect to the server within the time-out".to_owned())?
            .map_err(|e| format!("cannot connect to the server: {e}"))?;
        // A head and its body written apart never wait on Nagle's
        // algorithm and a delayed ACK.
        let _ = stream.set_nodelay(true);
        // Header names as the client spelt them (the case map its request
        // carries), and the server's back as it spelt them.
        let (sender, connection) = hyper::client::conn::http1::Builder::new()
            .preserve_header_case(true)
            .handshake(TokioIo::new(stream))
            .await
            .map_err(|e| format!("cannot connect to the server: {e}"))?;
        tokio::spawn(connection);
        Ok(sender)
    }
}
