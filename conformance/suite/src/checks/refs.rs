//! §2 Component reference: a component is addressed by its name, its tag or
//! its uuid. Each resolves, all three reach the same component, an unknown
//! ref is refused, and names that need percent-encoding in a path work.

use crate::case::{Answer, By, CaseCheck, Change, Expect, Found, Label, Sends, To, per_component};
use crate::catalogue::{Check, Cites, Level, Subject};
use crate::checks::{UNKNOWN_REF, UNKNOWN_UUID, accepted, refused};
use conformance_model::choices::Choices;
use conformance_requirements as requirement;
use conformance_wire::request::Op;

const QUOTE: Cites = Cites::Requirement(&requirement::REF);

pub fn checks() -> Vec<Check> {
    let mut out = Vec::new();
    for (by, id) in [
        (By::Name, "refs/by-name"),
        (By::Tag, "refs/by-tag"),
        (By::Uuid, "refs/by-uuid"),
    ] {
        out.push(CaseCheck {
            id,
            subject: Subject::NONE,
            level: Level::Must,
            section: "2",
            cites: QUOTE,
            title: format!("a component is found by its {}", by.id()),
            sends: Sends::each(Op::AuthClaims, To::Each, Change::RefBy(by))
                .labelled(Label::Template("{component} by {by} `{ref}`")),
            expects: Expect::Accepted,
        });
    }
    out.extend([
        CaseCheck {
            id: "refs/same-component",
            subject: Subject::NONE,
            level: Level::Must,
            section: "2",
            cites: QUOTE,
            title: "name, tag and uuid reach the same component".into(),
            sends: Sends::each_changed(
                Op::AuthClaims,
                To::Each,
                &[Change::RefBy(By::Name), Change::RefBy(By::Tag), Change::RefBy(By::Uuid)],
            )
            .labelled(Label::Template("{component} by {by}")),
            expects: Expect::Together {
                text: "three 2xx answers, equal after normalisation (status, headers, body with per-request values redacted)",
                choice: None,
                judge: same,
            },
        },
        CaseCheck {
            id: "refs/unknown",
            subject: Subject::NONE,
            level: Level::Must,
            section: "2",
            cites: QUOTE,
            title: "a ref that identifies no component is refused".into(),
            sends: Sends::each_changed(
                Op::AuthClaims,
                To::Primary,
                &[Change::Ref(UNKNOWN_REF), Change::Ref(UNKNOWN_UUID)],
            )
            .labelled(Label::Template("ref `{ref}`")),
            expects: Expect::Refused,
        },
        CaseCheck {
            id: "refs/percent-encoded",
            subject: Subject::NONE,
            level: Level::Must,
            section: "4.1",
            cites: Cites::Requirement(&requirement::REF_ROW),
            title: "a name sent percent-encoded is found".into(),
            sends: Sends::each(Op::AuthClaims, To::Each, Change::PercentEncodedName)
                .labelled(Label::Template("name `{component}` as `{ref}`")),
            expects: Expect::Accepted,
        },
        CaseCheck {
            id: "refs/letter-case",
            subject: Subject::NONE,
            level: Level::Must,
            section: "2",
            cites: QUOTE,
            title: "a name or tag in another letter case is refused, or reaches the same component".into(),
            sends: Sends::each_changed(
                Op::AuthClaims,
                To::EachWithLetters,
                &[
                    Change::RefBy(By::Name),
                    Change::FlippedRef(By::Name),
                    Change::FlippedRef(By::Tag),
                ],
            )
            .labelled(Label::PerChange(&[
                "{component} by name as written",
                "{component} by {by} `{ref}`",
                "{component} by {by} `{ref}`",
            ])),
            expects: Expect::Together {
                text: "{refused}; or the same answer as for the name as written (matching names ignoring case is the server's choice)",
                choice: None,
                judge: letter_case,
            },
        },
    ]);
    out.into_iter().map(Check::from).collect()
}

/// Per component, the answers by name, tag and uuid: all served, and equal.
fn same(answers: &[Answer<'_>], _: &Choices) -> Found {
    let mut failures = Vec::new();
    for three in per_component(answers) {
        let name = three[0].component.map_or("", |c| c.name.as_str());
        let sent: Vec<_> = three.iter().map(|a| a.sent).collect();
        let summaries = || sent.iter().map(|s| s.summary()).collect::<Vec<_>>();
        let answered: Vec<_> = sent
            .iter()
            .map(|s| (&s.exchange.response, &s.exchange.error))
            .collect();
        if answered.iter().any(|(r, _)| r.is_none()) {
            failures.push(format!(
                "{name}: not every request was answered: {}",
                summaries().join(" / ")
            ));
        } else if let Some(refused) = sent.iter().find(|s| accepted(s).is_err()) {
            // Three equal refusals would be "the same": the answers must be served.
            failures.push(format!("{name}: not served: {}", refused.summary()));
        } else if answered.iter().any(|a| a != &answered[0]) {
            let responses: Vec<_> = sent
                .iter()
                .filter_map(|s| s.exchange.response.as_ref())
                .collect();
            let s = summaries();
            failures.push(format!(
                "{name}: the answers differ in {}:\n  by name: {}\n  by tag:  {}\n  by uuid: {}",
                differing_parts(&responses).join(", "),
                s.first().map_or("", String::as_str),
                s.get(1).map_or("", String::as_str),
                s.get(2).map_or("", String::as_str),
            ));
        }
    }
    Found::Failures(failures)
}

/// Per component, each flipped ref: refused, or answered as the name as
/// written (the first answer of the component) was, served.
fn letter_case(answers: &[Answer<'_>], _: &Choices) -> Found {
    let mut failures = Vec::new();
    for group in per_component(answers) {
        let Some((written, others)) = group.split_first() else {
            continue;
        };
        let written = written.sent;
        for a in others {
            let s = a.sent;
            let same =
                accepted(written).is_ok() && s.exchange.response == written.exchange.response;
            if refused(s).is_err() && !same {
                failures.push(format!(
                    "{}: neither refused nor the same answer as by the name as written: {}",
                    s.exchange.label,
                    s.summary()
                ));
            }
        }
    }
    Found::Failures(failures)
}

/// Which parts of the answers are not all equal: the status, each header
/// by name, the body; so that a difference the summaries do not show (a
/// header) is still named.
fn differing_parts(answers: &[&conformance_wire::exchange::ResponseRecord]) -> Vec<String> {
    let Some((first, rest)) = answers.split_first() else {
        return vec!["what was answered".into()];
    };
    let mut parts = Vec::new();
    if rest.iter().any(|r| r.status != first.status) {
        parts.push("the status".to_owned());
    }
    let names: std::collections::BTreeSet<&String> =
        answers.iter().flat_map(|r| r.headers.keys()).collect();
    for name in names {
        if rest
            .iter()
            .any(|r| r.headers.get(name) != first.headers.get(name))
        {
            parts.push(format!("the header `{name}`"));
        }
    }
    if rest
        .iter()
        .any(|r| r.body != first.body || r.body_digest != first.body_digest)
    {
        parts.push("the body".to_owned());
    }
    if parts.is_empty() {
        parts.push("how they were answered".to_owned());
    }
    parts
}

#[cfg(test)]
mod tests {
    use super::differing_parts;
    use conformance_wire::exchange::ResponseRecord;

    fn answer(status: u16, uuid: &str, body: &str) -> ResponseRecord {
        ResponseRecord {
            status,
            is_json: true,
            headers: [("x-project-uuid".to_owned(), uuid.to_owned())].into(),
            body: Some(serde_json::json!({ "v": body })),
            body_digest: None,
            shape: Vec::new(),
        }
    }

    #[test]
    fn names_what_differs() {
        let a = answer(200, "u1", "x");
        assert_eq!(
            differing_parts(&[&a, &answer(200, "u2", "x"), &a]),
            ["the header `x-project-uuid`"]
        );
        assert_eq!(
            differing_parts(&[&a, &a, &answer(404, "u1", "y")]),
            ["the status", "the body"]
        );
        assert_eq!(differing_parts(&[&a, &a]), ["how they were answered"]);
    }
}
