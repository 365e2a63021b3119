//! One observer per row of the choices' table
//! ([`conformance_model::choices`]), each asking the server what it chose
//! for that row; the answers several rows read are asked once.

use std::sync::Arc;

use component_auth_bindings::types::ProjectEnv;
use conformance_model::choices::{ChoiceKey, Choices, ModelUuidAt, Shape, UnknownFields};
use conformance_wire::carried;
use conformance_wire::request::{Op, Probe, Req, Sent};
use conformance_wire::target::Target;

use super::Samples;
use super::body_limit::find_limit;

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

/// Every row observed, in the order of `observers!`, on `t` (sending
/// modelUuid where it was found, at `place`).
pub(super) async fn observe_rows(
    t: Arc<Target>,
    place: Option<(ModelUuidAt, Option<u16>)>,
) -> (Choices, Samples) {
    let mut o = Observation {
        t,
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
    (seen, o.samples)
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
        t.requests
            .primary(Op::AuthClaims)
            .map(|c| t.requests.valid(Op::AuthClaims, c).and_then(change))
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
            if let (Some(c), true) = (t.requests.primary(Op::Authorize), self.place.is_some()) {
                let first = t
                    .send(Probe::new("authorize", t.requests.valid(Op::Authorize, c)))
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
                        Some(token) => t.requests.claims_with_token(
                            c,
                            component_auth_bindings::Secret::new(token.clone()),
                        ),
                        None => t.requests.valid(Op::AuthClaims, c),
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
            .and_then(|_| t.requests.primary(Op::Authorize))
            .map(|c| c.name.clone());
        for c in t.requests.components(Op::AuthClaims) {
            if sampled.as_deref() == Some(c.name.as_str()) {
                continue;
            }
            let mut token = None;
            if c.authorize.is_some() && self.place.is_some() {
                let first = t
                    .send(Probe::new(
                        "sample authorize",
                        t.requests.valid(Op::Authorize, c),
                    ))
                    .await;
                if is_2xx(&first) {
                    let body = first.raw().and_then(|r| Some((r.status, r.json()?)));
                    token = body.as_ref().and_then(|(_, b)| carried::issued_token(b));
                    self.samples.tokens.extend(token.clone());
                    self.samples.authorize.extend(body);
                }
            }
            let req = match &token {
                Some(token) => t
                    .requests
                    .claims_with_token(c, component_auth_bindings::Secret::new(token.clone())),
                None => t.requests.valid(Op::AuthClaims, c),
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
    let c = t.requests.primary(Op::AuthClaims)?;
    let r = t
        .requests
        .valid_with_ref(Op::AuthClaims, c, crate::checks::UNKNOWN_REF);
    refusal(&t.send(Probe::new("ref", r)).await)
}

async fn absent_project_env(o: &Observation) -> Option<ProjectEnv> {
    let t = &o.t;
    let c = t.requests.primary(Op::AuthClaims)?;
    let absent = t
        .send(Probe::new(
            "env absent",
            t.requests
                .valid(Op::AuthClaims, c)
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
        .requests
        .components(Op::AuthClaims)
        .into_iter()
        .find(|c| c.auth_token.is_some() && c.authorize.is_some())?;
    let model = c.authorize.as_ref().map(|a| a.model_uuid.as_str());
    let s = t
        .send(Probe::new("model", t.requests.valid(Op::AuthClaims, c)))
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
        .requests
        .components(Op::AuthClaims)
        .into_iter()
        .find(|c| !c.requires_auth)?;
    let r = t
        .requests
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
    let c = t
        .requests
        .components(Op::AuthClaims)
        .into_iter()
        .find(|c| {
            c.authorize
                .as_ref()
                .is_some_and(|a| a.invalid_body.is_some())
        })?;
    let r = t.requests.with_invalid_body(Op::AuthClaims, c)?;
    match t.send(Probe::new("get body", r)).await.status() {
        Some(417) => Some(true),
        Some(st) if (200..300).contains(&st) => Some(false),
        _ => None,
    }
}

async fn unknown_model(o: &Observation) -> Option<u16> {
    let t = &o.t;
    let c = t.requests.primary(Op::Authorize)?;
    let at = o
        .place
        .as_ref()
        .map(|(at, _)| at.clone())
        .unwrap_or_default();
    let r = t
        .requests
        .valid(Op::Authorize, c)
        .and_then(|r| r.with_model_uuid(&at, crate::checks::UNKNOWN_UUID));
    refusal(&t.send(Probe::new("model", r)).await)
}

async fn malformed_body(o: &Observation) -> Option<u16> {
    let t = &o.t;
    let c = t.requests.primary(Op::Authorize)?;
    let r = t
        .requests
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
    t.requests.primary(Op::Authorize)?;
    let (kinds, probes): (Vec<_>, Vec<_>) = crate::probes::probe_requests(&t.requests)
        .into_iter()
        .unzip();
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
    let c = t.requests.primary(Op::Authorize)?;
    let mut body = c.authorize.as_ref().map(|a| a.valid_body.clone())?;
    body.insert("conformance_unknown".to_owned(), serde_json::json!(1));
    let bytes = serde_json::to_vec(&body).unwrap_or_default();
    let r = t
        .requests
        .valid(Op::Authorize, c)
        .map(|r| r.raw_body(bytes));
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

/// A success decoded as the spec's result type, with X-Project-Uuid.
fn in_spec_shape(s: &Sent) -> bool {
    use component_auth_bindings::{AuthClaimsResponse, AuthorizeResponse};
    match &s.typed {
        Some(conformance_wire::request::Typed::Claims(AuthClaimsResponse::Ok(d))) => {
            d.headers.x_project_uuid.is_some()
        }
        Some(conformance_wire::request::Typed::Authorize(AuthorizeResponse::Ok(d))) => {
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
