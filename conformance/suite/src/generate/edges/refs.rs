//! Odd refs: each component's name, tag and uuid in other forms.

use crate::generate::Family;
use conformance_wire::request::Op;
use conformance_wire::valid::ValidRequests;

use super::Pending;

/// Near misses of each name and tag, the uuid in other forms, and refs
/// made to trip a parser.
pub(super) fn refs(t: &ValidRequests, out: &mut Vec<Pending>) {
    let op = Op::AuthClaims;
    let taken = |r: &str| {
        t.profile
            .components
            .iter()
            .any(|c| c.name == r || c.tag == r || c.uuid == r)
    };
    for c in &t.profile.components {
        for key in [&c.name, &c.tag] {
            let chars: Vec<char> = key.chars().collect();
            let mut variants = Vec::new();
            if chars.len() >= 3 {
                variants.push((chars[..chars.len() - 1].iter().collect(), "its beginning"));
            }
            if chars.len() >= 4 {
                let half = chars.len().div_ceil(2).max(2);
                variants.push((chars[..half].iter().collect(), "its first half"));
            }
            variants.push((format!("{key}x"), "with a character added"));
            variants.push((format!("{key}.json"), "with a `.json` suffix"));
            variants.push((format!(" {key}"), "after a space"));
            variants.push((format!("{key} "), "before a space"));
            for (variant, what) in variants {
                if taken(&variant) {
                    continue;
                }
                out.push(Pending::new(
                    Family::Ref,
                    format!("GET ref `{variant}`: `{key}` {what}"),
                    t.valid_with_ref(op, c, &variant),
                ));
            }
        }
        let uuid = &c.uuid;
        for (form, what) in [
            (uuid.to_uppercase(), "in upper case"),
            (format!("{{{uuid}}}"), "in braces"),
            (format!("urn:uuid:{uuid}"), "as a URN"),
            (uuid.replace('-', ""), "without hyphens"),
        ] {
            if form == *uuid {
                continue;
            }
            let mut p = Pending::new(
                Family::UuidForm,
                format!("GET ref `{form}`: {}'s uuid {what}", c.name),
                t.valid_with_ref(op, c, &form),
            );
            p.reference = Some(t.valid_with_ref(op, c, uuid));
            out.push(p);
        }
    }
    let Some(c) = t.primary(op) else { return };
    let long = format!("conformance-{}", "a".repeat(4096));
    for (reference, what) in [
        (long.as_str(), "of 4 KiB"),
        ("conformance\u{0}ref", "with a NUL (%00)"),
        ("conformance/ref", "with an encoded `/` (%2F)"),
    ] {
        out.push(Pending::new(
            Family::OddRef,
            format!("GET a ref {what}"),
            t.valid_with_ref(op, c, reference),
        ));
    }
    out.push(Pending::new(
        Family::OddRef,
        "GET a ref that is not UTF-8 (%FF%FE)".to_owned(),
        t.valid(op, c).map(|r| r.with_encoded_ref("%FF%FE")),
    ));
}
