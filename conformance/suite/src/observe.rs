//! `conformance choices`: what a server chose where the description is
//! silent, observed by asking it, and printed as a `choices:` block to paste
//! into its profile. A team adopts the gate in two commands: `choices`,
//! then a run that holds the server to what it was seen to do.
//!
//! Only what is seen is declared; a choice the probes cannot settle (no
//! answer, or one no refusal explains) is left out, and stays ours at
//! SHOULD level. Read the block before committing it: it records the
//! server's behaviour as it is, bugs included.

use std::sync::Arc;

use crate::runner::{RunError, RunOptions};
use component_auth_bindings::types::ProjectEnv;
use conformance_model::choices::{Choices, Shape, UnknownFields};
use conformance_wire::carried;
use conformance_wire::target::{Op, Probe, Req, Sent, Target};

/// What the successful answers the probes got looked like: the bodies
/// (JSON) of a valid Authorize and of the Auth Claims after it, with their
/// statuses, and the token Authorize issued, if any: what `choices
/// --overlay` infers the success bodies' shapes from.
#[derive(Debug, Clone, Default)]
pub struct Samples {
    pub authorize: Option<(u16, serde_json::Value)>,
    pub auth_claims: Option<(u16, serde_json::Value)>,
    pub token: Option<String>,
}

/// [`observe`] within `options.deadline`: when it passes, an error (exit
/// 2) and nothing declared, as a block cut short would be a guess.
pub async fn observe_within(
    profile: conformance_model::profile::Profile,
    options: &RunOptions,
) -> Result<Choices, RunError> {
    observe_within_samples(profile, options)
        .await
        .map(|(choices, _)| choices)
}

/// [`observe_within`], with the [`Samples`] of the successful answers.
pub async fn observe_within_samples(
    profile: conformance_model::profile::Profile,
    options: &RunOptions,
) -> Result<(Choices, Samples), RunError> {
    let url = profile.base_url.clone();
    match options.deadline {
        None => observe_all(profile, options).await,
        Some(limit) => match tokio::time::timeout(limit, observe_all(profile, options)).await {
            Ok(seen) => seen,
            Err(_) => Err(RunError::Unreachable {
                url: without_userinfo(&url),
                reason: format!(
                    "the deadline ({} ms) passed before every choice was observed; nothing is declared",
                    limit.as_millis()
                ),
            }),
        },
    }
}

/// How many requests sent as fast as the run's concurrency allows, at most,
/// to see whether the server limits them.
const PACE_PROBES: usize = 400;

/// The pace a server allows this client, where it limits it: valid Auth
/// Claims (which change nothing) as fast as the concurrency allows, up to
/// 400 requests or two seconds, each limit answer honoured as a run
/// honours it. `None` when nothing was limited. The rate is a little under
/// what the server stated (`RateLimit-Policy`) or, where it stated none,
/// the pace the run fell to: a run paced at it is not limited, or seldom.
pub async fn pace(
    profile: conformance_model::profile::Profile,
    options: &RunOptions,
) -> Result<Option<f64>, RunError> {
    let mut limits = options.limits;
    limits.rate = None;
    let target =
        Arc::new(Target::new(profile, limits, options.connect.clone()).map_err(RunError::Client)?);
    let Some(c) = target.primary(Op::AuthClaims) else {
        return Ok(None);
    };
    let began = std::time::Instant::now();
    let batch = limits.concurrency.max(1);
    let mut sent = 0;
    while sent < PACE_PROBES && began.elapsed() < std::time::Duration::from_secs(2) {
        let probes = (0..batch)
            .map(|_| Probe::new("pace", target.valid(Op::AuthClaims, c)))
            .collect();
        let answers = target.send_all(probes).await;
        sent += batch;
        // A server that does not answer is for `observe` to say.
        if answers.iter().all(|s| s.status().is_none()) {
            return Ok(None);
        }
    }
    let (_, throttled) = target.limits_seen();
    Ok((throttled.limited > 0)
        .then_some(throttled.learnt_rate)
        .flatten()
        .map(|r| r.floor().max(1.0)))
}

/// `url` without its user name and password (`base_url` may hold them).
fn without_userinfo(url: &str) -> String {
    match reqwest::Url::parse(url) {
        Ok(mut u) => {
            let _ = u.set_password(None);
            let _ = u.set_username("");
            u.to_string()
        }
        Err(_) => "the target".to_owned(),
    }
}

/// Asks the server what it chose. Choices it does not settle are `None`.
pub async fn observe(
    profile: conformance_model::profile::Profile,
    options: &RunOptions,
) -> Result<Choices, RunError> {
    observe_all(profile, options)
        .await
        .map(|(choices, _)| choices)
}

/// [`observe`], with the [`Samples`] of the successful answers.
async fn observe_all(
    profile: conformance_model::profile::Profile,
    options: &RunOptions,
) -> Result<(Choices, Samples), RunError> {
    let mut samples = Samples::default();
    // Start from ours: what the profile declares is what is being learnt.
    let profile = conformance_model::profile::Profile {
        choices: Choices::default(),
        ..profile
    };
    let target = Arc::new(
        Target::new(profile, options.limits, options.connect.clone()).map_err(RunError::Client)?,
    );
    let t = &target;
    let mut seen = Choices::default();

    // Nothing is declared about what does not answer: a closed port, a
    // reset, garbage or silence is exit 2, not a block of guesses.
    answers_http(t).await?;
    if let Some((at, status)) = t.model_uuid_place().await {
        seen.model_uuid = Some(at);
        seen.authorize_success = status;
    }
    // Target::valid reads the place from the profile: give it what was seen.
    let target = Arc::new(
        Target::new(
            conformance_model::profile::Profile {
                choices: Choices {
                    model_uuid: seen.model_uuid.clone(),
                    ..Choices::default()
                },
                ..target.profile.clone()
            },
            options.limits,
            options.connect.clone(),
        )
        .map_err(RunError::Client)?,
    );
    let t = &target;

    let claims = |change: fn(Req) -> Result<Req, component_auth_bindings::Error>| {
        t.primary(Op::AuthClaims)
            .map(|c| t.valid(Op::AuthClaims, c).and_then(change))
    };
    let refusal = |s: &Sent| s.status().filter(|st| (400..500).contains(st));
    let mut refusals = Vec::new();

    if let Some(r) = claims(Ok) {
        seen.auth_claims_success = t
            .send(Probe::new("valid", r))
            .await
            .status()
            .filter(|s| (200..300).contains(s));
    }
    if let Some(r) = claims(|r| Ok(r.remove_header("X-Client-Secret"))) {
        let missing = t.send(Probe::new("missing", r)).await;
        seen.missing_credential = refusal(&missing);
        refusals.push(missing);
    }
    // The form of request_id: the first refusal that carries one; codes:
    // each refusal's `code` its status, or not.
    seen.request_id_uuid = refusals.iter().find_map(|s| {
        let body = s.raw()?.json()?;
        body.get("request_id")?
            .as_str()
            .map(conformance_model::profile::is_uuid)
    });
    let codes: Vec<bool> = refusals
        .iter()
        .filter_map(|s| {
            let raw = s.raw()?;
            let code = raw.json()?.get("code")?.as_u64()?;
            Some(code == u64::from(raw.status))
        })
        .collect();
    seen.code_is_status = (!codes.is_empty()).then(|| codes.iter().all(|&same| same));
    // What a successful Authorize does: a token issued, the shape of the
    // success bodies, and whether Auth Claims then returns that model.
    if let (Some(c), true) = (t.primary(Op::Authorize), seen.model_uuid.is_some()) {
        let first = t
            .send(Probe::new("authorize", t.valid(Op::Authorize, c)))
            .await;
        if is_2xx(&first) {
            let token = first
                .raw()
                .and_then(|r| r.json())
                .and_then(|b| carried::issued_token(&b));
            seen.issues_token = Some(token.is_some());
            samples.token = token.clone();
            samples.authorize = first.raw().and_then(|r| Some((r.status, r.json()?)));
            let req = match token {
                Some(token) => t.claims_with_token(c, component_auth_bindings::Secret::new(token)),
                None => t.valid(Op::AuthClaims, c),
            };
            let second = t.send(Probe::new("claims", req)).await;
            if is_2xx(&second) {
                samples.auth_claims = second.raw().and_then(|r| Some((r.status, r.json()?)));
                let model = c.authorize.as_ref().map(|a| a.model_uuid.as_str());
                seen.authorize_claims = second
                    .raw()
                    .and_then(|r| r.json())
                    .zip(model)
                    .map(|(body, model)| carried::holds_string(&body, model));
                let spec = [&first, &second].iter().all(|s| in_spec_shape(s));
                seen.success_shape = Some(if spec { Shape::Spec } else { Shape::Other });
            }
        }
    }
    if let Some(r) = claims(|r| r.set_header("X-Client-Secret", crate::checks::WRONG_SECRET)) {
        let wrong = t.send(Probe::new("wrong", r)).await;
        seen.wrong_credential = refusal(&wrong);
        refusals.push(wrong);
    }
    if let Some(r) = claims(|r| r.set_header("X-Project-Env", "staging")) {
        let env = t.send(Probe::new("env", r)).await;
        seen.bad_project_env = refusal(&env);
        refusals.push(env);
    }
    if let Some(c) = t.primary(Op::AuthClaims) {
        let r = t.valid_with_ref(Op::AuthClaims, c, crate::checks::UNKNOWN_REF);
        let unknown = t.send(Probe::new("ref", r)).await;
        seen.unknown_ref = refusal(&unknown);
        refusals.push(unknown);
        let absent = t
            .send(Probe::new(
                "env absent",
                t.valid(Op::AuthClaims, c)
                    .map(|r| r.remove_header("X-Project-Env")),
            ))
            .await;
        seen.absent_project_env = absent
            .raw()
            .filter(|r| (200..300).contains(&r.status))
            .and_then(|r| r.json())
            .and_then(|b| carried::environment(&b))
            .and_then(|e| e.parse::<ProjectEnv>().ok());
    }
    // Whether Auth Claims with a token bound to a model names the model.
    if let Some(c) = t
        .components(Op::AuthClaims)
        .into_iter()
        .find(|c| c.auth_token.is_some() && c.authorize.is_some())
    {
        let model = c.authorize.as_ref().map(|a| a.model_uuid.as_str());
        let s = t
            .send(Probe::new("model", t.valid(Op::AuthClaims, c)))
            .await;
        seen.claims_carry_model_uuid = s
            .raw()
            .filter(|r| (200..300).contains(&r.status))
            .and_then(|r| r.json())
            .zip(model)
            .map(|(body, model)| carried::holds_string(&body, model));
    }
    if let Some(c) = t
        .components(Op::AuthClaims)
        .into_iter()
        .find(|c| !c.requires_auth)
    {
        let r = t
            .valid(Op::AuthClaims, c)
            .and_then(|r| r.set_header("X-Auth-Token", crate::checks::WRONG_TOKEN));
        let s = t.send(Probe::new("token", r)).await;
        seen.token_checked_when_not_required = match s.status() {
            Some(st) if (200..300).contains(&st) => Some(false),
            Some(st) if (400..500).contains(&st) => Some(true),
            _ => None,
        };
    }
    if let Some(c) = t.components(Op::AuthClaims).into_iter().find(|c| {
        c.authorize
            .as_ref()
            .is_some_and(|a| a.invalid_body.is_some())
    }) {
        if let Some(r) = t.with_invalid_body(Op::AuthClaims, c) {
            let s = t.send(Probe::new("get body", r)).await;
            seen.get_body_validated = match s.status() {
                Some(417) => Some(true),
                Some(st) if (200..300).contains(&st) => Some(false),
                _ => None,
            };
        }
    }
    if let Some(c) = t.primary(Op::Authorize) {
        let at = seen.model_uuid.clone().unwrap_or_default();
        let r = t
            .valid(Op::Authorize, c)
            .and_then(|r| r.with_model_uuid(&at, crate::checks::UNKNOWN_UUID));
        seen.unknown_model = refusal(&t.send(Probe::new("model", r)).await);
        let r = t
            .valid(Op::Authorize, c)
            .map(|r| r.raw_body(b"{\"email\": ".to_vec()));
        seen.malformed_body = refusal(&t.send(Probe::new("malformed", r)).await);
        // The items of a 417: the spec's, or the server's own.
        let invalid = t
            .components(Op::Authorize)
            .into_iter()
            .find_map(|c| t.with_invalid_body(Op::Authorize, c));
        if let Some(r) = invalid {
            let s = t.send(Probe::new("invalid", r)).await;
            if s.status() == Some(417) {
                let spec = matches!(
                    s.typed,
                    Some(conformance_wire::target::Typed::Authorize(
                        component_auth_bindings::AuthorizeResponse::ExpectationFailed(_)
                    ))
                );
                seen.validation_items = Some(if spec { Shape::Spec } else { Shape::Other });
            }
        }
        // A field the settings do not define, beside the valid ones.
        if let Some(valid) = c.authorize.as_ref().map(|a| a.valid_body.clone()) {
            let mut body = valid;
            body.insert("conformance_unknown".to_owned(), serde_json::json!(1));
            let bytes = serde_json::to_vec(&body).unwrap_or_default();
            let r = t.valid(Op::Authorize, c).map(|r| r.raw_body(bytes));
            let s = t.send(Probe::new("unknown field", r)).await;
            seen.unknown_fields = match s.status() {
                Some(417) => Some(UnknownFields::Refused),
                Some(st) if (200..300).contains(&st) => Some(UnknownFields::Ignored),
                _ => None,
            };
        }
        // The body limit: a JSON body of growing size until one is refused
        // other than by validation (417), then halves between the largest
        // taken and the smallest refused, to the byte.
        // A server may answer before reading a large body and close the
        // connection, so the request finds no answer: that size is over
        // the limit too (refused, its status unknown).
        let c = c.clone();
        let size = |len: usize| {
            let c = c.clone();
            async move {
                // A body of `len` bytes as sent: where modelUuid travels in
                // the body, the padding is shorter by what it adds.
                let body = |pad: usize| {
                    let pad = "x".repeat(pad);
                    t.valid(Op::Authorize, &c)
                        .map(|r| r.raw_body(format!("{{\"pad\":\"{pad}\"}}").into_bytes()))
                };
                let pad = len.saturating_sub(10);
                let extra = body(pad)
                    .ok()
                    .and_then(|r| r.body_len())
                    .map_or(0, |sent| sent.saturating_sub(len));
                let r = body(pad.saturating_sub(extra));
                let sent = t.send(Probe::new("size", r)).await;
                Size::of(&sent)
            }
        };
        // A small body first, answered in full: a server that takes no
        // body at all (a redirect, a 5xx, a refusal of every request, an
        // answer over the cap to each) shows no limit.
        if size(64).await == Size::Taken {
            if let Some((limit, status)) = body_limit(size).await {
                seen.body_limit = Some(limit);
                seen.body_too_large = status;
            }
        }
    }
    Ok((seen, samples))
}

/// What one size of body came to, for the body limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Size {
    /// Read and judged: served (2xx), or failed validation (417).
    Taken,
    /// Refused other than by validation (a 4xx), or no answer at all (a
    /// server that closes before reading a large body): over the limit.
    Refused(Option<u16>),
    /// An answer over the run's cap: no refusal of the body (a server
    /// whose 417 echoes it, say), taken where the server gave a usable
    /// answer to a small body; else (an endless chunked answer to every
    /// request) it says nothing of a limit.
    OverCap,
    /// No usable answer: a redirect, a 5xx. It says nothing of a limit.
    Unknown,
}

impl Size {
    fn of(sent: &Sent) -> Size {
        match sent.status() {
            None if sent.answered_over_cap => Size::OverCap,
            None => Size::Refused(None),
            Some(417) => Size::Taken,
            Some(st) if (200..300).contains(&st) => Size::Taken,
            Some(st) if (400..500).contains(&st) => Size::Refused(Some(st)),
            Some(_) => Size::Unknown,
        }
    }
}

/// The body limit `size` finds, with the status of its refusal: growing
/// sizes until one is refused, then halving to the byte. `None` where a
/// size had no usable answer, or no refusal was answered (sizes that found
/// no answer at all say nothing of what the server chose); the largest
/// size tried taken: no limit ([`conformance_model::choices::NO_BODY_LIMIT`]).
async fn body_limit<F, Fut>(size: F) -> Option<(u64, Option<u16>)>
where
    F: Fn(usize) -> Fut,
    Fut: std::future::Future<Output = Size>,
{
    let mut taken = 0usize;
    let mut refused = None;
    for len in [16 * 1024, 64 * 1024, 1024 * 1024, 8 * 1024 * 1024] {
        match size(len).await {
            Size::Taken | Size::OverCap => taken = len,
            Size::Refused(status) => {
                refused = Some((len, status));
                break;
            }
            Size::Unknown => return None,
        }
    }
    let Some((mut over, mut status)) = refused else {
        return (taken > 0).then_some((conformance_model::choices::NO_BODY_LIMIT, None));
    };
    while over - taken > 1 {
        let mid = taken + (over - taken) / 2;
        match size(mid).await {
            Size::Taken | Size::OverCap => taken = mid,
            Size::Refused(st) => {
                over = mid;
                status = status.or(st);
            }
            Size::Unknown => return None,
        }
    }
    status.map(|st| (taken as u64, Some(st)))
}

/// One valid Auth Claims request must get an HTTP answer (any status):
/// otherwise the target cannot be reached, and `choices` says so (exit 2)
/// rather than declaring what it never saw. Stricter than a run's
/// preflight, which lets checks judge garbage and silence: `choices`
/// judges nothing, it only records.
async fn answers_http(t: &Target) -> Result<(), RunError> {
    let Some(c) = t.primary(Op::AuthClaims) else {
        return Ok(());
    };
    let sent = t
        .send(Probe::new("reach", t.valid(Op::AuthClaims, c)))
        .await;
    if sent.status().is_some() || sent.answered_over_cap {
        return Ok(());
    }
    let reason = sent
        .exchange
        .error
        .clone()
        .unwrap_or_else(|| "no HTTP answer".to_owned());
    Err(RunError::Unreachable {
        url: t.scrubber().text(&t.profile.base_url),
        reason: format!("no HTTP answer to a valid Auth Claims request ({reason})"),
    })
}

/// A success decoded as the spec's result type, with X-Project-Uuid.
fn in_spec_shape(s: &Sent) -> bool {
    use component_auth_bindings::{AuthClaimsResponse, AuthorizeResponse};
    match &s.typed {
        Some(conformance_wire::target::Typed::Claims(AuthClaimsResponse::Ok(d))) => {
            d.headers.x_project_uuid.is_some()
        }
        Some(conformance_wire::target::Typed::Authorize(AuthorizeResponse::Ok(d))) => {
            d.headers.x_project_uuid.is_some()
        }
        _ => false,
    }
}

fn is_2xx(s: &Sent) -> bool {
    s.status().is_some_and(|st| (200..300).contains(&st))
}
