//! Named types: structs for objects, enums for string enums, aliases for the rest.

use proc_macro2::TokenStream;
use quote::quote;

use super::features::TagFeatures;
use super::layout::{Part, emit};
use super::{doc, ident, rust_type};
use crate::model::{Api, EnumValue, Field, TaggedVariant, TypeDef, TypeRef, Variant};

/// The `types` module, one item per named type.
pub(crate) fn parts<'a>(api: &'a Api, tags: Option<&'a TagFeatures>) -> Vec<Part<'a>> {
    let items = api
        .types
        .iter()
        .map(|(name, def)| {
            emit(move || super::gated_cfg(item(api, name, def), tags.and_then(|t| t.named(name))))
        })
        .collect();
    vec![Part::Module {
        head: emit(|| {
            quote! {
                /// Types of the schemas in the spec.
                pub mod types {}
            }
        }),
        items,
    }]
}

fn item(api: &Api, name: &str, def: &TypeDef) -> TokenStream {
    match def {
        TypeDef::Struct {
            description,
            fields,
        } => structure(
            name,
            description.as_deref(),
            fields,
            has_default(api, &TypeRef::Named(name.to_owned()), &mut Vec::new()),
        ),
        TypeDef::Enum {
            description,
            variants,
        } => enumeration(name, description.as_deref(), variants),
        TypeDef::Alias { description, ty } => {
            let doc = doc(description.as_deref());
            let name = ident(name);
            let ty = rust_type(ty, &TokenStream::new());
            quote! { #doc pub type #name = #ty; }
        }
        TypeDef::Newtype { description, ty } => {
            let doc = doc(description.as_deref());
            let default = has_default(api, &TypeRef::Named(name.to_owned()), &mut Vec::new())
                .then(|| quote!(Default,));
            let name = ident(name);
            let ty = rust_type(ty, &TokenStream::new());
            quote! {
                #doc
                #[derive(Clone, Debug, #default PartialEq, ::serde::Serialize, ::serde::Deserialize)]
                #[serde(transparent)]
                pub struct #name(pub #ty);
            }
        }
        TypeDef::Tagged {
            description,
            tag,
            variants,
        } => tagged(name, description.as_deref(), tag, variants),
        TypeDef::OneOf {
            description,
            tag,
            variants,
        } => {
            let display = tag.is_none()
                && variants
                    .iter()
                    .all(|v| crate::model::is_scalar(&api.types, &v.ty, 0));
            one_of(
                name,
                description.as_deref(),
                tag.as_deref(),
                variants,
                display,
            )
        }
    }
}

/// Whether values of `ty` have a `Default`: every primitive, list, map and
/// option does, a struct when every field does (so a body with many
/// optional fields is `Body::default()` with the fields set); an enum
/// or `oneOf` has no value to prefer, and a type that holds itself by value
/// (through a box) none that is finite. `visiting` holds the named types on
/// the way.
fn has_default(api: &Api, ty: &TypeRef, visiting: &mut Vec<String>) -> bool {
    match ty {
        TypeRef::Optional(_)
        | TypeRef::String
        | TypeRef::Secret
        | TypeRef::Integer { .. }
        | TypeRef::Number
        | TypeRef::Boolean
        | TypeRef::Map
        | TypeRef::Value
        | TypeRef::MapOf(_)
        | TypeRef::Array(_)
        | TypeRef::File => true,
        TypeRef::Boxed(inner) => has_default(api, inner, visiting),
        TypeRef::Named(name) => {
            if visiting.contains(name) {
                return false;
            }
            visiting.push(name.clone());
            let has = match api.types.get(name) {
                Some(TypeDef::Struct { fields, .. }) => fields
                    .iter()
                    .all(|f| !f.required || has_default(api, &f.ty, visiting)),
                Some(TypeDef::Alias { ty, .. }) | Some(TypeDef::Newtype { ty, .. }) => {
                    has_default(api, ty, visiting)
                }
                _ => false,
            };
            visiting.pop();
            has
        }
    }
}

/// A struct, `#[non_exhaustive]` with a constructor of its required
/// fields (`new`, in the spec's order; each optional one `None`; a struct
/// of optional fields only has `Default` for it): a field
/// the spec adds later, optional, then changes no code that builds or
/// matches it in another crate (`T::new(..)`, `T { a, .. }`), where a
/// struct literal would no longer compile. Fields stay public, to read and
/// to set.
fn structure(
    name: &str,
    description: Option<&str>,
    fields: &[Field],
    default: bool,
) -> TokenStream {
    let default = default.then(|| quote!(Default,));
    let struct_doc = doc(description);
    let constructor = constructor(name, fields);
    let name = ident(name);
    let fields = fields.iter().map(|field| field_tokens(field, quote!(pub)));
    quote! {
        #struct_doc
        #[derive(Clone, Debug, #default PartialEq, ::serde::Serialize, ::serde::Deserialize)]
        #[non_exhaustive]
        pub struct #name {
            #(#fields)*
        }

        #constructor
    }
}

/// `T::new(required fields)`, from the runtime's `impl_new!` (nothing
/// when every field is optional: `T::default()` is its constructor).
fn constructor(name: &str, fields: &[Field]) -> TokenStream {
    if fields.iter().all(|f| !f.required) {
        return TokenStream::new();
    }
    let params = fields.iter().filter(|f| f.required).map(|field| {
        let name = ident(&field.rust_name);
        let ty = rust_type(&field.ty, &TokenStream::new());
        quote!(#name: #ty)
    });
    let optional = fields
        .iter()
        .filter(|f| !f.required)
        .map(|field| ident(&field.rust_name));
    let name = ident(name);
    quote! {
        ::client_runtime::impl_new!(#name(#(#params),*) #(, #optional)*);
    }
}

/// A field of a struct (`vis`: `pub`) or of an enum's variant (none): an
/// optional one is `Option`, left out when `None`.
fn field_tokens(field: &Field, vis: TokenStream) -> TokenStream {
    let doc = doc(field.description.as_deref());
    let rust_name = ident(&field.rust_name);
    let wire = &field.name;
    let rename = (field.rust_name != field.name).then(|| quote!(#[serde(rename = #wire)]));
    let (ty, skip) = match (&field.ty, field.required) {
        (TypeRef::Optional(_), true) => (rust_type(&field.ty, &TokenStream::new()), quote!()),
        // Optional and nullable: three states, absent (`None`, left out),
        // `null` (`Some(None)`) and a value (`Some(Some(v))`), so that a
        // request can clear a field ("use `null` to remove the milestone")
        // and an answer tells a `null` from a property left out.
        (TypeRef::Optional(_), false) => {
            let ty = rust_type(&field.ty, &TokenStream::new());
            (
                quote!(::std::option::Option<#ty>),
                quote!(#[serde(
                    default,
                    skip_serializing_if = "::std::option::Option::is_none",
                    deserialize_with = "::client_runtime::nullable::deserialize"
                )]),
            )
        }
        (ty, true) => (rust_type(ty, &TokenStream::new()), quote!()),
        (ty, false) => {
            let ty = rust_type(ty, &TokenStream::new());
            (
                quote!(::std::option::Option<#ty>),
                quote!(#[serde(default, skip_serializing_if = "::std::option::Option::is_none")]),
            )
        }
    };
    quote! { #doc #rename #skip #vis #rust_name: #ty, }
}

/// A tagged `oneOf`: serde puts the tag in and takes it out (`#[serde(tag)]`),
/// each variant holding its member's other properties.
fn tagged(
    name: &str,
    description: Option<&str>,
    tag: &str,
    variants: &[TaggedVariant],
) -> TokenStream {
    let doc = doc(description);
    let name = ident(name);
    let variants = variants.iter().map(|variant| {
        let doc = super::doc(variant.description.as_deref());
        let ident = ident(&variant.name);
        let value = &variant.tag_value;
        if variant.fields.is_empty() {
            return quote! { #doc #[serde(rename = #value)] #ident, };
        }
        let fields = variant
            .fields
            .iter()
            .map(|field| field_tokens(field, quote!()));
        quote! { #doc #[serde(rename = #value)] #ident { #(#fields)* }, }
    });
    quote! {
        #doc
        #[derive(Clone, Debug, PartialEq, ::serde::Serialize, ::serde::Deserialize)]
        #[serde(tag = #tag)]
        pub enum #name {
            #(#variants)*
        }
    }
}

/// A string enum: the enum and its wire names; `ALL`, `as_str`, `Display`,
/// `FromStr` and serde come from the runtime's `impl_string_enum!`, written
/// once there rather than in every enum.
fn enumeration(name: &str, description: Option<&str>, variants: &[EnumValue]) -> TokenStream {
    let doc = doc(description);
    let name = ident(name);
    let idents: Vec<_> = variants.iter().map(|v| ident(&v.name)).collect();
    let docs = variants
        .iter()
        .map(|v| super::doc(v.description.as_deref()));
    let wires: Vec<_> = variants.iter().map(|v| v.wire.as_str()).collect();
    quote! {
        #doc
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum #name {
            #( #docs #idents, )*
        }

        ::client_runtime::impl_string_enum!(#name { #( #idents = #wires ),* });
    }
}

/// `oneOf`/`anyOf`: tagged by the discriminator's property, or untagged
/// (the first variant that matches wins, in the spec's order).
fn one_of(
    name: &str,
    description: Option<&str>,
    tag: Option<&str>,
    variants: &[Variant],
    display: bool,
) -> TokenStream {
    let doc = doc(description);
    let name = ident(name);
    // Every variant prints as one string: so does the whole, which lets it
    // be a parameter.
    let display = display.then(|| {
        let arms = variants.iter().map(|variant| {
            let ident = ident(&variant.name);
            quote!(Self::#ident(value) => ::std::fmt::Display::fmt(value, f),)
        });
        quote! {
            impl ::std::fmt::Display for #name {
                fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                    match self {
                        #(#arms)*
                    }
                }
            }
        }
    });
    let how = match tag {
        Some(tag) => quote!(#[serde(tag = #tag)]),
        None => quote!(#[serde(untagged)]),
    };
    let variants = variants.iter().map(|variant| {
        let ident = ident(&variant.name);
        let ty = rust_type(&variant.ty, &TokenStream::new());
        let rename = variant
            .tag_value
            .as_ref()
            .map(|value| quote!(#[serde(rename = #value)]));
        quote! { #rename #ident(#ty), }
    });
    quote! {
        #doc
        #[derive(Clone, Debug, PartialEq, ::serde::Serialize, ::serde::Deserialize)]
        #how
        pub enum #name {
            #(#variants)*
        }

        #display
    }
}
