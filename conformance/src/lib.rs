//! # conformance: is this server the Component Authentication Claims interface?
//!
//! Point the runner at a server (a [profile](conformance_model::profile) names it, its
//! credentials and its components) and it tells you, rule by rule, where the
//! server falls short of `interface-description.md`. Run it in CI and its
//! exit code gates a release.
//!
//! Data flows one way: **profile → checks → exchanges → report**, one
//! crate per stage so that Cargo refuses a backward import:
//! `conformance-model` ← `conformance-wire` ← `conformance-suite` (every
//! verdict) ← `conformance-report` (shows them) ← this package (the
//! `conformance` command's work, one module per command in [`command`]
//! (`main.rs` only parses and dispatches), [`init`], [`traffic`] and its
//! reports, [`traffic_report`], the report formats as one table
//! ([`formats`]), and what enforces each requirement ([`enforcement`])).
//! Below them all, `conformance-requirements` holds each sentence of the
//! description the project enforces, once; everything else names its row
//! by key. Nothing is re-exported:
//! every import names the crate it comes from (`conformance_wire::target`),
//! so a reader sees at each one which stage it crosses into.
//!
//! - [`profile`](conformance_model::profile): the YAML target profile, `${VAR}` expansion, errors with
//!   key and line; [`choices`](conformance_model::choices): what the server chose where the description
//!   is silent (declared in the profile, else ours);
//! - [`catalogue`](conformance_suite::catalogue): what a check is (id, section, quote, [`level`](conformance_model::level), what is
//!   sent, what must happen); [`case`](conformance_suite::case): a check declared by what it sends
//!   and what it expects; [`checks`](conformance_suite::checks): the checks, one file per id
//!   prefix, named by it; [`envelope`](conformance_wire::envelope): what an error answer is;
//! - [`needs`](conformance_suite::needs): what a check needs from the profile, and what to add;
//! - [`connect`](conformance_wire::connect): TLS roots, client certificate, proxies, gateway headers;
//!   [`transport`](conformance_wire::transport): limits, pacing, retries;
//! - [`request`](conformance_wire::request): operations, requests and answers; [`target`](conformance_wire::target): the server
//!   as the checks see it, every request through the generated bindings;
//!   [`context`](conformance_suite::context): one run's shared probes and generated cases;
//! - [`generate`](conformance_suite::generate): requests derived from the profile (near misses, odd refs
//!   and bodies) and bodies generated property-based from a seed, judged by
//!   invariants; [`carried`](conformance_wire::carried): what a success carries, wherever it is;
//! - [`exchange`](conformance_wire::exchange): the normalised record of one request and answer;
//!   [`volatile`](conformance_wire::volatile): values that change between identical requests;
//! - [`runner`](conformance_suite::runner): selects, runs concurrently, judges, returns the
//!   [`results`](conformance_suite::results) ([`run`] assembles their report); [`observe`](conformance_suite::observe): the
//!   server's choices, asked for (`conformance choices`); [`init`]: a
//!   server team's first profile and CI workflow (`conformance init`);
//! - [`snapshot`](conformance_suite::snapshot): insta assertions on the exchanges, on one thread;
//! - [`gate`](conformance_suite::gate): whether the run passes (the exit code), from the
//!   results as judged and as a [`baseline`](conformance_suite::baseline) of known failures marked them;
//! - [`report`](conformance_report::report): human, JUnit, JSON, SARIF and HTML output;
//!   [`diff`](conformance_report::diff), [`coverage`](conformance_suite::coverage), [`outcomes`](conformance_wire::outcomes), [`latency`](conformance_wire::latency): adopting
//!   the gate.
//!
//! MUST checks gate (the profile's declared choices among them); SHOULD
//! checks (HTTP norms, our spec's choices) report, and fail the run only
//! with `--strict`.

pub mod command;
pub mod enforcement;
pub mod formats;
pub mod init;
pub mod traffic;
pub mod traffic_report;

/// Runs the selected checks against the target the profile names, and
/// assembles their report: the suite judges ([`conformance_suite::runner::run`]), the report
/// shows ([`conformance_report::report::Report::of`]); the gate is the results'
/// ([`conformance_suite::results::RunResults::exit_code`]), held in the report's `run`.
pub async fn run(
    profile: conformance_model::profile::Profile,
    options: &conformance_suite::runner::RunOptions,
) -> Result<conformance_report::report::Report, conformance_suite::runner::RunError> {
    conformance_suite::runner::run(profile, options)
        .await
        .map(conformance_report::report::Report::of)
}
