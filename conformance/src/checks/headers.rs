//! §5 Authentication, and the header tables of §4.1 and §4.2: the required
//! headers `X-Client-Id` and `X-Client-Secret`, each missing, empty and
//! wrong, for each operation; a fully valid request; header names in any
//! letter case.

use std::sync::Arc;

use crate::catalogue::{Check, Level, Outcome, Run};
use crate::checks::{
    ACCEPTED, REFUSED, WRONG_CLIENT_ID, WRONG_SECRET, accepted, judge_all, refused,
};
use crate::needs::Need;
use crate::target::{Case, Op, Probe, Target};

const CLIENT_ID: &str = "X-Client-Id | string | yes | Client identifier `<CLIENT_ID>`.";
const CLIENT_SECRET: &str = "X-Client-Secret | string | yes | Client secret `<CLIENT_SECRET>`.";
/// Rests on RFC 9110 section 5.1 as well: field names are case-insensitive.
const EVERY_REQUEST: &str = "Every request to both operations carries these headers:";

#[derive(Clone, Copy)]
enum Variant {
    Missing,
    Empty,
    Wrong,
}

impl Variant {
    fn id(self) -> &'static str {
        match self {
            Variant::Missing => "missing",
            Variant::Empty => "empty",
            Variant::Wrong => "wrong",
        }
    }
}

pub fn checks() -> Vec<Check> {
    let mut out = Vec::new();
    for op in Op::BOTH {
        out.push(Check {
            id: format!("headers/{}/valid", op.id()),
            level: Level::Must,
            section: op.section(),
            quote: match op {
                Op::AuthClaims => "Auth Claims: get the model that claimed the authentication",
                Op::Authorize => "Authorize: request authorization",
            },
            title: format!("{}: a request with every header right is served", op.title()),
            sends: format!(
                "{} /v2/api/component/{{name}}/auth with X-Client-Id, X-Client-Secret, X-Auth-Token where required{}",
                op.method(),
                if op == Op::Authorize { ", modelUuid and a valid body" } else { " and a valid body" }
            ),
            expects: ACCEPTED.into(),
            run: Run::new(move |t| valid(t, op)).needs(Need::of(op)),
        });
        for (header, quote) in [
            ("X-Client-Id", CLIENT_ID),
            ("X-Client-Secret", CLIENT_SECRET),
        ] {
            for variant in [Variant::Missing, Variant::Empty, Variant::Wrong] {
                let how = match variant {
                    Variant::Missing => format!("without {header}"),
                    Variant::Empty => format!("with an empty {header}"),
                    Variant::Wrong => format!("with a wrong {header}"),
                };
                out.push(Check {
                    id: format!(
                        "headers/{}/{}/{}",
                        op.id(),
                        header.to_ascii_lowercase(),
                        variant.id()
                    ),
                    level: Level::Must,
                    section: "5",
                    quote,
                    title: format!("{}: a request {how} is refused", op.title()),
                    sends: format!("a valid {} request, {how}", op.title()),
                    expects: REFUSED.into(),
                    run: Run::new(move |t| bad_header(t, op, header, variant)).needs(Need::of(op)),
                });
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

async fn valid(t: Arc<Target>, op: Op) -> Outcome {
    let Some(c) = t.primary(op) else {
        return Outcome::skip("no component in the profile has an `authorize` section");
    };
    let sent = t.send(Probe::new("valid", t.valid(op, c))).await;
    let v = accepted(&sent);
    judge_all(vec![(c.name.clone(), sent, v)])
}

async fn bad_header(t: Arc<Target>, op: Op, header: &'static str, variant: Variant) -> Outcome {
    let Some(c) = t.primary(op) else {
        return Outcome::skip("no component in the profile has an `authorize` section");
    };
    let req = t.valid(op, c).and_then(|r| match variant {
        Variant::Missing => Ok(r.remove_header(header)),
        Variant::Empty => r.set_header(header, ""),
        Variant::Wrong => r.set_header(
            header,
            if header == "X-Client-Id" {
                WRONG_CLIENT_ID
            } else {
                WRONG_SECRET
            },
        ),
    });
    let sent = t
        .send(Probe::new(format!("{header} {}", variant.id()), req))
        .await;
    let v = refused(&sent);
    judge_all(vec![(c.name.clone(), sent, v)])
}

async fn letter_case(t: Arc<Target>, case: Case) -> Outcome {
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
