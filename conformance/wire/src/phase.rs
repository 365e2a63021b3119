//! The interface is stateful: a successful Authorize may change what Auth
//! Claims returns for its component ("States and transitions: not shown"
//! leaves any such change open), and may issue tokens. So a run is
//! scheduled, never raced: no verdict and no snapshot depends on which of
//! two concurrent requests lands first.
//!
//! A run goes through the phases in order, with full concurrency inside
//! each:
//!
//! 1. **settle**: one valid Authorize per component that can take one, in
//!    each environment a request of the run names (none, `dev`, `live`):
//!    every component is put in a known state, whatever an earlier run
//!    against the same server left behind;
//! 2. [`Phase::Read`]: every Auth Claims request, all judged in that one
//!    settled state (the same component by name, tag and uuid compares
//!    answers taken in the same state);
//! 3. [`Phase::Write`]: every Authorize request, valid or not (a faulty
//!    server may take a request it must refuse);
//! 4. settle again, then [`Phase::Verify`]: the sequences that read what
//!    their own write claimed. Every write they send that can succeed is
//!    the settle's own request (the profile's model and body), so the state
//!    stays the settled one whichever lands first; a write and the read of
//!    the token it issued hold their component alone
//!    (the run context's `alone`), so a server that revokes a
//!    token when it issues the next cannot fail them;
//! 5. [`Phase::Quiet`]: the sequences that must have the server to
//!    themselves (a write read back on several fresh connections in a
//!    row), one check at a time, nothing else in flight;
//! 6. [`Phase::Judge`]: the checks that send nothing and judge what the run
//!    sent for all of them (the error probes, the generated cases).

use component_auth_bindings::types::ProjectEnv;

use crate::request::{Op, Probe};

/// When a check's requests go.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Phase {
    /// Requests that change nothing another request observes: Auth Claims.
    Read,
    /// Requests that may change what others observe: Authorize.
    Write,
    /// A sequence whose later requests read what its earlier ones wrote:
    /// after every write, in a state settled again.
    Verify,
    /// Sequences that must have the server to themselves: after every
    /// other request, one check at a time, nothing else in flight. A write
    /// read back on several fresh connections in a row then reaches
    /// several instances behind a round-robin balancer (or several
    /// workers), whatever else the run sends.
    Quiet,
    /// Nothing sent: a judgement of what the run sent for every check.
    Judge,
}

impl Phase {
    /// The phase a request of `op` goes in: a write wherever it may change
    /// state, whatever it is expected to be answered.
    pub fn of(op: Op) -> Phase {
        match op {
            Op::AuthClaims => Phase::Read,
            Op::Authorize => Phase::Write,
        }
    }

    /// The phase of a sequence of requests sent in turn: reads only, with
    /// the reads; any write, alone after the writes (its later requests may
    /// read what it wrote).
    pub fn of_sequence(ops: impl IntoIterator<Item = Op>) -> Phase {
        match ops.into_iter().any(|op| Phase::of(op) == Phase::Write) {
            true => Phase::Verify,
            false => Phase::Read,
        }
    }

    /// The phases that send, in the order a run goes through them.
    pub const SENDING: [Phase; 4] = [Phase::Read, Phase::Write, Phase::Verify, Phase::Quiet];
}

impl Probe {
    /// The phase the request goes in (one that could not be built is
    /// never sent: a read).
    pub fn phase(&self) -> Phase {
        match &self.request {
            Ok(req) => Phase::of(req.op()),
            Err(_) => Phase::Read,
        }
    }
}

/// The environments a settle authorizes in: every value of X-Project-Env a
/// valid request of the run names (a near miss is refused, so changes
/// nothing). `None`: the header left out (the server's default).
pub const SETTLED_ENVS: [Option<ProjectEnv>; 3] =
    [None, Some(ProjectEnv::Dev), Some(ProjectEnv::Live)];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_go_after_reads_and_sequences_with_a_write_after_both() {
        assert_eq!(Phase::of(Op::AuthClaims), Phase::Read);
        assert_eq!(Phase::of(Op::Authorize), Phase::Write);
        assert_eq!(
            Phase::of_sequence([Op::AuthClaims, Op::AuthClaims]),
            Phase::Read
        );
        assert_eq!(
            Phase::of_sequence([Op::AuthClaims, Op::Authorize]),
            Phase::Verify
        );
        assert!(Phase::Read < Phase::Write && Phase::Write < Phase::Verify);
    }
}
