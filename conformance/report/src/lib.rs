//! # conformance-report: a run's results, shown
//!
//! The fourth stage of the conformance runner (profile → checks →
//! exchanges → report): [`report`] assembles a [`Report`](report::Report)
//! from the suite's results and renders it as human text, JSON, JUnit,
//! SARIF and HTML; [`baseline`] marks the failures a team already knows
//! (a view over the results, with an expiry); [`diff`] compares two runs'
//! JSON reports. It makes no verdict: the suite does, below it (the
//! description's statements and the checks that enforce them are the
//! suite's `coverage`, beside the catalogue).

pub mod baseline;
pub mod diff;
pub mod report;
