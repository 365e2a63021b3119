//! What a run says of the choices its profile left undeclared: the
//! `choices:` lines the server's answers show, and where failures may
//! come from a choice no run can find unaided.

use crate::catalogue::{Check, Level, Outcome};
use crate::needs::Need;
use crate::results::{CheckResult, Status};
use conformance_model::choices::ChoiceKey;
use conformance_model::profile::Profile;

/// The choices the profile leaves undeclared that this run saw the server
/// make otherwise than ours, as `key: value` lines of a `choices:` block:
/// where modelUuid was found, and for each check of an undeclared choice
/// that warned, the value its answers show (a status as answered; a yes/no
/// or a shape, the other one than ours).
pub(super) fn undeclared(
    checks: &[Check],
    outcomes: &[Outcome],
    results: &[CheckResult],
    profile: &Profile,
    observed_model_uuid: Option<&conformance_model::choices::ModelUuidAt>,
) -> Vec<String> {
    let choices = &profile.choices;
    let mut lines: Vec<(ChoiceKey, String)> = Vec::new();
    if let (false, Some(at)) = (choices.declares(ChoiceKey::ModelUuid), observed_model_uuid) {
        lines.push((ChoiceKey::ModelUuid, format!("model_uuid: \"{at}\"")));
    }
    for ((c, o), r) in checks.iter().zip(outcomes).zip(results) {
        let Some(key) = c.run.chosen_by() else {
            continue;
        };
        let warned =
            r.level == Level::Should && matches!(r.status, Status::Warned | Status::Failed);
        if !warned || choices.declares(key) || lines.iter().any(|(k, _)| *k == key) {
            continue;
        }
        // Undeclared, the choice is ours: the row proposes the status
        // answered, or the other value of a two-valued set.
        let answered = o
            .exchanges
            .iter()
            .find_map(|e| e.response.as_ref().map(|r| r.status));
        let value = key.otherwise(answered);
        lines.push((
            key,
            match value {
                Some(v) => format!("{key}: {v}"),
                None => format!("# {key}: (the run cannot tell: see `conformance choices`)"),
            },
        ));
    }
    lines.into_iter().map(|(_, line)| line).collect()
}

/// Where failures may come from a choice the profile left undeclared: the
/// place of `modelUuid`, which no run can find unaided (`conformance
/// choices` probes for it).
pub(super) fn hints(
    checks: &[Check],
    results: &[CheckResult],
    profile: &Profile,
    observed_model_uuid: Option<&conformance_model::choices::ModelUuidAt>,
) -> Vec<String> {
    if profile.choices.declares(ChoiceKey::ModelUuid) || observed_model_uuid.is_some() {
        return Vec::new();
    }
    let sends_authorize = |c: &Check| {
        c.run.needed().iter().any(|n| {
            matches!(
                n,
                Need::Authorize
                    | Need::InvalidBody
                    | Need::RequiresAuthWithAuthorize
                    | Need::TokenWithAuthorize
                    | Need::NoAuthWithAuthorize
            )
        })
    };
    let failed: Vec<bool> = checks
        .iter()
        .zip(results)
        .filter(|(_, r)| r.status == Status::Failed)
        .map(|(c, _)| sends_authorize(c))
        .collect();
    let authorize = failed.iter().filter(|&&a| a).count();
    if authorize == 0 {
        return Vec::new();
    }
    vec![format!(
        "{authorize} of the {} failed checks send Authorize, with modelUuid in the query string (spec/README.md's choice; the profile declares no `choices.model_uuid`, and no place the run tried was served). If the server reads it elsewhere, declare where (`choices.model_uuid: \"header:NAME\"`, `\"body:FIELD\"`, `\"query:NAME\"`) and run again.",
        failed.len()
    )]
}
