//! The server under test, as the checks see it: the profile, two clients
//! from the generated bindings (one sending header names in lower case, one
//! in Title-Case) and helpers that build a fully valid request for an
//! operation, which a negative check then changes in exactly one way.
//!
//! Every request goes through the bindings: built typed, changed through
//! [`Prepared`] where a case needs it, and decoded by the operation's own
//! decoder. The exchange is recorded (normalised, secrets redacted) before
//! any judgement.

use std::time::Duration;

use component_auth_bindings::{
    AuthClaimsResponse, AuthorizeResponse, Client, Defaults, Error, Prepared, RawResponse, Secret,
    Transport, server_url,
};
use tokio::sync::OnceCell;

use crate::choices::ModelUuidAt;
use crate::connect::Connect;
use crate::exchange::{Exchange, Recording, RequestRecord, ResponseRecord, Scrubber};
use crate::generate::{Generated, Generation};
use crate::profile::{Component, Profile};

/// The two operations of the interface.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    AuthClaims,
    Authorize,
}

impl Op {
    pub const BOTH: [Op; 2] = [Op::AuthClaims, Op::Authorize];

    /// The id segment: `auth-claims`, `authorize`.
    pub fn id(self) -> &'static str {
        match self {
            Op::AuthClaims => "auth-claims",
            Op::Authorize => "authorize",
        }
    }

    pub fn title(self) -> &'static str {
        match self {
            Op::AuthClaims => "Auth Claims",
            Op::Authorize => "Authorize",
        }
    }

    pub fn method(self) -> &'static str {
        match self {
            Op::AuthClaims => "GET",
            Op::Authorize => "POST",
        }
    }

    /// The section of the description that lists the operation.
    pub fn section(self) -> &'static str {
        match self {
            Op::AuthClaims => "4.1",
            Op::Authorize => "4.2",
        }
    }
}

/// A request of either operation, built by the bindings and still changeable.
#[derive(Debug)]
pub enum Req {
    Claims(Prepared<AuthClaimsResponse>),
    /// With the body field that carries `modelUuid`, where the profile
    /// says it travels in the body: a body put in its place keeps it.
    Authorize(Prepared<AuthorizeResponse>, Option<BodyField>),
}

/// A field every JSON object body of a request carries (`modelUuid`
/// declared as `body:FIELD`).
#[derive(Clone, Debug)]
pub struct BodyField {
    pub name: String,
    pub value: String,
}

impl BodyField {
    /// `body` with the field added, when it is a JSON object without it;
    /// any other body as it is.
    fn put_in(&self, body: bytes::Bytes) -> bytes::Bytes {
        match serde_json::from_slice::<serde_json::Value>(&body) {
            Ok(serde_json::Value::Object(mut map)) if !map.contains_key(&self.name) => {
                map.insert(
                    self.name.clone(),
                    serde_json::Value::String(self.value.clone()),
                );
                serde_json::to_vec(&map).map_or(body, bytes::Bytes::from)
            }
            _ => body,
        }
    }
}

macro_rules! both {
    ($self:ident, $p:ident => $e:expr) => {
        match $self {
            Req::Claims($p) => Req::Claims($e),
            Req::Authorize($p, field) => Req::Authorize($e, field),
        }
    };
}

impl Req {
    pub fn remove_header(self, name: &str) -> Self {
        both!(self, p => p.remove_header(name))
    }

    pub fn set_header(self, name: &str, value: &str) -> Result<Self, Error> {
        Ok(match self {
            Req::Claims(p) => Req::Claims(p.set_header(name, value)?),
            Req::Authorize(p, f) => Req::Authorize(p.set_header(name, value)?, f),
        })
    }

    /// Puts `body` in place of the request's body (a body-carried
    /// `modelUuid` is added to a JSON object that lacks it).
    pub fn raw_body(self, body: impl Into<bytes::Bytes>) -> Self {
        let body = body.into();
        match self {
            Req::Claims(p) => Req::Claims(p.raw_body(body)),
            Req::Authorize(p, f) => {
                let body = f.as_ref().map_or(body.clone(), |f| f.put_in(body));
                Req::Authorize(p.raw_body(body), f)
            }
        }
    }

    /// The request with no `modelUuid`, wherever `at` says it travels.
    pub fn without_model_uuid(self, at: &ModelUuidAt) -> Self {
        match at {
            ModelUuidAt::Query(name) => self.without_query_param(name),
            ModelUuidAt::Header(name) => self.remove_header(name),
            ModelUuidAt::Body(name) => match self {
                Req::Authorize(p, _) => {
                    let body = p.request().body().and_then(|b| b.as_bytes()).map(|b| {
                        match serde_json::from_slice::<serde_json::Value>(b) {
                            Ok(serde_json::Value::Object(mut map)) => {
                                map.remove(name);
                                serde_json::to_vec(&map).unwrap_or_else(|_| b.to_vec())
                            }
                            _ => b.to_vec(),
                        }
                    });
                    match body {
                        Some(body) => Req::Authorize(p.raw_body(body), None),
                        None => Req::Authorize(p, None),
                    }
                }
                other => other,
            },
        }
    }

    /// The request with `modelUuid` `value`, wherever `at` says it travels.
    pub fn with_model_uuid(self, at: &ModelUuidAt, value: &str) -> Result<Self, Error> {
        let r = self.without_model_uuid(at);
        match at {
            ModelUuidAt::Query(name) => Ok(r.with_query_param(name, value)),
            ModelUuidAt::Header(name) => r.set_header(name, value),
            ModelUuidAt::Body(name) => Ok(match r {
                Req::Authorize(p, _) => {
                    let field = BodyField {
                        name: name.clone(),
                        value: value.to_owned(),
                    };
                    let body = p
                        .request()
                        .body()
                        .and_then(|b| b.as_bytes())
                        .map(|b| field.put_in(bytes::Bytes::copy_from_slice(b)));
                    let p = match body {
                        Some(body) => p.raw_body(body),
                        None => p,
                    };
                    Req::Authorize(p, Some(field))
                }
                other => other,
            }),
        }
    }

    pub fn method(self, method: reqwest::Method) -> Self {
        both!(self, p => p.method(method))
    }

    pub fn url_mut(&mut self) -> &mut reqwest::Url {
        match self {
            Req::Claims(p) => p.url_mut(),
            Req::Authorize(p, _) => p.url_mut(),
        }
    }

    /// Drops a query parameter (e.g. `modelUuid`), keeping the others.
    pub fn without_query_param(mut self, name: &str) -> Self {
        let url = self.url_mut();
        let kept: Vec<(String, String)> = url
            .query_pairs()
            .filter(|(k, _)| !k.eq_ignore_ascii_case(name))
            .map(|(k, v)| (k.into_owned(), v.into_owned()))
            .collect();
        if kept.is_empty() {
            url.set_query(None);
        } else {
            url.query_pairs_mut().clear().extend_pairs(kept);
        }
        self
    }

    /// Sets a query parameter, replacing any value it had.
    pub fn with_query_param(self, name: &str, value: &str) -> Self {
        let mut r = self.without_query_param(name);
        r.url_mut().query_pairs_mut().append_pair(name, value);
        r
    }

    /// Removes `prefix` (e.g. `/v2/api`) from the path, wherever the
    /// base URL put it.
    pub fn without_path_prefix(mut self, prefix: &str) -> Self {
        let url = self.url_mut();
        let path = url.path().to_owned();
        if let Some(at) = path.find(&format!("{prefix}/")) {
            let new = format!("{}{}", &path[..at], &path[at + prefix.len()..]);
            url.set_path(&new);
        }
        self
    }

    /// Sends no body (and no `Content-Type`).
    pub fn without_body(self) -> Self {
        both!(self, p => p.without_body())
    }

    /// Puts `encoded` (already percent-encoded, sent as it is) in place of
    /// the ref segment, the one before `/auth`.
    pub fn with_encoded_ref(mut self, encoded: &str) -> Self {
        let url = self.url_mut();
        let path = url.path().to_owned();
        if let Some(end) = path.rfind("/auth") {
            let start = path[..end].rfind('/').map_or(0, |i| i + 1);
            let new = format!("{}{encoded}{}", &path[..start], &path[end..]);
            url.set_path(&new);
        }
        self
    }

    fn try_clone(&self) -> Option<Self> {
        Some(match self {
            Req::Claims(p) => Req::Claims(p.try_clone()?),
            Req::Authorize(p, f) => Req::Authorize(p.try_clone()?, f.clone()),
        })
    }

    pub(crate) fn request(&self) -> &reqwest::Request {
        match self {
            Req::Claims(p) => p.request(),
            Req::Authorize(p, _) => p.request(),
        }
    }
}

/// Which letter case header names travel in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Case {
    /// `x-client-id`: what HTTP/2 requires and reqwest sends by default.
    Lower,
    /// `X-Client-Id`: as the description spells them.
    Title,
}

/// One request a check sends: a label for the report, the request (or why
/// it could not be built) and the letter case its header names travel in.
#[derive(Debug)]
pub struct Probe {
    pub label: String,
    pub request: Result<Req, Error>,
    pub case: Case,
}

impl Probe {
    /// A probe whose header names travel in lower case.
    pub fn new(label: impl Into<String>, request: Result<Req, Error>) -> Self {
        Probe {
            label: label.into(),
            request,
            case: Case::Lower,
        }
    }

    pub fn case(mut self, case: Case) -> Self {
        self.case = case;
        self
    }
}

/// The typed answer, decoded by its operation's decoder.
#[derive(Clone, Debug)]
pub enum Typed {
    Claims(AuthClaimsResponse),
    Authorize(AuthorizeResponse),
}

impl Typed {
    pub fn raw(&self) -> &RawResponse {
        match self {
            Typed::Claims(r) => r.raw(),
            Typed::Authorize(r) => r.raw(),
        }
    }

    /// The name of the decoded variant, one of
    /// [`component_auth_bindings::variants`].
    pub fn variant(&self) -> &'static str {
        match self {
            Typed::Claims(r) => r.variant_name(),
            Typed::Authorize(r) => r.variant_name(),
        }
    }
}

/// One request sent and what came of it.
#[derive(Clone, Debug)]
pub struct Sent {
    pub exchange: Exchange,
    /// `None` when no answer came (the reason is in `exchange.error`).
    pub typed: Option<Typed>,
}

impl Sent {
    pub fn raw(&self) -> Option<&RawResponse> {
        self.typed.as_ref().map(Typed::raw)
    }

    pub fn status(&self) -> Option<u16> {
        self.raw().map(|r| r.status)
    }

    /// The answer in a line, secrets removed.
    pub fn summary(&self) -> String {
        self.exchange.summary()
    }
}

/// Settings of the runner's HTTP client.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// The whole exchange (connect to last byte). Default 5 s: a local
    /// server answers in milliseconds; a remote one well within it.
    pub timeout: Duration,
    /// The largest answer body read. Default 1 MiB: every answer of this
    /// interface is a small JSON object.
    pub max_body_bytes: usize,
    /// Requests in flight at once. Default 16: the suite finishes in a few
    /// dozen round trips (a server 50 ms away is checked in under 3 s), few
    /// enough not to flood a shared server. Bulk sends (a
    /// batch of independent requests) take at most three quarters of them,
    /// so requests that must follow one another (a property's cases, a
    /// kept-alive session) never queue behind a batch.
    pub concurrency: usize,
    /// Requests started per second, at most (`--rate`); `None`: no limit.
    pub rate: Option<f64>,
    /// How many times a `429` or `503` with `Retry-After` is re-sent after
    /// waiting. Default 2; a wait longer than [`MAX_RETRY_AFTER`] is not
    /// waited for. Every retry is reported, never silent.
    pub retries: u32,
}

/// The longest `Retry-After` the runner waits for.
pub const MAX_RETRY_AFTER: Duration = Duration::from_secs(10);

impl Default for Limits {
    fn default() -> Self {
        Self {
            timeout: Duration::from_secs(5),
            max_body_bytes: 1024 * 1024,
            concurrency: 16,
            rate: None,
            retries: 2,
        }
    }
}

/// `true` when `base_url` names `localhost` or a loopback address.
fn is_loopback(base_url: &str) -> bool {
    let Ok(url) = reqwest::Url::parse(base_url) else {
        return false;
    };
    let host = url.host_str().unwrap_or_default();
    host.eq_ignore_ascii_case("localhost")
        || host
            .trim_start_matches('[')
            .trim_end_matches(']')
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

/// Spaces request starts `1/rate` seconds apart, across all tasks.
#[derive(Debug)]
struct Pacer {
    gap: Duration,
    next: tokio::sync::Mutex<tokio::time::Instant>,
}

impl Pacer {
    fn new(rate: f64) -> Option<Self> {
        (rate.is_finite() && rate > 0.0).then(|| Pacer {
            gap: Duration::from_secs_f64(1.0 / rate),
            next: tokio::sync::Mutex::new(tokio::time::Instant::now()),
        })
    }

    async fn wait(&self) {
        let at = {
            let mut next = self.next.lock().await;
            let at = (*next).max(tokio::time::Instant::now());
            *next = at + self.gap;
            at
        };
        tokio::time::sleep_until(at).await;
    }
}

/// The seconds of a `Retry-After` on a 429 or 503 (the delay form; a date
/// is not waited for).
fn retry_after(typed: &Typed) -> Option<Duration> {
    let raw = typed.raw();
    if raw.status != 429 && raw.status != 503 {
        return None;
    }
    let secs: u64 = raw.header("retry-after")?.trim().parse().ok()?;
    Some(Duration::from_secs(secs)).filter(|d| *d <= MAX_RETRY_AFTER)
}

/// The server under test.
#[derive(Debug)]
pub struct Target {
    pub profile: Profile,
    client: Client,
    title_client: Client,
    /// What a kept-alive session's client is built from.
    url: String,
    defaults: Defaults,
    limits: Limits,
    connect: Connect,
    scrub: Scrubber,
    gate: tokio::sync::Semaphore,
    /// The share of `gate` that batches may hold (see [`Limits::concurrency`]).
    bulk: std::sync::Arc<tokio::sync::Semaphore>,
    pacer: Option<Pacer>,
    /// Requests re-sent after a 429/503 with Retry-After.
    retried: std::sync::atomic::AtomicUsize,
    generation: Generation,
    pub(crate) probes: OnceCell<Vec<Sent>>,
    pub(crate) generated: OnceCell<Generated>,
    /// Body paths whose values changed between two identical requests,
    /// found before the checks run ([`crate::volatile`]).
    volatile: std::sync::OnceLock<Vec<String>>,
    /// How long every answer took, by operation ([`crate::latency`]).
    pub(crate) latencies: crate::latency::Log,
    /// What every answer showed, for the coverage of outcomes.
    pub(crate) outcomes: crate::outcomes::Seen,
}

impl Target {
    pub fn new(profile: Profile, limits: Limits, mut connect: Connect) -> Result<Self, Error> {
        // A proxy cannot reach this machine's loopback: a target there is
        // always connected to directly (as curl's and Go's clients do for
        // localhost), whatever the proxy variables say.
        if is_loopback(&profile.base_url) {
            connect.no_proxy = true;
        }
        let defaults = Defaults {
            x_client_id: Some(profile.client_id.clone()),
            x_client_secret: Some(profile.client_secret.clone()),
            x_auth_token: None,
            x_project_env: profile.project_env,
        };
        let url = server_url(&profile.base_url);
        // One connection per request (no idle pool): each exchange stands
        // alone, and a server that closes a kept-alive connection after an
        // early refusal cannot make the next, unrelated request fail.
        let lower = connect
            .builder(&limits)
            .pool_max_idle_per_host(0)
            .build()
            .map_err(Error::Transport)?;
        let title = connect
            .builder(&limits)
            .pool_max_idle_per_host(0)
            .http1_title_case_headers()
            .build()
            .map_err(Error::Transport)?;
        let client = Client::new(&url)?
            .with_transport(Transport::with_client(
                lower,
                limits.timeout,
                limits.max_body_bytes,
            ))
            .with_defaults(defaults.clone());
        let session_defaults = defaults.clone();
        let title_client = Client::new(&url)?
            .with_transport(Transport::with_client(
                title,
                limits.timeout,
                limits.max_body_bytes,
            ))
            .with_defaults(defaults);
        let mut secrets = profile.secrets();
        secrets.extend(connect.header_values());
        let scrub = Scrubber::new(secrets, profile.secret_fields());
        Ok(Self {
            profile,
            client,
            title_client,
            url,
            defaults: session_defaults,
            limits,
            connect,
            scrub,
            gate: tokio::sync::Semaphore::new(limits.concurrency.max(1)),
            bulk: std::sync::Arc::new(tokio::sync::Semaphore::new(
                (limits.concurrency * 3 / 4).max(1),
            )),
            pacer: limits.rate.and_then(Pacer::new),
            retried: std::sync::atomic::AtomicUsize::new(0),
            generation: Generation::default(),
            probes: OnceCell::new(),
            generated: OnceCell::new(),
            volatile: std::sync::OnceLock::new(),
            latencies: Default::default(),
            outcomes: Default::default(),
        })
    }

    /// Generated cases from `generation`'s seed, `cases` per property.
    pub fn with_generation(mut self, generation: Generation) -> Self {
        self.generation = generation;
        self
    }

    pub fn generation(&self) -> Generation {
        self.generation
    }

    /// The generated cases and property findings, made once per run.
    pub async fn generated(self: &std::sync::Arc<Self>) -> &Generated {
        self.generated.get_or_init(|| Generated::run(self)).await
    }

    /// The `--header`s as `curl` arguments, each value a shell variable
    /// (`-H 'x-gateway-key: '"${HEADER_X_GATEWAY_KEY}"`): a reproduction
    /// sends what the runner sent, without showing the value.
    pub(crate) fn curl_headers(&self) -> String {
        self.connect
            .headers
            .keys()
            .map(|name| {
                let var = crate::generate::curl::shell_name(&format!("header_{name}"));
                format!(" -H '{name}: '\"${{{var}}}\"")
            })
            .collect()
    }

    /// What a record keeps of an answer: the profile's extra headers and
    /// the volatile body paths found so far.
    pub fn recording(&self) -> Recording<'_> {
        Recording {
            headers: &self.profile.snapshot_headers,
            volatile: self.volatile.get().map_or(&[], Vec::as_slice),
        }
    }

    /// Learns which body values change between identical requests: sends
    /// a valid request of each operation and one refusal, twice each, and
    /// keeps the paths whose values differ. Called once, before the checks.
    pub async fn learn_volatile(self: &std::sync::Arc<Self>) {
        let mut probes = Vec::new();
        for _ in 0..2 {
            for op in Op::BOTH {
                if let Some(c) = self.primary(op) {
                    probes.push(Probe::new("volatile", self.valid(op, c)));
                }
            }
            if let Some(c) = self.primary(Op::AuthClaims) {
                probes.push(Probe::new(
                    "volatile",
                    self.valid(Op::AuthClaims, c)
                        .map(|r| r.remove_header("X-Client-Id")),
                ));
            }
        }
        let retried_before = self.retried();
        let sent = self.send_all(probes).await;
        // The run's retry count is its checks' requests, as reported.
        self.retried
            .store(retried_before, std::sync::atomic::Ordering::Relaxed);
        let (first, second) = sent.split_at(sent.len() / 2);
        let mut paths = Vec::new();
        for (a, b) in first.iter().zip(second) {
            // The records, whose known per-request keys are already
            // placeholders: only what they do not name is learnt here.
            let body = |s: &Sent| s.exchange.response.as_ref().and_then(|r| r.body.clone());
            if let (Some(a), Some(b)) = (body(a), body(b)) {
                paths.extend(crate::volatile::differing_paths(&a, &b));
            }
        }
        paths.sort();
        paths.dedup();
        // Set once per run; a second call keeps the first answer.
        let _ = self.volatile.set(paths);
    }

    /// How many requests were re-sent after a 429/503 with Retry-After.
    pub fn retried(&self) -> usize {
        self.retried.load(std::sync::atomic::Ordering::Relaxed)
    }

    pub fn scrubber(&self) -> &Scrubber {
        &self.scrub
    }

    /// Components an operation can be exercised on: Authorize needs the
    /// profile's `authorize` section.
    pub fn components(&self, op: Op) -> Vec<&Component> {
        self.profile
            .components
            .iter()
            .filter(|c| op == Op::AuthClaims || c.authorize.is_some())
            .collect()
    }

    /// The component header checks use: the first that requires auth (so
    /// every header is in play), else the first.
    pub fn primary(&self, op: Op) -> Option<&Component> {
        let all = self.components(op);
        all.iter()
            .find(|c| c.requires_auth)
            .or_else(|| all.first())
            .copied()
    }

    /// A request that is valid in every way: the component's name as ref,
    /// its token where it has one, its valid body where it has one (and, for
    /// Authorize, its model uuid).
    pub fn valid(&self, op: Op, c: &Component) -> Result<Req, Error> {
        self.valid_with_ref(op, c, &c.name)
    }

    pub fn valid_with_ref(&self, op: Op, c: &Component, reference: &str) -> Result<Req, Error> {
        match op {
            Op::AuthClaims => {
                let mut b = self.client.auth_claims().ref_(reference);
                if let Some(t) = &c.auth_token {
                    b = b.x_auth_token(t.clone());
                }
                if let Some(a) = &c.authorize {
                    b = b.body(a.valid_body.clone());
                }
                b.build().map(Req::Claims)
            }
            Op::Authorize => {
                let a = c
                    .authorize
                    .as_ref()
                    .ok_or(Error::MissingParameter("modelUuid"))?;
                let mut b = self
                    .client
                    .authorize()
                    .ref_(reference)
                    .model_uuid(a.model_uuid.clone())
                    .body(a.valid_body.clone());
                if let Some(t) = &c.auth_token {
                    b = b.x_auth_token(t.clone());
                }
                let at = self.profile.choices.model_uuid().value;
                let req = Req::Authorize(b.build()?, None);
                if at == ModelUuidAt::default() {
                    Ok(req)
                } else {
                    req.with_model_uuid(&at, &a.model_uuid)
                }
            }
        }
    }

    /// A valid request of `op` to `c` carrying its `invalid_body`; `None`
    /// when the profile gives none.
    pub fn with_invalid_body(&self, op: Op, c: &Component) -> Option<Result<Req, Error>> {
        let body = c.authorize.as_ref()?.invalid_body.as_ref()?;
        let bytes = serde_json::to_vec(body).ok()?;
        Some(self.valid(op, c).map(|r| r.raw_body(bytes)))
    }

    /// An Auth Claims request carrying `token` (an issued one).
    pub fn claims_with_token(&self, c: &Component, token: Secret) -> Result<Req, Error> {
        self.client
            .auth_claims()
            .ref_(c.name.clone())
            .x_auth_token(token)
            .build()
            .map(Req::Claims)
    }

    /// Sends `req` (or records why it could not be built) and decodes the answer.
    pub async fn send(&self, probe: Probe) -> Sent {
        let client = match probe.case {
            Case::Lower => &self.client,
            Case::Title => &self.title_client,
        };
        self.send_via(client, probe).await
    }

    /// A client of its own whose requests, sent one after the other, share
    /// one kept-alive connection (every other request goes on a new one).
    pub fn keep_alive_session(&self) -> Result<Session<'_>, Error> {
        let http = self
            .connect
            .builder(&self.limits)
            .pool_max_idle_per_host(1)
            .http1_only()
            .build()
            .map_err(Error::Transport)?;
        let client = Client::new(&self.url)?
            .with_transport(Transport::with_client(
                http,
                self.limits.timeout,
                self.limits.max_body_bytes,
            ))
            .with_defaults(self.defaults.clone());
        Ok(Session {
            target: self,
            client,
        })
    }

    async fn send_via(&self, client: &Client, probe: Probe) -> Sent {
        let Probe {
            label,
            request: req,
            case,
        } = probe;
        let req = match req {
            Ok(r) => r,
            Err(e) => {
                return Sent {
                    exchange: Exchange {
                        label,
                        request: RequestRecord {
                            method: String::new(),
                            path: String::new(),
                            headers: Default::default(),
                            body: None,
                        },
                        response: None,
                        error: Some(format!("the request could not be built: {e}")),
                        retried: None,
                        latency: Default::default(),
                    },
                    typed: None,
                };
            }
        };
        let request = RequestRecord::from_request(req.request(), case == Case::Title, &self.scrub);
        // A closed semaphore cannot happen (it is never closed); sending
        // without a permit would only lift the cap.
        let _permit = self.gate.acquire().await.ok();
        let mut req = req;
        let mut retries = Vec::new();
        let op = match &req {
            Req::Claims(..) => Op::AuthClaims,
            Req::Authorize(..) => Op::Authorize,
        };
        let mut took;
        let typed = loop {
            let again = (retries.len() < self.limits.retries as usize)
                .then(|| req.try_clone())
                .flatten();
            if let Some(pacer) = &self.pacer {
                pacer.wait().await;
            }
            let started = std::time::Instant::now();
            let typed = match req {
                Req::Claims(p) => client.send(p).await.map(Typed::Claims),
                Req::Authorize(p, _) => client.send(p).await.map(Typed::Authorize),
            };
            took = started.elapsed();
            match (&typed, again) {
                (Ok(answer), Some(again)) => match retry_after(answer) {
                    Some(wait) => {
                        retries.push(format!(
                            "HTTP {} with Retry-After {}s",
                            answer.raw().status,
                            wait.as_secs()
                        ));
                        self.retried
                            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        tokio::time::sleep(wait).await;
                        req = again;
                    }
                    None => break typed,
                },
                _ => break typed,
            }
        };
        self.latencies.record(op, took);
        let latency = crate::latency::Took(Some(took));
        let retried = (!retries.is_empty()).then(|| {
            format!(
                "re-sent {} time(s) after {}",
                retries.len(),
                retries.join(", ")
            )
        });
        if let Ok(typed) = &typed {
            self.outcomes
                .record(crate::outcomes::Answer::of(op, typed.raw()));
        }
        match typed {
            Ok(typed) => Sent {
                exchange: Exchange {
                    label,
                    request,
                    response: Some(ResponseRecord::from_raw(
                        typed.raw(),
                        &self.scrub,
                        self.recording(),
                    )),
                    error: None,
                    retried,
                    latency,
                },
                typed: Some(typed),
            },
            Err(e) => Sent {
                exchange: Exchange {
                    label,
                    request,
                    response: None,
                    error: Some(self.scrub.text(&describe_error(&e))),
                    retried,
                    latency,
                },
                typed: None,
            },
        }
    }
}

/// Requests sent in turn on one kept-alive connection.
pub struct Session<'a> {
    target: &'a Target,
    client: Client,
}

impl Session<'_> {
    pub async fn send(&self, probe: Probe) -> Sent {
        self.target.send_via(&self.client, probe).await
    }
}

/// A transport error in words, with its causes (reqwest hides the useful
/// part in the source chain).
pub fn describe_error(e: &Error) -> String {
    let mut text = e.to_string();
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        let part = s.to_string();
        if !text.contains(&part) {
            text.push_str(": ");
            text.push_str(&part);
        }
        source = s.source();
    }
    text
}

impl Target {
    /// Sends every request concurrently; the answers come back in order.
    pub async fn send_all(self: &std::sync::Arc<Self>, probes: Vec<Probe>) -> Vec<Sent> {
        let handles: Vec<_> = probes
            .into_iter()
            .map(|probe| {
                let target = self.clone();
                let fallback = probe.label.clone();
                (
                    fallback,
                    tokio::spawn(async move {
                        // Never closed; without a permit only the share lifts.
                        let _share = target.bulk.clone().acquire_owned().await.ok();
                        target.send(probe).await
                    }),
                )
            })
            .collect();
        let mut out = Vec::with_capacity(handles.len());
        for (label, handle) in handles {
            out.push(handle.await.unwrap_or_else(|e| Sent {
                exchange: Exchange {
                    label,
                    request: RequestRecord {
                        method: String::new(),
                        path: String::new(),
                        headers: Default::default(),
                        body: None,
                    },
                    response: None,
                    error: Some(format!("the request task failed: {e}")),
                    retried: None,
                    latency: Default::default(),
                },
                typed: None,
            }));
        }
        out
    }
}

impl Target {
    /// Sends a request only to learn whether the target can be reached.
    pub(crate) async fn reach(&self, req: Result<Req, Error>) -> Result<(), Error> {
        let client = &self.client;
        match req? {
            Req::Claims(p) => client.send(p).await.map(|_| ()),
            Req::Authorize(p, _) => client.send(p).await.map(|_| ()),
        }
    }
}
