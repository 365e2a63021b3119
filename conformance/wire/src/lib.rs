//! # conformance-wire: the server as the checks see it
//!
//! The second stage of the conformance runner (profile → checks →
//! exchanges → report): [`request`]s built through the generated bindings,
//! the [`target`] put together from its parts (the profile's [`valid`]
//! requests; the [`sender`], with pacing and retries by [`transport`],
//! [`concurrency`], its limit answers kept, TLS and proxies by
//! [`connect`]; the [`settle`] that puts every component in a known state,
//! and the [`state`] it learns; [`reproduction`]s), the [`phase`] each
//! request goes in, the normalised [`exchange`] of every request and answer
//! with the secret scrubber, [`volatile`] values, [`curl`] commands, what
//! an error answer is ([`envelope`]), what a success carries
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
mod limited;
pub mod outcomes;
pub mod phase;
pub mod progress;
pub mod reproduction;
pub mod request;
pub mod sender;
pub mod settle;
pub mod state;
pub mod target;
pub mod transport;
pub mod valid;
pub mod volatile;
