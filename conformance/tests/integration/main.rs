//! The conformance crate's integration tests, one binary: each module was a
//! test binary of its own, and on two cores the links of ten binaries
//! (each with the client, the server and tokio) cost more than their tests,
//! and the binaries ran one after another where their tests can overlap
//! (one waiting on a slow server while another runs the suite).

mod adopt;
mod caps;
mod causes;
mod cli;
mod coverage;
mod determinism;
mod first_day;
mod foreign_client;
mod independent;
mod init;
mod large_answers;
mod misbehaving;
mod outputs;
mod overlay_components;
mod profile_errors;
mod pytools;
mod real_targets;
mod scaled;
mod self_test;
mod source;
mod stub_server;
mod traffic;
mod traffic_duties;
mod traffic_faults;
mod traffic_streams;
mod variants;
