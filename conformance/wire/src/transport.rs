//! How requests travel: the client's limits (time-out, body cap,
//! concurrency, rate, retries), the pace of request starts ([`Throttle`]),
//! what a limit answer is and how long it says to wait, and transport
//! errors in words.
//!
//! A server's limits are part of the interface as it runs ("Limits (rate
//! limits, size limits, time-outs): not shown"): a 429, or a 503 with
//! `Retry-After`, is honoured, never judged as the server's answer to a
//! rule.

use std::time::Duration;

use component_auth_bindings::Error;

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
    /// Requests started per second, at most (`--rate`, else the profile's
    /// `rate`); `None`: no limit until the server limits the run.
    pub rate: Option<f64>,
    /// How many times a request answered by a limit (a 429, or a 503 with
    /// `Retry-After`) is re-sent after waiting. Default 8: a server that
    /// limits its clients is waited for, not judged by its limit answer; a
    /// request still limited after that many is not judged at all (its
    /// check fails as not judged, naming the rate that would avoid it).
    pub retries: u32,
    /// How many times a request is sent in all when no answer comes within
    /// `timeout`. Default 3: a late answer is a busy server or a busy
    /// machine, not the server's answer to a rule; each time-out halves the
    /// requests in flight ([`crate::concurrency`]), and the request goes
    /// again after a back-off. Still no answer: its check is not judged.
    pub tries_on_timeout: u32,
}

/// The longest wait the runner honours for one limit answer
/// (`Retry-After`, a rate-limit reset) when the run has no deadline; a
/// longer one is not waited for and the request ends as limited. With a
/// deadline (every run of the command has one), a wait is honoured as long
/// as it ends before the deadline, and one that would not stops the run's
/// sending at once ([`Throttle::wait`]).
pub const MAX_RETRY_AFTER: Duration = Duration::from_secs(10);

/// Nothing but limit answers for this long, each wait the server asked for
/// honoured, and the limit has not lifted as it said it would: the run
/// stops sending (a limiter stuck, a window far longer than it states).
const LIMIT_NEVER_LIFTS: Duration = Duration::from_secs(30);

/// The slowest pace the run falls to while a server limits it, in requests
/// a second: slower than that, a run of a few hundred requests would take
/// minutes, and the limit answers say more than the pace could.
const MIN_LEARNT_RATE: f64 = 2.0;

/// Limit answers in a row, for at least [`HOPELESS_AFTER`], after which no
/// request is re-sent: a server that limits everything (its clients' quota
/// spent, a limiter stuck) would otherwise hold a run for minutes to show
/// the same answer. Both, because a burst at a high concurrency brings as
/// many limit answers at once (every request in flight when the limit
/// began) from a server that is only pacing its clients.
const HOPELESS: usize = 48;

/// See [`HOPELESS`].
const HOPELESS_AFTER: Duration = Duration::from_secs(10);

impl Default for Limits {
    fn default() -> Self {
        Self {
            timeout: Duration::from_secs(5),
            max_body_bytes: 1024 * 1024,
            concurrency: 16,
            rate: None,
            retries: 8,
            tries_on_timeout: 3,
        }
    }
}

/// `true` when `base_url` names `localhost` or a loopback address.
pub fn is_loopback(base_url: &str) -> bool {
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

/// The pace of request starts, shared by every task of a run.
///
/// Three things slow it: a fixed rate (`--rate` or the profile's `rate`),
/// never exceeded; a hold, when the server says when to come back (a
/// `Retry-After`, or a rate-limit header whose remaining count is zero),
/// during which nothing starts; and a learnt rate, the way TCP backs off:
/// each burst of limit answers halves the pace, each answer that is not a
/// limit raises it by about one request a second per second. A limited
/// server is then measured at the pace it allows, not hammered.
#[derive(Debug)]
pub struct Throttle {
    fixed: Option<f64>,
    state: std::sync::Mutex<ThrottleState>,
}

/// Why the run sends nothing more: the server's limits would hold it past
/// its deadline, or never lift; or the server answers nothing within the
/// time-out (`silent`).
#[derive(Clone, Debug, PartialEq)]
pub struct Stopped(pub String, pub bool);

#[derive(Debug)]
struct ThrottleState {
    /// The earliest next start at the current pace.
    next: tokio::time::Instant,
    /// No start before this (the server said when to come back).
    hold_until: tokio::time::Instant,
    /// The pace learnt while the server limits the run; `None`: never
    /// limited.
    learnt: Option<f64>,
    /// When the pace was last halved: one burst of limit answers (all the
    /// requests in flight when the limit began) halves it once.
    last_cut: Option<tokio::time::Instant>,
    /// Recent starts, to know the pace the server limited.
    recent: std::collections::VecDeque<tokio::time::Instant>,
    /// Limit answers received.
    limited: usize,
    /// When the throttle began: the first second's pace is its starts
    /// over the time since.
    began: tokio::time::Instant,
    /// A little under the rate the server stated: the learnt pace never
    /// grows past it.
    stated: Option<f64>,
    /// Limit answers since the last answer that was not one.
    in_a_row: usize,
    /// When the last answer that was not a limit came (the throttle's
    /// start, before any).
    last_answered: tokio::time::Instant,
    /// What the server said of the current hold (`Retry-After 10 s`).
    hold_said: String,
    /// The run's deadline: a hold past it stops the run's sending.
    deadline: Option<tokio::time::Instant>,
    /// Set once: nothing more is sent, and why.
    stopped: Option<Stopped>,
}

impl ThrottleState {
    /// A server that states its rate is taken at its word, a little under
    /// it (the clocks of client and server differ): no guessing.
    fn state_rate(&mut self, rate: f64) {
        let under = (rate * 0.95).max(MIN_LEARNT_RATE);
        self.stated = Some(under);
        self.learnt = Some(self.learnt.map_or(under, |r| r.min(under)));
    }
}

/// What the throttle made of a run.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Throttled {
    /// Limit answers received (each re-sent or, past the retries, kept).
    pub limited: usize,
    /// The pace the run fell to while limited, requests a second.
    pub learnt_rate: Option<f64>,
}

impl Throttle {
    /// Called inside the runtime (tokio's timer). A `rate` that paces
    /// nothing (not finite, not positive) is no fixed rate.
    pub fn new(rate: Option<f64>) -> Self {
        let now = tokio::time::Instant::now();
        Throttle {
            fixed: rate.filter(|r| r.is_finite() && *r > 0.0),
            state: std::sync::Mutex::new(ThrottleState {
                next: now,
                hold_until: now,
                learnt: None,
                last_cut: None,
                recent: Default::default(),
                limited: 0,
                began: now,
                stated: None,
                in_a_row: 0,
                last_answered: now,
                hold_said: String::new(),
                deadline: None,
                stopped: None,
            }),
        }
    }

    /// The run's deadline: a limit whose wait would end after it stops the
    /// run's sending rather than hold it.
    pub fn set_deadline(&self, at: Option<tokio::time::Instant>) {
        self.lock().deadline = at;
    }

    /// Stops the run's sending: the server answers nothing within the
    /// time-out, `why` (the first reason stays).
    pub fn stop_silent(&self, why: String) {
        let mut s = self.lock();
        if s.stopped.is_none() {
            s.stopped = Some(Stopped(why, true));
        }
    }

    /// Why nothing more is sent, once the run stopped.
    pub fn stopped(&self) -> Option<Stopped> {
        self.lock().stopped.clone()
    }

    /// The hold in force, if one: how long it lasts yet, and what the
    /// server said (for the progress lines).
    pub fn holding(&self) -> Option<(Duration, String)> {
        let s = self.lock();
        let left = s
            .hold_until
            .saturating_duration_since(tokio::time::Instant::now());
        (!left.is_zero()).then(|| (left, s.hold_said.clone()))
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, ThrottleState> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The pace now: the fixed rate, or the learnt one where lower.
    fn rate(&self, s: &ThrottleState) -> Option<f64> {
        match (self.fixed, s.learnt) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Waits for this request's start: after any hold, `1/rate` after the
    /// start before it. `Err` at once when the run has stopped sending, or
    /// when the hold would end after the run's deadline (which stops it).
    pub async fn wait(&self) -> Result<(), Stopped> {
        loop {
            let at = {
                let mut s = self.lock();
                if let Some(stopped) = &s.stopped {
                    return Err(stopped.clone());
                }
                let now = tokio::time::Instant::now();
                if let Some(deadline) = s.deadline.filter(|d| s.hold_until > *d) {
                    let why = Stopped(
                        format!(
                            "the server limits this client ({}), a wait that ends {} s after the run's deadline",
                            s.hold_said,
                            s.hold_until
                                .saturating_duration_since(deadline)
                                .as_secs()
                                .max(1)
                        ),
                        false,
                    );
                    s.stopped = Some(why.clone());
                    return Err(why);
                }
                let at = now.max(s.next).max(s.hold_until);
                let interval = self.rate(&s).map_or(Duration::ZERO, |r| {
                    Duration::try_from_secs_f64(1.0 / r).unwrap_or(Duration::MAX)
                });
                s.next = later(at, interval);
                s.recent.push_back(at);
                while s
                    .recent
                    .front()
                    .is_some_and(|t| at.saturating_duration_since(*t) > Duration::from_secs(1))
                {
                    s.recent.pop_front();
                }
                at
            };
            tokio::time::sleep_until(at).await;
            // A limit answer that came meanwhile holds this start too.
            let s = self.lock();
            if let Some(stopped) = &s.stopped {
                return Err(stopped.clone());
            }
            if s.hold_until <= at {
                return Ok(());
            }
        }
    }

    /// A limit answer: nothing starts before `wait` is over (or, where the
    /// server did not say, a back-off), and the pace is halved once per
    /// burst, or set a little under the rate the server `stated`. Returns how long this request waits before it is re-sent.
    pub fn limited(&self, wait: Option<Duration>, attempt: u32, stated: Option<f64>) -> Duration {
        let mut s = self.lock();
        let now = tokio::time::Instant::now();
        s.limited += 1;
        s.in_a_row += 1;
        let said = match wait {
            Some(w) => format!("Retry-After {} s", w.as_secs_f64().ceil()),
            None => "no Retry-After".to_owned(),
        };
        let wait = wait.unwrap_or_else(|| backoff(attempt, s.limited));
        let until = later(now, wait);
        if until >= s.hold_until {
            s.hold_said = said.clone();
        }
        s.hold_until = s.hold_until.max(until);
        // Every wait honoured, and still nothing but limits: the limit
        // does not lift as the server says it will.
        let waited = now.saturating_duration_since(s.last_answered);
        if s.stopped.is_none() && s.in_a_row >= 3 && waited >= LIMIT_NEVER_LIFTS {
            s.stopped = Some(Stopped(
                format!(
                    "the server limits this client ({said}): nothing but limit answers for {} s, {} in a row, each wait honoured",
                    waited.as_secs(),
                    s.in_a_row
                ),
                false,
            ));
        }
        let burst_over = s
            .last_cut
            .is_none_or(|t| now.saturating_duration_since(t) > Duration::from_millis(250));
        if let Some(rate) = stated {
            s.state_rate(rate);
        } else if burst_over {
            // The pace of the last second's starts (or of the time since
            // the run began, when shorter), halved.
            let span = now
                .saturating_duration_since(s.began)
                .clamp(Duration::from_millis(100), Duration::from_secs(1));
            let started = s.recent.len() as f64 / span.as_secs_f64();
            let pace = self.rate(&s).map_or(started, |r| r.min(started.max(1.0)));
            s.learnt = Some((pace / 2.0).max(MIN_LEARNT_RATE));
            s.last_cut = Some(now);
        }
        wait
    }

    /// An answer that is not a limit: a learnt pace grows by about one
    /// request a second per second. `hold`: the server said that its
    /// allowance is spent until then (a rate-limit header).
    pub fn answered(&self, hold: Option<Duration>, policy: Option<f64>) {
        let mut s = self.lock();
        s.in_a_row = 0;
        s.last_answered = tokio::time::Instant::now();
        if let Some(rate) = policy {
            s.state_rate(rate);
        }
        if let Some(r) = s.learnt {
            let grown = r + 2.0 / r.max(1.0);
            s.learnt = Some(s.stated.map_or(grown, |cap| grown.min(cap)));
        }
        if let Some(hold) = hold {
            let until = later(tokio::time::Instant::now(), hold);
            s.hold_until = s.hold_until.max(until);
        }
    }

    /// The server has answered nothing but limits for 48 answers in a
    /// row, over 10 s: re-sending more only waits longer for the same
    /// answer.
    pub fn hopeless(&self) -> bool {
        let s = self.lock();
        s.in_a_row >= HOPELESS
            && tokio::time::Instant::now().saturating_duration_since(s.last_answered)
                >= HOPELESS_AFTER
    }

    /// What the throttle made of the run so far.
    pub fn throttled(&self) -> Throttled {
        let s = self.lock();
        Throttled {
            limited: s.limited,
            learnt_rate: s.learnt.map(|r| (r * 10.0).floor() / 10.0),
        }
    }
}

/// How long to wait for a limit answer that did not say: 100 ms doubled
/// with each attempt, up to 5 s, less a jitter of up to a half (so the
/// requests of a burst do not come back together).
pub(crate) fn backoff(attempt: u32, salt: usize) -> Duration {
    let base = Duration::from_millis(100).saturating_mul(1 << attempt.min(6));
    let base = base.min(Duration::from_secs(5));
    // A cheap, well-spread fraction in [0, 1) from the salt (Fibonacci hashing).
    let spread = (salt as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 11;
    let fraction = spread as f64 / (1u64 << 53) as f64;
    base.mul_f64(1.0 - fraction / 2.0)
}

/// The rate a server states in `RateLimit-Policy` (the IETF draft's
/// `100;w=60`, or `q=100;w=60` from draft 8 on): quota per window, in
/// requests a second. Without a window the rate cannot be known.
pub fn stated_rate(raw: &component_auth_bindings::RawResponse) -> Option<f64> {
    let policy = raw.header("ratelimit-policy")?;
    // The first policy is the tightest a server lists first.
    let first = policy.split(',').next()?;
    let mut quota = None;
    let mut window = None;
    for (i, part) in first.split(';').enumerate() {
        let part = part.trim();
        match part.split_once('=') {
            Some((k, v)) if k.trim() == "w" => window = v.trim().parse::<f64>().ok(),
            Some((k, v)) if k.trim() == "q" => quota = v.trim().parse::<f64>().ok(),
            None if i == 0 => quota = part.parse::<f64>().ok(),
            _ => {}
        }
    }
    let (q, w) = (quota?, window?);
    (q > 0.0 && w > 0.0 && q.is_finite() && w.is_finite()).then(|| q / w)
}

/// A limit answer: a 429, or a 503 that says when to come back
/// (`Retry-After`), which is a server shedding load. Its wait, where it
/// gives one (`Retry-After` in seconds or as an HTTP date, else a
/// rate-limit reset), as the server said it (the caller caps it: at the
/// run's deadline, or at [`MAX_RETRY_AFTER`] without one); `Some(None)`: a
/// limit that did not say how long.
pub fn limit_answer(raw: &component_auth_bindings::RawResponse) -> Option<Option<Duration>> {
    let retry_after = || parse_retry_after(raw.header("retry-after")?);
    match raw.status {
        429 => Some(retry_after().or_else(|| reset_of(raw))),
        503 if raw.header("retry-after").is_some() => Some(retry_after()),
        _ => None,
    }
}

/// `now + wait`, or a time far beyond any run where that overflows (a
/// server may say anything).
pub fn later(now: tokio::time::Instant, wait: Duration) -> tokio::time::Instant {
    now.checked_add(wait)
        .unwrap_or_else(|| now + Duration::from_secs(100 * 365 * 24 * 3600))
}

/// A limit answer's wait longer than the runner honours: the request is not
/// re-sent.
pub fn waits_too_long(raw: &component_auth_bindings::RawResponse) -> Option<Duration> {
    let said = parse_retry_after(raw.header("retry-after")?)?;
    (said > MAX_RETRY_AFTER).then_some(said)
}

/// `Retry-After` (RFC 9110 10.2.3): delay-seconds or an HTTP date.
fn parse_retry_after(value: &str) -> Option<Duration> {
    let value = value.trim();
    if let Ok(secs) = value.parse::<u64>() {
        return Some(Duration::from_secs(secs));
    }
    let at = httpdate::parse_http_date(value).ok()?;
    Some(
        at.duration_since(std::time::SystemTime::now())
            .unwrap_or(Duration::ZERO),
    )
}

/// When a server's rate-limit headers say the allowance is spent: the
/// `remaining` count is 0 and a `reset` says when it returns. Read from
/// `RateLimit-Remaining`/`RateLimit-Reset` (the IETF draft's first form),
/// `X-RateLimit-Remaining`/`X-RateLimit-Reset` (most frameworks), or the
/// structured `RateLimit: ... r=0; t=1` / `remaining=0, reset=1`. A reset
/// over 10^9 is a Unix time, else seconds.
/// At most [`MAX_RETRY_AFTER`]: read from an answer that is not a limit,
/// it paces the run, never stops it.
pub fn rate_limit_reset(raw: &component_auth_bindings::RawResponse) -> Option<Duration> {
    reset_of(raw).map(|d| d.min(MAX_RETRY_AFTER))
}

/// [`rate_limit_reset`] as the server said it.
fn reset_of(raw: &component_auth_bindings::RawResponse) -> Option<Duration> {
    let number = |name: &str| -> Option<f64> { raw.header(name)?.trim().parse().ok() };
    let (remaining, reset) = match (
        number("ratelimit-remaining").or_else(|| number("x-ratelimit-remaining")),
        number("ratelimit-reset").or_else(|| number("x-ratelimit-reset")),
    ) {
        (Some(r), Some(t)) => (r, t),
        _ => structured_rate_limit(raw.header("ratelimit")?)?,
    };
    if remaining > 0.0 || !reset.is_finite() || reset < 0.0 {
        return None;
    }
    let wait = if reset > 1e9 {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .ok()?
            .as_secs_f64();
        (reset - now).max(0.0)
    } else {
        reset
    };
    Some(Duration::try_from_secs_f64(wait).unwrap_or(Duration::MAX))
}

/// `remaining` and `reset` from a structured `RateLimit` header: keys `r`
/// and `t` (draft 8 and later) or `remaining` and `reset`.
fn structured_rate_limit(value: &str) -> Option<(f64, f64)> {
    let mut remaining = None;
    let mut reset = None;
    for part in value.split([',', ';']) {
        let Some((key, v)) = part.split_once('=') else {
            continue;
        };
        let v: Option<f64> = v.trim().trim_matches('"').parse().ok();
        match key.trim().to_ascii_lowercase().as_str() {
            "r" | "remaining" => remaining = v,
            "t" | "reset" => reset = v,
            _ => {}
        }
    }
    Some((remaining?, reset?))
}

/// A transport error in words. A connection error names the address and
/// the cause (`could not connect to 127.0.0.1:8080: connection refused`;
/// reset, timed out, which certificate problem); the bindings' `Display`
/// says it whole (host and port only: never a password of the URL). Other
/// errors get their causes appended (reqwest hides the useful part in the
/// source chain).
pub fn describe_error(e: &Error) -> String {
    let mut text = e.to_string();
    if matches!(e, Error::Connect(_) | Error::Transport(_)) {
        return text;
    }
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

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use component_auth_bindings::Transport;

    use super::*;

    /// The runner's words for a refused connect to a closed port of
    /// 127.0.0.1, with a password in the URL that must not show.
    #[test]
    fn a_refused_connection_names_the_address_and_connection_refused() {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port();
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a runtime");
        let transport = Transport::new(Duration::from_secs(5), 1024).expect("a transport");
        let url = format!("http://ops:pa55word@127.0.0.1:{port}/v1/components?ref=x");
        let request = reqwest::Request::new(reqwest::Method::GET, url.parse().expect("a URL"));
        let e = runtime
            .block_on(transport.fetch(request))
            .expect_err("nothing listens there");
        let text = describe_error(&e);
        assert!(text.contains(&format!("127.0.0.1:{port}")), "{text}");
        assert!(text.contains("connection refused"), "{text}");
        assert!(
            !text.contains("pa55word") && !text.contains("ops:"),
            "{text}"
        );
        assert_eq!(
            text,
            format!("could not connect to 127.0.0.1:{port}: connection refused")
        );
    }
}
