//! JSON as the server reads a body: serde_json's parser, noting every key
//! that an object repeats, at any depth.
//!
//! `serde_json::Value` silently keeps the last of two equal keys, so
//! `{"pin":"x","pin":1234}` would be validated as `{"pin":1234}` while a
//! proxy or another parser in front of the server saw `"x"`. The paths of
//! repeated keys come back beside the value, and validation refuses them
//! (417, rule `duplicate`), naming the path, never a value.

use std::cell::RefCell;
use std::fmt;

use serde::de::{DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};

/// Parses `text` as JSON (errors are serde_json's, position included).
/// Returns the value (of a repeated key, the last, as serde_json keeps) and
/// the path of every repetition in document order: `pin`, `n.a[0].b`.
pub(crate) fn from_str(text: &str) -> Result<(Value, Vec<String>), serde_json::Error> {
    let repeated = RefCell::new(Vec::new());
    let mut de = serde_json::Deserializer::from_str(text);
    let value = Node {
        at: None,
        repeated: &repeated,
    }
    .deserialize(&mut de)?;
    de.end()?;
    Ok((value, repeated.into_inner()))
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

/// One value to read, where it sits, and where repeated keys are noted.
struct Node<'a> {
    at: Option<&'a Path<'a>>,
    repeated: &'a RefCell<Vec<String>>,
}

impl<'de> DeserializeSeed<'de> for Node<'_> {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Node<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
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
        Ok(Value::from(v))
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
        loop {
            let here = Path {
                step: Step::Index(items.len()),
                parent: self.at,
            };
            let node = Node {
                at: Some(&here),
                repeated: self.repeated,
            };
            match seq.next_element_seed(node)? {
                Some(item) => items.push(item),
                None => return Ok(Value::Array(items)),
            }
        }
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut fields = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            let here = Path {
                step: Step::Key(&key),
                parent: self.at,
            };
            if fields.contains_key(&key) {
                self.repeated.borrow_mut().push(here.to_string());
            }
            let value = map.next_value_seed(Node {
                at: Some(&here),
                repeated: self.repeated,
            })?;
            fields.insert(key, value);
        }
        Ok(Value::Object(fields))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> (Value, Vec<String>) {
        from_str(text).unwrap_or_else(|e| panic!("{text}: {e}"))
    }

    #[test]
    fn same_values_as_serde_json_and_no_repeats_when_no_key_repeats() {
        for text in [
            r#"{"a":1,"b":[true,null,-2,3.5,"x",{"c":{}}],"d":18446744073709551615}"#,
            r#"[{"a":1},{"a":2}]"#,
            "\"text\"",
            "42",
            "  null ",
        ] {
            let (ours, repeated) = parse(text);
            let theirs: Value = serde_json::from_str(text).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(ours, theirs, "{text}");
            assert!(repeated.is_empty(), "{text}: {repeated:?}");
        }
    }

    #[test]
    fn every_repeated_key_is_noted_at_any_depth_by_its_path() {
        let (value, repeated) = parse(r#"{"pin":"x","pin":1234}"#);
        assert_eq!(repeated, ["pin"]);
        // The value is serde_json's: the last one.
        assert_eq!(value, serde_json::json!({"pin": 1234}));
        let (_, repeated) = parse(r#"{"a":{"b":[1,{"c":1,"c":2,"c":3}]},"a":0}"#);
        assert_eq!(repeated, ["a.b[1].c", "a.b[1].c", "a"]);
        let (_, repeated) = parse(r#"[{"k":1,"k":1}]"#);
        assert_eq!(repeated, ["[0].k"]);
        // The same key spelled with an escape is the same key.
        let (_, repeated) = parse(r#"{"pin":1,"p\u0069n":2}"#);
        assert_eq!(repeated, ["pin"]);
    }

    #[test]
    fn syntax_errors_and_depth_stay_serde_json_s() {
        for text in ["{", "{} {}", "[1,]", "nul", r#"{"a":1,"a":}"#] {
            assert!(from_str(text).is_err(), "{text} taken");
        }
        let deep = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
        let e = from_str(&deep)
            .err()
            .unwrap_or_else(|| panic!("deep taken"));
        assert!(e.to_string().contains("recursion limit"), "{e}");
    }
}
