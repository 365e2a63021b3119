//! One run's shared state, owned by the runner: the target, the error
//! probes several checks judge (sent once), and the generated cases (made
//! once from the run's seed). The runner sends both phase by phase
//! ([`conformance_wire::phase`]) before any check judges them; checks receive the
//! context; nothing in it outlives the run, and the target itself holds no
//! check's state.

use std::ops::Deref;
use std::sync::{Arc, Mutex, OnceLock};

use crate::generate::{Generated, Generation, Judged};
use crate::probes::ErrorProbe;
use conformance_wire::phase::Phase;
use conformance_wire::request::{Probe, Sent};
use conformance_wire::target::Target;
use conformance_wire::valid::ValidRequests;

/// The requests of the error probes, made from the target's profile, each
/// with which probe it is.
pub type ProbePlan = fn(&ValidRequests) -> Vec<(ErrorProbe, Probe)>;

/// What every check of one run shares.
#[derive(Debug)]
pub struct RunContext {
    target: Arc<Target>,
    generation: Generation,
    /// The shared cases the run's checks read: only those are made.
    judged: Judged,
    probe_plan: ProbePlan,
    /// The probes' answers as their phases come back, in the planned order.
    probe_slots: Mutex<Vec<Option<(ErrorProbe, Sent)>>>,
    /// The generated cases of the phases sent so far.
    generated_so_far: Mutex<Option<Generated>>,
    probes: OnceLock<Vec<(ErrorProbe, Sent)>>,
    generated: OnceLock<Generated>,
    /// One lock per component, for a write and the reads of what it wrote.
    alone: Vec<tokio::sync::Mutex<()>>,
}

impl RunContext {
    pub fn new(
        target: Arc<Target>,
        generation: Generation,
        judged: Judged,
        probe_plan: ProbePlan,
    ) -> Self {
        RunContext {
            generation,
            judged,
            probe_plan,
            probe_slots: Mutex::new(Vec::new()),
            generated_so_far: Mutex::new(None),
            probes: OnceLock::new(),
            generated: OnceLock::new(),
            alone: target
                .profile()
                .components
                .iter()
                .map(|_| Default::default())
                .collect(),
            target,
        }
    }

    /// Holds the component named `name` alone until the guard is dropped:
    /// no other check's write to it lands between a write and the read of
    /// what it wrote (a token it issued; [`conformance_wire::phase`]).
    pub async fn alone(&self, name: &str) -> Option<tokio::sync::MutexGuard<'_, ()>> {
        let i = self
            .target
            .profile()
            .components
            .iter()
            .position(|c| c.name == name)?;
        Some(self.alone.get(i)?.lock().await)
    }

    pub fn target(&self) -> &Arc<Target> {
        &self.target
    }

    /// The seed and count of the generated cases.
    pub fn generation(&self) -> Generation {
        self.generation
    }

    /// Sends the shared requests of `phase`: the probes of its operation,
    /// and its generated cases. Called by the runner, once per phase, in
    /// order.
    pub async fn send_shared(&self, phase: Phase) {
        let probes = async {
            if !self.judged.judges_probes() {
                return;
            }
            let planned = (self.probe_plan)(&self.target.requests);
            let mut slots: Vec<Option<(ErrorProbe, Sent)>> = self.take_slots(planned.len());
            let (mine, at): (Vec<Probe>, Vec<(usize, ErrorProbe)>) = planned
                .into_iter()
                .enumerate()
                .filter(|(_, (_, p))| p.phase() == phase)
                .map(|(i, (kind, p))| (p, (i, kind)))
                .unzip();
            let sent = self.target.send_all(mine).await;
            for ((i, kind), s) in at.into_iter().zip(sent) {
                slots[i] = Some((kind, s));
            }
            *self.probe_slots.lock().unwrap_or_else(|p| p.into_inner()) = slots;
        };
        let unanswered = self
            .generated_so_far
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .as_ref()
            .is_some_and(|g| g.not_run.is_some());
        let generated = async {
            match unanswered {
                // The target did not answer a valid request: nothing more.
                true => Generated::default(),
                false => Generated::run(&self.target, self.generation, &self.judged, phase).await,
            }
        };
        let ((), generated) = tokio::join!(probes, generated);
        let mut so_far = self
            .generated_so_far
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        *so_far = Some(match so_far.take() {
            None => generated,
            Some(earlier) => earlier.merge(generated),
        });
    }

    fn take_slots(&self, len: usize) -> Vec<Option<(ErrorProbe, Sent)>> {
        let mut slots =
            std::mem::take(&mut *self.probe_slots.lock().unwrap_or_else(|p| p.into_inner()));
        slots.resize_with(len, || None);
        slots
    }

    /// Every shared request sent: the probes and the generated cases are
    /// now what the checks judge. Called by the runner after the last
    /// sending phase.
    pub fn seal(&self) {
        let slots =
            std::mem::take(&mut *self.probe_slots.lock().unwrap_or_else(|p| p.into_inner()));
        let _ = self.probes.set(slots.into_iter().flatten().collect());
        let generated = self
            .generated_so_far
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take()
            .unwrap_or_default();
        let _ = self.generated.set(generated);
    }

    /// The generated cases and property findings of the run (empty before
    /// [`RunContext::seal`]).
    pub fn generated(&self) -> &Generated {
        static NONE: OnceLock<Generated> = OnceLock::new();
        self.generated
            .get()
            .unwrap_or_else(|| NONE.get_or_init(Generated::default))
    }

    /// The answers to the error probes, each with which probe it is, in
    /// the planned order (empty before [`RunContext::seal`]).
    pub fn probes(&self) -> &[(ErrorProbe, Sent)] {
        self.probes.get().map_or(&[], Vec::as_slice)
    }
}

impl Deref for RunContext {
    type Target = Target;

    fn deref(&self) -> &Target {
        &self.target
    }
}
