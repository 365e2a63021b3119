//! §5 Authentication, and the header tables of §4.1 and §4.2: the required
//! headers `X-Client-Id` and `X-Client-Secret`, each missing, empty and
//! wrong, for each operation; a fully valid request; header names in any
//! letter case.

use crate::case::{CaseCheck, Change, Expect, Label, Sends, To};
use crate::catalogue::{Check, Level};
use crate::checks::{WRONG_CLIENT_ID, WRONG_SECRET};
use crate::target::{Case, Op};

const CLIENT_ID: &str = "X-Client-Id | string | yes | Client identifier `<CLIENT_ID>`.";
const CLIENT_SECRET: &str = "X-Client-Secret | string | yes | Client secret `<CLIENT_SECRET>`.";
/// Rests on RFC 9110 section 5.1 as well: field names are case-insensitive.
const EVERY_REQUEST: &str = "Every request to both operations carries these headers:";

pub fn checks() -> Vec<Check> {
    let mut out = Vec::new();
    for op in Op::BOTH {
        out.push(
            CaseCheck {
                id: format!("headers/{}/valid", op.id()),
                level: Level::Must,
                section: op.section(),
                quote: match op {
                    Op::AuthClaims => "Auth Claims: get the model that claimed the authentication",
                    Op::Authorize => "Authorize: request authorization",
                },
                title: format!(
                    "{}: a request with every header right is served",
                    op.title()
                ),
                sends: Sends::primary(op, Change::Nothing),
                expects: Expect::Accepted,
            }
            .into(),
        );
        for (header, quote, wrong) in [
            ("X-Client-Id", CLIENT_ID, WRONG_CLIENT_ID),
            ("X-Client-Secret", CLIENT_SECRET, WRONG_SECRET),
        ] {
            for (id, change) in [
                ("missing", Change::DropHeader(header)),
                ("empty", Change::Header(header, "")),
                ("wrong", Change::Header(header, wrong)),
            ] {
                let how = match id {
                    "missing" => format!("without {header}"),
                    "empty" => format!("with an empty {header}"),
                    _ => format!("with a wrong {header}"),
                };
                out.push(
                    CaseCheck {
                        id: format!("headers/{}/{}/{id}", op.id(), header.to_ascii_lowercase()),
                        level: Level::Must,
                        section: "5",
                        quote,
                        title: format!("{}: a request {how} is refused", op.title()),
                        sends: Sends::primary(op, change),
                        expects: Expect::Refused,
                    }
                    .into(),
                );
            }
        }
    }
    for (case, name) in [(Case::Lower, "lower-case"), (Case::Title, "title-case")] {
        out.push(
            CaseCheck {
                id: format!("headers/letter-case/{name}"),
                level: Level::Must,
                section: "5",
                quote: EVERY_REQUEST,
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
