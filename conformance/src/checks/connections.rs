//! Connections as real clients use them: several requests on one kept-alive
//! connection, each answered as it would be alone. A server that remembers
//! something per connection (a client it authenticated, a request id) or
//! leaves a body unread and falls out of step shows here, and nowhere else:
//! every other check sends one request per connection.

use crate::context::RunContext;
use std::sync::Arc;

use crate::catalogue::{Check, Level, Outcome, Run};
use crate::checks::{REFUSED, WRONG_SECRET, accepted, judge_all, refused};
use crate::target::{Op, Probe, Sent, Target};

pub fn checks() -> Vec<Check> {
    vec![
        Check {
            id: "connections/keep-alive/each-request-judged".into(),
            level: Level::Must,
            section: "5",
            quote: "Every request to both operations carries these headers:",
            title: "on one kept-alive connection, each request is judged on its own headers".into(),
            sends: "on one kept-alive connection, in turn: a valid request, one with a wrong X-Client-Secret, an Authorize with a wrong X-Client-Secret and a body, a valid request, one without X-Client-Id".into(),
            expects: format!("the valid requests: a 2xx answer; the others: {REFUSED}"),
            run: Run::new(each_request_judged),
        },
        Check {
            id: "connections/keep-alive/request-ids".into(),
            level: Level::Must,
            section: "7.1",
            quote: "request_id | string | Identifier of the request.",
            title: "on one kept-alive connection, every error answer has its own request_id".into(),
            sends: "on one kept-alive connection: three requests without X-Client-Id, one after the other".into(),
            expects: "three refusals; those that are 400 (whose 7.1 shape has a request_id) with request_id values that differ".into(),
            run: Run::new(request_ids),
        },
    ]
}

/// Sends `probes` one after the other on one new kept-alive connection.
async fn in_turn(t: &Target, probes: Vec<Probe>) -> Result<Vec<Sent>, Outcome> {
    let session = t
        .keep_alive_session()
        .map_err(|e| Outcome::fail(format!("cannot build a kept-alive client: {e}"), Vec::new()))?;
    let mut out = Vec::new();
    for probe in probes {
        out.push(session.send(probe).await);
    }
    Ok(out)
}

async fn each_request_judged(t: Arc<RunContext>) -> Outcome {
    let Some(c) = t.primary(Op::AuthClaims) else {
        return Outcome::skip("the profile has no component");
    };
    let valid = || t.valid(Op::AuthClaims, c);
    let mut plan: Vec<(Probe, bool)> = vec![
        (Probe::new("GET valid", valid()), true),
        (
            Probe::new(
                "GET wrong X-Client-Secret",
                valid().and_then(|r| r.set_header("X-Client-Secret", WRONG_SECRET)),
            ),
            false,
        ),
    ];
    if let Some(a) = t.primary(Op::Authorize) {
        plan.push((
            Probe::new(
                "POST wrong X-Client-Secret, with a body",
                t.valid(Op::Authorize, a)
                    .and_then(|r| r.set_header("X-Client-Secret", WRONG_SECRET)),
            ),
            false,
        ));
    }
    plan.push((Probe::new("GET valid again", valid()), true));
    plan.push((
        Probe::new(
            "GET without X-Client-Id",
            valid().map(|r| r.remove_header("X-Client-Id")),
        ),
        false,
    ));
    let (probes, served): (Vec<Probe>, Vec<bool>) = plan.into_iter().unzip();
    let sent = match in_turn(&t, probes).await {
        Ok(sent) => sent,
        Err(outcome) => return outcome,
    };
    judge_all(
        sent.into_iter()
            .zip(served)
            .map(|(s, served)| {
                let v = if served { accepted(&s) } else { refused(&s) };
                (s.exchange.label.clone(), s, v)
            })
            .collect(),
    )
}

async fn request_ids(t: Arc<RunContext>) -> Outcome {
    let Some(c) = t.primary(Op::AuthClaims) else {
        return Outcome::skip("the profile has no component");
    };
    let probes = (1..=3)
        .map(|i| {
            Probe::new(
                format!("GET without X-Client-Id ({i})"),
                t.valid(Op::AuthClaims, c)
                    .map(|r| r.remove_header("X-Client-Id")),
            )
        })
        .collect();
    let sent = match in_turn(&t, probes).await {
        Ok(sent) => sent,
        Err(outcome) => return outcome,
    };
    // 7.1 gives a request_id to a 400 only: another status (a 401, a 417)
    // may carry none.
    let ids: Vec<(usize, Option<String>)> = sent
        .iter()
        .enumerate()
        .filter(|(_, s)| s.status() == Some(400))
        .map(|(i, s)| {
            let id = s.raw().and_then(|r| r.json()).and_then(|j| {
                j.get("request_id")
                    .and_then(|v| v.as_str())
                    .map(str::to_owned)
            });
            (i, id)
        })
        .collect();
    if ids.is_empty() {
        let failures: Vec<String> = sent
            .iter()
            .filter_map(|s| {
                refused(s)
                    .err()
                    .map(|why| format!("{}: {why}", s.exchange.label))
            })
            .collect();
        if failures.is_empty() {
            return Outcome::not_applicable(
                "no answer was a 400, the only status whose shape (7.1) has a request_id",
                crate::checks::exchanges(&sent),
            );
        }
        return Outcome::from_failures(failures, crate::checks::exchanges(&sent));
    }
    let mut failures = Vec::new();
    for (n, (i, id)) in ids.iter().enumerate() {
        match id {
            None => failures.push(format!(
                "{}: no request_id: {}",
                sent[*i].exchange.label,
                sent[*i].summary()
            )),
            Some(id)
                if ids[..n]
                    .iter()
                    .filter_map(|(_, e)| e.as_ref())
                    .any(|e| e == id) =>
            {
                failures.push(format!(
                    "{}: request_id repeats an earlier answer's",
                    sent[*i].exchange.label
                ))
            }
            Some(_) => {}
        }
    }
    Outcome::from_failures(failures, crate::checks::exchanges(&sent))
}
