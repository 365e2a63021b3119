//! The `Client`, its defaults, the server URL, and one request builder per operation.

use proc_macro2::{Ident, TokenStream};
use quote::quote;

use super::layout::{Part, emit};
use super::{comment_text, doc, ident, rust_type};
use crate::model::{
    Api, ArrayStyle, BodyMedia, Location, ObjectStyle, Operation, Param, ParamStyle, PathSegment,
    SchemeKind, TypeRef, UrlPiece,
};
use crate::names::Scope;

/// The server URL, the defaults, the `Client`, and the `builder` module with
/// one request builder per operation.
pub(crate) fn parts(api: &Api) -> Vec<Part<'_>> {
    let builders = api
        .operations
        .iter()
        .map(|op| emit(move || builder(api, op)))
        .collect();
    vec![
        Part::Items(emit(|| client(api))),
        Part::Module {
            head: emit(|| {
                quote! {
                    /// One request builder per operation.
                    pub mod builder {}
                }
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
            SchemeKind::Basic => quote!(::client_runtime::Basic),
            _ => quote!(::client_runtime::Secret),
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
        let applies = alternative.iter().zip(&held).map(|(&i, held)| {
            match &api.security[i].kind {
                SchemeKind::ApiKey { location: Location::Query, name } => quote! {
                    ::client_runtime::append_query(#request.url_mut(), #name, #held.expose());
                },
                SchemeKind::ApiKey { location: Location::Cookie, name } => quote! {
                    ::client_runtime::add_cookie(#request.headers_mut(), #name, #held)?;
                },
                SchemeKind::ApiKey { name, .. } => {
                    let wire = name.to_ascii_lowercase();
                    quote! {
                        ::client_runtime::insert_secret_header(#request.headers_mut(), #wire, #held.expose())?;
                    }
                }
                SchemeKind::Bearer => quote! {
                    ::client_runtime::set_bearer(#request.headers_mut(), #held)?;
                },
                SchemeKind::Basic => quote! {
                    ::client_runtime::set_basic(#request.headers_mut(), #held)?;
                },
            }
        });
        branches.push(match (&held[..], &names[..]) {
            ([held], [name]) => quote! {
                if let ::std::option::Option::Some(#held) = &#credentials.#name {
                    #(#applies)*
                }
            },
            _ => quote! {
                if let (#(::std::option::Option::Some(#held),)*) = (#(&#credentials.#names,)*) {
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

fn client(api: &Api) -> TokenStream {
    let server = server(api);
    let defaults = defaults(api);
    let credentials = credentials(api);
    let has_credentials = !api.security.is_empty();
    let credentials_field = has_credentials.then(|| quote!(credentials: Credentials,));
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
    let methods = api.operations.iter().map(|op| {
        let doc = operation_doc(op);
        let method = ident(&op.method_name);
        let builder = ident(&op.type_name);
        quote! {
            #doc
            pub fn #method(&self) -> builder::#builder<'_> {
                builder::#builder::new(self)
            }
        }
    });
    quote! {
        #server
        #defaults
        #credentials

        /// A client for the API: where it is, how requests travel, and the
        /// values every request starts from.
        #[derive(Clone, Debug)]
        pub struct Client {
            base_url: ::client_runtime::reqwest::Url,
            transport: ::client_runtime::Transport,
            defaults: Defaults,
            #credentials_field
        }

        impl Client {
            /// A client for the API at `base_url`, the URL that operation paths
            /// are appended to (see [`server_url`] where the spec names one).
            pub fn new(base_url: &str) -> ::std::result::Result<Self, ::client_runtime::Error> {
                ::std::result::Result::Ok(Self {
                    base_url: ::client_runtime::parse_base_url(base_url)?,
                    transport: ::client_runtime::Transport::default(),
                    defaults: Defaults::default(),
                    #credentials_init
                })
            }

            /// Sends requests with `transport` (time-out, body cap, HTTP client).
            pub fn with_transport(mut self, transport: ::client_runtime::Transport) -> Self {
                self.transport = transport;
                self
            }

            /// Starts every request from `defaults`.
            pub fn with_defaults(mut self, defaults: Defaults) -> Self {
                self.defaults = defaults;
                self
            }

            #credentials_methods

            pub fn base_url(&self) -> &::client_runtime::reqwest::Url {
                &self.base_url
            }

            pub fn transport(&self) -> &::client_runtime::Transport {
                &self.transport
            }

            pub fn defaults(&self) -> &Defaults {
                &self.defaults
            }

            /// Sends a prepared request, possibly changed after it was built, and
            /// decodes the answer with its operation's decoder.
            pub async fn send<R: ::client_runtime::DecodeResponse>(
                &self,
                prepared: ::client_runtime::Prepared<R>,
            ) -> ::std::result::Result<R, ::client_runtime::Error> {
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
    let separator = (op.summary.is_some()).then(|| quote!(#[doc = ""]));
    let before_description = op.description.is_some().then(|| quote!(#[doc = ""]));
    quote! { #summary #separator #[doc = #route] #before_description #description }
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
    let head = comment_text(&format!(" `{}` ({location}, {required}).", param.name));
    // A blank doc line only between the head and a description.
    let description = param.description.as_deref().map(|text| {
        let lines = doc(Some(text));
        quote! { #[doc = ""] #lines }
    });
    quote! { #[doc = #head] #description }
}

/// How a parameter's value is held: secrets in `Secret`, the rest as typed.
fn stored_type(param: &Param, types: &TokenStream) -> TokenStream {
    if param.secret {
        quote!(::client_runtime::Secret)
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
    url: Ident,
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
            url: local("url"),
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
        url, item, joined, ..
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
                    ::client_runtime::append_query(&mut #url, #wire, #value);
                }
            }
        }
        ArrayStyle::Joined(separator) => {
            let separator = separator.to_string();
            quote! {
                let #joined: ::std::vec::Vec<::std::string::String> =
                    #values.iter().map(::std::string::ToString::to_string).collect();
                ::client_runtime::append_query(&mut #url, #wire, &#joined.join(#separator));
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
            quote!(&::client_runtime::simple_text(#by_ref, #explode)?)
        }
        ParamStyle::Json => quote!(&::client_runtime::json_text(#by_ref)?),
    }
}

/// Statements appending a query parameter to the URL, as its style says.
fn append_query(
    param: &Param,
    var: TokenStream,
    by_ref: TokenStream,
    locals: &Locals,
) -> TokenStream {
    let url = &locals.url;
    let wire = &param.name;
    match param.style {
        ParamStyle::Scalar => {
            let as_text = as_str(param, var);
            quote!(::client_runtime::append_query(&mut #url, #wire, #as_text);)
        }
        ParamStyle::Array(style) => append_array(param, style, var, locals),
        ParamStyle::Object(style) => {
            let style = ident(match style {
                ObjectStyle::DeepObject => "DeepObject",
                ObjectStyle::Exploded => "Exploded",
                ObjectStyle::Joined => "Joined",
            });
            quote!(::client_runtime::append_query_object(&mut #url, #wire, #by_ref, ::client_runtime::QueryObject::#style)?;)
        }
        ParamStyle::Json => {
            quote!(::client_runtime::append_query(&mut #url, #wire, &::client_runtime::json_text(#by_ref)?);)
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
            ty if crate::model::is_scalar(&api.types, ty, 0) => {
                quote!(#form.text(#wire, &::std::string::ToString::to_string(#held));)
            }
            _ => quote!(#form.json(#wire, #held)?;),
        };
        match ty {
            TypeRef::Array(inner)
                if matches!(**inner, TypeRef::File | TypeRef::String)
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
                quote! {
                    if let ::std::option::Option::Some(#held) = &#body.#name {
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

fn builder(api: &Api, op: &Operation) -> TokenStream {
    let types = quote!(super::types::);
    let name = ident(&op.type_name);
    let response = ident(&format!("{}Response", op.type_name));
    let builder_doc = format!(
        " Builds a request for [`Client::{}`](super::Client::{}).",
        op.method_name, op.method_name
    );

    let mut fields = Vec::new();
    let mut inits = Vec::new();
    let mut setters = Vec::new();
    for param in &op.params {
        let field = ident(&param.rust_name);
        let ty = stored_type(param, &types);
        fields.push(quote!(#field: ::std::option::Option<#ty>,));
        let shared = api.shared_headers.iter().any(|p| p.name == param.name);
        inits.push(if shared && !param.secret && is_copy(api, &param.ty) {
            quote!(#field: client.defaults.#field,)
        } else if shared {
            quote!(#field: client.defaults.#field.clone(),)
        } else {
            quote!(#field: ::std::option::Option::None,)
        });
        let param_doc = param_doc(param);
        let (arg_ty, value) = if param.secret || param.ty == TypeRef::String {
            (quote!(impl ::std::convert::Into<#ty>), quote!(value.into()))
        } else {
            (ty.clone(), quote!(value))
        };
        setters.push(quote! {
            #param_doc
            pub fn #field(mut self, value: #arg_ty) -> Self {
                self.#field = ::std::option::Option::Some(#value);
                self
            }
        });
    }
    if let Some(body) = &op.body {
        let ty = body_type(&body.media, &types);
        fields.push(quote!(body: ::std::option::Option<#ty>,));
        inits.push(quote!(body: ::std::option::Option::None,));
        let required = if body.required {
            "required"
        } else {
            "optional"
        };
        let head = match &body.media {
            BodyMedia::Json(_) => format!(" The request body ({required}), sent as JSON."),
            BodyMedia::Form(_) => format!(
                " The request body ({required}), sent as a form (`application/x-www-form-urlencoded`)."
            ),
            BodyMedia::Multipart(_) => format!(
                " The request body ({required}), sent as `multipart/form-data`: a part per field, files as file parts."
            ),
            BodyMedia::Binary { content_type } | BodyMedia::Text { content_type } => {
                comment_text(&format!(
                    " The request body ({required}), sent as it is with `Content-Type: {content_type}`."
                ))
            }
        };
        let description = doc(body.description.as_deref());
        let (arg_ty, value) = match &body.media {
            BodyMedia::Json(_) | BodyMedia::Form(_) | BodyMedia::Multipart(_) => {
                (ty.clone(), quote!(value))
            }
            BodyMedia::Binary { .. } | BodyMedia::Text { .. } => {
                (quote!(impl ::std::convert::Into<#ty>), quote!(value.into()))
            }
        };
        setters.push(quote! {
            #[doc = #head]
            #[doc = ""]
            #description
            pub fn body(mut self, value: #arg_ty) -> Self {
                self.body = ::std::option::Option::Some(#value);
                self
            }
        });
    }

    // build(): required values first, then the URL, then headers and body.
    let locals = Locals::new(api, op);
    let Locals {
        url,
        request,
        values,
        value,
        body: body_local,
        ..
    } = &locals;
    let mut steps = Vec::new();
    for param in op.params.iter().filter(|p| p.required) {
        let field = ident(&param.rust_name);
        let wire = &param.name;
        steps.push(quote! {
            let #field = self.#field.ok_or(::client_runtime::Error::MissingParameter(#wire))?;
        });
    }
    let piece = |segment: &PathSegment| match segment {
        PathSegment::Literal(literal) => quote!(#literal),
        PathSegment::Param(index) => {
            let param = &op.params[*index];
            let field = ident(&param.rust_name);
            text_of(param, quote!(#field), quote!(&#field))
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
    steps.push(quote! {
        let mut #url = self.client.base_url.clone();
        ::client_runtime::push_path(&mut #url, [#(#segments),*])?;
    });
    for param in op.params.iter().filter(|p| p.location == Location::Query) {
        let field = ident(&param.rust_name);
        if param.required {
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
                if let ::std::option::Option::Some(#held) = &self.#field {
                    #append
                }
            });
        }
    }
    let method = ident(&op.http_method);
    let authenticate = authenticate(api, op, &locals);
    let writes_request = op.body.is_some()
        || !authenticate.is_empty()
        || op
            .params
            .iter()
            .any(|p| matches!(p.location, Location::Header | Location::Cookie));
    let request_mut = writes_request.then(|| quote!(mut));
    steps.push(quote! {
        let #request_mut #request = ::client_runtime::reqwest::Request::new(::client_runtime::reqwest::Method::#method, #url);
    });
    for param in op.params.iter().filter(|p| p.location == Location::Header) {
        let field = ident(&param.rust_name);
        let wire = param.name.to_ascii_lowercase();
        let insert = if param.secret {
            quote!(::client_runtime::insert_secret_header)
        } else {
            quote!(::client_runtime::insert_header)
        };
        if param.required {
            let as_text = text_of(param, quote!(#field), quote!(&#field));
            steps.push(quote!(#insert(#request.headers_mut(), #wire, #as_text)?;));
        } else {
            let as_text = text_of(param, quote!(#value), quote!(#value));
            steps.push(quote! {
                if let ::std::option::Option::Some(#value) = &self.#field {
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
                quote!(::client_runtime::add_cookie(#request.headers_mut(), #wire, #by_ref)?;)
            } else {
                let as_text = text_of(param, var, by_ref);
                quote!(::client_runtime::add_cookie_parameter(#request.headers_mut(), #wire, #as_text)?;)
            }
        };
        if param.required {
            steps.push(add(quote!(#field), quote!(&#field)));
        } else {
            let add = add(quote!(#value), quote!(#value));
            steps.push(quote! {
                if let ::std::option::Option::Some(#value) = &self.#field {
                    #add
                }
            });
        }
    }
    steps.push(authenticate);
    if let Some(body) = &op.body {
        // JSON and forms are serialised from a reference; bytes and text
        // are handed over.
        let set = |held: TokenStream| match &body.media {
            BodyMedia::Json(_) => {
                quote!(::client_runtime::set_json_body(&mut #request, #held)?;)
            }
            BodyMedia::Form(_) => {
                quote!(::client_runtime::set_form_body(&mut #request, #held)?;)
            }
            BodyMedia::Binary { content_type } | BodyMedia::Text { content_type } => {
                quote!(::client_runtime::set_raw_body(&mut #request, #held, #content_type)?;)
            }
            BodyMedia::Multipart(ty) => {
                let form = &locals.form;
                let parts = multipart_parts(api, ty, held, &locals);
                quote! {
                    let mut #form = ::client_runtime::Multipart::new();
                    #parts
                    #form.set_body(&mut #request)?;
                }
            }
        };
        let by_value = matches!(
            body.media,
            BodyMedia::Binary { .. } | BodyMedia::Text { .. }
        );
        if body.required && matches!(body.media, BodyMedia::Multipart(_)) {
            let set = set(quote!(#body_local));
            steps.push(quote! {
                let #body_local = self.body.as_ref().ok_or(::client_runtime::Error::MissingParameter("body"))?;
                #set
            });
        } else if body.required {
            let set = if by_value {
                set(quote!(#body_local))
            } else {
                set(quote!(&#body_local))
            };
            steps.push(quote! {
                let #body_local = self.body.ok_or(::client_runtime::Error::MissingParameter("body"))?;
                #set
            });
        } else if by_value {
            let set = set(quote!(#body_local));
            steps.push(quote! {
                if let ::std::option::Option::Some(#body_local) = self.body {
                    #set
                }
            });
        } else {
            let set = set(quote!(#body_local));
            steps.push(quote! {
                if let ::std::option::Option::Some(#body_local) = &self.body {
                    #set
                }
            });
        }
    }

    quote! {
        #[doc = #builder_doc]
        #[derive(Clone, Debug)]
        #[must_use = "a request builder does nothing until it is built or sent"]
        pub struct #name<'a> {
            client: &'a super::Client,
            #(#fields)*
        }

        impl<'a> #name<'a> {
            pub fn new(client: &'a super::Client) -> Self {
                Self {
                    client,
                    #(#inits)*
                }
            }

            #(#setters)*

            /// Builds the request without sending it, so that it can be
            /// changed first; send it with [`Client::send`](super::Client::send).
            pub fn build(self) -> ::std::result::Result<::client_runtime::Prepared<super::#response>, ::client_runtime::Error> {
                #(#steps)*
                ::std::result::Result::Ok(::client_runtime::Prepared::new(#request))
            }

            /// Builds and sends the request, and decodes the answer.
            pub async fn send(self) -> ::std::result::Result<super::#response, ::client_runtime::Error> {
                let client = self.client;
                let prepared = self.build()?;
                client.send(prepared).await
            }
        }
    }
}

/// The Rust type a request body is held in.
fn body_type(media: &BodyMedia, types: &TokenStream) -> TokenStream {
    match media {
        BodyMedia::Json(ty) | BodyMedia::Form(ty) | BodyMedia::Multipart(ty) => {
            rust_type(ty, types)
        }
        BodyMedia::Binary { .. } => quote!(::client_runtime::bytes::Bytes),
        BodyMedia::Text { .. } => quote!(::std::string::String),
    }
}
