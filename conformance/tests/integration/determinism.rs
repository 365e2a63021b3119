//! One verdict, every run: the interface is stateful (a successful
//! Authorize may change what Auth Claims returns), and a run is scheduled
//! so that nothing it reports depends on which of two concurrent requests
//! lands first, or on what earlier runs left in the server.
//!
//! Against the reference server's `records-claims` variant (one process,
//! never restarted): record once, then `CI=true` at `--concurrency` 1, 16
//! and 64, twice each: every run passes, the snapshots stay as recorded,
//! and every `--json` report is byte-identical to the first once timings
//! are removed. The independent Flask server, which records claims too, is
//! held to the same (`independent.rs`).

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use reference_server::{Server, ServerOptions, Variant};

const PROFILE: &str = include_str!("../../profiles/reference.yaml");
const CONCURRENCIES: [&str; 3] = ["1", "16", "64"];
const RUNS_EACH: usize = 2;

/// Where each named run's report differs from the first's, in words.
pub(crate) fn differing_reports(reports: &[(String, PathBuf)]) -> Vec<String> {
    let mut failures = Vec::new();
    let mut first: Option<(&str, Vec<u8>, serde_json::Value)> = None;
    for (name, path) in reports {
        let report: serde_json::Value = match std::fs::read(path)
            .map_err(|e| e.to_string())
            .and_then(|b| serde_json::from_slice(&b).map_err(|e| e.to_string()))
        {
            Ok(r) => r,
            Err(e) => {
                failures.push(format!("{name}: no JSON report ({e})"));
                continue;
            }
        };
        let stripped = without_timings(&report);
        let bytes = serde_json::to_vec_pretty(&stripped).expect("serialise a report");
        match &first {
            None => first = Some((name, bytes, stripped)),
            Some((first_name, first_bytes, first_report)) if *first_bytes != bytes => {
                let differences = report_differences(first_report, &stripped);
                failures.push(format!(
                    "{name}: its report differs from {first_name}'s ({} place(s)):\n  {}",
                    differences.len(),
                    differences.join("\n  ")
                ));
            }
            Some(_) => {}
        }
    }
    failures
}

/// The binary on `profile` with `args`; whether it exited 0, and its output.
fn conformance(profile: &Path, snapshots: &Path, ci: bool, args: &[&str]) -> (bool, String) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_conformance"));
    cmd.arg("--profile")
        .arg(profile)
        .arg("--snapshots")
        .arg(snapshots)
        .args(["--cases", "8"])
        .args(args)
        .env("NO_COLOR", "1")
        .env_remove("INSTA_UPDATE")
        .env_remove("INSTA_FORCE_PASS");
    match ci {
        true => cmd.env("CI", "true"),
        false => cmd.env_remove("CI"),
    };
    let out = cmd.output().expect("the binary runs");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.success(), text)
}

#[tokio::test(flavor = "multi_thread")]
async fn a_server_that_records_claims_gets_one_verdict_at_any_concurrency() {
    one_verdict(&[Variant::RecordsClaims], "records-claims", &[]).await;
}

/// A success body that reflects state (the claim an Authorize replaced),
/// claims per environment and no X-Project-Env taken as `live`: the
/// settle's requests for no environment and for `live` claim the same slot.
/// Recorded on a fresh server; then CI runs against that server, long-lived
/// (every run leaves its claims), and against a fresh one.
#[tokio::test(flavor = "multi_thread")]
async fn a_server_whose_answers_carry_state_gets_one_verdict_fresh_or_long_lived() {
    one_verdict(
        &[
            Variant::RecordsClaims,
            Variant::ReportsReplacedClaim,
            Variant::EnvDefaultLive,
        ],
        "replaced-claim",
        &[("absent_project_env: dev", "absent_project_env: live")],
    )
    .await;
}

/// `PROFILE` for `base_url`, with `edits` (a line's text replaced).
fn profile_text(base_url: &str, edits: &[(&str, &str)]) -> String {
    PROFILE
        .lines()
        .map(|l| {
            let l = edits
                .iter()
                .fold(l.to_owned(), |l, (from, to)| l.replace(from, to));
            match l.starts_with("base_url:") {
                true => format!("base_url: {base_url}\n"),
                false => format!("{l}\n"),
            }
        })
        .collect()
}

/// Records once against a fresh server with `variants`, then `CI=true` at
/// every concurrency against it (never restarted) and once against a fresh
/// one: every run green, the snapshots unchanged, the reports one.
async fn one_verdict(variants: &[Variant], name: &str, edits: &[(&str, &str)]) {
    let start = || async {
        Server::start(ServerOptions {
            variants: variants.to_vec(),
            ..ServerOptions::default()
        })
        .await
        .expect("the reference server starts")
    };
    let server = start().await;
    let fresh = start().await;
    let dir = std::env::temp_dir().join(format!(
        "conformance-determinism-{name}-{}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch folder");
    let profile = dir.join("profile.yaml");
    std::fs::write(&profile, profile_text(&server.base_url(), edits)).expect("profile");
    let fresh_profile = dir.join("fresh.yaml");
    std::fs::write(&fresh_profile, profile_text(&fresh.base_url(), edits)).expect("profile");
    let snapshots = dir.join("snapshots");
    let failures = tokio::task::spawn_blocking(move || {
        let (passed, out) = conformance(&profile, &snapshots, false, &["--accept"]);
        assert!(passed, "--accept:\n{out}");
        let recorded = files_under(&snapshots);
        let mut failures = Vec::new();
        let mut reports = Vec::new();
        let json = dir.join("fresh.json");
        let json_arg = json.to_string_lossy().into_owned();
        let (passed, out) = conformance(&fresh_profile, &snapshots, true, &["--json", &json_arg]);
        if !passed {
            failures.push(format!("a fresh server: not green\n{out}"));
        }
        reports.push(("a fresh server".to_owned(), json));
        for concurrency in CONCURRENCIES {
            for round in 1..=RUNS_EACH {
                let name = format!("ci-concurrency-{concurrency}-run-{round}");
                let json = dir.join(format!("{name}.json"));
                let json_arg = json.to_string_lossy().into_owned();
                let (passed, out) = conformance(
                    &profile,
                    &snapshots,
                    true,
                    &["--concurrency", concurrency, "--json", &json_arg],
                );
                if !passed {
                    failures.push(format!("{name}: not green\n{out}"));
                }
                reports.push((name, json));
            }
        }
        failures.extend(differing_reports(&reports));
        if files_under(&snapshots) != recorded {
            failures.push("CI runs changed the recorded snapshots".to_owned());
        }
        failures
    })
    .await
    .expect("join");
    server.shutdown().await;
    fresh.shutdown().await;
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// A `--json` report without what measures time or load, or names the
/// concurrency (the one setting the runs differ in): `duration_ms` and
/// `latency` at any depth, `pace.concurrency`, and what a server's limits
/// made of the run (`pace.retried`, `pace.limited`, `pace.learnt_rate`),
/// and `target` (a fresh server has another port). Everything else (each check's status, what it
/// expected and saw, the outcomes seen and how often, the settle count)
/// must not depend on how many requests were in flight.
pub(crate) fn without_timings(report: &serde_json::Value) -> serde_json::Value {
    use serde_json::Value;
    fn strip(v: &Value, top: bool) -> Value {
        // Whether a server limits a run depends on its load: the check that
        // judges limit answers passes or has none to judge. Its failure
        // stays compared; the summary's counts are the results', compared
        // one by one.
        if let Some(result) = v.as_object().filter(|r| {
            r.get("id").and_then(Value::as_str) == Some("answers/limit-answers-are-envelopes")
                && matches!(
                    r.get("status").and_then(Value::as_str),
                    Some("passed" | "not_applicable")
                )
        }) {
            let mut result = result.clone();
            result.insert("status".into(), "passed or not applicable (load)".into());
            result.remove("note");
            return Value::Object(result);
        }
        match v {
            Value::Object(map) => Value::Object(
                map.iter()
                    .filter(|(k, _)| !matches!(k.as_str(), "duration_ms" | "latency"))
                    // The server's address: a fresh server has another port;
                    // the summary counts the results compared one by one.
                    .filter(|(k, _)| !(top && matches!(k.as_str(), "target" | "summary")))
                    .map(|(k, x)| {
                        let x = match (top, k.as_str(), x) {
                            (true, "pace", Value::Object(pace)) => {
                                let mut pace = pace.clone();
                                for load in ["concurrency", "retried", "limited", "learnt_rate"] {
                                    pace.remove(load);
                                }
                                Value::Object(pace)
                            }
                            _ => strip(x, false),
                        };
                        (k.clone(), x)
                    })
                    .collect(),
            ),
            Value::Array(items) => Value::Array(items.iter().map(|x| strip(x, false)).collect()),
            _ => v.clone(),
        }
    }
    strip(report, true)
}

/// Where `b` differs from `a`: JSON paths, an array item named by its `id`
/// (a check) or its `operation` and `id` (an outcome) where it has one.
pub(crate) fn report_differences(a: &serde_json::Value, b: &serde_json::Value) -> Vec<String> {
    use serde_json::Value;
    fn name(item: &Value, index: usize) -> String {
        let field = |k: &str| item.get(k).and_then(Value::as_str);
        match (field("operation"), field("id")) {
            (Some(op), Some(id)) => format!("[{op} {id}]"),
            (None, Some(id)) => format!("[{id}]"),
            _ => format!("[{index}]"),
        }
    }
    fn walk(a: &Value, b: &Value, path: &str, out: &mut Vec<String>) {
        match (a, b) {
            (Value::Object(x), Value::Object(y)) => {
                for (k, va) in x {
                    match y.get(k) {
                        Some(vb) => walk(va, vb, &format!("{path}/{k}"), out),
                        None => out.push(format!("{path}/{k}: only in the first")),
                    }
                }
                for k in y.keys().filter(|k| !x.contains_key(*k)) {
                    out.push(format!("{path}/{k}: only in this run"));
                }
            }
            (Value::Array(x), Value::Array(y)) => {
                if x.len() != y.len() {
                    out.push(format!("{path}: {} items, then {}", x.len(), y.len()));
                }
                for (i, (va, vb)) in x.iter().zip(y).enumerate() {
                    walk(va, vb, &format!("{path}{}", name(va, i)), out);
                }
            }
            _ if a != b => {
                let show = |v: &Value| {
                    let t = v.to_string();
                    match t.char_indices().nth(300) {
                        Some((i, _)) => format!("{}…", &t[..i]),
                        None => t,
                    }
                };
                out.push(format!("{path}: {} then {}", show(a), show(b)));
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    walk(a, b, "", &mut out);
    out
}

/// Every file under `dir` with its bytes.
pub(crate) fn files_under(dir: &Path) -> std::collections::BTreeMap<PathBuf, Vec<u8>> {
    let mut files = std::collections::BTreeMap::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(path) = pending.pop() {
        if path.is_dir() {
            for entry in fs::read_dir(&path).expect("read a folder").flatten() {
                pending.push(entry.path());
            }
        } else {
            files.insert(path.clone(), fs::read(&path).unwrap_or_default());
        }
    }
    files
}
