//! What must hold for every answer to a generated request, whatever was
//! sent. Each invariant is a check of the catalogue (`checks/invariants.rs`)
//! with its own section and level; here is what it judges.

use super::Family;
use conformance_model::level::Level;
use conformance_wire::target::Sent;

/// One invariant: its check's id, anchor and judgement.
pub struct Invariant {
    /// The id of its check, and of what a case broke of it.
    pub id: &'static str,
    pub level: Level,
    pub section: &'static str,
    pub quote: &'static str,
    pub title: &'static str,
    pub expects: &'static str,
    /// `Some(why)` when the answer breaks it.
    pub judge: fn(Family, &Sent) -> Option<String>,
}

pub const ALL: &[Invariant] = &[
    Invariant {
        id: "invariants/responses-are-json",
        level: Level::Must,
        section: "1",
        quote: "Responses are JSON.",
        title: "every answer to a generated request is JSON",
        expects: "an answer whose body parses as JSON",
        judge: |_, s| {
            let raw = match s.raw() {
                Some(raw) => raw,
                None => return Some(s.summary()),
            };
            raw.json()
                .is_none()
                .then(|| format!("not JSON: {}", s.summary()))
        },
    },
    Invariant {
        id: "invariants/errors-are-json",
        level: Level::Must,
        section: "7",
        quote: "Error responses are JSON.",
        title: "every error answer to a generated request is JSON, and says so",
        expects: "on a 4xx or 5xx: `Content-Type: application/json` (parameters allowed) and a JSON body",
        judge: |_, s| {
            let raw = s.raw()?;
            if raw.status < 400 {
                return None;
            }
            let content_type = raw
                .headers
                .get("content-type")
                .and_then(|v| v.to_str().ok())
                .unwrap_or_default();
            if !is_json_media_type(content_type) {
                return Some(format!("Content-Type `{content_type}`: {}", s.summary()));
            }
            raw.json()
                .is_none()
                .then(|| format!("not JSON: {}", s.summary()))
        },
    },
    Invariant {
        id: "invariants/errors-carry-project-uuid",
        level: Level::Must,
        section: "7",
        quote: "Both carry the `Content-Type: application/json` header and an `X-Project-Uuid` header.",
        title: "every error answer to a generated request carries X-Project-Uuid, a uuid",
        expects: "on a 4xx or 5xx: an `X-Project-Uuid` header whose value is a uuid",
        judge: |_, s| {
            let raw = s.raw()?;
            if raw.status < 400 {
                return None;
            }
            match raw
                .headers
                .get("x-project-uuid")
                .and_then(|v| v.to_str().ok())
            {
                None => Some(format!("no X-Project-Uuid: {}", s.summary())),
                Some(v) if !conformance_model::profile::is_uuid(v) => {
                    Some(format!("X-Project-Uuid `{v}` is not a uuid"))
                }
                Some(_) => None,
            }
        },
    },
    Invariant {
        id: "invariants/400-shape",
        level: Level::Must,
        section: "7.1",
        quote: "When the response is 400, it has the 7.1 shape.",
        title: "every 400 answer to a generated request has the 7.1 shape",
        expects: "on a 400: code (integer), message (string), request_id (string), status false",
        judge: |_, s| {
            let raw = s.raw()?;
            if raw.status != 400 {
                return None;
            }
            let problems = conformance_wire::envelope::shape_400(raw.json().as_ref());
            (!problems.is_empty()).then(|| format!("{} ({})", s.summary(), problems.join("; ")))
        },
    },
    Invariant {
        id: "invariants/417-shape",
        level: Level::Must,
        section: "7.2",
        quote: "When validation of the request fails, the response status is 417 and has the 7.2 shape.",
        title: "every 417 answer to a generated request has the 7.2 shape",
        expects: "on a 417: code (integer), errors (array), status false",
        judge: |_, s| {
            let raw = s.raw()?;
            if raw.status != 417 {
                return None;
            }
            let problems = conformance_wire::envelope::shape_417(raw.json().as_ref());
            (!problems.is_empty()).then(|| format!("{} ({})", s.summary(), problems.join("; ")))
        },
    },
    Invariant {
        id: "invariants/validation-is-417",
        level: Level::Must,
        section: "7.2",
        quote: "When validation of the request fails, the response status is 417 and has the 7.2 shape.",
        title: "a body that differs from valid_body only in its fields is served or fails validation, never 400",
        expects: "a JSON object body with other field values, fields left out or fields added: a 2xx, a 417, or another refusal, never 400",
        judge: |family, s| {
            let raw = s.raw()?;
            (family == Family::Fields && raw.status == 400)
                .then(|| format!("a failed validation answered 400, not 417: {}", s.summary()))
        },
    },
    Invariant {
        id: "invariants/no-server-errors",
        level: Level::Should,
        section: "7",
        quote: "RFC 9110 section 15.6: a 5xx says the server failed; the description names no 5xx, and a request it can refuse is answered 4xx",
        title: "no generated request makes the server fail (5xx)",
        expects: "no 5xx answer (a MUST under --strict)",
        judge: |_, s| {
            let raw = s.raw()?;
            (raw.status >= 500).then(|| format!("the server failed: {}", s.summary()))
        },
    },
];

pub use conformance_wire::envelope::is_json_media_type;

/// Every invariant `sent` breaks, by id.
pub fn broken(family: Family, sent: &Sent) -> Vec<(&'static str, String)> {
    ALL.iter()
        .filter_map(|inv| (inv.judge)(family, sent).map(|why| (inv.id, why)))
        .collect()
}
