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
//!
//! Each choice is one row of one table (`choices!`): its key, type, ours,
//! how a profile's value is read, its node of `spec/openapi.yaml`, what lets
//! `conformance choices` observe it. The key enum, the profile's fields,
//! the accessors, the printed block, the SARIF node and what a warned run
//! proposes follow from the rows; the suite observes each row with a
//! function of its own (`conformance_suite::observe`).

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

// The value is named by the caller, which knows where it came from.
client_runtime::impl_string_enum!(Shape { Spec = "spec", Other = "other" } else |_| {
    "is neither `spec` (the spec's result types) nor `other` (the server's own shape)"
});

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

// The value is named by the caller, which knows where it came from.
client_runtime::impl_string_enum!(UnknownFields { Refused = "refused", Ignored = "ignored" } else |_| {
    "is neither `refused` (417) nor `ignored`"
});

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

/// What a choice's type says of its values, so that a row of `choices!`
/// needs no code of its own to be printed or proposed.
pub trait ChoiceValue: Clone {
    /// The value is an HTTP status: one answer tells it.
    const STATUS: bool = false;

    /// The value as a profile writes it.
    fn written(&self) -> String;

    /// What a run whose check of this choice warned proposes instead of
    /// `self` (ours): the status it was `answered`, or the other value of a
    /// two-valued set; `None` where one answer cannot tell.
    fn otherwise(&self, answered: Option<u16>) -> Option<String>;
}

/// A status.
impl ChoiceValue for u16 {
    const STATUS: bool = true;

    fn written(&self) -> String {
        self.to_string()
    }
    fn otherwise(&self, answered: Option<u16>) -> Option<String> {
        answered.map(|s| s.to_string())
    }
}

impl ChoiceValue for bool {
    fn written(&self) -> String {
        self.to_string()
    }
    fn otherwise(&self, _: Option<u16>) -> Option<String> {
        Some((!self).to_string())
    }
}

/// The body limit in bytes ([`NO_BODY_LIMIT`] written `none`): no one
/// answer tells it.
impl ChoiceValue for u64 {
    fn written(&self) -> String {
        match *self {
            NO_BODY_LIMIT => "none".to_owned(),
            n => n.to_string(),
        }
    }
    fn otherwise(&self, _: Option<u16>) -> Option<String> {
        None
    }
}

/// No one answer tells where `modelUuid` travels.
impl ChoiceValue for ModelUuidAt {
    fn written(&self) -> String {
        self.to_string()
    }
    fn otherwise(&self, _: Option<u16>) -> Option<String> {
        None
    }
}

impl ChoiceValue for ProjectEnv {
    fn written(&self) -> String {
        self.to_string()
    }
    fn otherwise(&self, _: Option<u16>) -> Option<String> {
        Some(
            match self {
                ProjectEnv::Dev => ProjectEnv::Live,
                ProjectEnv::Live => ProjectEnv::Dev,
            }
            .to_string(),
        )
    }
}

impl ChoiceValue for Shape {
    fn written(&self) -> String {
        self.to_string()
    }
    fn otherwise(&self, _: Option<u16>) -> Option<String> {
        Some(
            match self {
                Shape::Spec => Shape::Other,
                Shape::Other => Shape::Spec,
            }
            .to_string(),
        )
    }
}

impl ChoiceValue for UnknownFields {
    fn written(&self) -> String {
        self.to_string()
    }
    fn otherwise(&self, _: Option<u16>) -> Option<String> {
        Some(
            match self {
                UnknownFields::Refused => UnknownFields::Ignored,
                UnknownFields::Ignored => UnknownFields::Refused,
            }
            .to_string(),
        )
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

/// `body_limit: none`: the server refuses no body for its size.
pub const NO_BODY_LIMIT: u64 = u64::MAX;

/// The nodes of `spec/openapi.yaml` that state a choice (where its SARIF
/// results stand).
mod node {
    const AUTH: &str = "/component/{ref}/auth";
    pub const MODEL_UUID: &[&str] = &["components", "parameters", "ModelUuid"];
    pub const X_PROJECT_ENV: &[&str] = &["components", "parameters", "XProjectEnv"];
    pub const X_AUTH_TOKEN: &[&str] = &["components", "parameters", "XAuthToken"];
    pub const AUTHORIZE_RESULT: &[&str] = &["components", "schemas", "AuthorizeResult"];
    pub const AUTH_CLAIMS_RESULT: &[&str] = &["components", "schemas", "AuthClaimsResult"];
    pub const ERROR_RESPONSE: &[&str] = &["components", "schemas", "ErrorResponse"];
    pub const VALIDATION_ERROR: &[&str] = &["components", "schemas", "ValidationError"];
    pub const GET_401: &[&str] = &["paths", AUTH, "get", "responses", "401"];
    pub const GET_404: &[&str] = &["paths", AUTH, "get", "responses", "404"];
    pub const GET_200: &[&str] = &["paths", AUTH, "get", "responses", "200"];
    pub const GET_BODY: &[&str] = &["paths", AUTH, "get", "requestBody"];
    pub const POST_400: &[&str] = &["paths", AUTH, "post", "responses", "400"];
    pub const POST_404: &[&str] = &["paths", AUTH, "post", "responses", "404"];
    pub const POST_413: &[&str] = &["paths", AUTH, "post", "responses", "413"];
    pub const POST_200: &[&str] = &["paths", AUTH, "post", "responses", "200"];
}

/// What lets `conformance choices` observe a choice it could not: the
/// profile key to add, or what the server must answer.
mod unobserved {
    pub const AUTHORIZE: &str =
        "add `authorize` (`model_uuid` and `valid_body`) to a component, or declare it";
    pub const INVALID_BODY: &str =
        "add `authorize.invalid_body` (a body that fails validation) to a component";
    pub const TOKEN_AND_AUTHORIZE: &str =
        "add `authorize` to a component that has an `auth_token`, or declare it";
    pub const NO_AUTH: &str = "add a component with `requires_auth: false`, or declare it";
    pub const ANSWER: &str = "the server gave no answer that settles it; declare it";
}

/// The table of choices: one row per key of `choices:`, and from the rows
/// the key enum (its text both ways), the profile's fields (read with the
/// row's `read`, an absent one ours), the accessors, `declares`, the
/// printed block and what a warned run proposes. A row:
///
/// `Variant = "key", field: Type = ours, read "fn", node PATH, unobserved HINT[, note TEXT];`
///
/// - `ours`: our spec's choice (`spec/README.md`), for a profile that
///   leaves the key out;
/// - `read`: the function that reads a profile's value (`${VAR}` expanded);
/// - `node`: the node of `spec/openapi.yaml` that states the choice, where
///   the SARIF result of its check stands;
/// - `unobserved`: what lets `conformance choices` observe it where it
///   could not; `note`: lines printed above it, commented, where it could
///   not.
///
/// How a choice is observed is the suite's (`conformance_suite::observe`,
/// one function per row), which sends requests: this stage sends none.
/// The rows stand in the order of the profile's fields, which a misspelt
/// key's error lists; the block prints in [`ChoiceKey::PRINTED`]'s.
macro_rules! choices {
    ($(
        $(#[$doc:meta])*
        $variant:ident = $key:literal, $field:ident: $ty:ty = $ours:expr,
            read $read:literal, node $node:expr, unobserved $unobserved:expr $(, note $note:expr)?;
    )*) => {
        /// A key of `choices:`: the checks that judge a choice name it by
        /// this enum, so a misspelt key does not compile (a profile's
        /// unknown key is refused with its line by serde).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum ChoiceKey {
            $($variant,)*
        }

        client_runtime::impl_string_enum!(ChoiceKey { $($variant = $key),* });

        impl ChoiceKey {
            /// Our spec's choice, as a profile writes it.
            pub fn ours(self) -> String {
                match self {
                    $(ChoiceKey::$variant => ChoiceValue::written(&{ let ours: $ty = $ours; ours }),)*
                }
            }

            /// The node of `spec/openapi.yaml` that states the choice.
            pub const fn node(self) -> &'static [&'static str] {
                match self {
                    $(ChoiceKey::$variant => $node,)*
                }
            }

            /// What lets `conformance choices` observe the choice where it
            /// could not.
            pub const fn unobserved(self) -> &'static str {
                match self {
                    $(ChoiceKey::$variant => $unobserved,)*
                }
            }

            /// Lines printed, commented, above the choice where it was not
            /// observed.
            fn note(self) -> Option<&'static str> {
                match self {
                    $(ChoiceKey::$variant => None $(.or(Some($note)))?,)*
                }
            }

            /// Whether the choice is an HTTP status (one answer tells it).
            pub const fn is_status(self) -> bool {
                match self {
                    $(ChoiceKey::$variant => <$ty as ChoiceValue>::STATUS,)*
                }
            }

            /// Whether the choice is the status of a success (its row reads
            /// a success's status), not of a refusal.
            pub fn is_success_status(self) -> bool {
                match self {
                    $(ChoiceKey::$variant => $read == "success",)*
                }
            }

            /// What a run whose check of this choice warned (the choice
            /// undeclared) proposes to declare, from the status it was
            /// `answered` ([`ChoiceValue::otherwise`]).
            pub fn otherwise(self, answered: Option<u16>) -> Option<String> {
                match self {
                    $(ChoiceKey::$variant => {
                        let ours: $ty = $ours;
                        ours.otherwise(answered)
                    })*
                }
            }
        }

        /// The choices a profile can declare. Every field is optional; an
        /// absent one is ours.
        #[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
        #[serde(deny_unknown_fields)]
        pub struct Choices {
            $(
                $(#[$doc])*
                #[serde(default, rename = $key, deserialize_with = $read)]
                pub $field: Option<$ty>,
            )*
        }

        impl Choices {
            $(
                $(#[$doc])*
                pub fn $field(&self) -> Chosen<$ty> {
                    chosen(&self.$field, $ours)
                }
            )*

            /// Whether the profile declares the choice `key`.
            pub fn declares(&self, key: ChoiceKey) -> bool {
                match key {
                    $(ChoiceKey::$variant => self.$field.is_some(),)*
                }
            }

            /// The choice `key` as a profile writes it, and whether it is
            /// declared.
            pub fn written(&self, key: ChoiceKey) -> Chosen<String> {
                match key {
                    $(ChoiceKey::$variant => {
                        let c = self.$field();
                        Chosen { value: c.value.written(), declared: c.declared }
                    })*
                }
            }
        }

        /// Each row's field is named as its key is written.
        #[cfg(test)]
        const FIELDS: &[&str] = &[$(stringify!($field)),*];
    };
}

choices! {
    /// Where Authorize's `modelUuid` travels.
    ModelUuid = "model_uuid", model_uuid: ModelUuidAt = ModelUuidAt::default(),
        read "model_uuid_at", node node::MODEL_UUID, unobserved unobserved::AUTHORIZE,
        note "  # model_uuid: no place tried was served (query, header:X-Model-Uuid, body:modelUuid, ...);\n  # declare where Authorize reads it, e.g. `model_uuid: \"header:NAME\"`\n";
    /// A missing or empty X-Client-Id or X-Client-Secret. Ours: 400.
    MissingCredential = "missing_credential", missing_credential: u16 = 400,
        read "refusal", node node::GET_401, unobserved unobserved::ANSWER;
    /// An unknown X-Client-Id or a wrong X-Client-Secret. Ours: 401.
    WrongCredential = "wrong_credential", wrong_credential: u16 = 401,
        read "refusal", node node::GET_401, unobserved unobserved::ANSWER;
    /// An X-Project-Env other than `dev` or `live`. Ours: 400.
    BadProjectEnv = "bad_project_env", bad_project_env: u16 = 400,
        read "refusal", node node::X_PROJECT_ENV, unobserved unobserved::ANSWER;
    /// A ref that names no component. Ours: 404.
    UnknownRef = "unknown_ref", unknown_ref: u16 = 404,
        read "refusal", node node::GET_404, unobserved unobserved::ANSWER;
    /// Authorize for a modelUuid no model of the component has. Ours: 404.
    UnknownModel = "unknown_model", unknown_model: u16 = 404,
        read "refusal", node node::POST_404, unobserved unobserved::AUTHORIZE;
    /// A body that is not JSON. Ours: 400.
    MalformedBody = "malformed_body", malformed_body: u16 = 400,
        read "refusal", node node::POST_400, unobserved unobserved::AUTHORIZE;
    /// A body over the server's limit. Ours: 413.
    BodyTooLarge = "body_too_large", body_too_large: u16 = 413,
        read "refusal", node node::POST_413, unobserved unobserved::ANSWER;
    /// Auth Claims served. Ours: 200.
    AuthClaimsSuccess = "auth_claims_success", auth_claims_success: u16 = 200,
        read "success", node node::GET_200, unobserved unobserved::ANSWER;
    /// Authorize served. Ours: 200.
    AuthorizeSuccess = "authorize_success", authorize_success: u16 = 200,
        read "success", node node::POST_200, unobserved unobserved::AUTHORIZE;
    /// Is an X-Auth-Token checked where the component does not require
    /// one (a wrong one refused)? Ours: yes.
    TokenCheckedWhenNotRequired = "token_checked_when_not_required",
        token_checked_when_not_required: bool = true,
        read "flag", node node::X_AUTH_TOKEN, unobserved unobserved::NO_AUTH;
    /// Is the body of Auth Claims (a GET) validated like Authorize's?
    /// Ours: yes.
    GetBodyValidated = "get_body_validated", get_body_validated: bool = true,
        read "flag", node node::GET_BODY, unobserved unobserved::INVALID_BODY;
    /// The largest body accepted, in bytes, or `none` (no limit: written
    /// [`NO_BODY_LIMIT`]). Ours: 65536.
    BodyLimit = "body_limit", body_limit: u64 = 64 * 1024,
        read "limit", node node::POST_413, unobserved unobserved::AUTHORIZE;
    /// What an absent X-Project-Env means: `dev` or `live`. Ours: `dev`.
    AbsentProjectEnv = "absent_project_env", absent_project_env: ProjectEnv = ProjectEnv::Dev,
        read "env", node node::X_PROJECT_ENV, unobserved unobserved::ANSWER;
    /// Does Auth Claims, served with a token bound to a model, carry that
    /// model's uuid? The model's fields are not shown. Ours: yes.
    ClaimsCarryModelUuid = "claims_carry_model_uuid", claims_carry_model_uuid: bool = true,
        read "flag", node node::AUTH_CLAIMS_RESULT, unobserved unobserved::TOKEN_AND_AUTHORIZE;
    /// Does a successful Authorize issue a token (anywhere in its body)?
    /// Ours: yes (choice 5).
    IssuesToken = "issues_token", issues_token: bool = true,
        read "flag", node node::AUTHORIZE_RESULT, unobserved unobserved::AUTHORIZE;
    /// After a successful Authorize, does Auth Claims (with the token it
    /// issued, where it issued one) return that model? A server that
    /// records claims does; so does ours, through the token. Ours: yes.
    AuthorizeClaims = "authorize_claims", authorize_claims: bool = true,
        read "flag", node node::AUTH_CLAIMS_RESULT, unobserved unobserved::AUTHORIZE;
    /// The shape of success bodies: `spec` (our AuthClaimsResult and
    /// AuthorizeResult, with X-Project-Uuid) or `other` (the server's own;
    /// the description does not show one). Ours: `spec`.
    SuccessShape = "success_shape", success_shape: Shape = Shape::Spec,
        read "closed", node node::POST_200, unobserved unobserved::AUTHORIZE;
    /// Is every `request_id` a uuid? Ours: yes (choice 12).
    RequestIdUuid = "request_id_uuid", request_id_uuid: bool = true,
        read "flag", node node::ERROR_RESPONSE, unobserved unobserved::ANSWER;
    /// Does an error body's `code` equal the HTTP status (not a service
    /// code of the server's own)? Ours: yes (choice 11).
    CodeIsStatus = "code_is_status", code_is_status: bool = true,
        read "flag", node node::ERROR_RESPONSE, unobserved unobserved::ANSWER;
    /// The items of a 417's `errors`: `spec` ({field, rule, message},
    /// choice 13) or `other` (the server's own). Ours: `spec`.
    ValidationItems = "validation_items", validation_items: Shape = Shape::Spec,
        read "closed", node node::VALIDATION_ERROR, unobserved unobserved::INVALID_BODY;
    /// A body field the component's settings do not define: `refused`
    /// (417, choice 13's `unknown_field`) or `ignored`. Ours: `refused`.
    UnknownFields = "unknown_fields", unknown_fields: UnknownFields = UnknownFields::Refused,
        read "closed", node node::VALIDATION_ERROR, unobserved unobserved::AUTHORIZE;
}

impl ChoiceKey {
    /// Every key, in the order `conformance choices` prints them (and
    /// always has: `success_shape` after `code_is_status`).
    pub const PRINTED: [ChoiceKey; ChoiceKey::ALL.len()] = [
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
}

impl Choices {
    /// The choices as a `choices:` block of a profile, every key written,
    /// in a fixed order (what `conformance choices` prints).
    pub fn to_yaml(&self) -> String {
        let mut out = String::from("choices:\n");
        for key in ChoiceKey::PRINTED {
            let c = self.written(key);
            if c.declared {
                out += &format!("  {key}: {}\n", c.value);
                continue;
            }
            // What is not declared is written as a comment: pasted, it
            // leaves ours in force at SHOULD level instead of declaring it.
            out += key.note().unwrap_or_default();
            out += &format!(
                "  # {key}: {}   (not observed: {}; until then ours, at SHOULD level)\n",
                key.ours(),
                key.unobserved()
            );
        }
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

/// A closed set ([`Shape`], [`UnknownFields`]), read through its own
/// `Deserialize` rather than `Option<T>`'s, which would take `~` for
/// absent: a key written with no value is refused like any value that is
/// not one of the set.
fn closed<'de, D: Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<Option<T>, D::Error> {
    T::deserialize(d).map(Some)
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
        assert_eq!(c.validation_items().value, Shape::Spec);
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

    /// The table holds: each key is its field's name, the block prints
    /// every key once, in `PRINTED`'s order, and each row's `ours`, written
    /// as the block writes it, reads back through the row's `read` as the
    /// same value, declared.
    #[test]
    fn every_row_is_read_printed_and_written_back() {
        let keys: Vec<&str> = ChoiceKey::ALL.iter().map(|k| k.as_str()).collect();
        assert_eq!(keys, FIELDS);
        let mut printed = ChoiceKey::PRINTED.to_vec();
        printed.sort();
        assert_eq!(printed, ChoiceKey::ALL, "PRINTED holds each key once");
        let block = Choices::default().to_yaml();
        let mut at = 0;
        for key in ChoiceKey::PRINTED {
            let found = block[at..].find(&format!(" {key}: ")).map(|i| i + at);
            assert!(found.is_some(), "{key} not printed in order:\n{block}");
            at = found.unwrap_or(at);
        }
        let ours: String = ChoiceKey::ALL
            .iter()
            .map(|k| format!("{k}: {}\n", k.ours()))
            .collect();
        let declared: Choices = serde_yaml::from_str(&ours).expect("ours reads back");
        let undeclared = Choices::default();
        for &key in ChoiceKey::ALL {
            assert!(declared.declares(key) && !undeclared.declares(key), "{key}");
            assert_eq!(declared.written(key).value, undeclared.written(key).value);
            assert_eq!(declared.written(key).value, key.ours(), "{key}");
        }
        // Declared as ours, the block is ours without a comment.
        assert!(!declared.to_yaml().contains('#'), "{}", declared.to_yaml());
    }

    /// The shipped `profiles/reference.yaml` declares every choice, as ours
    /// (the reference server makes ours).
    #[test]
    fn the_shipped_profile_declares_ours() {
        let profile = crate::profile::Profile::from_yaml_str(
            include_str!("../../profiles/reference.yaml"),
            "reference.yaml",
            &|_| None,
        )
        .expect("the shipped profile");
        for &key in ChoiceKey::ALL {
            let c = profile.choices.written(key);
            assert!(c.declared, "profiles/reference.yaml does not declare {key}");
            assert_eq!(c.value, key.ours(), "{key}");
        }
    }

    /// Each row's node of `spec/openapi.yaml` is there: the SARIF result of
    /// the choice's check stands at it.
    #[test]
    fn every_choice_has_its_own_node() {
        let lines = yaml_location::Lines::of(include_str!("../../../spec/openapi.yaml"));
        for &key in ChoiceKey::ALL {
            let path = key.node();
            let line = lines.line(path);
            assert!(
                line.is_some(),
                "{key}: {path:?} is not in spec/openapi.yaml"
            );
            let at = line.and_then(|l| lines.path_at(l)).unwrap_or_default();
            let wanted = yaml_location::render_path(path);
            assert!(at.starts_with(&wanted), "{key}: {wanted} is at {at}");
        }
    }

    /// What a warned run proposes: the answer's status, the other value of
    /// a two-valued set, nothing where one answer cannot tell.
    #[test]
    fn a_warned_run_proposes_the_other_value() {
        let proposed = |k: ChoiceKey| k.otherwise(Some(403));
        assert_eq!(proposed(ChoiceKey::WrongCredential).as_deref(), Some("403"));
        assert_eq!(ChoiceKey::WrongCredential.otherwise(None), None);
        assert_eq!(proposed(ChoiceKey::IssuesToken).as_deref(), Some("false"));
        assert_eq!(
            proposed(ChoiceKey::AbsentProjectEnv).as_deref(),
            Some("live")
        );
        assert_eq!(proposed(ChoiceKey::SuccessShape).as_deref(), Some("other"));
        assert_eq!(
            proposed(ChoiceKey::UnknownFields).as_deref(),
            Some("ignored")
        );
        assert_eq!(proposed(ChoiceKey::BodyLimit), None);
        assert_eq!(proposed(ChoiceKey::ModelUuid), None);
    }
}
