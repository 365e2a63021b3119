//! §3 States and transitions: "not shown". A server may keep state: a
//! successful Authorize may change what Auth Claims returns, as one that
//! records claims does. The run is scheduled so that no other verdict
//! depends on it ([`crate::phase`]); this check holds the server to it
//! where the profile says it does (`choices.authorize_claims`, which
//! `conformance choices` observes): after Authorize succeeds, Auth Claims
//! returns that model.
//!
//! A procedure, not a declaration ([`crate::case`]): its second request
//! carries the token the first was answered with, and runs alone right
//! after it ([`Phase::Verify`]), so no other write lands in between.

use std::sync::Arc;

use component_auth_bindings::Secret;

use crate::catalogue::{Check, Level, Outcome, Run, Subject};
use crate::checks::judge_all;
use crate::choices::ChoiceKey;
use crate::context::RunContext;
use crate::needs::Need;
use crate::phase::Phase;
use crate::target::{Op, Probe, Sent};

pub fn checks() -> Vec<Check> {
    vec![Check {
        id: "state/authorize-claims",
        level: Level::Should,
        section: "3",
        quote: "spec choices 3 and 5: Authorize issues a token bound to its model, and Auth Claims returns the model bound to the token sent",
        title: "after Authorize succeeds, Auth Claims returns that model".into(),
        sends: "to each component with an `authorize` section, alone and in turn: a valid Authorize, then a valid Auth Claims carrying the token the Authorize issued (where it issued one; else the profile's)".into(),
        expects: "where `choices.authorize_claims` is true (ours): the Authorize a 2xx, the Auth Claims a 2xx whose body holds the authorized model's uuid (not applicable where `choices.claims_carry_model_uuid` is false); where false: not applicable".into(),
        run: Run::procedure(Phase::Verify, authorize_claims)
            .needs(&[Need::Authorize])
            .choice(ChoiceKey::AuthorizeClaims),
        subject: Subject::NONE,
    }]
}

async fn authorize_claims(t: Arc<RunContext>) -> Outcome {
    let choices = &t.profile.choices;
    let claims = choices.authorize_claims();
    if !claims.value {
        return Outcome::not_applicable(
            "the profile declares that Auth Claims does not follow Authorize (`choices.authorize_claims: false`)",
            Vec::new(),
        );
    }
    if !choices.claims_carry_model_uuid().value {
        return Outcome::not_applicable(
            "the profile declares that Auth Claims names no model by its uuid (`choices.claims_carry_model_uuid: false`)",
            Vec::new(),
        );
    }
    let allowed = match claims.declared {
        true => "",
        false => {
            " (a server whose claims do not follow Authorize is allowed: declare `choices.authorize_claims: false`)"
        }
    };
    let mut cases: Vec<(String, Sent, Result<(), String>)> = Vec::new();
    for c in t.components(Op::Authorize) {
        let Some(model) = c.authorize.as_ref().map(|a| a.model_uuid.clone()) else {
            continue;
        };
        let label = format!("Authorize {}", c.name);
        let _alone = t.alone(&c.name).await;
        let first = t
            .send(Probe::new(label.clone(), t.valid(Op::Authorize, c)))
            .await;
        let served = first
            .raw()
            .filter(|r| (200..300).contains(&r.status))
            .map(|r| r.json());
        let Some(body) = served else {
            let why = first.summary();
            cases.push((label, first, Err(why)));
            continue;
        };
        let token = body.as_ref().and_then(crate::carried::issued_token);
        let (with, req) = match token {
            Some(token) => (
                "with the issued token",
                t.claims_with_token(c, Secret::new(token)),
            ),
            None => ("as the profile sends it", t.valid(Op::AuthClaims, c)),
        };
        let label2 = format!("Auth Claims {} {with}", c.name);
        let second = t.send(Probe::new(label2.clone(), req)).await;
        let verdict = match second.raw() {
            Some(r) if (200..300).contains(&r.status) => match r.json() {
                Some(b) if crate::carried::holds_string(&b, &model) => Ok(()),
                _ => Err(format!(
                    "the model `{model}` just authorized is not in the answer: {}{allowed}",
                    second.summary()
                )),
            },
            _ => Err(second.summary()),
        };
        cases.push((label, first, Ok(())));
        cases.push((label2, second, verdict));
    }
    judge_all(cases)
}
