//! Listening, connections and shutdown.
//!
//! The server runs on the caller's tokio runtime: [`Server::start`] binds,
//! spawns the accept loop and returns once the socket listens, so a test or
//! the conformance runner can use the address at once.

use std::convert::Infallible;
use std::io;
use std::net::{Ipv4Addr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::{GracefulShutdown, Watcher};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::{TcpListener, TcpSocket, TcpStream};
use tokio::sync::{Semaphore, oneshot};
use tokio::task::JoinHandle;
use tokio_rustls::TlsAcceptor;

use crate::fault::Fault;
use crate::fixture::Fixture;
use crate::handler::{App, ConnState, Limits, handle};
use crate::tls::TlsConfig;
use crate::variant::Variant;

/// A request head not complete after this long is dropped (hyper's own
/// timer), so idle or slow connections do not pile up.
const HEADER_READ_TIMEOUT: Duration = Duration::from_secs(10);

/// How long shutdown waits for requests in flight before closing anyway.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(5);

/// Default of [`ServerOptions::max_connections`].
pub const DEFAULT_MAX_CONNECTIONS: usize = 512;

/// Default of [`ServerOptions::max_inflight_body_bytes`]: 16 MiB, 256
/// bodies at the 64 KiB limit.
pub const DEFAULT_MAX_INFLIGHT_BODY_BYTES: usize = 16 * 1024 * 1024;

/// Default of [`ServerOptions::body_budget_wait`].
pub const DEFAULT_BODY_BUDGET_WAIT: Duration = Duration::from_secs(5);

/// How the server is started.
#[derive(Clone, Debug)]
pub struct ServerOptions {
    /// The data served. Default: the shipped `fixtures/default.yaml`.
    pub fixture: Fixture,
    /// A rule to break on purpose. Default: none, the server conforms.
    pub fault: Option<Fault>,
    /// Choices the description allows, made otherwise than spec/README.md
    /// (see [`Variant`]). Default: none, every choice is spec/README.md's.
    /// Two that [conflict](Variant::conflicts_with) are refused by
    /// [`Server::start`]; a repeated one counts once. With a fault too, the
    /// fault's change is made last: it still breaks its rule.
    pub variants: Vec<Variant>,
    /// Where to listen. Default: `127.0.0.1:0`, a free port on loopback, so
    /// tests never collide.
    pub addr: SocketAddr,
    /// Serve HTTPS with this certificate and key. Default: none, plain HTTP.
    pub tls: Option<TlsConfig>,
    /// Connections served at once. Default 512. Past it, new connections
    /// wait in the kernel's accept queue until one closes: each connection
    /// holds buffers, so this bounds memory whatever the load.
    pub max_connections: usize,
    /// Request-body bytes held at once, across all connections. Default 16
    /// MiB. A request reserves its declared `Content-Length` (64 KiB for a
    /// chunked one) before its body is read, waiting up to
    /// `body_budget_wait` for room; one that still does not fit is
    /// answered 503 with `Retry-After: 1`, unread, and its connection
    /// closed.
    pub max_inflight_body_bytes: usize,
    /// How long a request waits for room in the body budget. Default 5 s:
    /// long enough for a burst of bodies to be read, short enough that a
    /// client learns the server is full.
    pub body_budget_wait: Duration,
    /// Added before every answer, to play a distant or slow server.
    /// Default: none.
    pub latency: Duration,
}

impl Default for ServerOptions {
    fn default() -> Self {
        ServerOptions {
            fixture: Fixture::default_fixture(),
            fault: None,
            variants: Vec::new(),
            addr: SocketAddr::from((Ipv4Addr::LOCALHOST, 0)),
            tls: None,
            max_connections: DEFAULT_MAX_CONNECTIONS,
            max_inflight_body_bytes: DEFAULT_MAX_INFLIGHT_BODY_BYTES,
            body_budget_wait: DEFAULT_BODY_BUDGET_WAIT,
            latency: Duration::ZERO,
        }
    }
}

/// The reference server.
pub struct Server;

impl Server {
    /// Binds `options.addr` and serves on the current tokio runtime.
    ///
    /// Refused (`InvalidInput`): a cap of 0, two variants that conflict,
    /// and TLS together with the `header-names-case-sensitive` fault, which
    /// reads the raw request head from the socket (encrypted under TLS).
    pub async fn start(options: ServerOptions) -> io::Result<RunningServer> {
        let invalid = |what: &str| Err(io::Error::new(io::ErrorKind::InvalidInput, what));
        if options.max_connections == 0 {
            return invalid("max_connections must be at least 1");
        }
        if options.max_inflight_body_bytes == 0 {
            return invalid("max_inflight_body_bytes must be at least 1");
        }
        if let Some((a, b)) = Variant::first_conflict(&options.variants) {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!(
                    "the variants `{a}` and `{b}` conflict: they choose differently for one thing"
                ),
            ));
        }
        if options.tls.is_some() && options.fault == Some(Fault::HeaderNamesCaseSensitive) {
            return invalid(
                "the fault `header-names-case-sensitive` reads the raw request head and cannot be served over TLS",
            );
        }
        let listener = listen(options.addr)?;
        let addr = listener.local_addr()?;
        let scheme = if options.tls.is_some() {
            "https"
        } else {
            "http"
        };
        let acceptor = options
            .tls
            .map(|tls| TlsAcceptor::from(Arc::clone(&tls.server)));
        let limits = Limits::new(
            options.max_inflight_body_bytes,
            options.body_budget_wait,
            options.latency,
        );
        let app = Arc::new(App::new(
            options.fixture,
            options.fault,
            &options.variants,
            limits,
        ));
        let max_connections = options.max_connections.min(Semaphore::MAX_PERMITS);
        let connections = Arc::new(Semaphore::new(max_connections));
        let (stop, stopped) = oneshot::channel();
        let task = tokio::spawn(accept_loop(
            listener,
            app.clone(),
            acceptor,
            connections,
            stopped,
        ));
        Ok(RunningServer {
            addr,
            scheme,
            stop: Some(stop),
            task: Some(task),
            app,
        })
    }
}

/// Connections the kernel keeps waiting for `accept` (capped by the
/// system's `net.core.somaxconn`). Past `max_connections`, new connections
/// wait here; tokio's default (1024) overflowed under 1 000 slow clients
/// and a cap of 64, and an overflowing queue resets connections.
const LISTEN_BACKLOG: u32 = 4096;

fn listen(addr: SocketAddr) -> io::Result<TcpListener> {
    let socket = if addr.is_ipv4() {
        TcpSocket::new_v4()?
    } else {
        TcpSocket::new_v6()?
    };
    // As TcpListener::bind does on Unix: a restarted server can rebind at once.
    #[cfg(unix)]
    socket.set_reuseaddr(true)?;
    socket.bind(addr)?;
    socket.listen(LISTEN_BACKLOG)
}

/// A server that is listening. Dropping it starts a graceful shutdown in the
/// background; [`RunningServer::shutdown`] also waits for it to finish.
pub struct RunningServer {
    addr: SocketAddr,
    scheme: &'static str,
    stop: Option<oneshot::Sender<()>>,
    task: Option<JoinHandle<()>>,
    app: Arc<App>,
}

impl RunningServer {
    /// The address the server listens on (the real port, never 0).
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// `http://HOST:PORT` (`https://` with TLS), without the `/v2/api` prefix.
    pub fn base_url(&self) -> String {
        format!("{}://{}", self.scheme, self.addr)
    }

    /// What the server's clients broke so far, rule by rule: every request
    /// it was sent, held to what the interface description requires of a
    /// client (both credentials, an X-Auth-Token where the component
    /// requires auth, X-Project-Env `dev` or `live`, one JSON object with
    /// the component's fields, `modelUuid` on Authorize), each rule with
    /// its section, quote, count and first examples (nothing secret). A
    /// client team's test asserts `client_report().must_violations == 0`.
    pub fn client_report(&self) -> traffic_rules::tally::Report {
        self.app
            .clients
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .report(Some(traffic_rules::Side::Client))
    }

    /// The client rules broken so far, each with its count and first
    /// examples; empty when every request kept every rule. A client team's
    /// test asserts `server.violations().is_empty()`, and a failure prints
    /// each rule's id, section and quote.
    pub fn violations(&self) -> Vec<traffic_rules::tally::RuleReport> {
        self.client_report()
            .rules
            .into_iter()
            .filter(|rule| rule.violations > 0)
            .collect()
    }

    /// Stops accepting, lets requests in flight finish (up to 5 s), returns
    /// when every connection is closed.
    pub async fn shutdown(mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(task) = self.task.take() {
            let _ = task.await;
        }
    }
}

impl Drop for RunningServer {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }
}

async fn accept_loop(
    listener: TcpListener,
    app: Arc<App>,
    tls: Option<TlsAcceptor>,
    connections: Arc<Semaphore>,
    mut stopped: oneshot::Receiver<()>,
) {
    let graceful = GracefulShutdown::new();
    loop {
        // A free connection slot first, then accept: past the cap, new
        // connections wait in the kernel's queue, costing us nothing.
        let permit = tokio::select! {
            // A send or a dropped sender: either way, stop.
            _ = &mut stopped => break,
            permit = Arc::clone(&connections).acquire_owned() => match permit {
                Ok(permit) => permit,
                Err(_) => break, // never closed
            },
        };
        tokio::select! {
            _ = &mut stopped => break,
            accepted = listener.accept() => match accepted {
                Ok((stream, _peer)) => {
                    let app = Arc::clone(&app);
                    let watcher = graceful.watcher();
                    let tls = tls.clone();
                    tokio::spawn(async move {
                        connection(stream, app, tls, watcher).await;
                        drop(permit);
                    });
                }
                Err(e) => {
                    // Out of file descriptors and the like: wait, do not spin.
                    tracing::warn!(error = %e, "accept failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
            },
        }
    }
    drop(listener);
    if tokio::time::timeout(SHUTDOWN_GRACE, graceful.shutdown())
        .await
        .is_err()
    {
        tracing::warn!("connections still open after the grace period; closing them");
    }
}

async fn connection(stream: TcpStream, app: Arc<App>, tls: Option<TlsAcceptor>, watcher: Watcher) {
    let _ = stream.set_nodelay(true);
    let Some(tls) = tls else {
        // Under the header-case fault every connection carries one request, so
        // the head peeked below is the head of the request served.
        let one_request = app.behaviour.connection.header_names_case_sensitive;
        let client_id_spelled_exactly = if one_request {
            raw_head_spells_client_id(&stream).await
        } else {
            true
        };
        let state = ConnState::new(
            client_id_spelled_exactly,
            one_request,
            app.new_request_id(),
            app.next_instance(),
        );
        return serve(stream, app, state, watcher).await;
    };
    // A handshake gets as long as a request head; a failed one (an
    // untrusted certificate, plain HTTP on the TLS port) just closes.
    match tokio::time::timeout(HEADER_READ_TIMEOUT, tls.accept(stream)).await {
        Ok(Ok(stream)) => {
            let state = ConnState::new(true, false, app.new_request_id(), app.next_instance());
            serve(stream, app, state, watcher).await
        }
        Ok(Err(e)) => tracing::debug!(error = %e, "TLS handshake failed"),
        Err(_) => tracing::debug!("TLS handshake timed out"),
    }
}

/// HTTP/1.1 on one connection, plain or TLS.
async fn serve<S>(stream: S, app: Arc<App>, state: ConnState, watcher: Watcher)
where
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let one_request = state.close;
    let state = Arc::new(state);
    let service = service_fn(move |req| {
        let app = Arc::clone(&app);
        let state = Arc::clone(&state);
        async move { Ok::<_, Infallible>(handle(&app, req, &state).await) }
    });
    let mut builder = http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(HEADER_READ_TIMEOUT)
        // A client may send its request and then shut down its write side
        // (`shutdown(SHUT_WR)`) while it waits. hyper's default closes the
        // connection when it reads that end of stream, even with the answer
        // still being made: 40 % of such requests went unanswered on
        // loopback. With half-closes allowed, the answer is written, then
        // the connection closes.
        .half_close(true)
        .keep_alive(!one_request);
    let conn = builder.serve_connection(TokioIo::new(stream), service);
    if let Err(e) = watcher.watch(conn).await {
        tracing::debug!(error = %e, "connection ended with an error");
    }
}

/// Whether the raw request head has a header line named exactly
/// `X-Client-Id`. hyper lowercases header names as it parses, so the
/// original spelling is only visible in the bytes, peeked (not consumed)
/// before hyper reads them.
async fn raw_head_spells_client_id(stream: &TcpStream) -> bool {
    const NEEDLE: &[u8] = b"\nX-Client-Id:";
    let spelled = |head: &[u8]| head.windows(NEEDLE.len()).any(|w| w == NEEDLE);
    let mut buf = vec![0u8; 16 * 1024];
    let deadline = tokio::time::Instant::now() + HEADER_READ_TIMEOUT;
    let mut seen = 0;
    loop {
        let n = match tokio::time::timeout_at(deadline, stream.peek(&mut buf)).await {
            Ok(Ok(n)) => n,
            _ => return false,
        };
        let head = &buf[..n];
        if let Some(end) = head.windows(4).position(|w| w == b"\r\n\r\n") {
            return spelled(&head[..end + 2]);
        }
        // End of stream, a head too long to peek whole, or out of time:
        // decide on what arrived; hyper answers the rest.
        if n == 0 || n == buf.len() || tokio::time::Instant::now() >= deadline {
            return spelled(head);
        }
        if n == seen {
            // peek returns at once while unread bytes wait: pause, don't spin.
            tokio::time::sleep(Duration::from_millis(2)).await;
        }
        seen = n;
    }
}
