//! The generator's output for each spec in `generator/fixtures/`, one module
//! each. `cargo test -p generator` fails when a file here is stale; that the
//! crate builds (and passes clippy with `-D warnings`) proves the output compiles.
//!
//! Regenerate with `cargo run -p generator -- generator/fixtures/NAME.yaml --out generator-expected/src/NAME.rs`.

#[rustfmt::skip]
pub mod extended;
#[rustfmt::skip]
pub mod features;
#[rustfmt::skip]
pub mod hostile;
#[rustfmt::skip]
pub mod minimal;
#[rustfmt::skip]
pub mod composition;
#[rustfmt::skip]
pub mod degraded;
#[rustfmt::skip]
pub mod openapi31;
#[rustfmt::skip]
pub mod petstore_expanded;
#[rustfmt::skip]
pub mod query_arrays;
#[rustfmt::skip]
pub mod request_bodies;
#[rustfmt::skip]
pub mod status_ranges;
