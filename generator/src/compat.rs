//! Which kind of change a regeneration is, for code that uses the bindings:
//! additive (every program that compiled against the old output compiles
//! against the new one) or breaking, with the items that make it so.
//!
//! Both outputs are read with `syn` and their public surface compared item
//! by item, doc comments left out. The rules follow from how the output is
//! made (see the generator's recipe in the README):
//!
//! - an item, a field, a method or a variant removed or changed: breaking;
//! - an item or a method added: additive;
//! - a field added to a `#[non_exhaustive]` struct: additive when it is an
//!   `Option` (its `new` is then unchanged), breaking otherwise (a required
//!   field changes `new`);
//! - an `Option` field added to a struct that derives `Default` and is not
//!   `#[non_exhaustive]` (`Defaults`): additive for code that writes
//!   `..Default::default()`, which the README asks for;
//! - a variant added to an enum: breaking (a `match` without `_` stops
//!   compiling).
//!
//! This is the generator's own reading of its output, not a full semver
//! check: `cargo semver-checks` is the ecosystem's tool for a released crate.

use std::collections::BTreeMap;

use quote::ToTokens;

/// What a regeneration changes for the bindings' users.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Change {
    /// The same public surface: comments, formatting, private code only.
    None,
    /// Only additions that compile with code written against the old output.
    Additive(Vec<String>),
    /// Changes that can stop code written against the old output compiling.
    Breaking(Vec<String>),
}

impl Change {
    /// One line, then up to `max` of the reasons, each on its own line.
    pub fn describe(&self, max: usize) -> String {
        let (head, items) = match self {
            Change::None => {
                return "the public API is unchanged (docs or private code only)".into();
            }
            Change::Additive(items) => ("additive: code that compiles today still compiles", items),
            Change::Breaking(items) => ("breaking: code that compiles today may not", items),
        };
        let mut out = format!("the change is {head}");
        for item in items.iter().take(max) {
            out.push_str("\n  ");
            out.push_str(item);
        }
        if items.len() > max {
            out.push_str(&format!("\n  … and {} more", items.len() - max));
        }
        out
    }
}

/// Compares two generated files; `None` when either does not parse.
pub fn classify(old: &str, new: &str) -> Option<Change> {
    let old = surface(&syn::parse_file(old).ok()?);
    let new = surface(&syn::parse_file(new).ok()?);
    let mut breaking = Vec::new();
    let mut added = Vec::new();
    for (key, before) in &old {
        match new.get(key) {
            None => breaking.push(format!("`{key}` removed")),
            Some(after) => compare(key, before, after, &mut breaking, &mut added),
        }
    }
    for key in new.keys().filter(|key| !old.contains_key(*key)) {
        added.push(format!("`{key}` added"));
    }
    Some(if !breaking.is_empty() {
        Change::Breaking(breaking)
    } else if !added.is_empty() {
        Change::Additive(added)
    } else {
        Change::None
    })
}

/// One public item, as far as its users can see it.
#[derive(Debug, PartialEq)]
enum Item {
    Struct {
        non_exhaustive: bool,
        default: bool,
        head: String,
        /// Public fields: name → type.
        fields: BTreeMap<String, String>,
    },
    Enum {
        head: String,
        variants: BTreeMap<String, String>,
    },
    /// A struct's `impl_new!`: its parameters (the required fields), and
    /// the optional fields it sets to `None`, which may grow.
    Constructor { params: String },
    /// Anything compared as a whole (a function's signature, an alias, a
    /// constant, a macro call, a trait impl).
    Whole(String),
}

fn compare(
    key: &str,
    before: &Item,
    after: &Item,
    breaking: &mut Vec<String>,
    added: &mut Vec<String>,
) {
    match (before, after) {
        (
            Item::Struct {
                head: h1,
                fields: f1,
                ..
            },
            Item::Struct {
                non_exhaustive,
                default,
                head: h2,
                fields: f2,
            },
        ) => {
            if h1 != h2 {
                breaking.push(format!("`{key}` changed"));
            }
            for (name, ty) in f1 {
                match f2.get(name) {
                    None => breaking.push(format!("field `{key}.{name}` removed")),
                    Some(other) if other != ty => {
                        breaking.push(format!("field `{key}.{name}` changed type"))
                    }
                    Some(_) => {}
                }
            }
            for (name, ty) in f2.iter().filter(|(name, _)| !f1.contains_key(*name)) {
                let optional = ty.starts_with(":: std :: option :: Option <");
                if optional && (*non_exhaustive || *default) {
                    added.push(format!("optional field `{key}.{name}` added"));
                } else if optional {
                    breaking.push(format!(
                        "field `{key}.{name}` added to a struct that is neither `#[non_exhaustive]` nor `Default`"
                    ));
                } else {
                    breaking.push(format!("required field `{key}.{name}` added"));
                }
            }
        }
        (
            Item::Enum {
                head: h1,
                variants: v1,
            },
            Item::Enum {
                head: h2,
                variants: v2,
            },
        ) => {
            if h1 != h2 {
                breaking.push(format!("`{key}` changed"));
            }
            for (name, shape) in v1 {
                match v2.get(name) {
                    None => breaking.push(format!("variant `{key}::{name}` removed")),
                    Some(other) if other != shape => {
                        breaking.push(format!("variant `{key}::{name}` changed"))
                    }
                    Some(_) => {}
                }
            }
            for name in v2.keys().filter(|name| !v1.contains_key(*name)) {
                breaking.push(format!(
                    "variant `{key}::{name}` added (a `match` without `_` no longer covers the enum)"
                ));
            }
        }
        (a, b) if a == b => {}
        _ => breaking.push(format!("`{key}` changed")),
    }
}

/// Every public item of the file by its path (`types::Pet`,
/// `Client::authorize`, `builder::Authorize::ref_`).
fn surface(file: &syn::File) -> BTreeMap<String, Item> {
    let mut out = BTreeMap::new();
    items(&file.items, "", &mut out);
    out
}

fn items(list: &[syn::Item], prefix: &str, out: &mut BTreeMap<String, Item>) {
    for item in list {
        match item {
            syn::Item::Mod(m) if is_public(&m.vis) => {
                if let Some((_, inner)) = &m.content {
                    items(inner, &format!("{prefix}{}::", m.ident), out);
                }
            }
            syn::Item::Struct(s) if is_public(&s.vis) => {
                let fields = s
                    .fields
                    .iter()
                    .filter(|f| is_public(&f.vis))
                    .enumerate()
                    .map(|(i, f)| {
                        let name = f.ident.as_ref().map_or(i.to_string(), ToString::to_string);
                        (name, tokens(&f.ty))
                    })
                    .collect();
                let mut head = s.clone();
                head.fields = syn::Fields::Unit;
                head.attrs.retain(|a| !a.path().is_ident("doc"));
                out.insert(
                    format!("{prefix}{}", s.ident),
                    Item::Struct {
                        non_exhaustive: has_attr(&s.attrs, "non_exhaustive"),
                        default: derives(&s.attrs, "Default"),
                        head: tokens(&head),
                        fields,
                    },
                );
            }
            syn::Item::Enum(e) if is_public(&e.vis) => {
                let variants = e
                    .variants
                    .iter()
                    .map(|v| {
                        let mut v = v.clone();
                        strip_docs(&mut v.attrs);
                        for field in v.fields.iter_mut() {
                            strip_docs(&mut field.attrs);
                        }
                        (v.ident.to_string(), tokens(&v))
                    })
                    .collect();
                let mut head = e.clone();
                head.variants.clear();
                strip_docs(&mut head.attrs);
                out.insert(
                    format!("{prefix}{}", e.ident),
                    Item::Enum {
                        head: tokens(&head),
                        variants,
                    },
                );
            }
            syn::Item::Fn(f) if is_public(&f.vis) => {
                out.insert(
                    format!("{prefix}{}", f.sig.ident),
                    Item::Whole(tokens(&f.sig)),
                );
            }
            syn::Item::Type(t) if is_public(&t.vis) => {
                let mut t = t.clone();
                strip_docs(&mut t.attrs);
                out.insert(format!("{prefix}{}", t.ident), Item::Whole(tokens(&t)));
            }
            syn::Item::Const(c) if is_public(&c.vis) => {
                let mut c = c.clone();
                strip_docs(&mut c.attrs);
                out.insert(format!("{prefix}{}", c.ident), Item::Whole(tokens(&c)));
            }
            syn::Item::Impl(i) => {
                let self_ty = tokens(&i.self_ty).replace(' ', "");
                if let Some((trait_path, _)) = &i.trait_ {
                    let name = tokens(trait_path).replace(' ', "");
                    out.insert(
                        format!("{prefix}impl {name} for {self_ty}"),
                        Item::Whole(String::new()),
                    );
                    continue;
                }
                let ty = self_ty.split('<').next().unwrap_or_default().to_owned();
                for member in &i.items {
                    if let syn::ImplItem::Fn(f) = member
                        && is_public(&f.vis)
                    {
                        out.insert(
                            format!("{prefix}{ty}::{}", f.sig.ident),
                            Item::Whole(tokens(&f.sig)),
                        );
                    }
                }
            }
            syn::Item::Macro(m) => {
                // `impl_response!(Enum, ...)`, `impl_string_enum!(Enum {...})`:
                // named by the macro and the first identifier it is given.
                let name = m.mac.path.segments.last().map(|s| s.ident.to_string());
                let mut tokens = m.mac.tokens.clone().into_iter();
                match name.as_deref() {
                    // A `Debug` impl: not a surface anything builds on.
                    Some("impl_builder_debug") => continue,
                    // `impl_new!(T(a: A, b: B), c, d)`: `T::new(a, b)`.
                    Some("impl_new") => {
                        if let (
                            Some(proc_macro2::TokenTree::Ident(ty)),
                            Some(proc_macro2::TokenTree::Group(params)),
                        ) = (tokens.next(), tokens.next())
                        {
                            out.insert(
                                format!("{prefix}{ty}::new"),
                                Item::Constructor {
                                    params: params.stream().to_string(),
                                },
                            );
                            continue;
                        }
                    }
                    _ => {}
                }
                let first = m.mac.tokens.clone().into_iter().find_map(|t| match t {
                    proc_macro2::TokenTree::Ident(ident) => Some(ident.to_string()),
                    _ => None,
                });
                out.insert(
                    format!(
                        "{prefix}{}!({})",
                        name.unwrap_or_default(),
                        first.unwrap_or_default()
                    ),
                    Item::Whole(m.mac.tokens.to_string()),
                );
            }
            _ => {}
        }
    }
}

fn is_public(vis: &syn::Visibility) -> bool {
    matches!(vis, syn::Visibility::Public(_))
}

fn has_attr(attrs: &[syn::Attribute], name: &str) -> bool {
    attrs.iter().any(|a| a.path().is_ident(name))
}

fn derives(attrs: &[syn::Attribute], name: &str) -> bool {
    attrs
        .iter()
        .filter(|a| a.path().is_ident("derive"))
        .any(|a| {
            tokens(&a.meta)
                .split([' ', ',', '(', ')'])
                .any(|w| w == name)
        })
}

fn strip_docs(attrs: &mut Vec<syn::Attribute>) {
    attrs.retain(|a| !a.path().is_ident("doc"));
}

fn tokens(item: &impl ToTokens) -> String {
    item.to_token_stream().to_string()
}

#[cfg(test)]
mod tests {
    use super::{Change, classify};

    const BASE: &str = r#"
        pub mod types {
            /// A pet.
            #[derive(Clone, Debug, PartialEq)]
            #[non_exhaustive]
            pub struct Pet { pub id: i64, pub name: ::std::option::Option<String> }
            pub enum Kind { Cat, Dog }
        }
        #[derive(Default)]
        pub struct Defaults { pub a: ::std::option::Option<String> }
        pub struct Client;
        impl Client { pub fn get(&self) -> u8 { 1 } fn private(&self) {} }
    "#;

    fn with(from: &str, to: &str) -> String {
        assert!(BASE.contains(from), "{from}");
        BASE.replace(from, to)
    }

    #[test]
    fn additions_are_additive_and_the_rest_breaking() {
        assert_eq!(classify(BASE, BASE), Some(Change::None));
        assert_eq!(
            classify(BASE, &with("/// A pet.", "/// A cat or a dog.")),
            Some(Change::None)
        );
        for (from, to) in [
            (
                "pub name:",
                "pub tag: ::std::option::Option<String>, pub name:",
            ),
            ("pub a:", "pub b: ::std::option::Option<u8>, pub a:"),
            (
                "fn private(&self) {}",
                "fn private(&self) {} pub fn put(&self) {}",
            ),
            ("pub struct Client;", "pub struct Client; pub struct Other;"),
        ] {
            let change = classify(BASE, &with(from, to)).unwrap();
            assert!(matches!(change, Change::Additive(_)), "{to}: {change:?}");
        }
        for (from, to, says) in [
            (
                "pub name:",
                "pub age: i64, pub name:",
                "required field `types::Pet.age` added",
            ),
            (
                "Cat, Dog",
                "Cat, Dog, Bird",
                "variant `types::Kind::Bird` added",
            ),
            ("Cat, Dog", "Cat", "variant `types::Kind::Dog` removed"),
            (
                "pub id: i64",
                "pub id: i32",
                "field `types::Pet.id` changed type",
            ),
            ("-> u8 { 1 }", "-> u16 { 1 }", "`Client::get` changed"),
            ("pub struct Client;", "", "`Client` removed"),
        ] {
            let change = classify(BASE, &with(from, to)).unwrap();
            let Change::Breaking(reasons) = &change else {
                panic!("{to}: {change:?}")
            };
            assert!(
                reasons.iter().any(|r| r.starts_with(says)),
                "{to}: {reasons:?}"
            );
        }
    }
}
