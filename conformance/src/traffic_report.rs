//! The reports of `proxy` and `audit` in every format a run writes: the
//! tally of the traffic made a run's results, one per rule ([`results`]),
//! so JUnit, SARIF and HTML come from the run's own renderers and read as
//! a run's do. A rule some exchange broke failed, with each example's
//! request, what was wrong and its `curl` reproduction; a rule exchanges
//! could break and none did passed; a rule no exchange put to the test is
//! not applicable. Each stands at its quoted sentence's line of the
//! description (SARIF). The files are written by
//! [`crate::formats::write_traffic`], each format's row rendering it.

use std::time::Duration;

use conformance_report::report::{CheckResult, Kind, Report, Status, html, sarif};
use conformance_suite::catalogue::{Level, Subject, section_title};
use conformance_suite::generate::Generation;
use conformance_suite::results::{Anchor, RunResults};
use conformance_wire::description;
use traffic_rules::{RULES, Rule, Side, Tally};

/// The line of the description where `rule`'s sentence stands (where SARIF
/// places its results, from their anchor).
pub fn rule_line(rule: &Rule) -> usize {
    description::locate(rule.quote(), rule.section)
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
                requirement: rule.quote().to_owned(),
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
                    quote: rule.quote(),
                    choice: None,
                    requirement: Some(rule.requirement),
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Each rule's sentence is found in its section, so SARIF points at it.
    #[test]
    fn every_rule_stands_at_its_sentence() {
        for rule in RULES {
            let line = rule_line(rule);
            let text = description::TEXT.lines().nth(line - 1).unwrap_or_default();
            let first = rule.quote().lines().next().unwrap_or_default();
            assert!(text.contains(first), "{}: line {line} is {text}", rule.id);
        }
    }
}
