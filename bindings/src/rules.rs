//! This interface's rules on the generated server (feature `server`).
//!
//! [`server`](crate::server) is generated from `spec/openapi.yaml` and knows
//! only what the document says: the path, the typed inputs, the answers.
//! What the document leaves to a component's settings is here, written once:
//! given a [`Service`] (the few things only an implementation knows: its
//! project, its clients, its components and their auth settings, its
//! tokens, and the two operations), [`router`] serves the interface with
//! every rule the spec lists checked in the reference server's order
//! (spec/README.md):
//!
//! 1. a body over [`BODY_LIMIT`] bytes: 413;
//! 2. `X-Client-Id`, `X-Client-Secret` absent or empty: 400;
//! 3. `X-Project-Env` other than `dev` or `live`: 400 (absent: `dev`);
//! 4. an unknown client, a wrong secret: 401;
//! 5. a `ref` that names no component (uuid, name or tag): 404;
//! 6. `X-Auth-Token` absent where the component requires one, or not one of
//!    the component's own: 401;
//! 7. a body that is not a JSON object, or gives a key twice: 400;
//! 8. validation, every failure collected (`modelUuid` absent or not a
//!    uuid, each field against the component's settings): 417;
//! 9. the operation itself ([`Service::auth_claims`], [`Service::authorize`]).
//!
//! Every answer it writes, a refusal or a success, carries
//! `Content-Type: application/json` and `X-Project-Uuid`: an implementation
//! cannot forget either, nor answer an envelope in another shape.

use std::future::Future;

use client_runtime::server::axum::http::{HeaderValue, StatusCode, header};
use client_runtime::server::axum::response::{IntoResponse, Response};
use client_runtime::server::{Failure, Location, Options, Rejection};
use client_runtime::{Secret, server::axum};
use serde::Deserialize;
use serde_json::{Map, Value};

use crate::generated::types::{
    self, AuthClaimsResult, AuthorizeResult, ErrorResponse, ProjectEnv, ValidationError,
    ValidationErrorResponse,
};
use crate::server::{self as generated, AuthClaimsAnswer, AuthorizeAnswer};

/// The largest body read (spec/README.md: 64 KiB); a larger one is 413.
pub const BODY_LIMIT: usize = 64 * 1024;

/// A field's JSON type in a component's auth settings.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FieldType {
    String,
    Integer,
    Boolean,
}

/// One field of a component's auth settings and its constraints; read
/// from JSON or YAML as a profile's `fields` write it (`type`, `required`,
/// `min_length`, `max_length`, `minimum`, `maximum`, `enum`, `pattern`),
/// with its `name`.
#[derive(Clone, Debug, Deserialize)]
pub struct Field {
    pub name: String,
    #[serde(rename = "type")]
    pub kind: FieldType,
    #[serde(default)]
    pub required: bool,
    #[serde(default)]
    pub min_length: Option<usize>,
    #[serde(default)]
    pub max_length: Option<usize>,
    #[serde(default)]
    pub minimum: Option<i64>,
    #[serde(default)]
    pub maximum: Option<i64>,
    /// The values allowed, if the settings list them.
    #[serde(default, rename = "enum")]
    pub allowed: Option<Vec<Value>>,
    /// A regular expression its text must match ([`Field::with_pattern`]).
    #[serde(default)]
    pub pattern: Option<Pattern>,
}

/// A field's `pattern`, compiled: matched as a search, unanchored (as JSON
/// Schema's), with Unicode classes.
#[derive(Clone, Debug)]
pub struct Pattern(regex::Regex);

impl Pattern {
    /// `text` compiled; an error naming why when it is no regular expression.
    pub fn new(text: &str) -> Result<Self, String> {
        regex::Regex::new(text).map(Self).map_err(|e| e.to_string())
    }
}

impl<'de> serde::Deserialize<'de> for Pattern {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        Pattern::new(&text).map_err(serde::de::Error::custom)
    }
}

impl Field {
    /// An optional field of `kind` without constraints.
    pub fn new(name: &str, kind: FieldType) -> Self {
        Self {
            name: name.to_owned(),
            kind,
            required: false,
            min_length: None,
            max_length: None,
            minimum: None,
            maximum: None,
            allowed: None,
            pattern: None,
        }
    }

    /// This field with a `pattern` its text must match (an unanchored
    /// search, as JSON Schema's); an error when it is no regular expression.
    pub fn with_pattern(mut self, pattern: &str) -> Result<Self, String> {
        self.pattern = Some(Pattern::new(pattern)?);
        Ok(self)
    }

    /// The ways `value` breaks this field's constraints.
    fn check(&self, value: &Value, out: &mut Vec<ValidationError>) {
        let name = &self.name;
        let fail = |rule: &str, message: String| {
            ValidationError::new(name.clone(), rule.to_owned(), message)
        };
        let type_ok = match self.kind {
            FieldType::String => value.is_string(),
            FieldType::Integer => value.is_i64() || value.is_u64(),
            FieldType::Boolean => value.is_boolean(),
        };
        if !type_ok {
            out.push(fail("type", format!("`{name}` has the wrong type")));
            return;
        }
        if let Some(n) = value.as_i64() {
            if self.minimum.is_some_and(|min| n < min) {
                out.push(fail("minimum", format!("`{name}` is below its minimum")));
            }
            if self.maximum.is_some_and(|max| n > max) {
                out.push(fail("maximum", format!("`{name}` is above its maximum")));
            }
        }
        if self.allowed.as_ref().is_some_and(|a| !a.contains(value)) {
            out.push(fail("enum", format!("`{name}` is not an allowed value")));
        }
        if let Some(text) = value.as_str() {
            if self.pattern.as_ref().is_some_and(|p| !p.0.is_match(text)) {
                out.push(fail(
                    "pattern",
                    format!("`{name}` does not match its pattern"),
                ));
            }
            let chars = text.chars().count();
            if self.min_length.is_some_and(|min| chars < min) {
                out.push(fail("min_length", format!("`{name}` is too short")));
            }
            if self.max_length.is_some_and(|max| chars > max) {
                out.push(fail("max_length", format!("`{name}` is too long")));
            }
        }
    }
}

/// A component as the rules need it: what it shows of itself, and its auth
/// settings' fields.
#[derive(Clone, Debug, Deserialize)]
pub struct Component {
    pub view: types::Component,
    pub fields: Vec<Field>,
}

/// A request that passed every rule, for an operation.
#[derive(Debug)]
pub struct Call {
    pub component: Component,
    pub env: ProjectEnv,
    /// The uuid of the model the `X-Auth-Token` sent is bound to.
    pub token_model: Option<String>,
    /// The body's fields (`None`: no body).
    pub fields: Option<Map<String, Value>>,
}

/// An operation's refusal, answered in the 400 shape.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// 401: auth fields that no model claims.
    Unauthorized(String),
    /// 404: no model of the component has this uuid.
    NotFound(String),
}

/// What only an implementation knows. The rules above are applied before
/// either operation is called.
pub trait Service: Send + Sync + 'static {
    /// The project's uuid, sent as `X-Project-Uuid` on every answer.
    fn project_uuid(&self) -> &str;
    /// Whether `id` is a known client whose secret is `secret` (compare it
    /// in constant time).
    fn client(&self, id: &str, secret: &Secret) -> bool;
    /// The component `reference` names: its uuid, else its name, else its
    /// tag, exactly.
    fn component(&self, reference: &str) -> Option<Component>;
    /// The uuid of the model `token` is bound to, if it is a token of
    /// `component`.
    fn token(&self, component: &Component, token: &Secret) -> Option<String>;
    /// Auth Claims, for a request that passed every rule.
    fn auth_claims(
        &self,
        call: Call,
    ) -> impl Future<Output = Result<AuthClaimsResult, Refusal>> + Send;
    /// Authorize, for a request that passed every rule, `model_uuid` a uuid.
    fn authorize(
        &self,
        call: Call,
        model_uuid: String,
    ) -> impl Future<Output = Result<AuthorizeResult, Refusal>> + Send;
}

/// The interface served by `service` under `/v2/api`, bodies up to
/// [`BODY_LIMIT`].
pub fn router<S: Service>(service: S) -> axum::Router {
    generated::router_with(
        Rules(service),
        Options::default()
            .with_base_path("/v2/api")
            .with_body_limit(BODY_LIMIT),
    )
}

/// The generated trait, implemented by the rules around a [`Service`].
struct Rules<S>(S);

/// A refusal by the rules: a status and a message in the 400 shape, or
/// the 417 shape with every failure.
enum Envelope {
    Error(StatusCode, String),
    Invalid(Vec<ValidationError>),
}

/// A request's inputs as the rules read them, from the typed inputs or
/// from a rejection.
struct Inputs {
    post: bool,
    client_id: Option<String>,
    secret: Option<Secret>,
    token: Option<Secret>,
    /// `Err`: a value other than `dev` or `live`.
    env: Result<Option<ProjectEnv>, ()>,
    reference: String,
    /// `Err`: why the body is refused.
    body: Result<Option<Map<String, Value>>, String>,
    model_uuid: Option<String>,
}

fn is_uuid(text: &str) -> bool {
    let b = text.as_bytes();
    b.len() == 36
        && b.iter().enumerate().all(|(i, c)| match i {
            8 | 13 | 18 | 23 => *c == b'-',
            _ => c.is_ascii_hexdigit(),
        })
}

impl<S: Service> Rules<S> {
    /// Rules 2 to 8, in order.
    fn check(&self, inputs: Inputs) -> Result<(Call, Option<String>), Envelope> {
        let bad = |message: &str| Envelope::Error(StatusCode::BAD_REQUEST, message.to_owned());
        let client_id = inputs.client_id.filter(|v| !v.is_empty());
        let secret = inputs.secret.filter(|v| !v.expose().is_empty());
        let (Some(client_id), Some(secret)) = (client_id, secret) else {
            return Err(bad("X-Client-Id and X-Client-Secret are required"));
        };
        let env = inputs
            .env
            .map_err(|()| bad("X-Project-Env must be `dev` or `live`"))?
            .unwrap_or(ProjectEnv::Dev);
        if !self.0.client(&client_id, &secret) {
            return Err(Envelope::Error(
                StatusCode::UNAUTHORIZED,
                "unknown client or wrong secret".into(),
            ));
        }
        let component = self.0.component(&inputs.reference).ok_or_else(|| {
            Envelope::Error(StatusCode::NOT_FOUND, "no component has this ref".into())
        })?;
        let unauthorized = |m: &str| Envelope::Error(StatusCode::UNAUTHORIZED, m.to_owned());
        let token_model = match inputs.token.filter(|t| !t.expose().is_empty()) {
            None if component.view.requires_auth => {
                return Err(unauthorized("this component requires an X-Auth-Token"));
            }
            None => None,
            Some(token) => Some(
                self.0
                    .token(&component, &token)
                    .ok_or_else(|| unauthorized("the X-Auth-Token is not valid here"))?,
            ),
        };
        let fields = inputs.body.map_err(|message| bad(&message))?;
        let mut errors = Vec::new();
        if inputs.post {
            match inputs.model_uuid.as_deref() {
                None | Some("") => errors.push(ValidationError::new(
                    "modelUuid".into(),
                    "required".into(),
                    "the query parameter `modelUuid` is required".into(),
                )),
                Some(v) if !is_uuid(v) => errors.push(ValidationError::new(
                    "modelUuid".into(),
                    "format".into(),
                    "`modelUuid` must be a uuid".into(),
                )),
                Some(_) => {}
            }
        }
        if inputs.post || fields.is_some() {
            let empty = Map::new();
            let body = fields.as_ref().unwrap_or(&empty);
            for field in &component.fields {
                match body.get(&field.name) {
                    Some(value) => field.check(value, &mut errors),
                    None if field.required => errors.push(ValidationError::new(
                        field.name.clone(),
                        "required".into(),
                        format!("`{}` is required", field.name),
                    )),
                    None => {}
                }
            }
            for name in body.keys() {
                if !component.fields.iter().any(|f| &f.name == name) {
                    errors.push(ValidationError::new(
                        name.clone(),
                        "unknown_field".into(),
                        "the component's auth settings do not define this field".into(),
                    ));
                }
            }
        }
        if !errors.is_empty() {
            return Err(Envelope::Invalid(errors));
        }
        let call = Call {
            component,
            env,
            token_model,
            fields,
        };
        Ok((call, inputs.model_uuid))
    }

    /// Rules 2 to 8, then the operation: its answer, or the envelope.
    async fn claims(&self, inputs: Inputs) -> Result<AuthClaimsResult, Envelope> {
        let (call, _) = self.check(inputs)?;
        self.0.auth_claims(call).await.map_err(Envelope::from)
    }

    /// Rules 2 to 8, then the operation: its answer, or the envelope.
    async fn authorize_checked(&self, inputs: Inputs) -> Result<AuthorizeResult, Envelope> {
        let (call, model_uuid) = self.check(inputs)?;
        let model_uuid = model_uuid.unwrap_or_default();
        self.0
            .authorize(call, model_uuid)
            .await
            .map_err(Envelope::from)
    }
}

impl From<Refusal> for Envelope {
    fn from(refusal: Refusal) -> Self {
        match refusal {
            Refusal::Unauthorized(m) => Envelope::Error(StatusCode::UNAUTHORIZED, m),
            Refusal::NotFound(m) => Envelope::Error(StatusCode::NOT_FOUND, m),
        }
    }
}

/// An operation's result as its generated answer: the success, or the
/// envelope in the variant of its status. Each variant of the generated
/// enums requires the `X-Project-Uuid` header (the document says every
/// answer has it): an answer without it does not compile.
macro_rules! typed_answer {
    ($answer:ident, $headers:ident, $result:expr, $project:expr) => {{
        let headers = || generated::$headers {
            x_project_uuid: $project.to_owned(),
        };
        let error = |status: StatusCode, message: String| {
            ErrorResponse::new(
                i64::from(status.as_u16()),
                message,
                uuid::Uuid::new_v4().to_string(),
                false,
            )
        };
        match $result {
            Ok(body) => $answer::Ok {
                body,
                headers: headers(),
            },
            Err(Envelope::Invalid(errors)) => $answer::ExpectationFailed {
                body: ValidationErrorResponse::new(417, errors, false),
                headers: headers(),
            },
            Err(Envelope::Error(status, message)) => {
                let body = error(status, message);
                match status {
                    StatusCode::UNAUTHORIZED => $answer::Unauthorized {
                        body,
                        headers: headers(),
                    },
                    StatusCode::NOT_FOUND => $answer::NotFound {
                        body,
                        headers: headers(),
                    },
                    StatusCode::PAYLOAD_TOO_LARGE => $answer::PayloadTooLarge {
                        body,
                        headers: headers(),
                    },
                    _ => $answer::BadRequest {
                        body,
                        headers: headers(),
                    },
                }
            }
        }
    }};
}

impl<S: Service> generated::Api for Rules<S> {
    async fn auth_claims(
        &self,
        path: generated::AuthClaimsPath,
        headers: generated::AuthClaimsHeaders,
        body: Option<types::AuthFields>,
        _request: axum::http::request::Parts,
    ) -> AuthClaimsAnswer {
        let inputs = Inputs {
            post: false,
            client_id: Some(headers.x_client_id),
            secret: Some(headers.x_client_secret),
            token: headers.x_auth_token,
            env: Ok(headers.x_project_env),
            reference: path.ref_,
            body: Ok(body),
            model_uuid: None,
        };
        let result = self.claims(inputs).await;
        typed_answer!(
            AuthClaimsAnswer,
            AuthClaimsAnswerHeaders,
            result,
            self.0.project_uuid()
        )
    }

    async fn authorize(
        &self,
        path: generated::AuthorizePath,
        query: generated::AuthorizeQuery,
        headers: generated::AuthorizeHeaders,
        body: Option<types::AuthFields>,
        _request: axum::http::request::Parts,
    ) -> AuthorizeAnswer {
        let inputs = Inputs {
            post: true,
            client_id: Some(headers.x_client_id),
            secret: Some(headers.x_client_secret),
            token: headers.x_auth_token,
            env: Ok(headers.x_project_env),
            reference: path.ref_,
            body: Ok(body),
            model_uuid: Some(query.model_uuid),
        };
        let result = self.authorize_checked(inputs).await;
        typed_answer!(
            AuthorizeAnswer,
            AuthorizeAnswerHeaders,
            result,
            self.0.project_uuid()
        )
    }

    async fn rejected(&self, rejection: Rejection) -> Response {
        let failed = |location: Location, kind: Failure| {
            rejection
                .failures
                .iter()
                .find(|f| f.location == location && f.failure == kind)
        };
        let project = self.0.project_uuid();
        let Some(operation) = rejection.operation else {
            // A path or method of no operation: the 404 (or 405) envelope.
            let allowed = rejection.status() == StatusCode::METHOD_NOT_ALLOWED;
            let envelope = match allowed {
                true => Envelope::Error(
                    StatusCode::METHOD_NOT_ALLOWED,
                    "this path takes GET and POST only".into(),
                ),
                false => Envelope::Error(
                    StatusCode::NOT_FOUND,
                    "no such path; the interface is /v2/api/component/{ref}/auth".into(),
                ),
            };
            let answer: Result<AuthClaimsResult, Envelope> = Err(envelope);
            let mut response =
                typed_answer!(AuthClaimsAnswer, AuthClaimsAnswerHeaders, answer, project)
                    .into_response();
            if allowed {
                // Not a status the document lists: the 400 shape, as
                // spec/README.md says of every other error.
                *response.status_mut() = StatusCode::METHOD_NOT_ALLOWED;
                response
                    .headers_mut()
                    .insert(header::ALLOW, HeaderValue::from_static("GET, POST"));
            }
            return response;
        };
        let post = operation == "authorize";
        if failed(Location::Body, Failure::TooLarge).is_some() {
            let too_large = Envelope::Error(
                StatusCode::PAYLOAD_TOO_LARGE,
                format!("the request body is larger than {BODY_LIMIT} bytes"),
            );
            return match post {
                true => {
                    let answer: Result<AuthorizeResult, Envelope> = Err(too_large);
                    typed_answer!(AuthorizeAnswer, AuthorizeAnswerHeaders, answer, project)
                        .into_response()
                }
                false => {
                    let answer: Result<AuthClaimsResult, Envelope> = Err(too_large);
                    typed_answer!(AuthClaimsAnswer, AuthClaimsAnswerHeaders, answer, project)
                        .into_response()
                }
            };
        }
        let env = match rejection.header("x-project-env") {
            None => Ok(None),
            Some(text) => text.parse().map(Some).map_err(|_| ()),
        };
        let body = match failed(Location::Body, Failure::Malformed) {
            Some(_) => Err("the request body must be a JSON object, each key once".to_owned()),
            None if rejection.body.is_empty() => Ok(None),
            None => Ok(serde_json::from_slice(&rejection.body).ok()),
        };
        let inputs = Inputs {
            post,
            client_id: rejection.header("x-client-id").map(str::to_owned),
            secret: rejection.header("x-client-secret").map(Secret::new),
            token: rejection.header("x-auth-token").map(Secret::new),
            env,
            reference: rejection.path_param("ref").unwrap_or_default().to_owned(),
            body,
            model_uuid: rejection.query("modelUuid"),
        };
        match post {
            true => {
                let answer = self.authorize_checked(inputs).await;
                typed_answer!(AuthorizeAnswer, AuthorizeAnswerHeaders, answer, project)
                    .into_response()
            }
            false => {
                let answer = self.claims(inputs).await;
                typed_answer!(AuthClaimsAnswer, AuthClaimsAnswerHeaders, answer, project)
                    .into_response()
            }
        }
    }
}
