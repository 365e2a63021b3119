//! The Component Authentication Claims interface with in-memory data, on
//! the router generated from `spec/openapi.yaml`
//! (`component_auth_bindings::server`) and the interface's rules
//! (`component_auth_bindings::rules`). Everything here is what only an
//! implementation knows: its clients, components, models and tokens, and
//! what the two operations do once every rule has passed.
//!
//! The binary (`stub-server [--port N]`) prints
//! `listening on http://127.0.0.1:PORT` first (`--port 0`: a free port),
//! like the reference server, and stops on Ctrl-C; [`router`] serves the
//! same in-process.

use std::collections::HashMap;
use std::sync::Mutex;

use client_runtime::Secret;
use component_auth_bindings::rules::{self, Call, Component, Refusal, Service};
use component_auth_bindings::types::{AuthClaimsResult, AuthorizeResult, Model};
use serde::Deserialize;
use serde_json::{Map, Value};
use subtle::ConstantTimeEq;

/// The stub's data: written like a profile's components, with their models
/// (uuid → stored fields) and the tokens given out before any Authorize.
const DATA: &str = r#"{
  "project_uuid": "5e6f7a8b-9c0d-4e1f-a2b3-c4d5e6f7a8b9",
  "client_id": "stub-client", "client_secret": "stub-secret-Vb3k",
  "components": [
    {"view": {"uuid": "6a0f3c1e-2b4d-4e6f-8a1b-3c5d7e9f0a21", "name": "Users", "tag": "users", "requires_auth": true},
     "fields": [{"name": "email", "type": "string", "required": true, "min_length": 3},
                {"name": "password", "type": "string", "required": true, "min_length": 8},
                {"name": "locale", "type": "string", "enum": ["en", "fr", "de"]}],
     "secret_fields": ["password"],
     "models": {"c3a1e5f7-0b2d-4f6a-9c8e-1a3b5c7d9e02": {"email": "grace@example.com", "password": "stub-horse-battery"}},
     "tokens": {"users-token-stub-0001": "c3a1e5f7-0b2d-4f6a-9c8e-1a3b5c7d9e02"}},
    {"view": {"uuid": "1e2d3c4b-5a69-4788-97a6-b5c4d3e2f103", "name": "Catalog", "tag": "catalog", "requires_auth": false},
     "fields": [{"name": "account", "type": "string", "required": true, "min_length": 2, "max_length": 32, "pattern": "^[a-z][a-z0-9-]*$"},
                {"name": "pin", "type": "integer", "required": true, "minimum": 0, "maximum": 9999}],
     "secret_fields": ["pin"],
     "models": {"2f3e4d5c-6b7a-4899-a8b7-c6d5e4f30214": {"account": "acme", "pin": 2468},
                "3a4b5c6d-7e8f-4a0b-9c1d-2e3f4a5b6c25": {"account": "globex", "pin": 1357}}},
    {"view": {"uuid": "7b8c9d0e-1f2a-4b3c-8d4e-5f6a7b8c9d36", "name": "Café Menü", "tag": "cafe-menu", "requires_auth": false},
     "fields": [{"name": "table", "type": "integer", "required": true, "minimum": 1, "maximum": 99},
                {"name": "vip", "type": "boolean"}],
     "models": {"0d1e2f3a-4b5c-4d6e-8f7a-8b9c0d1e2f47": {"table": 7, "vip": true}}}
  ]
}"#;

#[derive(Deserialize)]
struct Data {
    project_uuid: String,
    client_id: String,
    client_secret: Secret,
    components: Vec<Stored>,
}

/// A component, its secret fields, its models and its first tokens.
#[derive(Deserialize)]
struct Stored {
    #[serde(flatten)]
    component: Component,
    #[serde(default)]
    secret_fields: Vec<String>,
    models: Map<String, Value>,
    #[serde(default)]
    tokens: HashMap<String, String>,
}

/// The server's state: its data, and every token issued (token →
/// component index, model uuid).
pub struct Stub {
    data: Data,
    tokens: Mutex<HashMap<String, (usize, String)>>,
}

fn equal(a: &str, b: &str) -> bool {
    a.as_bytes().ct_eq(b.as_bytes()).into()
}

/// Serves [`router`] on `listener` until `shutdown` completes.
pub async fn serve(
    listener: tokio::net::TcpListener,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    client_runtime::server::axum::serve(listener, router())
        .with_graceful_shutdown(shutdown)
        .await
}

/// The interface served by a fresh [`Stub`], under `/v2/api`.
pub fn router() -> client_runtime::server::axum::Router {
    rules::router(Stub::default())
}

impl Default for Stub {
    /// The stub's data as it starts: no token issued but the first ones.
    fn default() -> Self {
        let data: Data = serde_json::from_str(DATA).expect("the stub's data is valid");
        let tokens = data.components.iter().enumerate().flat_map(|(i, c)| {
            (c.tokens.iter()).map(move |(token, model)| (token.clone(), (i, model.clone())))
        });
        let tokens = Mutex::new(tokens.collect());
        Self { data, tokens }
    }
}

impl Stub {
    fn stored(&self, component: &Component) -> Option<(usize, &Stored)> {
        let uuid = &component.view.uuid;
        let mut all = self.data.components.iter().enumerate();
        all.find(|(_, s)| &s.component.view.uuid == uuid)
    }

    /// A model as clients see it: its secret fields left out.
    fn model(stored: &Stored, uuid: &str) -> Option<Model> {
        let mut shown = stored.models.get(uuid)?.as_object()?.clone();
        shown.retain(|name, _| !stored.secret_fields.contains(name));
        Some(Model::new(uuid.to_owned(), shown))
    }

    /// The model whose stored fields equal `sent`, field by field over the
    /// settings (compared in constant time), if `uuid` is `None`; else
    /// whether model `uuid` does.
    fn claimed(stored: &Stored, uuid: Option<&str>, sent: &Map<String, Value>) -> Option<String> {
        let same = |fields: &Value| {
            (stored.component.fields.iter()).all(|f| {
                match (fields.get(&f.name), sent.get(&f.name)) {
                    (Some(a), Some(b)) => equal(&a.to_string(), &b.to_string()),
                    (a, b) => a.is_none() && b.is_none(),
                }
            })
        };
        let mut models = stored
            .models
            .iter()
            .filter(|(u, _)| uuid.is_none_or(|x| x == *u));
        models
            .find(|(_, fields)| same(fields))
            .map(|(u, _)| u.clone())
    }
}

impl Service for Stub {
    fn project_uuid(&self) -> &str {
        &self.data.project_uuid
    }

    fn client(&self, id: &str, secret: &Secret) -> bool {
        // Both compared, whatever the first says: no timing tells which failed.
        let id_ok = equal(id, &self.data.client_id);
        equal(secret.expose(), self.data.client_secret.expose()) && id_ok
    }

    fn component(&self, reference: &str) -> Option<Component> {
        let views = || self.data.components.iter().map(|s| &s.component);
        (views().find(|c| c.view.uuid == reference))
            .or_else(|| views().find(|c| c.view.name == reference))
            .or_else(|| views().find(|c| c.view.tag == reference))
            .cloned()
    }

    fn token(&self, component: &Component, token: &Secret) -> Option<String> {
        let (index, _) = self.stored(component)?;
        let tokens = self.tokens.lock().unwrap_or_else(|e| e.into_inner());
        match tokens.get(token.expose()) {
            Some((c, model)) if *c == index => Some(model.clone()),
            _ => None,
        }
    }

    async fn auth_claims(&self, call: Call) -> Result<AuthClaimsResult, Refusal> {
        let gone = || Refusal::NotFound("no such component".into());
        let (_, stored) = self.stored(&call.component).ok_or_else(gone)?;
        let unclaimed =
            || Refusal::Unauthorized("no model of this component has these fields".into());
        let model = match (call.token_model, &call.fields) {
            (Some(uuid), _) => Some(uuid),
            (None, Some(sent)) => Some(Self::claimed(stored, None, sent).ok_or_else(unclaimed)?),
            (None, None) => None,
        };
        let mut result = AuthClaimsResult::new(200, true, call.env, call.component.view);
        result.model = model.and_then(|uuid| Self::model(stored, &uuid));
        Ok(result)
    }

    async fn authorize(&self, call: Call, model_uuid: String) -> Result<AuthorizeResult, Refusal> {
        let gone = || Refusal::NotFound("no model of this component has this modelUuid".into());
        let (index, stored) = self.stored(&call.component).ok_or_else(gone)?;
        let model = Self::model(stored, &model_uuid).ok_or_else(gone)?;
        let sent = call.fields.unwrap_or_default();
        if Self::claimed(stored, Some(&model_uuid), &sent).is_none() {
            return Err(Refusal::Unauthorized(
                "the fields do not match the model's".into(),
            ));
        }
        let token = format!("stub-issued-{}", uuid::Uuid::new_v4().simple());
        let mut tokens = self.tokens.lock().unwrap_or_else(|e| e.into_inner());
        tokens.insert(token.clone(), (index, model_uuid));
        let view = call.component.view;
        Ok(AuthorizeResult::new(
            200,
            true,
            call.env,
            view,
            model,
            Secret::new(token),
        ))
    }
}
