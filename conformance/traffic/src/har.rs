//! Exchanges recorded in a HAR 1.2 file (as browsers, mitmproxy and
//! schemathesis write them), read entry by entry: the file is streamed, and
//! each entry is handed on and dropped, so a large file costs one entry's
//! memory, not the file's.

use std::fmt;
use std::io::Read;

use base64::Engine;
use serde::Deserialize;
use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

use crate::observed::{Answer, Request};

/// Why a HAR file cannot be read.
#[derive(Debug)]
pub struct HarError(pub String);

impl fmt::Display for HarError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for HarError {}

#[derive(Deserialize)]
struct Entry {
    request: HarRequest,
    #[serde(default)]
    response: Option<HarResponse>,
}

#[derive(Deserialize)]
struct HarRequest {
    method: String,
    url: String,
    #[serde(default)]
    headers: Vec<Header>,
    #[serde(default, rename = "postData")]
    post_data: Option<PostData>,
}

#[derive(Deserialize)]
struct HarResponse {
    status: i64,
    #[serde(default)]
    headers: Vec<Header>,
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
    #[serde(default)]
    text: Option<String>,
}

#[derive(Deserialize)]
struct Content {
    #[serde(default)]
    text: Option<String>,
    #[serde(default)]
    encoding: Option<String>,
}

/// Reads every entry of the HAR in `reader`, handing each to `each` as the
/// request and its answer (`None` where the entry has none: an aborted
/// request); returns how many entries there were.
pub fn read_entries(
    reader: impl Read,
    mut each: impl FnMut(Request, Option<Answer>),
) -> Result<u64, HarError> {
    let mut de = serde_json::Deserializer::from_reader(std::io::BufReader::new(reader));
    let mut count = 0;
    Root {
        each: &mut |entry: Entry| {
            count += 1;
            let (req, answer) = convert(entry);
            each(req, answer);
        },
    }
    .deserialize(&mut de)
    .map_err(|e| HarError(format!("not a HAR 1.2 file: {e}")))?;
    de.end()
        .map_err(|e| HarError(format!("not a HAR 1.2 file: {e}")))?;
    Ok(count)
}

fn convert(entry: Entry) -> (Request, Option<Answer>) {
    let url = entry.request.url;
    // Path and query: after the scheme and authority.
    let target = match url.split_once("://") {
        Some((_, rest)) => rest
            .find('/')
            .map_or("/".to_owned(), |i| rest[i..].to_owned()),
        None => url,
    };
    let target = target.split('#').next().unwrap_or_default().to_owned();
    let pairs = |headers: Vec<Header>| -> Vec<(String, Vec<u8>)> {
        headers
            .into_iter()
            // HTTP/2 pseudo-headers (`:authority`) are no headers of the request.
            .filter(|h| !h.name.starts_with(':'))
            .map(|h| (h.name, h.value.into_bytes()))
            .collect()
    };
    let req = Request {
        method: entry.request.method.to_ascii_uppercase(),
        target,
        headers: pairs(entry.request.headers),
        body: entry
            .request
            .post_data
            .and_then(|p| p.text)
            .unwrap_or_default()
            .into_bytes(),
        body_cut: false,
    };
    let answer = entry.response.filter(|r| r.status > 0).map(|r| {
        let content = r.content.unwrap_or(Content {
            text: None,
            encoding: None,
        });
        let text = content.text.unwrap_or_default();
        let body = match content.encoding.as_deref() {
            Some(e) if e.eq_ignore_ascii_case("base64") => {
                base64::engine::general_purpose::STANDARD
                    .decode(text.as_bytes())
                    .unwrap_or_default()
            }
            _ => text.into_bytes(),
        };
        Answer {
            status: u16::try_from(r.status).unwrap_or(0),
            headers: pairs(r.headers),
            body,
            body_cut: false,
        }
    });
    (req, answer)
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
        let n = read_entries(har.as_bytes(), |r, a| seen.push((r, a))).expect("a HAR");
        assert_eq!(n, 2);
        let (r, a) = &seen[0];
        assert_eq!(r.method, "POST");
        assert_eq!(r.target, "/v2/api/component/users/auth?modelUuid=m");
        assert_eq!(r.headers.len(), 1);
        assert_eq!(r.body, br#"{"a":1}"#);
        assert_eq!(a.as_ref().map(|a| a.body.as_slice()), Some(&b"{}"[..]));
        assert!(seen[1].1.is_none(), "status 0: no answer");
        assert!(read_entries(&b"{\"x\": 1}"[..], |_, _| {}).is_err());
        assert!(read_entries(&b"not json"[..], |_, _| {}).is_err());
    }
}
