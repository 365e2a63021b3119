//! # conformance: is this server the Component Authentication Claims interface?
//!
//! Point the runner at a server (a [profile] names it, its
//! credentials and its components) and it tells you, rule by rule, where the
//! server falls short of `interface-description.md`. Run it in CI and its
//! exit code gates a release.
//!
//! Data flows one way: **profile → checks → exchanges → report**, one
//! crate per stage so that Cargo refuses a backward import:
//! `conformance-model` ← `conformance-wire` ← `conformance-suite` (every
//! verdict) ← `conformance-report` (shows them) ← this package (the
//! `conformance` command, [`init`]). Their modules are re-exported here
//! under the paths they always had.
//!
//! - [`profile`]: the YAML target profile, `${VAR}` expansion, errors with
//!   key and line; [`choices`]: what the server chose where the description
//!   is silent (declared in the profile, else ours);
//! - [`catalogue`]: what a check is (id, section, quote, [`level`], what is
//!   sent, what must happen); [`case`]: a check declared by what it sends
//!   and what it expects; [`checks`]: the checks, one file per concept of
//!   the description; [`envelope`]: what an error answer is;
//! - [`needs`]: what a check needs from the profile, and what to add;
//! - [`connect`]: TLS roots, client certificate, proxies, gateway headers;
//!   [`transport`]: limits, pacing, retries;
//! - [`request`]: operations, requests and answers; [`target`]: the server
//!   as the checks see it, every request through the generated bindings;
//!   [`context`]: one run's shared probes and generated cases;
//! - [`generate`]: requests derived from the profile (near misses, odd refs
//!   and bodies) and bodies generated property-based from a seed, judged by
//!   invariants; [`carried`]: what a success carries, wherever it is;
//! - [`exchange`]: the normalised record of one request and answer;
//!   [`volatile`]: values that change between identical requests;
//! - [`runner`]: selects, runs concurrently, judges, returns the
//!   [`results`] ([`run`] assembles their report); [`observe`]: the
//!   server's choices, asked for (`conformance choices`); [`init`]: a
//!   server team's first profile and CI workflow (`conformance init`);
//! - [`snapshot`]: insta assertions on the exchanges, on one thread;
//! - [`report`]: human, JUnit, JSON, SARIF and HTML output; [`baseline`],
//!   [`diff`], [`coverage`], [`outcomes`], [`latency`]: adopting
//!   the gate.
//!
//! MUST checks gate (the profile's declared choices among them); SHOULD
//! checks (HTTP norms, our spec's choices) report, and fail the run only
//! with `--strict`.

/// The first stage, its own crate (the compiler keeps it below the rest).
pub use conformance_model::{choices, expand, fields, input, level, profile, spelling};
/// The fourth stage, its own crate: the results shown.
pub use conformance_report::{baseline, coverage, diff, report};
/// The third stage, its own crate: the checks and the run that judges them.
pub use conformance_suite::{
    case, catalogue, checks, context, generate, judge, needs, observe, overlay, probes, results,
    runner, snapshot,
};
/// The second stage, its own crate.
pub use conformance_wire::{
    carried, connect, curl, description, envelope, exchange, latency, outcomes, phase, request,
    target, transport, volatile,
};

pub mod init;
pub mod traffic;

/// Runs the selected checks against the target the profile names, and
/// assembles their report: the suite judges ([`runner::run`]), the report
/// shows ([`report::Report::of`]).
pub async fn run(
    profile: profile::Profile,
    options: &runner::RunOptions,
) -> Result<report::Report, runner::RunError> {
    runner::run(profile, options).await.map(report::Report::of)
}
