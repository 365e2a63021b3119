//! What a success carries, read wherever the server's body puts it.
//!
//! The description does not show a success's shape, so a token Authorize
//! issued, or the environment that served a request, is looked for by its
//! key at any depth (`token`, `data.token`, `result.access_token`), not at
//! the place our spec chose. The checks built on them (a token of another
//! component, a token that claims its model) then run against a server
//! whose success bodies differ from ours.

use serde_json::Value;

/// Keys a token may travel under, compared without case, `_` or `-`.
const TOKEN_KEYS: &[&str] = &["token", "authtoken", "xauthtoken", "accesstoken"];

/// The first string under a token key, depth first in the body's order.
pub fn issued_token(body: &Value) -> Option<String> {
    find_string(body, &|key| {
        let k: String = key
            .chars()
            .filter(|c| !matches!(c, '_' | '-'))
            .flat_map(char::to_lowercase)
            .collect();
        TOKEN_KEYS.contains(&k.as_str())
    })
}

/// The first string under the key `env` (or `project_env`, `environment`).
pub fn environment(body: &Value) -> Option<String> {
    find_string(body, &|key| {
        matches!(
            key.to_ascii_lowercase().as_str(),
            "env" | "project_env" | "projectenv" | "environment"
        )
    })
}

fn find_string(body: &Value, is_key: &dyn Fn(&str) -> bool) -> Option<String> {
    match body {
        Value::Object(map) => {
            for (k, v) in map {
                if let (true, Value::String(s)) = (is_key(k), v) {
                    return Some(s.clone());
                }
            }
            map.values().find_map(|v| find_string(v, is_key))
        }
        Value::Array(items) => items.iter().find_map(|v| find_string(v, is_key)),
        _ => None,
    }
}

/// Whether `body` holds the string `want` anywhere (letter case aside).
pub fn holds_string(body: &Value, want: &str) -> bool {
    match body {
        Value::String(s) => s.eq_ignore_ascii_case(want),
        Value::Array(items) => items.iter().any(|i| holds_string(i, want)),
        Value::Object(map) => map.values().any(|i| holds_string(i, want)),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_token_wherever_it_is() {
        assert_eq!(issued_token(&json!({"token": "t1"})).as_deref(), Some("t1"));
        assert_eq!(
            issued_token(
                &json!({"status": true, "data": {"model": {"uuid": "m"}, "access_token": "t2"}})
            )
            .as_deref(),
            Some("t2")
        );
        assert_eq!(
            issued_token(&json!({"data": {"X-Auth-Token": "t3"}})).as_deref(),
            Some("t3")
        );
        assert_eq!(issued_token(&json!({"tokens": 3, "token": null})), None);
    }

    #[test]
    fn the_environment_wherever_it_is() {
        assert_eq!(
            environment(&json!({"data": {"env": "live"}})).as_deref(),
            Some("live")
        );
        assert_eq!(environment(&json!({"data": {}})), None);
    }
}
