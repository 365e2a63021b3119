//! What the rules need to know of the server: its components (by name, tag
//! or uuid), which require auth, their declared auth fields, and where
//! Authorize's `modelUuid` travels. A conformance profile or a reference
//! server's fixture supplies it.

use std::borrow::Cow;

/// A declared auth field's type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    String,
    Integer,
    Number,
    Boolean,
}

impl Kind {
    /// Whether `value` is of this type (an integer is a number too).
    pub fn holds(self, value: &serde_json::Value) -> bool {
        match self {
            Kind::String => value.is_string(),
            Kind::Integer => value.is_i64() || value.is_u64(),
            Kind::Number => value.is_number(),
            Kind::Boolean => value.is_boolean(),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Kind::String => "a string",
            Kind::Integer => "an integer",
            Kind::Number => "a number",
            Kind::Boolean => "a boolean",
        }
    }
}

/// One field of a component's auth settings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Field {
    pub name: String,
    pub kind: Kind,
    pub required: bool,
}

/// What the rules know of one component.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Component {
    pub requires_auth: bool,
    /// Its auth settings where known; `None`: any body of JSON passes.
    pub fields: Option<Vec<Field>>,
    /// Tokens known valid for it (a profile's `auth_token`).
    pub tokens: Vec<String>,
    /// Authorizations known to succeed: a model and the body that claims
    /// it (a profile's `authorize`, its `second_model`).
    pub authorizations: Vec<Authorization>,
}

/// A model of a component and the body known to claim it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Authorization {
    pub model_uuid: String,
    pub body: serde_json::Value,
}

/// Where Authorize's `modelUuid` travels.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Place {
    Query(String),
    Header(String),
    Body(String),
}

impl Default for Place {
    /// Ours (spec/README.md choice 1): the query parameter `modelUuid`.
    fn default() -> Self {
        Place::Query("modelUuid".to_owned())
    }
}

/// What the server is known to hold. Borrowed where the knower keeps it
/// (a proxy asks for every exchange), made where it does not.
pub trait Knows {
    /// The component `reference` (already percent-decoded) names: by uuid,
    /// name or tag, as the server matches them; `None` when it names none.
    fn component(&self, reference: &str) -> Option<Cow<'_, Component>>;
    /// Where Authorize's `modelUuid` travels.
    fn model_uuid_at(&self) -> Cow<'_, Place>;
    /// Values no report may show beyond those a request carries as
    /// credentials ([`crate::redact::secrets_of`]): a profile's secrets.
    fn secrets(&self) -> Cow<'_, [String]> {
        Cow::Borrowed(&[])
    }
    /// Body field names whose values are secrets (a profile's
    /// `secret_fields`), beyond those named as credentials.
    fn secret_fields(&self) -> Cow<'_, [String]> {
        Cow::Borrowed(&[])
    }
    /// The client's id and secret, where known valid (a profile's).
    fn credentials(&self) -> Option<crate::profiled::Lent<'_>> {
        None
    }
    /// The component (its name) whose known token `token` is.
    fn token_owner(&self, _token: &str) -> Option<String> {
        None
    }
}
