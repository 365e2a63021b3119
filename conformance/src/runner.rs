//! Selects checks, runs them concurrently against one target, asserts the
//! snapshots of their exchanges on one thread, and collects a [`Report`].

use std::sync::Arc;
use std::time::Instant;

use component_auth_bindings::Error;

use crate::catalogue::{Check, Level, Outcome, Verdict, selects};
use crate::checks::catalogue;
use crate::connect::Connect;
use crate::context::RunContext;
use crate::exchange::Exchange;
use crate::generate::{Generation, Judged};
use crate::needs::{Need, unmet};
use crate::profile::Profile;
use crate::report::{CheckResult, Pace, Report, Status};
use crate::snapshot::{self, Group, SnapshotError, SnapshotOptions, SnapshotOutcome};
use crate::target::{Limits, Op, Target, describe_error};

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
    /// The whole run's deadline: checks not finished by then fail, saying so.
    pub deadline: Option<std::time::Duration>,
}

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

/// Runs the selected checks against the target the profile names.
pub async fn run(profile: Profile, options: &RunOptions) -> Result<Report, RunError> {
    let started = Instant::now();
    let checks = select(options);
    if checks.is_empty() {
        return Err(RunError::NothingSelected);
    }
    let described = profile.to_string();
    let target = Arc::new(
        Target::new(profile, options.limits, options.connect.clone()).map_err(RunError::Client)?,
    );
    preflight(&target).await?;
    target.learn_volatile().await;

    let judged = checks.iter().fold(Judged::default(), |all, c| {
        all.union(&c.run.generated_read(&target.profile))
    });
    let context = Arc::new(RunContext::new(target.clone(), options.generation, judged));
    let handles: Vec<_> = checks
        .iter()
        .map(|c| tokio::spawn(c.run.start(context.clone())))
        .collect();
    let deadline = options
        .deadline
        .map(|d| tokio::time::Instant::from_std(started + d));
    let mut outcomes = Vec::with_capacity(checks.len());
    for handle in handles {
        let abort = handle.abort_handle();
        let joined = match deadline {
            Some(at) => tokio::time::timeout_at(at, handle).await,
            None => Ok(handle.await),
        };
        outcomes.push(match joined {
            Ok(Ok(outcome)) => outcome,
            Ok(Err(e)) => Outcome::fail(format!("the check itself failed: {e}"), Vec::new()),
            Err(_) => {
                abort.abort();
                Outcome::fail(
                    format!(
                        "the run's deadline ({} ms) passed before this check finished",
                        options.deadline.unwrap_or_default().as_millis()
                    ),
                    Vec::new(),
                )
            }
        });
    }

    // A token the server issued is a secret too, wherever it was echoed.
    let scrub = target.final_scrubber();
    for o in &mut outcomes {
        judge_redirects(o);
        for ex in &mut o.exchanges {
            scrub.exchange(ex);
        }
    }
    crate::checks::answers::judge_every_answer(&checks, &mut outcomes);
    let mut results: Vec<CheckResult> = checks
        .iter()
        .zip(&outcomes)
        .map(|(c, o)| {
            let mut r = CheckResult::from_check(
                c,
                c.level_for(&target.profile),
                &o.verdict,
                options.strict,
            );
            r.latency = crate::latency::of_exchanges(&o.exchanges);
            if r.note.is_none() {
                r.note = o.note.clone();
            }
            r
        })
        .collect();

    if let Some(snap) = &options.snapshots {
        let groups = groups(&checks, &outcomes, &target.profile);
        let snap = snap.clone();
        let asserted = tokio::task::spawn_blocking(move || snapshot::assert_all(&snap, &groups))
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
        results.extend(
            asserted
                .iter()
                .map(|s| CheckResult::from_snapshot(s, options.strict)),
        );
    }
    // Whatever a check or the server wrote, no secret leaves the run: the
    // server may echo one into a request id, a header or a message.
    for r in &mut results {
        for text in [&mut r.actual, &mut r.note].into_iter().flatten() {
            *text = scrub.text(text);
        }
    }
    let pace = Pace {
        timeout_ms: options.limits.timeout.as_millis(),
        deadline_ms: options.deadline.map(|d| d.as_millis()),
        concurrency: options.limits.concurrency,
        rate: options.limits.rate,
        retried: target.retried(),
    };
    let mut report = Report::new(
        scrub.text(&described),
        options.strict,
        options.generation,
        results,
        started.elapsed(),
    )
    .with_pace(pace);
    report.latency = target.latencies.by_operation();
    report.hints = hints(&checks, &report.results, &target.profile);
    crate::outcomes::judge(&mut report, &target.outcomes.answers());
    crate::budget::judge(&mut report, &target.profile.budgets);
    Ok(report)
}

/// Where failures may come from a choice the profile left undeclared: the
/// place of `modelUuid`, which no run can find unaided (`conformance
/// choices` probes for it).
fn hints(checks: &[Check], results: &[CheckResult], profile: &Profile) -> Vec<String> {
    if profile.choices.declares("model_uuid") {
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
        "{authorize} of the {} failed checks send Authorize, with modelUuid in the query string (spec/README.md's choice; the profile declares no `choices.model_uuid`). If the server reads it elsewhere (a header, the body, another name), `conformance choices --profile FILE` finds where: declare it and run again.",
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
        let name = o.group.map_or_else(|| c.id.clone(), str::to_owned);
        let level = c.level_for(profile);
        // A SHOULD check that only warned still records: what the server
        // chose differently is its behaviour, to be kept from drifting.
        let failed = matches!(o.verdict, Verdict::Fail { .. }) && level == Level::Must;
        match out.iter_mut().find(|g| g.name == name) {
            Some(g) => {
                g.check_failed |= failed;
                g.level = g.level.min(level);
            }
            None => out.push(Group {
                name,
                exchanges: o.exchanges.clone(),
                check_failed: failed,
                level,
            }),
        }
    }
    out
}

/// The interface answers directly: a redirect is an answer to judge, never
/// followed (the clients do not follow it, so nothing goes to another
/// host). A check that passed on exchanges holding a 3xx fails, with the
/// `Location` shown.
fn judge_redirects(o: &mut Outcome) {
    if matches!(o.verdict, Verdict::Fail { .. }) {
        return;
    }
    let redirect = o.exchanges.iter().find_map(Exchange::redirect);
    if let Some(actual) = redirect {
        o.verdict = Verdict::Fail { actual };
    }
}

/// One valid request: a target that cannot be reached (connection refused,
/// a connect or TLS handshake that fails or times out, a connection closed
/// or reset before any answer) is a usage error (exit 2), not a list of
/// failed checks. Any answer, or a failure after one began (a time-out
/// waiting for it, garbage), lets the checks run and say what is wrong.
async fn preflight(t: &Arc<Target>) -> Result<(), RunError> {
    let Some(c) = t.primary(Op::AuthClaims) else {
        return Ok(());
    };
    match t.reach(t.valid(Op::AuthClaims, c)).await {
        Err(e) if unreachable(&e) => {
            let mut reason = t.scrubber().text(&describe_error(&e));
            if reason.contains("certificate") {
                reason.push_str(
                    " (the server's certificate is not trusted: give its CA with --ca-cert)",
                );
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
