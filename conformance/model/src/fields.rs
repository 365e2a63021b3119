//! A component's auth settings as its profile declares them (`fields:`),
//! and the oracle they give: whether a body keeps every setting or breaks
//! one, known before it is sent.
//!
//! The description says the body "carries the fields configured in the
//! auth section of the component's settings", whose "names, types and
//! constraints are defined by that configuration", and §7 rule 1: "When
//! validation of the request fails, the response status is 417". It shows
//! no configuration; the team that runs the gate knows its own:
//!
//! ```yaml
//! fields:
//!   username: {type: string, required: true, min_length: 3, max_length: 20, pattern: "^[a-z][a-z0-9_]*$"}
//!   pin: {type: integer, required: true, minimum: 1000, maximum: 9999, secret: true}
//!   currency: {type: string, enum: [EUR, USD]}
//!   remember: {type: boolean}
//! ```
//!
//! What the description leaves open stays open, and the oracle says so
//! ([`Judgement::open`]): a length that counts differently in characters,
//! UTF-16 units and bytes; an integer written `4.0`; a number beyond 2^53
//! (where JavaScript's numbers stop being exact); `null` for an optional
//! field (many frameworks read it as absent). A field the settings do not
//! define is the profile's choice (`choices.unknown_fields`).

use std::fmt;

use serde::Deserialize;
use serde_json::Value;

/// The JSON type a field holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FieldType {
    String,
    Integer,
    Number,
    Boolean,
}

impl FieldType {
    /// "a string", "an integer": the type as a message names it.
    pub fn with_article(self) -> &'static str {
        match self {
            FieldType::Integer => "an integer",
            FieldType::String => "a string",
            FieldType::Number => "a number",
            FieldType::Boolean => "a boolean",
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            FieldType::String => "string",
            FieldType::Integer => "integer",
            FieldType::Number => "number",
            FieldType::Boolean => "boolean",
        }
    }
}

/// A `pattern`: its text as written, and the regular expression.
///
/// The dialect is Rust's `regex` crate (the syntax of RE2 and Go's
/// `regexp`: no look-around, no backreferences), Unicode-aware as Python's
/// `re`, JavaScript's with the `u` flag and most servers' engines are:
/// `\w`, `\d`, `\s`, `\b` and case-insensitive matching know every
/// script, so `^[\w .'-]+$` matches `Zoë Łódź`. A pattern is searched
/// for anywhere in the value, as JSON Schema's `pattern` is: anchor it
/// (`^…$`) to hold the whole value.
#[derive(Clone)]
pub struct Pattern {
    pub source: String,
    regex: regex_automata::meta::Regex,
}

impl Pattern {
    pub fn new(source: &str) -> Result<Self, String> {
        use crate::limits::{PATTERN_BYTES, PATTERN_CACHE_BYTES, PATTERN_COMPILED_BYTES, over};
        use regex_automata::meta::Regex;
        if source.len() > PATTERN_BYTES {
            return Err(over(
                "`pattern`'s length in bytes",
                source.len(),
                PATTERN_BYTES,
            ));
        }
        let config = Regex::config()
            .nfa_size_limit(Some(PATTERN_COMPILED_BYTES))
            .onepass_size_limit(Some(PATTERN_COMPILED_BYTES))
            .hybrid_cache_capacity(PATTERN_CACHE_BYTES);
        let regex = Regex::builder()
            .configure(config)
            .build(source)
            .map_err(|e| match (e.size_limit(), e.syntax_error()) {
                (Some(limit), _) => format!(
                    "`pattern` compiles to more than {limit} bytes, the cap of one pattern (see \"Caps\" in conformance/README.md); a counted repetition of a Unicode class (`\\w{{1,200}}`) is the usual cause: bound the length with `max_length` instead"
                ),
                // regex-syntax's message spans lines (the pattern, a caret,
                // the reason): its last line says what is wrong.
                (None, Some(syntax)) => format!(
                    "`pattern` is not a regular expression of the regex crate's dialect: {}",
                    syntax.to_string().lines().last().unwrap_or_default().trim_start_matches("error: ")
                ),
                (None, None) => format!("`pattern` is not a regular expression: {e}"),
            })?;
        Ok(Pattern {
            source: source.to_owned(),
            regex,
        })
    }

    /// The bytes the compiled pattern takes (its caches apart).
    pub fn memory_usage(&self) -> usize {
        self.regex.memory_usage()
    }

    pub fn matches(&self, text: &str) -> bool {
        self.regex.is_match(text)
    }
}

impl fmt::Debug for Pattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.source)
    }
}

/// One declared field.
#[derive(Clone, Debug)]
pub struct Field {
    pub name: String,
    pub kind: FieldType,
    /// Default false.
    pub required: bool,
    /// In characters (see the module's doc for the other counts).
    pub min_length: Option<u64>,
    pub max_length: Option<u64>,
    pub pattern: Option<Pattern>,
    pub minimum: Option<f64>,
    pub maximum: Option<f64>,
    /// `enum`: the only values allowed.
    pub allowed: Option<Vec<Value>>,
    /// Its values are secrets in every output.
    pub secret: bool,
}

/// A field as written in a profile, before its bounds are checked.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawField {
    #[serde(rename = "type")]
    kind: FieldType,
    #[serde(default)]
    required: bool,
    #[serde(default)]
    min_length: Option<u64>,
    #[serde(default)]
    max_length: Option<u64>,
    #[serde(default)]
    pattern: Option<String>,
    #[serde(default)]
    minimum: Option<f64>,
    #[serde(default)]
    maximum: Option<f64>,
    #[serde(default, rename = "enum")]
    allowed: Option<Vec<Value>>,
    #[serde(default)]
    secret: bool,
}

impl RawField {
    /// The field, or why its declaration cannot hold (a bound on a type it
    /// does not apply to, bounds that cross, an `enum` value of another
    /// type or outside the bounds).
    fn checked(self, name: String) -> Result<Field, String> {
        let string = self.kind == FieldType::String;
        let numeric = matches!(self.kind, FieldType::Integer | FieldType::Number);
        for (key, set, applies) in [
            ("min_length", self.min_length.is_some(), string),
            ("max_length", self.max_length.is_some(), string),
            ("pattern", self.pattern.is_some(), string),
            ("minimum", self.minimum.is_some(), numeric),
            ("maximum", self.maximum.is_some(), numeric),
        ] {
            if set && !applies {
                return Err(format!(
                    "`{key}` does not apply to a field of type {}",
                    self.kind.as_str()
                ));
            }
        }
        for (key, bound) in [("minimum", self.minimum), ("maximum", self.maximum)] {
            if bound.is_some_and(|b| !b.is_finite()) {
                return Err(format!(
                    "`{key}` is not a finite number (`.nan` and `.inf` bound nothing)"
                ));
            }
        }
        if let Some(values) = &self.allowed {
            if values.len() > crate::limits::ENUM_VALUES {
                return Err(crate::limits::over(
                    "the number of `enum` values",
                    values.len(),
                    crate::limits::ENUM_VALUES,
                ));
            }
        }
        if let (Some(min), Some(max)) = (self.min_length, self.max_length) {
            if min > max {
                return Err(format!(
                    "`min_length` {min} is over `max_length` {max}: no value can keep both"
                ));
            }
        }
        if let (Some(min), Some(max)) = (self.minimum, self.maximum) {
            if min > max {
                return Err(format!(
                    "`minimum` {min} is over `maximum` {max}: no value can keep both"
                ));
            }
        }
        let pattern = self.pattern.as_deref().map(Pattern::new).transpose()?;
        if let Some(p) = &pattern {
            crate::limits::count_pattern(p.memory_usage())?;
        }
        let field = Field {
            name,
            kind: self.kind,
            required: self.required,
            min_length: self.min_length,
            max_length: self.max_length,
            pattern,
            minimum: self.minimum,
            maximum: self.maximum,
            allowed: None,
            secret: self.secret,
        };
        if let Some(values) = &self.allowed {
            if values.is_empty() {
                return Err("`enum` lists no value: no body could keep it".to_owned());
            }
            for (i, v) in values.iter().enumerate() {
                let mut judgement = Judgement::default();
                field.judge_value(v, &mut judgement);
                if let Some(why) = judgement.breaks.first() {
                    return Err(format!(
                        "`enum` value {} does not keep the field's own settings: {why}",
                        i + 1
                    ));
                }
            }
        }
        Ok(Field {
            allowed: self.allowed,
            ..field
        })
    }
}

/// A field read and checked where it is written (so an error has its
/// line); its name is set by the map that holds it.
struct CheckedField(Field);

impl<'de> Deserialize<'de> for CheckedField {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        RawField::deserialize(d)?
            .checked(String::new())
            .map(CheckedField)
            .map_err(serde::de::Error::custom)
    }
}

/// The declared fields of a component, in the order written; shared, not
/// copied, by every generated case that is judged by them.
#[derive(Clone, Debug, Default)]
pub struct Fields(pub std::sync::Arc<Vec<Field>>);

impl<'de> Deserialize<'de> for Fields {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visit;
        impl<'de> serde::de::Visitor<'de> for Visit {
            type Value = Fields;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a mapping of field names to {type, required, min_length, max_length, pattern, minimum, maximum, enum, secret}")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<Fields, A::Error> {
                let mut fields: Vec<Field> = Vec::new();
                while let Some(name) = map.next_key::<String>()? {
                    if fields.len() == crate::limits::FIELDS_PER_COMPONENT {
                        // Counted without reading the rest: 3,000 fields
                        // would each compile their pattern first.
                        let mut count = fields.len() + 1;
                        map.next_value::<serde::de::IgnoredAny>()?;
                        while map
                            .next_entry::<serde::de::IgnoredAny, serde::de::IgnoredAny>()?
                            .is_some()
                        {
                            count += 1;
                        }
                        return Err(serde::de::Error::custom(crate::limits::over(
                            "the number of declared fields",
                            count,
                            crate::limits::FIELDS_PER_COMPONENT,
                        )));
                    }
                    let CheckedField(field) = map.next_value()?;
                    if fields.iter().any(|f| f.name == name) {
                        return Err(serde::de::Error::custom(format!(
                            "`{name}` is declared twice"
                        )));
                    }
                    fields.push(Field { name, ..field });
                }
                // `fields: {}` declares a component whose auth section has
                // no field: every field of a body is then unknown.
                Ok(Fields(std::sync::Arc::new(fields)))
            }
        }
        d.deserialize_map(Visit)
    }
}

/// What a body is, by the declared settings.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Judgement {
    /// Each setting the body breaks, in words (names and bounds, never a
    /// value: it may be a secret).
    pub breaks: Vec<String>,
    /// What the description leaves open in it: any answer passes.
    pub open: Vec<String>,
    /// Fields the settings do not define (the profile's choice
    /// `unknown_fields` says what they mean).
    pub unknown: Vec<String>,
}

impl Judgement {
    /// Keeps every declared setting, with nothing open.
    pub fn keeps(&self) -> bool {
        self.breaks.is_empty() && self.open.is_empty()
    }
}

/// 2^53: beyond it, not every number a JSON parser reads is exact.
const EXACT: f64 = 9_007_199_254_740_992.0;

impl Fields {
    pub fn get(&self, name: &str) -> Option<&Field> {
        self.0.iter().find(|f| f.name == name)
    }

    /// Judges `body` (a JSON value) against every declared field.
    pub fn judge(&self, body: &Value) -> Judgement {
        let mut j = Judgement::default();
        let Some(object) = body.as_object() else {
            j.breaks.push("the body is not a JSON object".to_owned());
            return j;
        };
        for field in self.0.iter() {
            match object.get(&field.name) {
                None if field.required => {
                    let elsewhere = object.keys().any(|k| {
                        k != &field.name
                            && k.to_lowercase() == field.name.to_lowercase()
                            && self.get(k).is_none()
                    });
                    j.breaks.push(match elsewhere {
                        true => format!(
                            "`{}` is required, and present only under another letter case",
                            field.name
                        ),
                        false => format!("`{}` is required and missing", field.name),
                    });
                }
                None => {}
                Some(Value::Null) if !field.required => j.open.push(format!(
                    "`{}` is null, which a framework may read as absent",
                    field.name
                )),
                Some(value) => field.judge_value(value, &mut j),
            }
        }
        for key in object.keys() {
            if self.get(key).is_none() {
                j.unknown.push(format!("`{key}`"));
            }
        }
        j
    }

    /// Whether `body` keeps every setting (used to check `valid_body`).
    pub fn broken_by(&self, body: &serde_json::Map<String, Value>) -> Vec<String> {
        let j = self.judge(&Value::Object(body.clone()));
        let mut out = j.breaks;
        out.extend(
            j.unknown
                .iter()
                .map(|k| format!("{k} is not a declared field")),
        );
        out
    }

    /// The names of the secret fields.
    pub fn secret_names(&self) -> impl Iterator<Item = &str> {
        self.0.iter().filter(|f| f.secret).map(|f| f.name.as_str())
    }
}

impl Field {
    fn judge_value(&self, value: &Value, j: &mut Judgement) {
        let name = &self.name;
        let kind = self.kind.with_article();
        match (self.kind, value) {
            (_, Value::Null) => j
                .breaks
                .push(format!("`{name}` is null where {kind} is declared")),
            (FieldType::String, Value::String(s)) => self.judge_string(s, j),
            (FieldType::Boolean, Value::Bool(_)) => {}
            (FieldType::Integer | FieldType::Number, Value::Number(n)) => {
                let integral = n.is_i64() || n.is_u64();
                let v = n.as_f64().unwrap_or(f64::NAN);
                if self.kind == FieldType::Integer && !integral {
                    if v.fract() == 0.0 {
                        j.open.push(format!(
                            "`{name}` is an integer written with a fraction or an exponent"
                        ));
                    } else {
                        j.breaks.push(format!("`{name}` is not an integer"));
                        return;
                    }
                }
                if !v.is_finite() || v.abs() > EXACT {
                    j.open.push(format!(
                        "`{name}` is beyond 2^53, where not every parser holds it exactly"
                    ));
                    return;
                }
                if let Some(min) = self.minimum {
                    if v < min {
                        j.breaks
                            .push(format!("`{name}` is under its minimum {min}"));
                    }
                }
                if let Some(max) = self.maximum {
                    if v > max {
                        j.breaks.push(format!("`{name}` is over its maximum {max}"));
                    }
                }
            }
            (_, other) => j.breaks.push(format!(
                "`{name}` is {} where {kind} is declared",
                json_type(other)
            )),
        }
        if let Some(allowed) = &self.allowed {
            let same = |a: &Value| match (a, value) {
                (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
                _ => a == value,
            };
            if !allowed.iter().any(same) && !matches!(value, Value::Null) {
                j.breaks
                    .push(format!("`{name}` is not one of its `enum` values"));
            }
        }
    }

    fn judge_string(&self, s: &str, j: &mut Judgement) {
        let name = &self.name;
        // Characters (Unicode scalar values), UTF-16 units (JavaScript's
        // `length`) and bytes: where they disagree on a bound, it is open.
        let counts = [
            s.chars().count() as u64,
            s.encode_utf16().count() as u64,
            s.len() as u64,
        ];
        for (bound, too_short) in [(self.min_length, true), (self.max_length, false)] {
            let Some(bound) = bound else { continue };
            let out = |n: &u64| if too_short { *n < bound } else { *n > bound };
            let verdicts: Vec<bool> = counts.iter().map(out).collect();
            if verdicts.iter().all(|&o| o) {
                j.breaks.push(match too_short {
                    true => format!("`{name}` is shorter than its min_length {bound}"),
                    false => format!("`{name}` is longer than its max_length {bound}"),
                });
            } else if verdicts.iter().any(|&o| o) {
                j.open.push(format!(
                    "`{name}`'s length counts differently in characters, UTF-16 units and bytes"
                ));
            }
        }
        if let Some(p) = &self.pattern {
            if !p.matches(s) {
                j.breaks
                    .push(format!("`{name}` does not match its pattern"));
            }
        }
    }
}

fn json_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn fields() -> Fields {
        serde_yaml::from_str(
            r#"
username: {type: string, required: true, min_length: 3, max_length: 20, pattern: "^[a-z][a-z0-9_]*$"}
pin: {type: integer, required: true, minimum: 1000, maximum: 9999, secret: true}
currency: {type: string, enum: [EUR, USD]}
remember: {type: boolean}
"#,
        )
        .expect("fields")
    }

    #[test]
    fn a_body_that_keeps_every_setting() {
        let f = fields();
        let j = f.judge(&json!({"username": "ada_l", "pin": 4821, "currency": "EUR"}));
        assert!(j.keeps() && j.unknown.is_empty(), "{j:?}");
    }

    #[test]
    fn each_setting_broken() {
        let f = fields();
        let ok = json!({"username": "ada_l", "pin": 4821});
        let broken = |patch: Value| {
            let mut body = ok.clone();
            for (k, v) in patch.as_object().expect("object") {
                match v {
                    Value::String(s) if s == "DROP" => {
                        body.as_object_mut().expect("object").remove(k);
                    }
                    _ => {
                        body[k] = v.clone();
                    }
                }
            }
            f.judge(&body)
        };
        for (patch, why) in [
            (json!({"pin": true}), "a boolean where an integer"),
            (json!({"pin": "4821"}), "a string where an integer"),
            (json!({"pin": null}), "null"),
            (json!({"pin": 12}), "under its minimum"),
            (json!({"pin": 10000}), "over its maximum"),
            (json!({"pin": 4821.5}), "not an integer"),
            (json!({"username": "ab"}), "shorter than"),
            (json!({"username": "a".repeat(21)}), "longer than"),
            (json!({"username": "Ada"}), "pattern"),
            (json!({"currency": "GBP"}), "enum"),
            (json!({"remember": 1}), "a number where a boolean"),
            (
                json!({"username": "DROP", "USERNAME": "ada_l"}),
                "another letter case",
            ),
            (json!({"pin": "DROP"}), "required and missing"),
        ] {
            let j = broken(patch.clone());
            assert!(j.breaks.iter().any(|b| b.contains(why)), "{patch}: {j:?}");
        }
    }

    #[test]
    fn what_the_description_leaves_open_is_open() {
        let f = fields();
        for patch in [
            json!({"pin": 4821.0}),
            json!({"currency": null}),
            json!({"pin": 18446744073709551616u128 as f64}),
        ] {
            let mut body = json!({"username": "ada_l", "pin": 4821});
            for (k, v) in patch.as_object().expect("object") {
                body[k] = v.clone();
            }
            let j = f.judge(&body);
            assert!(j.breaks.is_empty() && !j.open.is_empty(), "{patch}: {j:?}");
        }
        // Three characters, six UTF-16 units: under a max_length of 4 in
        // one count, over it in another.
        let short: Fields =
            serde_yaml::from_str("name: {type: string, max_length: 4}").expect("fields");
        let j = short.judge(&json!({"name": "😀😀😀"}));
        assert!(j.breaks.is_empty() && !j.open.is_empty(), "{j:?}");
        let j = f.judge(&json!({"username": "ada_l", "pin": 4821, "extra": 1}));
        assert!(j.keeps() && j.unknown.len() == 1, "{j:?}");
    }

    #[test]
    fn impossible_declarations_are_refused() {
        for (yaml, why) in [
            (
                "a: {type: string, min_length: 5, max_length: 2}",
                "over `max_length`",
            ),
            (
                "a: {type: integer, minimum: 9, maximum: 1}",
                "over `maximum`",
            ),
            ("a: {type: integer, min_length: 1}", "does not apply"),
            (
                "a: {type: string, pattern: \"(\"}",
                "not a regular expression",
            ),
            ("a: {type: string, enum: []}", "no value"),
            ("a: {type: integer, enum: [x]}", "does not keep"),
            ("a: {type: text}", "unknown variant"),
            ("a: {type: string, max: 3}", "unknown field"),
        ] {
            let e = serde_yaml::from_str::<Fields>(yaml)
                .err()
                .map(|e| e.to_string());
            assert!(e.as_deref().unwrap_or("").contains(why), "{yaml}: {e:?}");
        }
    }

    /// The dialect servers use: `\w`, `\d`, `\s` and case-insensitive
    /// matching know every script; a pattern not anchored is found anywhere.
    #[test]
    fn patterns_are_unicode_aware_and_searched_anywhere() {
        let p = |source: &str| Pattern::new(source).expect("a pattern");
        assert!(p(r"^[\w .'-]+$").matches("Zoë Łódź"));
        assert!(p(r"^[\w .'-]+$").matches("O'Brien-Müller"));
        assert!(!p(r"^[\w .'-]+$").matches("ada@example.com"));
        assert!(p(r"^\d+$").matches("٣٤"), "Arabic-Indic digits are digits");
        assert!(
            p(r"^\S+\s\S+$").matches("a\u{a0}b"),
            "a no-break space is a space"
        );
        assert!(p(r"(?i)^łódź$").matches("ŁÓDŹ"));
        assert!(p(r"\d").matches("abc1def"), "not anchored: anywhere");
        assert!(!p(r"^\d$").matches("abc1def"));
        // Look-around and backreferences are not of the dialect: refused
        // with what is wrong, not misread.
        for bad in [r"(?=a)b", r"(a)\1"] {
            let e = Pattern::new(bad).err().unwrap_or_default();
            assert!(e.contains("regex crate's dialect"), "{bad}: {e}");
        }
    }

    /// `pin` and `PIN` declared both are two fields: neither is the other
    /// "under another letter case".
    #[test]
    fn names_that_differ_only_in_letter_case_are_two_fields() {
        let f: Fields = serde_yaml::from_str(
            "pin: {type: integer, required: true}\nPIN: {type: string, required: true}",
        )
        .expect("fields");
        assert!(f.judge(&json!({"pin": 1, "PIN": "x"})).keeps());
        let j = f.judge(&json!({"PIN": "x"}));
        assert_eq!(j.breaks, ["`pin` is required and missing"], "{j:?}");
        let j = f.judge(&json!({"Pin": 1, "PIN": "x"}));
        assert!(j.breaks[0].contains("another letter case"), "{j:?}");
    }
}
