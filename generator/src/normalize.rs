//! The raw document (a JSON value) checked and brought to the shape that
//! `openapiv3` reads, before it is read.
//!
//! `openapiv3` is lenient where this generator must not be: it drops response
//! keys that are not status codes, turns a schema with a misspelt keyword or
//! a non-string `$ref` into "any JSON", ignores `allOf` next to `type`, and
//! knows only OpenAPI 3.0. This pass, on the `serde_json::Value` of the
//! document:
//!
//! - refuses a response key that is neither a status code (`100`–`599`), a
//!   range (`1XX`–`5XX`), `default` nor an extension (`x-…`);
//! - refuses a `$ref` that is not a string, and a schema keyword that
//!   neither OpenAPI 3.0 nor (in a 3.1 document) JSON Schema 2020-12 knows;
//! - converts OpenAPI 3.1 schemas to the 3.0 shape: `type: [T, "null"]` →
//!   `type: T, nullable: true`; `const: v` → `enum: [v]`; a `{type: "null"}`
//!   member of `oneOf`/`anyOf` → `nullable: true`; numeric
//!   `exclusiveMinimum`/`exclusiveMaximum` → the 3.0 boolean form; the
//!   annotations `examples`, `$schema`, `$id`, `$comment`,
//!   `contentMediaType`, `contentEncoding` dropped; `webhooks` dropped (a
//!   client does not receive them); a missing `responses` made empty; and
//!   refuses the rest of
//!   JSON Schema 2020-12 (`prefixItems`, `if`, `patternProperties`, …),
//!   naming the keyword and its pointer;
//! - makes implicit types explicit (`properties` without `type` is an
//!   object, `items` an array, an `enum` of strings a string), and moves the
//!   structural keywords that sit beside `allOf` into one more `allOf`
//!   member, so that nothing is ignored.

use serde_json::{Map, Value};

use crate::error::{LowerError, Pointer};

type Result<T> = std::result::Result<T, LowerError>;

/// The extension marking the `allOf` member made of keywords that stood
/// beside `allOf`, so that messages about it point where they are written.
pub const SIBLINGS: &str = "x-generator-siblings";

/// The extension marking the place of a `{type: "null"}` member of a 3.1
/// `oneOf`/`anyOf`, which lowering skips (the whole is made `nullable`).
pub const NULL_MEMBER: &str = "x-generator-null";

/// The extension marking a 3.1 `type: mutualTLS` security scheme, which
/// `openapiv3` cannot read, written as `{type: http, scheme: mutualTLS}`.
pub const MUTUAL_TLS: &str = "x-generator-mutual-tls";

/// Which OpenAPI the document says it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Version {
    V30,
    V31,
    /// OpenAPI 3.2: 3.1's schemas, with additions named where met.
    V32,
}

impl Version {
    /// 3.1 or later: JSON Schema 2020-12 schemas.
    fn json_schema(self) -> bool {
        self != Version::V30
    }
}

/// Schema keywords of OpenAPI 3.0 (the Schema Object).
const KEYWORDS_30: &[&str] = &[
    "title",
    "multipleOf",
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
    "maxProperties",
    "minProperties",
    "required",
    "enum",
    "type",
    "allOf",
    "oneOf",
    "anyOf",
    "not",
    "items",
    "properties",
    "additionalProperties",
    "description",
    "format",
    "default",
    "nullable",
    "discriminator",
    "readOnly",
    "writeOnly",
    "xml",
    "externalDocs",
    "example",
    "deprecated",
    "$ref",
    // JSON Schema's, met in 3.0 documents too; dropped (see
    // `drop_inapplicable`).
    "propertyNames",
];

/// Keywords that shape the Rust type: one misspelt is an error, where a
/// misspelt validation keyword (`maxLenght`) is ignored with a warning.
const STRUCTURAL: &[&str] = &[
    "type",
    "properties",
    "items",
    "required",
    "additionalProperties",
    "allOf",
    "oneOf",
    "anyOf",
    "not",
    "enum",
    "nullable",
    "format",
    "discriminator",
    "$ref",
];

/// Annotations of JSON Schema 2020-12 that do not change the Rust type.
const ANNOTATIONS_31: &[&str] = &[
    "examples",
    "$schema",
    "$id",
    "$comment",
    "$anchor",
    "contentMediaType",
    "contentEncoding",
];

/// JSON Schema 2020-12 keywords that only validate, or say more than a
/// Rust type can: dropped with a warning at their pointer (the value is
/// still read, just not checked as strictly).
const VALIDATION_ONLY: &[&str] = &[
    "unevaluatedProperties",
    "unevaluatedItems",
    "if",
    "then",
    "else",
    "dependentRequired",
    "dependentSchemas",
    "contains",
    "minContains",
    "maxContains",
    "contentSchema",
    "$vocabulary",
    "$dynamicAnchor",
];

/// Containers of schemas that are only reached by `$ref`: references into
/// them were copied under `components/schemas` by [`crate::resolve`].
const CONTAINERS: &[&str] = &["$defs", "definitions"];

/// Keywords whose values are data, not schemas or references.
const DATA_KEYWORDS: &[&str] = &["example", "examples", "default", "enum", "const"];

/// Checks and converts `doc` in place.
/// Gives the warnings: what was ignored (a keyword no schema vocabulary
/// knows, and not a misspelling of one).
pub fn normalize(doc: &mut Value, version: Version) -> Result<Normalized> {
    let walker = Walker {
        version,
        tuple_items: Default::default(),
        warnings: Default::default(),
        moves: Default::default(),
    };
    match walk(doc, &walker) {
        Ok(()) => Ok(Normalized {
            warnings: walker.warnings.into_inner(),
            moves: walker.moves.into_inner(),
        }),
        Err(mut e) => {
            e.pointer = moved(&walker.moves.borrow(), &e.pointer);
            Err(e)
        }
    }
}

/// What normalising gives beside the document.
#[derive(Debug, Default)]
pub struct Normalized {
    /// What was ignored, each at the pointer where it is written.
    pub warnings: Vec<LowerError>,
    /// Nodes moved: (where it is now, where it is written); read by
    /// [`moved`].
    pub moves: Vec<(Pointer, Pointer)>,
}

/// Where the node now at `at` is written: the move with the longest prefix
/// of `at` undone.
pub fn moved(moves: &[(Pointer, Pointer)], at: &Pointer) -> Pointer {
    let segments = at.segments();
    moves
        .iter()
        .filter(|(now, _)| segments.starts_with(now.segments()))
        .max_by_key(|(now, _)| now.segments().len())
        .map_or_else(
            || at.clone(),
            |(now, from)| {
                segments[now.segments().len()..]
                    .iter()
                    .fold(from.clone(), |pointer, segment| pointer.join(segment))
            },
        )
}

fn walk(doc: &mut Value, walker: &Walker) -> Result<()> {
    let version = walker.version;
    check_refs(doc, &Pointer::root())?;
    let root = Pointer::root();
    let Some(map) = doc.as_object_mut() else {
        return Ok(());
    };
    if !map.contains_key("info") {
        // Required, and says nothing a client needs: read without it.
        map.insert(
            "info".into(),
            serde_json::json!({ "title": "", "version": "" }),
        );
        walker.warnings.borrow_mut().push(LowerError::new(
            &root,
            "the document has no `info`, which OpenAPI requires; it is read without a title or version",
            "add `info: { title: ..., version: ... }`",
        ));
    }
    if version.json_schema() {
        map.insert("openapi".into(), Value::String("3.0.3".into()));
        // 3.1 additions with no part in a client.
        map.remove("webhooks");
        map.remove("jsonSchemaDialect");
        if !map.contains_key("paths") {
            map.insert("paths".into(), Value::Object(Map::new()));
        }
        if let Some(info) = map.get_mut("info").and_then(Value::as_object_mut) {
            info.remove("summary");
            if let Some(license) = info.get_mut("license").and_then(Value::as_object_mut) {
                license.remove("identifier");
            }
        }
    }
    if let Some(components) = map.get_mut("components").and_then(Value::as_object_mut) {
        let at = root.join("components");
        if version.json_schema() {
            components.remove("pathItems");
            components.remove("mediaTypes");
            if let Some(schemes) = components
                .get_mut("securitySchemes")
                .and_then(Value::as_object_mut)
            {
                for scheme in schemes.values_mut() {
                    if let Some(map) = scheme.as_object_mut()
                        && map.get("type").is_some_and(|t| t == "mutualTLS")
                    {
                        map.insert("type".into(), Value::String("http".into()));
                        map.insert("scheme".into(), Value::String("mutualTLS".into()));
                        map.insert(MUTUAL_TLS.into(), Value::Bool(true));
                    }
                }
            }
        }
        for (section, kind) in [
            ("schemas", Kind::Schema),
            ("parameters", Kind::Parameter),
            ("headers", Kind::Parameter),
            ("responses", Kind::Response),
            ("requestBodies", Kind::Body),
        ] {
            if let Some(items) = components.get_mut(section).and_then(Value::as_object_mut) {
                let at = at.join(section);
                for (name, item) in items.iter_mut() {
                    walker.node(item, kind, &at.join(name))?;
                }
            }
        }
    }
    if let Some(paths) = map.get_mut("paths").and_then(Value::as_object_mut) {
        let at = root.join("paths");
        // A path must start with `/`; `openapiv3` drops any other key
        // without a word. Read as the path it would be, with a warning.
        if paths
            .keys()
            .any(|key| !key.starts_with('/') && !key.starts_with("x-"))
        {
            let written = std::mem::take(paths);
            for (key, item) in written {
                if key.starts_with('/')
                    || key.starts_with("x-")
                    || paths.contains_key(&format!("/{key}"))
                {
                    if !key.starts_with('/') && !key.starts_with("x-") {
                        walker.warnings.borrow_mut().push(LowerError::new(
                            &at.join(&key),
                            format!("the path `{key}` does not start with `/`, and `/{key}` is written too; it is left out of the client"),
                            "start every path with `/`",
                        ));
                        continue;
                    }
                    paths.insert(key, item);
                    continue;
                }
                let fixed = format!("/{key}");
                walker.warnings.borrow_mut().push(LowerError::new(
                    &at.join(&key),
                    format!("the path `{key}` does not start with `/`; it is read as `{fixed}`"),
                    "start every path with `/`",
                ));
                walker
                    .moves
                    .borrow_mut()
                    .push((at.join(&fixed), at.join(&key)));
                paths.insert(fixed, item);
            }
        }
        for (path, item) in paths.iter_mut() {
            walker.path_item(item, &at.join(path))?;
        }
    }
    Ok(())
}

/// Every `$ref` outside data must be a string.
fn check_refs(value: &Value, at: &Pointer) -> Result<()> {
    match value {
        Value::Object(map) => {
            if let Some(reference) = map.get("$ref")
                && !reference.is_string()
            {
                return Err(LowerError::new(
                    &at.join("$ref"),
                    format!("`$ref` must be a string, and here it is `{reference}`"),
                    "write the reference as a string, e.g. `$ref: \"#/components/schemas/Pet\"`",
                ));
            }
            for (key, value) in map {
                if DATA_KEYWORDS.contains(&key.as_str()) || key.starts_with("x-") {
                    continue;
                }
                match (key.as_str(), value) {
                    // Keys of `properties` are names (a property may be
                    // called `$ref`): check what each names.
                    ("properties", Value::Object(properties)) => {
                        for (name, property) in properties {
                            check_refs(property, &at.join(key).join(name))?;
                        }
                    }
                    _ => check_refs(value, &at.join(key))?,
                }
            }
            Ok(())
        }
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                check_refs(item, &at.join(i))?;
            }
            Ok(())
        }
        _ => Ok(()),
    }
}

#[derive(Debug, Clone, Copy)]
enum Kind {
    Schema,
    Parameter,
    Response,
    Body,
}

struct Walker {
    version: Version,
    /// Schemas whose `items` was a draft-4 tuple (read as `prefixItems`).
    tuple_items: std::cell::RefCell<Vec<Pointer>>,
    /// What was ignored, each with its node.
    warnings: std::cell::RefCell<Vec<LowerError>>,
    /// Nodes moved to where `openapiv3` reads them (`prefixItems` into
    /// `items`): (now, written).
    moves: std::cell::RefCell<Vec<(Pointer, Pointer)>>,
}

const METHODS: &[&str] = &[
    "get", "put", "post", "delete", "options", "head", "patch", "trace",
];

impl Walker {
    fn node(&self, value: &mut Value, kind: Kind, at: &Pointer) -> Result<()> {
        if is_reference(value) {
            return Ok(());
        }
        match kind {
            Kind::Schema => self.schema(value, at),
            Kind::Parameter => self.parameter(value, at),
            Kind::Response => self.response(value, at),
            Kind::Body => self.content(value, at),
        }
    }

    fn path_item(&self, item: &mut Value, at: &Pointer) -> Result<()> {
        let Some(item) = item.as_object_mut() else {
            return Ok(());
        };
        if let Some(params) = item.get_mut("parameters").and_then(Value::as_array_mut) {
            for (i, param) in params.iter_mut().enumerate() {
                self.node(param, Kind::Parameter, &at.join("parameters").join(i))?;
            }
        }
        for (key, what) in [
            ("query", "the `query` method"),
            ("additionalOperations", "operations of other methods"),
        ] {
            if item.contains_key(key) && self.version == Version::V32 {
                self.warnings.borrow_mut().push(LowerError::new(
                    &at.join(key),
                    format!("{what} (OpenAPI 3.2) cannot be sent by this client; left out"),
                    "call it with the client's transport directly",
                ));
            }
        }
        for method in METHODS {
            let Some(operation) = item.get_mut(*method).and_then(Value::as_object_mut) else {
                continue;
            };
            let at = at.join(method);
            if self.version.json_schema() && !operation.contains_key("responses") {
                // 3.1 makes `responses` optional: none documented.
                operation.insert("responses".into(), Value::Object(Map::new()));
            }
            if let Some(params) = operation
                .get_mut("parameters")
                .and_then(Value::as_array_mut)
            {
                for (i, param) in params.iter_mut().enumerate() {
                    self.node(param, Kind::Parameter, &at.join("parameters").join(i))?;
                }
            }
            if let Some(body) = operation.get_mut("requestBody") {
                self.node(body, Kind::Body, &at.join("requestBody"))?;
            }
            if let Some(responses) = operation
                .get_mut("responses")
                .and_then(Value::as_object_mut)
            {
                let at = at.join("responses");
                for (key, response) in responses.iter_mut() {
                    check_status_key(key, &at.join(key))?;
                    self.node(response, Kind::Response, &at.join(key))?;
                }
            }
        }
        Ok(())
    }

    fn parameter(&self, param: &mut Value, at: &Pointer) -> Result<()> {
        if let Some(schema) = param.get_mut("schema") {
            self.schema(schema, &at.join("schema"))?;
        }
        self.content(param, at)
    }

    /// `content.*.schema` of a body, response or parameter.
    fn content(&self, value: &mut Value, at: &Pointer) -> Result<()> {
        let Some(content) = value.get_mut("content").and_then(Value::as_object_mut) else {
            return Ok(());
        };
        for (media, media_type) in content.iter_mut() {
            if let Some(schema) = media_type.get_mut("schema") {
                self.schema(schema, &at.join("content").join(media).join("schema"))?;
            }
            // An encoding's `explode` defaults to true for `style: form`
            // and false for the others, and `style` to `form` where
            // `explode` is given: made explicit here, since `openapiv3`
            // reads a missing `explode` as false.
            if let Some(encoding) = media_type
                .get_mut("encoding")
                .and_then(Value::as_object_mut)
            {
                for entry in encoding.values_mut().filter_map(Value::as_object_mut) {
                    match (entry.get("style").cloned(), entry.contains_key("explode")) {
                        (Some(style), false) => {
                            entry.insert("explode".into(), Value::Bool(style == "form"));
                        }
                        (None, true) => {
                            entry.insert("style".into(), Value::String("form".into()));
                        }
                        _ => {}
                    }
                }
            }
        }
        Ok(())
    }

    fn response(&self, response: &mut Value, at: &Pointer) -> Result<()> {
        if let Some(map) = response.as_object_mut()
            && !map.contains_key("description")
        {
            // Required by every version before 3.2, and often missing: the
            // response is read without one, and the message names it.
            map.insert("description".into(), Value::String(String::new()));
            if self.version != Version::V32 {
                self.warnings.borrow_mut().push(LowerError::new(
                    at,
                    "the response has no `description`, which this OpenAPI version requires; it is read without one",
                    "describe the response in a word or two",
                ));
            }
        }
        if let Some(headers) = response.get_mut("headers").and_then(Value::as_object_mut) {
            for (name, header) in headers.iter_mut() {
                self.node(header, Kind::Parameter, &at.join("headers").join(name))?;
            }
        }
        self.content(response, at)
    }

    fn schema(&self, schema: &mut Value, at: &Pointer) -> Result<()> {
        let Some(map) = schema.as_object_mut() else {
            if schema.is_boolean() && self.version.json_schema() {
                // JSON Schema 2020-12: `true` allows every value, `false`
                // none (`not: {}`, read as any JSON value by lowering,
                // with its warning).
                *schema = if schema == &Value::Bool(true) {
                    Value::Object(Map::new())
                } else {
                    // Its `not` is written nowhere: messages name `false`.
                    let written = moved(&self.moves.borrow(), at);
                    self.moves.borrow_mut().push((at.join("not"), written));
                    serde_json::json!({ "not": {} })
                };
                return Ok(());
            }
            return Err(LowerError::new(
                at,
                format!("a schema must be an object, and here it is `{schema}`"),
                "write the schema as a mapping, e.g. `{ type: string }`",
            ));
        };
        if map.contains_key("$ref") {
            // Siblings of `$ref` are ignored in 3.0, and annotations in 3.1.
            return Ok(());
        }
        if self.version == Version::V30 {
            self.bend_30(map, at);
        }
        self.tuple(map, at);
        if self.version.json_schema() {
            if map.remove("$recursiveAnchor").is_some() {
                // Draft 2019-09's recursion: `$recursiveRef: "#"` below
                // means this schema, which a `$ref` to where it is says.
                let target = format!("#{at}");
                for value in map.values_mut() {
                    recursive_refs_to(value, &target);
                }
            }
            self.convert_31(map, at)?;
        }
        let moved = self.moves.borrow().len();
        self.json_schema_2020(map, at);
        if self.tuple_items.borrow().contains(at) {
            // Written as `items/N`, not `prefixItems/N`: the moves say so,
            // and the tuple is warned of once, at `items`.
            let prefix = at.join("prefixItems");
            let written = |p: &Pointer| {
                let segments = p.segments();
                if segments.starts_with(prefix.segments()) {
                    segments[prefix.segments().len()..]
                        .iter()
                        .fold(at.join("items"), |p, s| p.join(s))
                } else {
                    p.clone()
                }
            };
            for (_, from) in self.moves.borrow_mut()[moved..].iter_mut() {
                *from = written(from);
            }
            self.warnings.borrow_mut().retain(|w| w.pointer != prefix);
        }
        // Not a keyword of any vocabulary this generator reads, or a
        // misspelling of one (`min_items`, `additional_properties`):
        // ignored with a warning, as JSON Schema ignores unknown keywords
        // (`--strict` refuses it). A misspelt keyword that shapes the type
        // says so in its warning, since the type is not what was meant.
        let ignored: Vec<(String, Option<&str>)> = map
            .keys()
            .filter(|key| !KEYWORDS_30.contains(&key.as_str()) && !key.starts_with("x-"))
            .map(|key| (key.clone(), suggestion(key)))
            .collect();
        for (key, known) in ignored {
            let hint = match known {
                Some(known) => format!("did you mean `{known}`?"),
                None => "remove it, or prefix it with `x-` if it is an extension".into(),
            };
            let message = match known {
                Some(known) if STRUCTURAL.contains(&known) => format!(
                    "`{key}` is not a schema keyword; it is ignored, so the type is read without it"
                ),
                _ => format!("`{key}` is not a schema keyword; it is ignored"),
            };
            self.warnings
                .borrow_mut()
                .push(LowerError::new(&at.join(&key), message, hint));
            map.remove(&key);
        }
        self.drop_object_constraints(map, at);
        make_types_explicit(map);
        drop_inapplicable(map);
        // Sub-schemas.
        for key in ["items", "not", "additionalProperties"] {
            if let Some(sub) = map.get_mut(key)
                && !sub.is_boolean()
            {
                self.schema(sub, &at.join(key))?;
            }
        }
        if let Some(properties) = map.get_mut("properties") {
            let Some(properties) = properties.as_object_mut() else {
                return Err(LowerError::new(
                    &at.join("properties"),
                    "`properties` must be a mapping of names to schemas",
                    "write `properties` as a mapping",
                ));
            };
            // A property whose schema is `false` can never be present:
            // no field stands for it.
            if self.version.json_schema() {
                properties.retain(|_, property| property != &Value::Bool(false));
            }
            for (name, property) in properties.iter_mut() {
                self.schema(property, &at.join("properties").join(name))?;
            }
        }
        for key in ["allOf", "oneOf", "anyOf"] {
            if let Some(members) = map.get_mut(key) {
                let Some(members) = members.as_array_mut() else {
                    return Err(LowerError::new(
                        &at.join(key),
                        format!("`{key}` must be a list of schemas"),
                        "write it as a list",
                    ));
                };
                for (i, member) in members.iter_mut().enumerate() {
                    // The member made of keywords beside `allOf` is written
                    // in this schema.
                    let made = member.get(SIBLINGS).is_some();
                    let member_at = if made {
                        at.clone()
                    } else {
                        at.join(key).join(i)
                    };
                    self.schema(member, &member_at)?;
                }
            }
        }
        Ok(())
    }

    /// Beside an object's `properties`, a `not`, `anyOf` or `oneOf` whose
    /// members only say which properties are required (`not: {required:
    /// [a, b]}`: "not both") validates the object without changing its
    /// type: dropped, with a warning for the `not` (a `not` with more in it
    /// is still refused).
    /// A common bend of 3.0 documents, read as its authors meant it, with
    /// a warning: a numeric `exclusiveMinimum`/`exclusiveMaximum` (3.1's
    /// form).
    fn bend_30(&self, map: &mut Map<String, Value>, at: &Pointer) {
        for (key, bound) in [
            ("exclusiveMinimum", "minimum"),
            ("exclusiveMaximum", "maximum"),
        ] {
            if let Some(number) = map.get(key).filter(|v| v.is_number()).cloned() {
                map.insert(bound.into(), number);
                map.insert(key.into(), Value::Bool(true));
                self.warnings.borrow_mut().push(LowerError::new(
                    &at.join(key),
                    format!("a numeric `{key}` is OpenAPI 3.1's form; in 3.0 it is a boolean beside `{bound}`, and it is read so"),
                    format!("write `{bound}: N` and `{key}: true`, or declare the document 3.1"),
                ));
            }
        }
    }

    /// A draft-4 tuple `items: [...]` (in any version: neither OpenAPI 3.0
    /// nor JSON Schema 2020-12 has it), read as 2020-12's `prefixItems`:
    /// a list whose items are any of the positions' types, with a warning.
    fn tuple(&self, map: &mut Map<String, Value>, at: &Pointer) {
        if map.get("items").is_some_and(Value::is_array)
            && !map.contains_key("prefixItems")
            && let Some(Value::Array(tuple)) = map.remove("items")
        {
            map.insert("prefixItems".into(), Value::Array(tuple));
            self.warnings.borrow_mut().push(LowerError::new(
                &at.join("items"),
                "`items` as a list (a draft-4 tuple) is not OpenAPI; it is read as a list whose items are any of its positions' types",
                "give `items` one schema (or, in 3.1, write the tuple as `prefixItems`)",
            ));
            self.tuple_items.borrow_mut().push(at.clone());
        }
    }

    fn drop_object_constraints(&self, map: &mut Map<String, Value>, at: &Pointer) {
        let only_required = |v: &Value| {
            v.as_object().is_some_and(|m| {
                !m.is_empty()
                    && m.keys().all(|k| {
                        matches!(
                            k.as_str(),
                            "required"
                                | "minProperties"
                                | "maxProperties"
                                | "description"
                                | "title"
                        )
                    })
            })
        };
        let object =
            map.contains_key("properties") || map.get("type").is_some_and(|t| t == "object");
        if !object {
            return;
        }
        if map.get("not").is_some_and(only_required) {
            map.remove("not");
            self.warnings.borrow_mut().push(LowerError::new(
                &at.join("not"),
                "the `not` beside the object's properties only says which may not be given together; it is not checked",
                "check it in your code if it matters",
            ));
        }
        for key in ["anyOf", "oneOf"] {
            if map
                .get(key)
                .and_then(Value::as_array)
                .is_some_and(|members| !members.is_empty() && members.iter().all(only_required))
            {
                map.remove(key);
            }
        }
    }

    /// JSON Schema 2020-12 keywords beyond OpenAPI 3.0's schema, in a
    /// document of either version: containers of `$ref` targets dropped;
    /// `prefixItems` read as the `items` they all fit (one schema when
    /// they are the same, else `anyOf` them); `patternProperties` as the
    /// values of a map; `$dynamicRef` as any value; keywords that only
    /// validate dropped. All but the first with a warning.
    fn json_schema_2020(&self, map: &mut Map<String, Value>, at: &Pointer) {
        for key in CONTAINERS {
            map.remove(*key);
        }
        if let Some(Value::Array(members)) = map.remove("prefixItems") {
            // Each distinct member once, with where it is written.
            let mut kinds: Vec<(Value, Pointer)> = Vec::new();
            let rest = map
                .remove("items")
                .filter(|items| items != &Value::Bool(false))
                .map(|items| (items, at.join("items")));
            let written = members
                .into_iter()
                .enumerate()
                .map(|(i, member)| (member, at.join("prefixItems").join(i)));
            for (member, from) in written.chain(rest) {
                let member = if member == Value::Bool(true) {
                    Value::Object(Map::new())
                } else {
                    member
                };
                if !kinds.iter().any(|(kind, _)| *kind == member) {
                    kinds.push((member, from));
                }
            }
            let mut moves = self.moves.borrow_mut();
            let items = match <[(Value, Pointer); 1]>::try_from(kinds) {
                Ok([(one, from)]) => {
                    moves.push((at.join("items"), from));
                    one
                }
                Err(kinds) if kinds.is_empty() => Value::Object(Map::new()),
                Err(kinds) => {
                    let kinds: Vec<Value> = kinds
                        .into_iter()
                        .enumerate()
                        .map(|(i, (kind, from))| {
                            moves.push((at.join("items").join("anyOf").join(i), from));
                            kind
                        })
                        .collect();
                    self.warnings.borrow_mut().push(LowerError::new(
                        &at.join("prefixItems"),
                        "a tuple of different types is read as a list whose items are any of them",
                        "check the positions in your code if they matter",
                    ));
                    serde_json::json!({ "anyOf": kinds })
                }
            };
            map.insert("items".into(), items);
            map.entry("type")
                .or_insert_with(|| Value::String("array".into()));
        }
        if let Some(patterns) = map.remove("patternProperties") {
            let values: Vec<(&String, &Value)> = patterns
                .as_object()
                .map(|p| p.iter().collect())
                .unwrap_or_default();
            if !map.contains_key("additionalProperties") {
                let value = match <[(&String, &Value); 1]>::try_from(values) {
                    Ok([(pattern, one)]) => {
                        self.moves.borrow_mut().push((
                            at.join("additionalProperties"),
                            at.join("patternProperties").join(pattern),
                        ));
                        one.clone()
                    }
                    Err(_) => Value::Object(Map::new()),
                };
                map.insert("additionalProperties".into(), value);
            }
            self.warnings.borrow_mut().push(LowerError::new(
                &at.join("patternProperties"),
                "the names of the properties are not checked against their patterns",
                "check the names in your code if they matter",
            ));
        }
        if map.remove("$dynamicRef").is_some() {
            map.clear();
            self.warnings.borrow_mut().push(LowerError::new(
                at,
                "`$dynamicRef` is read as any JSON value",
                "give the schema a `$ref` to a named schema for a typed value",
            ));
        }
        for key in VALIDATION_ONLY {
            if map.remove(*key).is_some() {
                self.warnings.borrow_mut().push(LowerError::new(
                    &at.join(key),
                    format!("`{key}` is not checked by the generated code; it is ignored"),
                    "check it in your code if it matters",
                ));
            }
        }
    }

    /// JSON Schema 2020-12 (OpenAPI 3.1) → the OpenAPI 3.0 schema shape.
    fn convert_31(&self, map: &mut Map<String, Value>, at: &Pointer) -> Result<()> {
        // A string with a media type and no encoding is that file's bytes:
        // 3.0's `format: binary` (a file part in a multipart body).
        if map.contains_key("contentMediaType")
            && !map.contains_key("contentEncoding")
            && !map.contains_key("format")
        {
            map.insert("format".into(), Value::String("binary".into()));
        }
        // An encoded string (base64, say) is read as the text it is sent
        // as: the generated code does not decode it.
        if let Some(encoding) = map.get("contentEncoding").and_then(Value::as_str) {
            let media = map
                .get("contentMediaType")
                .and_then(Value::as_str)
                .map(|media| format!(" of `{media}`"))
                .unwrap_or_default();
            let message = format!(
                "`contentEncoding: {encoding}`{media}: the value is read as the encoded string, not decoded"
            );
            self.warnings.borrow_mut().push(LowerError::new(
                &at.join("contentEncoding"),
                message,
                "decode it in your code",
            ));
        }
        for key in ANNOTATIONS_31 {
            map.remove(*key);
        }
        if let Some(types) = map.get("type").cloned() {
            let names: Vec<Value> = match types {
                Value::Array(names) => names,
                one => vec![one],
            };
            let nullable = names.iter().any(|n| n == "null");
            let rest: Vec<Value> = names.into_iter().filter(|n| n != "null").collect();
            match rest.len() {
                0 => {
                    map.remove("type");
                }
                1 => {
                    map.insert("type".into(), rest[0].clone());
                }
                _ => {
                    map.remove("type");
                    if let Err(e) = one_of_types(map, rest) {
                        // Any JSON value holds every value the schema
                        // allows: read as that, with what it says of the
                        // value (annotations) kept.
                        map.retain(|key, _| {
                            key.starts_with("x-")
                                || matches!(
                                    key.as_str(),
                                    "title"
                                        | "description"
                                        | "default"
                                        | "example"
                                        | "deprecated"
                                        | "readOnly"
                                        | "writeOnly"
                                )
                        });
                        self.warnings.borrow_mut().push(LowerError::new(
                            &at.join("type"),
                            format!("{e}; the value is read as any JSON value (`serde_json::Value`)"),
                            "give the schema one type (and `null`), or use `oneOf` with one schema per type, for a typed value",
                        ));
                        return Ok(());
                    }
                    // Each member is made of this schema's keywords.
                    let members = map
                        .get("oneOf")
                        .and_then(Value::as_array)
                        .map_or(0, Vec::len);
                    let mut moves = self.moves.borrow_mut();
                    for i in 0..members {
                        moves.push((at.join("oneOf").join(i), at.clone()));
                    }
                }
            }
            if nullable {
                map.insert("nullable".into(), Value::Bool(true));
            }
        }
        if let Some(value) = map.remove("const") {
            map.insert("enum".into(), Value::Array(vec![value]));
        }
        for (key, bound) in [
            ("exclusiveMinimum", "minimum"),
            ("exclusiveMaximum", "maximum"),
        ] {
            if let Some(number) = map.get(key).filter(|v| v.is_number()).cloned() {
                map.insert(bound.into(), number);
                map.insert(key.into(), Value::Bool(true));
            }
        }
        for key in ["oneOf", "anyOf"] {
            if let Some(Value::Array(members)) = map.get_mut(key) {
                // A null member makes the whole nullable; it stays in its
                // place, marked, so that the others keep their indices.
                let mut nulls = false;
                for member in members.iter_mut().filter(|m| is_null_schema(m)) {
                    *member = serde_json::json!({ NULL_MEMBER: true });
                    nulls = true;
                }
                if nulls {
                    map.insert("nullable".into(), Value::Bool(true));
                }
            }
        }
        Ok(())
    }
}

/// `type: [integer, string]`: a `oneOf` with one member per type, each
/// taking the keywords that apply to its type (and the `enum` values of
/// it); what applies to every type (`description`) stays.
fn one_of_types(
    map: &mut Map<String, Value>,
    types: Vec<Value>,
) -> std::result::Result<(), String> {
    if map.contains_key("oneOf") || map.contains_key("anyOf") {
        return Err(
            "a list of several types beside `oneOf` or `anyOf` cannot be expressed as one Rust type"
                .into(),
        );
    }
    let applies = |ty: &str, key: &str| match key {
        "minLength" | "maxLength" | "pattern" => ty == "string",
        "format" => matches!(ty, "string" | "integer" | "number"),
        "minimum" | "maximum" | "exclusiveMinimum" | "exclusiveMaximum" | "multipleOf" => {
            matches!(ty, "integer" | "number")
        }
        "items" | "prefixItems" | "minItems" | "maxItems" | "uniqueItems" => ty == "array",
        "properties"
        | "required"
        | "additionalProperties"
        | "minProperties"
        | "maxProperties"
        | "patternProperties"
        | "propertyNames" => ty == "object",
        _ => false,
    };
    let fits = |ty: &str, value: &Value| match ty {
        "string" => value.is_string(),
        "integer" => value.is_i64() || value.is_u64(),
        "number" => value.is_number(),
        "boolean" => value.is_boolean(),
        "array" => value.is_array(),
        "object" => value.is_object(),
        _ => false,
    };
    let mut members = Vec::new();
    for ty in &types {
        let Some(ty) = ty.as_str() else {
            return Err(format!("`type` lists {ty}, which is not a type name"));
        };
        let mut member = Map::new();
        member.insert("type".into(), Value::String(ty.into()));
        for (key, value) in map.iter() {
            if applies(ty, key) {
                member.insert(key.clone(), value.clone());
            }
        }
        if let Some(Value::Array(values)) = map.get("enum") {
            let values: Vec<Value> = values.iter().filter(|v| fits(ty, v)).cloned().collect();
            if values.is_empty() {
                continue;
            }
            member.insert("enum".into(), Value::Array(values));
        }
        members.push(Value::Object(member));
    }
    let keys: Vec<String> = map.keys().cloned().collect();
    for key in keys {
        if key == "enum"
            || types
                .iter()
                .filter_map(Value::as_str)
                .any(|ty| applies(ty, &key))
        {
            map.remove(&key);
        }
    }
    map.insert("oneOf".into(), Value::Array(members));
    Ok(())
}

/// Every `{$recursiveRef: "#"}` under `value` made a `$ref` to `target`.
fn recursive_refs_to(value: &mut Value, target: &str) {
    match value {
        Value::Object(map) => {
            if map.get("$recursiveRef").is_some_and(|r| r == "#") {
                map.remove("$recursiveRef");
                map.insert("$ref".into(), Value::String(target.to_owned()));
            }
            for child in map.values_mut() {
                recursive_refs_to(child, target);
            }
        }
        Value::Array(items) => items
            .iter_mut()
            .for_each(|item| recursive_refs_to(item, target)),
        _ => {}
    }
}

/// `{type: "null"}` (or `{const: null}`, `{enum: [null]}`).
fn is_null_schema(schema: &Value) -> bool {
    let Some(map) = schema.as_object() else {
        return false;
    };
    map.get("type").is_some_and(|t| t == "null")
        || map.get("const").is_some_and(Value::is_null)
        || map
            .get("enum")
            .is_some_and(|e| e.as_array().is_some_and(|a| a.len() == 1 && a[0].is_null()))
}

/// `properties` without `type` is an object, `items` an array, an `enum` of
/// strings a string; `type` beside `allOf` goes into an `allOf` member.
fn make_types_explicit(map: &mut Map<String, Value>) {
    let composed = ["allOf", "oneOf", "anyOf", "not"]
        .iter()
        .any(|k| map.contains_key(*k));
    if composed {
        if map.contains_key("allOf") {
            let structural = [
                "type",
                "properties",
                "required",
                "additionalProperties",
                "items",
                "enum",
            ];
            let mut member = Map::new();
            for key in structural {
                if let Some(value) = map.remove(key) {
                    member.insert(key.into(), value);
                }
            }
            let only_type = member.len() == 1 && member.get("type").is_some_and(|t| t == "object");
            if !member.is_empty()
                && !only_type
                && let Some(Value::Array(members)) = map.get_mut("allOf")
            {
                if !member.contains_key("type")
                    && (member.contains_key("properties")
                        || member.contains_key("additionalProperties"))
                {
                    member.insert("type".into(), Value::String("object".into()));
                }
                member.insert(SIBLINGS.into(), Value::Bool(true));
                members.push(Value::Object(member));
            }
        } else if map.get("type").is_some_and(|t| t == "object") && !map.contains_key("properties")
        {
            // `type: object` beside `oneOf`/`anyOf` says what each member says.
            map.remove("type");
        }
        return;
    }
    if map.contains_key("type") {
        return;
    }
    if map
        .get("enum")
        .and_then(Value::as_array)
        .is_some_and(|values| !values.is_empty() && values.iter().all(Value::is_null))
    {
        // `enum: [null]`: nothing but null.
        map.remove("enum");
        map.insert("nullable".into(), Value::Bool(true));
        return;
    }
    let implied = if map.contains_key("properties") || map.contains_key("additionalProperties") {
        "object"
    } else if map.contains_key("items") {
        "array"
    } else if map
        .get("enum")
        .and_then(Value::as_array)
        .is_some_and(|values| !values.is_empty() && values.iter().all(Value::is_string))
    {
        "string"
    } else {
        return;
    };
    map.insert("type".into(), Value::String(implied.into()));
}

/// Keywords JSON Schema ignores where they stand, dropped so that the
/// schema reads as the type it is: `items`, `properties` and the like
/// beside a scalar `type` (they apply only to arrays and objects), a bound
/// of an integer beyond what an `i64` holds (a `uint64`'s maximum), and
/// `propertyNames` (keys of JSON objects are strings, whatever they match).
fn drop_inapplicable(map: &mut Map<String, Value>) {
    map.remove("propertyNames");
    let scalar = map
        .get("type")
        .and_then(Value::as_str)
        .is_some_and(|t| matches!(t, "string" | "integer" | "number" | "boolean"));
    if scalar && !map.contains_key("allOf") {
        for key in [
            "items",
            "properties",
            "additionalProperties",
            "required",
            "minItems",
            "maxItems",
            "uniqueItems",
            "minProperties",
            "maxProperties",
        ] {
            map.remove(key);
        }
    }
    // A validation keyword of another type beside one declared `type`
    // (`maxLength` on an integer, `minLength` on an array, `minimum` on a
    // string: Zoom, Twilio, Jira and Zuora write them): JSON Schema applies
    // a keyword only to instances of its type, so the schema is its
    // declared type and the keyword says nothing (issue 47).
    if let Some(declared) = map.get("type").and_then(Value::as_str).map(str::to_owned)
        && !map.contains_key("allOf")
    {
        let of = |keywords: &[&'static str], types: &[&str]| -> Vec<&'static str> {
            if types.contains(&declared.as_str()) {
                Vec::new()
            } else {
                keywords.to_vec()
            }
        };
        let mut foreign = of(&["maxLength", "minLength", "pattern"], &["string"]);
        foreign.extend(of(
            &[
                "minimum",
                "maximum",
                "exclusiveMinimum",
                "exclusiveMaximum",
                "multipleOf",
            ],
            &["integer", "number"],
        ));
        foreign.extend(of(&["minItems", "maxItems", "uniqueItems"], &["array"]));
        foreign.extend(of(&["minProperties", "maxProperties"], &["object"]));
        if ["string", "integer", "number", "boolean", "array", "object"]
            .contains(&declared.as_str())
        {
            for key in foreign {
                map.remove(key);
            }
        }
    }
    if map.get("type").is_some_and(|t| t == "integer") {
        for key in ["minimum", "maximum", "multipleOf"] {
            if map
                .get(key)
                .is_some_and(|v| v.is_number() && v.as_i64().is_none())
            {
                map.remove(key);
            }
        }
    }
}

fn is_reference(value: &Value) -> bool {
    value.get("$ref").is_some_and(Value::is_string)
}

/// A known schema keyword within two edits of `key`, for "did you mean".
fn suggestion(key: &str) -> Option<&'static str> {
    KEYWORDS_30
        .iter()
        .copied()
        .filter(|known| {
            strsim::levenshtein(&key.to_ascii_lowercase(), &known.to_ascii_lowercase()) <= 2
        })
        .min_by_key(|known| strsim::levenshtein(key, known))
}

/// `200`, `2XX`, `default` or `x-…`; anything else is refused, not dropped.
fn check_status_key(key: &str, at: &Pointer) -> Result<()> {
    let bytes = key.as_bytes();
    let code = bytes.len() == 3
        && bytes.iter().all(u8::is_ascii_digit)
        && (b'1'..=b'5').contains(&bytes[0]);
    let range = bytes.len() == 3
        && (b'1'..=b'5').contains(&bytes[0])
        && bytes[1..].eq_ignore_ascii_case(b"XX");
    if code || range || key == "default" || key.starts_with("x-") {
        return Ok(());
    }
    Err(LowerError::new(
        at,
        format!(
            "`{key}` is not a response status: expected a code from 100 to 599, a range such as `4XX`, or `default`"
        ),
        "write the status as three digits (quoted in YAML, e.g. \"200\"), a range, or `default`",
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_keys() {
        let at = Pointer::root();
        for ok in ["200", "599", "100", "2XX", "4xx", "default", "x-foo"] {
            assert!(check_status_key(ok, &at).is_ok(), "{ok}");
        }
        for bad in ["abc", "1000", "200 ", "600", "099", "6XX", "2X", ""] {
            assert!(check_status_key(bad, &at).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn suggests_the_keyword_meant() {
        assert_eq!(suggestion("propertes"), Some("properties"));
        assert_eq!(suggestion("reqiured"), Some("required"));
        assert_eq!(suggestion("zzzzzzzzz"), None);
    }

    #[test]
    fn converts_31_schemas() {
        let mut doc: Value = serde_json::json!({
            "openapi": "3.1.0",
            "info": {"title": "t", "version": "1", "license": {"name": "MIT", "identifier": "MIT"}},
            "components": {"schemas": {"A": {
                "type": "object",
                "properties": {
                    "a": {"type": ["string", "null"], "examples": ["x"]},
                    "b": {"const": "only"},
                    "c": {"anyOf": [{"$ref": "#/components/schemas/A"}, {"type": "null"}]},
                    "d": {"type": "integer", "exclusiveMinimum": 0}
                }
            }}}
        });
        assert!(
            normalize(&mut doc, Version::V31)
                .unwrap()
                .warnings
                .is_empty()
        );
        let props = &doc["components"]["schemas"]["A"]["properties"];
        assert_eq!(
            props["a"],
            serde_json::json!({"type": "string", "nullable": true})
        );
        assert_eq!(
            props["b"],
            serde_json::json!({"enum": ["only"], "type": "string"})
        );
        assert_eq!(props["c"]["nullable"], Value::Bool(true));
        // The null member keeps its place (the others their indices), marked.
        assert_eq!(
            props["c"]["anyOf"][1],
            serde_json::json!({ NULL_MEMBER: true })
        );
        assert_eq!(props["d"]["minimum"], serde_json::json!(0));
        assert_eq!(doc["openapi"], "3.0.3");
        assert!(doc["info"]["license"].get("identifier").is_none());
    }
}
