//! A status the server chose otherwise than the profile records (or than
//! ours, where it records none), as the check of that choice saw it: one
//! changed choice is one cause, however many checks and snapshots show it.

use crate::catalogue::{Check, Outcome, Verdict};
pub use crate::results::ChangedChoice;
use crate::results::{CheckResult, Status};
use conformance_model::profile::Profile;

/// The changed status choices of a run: the checks of a status choice that
/// failed or warned, each with the first status answered otherwise.
pub fn changed(
    checks: &[Check],
    outcomes: &[Outcome],
    results: &[CheckResult],
    profile: &Profile,
) -> Vec<ChangedChoice> {
    let mut out: Vec<ChangedChoice> = Vec::new();
    for ((c, o), r) in checks.iter().zip(outcomes).zip(results) {
        let Some(key) = c.run.chosen_by() else {
            continue;
        };
        if !key.is_status()
            || !matches!(r.status, Status::Failed | Status::Warned)
            || !matches!(o.verdict, Verdict::Fail { .. })
        {
            continue;
        }
        let recorded = profile.choices.written(key);
        let Ok(want) = recorded.value.parse::<u16>() else {
            continue;
        };
        let seen = o
            .exchanges
            .iter()
            .filter_map(|e| e.response.as_ref().map(|r| r.status))
            .find(|s| *s != want && s / 100 == want / 100);
        if let Some(seen) = seen {
            out.push(ChangedChoice {
                key,
                check: r.id.clone(),
                recorded: recorded.value,
                declared: recorded.declared,
                seen: seen.to_string(),
            });
        }
    }
    // Valid requests refused with a status: a refusal answered with it too
    // is that refusal, not a choice (a server that answers 404 to every
    // path it does not serve changed no choice).
    let refused_valid: Vec<u16> = checks
        .iter()
        .zip(outcomes)
        .zip(results)
        .filter(|((c, _), r)| {
            c.run.chosen_by().is_some_and(|k| k.is_success_status())
                && matches!(r.status, Status::Failed | Status::Warned)
        })
        .flat_map(|((_, o), _)| {
            o.exchanges
                .iter()
                .filter_map(|e| e.response.as_ref().map(|r| r.status))
                .filter(|s| !(200..300).contains(s))
        })
        .collect();
    out.retain(|c| !refused_valid.iter().any(|s| s.to_string() == c.seen));
    out
}
