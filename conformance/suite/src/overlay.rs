//! `conformance choices --overlay FILE`: what a server chose where the
//! description is silent, as an OpenAPI Overlay 1.0 document to lay over
//! `spec/openapi.yaml` (`generator --overlay FILE`), so that a client team
//! gets bindings that decode that server's answers.
//!
//! It states where `modelUuid` travels, the statuses of the successes (and
//! of refusals the spec does not document), and, where the server answers
//! successes in a shape of its own, that shape as a schema inferred from
//! the answers it gave: each member's type, every member seen required
//! (one answer is all it saw: loosen by hand what may be absent), the
//! issued token a `string` of `format: password`, which the bindings hold
//! as a `Secret`. The values themselves are never written.

use serde_json::{Map, Value, json};

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
        if let (true, Some((_, body))) = (shape_other, sample) {
            actions.push(json!({
                "target": format!("$.components.schemas['{schema}']"),
                "description": "The server answers in a shape of its own: replaced by the shape of its answer.",
                "remove": true,
            }));
            let mut inferred = infer(body, samples.token.as_deref());
            if let Value::Object(map) = &mut inferred {
                map.insert(
                    "description".into(),
                    "The shape of the server's answer, inferred from one: every member it held is required.".into(),
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

/// A schema for `value`: objects with every member required, arrays by
/// their first item, scalars by their type; a string equal to `token` is a
/// password.
fn infer(value: &Value, token: Option<&str>) -> Value {
    match value {
        Value::Null => json!({}),
        Value::Bool(_) => json!({"type": "boolean"}),
        Value::Number(n) if n.is_i64() || n.is_u64() => json!({"type": "integer"}),
        Value::Number(_) => json!({"type": "number"}),
        Value::String(s) if Some(s.as_str()) == token => {
            json!({"type": "string", "format": "password", "description": "The token issued: a secret."})
        }
        Value::String(_) => json!({"type": "string"}),
        Value::Array(items) => json!({
            "type": "array",
            "items": items.first().map_or(json!({}), |item| infer(item, token)),
        }),
        Value::Object(map) => {
            let properties: Map<String, Value> = map
                .iter()
                .map(|(key, value)| (key.clone(), infer(value, token)))
                .collect();
            // A member seen as null says nothing of its type: not required.
            let required: Vec<&String> = map
                .iter()
                .filter(|(_, value)| !value.is_null())
                .map(|(key, _)| key)
                .collect();
            let mut schema = json!({"type": "object", "properties": properties});
            if !required.is_empty() {
                schema["required"] = json!(required);
            }
            schema
        }
    }
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
            authorize: Some((
                201,
                json!({"ok": true, "data": {"token": "tok-1", "n": 2, "at": null}, "tags": ["a"]}),
            )),
            auth_claims: None,
            token: Some("tok-1".into()),
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
}
