//! OpenAPI document → [`model::Api`](crate::model::Api).
//!
//! Every `$ref` is resolved, every name made a Rust identifier, and every
//! construct the emitters cannot express is refused here, with the pointer of
//! the node that carries it.

use std::collections::{BTreeMap, BTreeSet};

use openapiv3::{
    AdditionalProperties, Header, ObjectType, OpenAPI, Operation as SpecOperation, Parameter,
    ParameterData, ParameterSchemaOrContent, PathItem, QueryStyle, ReferenceOr, RequestBody,
    Response as SpecResponse, Schema, SchemaKind, StatusCode, StringFormat, Type,
    VariantOrUnknownOrEmpty,
};

use crate::error::{LowerError, Pointer};
use crate::model::{
    Api, ArrayStyle, Body, BodyMedia, Field, Location, ObjectStyle, Operation, Param, ParamStyle,
    PathSegment, Response, ResponseHeader, SchemeKind, SecurityScheme, Server, Status, TypeDef,
    TypeRef, UrlPiece, Variant,
};
use crate::names::{Scope, pascal, snake};

type Result<T> = std::result::Result<T, LowerError>;

const UNSUPPORTED_HINT: &str = "this generator supports objects, arrays, primitives, string enums, free-form objects, `allOf` of objects, `oneOf` and `anyOf`; rewrite the schema with those";

/// Methods of the generated `Client`: no operation may take their names.
const CLIENT_METHODS: &[&str] = &[
    "new",
    "with_transport",
    "with_defaults",
    "with_credentials",
    "credentials",
    "base_url",
    "transport",
    "defaults",
    "send",
];

/// Names a request builder uses itself, as fields or methods: no parameter
/// may take them. (The locals of `build()` are named by the emitter, around
/// the parameters' names.)
const BUILDER_NAMES: &[&str] = &["client", "body", "new", "build", "send"];

/// How deep `allOf` may nest (through references) before it is refused as
/// circular.
const MAX_ALL_OF_DEPTH: usize = 32;

pub fn lower(doc: &OpenAPI) -> Result<Api> {
    lower_with_warnings(doc).map(|(api, _)| api)
}

/// Lowers `doc`, and tells what was made looser than the spec says (a
/// schema beyond the model read as any JSON, ...), each once, in the order
/// met.
pub fn lower_with_warnings(doc: &OpenAPI) -> Result<(Api, Vec<LowerError>)> {
    // Every schema's type name is claimed first, in document order, so a
    // name never depends on which operation happens to use the schema first.
    let mut scope = Scope::default();
    let mut schema_names = BTreeMap::new();
    if let Some(components) = &doc.components {
        for name in components.schemas.keys() {
            schema_names.insert(name.clone(), scope.claim(&pascal(name)));
        }
    }
    let mut lowerer = Lowerer {
        doc,
        types: BTreeMap::new(),
        in_progress: BTreeSet::new(),
        scope,
        schema_types: schema_names.values().cloned().collect(),
        schema_names,
        nullable: BTreeSet::new(),
        exact: None,
        all_of_depth: 0,
        files: false,
        schemes: Vec::new(),
        pointed_types: BTreeMap::new(),
        pointed_in_progress: BTreeSet::new(),
        back_refs: BTreeMap::new(),
        warnings: Vec::new(),
    };
    let server = lowerer.server()?;
    let security = lowerer.security_schemes();
    lowerer.schemes = security.iter().map(|s| s.name.clone()).collect();
    let operations = lowerer.operations()?;
    let shared_headers = shared_headers(&operations);
    crate::recursion::break_cycles(&mut lowerer.types);
    let api = Api {
        title: doc.info.title.clone(),
        version: doc.info.version.clone(),
        description: doc.info.description.clone(),
        server,
        operations,
        types: lowerer.types,
        shared_headers,
        security,
    };
    Ok((api, lowerer.warnings))
}

struct Lowerer<'a> {
    doc: &'a OpenAPI,
    types: BTreeMap<String, TypeDef>,
    /// Named schemas being lowered, so that recursion through `$ref` ends.
    in_progress: BTreeSet<String>,
    /// The names in the `types` module.
    scope: Scope,
    /// `components/schemas` key → its type's name.
    schema_names: BTreeMap<String, String>,
    /// The values of `schema_names`.
    schema_types: BTreeSet<String>,
    /// Named schemas that are `nullable` at their top level: every use is
    /// an `Option`.
    nullable: BTreeSet<String>,
    /// The name of the schema being lowered at its top level: its type takes
    /// that name exactly (it was claimed up front).
    exact: Option<String>,
    all_of_depth: usize,
    /// Schemas reached by a `$ref` outside `components/schemas`: their types,
    /// and those being lowered.
    pointed_types: BTreeMap<String, TypeRef>,
    pointed_in_progress: BTreeSet<String>,
    /// The names of the security schemes the client applies, in order.
    schemes: Vec<String>,
    /// Lowering a multipart body: a `format: binary` string is a file.
    files: bool,
    /// For a named schema met again while it is lowered: the `$ref` where
    /// that happened first, which a cycle with no type in it is named by.
    back_refs: BTreeMap<String, Pointer>,
    /// What was made looser than the spec says, each pointer once.
    warnings: Vec<LowerError>,
}

/// Where a `$ref` of one kind may point, e.g. `components/parameters`.
fn ref_name<'r>(reference: &'r str, section: &str, at: &Pointer) -> Result<&'r str> {
    if !reference.starts_with("#/") {
        return Err(LowerError::new(
            at,
            format!("the reference `{reference}` points outside this document"),
            "external references are not supported: copy the target into `components`",
        ));
    }
    reference
        .strip_prefix(&format!("#/components/{section}/"))
        .ok_or_else(|| {
            LowerError::new(
                at,
                format!("the reference `{reference}` must point into `#/components/{section}/`"),
                format!("move the target under `components/{section}`"),
            )
        })
}

/// Follows a `$ref` into `components/{section}`, and on through any chain
/// of references there; gives the item and the pointer where it is written.
fn resolve<'d, T>(
    item: &'d ReferenceOr<T>,
    section: &str,
    at: &Pointer,
    components: impl FnOnce() -> Option<&'d indexmap::IndexMap<String, ReferenceOr<T>>>,
) -> Result<(&'d T, Pointer)> {
    let ReferenceOr::Reference { reference } = item else {
        let ReferenceOr::Item(item) = item else {
            unreachable!()
        };
        return Ok((item, at.clone()));
    };
    let components = components();
    let mut reference = reference;
    let mut from = at.clone();
    let mut seen = BTreeSet::new();
    loop {
        let name = ref_name(reference, section, &from)?;
        if !seen.insert(name) {
            return Err(LowerError::new(
                &from.join("$ref"),
                format!("`{reference}` is part of a cycle of references"),
                "point the `$ref` at a definition",
            ));
        }
        let here = Pointer::root().join("components").join(section).join(name);
        match components.and_then(|c| c.get(name)) {
            Some(ReferenceOr::Item(item)) => return Ok((item, here)),
            Some(ReferenceOr::Reference { reference: next }) => {
                reference = next;
                from = here;
            }
            None => return Err(dangling(reference, &from.join("$ref"))),
        }
    }
}

fn dangling(reference: &str, at: &Pointer) -> LowerError {
    LowerError::new(
        at,
        format!("the reference `{reference}` points to nothing"),
        "fix the `$ref`, or define its target under `components`",
    )
}

impl<'a> Lowerer<'a> {
    fn server(&self) -> Result<Option<Server>> {
        let Some(server) = self.doc.servers.first() else {
            return Ok(None);
        };
        let at = Pointer::root().join("servers").join(0);
        let mut variables: Vec<(String, String)> = Vec::new();
        let mut pieces = Vec::new();
        // `url` is the local that `server_url()` builds.
        let mut scope = Scope::new(&["url"]);
        let mut rest = server.url.as_str();
        while let Some(open) = rest.find('{') {
            let Some(close) = rest[open..].find('}') else {
                return Err(LowerError::new(
                    &at.join("url"),
                    format!("the server URL `{}` has an unclosed `{{`", server.url),
                    "close the variable with `}`",
                ));
            };
            let name = &rest[open + 1..open + close];
            let declared = server
                .variables
                .as_ref()
                .is_some_and(|vars| vars.contains_key(name));
            if !declared {
                return Err(LowerError::new(
                    &at.join("url"),
                    format!("the server URL uses the variable `{name}`, which is not declared"),
                    format!("declare `{name}` under `servers[0].variables`"),
                ));
            }
            if open > 0 {
                pieces.push(UrlPiece::Literal(rest[..open].to_owned()));
            }
            let index = match variables.iter().position(|(n, _)| n == name) {
                Some(index) => index,
                None => {
                    variables.push((name.to_owned(), scope.claim(&snake(name))));
                    variables.len() - 1
                }
            };
            pieces.push(UrlPiece::Variable(index));
            rest = &rest[open + close + 1..];
        }
        if !rest.is_empty() {
            pieces.push(UrlPiece::Literal(rest.to_owned()));
        }
        Ok(Some(Server {
            url: server.url.clone(),
            description: server.description.clone(),
            variables,
            pieces,
        }))
    }

    /// The security schemes the client can apply, each with its field in
    /// `Credentials`; any other kind (`http` `digest`, say) is left out with
    /// a warning, and so are the requirements that name it.
    fn security_schemes(&mut self) -> Vec<SecurityScheme> {
        let Some(components) = &self.doc.components else {
            return Vec::new();
        };
        let mut scope = Scope::default();
        let mut schemes = Vec::new();
        for (name, scheme) in &components.security_schemes {
            let at = Pointer::root()
                .join("components")
                .join("securitySchemes")
                .join(name);
            let ReferenceOr::Item(scheme) = scheme else {
                self.warn(
                    &at,
                    "a security scheme given by reference is not applied",
                    "write the scheme inline under `securitySchemes`",
                );
                continue;
            };
            let (kind, description) = match scheme {
                openapiv3::SecurityScheme::APIKey {
                    location,
                    name: key,
                    description,
                    ..
                } => {
                    let location = match location {
                        openapiv3::APIKeyLocation::Header => Location::Header,
                        openapiv3::APIKeyLocation::Query => Location::Query,
                        openapiv3::APIKeyLocation::Cookie => Location::Cookie,
                    };
                    let valid = match location {
                        Location::Header => http::HeaderName::from_bytes(key.as_bytes()).is_ok(),
                        Location::Cookie => {
                            !key.is_empty()
                                && key
                                    .bytes()
                                    .all(|b| b.is_ascii_graphic() && !b";=,\"".contains(&b))
                        }
                        _ => true,
                    };
                    if !valid {
                        self.warn(
                            &at.join("name"),
                            format!("the API key's name `{key}` cannot be sent in a {location:?}; the scheme is not applied"),
                            "use letters, digits and `-` only",
                        );
                        continue;
                    }
                    (
                        SchemeKind::ApiKey {
                            location,
                            name: key.clone(),
                        },
                        description,
                    )
                }
                openapiv3::SecurityScheme::HTTP {
                    scheme: http_scheme,
                    description,
                    ..
                } => match http_scheme.to_ascii_lowercase().as_str() {
                    "bearer" => (SchemeKind::Bearer, description),
                    "basic" => (SchemeKind::Basic, description),
                    other => {
                        self.warn(
                            &at.join("scheme"),
                            format!("the HTTP authentication scheme `{other}` is not applied by this client"),
                            "set the `Authorization` header on a prepared request (`build()`, then `set_header`)",
                        );
                        continue;
                    }
                },
                openapiv3::SecurityScheme::OAuth2 { description, .. }
                | openapiv3::SecurityScheme::OpenIDConnect { description, .. } => {
                    (SchemeKind::Bearer, description)
                }
            };
            schemes.push(SecurityScheme {
                name: name.clone(),
                rust_name: scope.claim(&snake(name)),
                kind,
                description: description.clone(),
            });
        }
        schemes
    }

    /// The operation's `security` (else the document's): alternatives of
    /// schemes the client applies; one naming a scheme it does not apply is
    /// left out, one naming a scheme that is not declared is an error.
    fn operation_security(
        &mut self,
        operation: &SpecOperation,
        at: &Pointer,
    ) -> Result<Vec<Vec<usize>>> {
        let (requirements, at) = match &operation.security {
            Some(requirements) => (requirements, at.join("security")),
            None => match &self.doc.security {
                Some(requirements) => (requirements, Pointer::root().join("security")),
                None => return Ok(Vec::new()),
            },
        };
        let declared = |name: &str| {
            self.doc
                .components
                .as_ref()
                .is_some_and(|c| c.security_schemes.contains_key(name))
        };
        let mut alternatives = Vec::new();
        'requirements: for (i, requirement) in requirements.iter().enumerate() {
            let mut schemes = Vec::new();
            for name in requirement.keys() {
                match self.schemes.iter().position(|s| s == name) {
                    Some(index) => schemes.push(index),
                    None if declared(name) => continue 'requirements,
                    None => {
                        return Err(LowerError::new(
                            &at.join(i).join(name),
                            format!(
                                "the security requirement names `{name}`, which is not declared"
                            ),
                            format!("declare `{name}` under `components/securitySchemes`"),
                        ));
                    }
                }
            }
            alternatives.push(schemes);
        }
        Ok(alternatives)
    }

    fn operations(&mut self) -> Result<Vec<Operation>> {
        let mut operations = Vec::new();
        let mut methods_scope = Scope::new(CLIENT_METHODS);
        // A builder named `New` would have a constructor named like its type.
        let mut types_scope = Scope::new(&["New"]);
        for (path, item) in &self.doc.paths.paths {
            let at = Pointer::root().join("paths").join(path);
            let item = match item {
                ReferenceOr::Item(item) => item,
                ReferenceOr::Reference { reference } => {
                    return Err(LowerError::new(
                        &at,
                        format!("the path item is a reference (`{reference}`)"),
                        "write the path item inline",
                    ));
                }
            };
            for (method, operation) in methods(item) {
                let at = at.join(method);
                let id = operation
                    .operation_id
                    .clone()
                    .unwrap_or_else(|| format!("{method} {path}"));
                let method_name = methods_scope.claim(&snake(&id));
                let type_name = types_scope.claim(&pascal(&id));
                let lowered =
                    self.operation(path, item, method, operation, &at, method_name, type_name)?;
                operations.push(lowered);
            }
        }
        Ok(operations)
    }

    #[allow(clippy::too_many_arguments)]
    fn operation(
        &mut self,
        path: &str,
        item: &PathItem,
        method: &str,
        operation: &SpecOperation,
        at: &Pointer,
        method_name: String,
        type_name: String,
    ) -> Result<Operation> {
        // Path-level parameters first; an operation's own one with the same
        // name and location replaces it.
        let mut params: Vec<Param> = Vec::new();
        let path_level = item.parameters.iter().enumerate().map(|(i, p)| {
            (
                p,
                Pointer::root()
                    .join("paths")
                    .join(path)
                    .join("parameters")
                    .join(i),
            )
        });
        let op_level = operation
            .parameters
            .iter()
            .enumerate()
            .map(|(i, p)| (p, at.join("parameters").join(i)));
        let mut pointers = Vec::new();
        for (param, param_at) in path_level.chain(op_level) {
            let lowered = self.parameter(param, &param_at, &type_name)?;
            match params
                .iter()
                .position(|p| p.name == lowered.name && p.location == lowered.location)
            {
                Some(i) => {
                    params[i] = lowered;
                    pointers[i] = param_at;
                }
                None => {
                    params.push(lowered);
                    pointers.push(param_at);
                }
            }
        }
        let mut scope = Scope::new(BUILDER_NAMES);
        for param in &mut params {
            param.rust_name = scope.claim(&param.rust_name);
        }

        let segments = path_segments(path, &params, &pointers, at)?;

        let body = match &operation.request_body {
            None => None,
            Some(body) => Some(self.request_body(body, &at.join("requestBody"), &type_name)?),
        };

        let mut responses = Vec::new();
        let mut variants = Scope::new(&["Mismatch", "Undocumented", "Default"]);
        for (status, response) in &operation.responses.responses {
            let response_at = at.join("responses").join(status);
            let (status, variant) = match status {
                StatusCode::Code(code) => (Status::Code(*code), status_variant(*code)),
                StatusCode::Range(hundreds) => (Status::Range(*hundreds), range_variant(*hundreds)),
            };
            let variant = variants.claim(&variant);
            responses.push(self.response(response, status, variant, &response_at, &type_name)?);
        }
        let default_response = match &operation.responses.default {
            None => None,
            Some(response) => Some(self.response(
                response,
                Status::Default,
                "Default".into(),
                &at.join("responses").join("default"),
                &type_name,
            )?),
        };

        let security = self.operation_security(operation, at)?;
        Ok(Operation {
            security,
            method_name,
            type_name,
            http_method: method.to_uppercase(),
            path: segments,
            path_template: path.to_owned(),
            summary: operation.summary.clone(),
            description: operation.description.clone(),
            params,
            body,
            responses,
            default_response,
        })
    }

    fn parameter(
        &mut self,
        param: &ReferenceOr<Parameter>,
        at: &Pointer,
        op_type: &str,
    ) -> Result<Param> {
        // Errors about the parameter point at where it is written.
        let doc = self.doc;
        let (param, at) = resolve(param, "parameters", at, || {
            doc.components.as_ref().map(|c| &c.parameters)
        })?;
        let at = &at;
        let (data, location, query_style) = match param {
            Parameter::Path { parameter_data, .. } => (parameter_data, Location::Path, None),
            Parameter::Query {
                parameter_data,
                style,
                ..
            } => (parameter_data, Location::Query, Some(style)),
            Parameter::Header { parameter_data, .. } => (parameter_data, Location::Header, None),
            Parameter::Cookie { parameter_data, .. } => (parameter_data, Location::Cookie, None),
        };
        let cookie_name = |name: &str| {
            !name.is_empty()
                && name
                    .bytes()
                    .all(|b| b.is_ascii_graphic() && !b"()<>@,;:\\\"/[]?={}".contains(&b))
        };
        if location == Location::Cookie && !cookie_name(&data.name) {
            return Err(LowerError::new(
                &at.join("name"),
                format!("`{}` is not a valid cookie name", data.name),
                "use letters, digits and `-` only",
            ));
        }
        if location == Location::Header
            && http::HeaderName::from_bytes(data.name.as_bytes()).is_err()
        {
            return Err(LowerError::new(
                &at.join("name"),
                format!("`{}` is not a valid HTTP header name", data.name),
                "use letters, digits and `-` only",
            ));
        }
        let (ty, secret, json) = self.parameter_type(data, at, op_type, location)?;
        let style = if json {
            ParamStyle::Json
        } else {
            self.parameter_style(&ty, data.explode, query_style)
        };
        Ok(Param {
            name: data.name.clone(),
            rust_name: snake(&data.name),
            location,
            required: data.required || location == Location::Path,
            secret,
            ty,
            description: data.description.clone(),
            style,
        })
    }

    /// How a value of `ty` is written: one string; an array as the query
    /// style says (joined by `,` in a header or path); anything else
    /// through `serde_json`, an object's properties as the style says
    /// (`deepObject`, `form`, `simple`; exploded or not).
    fn parameter_style(
        &self,
        ty: &TypeRef,
        explode: Option<bool>,
        query_style: Option<&QueryStyle>,
    ) -> ParamStyle {
        if self.is_scalar(ty, 0) {
            return ParamStyle::Scalar;
        }
        if let TypeRef::Array(item) = ty
            && self.is_scalar(item, 0)
        {
            let Some(style) = query_style else {
                return ParamStyle::Array(ArrayStyle::Joined(','));
            };
            let explode = explode.unwrap_or(matches!(style, QueryStyle::Form));
            return ParamStyle::Array(match (style, explode) {
                (QueryStyle::Form, false) => ArrayStyle::Joined(','),
                (QueryStyle::SpaceDelimited, false) => ArrayStyle::Joined(' '),
                (QueryStyle::PipeDelimited, false) => ArrayStyle::Joined('|'),
                // Exploded, every style writes `name=a&name=b`.
                _ => ArrayStyle::Repeat,
            });
        }
        ParamStyle::Object(match query_style {
            Some(QueryStyle::DeepObject) => ObjectStyle::DeepObject,
            Some(_) if explode.unwrap_or(true) => ObjectStyle::Exploded,
            Some(_) => ObjectStyle::Joined,
            None if explode.unwrap_or(false) => ObjectStyle::Exploded,
            None => ObjectStyle::Joined,
        })
    }

    /// A parameter's type, whether it is a secret, and whether its
    /// `content` says it is sent as JSON text.
    fn parameter_type(
        &mut self,
        data: &ParameterData,
        at: &Pointer,
        op_type: &str,
        location: Location,
    ) -> Result<(TypeRef, bool, bool)> {
        let (schema, schema_at, json) = match &data.format {
            ParameterSchemaOrContent::Schema(schema) => (schema, at.join("schema"), false),
            ParameterSchemaOrContent::Content(content) => {
                let Some((media, media_type)) = content.iter().next() else {
                    return Err(LowerError::new(
                        &at.join("content"),
                        format!("the parameter `{}` lists no media type", data.name),
                        "describe the parameter with `schema`, or one media type under `content`",
                    ));
                };
                let media_at = at.join("content").join(media);
                match &media_type.schema {
                    Some(schema) => (schema, media_at.join("schema"), is_json(media)),
                    None => return Ok((TypeRef::String, false, false)),
                }
            }
        };
        let secret = matches!(
            schema,
            ReferenceOr::Item(Schema {
                schema_kind: SchemaKind::Type(Type::String(s)),
                ..
            }) if matches!(s.format, VariantOrUnknownOrEmpty::Item(StringFormat::Password))
        );
        let ty = self.schema(
            schema,
            &schema_at,
            &format!("{op_type}{}", pascal(&data.name)),
        )?;
        let is_query = location == Location::Query;
        let allowed = |this: &Self, ty: &TypeRef| {
            let scalar_items = match ty {
                TypeRef::Array(item) => this.is_scalar(item, 0),
                _ => false,
            };
            this.is_scalar(ty, 0) || (is_query && scalar_items)
        };
        // `nullable` says nothing a parameter can send: an absent value is
        // the only null there is, and every optional parameter can be absent.
        let ty = match ty {
            TypeRef::Optional(inner) => *inner,
            ty => ty,
        };
        let ty = match ty {
            // A named nullable primitive: the value it aliases.
            TypeRef::Named(name) if self.nullable.contains(&name) => match self.types.get(&name) {
                Some(TypeDef::Alias { ty, .. }) => ty.clone(),
                _ => TypeRef::Named(name),
            },
            ty => ty,
        };
        if json {
            return Ok((ty, secret, true));
        }
        // A `oneOf`/`anyOf` of which one member fits a parameter: sent as
        // that member, which is always a valid value of the whole.
        let ty = match &ty {
            TypeRef::Named(name) if !allowed(self, &ty) => {
                let fitting = match self.types.get(name) {
                    Some(TypeDef::OneOf { variants, .. }) => variants
                        .iter()
                        .find(|v| allowed(self, &v.ty))
                        .map(|v| v.ty.clone()),
                    _ => None,
                };
                match fitting {
                    Some(member) => {
                        if !self.schema_types.contains(name) {
                            // Defined for this parameter alone: not needed now.
                            self.types.remove(name);
                        }
                        self.warn(
                            &schema_at,
                            format!(
                                "the parameter `{}` is one of several types; it is sent as the first that fits a parameter",
                                data.name
                            ),
                            "give the parameter a single type to silence this",
                        );
                        member
                    }
                    None => ty,
                }
            }
            _ => ty,
        };
        Ok((ty, secret, false))
    }

    /// Whether values of `ty` print as one string.
    fn is_scalar(&self, ty: &TypeRef, depth: usize) -> bool {
        crate::model::is_scalar(&self.types, ty, depth)
    }

    fn request_body(
        &mut self,
        body: &ReferenceOr<RequestBody>,
        at: &Pointer,
        op_type: &str,
    ) -> Result<Body> {
        let doc = self.doc;
        let (body, at) = resolve(body, "requestBodies", at, || {
            doc.components.as_ref().map(|c| &c.request_bodies)
        })?;
        let content_at = at.join("content");
        // The best media type offered: JSON, then a form, then bytes, then
        // text; the first of its kind in document order.
        let Some((media, media_type, kind)) = body
            .content
            .iter()
            .filter_map(|(m, t)| media_kind(m).map(|kind| (m, t, kind)))
            .min_by_key(|(_, _, kind)| *kind)
        else {
            let Some(first) = body.content.keys().next() else {
                return Err(LowerError::new(
                    &at,
                    "the request body lists no media type",
                    "describe the body under `content`, e.g. as `application/json`",
                ));
            };
            let listed: Vec<String> = body.content.keys().map(|m| format!("`{m}`")).collect();
            return Err(LowerError::new(
                &content_at.join(first),
                format!(
                    "the request body's media type {} is not supported by this generator",
                    listed.join(", ")
                ),
                "offer the body as `application/json`, `application/x-www-form-urlencoded`, `application/octet-stream` or `text/plain`",
            ));
        };
        let media_at = content_at.join(media);
        let media = match kind {
            MediaKind::Json | MediaKind::Form => {
                let ty = match &media_type.schema {
                    Some(schema) => {
                        self.schema(schema, &media_at.join("schema"), &format!("{op_type}Body"))?
                    }
                    None if kind == MediaKind::Json => TypeRef::Value,
                    None => TypeRef::MapOf(Box::new(TypeRef::String)),
                };
                if kind == MediaKind::Json {
                    BodyMedia::Json(ty)
                } else if self.is_flat_form(&ty) {
                    BodyMedia::Form(ty)
                } else {
                    return Err(LowerError::new(
                        &media_at.join("schema"),
                        "a form body must be an object whose properties are strings, numbers, booleans or string enums",
                        "flatten the nested properties, or send the body as `application/json`",
                    ));
                }
            }
            MediaKind::Multipart => BodyMedia::Multipart(match &media_type.schema {
                Some(schema) => {
                    // `format: binary` strings in it are files.
                    let outer = std::mem::replace(&mut self.files, true);
                    let ty =
                        self.schema(schema, &media_at.join("schema"), &format!("{op_type}Body"));
                    self.files = outer;
                    ty?
                }
                None => TypeRef::Map,
            }),
            MediaKind::Binary | MediaKind::Text => {
                if !media.bytes().all(|b| (b' '..=b'~').contains(&b)) {
                    return Err(LowerError::new(
                        &media_at,
                        "the media type is not a valid `Content-Type` header value",
                        "write the media type in printable ASCII, e.g. `application/octet-stream`",
                    ));
                }
                let wildcard = media.contains('*');
                if kind == MediaKind::Binary {
                    BodyMedia::Binary {
                        content_type: if wildcard {
                            "application/octet-stream".into()
                        } else {
                            media.clone()
                        },
                    }
                } else {
                    BodyMedia::Text {
                        content_type: if wildcard {
                            "text/plain".into()
                        } else {
                            media.clone()
                        },
                    }
                }
            }
        };
        Ok(Body {
            media,
            required: body.required,
            description: body.description.clone(),
        })
    }

    /// Whether `ty` can be sent as `application/x-www-form-urlencoded`: a
    /// struct or map whose values are single strings, numbers, booleans or
    /// enums (each possibly optional).
    fn is_flat_form(&self, ty: &TypeRef) -> bool {
        let scalar_or_list = |ty: &TypeRef| match ty {
            TypeRef::Array(item) => self.is_scalar(item, 0),
            ty => self.is_scalar(ty, 0),
        };
        let flat = |ty: &TypeRef| match ty {
            TypeRef::Optional(inner) => scalar_or_list(inner),
            ty => scalar_or_list(ty),
        };
        match ty {
            TypeRef::MapOf(value) => flat(value),
            TypeRef::Named(name) => match self.types.get(name) {
                Some(TypeDef::Struct { fields, .. }) => fields.iter().all(|f| flat(&f.ty)),
                Some(TypeDef::Alias {
                    ty: TypeRef::MapOf(value),
                    ..
                }) => flat(value),
                _ => false,
            },
            _ => false,
        }
    }

    fn response(
        &mut self,
        response: &ReferenceOr<SpecResponse>,
        status: Status,
        variant: String,
        at: &Pointer,
        op_type: &str,
    ) -> Result<Response> {
        let doc = self.doc;
        let (response, at) = resolve(response, "responses", at, || {
            doc.components.as_ref().map(|c| &c.responses)
        })?;
        let body = match response.content.iter().find(|(m, _)| is_json(m)) {
            None => None,
            Some((media, media_type)) => Some(match &media_type.schema {
                Some(schema) => self.schema(
                    schema,
                    &at.join("content").join(media).join("schema"),
                    &format!("{op_type}{variant}Body"),
                )?,
                None => TypeRef::Value,
            }),
        };
        let mut headers = Vec::new();
        let mut header_names = Scope::default();
        for (name, header) in &response.headers {
            if name.eq_ignore_ascii_case("content-type") {
                continue; // OpenAPI: "it SHALL be ignored"
            }
            let header_at = at.join("headers").join(name);
            if http::HeaderName::from_bytes(name.as_bytes()).is_err() {
                return Err(LowerError::new(
                    &header_at,
                    format!("`{name}` is not a valid HTTP header name"),
                    "use letters, digits and `-` only",
                ));
            }
            let (header, header_at) = self.header(header, &header_at)?;
            let ty = match &header.format {
                ParameterSchemaOrContent::Schema(schema) => self.schema(
                    schema,
                    &header_at.join("schema"),
                    &format!("{op_type}{}", pascal(name)),
                )?,
                ParameterSchemaOrContent::Content(_) => {
                    return Err(LowerError::new(
                        &header_at.join("content"),
                        format!("the header `{name}` uses `content`"),
                        "describe the header with `schema`",
                    ));
                }
            };
            if !self.is_scalar(&ty, 0) {
                return Err(LowerError::new(
                    &header_at.join("schema"),
                    format!("the header `{name}` is not a string, number, boolean or string enum"),
                    "arrays and objects in headers are not supported",
                ));
            }
            headers.push(ResponseHeader {
                name: name.clone(),
                rust_name: header_names.claim(&snake(name)),
                required: header.required,
                ty,
                description: header.description.clone(),
            });
        }
        Ok(Response {
            status,
            variant,
            description: response.description.clone(),
            body,
            headers,
        })
    }

    /// A response header, and the pointer where it is written.
    fn header(
        &self,
        header: &'a ReferenceOr<Header>,
        at: &Pointer,
    ) -> Result<(&'a Header, Pointer)> {
        let doc = self.doc;
        resolve(header, "headers", at, || {
            doc.components.as_ref().map(|c| &c.headers)
        })
    }

    /// Records a warning (once per pointer).
    fn warn(&mut self, at: &Pointer, message: impl Into<String>, hint: impl Into<String>) {
        if !self.warnings.iter().any(|w| w.pointer == *at) {
            self.warnings.push(LowerError::new(at, message, hint));
        }
    }

    /// A schema where it is used; `hint` names it if it needs a type of its own.
    fn schema(
        &mut self,
        schema: &ReferenceOr<Schema>,
        at: &Pointer,
        hint: &str,
    ) -> Result<TypeRef> {
        match schema {
            ReferenceOr::Reference { reference } => self.named(reference, at),
            ReferenceOr::Item(schema) => self.inline(schema, at, hint),
        }
    }

    fn boxed_schema(
        &mut self,
        schema: &ReferenceOr<Box<Schema>>,
        at: &Pointer,
        hint: &str,
    ) -> Result<TypeRef> {
        match schema {
            ReferenceOr::Reference { reference } => self.named(reference, at),
            ReferenceOr::Item(schema) => self.inline(schema, at, hint),
        }
    }

    /// A `$ref` to `components/schemas`: lowered once, used by name.
    fn named(&mut self, reference: &str, at: &Pointer) -> Result<TypeRef> {
        let into_a_schema = reference
            .strip_prefix("#/components/schemas/")
            .is_some_and(|rest| rest.contains('/'));
        if reference.starts_with("#/")
            && (into_a_schema || !reference.starts_with("#/components/schemas/"))
        {
            return self.pointed(reference, at);
        }
        let name = ref_name(reference, "schemas", at)?;
        let Some(rust_name) = self.schema_names.get(name).cloned() else {
            return Err(dangling(reference, &at.join("$ref")));
        };
        if self.in_progress.contains(&rust_name) {
            // Where a cycle closes, to name it if no type is on its way.
            self.back_refs
                .entry(rust_name.clone())
                .or_insert_with(|| at.join("$ref"));
            return Ok(self.use_of(rust_name));
        }
        if self.types.contains_key(&rust_name) {
            return Ok(self.use_of(rust_name));
        }
        let schema_at = Pointer::root()
            .join("components")
            .join("schemas")
            .join(name);
        let doc = self.doc;
        let Some(schema) = doc.components.as_ref().and_then(|c| c.schemas.get(name)) else {
            return Err(dangling(reference, &at.join("$ref")));
        };
        self.in_progress.insert(rust_name.clone());
        let outer = self.exact.replace(rust_name.clone());
        let (ty, description) = match schema {
            ReferenceOr::Item(schema) => (
                self.inline(schema, &schema_at, &rust_name),
                schema.schema_data.description.clone(),
            ),
            // A name for another schema: an alias of it.
            ReferenceOr::Reference { reference } => (self.named(reference, &schema_at), None),
        };
        self.exact = outer;
        self.in_progress.remove(&rust_name);
        let ty = ty?;
        let named = TypeRef::Named(rust_name.clone());
        let itself = ty == named || ty == TypeRef::Optional(Box::new(named.clone()));
        if (itself && !self.types.contains_key(&rust_name))
            || (!itself && self.alias_cycle(&rust_name, &ty))
        {
            let at = self.back_refs.get(&rust_name).cloned().unwrap_or(schema_at);
            return Err(LowerError::new(
                &at,
                format!(
                    "the schema `{name}` is defined only by references that lead back to it: no type is ever given"
                ),
                "give one schema of the cycle a type (e.g. `type: object`), or point the `$ref` at a schema that has one",
            ));
        }
        if ty == TypeRef::Optional(Box::new(named.clone())) {
            // A nullable struct or enum: its uses are `Option`s.
            self.nullable.insert(rust_name.clone());
        } else if let TypeRef::Optional(inner) = ty {
            // A nullable primitive (or array, map, other schema) under a
            // name: an alias of the value, and its uses are `Option`s, so
            // that an optional field of it is one `Option`, not two.
            self.types.insert(
                rust_name.clone(),
                TypeDef::Alias {
                    description,
                    ty: *inner,
                },
            );
            self.nullable.insert(rust_name.clone());
        } else if ty != named {
            // A primitive, array or map under a name of its own: an alias.
            self.types
                .insert(rust_name.clone(), TypeDef::Alias { description, ty });
        }
        Ok(self.use_of(rust_name))
    }

    /// A `$ref` to a schema outside `components/schemas` (the schema of a
    /// response's content, of a parameter, a property of a schema):
    /// lowered once, named after the component it is in.
    fn pointed(&mut self, reference: &str, at: &Pointer) -> Result<TypeRef> {
        if let Some(ty) = self.pointed_types.get(reference) {
            return Ok(ty.clone());
        }
        let Some(target) = Pointer::from_ref(reference) else {
            return Err(dangling(reference, &at.join("$ref")));
        };
        let doc = self.doc;
        let Some((node, hint)) = schema_at_pointer(doc, target.segments()) else {
            return Err(LowerError::new(
                &at.join("$ref"),
                format!("the reference `{reference}` does not point to a schema"),
                "point the `$ref` at a schema, e.g. under `#/components/schemas/`",
            ));
        };
        if !self.pointed_in_progress.insert(reference.to_owned()) {
            return Err(LowerError::new(
                &at.join("$ref"),
                format!("`{reference}` refers back to itself"),
                "move the schema under `components/schemas` to refer to it from inside itself",
            ));
        }
        let ty = match node {
            SchemaNode::Top(schema) => self.schema(schema, &target, &pascal(&hint)),
            SchemaNode::Inner(schema) => self.boxed_schema(schema, &target, &pascal(&hint)),
        };
        self.pointed_in_progress.remove(reference);
        let ty = ty?;
        self.pointed_types.insert(reference.to_owned(), ty.clone());
        Ok(ty)
    }

    /// Whether `ty`, what the schema `rust_name` was lowered to, leads back
    /// to it through names alone (`A` → `B` → `A`): a cycle with no type.
    fn alias_cycle(&self, rust_name: &str, ty: &TypeRef) -> bool {
        let mut next = ty;
        for _ in 0..=self.types.len() {
            let name = match next {
                TypeRef::Named(name) => name,
                TypeRef::Optional(inner) => match &**inner {
                    TypeRef::Named(name) => name,
                    _ => return false,
                },
                _ => return false,
            };
            if name == rust_name {
                return true;
            }
            match self.types.get(name) {
                Some(TypeDef::Alias { ty, .. }) => next = ty,
                _ => return false,
            }
        }
        false
    }

    fn use_of(&self, rust_name: String) -> TypeRef {
        if self.nullable.contains(&rust_name) {
            TypeRef::Optional(Box::new(TypeRef::Named(rust_name)))
        } else {
            TypeRef::Named(rust_name)
        }
    }

    fn inline(&mut self, schema: &Schema, at: &Pointer, hint: &str) -> Result<TypeRef> {
        let description = schema.schema_data.description.clone();
        let ty = match &schema.schema_kind {
            SchemaKind::Type(Type::String(s)) if !s.enumeration.is_empty() => {
                let mut variants = Vec::new();
                let mut scope = Scope::default();
                for value in s.enumeration.iter().flatten() {
                    if variants.iter().any(|(w, _): &(String, String)| w == value) {
                        continue; // a value listed twice is one variant
                    }
                    variants.push((value.clone(), scope.claim(&pascal(value))));
                }
                if variants.is_empty() {
                    // Only `null` listed: nothing but null.
                    TypeRef::Value
                } else {
                    self.define(
                        hint,
                        TypeDef::Enum {
                            description,
                            variants,
                        },
                    )
                }
            }
            SchemaKind::Type(Type::String(s))
                if self.files
                    && matches!(
                        s.format,
                        VariantOrUnknownOrEmpty::Item(StringFormat::Binary)
                    ) =>
            {
                TypeRef::File
            }
            SchemaKind::Type(Type::String(_)) => TypeRef::String,
            SchemaKind::Type(Type::Integer(i)) => TypeRef::Integer {
                bits: match i.format {
                    VariantOrUnknownOrEmpty::Item(openapiv3::IntegerFormat::Int32) => 32,
                    _ => 64,
                },
            },
            SchemaKind::Type(Type::Number(_)) => TypeRef::Number,
            SchemaKind::Type(Type::Boolean(_)) => TypeRef::Boolean,
            SchemaKind::Type(Type::Array(array)) => {
                let item = match &array.items {
                    Some(items) => {
                        self.boxed_schema(items, &at.join("items"), &format!("{hint}Item"))?
                    }
                    None => {
                        // JSON Schema reads missing `items` as "any items".
                        self.warn(
                            at,
                            "the array has no `items`; its items are read as any JSON value (`serde_json::Value`)",
                            "say what the array holds with `items`",
                        );
                        TypeRef::Value
                    }
                };
                TypeRef::Array(Box::new(item))
            }
            SchemaKind::Type(Type::Object(object)) => {
                self.object(object, at, hint, description, &BTreeMap::new())?
            }
            SchemaKind::Any(any) if is_empty_any(any) => TypeRef::Value,
            SchemaKind::AllOf { all_of } => self.all_of(schema, all_of, at, hint)?,
            SchemaKind::OneOf { one_of } => {
                self.one_of(schema, one_of, &at.join("oneOf"), hint, description)?
            }
            SchemaKind::AnyOf { any_of } => {
                self.one_of(schema, any_of, &at.join("anyOf"), hint, description)?
            }
            SchemaKind::Not { .. } => return Err(unsupported("not", at)),
            SchemaKind::Any(any) if any.not.is_some() => return Err(unsupported("not", at)),
            SchemaKind::Any(any) => {
                // Beyond the model, but any JSON value holds every value the
                // schema allows: read it as that, and say so.
                let what = if !any.one_of.is_empty() {
                    "`oneOf` beside other keywords"
                } else if !any.all_of.is_empty() {
                    "`allOf` beside other keywords"
                } else if !any.any_of.is_empty() {
                    "`anyOf` beside other keywords"
                } else {
                    "keywords of several types"
                };
                self.warn(
                    at,
                    format!(
                        "the schema mixes {what}, which this generator cannot express; it is read as any JSON value (`serde_json::Value`)"
                    ),
                    "give the schema one type, or split it with `oneOf`, for a typed value",
                );
                TypeRef::Value
            }
        };
        Ok(
            if schema.schema_data.nullable && !matches!(ty, TypeRef::Optional(_)) {
                TypeRef::Optional(Box::new(ty))
            } else {
                ty
            },
        )
    }

    /// An object schema; `origins` gives where a property is written when it
    /// is not under `at/properties` (the member of an `allOf` it came from).
    fn object(
        &mut self,
        object: &ObjectType,
        at: &Pointer,
        hint: &str,
        description: Option<String>,
        origins: &BTreeMap<String, Pointer>,
    ) -> Result<TypeRef> {
        if object.properties.is_empty() {
            return Ok(match &object.additional_properties {
                Some(AdditionalProperties::Schema(values)) => {
                    let value = self.schema(
                        values,
                        &at.join("additionalProperties"),
                        &format!("{hint}Value"),
                    )?;
                    TypeRef::MapOf(Box::new(value))
                }
                _ => TypeRef::Map,
            });
        }
        let mut fields = Vec::new();
        let mut scope = Scope::default();
        for (name, property) in &object.properties {
            let field_at = origins
                .get(name)
                .cloned()
                .unwrap_or_else(|| at.join("properties").join(name));
            let ty = self.boxed_schema(property, &field_at, &format!("{hint}{}", pascal(name)))?;
            let property_description = match property {
                ReferenceOr::Item(s) => s.schema_data.description.clone(),
                ReferenceOr::Reference { .. } => None,
            };
            fields.push(Field {
                name: name.clone(),
                rust_name: scope.claim(&snake(name)),
                required: object.required.contains(name),
                ty,
                description: property_description,
            });
        }
        // Required but not declared: JSON Schema reads it as "present, any
        // value", and so does the struct.
        for required in &object.required {
            if !object.properties.contains_key(required) {
                fields.push(Field {
                    name: required.clone(),
                    rust_name: scope.claim(&snake(required)),
                    required: true,
                    ty: TypeRef::Value,
                    description: None,
                });
            }
        }
        Ok(self.define(
            hint,
            TypeDef::Struct {
                description,
                fields,
            },
        ))
    }

    /// `allOf`: one member is that member; objects are merged into one
    /// struct (properties in order, `required` the union); anything else is
    /// refused.
    fn all_of(
        &mut self,
        schema: &Schema,
        members: &[ReferenceOr<Schema>],
        at: &Pointer,
        hint: &str,
    ) -> Result<TypeRef> {
        let at = at.join("allOf");
        if let [only] = members {
            return self.schema(only, &at.join(0), hint);
        }
        // Members that only annotate (a description, `nullable`) say
        // nothing about the type.
        let annotation = |m: &ReferenceOr<Schema>| matches!(m, ReferenceOr::Item(Schema { schema_kind: SchemaKind::Any(any), .. }) if is_empty_any(any));
        let nullable = members
            .iter()
            .any(|m| annotation(m) && matches!(m, ReferenceOr::Item(s) if s.schema_data.nullable));
        let typed: Vec<(usize, &ReferenceOr<Schema>)> = members
            .iter()
            .enumerate()
            .filter(|(_, m)| !annotation(m))
            .collect();
        // One typed member, or none an object (a string or enum narrowed by
        // more constraints): the value is of that member's type, the first
        // given by reference (an enum, say) or else the first.
        let objects = typed
            .iter()
            .filter(|(i, m)| self.is_object_schema(m, &at.join(i)))
            .count();
        if !typed.is_empty() && (typed.len() == 1 || objects == 0) {
            let (i, member) = typed
                .iter()
                .find(|(_, m)| matches!(m, ReferenceOr::Reference { .. }))
                .unwrap_or(&typed[0]);
            let ty = self.schema(member, &at.join(i), hint)?;
            return Ok(match ty {
                TypeRef::Optional(_) => ty,
                ty if nullable => TypeRef::Optional(Box::new(ty)),
                ty => ty,
            });
        }
        let mut merged = ObjectType::default();
        let mut origins = BTreeMap::new();
        self.all_of_depth += 1;
        let result = self.merge(members, &at, &mut merged, &mut origins);
        self.all_of_depth -= 1;
        result?;
        let description = schema.schema_data.description.clone();
        // The merge is written nowhere: point at the schema itself.
        let schema_at = at.parent();
        self.object(&merged, &schema_at, hint, description, &origins)
    }

    /// Whether `member` (followed through references) is an object, or
    /// composes into one.
    fn is_object_schema(&self, member: &ReferenceOr<Schema>, at: &Pointer) -> bool {
        let doc = self.doc;
        let Ok((schema, _)) = resolve(member, "schemas", at, || {
            doc.components.as_ref().map(|c| &c.schemas)
        }) else {
            return true; // refused, by name, where it is merged
        };
        match &schema.schema_kind {
            SchemaKind::Type(Type::Object(_)) | SchemaKind::AllOf { .. } => true,
            SchemaKind::Any(any) => {
                !any.properties.is_empty()
                    || !any.required.is_empty()
                    || any.additional_properties.is_some()
            }
            _ => false,
        }
    }

    /// Merges the object members of an `allOf` into `merged`, noting in
    /// `origins` where each property is written.
    fn merge(
        &mut self,
        members: &[ReferenceOr<Schema>],
        at: &Pointer,
        merged: &mut ObjectType,
        origins: &mut BTreeMap<String, Pointer>,
    ) -> Result<()> {
        if self.all_of_depth > MAX_ALL_OF_DEPTH {
            return Err(LowerError::new(
                at,
                "`allOf` refers back to itself",
                "an `allOf` member may not include the schema it is part of",
            ));
        }
        let doc = self.doc;
        for (i, member) in members.iter().enumerate() {
            let member_at = at.join(i);
            let (schema, schema_at) = resolve(member, "schemas", &member_at, || {
                doc.components.as_ref().map(|c| &c.schemas)
            })?;
            // Keywords the normaliser moved from beside `allOf` into a
            // member of their own are written in the schema itself.
            let schema_at = if schema
                .schema_data
                .extensions
                .contains_key(crate::normalize::SIBLINGS)
            {
                at.parent()
            } else {
                schema_at
            };
            match &schema.schema_kind {
                SchemaKind::Type(Type::Object(object)) => {
                    for (name, property) in &object.properties {
                        if !merged.properties.contains_key(name) {
                            merged.properties.insert(name.clone(), property.clone());
                            origins.insert(name.clone(), schema_at.join("properties").join(name));
                        }
                    }
                    for required in &object.required {
                        if !merged.required.contains(required) {
                            merged.required.push(required.clone());
                        }
                    }
                    if merged.additional_properties.is_none() {
                        merged.additional_properties = object.additional_properties.clone();
                    }
                }
                SchemaKind::AllOf { all_of } => {
                    self.all_of_depth += 1;
                    let result = self.merge(all_of, &schema_at.join("allOf"), merged, origins);
                    self.all_of_depth -= 1;
                    result?;
                }
                SchemaKind::Any(any) if is_empty_any(any) => {}
                // `required` (or `properties`) with no `type`, beside the
                // other members: part of the object.
                SchemaKind::Any(any) if !any.properties.is_empty() || !any.required.is_empty() => {
                    for (name, property) in &any.properties {
                        if !merged.properties.contains_key(name) {
                            merged.properties.insert(name.clone(), property.clone());
                            origins.insert(name.clone(), schema_at.join("properties").join(name));
                        }
                    }
                    for required in &any.required {
                        if !merged.required.contains(required) {
                            merged.required.push(required.clone());
                        }
                    }
                }
                _ => {
                    return Err(LowerError::new(
                        &schema_at,
                        "`allOf` of a schema that is not an object is not supported by this generator",
                        "merge only object schemas with `allOf`, or use the member's type directly",
                    ));
                }
            }
        }
        // A property required by one member and declared by none is declared
        // by the merge as any JSON value, as JSON Schema reads it.
        let missing: Vec<String> = merged
            .required
            .iter()
            .filter(|r| !merged.properties.contains_key(*r))
            .cloned()
            .collect();
        for name in missing {
            merged
                .properties
                .insert(name, ReferenceOr::Item(Box::new(any_schema())));
        }
        Ok(())
    }

    /// `oneOf` / `anyOf`: an enum with a variant per member; tagged when a
    /// `discriminator` names the property that tells them apart.
    fn one_of(
        &mut self,
        schema: &Schema,
        members: &[ReferenceOr<Schema>],
        at: &Pointer,
        hint: &str,
        description: Option<String>,
    ) -> Result<TypeRef> {
        // The places of 3.1's null members are skipped (the whole is nullable).
        let members: Vec<(usize, &ReferenceOr<Schema>)> = members
            .iter()
            .enumerate()
            .filter(|(_, m)| {
                !matches!(m, ReferenceOr::Item(s)
                    if s.schema_data.extensions.contains_key(crate::normalize::NULL_MEMBER))
            })
            .collect();
        if let [(i, only)] = members[..] {
            return self.schema(only, &at.join(i), hint);
        }
        if members.is_empty() {
            return Err(LowerError::new(
                at,
                "a `oneOf`/`anyOf` without members",
                "list at least one schema",
            ));
        }
        let discriminator = schema.schema_data.discriminator.as_ref();
        let mut scope = Scope::default();
        let mut variants = Vec::new();
        for (i, member) in members {
            let member_at = at.join(i);
            let (name, tag_value) = match member {
                ReferenceOr::Reference { reference } => {
                    let schema_name = ref_name(reference, "schemas", &member_at)?;
                    let tag_value = discriminator.map(|d| {
                        d.mapping
                            .iter()
                            .find(|(_, target)| *target == reference || *target == schema_name)
                            .map(|(value, _)| value.clone())
                            .unwrap_or_else(|| schema_name.to_owned())
                    });
                    (pascal(schema_name), tag_value)
                }
                ReferenceOr::Item(item) => {
                    let name = match &item.schema_kind {
                        SchemaKind::Type(Type::String(_)) => "String".to_owned(),
                        SchemaKind::Type(Type::Integer(_)) => "Integer".to_owned(),
                        SchemaKind::Type(Type::Number(_)) => "Number".to_owned(),
                        SchemaKind::Type(Type::Boolean(_)) => "Boolean".to_owned(),
                        SchemaKind::Type(Type::Array(_)) => "Array".to_owned(),
                        SchemaKind::Type(Type::Object(_)) => "Object".to_owned(),
                        _ => format!("Variant{i}"),
                    };
                    let name = item.schema_data.title.as_deref().map_or(name, pascal);
                    (name, None)
                }
            };
            let name = scope.claim(&name);
            let ty = self.schema(member, &member_at, &format!("{hint}{name}"))?;
            variants.push(Variant {
                name,
                tag_value,
                ty,
            });
        }
        // Tagged only when every variant has a tag value and is a struct
        // that does not itself declare the tag (serde takes the tag out
        // before the variant's fields are read).
        let tag = discriminator
            .map(|d| d.property_name.clone())
            .filter(|tag| {
                variants.iter().all(|v| {
                    v.tag_value.is_some()
                        && match &v.ty {
                            TypeRef::Named(name) => match self.types.get(name) {
                                Some(TypeDef::Struct { fields, .. }) => {
                                    fields.iter().all(|f| f.name != *tag)
                                }
                                _ => false,
                            },
                            _ => false,
                        }
                })
            });
        let tagged = tag.is_some();
        for variant in &mut variants {
            if !tagged {
                variant.tag_value = None;
            }
        }
        Ok(self.define(
            hint,
            TypeDef::OneOf {
                description,
                tag,
                variants,
            },
        ))
    }

    /// Gives `def` a name in the types module: `hint` itself when the
    /// definition is a named schema's (claimed up front) or the same
    /// definition is already there, else the first free `hint2`, `hint3`…
    fn define(&mut self, hint: &str, def: TypeDef) -> TypeRef {
        if self.exact.as_deref() == Some(hint) {
            self.exact = None;
            self.types.insert(hint.to_owned(), def);
            return TypeRef::Named(hint.to_owned());
        }
        if self.types.get(hint) == Some(&def) && !self.schema_types.contains(hint) {
            return TypeRef::Named(hint.to_owned());
        }
        let name = self.scope.claim(hint);
        self.types.insert(name.clone(), def);
        TypeRef::Named(name)
    }
}

/// A schema where it is written: at the top of a component, or a property
/// or the items of another schema.
enum SchemaNode<'d> {
    Top(&'d ReferenceOr<Schema>),
    Inner(&'d ReferenceOr<Box<Schema>>),
}

/// The schema a JSON pointer names, and a name for its type (the component
/// it is in, and the properties on the way): under `components`, the
/// schema of a response's or request body's content, of a parameter or a
/// header, or of a schema; then on into `properties/NAME` and `items`.
fn schema_at_pointer<'d>(
    doc: &'d OpenAPI,
    segments: &'d [String],
) -> Option<(SchemaNode<'d>, String)> {
    let components = doc.components.as_ref()?;
    let in_content = |content: &'d indexmap::IndexMap<String, openapiv3::MediaType>,
                      rest: &'d [String]|
     -> Option<(&'d ReferenceOr<Schema>, &'d [String])> {
        match rest {
            [c, media, s, rest @ ..] if c == "content" && s == "schema" => {
                Some((content.get(media)?.schema.as_ref()?, rest))
            }
            _ => None,
        }
    };
    let in_format = |format: &'d ParameterSchemaOrContent,
                     rest: &'d [String]|
     -> Option<(&'d ReferenceOr<Schema>, &'d [String])> {
        match (format, rest) {
            (ParameterSchemaOrContent::Schema(schema), [s, rest @ ..]) if s == "schema" => {
                Some((schema, rest))
            }
            (ParameterSchemaOrContent::Content(content), rest) => in_content(content, rest),
            _ => None,
        }
    };
    let [c, section, name, rest @ ..] = segments else {
        return None;
    };
    if c != "components" {
        return None;
    }
    let (top, rest) = match section.as_str() {
        "schemas" => (components.schemas.get(name)?, rest),
        "responses" => in_content(&components.responses.get(name)?.as_item()?.content, rest)?,
        "requestBodies" => in_content(
            &components.request_bodies.get(name)?.as_item()?.content,
            rest,
        )?,
        "parameters" => in_format(
            &components
                .parameters
                .get(name)?
                .as_item()?
                .parameter_data_ref()
                .format,
            rest,
        )?,
        "headers" => in_format(&components.headers.get(name)?.as_item()?.format, rest)?,
        _ => return None,
    };
    let mut name = name.clone();
    let mut node = SchemaNode::Top(top);
    let mut rest = rest;
    while !rest.is_empty() {
        let schema: &Schema = match node {
            SchemaNode::Top(ReferenceOr::Item(schema)) => schema,
            SchemaNode::Inner(ReferenceOr::Item(schema)) => schema,
            _ => return None,
        };
        let (next, used) = match (&schema.schema_kind, rest) {
            (SchemaKind::Type(Type::Object(o)), [p, key, ..]) if p == "properties" => {
                name = format!("{name} {key}");
                (o.properties.get(key)?, 2)
            }
            (SchemaKind::Type(Type::Array(a)), [i, ..]) if i == "items" => {
                name = format!("{name} item");
                (a.items.as_ref()?, 1)
            }
            _ => return None,
        };
        node = SchemaNode::Inner(next);
        rest = &rest[used..];
    }
    Some((node, name))
}

fn any_schema() -> Schema {
    Schema {
        schema_data: Default::default(),
        schema_kind: SchemaKind::Any(Default::default()),
    }
}

fn unsupported(what: &str, at: &Pointer) -> LowerError {
    LowerError::new(
        at,
        format!("`{what}` is not supported by this generator"),
        UNSUPPORTED_HINT,
    )
}

fn is_empty_any(any: &openapiv3::AnySchema) -> bool {
    *any == openapiv3::AnySchema::default()
}

/// What a request body's media type is sent as, in order of preference;
/// `None` when it cannot be sent (XML, `multipart/mixed`, ...).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum MediaKind {
    Json,
    Form,
    Multipart,
    Binary,
    Text,
}

fn media_kind(media: &str) -> Option<MediaKind> {
    let essence = media
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    let (top, sub) = essence.split_once('/')?;
    if is_json(media) || (top == "application" && (sub == "json" || sub.ends_with("+json"))) {
        Some(MediaKind::Json)
    } else if essence == "application/x-www-form-urlencoded" {
        Some(MediaKind::Form)
    } else if essence == "multipart/form-data" {
        Some(MediaKind::Multipart)
    } else if top == "text" {
        Some(MediaKind::Text)
    } else if matches!(top, "*" | "image" | "audio" | "video" | "font")
        || (top == "application"
            && matches!(sub, "octet-stream" | "*" | "pdf" | "zip" | "gzip" | "x-tar"))
    {
        Some(MediaKind::Binary)
    } else {
        None
    }
}

fn is_json(media: &str) -> bool {
    let essence = media.split(';').next().unwrap_or("").trim();
    essence == "application/json" || essence.ends_with("+json")
}

fn methods(item: &PathItem) -> impl Iterator<Item = (&'static str, &SpecOperation)> {
    [
        ("get", &item.get),
        ("put", &item.put),
        ("post", &item.post),
        ("delete", &item.delete),
        ("options", &item.options),
        ("head", &item.head),
        ("patch", &item.patch),
        ("trace", &item.trace),
    ]
    .into_iter()
    .filter_map(|(method, op)| op.as_ref().map(|op| (method, op)))
}

/// `4XX` → `ClientError`, and so on for each class of statuses.
fn range_variant(hundreds: u16) -> String {
    match hundreds {
        1 => "Informational",
        2 => "Success",
        3 => "Redirection",
        4 => "ClientError",
        _ => "ServerError",
    }
    .to_owned()
}

/// `OK` → `Ok`, `Expectation Failed` → `ExpectationFailed`; a status without a
/// standard reason → `Status499`.
fn status_variant(code: u16) -> String {
    http::StatusCode::from_u16(code)
        .ok()
        .and_then(|s| s.canonical_reason())
        .map(|reason| pascal(&reason.replace(['-', '\''], " ")))
        .unwrap_or_else(|| format!("Status{code}"))
}

fn path_segments(
    path: &str,
    params: &[Param],
    pointers: &[Pointer],
    at: &Pointer,
) -> Result<Vec<PathSegment>> {
    let mut segments = Vec::new();
    let mut used = BTreeSet::new();
    let lookup = |name: &str, used: &mut BTreeSet<usize>| {
        let Some(index) = params
            .iter()
            .position(|p| p.location == Location::Path && p.name == name)
        else {
            return Err(LowerError::new(
                &Pointer::root().join("paths").join(path),
                format!(
                    "the path template `{path}` uses `{{{name}}}`, but no path parameter of `{}` is named `{name}`",
                    at.segments().last().map_or("", String::as_str)
                ),
                format!("declare a parameter `{name}` with `in: path` for this operation"),
            ));
        };
        used.insert(index);
        Ok(PathSegment::Param(index))
    };
    for segment in path.split('/').filter(|s| !s.is_empty()) {
        // Text and `{variables}` in turn: `{id}.json`, `v{major}.{minor}`.
        let mut pieces = Vec::new();
        let mut rest = segment;
        while !rest.is_empty() {
            match (rest.find('{'), rest.find('}')) {
                (Some(0), Some(close)) => {
                    pieces.push(lookup(&rest[1..close], &mut used)?);
                    rest = &rest[close + 1..];
                }
                (Some(open), _) if open > 0 => {
                    pieces.push(PathSegment::Literal(rest[..open].to_owned()));
                    rest = &rest[open..];
                }
                (None, None) => {
                    pieces.push(PathSegment::Literal(rest.to_owned()));
                    rest = "";
                }
                _ => {
                    return Err(LowerError::new(
                        at,
                        format!("the path segment `{segment}` has an unmatched `{{` or `}}`"),
                        "write each path variable as `{name}`",
                    ));
                }
            }
        }
        segments.push(match <[PathSegment; 1]>::try_from(pieces) {
            Ok([one]) => one,
            Err(pieces) => PathSegment::Mixed(pieces),
        });
    }
    for (index, param) in params.iter().enumerate() {
        if param.location == Location::Path && !used.contains(&index) {
            return Err(LowerError::new(
                &pointers[index],
                format!(
                    "the path parameter `{}` does not appear in the path template `{path}`",
                    param.name
                ),
                format!(
                    "put `{{{}}}` in the path, or carry the value elsewhere (e.g. `in: query`)",
                    param.name
                ),
            ));
        }
    }
    Ok(segments)
}

/// Header parameters that every operation takes, with the same type.
fn shared_headers(operations: &[Operation]) -> Vec<Param> {
    let Some((first, rest)) = operations.split_first() else {
        return Vec::new();
    };
    first
        .params
        .iter()
        .filter(|p| p.location == Location::Header)
        .filter(|p| {
            rest.iter().all(|op| {
                op.params.iter().any(|q| {
                    q.location == Location::Header
                        && q.name == p.name
                        && q.ty == p.ty
                        && q.secret == p.secret
                        && q.rust_name == p.rust_name
                })
            })
        })
        .cloned()
        .collect()
}
