//! What a profile tells the rules ([`Known`]): each component's names,
//! whether it requires auth, its tokens, the bodies that claim its models
//! and its declared fields; the client's credentials; the secrets no report
//! shows.

use std::borrow::Cow;

use conformance_model::choices::ModelUuidAt;
use conformance_model::fields::FieldType;
use conformance_model::profile::Profile;
use traffic_rules::{Component, Field, Kind, Knows, Place};

/// What the rules know of one of the profile's components.
fn known(c: &conformance_model::profile::Component) -> Component {
    Component {
        requires_auth: c.requires_auth,
        tokens: c.auth_token.iter().map(|t| t.expose().to_owned()).collect(),
        authorizations: c
            .authorize
            .iter()
            .flat_map(|a| {
                std::iter::once(traffic_rules::Authorization {
                    model_uuid: a.model_uuid.clone(),
                    body: serde_json::Value::Object(a.valid_body.clone()),
                })
                .chain(a.second_model.iter().map(|m| {
                    traffic_rules::Authorization {
                        model_uuid: m.model_uuid.clone(),
                        body: serde_json::Value::Object(m.valid_body.clone()),
                    }
                }))
            })
            .collect(),
        fields: c.fields.as_ref().map(|fields| {
            fields
                .0
                .iter()
                .map(|f| Field {
                    name: f.name.clone(),
                    kind: match f.kind {
                        FieldType::String => Kind::String,
                        FieldType::Integer => Kind::Integer,
                        FieldType::Number => Kind::Number,
                        FieldType::Boolean => Kind::Boolean,
                    },
                    required: f.required,
                })
                .collect()
        }),
    }
}

/// What a profile tells the rules, read once: the proxy asks it for every
/// exchange, and is lent what it asks for.
pub struct Known {
    /// Each component's uuid, name and tag, and what the rules know of it.
    components: Vec<([String; 3], Component)>,
    credentials: traffic_rules::profiled::Credentials,
    at: Place,
    /// The profile's secrets (the client secret, tokens, `${VAR}` values)
    /// and secret body fields: no report shows them.
    secrets: Vec<String>,
    secret_fields: Vec<String>,
}

impl Known {
    pub fn new(profile: &Profile) -> Known {
        Known {
            components: profile
                .components
                .iter()
                .map(|c| ([c.uuid.clone(), c.name.clone(), c.tag.clone()], known(c)))
                .collect(),
            credentials: traffic_rules::profiled::Credentials {
                client_id: profile.client_id.clone(),
                client_secret: profile.client_secret.expose().to_owned(),
            },
            at: match profile.choices.model_uuid().value {
                ModelUuidAt::Query(name) => Place::Query(name),
                ModelUuidAt::Header(name) => Place::Header(name),
                ModelUuidAt::Body(name) => Place::Body(name),
            },
            secrets: profile.secrets(),
            secret_fields: profile.secret_fields(),
        }
    }
}

impl Knows for Known {
    fn component(&self, reference: &str) -> Option<Cow<'_, Component>> {
        self.components
            .iter()
            .find(|(names, _)| names.iter().any(|n| n == reference))
            .map(|(_, c)| Cow::Borrowed(c))
    }

    fn model_uuid_at(&self) -> Cow<'_, Place> {
        Cow::Borrowed(&self.at)
    }

    fn secrets(&self) -> Cow<'_, [String]> {
        Cow::Borrowed(&self.secrets)
    }

    fn secret_fields(&self) -> Cow<'_, [String]> {
        Cow::Borrowed(&self.secret_fields)
    }

    fn credentials(&self) -> Option<traffic_rules::profiled::Lent<'_>> {
        Some(Cow::Borrowed(&self.credentials))
    }

    fn token_owner(&self, token: &str) -> Option<String> {
        self.components
            .iter()
            .find(|(_, c)| c.tokens.iter().any(|t| t == token))
            .map(|([_, name, _], _)| name.clone())
    }
}
