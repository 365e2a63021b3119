//! A run that is still going says so: every [`PROGRESS_EVERY`] a line on
//! standard error with what the run waits for (a server's limit and how
//! long yet, requests in flight after time-outs), what has been answered
//! and how many checks are left, and how long until the deadline. A quick
//! run prints nothing; a run held by a server never goes quiet for long.

use std::io::Write as _;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use conformance_wire::phase::Phase;
use conformance_wire::target::Target;

/// How often a run that is still going says so on standard error.
pub const PROGRESS_EVERY: Duration = Duration::from_secs(10);

/// Where the run is, shared with the printing task; the task ends when
/// this is dropped.
pub struct Ticker {
    state: Arc<State>,
    task: Option<tokio::task::JoinHandle<()>>,
}

struct State {
    phase: Mutex<Option<Phase>>,
    judged: AtomicUsize,
    checks: usize,
}

impl Ticker {
    /// Starts printing every [`PROGRESS_EVERY`] when `on`.
    pub fn start(
        on: bool,
        target: Arc<Target>,
        checks: usize,
        started: Instant,
        deadline: Duration,
    ) -> Self {
        let state = Arc::new(State {
            phase: Mutex::new(None),
            judged: AtomicUsize::new(0),
            checks,
        });
        let task = on.then(|| {
            let state = state.clone();
            tokio::spawn(async move {
                let mut every = tokio::time::interval(PROGRESS_EVERY);
                every.tick().await;
                loop {
                    every.tick().await;
                    let line = state.line(&target, started.elapsed(), deadline);
                    // A closed standard error is no reason to stop a run.
                    let _ = writeln!(std::io::stderr(), "{line}");
                }
            })
        });
        Ticker { state, task }
    }

    /// The run entered `phase`.
    pub fn phase(&self, phase: Phase) {
        *self.state.phase.lock().unwrap_or_else(|p| p.into_inner()) = Some(phase);
    }

    /// `n` checks are done.
    pub fn judged(&self, n: usize) {
        self.state.judged.store(n, Ordering::Relaxed);
    }
}

impl Drop for Ticker {
    fn drop(&mut self) {
        if let Some(task) = self.task.take() {
            task.abort();
        }
    }
}

impl State {
    fn line(&self, target: &Target, elapsed: Duration, deadline: Duration) -> String {
        let counts = target.sender.progress.counts();
        let phase = match *self.phase.lock().unwrap_or_else(|p| p.into_inner()) {
            None => "settling every component",
            Some(Phase::Read) => "reads",
            Some(Phase::Write) => "writes",
            Some(Phase::Verify) => "writes read back",
            Some(Phase::Quiet) => "reads on every path",
            Some(Phase::Judge) => "judging",
        };
        let left = self
            .checks
            .saturating_sub(self.judged.load(Ordering::Relaxed));
        let mut line = format!(
            "conformance: still running after {} s ({phase}): {} requests answered, {} in flight, {} without an answer; {left} of {} checks left",
            elapsed.as_secs(),
            counts.answered,
            counts.in_flight,
            counts.unanswered,
            self.checks,
        );
        let (hold, (allowed, timed_out)) = target.sender.waiting();
        if let Some((left, said)) = hold {
            line.push_str(&format!(
                "; waiting {} s more: the server limits this client ({said})",
                left.as_secs_f64().ceil()
            ));
        }
        if timed_out > 0 {
            line.push_str(&format!(
                "; {timed_out} time-out{} so far, {allowed} request{} in flight at most",
                if timed_out == 1 { "" } else { "s" },
                if allowed == 1 { "" } else { "s" },
            ));
        }
        if let Some(why) = target.sender.stopped() {
            line.push_str(&format!("; sending stopped: {why}"));
        }
        line.push_str(&format!(
            "; deadline in {} s",
            deadline.saturating_sub(elapsed).as_secs()
        ));
        line
    }
}
