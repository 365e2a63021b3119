//! The gate judged the other way: every behaviour the description allows
//! passes it. The reference server's legal variants (`--variant`: a 401 for
//! a missing credential, a wrapped success body, `modelUuid` in a header,
//! an ETag, ...) are the dual of its faults; this test crosses them with
//! the suite.
//!
//! - Each variant alone, with the shipped profile's data and no declared
//!   choices, passes a record-then-CI run of the binary: `--accept` into a
//!   fresh snapshot folder, then `CI=true` against it; exit 0 both times.
//!   (A variant that moves `modelUuid` declares where: the description
//!   leaves the place open, so no runner can find it unaided.)
//! - All compatible variants at once, with the choices `conformance
//!   choices` observes declared, pass the same two runs, and the declared
//!   choices are then MUST checks that pass.
//! - With those variants on and their choices declared, every fault of the
//!   reference server still fails the suite.

use std::path::{Path, PathBuf};
use std::process::Command;

use conformance::run;
use conformance_model::choices::Choices;
use conformance_model::profile::Profile;
use conformance_suite::observe::observe;
use conformance_suite::runner::RunOptions;
use reference_server::{Fault, Server, ServerOptions, Variant};

const PROFILE: &str = include_str!("../../profiles/reference.yaml");

/// The shipped profile's text without its `choices:` block (the rest of
/// the file ends before it), pointed at `base_url`, plus `extra`.
fn profile_text(base_url: &str, extra: &str) -> String {
    let without_choices = PROFILE
        .split("\n# What the reference server chose")
        .next()
        .expect("the profile has text");
    assert!(!without_choices.contains("choices:"), "the block moved");
    let mut text: String = without_choices
        .lines()
        .map(|l| {
            if l.starts_with("base_url:") {
                format!("base_url: {base_url}\n")
            } else {
                format!("{l}\n")
            }
        })
        .collect();
    text.push_str(extra);
    text
}

/// What a variant needs declared: where `modelUuid` travels.
fn needed_choices(variants: &[Variant]) -> String {
    let mut out = String::new();
    for v in variants {
        match v.name() {
            "model-uuid-header" => {
                out.push_str("choices:\n  model_uuid: \"header:X-Model-Uuid\"\n")
            }
            "model-uuid-body" => out.push_str("choices:\n  model_uuid: \"body:modelUuid\"\n"),
            _ => {}
        }
    }
    out
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "conformance-variants-{}-{name}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch folder");
    dir
}

/// Runs the binary on `profile` (snapshots beside it); its exit code and
/// output.
fn conformance(profile: &Path, ci: bool, accept: bool) -> (i32, String) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_conformance"));
    // Fewer generated bodies than a default run: what varies between the
    // variants is not what random bodies find.
    cmd.arg("--profile").arg(profile).args(["--cases", "8"]);
    if accept {
        cmd.arg("--accept");
    }
    cmd.env("NO_COLOR", "1")
        .env_remove("INSTA_UPDATE")
        .env_remove("INSTA_FORCE_PASS");
    if ci {
        cmd.env("CI", "true");
    } else {
        cmd.env_remove("CI");
    }
    let out = cmd.output().expect("the binary runs");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.code().unwrap_or(-1), text)
}

/// Only the lines of failures, for a readable assertion message.
fn failing(report: &str) -> String {
    let mut keep = false;
    report
        .lines()
        .filter(|l| {
            if l.starts_with("  ") && l.trim_start().starts_with("FAIL") {
                keep = true;
            } else if l.starts_with("  ") && !l.starts_with("      ") {
                keep = false;
            }
            keep || l.contains("passed,")
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Record, then gate in CI against the record: both exit 0.
async fn record_then_ci(variants: &[Variant], extra: &str, name: &str) {
    let server = Server::start(ServerOptions {
        variants: variants.to_vec(),
        ..ServerOptions::default()
    })
    .await
    .expect("the reference server starts");
    let dir = scratch(name);
    let file = dir.join("profile.yaml");
    std::fs::write(&file, profile_text(&server.base_url(), extra)).expect("profile");
    let (code, out) = tokio::task::spawn_blocking({
        let file = file.clone();
        move || conformance(&file, false, true)
    })
    .await
    .expect("join");
    assert_eq!(code, 0, "{name}: --accept\n{}", failing(&out));
    let (code, out) = tokio::task::spawn_blocking({
        let file = file.clone();
        move || conformance(&file, true, false)
    })
    .await
    .expect("join");
    assert_eq!(
        code,
        0,
        "{name}: CI=true against the record\n{}",
        failing(&out)
    );
    server.shutdown().await;
    let _ = std::fs::remove_dir_all(&dir);
}

/// The variants that can be on together: each in order unless it
/// conflicts with one already taken.
fn compatible() -> Vec<Variant> {
    let mut taken: Vec<Variant> = Vec::new();
    for v in Variant::ALL {
        if !taken.iter().any(|t| t.conflicts_with(*v)) {
            taken.push(*v);
        }
    }
    taken
}

#[tokio::test(flavor = "multi_thread")]
async fn every_variant_alone_passes_record_then_ci() {
    // Two at a time: each is two runs of the binary against its own server.
    let lanes = std::sync::Arc::new(tokio::sync::Semaphore::new(2));
    let mut runs = tokio::task::JoinSet::new();
    for v in Variant::ALL.iter().copied() {
        let lanes = lanes.clone();
        runs.spawn(async move {
            let _lane = lanes.acquire_owned().await.expect("never closed");
            record_then_ci(&[v], &needed_choices(&[v]), v.name()).await;
        });
    }
    while let Some(joined) = runs.join_next().await {
        // A failed assertion inside a run is a panic: re-raise it here.
        if let Err(e) = joined {
            std::panic::resume_unwind(e.into_panic());
        }
    }
}

/// The choices `conformance choices` sees on a server with `variants`.
async fn observed(variants: &[Variant]) -> Choices {
    let server = Server::start(ServerOptions {
        variants: variants.to_vec(),
        ..ServerOptions::default()
    })
    .await
    .expect("the reference server starts");
    let mut profile =
        Profile::from_yaml_str(&profile_text("http://127.0.0.1:1", ""), "p.yaml", &|_| None)
            .expect("profile");
    profile.base_url = server.base_url();
    let seen = observe(profile, &RunOptions::default())
        .await
        .expect("observed");
    server.shutdown().await;
    seen
}

#[tokio::test(flavor = "multi_thread")]
async fn all_compatible_variants_pass_with_their_observed_choices() {
    let variants = compatible();
    assert!(variants.len() > 5, "{variants:?}");
    let seen = observed(&variants).await;
    // What the variants change is what was seen.
    assert_eq!(seen.missing_credential, Some(401), "{seen:?}");
    assert_eq!(seen.authorize_success, Some(201), "{seen:?}");
    assert_eq!(seen.body_limit, Some(16 * 1024), "{seen:?}");
    assert_eq!(seen.get_body_validated, Some(false), "{seen:?}");
    assert_eq!(
        seen.token_checked_when_not_required,
        Some(false),
        "{seen:?}"
    );
    assert_eq!(seen.claims_carry_model_uuid, Some(false), "{seen:?}");
    record_then_ci(&variants, &seen.to_yaml(), "all-compatible").await;
}

/// Where `modelUuid` travels in the body, the body limit seen is the
/// server's, to the byte: the bodies sent count the field it adds.
#[tokio::test(flavor = "multi_thread")]
async fn the_body_limit_is_seen_to_the_byte_with_model_uuid_in_the_body() {
    let seen = observed(&[Variant::ModelUuidBody]).await;
    assert_eq!(
        seen.model_uuid.as_ref().map(ToString::to_string).as_deref(),
        Some("body:modelUuid"),
        "{seen:?}"
    );
    assert_eq!(seen.body_limit, Some(64 * 1024), "{seen:?}");
}

/// Faults a variant makes unobservable, with the variants that hide them
/// and why: with those on, the fault's answer is one the description
/// allows. Each is caught with every other compatible variant on.
const MASKED: &[(&str, &[&str], &str)] = &[
    (
        "malformed-json-accepted",
        &["malformed-json-417"],
        "a malformed body read as {} fails validation: a 417, which is what the variant answers a malformed body",
    ),
    (
        "request-id-repeated",
        &["missing-credential-401"],
        "request_id belongs to a 400's 7.1 shape; with missing credentials answered 401 the run has no two 400s to compare",
    ),
    (
        "request-id-per-connection",
        &["missing-credential-401"],
        "the kept-alive requests lack X-Client-Id: answered 401, they carry no request_id to compare",
    ),
    (
        "claims-omit-model",
        &["claims-model-without-uuid"],
        "with the model named by its fields only (`claims_carry_model_uuid: false`), a model left out cannot be told from one given without its uuid",
    ),
    (
        "unknown-field-answered-400",
        &["unknown-fields-ignored"],
        "with fields the settings do not define ignored, no unknown field fails validation: there is no 417 left to answer 400",
    ),
    (
        "claims-ignore-environment",
        &["claims-model-without-uuid"],
        "with the model named by its fields only, `conformance choices` cannot see that Auth Claims follows Authorize and declares `authorize_claims: false`, under which no claim is read back",
    ),
];

/// Does the suite fail on `fault` with `variants` on and `choices`
/// declared, in the checks of the fault's section? The generated cases are
/// fewer than a default run's: the faults they catch are caught by their
/// first cases.
async fn caught(fault: Fault, variants: &[Variant], choices: &Choices) -> bool {
    // A fault that only shows in another section's exchanges (an HTML 405
    // page judged by §7's every-answer check) needs the whole suite.
    caught_by(fault, variants, choices, vec![fault.section().to_owned()]).await
        || caught_by(fault, variants, choices, Vec::new()).await
}

async fn caught_by(
    fault: Fault,
    variants: &[Variant],
    choices: &Choices,
    only: Vec<String>,
) -> bool {
    let started = std::time::Instant::now();
    let server = Server::start(ServerOptions {
        fault: Some(fault),
        variants: variants.to_vec(),
        ..ServerOptions::default()
    })
    .await
    .expect("the reference server starts");
    let mut profile =
        Profile::from_yaml_str(&profile_text("http://127.0.0.1:1", ""), "p.yaml", &|_| None)
            .expect("profile");
    profile.base_url = server.base_url();
    profile.choices = choices.clone();
    // The checks of the fault's own section: the self-test proves each
    // fault fails one of them; with the variants on it must still.
    let options = RunOptions {
        only,
        generation: conformance_suite::generate::Generation {
            cases: 8,
            ..Default::default()
        },
        ..RunOptions::default()
    };
    let report = run(profile, &options).await.expect("run");
    server.shutdown().await;
    if std::env::var("VARIANTS_DEBUG").is_ok() {
        let failed: Vec<&str> = report.failed().map(|r| r.id.as_str()).collect();
        eprintln!(
            "{} with {} variants, {} ms: {failed:?}",
            fault.name(),
            variants.len(),
            started.elapsed().as_millis()
        );
    }
    report.run.exit_code() != 0
}

#[tokio::test(flavor = "multi_thread")]
async fn every_fault_is_still_caught_with_the_variants_on() {
    let variants = compatible();
    let seen = observed(&variants).await;
    // The faults side by side, a few at a time (each run has its own server
    // and target). The rate-limit variant makes each run wait on its
    // server's Retry-After more than it computes, so six lanes overlap the
    // waits; many more would queue on two cores.
    let lanes = std::sync::Arc::new(tokio::sync::Semaphore::new(6));
    let mut runs = tokio::task::JoinSet::new();
    for fault in Fault::ALL.iter().copied() {
        let (variants, seen) = (variants.clone(), seen.clone());
        let lanes = lanes.clone();
        runs.spawn(async move {
            let _lane = lanes.acquire_owned().await.expect("never closed");
            let masked = MASKED.iter().find(|(f, _, _)| *f == fault.name());
            let Some((_, masks, why)) = masked else {
                return (fault, caught(fault, &variants, &seen).await, None);
            };
            let stale = caught(fault, &variants, &seen)
                .await
                .then(|| format!("{}: caught after all; remove it from MASKED", fault.name()));
            let fewer: Vec<Variant> = variants
                .iter()
                .copied()
                .filter(|v| !masks.contains(&v.name()))
                .collect();
            let fewer_seen = observed(&fewer).await;
            let ok = caught(fault, &fewer, &fewer_seen).await;
            if !ok {
                eprintln!(
                    "{}: masked ({why}), and not caught without {masks:?}",
                    fault.name()
                );
            }
            (fault, ok, stale)
        });
    }
    let mut missed = Vec::new();
    let mut stale = Vec::new();
    while let Some(joined) = runs.join_next().await {
        let (fault, ok, was_stale) = joined.expect("a fault's run");
        if !ok {
            missed.push(fault.name());
        }
        stale.extend(was_stale);
    }
    missed.sort();
    assert!(stale.is_empty(), "{stale:?}");
    assert!(
        missed.is_empty(),
        "faults not caught with the variants on: {missed:?}"
    );
}

/// A server that reads modelUuid in a header passes with nothing declared:
/// the run looks for the place first (as `conformance choices` does), sends
/// it there, warns, and ends with the block that declares it; declared, the
/// block is gone. Where no place is served (here: a model no server has),
/// the failures come with a hint that names the choice.
#[tokio::test(flavor = "multi_thread")]
async fn an_undeclared_model_uuid_place_is_found_and_declared_in_the_block() {
    let variants = [Variant::ModelUuidHeader];
    let server = Server::start(ServerOptions {
        variants: variants.to_vec(),
        ..ServerOptions::default()
    })
    .await
    .expect("the reference server starts");
    let base = server.base_url();
    let mut reports = Vec::new();
    let unknown_model = profile_text(&base, "").replace(
        "model_uuid: 5d2e8a34-8a47-4f0e-b3a6-2a9d2f9c7e01",
        "model_uuid: 00000000-0000-4000-8000-00000000beef",
    );
    for text in [
        profile_text(&base, ""),
        profile_text(&base, &needed_choices(&variants)),
        unknown_model,
    ] {
        let profile = Profile::from_yaml_str(&text, "p.yaml", &|_| None).expect("profile");
        let report = run(profile, &RunOptions::default()).await.expect("run");
        reports.push(report);
    }
    server.shutdown().await;
    let (undeclared, declared, nowhere) = (&reports[0], &reports[1], &reports[2]);
    let failed: Vec<&str> = undeclared.failed().map(|r| r.id.as_str()).collect();
    assert_eq!(undeclared.run.exit_code(), 0, "failed: {failed:?}");
    assert!(
        undeclared
            .run
            .undeclared
            .contains(&"model_uuid: \"header:X-Model-Uuid\"".to_owned()),
        "{:?}",
        undeclared.run.undeclared
    );
    assert!(
        undeclared.run.hints.is_empty(),
        "{:?}",
        undeclared.run.hints
    );
    assert_eq!(declared.run.exit_code(), 0);
    assert!(
        declared.run.undeclared.is_empty(),
        "{:?}",
        declared.run.undeclared
    );
    assert_eq!(nowhere.run.exit_code(), 1);
    assert!(
        nowhere
            .run
            .hints
            .iter()
            .any(|h| h.contains("choices.model_uuid")),
        "{:?}",
        nowhere.run.hints
    );
}

/// A GET body parsed but its fields not checked (an app-wide JSON body
/// parser, Express's `express.json()`): `conformance choices` sees
/// `get_body_validated: false`, and a body that is not JSON may then still
/// be refused. Declared, the run held such a server to serving it.
#[tokio::test(flavor = "multi_thread")]
async fn a_get_body_parsed_but_not_validated_passes_with_its_observed_choices() {
    let variants = [Variant::GetBodyFieldsIgnored];
    let seen = observed(&variants).await;
    assert_eq!(seen.get_body_validated, Some(false), "{seen:?}");
    record_then_ci(
        &variants,
        &seen.to_yaml(),
        "get-body-fields-ignored-observed",
    )
    .await;
}
