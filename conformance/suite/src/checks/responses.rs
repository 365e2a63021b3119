//! §1 What the service does: responses are JSON, and Auth Claims returns
//! the model that claimed the authentication.

use crate::case::{Answer, CaseCheck, Change, Expect, Found, Label, Sends, To};
use crate::catalogue::{Check, Cites, Level, Subject};
use conformance_model::choices::ChoiceKey;
use conformance_model::choices::Choices;
use conformance_requirements as requirement;
use conformance_wire::carried::holds_string;
use conformance_wire::request::Op;

pub fn checks() -> Vec<Check> {
    [
        CaseCheck {
            id: "responses/json",
            subject: Subject::NONE,
            level: Level::Must,
            section: "1",
            cites: Cites::Requirement(&requirement::RESPONSES_JSON),
            title: "successful answers are JSON".into(),
            sends: Sends::both(To::Each, Change::Nothing)
                .labelled(Label::Template("{method} {component}")),
            expects: Expect::Custom {
                text: "a 2xx answer whose body parses as JSON",
                judge: json,
            },
        },
        CaseCheck {
            id: "responses/auth-claims/model",
            subject: Subject::op(Op::AuthClaims),
            // The model's fields are not shown, so whether it is named by
            // its uuid is the server's choice (ours: spec choice 2).
            level: Level::Should,
            section: "1",
            cites: Cites::Norm("spec choice 2: Auth Claims names the model by its uuid (The read operation returns the model that claimed the authentication (\"Auth Claims\").)"),
            title: "Auth Claims returns the model bound to the token sent".into(),
            sends: Sends::each(Op::AuthClaims, To::EachWithTokenAndModel, Change::Nothing)
                .labelled(Label::Template("{component}")),
            expects: Expect::Together {
                text: "where `choices.claims_carry_model_uuid` is true (ours): a 2xx answer whose JSON body holds that model's uuid (anywhere, as a string); where false: a 2xx answer",
                choice: Some(ChoiceKey::ClaimsCarryModelUuid),
                judge: claims_the_model,
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

/// Each answer served, and where the profile (or ours) says the model is
/// named by its uuid, with the uuid of the component's model in the body.
fn claims_the_model(answers: &[Answer<'_>], choices: &Choices) -> Found {
    let named = choices.claims_carry_model_uuid().value;
    Found::Failures(
        answers
            .iter()
            .filter_map(|a| {
                let judged = if named {
                    holds_model(a)
                } else {
                    crate::checks::accepted(a.sent)
                };
                judged.err().map(|e| {
                    let again = crate::judge::reproduce(&a.sent.exchange);
                    format!("{}: {e}{again}", a.sent.exchange.label)
                })
            })
            .collect(),
    )
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
