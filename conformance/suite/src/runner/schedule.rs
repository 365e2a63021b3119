//! Step 4 of a run: every check sent phase by phase
//! ([`conformance_wire::phase`]) and judged, in catalogue order, each
//! where it stands in a [`Schedule`]; a check not done by the run's
//! deadline is not judged, saying so.

use std::sync::Arc;
use std::time::Instant;

use crate::catalogue::{Body, Check, Outcome};
use crate::context::RunContext;
use crate::generate::Judged;
use crate::needs::unmet;
use conformance_wire::phase::Phase;
use conformance_wire::request::{Probe, Sent};
use conformance_wire::target::Target;

use super::{DEFAULT_DEADLINE, RunOptions};

/// Step 4: every check sent phase by phase and judged, in catalogue order;
/// a check not done by the run's deadline is not judged, saying so.
pub(super) async fn schedule(
    checks: &[Check],
    target: &Arc<Target>,
    options: &RunOptions,
    deadline: Instant,
    ticker: &crate::progress::Ticker,
) -> Vec<Outcome> {
    let judged = checks.iter().fold(Judged::default(), |all, c| {
        all.union(&c.run.generated_read(target.profile()))
    });
    let context = Arc::new(RunContext::new(
        target.clone(),
        options.generation,
        judged,
        crate::probes::probe_requests,
    ));
    let within_ms = options.deadline.unwrap_or(DEFAULT_DEADLINE).as_millis();
    let deadline = Some(tokio::time::Instant::from_std(deadline));
    let late = || match target.sender.stopped() {
        Some(why) => Outcome::not_judged(
            format!("not judged: the run stopped sending before this check's requests went: {why}"),
            Vec::new(),
        ),
        None => Outcome::not_judged(
            format!(
                "not judged: the run's deadline ({within_ms} ms) passed before this check finished"
            ),
            Vec::new(),
        ),
    };
    let mut schedule = Schedule::new(checks, target);
    for phase in [Phase::Read, Phase::Write] {
        ticker.phase(phase);
        schedule.send(phase, &context, deadline, late).await;
        ticker.judged(schedule.done());
    }
    if schedule.has(Phase::Verify) {
        ticker.phase(Phase::Verify);
        target.settle().await;
        schedule.send(Phase::Verify, &context, deadline, late).await;
        ticker.judged(schedule.done());
    }
    if schedule.has(Phase::Quiet) {
        ticker.phase(Phase::Quiet);
        schedule.send(Phase::Quiet, &context, deadline, late).await;
        ticker.judged(schedule.done());
    }
    context.seal();
    schedule.judge(&context, deadline, late).await
}

/// Where each selected check stands while the run goes through its phases
/// ([`conformance_wire::phase`]): its planned requests and their answers so far, or
/// its outcome once known.
struct Schedule {
    checks: Vec<Check>,
    slots: Vec<Slot>,
}

enum Slot {
    /// Planned requests, each sent in its phase; the answers in order.
    Planned {
        probes: Vec<Option<Probe>>,
        sent: Vec<Option<Sent>>,
    },
    /// A procedure, run in its phase.
    Procedure(Phase),
    Done(Outcome),
}

impl Schedule {
    fn new(checks: &[Check], target: &Target) -> Self {
        let slots = checks
            .iter()
            .map(|c| {
                if let Some(need) = unmet(c.run.needed(), target.profile()) {
                    return Slot::Done(Outcome::unmet(need));
                }
                match &c.run.body {
                    Body::Planned { plan, .. } => {
                        let probes: Vec<Option<Probe>> =
                            plan(&target.requests).into_iter().map(Some).collect();
                        let sent = probes.iter().map(|_| None).collect();
                        Slot::Planned { probes, sent }
                    }
                    Body::Procedure { phase, .. } => Slot::Procedure(*phase),
                    // Judged last, by the runner, over every other check.
                    Body::RunWide(_) => Slot::Done(Outcome::not_applicable(
                        "judged once every other check is",
                        Vec::new(),
                    )),
                }
            })
            .collect();
        Schedule {
            checks: checks.to_vec(),
            slots,
        }
    }

    /// Whether a check runs a procedure in `phase`.
    fn has(&self, phase: Phase) -> bool {
        self.slots
            .iter()
            .any(|s| matches!(s, Slot::Procedure(p) if *p == phase))
    }

    /// Sends every request of `phase`, all at once, with the shared ones
    /// (in [`Phase::Verify`] a check's write and the read of what it wrote
    /// hold their component alone: [`RunContext::alone`]).
    async fn send(
        &mut self,
        phase: Phase,
        context: &Arc<RunContext>,
        deadline: Option<tokio::time::Instant>,
        late: impl Fn() -> Outcome,
    ) {
        if deadline.is_some_and(|at| tokio::time::Instant::now() >= at) {
            return self.give_up(late);
        }
        if phase == Phase::Quiet {
            return self.one_at_a_time(phase, context, deadline, late).await;
        }
        let mut tasks: Vec<(usize, Task)> = Vec::new();
        for (i, slot) in self.slots.iter_mut().enumerate() {
            match slot {
                Slot::Planned { probes, sent } => {
                    let (mine, at): (Vec<Probe>, Vec<usize>) = probes
                        .iter_mut()
                        .enumerate()
                        .filter(|(_, p)| p.as_ref().is_some_and(|p| p.phase() == phase))
                        .filter_map(|(j, p)| p.take().map(|p| (p, j)))
                        .unzip();
                    if mine.is_empty() {
                        continue;
                    }
                    let target = context.target().clone();
                    // A check whose requests all go in this phase is judged
                    // as soon as its answers are in, and its raw answers
                    // (up to the body cap each) dropped then: what a run
                    // holds is the answers in flight, not a phase's worth.
                    let whole =
                        probes.iter().all(Option::is_none) && sent.iter().all(Option::is_none);
                    if let (true, Body::Planned { judge, .. }) = (whole, &self.checks[i].run.body) {
                        let (judge, context) = (judge.clone(), context.clone());
                        let handle = tokio::spawn(async move {
                            let answers = target.send_all(mine).await;
                            judge(&context, answers)
                        });
                        tasks.push((i, Task::Ran(handle)));
                        continue;
                    }
                    let handle = tokio::spawn(async move { target.send_all(mine).await });
                    tasks.push((i, Task::Sent(at, handle)));
                }
                Slot::Procedure(p) if *p == phase => {
                    let Body::Procedure { run, .. } = &self.checks[i].run.body else {
                        continue;
                    };
                    tasks.push((i, Task::Ran(tokio::spawn(run(context.clone())))));
                }
                _ => {}
            }
        }
        let shared = {
            let context = context.clone();
            tokio::spawn(async move { context.send_shared(phase).await })
        };
        for (i, task) in tasks {
            match task {
                Task::Sent(at, handle) => match within(deadline, handle).await {
                    Some(Ok(answers)) => {
                        if let Slot::Planned { sent, .. } = &mut self.slots[i] {
                            for (j, s) in at.into_iter().zip(answers) {
                                sent[j] = Some(s);
                            }
                        }
                    }
                    Some(Err(e)) => self.slots[i] = Slot::Done(Outcome::fail(e, Vec::new())),
                    None => self.slots[i] = Slot::Done(late()),
                },
                Task::Ran(handle) => {
                    let outcome = within(deadline, handle)
                        .await
                        .map(|o| o.unwrap_or_else(|e| Outcome::fail(e, Vec::new())));
                    self.slots[i] = Slot::Done(outcome.unwrap_or_else(&late));
                }
            }
        }
        if within(deadline, shared).await.is_none() {
            self.give_up(late);
        }
        self.judge_complete(context);
    }

    /// Runs the procedures of `phase` one after the other, nothing else in
    /// flight ([`Phase::Quiet`]): each request then goes on a connection of
    /// its own right after the one before, so that a balancer's round robin
    /// or a pool of workers spreads consecutive reads over its instances.
    async fn one_at_a_time(
        &mut self,
        phase: Phase,
        context: &Arc<RunContext>,
        deadline: Option<tokio::time::Instant>,
        late: impl Fn() -> Outcome,
    ) {
        for i in 0..self.slots.len() {
            if !matches!(self.slots[i], Slot::Procedure(p) if p == phase) {
                continue;
            }
            let Body::Procedure { run, .. } = &self.checks[i].run.body else {
                continue;
            };
            let outcome = within(deadline, tokio::spawn(run(context.clone())))
                .await
                .map(|o| o.unwrap_or_else(|e| Outcome::fail(e, Vec::new())));
            self.slots[i] = Slot::Done(outcome.unwrap_or_else(&late));
        }
    }

    /// How many checks are done (judged, or never to run).
    fn done(&self) -> usize {
        self.slots
            .iter()
            .filter(|s| matches!(s, Slot::Done(_)))
            .count()
    }

    /// Judges every planned check whose answers are all in, now: its raw
    /// answers (up to the body cap each) are then dropped, and only its
    /// records kept, so what a run holds does not grow with every request
    /// until the end.
    fn judge_complete(&mut self, context: &RunContext) {
        for (slot, check) in self.slots.iter_mut().zip(&self.checks) {
            let (Slot::Planned { probes, sent }, Body::Planned { judge, .. }) =
                (&mut *slot, &check.run.body)
            else {
                continue;
            };
            if probes.iter().any(Option::is_some) || sent.iter().any(Option::is_none) {
                continue;
            }
            let answers: Vec<Sent> = sent.iter_mut().filter_map(Option::take).collect();
            *slot = Slot::Done(judge(context, answers));
        }
    }

    /// Every check not yet judged fails for the deadline.
    fn give_up(&mut self, late: impl Fn() -> Outcome) {
        for slot in &mut self.slots {
            if !matches!(slot, Slot::Done(_)) {
                *slot = Slot::Done(late());
            }
        }
    }

    /// Judges every check whose answers are in, runs the procedures that
    /// only judge; the outcomes in catalogue order.
    async fn judge(
        self,
        context: &Arc<RunContext>,
        deadline: Option<tokio::time::Instant>,
        late: impl Fn() -> Outcome,
    ) -> Vec<Outcome> {
        let mut out = Vec::with_capacity(self.slots.len());
        for (check, slot) in self.checks.iter().zip(self.slots) {
            out.push(match (slot, &check.run.body) {
                (Slot::Done(outcome), _) => outcome,
                (Slot::Planned { sent, .. }, Body::Planned { judge, .. }) => {
                    match sent.into_iter().collect::<Option<Vec<Sent>>>() {
                        Some(sent) => judge(context, sent),
                        None => late(),
                    }
                }
                (Slot::Procedure(_), Body::Procedure { run, .. }) => {
                    match within(deadline, tokio::spawn(run(context.clone()))).await {
                        Some(Ok(outcome)) => outcome,
                        Some(Err(e)) => Outcome::fail(e, Vec::new()),
                        None => late(),
                    }
                }
                _ => Outcome::fail(
                    "the check's run and its slot disagree (a bug of the runner)",
                    Vec::new(),
                ),
            });
        }
        out
    }
}

/// A task of a phase: planned requests sent (the positions of their
/// answers), or a procedure run.
enum Task {
    Sent(Vec<usize>, tokio::task::JoinHandle<Vec<Sent>>),
    Ran(tokio::task::JoinHandle<Outcome>),
}

/// The task's result, `Err` with why if it failed; `None` when the
/// deadline passed first (the task is then aborted).
async fn within<T>(
    deadline: Option<tokio::time::Instant>,
    handle: tokio::task::JoinHandle<T>,
) -> Option<Result<T, String>> {
    let abort = handle.abort_handle();
    let joined = match deadline {
        Some(at) => tokio::time::timeout_at(at, handle).await.ok(),
        None => Some(handle.await),
    };
    if joined.is_none() {
        abort.abort();
    }
    joined.map(|r| r.map_err(|e| format!("the check itself failed: {e}")))
}
