//! Exchanges recorded in a HAR 1.2 file (as browsers, mitmproxy and
//! schemathesis write them), read entry by entry: the file is streamed, and
//! each entry is handed on and dropped, so a large file costs one entry's
//! memory, not the file's; and an entry costs at most the caps
//! ([`crate::capped`]: a body over [`MAX_BODY`] is not kept, a message's
//! headers over [`HEADERS_CAP`] make the entry not judged). The entry is
//! also the shape of one line of NDJSON ([`crate::recorded`]).

use std::fmt;
use std::io::Read;

use base64::Engine;
use serde::Deserialize;
use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

use crate::capped::{Capped, MAX_BODY, is_cut};
use crate::observed::{Answer, Request};

/// The most bytes of one message's header names and values (or a form's
/// fields) kept; an entry with more is not judged.
pub const HEADERS_CAP: usize = MAX_BODY;

/// The most header lines (or form fields) of one message kept; an entry
/// with more is not judged.
pub const HEADERS_MAX: usize = 1000;

/// Why a HAR file cannot be read.
#[derive(Debug)]
pub struct HarError(pub String);

impl fmt::Display for HarError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for HarError {}

/// One recorded exchange: a HAR entry (or an NDJSON line).
#[derive(Deserialize)]
pub(crate) struct Entry {
    request: HarRequest,
    #[serde(default)]
    response: Option<HarResponse>,
}

#[derive(Deserialize)]
struct HarRequest {
    method: String,
    url: String,
    #[serde(default)]
    headers: Budgeted<Header>,
    #[serde(default, rename = "postData")]
    post_data: Option<PostData>,
}

#[derive(Deserialize)]
struct HarResponse {
    status: i64,
    #[serde(default)]
    headers: Budgeted<Header>,
    #[serde(default)]
    content: Option<Content>,
}

#[derive(Deserialize)]
struct Header {
    name: String,
    value: String,
}

#[derive(Deserialize)]
struct PostData {
    #[serde(default, rename = "mimeType")]
    mime_type: Option<String>,
    #[serde(default)]
    text: Option<String>,
    /// A form's fields, where the recorder parsed them (Chromium's
    /// recorders write these, sometimes without `text`).
    #[serde(default)]
    params: Option<Budgeted<Param>>,
}

#[derive(Deserialize)]
struct Param {
    name: String,
    /// A form field's text; chrome-har writes a JSON body's top-level
    /// values here as JSON (`1234`, not `"1234"`).
    #[serde(default)]
    value: Option<Scalar>,
}

impl Param {
    /// The value as a form carries it: a string as itself, anything else
    /// as its JSON text.
    fn text(&self) -> String {
        match &self.value {
            Some(Scalar(Some(serde_json::Value::String(s)))) => s.clone(),
            Some(Scalar(Some(other))) => other.to_string(),
            _ => String::new(),
        }
    }
}

/// A param's value where it is a string, number, boolean or null; `None`
/// for an array or object, read past without building it (its size is
/// not bounded by the string cap), so a body holding one is not known.
struct Scalar(Option<serde_json::Value>);

impl<'de> Deserialize<'de> for Scalar {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Scalar;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a JSON value")
            }
            fn visit_str<E>(self, v: &str) -> Result<Scalar, E> {
                Ok(Scalar(Some(v.into())))
            }
            fn visit_string<E>(self, v: String) -> Result<Scalar, E> {
                Ok(Scalar(Some(v.into())))
            }
            fn visit_bool<E>(self, v: bool) -> Result<Scalar, E> {
                Ok(Scalar(Some(v.into())))
            }
            fn visit_i64<E>(self, v: i64) -> Result<Scalar, E> {
                Ok(Scalar(Some(v.into())))
            }
            fn visit_u64<E>(self, v: u64) -> Result<Scalar, E> {
                Ok(Scalar(Some(v.into())))
            }
            fn visit_f64<E>(self, v: f64) -> Result<Scalar, E> {
                Ok(Scalar(Some(v.into())))
            }
            fn visit_unit<E>(self) -> Result<Scalar, E> {
                Ok(Scalar(Some(serde_json::Value::Null)))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Scalar, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(Scalar(None))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Scalar, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(Scalar(None))
            }
        }
        d.deserialize_any(V)
    }
}

#[derive(Default, Deserialize)]
struct Content {
    #[serde(default)]
    text: Option<String>,
    #[serde(default)]
    encoding: Option<String>,
    /// The body's length; `text` absent with a size other than 0 is a body
    /// the recorder left out (chrome-har's default).
    #[serde(default)]
    size: Option<i64>,
}

/// A request body as recorded: its text; else a form rebuilt from its
/// `params` where its media type is a form's; else not known (judged by
/// no rule that reads a body). Over [`MAX_BODY`], not kept (cut).
fn request_body(post: Option<PostData>) -> (Vec<u8>, bool) {
    let Some(post) = post else {
        return (Vec::new(), false);
    };
    if let Some(text) = post.text {
        if is_cut(&text) || text.len() > MAX_BODY {
            return (Vec::new(), true);
        }
        return (text.into_bytes(), false);
    }
    let form = post.mime_type.as_deref().is_some_and(|m| {
        m.split(';').next().is_some_and(|m| {
            m.trim()
                .eq_ignore_ascii_case("application/x-www-form-urlencoded")
        })
    });
    match post.params {
        Some(params) if form && !params.over => {
            let mut out = String::new();
            for (i, p) in params.items.iter().enumerate() {
                if i > 0 {
                    out.push('&');
                }
                out.push_str(&encode(&p.name));
                out.push('=');
                out.push_str(&encode(&p.text()));
            }
            if out.len() > MAX_BODY {
                return (Vec::new(), true);
            }
            (out.into_bytes(), false)
        }
        // chrome-har's parse of a JSON object: each top-level key once,
        // with its value.
        Some(params) if json(post.mime_type.as_deref()) && !params.over => {
            match rebuilt(&params.items) {
                Some(body) if body.len() <= MAX_BODY => (body, false),
                _ => (Vec::new(), true),
            }
        }
        // Fields parsed otherwise, or nothing: the bytes sent are not
        // known.
        Some(params) if params.items.is_empty() && !params.over && post.mime_type.is_none() => {
            (Vec::new(), false)
        }
        _ => (Vec::new(), true),
    }
}

/// Whether a media type is JSON's (`application/json`, `+json`).
fn json(mime: Option<&str>) -> bool {
    mime.and_then(|m| m.split(';').next()).is_some_and(|m| {
        let m = m.trim().to_ascii_lowercase();
        m == "application/json" || (m.starts_with("application/") && m.ends_with("+json"))
    })
}

/// The JSON object chrome-har parsed into `params` (`{name, value}` for
/// each key, `value` the JSON value), written again: where every param has
/// a value and no name comes twice (chrome-har flattens an array into one
/// param per item, which cannot be told from repeated keys), else `None`.
/// What it rebuilds is the object the page sent, not its bytes: the rules
/// read the object. A single param whose name is the JSON text and which
/// has no value is that text.
fn rebuilt(params: &[Param]) -> Option<Vec<u8>> {
    // The whole text as one param's name, with no value: as written.
    if let [p] = params {
        let no_value = p
            .value
            .as_ref()
            .is_none_or(|v| v.0.as_ref().is_none_or(|v| v == ""));
        if no_value && serde_json::from_str::<IgnoredAny>(&p.name).is_ok() {
            return Some(p.name.clone().into_bytes());
        }
    }
    let mut object = serde_json::Map::new();
    for p in params {
        let value = p.value.as_ref()?.0.clone()?;
        if object.insert(p.name.clone(), value).is_some() {
            return None;
        }
    }
    serde_json::to_vec(&serde_json::Value::Object(object)).ok()
}

fn encode(s: &str) -> String {
    percent_encoding::utf8_percent_encode(s, percent_encoding::NON_ALPHANUMERIC).to_string()
}

/// One entry of a recording, as read.
#[derive(Debug)]
pub enum Recorded {
    /// The request and its answer (`None` where the entry has none: an
    /// aborted request).
    Exchange(Request, Option<Answer>),
    /// An entry over the caps (a method, URL or header list past them):
    /// not judged, counted.
    OverCap,
}

/// Reads every entry of the HAR in `reader`, handing each to `each` as it
/// is read (over the caps, [`Recorded::OverCap`]); returns how many
/// entries there were.
pub fn read_entries(reader: impl Read, mut each: impl FnMut(Recorded)) -> Result<u64, HarError> {
    // serde_json reads a reader byte by byte: buffered on both sides of
    // the cap.
    let capped = Capped::new(std::io::BufReader::new(reader));
    let mut de = serde_json::Deserializer::from_reader(std::io::BufReader::new(capped));
    let mut count = 0;
    Root {
        each: &mut |entry: Entry| {
            count += 1;
            each(convert(entry));
        },
    }
    .deserialize(&mut de)
    .map_err(|e| HarError(format!("not a HAR 1.2 file: {e}")))?;
    de.end()
        .map_err(|e| HarError(format!("not a HAR 1.2 file: {e}")))?;
    Ok(count)
}

/// An entry as the rules read it.
pub(crate) fn convert(entry: Entry) -> Recorded {
    let url = entry.request.url;
    let over = is_cut(&url)
        || is_cut(&entry.request.method)
        || entry.request.headers.over
        || entry.response.as_ref().is_some_and(|r| r.headers.over);
    if over {
        return Recorded::OverCap;
    }
    // Path and query: after the scheme and authority.
    let target = match url.split_once("://") {
        Some((_, rest)) => rest
            .find('/')
            .map_or("/".to_owned(), |i| rest[i..].to_owned()),
        None => url,
    };
    let target = target.split('#').next().unwrap_or_default().to_owned();
    let pairs = |headers: Budgeted<Header>| -> Vec<(String, Vec<u8>)> {
        let mut out: Vec<(String, Vec<u8>)> = Vec::with_capacity(headers.items.len());
        for h in headers.items {
            // HTTP/2 pseudo-headers (`:authority`) are no headers of the
            // request; and a line that repeats an earlier one exactly is
            // read once: chrome-har lists each header twice, as the page
            // set it and as it was sent.
            let repeated = out
                .iter()
                .any(|(n, v)| n.eq_ignore_ascii_case(&h.name) && v == h.value.as_bytes());
            if !h.name.starts_with(':') && !repeated {
                out.push((h.name, h.value.into_bytes()));
            }
        }
        out
    };
    let (body, body_cut) = request_body(entry.request.post_data);
    let req = Request {
        method: entry.request.method.to_ascii_uppercase(),
        target,
        headers: pairs(entry.request.headers),
        body,
        body_cut,
    };
    let answer = entry.response.filter(|r| r.status > 0).map(|r| {
        let content = r.content.unwrap_or_default();
        // No text, and a size that is not 0 (or none): left out.
        let left_out = content.text.is_none() && content.size != Some(0);
        let text = content.text.unwrap_or_default();
        let over = is_cut(&text);
        let body = match content.encoding.as_deref() {
            _ if over => Vec::new(),
            Some(e) if e.eq_ignore_ascii_case("base64") => {
                base64::engine::general_purpose::STANDARD
                    .decode(text.as_bytes())
                    .unwrap_or_default()
            }
            _ => text.into_bytes(),
        };
        let over = over || body.len() > MAX_BODY;
        Answer {
            status: u16::try_from(r.status).unwrap_or(0),
            headers: pairs(r.headers),
            body: if over { Vec::new() } else { body },
            body_cut: left_out || over,
        }
    });
    Recorded::Exchange(req, answer)
}

/// What one item of a list weighs against [`HEADERS_CAP`].
trait Weigh {
    fn weight(&self) -> usize;
}

impl Weigh for Header {
    fn weight(&self) -> usize {
        self.name.len() + self.value.len()
    }
}

impl Weigh for Param {
    fn weight(&self) -> usize {
        self.name.len() + self.text().len()
    }
}

/// A list kept within [`HEADERS_CAP`] bytes and [`HEADERS_MAX`] items;
/// past either, the rest is read and dropped and `over` set.
struct Budgeted<T> {
    items: Vec<T>,
    over: bool,
}

impl<T> Default for Budgeted<T> {
    fn default() -> Self {
        Budgeted {
            items: Vec::new(),
            over: false,
        }
    }
}

impl<'de, T: Deserialize<'de> + Weigh> Deserialize<'de> for Budgeted<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Items<T>(std::marker::PhantomData<T>);
        impl<'de, T: Deserialize<'de> + Weigh> Visitor<'de> for Items<T> {
            type Value = Budgeted<T>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a list")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Budgeted<T>, A::Error> {
                let mut out = Budgeted::default();
                let mut weight = 0usize;
                while let Some(item) = seq.next_element::<T>()? {
                    if out.over {
                        continue;
                    }
                    weight += item.weight();
                    if weight > HEADERS_CAP || out.items.len() >= HEADERS_MAX {
                        out.over = true;
                        out.items = Vec::new();
                    } else {
                        out.items.push(item);
                    }
                }
                Ok(out)
            }
        }
        d.deserialize_seq(Items(std::marker::PhantomData))
    }
}

/// The HAR's top level: only `log.entries` is read, each entry handed on.
struct Root<'a> {
    each: &'a mut dyn FnMut(Entry),
}

impl<'de> DeserializeSeed<'de> for Root<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for Root<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a HAR object with `log`")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let mut found = false;
        while let Some(key) = map.next_key::<String>()? {
            if key == "log" {
                map.next_value_seed(Log { each: self.each })?;
                found = true;
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        if !found {
            return Err(serde::de::Error::missing_field("log"));
        }
        Ok(())
    }
}

struct Log<'a> {
    each: &'a mut dyn FnMut(Entry),
}

impl<'de> DeserializeSeed<'de> for Log<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for Log<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("`log` with `entries`")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let mut found = false;
        while let Some(key) = map.next_key::<String>()? {
            if key == "entries" {
                map.next_value_seed(Entries {
                    each: &mut *self.each,
                })?;
                found = true;
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        if !found {
            return Err(serde::de::Error::missing_field("entries"));
        }
        Ok(())
    }
}

struct Entries<'a> {
    each: &'a mut dyn FnMut(Entry),
}

impl<'de> DeserializeSeed<'de> for Entries<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for Entries<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a list of entries")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while let Some(entry) = seq.next_element::<Entry>()? {
            (self.each)(entry);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn exchange(e: Recorded) -> (Request, Option<Answer>) {
        match e {
            Recorded::Exchange(r, a) => (r, a),
            Recorded::OverCap => panic!("over the cap"),
        }
    }

    #[test]
    fn reads_entries_one_by_one() {
        let har = r#"{"log": {"version": "1.2", "creator": {"name": "t", "version": "1"}, "entries": [
          {"request": {"method": "post", "url": "http://h:1/v2/api/component/users/auth?modelUuid=m#x",
                       "headers": [{"name": "X-Client-Id", "value": "c"}, {"name": ":authority", "value": "h"}],
                       "postData": {"mimeType": "application/json", "text": "{\"a\":1}"}},
           "response": {"status": 200, "headers": [], "content": {"text": "e30=", "encoding": "base64"}}},
          {"request": {"method": "GET", "url": "http://h:1/x", "headers": []}, "response": {"status": 0}}
        ]}}"#;
        let mut seen = Vec::new();
        let n = read_entries(har.as_bytes(), |e| seen.push(exchange(e))).expect("a HAR");
        assert_eq!(n, 2);
        let (r, a) = &seen[0];
        assert_eq!(r.method, "POST");
        assert_eq!(r.target, "/v2/api/component/users/auth?modelUuid=m");
        assert_eq!(r.headers.len(), 1);
        assert_eq!(r.body, br#"{"a":1}"#);
        assert_eq!(a.as_ref().map(|a| a.body.as_slice()), Some(&b"{}"[..]));
        assert!(seen[1].1.is_none(), "status 0: no answer");
        assert!(read_entries(&b"{\"x\": 1}"[..], |_| {}).is_err());
        assert!(read_entries(&b"not json"[..], |_| {}).is_err());
    }

    /// Chromium's recorders: a JSON body as `params` without `text` is read
    /// (here its text as the one param's name), a form's is rebuilt, and an
    /// answer recorded without its body is not judged on it.
    #[test]
    fn what_a_recording_left_out_is_not_judged() {
        let har = r#"{"log": {"entries": [
          {"request": {"method": "POST", "url": "http://h/v2/api/component/a/auth",
                       "postData": {"mimeType": "application/json", "params": [{"name": "{\"a\":1}"}]}},
           "response": {"status": 404, "headers": [], "content": {"size": 58, "mimeType": "application/json"}}},
          {"request": {"method": "POST", "url": "http://h/x",
                       "postData": {"mimeType": "application/x-www-form-urlencoded", "params": [{"name": "a b", "value": "c&d"}]}},
           "response": {"status": 204, "headers": [], "content": {"size": 0}}}
        ]}}"#;
        let mut seen = Vec::new();
        read_entries(har.as_bytes(), |e| seen.push(exchange(e))).expect("a HAR");
        let (json, answer) = &seen[0];
        assert_eq!(
            (json.body.as_slice(), json.body_cut),
            (&br#"{"a":1}"#[..], false)
        );
        assert!(answer.as_ref().is_some_and(|a| a.body_cut));
        let (form, answer) = &seen[1];
        assert_eq!(
            (form.body.as_slice(), form.body_cut),
            (&b"a%20b=c%26d"[..], false)
        );
        assert!(
            answer
                .as_ref()
                .is_some_and(|a| !a.body_cut && a.body.is_empty())
        );
    }

    /// chrome-har's shapes: a JSON object parsed into `params` (values as
    /// JSON) is read as that object, one with a name twice (an array
    /// flattened) is not known; each header listed twice (as the page set
    /// it and as sent) is read once.
    #[test]
    fn chrome_hars_params_and_doubled_headers_are_read_as_sent() {
        let har = r#"{"log": {"entries": [
          {"request": {"method": "POST", "url": "http://h/v2/api/component/a/auth",
                       "headers": [{"name": "X-Project-Env", "value": "dev"}, {"name": "Accept", "value": "*/*"},
                                   {"name": "x-project-env", "value": "dev"}, {"name": "X-Project-Env", "value": "live"}],
                       "postData": {"mimeType": "application/json", "params": [{"name": "account", "value": "acme"}, {"name": "pin", "value": 1234}]}}},
          {"request": {"method": "POST", "url": "http://h/v2/api/component/a/auth",
                       "postData": {"mimeType": "application/json", "params": [{"name": "tags", "value": 1}, {"name": "tags", "value": 2}]}}}
        ]}}"#;
        let mut seen = Vec::new();
        read_entries(har.as_bytes(), |e| seen.push(exchange(e))).expect("a HAR");
        let (object, _) = &seen[0];
        assert!(!object.body_cut);
        let body: serde_json::Value = serde_json::from_slice(&object.body).expect("JSON");
        assert_eq!(body, serde_json::json!({"account": "acme", "pin": 1234}));
        let headers: Vec<(&str, &[u8])> = object
            .headers
            .iter()
            .map(|(n, v)| (n.as_str(), v.as_slice()))
            .collect();
        assert_eq!(
            headers,
            [
                ("X-Project-Env", &b"dev"[..]),
                ("Accept", b"*/*"),
                ("X-Project-Env", b"live")
            ]
        );
        let (flattened, _) = &seen[1];
        assert!(flattened.body_cut && flattened.body.is_empty());
    }
}
