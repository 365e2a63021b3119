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

#[cfg(feature = "client")]
use std::fmt;
use std::fmt::Write;

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
/// `[redacted]` (`https://user:[redacted]@host/`). A text that does not
/// parse as a URL, or parses without a password but holds `user:…@` before
/// any `?` or `#` (`http://u:8080/x@host/` reads as port 8080 and a path, yet
/// was meant as a password with a `/`), loses everything between its `://`
/// and its last such `@` but the user name: a URL with a port and an `@` in
/// its path is over-redacted rather than a password shown.
#[cfg(feature = "client")]
pub fn url_text(url: &str) -> String {
    if let Ok(parsed) = reqwest::Url::parse(url) {
        let text = parsed.as_str();
        if let Some(password) = parsed.password() {
            let user = format!("://{}:", parsed.username());
            let written = format!("{user}{password}@");
            return text.replacen(&written, &format!("{user}{REDACTED}@"), 1);
        }
        return textual_user_info(url).unwrap_or_else(|| text.to_owned());
    }
    textual_user_info(url).unwrap_or_else(|| url.to_owned())
}

/// `url` with what reads as `user:password@` after its `://` redacted, by
/// text alone; `None` where nothing reads so.
#[cfg(feature = "client")]
fn textual_user_info(url: &str) -> Option<String> {
    let start = url.find("://")? + 3;
    let end = url[start..]
        .find(['?', '#'])
        .map_or(url.len(), |i| start + i);
    let at = url[start..end].rfind('@')?;
    let (user, _) = url[start..start + at].split_once(':')?;
    Some(format!(
        "{}{user}:{REDACTED}{}",
        &url[..start],
        &url[start + at..]
    ))
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
/// itself, and a type's own error may say anything): what kind of value
/// came, what was expected, which field is missing, and where, rebuilt from
/// the parts of the message that come from the schema.
pub fn serde_error(error: &serde_json::Error) -> String {
    use serde_json::error::Category;
    let message = error.to_string();
    let at = format!(" at line {} column {}", error.line(), error.column());
    let message = message.strip_suffix(&at).unwrap_or(&message);
    let said = match error.classify() {
        // The parser's own words: about the bytes' syntax, never a value.
        Category::Syntax | Category::Eof | Category::Io => message.to_owned(),
        Category::Data => data_message(message),
    };
    if error.line() == 0 {
        said
    } else {
        format!("{said}{at}")
    }
}

/// A data error's message without the value that came.
fn data_message(message: &str) -> String {
    // What the schema expected: the text after the last `, expected `
    // (the value that came is written before it).
    let expected = message
        .rfind(", expected ")
        .map(|i| &message[i..])
        .unwrap_or_default();
    for field in ["missing field `", "duplicate field `"] {
        if let Some(rest) = message.strip_prefix(field)
            && let Some(end) = rest.find('`')
        {
            return format!("{field}{}`", &rest[..end]);
        }
    }
    for kind in ["invalid type: ", "invalid value: ", "invalid length "] {
        if let Some(rest) = message.strip_prefix(kind) {
            // `string "…"`, `integer `…``, `map`: the kind's words alone.
            let words: String = rest
                .chars()
                .take_while(|c| c.is_ascii_alphabetic() || *c == ' ')
                .collect();
            return format!("{kind}{}{expected}", words.trim_end());
        }
    }
    if message.starts_with("unknown variant ") {
        return format!("unknown variant{expected}");
    }
    "a value that its type does not accept".to_owned()
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
        #[derive(Debug, serde::Deserialize)]
        #[allow(dead_code)]
        struct Body {
            code: i64,
            env: Env,
            pin: Option<u8>,
        }
        #[derive(Debug, serde::Deserialize)]
        enum Env {
            #[serde(rename = "dev")]
            Dev,
        }
        for (body, shown) in [
            (
                r#"{"code":"tok_`1\", expected x"}"#,
                "invalid type: string, expected i64 at line 1 column 30",
            ),
            (
                r#"{"code":1,"env":"tok_1"}"#,
                "unknown variant, expected `dev` at line 1 column 23",
            ),
            (
                r#"{"code":1,"env":"dev","pin":4321}"#,
                "invalid value: integer, expected u8 at line 1 column 32",
            ),
            (
                r#"{"env":"dev"}"#,
                "missing field `code` at line 1 column 13",
            ),
            (
                r#"{"code":1,"#,
                "EOF while parsing a value at line 1 column 10",
            ),
        ] {
            let error = serde_json::from_str::<Body>(body).unwrap_err();
            assert_eq!(serde_error(&error), shown, "{error}");
        }
    }

    #[cfg(feature = "client")]
    #[test]
    fn a_url_loses_its_password() {
        assert_eq!(
            url_text("http://u:hunter2@127.0.0.1:9/v2?x=1"),
            "http://u:[redacted]@127.0.0.1:9/v2?x=1"
        );
        assert_eq!(url_text("http://u:p/ss@h/"), "http://u:[redacted]@h/");
        assert_eq!(url_text("http://u:p@ a/"), "http://u:[redacted]@ a/");
        assert_eq!(url_text("http://h/a@b"), "http://h/a@b");
        // Digits then a `/`: a valid URL with a port and a path, by its
        // parse; the password is still never shown.
        assert_eq!(
            url_text("http://u:8080/ss@h/v2"),
            "http://u:[redacted]@h/v2"
        );
        assert_eq!(url_text("http://h:8080/a@b"), "http://h:[redacted]@b");
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
