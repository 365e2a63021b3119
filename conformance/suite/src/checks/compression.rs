//! §1 and §7 for a client that accepts compression, as real clients do:
//! browsers, curl `--compressed` and most HTTP libraries send
//! `Accept-Encoding`, and a server's compression layer (a framework's
//! plugin, a proxy) is where an answer can lose what the interface
//! requires. A probe set, not every request: a valid Auth Claims, a
//! refusal of it, a valid Authorize and (where the profile has one) an
//! Authorize whose body fails validation, each sent with
//! `Accept-Encoding: gzip, deflate, br`, and the two reads also without.
//! The runner decodes a compressed answer within the body cap before
//! anything is judged ([`conformance_wire::encoding`]): a body that cannot
//! be decoded, or decodes past the cap, is no readable answer.

use crate::case::{CaseCheck, Expect, Sends};
use crate::catalogue::{Check, Cites, Level, Outcome, Run, Subject};
use crate::context::RunContext;
use crate::judge::reproduce;
use conformance_requirements as requirement;
use conformance_wire::encoding::ACCEPT_ENCODING;
use conformance_wire::request::{Op, Probe, Req, Sent};
use conformance_wire::valid::ValidRequests;

pub fn checks() -> Vec<Check> {
    vec![CaseCheck {
        id: "compression/accept-encoding",
        level: Level::Must,
        section: "7",
        cites: Cites::Requirement(&requirement::ERROR_ENVELOPE),
        title: "answers to a client that accepts compression are the same answers, JSON once decoded".into(),
        sends: Sends::Own {
            text: format!(
                "with `Accept-Encoding: {ACCEPT_ENCODING}`: a valid Auth Claims and the same without X-Client-Secret (each also without Accept-Encoding), a valid Authorize, and an Authorize carrying `invalid_body` where the profile has one"
            ),
            run: Run::planned(plan, judge),
        },
        expects: Expect::Own("each answer readable (a coding it offered, decoded within the body cap), its body JSON; an error answer with Content-Type application/json and X-Project-Uuid, in the 7.1 shape on 400 and the 7.2 shape on 417; the same status with and without Accept-Encoding".into()),
        subject: Subject::NONE,
    }
    .into()]
}

/// What one probe is, in the order [`plan`] makes them.
const LABELS: [&str; 6] = [
    "Auth Claims, accepting compression",
    "Auth Claims",
    "Auth Claims without X-Client-Secret, accepting compression",
    "Auth Claims without X-Client-Secret",
    "Authorize, accepting compression",
    "Authorize with invalid_body, accepting compression",
];

fn plan(t: &ValidRequests) -> Vec<Probe> {
    let compressed = |req: Result<Req, _>| {
        req.and_then(|r: Req| r.set_header("Accept-Encoding", ACCEPT_ENCODING))
    };
    let mut probes = Vec::new();
    if let Some(c) = t.primary(Op::AuthClaims) {
        let valid = || t.valid(Op::AuthClaims, c);
        let refused = || valid().map(|r| r.remove_header("X-Client-Secret"));
        probes.push(Probe::new(LABELS[0], compressed(valid())));
        probes.push(Probe::new(LABELS[1], valid()));
        probes.push(Probe::new(LABELS[2], compressed(refused())));
        probes.push(Probe::new(LABELS[3], refused()));
    }
    if let Some(c) = t.primary(Op::Authorize) {
        probes.push(Probe::new(LABELS[4], compressed(t.valid(Op::Authorize, c))));
        let invalid = t
            .components(Op::Authorize)
            .into_iter()
            .find_map(|c| t.with_invalid_body(Op::Authorize, c));
        if let Some(req) = invalid {
            probes.push(Probe::new(LABELS[5], compressed(req)));
        }
    }
    probes
}

fn judge(_: &RunContext, sent: Vec<Sent>) -> Outcome {
    let mut failures = Vec::new();
    let accepting = |s: &Sent| s.exchange.label.ends_with("accepting compression");
    for (i, s) in sent.iter().enumerate() {
        if !accepting(s) {
            continue;
        }
        let ex = &s.exchange;
        let Some(r) = &ex.response else {
            failures.push(format!("{}: {}{}", ex.label, ex.summary(), reproduce(ex)));
            continue;
        };
        let mut problems = Vec::new();
        if r.status >= 400 {
            problems.extend(super::answers::problems(ex));
        } else if !r.is_json {
            problems.push("the body is not JSON once decoded".to_owned());
        }
        // Its twin, sent without Accept-Encoding, is the next probe.
        if let Some(twin) = sent.get(i + 1).filter(|t| !accepting(t)) {
            if let (a, Some(b)) = (r.status, twin.status()) {
                if a != b {
                    problems.push(format!(
                        "HTTP {a} with Accept-Encoding, HTTP {b} without: compression changed the answer"
                    ));
                }
            }
        }
        if !problems.is_empty() {
            failures.push(format!(
                "{}: {}\n    {}{}",
                ex.label,
                problems.join("; "),
                ex.summary(),
                reproduce(ex)
            ));
        }
    }
    let exchanges = sent.into_iter().map(|s| s.exchange).collect();
    Outcome::from_failures(failures, exchanges)
}
