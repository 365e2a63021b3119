//! The pace a server allows this client, where it limits it: the `rate`
//! a profile declares so that a run is not limited, or seldom.

use std::sync::Arc;

use crate::runner::{RunError, RunOptions};
use conformance_wire::request::{Op, Probe};
use conformance_wire::target::Target;

/// How many requests sent as fast as the run's concurrency allows, at most,
/// to see whether the server limits them.
const PACE_PROBES: usize = 400;

/// The pace a server allows this client, where it limits it: valid Auth
/// Claims (which change nothing) as fast as the concurrency allows, up to
/// 400 requests or two seconds, each limit answer honoured as a run
/// honours it. `None` when nothing was limited. The rate is a little under
/// what the server stated (`RateLimit-Policy`) or, where it stated none,
/// the pace the run fell to: a run paced at it is not limited, or seldom.
pub async fn pace(
    profile: conformance_model::profile::Profile,
    options: &RunOptions,
) -> Result<Option<f64>, RunError> {
    let mut limits = options.limits;
    limits.rate = None;
    let target =
        Arc::new(Target::new(profile, limits, options.connect.clone()).map_err(RunError::Client)?);
    let Some(c) = target.requests.primary(Op::AuthClaims) else {
        return Ok(None);
    };
    let began = std::time::Instant::now();
    let batch = limits.concurrency.max(1);
    let mut sent = 0;
    while sent < PACE_PROBES && began.elapsed() < std::time::Duration::from_secs(2) {
        let probes = (0..batch)
            .map(|_| Probe::new("pace", target.requests.valid(Op::AuthClaims, c)))
            .collect();
        let answers = target.send_all(probes).await;
        sent += batch;
        // A server that does not answer is for `observe` to say.
        if answers.iter().all(|s| s.status().is_none()) {
            return Ok(None);
        }
    }
    let (_, throttled) = target.sender.limits_seen();
    Ok((throttled.limited > 0)
        .then_some(throttled.learnt_rate)
        .flatten()
        .map(|r| r.floor().max(1.0)))
}
