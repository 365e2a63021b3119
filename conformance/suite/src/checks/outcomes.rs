//! Which documented outcomes of each operation the run triggered: a run
//! that never saw an operation answer 417 in the 7.2 shape proves nothing
//! about that rule. Under `--strict`, an outcome the description documents
//! (and the profile's choices make possible: no 417 is required of an
//! Auth Claims whose body is not validated) that the run never triggered
//! fails; otherwise it is not applicable, and the report lists it.
//!
//! Run-wide checks ([`RunWide`]): they judge every answer of the run.

use crate::case::{CaseCheck, Expect, Sends};
use crate::catalogue::{Check, Cites, Level, Outcome, Run, RunWide, Subject};
use conformance_requirements as requirement;
use conformance_wire::latency::operation_key;
use conformance_wire::request::Op;

/// Each documented outcome: its id (as `conformance_wire::outcomes` names it), the
/// ids of its checks on Auth Claims and on Authorize, the section and the
/// requirement that documents it.
const DOCUMENTED: &[(&str, [&str; 2], &str, Cites)] = &[
    (
        "2xx-json",
        [
            "outcomes/auth-claims/2xx-json",
            "outcomes/authorize/2xx-json",
        ],
        "1",
        Cites::Requirement(&requirement::RESPONSES_JSON),
    ),
    (
        "417-7.2",
        ["outcomes/auth-claims/417", "outcomes/authorize/417"],
        "7.2",
        Cites::Requirement(&requirement::VALIDATION_IS_417),
    ),
    (
        "400-7.1",
        ["outcomes/auth-claims/400", "outcomes/authorize/400"],
        "7.1",
        Cites::Requirement(&requirement::SHAPE_400),
    ),
    (
        "error-content-type",
        [
            "outcomes/auth-claims/error-content-type",
            "outcomes/authorize/error-content-type",
        ],
        "7",
        Cites::Requirement(&requirement::ERROR_ENVELOPE),
    ),
    (
        "error-x-project-uuid",
        [
            "outcomes/auth-claims/error-x-project-uuid",
            "outcomes/authorize/error-x-project-uuid",
        ],
        "7",
        Cites::Requirement(&requirement::ERROR_ENVELOPE),
    ),
];

pub fn checks() -> Vec<Check> {
    let mut out = Vec::new();
    for (at, op) in Op::BOTH.into_iter().enumerate() {
        for &(id, checks, section, cites) in DOCUMENTED {
            let outcome = conformance_wire::outcomes::described(id).unwrap_or(id);
            out.push(CaseCheck {
                id: checks[at],
                level: Level::Must,
                section,
                cites,
                title: format!("{} gave {outcome} at least once in the run", op.title()),
                sends: Sends::Own {
                    text: format!("nothing of its own: it counts every answer of the run to {}", op.title()),
                    run: Run::run_wide(move |run| seen(run, op, id)),
                },
                expects: Expect::Own(format!(
                    "at least one answer: {outcome}, where the description (and the profile's choices) make it possible; never seen: not applicable, and a failure under --strict"
                )),
                subject: Subject::op(op),
            }
            .into());
        }
    }
    out
}

fn seen(run: &RunWide<'_>, op: Op, id: &str) -> Outcome {
    let coverage = conformance_wire::outcomes::coverage(run.answers, &run.profile.choices);
    let Some(o) = coverage
        .iter()
        .find(|o| o.operation == operation_key(op) && o.id == id)
    else {
        return Outcome::not_applicable(
            format!("no request of the run went to {}", op.title()),
            Vec::new(),
        );
    };
    match (o.seen, o.required, run.strict) {
        (n, _, _) if n > 0 => Outcome::pass(Vec::new()),
        (_, true, true) => Outcome::fail(
            format!("never seen in this run ({})", o.documented_by),
            Vec::new(),
        ),
        (_, true, false) => Outcome::not_applicable(
            format!(
                "never triggered in this run ({}); --strict fails on it",
                o.documented_by
            ),
            Vec::new(),
        ),
        (_, false, _) => Outcome::not_applicable(
            format!(
                "never triggered in this run ({}; not required)",
                o.documented_by
            ),
            Vec::new(),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalogue::Verdict;
    use conformance_model::profile::Profile;
    use conformance_wire::outcomes::Answer;

    fn profile(extra: &str) -> Profile {
        let text = format!(
            "base_url: http://127.0.0.1:1\nclient_id: x\nclient_secret: y\ncomponents:\n  - {{name: a, tag: a, uuid: 0b6c1c1e-1d3a-4c55-9a8e-6f1f2f0f5c11}}\n{extra}"
        );
        Profile::from_yaml_str(&text, "p.yaml", &|_| None).expect("profile")
    }

    fn answer(op: Op, status: u16) -> Answer {
        Answer::well_formed(op, status)
    }

    fn verdict(answers: &[Answer], profile: &Profile, strict: bool, op: Op, id: &str) -> Verdict {
        let run = RunWide {
            checks: &[],
            outcomes: &[],
            answers,
            latency: &[],
            profile,
            strict,
            limited: &[],
        };
        seen(&run, op, id).verdict
    }

    #[test]
    fn a_required_outcome_never_seen_fails_only_under_strict() {
        let p = profile("");
        let answers = [answer(Op::AuthClaims, 200), answer(Op::AuthClaims, 401)];
        let fail = |v: &Verdict| matches!(v, Verdict::Fail { .. });
        let na = |v: &Verdict| matches!(v, Verdict::NotApplicable { .. });
        assert_eq!(
            verdict(&answers, &p, true, Op::AuthClaims, "2xx-json"),
            Verdict::Pass
        );
        assert!(fail(&verdict(
            &answers,
            &p,
            true,
            Op::AuthClaims,
            "417-7.2"
        )));
        assert!(na(&verdict(&answers, &p, false, Op::AuthClaims, "417-7.2")));
        // The 400 is not required; an operation not sent to is nothing to judge.
        assert!(na(&verdict(&answers, &p, true, Op::AuthClaims, "400-7.1")));
        assert!(na(&verdict(&answers, &p, true, Op::Authorize, "2xx-json")));
    }

    #[test]
    fn a_declared_choice_makes_an_outcome_not_required() {
        let p = profile("choices:\n  get_body_validated: false\n");
        let answers = [answer(Op::AuthClaims, 200), answer(Op::Authorize, 200)];
        let v = verdict(&answers, &p, true, Op::AuthClaims, "417-7.2");
        assert!(matches!(v, Verdict::NotApplicable { .. }), "{v:?}");
        let v = verdict(&answers, &p, true, Op::Authorize, "417-7.2");
        assert!(matches!(v, Verdict::Fail { .. }), "{v:?}");
    }
}
