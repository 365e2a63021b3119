//! The server under test, as the checks see it: the profile, two clients
//! from the generated bindings (one sending header names in lower case, one
//! in Title-Case) and helpers that build a fully valid request for an
//! operation, which a negative check then changes in exactly one way.
//!
//! Every request goes through the bindings: built typed, changed through
//! [`Prepared`](component_auth_bindings::Prepared) where a case needs it, and decoded by the operation's own
//! decoder. The exchange is recorded (normalised, secrets redacted) before
//! any judgement.

use component_auth_bindings::{
    Client, DecodeResponse, Defaults, Error, RawResponse, Secret, Transport, server_url,
};

use component_auth_bindings::types::{AuthFields, ProjectEnv};

use crate::connect::Connect;
use crate::exchange::{Exchange, Recording, RequestRecord, ResponseRecord, Scrubber};
pub use crate::request::{BodyField, Case, Op, Probe, Req, Sent, Typed};
pub use crate::transport::Throttled;
pub use crate::transport::{Limits, MAX_RETRY_AFTER, describe_error};
use crate::transport::{
    Throttle, is_loopback, limit_answer, rate_limit_reset, stated_rate, waits_too_long,
};
use conformance_model::choices::ModelUuidAt;
use conformance_model::profile::{Component, Profile};

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
    /// What `scrub` was made from: the profile's secrets and `--header`s.
    secrets: Vec<String>,
    /// How a reproduction writes the profile's secrets (as its variables)
    /// and the `--header`s; made once, used for every request sent.
    curl_secrets: Vec<crate::curl::Placeholder>,
    curl_headers: String,
    /// Tokens the server issued in a success (an X-Auth-Token is a secret
    /// wherever it is echoed), learnt as answers come.
    issued: std::sync::Mutex<Vec<String>>,
    /// Requests in flight at once: the run's `concurrency`, halved by
    /// time-outs and grown back by answers ([`crate::concurrency`]).
    concurrency: crate::concurrency::Concurrency,
    /// The share of `concurrency` that batches may hold (see [`Limits::concurrency`]).
    bulk: std::sync::Arc<tokio::sync::Semaphore>,
    /// The pace of request starts: the fixed rate, holds and the pace
    /// learnt from limit answers ([`crate::transport::Throttle`]).
    throttle: Throttle,
    /// Requests re-sent after a limit answer (429, or 503 with Retry-After).
    retried: std::sync::atomic::AtomicUsize,
    /// Limit answers, a few of each kind, for the check that judges them
    /// as error answers ([`LimitAnswers`]).
    limit_answers: std::sync::Mutex<LimitAnswers>,
    /// Body paths whose values changed between two identical requests,
    /// found before the checks run ([`crate::volatile`]).
    volatile: std::sync::OnceLock<Vec<String>>,
    /// The token each component's settling Authorize issued, by the
    /// component's index ([`Target::settle`]).
    settled: std::sync::Mutex<Vec<Option<String>>>,
    /// Where this run saw Authorize read `modelUuid` when the profile
    /// declares no place ([`Target::with_observed_model_uuid`]): a value
    /// the runner passes on, never written into the profile's choices.
    observed_model_uuid: Option<ModelUuidAt>,
    /// The run's deadline: no wait (a limit's, a back-off) is begun that
    /// would end after it.
    deadline: Option<tokio::time::Instant>,
    /// Requests sent and answered so far, for the progress lines.
    pub progress: crate::progress::Progress,
    /// How long every answer took, by operation ([`crate::latency`]).
    pub latencies: crate::latency::Log,
    /// What every answer showed, for the coverage of outcomes.
    pub outcomes: crate::outcomes::Seen,
}

impl Target {
    pub fn new(profile: Profile, limits: Limits, mut connect: Connect) -> Result<Self, Error> {
        // A proxy cannot reach this machine's loopback: a target there is
        // always connected to directly (as curl's and Go's clients do for
        // localhost), whatever the proxy variables say.
        if is_loopback(&profile.base_url) {
            connect.no_proxy = true;
        }
        // Through a proxy the scheme of the proxy's own URL decides; directly,
        // an http:// target never needs a root.
        connect.plain_http = connect.no_proxy && profile.base_url.starts_with("http://");
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
        let scrub = Scrubber::new(secrets.clone(), profile.secret_fields());
        let curl_secrets = crate::curl::placeholders(&profile);
        let curl_headers = connect
            .headers
            .keys()
            .map(|name| {
                let var = conformance_model::profile::shell_name(&format!("header_{name}"));
                format!(" -H '{name}: '\"${{{var}}}\"")
            })
            .collect();
        Ok(Self {
            profile,
            client,
            title_client,
            url,
            defaults: session_defaults,
            limits,
            connect,
            scrub,
            secrets,
            curl_secrets,
            curl_headers,
            issued: std::sync::Mutex::new(Vec::new()),
            concurrency: crate::concurrency::Concurrency::new(limits.concurrency),
            bulk: std::sync::Arc::new(tokio::sync::Semaphore::new(
                (limits.concurrency * 3 / 4).max(1),
            )),
            throttle: Throttle::new(limits.rate),
            limit_answers: Default::default(),
            retried: std::sync::atomic::AtomicUsize::new(0),
            volatile: std::sync::OnceLock::new(),
            settled: Default::default(),
            observed_model_uuid: None,
            deadline: None,
            progress: Default::default(),
            latencies: Default::default(),
            outcomes: Default::default(),
        })
    }

    /// The target within the run's `deadline`: a limit's wait that would
    /// end after it stops the run's sending at once (what is not sent is
    /// not judged), and no back-off is begun past it.
    pub fn with_deadline(mut self, deadline: Option<std::time::Instant>) -> Self {
        self.deadline = deadline.map(tokio::time::Instant::from_std);
        self.throttle.set_deadline(self.deadline);
        self
    }

    /// Whether a pause of `pause` from now would end after the deadline.
    fn past_deadline_after(&self, pause: std::time::Duration) -> bool {
        self.deadline
            .is_some_and(|d| crate::transport::later(tokio::time::Instant::now(), pause) >= d)
    }

    /// Why a request that timed out `tries` times is not judged.
    fn unanswered(&self, tries: u32) -> String {
        format!(
            "no answer within {} ms after {tries} tr{}",
            self.limits.timeout.as_millis(),
            if tries == 1 { "y" } else { "ies" }
        )
    }

    /// Why the run sends nothing more, once its limits stopped it.
    pub fn stopped(&self) -> Option<String> {
        self.throttle.stopped().map(|s| s.why)
    }

    /// A hold in force (how long yet, what the server said), and requests
    /// allowed in flight now with the time-outs so far: what a progress
    /// line says of the run's waiting.
    pub fn waiting(&self) -> (Option<(std::time::Duration, String)>, (usize, usize)) {
        (self.throttle.holding(), self.concurrency.now())
    }

    /// The target sending `modelUuid` where the run saw the server read it
    /// (the profile declares no place; a declared place always wins).
    pub fn with_observed_model_uuid(mut self, at: ModelUuidAt) -> Self {
        self.observed_model_uuid = Some(at);
        self
    }

    /// Where this run sends Authorize's `modelUuid`: the profile's declared
    /// place, else where the run saw the server read it, else ours (the
    /// query).
    pub fn model_uuid_at(&self) -> ModelUuidAt {
        let chosen = self.profile.choices.model_uuid();
        match (chosen.declared, &self.observed_model_uuid) {
            (false, Some(seen)) => seen.clone(),
            _ => chosen.value,
        }
    }

    /// Where the run saw the server read `modelUuid`, when it looked.
    pub fn observed_model_uuid(&self) -> Option<&ModelUuidAt> {
        self.observed_model_uuid.as_ref()
    }

    /// The `--header`s as `curl` arguments, each value a shell variable
    /// (`-H 'x-gateway-key: '"${HEADER_X_GATEWAY_KEY}"`): a reproduction
    /// sends what the runner sent, without showing the value.
    pub fn curl_headers(&self) -> &str {
        &self.curl_headers
    }

    /// The profile's secrets as a reproduction writes them.
    pub fn curl_secrets(&self) -> &[crate::curl::Placeholder] {
        &self.curl_secrets
    }

    /// What a record keeps of an answer: the profile's extra headers and
    /// the volatile body paths found so far.
    pub fn recording(&self) -> Recording<'_> {
        Recording {
            headers: &self.profile.snapshot_headers,
            volatile: self.volatile.get().map_or(&[], Vec::as_slice),
        }
    }

    /// Puts every component that can take Authorize in a known state: one
    /// valid Authorize (the profile's model) in each environment a valid
    /// request of the run names ([`crate::phase::SETTLED_ENVS`]).
    /// Components go at once, the environments of one component in turn,
    /// the profile's own last: two of them may be one environment on the
    /// server (no X-Project-Env taken as `live`, say), and a server that
    /// revokes a token when it issues the next then keeps the token kept
    /// here. Whatever an earlier run left behind, the reads that follow see
    /// the same claims. Returns how many requests it sent; their answers
    /// are judged by no check, and are never compared with another (they
    /// show the state before the settle, which is history).
    pub async fn settle(self: &std::sync::Arc<Self>) -> usize {
        let own = self.profile.project_env;
        let order: Vec<Option<ProjectEnv>> = crate::phase::SETTLED_ENVS
            .into_iter()
            .filter(|env| *env != own)
            .chain([own])
            .collect();
        let settling: Vec<usize> = (0..self.profile.components.len())
            .filter(|&i| self.profile.components[i].authorize.is_some())
            .collect();
        let mut count = 0;
        let mut settled = vec![None; self.profile.components.len()];
        let retried_before = self.retried();
        for (round, env) in order.iter().enumerate() {
            let probes: Vec<Probe> = settling
                .iter()
                .map(|&i| {
                    let c = &self.profile.components[i];
                    let req = self.valid(Op::Authorize, c).and_then(|r| {
                        if *env == own {
                            return Ok(r);
                        }
                        match env {
                            Some(env) => r.set_header("X-Project-Env", env.as_str()),
                            None => Ok(r.remove_header("X-Project-Env")),
                        }
                    });
                    Probe::new("settle", req)
                })
                .collect();
            count += probes.len();
            let sent = self.send_all(probes).await;
            if round + 1 < order.len() {
                continue;
            }
            for (&i, s) in settling.iter().zip(&sent) {
                settled[i] = issued_by(s);
            }
        }
        // The run's retry count is its checks' requests, as reported.
        self.retried
            .store(retried_before, std::sync::atomic::Ordering::Relaxed);
        *self.settled.lock().unwrap_or_else(|p| p.into_inner()) = settled;
        count
    }

    /// The token the `i`th component's settling Authorize issued, if any.
    pub fn settled_token(&self, i: usize) -> Option<String> {
        let settled = self.settled.lock().unwrap_or_else(|p| p.into_inner());
        settled.get(i).cloned().flatten()
    }

    /// Learns which body values change between identical requests sent in
    /// the same known state: after the settle, a valid Auth Claims and one
    /// refusal, then the settle's own Authorize again, then both reads
    /// again, then the Authorize once more. The state is the settled one
    /// throughout (the Authorize claims what is claimed already), so a
    /// value that differs is one that changes with every request or every
    /// write (a time, a count, a nonce), never one that shows the state an
    /// earlier run left (the claim an Authorize replaced is the settled
    /// one both times). Called once, after the settle, before the checks.
    pub async fn learn_volatile(self: &std::sync::Arc<Self>) {
        let retried_before = self.retried();
        let reads = || {
            let mut reads = Vec::new();
            if let Some(c) = self.primary(Op::AuthClaims) {
                reads.push(Probe::new("volatile", self.valid(Op::AuthClaims, c)));
                reads.push(Probe::new(
                    "volatile",
                    self.valid(Op::AuthClaims, c)
                        .map(|r| r.remove_header("X-Client-Id")),
                ));
            }
            reads
        };
        let write = || {
            self.primary(Op::Authorize)
                .map(|c| Probe::new("volatile", self.valid(Op::Authorize, c)))
        };
        let mut first = self.send_all(reads()).await;
        let mut second = Vec::new();
        let first_write = match write() {
            Some(w) => Some(self.send(w).await),
            None => None,
        };
        second.append(&mut self.send_all(reads()).await);
        if let (Some(a), Some(w)) = (first_write, write()) {
            let b = self.send(w).await;
            // The token the settle kept is the newest again.
            if let Some(token) = issued_by(&b) {
                let i = self.primary(Op::Authorize).and_then(|p| {
                    self.profile
                        .components
                        .iter()
                        .position(|c| std::ptr::eq(c, p))
                });
                let mut settled = self.settled.lock().unwrap_or_else(|p| p.into_inner());
                if let Some(slot) = i.and_then(|i| settled.get_mut(i)) {
                    *slot = Some(token);
                }
            }
            first.push(a);
            second.push(b);
        }
        // The run's retry count is its checks' requests, as reported.
        self.retried
            .store(retried_before, std::sync::atomic::Ordering::Relaxed);
        let mut paths = Vec::new();
        for (a, b) in first.iter().zip(&second) {
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

    /// The lines that set `$var` to what `req` is answered in the body
    /// field `token`: the reproduction of a request that sends an issued
    /// token starts with them.
    pub fn obtain_token(&self, req: &Req, var: &str, what: &str) -> String {
        let command = crate::curl::render(req, &self.curl_secrets, &[]) + &self.curl_headers;
        format!(
            "# {var}: the token {what} issues\n{var}=\"$({command} | sed -n 's/.*\"token\" *: *\"\\([^\"]*\\)\".*/\\1/p')\"\n"
        )
    }

    /// A token the run had issued that `req` sends as its X-Auth-Token: the
    /// variable a reproduction writes for it, and the lines before the
    /// command that set it. The settling Authorize's token is obtained by
    /// an Authorize of the same component; one a check had issued, by the
    /// Authorize the check sent before it.
    fn issued_in(&self, req: &Req) -> Option<(crate::curl::Placeholder, String)> {
        let sent = req.request().headers().get("x-auth-token")?.to_str().ok()?;
        let settled = self
            .profile
            .components
            .iter()
            .enumerate()
            .find(|(i, _)| self.settled_token(*i).as_deref() == Some(sent));
        let (variable, prelude) = match settled {
            Some((_, c)) => {
                let variable = format!("ISSUED_TOKEN_{}", crate::curl::shell_name(&c.tag));
                let prelude = self
                    .valid(Op::Authorize, c)
                    .ok()
                    .map_or_else(String::new, |a| {
                        self.obtain_token(&a, &variable, &format!("an Authorize of {}", c.name))
                    });
                (variable, prelude)
            }
            None => {
                let issued = self.issued.lock().unwrap_or_else(|p| p.into_inner());
                if !issued.iter().any(|t| t == sent) {
                    return None;
                }
                (
                    "ISSUED_TOKEN".to_owned(),
                    "# ISSUED_TOKEN: the `token` this check's Authorize was answered with\n"
                        .to_owned(),
                )
            }
        };
        let placeholder = crate::curl::Placeholder {
            value: sent.to_owned(),
            variable,
        };
        Some((placeholder, prelude))
    }

    /// `req` as a `curl` command to paste: the profile's secrets as its
    /// variables, the `--header`s as theirs, a token the run had issued as
    /// a variable the lines before the command set; a body over 4 KiB is
    /// sent from a file the command names, so the line stays readable.
    fn curl(&self, req: &Req) -> String {
        let issued = self.issued_in(req);
        let secrets: std::borrow::Cow<'_, [crate::curl::Placeholder]> = match &issued {
            None => std::borrow::Cow::Borrowed(&self.curl_secrets),
            Some((token, _)) => {
                let mut all = self.curl_secrets.clone();
                all.push(token.clone());
                all.sort_by_key(|p| std::cmp::Reverse(p.value.len()));
                std::borrow::Cow::Owned(all)
            }
        };
        let mut line = crate::curl::render(req, &secrets, &[]) + &self.curl_headers;
        if line.len() > 4096 {
            if let Some(at) = line.find(" --data-binary ") {
                let bytes = req
                    .request()
                    .body()
                    .and_then(|b| b.as_bytes())
                    .map_or(0, <[u8]>::len);
                let rest = line.split_off(at);
                let headers_after = rest.find(" -H ").map_or("", |i| &rest[i..]).to_owned();
                line.push_str(&format!(
                    " --data-binary @body.json{headers_after}  # body.json: the {bytes}-byte body of the exchange"
                ));
            }
        }
        match issued {
            Some((_, prelude)) => prelude + &line,
            None => line,
        }
    }

    /// How many requests were re-sent after a 429/503 with Retry-After.
    pub fn retried(&self) -> usize {
        self.retried.load(std::sync::atomic::Ordering::Relaxed)
    }

    pub fn scrubber(&self) -> &Scrubber {
        &self.scrub
    }

    /// The scrubber for the run's outputs: the profile's secrets and every
    /// token the server issued during the run.
    pub fn final_scrubber(&self) -> Scrubber {
        let mut secrets = self.secrets.clone();
        secrets.extend(
            self.issued
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .iter()
                .cloned(),
        );
        Scrubber::new(secrets, self.profile.secret_fields())
    }

    /// Keeps a token a success carried, as a secret.
    fn learn_issued(&self, typed: &Typed) {
        let raw = typed.raw();
        if !(200..300).contains(&raw.status) {
            return;
        }
        // Read as a stream: no tree of a large answer is built for this.
        if let Some(token) = crate::carried::issued_token_in(&raw.body) {
            let mut issued = self.issued.lock().unwrap_or_else(|p| p.into_inner());
            if !issued.contains(&token) {
                issued.push(token);
            }
        }
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
        let a = c.authorize.as_ref();
        self.valid_as(
            op,
            c,
            reference,
            a.map(|a| (a.model_uuid.as_str(), &a.valid_body)),
        )
    }

    /// A valid request of `op` to `c` claiming `model` with its body
    /// (`None`: no body, and Authorize cannot be built).
    pub fn valid_as(
        &self,
        op: Op,
        c: &Component,
        reference: &str,
        model: Option<(&str, &AuthFields)>,
    ) -> Result<Req, Error> {
        match op {
            Op::AuthClaims => {
                let mut b = self.client.auth_claims().ref_(reference);
                if let Some(t) = &c.auth_token {
                    b = b.x_auth_token(t.clone());
                }
                if let Some((_, body)) = model {
                    b = b.body(body.clone());
                }
                b.build().map(Req::Claims)
            }
            Op::Authorize => {
                let (model_uuid, body) = model.ok_or(Error::MissingParameter("modelUuid"))?;
                let mut b = self
                    .client
                    .authorize()
                    .ref_(reference)
                    .model_uuid(model_uuid.to_owned())
                    .body(body.clone());
                if let Some(t) = &c.auth_token {
                    b = b.x_auth_token(t.clone());
                }
                let at = self.model_uuid_at();
                let req = Req::Authorize(b.build()?, None);
                if at == ModelUuidAt::default() {
                    Ok(req)
                } else {
                    // The bindings put it in the query (our choice): moved,
                    // it is nowhere else.
                    req.without_model_uuid(&ModelUuidAt::default())
                        .with_model_uuid(&at, model_uuid)
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

    /// A valid Auth Claims request to `c` carrying `token` (an issued one)
    /// in place of the profile's.
    pub fn claims_with_token(&self, c: &Component, token: Secret) -> Result<Req, Error> {
        self.valid(Op::AuthClaims, c)
            .and_then(|r| r.set_header("X-Auth-Token", token.expose()))
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
                        limited: None,
                        unanswered: None,
                        latency: Default::default(),
                        curl: None,
                    },
                    typed: None,
                    answered_over_cap: false,
                };
            }
        };
        let request = RequestRecord::from_request(req.request(), case == Case::Title, &self.scrub);
        let curl = Some(self.curl(&req));
        let mut req = req;
        let mut retries = Vec::new();
        let op = match &req {
            Req::Claims(..) => Op::AuthClaims,
            Req::Authorize(..) => Op::Authorize,
        };
        let mut took = std::time::Duration::ZERO;
        let mut limited = None;
        let mut unanswered = None;
        let mut timeouts = 0u32;
        // The answer before a re-send, kept for when the run stops sending
        // before the re-send goes.
        let mut previous: Option<Result<Typed, Error>> = None;
        let mut never_sent = false;
        let typed = loop {
            let again = req.try_clone();
            if let Err(stopped) = self.throttle.wait().await {
                match stopped.silent {
                    true => unanswered = Some(format!("no answer: {}", stopped.why)),
                    false => limited = Some(stopped.why),
                }
                match previous.take() {
                    Some(typed) => break typed,
                    None => {
                        never_sent = true;
                        break Err(Error::Timeout);
                    }
                }
            }
            let slot = self.concurrency.acquire().await;
            self.progress.started();
            let started = std::time::Instant::now();
            let typed = match req {
                Req::Claims(p) => client.send(p).await.map(Typed::Claims),
                Req::Authorize(p, _) => client.send(p).await.map(Typed::Authorize),
            };
            took = started.elapsed();
            drop(slot);
            self.progress.ended(typed.is_ok());
            let answer = match &typed {
                Ok(answer) => answer,
                // A late answer is no answer: the server (or the machine)
                // is busier than the run assumed. Fewer in flight, a
                // back-off, and the same request again, before anything
                // is judged on it.
                Err(Error::Timeout) => {
                    timeouts += 1;
                    self.concurrency.timed_out();
                    // A server that answers nothing stops the run's
                    // sending: the rest is not judged, at once.
                    if let Some(why) = self.concurrency.silent(self.limits.timeout) {
                        self.throttle.stop_silent(why);
                    }
                    match again {
                        Some(again) if timeouts < self.limits.tries_on_timeout.max(1) => {
                            let pause = crate::transport::backoff(timeouts, retries.len() + 1);
                            if self.past_deadline_after(pause) {
                                unanswered = Some(self.unanswered(timeouts));
                                break typed;
                            }
                            tokio::time::sleep(pause).await;
                            retries.push(format!(
                                "no answer within {} ms (waited {} ms)",
                                self.limits.timeout.as_millis(),
                                pause.as_millis()
                            ));
                            previous = Some(typed);
                            req = again;
                            continue;
                        }
                        _ => {
                            unanswered = Some(self.unanswered(timeouts));
                            break typed;
                        }
                    }
                }
                Err(_) => break typed,
            };
            self.concurrency.answered();
            let raw = answer.raw();
            let Some(said) = limit_answer(raw) else {
                self.throttle
                    .answered(rate_limit_reset(raw), stated_rate(raw));
                break typed;
            };
            self.keep_limit_answer(&label, &request, raw, curl.as_deref());
            let attempt = retries.len() as u32;
            // With a deadline a wait is honoured while it ends before it
            // (the throttle stops the run when it would not); without one,
            // up to the runner's own cap.
            let deadline = self.deadline.is_some();
            let too_long = waits_too_long(raw).filter(|_| !deadline);
            let wait = match deadline {
                true => said,
                false => said.map(|d| d.min(crate::transport::MAX_RETRY_AFTER)),
            };
            let waited = self.throttle.limited(wait, attempt, stated_rate(raw));
            match (again, too_long) {
                (Some(again), None)
                    if attempt < self.limits.retries && !self.throttle.hopeless() =>
                {
                    retries.push(format!(
                        "HTTP {} (waited {} ms)",
                        raw.status,
                        waited.as_millis()
                    ));
                    self.retried
                        .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    previous = Some(typed);
                    req = again;
                }
                (_, Some(long)) => {
                    limited = Some(format!(
                        "HTTP {} with Retry-After {} s, longer than the {} s the runner waits",
                        raw.status,
                        long.as_secs(),
                        crate::transport::MAX_RETRY_AFTER.as_secs()
                    ));
                    break typed;
                }
                _ => {
                    limited = Some(format!(
                        "HTTP {} after {} re-send(s){}",
                        raw.status,
                        retries.len(),
                        if self.throttle.hopeless() {
                            "; the server answered nothing but limits for many requests in a row"
                        } else {
                            ""
                        }
                    ));
                    break typed;
                }
            }
        };
        // A compressed answer is read as a client reads it: decoded
        // (within the body cap) before anything is judged.
        // An error: why, and whether an answer came all the same (one over
        // the body cap, encoded or not).
        let typed: Result<Typed, (String, bool)> =
            match typed.map(|t| decoded(t, self.limits.max_body_bytes)) {
                Ok(Ok(t)) => Ok(t),
                Ok(Err(undecodable)) => Err(undecodable),
                // Never sent: the run stopped sending.
                Err(_) if never_sent => Err((
                    format!(
                        "not sent: {}",
                        limited
                            .as_deref()
                            .or(unanswered.as_deref())
                            .unwrap_or_default()
                    ),
                    false,
                )),
                Err(e) => Err((
                    self.scrub.text(&describe_error(&e)),
                    matches!(e, Error::BodyTooLarge { .. }),
                )),
            };
        if limited.is_none() && unanswered.is_none() {
            self.latencies.record(op, took);
        }
        let latency = crate::latency::Took(Some(took));
        let retried = (!retries.is_empty()).then(|| {
            format!(
                "re-sent {} time(s) after a limit answer: {}",
                retries.len(),
                retries.join(", ")
            )
        });
        if let (Ok(typed), None) = (&typed, &limited) {
            self.learn_issued(typed);
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
                    limited,
                    unanswered,
                    latency,
                    curl,
                },
                typed: Some(typed),
                answered_over_cap: false,
            },
            Err((why, over_cap)) => Sent {
                answered_over_cap: over_cap,
                exchange: Exchange {
                    label,
                    request,
                    response: None,
                    error: Some(why),
                    retried,
                    limited,
                    unanswered,
                    latency,
                    curl,
                },
                typed: None,
            },
        }
    }

    /// Keeps a limit answer for the check that judges limit answers as
    /// error answers: the first few of each kind (status, media type,
    /// X-Project-Uuid or not), so a run holds a handful whatever the
    /// server limits.
    fn keep_limit_answer(
        &self,
        label: &str,
        request: &RequestRecord,
        raw: &RawResponse,
        curl: Option<&str>,
    ) {
        let mut kept = self.limit_answers.lock().unwrap_or_else(|p| p.into_inner());
        let kind = (
            raw.status,
            raw.header("content-type").unwrap_or_default().to_owned(),
            raw.header("x-project-uuid").is_some(),
            raw.header("content-encoding")
                .unwrap_or_default()
                .to_owned(),
        );
        let same = kept.kinds.iter().filter(|k| **k == kind).count();
        if same >= 2 || kept.kept.len() >= 16 {
            return;
        }
        kept.kinds.push(kind);
        // Read as any answer is: decoded where it came compressed (a limit
        // answer compresses like the others where the request accepts it).
        let decoded;
        let raw = match raw.header("content-encoding").and_then(|coding| {
            crate::encoding::decode(coding, &raw.body, self.limits.max_body_bytes)
        }) {
            Some(Ok(body)) => {
                decoded = RawResponse {
                    status: raw.status,
                    headers: raw.headers.clone(),
                    body: body.into(),
                };
                &decoded
            }
            _ => raw,
        };
        kept.kept.push(Exchange {
            label: format!("{label} (limited)"),
            request: request.clone(),
            response: Some(ResponseRecord::from_raw(
                raw,
                &self.scrub,
                Recording::default(),
            )),
            error: None,
            retried: None,
            limited: None,
            unanswered: None,
            latency: Default::default(),
            curl: curl.map(str::to_owned),
        });
    }

    /// The limit answers kept for judging, and what the throttle made of
    /// the run.
    pub fn limits_seen(&self) -> (Vec<Exchange>, Throttled) {
        let kept = self.limit_answers.lock().unwrap_or_else(|p| p.into_inner());
        (kept.kept.clone(), self.throttle.throttled())
    }
}

/// The answer with its body decoded where it came compressed
/// ([`crate::encoding`]), decoded again by its operation; why not where the
/// body cannot be read.
fn decoded(typed: Typed, limit: usize) -> Result<Typed, (String, bool)> {
    let raw = typed.raw();
    let Some(coding) = raw.header("content-encoding") else {
        return Ok(typed);
    };
    match crate::encoding::decode(coding, &raw.body, limit) {
        None => Ok(typed),
        Some(Err(e)) => Err((
            format!("an answer came (HTTP {}), but {e}", raw.status),
            matches!(e, crate::encoding::Undecodable::TooLarge { .. }),
        )),
        Some(Ok(body)) => {
            let raw = RawResponse {
                status: raw.status,
                headers: raw.headers.clone(),
                body: body.into(),
            };
            Ok(match typed {
                Typed::Claims(_) => Typed::Claims(DecodeResponse::decode(raw)),
                Typed::Authorize(_) => Typed::Authorize(DecodeResponse::decode(raw)),
            })
        }
    }
}

/// The limit answers a run keeps ([`Target::keep_limit_answer`]).
#[derive(Debug, Default)]
struct LimitAnswers {
    kinds: Vec<(u16, String, bool, String)>,
    kept: Vec<Exchange>,
}

/// The token a successful Authorize issued, if any.
fn issued_by(s: &Sent) -> Option<String> {
    s.raw()
        .filter(|r| (200..300).contains(&r.status))
        .and_then(|r| crate::carried::issued_token_in(&r.body))
}

/// Places tried for `modelUuid`, in order; the first that Authorize
/// serves is the server's.
const MODEL_UUID_PLACES: &[&str] = &[
    "query",
    "header:X-Model-Uuid",
    "body:modelUuid",
    "query:model_uuid",
    "body:model_uuid",
    "header:X-Model-Id",
];

impl Target {
    /// Where modelUuid travels: the first place (of `MODEL_UUID_PLACES`) a
    /// valid Authorize is served with it, and the status it was served with.
    /// `target`'s profile must not declare the place (its valid Authorize puts
    /// it in ours, the query).
    pub async fn model_uuid_place(&self) -> Option<(ModelUuidAt, Option<u16>)> {
        let target = self;
        let c = target.primary(Op::Authorize)?;
        let model = c.authorize.as_ref().map(|a| a.model_uuid.clone())?;
        for place in MODEL_UUID_PLACES {
            let Ok(at) = place.parse::<ModelUuidAt>() else {
                continue;
            };
            let req = target.valid(Op::Authorize, c).and_then(|r| {
                r.without_model_uuid(&ModelUuidAt::default())
                    .with_model_uuid(&at, &model)
            });
            let sent = target.send(Probe::new("modelUuid", req)).await;
            if sent.status().is_some_and(|st| (200..300).contains(&st)) {
                return Some((at, sent.status()));
            }
        }
        None
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

impl Target {
    /// Sends every request concurrently; the answers come back in order.
    /// Dropped before the answers are in (the run's deadline passed), it
    /// aborts every request still on its way: nothing of a run goes on
    /// after it, nor prints after its report.
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
        let guard = AbortOnDrop(handles.iter().map(|(_, h)| h.abort_handle()).collect());
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
                    limited: None,
                    unanswered: None,
                    latency: Default::default(),
                    curl: None,
                },
                typed: None,
                answered_over_cap: false,
            }));
        }
        // Every task is done: aborting them now is nothing.
        drop(guard);
        out
    }
}

/// Aborts the tasks it holds when dropped (a task already done is left as
/// it is).
struct AbortOnDrop(Vec<tokio::task::AbortHandle>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        for h in &self.0 {
            h.abort();
        }
    }
}

impl Target {
    /// Sends a request only to learn whether the target can be reached.
    pub async fn reach(&self, req: Result<Req, Error>) -> Result<(), Error> {
        let client = &self.client;
        match req? {
            Req::Claims(p) => client.send(p).await.map(|_| ()),
            Req::Authorize(p, _) => client.send(p).await.map(|_| ()),
        }
    }
}
