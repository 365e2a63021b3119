//! Latency budgets: a profile may say how fast each operation must answer
//! (`budgets: {auth_claims: 200ms}`). The description sets no speed, so a
//! budget is a MUST of the profile that declares it, like a declared
//! choice. It is judged at the 95th percentile (nearest rank) of every
//! request the run sent to the operation, each counted once: one slow
//! outlier does not fail a run, a slow server does.
//!
//! Run-wide checks ([`RunWide`]): they judge the latency of the whole run.

use std::time::Duration;

use crate::case::{CaseCheck, Expect, Sends};
use crate::catalogue::{Check, Cites, Level, Outcome, Run, RunWide, Subject};
use conformance_model::profile::Profile;
use conformance_wire::latency::operation_key;
use conformance_wire::request::Op;

const QUOTE: Cites =
    Cites::Norm("the profile's latency budget (`budgets:`): the description sets no speed");

pub fn checks() -> Vec<Check> {
    Op::BOTH
        .into_iter()
        .map(|op| {
            let (id, declared): (&'static str, fn(&Profile) -> bool) = match op {
                Op::AuthClaims => ("budgets/auth-claims", |p| declares(p, Op::AuthClaims)),
                Op::Authorize => ("budgets/authorize", |p| declares(p, Op::Authorize)),
            };
            CaseCheck {
                id,
                level: Level::Should,
                section: "8",
                cites: QUOTE,
                title: format!("{} answers within the profile's budget at p95", op.title()),
                sends: Sends::Own {
                    text: format!("nothing of its own: it takes the latency of every request of the run to {}", op.title()),
                    run: Run::run_wide(move |run| within(run, op)).must_where(declared),
                },
                expects: Expect::Own(format!(
                    "where the profile declares `budgets.{}`: the p95 of those answers at most the budget; where it declares none: not applicable",
                    operation_key(op)
                )),
                subject: Subject::op(op),
            }
            .into()
        })
        .collect()
}

/// The profile names a budget for `op` (under the key the latency of `op`
/// is reported by, the one spelling of it).
fn declares(p: &Profile, op: Op) -> bool {
    p.budgets.0.contains_key(operation_key(op))
}

fn within(run: &RunWide<'_>, op: Op) -> Outcome {
    let operation = operation_key(op);
    let Some(limit) = run.profile.budgets.0.get(operation) else {
        return Outcome::not_applicable(
            format!("the profile declares no budget for `{operation}`"),
            Vec::new(),
        );
    };
    let Some(l) = run.latency.iter().find(|l| l.operation == operation) else {
        return Outcome::skip(format!(
            "no `{operation}` request was sent: nothing to judge the budget by"
        ));
    };
    if l.stats.p95_ms > limit.as_secs_f64() * 1000.0 {
        return Outcome::fail(
            format!(
                "p95 {} ms, over the budget of {}: {}",
                l.stats.p95_ms,
                millis(*limit),
                l.stats.line()
            ),
            Vec::new(),
        );
    }
    Outcome::pass(Vec::new()).noted(Some(l.stats.line()))
}

/// `200 ms`, `1500 ms`, `0.5 ms`.
fn millis(d: Duration) -> String {
    let ms = (d.as_secs_f64() * 10_000.0).round() / 10.0;
    format!("{ms} ms")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalogue::Verdict;
    use conformance_wire::latency::{OperationLatency, Stats};

    fn profile(budgets: &str) -> Profile {
        let text = format!(
            "base_url: http://127.0.0.1:1\nclient_id: x\nclient_secret: y\ncomponents:\n  - {{name: a, tag: a, uuid: 0b6c1c1e-1d3a-4c55-9a8e-6f1f2f0f5c11}}\n{budgets}"
        );
        Profile::from_yaml_str(&text, "p.yaml", &|_| None).expect("profile")
    }

    #[test]
    fn a_budget_fails_on_p95_not_on_one_outlier() {
        let mut samples: Vec<Duration> = (0..99).map(|_| Duration::from_millis(10)).collect();
        samples.push(Duration::from_secs(3));
        let stats = Stats::of(&samples).expect("stats");
        let latency = [OperationLatency {
            operation: "auth_claims".into(),
            stats,
        }];
        let judge = |p: &Profile, op| {
            let run = RunWide {
                checks: &[],
                outcomes: &[],
                answers: &[],
                latency: &latency,
                profile: p,
                strict: false,
                limited: &[],
            };
            within(&run, op).verdict
        };
        let roomy = profile("budgets:\n  auth_claims: 200ms\n  authorize: 500ms\n");
        assert_eq!(judge(&roomy, Op::AuthClaims), Verdict::Pass);
        assert!(matches!(judge(&roomy, Op::Authorize), Verdict::Skip { .. }));
        let tight = profile("budgets:\n  auth_claims: 5ms\n");
        let v = judge(&tight, Op::AuthClaims);
        assert!(
            matches!(&v, Verdict::Fail { actual } if actual.starts_with("p95 10 ms")),
            "{v:?}"
        );
        assert!(matches!(
            judge(&tight, Op::Authorize),
            Verdict::NotApplicable { .. }
        ));
        // A declared budget is a MUST of the profile; none, a SHOULD.
        let check = &checks()[0];
        assert_eq!(check.level_for(&tight), Level::Must);
        assert_eq!(check.level_for(&profile("")), Level::Should);
    }
}
