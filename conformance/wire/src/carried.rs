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

/// Whether `key` is one of [`TOKEN_KEYS`] (without case, `_` or `-`),
/// decided without allocating.
fn is_token_key(key: &str) -> bool {
    TOKEN_KEYS.iter().any(|want| {
        key.chars()
            .filter(|c| !matches!(c, '_' | '-'))
            .flat_map(char::to_lowercase)
            .eq(want.chars())
    })
}

/// [`issued_token`] of the JSON text `bytes`, read as a stream: no tree of
/// the body is built (a 900 KiB answer of small objects is tens of
/// megabytes as one), and only the string found is kept. `None` when the
/// text is not JSON. A body nested past serde_json's limit is read as a
/// tree, as before.
pub fn issued_token_in(bytes: &[u8]) -> Option<String> {
    use serde::de::DeserializeSeed as _;
    let mut de = serde_json::Deserializer::from_slice(bytes);
    match (Find { want_string: false }).deserialize(&mut de) {
        Ok(found) => {
            de.end().ok()?;
            found.nested
        }
        Err(e) if e.to_string().starts_with("recursion limit exceeded") => {
            component_auth_bindings::json::parse(bytes).and_then(|b| issued_token(&b))
        }
        Err(_) => None,
    }
}

/// What one value holds for [`issued_token_in`]: itself, if it is a string
/// its parent asked for; the first token found inside it.
struct Found {
    string: Option<String>,
    nested: Option<String>,
}

/// Reads one value; keeps it if it is a string and `want_string`.
struct Find {
    want_string: bool,
}

impl<'de> serde::de::DeserializeSeed<'de> for Find {
    type Value = Found;

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Found, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> serde::de::Visitor<'de> for Find {
    type Value = Found;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, _: bool) -> Result<Found, E> {
        Ok(Found::NOTHING)
    }

    fn visit_i64<E>(self, _: i64) -> Result<Found, E> {
        Ok(Found::NOTHING)
    }

    fn visit_u64<E>(self, _: u64) -> Result<Found, E> {
        Ok(Found::NOTHING)
    }

    fn visit_f64<E>(self, _: f64) -> Result<Found, E> {
        Ok(Found::NOTHING)
    }

    fn visit_unit<E>(self) -> Result<Found, E> {
        Ok(Found::NOTHING)
    }

    fn visit_str<E>(self, v: &str) -> Result<Found, E> {
        Ok(Found {
            string: self.want_string.then(|| v.to_owned()),
            nested: None,
        })
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Found, A::Error> {
        let mut nested = None;
        while let Some(found) = seq.next_element_seed(Find { want_string: false })? {
            if nested.is_none() {
                nested = found.nested;
            }
        }
        Ok(Found {
            string: None,
            nested,
        })
    }

    /// A member of its own under a token key wins; else the first found
    /// inside its members, in order (as [`issued_token`] on the tree).
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Found, A::Error> {
        let mut direct: Option<String> = None;
        let mut nested: Option<String> = None;
        while let Some(is_key) = map.next_key_seed(TokenKey)? {
            if direct.is_some() || (nested.is_some() && !is_key) {
                map.next_value::<serde::de::IgnoredAny>()?;
                continue;
            }
            let found = map.next_value_seed(Find {
                want_string: is_key,
            })?;
            if found.string.is_some() {
                direct = found.string;
            } else if nested.is_none() {
                nested = found.nested;
            }
        }
        Ok(Found {
            string: None,
            nested: direct.or(nested),
        })
    }
}

impl Found {
    const NOTHING: Found = Found {
        string: None,
        nested: None,
    };
}

/// A key, read as whether it is a token key.
struct TokenKey;

impl<'de> serde::de::DeserializeSeed<'de> for TokenKey {
    type Value = bool;

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<bool, D::Error> {
        d.deserialize_str(self)
    }
}

impl serde::de::Visitor<'_> for TokenKey {
    type Value = bool;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a key")
    }

    fn visit_str<E>(self, v: &str) -> Result<bool, E> {
        Ok(is_token_key(v))
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

    /// The stream finds what the tree finds, in the same order: a member
    /// of its own before one inside an earlier member, arrays in order.
    #[test]
    fn the_stream_finds_what_the_tree_finds() {
        for body in [
            json!({"token": "t1"}),
            json!({"status": true, "data": {"model": {"uuid": "m"}, "access_token": "t2"}}),
            json!({"data": {"X-Auth-Token": "t3"}}),
            json!({"tokens": 3, "token": null}),
            json!({"a": {"token": "inner"}, "Token": "outer"}),
            json!({"a": [{"b": 1}, {"auth_token": "in-array"}], "c": {"token": "later"}}),
            json!({"token": 7, "x": {"token": "nested"}}),
            json!([{"a": "b"}, {"ACCESS-TOKEN": "second"}]),
            json!("token"),
            json!({"padding": (0..200).map(|i| json!({"k": i, "v": "x"})).collect::<Vec<_>>(), "data": {"token": "deep"}}),
        ] {
            let text = serde_json::to_vec(&body).expect("json");
            assert_eq!(issued_token_in(&text), issued_token(&body), "{body}");
        }
        assert_eq!(issued_token_in(b"{\"token\": \"t\"} x"), None);
        // Within serde_json's nesting limit, and past it (where the tree
        // keeps 100 levels, and so does the stream's fallback).
        for levels in [110, 200] {
            let deep = format!(
                "{}{{\"token\": \"deep\"}}{}",
                "[".repeat(levels),
                "]".repeat(levels)
            );
            let tree = component_auth_bindings::json::parse(deep.as_bytes());
            assert_eq!(
                issued_token_in(deep.as_bytes()),
                tree.and_then(|b| issued_token(&b)),
                "{levels}"
            );
        }
        let within = format!(
            "{}{{\"token\": \"deep\"}}{}",
            "[".repeat(110),
            "]".repeat(110)
        );
        assert_eq!(issued_token_in(within.as_bytes()).as_deref(), Some("deep"));
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
