//! What a request ends in, and how that becomes an HTTP answer: the 7.1
//! envelope (`{code, message, request_id, status}`), the 7.2 envelope
//! (`{code, errors, status}`) or a success body, always with
//! `Content-Type: application/json` and `X-Project-Uuid`.
//!
//! The answer seam: the [`Answer`] behaviour is read here and only here, so
//! each envelope fault, and each variant of the answer's shape, changes it
//! in exactly one way.

use bytes::Bytes;
use component_auth_bindings::types::{
    AuthClaimsResult, AuthorizeResult, ErrorResponse, ValidationError, ValidationErrorResponse,
};
use http_body_util::Full;
use hyper::header::{
    ALLOW, CACHE_CONTROL, CONNECTION, CONTENT_ENCODING, CONTENT_TYPE, ETAG, HeaderName,
    HeaderValue, RETRY_AFTER, VARY,
};
use hyper::{Response, StatusCode};
use serde_json::{Map, Value};

use crate::behaviour::{Answer, Codes, ProjectUuid};
use crate::validate;

/// The answer for a request that did not succeed.
#[derive(Debug)]
pub(crate) enum Failure {
    /// Any error but a failed validation: the 7.1 shape, `code` = status.
    Error {
        status: StatusCode,
        /// Says what was wrong; never carries a secret or a sent value.
        message: String,
        /// A header the status calls for: `Allow` on a 405, `Retry-After`
        /// on a 503.
        header: Option<(HeaderName, &'static str)>,
    },
    /// A failed validation: 417 with the 7.2 shape.
    Validation(Vec<ValidationError>),
    /// What a handler that panicked answers under some faults: 500 in
    /// plain text, as many frameworks do by default.
    Crash,
}

impl Failure {
    /// An error of the 7.1 shape with this status.
    pub(crate) fn with_status(status: StatusCode, message: impl Into<String>) -> Self {
        Self::error(status, message)
    }

    fn error(status: StatusCode, message: impl Into<String>) -> Self {
        Failure::Error {
            status,
            message: message.into(),
            header: None,
        }
    }

    pub(crate) fn bad_request(message: impl Into<String>) -> Self {
        Self::error(StatusCode::BAD_REQUEST, message)
    }

    pub(crate) fn unauthorized(message: impl Into<String>) -> Self {
        Self::error(StatusCode::UNAUTHORIZED, message)
    }

    pub(crate) fn not_found(message: impl Into<String>) -> Self {
        Self::error(StatusCode::NOT_FOUND, message)
    }

    pub(crate) fn too_large(message: impl Into<String>) -> Self {
        Self::error(StatusCode::PAYLOAD_TOO_LARGE, message)
    }

    pub(crate) fn method_not_allowed(allow: &'static str) -> Self {
        Failure::Error {
            status: StatusCode::METHOD_NOT_ALLOWED,
            message: format!("this path takes {allow} only"),
            header: Some((ALLOW, allow)),
        }
    }

    /// 501: the request needs something the server does not implement.
    pub(crate) fn not_implemented(message: impl Into<String>) -> Self {
        Self::error(StatusCode::NOT_IMPLEMENTED, message)
    }

    /// 503: the server is at a limit; `Retry-After` says when to come back.
    pub(crate) fn unavailable(message: impl Into<String>, retry_after: &'static str) -> Self {
        Failure::Error {
            status: StatusCode::SERVICE_UNAVAILABLE,
            message: message.into(),
            header: Some((RETRY_AFTER, retry_after)),
        }
    }
}

/// The answer for a request that succeeded.
#[derive(Debug)]
pub(crate) enum Success {
    Claims(AuthClaimsResult),
    /// With the claim it replaced (the model's uuid, or `None`), where the
    /// behaviour reports it.
    Authorize(AuthorizeResult, Option<Option<String>>),
}

/// What every answer needs besides its outcome.
pub(crate) struct Context<'a> {
    pub project_uuid: &'a str,
    pub answer: &'a Answer,
    pub request_id: &'a str,
    /// Ask the client to close the connection (keep-alive is off).
    pub close: bool,
    /// The request's `Accept-Encoding` takes gzip.
    pub accepts_gzip: bool,
}

const JSON: &str = "application/json";
const TEXT: &str = "text/plain; charset=utf-8";
const HTML: &str = "text/html; charset=utf-8";

/// Renders an outcome as the HTTP answer.
pub(crate) fn render(
    outcome: Result<Success, Failure>,
    ctx: &Context<'_>,
) -> Response<Full<Bytes>> {
    let (status, body, content_type, extra) = match outcome {
        Ok(success) => {
            let (body, content_type) = success_body(&success, ctx);
            (success_status(&success), body, content_type, None)
        }
        Err(Failure::Crash) => (
            StatusCode::INTERNAL_SERVER_ERROR,
            b"internal error\n".to_vec(),
            TEXT,
            None,
        ),
        Err(Failure::Error { status, header, .. }) if ctx.answer.html_page(status) => {
            (status, html_page(status), HTML, header)
        }
        Err(failure) => {
            let (status, body, extra) = failure_body(failure, ctx);
            let content_type = if ctx.answer.error_content_type_text {
                TEXT
            } else {
                JSON
            };
            (status, body, content_type, extra)
        }
    };

    // A framework's own HTML page knows nothing of the project.
    let framework_page = content_type == HTML;
    let etag = ctx.answer.cache_headers.then(|| etag(&body));
    let gzipped = (ctx.answer.gzip && ctx.accepts_gzip && !body.is_empty())
        .then(|| gzip(&body))
        .flatten();
    let encoded = gzipped.is_some();
    let mut response = Response::new(Full::new(Bytes::from(gzipped.unwrap_or(body))));
    *response.status_mut() = status;
    let headers = response.headers_mut();
    if !(encoded && ctx.answer.gzip_drops_content_type) {
        headers.insert(CONTENT_TYPE, HeaderValue::from_static(content_type));
    }
    if encoded {
        headers.insert(CONTENT_ENCODING, HeaderValue::from_static("gzip"));
        headers.insert(VARY, HeaderValue::from_static("Accept-Encoding"));
    }
    if let Some(value) = project_uuid_header(status, ctx).filter(|_| !framework_page) {
        headers.insert("x-project-uuid", value);
    }
    if let Some((name, value)) = extra {
        headers.insert(name, HeaderValue::from_static(value));
    }
    if ctx.answer.request_id_header {
        if let Ok(value) = HeaderValue::from_str(ctx.request_id) {
            headers.insert("x-request-id", value);
        }
    }
    if let Some(etag) = etag.and_then(|e| HeaderValue::from_str(&e).ok()) {
        headers.insert(ETAG, etag);
        headers.insert(CACHE_CONTROL, HeaderValue::from_static("no-store"));
        headers.insert(VARY, HeaderValue::from_static("X-Client-Id, X-Auth-Token"));
    }
    if ctx.close {
        headers.insert(CONNECTION, HeaderValue::from_static("close"));
    }
    response
}

/// `body` gzip-encoded (in memory, never failing but for a defect).
fn gzip(body: &[u8]) -> Option<Vec<u8>> {
    use std::io::Write;
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    e.write_all(body).ok()?;
    e.finish().ok()
}

/// A strong validator that changes with the body: FNV-1a over its bytes,
/// so the same body always has the same tag.
fn etag(body: &[u8]) -> String {
    let hash = body.iter().fold(0xcbf2_9ce4_8422_2325_u64, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    });
    format!("\"{hash:016x}\"")
}

/// The page a web framework or proxy sends for a status by default.
fn html_page(status: StatusCode) -> Vec<u8> {
    let title = format!(
        "{} {}",
        status.as_u16(),
        status.canonical_reason().unwrap_or("Error")
    );
    format!(
        "<!DOCTYPE html>\n<html><head><title>{title}</title></head>\n\
         <body><h1>{title}</h1><hr><p>server</p></body></html>\n"
    )
    .into_bytes()
}

impl Answer {
    /// Whether an error of this status is a framework's HTML page (faults).
    fn html_page(&self, status: StatusCode) -> bool {
        (status == StatusCode::METHOD_NOT_ALLOWED && self.method_not_allowed_html)
            || (status == StatusCode::PAYLOAD_TOO_LARGE && self.payload_too_large_html)
    }

    /// An error body's `code` for this status.
    fn code(&self, status: StatusCode) -> i64 {
        let status = i64::from(status.as_u16());
        match self.codes {
            Codes::HttpStatus => status,
            Codes::Service => status * 100 + 1,
        }
    }
}

/// A success's status is its body's `code` (200, or 201 under a variant).
fn success_status(success: &Success) -> StatusCode {
    let code = match success {
        Success::Claims(r) => r.code,
        Success::Authorize(r, _) => r.code,
    };
    u16::try_from(code)
        .ok()
        .and_then(|c| StatusCode::from_u16(c).ok())
        .unwrap_or(StatusCode::OK)
}

fn project_uuid_header(status: StatusCode, ctx: &Context<'_>) -> Option<HeaderValue> {
    let error = status.is_client_error() || status.is_server_error();
    if ctx.answer.project_uuid_on_errors_only && !error {
        return None;
    }
    let value = match ctx.answer.project_uuid {
        ProjectUuid::NoneOnErrors if error => return None,
        ProjectUuid::NotUuid => format!("project-{}", ctx.project_uuid.replace('-', "")),
        ProjectUuid::Varies => uuid::Uuid::new_v4().to_string(),
        _ => ctx.project_uuid.to_owned(),
    };
    // The fixture checked the uuid's shape, so this is visible ASCII.
    HeaderValue::from_str(&value).ok()
}

fn success_body(success: &Success, ctx: &Context<'_>) -> (Vec<u8>, &'static str) {
    if ctx.answer.success_body_text {
        let (code, component) = match success {
            Success::Claims(r) => (r.code, &r.component.uuid),
            Success::Authorize(r, _) => (r.code, &r.component.uuid),
        };
        return (
            format!("status=true code={code} component={component}\n").into_bytes(),
            TEXT,
        );
    }
    let value = match success {
        Success::Claims(r) => serde_json::to_value(r),
        Success::Authorize(r, replaced) => serde_json::to_value(r).map(|mut v| {
            if let (Some(replaced), Some(fields)) = (replaced, v.as_object_mut()) {
                fields.insert("replaced".to_owned(), replaced.clone().into());
            }
            v
        }),
    };
    let value = value.map(|mut v| {
        if ctx.answer.model_without_uuid && matches!(success, Success::Claims(_)) {
            if let Some(model) = v.get_mut("model").and_then(Value::as_object_mut) {
                model.shift_remove("uuid");
            }
        }
        v
    });
    let value = value.map(|v| match v {
        Value::Object(mut fields) if ctx.answer.success_wrapped => {
            fields.shift_remove("code");
            fields.shift_remove("status");
            serde_json::json!({"status": true, "data": fields})
        }
        other => other,
    });
    let json = value.and_then(|v| serde_json::to_vec(&v));
    // The result types hold strings, booleans and JSON values only, which
    // always serialize; an error would be a defect, answered as a 500.
    let body = json.unwrap_or_else(|e| {
        format!(r#"{{"code":500,"message":"cannot serialize the result: {e}","status":false}}"#)
            .into_bytes()
    });
    (body, JSON)
}

fn failure_body(
    failure: Failure,
    ctx: &Context<'_>,
) -> (StatusCode, Vec<u8>, Option<(HeaderName, &'static str)>) {
    let (status, value, extra) = match failure {
        Failure::Error {
            status,
            message,
            header,
        } => {
            if ctx.answer.error_body_text {
                let text = format!("error {}: {message}\n", status.as_u16());
                return (status, text.into_bytes(), header);
            }
            let envelope = ErrorResponse::new(
                ctx.answer.code(status),
                message,
                ctx.request_id.to_owned(),
                false,
            );
            let mut value = to_map(&envelope);
            if status == StatusCode::BAD_REQUEST {
                if ctx.answer.bad_request_without_request_id {
                    value.remove("request_id");
                }
                if ctx.answer.bad_request_without_message {
                    value.remove("message");
                }
            } else if ctx.answer.lean_other_errors {
                value.shift_remove("request_id");
            }
            (status, value, header)
        }
        // `render` answers a crash before asking for an envelope.
        Failure::Crash => {
            let status = StatusCode::INTERNAL_SERVER_ERROR;
            return (status, b"internal error\n".to_vec(), None);
        }
        Failure::Validation(errors) => {
            let status = StatusCode::EXPECTATION_FAILED;
            if ctx.answer.error_body_text {
                let text = format!("error 417: {}\n", validate::summary(&errors));
                return (status, text.into_bytes(), None);
            }
            let keyed: Map<String, Value> = errors
                .iter()
                .map(|e| {
                    (
                        e.field.clone(),
                        serde_json::json!({"rule": e.rule, "message": e.message}),
                    )
                })
                .collect();
            let envelope = ValidationErrorResponse::new(ctx.answer.code(status), errors, false);
            let mut value = to_map(&envelope);
            if ctx.answer.validation_without_errors {
                value.remove("errors");
            }
            if ctx.answer.validation_errors_keyed {
                value.insert("errors".to_owned(), Value::Object(keyed));
            }
            (status, value, None)
        }
    };
    let mut value = value;
    if ctx.answer.error_status_true {
        value.insert("status".to_owned(), Value::Bool(true));
    }
    if ctx.answer.error_code_as_string {
        let code = ctx.answer.code(status).to_string();
        value.insert("code".to_owned(), Value::String(code));
    }
    let body = serde_json::to_vec(&value).unwrap_or_default();
    (status, body, extra)
}

/// A struct of plain fields as a JSON object, keys in declaration order.
fn to_map<T: serde::Serialize>(value: &T) -> Map<String, Value> {
    match serde_json::to_value(value) {
        Ok(Value::Object(map)) => map,
        _ => Map::new(),
    }
}
