//! §1, §7, §7.1, §7.2: what every answer to a generated request must keep,
//! whatever was sent (`generate::invariants` judges it). One check per
//! invariant; it judges every edge case and every property run of
//! `generate`, and a failure names the request as a `curl` command.
//! Generated cases are not snapshotted one by one: the invariants are the
//! test.
//!
//! Each has a run of its own ([`Sends::Own`]): besides the answers to the
//! edge cases it judges the property runs' findings, shrunk bodies that are
//! no answer of this run.

use crate::context::RunContext;
use conformance_requirements as requirement;
use std::sync::Arc;

use crate::case::{CaseCheck, Expect, Sends};
use crate::catalogue::{Check, Cites, Level, Outcome, Run, Subject};
use crate::generate::bodies::{NOT_JUDGED, not_judged};
use crate::generate::invariants::{self, Invariant};
use crate::generate::{Judged, describe, listed};
use conformance_wire::phase::Phase;

/// What every invariant check sends.
const SENDS: &str = "every generated request: near misses of each credential, X-Project-Env and ref; odd refs; whole bodies that are not a JSON object of fields; JSON media type spellings; every single change of every field of each valid_body; and bodies of several changes drawn from --seed, --cases per component and operation";

pub fn checks() -> Vec<Check> {
    vec![
        CaseCheck {
            id: "invariants/responses-are-json",
            level: Level::Must,
            section: "1",
            cites: Cites::Requirement(&requirement::RESPONSES_JSON),
            title: "every answer to a generated request is JSON".into(),
            sends: judged(&invariants::RESPONSES_ARE_JSON),
            expects: Expect::Own("an answer whose body parses as JSON".into()),
            subject: Subject::NONE,
        }
        .into(),
        CaseCheck {
            id: "invariants/errors-are-json",
            level: Level::Must,
            section: "7",
            cites: Cites::Requirement(&requirement::ERRORS_ARE_JSON),
            title: "every error answer to a generated request is JSON, and says so".into(),
            sends: judged(&invariants::ERRORS_ARE_JSON),
            expects: Expect::Own("on a 4xx or 5xx: `Content-Type: application/json` (parameters allowed) and a JSON body".into()),
            subject: Subject::NONE,
        }
        .into(),
        CaseCheck {
            id: "invariants/errors-carry-project-uuid",
            level: Level::Must,
            section: "7",
            cites: Cites::Requirement(&requirement::ERRORS_CARRY_HEADERS),
            title: "every error answer to a generated request carries X-Project-Uuid, a uuid".into(),
            sends: judged(&invariants::ERRORS_CARRY_PROJECT_UUID),
            expects: Expect::Own("on a 4xx or 5xx: an `X-Project-Uuid` header whose value is a uuid".into()),
            subject: Subject::NONE,
        }
        .into(),
        CaseCheck {
            id: "invariants/400-shape",
            level: Level::Must,
            section: "7.1",
            cites: Cites::Requirement(&requirement::SHAPE_400),
            title: "every 400 answer to a generated request has the 7.1 shape".into(),
            sends: judged(&invariants::SHAPE_400),
            expects: Expect::Own("on a 400: code (integer), message (string), request_id (string), status false".into()),
            subject: Subject::NONE,
        }
        .into(),
        CaseCheck {
            id: "invariants/417-shape",
            level: Level::Must,
            section: "7.2",
            cites: Cites::Requirement(&requirement::VALIDATION_IS_417),
            title: "every 417 answer to a generated request has the 7.2 shape".into(),
            sends: judged(&invariants::SHAPE_417),
            expects: Expect::Own("on a 417: code (integer), errors (array), status false".into()),
            subject: Subject::NONE,
        }
        .into(),
        CaseCheck {
            id: "invariants/validation-is-417",
            level: Level::Must,
            section: "7.2",
            cites: Cites::Requirement(&requirement::VALIDATION_IS_417),
            title: "a body that differs from valid_body only in its fields is served or fails validation, never 400".into(),
            sends: judged(&invariants::VALIDATION_IS_417),
            expects: Expect::Own("a JSON object body with other field values, fields left out or fields added: a 2xx, a 417, or another refusal, never 400".into()),
            subject: Subject::NONE,
        }
        .into(),
        CaseCheck {
            id: "invariants/no-server-errors",
            level: Level::Should,
            section: "7",
            cites: Cites::Norm("RFC 9110 section 15.6: a 5xx says the server failed; the description names no 5xx, and a request it can refuse is answered 4xx"),
            title: "no generated request makes the server fail (5xx)".into(),
            sends: judged(&invariants::NO_SERVER_ERRORS),
            expects: Expect::Own("no 5xx answer (a MUST under --strict)".into()),
            subject: Subject::NONE,
        }
        .into(),
    ]
}

/// Every generated request, judged by `inv` once the run has sent them.
fn judged(inv: &'static Invariant) -> Sends {
    Sends::Own {
        text: SENDS.into(),
        run: Run::procedure(Phase::Judge, move |t| judge(t, inv))
            .reads_generated(Judged::everything()),
    }
}

async fn judge(t: Arc<RunContext>, inv: &'static Invariant) -> Outcome {
    let generated = t.generated();
    // A target that does not answer a valid request fails: a skip here
    // would let a run go green on a server too slow to judge.
    if let Some(outcome) = Outcome::when_not_generated(generated) {
        return outcome;
    }
    // A case whose answer never came within what the run waits is not
    // judged; the rest are.
    let unjudged = generated
        .edges
        .iter()
        .filter_map(|case| not_judged(&case.sent))
        .chain(generated.findings.iter().filter_map(|f| {
            f.broken
                .iter()
                .find(|(id, _)| *id == NOT_JUDGED)
                .map(|(_, why)| why.clone())
        }))
        .collect::<Vec<_>>();
    let mut failures: Vec<String> = generated
        .edges
        .iter()
        .filter(|case| not_judged(&case.sent).is_none())
        .filter_map(|case| (inv.judge)(case.family, &case.sent).map(|why| describe(case, &why)))
        .collect();
    let seed = t.generation().seed;
    failures.extend(
        generated
            .findings
            .iter()
            .filter_map(|f| f.failure(inv.name, seed)),
    );
    // A redirect breaks no invariant of an answer, being none: it fails
    // every invariant check (`answers/no-redirects` judges the exchanges
    // checks keep; generated cases are not among them).
    if failures.is_empty() {
        if let Some(redirect) = generated
            .edges
            .iter()
            .find_map(|case| case.sent.exchange.redirect())
        {
            failures.push(redirect);
        }
    }
    if failures.is_empty() {
        if let Some(first) = unjudged.first() {
            return Outcome::not_judged(
                format!(
                    "not judged: {} generated request{} got no answer the run could judge, so this check could not see every answer; the first: {first}",
                    unjudged.len(),
                    if unjudged.len() == 1 { "" } else { "s" }
                ),
                Vec::new(),
            );
        }
    }
    Outcome::from_failures(listed(failures), Vec::new())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One check per invariant, in the order of `generate::invariants::ALL`,
    /// each recording what a case broke under its id's last segment.
    #[test]
    fn each_invariant_is_one_check() {
        let ids: Vec<&str> = checks().iter().map(|c| c.id).collect();
        let names: Vec<String> = invariants::ALL
            .iter()
            .map(|inv| format!("invariants/{}", inv.name))
            .collect();
        assert_eq!(ids, names);
    }
}
