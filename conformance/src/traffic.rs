//! Live and recorded traffic judged by the description's rules, both sides
//! of each exchange (`traffic-rules`): `conformance proxy` forwards every
//! request to the profile's server and judges what passes, `conformance
//! audit` judges a HAR file. What the rules know of the server comes from
//! the profile ([`Known`]): its components, which require auth,
//! their declared fields, where `modelUuid` travels.

use std::borrow::Cow;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::Bytes;
use conformance_model::choices::ModelUuidAt;
use conformance_model::fields::FieldType;
use conformance_model::profile::Profile;
use hyper::body::{Body as _, Incoming};
use hyper::{Request as HyperRequest, Response};
use traffic_rules::{Answer, Component, Field, Kind, Knows, Place, Request, Tally};

mod upstream;
use upstream::{Line, Upstream};

/// The largest body the proxy carries either way (the runner's own cap).
pub const MAX_BODY: usize = 1024 * 1024;

/// What the rules know of one of the profile's components.
fn known(c: &conformance_model::profile::Component) -> Component {
    Component {
        requires_auth: c.requires_auth,
        tokens: c.auth_token.iter().map(|t| t.expose().to_owned()).collect(),
        authorizations: c
            .authorize
            .iter()
            .flat_map(|a| {
                std::iter::once(traffic_rules::Authorization {
                    model_uuid: a.model_uuid.clone(),
                    body: serde_json::Value::Object(a.valid_body.clone()),
                })
                .chain(a.second_model.iter().map(|m| {
                    traffic_rules::Authorization {
                        model_uuid: m.model_uuid.clone(),
                        body: serde_json::Value::Object(m.valid_body.clone()),
                    }
                }))
            })
            .collect(),
        fields: c.fields.as_ref().map(|fields| {
            fields
                .0
                .iter()
                .map(|f| Field {
                    name: f.name.clone(),
                    kind: match f.kind {
                        FieldType::String => Kind::String,
                        FieldType::Integer => Kind::Integer,
                        FieldType::Number => Kind::Number,
                        FieldType::Boolean => Kind::Boolean,
                    },
                    required: f.required,
                })
                .collect()
        }),
    }
}

/// What a profile tells the rules, read once: the proxy asks it for every
/// exchange, and is lent what it asks for.
pub struct Known {
    /// Each component's uuid, name and tag, and what the rules know of it.
    components: Vec<([String; 3], Component)>,
    credentials: traffic_rules::profiled::Credentials,
    at: Place,
    /// The profile's secrets (the client secret, tokens, `${VAR}` values)
    /// and secret body fields: no report shows them.
    secrets: Vec<String>,
    secret_fields: Vec<String>,
}

impl Known {
    pub fn new(profile: &Profile) -> Known {
        Known {
            components: profile
                .components
                .iter()
                .map(|c| ([c.uuid.clone(), c.name.clone(), c.tag.clone()], known(c)))
                .collect(),
            credentials: traffic_rules::profiled::Credentials {
                client_id: profile.client_id.clone(),
                client_secret: profile.client_secret.expose().to_owned(),
            },
            at: match profile.choices.model_uuid().value {
                ModelUuidAt::Query(name) => Place::Query(name),
                ModelUuidAt::Header(name) => Place::Header(name),
                ModelUuidAt::Body(name) => Place::Body(name),
            },
            secrets: profile.secrets(),
            secret_fields: profile.secret_fields(),
        }
    }
}

impl Knows for Known {
    fn component(&self, reference: &str) -> Option<Cow<'_, Component>> {
        self.components
            .iter()
            .find(|(names, _)| names.iter().any(|n| n == reference))
            .map(|(_, c)| Cow::Borrowed(c))
    }

    fn model_uuid_at(&self) -> Cow<'_, Place> {
        Cow::Borrowed(&self.at)
    }

    fn secrets(&self) -> Cow<'_, [String]> {
        Cow::Borrowed(&self.secrets)
    }

    fn secret_fields(&self) -> Cow<'_, [String]> {
        Cow::Borrowed(&self.secret_fields)
    }

    fn credentials(&self) -> Option<traffic_rules::profiled::Lent<'_>> {
        Some(Cow::Borrowed(&self.credentials))
    }

    fn token_owner(&self, token: &str) -> Option<String> {
        self.components
            .iter()
            .find(|(_, c)| c.tokens.iter().any(|t| t == token))
            .map(|([_, name, _], _)| name.clone())
    }
}

/// Judges one exchange on both sides and counts it; one outside the
/// interface's paths is only counted, unless `other_paths` (then it breaks
/// `client/path`).
pub fn judge(
    tally: &mut Tally,
    knows: &dyn Knows,
    req: &Request,
    answer: Option<&Answer>,
    other_paths: bool,
) {
    if !other_paths && !req.on_interface() {
        tally.record_outside();
        return;
    }
    let mut findings = traffic_rules::client::judge_request(req, knows);
    if let Some(answer) = answer {
        let assessed = traffic_rules::profiled::assess(req, &findings, knows);
        let server = traffic_rules::server::judge_answer(req, answer, &findings);
        findings.extend(server);
        findings.extend(traffic_rules::profiled::judge(req, answer, &assessed));
    }
    tally.record_judged(req, answer, &findings, knows);
}

/// Every exchange of the HAR file at `path`, judged (those outside the
/// interface's paths too where `other_paths`); the file is read entry by
/// entry.
pub fn audit(
    path: &std::path::Path,
    profile: &Profile,
    other_paths: bool,
) -> Result<Tally, String> {
    // A regular file only: a FIFO with no writer would wait forever.
    let file = yaml_location::input::open_regular(path)
        .map_err(|e| format!("{}: cannot read the HAR file: {e}", path.display()))?;
    let knows = Known::new(profile);
    let mut tally = Tally::default();
    traffic_rules::har::read_entries(file, |req, answer| {
        let answer = answer.map(decoded);
        judge(&mut tally, &knows, &req, answer.as_ref(), other_paths);
    })
    .map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(tally)
}

/// An answer read as its client reads it: a compressed body decoded (within
/// the cap; one that cannot be is judged as it came).
fn decoded(mut answer: Answer) -> Answer {
    let coding = answer
        .headers
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case("content-encoding"))
        .map(|(_, v)| String::from_utf8_lossy(v).into_owned());
    if let Some(coding) = coding {
        if let Some(Ok(body)) = conformance_wire::encoding::decode(&coding, &answer.body, MAX_BODY)
        {
            answer.body = body;
        }
    }
    answer
}

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
struct Open(Arc<tokio::sync::watch::Sender<usize>>);

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
    let upstream = Upstream::new(&profile.base_url, options.timeout, &options.connect)?;
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
const ACCEPT_BACKOFF: Duration = Duration::from_millis(100);

struct Shared {
    known: Known,
    upstream: Upstream,
    /// Of a forwarded exchange, its answer's body included.
    timeout: Duration,
    tally: Arc<Mutex<Tally>>,
    max: Option<u64>,
    other_paths: bool,
    finish: tokio::sync::watch::Sender<bool>,
}

/// Headers that belong to one connection, not to the exchange (RFC 9110
/// 7.6.1), and `Host`, which the forwarding client sets, and
/// `Content-Length`, which each side's HTTP sets from the streamed body's
/// exact length.
const HOP_BY_HOP: &[&str] = &[
    "connection",
    "keep-alive",
    "proxy-connection",
    "proxy-authenticate",
    "proxy-authorization",
    "te",
    "trailer",
    "transfer-encoding",
    "upgrade",
    "host",
    "content-length",
];

/// `headers` without [`HOP_BY_HOP`], nor the names a `Connection` header
/// lists (RFC 9110 7.6.1: "a proxy or gateway MUST parse a received
/// Connection header field before a message is forwarded and, for each
/// connection-option in this field, remove any header or trailer field(s)
/// from the message with the same name"), in the order they came: a map
/// built anew, since removing from one moves its last entry into the gap.
/// `host`, where given, stands where the client's `Host` stood (first,
/// where it sent none).
fn end_to_end(
    headers: hyper::HeaderMap,
    host: Option<&hyper::header::HeaderValue>,
) -> hyper::HeaderMap {
    let listed: Vec<hyper::header::HeaderName> = headers
        .get_all(hyper::header::CONNECTION)
        .iter()
        .flat_map(|v| v.as_bytes().split(|&b| b == b','))
        .filter_map(|name| hyper::header::HeaderName::from_bytes(name.trim_ascii()).ok())
        .collect();
    let mut out = hyper::HeaderMap::with_capacity(headers.len() + 1);
    if let Some(host) = host.filter(|_| !headers.contains_key(hyper::header::HOST)) {
        out.insert(hyper::header::HOST, host.clone());
    }
    let mut name: Option<hyper::header::HeaderName> = None;
    for (next, value) in headers {
        if let Some(next) = next {
            name = Some(next);
        }
        let Some(name) = &name else { continue };
        if name == hyper::header::HOST {
            if let Some(host) = host {
                out.insert(hyper::header::HOST, host.clone());
            }
            continue;
        }
        if HOP_BY_HOP.contains(&name.as_str()) || listed.contains(name) {
            continue;
        }
        out.append(name.clone(), value);
    }
    out
}

/// The first [`MAX_BODY`] bytes of a streamed body, kept for judging while
/// every byte is forwarded as it arrives. Past the cap nothing is kept
/// (the body is judged by no rule that reads it); the wire never sees the
/// cap.
#[derive(Default)]
struct Kept {
    chunks: Vec<Bytes>,
    len: usize,
    /// Over the cap: `chunks` dropped.
    over: bool,
    /// The body's end was seen.
    ended: bool,
}

impl Kept {
    fn keep(&mut self, chunk: &Bytes) {
        if self.over {
            return;
        }
        self.len += chunk.len();
        if self.len > MAX_BODY {
            self.over = true;
            self.chunks = Vec::new();
        } else if !chunk.is_empty() {
            // A clone of `Bytes` is a count, not a copy.
            self.chunks.push(chunk.clone());
        }
    }

    /// The body as judged, and whether it was cut (over the cap, or its
    /// end never seen).
    fn take(&mut self) -> (Vec<u8>, bool) {
        if self.over || !self.ended {
            return (Vec::new(), true);
        }
        (std::mem::take(&mut self.chunks).concat(), false)
    }
}

/// The client's request body on its way to the server: each frame passed
/// on as it comes, its data teed into the exchange's [`Kept`]; or none.
struct Sending {
    inner: Option<(Incoming, Arc<Mutex<Kept>>)>,
}

impl hyper::body::Body for Sending {
    type Data = Bytes;
    type Error = hyper::Error;

    fn poll_frame(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Result<hyper::body::Frame<Bytes>, hyper::Error>>> {
        let Some((body, kept)) = &mut self.inner else {
            return std::task::Poll::Ready(None);
        };
        let polled = std::pin::Pin::new(&mut *body).poll_frame(cx);
        match &polled {
            std::task::Poll::Ready(Some(Ok(frame))) => {
                if let Some(data) = frame.data_ref() {
                    let mut kept = lock(kept);
                    kept.keep(data);
                    // The last frame of a body of known length: its reader
                    // may not poll again.
                    kept.ended |= body.is_end_stream();
                }
            }
            std::task::Poll::Ready(None) => lock(kept).ended = true,
            _ => {}
        }
        polled
    }

    fn is_end_stream(&self) -> bool {
        self.inner.as_ref().is_none_or(|(b, _)| b.is_end_stream())
    }

    fn size_hint(&self) -> hyper::body::SizeHint {
        self.inner.as_ref().map_or_else(
            || hyper::body::SizeHint::with_exact(0),
            |(b, _)| b.size_hint(),
        )
    }
}

/// Header pairs as the rules read them.
fn pairs(headers: &hyper::HeaderMap) -> Vec<(String, Vec<u8>)> {
    headers
        .iter()
        .map(|(n, v)| (n.as_str().to_owned(), v.as_bytes().to_vec()))
        .collect()
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// The proxy's answer to its client: the server's body streamed through
/// (teed into a [`Kept`]), or the proxy's own short text. The exchange is
/// judged when hyper is done with the body (its last byte handed to the
/// connection, or the client gone): after the answer is forwarded, on the
/// connection's task, before the connection reads its next request.
struct Answering {
    inner: Inner,
    kept: Kept,
    pending: Option<Pending>,
}

enum Inner {
    Plain(Option<Bytes>),
    /// From hyper's client, with the exchange's deadline (its timer set
    /// only when the body makes it wait).
    Streamed {
        body: Incoming,
        deadline: tokio::time::Instant,
        timer: Option<std::pin::Pin<Box<tokio::time::Sleep>>>,
    },
    /// From the bindings' client, which keeps its own deadline.
    Bindings(reqwest::Body),
}

type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// What judging the exchange needs once its answer's body has passed.
struct Pending {
    shared: Arc<Shared>,
    req: Request,
    /// The request body's [`Kept`]; `None`: it had none.
    req_body: Option<Arc<Mutex<Kept>>>,
    status: u16,
    headers: Vec<(String, Vec<u8>)>,
}

impl Answering {
    fn plain(status: u16, text: &str) -> Response<Answering> {
        let mut resp = Response::new(Answering {
            inner: Inner::Plain(Some(Bytes::from(format!("{text}\n")))),
            kept: Kept::default(),
            pending: None,
        });
        *resp.status_mut() =
            hyper::StatusCode::from_u16(status).unwrap_or(hyper::StatusCode::BAD_GATEWAY);
        resp.headers_mut().insert(
            hyper::header::CONTENT_TYPE,
            hyper::header::HeaderValue::from_static("text/plain; charset=utf-8"),
        );
        resp
    }
}

impl hyper::body::Body for Answering {
    type Data = Bytes;
    type Error = BoxError;

    fn poll_frame(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Result<hyper::body::Frame<Bytes>, BoxError>>> {
        use std::task::Poll;
        let this = &mut *self;
        let polled: Poll<Option<Result<hyper::body::Frame<Bytes>, BoxError>>> =
            match &mut this.inner {
                Inner::Plain(text) => {
                    return Poll::Ready(text.take().map(|t| Ok(hyper::body::Frame::data(t))));
                }
                Inner::Streamed {
                    body,
                    deadline,
                    timer,
                } => match std::pin::Pin::new(&mut *body).poll_frame(cx) {
                    Poll::Pending => {
                        let timer = timer
                            .get_or_insert_with(|| Box::pin(tokio::time::sleep_until(*deadline)));
                        match timer.as_mut().poll(cx) {
                            Poll::Ready(()) => Poll::Ready(Some(Err(
                                "the server's answer took longer than the time-out".into(),
                            ))),
                            Poll::Pending => Poll::Pending,
                        }
                    }
                    Poll::Ready(frame) => Poll::Ready(frame.map(|f| f.map_err(Into::into))),
                },
                Inner::Bindings(body) => std::pin::Pin::new(body)
                    .poll_frame(cx)
                    .map(|frame| frame.map(|f| f.map_err(Into::into))),
            };
        match &polled {
            Poll::Ready(Some(Ok(frame))) => {
                if let Some(data) = frame.data_ref() {
                    this.kept.keep(data);
                }
            }
            Poll::Ready(Some(Err(_))) => this.kept.over = true,
            Poll::Ready(None) => this.kept.ended = true,
            Poll::Pending => {}
        }
        polled
    }

    fn is_end_stream(&self) -> bool {
        match &self.inner {
            Inner::Plain(text) => text.is_none(),
            Inner::Streamed { body, .. } => body.is_end_stream(),
            Inner::Bindings(body) => body.is_end_stream(),
        }
    }

    fn size_hint(&self) -> hyper::body::SizeHint {
        match &self.inner {
            Inner::Plain(text) => {
                hyper::body::SizeHint::with_exact(text.as_ref().map_or(0, |t| t.len() as u64))
            }
            Inner::Streamed { body, .. } => body.size_hint(),
            Inner::Bindings(body) => body.size_hint(),
        }
    }
}

impl Drop for Answering {
    fn drop(&mut self) {
        let Some(mut p) = self.pending.take() else {
            return;
        };
        // hyper may stop polling once the body's length is reached.
        self.kept.ended |= match &self.inner {
            Inner::Plain(_) => true,
            Inner::Streamed { body, .. } => body.is_end_stream(),
            Inner::Bindings(body) => body.is_end_stream(),
        };
        if let Some(kept) = &p.req_body {
            let (body, cut) = lock(kept).take();
            p.req.body = body;
            p.req.body_cut = cut;
        }
        let (body, body_cut) = self.kept.take();
        let seen = decoded(Answer {
            status: p.status,
            headers: std::mem::take(&mut p.headers),
            body,
            body_cut,
        });
        p.shared.done(&p.req, Some(&seen));
    }
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
    fn done(&self, req: &Request, answer: Option<&Answer>) {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hop_by_hop_headers_and_those_connection_lists_are_not_forwarded() {
        let mut headers = hyper::HeaderMap::new();
        for (name, value) in [
            ("host", "proxy.test"),
            ("connection", "keep-alive, X-Trace"),
            ("x-trace", "abc"),
            ("keep-alive", "timeout=5"),
            ("transfer-encoding", "chunked"),
            ("x-client-id", "demo"),
            ("content-type", "application/json"),
        ] {
            headers.append(
                hyper::header::HeaderName::from_static(name),
                hyper::header::HeaderValue::from_static(value),
            );
        }
        let host = hyper::header::HeaderValue::from_static("server.test");
        let headers = end_to_end(headers, Some(&host));
        let left: Vec<(&str, &str)> = headers
            .iter()
            .map(|(n, v)| (n.as_str(), v.to_str().unwrap_or_default()))
            .collect();
        // In the order they came, Host where the client's stood.
        assert_eq!(
            left,
            [
                ("host", "server.test"),
                ("x-client-id", "demo"),
                ("content-type", "application/json")
            ]
        );
    }

    #[test]
    fn a_request_without_connection_keeps_its_end_to_end_headers() {
        let mut headers = hyper::HeaderMap::new();
        headers.insert(
            "x-client-id",
            hyper::header::HeaderValue::from_static("demo"),
        );
        headers.insert(
            "content-length",
            hyper::header::HeaderValue::from_static("2"),
        );
        let headers = end_to_end(headers, None);
        assert_eq!(headers.len(), 1);
        assert!(headers.contains_key("x-client-id"));
    }
}
