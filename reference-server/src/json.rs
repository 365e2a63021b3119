//! JSON as the server reads a body: serde_json's parser, with objects that
//! refuse a key they already hold, at any depth.
//!
//! `serde_json::Value` keeps the last of two equal keys, so
//! `{"pin":"x","pin":1234}` would be validated as `{"pin":1234}` while a
//! proxy or another parser in front of the server saw `"x"`. A repeated key
//! is refused instead (400, spec/README.md: duplicate keys), naming its
//! path, never a value.

use component_auth_bindings::json::{Any, Keep};
use serde::de::DeserializeSeed;
use serde_json::Value;

/// Parses `text` as JSON whose objects have no repeated keys. The error is
/// serde_json's (position included); a repeated key is an error of category
/// `Data` reading `duplicate key `a.b``.
pub(crate) fn from_str(text: &str) -> Result<Value, serde_json::Error> {
    let mut de = serde_json::Deserializer::from_str(text);
    let value = Any::new(&NoRepeatedKeys).deserialize(&mut de)?;
    de.end()?;
    Ok(value)
}

/// The first JSON value of `text`, whatever follows it (the fault
/// `trailing-bytes-accepted`: a streaming decoder that reads one value).
pub(crate) fn first_value(text: &str) -> Result<Value, serde_json::Error> {
    let mut de = serde_json::Deserializer::from_str(text);
    Any::new(&NoRepeatedKeys).deserialize(&mut de)
}

/// Every value kept, as serde_json's `Value` keeps it, but a key an object
/// already holds, refused; the depth is serde_json's (its recursion limit).
struct NoRepeatedKeys;

impl Keep for NoRepeatedKeys {
    const REFUSES_REPEATED_KEYS: bool = true;
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::error::Category;

    fn refused(text: &str) -> String {
        match from_str(text) {
            Ok(v) => panic!("{text} was taken as {v}"),
            Err(e) => {
                assert_eq!(e.classify(), Category::Data, "{e}");
                e.to_string()
            }
        }
    }

    #[test]
    fn same_values_as_serde_json_when_no_key_repeats() {
        for text in [
            r#"{"a":1,"b":[true,null,-2,3.5,"x",{"c":{}}],"d":18446744073709551615}"#,
            r#"[{"a":1},{"a":2}]"#,
            "\"text\"",
            "42",
            "  null ",
        ] {
            let ours = from_str(text).unwrap_or_else(|e| panic!("{text}: {e}"));
            let theirs: Value = serde_json::from_str(text).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(ours, theirs, "{text}");
        }
    }

    #[test]
    fn a_repeated_key_is_refused_at_any_depth_naming_its_path() {
        let top = refused(r#"{"pin":"x","pin":1234}"#);
        assert!(top.starts_with("duplicate key `pin`"), "{top}");
        assert!(!top.contains("1234"), "{top}");
        let deep = refused(r#"{"a":{"b":[1,{"c":1,"c":2}]}}"#);
        assert!(deep.starts_with("duplicate key `a.b[1].c`"), "{deep}");
        let in_array = refused(r#"[{"k":1,"k":1}]"#);
        assert!(in_array.starts_with("duplicate key `[0].k`"), "{in_array}");
        // The same key spelled with an escape is the same key.
        refused(r#"{"pin":1,"p\u0069n":2}"#);
    }

    #[test]
    fn syntax_errors_and_depth_stay_serde_json_s() {
        for text in ["{", "{} {}", "[1,]", "nul"] {
            let e = from_str(text)
                .err()
                .unwrap_or_else(|| panic!("{text} taken"));
            assert_ne!(e.classify(), Category::Data, "{text}: {e}");
        }
        let deep = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
        let e = from_str(&deep)
            .err()
            .unwrap_or_else(|| panic!("deep taken"));
        assert!(e.to_string().contains("recursion limit"), "{e}");
    }
}
