//! A gate that cannot go green by skipping: for profiles that lack parts,
//! the checks a run skips are exactly those the plan (`check-profile`)
//! predicts from the profile alone, each with the reason of its need; and
//! `--strict` fails a run that skipped a MUST check.

use std::collections::BTreeSet;

use conformance::run;
use conformance_model::profile::Profile;
use conformance_report::report::Status;
use conformance_suite::catalogue::Level;
use conformance_suite::runner::{Plan, RunOptions};
use reference_server::{Server, ServerOptions};

/// Profiles of the reference fixture with parts left out.
const PROFILES: &[(&str, &str)] = &[
    (
        "one component, no auth, no authorize",
        "\
base_url: http://127.0.0.1:1
client_id: conformance-client
client_secret: demo-secret-7Qx9
components:
  - name: Catalog
    tag: catalog
    uuid: 3e1f6b2a-7c4d-4e8f-a1b2-c3d4e5f60718
",
    ),
    (
        "one component that requires auth, no invalid body",
        "\
base_url: http://127.0.0.1:1
client_id: conformance-client
client_secret: demo-secret-7Qx9
components:
  - name: Users
    tag: users
    uuid: 0b6c1c1e-1d3a-4c55-9a8e-6f1f2f0f5c11
    requires_auth: true
    auth_token: users-token-ada-0001
    authorize:
      model_uuid: 5d2e8a34-8a47-4f0e-b3a6-2a9d2f9c7e01
      valid_body: { email: ada@example.com, password: correct-horse }
",
    ),
    (
        "the shipped profile",
        include_str!("../../profiles/reference.yaml"),
    ),
];

#[tokio::test(flavor = "multi_thread")]
async fn skips_are_predicted_from_the_profile_and_gate_under_strict() {
    let server = Server::start(ServerOptions::default())
        .await
        .expect("server");
    for (name, text) in PROFILES {
        let mut profile = Profile::from_yaml_str(text, name, &|_| None).expect("profile");
        profile.base_url = server.base_url();
        let options = RunOptions::default();
        let plan = Plan::new(&profile, &options);
        let predicted: BTreeSet<(String, String)> = plan
            .skipped
            .iter()
            .map(|(c, need)| (c.id.to_owned(), need.reason().to_owned()))
            .collect();
        let report = run(profile.clone(), &options).await.expect("run");
        let skipped: BTreeSet<(String, String)> = report
            .run
            .results
            .iter()
            .filter(|r| r.status == Status::Skipped)
            .map(|r| (r.id.clone(), r.note.clone().unwrap_or_default()))
            .collect();
        assert_eq!(
            skipped, predicted,
            "{name}: the run skipped what the plan did not predict (or the reverse)"
        );
        assert_eq!(
            report.run.exit_code(),
            0,
            "{name}: the correct server passes"
        );
        let must_skipped = plan
            .skipped
            .iter()
            .filter(|(c, _)| c.level == Level::Must)
            .count();
        let strict = run(
            profile,
            &RunOptions {
                strict: true,
                ..RunOptions::default()
            },
        )
        .await
        .expect("run");
        assert_eq!(
            strict.run.exit_code(),
            i32::from(must_skipped > 0),
            "{name}: --strict fails exactly when a MUST check was skipped ({must_skipped})"
        );
        if *name != "the shipped profile" {
            assert!(
                must_skipped > 0,
                "{name}: a partial profile skips MUST checks"
            );
        }
    }
    server.shutdown().await;
}

/// Through the binary: `--accept` is a mode of the process (insta reads
/// it once), which the CLI sets before any thread starts.
#[tokio::test(flavor = "multi_thread")]
async fn accept_records_nothing_a_failed_check_made() {
    let server = Server::start(ServerOptions {
        fault: Some("error-body-not-json".parse().expect("a fault")),
        ..ServerOptions::default()
    })
    .await
    .expect("server");
    let dir = std::env::temp_dir().join(format!("conformance-accept-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch folder");
    let profile = PROFILES[2]
        .1
        .lines()
        .map(|l| {
            if l.starts_with("base_url:") {
                format!("base_url: {}\n", server.base_url())
            } else {
                format!("{l}\n")
            }
        })
        .collect::<String>();
    std::fs::write(dir.join("profile.yaml"), profile).expect("profile");
    let json = dir.join("report.json");
    let snapshots = dir.join("snapshots");
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_conformance"));
    cmd.arg("--profile")
        .arg(dir.join("profile.yaml"))
        .arg("--accept")
        .arg("--json")
        .arg(&json)
        .env_remove("CI");
    let out = tokio::task::spawn_blocking(move || cmd.output())
        .await
        .expect("join")
        .expect("the binary runs");
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).expect("report")).expect("json");
    let results = report["results"].as_array().expect("results");
    // Only a MUST failure makes exchanges no reference: a SHOULD check
    // that warned records what the server chose, to be kept from drifting.
    let failed: BTreeSet<&str> = results
        .iter()
        .filter(|r| r["status"] == "failed" && r["level"] == "MUST")
        .filter_map(|r| r["id"].as_str())
        .collect();
    let mut not_recorded = 0;
    for r in results.iter().filter(|r| r["section"] == "snapshots") {
        let id = r["id"].as_str().expect("id");
        let group = id.trim_start_matches("snapshots/");
        let file = snapshots.join(format!("{}.snap", group.replace('/', "__")));
        if failed.contains(group) {
            assert_eq!(r["status"], "not_applicable", "{id}");
        }
        match r["status"].as_str() {
            Some("not_applicable") => {
                not_recorded += 1;
                assert!(!file.exists(), "{} was recorded", file.display());
            }
            Some("passed") => assert!(file.exists(), "{} missing", file.display()),
            other => panic!("{id}: {other:?}"),
        }
    }
    let failed_with_snapshots = results
        .iter()
        .filter(|r| r["section"] == "snapshots")
        .filter(|r| {
            failed.contains(
                r["id"]
                    .as_str()
                    .unwrap_or("")
                    .trim_start_matches("snapshots/"),
            )
        })
        .count();
    assert!(
        failed_with_snapshots > 0,
        "the fault fails no check that has exchanges"
    );
    // Shared snapshots (the error probes) are named after their group, not
    // a check: at least every failed check's own is left unrecorded.
    assert!(
        not_recorded >= failed_with_snapshots,
        "{not_recorded} < {failed_with_snapshots}"
    );

    // Then CI against what was recorded, as a team adopts the gate: the
    // failed checks fail on their own, and their snapshots, never recorded,
    // are not compared (a failure a baseline knows must not come back as a
    // missing snapshot).
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_conformance"));
    cmd.arg("--profile")
        .arg(dir.join("profile.yaml"))
        .arg("--snapshots")
        .arg(&snapshots)
        .arg("--json")
        .arg(&json)
        .env("CI", "true");
    let out = tokio::task::spawn_blocking(move || cmd.output())
        .await
        .expect("join")
        .expect("the binary runs");
    assert_eq!(out.status.code(), Some(1));
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).expect("report")).expect("json");
    let snapshot_failures: Vec<&str> = report["results"]
        .as_array()
        .expect("results")
        .iter()
        .filter(|r| r["section"] == "snapshots" && r["status"] == "failed")
        .filter_map(|r| r["id"].as_str())
        .collect();
    assert!(snapshot_failures.is_empty(), "{snapshot_failures:?}");
    let _ = std::fs::remove_dir_all(&dir);
    server.shutdown().await;
}

/// Requests a run sent beyond those of its checks' own exchanges: what it
/// sends to learn about the target, and any generated case no selected check
/// reads.
fn unread_requests(report: &conformance_report::report::Report) -> usize {
    let sent: usize = report.run.latency.iter().map(|l| l.stats.requests).sum();
    let read: usize = report
        .run
        .results
        .iter()
        .filter_map(|r| r.latency.as_ref())
        .map(|l| l.requests)
        .sum();
    sent - read
}

/// `--only` a check that reads one family of generated cases sends that
/// family alone: beyond what any run sends to learn about the target, one
/// valid request before the generated ones, and not the other families or
/// the property bodies (hundreds of requests) no selected check reads.
#[tokio::test(flavor = "multi_thread")]
async fn a_run_sends_only_the_generated_cases_its_checks_read() {
    let server = Server::start(ServerOptions::default())
        .await
        .expect("server");
    let mut profile =
        Profile::from_yaml_str(PROFILES[2].1, "reference.yaml", &|_| None).expect("profile");
    profile.base_url = server.base_url();
    let only = |ids: &[&str]| RunOptions {
        only: ids.iter().map(|s| (*s).to_owned()).collect(),
        ..RunOptions::default()
    };
    let plain = run(profile.clone(), &only(&["http"])).await.expect("run");
    let one_family = run(profile.clone(), &only(&["near-miss/x-client-id"]))
        .await
        .expect("run");
    let everything = run(
        profile.clone(),
        &only(&["near-miss/x-client-id", "invariants"]),
    )
    .await
    .expect("run");
    server.shutdown().await;
    for report in [&plain, &one_family, &everything] {
        assert_eq!(report.failed().count(), 0, "the correct server passes");
    }
    assert_eq!(
        unread_requests(&one_family),
        unread_requests(&plain) + 1,
        "a family no selected check reads was sent"
    );
    // The invariants read every family: the client id's near misses are
    // then a few of the many sent.
    assert!(
        unread_requests(&everything) > unread_requests(&one_family),
        "the invariants read every generated case"
    );
}
