//! JSON of any depth read into a [`Value`].
//!
//! serde_json stops at 128 levels of nesting, a limit of its parser, not of
//! JSON (RFC 8259 section 9 lets a parser set one): an answer that echoes a
//! deeply nested request (a validation error quoting its input) is still
//! JSON. Such a body is read with the levels past [`MAX_DEPTH`] kept as a
//! marker string; they are checked to be JSON all the same, by serde's
//! `IgnoredAny`, which serde_json skips without recursing.

use std::fmt;

use serde::Deserialize;
use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};

/// Levels kept as values; deeper ones are [`TOO_DEEP`].
pub const MAX_DEPTH: usize = 100;

/// What stands for a value nested deeper than [`MAX_DEPTH`] levels.
pub const TOO_DEEP: &str = "[JSON nested deeper than 100 levels]";

/// `bytes` parsed as one JSON value, whatever its depth; `None` when it is
/// not JSON.
pub fn parse(bytes: &[u8]) -> Option<Value> {
    match serde_json::from_slice(bytes) {
        Ok(value) => Some(value),
        Err(e) if e.to_string().starts_with("recursion limit exceeded") => {
            let mut de = serde_json::Deserializer::from_slice(bytes);
            let value = Levels(MAX_DEPTH).deserialize(&mut de).ok()?;
            de.end().ok()?;
            Some(value)
        }
        Err(_) => None,
    }
}

/// A value with this many levels left to keep.
struct Levels(usize);

impl<'de> DeserializeSeed<'de> for Levels {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        if self.0 == 0 {
            IgnoredAny::deserialize(d)?;
            return Ok(Value::String(TOO_DEEP.to_owned()));
        }
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Levels {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }

    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element_seed(Levels(self.0 - 1))? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            let value = map.next_value_seed(Levels(self.0 - 1))?;
            out.insert(key, value);
        }
        Ok(Value::Object(out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nested(depth: usize) -> String {
        format!(
            "{{\"code\": 417, \"errors\": [{{\"input\": {}1{}}}], \"status\": false}}",
            "[".repeat(depth),
            "]".repeat(depth)
        )
    }

    #[test]
    fn shallow_json_is_read_as_serde_json_reads_it() {
        let text = nested(3);
        assert_eq!(
            parse(text.as_bytes()),
            serde_json::from_str::<Value>(&text).ok()
        );
    }

    #[test]
    fn json_deeper_than_serde_jsons_limit_is_still_json() {
        let text = nested(300);
        assert!(
            serde_json::from_str::<Value>(&text).is_err(),
            "the limit moved"
        );
        let value = parse(text.as_bytes()).expect("JSON");
        assert_eq!(value["code"], 417);
        assert_eq!(value["status"], false);
        let mut deepest = &value["errors"][0]["input"];
        let mut levels = 3;
        while let Some(inner) = deepest.get(0) {
            deepest = inner;
            levels += 1;
        }
        assert_eq!(deepest, TOO_DEEP);
        assert_eq!(levels, MAX_DEPTH);
    }

    #[test]
    fn deep_text_that_is_not_json_is_not() {
        for text in [
            nested(300).replacen(']', "}", 1),
            nested(300) + "x",
            nested(100_000)[..200_000].to_owned(),
        ] {
            assert_eq!(parse(text.as_bytes()), None);
        }
    }
}
