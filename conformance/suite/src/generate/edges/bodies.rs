//! Odd bodies: whole bodies that are not the valid one (not JSON, not an
//! object, around the valid one), other media types, and every single
//! change of every field of each `valid_body`.

use serde_json::Value;

use crate::generate::Family;
use crate::generate::changes::{Change, Fields};
use crate::generate::literals::{OTHER_TYPES, same_type};
use conformance_model::profile::Component;
use conformance_wire::request::{Op, Req};
use conformance_wire::valid::ValidRequests;

use super::Pending;

/// Bodies that are not a JSON object of fields.
pub(super) fn whole_bodies(t: &ValidRequests, out: &mut Vec<Pending>) {
    for op in Op::BOTH {
        let Some(c) = t.primary(op) else { continue };
        let valid = valid_body_text(c).unwrap_or_else(|| "{}".to_owned());
        let nested = format!("{{\"deep\": {}{}}}", "[".repeat(300), "]".repeat(300));
        let duplicate = match c
            .authorize
            .as_ref()
            .and_then(|a| a.valid_body.keys().next())
        {
            Some(first) => format!("{{\"{first}\": null, {}", &valid[1..]),
            None => "{\"a\": 1, \"a\": 2}".to_owned(),
        };
        let mut bom = b"\xEF\xBB\xBF".to_vec();
        bom.extend_from_slice(valid.as_bytes());
        let bodies: Vec<(Vec<u8>, &str)> = vec![
            (b"{}".to_vec(), "an empty object"),
            (b"[]".to_vec(), "an array"),
            (b"\"fields\"".to_vec(), "a string"),
            (b"1".to_vec(), "a number"),
            (b"null".to_vec(), "null"),
            (b"{\"email\": \"\xff\xfe\"}".to_vec(), "not UTF-8"),
            (b"{\"email\": ".to_vec(), "cut short"),
            (bom, "after a byte-order mark"),
            (duplicate.into_bytes(), "with a key twice"),
            (nested.into_bytes(), "nested 300 deep"),
        ];
        out.push(Pending::new(
            Family::WholeBody,
            format!("{} {}: no body", op.method(), c.name),
            t.valid(op, c).map(Req::without_body),
        ));
        for (body, what) in bodies {
            out.push(Pending::new(
                Family::WholeBody,
                format!("{} {}: a body that is {what}", op.method(), c.name),
                t.valid(op, c).map(|r| r.raw_body(body)),
            ));
        }
    }
}

/// The JSON media type spelt as HTTP allows (RFC 9110 section 8.3.1:
/// type and subtype are case-insensitive; parameters may follow).
pub const JSON_SPELLINGS: &[&str] = &[
    "application/json; charset=utf-8",
    "Application/JSON",
    "application/json;charset=UTF-8",
];

pub(super) fn media_types(t: &ValidRequests, out: &mut Vec<Pending>) {
    for op in Op::BOTH {
        for c in t.components(op) {
            if c.authorize.is_none() {
                continue;
            }
            for spelling in JSON_SPELLINGS {
                out.push(Pending::new(
                    Family::MediaType,
                    format!("{} {}: Content-Type `{spelling}`", op.method(), c.name),
                    t.valid(op, c)
                        .and_then(|r| r.set_header("Content-Type", spelling)),
                ));
            }
        }
    }
}

/// Every single change of every field: another value of its type, a value
/// of another type, the field left out; and one unknown field added.
pub(super) fn field_changes(t: &ValidRequests, out: &mut Vec<Pending>) {
    for op in Op::BOTH {
        for c in t.components(op) {
            let Some(a) = &c.authorize else { continue };
            if let Some(declared) = &c.fields {
                declared_field_changes(t, op, c, declared, out);
                continue;
            }
            let fields = Fields::of(&a.valid_body);
            for (i, value) in a.valid_body.values().enumerate() {
                let other_types = OTHER_TYPES.iter().filter(|lit| !same_kind(value, lit));
                let mut changes: Vec<Change> = same_type(value)
                    .iter()
                    .chain(other_types)
                    .map(|lit| Change::Set(i, std::borrow::Cow::Borrowed(*lit)))
                    .collect();
                changes.push(Change::Drop(i));
                for change in changes {
                    let body = fields.with(std::slice::from_ref(&change));
                    out.push(Pending::new(
                        Family::Fields,
                        format!("{} {}: {}", op.method(), c.name, fields.describe(&change)),
                        t.valid(op, c).map(|r| r.raw_body(body)),
                    ));
                }
            }
            let change = Change::Add(OTHER_TYPES[1]);
            out.push(Pending::new(
                Family::Fields,
                format!("{} {}: {}", op.method(), c.name, fields.describe(&change)),
                t.valid(op, c)
                    .map(|r| r.raw_body(fields.with(std::slice::from_ref(&change)))),
            ));
        }
    }
}

/// Every single change of every declared field: each value its settings
/// make worth sending, left out, its name in another letter case; and one
/// unknown field added. Each answer is judged by the oracle too.
fn declared_field_changes(
    t: &ValidRequests,
    op: Op,
    c: &Component,
    declared: &conformance_model::fields::Fields,
    out: &mut Vec<Pending>,
) {
    let Some(a) = &c.authorize else { return };
    let fields = Fields::with_declared(&a.valid_body, declared);
    let mut changes = Vec::new();
    for i in 0..fields.len() {
        let Some(field) = fields.name(i).and_then(|n| declared.get(n)) else {
            continue;
        };
        changes.extend(
            crate::generate::literals::declared_literals(field)
                .into_iter()
                .map(|lit| Change::Set(i, lit)),
        );
        // The valid value itself as a framework may normalise it, where a
        // pattern decides (an enum's values are among the literals).
        let valid = fields
            .name(i)
            .and_then(|n| a.valid_body.get(n))
            .and_then(Value::as_str);
        // Never a secret's value in another spelling: the scrubber knows
        // its spellings, not every normalisation of it.
        if let (Some(valid), Some(_), false) = (valid, &field.pattern, field.secret) {
            changes.extend(
                crate::generate::literals::normalised_near_misses(valid)
                    .into_iter()
                    .map(|n| Change::Set(i, Value::String(n).to_string().into())),
            );
        }
        changes.extend([Change::Drop(i), Change::Rename(i)]);
    }
    changes.push(Change::Add(OTHER_TYPES[1]));
    for change in changes {
        let body = fields.with(std::slice::from_ref(&change));
        let mut p = Pending::new(
            Family::Fields,
            format!("{} {}: {}", op.method(), c.name, fields.describe(&change)),
            t.valid(op, c).map(|r| r.raw_body(body.clone())),
        );
        p.judged_body = Some((declared.clone(), body));
        out.push(p);
    }
}

/// Whether a raw JSON literal is of the same JSON type as `value`.
fn same_kind(value: &Value, lit: &str) -> bool {
    match serde_json::from_str::<Value>(lit) {
        Ok(v) => std::mem::discriminant(&v) == std::mem::discriminant(value),
        Err(_) => false,
    }
}

/// The component's valid body as JSON text.
fn valid_body_text(c: &Component) -> Option<String> {
    serde_json::to_string(&c.authorize.as_ref()?.valid_body).ok()
}
