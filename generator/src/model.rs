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
    /// The `securitySchemes` this client can apply: the client holds a
    /// credential for each (`Credentials`).
    pub security: Vec<SecurityScheme>,
    /// What was made looser than the spec says, counted (the summary line).
    pub degraded: Degraded,
}

/// What the generator read more loosely than the spec says, or left out,
/// by kind: each also has its warning at its node.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Degraded {
    /// Operations left out of the client (none of it can be called).
    pub operations: usize,
    /// Parameters left out, or sent as a string the caller supplies.
    pub parameters: usize,
    /// Schemas read as any JSON value, in place.
    pub schemas: usize,
    /// Response headers left out or read as their text.
    pub headers: usize,
    /// Request bodies sent as raw bytes the caller supplies.
    pub bodies: usize,
    /// Parts of a body's `encoding` not applied (`allowReserved`, a form
    /// field's headers, a multipart body's part encodings), and media types
    /// of a body not offered to the caller (one that cannot be written
    /// beside one that can).
    pub encodings: usize,
}

impl Degraded {
    pub fn is_empty(&self) -> bool {
        *self == Self::default()
    }
}

impl std::fmt::Display for Degraded {
    /// `degraded: 1 operation left out, 2 parameters, ...`: one line.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let parts: Vec<String> = [
            (self.operations, "operation", "operations", "left out"),
            (
                self.parameters,
                "parameter",
                "parameters",
                "left out or sent as a string",
            ),
            (self.schemas, "schema", "schemas", "read as any JSON value"),
            (
                self.headers,
                "response header",
                "response headers",
                "left out or read as text",
            ),
            (
                self.bodies,
                "request body",
                "request bodies",
                "sent as raw bytes",
            ),
            (
                self.encodings,
                "body encoding or media type",
                "body encodings or media types",
                "not applied",
            ),
        ]
        .into_iter()
        .filter(|(n, ..)| *n > 0)
        .map(|(n, one, many, how)| format!("{n} {} {how}", if n == 1 { one } else { many }))
        .collect();
        if parts.is_empty() {
            f.write_str("nothing")
        } else {
            f.write_str(&parts.join(", "))
        }
    }
}

/// A way of authenticating from `components/securitySchemes`.
#[derive(Debug, Clone, PartialEq)]
pub struct SecurityScheme {
    /// Its key in `securitySchemes`.
    pub name: String,
    /// Its field in `Credentials`.
    pub rust_name: String,
    pub kind: SchemeKind,
    pub description: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SchemeKind {
    /// `type: apiKey`: the key under this name, in a header, the query or a
    /// cookie.
    ApiKey { location: Location, name: String },
    /// `Authorization: Bearer TOKEN`: `http` `bearer`, and the tokens of
    /// `oauth2` and `openIdConnect` (obtaining one is the user's part).
    Bearer,
    /// `http` `basic`.
    Basic,
}

/// The first entry of `servers`, with its variables.
#[derive(Debug, Clone, PartialEq)]
pub struct Server {
    pub url: String,
    pub description: Option<String>,
    /// Variable name and its Rust argument name, each once, in the order
    /// they first appear in the URL.
    pub variables: Vec<(String, String)>,
    /// The URL cut into text and variables (indices into `variables`); a
    /// variable may appear more than once.
    pub pieces: Vec<UrlPiece>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UrlPiece {
    Literal(String),
    Variable(usize),
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
    /// The operation's `tags`, as written: the first names the cargo
    /// feature it is compiled with under `--tag-features`.
    pub tags: Vec<String>,
    pub summary: Option<String>,
    pub description: Option<String>,
    pub params: Vec<Param>,
    pub body: Option<Body>,
    pub responses: Vec<Response>,
    pub default_response: Option<Response>,
    /// The `security` alternatives that apply (the operation's, else the
    /// document's): each a list of indices into `Api::security`, the first
    /// whose credentials are all set is used; an empty one means none is
    /// needed.
    pub security: Vec<Vec<usize>>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PathSegment {
    Literal(String),
    /// Index into the operation's `params`.
    Param(usize),
    /// Text and variables in one segment (`{id}.json`): literals and
    /// params, joined and then encoded as one segment.
    Mixed(Vec<PathSegment>),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Location {
    Path,
    Query,
    Header,
    /// Only for API keys of `securitySchemes`.
    Cookie,
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
    /// How the value is written.
    pub style: ParamStyle,
    /// A path parameter in `style: label` or `matrix`: its segment starts
    /// with `.` or `;name=` (the value's shape written by the runtime).
    pub path_style: Option<PathStyle>,
}

/// The path styles beside `simple`, with their `explode`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PathStyle {
    /// `.v`; arrays `.a,b` (`.a.b` exploded); objects `.k,v` (`.k=v`).
    Label { explode: bool },
    /// `;name=v`; arrays `;name=a,b` (`;name=a;name=b` exploded); objects
    /// `;name=k,v` (`;k=v`).
    Matrix { explode: bool },
}

/// How a parameter's value is written on the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParamStyle {
    /// One value that prints as a string.
    Scalar,
    /// An array of such values: in the query as its style says; in a header
    /// or path, joined by `,` (`simple`).
    Array(ArrayStyle),
    /// An object (or a value of any shape), written through `serde_json`:
    /// its properties as the style says.
    Object(ObjectStyle),
    /// A parameter described by `content` with a JSON media type: the value
    /// as JSON text.
    Json,
}

/// How an object parameter is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ObjectStyle {
    /// `deepObject` (query): `name[key]=value`.
    DeepObject,
    /// `form` exploded (query): `key=value`; `simple` exploded (header,
    /// path): `key=value,key=value`.
    Exploded,
    /// `form` not exploded (query): `name=key,value`; `simple` (header,
    /// path): `key,value`.
    Joined,
}

/// How the items of an array query parameter are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArrayStyle {
    /// `style: form, explode: true` (the default): `?id=1&id=2`.
    Repeat,
    /// One parameter, items joined by this separator: `,` for `form` with
    /// `explode: false`, space for `spaceDelimited`, `|` for `pipeDelimited`.
    Joined(char),
}

#[derive(Debug, Clone, PartialEq)]
pub struct Body {
    /// The media type sent when the caller does not choose: the best the
    /// operation offers (JSON, then a form, then multipart, bytes, text).
    pub media: BodyMedia,
    /// Where the operation offers several media types the client can
    /// write: the enum the caller picks one with (in the builder module),
    /// a variant per media type, the best first. `None`: one media type.
    pub choice: Option<BodyChoice>,
    pub required: bool,
    pub description: Option<String>,
}

/// The media types of a request body the caller chooses from: an enum
/// whose variant says which is sent (`PatchThingBody::MergePatchJson(patch)`).
#[derive(Debug, Clone, PartialEq)]
pub struct BodyChoice {
    /// The enum's name in the builder module.
    pub name: String,
    /// Each variant's name and how it is sent, in the order of preference.
    pub variants: Vec<(String, BodyMedia)>,
}

/// How a request body travels, from the media type the operation offers
/// (JSON first, then a form, then bytes, then text).
#[derive(Debug, Clone, PartialEq)]
pub enum BodyMedia {
    /// `application/json` (or `+json`): the typed value, serialised as JSON,
    /// sent with the media type the document declares
    /// (`application/merge-patch+json` stays that).
    Json { ty: TypeRef, content_type: String },
    /// `application/x-www-form-urlencoded`: a struct (or map) of flat
    /// values and arrays of them; properties the `encoding` names are
    /// written as it says.
    Form {
        ty: TypeRef,
        encoding: Vec<FormEncoding>,
    },
    /// `multipart/form-data`: a struct whose fields are parts (text, files
    /// for `format: binary`, JSON for the rest), or any object.
    Multipart(TypeRef),
    /// `application/octet-stream` and other binary types: `Bytes`, sent as
    /// they are with this `Content-Type`.
    Binary { content_type: String },
    /// `text/*`: a `String`, sent with this `Content-Type`.
    Text { content_type: String },
}

impl BodyMedia {
    /// The Rust type the body's value has, if the generator types it.
    pub fn typed(&self) -> Option<&TypeRef> {
        match self {
            BodyMedia::Json { ty, .. } | BodyMedia::Form { ty, .. } | BodyMedia::Multipart(ty) => {
                Some(ty)
            }
            BodyMedia::Binary { .. } | BodyMedia::Text { .. } => None,
        }
    }
}

/// How one property of a form body is written, from its `encoding` entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FormEncoding {
    /// The property's name on the wire.
    pub property: String,
    pub style: FormStyle,
    pub explode: bool,
}

/// The `style` of a form property (or its `contentType`, when that says
/// JSON), as in the query.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FormStyle {
    /// `form`: arrays repeated (exploded) or joined by `,`; an object's
    /// properties `key=value` (exploded) or `name=key,value,...`.
    Form,
    /// `spaceDelimited`: arrays (and objects) joined by a space.
    SpaceDelimited,
    /// `pipeDelimited`: joined by `|`.
    PipeDelimited,
    /// `deepObject`: `name[key]=value`, nested to any depth, array items
    /// by index (`name[items][0][price]=...`).
    DeepObject,
    /// `contentType: application/json` (and no `style`): the value's JSON
    /// text.
    Json,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Response {
    pub status: Status,
    pub variant: String,
    pub description: String,
    /// `None` when the response has no JSON content.
    pub body: Option<TypeRef>,
    pub headers: Vec<ResponseHeader>,
}

/// Which statuses a response documents.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    Code(u16),
    /// `4XX`: the hundreds digit.
    Range(u16),
    /// `default`: any status not documented otherwise.
    Default,
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
    /// `type: string, format: password`: held in `client_runtime::Secret`,
    /// whose `Debug` and `Display` print `[redacted]` (serde carries the
    /// plain value), so an answer printed with `{:?}` shows no token.
    Secret,
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
    /// On the heap, to end a recursive type (`Option<Box<Node>>`).
    Boxed(Box<TypeRef>),
    Named(String),
    /// `type: string, format: binary` in a multipart body: a file part
    /// (`client_runtime::FilePart`).
    File,
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
        variants: Vec<EnumValue>,
    },
    Alias {
        description: Option<String>,
        ty: TypeRef,
    },
    /// A type of its own around another (`struct L(Vec<L>)`): what a
    /// recursive alias becomes, since an alias cannot refer to itself.
    Newtype {
        description: Option<String>,
        ty: TypeRef,
    },
    /// `oneOf` / `anyOf`: one of several types.
    OneOf {
        description: Option<String>,
        /// The discriminator's property, when the variants are told apart by
        /// it (`#[serde(tag = ...)]`); `None`: the first variant that
        /// matches wins (`#[serde(untagged)]`).
        tag: Option<String>,
        variants: Vec<Variant>,
    },
    /// `oneOf` / `anyOf` of inline objects told apart by a required
    /// property of one constant value each (`type: "a"`, `type: "b"`): one
    /// enum whose variants hold each member's other properties, the property
    /// its tag (`#[serde(tag = ...)]`), rather than a struct and a one-value
    /// enum per member.
    Tagged {
        description: Option<String>,
        /// The property whose value names the variant.
        tag: String,
        variants: Vec<TaggedVariant>,
    },
}

/// A value of a string enum.
#[derive(Debug, Clone, PartialEq)]
pub struct EnumValue {
    /// The value on the wire.
    pub wire: String,
    /// The variant's name.
    pub name: String,
    pub description: Option<String>,
}

/// A member of a [`TypeDef::Tagged`]: its tag value and its other
/// properties (none: a unit variant).
#[derive(Debug, Clone, PartialEq)]
pub struct TaggedVariant {
    pub name: String,
    pub tag_value: String,
    pub description: Option<String>,
    pub fields: Vec<Field>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Variant {
    pub name: String,
    /// The discriminator value, when tagged.
    pub tag_value: Option<String>,
    pub ty: TypeRef,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Field {
    pub name: String,
    pub rust_name: String,
    pub required: bool,
    pub ty: TypeRef,
    pub description: Option<String>,
}

/// Whether values of `ty` print as one string (for a parameter): a
/// primitive, a string enum, an alias of one, or an untagged `oneOf` of
/// those (its `Display` prints the variant held). `depth` bounds the walk
/// through aliases, which may be circular.
pub fn is_scalar(types: &BTreeMap<String, TypeDef>, ty: &TypeRef, depth: usize) -> bool {
    match ty {
        TypeRef::String | TypeRef::Integer { .. } | TypeRef::Number | TypeRef::Boolean => true,
        TypeRef::Named(name) if depth < 64 => match types.get(name) {
            Some(TypeDef::Enum { .. }) => true,
            Some(TypeDef::Alias { ty, .. }) => is_scalar(types, ty, depth + 1),
            Some(TypeDef::OneOf {
                tag: None,
                variants,
                ..
            }) => variants.iter().all(|v| is_scalar(types, &v.ty, depth + 1)),
            _ => false,
        },
        _ => false,
    }
}
