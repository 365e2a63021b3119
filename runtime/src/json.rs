//! JSON read into a [`Value`]: the workspace's one visitor of any JSON
//! value ([`Any`]), and the reading of a body of any depth ([`parse`]).
//!
//! serde_json stops at 128 levels of nesting, a limit of its parser, not of
//! JSON (RFC 8259 section 9 lets a parser set one): an answer that echoes a
//! deeply nested request (a validation error quoting its input) is still
//! JSON. Such a body is read with the levels past [`MAX_DEPTH`] kept as a
//! marker string; they are checked to be JSON all the same, by serde's
//! `IgnoredAny`, which serde_json skips without recursing.
//!
//! Who reads a JSON value into a tree with more to do than serde_json's
//! own `Value` does (stop at a depth, refuse a repeated key, keep an outline
//! of a large body) says what in a [`Keep`], and reads with [`Any`]: the
//! reference server refuses repeated keys, the runner outlines large
//! answers, [`parse`] stops at [`MAX_DEPTH`].

use std::fmt;

use serde::Deserialize;
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
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
            let value = Any::new(&Levels).deserialize(&mut de).ok()?;
            de.end().ok()?;
            Some(value)
        }
        Err(_) => None,
    }
}

/// Whether `bytes` are one JSON value (whatever its depth): exactly what
/// [`parse`] returns `Some` for, read as a stream that builds nothing
/// (strings are decoded, as serde_json's `Value` decodes them, so a lone
/// surrogate escape is refused alike). A 900 KiB answer of small objects
/// is a tree of tens of megabytes, and a run asks "is it JSON" of every
/// answer. Past serde_json's nesting limit it is [`parse`] that decides.
pub fn is_json(bytes: &[u8]) -> bool {
    let mut de = serde_json::Deserializer::from_slice(bytes);
    match Skim::deserialize(&mut de) {
        Ok(Skim) => de.end().is_ok(),
        Err(e) if e.to_string().starts_with("recursion limit exceeded") => parse(bytes).is_some(),
        Err(_) => false,
    }
}

/// The JSON text `bytes` with only the members `keys` of its root object
/// kept, read as a stream: every other member is checked to be JSON and let
/// go, never built (a 900 KiB error answer whose envelope a check reads is
/// tens of megabytes as a tree). Exactly [`parse`]'s value with the root's
/// other members removed; a root that is not an object is [`parse`]'s own.
pub fn members(bytes: &[u8], keys: &[&str]) -> Option<Value> {
    let mut de = serde_json::Deserializer::from_slice(bytes);
    match (Members { keys }).deserialize(&mut de) {
        Ok(Some(kept)) => de.end().ok().map(|()| Value::Object(kept)),
        Ok(None) => parse(bytes),
        Err(e) if e.to_string().starts_with("recursion limit exceeded") => {
            let mut value = parse(bytes)?;
            if let Value::Object(map) = &mut value {
                map.retain(|key, _| keys.contains(&key.as_str()));
            }
            Some(value)
        }
        Err(_) => None,
    }
}

/// Reads the root for [`members`]: `Some` of the members kept where it is
/// an object, `None` (having skimmed it) where it is not.
struct Members<'k> {
    keys: &'k [&'k str],
}

impl<'de> DeserializeSeed<'de> for Members<'_> {
    type Value = Option<Map<String, Value>>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Members<'_> {
    type Value = Option<Map<String, Value>>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_str<E>(self, _: &str) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_unit<E>(self) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        while seq.next_element::<Skim>()?.is_some() {}
        Ok(None)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut kept = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            if self.keys.contains(&key.as_str()) {
                kept.insert(key, map.next_value::<Value>()?);
            } else {
                map.next_value::<Skim>()?;
            }
        }
        Ok(Some(kept))
    }
}

/// Any JSON value, read and let go: nothing is kept.
struct Skim;

impl<'de> Deserialize<'de> for Skim {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(SkimVisitor)
    }
}

struct SkimVisitor;

impl<'de> Visitor<'de> for SkimVisitor {
    type Value = Skim;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, _: bool) -> Result<Skim, E> {
        Ok(Skim)
    }

    fn visit_i64<E>(self, _: i64) -> Result<Skim, E> {
        Ok(Skim)
    }

    fn visit_u64<E>(self, _: u64) -> Result<Skim, E> {
        Ok(Skim)
    }

    fn visit_f64<E>(self, _: f64) -> Result<Skim, E> {
        Ok(Skim)
    }

    fn visit_str<E>(self, _: &str) -> Result<Skim, E> {
        Ok(Skim)
    }

    fn visit_unit<E>(self) -> Result<Skim, E> {
        Ok(Skim)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Skim, A::Error> {
        while seq.next_element::<Skim>()?.is_some() {}
        Ok(Skim)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Skim, A::Error> {
        while map.next_key::<Skim>()?.is_some() {
            map.next_value::<Skim>()?;
        }
        Ok(Skim)
    }
}

/// Keeps [`MAX_DEPTH`] levels, the deeper ones as [`TOO_DEEP`].
struct Levels;

impl Keep for Levels {
    fn too_deep(&self, depth: usize) -> Option<Value> {
        (depth >= MAX_DEPTH).then(|| Value::String(TOO_DEEP.to_owned()))
    }
}

/// What a read with [`Any`] keeps of a JSON value. Every method has the
/// default of serde_json's own `Value`: everything kept, as written, the
/// last of two equal keys winning.
pub trait Keep {
    /// A key an object already holds is an error of the read (`duplicate
    /// key` and its path, such as `a.b[1].c`, never a value), rather than
    /// a second value for it.
    const REFUSES_REPEATED_KEYS: bool = false;

    /// What stands for a value at `depth` (the root's is 0) that is read
    /// only to check it is JSON; `None`: it is read and kept.
    fn too_deep(&self, _depth: usize) -> Option<Value> {
        None
    }

    /// Whether the next item of an array, or the value of the next member
    /// of an object, is kept, the array or object being at `depth` and
    /// holding `kept` of them so far; `false`: it is read, checked to be
    /// JSON, and counted in [`Keep::left_out`]. Asked before each item of
    /// an array is read (the last time, before its end is), and after each
    /// key of an object.
    fn keep_next(&self, _within: Within, _depth: usize, _kept: usize) -> bool {
        true
    }

    /// What says that `count` items of an array, or members of an object,
    /// were left out: an item put last (its key is not used), or a member.
    fn left_out(&self, _within: Within, _count: usize) -> (String, Value) {
        (String::new(), Value::Null)
    }

    /// A string (or a key) as kept.
    fn string(&self, s: String) -> String {
        s
    }
}

/// What a [`Keep`] is asked about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Within {
    Array,
    Object,
}

/// Any JSON value read into a [`Value`] as its [`Keep`] says: a
/// [`DeserializeSeed`] for `serde_json::Deserializer` (or any other).
pub struct Any<'a, K> {
    keep: &'a K,
    depth: usize,
    at: Option<&'a Path<'a>>,
}

impl<'a, K: Keep> Any<'a, K> {
    /// The root value of a read.
    pub fn new(keep: &'a K) -> Self {
        Any {
            keep,
            depth: 0,
            at: None,
        }
    }

    fn child<'b>(&'b self, at: &'b Path<'b>) -> Any<'b, K> {
        Any {
            keep: self.keep,
            depth: self.depth + 1,
            at: Some(at),
        }
    }
}

/// Where a value sits: the chain of keys and indices up to the root,
/// borrowed from the stack, so nothing is allocated unless a key repeats.
#[derive(Clone, Copy)]
enum Step<'a> {
    Key(&'a str),
    Index(usize),
}

#[derive(Clone, Copy)]
struct Path<'a> {
    step: Step<'a>,
    parent: Option<&'a Path<'a>>,
}

impl fmt::Display for Path<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(parent) = self.parent {
            write!(f, "{parent}")?;
        }
        match self.step {
            Step::Key(key) if self.parent.is_some() => write!(f, ".{key}"),
            Step::Key(key) => write!(f, "{key}"),
            Step::Index(i) => write!(f, "[{i}]"),
        }
    }
}

impl<'de, K: Keep> DeserializeSeed<'de> for Any<'_, K> {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        if let Some(marker) = self.keep.too_deep(self.depth) {
            IgnoredAny::deserialize(d)?;
            return Ok(marker);
        }
        d.deserialize_any(self)
    }
}

impl<'de, K: Keep> Visitor<'de> for Any<'_, K> {
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
        // As serde_json's `Value` holds it: a non-finite number is null.
        Ok(serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(self.keep.string(v.to_owned())))
    }

    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(self.keep.string(v)))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        let mut left_out = 0usize;
        loop {
            if self.keep.keep_next(Within::Array, self.depth, items.len()) {
                let here = Path {
                    step: Step::Index(items.len()),
                    parent: self.at,
                };
                match seq.next_element_seed(self.child(&here))? {
                    Some(item) => items.push(item),
                    None => break,
                }
            } else {
                match seq.next_element::<IgnoredAny>()? {
                    Some(_) => left_out += 1,
                    None => break,
                }
            }
        }
        if left_out > 0 {
            items.push(self.keep.left_out(Within::Array, left_out).1);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut members = Map::new();
        let mut left_out = 0usize;
        while let Some(key) = map.next_key::<String>()? {
            if !self
                .keep
                .keep_next(Within::Object, self.depth, members.len())
            {
                map.next_value::<IgnoredAny>()?;
                left_out += 1;
                continue;
            }
            let here = Path {
                step: Step::Key(&key),
                parent: self.at,
            };
            if K::REFUSES_REPEATED_KEYS && members.contains_key(&key) {
                return Err(de::Error::custom(format_args!("duplicate key `{here}`")));
            }
            let value = map.next_value_seed(self.child(&here))?;
            members.insert(self.keep.string(key), value);
        }
        if left_out > 0 {
            let (key, value) = self.keep.left_out(Within::Object, left_out);
            members.insert(key, value);
        }
        Ok(Value::Object(members))
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

    /// Keeps nothing but what serde_json's `Value` keeps.
    struct Defaults;

    impl Keep for Defaults {}

    /// [`members`] is [`parse`] with the root's other members removed,
    /// member order and a repeated key's last value included, at any depth.
    #[test]
    fn members_are_the_parse_with_the_others_removed() {
        let deep = nested(300);
        for text in [
            r#"{"code":400,"pad":[{"a":0},{"b":[1,2]}],"message":"m","status":false}"#,
            r#"{"status":true,"code":1,"status":false,"x":{"code":2}}"#,
            r#"{"errors":[{"field":"a"}],"code":417}"#,
            r#"{}"#,
            r#"[{"code":1}]"#,
            r#""code""#,
            "7",
            deep.as_str(),
        ] {
            let keys = ["code", "message", "status", "errors"];
            let mut whole = parse(text.as_bytes()).expect("JSON");
            if let Value::Object(map) = &mut whole {
                map.retain(|key, _| keys.contains(&key.as_str()));
            }
            let ours = members(text.as_bytes(), &keys).expect("JSON");
            assert_eq!(ours.to_string(), whole.to_string(), "{text}");
        }
        for not_json in ["{\"code\":1,\"pad\":[1,}", "{\"code\":1} 2", ""] {
            assert_eq!(members(not_json.as_bytes(), &["code"]), None, "{not_json}");
        }
    }

    #[test]
    fn the_defaults_read_as_serde_jsons_value_does() {
        for text in [
            r#"{"a":1,"b":[true,null,-2,3.5e300,"x\u00e9",{"c":{}}],"d":18446744073709551615}"#,
            r#"{"k":1,"j":2,"k":3}"#,
            "[[], {}, \"\", 0]",
        ] {
            let mut de = serde_json::Deserializer::from_str(text);
            let ours = Any::new(&Defaults).deserialize(&mut de).expect("JSON");
            let theirs: Value = serde_json::from_str(text).expect("JSON");
            assert_eq!(ours, theirs, "{text}");
            assert_eq!(ours.to_string(), theirs.to_string(), "{text}: member order");
        }
    }

    /// `is_json` says of every text what `parse` does, deep or not.
    #[test]
    fn is_json_agrees_with_parse() {
        for text in [
            nested(3),
            nested(300),
            nested(300).replacen(']', "}", 1),
            nested(300) + "x",
            " {\"a\": 1} \n".to_owned(),
            "{\"a\": 1} {}".to_owned(),
            String::new(),
            "nul".to_owned(),
            "[1, 2,]".to_owned(),
            "\"\\ud800\"".to_owned(),
        ] {
            assert_eq!(
                is_json(text.as_bytes()),
                parse(text.as_bytes()).is_some(),
                "{text}"
            );
        }
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
