//! OpenAPI document → [`model::Api`](crate::model::Api).
//!
//! Every `$ref` is resolved, every name made a Rust identifier, and every
//! construct the emitters cannot express is refused here, with the pointer of
//! the node that carries it (where it is written in the file).
//!
//! One `Lowerer` walks the document; its methods are split by concept, one
//! file each: `server`, `security`, `operation` (and path segments),
//! `parameter`, `body`, `response`, `schema`, `one_of` (`oneOf`/`anyOf`),
//! `merge` (`allOf`) and `reference` (`$ref`s of every kind).

use std::collections::{BTreeMap, BTreeSet};

use openapiv3::{
    AdditionalProperties, Header, ObjectType, OpenAPI, Operation as SpecOperation, Parameter,
    ParameterData, ParameterSchemaOrContent, PathItem, QueryStyle, ReferenceOr, RequestBody,
    Response as SpecResponse, Schema, SchemaKind, StatusCode, StringFormat, Type,
    VariantOrUnknownOrEmpty,
};

use crate::error::{LowerError, Pointer};
use crate::model::{
    Api, ArrayStyle, Body, BodyChoice, BodyMedia, Degraded, EnumValue, Field, FormEncoding,
    FormStyle, Location, ObjectStyle, Operation, Param, ParamStyle, PathSegment, PathStyle,
    Response, ResponseHeader, SchemeKind, SecurityScheme, Server, Status, TaggedVariant, TypeDef,
    TypeRef, UrlPiece, Variant,
};
use crate::names::{Scope, pascal, snake};

mod body;
mod merge;
mod one_of;
mod operation;
mod parameter;
mod reference;
mod response;
mod schema;
mod security;
mod server;

use body::*;
use operation::*;
use reference::*;
use schema::*;

type Result<T> = std::result::Result<T, LowerError>;

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

pub fn lower(doc: &OpenAPI) -> Result<Api> {
    lower_with_warnings(doc).map(|(api, _)| api)
}

/// Lowers `doc`, and tells what was made looser than the spec says (a
/// schema beyond the model read as any JSON, ...), each once, in the order
/// met.
pub fn lower_with_warnings(doc: &OpenAPI) -> Result<(Api, Vec<LowerError>)> {
    lower_with_options(doc, false)
}

/// An operation left out of the client: where it is, its place among the
/// document's operations, and what was wrong with it.
#[derive(Debug, Clone)]
struct LeftOut {
    at: Pointer,
    index: usize,
    error: LowerError,
}

/// [`lower_with_warnings`]; `strict`: an operation that cannot be lowered
/// refuses the document (as `--strict` asks), instead of being left out
/// with a warning.
///
/// A defect confined to one operation (an unknown `$ref` in its body, a
/// path template naming no parameter, a schema beyond the model that only
/// it uses, ...) costs that operation only: the document is lowered again
/// without it, so the output is the same as for the document with the
/// operation deleted, and a warning at the defect names the operation. A
/// document whose every operation fails is refused at the first failure;
/// a defect outside the operations (servers, security schemes) refuses it
/// as before.
pub fn lower_with_options(doc: &OpenAPI, strict: bool) -> Result<(Api, Vec<LowerError>)> {
    let mut left_out: Vec<LeftOut> = Vec::new();
    loop {
        let mut lowerer = Lowerer::new(doc);
        lowerer.strict = strict;
        lowerer.left_out = left_out.clone();
        let server = lowerer.server()?;
        let security = lowerer.security_schemes();
        lowerer.schemes = security.iter().map(|s| s.name.clone()).collect();
        let (operations, failed, total) = lowerer.operations()?;
        if !failed.is_empty() {
            // Lowered again without them: what the failed operations left
            // behind (types, claimed names, warnings) must not shape the
            // rest of the output. Each pass leaves out at least one more
            // operation, so this ends.
            left_out.extend(failed);
            if left_out.len() >= total {
                let first = left_out
                    .into_iter()
                    .min_by_key(|l| l.index)
                    .expect("at least one operation failed");
                return Err(first.error);
            }
            continue;
        }
        let mut operations = operations;
        name_body_choices(&mut operations);
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
            degraded: Degraded {
                operations: left_out.len(),
                ..lowerer.degraded
            },
        };
        return Ok((api, lowerer.warnings));
    }
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
    /// Operations a failure leaves out (found by an earlier pass).
    left_out: Vec<LeftOut>,
    /// A failed operation refuses the document (`--strict`).
    strict: bool,
    /// What was degraded, counted.
    degraded: Degraded,
    /// The nodes counted in `degraded`: each once, as it is warned of once.
    counted: BTreeSet<String>,
}

impl<'a> Lowerer<'a> {
    fn new(doc: &'a OpenAPI) -> Self {
        // Every schema's type name is claimed first, in document order, so a
        // name never depends on which operation happens to use the schema
        // first.
        let mut scope = Scope::default();
        let mut schema_names = BTreeMap::new();
        if let Some(components) = &doc.components {
            for name in components.schemas.keys() {
                schema_names.insert(name.clone(), scope.claim(&pascal(name)));
            }
        }
        Lowerer {
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
            left_out: Vec::new(),
            strict: false,
            degraded: Degraded::default(),
            counted: BTreeSet::new(),
        }
    }

    /// Counts a degraded node in the summary (`count` picks the kind),
    /// once however often it is lowered.
    pub(super) fn count(&mut self, count: fn(&mut Degraded) -> &mut usize, at: &Pointer) {
        if self.counted.insert(at.to_string()) {
            *count(&mut self.degraded) += 1;
        }
    }

    /// Records a warning (once per pointer and message).
    pub(super) fn warn(
        &mut self,
        at: &Pointer,
        message: impl Into<String>,
        hint: impl Into<String>,
    ) {
        // Once per node and message: a node lowered again (a shared
        // parameter, for each operation) warns once, and two different
        // defects of one node are both told.
        let message = message.into();
        if !self
            .warnings
            .iter()
            .any(|w| w.pointer == *at && w.message == message)
        {
            self.warnings.push(LowerError::new(at, message, hint));
        }
    }
}

/// The body-choice enums live beside the builders (in the `builder`
/// module), so each takes a name no builder and no other choice has.
fn name_body_choices(operations: &mut [Operation]) {
    let mut scope = Scope::default();
    for op in operations.iter() {
        scope.claim(&op.type_name);
    }
    for op in operations.iter_mut() {
        if let Some(choice) = op.body.as_mut().and_then(|b| b.choice.as_mut()) {
            choice.name = scope.claim(&choice.name);
        }
    }
}
