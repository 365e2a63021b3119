//! Selects checks, runs them concurrently against one target, asserts the
//! snapshots of their exchanges on one thread, and collects the run's
//! [`RunResults`] (the gate judges them, the report crate shows them).
//!
//! The run is a pipeline of steps ([`run`]); the steps' own concepts are
//! modules: reaching the target (`preflight`), the phases each check goes
//! through (`schedule`), the outcomes made results (`collect`), the
//! snapshots asserted (`snapshots`), and the choices the profile left
//! undeclared (`undeclared`).

mod collect;
mod preflight;
mod schedule;
mod snapshots;
mod undeclared;

use std::sync::Arc;
use std::time::Instant;

use component_auth_bindings::Error;

use crate::catalogue::{Check, Outcome, selects};
use crate::checks::catalogue;
use crate::generate::Generation;
use crate::needs::{Need, unmet};
use crate::results::{CheckResult, Pace, RunResults};
use crate::snapshot::{SnapshotError, SnapshotOptions};
use conformance_model::choices::ChoiceKey;
use conformance_model::profile::Profile;
use conformance_wire::connect::Connect;
use conformance_wire::target::Target;
use conformance_wire::transport::Limits;

use collect::collect;
use preflight::preflight;
use schedule::schedule;
use snapshots::{assert_snapshots, second_look, writes_snapshots};
use undeclared::{hints, undeclared};

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
        timed_out: target.sender.waiting().1.1,
        stopped: target.sender.stopped(),
        concurrency: options.limits.concurrency,
        rate: prepared.limits.rate,
        retried: target.sender.retried(),
        limited: collected.throttled.limited,
        learnt_rate: collected.throttled.learnt_rate,
    };
    let took = started.elapsed();
    let outcomes_seen =
        conformance_wire::outcomes::coverage(&collected.answers, &target.profile().choices);
    let observed = target.requests.observed_model_uuid();
    let hints = hints(&checks, &results, target.profile(), observed);
    let undeclared = undeclared(
        &checks,
        &collected.outcomes,
        &results,
        target.profile(),
        observed,
    );
    let changed_choices =
        crate::cause::choice::changed(&checks, &collected.outcomes, &results, target.profile());
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
    if target.profile().choices.declares(ChoiceKey::ModelUuid) {
        return Ok(Prepared { target, limits });
    }
    let Some((at, _)) = target.model_uuid_place().await else {
        return Ok(Prepared { target, limits });
    };
    if at == conformance_model::choices::ModelUuidAt::default() {
        return Ok(Prepared { target, limits });
    }
    let target = Target::new(target.profile().clone(), limits, options.connect.clone())
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

/// What [`collect`] makes of the outcomes.
struct Collected {
    outcomes: Vec<Outcome>,
    results: Vec<CheckResult>,
    /// The run's outputs' scrubber: the profile's secrets and every token
    /// the server issued.
    scrub: conformance_wire::exchange::Scrubber,
    answers: Vec<conformance_wire::outcomes::Answer>,
    latency: Vec<conformance_wire::latency::OperationLatency>,
    throttled: conformance_wire::transport::Throttled,
}
