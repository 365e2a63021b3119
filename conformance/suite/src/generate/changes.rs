//! A generated body: the fields of a `valid_body` (and the declared ones it
//! leaves out) and the changes made to them, written as JSON text, not
//! built as `serde_json::Value`, so that numbers no `Value` holds
//! (`18446744073709551616`, `1e400`) can be sent as they are.

use serde_json::Value;

use conformance_model::fields::Fields as Declared;

use super::literals::Lit;

/// The field name used for an unknown field.
const UNKNOWN: &str = "conformance_unknown";

/// A body's fields as (name, JSON text), in `valid_body`'s order, then the
/// declared fields it leaves out (absent until a change sets them).
#[derive(Clone, Debug)]
pub struct Fields(Vec<(String, Option<String>)>);

/// One change to a body.
#[derive(Clone, Debug)]
pub enum Change {
    /// The `i`th field set to this JSON text.
    Set(usize, Lit),
    /// The `i`th field left out.
    Drop(usize),
    /// The `i`th field's name in flipped letter case (`email` -> `EMAIL`).
    Rename(usize),
    /// An unknown field added with this value.
    Add(&'static str),
}

impl Fields {
    pub fn of(body: &serde_json::Map<String, Value>) -> Self {
        Fields(
            body.iter()
                .map(|(k, v)| (k.clone(), Some(v.to_string())))
                .collect(),
        )
    }

    /// `body`'s fields, then the declared ones it leaves out.
    pub fn with_declared(body: &serde_json::Map<String, Value>, declared: &Declared) -> Self {
        let mut fields = Self::of(body);
        for f in declared.0.iter() {
            if !body.contains_key(&f.name) {
                fields.0.push((f.name.clone(), None));
            }
        }
        fields
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn name(&self, i: usize) -> Option<&str> {
        self.0.get(i).map(|f| f.0.as_str())
    }

    /// The body as JSON text, with `changes` applied in order. Each added
    /// field has a key of its own (`conformance_unknown`, then `_2`, ...):
    /// the body stays a JSON object with distinct keys.
    pub fn with(&self, changes: &[Change]) -> String {
        let mut fields: Vec<Option<(String, String)>> = self
            .0
            .iter()
            .map(|(k, v)| v.clone().map(|v| (k.clone(), v)))
            .collect();
        let mut added = 0;
        for change in changes {
            match change {
                Change::Set(i, lit) => {
                    if let (Some(slot), Some((name, _))) = (fields.get_mut(*i), self.0.get(*i)) {
                        *slot = Some((name.clone(), lit.to_string()));
                    }
                }
                Change::Drop(i) => {
                    if let Some(f) = fields.get_mut(*i) {
                        *f = None;
                    }
                }
                Change::Rename(i) => {
                    let taken: Vec<String> = (fields.iter().enumerate())
                        .filter(|(j, _)| j != i)
                        .filter_map(|(_, f)| f.as_ref().map(|f| f.0.clone()))
                        .collect();
                    if let (Some(Some(f)), Some(other)) = (fields.get(*i), self.renamed(*i, &taken))
                    {
                        let value = f.1.clone();
                        fields[*i] = Some((other, value));
                    }
                }
                &Change::Add(lit) => {
                    // A key of its own, also where a field is named so.
                    let key = loop {
                        added += 1;
                        let key = if added == 1 {
                            UNKNOWN.to_owned()
                        } else {
                            format!("{UNKNOWN}_{added}")
                        };
                        if !self.0.iter().any(|(k, _)| *k == key) {
                            break key;
                        }
                    };
                    fields.push(Some((key, lit.to_owned())));
                }
            }
        }
        let parts: Vec<String> = fields
            .into_iter()
            .flatten()
            .map(|(k, v)| format!("{}:{v}", Value::String(k)))
            .collect();
        format!("{{{}}}", parts.join(","))
    }

    /// The `i`th field's name in another letter case that names no other
    /// field, of the body or declared, nor any of `taken` (the names the
    /// body holds besides): its letter case flipped (`email` → `EMAIL`),
    /// else one letter's flipped in turn (`pin` and `PIN` both declared:
    /// `Pin`). A body never holds a name twice (RFC 8259 leaves repeated
    /// names to the parser, and the README says none is sent). `None`
    /// where every such spelling is taken.
    fn renamed(&self, i: usize, taken: &[String]) -> Option<String> {
        let name = self.name(i)?;
        let chars: Vec<char> = name.chars().collect();
        let one_flipped = (0..chars.len()).map(|k| {
            let mut c = chars.clone();
            c[k..=k].iter_mut().for_each(|ch| {
                *ch = conformance_model::spelling::flip_case(&ch.to_string())
                    .chars()
                    .next()
                    .unwrap_or(*ch)
            });
            c.into_iter().collect::<String>()
        });
        std::iter::once(conformance_model::spelling::flip_case(name))
            .chain(one_flipped)
            .find(|other| {
                other != name
                    && !self.0.iter().any(|(k, _)| k == other)
                    && !taken.iter().any(|k| k == other)
            })
    }

    /// A change in words.
    pub fn describe(&self, change: &Change) -> String {
        let name = |i: usize| self.name(i).unwrap_or("?");
        let short = |lit: &str| {
            if lit.len() > 24 {
                format!("{}… ({} bytes)", &lit[..12], lit.len())
            } else {
                lit.to_owned()
            }
        };
        match change {
            Change::Set(i, lit) => format!("`{}` set to {}", name(*i), short(lit)),
            Change::Drop(i) => format!("`{}` left out", name(*i)),
            Change::Rename(i) => match self.renamed(*i, &[]) {
                Some(other) => format!("`{}` sent as `{other}`", name(*i)),
                None => format!(
                    "`{}` as it is (every other letter case is another field's name)",
                    name(*i)
                ),
            },
            Change::Add(lit) => format!("an unknown field: {}", short(lit)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::literals::all_literals;

    #[test]
    fn changes_are_applied_in_order_and_written_as_json() {
        let body = serde_json::json!({"a": "x", "b": 1});
        let f = Fields::of(body.as_object().unwrap());
        assert_eq!(f.with(&[]), r#"{"a":"x","b":1}"#);
        assert_eq!(
            f.with(&[
                Change::Set(1, "18446744073709551616".into()),
                Change::Drop(0)
            ]),
            r#"{"b":18446744073709551616}"#
        );
        assert_eq!(
            f.with(&[Change::Add("null")]),
            r#"{"a":"x","b":1,"conformance_unknown":null}"#
        );
        for lit in all_literals() {
            assert!(
                lit.starts_with(['"', '[', '{'])
                    || lit.parse::<f64>().is_ok()
                    || ["null", "true", "false"].contains(&lit),
                "{lit}"
            );
        }
    }

    /// The keys of a JSON object as written, repeated ones included.
    struct Keys(Vec<String>);

    impl<'de> serde::Deserialize<'de> for Keys {
        fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            struct V;
            impl<'de> serde::de::Visitor<'de> for V {
                type Value = Keys;
                fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                    f.write_str("an object")
                }
                fn visit_map<A: serde::de::MapAccess<'de>>(
                    self,
                    mut m: A,
                ) -> Result<Keys, A::Error> {
                    let mut keys = Vec::new();
                    while let Some((k, _)) = m.next_entry::<String, serde::de::IgnoredAny>()? {
                        keys.push(k);
                    }
                    Ok(Keys(keys))
                }
            }
            d.deserialize_map(V)
        }
    }

    /// Fields whose names differ only in letter case (`pin`, `PIN`, `Pin`)
    /// stay apart: no change, nor any pair of changes, sends a body with a
    /// name twice (the README: repeated names are never sent).
    #[test]
    fn no_body_holds_a_name_twice() {
        let declared: Declared = serde_yaml::from_str(
            "pin: {type: integer}\nPIN: {type: integer}\nPin: {type: integer}\nconformance_unknown: {type: integer}",
        )
        .expect("fields");
        let body = serde_json::json!({"pin": 1, "PIN": 2});
        let f = Fields::with_declared(body.as_object().expect("object"), &declared);
        let mut changes = vec![Change::Add("0")];
        for i in 0..f.len() {
            changes.extend([
                Change::Rename(i),
                Change::Set(i, "3".into()),
                Change::Drop(i),
            ]);
        }
        for a in &changes {
            for b in &changes {
                for c in &changes {
                    let text = f.with(&[a.clone(), b.clone(), c.clone()]);
                    let Keys(keys) = serde_json::from_str(&text).expect("an object");
                    let mut distinct = keys.clone();
                    distinct.sort();
                    distinct.dedup();
                    assert_eq!(distinct.len(), keys.len(), "{a:?} {b:?} {c:?}: {text}");
                }
            }
        }
        assert_eq!(f.with(&[Change::Rename(0)]), r#"{"pIn":1,"PIN":2}"#);
        assert_eq!(f.describe(&Change::Rename(0)), "`pin` sent as `pIn`");
    }
}
