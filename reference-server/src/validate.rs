//! Validation of a request against a component's auth settings: the failures
//! that make a 417.
//!
//! Every failure is collected, in a fixed order (spec/README.md choice 13):
//! parameters first, then the settings' field order, then fields the
//! settings do not define, in body order. Messages name fields and limits,
//! never values: a value may be a secret.

use std::collections::HashMap;

use component_auth_bindings::types::ValidationError;
use serde_json::{Map, Value};

use crate::behaviour::{FieldRules, ModelUuidSource};
use crate::settings::{FieldType, Settings, is_uuid};

/// The `rule` values of [`ValidationError`], as spec/README.md lists them.
pub mod rule {
    pub const REQUIRED: &str = "required";
    pub const TYPE: &str = "type";
    pub const MIN_LENGTH: &str = "min_length";
    pub const MAX_LENGTH: &str = "max_length";
    pub const UNKNOWN_FIELD: &str = "unknown_field";
    pub const FORMAT: &str = "format";
    pub const MINIMUM: &str = "minimum";
    pub const MAXIMUM: &str = "maximum";
    pub const PATTERN: &str = "pattern";
    pub const ENUM: &str = "enum";
}

/// The name of Authorize's query parameter (spec/README.md choice 1).
pub const MODEL_UUID: &str = "modelUuid";

fn failure(field: &str, rule: &str, message: String) -> ValidationError {
    ValidationError::new(field.to_owned(), rule.to_owned(), message)
}

/// A required header that is missing or empty (the 417 of the variant
/// `missing-credential-417`; its message is also the 400's).
pub(crate) fn header_required(name: &str) -> ValidationError {
    failure(
        name,
        rule::REQUIRED,
        format!("the {name} header is required"),
    )
}

/// An `X-Project-Env` that is neither `dev` nor `live` (the 417 of the
/// variant `bad-env-417`; its message is also the 400's).
pub(crate) fn project_env_invalid() -> ValidationError {
    failure(
        "X-Project-Env",
        rule::FORMAT,
        "X-Project-Env must be `dev` or `live`".to_owned(),
    )
}

/// A body that is not UTF-8, not JSON or not an object (the 417 of the
/// variant `malformed-json-417`; its message is also the 400's).
pub(crate) fn body_malformed(message: String) -> ValidationError {
    failure("body", rule::TYPE, message)
}

/// Checks Authorize's `modelUuid`, read from `source`: absent or empty is
/// `required`, not a uuid is `format`.
pub(crate) fn model_uuid(value: Option<&str>, source: ModelUuidSource) -> Option<ValidationError> {
    match value {
        None | Some("") => Some(failure(
            MODEL_UUID,
            rule::REQUIRED,
            match source {
                ModelUuidSource::Query => format!("the query parameter `{MODEL_UUID}` is required"),
                ModelUuidSource::Header(name) => {
                    format!("`{MODEL_UUID}` is required, in the header `{name}`")
                }
                ModelUuidSource::BodyField(name) => {
                    format!("`{MODEL_UUID}` is required, as the body field `{name}`")
                }
            },
        )),
        Some(v) if !is_uuid(v) => Some(failure(
            MODEL_UUID,
            rule::FORMAT,
            format!("`{MODEL_UUID}` must be a uuid"),
        )),
        Some(_) => None,
    }
}

/// Checks body fields against the settings; `None` is an absent body, which
/// fails every required field.
pub fn fields(settings: &Settings, body: Option<&Map<String, Value>>) -> Vec<ValidationError> {
    fields_with(settings, body, FieldRules::default())
}

/// [`fields`], read as `rules` say.
pub(crate) fn fields_with(
    settings: &Settings,
    body: Option<&Map<String, Value>>,
    rules: FieldRules,
) -> Vec<ValidationError> {
    let mut out = Vec::new();
    // Ignoring case, the body's first key of each folded name: one pass
    // over the body, not one per field.
    let folded: HashMap<String, &Value> = match (rules.names_ignore_case, body) {
        (true, Some(body)) => {
            let mut folded = HashMap::with_capacity(body.len());
            for (k, v) in body {
                folded.entry(k.to_ascii_lowercase()).or_insert(v);
            }
            folded
        }
        _ => HashMap::new(),
    };
    let find = |name: &str| -> Option<&Value> {
        let body = body?;
        match rules.names_ignore_case {
            false => body.get(name),
            true => folded.get(&name.to_ascii_lowercase()).copied(),
        }
    };
    for setting in &settings.auth {
        let name = setting.name.as_str();
        let Some(value) = find(name) else {
            if setting.required {
                out.push(failure(
                    name,
                    rule::REQUIRED,
                    format!("`{name}` is required"),
                ));
            }
            continue;
        };
        let coerced = rules.types_coerced;
        let type_ok = match setting.kind {
            FieldType::String => value.is_string() || (coerced && value.is_number()),
            FieldType::Integer => {
                value.is_i64()
                    || value.is_u64()
                    || (coerced
                        && (value.is_boolean()
                            || value.as_str().is_some_and(|s| s.parse::<i64>().is_ok())))
            }
            FieldType::Boolean => value.is_boolean(),
        };
        if !type_ok {
            out.push(failure(
                name,
                rule::TYPE,
                format!("`{name}` must be {}", setting.kind.with_article()),
            ));
            continue;
        }
        if let (Some(n), false) = (value.as_i64(), rules.bounds_unchecked) {
            if let Some(min) = setting.minimum.filter(|min| n < *min) {
                out.push(failure(
                    name,
                    rule::MINIMUM,
                    format!("`{name}` must be at least {min}"),
                ));
            }
            let over = |max: &i64| n > *max || (rules.maximum_exclusive && n == *max);
            if let Some(max) = setting.maximum.filter(over) {
                out.push(failure(
                    name,
                    rule::MAXIMUM,
                    format!("`{name}` must be at most {max}"),
                ));
            }
        }
        if let Some(allowed) = &setting.allowed {
            if !allowed.contains(value) {
                out.push(failure(
                    name,
                    rule::ENUM,
                    format!("`{name}` must be one of its allowed values"),
                ));
            }
        }
        if let (Some(text), FieldType::String) = (value.as_str(), setting.kind) {
            if let Some(p) = setting.pattern.as_ref().filter(|p| !p.regex.is_match(text)) {
                out.push(failure(
                    name,
                    rule::PATTERN,
                    format!("`{name}` must match the pattern `{}`", p.source),
                ));
            }
            let chars = text.chars().count();
            if let Some(min) = setting.min_length.filter(|min| chars < *min) {
                out.push(failure(
                    name,
                    rule::MIN_LENGTH,
                    format!("`{name}` must be at least {min} characters long"),
                ));
            }
            if let Some(max) = setting.max_length.filter(|max| chars > *max) {
                out.push(failure(
                    name,
                    rule::MAX_LENGTH,
                    format!("`{name}` must be at most {max} characters long"),
                ));
            }
        }
    }
    for name in body.into_iter().flat_map(|b| b.keys()) {
        let defined = match rules.names_ignore_case {
            false => settings.get(name).is_some(),
            true => settings.defines_ignoring_case(name),
        };
        if !defined && !rules.unknown_ignored {
            out.push(failure(
                name,
                rule::UNKNOWN_FIELD,
                "the component's auth settings do not define this field".to_owned(),
            ));
        }
    }
    out
}

/// One line naming every failure (field and rule, never a value), for the
/// 400 that some faults answer instead of a 417.
pub(crate) fn summary(errors: &[ValidationError]) -> String {
    let parts: Vec<String> = errors
        .iter()
        .map(|e| format!("{} ({})", e.field, e.rule))
        .collect();
    format!("validation failed: {}", parts.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Fixture;
    use serde_json::json;

    fn users() -> Settings {
        Fixture::default_fixture().components[0].settings.clone()
    }

    fn rules(errors: &[ValidationError]) -> Vec<(String, String)> {
        errors
            .iter()
            .map(|e| (e.field.clone(), e.rule.clone()))
            .collect()
    }

    #[test]
    fn collects_every_failure_in_order() {
        let body = json!({"zeta": 1, "password": "short", "email": 5, "alpha": true});
        let got = fields(&users(), body.as_object());
        let want = [
            ("email", "type"),
            ("password", "min_length"),
            ("zeta", "unknown_field"),
            ("alpha", "unknown_field"),
        ];
        let want: Vec<_> = want
            .iter()
            .map(|(f, r)| (f.to_string(), r.to_string()))
            .collect();
        assert_eq!(rules(&got), want);
    }

    #[test]
    fn absent_body_fails_required_fields() {
        let got = fields(&users(), None);
        assert_eq!(got.len(), 2);
        assert!(got.iter().all(|e| e.rule == rule::REQUIRED));
    }

    #[test]
    fn messages_never_carry_values() {
        let body = json!({"password": "s3cr"});
        let got = fields(&users(), body.as_object());
        assert!(got.iter().all(|e| !e.message.contains("s3cr")));
    }

    #[test]
    fn model_uuid_rules() {
        let q = ModelUuidSource::Query;
        assert_eq!(model_uuid(None, q).map(|e| e.rule), Some("required".into()));
        assert_eq!(
            model_uuid(Some("x"), q).map(|e| e.rule),
            Some("format".into())
        );
        assert!(model_uuid(Some("c0ffee00-1234-4abc-8def-0123456789ab"), q).is_none());
        let header = model_uuid(None, ModelUuidSource::Header("X-Model-Uuid"));
        let header = header.map(|e| (e.field, e.message)).unwrap_or_default();
        assert_eq!(header.0, MODEL_UUID);
        assert!(header.1.contains("X-Model-Uuid"), "{}", header.1);
    }
}
