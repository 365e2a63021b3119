//! The server's own choices where the description is silent, as its
//! profile declares them (`choices:`), and ours (`spec/README.md`) where it
//! declares none.
//!
//! The description leaves open which status a refusal gets, what a success
//! is answered with, where `modelUuid` travels, and more. A check of such a
//! choice holds the server to what its profile declares, at MUST level (the
//! report says the rule comes from the profile); where the profile declares
//! nothing, it holds the server to our spec's choice at SHOULD level, which
//! warns and fails only with `--strict`. A team whose server chose
//! differently writes its choices down once (or lets `conformance choices`
//! write them) and the gate stays green on a correct server.

use std::fmt;

use component_auth_bindings::types::ProjectEnv;
use serde::{Deserialize, Deserializer};

use crate::level::Level;

/// Where Authorize's `modelUuid` travels (§4.2: "where it is carried in
/// the request: not shown"). Written `query`, `query:NAME`, `header:NAME`
/// or `body:FIELD`. Ours: the query parameter `modelUuid` (choice 1).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ModelUuidAt {
    Query(String),
    Header(String),
    Body(String),
}

impl Default for ModelUuidAt {
    fn default() -> Self {
        ModelUuidAt::Query("modelUuid".to_owned())
    }
}

impl fmt::Display for ModelUuidAt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ModelUuidAt::Query(n) if n == "modelUuid" => f.write_str("query"),
            ModelUuidAt::Query(n) => write!(f, "query:{n}"),
            ModelUuidAt::Header(n) => write!(f, "header:{n}"),
            ModelUuidAt::Body(n) => write!(f, "body:{n}"),
        }
    }
}

impl std::str::FromStr for ModelUuidAt {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        let (place, name) = match s.split_once(':') {
            Some((place, name)) => (place, Some(name.trim())),
            None => (s, None),
        };
        let name = match name {
            Some("") => return Err(format!("`{s}` names no {place} parameter after the colon")),
            Some(n) => n.to_owned(),
            None => "modelUuid".to_owned(),
        };
        match place.trim() {
            "query" => Ok(ModelUuidAt::Query(name)),
            "header" if reqwest::header::HeaderName::from_bytes(name.as_bytes()).is_ok() => {
                Ok(ModelUuidAt::Header(name))
            }
            "header" => Err(format!("`{name}` is not a header name")),
            "body" => Ok(ModelUuidAt::Body(name)),
            _ => Err(format!(
                "`{s}` is not a place: write `query`, `header:NAME` or `body:FIELD`"
            )),
        }
    }
}

/// `success_shape` and `validation_items`: the spec's shape or the
/// server's own. A closed set, so the checks match the value, never its
/// spelling (issue 28).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// The spec's types (choices 2, 4 and 13). Ours.
    Spec,
    /// A shape of the server's own, which the description allows.
    Other,
}

impl Shape {
    /// The value as a profile writes it.
    pub const fn as_str(self) -> &'static str {
        match self {
            Shape::Spec => "spec",
            Shape::Other => "other",
        }
    }
}

impl fmt::Display for Shape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for Shape {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "spec" => Ok(Shape::Spec),
            "other" => Ok(Shape::Other),
            // The value is named by the caller, which knows where it came from.
            _ => Err(
                "is neither `spec` (the spec's result types) nor `other` (the server's own shape)"
                    .to_owned(),
            ),
        }
    }
}

/// Read as text with `${VAR}` expanded, as every value of `choices:` may
/// come from the environment.
impl<'de> Deserialize<'de> for Shape {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        closed_set(d)
    }
}

/// `unknown_fields`: what a body field the component's settings do not
/// define gets. A closed set, so the checks match the value, never its
/// spelling (issue 28).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnknownFields {
    /// A 417, choice 13's `unknown_field`. Ours.
    Refused,
    /// Served as if the field were not there.
    Ignored,
}

impl UnknownFields {
    /// The value as a profile writes it.
    pub const fn as_str(self) -> &'static str {
        match self {
            UnknownFields::Refused => "refused",
            UnknownFields::Ignored => "ignored",
        }
    }
}

impl fmt::Display for UnknownFields {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for UnknownFields {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "refused" => Ok(UnknownFields::Refused),
            "ignored" => Ok(UnknownFields::Ignored),
            // The value is named by the caller, which knows where it came from.
            _ => Err("is neither `refused` (417) nor `ignored`".to_owned()),
        }
    }
}

/// Read as text with `${VAR}` expanded, as every value of `choices:` may
/// come from the environment.
impl<'de> Deserialize<'de> for UnknownFields {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        closed_set(d)
    }
}

/// One value of a closed set, `${VAR}` expanded; refused with the value as
/// written, or only the `${VAR}` it came from ([`crate::expand::shown`]):
/// a value from the environment is never printed.
fn closed_set<'de, D, T>(d: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: std::str::FromStr<Err = String>,
{
    let (raw, value) = crate::expand::plain(|| crate::expand::read_text(d))?;
    value.parse().map_err(|why: String| {
        serde::de::Error::custom(format!("{} {why}", crate::expand::shown(&raw, &value)))
    })
}

/// A key of `choices:`: the checks that judge a choice name it by this
/// enum, so a misspelt key does not compile (a profile's unknown key is
/// refused with its line by serde).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ChoiceKey {
    ModelUuid,
    MissingCredential,
    WrongCredential,
    BadProjectEnv,
    UnknownRef,
    UnknownModel,
    MalformedBody,
    BodyTooLarge,
    AuthClaimsSuccess,
    AuthorizeSuccess,
    TokenCheckedWhenNotRequired,
    GetBodyValidated,
    BodyLimit,
    AbsentProjectEnv,
    ClaimsCarryModelUuid,
    IssuesToken,
    AuthorizeClaims,
    SuccessShape,
    RequestIdUuid,
    CodeIsStatus,
    ValidationItems,
    UnknownFields,
}

impl ChoiceKey {
    /// Every key, in the order of `to_yaml`.
    pub const ALL: [ChoiceKey; 22] = [
        ChoiceKey::ModelUuid,
        ChoiceKey::MissingCredential,
        ChoiceKey::WrongCredential,
        ChoiceKey::BadProjectEnv,
        ChoiceKey::UnknownRef,
        ChoiceKey::UnknownModel,
        ChoiceKey::MalformedBody,
        ChoiceKey::BodyTooLarge,
        ChoiceKey::AuthClaimsSuccess,
        ChoiceKey::AuthorizeSuccess,
        ChoiceKey::TokenCheckedWhenNotRequired,
        ChoiceKey::GetBodyValidated,
        ChoiceKey::BodyLimit,
        ChoiceKey::AbsentProjectEnv,
        ChoiceKey::ClaimsCarryModelUuid,
        ChoiceKey::IssuesToken,
        ChoiceKey::AuthorizeClaims,
        ChoiceKey::RequestIdUuid,
        ChoiceKey::CodeIsStatus,
        ChoiceKey::SuccessShape,
        ChoiceKey::ValidationItems,
        ChoiceKey::UnknownFields,
    ];

    /// The key as a profile writes it.
    pub fn as_str(self) -> &'static str {
        match self {
            ChoiceKey::ModelUuid => "model_uuid",
            ChoiceKey::MissingCredential => "missing_credential",
            ChoiceKey::WrongCredential => "wrong_credential",
            ChoiceKey::BadProjectEnv => "bad_project_env",
            ChoiceKey::UnknownRef => "unknown_ref",
            ChoiceKey::UnknownModel => "unknown_model",
            ChoiceKey::MalformedBody => "malformed_body",
            ChoiceKey::BodyTooLarge => "body_too_large",
            ChoiceKey::AuthClaimsSuccess => "auth_claims_success",
            ChoiceKey::AuthorizeSuccess => "authorize_success",
            ChoiceKey::TokenCheckedWhenNotRequired => "token_checked_when_not_required",
            ChoiceKey::GetBodyValidated => "get_body_validated",
            ChoiceKey::BodyLimit => "body_limit",
            ChoiceKey::AbsentProjectEnv => "absent_project_env",
            ChoiceKey::ClaimsCarryModelUuid => "claims_carry_model_uuid",
            ChoiceKey::IssuesToken => "issues_token",
            ChoiceKey::AuthorizeClaims => "authorize_claims",
            ChoiceKey::SuccessShape => "success_shape",
            ChoiceKey::RequestIdUuid => "request_id_uuid",
            ChoiceKey::CodeIsStatus => "code_is_status",
            ChoiceKey::ValidationItems => "validation_items",
            ChoiceKey::UnknownFields => "unknown_fields",
        }
    }
}

impl fmt::Display for ChoiceKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One choice: the value the checks hold the server to, and whether the
/// profile declared it (MUST) or it is ours (SHOULD).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Chosen<T> {
    pub value: T,
    pub declared: bool,
}

impl<T> Chosen<T> {
    pub fn level(&self) -> Level {
        if self.declared {
            Level::Must
        } else {
            Level::Should
        }
    }
}

/// The choices a profile can declare. Every field is optional; an absent
/// one is ours.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Choices {
    /// Where Authorize's `modelUuid` travels.
    #[serde(default, deserialize_with = "model_uuid_at")]
    pub model_uuid: Option<ModelUuidAt>,
    /// A missing or empty X-Client-Id or X-Client-Secret. Ours: 400.
    #[serde(default, deserialize_with = "refusal")]
    pub missing_credential: Option<u16>,
    /// An unknown X-Client-Id or a wrong X-Client-Secret. Ours: 401.
    #[serde(default, deserialize_with = "refusal")]
    pub wrong_credential: Option<u16>,
    /// An X-Project-Env other than `dev` or `live`. Ours: 400.
    #[serde(default, deserialize_with = "refusal")]
    pub bad_project_env: Option<u16>,
    /// A ref that names no component. Ours: 404.
    #[serde(default, deserialize_with = "refusal")]
    pub unknown_ref: Option<u16>,
    /// Authorize for a modelUuid no model of the component has. Ours: 404.
    #[serde(default, deserialize_with = "refusal")]
    pub unknown_model: Option<u16>,
    /// A body that is not JSON. Ours: 400.
    #[serde(default, deserialize_with = "refusal")]
    pub malformed_body: Option<u16>,
    /// A body over the server's limit. Ours: 413.
    #[serde(default, deserialize_with = "refusal")]
    pub body_too_large: Option<u16>,
    /// Auth Claims served. Ours: 200.
    #[serde(default, deserialize_with = "success")]
    pub auth_claims_success: Option<u16>,
    /// Authorize served. Ours: 200.
    #[serde(default, deserialize_with = "success")]
    pub authorize_success: Option<u16>,
    /// Is an X-Auth-Token checked where the component does not require
    /// one (a wrong one refused)? Ours: yes.
    #[serde(default, deserialize_with = "flag")]
    pub token_checked_when_not_required: Option<bool>,
    /// Is the body of Auth Claims (a GET) validated like Authorize's?
    /// Ours: yes.
    #[serde(default, deserialize_with = "flag")]
    pub get_body_validated: Option<bool>,
    /// The largest body accepted, in bytes, or `none` (no limit: written
    /// [`NO_BODY_LIMIT`]). Ours: 65536.
    #[serde(default, deserialize_with = "limit")]
    pub body_limit: Option<u64>,
    /// What an absent X-Project-Env means: `dev` or `live`. Ours: `dev`.
    #[serde(default, deserialize_with = "env")]
    pub absent_project_env: Option<ProjectEnv>,
    /// Does Auth Claims, served with a token bound to a model, carry that
    /// model's uuid? The model's fields are not shown. Ours: yes.
    #[serde(default, deserialize_with = "flag")]
    pub claims_carry_model_uuid: Option<bool>,
    /// Does a successful Authorize issue a token (anywhere in its body)?
    /// Ours: yes (choice 5).
    #[serde(default, deserialize_with = "flag")]
    pub issues_token: Option<bool>,
    /// After a successful Authorize, does Auth Claims (with the token it
    /// issued, where it issued one) return that model? A server that
    /// records claims does; so does ours, through the token. Ours: yes.
    #[serde(default, deserialize_with = "flag")]
    pub authorize_claims: Option<bool>,
    /// The shape of success bodies: `spec` (our AuthClaimsResult and
    /// AuthorizeResult, with X-Project-Uuid) or `other` (the server's own;
    /// the description does not show one). Ours: `spec`.
    #[serde(default, deserialize_with = "shape")]
    pub success_shape: Option<Shape>,
    /// Is every `request_id` a uuid? Ours: yes (choice 12).
    #[serde(default, deserialize_with = "flag")]
    pub request_id_uuid: Option<bool>,
    /// Does an error body's `code` equal the HTTP status (not a service
    /// code of the server's own)? Ours: yes (choice 11).
    #[serde(default, deserialize_with = "flag")]
    pub code_is_status: Option<bool>,
    /// The items of a 417's `errors`: `spec` ({field, rule, message},
    /// choice 13) or `other` (the server's own). Ours: `spec`.
    #[serde(default, deserialize_with = "shape")]
    pub validation_items: Option<Shape>,
    /// A body field the component's settings do not define: `refused`
    /// (417, choice 13's `unknown_field`) or `ignored`. Ours: `refused`.
    #[serde(default, deserialize_with = "unknown")]
    pub unknown_fields: Option<UnknownFields>,
}

/// `body_limit: none`: the server refuses no body for its size.
pub const NO_BODY_LIMIT: u64 = u64::MAX;

/// Our spec's choices (`spec/README.md`), for what a profile leaves out.
pub mod ours {
    use super::{ProjectEnv, Shape, UnknownFields};

    pub const MISSING_CREDENTIAL: u16 = 400;
    pub const WRONG_CREDENTIAL: u16 = 401;
    pub const BAD_PROJECT_ENV: u16 = 400;
    pub const UNKNOWN_REF: u16 = 404;
    pub const UNKNOWN_MODEL: u16 = 404;
    pub const MALFORMED_BODY: u16 = 400;
    pub const BODY_TOO_LARGE: u16 = 413;
    pub const SUCCESS: u16 = 200;
    pub const BODY_LIMIT: u64 = 64 * 1024;
    pub const ABSENT_PROJECT_ENV: ProjectEnv = ProjectEnv::Dev;
    pub const SUCCESS_SHAPE: Shape = Shape::Spec;
    pub const VALIDATION_ITEMS: Shape = Shape::Spec;
    pub const UNKNOWN_FIELDS: UnknownFields = UnknownFields::Refused;
}

fn chosen<T: Clone>(declared: &Option<T>, ours: T) -> Chosen<T> {
    match declared {
        Some(v) => Chosen {
            value: v.clone(),
            declared: true,
        },
        None => Chosen {
            value: ours,
            declared: false,
        },
    }
}

impl Choices {
    pub fn model_uuid(&self) -> Chosen<ModelUuidAt> {
        chosen(&self.model_uuid, ModelUuidAt::default())
    }
    pub fn missing_credential(&self) -> Chosen<u16> {
        chosen(&self.missing_credential, ours::MISSING_CREDENTIAL)
    }
    pub fn wrong_credential(&self) -> Chosen<u16> {
        chosen(&self.wrong_credential, ours::WRONG_CREDENTIAL)
    }
    pub fn bad_project_env(&self) -> Chosen<u16> {
        chosen(&self.bad_project_env, ours::BAD_PROJECT_ENV)
    }
    pub fn unknown_ref(&self) -> Chosen<u16> {
        chosen(&self.unknown_ref, ours::UNKNOWN_REF)
    }
    pub fn unknown_model(&self) -> Chosen<u16> {
        chosen(&self.unknown_model, ours::UNKNOWN_MODEL)
    }
    pub fn malformed_body(&self) -> Chosen<u16> {
        chosen(&self.malformed_body, ours::MALFORMED_BODY)
    }
    pub fn body_too_large(&self) -> Chosen<u16> {
        chosen(&self.body_too_large, ours::BODY_TOO_LARGE)
    }
    pub fn auth_claims_success(&self) -> Chosen<u16> {
        chosen(&self.auth_claims_success, ours::SUCCESS)
    }
    pub fn authorize_success(&self) -> Chosen<u16> {
        chosen(&self.authorize_success, ours::SUCCESS)
    }
    pub fn token_checked_when_not_required(&self) -> Chosen<bool> {
        chosen(&self.token_checked_when_not_required, true)
    }
    pub fn get_body_validated(&self) -> Chosen<bool> {
        chosen(&self.get_body_validated, true)
    }
    pub fn claims_carry_model_uuid(&self) -> Chosen<bool> {
        chosen(&self.claims_carry_model_uuid, true)
    }
    pub fn issues_token(&self) -> Chosen<bool> {
        chosen(&self.issues_token, true)
    }
    pub fn authorize_claims(&self) -> Chosen<bool> {
        chosen(&self.authorize_claims, true)
    }
    pub fn success_shape(&self) -> Chosen<Shape> {
        chosen(&self.success_shape, ours::SUCCESS_SHAPE)
    }
    pub fn request_id_uuid(&self) -> Chosen<bool> {
        chosen(&self.request_id_uuid, true)
    }
    pub fn code_is_status(&self) -> Chosen<bool> {
        chosen(&self.code_is_status, true)
    }
    pub fn unknown_fields(&self) -> Chosen<UnknownFields> {
        chosen(&self.unknown_fields, ours::UNKNOWN_FIELDS)
    }
    pub fn validation_items(&self) -> Chosen<Shape> {
        chosen(&self.validation_items, ours::VALIDATION_ITEMS)
    }
    pub fn body_limit(&self) -> Chosen<u64> {
        chosen(&self.body_limit, ours::BODY_LIMIT)
    }
    pub fn absent_project_env(&self) -> Chosen<ProjectEnv> {
        chosen(&self.absent_project_env, ours::ABSENT_PROJECT_ENV)
    }

    /// Whether the profile declares the choice `key`.
    pub fn declares(&self, key: ChoiceKey) -> bool {
        match key {
            ChoiceKey::ModelUuid => self.model_uuid.is_some(),
            ChoiceKey::MissingCredential => self.missing_credential.is_some(),
            ChoiceKey::WrongCredential => self.wrong_credential.is_some(),
            ChoiceKey::BadProjectEnv => self.bad_project_env.is_some(),
            ChoiceKey::UnknownRef => self.unknown_ref.is_some(),
            ChoiceKey::UnknownModel => self.unknown_model.is_some(),
            ChoiceKey::MalformedBody => self.malformed_body.is_some(),
            ChoiceKey::BodyTooLarge => self.body_too_large.is_some(),
            ChoiceKey::AuthClaimsSuccess => self.auth_claims_success.is_some(),
            ChoiceKey::AuthorizeSuccess => self.authorize_success.is_some(),
            ChoiceKey::TokenCheckedWhenNotRequired => {
                self.token_checked_when_not_required.is_some()
            }
            ChoiceKey::GetBodyValidated => self.get_body_validated.is_some(),
            ChoiceKey::BodyLimit => self.body_limit.is_some(),
            ChoiceKey::AbsentProjectEnv => self.absent_project_env.is_some(),
            ChoiceKey::ClaimsCarryModelUuid => self.claims_carry_model_uuid.is_some(),
            ChoiceKey::IssuesToken => self.issues_token.is_some(),
            ChoiceKey::AuthorizeClaims => self.authorize_claims.is_some(),
            ChoiceKey::SuccessShape => self.success_shape.is_some(),
            ChoiceKey::RequestIdUuid => self.request_id_uuid.is_some(),
            ChoiceKey::CodeIsStatus => self.code_is_status.is_some(),
            ChoiceKey::ValidationItems => self.validation_items.is_some(),
            ChoiceKey::UnknownFields => self.unknown_fields.is_some(),
        }
    }

    /// Every key, in the order of `to_yaml`, as a profile writes it.
    pub const KEYS: &'static [&'static str] = &[
        "model_uuid",
        "missing_credential",
        "wrong_credential",
        "bad_project_env",
        "unknown_ref",
        "unknown_model",
        "malformed_body",
        "body_too_large",
        "auth_claims_success",
        "authorize_success",
        "token_checked_when_not_required",
        "get_body_validated",
        "body_limit",
        "absent_project_env",
        "claims_carry_model_uuid",
        "issues_token",
        "authorize_claims",
        "request_id_uuid",
        "code_is_status",
        "success_shape",
        "validation_items",
        "unknown_fields",
    ];

    /// What lets `conformance choices` observe `key` when it could not:
    /// the profile key to add, or what the server must answer.
    pub fn observed_with(key: &str) -> &'static str {
        match key {
            "get_body_validated" | "validation_items" => {
                "add `authorize.invalid_body` (a body that fails validation) to a component"
            }
            "model_uuid" | "authorize_success" | "unknown_model" | "malformed_body"
            | "issues_token" | "authorize_claims" | "success_shape" | "unknown_fields"
            | "body_limit" => {
                "add `authorize` (`model_uuid` and `valid_body`) to a component, or declare it"
            }
            "claims_carry_model_uuid" => {
                "add `authorize` to a component that has an `auth_token`, or declare it"
            }
            "token_checked_when_not_required" => {
                "add a component with `requires_auth: false`, or declare it"
            }
            _ => "the server gave no answer that settles it; declare it",
        }
    }

    /// The choices as a `choices:` block of a profile, every key written,
    /// in a fixed order (what `conformance choices` prints).
    pub fn to_yaml(&self) -> String {
        // What is not declared is written as a comment: pasted, it leaves
        // ours in force at SHOULD level instead of declaring it.
        let line = |key: &str, value: String, declared: bool, ours: &str| {
            if declared {
                format!("  {key}: {value}\n")
            } else {
                format!(
                    "  # {key}: {ours}   (not observed: {}; until then ours, at SHOULD level)\n",
                    Self::observed_with(key)
                )
            }
        };
        let status = |c: Chosen<u16>| (c.value.to_string(), c.declared);
        let mut out = String::from("choices:\n");
        let m = self.model_uuid();
        if !m.declared {
            out += "  # model_uuid: no place tried was served (query, header:X-Model-Uuid, body:modelUuid, ...);\n  # declare where Authorize reads it, e.g. `model_uuid: \"header:NAME\"`\n";
        }
        out += &line("model_uuid", m.value.to_string(), m.declared, "query");
        for (key, (value, declared), ours) in [
            (
                "missing_credential",
                status(self.missing_credential()),
                "400",
            ),
            ("wrong_credential", status(self.wrong_credential()), "401"),
            ("bad_project_env", status(self.bad_project_env()), "400"),
            ("unknown_ref", status(self.unknown_ref()), "404"),
            ("unknown_model", status(self.unknown_model()), "404"),
            ("malformed_body", status(self.malformed_body()), "400"),
            ("body_too_large", status(self.body_too_large()), "413"),
            (
                "auth_claims_success",
                status(self.auth_claims_success()),
                "200",
            ),
            ("authorize_success", status(self.authorize_success()), "200"),
        ] {
            out += &line(key, value, declared, ours);
        }
        let t = self.token_checked_when_not_required();
        out += &line(
            "token_checked_when_not_required",
            t.value.to_string(),
            t.declared,
            "true",
        );
        let g = self.get_body_validated();
        out += &line(
            "get_body_validated",
            g.value.to_string(),
            g.declared,
            "true",
        );
        let b = self.body_limit();
        let limit = match b.value {
            NO_BODY_LIMIT => "none".to_owned(),
            n => n.to_string(),
        };
        out += &line("body_limit", limit, b.declared, "65536");
        let e = self.absent_project_env();
        out += &line(
            "absent_project_env",
            e.value.to_string(),
            e.declared,
            ours::ABSENT_PROJECT_ENV.as_str(),
        );
        let m = self.claims_carry_model_uuid();
        out += &line(
            "claims_carry_model_uuid",
            m.value.to_string(),
            m.declared,
            "true",
        );
        for (key, c) in [
            ("issues_token", self.issues_token()),
            ("authorize_claims", self.authorize_claims()),
            ("request_id_uuid", self.request_id_uuid()),
            ("code_is_status", self.code_is_status()),
        ] {
            out += &line(key, c.value.to_string(), c.declared, "true");
        }
        let s = self.success_shape();
        out += &line(
            "success_shape",
            s.value.to_string(),
            s.declared,
            ours::SUCCESS_SHAPE.as_str(),
        );
        let v = self.validation_items();
        out += &line(
            "validation_items",
            v.value.to_string(),
            v.declared,
            ours::VALIDATION_ITEMS.as_str(),
        );
        let u = self.unknown_fields();
        out += &line(
            "unknown_fields",
            u.value.to_string(),
            u.declared,
            ours::UNKNOWN_FIELDS.as_str(),
        );
        out
    }
}

// Every value below is read as text with `${VAR}` expanded
// (`crate::expand::plain_text`), as every value of a profile may come
// from the environment.

fn model_uuid_at<'de, D: Deserializer<'de>>(d: D) -> Result<Option<ModelUuidAt>, D::Error> {
    let (raw, value) = crate::expand::plain(|| crate::expand::read_text(d))?;
    value.parse().map(Some).map_err(|why: String| {
        // The parser quotes what it read: from the environment, only the
        // `${VAR}` it came from is named.
        let why = if raw.contains("${") {
            format!(
                "{} is not a place: write `query`, `header:NAME` or `body:FIELD`",
                crate::expand::shown(&raw, &value)
            )
        } else {
            why
        };
        serde::de::Error::custom(why)
    })
}

fn status_in<'de, D: Deserializer<'de>>(
    d: D,
    range: std::ops::Range<u16>,
    what: &str,
) -> Result<Option<u16>, D::Error> {
    let text = crate::expand::plain_text(d)?;
    match text.trim().parse::<u16>() {
        Ok(s) if range.contains(&s) => Ok(Some(s)),
        Ok(s) => Err(serde::de::Error::custom(format!(
            "{s} is not {what} ({}..={})",
            range.start,
            range.end - 1
        ))),
        Err(_) => Err(serde::de::Error::custom(format!(
            "is not {what}: write a number ({}..={})",
            range.start,
            range.end - 1
        ))),
    }
}

fn refusal<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u16>, D::Error> {
    status_in(d, 400..500, "a refusal status")
}

fn success<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u16>, D::Error> {
    status_in(d, 200..300, "a success status")
}

fn limit<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
    let text = crate::expand::plain_text(d)?;
    match text.trim() {
        "none" => Ok(Some(NO_BODY_LIMIT)),
        t => t.parse().map(Some).map_err(|_| {
            serde::de::Error::custom("is not a body limit: write a number of bytes, or `none`")
        }),
    }
}

fn flag<'de, D: Deserializer<'de>>(d: D) -> Result<Option<bool>, D::Error> {
    let text = crate::expand::plain_text(d)?;
    match text.trim() {
        "true" => Ok(Some(true)),
        "false" => Ok(Some(false)),
        _ => Err(serde::de::Error::custom("is not `true` or `false`")),
    }
}

// The enums below are read through these rather than `Option<T>`'s own
// `Deserialize`, which would take `~` for absent: a key written with no
// value is refused like any value that is not one of the set.

fn unknown<'de, D: Deserializer<'de>>(d: D) -> Result<Option<UnknownFields>, D::Error> {
    UnknownFields::deserialize(d).map(Some)
}

fn shape<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Shape>, D::Error> {
    Shape::deserialize(d).map(Some)
}

fn env<'de, D: Deserializer<'de>>(d: D) -> Result<Option<ProjectEnv>, D::Error> {
    let (raw, value) = crate::expand::plain(|| crate::expand::read_text(d))?;
    // The interface's own enum, with this key's message rather than its.
    value.parse().map(Some).map_err(|_| {
        serde::de::Error::custom(format!(
            "{} is neither `dev` nor `live`",
            crate::expand::shown(&raw, &value)
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn places_of_model_uuid() {
        assert_eq!("query".parse(), Ok(ModelUuidAt::default()));
        assert_eq!(
            "header:X-Model-Uuid".parse(),
            Ok(ModelUuidAt::Header("X-Model-Uuid".into()))
        );
        assert_eq!("body:model".parse(), Ok(ModelUuidAt::Body("model".into())));
        assert!("header:bad name".parse::<ModelUuidAt>().is_err());
        assert!("cookie:x".parse::<ModelUuidAt>().is_err());
        assert!("body:".parse::<ModelUuidAt>().is_err());
        for s in ["query", "query:model", "header:X-Model", "body:m"] {
            assert_eq!(
                s.parse::<ModelUuidAt>().map(|m| m.to_string()),
                Ok(s.into())
            );
        }
    }

    #[test]
    fn declared_is_must_and_ours_is_should() {
        let c: Choices = serde_yaml::from_str("missing_credential: 401").expect("choices");
        assert_eq!(c.missing_credential().value, 401);
        assert_eq!(c.missing_credential().level(), Level::Must);
        assert_eq!(c.wrong_credential().value, 401);
        assert_eq!(c.wrong_credential().level(), Level::Should);
        assert!(serde_yaml::from_str::<Choices>("missing_credential: 200").is_err());
        assert!(serde_yaml::from_str::<Choices>("authorize_success: 404").is_err());
        assert!(serde_yaml::from_str::<Choices>("no_such_choice: 1").is_err());
    }

    #[test]
    fn yaml_round_trips() {
        let c: Choices = serde_yaml::from_str("model_uuid: header:X-Model\nunknown_model: 403")
            .expect("choices");
        let text = c.to_yaml();
        assert!(text.contains("  # wrong_credential: 401"), "{text}");
        let body = text.strip_prefix("choices:\n").expect("block");
        let lines: Vec<&str> = body.lines().map(str::trim_start).collect();
        let again: Choices = serde_yaml::from_str(&lines.join("\n")).expect("parses");
        assert_eq!(again.model_uuid(), c.model_uuid());
        assert_eq!(again.unknown_model().value, 403);
    }

    /// Each closed set reads back what it prints, and `to_yaml` writes the
    /// values as a profile does.
    #[test]
    fn closed_sets_print_as_written() {
        for s in [Shape::Spec, Shape::Other] {
            assert_eq!(s.to_string().parse(), Ok(s));
        }
        for u in [UnknownFields::Refused, UnknownFields::Ignored] {
            assert_eq!(u.to_string().parse(), Ok(u));
        }
        let c: Choices = serde_yaml::from_str(
            "unknown_fields: ignored\nsuccess_shape: other\nabsent_project_env: live",
        )
        .expect("choices");
        assert_eq!(c.unknown_fields().value, UnknownFields::Ignored);
        assert_eq!(c.validation_items().value, ours::VALIDATION_ITEMS);
        let text = c.to_yaml();
        for line in [
            "  unknown_fields: ignored\n",
            "  success_shape: other\n",
            "  absent_project_env: live\n",
            "  # validation_items: spec   (not observed: add `authorize.invalid_body`",
        ] {
            assert!(text.contains(line), "{line} not in:\n{text}");
        }
        assert!(serde_yaml::from_str::<Choices>("unknown_fields: Ignored").is_err());
        assert!(serde_yaml::from_str::<Choices>("success_shape: ~").is_err());
    }

    /// The typed keys, the keys a profile writes and the block `choices`
    /// prints are the same list, in the same order.
    #[test]
    fn every_key_is_typed_written_and_printed() {
        let typed: Vec<&str> = ChoiceKey::ALL.iter().map(|k| k.as_str()).collect();
        assert_eq!(typed, Choices::KEYS);
        let block = Choices::default().to_yaml();
        let mut at = 0;
        for key in Choices::KEYS {
            let found = block[at..].find(&format!(" {key}: ")).map(|i| i + at);
            assert!(found.is_some(), "{key} not printed in order:\n{block}");
            at = found.unwrap_or(at);
        }
    }
}
