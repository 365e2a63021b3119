//! HTTP norms the description leaves to HTTP itself: another method on the
//! interface path (RFC 9110).

use crate::case::{Answer, CaseCheck, Change, Expect, Label, Sends};
use crate::catalogue::{Check, Cites, Level, Subject};
use conformance_wire::request::Op;

pub fn checks() -> Vec<Check> {
    vec![
    CaseCheck {
        id: "http/method-not-allowed",
        subject: Subject::NONE,
        level: Level::Should,
        section: "4",
        cites: Cites::Norm("RFC 9110 15.5.6 and spec choice 14: another method on the path is 405"),
        title: "another method on the interface path is answered 405".into(),
        sends: Sends::primary(Op::AuthClaims, Change::Method(&reqwest::Method::PUT))
            .labelled(Label::Template("{component}")),
        expects: Expect::Custom {
            text: "a 405 answer that is an error answer of the description: a JSON body, Content-Type: application/json, X-Project-Uuid",
            judge: method_not_allowed,
        },
    }
        .into(),
    ]
}

/// 405 (RFC 9110), as an error answer of the description: JSON, saying
/// so, with X-Project-Uuid (the 7.1 shape is the 400's only).
fn method_not_allowed(a: &Answer<'_>) -> Result<(), String> {
    match (a.sent.status(), a.sent.error_problems()) {
        (Some(405), Some(p)) if p.is_empty() => Ok(()),
        (Some(405), Some(p)) => Err(format!("{} ({})", a.sent.summary(), p.join("; "))),
        _ => Err(a.sent.summary()),
    }
}
