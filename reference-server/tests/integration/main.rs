//! The reference server's integration tests, one binary: each module was a
//! test binary of its own, and on two cores nine links of the server, the
//! client and tokio cost more than the tests they ran.

mod bad_input;
mod behaviour;
mod binary;
mod client_team;
mod common;
mod faults;
mod fixtures;
mod limits;
mod tls;
mod variants;
mod wire;
