//! What the description says an error answer is, in one place: §7 "Error
//! responses are JSON. Both carry the `Content-Type: application/json`
//! header and an `X-Project-Uuid` header", the 7.1 shape of a 400 and the
//! 7.2 shape of a 417.
//!
//! Nothing more: the description gives no shape to an error of any other
//! status ("other status codes: not shown"), so a 401 or a 404 is judged
//! only as JSON that says so and carries `X-Project-Uuid`. Every check and
//! every invariant judges refusals through [`refusal_problems`].

use component_auth_bindings::RawResponse;
use serde_json::Value;

/// What "refused" means in a check's `expects`.
pub const REFUSED: &str = "a 4xx answer that is JSON, says so (Content-Type: application/json) and carries X-Project-Uuid; on 400 in the 7.1 shape (code, message, request_id, status false), on 417 in the 7.2 shape (code, errors, status false); any other 4xx status is the server's choice";

/// The members of the 7.1 and 7.2 shapes: all a shape is judged on.
pub const MEMBERS: &[&str] = &["code", "message", "request_id", "status", "errors"];

/// `raw`'s body with only the envelope's [`MEMBERS`] of its root object,
/// read as a stream: judging the shape of a large error answer builds no
/// tree of the rest (see `json::members`).
pub fn members(raw: &RawResponse) -> Option<Value> {
    component_auth_bindings::json::members(raw.expose_body(), MEMBERS)
}

/// What the judgements read of an answer's body, read once as it arrives
/// and kept with it: a run judges each answer many times over (every
/// invariant, every property case, the outcomes), and a near-cap body read
/// as a stream each time cost more than everything else a run does.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BodyRead {
    /// The body is one JSON value ([`RawResponse::is_json`]).
    pub is_json: bool,
    /// On a 400 or 417 (where a shape is judged): the envelope's
    /// [`MEMBERS`] ([`members`]); `None` for other statuses or a body that
    /// is not JSON.
    pub members: Option<Value>,
}

impl BodyRead {
    /// `raw`'s body read once: one stream pass, no tree of the rest.
    pub fn of(raw: &RawResponse) -> Self {
        if matches!(raw.status, 400 | 417) {
            let members = members(raw);
            BodyRead {
                is_json: members.is_some(),
                members,
            }
        } else {
            BodyRead {
                is_json: raw.is_json(),
                members: None,
            }
        }
    }

    /// What keeps the answer from the shape its status asks (§7.1 for a
    /// 400, §7.2 for a 417): empty for other statuses.
    pub fn shape(&self, status: u16) -> Vec<String> {
        match status {
            400 => shape_400(self.members.as_ref()),
            417 => shape_417(self.members.as_ref()),
            _ => Vec::new(),
        }
    }
}

/// What is wrong with `raw` as an error answer of the description (any
/// status ≥ 400): empty when it is one.
pub fn error_problems(raw: &RawResponse) -> Vec<String> {
    error_problems_read(raw, &BodyRead::of(raw))
}

/// [`error_problems`] of an answer whose body was read already.
pub fn error_problems_read(raw: &RawResponse, read: &BodyRead) -> Vec<String> {
    let mut p = Vec::new();
    let content_type = raw.header("content-type").unwrap_or_default();
    if !is_json_media_type(content_type) {
        p.push(if content_type.is_empty() {
            "no Content-Type".to_owned()
        } else {
            format!("Content-Type `{content_type}`, not application/json")
        });
    }
    if raw.header("x-project-uuid").is_none() {
        p.push("no X-Project-Uuid header".to_owned());
    }
    match raw.status {
        400 | 417 => p.extend(read.shape(raw.status)),
        _ if !read.is_json => p.push("the body is not JSON".to_owned()),
        _ => {}
    }
    p
}

/// What is wrong with `raw` as a refusal: a 4xx that is an error answer of
/// the description.
pub fn refusal_problems(raw: &RawResponse) -> Vec<String> {
    refusal_problems_read(raw, &BodyRead::of(raw))
}

/// [`refusal_problems`] of an answer whose body was read already.
pub fn refusal_problems_read(raw: &RawResponse, read: &BodyRead) -> Vec<String> {
    if !(400..500).contains(&raw.status) {
        return vec![format!("not refused: the status is {}", raw.status)];
    }
    error_problems_read(raw, read)
}

/// The 7.1 shape: code an integer, message and request_id strings, status
/// false.
pub fn shape_400(json: Option<&Value>) -> Vec<String> {
    let Some(obj) = json.and_then(Value::as_object) else {
        return vec!["the body is not a JSON object".to_owned()];
    };
    let mut p = Vec::new();
    field(&mut p, obj.get("code"), "code", "an integer", is_integer);
    field(
        &mut p,
        obj.get("message"),
        "message",
        "a string",
        Value::is_string,
    );
    field(
        &mut p,
        obj.get("request_id"),
        "request_id",
        "a string",
        Value::is_string,
    );
    field(&mut p, obj.get("status"), "status", "false", is_false);
    p
}

/// The 7.2 shape: code an integer, errors an array, status false.
pub fn shape_417(json: Option<&Value>) -> Vec<String> {
    let Some(obj) = json.and_then(Value::as_object) else {
        return vec!["the body is not a JSON object".to_owned()];
    };
    let mut p = Vec::new();
    field(&mut p, obj.get("code"), "code", "an integer", is_integer);
    field(
        &mut p,
        obj.get("errors"),
        "errors",
        "an array",
        Value::is_array,
    );
    field(&mut p, obj.get("status"), "status", "false", is_false);
    p
}

fn is_integer(v: &Value) -> bool {
    v.is_i64() || v.is_u64()
}

fn is_false(v: &Value) -> bool {
    v == &Value::Bool(false)
}

fn field(
    out: &mut Vec<String>,
    value: Option<&Value>,
    name: &str,
    want: &str,
    ok: impl Fn(&Value) -> bool,
) {
    match value {
        None => out.push(format!("`{name}` is missing")),
        Some(v) if !ok(v) => out.push(format!("`{name}` is {v}, not {want}")),
        Some(_) => {}
    }
}

/// `application/json`, in any letter case, with or without parameters
/// (RFC 9110 section 8.3.1).
pub fn is_json_media_type(value: &str) -> bool {
    value
        .split(';')
        .next()
        .is_some_and(|essence| essence.trim().eq_ignore_ascii_case("application/json"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(status: u16, content_type: &str, project: bool, body: &str) -> RawResponse {
        let mut raw = RawResponse {
            status,
            headers: Default::default(),
            body: body.as_bytes().to_vec().into(),
        };
        if !content_type.is_empty() {
            raw.headers
                .insert("content-type", content_type.parse().expect("header"));
        }
        if project {
            raw.headers.insert(
                "x-project-uuid",
                "6f1f2f0f-0000-4000-8000-000000000001"
                    .parse()
                    .expect("header"),
            );
        }
        raw
    }

    #[test]
    fn a_refusal_of_another_status_needs_no_shape() {
        let lean = answer(401, "application/json", true, r#"{"message":"no"}"#);
        assert!(refusal_problems(&lean).is_empty());
        let html = answer(404, "text/html", false, "<h1>Not Found</h1>");
        assert_eq!(
            refusal_problems(&html).len(),
            3,
            "{:?}",
            refusal_problems(&html)
        );
    }

    #[test]
    fn a_400_and_a_417_keep_their_shapes() {
        let no_id = answer(
            400,
            "application/json",
            true,
            r#"{"code":1,"message":"m","status":false}"#,
        );
        assert_eq!(refusal_problems(&no_id), ["`request_id` is missing"]);
        let ok_417 = answer(
            417,
            "application/json",
            true,
            r#"{"code":9,"errors":[],"status":false}"#,
        );
        assert!(refusal_problems(&ok_417).is_empty());
        let served = answer(200, "application/json", true, "{}");
        assert_eq!(
            refusal_problems(&served),
            ["not refused: the status is 200"]
        );
    }

    #[test]
    fn media_type_parameters_and_case_are_json() {
        for v in [
            "application/json",
            "application/json; charset=utf-8",
            "Application/JSON",
            " application/json ;charset=UTF-8",
        ] {
            assert!(is_json_media_type(v), "{v}");
        }
        for v in [
            "text/plain",
            "application/problem+json",
            "",
            "application/jsonx",
        ] {
            assert!(!is_json_media_type(v), "{v}");
        }
    }
}
