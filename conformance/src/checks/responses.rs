//! §1 What the service does: responses are JSON, and Auth Claims returns
//! the model that claimed the authentication.

use crate::context::RunContext;
use std::sync::Arc;

use serde_json::Value;

use crate::catalogue::{Check, Level, Outcome, Run};
use crate::checks::send_and_judge;
use crate::needs::Need;
use crate::target::{Op, Probe};

pub fn checks() -> Vec<Check> {
    vec![
        Check {
            id: "responses/json".into(),
            level: Level::Must,
            section: "1",
            quote: "Responses are JSON.",
            title: "successful answers are JSON".into(),
            sends: "a valid request of each operation to each component that can take it".into(),
            expects: "a 2xx answer whose body parses as JSON".into(),
            run: Run::new(json),
        },
        Check {
            id: "responses/auth-claims/model".into(),
            level: Level::Must,
            section: "1",
            quote: "The read operation returns the model that claimed the authentication (\"Auth Claims\").",
            title: "Auth Claims returns the model bound to the token sent".into(),
            sends: "a valid Auth Claims request with the profile's auth_token to each component that has one and an `authorize.model_uuid`".into(),
            expects: "a 2xx answer whose JSON body holds that model's uuid (anywhere, as a string)".into(),
            run: Run::new(model).needs(&[Need::TokenWithAuthorize]),
        },
    ]
}

async fn json(t: Arc<RunContext>) -> Outcome {
    let reqs = super::valid_to_each(&t);
    send_and_judge(&t, reqs, |s| {
        match (s.status(), s.raw().and_then(|r| r.json())) {
            (Some(st), Some(_)) if (200..300).contains(&st) => Ok(()),
            _ => Err(s.summary()),
        }
    })
    .await
}

fn holds_string(v: &Value, want: &str) -> bool {
    match v {
        Value::String(s) => s.eq_ignore_ascii_case(want),
        Value::Array(items) => items.iter().any(|i| holds_string(i, want)),
        Value::Object(map) => map.values().any(|i| holds_string(i, want)),
        _ => false,
    }
}

async fn model(t: Arc<RunContext>) -> Outcome {
    let comps: Vec<_> = t
        .profile
        .components
        .iter()
        .filter(|c| c.auth_token.is_some() && c.authorize.is_some())
        .collect();
    if comps.is_empty() {
        return Outcome::skip(
            "no component in the profile has both an auth_token and an `authorize` section",
        );
    }
    let reqs = comps
        .iter()
        .map(|c| Probe::new(c.name.clone(), t.valid(Op::AuthClaims, c)))
        .collect();
    // Judged below against each component's model uuid.
    let sent = send_and_judge(&t, reqs, |_| Ok(())).await;
    let mut failures = Vec::new();
    for (c, ex) in comps.iter().zip(&sent.exchanges) {
        let want = c
            .authorize
            .as_ref()
            .map(|a| a.model_uuid.as_str())
            .unwrap_or_default();
        let ok = ex.response.as_ref().is_some_and(|r| {
            (200..300).contains(&r.status) && r.body.as_ref().is_some_and(|b| holds_string(b, want))
        });
        if !ok {
            failures.push(format!(
                "{}: the model `{want}` is not in the answer: {}",
                c.name,
                ex.summary()
            ));
        }
    }
    Outcome::from_failures(failures, sent.exchanges)
}
