//! A gate that cannot go green by skipping: for profiles that lack parts,
//! the checks a run skips are exactly those the plan (`check-profile`)
//! predicts from the profile alone, each with the reason of its need; and
//! `--strict` fails a run that skipped a MUST check.

use std::collections::BTreeSet;

use conformance::catalogue::Level;
use conformance::profile::Profile;
use conformance::report::Status;
use conformance::runner::{Plan, RunOptions, run};
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
        include_str!("../profiles/reference.yaml"),
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
            .map(|(c, need)| (c.id.clone(), need.reason().to_owned()))
            .collect();
        let report = run(profile.clone(), &options).await.expect("run");
        let skipped: BTreeSet<(String, String)> = report
            .results
            .iter()
            .filter(|r| r.status == Status::Skipped)
            .map(|r| (r.id.clone(), r.note.clone().unwrap_or_default()))
            .collect();
        assert_eq!(
            skipped, predicted,
            "{name}: the run skipped what the plan did not predict (or the reverse)"
        );
        assert_eq!(report.exit_code(), 0, "{name}: the correct server passes");
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
            strict.exit_code(),
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

#[tokio::test(flavor = "multi_thread")]
async fn accept_records_nothing_a_failed_check_made() {
    use conformance::snapshot::{SnapshotOptions, SnapshotUpdate};
    let server = Server::start(ServerOptions {
        fault: Some("error-body-not-json".parse().expect("a fault")),
        ..ServerOptions::default()
    })
    .await
    .expect("server");
    let dir = std::env::temp_dir().join(format!("conformance-accept-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let mut profile =
        Profile::from_yaml_str(PROFILES[2].1, "reference.yaml", &|_| None).expect("profile");
    profile.base_url = server.base_url();
    let report = run(
        profile,
        &RunOptions {
            snapshots: Some(SnapshotOptions {
                dir: dir.clone(),
                update: SnapshotUpdate::Accept,
            }),
            ..RunOptions::default()
        },
    )
    .await
    .expect("run");
    assert_eq!(report.exit_code(), 1);
    // Only a MUST failure makes exchanges no reference: a SHOULD check
    // that warned records what the server chose, to be kept from drifting.
    let failed: BTreeSet<&str> = report
        .results
        .iter()
        .filter(|r| r.status == Status::Failed && r.level == Level::Must)
        .map(|r| r.id.as_str())
        .collect();
    let mut not_recorded = 0;
    for r in report.results.iter().filter(|r| r.section == "snapshots") {
        let group = r.id.trim_start_matches("snapshots/");
        let file = dir.join(format!("{}.snap", group.replace('/', "__")));
        if failed.contains(group) {
            assert_eq!(r.status, Status::Skipped, "{}", r.id);
        }
        match r.status {
            Status::Skipped => {
                not_recorded += 1;
                assert!(!file.exists(), "{} was recorded", file.display());
            }
            Status::Passed => assert!(file.exists(), "{} missing", file.display()),
            other => panic!("{}: {other:?}", r.id),
        }
    }
    assert!(not_recorded > 3, "the fault fails several recorded checks");
    let _ = std::fs::remove_dir_all(&dir);
    server.shutdown().await;
}
