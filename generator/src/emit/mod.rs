//! [`model::Api`](crate::model::Api) → formatted Rust source.
//!
//! Each concept emits its own items (`types`, `client`, `responses`); this
//! module joins them into one file, formats it with `prettyplease`, and puts
//! the header comment on top.

mod client;
mod responses;
mod types;

use proc_macro2::{Ident, Span, TokenStream};
use quote::quote;

use crate::model::{Api, TypeRef};

/// Emits the whole file. `header` is the comment placed above the code.
pub fn emit(api: &Api, header: &str) -> Result<String, syn::Error> {
    let types = types::emit(api);
    let client = client::emit(api);
    let responses = responses::emit(api);
    let title = format!(" {} (version {}).", api.title, api.version);
    let description = doc_lines(api.description.as_deref());
    let tokens = quote! {
        #![doc = #title]
        #![doc = ""]
        #(#![doc = #description])*
        #types
        #client
        #responses
    };
    let file: syn::File = syn::parse2(tokens)?;
    Ok(format!("{header}\n{}", prettyplease::unparse(&file)))
}

pub(crate) fn ident(name: &str) -> Ident {
    Ident::new(name, Span::call_site())
}

/// The lines of a description, each with the leading space `///` would have.
fn doc_lines(text: Option<&str>) -> Vec<String> {
    text.map(|t| {
        t.trim_end()
            .lines()
            .map(|l| format!(" {}", l.trim_end()))
            .collect()
    })
    .unwrap_or_default()
}

/// `#[doc]` attributes for a description (nothing when there is none).
pub(crate) fn doc(text: Option<&str>) -> TokenStream {
    let lines = doc_lines(text);
    quote! { #(#[doc = #lines])* }
}

/// The Rust type for a use of a type; `types` is the path to the types module
/// from where the type is written (empty inside it).
pub(crate) fn rust_type(ty: &TypeRef, types: &TokenStream) -> TokenStream {
    match ty {
        TypeRef::String => quote!(::std::string::String),
        TypeRef::Integer { bits: 32 } => quote!(i32),
        TypeRef::Integer { .. } => quote!(i64),
        TypeRef::Number => quote!(f64),
        TypeRef::Boolean => quote!(bool),
        TypeRef::Map => {
            quote!(::client_runtime::serde_json::Map<::std::string::String, ::client_runtime::serde_json::Value>)
        }
        TypeRef::Value => quote!(::client_runtime::serde_json::Value),
        TypeRef::MapOf(value) => {
            let value = rust_type(value, types);
            quote!(::std::collections::BTreeMap<::std::string::String, #value>)
        }
        TypeRef::Array(item) => {
            let item = rust_type(item, types);
            quote!(::std::vec::Vec<#item>)
        }
        TypeRef::Optional(inner) => {
            let inner = rust_type(inner, types);
            quote!(::std::option::Option<#inner>)
        }
        TypeRef::Named(name) => {
            let name = ident(name);
            quote!(#types #name)
        }
    }
}
