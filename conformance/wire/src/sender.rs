//! The sender: every request of a run goes through it, paced and
//! re-sent after a limit answer ([`crate::transport`]), in flight within
//! the run's concurrency ([`crate::concurrency`]), sent again after a
//! time-out, its limit answers kept (`limited.rs`), and recorded
//! (normalised, secrets scrubbed) before any judgement. Two clients send
//! (header names in lower case and in Title-Case), each request on a
//! connection of its own; a session's client keeps one alive. The sender
//! builds no request and learns nothing of the server's state: how an
//! exchange is reproduced and what its record keeps are given to it.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use component_auth_bindings::{
    Client, DecodeResponse, Defaults, Error, RawResponse, Transport, server_url,
};
use conformance_model::profile::Profile;

use crate::concurrency::Concurrency;
use crate::connect::Connect;
use crate::exchange::{Exchange, Recording, RequestRecord, ResponseRecord, Scrubber};
use crate::limited::LimitAnswers;
use crate::request::{Case, Op, Probe, Req, Sent, Typed};
use crate::transport::{
    Limits, Throttle, Throttled, describe_error, is_loopback, limit_answer, rate_limit_reset,
    stated_rate, waits_too_long,
};

/// How the run's requests travel.
#[derive(Debug)]
pub struct Sender {
    client: Client,
    title_client: Client,
    /// What a kept-alive session's client is built from.
    url: String,
    defaults: Defaults,
    limits: Limits,
    connect: Connect,
    scrub: Scrubber,
    /// Requests in flight at once: the run's `concurrency`, halved by
    /// time-outs and grown back by answers ([`crate::concurrency`]).
    concurrency: Concurrency,
    /// The share of `concurrency` that batches may hold (see [`Limits::concurrency`]).
    bulk: Arc<tokio::sync::Semaphore>,
    /// The pace of request starts: the fixed rate, holds and the pace
    /// learnt from limit answers ([`crate::transport::Throttle`]).
    throttle: Throttle,
    /// Requests re-sent after a limit answer (429, or 503 with Retry-After).
    retried: AtomicUsize,
    /// Limit answers, a few of each kind, for the check that judges them
    /// as error answers ([`LimitAnswers`]).
    limit_answers: Mutex<LimitAnswers>,
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

impl Sender {
    /// The clients for `profile`'s server, and `scrub` for what they record.
    pub(crate) fn new(
        profile: &Profile,
        limits: Limits,
        mut connect: Connect,
        scrub: Scrubber,
    ) -> Result<Self, Error> {
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
        Ok(Self {
            client,
            title_client,
            url,
            defaults: session_defaults,
            limits,
            connect,
            scrub,
            concurrency: Concurrency::new(limits.concurrency),
            bulk: Arc::new(tokio::sync::Semaphore::new(
                (limits.concurrency * 3 / 4).max(1),
            )),
            throttle: Throttle::new(limits.rate),
            limit_answers: Default::default(),
            retried: AtomicUsize::new(0),
            deadline: None,
            progress: Default::default(),
            latencies: Default::default(),
            outcomes: Default::default(),
        })
    }

    /// The client that sends header names in lower case (the bindings'
    /// own): its builders make the profile's valid requests.
    pub(crate) fn client(&self) -> &Client {
        &self.client
    }

    /// The share of the run's concurrency a batch may hold.
    pub(crate) fn bulk(&self) -> Arc<tokio::sync::Semaphore> {
        self.bulk.clone()
    }

    /// Sending within the run's `deadline`: a limit's wait that would end
    /// after it stops the run's sending at once (what is not sent is not
    /// judged), and no back-off is begun past it.
    pub(crate) fn set_deadline(&mut self, deadline: Option<std::time::Instant>) {
        self.deadline = deadline.map(tokio::time::Instant::from_std);
        self.throttle.set_deadline(self.deadline);
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

    /// How many requests were re-sent after a 429/503 with Retry-After.
    pub fn retried(&self) -> usize {
        self.retried.load(Ordering::Relaxed)
    }

    /// Sets the count of re-sent requests back to `count`: the run's count
    /// is its checks' requests, as reported.
    pub(crate) fn reset_retried(&self, count: usize) {
        self.retried.store(count, Ordering::Relaxed);
    }

    /// What the exchanges' records are scrubbed with: the profile's secrets
    /// and the `--header`s (the tokens the server issues are added at the
    /// end of the run: [`crate::state::State::final_scrubber`]).
    pub fn scrubber(&self) -> &Scrubber {
        &self.scrub
    }

    /// The limit answers kept for judging, and what the throttle made of
    /// the run.
    pub fn limits_seen(&self) -> (Vec<Exchange>, Throttled) {
        let kept = self.limit_answers.lock().unwrap_or_else(|p| p.into_inner());
        (kept.kept().to_vec(), self.throttle.throttled())
    }

    /// Sends a request only to learn whether the target can be reached.
    pub async fn reach(&self, req: Result<Req, Error>) -> Result<(), Error> {
        let client = &self.client;
        match req? {
            Req::Claims(p) => client.send(p).await.map(|_| ()),
            Req::Authorize(p, _) => client.send(p).await.map(|_| ()),
        }
    }

    /// The client that sends a probe of this letter case.
    pub(crate) fn client_for(&self, case: Case) -> &Client {
        match case {
            Case::Lower => &self.client,
            Case::Title => &self.title_client,
        }
    }

    /// A client of its own whose requests, sent one after the other, share
    /// one kept-alive connection (every other request goes on a new one).
    pub(crate) fn session_client(&self) -> Result<Client, Error> {
        let http = self
            .connect
            .builder(&self.limits)
            .pool_max_idle_per_host(1)
            .http1_only()
            .build()
            .map_err(Error::Transport)?;
        Ok(Client::new(&self.url)?
            .with_transport(Transport::with_client(
                http,
                self.limits.timeout,
                self.limits.max_body_bytes,
            ))
            .with_defaults(self.defaults.clone()))
    }

    /// Sends `probe` through `client` (or records why its request could not
    /// be built), re-sending it after a limit answer or a time-out, and
    /// decodes the answer. `reproduce` writes the request as a command to
    /// paste; `recording` says what the answer's record keeps.
    pub(crate) async fn send_via<'r>(
        &self,
        client: &Client,
        probe: Probe,
        reproduce: impl FnOnce(&Req) -> String,
        recording: impl FnOnce() -> Recording<'r>,
    ) -> Sent {
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
                    read: Default::default(),
                    answered_over_cap: false,
                };
            }
        };
        let request = RequestRecord::from_request(req.request(), case == Case::Title, &self.scrub);
        let curl = Some(reproduce(&req));
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
                    self.retried.fetch_add(1, Ordering::Relaxed);
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
        // The record, and what the judgements read of the body: read once
        // here, judged many times over.
        let (response, read) = match &typed {
            Ok(typed) => {
                let (record, read) = ResponseRecord::read(typed.raw(), &self.scrub, recording());
                (Some(record), read)
            }
            Err(_) => (None, Default::default()),
        };
        if let (Ok(typed), None) = (&typed, &limited) {
            self.outcomes
                .record(crate::outcomes::Answer::of_read(op, typed.raw(), &read));
        }
        match typed {
            Ok(typed) => Sent {
                exchange: Exchange {
                    label,
                    request,
                    response,
                    error: None,
                    retried,
                    limited,
                    unanswered,
                    latency,
                    curl,
                },
                typed: Some(typed),
                read,
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
                read,
            },
        }
    }

    /// Keeps a limit answer for the check that judges limit answers as
    /// error answers ([`LimitAnswers::keep`]).
    fn keep_limit_answer(
        &self,
        label: &str,
        request: &RequestRecord,
        raw: &RawResponse,
        curl: Option<&str>,
    ) {
        let mut kept = self.limit_answers.lock().unwrap_or_else(|p| p.into_inner());
        kept.keep(
            label,
            request,
            raw,
            curl,
            &self.scrub,
            self.limits.max_body_bytes,
        );
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
