//! The reports of `proxy` and `audit` in every format a run writes: the
//! tally of the traffic made a run's results, one per rule ([`results`]),
//! so JUnit, SARIF and HTML come from the run's own renderers and read as
//! a run's do. A rule some exchange broke failed, with each example's
//! request, what was wrong and its `curl` reproduction; a rule exchanges
//! could break and none did passed; a rule no exchange put to the test is
//! not applicable. Each stands at its quoted sentence's line of the
//! description (SARIF). Files are written whole, through a temporary file
//! renamed over the old one, so a reader never sees half a report.

use std::path::{Path, PathBuf};
use std::time::Duration;

use conformance_report::report::{CheckResult, Kind, Report, Status, html, junit, sarif};
use conformance_suite::catalogue::{Level, Subject, section_title};
use conformance_suite::generate::Generation;
use conformance_suite::results::{Anchor, RunResults};
use conformance_wire::description;
use traffic_rules::{RULES, Rule, Side, Tally};

/// Where each report goes (none: not written).
#[derive(Clone, Debug, Default)]
pub struct Outputs {
    pub json: Option<PathBuf>,
    pub junit: Option<PathBuf>,
    pub sarif: Option<PathBuf>,
    pub html: Option<PathBuf>,
}

/// The line of the description where `rule`'s sentence stands (where SARIF
/// places its results, from their anchor).
pub fn rule_line(rule: &Rule) -> usize {
    description::locate(rule.quote, rule.section)
        .map(|(start, _)| description::line_of(start))
        .or_else(|| description::heading_line(rule.section))
        .unwrap_or(1)
}

/// One result per rule, in the table's order.
pub fn results(tally: &Tally) -> Vec<CheckResult> {
    let total = tally.exchanges();
    let report = tally.report(None);
    RULES
        .iter()
        .zip(report.rules)
        .map(|(rule, seen)| {
            let side = match rule.side {
                Side::Client => "client's request",
                Side::Server => "server's answer",
            };
            let exercised = seen.exercised.unwrap_or(total);
            let (status, actual, note) = if seen.violations > 0 {
                let shown = seen.examples.len() as u64;
                let mut actual = format!(
                    "{} of {exercised} exchange{} that could break it broke it{}",
                    seen.violations,
                    if exercised == 1 { "" } else { "s" },
                    if shown < seen.violations {
                        format!("; the first {shown}:")
                    } else {
                        ":".to_owned()
                    }
                );
                for (i, e) in seen.examples.iter().enumerate() {
                    actual.push_str(&format!("\n  {e}"));
                    if let Some(curl) = seen.reproductions.get(i) {
                        actual.push_str(&format!("\n    reproduce: {curl}"));
                    }
                }
                (Status::Failed, Some(actual), None)
            } else if exercised > 0 {
                (Status::Passed, None, None)
            } else {
                let why = if total == 0 {
                    "no exchange was seen".to_owned()
                } else {
                    format!(
                        "none of the {total} exchange{} could break it",
                        if total == 1 { "" } else { "s" }
                    )
                };
                (Status::NotApplicable, None, Some(why))
            };
            CheckResult {
                kind: Kind::Check,
                id: rule.id.to_owned(),
                title: rule.title.to_owned(),
                section: rule.section.to_owned(),
                section_title: section_title(rule.section).to_owned(),
                level: Level::Must,
                requirement: rule.quote.to_owned(),
                sends: format!(
                    "nothing: it judges the {side} of each observed exchange ({exercised} of {total} could break it)"
                ),
                expects: rule.title.to_owned(),
                status,
                expected: actual.as_ref().map(|_| rule.title.to_owned()),
                actual,
                note,
                latency: None,
                stands_at: None,
                unmet: None,
                // Where a run's check stands: the quoted sentence's line
                // in the rule's section.
                anchor: Some(Anchor {
                    section: rule.section,
                    quote: rule.quote,
                    choice: None,
                    subject: Subject::NONE,
                    declared_by_profile: false,
                }),
            }
        })
        .collect()
}

/// The traffic's results, as a run's: `target` says what was judged.
pub fn run_results(tally: &Tally, target: &str) -> RunResults {
    RunResults {
        target: target.to_owned(),
        strict: false,
        // No case is generated: the traffic is the client's.
        generation: Generation { seed: 0, cases: 0 },
        took: Duration::ZERO,
        results: results(tally),
        ..RunResults::default()
    }
}

/// The traffic's report, as a run's.
pub fn report(tally: &Tally, target: &str) -> Report {
    Report::of(run_results(tally, target))
}

/// The run's gate over the traffic's results: 0 when no MUST rule was
/// broken, 1 when one was or when no exchange was judged at all (nothing
/// proven: a run that judged no MUST check is never green either).
pub fn exit_code(tally: &Tally, target: &str) -> u8 {
    u8::try_from(run_results(tally, target).exit_code()).unwrap_or(1)
}

/// The HTML page: a run's, with the lines about generated cases and pace
/// (which traffic has none of) saying what was judged instead.
pub fn html_page(report: &Report, exchanges: u64) -> String {
    let page = html::render(report);
    let run_lines = format!(
        "<p class=\"meta\">Generated cases: --seed {} --cases {}</p>\n<p class=\"meta\">{}</p>\n",
        report.run.generation.seed,
        report.run.generation.cases,
        conformance_report::report::escape::html(&report.run.pace.line()),
    );
    let traffic = format!(
        "<p class=\"meta\">Observed traffic: {exchanges} exchange{} judged on both sides by {} rules of the description, each quoted; values that may be secret are shell variables in the reproductions.</p>\n",
        if exchanges == 1 { "" } else { "s" },
        RULES.len()
    );
    page.replacen(&run_lines, &traffic, 1)
}

/// The SARIF log: a run's, under a category of its own, so that code
/// scanning keeps the traffic's alerts beside a run's rather than replacing
/// them (an upload replaces the alerts of its category).
pub fn sarif_log(report: &Report) -> String {
    let text = sarif::render(report);
    let Ok(mut log) = serde_json::from_str::<serde_json::Value>(&text) else {
        return text;
    };
    log["runs"][0]["automationDetails"]["id"] = serde_json::json!(SARIF_CATEGORY);
    let mut text = serde_json::to_string_pretty(&log).unwrap_or(text);
    text.push('\n');
    text
}

/// The code-scanning category of the traffic's SARIF (a run's is
/// `conformance/`).
pub const SARIF_CATEGORY: &str = "conformance-traffic/";

impl Outputs {
    /// Checks every report's path before the traffic is judged (each
    /// writable, no two the same file): what [`Outputs::write`] would
    /// find wrong, said at once.
    pub fn check(&self) -> Result<(), String> {
        file_writer::check_all(self.named()).map_err(|e| e.to_string())
    }

    /// Each report's path with what it holds.
    fn named(&self) -> [(Option<&Path>, &'static str); 4] {
        [
            (self.json.as_deref(), "the JSON report"),
            (self.junit.as_deref(), "the JUnit report"),
            (self.sarif.as_deref(), "the SARIF report"),
            (self.html.as_deref(), "the HTML report"),
        ]
    }

    /// Writes every report asked for, each whole or not at all.
    pub fn write(&self, tally: &Tally, target: &str) -> Result<(), String> {
        let report = report(tally, target);
        if let Some(path) = &self.json {
            let text = serde_json::to_string_pretty(&tally.report(None))
                .map_err(|e| format!("cannot write the JSON report: {e}"))?;
            replace(path, "the JSON report", &(text + "\n"))?;
        }
        if let Some(path) = &self.junit {
            let xml = junit::render(&report)
                .map_err(|e| format!("cannot render the JUnit report: {e}"))?;
            replace(path, "the JUnit report", &xml)?;
        }
        if let Some(path) = &self.sarif {
            replace(path, "the SARIF report", &sarif_log(&report))?;
        }
        if let Some(path) = &self.html {
            replace(
                path,
                "the HTML report",
                &html_page(&report, tally.exchanges()),
            )?;
        }
        Ok(())
    }

    pub fn any(&self) -> bool {
        self.json.is_some() || self.junit.is_some() || self.sarif.is_some() || self.html.is_some()
    }
}

/// `text` written to `path` by the workspace's one writer: through an
/// exclusive temporary file beside it, renamed over it, so a reader (a CI
/// step, a browser reloading) sees the old report or the new one, never a
/// part; a device or a FIFO is written in place.
fn replace(path: &Path, what: &str, text: &str) -> Result<(), String> {
    file_writer::write(path, what, text).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each rule's sentence is found in its section, so SARIF points at it.
    #[test]
    fn every_rule_stands_at_its_sentence() {
        for rule in RULES {
            let line = rule_line(rule);
            let text = description::TEXT.lines().nth(line - 1).unwrap_or_default();
            let first = rule.quote.lines().next().unwrap_or_default();
            assert!(text.contains(first), "{}: line {line} is {text}", rule.id);
        }
    }

    /// A report replaces the last whole, leaving no temporary file; one
    /// that cannot be written says where.
    #[test]
    fn reports_are_replaced_whole() {
        let dir = std::env::temp_dir().join(format!("traffic-report-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("dir");
        let outputs = Outputs {
            junit: Some(dir.join("r.xml")),
            sarif: Some(dir.join("r.sarif")),
            ..Outputs::default()
        };
        let tally = Tally::default();
        outputs.write(&tally, "t").expect("written");
        outputs.write(&tally, "t").expect("written again");
        let mut names: Vec<String> = std::fs::read_dir(&dir)
            .expect("dir")
            .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        assert_eq!(names, ["r.sarif", "r.xml"]);
        let nowhere = Outputs {
            html: Some(dir.join("missing").join("r.html")),
            ..Outputs::default()
        };
        let e = nowhere.write(&tally, "t").expect_err("no such folder");
        assert!(e.contains("missing/r.html") && e.contains("HTML"), "{e}");
        // No exchange: every rule not applicable, and the gate fails.
        assert!(
            results(&tally)
                .iter()
                .all(|r| r.status == Status::NotApplicable)
        );
        assert_eq!(exit_code(&tally, "t"), 1);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
