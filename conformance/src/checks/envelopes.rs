//! §7 Errors, §7.1 and §7.2, and the `X-Project-Uuid` row of §2: every
//! error answer is JSON with `Content-Type: application/json` and an
//! `X-Project-Uuid` (a uuid, the same on every answer of one target); a 400
//! body has the 7.1 shape and a 417 body the 7.2 shape.
//!
//! These checks judge one shared set of probes (requests that a conforming
//! server refuses, plus two it serves), sent once per run and stored as one
//! snapshot, `errors/probes`.

use crate::context::RunContext;
use std::sync::Arc;

use serde_json::Value;

use crate::catalogue::{Check, Level, Outcome, Run};
use crate::checks::{exchanges, probes};
use crate::needs::Need;
use crate::profile::is_uuid;
use crate::target::Sent;

const GROUP: &str = "errors/probes";
const PROBES: &str = "the error probes: an unknown ref, a wrong secret, no X-Client-Id, X-Project-Env `staging`, a malformed JSON body, an invalid body, no modelUuid, and one valid request of each operation";

fn is_error(s: &Sent) -> bool {
    s.status().is_some_and(|st| (400..600).contains(&st))
}

type Judge = fn(&Sent) -> Option<String>;

/// Judges every probe answer `applies` picks with `judge`; skips when
/// none applies.
fn over_probes(applies: fn(&Sent) -> bool, none_reason: &'static str, judge: Judge) -> Run {
    Run::new(move |t| async move {
        let all = probes(&t).await;
        let picked: Vec<&Sent> = all.iter().filter(|s| applies(s)).collect();
        let outcome = if picked.is_empty() {
            Outcome::not_applicable(none_reason, exchanges(all))
        } else {
            let failures = picked
                .iter()
                .filter_map(|s| judge(s).map(|why| format!("{}: {why}", s.exchange.label)))
                .collect();
            Outcome::from_failures(failures, exchanges(all))
        };
        outcome.in_group(GROUP)
    })
}

fn json_field(s: &Sent, name: &str) -> Result<Option<Value>, String> {
    let raw = s.raw().ok_or_else(|| s.summary())?;
    match raw.json() {
        Some(Value::Object(map)) => Ok(map.get(name).cloned()),
        _ => Err(format!("the body is not a JSON object: {}", s.summary())),
    }
}

fn field(s: &Sent, name: &str, want: &str, ok: fn(&Value) -> bool) -> Option<String> {
    match json_field(s, name) {
        Err(e) => Some(e),
        Ok(None) => Some(format!("`{name}` is missing: {}", s.summary())),
        Ok(Some(v)) if !ok(&v) => Some(format!("`{name}` is {v}, not {want}")),
        Ok(Some(_)) => None,
    }
}

fn is_int(v: &Value) -> bool {
    v.is_i64() || v.is_u64()
}

pub fn checks() -> Vec<Check> {
    const NO_ERRORS: &str = "the target answered none of the probes with an error";
    const NO_400: &str = "the target answered none of the probes with 400";
    const NO_417: &str = "the target answered none of the probes with 417";
    let is_400: fn(&Sent) -> bool = |s| s.status() == Some(400);
    let is_417: fn(&Sent) -> bool = |s| s.status() == Some(417);
    vec![
        Check {
            id: "errors/json".into(),
            level: Level::Must,
            section: "7",
            quote: "Error responses are JSON.",
            title: "error answers have a JSON body".into(),
            sends: PROBES.into(),
            expects: "every 4xx/5xx answer has a body that parses as JSON".into(),
            run: over_probes(is_error, NO_ERRORS, |s| match s.raw().and_then(|r| r.json()) {
                Some(_) => None,
                None => Some(s.summary()),
            }),
        },
        Check {
            id: "errors/content-type".into(),
            level: Level::Must,
            section: "7",
            quote: "Both carry the `Content-Type: application/json` header",
            title: "error answers say Content-Type: application/json".into(),
            sends: PROBES.into(),
            expects: "every 4xx/5xx answer has Content-Type application/json (parameters such as charset allowed)".into(),
            run: over_probes(is_error, NO_ERRORS, |s| {
                let ct = s.raw().and_then(|r| r.header("content-type")).unwrap_or("");
                let media = ct.split(';').next().unwrap_or("").trim();
                (!media.eq_ignore_ascii_case("application/json")).then(|| {
                    if ct.is_empty() {
                        "no Content-Type".to_owned()
                    } else {
                        format!("Content-Type is `{ct}`")
                    }
                })
            }),
        },
        Check {
            id: "errors/x-project-uuid".into(),
            level: Level::Must,
            section: "7",
            quote: "Both carry the `Content-Type: application/json` header and an `X-Project-Uuid` header.",
            title: "error answers carry X-Project-Uuid".into(),
            sends: PROBES.into(),
            expects: "every 4xx/5xx answer has an X-Project-Uuid header".into(),
            run: over_probes(is_error, NO_ERRORS, |s| {
                s.raw()
                    .and_then(|r| r.header("x-project-uuid"))
                    .is_none()
                    .then(|| format!("no X-Project-Uuid: {}", s.summary()))
            }),
        },
        Check {
            id: "errors/x-project-uuid/uuid".into(),
            level: Level::Must,
            section: "2",
            quote: "X-Project-Uuid | string, uuid | Identifier of the project, `<project_uuid>`",
            title: "X-Project-Uuid is a uuid".into(),
            sends: PROBES.into(),
            expects: "every X-Project-Uuid sent (on any answer) is a uuid".into(),
            run: over_probes(|s| s.raw().and_then(|r| r.header("x-project-uuid")).is_some(), "no answer carried X-Project-Uuid", |s| {
                let v = s
                    .raw()
                    .and_then(|r| r.header("x-project-uuid"))
                    .unwrap_or("");
                (!is_uuid(v)).then(|| format!("X-Project-Uuid `{v}` is not a uuid"))
            }),
        },
        Check {
            id: "errors/x-project-uuid/same".into(),
            level: Level::Must,
            section: "2",
            quote: "X-Project-Uuid | string, uuid | Identifier of the project, `<project_uuid>`",
            title: "X-Project-Uuid is the same on every answer of one target".into(),
            sends: PROBES.into(),
            expects: "every X-Project-Uuid sent (on any answer) has the same value".into(),
            run: Run::new(same_project_uuid),
        },
        Check {
            id: "errors/400/code".into(),
            level: Level::Must,
            section: "7.1",
            quote: "code | integer | Error code.",
            title: "a 400 body's `code` is an integer".into(),
            sends: PROBES.into(),
            expects: "every 400 answer's body has `code`, an integer".into(),
            run: over_probes(is_400, NO_400, |s| field(s, "code", "an integer", is_int)),
        },
        Check {
            id: "errors/400/message".into(),
            level: Level::Must,
            section: "7.1",
            quote: "message | string | Error message.",
            title: "a 400 body's `message` is a string".into(),
            sends: PROBES.into(),
            expects: "every 400 answer's body has `message`, a string".into(),
            run: over_probes(is_400, NO_400, |s| field(s, "message", "a string", Value::is_string)),
        },
        Check {
            id: "errors/400/request-id".into(),
            level: Level::Must,
            section: "7.1",
            quote: "request_id | string | Identifier of the request.",
            title: "a 400 body's `request_id` is a string".into(),
            sends: PROBES.into(),
            expects: "every 400 answer's body has `request_id`, a string".into(),
            run: over_probes(is_400, NO_400, |s| field(s, "request_id", "a string", Value::is_string)),
        },
        Check {
            id: "errors/400/request-id/distinct".into(),
            level: Level::Must,
            section: "7.1",
            quote: "request_id | string | Identifier of the request.",
            title: "no two answers share a `request_id`".into(),
            sends: PROBES.into(),
            expects: "every `request_id` sent (on any answer) differs from the others: each identifies its own request".into(),
            run: Run::new(distinct_request_ids),
        },
        Check {
            id: "errors/400/status".into(),
            level: Level::Must,
            section: "7.1",
            quote: "status | boolean | `false` on an error.",
            title: "a 400 body's `status` is false".into(),
            sends: PROBES.into(),
            expects: "every 400 answer's body has `status`: false".into(),
            run: over_probes(is_400, NO_400, |s| field(s, "status", "false", |v| v == &Value::Bool(false))),
        },
        Check {
            id: "errors/417/code".into(),
            level: Level::Must,
            section: "7.2",
            quote: "code | integer | Error code.",
            title: "a 417 body's `code` is an integer".into(),
            sends: PROBES.into(),
            expects: "every 417 answer's body has `code`, an integer".into(),
            run: over_probes(is_417, NO_417, |s| field(s, "code", "an integer", is_int)).needs(&[Need::Authorize]),
        },
        Check {
            id: "errors/417/errors".into(),
            level: Level::Must,
            section: "7.2",
            quote: "errors | array | List of validation errors.",
            title: "a 417 body's `errors` is an array".into(),
            sends: PROBES.into(),
            expects: "every 417 answer's body has `errors`, an array".into(),
            run: over_probes(is_417, NO_417, |s| field(s, "errors", "an array", Value::is_array)).needs(&[Need::Authorize]),
        },
        Check {
            id: "errors/417/status".into(),
            level: Level::Must,
            section: "7.2",
            quote: "status | boolean | `false` on an error.",
            title: "a 417 body's `status` is false".into(),
            sends: PROBES.into(),
            expects: "every 417 answer's body has `status`: false".into(),
            run: over_probes(is_417, NO_417, |s| field(s, "status", "false", |v| v == &Value::Bool(false))).needs(&[Need::Authorize]),
        },
    ]
}

async fn same_project_uuid(t: Arc<RunContext>) -> Outcome {
    let all = probes(&t).await;
    let values: Vec<(&str, &str)> = all
        .iter()
        .filter_map(|s| {
            s.raw()
                .and_then(|r| r.header("x-project-uuid"))
                .map(|v| (s.exchange.label.as_str(), v))
        })
        .collect();
    let outcome = match values.first() {
        None => Outcome::not_applicable("no answer carried X-Project-Uuid", exchanges(all)),
        Some(_) if values.len() < 2 => Outcome::not_applicable(
            "fewer than two answers carried X-Project-Uuid",
            exchanges(all),
        ),
        Some((_, first)) => {
            let differing: Vec<String> = values
                .iter()
                .filter(|(_, v)| v != first)
                .map(|(l, v)| format!("{l}: `{v}`"))
                .collect();
            if differing.is_empty() {
                Outcome::pass(exchanges(all))
            } else {
                Outcome::fail(
                    format!(
                        "{} answers say `{first}`, these differ:\n{}",
                        values.len() - differing.len(),
                        differing.join("\n")
                    ),
                    exchanges(all),
                )
            }
        }
    };
    outcome.in_group(GROUP)
}

async fn distinct_request_ids(t: Arc<RunContext>) -> Outcome {
    let all = probes(&t).await;
    let ids: Vec<(&str, String)> = all
        .iter()
        .filter_map(|s| {
            let id = s.raw()?.json()?.get("request_id")?.as_str()?.to_owned();
            Some((s.exchange.label.as_str(), id))
        })
        .collect();
    let outcome = if ids.len() < 2 {
        Outcome::not_applicable(
            "fewer than two answers carried a request_id",
            exchanges(all),
        )
    } else {
        let mut seen = std::collections::HashMap::new();
        let repeats: Vec<String> = ids
            .iter()
            .filter_map(|(label, id)| {
                seen.insert(id.as_str(), *label)
                    .map(|first| format!("{label}: `{id}`, as {first}"))
            })
            .collect();
        Outcome::from_failures(repeats, exchanges(all))
    };
    outcome.in_group(GROUP)
}
