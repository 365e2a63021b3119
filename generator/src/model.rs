//! The intermediate form between the OpenAPI document and the emitted code.
//!
//! Everything the emitters need is resolved here (no `$ref` left, names
//! already Rust identifiers), so emitting never looks back at the document.

use std::collections::BTreeMap;

/// An API, lowered.
#[derive(Debug, Clone, PartialEq)]
pub struct Api {
    pub title: String,
    pub version: String,
    pub description: Option<String>,
    pub server: Option<Server>,
    pub operations: Vec<Operation>,
    /// Every named type, ordered by name so output is deterministic.
    pub types: BTreeMap<String, TypeDef>,
    /// Header parameters that every operation takes: the client holds a
    /// default for each.
    pub shared_headers: Vec<Param>,
}

/// The first entry of `servers`, with its variables.
#[derive(Debug, Clone, PartialEq)]
pub struct Server {
    pub url: String,
    pub description: Option<String>,
    /// Variable name and its Rust argument name, in the order they appear in the URL.
    pub variables: Vec<(String, String)>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Operation {
    /// Snake-case method name, from `operationId`.
    pub method_name: String,
    /// Pascal-case type name prefix.
    pub type_name: String,
    pub http_method: String,
    pub path: Vec<PathSegment>,
    pub path_template: String,
    pub summary: Option<String>,
    pub description: Option<String>,
    pub params: Vec<Param>,
    pub body: Option<Body>,
    pub responses: Vec<Response>,
    pub default_response: Option<Response>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PathSegment {
    Literal(String),
    /// Index into the operation's `params`.
    Param(usize),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Location {
    Path,
    Query,
    Header,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Param {
    /// The name on the wire.
    pub name: String,
    pub rust_name: String,
    pub location: Location,
    pub required: bool,
    /// `format: password`: held in a `Secret` that never prints.
    pub secret: bool,
    pub ty: TypeRef,
    pub description: Option<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Body {
    pub ty: TypeRef,
    pub required: bool,
    pub description: Option<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Response {
    /// `None` for `default`.
    pub status: Option<u16>,
    pub variant: String,
    pub description: String,
    /// `None` when the response has no JSON content.
    pub body: Option<TypeRef>,
    pub headers: Vec<ResponseHeader>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ResponseHeader {
    pub name: String,
    pub rust_name: String,
    pub required: bool,
    pub ty: TypeRef,
    pub description: Option<String>,
}

/// A use of a type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TypeRef {
    String,
    Integer {
        bits: u8,
    },
    Number,
    Boolean,
    /// A free-form JSON object.
    Map,
    /// Any JSON value.
    Value,
    /// An object whose values all have one type.
    MapOf(Box<TypeRef>),
    Array(Box<TypeRef>),
    Optional(Box<TypeRef>),
    Named(String),
}

/// A type with a name of its own.
#[derive(Debug, Clone, PartialEq)]
pub enum TypeDef {
    Struct {
        description: Option<String>,
        fields: Vec<Field>,
    },
    Enum {
        description: Option<String>,
        /// Wire value and variant name.
        variants: Vec<(String, String)>,
    },
    Alias {
        description: Option<String>,
        ty: TypeRef,
    },
}

#[derive(Debug, Clone, PartialEq)]
pub struct Field {
    pub name: String,
    pub rust_name: String,
    pub required: bool,
    pub ty: TypeRef,
    pub description: Option<String>,
}
