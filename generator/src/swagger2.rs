//! Swagger 2.0 read as OpenAPI 3.0: a 2.0 document is converted, on its
//! JSON tree and before anything else reads it, into the 3.0 document it
//! stands for, which the rest of the generator reads as if it had been
//! written so.
//!
//! - `host`, `basePath` and `schemes` → `servers` (one a scheme, in the
//!   order written; `https` when none is written);
//! - `definitions` → `components/schemas`, `parameters` (but bodies and
//!   form fields) → `components/parameters`, `responses` →
//!   `components/responses`, `securityDefinitions` →
//!   `components/securitySchemes`; every local `$ref` rewritten to match;
//! - a parameter `in: body` → the operation's `requestBody`, under each
//!   media type of its `consumes` (the document's when the operation has
//!   none, `application/json` when neither has); parameters `in: formData`
//!   → one object of properties under `multipart/form-data` and/or
//!   `application/x-www-form-urlencoded` (multipart when a field is a
//!   file); a parameter given as a `$ref` to either kind is written into
//!   the operation that uses it;
//! - the other parameters' `type`, `format`, `items`, `enum` and bounds →
//!   `schema`, `collectionFormat` → `style` and `explode`;
//! - a response's `schema` → `content` under each media type of its
//!   `produces`, `examples` → each media type's `example`, its headers'
//!   types → `schema`;
//! - schemas: a `discriminator` property name → `{propertyName}`, `type:
//!   file` → a binary string, `x-nullable` → `nullable`.
//!
//! Every node moved is recorded ([`Converted::moves`]), so that a message
//! about any node of the 3.0 document names the file, line and pointer of
//! the 2.0 document where it is written. What 3.0 cannot say
//! (`collectionFormat: tsv`, a `type: file` outside a form, two bodies) is
//! refused at its pointer; a form array not sent `multi` is sent so, with a
//! warning.

use serde_json::{Map, Value, json};

use crate::error::{LowerError, Pointer};

type Result<T> = std::result::Result<T, LowerError>;

/// The 3.0 document, and how to find the 2.0 node of each of its nodes.
#[derive(Debug)]
pub struct Converted {
    pub document: Value,
    /// (pointer in the 3.0 document, pointer in the 2.0 document), read by
    /// [`crate::normalize::moved`]: a node not under any is where it was.
    pub moves: Vec<(Pointer, Pointer)>,
    /// What was read less strictly than written, each at its pointer in the
    /// 2.0 document (the first says that the document was converted).
    pub warnings: Vec<LowerError>,
}

const METHODS: &[&str] = &["get", "put", "post", "delete", "options", "head", "patch"];

/// Keywords of a 2.0 parameter, header or `items` that go to its schema.
const SCHEMA_KEYWORDS: &[&str] = &[
    "type",
    "format",
    "items",
    "default",
    "maximum",
    "exclusiveMaximum",
    "minimum",
    "exclusiveMinimum",
    "maxLength",
    "minLength",
    "pattern",
    "maxItems",
    "minItems",
    "uniqueItems",
    "enum",
    "multipleOf",
    "x-nullable",
];

const FORM: &str = "application/x-www-form-urlencoded";
const MULTIPART: &str = "multipart/form-data";

/// Converts the Swagger 2.0 document `doc` (its `swagger` field already
/// seen) into OpenAPI 3.0.3.
pub fn convert(doc: &Value) -> Result<Converted> {
    let root = Pointer::root();
    let Some(map) = doc.as_object() else {
        return Err(LowerError::new(
            &root,
            "the document is not a mapping",
            "start the document with `openapi: 3.0.3`",
        ));
    };
    match map.get("swagger") {
        Some(Value::String(v)) if v == "2.0" => {}
        other => {
            let shown = match other {
                Some(Value::String(v)) => format!("`{v}`"),
                Some(Value::Number(n)) => format!("`{n}` (a number)"),
                _ => "not a version".into(),
            };
            return Err(LowerError::new(
                &root.join("swagger"),
                format!("the document says `swagger` {shown}, and only Swagger \"2.0\" is read"),
                "write `swagger: \"2.0\"` (quoted), or convert the document to OpenAPI 3.0.3",
            ));
        }
    }
    let mut converter = Converter {
        doc: map,
        notes: Notes {
            moves: Vec::new(),
            warnings: vec![LowerError::new(
                &root.join("swagger"),
                "the document is Swagger 2.0: it is read as the OpenAPI 3.0 document it converts to",
                "messages point into this 2.0 document; to silence this warning, convert it to OpenAPI 3 for good",
            )],
        },
        consumes: media_types(map.get("consumes"), &root.join("consumes"))?,
        produces: media_types(map.get("produces"), &root.join("produces"))?,
    };
    let document = converter.document()?;
    Ok(Converted {
        document,
        moves: converter.notes.moves,
        warnings: converter.notes.warnings,
    })
}

/// Media types (`consumes` or `produces`) and where each is written.
type MediaTypes = Option<Vec<(String, Pointer)>>;

fn media_types(value: Option<&Value>, at: &Pointer) -> Result<MediaTypes> {
    let Some(value) = value else {
        return Ok(None);
    };
    let Some(items) = value.as_array() else {
        return Err(LowerError::new(
            at,
            "a list of media types is not a list",
            "write the media types as a list: `[application/json]`",
        ));
    };
    items
        .iter()
        .enumerate()
        .map(|(i, item)| match item.as_str() {
            Some(media) => Ok((media.to_owned(), at.join(i))),
            None => Err(LowerError::new(
                &at.join(i),
                "a media type is not a string",
                "write the media type as text: `application/json`",
            )),
        })
        .collect::<Result<Vec<_>>>()
        .map(Some)
}

/// A local `$ref` of 2.0 rewritten to where its target is in 3.0; any
/// other (to another file) left as it is.
fn reference(target: &str) -> String {
    for (old, new) in [
        ("#/definitions/", "#/components/schemas/"),
        ("#/parameters/", "#/components/parameters/"),
        ("#/responses/", "#/components/responses/"),
    ] {
        if let Some(rest) = target.strip_prefix(old) {
            return format!("{new}{rest}");
        }
    }
    target.to_owned()
}

/// A message about the converted document as the 2.0 document would say
/// it: its references as written there.
pub fn as_written(message: &str) -> String {
    [
        ("#/components/schemas/", "#/definitions/"),
        ("#/components/parameters/", "#/parameters/"),
        ("#/components/responses/", "#/responses/"),
    ]
    .iter()
    .fold(message.to_owned(), |text, (new, old)| {
        text.replace(new, old)
    })
}

/// The schema a 2.0 document writes at `at`, to be put at `now`: keywords
/// of 3.0 but for `discriminator` (a property name), `type: file`,
/// `x-nullable` and draft 4's `items` as a list (a tuple, read as 2020-12's
/// `prefixItems`, recorded in `moves`).
fn schema(value: &Value, at: &Pointer, now: &Pointer, notes: &mut Notes) -> Value {
    let Value::Object(map) = value else {
        return value.clone();
    };
    let mut out = Map::new();
    let mut file = false;
    for (key, child) in map {
        let child_at = at.join(key);
        let child_now = now.join(key);
        match (key.as_str(), child) {
            ("$ref", Value::String(target)) => {
                out.insert(key.clone(), Value::String(reference(target)));
            }
            ("discriminator", Value::String(property)) => {
                out.insert(key.clone(), json!({ "propertyName": property }));
            }
            ("x-nullable", Value::Bool(nullable)) => {
                out.insert("nullable".into(), Value::Bool(*nullable));
            }
            ("type", Value::String(t)) if t == "file" => {
                file = true;
                out.insert(key.clone(), Value::String("string".into()));
            }
            // Not Swagger 2.0, but JSON Schema draft 4, which real documents
            // write: `[T, "null"]` is a nullable T; more types, any value.
            ("type", Value::Array(types)) => {
                let rest: Vec<&Value> = types.iter().filter(|t| *t != "null").collect();
                if rest.len() < types.len() {
                    out.insert("nullable".into(), Value::Bool(true));
                }
                match rest.as_slice() {
                    [one] => {
                        out.insert(key.clone(), (*one).clone());
                    }
                    [] => {}
                    _ => notes.warnings.push(LowerError::new(
                        &child_at,
                        "a list of several types is not Swagger 2.0; the schema is read as any JSON value",
                        "give the schema one type, or convert the document to OpenAPI 3.1",
                    )),
                }
            }
            ("properties" | "definitions" | "patternProperties", Value::Object(members)) => {
                let members = members
                    .iter()
                    .map(|(name, member)| {
                        let member =
                            schema(member, &child_at.join(name), &child_now.join(name), notes);
                        (name.clone(), member)
                    })
                    .collect();
                out.insert(key.clone(), Value::Object(members));
            }
            ("items", Value::Array(members)) => {
                let tuple_now = now.join("prefixItems");
                notes.moves.push((tuple_now.clone(), child_at.clone()));
                let members = members
                    .iter()
                    .enumerate()
                    .map(|(i, member)| schema(member, &child_at.join(i), &tuple_now.join(i), notes))
                    .collect();
                out.insert("prefixItems".into(), Value::Array(members));
            }
            ("items" | "additionalProperties" | "not", child) => {
                out.insert(key.clone(), schema(child, &child_at, &child_now, notes));
            }
            ("allOf" | "anyOf" | "oneOf", Value::Array(members)) => {
                let members = members
                    .iter()
                    .enumerate()
                    .map(|(i, member)| schema(member, &child_at.join(i), &child_now.join(i), notes))
                    .collect();
                out.insert(key.clone(), Value::Array(members));
            }
            _ => {
                out.insert(key.clone(), child.clone());
            }
        }
    }
    if file {
        out.insert("format".into(), Value::String("binary".into()));
    }
    Value::Object(out)
}

/// What converting records beside the document.
#[derive(Default)]
struct Notes {
    /// See [`Converted::moves`].
    moves: Vec<(Pointer, Pointer)>,
    /// See [`Converted::warnings`].
    warnings: Vec<LowerError>,
}

struct Converter<'a> {
    doc: &'a Map<String, Value>,
    notes: Notes,
    consumes: MediaTypes,
    produces: MediaTypes,
}

/// A parameter of an operation, as written (a `$ref` to a body or form
/// field already followed).
struct Param<'a> {
    value: &'a Map<String, Value>,
    /// Where it is written.
    at: Pointer,
    /// Where the list that holds it is written (an operation's, or its
    /// path item's).
    list: Pointer,
}

impl<'a> Converter<'a> {
    fn moved(&mut self, now: Pointer, from: &Pointer) {
        if now != *from {
            self.notes.moves.push((now, from.clone()));
        }
    }

    fn document(&mut self) -> Result<Value> {
        let root = Pointer::root();
        let doc = self.doc;
        let mut out = Map::new();
        out.insert("openapi".into(), Value::String("3.0.3".into()));
        self.moved(root.join("openapi"), &root.join("swagger"));
        let mut components = Map::new();
        for (key, value) in doc {
            let at = root.join(key);
            match key.as_str() {
                "swagger" | "consumes" | "produces" | "basePath" | "schemes" => {}
                "host" => {}
                "paths" => {
                    let Some(paths) = value.as_object() else {
                        return Err(not_a_mapping(&at, "`paths`"));
                    };
                    let mut converted = Map::new();
                    for (path, item) in paths {
                        let item_at = at.join(path);
                        let item = if path.starts_with("x-") {
                            item.clone()
                        } else {
                            self.path_item(item, &item_at)?
                        };
                        converted.insert(path.clone(), item);
                    }
                    out.insert(key.clone(), Value::Object(converted));
                }
                "definitions" => {
                    let Some(definitions) = value.as_object() else {
                        return Err(not_a_mapping(&at, "`definitions`"));
                    };
                    let mut schemas = Map::new();
                    for (name, s) in definitions {
                        let now = root.join("components").join("schemas").join(name);
                        let converted = schema(s, &at.join(name), &now, &mut self.notes);
                        schemas.insert(name.clone(), converted);
                    }
                    self.moved(root.join("components").join("schemas"), &at);
                    components.insert("schemas".into(), Value::Object(schemas));
                }
                "parameters" => {
                    let Some(parameters) = value.as_object() else {
                        return Err(not_a_mapping(&at, "`parameters`"));
                    };
                    let mut converted = Map::new();
                    for (name, param) in parameters {
                        let param_at = at.join(name);
                        let Some(param) = param.as_object() else {
                            return Err(not_a_mapping(&param_at, "a parameter"));
                        };
                        // Bodies and form fields are written into each
                        // operation that refers to them.
                        if matches!(location(param), Some("body" | "formData")) {
                            continue;
                        }
                        let now = root.join("components").join("parameters").join(name);
                        let param = self.parameter(param, &param_at, &now)?;
                        converted.insert(name.clone(), param);
                    }
                    if !converted.is_empty() {
                        components.insert("parameters".into(), Value::Object(converted));
                    }
                }
                "responses" => {
                    let Some(responses) = value.as_object() else {
                        return Err(not_a_mapping(&at, "`responses`"));
                    };
                    let mut converted = Map::new();
                    for (name, response) in responses {
                        let now = root.join("components").join("responses").join(name);
                        let produces = self.produces.clone();
                        let response = self.response(response, &at.join(name), &now, &produces)?;
                        converted.insert(name.clone(), response);
                    }
                    components.insert("responses".into(), Value::Object(converted));
                }
                "securityDefinitions" => {
                    let Some(schemes) = value.as_object() else {
                        return Err(not_a_mapping(&at, "`securityDefinitions`"));
                    };
                    let mut converted = Map::new();
                    for (name, scheme) in schemes {
                        let now = root.join("components").join("securitySchemes").join(name);
                        let scheme = self.security_scheme(scheme, &at.join(name), &now)?;
                        converted.insert(name.clone(), scheme);
                    }
                    components.insert("securitySchemes".into(), Value::Object(converted));
                }
                "info" => {
                    out.insert(key.clone(), value.clone());
                    if let Some(servers) = self.servers()? {
                        out.insert("servers".into(), servers);
                    }
                }
                _ => {
                    out.insert(key.clone(), value.clone());
                }
            }
        }
        if !out.contains_key("servers")
            && let Some(servers) = self.servers()?
        {
            out.insert("servers".into(), servers);
        }
        if !components.is_empty() {
            out.insert("components".into(), Value::Object(components));
        }
        Ok(Value::Object(out))
    }

    /// `servers` from `schemes`, `host` and `basePath`.
    fn servers(&mut self) -> Result<Option<Value>> {
        let root = Pointer::root();
        let text = |key: &str| -> Result<Option<&str>> {
            match self.doc.get(key) {
                None => Ok(None),
                Some(Value::String(s)) => Ok(Some(s.as_str())),
                Some(_) => Err(LowerError::new(
                    &root.join(key),
                    format!("`{key}` is not a string"),
                    format!("write `{key}` as text"),
                )),
            }
        };
        let host = text("host")?;
        let base = text("basePath")?.unwrap_or("");
        let at = if host.is_some() {
            root.join("host")
        } else {
            root.join("basePath")
        };
        let urls: Vec<String> = match host {
            None if base.is_empty() => return Ok(None),
            None => vec![base.to_owned()],
            Some(host) => {
                let schemes = match self.doc.get("schemes") {
                    None => vec!["https".to_owned()],
                    Some(Value::Array(schemes)) if !schemes.is_empty() => schemes
                        .iter()
                        .enumerate()
                        .map(|(i, s)| {
                            s.as_str().map(str::to_owned).ok_or_else(|| {
                                LowerError::new(
                                    &root.join("schemes").join(i),
                                    "a scheme is not a string",
                                    "write the scheme as text: `https`",
                                )
                            })
                        })
                        .collect::<Result<_>>()?,
                    Some(_) => {
                        return Err(LowerError::new(
                            &root.join("schemes"),
                            "`schemes` is not a list of schemes",
                            "write the schemes as a list: `[https]`",
                        ));
                    }
                };
                schemes
                    .iter()
                    .map(|scheme| {
                        let url = format!("{scheme}://{host}{base}");
                        url.trim_end_matches('/').to_owned()
                    })
                    .collect()
            }
        };
        self.moved(root.join("servers"), &at);
        Ok(Some(Value::Array(
            urls.into_iter().map(|url| json!({ "url": url })).collect(),
        )))
    }

    fn path_item(&mut self, item: &'a Value, at: &Pointer) -> Result<Value> {
        let Some(item) = item.as_object() else {
            return Err(not_a_mapping(at, "a path item"));
        };
        if item.contains_key("$ref") {
            return Err(LowerError::new(
                &at.join("$ref"),
                "a path item given as a `$ref` in a Swagger 2.0 document is not converted",
                "write the path item out in the document, or convert the document to OpenAPI 3",
            ));
        }
        // The path item's own parameters: bodies and form fields go to each
        // operation (3.0 has no path-wide body), the others stay.
        let mut shared = Vec::new();
        let mut kept = Vec::new();
        if let Some(params) = item.get("parameters") {
            let list = at.join("parameters");
            for param in self.params(params, &list)? {
                if param_is_body(&param) {
                    shared.push(param);
                } else {
                    kept.push(param);
                }
            }
        }
        let mut out = Map::new();
        for (key, value) in item {
            match key.as_str() {
                "parameters" => {
                    let mut converted = Vec::new();
                    for param in &kept {
                        let now = at.join("parameters").join(converted.len());
                        converted.push(self.parameter(param.value, &param.at, &now)?);
                    }
                    if !converted.is_empty() {
                        out.insert(key.clone(), Value::Array(converted));
                    }
                }
                method if METHODS.contains(&method) => {
                    let op = self.operation(value, &at.join(method), &shared)?;
                    out.insert(key.clone(), op);
                }
                _ => {
                    out.insert(key.clone(), value.clone());
                }
            }
        }
        Ok(Value::Object(out))
    }

    /// The parameters of a list, a `$ref` to a body or form field followed.
    fn params(&self, params: &'a Value, list: &Pointer) -> Result<Vec<Param<'a>>> {
        let Some(params) = params.as_array() else {
            return Err(LowerError::new(
                list,
                "`parameters` is not a list",
                "write the parameters as a list",
            ));
        };
        let mut out = Vec::new();
        for (i, param) in params.iter().enumerate() {
            let at = list.join(i);
            let Some(map) = param.as_object() else {
                return Err(not_a_mapping(&at, "a parameter"));
            };
            let followed = map
                .get("$ref")
                .and_then(Value::as_str)
                .and_then(|r| r.strip_prefix("#/parameters/"))
                .map(|name| name.replace("~1", "/").replace("~0", "~"))
                .and_then(|name| {
                    let target = self.doc.get("parameters")?.get(&name)?.as_object()?;
                    matches!(location(target), Some("body" | "formData"))
                        .then(|| (target, Pointer::root().join("parameters").join(&name)))
                });
            match followed {
                Some((target, target_at)) => out.push(Param {
                    value: target,
                    at: target_at,
                    list: list.clone(),
                }),
                None => out.push(Param {
                    value: map,
                    at,
                    list: list.clone(),
                }),
            }
        }
        Ok(out)
    }

    fn operation(&mut self, op: &'a Value, at: &Pointer, shared: &[Param<'a>]) -> Result<Value> {
        let Some(op) = op.as_object() else {
            return Err(not_a_mapping(at, "an operation"));
        };
        let consumes = match media_types(op.get("consumes"), &at.join("consumes"))? {
            Some(own) => Some(own),
            None => self.consumes.clone(),
        };
        let produces = match media_types(op.get("produces"), &at.join("produces"))? {
            Some(own) => Some(own),
            None => self.produces.clone(),
        };
        let own = match op.get("parameters") {
            Some(params) => self.params(params, &at.join("parameters"))?,
            None => Vec::new(),
        };
        // A path item's body or form field, unless the operation writes
        // its own of that name and place.
        let key = |p: &Param| {
            (
                p.value
                    .get("name")
                    .and_then(Value::as_str)
                    .map(str::to_owned),
                location(p.value).map(str::to_owned),
            )
        };
        let inherited: Vec<&Param> = shared
            .iter()
            .filter(|s| !own.iter().any(|o| key(o) == key(s)))
            .collect();
        let (bodies, simple): (Vec<&Param>, Vec<&Param>) =
            own.iter().chain(inherited).partition(|p| param_is_body(p));
        let mut out = Map::new();
        let mut body = self.request_body(&bodies, at, &consumes)?;
        for (key, value) in op {
            match key.as_str() {
                "consumes" | "produces" | "schemes" => {}
                "parameters" => {
                    let mut converted = Vec::new();
                    for param in &simple {
                        let now = at.join("parameters").join(converted.len());
                        converted.push(self.parameter(param.value, &param.at, &now)?);
                    }
                    if !converted.is_empty() {
                        out.insert(key.clone(), Value::Array(converted));
                    }
                    if let Some(body) = body.take() {
                        out.insert("requestBody".into(), body);
                    }
                }
                "responses" => {
                    let Some(responses) = value.as_object() else {
                        return Err(not_a_mapping(&at.join(key), "`responses`"));
                    };
                    let mut converted = Map::new();
                    for (status, response) in responses {
                        let response_at = at.join("responses").join(status);
                        let response = if status.starts_with("x-") {
                            response.clone()
                        } else {
                            self.response(response, &response_at, &response_at, &produces)?
                        };
                        converted.insert(status.clone(), response);
                    }
                    out.insert(key.clone(), Value::Object(converted));
                }
                _ => {
                    out.insert(key.clone(), value.clone());
                }
            }
        }
        // A body inherited from the path item, the operation having no
        // parameters of its own.
        if let Some(body) = body {
            out.insert("requestBody".into(), body);
        }
        Ok(Value::Object(out))
    }

    /// The request body that an operation's body parameter or form fields
    /// make, under the media types it consumes.
    fn request_body(
        &mut self,
        bodies: &[&Param],
        op_at: &Pointer,
        consumes: &MediaTypes,
    ) -> Result<Option<Value>> {
        let now = op_at.join("requestBody");
        let (body, form): (Vec<&Param>, Vec<&Param>) = bodies
            .iter()
            .partition(|p| location(p.value) == Some("body"));
        if body.len() > 1 {
            return Err(LowerError::new(
                &body[1].at,
                "an operation has a second `in: body` parameter; it sends one body",
                "keep one body parameter: an object of both, if both are sent",
            ));
        }
        if let (Some(body), Some(field)) = (body.first(), form.first()) {
            return Err(LowerError::new(
                &field.at,
                format!(
                    "an operation has both a body parameter (at {}) and form fields",
                    body.at
                ),
                "send either one body or form fields (a field may hold the body's JSON)",
            ));
        }
        if let Some(param) = body.first() {
            let mut out = Map::new();
            for key in ["description", "required"] {
                if let Some(value) = param.value.get(key) {
                    out.insert(key.into(), value.clone());
                }
            }
            let Some(schema_value) = param.value.get("schema") else {
                return Err(LowerError::new(
                    &param.at,
                    "a body parameter has no `schema`",
                    "give the body parameter a `schema`",
                ));
            };
            let mut content = Map::new();
            let defaults = [("application/json".to_owned(), param.at.clone())];
            let medias = consumes.as_deref().unwrap_or(&defaults);
            for (media, media_at) in medias {
                let media_now = now.join("content").join(media);
                self.moved(media_now.clone(), media_at);
                let schema_at = param.at.join("schema");
                self.moved(media_now.join("schema"), &schema_at);
                let converted = schema(
                    schema_value,
                    &schema_at,
                    &media_now.join("schema"),
                    &mut self.notes,
                );
                content.insert(media.clone(), json!({ "schema": converted }));
            }
            out.insert("content".into(), Value::Object(content));
            copy_extensions(param.value, &mut out);
            self.moved(now, &param.at);
            return Ok(Some(Value::Object(out)));
        }
        if form.is_empty() {
            return Ok(None);
        }
        let mut properties = Map::new();
        let mut required = Vec::new();
        let mut property_moves = Vec::new();
        for field in &form {
            let Some(name) = field.value.get("name").and_then(Value::as_str) else {
                return Err(LowerError::new(
                    &field.at,
                    "a form field has no `name`",
                    "name the field",
                ));
            };
            let mut property = self.simple_schema(field.value, &field.at, true)?;
            if let (Some(description), Some(map)) =
                (field.value.get("description"), property.as_object_mut())
            {
                map.insert("description".into(), description.clone());
            }
            if field.value.get("required") == Some(&Value::Bool(true)) {
                required.push(Value::String(name.to_owned()));
            }
            property_moves.push((name.to_owned(), field.at.clone()));
            properties.insert(name.to_owned(), property);
        }
        let files = form
            .iter()
            .any(|f| f.value.get("type").and_then(Value::as_str) == Some("file"));
        let mut medias: Vec<(String, Pointer)> = consumes
            .iter()
            .flatten()
            .filter(|(media, _)| {
                let essence = media.split(';').next().unwrap_or("").trim();
                essence.eq_ignore_ascii_case(MULTIPART)
                    || (!files && essence.eq_ignore_ascii_case(FORM))
            })
            .cloned()
            .collect();
        if medias.is_empty() {
            let media = if files { MULTIPART } else { FORM };
            medias.push((media.to_owned(), form[0].at.clone()));
        }
        let mut object = Map::new();
        object.insert("type".into(), Value::String("object".into()));
        object.insert("properties".into(), Value::Object(properties));
        if !required.is_empty() {
            object.insert("required".into(), Value::Array(required));
        }
        let object = Value::Object(object);
        // A form field's array is joined as its `collectionFormat` says
        // (`csv` by default): in a URL-encoded form, the 3.0 `encoding`
        // that says the same; a multipart part cannot be joined so.
        let mut encoding = Map::new();
        let mut unjoined = Vec::new();
        for field in &form {
            if field.value.get("type").and_then(Value::as_str) != Some("array") {
                continue;
            }
            let Some(name) = field.value.get("name").and_then(Value::as_str) else {
                continue;
            };
            let style = match field
                .value
                .get("collectionFormat")
                .and_then(Value::as_str)
                .unwrap_or("csv")
            {
                "multi" => continue,
                "csv" => "form",
                "ssv" => "spaceDelimited",
                "pipes" => "pipeDelimited",
                _ => {
                    unjoined.push(field.at.clone());
                    continue;
                }
            };
            encoding.insert(name.to_owned(), json!({ "style": style, "explode": false }));
            unjoined.push(field.at.clone());
        }
        let mut content = Map::new();
        for (media, media_at) in medias {
            let media_now = now.join("content").join(&media);
            let schema_now = media_now.join("schema");
            self.moved(media_now, &media_at);
            self.moved(schema_now.clone(), &form[0].list);
            for (name, from) in &property_moves {
                self.moved(schema_now.join("properties").join(name), from);
            }
            let essence = media.split(';').next().unwrap_or("").trim();
            if essence.eq_ignore_ascii_case(FORM) && !encoding.is_empty() {
                content.insert(
                    media,
                    json!({ "schema": object, "encoding": Value::Object(encoding.clone()) }),
                );
            } else {
                if essence.eq_ignore_ascii_case(MULTIPART) {
                    for at in &unjoined {
                        self.notes.warnings.push(LowerError::new(
                            at,
                            "a multipart field's array is sent as repeated parts (`collectionFormat: multi`), not joined as the document says",
                            "write `collectionFormat: multi`, or send the list joined in a string field",
                        ));
                    }
                }
                content.insert(media, json!({ "schema": object }));
            }
        }
        self.moved(now, &form[0].at);
        let required = form
            .iter()
            .any(|f| f.value.get("required") == Some(&Value::Bool(true)));
        Ok(Some(json!({ "required": required, "content": content })))
    }

    /// A query, path or header parameter (or a `$ref` to one).
    fn parameter(
        &mut self,
        param: &Map<String, Value>,
        at: &Pointer,
        now: &Pointer,
    ) -> Result<Value> {
        self.moved(now.clone(), at);
        if let Some(target) = param.get("$ref") {
            let mut out = param.clone();
            if let Value::String(target) = target {
                out.insert("$ref".into(), Value::String(reference(target)));
            }
            return Ok(Value::Object(out));
        }
        let place = location(param);
        if place == Some("formData") || place == Some("body") {
            // Only reached through a `$ref` this converter could not
            // follow (to another file): 3.0 has no such parameter.
            return Err(LowerError::new(
                at,
                "a body or form parameter where 3.0 has none",
                "write the parameter into the operation",
            ));
        }
        let mut out = Map::new();
        for (key, value) in param {
            if SCHEMA_KEYWORDS.contains(&key.as_str()) || key == "collectionFormat" {
                continue;
            }
            out.insert(key.clone(), value.clone());
        }
        let is_array = param.get("type").and_then(Value::as_str) == Some("array");
        if is_array {
            let format = param
                .get("collectionFormat")
                .and_then(Value::as_str)
                .unwrap_or("csv");
            let query = place == Some("query");
            let style = match (format, query) {
                ("csv", true) => Some(("form", false)),
                ("multi", true) => Some(("form", true)),
                ("ssv", true) => Some(("spaceDelimited", false)),
                ("pipes", true) => Some(("pipeDelimited", false)),
                ("csv", false) => Some(("simple", false)),
                _ => None,
            };
            let Some((style, explode)) = style else {
                let in_where = place.unwrap_or("this place");
                return Err(LowerError::new(
                    &at.join("collectionFormat"),
                    format!(
                        "`collectionFormat: {format}` in {in_where} has no OpenAPI 3 style, so the parameter cannot be sent as written"
                    ),
                    "use `csv` (or, in a query, `multi`, `ssv` or `pipes`)",
                ));
            };
            out.insert("style".into(), Value::String(style.into()));
            out.insert("explode".into(), Value::Bool(explode));
        }
        let schema = self.simple_schema(param, at, false)?;
        out.insert("schema".into(), schema);
        self.moved(now.join("schema"), at);
        Ok(Value::Object(out))
    }

    /// The schema of a non-body parameter, a header or `items`: its
    /// schema keywords (`type: file` a binary string, in a form only).
    fn simple_schema(
        &mut self,
        param: &Map<String, Value>,
        at: &Pointer,
        form: bool,
    ) -> Result<Value> {
        let mut out = Map::new();
        for (key, value) in param {
            match key.as_str() {
                "type" if value.as_str() == Some("file") => {
                    if !form {
                        return Err(LowerError::new(
                            &at.join("type"),
                            "`type: file` outside a form field",
                            "send a file as a form field (`in: formData`), or a body of `type: string, format: binary`",
                        ));
                    }
                    out.insert(key.clone(), Value::String("string".into()));
                    out.insert("format".into(), Value::String("binary".into()));
                }
                "format" if out.get("format").is_some() => {}
                "items" => {
                    let Some(items) = value.as_object() else {
                        return Err(not_a_mapping(&at.join("items"), "`items`"));
                    };
                    if let Some(Value::String(target)) = items.get("$ref") {
                        out.insert(key.clone(), json!({ "$ref": reference(target) }));
                        continue;
                    }
                    let items_at = at.join("items");
                    if items.get("type").and_then(Value::as_str) == Some("array")
                        && items
                            .get("collectionFormat")
                            .is_some_and(|f| f.as_str() != Some("csv"))
                    {
                        self.notes.warnings.push(LowerError::new(
                            &items_at.join("collectionFormat"),
                            "the `collectionFormat` of nested items is not converted: the inner arrays are sent as JSON",
                            "send one level of array, or the value as a JSON string",
                        ));
                    }
                    let converted = self.simple_schema(items, &items_at, false)?;
                    out.insert(key.clone(), converted);
                }
                "x-nullable" => {
                    out.insert("nullable".into(), value.clone());
                }
                k if SCHEMA_KEYWORDS.contains(&k) => {
                    out.insert(key.clone(), value.clone());
                }
                _ => {}
            }
        }
        Ok(Value::Object(out))
    }

    fn response(
        &mut self,
        response: &Value,
        at: &Pointer,
        now: &Pointer,
        produces: &MediaTypes,
    ) -> Result<Value> {
        self.moved(now.clone(), at);
        let Some(response) = response.as_object() else {
            return Err(not_a_mapping(at, "a response"));
        };
        if let Some(target) = response.get("$ref") {
            let mut out = response.clone();
            if let Value::String(target) = target {
                out.insert("$ref".into(), Value::String(reference(target)));
            }
            return Ok(Value::Object(out));
        }
        let mut out = Map::new();
        for (key, value) in response {
            match key.as_str() {
                "schema" => {
                    let defaults = [("application/json".to_owned(), at.join("schema"))];
                    let medias = produces.as_deref().unwrap_or(&defaults);
                    let examples = response.get("examples").and_then(Value::as_object);
                    let mut content = Map::new();
                    for (media, media_at) in medias {
                        let media_now = now.join("content").join(media);
                        self.moved(media_now.clone(), media_at);
                        self.moved(media_now.join("schema"), &at.join("schema"));
                        let converted = schema(
                            value,
                            &at.join("schema"),
                            &media_now.join("schema"),
                            &mut self.notes,
                        );
                        let mut entry = Map::new();
                        entry.insert("schema".into(), converted);
                        if let Some(example) = examples.and_then(|e| e.get(media)) {
                            entry.insert("example".into(), example.clone());
                            self.moved(media_now.join("example"), &at.join("examples").join(media));
                        }
                        content.insert(media.clone(), Value::Object(entry));
                    }
                    out.insert("content".into(), Value::Object(content));
                }
                "examples" => {}
                "headers" => {
                    let Some(headers) = value.as_object() else {
                        return Err(not_a_mapping(&at.join(key), "`headers`"));
                    };
                    let mut converted = Map::new();
                    for (name, header) in headers {
                        let header_at = at.join("headers").join(name);
                        let header_now = now.join("headers").join(name);
                        let Some(header) = header.as_object() else {
                            return Err(not_a_mapping(&header_at, "a header"));
                        };
                        let mut entry = Map::new();
                        for (key, value) in header {
                            if !SCHEMA_KEYWORDS.contains(&key.as_str()) && key != "collectionFormat"
                            {
                                entry.insert(key.clone(), value.clone());
                            }
                        }
                        let header_schema = self.simple_schema(header, &header_at, false)?;
                        entry.insert("schema".into(), header_schema);
                        self.moved(header_now.join("schema"), &header_at);
                        converted.insert(name.clone(), Value::Object(entry));
                    }
                    out.insert(key.clone(), Value::Object(converted));
                }
                _ => {
                    out.insert(key.clone(), value.clone());
                }
            }
        }
        Ok(Value::Object(out))
    }

    fn security_scheme(&mut self, scheme: &Value, at: &Pointer, now: &Pointer) -> Result<Value> {
        self.moved(now.clone(), at);
        let Some(scheme) = scheme.as_object() else {
            return Err(not_a_mapping(at, "a security scheme"));
        };
        let kind = scheme.get("type").and_then(Value::as_str).unwrap_or("");
        let mut out = Map::new();
        let copy = |out: &mut Map<String, Value>, keys: &[&str]| {
            for key in keys {
                if let Some(value) = scheme.get(*key) {
                    out.insert((*key).into(), value.clone());
                }
            }
        };
        match kind {
            "basic" => {
                out.insert("type".into(), Value::String("http".into()));
                out.insert("scheme".into(), Value::String("basic".into()));
                copy(&mut out, &["description"]);
            }
            "apiKey" => copy(&mut out, &["type", "name", "in", "description"]),
            "oauth2" => {
                out.insert("type".into(), Value::String("oauth2".into()));
                copy(&mut out, &["description"]);
                let flow = scheme.get("flow").and_then(Value::as_str).unwrap_or("");
                let (name, urls): (&str, &[&str]) = match flow {
                    "implicit" => ("implicit", &["authorizationUrl"]),
                    "password" => ("password", &["tokenUrl"]),
                    "application" => ("clientCredentials", &["tokenUrl"]),
                    "accessCode" => ("authorizationCode", &["authorizationUrl", "tokenUrl"]),
                    _ => {
                        return Err(LowerError::new(
                            &if scheme.get("flow").is_some() {
                                at.join("flow")
                            } else {
                                at.clone()
                            },
                            "an OAuth 2 scheme's `flow` is none of `implicit`, `password`, `application`, `accessCode`",
                            "name the scheme's flow",
                        ));
                    }
                };
                let mut body = Map::new();
                for url in urls {
                    if let Some(value) = scheme.get(*url) {
                        body.insert((*url).into(), value.clone());
                    }
                }
                body.insert(
                    "scopes".into(),
                    scheme.get("scopes").cloned().unwrap_or_else(|| json!({})),
                );
                let flow_now = now.join("flows").join(name);
                self.moved(flow_now.join("scopes"), &at.join("scopes"));
                for url in urls {
                    self.moved(flow_now.join(url), &at.join(url));
                }
                self.moved(flow_now, &at.join("flow"));
                out.insert("flows".into(), json!({ name: body }));
            }
            _ => {
                // At `type` when it is written, else at the scheme.
                let type_at = if scheme.get("type").is_some() {
                    at.join("type")
                } else {
                    at.clone()
                };
                return Err(LowerError::new(
                    &type_at,
                    "a security scheme's `type` is none of `basic`, `apiKey`, `oauth2`",
                    "give the scheme one of the Swagger 2.0 types",
                ));
            }
        }
        copy_extensions(scheme, &mut out);
        Ok(Value::Object(out))
    }
}

fn location(param: &Map<String, Value>) -> Option<&str> {
    param.get("in").and_then(Value::as_str)
}

fn param_is_body(param: &Param) -> bool {
    matches!(location(param.value), Some("body" | "formData"))
}

fn copy_extensions(from: &Map<String, Value>, to: &mut Map<String, Value>) {
    for (key, value) in from {
        if key.starts_with("x-") {
            to.insert(key.clone(), value.clone());
        }
    }
}

fn not_a_mapping(at: &Pointer, what: &str) -> LowerError {
    LowerError::new(
        at,
        format!("{what} is not a mapping"),
        "compare the node with the Swagger 2.0 specification",
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::normalize::moved;

    fn p(text: &str) -> Pointer {
        Pointer::from_ref(&format!("#{text}")).unwrap()
    }

    fn convert_yaml(text: &str) -> Converted {
        convert(&serde_yaml::from_str(text).unwrap()).unwrap()
    }

    #[test]
    fn a_body_parameter_becomes_the_request_body_and_points_back() {
        let converted = convert_yaml(
            r##"
swagger: "2.0"
info: { title: t, version: "1" }
consumes: [application/json, text/plain]
paths:
  /a:
    post:
      parameters:
        - { name: q, in: query, type: array, items: { type: string }, collectionFormat: pipes }
        - { name: b, in: body, required: true, schema: { $ref: "#/definitions/B" } }
        - { name: h, in: header, type: integer }
      responses:
        "200": { description: ok, schema: { type: file } }
definitions:
  B: { type: object, discriminator: kind, properties: { kind: { type: string } } }
"##,
        );
        let doc = &converted.document;
        let op = &doc["paths"]["/a"]["post"];
        assert_eq!(op["parameters"][0]["style"], "pipeDelimited");
        assert_eq!(op["parameters"][1]["name"], "h");
        assert_eq!(
            op["requestBody"]["content"]["text/plain"]["schema"]["$ref"],
            "#/components/schemas/B"
        );
        assert_eq!(
            doc["components"]["schemas"]["B"]["discriminator"]["propertyName"],
            "kind"
        );
        let moves = &converted.moves;
        let back = |at: &str| moved(moves, &p(at)).to_string();
        assert_eq!(
            back("/paths/~1a/post/parameters/1/schema"),
            "/paths/~1a/post/parameters/2"
        );
        assert_eq!(
            back("/paths/~1a/post/requestBody/content/text~1plain/schema/$ref"),
            "/paths/~1a/post/parameters/1/schema/$ref"
        );
        assert_eq!(
            back("/paths/~1a/post/requestBody/content/text~1plain"),
            "/consumes/1"
        );
        assert_eq!(
            back("/components/schemas/B/properties"),
            "/definitions/B/properties"
        );
        assert_eq!(
            back("/paths/~1a/post/responses/200/content/application~1json/schema/format"),
            "/paths/~1a/post/responses/200/schema/format"
        );
        assert_eq!(back("/info/title"), "/info/title");
    }

    #[test]
    fn unconvertible_constructs_are_refused_where_written() {
        let refused = |text: &str| convert(&serde_yaml::from_str(text).unwrap()).unwrap_err();
        let e = refused(
            "swagger: '2.0'\npaths:\n  /a:\n    get:\n      parameters:\n        - { name: q, in: query, type: array, items: { type: string }, collectionFormat: tsv }\n",
        );
        assert_eq!(
            e.pointer.to_string(),
            "/paths/~1a/get/parameters/0/collectionFormat"
        );
        let e = refused("swagger: 2.0\n");
        assert_eq!(e.pointer.to_string(), "/swagger");
        assert!(e.message.contains("a number"), "{}", e.message);
    }
}
