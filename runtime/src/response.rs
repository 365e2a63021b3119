use std::str::FromStr;

use bytes::Bytes;
use reqwest::header::HeaderMap;
use serde::de::DeserializeOwned;

/// An answer exactly as it arrived: status, headers and the whole body.
#[derive(Clone, Debug)]
pub struct RawResponse {
    pub status: u16,
    pub headers: HeaderMap,
    pub body: Bytes,
}

impl RawResponse {
    /// The first value of header `name` (any letter case), if it is text.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }

    /// The body parsed as JSON, if it is JSON.
    pub fn json(&self) -> Option<serde_json::Value> {
        serde_json::from_slice(&self.body).ok()
    }
}

/// A documented answer: its body decoded into the schema's type, its
/// documented headers into their own struct, and the raw answer kept.
#[derive(Clone, Debug)]
pub struct Decoded<T, H> {
    pub body: T,
    pub headers: H,
    pub raw: RawResponse,
}

/// Turns a raw answer into an operation's response enum.
///
/// Decoding cannot fail: an undocumented status, or a documented one whose
/// body does not match its schema, becomes a variant that keeps the raw answer.
pub trait DecodeResponse: Sized {
    fn decode(raw: RawResponse) -> Self;
    fn raw(&self) -> &RawResponse;
    fn status(&self) -> u16 {
        self.raw().status
    }
}

/// Decodes a JSON body, saying why when it does not match.
pub fn decode_json<T: DeserializeOwned>(raw: &RawResponse) -> Result<T, String> {
    if raw.body.is_empty() {
        return serde_json::from_slice(b"null").map_err(|_| "the body is empty".to_owned());
    }
    serde_json::from_slice(&raw.body)
        .map_err(|e| format!("the body does not match its schema: {e}"))
}

/// Parses the header `name` into `T`; `None` when absent or unparseable (the
/// raw value stays in [`RawResponse::headers`]).
pub fn parse_header<T: FromStr>(headers: &HeaderMap, name: &str) -> Option<T> {
    headers.get(name)?.to_str().ok()?.parse().ok()
}
