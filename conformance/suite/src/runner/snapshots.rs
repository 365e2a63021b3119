//! Step 6 of a run: the snapshot groups of the checks' exchanges, a
//! second look where the run will write snapshots (an unstable answer is
//! never recorded as the truth), and each group asserted against its
//! stored snapshot.

use std::sync::Arc;
use std::time::Instant;

use crate::catalogue::{Check, Level, Outcome, Verdict};
use crate::checks::catalogue;
use crate::results::{Anchor, CheckResult};
use crate::snapshot::{self, Group, SnapshotOutcome};
use conformance_model::profile::Profile;
use conformance_wire::target::Target;

use super::schedule::schedule;
use super::{RunError, RunOptions};

/// Step 6: each group of exchanges asserted against its stored snapshot,
/// on one thread (insta's settings are per thread); none without
/// `options.snapshots`.
pub(super) async fn assert_snapshots(
    checks: &[Check],
    outcomes: &[Outcome],
    target: &Target,
    options: &RunOptions,
    refused: std::collections::BTreeMap<String, String>,
) -> Result<Vec<CheckResult>, RunError> {
    let Some(snap) = &options.snapshots else {
        return Ok(Vec::new());
    };
    let groups = groups(checks, outcomes, target.profile());
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
pub(super) fn writes_snapshots(
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
        snapshot::SnapshotUpdate::Local => groups(checks, outcomes, target.profile())
            .iter()
            .any(|g| !snapshot::file_of(&snap.dir, &g.name).exists()),
    }
}

/// Step 5b, for a run that will write snapshots: the whole schedule again
/// from a state settled again, and the groups whose exchanges differ from
/// the first look's, each with the part that differs
/// ([`crate::stability`]). The first look's verdicts stand; this one only
/// keeps an unstable answer from being recorded as the truth.
pub(super) async fn second_look(
    checks: &[Check],
    first: &[Outcome],
    target: &Arc<Target>,
    options: &RunOptions,
    deadline: Instant,
    ticker: &crate::progress::Ticker,
) -> std::collections::BTreeMap<String, String> {
    target.settle().await;
    let mut again = schedule(checks, target, options, deadline, ticker).await;
    let scrub = target.state.final_scrubber();
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
        &groups(&checks, &ones, target.profile()),
        &groups(&checks, &twos, target.profile()),
    )
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
