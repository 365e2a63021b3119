//! Bindings for the Component Authentication Claims interface.
//!
//! Everything in [`generated`] is written by the generator from
//! `spec/openapi.yaml`; regenerate with
//! `cargo run -p generator -- spec/openapi.yaml --client-feature client --out bindings/src/generated.rs`.
//! The client (and everything but [`types`]) is compiled with the `client`
//! feature only (a default one).
//! A test fails when the checked-in file is stale.

#[rustfmt::skip]
pub mod generated;

/// The generated axum server (feature `server`): written by
/// `cargo run -p generator -- spec/openapi.yaml --server --out bindings/src/generated_server.rs`.
#[cfg(feature = "server")]
#[rustfmt::skip]
#[path = "generated_server.rs"]
pub mod server;

#[cfg(feature = "server")]
pub mod rules;

pub use client_runtime::json;
#[cfg(feature = "client")]
pub use client_runtime::{
    DecodeResponse, Decoded, Error, Prepared, RawResponse, Secret, Transport, client_builder,
};
pub use generated::*;

/// The HTTP types that requests and answers are made of, for changing a
/// [`Prepared`] request or reading a [`RawResponse`].
#[cfg(feature = "client")]
pub mod http {
    pub use client_runtime::reqwest::header::{HeaderMap, HeaderName, HeaderValue};
    pub use client_runtime::reqwest::{Method, StatusCode, Url};
}
