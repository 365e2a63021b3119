//! §9 Versioning (and §4): the interface is served under `{base_url}/v2/api`.

use crate::case::{Answer, CaseCheck, Change, Expect, Label, Sends, To};
use crate::catalogue::{Check, Cites, Level, Subject};
use conformance_requirements as requirement;
use conformance_wire::request::Op;

const QUOTE: Cites = Cites::Requirement(&requirement::VERSION);

pub fn checks() -> Vec<Check> {
    [
        CaseCheck {
            id: "prefix/v2-api",
            subject: Subject::NONE,
            level: Level::Must,
            section: "9",
            cites: QUOTE,
            title: "both operations are served under /v2/api".into(),
            sends: Sends::both(To::Primary, Change::Nothing)
                .labelled(Label::Template("{method} {component}")),
            expects: Expect::Accepted,
        },
        CaseCheck {
            id: "prefix/unversioned-not-served",
            subject: Subject::NONE,
            level: Level::Should,
            section: "9",
            cites: Cites::Norm("spec choice 14: a path outside the interface is 404 (The interface version is `v2`, carried as a path segment directly after the address of the service.)"),
            title: "the interface is not also served without /v2/api".into(),
            sends: Sends::primary(Op::AuthClaims, Change::PathWithout("/v2/api"))
                .labelled(Label::Template("{component}")),
            expects: Expect::Custom {
                text: "not a 2xx answer",
                judge: not_served,
            },
        },
    ]
    .into_iter()
    .map(Check::from)
    .collect()
}

fn not_served(a: &Answer<'_>) -> Result<(), String> {
    match a.sent.status() {
        Some(st) if (200..300).contains(&st) => {
            Err(format!("served without /v2/api: {}", a.sent.summary()))
        }
        _ => Ok(()),
    }
}
