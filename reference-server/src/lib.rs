//! The reference server: a real HTTP implementation of the Component
//! Authentication Claims interface (`shared/interface-description.md`),
//! following every choice `spec/README.md` makes where the description is
//! silent.
//!
//! It is the conformance runner's default target, and, with a [`Fault`], a
//! server that breaks exactly one rule on purpose so the runner's own tests
//! can prove each check catches what it should. With [`Variant`]s, the dual:
//! a server that chooses otherwise where the description is silent and
//! breaks no rule, so the runner's tests can prove no check assumes more
//! than the description says.
//!
//! ```no_run
//! # async fn demo() -> std::io::Result<()> {
//! use reference_server::{Server, ServerOptions};
//! let server = Server::start(ServerOptions::default()).await?;
//! let url = format!("{}/v2/api/component/users/auth", server.base_url());
//! // ... send requests to `url` ...
//! server.shutdown().await;
//! # Ok(()) }
//! ```
//!
//! Modules, one concept each: [`fixture`] (the data and its checks),
//! [`fault`] (the rules broken on purpose, one table entry each),
//! [`variant`] (the other choices the description allows, one table entry
//! each),
//! `behaviour` (the seams where a fault changes the server), `framing` (the HTTP/1.1 rules hyper leaves to us: `Host`, transfer codings), `routes` (the path),
//! `handler` (the order of checks for one request), `validate` (the 417
//! rules), `json` (bodies parsed with duplicate keys refused), `envelope`
//! (answers and their headers), `tokens` (issued X-Auth-Tokens), `server`
//! (listening, caps and shutdown), `tls` (certificate and key for HTTPS).

mod behaviour;
mod bend;
mod envelope;
pub mod fault;
pub mod fixture;
mod framing;
mod handler;
mod json;
mod judged;
mod routes;
mod server;
mod settings;
mod tls;
mod tokens;
mod validate;
pub mod variant;

pub use behaviour::BODY_LIMIT;
pub use fault::{Fault, UnknownFault};
pub use fixture::{Fixture, FixtureError};
pub use server::{
    DEFAULT_BODY_BUDGET_WAIT, DEFAULT_MAX_CONNECTIONS, DEFAULT_MAX_INFLIGHT_BODY_BYTES,
    RunningServer, Server, ServerOptions,
};
pub use tls::{TlsConfig, TlsError};
pub use variant::{UnknownVariant, Variant};
