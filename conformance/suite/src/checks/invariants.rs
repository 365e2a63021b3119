//! §1, §7, §7.1, §7.2: what every answer to a generated request must keep,
//! whatever was sent (`generate::invariants`). One check per invariant; it
//! judges every edge case and every property run of `generate`, and a
//! failure names the request as a `curl` command. Generated cases are not
//! snapshotted one by one: the invariants are the test.
//!
//! They stay procedures, not declarations ([`crate::case`]): besides the answers
//! to the edge cases they judge the property runs' findings, shrunk bodies
//! that are no answer of this run. Their texts come from their entry of
//! `generate::invariants::ALL` and the one [`SENDS`].

use crate::context::RunContext;
use std::sync::Arc;

use crate::catalogue::{Check, Outcome, Run, Subject};
use crate::generate::{Judged, describe, invariants, listed};
use conformance_wire::phase::Phase;

/// What every invariant check sends.
const SENDS: &str = "every generated request: near misses of each credential, X-Project-Env and ref; odd refs; whole bodies that are not a JSON object of fields; JSON media type spellings; every single change of every field of each valid_body; and bodies of several changes drawn from --seed, --cases per component and operation";

pub fn checks() -> Vec<Check> {
    invariants::ALL
        .iter()
        .enumerate()
        .map(|(index, inv)| Check {
            id: inv.id,
            level: inv.level,
            section: inv.section,
            quote: inv.quote,
            title: inv.title.into(),
            sends: SENDS.into(),
            expects: inv.expects.into(),
            run: Run::procedure(Phase::Judge, move |t| judge(t, index))
                .reads_generated(Judged::everything()),
            subject: Subject::NONE,
        })
        .collect()
}

async fn judge(t: Arc<RunContext>, index: usize) -> Outcome {
    let inv = &invariants::ALL[index];
    let generated = t.generated();
    // A target that does not answer a valid request fails: a skip here
    // would let a run go green on a server too slow to judge.
    if let Some(why) = &generated.not_run {
        return Outcome::fail(why.clone(), Vec::new());
    }
    let mut failures: Vec<String> = generated
        .edges
        .iter()
        .filter_map(|case| (inv.judge)(case.family, &case.sent).map(|why| describe(case, &why)))
        .collect();
    let seed = t.generation().seed;
    failures.extend(
        generated
            .findings
            .iter()
            .filter_map(|f| f.failure(inv.id, seed)),
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
    Outcome::from_failures(listed(failures), Vec::new())
}
