//! The checks, one file per concept of the interface description.
//!
//! Each file returns its checks as declarations ([`CaseCheck`](crate::case::CaseCheck)):
//! id, level, section and quote, what is sent and what must happen, as
//! data that [`crate::case`] renders into the catalogue's texts and runs. Ten
//! checks keep a procedure of their own, each said why beside it: the seven
//! invariants (they judge shrunk property findings, which are no answers),
//! the two over every answer of the run (`answers.rs`: the runner judges
//! them last) and `choices/issued-token` (its second request carries what
//! the first answered). Judgements shared by several files live here: what
//! counts as "accepted", "refused" and "a 417 in the 7.2 shape".
//!
//! MUST checks judge from the raw answer and assume nothing the description
//! leaves open: a refusal may be any 4xx, as long as its body is an error
//! envelope of the documented shape. The spec's own choices (401 for a wrong
//! secret, 404 for an unknown ref, ...) are pinned by SHOULD checks in
//! `choices.rs`, which judge the typed variants the bindings decode.

use crate::catalogue::{Check, Outcome};
use crate::exchange::Exchange;

use crate::target::{Op, Probe, Sent, Target};

pub(crate) mod answers;
mod auth_token;
mod body;
mod choices;
mod connections;
mod envelopes;
mod fields;
mod headers;
mod invariants;
mod near_miss;
mod prefix;
mod project_env;
mod refs;
mod responses;
mod state;

/// Every check, in catalogue order.
pub fn catalogue() -> Vec<Check> {
    let mut all = Vec::new();
    all.extend(responses::checks());
    all.extend(refs::checks());
    all.extend(headers::checks());
    all.extend(auth_token::checks());
    all.extend(project_env::checks());
    all.extend(body::checks());
    all.extend(envelopes::checks());
    all.extend(prefix::checks());
    all.extend(near_miss::checks());
    all.extend(connections::checks());
    all.extend(invariants::checks());
    all.extend(fields::checks());
    all.extend(choices::checks());
    all.extend(state::checks());
    all.extend(answers::checks());
    all
}

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
    problems.extend(crate::envelope::shape_417(raw.json().as_ref()));
    if problems.is_empty() {
        Ok(())
    } else {
        Err(format!("{} ({})", sent.summary(), problems.join("; ")))
    }
}

/// `Ok` when the answer's status is the chosen one.
pub(crate) fn status_is(
    sent: &Sent,
    want: &crate::choices::Chosen<u16>,
    key: &str,
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
/// [`crate::envelope`]), else what is wrong.
pub(crate) fn refused(sent: &Sent) -> Result<(), String> {
    let Some(raw) = sent.raw() else {
        return Err(sent.summary());
    };
    let problems = crate::envelope::refusal_problems(raw);
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

/// The error probes, in words: what [`probe_requests`] sends.
pub(crate) const PROBES: &str = "the error probes: an unknown ref, a wrong secret, no X-Client-Id, X-Project-Env `staging`, a malformed JSON body, an invalid body, no modelUuid, and one valid request of each operation";

/// The requests of the error probes, sent once per run (each in its phase)
/// and shared through the run's context by the checks that judge them
/// (envelopes, choices).
pub fn probe_requests(t: &Target) -> Vec<Probe> {
    let mut reqs = Vec::new();
    if let Some(c) = t.primary(Op::AuthClaims) {
        let v = || t.valid(Op::AuthClaims, c);
        reqs.push(Probe::new(
            "GET unknown ref",
            t.valid_with_ref(Op::AuthClaims, c, UNKNOWN_REF),
        ));
        reqs.push(Probe::new(
            "GET wrong X-Client-Secret",
            v().and_then(|r| r.set_header("X-Client-Secret", WRONG_SECRET)),
        ));
        reqs.push(Probe::new(
            "GET without X-Client-Id",
            v().map(|r| r.remove_header("X-Client-Id")),
        ));
        reqs.push(Probe::new(
            "GET X-Project-Env staging",
            v().and_then(|r| r.set_header("X-Project-Env", "staging")),
        ));
        reqs.push(Probe::new("GET valid", v()));
    }
    if let Some(c) = t.primary(Op::Authorize) {
        let v = || t.valid(Op::Authorize, c);
        reqs.push(Probe::new(
            "POST malformed JSON",
            v().map(|r| r.raw_body(b"{\"email\": ".to_vec())),
        ));
        if let Some(r) = t
            .components(Op::Authorize)
            .into_iter()
            .find_map(|c| t.with_invalid_body(Op::Authorize, c))
        {
            reqs.push(Probe::new("POST invalid body", r));
        }
        reqs.push(Probe::new(
            "POST without modelUuid",
            v().map(|r| r.without_model_uuid(&t.profile.choices.model_uuid().value)),
        ));
        reqs.push(Probe::new(
            "POST wrong X-Client-Secret",
            v().and_then(|r| r.set_header("X-Client-Secret", WRONG_SECRET)),
        ));
        reqs.push(Probe::new("POST valid", v()));
    }
    reqs
}

/// A ref that names no component (and could not be a real one's name).
pub(crate) const UNKNOWN_REF: &str = "conformance-no-such-component-5f1e";
/// A uuid-shaped ref that names no component.
pub(crate) const UNKNOWN_UUID: &str = "00000000-0000-4000-8000-00000000c0de";
/// Values sent where a credential is wrong.
pub(crate) const WRONG_CLIENT_ID: &str = "conformance-unknown-client";
pub(crate) const WRONG_SECRET: &str = "conformance-wrong-secret";
pub(crate) const WRONG_TOKEN: &str = "conformance-wrong-token";

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalogue::{Level, SECTIONS};

    /// The interface description: the copy in `spec/`, which the spec and
    /// every MUST quote are bound to.
    fn description() -> String {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../spec/interface-description.md"
        );
        std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"))
    }

    /// Where the shared original sits beside the workspace, the copy must
    /// not have drifted from it.
    #[test]
    fn the_copy_of_the_description_is_the_original() {
        let original = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../shared/interface-description.md"
        );
        match std::fs::read_to_string(original) {
            Ok(text) => assert!(
                text == description(),
                "spec/interface-description.md differs from {original}: copy it again"
            ),
            // A clone on its own (CI) has no shared original beside it: say
            // so rather than pass in silence.
            Err(e) => eprintln!("not compared: {original}: {e}"),
        }
    }

    #[test]
    fn must_quotes_are_word_for_word_in_the_description() {
        let text = description();
        let misquoted: Vec<String> = catalogue()
            .iter()
            .filter(|c| c.level == Level::Must && !text.contains(c.quote))
            .map(|c| format!("{}: {}", c.id, c.quote))
            .collect();
        assert!(
            misquoted.is_empty(),
            "not in the description:\n{}",
            misquoted.join("\n")
        );
    }

    #[test]
    fn should_quotes_cite_a_choice_or_a_norm() {
        let vague: Vec<String> = catalogue()
            .iter()
            .filter(|c| c.level == Level::Should)
            .filter(|c| !(c.quote.starts_with("spec choice") || c.quote.contains("RFC")))
            .map(|c| format!("{}: {}", c.id, c.quote))
            .collect();
        assert!(
            vague.is_empty(),
            "SHOULD checks that cite nothing:\n{}",
            vague.join("\n")
        );
    }

    #[test]
    fn ids_are_unique_and_sections_known() {
        let all = catalogue();
        for (i, c) in all.iter().enumerate() {
            assert!(all[i + 1..].iter().all(|d| d.id != c.id), "{} twice", c.id);
            assert!(
                SECTIONS.iter().any(|(s, _)| *s == c.section),
                "{}: §{}",
                c.id,
                c.section
            );
        }
    }
}
