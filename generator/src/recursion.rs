//! Recursive types made finite.
//!
//! A schema may contain itself (`Node { next: Node }`, `List = [List]`).
//! Rust needs every cycle of by-value containment broken by a pointer, and
//! no type alias may refer to itself. After lowering:
//!
//! 1. an alias that reaches itself through aliases alone becomes a newtype
//!    (`pub struct List(pub Vec<List>)`), since an alias cannot name itself;
//! 2. in every struct, newtype and `oneOf` enum, each use of a named type
//!    that holds the containing type by value (directly or through other
//!    types, `Option`s and aliases; `Vec` and maps are already on the heap)
//!    is boxed: `next: Option<Box<Node>>`.

use std::collections::{BTreeMap, BTreeSet};

use crate::model::{TypeDef, TypeRef};

pub fn break_cycles(types: &mut BTreeMap<String, TypeDef>) {
    newtype_recursive_aliases(types);
    let names: Vec<String> = types.keys().cloned().collect();
    // For each nominal type, the named types it holds by value, transitively.
    let mut reach: BTreeMap<&str, BTreeSet<String>> = BTreeMap::new();
    for name in &names {
        let mut seen = BTreeSet::new();
        let mut stack: Vec<String> = direct(types, name);
        while let Some(next) = stack.pop() {
            if seen.insert(next.clone()) {
                stack.extend(direct(types, &next));
            }
        }
        reach.insert(name, seen);
    }
    let mut boxed: BTreeMap<String, TypeDef> = BTreeMap::new();
    for name in &names {
        let holds_self = |used: &str| {
            used == name
                || reach
                    .get(used)
                    .is_some_and(|set| set.contains(name.as_str()))
        };
        let mut def = types[name].clone();
        let changed = match &mut def {
            TypeDef::Struct { fields, .. } => fields
                .iter_mut()
                .map(|f| box_uses(&mut f.ty, &holds_self))
                .fold(false, |a, b| a | b),
            TypeDef::Newtype { ty, .. } => box_uses(ty, &holds_self),
            TypeDef::OneOf { variants, .. } => variants
                .iter_mut()
                .map(|v| box_uses(&mut v.ty, &holds_self))
                .fold(false, |a, b| a | b),
            TypeDef::Tagged { variants, .. } => variants
                .iter_mut()
                .flat_map(|v| &mut v.fields)
                .map(|f| box_uses(&mut f.ty, &holds_self))
                .fold(false, |a, b| a | b),
            TypeDef::Enum { .. } | TypeDef::Alias { .. } => false,
        };
        if changed {
            boxed.insert(name.clone(), def);
        }
    }
    types.extend(boxed);
}

/// Named types that values of `name` hold by value, one step.
fn direct(types: &BTreeMap<String, TypeDef>, name: &str) -> Vec<String> {
    let mut out = Vec::new();
    match types.get(name) {
        Some(TypeDef::Struct { fields, .. }) => {
            for field in fields {
                by_value(&field.ty, &mut out);
            }
        }
        Some(TypeDef::Newtype { ty, .. }) | Some(TypeDef::Alias { ty, .. }) => {
            by_value(ty, &mut out)
        }
        Some(TypeDef::OneOf { variants, .. }) => {
            for variant in variants {
                by_value(&variant.ty, &mut out);
            }
        }
        Some(TypeDef::Tagged { variants, .. }) => {
            for field in variants.iter().flat_map(|v| &v.fields) {
                by_value(&field.ty, &mut out);
            }
        }
        Some(TypeDef::Enum { .. }) | None => {}
    }
    out
}

fn by_value(ty: &TypeRef, out: &mut Vec<String>) {
    match ty {
        TypeRef::Named(name) => out.push(name.clone()),
        TypeRef::Optional(inner) => by_value(inner, out),
        _ => {}
    }
}

/// Boxes the by-value uses in `ty` of types for which `holds_self` holds.
fn box_uses(ty: &mut TypeRef, holds_self: &impl Fn(&str) -> bool) -> bool {
    match ty {
        TypeRef::Named(name) if holds_self(name) => {
            *ty = TypeRef::Boxed(Box::new(ty.clone()));
            true
        }
        TypeRef::Optional(inner) => box_uses(inner, holds_self),
        _ => false,
    }
}

/// Aliases that reach themselves through aliases alone (any wrapper, even
/// `Vec`: an alias is expanded where it is used) become newtypes.
fn newtype_recursive_aliases(types: &mut BTreeMap<String, TypeDef>) {
    let aliases: Vec<String> = types
        .iter()
        .filter(|(_, def)| matches!(def, TypeDef::Alias { .. }))
        .map(|(name, _)| name.clone())
        .collect();
    let alias_targets = |types: &BTreeMap<String, TypeDef>, name: &str| -> Vec<String> {
        let mut out = Vec::new();
        if let Some(TypeDef::Alias { ty, .. }) = types.get(name) {
            named_anywhere(ty, &mut out);
        }
        out.retain(|n| matches!(types.get(n), Some(TypeDef::Alias { .. })));
        out
    };
    let mut recursive = Vec::new();
    for alias in &aliases {
        let mut seen = BTreeSet::new();
        let mut stack = alias_targets(types, alias);
        while let Some(next) = stack.pop() {
            if next == *alias {
                recursive.push(alias.clone());
                break;
            }
            if seen.insert(next.clone()) {
                stack.extend(alias_targets(types, &next));
            }
        }
    }
    for name in recursive {
        if let Some(TypeDef::Alias { description, ty }) = types.remove(&name) {
            types.insert(name, TypeDef::Newtype { description, ty });
        }
    }
}

fn named_anywhere(ty: &TypeRef, out: &mut Vec<String>) {
    match ty {
        TypeRef::Named(name) => out.push(name.clone()),
        TypeRef::Optional(inner)
        | TypeRef::Boxed(inner)
        | TypeRef::Array(inner)
        | TypeRef::MapOf(inner) => named_anywhere(inner, out),
        _ => {}
    }
}
