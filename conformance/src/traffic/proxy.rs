//! `conformance proxy`: listens, forwards each exchange to the profile's
//! server unchanged, and judges both sides once the answer has passed.

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use conformance_model::profile::Profile;
use hyper::body::{Body as _, Incoming};
use hyper::{Request as HyperRequest, Response};
use traffic_rules::{Answer, Request, Tally};

use super::bodies::{Answering, Inner, Kept, Pending, Sending};
use super::headers::{end_to_end, pairs};
use super::upstream::{self, Line, Upstream};
use super::{Known, judge, lock};

/// How the proxy runs.
#[derive(Clone, Debug)]
pub struct ProxyOptions {
    /// Where it listens. Default: a free port on 127.0.0.1.
    pub listen: SocketAddr,
    /// Stop after this many exchanges (tests, a bounded CI job).
    pub max_exchanges: Option<u64>,
    /// Stop after this long.
    pub duration: Option<Duration>,
    /// Time-out of a forwarded exchange.
    pub timeout: Duration,
    /// How to reach the server: its CA (`--ca-cert`), a client
    /// certificate, a gateway's headers (`--header`, added to each
    /// forwarded request that lacks them, never judged as the client's).
    pub connect: conformance_wire::connect::Connect,
    /// How long a client may take to send a request's head.
    pub header_timeout: Duration,
    /// Judge requests outside the interface's paths as `client/path`.
    pub judge_other_paths: bool,
}

impl Default for ProxyOptions {
    fn default() -> Self {
        ProxyOptions {
            listen: SocketAddr::from(([127, 0, 0, 1], 0)),
            max_exchanges: None,
            duration: None,
            timeout: Duration::from_secs(30),
            connect: conformance_wire::connect::Connect::default(),
            header_timeout: Duration::from_secs(10),
            judge_other_paths: false,
        }
    }
}

/// A proxy that is listening.
pub struct RunningProxy {
    addr: SocketAddr,
    tally: Arc<Mutex<Tally>>,
    done: tokio::sync::watch::Receiver<bool>,
    stop: tokio::sync::watch::Sender<bool>,
    /// Connections still open.
    open: tokio::sync::watch::Receiver<usize>,
}

/// Counts a connection open until it is dropped.
pub(super) struct Open(Arc<tokio::sync::watch::Sender<usize>>);

impl Open {
    fn new(count: &Arc<tokio::sync::watch::Sender<usize>>) -> Self {
        count.send_modify(|n| *n += 1);
        Open(count.clone())
    }
}

impl Drop for Open {
    fn drop(&mut self) {
        self.0.send_modify(|n| *n -= 1);
    }
}

impl RunningProxy {
    /// `http://HOST:PORT`: point clients here instead of the server.
    pub fn base_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// What the exchanges so far showed.
    pub fn tally(&self) -> Tally {
        self.tally.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// Waits until `max_exchanges` or `duration` ends it, or [`Self::stop`].
    pub async fn finished(&mut self) {
        let _ = self.done.wait_for(|d| *d).await;
    }

    /// Stops accepting new exchanges; each connection finishes the answer
    /// it is writing, then closes.
    pub fn stop(&self) {
        let _ = self.stop.send(true);
    }

    /// Stops, and waits (up to `limit`) until every connection has written
    /// its last answer and closed: the client that sent the last exchange
    /// of `--exchanges N` gets its answer before the process ends.
    pub async fn drain(&mut self, limit: Duration) {
        self.stop();
        let _ = tokio::time::timeout(limit, self.open.wait_for(|n| *n == 0)).await;
    }
}

/// Starts the proxy in front of `profile`'s server.
pub async fn start_proxy(profile: Profile, options: ProxyOptions) -> Result<RunningProxy, String> {
    let listener = tokio::net::TcpListener::bind(options.listen)
        .await
        .map_err(|e| format!("cannot listen on {}: {e}", options.listen))?;
    let addr = listener
        .local_addr()
        .map_err(|e| format!("cannot listen: {e}"))?;
    // The profile's private CA, trusted as a run trusts it (beside
    // --ca-cert).
    let mut connect = options.connect.clone();
    if let Some(ca) = &profile.ca_cert {
        connect
            .add_ca_file(ca)
            .map_err(|e| format!("the profile's `ca_cert`: {e}"))?;
    }
    let upstream = Upstream::new(&profile.base_url, options.timeout, &connect)?;
    let tally = Arc::new(Mutex::new(Tally::default()));
    let (stop, mut stopped) = tokio::sync::watch::channel(false);
    let (finish, done) = tokio::sync::watch::channel(false);
    let (open_count, open) = tokio::sync::watch::channel(0usize);
    let open_count = Arc::new(open_count);
    let stop_sender = stop.clone();
    let shared = Arc::new(Shared {
        known: Known::new(&profile),
        upstream,
        timeout: options.timeout,
        tally: tally.clone(),
        max: options.max_exchanges,
        other_paths: options.judge_other_paths,
        finish,
    });
    let header_timeout = options.header_timeout;
    if let Some(d) = options.duration {
        let shared = shared.clone();
        tokio::spawn(async move {
            tokio::time::sleep(d).await;
            let _ = shared.finish.send(true);
        });
    }
    tokio::spawn(async move {
        loop {
            tokio::select! {
                _ = stopped.changed() => break,
                accepted = listener.accept() => {
                    let stream = match accepted {
                        Ok((stream, _)) => stream,
                        Err(e) => {
                            // Out of descriptors (or memory): the error
                            // repeats at once until a connection closes, so
                            // wait rather than spin.
                            if !matches!(e.kind(), std::io::ErrorKind::ConnectionAborted
                                | std::io::ErrorKind::ConnectionReset
                                | std::io::ErrorKind::Interrupted)
                            {
                                tokio::time::sleep(ACCEPT_BACKOFF).await;
                            }
                            continue;
                        }
                    };
                    // A head and its body written apart never wait on
                    // Nagle's algorithm and a delayed ACK.
                    let _ = stream.set_nodelay(true);
                    let shared = shared.clone();
                    let open = Open::new(&open_count);
                    let mut stopping = stop_sender.subscribe();
                    tokio::spawn(async move {
                        let _open = open;
                        // The connection's own line to the server.
                        let line = Arc::new(Line::default());
                        let service = hyper::service::service_fn(move |req| {
                            let shared = shared.clone();
                            let line = line.clone();
                            async move {
                                Ok::<_, std::convert::Infallible>(shared.forward(&line, req).await)
                            }
                        });
                        // Header names go on as the client spelt them (the
                        // case map rides in the request's extensions), and
                        // a client gets `header_timeout` to send a head.
                        let connection = hyper::server::conn::http1::Builder::new()
                            .preserve_header_case(true)
                            .timer(hyper_util::rt::TokioTimer::new())
                            .header_read_timeout(header_timeout)
                            .serve_connection(hyper_util::rt::TokioIo::new(stream), service);
                        tokio::pin!(connection);
                        tokio::select! {
                            _ = connection.as_mut() => {}
                            () = async { let _ = stopping.wait_for(|s| *s).await; } => {
                                // The answer being written is finished first.
                                connection.as_mut().graceful_shutdown();
                                let _ = connection.await;
                            }
                        }
                    });
                }
            }
        }
    });
    Ok(RunningProxy {
        addr,
        tally,
        done,
        stop,
        open,
    })
}

/// How long the accept loop waits after an error such as running out of
/// descriptors.
pub(super) const ACCEPT_BACKOFF: Duration = Duration::from_millis(100);

pub(super) struct Shared {
    known: Known,
    upstream: Upstream,
    /// Of a forwarded exchange, its answer's body included.
    timeout: Duration,
    tally: Arc<Mutex<Tally>>,
    max: Option<u64>,
    other_paths: bool,
    finish: tokio::sync::watch::Sender<bool>,
}
impl Shared {
    async fn forward(
        self: Arc<Self>,
        line: &Line,
        req: HyperRequest<Incoming>,
    ) -> Response<Answering> {
        let (mut parts, body) = req.into_parts();
        let target = parts.uri.path_and_query().map_or("/", |p| p.as_str());
        let observed = Request {
            method: parts.method.as_str().to_owned(),
            target: target.to_owned(),
            headers: pairs(&parts.headers),
            body: Vec::new(),
            body_cut: false,
        };
        // A request without a body (most GETs) goes without one; any other
        // is streamed to the server as it arrives, teed for judging.
        let sending = if body.is_end_stream() {
            Sending { inner: None }
        } else {
            Sending {
                inner: Some((body, Arc::new(Mutex::new(Kept::default())))),
            }
        };
        let req_body = sending.inner.as_ref().map(|(_, kept)| kept.clone());
        let deadline = tokio::time::Instant::now() + self.timeout;
        let answered = match &self.upstream {
            Upstream::Plain {
                authority,
                host,
                prefix,
                gateway,
            } => {
                let uri = match Upstream::target(prefix, parts.uri.path_and_query()) {
                    Ok(u) => u,
                    Err(why) => return self.failed(observed, req_body, &why),
                };
                let mut out = HyperRequest::new(sending);
                *out.method_mut() = parts.method;
                *out.uri_mut() = uri;
                // The client's header names as it spelt them (hyper's case
                // map, in the extensions), in its order.
                *out.extensions_mut() = std::mem::take(&mut parts.extensions);
                parts.headers = end_to_end(std::mem::take(&mut parts.headers), Some(host));
                for (name, value) in gateway {
                    if !parts.headers.contains_key(name) {
                        parts.headers.insert(name, value.clone());
                    }
                }
                *out.headers_mut() = parts.headers;
                match tokio::time::timeout_at(deadline, line.send(authority, out, self.timeout))
                    .await
                {
                    Ok(Ok(a)) => {
                        let (head, body) = a.into_parts();
                        Ok((
                            head,
                            Inner::Streamed {
                                body,
                                deadline,
                                timer: None,
                            },
                        ))
                    }
                    Ok(Err(why)) => Err(why),
                    Err(_) => Err("the server gave no answer within the time-out".to_owned()),
                }
            }
            Upstream::Bindings { client, base } => {
                let mut out = client
                    .request(parts.method, format!("{base}{}", observed.target))
                    .headers(end_to_end(std::mem::take(&mut parts.headers), None));
                if sending.inner.is_some() {
                    out = out.body(reqwest::Body::wrap(sending));
                }
                match out.send().await {
                    Ok(a) => {
                        let (head, body) = hyper::Response::from(a).into_parts();
                        Ok((head, Inner::Bindings(body)))
                    }
                    Err(e) => Err(format!(
                        "the server gave no answer: {}",
                        upstream::reason(e)
                    )),
                }
            }
        };
        let (head, inner) = match answered {
            Ok(a) => a,
            Err(why) => return self.failed(observed, req_body, &why),
        };
        let mut head = head;
        let headers = pairs(&head.headers);
        let status = head.status;
        // A HEAD answer's Content-Length (and a 304's) is the length the
        // body would have: the server's own, passed on, not the length of
        // the empty body that follows.
        let would_be = (observed.method == "HEAD" || status == hyper::StatusCode::NOT_MODIFIED)
            .then(|| head.headers.get(hyper::header::CONTENT_LENGTH).cloned())
            .flatten();
        head.headers = end_to_end(std::mem::take(&mut head.headers), None);
        if let Some(length) = would_be {
            head.headers.insert(hyper::header::CONTENT_LENGTH, length);
        }
        let mut resp = Response::new(Answering {
            inner,
            kept: Kept::default(),
            pending: Some(Pending {
                shared: self.clone(),
                req: observed,
                req_body,
                status: status.as_u16(),
                headers,
            }),
        });
        *resp.status_mut() = status;
        *resp.headers_mut() = head.headers;
        // The server's header names as it spelt them, back to the client.
        *resp.extensions_mut() = head.extensions;
        resp
    }

    /// No answer to forward: the exchange judged on the client's side, the
    /// client told why.
    fn failed(
        &self,
        mut observed: Request,
        req_body: Option<Arc<Mutex<Kept>>>,
        why: &str,
    ) -> Response<Answering> {
        if let Some(kept) = &req_body {
            let (body, cut) = lock(kept).take();
            observed.body = body;
            observed.body_cut = cut;
        }
        self.done(&observed, None);
        Answering::plain(502, why)
    }

    /// Judges the exchange, counts it, and ends the proxy when its count is
    /// reached.
    pub(super) fn done(&self, req: &Request, answer: Option<&Answer>) {
        let count = {
            let mut tally = lock(&self.tally);
            judge(&mut tally, &self.known, req, answer, self.other_paths);
            tally.exchanges() + tally.outside()
        };
        if self.max.is_some_and(|max| count >= max) {
            let _ = self.finish.send(true);
        }
    }
}
