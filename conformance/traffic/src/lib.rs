//! # traffic-rules: what one observed exchange can show
//!
//! The conformance gate judges a server by the requests it sends itself.
//! Real traffic needs the same rules from the other side: a client's
//! request against what the description requires of a client (§4 and §5's
//! tables, the component's auth fields, JSON, `modelUuid`), and a server's
//! answer against what it requires of a server (the envelopes, Content-Type,
//! X-Project-Uuid, a 417 for a failed validation). This crate holds those
//! rules as one table ([`rules::RULES`]) and judges one exchange at a time:
//!
//! - [`client::judge_request`]: the request alone;
//! - [`server::judge_answer`]: the answer, knowing what was wrong with the
//!   request;
//! - [`tally::Tally`]: every finding of a stream of exchanges, each rule
//!   counted with a few examples (bounded, whatever the traffic), rendered
//!   as text or JSON, never with a secret (header values are named, not
//!   shown; bodies by their field names only), each example with a `curl`
//!   reproduction whose values are shell variables ([`reproduce`]); which
//!   rules an exchange could break at all ([`exercised`]), so a report
//!   tells a rule kept from one no exchange put to the test;
//! - [`har`]: exchanges read from a HAR 1.2 file, streamed entry by entry;
//!   [`recorded`]: a HAR or NDJSON stream read as it arrives, each entry
//!   within the caps ([`capped`]).
//!
//! What the rules know of the server ([`knowledge::Knows`]) comes from a
//! conformance profile (the proxy, `audit`) or from a fixture (the reference
//! server used as a mock): one code path judges a client's traffic
//! wherever it is seen. It depends on serde only, so the reference server
//! can use it without the runner.

pub mod capped;
pub mod client;
pub mod exercised;
pub mod har;
pub mod knowledge;
pub mod observed;
pub mod profiled;
pub mod recorded;
pub mod redact;
pub mod reproduce;
pub mod rules;
pub mod server;
pub mod tally;

pub use knowledge::{Authorization, Component, Field, Kind, Knows, Place};
pub use observed::{Answer, Request};
pub use rules::{Finding, Level, RULES, Rule, Side};
pub use tally::Tally;
