//! §2 and §7 rule 1 against the component's auth settings as its profile
//! declares them (`fields:`, [`conformance_model::fields`]): every generated body has a
//! verdict known in advance ([`crate::generate::oracle`]). A body that
//! breaks a declared setting fails validation, so it is answered 417 in
//! the 7.2 shape; one that keeps every setting does not fail validation,
//! so it is not answered 417; a field the settings do not define is the
//! profile's choice `unknown_fields`.
//!
//! Without a declaration these checks cannot run: they are then SHOULD
//! checks skipped (no gap in a MUST run), and `check-profile` says what
//! declaring the fields adds.
//!
//! Each has a run of its own ([`Sends::Own`]): they judge the property
//! runs' shrunk findings, which are no answers of this run.

use crate::generate::bodies::{NOT_JUDGED, not_judged};
use conformance_requirements as requirement;
use std::sync::Arc;

use crate::case::{CaseCheck, Expect, Sends};
use crate::catalogue::{Check, Cites, Level, Outcome, Run, Subject};
use crate::context::RunContext;
use crate::generate::{Family, Judged, describe, listed, oracle};
use crate::needs::Need;
use conformance_model::choices::ChoiceKey;
use conformance_wire::phase::Phase;

/// What the fields checks send.
const SENDS: &str = "bodies generated from each declared component's `fields` and `valid_body` (every bound from both sides, in and out of `enum` and `pattern`, each other JSON type, null, a field left out or under another letter case, an unknown field added), several changes at once, drawn from --seed, --cases per component and operation (Auth Claims only where `choices.get_body_validated` is declared true); a failing body shrunk to a minimal one";

pub fn checks() -> Vec<Check> {
    let check = |id: &'static str,
                 level: Level,
                 section: &'static str,
                 cites: Cites,
                 title: &str,
                 expects: &str,
                 finding: &'static str| {
        let run = Run::procedure(Phase::Judge, move |t| judge(t, finding))
            .needs(&[Need::DeclaredFields])
            .reads_generated(Judged::properties().union(&Judged::family(Family::Fields)));
        CaseCheck {
            id,
            level,
            section,
            cites,
            title: title.into(),
            sends: Sends::Own {
                text: SENDS.into(),
                run: match finding {
                    oracle::UNKNOWN => run.choice(ChoiceKey::UnknownFields),
                    _ => run,
                },
            },
            expects: Expect::Own(expects.into()),
            subject: Subject::NONE,
        }
        .into()
    };
    vec![
        check(
            "fields/breaking-bodies-fail-validation",
            Level::Must,
            "7.2",
            Cites::Requirement(&requirement::VALIDATION_IS_417),
            "a body that breaks a declared setting is answered 417 in the 7.2 shape",
            "every generated body that breaks a declared setting (a wrong JSON type, null, a required field missing or only under another letter case, a length, a bound, `enum` or `pattern`): a 417 whose body has the 7.2 shape; a body with anything the description leaves open (a length that counts differently in characters, UTF-16 units and bytes; an integer written 4.0; a number beyond 2^53; null for an optional field) is not judged",
            oracle::BREAKING,
        ),
        check(
            "fields/keeping-bodies-pass-validation",
            Level::Must,
            "2",
            Cites::Requirement(&requirement::AUTH_BODY),
            "a body that keeps every declared setting is not refused by validation",
            "every generated body that keeps every declared setting: any answer but a 417 (a 401 for fields no model has, say, is the server's to give)",
            oracle::KEEPING,
        ),
        check(
            "fields/unknown-fields",
            Level::Should,
            "2",
            Cites::Norm(
                "spec choice 13: a field the settings do not define fails validation (`unknown_field`, 417)",
            ),
            "a body with a field the settings do not define is answered as the server chose",
            "every generated body that keeps every declared setting but has a field they do not define: where `choices.unknown_fields` is `refused` (ours), a 417 in the 7.2 shape; where `ignored`, no 417",
            oracle::UNKNOWN,
        ),
    ]
}

async fn judge(t: Arc<RunContext>, id: &'static str) -> Outcome {
    let generated = t.generated();
    // A target that does not answer a valid request fails: a skip here
    // would let a run go green on a server too slow to judge.
    if let Some(outcome) = Outcome::when_not_generated(generated) {
        return outcome;
    }
    let seed = t.generation().seed;
    // The single changes first (each of them made for every run), then the
    // property bodies' shrunk findings.
    // A case whose answer never came within what the run waits is not
    // judged; the rest are.
    let unjudged: Vec<String> = generated
        .family(Family::Fields)
        .filter_map(|case| not_judged(&case.sent))
        .chain(generated.findings.iter().filter_map(|f| {
            f.broken
                .iter()
                .find(|(b, _)| *b == NOT_JUDGED)
                .map(|(_, why)| why.clone())
        }))
        .collect();
    let mut failures: Vec<String> = generated
        .family(Family::Fields)
        .filter(|case| not_judged(&case.sent).is_none())
        .filter_map(|case| {
            let (_, why) = case.oracle.iter().find(|(b, _)| *b == id)?;
            Some(describe(case, why))
        })
        .collect();
    failures.extend(
        generated
            .findings
            .iter()
            .filter_map(|f| f.failure(id, seed)),
    );
    // A redirect is no answer to judge: it fails the check (as it fails
    // every invariant), never a pass (`answers/no-redirects` does not see
    // generated cases).
    if failures.is_empty() {
        if let Some(redirect) = generated
            .family(Family::Fields)
            .find_map(|case| case.sent.exchange.redirect())
        {
            failures.push(redirect);
        }
    }
    if let (true, Some(first)) = (failures.is_empty(), unjudged.first()) {
        return Outcome::not_judged(
            format!(
                "not judged: {} generated bod{} got no answer the run could judge; the first: {first}",
                unjudged.len(),
                if unjudged.len() == 1 { "y" } else { "ies" }
            ),
            Vec::new(),
        );
    }
    Outcome::from_failures(listed(failures), Vec::new())
}
