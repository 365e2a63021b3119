//! The `Client`, its defaults, the server URL, and one request builder per operation.

use proc_macro2::{Ident, TokenStream};
use quote::quote;

use super::features::TagFeatures;
use super::layout::{Part, emit};
use super::{comment_text, doc, ident, rust_type};
use crate::model::{
    Api, ArrayStyle, Body, BodyChoice, BodyMedia, FormStyle, Location, ObjectStyle, Operation,
    Param, ParamStyle, PathSegment, PathStyle, SchemeKind, TypeRef, UrlPiece,
};
use crate::names::Scope;

/// The server URL, the defaults, the `Client`, and the `builder` module with
/// one request builder per operation.
pub(crate) fn parts<'a>(
    api: &'a Api,
    feature: Option<&'a str>,
    tags: Option<&'a TagFeatures>,
) -> Vec<Part<'a>> {
    let builders = api
        .operations
        .iter()
        .enumerate()
        .map(|(i, op)| emit(move || super::gated_cfg(builder(api, op), tags.map(|t| t.op(i)))))
        .collect();
    vec![
        Part::Items(emit(move || super::gated(client(api, tags), feature))),
        Part::Module {
            head: emit(move || {
                // The runtime by a short name, where there is code to use it
                // (with features by tag, possibly none turned on).
                let allow = tags.map(|_| quote!(#[allow(unused_imports)]));
                let uses = (!api.operations.is_empty()).then(|| {
                    quote!(
                        #allow
                        use ::client_runtime as rt;
                    )
                });
                super::gated(
                    quote! {
                        /// One request builder per operation.
                        pub mod builder {
                            #uses
                        }
                    },
                    feature,
                )
            }),
            items: builders,
        },
    ]
}

/// `Credentials`, one field per security scheme the client applies (none
/// when the spec declares none).
fn credentials(api: &Api) -> TokenStream {
    if api.security.is_empty() {
        return TokenStream::new();
    }
    let fields = api.security.iter().map(|scheme| {
        let name = ident(&scheme.rust_name);
        let how = match &scheme.kind {
            SchemeKind::ApiKey { location, name } => {
                let place = match location {
                    Location::Query => "in the query",
                    Location::Cookie => "in a cookie",
                    _ => "in the header",
                };
                format!("an API key, sent {place} `{name}`")
            }
            SchemeKind::Bearer => "a token, sent as `Authorization: Bearer …`".to_owned(),
            SchemeKind::Basic => {
                "a user name and password, sent as `Authorization: Basic …`".to_owned()
            }
        };
        let head = comment_text(&format!(" `{}`: {how}.", scheme.name));
        let description = scheme.description.as_deref().map(|text| {
            let lines = doc(Some(text));
            quote! { #[doc = ""] #lines }
        });
        let ty = match scheme.kind {
            SchemeKind::Basic => quote!(rt::Basic),
            _ => quote!(rt::Secret),
        };
        quote! { #[doc = #head] #description pub #name: ::std::option::Option<#ty>, }
    });
    quote! {
        /// The credentials of the spec's security schemes, set once on the
        /// client; each operation applies those its `security` asks for
        /// (the first alternative whose credentials are all set). Each is a
        /// secret: it never prints.
        #[derive(Clone, Debug, Default, PartialEq)]
        pub struct Credentials {
            #(#fields)*
        }
    }
}

/// Statements applying the credentials an operation's `security` asks
/// for, to `request`: the first alternative whose credentials are all set.
fn authenticate(api: &Api, op: &Operation, locals: &Locals) -> TokenStream {
    if op.security.is_empty() || api.security.is_empty() {
        return TokenStream::new();
    }
    let Locals {
        request,
        credentials,
        ..
    } = locals;
    let mut branches = Vec::new();
    for alternative in &op.security {
        if alternative.is_empty() {
            // No credential needed: nothing is sent when none before fits.
            break;
        }
        let names: Vec<_> = alternative
            .iter()
            .map(|&i| ident(&api.security[i].rust_name))
            .collect();
        let held: Vec<_> = alternative
            .iter()
            .map(|&i| locals.schemes[i].clone())
            .collect();
        let applies = alternative
            .iter()
            .zip(&held)
            .map(|(&i, held)| match &api.security[i].kind {
                SchemeKind::ApiKey {
                    location: Location::Query,
                    name,
                } => quote! {
                    rt::append_query(#request.url_mut(), #name, #held.expose());
                },
                SchemeKind::ApiKey {
                    location: Location::Cookie,
                    name,
                } => quote! {
                    rt::add_cookie(#request.headers_mut(), #name, #held)?;
                },
                SchemeKind::ApiKey { name, .. } => {
                    let wire = name.to_ascii_lowercase();
                    quote! {
                        rt::insert_secret_header(#request.headers_mut(), #wire, #held.expose())?;
                    }
                }
                SchemeKind::Bearer => quote! {
                    rt::set_bearer(#request.headers_mut(), #held)?;
                },
                SchemeKind::Basic => quote! {
                    rt::set_basic(#request.headers_mut(), #held)?;
                },
            });
        branches.push(match (&held[..], &names[..]) {
            ([held], [name]) => quote! {
                if let Some(#held) = &#credentials.#name {
                    #(#applies)*
                }
            },
            _ => quote! {
                if let (#(Some(#held),)*) = (#(&#credentials.#names,)*) {
                    #(#applies)*
                }
            },
        });
    }
    if branches.is_empty() {
        return TokenStream::new();
    }
    quote! {
        let #credentials = &self.client.credentials;
        #(#branches)else*
    }
}

fn client(api: &Api, tags: Option<&TagFeatures>) -> TokenStream {
    let server = server(api);
    let defaults = defaults(api);
    let credentials = credentials(api);
    let has_credentials = !api.security.is_empty();
    let credentials_field = has_credentials.then(|| quote!(credentials: Credentials,));
    let credentials_debug =
        has_credentials.then(|| quote!(.field("credentials", &self.credentials)));
    let credentials_init = has_credentials.then(|| quote!(credentials: Credentials::default(),));
    let credentials_methods = has_credentials.then(|| {
        quote! {
            /// Authenticates requests with `credentials`, applied to each
            /// operation as its `security` asks.
            pub fn with_credentials(mut self, credentials: Credentials) -> Self {
                self.credentials = credentials;
                self
            }

            pub fn credentials(&self) -> &Credentials {
                &self.credentials
            }
        }
    });
    let methods = api.operations.iter().enumerate().map(|(i, op)| {
        let doc = operation_doc(op);
        let method = ident(&op.method_name);
        let builder = ident(&op.type_name);
        let inits = builder_inits(api, op);
        let cfg = tags.map(|t| {
            let predicate = t.op(i);
            quote!(#[cfg(#predicate)])
        });
        quote! {
            #doc
            #cfg
            pub fn #method(&self) -> builder::#builder<'_> {
                builder::#builder { client: self, #(#inits)* }
            }
        }
    });
    // A link only to an item that exists: `server_url` is emitted where
    // the spec names a server, and rustdoc warns on a link to nothing.
    let new_doc_end = if api.server.is_some() {
        " are appended to (see [`server_url`] for the spec's first server)."
    } else {
        " are appended to."
    };
    quote! {
        #server
        #defaults
        #credentials

        /// A client for the API: where it is, how requests travel, and the
        /// values every request starts from.
        #[derive(Clone)]
        pub struct Client {
            base_url: rt::reqwest::Url,
            transport: rt::Transport,
            defaults: Defaults,
            #credentials_field
        }

        /// The base URL without its password, if it has one.
        impl ::std::fmt::Debug for Client {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.debug_struct("Client")
                    .field("base_url", &rt::redact::url_text(self.base_url.as_str()))
                    .field("transport", &self.transport)
                    .field("defaults", &self.defaults)
                    #credentials_debug
                    .finish()
            }
        }

        impl Client {
            #[doc = " A client for the API at `base_url`, the URL that operation paths"]
            #[doc = #new_doc_end]
            pub fn new(base_url: &str) -> ::std::result::Result<Self, rt::Error> {
                ::std::result::Result::Ok(Self {
                    base_url: rt::parse_base_url(base_url)?,
                    transport: rt::Transport::default(),
                    defaults: Defaults::default(),
                    #credentials_init
                })
            }

            /// Sends requests with `transport` (time-out, body cap, HTTP client).
            pub fn with_transport(mut self, transport: rt::Transport) -> Self {
                self.transport = transport;
                self
            }

            /// Starts every request from `defaults`.
            pub fn with_defaults(mut self, defaults: Defaults) -> Self {
                self.defaults = defaults;
                self
            }

            #credentials_methods

            pub fn base_url(&self) -> &rt::reqwest::Url {
                &self.base_url
            }

            pub fn transport(&self) -> &rt::Transport {
                &self.transport
            }

            pub fn defaults(&self) -> &Defaults {
                &self.defaults
            }

            /// Sends a prepared request, possibly changed after it was built, and
            /// decodes the answer with its operation's decoder.
            pub async fn send<R: rt::DecodeResponse>(
                &self,
                prepared: rt::Prepared<R>,
            ) -> ::std::result::Result<R, rt::Error> {
                self.transport.execute(prepared).await
            }

            #(#methods)*
        }
    }
}

fn operation_doc(op: &Operation) -> TokenStream {
    let summary = doc(op.summary.as_deref());
    let description = doc(op.description.as_deref());
    let route = comment_text(&format!(" `{} {}`", op.http_method, op.path_template));
    // The route ends the summary's paragraph.
    let before_description = op.description.is_some().then(|| quote!(#[doc = ""]));
    quote! { #summary #[doc = #route] #before_description #description }
}

/// `server_url()` from the first entry of `servers`, one argument a variable.
fn server(api: &Api) -> TokenStream {
    let Some(server) = &api.server else {
        return TokenStream::new();
    };
    let template = &server.url;
    let args: Vec<_> = server
        .variables
        .iter()
        .map(|(_, rust)| ident(rust))
        .collect();
    let pieces = server.pieces.iter().map(|piece| match piece {
        UrlPiece::Literal(literal) => match literal.chars().collect::<Vec<_>>()[..] {
            [one] => quote!(url.push(#one);),
            _ => quote!(url.push_str(#literal);),
        },
        UrlPiece::Variable(index) => {
            let arg = ident(&server.variables[*index].1);
            quote!(url.push_str(#arg);)
        }
    });
    let description = doc(server.description.as_deref());
    let template_doc = comment_text(&format!(
        " The URL template of the spec's first server: `{template}`."
    ));
    quote! {
        #[doc = #template_doc]
        pub const SERVER_URL_TEMPLATE: &str = #template;

        /// The API's base URL with the server variables filled in.
        #[doc = ""]
        #description
        pub fn server_url(#(#args: &str),*) -> ::std::string::String {
            let mut url = ::std::string::String::new();
            #(#pieces)*
            url
        }
    }
}

fn defaults(api: &Api) -> TokenStream {
    let fields = api.shared_headers.iter().map(|param| {
        let doc = param_doc(param);
        let name = ident(&param.rust_name);
        let ty = stored_type(param, &quote!(types::));
        quote! { #doc pub #name: ::std::option::Option<#ty>, }
    });
    quote! {
        /// Values of the header parameters that every operation takes; each
        /// request starts from them and may override them.
        #[derive(Clone, Debug, Default, PartialEq)]
        pub struct Defaults {
            #(#fields)*
        }
    }
}

fn param_doc(param: &Param) -> TokenStream {
    let location = match param.location {
        Location::Path => "path",
        Location::Query => "query",
        Location::Header => "header",
        Location::Cookie => "cookie",
    };
    let required = if param.required {
        "required"
    } else {
        "optional"
    };
    let head = comment_text(&format!(" `{}` ({location}, {required})", param.name));
    // A one-line description goes on the head's line; a longer one
    // continues its paragraph.
    match &super::doc_lines(param.description.as_deref())[..] {
        [] => {
            let head = format!("{head}.");
            quote! { #[doc = #head] }
        }
        [line] => {
            let head = format!("{head}:{line}");
            quote! { #[doc = #head] }
        }
        lines => {
            let head = format!("{head}.");
            quote! { #[doc = #head] #(#[doc = #lines])* }
        }
    }
}

/// How a parameter's value is held: secrets in `Secret`, the rest as typed.
fn stored_type(param: &Param, types: &TokenStream) -> TokenStream {
    if param.secret {
        quote!(rt::Secret)
    } else {
        rust_type(&param.ty, types)
    }
}

/// Whether values of `ty` are `Copy` (so cloning them would draw a lint).
fn is_copy(api: &Api, ty: &TypeRef) -> bool {
    match ty {
        TypeRef::Integer { .. } | TypeRef::Number | TypeRef::Boolean => true,
        TypeRef::Named(name) => match api.types.get(name) {
            Some(crate::model::TypeDef::Enum { .. }) => true,
            Some(crate::model::TypeDef::Alias { ty, .. }) => is_copy(api, ty),
            _ => false,
        },
        _ => false,
    }
}

/// An expression giving `&str` for the value in `var`.
fn as_str(param: &Param, var: TokenStream) -> TokenStream {
    if param.secret {
        quote!(#var.expose())
    } else if param.ty == TypeRef::String {
        quote!(#var.as_str())
    } else {
        quote!(&#var.to_string())
    }
}

/// The local variables of a builder's `build()`, named by the emitter:
/// each is claimed in a scope where the operation's parameters (which
/// `build()` binds as locals of their own names) are taken first, so no
/// parameter's name can shadow or be shadowed by one.
struct Locals {
    request: Ident,
    item: Ident,
    values: Ident,
    value: Ident,
    joined: Ident,
    body: Ident,
    form: Ident,
    credentials: Ident,
    /// One per security scheme of the API: its credential, when applied.
    schemes: Vec<Ident>,
}

impl Locals {
    fn new(api: &Api, op: &Operation) -> Self {
        let mut scope = Scope::new(&["self", "client"]);
        for param in &op.params {
            scope.claim(&param.rust_name);
        }
        let mut local = |name: &str| ident(&scope.claim(name));
        Self {
            request: local("request"),
            item: local("item"),
            values: local("values"),
            value: local("value"),
            joined: local("joined"),
            body: local("body"),
            form: local("form"),
            credentials: local("credentials"),
            schemes: api
                .security
                .iter()
                .map(|scheme| local(&format!("{}_credential", scheme.rust_name)))
                .collect(),
        }
    }
}

/// Statements appending the array query parameter held in `values` (a
/// `Vec<T>` or a reference to one) to the URL, as its style says.
fn append_array(
    param: &Param,
    style: ArrayStyle,
    values: TokenStream,
    locals: &Locals,
) -> TokenStream {
    let Locals {
        request,
        item,
        joined,
        ..
    } = locals;
    let wire = &param.name;
    let item_is_string = matches!(&param.ty, TypeRef::Array(item) if **item == TypeRef::String);
    match style {
        ArrayStyle::Repeat => {
            let value = if item_is_string {
                quote!(#item.as_str())
            } else {
                quote!(&#item.to_string())
            };
            quote! {
                for #item in #values.iter() {
                    rt::append_query(#request.url_mut(), #wire, #value);
                }
            }
        }
        ArrayStyle::Joined(separator) => {
            let separator = separator.to_string();
            quote! {
                let #joined: ::std::vec::Vec<::std::string::String> =
                    #values.iter().map(::std::string::ToString::to_string).collect();
                rt::append_query(#request.url_mut(), #wire, &#joined.join(#separator));
            }
        }
    }
}

/// The text of a header or path parameter, as a `&str` expression: `var`
/// is the value (a local or a reference), `by_ref` a reference to it.
fn text_of(param: &Param, var: TokenStream, by_ref: TokenStream) -> TokenStream {
    match param.style {
        ParamStyle::Scalar => as_str(param, var),
        ParamStyle::Array(style) => {
            let separator = match style {
                ArrayStyle::Joined(c) => c.to_string(),
                ArrayStyle::Repeat => ",".to_owned(),
            };
            quote! {
                &#var.iter().map(::std::string::ToString::to_string).collect::<::std::vec::Vec<_>>().join(#separator)
            }
        }
        ParamStyle::Object(style) => {
            let explode = style == ObjectStyle::Exploded;
            quote!(&rt::simple_text(#by_ref, #explode)?)
        }
        ParamStyle::Json => quote!(&rt::json_text(#by_ref)?),
    }
}

/// Statements appending a query parameter to the URL, as its style says.
fn append_query(
    param: &Param,
    var: TokenStream,
    by_ref: TokenStream,
    locals: &Locals,
) -> TokenStream {
    let request = &locals.request;
    let wire = &param.name;
    match param.style {
        ParamStyle::Scalar => {
            let as_text = as_str(param, var);
            quote!(rt::append_query(#request.url_mut(), #wire, #as_text);)
        }
        ParamStyle::Array(style) => append_array(param, style, var, locals),
        ParamStyle::Object(style) => {
            let style = ident(match style {
                ObjectStyle::DeepObject => "DeepObject",
                ObjectStyle::Exploded => "Exploded",
                ObjectStyle::Joined => "Joined",
            });
            quote!(rt::append_query_object(#request.url_mut(), #wire, #by_ref, rt::QueryObject::#style)?;)
        }
        ParamStyle::Json => {
            quote!(rt::append_query(#request.url_mut(), #wire, &rt::json_text(#by_ref)?);)
        }
    }
}

/// The parts of a multipart body held in `body` (a reference): a part per
/// field of its struct (text for what prints as one string, a file part
/// for a file, JSON for the rest; arrays repeated, `None` left out), or
/// each property as a field when the fields are not known.
fn multipart_parts(api: &Api, ty: &TypeRef, body: TokenStream, locals: &Locals) -> TokenStream {
    let Locals {
        form, item, values, ..
    } = locals;
    let Some(fields) = struct_fields(api, ty, 0) else {
        return quote!(#form.fields(#body)?;);
    };
    let part = |ty: &TypeRef, wire: &str, held: TokenStream| -> TokenStream {
        let one = |ty: &TypeRef, held: TokenStream| match ty {
            TypeRef::File => quote!(#form.file(#wire, #held);),
            TypeRef::String => quote!(#form.text(#wire, #held);),
            TypeRef::Secret => quote!(#form.text(#wire, rt::Secret::expose(#held));),
            ty if crate::model::is_scalar(&api.types, ty, 0) => {
                quote!(#form.text(#wire, &::std::string::ToString::to_string(#held));)
            }
            _ => quote!(#form.json(#wire, #held)?;),
        };
        match ty {
            TypeRef::Array(inner)
                if matches!(**inner, TypeRef::File | TypeRef::String | TypeRef::Secret)
                    || crate::model::is_scalar(&api.types, inner, 0) =>
            {
                let each = one(inner, quote!(#item));
                quote! {
                    for #item in #held {
                        #each
                    }
                }
            }
            ty => one(ty, held),
        }
    };
    let parts = fields.iter().map(|field| {
        let name = ident(&field.rust_name);
        let wire = &field.name;
        let optional = matches!(field.ty, TypeRef::Optional(_)) || !field.required;
        match &field.ty {
            ty if optional => {
                let inner = match ty {
                    TypeRef::Optional(inner) => &**inner,
                    inner => inner,
                };
                let held = if matches!(inner, TypeRef::Array(_)) {
                    values
                } else {
                    item
                };
                let each = part(inner, wire, quote!(#held));
                // Optional and nullable: `Some(None)` is a `null`, which a
                // part cannot carry; left out like an absent field.
                let pattern = if matches!(ty, TypeRef::Optional(_)) && !field.required {
                    quote!(Some(Some(#held)))
                } else {
                    quote!(Some(#held))
                };
                quote! {
                    if let #pattern = &#body.#name {
                        #each
                    }
                }
            }
            ty => part(ty, wire, quote!(&#body.#name)),
        }
    });
    quote!(#(#parts)*)
}

/// The fields of the struct `ty` names (through aliases), if it is one.
fn struct_fields<'a>(
    api: &'a Api,
    ty: &TypeRef,
    depth: usize,
) -> Option<&'a [crate::model::Field]> {
    match ty {
        TypeRef::Named(name) if depth < 64 => match api.types.get(name)? {
            crate::model::TypeDef::Struct { fields, .. } => Some(fields),
            crate::model::TypeDef::Alias { ty, .. } => struct_fields(api, ty, depth + 1),
            _ => None,
        },
        _ => None,
    }
}

/// The fields of an operation's builder as the client starts it: header
/// parameters from the client's defaults, the rest unset.
fn builder_inits(api: &Api, op: &Operation) -> Vec<TokenStream> {
    let mut inits: Vec<_> = op
        .params
        .iter()
        .map(|param| {
            let field = ident(&param.rust_name);
            let shared = api.shared_headers.iter().any(|p| p.name == param.name);
            if shared && !param.secret && is_copy(api, &param.ty) {
                quote!(#field: self.defaults.#field,)
            } else if shared {
                quote!(#field: self.defaults.#field.clone(),)
            } else {
                quote!(#field: None,)
            }
        })
        .collect();
    if op.body.is_some() {
        inits.push(quote!(body: None,));
    }
    inits
}

fn builder(api: &Api, op: &Operation) -> TokenStream {
    let types = quote!(super::types::);
    let name = ident(&op.type_name);
    let response = ident(&format!("{}Response", op.type_name));
    // `build()` is described here, once per builder.
    let builder_doc = format!(
        " Builds a request for [`Client::{m}`](super::Client::{m}): `send()` it, or `build()` it to change it before [`Client::send`](super::Client::send).",
        m = op.method_name
    );

    let mut fields = Vec::new();
    let mut setters = Vec::new();
    // `Debug` shows the parameters (secrets print `[redacted]`) and whether
    // a body is set, never the body: auth fields, passwords (`impl_builder_debug!`).
    let mut shown = Vec::new();
    for param in &op.params {
        let field = ident(&param.rust_name);
        let ty = stored_type(param, &types);
        fields.push(quote!(pub(super) #field: Option<#ty>,));
        shown.push(field.clone());
        let param_doc = param_doc(param);
        let (arg_ty, value) = if param.secret || param.ty == TypeRef::String {
            (quote!(impl Into<#ty>), quote!(value.into()))
        } else {
            (ty.clone(), quote!(value))
        };
        setters.push(quote! {
            #param_doc
            pub fn #field(mut self, value: #arg_ty) -> Self {
                self.#field = Some(#value);
                self
            }
        });
    }
    let mut choice_items = TokenStream::new();
    if let Some(body) = &op.body {
        let required = if body.required {
            "required"
        } else {
            "optional"
        };
        let description = doc(body.description.as_deref());
        let description = (!description.is_empty()).then(|| quote!(#[doc = ""] #description));
        match &body.choice {
            None => {
                let ty = body_type(&body.media, &types);
                fields.push(quote!(pub(super) body: Option<#ty>,));
                let head = format!(" The request body ({required}), {}.", sent_as(&body.media));
                let head = comment_text(&head);
                let (arg_ty, value) = match &body.media {
                    BodyMedia::Json { .. } | BodyMedia::Form { .. } | BodyMedia::Multipart(_) => {
                        (ty.clone(), quote!(value))
                    }
                    BodyMedia::Binary { .. } | BodyMedia::Text { .. } => {
                        (quote!(impl Into<#ty>), quote!(value.into()))
                    }
                };
                setters.push(quote! {
                    #[doc = #head]
                    #description
                    pub fn body(mut self, value: #arg_ty) -> Self {
                        self.body = Some(#value);
                        self
                    }
                });
            }
            Some(choice) => {
                let choice_name = ident(&choice.name);
                fields.push(quote!(pub(super) body: Option<#choice_name>,));
                let head = format!(
                    " The request body ({required}), in the media type its variant of `{}` names (a value of one of its types: the first variant holding that type).",
                    choice.name
                );
                let head = comment_text(&head);
                setters.push(quote! {
                    #[doc = #head]
                    #description
                    pub fn body(mut self, value: impl Into<#choice_name>) -> Self {
                        self.body = Some(value.into());
                        self
                    }
                });
                choice_items = body_choice(api, op, choice, &types);
            }
        }
    }

    // build(): required values first, then the URL, then headers and body.
    let locals = Locals::new(api, op);
    let Locals {
        request,
        values,
        value,
        body: body_local,
        ..
    } = &locals;
    let mut steps = Vec::new();
    // A path parameter that prints as one string and is a whole segment is
    // checked and written where the path is built.
    let whole_segments: Vec<usize> = op
        .path
        .iter()
        .filter_map(|segment| match segment {
            PathSegment::Param(index)
                if op.params[*index].style == ParamStyle::Scalar
                    && !op.params[*index].secret
                    && op.params[*index].path_style.is_none() =>
            {
                Some(*index)
            }
            _ => None,
        })
        .collect();
    for (_, param) in op
        .params
        .iter()
        .enumerate()
        .filter(|(index, p)| p.required && !whole_segments.contains(index))
    {
        let field = ident(&param.rust_name);
        let wire = &param.name;
        steps.push(quote! {
            let #field = rt::required(self.#field, #wire)?;
        });
    }
    let piece = |segment: &PathSegment| match segment {
        PathSegment::Literal(literal) => quote!(#literal),
        PathSegment::Param(index) if whole_segments.contains(index) => {
            let param = &op.params[*index];
            let field = ident(&param.rust_name);
            let wire = &param.name;
            quote!(&rt::segment(self.#field.as_ref(), #wire)?)
        }
        PathSegment::Param(index) => {
            let param = &op.params[*index];
            let field = ident(&param.rust_name);
            let wire = &param.name;
            // A secret is written as its text.
            let value = if param.secret {
                quote!(&#field.expose())
            } else {
                quote!(&#field)
            };
            match param.path_style {
                Some(PathStyle::Label { explode }) => {
                    quote!(&rt::styled_segment(#value, #wire, rt::PathStyle::Label, #explode)?)
                }
                Some(PathStyle::Matrix { explode }) => {
                    quote!(&rt::styled_segment(#value, #wire, rt::PathStyle::Matrix, #explode)?)
                }
                None => text_of(param, quote!(#field), quote!(&#field)),
            }
        }
        PathSegment::Mixed(_) => unreachable!("a mixed segment holds no mixed segment"),
    };
    let segments = op.path.iter().map(|segment| match segment {
        // Text and variables in one segment: joined, then encoded as one.
        PathSegment::Mixed(pieces) => {
            let pieces = pieces.iter().map(piece);
            quote!(&[#(#pieces),*].concat())
        }
        segment => piece(segment),
    });
    let method = op.http_method.as_str();
    let authenticate = authenticate(api, op, &locals);
    let writes_request = op.body.is_some()
        || !authenticate.is_empty()
        || op.params.iter().any(|p| p.location != Location::Path);
    let request_mut = writes_request.then(|| quote!(mut));
    steps.push(quote! {
        let #request_mut #request = rt::request(#method, &self.client.base_url, &[#(#segments),*])?;
    });
    // One value that prints as one string, in the query or a header: one
    // call of the runtime, given the value or `None`.
    let scalar = |param: &Param| {
        let field = ident(&param.rust_name);
        let value = if param.required {
            quote!(Some(&#field))
        } else {
            quote!(self.#field.as_ref())
        };
        let wire = match param.location {
            Location::Header => param.name.to_ascii_lowercase(),
            _ => param.name.clone(),
        };
        match (param.location, param.secret) {
            (Location::Header, true) => quote!(rt::secret_header(&mut #request, #wire, #value)?;),
            (Location::Header, false) => quote!(rt::header(&mut #request, #wire, #value)?;),
            _ => quote!(rt::query(&mut #request, #wire, #value);),
        }
    };
    let is_scalar = |param: &Param| param.style == ParamStyle::Scalar;
    for param in op.params.iter().filter(|p| p.location == Location::Query) {
        let field = ident(&param.rust_name);
        if is_scalar(param) && !param.secret {
            steps.push(scalar(param));
        } else if param.required {
            steps.push(append_query(
                param,
                quote!(#field),
                quote!(&#field),
                &locals,
            ));
        } else {
            let held = if matches!(param.style, ParamStyle::Array(_)) {
                values
            } else {
                value
            };
            let append = append_query(param, quote!(#held), quote!(#held), &locals);
            steps.push(quote! {
                if let Some(#held) = &self.#field {
                    #append
                }
            });
        }
    }
    for param in op.params.iter().filter(|p| p.location == Location::Header) {
        if is_scalar(param) {
            steps.push(scalar(param));
            continue;
        }
        let field = ident(&param.rust_name);
        let wire = param.name.to_ascii_lowercase();
        let insert = if param.secret {
            quote!(rt::insert_secret_header)
        } else {
            quote!(rt::insert_header)
        };
        if param.required {
            let as_text = text_of(param, quote!(#field), quote!(&#field));
            steps.push(quote!(#insert(#request.headers_mut(), #wire, #as_text)?;));
        } else {
            let as_text = text_of(param, quote!(#value), quote!(#value));
            steps.push(quote! {
                if let Some(#value) = &self.#field {
                    #insert(#request.headers_mut(), #wire, #as_text)?;
                }
            });
        }
    }
    for param in op.params.iter().filter(|p| p.location == Location::Cookie) {
        let field = ident(&param.rust_name);
        let wire = &param.name;
        // A secret (`format: password`) is added as one, marked sensitive.
        let add = |var: TokenStream, by_ref: TokenStream| {
            if param.secret {
                quote!(rt::add_cookie(#request.headers_mut(), #wire, #by_ref)?;)
            } else {
                let as_text = text_of(param, var, by_ref);
                quote!(rt::add_cookie_parameter(#request.headers_mut(), #wire, #as_text)?;)
            }
        };
        if param.required {
            steps.push(add(quote!(#field), quote!(&#field)));
        } else {
            let add = add(quote!(#value), quote!(#value));
            steps.push(quote! {
                if let Some(#value) = &self.#field {
                    #add
                }
            });
        }
    }
    steps.push(authenticate);
    if let Some(body) = &op.body {
        steps.push(match &body.choice {
            None => set_body(api, body, &body.media, &locals),
            Some(choice) => {
                let choice_name = ident(&choice.name);
                let arms = choice.variants.iter().map(|(variant, media)| {
                    let variant = ident(variant);
                    // JSON and forms are serialised from a reference; bytes
                    // and text are handed over.
                    let binding = if by_value(media) {
                        quote!(#body_local)
                    } else {
                        quote!(ref #body_local)
                    };
                    let set = set_media(api, media, quote!(#body_local), &locals);
                    quote!(#choice_name::#variant(#binding) => { #set })
                });
                let matched = quote! {
                    match #body_local {
                        #(#arms)*
                    }
                };
                if body.required {
                    quote! {
                        let #body_local = rt::required(self.body, "body")?;
                        #matched
                    }
                } else {
                    quote! {
                        if let Some(#body_local) = self.body {
                            #matched
                        }
                    }
                }
            }
        });
    }

    // Without a body, every field prints safely: derived.
    let (derives, debug) = match op.body {
        None => (quote!(#[derive(Clone, Debug)]), None),
        Some(_) => (
            quote!(#[derive(Clone)]),
            Some(quote!(rt::impl_builder_debug!(#name { #(#shown),* });)),
        ),
    };
    quote! {
        #[doc = #builder_doc]
        #derives
        #[must_use = "a request builder does nothing until it is built or sent"]
        pub struct #name<'a> {
            pub(super) client: &'a super::Client,
            #(#fields)*
        }

        #debug

        impl<'a> #name<'a> {
            #(#setters)*

            // `#[inline]`, as `send()` is: an operation's request is
            // compiled in the crate that sends it, for the operations it
            // calls, not for every operation of the API.
            #[inline]
            pub fn build(self) -> rt::Built<super::#response> {
                #(#steps)*
                Ok(rt::Prepared::new(#request))
            }

            rt::impl_send!(super::#response);
        }

        #choice_items
    }
}

/// The Rust type a request body is held in.
fn body_type(media: &BodyMedia, types: &TokenStream) -> TokenStream {
    match media {
        BodyMedia::Json { ty, .. } | BodyMedia::Form { ty, .. } | BodyMedia::Multipart(ty) => {
            rust_type(ty, types)
        }
        BodyMedia::Binary { .. } => quote!(rt::bytes::Bytes),
        BodyMedia::Text { .. } => quote!(::std::string::String),
    }
}

/// How a body in `media` is sent, for its doc comment.
fn sent_as(media: &BodyMedia) -> String {
    match media {
        BodyMedia::Json { content_type, .. } if content_type == "application/json" => {
            "sent as JSON".to_owned()
        }
        BodyMedia::Json { content_type, .. } => format!("sent as JSON, `{content_type}`"),
        BodyMedia::Form { encoding, .. } if encoding.is_empty() => {
            "sent as a form (`application/x-www-form-urlencoded`)".to_owned()
        }
        BodyMedia::Form { .. } => {
            "sent as a form (`application/x-www-form-urlencoded`), fields written as its `encoding` says".to_owned()
        }
        BodyMedia::Multipart(_) => {
            "sent as `multipart/form-data`: a part per field, files as file parts".to_owned()
        }
        BodyMedia::Binary { content_type } | BodyMedia::Text { content_type } => {
            format!("sent as it is with `Content-Type: {content_type}`")
        }
    }
}

/// Whether a body in `media` is handed over (bytes, text) rather than
/// serialised from a reference.
fn by_value(media: &BodyMedia) -> bool {
    matches!(media, BodyMedia::Binary { .. } | BodyMedia::Text { .. })
}

/// Statements writing the body held in `held` (a reference for JSON, forms
/// and multipart; the value for bytes and text) in `media`.
fn set_media(api: &Api, media: &BodyMedia, held: TokenStream, locals: &Locals) -> TokenStream {
    let request = &locals.request;
    match media {
        BodyMedia::Json { content_type, .. } if content_type == "application/json" => {
            quote!(rt::set_json_body(&mut #request, #held)?;)
        }
        BodyMedia::Json { content_type, .. } => {
            quote!(rt::set_json_body_as(&mut #request, #held, #content_type)?;)
        }
        BodyMedia::Form { encoding, .. } if encoding.is_empty() => {
            quote!(rt::set_form_body(&mut #request, #held)?;)
        }
        BodyMedia::Form { encoding, .. } => {
            let fields = encoding.iter().map(|field| {
                let name = &field.property;
                let explode = field.explode;
                let style = ident(match field.style {
                    FormStyle::Form => "Form",
                    FormStyle::SpaceDelimited => "SpaceDelimited",
                    FormStyle::PipeDelimited => "PipeDelimited",
                    FormStyle::DeepObject => "DeepObject",
                    FormStyle::Json => "Json",
                });
                quote!(rt::FormField { name: #name, style: rt::FormStyle::#style, explode: #explode })
            });
            quote!(rt::set_form_body_encoded(&mut #request, #held, &[#(#fields),*])?;)
        }
        BodyMedia::Binary { content_type } | BodyMedia::Text { content_type } => {
            quote!(rt::set_raw_body(&mut #request, #held, #content_type)?;)
        }
        BodyMedia::Multipart(ty) => {
            let form = &locals.form;
            let parts = multipart_parts(api, ty, held, locals);
            quote! {
                let mut #form = rt::Multipart::new();
                #parts
                #form.set_body(&mut #request)?;
            }
        }
    }
}

/// Statements taking the body (one media type) from the builder and
/// writing it.
fn set_body(api: &Api, body: &Body, media: &BodyMedia, locals: &Locals) -> TokenStream {
    let body_local = &locals.body;
    let set = |held: TokenStream| set_media(api, media, held, locals);
    let by_value = by_value(media);
    if body.required && matches!(media, BodyMedia::Multipart(_)) {
        let set = set(quote!(#body_local));
        quote! {
            let #body_local = rt::required(self.body.as_ref(), "body")?;
            #set
        }
    } else if body.required {
        let set = if by_value {
            set(quote!(#body_local))
        } else {
            set(quote!(&#body_local))
        };
        quote! {
            let #body_local = rt::required(self.body, "body")?;
            #set
        }
    } else if by_value {
        let set = set(quote!(#body_local));
        quote! {
            if let Some(#body_local) = self.body {
                #set
            }
        }
    } else {
        let set = set(quote!(#body_local));
        quote! {
            if let Some(#body_local) = &self.body {
                #set
            }
        }
    }
}

/// The type through which aliases lead (`Patch` when it is `Map` is `Map`).
fn canonical<'t>(api: &'t Api, ty: &'t TypeRef, depth: usize) -> &'t TypeRef {
    match ty {
        TypeRef::Named(name) if depth < 64 => match api.types.get(name) {
            Some(crate::model::TypeDef::Alias { ty, .. }) => canonical(api, ty, depth + 1),
            _ => ty,
        },
        ty => ty,
    }
}

/// The enum a caller picks a request body's media type with, a variant
/// per media type the operation offers, and `From` for the first variant
/// of each Rust type (so `.body(value)` sends the best media type).
fn body_choice(api: &Api, op: &Operation, choice: &BodyChoice, types: &TokenStream) -> TokenStream {
    let name = ident(&choice.name);
    let head = comment_text(&format!(
        " The media types the request body of `{}` can be sent in: the variant says which, and holds the body.",
        op.type_name
    ));
    let variants = choice.variants.iter().map(|(variant, media)| {
        let variant_ident = ident(variant);
        let ty = body_type(media, types);
        let content_type = match media {
            BodyMedia::Json { content_type, .. }
            | BodyMedia::Binary { content_type }
            | BodyMedia::Text { content_type } => content_type.clone(),
            BodyMedia::Form { .. } => "application/x-www-form-urlencoded".to_owned(),
            BodyMedia::Multipart(_) => "multipart/form-data".to_owned(),
        };
        let how = match media {
            BodyMedia::Json { .. } => "the value as JSON",
            BodyMedia::Form { .. } => "the value as a form",
            BodyMedia::Multipart(_) => "a part per field, files as file parts",
            BodyMedia::Binary { .. } => "the bytes as they are",
            BodyMedia::Text { .. } => "the text as it is",
        };
        let doc = comment_text(&format!(" `{content_type}`: {how}."));
        quote! { #[doc = #doc] #variant_ident(#ty), }
    });
    // One `From` per Rust type, for its first (best) variant.
    let mut seen: Vec<Option<TypeRef>> = Vec::new();
    let mut froms = Vec::new();
    for (variant, media) in &choice.variants {
        let key = match media {
            BodyMedia::Binary { .. } => None,
            BodyMedia::Text { .. } => Some(TypeRef::String),
            media => media.typed().map(|ty| canonical(api, ty, 0).clone()),
        };
        if seen.contains(&key) {
            continue;
        }
        seen.push(key);
        let variant = ident(variant);
        let ty = body_type(media, types);
        froms.push(quote! {
            impl ::std::convert::From<#ty> for #name {
                fn from(value: #ty) -> Self {
                    Self::#variant(value)
                }
            }
        });
        // What `impl Into<Bytes>` and `impl Into<String>` took before.
        let also: &[TokenStream] = match media {
            BodyMedia::Binary { .. } => &[quote!(::std::vec::Vec<u8>), quote!(&'static [u8])],
            BodyMedia::Text { .. } => &[quote!(&str)],
            _ => &[],
        };
        for other in also {
            froms.push(quote! {
                impl ::std::convert::From<#other> for #name {
                    fn from(value: #other) -> Self {
                        Self::#variant(value.into())
                    }
                }
            });
        }
    }
    quote! {
        #[doc = #head]
        #[derive(Clone, Debug)]
        pub enum #name {
            #(#variants)*
        }

        #(#froms)*
    }
}
