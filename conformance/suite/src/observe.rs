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
use conformance_model::choices::{ChoiceKey, Choices, ModelUuidAt, Shape, UnknownFields};
use conformance_wire::carried;
use conformance_wire::target::{Op, Probe, Req, Sent, Target};

/// What the successful answers looked like, of every component of the
/// profile: the bodies (JSON) of a valid Authorize and of the Auth Claims
/// after it, with their statuses, and the tokens Authorize issued: what
/// `choices --overlay` infers the success bodies' shapes from (a shape
/// that holds for every component, not the first one's).
#[derive(Debug, Clone, Default)]
pub struct Samples {
    pub authorize: Vec<(u16, serde_json::Value)>,
    pub auth_claims: Vec<(u16, serde_json::Value)>,
    pub tokens: Vec<String>,
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
    // Start from ours: what the profile declares is what is being learnt.
    let profile = conformance_model::profile::Profile {
        choices: Choices::default(),
        ..profile
    };
    let target =
        Target::new(profile, options.limits, options.connect.clone()).map_err(RunError::Client)?;

    // Nothing is declared about what does not answer: a closed port, a
    // reset, garbage or silence is exit 2, not a block of guesses.
    answers_http(&target).await?;
    // Where modelUuid travels is found first: every Authorize the other
    // rows send carries it there (Target::valid reads the place from the
    // profile: give it what was seen).
    let place = target.model_uuid_place().await;
    let target = Target::new(
        conformance_model::profile::Profile {
            choices: Choices {
                model_uuid: place.as_ref().map(|(at, _)| at.clone()),
                ..Choices::default()
            },
            ..target.profile.clone()
        },
        options.limits,
        options.connect.clone(),
    )
    .map_err(RunError::Client)?;
    let mut o = Observation {
        t: Arc::new(target),
        place,
        missing: None,
        authorized: None,
        limit: None,
        samples: Samples::default(),
    };
    let mut seen = Choices::default();
    for key in OBSERVED {
        observe_row(key, &mut o, &mut seen).await;
    }
    // Last, as it changes what the server claims: no row reads it.
    o.sample_every_component().await;
    Ok((seen, o.samples))
}

/// The observer of each row of the choices' table
/// ([`conformance_model::choices`]): `Key => function`, where the function
/// (named as the row's field) returns what the server was seen to choose,
/// `None` where its answers do not settle it. Listed in the order the rows
/// are observed, which is the order the requests have always gone in: a
/// server keeps state (one that records claims names no model before an
/// Authorize), so a new row goes where its requests change nothing that a
/// later row reads. The match is exhaustive and the list as long as the
/// table: a row without its observer, or observed twice, does not compile.
macro_rules! observers {
    ($($variant:ident => $observer:ident,)*) => {
        /// The rows, in the order they are observed.
        const OBSERVED: [ChoiceKey; ChoiceKey::ALL.len()] = [$(ChoiceKey::$variant),*];

        /// Observes the row `key` into `seen`.
        async fn observe_row(key: ChoiceKey, o: &mut Observation, seen: &mut Choices) {
            match key {
                $(ChoiceKey::$variant => seen.$observer = $observer(o).await,)*
            }
        }
    };
}

observers! {
    ModelUuid => model_uuid,
    AuthorizeSuccess => authorize_success,
    AuthClaimsSuccess => auth_claims_success,
    MissingCredential => missing_credential,
    RequestIdUuid => request_id_uuid,
    CodeIsStatus => code_is_status,
    IssuesToken => issues_token,
    AuthorizeClaims => authorize_claims,
    SuccessShape => success_shape,
    WrongCredential => wrong_credential,
    BadProjectEnv => bad_project_env,
    UnknownRef => unknown_ref,
    AbsentProjectEnv => absent_project_env,
    ClaimsCarryModelUuid => claims_carry_model_uuid,
    TokenCheckedWhenNotRequired => token_checked_when_not_required,
    GetBodyValidated => get_body_validated,
    UnknownModel => unknown_model,
    MalformedBody => malformed_body,
    ValidationItems => validation_items,
    UnknownFields => unknown_fields,
    BodyLimit => body_limit,
    BodyTooLarge => body_too_large,
}

/// What the observers share: the target (sending modelUuid where it was
/// found), the place found, and the answers more than one row reads, each
/// asked once, by the first row that reads it.
struct Observation {
    t: Arc<Target>,
    /// Where modelUuid was served, with the status of that Authorize.
    place: Option<(ModelUuidAt, Option<u16>)>,
    /// The Auth Claims without X-Client-Secret (`None`: not asked yet).
    missing: Option<Option<Sent>>,
    /// A valid Authorize and the Auth Claims after it.
    authorized: Option<Option<Authorized>>,
    /// The body limit found, with the status of its refusal.
    limit: Option<Option<(u64, Option<u16>)>>,
    samples: Samples,
}

/// A valid Authorize, the token it issued, and (where it succeeded) the
/// Auth Claims after it, with that token where it issued one.
struct Authorized {
    first: Sent,
    token: Option<String>,
    /// Only where both succeeded.
    second: Option<Sent>,
    /// The model the Authorize named.
    model: Option<String>,
}

impl Observation {
    /// A valid Auth Claims of the first component that takes one, changed.
    fn claims(
        &self,
        change: fn(Req) -> Result<Req, component_auth_bindings::Error>,
    ) -> Option<Result<Req, component_auth_bindings::Error>> {
        let t = &self.t;
        t.primary(Op::AuthClaims)
            .map(|c| t.valid(Op::AuthClaims, c).and_then(change))
    }

    /// The answer to an Auth Claims without X-Client-Secret: its status,
    /// and the form of its `request_id` and `code`.
    async fn missing(&mut self) -> Option<&Sent> {
        if self.missing.is_none() {
            let sent = match self.claims(|r| Ok(r.remove_header("X-Client-Secret"))) {
                Some(r) => Some(self.t.send(Probe::new("missing", r)).await),
                None => None,
            };
            self.missing = Some(sent);
        }
        self.missing.as_ref().and_then(Option::as_ref)
    }

    /// What a successful Authorize does: a token issued, the shape of the
    /// success bodies, and whether Auth Claims then returns that model.
    async fn authorized(&mut self) -> Option<&Authorized> {
        if self.authorized.is_none() {
            let t = self.t.clone();
            let mut done = None;
            if let (Some(c), true) = (t.primary(Op::Authorize), self.place.is_some()) {
                let first = t
                    .send(Probe::new("authorize", t.valid(Op::Authorize, c)))
                    .await;
                let mut token = None;
                let mut second = None;
                if is_2xx(&first) {
                    token = first
                        .raw()
                        .and_then(|r| r.json())
                        .and_then(|b| carried::issued_token(&b));
                    self.samples.tokens.extend(token.clone());
                    self.samples
                        .authorize
                        .extend(first.raw().and_then(|r| Some((r.status, r.json()?))));
                    let req = match &token {
                        Some(token) => t.claims_with_token(
                            c,
                            component_auth_bindings::Secret::new(token.clone()),
                        ),
                        None => t.valid(Op::AuthClaims, c),
                    };
                    let claims = t.send(Probe::new("claims", req)).await;
                    if is_2xx(&claims) {
                        self.samples
                            .auth_claims
                            .extend(claims.raw().and_then(|r| Some((r.status, r.json()?))));
                        second = Some(claims);
                    }
                }
                done = Some(Authorized {
                    first,
                    token,
                    second,
                    model: c.authorize.as_ref().map(|a| a.model_uuid.clone()),
                });
            }
            self.authorized = Some(done);
        }
        self.authorized.as_ref().and_then(Option::as_ref)
    }

    /// The success answers of every component but the one [`authorized`]
    /// sampled: a valid Authorize where it takes one (and modelUuid's place
    /// is known), then the Auth Claims after it, with the token it issued;
    /// else a valid Auth Claims.
    ///
    /// [`authorized`]: Observation::authorized
    async fn sample_every_component(&mut self) {
        let t = self.t.clone();
        let sampled = self
            .authorized
            .as_ref()
            .and_then(Option::as_ref)
            .and_then(|_| t.primary(Op::Authorize))
            .map(|c| c.name.clone());
        for c in t.components(Op::AuthClaims) {
            if sampled.as_deref() == Some(c.name.as_str()) {
                continue;
            }
            let mut token = None;
            if c.authorize.is_some() && self.place.is_some() {
                let first = t
                    .send(Probe::new("sample authorize", t.valid(Op::Authorize, c)))
                    .await;
                if is_2xx(&first) {
                    let body = first.raw().and_then(|r| Some((r.status, r.json()?)));
                    token = body.as_ref().and_then(|(_, b)| carried::issued_token(b));
                    self.samples.tokens.extend(token.clone());
                    self.samples.authorize.extend(body);
                }
            }
            let req = match &token {
                Some(token) => {
                    t.claims_with_token(c, component_auth_bindings::Secret::new(token.clone()))
                }
                None => t.valid(Op::AuthClaims, c),
            };
            let claims = t.send(Probe::new("sample claims", req)).await;
            if is_2xx(&claims) {
                self.samples
                    .auth_claims
                    .extend(claims.raw().and_then(|r| Some((r.status, r.json()?))));
            }
        }
    }

    /// The body limit: a JSON body of growing size until one is refused
    /// other than by validation (417), then halves between the largest
    /// taken and the smallest refused, to the byte.
    async fn limit(&mut self) -> Option<(u64, Option<u16>)> {
        if self.limit.is_none() {
            self.limit = Some(find_limit(&self.t).await);
        }
        self.limit.flatten()
    }
}

// The observers, one per row of the table, in the order of `observers!`.

async fn model_uuid(o: &Observation) -> Option<ModelUuidAt> {
    o.place.as_ref().map(|(at, _)| at.clone())
}

async fn authorize_success(o: &Observation) -> Option<u16> {
    o.place.as_ref().and_then(|(_, status)| *status)
}

async fn auth_claims_success(o: &Observation) -> Option<u16> {
    let r = o.claims(Ok)?;
    o.t.send(Probe::new("valid", r))
        .await
        .status()
        .filter(|s| (200..300).contains(s))
}

async fn missing_credential(o: &mut Observation) -> Option<u16> {
    refusal(o.missing().await?)
}

/// The form of `request_id`: the missing credential's refusal's.
async fn request_id_uuid(o: &mut Observation) -> Option<bool> {
    let body = o.missing().await?.raw()?.json()?;
    body.get("request_id")?
        .as_str()
        .map(conformance_model::profile::is_uuid)
}

/// Whether the missing credential's refusal's `code` is its status.
async fn code_is_status(o: &mut Observation) -> Option<bool> {
    let raw = o.missing().await?.raw()?;
    let code = raw.json()?.get("code")?.as_u64()?;
    Some(code == u64::from(raw.status))
}

async fn issues_token(o: &mut Observation) -> Option<bool> {
    let a = o.authorized().await?;
    is_2xx(&a.first).then_some(a.token.is_some())
}

async fn authorize_claims(o: &mut Observation) -> Option<bool> {
    let a = o.authorized().await?;
    a.second
        .as_ref()?
        .raw()
        .and_then(|r| r.json())
        .zip(a.model.as_deref())
        .map(|(body, model)| carried::holds_string(&body, model))
}

async fn success_shape(o: &mut Observation) -> Option<Shape> {
    let a = o.authorized().await?;
    let spec = in_spec_shape(&a.first) && in_spec_shape(a.second.as_ref()?);
    Some(if spec { Shape::Spec } else { Shape::Other })
}

async fn wrong_credential(o: &Observation) -> Option<u16> {
    let r = o.claims(|r| r.set_header("X-Client-Secret", crate::checks::WRONG_SECRET))?;
    refusal(&o.t.send(Probe::new("wrong", r)).await)
}

async fn bad_project_env(o: &Observation) -> Option<u16> {
    let r = o.claims(|r| r.set_header("X-Project-Env", "staging"))?;
    refusal(&o.t.send(Probe::new("env", r)).await)
}

async fn unknown_ref(o: &Observation) -> Option<u16> {
    let t = &o.t;
    let c = t.primary(Op::AuthClaims)?;
    let r = t.valid_with_ref(Op::AuthClaims, c, crate::checks::UNKNOWN_REF);
    refusal(&t.send(Probe::new("ref", r)).await)
}

async fn absent_project_env(o: &Observation) -> Option<ProjectEnv> {
    let t = &o.t;
    let c = t.primary(Op::AuthClaims)?;
    let absent = t
        .send(Probe::new(
            "env absent",
            t.valid(Op::AuthClaims, c)
                .map(|r| r.remove_header("X-Project-Env")),
        ))
        .await;
    absent
        .raw()
        .filter(|r| (200..300).contains(&r.status))
        .and_then(|r| r.json())
        .and_then(|b| carried::environment(&b))
        .and_then(|e| e.parse::<ProjectEnv>().ok())
}

/// Whether Auth Claims with a token bound to a model names the model.
async fn claims_carry_model_uuid(o: &Observation) -> Option<bool> {
    let t = &o.t;
    let c = t
        .components(Op::AuthClaims)
        .into_iter()
        .find(|c| c.auth_token.is_some() && c.authorize.is_some())?;
    let model = c.authorize.as_ref().map(|a| a.model_uuid.as_str());
    let s = t
        .send(Probe::new("model", t.valid(Op::AuthClaims, c)))
        .await;
    s.raw()
        .filter(|r| (200..300).contains(&r.status))
        .and_then(|r| r.json())
        .zip(model)
        .map(|(body, model)| carried::holds_string(&body, model))
}

async fn token_checked_when_not_required(o: &Observation) -> Option<bool> {
    let t = &o.t;
    let c = t
        .components(Op::AuthClaims)
        .into_iter()
        .find(|c| !c.requires_auth)?;
    let r = t
        .valid(Op::AuthClaims, c)
        .and_then(|r| r.set_header("X-Auth-Token", crate::checks::WRONG_TOKEN));
    match t.send(Probe::new("token", r)).await.status() {
        Some(st) if (200..300).contains(&st) => Some(false),
        Some(st) if (400..500).contains(&st) => Some(true),
        _ => None,
    }
}

async fn get_body_validated(o: &Observation) -> Option<bool> {
    let t = &o.t;
    let c = t.components(Op::AuthClaims).into_iter().find(|c| {
        c.authorize
            .as_ref()
            .is_some_and(|a| a.invalid_body.is_some())
    })?;
    let r = t.with_invalid_body(Op::AuthClaims, c)?;
    match t.send(Probe::new("get body", r)).await.status() {
        Some(417) => Some(true),
        Some(st) if (200..300).contains(&st) => Some(false),
        _ => None,
    }
}

async fn unknown_model(o: &Observation) -> Option<u16> {
    let t = &o.t;
    let c = t.primary(Op::Authorize)?;
    let at = o
        .place
        .as_ref()
        .map(|(at, _)| at.clone())
        .unwrap_or_default();
    let r = t
        .valid(Op::Authorize, c)
        .and_then(|r| r.with_model_uuid(&at, crate::checks::UNKNOWN_UUID));
    refusal(&t.send(Probe::new("model", r)).await)
}

async fn malformed_body(o: &Observation) -> Option<u16> {
    let t = &o.t;
    let c = t.primary(Op::Authorize)?;
    let r = t
        .valid(Op::Authorize, c)
        .map(|r| r.raw_body(b"{\"email\": ".to_vec()));
    refusal(&t.send(Probe::new("malformed", r)).await)
}

/// The items of a 417: the spec's, or the server's own, as the check that
/// holds the choice judges them (`choices/validation-items`): every 417 of
/// the run's error probes decodes with the spec's items, and the one
/// without modelUuid names it as required. Anything less is the server's
/// own: `spec` written here would fail the very next run.
async fn validation_items(o: &Observation) -> Option<Shape> {
    let t = &o.t;
    t.primary(Op::Authorize)?;
    let (kinds, probes): (Vec<_>, Vec<_>) = crate::probes::probe_requests(t).into_iter().unzip();
    let sent = t.send_all(probes).await;
    let answers: Vec<crate::case::Answer<'_>> = kinds
        .into_iter()
        .zip(&sent)
        .filter(|(_, s)| s.status() == Some(417))
        .map(|(kind, s)| crate::case::Answer {
            label: &s.exchange.label,
            sent: s,
            component: None,
            change: None,
            reference: None,
            probe: Some(kind),
        })
        .collect();
    if answers.is_empty() {
        return None;
    }
    let spec = answers
        .iter()
        .all(|a| crate::checks::choices::validation_items(a).is_ok());
    Some(if spec { Shape::Spec } else { Shape::Other })
}

/// A field the settings do not define, beside the valid ones.
async fn unknown_fields(o: &Observation) -> Option<UnknownFields> {
    let t = &o.t;
    let c = t.primary(Op::Authorize)?;
    let mut body = c.authorize.as_ref().map(|a| a.valid_body.clone())?;
    body.insert("conformance_unknown".to_owned(), serde_json::json!(1));
    let bytes = serde_json::to_vec(&body).unwrap_or_default();
    let r = t.valid(Op::Authorize, c).map(|r| r.raw_body(bytes));
    match t.send(Probe::new("unknown field", r)).await.status() {
        Some(417) => Some(UnknownFields::Refused),
        Some(st) if (200..300).contains(&st) => Some(UnknownFields::Ignored),
        _ => None,
    }
}

async fn body_limit(o: &mut Observation) -> Option<u64> {
    o.limit().await.map(|(limit, _)| limit)
}

async fn body_too_large(o: &mut Observation) -> Option<u16> {
    o.limit().await.and_then(|(_, status)| status)
}

/// A 4xx status: a refusal.
fn refusal(s: &Sent) -> Option<u16> {
    s.status().filter(|st| (400..500).contains(st))
}

/// The body limit and the status of its refusal, sent as Authorize of the
/// first component that takes one ([`halve_to_limit`]).
/// A server may answer before reading a large body and close the
/// connection, so the request finds no answer: that size is over the
/// limit too (refused, its status unknown).
async fn find_limit(t: &Target) -> Option<(u64, Option<u16>)> {
    let c = t.primary(Op::Authorize)?.clone();
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
    if size(64).await != Size::Taken {
        return None;
    }
    halve_to_limit(size).await
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
async fn halve_to_limit<F, Fut>(size: F) -> Option<(u64, Option<u16>)>
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Every row of the table is observed, once.
    #[test]
    fn every_row_is_observed_once() {
        let mut observed = OBSERVED.to_vec();
        observed.sort();
        assert_eq!(observed, ChoiceKey::ALL);
    }
}
