//! Credentials from a spec's `securitySchemes`, applied to a request: API
//! keys (in a header, the query or a cookie), HTTP bearer and basic. Each
//! value is a [`Secret`]: headers that carry one are marked sensitive, so
//! no `Debug` of the request prints it.

use reqwest::header::{AUTHORIZATION, COOKIE, HeaderMap, HeaderValue};

use crate::error::Error;
use crate::secret::Secret;

/// A user name and password for HTTP basic authentication.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Basic {
    pub username: String,
    pub password: Secret,
}

impl Basic {
    pub fn new(username: impl Into<String>, password: impl Into<Secret>) -> Self {
        Self {
            username: username.into(),
            password: password.into(),
        }
    }
}

fn sensitive(value: &str, name: &str) -> Result<HeaderValue, Error> {
    let mut value = HeaderValue::from_str(value).map_err(|_| Error::InvalidHeader {
        name: name.to_owned(),
    })?;
    value.set_sensitive(true);
    Ok(value)
}

/// `Authorization: Bearer TOKEN`.
pub fn set_bearer(headers: &mut HeaderMap, token: &Secret) -> Result<(), Error> {
    let value = sensitive(
        &format!("Bearer {}", token.expose()),
        AUTHORIZATION.as_str(),
    )?;
    headers.insert(AUTHORIZATION, value);
    Ok(())
}

/// `Authorization: Basic BASE64(user:password)`.
pub fn set_basic(headers: &mut HeaderMap, basic: &Basic) -> Result<(), Error> {
    use base64::Engine;
    let pair = format!("{}:{}", basic.username, basic.password.expose());
    let encoded = base64::engine::general_purpose::STANDARD.encode(pair);
    let value = sensitive(&format!("Basic {encoded}"), AUTHORIZATION.as_str())?;
    headers.insert(AUTHORIZATION, value);
    Ok(())
}

/// Adds `name=value` to the `Cookie` header (joined by `; ` to what is
/// there), marked sensitive; encoded as [`add_cookie_parameter`] says.
pub fn add_cookie(headers: &mut HeaderMap, name: &str, value: &Secret) -> Result<(), Error> {
    append_cookie(headers, name, value.expose(), true)
}

/// Adds the cookie parameter `name=value` to the `Cookie` header; a byte
/// a cookie value cannot hold (space, `;`, `,`, `"`, `\`, `%`, controls,
/// non-ASCII) is percent-encoded.
pub fn add_cookie_parameter(headers: &mut HeaderMap, name: &str, value: &str) -> Result<(), Error> {
    append_cookie(headers, name, value, false)
}

fn append_cookie(
    headers: &mut HeaderMap,
    name: &str,
    value: &str,
    secret: bool,
) -> Result<(), Error> {
    let mut encoded = String::with_capacity(value.len());
    for byte in value.bytes() {
        if byte.is_ascii_graphic() && !matches!(byte, b';' | b',' | b'"' | b'\\' | b'%') {
            encoded.push(char::from(byte));
        } else {
            encoded.push_str(&format!("%{byte:02X}"));
        }
    }
    let pair = format!("{name}={encoded}");
    let was_secret = headers.get(COOKIE).is_some_and(HeaderValue::is_sensitive);
    let joined = match headers.get(COOKIE).and_then(|v| v.to_str().ok()) {
        Some(existing) if !existing.is_empty() => format!("{existing}; {pair}"),
        _ => pair,
    };
    let mut value = HeaderValue::from_str(&joined).map_err(|_| Error::InvalidHeader {
        name: COOKIE.as_str().to_owned(),
    })?;
    value.set_sensitive(secret || was_secret);
    headers.insert(COOKIE, value);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_each_scheme_sensitively() {
        let mut headers = HeaderMap::new();
        set_basic(&mut headers, &Basic::new("Aladdin", "open sesame")).unwrap();
        assert_eq!(headers[AUTHORIZATION], "Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==");
        assert!(headers[AUTHORIZATION].is_sensitive());
        set_bearer(&mut headers, &Secret::new("t0k")).unwrap();
        assert_eq!(headers[AUTHORIZATION], "Bearer t0k");
        add_cookie(&mut headers, "a", &Secret::new("1")).unwrap();
        add_cookie(&mut headers, "b", &Secret::new("2")).unwrap();
        assert_eq!(headers[COOKIE], "a=1; b=2");
        assert!(headers[COOKIE].is_sensitive());
        add_cookie_parameter(&mut headers, "c", "x y;z").unwrap();
        assert_eq!(headers[COOKIE], "a=1; b=2; c=x%20y%3Bz");
        assert!(headers[COOKIE].is_sensitive(), "still holds secrets");
        assert!(!format!("{headers:?}").contains("t0k"));
    }
}
