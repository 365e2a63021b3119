//! OpenAPI document → [`model::Api`](crate::model::Api).
//!
//! Every `$ref` is resolved, every name made a Rust identifier, and every
//! construct the emitters cannot express is refused here, with the pointer of
//! the node that carries it.

use std::collections::{BTreeMap, BTreeSet};

use openapiv3::{
    AdditionalProperties, Header, OpenAPI, Operation as SpecOperation, Parameter, ParameterData,
    ParameterSchemaOrContent, PathItem, ReferenceOr, RequestBody, Response as SpecResponse, Schema,
    SchemaKind, StatusCode, StringFormat, Type, VariantOrUnknownOrEmpty,
};

use crate::error::{LowerError, Pointer};
use crate::model::{
    Api, Body, Field, Location, Operation, Param, PathSegment, Response, ResponseHeader, Server,
    TypeDef, TypeRef,
};
use crate::names::{pascal, snake};

type Result<T> = std::result::Result<T, LowerError>;

const UNSUPPORTED_HINT: &str = "this generator supports objects, arrays, primitives, string enums and free-form objects; rewrite the schema with those";

pub fn lower(doc: &OpenAPI) -> Result<Api> {
    let mut lowerer = Lowerer {
        doc,
        types: BTreeMap::new(),
        in_progress: BTreeSet::new(),
    };
    let server = lowerer.server()?;
    let operations = lowerer.operations()?;
    let shared_headers = shared_headers(&operations);
    Ok(Api {
        title: doc.info.title.clone(),
        version: doc.info.version.clone(),
        description: doc.info.description.clone(),
        server,
        operations,
        types: lowerer.types,
        shared_headers,
    })
}

struct Lowerer<'a> {
    doc: &'a OpenAPI,
    types: BTreeMap<String, TypeDef>,
    /// Named schemas being lowered, so that recursion through `$ref` ends.
    in_progress: BTreeSet<String>,
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

/// Follows a `$ref` into `components/{section}` (no further: a reference to
/// a reference is refused); gives the item and the pointer where it is written.
fn resolve<'d, T>(
    item: &'d ReferenceOr<T>,
    section: &str,
    at: &Pointer,
    components: impl FnOnce() -> Option<&'d indexmap::IndexMap<String, ReferenceOr<T>>>,
) -> Result<(&'d T, Pointer)> {
    match item {
        ReferenceOr::Item(item) => Ok((item, at.clone())),
        ReferenceOr::Reference { reference } => {
            let name = ref_name(reference, section, at)?;
            match components().and_then(|c| c.get(name)) {
                Some(ReferenceOr::Item(item)) => Ok((
                    item,
                    Pointer::root().join("components").join(section).join(name),
                )),
                Some(ReferenceOr::Reference { .. }) => Err(LowerError::new(
                    at,
                    format!("`{reference}` is itself a reference"),
                    "point the `$ref` at the definition",
                )),
                None => Err(dangling(reference, &at.join("$ref"))),
            }
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
        let mut variables = Vec::new();
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
            variables.push((name.to_owned(), snake(name)));
            rest = &rest[open + close + 1..];
        }
        Ok(Some(Server {
            url: server.url.clone(),
            description: server.description.clone(),
            variables,
        }))
    }

    fn operations(&mut self) -> Result<Vec<Operation>> {
        let mut operations = Vec::new();
        let mut seen = BTreeSet::new();
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
                let lowered = self.operation(path, item, method, operation, &at)?;
                if !seen.insert(lowered.method_name.clone()) {
                    return Err(LowerError::new(
                        &at.join("operationId"),
                        format!("two operations are both named `{}`", lowered.method_name),
                        "give every operation a distinct `operationId`",
                    ));
                }
                operations.push(lowered);
            }
        }
        Ok(operations)
    }

    fn operation(
        &mut self,
        path: &str,
        item: &PathItem,
        method: &str,
        operation: &SpecOperation,
        at: &Pointer,
    ) -> Result<Operation> {
        let id = operation
            .operation_id
            .clone()
            .unwrap_or_else(|| format!("{method} {path}"));
        let method_name = snake(&id);
        let type_name = pascal(&id);

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
        let mut rust_names = BTreeSet::new();
        for (param, param_at) in params.iter().zip(&pointers) {
            if !rust_names.insert(param.rust_name.clone()) || param.rust_name == "body" {
                return Err(LowerError::new(
                    param_at,
                    format!(
                        "the parameter `{}` becomes `{}`, a name another parameter of this operation already has",
                        param.name, param.rust_name
                    ),
                    "rename one of the parameters",
                ));
            }
        }

        let segments = path_segments(path, &params, &pointers, at)?;

        let body = match &operation.request_body {
            None => None,
            Some(body) => Some(self.request_body(body, &at.join("requestBody"), &type_name)?),
        };

        let mut responses = Vec::new();
        for (status, response) in &operation.responses.responses {
            let response_at = at.join("responses").join(status);
            let code = match status {
                StatusCode::Code(code) => *code,
                StatusCode::Range(_) => {
                    return Err(LowerError::new(
                        &response_at,
                        format!("the status range `{status}` is not supported"),
                        "list each status code the operation answers with",
                    ));
                }
            };
            let variant = status_variant(code);
            responses.push(self.response(
                response,
                Some(code),
                variant,
                &response_at,
                &type_name,
            )?);
        }
        let default_response = match &operation.responses.default {
            None => None,
            Some(response) => Some(self.response(
                response,
                None,
                "Default".into(),
                &at.join("responses").join("default"),
                &type_name,
            )?),
        };

        Ok(Operation {
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
        // Errors about the parameter point at where it is used (`at`).
        let doc = self.doc;
        let (param, _) = resolve(param, "parameters", at, || {
            doc.components.as_ref().map(|c| &c.parameters)
        })?;
        let (data, location) = match param {
            Parameter::Path { parameter_data, .. } => (parameter_data, Location::Path),
            Parameter::Query { parameter_data, .. } => (parameter_data, Location::Query),
            Parameter::Header { parameter_data, .. } => (parameter_data, Location::Header),
            Parameter::Cookie { parameter_data, .. } => {
                return Err(LowerError::new(
                    at,
                    format!(
                        "the cookie parameter `{}` is not supported",
                        parameter_data.name
                    ),
                    "carry the value in a header or query parameter",
                ));
            }
        };
        if location == Location::Header
            && http::HeaderName::from_bytes(data.name.as_bytes()).is_err()
        {
            return Err(LowerError::new(
                &at.join("name"),
                format!("`{}` is not a valid HTTP header name", data.name),
                "use letters, digits and `-` only",
            ));
        }
        let (ty, secret) = self.parameter_type(data, at, op_type)?;
        Ok(Param {
            name: data.name.clone(),
            rust_name: snake(&data.name),
            location,
            required: data.required || location == Location::Path,
            secret,
            ty,
            description: data.description.clone(),
        })
    }

    /// A parameter's type must print as one string: a primitive or an enum.
    fn parameter_type(
        &mut self,
        data: &ParameterData,
        at: &Pointer,
        op_type: &str,
    ) -> Result<(TypeRef, bool)> {
        let schema = match &data.format {
            ParameterSchemaOrContent::Schema(schema) => schema,
            ParameterSchemaOrContent::Content(_) => {
                return Err(LowerError::new(
                    &at.join("content"),
                    format!("the parameter `{}` uses `content`", data.name),
                    "describe the parameter with `schema`",
                ));
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
            &at.join("schema"),
            &format!("{op_type}{}", pascal(&data.name)),
        )?;
        if !self.is_scalar(&ty) {
            return Err(LowerError::new(
                &at.join("schema"),
                format!(
                    "the parameter `{}` is not a string, number, boolean or string enum",
                    data.name
                ),
                "arrays and objects in parameters are not supported",
            ));
        }
        Ok((ty, secret))
    }

    fn is_scalar(&self, ty: &TypeRef) -> bool {
        match ty {
            TypeRef::String | TypeRef::Integer { .. } | TypeRef::Number | TypeRef::Boolean => true,
            TypeRef::Named(name) => match self.types.get(name) {
                Some(TypeDef::Enum { .. }) => true,
                Some(TypeDef::Alias { ty, .. }) => self.is_scalar(ty),
                _ => false,
            },
            _ => false,
        }
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
        let Some((media, media_type)) = body.content.iter().find(|(m, _)| is_json(m)) else {
            return Err(LowerError::new(
                &at.join("content"),
                "the request body has no JSON media type",
                "describe the body as `application/json`",
            ));
        };
        let ty = match &media_type.schema {
            Some(schema) => self.schema(
                schema,
                &at.join("content").join(media).join("schema"),
                &format!("{op_type}Body"),
            )?,
            None => TypeRef::Value,
        };
        Ok(Body {
            ty,
            required: body.required,
            description: body.description.clone(),
        })
    }

    fn response(
        &mut self,
        response: &ReferenceOr<SpecResponse>,
        status: Option<u16>,
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
            let header = self.header(header, &header_at)?;
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
            if !self.is_scalar(&ty) {
                return Err(LowerError::new(
                    &header_at.join("schema"),
                    format!("the header `{name}` is not a string, number, boolean or string enum"),
                    "arrays and objects in headers are not supported",
                ));
            }
            headers.push(ResponseHeader {
                name: name.clone(),
                rust_name: snake(name),
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

    fn header(&self, header: &'a ReferenceOr<Header>, at: &Pointer) -> Result<&'a Header> {
        let doc = self.doc;
        resolve(header, "headers", at, || {
            doc.components.as_ref().map(|c| &c.headers)
        })
        .map(|(header, _)| header)
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
        let name = ref_name(reference, "schemas", at)?;
        let rust_name = pascal(name);
        if self.types.contains_key(&rust_name) || self.in_progress.contains(&rust_name) {
            return Ok(TypeRef::Named(rust_name));
        }
        let Some(ReferenceOr::Item(schema)) = self
            .doc
            .components
            .as_ref()
            .and_then(|c| c.schemas.get(name))
        else {
            return Err(dangling(reference, &at.join("$ref")));
        };
        let schema_at = Pointer::root()
            .join("components")
            .join("schemas")
            .join(name);
        self.in_progress.insert(rust_name.clone());
        let ty = self.inline(schema, &schema_at, &rust_name)?;
        self.in_progress.remove(&rust_name);
        if ty != TypeRef::Named(rust_name.clone()) {
            // A primitive, array or map under a name of its own: an alias.
            self.types.insert(
                rust_name.clone(),
                TypeDef::Alias {
                    description: schema.schema_data.description.clone(),
                    ty,
                },
            );
        }
        Ok(TypeRef::Named(rust_name))
    }

    fn inline(&mut self, schema: &Schema, at: &Pointer, hint: &str) -> Result<TypeRef> {
        let description = schema.schema_data.description.clone();
        let ty = match &schema.schema_kind {
            SchemaKind::Type(Type::String(s)) if !s.enumeration.is_empty() => {
                let mut variants = Vec::new();
                for value in s.enumeration.iter().flatten() {
                    let variant = pascal(value);
                    if variants
                        .iter()
                        .any(|(_, v): &(String, String)| *v == variant)
                    {
                        return Err(LowerError::new(
                            &at.join("enum"),
                            format!("two enum values both become the variant `{variant}`"),
                            "make the enum values differ in more than case and punctuation",
                        ));
                    }
                    variants.push((value.clone(), variant));
                }
                self.define(
                    hint,
                    TypeDef::Enum {
                        description,
                        variants,
                    },
                    at,
                )?
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
                let Some(items) = &array.items else {
                    return Err(LowerError::new(
                        at,
                        "the array has no `items`",
                        "say what the array holds with `items`",
                    ));
                };
                let item = self.boxed_schema(items, &at.join("items"), &format!("{hint}Item"))?;
                TypeRef::Array(Box::new(item))
            }
            SchemaKind::Type(Type::Object(object)) => {
                if object.properties.is_empty() {
                    match &object.additional_properties {
                        Some(AdditionalProperties::Schema(values)) => {
                            let value = self.schema(
                                values,
                                &at.join("additionalProperties"),
                                &format!("{hint}Value"),
                            )?;
                            TypeRef::MapOf(Box::new(value))
                        }
                        _ => TypeRef::Map,
                    }
                } else {
                    let mut fields = Vec::new();
                    for (name, property) in &object.properties {
                        let field_at = at.join("properties").join(name);
                        let ty = self.boxed_schema(
                            property,
                            &field_at,
                            &format!("{hint}{}", pascal(name)),
                        )?;
                        let rust_name = snake(name);
                        if fields.iter().any(|f: &Field| f.rust_name == rust_name) {
                            return Err(LowerError::new(
                                &field_at,
                                format!("two properties both become the field `{rust_name}`"),
                                "rename one of the properties",
                            ));
                        }
                        let property_description = match property {
                            ReferenceOr::Item(s) => s.schema_data.description.clone(),
                            ReferenceOr::Reference { .. } => None,
                        };
                        fields.push(Field {
                            name: name.clone(),
                            rust_name,
                            required: object.required.contains(name),
                            ty,
                            description: property_description,
                        });
                    }
                    for required in &object.required {
                        if !object.properties.contains_key(required) {
                            return Err(LowerError::new(
                                &at.join("required"),
                                format!("`{required}` is required but not among the properties"),
                                format!(
                                    "add `{required}` to `properties`, or remove it from `required`"
                                ),
                            ));
                        }
                    }
                    self.define(
                        hint,
                        TypeDef::Struct {
                            description,
                            fields,
                        },
                        at,
                    )?
                }
            }
            SchemaKind::Any(any) if is_empty_any(any) => TypeRef::Value,
            SchemaKind::OneOf { .. } => return Err(unsupported("oneOf", at)),
            SchemaKind::AllOf { .. } => return Err(unsupported("allOf", at)),
            SchemaKind::AnyOf { .. } => return Err(unsupported("anyOf", at)),
            SchemaKind::Not { .. } => return Err(unsupported("not", at)),
            SchemaKind::Any(any) => {
                let what = if !any.one_of.is_empty() {
                    "oneOf"
                } else if !any.all_of.is_empty() {
                    "allOf"
                } else if !any.any_of.is_empty() {
                    "anyOf"
                } else if any.not.is_some() {
                    "not"
                } else {
                    "a schema mixing keywords of several types"
                };
                return Err(unsupported(what, at));
            }
        };
        Ok(if schema.schema_data.nullable {
            TypeRef::Optional(Box::new(ty))
        } else {
            ty
        })
    }

    fn define(&mut self, name: &str, def: TypeDef, at: &Pointer) -> Result<TypeRef> {
        match self.types.get(name) {
            Some(existing) if *existing != def => Err(LowerError::new(
                at,
                format!("two different schemas both become the type `{name}`"),
                "give one of them a name of its own under `components/schemas`",
            )),
            _ => {
                self.types.insert(name.to_owned(), def);
                Ok(TypeRef::Named(name.to_owned()))
            }
        }
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
    for segment in path.split('/').filter(|s| !s.is_empty()) {
        if let Some(name) = segment.strip_prefix('{').and_then(|s| s.strip_suffix('}')) {
            let Some(index) = params
                .iter()
                .position(|p| p.location == Location::Path && p.name == name)
            else {
                return Err(LowerError::new(
                    &at.join("parameters"),
                    format!(
                        "the path template `{path}` uses `{{{name}}}`, but no path parameter is named `{name}`"
                    ),
                    format!("declare a parameter `{name}` with `in: path` for this operation"),
                ));
            };
            used.insert(index);
            segments.push(PathSegment::Param(index));
        } else if segment.contains(['{', '}']) {
            return Err(LowerError::new(
                at,
                format!("the path segment `{segment}` mixes text and a variable"),
                "give each path variable a segment of its own",
            ));
        } else {
            segments.push(PathSegment::Literal(segment.to_owned()));
        }
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
                })
            })
        })
        .cloned()
        .collect()
}
