//! A run's report, assembled from the suite's results ([`Report::of`]),
//! and its renderings: human text grouped by section ([`human`]), JUnit XML
//! ([`junit`]), JSON (serde), SARIF for code scanning ([`sarif`]) and one
//! self-contained HTML page ([`html`]). The counts and the exit code are
//! read from the statuses the suite gave (and a baseline marked known).

use conformance_suite::generate::Generation;
use std::time::Duration;

use serde::Serialize;

use conformance_suite::catalogue::Level;

/// The suite's results, which a report shows (re-exported where reports
/// have always named them).
pub use conformance_suite::results::{
    CheckResult, Kind, Pace, RunResults, SNAPSHOT_REQUIREMENT, Status,
};

pub mod escape;
pub mod html;
pub mod human;
pub mod junit;
pub mod sarif;

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
    matches!(r.kind, Kind::Snapshot { .. })
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
    pub latency: Vec<conformance_wire::latency::OperationLatency>,
    /// Each documented outcome of each operation, and how often the run
    /// saw it ([`conformance_wire::outcomes`]).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub outcomes: Vec<conformance_wire::outcomes::OutcomeSeen>,
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
    pub reproduction_variables: Vec<conformance_wire::curl::Definition>,
}

impl Report {
    /// The report of a run: its results as the suite judged them, counted.
    pub fn of(run: RunResults) -> Self {
        let mut report = Report::new(
            run.target,
            run.strict,
            run.generation,
            run.results,
            run.took,
        )
        .with_pace(run.pace);
        report.latency = run.latency;
        report.outcomes = run.outcomes;
        report.hints = run.hints;
        report.undeclared = run.undeclared;
        report
    }

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
    pub fn define_reproduction_variables(
        &mut self,
        definitions: Vec<conformance_wire::curl::Definition>,
    ) {
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

    /// Counts the results again, after a baseline marked some of them.
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
    /// proved nothing a release gate needs). A failure a baseline marked
    /// known does not gate ([`crate::baseline::apply`]).
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
                None => out.push((reason, 1, r.unmet.map(|n| n.remedy()))),
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
        let mut order: Vec<&str> = conformance_suite::catalogue::SECTIONS
            .iter()
            .map(|(s, _)| *s)
            .collect();
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
    use conformance_suite::catalogue::Verdict;
    use conformance_suite::checks::catalogue;

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
                conformance_suite::catalogue::SECTIONS
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
