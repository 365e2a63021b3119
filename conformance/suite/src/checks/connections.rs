//! Connections as real clients use them: several requests on one kept-alive
//! connection, each answered as it would be alone. A server that remembers
//! something per connection (a client it authenticated, a request id) or
//! leaves a body unread and falls out of step shows here, and nowhere else:
//! every other check sends one request per connection.

use crate::case::{Answer, CaseCheck, Change, Expect, Found, Sends, Step};
use crate::catalogue::{Check, Cites, Level, Subject};
use crate::checks::{WRONG_SECRET, refused};
use conformance_model::choices::Choices;
use conformance_requirements as requirement;
use conformance_wire::request::Op;

const WITHOUT_CLIENT_ID: Change = Change::DropHeader("X-Client-Id");
const WRONG: Change = Change::Header("X-Client-Secret", WRONG_SECRET);

pub fn checks() -> Vec<Check> {
    let step = |op, change, label| Step { op, change, label };
    [
        CaseCheck {
            id: "connections/keep-alive/each-request-judged",
            subject: Subject::NONE,
            level: Level::Must,
            section: "5",
            cites: Cites::Requirement(&requirement::EVERY_REQUEST),
            title: "on one kept-alive connection, each request is judged on its own headers".into(),
            sends: Sends::InTurn(vec![
                step(Op::AuthClaims, Change::Nothing, "GET valid"),
                step(Op::AuthClaims, WRONG, "GET wrong X-Client-Secret"),
                step(Op::Authorize, WRONG, "POST wrong X-Client-Secret, with a body"),
                step(Op::AuthClaims, Change::Nothing, "GET valid again"),
                step(Op::AuthClaims, WITHOUT_CLIENT_ID, "GET without X-Client-Id"),
            ]),
            expects: Expect::AcceptedUnlessChanged,
        },
        CaseCheck {
            id: "connections/keep-alive/request-ids",
            subject: Subject::NONE,
            level: Level::Must,
            section: "7.1",
            cites: Cites::Requirement(&requirement::REQUEST_ID),
            title: "on one kept-alive connection, every error answer has its own request_id".into(),
            sends: Sends::InTurn(vec![
                step(Op::AuthClaims, WITHOUT_CLIENT_ID, "GET without X-Client-Id (1)"),
                step(Op::AuthClaims, WITHOUT_CLIENT_ID, "GET without X-Client-Id (2)"),
                step(Op::AuthClaims, WITHOUT_CLIENT_ID, "GET without X-Client-Id (3)"),
            ]),
            expects: Expect::Together {
                text: "three refusals; those that are 400 (whose 7.1 shape has a request_id) with request_id values that differ",
                choice: None,
                judge: request_ids,
            },
        },
    ]
    .into_iter()
    .map(Check::from)
    .collect()
}

/// Every 400 has a request_id of its own; with no 400 at all, every
/// answer is still a refusal.
fn request_ids(answers: &[Answer<'_>], _: &Choices) -> Found {
    // 7.1 gives a request_id to a 400 only: another status (a 401, a 417)
    // may carry none.
    let ids: Vec<(&Answer<'_>, Option<String>)> = answers
        .iter()
        .filter(|a| a.sent.status() == Some(400))
        .map(|a| {
            let id = a.sent.raw().and_then(|r| r.json()).and_then(|j| {
                j.get("request_id")
                    .and_then(|v| v.as_str())
                    .map(str::to_owned)
            });
            (a, id)
        })
        .collect();
    if ids.is_empty() {
        let failures: Vec<String> = answers
            .iter()
            .filter_map(|a| {
                refused(a.sent)
                    .err()
                    .map(|why| format!("{}: {why}", a.label))
            })
            .collect();
        if failures.is_empty() {
            return Found::NotApplicable(
                "no answer was a 400, the only status whose shape (7.1) has a request_id".into(),
            );
        }
        return Found::Failures(failures);
    }
    let mut failures = Vec::new();
    for (n, (a, id)) in ids.iter().enumerate() {
        match id {
            None => failures.push(format!("{}: no request_id: {}", a.label, a.sent.summary())),
            Some(id)
                if ids[..n]
                    .iter()
                    .filter_map(|(_, e)| e.as_ref())
                    .any(|e| e == id) =>
            {
                failures.push(format!(
                    "{}: request_id repeats an earlier answer's",
                    a.label
                ))
            }
            Some(_) => {}
        }
    }
    Found::Failures(failures)
}
