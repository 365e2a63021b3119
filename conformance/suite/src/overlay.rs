//! `conformance choices --overlay FILE`: what a server chose where the
//! description is silent, as an OpenAPI Overlay 1.0 document to lay over
//! `spec/openapi.yaml` (`generator --overlay FILE`), so that a client team
//! gets bindings that decode that server's answers.
//!
//! It states where `modelUuid` travels, the statuses of the successes (and
//! of refusals the spec does not document), and, where the server answers
//! successes in a shape of its own, that shape as a schema inferred from
//! the answers of every component of the profile, so that it holds for
//! each: a member every answer held is required, one some answers lacked
//! (or held as null) optional; an object whose keys differ from component
//! to component with none in common (the model's fields) a map
//! (`additionalProperties`); a member whose type differs between answers
//! any JSON; an issued token a `string` of `format: password`, which the
//! bindings hold as a `Secret`. The values themselves are never written.

use serde_json::{Map, Value, json};

use std::collections::BTreeSet;

use crate::observe::Samples;
use conformance_model::choices::{Choices, ModelUuidAt, Shape};

/// The path both operations share in `spec/openapi.yaml`.
const PATH: &str = "/component/{ref}/auth";

/// The statuses the spec documents for both operations besides success.
const DOCUMENTED: [u16; 5] = [400, 401, 404, 413, 417];

/// The overlay for `choices` and `samples`, as a JSON value.
pub fn overlay(choices: &Choices, samples: &Samples) -> Value {
    let mut actions = Vec::new();
    let path = format!("$.paths['{PATH}']");
    match &choices.model_uuid {
        Some(ModelUuidAt::Query(name)) | Some(ModelUuidAt::Header(name)) => {
            let place = match &choices.model_uuid {
                Some(ModelUuidAt::Header(_)) => "header",
                _ => "query",
            };
            actions.push(json!({
                "target": "$.components.parameters.ModelUuid",
                "description": format!("The server reads modelUuid from the {place} parameter `{name}`."),
                "update": {"name": name, "in": place},
            }));
        }
        Some(ModelUuidAt::Body(name)) => {
            // A body member is no parameter: the bindings send it in the
            // auth fields, under its name.
            actions.push(json!({
                "target": format!("{path}.post.parameters"),
                "description": format!("The server reads modelUuid from the body member `{name}`: send it among the auth fields."),
                "remove": true,
            }));
        }
        None => {}
    }
    let shape_other = choices.success_shape == Some(Shape::Other);
    for (method, schema, status, sample) in [
        (
            "get",
            "AuthClaimsResult",
            choices.auth_claims_success,
            &samples.auth_claims,
        ),
        (
            "post",
            "AuthorizeResult",
            choices.authorize_success,
            &samples.authorize,
        ),
    ] {
        if let Some(status) = status.filter(|s| *s != 200) {
            let responses = format!("{path}.{method}.responses");
            actions.push(json!({
                "target": format!("{responses}['200']"),
                "description": format!("The server answers a success with {status}."),
                "remove": true,
            }));
            actions.push(json!({
                "target": responses,
                "update": {status.to_string(): {
                    "description": format!("The server's choice: {status}."),
                    "content": {"application/json": {"schema": {"$ref": format!("#/components/schemas/{schema}")}}},
                }},
            }));
        }
        if shape_other && !sample.is_empty() {
            let bodies: Vec<&Value> = sample.iter().map(|(_, body)| body).collect();
            actions.push(json!({
                "target": format!("$.components.schemas['{schema}']"),
                "description": "The server answers in a shape of its own: replaced by the shape of its answer.",
                "remove": true,
            }));
            let mut inferred = infer(&bodies, &samples.tokens);
            if let Value::Object(map) = &mut inferred {
                map.insert(
                    "description".into(),
                    format!(
                        "The shape of the server's answers, inferred from {} (one per component): a member each held is required, one some lacked optional, keys that differ per component a map.",
                        bodies.len()
                    )
                    .into(),
                );
            }
            actions.push(json!({
                "target": "$.components.schemas",
                "update": {schema: inferred},
            }));
        }
    }
    let refusals = [
        choices.missing_credential,
        choices.wrong_credential,
        choices.bad_project_env,
        choices.unknown_ref,
        choices.unknown_model,
        choices.malformed_body,
    ];
    let mut extra: Vec<u16> = refusals
        .into_iter()
        .flatten()
        .filter(|s| !DOCUMENTED.contains(s))
        .collect();
    extra.sort_unstable();
    extra.dedup();
    for status in extra {
        for method in ["get", "post"] {
            actions.push(json!({
                "target": format!("{path}.{method}.responses"),
                "update": {status.to_string(): {
                    "description": format!("The server's choice: a refusal with {status}, in the 400 shape."),
                    "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ErrorResponse"}}},
                }},
            }));
        }
    }
    json!({
        "overlay": "1.0.0",
        "info": {
            "title": "The server's choices where the description is silent (conformance choices)",
            "version": "1.0.0",
        },
        "actions": actions,
    })
}

/// A schema that every one of `values` (one answer per component, or the
/// values one member had in them) fits: scalars by their type (an integer
/// and a number: a number; two other types: any JSON), arrays by all their
/// items, objects by [`object`]; nulls say nothing of a type. A string
/// equal to an issued token is a password.
fn infer(values: &[&Value], tokens: &[String]) -> Value {
    let present: Vec<&Value> = values.iter().copied().filter(|v| !v.is_null()).collect();
    let kinds: BTreeSet<&str> = present.iter().map(|v| kind(v)).collect();
    let kinds: Vec<&str> = kinds.into_iter().collect();
    match kinds.as_slice() {
        ["boolean"] => json!({"type": "boolean"}),
        ["integer"] => json!({"type": "integer"}),
        ["number"] | ["integer", "number"] => json!({"type": "number"}),
        ["string"] => {
            let token = present
                .iter()
                .any(|v| v.as_str().is_some_and(|s| tokens.iter().any(|t| t == s)));
            if token {
                json!({"type": "string", "format": "password", "description": "The token issued: a secret."})
            } else {
                json!({"type": "string"})
            }
        }
        ["array"] => {
            let items: Vec<&Value> = present
                .iter()
                .filter_map(|v| v.as_array())
                .flatten()
                .collect();
            json!({"type": "array", "items": if items.is_empty() { json!({}) } else { infer(&items, tokens) }})
        }
        ["object"] => object(
            &present
                .iter()
                .filter_map(|v| v.as_object())
                .collect::<Vec<_>>(),
            tokens,
        ),
        // Nothing but nulls, or types that differ: any JSON.
        _ => json!({}),
    }
}

/// The JSON type of `v`, as a schema names it.
fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// Objects: where two or more have keys and no key is common to all, the
/// keys are data (each component's model fields), so a map of what their
/// values fit; else each member in the order first seen, its schema what
/// its values fit, required where every object holds it (not null).
fn object(maps: &[&Map<String, Value>], tokens: &[String]) -> Value {
    let with_keys: Vec<&&Map<String, Value>> = maps.iter().filter(|m| !m.is_empty()).collect();
    let shared = with_keys
        .first()
        .map(|first| {
            first
                .keys()
                .filter(|k| with_keys.iter().all(|m| m.contains_key(*k)))
                .count()
        })
        .unwrap_or(0);
    if with_keys.len() > 1 && shared == 0 {
        let values: Vec<&Value> = maps.iter().flat_map(|m| m.values()).collect();
        return json!({"type": "object", "additionalProperties": infer(&values, tokens)});
    }
    let mut keys: Vec<&String> = Vec::new();
    for m in maps {
        for k in m.keys() {
            if !keys.contains(&k) {
                keys.push(k);
            }
        }
    }
    let properties: Map<String, Value> = keys
        .iter()
        .map(|k| {
            let values: Vec<&Value> = maps.iter().filter_map(|m| m.get(*k)).collect();
            ((*k).clone(), infer(&values, tokens))
        })
        .collect();
    let required: Vec<&String> = keys
        .iter()
        .copied()
        .filter(|k| maps.iter().all(|m| m.get(*k).is_some_and(|v| !v.is_null())))
        .collect();
    let mut schema = json!({"type": "object", "properties": properties});
    if !required.is_empty() {
        schema["required"] = json!(required);
    }
    schema
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_shape_of_its_own_becomes_the_schema_and_the_token_a_password() {
        let choices = Choices {
            model_uuid: Some(ModelUuidAt::Header("X-Model-Uuid".into())),
            authorize_success: Some(201),
            auth_claims_success: Some(200),
            success_shape: Some(Shape::Other),
            missing_credential: Some(422),
            ..Choices::default()
        };
        let samples = Samples {
            authorize: vec![(
                201,
                json!({"ok": true, "data": {"token": "tok-1", "n": 2, "at": null}, "tags": ["a"]}),
            )],
            auth_claims: Vec::new(),
            tokens: vec!["tok-1".into()],
        };
        let overlay = overlay(&choices, &samples);
        let text = overlay.to_string();
        assert!(!text.contains("tok-1"), "a value is written: {text}");
        let actions = overlay["actions"].as_array().unwrap();
        assert_eq!(
            actions[0]["update"],
            json!({"name": "X-Model-Uuid", "in": "header"})
        );
        assert_eq!(
            actions[1]["target"],
            "$.paths['/component/{ref}/auth'].post.responses['200']"
        );
        assert!(actions[2]["update"]["201"].is_object());
        let schema = &actions[4]["update"]["AuthorizeResult"];
        assert_eq!(schema["required"], json!(["ok", "data", "tags"]));
        assert_eq!(
            schema["properties"]["data"]["properties"]["token"]["format"],
            "password"
        );
        assert_eq!(
            schema["properties"]["data"]["required"],
            json!(["token", "n"])
        );
        assert_eq!(
            schema["properties"]["tags"],
            json!({"type": "array", "items": {"type": "string"}})
        );
        // 422 is no status the spec documents: added to both operations.
        assert!(actions[5]["update"]["422"].is_object() && actions[6]["update"]["422"].is_object());
        assert_eq!(actions.len(), 7);
    }

    /// Three components' answers: a member one lacks is optional, the
    /// model's fields (no key in common) a map of any JSON, every issued
    /// token a password.
    #[test]
    fn the_shape_holds_for_every_component() {
        let wrapped = |model: Option<Value>, token: &str| {
            let mut data =
                json!({"env": "dev", "component": {"name": "n", "tag": "t"}, "token": token});
            if let Some(m) = model {
                data["model"] = m;
            }
            json!({"status": true, "data": data})
        };
        let samples = Samples {
            authorize: vec![
                (
                    200,
                    wrapped(
                        Some(json!({"uuid": "u1", "fields": {"email": "a@b"}})),
                        "t-1",
                    ),
                ),
                (
                    200,
                    wrapped(
                        Some(json!({"uuid": "u2", "fields": {"account": "acme"}})),
                        "t-2",
                    ),
                ),
                (
                    200,
                    wrapped(
                        Some(json!({"uuid": "u3", "fields": {"table": 7, "vip": true}})),
                        "t-3",
                    ),
                ),
            ],
            auth_claims: vec![
                (
                    200,
                    wrapped(Some(json!({"uuid": "u1", "fields": {"email": "a@b"}})), "x"),
                ),
                (200, wrapped(None, "x")),
            ],
            tokens: vec!["t-1".into(), "t-2".into(), "t-3".into()],
        };
        let choices = Choices {
            success_shape: Some(Shape::Other),
            ..Choices::default()
        };
        let overlay = overlay(&choices, &samples);
        let text = overlay.to_string();
        for token in ["t-1", "t-2", "t-3"] {
            assert!(!text.contains(&format!("\"{token}\"")), "{text}");
        }
        let schema = |name: &str| {
            overlay["actions"]
                .as_array()
                .unwrap()
                .iter()
                .find_map(|a| a["update"].get(name).cloned())
                .expect("the schema")
        };
        let authorize = schema("AuthorizeResult");
        let data = &authorize["properties"]["data"];
        assert_eq!(
            data["required"],
            json!(["env", "component", "token", "model"])
        );
        assert_eq!(data["properties"]["token"]["format"], "password");
        let model = &data["properties"]["model"];
        assert_eq!(model["required"], json!(["uuid", "fields"]));
        assert_eq!(
            model["properties"]["fields"],
            json!({"type": "object", "additionalProperties": {}})
        );
        let claims = schema("AuthClaimsResult");
        // Absent from one component's answer: optional.
        assert_eq!(
            claims["properties"]["data"]["required"],
            json!(["env", "component", "token"])
        );
    }
}
