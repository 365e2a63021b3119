//! One run's shared state, owned by the runner: the target, the error
//! probes several checks judge (sent once), and the generated cases (made
//! once from the run's seed). Checks receive it; nothing in it outlives the
//! run, and the target itself holds no check's state.

use std::ops::Deref;
use std::sync::Arc;

use tokio::sync::OnceCell;

use crate::generate::{Generated, Generation, Judged};
use crate::target::{Probe, Sent, Target};

/// What every check of one run shares.
#[derive(Debug)]
pub struct RunContext {
    target: Arc<Target>,
    generation: Generation,
    /// The generated cases the run's checks read: only those are made.
    judged: Judged,
    probes: OnceCell<Vec<Sent>>,
    generated: OnceCell<Generated>,
}

impl RunContext {
    pub fn new(target: Arc<Target>, generation: Generation, judged: Judged) -> Self {
        RunContext {
            target,
            generation,
            judged,
            probes: OnceCell::new(),
            generated: OnceCell::new(),
        }
    }

    pub fn target(&self) -> &Arc<Target> {
        &self.target
    }

    /// The seed and count of the generated cases.
    pub fn generation(&self) -> Generation {
        self.generation
    }

    /// The generated cases and property findings, made once per run.
    pub async fn generated(&self) -> &Generated {
        self.generated
            .get_or_init(|| Generated::run(&self.target, self.generation, &self.judged))
            .await
    }

    /// The error probes (`checks::probe_requests`), sent once per run.
    pub async fn probes(&self, make: impl FnOnce(&Target) -> Vec<Probe>) -> &[Sent] {
        self.probes
            .get_or_init(|| async { self.target.send_all(make(&self.target)).await })
            .await
    }

    /// Sends every request concurrently; the answers come back in order.
    pub async fn send_all(&self, probes: Vec<Probe>) -> Vec<Sent> {
        self.target.send_all(probes).await
    }
}

impl Deref for RunContext {
    type Target = Target;

    fn deref(&self) -> &Target {
        &self.target
    }
}
