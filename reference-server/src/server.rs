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
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

use crate::fault::Fault;
use crate::fixture::Fixture;
use crate::handler::{App, ConnState, handle};

/// A request head not complete after this long is dropped (hyper's own
/// timer), so idle or slow connections do not pile up.
const HEADER_READ_TIMEOUT: Duration = Duration::from_secs(10);

/// How long shutdown waits for requests in flight before closing anyway.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(5);

/// How the server is started.
#[derive(Clone, Debug)]
pub struct ServerOptions {
    /// The data served. Default: the shipped `fixtures/default.yaml`.
    pub fixture: Fixture,
    /// A rule to break on purpose. Default: none, the server conforms.
    pub fault: Option<Fault>,
    /// Where to listen. Default: `127.0.0.1:0`, a free port on loopback, so
    /// tests never collide.
    pub addr: SocketAddr,
}

impl Default for ServerOptions {
    fn default() -> Self {
        ServerOptions {
            fixture: Fixture::default_fixture(),
            fault: None,
            addr: SocketAddr::from((Ipv4Addr::LOCALHOST, 0)),
        }
    }
}

/// The reference server.
pub struct Server;

impl Server {
    /// Binds `options.addr` and serves on the current tokio runtime.
    pub async fn start(options: ServerOptions) -> io::Result<RunningServer> {
        let listener = TcpListener::bind(options.addr).await?;
        let addr = listener.local_addr()?;
        let app = Arc::new(App::new(options.fixture, options.fault));
        let (stop, stopped) = oneshot::channel();
        let task = tokio::spawn(accept_loop(listener, app, stopped));
        Ok(RunningServer {
            addr,
            stop: Some(stop),
            task: Some(task),
        })
    }
}

/// A server that is listening. Dropping it starts a graceful shutdown in the
/// background; [`RunningServer::shutdown`] also waits for it to finish.
pub struct RunningServer {
    addr: SocketAddr,
    stop: Option<oneshot::Sender<()>>,
    task: Option<JoinHandle<()>>,
}

impl RunningServer {
    /// The address the server listens on (the real port, never 0).
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// `http://HOST:PORT`, without the `/v2/api` prefix.
    pub fn base_url(&self) -> String {
        format!("http://{}", self.addr)
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

async fn accept_loop(listener: TcpListener, app: Arc<App>, mut stopped: oneshot::Receiver<()>) {
    let graceful = GracefulShutdown::new();
    loop {
        tokio::select! {
            // A send or a dropped sender: either way, stop.
            _ = &mut stopped => break,
            accepted = listener.accept() => match accepted {
                Ok((stream, _peer)) => {
                    tokio::spawn(connection(stream, Arc::clone(&app), graceful.watcher()));
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

async fn connection(stream: TcpStream, app: Arc<App>, watcher: Watcher) {
    // Under the header-case fault every connection carries one request, so
    // the head peeked below is the head of the request served.
    let one_request = app.behaviour.connection.header_names_case_sensitive;
    let client_id_spelled_exactly = if one_request {
        raw_head_spells_client_id(&stream).await
    } else {
        true
    };
    let state = Arc::new(ConnState::new(client_id_spelled_exactly, one_request));
    let _ = stream.set_nodelay(true);
    let service = service_fn(move |req| {
        let app = Arc::clone(&app);
        let state = Arc::clone(&state);
        async move { Ok::<_, Infallible>(handle(&app, req, &state).await) }
    });
    let mut builder = http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(HEADER_READ_TIMEOUT)
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
