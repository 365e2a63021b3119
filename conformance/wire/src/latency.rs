//! How long the target took to answer: per check (its exchanges) and per
//! operation (every request of the run, each once), as median, p95 and max.
//!
//! Latency is a fact of one run, not of the server's behaviour: it never
//! enters an exchange's record or a snapshot ([`Took`] is not serialized
//! and does not take part in equality), and it is the only part of the JSON
//! and HTML reports that differs between two runs of an unchanged server.

use std::sync::Mutex;
use std::time::Duration;

use serde::{Deserialize, Serialize};

pub use crate::exchange::Took;
use crate::request::Op;

/// The key of an operation in reports and in a profile's `budgets:`.
pub fn operation_key(op: Op) -> &'static str {
    match op {
        Op::AuthClaims => "auth_claims",
        Op::Authorize => "authorize",
    }
}

/// Every request the run sent, by operation, each once (a probe shared by
/// several checks counts once here).
#[derive(Debug, Default)]
pub struct Log {
    taken: Mutex<Vec<(Op, Duration)>>,
}

impl Log {
    pub fn record(&self, op: Op, took: Duration) {
        if let Ok(mut taken) = self.taken.lock() {
            taken.push((op, took));
        }
    }

    /// Median, p95 and max of each operation that was sent, in the order
    /// of [`Op::BOTH`].
    pub fn by_operation(&self) -> Vec<OperationLatency> {
        let taken = self.taken.lock().map(|t| t.clone()).unwrap_or_default();
        Op::BOTH
            .iter()
            .filter_map(|op| {
                let of_op: Vec<Duration> = taken
                    .iter()
                    .filter(|(o, _)| o == op)
                    .map(|(_, d)| *d)
                    .collect();
                Stats::of(&of_op).map(|stats| OperationLatency {
                    operation: operation_key(*op).to_owned(),
                    stats,
                })
            })
            .collect()
    }
}

/// Median, 95th percentile (nearest rank) and maximum, in milliseconds
/// rounded to 0.1 ms.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Stats {
    pub requests: usize,
    pub median_ms: f64,
    pub p95_ms: f64,
    pub max_ms: f64,
}

impl Stats {
    /// `None` for no samples.
    pub fn of(samples: &[Duration]) -> Option<Self> {
        if samples.is_empty() {
            return None;
        }
        let mut sorted = samples.to_vec();
        sorted.sort_unstable();
        let n = sorted.len();
        let ms = |d: Duration| (d.as_secs_f64() * 10_000.0).round() / 10.0;
        Some(Self {
            requests: n,
            median_ms: ms(sorted[nearest_rank(n, 50)]),
            p95_ms: ms(sorted[nearest_rank(n, 95)]),
            max_ms: ms(sorted[n - 1]),
        })
    }

    /// `median 3.1 ms, p95 8.0 ms, max 12.4 ms over 40 requests`.
    pub fn line(&self) -> String {
        format!(
            "median {} ms, p95 {} ms, max {} ms over {} requests",
            self.median_ms, self.p95_ms, self.max_ms, self.requests
        )
    }
}

/// The index of the `pct`th percentile of `n` sorted samples, by the
/// nearest-rank method (no interpolation: always a value that was seen).
fn nearest_rank(n: usize, pct: usize) -> usize {
    (n * pct).div_ceil(100).clamp(1, n) - 1
}

/// One operation's latency over the run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OperationLatency {
    /// `auth_claims` or `authorize`.
    pub operation: String,
    #[serde(flatten)]
    pub stats: Stats,
}

/// The latency of a check's own exchanges (those that were sent).
pub fn of_exchanges(exchanges: &[crate::exchange::Exchange]) -> Option<Stats> {
    let samples: Vec<Duration> = exchanges.iter().filter_map(|e| e.latency.0).collect();
    Stats::of(&samples)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_are_nearest_rank() {
        let samples: Vec<Duration> = (1..=100).map(Duration::from_millis).collect();
        let s = Stats::of(&samples).expect("stats");
        assert_eq!((s.median_ms, s.p95_ms, s.max_ms), (50.0, 95.0, 100.0));
        let one = Stats::of(&[Duration::from_micros(1234)]).expect("stats");
        assert_eq!((one.median_ms, one.p95_ms, one.max_ms), (1.2, 1.2, 1.2));
        // 20 samples: p95 is the 19th, not the slowest.
        let twenty: Vec<Duration> = (1..=20).map(Duration::from_millis).collect();
        assert_eq!(Stats::of(&twenty).expect("stats").p95_ms, 19.0);
        assert!(Stats::of(&[]).is_none());
    }

    #[test]
    fn latency_is_no_part_of_an_exchange() {
        assert_eq!(Took(Some(Duration::from_secs(1))), Took(None));
    }
}
