//! The profile's valid requests: for an operation and a component, a
//! request that is valid in every way, which a negative check then changes
//! in exactly one way. Built typed through the generated bindings' client;
//! nothing here sends, so code that takes only this part plans requests
//! and cannot send them.

use component_auth_bindings::types::AuthFields;
use component_auth_bindings::{Client, Error, Secret};
use conformance_model::choices::ModelUuidAt;
use conformance_model::profile::{Component, Profile};

use crate::request::{Op, Req};

/// The profile, and the client whose builders make its requests.
#[derive(Debug)]
pub struct ValidRequests {
    pub profile: Profile,
    client: Client,
    /// Where this run saw Authorize read `modelUuid` when the profile
    /// declares no place ([`crate::target::Target::with_observed_model_uuid`]):
    /// a value the runner passes on, never written into the profile's
    /// choices.
    observed_model_uuid: Option<ModelUuidAt>,
}

impl ValidRequests {
    pub(crate) fn new(profile: Profile, client: Client) -> Self {
        Self {
            profile,
            client,
            observed_model_uuid: None,
        }
    }

    pub(crate) fn observe_model_uuid(&mut self, at: ModelUuidAt) {
        self.observed_model_uuid = Some(at);
    }

    /// Where this run sends Authorize's `modelUuid`: the profile's declared
    /// place, else where the run saw the server read it, else ours (the
    /// query).
    pub fn model_uuid_at(&self) -> ModelUuidAt {
        let chosen = self.profile.choices.model_uuid();
        match (chosen.declared, &self.observed_model_uuid) {
            (false, Some(seen)) => seen.clone(),
            _ => chosen.value,
        }
    }

    /// Where the run saw the server read `modelUuid`, when it looked.
    pub fn observed_model_uuid(&self) -> Option<&ModelUuidAt> {
        self.observed_model_uuid.as_ref()
    }

    /// Components an operation can be exercised on: Authorize needs the
    /// profile's `authorize` section.
    pub fn components(&self, op: Op) -> Vec<&Component> {
        self.profile
            .components
            .iter()
            .filter(|c| op == Op::AuthClaims || c.authorize.is_some())
            .collect()
    }

    /// The component header checks use: the first that requires auth (so
    /// every header is in play), else the first.
    pub fn primary(&self, op: Op) -> Option<&Component> {
        let all = self.components(op);
        all.iter()
            .find(|c| c.requires_auth)
            .or_else(|| all.first())
            .copied()
    }

    /// A request that is valid in every way: the component's name as ref,
    /// its token where it has one, its valid body where it has one (and, for
    /// Authorize, its model uuid).
    pub fn valid(&self, op: Op, c: &Component) -> Result<Req, Error> {
        self.valid_with_ref(op, c, &c.name)
    }

    pub fn valid_with_ref(&self, op: Op, c: &Component, reference: &str) -> Result<Req, Error> {
        let a = c.authorize.as_ref();
        self.valid_as(
            op,
            c,
            reference,
            a.map(|a| (a.model_uuid.as_str(), &a.valid_body)),
        )
    }

    /// A valid request of `op` to `c` claiming `model` with its body
    /// (`None`: no body, and Authorize cannot be built).
    pub fn valid_as(
        &self,
        op: Op,
        c: &Component,
        reference: &str,
        model: Option<(&str, &AuthFields)>,
    ) -> Result<Req, Error> {
        match op {
            Op::AuthClaims => {
                let mut b = self.client.auth_claims().ref_(reference);
                if let Some(t) = &c.auth_token {
                    b = b.x_auth_token(t.clone());
                }
                if let Some((_, body)) = model {
                    b = b.body(body.clone());
                }
                b.build().map(Req::Claims)
            }
            Op::Authorize => {
                let (model_uuid, body) = model.ok_or(Error::MissingParameter("modelUuid"))?;
                let mut b = self
                    .client
                    .authorize()
                    .ref_(reference)
                    .model_uuid(model_uuid.to_owned())
                    .body(body.clone());
                if let Some(t) = &c.auth_token {
                    b = b.x_auth_token(t.clone());
                }
                let at = self.model_uuid_at();
                let req = Req::Authorize(b.build()?, None);
                if at == ModelUuidAt::default() {
                    Ok(req)
                } else {
                    // The bindings put it in the query (our choice): moved,
                    // it is nowhere else.
                    req.without_model_uuid(&ModelUuidAt::default())
                        .with_model_uuid(&at, model_uuid)
                }
            }
        }
    }

    /// A valid request of `op` to `c` carrying its `invalid_body`; `None`
    /// when the profile gives none.
    pub fn with_invalid_body(&self, op: Op, c: &Component) -> Option<Result<Req, Error>> {
        let body = c.authorize.as_ref()?.invalid_body.as_ref()?;
        let bytes = serde_json::to_vec(body).ok()?;
        Some(self.valid(op, c).map(|r| r.raw_body(bytes)))
    }

    /// A valid Auth Claims request to `c` carrying `token` (an issued one)
    /// in place of the profile's.
    pub fn claims_with_token(&self, c: &Component, token: Secret) -> Result<Req, Error> {
        self.valid(Op::AuthClaims, c)
            .and_then(|r| r.set_header("X-Auth-Token", token.expose()))
    }
}
