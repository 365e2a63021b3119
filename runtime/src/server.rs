//! What generated servers stand on (feature `server`): routing by the
//! document's path templates, reading typed inputs from a request's text,
//! and the answer to an input that fails ([`Rejection`]).
//!
//! Generated code holds the API's own parts (its trait, its input structs,
//! its answer enums, its route table); this module holds what every
//! generated server shares. Nothing here runs on text of the spec: the
//! route table and the documented answers are data the generator wrote.
//!
//! Messages about a failed input name the input and what is wrong with it,
//! never its value: a header that failed may be a credential.

use std::borrow::Cow;
use std::fmt;

pub use axum;
use axum::body::{Body, Bytes};
use axum::http::{HeaderName, HeaderValue, Method, StatusCode, header, request::Parts};
use axum::response::{IntoResponse, Response};
use serde::de::{self, DeserializeOwned, IntoDeserializer};
use serde_json::Value;

/// Choices about a generated router that the document does not make.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct Options {
    /// The path the operations' paths are appended to (`/v2/api`), without a
    /// trailing `/`. Default: empty, the operations' paths as written; the
    /// document's server URL may name another, which only its deployment
    /// knows.
    pub base_path: String,
    /// The largest request body read, in bytes; a larger one is refused
    /// ([`Failure::TooLarge`]) before it is read whole. Default: 2 MiB,
    /// axum's own default.
    pub body_limit: usize,
}

impl Default for Options {
    fn default() -> Self {
        Self {
            base_path: String::new(),
            body_limit: 2 * 1024 * 1024,
        }
    }
}

impl Options {
    /// These options with `base_path`.
    pub fn with_base_path(mut self, base_path: impl Into<String>) -> Self {
        self.base_path = base_path.into().trim_end_matches('/').to_owned();
        self
    }

    /// These options with `body_limit`.
    pub fn with_body_limit(mut self, body_limit: usize) -> Self {
        self.body_limit = body_limit;
        self
    }
}

/// Where an input travels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Location {
    Path,
    Query,
    Header,
    Cookie,
    Body,
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Location::Path => "path parameter",
            Location::Query => "query parameter",
            Location::Header => "header",
            Location::Cookie => "cookie",
            Location::Body => "request body",
        })
    }
}

/// What is wrong with a request, before the implementation is called.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Failure {
    /// A required input is absent.
    Missing,
    /// An input is there but is not what the document says it is.
    Malformed,
    /// The body is larger than [`Options::body_limit`].
    TooLarge,
    /// The path is not one of the document's.
    NotFound,
    /// The path is the document's, the method not one of its operations'.
    MethodNotAllowed,
}

impl Failure {
    /// The status that says this failure, before the document's own answers
    /// are consulted.
    pub fn status(&self) -> StatusCode {
        match self {
            Failure::Missing | Failure::Malformed => StatusCode::BAD_REQUEST,
            Failure::TooLarge => StatusCode::PAYLOAD_TOO_LARGE,
            Failure::NotFound => StatusCode::NOT_FOUND,
            Failure::MethodNotAllowed => StatusCode::METHOD_NOT_ALLOWED,
        }
    }
}

/// One input that failed: which, and why (never its value).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InputFailure {
    pub location: Location,
    /// Its name on the wire (`""` for the body, the path or the method).
    pub name: String,
    pub failure: Failure,
    /// A sentence for a person.
    pub message: String,
}

impl InputFailure {
    pub fn new(location: Location, name: &str, failure: Failure, message: String) -> Self {
        Self {
            location,
            name: name.to_owned(),
            failure,
            message,
        }
    }
}

/// An answer the document gives for a status: what a [`Rejection`] answers
/// by default. `template` is a JSON value of the documented body's shape in
/// which the string `"\u0000message"` stands for the message and
/// `"\u0000status"` for the status (written by the generator).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Documented {
    /// A status (`404`), or a range's hundreds digit times 100 (`400` for
    /// `4XX`) with `range`, or `0` for `default`.
    pub status: u16,
    pub range: bool,
    /// The media type of its body; `None`: no body.
    pub content_type: Option<&'static str>,
    pub template: Option<&'static str>,
}

const MESSAGE_MARK: &str = "\u{0}message";
const STATUS_MARK: &str = "\u{0}status";

/// The documented answer for `status` among `answers`: the status itself,
/// else its range, else `default`.
pub fn documented(answers: &[Documented], status: StatusCode) -> Option<Documented> {
    let code = status.as_u16();
    let exact = answers.iter().find(|a| !a.range && a.status == code);
    let range = || {
        answers
            .iter()
            .find(|a| a.range && a.status / 100 == code / 100)
    };
    let default = || answers.iter().find(|a| !a.range && a.status == 0);
    exact.or_else(range).or_else(default).copied()
}

/// A request the generated router refused before calling the
/// implementation, with everything an implementation needs to answer it
/// itself (`Api::rejected` in the generated module): the operation (if
/// the path and method named one), every failed input, the request's head,
/// the path parameters as they were read, and the body's bytes.
///
/// Its `Debug` shows the operation, the method, the path and the failures:
/// never the headers, the query or the body, which may hold credentials.
pub struct Rejection {
    /// The operation's `operationId` (or the generator's name for it);
    /// `None` for a path or method that is none of the document's.
    pub operation: Option<&'static str>,
    pub failures: Vec<InputFailure>,
    pub head: Parts,
    /// Path parameters by name, percent-decoded.
    pub path: Vec<(&'static str, String)>,
    /// The body as read (empty when it was not read: too large, or no
    /// operation).
    pub body: Bytes,
    /// The document's answers for this operation (for an unknown path,
    /// those of the first operation that documents the status).
    pub answers: &'static [Documented],
}

impl fmt::Debug for Rejection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Rejection")
            .field("operation", &self.operation)
            .field("method", &self.head.method)
            .field("path", &self.head.uri.path())
            .field("failures", &self.failures)
            .finish_non_exhaustive()
    }
}

impl Rejection {
    /// The status this rejection says by default: the first failure's
    /// ([`Failure::status`]).
    pub fn status(&self) -> StatusCode {
        self.failures
            .first()
            .map_or(StatusCode::BAD_REQUEST, |f| f.failure.status())
    }

    /// The failures' messages, joined.
    pub fn message(&self) -> String {
        let messages: Vec<&str> = self.failures.iter().map(|f| f.message.as_str()).collect();
        messages.join("; ")
    }

    /// A header's first value as text, if it is there and is text.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.head.headers.get(name).and_then(|v| v.to_str().ok())
    }

    /// A query parameter's first value, decoded.
    pub fn query(&self, name: &str) -> Option<String> {
        query_pairs(&self.head)
            .into_iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v)
    }

    /// A path parameter's value, decoded.
    pub fn path_param(&self, name: &str) -> Option<&str> {
        self.path
            .iter()
            .find(|(k, _)| *k == name)
            .map(|(_, v)| v.as_str())
    }

    /// The document's own answer for this rejection: the status of
    /// [`Rejection::status`] with the body the document describes for it
    /// (its own status, else its range, else `default`), the message in
    /// its text fields; a status the document does not describe is
    /// answered with the message as plain text. A required response header
    /// the document describes cannot be known here: an implementation that
    /// must send one answers rejections itself.
    pub fn documented_response(&self) -> Response {
        let status = self.status();
        let message = self.message();
        let mut response = match documented(self.answers, status)
            .and_then(|d| Some((d.content_type?, d.template?)))
        {
            Some((content_type, template)) => {
                let body = fill(template, status, &message);
                let mut response = Response::new(Body::from(body));
                if let Ok(value) = HeaderValue::from_str(content_type) {
                    response.headers_mut().insert(header::CONTENT_TYPE, value);
                }
                response
            }
            None => {
                let mut response = Response::new(Body::from(message));
                response.headers_mut().insert(
                    header::CONTENT_TYPE,
                    HeaderValue::from_static("text/plain; charset=utf-8"),
                );
                response
            }
        };
        *response.status_mut() = status;
        if status == StatusCode::METHOD_NOT_ALLOWED {
            let allow: Vec<&str> = self
                .failures
                .iter()
                .filter(|f| f.failure == Failure::MethodNotAllowed)
                .map(|f| f.name.as_str())
                .collect();
            if let Ok(value) = HeaderValue::from_str(&allow.join(", ")) {
                response.headers_mut().insert(header::ALLOW, value);
            }
        }
        response
    }
}

impl IntoResponse for Rejection {
    fn into_response(self) -> Response {
        self.documented_response()
    }
}

/// The template with its marks replaced.
fn fill(template: &str, status: StatusCode, message: &str) -> Vec<u8> {
    fn walk(value: &mut Value, status: StatusCode, message: &str) {
        match value {
            Value::String(s) if s == MESSAGE_MARK => *value = Value::String(message.to_owned()),
            Value::String(s) if s == STATUS_MARK => *value = Value::from(status.as_u16()),
            Value::Array(items) => items.iter_mut().for_each(|v| walk(v, status, message)),
            Value::Object(map) => map.values_mut().for_each(|v| walk(v, status, message)),
            _ => {}
        }
    }
    let mut value: Value = serde_json::from_str(template).unwrap_or(Value::Null);
    walk(&mut value, status, message);
    serde_json::to_vec(&value).unwrap_or_default()
}

/// A piece of a path template.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Segment {
    /// Literal text, a whole segment.
    Literal(&'static str),
    /// A parameter, a whole segment.
    Param(&'static str),
    /// Text and parameters in one segment (`{id}.json`).
    Mixed(&'static [Piece]),
}

/// A piece of a [`Segment::Mixed`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Piece {
    Literal(&'static str),
    Param(&'static str),
}

/// One operation's place: its method and its path template.
#[derive(Clone, Copy, Debug)]
pub struct Route {
    pub method: &'static str,
    pub segments: &'static [Segment],
}

/// Where a request goes.
#[derive(Debug, PartialEq, Eq)]
pub enum Routed {
    /// The index of the route, and its path parameters (percent-decoded).
    Found(usize, Vec<(&'static str, String)>),
    /// A path of the document, not with this method: the methods it has.
    MethodNotAllowed(Vec<&'static str>),
    NotFound,
}

/// Finds the route of `method` and `path` (below `base_path`). Of the
/// templates that match, the most specific wins, segment by segment
/// (literal before mixed before parameter), as OpenAPI says concrete paths
/// match before templated ones; a template the document wrote twice in
/// different spellings is matched by its first.
pub fn route(routes: &[Route], base_path: &str, method: &Method, path: &str) -> Routed {
    let Some(rest) = path.strip_prefix(base_path) else {
        return Routed::NotFound;
    };
    if !rest.starts_with('/') {
        return Routed::NotFound;
    }
    let segments: Vec<&str> = rest[1..].split('/').collect();
    let mut best: Option<(usize, Matched)> = None;
    let mut allowed = Vec::new();
    for (index, candidate) in routes.iter().enumerate() {
        let Some((rank, params)) = match_template(candidate.segments, &segments) else {
            continue;
        };
        if candidate.method != method.as_str() {
            if !allowed.contains(&candidate.method) {
                allowed.push(candidate.method);
            }
            continue;
        }
        if best.as_ref().is_none_or(|(_, (r, _))| rank > *r) {
            best = Some((index, (rank, params)));
        }
    }
    match best {
        Some((index, (_, params))) => Routed::Found(index, params),
        None if !allowed.is_empty() => Routed::MethodNotAllowed(allowed),
        None => Routed::NotFound,
    }
}

type Matched = (Vec<u8>, Vec<(&'static str, String)>);

fn match_template(template: &[Segment], segments: &[&str]) -> Option<Matched> {
    // A template that ends in `/` has an empty last segment, as the path.
    if template.len() != segments.len() {
        return None;
    }
    let mut rank = Vec::with_capacity(template.len());
    let mut params = Vec::new();
    for (part, raw) in template.iter().zip(segments) {
        match part {
            Segment::Literal(text) => {
                if percent_decode(raw).as_deref() != Some(*text) {
                    return None;
                }
                rank.push(2);
            }
            Segment::Param(name) => {
                if raw.is_empty() {
                    return None;
                }
                params.push((*name, percent_decode(raw)?));
                rank.push(0);
            }
            Segment::Mixed(pieces) => {
                params.extend(match_mixed(pieces, &percent_decode(raw)?)?);
                rank.push(1);
            }
        }
    }
    Some((rank, params))
}

/// Text and parameters in one segment: each literal must appear in order,
/// each parameter takes the (non-empty) text between them.
fn match_mixed(pieces: &[Piece], segment: &str) -> Option<Vec<(&'static str, String)>> {
    let mut params = Vec::new();
    let mut rest = segment;
    let mut pending: Option<&'static str> = None;
    for piece in pieces {
        match piece {
            Piece::Param(name) => pending = Some(name),
            Piece::Literal(text) => match pending.take() {
                None => rest = rest.strip_prefix(text)?,
                Some(name) => {
                    let at = rest.get(1..)?.find(text)? + 1;
                    params.push((name, rest[..at].to_owned()));
                    rest = &rest[at + text.len()..];
                }
            },
        }
    }
    match pending {
        Some(name) if !rest.is_empty() => params.push((name, rest.to_owned())),
        Some(_) => return None,
        None if !rest.is_empty() => return None,
        None => {}
    }
    Some(params)
}

/// `%XX` decoded (and nothing else: a `+` stays a `+` in a path); `None`
/// when the result is not UTF-8.
pub fn percent_decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        match (bytes[i], bytes.get(i + 1), bytes.get(i + 2)) {
            (b'%', Some(&h), Some(&l)) if hex(h).is_some() && hex(l).is_some() => {
                out.push((hex(h)? * 16 + hex(l)?) as u8);
                i += 3;
            }
            (b, ..) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8(out).ok()
}

/// The query's pairs, decoded as a form (`+` is a space).
pub fn query_pairs(head: &Parts) -> Vec<(String, String)> {
    head.uri
        .query()
        .and_then(|q| serde_urlencoded::from_str(q).ok())
        .unwrap_or_default()
}

/// How a parameter's value is written, as the document says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Style {
    /// One value.
    Scalar,
    /// A list: repeated (`?id=1&id=2`) when `None`, else joined by the
    /// separator.
    Array(Option<char>),
    /// An object: `name[key]=value` in the query.
    DeepObject,
    /// An object: `key=value` pairs (each a query parameter of its own, or
    /// joined by `,` in a header or path).
    Exploded,
    /// An object: `key,value,key,value`.
    Joined,
    /// JSON text (`content: application/json`).
    Json,
}

/// A path parameter's prefix style (`.v`, `;name=v`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PathStyle {
    Label { explode: bool },
    Matrix { explode: bool },
}

/// A parameter as the document declares it.
#[derive(Clone, Copy, Debug)]
pub struct Param {
    pub name: &'static str,
    pub location: Location,
    pub required: bool,
    pub style: Style,
    pub path_style: Option<PathStyle>,
}

/// The parts of a request a parameter is read from.
pub struct Inputs<'a> {
    pub head: &'a Parts,
    pub path: &'a [(&'static str, String)],
    pub query: &'a [(String, String)],
}

/// Reads the parameter `param` as a `T`; `Ok(None)` when it is absent and
/// not required. Every failure is pushed on `failures`, and is `Ok(None)`
/// here, so that a request's every failed input is told at once.
pub fn param<T: DeserializeOwned>(
    inputs: &Inputs<'_>,
    param: &Param,
    failures: &mut Vec<InputFailure>,
) -> Option<T> {
    let failed = |failure: Failure, message: String| {
        InputFailure::new(param.location, param.name, failure, message)
    };
    let raw = match raw_value(inputs, param) {
        Ok(raw) => raw,
        Err(message) => {
            failures.push(failed(Failure::Malformed, message));
            return None;
        }
    };
    let Some(raw) = raw else {
        if param.required {
            failures.push(failed(
                Failure::Missing,
                format!("the {} `{}` is required", param.location, param.name),
            ));
        }
        return None;
    };
    let decoded = match raw {
        Raw::Json(text) => serde_json::from_str(&text).map_err(|e| e.to_string()),
        other => T::deserialize(other).map_err(|e: TextError| e.0),
    };
    match decoded {
        Ok(value) => Some(value),
        Err(why) => {
            failures.push(failed(
                Failure::Malformed,
                format!(
                    "the {} `{}` is not valid: {}",
                    param.location,
                    param.name,
                    scrub(&why)
                ),
            ));
            None
        }
    }
}

/// A deserializer's message without any quoted text (it may quote the
/// value, which may be a credential).
fn scrub(message: &str) -> String {
    let mut out = String::new();
    let mut quoted = false;
    for c in message.chars() {
        match c {
            '`' | '"' => {
                quoted = !quoted;
                if quoted {
                    out.push_str("a value");
                }
            }
            _ if !quoted => out.push(c),
            _ => {}
        }
    }
    out
}

/// A parameter's text as it was read, before it is typed.
#[derive(Debug)]
enum Raw {
    One(String),
    Many(Vec<String>),
    Pairs(Vec<(String, String)>),
    Json(String),
}

fn raw_value(inputs: &Inputs<'_>, param: &Param) -> Result<Option<Raw>, String> {
    let texts: Vec<String> = match param.location {
        Location::Path => inputs
            .path
            .iter()
            .filter(|(k, _)| *k == param.name)
            .map(|(_, v)| v.clone())
            .collect(),
        Location::Query if param.style == Style::DeepObject => {
            let prefix = format!("{}[", param.name);
            let pairs: Vec<(String, String)> = inputs
                .query
                .iter()
                .filter_map(|(k, v)| {
                    let key = k.strip_prefix(&prefix)?.strip_suffix(']')?;
                    Some((key.to_owned(), v.clone()))
                })
                .collect();
            return Ok((!pairs.is_empty()).then_some(Raw::Pairs(pairs)));
        }
        Location::Query if param.style == Style::Exploded => {
            // Every pair of the query: the object's properties.
            return Ok((!inputs.query.is_empty()).then(|| Raw::Pairs(inputs.query.to_vec())));
        }
        Location::Query => inputs
            .query
            .iter()
            .filter(|(k, _)| k == param.name)
            .map(|(_, v)| v.clone())
            .collect(),
        Location::Header => inputs
            .head
            .headers
            .get_all(param.name)
            .iter()
            .map(|v| {
                v.to_str()
                    .map(str::to_owned)
                    .map_err(|_| format!("the header `{}` is not text", param.name))
            })
            .collect::<Result<_, _>>()?,
        Location::Cookie => inputs
            .head
            .headers
            .get_all(header::COOKIE)
            .iter()
            .filter_map(|v| v.to_str().ok())
            .flat_map(|v| v.split(';'))
            .filter_map(|pair| {
                let (name, value) = pair.trim().split_once('=')?;
                (name == param.name).then(|| value.to_owned())
            })
            .collect(),
        Location::Body => Vec::new(),
    };
    let Some(first) = texts.first() else {
        return Ok(None);
    };
    let first = match (param.path_style, param.location) {
        (Some(PathStyle::Label { .. }), Location::Path) => {
            first.strip_prefix('.').unwrap_or(first).to_owned()
        }
        (Some(PathStyle::Matrix { .. }), Location::Path) => {
            let prefix = format!(";{}=", param.name);
            first
                .strip_prefix(&prefix)
                .or_else(|| first.strip_prefix(';'))
                .unwrap_or(first)
                .to_owned()
        }
        _ => first.clone(),
    };
    let split = |text: &str, by: char| -> Vec<String> {
        if text.is_empty() {
            Vec::new()
        } else {
            text.split(by).map(str::to_owned).collect()
        }
    };
    let raw = match param.style {
        Style::Scalar => Raw::One(first),
        Style::Json => Raw::Json(first),
        Style::Array(None) if param.location == Location::Query => Raw::Many(texts),
        Style::Array(None) => match param.path_style {
            Some(PathStyle::Label { explode: true }) => Raw::Many(split(&first, '.')),
            _ => Raw::Many(split(&first, ',')),
        },
        Style::Array(Some(by)) => Raw::Many(split(&first, by)),
        Style::Exploded | Style::DeepObject => Raw::Pairs(
            split(&first, ',')
                .into_iter()
                .map(|kv| match kv.split_once('=') {
                    Some((k, v)) => (k.to_owned(), v.to_owned()),
                    None => (kv, String::new()),
                })
                .collect(),
        ),
        Style::Joined => {
            let items = split(&first, ',');
            Raw::Pairs(
                items
                    .chunks(2)
                    .map(|kv| (kv[0].clone(), kv.get(1).cloned().unwrap_or_default()))
                    .collect(),
            )
        }
    };
    Ok(Some(raw))
}

/// A deserializer's failure: its message.
#[derive(Debug)]
struct TextError(String);

impl fmt::Display for TextError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for TextError {}

impl de::Error for TextError {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        TextError(msg.to_string())
    }
}

/// One value given as text: a number, a boolean, a string, a string enum,
/// as the type asks.
struct Text<'a>(Cow<'a, str>);

macro_rules! parse_as {
    ($($method:ident => $visit:ident: $ty:ty,)*) => {
        $(fn $method<V: de::Visitor<'de>>(self, visitor: V) -> Result<V::Value, TextError> {
            match self.0.parse::<$ty>() {
                Ok(v) => visitor.$visit(v),
                Err(_) => Err(de::Error::custom(concat!("not a value of type ", stringify!($ty)))),
            }
        })*
    };
}

impl<'de, 'a> IntoDeserializer<'de, TextError> for Text<'a> {
    type Deserializer = Self;

    fn into_deserializer(self) -> Self {
        self
    }
}

impl<'de> de::Deserializer<'de> for Text<'_> {
    type Error = TextError;

    fn deserialize_any<V: de::Visitor<'de>>(self, visitor: V) -> Result<V::Value, TextError> {
        visitor.visit_string(self.0.into_owned())
    }

    parse_as! {
        deserialize_bool => visit_bool: bool,
        deserialize_i8 => visit_i8: i8,
        deserialize_i16 => visit_i16: i16,
        deserialize_i32 => visit_i32: i32,
        deserialize_i64 => visit_i64: i64,
        deserialize_u8 => visit_u8: u8,
        deserialize_u16 => visit_u16: u16,
        deserialize_u32 => visit_u32: u32,
        deserialize_u64 => visit_u64: u64,
        deserialize_f32 => visit_f32: f32,
        deserialize_f64 => visit_f64: f64,
    }

    fn deserialize_option<V: de::Visitor<'de>>(self, visitor: V) -> Result<V::Value, TextError> {
        visitor.visit_some(self)
    }

    fn deserialize_newtype_struct<V: de::Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, TextError> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_enum<V: de::Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, TextError> {
        visitor.visit_enum(self.0.into_owned().into_deserializer())
    }

    serde::forward_to_deserialize_any! {
        char str string bytes byte_buf unit unit_struct seq tuple tuple_struct
        map struct identifier ignored_any i128 u128
    }
}

impl<'de> de::Deserializer<'de> for Raw {
    type Error = TextError;

    fn deserialize_any<V: de::Visitor<'de>>(self, visitor: V) -> Result<V::Value, TextError> {
        match self {
            Raw::One(text) | Raw::Json(text) => Text(Cow::Owned(text)).deserialize_any(visitor),
            Raw::Many(items) => visitor.visit_seq(de::value::SeqDeserializer::new(
                items.into_iter().map(|t| Text(Cow::Owned(t))),
            )),
            Raw::Pairs(pairs) => visitor.visit_map(de::value::MapDeserializer::new(
                pairs
                    .into_iter()
                    .map(|(k, v)| (Text(Cow::Owned(k)), Text(Cow::Owned(v)))),
            )),
        }
    }

    fn deserialize_option<V: de::Visitor<'de>>(self, visitor: V) -> Result<V::Value, TextError> {
        visitor.visit_some(self)
    }

    fn deserialize_newtype_struct<V: de::Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, TextError> {
        visitor.visit_newtype_struct(self)
    }

    serde::forward_to_deserialize_any! {
        char str string bytes byte_buf unit unit_struct seq tuple tuple_struct
        map struct identifier ignored_any i128 u128
    }

    // A scalar asked of one value: parsed as that scalar.
    fn deserialize_bool<V: de::Visitor<'de>>(self, v: V) -> Result<V::Value, TextError> {
        self.one()?.deserialize_bool(v)
    }
    fn deserialize_i8<V: de::Visitor<'de>>(self, v: V) -> Result<V::Value, TextError> {
        self.one()?.deserialize_i8(v)
    }
    fn deserialize_i16<V: de::Visitor<'de>>(self, v: V) -> Result<V::Value, TextError> {
        self.one()?.deserialize_i16(v)
    }
    fn deserialize_i32<V: de::Visitor<'de>>(self, v: V) -> Result<V::Value, TextError> {
        self.one()?.deserialize_i32(v)
    }
    fn deserialize_i64<V: de::Visitor<'de>>(self, v: V) -> Result<V::Value, TextError> {
        self.one()?.deserialize_i64(v)
    }
    fn deserialize_u8<V: de::Visitor<'de>>(self, v: V) -> Result<V::Value, TextError> {
        self.one()?.deserialize_u8(v)
    }
    fn deserialize_u16<V: de::Visitor<'de>>(self, v: V) -> Result<V::Value, TextError> {
        self.one()?.deserialize_u16(v)
    }
    fn deserialize_u32<V: de::Visitor<'de>>(self, v: V) -> Result<V::Value, TextError> {
        self.one()?.deserialize_u32(v)
    }
    fn deserialize_u64<V: de::Visitor<'de>>(self, v: V) -> Result<V::Value, TextError> {
        self.one()?.deserialize_u64(v)
    }
    fn deserialize_f32<V: de::Visitor<'de>>(self, v: V) -> Result<V::Value, TextError> {
        self.one()?.deserialize_f32(v)
    }
    fn deserialize_f64<V: de::Visitor<'de>>(self, v: V) -> Result<V::Value, TextError> {
        self.one()?.deserialize_f64(v)
    }
    fn deserialize_enum<V: de::Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        v: V,
    ) -> Result<V::Value, TextError> {
        self.one()?.deserialize_enum(name, variants, v)
    }
}

impl Raw {
    fn one(self) -> Result<Text<'static>, TextError> {
        match self {
            Raw::One(text) | Raw::Json(text) => Ok(Text(Cow::Owned(text))),
            _ => Err(de::Error::custom(
                "a list or object where one value belongs",
            )),
        }
    }
}

/// How a request body travels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BodyKind {
    /// JSON, read whatever the `Content-Type` says (a client that forgot it
    /// still means JSON); an object with a key given twice is refused.
    Json,
    /// `application/x-www-form-urlencoded`.
    Form,
    /// Text (UTF-8).
    Text,
}

/// Reads the body as a `T`; `None` when it is empty and not required (or
/// failed: the failure is pushed on `failures`).
pub fn body<T: DeserializeOwned>(
    bytes: &Bytes,
    kind: BodyKind,
    required: bool,
    failures: &mut Vec<InputFailure>,
) -> Option<T> {
    let failed =
        |failure: Failure, message: String| InputFailure::new(Location::Body, "", failure, message);
    if bytes.is_empty() {
        if required {
            failures.push(failed(
                Failure::Missing,
                "the request body is required".into(),
            ));
        }
        return None;
    }
    let decoded: Result<T, String> = match kind {
        BodyKind::Json => json_unique(bytes),
        BodyKind::Form => serde_urlencoded::from_bytes(bytes).map_err(|e| scrub(&e.to_string())),
        BodyKind::Text => match std::str::from_utf8(bytes) {
            Ok(text) => T::deserialize(Text(Cow::Borrowed(text))).map_err(|e| e.0),
            Err(_) => Err("it is not UTF-8".into()),
        },
    };
    match decoded {
        Ok(value) => Some(value),
        Err(why) => {
            failures.push(failed(
                Failure::Malformed,
                format!("the request body is not valid: {why}"),
            ));
            None
        }
    }
}

/// JSON into `T`, refusing an object that gives a key twice (at any depth):
/// which of the two a reader keeps differs between readers.
fn json_unique<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, String> {
    let text = std::str::from_utf8(bytes).map_err(|_| "it is not UTF-8".to_owned())?;
    let mut unique = serde_json::Deserializer::from_str(text);
    de::Deserialize::deserialize(&mut unique)
        .and_then(|UniqueKeys| unique.end())
        .map_err(|e| scrub(&e.to_string()))?;
    serde_json::from_str(text).map_err(|e| scrub(&e.to_string()))
}

/// A JSON value read only to find a key given twice in one object.
struct UniqueKeys;

impl<'de> de::Deserialize<'de> for UniqueKeys {
    fn deserialize<D: de::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(UniqueKeysVisitor)
    }
}

struct UniqueKeysVisitor;

impl<'de> de::Visitor<'de> for UniqueKeysVisitor {
    type Value = UniqueKeys;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, _: bool) -> Result<UniqueKeys, E> {
        Ok(UniqueKeys)
    }
    fn visit_i64<E>(self, _: i64) -> Result<UniqueKeys, E> {
        Ok(UniqueKeys)
    }
    fn visit_u64<E>(self, _: u64) -> Result<UniqueKeys, E> {
        Ok(UniqueKeys)
    }
    fn visit_f64<E>(self, _: f64) -> Result<UniqueKeys, E> {
        Ok(UniqueKeys)
    }
    fn visit_str<E>(self, _: &str) -> Result<UniqueKeys, E> {
        Ok(UniqueKeys)
    }
    fn visit_unit<E>(self) -> Result<UniqueKeys, E> {
        Ok(UniqueKeys)
    }
    fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<UniqueKeys, A::Error> {
        while seq.next_element::<UniqueKeys>()?.is_some() {}
        Ok(UniqueKeys)
    }
    fn visit_map<A: de::MapAccess<'de>>(self, mut map: A) -> Result<UniqueKeys, A::Error> {
        let mut seen = std::collections::HashSet::new();
        while let Some(key) = map.next_key::<String>()? {
            if !seen.insert(key) {
                return Err(de::Error::custom("an object gives one key twice"));
            }
            map.next_value::<UniqueKeys>()?;
        }
        Ok(UniqueKeys)
    }
}

/// Reads a request's body whole, `limit` bytes at most: a declared length
/// over it is refused before reading.
pub async fn read_body(head: &Parts, body: Body, limit: usize) -> Result<Bytes, InputFailure> {
    let too_large = || {
        InputFailure::new(
            Location::Body,
            "",
            Failure::TooLarge,
            format!("the request body is larger than {limit} bytes"),
        )
    };
    let declared = head
        .headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|n| n > limit as u64) {
        return Err(too_large());
    }
    axum::body::to_bytes(body, limit)
        .await
        .map_err(|_| too_large())
}

/// A header's value from an answer's typed field: a string as it is, a
/// number or boolean as JSON writes it, a list joined by `,`; `None` for
/// what no header can carry.
pub fn header_value<T: serde::Serialize>(value: &T) -> Option<HeaderValue> {
    let text = match serde_json::to_value(value).ok()? {
        Value::String(s) => s,
        Value::Array(items) => {
            let texts: Vec<String> = items
                .into_iter()
                .map(|v| match v {
                    Value::String(s) => s,
                    other => other.to_string(),
                })
                .collect();
            texts.join(",")
        }
        Value::Null => return None,
        other => other.to_string(),
    };
    HeaderValue::from_str(&text).ok()
}

/// An answer: `status`, its JSON body (if any) and its headers.
pub fn answer<B: serde::Serialize>(
    status: StatusCode,
    body: Option<&B>,
    headers: Vec<(&'static str, Option<HeaderValue>)>,
) -> Response {
    let mut response = match body.map(serde_json::to_vec) {
        Some(Ok(bytes)) => {
            let mut response = Response::new(Body::from(bytes));
            response.headers_mut().insert(
                header::CONTENT_TYPE,
                HeaderValue::from_static("application/json"),
            );
            response
        }
        Some(Err(_)) => {
            let mut response = Response::new(Body::empty());
            *response.status_mut() = StatusCode::INTERNAL_SERVER_ERROR;
            return response;
        }
        None => Response::new(Body::empty()),
    };
    *response.status_mut() = status;
    for (name, value) in headers {
        if let (Ok(name), Some(value)) = (HeaderName::from_bytes(name.as_bytes()), value) {
            response.headers_mut().append(name, value);
        }
    }
    response
}

/// A status from a number the implementation gave (a range's or
/// `default`'s answer): 500 when it is no status.
pub fn status(code: u16) -> StatusCode {
    StatusCode::from_u16(code).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR)
}

#[cfg(test)]
mod tests {
    use super::*;

    const ROUTES: &[Route] = &[
        Route {
            method: "GET",
            segments: &[Segment::Literal("things"), Segment::Param("id")],
        },
        Route {
            method: "GET",
            segments: &[Segment::Literal("things"), Segment::Literal("mine")],
        },
        Route {
            method: "POST",
            segments: &[
                Segment::Literal("files"),
                Segment::Mixed(&[Piece::Param("name"), Piece::Literal(".json")]),
            ],
        },
    ];

    #[test]
    fn routes_literal_before_parameter_and_decodes() {
        let get = Method::GET;
        assert_eq!(
            route(ROUTES, "/api", &get, "/api/things/mine"),
            Routed::Found(1, vec![])
        );
        assert_eq!(
            route(ROUTES, "/api", &get, "/api/things/a%20b"),
            Routed::Found(0, vec![("id", "a b".into())])
        );
        assert_eq!(
            route(ROUTES, "/api", &Method::POST, "/api/files/x.y.json"),
            Routed::Found(2, vec![("name", "x.y".into())])
        );
        assert_eq!(
            route(ROUTES, "/api", &Method::DELETE, "/api/things/1"),
            Routed::MethodNotAllowed(vec!["GET"])
        );
        assert_eq!(route(ROUTES, "/api", &get, "/things/1"), Routed::NotFound);
        assert_eq!(
            route(ROUTES, "/api", &get, "/api/things/"),
            Routed::NotFound
        );
    }

    fn head(uri: &str, headers: &[(&'static str, &'static str)]) -> Parts {
        let mut request = axum::http::Request::builder().uri(uri);
        for (k, v) in headers {
            request = request.header(*k, *v);
        }
        request.body(()).unwrap().into_parts().0
    }

    #[test]
    fn reads_typed_parameters_and_names_every_failure_without_its_value() {
        let head = head(
            "/x?n=7&ids=1&ids=2&flag=maybe",
            &[("x-token", "hunter2"), ("x-list", "a,b")],
        );
        let query = query_pairs(&head);
        let inputs = Inputs {
            head: &head,
            path: &[],
            query: &query,
        };
        let p = |name, location, required, style| Param {
            name,
            location,
            required,
            style,
            path_style: None,
        };
        let mut failures = Vec::new();
        let n: Option<i64> = param(
            &inputs,
            &p("n", Location::Query, true, Style::Scalar),
            &mut failures,
        );
        let ids: Option<Vec<u8>> = param(
            &inputs,
            &p("ids", Location::Query, true, Style::Array(None)),
            &mut failures,
        );
        let list: Option<Vec<String>> = param(
            &inputs,
            &p("x-list", Location::Header, false, Style::Array(None)),
            &mut failures,
        );
        let token: Option<u32> = param(
            &inputs,
            &p("x-token", Location::Header, true, Style::Scalar),
            &mut failures,
        );
        let flag: Option<bool> = param(
            &inputs,
            &p("flag", Location::Query, false, Style::Scalar),
            &mut failures,
        );
        let absent: Option<String> = param(
            &inputs,
            &p("absent", Location::Query, true, Style::Scalar),
            &mut failures,
        );
        assert_eq!((n, ids), (Some(7), Some(vec![1, 2])));
        assert_eq!(list, Some(vec!["a".into(), "b".into()]));
        assert_eq!((token, flag, absent), (None, None, None));
        let kinds: Vec<(&str, &Failure)> = failures
            .iter()
            .map(|f| (f.name.as_str(), &f.failure))
            .collect();
        assert_eq!(
            kinds,
            [
                ("x-token", &Failure::Malformed),
                ("flag", &Failure::Malformed),
                ("absent", &Failure::Missing)
            ]
        );
        assert!(failures.iter().all(|f| !f.message.contains("hunter2")));
    }

    #[test]
    fn refuses_a_key_given_twice_and_a_non_object() {
        type Map = serde_json::Map<String, Value>;
        let mut failures = Vec::new();
        let ok: Option<Map> = body(
            &Bytes::from(r#"{"a":1}"#),
            BodyKind::Json,
            false,
            &mut failures,
        );
        assert!(ok.is_some() && failures.is_empty());
        let twice: Option<Map> = body(
            &Bytes::from(r#"{"a":{"b":1,"b":2}}"#),
            BodyKind::Json,
            false,
            &mut failures,
        );
        let list: Option<Map> = body(&Bytes::from("[1]"), BodyKind::Json, false, &mut failures);
        let empty: Option<Map> = body(&Bytes::new(), BodyKind::Json, false, &mut failures);
        assert_eq!((twice, list, empty), (None, None, None));
        assert_eq!(failures.len(), 2);
        assert!(failures[0].message.contains("twice"), "{failures:?}");
    }

    #[test]
    fn a_documented_answer_fills_its_template() {
        const ANSWERS: &[Documented] = &[Documented {
            status: 400,
            range: true,
            content_type: Some("application/json"),
            template: Some(r#"{"code":"\u0000status","message":"\u0000message","ok":false}"#),
        }];
        let rejection = Rejection {
            operation: Some("op"),
            failures: vec![InputFailure::new(
                Location::Query,
                "n",
                Failure::Missing,
                "n is required".into(),
            )],
            head: head("/x", &[("x-secret", "hunter2")]),
            path: vec![],
            body: Bytes::from("hunter2"),
            answers: ANSWERS,
        };
        assert!(!format!("{rejection:?}").contains("hunter2"));
        let response = rejection.documented_response();
        assert_eq!(response.status(), StatusCode::BAD_REQUEST);
        assert_eq!(response.headers()[header::CONTENT_TYPE], "application/json");
        assert_eq!(
            fill(ANSWERS[0].template.unwrap(), StatusCode::BAD_REQUEST, "m"),
            br#"{"code":400,"message":"m","ok":false}"#
        );
    }
}
