//! §5 Authentication, and the header tables of §4.1 and §4.2: the required
//! headers `X-Client-Id` and `X-Client-Secret`, each missing, empty and
//! wrong, for each operation; a fully valid request; header names in any
//! letter case.

use crate::context::RunContext;
use std::sync::Arc;

use crate::case::{CaseCheck, Change, Expect, Sends};
use crate::catalogue::{Check, Level, Outcome, Run};
use crate::checks::{ACCEPTED, WRONG_CLIENT_ID, WRONG_SECRET, accepted, judge_all};
use crate::target::{Case, Op, Probe};

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
        out.push(Check {
            id: format!("headers/letter-case/{name}"),
            level: Level::Must,
            section: "5",
            quote: EVERY_REQUEST,
            title: format!(
                "header names in {name} are accepted (RFC 9110 section 5.1: field names are case-insensitive)"
            ),
            sends: format!(
                "a valid request of each operation with header names in {}",
                if case == Case::Lower {
                    "lower case (x-client-id)"
                } else {
                    "Title-Case (X-Client-Id)"
                }
            ),
            expects: ACCEPTED.into(),
            run: Run::new(move |t| letter_case(t, case)),
        });
    }
    out
}

async fn letter_case(t: Arc<RunContext>, case: Case) -> Outcome {
    let mut reqs = Vec::new();
    for op in Op::BOTH {
        if let Some(c) = t.primary(op) {
            reqs.push(Probe::new(format!("{} {}", op.title(), c.name), t.valid(op, c)).case(case));
        }
    }
    let labels: Vec<String> = reqs.iter().map(|r| r.label.clone()).collect();
    let sent = t.send_all(reqs).await;
    judge_all(
        labels
            .into_iter()
            .zip(sent)
            .map(|(l, s)| {
                let v = accepted(&s);
                (l, s, v)
            })
            .collect(),
    )
}
