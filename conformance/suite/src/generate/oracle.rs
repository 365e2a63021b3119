//! The exact oracle of a generated body, where its component declares its
//! `fields` ([`conformance_model::fields`]): what the answer must be is known before
//! the body is sent.
//!
//! - a body that breaks a declared setting fails validation: a 417 in the
//!   7.2 shape (§7 rule 1);
//! - a body that keeps every setting does not fail validation: no 417;
//! - a body whose only departure is a field the settings do not define is
//!   the profile's choice `unknown_fields` (`refused`: a 417; `ignored`:
//!   no 417);
//! - anything the description leaves open in it (see [`conformance_model::fields`])
//!   makes any answer pass.
//!
//! A GET body is judged so only where the profile declares that Auth Claims
//! validates it (`choices.get_body_validated: true`).

use serde_json::Value;

use conformance_model::choices::{Choices, UnknownFields};
use conformance_model::fields::Fields;
use conformance_wire::request::{Op, Sent};

/// A body that breaks a declared setting was not answered 417 (7.2).
pub const BREAKING: &str = "fields-breaking";
/// A body that keeps every declared setting was answered 417.
pub const KEEPING: &str = "fields-keeping";
/// A body with a field the settings do not define was not answered as
/// `choices.unknown_fields` says.
pub const UNKNOWN: &str = "fields-unknown";

/// What the answer to `body` (JSON text) broke of the oracle, by id.
pub fn judge(
    declared: &Fields,
    op: Op,
    body: &str,
    sent: &Sent,
    choices: &Choices,
) -> Vec<(&'static str, String)> {
    let validated = choices.get_body_validated();
    if op == Op::AuthClaims && !(validated.declared && validated.value) {
        return Vec::new();
    }
    let (Ok(value), Some(raw)) = (serde_json::from_str::<Value>(body), sent.raw()) else {
        return Vec::new();
    };
    let j = declared.judge(&value);
    let shape = conformance_wire::envelope::shape_417(sent.members());
    let is_417 = raw.status == 417 && shape.is_empty();
    // A 417 out of shape says what is wrong with it, as every check does.
    let got = if raw.status == 417 && !shape.is_empty() {
        format!("{} ({})", sent.summary(), shape.join("; "))
    } else {
        sent.summary()
    };
    let mut out = Vec::new();
    if !j.breaks.is_empty() {
        if !is_417 {
            out.push((
                BREAKING,
                format!(
                    "the body breaks its declared settings ({}), so validation fails: expected a 417 in the 7.2 shape, got {got}",
                    j.breaks.join("; "),
                ),
            ));
        }
        return out;
    }
    if !j.open.is_empty() {
        return out;
    }
    if !j.unknown.is_empty() {
        let chosen = choices.unknown_fields();
        let refused = match chosen.value {
            UnknownFields::Refused => true,
            UnknownFields::Ignored => false,
        };
        let whose = match chosen.declared {
            true => "the profile's `choices.unknown_fields`",
            false => "ours (declare `choices.unknown_fields: ignored` if the server ignores them)",
        };
        if refused != is_417 {
            out.push((
                UNKNOWN,
                format!(
                    "the body keeps every declared setting but has fields they do not define ({}); where {whose} is `{}`, expected {}, got {got}",
                    j.unknown.join(", "),
                    chosen.value,
                    if refused { "a 417 in the 7.2 shape" } else { "no 417" },
                ),
            ));
        }
        return out;
    }
    if raw.status == 417 {
        out.push((
            KEEPING,
            format!(
                "the body keeps every declared setting, so validation does not fail: expected no 417, got {}",
                sent.summary()
            ),
        ));
    }
    out
}
