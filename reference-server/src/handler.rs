//! One request, from the request line to the outcome, checked in a fixed
//! order (the first failure answers):
//!
//! 1. path and method (404, 405);
//! 2. body size (413), read with a bound, never whole;
//! 3. `X-Client-Id`, `X-Client-Secret` present and not empty (400);
//! 4. `X-Project-Env` absent, `dev` or `live` (400);
//! 5. client id known, secret right, compared in constant time (401);
//! 6. `ref` resolves, after percent-decoding, by uuid, then name, then tag (404);
//! 7. `X-Auth-Token` as the component requires (401);
//! 8. body absent, or a UTF-8 JSON object (400);
//! 9. validation, every failure collected (417);
//! 10. the operation itself (404 unknown model, 401 fields that no model claims).

use std::borrow::Cow;
use std::time::Duration;

use bytes::Bytes;
use component_auth_bindings::types::{
    self, AuthClaimsResult, AuthorizeResult, ProjectEnv, ValidationError,
};
use http_body_util::{BodyExt, Full, LengthLimitError, Limited};
use hyper::body::Incoming;
use hyper::header::CONTENT_LENGTH;
use hyper::{HeaderMap, Request, Response};
use percent_encoding::percent_decode_str;
use serde_json::{Map, Value};
use subtle::ConstantTimeEq;

use crate::envelope::{self, Failure, Success};
use crate::fault::Fault;
use crate::fixture::{Component, Fixture, Model, Settings};
use crate::routes::{self, Operation};
use crate::tokens::{Binding, TokenStore};
use crate::validate::{self, rule};

/// A request body over this many bytes is refused with 413 (spec/README.md
/// choice 16).
pub const BODY_LIMIT: usize = 64 * 1024;

/// A body still incomplete after this long is refused, so a slow client
/// cannot hold a connection open forever.
const BODY_TIMEOUT: Duration = Duration::from_secs(10);

/// What the server holds while it runs.
pub(crate) struct App {
    pub fixture: Fixture,
    pub fault: Option<Fault>,
    pub tokens: TokenStore,
}

impl App {
    pub(crate) fn new(fixture: Fixture, fault: Option<Fault>) -> Self {
        let tokens = TokenStore::from_fixture(&fixture);
        App {
            fixture,
            fault,
            tokens,
        }
    }

    fn has(&self, fault: Fault) -> bool {
        self.fault == Some(fault)
    }
}

/// What the connection knew before hyper parsed the request.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ConnInfo {
    /// The raw request head spells `X-Client-Id` exactly so; consulted only
    /// under [`Fault::HeaderNamesCaseSensitive`].
    pub client_id_spelled_exactly: bool,
    /// The connection closes after this answer.
    pub close: bool,
}

/// Answers one request; never fails, every problem is an envelope.
pub(crate) async fn handle(
    app: &App,
    req: Request<Incoming>,
    conn: ConnInfo,
) -> Response<Full<Bytes>> {
    let request_id = if app.has(Fault::RequestIdRepeated) {
        uuid::Uuid::nil().to_string()
    } else {
        uuid::Uuid::new_v4().to_string()
    };
    let method = req.method().clone();
    let path = req.uri().path().to_owned();
    // An answer given before the body was read (an unknown path, a body over
    // the limit) closes the connection, and says so: the unread rest of the
    // body would otherwise be taken for the next request.
    let mut body_read = false;
    let outcome = process(app, req, conn, &mut body_read).await;
    let response = envelope::render(
        outcome,
        &envelope::Context {
            project_uuid: &app.fixture.project_uuid,
            fault: app.fault,
            request_id: &request_id,
            close: conn.close || !body_read,
        },
    );
    // Method, path and status only: headers and bodies may carry secrets.
    tracing::info!(
        status = response.status().as_u16(),
        request_id = %request_id,
        "{method} {path}"
    );
    response
}

async fn process(
    app: &App,
    req: Request<Incoming>,
    conn: ConnInfo,
    body_read: &mut bool,
) -> Result<Success, Failure> {
    let (operation, raw_ref) = routes::route(req.method(), req.uri().path(), app.fault)?;
    let raw_ref = raw_ref.to_owned();
    let (parts, body) = req.into_parts();
    let body = read_body(&parts.headers, body).await?;
    *body_read = true;
    let headers = &parts.headers;

    let client_id = header(headers, "x-client-id")
        .filter(|_| !app.has(Fault::HeaderNamesCaseSensitive) || conn.client_id_spelled_exactly);
    let client_id = match client_id {
        Some(id) if !id.is_empty() => Some(id),
        _ if app.has(Fault::ClientIdOptional) => None,
        _ => return Err(Failure::bad_request("the X-Client-Id header is required")),
    };
    let secret = match header(headers, "x-client-secret") {
        Some(secret) if !secret.is_empty() => Some(secret),
        _ if app.has(Fault::ClientSecretOptional) => None,
        _ => {
            return Err(Failure::bad_request(
                "the X-Client-Secret header is required",
            ));
        }
    };
    let env = project_env(app, header(headers, "x-project-env"))?;
    authenticate(app, client_id, secret)?;

    let component_index = resolve(app, &raw_ref)?;
    let component = &app.fixture.components[component_index];
    let token_model = check_token(app, component_index, header(headers, "x-auth-token"))?;
    let fields = parse_body(app, &body)?;

    let model_uuid = match operation {
        Operation::Authorize => Some(query_param(parts.uri.query(), validate::MODEL_UUID)),
        Operation::AuthClaims => None,
    };
    let mut errors: Vec<ValidationError> = Vec::new();
    if let Some(value) = &model_uuid {
        if let Some(error) = validate::model_uuid(value.as_deref()) {
            if !(app.has(Fault::ModelUuidOptional) && error.rule == rule::REQUIRED) {
                errors.push(error);
            }
        }
    }
    let validate_body = operation == Operation::Authorize || fields.is_some();
    if validate_body && !app.has(Fault::BodyFieldsUnchecked) {
        errors.extend(validate::fields(&component.settings, fields.as_ref()));
    }
    if !errors.is_empty() {
        return Err(Failure::Validation(errors));
    }

    let view = ComponentView {
        app,
        index: component_index,
        component,
        env,
    };
    match operation {
        Operation::Authorize => {
            let model_uuid = model_uuid.flatten().filter(|v| !v.is_empty());
            authorize(&view, model_uuid.as_deref(), fields.as_ref())
        }
        Operation::AuthClaims => auth_claims(&view, token_model, fields.as_ref()),
    }
}

/// The first value of a header, as bytes: a value need not be UTF-8.
fn header<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a [u8]> {
    headers.get(name).map(|v| v.as_bytes())
}

/// Reads the body with a bound: a declared length over the limit is refused
/// before reading, a chunked one as soon as it passes the limit.
async fn read_body(headers: &HeaderMap, body: Incoming) -> Result<Bytes, Failure> {
    let too_large = || {
        Failure::too_large(format!(
            "the request body is larger than {BODY_LIMIT} bytes"
        ))
    };
    let declared = header(headers, CONTENT_LENGTH.as_str())
        .and_then(|v| std::str::from_utf8(v).ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|len| len > BODY_LIMIT as u64) {
        return Err(too_large());
    }
    match tokio::time::timeout(BODY_TIMEOUT, Limited::new(body, BODY_LIMIT).collect()).await {
        Err(_) => Err(Failure::bad_request(
            "the request body did not arrive in time",
        )),
        Ok(Err(e)) if e.downcast_ref::<LengthLimitError>().is_some() => Err(too_large()),
        Ok(Err(_)) => Err(Failure::bad_request("the request body could not be read")),
        Ok(Ok(collected)) => Ok(collected.to_bytes()),
    }
}

/// `X-Project-Env`: absent means `dev` (spec/README.md choice 8).
fn project_env(app: &App, value: Option<&[u8]>) -> Result<ProjectEnv, Failure> {
    match value {
        None | Some(b"dev") => Ok(ProjectEnv::Dev),
        Some(b"live") if !app.has(Fault::LiveRejected) => Ok(ProjectEnv::Live),
        Some(_) if app.has(Fault::AnyProjectEnv) => Ok(ProjectEnv::Dev),
        Some(_) => Err(Failure::bad_request(
            "X-Project-Env must be `dev` or `live`",
        )),
    }
}

/// Client id and secret. One message for both failures, so an answer does
/// not tell which client ids exist.
fn authenticate(app: &App, client_id: Option<&[u8]>, secret: Option<&[u8]>) -> Result<(), Failure> {
    let refused = || Failure::unauthorized("unknown client or wrong secret");
    let Some(id) = client_id else {
        return Ok(()); // only under Fault::ClientIdOptional
    };
    let Some(client) = app.fixture.clients.iter().find(|c| c.id.as_bytes() == id) else {
        return if app.has(Fault::UnknownClientAccepted) {
            Ok(())
        } else {
            Err(refused())
        };
    };
    let Some(secret) = secret else {
        return Ok(()); // only under Fault::ClientSecretOptional
    };
    if app.has(Fault::WrongSecretAccepted) || bool::from(client.secret.as_bytes().ct_eq(secret)) {
        Ok(())
    } else {
        Err(refused())
    }
}

/// The component a `ref` names: exact match on uuid, then name, then tag,
/// after percent-decoding (spec/README.md choice 9).
fn resolve(app: &App, raw_ref: &str) -> Result<usize, Failure> {
    let not_found = || Failure::not_found("no component has this name, tag or uuid");
    let decoded: Cow<'_, str> = if app.has(Fault::PercentEncodingNotDecoded) {
        Cow::Borrowed(raw_ref)
    } else {
        percent_decode_str(raw_ref)
            .decode_utf8()
            .map_err(|_| not_found())?
    };
    let components = &app.fixture.components;
    let find = |skip: bool, key: fn(&Component) -> &str| {
        if skip {
            None
        } else {
            components.iter().position(|c| key(c) == decoded)
        }
    };
    find(app.has(Fault::UuidsNotResolved), |c| &c.uuid)
        .or_else(|| find(app.has(Fault::NamesNotResolved), |c| &c.name))
        .or_else(|| find(app.has(Fault::TagsNotResolved), |c| &c.tag))
        .or_else(|| (app.has(Fault::UnknownRefAccepted) && !components.is_empty()).then_some(0))
        .ok_or_else(not_found)
}

/// `X-Auth-Token`: required by a component that requires auth; a token sent
/// to any component must be one of its own (spec/README.md choice 7).
/// Returns the model the token is bound to.
fn check_token(
    app: &App,
    component: usize,
    token: Option<&[u8]>,
) -> Result<Option<usize>, Failure> {
    let requires_auth = app.fixture.components[component].requires_auth;
    let Some(token) = token.filter(|t| !t.is_empty()) else {
        let missing = if requires_auth {
            !app.has(Fault::AuthTokenOptional)
        } else {
            app.has(Fault::AuthTokenDemanded)
        };
        return if missing {
            Err(Failure::unauthorized(
                "this component requires an X-Auth-Token",
            ))
        } else {
            Ok(None)
        };
    };
    match app.tokens.lookup(token) {
        Some(Binding {
            component: c,
            model,
        }) if c == component => Ok(Some(model)),
        _ if requires_auth && app.has(Fault::WrongAuthTokenAccepted) => Ok(None),
        _ => Err(Failure::unauthorized(
            "the X-Auth-Token is not valid for this component",
        )),
    }
}

/// The body's fields: `None` for an absent or empty body.
fn parse_body(app: &App, body: &[u8]) -> Result<Option<Map<String, Value>>, Failure> {
    if body.is_empty() {
        return Ok(None);
    }
    let lenient = app.has(Fault::MalformedJsonAccepted);
    let Ok(text) = std::str::from_utf8(body) else {
        return if lenient {
            Ok(None)
        } else {
            Err(Failure::bad_request("the request body is not UTF-8"))
        };
    };
    // serde_json refuses nesting deeper than 128 levels with an error, not
    // a stack overflow. Its messages give a position, never the input.
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(fields)) => Ok(Some(fields)),
        Ok(_) => Err(Failure::bad_request(
            "the request body must be a JSON object",
        )),
        Err(_) if lenient => Ok(None),
        Err(e) => Err(Failure::bad_request(format!(
            "the request body is not JSON: {e}"
        ))),
    }
}

/// The first value of a query parameter, percent-decoded; `None` when the
/// parameter is absent. A value that is not UTF-8 is kept lossily: it then
/// fails the uuid format check, as it should.
fn query_param(query: Option<&str>, name: &str) -> Option<String> {
    form_urlencoded::parse(query?.as_bytes())
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.into_owned())
}

/// The pieces of a success body.
struct ComponentView<'a> {
    app: &'a App,
    index: usize,
    component: &'a Component,
    env: ProjectEnv,
}

impl ComponentView<'_> {
    fn component(&self) -> types::Component {
        let c = self.component;
        types::Component {
            name: c.name.clone(),
            requires_auth: c.requires_auth,
            tag: c.tag.clone(),
            uuid: c.uuid.clone(),
        }
    }

    /// A model as the client sees it: secret fields left out.
    fn model(&self, index: usize) -> types::Model {
        let model = &self.component.models[index];
        let settings = &self.component.settings;
        let fields = model
            .fields
            .iter()
            .filter(|(name, _)| !settings.auth.iter().any(|s| s.secret && s.name == **name))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        types::Model {
            fields,
            uuid: model.uuid.clone(),
        }
    }

    /// The model whose stored auth fields equal the given ones.
    fn claimed_by(&self, fields: Option<&Map<String, Value>>) -> Option<usize> {
        let settings = &self.component.settings;
        self.component
            .models
            .iter()
            .position(|m| fields_match(settings, m, fields))
    }
}

/// Whether the sent fields equal the model's, field by field over the
/// settings; secret fields are compared in constant time.
fn fields_match(settings: &Settings, model: &Model, sent: Option<&Map<String, Value>>) -> bool {
    let mut all = true;
    for setting in &settings.auth {
        let stored = model.fields.get(&setting.name);
        let given = sent.and_then(|f| f.get(&setting.name));
        let same = if setting.secret {
            let bytes = |v: Option<&Value>| v.map(Value::to_string).unwrap_or_default();
            bool::from(bytes(stored).as_bytes().ct_eq(bytes(given).as_bytes()))
                && stored.is_some() == given.is_some()
        } else {
            stored == given
        };
        // No early return: every field is compared whatever the first says.
        all &= same;
    }
    all
}

/// Authorize: the named model's fields must match; issues a token for it.
fn authorize(
    view: &ComponentView<'_>,
    model_uuid: Option<&str>,
    fields: Option<&Map<String, Value>>,
) -> Result<Success, Failure> {
    let model = match model_uuid {
        Some(uuid) => view
            .component
            .models
            .iter()
            .position(|m| m.uuid == uuid)
            .ok_or_else(|| Failure::not_found("no model of this component has this modelUuid"))?,
        // Only reached under Fault::ModelUuidOptional: the model the fields claim.
        None => view
            .claimed_by(fields)
            .ok_or_else(|| Failure::unauthorized("the fields do not match any model"))?,
    };
    if !fields_match(
        &view.component.settings,
        &view.component.models[model],
        fields,
    ) {
        return Err(Failure::unauthorized("the fields do not match the model's"));
    }
    let token = view.app.tokens.issue(Binding {
        component: view.index,
        model,
    });
    Ok(Success::Authorize(AuthorizeResult {
        code: 200,
        component: view.component(),
        env: view.env,
        model: view.model(model),
        status: true,
        token,
    }))
}

/// Auth Claims: the token's model; else the model the body's fields claim;
/// else no model (spec/README.md choice 3).
fn auth_claims(
    view: &ComponentView<'_>,
    token_model: Option<usize>,
    fields: Option<&Map<String, Value>>,
) -> Result<Success, Failure> {
    let model =
        match (token_model, fields) {
            (Some(model), _) => Some(model),
            (None, Some(fields)) => Some(view.claimed_by(Some(fields)).ok_or_else(|| {
                Failure::unauthorized("no model of this component has these fields")
            })?),
            (None, None) => None,
        };
    let model = model.filter(|_| !view.app.has(Fault::ClaimsOmitModel));
    Ok(Success::Claims(AuthClaimsResult {
        code: 200,
        component: view.component(),
        env: view.env,
        model: model.map(|m| view.model(m)),
        status: true,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn query_param_decodes_and_takes_the_first() {
        assert_eq!(
            query_param(Some("a=1&modelUuid=x%2Dy&modelUuid=z"), "modelUuid").as_deref(),
            Some("x-y")
        );
        assert_eq!(
            query_param(Some("modelUuid"), "modelUuid").as_deref(),
            Some("")
        );
        assert_eq!(query_param(Some("other=1"), "modelUuid"), None);
        assert_eq!(query_param(None, "modelUuid"), None);
    }
}
