//! Choices where the description says "not shown": the server's own, as
//! its profile declares them (`choices:`, MUST: the gate holds the server
//! to what its team wrote down), else ours (`spec/README.md` numbers them;
//! SHOULD: reported, failing only with `--strict`). HTTP's own norms are
//! `http.rs`'s.
//!
//! Most choices are a status: each is one row of [`STATUS_CHOICES`], which
//! says what is sent and which choice judges the answer. The others are
//! declarations too; `choices/issued-token` has a run of its own
//! ([`Sends::Own`]): its second request carries the token the first was
//! answered with.

use crate::context::RunContext;
use conformance_model::choices::ChoiceKey;
use std::sync::Arc;

use component_auth_bindings::{AuthClaimsResponse, AuthorizeResponse, Secret};

use crate::case::{Answer, CaseCheck, Change, Expect, Found, Judge, Label, Sends, To};
use crate::catalogue::{Check, Cites, Level, Outcome, Run, Subject};
use crate::needs::Need;
use conformance_model::choices::{Choices, Chosen, Shape};
use conformance_wire::phase::Phase;

use crate::checks::{
    UNKNOWN_REF, UNKNOWN_UUID, WRONG_SECRET, WRONG_TOKEN, accepted, judge_all, refused,
};
use component_auth_bindings::variants;

use crate::probes::ErrorProbe;
use conformance_model::profile::is_uuid;
use conformance_wire::request::{Op, Probe, Typed};

/// A choice of status: what is sent, and which choice the answer's
/// status is held to.
struct StatusChoice {
    /// The check's id.
    id: &'static str,
    key: ChoiceKey,
    /// Section of the description whose silence the choice fills.
    section: &'static str,
    /// Our choice, quoted from spec/README.md.
    ours: &'static str,
    what: &'static str,
    op: Op,
    change: Change,
    chosen: fn(&Choices) -> Chosen<u16>,
    /// Why the case cannot arise for a profile (not applicable), if ever.
    unless: fn(&Choices) -> Option<&'static str>,
    /// The request fails a validation the description's tables state: a
    /// 417 passes where the profile declares no status (§7 rule 1).
    fails_validation: bool,
}

fn always(_: &Choices) -> Option<&'static str> {
    None
}

const STATUS_CHOICES: &[StatusChoice] = &[
    StatusChoice {
        id: "choices/missing-credential",
        key: ChoiceKey::MissingCredential,
        section: "5",
        ours: "spec choice 6: a missing or empty X-Client-Id or X-Client-Secret is 400",
        what: "a missing X-Client-Secret",
        op: Op::AuthClaims,
        change: Change::DropHeader("X-Client-Secret"),
        chosen: Choices::missing_credential,
        unless: always,
        fails_validation: true,
    },
    StatusChoice {
        id: "choices/wrong-credential",
        key: ChoiceKey::WrongCredential,
        section: "5",
        ours: "spec choice 6: an unknown client id or a wrong secret is 401",
        what: "a wrong X-Client-Secret",
        op: Op::AuthClaims,
        change: Change::Header("X-Client-Secret", WRONG_SECRET),
        chosen: Choices::wrong_credential,
        unless: always,
        fails_validation: false,
    },
    StatusChoice {
        id: "choices/unknown-ref",
        key: ChoiceKey::UnknownRef,
        section: "2",
        ours: "spec choice 9: an unknown ref is 404 with the 400 envelope shape",
        what: "an unknown ref",
        op: Op::AuthClaims,
        change: Change::Ref(UNKNOWN_REF),
        chosen: Choices::unknown_ref,
        unless: always,
        fails_validation: false,
    },
    StatusChoice {
        id: "choices/bad-project-env",
        key: ChoiceKey::BadProjectEnv,
        section: "4.1",
        ours: "spec choice 8: an X-Project-Env other than dev or live is 400",
        what: "an X-Project-Env other than dev or live",
        op: Op::AuthClaims,
        change: Change::Header("X-Project-Env", "staging"),
        chosen: Choices::bad_project_env,
        unless: always,
        fails_validation: true,
    },
    StatusChoice {
        id: "choices/unknown-model",
        key: ChoiceKey::UnknownModel,
        section: "4.2",
        ours: "spec choice 9: no model of the component has this modelUuid: 404",
        what: "Authorize for an unknown model",
        op: Op::Authorize,
        change: Change::ModelUuid(UNKNOWN_UUID),
        chosen: Choices::unknown_model,
        unless: always,
        fails_validation: false,
    },
    StatusChoice {
        id: "choices/malformed-body",
        key: ChoiceKey::MalformedBody,
        section: "4.2",
        ours: "spec choice 10: a body that is not JSON is 400",
        what: "a body that is not JSON",
        op: Op::Authorize,
        change: Change::Body("{\"email\": "),
        chosen: Choices::malformed_body,
        unless: always,
        fails_validation: true,
    },
    StatusChoice {
        id: "choices/body-too-large",
        key: ChoiceKey::BodyTooLarge,
        section: "8",
        ours: "spec choice 16: a request body over 64 KiB is refused with 413",
        what: "a body over the server's limit",
        op: Op::Authorize,
        change: Change::BodyOverLimit,
        chosen: Choices::body_too_large,
        unless: |c| {
            (c.body_limit().value == conformance_model::choices::NO_BODY_LIMIT)
                .then_some("the profile declares no body limit (`choices.body_limit: none`)")
        },
        fails_validation: false,
    },
];

fn status_check(row: &'static StatusChoice) -> Check {
    CaseCheck {
        id: row.id,
        subject: Subject::NONE,
        level: Level::Should,
        section: row.section,
        cites: Cites::Norm(row.ours),
        title: format!("{} is answered with the server's chosen status", row.what),
        sends: Sends::primary(row.op, row.change),
        expects: Expect::Chosen {
            key: row.key,
            status: row.chosen,
            unless: row.unless,
            fails_validation: row.fails_validation,
        },
    }
    .into()
}

fn token_judge(c: &Choices) -> Judge {
    if c.token_checked_when_not_required().value {
        refused
    } else {
        accepted
    }
}

pub fn checks() -> Vec<Check> {
    let mut out: Vec<Check> = STATUS_CHOICES.iter().map(status_check).collect();
    for (id, op, key, chosen) in [
        (
            "choices/auth-claims-success",
            Op::AuthClaims,
            ChoiceKey::AuthClaimsSuccess,
            Choices::auth_claims_success as fn(&Choices) -> Chosen<u16>,
        ),
        (
            "choices/authorize-success",
            Op::Authorize,
            ChoiceKey::AuthorizeSuccess,
            Choices::authorize_success,
        ),
    ] {
        out.push(
            CaseCheck {
                id,
                subject: Subject::NONE,
                level: Level::Should,
                section: op.section(),
                cites: Cites::Norm("spec choices 2 and 4: Auth Claims and Authorize answer 200"),
                title: format!("{} is served with the server's chosen status", op.title()),
                sends: Sends::each(op, To::Each, Change::Nothing),
                expects: Expect::Chosen {
                    key,
                    status: chosen,
                    unless: always,
                    fails_validation: false,
                },
            }
            .into(),
        );
    }
    out.extend([
        CaseCheck {
            id: "choices/success-shape",
            subject: Subject::NONE,
            level: Level::Should,
            section: "4.1",
            cites: Cites::Norm("spec choices 2 and 4: the success bodies AuthClaimsResult and AuthorizeResult, with X-Project-Uuid (choice 15)"),
            title: "successful answers decode as the spec's result types and carry X-Project-Uuid".into(),
            sends: Sends::both(To::Each, Change::Nothing)
                .labelled(Label::Template("{method} {component}")),
            expects: Expect::Together {
                text: "where `choices.success_shape` is `spec` (ours): each answer decodes as the spec's result type (`Ok`) and its X-Project-Uuid header is present; where `other` (a shape of the server's own, which the description allows): not applicable",
                choice: Some(ChoiceKey::SuccessShape),
                judge: success_shapes,
            },
        }
        .into(),
        CaseCheck {
            id: "choices/absent-project-env",
            subject: Subject::NONE,
            level: Level::Should,
            section: "5",
            cites: Cites::Norm("spec choice 8: an absent X-Project-Env means `dev`"),
            title: "without X-Project-Env the request is served in the server's default environment".into(),
            sends: Sends::primary(Op::AuthClaims, Change::DropHeader("X-Project-Env")),
            expects: Expect::Together {
                text: "a 2xx answer whose body names the environment the profile declares as `choices.absent_project_env` (ours: dev), wherever it puts it; not applicable when the body names none",
                choice: Some(ChoiceKey::AbsentProjectEnv),
                judge: absent_env,
            },
        }
        .into(),
        CaseCheck {
            id: "choices/token-where-not-required",
            subject: Subject::NONE,
            level: Level::Should,
            section: "5",
            cites: Cites::Norm("spec choice 7: a token sent to a component that does not require auth is still checked"),
            title: "a wrong token where none is required is treated as the server chose".into(),
            sends: Sends::each(
                Op::AuthClaims,
                To::EachWithoutAuth,
                Change::Header("X-Auth-Token", WRONG_TOKEN),
            ),
            expects: Expect::Depends {
                key: ChoiceKey::TokenCheckedWhenNotRequired,
                text: "where `choices.token_checked_when_not_required` is true (ours): a refusal; where false: a 2xx answer",
                judge: token_judge,
            },
        }
        .into(),
        // Its second request carries what the first answered, to the same
        // component: a run of its own.
        CaseCheck {
            id: "choices/issued-token",
            level: Level::Should,
            section: "5",
            cites: Cites::Norm("spec choice 5: tokens are issued by Authorize"),
            title: "a token issued by Authorize claims its model in Auth Claims".into(),
            sends: Sends::Own {
                text: "a valid Authorize request, then Auth Claims with the token it issued (read wherever the body puts it)".into(),
                run: Run::procedure(Phase::Verify, issued_token)
                    .needs(&[Need::Authorize])
                    .choice(ChoiceKey::IssuesToken),
            },
            expects: Expect::Own("where `choices.issues_token` is true (ours): Authorize is served with a token; Auth Claims with it is served and, where `choices.claims_carry_model_uuid` is true (ours), names the same model by its uuid; where false: not applicable".into()),
            subject: Subject::NONE,
        }
        .into(),
        CaseCheck {
            id: "choices/code-equals-status",
            subject: Subject::NONE,
            level: Level::Should,
            section: "7",
            cites: Cites::Norm("spec choice 11: `code` equals the HTTP status of the answer"),
            title: "an error body's code equals the status".into(),
            sends: Sends::error_probes(),
            expects: Expect::Together {
                text: "where `choices.code_is_status` is true (ours): every error body's `code` equals its HTTP status; where false (service codes of the server's own): not applicable",
                choice: Some(ChoiceKey::CodeIsStatus),
                judge: codes_equal_statuses,
            },
        }
        .into(),
        CaseCheck {
            id: "choices/request-id-uuid",
            subject: Subject::NONE,
            level: Level::Should,
            section: "7.1",
            cites: Cites::Norm("spec choice 12: request_id is a fresh uuid for every request"),
            title: "request_id is a fresh uuid".into(),
            sends: Sends::error_probes(),
            expects: Expect::Together {
                text: "no two `request_id` values are equal, and where `choices.request_id_uuid` is true (ours) each is a uuid",
                choice: Some(ChoiceKey::RequestIdUuid),
                judge: request_ids,
            },
        }
        .into(),
        CaseCheck {
            id: "choices/validation-items",
            subject: Subject::NONE,
            level: Level::Should,
            section: "7.2",
            cites: Cites::Norm("spec choices 1 and 13: errors items are {field, rule, message}; no modelUuid is {field: modelUuid, rule: required}"),
            title: "417 bodies decode with the spec's error items".into(),
            sends: Sends::ErrorProbes { needs: &[Need::Authorize] },
            expects: Expect::Together {
                text: "where `choices.validation_items` is `spec` (ours): every 417 decodes as `ExpectationFailed`, and the one without modelUuid lists {field: modelUuid, rule: required}; not applicable where the probes gave no 417, or where the profile declares items of the server's own (`other`)",
                choice: Some(ChoiceKey::ValidationItems),
                judge: validation_items_all,
            },
        }
        .into(),
    ]);
    out
}

/// Each answer in the spec's shape, unless the profile declares a shape
/// of the server's own.
fn success_shapes(answers: &[Answer<'_>], choices: &Choices) -> Found {
    let shape = choices.success_shape();
    if shape.value == Shape::Other {
        return Found::NotApplicable(
            "the profile declares success bodies of the server's own shape (`choices.success_shape: other`)".into(),
        );
    }
    Found::Failures(
        answers
            .iter()
            .filter_map(|a| {
                success_shape(a).err().map(|why| {
                    format!(
                        "{}: {why}{}",
                        a.label,
                        if shape.declared {
                            ""
                        } else {
                            " (a shape of the server's own is allowed: declare `choices.success_shape: other`)"
                        }
                    )
                })
            })
            .collect(),
    )
}

fn success_shape(a: &Answer<'_>) -> Result<(), String> {
    match &a.sent.typed {
        Some(Typed::Claims(AuthClaimsResponse::Ok(d))) if d.headers.x_project_uuid.is_some() => {
            Ok(())
        }
        Some(Typed::Authorize(AuthorizeResponse::Ok(d))) if d.headers.x_project_uuid.is_some() => {
            Ok(())
        }
        Some(Typed::Claims(AuthClaimsResponse::Mismatch { reason, .. }))
        | Some(Typed::Authorize(AuthorizeResponse::Mismatch { reason, .. })) => Err(format!(
            "the body is not the spec's {} ({})",
            match a.sent.typed {
                Some(Typed::Claims(_)) => "AuthClaimsResult",
                _ => "AuthorizeResult",
            },
            // Where in the body the decoder stopped moves with the body's
            // volatile values: the reason alone stays the same run to run.
            reason.split(" at line ").next().unwrap_or(reason)
        )),
        Some(t) if t.variant() == variants::OK => Err("no X-Project-Uuid".to_owned()),
        _ => Err(a.sent.summary()),
    }
}

/// Served, in the environment the profile declares as the default (or
/// ours); not applicable when the answer names none.
fn absent_env(answers: &[Answer<'_>], choices: &Choices) -> Found {
    let want = choices.absent_project_env();
    let mut failures = Vec::new();
    for a in answers {
        let sent = a.sent;
        if let Err(why) = accepted(sent) {
            failures.push(why);
            continue;
        }
        let named = sent
            .raw()
            .and_then(|r| r.json())
            .and_then(|b| conformance_wire::carried::environment(&b));
        match named {
            None => {
                return Found::NotApplicable(
                    "the answer does not say which environment served it".into(),
                );
            }
            // What the server names is its own text, matched loosely.
            Some(env) if env.eq_ignore_ascii_case(want.value.as_str()) => {}
            Some(env) => failures.push(format!(
                "served in `{env}`, where the default is `{}`",
                want.value
            )),
        }
    }
    Found::Failures(failures)
}

async fn issued_token(t: Arc<RunContext>) -> Outcome {
    // `needs` gates the check on a component with an `authorize` section.
    let Some(c) = t.requests.primary(Op::Authorize) else {
        return Outcome::unmet(Need::Authorize);
    };
    if !t.profile().choices.issues_token().value {
        return Outcome::not_applicable(
            "the profile declares that Authorize issues no token (`choices.issues_token: false`)",
            Vec::new(),
        );
    }
    let _alone = t.alone(&c.name).await;
    let first = t
        .send(Probe::new("Authorize", t.requests.valid(Op::Authorize, c)))
        .await;
    let token = first
        .raw()
        .filter(|r| (200..300).contains(&r.status))
        .and_then(|r| r.json())
        .and_then(|b| conformance_wire::carried::issued_token(&b));
    let Some(token) = token else {
        let why = format!(
            "Authorize issued no token: {}{}",
            first.summary(),
            match t.profile().choices.issues_token().declared {
                true => "",
                false =>
                    " (a server that issues none is allowed: declare `choices.issues_token: false`)",
            }
        );
        return Outcome::fail(why, vec![first.exchange]);
    };
    let want = c
        .authorize
        .as_ref()
        .map(|a| a.model_uuid.clone())
        .unwrap_or_default();
    let second = t
        .send(Probe::new(
            "Auth Claims with the issued token",
            t.requests.claims_with_token(c, Secret::new(token)),
        ))
        .await;
    // Named by its uuid only where the server chose so (ours).
    let named = t.profile().choices.claims_carry_model_uuid().value;
    let v = match second.raw() {
        Some(r) if (200..300).contains(&r.status) && !named => Ok(()),
        Some(r) if (200..300).contains(&r.status) => match r.json() {
            Some(body) if conformance_wire::carried::holds_string(&body, &want) => Ok(()),
            _ => Err(format!(
                "the model `{want}` is not in the answer: {}",
                second.summary()
            )),
        },
        _ => Err(second.summary()),
    };
    judge_all(vec![
        ("Authorize".to_owned(), first, Ok(())),
        ("Auth Claims".to_owned(), second, v),
    ])
}

/// Each answer's `code` its status, unless the profile declares service
/// codes of the server's own.
fn codes_equal_statuses(answers: &[Answer<'_>], choices: &Choices) -> Found {
    let chosen = choices.code_is_status();
    if !chosen.value {
        return Found::NotApplicable(
            "the profile declares codes of the server's own (`choices.code_is_status: false`)"
                .into(),
        );
    }
    let allowed = match chosen.declared {
        true => "",
        false => {
            " (codes of the server's own are allowed: declare `choices.code_is_status: false`)"
        }
    };
    Found::Failures(
        answers
            .iter()
            .filter_map(|a| {
                let why = code_equals_status(a).err()?;
                Some(format!("{}: {why}{allowed}", a.label))
            })
            .collect(),
    )
}

/// Every 417 with the spec's items, unless the profile declares its own.
fn validation_items_all(answers: &[Answer<'_>], choices: &Choices) -> Found {
    let chosen = choices.validation_items();
    if chosen.value == Shape::Other {
        return Found::NotApplicable(
            "the profile declares 417 items of the server's own (`choices.validation_items: other`)"
                .into(),
        );
    }
    let judged: Vec<&Answer<'_>> = answers
        .iter()
        .filter(|a| a.sent.status() == Some(417))
        .collect();
    if judged.is_empty() {
        return Found::NotApplicable("the target answered none of the probes with 417".into());
    }
    let allowed = match chosen.declared {
        true => "",
        false => {
            " (items of the server's own are allowed: declare `choices.validation_items: other`)"
        }
    };
    Found::Failures(
        judged
            .into_iter()
            .filter_map(|a| {
                let why = validation_items(a).err()?;
                Some(format!("{}: {why}{allowed}", a.label))
            })
            .collect(),
    )
}

fn code_equals_status(a: &Answer<'_>) -> Result<(), String> {
    let Some(raw) = a.sent.raw() else {
        return Ok(());
    };
    if raw.status < 400 {
        return Ok(());
    }
    let code = raw.json().and_then(|j| j.get("code").cloned());
    if code.as_ref().and_then(|c| c.as_u64()) == Some(u64::from(raw.status)) {
        Ok(())
    } else {
        Err(format!(
            "status {} but code {}",
            raw.status,
            code.map_or("absent".to_owned(), |c| c.to_string())
        ))
    }
}

fn request_ids(answers: &[Answer<'_>], choices: &Choices) -> Found {
    let ids = crate::case::request_ids(answers);
    if ids.is_empty() {
        return Found::NotApplicable("no probe answer carried a request_id".into());
    }
    let uuid = choices.request_id_uuid();
    let mut failures: Vec<String> = ids
        .iter()
        .filter(|(_, id)| uuid.value && !is_uuid(id))
        .map(|(l, _)| match uuid.declared {
            true => format!("{l}: request_id is not a uuid"),
            false => format!("{l}: request_id is not a uuid (another form is allowed: declare `choices.request_id_uuid: false`)"),
        })
        .collect();
    let mut seen = std::collections::HashSet::new();
    for (l, id) in &ids {
        if !seen.insert(id) {
            failures.push(format!("{l}: request_id repeats an earlier one"));
        }
    }
    Found::Failures(failures)
}

/// A 417 decodes as `ExpectationFailed`; the probe without modelUuid
/// lists `{field: modelUuid, rule: required}`.
pub(crate) fn validation_items(a: &Answer<'_>) -> Result<(), String> {
    let errors = match &a.sent.typed {
        Some(Typed::Authorize(AuthorizeResponse::ExpectationFailed(d))) => &d.body.errors,
        Some(Typed::Claims(AuthClaimsResponse::ExpectationFailed(d))) => &d.body.errors,
        Some(other) => return Err(format!("decoded as `{}`", other.variant())),
        None => return Ok(()),
    };
    if a.probe == Some(ErrorProbe::NoModelUuid)
        && !errors
            .iter()
            .any(|e| e.field == "modelUuid" && e.rule == "required")
    {
        return Err("no item {field: modelUuid, rule: required}".to_owned());
    }
    Ok(())
}
