//! What the checks' words mean, once: "accepted" (a 2xx), "refused" (the
//! description's error answer, [`conformance_wire::envelope`]), "a 417 in the 7.2
//! shape", "the status the server chose". Declared checks
//! ([`crate::case`]) and procedures ([`crate::checks`]) judge with these,
//! and render their texts from the same constants.

use crate::catalogue::Outcome;
use conformance_wire::exchange::Exchange;
use conformance_wire::request::Sent;

/// What "accepted" means in a check's `expects`.
pub(crate) const ACCEPTED: &str = "a 2xx answer";

/// `Ok` when the answer is 2xx, else the answer in words.
pub(crate) fn accepted(sent: &Sent) -> Result<(), String> {
    match sent.status() {
        Some(s) if (200..300).contains(&s) => Ok(()),
        _ => Err(sent.summary()),
    }
}

/// What a failed validation must be answered with (§7.2 rule 1).
pub(crate) const IS_417: &str =
    "a 417 answer whose body has the 7.2 shape: code an integer, errors an array, status false";

/// `Ok` when the answer is a 417 in the 7.2 shape.
pub(crate) fn is_417(sent: &Sent) -> Result<(), String> {
    let Some(raw) = sent.raw() else {
        return Err(sent.summary());
    };
    let mut problems = Vec::new();
    if raw.status != 417 {
        problems.push(format!("the status is {}, not 417", raw.status));
    }
    problems.extend(conformance_wire::envelope::shape_417(sent.members()));
    if problems.is_empty() {
        Ok(())
    } else {
        Err(format!("{} ({})", sent.summary(), problems.join("; ")))
    }
}

/// `Ok` when the answer's status is the chosen one.
pub(crate) fn status_is(
    sent: &Sent,
    want: &conformance_model::choices::Chosen<u16>,
    key: conformance_model::choices::ChoiceKey,
) -> Result<(), String> {
    match sent.status() {
        Some(s) if s == want.value => Ok(()),
        _ => Err(format!(
            "{} where {} is {}",
            sent.summary(),
            if want.declared {
                format!("the profile's `choices.{key}`")
            } else {
                "ours".to_owned()
            },
            want.value
        )),
    }
}

/// `Ok` when the answer is a refusal of the description (see
/// [`conformance_wire::envelope`]), else what is wrong.
pub(crate) fn refused(sent: &Sent) -> Result<(), String> {
    let Some(problems) = sent.refusal_problems() else {
        return Err(sent.summary());
    };
    if problems.is_empty() {
        Ok(())
    } else {
        Err(format!("{} ({})", sent.summary(), problems.join("; ")))
    }
}

/// `who: why` lines for every failed case, and every exchange, in order.
pub(crate) fn judge_all(cases: Vec<(String, Sent, Result<(), String>)>) -> Outcome {
    let mut failures = Vec::new();
    let mut exchanges = Vec::new();
    for (who, sent, verdict) in cases {
        if let Err(why) = verdict {
            failures.push(format!("{who}: {why}"));
        }
        exchanges.push(sent.exchange);
    }
    Outcome::from_failures(failures, exchanges)
}

/// The exchanges of `sent`, in order.
pub(crate) fn exchanges(sent: &[Sent]) -> Vec<Exchange> {
    sent.iter().map(|s| s.exchange.clone()).collect()
}

/// `\n    reproduce: curl …` when the exchange has its command.
pub(crate) fn reproduce(ex: &Exchange) -> String {
    ex.curl
        .as_ref()
        .map_or(String::new(), |c| format!("\n    reproduce: {c}"))
}
