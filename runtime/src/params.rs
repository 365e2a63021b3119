//! Parameter values that are not one scalar, written as their `style` says:
//! objects in the query (`deepObject`, `form` exploded or not), objects and
//! arrays in a header or path (`simple`), and values a parameter's
//! `content` says are JSON text. Each value goes through `serde_json`, so
//! any generated type can be written.

use reqwest::Url;
use serde::Serialize;
use serde_json::Value;

use crate::error::Error;

/// How an object parameter is written in the query.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QueryObject {
    /// `style: deepObject`: `name[key]=value` for each property.
    DeepObject,
    /// `style: form, explode: true` (the default): `key=value` for each
    /// property, the parameter's name unused.
    Exploded,
    /// `style: form, explode: false`: `name=key,value,key,value`.
    Joined,
}

fn to_value<T: Serialize>(value: &T) -> Result<Value, Error> {
    serde_json::to_value(value).map_err(Error::Encode)
}

/// A scalar as text: a string as it is, a number or boolean as JSON writes
/// it; anything else as JSON text.
fn text(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// Appends the object parameter `name` to the query of `url`, as `style`
/// says; a property that is `null` (an unset option) is left out, an array
/// property is repeated, a nested object is written as `[key]` again
/// (`deepObject`) or as JSON text.
pub fn append_query_object<T: Serialize>(
    url: &mut Url,
    name: &str,
    value: &T,
    style: QueryObject,
) -> Result<(), Error> {
    let value = to_value(value)?;
    let mut pairs: Vec<(String, String)> = Vec::new();
    match (&value, style) {
        (Value::Null, _) => {}
        (Value::Object(map), QueryObject::Joined) => {
            let mut items = Vec::new();
            for (key, value) in map.iter().filter(|(_, v)| !v.is_null()) {
                items.push(key.clone());
                items.push(text(value));
            }
            pairs.push((name.to_owned(), items.join(",")));
        }
        (Value::Object(map), QueryObject::Exploded) => {
            for (key, value) in map {
                pairs.extend(
                    items(value)
                        .into_iter()
                        .map(|item| (key.clone(), text(item))),
                );
            }
        }
        (Value::Object(_), QueryObject::DeepObject) => deep(&mut pairs, name, &value),
        // A list held by a union (`oneOf` of a string and a list of them),
        // `form` not exploded: one parameter, items joined by `,`.
        (Value::Array(items), QueryObject::Joined) => {
            let items: Vec<String> = items.iter().filter(|v| !v.is_null()).map(text).collect();
            pairs.push((name.to_owned(), items.join(",")));
        }
        // Not an object after all (an alias or a `oneOf`): as it is.
        (other, _) => {
            pairs.extend(
                items(other)
                    .into_iter()
                    .map(|item| (name.to_owned(), text(item))),
            );
        }
    }
    if !pairs.is_empty() {
        let mut query = url.query_pairs_mut();
        for (name, value) in &pairs {
            query.append_pair(name, value);
        }
    }
    Ok(())
}

/// `deepObject`: `prefix[key]` for each property, again for a nested one.
fn deep(pairs: &mut Vec<(String, String)>, prefix: &str, value: &Value) {
    match value {
        Value::Object(map) => {
            for (key, value) in map {
                deep(pairs, &format!("{prefix}[{key}]"), value);
            }
        }
        other => {
            pairs.extend(
                items(other)
                    .into_iter()
                    .map(|item| (prefix.to_owned(), text(item))),
            );
        }
    }
}

/// The items a value is written as: each of an array, none for `null`,
/// else the value itself.
fn items(value: &Value) -> Vec<&Value> {
    match value {
        Value::Array(items) => items.iter().filter(|v| !v.is_null()).collect(),
        Value::Null => Vec::new(),
        other => vec![other],
    }
}

/// An object or array for a header or path (`style: simple`): items joined
/// by `,`; an object's properties as `key,value,…`, or `key=value,…` when
/// `explode` is true.
pub fn simple_text<T: Serialize>(value: &T, explode: bool) -> Result<String, Error> {
    Ok(match to_value(value)? {
        Value::Object(map) => map
            .iter()
            .filter(|(_, v)| !v.is_null())
            .map(|(k, v)| {
                if explode {
                    format!("{k}={}", text(v))
                } else {
                    format!("{k},{}", text(v))
                }
            })
            .collect::<Vec<_>>()
            .join(","),
        Value::Array(items) => items.iter().map(text).collect::<Vec<_>>().join(","),
        other => text(&other),
    })
}

/// The path styles that prefix their segment (`simple` is [`simple_text`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PathStyle {
    /// `style: label`: `.v`.
    Label,
    /// `style: matrix`: `;name=v`.
    Matrix,
}

/// A path parameter's segment in `style: label` or `matrix`, as OpenAPI
/// 3.0's style table writes it: label `.v`, arrays `.a,b` (`.a.b`
/// exploded), objects `.k,v` (`.k=v` exploded); matrix `;name=v`, arrays
/// `;name=a,b` (`;name=a;name=b` exploded), objects `;name=k,v` (`;k=v`
/// exploded). A property that is `null` (an unset option) is left out.
pub fn styled_segment<T: Serialize>(
    value: &T,
    name: &str,
    style: PathStyle,
    explode: bool,
) -> Result<String, Error> {
    let value = to_value(value)?;
    let pairs = |map: &serde_json::Map<String, Value>| -> Vec<(String, String)> {
        map.iter()
            .filter(|(_, v)| !v.is_null())
            .map(|(k, v)| (k.clone(), text(v)))
            .collect()
    };
    Ok(match (style, &value) {
        (PathStyle::Label, Value::Array(items)) => {
            let items: Vec<String> = items.iter().map(text).collect();
            format!(".{}", items.join(if explode { "." } else { "," }))
        }
        (PathStyle::Label, Value::Object(map)) => {
            let pairs = pairs(map);
            let written: Vec<String> = pairs
                .iter()
                .map(|(k, v)| {
                    if explode {
                        format!("{k}={v}")
                    } else {
                        format!("{k},{v}")
                    }
                })
                .collect();
            format!(".{}", written.join(if explode { "." } else { "," }))
        }
        (PathStyle::Label, other) => format!(".{}", text(other)),
        (PathStyle::Matrix, Value::Array(items)) if explode => items
            .iter()
            .map(|item| format!(";{name}={}", text(item)))
            .collect(),
        (PathStyle::Matrix, Value::Array(items)) => {
            let items: Vec<String> = items.iter().map(text).collect();
            format!(";{name}={}", items.join(","))
        }
        (PathStyle::Matrix, Value::Object(map)) if explode => pairs(map)
            .iter()
            .map(|(k, v)| format!(";{k}={v}"))
            .collect(),
        (PathStyle::Matrix, Value::Object(map)) => {
            let written: Vec<String> = pairs(map).iter().map(|(k, v)| format!("{k},{v}")).collect();
            format!(";{name}={}", written.join(","))
        }
        (PathStyle::Matrix, Value::String(s)) if s.is_empty() => format!(";{name}"),
        (PathStyle::Matrix, other) => format!(";{name}={}", text(other)),
    })
}

/// A value as JSON text, for a parameter whose `content` is JSON.
pub fn json_text<T: Serialize>(value: &T) -> Result<String, Error> {
    serde_json::to_string(value).map_err(Error::Encode)
}

/// The `name=value` pairs of a form body: each property of the object, an
/// array of flat values repeated (`tag=a&tag=b`), `null` left out; a
/// nested object (or a list of them) as its JSON text, which is how APIs
/// that take them in forms read them.
pub(crate) fn form_pairs<T: Serialize>(body: &T) -> Result<Vec<(String, String)>, Error> {
    let Value::Object(map) = to_value(body)? else {
        return Err(Error::EncodeForm(serde_urlencoded::ser::Error::Custom(
            "a form can only carry an object".into(),
        )));
    };
    let mut pairs = Vec::new();
    for (key, value) in &map {
        let flat = |v: &Value| !v.is_object() && !v.is_array();
        match value {
            Value::Array(items) if items.iter().all(flat) => {
                pairs.extend(
                    items
                        .iter()
                        .filter(|v| !v.is_null())
                        .map(|item| (key.clone(), text(item))),
                );
            }
            Value::Null => {}
            other => pairs.push((key.clone(), text(other))),
        }
    }
    Ok(pairs)
}

/// How one property of a form body is written, from the body's `encoding`
/// (OpenAPI's Encoding Object: `style` and `explode`, or a `contentType`
/// that says JSON).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FormStyle {
    /// `style: form`: an array repeated (`tag=a&tag=b`, exploded) or joined
    /// (`tag=a,b`); an object's properties as fields of their own (`city=P`,
    /// exploded) or `name=key,value,key,value`.
    Form,
    /// `style: spaceDelimited`: items (or keys and values) joined by a
    /// space.
    SpaceDelimited,
    /// `style: pipeDelimited`: joined by `|`.
    PipeDelimited,
    /// `style: deepObject`: `name[key]=value`, nested to any depth
    /// (`shipping[address][city]=P`), array items by their index
    /// (`items[0][price]=p_1`, as Stripe's own clients write them).
    DeepObject,
    /// A `contentType` that is JSON: the value's JSON text.
    Json,
}

/// One property of a form body whose `encoding` says how it is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FormField {
    /// The property's name on the wire.
    pub name: &'static str,
    pub style: FormStyle,
    pub explode: bool,
}

/// The `name=value` pairs of a form body whose properties listed in
/// `fields` are written as their encoding says; the others as
/// [`form_pairs`] writes them. `null` (an unset option) is left out.
pub(crate) fn form_pairs_encoded<T: Serialize>(
    body: &T,
    fields: &[FormField],
) -> Result<Vec<(String, String)>, Error> {
    let Value::Object(map) = to_value(body)? else {
        return Err(Error::EncodeForm(serde_urlencoded::ser::Error::Custom(
            "a form can only carry an object".into(),
        )));
    };
    let mut pairs = Vec::new();
    for (key, value) in &map {
        if value.is_null() {
            continue;
        }
        let Some(field) = fields.iter().find(|f| f.name == key) else {
            pairs.extend(plain_pairs(key, value));
            continue;
        };
        let joined = |separator: &str, value: &Value| -> String {
            match value {
                Value::Object(map) => map
                    .iter()
                    .filter(|(_, v)| !v.is_null())
                    .flat_map(|(k, v)| [k.clone(), text(v)])
                    .collect::<Vec<_>>()
                    .join(separator),
                Value::Array(items) => items
                    .iter()
                    .filter(|v| !v.is_null())
                    .map(text)
                    .collect::<Vec<_>>()
                    .join(separator),
                other => text(other),
            }
        };
        match (field.style, value) {
            (FormStyle::Json, value) => pairs.push((key.clone(), value.to_string())),
            (FormStyle::DeepObject, value) => deep_indexed(&mut pairs, key, value),
            (FormStyle::Form, Value::Object(map)) if field.explode => {
                for (k, v) in map.iter().filter(|(_, v)| !v.is_null()) {
                    pairs.extend(plain_pairs(k, v));
                }
            }
            (_, Value::Array(items)) if field.explode => pairs.extend(
                items
                    .iter()
                    .filter(|v| !v.is_null())
                    .map(|item| (key.clone(), text(item))),
            ),
            (FormStyle::Form, value) => pairs.push((key.clone(), joined(",", value))),
            (FormStyle::SpaceDelimited, value) => pairs.push((key.clone(), joined(" ", value))),
            (FormStyle::PipeDelimited, value) => pairs.push((key.clone(), joined("|", value))),
        }
    }
    Ok(pairs)
}

/// A property written with no encoding: flat values as they are, an array
/// of flat values repeated, anything else as its JSON text (the default
/// `contentType` of an object, `application/json`).
fn plain_pairs(key: &str, value: &Value) -> Vec<(String, String)> {
    let flat = |v: &Value| !v.is_object() && !v.is_array();
    match value {
        Value::Array(items) if items.iter().all(flat) => items
            .iter()
            .filter(|v| !v.is_null())
            .map(|item| (key.to_owned(), text(item)))
            .collect(),
        Value::Null => Vec::new(),
        other => vec![(key.to_owned(), text(other))],
    }
}

/// `deepObject` in a form: `prefix[key]` for each property and
/// `prefix[index]` for each item, again at every depth.
fn deep_indexed(pairs: &mut Vec<(String, String)>, prefix: &str, value: &Value) {
    match value {
        Value::Object(map) => {
            for (key, value) in map {
                deep_indexed(pairs, &format!("{prefix}[{key}]"), value);
            }
        }
        Value::Array(items) => {
            for (index, item) in items.iter().enumerate() {
                deep_indexed(pairs, &format!("{prefix}[{index}]"), item);
            }
        }
        Value::Null => {}
        other => pairs.push((prefix.to_owned(), text(other))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn query(value: Value, style: QueryObject) -> String {
        let mut url = Url::parse("http://h/p").unwrap();
        append_query_object(&mut url, "filter", &value, style).unwrap();
        url.query().unwrap_or("").to_owned()
    }

    #[test]
    fn objects_in_the_query_follow_their_style() {
        // Keys in sorted order: the same with or without `preserve_order`.
        let value = json!({"max": 3, "name": "a b", "tags": ["x", "y"], "unset": null});
        assert_eq!(
            query(value.clone(), QueryObject::DeepObject),
            "filter%5Bmax%5D=3&filter%5Bname%5D=a+b&filter%5Btags%5D=x&filter%5Btags%5D=y"
        );
        assert_eq!(
            query(value.clone(), QueryObject::Exploded),
            "max=3&name=a+b&tags=x&tags=y"
        );
        assert_eq!(
            query(json!({"a": 1, "b": "c"}), QueryObject::Joined),
            "filter=a%2C1%2Cb%2Cc"
        );
        assert_eq!(
            query(json!({"a": {"b": 1}}), QueryObject::DeepObject),
            "filter%5Ba%5D%5Bb%5D=1"
        );
    }

    #[test]
    fn simple_and_json_text() {
        assert_eq!(
            simple_text(&json!({"a": 1, "b": "c"}), false).unwrap(),
            "a,1,b,c"
        );
        assert_eq!(
            simple_text(&json!({"a": 1, "b": "c"}), true).unwrap(),
            "a=1,b=c"
        );
        assert_eq!(simple_text(&json!([1, 2]), false).unwrap(), "1,2");
        assert_eq!(json_text(&json!({"a": [1]})).unwrap(), r#"{"a":[1]}"#);
    }

    #[test]
    fn label_and_matrix_follow_the_style_table() {
        use PathStyle::{Label, Matrix};
        let blue = json!("blue");
        let colours = json!(["blue", "black", "brown"]);
        let rgb = json!({"B": 150, "G": 200, "R": 100});
        let seg = |v: &Value, style, explode| styled_segment(v, "color", style, explode).unwrap();
        assert_eq!(seg(&blue, Label, false), ".blue");
        assert_eq!(seg(&blue, Label, true), ".blue");
        assert_eq!(seg(&colours, Label, false), ".blue,black,brown");
        assert_eq!(seg(&colours, Label, true), ".blue.black.brown");
        assert_eq!(seg(&rgb, Label, false), ".B,150,G,200,R,100");
        assert_eq!(seg(&rgb, Label, true), ".B=150.G=200.R=100");
        assert_eq!(seg(&blue, Matrix, false), ";color=blue");
        assert_eq!(seg(&blue, Matrix, true), ";color=blue");
        assert_eq!(seg(&colours, Matrix, false), ";color=blue,black,brown");
        assert_eq!(
            seg(&colours, Matrix, true),
            ";color=blue;color=black;color=brown"
        );
        assert_eq!(seg(&rgb, Matrix, false), ";color=B,150,G,200,R,100");
        assert_eq!(seg(&rgb, Matrix, true), ";B=150;G=200;R=100");
        assert_eq!(seg(&json!(""), Matrix, false), ";color");
        assert_eq!(seg(&json!(5), Label, false), ".5");
    }

    #[test]
    fn form_pairs_repeat_arrays_and_write_nesting_as_json() {
        let pairs = form_pairs(&json!({"a": ["x", "y"], "b": null, "c": true})).unwrap();
        assert_eq!(
            pairs,
            [
                ("a".into(), "x".into()),
                ("a".into(), "y".into()),
                ("c".into(), "true".into())
            ]
        );
        let nested = form_pairs(&json!({"a": {"b": 1}, "l": [{"c": 2}]})).unwrap();
        assert_eq!(
            nested,
            [
                ("a".into(), r#"{"b":1}"#.into()),
                ("l".into(), r#"[{"c":2}]"#.into())
            ]
        );
        assert!(form_pairs(&json!([1])).is_err());
    }

    #[test]
    fn a_union_in_the_query_is_written_as_the_member_held() {
        assert_eq!(query(json!(5), QueryObject::DeepObject), "filter=5");
        assert_eq!(
            query(json!({"gte": 1}), QueryObject::DeepObject),
            "filter%5Bgte%5D=1"
        );
        assert_eq!(
            query(json!(["a", "b"]), QueryObject::Exploded),
            "filter=a&filter=b"
        );
        assert_eq!(
            query(json!(["a", "b"]), QueryObject::Joined),
            "filter=a%2Cb"
        );
    }

    #[test]
    fn form_fields_follow_their_encoding() {
        let field = |name, style, explode| FormField {
            name,
            style,
            explode,
        };
        let body = json!({
            "meta": {"order": "6735", "note": null},
            "ship": {"address": {"city": "Paris"}, "name": "A"},
            "items": [{"price": "p_1", "qty": 2}],
            "ids": ["a", "b"],
            "spaced": ["a", "b"],
            "piped": [1, 2],
            "exploded": ["x", "y"],
            "addr": {"zip": "75001"},
            "settings": {"theme": "dark"},
            "nums": [1, 2],
            "plain": {"k": 1},
            "unset": null,
        });
        let fields = [
            field("meta", FormStyle::DeepObject, true),
            field("ship", FormStyle::DeepObject, true),
            field("items", FormStyle::DeepObject, true),
            field("ids", FormStyle::Form, false),
            field("spaced", FormStyle::SpaceDelimited, false),
            field("piped", FormStyle::PipeDelimited, false),
            field("exploded", FormStyle::Form, true),
            field("addr", FormStyle::Form, true),
            field("settings", FormStyle::Json, false),
            field("nums", FormStyle::Json, false),
        ];
        let mut pairs = form_pairs_encoded(&body, &fields).unwrap();
        pairs.sort();
        let expected: Vec<(String, String)> = [
            ("exploded", "x"),
            ("exploded", "y"),
            ("ids", "a,b"),
            ("items[0][price]", "p_1"),
            ("items[0][qty]", "2"),
            ("meta[order]", "6735"),
            ("nums", "[1,2]"),
            ("piped", "1|2"),
            ("plain", r#"{"k":1}"#),
            ("settings", r#"{"theme":"dark"}"#),
            ("ship[address][city]", "Paris"),
            ("ship[name]", "A"),
            ("spaced", "a b"),
            ("zip", "75001"),
        ]
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect();
        assert_eq!(pairs, expected);
    }
}
