//! The runner checks itself: the whole suite passes against the reference
//! server (rule checks and the shipped snapshots), and against the server
//! with each of its faults it fails, with a failing MUST check anchored in
//! the section whose rule the fault breaks.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use conformance::run;
use conformance_model::profile::Profile;
use conformance_report::report::{Report, Status};
use conformance_suite::catalogue::Level;
use conformance_suite::checks::catalogue;
use conformance_suite::generate::Generation;
use conformance_suite::runner::RunOptions;
use conformance_suite::snapshot::{SnapshotOptions, SnapshotUpdate};
use reference_server::{Fault, Server, ServerOptions};

const PROFILE: &str = include_str!("../../profiles/reference.yaml");

fn profile(base_url: String) -> Profile {
    let mut p = Profile::from_yaml_str(PROFILE, "reference.yaml", &|_| None)
        .expect("the shipped profile parses");
    p.base_url = base_url;
    p
}

async fn run_against(fault: Option<Fault>, snapshots: bool) -> Report {
    run_seeded(fault, snapshots, Generation::default()).await
}

async fn run_seeded(fault: Option<Fault>, snapshots: bool, generation: Generation) -> Report {
    run_only(fault, snapshots, generation, Vec::new()).await
}

async fn run_only(
    fault: Option<Fault>,
    snapshots: bool,
    generation: Generation,
    only: Vec<String>,
) -> Report {
    let server = Server::start(ServerOptions {
        fault,
        ..ServerOptions::default()
    })
    .await
    .expect("the reference server starts");
    let options = RunOptions {
        snapshots: snapshots.then(|| SnapshotOptions {
            dir: PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/profiles/snapshots")),
            // Never write in tests: a missing or changed snapshot fails.
            update: SnapshotUpdate::Ci,
        }),
        generation,
        only,
        ..RunOptions::default()
    };
    let report = run(profile(server.base_url()), &options)
        .await
        .expect("the run completes");
    server.shutdown().await;
    report
}

fn failures(report: &Report) -> String {
    report
        .failed()
        .map(|r| format!("{}: {}", r.id, r.actual.as_deref().unwrap_or("")))
        .collect::<Vec<_>>()
        .join("\n")
}

#[tokio::test(flavor = "multi_thread")]
async fn the_reference_server_passes_every_check_and_snapshot() {
    let report = run_against(None, true).await;
    assert_eq!(report.summary.failed, 0, "{}", failures(&report));
    assert_eq!(
        report.summary.warned, 0,
        "SHOULD checks fail against the reference server"
    );
    assert_eq!(report.summary.skipped, 0);
    let snapshots = report
        .run
        .results
        .iter()
        .filter(|r| r.section == "snapshots")
        .count();
    let stored = std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/profiles/snapshots"))
        .expect("the shipped snapshots")
        // Stored ones: not the `.snap.new` a failing run outside the tests
        // may have left beside them.
        .filter(|e| {
            e.as_ref()
                .is_ok_and(|e| e.path().extension().is_some_and(|x| x == "snap"))
        })
        .count();
    assert_eq!(
        snapshots, stored,
        "every stored snapshot, and only those, was asserted"
    );
    assert!(
        report
            .run
            .results
            .iter()
            .filter(|r| r.section == "snapshots")
            .all(|r| r.note.is_none()),
        "a snapshot was missing and recorded"
    );
}

/// Checks that judge what a run covered, not how the server answered, or
/// an answer no fault gives: no fault of the server makes them fail in a
/// plain run, and each is proven able to fail where it can.
const PROVEN_ELSEWHERE: &[(&str, &str)] = &[
    (
        "outcomes/",
        "fails only under --strict, for an outcome the run never triggered: checks/outcomes.rs's tests, and adopt.rs's --strict run",
    ),
    (
        "budgets/",
        "fails only where the profile declares a budget: adopt.rs slows the reference server by 40 ms and sees a 20 ms budget fail",
    ),
    (
        "answers/no-redirects",
        "fails on a server that redirects, which the reference server never does: real_targets.rs runs against one answering 307 to everything",
    ),
];

#[tokio::test(flavor = "multi_thread")]
async fn every_fault_fails_the_suite_on_its_own_rule() {
    // A few faults at a time: each run is itself concurrent, and CI
    // machines may have two cores.
    let slots = std::sync::Arc::new(tokio::sync::Semaphore::new(6));
    let handles: Vec<_> = Fault::ALL
        .iter()
        .map(|&f| {
            let slots = slots.clone();
            tokio::spawn(async move {
                let _slot = slots.acquire_owned().await.expect("open");
                // Fewer property bodies than a default run (32): a fault
                // caught with 8 is caught with more.
                let generation = Generation {
                    cases: 8,
                    ..Generation::default()
                };
                (f, run_seeded(Some(f), false, generation).await)
            })
        })
        .collect();
    let mut uncaught = Vec::new();
    let mut failed_by: BTreeMap<String, BTreeSet<&'static str>> = BTreeMap::new();
    for h in handles {
        let (fault, report) = h.await.expect("the fault run completes");
        let related: Vec<&str> = report
            .failed()
            .filter(|r| r.level == Level::Must && r.section == fault.section())
            .map(|r| r.id.as_str())
            .collect();
        for r in report.failed().chain(
            report
                .run
                .results
                .iter()
                .filter(|r| r.status == Status::Warned),
        ) {
            failed_by
                .entry(r.id.clone())
                .or_default()
                .insert(fault.name());
        }
        if report.run.exit_code() == 0 || related.is_empty() {
            uncaught.push(format!(
                "{} (§{} {}): exit {}, failing: [{}]",
                fault.name(),
                fault.section(),
                fault.rule(),
                report.run.exit_code(),
                report
                    .failed()
                    .map(|r| r.id.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
    }
    let never: Vec<String> = catalogue()
        .into_iter()
        .filter(|c| !failed_by.contains_key(c.id))
        .filter(|c| !PROVEN_ELSEWHERE.iter().any(|(p, _)| c.id.starts_with(p)))
        .map(|c| c.id.to_owned())
        .collect();
    // A check that no fault makes fail is reported here (the fault list
    // belongs to the reference server); see the README's coverage note.
    eprintln!(
        "checks no fault makes fail ({}): {}",
        never.len(),
        never.join(", ")
    );
    assert!(
        never.is_empty(),
        "checks that no fault makes fail (each needs a fault of the reference server): {}",
        never.join(", ")
    );
    assert!(
        uncaught.is_empty(),
        "faults the suite does not catch on their rule:\n{}",
        uncaught.join("\n")
    );
}

/// No false alarm hides behind one seed: the correct server passes under
/// twenty other seeds. The seed draws the property bodies, which only the
/// invariants read (and the checks over every answer judge): the rest of
/// the suite sends the same requests whatever the seed, and is left out.
#[tokio::test(flavor = "multi_thread")]
async fn the_reference_server_passes_under_twenty_seeds() {
    let slots = std::sync::Arc::new(tokio::sync::Semaphore::new(4));
    let handles: Vec<_> = (1..=20u64)
        .map(|i| {
            let slots = slots.clone();
            tokio::spawn(async move {
                let _slot = slots.acquire_owned().await.expect("open");
                let seed = i.wrapping_mul(0x9E37_79B9_7F4A_7C15);
                let generation = Generation { seed, cases: 32 };
                let only = vec!["invariants".to_owned(), "answers".to_owned()];
                (seed, run_only(None, false, generation, only).await)
            })
        })
        .collect();
    for h in handles {
        let (seed, report) = h.await.expect("the run completes");
        assert_eq!(
            report.summary.failed,
            0,
            "--seed {seed}:\n{}",
            failures(&report)
        );
        assert_eq!(
            report.summary.warned, 0,
            "--seed {seed}: a SHOULD check warned"
        );
    }
}

/// The same seed sends the same requests and gives the same verdicts, word
/// for word, reproduction included; another seed draws other bodies.
#[tokio::test(flavor = "multi_thread")]
async fn the_same_seed_gives_the_same_failures() {
    let generation = Generation {
        seed: 99,
        cases: 32,
    };
    let fault = Some(Fault::WrongTypeAnswered400);
    // Each run has its own server, on its own port.
    let unported = |r: &Report| {
        let text = failures(r);
        let mut out = String::new();
        for (i, part) in text.split("127.0.0.1:").enumerate() {
            if i > 0 {
                out.push_str("127.0.0.1:PORT");
            }
            out.push_str(part.trim_start_matches(|c: char| c.is_ascii_digit() && i > 0));
        }
        out
    };
    let first = unported(&run_seeded(fault, false, generation).await);
    let again = unported(&run_seeded(fault, false, generation).await);
    assert!(first.contains("invariants/validation-is-417"), "{first}");
    assert!(first.contains("reproduce: curl"), "{first}");
    assert_eq!(first, again);
}

/// A reproduction that sends a token the check's own Authorize was
/// answered with writes it as `${ISSUED_TOKEN}`, with a line that says
/// where it comes from: a command to paste, not a `[redacted]` to guess at.
#[tokio::test(flavor = "multi_thread")]
async fn a_token_a_check_had_issued_is_a_variable_in_its_reproduction() {
    let report = run_only(
        Some(Fault::ClaimsIgnoreEnvironment),
        false,
        Generation::default(),
        vec!["state/environments".to_owned()],
    )
    .await;
    let actual = report
        .failed()
        .find(|r| r.id == "state/environments")
        .and_then(|r| r.actual.clone())
        .unwrap_or_else(|| panic!("state/environments passed: {}", failures(&report)));
    let reproduce = &actual[actual.find("reproduce:").expect("a reproduction")..];
    assert!(
        reproduce.contains("# ISSUED_TOKEN: the `token` this check's Authorize was answered with"),
        "{reproduce}"
    );
    assert!(
        reproduce.contains("-H 'x-auth-token: '\"${ISSUED_TOKEN}\""),
        "{reproduce}"
    );
    assert!(!reproduce.contains("[redacted]"), "{reproduce}");
}
