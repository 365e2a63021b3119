//! # conformance-wire: the server as the checks see it
//!
//! The second stage of the conformance runner (profile → checks →
//! exchanges → report): [`request`]s built through the generated bindings,
//! the [`target`] (two clients, a valid request of every operation, the
//! settle that puts every component in a known state, pacing and retries
//! by [`transport`], TLS and proxies by [`connect`]), the [`phase`] each
//! request goes in, the normalised [`exchange`] of every request and answer
//! with the secret scrubber, [`volatile`] values, [`curl`] reproductions,
//! what an error answer is ([`envelope`]), what a success carries
//! ([`carried`]), [`latency`], the documented [`outcomes`] a run saw, and
//! the built-in [`description`]. It knows no check.

pub mod carried;
pub mod concurrency;
pub mod connect;
pub mod curl;
pub mod description;
pub mod encoding;
pub mod envelope;
pub mod exchange;
pub mod latency;
pub mod outcomes;
pub mod phase;
pub mod progress;
pub mod request;
pub mod target;
pub mod transport;
pub mod volatile;
