//! Selects checks, runs them concurrently against one target, asserts the
//! snapshots of their exchanges on one thread, and collects the run's
//! [`RunResults`] (the gate judges them, the report crate shows them).

use std::sync::Arc;
use std::time::Instant;

use component_auth_bindings::Error;

use crate::catalogue::{Body, Check, Level, Outcome, Verdict, selects};
use crate::checks::catalogue;
use crate::context::RunContext;
use crate::generate::{Generation, Judged};
use crate::needs::{Need, unmet};
use crate::results::{Anchor, CheckResult, Pace, RunResults, Status};
use crate::snapshot::{self, Group, SnapshotError, SnapshotOptions, SnapshotOutcome};
use conformance_model::choices::ChoiceKey;
use conformance_model::profile::Profile;
use conformance_wire::connect::Connect;
use conformance_wire::phase::Phase;
use conformance_wire::target::{Limits, Op, Probe, Sent, Target, describe_error};

/// What to run and how.
#[derive(Clone, Debug, Default)]
pub struct RunOptions {
    /// Ids, id prefixes or sections to run; empty: all.
    pub only: Vec<String>,
    /// Ids, id prefixes or sections to leave out (applied after `only`).
    pub skip: Vec<String>,
    /// SHOULD failures fail the run too.
    pub strict: bool,
    pub limits: Limits,
    /// Roots, client certificate, proxies, gateway headers.
    pub connect: Connect,
    /// `None`: no snapshot assertions (rule checks only).
    pub snapshots: Option<SnapshotOptions>,
    /// Seed and count of the generated cases.
    pub generation: Generation,
    /// The whole run's deadline: checks not finished by then are not
    /// judged, saying so, and no wait for the server (a limit's, a
    /// back-off) is begun that would end after it. `None`:
    /// [`DEFAULT_DEADLINE`].
    pub deadline: Option<std::time::Duration>,
    /// Print a line to standard error every
    /// [`crate::progress::PROGRESS_EVERY`] while the
    /// run goes on (what it waits for, requests answered, checks left), so
    /// that a run held by a server's limits or slowness is never silent
    /// for long. Off for a library caller; the command turns it on.
    pub progress: bool,
}

/// A run's deadline when none is given: ten minutes, far beyond a run's
/// usual second or two (a server 50 ms away is checked in a few seconds)
/// and within any CI job's time-out, so that a server whose limits never
/// lift ends in a verdict, not in a job killed in silence.
pub const DEFAULT_DEADLINE: std::time::Duration = std::time::Duration::from_secs(600);

/// Why a run could not judge the target at all (exit 2).
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error("the target {url} cannot be reached: {reason}")]
    Unreachable { url: String, reason: String },
    #[error("cannot set up the client for the target: {0}")]
    Client(#[source] Error),
    #[error(transparent)]
    Snapshot(#[from] SnapshotError),
    #[error("--only/--skip selected no check (see `conformance list`)")]
    NothingSelected,
}

/// The checks `options` select, in catalogue order.
pub fn select(options: &RunOptions) -> Vec<Check> {
    catalogue()
        .into_iter()
        .filter(|c| options.only.is_empty() || options.only.iter().any(|s| selects(s, c)))
        .filter(|c| !options.skip.iter().any(|s| selects(s, c)))
        .collect()
}

/// What a profile lets the selected checks do, before any request is sent.
#[derive(Debug)]
pub struct Plan {
    /// Checks that will run.
    pub runnable: Vec<Check>,
    /// Checks the profile cannot support, each with its first unmet need.
    pub skipped: Vec<(Check, Need)>,
}

impl Plan {
    pub fn new(profile: &Profile, options: &RunOptions) -> Self {
        let mut plan = Plan {
            runnable: Vec::new(),
            skipped: Vec::new(),
        };
        for c in select(options) {
            match unmet(c.run.needed(), profile) {
                Some(need) => plan.skipped.push((c, need)),
                None => plan.runnable.push(c),
            }
        }
        plan
    }
}

/// Runs the selected checks against the target the profile names: a
/// pipeline of named steps, each a function of what the one before
/// returns (`plan` → `prepare` → `settle` → `schedule` → `collect` →
/// `assert_snapshots`).
pub async fn run(profile: Profile, options: &RunOptions) -> Result<RunResults, RunError> {
    let started = Instant::now();
    let deadline = options.deadline.unwrap_or(DEFAULT_DEADLINE);
    let checks = plan(options)?;
    let described = profile.to_string();
    let prepared = prepare(profile, options, started + deadline).await?;
    let ticker = crate::progress::Ticker::start(
        options.progress,
        prepared.target.clone(),
        checks.len(),
        started,
        deadline,
    );
    let settled = settle(&prepared.target).await;
    let outcomes = schedule(
        &checks,
        &prepared.target,
        options,
        started + deadline,
        &ticker,
    )
    .await;
    let collected = collect(&checks, outcomes, &prepared, options);
    let refused = match writes_snapshots(&checks, &collected.outcomes, &prepared.target, options) {
        true => {
            second_look(
                &checks,
                &collected.outcomes,
                &prepared.target,
                options,
                started + deadline,
                &ticker,
            )
            .await
        }
        false => Default::default(),
    };
    drop(ticker);
    let mut results = collected.results;
    results.extend(
        assert_snapshots(
            &checks,
            &collected.outcomes,
            &prepared.target,
            options,
            refused,
        )
        .await?,
    );
    // Whatever a check or the server wrote, no secret leaves the run: the
    // server may echo one into a request id, a header or a message.
    let scrub = &collected.scrub;
    for r in &mut results {
        for text in [&mut r.actual, &mut r.note].into_iter().flatten() {
            *text = scrub.text(text);
        }
    }
    let target = &prepared.target;
    let pace = Pace {
        settled,
        timeout_ms: options.limits.timeout.as_millis(),
        deadline_ms: Some(deadline.as_millis()),
        timed_out: target.waiting().1.1,
        stopped: target.stopped(),
        concurrency: options.limits.concurrency,
        rate: prepared.limits.rate,
        retried: target.retried(),
        limited: collected.throttled.limited,
        learnt_rate: collected.throttled.learnt_rate,
    };
    let took = started.elapsed();
    let outcomes_seen =
        conformance_wire::outcomes::coverage(&collected.answers, &target.profile.choices);
    let observed = target.observed_model_uuid();
    let hints = hints(&checks, &results, &target.profile, observed);
    let undeclared = undeclared(
        &checks,
        &collected.outcomes,
        &results,
        &target.profile,
        observed,
    );
    let changed_choices =
        crate::cause::choice::changed(&checks, &collected.outcomes, &results, &target.profile);
    Ok(RunResults {
        target: scrub.text(&described),
        strict: options.strict,
        generation: options.generation,
        pace,
        took,
        results,
        latency: collected.latency,
        outcomes: outcomes_seen,
        hints,
        undeclared,
        changed_choices,
    })
}

/// Step 1: the checks `options` select; none is an error.
fn plan(options: &RunOptions) -> Result<Vec<Check>, RunError> {
    let checks = select(options);
    if checks.is_empty() {
        return Err(RunError::NothingSelected);
    }
    Ok(checks)
}

/// What [`prepare`] makes: the target and the limits it sends within.
struct Prepared {
    target: Arc<Target>,
    limits: Limits,
}

/// Step 2: the target, reached once, and where it reads `modelUuid`. The
/// profile's pace (`rate`) applies where `--rate` sets none. No valid
/// Authorize can be sent without knowing where `modelUuid` travels:
/// undeclared, the run looks first (as `conformance choices` does), sends
/// it there, and says so; the place is the target's, never written into
/// the profile's choices.
async fn prepare(
    profile: Profile,
    options: &RunOptions,
    deadline: Instant,
) -> Result<Prepared, RunError> {
    let mut limits = options.limits;
    limits.rate = limits.rate.or(profile.rate);
    let target = Target::new(profile, limits, options.connect.clone())
        .map_err(RunError::Client)?
        .with_deadline(Some(deadline));
    let target = Arc::new(target);
    preflight(&target, !options.connect.ca_certs.is_empty()).await?;
    if target.profile.choices.declares(ChoiceKey::ModelUuid) {
        return Ok(Prepared { target, limits });
    }
    let Some((at, _)) = target.model_uuid_place().await else {
        return Ok(Prepared { target, limits });
    };
    if at == conformance_model::choices::ModelUuidAt::default() {
        return Ok(Prepared { target, limits });
    }
    let target = Target::new(target.profile.clone(), limits, options.connect.clone())
        .map_err(RunError::Client)?
        .with_deadline(Some(deadline))
        .with_observed_model_uuid(at);
    Ok(Prepared {
        target: Arc::new(target),
        limits,
    })
}

/// Step 3: every component in a known state before any read
/// ([`conformance_wire::phase`]), and what varies learnt in that state.
/// Returns how many requests the settle sent.
async fn settle(target: &Arc<Target>) -> usize {
    let settled = target.settle().await;
    target.learn_volatile().await;
    settled
}

/// Step 4: every check sent phase by phase and judged, in catalogue order;
/// a check not done by the run's deadline is not judged, saying so.
async fn schedule(
    checks: &[Check],
    target: &Arc<Target>,
    options: &RunOptions,
    deadline: Instant,
    ticker: &crate::progress::Ticker,
) -> Vec<Outcome> {
    let judged = checks.iter().fold(Judged::default(), |all, c| {
        all.union(&c.run.generated_read(&target.profile))
    });
    let context = Arc::new(RunContext::new(
        target.clone(),
        options.generation,
        judged,
        crate::probes::probe_requests,
    ));
    let within_ms = options.deadline.unwrap_or(DEFAULT_DEADLINE).as_millis();
    let deadline = Some(tokio::time::Instant::from_std(deadline));
    let late = || match target.stopped() {
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

/// What [`collect`] makes of the outcomes.
struct Collected {
    outcomes: Vec<Outcome>,
    results: Vec<CheckResult>,
    /// The run's outputs' scrubber: the profile's secrets and every token
    /// the server issued.
    scrub: conformance_wire::exchange::Scrubber,
    answers: Vec<conformance_wire::outcomes::Answer>,
    latency: Vec<conformance_wire::latency::OperationLatency>,
    throttled: conformance_wire::target::Throttled,
}

/// Step 5: the outcomes scrubbed of every secret the run learnt, checks the
/// server's limits kept from being judged marked so, the run-wide checks
/// judged last over the rest, each check's result.
fn collect(
    checks: &[Check],
    mut outcomes: Vec<Outcome>,
    prepared: &Prepared,
    options: &RunOptions,
) -> Collected {
    let target = &prepared.target;
    // A token the server issued is a secret too, wherever it was echoed.
    let scrub = target.final_scrubber();
    for o in &mut outcomes {
        for ex in &mut o.exchanges {
            scrub.exchange(ex);
        }
    }
    let answers = target.outcomes.answers();
    let latency = target.latencies.by_operation();
    let (mut limit_answers, throttled) = target.limits_seen();
    for ex in &mut limit_answers {
        scrub.exchange(ex);
    }
    not_judged_when_limited(checks, &mut outcomes, throttled, prepared.limits.rate);
    judge_run_wide(
        checks,
        &mut outcomes,
        &RunWideInput {
            answers: &answers,
            latency: &latency,
            limited: &limit_answers,
        },
        &target.profile,
        options.strict,
    );
    let results = checks
        .iter()
        .zip(&outcomes)
        .map(|(c, o)| {
            let mut r = CheckResult::from_check(
                c,
                c.level_for(&target.profile),
                &o.verdict,
                options.strict,
            );
            r.latency = conformance_wire::latency::of_exchanges(&o.exchanges);
            if r.note.is_none() {
                r.note = o.note.clone();
            }
            r
        })
        .collect();
    Collected {
        outcomes,
        results,
        scrub,
        answers,
        latency,
        throttled,
    }
}

/// Step 6: each group of exchanges asserted against its stored snapshot,
/// on one thread (insta's settings are per thread); none without
/// `options.snapshots`.
async fn assert_snapshots(
    checks: &[Check],
    outcomes: &[Outcome],
    target: &Target,
    options: &RunOptions,
    refused: std::collections::BTreeMap<String, String>,
) -> Result<Vec<CheckResult>, RunError> {
    let Some(snap) = &options.snapshots else {
        return Ok(Vec::new());
    };
    let groups = groups(checks, outcomes, &target.profile);
    let snap = snap.clone();
    let asserted =
        tokio::task::spawn_blocking(move || snapshot::assert_all(&snap, &groups, &refused))
            .await
            .unwrap_or_else(|e| {
                Ok(vec![snapshot::SnapshotResult {
                    group: "snapshots".to_owned(),
                    level: Level::Must,
                    file: Default::default(),
                    outcome: SnapshotOutcome::Failed(format!(
                        "the snapshot assertions failed: {e}"
                    )),
                }])
            })?;
    // A snapshot stands where the check its group is named after does,
    // selected or not.
    let all = catalogue();
    let anchor = |group: &str| all.iter().find(|c| c.id == group).map(Anchor::of);
    Ok(asserted
        .iter()
        .map(|s| CheckResult::from_snapshot(s, anchor(&s.group), options.strict))
        .collect())
}

/// Whether this run will write a snapshot: `--accept`, or outside CI a
/// group whose snapshot is not stored yet.
fn writes_snapshots(
    checks: &[Check],
    outcomes: &[Outcome],
    target: &Target,
    options: &RunOptions,
) -> bool {
    let Some(snap) = &options.snapshots else {
        return false;
    };
    match snap.update {
        snapshot::SnapshotUpdate::Accept => true,
        snapshot::SnapshotUpdate::Ci => false,
        snapshot::SnapshotUpdate::Local => groups(checks, outcomes, &target.profile)
            .iter()
            .any(|g| !snapshot::file_of(&snap.dir, &g.name).exists()),
    }
}

/// Step 5b, for a run that will write snapshots: the whole schedule again
/// from a state settled again, and the groups whose exchanges differ from
/// the first look's, each with the part that differs
/// ([`crate::stability`]). The first look's verdicts stand; this one only
/// keeps an unstable answer from being recorded as the truth.
async fn second_look(
    checks: &[Check],
    first: &[Outcome],
    target: &Arc<Target>,
    options: &RunOptions,
    deadline: Instant,
    ticker: &crate::progress::Ticker,
) -> std::collections::BTreeMap<String, String> {
    target.settle().await;
    let mut again = schedule(checks, target, options, deadline, ticker).await;
    let scrub = target.final_scrubber();
    for o in &mut again {
        for ex in &mut o.exchanges {
            scrub.exchange(ex);
        }
    }
    // What the first look kept from being judged stays unjudged; a check
    // the second look could not judge says nothing of stability.
    let limited = |o: &Outcome| {
        o.exchanges
            .iter()
            .any(|e| e.limited.is_some() || e.unanswered.is_some())
            || matches!(o.verdict, Verdict::NotJudged { .. })
    };
    let comparable: Vec<(Check, &Outcome, Outcome)> = checks
        .iter()
        .zip(first)
        .zip(again)
        .filter(|((_, a), b)| !limited(a) && !limited(b))
        .map(|((c, a), b)| (c.clone(), a, b))
        .collect();
    let checks: Vec<Check> = comparable.iter().map(|(c, _, _)| c.clone()).collect();
    let (ones, twos): (Vec<Outcome>, Vec<Outcome>) = comparable
        .into_iter()
        .map(|(_, a, b)| (a.clone(), b))
        .unzip();
    crate::stability::unstable(
        &groups(&checks, &ones, &target.profile),
        &groups(&checks, &twos, &target.profile),
    )
}

/// A check whose request the server still limited when the runner gave up,
/// or which got no answer within the time-out after every try, is not
/// judged on that exchange: a limit or a late answer is not the server's
/// answer to a rule. Neither a pass nor a failure: not judged, saying why
/// and what would avoid it (what the answers that came showed, where the
/// check had failed on them, is kept in the words).
fn not_judged_when_limited(
    checks: &[Check],
    outcomes: &mut [Outcome],
    throttled: conformance_wire::target::Throttled,
    rate: Option<f64>,
) {
    for (c, o) in checks.iter().zip(outcomes.iter_mut()) {
        if matches!(c.run.body, Body::RunWide(_)) {
            continue;
        }
        let limited = o
            .exchanges
            .iter()
            .find_map(|ex| ex.limited.as_ref().map(|why| (ex, why)));
        let unanswered = o
            .exchanges
            .iter()
            .find_map(|ex| ex.unanswered.as_ref().map(|why| (ex, why)));
        let why = match (limited, unanswered) {
            (Some((ex, why)), _) => {
                let pace = match (throttled.learnt_rate, rate) {
                    (Some(learnt), _) => format!(
                        "the server allowed about {learnt} requests a second: run with `--rate {}`, or declare `rate: {}` in the profile (`conformance choices` observes it)",
                        suggested_rate(learnt),
                        suggested_rate(learnt)
                    ),
                    (None, Some(r)) => format!(
                        "the run was paced at {r} requests a second: lower `--rate` or the profile's `rate`"
                    ),
                    (None, None) => {
                        "declare the server's pace with `rate:` in the profile, or `--rate N`"
                            .to_owned()
                    }
                };
                format!(
                    "not judged: the server limited `{}` ({why}), so this check could not see the server's answer to its rule; {pace}",
                    ex.label
                )
            }
            (None, Some((ex, why))) => format!(
                "not judged: `{}` got {why}, so this check could not see the server's answer to its rule (a slow server, or a busy machine: a longer `--timeout`, or a lower `--concurrency`)",
                ex.label
            ),
            (None, None) => continue,
        };
        let why = match &o.verdict {
            Verdict::Fail { actual } => {
                format!("{why}\nWhat the answers that came showed: {actual}")
            }
            _ => why,
        };
        o.verdict = Verdict::NotJudged { why };
    }
}

/// A pace a little under what the server allowed.
fn suggested_rate(learnt: f64) -> f64 {
    ((learnt * 0.9).floor()).max(1.0)
}

/// What run-wide checks judge besides the other checks' outcomes.
struct RunWideInput<'a> {
    answers: &'a [conformance_wire::outcomes::Answer],
    latency: &'a [conformance_wire::latency::OperationLatency],
    limited: &'a [conformance_wire::exchange::Exchange],
}

/// The run-wide checks' verdicts, over every other check's outcome (each
/// verdict of the run through the catalogue: `list` shows these checks,
/// `--only` and `--skip` select them).
fn judge_run_wide(
    checks: &[Check],
    outcomes: &mut [Outcome],
    seen: &RunWideInput<'_>,
    profile: &Profile,
    strict: bool,
) {
    let judged: Vec<(usize, Outcome)> = {
        let input = crate::catalogue::RunWide {
            checks,
            outcomes,
            answers: seen.answers,
            latency: seen.latency,
            profile,
            strict,
            limited: seen.limited,
        };
        checks
            .iter()
            .enumerate()
            .filter(|(i, _)| !matches!(input.outcomes[*i].verdict, Verdict::Skip { .. }))
            .filter_map(|(i, c)| match &c.run.body {
                Body::RunWide(judge) => Some((i, judge(&input))),
                _ => None,
            })
            .collect()
    };
    for (i, outcome) in judged {
        outcomes[i] = outcome;
    }
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
                if let Some(need) = unmet(c.run.needed(), &target.profile) {
                    return Slot::Done(Outcome::unmet(need));
                }
                match &c.run.body {
                    Body::Planned { plan, .. } => {
                        let probes: Vec<Option<Probe>> =
                            plan(target).into_iter().map(Some).collect();
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
                Slot::Planned { probes, .. } => {
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

/// The choices the profile leaves undeclared that this run saw the server
/// make otherwise than ours, as `key: value` lines of a `choices:` block:
/// where modelUuid was found, and for each check of an undeclared choice
/// that warned, the value its answers show (a status as answered; a yes/no
/// or a shape, the other one than ours).
fn undeclared(
    checks: &[Check],
    outcomes: &[Outcome],
    results: &[CheckResult],
    profile: &Profile,
    observed_model_uuid: Option<&conformance_model::choices::ModelUuidAt>,
) -> Vec<String> {
    let choices = &profile.choices;
    let mut lines: Vec<(ChoiceKey, String)> = Vec::new();
    if let (false, Some(at)) = (choices.declares(ChoiceKey::ModelUuid), observed_model_uuid) {
        lines.push((ChoiceKey::ModelUuid, format!("model_uuid: \"{at}\"")));
    }
    for ((c, o), r) in checks.iter().zip(outcomes).zip(results) {
        let Some(key) = c.run.chosen_by() else {
            continue;
        };
        let warned =
            r.level == Level::Should && matches!(r.status, Status::Warned | Status::Failed);
        if !warned || choices.declares(key) || lines.iter().any(|(k, _)| *k == key) {
            continue;
        }
        // Undeclared, the choice is ours: the row proposes the status
        // answered, or the other value of a two-valued set.
        let answered = o
            .exchanges
            .iter()
            .find_map(|e| e.response.as_ref().map(|r| r.status));
        let value = key.otherwise(answered);
        lines.push((
            key,
            match value {
                Some(v) => format!("{key}: {v}"),
                None => format!("# {key}: (the run cannot tell: see `conformance choices`)"),
            },
        ));
    }
    lines.into_iter().map(|(_, line)| line).collect()
}

/// Where failures may come from a choice the profile left undeclared: the
/// place of `modelUuid`, which no run can find unaided (`conformance
/// choices` probes for it).
fn hints(
    checks: &[Check],
    results: &[CheckResult],
    profile: &Profile,
    observed_model_uuid: Option<&conformance_model::choices::ModelUuidAt>,
) -> Vec<String> {
    if profile.choices.declares(ChoiceKey::ModelUuid) || observed_model_uuid.is_some() {
        return Vec::new();
    }
    let sends_authorize = |c: &Check| {
        c.run.needed().iter().any(|n| {
            matches!(
                n,
                Need::Authorize
                    | Need::InvalidBody
                    | Need::RequiresAuthWithAuthorize
                    | Need::TokenWithAuthorize
                    | Need::NoAuthWithAuthorize
            )
        })
    };
    let failed: Vec<bool> = checks
        .iter()
        .zip(results)
        .filter(|(_, r)| r.status == Status::Failed)
        .map(|(c, _)| sends_authorize(c))
        .collect();
    let authorize = failed.iter().filter(|&&a| a).count();
    if authorize == 0 {
        return Vec::new();
    }
    vec![format!(
        "{authorize} of the {} failed checks send Authorize, with modelUuid in the query string (spec/README.md's choice; the profile declares no `choices.model_uuid`, and no place the run tried was served). If the server reads it elsewhere, declare where (`choices.model_uuid: \"header:NAME\"`, `\"body:FIELD\"`, `\"query:NAME\"`) and run again.",
        failed.len()
    )]
}

/// One snapshot per check (or per shared group), first occurrence wins;
/// checks that sent nothing have none. A group counts as failed when any
/// check judging it failed.
fn groups(checks: &[Check], outcomes: &[Outcome], profile: &Profile) -> Vec<Group> {
    let mut out: Vec<Group> = Vec::new();
    for (c, o) in checks.iter().zip(outcomes) {
        if o.exchanges.is_empty() || matches!(o.verdict, Verdict::Skip { .. }) {
            continue;
        }
        let name = o.group.unwrap_or(c.id).to_owned();
        let level = c.level_for(profile);
        // A SHOULD check that only warned still records: what the server
        // chose differently is its behaviour, to be kept from drifting.
        let failed = matches!(o.verdict, Verdict::Fail { .. }) && level == Level::Must;
        let unanswered = matches!(o.verdict, Verdict::NotJudged { .. })
            || o.exchanges
                .iter()
                .any(|e| e.limited.is_some() || e.unanswered.is_some());
        match out.iter_mut().find(|g| g.name == name) {
            Some(g) => {
                g.check_failed |= failed;
                g.unanswered |= unanswered;
                g.level = g.level.min(level);
            }
            None => out.push(Group {
                name,
                exchanges: o.exchanges.clone(),
                check_failed: failed,
                unanswered,
                level,
            }),
        }
    }
    out
}

/// One valid request: a target that cannot be reached (connection refused,
/// a connect or TLS handshake that fails or times out, a connection closed
/// or reset before any answer) is a usage error (exit 2), not a list of
/// failed checks. Any answer, or a failure after one began (a time-out
/// waiting for it, garbage), lets the checks run and say what is wrong.
async fn preflight(t: &Arc<Target>, ca_given: bool) -> Result<(), RunError> {
    let Some(c) = t.primary(Op::AuthClaims) else {
        return Ok(());
    };
    match t.reach(t.valid(Op::AuthClaims, c)).await {
        Err(e) if unreachable(&e) => {
            let mut reason = t.scrubber().text(&describe_error(&e));
            // Only an unknown issuer is cured by a CA: an expired
            // certificate or a wrong name is the server's to fix. With a
            // CA given, the link missing is the one between them.
            if reason.contains("is not a known certificate authority") {
                reason.push_str(match ca_given {
                    false => " (give its CA with --ca-cert)",
                    true => {
                        " (the CA given with --ca-cert is not the issuer of the certificate the server sent, and the server sent no intermediate certificate that leads to it: a server must send its whole chain, its own certificate then each intermediate, as openssl and curl say with \"unable to get local issuer certificate\"; or --ca-cert names another CA)"
                    }
                });
            }
            Err(RunError::Unreachable {
                url: t.scrubber().text(&t.profile.base_url),
                reason,
            })
        }
        _ => Ok(()),
    }
}

/// Refused, failed or timed-out connects, and connections closed or reset
/// before the first byte of an answer.
fn unreachable(e: &Error) -> bool {
    if matches!(e, Error::Connect(_)) {
        return true;
    }
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        if let Some(io) = s.downcast_ref::<std::io::Error>() {
            if matches!(
                io.kind(),
                std::io::ErrorKind::ConnectionReset
                    | std::io::ErrorKind::ConnectionAborted
                    | std::io::ErrorKind::BrokenPipe
            ) {
                return true;
            }
        }
        if s.to_string()
            .contains("connection closed before message completed")
        {
            return true;
        }
        source = s.source();
    }
    false
}
