//! Per operation: an enum of its answers, one variant per documented status,
//! with a struct for each response's documented headers.

use proc_macro2::TokenStream;
use quote::quote;

use super::layout::{Part, emit};
use super::{comment_text, doc, ident, rust_type};
use crate::model::{Api, Operation, Response, Status, TypeRef};

/// The `variants` constants, then each operation's answers.
pub(crate) fn parts<'a>(api: &'a Api, feature: Option<&'a str>) -> Vec<Part<'a>> {
    let mut parts = vec![Part::Items(emit(move || {
        super::gated(variant_constants(api), feature)
    }))];
    parts.extend(
        api.operations
            .iter()
            .map(|op| Part::Items(emit(move || super::gated(operation(op), feature)))),
    );
    parts
}

/// The name of every variant of every response enum, as a constant, sorted
/// and deduplicated: what `variant_name()` returns.
fn variant_constants(api: &Api) -> TokenStream {
    let mut all: std::collections::BTreeSet<String> = ["Mismatch".to_owned()].into();
    for op in &api.operations {
        all.extend(
            op.responses
                .iter()
                .chain(&op.default_response)
                .map(|r| r.variant.clone()),
        );
        if op.default_response.is_none() {
            all.insert("Undocumented".to_owned());
        }
    }
    let mut scope = crate::names::Scope::default();
    let consts = all.iter().map(|name| {
        let konst = ident(&scope.claim(&crate::names::screaming(name)));
        quote!(pub const #konst: &str = #name;)
    });
    quote! {
        /// The names `variant_name()` returns, one constant per variant of
        /// any response enum.
        pub mod variants {
            #(#consts)*
        }
    }
}

fn headers_name(op: &Operation, response: &Response) -> String {
    format!("{}{}Headers", op.type_name, response.variant)
}

/// The enum of an operation's answers; its decoder and accessors come from
/// the runtime's `impl_response!`, given each variant's status pattern and
/// how its body is read.
fn operation(op: &Operation) -> TokenStream {
    let types = quote!(types::);
    let name = ident(&format!("{}Response", op.type_name));
    let enum_doc = format!(
        " The answers of [`Client::{}`]: a variant per documented status; `Mismatch` when its body does not match, `Undocumented` for any other status.",
        op.method_name
    );
    let documented: Vec<&Response> = op.responses.iter().chain(&op.default_response).collect();

    let mut variants = Vec::new();
    let mut arms = Vec::new();
    let mut header_structs = Vec::new();
    for response in &documented {
        let variant = ident(&response.variant);
        let first_line = first_line(&response.description);
        let status = match response.status {
            Status::Code(code) => format!(" {code}: {first_line}"),
            Status::Range(hundreds) => format!(" {hundreds}XX: {first_line}"),
            Status::Default => format!(" Any other status: {first_line}"),
        };
        let body_ty = match &response.body {
            Some(ty) => rust_type(ty, &types),
            None => quote!(()),
        };
        let headers_ty = if response.headers.is_empty() {
            quote!(())
        } else {
            let headers = ident(&headers_name(op, response));
            header_structs.push(header_struct(&headers, response));
            quote!(#headers)
        };
        variants.push(quote! {
            #[doc = #status]
            #variant(rt::Decoded<#body_ty, #headers_ty>),
        });
        let how = ident(if response.body.is_some() {
            "json"
        } else {
            "empty"
        });
        // Exact codes first, then ranges, then the default: the first
        // matching arm wins.
        arms.push(match response.status {
            Status::Code(code) => {
                let code = proc_macro2::Literal::u16_unsuffixed(code);
                (0, quote!(#code => #variant #how))
            }
            Status::Range(hundreds) => {
                let low = proc_macro2::Literal::u16_unsuffixed(hundreds * 100);
                let high = proc_macro2::Literal::u16_unsuffixed(hundreds * 100 + 99);
                (1, quote!(#low..=#high => #variant #how))
            }
            Status::Default => (2, quote!(_ => #variant #how)),
        });
    }
    if op.default_response.is_none() {
        variants.push(quote!(Undocumented(rt::RawResponse),));
        arms.push((2, quote!(_ => Undocumented raw)));
    }
    arms.sort_by_key(|(rank, _)| *rank);
    let arms = arms.iter().map(|(_, arm)| arm);
    quote! {
        #[doc = #enum_doc]
        #[derive(Clone, Debug)]
        pub enum #name {
            #(#variants)*
            Mismatch {
                raw: rt::RawResponse,
                reason: ::std::string::String,
            },
        }

        rt::impl_response!(#name, #(#arms),*);

        #(#header_structs)*
    }
}

fn header_struct(name: &proc_macro2::Ident, response: &Response) -> TokenStream {
    let fields = response.headers.iter().map(|header| {
        let required = if header.required {
            "documented as always present"
        } else {
            "optional"
        };
        let head = comment_text(&format!(
            " `{}` ({required}); `None` when absent or not parseable.",
            header.name
        ));
        let doc = doc(header.description.as_deref());
        let field = ident(&header.rust_name);
        let ty = rust_type(scalar(&header.ty), &quote!(types::));
        quote! { #[doc = #head] #[doc = ""] #doc pub #field: ::std::option::Option<#ty>, }
    });
    let parses = response.headers.iter().map(|header| {
        let field = ident(&header.rust_name);
        let wire = header.name.to_ascii_lowercase();
        quote!(#field: rt::parse_header(headers, #wire),)
    });
    let struct_doc = format!(
        " The documented headers of the answer: {}",
        first_line(&response.description)
    );
    quote! {
        #[doc = #struct_doc]
        #[derive(Clone, Debug, Default, PartialEq)]
        pub struct #name {
            #(#fields)*
        }

        impl rt::FromHeaders for #name {
            fn from_headers(headers: &rt::reqwest::header::HeaderMap) -> Self {
                Self {
                    #(#parses)*
                }
            }
        }
    }
}

fn scalar(ty: &TypeRef) -> &TypeRef {
    match ty {
        TypeRef::Optional(inner) => inner,
        other => other,
    }
}

/// The first line of a description, safe for a comment.
fn first_line(text: &str) -> String {
    let line = text
        .split(['\n', '\r', '\u{2028}', '\u{2029}', '\u{85}'])
        .next()
        .unwrap_or("");
    comment_text(line)
}
