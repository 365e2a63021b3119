//! §3 States and transitions: "not shown". A server may keep state: a
//! successful Authorize may change what Auth Claims returns, as one that
//! records claims does. The run is scheduled so that no other verdict
//! depends on it ([`conformance_wire::phase`]); this check holds the server to it
//! where the profile says it does (`choices.authorize_claims`, which
//! `conformance choices` observes): after Authorize succeeds, Auth Claims
//! returns that model.
//!
//! Each check has a run of its own ([`Sends::Own`]): a second request
//! carries the token the first was answered with, and runs alone right
//! after it ([`Phase::Verify`]), so no other write lands in between.

use conformance_requirements as requirement;
use std::sync::Arc;

use component_auth_bindings::Secret;
use component_auth_bindings::types::{AuthFields, ProjectEnv};

use crate::case::{CaseCheck, Expect, Sends};
use crate::catalogue::{Check, Cites, Level, Outcome, Run, Subject};
use crate::checks::judge_all;
use crate::context::RunContext;
use crate::judge::reproduce;
use crate::needs::Need;
use conformance_model::choices::ChoiceKey;
use conformance_wire::phase::Phase;
use conformance_wire::request::{Op, Probe, Sent};

/// Reads of one state that read the claim back, each on a fresh connection
/// right after the one before: two reach both instances behind a
/// round-robin balancer; three, three instances (or more workers, most
/// runs).
const READS_BACK: usize = 3;

pub fn checks() -> Vec<Check> {
    vec![
    CaseCheck {
        id: "state/read-back",
        level: Level::Must,
        section: "1",
        cites: Cites::Requirement(&requirement::AUTH_CLAIMS_RETURNS_THE_MODEL),
        title: "every read of one state returns the same claim, whichever connection (instance, worker) answers".into(),
        sends: Sends::Own {
            text: format!("after every other request, alone (nothing else in flight), to each component with an `authorize` section: a valid Authorize of `authorize.second_model` (where the profile has one), then {READS_BACK} valid Auth Claims in a row, each on a connection of its own (with the token the Authorize issued, where it issued one); then the same with the profile's model (the settled state back)"),
            run: Run::procedure(Phase::Quiet, read_back).needs(&[Need::Authorize]),
        },
        expects: Expect::Own("the reads after one Authorize agree: the same status, and each names the model just authorized or none does (a claim seen by some reads and not by others is state held by one instance or one worker of the server: a read must return the model that claimed the authentication whoever answers)".into()),
        subject: Subject::NONE,
    }
    .into(),
    CaseCheck {
        id: "state/authorize-claims",
        level: Level::Should,
        section: "3",
        cites: Cites::Norm("spec choices 3 and 5: Authorize issues a token bound to its model, and Auth Claims returns the model bound to the token sent"),
        title: "after Authorize succeeds, Auth Claims returns that model".into(),
        sends: Sends::Own {
            text: "to each component with an `authorize` section, alone and in turn: a valid Authorize, then a valid Auth Claims carrying the token the Authorize issued (where it issued one; else the profile's)".into(),
            run: Run::procedure(Phase::Verify, authorize_claims)
                .needs(&[Need::Authorize])
                .choice(ChoiceKey::AuthorizeClaims),
        },
        expects: Expect::Own("where `choices.authorize_claims` is true (ours): the Authorize a 2xx, the Auth Claims a 2xx whose body holds the authorized model's uuid (not applicable where `choices.claims_carry_model_uuid` is false); where false: not applicable".into()),
        subject: Subject::NONE,
    }
    .into(),
    CaseCheck {
        id: "state/environments",
        level: Level::Must,
        section: "5",
        cites: Cites::Requirement(&requirement::PROJECT_ENV_SELECTS),
        title: "a claim made in one environment is not the claim of the other".into(),
        sends: Sends::Own {
            text: "to each component with `authorize.second_model`, alone and in turn: Authorize of the first model with `X-Project-Env: dev`, of the second with `live`, then Auth Claims in `dev` and in `live` (each with the token its environment's Authorize issued, where it issued one, and that model's body), then Authorize of the first model in `live` again (the settled state back)".into(),
            run: Run::procedure(Phase::Verify, environments)
                .needs(&[Need::Authorize, Need::SecondModel]),
        },
        expects: Expect::Own("both Authorize a 2xx; Auth Claims in `dev` names the first model, in `live` the second, and neither names only the model of the other environment (a claim kept for both environments leaks from one into the other); a model is named by its uuid, or where `choices.claims_carry_model_uuid` is false by a value of its body the other's lacks; not applicable where `choices.authorize_claims` is false".into()),
        subject: Subject::NONE,
    }
    .into()]
}

/// What the reads of one state saw: its status, and whether it names the
/// model just authorized (and the other one).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Seen {
    status: Option<u16>,
    names_model: bool,
    names_other: bool,
}

impl Seen {
    fn of(sent: &Sent, marks: &[String], other: &[String]) -> Self {
        let body = sent.raw().and_then(|r| r.json());
        let names = |marks: &[String]| {
            body.as_ref().is_some_and(|b| {
                marks
                    .iter()
                    .any(|m| conformance_wire::carried::holds_string(b, m))
            })
        };
        Seen {
            status: sent.status(),
            names_model: names(marks),
            names_other: names(other),
        }
    }

    fn words(self) -> String {
        let status = self
            .status
            .map_or("no answer".to_owned(), |s| format!("HTTP {s}"));
        match (self.names_model, self.names_other) {
            (true, _) => format!("{status} naming the model just authorized"),
            (false, true) => format!("{status} naming the model claimed before"),
            (false, false) => format!("{status} naming neither model"),
        }
    }
}

/// A model of a component: its uuid and its valid body.
type Model<'a> = (&'a str, &'a AuthFields);

/// What names a model in an answer: its uuid, and where the profile says
/// claims carry no uuid, the values of its body (three characters or
/// more, never a secret field's) that the other model's body lacks.
fn model_marks(
    c: &conformance_model::profile::Component,
    carries_uuid: bool,
    this: Model<'_>,
    other: Option<Model<'_>>,
) -> Vec<String> {
    let mut marks = vec![this.0.to_owned()];
    if carries_uuid {
        return marks;
    }
    marks.extend(this.1.iter().filter_map(|(name, v)| {
        let text = v.as_str()?;
        let theirs = other.is_some_and(|o| o.1.values().any(|o| o.as_str() == Some(text)));
        (!c.is_secret_field(name) && !theirs && text.len() >= 3).then(|| text.to_owned())
    }));
    marks
}

/// Writes read back through every path: after an Authorize, several reads
/// of the state it made, each on a fresh connection right after the one
/// before, with nothing else in flight ([`Phase::Quiet`]), must all see the
/// same claim. A balancer's round robin, or a pool of workers, spreads
/// them over the server's instances: state kept by one instance (claims in
/// its memory, a cache per worker) shows as reads that disagree, whatever
/// the server chose to return.
async fn read_back(t: Arc<RunContext>) -> Outcome {
    let carries = t.profile().choices.claims_carry_model_uuid().value;
    let mut cases: Vec<(String, Sent, Result<(), String>)> = Vec::new();
    for c in t.requests.components(Op::Authorize) {
        let Some(a) = c.authorize.as_ref() else {
            continue;
        };
        let first = (a.model_uuid.as_str(), &a.valid_body);
        let second = a
            .second_model
            .as_ref()
            .map(|m| (m.model_uuid.as_str(), &m.valid_body));
        // The second model first (a change every instance must see), then
        // the profile's own (the settled state back).
        let writes: Vec<(Model<'_>, Option<Model<'_>>)> = match second {
            Some(second) => vec![(second, Some(first)), (first, Some(second))],
            None => vec![(first, None)],
        };
        for (model, other) in writes {
            let label = format!("Authorize {} model {}", c.name, model.0);
            let write = t
                .send(Probe::new(
                    label.clone(),
                    t.requests.valid_as(Op::Authorize, c, &c.name, Some(model)),
                ))
                .await;
            let served = write
                .raw()
                .filter(|r| (200..300).contains(&r.status))
                .map(|r| r.json());
            let token = served
                .flatten()
                .as_ref()
                .and_then(conformance_wire::carried::issued_token);
            let was_served = write.status().is_some_and(|s| (200..300).contains(&s));
            cases.push((label, write, Ok(())));
            if !was_served {
                // Nothing was claimed: other checks judge the refusal.
                continue;
            }
            let marks = model_marks(c, carries, model, other);
            let other_marks =
                other.map_or_else(Vec::new, |o| model_marks(c, carries, o, Some(model)));
            let mut reads = Vec::new();
            for n in 1..=READS_BACK {
                let mut req = t.requests.valid_as(Op::AuthClaims, c, &c.name, Some(model));
                if let Some(token) = &token {
                    req = req.and_then(|r| r.set_header("X-Auth-Token", token));
                }
                let label = format!("Auth Claims {} read {n} of {READS_BACK}", c.name);
                let sent = t.send(Probe::new(label.clone(), req)).await;
                reads.push((label, sent));
            }
            let seen: Vec<Seen> = reads
                .iter()
                .map(|(_, s)| Seen::of(s, &marks, &other_marks))
                .collect();
            let disagree = seen.iter().any(|s| *s != seen[0]);
            let verdict = match disagree {
                false => Ok(()),
                true => {
                    let each: Vec<String> = seen
                        .iter()
                        .enumerate()
                        .map(|(i, s)| format!("read {}: {}", i + 1, s.words()))
                        .collect();
                    let first_differing = seen.iter().position(|s| *s != seen[0]).unwrap_or(0);
                    Err(format!(
                        "after Authorize of model `{}`, {READS_BACK} reads of that one state on fresh connections disagree ({}): some reads did not see the claim the others did, so the state is held per instance or per worker? A read must return the model that claimed the authentication whichever instance answers; {}{}",
                        model.0,
                        each.join("; "),
                        reads[first_differing].1.summary(),
                        reproduce(&reads[first_differing].1.exchange)
                    ))
                }
            };
            let last = reads.len() - 1;
            for (i, (label, sent)) in reads.into_iter().enumerate() {
                let v = if i == last { verdict.clone() } else { Ok(()) };
                cases.push((label, sent, v));
            }
        }
    }
    judge_all(cases)
}

/// Each environment keeps its own claim: the first model claimed in `dev`,
/// the second in `live`, each read back in its environment. A model is
/// recognised in an answer by its uuid, or by a value of its body that the
/// other model's body does not have (a server that names a model by its
/// fields), never by a secret field's value.
async fn environments(t: Arc<RunContext>) -> Outcome {
    let choices = &t.profile().choices;
    if !choices.authorize_claims().value {
        return Outcome::not_applicable(
            "the profile declares that Auth Claims does not follow Authorize (`choices.authorize_claims: false`): no claim to read back",
            Vec::new(),
        );
    }
    let carries = choices.claims_carry_model_uuid();
    let mut cases: Vec<(String, Sent, Result<(), String>)> = Vec::new();
    let mut unnamed = false;
    for c in t.requests.components(Op::Authorize) {
        let Some(a) = c.authorize.as_ref() else {
            continue;
        };
        let Some(second) = a.second_model.as_ref() else {
            continue;
        };
        let first = (a.model_uuid.as_str(), &a.valid_body);
        let second = (second.model_uuid.as_str(), &second.valid_body);
        let _alone = t.alone(&c.name).await;
        let in_env = |op: Op, model: (&str, &AuthFields), env: ProjectEnv| {
            t.requests
                .valid_as(op, c, &c.name, Some(model))
                .and_then(|r| r.set_header("X-Project-Env", env.as_str()))
        };
        let marks = |this: (&str, &AuthFields), other: (&str, &AuthFields)| {
            model_marks(c, carries.value, this, Some(other))
        };
        let mut tokens = Vec::new();
        let mut served = true;
        for (model, env) in [(first, ProjectEnv::Dev), (second, ProjectEnv::Live)] {
            let label = format!("Authorize {} model {} in {env}", c.name, model.0);
            let sent = t
                .send(Probe::new(label.clone(), in_env(Op::Authorize, model, env)))
                .await;
            let ok = sent.status().is_some_and(|s| (200..300).contains(&s));
            tokens.push(
                sent.raw()
                    .filter(|_| ok)
                    .and_then(|r| r.json())
                    .and_then(|b| conformance_wire::carried::issued_token(&b)),
            );
            let verdict = match ok {
                true => Ok(()),
                false => {
                    served = false;
                    Err(format!(
                        "the Authorize that claims model `{}` in `{env}` was not served: {}",
                        model.0,
                        sent.summary()
                    ))
                }
            };
            let verdict = verdict.map_err(|why| format!("{why}{}", reproduce(&sent.exchange)));
            cases.push((label, sent, verdict));
        }
        if served {
            for ((model, other), (env, token)) in [(first, second), (second, first)]
                .into_iter()
                .zip([ProjectEnv::Dev, ProjectEnv::Live].into_iter().zip(&tokens))
            {
                let read = || {
                    let mut req = in_env(Op::AuthClaims, model, env);
                    if let Some(token) = token {
                        req = req.and_then(|r| r.set_header("X-Auth-Token", token));
                    }
                    req
                };
                let label = format!("Auth Claims {} in {env}", c.name);
                let sent = t.send(Probe::new(label.clone(), read())).await;
                let names = |b: &serde_json::Value, marks: &[String]| {
                    marks
                        .iter()
                        .any(|m| conformance_wire::carried::holds_string(b, m))
                };
                let verdict = match sent.raw() {
                    Some(r) if (200..300).contains(&r.status) => match r.json() {
                        // The model claimed here, whatever else the answer names.
                        Some(b) if names(&b, &marks(model, other)) => Ok(()),
                        Some(b) if names(&b, &marks(other, model)) => {
                            // The other environment's model: a leak, unless
                            // the same read on other connections names this
                            // one (then the instance, not the environment,
                            // is what differs).
                            let mut agreeing = 0;
                            for _ in 0..READS_BACK {
                                let again =
                                    t.send(Probe::new(format!("{label} (again)"), read())).await;
                                let right = again
                                    .raw()
                                    .filter(|r| (200..300).contains(&r.status))
                                    .and_then(|r| r.json())
                                    .is_some_and(|b| names(&b, &marks(model, other)));
                                agreeing += usize::from(right);
                            }
                            Err(match agreeing {
                                0 => format!(
                                    "in `{env}` the claim is model `{}`, claimed in the other environment: a claim leaks from one environment into the other; {}",
                                    other.0,
                                    sent.summary()
                                ),
                                n => format!(
                                    "in `{env}` one read named model `{}` (claimed in the other environment) and {n} of {READS_BACK} more of the same read, each on a fresh connection, named model `{}` (claimed here): the reads of one state disagree, so the state is held per instance or per worker, not per environment? {}",
                                    other.0,
                                    model.0,
                                    sent.summary()
                                ),
                            })
                        }
                        // Names neither: only a leak can be judged, and
                        // none shows, unless the profile says the uuid is
                        // there.
                        _ if !carries.declared || !carries.value => {
                            unnamed = true;
                            Ok(())
                        }
                        _ => Err(format!(
                            "in `{env}` the model `{}` claimed there is not in the answer: {}",
                            model.0,
                            sent.summary()
                        )),
                    },
                    _ => Err(sent.summary()),
                };
                let verdict = verdict.map_err(|why| format!("{why}{}", reproduce(&sent.exchange)));
                cases.push((label, sent, verdict));
            }
        }
        // The settled state back: the first model in `live` too.
        let label = format!(
            "Authorize {} model {} in live (settled again)",
            c.name, first.0
        );
        let sent = t
            .send(Probe::new(
                label.clone(),
                in_env(Op::Authorize, first, ProjectEnv::Live),
            ))
            .await;
        cases.push((label, sent, Ok(())));
    }
    let mut outcome = judge_all(cases);
    if unnamed && matches!(outcome.verdict, crate::catalogue::Verdict::Pass) {
        outcome.note = Some(
            "Auth Claims named neither model, by its uuid or by its fields: a leak would show only as the other model; declare `choices.claims_carry_model_uuid` to hold the server to naming it".to_owned(),
        );
    }
    outcome
}

async fn authorize_claims(t: Arc<RunContext>) -> Outcome {
    let choices = &t.profile().choices;
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
    for c in t.requests.components(Op::Authorize) {
        let Some(model) = c.authorize.as_ref().map(|a| a.model_uuid.clone()) else {
            continue;
        };
        let label = format!("Authorize {}", c.name);
        let _alone = t.alone(&c.name).await;
        let first = t
            .send(Probe::new(
                label.clone(),
                t.requests.valid(Op::Authorize, c),
            ))
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
        let token = body
            .as_ref()
            .and_then(conformance_wire::carried::issued_token);
        let (with, req) = match token {
            Some(token) => (
                "with the issued token",
                t.requests.claims_with_token(c, Secret::new(token)),
            ),
            None => (
                "as the profile sends it",
                t.requests.valid(Op::AuthClaims, c),
            ),
        };
        let label2 = format!("Auth Claims {} {with}", c.name);
        let second = t.send(Probe::new(label2.clone(), req)).await;
        let verdict = match second.raw() {
            Some(r) if (200..300).contains(&r.status) => match r.json() {
                Some(b) if conformance_wire::carried::holds_string(&b, &model) => Ok(()),
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
