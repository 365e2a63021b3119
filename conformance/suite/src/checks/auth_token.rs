//! §5 Authentication: `X-Auth-Token`, required only where the component
//! requires auth. Missing and wrong tokens are refused there, a valid one
//! is served, and a component that does not require auth does not demand one.

use crate::case::{CaseCheck, Change, Expect, Sends, To};
use crate::catalogue::{Check, Cites, Level, Subject};
use crate::checks::WRONG_TOKEN;
use conformance_requirements as requirement;
use conformance_wire::request::Op;

const QUOTE: Cites = Cites::Requirement(&requirement::AUTH_TOKEN);

pub fn checks() -> Vec<Check> {
    let mut out = Vec::new();
    for (op, [missing, wrong, valid, not_required]) in [
        (
            Op::AuthClaims,
            [
                "auth-token/auth-claims/missing",
                "auth-token/auth-claims/wrong",
                "auth-token/auth-claims/valid",
                "auth-token/auth-claims/not-required",
            ],
        ),
        (
            Op::Authorize,
            [
                "auth-token/authorize/missing",
                "auth-token/authorize/wrong",
                "auth-token/authorize/valid",
                "auth-token/authorize/not-required",
            ],
        ),
    ] {
        for (id, title, to, change, expects) in [
            (
                missing,
                "is refused without X-Auth-Token where the component requires auth",
                To::EachRequiringAuth,
                Change::DropHeader("X-Auth-Token"),
                Expect::Refused,
            ),
            (
                wrong,
                "is refused with a wrong X-Auth-Token where the component requires auth",
                To::EachRequiringAuth,
                Change::Header("X-Auth-Token", WRONG_TOKEN),
                Expect::Refused,
            ),
            (
                valid,
                "is served with a valid X-Auth-Token where the component requires auth",
                To::EachRequiringAuth,
                Change::Nothing,
                Expect::Accepted,
            ),
            (
                not_required,
                "is served without X-Auth-Token where the component does not require auth",
                To::EachWithoutAuth,
                Change::DropHeader("X-Auth-Token"),
                Expect::Accepted,
            ),
        ] {
            out.push(
                CaseCheck {
                    id,
                    level: Level::Must,
                    section: "5",
                    cites: QUOTE,
                    title: format!("{}: {title}", op.title()),
                    sends: Sends::each(op, to, change),
                    expects,
                    subject: Subject::op_items(op, &["X-Auth-Token"]),
                }
                .into(),
            );
        }
    }
    out
}
