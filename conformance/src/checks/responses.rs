//! §1 What the service does: responses are JSON, and Auth Claims returns
//! the model that claimed the authentication.

use serde_json::Value;

use crate::case::{Answer, CaseCheck, Change, Expect, Label, Sends, To};
use crate::catalogue::{Check, Level};
use crate::target::Op;

pub fn checks() -> Vec<Check> {
    [
        CaseCheck {
            id: "responses/json".into(),
            level: Level::Must,
            section: "1",
            quote: "Responses are JSON.",
            title: "successful answers are JSON".into(),
            sends: Sends::both(To::Each, Change::Nothing)
                .labelled(Label::Template("{method} {component}")),
            expects: Expect::Custom {
                text: "a 2xx answer whose body parses as JSON",
                judge: json,
            },
        },
        CaseCheck {
            id: "responses/auth-claims/model".into(),
            level: Level::Must,
            section: "1",
            quote: "The read operation returns the model that claimed the authentication (\"Auth Claims\").",
            title: "Auth Claims returns the model bound to the token sent".into(),
            sends: Sends::each(Op::AuthClaims, To::EachWithTokenAndModel, Change::Nothing)
                .labelled(Label::Template("{component}")),
            expects: Expect::Custom {
                text: "a 2xx answer whose JSON body holds that model's uuid (anywhere, as a string)",
                judge: holds_model,
            },
        },
    ]
    .into_iter()
    .map(Check::from)
    .collect()
}

fn json(a: &Answer<'_>) -> Result<(), String> {
    let s = a.sent;
    match (s.status(), s.raw().and_then(|r| r.json())) {
        (Some(st), Some(_)) if (200..300).contains(&st) => Ok(()),
        _ => Err(s.summary()),
    }
}

fn holds_string(v: &Value, want: &str) -> bool {
    match v {
        Value::String(s) => s.eq_ignore_ascii_case(want),
        Value::Array(items) => items.iter().any(|i| holds_string(i, want)),
        Value::Object(map) => map.values().any(|i| holds_string(i, want)),
        _ => false,
    }
}

/// Served, with the model of the component's `authorize` in the body.
fn holds_model(a: &Answer<'_>) -> Result<(), String> {
    let want = a
        .component
        .and_then(|c| c.authorize.as_ref())
        .map(|m| m.model_uuid.as_str())
        .unwrap_or_default();
    let ex = &a.sent.exchange;
    let ok = ex.response.as_ref().is_some_and(|r| {
        (200..300).contains(&r.status) && r.body.as_ref().is_some_and(|b| holds_string(b, want))
    });
    if ok {
        Ok(())
    } else {
        Err(format!(
            "the model `{want}` is not in the answer: {}",
            ex.summary()
        ))
    }
}
