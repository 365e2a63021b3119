//! §7 Errors, §7.1 and §7.2, and the `X-Project-Uuid` row of §2: every
//! error answer is JSON with `Content-Type: application/json` and an
//! `X-Project-Uuid` (a uuid, the same on every answer of one target); a 400
//! body has the 7.1 shape and a 417 body the 7.2 shape.
//!
//! These checks judge one shared set of probes (requests that a conforming
//! server refuses, plus two it serves), sent once per run and stored as one
//! snapshot, `errors/probes`.

use conformance_requirements as requirement;
use serde_json::Value;

use crate::case::{Answer, CaseCheck, Expect, Found, JudgeAnswer, Sends};
use crate::catalogue::{Check, Cites, Level, Subject};
use crate::needs::Need;
use conformance_model::choices::Choices;
use conformance_model::profile::is_uuid;
use conformance_wire::request::Sent;

fn is_error(s: &Sent) -> bool {
    s.status().is_some_and(|st| (400..600).contains(&st))
}

fn is_400(s: &Sent) -> bool {
    s.status() == Some(400)
}

fn is_417(s: &Sent) -> bool {
    s.status() == Some(417)
}

fn has_project_uuid(s: &Sent) -> bool {
    project_uuid(s).is_some()
}

fn project_uuid(s: &Sent) -> Option<&str> {
    s.raw().and_then(|r| r.header("x-project-uuid"))
}

fn json_field(s: &Sent, name: &str) -> Result<Option<Value>, String> {
    let raw = s.raw().ok_or_else(|| s.summary())?;
    match raw.json() {
        Some(Value::Object(map)) => Ok(map.get(name).cloned()),
        _ => Err(format!("the body is not a JSON object: {}", s.summary())),
    }
}

fn field(a: &Answer<'_>, name: &str, want: &str, ok: fn(&Value) -> bool) -> Result<(), String> {
    let s = a.sent;
    match json_field(s, name) {
        Err(e) => Err(e),
        Ok(None) => Err(format!("`{name}` is missing: {}", s.summary())),
        Ok(Some(v)) if !ok(&v) => Err(format!("`{name}` is {v}, not {want}")),
        Ok(Some(_)) => Ok(()),
    }
}

fn is_int(v: &Value) -> bool {
    v.is_i64() || v.is_u64()
}

fn is_false(v: &Value) -> bool {
    v == &Value::Bool(false)
}

fn json_body(a: &Answer<'_>) -> Result<(), String> {
    match a.sent.raw().and_then(|r| r.json()) {
        Some(_) => Ok(()),
        None => Err(a.sent.summary()),
    }
}

fn json_content_type(a: &Answer<'_>) -> Result<(), String> {
    let ct = a
        .sent
        .raw()
        .and_then(|r| r.header("content-type"))
        .unwrap_or("");
    let media = ct.split(';').next().unwrap_or("").trim();
    if media.eq_ignore_ascii_case("application/json") {
        Ok(())
    } else if ct.is_empty() {
        Err("no Content-Type".to_owned())
    } else {
        Err(format!("Content-Type is `{ct}`"))
    }
}

fn carries_project_uuid(a: &Answer<'_>) -> Result<(), String> {
    match project_uuid(a.sent) {
        Some(_) => Ok(()),
        None => Err(format!("no X-Project-Uuid: {}", a.sent.summary())),
    }
}

fn project_uuid_is_uuid(a: &Answer<'_>) -> Result<(), String> {
    let v = project_uuid(a.sent).unwrap_or("");
    if is_uuid(v) {
        Ok(())
    } else {
        Err(format!("X-Project-Uuid `{v}` is not a uuid"))
    }
}

/// Each answer `applies` picks judged by `judge`; not applicable, for
/// the reason `none`, when the probes gave no such answer.
fn when(
    applies: fn(&Sent) -> bool,
    none: &'static str,
    text: &'static str,
    judge: JudgeAnswer,
) -> Expect {
    Expect::When {
        when: applies,
        none,
        text,
        judge,
    }
}

const NO_ERRORS: &str = "the target answered none of the probes with an error";
const NO_400: &str = "the target answered none of the probes with 400";
const NO_417: &str = "the target answered none of the probes with 417";

pub fn checks() -> Vec<Check> {
    let checks = [
        CaseCheck {
            id: "errors/json",
            subject: Subject::NONE,
            level: Level::Must,
            section: "7",
            cites: Cites::Requirement(&requirement::ERRORS_ARE_JSON),
            title: "error answers have a JSON body".into(),
            sends: Sends::error_probes(),
            expects: when(
                is_error,
                NO_ERRORS,
                "every 4xx/5xx answer has a body that parses as JSON",
                json_body,
            ),
        },
        CaseCheck {
            id: "errors/content-type",
            subject: Subject::NONE,
            level: Level::Must,
            section: "7",
            cites: Cites::Requirement(&requirement::ERRORS_CONTENT_TYPE),
            title: "error answers say Content-Type: application/json".into(),
            sends: Sends::error_probes(),
            expects: when(
                is_error,
                NO_ERRORS,
                "every 4xx/5xx answer has Content-Type application/json (parameters such as charset allowed)",
                json_content_type,
            ),
        },
        CaseCheck {
            id: "errors/x-project-uuid",
            subject: Subject::NONE,
            level: Level::Must,
            section: "7",
            cites: Cites::Requirement(&requirement::ERRORS_CARRY_HEADERS),
            title: "error answers carry X-Project-Uuid".into(),
            sends: Sends::error_probes(),
            expects: when(
                is_error,
                NO_ERRORS,
                "every 4xx/5xx answer has an X-Project-Uuid header",
                carries_project_uuid,
            ),
        },
        CaseCheck {
            id: "errors/x-project-uuid/uuid",
            subject: Subject::items(&["X-Project-Uuid"]),
            level: Level::Must,
            section: "2",
            cites: Cites::Requirement(&requirement::PROJECT_UUID),
            title: "X-Project-Uuid is a uuid".into(),
            sends: Sends::error_probes(),
            expects: when(
                has_project_uuid,
                "no answer carried X-Project-Uuid",
                "every X-Project-Uuid sent (on any answer) is a uuid",
                project_uuid_is_uuid,
            ),
        },
        CaseCheck {
            id: "errors/x-project-uuid/same",
            subject: Subject::items(&["X-Project-Uuid"]),
            level: Level::Must,
            section: "2",
            cites: Cites::Requirement(&requirement::PROJECT_UUID),
            title: "X-Project-Uuid is the same on every answer of one target".into(),
            sends: Sends::error_probes(),
            expects: Expect::Together {
                text: "every X-Project-Uuid sent (on any answer) has the same value",
                choice: None,
                judge: same_project_uuid,
            },
        },
        CaseCheck {
            id: "errors/400/code",
            subject: Subject::items(&["code"]),
            level: Level::Must,
            section: "7.1",
            cites: Cites::Requirement(&requirement::CODE),
            title: "a 400 body's `code` is an integer".into(),
            sends: Sends::error_probes(),
            expects: when(
                is_400,
                NO_400,
                "every 400 answer's body has `code`, an integer",
                |a| field(a, "code", "an integer", is_int),
            ),
        },
        CaseCheck {
            id: "errors/400/message",
            subject: Subject::items(&["message"]),
            level: Level::Must,
            section: "7.1",
            cites: Cites::Requirement(&requirement::MESSAGE),
            title: "a 400 body's `message` is a string".into(),
            sends: Sends::error_probes(),
            expects: when(
                is_400,
                NO_400,
                "every 400 answer's body has `message`, a string",
                |a| field(a, "message", "a string", Value::is_string),
            ),
        },
        CaseCheck {
            id: "errors/400/request-id",
            subject: Subject::items(&["request_id"]),
            level: Level::Must,
            section: "7.1",
            cites: Cites::Requirement(&requirement::REQUEST_ID),
            title: "a 400 body's `request_id` is a string".into(),
            sends: Sends::error_probes(),
            expects: when(
                is_400,
                NO_400,
                "every 400 answer's body has `request_id`, a string",
                |a| field(a, "request_id", "a string", Value::is_string),
            ),
        },
        CaseCheck {
            id: "errors/400/request-id/distinct",
            subject: Subject::items(&["request_id"]),
            level: Level::Must,
            section: "7.1",
            cites: Cites::Requirement(&requirement::REQUEST_ID),
            title: "no two answers share a `request_id`".into(),
            sends: Sends::error_probes(),
            expects: Expect::Together {
                text: "every `request_id` sent (on any answer) differs from the others: each identifies its own request",
                choice: None,
                judge: distinct_request_ids,
            },
        },
        CaseCheck {
            id: "errors/400/status",
            subject: Subject::items(&["status"]),
            level: Level::Must,
            section: "7.1",
            cites: Cites::Requirement(&requirement::STATUS),
            title: "a 400 body's `status` is false".into(),
            sends: Sends::error_probes(),
            expects: when(
                is_400,
                NO_400,
                "every 400 answer's body has `status`: false",
                |a| field(a, "status", "false", is_false),
            ),
        },
        CaseCheck {
            id: "errors/417/code",
            subject: Subject::items(&["code"]),
            level: Level::Must,
            section: "7.2",
            cites: Cites::Requirement(&requirement::CODE),
            title: "a 417 body's `code` is an integer".into(),
            sends: AUTHORIZE_PROBES,
            expects: when(
                is_417,
                NO_417,
                "every 417 answer's body has `code`, an integer",
                |a| field(a, "code", "an integer", is_int),
            ),
        },
        CaseCheck {
            id: "errors/417/errors",
            subject: Subject::items(&["errors"]),
            level: Level::Must,
            section: "7.2",
            cites: Cites::Requirement(&requirement::ERRORS_ARRAY),
            title: "a 417 body's `errors` is an array".into(),
            sends: AUTHORIZE_PROBES,
            expects: when(
                is_417,
                NO_417,
                "every 417 answer's body has `errors`, an array",
                |a| field(a, "errors", "an array", Value::is_array),
            ),
        },
        CaseCheck {
            id: "errors/417/status",
            subject: Subject::items(&["status"]),
            level: Level::Must,
            section: "7.2",
            cites: Cites::Requirement(&requirement::STATUS),
            title: "a 417 body's `status` is false".into(),
            sends: AUTHORIZE_PROBES,
            expects: when(
                is_417,
                NO_417,
                "every 417 answer's body has `status`: false",
                |a| field(a, "status", "false", is_false),
            ),
        },
    ];
    checks.into_iter().map(Check::from).collect()
}

/// The probes a 417 can come from: those of Authorize.
const AUTHORIZE_PROBES: Sends = Sends::ErrorProbes {
    needs: &[Need::Authorize],
};

fn same_project_uuid(answers: &[Answer<'_>], _: &Choices) -> Found {
    let values: Vec<(&str, &str)> = answers
        .iter()
        .filter_map(|a| project_uuid(a.sent).map(|v| (a.label, v)))
        .collect();
    match values.first() {
        None => Found::NotApplicable("no answer carried X-Project-Uuid".into()),
        Some(_) if values.len() < 2 => {
            Found::NotApplicable("fewer than two answers carried X-Project-Uuid".into())
        }
        Some((_, first)) => {
            let differing: Vec<String> = values
                .iter()
                .filter(|(_, v)| v != first)
                .map(|(l, v)| format!("{l}: `{v}`"))
                .collect();
            if differing.is_empty() {
                Found::Failures(Vec::new())
            } else {
                Found::Failures(vec![format!(
                    "{} answers say `{first}`, these differ:\n{}",
                    values.len() - differing.len(),
                    differing.join("\n")
                )])
            }
        }
    }
}

fn distinct_request_ids(answers: &[Answer<'_>], _: &Choices) -> Found {
    let ids = crate::case::request_ids(answers);
    if ids.len() < 2 {
        return Found::NotApplicable("fewer than two answers carried a request_id".into());
    }
    let mut seen = std::collections::HashMap::new();
    Found::Failures(
        ids.iter()
            .filter_map(|(label, id)| {
                seen.insert(id.as_str(), *label)
                    .map(|first| format!("{label}: `{id}`, as {first}"))
            })
            .collect(),
    )
}
