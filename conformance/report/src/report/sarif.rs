//! SARIF 2.1.0, the format GitHub code scanning reads: failures shown where
//! a reviewer already looks.
//!
//! One rule per check that did not pass (its id, title and quoted
//! requirement); one result per failure (`error`), SHOULD warning
//! (`warning`) and known failure (`note`, suppressed with the baseline's
//! reason). Each result stands at the line it breaks:
//!
//! - a check of the description: the line of `spec/interface-description.md`
//!   whose sentence it quotes (in the check's own section);
//! - a check of a choice (ours, or the profile's): its node of
//!   `spec/openapi.yaml`, found with `yaml-location`;
//! - a norm (an RFC): the heading of the check's section;
//! - a snapshot: where its check stands; a budget: its operation in
//!   `spec/openapi.yaml`; a stale baseline entry: its line in the baseline.
//!
//! The same report gives the same bytes (latency is left out).

use serde_json::{Value, json};

use crate::report::{CheckResult, Report, Status};
use conformance_wire::description;

use conformance_wire::description::{OPENAPI, OPENAPI_PATH};
const OPERATIONS_PATH: &str = "/component/{ref}/auth";

/// Where a result stands: (file, line), from its anchor (a snapshot's is
/// the check whose exchanges it holds).
pub fn location(r: &CheckResult, openapi: &yaml_location::Lines) -> (String, usize) {
    if let Some(at) = &r.stands_at {
        return at.clone();
    }
    let node = |path: &[&str]| (OPENAPI_PATH.to_owned(), openapi.line(path).unwrap_or(1));
    let Some(anchor) = &r.anchor else {
        let line = description::heading_line(&r.section)
            .or_else(|| description::heading_line("4"))
            .unwrap_or(1);
        return (description::PATH.to_owned(), line);
    };
    // What the profile declares of one operation (a latency budget) stands
    // at the operation.
    if let (true, Some(op)) = (anchor.declared_by_profile, anchor.subject.op) {
        let method = op.method().to_ascii_lowercase();
        return node(&["paths", OPERATIONS_PATH, &method]);
    }
    // A choice stands at the node its row of the table names.
    if let Some(key) = anchor.choice {
        return node(key.node());
    }
    let line = description::locate(anchor.quote, anchor.section)
        .map(|(start, _)| description::line_of(start))
        .or_else(|| description::heading_line(anchor.section))
        .unwrap_or(1);
    (description::PATH.to_owned(), line)
}

/// The SARIF log of `report`, pretty-printed.
pub fn render(report: &Report) -> String {
    let openapi = yaml_location::Lines::of(OPENAPI);
    let shown: Vec<&CheckResult> = report
        .run
        .results
        .iter()
        .filter(|r| matches!(r.status, Status::Failed | Status::Warned | Status::Known))
        .collect();
    let mut rules: Vec<Value> = Vec::new();
    let mut rule_ids: Vec<&str> = Vec::new();
    let mut results = Vec::new();
    for r in shown {
        let index = match rule_ids.iter().position(|id| *id == r.id) {
            Some(i) => i,
            None => {
                rule_ids.push(&r.id);
                rules.push(json!({
                    "id": r.id,
                    "name": r.id,
                    "shortDescription": {"text": r.title},
                    "fullDescription": {"text": r.requirement},
                    "help": {"text": format!(
                        "§{} {} \"{}\"\nSends: {}\nExpects: {}",
                        r.section, r.level.as_str(), r.requirement, r.sends, r.expects
                    )},
                    "defaultConfiguration": {"level": if r.level == conformance_suite::catalogue::Level::Must { "error" } else { "warning" }},
                    "properties": {"tags": ["conformance", r.level.as_str(), format!("§{}", r.section)]},
                }));
                rules.len() - 1
            }
        };
        let (uri, line) = location(r, &openapi);
        let level = match r.status {
            Status::Failed => "error",
            Status::Warned => "warning",
            _ => "note",
        };
        let actual = r.actual.as_deref().unwrap_or("");
        let message = match r.status {
            Status::Known => format!(
                "{} (known failure: {})\nActual: {actual}",
                r.title,
                r.note.as_deref().unwrap_or("")
            ),
            _ => format!(
                "{}\nExpected: {}\nActual: {actual}",
                r.title,
                r.expected.as_deref().unwrap_or(&r.expects)
            ),
        };
        let mut result = json!({
            "ruleId": r.id,
            "ruleIndex": index,
            "level": level,
            // What came is shown by code scanning: escaped as for a terminal.
            "message": {"text": super::escape::terminal(&message)},
            "locations": [{
                "physicalLocation": {
                    "artifactLocation": {"uri": uri},
                    "region": {"startLine": line}
                }
            }],
            // One alert per check across runs, whatever its message says.
            "partialFingerprints": {"conformanceCheck/v1": r.id},
        });
        // The failure's cause (`Causes`): what produced it, by its key.
        if let Some((_, c)) = report.cause_of(r) {
            result["properties"] =
                json!({"cause": c.key, "causeSays": super::escape::terminal(&c.says)});
        }
        if r.status == Status::Known {
            result["suppressions"] = json!([{
                "kind": "external",
                "justification": r.note.as_deref().unwrap_or(""),
            }]);
        }
        results.push(result);
    }
    let log = json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "conformance",
                "version": env!("CARGO_PKG_VERSION"),
                "informationUri": "https://github.com/OWNER/component-auth-conformance",
                "rules": rules,
            }},
            "automationDetails": {"id": "conformance/"},
            "properties": {
                "target": report.run.target,
                "summary": report.summary,
            },
            "results": results,
        }]
    });
    let mut text = serde_json::to_string_pretty(&log).unwrap_or_default();
    text.push('\n');
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use conformance_model::choices::ChoiceKey;
    use conformance_suite::catalogue::{Level, Verdict};
    use conformance_suite::checks::catalogue;
    use conformance_suite::results::RunResults;

    #[test]
    fn failures_stand_at_the_sentence_they_break() {
        let all = catalogue();
        let fail = Verdict::Fail {
            actual: "HTTP 200".into(),
        };
        let rule = all
            .iter()
            .find(|c| {
                c.quote()
                    .starts_with("When validation of the request fails")
            })
            .expect("the 417 rule");
        let choice = all
            .iter()
            .find(|c| c.run.chosen_by() == Some(ChoiceKey::UnknownRef))
            .expect("a choice");
        let report = Report::of(RunResults {
            target: "t".into(),
            results: vec![
                CheckResult::from_check(rule, Level::Must, &fail, false),
                CheckResult::from_check(choice, choice.level, &fail, false),
            ],
            ..RunResults::default()
        });
        let text = render(&report);
        assert_eq!(text, render(&report), "same report, same bytes");
        let log: Value = serde_json::from_str(&text).expect("JSON");
        assert_eq!(log["version"], "2.1.0");
        let results = log["runs"][0]["results"].as_array().expect("results");
        let loc = |i: usize| &results[i]["locations"][0]["physicalLocation"];
        assert_eq!(loc(0)["artifactLocation"]["uri"], description::PATH);
        let line = loc(0)["region"]["startLine"].as_u64().expect("line") as usize;
        assert!(
            description::TEXT
                .lines()
                .nth(line - 1)
                .is_some_and(|l| l.starts_with("1. When validation of the request fails"))
        );
        assert_eq!(results[0]["level"], "error");
        assert_eq!(results[1]["level"], "warning");
        assert_eq!(loc(1)["artifactLocation"]["uri"], OPENAPI_PATH);
        let line = loc(1)["region"]["startLine"].as_u64().expect("line") as usize;
        assert_eq!(
            OPENAPI.lines().nth(line - 1).map(str::trim),
            Some("\"404\":")
        );
        assert_eq!(results[0]["ruleId"], rule.id);
        assert_eq!(log["runs"][0]["tool"]["driver"]["rules"][0]["id"], rule.id);
    }

    /// A snapshot stands where the check its group is named after does; a
    /// budget the profile declares, at its operation; a result with no
    /// anchor, at its section's heading (else §4's).
    #[test]
    fn each_result_stands_where_its_anchor_says() {
        let all = catalogue();
        let openapi = yaml_location::Lines::of(OPENAPI);
        let rule = all
            .iter()
            .find(|c| {
                c.quote()
                    .starts_with("When validation of the request fails")
            })
            .expect("the 417 rule");
        let fail = Verdict::Fail {
            actual: "HTTP 200".into(),
        };
        let check = CheckResult::from_check(rule, Level::Must, &fail, false);
        let snapshot = CheckResult::from_snapshot(
            &conformance_suite::snapshot::SnapshotResult {
                group: rule.id.to_owned(),
                level: Level::Must,
                file: Default::default(),
                outcome: conformance_suite::snapshot::SnapshotOutcome::Failed("changed".into()),
            },
            check.anchor,
            false,
        );
        assert_eq!(location(&snapshot, &openapi), location(&check, &openapi));
        let budget = all
            .iter()
            .find(|c| c.run.declared_by_profile() && c.subject.op.is_some())
            .expect("a budget");
        let op = budget.subject.op.expect("an operation");
        let (uri, line) = location(
            &CheckResult::from_check(budget, Level::Must, &fail, false),
            &openapi,
        );
        assert_eq!(uri, OPENAPI_PATH);
        let method = op.method().to_ascii_lowercase();
        assert_eq!(
            openapi.line(vec!["paths", OPERATIONS_PATH, method.as_str()]),
            Some(line)
        );
        let mut unanchored = check.clone();
        unanchored.anchor = None;
        let (uri, line) = location(&unanchored, &openapi);
        assert_eq!(uri, description::PATH);
        assert_eq!(description::heading_line(&check.section), Some(line));
    }
}
