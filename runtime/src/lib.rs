//! The runtime that generated bindings stand on.
//!
//! Generated code holds everything that is specific to one API (its types, its
//! operations, its response enums); this crate holds what every generated API
//! shares, so that the generator emits only the API-specific parts:
//!
//! - [`Secret`]: a string whose `Debug` and `Display` print `[redacted]`, for
//!   header parameters and string properties the spec marks
//!   `format: password` (serde reads and writes the plain value);
//! - [`Prepared`]: a built request that can still be changed (drop a header,
//!   send a raw body, use another method) before it is sent, and is then
//!   decoded by the operation's own typed decoder;
//! - [`RawResponse`], [`Decoded`] and [`DecodeResponse`]: what comes back,
//!   always kept whole, never a panic on an answer the spec does not describe,
//!   and never a credential in their `Debug` ([`redact`]);
//! - [`Transport`]: the HTTP client with its time-out and body cap;
//! - [`client_builder`]: how every `reqwest` client here starts (the TLS
//!   backend the features chose, no redirects followed).
//!
//! Features: `client` (default: all of the above but `Secret`, and
//! reqwest; without it only what generated types use, for a crate that has
//! no HTTP client), `rustls` (default; ring, the platform's roots, no
//! system library), `native-tls` (the platform's TLS library), `http2`;
//! each TLS feature and `http2` turn `client` on. With `client` and no TLS
//! feature the client speaks plain HTTP only.

// What the generated types need: always.
mod construct;
mod file;
pub mod json;
pub mod nullable;
pub mod redact;
mod secret;
pub mod string_enum;

pub use file::FilePart;
pub use secret::Secret;

// What generated servers need: with the `server` feature.
#[cfg(feature = "server")]
pub mod server;

// What the generated client needs: with the `client` feature.
#[cfg(feature = "client")]
mod auth;
#[cfg(feature = "client")]
mod error;
#[cfg(feature = "client")]
mod http;
#[cfg(feature = "client")]
mod multipart;
#[cfg(feature = "client")]
mod params;
#[cfg(feature = "client")]
mod request;
#[cfg(feature = "client")]
mod response;
#[cfg(feature = "client")]
mod transport;

#[cfg(feature = "client")]
pub use auth::{Basic, add_cookie, add_cookie_parameter, set_basic, set_bearer};
#[cfg(feature = "client")]
pub use error::{ConnectError, Error};
#[cfg(feature = "client")]
pub use http::{client_builder, install_crypto_provider};
#[cfg(feature = "client")]
pub use multipart::Multipart;
#[cfg(feature = "client")]
pub use params::{
    FormField, FormStyle, PathStyle, QueryObject, append_query_object, json_text, simple_text,
    styled_segment,
};
#[cfg(feature = "client")]
pub use request::{
    Prepared, append_query, header, insert_header, insert_secret_header, parse_base_url, push_path,
    query, request, required, secret_header, segment, set_form_body, set_form_body_encoded,
    set_json_body, set_json_body_as, set_raw_body,
};
#[cfg(feature = "client")]
pub use response::{
    AsRaw, DecodeResponse, Decoded, FromHeaders, RawResponse, decode, decode_json, parse_header,
};
#[cfg(feature = "client")]
pub use serde::de::DeserializeOwned;
#[cfg(feature = "client")]
pub use transport::Transport;

/// What every operation's `build()` and `send()` give: `Error` unless said.
#[cfg(feature = "client")]
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// What an operation's `build()` gives: a request to change or send.
#[cfg(feature = "client")]
pub type Built<R> = Result<Prepared<R>>;

/// Re-exported so that generated code and its users name one version.
pub use bytes;
#[cfg(feature = "client")]
pub use reqwest;
#[cfg(feature = "client")]
pub use reqwest::Method;
pub use serde;
pub use serde_json;
