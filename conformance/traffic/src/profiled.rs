//! The server judged from what the profile knows: its client's
//! credentials, each component's names, tokens and models, and the
//! settings a body must keep. Where the profile shows a request valid, a
//! refusal of it breaks the sentence that makes it valid (a known ref
//! answered 404, `live` refused, a token demanded where none is required);
//! where it shows a credential wrong (another component's token, the
//! client's secret spelt otherwise), serving it does.
//!
//! Only what one exchange and the profile settle: a credential the profile
//! does not know (another client, a token issued later) is not judged.

use std::borrow::Cow;

use crate::knowledge::{Component, Knows, Place};
use crate::observed::{Answer, Request, values};
use crate::rules::{self, Finding, Side};

/// What the profile shows of one request.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Assessment {
    /// Valid by everything the profile knows: its client's id and secret,
    /// a ref naming a known component, that component's token where it
    /// requires one (none sent where it does not), `dev`, `live` or no
    /// environment, and for Authorize one of the component's models and a
    /// body that keeps every declared setting. Why, where it is.
    pub valid: Option<String>,
    /// The client's secret with another id, or its id with another secret
    /// (by the profile, one pair): what is wrong.
    pub wrong_secret: Option<String>,
    /// Another known component's token, or a near miss of this one's.
    pub wrong_token: Option<String>,
}

/// Statuses that refuse a request (a limit's 429, a size limit's 413, a
/// 417 for settings the profile may not declare, and a 5xx are not).
fn refusal(status: u16) -> bool {
    matches!(status, 400 | 401 | 403 | 404 | 406 | 409 | 415 | 422)
}

/// What `req` is, by the profile. `client`: what the request broke.
pub fn assess(req: &Request, client: &[Finding], knows: &dyn Knows) -> Assessment {
    let mut out = Assessment::default();
    if client.iter().any(|f| f.rule.side == Side::Client) {
        return out;
    }
    let Some(credentials) = knows.credentials() else {
        return out;
    };
    let Some(reference) = req.reference() else {
        return out;
    };
    let (Some(id), Some(secret)) = (single(req, "x-client-id"), single(req, "x-client-secret"))
    else {
        return out;
    };
    let component = knows.component(&reference);
    let token = single(req, "x-auth-token");
    match (
        id == credentials.client_id,
        secret == credentials.client_secret,
    ) {
        (true, true) => {}
        (true, false) => {
            out.wrong_secret = Some("the profile's client id with another X-Client-Secret".into());
            return out;
        }
        (false, true) => {
            out.wrong_secret = Some("the profile's client secret with another X-Client-Id".into());
            return out;
        }
        (false, false) => return out,
    }
    let Some(component) = component else {
        return out;
    };
    if let Some(token) = token.as_deref() {
        if component.requires_auth && !component.tokens.iter().any(|t| t == token) {
            out.wrong_token = wrong_token(token, &component, &reference, knows);
            if out.wrong_token.is_some() {
                return out;
            }
        }
    }
    out.valid = valid(req, &reference, &component, token.as_deref(), knows);
    out
}

/// Why `req` is valid by the profile, where it is.
fn valid(
    req: &Request,
    reference: &str,
    component: &Component,
    token: Option<&str>,
    knows: &dyn Knows,
) -> Option<String> {
    let mut why = vec![format!(
        "ref `{}` names a known component",
        shown(reference)
    )];
    match (component.requires_auth, token) {
        (true, Some(t)) if component.tokens.iter().any(|k| k == t) => {
            why.push("its token".into());
        }
        (false, None) => why.push("no token, which it does not require".into()),
        _ => return None,
    }
    if let Some(env) = values(&req.headers, "x-project-env").next() {
        why.push(format!("X-Project-Env `{}`", String::from_utf8_lossy(env)));
    }
    match req.method.as_str() {
        // Whether a GET's body is read is a server's choice: none, or one
        // known to claim one of its models, is valid either way.
        "GET" if !req.body_cut => {
            if !req.body.iter().all(u8::is_ascii_whitespace)
                && (duplicate_keys(&req.body)
                    || !serde_json::from_slice::<serde_json::Value>(&req.body)
                        .is_ok_and(|b| component.authorizations.iter().any(|a| a.body == b)))
            {
                return None;
            }
        }
        "POST" if !req.body_cut => {
            let model = match &*knows.model_uuid_at() {
                Place::Query(name) => req.query(name).into_iter().next(),
                Place::Header(name) => single(req, name),
                Place::Body(name) => serde_json::from_slice::<serde_json::Value>(&req.body)
                    .ok()
                    .and_then(|b| b.get(name).and_then(|v| v.as_str()).map(str::to_owned)),
            }?;
            if duplicate_keys(&req.body) {
                return None;
            }
            let mut body = serde_json::from_slice::<serde_json::Value>(&req.body).ok()?;
            if let (Place::Body(name), Some(map)) = (&*knows.model_uuid_at(), body.as_object_mut())
            {
                map.remove(name);
            }
            // Only a body known to claim the model: the fields are the
            // component's credentials, which a server may refuse as wrong.
            if !component
                .authorizations
                .iter()
                .any(|a| a.model_uuid == model && a.body == body)
            {
                return None;
            }
            why.push("one of its models with the body known to claim it".into());
        }
        _ => return None,
    }
    Some(why.join(", "))
}

/// Why `token` is wrong for the component `reference` names, where the
/// profile shows it.
fn wrong_token(
    token: &str,
    component: &Component,
    reference: &str,
    knows: &dyn Knows,
) -> Option<String> {
    if let Some(owner) = knows.token_owner(token) {
        return Some(format!(
            "a token of component `{}`, sent for `{}`",
            shown(&owner),
            shown(reference)
        ));
    }
    component
        .tokens
        .iter()
        .find(|known| {
            token.eq_ignore_ascii_case(known)
                || (token.len() > known.len() && token.starts_with(known.as_str()))
                || (token.len() < known.len() && !token.is_empty() && known.starts_with(token))
        })
        .map(|_| {
            "a near miss of the component's token (cut, extended or in another letter case)".into()
        })
}

/// Whether the body's object names a key twice (read as one value by
/// some parsers, refused by others).
fn duplicate_keys(body: &[u8]) -> bool {
    struct Keys;
    impl<'de> serde::de::Visitor<'de> for Keys {
        type Value = bool;
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("a JSON object")
        }
        fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<bool, A::Error> {
            let mut seen = std::collections::BTreeSet::new();
            let mut twice = false;
            while let Some(key) = map.next_key::<String>()? {
                map.next_value::<serde::de::IgnoredAny>()?;
                twice |= !seen.insert(key);
            }
            Ok(twice)
        }
    }
    let mut de = serde_json::Deserializer::from_slice(body);
    serde::Deserializer::deserialize_map(&mut de, Keys).unwrap_or(true)
}

/// The one value of header `name`; `None` where absent, empty or repeated.
fn single(req: &Request, name: &str) -> Option<String> {
    let mut all = values(&req.headers, name);
    let first = all.next()?;
    if all.next().is_some() || first.is_empty() {
        return None;
    }
    std::str::from_utf8(first).ok().map(str::to_owned)
}

fn shown(s: &str) -> String {
    crate::tally::cut(&s.escape_debug().to_string(), 64)
}

/// Every rule of the profile's the answer breaks.
pub fn judge(req: &Request, answer: &Answer, seen: &Assessment) -> Vec<Finding> {
    let status = answer.status;
    let mut out = Vec::new();
    if let Some(why) = &seen.valid {
        if refusal(status) {
            let env = values(&req.headers, "x-project-env").next().is_some();
            let token = values(&req.headers, "x-auth-token").next().is_some();
            let rule = match status {
                404 => &rules::RESOLVES_REFS,
                401 | 403 if !token => &rules::TOKEN_ONLY_WHERE_REQUIRED,
                _ if env => &rules::SERVES_ENVIRONMENTS,
                _ => &rules::SERVES_VALID,
            };
            out.push(Finding::new(
                rule,
                format!("HTTP {status} to a request the profile shows valid ({why})"),
            ));
        }
    }
    if (200..300).contains(&status) {
        if let Some(why) = &seen.wrong_secret {
            out.push(Finding::new(
                &rules::WRONG_SECRET,
                format!("HTTP {status} to {why}"),
            ));
        }
        if let Some(why) = &seen.wrong_token {
            out.push(Finding::new(
                &rules::WRONG_TOKEN,
                format!("HTTP {status} to {why}"),
            ));
        }
    }
    out
}

/// The credentials the profile's client holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Credentials {
    pub client_id: String,
    pub client_secret: String,
}

/// A [`Cow`] of what [`Knows::credentials`] lends.
pub type Lent<'a> = Cow<'a, Credentials>;
