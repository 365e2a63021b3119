//! Operations' answers: an enum per shape of answers (one variant per
//! documented status), shared by the operations of that shape and generic in
//! their types; per operation, an alias naming it with the operation's types,
//! and a struct for the documented headers (one per operation when every
//! answer documents the same ones, else one per response).

use proc_macro2::{Ident, TokenStream};
use quote::quote;

use super::features::TagFeatures;
use super::layout::{Part, emit};
use super::{comment_text, doc, ident, rust_type};
use crate::model::{Api, Operation, Response, Status, TypeRef};

/// The `variants` constants, then each operation's answers: the enum of
/// their shape where it is first used, the operation's alias of it, and its
/// header structs.
pub(crate) fn parts<'a>(
    api: &'a Api,
    feature: Option<&'a str>,
    tags: Option<&'a TagFeatures>,
) -> Vec<Part<'a>> {
    let mut parts = vec![Part::Items(emit(move || {
        super::gated(variant_constants(api), feature)
    }))];
    // Each shape, its name and the operations that have it.
    let mut shapes: Vec<(Shape, String, Vec<usize>)> = Vec::new();
    let mut names = crate::names::Scope::default();
    let mut of_op = Vec::new();
    for (i, op) in api.operations.iter().enumerate() {
        let shape = Shape::of(op);
        let (index, first) = match shapes.iter().position(|(s, ..)| *s == shape) {
            Some(index) => (index, false),
            None => {
                let name = names.claim(&shape.name());
                shapes.push((shape, name, Vec::new()));
                (shapes.len() - 1, true)
            }
        };
        shapes[index].2.push(i);
        of_op.push((index, first));
    }
    let shapes = std::sync::Arc::new(shapes);
    for (i, (op, (index, first))) in api.operations.iter().zip(of_op).enumerate() {
        let shapes = shapes.clone();
        parts.push(Part::Items(emit(move || {
            let (shape, name, users) = &shapes[index];
            // The shape's enum where it is first used, compiled with any
            // of the operations that have it.
            let declared =
                first.then(|| super::gated_cfg(shape.declare(name), tags.map(|t| t.any_op(users))));
            let operation = super::gated_cfg(operation(op, shape, name), tags.map(|t| t.op(i)));
            super::gated(quote! { #declared #operation }, feature)
        })));
    }
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

/// What an operation's answers enum looks like, its types left out: the
/// arms (status, variant, whether a body and headers are documented) in the
/// order they are matched, and whether other statuses are undocumented.
/// Operations of one shape share one enum, generic in the bodies' and
/// headers' types; each names it with its own types by an alias.
#[derive(Clone, PartialEq)]
struct Shape {
    arms: Vec<Arm>,
    undocumented: bool,
    /// Every response that documents headers documents the same ones (the
    /// usual case: a header of every answer): one type parameter
    /// (`Headers`) and, per operation, one struct for them all.
    same_headers: bool,
}

#[derive(Clone, PartialEq)]
struct Arm {
    status: Status,
    variant: String,
    body: bool,
    headers: bool,
}

impl Arm {
    /// The type parameter of its documented body (`OkBody`), if any.
    fn body_param(&self) -> Option<Ident> {
        self.body.then(|| ident(&format!("{}Body", self.variant)))
    }

    /// The type parameter of its documented headers (`OkHeaders`, or
    /// `Headers` when they are the same for every answer), if any.
    fn headers_param(&self, same: bool) -> Option<Ident> {
        self.headers.then(|| match same {
            true => ident("Headers"),
            false => ident(&format!("{}Headers", self.variant)),
        })
    }
}

impl Shape {
    fn of(op: &Operation) -> Self {
        let mut arms: Vec<Arm> = op
            .responses
            .iter()
            .chain(&op.default_response)
            .map(|response| Arm {
                status: response.status,
                variant: response.variant.clone(),
                body: response.body.is_some(),
                headers: !response.headers.is_empty(),
            })
            .collect();
        // Exact codes first, then ranges, then the default: the first
        // matching arm wins.
        arms.sort_by_key(|arm| rank(arm.status));
        Self {
            arms,
            undocumented: op.default_response.is_none(),
            same_headers: same_headers(op),
        }
    }

    /// A short name from its successes: `OkAnswers`, `CreatedAnswers`,
    /// `OkNoContentAnswers` (the variants of its 2XX statuses; without
    /// one, of its first arm; without arms, `Answers`). Shapes with the
    /// same successes get a number ([`crate::names::Scope`]), in the order
    /// operations come; operations are named by their aliases
    /// (`AuthorizeResponse`), so this name is what compiler messages and
    /// rustdoc show, and it does not change when an operation is added.
    fn name(&self) -> String {
        let success = |arm: &&Arm| match arm.status {
            Status::Code(code) => (200..300).contains(&code),
            Status::Range(hundreds) => hundreds == 2,
            Status::Default => false,
        };
        let mut named: String = self
            .arms
            .iter()
            .filter(success)
            .map(|arm| arm.variant.as_str())
            .collect();
        if named.is_empty() {
            named = self
                .arms
                .first()
                .map(|arm| arm.variant.clone())
                .unwrap_or_default();
        }
        format!("{named}Answers")
    }

    /// The type parameters: one per documented body (`OkBody`), one per
    /// response with documented headers (`OkHeaders`), or one for them all
    /// (`Headers`) when they are the same.
    fn params(&self) -> Vec<Ident> {
        let mut params: Vec<Ident> = Vec::new();
        for arm in &self.arms {
            for param in [arm.body_param(), arm.headers_param(self.same_headers)]
                .into_iter()
                .flatten()
            {
                if !params.contains(&param) {
                    params.push(param);
                }
            }
        }
        params
    }

    /// The enum, and its decoder and accessors from the runtime's
    /// `impl_response!`, given each variant's status pattern and how its
    /// body is read.
    fn declare(&self, name: &str) -> TokenStream {
        let name = ident(name);
        let mut variants = Vec::new();
        let mut arms = Vec::new();
        let mut bounds = Vec::new();
        for arm in &self.arms {
            let variant = ident(&arm.variant);
            let status = match arm.status {
                Status::Code(code) => format!(" Status {code}."),
                Status::Range(hundreds) => format!(" A status {hundreds}XX."),
                Status::Default => " Any other status.".to_owned(),
            };
            let body = match arm.body_param() {
                Some(param) => {
                    bounds.push(quote!(#param: rt::DeserializeOwned));
                    quote!(#param)
                }
                None => quote!(()),
            };
            let headers = match arm.headers_param(self.same_headers) {
                Some(param) => {
                    let bound = quote!(#param: rt::FromHeaders).to_string();
                    if !bounds.iter().any(|b| b.to_string() == bound) {
                        bounds.push(quote!(#param: rt::FromHeaders));
                    }
                    quote!(#param)
                }
                None => quote!(()),
            };
            variants.push(quote! {
                #[doc = #status]
                #variant(rt::Decoded<#body, #headers>),
            });
            let how = ident(if arm.body { "json" } else { "empty" });
            arms.push(match arm.status {
                Status::Code(code) => {
                    let code = proc_macro2::Literal::u16_unsuffixed(code);
                    quote!(#code => #variant #how)
                }
                Status::Range(hundreds) => {
                    let low = proc_macro2::Literal::u16_unsuffixed(hundreds * 100);
                    let high = proc_macro2::Literal::u16_unsuffixed(hundreds * 100 + 99);
                    quote!(#low..=#high => #variant #how)
                }
                Status::Default => quote!(_ => #variant #how),
            });
        }
        if self.undocumented {
            variants.push(quote! {
                /// A status the operation does not document.
                Undocumented(rt::RawResponse),
            });
            arms.push(quote!(_ => Undocumented raw));
        }
        let params = self.params();
        let generics = (!params.is_empty()).then(|| quote!(<#(#params),*>));
        let statuses: Vec<String> = self
            .arms
            .iter()
            .map(|arm| status_text(arm.status))
            .collect();
        let enum_doc = comment_text(&format!(
            " The answers of the operations that document {}: a variant per status, `Mismatch` for a documented status whose body does not match{}. Each such operation names it with its own types (`…Response`).",
            listed(&statuses),
            if self.undocumented {
                ", `Undocumented` for any other status"
            } else {
                ""
            },
        ));
        // Not generic: the runtime's macro in its plain form.
        let decoder = if params.is_empty() {
            quote!(rt::impl_response!(#name, #(#arms),*);)
        } else {
            quote!(rt::impl_response!([#(#bounds),*] #name<#(#params),*>, #(#arms),*);)
        };
        quote! {
            #[doc = #enum_doc]
            #[derive(Clone, Debug)]
            pub enum #name #generics {
                #(#variants)*
                /// A documented status whose body does not match its schema.
                Mismatch {
                    raw: rt::RawResponse,
                    reason: ::std::string::String,
                },
            }

            #decoder
        }
    }
}

/// Whether every response of `op` that documents headers documents the
/// same ones, and at least two do.
fn same_headers(op: &Operation) -> bool {
    let mut with = op
        .responses
        .iter()
        .chain(&op.default_response)
        .filter(|r| !r.headers.is_empty());
    let Some(first) = with.next() else {
        return false;
    };
    let mut others = with.peekable();
    others.peek().is_some() && others.all(|r| r.headers == first.headers)
}

/// The order in which statuses are matched.
fn rank(status: Status) -> u8 {
    match status {
        Status::Code(_) => 0,
        Status::Range(_) => 1,
        Status::Default => 2,
    }
}

fn status_text(status: Status) -> String {
    match status {
        Status::Code(code) => code.to_string(),
        Status::Range(hundreds) => format!("{hundreds}XX"),
        Status::Default => "`default`".to_owned(),
    }
}

/// `a`, `a and b`, `a, b and c`.
fn listed(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

/// An operation's answers: the enum of its shape with its own bodies' and
/// headers' types, and its header structs.
fn operation(op: &Operation, shape: &Shape, shape_name: &str) -> TokenStream {
    let types = quote!(types::);
    let name = ident(&format!("{}Response", op.type_name));
    let mut lines = vec![format!(" The answers of [`Client::{}`]:", op.method_name)];
    let mut args = Vec::new();
    let mut header_structs = Vec::new();
    for arm in &shape.arms {
        let Some(response) = op
            .responses
            .iter()
            .chain(&op.default_response)
            .find(|r| r.variant == arm.variant)
        else {
            continue;
        };
        lines.push(format!(
            " - `{}` ({}): {}",
            arm.variant,
            status_text(arm.status),
            first_paragraph(&response.description)
        ));
        if let Some(body) = &response.body {
            args.push(rust_type(body, &types));
        }
        if arm.headers && shape.same_headers {
            // One struct for every answer, where the first needs it.
            if header_structs.is_empty() {
                let headers = ident(&format!("{}Headers", op.type_name));
                let doc = format!(
                    " The documented headers of every answer of [`Client::{}`].",
                    op.method_name
                );
                header_structs.push(header_struct(&headers, response, doc));
                args.push(quote!(#headers));
            }
        } else if arm.headers {
            let headers = ident(&headers_name(op, response));
            let doc = format!(
                " The documented headers of the answer: {}",
                first_paragraph(&response.description)
            );
            header_structs.push(header_struct(&headers, response, doc));
            args.push(quote!(#headers));
        }
    }
    let shape_name = ident(shape_name);
    let args = (!args.is_empty()).then(|| quote!(<#(#args),*>));
    quote! {
        #(#[doc = #lines])*
        pub type #name = #shape_name #args;

        #(#header_structs)*
    }
}

fn header_struct(
    name: &proc_macro2::Ident,
    response: &Response,
    struct_doc: String,
) -> TokenStream {
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
    quote! {
        #[doc = #struct_doc]
        #[derive(Clone, Debug, Default, PartialEq)]
        #[non_exhaustive]
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

/// The first paragraph of a description on one line, safe for a comment: a
/// description wrapped over several lines is not cut mid-sentence.
fn first_paragraph(text: &str) -> String {
    let mut words: Vec<&str> = Vec::new();
    for line in text.split(['\n', '\r', '\u{2028}', '\u{2029}', '\u{85}']) {
        if line.trim().is_empty() {
            if words.is_empty() {
                continue;
            }
            break;
        }
        words.extend(line.split_whitespace());
    }
    comment_text(&words.join(" "))
}
