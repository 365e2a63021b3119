//! A failure points at its cause: against the reference server with one
//! fault, or one choice made otherwise than its profile records, the
//! report says the one cause once, with the checks it failed and the
//! snapshots it changed under it; the verdicts and the exit code are the
//! same as without the grouping, and the JSON keeps every failure, each
//! naming its cause.

use std::path::PathBuf;

use conformance::run;
use conformance_model::profile::Profile;
use conformance_report::report::{Report, Status, human};
use conformance_suite::runner::RunOptions;
use conformance_suite::snapshot::{SnapshotOptions, SnapshotUpdate};
use reference_server::{Fault, Server, ServerOptions, Variant};

const PROFILE: &str = include_str!("../../profiles/reference.yaml");

async fn run_against(fault: Option<Fault>, variants: Vec<Variant>) -> Report {
    let server = Server::start(ServerOptions {
        fault,
        variants,
        ..ServerOptions::default()
    })
    .await
    .expect("the reference server starts");
    let mut profile = Profile::from_yaml_str(PROFILE, "reference.yaml", &|_| None)
        .expect("the shipped profile parses");
    profile.base_url = server.base_url();
    let options = RunOptions {
        snapshots: Some(SnapshotOptions {
            dir: PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/profiles/snapshots")),
            // Never write in tests: a changed snapshot fails.
            update: SnapshotUpdate::Ci,
        }),
        ..RunOptions::default()
    };
    let report = run(profile, &options).await.expect("the run completes");
    server.shutdown().await;
    report
}

fn failing(report: &Report) -> Vec<&str> {
    report
        .run
        .results
        .iter()
        .filter(|r| matches!(r.status, Status::Failed | Status::Warned))
        .map(|r| r.id.as_str())
        .collect()
}

/// Every failing result, and only those, has a cause in the JSON, and the
/// causes list each failure once.
fn every_failure_named_once(report: &Report) {
    let json: serde_json::Value = serde_json::from_str(&report.to_json()).expect("JSON");
    for r in json["results"].as_array().expect("results") {
        let fails = matches!(r["status"].as_str(), Some("failed" | "warned"));
        assert_eq!(r.get("cause").is_some(), fails, "{r}");
    }
    let mut listed: Vec<&str> = report
        .causes
        .list
        .iter()
        .flat_map(|c| {
            std::iter::once(c.first.as_str())
                .chain(c.checks.iter().map(String::as_str))
                .chain(c.snapshots.iter().map(String::as_str))
        })
        .collect();
    let mut failing = failing(report);
    listed.sort_unstable();
    failing.sort_unstable();
    assert_eq!(listed, failing);
}

#[tokio::test(flavor = "multi_thread")]
async fn one_broken_rule_reads_as_one_cause() {
    let report = run_against(Some(Fault::ErrorStatusTrue), Vec::new()).await;
    assert_eq!(report.run.exit_code(), 1);
    every_failure_named_once(&report);
    let keys: Vec<&str> = report.causes.list.iter().map(|c| c.key.as_str()).collect();
    assert_eq!(keys, ["7.1/status"], "{:#?}", report.causes);
    let cause = &report.causes.list[0];
    assert_eq!(cause.first, "errors/400/status");
    assert!(
        cause.checks.len() > 5 && cause.snapshots.len() > 5,
        "{cause:#?}"
    );
    let text = human::render(&report, human::Style { color: false });
    let top = text.split("\n§1 ").next().expect("the causes lead");
    assert!(
        top.contains(
            "1. FAIL  §7.1 \"status | boolean | `false` on an error.\": `status` is true, not false"
        ),
        "{top}"
    );
    assert!(
        top.contains(&format!(
            "also changed: {} snapshots",
            cause.snapshots.len()
        )),
        "{top}"
    );
    // No folded snapshot advises `--accept`: the server is to be fixed.
    assert!(!text.contains("--accept"), "{text}");
    assert_eq!(
        text.matches("changed by cause 1").count(),
        cause.snapshots.len() + usize::from(cause.first.starts_with("snapshots/"))
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn one_changed_choice_is_said_once() {
    let report = run_against(None, vec![Variant::Authorize201]).await;
    assert_eq!(report.run.exit_code(), 1);
    every_failure_named_once(&report);
    assert_eq!(report.causes.list.len(), 1, "{:#?}", report.causes);
    let cause = &report.causes.list[0];
    assert_eq!(cause.key, "choices.authorize_success");
    assert_eq!(
        cause.says,
        "the server now answers 201 where the profile records 200: update `choices.authorize_success`"
    );
    assert_eq!(cause.first, "choices/authorize-success");
    assert!(cause.snapshots.len() >= 10, "{cause:#?}");
    let text = human::render(&report, human::Style { color: false });
    assert_eq!(text.matches(&cause.says).count(), 1, "{text}");
    // `--accept` is said once, in the cause's remedy.
    assert_eq!(text.matches("--accept").count(), 1, "{text}");
    let json: serde_json::Value = serde_json::from_str(&report.to_json()).expect("JSON");
    assert_eq!(json["causes"][0]["key"], "choices.authorize_success");
    let sarif: serde_json::Value =
        serde_json::from_str(&conformance_report::report::sarif::render(&report)).expect("SARIF");
    let results = sarif["runs"][0]["results"].as_array().expect("results");
    assert_eq!(results.len(), failing(&report).len());
    assert!(
        results
            .iter()
            .all(|r| r["properties"]["cause"] == "choices.authorize_success")
    );
}
