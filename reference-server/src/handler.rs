//! One request, from the request line to the outcome, checked in a fixed
//! order (the first failure answers):
//!
//! 0. HTTP/1.1 framing: one `Host`, no transfer coding but `chunked` (400, 501);
//! 1. path and method (404, 405);
//! 2. body size (413), read with a bound, never whole;
//! 3. `X-Client-Id`, `X-Client-Secret` present and not empty (400);
//! 4. `X-Project-Env` absent, `dev` or `live` (400);
//! 5. client id known, secret right, compared in constant time (401);
//! 6. `ref` resolves, after percent-decoding, by uuid, then name, then tag (404);
//! 7. `X-Auth-Token` as the component requires (401);
//! 8. body absent, or a UTF-8 JSON object (400);
//! 9. validation, every failure collected (417);
//! 10. the operation itself (404 unknown model, 401 fields that no model claims).
//!
//! The statuses are spec/README.md's choices; a variant may answer another
//! (`variant.rs`), at the same step.

use std::borrow::Cow;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use bytes::Bytes;
use component_auth_bindings::types::{
    self, AuthClaimsResult, AuthorizeResult, ProjectEnv, ValidationError,
};
use http_body_util::{BodyExt, Full};
use hyper::body::{Body as _, Incoming};
use hyper::header::{CONTENT_LENGTH, CONTENT_TYPE};
use hyper::{HeaderMap, Request, Response};
use percent_encoding::percent_decode_str;
use serde_json::{Map, Value};
use subtle::ConstantTimeEq;
use tokio::sync::{Semaphore, SemaphorePermit};

use crate::behaviour::{
    Behaviour, Body as BodyRules, Compare, MediaTypeRule, ModelUuidSource, ProjectEnvRule,
    ProjectEnvRules, RateLimit, RefMatch, Refs, Refusal, RequestIdForm, RequestIds, TokenScope,
    Validation,
};
use crate::envelope::{self, Failure, Success};
use crate::fault::Fault;
use crate::fixture::{Component, Fixture, Model, Settings};
use crate::framing;
use crate::json;
use crate::routes::{self, Operation};
use crate::tokens::{Binding, TokenStore};
use crate::validate::{self, rule};
use crate::variant::Variant;

/// The instances (or workers) a fault that keeps state per instance
/// simulates: connections take them in turn.
const INSTANCES: u64 = 2;

/// A body still incomplete after this long is refused, so a slow client
/// cannot hold a connection open forever.
const BODY_TIMEOUT: Duration = Duration::from_secs(10);
/// A refused body is still read, and dropped, this long at most ...
const DRAIN_TIME: Duration = Duration::from_secs(2);
/// ... and this many bytes at most.
const DRAIN_BYTES: usize = 8 * 1024 * 1024;

/// What the server holds while it runs.
pub(crate) struct App {
    pub fixture: Fixture,
    /// How it behaves at each seam: correct, or with the variants' choices
    /// and one fault's change.
    pub behaviour: Behaviour,
    pub tokens: TokenStore,
    /// The model each successful Authorize recorded, by instance (always
    /// 0 but under a fault), component index and environment (variant
    /// `records-claims`).
    claims: std::sync::Mutex<std::collections::HashMap<(usize, usize, ProjectEnv), usize>>,
    /// Each worker's cache of recorded claims (read only under the fault
    /// that keeps one): filled by reads, updated only by the worker's own
    /// writes.
    claims_cache:
        std::sync::Mutex<std::collections::HashMap<(usize, usize, ProjectEnv), Option<usize>>>,
    /// Connections accepted, for the instance each is served by.
    connections: AtomicU64,
    pub limits: Limits,
    /// Request ids made so far, for the opaque form (`req-N`).
    request_ids: AtomicU64,
    /// Each client's token bucket (variant `rate-limit`).
    buckets: std::sync::Mutex<std::collections::HashMap<Vec<u8>, Bucket>>,
    /// Requests seen, for a limiter's `nth` ([`RateLimit::nth`]).
    requests_seen: AtomicU64,
    /// What the server's clients broke, rule by rule ([`crate::judged`]).
    pub clients: std::sync::Mutex<traffic_rules::Tally>,
}

/// What a client has left of its rate: tokens, as of `at`.
#[derive(Clone, Copy, Debug)]
struct Bucket {
    tokens: f64,
    at: std::time::Instant,
}

/// Clients a rate limiter remembers at most: past that it forgets them
/// all, so a client sending new ids cannot grow the server's memory.
const MAX_BUCKETS: usize = 10_000;

impl App {
    pub(crate) fn new(
        fixture: Fixture,
        fault: Option<Fault>,
        variants: &[Variant],
        limits: Limits,
    ) -> Self {
        let tokens = TokenStore::from_fixture(&fixture);
        App {
            fixture,
            behaviour: Behaviour::new(fault, variants),
            tokens,
            claims: Default::default(),
            claims_cache: Default::default(),
            connections: AtomicU64::new(0),
            limits,
            request_ids: AtomicU64::new(0),
            buckets: Default::default(),
            clients: Default::default(),
            requests_seen: AtomicU64::new(0),
        }
    }

    /// Holds a request (head and body) to the client's rules.
    fn judge_client(&self, parts: &hyper::http::request::Parts, body: &[u8]) {
        let knows = crate::judged::FixtureKnows {
            fixture: &self.fixture,
            behaviour: &self.behaviour,
        };
        crate::judged::judge(&self.clients, &knows, parts, body);
    }

    /// Takes one token of `client`'s bucket; `Err` with the seconds until
    /// the next token when it is empty.
    fn take_token(&self, limit: RateLimit, client: &[u8]) -> Result<(), f64> {
        let now = std::time::Instant::now();
        let mut buckets = self.buckets.lock().unwrap_or_else(|p| p.into_inner());
        if buckets.len() >= MAX_BUCKETS && !buckets.contains_key(client) {
            buckets.clear();
        }
        let bucket = buckets.entry(client.to_vec()).or_insert(Bucket {
            tokens: limit.burst,
            at: now,
        });
        let elapsed = now.saturating_duration_since(bucket.at).as_secs_f64();
        bucket.tokens = (bucket.tokens + elapsed * limit.per_second).min(limit.burst);
        bucket.at = now;
        if bucket.tokens >= 1.0 {
            bucket.tokens -= 1.0;
            Ok(())
        } else {
            Err((1.0 - bucket.tokens) / limit.per_second)
        }
    }

    /// The key claims are kept under: the component and environment, or
    /// the component alone under a fault.
    fn claim_key(&self, component: usize, env: ProjectEnv) -> (usize, ProjectEnv) {
        match self.behaviour.claims_env_blind {
            true => (component, ProjectEnv::Live),
            false => (component, env),
        }
    }

    /// A fresh request id in the form the behaviour says.
    pub(crate) fn new_request_id(&self) -> String {
        match self.behaviour.answer.request_id_form {
            RequestIdForm::Uuid => uuid::Uuid::new_v4().to_string(),
            RequestIdForm::Opaque => {
                let n = self.request_ids.fetch_add(1, Ordering::Relaxed) + 1;
                format!("req-{n}")
            }
        }
    }

    /// The instance (or worker) a new connection is served by: in turn,
    /// as a round-robin balancer hands connections to two instances.
    pub(crate) fn next_instance(&self) -> usize {
        (self.connections.fetch_add(1, Ordering::Relaxed) % INSTANCES) as usize
    }

    /// Records `model` as the one claiming `component` in `env`, as served
    /// by `instance`; returns the one it replaced.
    fn record_claim(
        &self,
        instance: usize,
        component: usize,
        env: ProjectEnv,
        model: usize,
    ) -> Option<usize> {
        let (c, e) = self.claim_key(component, env);
        let store = match self.behaviour.claims_per_instance {
            true => instance,
            false => 0,
        };
        let replaced = {
            let mut claims = self.claims.lock().unwrap_or_else(|p| p.into_inner());
            claims.insert((store, c, e), model)
        };
        if self.behaviour.claims_cached_per_worker {
            let mut cache = self.claims_cache.lock().unwrap_or_else(|p| p.into_inner());
            cache.insert((instance, c, e), Some(model));
        }
        replaced
    }

    /// The model recorded as claiming `component` in `env`, if any, as
    /// `instance` sees it.
    fn recorded_claim(&self, instance: usize, component: usize, env: ProjectEnv) -> Option<usize> {
        let (c, e) = self.claim_key(component, env);
        let store = match self.behaviour.claims_per_instance {
            true => instance,
            false => 0,
        };
        let stored = || {
            let claims = self.claims.lock().unwrap_or_else(|p| p.into_inner());
            claims.get(&(store, c, e)).copied()
        };
        if !self.behaviour.claims_cached_per_worker {
            return stored();
        }
        let mut cache = self.claims_cache.lock().unwrap_or_else(|p| p.into_inner());
        *cache.entry((instance, c, e)).or_insert_with(stored)
    }

    /// The one id every answer repeats under [`RequestIds::Nil`].
    fn nil_request_id(&self) -> String {
        match self.behaviour.answer.request_id_form {
            RequestIdForm::Uuid => uuid::Uuid::nil().to_string(),
            RequestIdForm::Opaque => "req-0".to_owned(),
        }
    }
}

/// What every request shares besides the data: the body budget and the
/// added latency (`ServerOptions`).
pub(crate) struct Limits {
    /// One permit per request-body byte held at once, across connections.
    body_budget: Semaphore,
    /// The budget's size: a body larger than it never fits.
    budget_bytes: usize,
    /// How long a body waits for room in the budget before a 503.
    budget_wait: Duration,
    latency: Duration,
}

impl Limits {
    pub(crate) fn new(
        max_inflight_body_bytes: usize,
        budget_wait: Duration,
        latency: Duration,
    ) -> Self {
        let budget_bytes = max_inflight_body_bytes.min(Semaphore::MAX_PERMITS);
        Limits {
            body_budget: Semaphore::new(budget_bytes),
            budget_bytes,
            budget_wait,
            latency,
        }
    }

    /// Reserves `bytes` of the body budget: at once if they fit, else after
    /// waiting up to `budget_wait` for other bodies to be answered; `None`
    /// when they do not fit in time (or ever).
    async fn reserve(&self, bytes: usize) -> Option<SemaphorePermit<'_>> {
        let n = u32::try_from(bytes)
            .ok()
            .filter(|_| bytes <= self.budget_bytes)?;
        if let Ok(permit) = self.body_budget.try_acquire_many(n) {
            return Some(permit);
        }
        tokio::time::timeout(self.budget_wait, self.body_budget.acquire_many(n))
            .await
            .ok()?
            .ok()
    }
}

/// What one connection knows, shared by the requests it carries.
#[derive(Debug)]
pub(crate) struct ConnState {
    /// The raw request head spells `X-Client-Id` exactly so; consulted only
    /// when header names are (wrongly) case-sensitive.
    pub client_id_spelled_exactly: bool,
    /// The connection closes after this answer.
    pub close: bool,
    /// The request id every answer repeats under [`RequestIds::PerConnection`].
    pub request_id: String,
    /// A request on this connection passed client auth (read only when
    /// auth is, wrongly, cached per connection).
    pub authenticated: AtomicBool,
    /// Which of the server's simulated instances (or workers) serves this
    /// connection: connections take them in turn, as behind a round-robin
    /// balancer. Read only where state is, wrongly, kept per instance.
    pub instance: usize,
}

impl ConnState {
    pub(crate) fn new(
        client_id_spelled_exactly: bool,
        close: bool,
        request_id: String,
        instance: usize,
    ) -> Self {
        ConnState {
            client_id_spelled_exactly,
            close,
            request_id,
            authenticated: AtomicBool::new(false),
            instance,
        }
    }
}

/// Answers one request; never fails, every problem is an envelope.
pub(crate) async fn handle(
    app: &App,
    req: Request<Incoming>,
    conn: &ConnState,
) -> Response<Full<Bytes>> {
    let request_id = match app.behaviour.connection.request_id {
        RequestIds::PerRequest => app.new_request_id(),
        RequestIds::Nil => app.nil_request_id(),
        RequestIds::PerConnection => conn.request_id.clone(),
    };
    let method = req.method().clone();
    let path = req.uri().path().to_owned();
    let accepts_gzip = req
        .headers()
        .get_all(hyper::header::ACCEPT_ENCODING)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .any(|coding| {
            let mut parts = coding.split(';');
            let name = parts.next().unwrap_or_default().trim();
            let refused = parts.any(|p| {
                p.trim()
                    .strip_prefix("q=")
                    .is_some_and(|q| q.trim().parse::<f64>().is_ok_and(|q| q == 0.0))
            });
            (name.eq_ignore_ascii_case("gzip") || name == "*") && !refused
        });
    if let Some(limit) = app.behaviour.rate_limit {
        let client = req
            .headers()
            .get("x-client-id")
            .map_or(&b""[..], |v| v.as_bytes())
            .to_vec();
        let nth = limit
            .nth
            .is_some_and(|n| app.requests_seen.fetch_add(1, Ordering::Relaxed) + 1 == n);
        let taken = match nth {
            true => Err(0.0),
            false => app.take_token(limit, &client),
        };
        if let Err(wait) = taken {
            tracing::info!(status = 429, request_id = %request_id, "{method} {path} (limited)");
            return limited(app, limit, wait, &request_id, accepts_gzip);
        }
    }
    // An answer given before the body was read (an unknown path, a body over
    // the limit) closes the connection, and says so: the unread rest of the
    // body would otherwise be taken for the next request.
    let mut body_read = false;
    let outcome = process(app, req, conn, &mut body_read).await;
    if !app.limits.latency.is_zero() {
        tokio::time::sleep(app.limits.latency).await;
    }
    let response = envelope::render(
        outcome,
        &envelope::Context {
            project_uuid: &app.fixture.project_uuid,
            answer: &app.behaviour.answer,
            request_id: &request_id,
            close: conn.close || !body_read,
            accepts_gzip,
        },
    );
    // Method, path and status only: headers and bodies may carry secrets.
    tracing::info!(
        status = response.status().as_u16(),
        request_id = %request_id,
        "{method} {path}"
    );
    response
}

/// A limit answer: 429 in the 7.1 shape with `Retry-After` (whole seconds,
/// rounded up) and the IETF draft's `RateLimit-*` headers; in plain text,
/// without X-Project-Uuid, under the fault that puts the limiter outside
/// the envelope.
fn limited(
    app: &App,
    limit: RateLimit,
    wait: f64,
    request_id: &str,
    accepts_gzip: bool,
) -> Response<Full<Bytes>> {
    let seconds: &'static str = match wait.ceil() as u64 {
        _ if wait <= 0.0 => "0",
        0 | 1 => "1",
        2 => "2",
        _ => "5",
    };
    let mut response = if limit.answer_text {
        let mut r = Response::new(Full::new(Bytes::from_static(b"Too Many Requests\n")));
        *r.status_mut() = hyper::StatusCode::TOO_MANY_REQUESTS;
        r.headers_mut().insert(
            hyper::header::CONTENT_TYPE,
            hyper::header::HeaderValue::from_static("text/plain; charset=utf-8"),
        );
        r.headers_mut().insert(
            hyper::header::RETRY_AFTER,
            hyper::header::HeaderValue::from_static(seconds),
        );
        r
    } else {
        envelope::render(
            Err(Failure::Error {
                status: hyper::StatusCode::TOO_MANY_REQUESTS,
                message: "too many requests from this client: wait as Retry-After says".to_owned(),
                header: Some((hyper::header::RETRY_AFTER, seconds)),
            }),
            &envelope::Context {
                project_uuid: &app.fixture.project_uuid,
                answer: &app.behaviour.answer,
                request_id,
                close: false,
                accepts_gzip,
            },
        )
    };
    let headers = response.headers_mut();
    if let Ok(v) = hyper::header::HeaderValue::from_str(&format!("{}", limit.per_second as u64)) {
        headers.insert("ratelimit-limit", v);
    }
    headers.insert(
        "ratelimit-remaining",
        hyper::header::HeaderValue::from_static("0"),
    );
    if let Ok(v) = hyper::header::HeaderValue::from_str(&format!("{};w=1", limit.per_second as u64))
    {
        headers.insert("ratelimit-policy", v);
    }
    headers.insert(
        "ratelimit-reset",
        hyper::header::HeaderValue::from_static(seconds),
    );
    response
}

async fn process(
    app: &App,
    req: Request<Incoming>,
    conn: &ConnState,
    body_read: &mut bool,
) -> Result<Success, Failure> {
    let b = &app.behaviour;
    framing::check(req.version(), req.headers())?;
    let (operation, raw_ref) = match routes::route(req.method(), req.uri().path(), &b.route) {
        Ok(route) => route,
        Err(failure) => {
            // A request outside the interface: judged by its head alone.
            let (parts, body) = req.into_parts();
            drain(body);
            app.judge_client(&parts, &[]);
            return Err(failure);
        }
    };
    let raw_ref = raw_ref.to_owned();
    let (parts, body) = req.into_parts();
    // Held until the request is answered: its body's bytes stay counted.
    let (body, _reserved) = read_body(&parts.headers, body, &app.limits, b.body.limit).await?;
    *body_read = true;
    app.judge_client(&parts, &body);
    let headers = &parts.headers;

    let client_id = header(headers, "x-client-id")
        .filter(|_| !b.connection.header_names_case_sensitive || conn.client_id_spelled_exactly)
        .filter(|id| !id.is_empty());
    let secret = header(headers, "x-client-secret").filter(|s| !s.is_empty());
    let missing: Vec<ValidationError> = [
        (client_id, b.credentials.client_id_required, "X-Client-Id"),
        (secret, b.credentials.secret_required, "X-Client-Secret"),
    ]
    .into_iter()
    .filter(|(value, required, _)| value.is_none() && *required)
    .map(|(_, _, name)| validate::header_required(name))
    .collect();
    if !missing.is_empty() {
        return Err(refuse(&b.validation, b.credentials.missing, missing));
    }
    let env = project_env(&b.project_env, header(headers, "x-project-env")).ok_or_else(|| {
        refuse(
            &b.validation,
            b.project_env.refused,
            vec![validate::project_env_invalid()],
        )
    })?;
    let cached = b.connection.auth_cached && conn.authenticated.load(Ordering::Relaxed);
    if !cached {
        authenticate(app, client_id, secret)?;
        conn.authenticated.store(true, Ordering::Relaxed);
    }

    let component_index = resolve(&app.fixture.components, &b.refs, &raw_ref)?;
    let component = &app.fixture.components[component_index];
    let token_model = check_token(app, component_index, header(headers, "x-auth-token"))?;
    let body: &[u8] = if operation == Operation::AuthClaims && b.body.ignored_on_get {
        &[]
    } else {
        &body
    };
    let mut fields = parse_body(&b.body, &b.validation, headers, body)?;
    if operation == Operation::AuthClaims && b.body.fields_unchecked_on_get {
        fields = None;
    }

    let source = b.authorize.model_uuid;
    let model_uuid = match operation {
        Operation::Authorize => Some(match source {
            ModelUuidSource::Query => query_param(parts.uri.query(), validate::MODEL_UUID),
            ModelUuidSource::Header(name) => {
                header(headers, name).map(|v| String::from_utf8_lossy(v).into_owned())
            }
            // Taken out of the fields, so it is not an unknown auth field;
            // a value that is not a string then fails the uuid format.
            ModelUuidSource::BodyField(name) => fields
                .as_mut()
                .and_then(|f| f.shift_remove(name))
                .map(|v| match v {
                    Value::String(text) => text,
                    other => other.to_string(),
                }),
        }),
        Operation::AuthClaims => None,
    };
    let mut errors: Vec<ValidationError> = Vec::new();
    if let Some(value) = &model_uuid {
        if let Some(error) = validate::model_uuid(value.as_deref(), source) {
            if b.validation.model_uuid_required || error.rule != rule::REQUIRED {
                errors.push(error);
            }
        }
    }
    let validate_body = operation == Operation::Authorize || fields.is_some();
    if validate_body && b.validation.check_fields {
        errors.extend(validate::fields_with(
            &component.settings,
            fields.as_ref(),
            b.validation.fields,
        ));
    }
    if !errors.is_empty() {
        return Err(validation_failure(&b.validation, errors));
    }

    let view = ComponentView {
        app,
        index: component_index,
        component,
        env,
        instance: conn.instance,
    };
    match operation {
        Operation::Authorize => {
            let model_uuid = model_uuid.flatten().filter(|v| !v.is_empty());
            authorize(&view, model_uuid.as_deref(), fields.as_ref())
        }
        Operation::AuthClaims => auth_claims(&view, token_model, fields.as_ref()),
    }
}

/// The first value of a header, as bytes: a value need not be UTF-8.
fn header<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a [u8]> {
    headers.get(name).map(|v| v.as_bytes())
}

/// Reads the body with a bound: a declared length over the limit is refused
/// before reading, a chunked one as soon as it passes the limit. Before
/// reading, the body's bytes (its declared length, or the limit for a
/// chunked one) are reserved from the budget shared by all connections,
/// waiting a little for room; a body that still does not fit is not read:
/// 503, try again later.
async fn read_body<'a>(
    headers: &HeaderMap,
    body: Incoming,
    limits: &'a Limits,
    limit: usize,
) -> Result<(Bytes, Option<SemaphorePermit<'a>>), Failure> {
    let too_large = || Failure::too_large(format!("the request body is larger than {limit} bytes"));
    let declared = header(headers, CONTENT_LENGTH.as_str())
        .and_then(|v| std::str::from_utf8(v).ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|len| len > limit as u64) {
        drain(body);
        return Err(too_large());
    }
    // hyper knows an absent body (0) and a declared length; chunked has no
    // upper bound but the limit.
    let reserve = body
        .size_hint()
        .upper()
        .map_or(limit, |n| n.min(limit as u64) as usize);
    let reserved = match reserve {
        0 => None,
        n => Some(limits.reserve(n).await.ok_or_else(|| {
            Failure::unavailable(
                "the server holds as many request bodies as it takes at once; retry later",
                "1",
            )
        })?),
    };
    let mut body = body;
    let read = async {
        let mut bytes = bytes::BytesMut::new();
        while let Some(frame) = body.frame().await {
            let Ok(data) = frame?.into_data() else {
                continue;
            };
            if bytes.len() + data.len() > limit {
                return Ok(None);
            }
            bytes.extend_from_slice(&data);
        }
        Ok::<_, hyper::Error>(Some(bytes.freeze()))
    };
    match tokio::time::timeout(BODY_TIMEOUT, read).await {
        Err(_) => Err(Failure::bad_request(
            "the request body did not arrive in time",
        )),
        Ok(Ok(None)) => {
            drain(body);
            Err(too_large())
        }
        Ok(Err(_)) => Err(Failure::bad_request("the request body could not be read")),
        Ok(Ok(Some(bytes))) => Ok((bytes, reserved)),
    }
}

/// Reads a body the server refused and drops its bytes, a bounded while
/// ([`DRAIN_TIME`], [`DRAIN_BYTES`]), so that the refusal reaches a client
/// still sending: a connection closed with bytes unread is reset, and the
/// reset can destroy the answer before the client reads it (RFC 9112
/// 9.6). The answer says `Connection: close` either way.
fn drain(mut body: Incoming) {
    if body.is_end_stream() {
        return;
    }
    tokio::spawn(async move {
        let _ = tokio::time::timeout(DRAIN_TIME, async {
            let mut read = 0usize;
            while let Some(Ok(frame)) = body.frame().await {
                read += frame.data_ref().map_or(0, Bytes::len);
                if read > DRAIN_BYTES {
                    break;
                }
            }
        })
        .await;
    });
}

/// `X-Project-Env`: absent means `dev` (spec/README.md choice 8; a
/// variant says `live`); `None` for a value that is refused.
fn project_env(rules: &ProjectEnvRules, value: Option<&[u8]>) -> Option<ProjectEnv> {
    let rule = rules.matching;
    let Some(value) = value else {
        return Some(rules.absent);
    };
    let is = |name: &str| match rule {
        ProjectEnvRule::IgnoreCase => value.eq_ignore_ascii_case(name.as_bytes()),
        ProjectEnvRule::Prefix => value.starts_with(name.as_bytes()),
        _ => value == name.as_bytes(),
    };
    match rule {
        _ if is("dev") => Some(ProjectEnv::Dev),
        ProjectEnvRule::LiveRejected if is("live") => None,
        _ if is("live") => Some(ProjectEnv::Live),
        ProjectEnvRule::EmptyAsAbsent if value.is_empty() => Some(rules.absent),
        ProjectEnvRule::AnyAsDev => Some(ProjectEnv::Dev),
        _ => None,
    }
}

/// A refusal whose status the behaviour chooses: 400 or 401 with the first
/// failure's message, or 417 with every failure (through
/// [`validation_failure`], so a fault on 417s reaches it too).
fn refuse(rules: &Validation, refusal: Refusal, errors: Vec<ValidationError>) -> Failure {
    let message = || {
        errors
            .first()
            .map(|e| e.message.clone())
            .unwrap_or_default()
    };
    match refusal {
        Refusal::BadRequest => Failure::bad_request(message()),
        Refusal::Unauthorized => Failure::unauthorized(message()),
        Refusal::Validation => validation_failure(rules, errors),
    }
}

/// Client id and secret. One message for both failures, so an answer does
/// not tell which client ids exist. An absent id or secret got here only
/// where the behaviour does not require it.
fn authenticate(app: &App, client_id: Option<&[u8]>, secret: Option<&[u8]>) -> Result<(), Failure> {
    let refused = || Failure::unauthorized("unknown client or wrong secret");
    let creds = &app.behaviour.credentials;
    let Some(id) = client_id else {
        return Ok(());
    };
    let Some(client) = app
        .fixture
        .clients
        .iter()
        .find(|c| creds.client_id.matches(c.id.as_bytes(), id))
    else {
        return Err(refused());
    };
    // An unknown client let in by the lookup has no secret of its own to
    // compare: the one it matched stands in.
    match secret {
        None => Ok(()),
        Some(secret) if creds.secret.matches(client.secret.as_bytes(), secret) => Ok(()),
        Some(_) => Err(refused()),
    }
}

/// The component a `ref` names: exact match on uuid, then name, then tag,
/// after percent-decoding (spec/README.md choice 9).
fn resolve(components: &[Component], rules: &Refs, raw_ref: &str) -> Result<usize, Failure> {
    let not_found = || Failure::not_found("no component has this name, tag or uuid");
    if rules
        .crash_longer_than
        .is_some_and(|max| raw_ref.len() > max)
    {
        return Err(Failure::Crash);
    }
    let decoded: Cow<'_, str> = if rules.percent_decode {
        percent_decode_str(raw_ref)
            .decode_utf8()
            .map_err(|_| not_found())?
    } else {
        Cow::Borrowed(raw_ref)
    };
    if rules.crash_on_nul && decoded.contains('\0') {
        return Err(Failure::Crash);
    }
    let wanted: &str = match rules.matching {
        RefMatch::Trimmed => decoded.trim(),
        RefMatch::SuffixStripped => decoded.split('.').next().unwrap_or_default(),
        RefMatch::Exact | RefMatch::Prefix => &decoded,
    };
    let same = |key: &str| {
        key == wanted
            || (rules.matching == RefMatch::Prefix
                && wanted.chars().nth(1).is_some()
                && key.starts_with(wanted))
    };
    let find = |on: bool, key: fn(&Component) -> &str| {
        on.then(|| components.iter().position(|c| same(key(c))))
            .flatten()
    };
    // Uuids match exactly whatever the matching rule says.
    let by_uuid = rules
        .by_uuid
        .then(|| components.iter().position(|c| c.uuid == *decoded))
        .flatten();
    // Exact matches first, so a ref that matches exactly means what it
    // always did; then names and tags ignoring letter case, if chosen.
    let folded = wanted.to_lowercase();
    let find_folded = |on: bool, key: fn(&Component) -> &str| {
        (on && rules.ignore_case)
            .then(|| {
                components
                    .iter()
                    .position(|c| key(c).to_lowercase() == folded)
            })
            .flatten()
    };
    by_uuid
        .or_else(|| find(rules.by_name, |c| &c.name))
        .or_else(|| find(rules.by_tag, |c| &c.tag))
        .or_else(|| find_folded(rules.by_name, |c| &c.name))
        .or_else(|| find_folded(rules.by_tag, |c| &c.tag))
        .or_else(|| (rules.unknown_as_first && !components.is_empty()).then_some(0))
        .ok_or_else(not_found)
}

/// `X-Auth-Token`: required by a component that requires auth; a token sent
/// to any component must be one of its own (spec/README.md choice 7).
/// Returns the model the token is bound to.
fn check_token(
    app: &App,
    component: usize,
    token: Option<&[u8]>,
) -> Result<Option<usize>, Failure> {
    let rules = &app.behaviour.token;
    let requires_auth = app.fixture.components[component].requires_auth;
    let Some(token) = token.filter(|t| !t.is_empty()) else {
        let required = rules.demanded_everywhere || (requires_auth && rules.required_where_auth);
        return if required {
            Err(Failure::unauthorized(
                "this component requires an X-Auth-Token",
            ))
        } else {
            Ok(None)
        };
    };
    let binding = match rules.compare {
        Compare::Exact => app.tokens.lookup(token),
        other => app.tokens.find(|known| other.matches(known, token)),
    };
    let refused = || Failure::unauthorized("the X-Auth-Token is not valid for this component");
    match (binding, rules.scope) {
        (
            Some(Binding {
                component: c,
                model,
            }),
            _,
        ) if c == component => Ok(Some(model)),
        (Some(_), TokenScope::AnyComponent) if requires_auth => Ok(None),
        (_, TokenScope::Anything) if requires_auth => Ok(None),
        _ if !requires_auth && rules.foreign_ignored_where_not_required => Ok(None),
        _ => Err(refused()),
    }
}

/// The body's fields: `None` for an absent or empty body.
fn parse_body(
    rules: &BodyRules,
    validation: &Validation,
    headers: &HeaderMap,
    body: &[u8],
) -> Result<Option<Map<String, Value>>, Failure> {
    let malformed = |message: String| {
        refuse(
            validation,
            rules.malformed,
            vec![validate::body_malformed(message)],
        )
    };
    if body.is_empty() {
        return Ok(None);
    }
    if let Some(content_type) = header(headers, CONTENT_TYPE.as_str()) {
        if !media_type_taken(rules.media_type, content_type) {
            return Err(Failure::bad_request(
                "the request body must be sent as application/json",
            ));
        }
    }
    let lenient = rules.malformed_as_empty;
    let Ok(text) = std::str::from_utf8(body) else {
        return if lenient {
            Ok(None)
        } else {
            Err(malformed("the request body is not UTF-8".to_owned()))
        };
    };
    // serde_json refuses nesting deeper than 128 levels with an error, not
    // a stack overflow. Its messages give a position, never the input; a
    // repeated key (refused at any depth) is named by its path.
    let text = match rules.bom_ignored {
        true => text.strip_prefix('\u{feff}').unwrap_or(text),
        false => text,
    };
    let parsed = match rules.trailing_bytes_accepted {
        true => json::first_value(text),
        false => json::from_str(text),
    };
    let value = match parsed {
        Ok(value) => value,
        Err(_) if lenient => return Ok(None),
        Err(e) if e.classify() == serde_json::error::Category::Data => {
            return Err(Failure::bad_request(format!("the request body has a {e}")));
        }
        Err(e) => return Err(malformed(format!("the request body is not JSON: {e}"))),
    };
    if (rules.crash_on_non_bmp && any_leaf(&value, &|v| v.as_str().is_some_and(has_non_bmp)))
        || (rules.crash_on_non_i64 && any_leaf(&value, &|v| v.is_number() && v.as_i64().is_none()))
    {
        return Err(Failure::Crash);
    }
    match value {
        Value::Object(fields) => Ok(Some(fields)),
        _ if rules.crash_on_non_object => Err(Failure::Crash),
        _ => Err(malformed(
            "the request body must be a JSON object".to_owned(),
        )),
    }
}

/// Whether a request's `Content-Type` is taken as JSON. The correct server
/// parses the body as JSON whatever the header says.
fn media_type_taken(rule: MediaTypeRule, content_type: &[u8]) -> bool {
    let essence = content_type
        .split(|&b| b == b';')
        .next()
        .unwrap_or_default()
        .trim_ascii();
    match rule {
        MediaTypeRule::Lenient => true,
        MediaTypeRule::WholeHeader => content_type.eq_ignore_ascii_case(b"application/json"),
        MediaTypeRule::CaseSensitive => {
            essence == b"application/json" || !essence.eq_ignore_ascii_case(b"application/json")
        }
    }
}

fn has_non_bmp(text: &str) -> bool {
    text.chars().any(|c| u32::from(c) > 0xFFFF)
}

/// Whether any scalar in `value` (at any depth) satisfies `test`.
fn any_leaf(value: &Value, test: &dyn Fn(&Value) -> bool) -> bool {
    match value {
        Value::Array(items) => items.iter().any(|v| any_leaf(v, test)),
        Value::Object(map) => map.values().any(|v| any_leaf(v, test)),
        scalar => test(scalar),
    }
}

/// A failed validation: 417, or the 400 some faults answer instead.
fn validation_failure(rules: &Validation, errors: Vec<ValidationError>) -> Failure {
    let has = |r: &str| errors.iter().any(|e| e.rule == r);
    if rules.answered_400
        || (rules.unknown_field_400 && has(rule::UNKNOWN_FIELD))
        || (rules.wrong_type_400 && has(rule::TYPE))
    {
        return Failure::bad_request(validate::summary(&errors));
    }
    Failure::Validation(errors)
}

/// The first value of a query parameter, percent-decoded; `None` when the
/// parameter is absent. A value that is not UTF-8 is kept lossily: it then
/// fails the uuid format check, as it should.
fn query_param(query: Option<&str>, name: &str) -> Option<String> {
    form_urlencoded::parse(query?.as_bytes())
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.into_owned())
}

/// The pieces of a success body.
struct ComponentView<'a> {
    app: &'a App,
    index: usize,
    component: &'a Component,
    env: ProjectEnv,
    /// The instance serving the request's connection.
    instance: usize,
}

impl ComponentView<'_> {
    fn component(&self) -> types::Component {
        let c = self.component;
        types::Component::new(
            c.uuid.clone(),
            c.name.clone(),
            c.tag.clone(),
            c.requires_auth,
        )
    }

    /// A model as the client sees it: secret fields left out.
    fn model(&self, index: usize) -> types::Model {
        let model = &self.component.models[index];
        let settings = &self.component.settings;
        let fields = model
            .fields
            .iter()
            .filter(|(name, _)| !settings.get(name).is_some_and(|s| s.secret))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        types::Model::new(model.uuid.clone(), fields)
    }

    /// The model whose stored auth fields equal the given ones.
    fn claimed_by(&self, fields: Option<&Map<String, Value>>) -> Option<usize> {
        let settings = &self.component.settings;
        self.component
            .models
            .iter()
            .position(|m| fields_match(settings, m, fields))
    }
}

/// Whether the sent fields equal the model's, field by field over the
/// settings; secret fields are compared in constant time.
fn fields_match(settings: &Settings, model: &Model, sent: Option<&Map<String, Value>>) -> bool {
    let mut all = true;
    for setting in &settings.auth {
        let stored = model.fields.get(&setting.name);
        let given = sent.and_then(|f| f.get(&setting.name));
        let same = if setting.secret {
            let bytes = |v: Option<&Value>| v.map(Value::to_string).unwrap_or_default();
            bool::from(bytes(stored).as_bytes().ct_eq(bytes(given).as_bytes()))
                && stored.is_some() == given.is_some()
        } else {
            stored == given
        };
        // No early return: every field is compared whatever the first says.
        all &= same;
    }
    all
}

/// Authorize: the named model's fields must match; issues a token for it.
fn authorize(
    view: &ComponentView<'_>,
    model_uuid: Option<&str>,
    fields: Option<&Map<String, Value>>,
) -> Result<Success, Failure> {
    let model = match model_uuid {
        Some(uuid) => view
            .component
            .models
            .iter()
            .position(|m| m.uuid == uuid)
            .ok_or_else(|| {
                Failure::with_status(
                    view.app.behaviour.authorize.unknown_model,
                    "no model of this component has this modelUuid",
                )
            })?,
        // Only reached under Fault::ModelUuidOptional: the model the fields claim.
        None => view
            .claimed_by(fields)
            .ok_or_else(|| Failure::unauthorized("the fields do not match any model"))?,
    };
    if !fields_match(
        &view.component.settings,
        &view.component.models[model],
        fields,
    ) {
        return Err(Failure::unauthorized("the fields do not match the model's"));
    }
    // Kept whatever the behaviour: Auth Claims reads it where claims are
    // recorded, and Authorize reports what it replaced where it says so.
    let replaced = view
        .app
        .record_claim(view.instance, view.index, view.env, model);
    let replaced = view
        .app
        .behaviour
        .answer
        .report_replaced
        .then(|| replaced.map(|m| view.component.models[m].uuid.clone()));
    let token = view.app.tokens.issue(Binding {
        component: view.index,
        model,
    });
    Ok(Success::Authorize(
        AuthorizeResult::new(
            i64::from(view.app.behaviour.authorize.success.as_u16()),
            true,
            view.env,
            view.component(),
            view.model(model),
            token.into(),
        ),
        replaced,
    ))
}

/// Auth Claims: the token's model; else the model the body's fields claim;
/// else no model (spec/README.md choice 3).
fn auth_claims(
    view: &ComponentView<'_>,
    token_model: Option<usize>,
    fields: Option<&Map<String, Value>>,
) -> Result<Success, Failure> {
    let model =
        match (token_model, fields) {
            (Some(model), _) => Some(model),
            (None, Some(fields)) => Some(view.claimed_by(Some(fields)).ok_or_else(|| {
                Failure::unauthorized("no model of this component has these fields")
            })?),
            (None, None) => None,
        };
    let model = match view.app.behaviour.claims_recorded {
        true => view.app.recorded_claim(view.instance, view.index, view.env),
        false => model,
    };
    let model = model.filter(|_| !view.app.behaviour.claims_omit_model);
    let mut claims = AuthClaimsResult::new(200, true, view.env, view.component());
    claims.model = model.map(|m| view.model(m));
    Ok(Success::Claims(claims))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn query_param_decodes_and_takes_the_first() {
        assert_eq!(
            query_param(Some("a=1&modelUuid=x%2Dy&modelUuid=z"), "modelUuid").as_deref(),
            Some("x-y")
        );
        assert_eq!(
            query_param(Some("modelUuid"), "modelUuid").as_deref(),
            Some("")
        );
        assert_eq!(query_param(Some("other=1"), "modelUuid"), None);
        assert_eq!(query_param(None, "modelUuid"), None);
    }
}
