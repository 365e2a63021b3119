//! What the description requires of a server, judged on one answer,
//! knowing what was wrong with the request it answers.

use serde_json::Value;

use crate::observed::{Answer, Request, first};
use crate::rules::{self, Finding};

/// A limit answer (a 429, or a 503 with Retry-After): a server's limit is
/// not its answer to a rule, but it is still an error answer.
pub fn is_limit(answer: &Answer) -> bool {
    answer.status == 429
        || (answer.status == 503 && first(&answer.headers, "retry-after").is_some())
}

/// Every rule `answer` breaks. `client`: what the request broke
/// ([`crate::client::judge_request`]). An answer to a request outside the
/// interface's path is not the interface's, and is not judged.
pub fn judge_answer(req: &Request, answer: &Answer, client: &[Finding]) -> Vec<Finding> {
    let mut out = Vec::new();
    if client.iter().any(|f| f.rule == &rules::PATH) {
        return out;
    }
    // A body not kept whole (over a proxy's cap) passes every rule that
    // reads it: only its status and headers are judged.
    let cut = answer.body_cut;
    let status = answer.status;
    if let Some(uuid) = first(&answer.headers, "x-project-uuid") {
        if !is_uuid(uuid) {
            out.push(Finding::new(
                &rules::PROJECT_UUID,
                format!(
                    "HTTP {status} with X-Project-Uuid `{}`",
                    crate::tally::cut(uuid, 40)
                ),
            ));
        }
    }
    if matches!(status, 405 | 501) {
        let rule = match req.method.as_str() {
            "GET" => Some(&rules::AUTH_CLAIMS_IS_GET),
            "POST" => Some(&rules::AUTHORIZE_IS_POST),
            _ => None,
        };
        if let Some(rule) = rule {
            out.push(Finding::new(
                rule,
                format!("HTTP {status} to {} {}", req.method, req.path()),
            ));
        }
    }
    if (200..300).contains(&status) {
        // Whether it is JSON is all a success needs: checked without
        // building the value (the proxy's hot path).
        if !cut
            && !answer.body.is_empty()
            && serde_json::from_slice::<serde::de::IgnoredAny>(&answer.body).is_err()
        {
            out.push(Finding::new(
                &rules::RESPONSES_JSON,
                format!("HTTP {status} whose body is not JSON"),
            ));
        }
        let refusable: Vec<&str> = client
            .iter()
            // A body's fields are the server's to validate as its settings
            // say (an unknown field may be ignored): not judged here.
            .filter(|f| rules::must_refuse(f.rule))
            .map(|f| f.rule.id)
            .collect();
        // Authorize only: whether Auth Claims validates its body is a
        // server's choice (spec/README.md, `get_body_validated`).
        let invalid = client
            .iter()
            .find(|f| f.rule == &rules::FIELDS && f.fails_validation)
            .filter(|_| req.method == "POST");
        if let (Some(invalid), true) = (invalid, refusable.is_empty()) {
            out.push(Finding::new(
                &rules::VALIDATION_417,
                format!(
                    "HTTP {status} to a body that fails the component's validation: {}",
                    invalid.detail
                ),
            ));
        }
        if !refusable.is_empty() {
            out.push(Finding::new(
                &rules::REFUSES,
                format!(
                    "HTTP {status} to {} {}, a request that breaks {}",
                    req.method,
                    req.path(),
                    refusable.join(", ")
                ),
            ));
        }
        return out;
    }
    if status < 400 {
        return out;
    }
    let json = if cut { None } else { parse(&answer.body) };
    let mut problems = Vec::new();
    let ct = first(&answer.headers, "content-type").unwrap_or_default();
    let essence = ct.split(';').next().unwrap_or_default().trim();
    if !essence.eq_ignore_ascii_case("application/json") {
        problems.push(match ct {
            "" => "no Content-Type".to_owned(),
            ct => format!("Content-Type `{}`", crate::tally::cut(ct, 60)),
        });
    }
    if first(&answer.headers, "x-project-uuid").is_none() {
        problems.push("no X-Project-Uuid".to_owned());
    }
    if !cut && json.is_none() {
        problems.push("a body that is not JSON".to_owned());
    }
    if !problems.is_empty() {
        let what = if is_limit(answer) {
            "limit answer"
        } else {
            "error answer"
        };
        out.push(Finding::new(
            &rules::ERRORS_ARE_ENVELOPES,
            format!("HTTP {status} {what} with {}", problems.join(", ")),
        ));
    }
    if status == 400 && !cut {
        if let Some(p) = shape(
            json.as_ref(),
            &[
                ("code", int),
                ("message", string),
                ("request_id", string),
                ("status", falsy),
            ],
        ) {
            out.push(Finding::new(&rules::SHAPE_400, p));
        }
    }
    if status == 417 && !cut {
        if let Some(p) = shape(
            json.as_ref(),
            &[("code", int), ("errors", array), ("status", falsy)],
        ) {
            out.push(Finding::new(&rules::SHAPE_417, p));
        }
    }
    // Only the declared fields fail: the request fails the validation the
    // component's settings define. A refusal for another reason one
    // exchange cannot rule out (a credential that is wrong, an unknown
    // model, a body over the size limit: 401, 403, 404, 413) passes; a
    // 400 or 422 says "your request is malformed" where the description
    // says 417.
    let only_fields = !client.is_empty() && client.iter().all(|f| f.rule == &rules::FIELDS);
    if only_fields && matches!(status, 400 | 422) {
        out.push(Finding::new(
            &rules::VALIDATION_417,
            format!("HTTP {status} to a body that breaks the component's auth fields"),
        ));
    }
    out
}

/// `8-4-4-4-12` hexadecimal digits, either case.
fn is_uuid(text: &str) -> bool {
    // Every answer passes here: no allocation.
    let mut groups = text.split('-');
    [8, 4, 4, 4, 12].iter().all(|&n| {
        groups
            .next()
            .is_some_and(|g| g.len() == n && g.bytes().all(|b| b.is_ascii_hexdigit()))
    }) && groups.next().is_none()
}

fn parse(body: &[u8]) -> Option<Value> {
    serde_json::from_slice(body).ok()
}

type Test = fn(&Value) -> bool;

fn int(v: &Value) -> bool {
    v.is_i64() || v.is_u64()
}
fn string(v: &Value) -> bool {
    v.is_string()
}
fn array(v: &Value) -> bool {
    v.is_array()
}
fn falsy(v: &Value) -> bool {
    v == &Value::Bool(false)
}

/// What keeps `json` from the shape `fields` describe, if anything.
fn shape(json: Option<&Value>, fields: &[(&str, Test)]) -> Option<String> {
    let Some(obj) = json.and_then(Value::as_object) else {
        return Some("the body is not a JSON object".to_owned());
    };
    let wrong: Vec<String> = fields
        .iter()
        .filter(|(name, ok)| !obj.get(*name).is_some_and(ok))
        .map(|(name, _)| match obj.get(*name) {
            None => format!("no `{name}`"),
            Some(v) => format!("`{name}` is {}", crate::client::kind_of(v)),
        })
        .collect();
    (!wrong.is_empty()).then(|| wrong.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(status: u16, headers: &[(&str, &str)], body: &str) -> Answer {
        Answer {
            status,
            headers: headers
                .iter()
                .map(|(n, v)| ((*n).to_owned(), v.as_bytes().to_vec()))
                .collect(),
            body: body.as_bytes().to_vec(),
            body_cut: false,
        }
    }

    fn get() -> Request {
        Request {
            method: "GET".into(),
            target: "/v2/api/component/users/auth".into(),
            ..Request::default()
        }
    }

    const JSON: (&str, &str) = ("content-type", "application/json");
    const XPU: (&str, &str) = ("x-project-uuid", "7f3c2a10-5b4e-4d2a-9c61-0e8f5a2b3c4d");

    #[test]
    fn envelopes_and_shapes() {
        let ok = answer(
            400,
            &[JSON, XPU],
            r#"{"code":400,"message":"m","request_id":"r","status":false}"#,
        );
        assert!(judge_answer(&get(), &ok, &[]).is_empty());
        let text = answer(429, &[("content-type", "text/plain")], "slow down");
        let ids: Vec<_> = judge_answer(&get(), &text, &[])
            .iter()
            .map(|f| f.rule.id)
            .collect();
        assert_eq!(ids, ["server/errors-are-envelopes"]);
        let bad417 = answer(
            417,
            &[JSON, XPU],
            r#"{"code":"417","errors":[],"status":false}"#,
        );
        let ids: Vec<_> = judge_answer(&get(), &bad417, &[])
            .iter()
            .map(|f| f.rule.id)
            .collect();
        assert_eq!(ids, ["server/417-shape"]);
    }

    #[test]
    fn a_refusable_request_served_and_a_field_fault_not_417() {
        let served = answer(200, &[JSON], "{}");
        let missing = [Finding::new(&rules::CLIENT_SECRET, "no X-Client-Secret")];
        let ids: Vec<_> = judge_answer(&get(), &served, &missing)
            .iter()
            .map(|f| f.rule.id)
            .collect();
        assert_eq!(ids, ["server/refuses-what-a-client-must-not-send"]);
        let fields = [Finding::new(&rules::FIELDS, "`pin` is not an integer")];
        let bad = answer(
            400,
            &[JSON, XPU],
            r#"{"code":400,"message":"m","request_id":"r","status":false}"#,
        );
        let ids: Vec<_> = judge_answer(&get(), &bad, &fields)
            .iter()
            .map(|f| f.rule.id)
            .collect();
        assert_eq!(ids, ["server/validation-417"]);
    }
}
