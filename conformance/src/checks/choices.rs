//! SHOULD checks: our spec's choices where the description says "not shown"
//! (spec/README.md numbers them), and HTTP norms. They judge the typed
//! variants the bindings decode, so a server that differs from our spec is
//! told where, without failing the gate unless `--strict` is given.

use std::sync::Arc;

use component_auth_bindings::{AuthClaimsResponse, AuthorizeResponse, Secret, types};

use crate::catalogue::{Check, Level, Outcome, Run};
use crate::needs::Need;

use crate::checks::{
    UNKNOWN_REF, UNKNOWN_UUID, WRONG_SECRET, WRONG_TOKEN, exchanges, judge_all, probes,
    send_and_judge,
};
use component_auth_bindings::variants;

use crate::profile::is_uuid;
use crate::target::{Op, Probe, Sent, Target, Typed};

fn variant_is(want: &'static str) -> impl Fn(&Sent) -> Result<(), String> {
    move |s| match &s.typed {
        Some(t) if t.variant() == want => Ok(()),
        Some(t) => Err(format!("decoded as `{}`: {}", t.variant(), s.summary())),
        None => Err(s.summary()),
    }
}

/// What a check that wants a typed variant expects.
fn decodes_as(want: &str) -> String {
    format!("the answer decodes as the spec's `{want}` variant")
}

/// Sends one valid request of `op`, changed by `change`, and wants the
/// answer decoded as the typed variant `want`.
fn changed_request(
    op: Op,
    want: &'static str,
    change: fn(
        &Target,
        crate::target::Req,
    ) -> Result<crate::target::Req, component_auth_bindings::Error>,
) -> Run {
    Run::new(move |t| async move {
        let Some(c) = t.primary(op) else {
            return Outcome::skip("no component in the profile can take this operation");
        };
        let req = t.valid(op, c).and_then(|r| change(&t, r));
        let sent = t.send(Probe::new(c.name.clone(), req)).await;
        let v = variant_is(want)(&sent);
        judge_all(vec![(c.name.clone(), sent, v)])
    })
    .needs(Need::of(op))
}

pub fn checks() -> Vec<Check> {
    vec![
        Check {
            id: "choices/missing-credential-400".into(),
            level: Level::Should,
            section: "5",
            quote: "spec choice 6: a missing or empty X-Client-Id or X-Client-Secret is 400",
            title: "a missing X-Client-Secret is answered 400".into(),
            sends: "a valid Auth Claims request without X-Client-Secret".into(),
            expects: decodes_as(variants::BAD_REQUEST),
            run: changed_request(Op::AuthClaims, variants::BAD_REQUEST, |_, r| Ok(r.remove_header("X-Client-Secret"))),
        },
        Check {
            id: "choices/wrong-credential-401".into(),
            level: Level::Should,
            section: "5",
            quote: "spec choice 6: an unknown client id or a wrong secret is 401",
            title: "a wrong X-Client-Secret is answered 401".into(),
            sends: "a valid Auth Claims request with a wrong X-Client-Secret".into(),
            expects: decodes_as(variants::UNAUTHORIZED),
            run: changed_request(Op::AuthClaims, variants::UNAUTHORIZED, |_, r| r.set_header("X-Client-Secret", WRONG_SECRET)),
        },
        Check {
            id: "choices/unknown-ref-404".into(),
            level: Level::Should,
            section: "2",
            quote: "spec choice 9: an unknown ref is 404 with the 400 envelope shape",
            title: "an unknown ref is answered 404".into(),
            sends: "a valid Auth Claims request with an unknown ref".into(),
            expects: decodes_as(variants::NOT_FOUND),
            run: changed_request(Op::AuthClaims, variants::NOT_FOUND, |t, _| {
                let c = t
                    .primary(Op::AuthClaims)
                    .ok_or(component_auth_bindings::Error::MissingParameter("ref"))?;
                t.valid_with_ref(Op::AuthClaims, c, UNKNOWN_REF)
            }),
        },
        Check {
            id: "choices/bad-env-400".into(),
            level: Level::Should,
            section: "4.1",
            quote: "spec choice 8: an X-Project-Env other than dev or live is 400",
            title: "an X-Project-Env other than dev or live is answered 400".into(),
            sends: "a valid Auth Claims request with X-Project-Env: staging".into(),
            expects: decodes_as(variants::BAD_REQUEST),
            run: changed_request(Op::AuthClaims, variants::BAD_REQUEST, |_, r| r.set_header("X-Project-Env", "staging")),
        },
        Check {
            id: "choices/unknown-model-404".into(),
            level: Level::Should,
            section: "4.2",
            quote: "spec choice 9: no model of the component has this modelUuid: 404",
            title: "Authorize for an unknown model is answered 404".into(),
            sends: "a valid Authorize request whose modelUuid names no model".into(),
            expects: decodes_as(variants::NOT_FOUND),
            run: changed_request(Op::Authorize, variants::NOT_FOUND, |_, mut r| {
                let u = r.url_mut();
                let kept: Vec<(String, String)> = u
                    .query_pairs()
                    .map(|(k, v)| {
                        let v = if k == "modelUuid" {
                            UNKNOWN_UUID.to_owned()
                        } else {
                            v.into_owned()
                        };
                        (k.into_owned(), v)
                    })
                    .collect();
                u.query_pairs_mut().clear().extend_pairs(kept);
                Ok(r)
            }),
        },
        Check {
            id: "choices/payload-too-large-413".into(),
            level: Level::Should,
            section: "8",
            quote: "spec choice 16: a request body over 64 KiB is refused with 413",
            title: "a body over 64 KiB is answered 413".into(),
            sends: "a valid Authorize request whose JSON body is 70 KiB".into(),
            expects: decodes_as(variants::PAYLOAD_TOO_LARGE),
            run: changed_request(Op::Authorize, variants::PAYLOAD_TOO_LARGE, |_, r| Ok(r.raw_body(format!("{{\"pad\":\"{}\"}}", "x".repeat(70 * 1024)).into_bytes()))),
        },
        Check {
id: "choices/success-shape".into(),
level: Level::Should,
section: "4.1",
quote: "spec choices 2 and 4: the success bodies AuthClaimsResult and AuthorizeResult, with X-Project-Uuid (choice 15)",
title: "successful answers decode as the spec's result types and carry X-Project-Uuid".into(),
sends: "a valid request of each operation to each component that can take it".into(),
expects: "each answer decodes as `Ok` and its X-Project-Uuid header is present".into(),
run: Run::new(success_shape),
},
        Check {
id: "choices/env-default-dev".into(),
level: Level::Should,
section: "5",
quote: "spec choice 8: an absent X-Project-Env means `dev`",
title: "without X-Project-Env the request is made in dev".into(),
sends: "a valid Auth Claims request without X-Project-Env".into(),
expects: "the answer decodes as `Ok` with `env`: dev".into(),
run: Run::new(env_default),
},
        Check {
id: "choices/token-checked-anyway".into(),
level: Level::Should,
section: "5",
quote: "spec choice 7: a token sent to a component that does not require auth is still checked",
title: "a wrong token is refused even where none is required".into(),
sends: "a valid Auth Claims request with a wrong X-Auth-Token to each component that does not require auth".into(),
expects: "each answer decodes as `Unauthorized`".into(),
run: Run::new(token_checked).needs(&[Need::NoAuth]),
},
        Check {
id: "choices/issued-token".into(),
level: Level::Should,
section: "5",
quote: "spec choice 5: tokens are issued by Authorize",
title: "a token issued by Authorize claims its model in Auth Claims".into(),
sends: "a valid Authorize request, then Auth Claims with the token it issued".into(),
expects: "Authorize decodes as `Ok` with a token; Auth Claims with it decodes as `Ok` with the same model".into(),
run: Run::new(issued_token).needs(&[Need::Authorize]),
},
        Check {
id: "choices/code-equals-status".into(),
level: Level::Should,
section: "7",
quote: "spec choice 11: `code` equals the HTTP status of the answer",
title: "an error body's code equals the status".into(),
sends: "the error probes".into(),
expects: "every error body's `code` equals its HTTP status".into(),
run: Run::new(code_equals_status),
},
        Check {
id: "choices/request-id-uuid".into(),
level: Level::Should,
section: "7.1",
quote: "spec choice 12: request_id is a fresh uuid for every request",
title: "request_id is a fresh uuid".into(),
sends: "the error probes".into(),
expects: "every `request_id` is a uuid, and no two are equal".into(),
run: Run::new(request_ids),
},
        Check {
id: "choices/validation-items".into(),
level: Level::Should,
section: "7.2",
quote: "spec choices 1 and 13: errors items are {field, rule, message}; no modelUuid is {field: modelUuid, rule: required}",
title: "417 bodies decode with the spec's error items".into(),
sends: "the error probes".into(),
expects: "every 417 decodes as `ExpectationFailed`; the one without modelUuid lists {field: modelUuid, rule: required}".into(),
run: Run::new(validation_items).needs(&[Need::Authorize]),
},
        Check {
id: "http/method-not-allowed".into(),
level: Level::Should,
section: "4",
quote: "RFC 9110 15.5.6 and spec choice 14: another method on the path is 405",
title: "another method on the interface path is answered 405".into(),
sends: "a valid Auth Claims request sent with PUT".into(),
expects: "a 405 answer whose body has the 7.1 shape".into(),
run: Run::new(method_not_allowed),
},
    ]
}

async fn success_shape(t: Arc<Target>) -> Outcome {
    let reqs = super::valid_to_each(&t);
    send_and_judge(&t, reqs, |s| match &s.typed {
        Some(Typed::Claims(AuthClaimsResponse::Ok(d))) if d.headers.x_project_uuid.is_some() => {
            Ok(())
        }
        Some(Typed::Authorize(AuthorizeResponse::Ok(d))) if d.headers.x_project_uuid.is_some() => {
            Ok(())
        }
        Some(Typed::Claims(AuthClaimsResponse::Mismatch { reason, .. }))
        | Some(Typed::Authorize(AuthorizeResponse::Mismatch { reason, .. })) => Err(reason.clone()),
        Some(t) if t.variant() == variants::OK => Err("no X-Project-Uuid".to_owned()),
        _ => Err(s.summary()),
    })
    .await
}

async fn env_default(t: Arc<Target>) -> Outcome {
    let Some(c) = t.primary(Op::AuthClaims) else {
        return Outcome::skip("the profile has no component");
    };
    let req = t
        .valid(Op::AuthClaims, c)
        .map(|r| r.remove_header("X-Project-Env"));
    send_and_judge(&t, vec![Probe::new(c.name.clone(), req)], |s| {
        match &s.typed {
            Some(Typed::Claims(AuthClaimsResponse::Ok(d)))
                if d.body.env == types::ProjectEnv::Dev =>
            {
                Ok(())
            }
            Some(Typed::Claims(AuthClaimsResponse::Ok(d))) => Err(format!("env is {}", d.body.env)),
            _ => Err(s.summary()),
        }
    })
    .await
}

async fn token_checked(t: Arc<Target>) -> Outcome {
    let reqs: Vec<_> = t
        .components(Op::AuthClaims)
        .into_iter()
        .filter(|c| !c.requires_auth)
        .map(|c| {
            Probe::new(
                c.name.clone(),
                t.valid(Op::AuthClaims, c)
                    .and_then(|r| r.set_header("X-Auth-Token", WRONG_TOKEN)),
            )
        })
        .collect();
    if reqs.is_empty() {
        return Outcome::skip("every component in the profile requires auth");
    }
    send_and_judge(&t, reqs, |s| variant_is(variants::UNAUTHORIZED)(s)).await
}

async fn issued_token(t: Arc<Target>) -> Outcome {
    let Some(c) = t.primary(Op::Authorize) else {
        return Outcome::skip("no component in the profile has an `authorize` section");
    };
    let first = t
        .send(Probe::new("Authorize", t.valid(Op::Authorize, c)))
        .await;
    let token = match &first.typed {
        Some(Typed::Authorize(AuthorizeResponse::Ok(d))) => d.body.token.clone(),
        _ => {
            let why = first.summary();
            return Outcome::fail(format!("Authorize: {why}"), vec![first.exchange]);
        }
    };
    let want = c
        .authorize
        .as_ref()
        .map(|a| a.model_uuid.clone())
        .unwrap_or_default();
    let second = t
        .send(Probe::new(
            "Auth Claims with the issued token",
            t.claims_with_token(c, Secret::new(token)),
        ))
        .await;
    let v = match &second.typed {
        Some(Typed::Claims(AuthClaimsResponse::Ok(d))) => match &d.body.model {
            Some(m) if m.uuid.eq_ignore_ascii_case(&want) => Ok(()),
            Some(m) => Err(format!("the model is `{}`, not `{want}`", m.uuid)),
            None => Err("the answer has no model".to_owned()),
        },
        _ => Err(second.summary()),
    };
    let ok = Ok(());
    judge_all(vec![
        ("Authorize".to_owned(), first, ok),
        ("Auth Claims".to_owned(), second, v),
    ])
}

async fn code_equals_status(t: Arc<Target>) -> Outcome {
    let all = probes(&t).await;
    let failures = all
        .iter()
        .filter_map(|s| {
            let raw = s.raw()?;
            if raw.status < 400 {
                return None;
            }
            let code = raw.json().and_then(|j| j.get("code").cloned());
            (code.as_ref().and_then(|c| c.as_u64()) != Some(u64::from(raw.status))).then(|| {
                format!(
                    "{}: status {} but code {}",
                    s.exchange.label,
                    raw.status,
                    code.map_or("absent".to_owned(), |c| c.to_string())
                )
            })
        })
        .collect();
    Outcome::from_failures(failures, exchanges(all)).in_group("errors/probes")
}

async fn request_ids(t: Arc<Target>) -> Outcome {
    let all = probes(&t).await;
    let ids: Vec<(String, String)> = all
        .iter()
        .filter_map(|s| {
            let id = s.raw()?.json()?.get("request_id")?.as_str()?.to_owned();
            Some((s.exchange.label.clone(), id))
        })
        .collect();
    if ids.is_empty() {
        return Outcome::skip("no probe answer carried a request_id").in_group("errors/probes");
    }
    let mut failures: Vec<String> = ids
        .iter()
        .filter(|(_, id)| !is_uuid(id))
        .map(|(l, _)| format!("{l}: request_id is not a uuid"))
        .collect();
    let mut seen = std::collections::HashSet::new();
    for (l, id) in &ids {
        if !seen.insert(id) {
            failures.push(format!("{l}: request_id repeats an earlier one"));
        }
    }
    Outcome::from_failures(failures, exchanges(all)).in_group("errors/probes")
}

async fn validation_items(t: Arc<Target>) -> Outcome {
    let all = probes(&t).await;
    let mut failures = Vec::new();
    let mut seen = false;
    for s in all.iter().filter(|s| s.status() == Some(417)) {
        seen = true;
        let errors = match &s.typed {
            Some(Typed::Authorize(AuthorizeResponse::ExpectationFailed(d))) => &d.body.errors,
            Some(Typed::Claims(AuthClaimsResponse::ExpectationFailed(d))) => &d.body.errors,
            Some(other) => {
                failures.push(format!(
                    "{}: decoded as `{}`",
                    s.exchange.label,
                    other.variant()
                ));
                continue;
            }
            None => continue,
        };
        if s.exchange.label.contains("modelUuid")
            && !errors
                .iter()
                .any(|e| e.field == "modelUuid" && e.rule == "required")
        {
            failures.push(format!(
                "{}: no item {{field: modelUuid, rule: required}}",
                s.exchange.label
            ));
        }
    }
    if !seen {
        return Outcome::skip("the target answered none of the probes with 417")
            .in_group("errors/probes");
    }
    Outcome::from_failures(failures, exchanges(all)).in_group("errors/probes")
}

async fn method_not_allowed(t: Arc<Target>) -> Outcome {
    let Some(c) = t.primary(Op::AuthClaims) else {
        return Outcome::skip("the profile has no component");
    };
    let req = t
        .valid(Op::AuthClaims, c)
        .map(|r| r.method(reqwest::Method::PUT));
    send_and_judge(&t, vec![Probe::new(c.name.clone(), req)], |s| {
        match s.raw() {
            Some(r)
                if r.status == 405 && crate::checks::shape_400(r.json().as_ref()).is_empty() =>
            {
                Ok(())
            }
            _ => Err(s.summary()),
        }
    })
    .await
}
