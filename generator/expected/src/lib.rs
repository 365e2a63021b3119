//! The generator's output for each spec in `generator/fixtures/`, one module
//! each, found by `build.rs` (every `src/*.rs` here). `cargo test -p
//! generator` fails when a file here is stale or missing; that the crate
//! builds (and passes clippy with `-D warnings`, and runs its doctests:
//! none, since spec text never becomes one) proves the output compiles.
//!
//! Regenerate with `cargo run -p generator -- generator/fixtures/NAME.yaml --out generator/expected/src/NAME.rs`.

include!(concat!(env!("OUT_DIR"), "/modules.rs"));
