//! The result of a run, and its renderings: human text grouped by section
//! ([`human`]), JUnit XML ([`junit`]), JSON (serde), SARIF for code
//! scanning ([`sarif`]) and one self-contained HTML page ([`html`]).

use crate::generate::Generation;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::catalogue::{Check, Level, Verdict, section_title};
use crate::snapshot::{SnapshotOutcome, SnapshotResult};

pub mod escape;
pub mod html;
pub mod human;
pub mod junit;
pub mod sarif;

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

#[derive(Clone, Debug, Serialize)]
pub struct CheckResult {
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
    pub latency: Option<crate::latency::Stats>,
}

impl CheckResult {
    /// Where the entry a `baseline/ID` result is about stands: `(file, line)`.
    pub fn baseline_entry(&self) -> Option<(String, usize)> {
        let result = self;
        if !result.id.starts_with("baseline/") {
            return None;
        }
        let at = result.sends.strip_prefix("nothing: the entry at ")?;
        let (file, line) = at.rsplit_once(':')?;
        Some((file.to_owned(), line.parse().ok()?))
    }
}

impl CheckResult {
    /// `level`: the check's level for this run's profile
    /// ([`Check::level_for`]).
    pub fn from_check(c: &Check, level: Level, verdict: &Verdict, strict: bool) -> Self {
        let (status, expected, actual, note) = match verdict {
            Verdict::Pass => (Status::Passed, None, None, None),
            Verdict::Skip { reason } => (Status::Skipped, None, None, Some(reason.clone())),
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
                Some(format!("recorded {}", s.file.display())),
            ),
            SnapshotOutcome::Recorded { updated: true } => (
                Status::Passed,
                None,
                Some(format!("updated {}", s.file.display())),
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
            id: format!("snapshots/{}", s.group),
            title: format!("the exchanges of `{}` match the stored snapshot", s.group),
            section: "snapshots".to_owned(),
            section_title: section_title("snapshots").to_owned(),
            level: s.level,
            requirement: SNAPSHOT_REQUIREMENT.to_owned(),
            sends: format!("the requests of `{}`", s.group),
            expected: actual.as_ref().map(|_| expects.clone()),
            expects,
            status,
            actual,
            note,
            latency: None,
        }
    }
}

/// How many results of one kind (the checks, or the snapshot assertions)
/// ended each way; `total` is their sum.
#[derive(Clone, Copy, Debug, Default, Serialize, PartialEq, Eq)]
pub struct Counts {
    pub total: usize,
    pub passed: usize,
    pub failed: usize,
    pub warned: usize,
    pub skipped: usize,
    /// Of `skipped`, the MUST ones.
    pub skipped_must: usize,
    pub not_applicable: usize,
    pub known: usize,
}

impl Counts {
    fn add(&mut self, r: &CheckResult) {
        self.total += 1;
        match r.status {
            Status::Passed => self.passed += 1,
            Status::Failed => self.failed += 1,
            Status::Warned => self.warned += 1,
            Status::NotApplicable => self.not_applicable += 1,
            Status::Known => self.known += 1,
            Status::Skipped => {
                self.skipped += 1;
                if r.level == Level::Must {
                    self.skipped_must += 1;
                }
            }
        }
    }

    /// `99 checks: 98 passed, 0 failed, 0 skipped, 1 not applicable`, in
    /// the words every rendering uses: `noun` is `check` or `snapshot`;
    /// `skipped` is left out where nothing of the kind is ever skipped (a
    /// snapshot is compared or not applicable).
    fn line(&self, noun: &str, with_skipped: bool) -> String {
        let mut line = format!(
            "{} {}: {} passed, {} failed",
            self.total,
            plural(self.total, noun),
            self.passed,
            self.failed
        );
        if with_skipped {
            line.push_str(&format!(", {} skipped", self.skipped));
            if self.skipped_must > 0 {
                line.push_str(&format!(" ({} MUST)", self.skipped_must));
            }
        }
        if self.warned > 0 {
            line.push_str(&format!(", {} warned (SHOULD)", self.warned));
        }
        if self.not_applicable > 0 {
            line.push_str(&format!(", {} not applicable", self.not_applicable));
        }
        if self.known > 0 {
            line.push_str(&format!(", {} known (baseline)", self.known));
        }
        line
    }
}

/// `noun` for `n` of them: `1 check`, `2 checks`, `1 regression`.
pub fn plural(n: usize, noun: &str) -> String {
    if n == 1 {
        noun.to_owned()
    } else {
        format!("{noun}s")
    }
}

/// Whether a result is a snapshot assertion rather than a check.
pub fn is_snapshot(r: &CheckResult) -> bool {
    r.section == "snapshots"
}

/// The counts of a run: over all its results (the fields read by `diff`
/// and older reports), and apart for the checks and the snapshot
/// assertions (how the last line, the HTML page and the JSON name them).
#[derive(Clone, Copy, Debug, Default, Serialize, PartialEq, Eq)]
pub struct Summary {
    pub passed: usize,
    pub failed: usize,
    pub warned: usize,
    pub skipped: usize,
    /// Of `skipped`, the MUST checks: a gap in what the run proves
    /// (`--strict` fails on them).
    pub skipped_must: usize,
    /// Rules that apply "when" something happens the target never did.
    pub not_applicable: usize,
    /// Failures the `--baseline` lists as known (not gating).
    pub known: usize,
    /// MUST checks (and snapshots) that ran and were judged: passed,
    /// failed or known. None: the run proved nothing a gate needs.
    pub must_judged: usize,
    /// The rule checks alone.
    pub checks: Counts,
    /// The snapshot assertions alone (one per group of exchanges).
    pub snapshots: Counts,
}

impl Summary {
    /// The counts of `results`.
    pub fn of(results: &[CheckResult]) -> Self {
        let mut summary = Summary::default();
        for r in results {
            if r.level == Level::Must
                && matches!(r.status, Status::Passed | Status::Failed | Status::Known)
            {
                summary.must_judged += 1;
            }
            if is_snapshot(r) {
                summary.snapshots.add(r);
            } else {
                summary.checks.add(r);
            }
            match r.status {
                Status::Passed => summary.passed += 1,
                Status::Failed => summary.failed += 1,
                Status::Warned => summary.warned += 1,
                Status::NotApplicable => summary.not_applicable += 1,
                Status::Known => summary.known += 1,
                Status::Skipped => {
                    summary.skipped += 1;
                    if r.level == Level::Must {
                        summary.skipped_must += 1;
                    }
                }
            }
        }
        summary
    }
}

/// How the run talked to the target, as the report states it.
#[derive(Clone, Copy, Debug, Default, Serialize, PartialEq)]
pub struct Pace {
    /// Authorize requests that put the components in a known state before
    /// the checks (see `crate::phase`).
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
    /// Requests re-sent after a 429/503 with Retry-After.
    pub retried: usize,
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
        if self.retried > 0 {
            line.push_str(&format!(
                "; {} re-sent after 429/503 with Retry-After",
                self.retried
            ));
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

/// A whole run.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    /// The target, without secrets.
    pub target: String,
    pub strict: bool,
    /// The seed and number of generated cases: the same seed against the
    /// same server sends the same requests and gives the same verdicts.
    pub generation: Generation,
    /// Time-outs, concurrency, rate, deadline and retries of the run.
    pub pace: Pace,
    pub summary: Summary,
    pub duration_ms: u128,
    /// Median, p95 and max of each operation over every request of the run
    /// (differs run to run; never in a snapshot).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub latency: Vec<crate::latency::OperationLatency>,
    /// Each documented outcome of each operation, and how often the run
    /// saw it ([`crate::outcomes`]).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub outcomes: Vec<crate::outcomes::OutcomeSeen>,
    pub results: Vec<CheckResult>,
    /// What the user may do about the failures, where the run can tell
    /// (a choice the profile left undeclared that they may come from).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub hints: Vec<String>,
    /// The choices the profile does not declare that this run saw the
    /// server make otherwise than ours, as lines of a `choices:` block to
    /// paste (`key: value`, a comment where the run cannot tell the value).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub undeclared: Vec<String>,
    /// The variables this report's reproductions read that the profile
    /// does not take from the environment: each to `export` before pasting
    /// one, with where its value is (never the value).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub reproduction_variables: Vec<crate::curl::Definition>,
}

impl Report {
    pub fn new(
        target: String,
        strict: bool,
        generation: Generation,
        results: Vec<CheckResult>,
        took: Duration,
    ) -> Self {
        let summary = Summary::of(&results);
        Self {
            target,
            strict,
            generation,
            pace: Pace::default(),
            summary,
            duration_ms: took.as_millis(),
            latency: Vec::new(),
            outcomes: Vec::new(),
            results,
            hints: Vec::new(),
            undeclared: Vec::new(),
            reproduction_variables: Vec::new(),
        }
    }

    /// Keeps of `definitions` those a reproduction in this report reads
    /// (`${VARIABLE}`), for the report to print how to define them.
    pub fn define_reproduction_variables(&mut self, definitions: Vec<crate::curl::Definition>) {
        let texts: Vec<&str> = self
            .results
            .iter()
            .filter_map(|r| r.actual.as_deref())
            .filter(|a| a.contains("curl "))
            .collect();
        self.reproduction_variables = definitions
            .into_iter()
            .filter(|d| {
                let used = format!("${{{}}}", d.variable);
                texts.iter().any(|t| t.contains(&used))
            })
            .collect();
    }

    /// Counts the results again, after they were changed (a baseline
    /// applied, budgets judged).
    pub fn recount(&mut self) {
        self.summary = Summary::of(&self.results);
    }

    pub fn with_pace(mut self, pace: Pace) -> Self {
        self.pace = pace;
        self
    }

    /// 0 when nothing gating failed, 1 otherwise; under `--strict` a
    /// skipped MUST check gates too (a run cannot go green by skipping),
    /// and a run in which no MUST check was judged is never green (it
    /// proved nothing a release gate needs).
    pub fn exit_code(&self) -> i32 {
        let gaps = self.strict && self.summary.skipped_must > 0;
        if self.summary.failed == 0 && !gaps && !self.judged_no_must() {
            0
        } else {
            1
        }
    }

    /// No MUST check was judged (all skipped, not applicable, or none
    /// selected): the run cannot be green.
    pub fn judged_no_must(&self) -> bool {
        self.summary.must_judged == 0
    }

    /// The last line printed: the checks and the snapshot assertions
    /// counted apart, `99 checks: 99 passed, 0 failed, 0 skipped; 75
    /// snapshots: 75 passed, 0 failed` (`(K MUST)` after the skipped MUST
    /// checks; warned, not applicable and known when there are any; no
    /// snapshot part in a run without snapshots).
    pub fn last_line(&self) -> String {
        let mut line = self.summary.checks.line("check", true);
        if self.summary.snapshots.total > 0 {
            line.push_str("; ");
            line.push_str(&self.summary.snapshots.line("snapshot", false));
        }
        line
    }

    /// Why MUST checks were skipped: each reason once, with how many checks
    /// it kept from running and what to add to the profile, in order.
    pub fn must_skips(&self) -> Vec<(String, usize, Option<&'static str>)> {
        let mut out: Vec<(String, usize, Option<&'static str>)> = Vec::new();
        for r in &self.results {
            if r.status != Status::Skipped || r.level != Level::Must {
                continue;
            }
            let reason = r.note.clone().unwrap_or_default();
            match out.iter_mut().find(|(why, _, _)| *why == reason) {
                Some((_, n, _)) => *n += 1,
                None => {
                    let remedy = crate::needs::Need::ALL
                        .iter()
                        .find(|n| n.reason() == reason)
                        .map(|n| n.remedy());
                    out.push((reason, 1, remedy));
                }
            }
        }
        out
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"))
    }

    /// The results grouped by section, in the description's order (then any
    /// section it does not list, in the order first met), each group in
    /// catalogue order: how every rendering lays a report out.
    pub fn by_section(&self) -> Vec<(&str, Vec<&CheckResult>)> {
        let mut order: Vec<&str> = crate::catalogue::SECTIONS.iter().map(|(s, _)| *s).collect();
        for r in &self.results {
            if !order.contains(&r.section.as_str()) {
                order.push(&r.section);
            }
        }
        order
            .into_iter()
            .map(|section| {
                let results = self
                    .results
                    .iter()
                    .filter(|r| r.section == section)
                    .collect();
                (section, results)
            })
            .filter(|(_, results): &(&str, Vec<&CheckResult>)| !results.is_empty())
            .collect()
    }

    pub fn failed(&self) -> impl Iterator<Item = &CheckResult> {
        self.results.iter().filter(|r| r.status == Status::Failed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checks::catalogue;

    #[test]
    fn should_failures_gate_only_when_strict() {
        let all = catalogue();
        let should = all
            .iter()
            .find(|c| c.level == Level::Should)
            .expect("a SHOULD check");
        let must = all
            .iter()
            .find(|c| c.level == Level::Must)
            .expect("a MUST check");
        let fail = Verdict::Fail {
            actual: "HTTP 200".into(),
        };
        assert_eq!(
            CheckResult::from_check(should, should.level, &fail, false).status,
            Status::Warned
        );
        assert_eq!(
            CheckResult::from_check(should, should.level, &fail, true).status,
            Status::Failed
        );
        assert_eq!(
            CheckResult::from_check(must, must.level, &fail, false).status,
            Status::Failed
        );
        let r = Report::new(
            "t".into(),
            false,
            Generation::default(),
            vec![
                CheckResult::from_check(should, should.level, &fail, false),
                CheckResult::from_check(must, must.level, &Verdict::Pass, false),
            ],
            Duration::ZERO,
        );
        assert_eq!(r.exit_code(), 0);
        let last = "2 checks: 1 passed, 0 failed, 0 skipped, 1 warned (SHOULD)";
        assert_eq!(r.last_line(), last);
        let text = human::render(&r, human::Style { color: false });
        assert_eq!(text.lines().last(), Some(last));
        assert!(text.contains("Expected") && text.contains("Actual      HTTP 200"));
    }

    #[test]
    fn catalogue_ids_are_unique_and_anchored() {
        let all = catalogue();
        let mut ids: Vec<&str> = all.iter().map(|c| c.id).collect();
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), all.len(), "duplicate check ids");
        for c in &all {
            assert!(
                crate::catalogue::SECTIONS
                    .iter()
                    .any(|(s, _)| *s == c.section),
                "{}: unknown section",
                c.id
            );
            assert!(
                !c.quote.is_empty() && !c.sends.is_empty() && !c.expects.is_empty(),
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
