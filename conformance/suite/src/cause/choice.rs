//! A status the server chose otherwise than the profile records (or than
//! ours, where it records none), as the check of that choice saw it: one
//! changed choice is one cause, however many checks and snapshots show it.

use serde::Serialize;

use crate::catalogue::{Check, Outcome, Verdict};
use crate::results::{CheckResult, Status};
use conformance_model::choices::ChoiceKey;
use conformance_model::profile::Profile;

/// A status choice whose check saw another status of the same class (a
/// refusal's 4xx for a 4xx, a success's 2xx for a 2xx): a choice, not a
/// broken rule. A refusal answered 200 is no choice of the server's.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ChangedChoice {
    pub key: ChoiceKey,
    /// The id of the check that judges the choice.
    pub check: String,
    /// The status the profile records, or ours.
    pub recorded: String,
    /// The profile declares it (else `recorded` is ours).
    pub declared: bool,
    /// The status the server answered instead.
    pub seen: String,
}

impl ChangedChoice {
    /// The choice is a success's status (not a refusal's).
    pub fn is_success(&self) -> bool {
        self.recorded.starts_with('2')
    }

    /// What happened and what to do, in one sentence.
    pub fn says(&self) -> String {
        if self.declared {
            format!(
                "the server now answers {} where the profile records {}: update `choices.{}`",
                self.seen, self.recorded, self.key
            )
        } else {
            format!(
                "the server answers {} where ours is {} (the profile declares no `choices.{}`): declare `choices.{}: {}`",
                self.seen, self.recorded, self.key, self.key, self.seen
            )
        }
    }
}

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
            matches!(
                c.run.chosen_by(),
                Some(ChoiceKey::AuthClaimsSuccess | ChoiceKey::AuthorizeSuccess)
            ) && matches!(r.status, Status::Failed | Status::Warned)
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
