//! Optional nullable properties: three states, held in
//! `Option<Option<T>>`: absent (`None`, left out when serialised), `null`
//! (`Some(None)`) and a value (`Some(Some(v))`).
//!
//! serde reads a `null` into an `Option<Option<T>>` as `None`, the same as
//! a property left out; [`deserialize`] (with `#[serde(default)]`) reads it
//! as `Some(None)`, so an answer tells the two apart and a value read and
//! written again keeps its `null`.

use serde::{Deserialize, Deserializer};

/// `#[serde(default, deserialize_with = "client_runtime::nullable::deserialize")]`:
/// a property present is `Some` (holding `None` for `null`); one left out
/// is the field's default, `None`.
pub fn deserialize<'de, D, T>(deserializer: D) -> Result<Option<Option<T>>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    Option::<T>::deserialize(deserializer).map(Some)
}

#[cfg(test)]
mod tests {
    #[derive(serde::Serialize, serde::Deserialize, Debug, PartialEq)]
    struct Patch {
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "super::deserialize"
        )]
        milestone: Option<Option<i64>>,
    }

    #[test]
    fn absent_null_and_a_value_are_three_states() {
        for (value, text) in [
            (None, "{}"),
            (Some(None), r#"{"milestone":null}"#),
            (Some(Some(3)), r#"{"milestone":3}"#),
        ] {
            let patch = Patch { milestone: value };
            assert_eq!(serde_json::to_string(&patch).unwrap(), text);
            assert_eq!(serde_json::from_str::<Patch>(text).unwrap(), patch);
        }
    }
}
