//! What a run produced, as data: each check's verdict in words
//! ([`CheckResult`], its [`Status`]), each snapshot assertion's, how the run
//! talked to the target ([`Pace`]), and the rest a report is assembled
//! from ([`RunResults`]). The runner makes these; the report crate only
//! shows them.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::catalogue::{Check, Level, SNAPSHOTS_SECTION, Verdict, section_title};
use crate::generate::Generation;
use crate::needs::Need;
use crate::snapshot::{SnapshotOutcome, SnapshotResult};

/// What every snapshot result cites.
pub const SNAPSHOT_REQUIREMENT: &str =
    "Every exchange is compared with the snapshot stored for the target.";

/// What became of one check.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Passed,
    /// Failed, and gates the run (a MUST, a snapshot, or a SHOULD with `--strict`).
    Failed,
    /// A SHOULD check failed without `--strict`: reported, not gating.
    Warned,
    Skipped,
    /// The rule applies "when" something happens that this target never
    /// did (no answer was a 417, say): not a gap, not gating.
    /// `notapplicable` in reports written before it was spelt as in
    /// `summary.not_applicable`: `diff` still reads them.
    #[serde(rename = "not_applicable", alias = "notapplicable")]
    NotApplicable,
    /// Failed, and listed in the `--baseline` as a known failure that has
    /// not expired: reported with its reason, not gating.
    Known,
}

impl Status {
    /// How reports name it: `passed`, `failed`, ... (as in the JSON).
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Passed => "passed",
            Status::Failed => "failed",
            Status::Warned => "warned",
            Status::Skipped => "skipped",
            Status::NotApplicable => "not_applicable",
            Status::Known => "known",
        }
    }
}

/// What a result is about: the renderings lay each kind out its own way
/// and read it from here, never from the id or the section.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A check of the catalogue, its id the check's.
    Check,
    /// A snapshot assertion over the exchanges of `group` (a check's id,
    /// or the name of exchanges several checks share).
    Snapshot { group: String },
    /// An entry of the `--baseline` that must go (a file of the user's,
    /// not a check).
    Baseline,
}

#[derive(Clone, Debug, Serialize)]
pub struct CheckResult {
    /// Set where the result is made; not in the JSON, whose `section`
    /// says it in words.
    #[serde(skip)]
    pub kind: Kind,
    pub id: String,
    pub title: String,
    pub section: String,
    pub section_title: String,
    pub level: Level,
    pub requirement: String,
    pub sends: String,
    pub expects: String,
    pub status: Status,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expected: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub actual: Option<String>,
    /// Why skipped, or a note on a pass (a snapshot recorded), or the
    /// baseline's reason for a known failure.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// How long the check's own requests took (differs run to run).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub latency: Option<conformance_wire::latency::Stats>,
    /// Where the result stands when it is about a file of the user's rather
    /// than a check of the catalogue (a baseline's entry): file and line.
    /// Not in the JSON, whose `sends` says it in words.
    #[serde(skip)]
    pub stands_at: Option<(String, usize)>,
    /// Skipped for this lack of the profile (the report names the remedy).
    #[serde(skip)]
    pub unmet: Option<Need>,
}

impl CheckResult {
    /// `level`: the check's level for this run's profile
    /// ([`Check::level_for`]).
    pub fn from_check(c: &Check, level: Level, verdict: &Verdict, strict: bool) -> Self {
        let unmet = match verdict {
            Verdict::Skip { unmet, .. } => *unmet,
            _ => None,
        };
        let (status, expected, actual, note) = match verdict {
            Verdict::Pass => (Status::Passed, None, None, None),
            Verdict::Skip { reason, .. } => (Status::Skipped, None, None, Some(reason.clone())),
            Verdict::NotApplicable { reason } => {
                (Status::NotApplicable, None, None, Some(reason.clone()))
            }
            Verdict::Fail { actual } => {
                let status = if level == Level::Should && !strict {
                    Status::Warned
                } else {
                    Status::Failed
                };
                (status, Some(c.expects.clone()), Some(actual.clone()), None)
            }
        };
        Self {
            kind: Kind::Check,
            id: c.id.to_owned(),
            title: c.title.clone(),
            section: c.section.to_owned(),
            section_title: section_title(c.section).to_owned(),
            level,
            requirement: c.requirement_for(level),
            sends: c.sends.clone(),
            expects: c.expects.clone(),
            status,
            expected,
            actual,
            note,
            latency: None,
            stands_at: None,
            unmet,
        }
    }

    pub fn from_snapshot(s: &SnapshotResult, strict: bool) -> Self {
        let failed = if s.level == Level::Should && !strict {
            Status::Warned
        } else {
            Status::Failed
        };
        let (status, actual, note) = match &s.outcome {
            SnapshotOutcome::Matched => (Status::Passed, None, None),
            SnapshotOutcome::Recorded { updated: false } => (
                Status::Passed,
                None,
                Some(format!("recorded {}", crate::snapshot::shareable(&s.file))),
            ),
            SnapshotOutcome::Recorded { updated: true } => (
                Status::Passed,
                None,
                Some(format!("updated {}", crate::snapshot::shareable(&s.file))),
            ),
            SnapshotOutcome::Failed(why) => (failed, Some(why.clone()), None),
            SnapshotOutcome::NotRecorded => (
                Status::NotApplicable,
                None,
                Some(format!(
                    "not recorded nor compared: the check `{}` failed, so its exchanges are no reference",
                    s.group
                )),
            ),
        };
        let expects = "the exchanges equal the stored snapshot, after normalisation".to_owned();
        Self {
            kind: Kind::Snapshot {
                group: s.group.clone(),
            },
            id: format!("snapshots/{}", s.group),
            title: format!("the exchanges of `{}` match the stored snapshot", s.group),
            section: SNAPSHOTS_SECTION.to_owned(),
            section_title: section_title(SNAPSHOTS_SECTION).to_owned(),
            level: s.level,
            requirement: SNAPSHOT_REQUIREMENT.to_owned(),
            sends: format!("the requests of `{}`", s.group),
            expected: actual.as_ref().map(|_| expects.clone()),
            expects,
            status,
            actual,
            note,
            latency: None,
            stands_at: None,
            unmet: None,
        }
    }
}

/// How the run talked to the target, as the report states it.
#[derive(Clone, Copy, Debug, Default, Serialize, PartialEq)]
pub struct Pace {
    /// Authorize requests that put the components in a known state before
    /// the checks (see `conformance_wire::phase`).
    pub settled: usize,
    /// Per-request time-out (connect to last byte).
    pub timeout_ms: u128,
    /// The whole run's deadline, when one was set (`--deadline`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deadline_ms: Option<u128>,
    /// Requests in flight at once (`--concurrency`).
    pub concurrency: usize,
    /// Requests started per second, at most (`--rate`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rate: Option<f64>,
    /// Requests re-sent after a limit answer (a 429, or a 503 with
    /// Retry-After).
    pub retried: usize,
    /// Limit answers the run was given (the settle's included): a server's
    /// load, so left out of the JSON when none came.
    #[serde(skip_serializing_if = "is_zero")]
    pub limited: usize,
    /// The pace the run fell to while the server limited it, requests a
    /// second.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub learnt_rate: Option<f64>,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

impl Pace {
    /// One line for people.
    pub fn line(&self) -> String {
        let mut line = format!(
            "Requests: time-out {} ms, {} at once",
            self.timeout_ms, self.concurrency
        );
        if let Some(rate) = self.rate {
            line.push_str(&format!(", at most {rate} per second"));
        }
        if let Some(d) = self.deadline_ms {
            line.push_str(&format!(", run deadline {d} ms"));
        }
        if self.limited > 0 {
            line.push_str(&format!(
                "; the server limited the run: {} limit answer{} (429, or 503 with Retry-After), {} re-sent",
                self.limited,
                if self.limited == 1 { "" } else { "s" },
                self.retried
            ));
            if let Some(r) = self.learnt_rate {
                line.push_str(&format!(", paced down to {r} per second"));
            }
        } else if self.retried > 0 {
            line.push_str(&format!("; {} re-sent after a limit answer", self.retried));
        }
        if self.settled > 0 {
            line.push_str(&format!(
                "\nState: {} Authorize requests put the components in a known state first; then every read, then every write, then what a write claimed (one at a time)",
                self.settled
            ));
        }
        line
    }
}

/// Everything a run produced, in catalogue order, then the snapshot
/// assertions: what a report is assembled from.
#[derive(Clone, Debug)]
pub struct RunResults {
    /// The target, without secrets.
    pub target: String,
    pub strict: bool,
    /// The seed and number of generated cases.
    pub generation: Generation,
    pub pace: Pace,
    pub took: Duration,
    /// Each selected check's result, then each snapshot assertion's.
    pub results: Vec<CheckResult>,
    /// Median, p95 and max of each operation over every request of the run.
    pub latency: Vec<conformance_wire::latency::OperationLatency>,
    /// Each documented outcome of each operation, and how often the run
    /// saw it ([`conformance_wire::outcomes`]).
    pub outcomes: Vec<conformance_wire::outcomes::OutcomeSeen>,
    /// What the user may do about the failures, where the run can tell.
    pub hints: Vec<String>,
    /// The choices the profile does not declare that this run saw the
    /// server make otherwise than ours, as lines of a `choices:` block.
    pub undeclared: Vec<String>,
}
