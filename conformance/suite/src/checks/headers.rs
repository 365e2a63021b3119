//! §5 Authentication, and the header tables of §4.1 and §4.2: the required
//! headers `X-Client-Id` and `X-Client-Secret`, each missing, empty and
//! wrong, for each operation; a fully valid request; header names in any
//! letter case.

use crate::case::{CaseCheck, Change, Expect, Label, Sends, To};
use crate::catalogue::{Check, Cites, Level, Subject};
use crate::checks::{WRONG_CLIENT_ID, WRONG_SECRET};
use conformance_requirements as requirement;
use conformance_wire::request::{Case, Op};

const CLIENT_ID: Cites = Cites::Requirement(&requirement::CLIENT_ID);
const CLIENT_SECRET: Cites = Cites::Requirement(&requirement::CLIENT_SECRET);
/// Rests on RFC 9110 section 5.1 as well: field names are case-insensitive.
const EVERY_REQUEST: Cites = Cites::Requirement(&requirement::EVERY_REQUEST);

/// The ids, written out so that each greps from a report line.
fn valid_id(op: Op) -> &'static str {
    match op {
        Op::AuthClaims => "headers/auth-claims/valid",
        Op::Authorize => "headers/authorize/valid",
    }
}

/// A required header's item in the tables, its requirement, its wrong value, and
/// the ids of its checks on each operation: missing, empty, wrong.
struct Required {
    header: &'static str,
    cites: Cites,
    wrong: &'static str,
    ids: [(Op, [&'static str; 3]); 2],
}

static REQUIRED: [Required; 2] = [
    Required {
        header: "X-Client-Id",
        cites: CLIENT_ID,
        wrong: WRONG_CLIENT_ID,
        ids: [
            (
                Op::AuthClaims,
                [
                    "headers/auth-claims/x-client-id/missing",
                    "headers/auth-claims/x-client-id/empty",
                    "headers/auth-claims/x-client-id/wrong",
                ],
            ),
            (
                Op::Authorize,
                [
                    "headers/authorize/x-client-id/missing",
                    "headers/authorize/x-client-id/empty",
                    "headers/authorize/x-client-id/wrong",
                ],
            ),
        ],
    },
    Required {
        header: "X-Client-Secret",
        cites: CLIENT_SECRET,
        wrong: WRONG_SECRET,
        ids: [
            (
                Op::AuthClaims,
                [
                    "headers/auth-claims/x-client-secret/missing",
                    "headers/auth-claims/x-client-secret/empty",
                    "headers/auth-claims/x-client-secret/wrong",
                ],
            ),
            (
                Op::Authorize,
                [
                    "headers/authorize/x-client-secret/missing",
                    "headers/authorize/x-client-secret/empty",
                    "headers/authorize/x-client-secret/wrong",
                ],
            ),
        ],
    },
];

pub fn checks() -> Vec<Check> {
    let mut out = Vec::new();
    for op in Op::BOTH {
        out.push(
            CaseCheck {
                id: valid_id(op),
                level: Level::Must,
                section: op.section(),
                cites: Cites::Requirement(match op {
                    Op::AuthClaims => &requirement::AUTH_CLAIMS,
                    Op::Authorize => &requirement::AUTHORIZE,
                }),
                title: format!(
                    "{}: a request with every header right is served",
                    op.title()
                ),
                sends: Sends::primary(op, Change::Nothing),
                expects: Expect::Accepted,
                subject: Subject::op(op),
            }
            .into(),
        );
        for required in &REQUIRED {
            let Required {
                header,
                cites,
                wrong,
                ..
            } = *required;
            let Some((_, ids)) = required.ids.iter().find(|(o, _)| *o == op) else {
                continue;
            };
            for (id, change, how) in [
                (
                    ids[0],
                    Change::DropHeader(header),
                    format!("without {header}"),
                ),
                (
                    ids[1],
                    Change::Header(header, ""),
                    format!("with an empty {header}"),
                ),
                (
                    ids[2],
                    Change::Header(header, wrong),
                    format!("with a wrong {header}"),
                ),
            ] {
                out.push(
                    CaseCheck {
                        id,
                        level: Level::Must,
                        section: "5",
                        cites,
                        title: format!("{}: a request {how} is refused", op.title()),
                        sends: Sends::primary(op, change),
                        expects: Expect::Refused,
                        subject: Subject::op_items(op, std::slice::from_ref(&required.header)),
                    }
                    .into(),
                );
            }
        }
    }
    for (case, id, name) in [
        (Case::Lower, "headers/letter-case/lower-case", "lower-case"),
        (Case::Title, "headers/letter-case/title-case", "title-case"),
    ] {
        out.push(
            CaseCheck {
                id,
                subject: Subject::NONE,
                level: Level::Must,
                section: "5",
                cites: EVERY_REQUEST,
                title: format!(
                    "header names in {name} are accepted (RFC 9110 section 5.1: field names are case-insensitive)"
                ),
                sends: Sends::both(To::Primary, Change::HeaderNames(case))
                    .labelled(Label::Template("{op} {component}")),
                expects: Expect::Accepted,
            }
            .into(),
        );
    }
    out
}
