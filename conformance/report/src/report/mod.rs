//! A run's report, assembled from the suite's results ([`Report::of`]),
//! and its renderings: human text grouped by section ([`human`]), JUnit XML
//! ([`junit`]), JSON (serde), SARIF for code scanning ([`sarif`]) and one
//! self-contained HTML page ([`html`]). The counts are read from the
//! statuses the suite gave (and a baseline marked known); whether the run
//! passes is the suite's gate ([`RunResults::exit_code`]), which a report
//! shows and never decides.

use conformance_suite::generate::Generation;

use serde::Serialize;

use conformance_suite::catalogue::Level;
use conformance_suite::cause::{Cause, Causes};

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
    /// The server's limits or slowness kept these from being judged.
    #[serde(skip_serializing_if = "is_zero")]
    pub not_judged: usize,
}

/// Counts that are zero stay out of the JSON, as they were before the
/// count existed.
fn is_zero(n: &usize) -> bool {
    *n == 0
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
            Status::NotJudged => self.not_judged += 1,
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
        if self.not_judged > 0 {
            line.push_str(&format!(", {} not judged", self.not_judged));
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

/// `3 checks`, `1 snapshot`: the count and its noun.
pub fn plural_count(n: usize, noun: &str) -> String {
    format!("{n} {}", plural(n, noun))
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
    /// Checks the server's limits or slowness kept from being judged.
    #[serde(skip_serializing_if = "is_zero")]
    pub not_judged: usize,
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
                Status::NotJudged => summary.not_judged += 1,
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

/// A whole run, as shown: the suite's results (which it holds, not
/// copies field by field) and what is counted and added for showing them.
/// Its JSON is [`Report::to_json`]'s.
#[derive(Clone, Debug)]
pub struct Report {
    /// The run as the suite judged it and a baseline marked it: what the
    /// gate decided from ([`RunResults::exit_code`]).
    pub run: RunResults,
    /// The counts of `run.results`.
    pub summary: Summary,
    /// What produced the failures: each failure's cause, and each cause's
    /// failures ([`Causes::find`]).
    pub causes: Causes,
    /// The variables this report's reproductions read that the profile
    /// does not take from the environment: each to `export` before pasting
    /// one, with where its value is (never the value).
    pub reproduction_variables: Vec<conformance_wire::curl::Definition>,
}

/// The JSON of a report, its fields in the order reports have always had.
#[derive(Serialize)]
struct Json<'a> {
    /// The target, without secrets.
    target: &'a str,
    strict: bool,
    /// The seed and number of generated cases: the same seed against the
    /// same server sends the same requests and gives the same verdicts.
    generation: &'a Generation,
    /// Time-outs, concurrency, rate, deadline and retries of the run.
    pace: &'a Pace,
    summary: &'a Summary,
    duration_ms: u128,
    /// Median, p95 and max of each operation over every request of the run
    /// (differs run to run; never in a snapshot).
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    latency: &'a [conformance_wire::latency::OperationLatency],
    /// Each documented outcome of each operation, and how often the run
    /// saw it ([`conformance_wire::outcomes`]).
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    outcomes: &'a [conformance_wire::outcomes::OutcomeSeen],
    /// What produced the failures, each cause once: what it says, the
    /// result that shows it first and the others it explains.
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    causes: &'a [Cause],
    /// Each result, a failure with the `key` of its cause.
    results: Vec<JsonResult<'a>>,
    /// What the user may do about the failures, where the run can tell
    /// (a choice the profile left undeclared that they may come from).
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    hints: &'a [String],
    /// The choices the profile does not declare that this run saw the
    /// server make otherwise than ours, as lines of a `choices:` block to
    /// paste (`key: value`, a comment where the run cannot tell the value).
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    undeclared: &'a [String],
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    reproduction_variables: &'a [conformance_wire::curl::Definition],
}

/// A result in the JSON: its fields, and its cause's key.
#[derive(Serialize)]
struct JsonResult<'a> {
    #[serde(flatten)]
    result: &'a CheckResult,
    #[serde(skip_serializing_if = "Option::is_none")]
    cause: Option<&'a str>,
}

impl Report {
    /// The report of a run: its results as the suite judged them (and a
    /// baseline marked them), counted.
    pub fn of(run: RunResults) -> Self {
        Report {
            summary: Summary::of(&run.results),
            causes: Causes::find(&run.results, &run.changed_choices),
            run,
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
            .run
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
        for r in &self.run.results {
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
        let run = &self.run;
        let json = Json {
            target: &run.target,
            strict: run.strict,
            generation: &run.generation,
            pace: &run.pace,
            summary: &self.summary,
            duration_ms: run.took.as_millis(),
            latency: &run.latency,
            outcomes: &run.outcomes,
            causes: &self.causes.list,
            results: run
                .results
                .iter()
                .enumerate()
                .map(|(i, result)| JsonResult {
                    result,
                    cause: self.causes.of(i).map(|(_, c)| c.key.as_str()),
                })
                .collect(),
            hints: &run.hints,
            undeclared: &run.undeclared,
            reproduction_variables: &self.reproduction_variables,
        };
        serde_json::to_string_pretty(&json).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"))
    }

    /// The results grouped by section, in the description's order (then any
    /// section it does not list, in the order first met), each group in
    /// catalogue order: how every rendering lays a report out.
    pub fn by_section(&self) -> Vec<(&str, Vec<&CheckResult>)> {
        let mut order: Vec<&str> = conformance_suite::catalogue::SECTIONS
            .iter()
            .map(|(s, _)| *s)
            .collect();
        for r in &self.run.results {
            if !order.contains(&r.section.as_str()) {
                order.push(&r.section);
            }
        }
        order
            .into_iter()
            .map(|section| {
                let results = self
                    .run
                    .results
                    .iter()
                    .filter(|r| r.section == section)
                    .collect();
                (section, results)
            })
            .filter(|(_, results): &(&str, Vec<&CheckResult>)| !results.is_empty())
            .collect()
    }

    /// The cause of `r` (a result of this report), and its number.
    pub fn cause_of(&self, r: &CheckResult) -> Option<(usize, &Cause)> {
        let i = self.run.results.iter().position(|x| std::ptr::eq(x, r))?;
        self.causes.of(i)
    }

    pub fn failed(&self) -> impl Iterator<Item = &CheckResult> {
        self.run
            .results
            .iter()
            .filter(|r| r.status == Status::Failed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use conformance_suite::baseline::{Baseline, Date, apply};
    use conformance_suite::catalogue::Verdict;
    use conformance_suite::checks::catalogue;

    #[test]
    fn a_should_failure_is_shown_warned() {
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
        let r = Report::of(RunResults {
            target: "t".into(),
            results: vec![
                CheckResult::from_check(should, should.level, &fail, false),
                CheckResult::from_check(must, must.level, &Verdict::Pass, false),
            ],
            ..RunResults::default()
        });
        let last = "2 checks: 1 passed, 0 failed, 0 skipped, 1 warned (SHOULD)";
        assert_eq!(r.last_line(), last);
        let text = human::render(&r, human::Style { color: false });
        assert_eq!(text.lines().last(), Some(last));
        assert!(text.contains("Expected") && text.contains("Actual      HTTP 200"));
    }

    /// A failure the baseline lists is counted known, once the suite has
    /// marked it: the report counts what it is given.
    #[test]
    fn a_known_failure_is_counted_known() {
        let must = catalogue()
            .into_iter()
            .find(|c| c.level == Level::Must)
            .expect("a MUST check");
        let fail = Verdict::Fail {
            actual: "HTTP 200".into(),
        };
        let mut run = RunResults {
            target: "t".into(),
            results: vec![CheckResult::from_check(&must, must.level, &fail, false)],
            ..RunResults::default()
        };
        let text = format!(
            "- check: {}\n  reason: known\n  expires: 2030-01-01\n",
            must.id
        );
        let baseline = Baseline::from_yaml_str(&text, "b.yaml").expect("valid");
        let today = Date::parse("2026-06-01").expect("a date");
        apply(&mut run, &baseline, today);
        let r = Report::of(run);
        assert_eq!((r.summary.known, r.summary.failed), (1, 0));
        assert!(r.last_line().ends_with("1 known (baseline)"));
    }

    /// The JSON keeps its fields and their order; the anchor is not in it.
    #[test]
    fn the_json_keeps_its_fields() {
        let must = catalogue()
            .into_iter()
            .find(|c| c.level == Level::Must)
            .expect("a MUST check");
        let r = Report::of(RunResults {
            target: "t".into(),
            results: vec![CheckResult::from_check(
                &must,
                must.level,
                &Verdict::Pass,
                false,
            )],
            ..RunResults::default()
        });
        let json: serde_json::Value = serde_json::from_str(&r.to_json()).expect("JSON");
        let keys: Vec<&str> = json
            .as_object()
            .expect("an object")
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(
            keys,
            [
                "target",
                "strict",
                "generation",
                "pace",
                "summary",
                "duration_ms",
                "results"
            ]
        );
        let result = json["results"][0].as_object().expect("a result");
        assert!(!result.contains_key("anchor"), "{result:?}");
        assert_eq!(result["section"], must.section);
    }
}
