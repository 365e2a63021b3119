//! Large answers, recorded by their digest and outline.
//!
//! A record of an answer is kept for the whole run and written to its
//! snapshot; a JSON tree costs up to some 75 times its text in memory
//! (`[{"a":0},...]`), and a line diff of two large texts is quadratic. So an
//! answer body over [`LARGE_BODY`] bytes is never kept whole: it is read
//! once, as a stream, into the normalised text a small body's record would
//! serialise to (per-request values as placeholders, secrets redacted,
//! volatile paths and dates normalised, keys sorted, compact). The record
//! keeps the length and SHA-256 of that text ([`Digest`]), and its outline:
//! the same tree cut to its first levels, items, members and characters
//! ([`OUTLINE_NODES`] values at most), each cut said where it is. Two runs
//! against an unchanged server give the same record; any change to the
//! normalised body changes its hash. Checks that judge a record (the
//! envelope of every answer) see the outline, where an envelope's fields
//! are; the others judge the raw answer.
//!
//! Every string is scrubbed before it is written, so neither the outline
//! nor the hash is made from text holding a secret the run knows.

use std::borrow::Cow;
use std::cell::Cell;
use std::fmt;

use component_auth_bindings::json::{Any, Keep, Within};

use serde::Serialize;
use serde::de::Deserialize as _;
use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value;
use sha2::{Digest as _, Sha256};

use super::{PER_REQUEST_KEYS, REDACTED, Scrubber};
use crate::volatile::{DATE, VOLATILE, looks_like_a_date};

/// Answer bodies longer than this (bytes, as received) are recorded by
/// their [`Digest`] and outline. Default 16 KiB: ten times the largest
/// answer the reference server gives, and small enough that a run's records
/// stay small whatever their shape (see the README's memory budget).
pub const LARGE_BODY: usize = 16 * 1024;

/// Values an outline keeps at most, in key order, depth first.
pub const OUTLINE_NODES: usize = 256;
/// Items of an array an outline keeps.
const OUTLINE_ITEMS: usize = 8;
/// Members of an object an outline keeps.
const OUTLINE_MEMBERS: usize = 32;
/// Characters of a string (or key) an outline keeps.
const OUTLINE_CHARS: usize = 256;
/// Levels of an outline.
const OUTLINE_DEPTH: usize = 8;

/// Levels kept, as in `component_auth_bindings::json` (deeper ones are its
/// marker), so that a deep answer reads the same as a small one would.
const MAX_DEPTH: usize = component_auth_bindings::json::MAX_DEPTH;

/// What a record keeps of a large JSON body beside its outline.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Digest {
    /// Length of the normalised text, in bytes.
    pub length: usize,
    /// SHA-256 of the normalised text, lower-case hex.
    pub sha256: String,
}

/// The digest and outline of `bytes` when they are one JSON value; `None`
/// when they are not JSON (the caller records such a body as cut text).
pub fn of_json(bytes: &[u8], scrub: &Scrubber, volatile: &[String]) -> Option<(Digest, Value)> {
    let text = normalised(bytes, scrub, volatile)?;
    let hash = Sha256::digest(text.as_bytes());
    let digest = Digest {
        length: text.len(),
        sha256: hash.iter().map(|b| format!("{b:02x}")).collect(),
    };
    let mut de = serde_json::Deserializer::from_str(&text);
    let outline = Any::new(&Outline {
        budget: Cell::new(OUTLINE_NODES),
    })
    .deserialize(&mut de)
    .ok()?;
    Some((digest, outline))
}

/// A string cut to [`OUTLINE_CHARS`] characters, saying so.
fn cut(s: &str) -> String {
    match s.char_indices().nth(OUTLINE_CHARS) {
        None => s.to_owned(),
        Some((at, _)) => format!("{}… [{} bytes in all]", &s[..at], s.len()),
    }
}

/// The outline of a normalised text, read by the workspace's one visitor
/// of any JSON value ([`Any`]): its first [`OUTLINE_DEPTH`] levels, each
/// array's first [`OUTLINE_ITEMS`] items and each object's first
/// [`OUTLINE_MEMBERS`] members, [`OUTLINE_NODES`] values in all, every
/// string and key cut ([`cut`]); what is left out said where it is.
struct Outline {
    /// Values left to keep.
    budget: Cell<usize>,
}

impl Keep for Outline {
    fn keep_next(&self, within: Within, depth: usize, kept: usize) -> bool {
        let most = match within {
            Within::Array => OUTLINE_ITEMS,
            Within::Object => OUTLINE_MEMBERS,
        };
        let keep = depth + 1 < OUTLINE_DEPTH && kept < most && self.budget.get() > 0;
        if keep {
            self.budget.set(self.budget.get() - 1);
        }
        keep
    }

    fn left_out(&self, within: Within, count: usize) -> (String, Value) {
        match within {
            Within::Array => (
                String::new(),
                Value::String(format!("… {count} more items")),
            ),
            Within::Object => (
                "…".to_owned(),
                Value::String(format!("{count} more members")),
            ),
        }
    }

    fn string(&self, s: String) -> String {
        cut(&s)
    }
}

/// `bytes` read as JSON and written back normalised: the compact,
/// key-sorted text of the tree a small body's record holds. One pass,
/// memory in proportion to the text, no tree.
pub fn normalised(bytes: &[u8], scrub: &Scrubber, volatile: &[String]) -> Option<String> {
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let mut out = Vec::with_capacity(bytes.len().min(1 << 20));
    let mut path = String::new();
    Node {
        scrub,
        volatile,
        path: &mut path,
        depth: 0,
        out: &mut out,
    }
    .deserialize(&mut de)
    .ok()?;
    de.end().ok()?;
    // Only whole strings and JSON punctuation were written.
    String::from_utf8(out).ok()
}

/// One value to read and write normalised at `path`. Not the workspace's
/// visitor of any JSON value ([`Any`], which builds a tree): this one
/// writes the normalised text as it reads, so that a large body is never
/// held as a tree (memory in proportion to the text).
struct Node<'a> {
    scrub: &'a Scrubber,
    volatile: &'a [String],
    /// The value's path with scrubbed keys, as [`crate::volatile`] writes it.
    path: &'a mut String,
    depth: usize,
    out: &'a mut Vec<u8>,
}

fn write_str(out: &mut Vec<u8>, s: &str) {
    // A string always serializes.
    let _ = serde_json::to_writer(out, s);
}

impl Node<'_> {
    fn leaf<E>(self, v: impl Serialize) -> Result<(), E> {
        if self.is_volatile() {
            write_str(self.out, VOLATILE);
        } else {
            let _ = serde_json::to_writer(self.out, &v);
        }
        Ok(())
    }

    fn is_volatile(&self) -> bool {
        !self.path.is_empty() && self.volatile.iter().any(|p| p == self.path)
    }
}

impl<'de> DeserializeSeed<'de> for Node<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        if self.depth >= MAX_DEPTH {
            IgnoredAny::deserialize(d)?;
            return self.leaf(component_auth_bindings::json::TOO_DEEP);
        }
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Node<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<(), E> {
        self.leaf(v)
    }

    fn visit_i64<E>(self, v: i64) -> Result<(), E> {
        self.leaf(v)
    }

    fn visit_u64<E>(self, v: u64) -> Result<(), E> {
        self.leaf(v)
    }

    fn visit_f64<E>(self, v: f64) -> Result<(), E> {
        // As serde_json's `Value` holds it: a non-finite number is null.
        self.leaf(serde_json::Number::from_f64(v))
    }

    fn visit_str<E>(self, v: &str) -> Result<(), E> {
        if self.is_volatile() {
            write_str(self.out, VOLATILE);
            return Ok(());
        }
        let s = self.scrub.text_cow(v);
        write_str(self.out, if looks_like_a_date(&s) { DATE } else { &s });
        Ok(())
    }

    fn visit_unit<E>(self) -> Result<(), E> {
        self.out.extend_from_slice(b"null");
        Ok(())
    }

    fn visit_none<E>(self) -> Result<(), E> {
        self.out.extend_from_slice(b"null");
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let volatile = self.is_volatile();
        let len = self.path.len();
        self.path.push_str("/*");
        // Written in place (no buffer per array); a volatile one is then
        // taken back and written as its placeholder.
        let start = self.out.len();
        self.out.push(b'[');
        let mut first = true;
        loop {
            let mark = self.out.len();
            if !first {
                self.out.push(b',');
            }
            let node = Node {
                scrub: self.scrub,
                volatile: self.volatile,
                path: self.path,
                depth: self.depth + 1,
                out: self.out,
            };
            if seq.next_element_seed(node)?.is_none() {
                self.out.truncate(mark);
                break;
            }
            first = false;
        }
        self.out.push(b']');
        self.path.truncate(len);
        if volatile {
            self.out.truncate(start);
            write_str(self.out, VOLATILE);
        }
        Ok(())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let volatile = self.is_volatile();
        // Each member written in place as it comes, its key and where it
        // lies kept; members given out of key order (or a key twice) are
        // then put in order, a key given twice keeping its last value, as
        // a parsed tree does. Most objects come sorted or are small.
        let start = self.out.len();
        self.out.push(b'{');
        let mut members: Vec<(Cow<'de, str>, usize, usize)> = Vec::new();
        while let Some(key) = map.next_key_seed(Key)? {
            let per_request = PER_REQUEST_KEYS.iter().find(|(k, _)| *k == key);
            let replaced = match per_request {
                Some((_, placeholder)) => Some(*placeholder),
                None if self.scrub.is_secret_field(&key) => Some(REDACTED),
                None => None,
            };
            let shown: Cow<'de, str> = match key {
                Cow::Borrowed(k) => self.scrub.text_cow(k),
                Cow::Owned(k) => Cow::Owned(self.scrub.text_cow(&k).into_owned()),
            };
            if !members.is_empty() {
                self.out.push(b',');
            }
            let at = self.out.len();
            write_str(self.out, &shown);
            self.out.push(b':');
            let len = self.path.len();
            push_key(self.path, &shown);
            if let Some(placeholder) = replaced {
                // A null stays null; any other value is the placeholder
                // (or volatile, when its path is).
                if map.next_value::<IsNull>()?.0 {
                    self.out.extend_from_slice(b"null");
                } else if self.volatile.iter().any(|p| p == self.path) {
                    write_str(self.out, VOLATILE);
                } else {
                    write_str(self.out, placeholder);
                }
            } else {
                let node = Node {
                    scrub: self.scrub,
                    volatile: self.volatile,
                    path: self.path,
                    depth: self.depth + 1,
                    out: self.out,
                };
                map.next_value_seed(node)?;
            }
            self.path.truncate(len);
            members.push((shown, at, self.out.len()));
        }
        if volatile {
            self.out.truncate(start);
            write_str(self.out, VOLATILE);
            return Ok(());
        }
        if !members.windows(2).all(|w| w[0].0 < w[1].0) {
            let written: Vec<(Cow<'de, str>, Vec<u8>)> = members
                .into_iter()
                .map(|(key, from, to)| (key, self.out[from..to].to_vec()))
                .collect();
            let mut order: Vec<&(Cow<'de, str>, Vec<u8>)> = written.iter().collect();
            // Stable: of equal keys, the last one given is last.
            order.sort_by(|a, b| a.0.cmp(&b.0));
            let mut kept: Vec<&(Cow<'de, str>, Vec<u8>)> = Vec::with_capacity(order.len());
            for m in order {
                match kept.last_mut() {
                    Some(last) if last.0 == m.0 => *last = m,
                    _ => kept.push(m),
                }
            }
            self.out.truncate(start + 1);
            for (i, (_, member)) in kept.into_iter().enumerate() {
                if i > 0 {
                    self.out.push(b',');
                }
                self.out.extend_from_slice(member);
            }
        }
        self.out.push(b'}');
        Ok(())
    }
}

/// An object's key, borrowed from the text where it has no escape (serde's
/// own `Cow<str>` always copies: one allocation per key of the answer).
struct Key;

impl<'de> DeserializeSeed<'de> for Key {
    type Value = Cow<'de, str>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for Key {
    type Value = Cow<'de, str>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an object key")
    }

    fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Self::Value, E> {
        Ok(Cow::Borrowed(v))
    }

    fn visit_str<E>(self, v: &str) -> Result<Self::Value, E> {
        Ok(Cow::Owned(v.to_owned()))
    }

    fn visit_string<E>(self, v: String) -> Result<Self::Value, E> {
        Ok(Cow::Owned(v))
    }
}

/// A JSON pointer token after `path`, as [`crate::volatile`] writes it.
fn push_key(path: &mut String, key: &str) {
    path.push('/');
    if key.contains(['~', '/']) {
        path.push_str(&key.replace('~', "~0").replace('/', "~1"));
    } else {
        path.push_str(key);
    }
}

/// Whether a value is `null`; any other value is skipped unread (no tree,
/// unlike [`Any`]).
struct IsNull(bool);

impl<'de> serde::Deserialize<'de> for IsNull {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(IsNullVisitor)
    }
}

struct IsNullVisitor;

impl<'de> Visitor<'de> for IsNullVisitor {
    type Value = IsNull;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_unit<E>(self) -> Result<IsNull, E> {
        Ok(IsNull(true))
    }

    fn visit_none<E>(self) -> Result<IsNull, E> {
        Ok(IsNull(true))
    }

    fn visit_bool<E>(self, _: bool) -> Result<IsNull, E> {
        Ok(IsNull(false))
    }

    fn visit_i64<E>(self, _: i64) -> Result<IsNull, E> {
        Ok(IsNull(false))
    }

    fn visit_u64<E>(self, _: u64) -> Result<IsNull, E> {
        Ok(IsNull(false))
    }

    fn visit_f64<E>(self, _: f64) -> Result<IsNull, E> {
        Ok(IsNull(false))
    }

    fn visit_str<E>(self, _: &str) -> Result<IsNull, E> {
        Ok(IsNull(false))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<IsNull, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(IsNull(false))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<IsNull, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(IsNull(false))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The text a small body's record serialises to: the tree the record
    /// holds, keys sorted as a snapshot stores them.
    fn as_a_tree(bytes: &[u8], scrub: &Scrubber, volatile: &[String]) -> Option<String> {
        component_auth_bindings::json::parse(bytes)?;
        let mut v = super::super::body_value(bytes, scrub).0;
        crate::volatile::normalise(&mut v, volatile);
        Some(serde_json::to_string(&sorted(v)).expect("serializes"))
    }

    fn sorted(value: Value) -> Value {
        match value {
            Value::Object(map) => {
                let mut entries: Vec<(String, Value)> = map.into_iter().collect();
                entries.sort_by(|a, b| a.0.cmp(&b.0));
                Value::Object(entries.into_iter().map(|(k, v)| (k, sorted(v))).collect())
            }
            Value::Array(items) => Value::Array(items.into_iter().map(sorted).collect()),
            other => other,
        }
    }

    fn scrubber() -> Scrubber {
        Scrubber::new(vec!["hunter22".into()], vec!["pin".into()])
    }

    #[test]
    fn the_stream_writes_what_the_tree_would() {
        let volatile = [
            "/data/jti".to_owned(),
            "/errors/*/trace".to_owned(),
            "/token".to_owned(),
        ];
        let deep = "[".repeat(150) + &"]".repeat(150);
        for body in [
            r#"{"b":1,"a":[true,null,-3,2.5,1e300,18446744073709551615],"c":{"z":"x","y":"y"}}"#,
            r#"{"request_id":"r1","token":{"deep":1},"time":null,"nested":{"requestId":7}}"#,
            r#"{"Pin":"1234","pin":null,"msg":"bad hunter22 here","HUNTER22":"key","x":"2026-11-23T19:16:13Z"}"#,
            r#"{"data":{"jti":"a1","keep":"k"},"errors":[{"trace":1},{"trace":{"a":2}},{"t":null}]}"#,
            r#"{"k":1,"k":2,"a~/b":"\u0000\n\"é\ud83d\ude00"}"#,
            r#"{"hunter22":1,"hunter2x":2,"[redacted]":3}"#,
            r#"[1,"two",{"three":[]},{}]"#,
            r#""just a string hunter22""#,
            "12",
            &deep,
        ] {
            let s = scrubber();
            assert_eq!(
                normalised(body.as_bytes(), &s, &volatile),
                as_a_tree(body.as_bytes(), &s, &volatile),
                "{body}"
            );
        }
        for not_json in ["", "{", "{} {}", "[1,]", "\"\\ud800\""] {
            assert_eq!(
                normalised(not_json.as_bytes(), &scrubber(), &[]),
                None,
                "{not_json}"
            );
        }
    }

    fn json_value() -> impl Strategy<Value = Value> {
        let key = prop::sample::select(vec![
            "a", "b", "token", "pin", "date", "trace", "hunter22", "x/y", "n~1",
        ]);
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(Value::from),
            (-1e6f64..1e6).prop_map(Value::from),
            prop::sample::select(vec!["", "x", "hunter22!", "2026-01-02T03:04:05Z", "é\u{7}"])
                .prop_map(Value::from),
        ];
        leaf.prop_recursive(5, 64, 6, move |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
                prop::collection::vec((key.clone(), inner), 0..6).prop_map(|members| {
                    // As a server may write it: keys in any order, some twice.
                    let body = members
                        .iter()
                        .map(|(k, v)| format!("{}:{v}", Value::from(*k)))
                        .collect::<Vec<_>>()
                        .join(",");
                    serde_json::from_str::<Value>(&format!("{{{body}}}")).unwrap_or(Value::Null)
                }),
            ]
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 256, failure_persistence: None, ..ProptestConfig::default() })]

        /// Any JSON: the stream's text is the small record's, so a large
        /// body's hash changes exactly when its record would.
        #[test]
        fn the_stream_agrees_with_the_tree_on_any_json(value in json_value()) {
            let volatile = ["/a/*/b".to_owned(), "/trace".to_owned()];
            let bytes = serde_json::to_vec(&value).expect("serializes");
            let s = scrubber();
            prop_assert_eq!(normalised(&bytes, &s, &volatile), as_a_tree(&bytes, &s, &volatile));
        }
    }

    #[test]
    fn a_large_body_is_its_hash_and_outline_and_never_a_secret() {
        let s = scrubber();
        let items: Vec<String> = (0..20_000)
            .map(|i| format!(r#"{{"id":{i},"label":"l{i}"}}"#))
            .collect();
        let body = format!(
            r#"{{"padding":[{}],"message":"hunter22 was wrong","code":400,"request_id":"r-1"}}"#,
            items.join(",")
        );
        let (digest, outline) = of_json(body.as_bytes(), &s, &[]).expect("JSON");
        assert_eq!(digest.sha256.len(), 64);
        assert_eq!(outline["code"], 400);
        assert_eq!(outline["message"], "[redacted] was wrong");
        assert_eq!(outline["request_id"], "[request_id]");
        let padding = outline["padding"].as_array().expect("array");
        assert_eq!(padding.len(), OUTLINE_ITEMS + 1);
        assert_eq!(padding[OUTLINE_ITEMS], "… 19992 more items");
        assert!(
            !serde_json::to_string(&outline)
                .expect("text")
                .contains("hunter22")
        );
        // One item changed far past the outline: another hash, same outline.
        let changed = body.replacen(r#""label":"l19999""#, r#""label":"changed""#, 1);
        let (other, other_outline) = of_json(changed.as_bytes(), &s, &[]).expect("JSON");
        assert_ne!(other.sha256, digest.sha256);
        assert_eq!(other_outline, outline);
        // Another request id (a per-request value): the same record.
        let again = body.replacen("r-1", "r-2", 1);
        assert_eq!(of_json(again.as_bytes(), &s, &[]).expect("JSON").0, digest);
    }
}
