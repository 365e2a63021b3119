//! What a run produced, as data: each check's verdict in words
//! ([`CheckResult`], its [`Status`]), each snapshot assertion's, how the run
//! talked to the target ([`Pace`]), and the rest a report is assembled
//! from ([`RunResults`]). The runner makes these, each result with the
//! [`Anchor`] of its check; [`crate::gate`] decides from them whether the
//! run passes, [`crate::baseline`] marks the failures a team knows; the
//! report crate only shows them.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::catalogue::{Check, Level, SNAPSHOTS_SECTION, Subject, Verdict, section_title};
use crate::generate::Generation;
use crate::needs::Need;
use crate::snapshot::{SnapshotOutcome, SnapshotResult};
use conformance_model::choices::ChoiceKey;

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
    /// The server's answer never came within what the run waits (its
    /// limits, or no answer within the time-out after every try): neither
    /// passed nor failed. A MUST one keeps the run from green with exit
    /// code 3, apart from the failures' 1.
    #[serde(rename = "not_judged")]
    NotJudged,
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
            Status::NotJudged => "not_judged",
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
    /// or the name of exchanges several checks share); where they differ
    /// from the stored ones, the values that changed.
    Snapshot {
        group: String,
        changes: Option<crate::changes::Changes>,
    },
    /// An entry of the `--baseline` that must go (a file of the user's,
    /// not a check).
    Baseline,
}

/// Where a check of the catalogue stands in the description, carried by
/// its results so that nothing after the run looks the check up again: the
/// baseline hashes the quote, a rendering places a result at its sentence,
/// its choice's node or its operation.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Anchor {
    /// Section of the interface description, e.g. `7.1`.
    pub section: &'static str,
    /// The sentence the check enforces, quoted (or the norm, or the spec's
    /// choice).
    pub quote: &'static str,
    /// The choice of `choices:` the check judges, if one.
    pub choice: Option<ChoiceKey>,
    /// The sentence of the description the check cites, if it cites one
    /// (not a norm): failures of one sentence share a cause.
    pub requirement: Option<&'static conformance_requirements::Requirement>,
    /// What the check judges: its operation, the items of its tables.
    pub subject: Subject,
    /// The profile declares what the check holds the server to (a latency
    /// budget).
    pub declared_by_profile: bool,
}

impl Anchor {
    /// The anchor of `c`.
    pub fn of(c: &Check) -> Self {
        Anchor {
            section: c.section,
            quote: c.quote(),
            choice: c.run.chosen_by(),
            requirement: c.cites.requirement(),
            subject: c.subject,
            declared_by_profile: c.run.declared_by_profile(),
        }
    }
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
    /// The check the result is about: a check's own; a snapshot's, the
    /// check whose id names its exchanges (none for a shared group no check
    /// is named after, nor for a baseline's entry). Not in the JSON.
    #[serde(skip)]
    pub anchor: Option<Anchor>,
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
            Verdict::NotJudged { why } => (Status::NotJudged, None, Some(why.clone()), None),
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
            anchor: Some(Anchor::of(c)),
        }
    }

    /// `anchor`: that of the check whose id is the snapshot's group, if one.
    pub fn from_snapshot(s: &SnapshotResult, anchor: Option<Anchor>, strict: bool) -> Self {
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
            SnapshotOutcome::Failed(why) | SnapshotOutcome::Differs { why, .. } => {
                (failed, Some(why.clone()), None)
            }
            SnapshotOutcome::Unanswered => (
                Status::NotApplicable,
                None,
                Some(format!(
                    "not recorded nor compared: an answer of `{}` never came within what the run waits (a limit, or a time-out after every try), so its exchanges are no reference",
                    s.group
                )),
            ),
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
                changes: match &s.outcome {
                    SnapshotOutcome::Differs { changes, .. } => Some(changes.clone()),
                    _ => None,
                },
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
            anchor,
        }
    }
}

/// How the run talked to the target, as the report states it.
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
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
    /// Requests that got no answer within the time-out (each re-sent,
    /// fewer then in flight): a busy server or a busy machine.
    #[serde(skip_serializing_if = "is_zero")]
    pub timed_out: usize,
    /// Why the run stopped sending before it was done: the server's limits
    /// would have held it past its deadline, or never lifted.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stopped: Option<String>,
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
        if self.timed_out > 0 {
            line.push_str(&format!(
                "; {} request{} got no answer within the time-out (re-sent after a back-off, fewer in flight)",
                self.timed_out,
                if self.timed_out == 1 { "" } else { "s" }
            ));
        }
        if let Some(why) = &self.stopped {
            line.push_str(&format!("; the run stopped sending: {why}"));
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
/// assertions: what the gate judges ([`crate::gate`]) and a report shows.
#[derive(Clone, Debug, Default)]
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
    /// The status choices whose check saw another status than the one the
    /// profile records (or ours): each the cause of what it changed.
    pub changed_choices: Vec<ChangedChoice>,
}

/// A status choice whose check saw another status of the same class (a
/// refusal's 4xx for a 4xx, a success's 2xx for a 2xx): a choice, not a
/// broken rule. A refusal answered 200 is no choice of the server's.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ChangedChoice {
    pub key: ChoiceKey,
    /// The id of the check that judges the choice.
    pub check: String,
    /// The status the profile records, or ours.
    pub recorded: String,
    /// The profile declares it (else `recorded` is ours).
    pub declared: bool,
    /// The status the server answered instead.
    pub seen: String,
}

impl ChangedChoice {
    /// The choice is a success's status (not a refusal's).
    pub fn is_success(&self) -> bool {
        self.key.is_success_status()
    }

    /// What happened and what to do, in one sentence.
    pub fn says(&self) -> String {
        if self.declared {
            format!(
                "the server now answers {} where the profile records {}: update `choices.{}`",
                self.seen, self.recorded, self.key
            )
        } else {
            format!(
                "the server answers {} where ours is {} (the profile declares no `choices.{}`): declare `choices.{}: {}`",
                self.seen, self.recorded, self.key, self.key, self.seen
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checks::catalogue;

    /// Every check's result carries the check's anchor, and every anchor
    /// has what a result cites: a known section, a quote, what is sent and
    /// expected, an id of lower-case words.
    #[test]
    fn every_result_carries_its_anchor() {
        for c in &catalogue() {
            let r = CheckResult::from_check(c, c.level, &Verdict::Pass, false);
            let anchor = r.anchor.expect("a check's result is anchored");
            assert_eq!(anchor, Anchor::of(c), "{}", c.id);
            assert_eq!((anchor.section, anchor.quote), (c.section, c.quote()));
            assert_eq!(anchor.choice, c.run.chosen_by(), "{}", c.id);
            assert!(
                crate::catalogue::SECTIONS
                    .iter()
                    .any(|(s, _)| *s == anchor.section),
                "{}: unknown section",
                c.id
            );
            assert!(
                !anchor.quote.is_empty() && !r.sends.is_empty() && !r.expects.is_empty(),
                "{}",
                c.id
            );
            assert!(
                c.id.chars()
                    .all(|ch| ch.is_ascii_lowercase() || ch.is_ascii_digit() || "-/".contains(ch)),
                "{}",
                c.id
            );
        }
    }
}
