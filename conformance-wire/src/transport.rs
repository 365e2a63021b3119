//! How requests travel: the client's limits (time-out, body cap,
//! concurrency, rate, retries), the pacing of request starts, the retry of
//! a 429/503 with `Retry-After`, and transport errors in words.

use std::time::Duration;

use component_auth_bindings::Error;

use crate::request::Typed;

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

/// Spaces request starts `1/rate` seconds apart, across all tasks.
#[derive(Debug)]
pub struct Pacer {
    /// Ticks `1/rate` apart; a tick missed (no request was waiting) is not
    /// made up with a burst.
    ticks: tokio::sync::Mutex<tokio::time::Interval>,
}

impl Pacer {
    /// `None` for a rate that paces nothing (not finite, not positive).
    /// Called inside the runtime (tokio's timer).
    pub fn new(rate: f64) -> Option<Self> {
        (rate.is_finite() && rate > 0.0).then(|| {
            let mut ticks = tokio::time::interval(Duration::from_secs_f64(1.0 / rate));
            ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            Pacer {
                ticks: tokio::sync::Mutex::new(ticks),
            }
        })
    }

    /// Waits for the next start: requests start in turn, `1/rate` apart.
    pub async fn wait(&self) {
        self.ticks.lock().await.tick().await;
    }
}

/// The seconds of a `Retry-After` on a 429 or 503 (the delay form; a date
/// is not waited for).
pub fn retry_after(typed: &Typed) -> Option<Duration> {
    let raw = typed.raw();
    if raw.status != 429 && raw.status != 503 {
        return None;
    }
    let secs: u64 = raw.header("retry-after")?.trim().parse().ok()?;
    Some(Duration::from_secs(secs)).filter(|d| *d <= MAX_RETRY_AFTER)
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
