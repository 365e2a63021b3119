//! The values a generated change may set a body's field to, as JSON text,
//! simplest first (so shrinking ends on the simplest that fails): values
//! of every JSON type at the edges of what servers hold, and where a field
//! is declared ([`conformance_model::fields`]), the values its settings
//! make worth sending: at and beyond each bound, in and out of its `enum`
//! and `pattern`, and a valid value as a framework may normalise it.

use serde_json::Value;

use std::borrow::Cow;

use conformance_model::fields::{Field, FieldType};
use conformance_model::limits::ENUM_VALUES_SENT;

/// A value as JSON text.
pub type Lit = Cow<'static, str>;

/// Strings: simple first, so shrinking ends on the simplest that fails.
pub const STRINGS: &[&str] = &[
    r#""""#,
    r#""x""#,
    r#""Zoë Łódź""#,
    r#""😀𝄞""#,
    // e and a combining acute accent; a zero-width space inside a word.
    r#""e\u0301""#,
    r#""a\u200bb""#,
    r#""\u0000""#,
    LONG_STRING,
];

const LONG_STRING: &str = concat!(
    "\"",
    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
    "\""
);

/// Numbers, as JSON text: the edges of i64 and u64, beyond, and not integers.
pub const NUMBERS: &[&str] = &[
    "0",
    "-1",
    "9223372036854775807",
    "-9223372036854775808",
    "18446744073709551616",
    "1e300",
    "-0.0",
    "0.5",
];

pub const BOOLEANS: &[&str] = &["true", "false"];

/// A value of each JSON type.
pub const OTHER_TYPES: &[&str] = &["null", "0", r#""x""#, "true", "[]", "{}"];

/// Other values of the same JSON type as `value`.
pub fn same_type(value: &Value) -> &'static [&'static str] {
    match value {
        Value::String(_) => STRINGS,
        Value::Number(_) => NUMBERS,
        Value::Bool(_) => BOOLEANS,
        _ => &[],
    }
}

/// Every value a generated change may set, simplest first.
pub(super) fn all_literals() -> Vec<&'static str> {
    OTHER_TYPES
        .iter()
        .chain(BOOLEANS)
        .chain(NUMBERS)
        .chain(STRINGS)
        .copied()
        .collect()
}

/// The values worth sending for a declared field, simplest first.
pub(crate) fn declared_literals(f: &Field) -> Vec<Lit> {
    let mut out: Vec<String> = Vec::new();
    let text = |s: &str| Value::String(s.to_owned()).to_string();
    match f.kind {
        FieldType::String => {
            let min = f.min_length.unwrap_or(0);
            let max = f.max_length.unwrap_or(min.max(8));
            for n in [min, min.saturating_sub(1), max, max + 1] {
                let n = usize::try_from(n).unwrap_or(0).min(4096);
                out.push(text(&"a".repeat(n)));
            }
            for candidate in ["", "a", "Z", "0", "-", "a b", "é", "aaaaaaaa"] {
                out.push(text(candidate));
            }
            for v in sent_enum_values(f) {
                out.push(v.to_string());
                if let Some(s) = v.as_str() {
                    out.extend(normalised_near_misses(s).iter().map(|n| text(n)));
                }
            }
            out.push(text("conformance-not-listed"));
            out.extend(STRINGS.iter().map(|s| (*s).to_owned()));
        }
        FieldType::Integer | FieldType::Number => {
            let mut edges = Vec::new();
            for bound in [f.minimum, f.maximum].into_iter().flatten() {
                edges.extend([bound, bound - 1.0, bound + 1.0]);
            }
            if let (Some(a), Some(b)) = (f.minimum, f.maximum) {
                edges.push(((a + b) / 2.0).floor());
            }
            for e in edges {
                if e.fract() == 0.0 && e.abs() < 9.0e15 {
                    out.push(format!("{}", e as i64));
                } else {
                    out.push(format!("{e}"));
                }
            }
            if let Some(m) = f.minimum.or(f.maximum) {
                out.push(format!("{}", m + 0.5));
                if m.fract() == 0.0 && m.abs() < 9.0e15 {
                    out.push(format!("{}.0", m as i64));
                }
            }
            for v in sent_enum_values(f) {
                out.push(v.to_string());
            }
            out.extend(NUMBERS.iter().map(|s| (*s).to_owned()));
        }
        FieldType::Boolean => {
            out.extend(["true", "false", "0", "1", r#""true""#].map(str::to_owned));
        }
    }
    out.extend(OTHER_TYPES.iter().map(|s| (*s).to_owned()));
    let mut seen = std::collections::HashSet::new();
    out.into_iter()
        .filter(|l| seen.insert(l.clone()))
        .map(Cow::Owned)
        .collect()
}

/// A valid string as a framework may take it after normalising it, where
/// the declared settings (an `enum`, a `pattern`) make it invalid as sent:
/// white space around it (trimmed), its letter case flipped (folded), its
/// accented letters decomposed (Unicode normalisation). A server that
/// accepts one has validated something other than what it was sent.
pub(crate) fn normalised_near_misses(valid: &str) -> Vec<String> {
    let mut out = vec![
        format!(" {valid}"),
        format!("{valid} "),
        conformance_model::spelling::flip_case(valid),
    ];
    let decomposed = decompose(valid);
    if decomposed != valid {
        out.push(decomposed);
    }
    out.retain(|n| n != valid);
    out
}

/// `s` with the common precomposed Latin letters written as a base letter
/// and a combining mark (NFD for them; other characters as they are).
fn decompose(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 4);
    for ch in s.chars() {
        let (base, mark) = match ch {
            'à' => ('a', '\u{300}'),
            'á' => ('a', '\u{301}'),
            'â' => ('a', '\u{302}'),
            'ä' => ('a', '\u{308}'),
            'ç' => ('c', '\u{327}'),
            'è' => ('e', '\u{300}'),
            'é' => ('e', '\u{301}'),
            'ê' => ('e', '\u{302}'),
            'ë' => ('e', '\u{308}'),
            'í' => ('i', '\u{301}'),
            'ñ' => ('n', '\u{303}'),
            'ó' => ('o', '\u{301}'),
            'ö' => ('o', '\u{308}'),
            'ú' => ('u', '\u{301}'),
            'ü' => ('u', '\u{308}'),
            'É' => ('E', '\u{301}'),
            'Ä' => ('A', '\u{308}'),
            'Ö' => ('O', '\u{308}'),
            'Ü' => ('U', '\u{308}'),
            other => {
                out.push(other);
                continue;
            }
        };
        out.push(base);
        out.push(mark);
    }
    out
}

/// The `enum` values a run sends: all of a short list; of a long one
/// ([`ENUM_VALUES_SENT`] or more), the first, the last and others evenly
/// spaced, so that an `enum` of 256 values costs 16 requests, not 256.
fn sent_enum_values(f: &Field) -> impl Iterator<Item = &Value> {
    let all = f.allowed.as_deref().unwrap_or_default();
    let n = all.len();
    let sent = n.min(ENUM_VALUES_SENT);
    (0..sent).filter_map(move |k| match sent {
        1 => all.first(),
        _ => all.get(k * (n - 1) / (sent - 1)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use conformance_model::fields::Fields as Declared;

    #[test]
    fn a_valid_value_is_sent_as_a_framework_would_normalise_it() {
        assert_eq!(
            normalised_near_misses("de-CH"),
            [" de-CH", "de-CH ", "DE-ch"]
        );
        let cafe = normalised_near_misses("Café");
        assert!(cafe.contains(&"Cafe\u{301}".to_owned()), "{cafe:?}");
        assert!(!normalised_near_misses("7").contains(&"7".to_owned()));
    }

    /// Of a long `enum`, the first, the last and others evenly spaced are
    /// sent, at most `ENUM_VALUES_SENT`.
    #[test]
    fn a_long_enum_sends_a_spread_of_its_values() {
        let values: Vec<String> = (0..200).map(|i| format!("v{i}")).collect();
        let declared: Declared = serde_yaml::from_str(&format!(
            "e: {{type: string, enum: [{}]}}",
            values.join(", ")
        ))
        .expect("fields");
        let sent: Vec<&Value> = sent_enum_values(&declared.0[0]).collect();
        assert_eq!(sent.len(), ENUM_VALUES_SENT);
        assert_eq!(sent.first().and_then(|v| v.as_str()), Some("v0"));
        assert_eq!(sent.last().and_then(|v| v.as_str()), Some("v199"));
        let short: Declared =
            serde_yaml::from_str("e: {type: string, enum: [a, b]}").expect("fields");
        assert_eq!(sent_enum_values(&short.0[0]).count(), 2);
    }
}
