//! JUnit XML: one test suite per section, one test case per check. A SHOULD
//! failure that does not gate is a passing case with the failure in its
//! system-out, so CI dashboards show it without turning red.

use quick_junit::{NonSuccessKind, TestCase, TestCaseStatus, TestSuite};

use crate::report::{Report, Status, is_snapshot};
use conformance_suite::catalogue::SECTIONS;

pub fn render(report: &Report) -> Result<String, quick_junit::SerializeError> {
    let mut junit = quick_junit::Report::new("conformance");
    let mut order: Vec<&str> = SECTIONS.iter().map(|(s, _)| *s).collect();
    for r in &report.run.results {
        if !order.contains(&r.section.as_str()) {
            order.push(&r.section);
        }
    }
    for section in order {
        let results: Vec<_> = report
            .run
            .results
            .iter()
            .filter(|r| r.section == section)
            .collect();
        let Some(first) = results.first() else {
            continue;
        };
        let mut suite = TestSuite::new(if is_snapshot(first) {
            section.to_owned()
        } else {
            format!("§{section} {}", first.section_title)
        });
        let generation = report.run.generation;
        // A report of observed traffic (the proxy's, `audit`'s) sent
        // nothing: it has no pace and no generated cases to state.
        let sent = report.run.pace.timeout_ms > 0;
        for (name, value) in [
            ("timeout_ms", Some(report.run.pace.timeout_ms.to_string())),
            (
                "deadline_ms",
                report.run.pace.deadline_ms.map(|d| d.to_string()),
            ),
            ("concurrency", Some(report.run.pace.concurrency.to_string())),
            ("rate", report.run.pace.rate.map(|r| r.to_string())),
            ("retried", Some(report.run.pace.retried.to_string())),
        ] {
            if let (Some(value), true) = (value, sent) {
                suite.add_property(quick_junit::Property::new(name, value));
            }
        }
        if sent {
            suite.add_property(quick_junit::Property::new(
                "seed",
                generation.seed.to_string(),
            ));
            suite.add_property(quick_junit::Property::new(
                "cases",
                generation.cases.to_string(),
            ));
        }
        // Known failures are skipped cases; this counts them apart.
        let known = results.iter().filter(|r| r.status == Status::Known).count();
        if known > 0 {
            suite.add_property(quick_junit::Property::new("known", known.to_string()));
        }
        for r in results {
            let mut details = format!(
                "Requirement: §{} {} \"{}\"\nSends: {}\nExpected: {}\nActual: {}",
                r.section,
                r.level.as_str(),
                r.requirement,
                r.sends,
                r.expected.as_deref().unwrap_or(&r.expects),
                r.actual.as_deref().unwrap_or("")
            );
            // The failure's cause, first: what the run says produced it.
            if let Some((_, c)) = report.cause_of(r) {
                details = format!(
                    "Cause: {} (first: {}; {})\n{details}",
                    c.says, c.first, c.key
                );
            }
            let status = match r.status {
                Status::Passed => TestCaseStatus::success(),
                Status::Warned => TestCaseStatus::success(),
                Status::Skipped => {
                    let mut s = TestCaseStatus::skipped();
                    if let Some(n) = &r.note {
                        s.set_message(n.as_str());
                    }
                    s
                }
                Status::NotApplicable => {
                    let mut s = TestCaseStatus::skipped();
                    s.set_message(format!(
                        "not applicable: {}",
                        r.note.as_deref().unwrap_or_default()
                    ));
                    s
                }
                Status::Known => {
                    let mut s = TestCaseStatus::skipped();
                    s.set_message(format!(
                        "known failure (baseline): {}",
                        r.note.as_deref().unwrap_or_default()
                    ));
                    s.set_description(details.as_str());
                    s
                }
                // Not a failure of the rule: JUnit's "error" (the test
                // could not run to its verdict).
                Status::NotJudged => {
                    let mut s = TestCaseStatus::non_success(NonSuccessKind::Error);
                    s.set_message(r.actual.as_deref().unwrap_or("not judged"));
                    s.set_type("not judged");
                    s.set_description(details.as_str());
                    s
                }
                Status::Failed => {
                    let mut s = TestCaseStatus::non_success(NonSuccessKind::Failure);
                    s.set_message(r.title.as_str());
                    s.set_type(r.level.as_str());
                    s.set_description(details.as_str());
                    s
                }
            };
            let mut case = TestCase::new(r.id.as_str(), status);
            case.set_classname(format!("conformance.{}", section));
            if r.status == Status::Warned {
                case.set_system_out(format!(
                    "SHOULD check failed (not gating without --strict)\n{details}"
                ));
            }
            suite.add_test_case(case);
        }
        junit.add_test_suite(suite);
    }
    // Every character XML 1.0 forbids (U+FFFE, U+FFFF, C0 controls) or a
    // reader cannot see, from whatever field it came, written `\u{…}`: the
    // markup itself is ASCII, so this touches only text.
    junit.to_string().map(|xml| super::escape::xml(&xml))
}
