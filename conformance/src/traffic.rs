//! Live and recorded traffic judged by the description's rules, both sides
//! of each exchange (`traffic-rules`): `conformance proxy` forwards every
//! request to the profile's server and judges what passes (`proxy`),
//! `conformance audit` judges a HAR file or a stream of exchanges
//! (`audit`). What the rules know of the server comes from the profile
//! ([`Known`]): its components, which require auth, their declared fields,
//! where `modelUuid` travels.

use std::sync::Mutex;

use traffic_rules::{Answer, Knows, Request, Tally};

pub mod audit;
mod bodies;
mod headers;
mod known;
mod proxy;
mod upstream;

pub use audit::{Input, audit};
pub use known::Known;
pub use proxy::{ProxyOptions, RunningProxy, start_proxy};

/// The largest body the proxy carries either way (the runner's own cap),
/// and the most of one body `audit` reads.
pub const MAX_BODY: usize = traffic_rules::capped::MAX_BODY;

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

/// An answer read as its client reads it: a compressed body decoded (within
/// the cap; one that cannot be is judged as it came).
pub(crate) fn decoded(mut answer: Answer) -> Answer {
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

pub(crate) fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}
