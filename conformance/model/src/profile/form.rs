//! One set of keys, two forms: a profile's keys ([`ProfileKeys`]) and a
//! component's ([`ComponentKeys`]) are declared once, generic over how
//! their values are held. [`Read`]: each `${VAR}` expanded and each value
//! checked as it is read (a run's profile). [`Written`]: the text as it
//! stands, `${VAR}`s and all (what `conformance init` takes as
//! `--component` and writes as the profile). So a key the profile takes,
//! `init` takes and writes, and a key added later is added to both.

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use super::budgets::Budgets;
use super::component::Components;
use super::loading::{Capped, HeaderName, Rate};
use super::values::{BaseUrl, Body, Env, NonEmpty, Plain, Text, Uuid};

/// How the values of a profile's keys are held.
pub trait Form {
    /// `base_url`.
    type Url: DeserializeOwned;
    /// `name`, `tag`: what names or places something.
    type Name: DeserializeOwned;
    /// A uuid (`uuid`, `model_uuid`).
    type Uuid: DeserializeOwned;
    /// A string (`client_id`, `auth_token`).
    type Text: DeserializeOwned;
    /// A string that must not be empty (`client_secret`).
    type Secret: DeserializeOwned;
    /// `project_env`.
    type Env: DeserializeOwned;
    /// A body (`valid_body`, ...).
    type Body: DeserializeOwned;
    /// `secret_fields`.
    type Names: DeserializeOwned;
    /// A component's `fields`.
    type Fields: DeserializeOwned;
    /// The list of `components`.
    type Components: DeserializeOwned;
    /// `choices`.
    type Choices: DeserializeOwned;
    /// `snapshot_headers`.
    type Headers: DeserializeOwned;
    /// `budgets`.
    type Budgets: DeserializeOwned;
    /// `rate`.
    type Rate: DeserializeOwned;
}

/// Read for a run: expanded, checked ([`super::Profile::from_yaml_str`]).
pub(super) struct Read;

impl Form for Read {
    type Url = BaseUrl;
    type Name = Plain;
    type Uuid = Uuid;
    type Text = Text;
    type Secret = NonEmpty;
    type Env = Env;
    type Body = Body;
    type Names = Capped<String, { crate::limits::SECRET_FIELDS }>;
    type Fields = crate::fields::Fields;
    type Components = Components;
    type Choices = crate::choices::Choices;
    type Headers = Capped<HeaderName, { crate::limits::SNAPSHOT_HEADERS }>;
    type Budgets = Budgets;
    type Rate = Rate;
}

/// As written: strings as they stand (`${VAR}`s unexpanded), bodies and
/// `fields` as YAML mappings. Checked only when read (`Read`).
pub struct Written;

/// A mapping as written (bodies, `fields`, `choices`, `budgets`).
pub type Mapping = serde_json::Map<String, serde_json::Value>;

impl Form for Written {
    type Url = String;
    type Name = String;
    type Uuid = String;
    type Text = String;
    type Secret = String;
    type Env = String;
    type Body = Mapping;
    type Names = Vec<String>;
    type Fields = Mapping;
    type Components = Vec<ComponentKeys<Written>>;
    type Choices = Mapping;
    type Headers = Vec<String>;
    type Budgets = Mapping;
    type Rate = f64;
}

/// The keys of a profile.
#[derive(Deserialize, Serialize)]
#[serde(
    deny_unknown_fields,
    bound(
        deserialize = "",
        serialize = "F::Url: Serialize, F::Name: Serialize, F::Text: Serialize, F::Secret: Serialize, F::Env: Serialize, F::Components: Serialize, F::Choices: Serialize, F::Headers: Serialize, F::Budgets: Serialize, F::Rate: Serialize"
    )
)]
pub struct ProfileKeys<F: Form> {
    pub base_url: F::Url,
    pub client_id: F::Text,
    pub client_secret: F::Secret,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub project_env: Option<F::Env>,
    pub components: F::Components,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub choices: Option<F::Choices>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub snapshot_headers: Option<F::Headers>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub budgets: Option<F::Budgets>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate: Option<F::Rate>,
    /// A PEM file of CA certificates to trust (a private CA), relative to
    /// the profile's folder.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ca_cert: Option<F::Name>,
}

/// The keys of a component.
#[derive(Deserialize, Serialize)]
#[serde(
    deny_unknown_fields,
    bound(
        deserialize = "",
        serialize = "F::Name: Serialize, F::Uuid: Serialize, F::Text: Serialize, F::Body: Serialize, F::Names: Serialize, F::Fields: Serialize"
    )
)]
pub struct ComponentKeys<F: Form> {
    pub name: F::Name,
    pub tag: F::Name,
    pub uuid: F::Uuid,
    #[serde(default)]
    pub requires_auth: bool,
    /// A valid token of the component; required where `requires_auth`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub auth_token: Option<F::Text>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub authorize: Option<AuthorizeKeys<F>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub secret_fields: Option<F::Names>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fields: Option<F::Fields>,
}

/// The keys of a component's `authorize`.
#[derive(Deserialize, Serialize)]
#[serde(
    deny_unknown_fields,
    bound(deserialize = "", serialize = "F::Uuid: Serialize, F::Body: Serialize")
)]
pub struct AuthorizeKeys<F: Form> {
    pub model_uuid: F::Uuid,
    pub valid_body: F::Body,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub invalid_body: Option<F::Body>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub second_model: Option<SecondModelKeys<F>>,
}

/// The keys of `authorize.second_model`.
#[derive(Deserialize, Serialize)]
#[serde(
    deny_unknown_fields,
    bound(deserialize = "", serialize = "F::Uuid: Serialize, F::Body: Serialize")
)]
pub struct SecondModelKeys<F: Form> {
    pub model_uuid: F::Uuid,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub valid_body: Option<F::Body>,
}

/// A profile as written (`conformance init` writes one).
pub type ProfileDocument = ProfileKeys<Written>;
/// A component as written (`conformance init --component` takes one).
pub type ComponentDocument = ComponentKeys<Written>;

impl Clone for ComponentKeys<Written> {
    fn clone(&self) -> Self {
        ComponentKeys {
            name: self.name.clone(),
            tag: self.tag.clone(),
            uuid: self.uuid.clone(),
            requires_auth: self.requires_auth,
            auth_token: self.auth_token.clone(),
            authorize: self.authorize.clone(),
            secret_fields: self.secret_fields.clone(),
            fields: self.fields.clone(),
        }
    }
}

impl Clone for AuthorizeKeys<Written> {
    fn clone(&self) -> Self {
        AuthorizeKeys {
            model_uuid: self.model_uuid.clone(),
            valid_body: self.valid_body.clone(),
            invalid_body: self.invalid_body.clone(),
            second_model: self.second_model.clone(),
        }
    }
}

impl Clone for SecondModelKeys<Written> {
    fn clone(&self) -> Self {
        SecondModelKeys {
            model_uuid: self.model_uuid.clone(),
            valid_body: self.valid_body.clone(),
        }
    }
}

impl std::fmt::Debug for ComponentKeys<Written> {
    /// Names only: a body's values may be credentials.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ComponentDocument")
            .field("name", &self.name)
            .field("tag", &self.tag)
            .field("uuid", &self.uuid)
            .finish_non_exhaustive()
    }
}
