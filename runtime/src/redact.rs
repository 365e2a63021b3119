//! What an answer may show of itself when printed: never a credential.
//!
//! A raw answer can hold anything the server sent: an issued token in an
//! undocumented body, a session cookie, a password echoed back. `Debug` of
//! [`RawResponse`](crate::RawResponse) and of the response enums is what
//! `panic!("{answer:?}")` and a log line print, so it shows the status, the
//! headers with the values of credential headers replaced, the body's size
//! and the *shape* of a JSON body (its keys and the types of its values),
//! never a value of the body: a secret can sit under any key (`data.t`), and
//! only the spec knows which fields are secrets, which an undocumented or
//! mismatched body has left. The bytes stay in `raw.body`, read on purpose.

use std::fmt::{self, Write};

use serde_json::Value;

/// What stands for a value that is not printed.
pub const REDACTED: &str = "[redacted]";

/// Whether the header `name` (any letter case) carries a credential: the
/// interface's own (`X-Client-Secret`, `X-Auth-Token`), HTTP's
/// (`Authorization`, `Proxy-Authorization`, `Cookie`, `Set-Cookie`), and any
/// whose name says it holds a token, a secret, a key, a password, a session
/// or a signature.
pub fn is_secret_header(name: &str) -> bool {
    let name = name.to_ascii_lowercase();
    matches!(
        name.as_str(),
        "authorization" | "proxy-authorization" | "cookie" | "set-cookie"
    ) || [
        "token",
        "secret",
        "auth",
        "key",
        "password",
        "passwd",
        "session",
        "signature",
        "credential",
    ]
    .iter()
    .any(|word| name.contains(word))
}

/// Headers as `{"name": "value", ...}`, the value of each credential header
/// ([`is_secret_header`]) and of each that is not text written
/// `[redacted]`.
#[cfg(feature = "client")]
pub(crate) fn headers(headers: &reqwest::header::HeaderMap) -> impl fmt::Debug + '_ {
    struct Headers<'a>(&'a reqwest::header::HeaderMap);
    impl fmt::Debug for Headers<'_> {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            let mut map = f.debug_map();
            for (name, value) in self.0 {
                let shown = match value.to_str() {
                    Ok(text) if !is_secret_header(name.as_str()) && !value.is_sensitive() => text,
                    _ => REDACTED,
                };
                map.entry(&name.as_str(), &shown);
            }
            map.finish()
        }
    }
    Headers(headers)
}

/// A URL's text with the password of its user information written
/// `[redacted]` (`https://user:[redacted]@host/`), as it was given or
/// parsed, even when it does not parse.
pub fn url_text(url: &str) -> String {
    let Some(scheme_end) = url.find("://") else {
        return url.to_owned();
    };
    let authority_start = scheme_end + 3;
    let authority_end = url[authority_start..]
        .find(['/', '?', '#'])
        .map_or(url.len(), |i| authority_start + i);
    let authority = &url[authority_start..authority_end];
    let Some(at) = authority.rfind('@') else {
        return url.to_owned();
    };
    let user_info = &authority[..at];
    let user = user_info.split(':').next().unwrap_or_default();
    let password = if user_info.contains(':') {
        format!(":{REDACTED}")
    } else {
        String::new()
    };
    format!(
        "{}{user}{password}{}",
        &url[..authority_start],
        &url[authority_start + at..]
    )
}

/// A body described without its values: `42 bytes, JSON {"status": bool,
/// "data": {"token": string}}`, or `42 bytes, not JSON`, or `empty`.
pub fn body(bytes: &[u8]) -> String {
    if bytes.is_empty() {
        return "empty".to_owned();
    }
    match crate::json::parse(bytes) {
        Some(value) => {
            let mut out = format!("{} bytes, JSON ", bytes.len());
            shape(&value, &mut out, 0);
            out
        }
        None => format!("{} bytes, not JSON", bytes.len()),
    }
}

/// Keys listed per object, at most; the rest are counted.
const MAX_KEYS: usize = 16;
/// Levels shown; deeper ones are `…`.
const MAX_LEVELS: usize = 6;

/// The shape of `value`: objects with their keys (Debug-quoted, so that no
/// key can forge the layout), arrays by their first item's shape and their
/// length, every scalar by its type alone.
fn shape(value: &Value, out: &mut String, level: usize) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(_) => out.push_str("bool"),
        Value::Number(_) => out.push_str("number"),
        Value::String(_) => out.push_str("string"),
        Value::Array(items) => match items.first() {
            None => out.push_str("[]"),
            Some(_) if level >= MAX_LEVELS => out.push_str("[…]"),
            Some(first) => {
                out.push('[');
                shape(first, out, level + 1);
                let _ = write!(out, "; {}]", items.len());
            }
        },
        Value::Object(map) if map.is_empty() => out.push_str("{}"),
        Value::Object(_) if level >= MAX_LEVELS => out.push_str("{…}"),
        Value::Object(map) => {
            out.push('{');
            for (i, (key, value)) in map.iter().take(MAX_KEYS).enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                let _ = write!(out, "{key:?}: ");
                shape(value, out, level + 1);
            }
            if map.len() > MAX_KEYS {
                let _ = write!(out, ", … {} more", map.len() - MAX_KEYS);
            }
            out.push('}');
        }
    }
}

/// serde's message for a body that does not match, without the values it
/// quotes (`invalid type: string "tok_…", expected i64` names the value
/// itself): each `"…"` and `` `…` `` of the message that is not a key the
/// schema names is written `[redacted]`, so that the message still says
/// what was wrong and where (`missing field `code``, `line 1 column 80`).
pub fn serde_message(message: &str) -> String {
    // serde names a schema's own field (`missing field`, `unknown field`,
    // `duplicate field`) and its expected variants in backticks; the value
    // that came is quoted after `string ` or, for a variant, in the
    // backticks after `unknown variant `.
    let mut out = String::with_capacity(message.len());
    let mut rest = message;
    while let Some(start) = rest.find(['"', '`']) {
        let quote = rest[start..].chars().next().unwrap_or('"');
        let before = &rest[..start];
        out.push_str(before);
        let after = &rest[start + 1..];
        let Some(end) = closing(after, quote) else {
            // An unclosed quote: nothing after it is shown.
            out.push_str(REDACTED);
            return out;
        };
        let keep = quote == '`' && !out.ends_with("unknown variant ");
        if keep {
            out.push('`');
            out.push_str(&after[..end]);
            out.push('`');
        } else {
            out.push_str(REDACTED);
        }
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    out
}

/// Where the quote closing a quoted text ends: `"` escapes with `\`.
fn closing(text: &str, quote: char) -> Option<usize> {
    let mut escaped = false;
    for (i, c) in text.char_indices() {
        match c {
            '\\' if quote == '"' && !escaped => escaped = true,
            c if c == quote && !escaped => return Some(i),
            _ => escaped = false,
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_body_shows_its_shape_and_no_value() {
        let text = body(br#"{"status":true,"data":{"token":"tok_1","n":[1,2]},"k":null}"#);
        assert_eq!(
            text,
            r#"59 bytes, JSON {"status": bool, "data": {"token": string, "n": [number; 2]}, "k": null}"#
        );
        assert_eq!(body(b"tok_1 in text"), "13 bytes, not JSON");
        assert_eq!(body(b""), "empty");
    }

    #[test]
    fn serde_messages_lose_their_values_and_keep_their_fields() {
        for (message, shown) in [
            (
                r#"invalid type: string "tok_\"1", expected i64 at line 1 column 9"#,
                "invalid type: string [redacted], expected i64 at line 1 column 9",
            ),
            (
                "unknown variant `tok_1`, expected `dev` or `live`",
                "unknown variant [redacted], expected `dev` or `live`",
            ),
            ("missing field `code`", "missing field `code`"),
            ("invalid value: string \"tok_1", "invalid value: string [redacted]"),
        ] {
            assert_eq!(serde_message(message), shown);
        }
    }

    #[test]
    fn a_url_loses_its_password() {
        assert_eq!(
            url_text("http://u:hunter2@127.0.0.1:9/v2?x=1"),
            "http://u:[redacted]@127.0.0.1:9/v2?x=1"
        );
        assert_eq!(url_text("http://u:p@ss@h/"), "http://u:[redacted]@h/");
        assert_eq!(url_text("http://h/a@b"), "http://h/a@b");
        assert_eq!(url_text("not a url"), "not a url");
    }

    #[test]
    fn credential_headers_are_known() {
        for name in [
            "X-Auth-Token",
            "x-client-secret",
            "Authorization",
            "Cookie",
            "set-cookie",
            "X-Api-Key",
        ] {
            assert!(is_secret_header(name), "{name}");
        }
        for name in ["content-type", "x-project-uuid", "retry-after"] {
            assert!(!is_secret_header(name), "{name}");
        }
    }
}
