//! The Component Authentication Claims interface with in-memory data, on the router generated from `spec/openapi.yaml`
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
use component_auth_bindings::rules::{self, Call, Component, Field, FieldType, Refusal, Service};
use component_auth_bindings::types::{self, AuthClaimsResult, AuthorizeResult, Model};
use serde_json::{Map, Value, json};
use subtle::ConstantTimeEq;

/// A component, its secret fields and its models (uuid, stored fields).
struct Stored {
    component: Component,
    secret_fields: &'static [&'static str],
    models: Vec<(String, Map<String, Value>)>,
}

/// The server's data: one project, one client, three components, and the
/// tokens issued (token → component index, model uuid).
pub struct Stub {
    project_uuid: String,
    client: (String, Secret),
    components: Vec<Stored>,
    tokens: Mutex<HashMap<String, (usize, String)>>,
}

fn equal(a: &str, b: &str) -> bool {
    a.as_bytes().ct_eq(b.as_bytes()).into()
}

fn object(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        _ => Map::new(),
    }
}

fn field(name: &str, kind: FieldType, required: bool) -> Field {
    Field {
        required,
        ..Field::new(name, kind)
    }
}

fn component(
    uuid: &str,
    name: &str,
    tag: &str,
    requires_auth: bool,
    fields: Vec<Field>,
) -> Component {
    let view = types::Component::new(uuid.into(), name.into(), tag.into(), requires_auth);
    Component { view, fields }
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
    rules::router(Stub::new())
}

impl Stub {
    /// The stub's data as it starts: no token issued yet but the Users
    /// component's demo token.
    pub fn new() -> Self {
        let users = vec![
            Field {
                min_length: Some(3),
                ..field("email", FieldType::String, true)
            },
            Field {
                min_length: Some(8),
                ..field("password", FieldType::String, true)
            },
            Field {
                allowed: Some(vec![json!("en"), json!("fr"), json!("de")]),
                ..field("locale", FieldType::String, false)
            },
        ];
        let account = Field {
            min_length: Some(2),
            max_length: Some(32),
            ..field("account", FieldType::String, true)
        };
        let catalog = vec![
            account
                .with_pattern("^[a-z][a-z0-9-]*$")
                .expect("a valid pattern"),
            Field {
                minimum: Some(0),
                maximum: Some(9999),
                ..field("pin", FieldType::Integer, true)
            },
        ];
        let menu = vec![
            Field {
                minimum: Some(1),
                maximum: Some(99),
                ..field("table", FieldType::Integer, true)
            },
            field("vip", FieldType::Boolean, false),
        ];
        let components = vec![
            Stored {
                component: component(
                    "6a0f3c1e-2b4d-4e6f-8a1b-3c5d7e9f0a21",
                    "Users",
                    "users",
                    true,
                    users,
                ),
                secret_fields: &["password"],
                models: vec![(
                    "c3a1e5f7-0b2d-4f6a-9c8e-1a3b5c7d9e02".into(),
                    object(json!({"email": "grace@example.com", "password": "stub-horse-battery"})),
                )],
            },
            Stored {
                component: component(
                    "1e2d3c4b-5a69-4788-97a6-b5c4d3e2f103",
                    "Catalog",
                    "catalog",
                    false,
                    catalog,
                ),
                secret_fields: &["pin"],
                models: vec![
                    (
                        "2f3e4d5c-6b7a-4899-a8b7-c6d5e4f30214".into(),
                        object(json!({"account": "acme", "pin": 2468})),
                    ),
                    (
                        "3a4b5c6d-7e8f-4a0b-9c1d-2e3f4a5b6c25".into(),
                        object(json!({"account": "globex", "pin": 1357})),
                    ),
                ],
            },
            Stored {
                component: component(
                    "7b8c9d0e-1f2a-4b3c-8d4e-5f6a7b8c9d36",
                    "Café Menü",
                    "cafe-menu",
                    false,
                    menu,
                ),
                secret_fields: &[],
                models: vec![(
                    "0d1e2f3a-4b5c-4d6e-8f7a-8b9c0d1e2f47".into(),
                    object(json!({"table": 7, "vip": true})),
                )],
            },
        ];
        let tokens = HashMap::from([(
            "users-token-stub-0001".to_owned(),
            (0, "c3a1e5f7-0b2d-4f6a-9c8e-1a3b5c7d9e02".to_owned()),
        )]);
        Self {
            project_uuid: "5e6f7a8b-9c0d-4e1f-a2b3-c4d5e6f7a8b9".into(),
            client: ("stub-client".into(), Secret::new("stub-secret-Vb3k")),
            components,
            tokens: Mutex::new(tokens),
        }
    }

    fn stored(&self, component: &Component) -> Option<(usize, &Stored)> {
        let uuid = &component.view.uuid;
        self.components
            .iter()
            .enumerate()
            .find(|(_, s)| &s.component.view.uuid == uuid)
    }

    /// A model as clients see it: its secret fields left out.
    fn model(stored: &Stored, uuid: &str) -> Option<Model> {
        let (uuid, fields) = stored.models.iter().find(|(u, _)| u == uuid)?;
        let mut shown = fields.clone();
        shown.retain(|name, _| !stored.secret_fields.contains(&name.as_str()));
        Some(Model::new(uuid.clone(), shown))
    }

    /// Whether `sent` equals the model's stored fields, field by field
    /// over the settings (secrets compared in constant time).
    fn matches(stored: &Stored, fields: &Map<String, Value>, sent: &Map<String, Value>) -> bool {
        stored
            .component
            .fields
            .iter()
            .all(|f| match (fields.get(&f.name), sent.get(&f.name)) {
                (Some(a), Some(b)) => equal(&a.to_string(), &b.to_string()),
                (None, None) => true,
                _ => false,
            })
    }
}

impl Service for Stub {
    fn project_uuid(&self) -> &str {
        &self.project_uuid
    }

    fn client(&self, id: &str, secret: &Secret) -> bool {
        // Both compared, whatever the first says: no timing tells which failed.
        let id_ok = equal(id, &self.client.0);
        equal(secret.expose(), self.client.1.expose()) && id_ok
    }

    fn component(&self, reference: &str) -> Option<Component> {
        let views = || self.components.iter().map(|s| &s.component);
        views()
            .find(|c| c.view.uuid == reference)
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
        let (_, stored) = self
            .stored(&call.component)
            .ok_or(Refusal::NotFound("gone".into()))?;
        let model = match (&call.token_model, &call.fields) {
            (Some(uuid), _) => Some(uuid.clone()),
            (None, Some(sent)) => Some(
                stored
                    .models
                    .iter()
                    .find(|(_, fields)| Self::matches(stored, fields, sent))
                    .map(|(uuid, _)| uuid.clone())
                    .ok_or_else(|| {
                        Refusal::Unauthorized("no model of this component has these fields".into())
                    })?,
            ),
            (None, None) => None,
        };
        let mut result = AuthClaimsResult::new(200, true, call.env, call.component.view.clone());
        result.model = model.and_then(|uuid| Self::model(stored, &uuid));
        Ok(result)
    }

    async fn authorize(&self, call: Call, model_uuid: String) -> Result<AuthorizeResult, Refusal> {
        let (index, stored) = self
            .stored(&call.component)
            .ok_or(Refusal::NotFound("gone".into()))?;
        let Some((_, fields)) = stored.models.iter().find(|(uuid, _)| *uuid == model_uuid) else {
            return Err(Refusal::NotFound(
                "no model of this component has this modelUuid".into(),
            ));
        };
        if !Self::matches(stored, fields, call.fields.as_ref().unwrap_or(&Map::new())) {
            return Err(Refusal::Unauthorized(
                "the fields do not match the model's".into(),
            ));
        }
        let token = format!("stub-issued-{}", uuid::Uuid::new_v4().simple());
        let mut tokens = self.tokens.lock().unwrap_or_else(|e| e.into_inner());
        tokens.insert(token.clone(), (index, model_uuid.clone()));
        let model = Self::model(stored, &model_uuid).ok_or(Refusal::NotFound("gone".into()))?;
        let view = call.component.view.clone();
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

impl Default for Stub {
    fn default() -> Self {
        Self::new()
    }
}
