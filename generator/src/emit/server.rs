//! [`model::Api`](crate::model::Api) → a server module for axum
//! (`generator --server`).
//!
//! From the same lowered model the client is emitted from, one file:
//!
//! - per operation, its typed inputs (`{Op}Path`, `{Op}Query`,
//!   `{Op}Headers`, and the body) and an enum of its documented answers
//!   (`{Op}Answer`: status, headers, body; `IntoResponse`);
//! - the trait `Api`, one async method per operation, and `rejected`, which
//!   answers a request whose inputs failed (by default with the document's
//!   own answer for the failure's status: `Rejection::documented_response`
//!   in `client_runtime::server`);
//! - `router` / `router_with`, an `axum::Router` for any `Api`: it routes
//!   by the document's path templates, reads and types every input, and
//!   calls the trait only when every input is what the document says.
//!
//! The module refers to the client's types as `super::types`: it is placed
//! beside the generated client file's contents (a sibling module of its
//! `types`). Paths are fully qualified; every identifier goes through
//! [`crate::names`]; every text of the spec goes into a doc comment through
//! [`super::doc`] or into a string literal through `quote`, never into code.

use proc_macro2::TokenStream;
use quote::quote;
use serde_json::{Map, Value};

use super::{comment_text, doc, ident, module_doc_lines, rust_type};
use crate::model::{
    Api, ArrayStyle, BodyMedia, Location, ObjectStyle, Operation, Param, ParamStyle, PathSegment,
    PathStyle, Response, Status, TypeDef, TypeRef,
};
use crate::names::{Scope, pascal, screaming};

/// The names one operation's items get.
struct Names {
    method: String,
    handler: String,
    answers: String,
    path: Option<String>,
    query: Option<String>,
    headers: Option<String>,
    cookies: Option<String>,
    answer: String,
    /// Per response (documented, then `default`), its headers struct.
    response_headers: Vec<Option<String>>,
}

/// Emits the whole server file: `header` on top.
pub fn emit(api: &Api, header: &str) -> Result<String, syn::Error> {
    let mut types = Scope::new(&["Api"]);
    let mut methods = Scope::new(&["rejected"]);
    let mut consts = Scope::new(&["ROUTES", "FALLBACK_ANSWERS"]);
    let names: Vec<Names> = api
        .operations
        .iter()
        .map(|op| {
            let has = |location: Location| op.params.iter().any(|p| p.location == location);
            let method = methods.claim(&op.method_name);
            let answer = types.claim(&format!("{}Answer", op.type_name));
            let first = op.responses.first().map(|r| &r.headers);
            let shared = first.is_some_and(|h| !h.is_empty())
                && responses(op).all(|r| Some(&r.headers) == first);
            let shared = shared.then(|| types.claim(&format!("{answer}Headers")));
            let response_headers = responses(op)
                .map(|r| match &shared {
                    Some(name) => Some(name.clone()),
                    None => (!r.headers.is_empty())
                        .then(|| types.claim(&format!("{answer}{}Headers", pascal(&r.variant)))),
                })
                .collect();
            Names {
                handler: format!("handle_{method}"),
                answers: consts.claim(&format!("{}_ANSWERS", screaming(&op.type_name))),
                path: has(Location::Path).then(|| types.claim(&format!("{}Path", op.type_name))),
                query: has(Location::Query).then(|| types.claim(&format!("{}Query", op.type_name))),
                headers: has(Location::Header)
                    .then(|| types.claim(&format!("{}Headers", op.type_name))),
                cookies: has(Location::Cookie)
                    .then(|| types.claim(&format!("{}Cookies", op.type_name))),
                answer,
                response_headers,
                method,
            }
        })
        .collect();

    let title = comment_text(&format!(
        " Server for {} (version {}): implement `Api`, serve `router`.",
        api.title, api.version
    ));
    let description = module_doc_lines(api.description.as_deref());
    let inputs = api
        .operations
        .iter()
        .zip(&names)
        .map(|(op, n)| inputs(op, n));
    let answers = api
        .operations
        .iter()
        .zip(&names)
        .map(|(op, n)| answer_enum(op, n));
    let tables = api
        .operations
        .iter()
        .zip(&names)
        .map(|(op, n)| answers_table(api, op, n));
    let trait_methods = api
        .operations
        .iter()
        .zip(&names)
        .map(|(op, n)| trait_method(op, n));
    let handlers = api
        .operations
        .iter()
        .zip(&names)
        .map(|(op, n)| handler(op, n));
    let routes = api.operations.iter().map(route);
    let arms = names.iter().enumerate().map(|(i, n)| {
        let handler = ident(&n.handler);
        quote!(::client_runtime::server::Routed::Found(#i, path) => return #handler(api, options, head, path, body).await,)
    });
    // A request outside every operation is answered with the answers of
    // the first operation that documents a client error (or any).
    let fallback = api
        .operations
        .iter()
        .zip(&names)
        .find(|(op, _)| {
            responses(op).any(|r| match r.status {
                Status::Code(code) => (400..500).contains(&code),
                Status::Range(h) => h == 4,
                Status::Default => true,
            })
        })
        .or_else(|| api.operations.iter().zip(&names).next())
        .map(|(_, n)| {
            let answers = ident(&n.answers);
            quote!(#answers)
        })
        .unwrap_or_else(|| quote!(&[]));

    let tokens = quote! {
        #![doc = #title]
        #![doc = ""]
        #(#![doc = #description])*
        #![doc = ""]
        #![doc = " Generated by `generator --server`: inputs are read and checked"]
        #![doc = " before `Api` is called; an input that fails is answered by"]
        #![doc = " `Api::rejected`, by default with the document's own answer for"]
        #![doc = " its status."]
        // An answer's variants hold its body inline.
        #![allow(clippy::large_enum_variant)]

        #(#inputs)*
        #(#answers)*

        /// The API's operations, one method each, called with inputs that
        /// are what the document says; and [`Api::rejected`], called
        /// instead when one is not.
        pub trait Api: ::std::marker::Send + ::std::marker::Sync + 'static {
            #(#trait_methods)*

            /// Answers a request that was refused before an operation was
            /// called: a path or method of no operation, a body over the
            /// limit, an input absent or not of its type. Default: the
            /// document's own answer for the rejection's status (its body
            /// with the message in its text fields), else plain text.
            fn rejected(
                &self,
                rejection: ::client_runtime::server::Rejection,
            ) -> impl ::std::future::Future<Output = ::client_runtime::server::axum::response::Response> + ::std::marker::Send {
                ::std::future::ready(rejection.documented_response())
            }
        }

        /// A router serving `api` with the default options (the
        /// operations' paths as written, a 2 MiB body limit).
        pub fn router<A: Api>(api: A) -> ::client_runtime::server::axum::Router {
            router_with(api, ::client_runtime::server::Options::default())
        }

        /// A router serving `api` with `options`: every request goes to
        /// the operation its method and path name, or to
        /// [`Api::rejected`].
        pub fn router_with<A: Api>(
            api: A,
            options: ::client_runtime::server::Options,
        ) -> ::client_runtime::server::axum::Router {
            let state = ::std::sync::Arc::new((api, options));
            ::client_runtime::server::axum::Router::new().fallback(
                move |request: ::client_runtime::server::axum::extract::Request| {
                    dispatch(::std::sync::Arc::clone(&state), request)
                },
            )
        }

        /// Each operation's method and path template, in document order.
        const ROUTES: &[::client_runtime::server::Route] = &[#(#routes),*];

        /// The answers a request outside every operation is answered from.
        const FALLBACK_ANSWERS: &[::client_runtime::server::Documented] = #fallback;

        #(#tables)*

        async fn dispatch<A: Api>(
            state: ::std::sync::Arc<(A, ::client_runtime::server::Options)>,
            request: ::client_runtime::server::axum::extract::Request,
        ) -> ::client_runtime::server::axum::response::Response {
            let (api, options) = (&state.0, &state.1);
            let (head, body) = request.into_parts();
            let failures: ::std::vec::Vec<::client_runtime::server::InputFailure> = match ::client_runtime::server::route(ROUTES, &options.base_path, &head.method, head.uri.path()) {
                #(#arms)*
                ::client_runtime::server::Routed::MethodNotAllowed(allowed) => allowed
                    .into_iter()
                    .map(|method| ::client_runtime::server::InputFailure::new(
                        ::client_runtime::server::Location::Path,
                        method,
                        ::client_runtime::server::Failure::MethodNotAllowed,
                        ::std::format!("{} is not a method of this path", head.method),
                    ))
                    .collect(),
                _ => ::std::vec![::client_runtime::server::InputFailure::new(
                    ::client_runtime::server::Location::Path,
                    "",
                    ::client_runtime::server::Failure::NotFound,
                    ::std::string::String::from("no operation has this path"),
                )],
            };
            ::std::mem::drop(body);
            api.rejected(::client_runtime::server::Rejection {
                operation: ::std::option::Option::None,
                failures,
                head,
                path: ::std::vec::Vec::new(),
                body: ::client_runtime::server::axum::body::Bytes::new(),
                answers: FALLBACK_ANSWERS,
            })
            .await
        }

        #(#handlers)*
    };
    let file = syn::parse2::<syn::File>(tokens)?;
    Ok(format!(
        "{header}\n{}",
        super::space_items(&prettyplease::unparse(&file))
    ))
}

/// An operation's documented responses, then its `default`.
fn responses(op: &Operation) -> impl Iterator<Item = &Response> {
    op.responses.iter().chain(&op.default_response)
}

fn types_path() -> TokenStream {
    quote!(super::types::)
}

/// A parameter's type: `format: password` is a `Secret`, which never
/// prints.
fn param_type(p: &Param) -> TypeRef {
    match (&p.ty, p.secret) {
        (TypeRef::String, true) => TypeRef::Secret,
        (ty, _) => ty.clone(),
    }
}

/// The Rust type of a parameter's field.
fn field_type(ty: &TypeRef, required: bool) -> TokenStream {
    let ty = rust_type(ty, &types_path());
    if required {
        ty
    } else {
        quote!(::std::option::Option<#ty>)
    }
}

/// How the trait receives the body, and how the router reads it (`None`:
/// the bytes as they came).
fn body_type(op: &Operation) -> Option<(TokenStream, Option<TokenStream>)> {
    let body = op.body.as_ref()?;
    let serde = |ty: &TypeRef, kind: TokenStream| {
        let ty = rust_type(ty, &types_path());
        (ty, Some(kind))
    };
    let (ty, read) = match &body.media {
        BodyMedia::Json { ty, .. } => serde(ty, quote!(::client_runtime::server::BodyKind::Json)),
        BodyMedia::Form { ty, .. } => serde(ty, quote!(::client_runtime::server::BodyKind::Form)),
        BodyMedia::Text { .. } => serde(
            &TypeRef::String,
            quote!(::client_runtime::server::BodyKind::Text),
        ),
        BodyMedia::Multipart(_) | BodyMedia::Binary { .. } => {
            (quote!(::client_runtime::server::axum::body::Bytes), None)
        }
    };
    let ty = if body.required {
        ty
    } else {
        quote!(::std::option::Option<#ty>)
    };
    Some((ty, read))
}

/// The input structs of one operation.
fn inputs(op: &Operation, n: &Names) -> TokenStream {
    let group = |name: &Option<String>, location: Location, what: &str| {
        let Some(name) = name else {
            return quote!();
        };
        let name = ident(name);
        let fields = op
            .params
            .iter()
            .filter(|p| p.location == location)
            .map(|p| {
                let field = ident(&p.rust_name);
                let ty = field_type(&param_type(p), p.required);
                let wire = comment_text(&format!(" `{}`", p.name));
                let description = doc(p.description.as_deref());
                quote! {
                    #[doc = #wire]
                    #description
                    pub #field: #ty,
                }
            });
        let line = comment_text(&format!(
            " The {what} of `{} {}`.",
            op.http_method, op.path_template
        ));
        quote! {
            #[doc = #line]
            #[derive(Clone, Debug)]
            #[non_exhaustive]
            pub struct #name {
                #(#fields)*
            }
        }
    };
    let path = group(&n.path, Location::Path, "path parameters");
    let query = group(&n.query, Location::Query, "query parameters");
    let headers = group(&n.headers, Location::Header, "header parameters");
    let cookies = group(&n.cookies, Location::Cookie, "cookie parameters");
    quote! { #path #query #headers #cookies }
}

/// The enum of an operation's documented answers, its headers structs, and
/// its `IntoResponse`.
fn answer_enum(op: &Operation, n: &Names) -> TokenStream {
    let name = ident(&n.answer);
    let mut variants = Vec::new();
    let mut arms = Vec::new();
    let mut structs = Vec::new();
    let mut structs_declared: Vec<String> = Vec::new();
    let mut scope = Scope::default();
    for (response, headers_name) in responses(op).zip(&n.response_headers) {
        let variant = ident(&scope.claim(&pascal(&response.variant)));
        let status_doc = match response.status {
            Status::Code(code) => format!(" Status {code}:"),
            Status::Range(h) => format!(" A status {h}XX (`status`):"),
            Status::Default => " Any other status (`status`):".to_owned(),
        };
        let status_doc = comment_text(&status_doc);
        let description = doc(Some(&response.description));
        let mut fields = Vec::new();
        let mut bind = Vec::new();
        let status_expr = match response.status {
            Status::Code(code) => quote!(::client_runtime::server::status(#code)),
            _ => {
                fields.push(quote!(status: u16));
                bind.push(quote!(status));
                quote!(::client_runtime::server::status(status))
            }
        };
        let body_expr = match &response.body {
            Some(ty) => {
                let ty = rust_type(ty, &types_path());
                fields.push(quote!(body: #ty));
                bind.push(quote!(body));
                quote!(::std::option::Option::Some(&body))
            }
            None => quote!(::std::option::Option::None::<&()>),
        };
        let mut header_values = Vec::new();
        if let Some(headers_name) = headers_name {
            let headers_ty = ident(headers_name);
            fields.push(quote!(headers: #headers_ty));
            bind.push(quote!(headers));
            let header_fields = response.headers.iter().map(|h| {
                let field = ident(&h.rust_name);
                let ty = field_type(&h.ty, h.required);
                let wire = comment_text(&format!(" `{}`", h.name));
                let description = doc(h.description.as_deref());
                quote! {
                    #[doc = #wire]
                    #description
                    pub #field: #ty,
                }
            });
            let line = comment_text(&format!(
                " The headers of an answer of `{} {}`.",
                op.http_method, op.path_template,
            ));
            let declared = structs_declared.contains(headers_name);
            structs_declared.push(headers_name.clone());
            structs.extend((!declared).then(|| {
                quote! {
                    #[doc = #line]
                    #[derive(Clone, Debug)]
                    pub struct #headers_ty {
                        #(#header_fields)*
                    }
                }
            }));
            for h in &response.headers {
                let field = ident(&h.rust_name);
                let wire = &h.name;
                header_values.push(if h.required {
                    quote!((#wire, ::client_runtime::server::header_value(&headers.#field)))
                } else {
                    quote!((#wire, headers.#field.as_ref().and_then(::client_runtime::server::header_value)))
                });
            }
        }
        variants.push(if fields.is_empty() {
            quote! {
                #[doc = #status_doc]
                #description
                #variant,
            }
        } else {
            quote! {
                #[doc = #status_doc]
                #description
                #variant { #(#fields),* },
            }
        });
        let pattern = if bind.is_empty() {
            quote!(Self::#variant)
        } else {
            quote!(Self::#variant { #(#bind),* })
        };
        arms.push(quote! {
            #pattern => ::client_runtime::server::answer(
                #status_expr,
                #body_expr,
                ::std::vec![#(#header_values),*],
            ),
        });
    }
    let line = comment_text(&format!(
        " The documented answers of `{} {}`.",
        op.http_method, op.path_template
    ));
    let body = if arms.is_empty() {
        quote!(match self {})
    } else {
        quote!(match self { #(#arms)* })
    };
    quote! {
        #(#structs)*

        #[doc = #line]
        #[derive(Clone, Debug)]
        pub enum #name {
            #(#variants)*
        }

        impl ::client_runtime::server::axum::response::IntoResponse for #name {
            fn into_response(self) -> ::client_runtime::server::axum::response::Response {
                #body
            }
        }
    }
}

/// The trait's method for one operation.
fn trait_method(op: &Operation, n: &Names) -> TokenStream {
    let method = ident(&n.method);
    let answer = ident(&n.answer);
    let args = input_args(op, n);
    let heading = comment_text(&format!(" `{} {}`", op.http_method, op.path_template));
    let summary = doc(op.summary.as_deref());
    let description = doc(op.description.as_deref());
    let spacer = op.description.as_ref().map(|_| quote!(#[doc = ""]));
    quote! {
        #summary
        #[doc = #heading]
        #spacer
        #description
        fn #method(
            &self,
            #(#args,)*
            request: ::client_runtime::server::axum::http::request::Parts,
        ) -> impl ::std::future::Future<Output = #answer> + ::std::marker::Send;
    }
}

/// The typed inputs' argument list.
fn input_args(op: &Operation, n: &Names) -> Vec<TokenStream> {
    let mut args = Vec::new();
    for (name, arg) in [
        (&n.path, "path"),
        (&n.query, "query"),
        (&n.headers, "headers"),
        (&n.cookies, "cookies"),
    ] {
        if let Some(name) = name {
            let ty = ident(name);
            let arg = ident(arg);
            args.push(quote!(#arg: #ty));
        }
    }
    if let Some((ty, _)) = body_type(op) {
        args.push(quote!(body: #ty));
    }
    args
}

/// `rt::Route { method, segments }` for one operation.
fn route(op: &Operation) -> TokenStream {
    let method = op.http_method.to_ascii_uppercase();
    let segment = |s: &PathSegment| -> TokenStream {
        match s {
            PathSegment::Literal(text) => quote!(::client_runtime::server::Segment::Literal(#text)),
            PathSegment::Param(i) => {
                let name = &op.params[*i].name;
                quote!(::client_runtime::server::Segment::Param(#name))
            }
            PathSegment::Mixed(pieces) => {
                let pieces = pieces.iter().map(|p| match p {
                    PathSegment::Param(i) => {
                        let name = &op.params[*i].name;
                        quote!(::client_runtime::server::Piece::Param(#name))
                    }
                    PathSegment::Literal(text) => {
                        quote!(::client_runtime::server::Piece::Literal(#text))
                    }
                    PathSegment::Mixed(_) => quote!(::client_runtime::server::Piece::Literal("")),
                });
                quote!(::client_runtime::server::Segment::Mixed(&[#(#pieces),*]))
            }
        }
    };
    let segments = op.path.iter().map(segment);
    quote!(::client_runtime::server::Route { method: #method, segments: &[#(#segments),*] })
}

/// The `rt::Param` that describes a parameter.
fn param_spec(p: &Param) -> TokenStream {
    let name = &p.name;
    let required = p.required;
    let location = match p.location {
        Location::Path => quote!(Path),
        Location::Query => quote!(Query),
        Location::Header => quote!(Header),
        Location::Cookie => quote!(Cookie),
    };
    let style = match p.style {
        ParamStyle::Scalar => quote!(Scalar),
        ParamStyle::Array(ArrayStyle::Repeat) => quote!(Array(::std::option::Option::None)),
        ParamStyle::Array(ArrayStyle::Joined(c)) => {
            quote!(Array(::std::option::Option::Some(#c)))
        }
        ParamStyle::Object(ObjectStyle::DeepObject) => quote!(DeepObject),
        ParamStyle::Object(ObjectStyle::Exploded) => quote!(Exploded),
        ParamStyle::Object(ObjectStyle::Joined) => quote!(Joined),
        ParamStyle::Json => quote!(Json),
    };
    let path_style = match p.path_style {
        None => quote!(::std::option::Option::None),
        Some(PathStyle::Label { explode }) => quote!(::std::option::Option::Some(
            ::client_runtime::server::PathStyle::Label { explode: #explode }
        )),
        Some(PathStyle::Matrix { explode }) => quote!(::std::option::Option::Some(
            ::client_runtime::server::PathStyle::Matrix { explode: #explode }
        )),
    };
    quote! {
        ::client_runtime::server::Param {
            name: #name,
            location: ::client_runtime::server::Location::#location,
            required: #required,
            style: ::client_runtime::server::Style::#style,
            path_style: #path_style,
        }
    }
}

/// The handler of one operation: reads every input, then calls the trait
/// or `rejected`.
fn handler(op: &Operation, n: &Names) -> TokenStream {
    let handler = ident(&n.handler);
    let method = ident(&n.method);
    let answers = ident(&n.answers);
    let operation = &op.method_name;
    let local = |p: &Param| ident(&format!("p_{}", p.rust_name));
    let reads = op.params.iter().map(|p| {
        let var = local(p);
        let ty = rust_type(&param_type(p), &types_path());
        let spec = param_spec(p);
        quote! {
            let #var = ::client_runtime::server::param::<#ty>(&inputs, &#spec, &mut failures);
        }
    });
    let group = |name: &Option<String>, location: Location| {
        let name = ident(name.as_ref()?);
        let fields = op
            .params
            .iter()
            .filter(|p| p.location == location)
            .map(|p| {
                let field = ident(&p.rust_name);
                let var = local(p);
                quote!(#field: #var)
            });
        Some(quote!(#name { #(#fields),* }))
    };
    let mut built = Vec::new();
    let mut names = Vec::new();
    let mut unwrap: Vec<TokenStream> = op
        .params
        .iter()
        .filter(|p| p.required)
        .map(|p| {
            let var = local(p);
            quote! {
                let ::std::option::Option::Some(#var) = #var else {
                    break 'typed ::std::option::Option::None;
                };
            }
        })
        .collect();
    for (group_name, location, arg) in [
        (&n.path, Location::Path, "path"),
        (&n.query, Location::Query, "query"),
        (&n.headers, Location::Header, "headers"),
        (&n.cookies, Location::Cookie, "cookies"),
    ] {
        if let Some(value) = group(group_name, location) {
            built.push(value);
            names.push(ident(arg));
        }
    }
    let body_read = body_type(op).map(|(_, kind)| {
        let required = op.body.as_ref().is_some_and(|b| b.required);
        let read = match kind {
            None => quote!(if bytes.is_empty() {
                if #required {
                    failures.push(::client_runtime::server::InputFailure::new(
                        ::client_runtime::server::Location::Body,
                        "",
                        ::client_runtime::server::Failure::Missing,
                        ::std::string::String::from("the request body is required"),
                    ));
                }
                ::std::option::Option::None
            } else {
                ::std::option::Option::Some(bytes.clone())
            }),
            Some(kind) => {
                quote!(::client_runtime::server::body(&bytes, #kind, #required, &mut failures))
            }
        };
        if required {
            unwrap.push(quote! {
                let ::std::option::Option::Some(body_value) = body_value else {
                    break 'typed ::std::option::Option::None;
                };
            });
        }
        built.push(quote!(body_value));
        names.push(ident("body"));
        quote! {
            let body_value = if read_whole { #read } else { ::std::option::Option::None };
        }
    });
    // Whether the body was read whole (none is decoded otherwise): only
    // where there is a body to decode.
    let read_whole = body_read
        .is_some()
        .then(|| quote!(let read_whole = failures.is_empty();));
    // Every required input unwrapped, else `None` (then there was a failure).
    let typed = if unwrap.is_empty() {
        quote!(::std::option::Option::Some((#(#built,)*)))
    } else {
        quote!('typed: {
            #(#unwrap)*
            ::std::option::Option::Some((#(#built,)*))
        })
    };
    quote! {
        async fn #handler<A: Api>(
            api: &A,
            options: &::client_runtime::server::Options,
            head: ::client_runtime::server::axum::http::request::Parts,
            path: ::std::vec::Vec<(&'static str, ::std::string::String)>,
            body: ::client_runtime::server::axum::body::Body,
        ) -> ::client_runtime::server::axum::response::Response {
            let mut failures = ::std::vec::Vec::new();
            let bytes = match ::client_runtime::server::read_body(&head, body, options.body_limit).await {
                ::std::result::Result::Ok(bytes) => bytes,
                ::std::result::Result::Err(failure) => {
                    failures.push(failure);
                    ::client_runtime::server::axum::body::Bytes::new()
                }
            };
            #read_whole
            let query = ::client_runtime::server::query_pairs(&head);
            let inputs = ::client_runtime::server::Inputs { head: &head, path: &path, query: &query };
            #(#reads)*
            #body_read
            let _ = &inputs;
            let typed = #typed;
            match typed {
                ::std::option::Option::Some((#(#names,)*)) if failures.is_empty() => {
                    ::client_runtime::server::axum::response::IntoResponse::into_response(
                        api.#method(#(#names,)* head).await,
                    )
                }
                _ => {
                    api.rejected(::client_runtime::server::Rejection {
                        operation: ::std::option::Option::Some(#operation),
                        failures,
                        head,
                        path,
                        body: bytes,
                        answers: #answers,
                    })
                    .await
                }
            }
        }
    }
}

/// The table of an operation's documented answers, with a JSON template of
/// each body.
fn answers_table(api: &Api, op: &Operation, n: &Names) -> TokenStream {
    let name = ident(&n.answers);
    // Only answers a rejection can take: not a success's.
    let rows = responses(op)
        .filter(|r| match r.status {
            Status::Code(code) => code >= 400,
            Status::Range(h) => h >= 4,
            Status::Default => true,
        })
        .map(|r| {
            let (status, range) = match r.status {
                Status::Code(code) => (code, false),
                Status::Range(h) => (h * 100, true),
                Status::Default => (0, false),
            };
            let (content_type, template) = match &r.body {
                Some(ty) => {
                    let template = template(api, ty, 0).to_string();
                    (
                        quote!(::std::option::Option::Some("application/json")),
                        quote!(::std::option::Option::Some(#template)),
                    )
                }
                None => (
                    quote!(::std::option::Option::None),
                    quote!(::std::option::Option::None),
                ),
            };
            quote! {
                ::client_runtime::server::Documented {
                    status: #status,
                    range: #range,
                    content_type: #content_type,
                    template: #template,
                }
            }
        });
    let line = comment_text(&format!(
        " The documented answers of `{} {}`, for its rejections.",
        op.http_method, op.path_template
    ));
    quote! {
        #[doc = #line]
        const #name: &[::client_runtime::server::Documented] = &[#(#rows),*];
    }
}

/// A JSON value of `ty`'s shape, for a rejection's answer: text is the
/// message, numbers the status, booleans `false`, lists empty, objects
/// their required properties, enums their first value.
fn template(api: &Api, ty: &TypeRef, depth: usize) -> Value {
    const MESSAGE: &str = "\u{0}message";
    const STATUS: &str = "\u{0}status";
    if depth > 32 {
        return Value::Null;
    }
    let fields = |fields: &[crate::model::Field], map: &mut Map<String, Value>| {
        for f in fields.iter().filter(|f| f.required) {
            map.insert(f.name.clone(), template(api, &f.ty, depth + 1));
        }
    };
    match ty {
        TypeRef::String | TypeRef::Secret | TypeRef::File => Value::from(MESSAGE),
        TypeRef::Integer { .. } | TypeRef::Number => Value::from(STATUS),
        TypeRef::Boolean => Value::Bool(false),
        TypeRef::Map | TypeRef::MapOf(_) => Value::Object(Map::new()),
        TypeRef::Value => Value::from(MESSAGE),
        TypeRef::Array(_) => Value::Array(Vec::new()),
        TypeRef::Optional(_) => Value::Null,
        TypeRef::Boxed(inner) => template(api, inner, depth + 1),
        TypeRef::Named(name) => match api.types.get(name) {
            Some(TypeDef::Struct { fields: f, .. }) => {
                let mut map = Map::new();
                fields(f, &mut map);
                Value::Object(map)
            }
            Some(TypeDef::Enum { variants, .. }) => variants
                .first()
                .map_or(Value::Null, |v| Value::from(v.wire.clone())),
            Some(TypeDef::Alias { ty, .. }) | Some(TypeDef::Newtype { ty, .. }) => {
                template(api, ty, depth + 1)
            }
            Some(TypeDef::OneOf { tag, variants, .. }) => {
                let Some(first) = variants.first() else {
                    return Value::Null;
                };
                let mut value = template(api, &first.ty, depth + 1);
                if let (Some(tag), Some(tag_value), Value::Object(map)) =
                    (tag, &first.tag_value, &mut value)
                {
                    map.insert(tag.clone(), Value::from(tag_value.clone()));
                }
                value
            }
            Some(TypeDef::Tagged { tag, variants, .. }) => {
                let mut map = Map::new();
                if let Some(first) = variants.first() {
                    map.insert(tag.clone(), Value::from(first.tag_value.clone()));
                    fields(&first.fields, &mut map);
                }
                Value::Object(map)
            }
            None => Value::Null,
        },
    }
}
