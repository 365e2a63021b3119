//! What a run has sent and had answered so far: the runner prints it while
//! a run waits (a server's limits, a slow server), so a run never goes
//! quiet for long.

use std::sync::atomic::{AtomicUsize, Ordering};

/// Counts, shared by every task of a run.
#[derive(Debug, Default)]
pub struct Progress {
    started: AtomicUsize,
    answered: AtomicUsize,
    ended: AtomicUsize,
}

/// The counts at one moment.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// Requests whose answer came (any status).
    pub answered: usize,
    /// Requests on the wire now.
    pub in_flight: usize,
    /// Requests that ended without an answer (a time-out, a reset).
    pub unanswered: usize,
}

impl Progress {
    /// A request went on the wire.
    pub fn started(&self) {
        self.started.fetch_add(1, Ordering::Relaxed);
    }

    /// A request came back: answered, or not.
    pub fn ended(&self, answered: bool) {
        self.ended.fetch_add(1, Ordering::Relaxed);
        if answered {
            self.answered.fetch_add(1, Ordering::Relaxed);
        }
    }

    pub fn counts(&self) -> Counts {
        let started = self.started.load(Ordering::Relaxed);
        let ended = self.ended.load(Ordering::Relaxed);
        let answered = self.answered.load(Ordering::Relaxed);
        Counts {
            answered,
            in_flight: started.saturating_sub(ended),
            unanswered: ended.saturating_sub(answered),
        }
    }
}
