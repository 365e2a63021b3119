//! What the description requires of a client, judged on one request.

use serde_json::Value;

use crate::knowledge::{Knows, Place};
use crate::observed::{Request, combined, first};
use crate::rules::{self, Finding};

/// Every rule `req` breaks. A request outside the interface's path breaks
/// `client/path` and nothing else is judged of it.
pub fn judge_request(req: &Request, knows: &dyn Knows) -> Vec<Finding> {
    let mut out = Vec::new();
    let op = match (req.method.as_str(), req.reference()) {
        ("GET", Some(r)) => ("GET", r),
        ("POST", Some(r)) => ("POST", r),
        (method, Some(_)) => {
            out.push(Finding::new(
                &rules::PATH,
                format!("{method} is neither Auth Claims (GET) nor Authorize (POST)"),
            ));
            return out;
        }
        (_, None) => {
            out.push(Finding::new(
                &rules::PATH,
                format!(
                    "`{}` is not /v2/api/component/{{ref}}/auth",
                    crate::tally::cut(req.path(), 80)
                ),
            ));
            return out;
        }
    };
    let (method, reference) = op;
    for (name, rule) in [
        ("X-Client-Id", &rules::CLIENT_ID),
        ("X-Client-Secret", &rules::CLIENT_SECRET),
    ] {
        if let Some(why) = missing(req, name) {
            out.push(Finding::new(rule, why));
        }
    }
    if let Some(env) = combined(&req.headers, "x-project-env") {
        if env != b"dev" && env != b"live" {
            out.push(Finding::new(
                &rules::PROJECT_ENV,
                format!(
                    "X-Project-Env is {}, not `dev` or `live`",
                    shown_value(&env)
                ),
            ));
        }
    }
    credential_in_url(req, knows, &mut out);
    let mut component = knows.component(&reference);
    if component.is_none() {
        // `%2555sers`: `%55sers` once decoded, `Users` only twice.
        let twice = crate::observed::decode(&reference);
        if twice != reference && knows.component(&twice).is_some() {
            out.push(Finding::new(
                &rules::REF_ENCODED_ONCE,
                format!(
                    "ref `{}` names component `{}` only when decoded twice: it was percent-encoded twice",
                    shown_text(&reference),
                    shown_text(&twice)
                ),
            ));
            component = knows.component(&twice);
        }
    }
    if component.as_ref().is_some_and(|c| c.requires_auth) {
        if let Some(why) = missing(req, "X-Auth-Token") {
            out.push(Finding::new(
                &rules::AUTH_TOKEN,
                format!(
                    "{why}, and component `{}` requires auth",
                    shown_text(&reference)
                ),
            ));
        }
    }
    let at = knows.model_uuid_at();
    // A body not kept whole (over a proxy's cap) is judged by no rule that
    // reads it: neither its JSON, its fields, nor a modelUuid it carries.
    let body = if req.body_cut {
        None
    } else {
        json_body(req, method == "POST", &mut out)
    };
    let body_unread = req.body_cut && matches!(*at, Place::Body(_));
    if method == "POST" && !body_unread {
        let carried = match &*at {
            Place::Query(name) => req
                .query(name)
                .into_iter()
                .find(|v| !v.is_empty())
                .is_some(),
            Place::Header(name) => combined(&req.headers, name).is_some_and(|v| !v.is_empty()),
            Place::Body(name) => body
                .as_ref()
                .and_then(|b| b.get(name))
                .is_some_and(|v| v.as_str().is_some_and(|s| !s.is_empty())),
        };
        if !carried {
            out.push(Finding::new(
                &rules::MODEL_UUID,
                format!("Authorize without modelUuid ({})", place_name(&at)),
            ));
        }
    }
    if let (Some(fields), Some(Value::Object(body))) = (
        component.as_ref().and_then(|c| c.fields.as_ref()),
        body.as_ref(),
    ) {
        let mut problems = Vec::new();
        for f in fields {
            match body.get(&f.name) {
                None if f.required => problems.push(format!("`{}` is missing", f.name)),
                Some(v) if !f.kind.holds(v) => problems.push(format!(
                    "`{}` is not {} (it is {})",
                    f.name,
                    f.kind.name(),
                    kind_of(v)
                )),
                _ => {}
            }
        }
        let model_field = match &*at {
            Place::Body(name) if method == "POST" => Some(name.as_str()),
            _ => None,
        };
        let mut unknown = 0;
        for name in body.keys() {
            let declared = fields.iter().any(|f| &f.name == name);
            if !declared && Some(name.as_str()) != model_field {
                unknown += 1;
                problems.push(format!(
                    "`{}` is no field of the component",
                    shown_text(name)
                ));
            }
        }
        if !problems.is_empty() {
            // The problems found before the unknown names fail validation.
            let fails_validation = problems.len() > unknown;
            let mut finding = Finding::new(&rules::FIELDS, problems.join("; "));
            finding.fails_validation = fails_validation;
            out.push(finding);
        }
    }
    out
}

/// Why `name` is missing or empty (every line of it), if it is.
fn missing(req: &Request, name: &str) -> Option<String> {
    match combined(&req.headers, name).as_deref() {
        None => Some(format!("no {name}")),
        Some([]) => Some(format!("an empty {name}")),
        Some(_) => None,
    }
}

/// A credential in the query string: a parameter named as one, or holding
/// a secret the profile knows. Named, never shown (and scrubbed from every
/// example: [`crate::redact::secrets_of`]).
fn credential_in_url(req: &Request, knows: &dyn Knows, out: &mut Vec<Finding>) {
    let Some((_, query)) = req.target.split_once('?') else {
        return;
    };
    let secrets = knows.secrets();
    let mut named: Vec<String> = Vec::new();
    for pair in query.split('&') {
        let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
        let name = crate::observed::decode(name);
        let value = crate::observed::decode(value);
        let known = !value.is_empty() && secrets.contains(&value);
        if (crate::redact::is_credential_name(&name) && !value.is_empty()) || known {
            let name = shown_text(&name);
            if !named.contains(&name) {
                named.push(name);
            }
        }
    }
    if !named.is_empty() {
        out.push(Finding::new(
            &rules::CREDENTIAL_IN_URL,
            format!(
                "a credential in the URL's query (`{}`), where logs and caches keep it: credentials travel as headers",
                named.join("`, `")
            ),
        ));
    }
}

/// The body as one JSON object, where it is one; records `client/json-body`
/// where a body is there (or required) and is not one JSON text that is an
/// object.
fn json_body(req: &Request, required: bool, out: &mut Vec<Finding>) -> Option<Value> {
    let body = req.body.as_slice();
    let blank = body.iter().all(u8::is_ascii_whitespace);
    if blank {
        if required {
            out.push(Finding::new(&rules::JSON_BODY, "Authorize without a body"));
        }
        return None;
    }
    let mut stream = serde_json::Deserializer::from_slice(body).into_iter::<Value>();
    let first = stream.next();
    let rest = stream.next();
    let why = match (first, rest) {
        (Some(Ok(Value::Object(map))), None) => {
            let ct = first_ct(req);
            if !ct.is_some_and(is_json_media_type) {
                out.push(Finding::new(
                    &rules::JSON_MEDIA_TYPE,
                    match ct {
                        Some(ct) => format!(
                            "a JSON body sent as `{}`, not application/json",
                            shown_text(ct)
                        ),
                        None => "a JSON body sent without Content-Type".to_owned(),
                    },
                ));
            }
            return Some(Value::Object(map));
        }
        (Some(Ok(v)), None) => format!("the body is {}, not a JSON object", kind_of(&v)),
        (Some(Ok(_)), Some(_)) => "the body is more than one JSON text".to_owned(),
        (Some(Err(e)), _) => format!("the body is not JSON ({})", e.classify_name()),
        (None, _) => "the body is not JSON".to_owned(),
    };
    let ct = first_ct(req);
    out.push(Finding::new(
        &rules::JSON_BODY,
        match ct {
            Some(ct) => format!("{why} (Content-Type {})", shown_text(ct)),
            None => why,
        },
    ));
    None
}

/// `application/json` or a `+json` type, any letter case, any parameters.
fn is_json_media_type(ct: &str) -> bool {
    let essence = ct.split(';').next().unwrap_or_default().trim();
    essence.eq_ignore_ascii_case("application/json")
        || essence
            .split_once('/')
            .is_some_and(|(_, sub)| sub.to_ascii_lowercase().ends_with("+json"))
}

fn first_ct(req: &Request) -> Option<&str> {
    first(&req.headers, "content-type")
}

trait Classify {
    fn classify_name(&self) -> &'static str;
}

impl Classify for serde_json::Error {
    fn classify_name(&self) -> &'static str {
        match self.classify() {
            serde_json::error::Category::Io => "unreadable",
            serde_json::error::Category::Syntax => "a syntax error",
            serde_json::error::Category::Data => "unexpected data",
            serde_json::error::Category::Eof => "cut short",
        }
    }
}

pub(crate) fn kind_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "an integer",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn place_name(at: &Place) -> String {
    match at {
        Place::Query(n) => format!("the query parameter `{n}`"),
        Place::Header(n) => format!("the header `{n}`"),
        Place::Body(n) => format!("the body field `{n}`"),
    }
}

/// A header value a finding may show: `X-Project-Env`'s is no secret, but
/// is cut and escaped.
fn shown_value(v: &[u8]) -> String {
    format!(
        "`{}`",
        crate::tally::cut(&String::from_utf8_lossy(v).escape_debug().to_string(), 32)
    )
}

fn shown_text(s: &str) -> String {
    crate::tally::cut(&s.escape_debug().to_string(), 64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::knowledge::{Component, Field, Kind};
    use std::borrow::Cow;

    struct Fixture;

    impl Knows for Fixture {
        fn component(&self, reference: &str) -> Option<Cow<'_, Component>> {
            (reference == "users").then(|| {
                Cow::Owned(Component {
                    requires_auth: true,
                    fields: Some(vec![
                        Field {
                            name: "email".into(),
                            kind: Kind::String,
                            required: true,
                        },
                        Field {
                            name: "pin".into(),
                            kind: Kind::Integer,
                            required: false,
                        },
                    ]),
                    ..Component::default()
                })
            })
        }
        fn model_uuid_at(&self) -> Cow<'_, Place> {
            Cow::Owned(Place::default())
        }
    }

    fn req(method: &str, target: &str, headers: &[(&str, &str)], body: &str) -> Request {
        Request {
            method: method.into(),
            target: target.into(),
            headers: headers
                .iter()
                .map(|(n, v)| ((*n).to_owned(), v.as_bytes().to_vec()))
                .collect(),
            body: body.as_bytes().to_vec(),
            body_cut: false,
        }
    }

    const GOOD: &[(&str, &str)] = &[
        ("x-client-id", "c"),
        ("x-client-secret", "s3cret"),
        ("x-auth-token", "t0ken"),
        ("content-type", "application/json"),
    ];

    fn ids(f: &[Finding]) -> Vec<&'static str> {
        f.iter().map(|f| f.rule.id).collect()
    }

    #[test]
    fn a_good_request_breaks_nothing() {
        let good = req(
            "POST",
            "/v2/api/component/users/auth?modelUuid=m",
            GOOD,
            r#"{"email":"a@b","pin":1}"#,
        );
        assert!(judge_request(&good, &Fixture).is_empty());
        let get = req("GET", "/v2/api/component/users/auth", GOOD, "");
        assert!(judge_request(&get, &Fixture).is_empty());
    }

    #[test]
    fn each_client_fault_is_named() {
        let body = r#"{"email":"a@b"}"#;
        let cases: &[(Request, &str)] = &[
            (
                req(
                    "GET",
                    "/v2/api/component/users/auth",
                    &[GOOD[0], GOOD[2]],
                    "",
                ),
                "client/x-client-secret",
            ),
            (
                req(
                    "GET",
                    "/v2/api/component/users/auth",
                    &[GOOD[0], GOOD[1], GOOD[2], ("X-Project-Env", "prod")],
                    "",
                ),
                "client/x-project-env",
            ),
            (
                req("GET", "/v2/api/component/users/auth", &GOOD[..2], ""),
                "client/x-auth-token",
            ),
            (
                req("POST", "/v2/api/component/users/auth", GOOD, body),
                "client/model-uuid",
            ),
            (
                req(
                    "POST",
                    "/v2/api/component/users/auth?modelUuid=m",
                    GOOD,
                    r#"{"email":"a@b"}{"email":"c@d"}"#,
                ),
                "client/json-body",
            ),
            (
                req(
                    "POST",
                    "/v2/api/component/users/auth?modelUuid=m",
                    GOOD,
                    r#"{"email":7}"#,
                ),
                "client/fields",
            ),
            (req("GET", "/v1/x", GOOD, ""), "client/path"),
            (
                req(
                    "POST",
                    "/v2/api/component/users/auth?modelUuid=m",
                    &[GOOD[0], GOOD[1], GOOD[2], ("Content-Type", "text/plain")],
                    body,
                ),
                "client/json-media-type",
            ),
            (
                req("GET", "/v2/api/component/%2575sers/auth", GOOD, ""),
                "client/ref-encoded-once",
            ),
            (
                req(
                    "GET",
                    "/v2/api/component/users/auth?client_secret=s3cret",
                    GOOD,
                    "",
                ),
                "client/no-credential-in-url",
            ),
        ];
        for (r, want) in cases {
            let got = judge_request(r, &Fixture);
            assert_eq!(ids(&got), [*want], "{}", r.describe());
        }
    }

    /// RFC 9110 §5.3: two field lines judge as the one line that holds
    /// both, whatever the client's library sent.
    #[test]
    fn several_field_lines_judge_as_their_combined_value() {
        let lines = [
            GOOD[0],
            GOOD[1],
            GOOD[2],
            ("X-Project-Env", "dev"),
            ("X-Project-Env", "live"),
        ];
        let one = [GOOD[0], GOOD[1], GOOD[2], ("X-Project-Env", "dev, live")];
        let a = judge_request(
            &req("GET", "/v2/api/component/users/auth", &lines, ""),
            &Fixture,
        );
        let b = judge_request(
            &req("GET", "/v2/api/component/users/auth", &one, ""),
            &Fixture,
        );
        assert_eq!(ids(&a), ["client/x-project-env"]);
        assert_eq!(a, b);
        // An empty line beside a value is no empty header.
        let id = [("x-client-id", ""), ("x-client-id", "c"), GOOD[1], GOOD[2]];
        assert!(
            judge_request(
                &req("GET", "/v2/api/component/users/auth", &id, ""),
                &Fixture
            )
            .is_empty()
        );
    }

    #[test]
    fn findings_show_no_secret() {
        let r = req(
            "POST",
            "/v2/api/component/users/auth",
            &[("x-client-secret", "s3cret"), ("x-auth-token", "t0ken")],
            r#"{"email":"hunter2-password","pin":"1234"}"#,
        );
        for f in judge_request(&r, &Fixture) {
            for secret in ["s3cret", "t0ken", "hunter2", "1234"] {
                assert!(!f.detail.contains(secret), "{}", f.detail);
            }
        }
        assert!(!r.describe().contains("s3cret"));
    }
}
