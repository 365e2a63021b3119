//! What must hold for every answer to a generated request, whatever was
//! sent. Each invariant is a check of the catalogue, declared with its own
//! section and level in `checks/invariants.rs`; here is what it judges (the
//! property runs judge every body by it as they go).

use super::Family;
use conformance_wire::request::Sent;

/// One invariant: what it judges of an answer. Its check (id, section,
/// level, quote and texts) is declared in `checks/invariants.rs`, the file
/// its id names.
pub struct Invariant {
    /// What a case broke of it is recorded under (a finding's `broken`):
    /// the last segment of its check's id.
    pub name: &'static str,
    /// `Some(why)` when the answer breaks it.
    pub judge: fn(Family, &Sent) -> Option<String>,
}

pub const RESPONSES_ARE_JSON: Invariant = Invariant {
    name: "responses-are-json",
    judge: |_, s| {
        if s.raw().is_none() {
            return Some(s.summary());
        }
        // Read once as it came (`BodyRead`): asked of every generated answer.
        (!s.is_json()).then(|| format!("not JSON: {}", s.summary()))
    },
};

pub const ERRORS_ARE_JSON: Invariant = Invariant {
    name: "errors-are-json",
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
        // Read once as it came (`BodyRead`): asked of every generated answer.
        (!s.is_json()).then(|| format!("not JSON: {}", s.summary()))
    },
};

pub const ERRORS_CARRY_PROJECT_UUID: Invariant = Invariant {
    name: "errors-carry-project-uuid",
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
};

pub const SHAPE_400: Invariant = Invariant {
    name: "400-shape",
    judge: |_, s| {
        let raw = s.raw()?;
        if raw.status != 400 {
            return None;
        }
        let problems = conformance_wire::envelope::shape_400(s.members());
        (!problems.is_empty()).then(|| format!("{} ({})", s.summary(), problems.join("; ")))
    },
};

pub const SHAPE_417: Invariant = Invariant {
    name: "417-shape",
    judge: |_, s| {
        let raw = s.raw()?;
        if raw.status != 417 {
            return None;
        }
        let problems = conformance_wire::envelope::shape_417(s.members());
        (!problems.is_empty()).then(|| format!("{} ({})", s.summary(), problems.join("; ")))
    },
};

pub const VALIDATION_IS_417: Invariant = Invariant {
    name: "validation-is-417",
    judge: |family, s| {
        let raw = s.raw()?;
        (family == Family::Fields && raw.status == 400)
            .then(|| format!("a failed validation answered 400, not 417: {}", s.summary()))
    },
};

pub const NO_SERVER_ERRORS: Invariant = Invariant {
    name: "no-server-errors",
    judge: |_, s| {
        let raw = s.raw()?;
        (raw.status >= 500).then(|| format!("the server failed: {}", s.summary()))
    },
};

/// Every invariant, in the order of their checks.
pub const ALL: &[Invariant] = &[
    RESPONSES_ARE_JSON,
    ERRORS_ARE_JSON,
    ERRORS_CARRY_PROJECT_UUID,
    SHAPE_400,
    SHAPE_417,
    VALIDATION_IS_417,
    NO_SERVER_ERRORS,
];

pub use conformance_wire::envelope::is_json_media_type;

/// Every invariant `sent` breaks, by name.
pub fn broken(family: Family, sent: &Sent) -> Vec<(&'static str, String)> {
    ALL.iter()
        .filter_map(|inv| (inv.judge)(family, sent).map(|why| (inv.name, why)))
        .collect()
}
