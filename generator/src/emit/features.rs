//! `--tag-features`: the output split by the operations' first tag, each
//! tag's operations (their `Client` methods, builders, answers) compiled
//! only with a cargo feature of its own, `tag-<name>`, and each type only
//! with the features of the operations that reach it. A crate that calls
//! ten operations of a large API turns on their tags and compiles those,
//! not the whole API.
//!
//! Types reached by no operation, and those the client itself holds (the
//! header parameters every operation takes, in `Defaults`), are always
//! compiled.

use std::collections::{BTreeMap, BTreeSet};

use proc_macro2::TokenStream;
use quote::quote;

use crate::model::{Api, BodyMedia, Operation, TypeDef, TypeRef};

/// The feature of an operation without tags.
pub const UNTAGGED: &str = "untagged";

/// Which cargo feature compiles what.
#[derive(Debug, Clone, Default)]
pub(crate) struct TagFeatures {
    /// Per operation, in the model's order: its feature.
    ops: Vec<String>,
    /// Per named type: the features that need it (none: always compiled).
    types: BTreeMap<String, BTreeSet<String>>,
}

/// The feature an operation is compiled with: `tag-` and its first tag in
/// kebab case (`tag-pull-requests`), or [`UNTAGGED`].
pub fn feature_of(op: &Operation) -> String {
    match op.tags.first() {
        Some(tag) => {
            let name = crate::names::snake(tag)
                .trim_end_matches('_')
                .replace('_', "-");
            format!("tag-{name}")
        }
        None => UNTAGGED.to_owned(),
    }
}

/// Every feature of the output, sorted: the lines of the `[features]`
/// table a crate holding it declares.
pub fn features(api: &Api) -> BTreeSet<String> {
    api.operations.iter().map(feature_of).collect()
}

impl TagFeatures {
    pub(crate) fn of(api: &Api) -> Self {
        let ops: Vec<String> = api.operations.iter().map(feature_of).collect();
        let mut types: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for (op, feature) in api.operations.iter().zip(&ops) {
            for name in reached(api, op_types(op)) {
                types.entry(name).or_default().insert(feature.clone());
            }
        }
        // What the client holds whatever the features: always compiled.
        for name in reached(api, api.shared_headers.iter().map(|p| &p.ty)) {
            types.remove(&name);
        }
        Self { ops, types }
    }

    /// `cfg` predicate of the operation at `index`.
    pub(crate) fn op(&self, index: usize) -> TokenStream {
        let feature = &self.ops[index];
        quote!(feature = #feature)
    }

    /// `cfg` predicate of the operations at `indices` (any of them).
    pub(crate) fn any_op(&self, indices: &[usize]) -> TokenStream {
        let features: BTreeSet<&String> = indices.iter().map(|&i| &self.ops[i]).collect();
        any(features.into_iter())
    }

    /// `cfg` predicate of a named type; `None`: always compiled.
    pub(crate) fn named(&self, name: &str) -> Option<TokenStream> {
        self.types
            .get(name)
            .filter(|features| !features.is_empty())
            .map(|features| any(features.iter()))
    }
}

fn any<'f>(features: impl Iterator<Item = &'f String>) -> TokenStream {
    let features: Vec<&String> = features.collect();
    match &features[..] {
        [one] => quote!(feature = #one),
        many => quote!(any(#(feature = #many),*)),
    }
}

/// The types an operation uses directly: its parameters', its body's (every
/// media type offered), its answers' bodies and headers.
fn op_types(op: &Operation) -> impl Iterator<Item = &TypeRef> {
    let body = op.body.iter().flat_map(|body| {
        let choices = body
            .choice
            .iter()
            .flat_map(|c| c.variants.iter().map(|(_, m)| m));
        std::iter::once(&body.media)
            .chain(choices)
            .filter_map(BodyMedia::typed)
    });
    let answers = op
        .responses
        .iter()
        .chain(&op.default_response)
        .flat_map(|r| r.body.iter().chain(r.headers.iter().map(|h| &h.ty)));
    op.params.iter().map(|p| &p.ty).chain(body).chain(answers)
}

/// The named types `roots` reach, through fields, items, aliases and
/// variants.
fn reached<'a>(api: &'a Api, roots: impl Iterator<Item = &'a TypeRef>) -> BTreeSet<String> {
    let mut seen = BTreeSet::new();
    let mut stack: Vec<&TypeRef> = roots.collect();
    while let Some(ty) = stack.pop() {
        match ty {
            TypeRef::MapOf(inner)
            | TypeRef::Array(inner)
            | TypeRef::Optional(inner)
            | TypeRef::Boxed(inner) => stack.push(inner),
            TypeRef::Named(name) => {
                if !seen.insert(name.clone()) {
                    continue;
                }
                match api.types.get(name) {
                    Some(TypeDef::Struct { fields, .. }) => {
                        stack.extend(fields.iter().map(|f| &f.ty))
                    }
                    Some(TypeDef::Alias { ty, .. }) | Some(TypeDef::Newtype { ty, .. }) => {
                        stack.push(ty)
                    }
                    Some(TypeDef::OneOf { variants, .. }) => {
                        stack.extend(variants.iter().map(|v| &v.ty))
                    }
                    Some(TypeDef::Tagged { variants, .. }) => {
                        stack.extend(variants.iter().flat_map(|v| v.fields.iter().map(|f| &f.ty)))
                    }
                    Some(TypeDef::Enum { .. }) | None => {}
                }
            }
            _ => {}
        }
    }
    seen
}
