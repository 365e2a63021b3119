//! # conformance-report: a run's results, shown
//!
//! The fourth stage of the conformance runner (profile → checks →
//! exchanges → report): [`report`] holds a [`Report`](report::Report) of
//! the suite's results and renders it as human text, JSON, JUnit, SARIF
//! and HTML; [`diff`] compares two runs' JSON reports. It makes no
//! verdict: the suite does, below it, and hands over results that carry
//! what a rendering needs (each check's anchor: section, quote, choice,
//! subject), so nothing here looks a check up in the catalogue. The
//! baseline of known failures and the gate deciding the exit code are the
//! suite's (`baseline`, `gate`), as is the description's coverage by the
//! checks (`coverage`, beside the catalogue).

pub mod diff;
pub mod report;
