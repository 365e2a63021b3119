//! Step 5 of a run: the outcomes scrubbed of every secret the run learnt,
//! the checks the server's limits or silence kept from being judged
//! marked so, the run-wide checks judged last over the rest, and each
//! check's result.

use crate::catalogue::{Body, Check, Outcome, Verdict};
use crate::results::CheckResult;
use conformance_model::profile::Profile;

use super::{Collected, Prepared, RunOptions};

/// Step 5: the outcomes scrubbed of every secret the run learnt, checks the
/// server's limits kept from being judged marked so, the run-wide checks
/// judged last over the rest, each check's result.
pub(super) fn collect(
    checks: &[Check],
    mut outcomes: Vec<Outcome>,
    prepared: &Prepared,
    options: &RunOptions,
) -> Collected {
    let target = &prepared.target;
    // A token the server issued is a secret too, wherever it was echoed.
    let scrub = target.state.final_scrubber();
    for o in &mut outcomes {
        for ex in &mut o.exchanges {
            scrub.exchange(ex);
        }
    }
    let answers = target.sender.outcomes.answers();
    let latency = target.sender.latencies.by_operation();
    let (mut limit_answers, throttled) = target.sender.limits_seen();
    for ex in &mut limit_answers {
        scrub.exchange(ex);
    }
    not_judged_when_limited(checks, &mut outcomes, throttled, prepared.limits.rate);
    judge_run_wide(
        checks,
        &mut outcomes,
        &RunWideInput {
            answers: &answers,
            latency: &latency,
            limited: &limit_answers,
        },
        target.profile(),
        options.strict,
    );
    let results = checks
        .iter()
        .zip(&outcomes)
        .map(|(c, o)| {
            let mut r = CheckResult::from_check(
                c,
                c.level_for(target.profile()),
                &o.verdict,
                options.strict,
            );
            r.latency = conformance_wire::latency::of_exchanges(&o.exchanges);
            if r.note.is_none() {
                r.note = o.note.clone();
            }
            r
        })
        .collect();
    Collected {
        outcomes,
        results,
        scrub,
        answers,
        latency,
        throttled,
    }
}

/// A check whose request the server still limited when the runner gave up,
/// or which got no answer within the time-out after every try, is not
/// judged on that exchange: a limit or a late answer is not the server's
/// answer to a rule. Neither a pass nor a failure: not judged, saying why
/// and what would avoid it (what the answers that came showed, where the
/// check had failed on them, is kept in the words).
fn not_judged_when_limited(
    checks: &[Check],
    outcomes: &mut [Outcome],
    throttled: conformance_wire::transport::Throttled,
    rate: Option<f64>,
) {
    for (c, o) in checks.iter().zip(outcomes.iter_mut()) {
        if matches!(c.run.body, Body::RunWide(_)) {
            continue;
        }
        let limited = o
            .exchanges
            .iter()
            .find_map(|ex| ex.limited.as_ref().map(|why| (ex, why)));
        let unanswered = o
            .exchanges
            .iter()
            .find_map(|ex| ex.unanswered.as_ref().map(|why| (ex, why)));
        let why = match (limited, unanswered) {
            (Some((ex, why)), _) => {
                let pace = match (throttled.learnt_rate, rate) {
                    (Some(learnt), _) => format!(
                        "the server allowed about {learnt} requests a second: run with `--rate {}`, or declare `rate: {}` in the profile (`conformance choices` observes it)",
                        suggested_rate(learnt),
                        suggested_rate(learnt)
                    ),
                    (None, Some(r)) => format!(
                        "the run was paced at {r} requests a second: lower `--rate` or the profile's `rate`"
                    ),
                    (None, None) => {
                        "declare the server's pace with `rate:` in the profile, or `--rate N`"
                            .to_owned()
                    }
                };
                format!(
                    "not judged: the server limited `{}` ({why}), so this check could not see the server's answer to its rule; {pace}",
                    ex.label
                )
            }
            (None, Some((ex, why))) => format!(
                "not judged: `{}` got {why}, so this check could not see the server's answer to its rule (a slow server, or a busy machine: a longer `--timeout`, or a lower `--concurrency`)",
                ex.label
            ),
            (None, None) => continue,
        };
        let why = match &o.verdict {
            Verdict::Fail { actual } => {
                format!("{why}\nWhat the answers that came showed: {actual}")
            }
            _ => why,
        };
        o.verdict = Verdict::NotJudged { why };
    }
}

/// A pace a little under what the server allowed.
fn suggested_rate(learnt: f64) -> f64 {
    ((learnt * 0.9).floor()).max(1.0)
}

/// What run-wide checks judge besides the other checks' outcomes.
struct RunWideInput<'a> {
    answers: &'a [conformance_wire::outcomes::Answer],
    latency: &'a [conformance_wire::latency::OperationLatency],
    limited: &'a [conformance_wire::exchange::Exchange],
}

/// The run-wide checks' verdicts, over every other check's outcome (each
/// verdict of the run through the catalogue: `list` shows these checks,
/// `--only` and `--skip` select them).
fn judge_run_wide(
    checks: &[Check],
    outcomes: &mut [Outcome],
    seen: &RunWideInput<'_>,
    profile: &Profile,
    strict: bool,
) {
    let judged: Vec<(usize, Outcome)> = {
        let input = crate::catalogue::RunWide {
            checks,
            outcomes,
            answers: seen.answers,
            latency: seen.latency,
            profile,
            strict,
            limited: seen.limited,
        };
        checks
            .iter()
            .enumerate()
            .filter(|(i, _)| !matches!(input.outcomes[*i].verdict, Verdict::Skip { .. }))
            .filter_map(|(i, c)| match &c.run.body {
                Body::RunWide(judge) => Some((i, judge(&input))),
                _ => None,
            })
            .collect()
    };
    for (i, outcome) in judged {
        outcomes[i] = outcome;
    }
}
