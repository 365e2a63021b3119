//! The leaf values of a profile's keys, read with `${VAR}` expanded and
//! checked as they are read: a message names what is wrong with the
//! value's form, never the value when it may be a secret.

use component_auth_bindings::types::{AuthFields, ProjectEnv};
use serde::Deserialize;

use crate::expand::{expand, plain, read_text, refuse, shown};

/// A string with `${VAR}` expanded.
pub(super) struct Text(pub(super) String);

impl<'de> Deserialize<'de> for Text {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        read_text(d).map(|(_, value)| Text(value))
    }
}

/// A [`Text`] that names or places something (`name`, `tag`): not a secret
/// when read from the environment.
pub(super) struct Plain(pub(super) String);

impl<'de> Deserialize<'de> for Plain {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        plain(|| read_text(d)).map(|(_, value)| Plain(value))
    }
}

/// A string with `${VAR}` expanded that must not be empty (a secret: an
/// empty one would be sent as no credential at all).
pub(super) struct NonEmpty(pub(super) String);

impl<'de> Deserialize<'de> for NonEmpty {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let Text(value) = Text::deserialize(d)?;
        if value.is_empty() {
            Err(refuse("must not be empty".to_owned()))
        } else {
            Ok(NonEmpty(value))
        }
    }
}

/// A uuid in its canonical text form (8-4-4-4-12 hex digits).
pub(super) struct Uuid(pub(super) String);

impl<'de> Deserialize<'de> for Uuid {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let (raw, value) = plain(|| read_text(d))?;
        if is_uuid(&value) {
            Ok(Uuid(value))
        } else {
            Err(refuse(format!(
                "{} is not a uuid (8-4-4-4-12 hex digits): {}",
                shown(&raw, &value),
                uuid_form(&value)
            )))
        }
    }
}

/// What is wrong with the form of `value` as a uuid, without repeating it.
pub(super) fn uuid_form(value: &str) -> String {
    let count = value.chars().count();
    if count != 36 {
        return format!("it has {count} characters, not 36");
    }
    for (i, c) in value.chars().enumerate() {
        let hyphen = matches!(i, 8 | 13 | 18 | 23);
        if hyphen && c != '-' {
            return format!("character {} is not `-`", i + 1);
        }
        if !hyphen && !c.is_ascii_hexdigit() {
            return format!("character {} is not a hex digit", i + 1);
        }
    }
    "it is not in the hyphenated form".to_owned()
}

/// `true` when `s` is a uuid in canonical text form (any letter case).
pub fn is_uuid(s: &str) -> bool {
    // 36 characters: of the forms `uuid` parses, only the hyphenated one.
    s.len() == 36 && uuid::Uuid::try_parse(s).is_ok()
}

pub(super) struct BaseUrl(pub(super) String);

impl<'de> Deserialize<'de> for BaseUrl {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let first_read = crate::expand::read_so_far();
        let (raw, value) = plain(|| read_text(d))?;
        let trimmed = value.trim_end_matches('/');
        // Shown with any password hidden, and as `${VAR}` when read from one.
        let shown = if raw.contains("${") {
            format!("the value of `{}`", without_password(&raw))
        } else {
            format!("`{}`", without_password(&value))
        };
        let url = match reqwest::Url::parse(trimmed) {
            Ok(url) if matches!(url.scheme(), "http" | "https") && url.host().is_some() => url,
            Ok(_) => {
                return Err(refuse(format!(
                    "{shown} is not an http:// or https:// URL with a host"
                )));
            }
            Err(e) => {
                return Err(refuse(format!(
                    "{shown} is not an http:// or https:// URL ({e})"
                )));
            }
        };
        // A variable that gave the password, or part of it, holds a secret.
        if let Some(password) = url.password() {
            let decoded = percent_encoding::percent_decode_str(password).decode_utf8_lossy();
            crate::expand::secret_since(first_read, |value| {
                !value.is_empty()
                    && (password.contains(value)
                        || decoded.contains(value)
                        || value.contains(password))
            });
            crate::expand::reserved_secret_since(first_read).map_err(refuse)?;
        }
        let problem = if url.path().contains('@') {
            // `http://user:12/ss@host` parses as the host `user`, port 12,
            // path `/ss@host`: a password holding `/` written literally.
            Some(
                "has an `@` after its host: a password in the URL must be percent-encoded (`/` as %2F, `?` as %3F, `#` as %23, `@` as %40), or better, given as ${VAR}",
            )
        } else if url.path().ends_with("/v2/api") {
            Some("ends with /v2/api; give the scheme and host only, the runner adds /v2/api")
        } else if url.query().is_some() {
            Some(
                "has a query (`?…`), which would stand between the path prefix and /v2/api; give the scheme and host only",
            )
        } else if url.fragment().is_some() {
            Some("has a fragment (`#…`), which is never sent; give the scheme and host only")
        } else {
            None
        };
        match problem {
            Some(problem) => Err(refuse(format!("{shown} {problem}"))),
            None => Ok(BaseUrl(trimmed.to_owned())),
        }
    }
}

/// `text` (a URL, perhaps one that does not parse, with or without its
/// scheme) as a message may show it: the password of its user information
/// `[redacted]` whatever characters it holds, and its query and fragment
/// `…`. A password may hold `/`, `?`, `#` or `@` written literally (a
/// parser then ends the authority early and finds no password), so what
/// is hidden is everything from the first `:` after the scheme's `//` to
/// the *last* `@` of the text; a URL with a port and an `@` further on
/// loses more than its password, never less.
pub(super) fn without_password(text: &str) -> String {
    let start = text.find("://").map_or(0, |i| i + 3);
    let rest = &text[start..];
    let mut shown = text.to_owned();
    if let Some(at) = rest.rfind('@') {
        if let Some(colon) = rest[..at].find(':') {
            shown = format!(
                "{}{}:[redacted]{}",
                &text[..start],
                &rest[..colon],
                &rest[at..]
            );
        }
    }
    // A query's values may be credentials (`?api_key=...`): none shown.
    match shown.find(['?', '#']) {
        Some(i) => format!("{}{}…", &shown[..i], &shown[i..=i]),
        None => shown,
    }
}

pub(super) struct Env(pub(super) ProjectEnv);

impl<'de> Deserialize<'de> for Env {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let (raw, value) = plain(|| read_text(d))?;
        value.parse::<ProjectEnv>().map(Env).map_err(|_| {
            refuse(format!(
                "{} is not one of: {}",
                shown(&raw, &value),
                ProjectEnv::ALL
                    .iter()
                    .map(|e| e.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ))
        })
    }
}

/// A JSON object written in YAML, with `${VAR}` expanded in its strings.
pub(super) struct Body(pub(super) AuthFields);

impl<'de> Deserialize<'de> for Body {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let mut value = serde_json::Value::deserialize(d)?;
        expand_json(&mut value).map_err(refuse)?;
        // Its values may be credentials: only their kind is named.
        let kind = match value {
            serde_json::Value::Object(map) => {
                use crate::limits::{BODY_BYTES, FIELDS_PER_COMPONENT, over};
                if map.len() > FIELDS_PER_COMPONENT {
                    return Err(refuse(over(
                        "the number of the body's fields",
                        map.len(),
                        FIELDS_PER_COMPONENT,
                    )));
                }
                let bytes = serde_json::to_string(&map).map_or(0, |t| t.len());
                if bytes > BODY_BYTES {
                    return Err(refuse(over(
                        "the body's length as JSON, in bytes,",
                        bytes,
                        BODY_BYTES,
                    )));
                }
                return Ok(Body(map));
            }
            serde_json::Value::Null => "null",
            serde_json::Value::Bool(_) => "a boolean",
            serde_json::Value::Number(_) => "a number",
            serde_json::Value::String(_) => "a string",
            serde_json::Value::Array(_) => "a list",
        };
        Err(refuse(format!(
            "a body must be a mapping of field names to values, not {kind}"
        )))
    }
}

/// Expands `${VAR}` in every string of a body. A string that is exactly
/// `${VAR:json}` becomes the JSON value the variable holds (`1234`, `true`,
/// `"text"`): a secret that is a number, such as a PIN, can come from the
/// environment too.
pub(super) fn expand_json(value: &mut serde_json::Value) -> Result<(), String> {
    match value {
        serde_json::Value::String(s) => {
            if let Some(name) = s.strip_prefix("${").and_then(|r| r.strip_suffix(":json}")) {
                let placeholder = format!("${{{name}}}");
                let text = expand(&placeholder)?;
                *value = serde_json::from_str(&text).map_err(|e| {
                    format!(
                        "the environment variable `{name}` does not hold a JSON value ({e}); use `${{{name}}}` for text"
                    )
                })?;
                return Ok(());
            }
            *s = expand(s)?;
        }
        serde_json::Value::Array(items) => {
            for item in items {
                expand_json(item)?;
            }
        }
        serde_json::Value::Object(map) => {
            for item in map.values_mut() {
                expand_json(item)?;
            }
        }
        _ => {}
    }
    Ok(())
}
