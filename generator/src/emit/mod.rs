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
    Ok(format!(
        "{header}\n{}",
        space_items(&prettyplease::unparse(&file))
    ))
}

/// Puts a blank line between consecutive items, which `prettyplease` does not:
/// after a closing `}` or a `;` when the next line, at the same indent, starts
/// an item, its attributes or its doc comment; and after the module's doc.
fn space_items(code: &str) -> String {
    let starts_item = |line: &str| {
        [
            "#[", "///", "pub ", "impl", "fn ", "mod ", "const ", "type ", "struct ", "enum ",
        ]
        .iter()
        .any(|p| line.starts_with(p))
    };
    let indent = |line: &str| line.len() - line.trim_start().len();
    let lines: Vec<&str> = code.lines().collect();
    let mut out = String::with_capacity(code.len() + code.len() / 16);
    for (i, line) in lines.iter().enumerate() {
        out.push_str(line);
        out.push('\n');
        let Some(next) = lines.get(i + 1) else {
            continue;
        };
        let is_comment = line.trim_start().starts_with("//");
        let ends_item = !is_comment && (line.trim() == "}" || line.trim_end().ends_with(';'));
        let ends_module_doc = line.starts_with("//!") && !next.starts_with("//!");
        if ends_module_doc {
            out.push('\n');
            continue;
        }
        if ends_item && indent(line) == indent(next) && starts_item(next.trim_start()) {
            out.push('\n');
        }
    }
    out
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

#[cfg(test)]
mod tests {
    use super::space_items;

    #[test]
    fn separates_items_but_not_statements_or_comments() {
        let code = "//! Doc.\nmod a {\n    pub struct A;\n    /// Ends with a semicolon;\n    pub struct B {\n        x: u8,\n    }\n    impl B {\n        fn f() {\n            let x = 1;\n            let y = x;\n        }\n    }\n}\n";
        let spaced = space_items(code);
        assert_eq!(
            spaced,
            "//! Doc.\n\nmod a {\n    pub struct A;\n\n    /// Ends with a semicolon;\n    pub struct B {\n        x: u8,\n    }\n\n    impl B {\n        fn f() {\n            let x = 1;\n            let y = x;\n        }\n    }\n}\n"
        );
    }
}
